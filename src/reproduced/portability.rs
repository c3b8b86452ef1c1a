//! What a check on another CPU model shows (issue #60): not this
//! machine's noise but how the programs behave on another
//! microarchitecture (interpreters moved −27 … −49 % against the C
//! references on results/2026's Intel Xeon check, short compiled cells
//! +33 … +66 %). Per row the shift, per benchmark the geometric mean of
//! the shifts and their spread, and whether the rows kept their order:
//! shown as a table of its own, never as a tie.

use std::collections::{BTreeMap, BTreeSet};

use super::Agreement;
use crate::bench::Bench;

/// One benchmark's shifts on the other CPU model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct BenchShift {
    pub bench: Bench,
    pub rows: usize,
    /// The geometric mean of re-measured / edition, − 1.
    pub mean: f64,
    /// The standard deviation of the log shifts, as a fraction (0.12: the
    /// rows' shifts spread ±12 % around their mean).
    pub spread: f64,
}

/// The row's shift in each benchmark (re-measured / edition − 1), by
/// variant then benchmark.
pub(crate) fn by_row(a: &Agreement) -> BTreeMap<String, BTreeMap<Bench, f64>> {
    let mut out: BTreeMap<String, BTreeMap<Bench, f64>> = BTreeMap::new();
    for r in &a.rows {
        let Some((v, b)) = r.variant.rsplit_once(' ') else {
            continue;
        };
        if let Ok(b) = b.parse::<Bench>() {
            out.entry(v.to_string())
                .or_default()
                .insert(b, r.difference());
        }
    }
    out
}

/// Per benchmark the geometric mean shift and its spread.
pub(crate) fn by_bench(a: &Agreement) -> Vec<BenchShift> {
    let rows = by_row(a);
    Bench::CPU
        .into_iter()
        .filter_map(|b| {
            let logs: Vec<f64> = rows
                .values()
                .filter_map(|r| r.get(&b))
                .map(|s| (1.0 + s).ln())
                .filter(|l| l.is_finite())
                .collect();
            if logs.is_empty() {
                return None;
            }
            let n = logs.len() as f64;
            let mean = logs.iter().sum::<f64>() / n;
            let var = if logs.len() > 1 {
                logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (n - 1.0)
            } else {
                0.0
            };
            Some(BenchShift {
                bench: b,
                rows: logs.len(),
                mean: mean.exp() - 1.0,
                spread: var.sqrt().exp() - 1.0,
            })
        })
        .collect()
}

/// Of the pairs of variants re-measured in every benchmark the check ran,
/// how many kept their order (by the geometric mean of their ratios over
/// those benchmarks), of how many: (kept, pairs).
pub(crate) fn pairs_kept(a: &Agreement) -> (usize, usize) {
    let mut by: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    let mut benches: BTreeSet<&str> = BTreeSet::new();
    for r in &a.rows {
        let Some((v, b)) = r.variant.rsplit_once(' ') else {
            continue;
        };
        benches.insert(b);
        by.entry(v)
            .or_default()
            .push((r.edition.ln(), r.remeasured.ln()));
    }
    let full: Vec<(f64, f64)> = by
        .values()
        .filter(|x| x.len() == benches.len())
        .map(|x| {
            let n = x.len() as f64;
            (
                x.iter().map(|p| p.0).sum::<f64>() / n,
                x.iter().map(|p| p.1).sum::<f64>() / n,
            )
        })
        .filter(|(e, r)| e.is_finite() && r.is_finite())
        .collect();
    let mut kept = 0;
    let mut pairs = 0;
    for i in 0..full.len() {
        for j in i + 1..full.len() {
            pairs += 1;
            let (a, b) = (full[i], full[j]);
            if (a.0 - b.0).signum() == (a.1 - b.1).signum() {
                kept += 1;
            }
        }
    }
    (kept, pairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduced::Row;

    fn agreement(rows: &[(&str, f64, f64)]) -> Agreement {
        Agreement {
            date: "2026-12-05T17:13:13Z".into(),
            machine: "Intel Xeon".into(),
            rows: rows
                .iter()
                .map(|(v, e, r)| Row {
                    variant: v.to_string(),
                    edition: *e,
                    remeasured: *r,
                })
                .collect(),
            unmatched: Vec::new(),
        }
    }

    /// Per benchmark the geometric mean shift and the spread of the log
    /// shifts; pairs in order by their rows' geometric means.
    #[test]
    fn shifts_per_row_and_per_benchmark() {
        let a = agreement(&[
            ("perl assoc", 3.0, 3.0 * 0.5),
            ("perl num-comb", 40.0, 40.0 * 0.5),
            ("sbcl assoc", 1.0, 1.0 * 2.0),
            ("sbcl num-comb", 1.0, 1.0 * 2.0),
            ("gawk assoc", 2.0, 2.0),
            ("gawk num-comb", 100.0, 100.0),
        ]);
        let rows = by_row(&a);
        assert!((rows["perl"][&Bench::Assoc] + 0.5).abs() < 1e-12);
        let b = by_bench(&a);
        assert_eq!(b.len(), 2);
        assert_eq!((b[0].bench, b[0].rows), (Bench::Assoc, 3));
        // ln 0.5, ln 2, 0: mean 0 (×1.00), sd ln 2 (±100 %).
        assert!(b[0].mean.abs() < 1e-12, "{b:?}");
        assert!((b[0].spread - 1.0).abs() < 1e-9, "{b:?}");
        // perl (geomean 10.95 → 5.48), sbcl (1 → 2), gawk (14.1 → 14.1):
        // sbcl < perl < gawk before; sbcl < perl < gawk after.
        assert_eq!(pairs_kept(&a), (3, 3));
    }
}
