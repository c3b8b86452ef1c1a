//! A table's columns, each declared once: what the document needs of it
//! (header, key, kind, visibility) beside the value it takes in a row.
//!
//! A table module gathers its rows (one value of type `R` each, with
//! whatever they share computed once), declares its [`Columns`] over them
//! in the order they are shown, and gets the document's columns and every
//! row's entries from the one list, so the two cannot drift apart:
//!
//! ```
//! use langbench_document::columns::{Columns, col};
//! use langbench_document::{Entry, Kind};
//!
//! struct Run { variant: String, wall_s: f64, build_s: f64 }
//! let secs = |v: f64| Entry::number(v, format!("{v:.2}"));
//! let s3 = Kind::Seconds { decimals: 3 };
//! let mut c: Columns<Run> = Columns::new();
//! c.add(col("Variant", "variant", Kind::Text).id(), |r| Entry::text(&r.variant));
//! c.add(col("Wall (s)", "wall_s", s3), move |r| secs(r.wall_s));
//! c.add(col("Build (s)", "build_s", s3).data(), move |r| secs(r.build_s));
//! let total = col("Total (s)", "total_s", s3).sum_of(["wall_s", "build_s"]);
//! c.add(total, move |r| secs(r.wall_s + r.build_s));
//! let run = Run { variant: "c-gcc".into(), wall_s: 1.0, build_s: 0.5 };
//! assert_eq!(c.columns()[3].sum_of, [1, 2]);
//! assert_eq!(c.row(&run)[3].text, "1.50");
//! ```
//!
//! A total names the columns it sums by key; [`Columns::columns`] resolves
//! them, and a key that names no column (or more than one) is a panic, so
//! every table's tests catch it.

use super::{Column, Entry, Kind, Priority, Show};

/// A column as declared: what the document needs of it. Made by [`col`],
/// shown in every format at [`Priority::Main`] unless a setter says
/// otherwise.
#[derive(Debug, Clone)]
pub struct Col {
    column: Column,
    /// The keys of the columns this one sums.
    sums: Vec<String>,
}

/// A column with its header (human tables, the spreadsheet), key (CSV:
/// stable, scripts read it) and kind.
pub fn col(header: impl Into<String>, key: impl Into<String>, kind: Kind) -> Col {
    Col {
        column: Column::new(header, key, kind, Show::Both),
        sums: Vec::new(),
    }
}

impl Col {
    /// Which formats show it ([`Show::Both`] unless set).
    pub fn show(mut self, show: Show) -> Col {
        self.column.show = show;
        self
    }

    /// Only in the data files (CSV, xlsx).
    pub fn data(self) -> Col {
        self.show(Show::Data)
    }

    /// Only in the human tables (terminal, Markdown, the page).
    pub fn display(self) -> Col {
        self.show(Show::Display)
    }

    /// In the data files and behind the page's "more columns" switch.
    pub fn extra(self) -> Col {
        self.show(Show::Extra)
    }

    /// It tells the rows apart: a narrow table keeps it.
    pub fn id(mut self) -> Col {
        self.column.priority = Priority::Id;
        self
    }

    /// A narrow table leaves it out first.
    pub fn detail(mut self) -> Col {
        self.column.priority = Priority::Detail;
        self
    }

    /// It is the sum of the columns of these keys (the spreadsheet writes
    /// it as a formula).
    pub fn sum_of<K: Into<String>>(mut self, keys: impl IntoIterator<Item = K>) -> Col {
        self.sums = keys.into_iter().map(Into::into).collect();
        self
    }
}

/// A table's columns over rows of type `R`, in the order they are shown,
/// each with its value in a row.
pub struct Columns<'a, R> {
    cols: Vec<(Col, Value<'a, R>)>,
}

/// A column's value in a row.
type Value<'a, R> = Box<dyn Fn(&R) -> Entry + 'a>;

impl<R> Default for Columns<'_, R> {
    fn default() -> Self {
        Columns { cols: Vec::new() }
    }
}

impl<'a, R> Columns<'a, R> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Declares the next column and its value in a row.
    pub fn add(&mut self, col: Col, value: impl Fn(&R) -> Entry + 'a) {
        self.cols.push((col, Box::new(value)));
    }

    /// The document's columns, each total's keys resolved to the indices
    /// of the columns it sums.
    ///
    /// # Panics
    /// When a total names a key that no column, or more than one, has: a
    /// table declared wrong, caught by its tests.
    pub fn columns(&self) -> Vec<Column> {
        self.cols
            .iter()
            .map(|(c, _)| Column {
                sum_of: c.sums.iter().map(|k| self.index_of(k, &c.column)).collect(),
                ..c.column.clone()
            })
            .collect()
    }

    fn index_of(&self, key: &str, total: &Column) -> usize {
        let mut found = self
            .cols
            .iter()
            .enumerate()
            .filter(|(_, (c, _))| c.column.key == key);
        match (found.next(), found.next()) {
            (Some((i, _)), None) => i,
            (None, _) => panic!(
                "column {:?} sums {key:?}: no column has that key",
                total.key
            ),
            (Some(_), Some(_)) => panic!(
                "column {:?} sums {key:?}: more than one column has that key",
                total.key
            ),
        }
    }

    /// One row's entries, in column order.
    pub fn row(&self, r: &R) -> Vec<Entry> {
        self.cols.iter().map(|(_, value)| value(r)).collect()
    }

    /// Every row's entries.
    pub fn rows<'r>(&self, rows: impl IntoIterator<Item = &'r R>) -> Vec<Vec<Entry>>
    where
        R: 'r,
    {
        rows.into_iter().map(|r| self.row(r)).collect()
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.cols.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two() -> Columns<'static, (f64, f64)> {
        let n = |v: f64| Entry::number(v, v.to_string());
        let mut c: Columns<(f64, f64)> = Columns::new();
        c.add(col("Name", "name", Kind::Text).id(), |_| Entry::text("x"));
        c.add(col("a", "a", Kind::Count), move |r| n(r.0));
        c.add(col("b", "b", Kind::Count).data(), move |r| n(r.1));
        c
    }

    #[test]
    fn a_column_carries_its_declaration_and_its_value() {
        let mut c = two();
        let sum = col("Sum", "sum", Kind::Count).sum_of(["b", "a"]).detail();
        c.add(sum, |r| Entry::number(r.0 + r.1, "s"));
        let cols = c.columns();
        assert_eq!(
            cols.iter().map(|c| c.key.as_str()).collect::<Vec<_>>(),
            ["name", "a", "b", "sum"]
        );
        assert_eq!(cols[0].priority, Priority::Id);
        assert_eq!(cols[1].priority, Priority::Main);
        assert_eq!(cols[2].show, Show::Data);
        assert_eq!(cols[3].priority, Priority::Detail);
        assert_eq!(cols[3].sum_of, [2, 1], "by key, in the order named");
        let rows = c.rows(&[(1.0, 2.0), (3.0, 4.0)]);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1][3].as_f64(), Some(7.0));
        assert_eq!(rows[0].len(), c.len());
    }

    #[test]
    #[should_panic(expected = "column \"sum\" sums \"c\": no column has that key")]
    fn a_total_of_an_unknown_key_is_a_panic() {
        let mut c = two();
        c.add(col("Sum", "sum", Kind::Count).sum_of(["a", "c"]), |_| {
            Entry::empty("")
        });
        c.columns();
    }

    #[test]
    #[should_panic(expected = "more than one column has that key")]
    fn a_total_of_an_ambiguous_key_is_a_panic() {
        let mut c = two();
        c.add(col("a again", "a", Kind::Count), |_| Entry::empty(""));
        c.add(col("Sum", "sum", Kind::Count).sum_of(["a"]), |_| {
            Entry::empty("")
        });
        c.columns();
    }
}
