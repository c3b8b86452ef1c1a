//! The history as a document: one row per variant, each edition's total
//! (relative with `--relative-to`), flagged where an edition was measured
//! on another machine or at another size, and its chart.
//!
//! [`document`] gathers the editions ([`History`]), reads a line per
//! variant from them ([`Line`]), and builds from the lines the table
//! (its columns declared once in [`columns`]), its notes and the chart;
//! the facts above them come from the editions alone ([`meta`]).

use std::collections::BTreeMap;

use anyhow::{Context, Result, ensure};

use crate::compare::basis::{self, Basis};
use crate::compare::edition::{Edition, Keys};
use crate::config::Languages;
use crate::machine::Machine;
use crate::summary::{Row, Summary};
use langbench_document::columns::{Columns, col};
use langbench_document::{
    Bar, BarChart, BarRow, Document, Entry, Flag, Kind, Mark, Note, Table, Unit,
};

/// The history of `editions` (oldest first) as a document.
pub(crate) fn document(
    langs: &Languages,
    editions: &[&Edition],
    relative_to: Option<&str>,
) -> Result<Document> {
    let h = History::gather(langs, editions, relative_to)?;
    let lines = h.lines();
    let columns = columns(&h);
    let (first, last) = (&editions[0].label, &editions[h.newest()].label);
    let table = Table {
        id: "history".into(),
        title: format!("Editions {first} to {last}"),
        columns: columns.columns(),
        rows: columns.rows(&lines),
        notes: notes(&h, &lines),
        data_only: false,
        labels: 2,
        streamed: None,
    };
    Ok(Document {
        title: format!("langbench history: editions {first} to {last}"),
        meta: meta(&h),
        tables: vec![table],
        charts: vec![chart(&h, &lines)],
        as_of: Edition::newest(editions.iter().copied()),
        ..Default::default()
    })
}

/// The editions as the history reads them, each flagged against the
/// newest.
struct History<'a> {
    editions: &'a [&'a Edition],
    relative_to: Option<&'a str>,
    /// Per edition: variant key -> its rows (in the edition's order: the
    /// fastest complete first).
    per_edition: Vec<BTreeMap<String, Vec<&'a Row>>>,
    /// Per edition: the `--relative-to` variant's total.
    reference: Vec<Option<f64>>,
    /// Per edition: how its totals are taken ([`Basis`]).
    bases: Vec<Basis>,
    /// Per edition: its benchmarks' sizes, and whether they are not the
    /// newest edition's.
    sizes: Vec<String>,
    other_size: Vec<bool>,
    /// Per edition: whether it ran on another machine than the newest.
    other_machine: Vec<bool>,
}

/// One edition's figure for one variant.
struct Point<'a> {
    row: &'a Row,
    /// The total (relative with `--relative-to`), if the row is complete.
    value: Option<f64>,
    /// Its rows in that edition (two versions of one variant in one
    /// edition): the fastest complete is the one shown.
    rows: usize,
    /// The total's interval where the edition's basis gives one (reference
    /// passes): the sums of its cells' fastest and slowest normalised runs.
    range: Option<(f64, f64)>,
}

/// One row of the table: a variant, its point in each edition, and the
/// cell each point shows (the chart's bars are read from the same cells).
struct Line<'a> {
    key: String,
    points: Vec<Option<Point<'a>>>,
    /// The newest row of it: its language and flags name the line.
    shown: &'a Row,
    cells: Vec<Entry>,
}

impl Line<'_> {
    /// Its label in the notes and the chart.
    fn label(&self) -> String {
        format!("{} · {}", self.shown.language, self.shown.flags)
    }

    fn value(&self, i: usize) -> Option<f64> {
        self.points[i].as_ref().and_then(|p| p.value)
    }
}

/// An edition's machine (an unknown one when it recorded none).
fn machine_of(e: &Edition) -> Machine {
    e.machine.clone().unwrap_or_default()
}

impl<'a> History<'a> {
    fn gather(
        langs: &Languages,
        editions: &'a [&'a Edition],
        relative_to: Option<&'a str>,
    ) -> Result<History<'a>> {
        ensure!(
            editions.len() >= 2,
            "history needs two results directories or more"
        );
        let summaries = editions
            .iter()
            .map(|e| {
                e.summary
                    .as_ref()
                    .with_context(|| format!("{} holds no CPU benchmark runs", e.dir.display()))
            })
            .collect::<Result<Vec<&Summary>>>()?;
        let per_edition: Vec<_> = summaries.iter().map(|s| by_variant(langs, s)).collect();
        let bases: Vec<Basis> = editions.iter().map(|e| Basis::of(e, relative_to)).collect();
        let reference = reference(editions, &per_edition, relative_to, &bases)?;
        let newest = editions.len() - 1;
        let sizes: Vec<String> = summaries.iter().map(|s| s.sizes_text()).collect();
        let other_size = sizes.iter().map(|s| *s != sizes[newest]).collect();
        let other_machine = editions
            .iter()
            .map(|e| !machine_of(e).same_as(&machine_of(editions[newest])))
            .collect();
        Ok(History {
            editions,
            relative_to,
            per_edition,
            reference,
            bases,
            sizes,
            other_size,
            other_machine,
        })
    }

    /// Edition `i`'s row of the `--relative-to` variant.
    fn reference_row(&self, i: usize) -> Option<&'a Row> {
        let v = self.relative_to?;
        self.per_edition[i].get(v)?.first().copied()
    }

    fn newest(&self) -> usize {
        self.editions.len() - 1
    }

    /// Edition `i`'s figure of variant `k`.
    fn point(&self, i: usize, k: &str) -> Option<Point<'a>> {
        let rows = self.per_edition[i].get(k)?;
        let row = rows.iter().find(|r| r.complete()).unwrap_or(&rows[0]);
        let on_basis = self.bases[i].total(row, self.reference_row(i));
        let range = on_basis.and(self.bases[i].total_range(row));
        let value = match (on_basis, self.reference[i]) {
            (Some(v), _) => Some(v),
            (None, Some(r)) if r > 0.0 => row.total_s().map(|t| t / r),
            // The reference passes stand for a reference row this
            // edition does not have: no relative total but theirs.
            (None, None) if self.relative_to.is_some() => None,
            (None, _) => row.total_s(),
        };
        Some(Point {
            row,
            value,
            rows: rows.len(),
            range,
        })
    }

    /// Every variant any edition has: the newest edition's order first
    /// (fastest complete first), then the rest by their latest figure.
    fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        for i in (0..self.editions.len()).rev() {
            let mut these: Vec<(&String, Option<f64>)> = self.per_edition[i]
                .keys()
                .filter(|k| !keys.contains(k))
                .map(|k| (k, self.point(i, k).and_then(|p| p.value)))
                .collect();
            these.sort_by(|a, b| match (a.1, b.1) {
                (Some(x), Some(y)) => x.total_cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => a.0.cmp(b.0),
            });
            keys.extend(these.into_iter().map(|(k, _)| k.clone()));
        }
        keys
    }

    /// A line per variant, in the order of [`History::keys`].
    fn lines(&self) -> Vec<Line<'a>> {
        self.keys()
            .into_iter()
            .map(|key| {
                let points: Vec<Option<Point>> = (0..self.editions.len())
                    .map(|i| self.point(i, &key))
                    .collect();
                let shown = points
                    .iter()
                    .rev()
                    .flatten()
                    .next()
                    .expect("a key has a point")
                    .row;
                let cells = points.iter().enumerate().map(|(i, p)| self.cell(i, p));
                Line {
                    cells: cells.collect(),
                    key,
                    points,
                    shown,
                }
            })
            .collect()
    }

    /// Why edition `i`'s figures do not compare with the newest's, if so.
    fn flag_note(&self, i: usize) -> Option<String> {
        let label = &self.editions[i].label;
        if self.other_size[i] {
            Some(format!(
                "{label} ran other sizes ({}): not the same work",
                self.sizes[i]
            ))
        } else if self.other_machine[i] && self.relative_to.is_none() {
            Some(format!(
                "{label} ran on another machine: seconds compare machines too"
            ))
        } else {
            None
        }
    }

    /// Edition `i`'s cell of a variant: its total (flagged where it does
    /// not compare), else why there is none.
    fn cell(&self, i: usize, p: &Option<Point>) -> Entry {
        match p {
            Some(Point { value: Some(v), .. }) => {
                let text = if self.relative_to.is_some() {
                    format!("×{v:.2}")
                } else {
                    format!("{v:.2}")
                };
                let cell = Entry::number(*v, text);
                match self.flag_note(i) {
                    Some(why) => cell
                        .marked(Mark::Flagged, Some(why))
                        .flagged(Flag::Incomparable),
                    None => cell,
                }
            }
            Some(Point { row, .. }) if row.has_figures() => Entry::empty("partial")
                .marked(
                    Mark::Failed,
                    Some("no total: not every benchmark has a figure".into()),
                )
                .flagged(Flag::Partial),
            Some(_) => Entry::empty("failed")
                .marked(Mark::Failed, Some("no cell has a figure".into()))
                .flagged(Flag::Failed),
            None => Entry::empty("-")
                .marked(
                    Mark::Failed,
                    Some(format!("not in {}", self.editions[i].label)),
                )
                .flagged(Flag::NotRun),
        }
    }
}

/// An edition's started, installed rows by variant.
fn by_variant<'a>(langs: &Languages, s: &'a Summary) -> BTreeMap<String, Vec<&'a Row>> {
    let mut m: BTreeMap<String, Vec<&Row>> = BTreeMap::new();
    let keys = Keys::new(langs);
    for r in s.rows.iter().filter(|r| r.started && r.installed()) {
        m.entry(keys.key(&r.variant, &r.language, &r.flags))
            .or_default()
            .push(r);
    }
    m
}

/// Each edition's total of the `--relative-to` variant (`None` each
/// without it); an edition without a complete row of it is an error.
fn reference(
    editions: &[&Edition],
    per_edition: &[BTreeMap<String, Vec<&Row>>],
    relative_to: Option<&str>,
    bases: &[Basis],
) -> Result<Vec<Option<f64>>> {
    let Some(v) = relative_to else {
        return Ok(vec![None; editions.len()]);
    };
    per_edition
        .iter()
        .zip(editions)
        .zip(bases)
        .map(|((m, e), basis)| {
            let total = m
                .get(v)
                .and_then(|rows| rows.first())
                .and_then(|r| r.total_s());
            if total.is_none() && basis.references() {
                // Its reference passes stand for the row.
                return Ok(None);
            }
            total.map(Some).with_context(|| {
                format!(
                    "--relative-to {v}: {} has no complete row of {v}",
                    e.dir.display()
                )
            })
        })
        .collect()
}

/// The table's columns: the variant, each edition's total, each
/// edition's version as data, and the change from the first to the last.
fn columns<'a>(h: &History) -> Columns<'a, Line<'a>> {
    use Kind::{Ratio, Text};
    let mut c: Columns<Line> = Columns::new();
    c.add(col("Language", "language", Text).id(), |x| {
        Entry::text(&x.shown.language)
    });
    c.add(col("Command Flags", "command_flags", Text).id(), |x| {
        Entry::text(&x.shown.flags)
    });
    c.add(col("Variant", "variant", Text).data(), |x| {
        Entry::text(&x.key)
    });
    let (unit, value_kind) = match h.relative_to {
        Some(v) => (format!(" (× {v})"), Ratio),
        None => (" (s)".to_string(), Kind::Seconds { decimals: 3 }),
    };
    let keyed = |e: &Edition| e.label.replace('-', "_");
    for (i, e) in h.editions.iter().enumerate() {
        let total = col(
            format!("{}{unit}", e.label),
            format!("total_{}", keyed(e)),
            value_kind,
        );
        c.add(total, move |x| x.cells[i].clone());
    }
    // An edition measured with reference passes: its totals' intervals,
    // as data (the fastest and slowest normalised runs added up).
    for (i, e) in h.editions.iter().enumerate() {
        if !h.bases[i].references() {
            continue;
        }
        for (end, name, pick) in [
            (
                "fastest",
                "lo",
                (|r: (f64, f64)| r.0) as fn((f64, f64)) -> f64,
            ),
            ("slowest", "hi", |r: (f64, f64)| r.1),
        ] {
            let key = format!("total_{}_{name}", keyed(e));
            let end = col(format!("{} {end}{unit}", e.label), key, value_kind);
            c.add(end.data(), move |x| {
                match x.points[i].as_ref().and_then(|p| p.range) {
                    Some(r) => Entry::number(pick(r), format!("{:.4}", pick(r))),
                    None => Entry::empty(""),
                }
            });
        }
    }
    for (i, e) in h.editions.iter().enumerate() {
        let version = col(
            format!("{} version", e.label),
            format!("version_{}", keyed(e)),
            Text,
        );
        c.add(version.data(), move |x| {
            Entry::text(x.points[i].as_ref().map_or("", |p| p.row.version.as_str()))
        });
    }
    let (first, last) = (&h.editions[0].label, &h.editions[h.newest()].label);
    let newest = h.newest();
    // The first edition's figures do not compare with the newest's.
    let odd_first = h.other_size[0] || (h.other_machine[0] && h.relative_to.is_none());
    c.add(
        col(format!("{first} → {last} ×"), "change_ratio", Ratio),
        move |x| match (x.value(0), x.value(newest)) {
            (Some(a), Some(b)) if a > 0.0 => {
                let cell = Entry::number(b / a, format!("×{:.2}", b / a));
                if odd_first {
                    cell.marked(
                        Mark::Flagged,
                        Some("the first edition ran other sizes or another machine".into()),
                    )
                    .flagged(Flag::Incomparable)
                } else {
                    cell
                }
            }
            _ => Entry::empty(""),
        },
    );
    c
}

/// A note where an edition had several rows of a variant (the fastest
/// complete one is shown).
fn notes(h: &History, lines: &[Line]) -> Vec<Note> {
    let mut notes = Vec::new();
    for x in lines {
        for (i, p) in x.points.iter().enumerate() {
            if let Some(Point {
                value: Some(_),
                rows: n,
                ..
            }) = p
                && *n > 1
            {
                notes.push(Note::new(
                    format!("{} / {}", x.label(), h.editions[i].label),
                    format!(
                        "{n} rows (versions) in that edition: the fastest complete one is shown"
                    ),
                ));
            }
        }
    }
    notes
}

/// The chart: a bar per edition, for every variant the newest edition
/// has a total for.
fn chart(h: &History, lines: &[Line]) -> BarChart {
    let rel = h.relative_to.is_some();
    let bar = |i: usize, cell: &Entry| match (cell.as_f64(), cell.mark) {
        (Some(v), Mark::Plain) => Bar::plain(v),
        (Some(v), _) => Bar {
            value: Some(v),
            mark: Mark::Flagged,
            label: Some(
                if h.other_size[i] {
                    "other size"
                } else {
                    "other machine"
                }
                .into(),
            ),
            ..Default::default()
        },
        (None, _) => Bar {
            value: None,
            mark: Mark::Failed,
            label: Some(cell.text.to_string()),
            ..Default::default()
        },
    };
    let rows = lines
        .iter()
        .filter(|x| x.value(h.newest()).is_some())
        .map(|x| BarRow {
            label: x.label(),
            bars: x.cells.iter().enumerate().map(|(i, c)| bar(i, c)).collect(),
        })
        .collect();
    BarChart {
        id: "history-total".into(),
        title: format!(
            "Total time per edition{}",
            h.relative_to
                .map(|v| format!(", relative to {v}"))
                .unwrap_or_default()
        ),
        axis: if rel {
            "× reference (log scale)".into()
        } else {
            "seconds (log scale)".into()
        },
        log: true,
        series: h.editions.iter().map(|e| e.label.clone()).collect(),
        rows,
        caption: format!(
            "One bar per edition, for every variant {} has a total for. Marked bars: other \
             sizes or another machine; labelled gaps: not in that edition, or no total.",
            h.editions[h.newest()].label
        ),
        unit: if rel { Unit::Ratio } else { Unit::Seconds },
    }
}

/// The facts above the table: the editions, what a figure is, the sizes
/// where they differ, the machines, what it was built from.
fn meta(h: &History) -> Vec<(String, String)> {
    let joined = |f: &dyn Fn(&Edition) -> String, sep: &str| {
        h.editions
            .iter()
            .map(|e| f(e))
            .collect::<Vec<_>>()
            .join(sep)
    };
    let mut meta = vec![(
        "Editions".into(),
        joined(
            &|e| {
                let title = e.summary.as_ref().map(|s| s.title()).unwrap_or_default();
                format!("{} ({}): {title}", e.label, e.dir.display())
            },
            "; ",
        ),
    )];
    meta.push((
        "Figures".into(),
        match h.relative_to {
            Some(v) => format!(
                "each edition's total time of a complete row divided by {v}'s in the same \
                 edition (×1.00 = as fast as {v}): relative speed, which compares across \
                 machines; a variant with several rows in one edition shows its fastest"
            ),
            None => "each edition's total time (s) of a complete row, best of N as that edition \
                     measured it; partial rows have no total"
                .into(),
        },
    ));
    if let Some(sizes) = sizes_text(h) {
        meta.push(("Sizes".into(), sizes));
    }
    meta.push(("Machines".into(), machines_text(h)));
    let checks: Vec<String> = h
        .editions
        .iter()
        .filter_map(|e| {
            Some(format!(
                "{}: {}",
                e.label,
                e.summary.as_ref()?.checks_line()?
            ))
        })
        .collect();
    if !checks.is_empty() {
        meta.push((
            "Reproducibility checks".into(),
            format!(
                "{} (a precision check, on an edition's CPU model, sets its ranks; a \
                 portability check, on another CPU model, shows how the ratios move there and \
                 never changes a rank)",
                checks.join("; ")
            ),
        ));
    }
    let labels: Vec<(&str, &Basis)> = h
        .editions
        .iter()
        .zip(&h.bases)
        .map(|(e, b)| (e.label.as_str(), b))
        .collect();
    meta.extend(basis::fact(&labels));
    meta.push((
        "Built from".into(),
        joined(
            &|e| format!("{} (records digest {})", e.dir.display(), e.digest),
            ", ",
        ),
    ));
    meta
}

/// Which editions ran other sizes than the newest, if any did.
fn sizes_text(h: &History) -> Option<String> {
    let odd: Vec<&str> = h
        .editions
        .iter()
        .zip(&h.other_size)
        .filter(|(_, o)| **o)
        .map(|(e, _)| e.label.as_str())
        .collect();
    if odd.is_empty() {
        return None;
    }
    let sizes: Vec<&str> = h
        .editions
        .iter()
        .zip(&h.sizes)
        .filter(|(e, _)| odd.contains(&e.label.as_str()))
        .map(|(_, s)| s.as_str())
        .collect();
    let newest = h.newest();
    Some(format!(
        "OTHER SIZES in {} ({}) than in {} ({}): their totals add up other work, marked in the \
         table; not even relative speed compares exactly",
        odd.join(", "),
        sizes.join("; "),
        h.editions[newest].label,
        h.sizes[newest]
    ))
}

/// The editions' machines, the same or DIFFERENT.
fn machines_text(h: &History) -> String {
    let list = h
        .editions
        .iter()
        .map(|e| format!("{}: {}", e.label, machine_of(e).hardware()))
        .collect::<Vec<_>>()
        .join("; ");
    if !h.other_machine.iter().any(|o| *o) {
        return format!("the same: {list}");
    }
    format!(
        "DIFFERENT: {list}{}",
        if h.relative_to.is_some() {
            ""
        } else {
            ". Seconds compare machines as well as toolchains: --relative-to VARIANT compares \
             relative speed"
        }
    )
}
