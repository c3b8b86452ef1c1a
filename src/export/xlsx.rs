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
        Kind::Number => "General".into(),
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
    if !doc.title.is_empty() {
        sheet.write_string_with_format(0, 0, fit_text(&doc.title, MAX_CELL_TEXT), &bold)?;
    }
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

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::export::{Column, Show};

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
                Cell::text("C"),
                Cell::text("gcc -O2"),
                Cell::text("14.2.0"),
                Cell::text("1.00x"),
                Cell::number(0.4126, "0.413"),
                Cell::int(10240, "10240"),
                Cell::number(1.2344, "1.234"),
                Cell::int(1234567, "1234567"),
                Cell::number(1.647, "1.647"),
                Cell::text("c-gcc"),
                Cell::bool(true),
            ],
            vec![
                Cell::text("Python"),
                Cell::text("python3"),
                Cell::text("3.13.5"),
                Cell::text("8.48x"),
                Cell::number(3.5, "3.500 (exit 25)")
                    .marked(Mark::Flagged, Some("exit 25: output differs".into())),
                Cell::int(123456, "123456"),
                Cell::number(7.25, "7.250"),
                Cell::int(65536, "65536"),
                Cell::number(10.75, "10.750"),
                Cell::text("python"),
                Cell::bool(true),
            ],
            vec![
                Cell::text("Ruby"),
                Cell::text("ruby --yjit"),
                Cell::text("3.3.8"),
                Cell::text("5.15x"),
                Cell::number(2.125, "2.125"),
                Cell::int(50000, "50000"),
                Cell::empty("FAILED (exit 1)").marked(
                    Mark::Failed,
                    Some("exited 1: undefined method `comb' (NoMethodError)".into()),
                ),
                Cell::empty(""),
                Cell::number(2.125, "2.125*")
                    .marked(Mark::Flagged, Some("partial: num-comb failed".into())),
                Cell::text("ruby-yjit"),
                Cell::bool(false),
            ],
        ];
        let summary = Table {
            id: "summary".into(),
            title: "Summary".into(),
            columns,
            rows,
            notes: vec![
                "* partial total: a benchmark failed".into(),
                "Ruby num-comb: exited 1".into(),
            ],
            data_only: false,
        };
        let runs = Table {
            id: "runs".into(),
            title: "Every run: wall/user [s]? and more words".into(),
            columns: vec![
                Column::new("variant", "variant", Kind::Text, Show::Both),
                Column::new("wall (s)", "wall_s", secs, Show::Both),
            ],
            rows: vec![vec![Cell::text("c-gcc"), Cell::number(0.5, "0.500")]],
            notes: vec![],
            data_only: true,
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
        }
    }

    // ---- Unit checks -------------------------------------------------

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
        assert_eq!(num_format(Kind::Ratio), "0.00");
        assert_eq!(num_format(Kind::Decimal { decimals: 1 }), "0.0");
        assert_eq!(num_format(Kind::Decimal { decimals: 0 }), "0");
        assert_eq!(num_format(Kind::Text), "General");
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
        // The failed num-comb is text, left out of the SUM and of the total.
        assert_eq!(
            sum_formula(t, &cols, &t.rows[2], 8, 3).as_deref(),
            Some("=SUM(D4,F4)")
        );
        // A total that is not the sum of its figures stays a plain number.
        let mut row = t.rows[0].clone();
        row[8] = Cell::number(9.0, "9.000");
        assert_eq!(sum_formula(t, &cols, &row, 8, 1), None);
        // A total without a figure is not a formula (it would show 0).
        row[8] = Cell::empty("FAILED");
        assert_eq!(sum_formula(t, &cols, &row, 8, 1), None);
        // Nor is one that sums a column that is not on the sheet.
        let mut t2 = t.clone();
        t2.columns[8].sum_of = vec![3, 4];
        assert_eq!(sum_formula(&t2, &cols, &t.rows[0], 8, 1), None);
    }

    // ---- Read back by LibreOffice --------------------------------------

    /// A private LibreOffice profile that recalculates formulas of xlsx
    /// files on load, or never does (then it shows the cached results).
    struct Office {
        dir: tempfile::TempDir,
        soffice: std::path::PathBuf,
    }

    impl Office {
        fn new(recalc_on_load: bool) -> Office {
            let soffice = which::which("soffice").unwrap_or_else(|_| {
                panic!(
                    "LibreOffice (`soffice`) is not on PATH: the xlsx tests open the \
                     workbook in it to check what a spreadsheet program reads \
                     (Debian: apt-get install libreoffice-calc)"
                )
            });
            let dir = tempfile::Builder::new()
                .prefix("lo-profile-")
                .tempdir()
                .unwrap();
            let user = dir.path().join("profile/user");
            std::fs::create_dir_all(&user).unwrap();
            // OOXMLRecalcMode: 0 always recalculate, 1 never, 2 ask.
            let mode = if recalc_on_load { 0 } else { 1 };
            std::fs::write(
                user.join("registrymodifications.xcu"),
                format!(
                    r#"<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>{mode}</value></prop></item>
</oor:items>
"#
                ),
            )
            .unwrap();
            Office { dir, soffice }
        }

        /// Converts `files` (name, bytes) with LibreOffice; returns the
        /// output directory.
        fn convert(&self, files: &[(&str, &[u8])], to: &str, out: &str) -> std::path::PathBuf {
            let input = self.dir.path().join("in");
            let output = self.dir.path().join(out);
            std::fs::create_dir_all(&input).unwrap();
            let mut cmd = std::process::Command::new(&self.soffice);
            cmd.arg(format!(
                "-env:UserInstallation=file://{}",
                self.dir.path().join("profile").display()
            ))
            .args(["--headless", "--norestore", "--convert-to", to, "--outdir"])
            .arg(&output)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
            for (name, bytes) in files {
                let path = input.join(name);
                std::fs::write(&path, bytes).unwrap();
                cmd.arg(path);
            }
            let mut child = cmd.spawn().expect("start soffice");
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(180);
            while child.try_wait().unwrap().is_none() {
                if std::time::Instant::now() > deadline {
                    child.kill().ok();
                    child.wait().ok();
                    panic!("soffice did not finish converting within 180 s");
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            let done = child.wait_with_output().unwrap();
            assert!(
                done.status.success(),
                "soffice failed ({}): {}{}",
                done.status,
                String::from_utf8_lossy(&done.stdout),
                String::from_utf8_lossy(&done.stderr)
            );
            output
        }

        /// Every sheet of each file as CSV with raw (unformatted) values:
        /// (file stem, sheet name) -> rows.
        fn csv_sheets(
            &self,
            files: &[(&str, &[u8])],
        ) -> HashMap<(String, String), Vec<Vec<String>>> {
            // Tokens: separator, quote, charset, first line, column formats,
            // language, quote all text, detect special numbers, save as
            // shown (no: raw values), formulas (no), remove space, sheets
            // (-1: all, one file each).
            let out = self.convert(
                files,
                "csv:Text - txt - csv (StarCalc):44,34,UTF8,1,,0,false,true,false,false,false,-1",
                "csv",
            );
            let mut sheets = HashMap::new();
            for entry in std::fs::read_dir(&out).unwrap() {
                let path = entry.unwrap().path();
                let name = path.file_stem().unwrap().to_string_lossy().into_owned();
                let stem = files
                    .iter()
                    .map(|(f, _)| f.trim_end_matches(".xlsx"))
                    .find(|s| name.starts_with(&format!("{s}-")))
                    .unwrap_or_else(|| panic!("unexpected output {name}"));
                let sheet = name[stem.len() + 1..].to_string();
                let mut reader = csv::ReaderBuilder::new()
                    .has_headers(false)
                    .flexible(true)
                    .from_path(&path)
                    .unwrap();
                let rows = reader
                    .records()
                    .map(|r| r.unwrap().iter().map(String::from).collect())
                    .collect();
                sheets.insert((stem.to_string(), sheet), rows);
            }
            sheets
        }

        /// Each file as flat OpenDocument XML (values, displayed text,
        /// formulas, notes, cell styles): file stem -> XML.
        fn fods(&self, files: &[(&str, &[u8])]) -> HashMap<String, String> {
            let out = self.convert(files, "fods", "fods");
            files
                .iter()
                .map(|(f, _)| {
                    let stem = f.trim_end_matches(".xlsx");
                    let path = out.join(format!("{stem}.fods"));
                    let xml = std::fs::read_to_string(&path)
                        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                    (stem.to_string(), xml)
                })
                .collect()
        }
    }

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
        let calib = calibration();
        let office = Office::new(false);
        let sheets = office.csv_sheets(&[("summary.xlsx", &xlsx), ("calibration.xlsx", &calib)]);
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
                "Summary"
            ]
        );

        let table = &doc.tables[0];
        let grid = sheet("Summary");
        let headers: Vec<&str> = table
            .data_columns()
            .iter()
            .map(|&c| table.columns[c].header.as_str())
            .collect();
        assert_eq!(grid[0], headers);
        assert!(!grid[0].iter().any(|h| h == "Assoc vs best"));
        assert_eq!(grid[0][8], "variant");

        // Every cell as the document has it.
        for (r, row) in table.rows.iter().enumerate() {
            for (x, &c) in table.data_columns().iter().enumerate() {
                let read = &grid[r + 1][x];
                let cell = &row[c];
                let ok = match &cell.value {
                    Value::Number(_) | Value::Int(_) => close(read, cell.as_f64().unwrap()),
                    Value::Text(s) => read == s,
                    Value::Bool(b) => read == if *b { "TRUE" } else { "FALSE" },
                    Value::Empty => *read == cell.text,
                };
                assert!(ok, "row {r} {:?}: read {read:?}, want {cell:?}", headers[x]);
            }
        }
        // The facts that matter, spelled out.
        assert!(close(&grid[1][3], 0.4126), "{:?}", grid[1]);
        assert_eq!(grid[1][6], "1234567");
        assert_eq!(grid[3][5], "FAILED (exit 1)");
        assert_eq!(grid[3][6], "");
        // Cached totals: 0.4126 + 1.2344, 3.5 + 7.25, and Ruby's partial
        // total without the failed num-comb.
        assert!(close(&grid[1][7], 1.647), "{:?}", grid[1]);
        assert!(close(&grid[2][7], 10.75), "{:?}", grid[2]);
        assert!(close(&grid[3][7], 2.125), "{:?}", grid[3]);
        assert_eq!(grid[3][9], "FALSE");

        // Notes under the table, after a blank row.
        assert!(grid[4].iter().all(String::is_empty), "{:?}", grid[4]);
        assert_eq!(grid[5][0], "Notes");
        assert_eq!(grid[6][0], table.notes[0]);
        assert_eq!(grid[7][0], table.notes[1]);
        assert_eq!(grid.len(), 8);

        let runs = sheet("Every run_ wall_user _s__ and m");
        assert_eq!(runs[0], ["variant", "wall (s)"]);
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
                "About"
            ]
        );
        let grid = &sheets[0].1;
        let table = &doc.tables[0];

        // Totals: SUM formulas over the two time columns of the same row,
        // recalculated to the document's figures.
        for (r, want) in [(1, 1.647), (2, 10.75), (3, 2.125)] {
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
        assert_eq!(formulas, 3);

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
        assert_eq!(
            flagged.annotation.as_deref(),
            table.rows[1][4].note.as_deref()
        );
        // Failed: text (no number), red, with its reason.
        let failed = &grid[3][5];
        assert_eq!(failed.value, None);
        assert_eq!(failed.text, "FAILED (exit 1)");
        assert_eq!(failed.background.as_deref(), Some("#ffc7ce"));
        assert_eq!(
            failed.annotation.as_deref(),
            table.rows[2][6].note.as_deref()
        );
        // The partial total is flagged too.
        assert_eq!(grid[3][7].background.as_deref(), Some("#ffeb9c"));
        assert_eq!(
            grid[3][7].annotation.as_deref(),
            Some("partial: num-comb failed")
        );
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
