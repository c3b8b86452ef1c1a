//! Load from more than one machine: `langbench ws-client` (the load client
//! alone, against a server started elsewhere, one JSON report), `langbench
//! ws merge` (N reports of one target → one record), and `langbench ws
//! --target` (one client here, stored directly).
//!
//! Phases line up across hosts through a shared `--start-at` wall-clock
//! time: phase i begins at start + i·(warm-up + duration) on every host
//! (hosts need synchronised clocks, NTP's few ms are plenty against 10 s
//! windows). Merging sums echoes and rates and merges the latency
//! histograms (carried as non-empty buckets), so percentiles are over all
//! echoes of all hosts.

use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result, bail, ensure};
use serde::{Deserialize, Serialize};

use super::{blank_record, settle};
use crate::store::Store;
use crate::ws_load::client::{self, Client, Target, buckets, from_buckets};
use crate::ws_load::drive::{self, Pid};
use crate::ws_options::Options;
use crate::ws_record::{ClientLoad, Placement, WindowStats};
use crate::ws_record::{Phase, WS_RECORDS, WsRecord, WsStatus};

const REPORT_SCHEMA: u32 = 1;

/// One `ws-client` process's result.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClientReport {
    pub schema: u32,
    pub host: String,
    pub target: String,
    pub connections: usize,
    pub opened: usize,
    pub handshake_failures: u64,
    #[serde(default)]
    pub handshake_samples: Vec<String>,
    /// Why connections were lost outside the measured windows (a few).
    #[serde(default)]
    pub lost_samples: Vec<String>,
    pub warmup_s: f64,
    pub duration_s: f64,
    /// The shared start (RFC 3339), if any.
    pub start_at: Option<String>,
    pub client_cpus: Vec<usize>,
    pub client_threads: usize,
    /// Server figures, if this host could see the server (`--server-pid`).
    pub server_pid: Option<i32>,
    pub server_cpus: Vec<usize>,
    pub server_rss_idle_kb: Option<u64>,
    pub phases: Vec<ReportPhase>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReportPhase {
    pub phase: Phase,
    pub client_cpu_s: f64,
    pub server_cpu_s: Option<f64>,
    /// Latency histogram: [µs, count] of each non-empty bucket.
    pub latency: Vec<[u64; 2]>,
    /// Send lateness histogram, [µs + 1, count].
    pub late: Vec<[u64; 2]>,
}

/// Parses `--start-at`: RFC 3339, or Unix seconds, or `+S` (S seconds from
/// now).
fn parse_start(s: &str) -> Result<SystemTime> {
    if let Some(rel) = s.strip_prefix('+') {
        let secs: f64 = rel.parse().with_context(|| format!("--start-at {s}"))?;
        return Ok(SystemTime::now() + Duration::from_secs_f64(secs));
    }
    if let Ok(unix) = s.parse::<f64>() {
        return Ok(SystemTime::UNIX_EPOCH + Duration::from_secs_f64(unix));
    }
    let t = chrono::DateTime::parse_from_rfc3339(s)
        .with_context(|| format!("--start-at {s}: expected RFC 3339, Unix seconds or +SECONDS"))?;
    Ok(SystemTime::from(t))
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

/// Runs the load client alone against `target` through every phase.
/// `client_cpus`: the CPUs for its threads (empty: unpinned).
fn run_client(
    target: &Target,
    opts: &Options,
    client_cpus: &[usize],
    server_pid: Option<i32>,
    start: Option<SystemTime>,
    progress: &dyn Fn(String),
) -> Result<ClientReport> {
    super::ensure_nofile(opts.connections)?;
    if let Some(p) = server_pid {
        ensure!(
            std::path::Path::new(&format!("/proc/{p}")).exists(),
            "--server-pid {p}: no such process here"
        );
    }
    if !client_cpus.is_empty() {
        client::pin_thread(client_cpus);
    }
    let idle = server_pid.map(|p| crate::ws_sample::sample_tree(p).rss_kb);
    progress(format!(
        "opening {} connections to {}",
        opts.connections,
        target.url()
    ));
    let mut c = Client::open(target, &drive::client_options(opts, client_cpus));
    let (opened, failures) = (c.connected(), c.handshake_failures());
    if let Some(s) = start
        && s < SystemTime::now()
    {
        progress("--start-at is already past: phases start now".into());
    }
    let server_cpus = server_pid.and_then(drive::affinity).unwrap_or_default();
    let mut server = Pid(server_pid);
    let results = drive::phases(
        &mut c,
        opts,
        start,
        &mut server,
        server_cpus.len(),
        progress,
        &|p| progress(crate::ws_summary::phase_line("target", p)),
    );
    let report = ClientReport {
        schema: REPORT_SCHEMA,
        host: hostname(),
        target: target.url(),
        connections: opts.connections,
        opened,
        handshake_failures: failures,
        handshake_samples: c.handshake_samples(),
        lost_samples: c.lost_samples(),
        warmup_s: opts.warmup.as_secs_f64(),
        duration_s: opts.duration.as_secs_f64(),
        start_at: start.map(|s| chrono::DateTime::<chrono::Utc>::from(s).to_rfc3339()),
        client_cpus: client_cpus.to_vec(),
        client_threads: c.threads(),
        server_pid,
        server_cpus,
        server_rss_idle_kb: idle,
        phases: results
            .into_iter()
            .map(|r| ReportPhase {
                latency: buckets(&r.latency),
                late: buckets(&r.late),
                client_cpu_s: r.client_cpu_s,
                server_cpu_s: r.server_cpu_s,
                phase: r.phase,
            })
            .collect(),
    };
    c.stop();
    Ok(report)
}

/// Combines the reports of N client processes driving one target into one
/// record named `name`.
fn merge(reports: &[ClientReport], name: &str, opts: &Options) -> Result<WsRecord> {
    ensure!(!reports.is_empty(), "nothing to merge");
    let first = &reports[0];
    for r in reports {
        ensure!(
            r.schema == REPORT_SCHEMA,
            "{}: report schema {} (this langbench reads {REPORT_SCHEMA})",
            r.host,
            r.schema
        );
        ensure!(
            r.target == first.target,
            "reports of different targets: {} and {}",
            first.target,
            r.target
        );
        let delays = |r: &ClientReport| {
            r.phases
                .iter()
                .map(|p| p.phase.delay_ms)
                .collect::<Vec<_>>()
        };
        ensure!(
            delays(r) == delays(first),
            "reports with different phases: {:?} and {:?}",
            delays(first),
            delays(r)
        );
        if reports.len() > 1 && r.start_at.is_none() {
            bail!(
                "{}: report without --start-at: its windows need not line up with the others",
                r.host
            );
        }
    }
    // The host that could see the server gives the server's figures.
    let server = reports.iter().find(|r| r.server_pid.is_some());
    let session = crate::record::new_session_id("-ws-target");
    let mut rec = blank_record(&session, opts, name, name, "-", "-");
    rec.connections = reports.iter().map(|r| r.connections).sum();
    rec.opened = reports.iter().map(|r| r.opened).sum();
    rec.handshake_failures = reports.iter().map(|r| r.handshake_failures).sum();
    rec.warmup_s = first.warmup_s;
    rec.pinned = reports.iter().all(|r| !r.client_cpus.is_empty());
    rec.server_rss_idle_kb = server.and_then(|s| s.server_rss_idle_kb);
    let server_cpus = server.map(|s| s.server_cpus.clone()).unwrap_or_default();
    rec.placement = Some(Placement {
        server_cpus: server_cpus.clone(),
        client_cpus: first.client_cpus.clone(),
        client_threads: reports.iter().map(|r| r.client_threads).sum(),
        client_hosts: reports.len(),
        server_started: false,
        server_pid: server.and_then(|s| s.server_pid),
    });
    rec.detail = Some(format!(
        "{} (server started elsewhere; {} client process{}: {}){}",
        first.target,
        reports.len(),
        if reports.len() == 1 { "" } else { "es" },
        reports
            .iter()
            .map(|r| r.host.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        if server.is_none() {
            "; no --server-pid: server CPU and memory not measured"
        } else {
            ""
        }
    ));
    for i in 0..first.phases.len() {
        let parts: Vec<&ReportPhase> = reports.iter().map(|r| &r.phases[i]).collect();
        rec.phases.push(merge_phase(
            &parts,
            server.map(|s| &s.phases[i]),
            server_cpus.len(),
        ));
    }
    let samples: Vec<String> = reports
        .iter()
        .flat_map(|r| r.handshake_samples.iter().cloned())
        .chain(reports.iter().flat_map(|r| r.lost_samples.iter().cloned()))
        .collect();
    let keep = rec.detail.clone();
    settle(&mut rec, &samples);
    if rec.status == WsStatus::Ok {
        rec.detail = keep;
    }
    Ok(rec)
}

fn merge_phase(parts: &[&ReportPhase], server: Option<&ReportPhase>, server_cpus: usize) -> Phase {
    let first = &parts[0].phase;
    if parts.iter().any(|p| p.phase.stats.is_none()) {
        // A host skipped or lost the phase: say so rather than half a sum.
        let bad = parts.iter().find(|p| p.phase.stats.is_none()).expect("one");
        return bad.phase.clone();
    }
    let mut latency = from_buckets(&[]);
    let mut late = from_buckets(&[]);
    let (mut echoes, mut errors, mut rps, mut alive, mut cpu) = (0, 0, 0.0, 0, 0.0);
    let mut samples = Vec::new();
    let mut busiest: f64 = 0.0;
    let (mut lo, mut hi, mut threads, mut pings) = (u64::MAX, 0, 0, 0);
    let mut waited: f64 = 0.0;
    for p in parts {
        let _ = latency.add(from_buckets(&p.latency));
        let _ = late.add(from_buckets(&p.late));
        let s = p.phase.stats.as_ref().expect("checked");
        echoes += s.echoes;
        errors += s.error_count();
        rps += s.rps;
        alive += s.alive.unwrap_or(0);
        cpu += p.client_cpu_s;
        for e in &s.error_samples {
            if samples.len() < 5 && !samples.contains(e) {
                samples.push(e.clone());
            }
        }
        if let Some(l) = &p.phase.client {
            busiest = busiest.max(l.busiest_thread);
            lo = lo.min(l.echoes_per_conn_min);
            hi = hi.max(l.echoes_per_conn_max);
            threads += l.threads;
            pings += l.pings;
            waited = waited.max(l.runq_wait);
        }
    }
    let stats: WindowStats = client::stats_of(&latency, echoes, rps, errors, samples, alive);
    // The reports keep each client's busiest and most-waiting thread, not
    // one thread's running + run-queue time: the busiest thread's CPU is
    // the demand known here, and a client process that found itself
    // saturated makes the merged load saturated too.
    let mut load: ClientLoad = client::load_of(
        &late,
        threads,
        busiest,
        busiest,
        waited,
        cpu,
        echoes,
        (if lo == u64::MAX { 0 } else { lo }, hi),
        pings,
    );
    load.saturated |= parts
        .iter()
        .any(|p| p.phase.client.as_ref().is_some_and(|l| l.saturated));
    let window = parts.iter().map(|p| p.phase.window_s).fold(0.0, f64::max);
    let server_cores = server.and_then(|s| s.phase.server_cores);
    let server_waiting_cores = server.and_then(|s| s.phase.server_waiting_cores);
    Phase {
        delay_ms: first.delay_ms,
        status: if errors > 0 {
            WsStatus::Errors
        } else {
            WsStatus::Ok
        },
        window_s: window,
        server_rss_peak_kb: server.and_then(|s| s.phase.server_rss_peak_kb),
        server_rss_avg_kb: server.and_then(|s| s.phase.server_rss_avg_kb),
        server_cores,
        client_cores: Some(cpu / window.max(1e-9)),
        client_bound: drive::client_bound(
            Some(&load),
            server_cores,
            server_waiting_cores,
            server_cpus,
        ),
        detail: (!stats.error_samples.is_empty()).then(|| stats.error_samples.join("; ")),
        stats: Some(stats),
        client: Some(load),
        server_waiting_cores,
    }
}

/// Reads `ws-client` reports.
pub fn read_reports(files: &[std::path::PathBuf]) -> Result<Vec<ClientReport>> {
    files
        .iter()
        .map(|f| {
            let s =
                std::fs::read_to_string(f).with_context(|| format!("reading {}", f.display()))?;
            serde_json::from_str(&s)
                .with_context(|| format!("{}: not a ws-client report", f.display()))
        })
        .collect()
}

/// Stores a merged (or `--target`) record and rewrites the derived files.
fn store(out: &std::path::Path, rec: &WsRecord) -> Result<()> {
    let store = Store::open(out)?;
    store.append(WS_RECORDS, rec)?;
    crate::derived::write_all(&store)?;
    Ok(())
}

/// The client's CPUs against a server langbench did not start: every CPU
/// (the server is elsewhere), unless it runs here (`server_pid`) or
/// --client-cpus says otherwise; --share-cpus: unpinned.
fn target_cpus(opts: &Options, server_pid: Option<i32>) -> Vec<usize> {
    if !opts.pin {
        return Vec::new();
    }
    match (opts.client_cpus, server_pid) {
        (None, None) => drive::own_cpus(),
        (n, _) => drive::split_cpus(n).1,
    }
}

/// `langbench ws-client`: the load client alone against `target`, from
/// `start_at` on ([`parse_start`]) if given; its report as JSON on stdout
/// or into `out`, its progress on stderr unless `quiet`.
pub fn client_command(
    target: &str,
    server_pid: Option<i32>,
    start_at: Option<&str>,
    opts: &Options,
    out: Option<&std::path::Path>,
    quiet: bool,
) -> Result<ExitCode> {
    let target = Target::parse(target)?;
    let start = start_at.map(parse_start).transpose()?;
    // The progress quotes what the server sent (a close reason): inert.
    let report = drive_target(&target, server_pid, start, opts, &|m| {
        if !quiet {
            eprintln!("{}", langbench_document::inert::text(&m))
        }
    })?;
    let json = serde_json::to_string_pretty(&report)?;
    match out {
        Some(f) => {
            std::fs::write(f, json + "\n").with_context(|| format!("writing {}", f.display()))?
        }
        // Its strings were made inert where they entered (a close reason)
        // and serde escapes C0 controls; made inert again on the way to a
        // terminal all the same (C1 and bidirectional controls), whole.
        None => println!("{}", langbench_document::inert::block(&json, usize::MAX)),
    }
    Ok(ExitCode::SUCCESS)
}

/// `langbench ws --target`: the load client here against a server started
/// elsewhere, stored as one row like [`merge_command`].
pub fn target_command(
    target: &str,
    server_pid: Option<i32>,
    name: &str,
    opts: &Options,
) -> Result<ExitCode> {
    let target = Target::parse(target)?;
    let report = drive_target(&target, server_pid, None, opts, &|m| {
        eprintln!("{}", langbench_document::inert::text(&m))
    })?;
    merge_command(&[report], name, opts)
}

/// The load client here against `target`, Ctrl-C handled, the client's
/// CPUs chosen: what `ws-client` and `ws --target` share.
fn drive_target(
    target: &Target,
    server_pid: Option<i32>,
    start: Option<SystemTime>,
    opts: &Options,
    progress: &dyn Fn(String),
) -> Result<ClientReport> {
    crate::signals::install_interrupt_handler();
    run_client(
        target,
        opts,
        &target_cpus(opts, server_pid),
        server_pid,
        start,
        progress,
    )
}

/// `langbench ws merge`: the reports as one row named `name`, stored into
/// `opts.out`, the table on the terminal, and where the results are.
pub fn merge_command(reports: &[ClientReport], name: &str, opts: &Options) -> Result<ExitCode> {
    let rec = merge(reports, name, opts)?;
    store(&opts.out, &rec)?;
    crate::ws_summary::print(std::slice::from_ref(&rec));
    Ok(crate::derived::finish(&opts.out))
}
