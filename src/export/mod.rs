//! Files derived from the stored records. Every table (summary, runs, ws,
//! compare) is built once as a [`Document`] and rendered by one module per
//! format behind [`Exporter`] (terminal and SVG charts are rendered the same
//! way, without the trait: they are not one file per document). The files
//! are rewritten (atomically) after every run, so they are always current,
//! and `langbench report DIR` rewrites them from the records alone.

pub mod charts;
pub mod csv;
pub mod document;
pub mod html;
pub mod json;
pub mod markdown;
pub mod runs;
pub mod svg;
pub mod terminal;
#[cfg(test)]
mod tests;
pub mod xlsx;

use anyhow::Result;

use crate::report::Summary;
use crate::store::Store;
use crate::ws;

pub use document::{
    Bar, BarChart, BarRow, Cell, Column, Document, Flag, Kind, Mark, Measured, MeasuredBench, Note,
    Show, SourceFile, Table, Unit, Value,
};

/// One output format: renders a [`Document`] to the bytes of one file.
pub trait Exporter {
    fn render(&self, doc: &Document) -> Result<Vec<u8>>;
}

pub const SUMMARY_MD: &str = "summary.md";
pub const SUMMARY_CSV: &str = "summary.csv";
pub const RUNS_CSV: &str = "runs.csv";
pub const RESULTS_JSON: &str = "results.json";
pub const WS_MD: &str = "ws-summary.md";
pub const WS_CSV: &str = "ws-summary.csv";
pub const WS_JSON: &str = "ws.json";
pub const CHARTS_DIR: &str = "charts";
pub const XLSX: &str = "results.xlsx";

/// Writes every chart of `doc` as `charts/<id>.svg` under the store.
pub fn write_charts(store: &Store, doc: &Document) -> Result<()> {
    if doc.charts.is_empty() {
        return Ok(());
    }
    std::fs::create_dir_all(store.dir().join(CHARTS_DIR))?;
    for c in &doc.charts {
        store.write_derived(
            &format!("{CHARTS_DIR}/{}.svg", c.id),
            svg::render(c).as_bytes(),
        )?;
    }
    Ok(())
}

/// The whole results directory as one document: the CPU summary with every
/// run, and the ws table, whichever the directory holds.
pub struct Derived {
    pub summary: Option<Summary>,
    pub report: Document,
    pub warnings: Vec<String>,
}

/// Rewrites every derived file of the store from its records.
pub fn write_all(store: &Store) -> Result<Derived> {
    write_all_with(store, crate::report::View::default())
}

/// [`write_all`] with rendering options (`--spread`, `--noise-threshold`).
pub fn write_all_with(store: &Store, view: crate::report::View) -> Result<Derived> {
    let stored = store.load()?;
    let (ws_records, ws_warnings) = ws::report::load(store)?;
    let mut warnings = stored.warnings.clone();
    warnings.extend(ws_warnings);
    let mut report = Document {
        title: "langbench results".into(),
        ..Default::default()
    };
    let summary = (!stored.runs.is_empty()).then(|| Summary::from_stored(&stored).view(view));
    if let Some(s) = &summary {
        let doc = s.document();
        store.write_derived(SUMMARY_MD, &markdown::Markdown.render(&doc)?)?;
        store.write_derived(SUMMARY_CSV, &csv::Csv.render(&doc)?)?;
        let runs = runs::table(&stored, s);
        store.write_derived(RUNS_CSV, &csv::table(&runs)?)?;
        store.write_derived(RESULTS_JSON, &json::results(&stored, s)?)?;
        report.meta.extend(doc.meta);
        report.tables.extend(doc.tables);
        report.tables.push(runs);
        report.charts.extend(doc.charts);
    }
    if !ws_records.is_empty() {
        let latest = ws::report::latest(&ws_records);
        let doc = ws::report::document(&latest);
        store.write_derived(WS_MD, &markdown::Markdown.render(&doc)?)?;
        store.write_derived(WS_CSV, &csv::Csv.render(&doc)?)?;
        let mut json = serde_json::to_vec_pretty(&ws_records)?;
        json.push(b'\n');
        store.write_derived(WS_JSON, &json)?;
        if summary.is_none() {
            report.title = doc.title.clone();
        }
        report.meta.extend(
            doc.meta
                .into_iter()
                .map(|(k, v)| (format!("ws-echo {k}"), v)),
        );
        report.tables.extend(doc.tables);
        report.charts.extend(doc.charts);
    }
    write_charts(store, &report)?;
    if !report.tables.is_empty() {
        store.write_derived(html::FILE, &html::Html.render(&report)?)?;
        store.write_derived(XLSX, &xlsx::Xlsx.render(&report)?)?;
    }
    Ok(Derived {
        summary,
        report,
        warnings,
    })
}

/// `langbench report DIR`: rewrites the derived files of an existing results
/// directory that holds records.
pub fn rewrite(dir: &std::path::Path, view: crate::report::View) -> Result<Derived> {
    anyhow::ensure!(
        dir.is_dir(),
        "{} is not a results directory (no such directory)",
        dir.display()
    );
    anyhow::ensure!(
        [crate::store::RUNS, ws::WS_RECORDS]
            .iter()
            .any(|f| dir.join(f).is_file()),
        "{} holds no records ({} or {}): nothing to report",
        dir.display(),
        crate::store::RUNS,
        ws::WS_RECORDS
    );
    let store = Store::open(dir)?;
    let _lock = store.lock()?;
    write_all_with(&store, view)
}

/// `compare --out DIR`: the comparison in every format.
pub fn write_comparison(dir: &std::path::Path, doc: &Document) -> Result<()> {
    let store = Store::open(dir)?;
    store.write_derived("compare.md", &markdown::Markdown.render(doc)?)?;
    for t in &doc.tables {
        store.write_derived(&format!("{}.csv", t.id), &csv::table(t)?)?;
    }
    store.write_derived("compare.xlsx", &xlsx::Xlsx.render(doc)?)?;
    store.write_derived("compare.html", &html::Html.render(doc)?)?;
    write_charts(&store, doc)
}

/// `langbench report DIR`: [`rewrite`], then the tables on the terminal,
/// the warnings, and what was rewritten.
pub fn report_command(
    dir: &std::path::Path,
    view: crate::report::View,
) -> Result<std::process::ExitCode> {
    let derived = rewrite(dir, view)?;
    print!("{}", terminal::document(&derived.report));
    for w in &derived.warnings {
        eprintln!("warning: {w}");
    }
    println!("Rewrote the derived files of {}", dir.display());
    Ok(std::process::ExitCode::SUCCESS)
}
