//! The formats a command prints a document in on the terminal (`compare
//! --format`, `history --format`): one enum for every command that offers
//! the choice, and the printing.

use anyhow::Result;

use super::Exporter;
use super::{csv, markdown, terminal};
use crate::Document;

/// The formats a command prints a document in (`compare --format`,
/// `history --format`): one enum for every command that offers the choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Terminal,
    Markdown,
    Csv,
}

impl Format {
    /// `doc` as this format prints it on the terminal; the terminal's
    /// tables within `width` columns (`None`: every column, see
    /// [`terminal::width`]).
    pub fn text(self, doc: &Document, width: Option<usize>) -> Result<String> {
        Ok(match self {
            Format::Terminal => terminal::document_fit(doc, width),
            Format::Markdown => {
                String::from_utf8_lossy(&markdown::Markdown.render(doc)?).into_owned()
            }
            Format::Csv => String::from_utf8_lossy(&csv::Csv.render(doc)?).into_owned(),
        })
    }
}
