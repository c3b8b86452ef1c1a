//! Tables for the terminal (comfy-table), with the document's facts above
//! and its notes below, fitted to the terminal's width.
//!
//! [`document`] renders every column. [`document_fit`] keeps within a
//! width (`$COLUMNS`, else the terminal's, see [`width`]; `--wide`: none):
//! the one rule of every terminal table (`run`, `report`, `compare`,
//! `history`, `list`). The full table where it fits, else a compact one,
//! step by step until it fits: RAM in MB instead of KB (and no `(s)` in
//! the time headers), failures by their first word (the notes say the
//! rest), long texts that do not tell the rows apart (versions) cut with
//! `…`, no detail columns (`Priority::Detail`: each benchmark's RAM; the
//! total stays), no borders, the columns that tell the rows apart
//! (`Priority::Id`: language, command flags) wrapped within their cells
//! but never cut, then the other columns left out from the left (a line
//! under the table names them); if even that is too wide, cells wrapped.
//! Facts and notes wrap at the width.

use comfy_table::presets::{NOTHING, UTF8_FULL_CONDENSED};
use comfy_table::{Cell as TCell, CellAlignment, ContentArrangement, Table as TTable};

use crate::{Document, Entry, Kind, Priority, Table};

/// The width to keep within: `$COLUMNS` if set, else stdout's terminal;
/// `None` (every column) with `wide`, or when stdout is no terminal (a
/// file or a pipe gets the full table).
pub fn width(wide: bool) -> Option<usize> {
    if wide {
        return None;
    }
    columns()
        .or_else(|| terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| w.0 as usize))
}

/// `$COLUMNS`, when set to a width.
fn columns() -> Option<usize> {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|c| *c > 0)
}

/// `warning: TEXT` as stderr shows it: TEXT made inert, and where stderr
/// is a terminal, wrapped at its width (`$COLUMNS`, else its size) with
/// the rest indented; a long warning broke mid-word at 80 columns (issue
/// #40). Into a file or a pipe it stays one line, for grep.
pub fn warning(text: &str) -> String {
    use std::io::IsTerminal;
    let line = format!("warning: {}", crate::inert::text(text));
    if !std::io::stderr().is_terminal() {
        return line;
    }
    let width = columns()
        .or_else(|| terminal_size::terminal_size_of(std::io::stderr()).map(|(w, _)| w.0 as usize));
    wrapped(&line, width, "  ")
}

/// Prints [`warning`] on stderr.
pub fn warn(text: &str) {
    eprintln!("{}", warning(text));
}

/// How wide `s` is on a terminal (its widest line).
pub fn display_width(s: &str) -> usize {
    s.lines()
        .map(textwrap::core::display_width)
        .max()
        .unwrap_or(0)
}

/// One display column as shown.
#[derive(Clone)]
struct Shown {
    header: String,
    cells: Vec<String>,
    kind: Kind,
    /// Detail columns go first when the table is too wide.
    priority: Priority,
    /// Text that is a figure (`13.77 → 28.04 ±9%` under `assoc (s)`: its
    /// header names a unit): left out whole, never cut.
    figures: bool,
}

fn shown(t: &Table) -> Vec<Shown> {
    t.display_columns()
        .into_iter()
        .map(|i| Shown {
            header: t.columns[i].header.clone(),
            cells: t.rows.iter().map(|r| clean(&r[i].text)).collect(),
            kind: t.columns[i].kind,
            priority: t.columns[i].priority,
            figures: t.columns[i].header.contains(" ("),
        })
        .collect()
}

/// How a compact table shows a cell of KB: MB, its flag (` *`) kept.
fn mb(c: &Entry) -> String {
    let text = clean(&c.text);
    let Some(kb) = c.as_f64() else {
        return text;
    };
    let m = kb / 1024.0;
    let figure = if m >= 100.0 {
        crate::thousands(m.round() as u64)
    } else if m >= 10.0 {
        format!("{m:.0}")
    } else {
        format!("{m:.1}")
    };
    match text.split_once(' ') {
        Some((_, flag)) => format!("{figure} {flag}"),
        None => figure,
    }
}

/// `s` in at most `w` characters, cut with `…`.
fn cut(s: &str, w: usize) -> String {
    if s.chars().count() <= w {
        return s.to_string();
    }
    let mut t: String = s.chars().take(w.saturating_sub(1)).collect();
    t.push('…');
    t
}

fn render(cols: &[Shown], rows: usize, borders: bool, wrap_at: Option<usize>) -> String {
    let mut out = TTable::new();
    out.load_style(if borders {
        UTF8_FULL_CONDENSED
    } else {
        NOTHING
    });
    match wrap_at {
        Some(w) => {
            out.set_content_arrangement(ContentArrangement::Dynamic)
                .set_width(w.min(u16::MAX as usize) as u16);
        }
        None => {
            out.set_content_arrangement(ContentArrangement::Disabled);
        }
    }
    out.set_header(cols.iter().map(|c| c.header.clone()));
    for r in 0..rows {
        out.add_row(cols.iter().map(|c| {
            let cell = TCell::new(&c.cells[r]);
            if c.kind.is_numeric() {
                cell.set_alignment(CellAlignment::Right)
            } else {
                cell
            }
        }));
    }
    out.to_string()
}

/// One table's display columns as a terminal table, every column.
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

/// The widest of a column's header and cells.
fn natural(c: &Shown) -> usize {
    c.cells
        .iter()
        .chain([&c.header])
        .map(|s| display_width(s))
        .max()
        .unwrap_or(0)
}

/// Cuts the text columns to one level (the widest first, never below
/// `floor`), so that together they lose `over` characters if they can.
/// The columns that tell the rows apart ([`Priority::Id`]: the language,
/// the command flags) are never cut: three rows reading `Nim  nim r -…`
/// could not be told apart.
fn cut_texts(cols: &mut [Shown], over: usize, floor: usize) {
    let widths: Vec<(usize, usize)> = cols
        .iter()
        .enumerate()
        .filter(|(_, c)| c.kind == Kind::Text && c.priority != Priority::Id && !c.figures)
        .map(|(i, c)| (i, natural(c)))
        .collect();
    let level = level_for(&widths, over, floor);
    for (i, w) in widths {
        if w > level {
            let c = &mut cols[i];
            c.header = cut(&c.header, level);
            for cell in &mut c.cells {
                *cell = cut(cell, level);
            }
        }
    }
}

/// The widest a set of columns (`(index, natural width)`) may stay so that
/// together they lose `over` characters, never below `floor`.
fn level_for(widths: &[(usize, usize)], over: usize, floor: usize) -> usize {
    let lost =
        |level: usize| -> usize { widths.iter().map(|(_, w)| w.saturating_sub(level)).sum() };
    let mut level = widths.iter().map(|(_, w)| *w).max().unwrap_or(0);
    while level > floor && lost(level) < over {
        level -= 1;
    }
    level
}

/// Wraps the text columns that tell the rows apart (the widest first,
/// never below `floor`) so that together they lose `over` characters if
/// they can: a long command line takes two lines of its row, whole.
fn wrap_ids(cols: &mut [Shown], over: usize, floor: usize) {
    let widths: Vec<(usize, usize)> = cols
        .iter()
        .enumerate()
        .filter(|(_, c)| c.kind == Kind::Text && c.priority == Priority::Id)
        .map(|(i, c)| (i, natural(c)))
        .collect();
    let level = level_for(&widths, over, floor);
    for (i, w) in widths {
        if w > level {
            for cell in &mut cols[i].cells {
                let opts = textwrap::Options::new(level)
                    .word_splitter(textwrap::WordSplitter::NoHyphenation)
                    .break_words(true);
                *cell = textwrap::wrap(cell, opts).join("\n");
            }
        }
    }
}

/// The next column a table too wide leaves out: a detail column first,
/// then the others from the left (a version, then each benchmark's
/// figures before the totals and the rank, which tables put at the
/// right); never one that tells the rows apart, nor the last one left.
fn least_needed(cols: &[Shown]) -> Option<usize> {
    let others: Vec<usize> = (0..cols.len())
        .filter(|&i| cols[i].priority != Priority::Id)
        .collect();
    if others.len() <= 1 {
        return None;
    }
    others
        .iter()
        .copied()
        .find(|&i| cols[i].priority == Priority::Detail)
        .or_else(|| others.first().copied())
}

/// The table in at most `width` columns (see the module's steps).
fn table_fit(t: &Table, width: usize) -> String {
    let rows = t.rows.len();
    let fits = |s: &str| display_width(s) <= width;
    let over = |cols: &[Shown], borders: bool| {
        display_width(&render(cols, rows, borders, None)).saturating_sub(width)
    };
    let full = render(&shown(t), rows, true, None);
    if fits(&full) {
        return full;
    }
    // RAM in MB; a failure by its first word (`TIMEOUT >1000.00` →
    // `TIMEOUT`: the notes say the rest).
    let mut compact = shown(t);
    // Seconds and MB are said above the table (Time:), not in each header.
    for c in &mut compact {
        if let Some(h) = c.header.strip_suffix(" (s)") {
            c.header = h.to_string();
        }
    }
    for (k, &i) in t.display_columns().iter().enumerate() {
        if t.columns[i].kind == Kind::Kb {
            compact[k].header = compact[k]
                .header
                .replace("RAM (KB)", "MB")
                .replace("(KB)", "(MB)");
            compact[k].cells = t.rows.iter().map(|r| mb(&r[i])).collect();
        }
    }
    let s = render(&compact, rows, true, None);
    if fits(&s) {
        return s;
    }
    for c in compact.iter_mut().filter(|c| c.kind.is_numeric()) {
        for cell in &mut c.cells {
            if cell.starts_with(|ch: char| ch.is_ascii_uppercase()) {
                *cell = cell.split_whitespace().next().unwrap_or("").to_string();
            }
        }
    }
    // Each try cuts long texts (versions; never what tells the rows
    // apart) only as far as it needs to, never below its floor: with
    // every column (down to 16 characters), without the detail columns
    // (each benchmark's RAM: the total stays; down to 16, then 8), then
    // without borders.
    let without_detail: Vec<Shown> = compact
        .iter()
        .filter(|c| c.priority != Priority::Detail)
        .cloned()
        .collect();
    for (base, floor) in [(&compact, 16), (&without_detail, 16), (&without_detail, 8)] {
        let mut cols = base.clone();
        let o = over(&cols, true);
        cut_texts(&mut cols, o, floor);
        let s = render(&cols, rows, true, None);
        if fits(&s) {
            return s;
        }
    }
    // Without borders, what tells the rows apart wrapped within its cell
    // (down to 24 characters), then the least needed columns left out one
    // by one (a line under the table says which).
    let mut cols = without_detail;
    let mut left_out: Vec<String> = Vec::new();
    loop {
        let mut cut_cols = cols.clone();
        let o = over(&cut_cols, false);
        cut_texts(&mut cut_cols, o, 8);
        let o = over(&cut_cols, false);
        wrap_ids(&mut cut_cols, o, 24);
        let s = render(&cut_cols, rows, false, None);
        if fits(&s) {
            return with_left_out(s, &left_out, width);
        }
        match least_needed(&cols) {
            Some(i) => left_out.push(cols.remove(i).header),
            None => {
                // Nothing left to drop: cells wrap.
                let s = render(&cut_cols, rows, false, Some(width));
                return with_left_out(s, &left_out, width);
            }
        }
    }
}

/// The table and a line naming the columns a narrow terminal left out.
fn with_left_out(table: String, left_out: &[String], width: usize) -> String {
    if left_out.is_empty() {
        return table;
    }
    let line = format!(
        "(not shown at {width} columns: {}; --wide shows every column)",
        left_out.join(", ")
    );
    format!("{table}\n{}", wrapped(&line, Some(width), "  "))
}

/// Text from records can hold newlines or escape codes: one inert line
/// (crates/document/src/inert.rs).
fn clean(s: &str) -> String {
    crate::inert::text(s)
}

/// `line` wrapped at `width` (continuation lines indented by `indent`):
/// what a command prints beside a document (`to do:` lines) keeps within
/// the width its tables do.
pub fn wrapped(line: &str, width: Option<usize>, indent: &str) -> String {
    match width {
        Some(w) if textwrap::core::display_width(line) > w => {
            let opts = textwrap::Options::new(w.max(20))
                .subsequent_indent(indent)
                .word_splitter(textwrap::WordSplitter::NoHyphenation);
            textwrap::fill(line, opts)
        }
        _ => line.to_string(),
    }
}

/// Everything a command prints at its end: facts, tables, notes; every
/// column.
pub fn document(doc: &Document) -> String {
    document_fit(doc, None)
}

/// [`document`] within `width` columns (`None`: every column, however
/// wide).
pub fn document_fit(doc: &Document, width: Option<usize>) -> String {
    let mut s = String::new();
    for (k, v) in &doc.meta {
        s.push_str(&wrapped(&format!("{k}: {}", clean(v)), width, "  "));
        s.push('\n');
    }
    for t in doc.tables.iter().filter(|t| !t.data_only) {
        if doc.tables.len() > 1 {
            s.push_str(&format!("{}\n", t.title));
        }
        match width {
            Some(w) => s.push_str(&table_fit(t, w)),
            None => s.push_str(&table(t).to_string()),
        }
        s.push('\n');
        if !t.notes.is_empty() {
            s.push_str("* notes:\n");
            for n in &t.notes {
                s.push_str(&wrapped(
                    &format!("  - {}", clean(&n.to_string())),
                    width,
                    "    ",
                ));
                s.push('\n');
            }
        }
    }
    s
}
