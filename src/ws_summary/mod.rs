//! The WebSocket table: one row per server and phase, built once as a
//! [`Table`] and rendered by every format of [`langbench_document::export`].
//!
//! Its face: [`load`], [`latest`] and [`document`] (for the derived files,
//! `compare`'s editions and `merge`), and `print` and [`phase_line`] (the
//! ws commands' terminal output); the rest is its inside.

mod charts;

use anyhow::Result;

use crate::record::Origin;
use crate::store::Store;
use crate::ws_record::{ClientLoad, Phase, WS_RECORDS, WindowStats, WsRecord, WsStatus};
use langbench_document::columns::{Columns, col};
use langbench_document::{Document, Entry, Kind, Mark, Note, Table};

/// The newest record of each server, in the order they were run.
pub(crate) fn latest(records: &[WsRecord]) -> Vec<&WsRecord> {
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
fn server_us_per_echo(p: &Phase) -> Option<f64> {
    let s = p.stats.as_ref()?;
    let cores = p.server_cores?;
    (s.echoes > 0 && p.window_s > 0.0).then(|| cores * p.window_s * 1e6 / s.echoes as f64)
}

/// Server KB per connection: (peak RSS in the window − RSS before any
/// connection) / connections alive.
fn server_kb_per_conn(r: &WsRecord, p: &Phase) -> Option<f64> {
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

/// One row of the table: a server's phase, or a server without phases
/// (it failed before any).
struct Line<'a> {
    r: &'a WsRecord,
    p: Option<&'a Phase>,
    /// Why the row is not a plain figure: the record's detail for a
    /// server without phases, else the phase's notes (if any).
    why: Option<String>,
}

impl<'a> Line<'a> {
    /// `f` of the phase, or `-` for a server without phases.
    fn or_dash(&self, f: impl Fn(&'a Phase) -> Entry) -> Entry {
        self.p.map_or(Entry::empty("-"), f)
    }

    /// `f` of the phase, or blank for a server without phases.
    fn or_blank(&self, f: impl Fn(&'a Phase) -> Entry) -> Entry {
        self.p.map_or(Entry::empty(""), f)
    }

    /// `f` of the phase's window figures, or `-` where it has none.
    fn stats(&self, f: impl Fn(&'a WindowStats) -> Entry) -> Entry {
        self.p
            .and_then(|p| p.stats.as_ref())
            .map_or(Entry::empty("-"), f)
    }

    /// A latency: marked where the client saturated (then it describes
    /// the client's own queueing as much as the server's).
    fn latency(&self, f: impl Fn(&'a WindowStats) -> Entry) -> Entry {
        let limited = self
            .p
            .is_some_and(|p| p.client.as_ref().is_some_and(|c| c.saturated));
        let c = self.stats(f);
        if limited && self.p.is_some_and(|p| p.stats.is_some()) {
            c.marked(
                Mark::Flagged,
                Some("client-limited: the client saturated in this phase".into()),
            )
        } else {
            c
        }
    }

    /// The client's figure of the phase (`-` without a client, blank for
    /// a server without phases).
    fn client(&self, f: impl Fn(&ClientLoad) -> f64, text: fn(f64) -> String) -> Entry {
        self.or_blank(|p| opt(p.client.as_ref().map(&f), text))
    }

    /// Whether the phase is a plain figure.
    fn mark(&self) -> Mark {
        match self.p {
            Some(p) if p.status == WsStatus::Ok && !p.client_bound => Mark::Plain,
            _ => Mark::Flagged,
        }
    }

    /// The rps: the figure, or the failure's status.
    fn rps(&self) -> Entry {
        let why = self.why.clone();
        match self.p {
            None => Entry::empty(self.r.status.name().to_uppercase()).marked(Mark::Failed, why),
            Some(p) => match &p.stats {
                Some(s) => Entry::number(s.rps, format!("{:.0}", s.rps)).marked(self.mark(), why),
                None => Entry::empty(p.status.name().to_uppercase()).marked(Mark::Failed, why),
            },
        }
    }
}

/// The table's lines: a line per phase of each record, one for a record
/// without phases.
fn lines<'a>(records: &[&'a WsRecord]) -> Vec<Line<'a>> {
    let mut lines = Vec::new();
    for &r in records {
        if r.phases.is_empty() {
            let why = r.detail.clone();
            lines.push(Line { r, p: None, why });
        }
        for p in &r.phases {
            let why = Some(notes(r, p)).filter(|n| !n.is_empty());
            lines.push(Line { r, p: Some(p), why });
        }
    }
    lines
}

/// The ws table's columns over its lines.
fn columns<'a>() -> Columns<'a, Line<'a>> {
    let mut c = Columns::new();
    head_columns(&mut c);
    figure_columns(&mut c);
    client_columns(&mut c);
    tail_columns(&mut c);
    c
}

const D1: Kind = Kind::Decimal { decimals: 1 };
const D2: Kind = Kind::Decimal { decimals: 2 };
const D3: Kind = Kind::Decimal { decimals: 3 };

/// The server and the phase.
fn head_columns<'a>(c: &mut Columns<'a, Line<'a>>) {
    use Kind::{Count, Number, Text};
    c.add(col("Variant", "variant", Text).data().id(), |x| {
        Entry::text(&x.r.variant)
    });
    c.add(col("Server", "server_display", Text).display().id(), |x| {
        Entry::text(format!("{} ({})", x.r.language, x.r.variant))
    });
    c.add(col("Server", "server", Text).data(), |x| {
        Entry::text(&x.r.language)
    });
    c.add(col("Runtime", "runtime_version", Text), |x| {
        Entry::text(&x.r.version)
    });
    c.add(col("Library", "library", Text), |x| {
        Entry::text(&x.r.library)
    });
    c.add(col("Connections", "connections", Count).data(), |x| {
        Entry::int(x.r.connections as i64, x.r.connections.to_string())
    });
    c.add(col("Delay (ms)", "delay_ms", Number).id(), |x| {
        x.or_dash(|p| Entry::number(p.delay_ms, format!("{}", p.delay_ms)))
    });
    c.add(col("Status", "status", Text).data(), |x| {
        Entry::text(x.p.map_or(x.r.status.name(), |p| p.status.name()))
    });
}

/// The phase's figures: throughput, cost, latency, errors, RAM, cores.
fn figure_columns<'a>(c: &mut Columns<'a, Line<'a>>) {
    use Kind::Count;
    let mb = |kb: Option<u64>| opt(kb.map(|k| k as f64 / 1024.0), |m| format!("{m:.0}"));
    let f0 = |v: f64| format!("{v:.0}");
    c.add(col("rps", "rps", D2), |x| x.rps());
    c.add(col("Server µs/echo", "server_cpu_us_per_echo", D2), |x| {
        x.or_dash(|p| opt(server_us_per_echo(p), f2))
    });
    c.add(col("Server KB/conn", "server_kb_per_connection", D2), |x| {
        x.or_dash(|p| opt(server_kb_per_conn(x.r, p), |k| format!("{k:.1}")))
    });
    c.add(col("Lat avg (ms)", "latency_avg_ms", D3), |x| {
        x.latency(|s| Entry::number(s.latency_mean_ms, f2(s.latency_mean_ms)))
    });
    c.add(col("p50 (ms)", "latency_p50_ms", D3), |x| {
        x.latency(|s| opt(s.latency_p50_ms, f2))
    });
    c.add(col("p99 (ms)", "latency_p99_ms", D3), |x| {
        x.latency(|s| opt(s.latency_p99_ms, f2))
    });
    c.add(col("max (ms)", "latency_max_ms", D3), |x| {
        x.latency(|s| Entry::number(s.latency_max_ms, f2(s.latency_max_ms)))
    });
    c.add(col("Errors", "errors", Count), move |x| {
        x.stats(|s| opt(s.errors.map(|e| e as f64), f0))
    });
    c.add(col("Alive", "alive", Count), move |x| {
        x.stats(|s| opt(s.alive.map(|a| a as f64), f0))
    });
    c.add(col("Window (s)", "window_s", D3).data(), |x| {
        x.or_dash(|p| match p.window_s {
            w if w > 0.0 => Entry::number(w, format!("{w:.3}")),
            _ => Entry::empty(""),
        })
    });
    c.add(col("Server MB", "server_ram_mb", D1), move |x| {
        x.or_dash(|p| mb(p.server_rss_peak_kb))
    });
    c.add(
        col("Server MB avg", "server_ram_avg_mb", D1).data(),
        move |x| x.or_dash(|p| mb(p.server_rss_avg_kb)),
    );
    c.add(col("Server cores", "server_cores", D3), |x| {
        x.or_dash(|p| opt(p.server_cores, f2))
    });
    c.add(col("Client cores", "client_cores", D3), |x| {
        x.or_dash(|p| opt(p.client_cores, f2))
    });
}

/// The client's side of the phase and where each side ran.
fn client_columns<'a>(c: &mut Columns<'a, Line<'a>>) {
    use Kind::{Count, Text};
    let f0 = |v: f64| format!("{v:.0}");
    let f3 = |v: f64| format!("{v:.3}");
    c.add(col("Client-bound", "client_bound", Text).data(), |x| {
        x.or_blank(|p| Entry::text(p.client_bound.to_string()))
    });
    c.add(
        col("Client µs/echo", "client_cpu_us_per_echo", D2).data(),
        |x| x.or_blank(|p| opt(p.client.as_ref().and_then(|c| c.cpu_us_per_echo), f2)),
    );
    c.add(
        col("Client saturated", "client_saturated", Text).data(),
        |x| {
            x.or_blank(|p| match &p.client {
                Some(c) => Entry::text(c.saturated.to_string()),
                None => Entry::empty(""),
            })
        },
    );
    c.add(
        col("Client busiest thread", "client_busiest_thread", D3).data(),
        |x| x.client(|c| c.busiest_thread, f2),
    );
    c.add(
        col("Send late p50 (ms)", "client_send_late_p50_ms", D3).data(),
        |x| x.client(|c| c.send_late_p50_ms, f2),
    );
    c.add(
        col("Echoes/conn min", "echoes_per_connection_min", Count).data(),
        move |x| x.client(|c| c.echoes_per_conn_min as f64, f0),
    );
    c.add(
        col("Echoes/conn max", "echoes_per_connection_max", Count).data(),
        move |x| x.client(|c| c.echoes_per_conn_max as f64, f0),
    );
    c.add(col("Server CPUs", "server_cpus", Text).data(), |x| {
        x.r.placement
            .as_ref()
            .map_or(Entry::empty(""), |p| Entry::text(cpu_list(&p.server_cpus)))
    });
    c.add(col("Client CPUs", "client_cpus", Text).data(), |x| {
        x.r.placement
            .as_ref()
            .map_or(Entry::empty(""), |p| Entry::text(cpu_list(&p.client_cpus)))
    });
    c.add(col("Client hosts", "client_hosts", Count).data(), |x| {
        x.r.placement.as_ref().map_or(Entry::empty(""), |p| {
            Entry::int(p.client_hosts as i64, p.client_hosts.to_string())
        })
    });
    c.add(
        col("Server waiting cores", "server_waiting_cores", D3).data(),
        move |x| x.or_blank(|p| opt(p.server_waiting_cores, f3)),
    );
    c.add(
        col("Client run-queue wait", "client_runq_wait", D3).data(),
        move |x| x.client(|c| c.runq_wait, f3),
    );
}

/// How the server ended, its peak RAM, and what the row's notes say.
fn tail_columns<'a>(c: &mut Columns<'a, Line<'a>>) {
    use Kind::{Kb, Text};
    c.add(col("Server exit", "server_exit", Text).data(), |x| {
        Entry::text(x.r.server_exit.map(|e| e.to_string()).unwrap_or_default())
    });
    c.add(
        col("Server peak RSS (KB)", "server_max_rss_kb", Kb).data(),
        |x| match x.r.server_max_rss_kb {
            Some(k) => Entry::int(k as i64, k.to_string()),
            None => Entry::empty(""),
        },
    );
    c.add(col("Notes", "notes", Text).display(), |x| {
        Entry::text(x.p.map_or_else(|| x.why.clone().unwrap_or_default(), |p| notes(x.r, p)))
    });
    c.add(col("Detail", "detail", Text).data(), |x| {
        let detail = x.p.and_then(|p| p.detail.clone()).or(x.r.detail.clone());
        Entry::text(detail.unwrap_or_default())
    });
}

/// The lines under the table: why a server failed, or a phase is flagged.
fn table_notes(lines: &[Line]) -> Vec<Note> {
    lines
        .iter()
        .filter_map(|x| {
            let w = x.why.as_ref()?;
            match x.p {
                None => Some(format!("{}: {}: {w}", x.r.variant, x.r.status.name())),
                Some(p) if x.mark() != Mark::Plain => {
                    Some(format!("{} · delay {} ms: {w}", x.r.variant, p.delay_ms))
                }
                Some(_) => None,
            }
        })
        .map(Note::from)
        .collect()
}

/// The ws table of `records` (one record per server, newest first chosen by
/// the caller).
fn table(records: &[&WsRecord]) -> Table {
    let lines = lines(records);
    let columns = columns();
    Table {
        id: "ws-summary".into(),
        title: "WebSocket echo".into(),
        columns: columns.columns(),
        rows: columns.rows(&lines),
        notes: table_notes(&lines),
        data_only: false,
        labels: 2,
        streamed: None,
    }
}

/// Facts shown above the ws table.
fn meta(records: &[&WsRecord]) -> Vec<(String, String)> {
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
pub(crate) fn document(records: &[&WsRecord]) -> Document {
    Document {
        title: "langbench ws-echo results".into(),
        meta: meta(records),
        tables: vec![table(records)],
        charts: charts::ws(records),
        ..Default::default()
    }
}

/// The table of `records` on the terminal (after `ws`, `ws merge`, `ws
/// --target` and `run --bench ws-echo`).
pub(crate) fn print(records: &[WsRecord]) {
    let shown: Vec<&WsRecord> = records.iter().collect();
    println!(
        "{}",
        langbench_document::export::terminal::document(&document(&shown))
    );
}

/// Reads `ws.jsonl` of a store (no file: no records).
pub(crate) fn load(store: &Store) -> Result<(Vec<WsRecord>, Vec<String>)> {
    let mut warnings = Vec::new();
    let records: Vec<WsRecord> = store.read(WS_RECORDS, &mut warnings)?;
    Ok((records, warnings))
}

/// One progress line per finished phase.
pub(crate) fn phase_line(id: &str, p: &Phase) -> String {
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
