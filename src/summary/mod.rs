//! From stored runs to the editions' table: one row per variant, time and RAM
//! per benchmark (best of N by wall time), totals, sorted by total time.
//! Failures stay visible in every rendering: a failed cell is never shown as
//! a plain time, a timeout is not a time, and a total over fewer than every
//! benchmark is no total (it is "partial", ranked after the complete ones).
//!
//! Besides the figures, a [`Summary`] knows where they come from (edition,
//! sizes, dates, machines, sessions, langbench versions) and how sure they
//! are (each cell's runs, the rows whose totals are within each other's
//! noise), so every rendering can say so.
//!
//! Its face: [`Summary`] (`from_stored`, `view`, `document`, `title`,
//! `sizes_text`, `ranks`, `rank_key`, `row_precision`) with its [`Row`]s and
//! their [`Cell`]s, [`Rank`], [`RankKey`] and [`ranks_within`] for
//! `compare`, [`View`],
//! `runs::table`, `json::write_results` and `measured::sections`; the rest is
//! its inside.

mod charts;
mod checks;
#[cfg(test)]
mod checks_tests;
mod gather;
pub(crate) mod json;
pub(crate) mod measured;
mod meta;
#[cfg(test)]
mod normalised_tests;
mod notes;
mod precision;
#[cfg(test)]
mod rendered_tests;
pub(crate) mod runs;
mod table;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use crate::bench::Bench;
use crate::machine::Machine;
use crate::noise::{NoiseSample, Spread};
use crate::record::{Origin, RunRecord, Status};
use crate::reference::{HostSpeed, Normalised};
use langbench_document::{Flag, thousands};
use langbench_spawn::{Exit, signal_name};

/// A run left out of its cell's spread: it started on cold caches.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
struct ColdRun {
    /// Its number within the cell.
    pub run: u32,
    pub wall_s: f64,
}

/// A variant × benchmark: its runs from the newest session that ran it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Cell {
    pub status: Status,
    /// The run whose figures the table shows: the fastest run of the cell's
    /// status (best of N for ok cells).
    pub best: Option<Arc<RunRecord>>,
    pub runs: Vec<Arc<RunRecord>>,
    /// The spread of the wall times of the runs of the cell's status that
    /// count as its noise ([`NoiseSample`]: the warm ones when it has two).
    pub spread: Option<Spread>,
    /// Runs of the cell's status that started on cold caches and are left
    /// out of `spread`.
    cold_left_out: Vec<ColdRun>,
    /// The runs its session asked for (best of N; with `--runs auto` the
    /// minimum, 3); `None` when the session is not known.
    pub asked: Option<u32>,
    /// Its runs against the reference passes of their sittings (issues
    /// #39, #60): the fastest and slowest of its counted runs' normalised
    /// times, the fastest its figure; `None` without references in the
    /// sitting of every one of them, or for a cell that is not ok.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub normalised: Option<Normalised>,
    /// Its runs measured after a memory probe far slower than their
    /// session's median (issue #60): the host gave memory slowly then.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub slow_memory: Vec<crate::mem_probe::SlowProbe>,
}

impl Cell {
    fn from_runs(mut runs: Vec<Arc<RunRecord>>, asked: Option<u32>) -> Cell {
        runs.sort_by_key(|r| r.attempt);
        let status = runs
            .iter()
            .map(|r| r.status)
            .filter(|s| *s != Status::Skipped)
            .max()
            .unwrap_or(Status::Skipped);
        let best = runs
            .iter()
            .filter(|r| r.status == status && status.has_figures())
            .min_by(|a, b| a.wall_s.total_cmp(&b.wall_s))
            .or_else(|| runs.iter().find(|r| r.status == status))
            .cloned();
        let sample = NoiseSample::of(
            runs.iter()
                .map(|r| &**r)
                .filter(|r| r.status == status && status.has_figures()),
        );
        let spread = Spread::of(&sample.walls());
        let cold_left_out = sample
            .cold_left_out
            .iter()
            .map(|r| ColdRun {
                run: r.attempt,
                wall_s: r.wall_s,
            })
            .collect();
        Cell {
            status,
            best,
            spread,
            cold_left_out,
            runs,
            asked,
            normalised: None,
            slow_memory: Vec::new(),
        }
    }

    /// Its normalised figure from `host`'s reference passes, for an ok
    /// cell measured here (a published cell is one record of another
    /// machine: no references ran around it).
    fn normalise(&mut self, host: &HostSpeed) {
        self.normalised = if self.status.is_ok() && self.wall_s().is_some() && !self.published() {
            Normalised::of(host, self.status_runs())
        } else {
            None
        };
    }

    /// Its runs, in attempt order (shared with the records they were read
    /// into, hence the `Arc`s of [`Cell::runs`]).
    pub(crate) fn records(&self) -> impl Iterator<Item = &RunRecord> + Clone {
        self.runs.iter().map(|r| &**r)
    }

    /// The runs that count for its figure: those of its status.
    pub(crate) fn status_runs(&self) -> impl Iterator<Item = &RunRecord> + Clone {
        self.records().filter(move |r| r.status == self.status)
    }

    /// Whether `r` is one of the runs the spread columns count (a shown
    /// run of the cell's status, not a cold one left out; none of a
    /// published cell, one record without a spread, or of a cell without
    /// a figure, such as a timeout).
    fn in_spread(&self, r: &RunRecord) -> bool {
        !self.published()
            && self.wall_s().is_some()
            && r.status == self.status
            && r.attempt > 0
            && self
                .runs
                .iter()
                .any(|x| x.session == r.session && x.attempt == r.attempt)
            && !self.cold_left_out.iter().any(|c| c.run == r.attempt)
    }

    /// The runs disagree more than `cv` (a fraction): the figure may be
    /// the machine's noise as much as the program's.
    pub(crate) fn noisy(&self, cv: f64) -> Option<Spread> {
        self.spread.filter(|s| s.runs > 1 && s.cv > cv)
    }

    /// The figure: the shown run's wall time. A timeout has none (it is
    /// where the run was killed, not a time it took).
    pub(crate) fn wall_s(&self) -> Option<f64> {
        self.best
            .as_ref()
            .filter(|_| self.status.has_figures() && self.status != Status::Timeout)
            .map(|b| b.wall_s)
    }

    /// Which of the cell's runs started on cold toolchain caches (the
    /// compiler rebuilt what it caches), their times, whether the spread
    /// counts them, and above all whether the figure is one of them (not
    /// what a person's second run measures); `None` when none did or the
    /// records do not say.
    fn cold_figure(&self) -> Option<String> {
        use crate::record::CacheStart;
        let best = self.best.as_ref()?;
        let measured = self.records().filter(|r| r.status.has_figures());
        let left_out = !self.cold_left_out.is_empty();
        if best.cache != Some(CacheStart::Cold) {
            let cold: Vec<&RunRecord> = measured
                .filter(|r| r.cache == Some(CacheStart::Cold))
                .collect();
            if cold.is_empty() {
                return None;
            }
            let which = cold
                .iter()
                .map(|r| r.attempt.to_string())
                .collect::<Vec<_>>()
                .join(", ");
            let times = cold
                .iter()
                .map(|r| format!("{:.2} s", r.wall_s))
                .collect::<Vec<_>>()
                .join(", ");
            return Some(format!(
                "run{} {which} started cold (nothing of this program in its toolchain caches yet: \
                 empty caches, or its first run with them; {times}); {}; the figure is a warm \
                 run, as a person's second",
                if cold.len() == 1 { "" } else { "s" },
                if left_out {
                    "not counted in the spread"
                } else {
                    "counted in the spread (the cell has fewer than two warm runs)"
                }
            ));
        }
        Some(if measured.clone().count() == 1 {
            "cold caches: its one run started with nothing of this program in its toolchain \
                 caches: the figure includes building what the toolchain caches"
                .to_string()
        } else if measured.clone().all(|r| r.cache == Some(CacheStart::Cold)) {
            "cold caches: every run started with nothing of this program in its toolchain \
                 caches (`--cold-caches`, or a toolchain that kept nothing in them): the figure includes building what \
                 the toolchain caches"
                .to_string()
        } else {
            format!(
                "cold caches: the fastest run was the cell's first, with nothing of this \
                     program in its toolchain caches; the warm runs after it were slower{}",
                if left_out {
                    "; the spread counts the warm runs only"
                } else {
                    ""
                }
            )
        })
    }

    /// A run of the cell whose answer was found, after it, where the
    /// variant's runs keep things for the next (its caches, its prepared
    /// copy): the record's `remembered` (issue #59, row 6). Its status is
    /// `escaped`; the note is its record's.
    pub(crate) fn remembered(&self) -> Option<&RunRecord> {
        self.records().find(|r| r.remembered.is_some())
    }

    /// Where a timed-out run was killed.
    fn timed_out_at(&self) -> Option<f64> {
        self.best
            .as_ref()
            .filter(|_| self.status == Status::Timeout)
            .map(|b| b.wall_s)
    }

    /// The figure's CPU seconds (user + sys of the shown run, `wait4`);
    /// published editions gave none.
    pub(crate) fn cpu_s(&self) -> Option<f64> {
        self.wall_s()?;
        self.best
            .as_ref()
            .filter(|b| b.origin == Origin::Measured)
            .map(|b| b.user_s + b.sys_s)
    }

    /// Copied from a published edition (one record: its best of N).
    pub(crate) fn published(&self) -> bool {
        self.best
            .as_ref()
            .is_some_and(|b| b.origin == Origin::Published)
    }

    /// The range of the runs' wall times (fastest, slowest) counted in the
    /// spread, when there are several: the whisker under the figure and
    /// what shared ranks compare. A cold run left out of the spread is not
    /// in it, unless it is the figure (the range then starts there).
    pub(crate) fn interval(&self) -> Option<(f64, f64)> {
        let w = self.wall_s()?;
        self.spread
            .filter(|s| s.runs > 1)
            .map(|s| (s.min.min(w), s.max))
    }

    /// Fewer runs than its session asked for, without an earlier run that
    /// settled the cell (the session was stopped): (runs, asked).
    fn partial_runs(&self) -> Option<(usize, u32)> {
        let asked = self.asked?;
        let ran = self.runs.iter().filter(|r| r.attempt > 0).count();
        let settled = self.runs.iter().any(|r| r.status.settles_cell());
        (ran > 0 && (ran as u32) < asked && !settled && !self.published()).then_some((ran, asked))
    }

    /// Peak RSS: of the shown run, or the peak a run that did not finish
    /// had reached (when known).
    pub(crate) fn rss_kb(&self) -> Option<u64> {
        let b = self.best.as_ref()?;
        match self.status {
            s if s.has_figures() => Some(b.max_rss_kb),
            // A crash or a memory kill still shows the peak it reached.
            Status::Crashed | Status::Oom if b.max_rss_kb > 0 => Some(b.max_rss_kb),
            Status::DidNotFinish if b.max_rss_kb > 0 => Some(b.max_rss_kb),
            _ => None,
        }
    }

    /// Short text for the time column.
    fn time_text(&self) -> String {
        let t = self.wall_s().map(|w| format!("{w:.2}")).unwrap_or_default();
        let exit = self.best.as_ref().and_then(|b| b.exit);
        match self.status {
            Status::Ok => match self.partial_runs() {
                Some((ran, asked)) => format!("{t} ({ran} of {asked} runs)"),
                None => t,
            },
            Status::BadExit => format!("{t} (exit {})", exit_text(exit)),
            Status::WrongOutput => format!("{t} WRONG OUTPUT"),
            Status::Escaped if self.remembered().is_some() => format!("{t} REMEMBERED"),
            Status::Escaped => format!("{t} ESCAPED"),
            Status::Oom => "OOM".into(),
            Status::Timeout => format!("TIMEOUT >{:.2}", self.timed_out_at().unwrap_or(0.0)),
            Status::Crashed => format!("CRASHED ({})", exit_text(exit)),
            Status::Failed => match exit {
                Some(e) => format!("FAILED ({})", exit_text(Some(e))),
                None => "FAILED".into(),
            },
            Status::DidNotFinish => "DID NOT FINISH".into(),
            Status::NotInstalled => "not installed".into(),
            Status::Skipped => "skipped".into(),
        }
    }

    fn rss_text(&self) -> String {
        self.rss_kb().map(thousands).unwrap_or_else(|| "-".into())
    }

    /// How the cell's mark looks (see [`Flag`]).
    pub(crate) fn flag(&self, noise_cv: f64) -> Option<Flag> {
        match self.status {
            Status::Ok if self.partial_runs().is_some() => Some(Flag::PartialCell),
            Status::Ok => self.noisy(noise_cv).map(|_| Flag::Noisy),
            Status::BadExit | Status::WrongOutput => Some(Flag::Wrong),
            Status::Escaped => Some(Flag::Escaped),
            Status::Timeout => Some(Flag::Timeout),
            Status::NotInstalled | Status::Skipped => Some(Flag::NotRun),
            Status::Failed | Status::Crashed | Status::Oom | Status::DidNotFinish => {
                Some(Flag::Failed)
            }
        }
    }
}

fn exit_text(e: Option<Exit>) -> String {
    match e {
        Some(Exit::Exited(c)) => c.to_string(),
        Some(Exit::Signaled(s)) => signal_name(s).to_string(),
        None => "?".into(),
    }
}

/// One variant's row.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Row {
    pub variant: String,
    pub language: String,
    pub flags: String,
    pub version: String,
    pub cells: BTreeMap<Bench, Cell>,
    /// Benchmarks of the table this variant has no run of (a run cut short
    /// before them): `--resume` runs them.
    pub missing: Vec<Bench>,
    /// Benchmarks of the table this variant has no program for.
    pub no_program: Vec<Bench>,
    /// Index into [`Summary::machines`] of the machine its cells ran on
    /// (the newest session's).
    pub machine: Option<usize>,
    /// It has runs; `false`: a session selected it, but stopped before
    /// running any of its cells (a row saying "not run").
    pub started: bool,
    /// For a row that was not started: whether its toolchain was installed.
    pub selected_installed: bool,
}

impl Row {
    /// What the row shows to name itself: `Language · flags`.
    pub(crate) fn label(&self) -> String {
        format!("{} · {}", self.language, self.flags)
    }

    /// Sum of the cells that have a time (flagged cells included; failed
    /// cells and timeouts are not times): the total of a complete row, the
    /// "partial" sum of another.
    fn sum_s(&self) -> f64 {
        self.cells.values().filter_map(Cell::wall_s).sum()
    }

    /// The total: only a complete row has one.
    pub(crate) fn total_s(&self) -> Option<f64> {
        self.complete().then(|| self.sum_s())
    }

    fn sum_rss_kb(&self) -> u64 {
        self.cells.values().filter_map(Cell::rss_kb).sum()
    }

    pub(crate) fn total_rss_kb(&self) -> Option<u64> {
        self.complete().then(|| self.sum_rss_kb())
    }

    /// The range the total could have taken over the runs measured: the
    /// sums of each cell's fastest and slowest runs (a cell of one run
    /// counts its one figure at both ends).
    pub(crate) fn total_range(&self) -> Option<(f64, f64)> {
        self.total_s()?;
        let mut lo = 0.0;
        let mut hi = 0.0;
        for c in self.cells.values() {
            let w = c.wall_s()?;
            let (a, b) = c.interval().unwrap_or((w, w));
            lo += a;
            hi += b;
        }
        Some((lo, hi))
    }

    /// What a rank compares ([`Summary::ranks`], and `compare`'s ranks of
    /// a side): the figure rows are ordered by, and the interval two rows
    /// share a rank where they overlap — the normalised total's mean and
    /// (fastest, slowest) where `normalised`, else the seconds and the
    /// range of runs. `None` for a row without a total.
    pub(crate) fn rank_key(&self, normalised: bool) -> Option<(f64, (f64, f64))> {
        if normalised {
            self.normalised_total().map(|n| (n.figure(), (n.lo, n.hi)))
        } else {
            Some((self.total_s()?, self.total_range()?))
        }
    }

    /// The normalised total: the sum of its cells' normalised figures
    /// (means, fastest and slowest), for a complete row whose every cell
    /// has one.
    pub(crate) fn normalised_total(&self) -> Option<Normalised> {
        self.total_s()?;
        let cells: Option<Vec<Normalised>> = self.cells.values().map(|c| c.normalised).collect();
        Normalised::sum(cells?)
    }

    /// CPU seconds of the shown runs, summed, when every cell has them.
    fn total_cpu_s(&self) -> Option<f64> {
        self.total_s()?;
        self.cells.values().map(Cell::cpu_s).sum()
    }

    /// Every benchmark of the table ran and is correct: only then is the
    /// total comparable with other rows.
    pub(crate) fn complete(&self) -> bool {
        self.started
            && self.missing.is_empty()
            && self.no_program.is_empty()
            && self.cells.values().all(|c| c.status.is_ok())
    }

    /// Whether any cell has a time to show.
    pub(crate) fn has_figures(&self) -> bool {
        self.cells.values().any(|c| c.wall_s().is_some())
    }

    pub(crate) fn installed(&self) -> bool {
        if !self.started {
            return self.selected_installed;
        }
        self.cells
            .values()
            .any(|c| c.status != Status::NotInstalled)
    }

    /// One word for the row: `complete`, `partial`, `no figures`, `not
    /// run`, `not installed` (the spreadsheet's status column).
    pub(crate) fn state(&self) -> &'static str {
        if !self.installed() {
            "not installed"
        } else if !self.started {
            "not run"
        } else if self.complete() {
            "complete"
        } else if self.has_figures() {
            "partial"
        } else {
            "no figures"
        }
    }
}

/// A row's place by total time: 1 + the rows certainly faster than it
/// (see [`ranks_within`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct Rank {
    /// 1 = fastest; 1 + the number of rows certainly faster.
    pub place: usize,
    /// At least one other row cannot be told apart from it (their bands
    /// overlap): written `=`.
    pub shared: bool,
}

impl Rank {
    pub(crate) fn text(&self) -> String {
        if self.shared {
            format!("={}", self.place)
        } else {
            self.place.to_string()
        }
    }
}

/// What a row's rank is judged by: its figure, the range of its runs
/// (fastest, slowest) and the relative precision it holds at (0 without
/// one: the runs alone).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RankKey {
    pub figure: f64,
    pub lo: f64,
    pub hi: f64,
    /// A fraction: 0.1 is ±10 %.
    pub precision: f64,
}

impl RankKey {
    /// The range the row's figure could take: its runs' fastest to
    /// slowest, widened to figure ÷ √(1 + precision) … figure × √(1 +
    /// precision), so that two rows of one precision p have overlapping
    /// bands exactly when they are less than p apart (and two rows of
    /// precisions p and q when less than √((1 + p)(1 + q)) − 1, the
    /// geometric mean of the two).
    pub(crate) fn band(&self) -> (f64, f64) {
        let s = (1.0 + self.precision.max(0.0)).sqrt();
        (self.lo.min(self.figure / s), self.hi.max(self.figure * s))
    }
}

/// Ranks of rows by `(total, slowest total)` (the seconds' rule: a band
/// from the total to the slowest runs added up).
#[cfg(test)]
pub(crate) fn ranks(totals: &[Option<(f64, f64)>]) -> Vec<Option<Rank>> {
    let keys: Vec<Option<RankKey>> = totals
        .iter()
        .map(|t| {
            t.map(|(a, b)| RankKey {
                figure: a,
                lo: a,
                hi: b,
                precision: 0.0,
            })
        })
        .collect();
    ranks_within(&keys)
}

/// The ranks of rows keyed by [`RankKey`] (any order; `None`: no rank).
///
/// The rule (issue #60, "ranks without artefacts"): each row has a band
/// ([`RankKey::band`]: its runs' range and its precision); a row is
/// *certainly faster* than another when its band ends before the other's
/// begins; a row's place is 1 + the number of rows certainly faster than
/// it, and it is shared (`=`) when some other row's band overlaps its own.
/// The relation is judged pair by pair, never against a group's first
/// row: two rows 2 % apart are never split because a third row, 2 %
/// before them, began the group (the old rule made gcc "=1" and gccgo,
/// 2.1 % slower, "=14"). Competition ranks follow where bands do not
/// overlap (1, 2, 3); a chain of rows each closer than the precision gets
/// places that climb with the rows certainly ahead of each (1, =1, =1, =2,
/// =3, ...), not one long tie. A row whose band is wider (a coarser
/// precision, more spread runs) can have a smaller place than a faster row
/// with a narrow one: its place counts only the rows certainly ahead.
///
/// Counted by sorting the bands' ends, not pair by pair: n log n for a
/// directory of 65,000 rows.
pub(crate) fn ranks_within(keys: &[Option<RankKey>]) -> Vec<Option<Rank>> {
    let bands: Vec<(usize, (f64, f64))> = keys
        .iter()
        .enumerate()
        .filter_map(|(i, k)| Some((i, k.as_ref()?.band())))
        .filter(|(_, (l, u))| !l.is_nan() && !u.is_nan())
        .collect();
    let mut ends: Vec<f64> = bands.iter().map(|(_, (_, u))| *u).collect();
    let mut starts: Vec<f64> = bands.iter().map(|(_, (l, _))| *l).collect();
    ends.sort_by(f64::total_cmp);
    starts.sort_by(f64::total_cmp);
    let n = bands.len();
    let mut out = vec![None; keys.len()];
    for &(i, (l, u)) in &bands {
        // Rows whose band ends before this one starts (never itself: l ≤ u).
        let ahead = ends.partition_point(|&e| e < l);
        // Rows whose band starts after this one ends.
        let behind = n - starts.partition_point(|&s| s <= u);
        out[i] = Some(Rank {
            place: ahead + 1,
            shared: ahead + behind + 1 < n,
        });
    }
    out
}

/// A session as the table tells of it.
#[derive(Debug, Clone, Serialize)]
struct SessionInfo {
    pub id: String,
    pub started_at: String,
    pub langbench: String,
    pub command_line: String,
    /// Index into [`Summary::machines`].
    pub machine: usize,
    pub kernel: String,
    /// The table's cells whose runs come from it.
    pub cells: usize,
    /// The rows with a cell from it (their labels).
    pub rows: Vec<String>,
    /// What its machine check warned about (load, busy processes).
    pub warnings: Vec<String>,
    pub published: bool,
}

/// The table of one results directory.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Summary {
    /// Benchmarks in column order, with their N.
    pub benches: Vec<(Bench, u64)>,
    pub size: String,
    pub rows: Vec<Row>,
    /// The machine most rows were measured on.
    pub machine: Option<Machine>,
    sessions: Vec<SessionInfo>,
    /// The figures are a published edition's, imported (not measured here).
    pub published: bool,
    /// A cell whose runs' coefficient of variation exceeds this fraction
    /// is flagged noisy.
    pub noise_cv: f64,
    /// Show the spread column in human tables (`--spread`).
    pub show_spread: bool,
    /// Every distinct machine the sessions ran on (more than one: the
    /// figures were not all measured on the same hardware).
    pub machines: Vec<Machine>,
    /// Index into `machines` of the machine most rows ran on.
    pub main_machine: Option<usize>,
    /// The edition: the year of the newest run, or a published edition's
    /// year.
    pub edition: String,
    /// First session start and last run, RFC 3339 (measured editions).
    pub measured_from: Option<String>,
    pub measured_to: Option<String>,
    /// The langbench versions that measured the shown runs (with their git
    /// revision where the records carry it).
    pub langbench: Vec<String>,
    /// A published edition's source, as its import recorded it.
    pub source: Option<String>,
    /// A published edition's N of best of N.
    pub published_runs: Option<u32>,
    /// The host's speed as the directory's reference passes show it
    /// (`references.jsonl`); `None` without any (old editions, `--in-a-row`,
    /// `--no-references`): the table is then exactly as before them.
    #[serde(skip)]
    pub host: Option<HostSpeed>,
    /// The reproducibility checks stored beside the records
    /// (`reproduced/*.json`), by file name, each judged against the
    /// records it claims.
    #[serde(skip)]
    pub checks: Vec<crate::reproduced::verify::Check>,
    /// The precision the ranks hold at, from the verified checks on the
    /// edition's CPU model.
    #[serde(skip)]
    pub ranking: crate::reproduced::precision::Ranking,
}

/// How a summary is rendered: `--spread`, `--noise-threshold`, and the
/// languages file whose program sources and notes the report shows.
#[derive(Debug, Clone)]
pub struct View {
    pub show_spread: bool,
    /// Fraction (0.05 = 5%).
    pub noise_cv: f64,
    /// `--languages`: where the report reads the variants' program sources,
    /// notes and command templates from (`None`: it shows what the records
    /// hold, and says the rest is not available).
    pub languages: Option<std::path::PathBuf>,
}

impl Default for View {
    fn default() -> Self {
        View {
            show_spread: false,
            noise_cv: 0.05,
            languages: None,
        }
    }
}

impl Summary {
    /// Applies rendering options.
    pub(crate) fn view(mut self, view: &View) -> Summary {
        self.noise_cv = view.noise_cv;
        self.show_spread = view.show_spread;
        self
    }

    /// The rank of each row (in row order), by total among complete rows
    /// ([`ranks_within`]): by normalised total where
    /// [`Summary::ranks_normalised`], each row's band its normalised
    /// runs' range widened by its precision ([`Summary::row_precision`]:
    /// the verified checks on this CPU model, per benchmark), else by the
    /// seconds and their range of runs.
    pub(crate) fn ranks(&self) -> Vec<Option<Rank>> {
        let normalised = self.ranks_normalised();
        let keys: Vec<Option<RankKey>> = self
            .rows
            .iter()
            .map(|r| self.rank_key(r, normalised))
            .collect();
        ranks_within(&keys)
    }

    /// What `row`'s rank is judged by (see [`Row::rank_key`]), with its
    /// precision where the ranks are normalised.
    pub(crate) fn rank_key(&self, row: &Row, normalised: bool) -> Option<RankKey> {
        let (figure, (lo, hi)) = row.rank_key(normalised)?;
        Some(RankKey {
            figure,
            lo,
            hi,
            precision: if normalised {
                self.row_precision(row)
            } else {
                0.0
            },
        })
    }

    /// A row's precision (0 without a trusted one): each benchmark's, in
    /// the unit the checks measured it (the cell's ratio to the
    /// references), weighted by the cell's share of the row's normalised
    /// total (issue #60: a per-benchmark precision is not a total's).
    pub(crate) fn row_precision(&self, row: &Row) -> f64 {
        let Some(p) = self.ranking.trusted() else {
            return 0.0;
        };
        p.of_row(
            row.cells
                .iter()
                .filter_map(|(b, c)| Some((*b, c.normalised?.figure()))),
        )
    }

    /// Whether the ranks are the normalised totals': the directory has
    /// reference passes and every complete row has a normalised total (a
    /// complete row measured without references around it would have no
    /// rank; then every row is ranked by its seconds, as before).
    fn ranks_normalised(&self) -> bool {
        self.host.is_some()
            && self.rows.iter().any(Row::complete)
            && self
                .rows
                .iter()
                .filter(|r| r.complete())
                .all(|r| r.normalised_total().is_some())
    }
}
