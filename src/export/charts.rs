//! What is charted: bar charts built from the summary, the ws records and
//! a comparison. [`super::svg`] draws them. A cell without a figure is a
//! labelled gap (`FAILED (exit 1)`, `not run`), never a bar of zero; a
//! figure that is not a plain correct one is a marked bar.

use super::document::{Bar, BarChart, BarRow, Mark, Unit};
use crate::report::{Row, Summary};
use crate::ws::{WsRecord, WsStatus};

/// One benchmark cell as a bar: `value` picks time or RAM.
fn cell_bar(row: &Row, bench: crate::bench::Bench, ram: bool) -> Bar {
    let Some(c) = row.cells.get(&bench) else {
        let label = if row.no_program.contains(&bench) {
            "n/a"
        } else {
            "not run"
        };
        return Bar {
            value: None,
            mark: Mark::Failed,
            label: Some(label.into()),
            ..Default::default()
        };
    };
    let value = if ram {
        c.rss_kb().map(|k| k as f64)
    } else {
        c.wall_s()
    };
    // A timeout is no time: a labelled gap, like a failure.
    let value = value.filter(|_| c.wall_s().is_some());
    match value {
        Some(v) if c.status.is_ok() => Bar {
            range: if ram { None } else { c.interval() },
            ..Bar::plain(v)
        },
        Some(v) => Bar {
            value: Some(v),
            mark: Mark::Flagged,
            label: Some(c.status.name().into()),
            range: if ram { None } else { c.interval() },
        },
        None => Bar {
            value: None,
            mark: Mark::Failed,
            label: Some(c.time_text()),
            ..Default::default()
        },
    }
}

/// A row's total as a bar: only a complete row has one; a partial row is a
/// labelled gap (its partial sum would draw it as the fastest).
fn total_bar(row: &Row, ram: bool) -> Bar {
    let value = if ram {
        row.total_rss_kb().map(|k| k as f64)
    } else {
        row.total_s()
    };
    match value {
        Some(v) => Bar {
            range: if ram { None } else { row.total_range() },
            ..Bar::plain(v)
        },
        None if row.has_figures() => Bar {
            value: None,
            mark: Mark::Failed,
            label: Some(format!(
                "partial ({} of {})",
                row.cells.values().filter(|c| c.wall_s().is_some()).count(),
                row.cells.len() + row.missing.len() + row.no_program.len()
            )),
            ..Default::default()
        },
        None => Bar {
            value: None,
            mark: Mark::Failed,
            label: Some("no figures".into()),
            ..Default::default()
        },
    }
}

fn row_label(row: &Row) -> String {
    format!("{} · {}", row.language, row.flags)
}

const MARKS: &str = "Whiskers: the fastest to the slowest run. Marked bars are not plain correct \
                     figures (a non-zero exit, a wrong output, escaped work); labelled gaps have \
                     no figure (failed, timed out, partial totals, not run).";

/// Total time and peak RAM per variant, and both per benchmark.
pub fn summary(s: &Summary) -> Vec<BarChart> {
    let rows: Vec<&Row> = s
        .rows
        .iter()
        .filter(|r| r.installed() && r.started)
        .collect();
    if rows.is_empty() {
        return Vec::new();
    }
    let benches: Vec<String> = s.benches.iter().map(|(b, _)| b.to_string()).collect();
    let unit = |ram: bool| if ram { Unit::Kb } else { Unit::Seconds };
    let total = |id: &str, title: &str, axis: &str, ram: bool| BarChart {
        id: id.into(),
        title: title.into(),
        axis: axis.into(),
        log: true,
        series: vec!["total".into()],
        rows: rows
            .iter()
            .map(|r| BarRow {
                label: row_label(r),
                bars: vec![total_bar(r, ram)],
            })
            .collect(),
        caption: MARKS.into(),
        unit: unit(ram),
    };
    let by_bench = |id: &str, title: &str, axis: &str, ram: bool| BarChart {
        id: id.into(),
        title: title.into(),
        axis: axis.into(),
        log: true,
        series: benches.clone(),
        rows: rows
            .iter()
            .map(|r| BarRow {
                label: row_label(r),
                bars: s
                    .benches
                    .iter()
                    .map(|(b, _)| cell_bar(r, *b, ram))
                    .collect(),
            })
            .collect(),
        caption: MARKS.into(),
        unit: unit(ram),
    };
    vec![
        total(
            "total-time",
            "Total time per variant (s, build + run, best of N)",
            "seconds (log scale)",
            false,
        ),
        total(
            "total-ram",
            "Total peak RAM per variant",
            "peak RSS (log scale)",
            true,
        ),
        by_bench(
            "time-by-benchmark",
            "Time per benchmark (s)",
            "seconds (log scale)",
            false,
        ),
        by_bench(
            "ram-by-benchmark",
            "Peak RAM per benchmark",
            "peak RSS (log scale)",
            true,
        ),
    ]
}

/// rps and p99 latency per server and phase.
pub fn ws(records: &[&WsRecord]) -> Vec<BarChart> {
    if records.is_empty() {
        return Vec::new();
    }
    let mut delays: Vec<f64> = Vec::new();
    for r in records {
        for p in &r.phases {
            if !delays.contains(&p.delay_ms) {
                delays.push(p.delay_ms);
            }
        }
    }
    let chart =
        |id: &str, title: &str, axis: &str, pick: &dyn Fn(&crate::ws::Phase) -> Option<f64>| {
            BarChart {
                id: id.into(),
                title: title.into(),
                axis: axis.into(),
                log: true,
                series: delays.iter().map(|d| format!("{d} ms")).collect(),
                rows: records
                    .iter()
                    .map(|r| BarRow {
                        label: format!("{} · {} ({})", r.language, r.library, r.variant),
                        bars: delays
                            .iter()
                            .map(|d| match r.phases.iter().find(|p| p.delay_ms == *d) {
                                None => Bar {
                                    value: None,
                                    mark: Mark::Failed,
                                    label: Some(r.status.name().to_uppercase()),
                                    ..Default::default()
                                },
                                Some(p) => match pick(p) {
                                    None => Bar {
                                        value: None,
                                        mark: Mark::Failed,
                                        label: Some(if p.stats.is_some() {
                                            "not published".into()
                                        } else {
                                            p.status.name().to_uppercase()
                                        }),
                                        ..Default::default()
                                    },
                                    Some(v) if p.status == WsStatus::Ok && !p.client_bound => {
                                        Bar::plain(v)
                                    }
                                    Some(v) => Bar {
                                        value: Some(v),
                                        mark: Mark::Flagged,
                                        label: Some(if p.client_bound {
                                            "client-bound".into()
                                        } else {
                                            p.status.name().into()
                                        }),
                                        ..Default::default()
                                    },
                                },
                            })
                            .collect(),
                    })
                    .collect(),
                caption: "One bar per delay phase. Marked bars had errors or a saturated client; \
                      labelled gaps have no figure."
                    .into(),
                unit: Unit::Plain,
            }
        };
    vec![
        chart(
            "ws-rps",
            "WebSocket echoes per second, per server and delay phase",
            "echoes/s (log scale)",
            &|p| p.stats.as_ref().map(|s| s.rps),
        ),
        chart(
            "ws-p99",
            "WebSocket p99 latency (ms), per server and delay phase",
            "ms (log scale)",
            &|p| p.stats.as_ref().and_then(|s| s.latency_p99_ms),
        ),
    ]
}
