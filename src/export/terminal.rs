//! Tables for the terminal (comfy-table), with the document's facts above
//! and its notes below.

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{Cell as TCell, CellAlignment, ContentArrangement, Table as TTable};

use super::document::{Document, Table};

/// One table's display columns as a terminal table.
pub fn table(t: &Table) -> TTable {
    let cols = t.display_columns();
    let mut out = TTable::new();
    out.load_style(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(cols.iter().map(|&i| t.columns[i].header.clone()));
    for row in &t.rows {
        out.add_row(cols.iter().map(|&i| {
            let c = TCell::new(clean(&row[i].text));
            if t.columns[i].kind.is_numeric() {
                c.set_alignment(CellAlignment::Right)
            } else {
                c
            }
        }));
    }
    out
}

/// Text from records can hold newlines or escape codes: one clean line.
fn clean(s: &str) -> String {
    strip_ansi_escapes::strip_str(s).replace(['\n', '\r'], " ")
}

/// Everything a command prints at its end: facts, tables, notes.
pub fn document(doc: &Document) -> String {
    let mut s = String::new();
    for (k, v) in &doc.meta {
        s.push_str(&format!("{k}: {}\n", clean(v)));
    }
    for t in doc.tables.iter().filter(|t| !t.data_only) {
        if doc.tables.len() > 1 {
            s.push_str(&format!("{}\n", t.title));
        }
        s.push_str(&table(t).to_string());
        s.push('\n');
        if !t.notes.is_empty() {
            s.push_str("* notes:\n");
            for n in &t.notes {
                s.push_str(&format!("  - {}\n", clean(&n.to_string())));
            }
        }
    }
    s
}
