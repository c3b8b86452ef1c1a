//! How well an edition's ratios reproduce (issue #39): the rows a
//! reproducibility check (`langbench reproduce`) measured again, each
//! row's ratio to the references in the edition and in the check, and
//! the share that agree within a tolerance. Pure arithmetic on the two
//! sides' ratios; the summary and the command decide where they come from.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::reference::Normalised;

/// The tolerance the page states ("within 5 %"): the goal is 90 %
/// of rows within it.
pub(crate) const WITHIN: f64 = 0.05;

/// One row measured again.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Row {
    pub variant: String,
    /// Its total's ratio to the references in the edition.
    pub edition: f64,
    /// The same in the check.
    pub remeasured: f64,
}

impl Row {
    /// remeasured / edition − 1 (−0.03: 3 % lower, i.e. faster, in the
    /// check).
    pub(crate) fn difference(&self) -> f64 {
        self.remeasured / self.edition - 1.0
    }

    /// Whether it agrees within `tol`, in ratio terms either way
    /// (|log difference| ≤ log(1 + tol)).
    pub(crate) fn within(&self, tol: f64) -> bool {
        (self.remeasured / self.edition).ln().abs() <= (1.0 + tol).ln() + 1e-12
    }
}

/// A reproducibility check's result.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Agreement {
    /// When the check ran (its first session's start, RFC 3339).
    pub date: String,
    /// The machine it ran on, as the table names machines.
    pub machine: String,
    /// Every row measured again with a ratio on both sides, by variant.
    pub rows: Vec<Row>,
    /// Rows the check measured that have no ratio on one side (a failure
    /// there, or not ranked in the edition): named, not counted.
    pub unmatched: Vec<String>,
}

impl Agreement {
    /// Pairs the two sides' row ratios.
    pub(crate) fn of(
        date: String,
        machine: String,
        edition: &BTreeMap<String, Normalised>,
        check: &BTreeMap<String, Option<Normalised>>,
    ) -> Agreement {
        let mut rows = Vec::new();
        let mut unmatched = Vec::new();
        for (variant, remeasured) in check {
            match (edition.get(variant), remeasured) {
                (Some(e), Some(r)) if e.figure() > 0.0 && r.figure() > 0.0 => rows.push(Row {
                    variant: variant.clone(),
                    edition: e.figure(),
                    remeasured: r.figure(),
                }),
                _ => unmatched.push(variant.clone()),
            }
        }
        Agreement {
            date,
            machine,
            rows,
            unmatched,
        }
    }

    /// How many rows agree within `tol`.
    pub(crate) fn agreeing(&self, tol: f64) -> usize {
        self.rows.iter().filter(|r| r.within(tol)).count()
    }

    /// The precision the check shows: the smallest tolerance within which
    /// 90 % of its rows agree (the 90th percentile of |difference|, in
    /// ratio terms), `None` without rows. Ranks claim no finer order.
    pub(crate) fn precision(&self) -> Option<f64> {
        if self.rows.is_empty() {
            return None;
        }
        let mut d: Vec<f64> = self
            .rows
            .iter()
            .map(|r| (r.remeasured / r.edition).ln().abs().exp() - 1.0)
            .collect();
        d.sort_by(f64::total_cmp);
        // Nearest rank: the smallest value with at least 90 % at or below.
        let k = ((0.9 * d.len() as f64).ceil() as usize).clamp(1, d.len());
        Some(d[k - 1])
    }

    /// The sentence the page states: "ratios reproduce within 5 % for 7 of
    /// 8 re-measured rows (2026-12-04, AMD EPYC ...)".
    pub(crate) fn sentence(&self) -> String {
        let precision = self
            .precision()
            .map(|p| format!("; 90 % of them within {:.1} %", p * 100.0))
            .unwrap_or_default();
        format!(
            "ratios reproduce within {:.0} % for {} of {} re-measured rows{precision} ({}, {})",
            WITHIN * 100.0,
            self.agreeing(WITHIN),
            self.rows.len(),
            self.date.get(..10).unwrap_or(&self.date),
            self.machine
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(figure: f64) -> Normalised {
        Normalised {
            lo: figure,
            hi: figure,
            runs: 3,
        }
    }

    /// Rows pair by variant; one missing on a side is named, not counted;
    /// within 5 % either way; the precision is the 90th percentile.
    #[test]
    fn rows_agree_within_a_tolerance_and_the_precision_is_their_90th_percentile() {
        let edition: BTreeMap<String, Normalised> =
            [("a", 1.0), ("b", 2.0), ("c", 4.0), ("d", 1.0), ("e", 1.0)]
                .into_iter()
                .map(|(k, v)| (k.to_string(), n(v)))
                .collect();
        let check: BTreeMap<String, Option<Normalised>> = [
            ("a", Some(n(1.04))),
            ("b", Some(n(2.0 / 1.05))),
            ("c", Some(n(4.4))),
            ("d", Some(n(0.99))),
            ("x", Some(n(1.0))),
            ("e", None),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let a = Agreement::of(
            "2026-12-04T01:02:03Z".into(),
            "AMD EPYC".into(),
            &edition,
            &check,
        );
        assert_eq!(a.rows.len(), 4);
        assert_eq!(a.unmatched, ["e", "x"]);
        // a +4 %, b −4.8 % (5 % faster in ratio terms), c +10 %, d −1 %.
        assert_eq!(a.agreeing(WITHIN), 3);
        let p = a.precision().unwrap();
        assert!((p - 0.10).abs() < 1e-9, "{p}");
        assert_eq!(
            a.sentence(),
            "ratios reproduce within 5 % for 3 of 4 re-measured rows; 90 % of them within \
             10.0 % (2026-12-04, AMD EPYC)"
        );
    }
}
