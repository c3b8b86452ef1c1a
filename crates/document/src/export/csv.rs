//! Spreadsheet-ready CSV of one table: one header row of stable snake_case
//! keys, plain numbers (seconds, KB) without thousands separators, empty
//! where there is no figure.

use anyhow::Result;

use super::Exporter;
use crate::{Document, Entry, Kind, Table, Value};

pub struct Csv;

/// The plain value of a cell as CSV text, at its column's precision.
fn value_text(kind: Kind, cell: &Entry) -> String {
    match &cell.value {
        Value::Empty => String::new(),
        // Line breaks stay (the field is quoted): a stderr tail keeps its
        // lines, as it always did.
        Value::Text(s) => inert(&crate::inert::block(s, crate::inert::MAX_TEXT)),
        Value::Bool(b) => b.to_string(),
        // A shared place keeps its `=` (langbench's own text, `=` and
        // digits: no formula a spreadsheet could run to any effect).
        Value::Int(_) if kind == Kind::Rank && is_shared_rank(&cell.text) => cell.text.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Number(v) => match kind {
            Kind::Seconds { decimals } | Kind::Decimal { decimals } => format!("{v:.decimals$}"),
            Kind::Kb | Kind::Count | Kind::Rank => format!("{v:.0}"),
            // A percentage is written as its fraction (0.05 for 5%).
            Kind::Ratio | Kind::Percent => format!("{v:.4}"),
            Kind::Number | Kind::Text => v.to_string(),
        },
    }
}

/// `=` and digits: a shared place ([`Kind::Rank`]).
fn is_shared_rank(text: &str) -> bool {
    text.strip_prefix('=')
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// Text a spreadsheet will not run (and, made so by `value_text` first,
/// with no escape sequence or control character: crates/document/src/inert.rs): a value that begins like a formula
/// (`=`, `+`, `-`, `@`, a tab or a carriage return: a note quoting a
/// program's stderr could say `=HYPERLINK(...)`) gets a leading `'`, as
/// OWASP's guidance on CSV injection says; numbers are never text here.
fn inert(s: &str) -> String {
    if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s.to_string()
    }
}

pub fn table(t: &Table) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    write_table(t, &mut bytes)?;
    Ok(bytes)
}

/// [`table`] written to `out` as its rows are made (a streamed table's
/// are never all held, crates/document/src/lib.rs).
pub fn write_table(t: &Table, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let cols = t.data_columns();
    let mut w = csv::Writer::from_writer(out);
    w.write_record(cols.iter().map(|&i| t.columns[i].key.as_str()))?;
    t.for_each_row(|_, row| {
        w.write_record(cols.iter().map(|&i| value_text(t.columns[i].kind, &row[i])))
    })?;
    w.flush()
}

impl Exporter for Csv {
    /// A CSV file holds one table: the document's first.
    fn render(&self, doc: &Document) -> Result<Vec<u8>> {
        match doc.tables.first() {
            Some(t) => table(t),
            None => Ok(Vec::new()),
        }
    }
}
