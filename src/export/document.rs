//! The format-neutral model every output goes through: a [`Document`] holds
//! facts about the measurement ([`Document::meta`]), [`Table`]s and
//! [`BarChart`]s. The summary, the runs, the WebSocket table and `compare`
//! each build a `Document`; each format module (terminal, Markdown, CSV,
//! xlsx, SVG, HTML) renders one without knowing where the figures came from.
//!
//! A cell carries both the text a reader sees (`1.23 (exit 25)`) and the
//! plain value a spreadsheet needs (`1.23`), and a [`Mark`] saying whether it
//! is a plain correct figure; a failed cell has no value, so no format can
//! show it as a number.

use serde::Serialize;

/// One report: what was measured, where, and its tables and charts.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Document {
    pub title: String,
    /// Facts shown above the tables: ("Machine", "..."), ("Sizes", "...").
    pub meta: Vec<(String, String)>,
    pub tables: Vec<Table>,
    pub charts: Vec<BarChart>,
}

/// Where a column appears.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Show {
    /// In the human tables (terminal, Markdown, HTML) and the data files
    /// (CSV, xlsx).
    Both,
    /// Only in CSV and xlsx (plain values: status names, ids, raw numbers).
    Data,
    /// Only in the human tables (combined texts such as `1.20 → 0.95`).
    Display,
}

/// What a column holds: decides alignment, CSV precision and the
/// spreadsheet's number format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Text,
    /// Seconds; `decimals` digits in CSV.
    Seconds { decimals: usize },
    /// Kilobytes, an integer.
    Kb,
    /// Any integer count (N, runs, errors, connections, rank).
    Count,
    /// A dimensionless ratio (new / old, or relative to a variant).
    Ratio,
    /// A decimal figure with `decimals` digits (rps, ms, MB, cores).
    Decimal { decimals: usize },
}

impl Kind {
    /// Right-aligned in human tables.
    pub fn is_numeric(self) -> bool {
        self != Kind::Text
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Column {
    /// Header in human tables and the spreadsheet.
    pub header: String,
    /// Header in CSV (snake_case, stable: scripts read it).
    pub key: String,
    pub kind: Kind,
    pub show: Show,
    /// This column is the sum of these columns (indices into
    /// [`Table::columns`]); the spreadsheet writes it as a formula.
    pub sum_of: Vec<usize>,
}

impl Column {
    pub fn new(header: impl Into<String>, key: impl Into<String>, kind: Kind, show: Show) -> Self {
        Column {
            header: header.into(),
            key: key.into(),
            kind,
            show,
            sum_of: Vec::new(),
        }
    }

    pub fn in_display(&self) -> bool {
        self.show != Show::Data
    }

    pub fn in_data(&self) -> bool {
        self.show != Show::Display
    }
}

/// Whether a cell is a plain correct figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mark {
    /// A correct figure, or plain text.
    #[default]
    Plain,
    /// A figure that is not a plain correct one (non-zero exit, wrong
    /// output, timed out, size or machine mismatch in a comparison, a
    /// partial total): show it, and say why.
    Flagged,
    /// No figure: failed, crashed, did not finish, not run, not installed.
    Failed,
}

/// The plain value behind a cell.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(untagged)]
pub enum Value {
    #[default]
    Empty,
    Text(String),
    Number(f64),
    Int(i64),
    Bool(bool),
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Cell {
    /// What a reader sees.
    pub text: String,
    /// What a spreadsheet or script gets.
    pub value: Value,
    pub mark: Mark,
    /// Why the cell is flagged or failed (a spreadsheet comment, a tooltip).
    pub note: Option<String>,
}

impl Cell {
    /// Plain text (a name, a version).
    pub fn text(s: impl Into<String>) -> Cell {
        let s = s.into();
        Cell {
            value: Value::Text(s.clone()),
            text: s,
            ..Default::default()
        }
    }

    /// A number with its display text.
    pub fn number(v: f64, text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            value: Value::Number(v),
            ..Default::default()
        }
    }

    pub fn int(v: i64, text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            value: Value::Int(v),
            ..Default::default()
        }
    }

    pub fn bool(v: bool) -> Cell {
        Cell {
            text: v.to_string(),
            value: Value::Bool(v),
            ..Default::default()
        }
    }

    /// No value; shows `text` (often `-` or empty).
    pub fn empty(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            ..Default::default()
        }
    }

    pub fn marked(mut self, mark: Mark, note: Option<String>) -> Cell {
        self.mark = mark;
        self.note = note;
        self
    }

    /// The value as a number, if it is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self.value {
            Value::Number(v) => Some(v),
            Value::Int(v) => Some(v as f64),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Table {
    /// Stable name: CSV file stem, spreadsheet sheet name, HTML anchor.
    pub id: String,
    pub title: String,
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Cell>>,
    /// Lines under the table: why each flagged or failed cell is so.
    pub notes: Vec<String>,
    /// Only in the data files (CSV, xlsx), not in Markdown or HTML (the
    /// every-run table is long and for spreadsheets).
    pub data_only: bool,
}

impl Table {
    /// Indices of the columns shown in human tables.
    pub fn display_columns(&self) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|&i| self.columns[i].in_display())
            .collect()
    }

    /// Indices of the columns written to data files.
    pub fn data_columns(&self) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|&i| self.columns[i].in_data())
            .collect()
    }
}

/// A horizontal bar chart: one group of bars per row (a variant, a server),
/// one bar per series (a benchmark, old/new, a phase).
#[derive(Debug, Clone, Default, Serialize)]
pub struct BarChart {
    /// File stem: `charts/<id>.svg`.
    pub id: String,
    pub title: String,
    /// The value axis: "seconds (log scale)".
    pub axis: String,
    /// Log scale (ranges spanning orders of magnitude).
    pub log: bool,
    /// Series names, in bar order within a group.
    pub series: Vec<String>,
    pub rows: Vec<BarRow>,
    /// A line under the chart (what is marked and why).
    pub caption: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct BarRow {
    pub label: String,
    /// One per series.
    pub bars: Vec<Bar>,
}

/// One bar. A failed bar has no value and is drawn as its `label` (e.g.
/// `FAILED`, `not run`), never as zero; a flagged bar is drawn with a mark
/// and its label (e.g. `exit 25`, `partial`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Bar {
    pub value: Option<f64>,
    pub mark: Mark,
    pub label: Option<String>,
}

impl Bar {
    pub fn plain(v: f64) -> Bar {
        Bar {
            value: Some(v),
            ..Default::default()
        }
    }
}
