//! The CPU summary as the editions' table: its rows (each variant's row
//! with its rank), its columns declared once (time and RAM per benchmark,
//! totals, rank, then the secondary and data columns, each with its value
//! in a row), and the whole [`Document`]: the notes under the table
//! ([`super::notes`]), the facts above it ([`super::meta`]) and its charts
//! ([`super::charts`]).

use std::collections::{BTreeMap, BTreeSet};

use super::{Cell, Rank, Row, Spread, Summary};
use crate::bench::Bench;
use langbench_document::columns::{Columns, col};
use langbench_document::{Document, Entry, Flag, Kind, Mark, Measured, Show, Table, thousands};

/// One row of the table: a variant's row and its rank.
pub(super) struct Line<'a> {
    row: &'a Row,
    rank: Option<Rank>,
}

/// The summary's columns over its lines.
type SummaryColumns<'s> = Columns<'s, Line<'s>>;

const S3: Kind = Kind::Seconds { decimals: 3 };

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

    /// The table's lines: each row with its rank.
    fn lines(&self) -> Vec<Line<'_>> {
        self.rows
            .iter()
            .zip(self.ranks())
            .map(|(row, rank)| Line { row, rank })
            .collect()
    }

    /// The columns of the summary table: the editions' layout first
    /// (language, command flags, version, time and RAM per benchmark,
    /// totals: in the CSV and the spreadsheet these keys are the editions'
    /// column names), the rank, then secondary columns (CPU, × fastest)
    /// and plain data for scripts.
    fn columns(&self) -> SummaryColumns<'_> {
        let mut c = Columns::new();
        self.label_columns(&mut c);
        self.figure_columns(&mut c);
        self.cpu_columns(&mut c);
        self.data_columns(&mut c);
        self.spread_columns(&mut c);
        c
    }

    /// What names a row: language and flags (linked to what was measured),
    /// version, and the machine where the table has several.
    fn label_columns<'s>(&'s self, c: &mut SummaryColumns<'s>) {
        use Kind::Text;
        c.add(col("Language", "language", Text).id(), |l| {
            Entry::text(&l.row.language).linked(Measured::anchor_of(&l.row.variant))
        });
        c.add(col("Command Flags", "command_flags", Text).id(), |l| {
            Entry::text(&l.row.flags)
        });
        c.add(col("Version", "version", Text), |l| {
            Entry::text(&l.row.version)
        });
        if self.machines.len() > 1 {
            let machine = col("Machine", "machine_name", Text).display();
            let flagged = self.disagreements();
            c.add(machine, move |l| self.machine_entry(l.row, &flagged));
        }
    }

    /// Time and RAM per benchmark, the totals and the rank.
    fn figure_columns<'s>(&'s self, c: &mut SummaryColumns<'s>) {
        for &(b, _) in &self.benches {
            let k = key_of(b);
            c.add(col(format!("{b} (s)"), format!("{k}_s"), S3), move |l| {
                self.time_entry(l.row, b)
            });
            let ram = col(format!("{b} RAM (KB)"), format!("{k}_rss_kb"), Kind::Kb);
            c.add(ram.detail(), move |l| ram_entry(l.row, b));
        }
        let total = col("Total (s)", "total_s", S3).sum_of(self.keys("_s"));
        c.add(total, |l| self.total_entry(l.row));
        let total_ram = col("Total RAM (KB)", "total_rss_kb", Kind::Kb);
        c.add(total_ram.sum_of(self.keys("_rss_kb")), |l| {
            total_ram_entry(l.row)
        });
        self.normalised_columns(c);
        let why = self.rank_sharing();
        let flagged = self.disagreements();
        c.add(col("Rank", "rank", Kind::Rank), move |l| {
            let rank = rank_entry(l.rank, &why);
            match self.disagreeing(l.row, &flagged) {
                Some(why) if l.rank.is_some() => {
                    rank.marked(Mark::Flagged, Some(why)).flagged(Flag::Machine)
                }
                _ => rank,
            }
        });
    }

    /// With reference passes (issue #39): each benchmark's normalised
    /// figure (a secondary column) and the row's normalised total, as
    /// `mean ±x%` with the
    /// interval fastest–slowest. Not declared without references, so a
    /// table of an old edition is as it was.
    fn normalised_columns<'s>(&'s self, c: &mut SummaryColumns<'s>) {
        if self.host.is_none() {
            return;
        }
        for &(b, _) in &self.benches {
            let k = key_of(b);
            let norm = col(
                format!("{b} normalised (s)"),
                format!("{k}_normalised_s"),
                S3,
            );
            // Behind the page's "more columns" (and in the data files):
            // with them beside the seconds, RAM, total and rank, the
            // table was 1,700 px wide and cut the rank at 1400 px. The
            // normalised total and the rank it gives stay in view.
            c.add(norm.extra(), move |l| match l.row.cells.get(&b) {
                Some(c) if c.status.is_ok() && c.wall_s().is_some() => {
                    normalised_entry(c.normalised)
                }
                _ => Entry::empty(""),
            });
        }
        let total = col("Normalised total (s)", "total_normalised_s", S3)
            .sum_of(self.keys("_normalised_s"));
        c.add(total, |l| match l.row.total_s() {
            Some(_) => normalised_entry(l.row.normalised_total()),
            None => Entry::empty(""),
        });
        // The intervals as plain data: each end its own column.
        for &(b, _) in &self.benches {
            let k = key_of(b);
            for (end, name, pick) in ENDS {
                let key = format!("{k}_normalised_{name}_s");
                let end = col(format!("{b} normalised {end} (s)"), key, S3);
                c.add(end.data(), move |l| {
                    let n = l.row.cells.get(&b).and_then(|c| c.normalised);
                    secs(n.map(pick))
                });
            }
        }
        for (end, name, pick) in ENDS {
            let key = format!("total_normalised_{name}_s");
            let end = col(format!("Normalised total {end} (s)"), key, S3);
            c.add(end.data(), move |l| {
                secs(l.row.normalised_total().map(pick))
            });
        }
    }

    /// Secondary: CPU seconds per benchmark and in total, the total over
    /// the fastest's.
    fn cpu_columns<'s>(&'s self, c: &mut SummaryColumns<'s>) {
        for &(b, _) in &self.benches {
            let cpu = col(format!("{b} CPU (s)"), format!("{}_cpu_s", key_of(b)), S3);
            c.add(cpu.extra(), move |l| {
                secs(l.row.cells.get(&b).and_then(Cell::cpu_s))
            });
        }
        let total = col("Total CPU (s)", "total_cpu_s", S3).sum_of(self.keys("_cpu_s"));
        c.add(total.extra(), |l| secs(l.row.total_cpu_s()));
        let (fastest, per) = self.fastest();
        c.add(
            col("× fastest", "total_relative", Kind::Ratio).extra(),
            move |l| ratio(l.row.total_s(), fastest),
        );
        let geomean = col("Geometric mean × fastest", "geomean_relative", Kind::Ratio);
        c.add(geomean.extra(), move |l| geomean_ratio(l.row, &per));
    }

    /// Plain data for scripts: where the figures come from, each
    /// benchmark's time over the fastest's and its status.
    fn data_columns<'s>(&'s self, c: &mut SummaryColumns<'s>) {
        use Kind::Text;
        c.add(col("Edition", "edition", Text).data(), |_| {
            Entry::text(&self.edition)
        });
        c.add(col("Variant", "variant", Text).data(), |l| {
            Entry::text(&l.row.variant)
        });
        c.add(col("Size", "size", Text).data(), |_| {
            Entry::text(&self.size)
        });
        c.add(col("Figures", "figures", Text).data(), |l| {
            Entry::text(self.figures_text(l.row))
        });
        c.add(col("Row status", "row_status", Text).data(), |l| {
            Entry::text(l.row.state())
        });
        c.add(
            col("Partial total (s)", "partial_total_s", S3).data(),
            |l| partial_total(l.row),
        );
        let (_, fastest) = self.fastest();
        for &(b, _) in &self.benches {
            let by = fastest.get(&b).copied();
            let relative = col(
                format!("{b} × fastest"),
                format!("{}_relative", key_of(b)),
                Kind::Ratio,
            );
            c.add(relative.data(), move |l| {
                let ok = l.row.cells.get(&b).filter(|c| c.status.is_ok());
                ratio(ok.and_then(Cell::wall_s), by)
            });
        }
        for &(b, _) in &self.benches {
            let status = col(format!("{b} status"), format!("{}_status", key_of(b)), Text);
            c.add(status.data(), move |l| Entry::text(cell_status(l.row, b)));
        }
        c.add(col("Complete", "complete", Text).data(), |l| {
            Entry::text(l.row.complete().to_string())
        });
        c.add(col("Machine #", "machine", Kind::Count).data(), |l| {
            machine_number(l.row)
        });
    }

    /// The spread: the widest of a row's (in the human tables with
    /// `--spread`), then each benchmark's runs' figures as data.
    fn spread_columns<'s>(&'s self, c: &mut SummaryColumns<'s>) {
        let show = if self.show_spread {
            Show::Both
        } else {
            Show::Data
        };
        c.add(
            col("Spread (CV)", "max_cv", Kind::Percent).show(show),
            |l| self.spread_entry(l.row),
        );
        for &(b, _) in &self.benches {
            let k = key_of(b);
            for (h, key, kind, value) in SPREAD {
                c.add(
                    col(format!("{b} {h}"), format!("{k}_{key}"), kind).data(),
                    move |l| shown_spread(l.row, b).map_or(Entry::empty(""), |(c, s)| value(c, &s)),
                );
            }
        }
    }

    /// Each benchmark's column key with `suffix` (`num_comb_s`): what a
    /// total sums.
    fn keys(&self, suffix: &str) -> Vec<String> {
        self.benches
            .iter()
            .map(|(b, _)| format!("{}{suffix}", key_of(*b)))
            .collect()
    }

    /// The editions' table.
    pub(super) fn table(&self) -> Table {
        let columns = self.columns();
        Table {
            id: "summary".into(),
            title: "Summary".into(),
            columns: columns.columns(),
            rows: columns.rows(&self.lines()),
            notes: self.notes(),
            data_only: false,
            labels: 2,
            streamed: None,
        }
    }

    /// The texts a reader sees in one row (display columns).
    #[cfg(test)]
    pub(crate) fn row_texts(&self, row: &Row) -> Vec<String> {
        let i = self.rows.iter().position(|r| r.variant == row.variant);
        let rank = i.and_then(|i| self.ranks()[i]);
        let columns = self.columns();
        columns
            .columns()
            .iter()
            .zip(columns.row(&Line { row, rank }))
            .filter(|(c, _)| c.in_display())
            .map(|(_, entry)| entry.text.into())
            .collect()
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

    /// The Machine entry: which other machine the row ran on, if it did;
    /// with reference passes (shards that compare, issue #42), every
    /// row's machine and the blocks that measured it, flagged where its
    /// machine's references disagree (`flagged`).
    fn machine_entry(&self, row: &Row, flagged: &[crate::reference::Disagreement]) -> Entry {
        let blocks = Summary::blocks(row);
        if self.host.is_some()
            && let Some(m) = row.machine
        {
            let text = format!(
                "#{} {}{}",
                m + 1,
                self.machines[m].short(),
                match &blocks[..] {
                    [] => String::new(),
                    [b] => format!(" · block {b}"),
                    [first, .., last] => format!(" · blocks {first}–{last}"),
                }
            );
            let entry = Entry::text(text);
            return match self.disagreeing(row, flagged) {
                Some(why) => entry
                    .marked(Mark::Flagged, Some(why))
                    .flagged(Flag::Machine),
                None if Some(m) != self.main_machine => entry
                    .marked(
                        Mark::Flagged,
                        Some(format!(
                            "measured on another machine: {}; normalised against its own \
                             reference passes, which agree with the main machine's",
                            self.machines[m].hardware()
                        )),
                    )
                    .flagged(Flag::Machine),
                None => entry,
            };
        }
        match row.machine {
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
        }
    }

    /// A benchmark's time: its figure (± its spread where noisy), marked
    /// and noted where it is not a plain correct one; what it is where
    /// there is none.
    fn time_entry(&self, row: &Row, b: Bench) -> Entry {
        let note = self.cell_note(row, b);
        let Some(c) = row.cells.get(&b) else {
            let text = if !row.installed() {
                "not installed"
            } else if row.no_program.contains(&b) {
                "n/a"
            } else {
                "not run"
            };
            let note = if row.started { note } else { None };
            return Entry::empty(text)
                .marked(Mark::Failed, note)
                .flagged(Flag::NotRun);
        };
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
        .marked(mark, note)
        .with_interval(c.interval());
        cell.flag = flag;
        cell
    }

    /// The total time, or why the row has none.
    fn total_entry(&self, row: &Row) -> Entry {
        if let Some(t) = row.total_s() {
            return Entry::number(t, format!("{t:.2}")).with_interval(row.total_range());
        }
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
                    "partial: no total: only {} of {} benchmarks have a time ({}: {:.2} s \
                     together); not ranked with complete rows",
                    with.len(),
                    self.benches.len(),
                    with.join(", "),
                    row.sum_s()
                )),
            )
        } else {
            ("-", Some("no cell has a figure".to_string()))
        };
        let flag = if row.has_figures() {
            Flag::Partial
        } else {
            Flag::NotRun
        };
        Entry::empty(text).marked(Mark::Failed, note).flagged(flag)
    }

    /// The widest spread of a row's benchmarks, with each one's to read.
    fn spread_entry(&self, row: &Row) -> Entry {
        let spreads: Vec<Option<Spread>> = self
            .benches
            .iter()
            .map(|(b, _)| shown_spread(row, *b).map(|(_, s)| s))
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
        match max_cv {
            Some(c) => Entry::number(c, shown.join(" / ")),
            None => Entry::empty(shown.join(" / ")),
        }
    }

    /// The summary as a document (the runs table is added by the caller
    /// that has the records).
    pub(crate) fn document(&self) -> Document {
        Document {
            title: self.title(),
            meta: self.meta(),
            details: self.details(),
            tables: std::iter::once(self.table())
                .chain(self.portability_tables())
                .collect(),
            charts: super::charts::summary(self),
            advice: self.advice(),
            ..Default::default()
        }
    }

    /// Everything printed at the end of a run: the table, then what to do
    /// about its notes.
    #[cfg(test)]
    pub(crate) fn terminal_text(&self) -> String {
        let doc = self.document();
        let mut s = langbench_document::export::terminal::document(&doc);
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

/// Seconds to two decimals, or nothing.
fn secs(x: Option<f64>) -> Entry {
    match x {
        Some(x) => Entry::number(x, format!("{x:.2}")),
        None => Entry::empty(""),
    }
}

/// `x / by` as `×1.23`, or nothing.
fn ratio(x: Option<f64>, by: Option<f64>) -> Entry {
    match (x, by) {
        (Some(x), Some(by)) if by > 0.0 => Entry::number(x / by, format!("×{:.2}", x / by)),
        _ => Entry::empty(""),
    }
}

/// The geometric mean of a row's ratios to each benchmark's fastest, as
/// the Benchmarks Game summarises: every benchmark weighs the same however
/// long it runs (the total is mostly the longest benchmark's). Only for a
/// row with a time in every benchmark that has one anywhere.
fn geomean_ratio(row: &Row, fastest: &BTreeMap<Bench, f64>) -> Entry {
    let ratios: Option<Vec<f64>> = fastest
        .iter()
        .map(|(b, by)| {
            let ok = row.cells.get(b).filter(|c| c.status.is_ok());
            ok.and_then(Cell::wall_s).map(|w| w / by)
        })
        .collect();
    match ratios {
        Some(r) if !r.is_empty() && r.iter().all(|x| x.is_finite() && *x > 0.0) => {
            let g = (r.iter().map(|x| x.ln()).sum::<f64>() / r.len() as f64).exp();
            Entry::number(g, format!("×{g:.2}"))
        }
        _ => Entry::empty(""),
    }
}

/// A benchmark's RAM (or what the cell says instead).
fn ram_entry(row: &Row, b: Bench) -> Entry {
    match row.cells.get(&b) {
        Some(c) => match c.rss_kb() {
            Some(k) => Entry::int(k as i64, c.rss_text()),
            None => Entry::empty(c.rss_text()),
        },
        None => Entry::empty("-"),
    }
}

fn total_ram_entry(row: &Row) -> Entry {
    match row.total_rss_kb() {
        Some(k) => Entry::int(k as i64, thousands(k)),
        None => Entry::empty("-"),
    }
}

/// The ends of a normalised interval: header word, key word, value.
type End = (
    &'static str,
    &'static str,
    fn(crate::reference::Normalised) -> f64,
);
const ENDS: [End; 2] = [("fastest", "lo", |n| n.lo), ("slowest", "hi", |n| n.hi)];

/// A normalised figure: `12.34 +8%`, the fastest normalised run and how
/// far the slowest is above it (its interval); `-` (noted) where a run
/// has no reference pass in its session.
fn normalised_entry(n: Option<crate::reference::Normalised>) -> Entry {
    match n {
        Some(n) => Entry::number(
            n.figure(),
            format!("{:.2} +{:.0}%", n.figure(), n.above() * 100.0),
        )
        .with_interval(Some((n.lo, n.hi))),
        None => Entry::empty("-").marked(
            Mark::Plain,
            Some("no normalised figure: a run of it has no reference pass in its session".into()),
        ),
    }
}

impl Summary {
    /// Why rows share a rank, for the note of a shared one: "whose ...".
    fn rank_sharing(&self) -> String {
        if !self.ranks_normalised() {
            return "whose ranges of runs overlap its own: these runs do not tell them apart"
                .into();
        }
        if self.ranking.trusted().is_some() {
            return "whose bands overlap its own (their normalised runs' ranges, widened by the \
                    precision the reproducibility checks on this CPU model measured, see Rank \
                    precision): another measurement could put them in either order"
                .into();
        }
        "whose normalised totals' intervals overlap its own: these runs, judged against the \
         references of their sittings, do not tell them apart"
            .into()
    }
}

/// The rank, noted where it is shared (`why`: "whose ...", from
/// [`Summary::rank_sharing`]).
fn rank_entry(rank: Option<Rank>, why: &str) -> Entry {
    let Some(r) = rank else {
        return Entry::empty("");
    };
    let cell = Entry::int(r.place as i64, r.text());
    if !r.shared {
        return cell;
    }
    cell.marked(
        Mark::Plain,
        Some(format!(
            "{} row{} certainly faster; not told apart from rows {why}",
            r.place - 1,
            if r.place == 2 { "" } else { "s" }
        )),
    )
}

/// The sum of a row's times where it has some but no total.
fn partial_total(row: &Row) -> Entry {
    if row.complete() || !row.has_figures() {
        Entry::empty("")
    } else {
        let s = row.sum_s();
        Entry::number(s, format!("{s:.2}"))
    }
}

/// A benchmark's status word.
fn cell_status(row: &Row, b: Bench) -> &'static str {
    match row.cells.get(&b) {
        Some(c) if c.partial_runs().is_some() => "partial-runs",
        Some(c) => c.status.name(),
        None if row.no_program.contains(&b) => "n/a",
        None => "not-run",
    }
}

fn machine_number(row: &Row) -> Entry {
    match row.machine {
        Some(m) => Entry::int(m as i64 + 1, format!("#{}", m + 1)),
        None => Entry::empty(""),
    }
}

/// A benchmark's cell and its spread, where it has one to show (a
/// published cell is one record: no spread).
fn shown_spread(row: &Row, b: Bench) -> Option<(&Cell, Spread)> {
    let c = row
        .cells
        .get(&b)
        .filter(|c| !c.published() && c.wall_s().is_some())?;
    Some((c, c.spread?))
}

/// One benchmark's spread columns: header and key after its name, kind,
/// value.
type SpreadValue = fn(&Cell, &Spread) -> Entry;
const SPREAD: [(&str, &str, Kind, SpreadValue); 8] = [
    ("runs", "runs", Kind::Count, |_, s| {
        Entry::int(s.runs as i64, s.runs.to_string())
    }),
    (
        "cold runs left out",
        "cold_excluded",
        Kind::Count,
        |c, _| {
            let n = c.cold_left_out.len();
            Entry::int(n as i64, n.to_string())
        },
    ),
    ("mean (s)", "mean_s", S4, |_, s| secs4(s.mean)),
    ("median (s)", "median_s", S4, |_, s| secs4(s.median)),
    ("stddev (s)", "stddev_s", S4, |_, s| secs4(s.stddev)),
    ("min (s)", "min_s", S4, |_, s| secs4(s.min)),
    ("max (s)", "max_s", S4, |_, s| secs4(s.max)),
    ("CV", "cv", Kind::Percent, |_, s| {
        Entry::number(s.cv, format!("{:.1}%", s.cv * 100.0))
    }),
];
const S4: Kind = Kind::Seconds { decimals: 4 };

fn secs4(x: f64) -> Entry {
    Entry::number(x, format!("{x:.4}"))
}
