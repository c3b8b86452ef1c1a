//! From stored records to a [`Summary`]'s rows, step by step: each
//! cell's newest runs, the rows of variants selected but never started,
//! what each row is missing and the rows' order, the machines, the
//! sessions, and where and when the figures were measured.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::{Cell, Row, SessionInfo, Summary, View};
use crate::bench::Bench;
use crate::machine::Machine;
use crate::record::{Origin, RunRecord, SessionRecord, Status};
use crate::reference::HostSpeed;
use crate::reproduced::precision::Ranking;
use crate::reproduced::verify::Check;
use crate::store::Stored;

impl Summary {
    pub(crate) fn from_stored(stored: &Stored) -> Summary {
        let shown = stored.newest_runs();
        let (mut rows, benches) = started_rows(stored, &shown);
        let programs = add_selected(stored, &mut rows);
        if benches.is_empty() {
            // Nothing ran at all yet: the selected benchmarks are unknown.
            rows.retain(|_, r| r.started);
        }
        let mut rows = finish_rows(rows, &benches, &programs);
        // The machines of the sessions whose runs the table shows (a ws
        // session in the same directory is not one of this table's).
        let shown_sessions: BTreeSet<&str> = shown.iter().map(|r| r.session.as_str()).collect();
        let (machines, session_machine) = machines(stored, &shown_sessions);
        let main_machine = place_rows(&mut rows, &session_machine, machines.len());
        let infos = session_infos(stored, &rows, &session_machine);
        let when = Provenance::of(stored, &shown, &infos, &shown_sessions);
        flag_slow_memory(stored, &mut rows);
        let host = HostSpeed::of(stored, None);
        if let Some(host) = &host {
            for c in rows.iter_mut().flat_map(|r| r.cells.values_mut()) {
                c.normalise(host);
            }
        }
        let mut summary = Summary {
            benches: benches.into_iter().collect(),
            size: stored
                .runs
                .last()
                .map(|r| r.size.clone())
                .unwrap_or_default(),
            rows,
            machine: main_machine.map(|i| machines[i].clone()),
            sessions: infos,
            published: when.published,
            noise_cv: View::default().noise_cv,
            show_spread: false,
            machines,
            main_machine,
            edition: when.edition,
            measured_from: when.measured_from,
            measured_to: when.measured_to,
            langbench: when.langbench,
            source: when.source,
            published_runs: when.published_runs,
            host,
            checks: Vec::new(),
            ranking: Ranking::None,
        };
        summary.judge_checks(stored);
        summary.order_by_normalised();
        summary
    }

    /// The stored checks judged against the records they claim (the
    /// edition's here, each one's run directory beside it) and at their
    /// level against the machine most rows ran on; the precision the
    /// ranks hold at, from those on its CPU model (issue #60).
    fn judge_checks(&mut self, stored: &Stored) {
        self.checks = stored
            .reproductions
            .iter()
            .map(|(file, json)| Check::judge(file, json, stored, self.machine.as_ref()))
            .collect();
        self.ranking = Ranking::of(&self.checks);
    }

    /// Where the ranks are the normalised totals', the complete rows (the
    /// first ones) in the order of their normalised figures, so that ranks
    /// go down the table.
    fn order_by_normalised(&mut self) {
        if !self.ranks_normalised() {
            return;
        }
        let complete = self.rows.iter().take_while(|r| r.complete()).count();
        let figure = |r: &Row| r.normalised_total().map_or(f64::INFINITY, |n| n.figure());
        self.rows[..complete].sort_by(|a, b| {
            figure(a)
                .total_cmp(&figure(b))
                .then(a.variant.cmp(&b.variant))
        });
    }
}

/// Each cell's runs measured after a memory probe far off their
/// session's median (`mem_probe::Medians`, over the session's probes of
/// cells and reference passes alike).
fn flag_slow_memory(stored: &Stored, rows: &mut [Row]) {
    let probes = stored
        .runs
        .iter()
        .map(|r| &**r)
        .chain(&stored.references)
        .filter_map(|r| Some((r.session.as_str(), r.probe.as_ref()?)));
    let medians = crate::mem_probe::Medians::of(probes);
    for c in rows.iter_mut().flat_map(|r| r.cells.values_mut()) {
        c.slow_memory = c
            .runs
            .iter()
            .filter_map(|r| medians.judge(&r.session, r.attempt, r.probe.as_ref()?))
            .collect();
    }
}

/// The runs a session asked of each cell: its N, or with `--runs auto` the
/// minimum of 3 (a cell may stop there).
fn asked(s: &SessionRecord) -> Option<u32> {
    if s.origin == Origin::Published || s.runs == 0 {
        return None;
    }
    Some(crate::noise::Runs::of(s).least())
}

/// A row of a variant, without cells yet.
fn empty_row(variant: &str, language: &str, flags: &str, version: &str) -> Row {
    Row {
        variant: variant.to_string(),
        language: language.to_string(),
        flags: flags.to_string(),
        version: version.to_string(),
        cells: BTreeMap::new(),
        missing: Vec::new(),
        no_program: Vec::new(),
        machine: None,
        started: true,
        selected_installed: true,
    }
}

/// The rows of the variants that ran, each cell from its newest runs, and
/// the benchmarks with their N.
fn started_rows<'s>(
    stored: &'s Stored,
    shown: &[&'s Arc<RunRecord>],
) -> (BTreeMap<&'s str, Row>, BTreeMap<Bench, u64>) {
    let sessions: BTreeMap<&str, &SessionRecord> = stored
        .sessions
        .iter()
        .map(|s| (s.session.as_str(), s))
        .collect();
    let mut rows: BTreeMap<&str, Row> = BTreeMap::new();
    // Each cell shares its runs with the records, not copies of them
    // (issue #41: a copy of every run was 95 MB at 6,500 variants).
    let mut cell_runs: BTreeMap<(&str, Bench), Vec<Arc<RunRecord>>> = BTreeMap::new();
    let mut benches: BTreeMap<Bench, u64> = BTreeMap::new();
    for r in shown {
        benches.insert(r.bench, r.n);
        cell_runs
            .entry((r.variant.as_str(), r.bench))
            .or_default()
            .push(Arc::clone(r));
    }
    for ((variant, bench), runs) in cell_runs {
        let first = &runs[0];
        let asked = sessions.get(first.session.as_str()).and_then(|s| asked(s));
        let row = rows
            .entry(variant)
            .or_insert_with(|| empty_row(variant, &first.language, &first.flags, &first.version));
        // The version of the newest measured cell wins.
        if first.status != Status::NotInstalled {
            row.version = first.version.clone();
        }
        row.cells.insert(bench, Cell::from_runs(runs, asked));
    }
    (rows, benches)
}

/// The programs each variant had, as its newest session saw them; and the
/// variants sessions selected that never ran (Ctrl-C came first), added as
/// rows saying "not run".
fn add_selected<'s>(
    stored: &'s Stored,
    rows: &mut BTreeMap<&'s str, Row>,
) -> BTreeMap<&'s str, &'s [Bench]> {
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
                let mut row = empty_row(&v.id, &v.language, &v.flags, &v.version);
                row.started = false;
                row.selected_installed = v.installed;
                rows.insert(&v.id, row);
            }
        }
    }
    programs
}

/// Each row's missing benchmarks (and those it has no program for), and
/// the rows in the table's order: complete rows by total first.
fn finish_rows(
    rows: BTreeMap<&str, Row>,
    benches: &BTreeMap<Bench, u64>,
    programs: &BTreeMap<&str, &[Bench]>,
) -> Vec<Row> {
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
    rows
}

/// Every distinct machine of the shown sessions, and each session's.
fn machines<'s>(
    stored: &'s Stored,
    shown_sessions: &BTreeSet<&str>,
) -> (Vec<Machine>, BTreeMap<&'s str, usize>) {
    let mut machines: Vec<Machine> = Vec::new();
    let mut session_machine: BTreeMap<&str, usize> = BTreeMap::new();
    for s in stored
        .sessions
        .iter()
        .filter(|s| shown_sessions.contains(s.session.as_str()))
    {
        let i = match machines.iter().position(|m| m.same_as(&s.machine)) {
            Some(i) => {
                machines[i] = machines[i].named_by(&s.machine).clone();
                i
            }
            None => {
                machines.push(s.machine.clone());
                machines.len() - 1
            }
        };
        session_machine.insert(&s.session, i);
    }
    (machines, session_machine)
}

/// Each row's machine (its newest session's); returns the machine most
/// rows ran on (the later one on a tie).
fn place_rows(
    rows: &mut [Row],
    session_machine: &BTreeMap<&str, usize>,
    machines: usize,
) -> Option<usize> {
    for row in rows.iter_mut() {
        row.machine = row
            .cells
            .values()
            .filter_map(|c| c.runs.first())
            .filter_map(|r| session_machine.get(r.session.as_str()).copied())
            .max();
    }
    let mut per_machine = vec![0usize; machines];
    for m in rows.iter().filter_map(|r| r.machine) {
        per_machine[m] += 1;
    }
    (0..machines).max_by_key(|&i| (per_machine[i], i))
}

/// The sessions whose runs the table shows, and what it shows of each:
/// every session with a run in a cell, the first run's or not (a session
/// that only carried cells on after `--resume`, their third runs, is one
/// of the table's sessions too: results/2026 said "6 sessions" of its 7,
/// issue #60).
fn session_infos(
    stored: &Stored,
    rows: &[Row],
    session_machine: &BTreeMap<&str, usize>,
) -> Vec<SessionInfo> {
    let mut cells_of: BTreeMap<&str, usize> = BTreeMap::new();
    let mut rows_of: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for row in rows {
        for c in row.cells.values() {
            let sessions: BTreeSet<&str> = c.runs.iter().map(|r| r.session.as_str()).collect();
            for s in sessions {
                *cells_of.entry(s).or_default() += 1;
                rows_of.entry(s).or_default().insert(row.label());
            }
        }
    }
    stored
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
        .collect()
}

/// Where and when the shown figures come from.
struct Provenance {
    published: bool,
    edition: String,
    measured_from: Option<String>,
    measured_to: Option<String>,
    langbench: Vec<String>,
    source: Option<String>,
    published_runs: Option<u32>,
}

impl Provenance {
    fn of(
        stored: &Stored,
        shown: &[&Arc<RunRecord>],
        infos: &[SessionInfo],
        shown_sessions: &BTreeSet<&str>,
    ) -> Provenance {
        let published = stored.runs.iter().any(|r| r.origin == Origin::Published);
        let published_session =
            stored.sessions.iter().rev().find(|s| {
                s.origin == Origin::Published && shown_sessions.contains(s.session.as_str())
            });
        let (measured_from, measured_to) = measured_between(shown, infos);
        let edition = match (published_session, &measured_to) {
            (Some(s), None) => s
                .session
                .strip_prefix("published-")
                .unwrap_or(&s.session)
                .to_string(),
            (_, Some(t)) => t.get(..4).unwrap_or_default().to_string(),
            (None, None) => String::new(),
        };
        Provenance {
            published,
            edition,
            measured_from,
            measured_to,
            langbench: langbench(shown, infos),
            source: published_session.and_then(|s| s.source.clone()),
            published_runs: published_session.map(|s| s.runs).filter(|&n| n > 0),
        }
    }
}

/// From the first session's start (or run, whichever is earlier) to the
/// last run, of the measured runs (none: none).
fn measured_between(
    shown: &[&Arc<RunRecord>],
    infos: &[SessionInfo],
) -> (Option<String>, Option<String>) {
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
    (measured_from, measured_to)
}

/// langbench's own version: with its revision where the runs recorded one
/// (`identity.langbench`), else the sessions'.
fn langbench(shown: &[&Arc<RunRecord>], infos: &[SessionInfo]) -> Vec<String> {
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
    langbench.into_iter().collect()
}
