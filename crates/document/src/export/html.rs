//! The report as one self-contained HTML page (`report.html`): the meta facts
//! (the sessions behind a details block), every human table (sortable by
//! clicking a header, or with the "Sort by" list on a phone), every chart
//! as inline SVG (a wide and a phone variant), and "what was measured" per
//! variant (commands, toolchain, identity, source, note), linked from its
//! row. CSS and JS are inline too, so the file opens from disk with no
//! network and can be mailed or archived as it is.
//!
//! Layout: the label columns stay in view while a wide table scrolls
//! (sticky); secondary columns (CPU, × fastest) are behind a switch; long
//! texts, marked figures ("TIMEOUT >1000.14") and an old → new figure's
//! spread may fold onto a second line, so the summary and the comparison
//! fit 1400 px; nothing widens the page itself (a long command scrolls in
//! its own box); on a screen under 640 px each row is a card of
//! label/figure pairs, so the figures show without scrolling sideways;
//! printed, it is landscape, the secondary columns are left out and long
//! texts wrap, so no column is cut, and the sessions print after the
//! tables. Each kind of mark looks different (noisy, partial, failed, timed
//! out, escaped, ...) and the legend names the ones on the page.
//! `tests/pages.rs` measures all of this in Chromium on the committed
//! editions.
//!
//! Templating is `maud`: every string from the [`Document`] is escaped by the
//! `html!` macro (names, notes, program sources, commands); the only
//! unescaped inserts are the constant CSS and JS below and the SVG that
//! [`super::svg`] returns (which escapes its own labels).

use std::collections::BTreeSet;

use anyhow::Result;
use maud::{DOCTYPE, Markup, PreEscaped, html};

use super::Exporter;
use crate::inert;
use crate::{BarChart, Column, Document, Entry, Flag, Kind, Mark, Measured, Show, Table, Value};

/// File name of the page in the store.
pub const FILE: &str = "report.html";

/// Renders a [`Document`] as one self-contained HTML5 page.
pub struct Html;

impl Exporter for Html {
    fn render(&self, doc: &Document) -> Result<Vec<u8>> {
        let mut bytes = Vec::new();
        write_page(doc, &mut bytes)?;
        Ok(bytes)
    }
}

/// Where a shell's streamed part goes: markup no document string can
/// become, since `html!` escapes every `<` of them; the only unescaped
/// inserts are the constant CSS and JS and the SVG charts, which escape
/// their own text (`pages_are_streamed_unchanged` checks a document whose
/// strings hold this very text).
const HOLE: &str = "<!--langbench:streamed-->";

/// [`Html`]'s page written to `w` piece by piece: the shell (head, header,
/// charts) is rendered whole, each table, each of its rows and each
/// variant's section of what was measured on its own, so the page of a
/// 6,500-variant directory (87 MB, most of it the programs' sources) is
/// never held whole in memory (issue #41). The bytes are the same as
/// rendering the page in one piece would give.
pub fn write_page(doc: &Document, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let tables: Vec<&Table> = doc.tables.iter().filter(|t| !t.data_only).collect();
    let anchors: BTreeSet<String> = doc
        .measured
        .iter()
        .map(|m| Measured::anchor_of(&m.variant))
        .collect();
    let shell = page(doc, &tables, PreEscaped(HOLE)).into_string();
    // The tables' place, then (with anything measured) its sections'.
    let mut parts = shell.split(HOLE);
    let before = parts.next().unwrap_or_default();
    let after = parts
        .next()
        .expect("a page's shell holds the place of its tables");
    w.write_all(before.as_bytes())?;
    for t in &tables {
        write_table(t, &anchors, w)?;
    }
    w.write_all(after.as_bytes())?;
    if let Some(after) = parts.next() {
        for m in &doc.measured {
            w.write_all(measured_variant(m).into_string().as_bytes())?;
        }
        w.write_all(after.as_bytes())?;
    }
    debug_assert!(parts.next().is_none(), "a page's shell has two holes");
    Ok(())
}

fn split_at_hole(shell: &str) -> (&str, &str) {
    shell
        .split_once(HOLE)
        .expect("a page's shell holds the place of its streamed part")
}

/// Anchor of a table's section (tables and charts may share an id).
fn table_anchor(t: &Table) -> String {
    format!("table-{}", t.id)
}

fn chart_anchor(c: &BarChart) -> String {
    format!("chart-{}", c.id)
}

/// The flags the page's tables use, in their order (for the legend).
fn flags_used(tables: &[&Table]) -> Vec<Flag> {
    let used: BTreeSet<&'static str> = tables
        .iter()
        .flat_map(|t| t.rows.iter().flatten())
        .filter_map(|c| c.flag.map(Flag::name))
        .collect();
    ALL_FLAGS
        .into_iter()
        .filter(|f| used.contains(f.name()))
        .collect()
}

const ALL_FLAGS: [Flag; 12] = [
    Flag::Noisy,
    Flag::PartialCell,
    Flag::Wrong,
    Flag::Escaped,
    Flag::Timeout,
    Flag::Failed,
    Flag::Partial,
    Flag::NotRun,
    Flag::Machine,
    Flag::Faster,
    Flag::Slower,
    Flag::Incomparable,
];

/// The page with `hole` where its tables go ([`write_page`] writes them).
fn page(doc: &Document, tables: &[&Table], hole: PreEscaped<&str>) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="generator" content="langbench";
                title { (text(&doc.title)) }
                style { (PreEscaped(CSS)) }
            }
            body {
                header {
                    h1 { (text(&doc.title)) }
                    @if !doc.meta.is_empty() {
                        dl.meta {
                            @for (k, v) in &doc.meta {
                                dt { (text(k)) }
                                dd { (text(v)) }
                            }
                        }
                    }
                    @if !doc.details.is_empty() {
                        details.details {
                            summary { "Sessions and other details (" (doc.details.len()) ")" }
                            dl.meta {
                                @for (k, v) in &doc.details {
                                    dt { (text(k)) }
                                    dd { (text(v)) }
                                }
                            }
                        }
                    }
                    (contents(doc, tables))
                    (legend(doc, tables))
                }
                main {
                    (hole)
                    @for c in &doc.charts { (chart(c)) }
                    @if !doc.measured.is_empty() { (measured(hole)) }
                    // The details block's facts, for print only (a printed
                    // page cannot open the block).
                    @if !doc.details.is_empty() {
                        section.print-details {
                            h2 { "Sessions and other details" }
                            dl.meta {
                                @for (k, v) in &doc.details {
                                    dt { (text(k)) }
                                    dd { (text(v)) }
                                }
                            }
                        }
                    }
                }
                footer {
                    "Generated by langbench from the records of its results directory; every \
                     derived file there is rewritten from them by "
                    code { "langbench report DIR" } "."
                }
                script { (PreEscaped(JS)) }
            }
        }
    }
}

/// The page's table of contents: its tables, charts and what was measured.
fn contents(doc: &Document, tables: &[&Table]) -> Markup {
    html! {
        @if !tables.is_empty() || !doc.charts.is_empty() || !doc.measured.is_empty() {
            nav.toc aria-label="Contents" {
                ol {
                    @for tb in tables {
                        li { a href={ "#" (table_anchor(tb)) } { (text(&tb.title)) } }
                    }
                    @for c in &doc.charts {
                        li { a href={ "#" (chart_anchor(c)) } { (text(&c.title)) } }
                    }
                    @if !doc.measured.is_empty() {
                        li { a href="#measured" { "What was measured" } }
                    }
                }
            }
        }
    }
}

/// How to read the tables: sorting, notes, and the marks the page uses.
fn legend(doc: &Document, tables: &[&Table]) -> Markup {
    let flags = flags_used(tables);
    // Marks without a kind of their own get the generic swatches, each
    // only where the page has one (no "flagged" in the legend of a page
    // without a flagged cell).
    let unflagged = |mark: Mark| {
        tables.iter().any(|t| {
            t.rows
                .iter()
                .flatten()
                .any(|c| c.mark == mark && c.flag.is_none())
        })
    };
    let (unflagged_flagged, unflagged_failed) = (unflagged(Mark::Flagged), unflagged(Mark::Failed));
    html! {
        @if !tables.is_empty() {
            div.legend {
                p {
                    "Click a column header (or use Sort by) to sort. Notes under each \
                     table say why a cell is marked"
                    @if !doc.measured.is_empty() {
                        "; a language links to what was measured for it"
                    }
                    "."
                }
                @if !flags.is_empty() || unflagged_flagged || unflagged_failed {
                    ul.marks {
                        @for f in &flags {
                            li { span class={ "swatch flag-" (f.name()) } { (f.name()) } " " (f.meaning()) }
                        }
                        @if unflagged_flagged {
                            li { span.swatch.flagged { "flagged" } " a figure that is not a plain correct one" }
                        }
                        @if unflagged_failed {
                            li { span.swatch.failed { "failed" } " no figure" }
                        }
                    }
                }
            }
        }
    }
}

/// Text of the document on the page: inert (crates/document/src/inert.rs: no escape
/// sequence, control or bidi character; bounded), then escaped by maud.
fn text(s: &str) -> String {
    inert::text(s)
}

/// The classes of a header cell.
fn head_class(col: &Column, label: bool) -> Option<String> {
    let mut c = Vec::new();
    if col.kind.is_numeric() {
        c.push("num");
    }
    if label {
        c.push("label");
    }
    if col.show == Show::Extra {
        c.push("extra");
    }
    (!c.is_empty()).then(|| c.join(" "))
}

/// One table's section written to `w`, its rows one by one.
fn write_table(
    t: &Table,
    anchors: &BTreeSet<String>,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let cols = t.page_columns();
    let shell = table(t, &cols, PreEscaped(HOLE)).into_string();
    let (before, after) = split_at_hole(&shell);
    w.write_all(before.as_bytes())?;
    for (r, cells) in t.rows.iter().enumerate() {
        w.write_all(row(t, &cols, r, cells, anchors).into_string().as_bytes())?;
    }
    w.write_all(after.as_bytes())
}

/// A table's section with `hole` where its rows go ([`write_table`]).
fn table(t: &Table, cols: &[usize], hole: PreEscaped<&str>) -> Markup {
    let has_extra = cols.iter().any(|&i| t.columns[i].show == Show::Extra);
    html! {
        section.table.hide-extra[has_extra] id=(table_anchor(t)) {
            h2 { (text(&t.title)) }
            div.controls {
                label.sortby {
                    "Sort by "
                    select data-sort=(t.id) {
                        option value="" { "(as ranked)" }
                        @for (n, &i) in cols.iter().enumerate() {
                            @let col = &t.columns[i];
                            @if col.show != Show::Extra {
                                option value={ (n) ":asc" } { (text(&col.header)) " ↑" }
                                option value={ (n) ":desc" } { (text(&col.header)) " ↓" }
                            }
                        }
                    }
                }
                @if has_extra {
                    label.extra-switch {
                        input type="checkbox" data-extra=(t.id);
                        " More columns ("
                        @for (n, i) in cols.iter().filter(|&&i| t.columns[i].show == Show::Extra).enumerate() {
                            @if n > 0 { ", " }
                            (text(&t.columns[*i].header))
                        }
                        ")"
                    }
                }
            }
            div.scroll {
                table data-table=(t.id) data-labels=(t.labels) {
                    thead {
                        tr {
                            @for (n, &i) in cols.iter().enumerate() {
                                @let col = &t.columns[i];
                                @let numeric = col.kind.is_numeric();
                                th class=[head_class(col, n < t.labels)] scope="col"
                                    data-kind=(if numeric { "num" } else { "text" }) {
                                    button type="button" { (text(&col.header)) }
                                }
                            }
                        }
                    }
                    tbody { (hole) }
                }
            }
            @if !t.notes.is_empty() {
                ul.notes {
                    @for n in &t.notes {
                        @if n.key.is_empty() {
                            li { (text(&n.text)) }
                        } @else {
                            li { strong { (text(&n.key)) } ": " (text(&n.text)) }
                        }
                    }
                }
            }
        }
    }
}

/// Row `r` of a table: its cells in the page's columns.
fn row(t: &Table, cols: &[usize], r: usize, cells: &[Entry], anchors: &BTreeSet<String>) -> Markup {
    html! {
        tr data-i=(r) {
            @for (n, &i) in cols.iter().enumerate() {
                @let col = &t.columns[i];
                @if let Some(cell) = cells.get(i) {
                    (td(col, cell, n < t.labels, anchors))
                } @else {
                    td.empty {}
                }
            }
        }
    }
}

/// One cell: its text (a link to the variant's section where there is
/// one), the range of its runs under it, its mark's classes, its note as
/// the tooltip, and its header as the label of a phone card.
fn td(col: &Column, cell: &Entry, label: bool, anchors: &BTreeSet<String>) -> Markup {
    let numeric = col.kind.is_numeric();
    let mut classes: Vec<&str> = Vec::new();
    if let Some(c) = cell_class(numeric, cell.mark, &cell.text) {
        classes.push(c);
    }
    let n = cell.text.chars().count();
    if !numeric && n > WRAP_TEXT && n <= LONG_TEXT {
        classes.push("wrap");
    }
    // Cells that may fold onto two lines when the table is short of room,
    // so one such cell does not widen its column for the whole table (at
    // 1400 px the summary's last column was cut, and compare's once it has
    // a Machine column): a marked figure's words ("TIMEOUT >1000.14"), its
    // reason in parentheses as one piece ("202.44" over "(2 of 3 runs)"),
    // and a figure's spread: an old → new figure's ("12.39 → 35.54" over
    // "±9%"), a noisy or normalised one's ("24.63" over "±5%": with the
    // normalised total beside them the 2026 summary's rank was cut at
    // 1400 px).
    let marked_figure = numeric
        && cell.mark != Mark::Plain
        && cell.flag != Some(Flag::Noisy)
        && cell.text.contains(' ');
    let parts = if marked_figure {
        cell.text
            .split_once(" (")
            .filter(|(_, w)| w.ends_with(')'))
            .map(|(f, w)| (f.to_string(), format!("({w}")))
    } else if !label {
        let spread = cell
            .text
            .rsplit_once(" ±")
            .filter(|(_, w)| !w.contains(' '))
            .map(|(f, w)| (f.to_string(), format!("±{w}")));
        // A ratio's verdict ("×1.48" over "slower"): with a verdict in
        // every cell against a published edition, compare's last column
        // was cut at 1400 px.
        let verdict = || {
            cell.text
                .rsplit_once(' ')
                .filter(|(_, w)| ["faster", "slower", "≈"].contains(w))
                .map(|(f, w)| (f.to_string(), w.to_string()))
        };
        spread.or_else(verdict)
    } else {
        None
    };
    if marked_figure || parts.is_some() {
        classes.push("fold");
    }
    let flag = cell.flag.map(|f| format!("flag-{}", f.name()));
    if let Some(f) = &flag {
        classes.push(f);
    }
    if label {
        classes.push("label");
    }
    if col.show == Show::Extra {
        classes.push("extra");
    }
    if cell.text.is_empty() {
        classes.push("empty");
    }
    let class = (!classes.is_empty()).then(|| classes.join(" "));
    let link = cell.link().filter(|a| anchors.contains(*a));
    html! {
        td class=[class] title=[cell.note().map(text)] data-v=[sort_value(cell)]
            data-label=(text(&col.header)) {
            @if let Some(a) = link {
                a href={ "#" (a) } { (text(&cell.text)) }
            } @else if let Some((head, tail)) = &parts {
                span.part { (text(head)) } " " span.part { (text(tail)) }
            } @else {
                (text(&cell.text))
            }
            @if let Some((lo, hi)) = cell.interval().filter(|(lo, hi)| hi > lo) {
                span.range title="the fastest to the slowest run" { (range_text(col.kind, lo, hi)) }
            }
        }
    }
}

/// `9.10–11.20`, `×1.85–2.16`.
fn range_text(kind: Kind, lo: f64, hi: f64) -> String {
    match kind {
        Kind::Ratio => format!("×{lo:.2}–{hi:.2}"),
        _ => format!("{lo:.2}–{hi:.2}"),
    }
}

/// Text cells longer than this wrap (class `long`, given room to) instead
/// of widening their column: one install hint in a Notes column would
/// otherwise push every other column of the table off the page.
const LONG_TEXT: usize = 48;
/// Text cells longer than this may wrap (class `wrap`) within a narrow
/// column; shorter ones ("2.50 → 2.10 ±7%") stay on one line.
const WRAP_TEXT: usize = 22;

/// The classes of a cell: alignment, mark and wrapping (`None`: no
/// attribute).
fn cell_class(numeric: bool, mark: Mark, text: &str) -> Option<&'static str> {
    let long = !numeric && text.chars().count() > LONG_TEXT;
    match (numeric, mark) {
        (false, Mark::Plain) if long => Some("long"),
        (false, Mark::Flagged) if long => Some("flagged long"),
        (false, Mark::Failed) if long => Some("failed long"),
        (false, Mark::Plain) => None,
        (false, Mark::Flagged) => Some("flagged"),
        (false, Mark::Failed) => Some("failed"),
        (true, Mark::Plain) => Some("num"),
        (true, Mark::Flagged) => Some("num flagged"),
        (true, Mark::Failed) => Some("num failed"),
    }
}

/// What the page's script sorts a cell by; `None` (no attribute) for a cell
/// with no value, which sorts after every cell with one.
fn sort_value(cell: &Entry) -> Option<String> {
    if cell.mark == Mark::Failed {
        return None;
    }
    match &cell.value {
        Value::Empty => None,
        // `Display` for f64 never uses an exponent; JS `parseFloat` reads it.
        Value::Number(v) if v.is_finite() => Some(v.to_string()),
        Value::Number(_) => None,
        Value::Int(v) => Some(v.to_string()),
        Value::Text(s) => Some(text(s)),
        Value::Bool(b) => Some(b.to_string()),
    }
}

fn chart(c: &BarChart) -> Markup {
    // The section's heading and figcaption carry the title and caption; the
    // figure variants of the SVG leave them out so they are not shown twice
    // (the standalone charts/*.svg files keep them). The phone variant
    // replaces the wide one under 640 px.
    let wide = super::svg::render_figure(c);
    let narrow = super::svg::render_narrow(c);
    html! {
        section.chart id=(chart_anchor(c)) {
            h2 { (text(&c.title)) }
            figure {
                // The SVG renderer's output is trusted markup (it escapes its
                // own labels); inlined so the page needs no other file.
                div.wide.tall[tall(&wide)] { (PreEscaped(strip_prolog(&wide))) }
                div.narrow { (PreEscaped(strip_prolog(&narrow))) }
                @if !c.caption.is_empty() {
                    figcaption { (text(&c.caption)) }
                }
            }
        }
    }
}

/// Whether an SVG is more than twice as tall as wide (the bars of every
/// variant and benchmark): printed, it keeps a readable width over
/// several pages rather than shrinking to one.
fn tall(svg: &str) -> bool {
    let attr = |name: &str| -> Option<f64> {
        let head = &svg[..svg.find('>')?];
        let at = head.find(&format!(" {name}=\""))? + name.len() + 3;
        head[at..].split('"').next()?.parse().ok()
    };
    matches!((attr("width"), attr("height")), (Some(w), Some(h)) if h > 2.0 * w)
}

/// "What was measured": a section per variant, linked from its rows,
/// each written where `hole` is ([`write_page`] writes them).
fn measured(hole: PreEscaped<&str>) -> Markup {
    html! {
        section.measured id="measured" {
            h2 { "What was measured" }
            p.lead {
                "Per variant and benchmark: the commands that ran (placeholders expanded; "
                code { "{build}" } " is the run's scratch directory), the toolchain, the program \
                 identity digest of the runs (\"unknown\" where the runs recorded none), wall and \
                 CPU seconds (user + system) of the shown run, and the program's source."
            }
            (hole)
        }
    }
}

/// One variant's section of "what was measured" (its sources are most of
/// a page: 70 MB of 87 at 6,500 variants, issue #41).
fn measured_variant(m: &Measured) -> Markup {
    html! {
                section.variant id=(Measured::anchor_of(&m.variant)) {
                    h3 { (text(&m.label)) " " span.muted { "(" (text(&m.variant)) ")" } }
                    dl.meta {
                        dt { "Version" } dd { (text(&m.version)) }
                        @if let Some(n) = &m.note {
                            dt { "Note" } dd { (text(n)) }
                        }
                        dt.from { "From" } dd.from { (text(&m.source_of)) }
                    }
                    @for b in &m.benches {
                        div.bench {
                            h4 { (text(&b.bench)) }
                            dl.meta {
                                dt { "Time" }
                                dd {
                                    @match b.wall_s {
                                        Some(w) => { (format!("{w:.3} s wall")) }
                                        None => { "no time" }
                                    }
                                    @if let Some(c) = b.cpu_s {
                                        (format!(", {c:.3} s CPU"))
                                    }
                                }
                                dt { "Toolchain" } dd { (text(&b.toolchain)) }
                                dt { "Identity" } dd { code { (text(&b.identity)) } }
                                dt { "Commands" }
                                dd {
                                    @if b.commands.is_empty() {
                                        "none recorded"
                                    } @else {
                                        pre { code { (inert::block(&b.commands.join("\n"), inert::MAX_TEXT)) } }
                                    }
                                    span.muted { (text(&b.commands_from)) }
                                }
                            }
                            @for f in &b.files {
                                details.source {
                                    summary { code { (text(&f.path)) } " · " (text(&b.verified)) }
                                    @match &f.text {
                                        Ok(source) => { pre { code { (inert::block(source, inert::MAX_SOURCE)) } } }
                                        Err(why) => { p.muted { (text(why)) } }
                                    }
                                }
                            }
                        }
                    }
                    p.back { a href="#table-summary" { "↑ the table" } }
                }
    }
}

/// The `<svg>` element of a standalone SVG document: drops a BOM, an XML
/// declaration, comments and a DOCTYPE before it, none of which belong in
/// HTML.
fn strip_prolog(svg: &str) -> &str {
    let mut s = svg.trim_start_matches('\u{feff}').trim_start();
    loop {
        let end = if s.starts_with("<?") {
            s.find("?>").map(|e| e + 2)
        } else if s.starts_with("<!--") {
            s.find("-->").map(|e| e + 3)
        } else if s.starts_with("<!") {
            s.find('>').map(|e| e + 1)
        } else {
            None
        };
        match end {
            Some(e) => s = s[e..].trim_start(),
            None => return s,
        }
    }
}

const CSS: &str = r#"
:root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0;
  --head: #eef1f4; --zebra: #f6f8fa; --bg: #fff; --link: #0b5cad; }
* { box-sizing: border-box; }
body { margin: 0 auto; padding: 12px 24px 40px; max-width: 1600px; color: var(--fg);
  background: var(--bg); font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
h1 { font-size: 1.45em; margin: 0.3em 0; }
h2 { font-size: 1.15em; margin: 1.4em 0 0.4em; }
h3 { font-size: 1.02em; margin: 1.2em 0 0.2em; }
h4 { font-size: 0.95em; margin: 0.6em 0 0.1em; }
a { color: var(--link); }
.muted, .lead { color: var(--muted); }
/* minmax(0, 1fr), not 1fr: a long command in a <pre> scrolls in its own box
   instead of widening the grid, and with it the page (it made the whole
   report 2,300 px wide, at 1400 px and on a phone alike). */
dl.meta { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 1px 12px;
  margin: 0.5em 0; font-size: 13px; }
dl.meta dt { font-weight: 600; color: var(--muted); }
dl.meta dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
details.details { font-size: 13px; margin: 0.3em 0; }
details.details summary { cursor: pointer; color: var(--link); }
nav.toc ol { display: flex; flex-wrap: wrap; gap: 2px 18px; margin: 0.5em 0; padding: 0;
  list-style: none; font-size: 13px; }
.legend { font-size: 12px; color: var(--muted); margin: 0.4em 0; }
.legend p { margin: 0.2em 0; }
ul.marks { display: flex; flex-wrap: wrap; gap: 2px 14px; list-style: none; padding: 0; margin: 0.2em 0; }
.swatch { display: inline-block; padding: 0 4px; border-radius: 3px; color: var(--fg); }
main, section { min-width: 0; }
.controls { display: flex; flex-wrap: wrap; gap: 4px 16px; font-size: 12px; color: var(--muted);
  margin: 0 0 4px; }
.controls select { font-size: 12px; max-width: 16em; }
/* Wide tables scroll inside their section; the box is also the scroll
   container the sticky header and label columns stick to. */
.scroll { overflow: auto; max-height: 85vh; border: 1px solid var(--line); max-width: 100%;
  width: fit-content; }
table { border-collapse: separate; border-spacing: 0; font-size: 13px; }
th, td { padding: 2px 6px; white-space: nowrap; border-bottom: 1px solid var(--line);
  text-align: left; vertical-align: top; background: var(--bg); }
th + th, td + td { border-left: 1px solid var(--line); }
/* Longer texts wrap (a long version or command line must not widen the
   table off the page); figures and short texts ("2.50 → 2.10") do not. */
td.wrap { white-space: normal; max-width: 15em; overflow-wrap: break-word; }
td.long { white-space: normal; min-width: 11em; max-width: 28em; overflow-wrap: anywhere; }
/* A mark word in a figure's column ("NOT-INSTALLED") may fold at its
   hyphen rather than widen the column. */
td.num.failed { white-space: normal; }
/* The ws table has seventeen columns: its texts (server, runtime,
   library) wrap within a narrow column, so it fits 1400 px (it was
   1,558 px wide in a 1,350 px box). */
table[data-table="ws-summary"] td:not(.num):not(.long) { white-space: normal; min-width: 7em;
  max-width: 10em; overflow-wrap: anywhere; }
/* Cells that may fold when the table is short of room (see `td` in
   html.rs), each part in one piece. */
td.fold { white-space: normal; }
td.fold .part { display: inline-block; white-space: nowrap; }
/* "new: #1 Intel Xeon" may fold too: the column is empty in most rows. */
td.flag-machine { white-space: normal; min-width: 6.5em; }
/* Headers may wrap ("num-comb RAM (KB)" is twice as wide as its figures). */
thead th { position: sticky; top: 0; z-index: 2; background: var(--head); padding: 0;
  vertical-align: bottom; box-shadow: inset 0 -1px var(--line); white-space: normal;
  min-width: 4.2em; max-width: 9em; }
thead th button { all: unset; display: block; padding: 4px 6px; cursor: pointer;
  font-weight: 600; width: 100%; box-sizing: border-box; }
thead th button:focus-visible { outline: 2px solid var(--link); outline-offset: -2px; }
thead th.num button { text-align: right; }
thead th button::after { content: "\2195"; color: #aab; margin-left: 4px; font-weight: 400; }
thead th[aria-sort=ascending] button::after { content: "\25B2"; color: var(--fg); }
thead th[aria-sort=descending] button::after { content: "\25BC"; color: var(--fg); }
/* The label columns stay in view while the table scrolls sideways (the
   script sets each one's offset). */
th.label, td.label { position: sticky; left: 0; z-index: 1; }
thead th.label { z-index: 3; }
/* A label wraps between words when the table is short of room ("Scheme"
   over "(Guile)"): a two-machine 2026 summary, with its Machine and
   normalised total columns, cut its rank at 1400 px. */
td.label { box-shadow: inset -1px 0 var(--line); white-space: normal; }
tbody tr:nth-child(even) td { background: var(--zebra); }
tbody tr:hover td { background: #e6eefc; }
tbody tr:last-child td { border-bottom: 0; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
td .range { display: block; font-size: 0.8em; color: var(--muted); white-space: nowrap; }
td[title] { cursor: help; }
.hide-extra .extra { display: none; }
/* Marks: a colour and a look per kind, so none is mistaken for another. */
td.flagged, .swatch.flagged { background: #ffd866 !important; }
td.failed, .swatch.failed { color: #b3261e; font-weight: 600; }
td.flag-noisy, .swatch.flag-noisy { background: #fff4cc !important;
  border-bottom: 2px dotted #b58900 !important; }
td.flag-partial-cell, .swatch.flag-partial-cell { background: #fff4cc !important; font-style: italic; }
td.flag-wrong, .swatch.flag-wrong { background: #ffd866 !important; }
td.flag-escaped, .swatch.flag-escaped { background: #e4d7f5 !important; }
td.flag-timeout, .swatch.flag-timeout { background: #d9e1f2 !important; color: #1f3b73;
  font-weight: 600; }
td.flag-failed, .swatch.flag-failed { background: #fde7e9 !important; color: #b3261e;
  font-weight: 600; }
td.flag-partial, .swatch.flag-partial { background: repeating-linear-gradient(135deg, #eee 0 4px,
  #f8f8f8 4px 8px) !important; color: #555; font-style: italic; font-weight: 400; }
td.flag-not-run, .swatch.flag-not-run { color: #6a737d !important; font-weight: 400;
  font-style: italic; }
.swatch.flag-not-run { background: #f0f0f0; }
td.flag-machine, .swatch.flag-machine { background: #fce4d6 !important;
  box-shadow: inset 3px 0 #e07b39; }
td.flag-faster, .swatch.flag-faster { background: #c6efce !important; }
td.flag-slower, .swatch.flag-slower { background: #f8cbad !important; }
td.flag-incomparable, .swatch.flag-incomparable { background: #eee !important; color: #555; }
ul.notes { font-size: 12px; color: var(--muted); margin: 0.4em 0; padding-left: 1.4em;
  max-width: 120ch; overflow-wrap: anywhere; }
ul.notes strong { color: var(--fg); font-weight: 600; }
figure { margin: 0; }
figure svg { display: block; max-width: 100%; height: auto; }
.narrow, section.print-details { display: none; }
figcaption { font-size: 12px; color: var(--muted); margin-top: 0.3em; }
section.variant { border-top: 1px solid var(--line); margin-top: 1em; }
section.variant pre { margin: 0.2em 0; padding: 6px 8px; background: var(--zebra);
  border: 1px solid var(--line); overflow-x: auto; font-size: 12px; white-space: pre; }
details.source { margin: 0.3em 0 0.6em; font-size: 13px; }
details.source summary { cursor: pointer; }
p.back { font-size: 12px; }
footer { margin-top: 2em; font-size: 12px; color: var(--muted); }
/* A phone: each row a card of label/figure pairs; the charts' phone
   variant. */
@media (max-width: 640px) {
  body { padding: 8px 10px 32px; font-size: 14px; }
  dl.meta { grid-template-columns: minmax(0, 1fr); }
  dl.meta dd { margin-bottom: 4px; }
  .scroll { overflow: visible; max-height: none; border: 0; width: auto; }
  table, tbody, tr, td { display: block; }
  thead { display: none; }
  /* dense: a full-width cell (a Machine) leaves no hole, so each figure
     still pairs with its ratio or RAM. */
  tbody tr { display: grid; grid-template-columns: 1fr 1fr; grid-auto-flow: row dense;
    gap: 2px 10px; margin: 0 0 8px; padding: 4px 8px 6px; border: 1px solid var(--line);
    border-radius: 6px; }
  tbody tr td, tbody tr:nth-child(even) td { border: 0; padding: 2px 4px; max-width: none;
    text-align: left !important; white-space: normal; background: transparent; }
  td::before { content: attr(data-label); display: block; font-size: 11px; color: var(--muted);
    font-weight: 400; font-style: normal; }
  td.label { grid-column: 1 / -1; position: static; box-shadow: none; font-weight: 600;
    padding-bottom: 0; }
  td.label::before { content: none; }
  td.label + td.label { font-weight: 400; color: var(--muted); padding-top: 0; }
  /* The summary's version and machine take a line each, so each
     benchmark's time and RAM pair up side by side. */
  table[data-table="summary"] td[data-label="Version"],
  table[data-table="summary"] td[data-label="Machine"], td.flag-machine { grid-column: 1 / -1; }
  /* Commands and sources wrap rather than scroll sideways. */
  section.variant pre { white-space: pre-wrap; overflow-wrap: anywhere; }
  td.empty { display: none; }
  td .range { display: inline; margin-left: 6px; }
  .hide-extra .extra { display: none; }
  .wide { display: none; }
  .narrow { display: block; }
  ul.notes { padding-left: 1em; }
}
@media print {
  @page { size: A4 landscape; margin: 8mm; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  body { max-width: none; padding: 0; font-size: 9px; }
  nav.toc, .controls, details.details, .narrow, .extra, p.back { display: none !important; }
  /* The sessions print after the tables (at the top they pushed the
     summary to the second page). */
  section.print-details { display: block; break-before: page; }
  .scroll { overflow: visible; max-height: none; width: auto; border: 0; }
  table { width: 100%; font-size: 8px; }
  th, td { padding: 1px 3px; }
  td.wrap, td.long { max-width: 12em; min-width: 0; }
  thead th, th.label, td.label { position: static; }
  thead th { min-width: 0; padding: 2px 3px; font-weight: 600; }
  thead th.num { text-align: right; }
  /* Chromium paints no form control in a header row it repeats on a
     later page (the repeated rows were blank): printed, the sort button
     is only its text, laid out as the header cell's own. */
  thead th button { display: contents; }
  thead th button::after { content: none; }
  thead { display: table-header-group; }
  tr, .bench { break-inside: avoid; }
  tbody tr:hover td { background: inherit; }
  /* A chart on one page with its title and caption; a tall one (a bar
     per variant and benchmark) at a readable width over several. */
  section.chart h2 { break-after: avoid; }
  section.chart:not(:has(.tall)) { break-inside: avoid; }
  figure .wide svg { width: auto; max-width: 100%; max-height: 165mm; }
  figure .wide.tall svg { width: 75%; max-height: none; }
  /* Chromium pushes an SVG taller than the page to the next one, which
     left a tall chart's title alone on a page: the title goes beside the
     chart's top, in the quarter of the width the chart leaves. */
  section.chart:has(.tall) { break-before: page; position: relative; }
  section.chart:has(.tall) h2 { position: absolute; top: 0; right: 0; margin: 0;
    max-width: 24%; }
  /* "What was measured" as a compact appendix in three columns: per
     benchmark its time, toolchain, identity and commands; the sources
     (on the page behind a click) and the per-variant provenance line are
     left out. */
  section.measured { break-before: page; font-size: 7px; columns: 3; column-gap: 5mm; }
  section.measured > h2, section.measured > p.lead { column-span: all; }
  section.variant { margin-top: 0.4em; }
  section.variant h3 { font-size: 8px; margin: 0.3em 0 0; break-after: avoid; }
  section.variant dl.meta { font-size: inherit; margin: 0; gap: 0 6px; }
  section.variant .from, details.source, .bench dd > span.muted { display: none; }
  .bench { display: grid; grid-template-columns: 5.5em minmax(0, 1fr); }
  .bench h4 { margin: 0; font-size: inherit; }
  section.variant pre { white-space: pre-wrap; font-size: 7px; padding: 0; border: 0;
    background: none; margin: 0; }
}
"#;

// Sorting. Clicking a header sorts its table by that column (again to
// reverse); the "Sort by" list does the same (a phone shows no headers).
// Number columns (data-kind="num") sort by the number in each cell's
// data-v, text columns by data-v as text; a cell without data-v (no value:
// failed, not run, a partial total) sorts after all others in both
// directions, and ties keep the original order (data-i).
//
// A page opened as report.html#sort=<table-id>:<column>:<asc|desc> is sorted
// that way on load (and on a later change of the hash); <column> is the
// 0-based index of the header cell (secondary columns count). The sorted
// table gets data-sorted="<column>:<asc|desc>". The tests use this to
// check the sort in a real browser.
//
// Sticky labels: the label columns (data-labels) get their left offsets
// from the widths of the columns before them, measured after layout, on
// resize and when the secondary columns are switched on or off.
const JS: &str = r#"
(function () {
  "use strict";
  var collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
  function key(td, numeric) {
    if (!td || !td.hasAttribute("data-v")) return null;
    var v = td.getAttribute("data-v");
    if (!numeric) return v;
    var n = parseFloat(v);
    return isNaN(n) ? null : n;
  }
  function sortTable(table, col, dir) {
    var heads = table.tHead.rows[0].cells;
    if (!(col >= 0 && col < heads.length)) return false;
    var numeric = heads[col].getAttribute("data-kind") === "num";
    var sign = dir === "desc" ? -1 : 1;
    var body = table.tBodies[0];
    var rows = Array.prototype.map.call(body.rows, function (tr) {
      return { tr: tr, k: key(tr.cells[col], numeric), i: +tr.getAttribute("data-i") };
    });
    rows.sort(function (a, b) {
      if (a.k === null || b.k === null) {
        if (a.k === null && b.k === null) return a.i - b.i;
        return a.k === null ? 1 : -1;
      }
      var c = numeric ? a.k - b.k : collator.compare(a.k, b.k);
      return c !== 0 ? sign * c : a.i - b.i;
    });
    var frag = document.createDocumentFragment();
    rows.forEach(function (r) { frag.appendChild(r.tr); });
    body.appendChild(frag);
    for (var i = 0; i < heads.length; i++) {
      if (i === col) heads[i].setAttribute("aria-sort", dir === "desc" ? "descending" : "ascending");
      else heads[i].removeAttribute("aria-sort");
    }
    table.setAttribute("data-sorted", col + ":" + dir);
    return true;
  }
  function unsort(table) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) { return +a.getAttribute("data-i") - +b.getAttribute("data-i"); });
    rows.forEach(function (tr) { body.appendChild(tr); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      th.removeAttribute("aria-sort");
    });
    table.removeAttribute("data-sorted");
  }
  function stick(table) {
    var n = +table.getAttribute("data-labels") || 0;
    var first = table.tBodies[0] && table.tBodies[0].rows[0];
    if (n < 2 || !first) return;
    var left = 0;
    for (var c = 0; c < n; c++) {
      var cells = table.querySelectorAll("tr > :nth-child(" + (c + 1) + ")");
      Array.prototype.forEach.call(cells, function (cell) { cell.style.left = left + "px"; });
      left += first.cells[c].getBoundingClientRect().width;
    }
  }
  var tables = document.querySelectorAll("table[data-table]");
  function byId(id) {
    var found = null;
    Array.prototype.forEach.call(tables, function (t) {
      if (t.getAttribute("data-table") === id) found = t;
    });
    return found;
  }
  Array.prototype.forEach.call(tables, function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.querySelector("button").addEventListener("click", function () {
        sortTable(table, col, th.getAttribute("aria-sort") === "ascending" ? "desc" : "asc");
      });
    });
    stick(table);
  });
  Array.prototype.forEach.call(document.querySelectorAll("select[data-sort]"), function (sel) {
    sel.addEventListener("change", function () {
      var table = byId(sel.getAttribute("data-sort"));
      if (!table) return;
      var m = /^(\d+):(asc|desc)$/.exec(sel.value);
      if (m) sortTable(table, +m[1], m[2]); else unsort(table);
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll("input[data-extra]"), function (box) {
    box.addEventListener("change", function () {
      var section = box.closest("section");
      if (section) section.classList.toggle("hide-extra", !box.checked);
      var table = byId(box.getAttribute("data-extra"));
      if (table) stick(table);
    });
  });
  window.addEventListener("resize", function () {
    Array.prototype.forEach.call(tables, stick);
  });
  function fromHash() {
    var h;
    try { h = decodeURIComponent(location.hash); } catch (e) { return; }
    var m = /^#sort=(.*):(\d+):(asc|desc)$/.exec(h);
    if (!m) return;
    Array.prototype.forEach.call(tables, function (table) {
      if (table.getAttribute("data-table") === m[1]) sortTable(table, +m[2], m[3]);
    });
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Bar, BarRow, Column, Kind, Note, Show};
    use std::path::{Path, PathBuf};
    use std::process::{Command, Stdio};
    use std::sync::Mutex;
    use std::time::{Duration, Instant};

    const SVG_NS: &str = "http://www.w3.org/2000/svg";
    const XLINK_NS: &str = "http://www.w3.org/1999/xlink";
    const HOSTILE: &str = "<script>alert('pwn')</script> & \"x\"";

    const LANGS: [&str; 20] = [
        "Rust", "C", "Go", "Zig", "Java", "Kotlin", "Scala", "Python", "PyPy", "Ruby", "Perl",
        "Lua", "LuaJIT", "Haskell", "OCaml", "Racket", "Guile", "Erlang", "Elixir", "Node",
    ];
    const VARIANTS: [&str; 3] = ["", " jit", " opt"];

    fn is_failed(i: usize) -> bool {
        i % 13 == 5 || i % 17 == 9
    }

    /// A summary-like document: 60 rows in no particular order, flagged and
    /// failed cells with notes, a data-only column and a data-only table.
    fn summary_doc() -> Document {
        let mut columns = vec![
            Column::new("Language", "language", Kind::Text, Show::Both),
            Column::new("Command Flags", "flags", Kind::Text, Show::Both),
            Column::new("Version", "version", Kind::Text, Show::Both),
            Column::new("DATAONLY Status", "status", Kind::Text, Show::Data),
            Column::new(
                "assoc (s)",
                "assoc_s",
                Kind::Seconds { decimals: 3 },
                Show::Both,
            ),
            Column::new("assoc RAM (KB)", "assoc_ram_kb", Kind::Kb, Show::Both),
            Column::new(
                "Total (s)",
                "total_s",
                Kind::Seconds { decimals: 3 },
                Show::Both,
            ),
        ];
        columns[6].sum_of = vec![4];
        let mut rows = Vec::new();
        for i in 0..60 {
            let name = format!("{}{}", LANGS[i % 20], VARIANTS[i / 20]);
            let flags = match i % 4 {
                0 => "-O2".to_string(),
                1 => "-O3 -march=native -flto -fno-plt".to_string(),
                2 => String::new(),
                _ => format!("--release --features simd,{}", name.to_lowercase()),
            };
            let secs = ((i * 37) % 61) as f64 * 0.137 + 0.05;
            let kb = 1000 + ((i * 7919) % 50_000) as i64;
            let (assoc, ram, total) = if i % 13 == 5 {
                let note = Some("exit 1: <panic> \"boom\" & more".to_string());
                (
                    Entry::empty("FAILED").marked(Mark::Failed, note.clone()),
                    Entry::empty("-").marked(Mark::Failed, note),
                    Entry::empty("-").marked(Mark::Failed, None),
                )
            } else if i % 17 == 9 {
                let note = Some("not installed".to_string());
                (
                    Entry::empty("not run").marked(Mark::Failed, note.clone()),
                    Entry::empty("").marked(Mark::Failed, note),
                    Entry::number(0.5, "0.50 *")
                        .marked(Mark::Flagged, Some("partial: assoc not run".into())),
                )
            } else if i % 11 == 3 {
                (
                    Entry::number(secs, format!("{secs:.3} (exit 25)"))
                        .marked(Mark::Flagged, Some("exit 25".into())),
                    Entry::int(kb, kb.to_string()),
                    Entry::number(secs, format!("{secs:.3} *"))
                        .marked(Mark::Flagged, Some("exit 25".into())),
                )
            } else {
                (
                    Entry::number(secs, format!("{secs:.3}")),
                    Entry::int(kb, kb.to_string()),
                    Entry::number(secs, format!("{secs:.3}")),
                )
            };
            rows.push(vec![
                Entry::text(name),
                Entry::text(flags),
                Entry::text(format!("1.{}.{}", 60 + i % 40, i % 3)),
                Entry::text("DATAONLY-ok"),
                assoc,
                ram,
                total,
            ]);
        }
        let summary = Table {
            id: "summary".into(),
            title: "Summary <best of 3> & ranks".into(),
            columns,
            rows,
            notes: vec![
                "* Elixir: exit 1: <panic> & more".into(),
                "* Node opt: not installed".into(),
            ],
            data_only: false,
            labels: 2,
            streamed: None,
        };
        let runs = Table {
            id: "runs".into(),
            title: "Every run DATAONLY".into(),
            columns: vec![Column::new("Run", "run", Kind::Count, Show::Both)],
            rows: vec![vec![Entry::int(1, "DATAONLY-row")]],
            notes: vec![],
            data_only: true,
            labels: 0,
            streamed: None,
        };
        let chart = BarChart {
            id: "assoc".into(),
            title: "assoc time <by> language".into(),
            axis: "seconds".into(),
            log: false,
            series: vec!["assoc".into()],
            rows: vec![
                BarRow {
                    label: "Rust".into(),
                    bars: vec![Bar::plain(0.4)],
                },
                BarRow {
                    label: "Elixir".into(),
                    bars: vec![Bar {
                        value: None,
                        mark: Mark::Failed,
                        label: Some("FAILED".into()),
                        ..Default::default()
                    }],
                },
            ],
            caption: "Red: failed & not run".into(),
            ..Default::default()
        };
        Document {
            title: "langbench results <2026> & co".into(),
            meta: vec![
                ("Machine".into(), HOSTILE.into()),
                ("Sizes".into(), "assoc n=1000000".into()),
                ("Sessions".into(), "2026-11-30T10:00".into()),
                (
                    "Versions source".into(),
                    "`--version` of each toolchain".into(),
                ),
            ],
            tables: vec![summary, runs],
            charts: vec![chart],
            ..Default::default()
        }
    }

    fn render(doc: &Document) -> String {
        String::from_utf8(Html.render(doc).unwrap()).unwrap()
    }

    /// The page is written in pieces around a marker (`HOLE`); a document
    /// whose own strings hold the marker's text must neither split the
    /// page there nor lose a row (attack: a variant named after it).
    #[test]
    fn pages_are_streamed_unchanged() {
        let mut doc = summary_doc();
        doc.title = format!("t {HOLE}");
        doc.meta.push((HOLE.into(), HOLE.into()));
        doc.tables[0].title = HOLE.into();
        doc.tables[0].rows[3][0] = Entry::text(HOLE);
        doc.tables[0].notes.push(Note::new("", HOLE));
        // What was measured, streamed variant by variant: a source, a
        // note and a label that hold the marker, and a second variant
        // after them.
        let bench = crate::MeasuredBench {
            bench: "assoc".into(),
            files: vec![crate::SourceFile {
                path: "programs/assoc/x.c".into(),
                text: Ok(format!("int main() {{ /* {HOLE} */ }}")),
            }],
            ..Default::default()
        };
        doc.measured = vec![
            crate::Measured {
                variant: "one".into(),
                label: HOLE.into(),
                note: Some(HOLE.into()),
                benches: vec![bench.clone()],
                ..Default::default()
            },
            crate::Measured {
                variant: "two".into(),
                label: "Two".into(),
                benches: vec![bench],
                ..Default::default()
            },
        ];
        let rows: usize = doc
            .tables
            .iter()
            .filter(|t| !t.data_only)
            .map(|t| t.rows.len())
            .sum();
        let html = render(&doc);
        assert!(!html.contains(HOLE), "a document string came out unescaped");
        let escaped = "&lt;!--langbench:streamed--&gt;";
        // Title (head, h1), fact (name, value), table title (contents,
        // h2), cell (text, sort value), note: each where it belongs.
        // ... and label, note, two sources.
        assert_eq!(html.matches(escaped).count(), 13, "{html}");
        assert_eq!(html.matches("<tr data-i=").count(), rows);
        assert_eq!(html.matches("<section class=\"variant\"").count(), 2);
        let (one, two) = (
            html.find(r#"id="variant-one""#),
            html.find(r#"id="variant-two""#),
        );
        assert!(
            one.is_some() && one < two,
            "the sections, once each, in order"
        );
        assert!(html.find("</footer>") > two, "the page goes on after them");
        assert!(
            html.ends_with("</script></body></html>"),
            "{}",
            &html[html.len() - 200..]
        );
        assert_eq!(
            html.matches("<tbody>").count(),
            html.matches("</tbody>").count()
        );
    }

    #[test]
    fn no_external_resources() {
        let html = render(&summary_doc());
        assert!(html.starts_with("<!DOCTYPE html>"));
        let lower = html
            .replace(SVG_NS, "")
            .replace(XLINK_NS, "")
            .to_lowercase();
        for bad in [
            "http://", "https://", "<link", "src=", "@import", "url(", "<img", "<iframe",
            "<object", "<embed",
        ] {
            assert!(!lower.contains(bad), "page contains {bad:?}");
        }
        assert!(html.contains("<svg"), "chart not inlined");
        assert!(!html.contains("<?xml"));
    }

    #[test]
    fn document_text_is_escaped() {
        let html = render(&summary_doc());
        assert_eq!(
            html.matches("<script").count(),
            1,
            "only the page's own script"
        );
        assert!(html.contains("&lt;script&gt;alert('pwn')&lt;/script&gt; &amp; &quot;x&quot;"));
        assert!(html.contains("<title>langbench results &lt;2026&gt; &amp; co</title>"));
        assert!(html.contains("<h2>Summary &lt;best of 3&gt; &amp; ranks</h2>"));
        assert!(html.contains(r#"title="exit 1: &lt;panic&gt; &quot;boom&quot; &amp; more""#));
        assert!(html.contains("<li>* Elixir: exit 1: &lt;panic&gt; &amp; more</li>"));
        assert!(html.contains("<h2>assoc time &lt;by&gt; language</h2>"));
        assert!(html.contains("<figcaption>Red: failed &amp; not run</figcaption>"));
    }

    #[test]
    fn shows_display_columns_and_human_tables_only() {
        let html = render(&summary_doc());
        assert!(
            !html.contains("DATAONLY"),
            "a data-only column or table leaked"
        );
        let heads: Vec<usize> = [
            "Language",
            "Command Flags",
            "Version",
            "assoc (s)",
            "assoc RAM (KB)",
            "Total (s)",
        ]
        .iter()
        .map(|h| {
            html.find(&format!("<button type=\"button\">{h}</button>"))
                .unwrap()
        })
        .collect();
        assert!(
            heads.windows(2).all(|w| w[0] < w[1]),
            "headers out of order"
        );
        assert_eq!(html.matches("<tr data-i=").count(), 60);
        assert!(html.contains(r#"<th class="num" scope="col" data-kind="num">"#));
        assert!(html.contains(r#"<th scope="col" data-kind="text">"#));
        // A marked figure's words may fold ("not run"); its reason in
        // parentheses folds as one piece.
        assert!(html.contains(
            r#"<td class="num failed fold" title="not installed" data-label="assoc (s)">not run</td>"#
        ));
        assert!(html.contains(r#"<td class="num flagged fold" title="exit 25" data-v="#));
        assert!(html.contains(r#"<span class="part">(exit 25)</span>"#));
        // The label columns are marked for sticking, and every cell names
        // its column for a phone's card.
        assert!(html.contains(r#"<table data-table="summary" data-labels="2">"#));
        assert!(html.contains(r#"<th class="label" scope="col" data-kind="text">"#));
        // Table of contents and anchors.
        assert!(html.contains(r##"href="#table-summary""##));
        assert!(html.contains(r#"id="table-summary""#));
        assert!(html.contains(r##"href="#chart-assoc""##));
        assert!(html.contains(r#"id="chart-assoc""#));
    }

    #[test]
    fn chart_title_and_caption_are_shown_once() {
        let doc = summary_doc();
        let html = render(&doc);
        let c = &doc.charts[0];
        let esc = |s: &str| {
            s.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
        };
        // The section heading and figcaption; the inline SVG draws neither
        // (its <title> element, a tooltip, is not shown on the page).
        assert_eq!(
            html.matches(&format!("<h2>{}</h2>", esc(&c.title))).count(),
            1
        );
        assert_eq!(html.matches(&esc(&c.caption)).count(), 1);
        assert!(!html.contains("class=\"title\""));
        assert!(!html.contains("class=\"caption\""));
        assert!(html.contains("<rect class=\"bar\""));
        // The standalone SVG keeps both.
        let svg = super::super::svg::render(c);
        assert!(svg.contains("class=\"title\"") && svg.contains("class=\"caption\""));
    }

    #[test]
    fn long_text_cells_wrap() {
        let mut doc = summary_doc();
        let long = "missing node_modules/uWebSockets.js; install: npm install \
                    uNetworking/uWebSockets.js#v20.51.0 (fetches from GitHub)";
        doc.tables[0].rows[0][1] = Entry::text(long);
        let html = render(&doc);
        let at = html.find(long).expect("long cell");
        let open = html[..at].rfind("<td").unwrap();
        assert!(
            html[open..at].starts_with("<td class=\"long label\""),
            "{}",
            &html[open..at]
        );
        assert_eq!(cell_class(false, Mark::Plain, "short"), None);
        assert_eq!(cell_class(false, Mark::Failed, long), Some("failed long"));
        assert_eq!(cell_class(true, Mark::Flagged, long), Some("num flagged"));
    }

    #[test]
    fn sort_values() {
        assert_eq!(
            sort_value(&Entry::number(1.5, "1.50")).as_deref(),
            Some("1.5")
        );
        assert_eq!(sort_value(&Entry::int(-3, "-3")).as_deref(), Some("-3"));
        assert_eq!(sort_value(&Entry::text("Go")).as_deref(), Some("Go"));
        assert_eq!(sort_value(&Entry::empty("-")), None);
        assert_eq!(sort_value(&Entry::number(f64::NAN, "?")), None);
        let failed = Entry::number(2.0, "2 ?").marked(Mark::Failed, None);
        assert_eq!(sort_value(&failed), None);
        let flagged = Entry::number(2.0, "2 *").marked(Mark::Flagged, None);
        assert_eq!(sort_value(&flagged).as_deref(), Some("2"));
    }

    #[test]
    fn svg_prolog_is_stripped() {
        let svg = "\u{feff}<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- made here -->\n\
                   <!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"x\">\n<svg><g/></svg>\n";
        assert_eq!(strip_prolog(svg), "<svg><g/></svg>\n");
        assert_eq!(strip_prolog("<svg/>"), "<svg/>");
    }

    // ---- In a real browser -------------------------------------------------

    /// One browser at a time: the machine has few cores.
    static BROWSER: Mutex<()> = Mutex::new(());

    /// Runs headless Chromium (`$CHROMIUM`, else `chromium`) on `url` with a
    /// fresh profile, stdout to a file; returns that stdout.
    fn chromium(dir: &Path, args: &[&str], url: &str) -> String {
        let _one = BROWSER.lock().unwrap_or_else(|e| e.into_inner());
        let bin = std::env::var("CHROMIUM").unwrap_or_else(|_| "chromium".into());
        let profile = tempfile::tempdir_in(dir).unwrap();
        let stdout = tempfile::NamedTempFile::new_in(dir).unwrap();
        let out = stdout.reopen().unwrap();
        let mut child = Command::new(&bin)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--disable-extensions",
                "--hide-scrollbars",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(args)
            .arg(url)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start headless Chromium `{bin}` ({e}): the HTML report tests need it \
                     (apt-get install chromium, or set CHROMIUM to its path)"
                )
            });
        let start = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if start.elapsed() > Duration::from_secs(120) {
                let _ = child.kill();
                let _ = child.wait();
                panic!("Chromium did not finish within 120 s on {url}");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(status.success(), "Chromium failed ({status}) on {url}");
        std::fs::read_to_string(stdout.path()).unwrap()
    }

    fn write_page(dir: &Path, doc: &Document) -> PathBuf {
        let path = dir.join(FILE);
        std::fs::write(&path, Html.render(doc).unwrap()).unwrap();
        path
    }

    fn file_url(path: &Path) -> String {
        format!("file://{}", path.canonicalize().unwrap().display())
    }

    #[test]
    fn browser_screenshot() {
        let dir = tempfile::tempdir().unwrap();
        let page = write_page(dir.path(), &summary_doc());
        let shot = dir.path().join("shot.png");
        chromium(
            dir.path(),
            &[
                &format!("--screenshot={}", shot.display()),
                "--window-size=1400,2000",
            ],
            &file_url(&page),
        );
        let png = std::fs::read(&shot).expect("Chromium wrote no screenshot");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
        let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
        let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
        assert_eq!((width, height), (1400, 2000));
        // A blank page of that size compresses to a few KB; 60 rows of text,
        // zebra stripes and marks to far more.
        assert!(
            png.len() > 40_000,
            "screenshot looks empty: {} bytes",
            png.len()
        );
        // To look at it: LANGBENCH_HTML_OUT=dir cargo test --lib export::html
        if let Ok(out) = std::env::var("LANGBENCH_HTML_OUT") {
            std::fs::create_dir_all(&out).unwrap();
            std::fs::copy(&page, Path::new(&out).join(FILE)).unwrap();
            std::fs::copy(&shot, Path::new(&out).join("report.png")).unwrap();
        }
    }

    /// The value of attribute `name` in the opening tag `tag`.
    fn attr(tag: &str, name: &str) -> Option<String> {
        let pat = format!(" {name}=\"");
        let start = tag.find(&pat)? + pat.len();
        let len = tag[start..].find('"')?;
        Some(
            tag[start..start + len]
                .replace("&quot;", "\"")
                .replace("&amp;", "&"),
        )
    }

    /// The rows of table `id` in the dumped DOM, in order: each row's
    /// `data-i` and the `data-v` of its `col`-th cell.
    fn dom_rows(dom: &str, id: &str, col: usize) -> (String, Vec<(usize, Option<String>)>) {
        let at = dom
            .find(&format!("<table data-table=\"{id}\""))
            .unwrap_or_else(|| panic!("no table {id} in the DOM"));
        let table_tag = &dom[at..at + dom[at..].find('>').unwrap()];
        let sorted = attr(table_tag, "data-sorted").unwrap_or_default();
        let body_start = at + dom[at..].find("<tbody>").unwrap();
        let body = &dom[body_start..body_start + dom[body_start..].find("</tbody>").unwrap()];
        let rows = body
            .split("<tr")
            .skip(1)
            .map(|tr| {
                let i = attr(&tr[..tr.find('>').unwrap()], "data-i").unwrap();
                let td = tr.split("<td").nth(col + 1).expect("row too short");
                let td_tag = &td[..td.find('>').unwrap()];
                (i.parse().unwrap(), attr(td_tag, "data-v"))
            })
            .collect();
        (sorted, rows)
    }

    /// Row order the page must produce: by `key`, cells without one last,
    /// ties in document order.
    fn expected<K: PartialOrd>(
        rows: &[Vec<Entry>],
        key: impl Fn(&Entry) -> Option<K>,
        col: usize,
        desc: bool,
    ) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..rows.len()).collect();
        idx.sort_by(|&a, &b| {
            let (ka, kb) = (key(&rows[a][col]), key(&rows[b][col]));
            let ord = match (&ka, &kb) {
                (None, None) => std::cmp::Ordering::Equal,
                (None, _) => std::cmp::Ordering::Greater,
                (_, None) => std::cmp::Ordering::Less,
                (Some(x), Some(y)) => {
                    let o = x.partial_cmp(y).unwrap();
                    if desc { o.reverse() } else { o }
                }
            };
            ord.then(a.cmp(&b))
        });
        idx
    }

    #[test]
    fn browser_sorts_from_hash() {
        let doc = summary_doc();
        let rows = &doc.tables[0].rows;
        let dir = tempfile::tempdir().unwrap();
        let url = file_url(&write_page(dir.path(), &doc));
        let dump = |hash: &str| {
            chromium(
                dir.path(),
                &["--dump-dom", "--virtual-time-budget=2000"],
                &format!("{url}#sort={hash}"),
            )
        };
        let failed: Vec<usize> = (0..60).filter(|&i| is_failed(i)).collect();
        assert!(failed.len() >= 5);

        // Display column 3 is `assoc (s)` (raw column 4: the data-only
        // Status column is not counted).
        let (sorted, got) = dom_rows(&dump("summary:3:asc"), "summary", 3);
        assert_eq!(sorted, "3:asc", "the page's script did not sort");
        let order: Vec<usize> = got.iter().map(|r| r.0).collect();
        assert_eq!(order, expected(rows, Entry::as_f64, 4, false));
        assert_ne!(
            order,
            (0..60).collect::<Vec<_>>(),
            "document was already sorted"
        );
        let values: Vec<f64> = got
            .iter()
            .filter_map(|r| r.1.as_deref())
            .map(|v| v.parse().unwrap())
            .collect();
        assert!(
            values.windows(2).all(|w| w[0] <= w[1]),
            "not ascending: {values:?}"
        );
        let tail: Vec<usize> = order[60 - failed.len()..].to_vec();
        assert!(
            tail.iter().all(|&i| is_failed(i)),
            "failed cells not last: {order:?}"
        );
        assert!(got[60 - failed.len()..].iter().all(|r| r.1.is_none()));

        // Descending: failed cells still last.
        let (sorted, got) = dom_rows(&dump("summary:4:desc"), "summary", 4);
        assert_eq!(sorted, "4:desc");
        let order: Vec<usize> = got.iter().map(|r| r.0).collect();
        assert_eq!(order, expected(rows, Entry::as_f64, 5, true));
        assert!(order[60 - failed.len()..].iter().all(|&i| is_failed(i)));

        // A text column, descending.
        let (sorted, got) = dom_rows(&dump("summary:0:desc"), "summary", 0);
        assert_eq!(sorted, "0:desc");
        let order: Vec<usize> = got.iter().map(|r| r.0).collect();
        let lower = |c: &Entry| Some(c.text.to_lowercase());
        assert_eq!(order, expected(rows, lower, 0, true));
        assert_eq!(got[0].1.as_deref(), Some("Zig opt"));
    }
}
