//! The every-run table (data only: CSV and the spreadsheet).

use super::{Row, Summary};
use crate::document::{Column, Entry, Kind, Show, Table};
use crate::record::Origin;
use crate::spawn::Exit;
use crate::store::Stored;

fn columns() -> Vec<Column> {
    use Kind::*;
    let c = |h: &str, k: &str, kind| Column::new(h, k, kind, Show::Both);
    let s6 = Seconds { decimals: 6 };
    vec![
        c("Variant", "variant", Text),
        c("Language", "language", Text),
        c("Command Flags", "command_flags", Text),
        c("Version", "version", Text),
        c("Benchmark", "benchmark", Text),
        c("Size", "size", Text),
        c("N", "n", Count),
        c("Run", "run", Count),
        c("Wall (s)", "wall_s", s6),
        c("User (s)", "user_s", s6),
        c("Sys (s)", "sys_s", s6),
        c("Peak RSS (KB)", "max_rss_kb", Kb),
        c("Build wall (s)", "build_wall_s", s6),
        c("Exit code", "exit_code", Count),
        c("Signal", "signal", Count),
        c("Status", "status", Text),
        c("Best", "best", Text),
        c("Cache", "cache", Text),
        c("In spread", "in_spread", Text),
        c("Session", "session", Text),
        c("Finished at", "finished_at", Text),
        c("Detail", "detail", Text),
        c("Origin", "origin", Text),
    ]
}

/// Every stored run, with whether it is its cell's figure, how its caches
/// started and whether its cell's spread counts it.
pub fn table(stored: &Stored, s: &Summary) -> Table {
    let secs = |v: f64| Entry::number(v, format!("{v:.3}"));
    // Each row once by variant (a scan per run was quadratic).
    let by_variant: std::collections::HashMap<&str, &Row> =
        s.rows.iter().map(|r| (r.variant.as_str(), r)).collect();
    let rows = stored
        .runs
        .iter()
        .map(|r| {
            let cell = by_variant
                .get(r.variant.as_str())
                .and_then(|row| row.cells.get(&r.bench));
            let best = cell
                .and_then(|c| c.best.as_ref())
                .is_some_and(|b| b.session == r.session && b.attempt == r.attempt && r.attempt > 0);
            let in_spread = cell.is_some_and(|c| c.in_spread(r));
            let (code, signal) = match r.exit {
                Some(Exit::Exited(c)) => (Entry::int(c.into(), c.to_string()), Entry::empty("")),
                Some(Exit::Signaled(s)) => (Entry::empty(""), Entry::int(s.into(), s.to_string())),
                None => (Entry::empty(""), Entry::empty("")),
            };
            let published = r.origin == Origin::Published;
            // Published editions gave no user/system time.
            let cpu = |v: f64| if published { Entry::empty("") } else { secs(v) };
            vec![
                Entry::text(&r.variant),
                Entry::text(&r.language),
                Entry::text(&r.flags),
                Entry::text(&r.version),
                Entry::text(r.bench.name()),
                Entry::text(&r.size),
                Entry::int(r.n as i64, r.n.to_string()),
                Entry::int(r.attempt.into(), r.attempt.to_string()),
                // No time is no number: a run that did not run (skipped,
                // not installed) or a published "did not finish".
                if r.wall_s == 0.0 && !r.status.has_figures() {
                    Entry::empty("")
                } else {
                    secs(r.wall_s)
                },
                cpu(r.user_s),
                cpu(r.sys_s),
                Entry::int(r.max_rss_kb as i64, r.max_rss_kb.to_string()),
                r.build_wall_s.map(secs).unwrap_or_else(|| Entry::empty("")),
                code,
                signal,
                Entry::text(r.status.name()),
                Entry::text(best.to_string()),
                Entry::text(match r.cache {
                    Some(crate::record::CacheStart::Cold) => "cold",
                    Some(crate::record::CacheStart::Warm) => "warm",
                    None => "",
                }),
                Entry::text(in_spread.to_string()),
                Entry::text(&r.session),
                Entry::text(&r.finished_at),
                Entry::text(r.detail.clone().unwrap_or_default()),
                Entry::text(if published { "published" } else { "measured" }),
            ]
        })
        .collect();
    Table {
        id: "runs".into(),
        title: "Runs".into(),
        columns: columns(),
        rows,
        notes: Vec::new(),
        data_only: true,
        labels: 4,
    }
}
