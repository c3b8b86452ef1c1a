//! How much a cell's runs disagree, and how many runs a cell gets: which
//! runs count as its noise ([`NoiseSample`]: the warm ones), their spread
//! ([`Spread`]), and [`Runs`] (best of N, or `--runs auto` until the
//! spread is small). One rule for the table's spread and noisy flag, the
//! shared ranks, `--runs auto`'s stop rule, `--resume`'s complete cells,
//! the estimates and `compare`'s significance test.

use serde::Serialize;

use crate::record::{RunRecord, SessionRecord};

/// How many times faster than a program's first run at a size a later run
/// at the same size, on the same caches, may be before it hints at a
/// remembered answer (issue #37, row 5). A hint, never a mark by itself
/// (issue #59, row 6: crystal's warm build cache made its run 3 8× faster
/// than run 1, and the edition called a correct program's figure a
/// remembered answer): in `run` it sends the cell's runs to a deeper
/// search of its caches and prepared copy and a control run at an N
/// announced to no one (`cell::measure`); in `check`, where both runs
/// compared have the program's build cached, a second run that does less
/// than a quarter of its first's work fails (`check::scaling`).
///
/// Why 4: where both runs have the program's build cached, nothing
/// legitimate makes the second much faster. Measured here (a
/// 2-core host at load 7, `langbench run --size 30000 --runs 3` on fresh
/// caches, then the stored 2026 edition): after their first run, python3,
/// java, node, c-gcc and go runs differ by at most 1.7× (node assoc 0.30
/// s → 0.18 s), and in the 2026 edition (2021 sizes) a warm first run by
/// at most 1.4× (go num-comb 1.01 s → 0.74 s); twice that margin for a
/// loaded machine. A first run that builds what the toolchain caches is
/// far slower (`go run` builds its runtime: 19.8 s → 0.14 s, 144×, assoc
/// at N = 30,000; Crystal its prelude: 7.5× at the 2021 sizes, and 8× in
/// an edition whose run 1 was not labelled cold), which no factor tells
/// from a remembered answer: hence a hint, answered by evidence.
/// Remembered answers at the edition's sizes make a figure 45–75× too
/// fast (issue #37's attack).
pub(crate) const WARM_FACTOR: f64 = 4.0;

/// Seconds a later run must gain on the first before [`WARM_FACTOR`]
/// counts: below this, the ratio of two runs of a few milliseconds is the
/// machine's noise (c-gcc str-comb's run step at N = 30,000: 29 ms, then 6
/// ms), not the program's.
pub(crate) const WARM_GAIN_FLOOR_S: f64 = 0.2;

/// Whether a later run of `warm_s` seconds beats a first one of `cold_s`
/// at the same size by more than a toolchain's cache explains
/// ([`WARM_FACTOR`], [`WARM_GAIN_FLOOR_S`]).
pub(crate) fn beats_cold(cold_s: f64, warm_s: f64) -> bool {
    cold_s - warm_s >= WARM_GAIN_FLOOR_S && cold_s > WARM_FACTOR * warm_s
}

/// How the wall times of a cell's runs spread.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct Spread {
    pub runs: usize,
    pub mean: f64,
    pub median: f64,
    /// Sample standard deviation (n − 1); 0 for one run.
    pub stddev: f64,
    pub min: f64,
    pub max: f64,
    /// Coefficient of variation: stddev / mean.
    pub cv: f64,
}

impl Spread {
    /// Hand-written: five textbook formulas over a handful of runs; a
    /// statistics crate would add a dependency for less than this.
    pub(crate) fn of(values: &[f64]) -> Option<Spread> {
        let n = values.len();
        if n == 0 {
            return None;
        }
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let mean = v.iter().sum::<f64>() / n as f64;
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        let stddev = if n > 1 {
            (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        Some(Spread {
            runs: n,
            mean,
            median,
            stddev,
            min: v[0],
            max: v[n - 1],
            cv: if mean > 0.0 { stddev / mean } else { 0.0 },
        })
    }
}

/// The runs whose wall times describe a cell's noise, of `runs` (its runs
/// with figures), and the runs left out of them.
#[derive(Debug, Clone)]
pub(crate) struct NoiseSample<'a> {
    /// Counted in the spread (CV, mean, median, stddev, min–max range),
    /// the noisy flag, shared ranks, `--runs auto`'s stop rule and
    /// `compare`'s significance test.
    pub counted: Vec<&'a RunRecord>,
    /// Runs that started on empty toolchain caches, left out because the
    /// cell has at least two warm runs.
    pub cold_left_out: Vec<&'a RunRecord>,
}

impl<'a> NoiseSample<'a> {
    /// The warm runs when at least two of `runs` are warm, else every one
    /// of them. A run that started on empty toolchain caches (`cache:
    /// cold`) measures their warm-up (Go building its runtime, Crystal its
    /// prelude): a systematic effect, not the machine's noise, so, as
    /// hyperfine and pyperf leave their warm-up runs out of their
    /// statistics, it is left out of the spread; it stays a candidate for
    /// the figure (best of N) and in every record. A run whose record says
    /// nothing of its caches (a variant without declared caches, an older
    /// record) counts as warm. With fewer than two warm runs (`--runs 2`,
    /// `--cold-caches`) there is no spread of warm runs to take, and every
    /// run counts, as before caches were recorded.
    pub(crate) fn of(runs: impl IntoIterator<Item = &'a RunRecord>) -> NoiseSample<'a> {
        let runs: Vec<&RunRecord> = runs.into_iter().collect();
        let cold = |r: &RunRecord| r.cache == Some(crate::record::CacheStart::Cold);
        let (cold_runs, warm): (Vec<&RunRecord>, Vec<&RunRecord>) =
            runs.iter().partition(|r| cold(r));
        if warm.len() >= 2 && !cold_runs.is_empty() {
            NoiseSample {
                counted: warm,
                cold_left_out: cold_runs,
            }
        } else {
            NoiseSample {
                counted: runs,
                cold_left_out: Vec::new(),
            }
        }
    }

    /// The counted runs' wall times.
    pub(crate) fn walls(&self) -> Vec<f64> {
        self.counted.iter().map(|r| r.wall_s).collect()
    }
}

/// How many runs a cell gets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Runs {
    /// Exactly N (the editions: 3).
    Fixed(u32),
    /// At least 3, then until the runs' coefficient of variation is at most
    /// `cv` (a fraction), at most `max`. The runs counted are those of the
    /// cell's spread ([`NoiseSample`]): a cold first run
    /// followed by warm ones does not count, so such a cell makes at least
    /// 4 runs (3 warm), as hyperfine's and pyperf's warm-up runs come on
    /// top of their measured ones.
    Auto { cv: f64, max: u32 },
}

impl Runs {
    /// The most runs a cell can get.
    pub(crate) fn max(self) -> u32 {
        match self {
            Runs::Fixed(n) => n,
            Runs::Auto { max, .. } => max,
        }
    }

    /// The fewest runs before `Auto` may stop.
    pub(crate) const AUTO_MIN: u32 = 3;

    /// The runs a session's record says it asked of each cell (its `runs`
    /// and `runs_auto_cv`, written by [`Runs::stored`]).
    pub(crate) fn of(s: &SessionRecord) -> Runs {
        match s.runs_auto_cv {
            Some(cv) => Runs::Auto { cv, max: s.runs },
            None => Runs::Fixed(s.runs),
        }
    }

    /// This policy as a session record stores it: (`runs`, `runs_auto_cv`).
    pub(crate) fn stored(self) -> (u32, Option<f64>) {
        match self {
            Runs::Fixed(n) => (n, None),
            Runs::Auto { cv, max } => (max, Some(cv)),
        }
    }

    /// The runs a cell makes when nothing settles it early: N, or `Auto`'s
    /// minimum (it may stop there).
    pub(crate) fn least(self) -> u32 {
        match self {
            Runs::Fixed(n) => n,
            Runs::Auto { max, .. } => Self::AUTO_MIN.min(max),
        }
    }

    /// Whether a cell that has made `done` runs has enough; `runs`: its
    /// runs so far (those with figures count toward `auto`'s minimum and
    /// spread, as [`NoiseSample`] counts them).
    pub(crate) fn enough<'a>(
        self,
        done: u32,
        runs: impl IntoIterator<Item = &'a RunRecord>,
    ) -> bool {
        match self {
            Runs::Fixed(n) => done >= n,
            Runs::Auto { cv, max } => {
                if done >= max {
                    return true;
                }
                let sample = NoiseSample::of(runs.into_iter().filter(|r| r.status.has_figures()));
                done >= Self::AUTO_MIN
                    && sample.counted.len() >= Self::AUTO_MIN as usize
                    && Spread::of(&sample.walls()).is_some_and(|s| s.cv <= cv)
            }
        }
    }

    /// Run `run` as the progress line says it: `run 2/3`, or for auto
    /// `run 4 (3–10)` (at least 3, at most 10).
    pub(crate) fn nth(self, run: u32) -> String {
        match self {
            Runs::Fixed(n) => format!("run {run}/{n}"),
            Runs::Auto { max, .. } => format!("run {run} ({}–{max})", Self::AUTO_MIN),
        }
    }

    /// How `run --plan` and the session say it.
    pub(crate) fn describe(self) -> String {
        match self {
            Runs::Fixed(n) => format!("best of {n}"),
            Runs::Auto { cv, max } => format!(
                "--runs auto ({}–{max} runs, until CV ≤ {:.1}%)",
                Self::AUTO_MIN,
                cv * 100.0
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::Bench;
    use crate::record::CacheStart::{self, Cold, Warm};
    use crate::testing;

    fn runs(walls: &[(f64, CacheStart)]) -> Vec<RunRecord> {
        walls
            .iter()
            .enumerate()
            .map(|(i, &(w, c))| {
                testing::run("go", Bench::NumComb)
                    .nth(i as u32 + 1)
                    .wall(w)
                    .cache(c)
                    .record()
            })
            .collect()
    }

    /// `--runs auto` stops on the spread of the runs the table counts: a
    /// cold first run is not one of its 3, and its 7 s do not keep a
    /// quiet cell running to --max-runs.
    #[test]
    fn auto_counts_warm_runs_toward_its_minimum_and_its_spread() {
        let auto = Runs::Auto { cv: 0.05, max: 10 };
        let warm3 = runs(&[(7.07, Cold), (0.466, Warm), (0.461, Warm)]);
        assert!(!auto.enough(3, &warm3), "two warm runs are not three");
        let warm4 = runs(&[(7.07, Cold), (0.466, Warm), (0.461, Warm), (0.463, Warm)]);
        assert!(auto.enough(4, &warm4), "three warm runs within 1%");
        // Counted with the cold run, the spread would be 140%: not enough.
        let no_cache: Vec<RunRecord> = warm4
            .iter()
            .cloned()
            .map(|mut r| {
                r.cache = None;
                r
            })
            .collect();
        assert!(!auto.enough(4, &no_cache));
        // Every run cold (--cold-caches): every run counts, 3 are enough.
        let cold = runs(&[(7.07, Cold), (7.1, Cold), (7.05, Cold)]);
        assert!(auto.enough(3, &cold));
        // The cap still holds; fixed N counts every run, cold or not.
        assert!(auto.enough(10, &warm3));
        assert!(Runs::Fixed(3).enough(3, &warm3));
        assert!(!Runs::Fixed(3).enough(2, &warm3));
    }

    /// A later run is taken for a remembered answer past 4× and 0.2 s.
    #[test]
    fn beats_cold_needs_the_factor_and_the_floor() {
        assert!(beats_cold(1.0, 0.2));
        assert!(
            !beats_cold(1.0, 0.3),
            "3.3×: a toolchain's cache explains it"
        );
        assert!(!beats_cold(0.1, 0.001), "100×, but 0.1 s: noise");
        assert!(beats_cold(0.3, 0.01));
        assert!(!beats_cold(0.5, 0.6));
    }

    /// A session record holds the policy it ran with, and gives back the
    /// same one.
    #[test]
    fn a_session_record_stores_the_runs_policy_as_it_is() {
        for runs in [
            Runs::Fixed(1),
            Runs::Fixed(3),
            Runs::Auto { cv: 0.05, max: 10 },
            Runs::Auto { cv: 0.021, max: 3 },
        ] {
            let mut s = testing::session("s");
            (s.runs, s.runs_auto_cv) = runs.stored();
            assert_eq!(Runs::of(&s), runs);
        }
        assert_eq!(Runs::Fixed(5).least(), 5);
        assert_eq!(Runs::Auto { cv: 0.05, max: 10 }.least(), Runs::AUTO_MIN);
    }

    /// How many runs `--runs auto` makes of a cell whose runs take these
    /// walls in turn (every run warm): the suite's loop, without it.
    fn runs_made(auto: Runs, walls: &[f64]) -> u32 {
        let all = runs(&walls.iter().map(|&w| (w, Warm)).collect::<Vec<_>>());
        (1..=walls.len() as u32)
            .find(|&done| auto.enough(done, &all[..done as usize]))
            .expect("the script is longer than --max-runs")
    }

    #[test]
    fn auto_stops_at_three_quiet_runs_and_a_noisy_cell_at_its_cap() {
        let auto = Runs::Auto { cv: 0.05, max: 6 };
        assert_eq!(runs_made(auto, &[1.0, 1.01, 0.99, 1.0, 1.0, 1.0]), 3);
        // One 2.0 among quiet runs keeps the spread far above 5% (about
        // 29% at ten runs): the cell runs to its cap.
        let noisy = [1.0, 1.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
        assert_eq!(runs_made(Runs::Auto { cv: 0.05, max: 10 }, &noisy), 10);
        assert_eq!(runs_made(auto, &noisy), 6, "the cap");
        // A looser bound stops as soon as the spread is within it.
        assert_eq!(runs_made(Runs::Auto { cv: 0.5, max: 10 }, &noisy), 3);
    }
}
