//! The history as a document: one row per variant, each edition's total
//! (relative with `--relative-to`), flagged where an edition was measured
//! on another machine or at another size, and its chart.

use std::collections::BTreeMap;

use anyhow::{Context, Result, ensure};

use crate::compare::edition::{Edition, key};
use crate::config::Languages;
use crate::document::{
    Bar, BarChart, BarRow, Column, Document, Entry, Flag, Kind, Mark, Note, Show, Table, Unit,
};
use crate::summary::Row;

/// One edition's figure for one variant.
struct Point<'a> {
    row: &'a Row,
    /// The total (relative with `--relative-to`), if the row is complete.
    value: Option<f64>,
    /// Its rows in that edition (two versions of one variant in one
    /// edition): the fastest complete is the one shown.
    rows: usize,
}

/// The history of `editions` (oldest first) as a document.
pub fn document(
    langs: &Languages,
    editions: &[&Edition],
    relative_to: Option<&str>,
) -> Result<Document> {
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
        .collect::<Result<Vec<_>>>()?;
    // Per edition: variant key -> its rows (in the edition's order: the
    // fastest complete first).
    let per_edition: Vec<BTreeMap<String, Vec<&Row>>> = summaries
        .iter()
        .map(|s| {
            let mut m: BTreeMap<String, Vec<&Row>> = BTreeMap::new();
            for r in s.rows.iter().filter(|r| r.started && r.installed()) {
                m.entry(key(langs, &r.variant, &r.language, &r.flags))
                    .or_default()
                    .push(r);
            }
            m
        })
        .collect();
    let reference: Vec<Option<f64>> = match relative_to {
        None => vec![None; editions.len()],
        Some(v) => per_edition
            .iter()
            .zip(editions)
            .map(|(m, e)| {
                m.get(v)
                    .and_then(|rows| rows.first())
                    .and_then(|r| r.total_s())
                    .map(Some)
                    .with_context(|| {
                        format!(
                            "--relative-to {v}: {} has no complete row of {v}",
                            e.dir.display()
                        )
                    })
            })
            .collect::<Result<_>>()?,
    };
    let point = |i: usize, k: &str| -> Option<Point> {
        let rows = per_edition[i].get(k)?;
        let row = rows.iter().find(|r| r.complete()).unwrap_or(&rows[0]);
        let value = row.total_s().map(|t| match reference[i] {
            Some(r) if r > 0.0 => t / r,
            _ => t,
        });
        Some(Point {
            row,
            value,
            rows: rows.len(),
        })
    };
    // Every variant any edition has: the newest edition's order first
    // (fastest complete first), then the rest by their latest figure.
    let newest = editions.len() - 1;
    let mut keys: Vec<String> = Vec::new();
    for i in (0..editions.len()).rev() {
        let mut these: Vec<(&String, Option<f64>)> = per_edition[i]
            .keys()
            .filter(|k| !keys.contains(k))
            .map(|k| (k, point(i, k).and_then(|p| p.value)))
            .collect();
        these.sort_by(|a, b| match (a.1, b.1) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => a.0.cmp(b.0),
        });
        keys.extend(these.into_iter().map(|(k, _)| k.clone()));
    }

    // Sizes and machines: flagged against the newest edition.
    let sizes: Vec<String> = summaries.iter().map(|s| s.sizes_text()).collect();
    let other_size: Vec<bool> = sizes.iter().map(|s| *s != sizes[newest]).collect();
    let machine_of = |e: &Edition| e.machine.clone().unwrap_or_default();
    let other_machine: Vec<bool> = editions
        .iter()
        .map(|e| !machine_of(e).same_as(&machine_of(editions[newest])))
        .collect();

    let unit = match relative_to {
        Some(v) => format!(" (× {v})"),
        None => " (s)".to_string(),
    };
    let mut columns = vec![
        Column::new("Language", "language", Kind::Text, Show::Both),
        Column::new("Command Flags", "command_flags", Kind::Text, Show::Both),
        Column::new("Variant", "variant", Kind::Text, Show::Data),
    ];
    let value_kind = if relative_to.is_some() {
        Kind::Ratio
    } else {
        Kind::Seconds { decimals: 3 }
    };
    for e in editions {
        columns.push(Column::new(
            format!("{}{unit}", e.label),
            format!("total_{}", e.label.replace('-', "_")),
            value_kind,
            Show::Both,
        ));
    }
    for e in editions {
        columns.push(Column::new(
            format!("{} version", e.label),
            format!("version_{}", e.label.replace('-', "_")),
            Kind::Text,
            Show::Data,
        ));
    }
    let (first, last) = (&editions[0].label, &editions[newest].label);
    columns.push(Column::new(
        format!("{first} → {last} ×"),
        "change_ratio",
        Kind::Ratio,
        Show::Both,
    ));

    let mut notes: Vec<Note> = Vec::new();
    let mut rows = Vec::new();
    let mut chart_rows = Vec::new();
    for k in &keys {
        let points: Vec<Option<Point>> = (0..editions.len()).map(|i| point(i, k)).collect();
        let shown = points
            .iter()
            .rev()
            .flatten()
            .next()
            .expect("a key has a point")
            .row;
        let mut row = vec![
            Entry::text(&shown.language),
            Entry::text(&shown.flags),
            Entry::text(k),
        ];
        let mut bars = Vec::new();
        for (i, p) in points.iter().enumerate() {
            let flag_note = if other_size[i] {
                Some(format!(
                    "{} ran other sizes ({}): not the same work",
                    editions[i].label, sizes[i]
                ))
            } else if other_machine[i] && relative_to.is_none() {
                Some(format!(
                    "{} ran on another machine: seconds compare machines too",
                    editions[i].label
                ))
            } else {
                None
            };
            let cell = match p {
                Some(Point {
                    value: Some(v),
                    rows: n,
                    ..
                }) => {
                    let text = if relative_to.is_some() {
                        format!("×{v:.2}")
                    } else {
                        format!("{v:.2}")
                    };
                    let cell = Entry::number(*v, text);
                    if *n > 1 {
                        notes.push(Note::new(
                            format!("{} · {} / {}", shown.language, shown.flags, editions[i].label),
                            format!("{n} rows (versions) in that edition: the fastest complete one is shown"),
                        ));
                    }
                    match &flag_note {
                        Some(why) => cell
                            .marked(Mark::Flagged, Some(why.clone()))
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
                    .marked(Mark::Failed, Some(format!("not in {}", editions[i].label)))
                    .flagged(Flag::NotRun),
            };
            bars.push(match (cell.as_f64(), cell.mark) {
                (Some(v), Mark::Plain) => Bar::plain(v),
                (Some(v), _) => Bar {
                    value: Some(v),
                    mark: Mark::Flagged,
                    label: Some(
                        if other_size[i] {
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
                    label: Some(cell.text.clone()),
                    ..Default::default()
                },
            });
            row.push(cell);
        }
        for p in &points {
            row.push(Entry::text(
                p.as_ref().map_or("", |p| p.row.version.as_str()),
            ));
        }
        let ends = (
            points[0].as_ref().and_then(|p| p.value),
            points[newest].as_ref().and_then(|p| p.value),
        );
        row.push(match ends {
            (Some(a), Some(b)) if a > 0.0 => {
                let cell = Entry::number(b / a, format!("×{:.2}", b / a));
                if other_size[0] || (other_machine[0] && relative_to.is_none()) {
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
        });
        if points[newest].as_ref().is_some_and(|p| p.value.is_some()) {
            chart_rows.push(BarRow {
                label: format!("{} · {}", shown.language, shown.flags),
                bars,
            });
        }
        rows.push(row);
    }

    let mut meta = vec![(
        "Editions".into(),
        editions
            .iter()
            .map(|e| {
                format!(
                    "{} ({}): {}",
                    e.label,
                    e.dir.display(),
                    e.summary.as_ref().map(|s| s.title()).unwrap_or_default()
                )
            })
            .collect::<Vec<_>>()
            .join("; "),
    )];
    meta.push((
        "Figures".into(),
        match relative_to {
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
    let odd_sizes: Vec<&str> = editions
        .iter()
        .zip(&other_size)
        .filter(|(_, o)| **o)
        .map(|(e, _)| e.label.as_str())
        .collect();
    if !odd_sizes.is_empty() {
        meta.push((
            "Sizes".into(),
            format!(
                "OTHER SIZES in {} ({}) than in {} ({}): their totals add up other work, marked \
                 in the table; not even relative speed compares exactly",
                odd_sizes.join(", "),
                editions
                    .iter()
                    .zip(&sizes)
                    .filter(|(e, _)| odd_sizes.contains(&e.label.as_str()))
                    .map(|(_, s)| s.as_str())
                    .collect::<Vec<_>>()
                    .join("; "),
                last,
                sizes[newest]
            ),
        ));
    }
    meta.push(("Machines".into(), {
        let list = editions
            .iter()
            .map(|e| format!("{}: {}", e.label, machine_of(e).hardware()))
            .collect::<Vec<_>>()
            .join("; ");
        if other_machine.iter().any(|o| *o) {
            format!(
                "DIFFERENT: {list}{}",
                if relative_to.is_some() {
                    ""
                } else {
                    ". Seconds compare machines as well as toolchains: --relative-to VARIANT \
                         compares relative speed"
                }
            )
        } else {
            format!("the same: {list}")
        }
    }));
    meta.push((
        "Built from".into(),
        editions
            .iter()
            .map(|e| format!("{} (records digest {})", e.dir.display(), e.digest))
            .collect::<Vec<_>>()
            .join(", "),
    ));
    let table = Table {
        id: "history".into(),
        title: format!("Editions {first} to {last}"),
        columns,
        rows,
        notes,
        data_only: false,
        labels: 2,
    };
    let chart = BarChart {
        id: "history-total".into(),
        title: format!(
            "Total time per edition{}",
            relative_to
                .map(|v| format!(", relative to {v}"))
                .unwrap_or_default()
        ),
        axis: if relative_to.is_some() {
            "× reference (log scale)".into()
        } else {
            "seconds (log scale)".into()
        },
        log: true,
        series: editions.iter().map(|e| e.label.clone()).collect(),
        rows: chart_rows,
        caption: format!(
            "One bar per edition, for every variant {last} has a total for. Marked bars: other \
             sizes or another machine; labelled gaps: not in that edition, or no total."
        ),
        unit: if relative_to.is_some() {
            Unit::Ratio
        } else {
            Unit::Seconds
        },
    };
    Ok(Document {
        title: format!("langbench history: editions {first} to {last}"),
        meta,
        tables: vec![table],
        charts: vec![chart],
        ..Default::default()
    })
}
