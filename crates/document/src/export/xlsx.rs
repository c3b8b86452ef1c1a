//! The spreadsheet: one worksheet per [`Table`] (its data columns under the
//! editions' column names, `assoc_s`, as summary.csv has them), then
//! `Notes` (every table's notes, one per row), `Programs` (what was
//! measured) and `About` (the document's facts and sessions).
//!
//! It is made to sort right. A numeric column holds numbers or nothing:
//! a failed cell, a timeout (a time no program took) or a partial total is
//! an empty cell, and what it is stands in its own text column
//! (`assoc_status`, `row_status`), so sorting by `total_s` puts every
//! partial row after every complete one, in either direction (empty cells
//! sort last). The editions' old sheets wrote 999.99 for "did not finish"
//! instead; that convention is not offered: a made-up time sorts a partial
//! row among complete ones as soon as a real total passes 999.99 (R's
//! timeout did), corrupts every SUM and average over the column, and
//! sorts first in descending order. Imported editions keep their
//! did-not-finish cells as a status, so nothing of the old sheets is lost.
//!
//! Totals of complete rows are `SUM` formulas; marked cells are filled
//! (a fill per kind of mark) and carry their reason as a cell note; the
//! label columns and the header row are frozen; each sheet prints
//! landscape, one page wide, with its header row (and label columns)
//! repeated on every page; a table sheet prints the columns its page shows
//! (the data-only columns after them are left out of the print area).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use anyhow::{Context, Result};
use rust_xlsxwriter::{
    Color, DocProperties, ExcelDateTime, Format, FormatBorder, Formula, Note as XNote, Workbook,
    Worksheet, utility::row_col_to_cell,
};

use super::Exporter;
use crate::{Document, Entry, Flag, Kind, Mark, Table, Value};

/// Renders a [`Document`] as an `.xlsx` workbook.
pub struct Xlsx;

/// The name of the last sheet (the document's facts); no table sheet gets it.
const ABOUT_SHEET: &str = "About";
/// The sheet of every table's notes.
const NOTES_SHEET: &str = "Notes";
/// The sheet of what was measured.
const PROGRAMS_SHEET: &str = "Programs";

/// Flagged: shown, but not a plain correct figure (light amber).
const FLAGGED_FILL: u32 = 0xFFEB9C;
/// Failed: no figure (light red).
const FAILED_FILL: u32 = 0xFFC7CE;

/// The fill of a kind of mark (each its own, as on the page).
fn flag_fill(flag: Flag) -> u32 {
    match flag {
        Flag::Noisy | Flag::PartialCell => 0xFFF2CC,
        Flag::Wrong => FLAGGED_FILL,
        Flag::Escaped => 0xE4D7F5,
        Flag::Timeout => 0xD9E1F2,
        Flag::Failed => FAILED_FILL,
        Flag::Partial | Flag::NotRun => 0xEDEDED,
        Flag::Machine | Flag::Incomparable => 0xFCE4D6,
        Flag::Faster => 0xC6EFCE,
        Flag::Slower => 0xF8CBAD,
    }
}

/// Excel's limit on the text of a cell (UTF-16 units).
const MAX_CELL_TEXT: usize = 32_767;
/// Excel's limit on a note's text, less room for an author prefix.
const MAX_NOTE_TEXT: usize = 32_767 - 54;

/// Column widths, in characters.
const MIN_WIDTH: usize = 6;
const MAX_WIDTH: usize = 60;

impl Exporter for Xlsx {
    fn render(&self, doc: &Document) -> Result<Vec<u8>> {
        workbook(doc, None)
    }
}

impl Xlsx {
    /// [`Exporter::render`], each table sheet held one row at a time and
    /// the rest in an unnamed temporary file in `scratch`
    /// (rust_xlsxwriter's "low memory" mode: rows are written in order, as
    /// `write_table` does, and strings stay shared as in a standard
    /// sheet). The runs sheet of 6,500 variants held ~1.2 million cells:
    /// `report` took 3.7 s and 656 MB instead of 4.1 s and 924 MB (issue
    /// #41). `scratch` is the results directory: the workbook then does
    /// not depend on TMPDIR (a pod's may be missing or read-only), and
    /// the same records give the same bytes.
    pub fn render_spilling(&self, doc: &Document, scratch: &Path) -> Result<Vec<u8>> {
        workbook(doc, Some(scratch))
    }
}

/// The workbook of `doc`; its table sheets spill to `scratch` when given
/// (see [`Xlsx::render_spilling`]).
fn workbook(doc: &Document, scratch: Option<&Path>) -> Result<Vec<u8>> {
    let mut book = Workbook::new();
    if let Some(dir) = scratch {
        book.set_tempdir(dir)
            .with_context(|| format!("a temporary file in {}", dir.display()))?;
    }
    // Excel's own level, not the default 6: `report` of 6,500 variants
    // took 4.2 s instead of 4.7 s for a workbook of 9.0 MB instead of
    // 7.6 MB (issue #41).
    book.set_zip_compression_level(3);
    // The newest record's time, not the clock's: the same records give
    // the same workbook (a `report` with nothing new changed it).
    if let Some(t) = doc
        .as_of
        .as_deref()
        .and_then(|t| ExcelDateTime::parse_from_str(t).ok())
    {
        book.set_properties(&DocProperties::new().set_creation_datetime(&t));
    }
    let mut names = SheetNames::default();
    for reserved in [ABOUT_SHEET, NOTES_SHEET, PROGRAMS_SHEET] {
        names.reserve(reserved);
    }
    let mut formats = Formats::default();
    let mut notes: Vec<(String, String, String)> = Vec::new();
    for table in &doc.tables {
        let title = if table.title.trim().is_empty() {
            &table.id
        } else {
            &table.title
        };
        let name = names.unique(title);
        let sheet = match scratch {
            Some(_) => book.add_worksheet_with_low_memory()?,
            None => book.add_worksheet(),
        };
        sheet.set_name(&name)?;
        write_table(sheet, table, &doc.title, &mut formats)
            .with_context(|| format!("sheet {name:?}"))?;
        notes.extend(
            table
                .notes
                .iter()
                .map(|n| (name.clone(), n.key.clone(), n.text.clone())),
        );
    }
    if !notes.is_empty() {
        let sheet = book.add_worksheet();
        sheet.set_name(NOTES_SHEET)?;
        write_notes(sheet, &notes).context("sheet Notes")?;
    }
    if !doc.measured.is_empty() {
        let sheet = book.add_worksheet();
        sheet.set_name(PROGRAMS_SHEET)?;
        write_programs(sheet, doc).context("sheet Programs")?;
    }
    let about = book.add_worksheet();
    about.set_name(ABOUT_SHEET)?;
    write_about(about, doc).context("sheet About")?;
    Ok(book.save_to_buffer()?)
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

/// `s` inert (crates/document/src/inert.rs: its lines kept, for the cells that wrap) and
/// cut to fit `max` UTF-16 units, with `…` where it was cut.
fn fit_text(s: &str, max: usize) -> String {
    let s = crate::inert::block(s, crate::inert::MAX_TEXT);
    let s = s.as_str();
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
        Kind::Rank => "0".into(),
        Kind::Ratio => "0.00".into(),
        Kind::Percent => "0.0%".into(),
        Kind::Number => "General".into(),
    }
}

/// The fill of a cell: by its flag, else by its mark.
fn fill(cell: &Entry) -> Option<u32> {
    match (cell.flag, cell.mark) {
        (Some(f), _) => Some(flag_fill(f)),
        (None, Mark::Plain) => None,
        (None, Mark::Flagged) => Some(FLAGGED_FILL),
        (None, Mark::Failed) => Some(FAILED_FILL),
    }
}

/// Entry formats, made once per (column kind, fill) rather than once per
/// cell (a format per cell cost most of the time of a big workbook), and
/// found by the kind, not by its number format's text (made per cell, it
/// was a tenth of the workbook's time at 6,500 variants, issue #41).
/// A shared place ([`Kind::Rank`], `=3`) is the number 3 shown `=3` by
/// its format, so that the tie stays in the sheet and the column still
/// sorts as numbers.
#[derive(Default)]
struct Formats {
    made: HashMap<(Kind, bool, Option<u32>), Format>,
}

impl Formats {
    fn get(&mut self, kind: Kind, cell: &Entry) -> &Format {
        let shared = kind == Kind::Rank && cell.text.starts_with('=');
        let fill = fill(cell);
        self.made.entry((kind, shared, fill)).or_insert_with(|| {
            let format = Format::new().set_num_format(if shared {
                "\"=\"0".to_string()
            } else {
                num_format(kind)
            });
            match fill {
                Some(f) => format.set_background_color(Color::RGB(f)),
                None => format,
            }
        })
    }
}

/// A table's data columns: the header row (the columns' keys; the human
/// header as each header cell's note), one row per table row.
fn write_table(
    sheet: &mut Worksheet,
    table: &Table,
    title: &str,
    formats: &mut Formats,
) -> Result<()> {
    let cols = table.data_columns();
    let header = Format::new()
        .set_bold()
        .set_border_bottom(FormatBorder::Thin);
    // Width per sheet column, in characters; the header leaves room for the
    // autofilter button.
    let mut widths: Vec<usize> = cols
        .iter()
        .map(|&c| table.columns[c].key.chars().count() + 3)
        .collect();
    for (x, &c) in cols.iter().enumerate() {
        let column = &table.columns[c];
        let key = if column.key.is_empty() {
            &column.header
        } else {
            &column.key
        };
        sheet.write_string_with_format(0, x as u16, key, &header)?;
        if column.header != *key && !column.header.is_empty() {
            sheet.insert_note(0, x as u16, &note(&column.header))?;
        }
    }

    table.for_each_row(|r, row| -> Result<()> {
        let y = u32::try_from(r + 1).context("too many rows")?;
        for (x, &c) in cols.iter().enumerate() {
            let Some(cell) = row.get(c) else { continue };
            let column = &table.columns[c];
            let x = x as u16;
            let format = formats.get(column.kind, cell);
            match sum_formula(table, &cols, row, c, y) {
                Some(formula) => {
                    let total = cell.as_f64().expect("sum_formula checks the value");
                    sheet.write_formula_with_format(
                        y,
                        x,
                        Formula::new(formula).set_result(total.to_string()),
                        format,
                    )?;
                }
                None => write_cell(sheet, y, x, column.kind, cell, format)?,
            }
            if let Some(n) = cell.note().filter(|n| !n.trim().is_empty()) {
                sheet.insert_note(y, x, &note(n))?;
            }
            let shown = if column.kind.is_numeric() {
                cell.as_f64().map_or(0, |_| cell.text.chars().count())
            } else {
                cell.text.chars().count()
            };
            widths[x as usize] = widths[x as usize].max(shown + 1);
        }
        Ok(())
    })?;

    let last_row = table.len() as u32;
    if !cols.is_empty() {
        let labels = table.labels.min(cols.len()) as u16;
        sheet.set_freeze_panes(1, labels)?;
        sheet.autofilter(0, 0, last_row, cols.len() as u16 - 1)?;
        sheet.set_repeat_rows(0, 0)?;
        if labels > 0 {
            sheet.set_repeat_columns(0, labels - 1)?;
        }
        // Printed, a table shows what its page shows: up to its last column
        // the report shows. The data-only columns after it (ids, statuses,
        // run statistics: 36 of the summary's 53) stay in the sheet; fitted
        // into one page's width with them, the figures printed too small to
        // read.
        if !table.data_only
            && let Some(last) = cols.iter().rposition(|&c| table.columns[c].in_page())
            && last + 1 < cols.len()
        {
            sheet.set_print_area(0, 0, last_row, last as u16)?;
        }
    }
    for (x, w) in widths.iter().enumerate() {
        sheet.set_column_width(x as u16, (*w).clamp(MIN_WIDTH, MAX_WIDTH) as f64)?;
    }
    print_setup(sheet, &format!("{title}: {}", table.title));
    Ok(())
}

/// Landscape, one page wide (as many pages down as it takes), the title
/// in the header and page numbers in the footer.
fn print_setup(sheet: &mut Worksheet, title: &str) {
    // `&` starts a control code in headers: double it.
    let title = fit_text(&title.replace('&', "&&"), 200);
    sheet
        .set_landscape()
        .set_print_fit_to_pages(1, 0)
        .set_header(format!("&L{title}"))
        .set_footer("&RPage &P of &N");
}

fn note(text: &str) -> XNote {
    XNote::new(fit_text(text, MAX_NOTE_TEXT))
        .set_author("langbench")
        .add_author_prefix(false)
        .set_width(300)
        .set_height(100)
}

/// `=SUM(...)` of this row's cells that `column` sums, if it is a total that
/// can be a formula: it has a figure, every summed column is on the sheet,
/// and the figures it sums add up to its own (so a viewer that recalculates
/// shows the same figure as one that shows the cached result).
fn sum_formula(table: &Table, cols: &[usize], row: &[Entry], c: usize, y: u32) -> Option<String> {
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
        // Empty cells are not numbers to SUM either.
        if let Some(v) = row.get(s).and_then(Entry::as_f64).filter(|v| v.is_finite()) {
            sum += v;
        }
    }
    let tolerance = 1e-9 * total.abs().max(1.0);
    ((sum - total).abs() <= tolerance).then(|| format!("=SUM({})", refs.join(",")))
}

/// One cell: in a numeric column a number or a blank (never text: what a
/// cell without a figure is, its status column says); in a text column
/// its value or text.
fn write_cell(
    sheet: &mut Worksheet,
    y: u32,
    x: u16,
    kind: Kind,
    cell: &Entry,
    format: &Format,
) -> Result<()> {
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
        Value::Text(s) if !kind.is_numeric() => {
            sheet.write_string_with_format(y, x, fit_text(s, MAX_CELL_TEXT), format)?;
        }
        Value::Empty if !kind.is_numeric() && !cell.text.is_empty() => {
            sheet.write_string_with_format(y, x, fit_text(&cell.text, MAX_CELL_TEXT), format)?;
        }
        // No figure (or text where a number belongs): blank, filled if
        // marked.
        _ => {
            if cell.mark != Mark::Plain || cell.flag.is_some() {
                sheet.write_blank(y, x, format)?;
            }
        }
    }
    Ok(())
}

/// Every table's notes: sheet, what the row shows, the note.
fn write_notes(sheet: &mut Worksheet, notes: &[(String, String, String)]) -> Result<()> {
    let bold = Format::new()
        .set_bold()
        .set_border_bottom(FormatBorder::Thin);
    let wrap = Format::new().set_text_wrap();
    for (x, h) in ["sheet", "row", "note"].iter().enumerate() {
        sheet.write_string_with_format(0, x as u16, *h, &bold)?;
    }
    let mut key_width = 10;
    for (i, (table, key, text)) in notes.iter().enumerate() {
        let y = i as u32 + 1;
        sheet.write_string(y, 0, fit_text(table, MAX_CELL_TEXT))?;
        sheet.write_string(y, 1, fit_text(key, MAX_CELL_TEXT))?;
        sheet.write_string_with_format(y, 2, fit_text(text, MAX_CELL_TEXT), &wrap)?;
        key_width = key_width.max(key.chars().count() + 1);
    }
    sheet.set_column_width(0, 14)?;
    sheet.set_column_width(1, key_width.min(MAX_WIDTH) as f64)?;
    sheet.set_column_width(2, 100)?;
    sheet.set_freeze_panes(1, 0)?;
    sheet.autofilter(0, 0, notes.len() as u32, 2)?;
    sheet.set_repeat_rows(0, 0)?;
    print_setup(sheet, "Notes");
    Ok(())
}

/// What was measured: per variant and benchmark, its commands, toolchain,
/// program identity, CPU and wall seconds, and the variant's note.
fn write_programs(sheet: &mut Worksheet, doc: &Document) -> Result<()> {
    let bold = Format::new()
        .set_bold()
        .set_border_bottom(FormatBorder::Thin);
    let wrap = Format::new().set_text_wrap();
    let secs = Format::new().set_num_format("0.000");
    let heads = [
        "variant",
        "label",
        "benchmark",
        "toolchain",
        "identity",
        "wall_s",
        "cpu_s",
        "commands",
        "commands_from",
        "source",
        "note",
    ];
    for (x, h) in heads.iter().enumerate() {
        sheet.write_string_with_format(0, x as u16, *h, &bold)?;
    }
    let mut y = 0u32;
    for m in &doc.measured {
        for b in &m.benches {
            y += 1;
            let t = |s: &str| fit_text(s, MAX_CELL_TEXT);
            sheet.write_string(y, 0, t(&m.variant))?;
            sheet.write_string(y, 1, t(&m.label))?;
            sheet.write_string(y, 2, t(&b.bench))?;
            sheet.write_string(y, 3, t(&b.toolchain))?;
            sheet.write_string(y, 4, t(&b.identity))?;
            if let Some(w) = b.wall_s {
                sheet.write_number_with_format(y, 5, w, &secs)?;
            }
            if let Some(c) = b.cpu_s {
                sheet.write_number_with_format(y, 6, c, &secs)?;
            }
            sheet.write_string_with_format(y, 7, t(&b.commands.join("\n")), &wrap)?;
            sheet.write_string(y, 8, t(&b.commands_from))?;
            let files: Vec<&str> = b.files.iter().map(|f| f.path.as_str()).collect();
            sheet.write_string(y, 9, t(&format!("{} ({})", files.join(", "), b.verified)))?;
            sheet.write_string_with_format(y, 10, t(m.note.as_deref().unwrap_or("")), &wrap)?;
        }
    }
    for (x, w) in [18, 28, 10, 16, 18, 9, 9, 60, 24, 40, 60]
        .iter()
        .enumerate()
    {
        sheet.set_column_width(x as u16, *w as f64)?;
    }
    sheet.set_freeze_panes(1, 2)?;
    sheet.autofilter(0, 0, y, heads.len() as u16 - 1)?;
    sheet.set_repeat_rows(0, 0)?;
    print_setup(sheet, "Programs");
    Ok(())
}

/// The document's title and facts, one `key | value` row each, then the
/// details (sessions).
fn write_about(sheet: &mut Worksheet, doc: &Document) -> Result<()> {
    let bold = Format::new().set_bold();
    if !doc.title.is_empty() {
        sheet.write_string_with_format(0, 0, fit_text(&doc.title, MAX_CELL_TEXT), &bold)?;
    }
    let mut key_width = MIN_WIDTH;
    let mut value_width = MIN_WIDTH;
    let mut y = 1;
    for (key, value) in doc.meta.iter().chain(&doc.details) {
        y += 1;
        sheet.write_string_with_format(y, 0, fit_text(key, MAX_CELL_TEXT), &bold)?;
        sheet.write_string(y, 1, fit_text(value, MAX_CELL_TEXT))?;
        key_width = key_width.max(key.chars().count() + 2);
        value_width = value_width.max(value.chars().count() + 1);
    }
    sheet.set_column_width(0, key_width.min(MAX_WIDTH) as f64)?;
    sheet.set_column_width(1, value_width.min(2 * MAX_WIDTH) as f64)?;
    print_setup(sheet, &doc.title);
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::{Column, Note, Show};

    fn summary_doc() -> Document {
        let secs = Kind::Seconds { decimals: 3 };
        let mut total = Column::new("Total (s)", "total_s", secs, Show::Both);
        total.sum_of = vec![4, 6];
        let columns = vec![
            Column::new("Language", "language", Kind::Text, Show::Both),
            Column::new("Command Flags", "command_flags", Kind::Text, Show::Both),
            Column::new("Version", "version", Kind::Text, Show::Both),
            // Only in human tables: shifts the sheet columns left of the
            // table's indices from here on.
            Column::new("Assoc vs best", "", Kind::Text, Show::Display),
            Column::new("assoc (s)", "assoc_s", secs, Show::Both),
            Column::new("assoc RAM (KB)", "assoc_rss_kb", Kind::Kb, Show::Both),
            Column::new("num-comb (s)", "num_comb_s", secs, Show::Both),
            Column::new("num-comb RAM (KB)", "num_comb_rss_kb", Kind::Kb, Show::Both),
            total,
            Column::new("variant", "variant", Kind::Text, Show::Data),
            Column::new("complete", "complete", Kind::Text, Show::Data),
        ];
        let rows = vec![
            vec![
                Entry::text("C"),
                Entry::text("gcc -O2"),
                Entry::text("14.2.0"),
                Entry::text("1.00x"),
                Entry::number(0.4126, "0.413"),
                Entry::int(10240, "10240"),
                Entry::number(1.2344, "1.234"),
                Entry::int(1234567, "1234567"),
                Entry::number(1.647, "1.647"),
                Entry::text("c-gcc"),
                Entry::bool(true),
            ],
            vec![
                Entry::text("Python"),
                Entry::text("python3"),
                Entry::text("3.13.5"),
                Entry::text("8.48x"),
                Entry::number(3.5, "3.500 (exit 25)")
                    .marked(Mark::Flagged, Some("exit 25: output differs".into())),
                Entry::int(123456, "123456"),
                Entry::number(7.25, "7.250"),
                Entry::int(65536, "65536"),
                Entry::number(10.75, "10.750"),
                Entry::text("python"),
                Entry::bool(true),
            ],
            vec![
                Entry::text("Ruby"),
                Entry::text("ruby --yjit"),
                Entry::text("3.3.8"),
                Entry::text("5.15x"),
                Entry::number(2.125, "2.125"),
                Entry::int(50000, "50000"),
                Entry::empty("FAILED (exit 1)").marked(
                    Mark::Failed,
                    Some("exited 1: undefined method `comb' (NoMethodError)".into()),
                ),
                Entry::empty(""),
                Entry::empty("partial")
                    .marked(Mark::Failed, Some("partial: num-comb failed".into()))
                    .flagged(Flag::Partial),
                Entry::text("ruby-yjit"),
                Entry::bool(false),
            ],
        ];
        let summary = Table {
            id: "summary".into(),
            title: "Summary".into(),
            columns,
            rows,
            notes: vec![
                "* partial total: a benchmark failed".into(),
                Note::new("Ruby · ruby --yjit / num-comb", "exited 1"),
            ],
            data_only: false,
            labels: 2,
            streamed: None,
        };
        let runs = Table {
            id: "runs".into(),
            title: "Every run: wall/user [s]? and more words".into(),
            columns: vec![
                Column::new("variant", "variant", Kind::Text, Show::Both),
                Column::new("wall (s)", "wall_s", secs, Show::Both),
            ],
            rows: vec![vec![Entry::text("c-gcc"), Entry::number(0.5, "0.500")]],
            notes: vec![],
            data_only: true,
            labels: 1,
            streamed: None,
        };
        Document {
            title: "langbench: 2021-size edition".into(),
            meta: vec![
                ("Machine".into(), "2 cores, 24 GiB".into()),
                ("Sizes".into(), "assoc 2021, num-comb 2021".into()),
                ("Sessions".into(), "3".into()),
                ("Source".into(), "results/2021".into()),
            ],
            tables: vec![
                summary,
                runs,
                Table {
                    id: "about".into(),
                    title: "About".into(),
                    ..Default::default()
                },
            ],
            charts: vec![],
            ..Default::default()
        }
    }

    // ---- Unit checks -------------------------------------------------

    /// A streamed table (rows made a chunk at a time as a data file reads
    /// them, crates/document/src/lib.rs) writes the same CSV and the same workbook as
    /// the same rows held: across chunk boundaries (10,000 rows are three
    /// chunks), in order, none lost or repeated, a few held rows first.
    #[test]
    fn a_streamed_table_writes_what_the_same_rows_held_write() {
        let row = |i: usize| {
            vec![
                Entry::text(format!("v{i}")),
                Entry::number(i as f64 / 8.0, format!("{:.3}", i as f64 / 8.0)),
            ]
        };
        let mut held = summary_doc();
        held.tables[1].rows = (0..10_003).map(row).collect();
        let mut streamed = summary_doc();
        streamed.tables[1].rows = (0..3).map(row).collect();
        streamed.tables[1].streamed = Some(crate::Streamed {
            len: 10_000,
            rows: std::sync::Arc::new(move |range: std::ops::Range<usize>| {
                range.map(|i| row(i + 3)).collect()
            }),
        });
        assert_eq!(streamed.tables[1].len(), 10_003);
        let texts = |rows: &[Vec<Entry>]| -> Vec<Vec<String>> {
            rows.iter()
                .map(|r| r.iter().map(|e| format!("{:?}", e)).collect())
                .collect()
        };
        assert_eq!(
            texts(&streamed.tables[1].all_rows()),
            texts(&held.tables[1].rows)
        );
        let csv = crate::export::csv::table(&held.tables[1]).unwrap();
        assert_eq!(crate::export::csv::table(&streamed.tables[1]).unwrap(), csv);
        assert_eq!(String::from_utf8_lossy(&csv).lines().count(), 10_004);
        let dir = tempfile::tempdir().unwrap();
        let unzip = |bytes: Vec<u8>| {
            let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
            // Not docProps/core.xml: without an as-of time, its creation
            // time is the clock's.
            (0..zip.len())
                .map(|i| {
                    let mut f = zip.by_index(i).unwrap();
                    let mut text = String::new();
                    std::io::Read::read_to_string(&mut f, &mut text).unwrap();
                    (String::from_utf8_lossy(f.name_raw()).into_owned(), text)
                })
                .filter(|(name, _)| name != "docProps/core.xml")
                .collect::<Vec<_>>()
        };
        let (a, b) = (
            unzip(Xlsx.render_spilling(&held, dir.path()).unwrap()),
            unzip(Xlsx.render_spilling(&streamed, dir.path()).unwrap()),
        );
        assert_eq!(a, b);
        assert!(a.iter().any(|(_, text)| text.contains("v10002")));
    }

    #[test]
    fn sheet_names_are_valid_and_unique() {
        let mut names = SheetNames::default();
        names.reserve(ABOUT_SHEET);
        assert_eq!(names.unique("Summary"), "Summary");
        assert_eq!(names.unique("summary"), "summary (2)");
        assert_eq!(names.unique("About"), "About (2)");
        assert_eq!(names.unique("a/b\\c[d]e:f*g?h"), "a_b_c_d_e_f_g_h");
        assert_eq!(names.unique("  'quoted'  "), "quoted");
        assert_eq!(names.unique(""), "Sheet");
        assert_eq!(names.unique("History"), "History_");
        let long = "Every run of every variant, with its exit status";
        let first = names.unique(long);
        assert_eq!(first, "Every run of every variant, wit");
        let second = names.unique(long);
        assert_eq!(second, "Every run of every variant, (2)");
        // Astral characters count two UTF-16 units each.
        let emoji = names.unique(&"😀".repeat(20));
        assert_eq!(emoji.encode_utf16().count(), 30);
        for name in [&first, &second, &emoji] {
            let mut book = Workbook::new();
            book.add_worksheet().set_name(name.as_str()).unwrap();
        }
    }

    #[test]
    fn number_formats_follow_the_column_kind() {
        assert_eq!(num_format(Kind::Seconds { decimals: 2 }), "0.00");
        assert_eq!(num_format(Kind::Seconds { decimals: 3 }), "0.000");
        assert_eq!(num_format(Kind::Kb), "#,##0");
        assert_eq!(num_format(Kind::Count), "#,##0");
        assert_eq!(num_format(Kind::Rank), "0");
        assert_eq!(num_format(Kind::Ratio), "0.00");
        assert_eq!(num_format(Kind::Decimal { decimals: 1 }), "0.0");
        assert_eq!(num_format(Kind::Decimal { decimals: 0 }), "0");
        assert_eq!(num_format(Kind::Text), "General");
    }

    /// A shared place keeps its `=` in the sheet (issue #60): the number
    /// 3 under a format that shows `=3`, so that the column still sorts as
    /// numbers; an unshared one the plain number.
    #[test]
    fn a_shared_rank_is_a_number_shown_with_its_equals_sign() {
        use crate::{Column, Show, Table};
        let doc = Document {
            tables: vec![Table {
                id: "t".into(),
                title: "t".into(),
                columns: vec![Column::new("Rank", "rank", Kind::Rank, Show::Both)],
                rows: vec![vec![Entry::int(3, "=3")], vec![Entry::int(5, "5")]],
                ..Default::default()
            }],
            ..Default::default()
        };
        let bytes = Xlsx.render(&doc).unwrap();
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
        let mut read = |name: &str| {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut zip.by_name(name).unwrap(), &mut text).unwrap();
            text
        };
        let styles = read("xl/styles.xml");
        assert!(
            styles.contains(r#"formatCode="&quot;=&quot;0""#),
            "{styles}"
        );
        let sheet = read("xl/worksheets/sheet1.xml");
        for (cell, v) in [("A2", "3"), ("A3", "5")] {
            let at = sheet.find(&format!("<c r=\"{cell}\"")).expect(cell);
            let c = &sheet[at..at + sheet[at..].find("</c>").unwrap()];
            assert!(
                c.contains(&format!("<v>{v}</v>")) && !c.contains("t=\"s\""),
                "{c}"
            );
        }
    }

    #[test]
    fn a_total_is_a_formula_only_when_its_figures_add_up() {
        let doc = summary_doc();
        let t = &doc.tables[0];
        let cols = t.data_columns();
        // Display-only column 3 is not on the sheet: table column 4 is D.
        assert_eq!(
            sum_formula(t, &cols, &t.rows[0], 8, 1).as_deref(),
            Some("=SUM(D2,F2)")
        );
        // A partial total has no value: no formula (it would add up what
        // ran and sort as a complete total).
        assert_eq!(sum_formula(t, &cols, &t.rows[2], 8, 3), None);
        // A total that is not the sum of its figures stays a plain number.
        let mut row = t.rows[0].clone();
        row[8] = Entry::number(9.0, "9.000");
        assert_eq!(sum_formula(t, &cols, &row, 8, 1), None);
        // A total without a figure is not a formula (it would show 0).
        row[8] = Entry::empty("FAILED");
        assert_eq!(sum_formula(t, &cols, &row, 8, 1), None);
        // Nor is one that sums a column that is not on the sheet.
        let mut t2 = t.clone();
        t2.columns[8].sum_of = vec![3, 4];
        assert_eq!(sum_formula(&t2, &cols, &t.rows[0], 8, 1), None);
    }

    // ---- Read back by LibreOffice (crate::testing::Office) ----------------

    use crate::testing::Office;

    /// A workbook whose formula's cached result (5) is not its value (2):
    /// tells whether LibreOffice showed cached results or recalculated.
    fn calibration() -> Vec<u8> {
        let mut book = Workbook::new();
        book.add_worksheet()
            .write_formula(0, 0, Formula::new("=1+1").set_result("5"))
            .unwrap();
        book.save_to_buffer().unwrap()
    }

    fn close(read: &str, want: f64) -> bool {
        read.parse::<f64>()
            .is_ok_and(|v| (v - want).abs() <= 1e-9 * want.abs().max(1.0))
    }

    #[test]
    fn libreoffice_reads_values_text_and_cached_totals() {
        let doc = summary_doc();
        let xlsx = Xlsx.render(&doc).unwrap();
        // The workbook `report` writes, its table sheets spilled to files
        // in the results directory: LibreOffice reads the same sheets.
        let scratch = tempfile::tempdir().unwrap();
        let spilled = Xlsx.render_spilling(&doc, scratch.path()).unwrap();
        assert_eq!(
            std::fs::read_dir(scratch.path()).unwrap().count(),
            0,
            "the spilled rows left a file behind"
        );
        let calib = calibration();
        let office = Office::new(false);
        let sheets = office.csv_sheets(&[
            ("summary.xlsx", &xlsx),
            ("spilled.xlsx", &spilled),
            ("calibration.xlsx", &calib),
        ]);
        for ((file, name), rows) in &sheets {
            if file == "summary" {
                let other = sheets.get(&("spilled".to_string(), name.clone()));
                assert_eq!(other, Some(rows), "sheet {name:?} of the spilled workbook");
            }
        }
        let sheet = |name: &str| {
            sheets
                .get(&("summary".to_string(), name.to_string()))
                .unwrap_or_else(|| panic!("no sheet {name:?} in {:?}", sheets.keys()))
        };

        // This profile shows cached formula results, not recalculated ones.
        let calib_rows = &sheets[&("calibration".to_string(), "Sheet1".to_string())];
        assert_eq!(calib_rows[0][0], "5", "LibreOffice recalculated on load");

        let mut names: Vec<&str> = sheets
            .keys()
            .filter(|(f, _)| f == "summary")
            .map(|(_, s)| s.as_str())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "About",
                "About (2)",
                "Every run_ wall_user _s__ and m",
                "Notes",
                "Summary"
            ]
        );

        let table = &doc.tables[0];
        let grid = sheet("Summary");
        // The editions' column names (summary.csv's keys).
        let headers: Vec<&str> = table
            .data_columns()
            .iter()
            .map(|&c| table.columns[c].key.as_str())
            .collect();
        assert_eq!(grid[0], headers);
        assert_eq!(
            &grid[0][..4],
            ["language", "command_flags", "version", "assoc_s"]
        );
        assert!(!grid[0].iter().any(|h| h == "Assoc vs best"));
        assert_eq!(grid[0][8], "variant");

        // Every cell as the document has it.
        for (r, row) in table.rows.iter().enumerate() {
            for (x, &c) in table.data_columns().iter().enumerate() {
                let read = &grid[r + 1][x];
                let cell = &row[c];
                let numeric = table.columns[c].kind.is_numeric();
                let ok = match &cell.value {
                    Value::Number(_) | Value::Int(_) => close(read, cell.as_f64().unwrap()),
                    Value::Text(s) => read == s,
                    Value::Bool(b) => read == if *b { "TRUE" } else { "FALSE" },
                    // No figure: an empty cell in a numeric column.
                    Value::Empty if numeric => read.is_empty(),
                    Value::Empty => *read == cell.text,
                };
                assert!(ok, "row {r} {:?}: read {read:?}, want {cell:?}", headers[x]);
            }
        }
        // The facts that matter, spelled out.
        assert!(close(&grid[1][3], 0.4126), "{:?}", grid[1]);
        assert_eq!(grid[1][6], "1234567");
        // The failed cell and Ruby's partial total: empty, not text.
        assert_eq!(grid[3][5], "");
        assert_eq!(grid[3][6], "");
        assert_eq!(grid[3][7], "");
        // Cached totals: 0.4126 + 1.2344, 3.5 + 7.25.
        assert!(close(&grid[1][7], 1.647), "{:?}", grid[1]);
        assert!(close(&grid[2][7], 10.75), "{:?}", grid[2]);
        assert_eq!(grid[3][9], "FALSE");
        // Nothing under the table: the notes have their own sheet.
        assert_eq!(grid.len(), 4);
        let notes = sheet("Notes");
        assert_eq!(notes[0], ["sheet", "row", "note"]);
        assert_eq!(
            notes[1],
            ["Summary", "", "* partial total: a benchmark failed"]
        );
        assert_eq!(
            notes[2],
            ["Summary", "Ruby · ruby --yjit / num-comb", "exited 1"]
        );

        let runs = sheet("Every run_ wall_user _s__ and m");
        assert_eq!(runs[0], ["variant", "wall_s"]);
        assert_eq!(runs[1][0], "c-gcc");
        assert!(close(&runs[1][1], 0.5));

        let about = sheet("About");
        assert_eq!(about[0][0], doc.title);
        for (i, (k, v)) in doc.meta.iter().enumerate() {
            assert_eq!(&about[i + 2][..2], [k.as_str(), v.as_str()]);
        }
    }

    /// One cell of a flat OpenDocument spreadsheet.
    #[derive(Debug, Default, Clone)]
    struct OdsCell {
        /// `office:value` or `office:boolean-value`.
        value: Option<String>,
        /// What is shown.
        text: String,
        formula: Option<String>,
        /// The fill of the cell's style.
        background: Option<String>,
        annotation: Option<String>,
    }

    /// Sheet names in order, and each sheet's cells by row.
    fn ods_sheets(xml: &str) -> Vec<(String, Vec<Vec<OdsCell>>)> {
        let doc = roxmltree::Document::parse(xml).unwrap();
        const TABLE: &str = "urn:oasis:names:tc:opendocument:xmlns:table:1.0";
        const OFFICE: &str = "urn:oasis:names:tc:opendocument:xmlns:office:1.0";
        const STYLE: &str = "urn:oasis:names:tc:opendocument:xmlns:style:1.0";
        const FO: &str = "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0";
        const TEXT: &str = "urn:oasis:names:tc:opendocument:xmlns:text:1.0";
        let backgrounds: HashMap<&str, &str> = doc
            .descendants()
            .filter(|n| n.has_tag_name((STYLE, "style")))
            .filter_map(|s| {
                let fill = s
                    .children()
                    .find(|c| c.has_tag_name((STYLE, "table-cell-properties")))?
                    .attribute((FO, "background-color"))?;
                Some((s.attribute((STYLE, "name"))?, fill))
            })
            .collect();
        let paragraphs = |n: roxmltree::Node| {
            n.children()
                .filter(|c| c.has_tag_name((TEXT, "p")))
                .map(|p| {
                    p.descendants()
                        .filter(|d| d.is_text())
                        .filter_map(|d| d.text())
                        .collect::<String>()
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        let repeat = |n: roxmltree::Node, attr: &str| {
            n.attribute((TABLE, attr))
                .map_or(1, |v| v.parse::<usize>().unwrap())
                .min(64)
        };
        doc.descendants()
            .filter(|n| n.has_tag_name((TABLE, "table")))
            .map(|t| {
                let mut rows = Vec::new();
                for row in t
                    .descendants()
                    .filter(|n| n.has_tag_name((TABLE, "table-row")))
                {
                    let mut cells = Vec::new();
                    for c in row.children().filter(|c| {
                        c.has_tag_name((TABLE, "table-cell"))
                            || c.has_tag_name((TABLE, "covered-table-cell"))
                    }) {
                        let cell = OdsCell {
                            value: c
                                .attribute((OFFICE, "value"))
                                .or(c.attribute((OFFICE, "boolean-value")))
                                .map(String::from),
                            text: paragraphs(c),
                            formula: c.attribute((TABLE, "formula")).map(String::from),
                            background: c
                                .attribute((TABLE, "style-name"))
                                .and_then(|s| backgrounds.get(s))
                                .map(|b| b.to_lowercase()),
                            annotation: c
                                .children()
                                .find(|a| a.has_tag_name((OFFICE, "annotation")))
                                .map(paragraphs),
                        };
                        for _ in 0..repeat(c, "number-columns-repeated") {
                            cells.push(cell.clone());
                        }
                    }
                    for _ in 0..repeat(row, "number-rows-repeated") {
                        rows.push(cells.clone());
                    }
                }
                (t.attribute((TABLE, "name")).unwrap().to_string(), rows)
            })
            .collect()
    }

    #[test]
    fn libreoffice_recalculates_totals_and_shows_formats_marks_and_notes() {
        let doc = summary_doc();
        let xlsx = Xlsx.render(&doc).unwrap();
        let calib = calibration();
        let office = Office::new(true);
        let books = office.fods(&[("summary.xlsx", &xlsx), ("calibration.xlsx", &calib)]);

        // This profile really recalculates: 1+1, not the cached 5.
        let calib_sheets = ods_sheets(&books["calibration"]);
        let a1 = &calib_sheets[0].1[0][0];
        assert_eq!(a1.value.as_deref(), Some("2"), "not recalculated: {a1:?}");

        let sheets = ods_sheets(&books["summary"]);
        let names: Vec<&str> = sheets.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "Summary",
                "Every run_ wall_user _s__ and m",
                "About (2)",
                "Notes",
                "About"
            ]
        );
        let grid = &sheets[0].1;
        let table = &doc.tables[0];

        // Totals: SUM formulas over the two time columns of the same row,
        // recalculated to the document's figures.
        for (r, want) in [(1, 1.647), (2, 10.75)] {
            let total = &grid[r][7];
            let n = r + 1;
            assert_eq!(
                total.formula.as_deref(),
                Some(format!("of:=SUM([.D{n}];[.F{n}])").as_str()),
                "row {r}: {total:?}"
            );
            let value = total.value.as_deref().unwrap_or("");
            assert!(
                close(value, want),
                "row {r}: recalculated {value}, want {want}"
            );
        }
        assert_eq!(grid[1][7].text, "1.647");
        assert_eq!(grid[2][7].text, "10.750");
        // Only totals are formulas.
        let formulas = grid
            .iter()
            .flatten()
            .filter(|c| c.formula.as_deref().is_some_and(|f| f.contains("SUM")))
            .count();
        assert_eq!(formulas, 2);

        // Number formats as a reader sees them.
        assert_eq!(grid[1][3].text, "0.413");
        assert_eq!(grid[1][4].text, "10,240");
        assert_eq!(grid[1][6].text, "1,234,567");
        assert_eq!(grid[2][3].text, "3.500");
        assert_eq!(sheets[1].1[1][1].text, "0.500");

        // Flagged: a figure, amber, with its reason.
        let flagged = &grid[2][3];
        assert_eq!(flagged.value.as_deref(), Some("3.5"));
        assert_eq!(flagged.background.as_deref(), Some("#ffeb9c"));
        assert_eq!(flagged.annotation.as_deref(), table.rows[1][4].note());
        // Failed: no number and no text in the numeric column, red, with
        // its reason.
        let failed = &grid[3][5];
        assert_eq!(failed.value, None);
        assert_eq!(failed.text, "");
        assert_eq!(failed.background.as_deref(), Some("#ffc7ce"));
        assert_eq!(failed.annotation.as_deref(), table.rows[2][6].note());
        // The partial total: empty, no formula, grey, with its reason.
        assert_eq!(grid[3][7].value, None);
        assert_eq!(grid[3][7].formula, None);
        assert_eq!(grid[3][7].background.as_deref(), Some("#ededed"));
        assert_eq!(
            grid[3][7].annotation.as_deref(),
            Some("partial: num-comb failed")
        );
        // The header names each column by its key; its note the header.
        assert_eq!(grid[0][3].text, "assoc_s");
        assert_eq!(grid[0][3].annotation.as_deref(), Some("assoc (s)"));
        // Plain cells: no fill, no note.
        for cell in grid[1].iter().take(9) {
            assert_eq!(cell.background, None, "{cell:?}");
            assert_eq!(cell.annotation, None, "{cell:?}");
        }
        // Booleans are booleans.
        assert_eq!(grid[1][9].value.as_deref(), Some("true"));
        assert_eq!(grid[3][9].value.as_deref(), Some("false"));

        // The autofilter covers the header and rows, not the notes.
        assert!(
            books["summary"].contains(r#"table:target-range-address="Summary.A1:Summary.J4""#),
            "autofilter range"
        );
    }
}
