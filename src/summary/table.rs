//! The CPU summary as the editions' table: its columns and cells (time
//! and RAM per benchmark, totals, rank, then the secondary and data
//! columns), the notes under it, the facts above it (edition, machine,
//! how to read it), what the maintainer could do, and the whole
//! [`Document`] with its charts.

use std::collections::{BTreeMap, BTreeSet};

use super::{Cell, Rank, Row, Spread, Summary};
use crate::bench::Bench;
use crate::document::{Column, Document, Entry, Flag, Kind, Mark, Note, Show, Table, thousands};
use crate::record::{RunRecord, Status};

impl Summary {
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
    fn cells(&self, row: &Row, rank: Option<Rank>) -> Vec<Entry> {
        let anchor = crate::document::Measured::anchor_of(&row.variant);
        let mut v = vec![
            Entry::text(&row.language).linked(anchor),
            Entry::text(&row.flags),
            Entry::text(&row.version),
        ];
        if self.machines.len() > 1 {
            v.push(match row.machine {
                Some(m) if Some(m) != self.main_machine => {
                    Entry::text(format!("#{} {}", m + 1, self.machines[m].short()))
                        .marked(
                            Mark::Flagged,
                            Some(format!(
                                "measured on another machine: {}",
                                self.machines[m].hardware()
                            )),
                        )
                        .flagged(Flag::Machine)
                }
                _ => Entry::empty(""),
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
                        Some(w) => Entry::number(w, text),
                        None => Entry::empty(text),
                    }
                    .marked(mark, note.clone())
                    .with_interval(c.interval());
                    cell.flag = flag;
                    v.push(cell);
                    v.push(match c.rss_kb() {
                        Some(k) => Entry::int(k as i64, c.rss_text()),
                        None => Entry::empty(c.rss_text()),
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
                        Entry::empty(text)
                            .marked(Mark::Failed, note)
                            .flagged(Flag::NotRun),
                    );
                    v.push(Entry::empty("-"));
                }
            }
        }
        match (row.total_s(), row.total_rss_kb()) {
            (Some(t), Some(k)) => {
                v.push(Entry::number(t, format!("{t:.2}")).with_interval(row.total_range()));
                v.push(Entry::int(k as i64, thousands(k)));
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
                v.push(Entry::empty(text).marked(Mark::Failed, note).flagged(
                    if row.has_figures() {
                        Flag::Partial
                    } else {
                        Flag::NotRun
                    },
                ));
                v.push(Entry::empty("-"));
            }
        }
        v.push(match rank {
            Some(r) => {
                let cell = Entry::int(r.place as i64, r.text());
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
            None => Entry::empty(""),
        });
        let (fastest_total, fastest) = self.fastest();
        let secs = |x: Option<f64>| match x {
            Some(x) => Entry::number(x, format!("{x:.2}")),
            None => Entry::empty(""),
        };
        for (b, _) in &self.benches {
            v.push(secs(row.cells.get(b).and_then(Cell::cpu_s)));
        }
        v.push(secs(row.total_cpu_s()));
        let ratio = |x: Option<f64>, by: Option<f64>| match (x, by) {
            (Some(x), Some(by)) if by > 0.0 => Entry::number(x / by, format!("×{:.2}", x / by)),
            _ => Entry::empty(""),
        };
        v.push(ratio(row.total_s(), fastest_total));
        v.push(Entry::text(&self.edition));
        v.push(Entry::text(&row.variant));
        v.push(Entry::text(&self.size));
        v.push(Entry::text(self.figures_text(row)));
        v.push(Entry::text(row.state()));
        v.push(if row.complete() || !row.has_figures() {
            Entry::empty("")
        } else {
            let s = row.sum_s();
            Entry::number(s, format!("{s:.2}"))
        });
        for (b, _) in &self.benches {
            let c = row.cells.get(b).filter(|c| c.status.is_ok());
            v.push(ratio(c.and_then(Cell::wall_s), fastest.get(b).copied()));
        }
        for (b, _) in &self.benches {
            v.push(Entry::text(match row.cells.get(b) {
                Some(c) if c.partial_runs().is_some() => "partial-runs",
                Some(c) => c.status.name(),
                None if row.no_program.contains(b) => "n/a",
                None => "not-run",
            }));
        }
        v.push(Entry::text(row.complete().to_string()));
        v.push(match row.machine {
            Some(m) => Entry::int(m as i64 + 1, format!("#{}", m + 1)),
            None => Entry::empty(""),
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
            Some(c) => Entry::number(c, shown.join(" / ")),
            None => Entry::empty(shown.join(" / ")),
        });
        for (s, c) in spreads.iter().zip(&cells) {
            match (s, c) {
                (Some(s), Some(c)) => {
                    let secs = |x: f64| Entry::number(x, format!("{x:.4}"));
                    let cold = c.cold_left_out.len();
                    v.extend([
                        Entry::int(s.runs as i64, s.runs.to_string()),
                        Entry::int(cold as i64, cold.to_string()),
                        secs(s.mean),
                        secs(s.median),
                        secs(s.stddev),
                        secs(s.min),
                        secs(s.max),
                        Entry::number(s.cv, format!("{:.1}%", s.cv * 100.0)),
                    ]);
                }
                _ => v.extend((0..8).map(|_| Entry::empty(""))),
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
                        "; a run that started cold (nothing of its program in the toolchain \
                         caches yet: empty caches, or the program's first run with them) \
                         measures their warm-up, not noise: where a cell has two warm runs, its cold ones are \
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
            charts: super::charts::summary(self),
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
