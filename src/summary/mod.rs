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
//! `sizes_text`, `rank_precision`) with its [`Row`]s and their [`Cell`]s,
//! [`Rank`] and [`ranks_within`] for `compare` and `history`, [`View`],
//! `runs::table`, `json::write_results` and `measured::sections`; the rest is
//! its inside.

mod charts;
mod gather;
pub(crate) mod json;
pub(crate) mod measured;
mod meta;
#[cfg(test)]
mod normalised_tests;
mod notes;
mod precision;
pub(crate) mod runs;
mod table;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use crate::bench::Bench;
use crate::document::{Flag, thousands};
use crate::machine::Machine;
use crate::noise::{NoiseSample, Spread};
use crate::record::{Origin, RunRecord, Status};
use crate::reference::{HostSpeed, Normalised};
use crate::spawn::{Exit, signal_name};

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

/// A row's place by total time. Rows whose totals lie within each other's
/// range of runs share a rank: they are not told apart by these runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct Rank {
    /// 1 = fastest; rows sharing a rank have the same (competition
    /// ranking: 1, 2, 2, 4).
    pub place: usize,
    /// Another row has the same place.
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

/// Ranks of rows by their totals' ranges (`(total, slowest total)`, in
/// ascending order of total; `None`: no total, no rank). A row joins the
/// group of the row that leads it when its total is within the leader's
/// range (its best total is no slower than the leader's slowest runs
/// added up): the ranges overlap, so these runs cannot tell them apart.
/// Comparing with the group's leader, not its last member, keeps a long
/// chain of small steps from sharing one rank.
#[cfg(test)]
pub(crate) fn ranks(totals: &[Option<(f64, f64)>]) -> Vec<Option<Rank>> {
    let keys: Vec<Option<(f64, (f64, f64))>> =
        totals.iter().map(|t| t.map(|(a, b)| (a, (a, b)))).collect();
    ranks_within(&keys, None)
}

/// The ranks of rows keyed `(figure, (fastest, slowest))` in ascending
/// order of figure: a row joins its leader's group where its fastest is
/// no slower than the leader's slowest (the intervals overlap) or, with
/// a reproducibility check's `precision`, where its figure is within
/// that precision of the leader's (rows closer than another sitting's
/// measurement keeps them apart, issue #39).
pub(crate) fn ranks_within(
    keys: &[Option<(f64, (f64, f64))>],
    precision: Option<f64>,
) -> Vec<Option<Rank>> {
    let mut out = vec![None; keys.len()];
    let mut place = 0;
    let mut first = 0;
    // The leader's figure and slowest.
    let mut leader: Option<(f64, f64)> = None;
    let mut members: Vec<usize> = Vec::new();
    let flush = |members: &mut Vec<usize>, out: &mut Vec<Option<Rank>>, first: usize| {
        for &m in members.iter() {
            out[m] = Some(Rank {
                place: first,
                shared: members.len() > 1,
            });
        }
        members.clear();
    };
    for (i, k) in keys.iter().enumerate() {
        let Some((figure, (fastest, slowest))) = *k else {
            continue;
        };
        place += 1;
        let joins = leader.is_some_and(|(lf, ls)| {
            fastest <= ls || precision.is_some_and(|p| figure <= lf * (1.0 + p))
        });
        if !joins {
            flush(&mut members, &mut out, first);
            first = place;
            leader = Some((figure, slowest.max(fastest)));
        }
        members.push(i);
    }
    flush(&mut members, &mut out, first);
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
    /// (`reproduced/*.json`), oldest first by file name.
    #[serde(skip)]
    pub reproduced: Vec<crate::reproduced::Agreement>,
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

    /// The rank of each row (in row order), by total among complete rows:
    /// by normalised total where [`Summary::ranks_normalised`] (rows share
    /// a rank where their normalised intervals overlap), else by the
    /// seconds (rows share a rank where a total is within the leader's
    /// range of runs).
    pub(crate) fn ranks(&self) -> Vec<Option<Rank>> {
        // Normalised: `ranks` joins a row to its leader's group when its
        // first figure is no more than the leader's second: with (fastest,
        // slowest) of rows in order of their means, that is where the
        // intervals overlap (the leader's fastest is below its mean, so
        // below the row's slowest).
        // With a stored reproducibility check, rows whose normalised
        // totals are within its precision share a rank too: another
        // sitting's measurement could put them in either order (issue #39:
        // the ranks claim no finer order than the check shows).
        let normalised = self.ranks_normalised();
        let keys: Vec<Option<(f64, (f64, f64))>> =
            self.rows.iter().map(|r| r.rank_key(normalised)).collect();
        ranks_within(&keys, self.rank_precision().filter(|_| normalised))
    }

    /// The precision of the stored reproducibility checks (the coarsest,
    /// when there are several): the relative difference within which 90 %
    /// of a check's re-measured ratios agreed. `None` without one.
    pub(crate) fn rank_precision(&self) -> Option<f64> {
        self.reproduced
            .iter()
            .filter_map(crate::reproduced::Agreement::precision)
            .filter(|p| p.is_finite() && *p >= 0.0)
            .max_by(f64::total_cmp)
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
