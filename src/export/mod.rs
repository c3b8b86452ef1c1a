//! Files derived from the stored records, one module per format. They are
//! rewritten (atomically) after every run, so they are always current.

pub mod csv;
pub mod document;
pub mod json;
pub mod markdown;
pub mod svg;
pub mod xlsx;

use anyhow::Result;

use crate::report::Summary;
use crate::store::{Store, Stored};

pub use document::{Bar, BarChart, BarRow, Cell, Column, Document, Kind, Mark, Show, Table, Value};

/// One output format: renders a [`Document`] to the bytes of one file.
pub trait Exporter {
    fn render(&self, doc: &Document) -> Result<Vec<u8>>;
}

pub const SUMMARY_MD: &str = "summary.md";
pub const SUMMARY_CSV: &str = "summary.csv";
pub const RUNS_CSV: &str = "runs.csv";
pub const RESULTS_JSON: &str = "results.json";

/// Rewrites every derived file of the store from its records.
pub fn write_all(store: &Store, stored: &Stored) -> Result<Summary> {
    let summary = Summary::from_stored(stored);
    store.write_derived(SUMMARY_MD, markdown::summary(&summary).as_bytes())?;
    store.write_derived(SUMMARY_CSV, &csv::summary(&summary)?)?;
    store.write_derived(RUNS_CSV, &csv::runs(stored, &summary)?)?;
    store.write_derived(RESULTS_JSON, &json::results(stored, &summary)?)?;
    Ok(summary)
}
