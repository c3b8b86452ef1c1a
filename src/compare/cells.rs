//! Cells both comparison tables (CPU and ws-echo) build alike: a figure
//! old → new, an optional number, the versions.

use crate::document::{Column, Entry, Kind, Show};

/// "old → new" for one figure (a missing side says so).
pub(super) fn arrow(old: Option<f64>, new: Option<f64>, f: impl Fn(f64) -> String) -> String {
    let side = |v: Option<f64>| v.map(&f).unwrap_or_else(|| "-".into());
    format!("{} → {}", side(old), side(new))
}

pub(super) fn opt_num(v: Option<f64>, f: impl Fn(f64) -> String) -> Entry {
    match v {
        Some(v) => Entry::number(v, f(v)),
        None => Entry::empty(""),
    }
}

/// "old → new" to read, then each version as data.
pub(super) fn versions(old: &str, new: &str) -> [Entry; 3] {
    [
        Entry::text(format!("{old} → {new}")),
        Entry::text(old),
        Entry::text(new),
    ]
}

/// The columns of `versions`.
pub(super) fn version_columns() -> [Column; 3] {
    [
        Column::new("Version", "version", Kind::Text, Show::Display),
        Column::new("Old version", "old_version", Kind::Text, Show::Data),
        Column::new("New version", "new_version", Kind::Text, Show::Data),
    ]
}
