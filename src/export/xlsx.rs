//! The spreadsheet: one worksheet per [`Table`] (its data columns, real
//! numbers with a number format by [`Kind`], totals as `SUM` formulas) and a
//! last sheet `About` with the document's facts.
//!
//! A failed cell has no value, so it is written as its text (`FAILED (exit
//! 1)`), never as a number: a `SUM` over a row leaves it out, which is what a
//! partial total means. Flagged and failed cells are filled (amber, red) and
//! carry their reason as a cell note.

use std::collections::HashSet;

use anyhow::{Context, Result};
use rust_xlsxwriter::{
    Color, Format, FormatBorder, Formula, Note, Workbook, Worksheet, utility::row_col_to_cell,
};

use super::{Cell, Document, Exporter, Kind, Mark, Table, Value};

/// Renders a [`Document`] as an `.xlsx` workbook.
pub struct Xlsx;

/// The name of the last sheet (the document's facts); no table sheet gets it.
pub const ABOUT_SHEET: &str = "About";

/// Flagged: shown, but not a plain correct figure (light amber).
const FLAGGED_FILL: u32 = 0xFFEB9C;
/// Failed: no figure (light red).
const FAILED_FILL: u32 = 0xFFC7CE;

/// Excel's limit on the text of a cell (UTF-16 units).
const MAX_CELL_TEXT: usize = 32_767;
/// Excel's limit on a note's text, less room for an author prefix.
const MAX_NOTE_TEXT: usize = 32_767 - 54;

/// Column widths, in characters.
const MIN_WIDTH: usize = 6;
const MAX_WIDTH: usize = 60;

impl Exporter for Xlsx {
    fn render(&self, doc: &Document) -> Result<Vec<u8>> {
        let mut book = Workbook::new();
        let mut names = SheetNames::default();
        names.reserve(ABOUT_SHEET);
        for table in &doc.tables {
            let title = if table.title.trim().is_empty() {
                &table.id
            } else {
                &table.title
            };
            let name = names.unique(title);
            let sheet = book.add_worksheet();
            sheet.set_name(&name)?;
            write_table(sheet, table).with_context(|| format!("sheet {name:?}"))?;
        }
        let about = book.add_worksheet();
        about.set_name(ABOUT_SHEET)?;
        write_about(about, doc).context("sheet About")?;
        Ok(book.save_to_buffer()?)
    }
}

/// Sheet names: valid for Excel and unique (case-insensitively).
#[derive(Default)]
struct SheetNames {
    used: HashSet<String>,
}

impl SheetNames {
    fn reserve(&mut self, name: &str) {
        self.used.insert(name.to_lowercase());
    }

    /// `title` made a valid sheet name: no `[]:*?/\`, not blank, no
    /// apostrophe at either end, at most 31 UTF-16 units, and not used
    /// before (else a ` (2)`, ` (3)`... suffix).
    fn unique(&mut self, title: &str) -> String {
        let cleaned: String = title
            .chars()
            .map(|c| match c {
                '[' | ']' | ':' | '*' | '?' | '/' | '\\' => '_',
                c if c.is_control() => ' ',
                c => c,
            })
            .collect();
        let mut base = cleaned.trim().trim_matches('\'').trim().to_string();
        if base.is_empty() {
            base = "Sheet".into();
        }
        // Excel reserves "History".
        if base.eq_ignore_ascii_case("history") {
            base.push('_');
        }
        let mut n = 1;
        loop {
            let suffix = if n == 1 {
                String::new()
            } else {
                format!(" ({n})")
            };
            let head = clip_utf16(&base, 31 - suffix.len());
            let name = format!("{}{suffix}", head.trim_end().trim_end_matches('\''));
            if self.used.insert(name.to_lowercase()) {
                return name;
            }
            n += 1;
        }
    }
}

/// The longest prefix of `s` that is at most `max` UTF-16 units.
fn clip_utf16(s: &str, max: usize) -> &str {
    let mut units = 0;
    for (i, c) in s.char_indices() {
        units += c.len_utf16();
        if units > max {
            return &s[..i];
        }
    }
    s
}

/// `s` cut to fit `max` UTF-16 units, with `…` where it was cut.
fn fit_text(s: &str, max: usize) -> String {
    if s.encode_utf16().count() <= max {
        s.to_string()
    } else {
        format!("{}…", clip_utf16(s, max - 1))
    }
}

/// The number format of a figure in a column of this kind.
fn num_format(kind: Kind) -> String {
    let decimals = |d: usize| {
        if d == 0 {
            "0".to_string()
        } else {
            format!("0.{}", "0".repeat(d.min(15)))
        }
    };
    match kind {
        Kind::Text => "General".into(),
        Kind::Seconds { decimals: d } | Kind::Decimal { decimals: d } => decimals(d),
        Kind::Kb | Kind::Count => "#,##0".into(),
        Kind::Ratio => "0.00".into(),
    }
}

fn cell_format(kind: Kind, mark: Mark) -> Format {
    let format = Format::new().set_num_format(num_format(kind));
    match mark {
        Mark::Plain => format,
        Mark::Flagged => format.set_background_color(Color::RGB(FLAGGED_FILL)),
        Mark::Failed => format.set_background_color(Color::RGB(FAILED_FILL)),
    }
}

/// A table's data columns: header, one row per table row, then its notes.
fn write_table(sheet: &mut Worksheet, table: &Table) -> Result<()> {
    let cols = table.data_columns();
    let header = Format::new()
        .set_bold()
        .set_border_bottom(FormatBorder::Thin);
    // Width per sheet column, in characters; the header leaves room for the
    // autofilter button.
    let mut widths: Vec<usize> = cols
        .iter()
        .map(|&c| table.columns[c].header.chars().count() + 3)
        .collect();
    for (x, &c) in cols.iter().enumerate() {
        sheet.write_string_with_format(0, x as u16, &table.columns[c].header, &header)?;
    }

    for (r, row) in table.rows.iter().enumerate() {
        let y = u32::try_from(r + 1).context("too many rows")?;
        for (x, &c) in cols.iter().enumerate() {
            let Some(cell) = row.get(c) else { continue };
            let column = &table.columns[c];
            let x = x as u16;
            let format = cell_format(column.kind, cell.mark);
            match sum_formula(table, &cols, row, c, y) {
                Some(formula) => {
                    let total = cell.as_f64().expect("sum_formula checks the value");
                    sheet.write_formula_with_format(
                        y,
                        x,
                        Formula::new(formula).set_result(total.to_string()),
                        &format,
                    )?;
                }
                None => write_cell(sheet, y, x, cell, &format)?,
            }
            if let Some(note) = cell.note.as_deref().filter(|n| !n.trim().is_empty()) {
                let note = Note::new(fit_text(note, MAX_NOTE_TEXT))
                    .set_author("langbench")
                    .add_author_prefix(false)
                    .set_width(300)
                    .set_height(100);
                sheet.insert_note(y, x, &note)?;
            }
            widths[x as usize] = widths[x as usize].max(cell.text.chars().count() + 1);
        }
    }

    let last_row = table.rows.len() as u32;
    if !cols.is_empty() {
        sheet.set_freeze_panes(1, 0)?;
        sheet.autofilter(0, 0, last_row, cols.len() as u16 - 1)?;
    }
    for (x, w) in widths.iter().enumerate() {
        sheet.set_column_width(x as u16, (*w).clamp(MIN_WIDTH, MAX_WIDTH) as f64)?;
    }

    if !table.notes.is_empty() {
        let mut y = last_row + 2;
        sheet.write_string_with_format(y, 0, "Notes", &Format::new().set_bold())?;
        for line in &table.notes {
            y += 1;
            sheet.write_string(y, 0, fit_text(line, MAX_CELL_TEXT))?;
        }
    }
    Ok(())
}

/// `=SUM(...)` of this row's cells that `column` sums, if it is a total that
/// can be a formula: it has a figure, every summed column is on the sheet,
/// and the figures it sums add up to its own (so a viewer that recalculates
/// shows the same figure as one that shows the cached result).
fn sum_formula(table: &Table, cols: &[usize], row: &[Cell], c: usize, y: u32) -> Option<String> {
    let sum_of = &table.columns[c].sum_of;
    let total = row[c].as_f64()?;
    if sum_of.is_empty() || !total.is_finite() {
        return None;
    }
    let mut refs = Vec::with_capacity(sum_of.len());
    let mut sum = 0.0;
    for &s in sum_of {
        let x = cols.iter().position(|&d| d == s)?;
        refs.push(row_col_to_cell(y, x as u16));
        // Text and empty cells are not numbers to SUM either.
        if let Some(v) = row.get(s).and_then(Cell::as_f64).filter(|v| v.is_finite()) {
            sum += v;
        }
    }
    let tolerance = 1e-9 * total.abs().max(1.0);
    ((sum - total).abs() <= tolerance).then(|| format!("=SUM({})", refs.join(",")))
}

fn write_cell(sheet: &mut Worksheet, y: u32, x: u16, cell: &Cell, format: &Format) -> Result<()> {
    match &cell.value {
        Value::Number(v) if v.is_finite() => {
            sheet.write_number_with_format(y, x, *v, format)?;
        }
        Value::Int(v) => {
            sheet.write_number_with_format(y, x, *v as f64, format)?;
        }
        Value::Bool(b) => {
            sheet.write_boolean_with_format(y, x, *b, format)?;
        }
        Value::Text(s) => {
            sheet.write_string_with_format(y, x, fit_text(s, MAX_CELL_TEXT), format)?;
        }
        // No value (or not a finite number): the text the reader sees.
        Value::Empty | Value::Number(_) => {
            if cell.text.is_empty() {
                if cell.mark != Mark::Plain {
                    sheet.write_blank(y, x, format)?;
                }
            } else {
                sheet.write_string_with_format(
                    y,
                    x,
                    fit_text(&cell.text, MAX_CELL_TEXT),
                    format,
                )?;
            }
        }
    }
    Ok(())
}

/// The document's title and facts, one `key | value` row each.
fn write_about(sheet: &mut Worksheet, doc: &Document) -> Result<()> {
    let bold = Format::new().set_bold();
    sheet.write_string_with_format(0, 0, fit_text(&doc.title, MAX_CELL_TEXT), &bold)?;
    let mut key_width = MIN_WIDTH;
    let mut value_width = MIN_WIDTH;
    for (i, (key, value)) in doc.meta.iter().enumerate() {
        let y = i as u32 + 2;
        sheet.write_string_with_format(y, 0, fit_text(key, MAX_CELL_TEXT), &bold)?;
        sheet.write_string(y, 1, fit_text(value, MAX_CELL_TEXT))?;
        key_width = key_width.max(key.chars().count() + 2);
        value_width = value_width.max(value.chars().count() + 1);
    }
    sheet.set_column_width(0, key_width.min(MAX_WIDTH) as f64)?;
    sheet.set_column_width(1, value_width.min(2 * MAX_WIDTH) as f64)?;
    Ok(())
}
