//! Whether a cell's change is beyond the noise of its runs: Welch's
//! t-test on the logarithms of the run times ([`significance`]).

use statrs::distribution::{ContinuousCDF, StudentsT};

/// Whether a change of one cell is beyond the noise of its runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Change {
    /// New / old of the runs' geometric means.
    pub ratio: f64,
    /// Its 95% confidence interval.
    pub lo: f64,
    pub hi: f64,
    pub verdict: Verdict,
    /// Runs on each side.
    pub runs: (usize, usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    Faster,
    Slower,
    NotSignificant,
}

impl Verdict {
    pub(super) fn name(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NotSignificant => "not significant",
        }
    }
}

/// Tests a change of run times against their noise: Welch's t-test on the
/// logarithms of the old and new runs' wall times (run times are
/// multiplicative, so a ratio is a difference of logs, and their spread is
/// closer to symmetric there), two-sided at 95%. The ratio is that of the
/// runs' geometric means, its interval exp(mean difference ± t·se) with
/// Welch–Satterthwaite degrees of freedom; `faster` or `slower` when the
/// interval excludes 1, else `not significant`. `None` unless both sides
/// have at least two runs. With only a handful of runs the interval is
/// wide: that is the honest answer, not a defect. (A bootstrap would need
/// far more runs per cell than an edition has to resample from.)
pub(super) fn significance(old: &[f64], new: &[f64]) -> Option<Change> {
    if old.len() < 2 || new.len() < 2 || !times(old) || !times(new) {
        return None;
    }
    let (m_old, q_old, n_old) = log_stats(old);
    let (m_new, q_new, n_new) = log_stats(new);
    let se = (q_old + q_new).sqrt();
    let df =
        (q_old + q_new).powi(2) / (q_old.powi(2) / (n_old - 1.0) + q_new.powi(2) / (n_new - 1.0));
    interval(m_new - m_old, se, df, (old.len(), new.len()))
}

/// Every value is a time a log can be taken of (positive, not NaN).
fn times(v: &[f64]) -> bool {
    v.iter().all(|x| !x.is_nan() && *x > 0.0)
}

/// Of runs' log times: their mean, the variance of that mean, and how
/// many there are.
fn log_stats(v: &[f64]) -> (f64, f64, f64) {
    let logs: Vec<f64> = v.iter().map(|x| x.ln()).collect();
    let n = logs.len() as f64;
    let mean = logs.iter().sum::<f64>() / n;
    let var = logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var / n, n)
}

/// The change of log difference `d` with standard error `se`: its 95%
/// interval by Student's t with `df` degrees of freedom, and the verdict
/// (`faster` or `slower` when the interval excludes 1); with no spread at
/// all, the exact ratio (for either test).
fn interval(d: f64, se: f64, df: f64, runs: (usize, usize)) -> Option<Change> {
    if se <= f64::EPSILON * d.abs().max(1.0) {
        // No spread at all: the ratio is exact.
        let r = d.exp();
        let verdict = if d.abs() < 1e-12 {
            Verdict::NotSignificant
        } else if d < 0.0 {
            Verdict::Faster
        } else {
            Verdict::Slower
        };
        return Some(Change {
            ratio: r,
            lo: r,
            hi: r,
            verdict,
            runs,
        });
    }
    let t = StudentsT::new(0.0, 1.0, df).ok()?.inverse_cdf(0.975);
    let (lo, hi) = ((d - t * se).exp(), (d + t * se).exp());
    let verdict = if hi < 1.0 {
        Verdict::Faster
    } else if lo > 1.0 {
        Verdict::Slower
    } else {
        Verdict::NotSignificant
    };
    Some(Change {
        ratio: d.exp(),
        lo,
        hi,
        verdict,
        runs,
    })
}

/// A change against a published figure: one value with no spread (an
/// edition as published gives one figure per cell), so there is nothing
/// for Welch's test on that side. The interval is the other side's runs'
/// alone: Student's t on their log times (n − 1 degrees of freedom)
/// around their geometric mean, over the published figure (or under it,
/// when the published side is the new one). It says whether these runs
/// could be the published figure's speed; the published figure's own
/// noise is unknown and not in it, so it is narrower than a test with
/// runs on both sides would be. `None` unless `runs` has two or more.
pub(super) fn against_published(
    published: f64,
    runs: &[f64],
    published_is_old: bool,
) -> Option<Change> {
    if runs.len() < 2 || !times(&[published]) || !times(runs) {
        return None;
    }
    let (mean, var_of_mean, n) = log_stats(runs);
    let sign = if published_is_old { 1.0 } else { -1.0 };
    let d = sign * (mean - published.ln());
    let counts = if published_is_old {
        (1, runs.len())
    } else {
        (runs.len(), 1)
    };
    interval(d, var_of_mean.sqrt(), n - 1.0, counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_doubled_cell_is_slower_and_the_same_runs_are_not_significant() {
        let old = [1.00, 1.03, 0.98, 1.01, 0.99];
        let doubled: Vec<f64> = old.iter().map(|v| v * 2.0).collect();
        let c = significance(&old, &doubled).unwrap();
        assert_eq!(c.verdict, Verdict::Slower);
        assert!((c.ratio - 2.0).abs() < 1e-9, "{c:?}");
        assert!(c.lo > 1.0 && c.lo < 2.0 && c.hi > 2.0, "{c:?}");
        let halved: Vec<f64> = old.iter().map(|v| v / 2.0).collect();
        assert_eq!(
            significance(&old, &halved).unwrap().verdict,
            Verdict::Faster
        );
        // The same runs: no change at all.
        let same = significance(&old, &old).unwrap();
        assert_eq!(same.verdict, Verdict::NotSignificant);
        assert!((same.ratio - 1.0).abs() < 1e-12 && same.lo < 1.0 && same.hi > 1.0);
        // Other runs of the same program, within their noise.
        let again = [1.01, 0.99, 1.02, 0.97, 1.00];
        assert_eq!(
            significance(&old, &again).unwrap().verdict,
            Verdict::NotSignificant
        );
        // 3% slower with a 1% spread: beyond the noise.
        let slower: Vec<f64> = again.iter().map(|v| v * 1.03).collect();
        let tight = [1.0, 1.01, 0.99, 1.0, 1.005];
        let tight_slower: Vec<f64> = tight.iter().map(|v| v * 1.03 + 0.001).collect();
        assert_eq!(
            significance(&tight, &tight_slower).unwrap().verdict,
            Verdict::Slower
        );
        // 3% with a 2% spread and five runs: not told apart.
        assert_eq!(
            significance(&old, &slower).unwrap().verdict,
            Verdict::NotSignificant
        );
        // No spread at all: the ratio is exact.
        let flat = significance(&[2.0, 2.0], &[3.0, 3.0]).unwrap();
        assert_eq!(flat.verdict, Verdict::Slower);
        assert!((flat.lo - 1.5).abs() < 1e-12 && (flat.hi - 1.5).abs() < 1e-12);
        // One run a side (a published edition): no test.
        assert_eq!(significance(&[1.0], &doubled), None);
        assert_eq!(significance(&old, &[2.0]), None);
        assert_eq!(significance(&[0.0, 1.0], &old), None);
    }

    /// Figures worked by hand: ln 2.0, 2.2, 2.1 = 0.693147, 0.788457,
    /// 0.741937; mean 0.741180, sd 0.047659, se 0.027516; t(2, 97.5%) =
    /// 4.302653: the interval exp(0.741180 ± 0.118393) = 1.8641–2.3622
    /// around 2.0984.
    #[test]
    fn runs_against_a_published_figure_get_the_runs_interval_alone() {
        let runs = [2.0, 2.2, 2.1];
        let c = against_published(1.0, &runs, true).unwrap();
        assert!((c.ratio - 2.0984).abs() < 1e-3, "{c:?}");
        assert!(
            (c.lo - 1.8641).abs() < 1e-3 && (c.hi - 2.3622).abs() < 1e-3,
            "{c:?}"
        );
        assert_eq!((c.verdict, c.runs), (Verdict::Slower, (1, 3)));
        // The published figure inside the runs' interval: not told apart.
        let same = against_published(2.1, &runs, true).unwrap();
        assert_eq!(same.verdict, Verdict::NotSignificant);
        // The published side new: the ratio is the inverse.
        let back = against_published(1.0, &runs, false).unwrap();
        assert!((back.ratio * c.ratio - 1.0).abs() < 1e-9, "{back:?}");
        assert!((back.lo * c.hi - 1.0).abs() < 1e-9 && back.verdict == Verdict::Faster);
        assert_eq!(back.runs, (3, 1));
        // One run, or no figure: no test.
        assert_eq!(against_published(1.0, &[2.0], true), None);
        assert_eq!(against_published(0.0, &runs, true), None);
    }
}
