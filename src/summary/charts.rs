//! The summary's charts: total time and peak RAM per variant, and both per
//! benchmark (`langbench_document::export::svg` draws them). A cell without a figure is
//! a labelled gap (`FAILED (exit 1)`, `not run`), never a bar of zero; a
//! figure that is not a plain correct one is a marked bar.

use super::{Row, Summary};
use langbench_document::{Bar, BarChart, BarRow, Mark, Unit};

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
                // Benchmarks: the terminal's "(2 of 3 runs)" counts runs.
                "partial ({} of {} benchmarks)",
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

/// The RAM charts' axis: the tables' unit (KB, as rusage counts RSS) and
/// the binary steps the chart's labels take from it.
const RSS_AXIS: &str = "peak RSS (log scale; KB as in the tables, MB = 1024 KB, GB = 1024 MB)";

const MARKS: &str = "Whiskers: the fastest to the slowest run. Marked bars are not plain correct \
                     figures (a non-zero exit, a wrong output, escaped work); labelled gaps have \
                     no figure (failed, timed out, partial totals, not run).";

/// Total time and peak RAM per variant, and both per benchmark.
pub(crate) fn summary(s: &Summary) -> Vec<BarChart> {
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
        total("total-ram", "Total peak RAM per variant", RSS_AXIS, true),
        by_bench(
            "time-by-benchmark",
            "Time per benchmark (s)",
            "seconds (log scale)",
            false,
        ),
        by_bench("ram-by-benchmark", "Peak RAM per benchmark", RSS_AXIS, true),
    ]
}
