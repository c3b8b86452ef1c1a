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

/// A variant × benchmark: its runs from the newest session that ran it.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub status: Status,
    /// The run whose figures the table shows: the fastest run of the cell's
    /// status (best of N for ok cells).
    pub best: Option<RunRecord>,
    pub runs: Vec<RunRecord>,
}

impl Cell {
    fn from_runs(mut runs: Vec<RunRecord>) -> Cell {
        runs.sort_by_key(|r| r.run);
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
        Cell { status, best, runs }
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
    /// before them, or a variant without that program).
    pub missing: Vec<Bench>,
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
        self.missing.is_empty() && self.cells.values().all(|c| c.status.is_ok())
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
}

impl Summary {
    pub fn from_stored(stored: &Stored) -> Summary {
        // Newest session per cell: sessions are appended in time order.
        let order: BTreeMap<&str, usize> = stored
            .sessions
            .iter()
            .enumerate()
            .map(|(i, s)| (s.session.as_str(), i))
            .collect();
        let rank = |s: &str| order.get(s).copied().unwrap_or(usize::MAX);
        let mut newest: BTreeMap<(&str, Bench), &str> = BTreeMap::new();
        for r in &stored.runs {
            let e = newest
                .entry((r.variant.as_str(), r.bench))
                .or_insert(&r.session);
            if rank(&r.session) >= rank(e) {
                *e = &r.session;
            }
        }
        let mut rows: BTreeMap<&str, Row> = BTreeMap::new();
        let mut cell_runs: BTreeMap<(&str, Bench), Vec<RunRecord>> = BTreeMap::new();
        let mut benches: BTreeMap<Bench, u64> = BTreeMap::new();
        for r in &stored.runs {
            if newest.get(&(r.variant.as_str(), r.bench)) != Some(&r.session.as_str()) {
                continue;
            }
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
            });
            // The version of the newest measured cell wins.
            if first.status != Status::NotInstalled {
                row.version = first.version.clone();
            }
            row.cells.insert(bench, Cell::from_runs(runs));
        }
        let mut rows: Vec<Row> = rows.into_values().collect();
        for row in &mut rows {
            row.missing = benches
                .keys()
                .filter(|b| !row.cells.contains_key(b))
                .copied()
                .collect();
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
        }
    }

    /// Why a cell is not a plain correct figure (`None` for one that is).
    pub fn cell_note(&self, row: &Row, bench: Bench) -> Option<String> {
        let Some(c) = row.cells.get(&bench) else {
            return Some(format!(
                "{} / {bench}: not run: this results directory holds no run of it \
                 (`langbench run --resume` runs what is missing)",
                row.variant
            ));
        };
        if c.status.is_ok() {
            return None;
        }
        let detail = c
            .best
            .as_ref()
            .and_then(|r| r.detail.clone())
            .unwrap_or_default();
        let failing = c.runs.iter().filter(|r| !r.status.is_ok()).count();
        let of = if c.runs.len() > 1 {
            format!(" ({failing} of {} runs)", c.runs.len())
        } else {
            String::new()
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
            for b in &row.missing {
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
                    let mark = if c.status.is_ok() {
                        Mark::Plain
                    } else if c.wall_s().is_some() {
                        Mark::Flagged
                    } else {
                        Mark::Failed
                    };
                    v.push(
                        match c.wall_s() {
                            Some(w) => ECell::number(w, c.time_text()),
                            None => ECell::empty(c.time_text()),
                        }
                        .marked(mark, note.clone()),
                    );
                    v.push(match c.rss_kb() {
                        Some(k) => ECell::int(k as i64, c.rss_text()),
                        None => ECell::empty(c.rss_text()),
                    });
                }
                None => {
                    v.push(ECell::empty("not run").marked(Mark::Failed, note));
                    v.push(ECell::empty("-"));
                }
            }
        }
        if row.installed() {
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
        if let Some(m) = &self.machine {
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
    use crate::record::SCHEMA;

    fn rec(variant: &str, bench: Bench, run: u32, wall: f64, status: Status) -> RunRecord {
        RunRecord {
            schema: SCHEMA,
            session: "s1".into(),
            finished_at: String::new(),
            variant: variant.into(),
            language: variant.to_uppercase(),
            flags: variant.into(),
            version: "1.0".into(),
            bench,
            size: "tiny".into(),
            n: 1000,
            run,
            wall_s: wall,
            user_s: wall,
            sys_s: 0.0,
            max_rss_kb: (wall * 1000.0) as u64,
            build_wall_s: None,
            tree_cpu_s: None,
            tree_max_rss_kb: None,
            exit: Some(match status {
                Status::BadExit => Exit::Exited(25),
                Status::Crashed => Exit::Signaled(11),
                _ => Exit::Exited(0),
            }),
            status,
            detail: (!status.is_ok()).then(|| "why".into()),
            origin: crate::record::Origin::Measured,
        }
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
        let s = Summary::from_stored(&stored);
        let order: Vec<_> = s.rows.iter().map(|r| r.variant.as_str()).collect();
        assert_eq!(order, ["fast", "tcc", "slow", "seg"]);
        let fast = &s.rows[0];
        assert_eq!(fast.cells[&Bench::Assoc].wall_s(), Some(1.5));
        assert_eq!(fast.cells[&Bench::Assoc].best.as_ref().unwrap().run, 2);
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
        let mk = |id: &str| SessionRecord {
            schema: SCHEMA,
            session: id.into(),
            started_at: String::new(),
            langbench_version: String::new(),
            command_line: vec![],
            size: "tiny".into(),
            runs: 1,
            timeout_s: 1.0,
            machine: Machine::detect(),
            variants: vec![],
            origin: crate::record::Origin::Measured,
            source: None,
            containment: None,
        };
        let stored = Stored {
            sessions: vec![mk("s1"), mk("old"), mk("new")],
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
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(12345678), "12,345,678");
    }
}
