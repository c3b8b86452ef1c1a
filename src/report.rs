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

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::bench::Bench;
use crate::export::{Cell as ECell, Column, Document, Flag, Kind, Mark, Note, Show, Table};
use crate::machine::Machine;
use crate::noise::{NoiseSample, Spread};
use crate::record::{Origin, RunRecord, SessionRecord, Status};
use crate::spawn::{Exit, signal_name};
use crate::store::Stored;

/// A run left out of its cell's spread: it started on cold caches.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ColdRun {
    /// Its number within the cell.
    pub run: u32,
    pub wall_s: f64,
}

/// A variant × benchmark: its runs from the newest session that ran it.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub status: Status,
    /// The run whose figures the table shows: the fastest run of the cell's
    /// status (best of N for ok cells).
    pub best: Option<RunRecord>,
    pub runs: Vec<RunRecord>,
    /// The spread of the wall times of the runs of the cell's status that
    /// count as its noise ([`NoiseSample`]: the warm ones when it has two).
    pub spread: Option<Spread>,
    /// Runs of the cell's status that started on cold caches and are left
    /// out of `spread`.
    pub cold_left_out: Vec<ColdRun>,
    /// The runs its session asked for (best of N; with `--runs auto` the
    /// minimum, 3); `None` when the session is not known.
    pub asked: Option<u32>,
}

impl Cell {
    fn from_runs(mut runs: Vec<RunRecord>, asked: Option<u32>) -> Cell {
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
        }
    }

    /// Whether `r` is one of the runs the spread columns count (a shown
    /// run of the cell's status, not a cold one left out; none of a
    /// published cell, one record without a spread, or of a cell without
    /// a figure, such as a timeout).
    pub fn in_spread(&self, r: &RunRecord) -> bool {
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
    pub fn noisy(&self, cv: f64) -> Option<Spread> {
        self.spread.filter(|s| s.runs > 1 && s.cv > cv)
    }

    /// The figure: the shown run's wall time. A timeout has none (it is
    /// where the run was killed, not a time it took).
    pub fn wall_s(&self) -> Option<f64> {
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
    pub fn cold_figure(&self) -> Option<String> {
        use crate::record::CacheStart;
        let best = self.best.as_ref()?;
        let measured = self.runs.iter().filter(|r| r.status.has_figures());
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
                "run{} {which} started on empty toolchain caches (cold, {times}); {}; the figure \
                 is a warm run, as a person's second",
                if cold.len() == 1 { "" } else { "s" },
                if left_out {
                    "not counted in the spread"
                } else {
                    "counted in the spread (the cell has fewer than two warm runs)"
                }
            ));
        }
        Some(if measured.clone().count() == 1 {
            "cold caches: its one run started with empty toolchain caches: the figure \
                 includes building what the toolchain caches"
                .to_string()
        } else if measured.clone().all(|r| r.cache == Some(CacheStart::Cold)) {
            "cold caches: every run started with empty toolchain caches (`--cold-caches`, \
                 or a toolchain that kept nothing in them): the figure includes building what \
                 the toolchain caches"
                .to_string()
        } else {
            format!(
                "cold caches: the fastest run was the cell's first, on empty toolchain \
                     caches; the warm runs after it were slower{}",
                if left_out {
                    "; the spread counts the warm runs only"
                } else {
                    ""
                }
            )
        })
    }

    /// Where a timed-out run was killed.
    pub fn timed_out_at(&self) -> Option<f64> {
        self.best
            .as_ref()
            .filter(|_| self.status == Status::Timeout)
            .map(|b| b.wall_s)
    }

    /// The figure's CPU seconds (user + sys of the shown run, `wait4`);
    /// published editions gave none.
    pub fn cpu_s(&self) -> Option<f64> {
        self.wall_s()?;
        self.best
            .as_ref()
            .filter(|b| b.origin == Origin::Measured)
            .map(|b| b.user_s + b.sys_s)
    }

    /// Copied from a published edition (one record: its best of N).
    pub fn published(&self) -> bool {
        self.best
            .as_ref()
            .is_some_and(|b| b.origin == Origin::Published)
    }

    /// The range of the runs' wall times (fastest, slowest) counted in the
    /// spread, when there are several: the whisker under the figure and
    /// what shared ranks compare. A cold run left out of the spread is not
    /// in it, unless it is the figure (the range then starts there).
    pub fn interval(&self) -> Option<(f64, f64)> {
        let w = self.wall_s()?;
        self.spread
            .filter(|s| s.runs > 1)
            .map(|s| (s.min.min(w), s.max))
    }

    /// Fewer runs than its session asked for, without an earlier run that
    /// settled the cell (the session was stopped): (runs, asked).
    pub fn partial_runs(&self) -> Option<(usize, u32)> {
        let asked = self.asked?;
        let ran = self.runs.iter().filter(|r| r.attempt > 0).count();
        let settled = self.runs.iter().any(|r| r.status.settles_cell());
        (ran > 0 && (ran as u32) < asked && !settled && !self.published()).then_some((ran, asked))
    }

    /// Peak RSS: of the shown run, or the peak a run that did not finish
    /// had reached (when known).
    pub fn rss_kb(&self) -> Option<u64> {
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
    pub fn time_text(&self) -> String {
        let t = self.wall_s().map(|w| format!("{w:.2}")).unwrap_or_default();
        let exit = self.best.as_ref().and_then(|b| b.exit);
        match self.status {
            Status::Ok => match self.partial_runs() {
                Some((ran, asked)) => format!("{t} ({ran} of {asked} runs)"),
                None => t,
            },
            Status::BadExit => format!("{t} (exit {})", exit_text(exit)),
            Status::WrongOutput => format!("{t} WRONG OUTPUT"),
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

    pub fn rss_text(&self) -> String {
        self.rss_kb().map(thousands).unwrap_or_else(|| "-".into())
    }

    /// How the cell's mark looks (see [`Flag`]).
    pub fn flag(&self, noise_cv: f64) -> Option<Flag> {
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
pub struct Row {
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
    pub fn label(&self) -> String {
        format!("{} · {}", self.language, self.flags)
    }

    /// Sum of the cells that have a time (flagged cells included; failed
    /// cells and timeouts are not times): the total of a complete row, the
    /// "partial" sum of another.
    pub fn sum_s(&self) -> f64 {
        self.cells.values().filter_map(Cell::wall_s).sum()
    }

    /// The total: only a complete row has one.
    pub fn total_s(&self) -> Option<f64> {
        self.complete().then(|| self.sum_s())
    }

    pub fn sum_rss_kb(&self) -> u64 {
        self.cells.values().filter_map(Cell::rss_kb).sum()
    }

    pub fn total_rss_kb(&self) -> Option<u64> {
        self.complete().then(|| self.sum_rss_kb())
    }

    /// The range the total could have taken over the runs measured: the
    /// sums of each cell's fastest and slowest runs (a cell of one run
    /// counts its one figure at both ends).
    pub fn total_range(&self) -> Option<(f64, f64)> {
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

    /// CPU seconds of the shown runs, summed, when every cell has them.
    pub fn total_cpu_s(&self) -> Option<f64> {
        self.total_s()?;
        self.cells.values().map(Cell::cpu_s).sum()
    }

    /// Every benchmark of the table ran and is correct: only then is the
    /// total comparable with other rows.
    pub fn complete(&self) -> bool {
        self.started
            && self.missing.is_empty()
            && self.no_program.is_empty()
            && self.cells.values().all(|c| c.status.is_ok())
    }

    /// Whether any cell has a time to show.
    pub fn has_figures(&self) -> bool {
        self.cells.values().any(|c| c.wall_s().is_some())
    }

    pub fn installed(&self) -> bool {
        if !self.started {
            return self.selected_installed;
        }
        self.cells
            .values()
            .any(|c| c.status != Status::NotInstalled)
    }

    /// One word for the row: `complete`, `partial`, `no figures`, `not
    /// run`, `not installed` (the spreadsheet's status column).
    pub fn state(&self) -> &'static str {
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
pub struct Rank {
    /// 1 = fastest; rows sharing a rank have the same (competition
    /// ranking: 1, 2, 2, 4).
    pub place: usize,
    /// Another row has the same place.
    pub shared: bool,
}

impl Rank {
    pub fn text(&self) -> String {
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
pub fn ranks(totals: &[Option<(f64, f64)>]) -> Vec<Option<Rank>> {
    let mut out = vec![None; totals.len()];
    let mut place = 0;
    let mut leader: Option<(usize, f64)> = None;
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
    let mut first = 0;
    for (i, t) in totals.iter().enumerate() {
        let Some((total, _)) = *t else { continue };
        place += 1;
        match leader {
            Some((_, slowest)) if total <= slowest => members.push(i),
            _ => {
                flush(&mut members, &mut out, first);
                first = place;
                leader = Some((i, t.map_or(total, |(_, hi)| hi.max(total))));
                members.push(i);
            }
        }
    }
    flush(&mut members, &mut out, first);
    out
}

/// A session as the table tells of it.
#[derive(Debug, Clone, Serialize)]
pub struct SessionInfo {
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
pub struct Summary {
    /// Benchmarks in column order, with their N.
    pub benches: Vec<(Bench, u64)>,
    pub size: String,
    pub rows: Vec<Row>,
    /// The machine most rows were measured on.
    pub machine: Option<Machine>,
    pub sessions: Vec<SessionInfo>,
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

/// The runs a session asked of each cell: its N, or with `--runs auto` the
/// minimum of 3 (a cell may stop there).
fn asked(s: &SessionRecord) -> Option<u32> {
    if s.origin == Origin::Published || s.runs == 0 {
        return None;
    }
    Some(if s.runs_auto_cv.is_some() {
        s.runs.min(3)
    } else {
        s.runs
    })
}

impl Summary {
    pub fn from_stored(stored: &Stored) -> Summary {
        let sessions: BTreeMap<&str, &SessionRecord> = stored
            .sessions
            .iter()
            .map(|s| (s.session.as_str(), s))
            .collect();
        let mut rows: BTreeMap<&str, Row> = BTreeMap::new();
        let mut cell_runs: BTreeMap<(&str, Bench), Vec<RunRecord>> = BTreeMap::new();
        let mut benches: BTreeMap<Bench, u64> = BTreeMap::new();
        let shown = stored.newest_runs();
        for r in &shown {
            benches.insert(r.bench, r.n);
            cell_runs
                .entry((r.variant.as_str(), r.bench))
                .or_default()
                .push((*r).clone());
        }
        for ((variant, bench), runs) in cell_runs {
            let first = &runs[0];
            let asked = sessions.get(first.session.as_str()).and_then(|s| asked(s));
            let row = rows.entry(variant).or_insert_with(|| Row {
                variant: variant.to_string(),
                language: first.language.clone(),
                flags: first.flags.clone(),
                version: first.version.clone(),
                cells: BTreeMap::new(),
                missing: Vec::new(),
                no_program: Vec::new(),
                machine: None,
                started: true,
                selected_installed: true,
            });
            // The version of the newest measured cell wins.
            if first.status != Status::NotInstalled {
                row.version = first.version.clone();
            }
            row.cells.insert(bench, Cell::from_runs(runs, asked));
        }
        // The programs each variant had, as its newest session saw them;
        // and the variants sessions selected that never ran (Ctrl-C came
        // first): rows saying "not run".
        let mut programs: BTreeMap<&str, &[Bench]> = BTreeMap::new();
        for s in &stored.sessions {
            for v in s.variants.iter().filter(|v| !v.programs.is_empty()) {
                programs.insert(&v.id, &v.programs);
            }
            if s.origin == Origin::Published || s.size.starts_with("ws-echo") {
                continue;
            }
            for v in &s.variants {
                let cpu = v.programs.is_empty() || v.programs.iter().any(|b| b.is_cpu());
                if cpu && !rows.contains_key(v.id.as_str()) {
                    rows.insert(
                        &v.id,
                        Row {
                            variant: v.id.clone(),
                            language: v.language.clone(),
                            flags: v.flags.clone(),
                            version: v.version.clone(),
                            cells: BTreeMap::new(),
                            missing: Vec::new(),
                            no_program: Vec::new(),
                            machine: None,
                            started: false,
                            selected_installed: v.installed,
                        },
                    );
                }
            }
        }
        if benches.is_empty() {
            // Nothing ran at all yet: the selected benchmarks are unknown.
            rows.retain(|_, r| r.started);
        }
        let mut rows: Vec<Row> = rows.into_values().collect();
        for row in &mut rows {
            let (missing, no_program): (Vec<Bench>, Vec<Bench>) = benches
                .keys()
                .filter(|b| !row.cells.contains_key(b))
                .partition(|b| {
                    programs
                        .get(row.variant.as_str())
                        .is_none_or(|p| p.contains(b))
                });
            row.missing = missing;
            row.no_program = no_program;
        }
        rows.sort_by(|a, b| {
            let key = |r: &Row| {
                (
                    !r.installed(),
                    !r.started,
                    !r.complete(),
                    std::cmp::Reverse(r.cells.values().filter(|c| c.wall_s().is_some()).count()),
                    r.cells.values().filter(|c| !c.status.is_ok()).count(),
                )
            };
            key(a)
                .cmp(&key(b))
                .then(a.sum_s().total_cmp(&b.sum_s()))
                .then(a.variant.cmp(&b.variant))
        });
        // The machines of the sessions whose runs the table shows (a ws
        // session in the same directory is not one of this table's).
        let shown_sessions: BTreeSet<&str> = shown.iter().map(|r| r.session.as_str()).collect();
        let mut machines: Vec<Machine> = Vec::new();
        let mut session_machine: BTreeMap<&str, usize> = BTreeMap::new();
        for s in stored
            .sessions
            .iter()
            .filter(|s| shown_sessions.contains(s.session.as_str()))
        {
            let i = match machines.iter().position(|m| m.same_as(&s.machine)) {
                Some(i) => i,
                None => {
                    machines.push(s.machine.clone());
                    machines.len() - 1
                }
            };
            session_machine.insert(&s.session, i);
        }
        for row in &mut rows {
            row.machine = row
                .cells
                .values()
                .filter_map(|c| c.runs.first())
                .filter_map(|r| session_machine.get(r.session.as_str()).copied())
                .max();
        }
        // The machine most rows ran on (the later one on a tie).
        let mut per_machine = vec![0usize; machines.len()];
        for m in rows.iter().filter_map(|r| r.machine) {
            per_machine[m] += 1;
        }
        let main_machine = (0..machines.len()).max_by_key(|&i| (per_machine[i], i));

        // The sessions whose runs the table shows, and what it shows of each.
        let mut cells_of: BTreeMap<&str, usize> = BTreeMap::new();
        let mut rows_of: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
        for row in &rows {
            for c in row.cells.values() {
                if let Some(r) = c.runs.first() {
                    *cells_of.entry(r.session.as_str()).or_default() += 1;
                    rows_of
                        .entry(r.session.as_str())
                        .or_default()
                        .insert(row.label());
                }
            }
        }
        let infos: Vec<SessionInfo> = stored
            .sessions
            .iter()
            .filter(|s| cells_of.contains_key(s.session.as_str()))
            .map(|s| SessionInfo {
                id: s.session.clone(),
                started_at: s.started_at.clone(),
                langbench: s.langbench_version.clone(),
                command_line: shell_words::join(&s.command_line),
                machine: session_machine
                    .get(s.session.as_str())
                    .copied()
                    .unwrap_or(0),
                kernel: s.machine.kernel.clone(),
                cells: cells_of[s.session.as_str()],
                rows: rows_of
                    .remove(s.session.as_str())
                    .unwrap_or_default()
                    .into_iter()
                    .collect(),
                warnings: s
                    .hygiene
                    .as_ref()
                    .map(|h| h.warnings.clone())
                    .unwrap_or_default(),
                published: s.origin == Origin::Published,
            })
            .collect();

        let published = stored.runs.iter().any(|r| r.origin == Origin::Published);
        let published_session =
            stored.sessions.iter().rev().find(|s| {
                s.origin == Origin::Published && shown_sessions.contains(s.session.as_str())
            });
        // From the first session's start (or run, whichever is earlier) to
        // the last run.
        let measured = || shown.iter().filter(|r| r.origin == Origin::Measured);
        let starts = infos
            .iter()
            .filter(|s| !s.published)
            .map(|s| s.started_at.as_str());
        let measured_to = measured()
            .map(|r| r.finished_at.as_str())
            .chain(starts.clone())
            .max()
            .filter(|_| measured().next().is_some())
            .map(String::from);
        let measured_from = measured()
            .map(|r| r.finished_at.as_str())
            .chain(starts)
            .min()
            .filter(|_| measured().next().is_some())
            .map(String::from);
        let edition = match (published_session, &measured_to) {
            (Some(s), None) => s
                .session
                .strip_prefix("published-")
                .unwrap_or(&s.session)
                .to_string(),
            (_, Some(t)) => t.get(..4).unwrap_or_default().to_string(),
            (None, None) => String::new(),
        };
        // langbench's own version: with its revision where the runs
        // recorded one (`identity.langbench`), else the sessions'.
        let mut langbench: BTreeSet<String> = shown
            .iter()
            .filter_map(|r| r.identity.as_ref().map(|i| i.langbench.clone()))
            .collect();
        if langbench.is_empty() {
            langbench = infos
                .iter()
                .filter(|s| !s.published)
                .map(|s| s.langbench.clone())
                .collect();
        }
        Summary {
            benches: benches.into_iter().collect(),
            size: stored
                .runs
                .last()
                .map(|r| r.size.clone())
                .unwrap_or_default(),
            rows,
            machine: main_machine.map(|i| machines[i].clone()),
            sessions: infos,
            published,
            noise_cv: View::default().noise_cv,
            show_spread: false,
            machines,
            main_machine,
            edition,
            measured_from,
            measured_to,
            langbench: langbench.into_iter().collect(),
            source: published_session.and_then(|s| s.source.clone()),
            published_runs: published_session.map(|s| s.runs).filter(|&n| n > 0),
        }
    }

    /// Applies rendering options.
    pub fn view(mut self, view: &View) -> Summary {
        self.noise_cv = view.noise_cv;
        self.show_spread = view.show_spread;
        self
    }

    /// The rank of each row (in row order), by total among complete rows.
    pub fn ranks(&self) -> Vec<Option<Rank>> {
        let totals: Vec<Option<(f64, f64)>> = self.rows.iter().map(Row::total_range).collect();
        ranks(&totals)
    }

    /// The fastest complete total, and each benchmark's fastest correct
    /// time: what "× fastest" divides by.
    fn fastest(&self) -> (Option<f64>, BTreeMap<Bench, f64>) {
        let total = self
            .rows
            .iter()
            .filter_map(Row::total_s)
            .min_by(f64::total_cmp);
        let mut per = BTreeMap::new();
        for row in &self.rows {
            for (b, c) in &row.cells {
                if let (true, Some(w)) = (c.status.is_ok(), c.wall_s()) {
                    let e = per.entry(*b).or_insert(w);
                    if w < *e {
                        *e = w;
                    }
                }
            }
        }
        (total, per)
    }

    /// "N of best of N" of the shown figures: `published best of 3` or
    /// `best of 3`.
    fn figures_text(&self, row: &Row) -> String {
        if row.cells.values().any(Cell::published) {
            match self.published_runs {
                Some(n) => format!("published best of {n}"),
                None => "published".into(),
            }
        } else {
            let asked: BTreeSet<u32> = row.cells.values().filter_map(|c| c.asked).collect();
            match asked.iter().collect::<Vec<_>>()[..] {
                [] => String::new(),
                [n] => format!("best of {n}"),
                _ => format!(
                    "best of {}",
                    asked
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join("/")
                ),
            }
        }
    }

    /// Why a cell is not a plain correct figure (`None` for one that is),
    /// told to a reader (what to do about it is [`Summary::advice`]'s).
    pub fn cell_note(&self, row: &Row, bench: Bench) -> Option<String> {
        let Some(c) = row.cells.get(&bench) else {
            if row.no_program.contains(&bench) {
                return Some(format!("n/a: the variant has no {bench} program"));
            }
            return Some("not run: this results directory holds no run of it".into());
        };
        if c.status.is_ok() {
            let mut says = Vec::new();
            if let Some((ran, asked)) = c.partial_runs() {
                says.push(format!(
                    "{ran} of {asked} runs: its session stopped before the rest; the figure is \
                     the best of {ran}"
                ));
            } else if let Some(s) = c.noisy(self.noise_cv) {
                says.push(format!(
                    "noisy: {} {}runs spread {:.1}% (coefficient of variation; flagged above \
                     {:.1}%): {:.3}–{:.3} s, mean {:.3} s",
                    s.runs,
                    if c.cold_left_out.is_empty() {
                        ""
                    } else {
                        "warm "
                    },
                    s.cv * 100.0,
                    self.noise_cv * 100.0,
                    s.min,
                    s.max,
                    s.mean,
                ));
            }
            if let Some(cold) = c.cold_figure() {
                says.push(cold);
            }
            return (!says.is_empty()).then(|| says.join("; "));
        }
        let detail = c
            .best
            .as_ref()
            .and_then(|r| r.detail.clone())
            .unwrap_or_default();
        let ran: Vec<&RunRecord> = c
            .runs
            .iter()
            .filter(|r| r.status != Status::Skipped)
            .collect();
        let failing = ran.iter().filter(|r| !r.status.is_ok()).count();
        let skipped = c.runs.len() - ran.len();
        let of = match (ran.len(), skipped) {
            (n, 0) if n > 1 => format!(" ({failing} of {n} runs)"),
            (_, 0) => String::new(),
            (n, s) => format!(
                " ({failing} of {n} run{}; {s} more skipped after it)",
                if n == 1 { "" } else { "s" }
            ),
        };
        Some(format!(
            "{}{of}: {}",
            c.status,
            // Records stored before stderr notes were cleaned.
            strip_ansi_escapes::strip_str(detail).replace('\n', " ")
        ))
    }

    /// Lines explaining every cell that is not a plain, correct time, keyed
    /// by what the row shows; then the machine state of the sessions the
    /// table's runs come from, where their check warned.
    pub fn notes(&self) -> Vec<Note> {
        let mut notes = Vec::new();
        for row in &self.rows {
            let label = row.label();
            if !row.installed() {
                let detail = row
                    .cells
                    .values()
                    .find_map(|c| c.best.as_ref()?.detail.clone())
                    .unwrap_or_default();
                notes.push(Note::new(label, format!("not installed: {detail}")));
                continue;
            }
            if !row.started {
                notes.push(Note::new(
                    label,
                    "not run: selected, but its session stopped before it started",
                ));
                continue;
            }
            for b in row.missing.iter().chain(&row.no_program) {
                if let Some(n) = self.cell_note(row, *b) {
                    notes.push(Note::new(format!("{label} / {b}"), n));
                }
            }
            for b in row.cells.keys() {
                if let Some(n) = self.cell_note(row, *b) {
                    notes.push(Note::new(format!("{label} / {b}"), n));
                }
            }
        }
        notes.extend(self.machine_state_notes());
        notes
    }

    /// The sessions' machine-state warnings, under the table whose runs
    /// they concern.
    fn machine_state_notes(&self) -> Vec<Note> {
        self.sessions
            .iter()
            .filter(|s| !s.warnings.is_empty())
            .map(|s| {
                let whom = match s.rows.as_slice() {
                    [one] => one.clone(),
                    rows if rows.len() <= 3 => rows.join(", "),
                    rows => format!("{} rows", rows.len()),
                };
                Note::new(
                    format!("Machine state ({whom})"),
                    format!(
                        "session {} ({} cell{} of this table) started on a machine that was not \
                         quiet: {}",
                        s.id,
                        s.cells,
                        if s.cells == 1 { "" } else { "s" },
                        s.warnings.join("; ")
                    ),
                )
            })
            .collect()
    }

    /// What the maintainer could do about the notes: for the terminal only.
    pub fn advice(&self) -> Vec<String> {
        let mut advice = Vec::new();
        let missing: usize = self
            .rows
            .iter()
            .filter(|r| r.installed())
            .map(|r| {
                if r.started {
                    r.missing.len()
                } else {
                    self.benches.len().max(1)
                }
            })
            .sum();
        let partial = self
            .rows
            .iter()
            .flat_map(|r| r.cells.values())
            .filter(|c| c.partial_runs().is_some())
            .count();
        if missing + partial > 0 {
            advice.push(format!(
                "{missing} cell(s) not run and {partial} with fewer runs than asked: \
                 `langbench run --resume` with the same --out runs what is missing"
            ));
        }
        let noisy = self
            .rows
            .iter()
            .flat_map(|r| r.cells.values())
            .filter(|c| c.status.is_ok() && c.noisy(self.noise_cv).is_some())
            .count();
        if noisy > 0 {
            advice.push(format!(
                "{noisy} noisy cell(s): quiet the machine (the sessions' warnings say what was \
                 running) and re-run them, or use --runs auto"
            ));
        }
        let busy = self
            .sessions
            .iter()
            .filter(|s| !s.warnings.is_empty())
            .count();
        if busy > 0 {
            advice.push(format!(
                "{busy} session(s) started on a busy machine: re-run their rows on a quiet one"
            ));
        }
        let not_installed = self.rows.iter().filter(|r| !r.installed()).count();
        if not_installed > 0 {
            advice.push(format!(
                "{not_installed} variant(s) not installed: `langbench toolchains install`"
            ));
        }
        if self.machines.len() > 1 {
            advice.push(
                "rows come from more than one machine: re-run the other machines' rows on one \
                 for a table that compares fairly"
                    .into(),
            );
        }
        advice
    }

    pub fn sizes_text(&self) -> String {
        self.benches
            .iter()
            .map(|(b, n)| format!("{b} N={}", thousands(*n)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The columns of the summary table: the editions' layout first
    /// (language, command flags, version, time and RAM per benchmark,
    /// totals: in the CSV and the spreadsheet these keys are the editions'
    /// column names), the rank, then secondary columns (CPU, × fastest)
    /// and plain data for scripts.
    fn columns(&self) -> Vec<Column> {
        let mut cols = vec![
            Column::new("Language", "language", Kind::Text, Show::Both),
            Column::new("Command Flags", "command_flags", Kind::Text, Show::Both),
            Column::new("Version", "version", Kind::Text, Show::Both),
        ];
        if self.machines.len() > 1 {
            cols.push(Column::new(
                "Machine",
                "machine_name",
                Kind::Text,
                Show::Display,
            ));
        }
        let (mut times, mut rams) = (Vec::new(), Vec::new());
        for (b, _) in &self.benches {
            let key = key_of(*b);
            times.push(cols.len());
            cols.push(Column::new(
                format!("{b} (s)"),
                format!("{key}_s"),
                Kind::Seconds { decimals: 3 },
                Show::Both,
            ));
            rams.push(cols.len());
            cols.push(Column::new(
                format!("{b} RAM (KB)"),
                format!("{key}_rss_kb"),
                Kind::Kb,
                Show::Both,
            ));
        }
        let mut total = Column::new(
            "Total (s)",
            "total_s",
            Kind::Seconds { decimals: 3 },
            Show::Both,
        );
        total.sum_of = times;
        let mut total_ram = Column::new("Total RAM (KB)", "total_rss_kb", Kind::Kb, Show::Both);
        total_ram.sum_of = rams;
        cols.extend([
            total,
            total_ram,
            Column::new("Rank", "rank", Kind::Count, Show::Both),
        ]);
        let mut cpus = Vec::new();
        for (b, _) in &self.benches {
            cpus.push(cols.len());
            cols.push(Column::new(
                format!("{b} CPU (s)"),
                format!("{}_cpu_s", key_of(*b)),
                Kind::Seconds { decimals: 3 },
                Show::Extra,
            ));
        }
        let mut total_cpu = Column::new(
            "Total CPU (s)",
            "total_cpu_s",
            Kind::Seconds { decimals: 3 },
            Show::Extra,
        );
        total_cpu.sum_of = cpus;
        cols.extend([
            total_cpu,
            Column::new("× fastest", "total_relative", Kind::Ratio, Show::Extra),
            Column::new("Edition", "edition", Kind::Text, Show::Data),
            Column::new("Variant", "variant", Kind::Text, Show::Data),
            Column::new("Size", "size", Kind::Text, Show::Data),
            Column::new("Figures", "figures", Kind::Text, Show::Data),
            Column::new("Row status", "row_status", Kind::Text, Show::Data),
            Column::new(
                "Partial total (s)",
                "partial_total_s",
                Kind::Seconds { decimals: 3 },
                Show::Data,
            ),
        ]);
        for (b, _) in &self.benches {
            cols.push(Column::new(
                format!("{b} × fastest"),
                format!("{}_relative", key_of(*b)),
                Kind::Ratio,
                Show::Data,
            ));
        }
        for (b, _) in &self.benches {
            cols.push(Column::new(
                format!("{b} status"),
                format!("{}_status", key_of(*b)),
                Kind::Text,
                Show::Data,
            ));
        }
        cols.push(Column::new("Complete", "complete", Kind::Text, Show::Data));
        cols.push(Column::new("Machine #", "machine", Kind::Count, Show::Data));
        cols.push(Column::new(
            "Spread (CV)",
            "max_cv",
            Kind::Percent,
            if self.show_spread {
                Show::Both
            } else {
                Show::Data
            },
        ));
        let s4 = Kind::Seconds { decimals: 4 };
        for (b, _) in &self.benches {
            let k = key_of(*b);
            for (h, key, kind) in [
                ("runs", "runs", Kind::Count),
                ("cold runs left out", "cold_excluded", Kind::Count),
                ("mean (s)", "mean_s", s4),
                ("median (s)", "median_s", s4),
                ("stddev (s)", "stddev_s", s4),
                ("min (s)", "min_s", s4),
                ("max (s)", "max_s", s4),
                ("CV", "cv", Kind::Percent),
            ] {
                cols.push(Column::new(
                    format!("{b} {h}"),
                    format!("{k}_{key}"),
                    kind,
                    Show::Data,
                ));
            }
        }
        cols
    }

    /// The cells of one row, in [`Summary::columns`] order.
    fn cells(&self, row: &Row, rank: Option<Rank>) -> Vec<ECell> {
        let anchor = crate::export::Measured::anchor_of(&row.variant);
        let mut v = vec![
            ECell::text(&row.language).linked(anchor),
            ECell::text(&row.flags),
            ECell::text(&row.version),
        ];
        if self.machines.len() > 1 {
            v.push(match row.machine {
                Some(m) if Some(m) != self.main_machine => {
                    ECell::text(format!("#{} {}", m + 1, self.machines[m].short()))
                        .marked(
                            Mark::Flagged,
                            Some(format!(
                                "measured on another machine: {}",
                                self.machines[m].hardware()
                            )),
                        )
                        .flagged(Flag::Machine)
                }
                _ => ECell::empty(""),
            });
        }
        for (b, _) in &self.benches {
            let note = self.cell_note(row, *b);
            match row.cells.get(b) {
                Some(c) => {
                    let noisy = c.noisy(self.noise_cv).filter(|_| c.status.is_ok());
                    let flag = c.flag(self.noise_cv);
                    let mark = if flag.is_none() {
                        Mark::Plain
                    } else if c.wall_s().is_some() {
                        Mark::Flagged
                    } else {
                        Mark::Failed
                    };
                    let text = match noisy {
                        Some(s) if c.partial_runs().is_none() => {
                            format!("{} ±{:.0}%", c.time_text(), s.cv * 100.0)
                        }
                        _ => c.time_text(),
                    };
                    let mut cell = match c.wall_s() {
                        Some(w) => ECell::number(w, text),
                        None => ECell::empty(text),
                    }
                    .marked(mark, note.clone())
                    .with_interval(c.interval());
                    cell.flag = flag;
                    v.push(cell);
                    v.push(match c.rss_kb() {
                        Some(k) => ECell::int(k as i64, c.rss_text()),
                        None => ECell::empty(c.rss_text()),
                    });
                }
                None => {
                    let text = if !row.installed() {
                        "not installed"
                    } else if row.no_program.contains(b) {
                        "n/a"
                    } else {
                        "not run"
                    };
                    let note = if row.started { note } else { None };
                    v.push(
                        ECell::empty(text)
                            .marked(Mark::Failed, note)
                            .flagged(Flag::NotRun),
                    );
                    v.push(ECell::empty("-"));
                }
            }
        }
        match (row.total_s(), row.total_rss_kb()) {
            (Some(t), Some(k)) => {
                v.push(ECell::number(t, format!("{t:.2}")).with_interval(row.total_range()));
                v.push(ECell::int(k as i64, thousands(k)));
            }
            _ => {
                let (text, note) = if !row.installed() {
                    ("not installed", None)
                } else if !row.started {
                    ("not run", None)
                } else if row.has_figures() {
                    let with: Vec<String> = row
                        .cells
                        .iter()
                        .filter(|(_, c)| c.wall_s().is_some())
                        .map(|(b, _)| b.to_string())
                        .collect();
                    (
                        "partial",
                        Some(format!(
                            "partial: no total: only {} of {} benchmarks have a time ({}: \
                             {:.2} s together); not ranked with complete rows",
                            with.len(),
                            self.benches.len(),
                            with.join(", "),
                            row.sum_s()
                        )),
                    )
                } else {
                    ("-", Some("no cell has a figure".to_string()))
                };
                v.push(ECell::empty(text).marked(Mark::Failed, note).flagged(
                    if row.has_figures() {
                        Flag::Partial
                    } else {
                        Flag::NotRun
                    },
                ));
                v.push(ECell::empty("-"));
            }
        }
        v.push(match rank {
            Some(r) => {
                let cell = ECell::int(r.place as i64, r.text());
                if r.shared {
                    cell.marked(
                        Mark::Plain,
                        Some(format!(
                            "shares rank {} with rows whose totals are within the range of its \
                             runs: these runs do not tell them apart",
                            r.place
                        )),
                    )
                } else {
                    cell
                }
            }
            None => ECell::empty(""),
        });
        let (fastest_total, fastest) = self.fastest();
        let secs = |x: Option<f64>| match x {
            Some(x) => ECell::number(x, format!("{x:.2}")),
            None => ECell::empty(""),
        };
        for (b, _) in &self.benches {
            v.push(secs(row.cells.get(b).and_then(Cell::cpu_s)));
        }
        v.push(secs(row.total_cpu_s()));
        let ratio = |x: Option<f64>, by: Option<f64>| match (x, by) {
            (Some(x), Some(by)) if by > 0.0 => ECell::number(x / by, format!("×{:.2}", x / by)),
            _ => ECell::empty(""),
        };
        v.push(ratio(row.total_s(), fastest_total));
        v.push(ECell::text(&self.edition));
        v.push(ECell::text(&row.variant));
        v.push(ECell::text(&self.size));
        v.push(ECell::text(self.figures_text(row)));
        v.push(ECell::text(row.state()));
        v.push(if row.complete() || !row.has_figures() {
            ECell::empty("")
        } else {
            let s = row.sum_s();
            ECell::number(s, format!("{s:.2}"))
        });
        for (b, _) in &self.benches {
            let c = row.cells.get(b).filter(|c| c.status.is_ok());
            v.push(ratio(c.and_then(Cell::wall_s), fastest.get(b).copied()));
        }
        for (b, _) in &self.benches {
            v.push(ECell::text(match row.cells.get(b) {
                Some(c) if c.partial_runs().is_some() => "partial-runs",
                Some(c) => c.status.name(),
                None if row.no_program.contains(b) => "n/a",
                None => "not-run",
            }));
        }
        v.push(ECell::text(row.complete().to_string()));
        v.push(match row.machine {
            Some(m) => ECell::int(m as i64 + 1, format!("#{}", m + 1)),
            None => ECell::empty(""),
        });
        // Published cells are one record each: no spread to show.
        let cells: Vec<Option<&Cell>> = self
            .benches
            .iter()
            .map(|(b, _)| {
                row.cells
                    .get(b)
                    .filter(|c| !c.published() && c.wall_s().is_some() && c.spread.is_some())
            })
            .collect();
        let spreads: Vec<Option<Spread>> = cells.iter().map(|c| c.and_then(|c| c.spread)).collect();
        let max_cv = spreads
            .iter()
            .flatten()
            .filter(|s| s.runs > 1)
            .map(|s| s.cv)
            .fold(None, |m: Option<f64>, c| Some(m.map_or(c, |m| m.max(c))));
        let shown: Vec<String> = spreads
            .iter()
            .map(|s| match s {
                Some(s) if s.runs > 1 => format!("{:.1}%", s.cv * 100.0),
                _ => "-".into(),
            })
            .collect();
        v.push(match max_cv {
            Some(c) => ECell::number(c, shown.join(" / ")),
            None => ECell::empty(shown.join(" / ")),
        });
        for (s, c) in spreads.iter().zip(&cells) {
            match (s, c) {
                (Some(s), Some(c)) => {
                    let secs = |x: f64| ECell::number(x, format!("{x:.4}"));
                    let cold = c.cold_left_out.len();
                    v.extend([
                        ECell::int(s.runs as i64, s.runs.to_string()),
                        ECell::int(cold as i64, cold.to_string()),
                        secs(s.mean),
                        secs(s.median),
                        secs(s.stddev),
                        secs(s.min),
                        secs(s.max),
                        ECell::number(s.cv, format!("{:.1}%", s.cv * 100.0)),
                    ]);
                }
                _ => v.extend((0..8).map(|_| ECell::empty(""))),
            }
        }
        v
    }

    /// The editions' table.
    pub fn table(&self) -> Table {
        let ranks = self.ranks();
        Table {
            id: "summary".into(),
            title: "Summary".into(),
            columns: self.columns(),
            rows: self
                .rows
                .iter()
                .zip(ranks)
                .map(|(r, rank)| self.cells(r, rank))
                .collect(),
            notes: self.notes(),
            data_only: false,
            labels: 2,
        }
    }

    /// The texts a reader sees in one row (display columns).
    pub fn row_texts(&self, row: &Row) -> Vec<String> {
        let cols = self.columns();
        let i = self.rows.iter().position(|r| r.variant == row.variant);
        let rank = i.and_then(|i| self.ranks()[i]);
        self.cells(row, rank)
            .into_iter()
            .zip(&cols)
            .filter(|(_, c)| c.in_display())
            .map(|(cell, _)| cell.text)
            .collect()
    }

    /// The page's title: edition, sizes and dates.
    pub fn title(&self) -> String {
        let size = match self.size.as_str() {
            "2020" | "2021" => format!("{} sizes", self.size),
            "" => String::new(),
            s => format!("size {s}"),
        };
        let mut t = if self.published {
            format!("langbench {} edition (as published)", self.edition)
        } else {
            format!("langbench {} edition", self.edition)
        };
        if !size.is_empty() {
            t.push_str(&format!(", {size}"));
        }
        if let Some(d) = self.dates() {
            t.push_str(&format!(", measured {d}"));
        }
        t
    }

    /// `2026-11-30 to 2026-12-01` (or one day).
    fn dates(&self) -> Option<String> {
        let (a, b) = (self.measured_from.as_deref()?, self.measured_to.as_deref()?);
        let (a, b) = (a.get(..10)?, b.get(..10)?);
        Some(if a == b {
            a.to_string()
        } else {
            format!("{a} to {b}")
        })
    }

    /// Facts shown above the table: what edition, measured where, when and
    /// with what, and how to read it.
    pub fn meta(&self) -> Vec<(String, String)> {
        let mut meta = Vec::new();
        meta.push((
            "Edition".into(),
            format!(
                "{}{}; sizes: {}",
                self.edition,
                if self.published { " (published)" } else { "" },
                self.sizes_text()
            ),
        ));
        if self.published {
            meta.push((
                "Figures".into(),
                format!(
                    "as published (measured by hand with /usr/bin/time on the machine below, \
                     published best of {}; did-not-finish runs are shown as such, not as \
                     times); no per-run figures were published, so no spread is shown",
                    self.published_runs.unwrap_or(3)
                ),
            ));
            if let Some(s) = &self.source {
                meta.push(("Source".into(), s.clone()));
            }
        } else if let Some(d) = self.dates() {
            meta.push((
                "Measured".into(),
                format!(
                    "{d} (UTC), in {} session{} (listed below)",
                    self.sessions.len(),
                    if self.sessions.len() == 1 { "" } else { "s" }
                ),
            ));
        }
        if !self.langbench.is_empty() {
            meta.push((
                "langbench".into(),
                format!(
                    "{}{}",
                    self.langbench.join(", "),
                    if self.langbench.iter().any(|v| v.contains('(')) {
                        ""
                    } else {
                        " (revision not recorded)"
                    }
                ),
            ));
        }
        if let Some(main) = self.main_machine {
            let m = &self.machines[main];
            let rows_on = |i: usize| self.rows.iter().filter(|r| r.machine == Some(i)).count();
            meta.push((
                "Machine".into(),
                if self.machines.len() > 1 {
                    format!("{} ({} rows)", m.hardware(), rows_on(main))
                } else {
                    m.hardware()
                },
            ));
            let others: Vec<String> = (0..self.machines.len())
                .filter(|&i| i != main)
                .map(|i| {
                    format!(
                        "#{} {} ({} rows)",
                        i + 1,
                        self.machines[i].hardware(),
                        rows_on(i)
                    )
                })
                .collect();
            if !others.is_empty() {
                meta.push((
                    "Other machines".into(),
                    format!(
                        "DIFFERENT HARDWARE: {}; these rows are marked in the Machine column \
                         and compare fairly only with rows of their own machine",
                        others.join("; ")
                    ),
                ));
            }
            let kernels: Vec<String> = (0..self.machines.len())
                .filter_map(|i| {
                    let k: BTreeSet<&str> = self
                        .sessions
                        .iter()
                        .filter(|s| s.machine == i && !s.kernel.is_empty())
                        .map(|s| s.kernel.as_str())
                        .collect();
                    (k.len() > 1).then(|| {
                        format!(
                            "{} ran kernels {}",
                            if self.machines.len() > 1 {
                                format!("#{}", i + 1)
                            } else {
                                "the machine".into()
                            },
                            k.into_iter().collect::<Vec<_>>().join(", ")
                        )
                    })
                })
                .collect();
            let one_kernel: BTreeSet<&str> = self
                .sessions
                .iter()
                .filter(|s| !s.kernel.is_empty())
                .map(|s| s.kernel.as_str())
                .collect();
            if !kernels.is_empty() {
                meta.push((
                    "Kernel".into(),
                    format!(
                        "{}: builds of one kernel (a VM's build string changes between boots), \
                         not counted as other machines",
                        kernels.join("; ")
                    ),
                ));
            } else if one_kernel.len() == 1 && !self.published {
                meta.push((
                    "Kernel".into(),
                    format!(
                        "Linux {}",
                        one_kernel.into_iter().next().unwrap_or_default()
                    ),
                ));
            }
        }
        meta.push((
            "Time".into(),
            if self.published {
                "wall seconds of build + run (`Real` of /usr/bin/time), best of 3 runs; \
                 RAM: its `Maximum resident set size` in KB"
            } else {
                "wall seconds of build + run, best of N runs (the range after a figure: its \
                 fastest to slowest run); CPU: user + system seconds of that run; RAM: peak \
                 RSS in KB (`wait4` rusage, as `/usr/bin/time %M`)"
            }
            .into(),
        ));
        meta.push((
            "Rank".into(),
            "by total time among complete rows; rows whose totals lie within each other's \
             range of runs share a rank (=): these runs do not tell them apart. Rows with a \
             failed, timed-out or missing cell have no total (\"partial\") and no rank"
                .into(),
        ));
        if !self.published {
            meta.push((
                "Noise".into(),
                format!(
                    "a cell whose runs spread more than {:.1}% (coefficient of variation) is \
                     marked noisy; spread figures are in the CSV, JSON and spreadsheet{}",
                    self.noise_cv * 100.0,
                    if self
                        .rows
                        .iter()
                        .flat_map(|r| r.cells.values())
                        .any(|c| !c.cold_left_out.is_empty())
                    {
                        "; a run that started on empty toolchain caches (cold) measures their \
                         warm-up, not noise: where a cell has two warm runs, its cold ones are \
                         left out of its spread, range, noisy flag and shared ranks (one can \
                         still be its figure)"
                    } else {
                        ""
                    }
                ),
            ));
        }
        meta
    }

    /// Facts a reader opens on demand: the sessions.
    pub fn details(&self) -> Vec<(String, String)> {
        self.sessions
            .iter()
            .map(|s| {
                let mut text = format!(
                    "started {}, langbench {}, machine #{}{}: {} cell{} ({}); `{}`",
                    s.started_at,
                    s.langbench,
                    s.machine + 1,
                    if s.kernel.is_empty() {
                        String::new()
                    } else {
                        format!(" (kernel {})", s.kernel)
                    },
                    s.cells,
                    if s.cells == 1 { "" } else { "s" },
                    s.rows.join(", "),
                    s.command_line
                );
                if !s.warnings.is_empty() {
                    text.push_str(&format!("; machine not quiet: {}", s.warnings.join("; ")));
                }
                (format!("Session {}", s.id), text)
            })
            .collect()
    }

    /// The summary as a document (the runs table is added by the caller
    /// that has the records).
    pub fn document(&self) -> Document {
        Document {
            title: self.title(),
            meta: self.meta(),
            details: self.details(),
            tables: vec![self.table()],
            charts: crate::export::charts::summary(self),
            advice: self.advice(),
            ..Default::default()
        }
    }

    /// Everything printed at the end of a run: the table, then what to do
    /// about its notes.
    pub fn terminal_text(&self) -> String {
        let doc = self.document();
        let mut s = crate::export::terminal::document(&doc);
        for a in &doc.advice {
            s.push_str(&format!("to do: {a}\n"));
        }
        s
    }
}

/// A benchmark's key in CSV columns: `num_comb`.
fn key_of(b: Bench) -> String {
    b.name().replace('-', "_")
}

/// 1234567 -> "1,234,567".
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{self, session, variant};

    fn rec(variant: &str, bench: Bench, run: u32, wall: f64, status: Status) -> RunRecord {
        let r = testing::run(variant, bench)
            .nth(run)
            .wall(wall)
            .rss((wall * 1000.0) as u64)
            .status(status);
        match status {
            Status::BadExit => r.exit(Some(Exit::Exited(25))),
            _ => r,
        }
        .record()
    }

    #[test]
    fn best_of_n_and_failures_stay_visible() {
        let stored = Stored {
            runs: vec![
                rec("fast", Bench::Assoc, 1, 2.0, Status::Ok),
                rec("fast", Bench::Assoc, 2, 1.5, Status::Ok),
                rec("fast", Bench::Assoc, 3, 1.7, Status::Ok),
                rec("tcc", Bench::Assoc, 1, 1.0, Status::BadExit),
                rec("slow", Bench::Assoc, 1, 9.0, Status::Timeout),
                rec("slow", Bench::Assoc, 2, 0.0, Status::Skipped),
                rec("seg", Bench::Assoc, 1, 0.1, Status::Crashed),
            ],
            ..Default::default()
        };
        // Runs of 2.0, 1.5, 1.7 s spread 15%: noisy at the default 5%.
        let noisy = Summary::from_stored(&stored);
        assert_eq!(noisy.row_texts(&noisy.rows[0])[3], "1.50 ±15%");
        let s = Summary::from_stored(&stored).view(&View {
            noise_cv: 0.5,
            ..Default::default()
        });
        let order: Vec<_> = s.rows.iter().map(|r| r.variant.as_str()).collect();
        // A timeout is no time: slow and seg both have no figure.
        assert_eq!(order, ["fast", "tcc", "seg", "slow"]);
        let fast = &s.rows[0];
        assert_eq!(fast.cells[&Bench::Assoc].wall_s(), Some(1.5));
        assert_eq!(fast.cells[&Bench::Assoc].best.as_ref().unwrap().attempt, 2);
        assert_eq!(s.row_texts(fast)[3], "1.50");
        assert_eq!(s.row_texts(&s.rows[1])[3], "1.00 (exit 25)");
        assert_eq!(s.row_texts(&s.rows[1])[5], "partial");
        assert_eq!(s.row_texts(&s.rows[2])[3], "CRASHED (SIGSEGV)");
        assert_eq!(s.row_texts(&s.rows[3])[3], "TIMEOUT >9.00");
        assert_eq!(s.rows[3].cells[&Bench::Assoc].wall_s(), None);
        assert_eq!(s.rows[3].total_s(), None);
        // Only the complete row is ranked.
        assert_eq!(s.row_texts(fast)[7], "1");
        assert_eq!(s.row_texts(&s.rows[1])[7], "");
        assert_eq!(s.notes().len(), 3);
    }

    /// A figure that is a cold run says so; a warm one says nothing.
    #[test]
    fn a_cold_figure_says_so() {
        use crate::record::CacheStart::{Cold, Warm};
        let with = |runs: &[(f64, crate::record::CacheStart)]| {
            let runs = runs
                .iter()
                .enumerate()
                .map(|(i, &(wall, cache))| {
                    let mut r = rec("go", Bench::NumComb, i as u32 + 1, wall, Status::Ok);
                    r.cache = Some(cache);
                    r
                })
                .collect();
            let s = Summary::from_stored(&Stored {
                runs,
                ..Default::default()
            })
            .view(&View {
                noise_cv: 10.0,
                ..Default::default()
            });
            s.cell_note(&s.rows[0], Bench::NumComb)
        };
        // A person's three runs: the first builds the caches, the next are faster.
        let warm = with(&[(6.1, Cold), (0.06, Warm), (0.07, Warm)]).unwrap();
        assert!(
            warm.starts_with("run 1 started on empty toolchain caches"),
            "{warm}"
        );
        assert_eq!(with(&[(0.07, Warm), (0.06, Warm), (0.07, Warm)]), None);
        let first = with(&[(1.0, Cold), (1.2, Warm), (1.1, Warm)]).unwrap();
        assert!(
            first.contains("the fastest run was the cell's first"),
            "{first}"
        );
        let all = with(&[(6.1, Cold), (6.0, Cold), (6.2, Cold)]).unwrap();
        assert!(all.contains("--cold-caches"), "{all}");
        // Records from before caches were recorded say nothing.
        let mut old = rec("go", Bench::NumComb, 1, 1.0, Status::Ok);
        old.cache = None;
        let s = Summary::from_stored(&Stored {
            runs: vec![old],
            ..Default::default()
        });
        assert_eq!(s.cell_note(&s.rows[0], Bench::NumComb), None);
    }

    /// The lead's fresh machine: `--runs 3` of go and crystal-release,
    /// run 1 cold. The cold compile is the caches' warm-up, not noise: the
    /// spread, the noisy flag, the range and the shared-rank rule are the
    /// warm runs'; the figure is still the best of all three.
    #[test]
    fn a_cold_first_run_is_not_noise() {
        use crate::record::CacheStart::{Cold, Warm};
        let cell = |variant: &str, runs: &[(f64, crate::record::CacheStart)]| {
            runs.iter()
                .enumerate()
                .map(|(i, &(wall, cache))| {
                    testing::run(variant, Bench::NumComb)
                        .nth(i as u32 + 1)
                        .wall(wall)
                        .cache(cache)
                        .record()
                })
                .collect::<Vec<_>>()
        };
        let runs = [
            cell("go", &[(7.07, Cold), (0.466, Warm), (0.461, Warm)]),
            cell("crystal", &[(12.5, Cold), (1.79, Warm), (1.54, Warm)]),
        ]
        .concat();
        let stored = Stored {
            runs,
            ..Default::default()
        };
        let s = Summary::from_stored(&stored);
        let (go, crystal) = (&s.rows[0], &s.rows[1]);
        let c = &go.cells[&Bench::NumComb];
        assert_eq!(c.wall_s(), Some(0.461));
        let spread = c.spread.unwrap();
        assert_eq!((spread.runs, spread.min, spread.max), (2, 0.461, 0.466));
        assert!(spread.cv < 0.01, "{spread:?}");
        assert_eq!(
            c.cold_left_out,
            [ColdRun {
                run: 1,
                wall_s: 7.07
            }]
        );
        assert_eq!(c.noisy(s.noise_cv), None);
        assert_eq!(c.flag(s.noise_cv), None);
        assert_eq!(c.interval(), Some((0.461, 0.466)));
        // The figure plain, no ±143%; ranks 1 and 2, not =1 and =1.
        assert_eq!(s.row_texts(go)[3], "0.46");
        let ranks: Vec<String> = s.ranks().iter().map(|r| r.unwrap().text()).collect();
        assert_eq!(ranks, ["1", "2"]);
        let note = s.cell_note(go, Bench::NumComb).unwrap();
        assert_eq!(
            note,
            "run 1 started on empty toolchain caches (cold, 7.07 s); not counted in the \
             spread; the figure is a warm run, as a person's second"
        );
        // Crystal's two warm runs do spread 11%: that is noise, and says so.
        let c = &crystal.cells[&Bench::NumComb];
        assert_eq!(s.row_texts(crystal)[3], "1.54 ±11%");
        let note = s.cell_note(crystal, Bench::NumComb).unwrap();
        assert!(
            note.starts_with("noisy: 2 warm runs spread 10.6%") && note.contains("(cold, 12.50 s)"),
            "{note}"
        );
        assert_eq!(c.interval(), Some((1.54, 1.79)));
        // summary.csv: the spread columns are the warm runs', and say how
        // many cold ones they leave out.
        let table = s.table();
        let col = |key: &str| table.columns.iter().position(|c| c.key == key).unwrap();
        let row = &table.rows[0];
        assert_eq!(row[col("num_comb_runs")].text, "2");
        assert_eq!(row[col("num_comb_cold_excluded")].text, "1");
        assert_eq!(row[col("num_comb_max_s")].text, "0.4660");
        assert_eq!(row[col("max_cv")].text, "0.8%");
        assert!(
            s.meta()
                .iter()
                .any(|(k, v)| k == "Noise" && v.contains("cold"))
        );
        // runs.csv: every run, the cold one with its time, out of the spread.
        let runs = crate::export::runs::table(&stored, &s);
        let col = |key: &str| runs.columns.iter().position(|c| c.key == key).unwrap();
        let go_runs: Vec<(String, String, String)> = runs
            .rows
            .iter()
            .filter(|r| r[col("variant")].text == "go")
            .map(|r| {
                (
                    r[col("wall_s")].text.clone(),
                    r[col("cache")].text.clone(),
                    r[col("in_spread")].text.clone(),
                )
            })
            .collect();
        let want = [
            ("7.070", "cold", "false"),
            ("0.466", "warm", "true"),
            ("0.461", "warm", "true"),
        ]
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()));
        assert_eq!(go_runs, want);
    }

    /// Every run cold (`--cold-caches`), or too few warm runs to have a
    /// spread of their own: every run counts, as before caches were
    /// recorded; and a cold figure starts the range.
    #[test]
    fn without_two_warm_runs_every_run_counts() {
        use crate::record::CacheStart::{Cold, Warm};
        let summary = |runs: &[(f64, crate::record::CacheStart)]| {
            let runs = runs
                .iter()
                .enumerate()
                .map(|(i, &(wall, cache))| {
                    testing::run("go", Bench::NumComb)
                        .nth(i as u32 + 1)
                        .wall(wall)
                        .cache(cache)
                        .record()
                })
                .collect();
            Summary::from_stored(&Stored {
                runs,
                ..Default::default()
            })
        };
        let s = summary(&[(6.1, Cold), (6.0, Cold), (6.9, Cold)]);
        let c = &s.rows[0].cells[&Bench::NumComb];
        assert_eq!(c.spread.unwrap().runs, 3);
        assert!(c.cold_left_out.is_empty());
        assert!(c.noisy(s.noise_cv).is_some(), "6.0–6.9 s spread 7.5%");
        assert_eq!(c.interval(), Some((6.0, 6.9)));
        assert!(!s.meta().iter().any(|(_, v)| v.contains("warm-up")));
        // --runs 2: one cold, one warm; both count (and are noisy).
        let s = summary(&[(7.07, Cold), (0.466, Warm)]);
        let c = &s.rows[0].cells[&Bench::NumComb];
        assert_eq!(c.spread.unwrap().runs, 2);
        assert!(c.noisy(s.noise_cv).is_some());
        let note = s.cell_note(&s.rows[0], Bench::NumComb).unwrap();
        assert!(
            note.contains("counted in the spread (the cell has fewer than two warm runs)"),
            "{note}"
        );
        // The figure a cold run faster than the warm ones: the range starts
        // at the figure and runs to the slowest warm run.
        let s = summary(&[(1.0, Cold), (1.2, Warm), (1.1, Warm)]);
        let c = &s.rows[0].cells[&Bench::NumComb];
        assert_eq!(c.wall_s(), Some(1.0));
        assert_eq!(c.spread.unwrap().runs, 2);
        assert_eq!(c.interval(), Some((1.0, 1.2)));
        let note = s.cell_note(&s.rows[0], Bench::NumComb).unwrap();
        assert!(
            note.ends_with("the spread counts the warm runs only"),
            "{note}"
        );
    }

    #[test]
    fn newest_session_wins_per_cell() {
        let mut old = rec("a", Bench::Assoc, 1, 5.0, Status::Ok);
        old.session = "old".into();
        let mut new = rec("a", Bench::Assoc, 1, 7.0, Status::Ok);
        new.session = "new".into();
        let other = rec("a", Bench::NumComb, 1, 1.0, Status::Ok);
        let stored = Stored {
            sessions: vec![session("s1"), session("old"), session("new")],
            runs: vec![other, new, old],
            ..Default::default()
        };
        let s = Summary::from_stored(&stored);
        assert_eq!(s.rows[0].cells[&Bench::Assoc].wall_s(), Some(7.0));
        assert_eq!(s.rows[0].sum_s(), 8.0);
    }

    #[test]
    fn a_row_cut_short_is_partial_not_ranked_as_complete() {
        // "cut" was interrupted after assoc: its one fast cell must not put
        // it above a row that ran every benchmark.
        let stored = Stored {
            runs: vec![
                rec("full", Bench::Assoc, 1, 2.0, Status::Ok),
                rec("full", Bench::NumComb, 1, 3.0, Status::Ok),
                rec("cut", Bench::Assoc, 1, 1.0, Status::Ok),
            ],
            ..Default::default()
        };
        let s = Summary::from_stored(&stored);
        let order: Vec<_> = s.rows.iter().map(|r| r.variant.as_str()).collect();
        assert_eq!(order, ["full", "cut"]);
        let cut = &s.rows[1];
        assert!(!cut.complete());
        assert_eq!(cut.missing, [Bench::NumComb]);
        let texts = s.row_texts(cut);
        assert_eq!(texts[5], "not run");
        assert_eq!(texts[7], "partial");
        assert_eq!(cut.total_s(), None);
        assert!(
            s.notes()[0]
                .to_string()
                .starts_with("Cut · cut / num-comb: not run"),
            "{:?}",
            s.notes()
        );
    }

    #[test]
    fn rows_without_figures_skips_and_missing_programs_say_what_they_are() {
        let session = SessionRecord {
            variants: vec![variant("half", &[Bench::Assoc])],
            ..session("s1")
        };
        let stored = Stored {
            sessions: vec![session],
            runs: vec![
                rec("dead", Bench::Assoc, 1, 0.1, Status::Crashed),
                rec("dead", Bench::Assoc, 2, 0.0, Status::Skipped),
                rec("dead", Bench::Assoc, 3, 0.0, Status::Skipped),
                rec("dead", Bench::NumComb, 1, 0.1, Status::Failed),
                rec("half", Bench::Assoc, 1, 1.0, Status::Ok),
            ],
            ..Default::default()
        };
        let s = Summary::from_stored(&stored);
        let dead = s.rows.iter().find(|r| r.variant == "dead").unwrap();
        let texts = s.row_texts(dead);
        assert_eq!(
            texts[7], "-",
            "no figure is no total, never -0.00: {texts:?}"
        );
        let notes: Vec<String> = s.notes().iter().map(|n| n.to_string()).collect();
        let notes = notes.join("\n");
        assert!(
            notes.contains("Dead · dead / assoc: crashed (1 of 1 run; 2 more skipped after it)"),
            "{notes}"
        );
        let half = s.rows.iter().find(|r| r.variant == "half").unwrap();
        assert_eq!(half.no_program, [Bench::NumComb]);
        assert!(half.missing.is_empty());
        assert_eq!(s.row_texts(half)[5], "n/a");
        assert!(notes.contains("Half · half / num-comb: n/a: the variant has no num-comb program"));
        assert!(!notes.contains("half / num-comb: not run"), "{notes}");
    }

    #[test]
    fn newlines_and_escape_codes_in_names_stay_out_of_tables() {
        let mut r = rec("evil", Bench::Assoc, 1, 1.0, Status::Ok);
        r.flags = "evil\n| x | y |\x1b[31mred".into();
        r.language = "L\r\nM".into();
        let s = Summary::from_stored(&Stored {
            runs: vec![r],
            ..Default::default()
        });
        let doc = s.document();
        let md = String::from_utf8(
            crate::export::Exporter::render(&crate::export::markdown::Markdown, &doc).unwrap(),
        )
        .unwrap();
        let row = md.lines().find(|l| l.contains("evil")).unwrap();
        assert!(!row.contains('\x1b'), "{row}");
        // 8 columns: 9 cell borders; the pipes of the flags are escaped.
        assert_eq!(row.matches(" |").count() + 1, 9, "{row}");
        assert!(row.contains("evil \\| x \\| y \\|red"), "{row}");
        let term = crate::export::terminal::document(&doc);
        assert!(!term.contains('\x1b') && !term.contains("L\r"), "{term}");
    }

    #[test]
    fn rows_within_each_others_noise_share_a_rank() {
        // (total, slowest total): b is within a's runs, c is not; d within
        // c's; e within d's but not c's (a chain does not grow one group).
        let r = ranks(&[
            Some((10.0, 10.5)),
            Some((10.3, 10.9)),
            None,
            Some((11.0, 12.0)),
            Some((11.9, 12.5)),
            Some((12.2, 12.3)),
        ]);
        let shown: Vec<String> = r
            .iter()
            .map(|r| r.map_or("-".into(), |r| r.text()))
            .collect();
        assert_eq!(shown, ["=1", "=1", "-", "=3", "=3", "5"]);
    }

    #[test]
    fn interrupted_cells_and_variants_never_started_say_so() {
        let session = SessionRecord {
            runs: 3,
            variants: vec![
                variant("done", &[Bench::Assoc]),
                variant("cut", &[Bench::Assoc]),
                variant("later", &[Bench::Assoc]),
            ],
            ..session("s1")
        };
        let stored = Stored {
            sessions: vec![session],
            runs: vec![
                rec("done", Bench::Assoc, 1, 1.0, Status::Ok),
                rec("done", Bench::Assoc, 2, 1.0, Status::Ok),
                rec("done", Bench::Assoc, 3, 1.0, Status::Ok),
                rec("cut", Bench::Assoc, 1, 2.0, Status::Ok),
                rec("cut", Bench::Assoc, 2, 2.0, Status::Ok),
            ],
            ..Default::default()
        };
        let s = Summary::from_stored(&stored);
        let order: Vec<_> = s.rows.iter().map(|r| r.variant.as_str()).collect();
        assert_eq!(order, ["done", "cut", "later"]);
        assert_eq!(s.row_texts(&s.rows[1])[3], "2.00 (2 of 3 runs)");
        let later = s.row_texts(&s.rows[2]);
        assert_eq!(
            (later[3].as_str(), later[5].as_str()),
            ("not run", "not run")
        );
        assert_eq!(s.rows[2].state(), "not run");
        let notes: Vec<String> = s.notes().iter().map(|n| n.to_string()).collect();
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("Cut · cut / assoc: 2 of 3 runs")),
            "{notes:?}"
        );
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("Later · later: not run")),
            "{notes:?}"
        );
        // What to do about it is the terminal's, never a published file's.
        let md = String::from_utf8(
            crate::export::Exporter::render(&crate::export::markdown::Markdown, &s.document())
                .unwrap(),
        )
        .unwrap();
        assert!(
            !md.contains("--resume") && !md.contains("quiet the machine"),
            "{md}"
        );
        assert!(
            s.terminal_text()
                .contains("to do: 1 cell(s) not run and 1 with fewer runs")
        );
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(12345678), "12,345,678");
    }
}
