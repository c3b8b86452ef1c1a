//! The CPU comparison: a row per variant both editions have (old and new
//! figure, ratio, rank and version per benchmark and in total), the chart
//! of totals, and the table of added and dropped variants.

use anyhow::Result;

use super::basis::Basis;
use super::cells::{opt_num, version_columns};
use super::edition::Options;
use super::edition::{Edition, Keys, Matched, Pair};
use super::significance::{Change, Verdict, against_published, significance};
use crate::bench::Bench;
use crate::config::Languages;
use crate::record::Status;
use crate::summary::{Rank, RankKey, Row, Summary, ranks_within};
use langbench_document::columns::{Columns, col};
use langbench_document::thousands;
use langbench_document::{Bar, BarChart, BarRow, Entry, Flag, Kind, Mark, Note, Show, Table, Unit};

/// A figure of one cell in one edition.
#[derive(Clone, Default)]
pub(super) struct Fig {
    time: Option<f64>,
    ram: Option<f64>,
    n: Option<u64>,
    /// A correct, clean figure.
    ok: bool,
    /// The wall times of its correct runs counted in its spread (its warm
    /// runs when it has two; empty for a published cell: no per-run data).
    runs: Vec<f64>,
    /// Its runs' coefficient of variation, when it is noisy.
    noisy: Option<f64>,
    /// Why there is no figure (a partial total), if that is why.
    why: Option<&'static str>,
    /// One published figure (no runs): a change against it is tested on
    /// the other side's runs alone ([`against_published`]).
    published: bool,
}

impl Fig {
    fn cell(s: &Summary, row: &Row, b: Bench) -> Fig {
        match row.cells.get(&b) {
            Some(c) => Fig {
                time: c.wall_s(),
                ram: c
                    .rss_kb()
                    .filter(|_| c.wall_s().is_some())
                    .map(|k| k as f64),
                n: s.benches.iter().find(|(x, _)| *x == b).map(|(_, n)| *n),
                ok: c.status.is_ok(),
                runs: if c.published() || !c.status.is_ok() {
                    Vec::new()
                } else {
                    // The runs of its spread: a cold first run measures the
                    // caches' warm-up, not noise.
                    crate::noise::NoiseSample::of(c.records().filter(|r| r.status == Status::Ok))
                        .walls()
                },
                noisy: c
                    .noisy(s.noise_cv)
                    .filter(|_| c.status.is_ok())
                    .map(|sp| sp.cv),
                why: None,
                published: c.published() && c.status.is_ok(),
            },
            None => Fig::default(),
        }
    }

    /// A row's total: only a complete row has one.
    fn total(row: &Row) -> Fig {
        Fig {
            time: row.total_s(),
            ram: row.total_rss_kb().map(|k| k as f64),
            n: None,
            ok: row.complete(),
            why: (!row.complete() && row.has_figures()).then_some("partial"),
            ..Default::default()
        }
    }

    /// Divided by the reference variant's figure in the same edition.
    fn relative(self, reference: Option<Fig>) -> Fig {
        let Some(r) = reference else {
            // No reference row (where the reference passes stand for it):
            // no relative figure but the basis's.
            return Fig {
                time: None,
                ram: None,
                ok: false,
                runs: Vec::new(),
                ..self
            };
        };
        let div = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if b > 0.0 => Some(a / b),
            _ => None,
        };
        Fig {
            time: div(self.time, r.time),
            ram: div(self.ram, r.ram),
            n: self.n,
            ok: self.ok && r.ok,
            // The reference's own noise would have to be combined in: no
            // per-run test of relative figures.
            runs: Vec::new(),
            noisy: None,
            why: self.why,
            // A published figure over a published figure: one exact value.
            published: self.published && r.published,
        }
    }
}

/// Seconds and relative times alike: two decimals.
pub(super) fn fmt_time(v: f64, _relative: bool) -> String {
    format!("{v:.2}")
}

pub(super) fn fmt_ram(v: f64, relative: bool) -> String {
    if relative {
        format!("{v:.2}")
    } else {
        thousands(v.round() as u64)
    }
}

/// "old → new" of a cell's times, each with its ± where it is noisy.
pub(super) fn arrow_noisy(fo: &Fig, fnw: &Fig, rel: bool) -> String {
    let side = |f: &Fig| match (f.time, f.noisy) {
        (Some(v), Some(cv)) => format!("{} ±{:.0}%", fmt_time(v, rel), cv * 100.0),
        (Some(v), None) => fmt_time(v, rel),
        (None, _) => f.why.unwrap_or("-").to_string(),
    };
    format!("{} → {}", side(fo), side(fnw))
}

/// The ratio cell: a number when both sides are comparable, otherwise text
/// saying why not.
pub(super) fn ratio(old: &Fig, new: &Fig, pick: impl Fn(&Fig) -> Option<f64>) -> Entry {
    if let (Some(a), Some(b)) = (old.n, new.n)
        && a != b
    {
        return Entry::empty("N≠")
            .marked(
                Mark::Flagged,
                Some(format!(
                    "not compared: N differs ({} vs {})",
                    thousands(a),
                    thousands(b)
                )),
            )
            .flagged(Flag::Incomparable);
    }
    match (pick(old), pick(new)) {
        (Some(a), Some(b)) if a > 0.0 => {
            let r = b / a;
            let cell = Entry::number(r, format!("×{r:.2}"));
            if old.ok && new.ok {
                cell
            } else {
                cell.marked(
                    Mark::Flagged,
                    Some("a side is not a plain correct figure (flagged)".into()),
                )
            }
        }
        _ => match (old.why, new.why) {
            // A partial total looks like one, as in the report.
            (Some(w), _) | (_, Some(w)) => Entry::empty("-")
                .marked(Mark::Failed, Some(format!("a side has no total ({w})")))
                .flagged(Flag::Partial),
            _ => Entry::empty("-").marked(Mark::Failed, Some("a side has no figure".into())),
        },
    }
}

/// The rows with figures, each with the variant it stands for.
pub(super) fn installed<'a>(langs: &Languages, s: &'a Summary) -> Vec<(String, &'a Row)> {
    let keys = Keys::new(langs);
    s.rows
        .iter()
        .filter(|r| r.installed() && r.started)
        .map(|r| (keys.key(&r.variant, &r.language, &r.flags), r))
        .collect()
}

/// The `--relative-to` variant's row in one edition (not needed where
/// its figures come from the reference passes: the variant may be a
/// reference alone, in `references.jsonl`).
pub(super) fn reference<'a>(
    rows: &[(String, &'a Row)],
    label: &str,
    opts: &Options,
    basis: &Basis,
) -> Result<Option<&'a Row>> {
    match &opts.relative_to {
        None => Ok(None),
        Some(v) => match rows.iter().find(|(k, _)| k == v) {
            Some((_, r)) => Ok(Some(*r)),
            None if basis.references() => Ok(None),
            None => Err(anyhow::anyhow!(
                "--relative-to {v}: {label} has no row of {v}"
            )),
        },
    }
}

/// The CPU comparison: a row per variant both editions have (old and new
/// figure, ratio, rank and version per benchmark and in total), the table
/// of added and dropped variants, the chart of totals, and how many
/// variants both have complete (the ranks' field).
pub(super) fn cpu(
    langs: &Languages,
    old: &Edition,
    new: &Edition,
    so: &Summary,
    sn: &Summary,
    opts: &Options,
    bases: [&Basis; 2],
) -> Result<(Table, Table, Vec<BarChart>, usize)> {
    let rows = Matched {
        old: installed(langs, so),
        new: installed(langs, sn),
    };
    let pairs = rows.pairs();
    let sides = Sides {
        old: Side::new(
            so,
            reference(&rows.old, &old.label, opts, bases[0])?,
            bases[0],
        ),
        new: Side::new(
            sn,
            reference(&rows.new, &new.label, opts, bases[1])?,
            bases[1],
        ),
        rel: opts.relative_to.is_some(),
    };
    let benches = benches(so, sn);
    let (lines, both) = lines(&sides, &pairs, &benches);
    let machines = so.machines.len() > 1 || sn.machines.len() > 1;
    let columns = cpu_columns(&benches, opts, machines);
    let table = Table {
        id: "compare".into(),
        title: format!("{} → {}", old.label, new.label),
        columns: columns.columns(),
        rows: columns.rows(&lines),
        notes: notes(&lines),
        data_only: false,
        labels: 2,
        streamed: None,
    };
    let chart = chart(&lines, old, new, opts, &sides);
    Ok((table, changes(langs, &rows, new), vec![chart], both))
}

/// One row of the CPU table: a matched pair, with all its columns, notes
/// and bars read, computed once.
pub(super) struct Line<'a> {
    pair: &'a Pair<'a, Row>,
    /// Its rank old and new among the pairs complete on both sides.
    ranks: (Option<Rank>, Option<Rank>),
    /// "same", "program changed (assoc)", ...: see [`program_change`].
    program: String,
    /// Which side ran on another machine than most of its rows.
    machine: Entry,
    figs: PairFigs,
    /// Per benchmark (in `figs.per_bench`'s order), then the total.
    compared: Vec<Compared>,
}

impl Line<'_> {
    /// The `i`th benchmark's figures (`i` = the number of benchmarks: the
    /// total's).
    fn at(&self, i: usize) -> &Compared {
        &self.compared[i]
    }
}

/// The pairs' lines, and how many pairs both sides have complete.
fn lines<'a>(
    sides: &Sides,
    pairs: &'a [Pair<'a, Row>],
    benches: &[Bench],
) -> (Vec<Line<'a>>, usize) {
    let (old_ranks, new_ranks) = common_ranks(sides, pairs);
    let both = old_ranks.iter().filter(|r| r.is_some()).count();
    let lines = pairs
        .iter()
        .enumerate()
        .map(|(i, pair)| {
            let figs = sides.figures(pair, benches);
            let mut compared: Vec<Compared> = figs
                .per_bench
                .iter()
                .map(|(_, fo, fnw)| Compared::of(fo, fnw, false, sides.rel))
                .collect();
            let (to, tn) = &figs.total;
            compared.push(Compared::of(to, tn, figs.size_mismatch, sides.rel));
            Line {
                pair,
                ranks: (old_ranks[i], new_ranks[i]),
                program: program_change(pair.old, pair.new),
                machine: machine_cell(
                    other_machine(sides.old.summary, pair.old),
                    other_machine(sides.new.summary, pair.new),
                ),
                figs,
                compared,
            }
        })
        .collect();
    (lines, both)
}

/// Each pair's rank on each side among the pairs complete on both sides:
/// a rank within what both directories hold, so variants only one side
/// has (or has complete) do not move it. A side read against its
/// reference passes ([`Basis::References`]) is ranked as its own table
/// ranks it ([`Summary::ranks`]): by normalised total, each row's band its
/// normalised runs' range widened by the precision its side's verified
/// checks on its CPU model measured, so a row measured while the host was
/// slow is not ranked below one it beat (issue #39). Otherwise by seconds
/// and their range of runs. Either way by [`ranks_within`]'s pairwise
/// rule (issue #60).
pub(super) fn common_ranks(
    sides: &Sides,
    pairs: &[Pair<Row>],
) -> (Vec<Option<Rank>>, Vec<Option<Rank>>) {
    let both: Vec<usize> = (0..pairs.len())
        .filter(|&i| pairs[i].old.complete() && pairs[i].new.complete())
        .collect();
    let side = |on: &Side, rows: Vec<&Row>| {
        let normalised =
            on.basis.references() && both.iter().all(|&i| rows[i].normalised_total().is_some());
        // As its own table ranks it ([`Summary::ranks`]): each row's band
        // its runs' range, widened where normalised by the precision the
        // side's verified checks on its CPU model measured.
        let mut keys: Vec<Option<RankKey>> = vec![None; rows.len()];
        for &i in &both {
            keys[i] = on.summary.rank_key(rows[i], normalised);
        }
        ranks_within(&keys)
    };
    (
        side(&sides.old, pairs.iter().map(|p| p.old).collect()),
        side(&sides.new, pairs.iter().map(|p| p.new).collect()),
    )
}

/// The CPU benchmarks either edition ran, in their usual order.
pub(super) fn benches(so: &Summary, sn: &Summary) -> Vec<Bench> {
    Bench::CPU
        .into_iter()
        .filter(|b| {
            so.benches.iter().any(|(x, _)| x == b) || sn.benches.iter().any(|(x, _)| x == b)
        })
        .collect()
}

/// One edition in the CPU comparison: its table and its `--relative-to`
/// row.
pub(super) struct Side<'a> {
    summary: &'a Summary,
    reference: Option<&'a Row>,
    /// How its figures are taken ([`Basis`]).
    basis: &'a Basis,
}

impl<'a> Side<'a> {
    fn new(summary: &'a Summary, reference: Option<&'a Row>, basis: &'a Basis) -> Side<'a> {
        Side {
            summary,
            reference,
            basis,
        }
    }

    /// A row's figure in one benchmark; with `rel`, divided by the
    /// reference row's; on its basis where it has one (its time and the
    /// runs its change is tested on).
    fn cell(&self, row: &Row, b: Bench, rel: bool) -> Fig {
        let f = Fig::cell(self.summary, row, b);
        let ok = f.ok;
        let f = if rel {
            f.relative(self.reference.map(|r| Fig::cell(self.summary, r, b)))
        } else {
            f
        };
        match self.basis.cell(row, b, self.reference) {
            Some(x) => Fig {
                time: Some(x.value),
                runs: x.runs,
                ok: if self.basis.references() { ok } else { f.ok },
                ..f
            },
            None => f,
        }
    }

    /// A row's total; with `rel`, divided by the reference row's; on its
    /// basis where it has one.
    fn total(&self, row: &Row, rel: bool) -> Fig {
        let f = Fig::total(row);
        let ok = f.ok;
        let f = if rel {
            f.relative(self.reference.map(Fig::total))
        } else {
            f
        };
        match self.basis.total(row, self.reference) {
            Some(v) => Fig {
                time: Some(v),
                ok: if self.basis.references() { ok } else { f.ok },
                ..f
            },
            None => f,
        }
    }

    /// A total's whiskers: its basis's, else the range of its runs in
    /// seconds (none for relative figures).
    fn range(&self, row: &Row, rel: bool) -> Option<(f64, f64)> {
        match self.basis {
            Basis::Measured => (!rel).then(|| row.total_range()).flatten(),
            b => b.total_range(row),
        }
        .filter(|(lo, hi)| hi > lo)
    }
}

/// Both editions, and whether figures are relative (`--relative-to`).
pub(super) struct Sides<'a> {
    old: Side<'a>,
    new: Side<'a>,
    rel: bool,
}

/// A pair's figures, old and new.
pub(super) struct PairFigs {
    per_bench: Vec<(Bench, Fig, Fig)>,
    total: (Fig, Fig),
    /// A benchmark's N differs between the editions, so the totals add up
    /// different work.
    size_mismatch: bool,
}

impl Sides<'_> {
    fn figures(&self, p: &Pair<Row>, benches: &[Bench]) -> PairFigs {
        let rel = self.rel;
        let per_bench: Vec<(Bench, Fig, Fig)> = benches
            .iter()
            .map(|&b| {
                (
                    b,
                    self.old.cell(p.old, b, rel),
                    self.new.cell(p.new, b, rel),
                )
            })
            .collect();
        let size_mismatch = per_bench
            .iter()
            .any(|(_, o, n)| matches!((o.n, n.n), (Some(a), Some(c)) if a != c));
        let (mut to, mut tn) = (self.old.total(p.old, rel), self.new.total(p.new, rel));
        if size_mismatch {
            // The totals are not comparable: `ratio` says so.
            to.n = Some(0);
            tn.n = Some(1);
        }
        PairFigs {
            per_bench,
            total: (to, tn),
            size_mismatch,
        }
    }
}

/// One benchmark's (or the total's) figures of a pair as the table shows
/// them: old → new, the time ratio (with the test against the noise where
/// both sides have runs), the RAM ratio.
pub(super) struct Compared {
    fo: Fig,
    fnw: Fig,
    /// Old → new to read (`N≠` where the sizes differ).
    shown: String,
    /// The time ratio: marked, flagged and noted.
    time: Entry,
    ram: Entry,
    /// The test against the noise, where both sides have runs.
    change: Option<Change>,
    /// A change beyond the noise, in words: a note under the table.
    beyond_noise: Option<String>,
}

impl Compared {
    /// `size_mismatch`: a total over benchmarks of different N, compared in
    /// neither time nor RAM.
    fn of(fo: &Fig, fnw: &Fig, size_mismatch: bool, rel: bool) -> Compared {
        let mut t = ratio(fo, fnw, |f| f.time);
        let shown = arrow_noisy(fo, fnw, rel);
        let size_note = t
            .note()
            .filter(|n| n.contains("N differs"))
            .map(str::to_owned);
        if size_mismatch {
            t.set_note(Some(
                "not compared: a benchmark's N differs between the editions".into(),
            ));
            t.flag = Some(Flag::Incomparable);
        }
        let change = (t.as_f64().is_some() && !size_mismatch)
            .then(|| significance(&fo.runs, &fnw.runs).or_else(|| against_published_fig(fo, fnw)))
            .flatten();
        let beyond_noise = change.and_then(|c| tested(&mut t, &c));
        Compared {
            fo: fo.clone(),
            fnw: fnw.clone(),
            shown: match &size_note {
                Some(_) => format!("{shown} N≠"),
                None => shown,
            },
            time: t,
            ram: if size_mismatch {
                Entry::empty("N≠")
                    .marked(Mark::Flagged, Some("a benchmark's N differs".into()))
                    .flagged(Flag::Incomparable)
            } else {
                ratio(fo, fnw, |f| f.ram)
            },
            change,
            beyond_noise,
        }
    }
}

/// A side's runs against the other side's one published figure, where
/// one side is published and the other has runs.
fn against_published_fig(fo: &Fig, fnw: &Fig) -> Option<Change> {
    match (fo.published, fnw.published) {
        (true, false) => against_published(fo.time?, &fnw.runs, true),
        (false, true) => against_published(fnw.time?, &fo.runs, false),
        _ => None,
    }
}

/// The time ratio `t` with the test's verdict and interval; a change
/// beyond the noise flags it, and is returned for the notes.
fn tested(t: &mut Entry, c: &Change) -> Option<String> {
    t.text = compact_str::format_compact!(
        "{} {}",
        t.text,
        match c.verdict {
            Verdict::NotSignificant => "≈",
            v => v.name(),
        }
    );
    t.set_interval(Some((c.lo, c.hi)));
    let why = if c.runs.0 == 1 || c.runs.1 == 1 {
        format!(
            "{}: the runs' geometric mean against the published figure ×{:.2}, 95% interval \
             ×{:.2}–{:.2} ({} runs against one published figure with no spread: the \
             interval is the runs' alone, Student's t on log times)",
            c.verdict.name(),
            c.ratio,
            c.lo,
            c.hi,
            c.runs.0.max(c.runs.1)
        )
    } else {
        format!(
            "{}: the runs' geometric means ×{:.2}, 95% interval ×{:.2}–{:.2} ({} vs {} runs, \
             Welch's t on log times)",
            c.verdict.name(),
            c.ratio,
            c.lo,
            c.hi,
            c.runs.0,
            c.runs.1
        )
    };
    match c.verdict {
        Verdict::NotSignificant => {
            if t.note().is_none() {
                t.set_note(Some(why));
            }
            None
        }
        v => {
            t.flag = Some(if v == Verdict::Faster {
                Flag::Faster
            } else {
                Flag::Slower
            });
            let note = match t.note() {
                Some(n) => format!("{why}; {n}"),
                None => why.clone(),
            };
            t.set_note(Some(note));
            Some(why)
        }
    }
}

/// The notes under the table, row by row: a program that changed, then
/// per benchmark and in total a change beyond the noise and a flagged
/// ratio's note (a size mismatch, which holds for every row, once).
fn notes(lines: &[Line]) -> Vec<Note> {
    let mut notes: Vec<Note> = Vec::new();
    for line in lines {
        let label = line.pair.new.label();
        if !matches!(line.program.as_str(), "same" | "unknown") {
            notes.push(Note::new(
                label.clone(),
                format!(
                    "{} between the two directories (by the program identity their runs \
                     recorded): a different figure may be a different program, not a faster or \
                     slower toolchain",
                    line.program
                ),
            ));
        }
        let names = line.figs.per_bench.iter().map(|(b, ..)| b.name());
        for (name, c) in names.chain(["total"]).zip(&line.compared) {
            if let Some(why) = &c.beyond_noise {
                notes.push(Note::new(format!("{label} / {name}"), why.clone()));
            }
            if let Some(n) = c.time.note()
                && c.time.mark == Mark::Flagged
            {
                let note = if n.contains("N differs") {
                    Note::new(name, format!("{n}, in every row"))
                } else {
                    Note::new(format!("{label} / {name}"), n)
                };
                if !notes.contains(&note) {
                    notes.push(note);
                }
            }
        }
    }
    notes
}

/// The chart of old and new totals.
fn chart(lines: &[Line], old: &Edition, new: &Edition, opts: &Options, sides: &Sides) -> BarChart {
    let rel = opts.relative_to.is_some();
    // Whiskers where a side has runs (a published edition has none;
    // relative figures carry the reference's noise too: none).
    let range = |side: &Side, r: &Row| side.range(r, rel);
    let rows = lines
        .iter()
        .map(|line| {
            let (p, (to, tn)) = (line.pair, &line.figs.total);
            let mismatch = line.figs.size_mismatch;
            BarRow {
                label: format!("{} · {}", p.new.language, p.new.flags),
                bars: vec![
                    total_bar(to, mismatch, range(&sides.old, p.old)),
                    total_bar(tn, mismatch, range(&sides.new, p.new)),
                ],
            }
        })
        .collect();
    BarChart {
        id: "compare-total-time".into(),
        title: format!(
            "Total time, {} vs {}{}",
            old.label,
            new.label,
            opts.relative_to
                .as_ref()
                .map(|v| format!(" (relative to {v})"))
                .unwrap_or_default()
        ),
        axis: if rel {
            "× reference (log scale)".into()
        } else {
            "seconds (log scale)".into()
        },
        log: true,
        series: vec![old.label.clone(), new.label.clone()],
        rows,
        caption: "Whiskers: the fastest to the slowest run, summed over the benchmarks (a \
                  published edition has no runs: none). Marked bars: totals over a different \
                  N (not comparable); labelled gaps: a partial row (no total)."
            .into(),
        unit: if rel { Unit::Ratio } else { Unit::Seconds },
    }
}

/// Whether the two rows ran the same programs, by the identity their runs
/// recorded (issue #22), benchmark by benchmark where both have one:
/// "program changed (assoc)" when a source differs, "command changed
/// (assoc)" when only the resolved commands do (at the same N), "same", or
/// "unknown" where either side recorded none (a published edition): never
/// a guess.
pub(super) fn program_change(old: &Row, new: &Row) -> String {
    let identity = |r: &Row, b: &Bench| {
        r.cells
            .get(b)
            .and_then(|c| c.best.as_ref())
            .and_then(|b| Some((b.n, b.identity.clone()?)))
    };
    let (mut program, mut command, mut same) = (Vec::new(), Vec::new(), 0);
    for b in new.cells.keys() {
        let (Some((on, o)), Some((nn, n))) = (identity(old, b), identity(new, b)) else {
            continue;
        };
        if o.program != n.program {
            program.push(b.name());
        } else if on == nn && o.commands != n.commands {
            command.push(b.name());
        } else {
            same += 1;
        }
    }
    match (program.is_empty(), command.is_empty()) {
        (false, _) => format!("program changed ({})", program.join(", ")),
        (true, false) => format!("command changed ({})", command.join(", ")),
        _ if same > 0 => "same".into(),
        _ => "unknown".into(),
    }
}

/// Where a row ran when that is not the machine most of its directory's
/// rows ran on: `#1 Intel Xeon`, and that machine's description.
pub(super) fn other_machine(s: &Summary, row: &Row) -> Option<(String, String)> {
    let m = row.machine?;
    (s.machines.len() > 1 && Some(m) != s.main_machine).then(|| {
        (
            format!("#{} {}", m + 1, s.machines[m].short()),
            s.machines[m].hardware(),
        )
    })
}

/// The Machine cell of a pair: empty when both sides ran on their
/// directory's main machine, else which side ran elsewhere, marked as the
/// report marks it (its figures compare fairly only with rows of that
/// machine).
pub(super) fn machine_cell(old: Option<(String, String)>, new: Option<(String, String)>) -> Entry {
    let sides: Vec<(&str, (String, String))> = [("old", old), ("new", new)]
        .into_iter()
        .filter_map(|(side, m)| Some((side, m?)))
        .collect();
    if sides.is_empty() {
        return Entry::empty("");
    }
    let text = sides
        .iter()
        .map(|(side, (short, _))| format!("{side}: {short}"))
        .collect::<Vec<_>>()
        .join("; ");
    let why = sides
        .iter()
        .map(|(side, (_, hw))| format!("{side} measured on another machine than most rows: {hw}"))
        .collect::<Vec<_>>()
        .join("; ");
    Entry::text(text)
        .marked(Mark::Flagged, Some(why))
        .flagged(Flag::Machine)
}

/// Rank old → new (and how far it moved), to read.
pub(super) fn rank_text(ro: Option<Rank>, rn: Option<Rank>) -> String {
    match (ro, rn) {
        (Some(a), Some(b)) => {
            let moved = a.place as i64 - b.place as i64;
            match moved {
                0 => format!("{} → {}", a.text(), b.text()),
                m if m > 0 => format!("{} → {} (↑{m})", a.text(), b.text()),
                m => format!("{} → {} (↓{})", a.text(), b.text(), -m),
            }
        }
        (a, b) => format!(
            "{} → {}",
            a.map_or("-".into(), |r| r.text()),
            b.map_or("-".into(), |r| r.text())
        ),
    }
}

/// A rank or an N (empty without one).
/// A side's place, `=3` where shared, in the data columns too.
fn rank_entry(r: Option<Rank>) -> Entry {
    r.map_or(Entry::empty(""), |r| Entry::int(r.place as i64, r.text()))
}

pub(super) fn count(v: Option<u64>) -> Entry {
    v.map_or(Entry::empty(""), |n| Entry::int(n as i64, n.to_string()))
}

/// A total's bar: plain (with the range of its runs as a whisker, where
/// it has one), flagged (a total over a different N), or a labelled gap (a
/// partial row has no total).
pub(super) fn total_bar(f: &Fig, size_mismatch: bool, range: Option<(f64, f64)>) -> Bar {
    match f.time {
        Some(v) if !size_mismatch => Bar {
            range,
            ..Bar::plain(v)
        },
        Some(v) => Bar {
            value: Some(v),
            mark: Mark::Flagged,
            label: Some("N differs".into()),
            ..Default::default()
        },
        None => Bar {
            value: None,
            mark: Mark::Failed,
            label: Some(f.why.unwrap_or("no figure").into()),
            ..Default::default()
        },
    }
}

/// Seconds in the CPU tables.
pub(super) const SECS: Kind = Kind::Seconds { decimals: 3 };

/// The CPU table's columns: the variant, versions and ranks, then per
/// benchmark and for the total the figures of `figure_columns` (and each
/// benchmark's N).
pub(super) fn cpu_columns<'a>(
    benches: &[Bench],
    opts: &'a Options,
    machines: bool,
) -> Columns<'a, Line<'a>> {
    use Kind::{Count, Text};
    let mut c: Columns<Line> = Columns::new();
    c.add(col("Language", "language", Text).id(), |x| {
        Entry::text(&x.pair.new.language)
    });
    c.add(col("Command Flags", "command_flags", Text).id(), |x| {
        Entry::text(&x.pair.new.flags)
    });
    c.add(col("Variant", "variant", Text).data(), |x| {
        Entry::text(&x.pair.key)
    });
    version_columns(&mut c, |x| [&x.pair.old.version, &x.pair.new.version]);
    c.add(col("Program", "program", Text).data(), |x| {
        Entry::text(&x.program)
    });
    if machines {
        c.add(col("Machine", "machine", Text), |x| x.machine.clone());
    }
    c.add(col("Rank", "rank", Text).display(), |x| {
        Entry::text(rank_text(x.ranks.0, x.ranks.1))
    });
    c.add(col("Old rank", "old_rank", Kind::Rank).data(), |x| {
        rank_entry(x.ranks.0)
    });
    c.add(col("New rank", "new_rank", Kind::Rank).data(), |x| {
        rank_entry(x.ranks.1)
    });
    for (i, b) in benches.iter().enumerate() {
        let (shown, k) = (b.name(), b.name().replace('-', "_"));
        figure_columns(&mut c, i, shown, &k, opts, Show::Data);
        let n = |side: &str| col(format!("{shown} {side} N"), format!("{k}_{side}_n"), Count);
        c.add(n("old").data(), move |x| count(x.at(i).fo.n));
        c.add(n("new").data(), move |x| count(x.at(i).fnw.n));
    }
    figure_columns(&mut c, benches.len(), "Total", "total", opts, Show::Both);
    c
}

/// The columns of one benchmark's (or the total's) [`Compared`], the
/// `i`th of a line: time old → new and its ratio, old and new time and
/// RAM, the RAM ratio (`ram`: where it shows), and the test's verdict and
/// interval as data.
pub(super) fn figure_columns<'a>(
    c: &mut Columns<'a, Line<'a>>,
    i: usize,
    shown: &str,
    k: &str,
    opts: &'a Options,
    ram: Show,
) {
    use Kind::{Ratio, Text};
    let rel = opts.relative_to.is_some();
    let (ram_kind, time_kind) = if rel {
        (Ratio, Ratio)
    } else {
        (Kind::Kb, SECS)
    };
    // `{shown}{head}` and `{k}_{key}`; with a unit where figures are relative.
    let named =
        |head: &str, key: &str, kind| col(format!("{shown}{head}"), format!("{k}_{key}"), kind);
    let unit = |head: &str, key: &str, kind| match &opts.relative_to {
        Some(v) => col(format!("{shown}{head} (×{v})"), format!("{k}_{key}"), kind),
        None => named(head, key, kind),
    };
    let bound = |v: Option<f64>| opt_num(v, |x| format!("{x:.4}"));
    let (time, ram_text) = (move |v| fmt_time(v, rel), move |v| fmt_ram(v, rel));
    c.add(unit(" (s)", "time", Text).display(), move |x| {
        Entry::text(&x.at(i).shown)
    });
    c.add(named(" ×", "time_ratio", Ratio), move |x| {
        x.at(i).time.clone()
    });
    c.add(unit(" old (s)", "old_s", time_kind).data(), move |x| {
        opt_num(x.at(i).fo.time, time)
    });
    c.add(unit(" new (s)", "new_s", time_kind).data(), move |x| {
        opt_num(x.at(i).fnw.time, time)
    });
    c.add(
        unit(" old RAM (KB)", "old_rss_kb", ram_kind).data(),
        move |x| opt_num(x.at(i).fo.ram, ram_text),
    );
    c.add(
        unit(" new RAM (KB)", "new_rss_kb", ram_kind).data(),
        move |x| opt_num(x.at(i).fnw.ram, ram_text),
    );
    c.add(named(" RAM ×", "ram_ratio", Ratio).show(ram), move |x| {
        x.at(i).ram.clone()
    });
    c.add(named(" change", "change", Text).data(), move |x| {
        x.at(i)
            .change
            .map_or(Entry::empty(""), |c| Entry::text(c.verdict.name()))
    });
    c.add(named(" × low (95%)", "ratio_lo", Ratio).data(), move |x| {
        bound(x.at(i).change.map(|c| c.lo))
    });
    c.add(
        named(" × high (95%)", "ratio_hi", Ratio).data(),
        move |x| bound(x.at(i).change.map(|c| c.hi)),
    );
}

/// The variants only one directory has: added (only in the new one), not
/// run in the new one (it has no row of a variant the languages file
/// still has), dropped (the variant is gone from the languages file), with
/// their total time.
pub(super) fn changes(langs: &Languages, rows: &Matched<Row>, new: &Edition) -> Table {
    let still = |k: &str| langs.variants.iter().any(|v| v.id == k);
    let not_run = format!("not run in {}", new.label);
    let added = rows.added().map(|r| ("added".to_string(), r));
    let gone = rows.dropped().map(|r| {
        let change = if still(&r.0) {
            not_run.clone()
        } else {
            "dropped".to_string()
        };
        (change, r)
    });
    let changes: Vec<(String, &(String, &Row))> = added.chain(gone).collect();
    let selected_note = (!new.selected.is_empty()).then(|| {
        Note::from(format!(
            "\"not run in {}\": the languages file still has the variant, but {} holds no run \
             of it (its sessions selected {} variants); \"dropped\": the languages file has no \
             such variant any more",
            new.label,
            new.label,
            new.selected.len()
        ))
    });
    let columns = change_columns();
    Table {
        id: "compare-changes".into(),
        title: "Added, dropped and not run".into(),
        columns: columns.columns(),
        rows: columns.rows(&changes),
        notes: selected_note.into_iter().collect(),
        data_only: false,
        labels: 2,
        streamed: None,
    }
}

/// The columns of the added, dropped and not run: what changed, the
/// variant, its version and total.
fn change_columns<'a>() -> Columns<'a, (String, &'a (String, &'a Row))> {
    use Kind::Text;
    let mut c: Columns<(String, &(String, &Row))> = Columns::new();
    c.add(col("Change", "change", Text), |(change, _)| {
        Entry::text(change)
    });
    c.add(col("Language", "language", Text).id(), |(_, (_, r))| {
        Entry::text(&r.language)
    });
    c.add(
        col("Command Flags", "command_flags", Text).id(),
        |(_, (_, r))| Entry::text(&r.flags),
    );
    c.add(col("Variant", "variant", Text), |(_, (k, _))| {
        Entry::text(k)
    });
    c.add(col("Version", "version", Text), |(_, (_, r))| {
        Entry::text(&r.version)
    });
    c.add(col("Total (s)", "total_s", SECS), |(_, (_, r))| {
        match r.total_s() {
            Some(t) => Entry::number(t, format!("{t:.2}")),
            None if r.has_figures() => Entry::empty("partial")
                .marked(Mark::Failed, Some("partial: no total".into()))
                .flagged(Flag::Partial),
            None => Entry::empty("-"),
        }
    });
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::significance::{Verdict, significance};

    /// "program changed" where a source differs, "command changed" where
    /// only the commands do, "unknown" without identities (published).
    #[test]
    fn a_rewritten_program_is_told_from_a_new_toolchain() {
        use crate::record::Identity;
        use crate::store::Stored;
        let row = |program: &str, command: &str, version: &str, with: bool| {
            let mut r = crate::testing::run("go", Bench::NumComb).wall(1.0).record();
            r.identity = with.then(|| Identity {
                digest: format!("{program}{command}{version}"),
                program: program.into(),
                commands: vec![command.into()],
                toolchain: version.into(),
                langbench: "0.1.0".into(),
            });
            Summary::from_stored(&Stored {
                runs: crate::testing::shared(vec![r]),
                ..Default::default()
            })
            .rows
            .remove(0)
        };
        let base = row("aaaa", "run: go run num_comb.go 10", "go1.24", true);
        let newer_go = row("aaaa", "run: go run num_comb.go 10", "go1.25", true);
        assert_eq!(program_change(&base, &newer_go), "same");
        let edited = row("bbbb", "run: go run num_comb.go 10", "go1.24", true);
        assert_eq!(program_change(&base, &edited), "program changed (num-comb)");
        let flags = row(
            "aaaa",
            "run: go run -gcflags=-B num_comb.go 10",
            "go1.24",
            true,
        );
        assert_eq!(program_change(&base, &flags), "command changed (num-comb)");
        let published = row("", "", "", false);
        assert_eq!(program_change(&published, &base), "unknown");
    }

    /// A cold first run is the caches' warm-up, not noise: the test is
    /// on the warm runs, where the cell has two, else on every run.
    #[test]
    fn the_noise_test_leaves_a_cold_first_run_out() {
        use crate::record::CacheStart::{Cold, Warm};
        use crate::store::Stored;
        let fig = |runs: &[(f64, crate::record::CacheStart)]| {
            let runs = runs
                .iter()
                .enumerate()
                .map(|(i, &(w, c))| {
                    crate::testing::run("go", Bench::NumComb)
                        .nth(i as u32 + 1)
                        .wall(w)
                        .cache(c)
                        .record()
                })
                .map(std::sync::Arc::new)
                .collect();
            let s = Summary::from_stored(&Stored {
                runs,
                ..Default::default()
            });
            Fig::cell(&s, &s.rows[0], Bench::NumComb)
        };
        let old = fig(&[(7.07, Cold), (0.466, Warm), (0.461, Warm)]);
        assert_eq!(old.runs, [0.466, 0.461]);
        assert_eq!(old.noisy, None, "0.466 and 0.461 s spread 0.8%");
        let new = fig(&[(7.2, Cold), (0.401, Warm), (0.399, Warm)]);
        let c = significance(&old.runs, &new.runs).unwrap();
        assert_eq!(c.verdict, Verdict::Faster, "{c:?}");
        assert_eq!(c.runs, (2, 2));
        // With the cold runs counted, 14% faster would drown in them.
        assert_eq!(
            significance(&[7.07, 0.466, 0.461], &[7.2, 0.401, 0.399])
                .unwrap()
                .verdict,
            Verdict::NotSignificant
        );
        // Every run cold (--cold-caches): every run counts.
        let cold = fig(&[(7.07, Cold), (7.2, Cold), (7.1, Cold)]);
        assert_eq!(cold.runs, [7.07, 7.2, 7.1]);
        // One warm run: no spread of warm runs; every run counts, as before.
        let two = fig(&[(7.07, Cold), (0.466, Warm)]);
        assert_eq!(two.runs, [7.07, 0.466]);
    }
}
