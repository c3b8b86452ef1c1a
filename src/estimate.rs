//! What each cell is expected to cost, from records: for balancing shards
//! (`run --shard K/N`), `run --plan`, and the time left on the progress
//! line.
//!
//! A cell's figure in a results directory is the mean wall time of the
//! runs of its newest session (a settled cell: the run that settled it, the
//! rest were skipped). An estimate is that figure scaled linearly to this
//! run's N when the records ran another N, capped at the timeout, times
//! the runs this run will make. A cell no directory has a figure for gets
//! the median of the known cells of its benchmark (of every benchmark if
//! none), and no estimate when nothing is known at all.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::bench::{Bench, Size};
use crate::noise::Runs;
use crate::record::RunRecord;
use crate::store::Stored;

/// A cell's figure in one results directory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Figure {
    /// Mean wall seconds of one run (build + run).
    pub per_run_s: f64,
    /// How many runs its newest session made (skipped ones not counted).
    pub runs: u32,
    /// A run settled the cell (timeout, crash, failure): the rest were
    /// skipped, so the cell costs one run.
    pub settled: bool,
    /// The N it ran at.
    pub n: u64,
}

impl Figure {
    /// The figure of one cell's runs (`None` when none has a time: not
    /// installed, skipped, published without a time).
    pub(crate) fn of<'a>(runs: impl IntoIterator<Item = &'a RunRecord>) -> Option<Figure> {
        let timed: Vec<&RunRecord> = runs
            .into_iter()
            .filter(|r| r.wall_s > 0.0 && (r.status.has_figures() || r.status.settles_cell()))
            .collect();
        let first = timed.first()?;
        Some(Figure {
            per_run_s: timed.iter().map(|r| r.wall_s).sum::<f64>() / timed.len() as f64,
            runs: timed.len() as u32,
            settled: timed.iter().any(|r| r.status.settles_cell()),
            n: first.n,
        })
    }
}

/// Every cell's figure in one results directory, by variant (looked up
/// without building a key: the progress line asks for every remaining cell).
#[derive(Debug, Clone, Default)]
pub(crate) struct Figures(BTreeMap<String, BTreeMap<Bench, Figure>>);

impl Figures {
    /// The figures of every cell `stored` shows (its newest runs), and of
    /// every reference cell it has passes of but no runs (what a pass
    /// costs: `run --plan` and the time left count the passes, #39).
    pub(crate) fn of(stored: &Stored) -> Figures {
        let mut cells: BTreeMap<(&str, Bench), Vec<&RunRecord>> = BTreeMap::new();
        for r in stored.newest_runs() {
            cells
                .entry((r.variant.as_str(), r.bench))
                .or_default()
                .push(r);
        }
        let measured: std::collections::BTreeSet<(&str, Bench)> = cells.keys().copied().collect();
        for r in &stored.references {
            if !measured.contains(&(r.variant.as_str(), r.bench)) {
                cells
                    .entry((r.variant.as_str(), r.bench))
                    .or_default()
                    .push(r);
            }
        }
        let mut f = Figures::default();
        for ((variant, bench), runs) in cells {
            if let Some(figure) = Figure::of(runs) {
                f.set(variant, bench, figure);
            }
        }
        f
    }

    /// The figures of `stored` as it was before its first session sharded
    /// `N` ways (`--shard K/N`): what a shard machine balances by when its
    /// own results directory is the source, so that the runs it adds (a
    /// Ctrl-C and `--resume`) never move variants between shards.
    pub(crate) fn before_shards(stored: &Stored, n: usize) -> Figures {
        let suffix = format!("/{n}");
        let cut = stored
            .sessions
            .iter()
            .position(|s| s.shard.as_deref().is_some_and(|k| k.ends_with(&suffix)))
            .unwrap_or(stored.sessions.len());
        let kept: std::collections::BTreeSet<&str> = stored.sessions[..cut]
            .iter()
            .map(|s| s.session.as_str())
            .collect();
        let earlier = Stored {
            sessions: stored.sessions[..cut].to_vec(),
            runs: stored
                .runs
                .iter()
                .filter(|r| kept.contains(r.session.as_str()))
                .cloned()
                .collect(),
            references: Vec::new(),
            work: Vec::new(),
            warnings: Vec::new(),
            reproductions: Vec::new(),
            reproduction_runs: Default::default(),
        };
        Figures::of(&earlier)
    }

    pub(crate) fn get(&self, variant: &str, bench: Bench) -> Option<&Figure> {
        self.0.get(variant)?.get(&bench)
    }

    /// A cell's figure, as it becomes known (a cell finished).
    pub(crate) fn set(&mut self, variant: &str, bench: Bench, figure: Figure) {
        self.0
            .entry(variant.to_string())
            .or_default()
            .insert(bench, figure);
    }

    fn cells(&self) -> impl Iterator<Item = (&str, Bench)> {
        self.0
            .iter()
            .flat_map(|(v, b)| b.keys().map(move |b| (v.as_str(), *b)))
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.0.values().map(BTreeMap::len).sum()
    }
}

/// Where an estimate comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Basis {
    /// This results directory's own records (`--out`).
    Here,
    /// `--balance-from`'s records.
    BalanceFrom,
    /// No figure: the median of the known cells.
    Median,
    /// Nothing is known.
    Unknown,
}

impl Basis {
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Basis::Here => "this directory's records",
            Basis::BalanceFrom => "--balance-from",
            Basis::Median => "median (no figure)",
            Basis::Unknown => "unknown",
        }
    }
}

/// What one cell is expected to cost.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct Estimate {
    /// Seconds per run.
    pub per_run_s: f64,
    /// Runs it will make.
    pub runs: u32,
    pub basis: Basis,
    /// The figure was at another N, scaled linearly.
    pub scaled: bool,
}

impl Estimate {
    /// The cell's seconds: per run × runs (0 when unknown).
    pub(crate) fn seconds(&self) -> f64 {
        self.per_run_s * self.runs as f64
    }

    pub(crate) fn known(&self) -> bool {
        self.basis != Basis::Unknown
    }
}

/// Estimates for one `run`: its size, runs and timeout, and the results
/// directories that have figures, in the order they are believed.
#[derive(Debug, Clone)]
pub struct Estimator {
    layers: Vec<(Basis, Figures)>,
    size: Size,
    runs: Runs,
    timeout_s: f64,
    /// Median seconds per run of the known cells, per benchmark and
    /// (`None`) of all of them.
    medians: BTreeMap<Option<Bench>, f64>,
}

impl Estimator {
    pub(crate) fn new(
        layers: Vec<(Basis, Figures)>,
        size: Size,
        runs: Runs,
        timeout_s: f64,
    ) -> Self {
        let mut e = Estimator {
            layers,
            size,
            runs,
            timeout_s,
            medians: BTreeMap::new(),
        };
        e.medians = e.compute_medians();
        e
    }

    /// The runs a cell without a figure is expected to make.
    pub(crate) fn fresh_runs(&self) -> u32 {
        self.runs.least()
    }

    /// The estimate a directory's figure gives.
    fn of_figure(&self, bench: Bench, f: &Figure, basis: Basis) -> Estimate {
        let n = self.size.n(bench);
        let scaled = f.n != n && f.n > 0;
        let per_run = if scaled {
            f.per_run_s * n as f64 / f.n as f64
        } else {
            f.per_run_s
        };
        let runs = if f.settled {
            1
        } else {
            match self.runs {
                Runs::Fixed(k) => k,
                Runs::Auto { max, .. } => f.runs.clamp(Runs::AUTO_MIN, max),
            }
        };
        Estimate {
            per_run_s: per_run.min(self.timeout_s),
            runs,
            basis,
            scaled,
        }
    }

    /// A cell's estimate from the first directory that has its figure
    /// (`None`: no directory has one).
    pub(crate) fn figure(&self, variant: &str, bench: Bench) -> Option<Estimate> {
        self.layers.iter().find_map(|(basis, figures)| {
            figures
                .get(variant, bench)
                .map(|f| self.of_figure(bench, f, *basis))
        })
    }

    fn compute_medians(&self) -> BTreeMap<Option<Bench>, f64> {
        let mut per: BTreeMap<Option<Bench>, Vec<f64>> = BTreeMap::new();
        let mut seen = std::collections::BTreeSet::new();
        for (_, figures) in &self.layers {
            for (variant, bench) in figures.cells() {
                if !seen.insert((variant, bench)) {
                    continue;
                }
                if let Some(e) = self.figure(variant, bench) {
                    per.entry(Some(bench)).or_default().push(e.per_run_s);
                    per.entry(None).or_default().push(e.per_run_s);
                }
            }
        }
        per.into_iter()
            .filter_map(|(k, v)| Some((k, crate::noise::Spread::of(&v)?.median)))
            .collect()
    }

    /// Seconds per run of a `bench` cell without a figure: the median of
    /// the known cells of `bench`, or of all (`None`: nothing is known).
    pub(crate) fn median(&self, bench: Bench) -> Option<f64> {
        self.medians
            .get(&Some(bench))
            .or_else(|| self.medians.get(&None))
            .map(|m| m.min(self.timeout_s))
    }

    /// Whether any cell has a figure (else every estimate is unknown).
    pub(crate) fn knows_anything(&self) -> bool {
        !self.medians.is_empty()
    }

    /// What `variant`'s `bench` cell is expected to cost.
    pub(crate) fn cell(&self, variant: &str, bench: Bench) -> Estimate {
        if let Some(e) = self.figure(variant, bench) {
            return e;
        }
        match self.median(bench) {
            Some(m) => Estimate {
                per_run_s: m,
                runs: self.fresh_runs(),
                basis: Basis::Median,
                scaled: false,
            },
            None => Estimate {
                per_run_s: 0.0,
                runs: self.fresh_runs(),
                basis: Basis::Unknown,
                scaled: false,
            },
        }
    }

    /// A cell of this run finished: its figure is this directory's now
    /// (the best estimate for the cells like it that are still to come).
    pub(crate) fn finished(&mut self, variant: &str, bench: Bench, figure: Figure) {
        match self.layers.iter_mut().find(|(b, _)| *b == Basis::Here) {
            Some((_, f)) => f.set(variant, bench, figure),
            None => {
                let mut f = Figures::default();
                f.set(variant, bench, figure);
                self.layers.insert(0, (Basis::Here, f));
            }
        }
        self.medians = self.compute_medians();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Status;
    use crate::testing;

    fn stored(runs: Vec<RunRecord>) -> Stored {
        Stored {
            runs: crate::testing::shared(runs),
            ..Default::default()
        }
    }

    #[test]
    fn a_cell_costs_its_mean_run_times_the_runs_and_a_settled_one_one_run() {
        let f = Figures::of(&stored(vec![
            testing::run("a", Bench::Assoc).nth(1).wall(2.0).into(),
            testing::run("a", Bench::Assoc).nth(2).wall(4.0).into(),
            testing::run("t", Bench::Assoc)
                .nth(1)
                .wall(10.0)
                .status(Status::Timeout)
                .into(),
            testing::run("t", Bench::Assoc)
                .nth(2)
                .wall(0.0)
                .status(Status::Skipped)
                .into(),
            testing::run("x", Bench::Assoc)
                .nth(0)
                .wall(0.0)
                .status(Status::NotInstalled)
                .into(),
        ]));
        assert_eq!(f.len(), 2, "not-installed has no figure");
        let e = Estimator::new(
            vec![(Basis::BalanceFrom, f)],
            Size::Tiny,
            Runs::Fixed(3),
            8.0,
        );
        let a = e.cell("a", Bench::Assoc);
        assert_eq!((a.per_run_s, a.runs, a.basis), (3.0, 3, Basis::BalanceFrom));
        assert_eq!(a.seconds(), 9.0);
        // Capped at the timeout, one run: the rest would be skipped.
        let t = e.cell("t", Bench::Assoc);
        assert_eq!((t.per_run_s, t.runs), (8.0, 1));
        // No figure: the median of the known runs (3 and 8).
        let x = e.cell("x", Bench::Assoc);
        assert_eq!((x.per_run_s, x.runs, x.basis), (5.5, 3, Basis::Median));
        // Another benchmark: the median of all.
        assert_eq!(e.cell("a", Bench::NumComb).basis, Basis::Median);
        let none = Estimator::new(vec![], Size::Tiny, Runs::Fixed(3), 8.0);
        assert_eq!(none.cell("a", Bench::Assoc).basis, Basis::Unknown);
        assert_eq!(none.cell("a", Bench::Assoc).seconds(), 0.0);
    }

    #[test]
    fn this_directory_first_other_sizes_scaled_and_finished_cells_count() {
        let here = Figures::of(&stored(vec![
            testing::run("a", Bench::Assoc).wall(1.0).into(),
        ]));
        let mut big = testing::run("a", Bench::Assoc).wall(50.0).record();
        big.n = 2000;
        let mut b = testing::run("b", Bench::Assoc).wall(40.0).record();
        b.n = 2000;
        let from = Figures::of(&stored(vec![big, b]));
        let mut e = Estimator::new(
            vec![(Basis::Here, here), (Basis::BalanceFrom, from)],
            Size::Tiny,
            Runs::Auto { cv: 0.05, max: 10 },
            100.0,
        );
        assert_eq!(e.cell("a", Bench::Assoc).basis, Basis::Here);
        let b = e.cell("b", Bench::Assoc);
        assert_eq!((b.per_run_s, b.scaled, b.runs), (20.0, true, 3));
        assert_eq!(e.cell("c", Bench::Assoc).per_run_s, 10.5);
        e.finished(
            "c",
            Bench::Assoc,
            Figure {
                per_run_s: 2.0,
                runs: 7,
                settled: false,
                n: 1000,
            },
        );
        let c = e.cell("c", Bench::Assoc);
        assert_eq!((c.per_run_s, c.runs, c.basis), (2.0, 7, Basis::Here));
        assert_eq!(
            e.cell("d", Bench::Assoc).per_run_s,
            2.0,
            "median of 1, 2, 20"
        );
    }

    #[test]
    fn a_shard_machine_balances_by_its_directory_before_its_shard_sessions() {
        let mut s1 = testing::session("s1");
        s1.shard = None;
        let mut s2 = testing::session("s2");
        s2.shard = Some("2/4".into());
        let stored = Stored {
            sessions: vec![s1, s2],
            runs: vec![
                testing::run("a", Bench::Assoc)
                    .session("s1")
                    .wall(3.0)
                    .into(),
                testing::run("b", Bench::Assoc)
                    .session("s2")
                    .wall(5.0)
                    .into(),
                testing::run("a", Bench::Assoc)
                    .session("s2")
                    .wall(9.0)
                    .into(),
            ],
            ..Default::default()
        };
        let f = Figures::before_shards(&stored, 4);
        assert_eq!(f.len(), 1);
        assert_eq!(f.get("a", Bench::Assoc).unwrap().per_run_s, 3.0);
        assert_eq!(Figures::before_shards(&stored, 3).len(), 2);
    }
}
