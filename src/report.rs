//! From stored runs to the editions' table: one row per variant, time and RAM
//! per benchmark (best of N by wall time), totals, sorted by total time.
//! Failures stay visible in every rendering: a failed cell is never shown as
//! a plain time.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::bench::Bench;
use crate::export::{Cell as ECell, Column, Document, Kind, Mark, Show, Table};
use crate::machine::Machine;
use crate::record::{Origin, RunRecord, SessionRecord, Status};
use crate::spawn::{Exit, signal_name};
use crate::store::Stored;

/// How the wall times of a cell's runs spread.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
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
    pub fn of(values: &[f64]) -> Option<Spread> {
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

/// A variant × benchmark: its runs from the newest session that ran it.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub status: Status,
    /// The run whose figures the table shows: the fastest run of the cell's
    /// status (best of N for ok cells).
    pub best: Option<RunRecord>,
    pub runs: Vec<RunRecord>,
    /// The spread of the wall times of the runs of the cell's status.
    pub spread: Option<Spread>,
}

impl Cell {
    fn from_runs(mut runs: Vec<RunRecord>) -> Cell {
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
        let walls: Vec<f64> = runs
            .iter()
            .filter(|r| r.status == status && status.has_figures())
            .map(|r| r.wall_s)
            .collect();
        Cell {
            status,
            best,
            spread: Spread::of(&walls),
            runs,
        }
    }

    /// The runs disagree more than `cv` (a fraction): the figure may be
    /// the machine's noise as much as the program's.
    pub fn noisy(&self, cv: f64) -> Option<Spread> {
        self.spread.filter(|s| s.runs > 1 && s.cv > cv)
    }

    pub fn wall_s(&self) -> Option<f64> {
        self.best
            .as_ref()
            .filter(|_| self.status.has_figures())
            .map(|b| b.wall_s)
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
            Status::Ok => t,
            Status::BadExit => format!("{t} (exit {})", exit_text(exit)),
            Status::WrongOutput => format!("{t} WRONG OUTPUT"),
            Status::Escaped => format!("{t} ESCAPED"),
            Status::Oom => "OOM".into(),
            Status::Timeout => format!("TIMEOUT >{t}"),
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
}

impl Row {
    /// Sum of the shown wall times (flagged cells included, failed ones not).
    pub fn total_s(&self) -> f64 {
        self.cells.values().filter_map(Cell::wall_s).sum()
    }
    pub fn total_rss_kb(&self) -> u64 {
        self.cells.values().filter_map(Cell::rss_kb).sum()
    }
    /// Every benchmark of the table ran and is correct: only then is the
    /// total comparable with other rows.
    pub fn complete(&self) -> bool {
        self.missing.is_empty()
            && self.no_program.is_empty()
            && self.cells.values().all(|c| c.status.is_ok())
    }

    /// Whether any cell has a time to show.
    pub fn has_figures(&self) -> bool {
        self.cells.values().any(|c| c.wall_s().is_some())
    }
    pub fn installed(&self) -> bool {
        self.cells
            .values()
            .any(|c| c.status != Status::NotInstalled)
    }
}

/// The table of one results directory.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// Benchmarks in column order, with their N.
    pub benches: Vec<(Bench, u64)>,
    pub size: String,
    pub rows: Vec<Row>,
    pub machine: Option<Machine>,
    pub sessions: Vec<String>,
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
}

/// How a summary is rendered: `--spread`, `--noise-threshold`.
#[derive(Debug, Clone, Copy)]
pub struct View {
    pub show_spread: bool,
    /// Fraction (0.05 = 5%).
    pub noise_cv: f64,
}

impl Default for View {
    fn default() -> Self {
        View {
            show_spread: false,
            noise_cv: 0.05,
        }
    }
}

impl Summary {
    pub fn from_stored(stored: &Stored) -> Summary {
        let mut rows: BTreeMap<&str, Row> = BTreeMap::new();
        let mut cell_runs: BTreeMap<(&str, Bench), Vec<RunRecord>> = BTreeMap::new();
        let mut benches: BTreeMap<Bench, u64> = BTreeMap::new();
        for r in stored.newest_runs() {
            benches.insert(r.bench, r.n);
            cell_runs
                .entry((r.variant.as_str(), r.bench))
                .or_default()
                .push(r.clone());
        }
        for ((variant, bench), runs) in cell_runs {
            let first = &runs[0];
            let row = rows.entry(variant).or_insert_with(|| Row {
                variant: variant.to_string(),
                language: first.language.clone(),
                flags: first.flags.clone(),
                version: first.version.clone(),
                cells: BTreeMap::new(),
                missing: Vec::new(),
                no_program: Vec::new(),
                machine: None,
            });
            // The version of the newest measured cell wins.
            if first.status != Status::NotInstalled {
                row.version = first.version.clone();
            }
            row.cells.insert(bench, Cell::from_runs(runs));
        }
        // The programs each variant had, as its newest session saw them.
        let mut programs: BTreeMap<&str, &[Bench]> = BTreeMap::new();
        for s in &stored.sessions {
            for v in s.variants.iter().filter(|v| !v.programs.is_empty()) {
                programs.insert(&v.id, &v.programs);
            }
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
                    !r.complete(),
                    std::cmp::Reverse(r.cells.values().filter(|c| c.wall_s().is_some()).count()),
                    r.cells.values().filter(|c| !c.status.is_ok()).count(),
                )
            };
            key(a)
                .cmp(&key(b))
                .then(a.total_s().total_cmp(&b.total_s()))
                .then(a.variant.cmp(&b.variant))
        });
        let mut machines: Vec<Machine> = Vec::new();
        let mut session_machine: BTreeMap<&str, usize> = BTreeMap::new();
        for s in &stored.sessions {
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
        let last_session: Option<&SessionRecord> = stored.sessions.last();
        Summary {
            benches: benches.into_iter().collect(),
            size: stored
                .runs
                .last()
                .map(|r| r.size.clone())
                .unwrap_or_default(),
            rows,
            machine: last_session.map(|s| s.machine.clone()),
            sessions: stored.sessions.iter().map(|s| s.session.clone()).collect(),
            published: stored.runs.iter().any(|r| r.origin == Origin::Published),
            noise_cv: View::default().noise_cv,
            show_spread: false,
            machines,
        }
    }

    /// Applies rendering options.
    pub fn view(mut self, view: View) -> Summary {
        self.noise_cv = view.noise_cv;
        self.show_spread = view.show_spread;
        self
    }

    /// Why a cell is not a plain correct figure (`None` for one that is).
    pub fn cell_note(&self, row: &Row, bench: Bench) -> Option<String> {
        let Some(c) = row.cells.get(&bench) else {
            if row.no_program.contains(&bench) {
                return Some(format!(
                    "{} / {bench}: n/a: the variant has no {bench} program",
                    row.variant
                ));
            }
            return Some(format!(
                "{} / {bench}: not run: this results directory holds no run of it \
                 (`langbench run --resume` runs what is missing)",
                row.variant
            ));
        };
        if c.status.is_ok() {
            return c.noisy(self.noise_cv).map(|s| {
                format!(
                    "{} / {bench}: noisy: {} runs spread {:.1}% (CV > {:.1}%): mean {:.3} s, \
                     min {:.3}, max {:.3}; quiet the machine or use --runs auto",
                    row.variant,
                    s.runs,
                    s.cv * 100.0,
                    self.noise_cv * 100.0,
                    s.mean,
                    s.min,
                    s.max
                )
            });
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
            "{} / {bench}: {}{of}: {}",
            row.variant,
            c.status,
            // Records stored before stderr notes were cleaned.
            strip_ansi_escapes::strip_str(detail).replace('\n', " ")
        ))
    }

    /// Lines explaining every cell that is not a plain, correct time.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        for row in &self.rows {
            if !row.installed() {
                let detail = row
                    .cells
                    .values()
                    .find_map(|c| c.best.as_ref()?.detail.clone())
                    .unwrap_or_default();
                notes.push(format!("{}: not installed: {detail}", row.variant));
                continue;
            }
            for b in row.missing.iter().chain(&row.no_program) {
                notes.extend(self.cell_note(row, *b));
            }
            for b in row.cells.keys() {
                notes.extend(self.cell_note(row, *b));
            }
        }
        notes
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
    /// totals), then plain data for scripts.
    fn columns(&self) -> Vec<Column> {
        let mut cols = vec![
            Column::new("Language", "language", Kind::Text, Show::Both),
            Column::new("Command Flags", "command_flags", Kind::Text, Show::Both),
            Column::new("Version", "version", Kind::Text, Show::Both),
        ];
        let (mut times, mut rams) = (Vec::new(), Vec::new());
        for (b, _) in &self.benches {
            let key = b.name().replace('-', "_");
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
            Column::new("Variant", "variant", Kind::Text, Show::Data),
            Column::new("Size", "size", Kind::Text, Show::Data),
        ]);
        for (b, _) in &self.benches {
            cols.push(Column::new(
                format!("{b} status"),
                format!("{}_status", b.name().replace('-', "_")),
                Kind::Text,
                Show::Data,
            ));
        }
        cols.push(Column::new("Complete", "complete", Kind::Text, Show::Data));
        cols.push(Column::new(
            "Machine",
            "machine",
            Kind::Count,
            if self.machines.len() > 1 {
                Show::Both
            } else {
                Show::Data
            },
        ));
        cols.push(Column::new(
            "Spread (CV)",
            "max_cv",
            Kind::Ratio,
            if self.show_spread {
                Show::Both
            } else {
                Show::Data
            },
        ));
        let s4 = Kind::Seconds { decimals: 4 };
        for (b, _) in &self.benches {
            let k = b.name().replace('-', "_");
            for (h, key, kind) in [
                ("runs", "runs", Kind::Count),
                ("mean (s)", "mean_s", s4),
                ("median (s)", "median_s", s4),
                ("stddev (s)", "stddev_s", s4),
                ("min (s)", "min_s", s4),
                ("max (s)", "max_s", s4),
                ("CV", "cv", Kind::Ratio),
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
    fn cells(&self, row: &Row) -> Vec<ECell> {
        let mut v = vec![
            ECell::text(&row.language),
            ECell::text(&row.flags),
            ECell::text(&row.version),
        ];
        for (b, _) in &self.benches {
            let note = self.cell_note(row, *b);
            match row.cells.get(b) {
                Some(c) => {
                    let noisy = c.noisy(self.noise_cv).filter(|_| c.status.is_ok());
                    let mark = if c.status.is_ok() && noisy.is_none() {
                        Mark::Plain
                    } else if c.wall_s().is_some() {
                        Mark::Flagged
                    } else {
                        Mark::Failed
                    };
                    let text = match noisy {
                        Some(s) => format!("{} ±{:.0}%", c.time_text(), s.cv * 100.0),
                        None => c.time_text(),
                    };
                    v.push(
                        match c.wall_s() {
                            Some(w) => ECell::number(w, text),
                            None => ECell::empty(text),
                        }
                        .marked(mark, note.clone()),
                    );
                    v.push(match c.rss_kb() {
                        Some(k) => ECell::int(k as i64, c.rss_text()),
                        None => ECell::empty(c.rss_text()),
                    });
                }
                None => {
                    let text = if row.no_program.contains(b) {
                        "n/a"
                    } else {
                        "not run"
                    };
                    v.push(ECell::empty(text).marked(Mark::Failed, note));
                    v.push(ECell::empty("-"));
                }
            }
        }
        if row.installed() && !row.has_figures() {
            let why = Some("no cell has a figure".to_string());
            v.push(ECell::empty("-").marked(Mark::Failed, why));
            v.push(ECell::empty("-"));
        } else if row.installed() {
            let (flag, mark, note) = if row.complete() {
                ("", Mark::Plain, None)
            } else {
                (
                    " *",
                    Mark::Flagged,
                    Some("partial: the sum of the cells that have figures".to_string()),
                )
            };
            v.push(
                ECell::number(row.total_s(), format!("{:.2}{flag}", row.total_s()))
                    .marked(mark, note.clone()),
            );
            v.push(
                ECell::int(
                    row.total_rss_kb() as i64,
                    format!("{}{flag}", thousands(row.total_rss_kb())),
                )
                .marked(mark, note),
            );
        } else {
            v.push(ECell::empty("not installed").marked(Mark::Failed, None));
            v.push(ECell::empty("-"));
        }
        v.push(ECell::text(&row.variant));
        v.push(ECell::text(&self.size));
        for (b, _) in &self.benches {
            v.push(ECell::text(
                row.cells.get(b).map_or("n/a", |c| c.status.name()),
            ));
        }
        v.push(ECell::text(row.complete().to_string()));
        v.push(match row.machine {
            Some(m) if self.machines.len() > 1 => ECell::int(m as i64 + 1, format!("#{}", m + 1))
                .marked(Mark::Flagged, Some(self.machines[m].describe())),
            Some(m) => ECell::int(m as i64 + 1, (m + 1).to_string()),
            None => ECell::empty(""),
        });
        let spreads: Vec<Option<Spread>> = self
            .benches
            .iter()
            .map(|(b, _)| row.cells.get(b).and_then(|c| c.spread))
            .collect();
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
        for s in &spreads {
            match s {
                Some(s) => {
                    let secs = |x: f64| ECell::number(x, format!("{x:.4}"));
                    v.extend([
                        ECell::int(s.runs as i64, s.runs.to_string()),
                        secs(s.mean),
                        secs(s.median),
                        secs(s.stddev),
                        secs(s.min),
                        secs(s.max),
                        ECell::number(s.cv, format!("{:.4}", s.cv)),
                    ]);
                }
                None => v.extend((0..7).map(|_| ECell::empty(""))),
            }
        }
        v
    }

    /// The editions' table.
    pub fn table(&self) -> Table {
        Table {
            id: "summary".into(),
            title: "Summary".into(),
            columns: self.columns(),
            rows: self.rows.iter().map(|r| self.cells(r)).collect(),
            notes: self.notes(),
            data_only: false,
        }
    }

    /// The texts a reader sees in one row (display columns).
    pub fn row_texts(&self, row: &Row) -> Vec<String> {
        let cols = self.columns();
        self.cells(row)
            .into_iter()
            .zip(&cols)
            .filter(|(_, c)| c.in_display())
            .map(|(cell, _)| cell.text)
            .collect()
    }

    /// Facts shown above the table.
    pub fn meta(&self) -> Vec<(String, String)> {
        let mut meta = Vec::new();
        if self.published {
            meta.push((
                "Figures".into(),
                "as published (measured by hand with /usr/bin/time on the machine below, \
                 best of 3; did-not-finish runs are shown as such, not as times)"
                    .into(),
            ));
        }
        if self.machines.len() > 1 {
            let all: Vec<String> = self
                .machines
                .iter()
                .enumerate()
                .map(|(i, m)| format!("#{} {}", i + 1, m.describe()))
                .collect();
            meta.push((
                "Machines".into(),
                format!(
                    "DIFFERENT HARDWARE: these figures were measured on {} machines ({}); \
                     rows compare fairly only when measured on identical machines",
                    all.len(),
                    all.join("; ")
                ),
            ));
        } else if let Some(m) = &self.machine {
            meta.push(("Machine".into(), m.describe()));
        }
        meta.push(("Sizes".into(), self.sizes_text()));
        meta.push((
            "Time".into(),
            if self.published {
                "wall seconds of build + run (`Real` of /usr/bin/time), best of 3 runs; \
                 RAM: its `Maximum resident set size` in KB"
            } else {
                "wall seconds of build + run, best of N runs; RAM: peak RSS in KB \
                 (`wait4` rusage, as `/usr/bin/time %M`)"
            }
            .into(),
        ));
        if !self.published {
            meta.push((
                "Noise".into(),
                format!(
                    "a cell whose runs spread more than {:.1}% (coefficient of variation) is \
                     flagged noisy; spread figures are in the CSV, JSON and spreadsheet",
                    self.noise_cv * 100.0
                ),
            ));
        }
        meta.push(("Sessions".into(), self.sessions.join(", ")));
        meta
    }

    /// The summary as a document (the runs table is added by the caller
    /// that has the records).
    pub fn document(&self) -> Document {
        Document {
            title: "langbench results".into(),
            meta: self.meta(),
            tables: vec![self.table()],
            charts: crate::export::charts::summary(self),
        }
    }

    /// Everything printed at the end of a run.
    pub fn terminal_text(&self) -> String {
        crate::export::terminal::document(&self.document())
    }
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
        let s = Summary::from_stored(&stored).view(View {
            noise_cv: 0.5,
            ..Default::default()
        });
        let order: Vec<_> = s.rows.iter().map(|r| r.variant.as_str()).collect();
        assert_eq!(order, ["fast", "tcc", "slow", "seg"]);
        let fast = &s.rows[0];
        assert_eq!(fast.cells[&Bench::Assoc].wall_s(), Some(1.5));
        assert_eq!(fast.cells[&Bench::Assoc].best.as_ref().unwrap().attempt, 2);
        assert_eq!(s.row_texts(fast)[3], "1.50");
        assert_eq!(s.row_texts(&s.rows[1])[3], "1.00 (exit 25)");
        assert_eq!(s.row_texts(&s.rows[1])[5], "1.00 *");
        assert_eq!(s.row_texts(&s.rows[3])[3], "CRASHED (SIGSEGV)");
        assert_eq!(s.row_texts(&s.rows[2])[3], "TIMEOUT >9.00");
        assert_eq!(s.notes().len(), 3);
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
        assert_eq!(s.rows[0].total_s(), 8.0);
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
        assert_eq!(texts[7], "1.00 *");
        assert!(
            s.notes()[0].starts_with("cut / num-comb: not run"),
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
        let notes = s.notes().join("\n");
        assert!(
            notes.contains("dead / assoc: crashed (1 of 1 run; 2 more skipped after it)"),
            "{notes}"
        );
        let half = s.rows.iter().find(|r| r.variant == "half").unwrap();
        assert_eq!(half.no_program, [Bench::NumComb]);
        assert!(half.missing.is_empty());
        assert_eq!(s.row_texts(half)[5], "n/a");
        assert!(notes.contains("half / num-comb: n/a: the variant has no num-comb program"));
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
        // 7 columns: 8 cell borders; the pipes of the flags are escaped.
        assert_eq!(row.matches(" |").count() + 1, 8, "{row}");
        assert!(row.contains("evil \\| x \\| y \\|red"), "{row}");
        let term = crate::export::terminal::document(&doc);
        assert!(!term.contains('\x1b') && !term.contains("L\r"), "{term}");
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(12345678), "12,345,678");
    }
}
