//! The WebSocket table: one row per server and phase, in the terminal,
//! Markdown, CSV and JSON.

use std::collections::BTreeMap;

use anyhow::Result;
use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{Cell, CellAlignment, Table};

use super::{Phase, WS_RECORDS, WsRecord, WsStatus};
use crate::store::Store;

pub const WS_MD: &str = "ws-summary.md";
pub const WS_CSV: &str = "ws-summary.csv";
pub const WS_JSON: &str = "ws.json";

const HEADER: [&str; 15] = [
    "Server",
    "Runtime",
    "Library",
    "Delay (ms)",
    "rps",
    "Lat avg (ms)",
    "p50 (ms)",
    "p99 (ms)",
    "max (ms)",
    "Errors",
    "Alive",
    "Server MB",
    "Server cores",
    "Client cores",
    "Notes",
];

/// The newest record of each server, in the order they were run.
pub fn latest(records: &[WsRecord]) -> Vec<&WsRecord> {
    let mut by_variant: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, r) in records.iter().enumerate() {
        by_variant.insert(&r.variant, i);
    }
    let mut idx: Vec<usize> = by_variant.into_values().collect();
    idx.sort();
    idx.into_iter().map(|i| &records[i]).collect()
}

fn f2(v: f64) -> String {
    format!("{v:.2}")
}

fn notes(r: &WsRecord, p: &Phase) -> String {
    let mut n = Vec::new();
    if p.status != WsStatus::Ok {
        n.push(p.status.name().to_uppercase());
    }
    if p.client_bound {
        n.push("CLIENT-BOUND".into());
    }
    if let Some(d) = &p.detail {
        n.push(d.clone());
    }
    if r.handshake_failures > 0 {
        n.push(format!("{} handshakes failed", r.handshake_failures));
    }
    n.join("; ")
}

/// Text cells of every row.
pub fn rows(records: &[&WsRecord]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for r in records {
        let server = format!("{} ({})", r.language, r.variant);
        if r.phases.is_empty() {
            let mut row = vec![server, r.version.clone(), r.library.clone()];
            row.push("-".into());
            row.push(r.status.name().to_uppercase());
            row.extend(std::iter::repeat_n("-".to_string(), 9));
            row.push(r.detail.clone().unwrap_or_default());
            out.push(row);
            continue;
        }
        for p in &r.phases {
            let mut row = vec![
                server.clone(),
                r.version.clone(),
                r.library.clone(),
                format!("{}", p.delay_ms),
            ];
            match &p.stats {
                Some(s) => row.extend([
                    format!("{:.0}", s.rps),
                    f2(s.latency_mean_ms),
                    f2(s.latency_p50_ms),
                    f2(s.latency_p99_ms),
                    f2(s.latency_max_ms),
                    s.errors.to_string(),
                    s.alive.to_string(),
                    format!("{:.0}", p.server_rss_peak_kb as f64 / 1024.0),
                    f2(p.server_cores),
                    f2(p.client_cores),
                ]),
                None => {
                    row.push(p.status.name().to_uppercase());
                    row.extend(std::iter::repeat_n("-".to_string(), 9));
                }
            }
            row.push(notes(r, p));
            out.push(row);
        }
    }
    out
}

pub fn terminal(records: &[&WsRecord]) -> String {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED)
        .set_header(HEADER.to_vec());
    for row in rows(records) {
        t.add_row(
            row.into_iter()
                .enumerate()
                .map(|(i, s)| {
                    let c = Cell::new(s);
                    if (3..14).contains(&i) {
                        c.set_alignment(CellAlignment::Right)
                    } else {
                        c
                    }
                })
                .collect::<Vec<_>>(),
        );
    }
    t.to_string()
}

pub fn markdown(records: &[&WsRecord]) -> String {
    let mut s = String::from("# langbench ws-echo results\n\n");
    if let Some(r) = records.first() {
        s.push_str(&format!(
            "- {} connections, each: binary + text echo, then sleep for the phase's delay; \
             {} s warm-up, then the measured window; client and server {}\n",
            r.connections,
            r.warmup_s,
            if r.pinned {
                "on separate cores (--pin)"
            } else {
                "sharing all cores"
            }
        ));
    }
    s.push_str("- rps counts every echo (binary and text) in the window; latency is send to matching echo; Server MB is the peak RSS of the server's process tree in the window; cores are CPU seconds per second\n\n");
    s.push_str(&format!("| {} |\n|", HEADER.join(" | ")));
    for i in 0..HEADER.len() {
        s.push_str(if (3..14).contains(&i) {
            " ---: |"
        } else {
            " --- |"
        });
    }
    s.push('\n');
    for row in rows(records) {
        let cells: Vec<String> = row.iter().map(|c| c.replace('|', "\\|")).collect();
        s.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    s
}

pub fn csv(records: &[&WsRecord]) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "variant",
        "server",
        "runtime_version",
        "library",
        "connections",
        "delay_ms",
        "status",
        "rps",
        "latency_avg_ms",
        "latency_p50_ms",
        "latency_p99_ms",
        "latency_max_ms",
        "errors",
        "alive",
        "window_s",
        "server_ram_mb",
        "server_ram_avg_mb",
        "server_cores",
        "client_cores",
        "client_bound",
        "server_exit",
        "server_max_rss_kb",
        "detail",
    ])?;
    for r in records {
        let exit = r.server_exit.map(|e| e.to_string()).unwrap_or_default();
        // One row: the server's columns, then this phase's (or a server
        // that never got to a phase: blanks), then how the server ended.
        let mut row = |delay: String,
                       status: &str,
                       measured: Vec<String>,
                       max_rss: String,
                       detail: String|
         -> Result<()> {
            let mut rec = vec![
                r.variant.clone(),
                r.language.clone(),
                r.version.clone(),
                r.library.clone(),
                r.connections.to_string(),
                delay,
                status.to_string(),
            ];
            rec.extend(measured);
            rec.extend([exit.clone(), max_rss, detail]);
            Ok(w.write_record(&rec)?)
        };
        for p in &r.phases {
            let s = p.stats.clone().unwrap_or_default();
            row(
                p.delay_ms.to_string(),
                p.status.name(),
                vec![
                    format!("{:.2}", s.rps),
                    format!("{:.3}", s.latency_mean_ms),
                    format!("{:.3}", s.latency_p50_ms),
                    format!("{:.3}", s.latency_p99_ms),
                    format!("{:.3}", s.latency_max_ms),
                    s.errors.to_string(),
                    s.alive.to_string(),
                    format!("{:.3}", p.window_s),
                    format!("{:.1}", p.server_rss_peak_kb as f64 / 1024.0),
                    format!("{:.1}", p.server_rss_avg_kb as f64 / 1024.0),
                    format!("{:.3}", p.server_cores),
                    format!("{:.3}", p.client_cores),
                    p.client_bound.to_string(),
                ],
                r.server_max_rss_kb
                    .map(|k| k.to_string())
                    .unwrap_or_default(),
                p.detail.clone().or(r.detail.clone()).unwrap_or_default(),
            )?;
        }
        if r.phases.is_empty() {
            row(
                String::new(),
                r.status.name(),
                vec![String::new(); 13],
                String::new(),
                r.detail.clone().unwrap_or_default(),
            )?;
        }
    }
    Ok(w.into_inner()?)
}

/// Rewrites the ws tables from `ws.jsonl`.
pub fn write_all(store: &Store) -> Result<Vec<WsRecord>> {
    let mut warnings = Vec::new();
    let records: Vec<WsRecord> = store.read(WS_RECORDS, &mut warnings)?;
    let latest = latest(&records);
    store.write_derived(WS_MD, markdown(&latest).as_bytes())?;
    store.write_derived(WS_CSV, &csv(&latest)?)?;
    let mut json = serde_json::to_vec_pretty(&records)?;
    json.push(b'\n');
    store.write_derived(WS_JSON, &json)?;
    Ok(records)
}

/// One progress line per finished phase.
pub fn phase_line(id: &str, p: &Phase) -> String {
    match &p.stats {
        Some(s) => format!(
            "{id} · delay {} ms: {:.0} rps, latency avg {:.2} / p99 {:.2} / max {:.2} ms, {} errors, server {:.0} MB {:.2} cores, client {:.2} cores{}",
            p.delay_ms,
            s.rps,
            s.latency_mean_ms,
            s.latency_p99_ms,
            s.latency_max_ms,
            s.errors,
            p.server_rss_peak_kb as f64 / 1024.0,
            p.server_cores,
            p.client_cores,
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
