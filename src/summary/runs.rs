//! The every-run table (data only: CSV and the spreadsheet).

use std::collections::HashMap;
use std::sync::Arc;

use super::{Cell, Row, Summary};
use crate::record::{CacheStart, Origin, RunRecord};
use crate::store::Stored;
use langbench_document::columns::{Columns, col};
use langbench_document::{Entry, Kind, Streamed, Table};
use langbench_spawn::Exit;

/// One stored run, with what its cell in the summary says of it.
struct Run<'a> {
    r: &'a RunRecord,
    marks: Marks,
}

/// What a run's cell says of it, taken while the summary is at hand: the
/// table's rows are made later, as the data files are written, from the
/// records alone (crates/document/src/lib.rs's `Streamed`).
#[derive(Clone, Copy, Default)]
struct Marks {
    /// It is its cell's figure.
    best: bool,
    /// Its cell's spread counts it.
    in_spread: bool,
}

impl Marks {
    fn of(r: &RunRecord, cell: Option<&Cell>) -> Marks {
        Marks {
            best: cell
                .and_then(|c| c.best.as_ref())
                .is_some_and(|b| b.session == r.session && b.attempt == r.attempt && r.attempt > 0),
            in_spread: cell.is_some_and(|c| c.in_spread(r)),
        }
    }
}

impl Run<'_> {
    /// Whether it is its cell's figure.
    fn best(&self) -> bool {
        self.marks.best
    }

    /// Whether its cell's spread counts it.
    fn in_spread(&self) -> bool {
        self.marks.in_spread
    }

    fn origin(&self) -> &'static str {
        if self.published() {
            "published"
        } else {
            "measured"
        }
    }

    /// Published editions gave no user/system time.
    fn published(&self) -> bool {
        self.r.origin == Origin::Published
    }

    /// Its CPU seconds (user or system): none for a published run.
    fn cpu(&self, v: f64) -> Entry {
        if self.published() {
            Entry::empty("")
        } else {
            secs(v)
        }
    }
}

fn secs(v: f64) -> Entry {
    Entry::number(v, format!("{v:.3}"))
}

fn text(s: &str) -> Entry {
    Entry::text(s)
}

/// The runs table's columns.
fn columns<'a>() -> Columns<'a, Run<'a>> {
    use Kind::{Count, Kb, Text};
    let s6 = Kind::Seconds { decimals: 6 };
    let int = |v: i64| Entry::int(v, v.to_string());
    let mut c: Columns<Run> = Columns::new();
    c.add(col("Variant", "variant", Text).id(), |x| text(&x.r.variant));
    c.add(col("Language", "language", Text).id(), |x| {
        text(&x.r.language)
    });
    c.add(col("Command Flags", "command_flags", Text).id(), |x| {
        text(&x.r.flags)
    });
    c.add(col("Version", "version", Text), |x| text(&x.r.version));
    c.add(col("Benchmark", "benchmark", Text).id(), |x| {
        text(x.r.bench.name())
    });
    c.add(col("Size", "size", Text), |x| text(&x.r.size));
    c.add(col("N", "n", Count), move |x| int(x.r.n as i64));
    c.add(col("Run", "run", Count).id(), move |x| {
        int(x.r.attempt.into())
    });
    c.add(col("Wall (s)", "wall_s", s6), |x| wall(x.r));
    c.add(col("User (s)", "user_s", s6), |x| x.cpu(x.r.user_s));
    c.add(col("Sys (s)", "sys_s", s6), |x| x.cpu(x.r.sys_s));
    c.add(col("Peak RSS (KB)", "max_rss_kb", Kb), move |x| {
        int(x.r.max_rss_kb as i64)
    });
    c.add(col("Build wall (s)", "build_wall_s", s6), |x| {
        x.r.build_wall_s.map_or(Entry::empty(""), secs)
    });
    c.add(col("Exit code", "exit_code", Count), |x| exit_code(x.r));
    c.add(col("Signal", "signal", Count), |x| signal(x.r));
    c.add(col("Status", "status", Text), |x| text(x.r.status.name()));
    c.add(col("Best", "best", Text), |x| {
        Entry::text(x.best().to_string())
    });
    c.add(col("Cache", "cache", Text), |x| text(cache(x.r)));
    c.add(col("In spread", "in_spread", Text), |x| {
        Entry::text(x.in_spread().to_string())
    });
    c.add(col("Session", "session", Text).id(), |x| text(&x.r.session));
    c.add(col("Finished at", "finished_at", Text), |x| {
        text(&x.r.finished_at)
    });
    c.add(col("Detail", "detail", Text), |x| {
        text(x.r.detail.as_deref().unwrap_or_default())
    });
    c.add(col("Origin", "origin", Text), |x| text(x.origin()));
    c
}

/// No time is no number: a run that did not run (skipped, not installed)
/// or a published "did not finish".
fn wall(r: &RunRecord) -> Entry {
    if r.wall_s == 0.0 && !r.status.has_figures() {
        Entry::empty("")
    } else {
        secs(r.wall_s)
    }
}

fn exit_code(r: &RunRecord) -> Entry {
    match r.exit {
        Some(Exit::Exited(c)) => Entry::int(c.into(), c.to_string()),
        _ => Entry::empty(""),
    }
}

fn signal(r: &RunRecord) -> Entry {
    match r.exit {
        Some(Exit::Signaled(s)) => Entry::int(s.into(), s.to_string()),
        _ => Entry::empty(""),
    }
}

fn cache(r: &RunRecord) -> &'static str {
    match r.cache {
        Some(CacheStart::Cold) => "cold",
        Some(CacheStart::Warm) => "warm",
        None => "",
    }
}

/// Every stored run, with whether it is its cell's figure, how its caches
/// started and whether its cell's spread counts it. Its rows are made as
/// a data file reads them ([`Streamed`]), from the runs of `stored`, which
/// the table shares until it is dropped: held whole, the rows were more
/// than the records (89 MB at 6,500 variants; at 65,000, 7 s of a report,
/// issue #41).
pub(crate) fn table(stored: &Stored, s: &Summary) -> Table {
    // Each row once by variant (a scan per run was quadratic).
    let by_variant: HashMap<&str, &Row> = s.rows.iter().map(|r| (r.variant.as_str(), r)).collect();
    let marks: Vec<Marks> = stored
        .runs
        .iter()
        .map(|r| {
            let cell = by_variant
                .get(r.variant.as_str())
                .and_then(|row| row.cells.get(&r.bench));
            Marks::of(r, cell)
        })
        .collect();
    let records: Vec<Arc<RunRecord>> = stored.runs.clone();
    let rows = move |range: std::ops::Range<usize>| {
        let columns = columns();
        let runs: Vec<Run> = records[range.clone()]
            .iter()
            .zip(&marks[range])
            .map(|(r, &marks)| Run { r, marks })
            .collect();
        columns.rows(&runs)
    };
    Table {
        id: "runs".into(),
        title: "Runs".into(),
        columns: columns().columns(),
        rows: Vec::new(),
        notes: Vec::new(),
        data_only: true,
        labels: 4,
        streamed: Some(Streamed {
            len: stored.runs.len(),
            rows: Arc::new(rows),
        }),
    }
}
