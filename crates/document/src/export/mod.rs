//! The renderers: one module per output format, each turning a
//! [`Document`] into text or bytes without knowing where its figures came
//! from (hyperfine's exporters are the model: results in, bytes out).
//! Those that make one file of a document implement [`Exporter`]; the
//! terminal and the SVG charts are rendered the same way, without the
//! trait (a terminal has a width, a chart is one of a document's several).
//!
//! Its face: [`Exporter`] and the formats implementing it (`csv::Csv`,
//! `markdown::Markdown`, `xlsx::Xlsx`, `html::Html`), `csv::table`,
//! `html::FILE` and `html::write_page`, `svg::render`, `format::Format`, and
//! `terminal`'s `document`, `document_fit`, `width`, `wrapped`, `warn` and
//! `warning`; the rest is its inside.

pub mod csv;
pub mod format;
pub mod html;
pub mod markdown;
pub mod svg;
pub mod terminal;
pub mod xlsx;

use anyhow::Result;

use crate::Document;

/// One output format: renders a [`Document`] to the bytes of one file.
pub trait Exporter {
    fn render(&self, doc: &Document) -> Result<Vec<u8>>;
}
