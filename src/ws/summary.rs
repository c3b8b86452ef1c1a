//! The WebSocket table: one row per server and phase, built once as a
//! [`Table`] and rendered by every format of [`crate::export`].

use anyhow::Result;

use super::record::{Phase, WS_RECORDS, WsRecord, WsStatus};
use crate::document::{Column, Document, Entry, Kind, Mark, Show, Table};
use crate::record::Origin;
use crate::store::Store;

/// The newest record of each server, in the order they were run.
pub fn latest(records: &[WsRecord]) -> Vec<&WsRecord> {
    crate::store::Stored::newest_per_cell(records, |r| r.variant.as_str(), |_| None)
}

fn notes(r: &WsRecord, p: &Phase) -> String {
    let mut n = Vec::new();
    if p.status != WsStatus::Ok {
        n.push(p.status.name().to_uppercase());
    }
    if p.client_bound {
        n.push("CLIENT-BOUND".into());
    } else if p.client.as_ref().is_some_and(|c| c.saturated) {
        n.push("client saturated (server at its limit too)".into());
    }
    if p.client.as_ref().is_some_and(|c| c.saturated) {
        n.push("latency client-limited".into());
    }
    // Who lost echoes and connections: with a client that was not
    // saturated (it sent in order, on time, and answered every ping on
    // arrival), unfairness and missed pongs are the server's.
    if let (Some(c), Some(s)) = (&p.client, &p.stats)
        && !c.saturated
    {
        if s.error_count() > 0 && c.echoes_per_conn_min == 0 && c.echoes_per_conn_max > 0 {
            n.push(format!(
                "server-side unfairness: some connections got no echo in the window while others \
                 got {} (the client was not saturated and sent in order)",
                c.echoes_per_conn_max
            ));
        }
        if s.error_samples
            .iter()
            .any(|e| e.contains("No response from ping"))
        {
            n.push(format!(
                "the server closed connections for pongs it did not read in time, although the \
                 client answered all {} pings on arrival: the server's own overload, not the client",
                c.pings
            ));
        }
    }
    let waited =
        p.server_waiting_cores.unwrap_or(0.0) + p.client.as_ref().map_or(0.0, |c| c.runq_wait);
    if waited >= 0.1 {
        n.push(format!(
            "shared machine: server and client waited {waited:.2} cores for CPU others used"
        ));
    }
    if let Some(d) = &p.detail {
        n.push(d.clone());
    }
    if r.handshake_failures > 0 {
        n.push(format!("{} handshakes failed", r.handshake_failures));
    }
    n.join("; ")
}

fn columns() -> Vec<Column> {
    use Kind::*;
    use Show::*;
    let c = Column::new;
    vec![
        c("Variant", "variant", Text, Data),
        c("Server", "server_display", Text, Display),
        c("Server", "server", Text, Data),
        c("Runtime", "runtime_version", Text, Both),
        c("Library", "library", Text, Both),
        c("Connections", "connections", Count, Data),
        c("Delay (ms)", "delay_ms", Number, Both),
        c("Status", "status", Text, Data),
        c("rps", "rps", Decimal { decimals: 2 }, Both),
        c(
            "Server µs/echo",
            "server_cpu_us_per_echo",
            Decimal { decimals: 2 },
            Both,
        ),
        c(
            "Server KB/conn",
            "server_kb_per_connection",
            Decimal { decimals: 2 },
            Both,
        ),
        c(
            "Lat avg (ms)",
            "latency_avg_ms",
            Decimal { decimals: 3 },
            Both,
        ),
        c("p50 (ms)", "latency_p50_ms", Decimal { decimals: 3 }, Both),
        c("p99 (ms)", "latency_p99_ms", Decimal { decimals: 3 }, Both),
        c("max (ms)", "latency_max_ms", Decimal { decimals: 3 }, Both),
        c("Errors", "errors", Count, Both),
        c("Alive", "alive", Count, Both),
        c("Window (s)", "window_s", Decimal { decimals: 3 }, Data),
        c("Server MB", "server_ram_mb", Decimal { decimals: 1 }, Both),
        c(
            "Server MB avg",
            "server_ram_avg_mb",
            Decimal { decimals: 1 },
            Data,
        ),
        c(
            "Server cores",
            "server_cores",
            Decimal { decimals: 3 },
            Both,
        ),
        c(
            "Client cores",
            "client_cores",
            Decimal { decimals: 3 },
            Both,
        ),
        c("Client-bound", "client_bound", Text, Data),
        c(
            "Client µs/echo",
            "client_cpu_us_per_echo",
            Decimal { decimals: 2 },
            Data,
        ),
        c("Client saturated", "client_saturated", Text, Data),
        c(
            "Client busiest thread",
            "client_busiest_thread",
            Decimal { decimals: 3 },
            Data,
        ),
        c(
            "Send late p50 (ms)",
            "client_send_late_p50_ms",
            Decimal { decimals: 3 },
            Data,
        ),
        c("Echoes/conn min", "echoes_per_connection_min", Count, Data),
        c("Echoes/conn max", "echoes_per_connection_max", Count, Data),
        c("Server CPUs", "server_cpus", Text, Data),
        c("Client CPUs", "client_cpus", Text, Data),
        c("Client hosts", "client_hosts", Count, Data),
        c(
            "Server waiting cores",
            "server_waiting_cores",
            Decimal { decimals: 3 },
            Data,
        ),
        c(
            "Client run-queue wait",
            "client_runq_wait",
            Decimal { decimals: 3 },
            Data,
        ),
        c("Server exit", "server_exit", Text, Data),
        c("Server peak RSS (KB)", "server_max_rss_kb", Kb, Data),
        c("Notes", "notes", Text, Display),
        c("Detail", "detail", Text, Data),
    ]
}

/// A figure that may be missing (not published, or the phase had none).
fn opt(v: Option<f64>, text: impl Fn(f64) -> String) -> Entry {
    match v {
        Some(v) => Entry::number(v, text(v)),
        None => Entry::empty("-"),
    }
}

fn f2(v: f64) -> String {
    format!("{v:.2}")
}

/// Server CPU µs per echo: the server's CPU time in the window / echoes
/// (the cost figure that holds even where throughput is capped by the
/// kernel or the client).
pub fn server_us_per_echo(p: &Phase) -> Option<f64> {
    let s = p.stats.as_ref()?;
    let cores = p.server_cores?;
    (s.echoes > 0 && p.window_s > 0.0).then(|| cores * p.window_s * 1e6 / s.echoes as f64)
}

/// Server KB per connection: (peak RSS in the window − RSS before any
/// connection) / connections alive.
pub fn server_kb_per_conn(r: &WsRecord, p: &Phase) -> Option<f64> {
    let idle = r.server_rss_idle_kb?;
    let peak = p.server_rss_peak_kb?;
    let alive = p.stats.as_ref()?.alive.unwrap_or(r.opened);
    (alive > 0).then(|| peak.saturating_sub(idle) as f64 / alive as f64)
}

fn cpu_list(c: &[usize]) -> String {
    c.iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Server CPUs, client CPUs, client hosts.
fn placement(r: &WsRecord) -> Vec<Entry> {
    match &r.placement {
        Some(p) => vec![
            Entry::text(cpu_list(&p.server_cpus)),
            Entry::text(cpu_list(&p.client_cpus)),
            Entry::int(p.client_hosts as i64, p.client_hosts.to_string()),
        ],
        None => vec![Entry::empty(""), Entry::empty(""), Entry::empty("")],
    }
}

/// The ws table of `records` (one record per server, newest first chosen by
/// the caller).
pub fn table(records: &[&WsRecord]) -> Table {
    let mut rows = Vec::new();
    let mut table_notes = Vec::new();
    for r in records {
        let exit = r.server_exit.map(|e| e.to_string()).unwrap_or_default();
        let head = |delay: Entry, status: &str| {
            vec![
                Entry::text(&r.variant),
                Entry::text(format!("{} ({})", r.language, r.variant)),
                Entry::text(&r.language),
                Entry::text(&r.version),
                Entry::text(&r.library),
                Entry::int(r.connections as i64, r.connections.to_string()),
                delay,
                Entry::text(status),
            ]
        };
        let tail = |notes: String, detail: Option<String>| {
            vec![
                Entry::text(&exit),
                match r.server_max_rss_kb {
                    Some(k) => Entry::int(k as i64, k.to_string()),
                    None => Entry::empty(""),
                },
                Entry::text(notes),
                Entry::text(detail.unwrap_or_default()),
            ]
        };
        if r.phases.is_empty() {
            let why = r.detail.clone();
            let mut row = head(Entry::empty("-"), r.status.name());
            row.push(
                Entry::empty(r.status.name().to_uppercase()).marked(Mark::Failed, why.clone()),
            );
            row.extend((0..13).map(|_| Entry::empty("-")));
            row.push(Entry::empty(""));
            row.extend((0..6).map(|_| Entry::empty("")));
            row.extend(placement(r));
            row.extend([Entry::empty(""), Entry::empty("")]);
            row.extend(tail(why.clone().unwrap_or_default(), why.clone()));
            if let Some(w) = &why {
                table_notes.push(format!("{}: {}: {w}", r.variant, r.status.name()));
            }
            rows.push(row);
            continue;
        }
        for p in &r.phases {
            let mut row = head(
                Entry::number(p.delay_ms, format!("{}", p.delay_ms)),
                p.status.name(),
            );
            let mark = if p.status == WsStatus::Ok && !p.client_bound {
                Mark::Plain
            } else {
                Mark::Flagged
            };
            let why = Some(notes(r, p)).filter(|n| !n.is_empty());
            let limited = p.client.as_ref().is_some_and(|c| c.saturated);
            // Latencies measured by a saturated client describe its own
            // queueing as much as the server's.
            let lat = |c: Entry| {
                if limited {
                    c.marked(
                        Mark::Flagged,
                        Some("client-limited: the client saturated in this phase".into()),
                    )
                } else {
                    c
                }
            };
            match &p.stats {
                Some(s) => {
                    row.push(
                        Entry::number(s.rps, format!("{:.0}", s.rps)).marked(mark, why.clone()),
                    );
                    row.push(opt(server_us_per_echo(p), f2));
                    row.push(opt(server_kb_per_conn(r, p), |k| format!("{k:.1}")));
                    row.push(lat(Entry::number(s.latency_mean_ms, f2(s.latency_mean_ms))));
                    row.push(lat(opt(s.latency_p50_ms, f2)));
                    row.push(lat(opt(s.latency_p99_ms, f2)));
                    row.push(lat(Entry::number(s.latency_max_ms, f2(s.latency_max_ms))));
                    row.push(opt(s.errors.map(|e| e as f64), |e| format!("{e:.0}")));
                    row.push(opt(s.alive.map(|a| a as f64), |a| format!("{a:.0}")));
                }
                None => {
                    row.push(
                        Entry::empty(p.status.name().to_uppercase())
                            .marked(Mark::Failed, why.clone()),
                    );
                    row.extend((0..8).map(|_| Entry::empty("-")));
                }
            }
            row.push(if p.window_s > 0.0 {
                Entry::number(p.window_s, format!("{:.3}", p.window_s))
            } else {
                Entry::empty("")
            });
            let mb = |kb: Option<u64>| kb.map(|k| k as f64 / 1024.0);
            row.push(opt(mb(p.server_rss_peak_kb), |m| format!("{m:.0}")));
            row.push(opt(mb(p.server_rss_avg_kb), |m| format!("{m:.0}")));
            row.push(opt(p.server_cores, f2));
            row.push(opt(p.client_cores, f2));
            row.push(Entry::text(p.client_bound.to_string()));
            let cl = p.client.as_ref();
            row.push(opt(cl.and_then(|c| c.cpu_us_per_echo), f2));
            row.push(match cl {
                Some(c) => Entry::text(c.saturated.to_string()),
                None => Entry::empty(""),
            });
            row.push(opt(cl.map(|c| c.busiest_thread), f2));
            row.push(opt(cl.map(|c| c.send_late_p50_ms), f2));
            row.push(opt(cl.map(|c| c.echoes_per_conn_min as f64), |v| {
                format!("{v:.0}")
            }));
            row.push(opt(cl.map(|c| c.echoes_per_conn_max as f64), |v| {
                format!("{v:.0}")
            }));
            row.extend(placement(r));
            row.push(opt(p.server_waiting_cores, |v| format!("{v:.3}")));
            row.push(opt(cl.map(|c| c.runq_wait), |v| format!("{v:.3}")));
            if let Some(w) = &why
                && mark != Mark::Plain
            {
                table_notes.push(format!("{} · delay {} ms: {w}", r.variant, p.delay_ms));
            }
            row.extend(tail(notes(r, p), p.detail.clone().or(r.detail.clone())));
            rows.push(row);
        }
    }
    Table {
        id: "ws-summary".into(),
        title: "WebSocket echo".into(),
        columns: columns(),
        rows,
        notes: table_notes.into_iter().map(Into::into).collect(),
        data_only: false,
        labels: 2,
    }
}

/// Facts shown above the ws table.
pub fn meta(records: &[&WsRecord]) -> Vec<(String, String)> {
    let mut meta = Vec::new();
    if let Some(r) = records.first() {
        if r.origin == Origin::Published {
            meta.push((
                "Figures".into(),
                "as published (measured by hand elsewhere; blank = not published)".into(),
            ));
        }
        meta.push((
            "Load".into(),
            format!(
                "{} connections, each: binary + text echo, then sleep for the phase's delay; \
                 {} s warm-up, then the measured window; client and server {}",
                r.connections,
                r.warmup_s,
                match &r.placement {
                    Some(p) if !p.server_started => format!(
                        "on separate machines or processes ({} client process{}, server started \
                         elsewhere{})",
                        p.client_hosts,
                        if p.client_hosts == 1 { "" } else { "es" },
                        if p.server_pid.is_none() {
                            "; no --server-pid: server columns blank"
                        } else {
                            ""
                        }
                    ),
                    Some(p) if !p.client_cpus.is_empty() => format!(
                        "on separate CPUs: server on CPU {}, client on CPU {} ({} thread{})",
                        cpu_list(&p.server_cpus),
                        cpu_list(&p.client_cpus),
                        p.client_threads,
                        if p.client_threads == 1 { "" } else { "s" }
                    ),
                    _ if r.pinned => "on separate cores (--pin)".into(),
                    _ => "sharing all cores".into(),
                }
            ),
        ));
    }
    meta.push((
        "Columns".into(),
        "rps counts every echo (binary and text) in the window; latency is send to matching \
         echo; Server µs/echo is the server's CPU time (user + system, whole process tree) in the \
         window per echo, the cost ranking that holds where the client or the kernel caps \
         throughput; Server KB/conn is (peak RSS in the window − RSS before connecting) per \
         connection; Server MB is the peak RSS of the server's process tree in the window; \
         cores are CPU seconds per second. CLIENT-BOUND: the client saturated while the server \
         still had CPU to spare (rps is the client's limit); latencies of a phase where the \
         client saturated are marked client-limited"
            .into(),
    ));
    meta
}

/// The ws results as a document.
pub fn document(records: &[&WsRecord]) -> Document {
    Document {
        title: "langbench ws-echo results".into(),
        meta: meta(records),
        tables: vec![table(records)],
        charts: super::charts::ws(records),
        ..Default::default()
    }
}

/// The table of `records` on the terminal (after `ws`, `ws merge`, `ws
/// --target` and `run --bench ws-echo`).
pub fn print(records: &[WsRecord]) {
    let shown: Vec<&WsRecord> = records.iter().collect();
    println!("{}", crate::export::terminal::document(&document(&shown)));
}

/// Reads `ws.jsonl` of a store (no file: no records).
pub fn load(store: &Store) -> Result<(Vec<WsRecord>, Vec<String>)> {
    let mut warnings = Vec::new();
    let records: Vec<WsRecord> = store.read(WS_RECORDS, &mut warnings)?;
    Ok((records, warnings))
}

/// One progress line per finished phase.
pub fn phase_line(id: &str, p: &Phase) -> String {
    let f = |v: Option<f64>| v.map(f2).unwrap_or_else(|| "-".into());
    match &p.stats {
        Some(s) => format!(
            "{id} · delay {} ms: {:.0} rps, latency avg {:.2} / p99 {} / max {:.2} ms, {} errors, server {} MB {} cores, client {} cores{}",
            p.delay_ms,
            s.rps,
            s.latency_mean_ms,
            f(s.latency_p99_ms),
            s.latency_max_ms,
            s.error_count(),
            p.server_rss_peak_kb
                .map(|k| format!("{:.0}", k as f64 / 1024.0))
                .unwrap_or_else(|| "-".into()),
            f(p.server_cores),
            f(p.client_cores),
            if p.client_bound {
                " (client-bound)"
            } else {
                ""
            }
        ),
        None => format!(
            "{id} · delay {} ms: {} {}",
            p.delay_ms,
            p.status.name(),
            p.detail.clone().unwrap_or_default()
        ),
    }
}
