//! Markdown: the document's facts as a list, each table with its notes.

use anyhow::Result;

use super::Exporter;
use super::document::{Document, Table};

pub struct Markdown;

/// A cell's text made safe for a Markdown table row.
fn escape(s: &str) -> String {
    strip_ansi_escapes::strip_str(s)
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
}

pub fn table(t: &Table) -> String {
    let cols = t.display_columns();
    let header: Vec<String> = cols.iter().map(|&i| escape(&t.columns[i].header)).collect();
    let mut out = format!("| {} |\n|", header.join(" | "));
    for &i in &cols {
        out.push_str(if t.columns[i].kind.is_numeric() {
            " ---: |"
        } else {
            " --- |"
        });
    }
    out.push('\n');
    for row in &t.rows {
        let cells: Vec<String> = cols.iter().map(|&i| escape(&row[i].text)).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out
}

impl Exporter for Markdown {
    fn render(&self, doc: &Document) -> Result<Vec<u8>> {
        let mut out = format!("# {}\n\n", escape(&doc.title));
        for (k, v) in &doc.meta {
            out.push_str(&format!("- {k}: {}\n", escape(v)));
        }
        if !doc.details.is_empty() {
            out.push_str(&format!("- Details ({}):\n", doc.details.len()));
            for (k, v) in &doc.details {
                out.push_str(&format!("  - {}: {}\n", escape(k), escape(v)));
            }
        }
        let tables: Vec<&Table> = doc.tables.iter().filter(|t| !t.data_only).collect();
        for t in &tables {
            out.push('\n');
            if tables.len() > 1 {
                out.push_str(&format!("## {}\n\n", escape(&t.title)));
            }
            out.push_str(&table(t));
            if !t.notes.is_empty() {
                out.push_str("\n\\* Notes:\n\n");
                for n in &t.notes {
                    out.push_str(&format!("- {}\n", escape(&n.to_string())));
                }
            }
        }
        if !doc.charts.is_empty() {
            out.push_str("\nCharts: ");
            let links: Vec<String> = doc
                .charts
                .iter()
                .map(|c| format!("[{}](charts/{}.svg)", escape(&c.title), c.id))
                .collect();
            out.push_str(&links.join(" · "));
            out.push('\n');
        }
        Ok(out.into_bytes())
    }
}
