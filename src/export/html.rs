//! The report as one self-contained HTML page (`report.html`): the meta facts,
//! every human table (sortable by clicking a header) and every chart as
//! inline SVG. CSS and JS are inline too, so the file opens from disk with no
//! network and can be mailed or archived as it is.
//!
//! Templating is `maud`: every string from the [`Document`] is escaped by the
//! `html!` macro; the only unescaped inserts are the constant CSS and JS
//! below and the SVG that [`super::svg::render`] returns.

use anyhow::Result;
use maud::{DOCTYPE, Markup, PreEscaped, html};

use super::Exporter;
use super::document::{BarChart, Cell, Document, Mark, Table, Value};

/// File name of the page in the store.
pub const FILE: &str = "report.html";

/// Renders a [`Document`] as one self-contained HTML5 page.
pub struct Html;

impl Exporter for Html {
    fn render(&self, doc: &Document) -> Result<Vec<u8>> {
        Ok(page(doc).into_string().into_bytes())
    }
}

/// Anchor of a table's section (tables and charts may share an id).
fn table_anchor(t: &Table) -> String {
    format!("table-{}", t.id)
}

fn chart_anchor(c: &BarChart) -> String {
    format!("chart-{}", c.id)
}

fn page(doc: &Document) -> Markup {
    let tables: Vec<&Table> = doc.tables.iter().filter(|t| !t.data_only).collect();
    let has_marks = tables
        .iter()
        .any(|t| t.rows.iter().flatten().any(|c| c.mark != Mark::Plain));
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="generator" content="langbench";
                title { (doc.title) }
                style { (PreEscaped(CSS)) }
            }
            body {
                header {
                    h1 { (doc.title) }
                    @if !doc.meta.is_empty() {
                        dl.meta {
                            @for (k, v) in &doc.meta {
                                dt { (k) }
                                dd { (v) }
                            }
                        }
                    }
                    @if !tables.is_empty() || !doc.charts.is_empty() {
                        nav.toc aria-label="Contents" {
                            ol {
                                @for t in &tables {
                                    li { a href={ "#" (table_anchor(t)) } { (t.title) } }
                                }
                                @for c in &doc.charts {
                                    li { a href={ "#" (chart_anchor(c)) } { (c.title) } }
                                }
                            }
                        }
                    }
                    @if !tables.is_empty() {
                        p.legend {
                            "Click a column header to sort (again to reverse)."
                            @if has_marks {
                                " " span.flagged { "Amber" } ": a figure that is not a plain correct one; "
                                span.failed { "red" } ": no figure. Hover a marked cell for why."
                            }
                        }
                    }
                }
                main {
                    @for t in &tables { (table(t)) }
                    @for c in &doc.charts { (chart(c)) }
                }
                script { (PreEscaped(JS)) }
            }
        }
    }
}

fn table(t: &Table) -> Markup {
    let cols = t.display_columns();
    html! {
        section.table id=(table_anchor(t)) {
            h2 { (t.title) }
            div.scroll {
                table data-table=(t.id) {
                    thead {
                        tr {
                            @for &i in &cols {
                                @let col = &t.columns[i];
                                @let numeric = col.kind.is_numeric();
                                th.num[numeric] scope="col"
                                    data-kind=(if numeric { "num" } else { "text" }) {
                                    button type="button" { (col.header) }
                                }
                            }
                        }
                    }
                    tbody {
                        @for (r, row) in t.rows.iter().enumerate() {
                            tr data-i=(r) {
                                @for &i in &cols {
                                    @let cell = row.get(i);
                                    @let numeric = t.columns[i].kind.is_numeric();
                                    @if let Some(cell) = cell {
                                        td.num[numeric]
                                            .flagged[cell.mark == Mark::Flagged]
                                            .failed[cell.mark == Mark::Failed]
                                            title=[cell.note.as_deref()]
                                            data-v=[sort_value(cell)] { (cell.text) }
                                    } @else {
                                        td {}
                                    }
                                }
                            }
                        }
                    }
                }
            }
            @if !t.notes.is_empty() {
                ul.notes {
                    @for n in &t.notes { li { (n) } }
                }
            }
        }
    }
}

/// What the page's script sorts a cell by; `None` (no attribute) for a cell
/// with no value, which sorts after every cell with one.
fn sort_value(cell: &Cell) -> Option<String> {
    if cell.mark == Mark::Failed {
        return None;
    }
    match &cell.value {
        Value::Empty => None,
        // `Display` for f64 never uses an exponent; JS `parseFloat` reads it.
        Value::Number(v) if v.is_finite() => Some(v.to_string()),
        Value::Number(_) => None,
        Value::Int(v) => Some(v.to_string()),
        Value::Text(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
    }
}

fn chart(c: &BarChart) -> Markup {
    let svg = super::svg::render(c);
    html! {
        section.chart id=(chart_anchor(c)) {
            h2 { (c.title) }
            figure {
                // The SVG renderer's output is trusted markup (it escapes its
                // own labels); inlined so the page needs no other file.
                (PreEscaped(strip_prolog(&svg)))
                @if !c.caption.is_empty() {
                    figcaption { (c.caption) }
                }
            }
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
  --head: #eef1f4; --zebra: #f6f8fa; --flag: #ffd866; --fail: #c62828; --link: #0b5cad; }
* { box-sizing: border-box; }
body { margin: 0 auto; padding: 12px 24px 40px; max-width: 1600px; color: var(--fg);
  background: #fff; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
h1 { font-size: 1.5em; margin: 0.3em 0; }
h2 { font-size: 1.15em; margin: 1.4em 0 0.4em; }
a { color: var(--link); }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 1px 12px; margin: 0.5em 0;
  font-size: 13px; }
dl.meta dt { font-weight: 600; color: var(--muted); }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
nav.toc ol { display: flex; flex-wrap: wrap; gap: 2px 18px; margin: 0.5em 0; padding: 0;
  list-style: none; font-size: 13px; }
p.legend { font-size: 12px; color: var(--muted); margin: 0.4em 0; }
p.legend span { padding: 0 3px; }
main, section { min-width: 0; }
/* Wide tables scroll inside their section; the box is also the scroll
   container the sticky header sticks to. */
.scroll { overflow: auto; max-height: 85vh; border: 1px solid var(--line); max-width: 100%;
  width: max-content; }
table { border-collapse: separate; border-spacing: 0; font-size: 13px; }
th, td { padding: 2px 8px; white-space: nowrap; border-bottom: 1px solid var(--line);
  text-align: left; }
th + th, td + td { border-left: 1px solid var(--line); }
thead th { position: sticky; top: 0; z-index: 1; background: var(--head); padding: 0;
  vertical-align: bottom; }
thead th button { all: unset; display: block; padding: 4px 8px; cursor: pointer;
  font-weight: 600; width: 100%; box-sizing: border-box; }
thead th button:focus-visible { outline: 2px solid var(--link); outline-offset: -2px; }
thead th.num button { text-align: right; }
thead th button::after { content: "\2195"; color: #aab; margin-left: 4px; font-weight: 400; }
thead th[aria-sort=ascending] button::after { content: "\25B2"; color: var(--fg); }
thead th[aria-sort=descending] button::after { content: "\25BC"; color: var(--fg); }
tbody tr:nth-child(even) td { background: var(--zebra); }
tbody tr:hover td { background: #e6eefc; }
tbody tr:last-child td { border-bottom: 0; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
td.flagged, tbody tr td.flagged, .legend .flagged { background: var(--flag); }
td.failed, .legend .failed { color: var(--fail); font-weight: 600; }
td[title] { cursor: help; text-decoration: underline dotted; text-underline-offset: 2px; }
ul.notes { font-size: 12px; color: var(--muted); margin: 0.4em 0; padding-left: 1.4em; }
figure { margin: 0; }
figure svg { display: block; max-width: 100%; height: auto; }
figcaption { font-size: 12px; color: var(--muted); margin-top: 0.3em; }
@media print {
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  body { max-width: none; padding: 0; font-size: 11px; }
  nav.toc, p.legend { display: none; }
  .scroll { overflow: visible; max-height: none; width: auto; border: 0; }
  thead th { position: static; }
  thead th button::after { content: none; }
  thead { display: table-header-group; }
  tr, figure { break-inside: avoid; }
  td[title] { text-decoration: none; }
  tbody tr:hover td { background: inherit; }
}
"#;

// Sorting. Clicking a header sorts its table by that column (again to
// reverse). Number columns (data-kind="num") sort by the number in each
// cell's data-v, text columns by data-v as text; a cell without data-v (no
// value: failed, not run) sorts after all others in both directions, and ties
// keep the original order (data-i).
//
// A page opened as report.html#sort=<table-id>:<column>:<asc|desc> is sorted
// that way on load (and on a later change of the hash); <column> is the
// 0-based index among the columns shown, i.e. the n-th header cell. The
// sorted table gets data-sorted="<column>:<asc|desc>". The tests use this to
// check the sort in a real browser.
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
  var tables = document.querySelectorAll("table[data-table]");
  Array.prototype.forEach.call(tables, function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.querySelector("button").addEventListener("click", function () {
        sortTable(table, col, th.getAttribute("aria-sort") === "ascending" ? "desc" : "asc");
      });
    });
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
