//! Cells and columns both comparison tables (CPU and ws-echo) build alike:
//! a figure old → new, an optional number, the versions.

use langbench_document::columns::{Columns, col};
use langbench_document::{Entry, Kind};

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

/// The versions of a row's two sides (`of`): "old → new" to read, then
/// each version as data.
pub(super) fn version_columns<'a, R: 'a>(c: &mut Columns<'a, R>, of: fn(&R) -> [&str; 2]) {
    use Kind::Text;
    c.add(col("Version", "version", Text).display(), move |r| {
        let [old, new] = of(r);
        Entry::text(format!("{old} → {new}"))
    });
    c.add(col("Old version", "old_version", Text).data(), move |r| {
        Entry::text(of(r)[0])
    });
    c.add(col("New version", "new_version", Text).data(), move |r| {
        Entry::text(of(r)[1])
    });
}
