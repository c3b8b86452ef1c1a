//! The precision the ranks hold at (issue #60): from the verified checks
//! on the edition's CPU model only ([`super::Level::precision`]), per
//! benchmark, in the unit the check measured (each cell's ratio to the
//! references), and by an estimate that one row cannot set.
//!
//! Per benchmark, of its re-measured rows' log differences
//! d = ln(re-measured / edition):
//!
//! - the **common shift** is their median: the references of a benchmark
//!   moving between sittings move every row of it alike (str-comb's rows
//!   moved −8 % together in results/2026's check), which changes no
//!   order, so it is said, not counted in the precision;
//! - the **precision** is the 90th percentile of a row's distance from
//!   that shift. From [`ROBUST_BELOW`] rows up it is that percentile as
//!   the rows show it (at 30 rows the 27th: one row cannot set it);
//!   below, with 24 rows the 22nd, with 8 the largest, one row would set
//!   it, so it is estimated from the rows' median distance (the MAD:
//!   1.4826 × MAD is the standard deviation of normal differences, and
//!   1.645 of those their 90th percentile), which half the rows would have
//!   to move;
//! - a benchmark with fewer than [`MIN_ROWS`] rows is not trusted alone:
//!   it takes the larger of its own and the one pooled over every
//!   benchmark's rows; with fewer than [`MIN_ROWS`] rows in all, the
//!   checks set no precision (a precision from 5 rows, or from 4 rows one
//!   of which was slow only in a later sitting, is not one);
//! - a row farther from its benchmark's shift than [`FAR`] of those
//!   standard deviations (and than [`FAR_FLOOR`]) is **flagged** as
//!   irreproducible on its own: listed, and it widens no one's precision.
//!
//! The checks of one level are pooled; the ranks use the outermost level
//! with enough rows (another boot before a level unknown before another
//! sitting of the same boot): a reader reproducing the edition does so in
//! another boot at best.

use std::collections::BTreeMap;

use super::Level;
use super::verify::Check;
use crate::bench::Bench;

/// The fewest rows a precision rests on, alone.
pub(crate) const MIN_ROWS: usize = 6;
/// From this many rows of a benchmark, its 90th percentile as measured.
pub(crate) const ROBUST_BELOW: usize = 30;
/// The standard normal's 95th percentile: the 90th of |difference|.
const Z90: f64 = 1.644_853_6;
/// The MAD of normal differences times this is their standard deviation.
const MAD_SIGMA: f64 = 1.482_6;
/// A row this many standard deviations from its benchmark's shift is
/// irreproducible (normal differences: one row in 16,000).
pub(crate) const FAR: f64 = 4.0;
/// ... and at least this far (10 %): a benchmark whose rows all agree
/// within a percent flags no row for moving 3 %.
pub(crate) const FAR_FLOOR: f64 = 0.10;

/// One benchmark's precision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct BenchPrecision {
    /// 90 % of rows move less than this from the shift (a fraction, in
    /// ratio terms: 0.07 is ±7 %).
    pub precision: f64,
    /// The common shift (ratio − 1: −0.08, the rows moved 8 % down).
    pub shift: f64,
    /// The rows it rests on.
    pub rows: usize,
    /// Too few rows of its own: the pooled precision was the larger.
    pub pooled: bool,
    /// Estimated from the median distance (fewer than [`ROBUST_BELOW`]
    /// rows), not read off the rows.
    pub robust: bool,
}

/// A row flagged as irreproducible.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Flagged {
    pub variant: String,
    pub bench: Bench,
    /// How far it moved from its benchmark's shift (ratio − 1).
    pub moved: f64,
    /// The check's day.
    pub day: String,
}

/// The precision of the verified checks on the edition's CPU model.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Precision {
    /// The level of the checks it comes from.
    pub level: Level,
    /// Those checks (indices into the summary's checks).
    pub checks: Vec<usize>,
    /// Their rows.
    pub rows: usize,
    pub benches: BTreeMap<Bench, BenchPrecision>,
    /// Pooled over every benchmark: a benchmark the checks did not
    /// re-measure takes it.
    pub pooled: BenchPrecision,
    pub flagged: Vec<Flagged>,
}

/// What sets the ranks' precision.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ranking {
    /// No verified check on the edition's CPU model.
    None,
    /// Checks on it, with too few rows to trust: (level, checks, rows).
    TooFew(Level, Vec<usize>, usize),
    Trusted(Precision),
}

impl Ranking {
    /// From the judged `checks`.
    pub(crate) fn of(checks: &[Check]) -> Ranking {
        let mut by_level: BTreeMap<Level, Vec<usize>> = BTreeMap::new();
        for (i, c) in checks.iter().enumerate() {
            if c.measures_precision() {
                by_level.entry(c.level).or_default().push(i);
            }
        }
        let rows = |ix: &[usize]| {
            ix.iter()
                .map(|&i| checks[i].agreement.rows.len())
                .sum::<usize>()
        };
        // Outermost first; enough rows once the flagged ones are left out.
        for (level, ix) in by_level.iter().rev() {
            if rows(ix) >= MIN_ROWS {
                let p = Precision::of(*level, ix.clone(), checks);
                if p.rows >= MIN_ROWS {
                    return Ranking::Trusted(p);
                }
            }
        }
        match by_level.into_iter().next_back() {
            Some((level, ix)) => {
                let n = rows(&ix);
                Ranking::TooFew(level, ix, n)
            }
            None => Ranking::None,
        }
    }

    pub(crate) fn trusted(&self) -> Option<&Precision> {
        match self {
            Ranking::Trusted(p) => Some(p),
            _ => None,
        }
    }
}

/// A re-measured row: variant, benchmark, log difference, the check's day.
type LogRow = (String, Bench, f64, String);

/// The pooled precision and each benchmark's, and per benchmark the shift
/// and standard deviation its rows are judged by (log terms).
type Estimates = (
    (BenchPrecision, BTreeMap<Bench, BenchPrecision>),
    BTreeMap<Bench, (f64, f64)>,
);

/// The median of `v` (sorted here); 0 for none.
fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The shift, the standard deviation (from the MAD) and the precision of
/// log differences `d`, all in log terms.
fn estimate(d: &[f64]) -> (f64, f64, f64) {
    let mut sorted = d.to_vec();
    let center = median(&mut sorted);
    let mut distance: Vec<f64> = d.iter().map(|x| (x - center).abs()).collect();
    let sigma = MAD_SIGMA * median(&mut distance);
    let p90 = if d.len() >= ROBUST_BELOW {
        // `distance` is sorted by `median`; nearest rank.
        let k = ((0.9 * d.len() as f64).ceil() as usize).clamp(1, d.len());
        distance[k - 1]
    } else {
        Z90 * sigma
    };
    (center, sigma, p90)
}

impl BenchPrecision {
    fn of(d: &[f64]) -> (BenchPrecision, f64) {
        let (center, sigma, p90) = estimate(d);
        (
            BenchPrecision {
                precision: p90.exp() - 1.0,
                shift: center.exp() - 1.0,
                rows: d.len(),
                pooled: false,
                robust: d.len() < ROBUST_BELOW,
            },
            sigma,
        )
    }
}

impl Precision {
    /// The precision of the checks `ix` (all of `level`).
    fn of(level: Level, ix: Vec<usize>, checks: &[Check]) -> Precision {
        // (variant, bench, log difference, day)
        let mut rows: Vec<LogRow> = Vec::new();
        for &i in &ix {
            let c = &checks[i];
            for r in &c.agreement.rows {
                let Some((v, b)) = r.variant.rsplit_once(' ') else {
                    continue;
                };
                let Ok(b) = b.parse::<Bench>() else {
                    continue;
                };
                rows.push((
                    v.to_string(),
                    b,
                    (r.remeasured / r.edition).ln(),
                    c.day().to_string(),
                ));
            }
        }
        let ((_, _), spread) = Self::estimates(&rows);
        let far: Vec<bool> = rows
            .iter()
            .map(|(_, b, d, _)| {
                let (center, sigma) = spread[b];
                (d - center).abs() > (FAR * sigma).max((1.0 + FAR_FLOOR).ln())
            })
            .collect();
        let flagged: Vec<Flagged> = rows
            .iter()
            .zip(&far)
            .filter(|(_, far)| **far)
            .map(|((v, b, d, day), _)| Flagged {
                variant: v.clone(),
                bench: *b,
                moved: (d - spread[b].0).exp() - 1.0,
                day: day.clone(),
            })
            .collect();
        // The estimates again without the flagged rows: a row that did not
        // reproduce moves no one's precision, not even by the one order
        // statistic a median-based estimate would give it.
        let kept: Vec<LogRow> = rows
            .into_iter()
            .zip(far)
            .filter(|(_, far)| !far)
            .map(|(r, _)| r)
            .collect();
        let ((pooled, benches), _) = Self::estimates(&kept);
        Precision {
            level,
            checks: ix,
            rows: kept.len(),
            benches,
            pooled,
            flagged,
        }
    }

    /// The pooled estimate and each benchmark's (a benchmark of fewer
    /// than [`MIN_ROWS`] rows the larger of its own and the pooled), with
    /// the shift and standard deviation its rows are judged by (log terms).
    fn estimates(rows: &[LogRow]) -> Estimates {
        let all: Vec<f64> = rows.iter().map(|r| r.2).collect();
        let (pooled, pooled_sigma) = BenchPrecision::of(&all);
        let pooled_center = (1.0 + pooled.shift).ln();
        let mut benches = BTreeMap::new();
        let mut spread: BTreeMap<Bench, (f64, f64)> = BTreeMap::new();
        for b in Bench::CPU {
            let d: Vec<f64> = rows.iter().filter(|r| r.1 == b).map(|r| r.2).collect();
            if d.is_empty() {
                continue;
            }
            let (mut own, sigma) = BenchPrecision::of(&d);
            if d.len() < MIN_ROWS {
                own.precision = own.precision.max(pooled.precision);
                own.pooled = true;
                spread.insert(b, (pooled_center, pooled_sigma));
            } else {
                spread.insert(b, ((1.0 + own.shift).ln(), sigma));
            }
            benches.insert(b, own);
        }
        ((pooled, benches), spread)
    }

    /// A benchmark's precision (the pooled one where the checks did not
    /// re-measure it).
    pub(crate) fn of_bench(&self, b: Bench) -> f64 {
        self.benches.get(&b).unwrap_or(&self.pooled).precision
    }

    /// A row's precision from its cells' (`(bench, normalised figure)`):
    /// each benchmark's precision weighted by its share of the row's
    /// normalised total. A weighted sum, as if its benchmarks moved
    /// together (the cautious case): a row all assoc has assoc's
    /// precision, whatever the others'.
    pub(crate) fn of_row(&self, cells: impl IntoIterator<Item = (Bench, f64)>) -> f64 {
        let (mut sum, mut weighted) = (0.0, 0.0);
        for (b, figure) in cells {
            if figure.is_finite() && figure > 0.0 {
                sum += figure;
                weighted += figure * self.of_bench(b);
            }
        }
        if sum > 0.0 { weighted / sum } else { 0.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduced::verify::{Check, Verdict};
    use crate::reproduced::{Agreement, Place, Row};

    /// A verified check at `level` of rows (variant, bench, remeasured /
    /// edition).
    pub(crate) fn check(level: Level, rows: &[(&str, &str, f64)]) -> Check {
        Check {
            file: "x.json".into(),
            agreement: Agreement {
                date: "2026-12-05T00:00:00Z".into(),
                machine: "AMD EPYC".into(),
                rows: rows
                    .iter()
                    .map(|(v, b, r)| Row {
                        variant: format!("{v} {b}"),
                        edition: 1.0,
                        remeasured: *r,
                    })
                    .collect(),
                unmatched: Vec::new(),
            },
            verdict: Verdict::Verified {
                runs: "reproduce-x".into(),
                renormalised: None,
            },
            level,
            by_name: false,
            place: Place::default(),
            run: None,
        }
    }

    /// 8 rows of one benchmark: ±1 %, ±2 %, ±3 %, ±4 % around a common
    /// shift of −8 %.
    fn eight(bench: &str) -> Vec<(String, String, f64)> {
        [-0.04, -0.03, -0.02, -0.01, 0.01, 0.02, 0.03, 0.04]
            .iter()
            .enumerate()
            .map(|(i, d)| (format!("v{i}"), bench.to_string(), (0.92f64.ln() + d).exp()))
            .collect()
    }

    fn rows(v: &[(String, String, f64)]) -> Vec<(&str, &str, f64)> {
        v.iter()
            .map(|(a, b, r)| (a.as_str(), b.as_str(), *r))
            .collect()
    }

    /// The shift is said, not counted: 8 rows around −8 % have a
    /// precision of their distance from it (MAD 0.025: 1.645 × 1.4826 ×
    /// 0.025 = 6.1 % in log terms), and no row is flagged.
    #[test]
    fn a_common_shift_is_not_precision() {
        let r = eight("assoc");
        let p = Ranking::of(&[check(Level::AnotherBoot, &rows(&r))]);
        let p = p.trusted().expect("8 rows are enough");
        let a = p.benches[&Bench::Assoc];
        assert!((a.shift + 0.08).abs() < 1e-9, "{a:?}");
        let want = (Z90 * MAD_SIGMA * 0.025).exp() - 1.0;
        assert!((a.precision - want).abs() < 1e-9, "{a:?}");
        assert!(a.robust && !a.pooled && a.rows == 8);
        assert!(p.flagged.is_empty(), "{:?}", p.flagged);
    }

    /// A precision from 5 rows is not trusted alone: it sets nothing; a
    /// benchmark of 5 rows beside others takes the pooled precision where
    /// it is the larger.
    #[test]
    fn a_precision_from_five_rows_is_not_trusted_alone() {
        let five = [
            ("a", "assoc", 1.01),
            ("b", "assoc", 1.02),
            ("c", "assoc", 0.99),
            ("d", "assoc", 1.0),
            ("e", "assoc", 1.03),
        ];
        let r = Ranking::of(&[check(Level::AnotherBoot, &five)]);
        assert_eq!(r, Ranking::TooFew(Level::AnotherBoot, vec![0], 5));
        // With 8 num-comb rows spread wider beside them: assoc's own
        // precision is not used alone.
        let mut both: Vec<(String, String, f64)> = five
            .iter()
            .map(|(a, b, r)| (a.to_string(), b.to_string(), *r))
            .collect();
        both.extend(
            eight("num-comb")
                .into_iter()
                .map(|(v, b, r)| (v, b, r * 1.3)),
        );
        let r = Ranking::of(&[check(Level::AnotherBoot, &rows(&both))]);
        let p = r.trusted().unwrap();
        let assoc = p.benches[&Bench::Assoc];
        assert!(assoc.pooled, "{assoc:?}");
        assert!(
            assoc.precision >= p.pooled.precision,
            "{assoc:?} {:?}",
            p.pooled
        );
        assert!(!p.benches[&Bench::NumComb].pooled);
        assert_eq!(p.rows, 13);
    }

    /// One row cannot set the precision: 24 rows, one of them 40× off
    /// (a forged or irreproducible row), give the precision the other
    /// rows give within a row's worth, and that row is flagged on its own.
    /// So does one row slow at 12,130 %.
    #[test]
    fn one_row_cannot_set_the_precision_and_is_flagged_on_its_own() {
        let mut r: Vec<(String, String, f64)> = Vec::new();
        for b in ["assoc", "num-comb", "str-comb"] {
            r.extend(eight(b));
        }
        let honest = Ranking::of(&[check(Level::SameBoot, &rows(&r))]);
        let honest = honest.trusted().unwrap().clone();
        for off in [40.0, 122.3] {
            let mut forged = r.clone();
            forged[3].2 *= off;
            let p = Ranking::of(&[check(Level::SameBoot, &rows(&forged))]);
            let p = p.trusted().unwrap();
            for b in Bench::CPU {
                let (h, f) = (honest.benches[&b].precision, p.benches[&b].precision);
                assert!(f <= h * 1.6 + 1e-9 && f < 0.15, "{b}: {h} → {f} at ×{off}");
            }
            assert_eq!(p.flagged.len(), 1, "{:?}", p.flagged);
            assert_eq!(p.flagged[0].variant, "v3");
            assert_eq!(p.flagged[0].bench, Bench::Assoc);
        }
        assert!(honest.flagged.is_empty());
    }

    /// The ranks use the outermost level with enough rows; a check on
    /// another CPU model never counts.
    #[test]
    fn the_outermost_level_sets_the_precision_and_another_cpu_never() {
        let same = eight("assoc");
        let wide: Vec<(String, String, f64)> = eight("assoc")
            .into_iter()
            .enumerate()
            .map(|(i, (v, b, r))| (v, b, r * if i % 2 == 0 { 1.5 } else { 0.6 }))
            .collect();
        let checks = [
            check(Level::SameBoot, &rows(&same)),
            check(Level::AnotherCpuModel, &rows(&wide)),
        ];
        let p = Ranking::of(&checks);
        let p = p.trusted().unwrap();
        assert_eq!((p.level, p.checks.clone()), (Level::SameBoot, vec![0]));
        let checks = [
            check(Level::SameBoot, &rows(&same)),
            check(Level::AnotherBoot, &rows(&same)),
        ];
        let r = Ranking::of(&checks);
        assert_eq!(r.trusted().unwrap().level, Level::AnotherBoot);
        assert_eq!(Ranking::of(&checks[..0]), Ranking::None);
        assert_eq!(
            Ranking::of(&[check(Level::AnotherCpuModel, &rows(&wide))]),
            Ranking::None
        );
    }

    /// A row's precision weighs each benchmark's by its share of the
    /// row's figure.
    #[test]
    fn a_rows_precision_weighs_its_benchmarks() {
        let mut r = eight("assoc");
        r.extend(eight("num-comb").into_iter().map(|(v, b, x)| {
            let d = x.ln() - 0.92f64.ln();
            (v, b, (0.92f64.ln() + 2.0 * d).exp())
        }));
        let p = Ranking::of(&[check(Level::AnotherBoot, &rows(&r))]);
        let p = p.trusted().unwrap();
        let (a, n) = (p.of_bench(Bench::Assoc), p.of_bench(Bench::NumComb));
        assert!(n > a * 1.9, "{a} {n}");
        let q = p.of_row([(Bench::Assoc, 3.0), (Bench::NumComb, 1.0)]);
        assert!((q - (3.0 * a + n) / 4.0).abs() < 1e-12, "{q}");
        // str-comb was not re-measured: the pooled precision.
        assert_eq!(p.of_bench(Bench::StrComb), p.pooled.precision);
    }
}
