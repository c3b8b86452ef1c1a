//! The ws-echo comparison: per server both editions have and delay phase,
//! rps, latency, server RAM and cores old → new; added and dropped servers
//! as notes.

use super::cells::{arrow, opt_num, version_columns, versions};
use super::edition::{Edition, Matched, Pair, key};
use crate::config::Languages;
use crate::document::{Column, Entry, Kind, Mark, Note, Show, Table};
use crate::ws::record::{Phase, WindowStats, WsRecord};

/// ws-echo: per server both editions have and delay phase, rps, latency,
/// server RAM and cores old → new; added and dropped servers as notes.
pub(super) fn ws(langs: &Languages, old: &Edition, new: &Edition) -> Table {
    let servers = Matched {
        old: ws_servers(langs, old),
        new: ws_servers(langs, new),
    };
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for p in &servers.pairs() {
        let (o, n) = (p.old, p.new);
        if o.connections != n.connections {
            notes.push(format!(
                "{}: connections differ ({} vs {}): not the same load",
                p.key, o.connections, n.connections
            ));
        }
        for pn in &n.phases {
            if let Some(po) = o.phases.iter().find(|x| x.delay_ms == pn.delay_ms) {
                rows.push(ws_row(p, po, pn));
            }
        }
    }
    for (k, _) in servers.added() {
        notes.push(format!(
            "{k}: added (no server of that name in {})",
            old.label
        ));
    }
    for (k, _) in servers.dropped() {
        notes.push(format!(
            "{k}: dropped (no server of that name in {})",
            new.label
        ));
    }
    Table {
        id: "compare-ws".into(),
        title: format!("ws-echo {} → {}", old.label, new.label),
        columns: ws_columns(),
        rows,
        notes: notes.into_iter().map(Note::from).collect(),
        data_only: false,
        labels: 2,
    }
}

pub(super) fn ws_library(r: &WsRecord) -> String {
    crate::ws::record::library_name(&r.library)
}

/// An edition's ws servers, each with the variant it stands for.
pub(super) fn ws_servers<'a>(langs: &Languages, e: &'a Edition) -> Vec<(String, &'a WsRecord)> {
    e.ws.iter()
        .map(|r| (key(langs, &r.variant, &r.language, &ws_library(r)), r))
        .collect()
}

/// One delay phase of a pair of servers.
pub(super) fn ws_row(p: &Pair<WsRecord>, po: &Phase, pn: &Phase) -> Vec<Entry> {
    let (o, n) = (p.old, p.new);
    // Ratios of a different load are flagged.
    let r = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if a > 0.0 => {
            let c = Entry::number(b / a, format!("×{:.2}", b / a));
            if o.connections != n.connections {
                c.marked(Mark::Flagged, Some("connections differ".into()))
            } else {
                c
            }
        }
        _ => Entry::empty("-"),
    };
    let stat = |ph: &Phase, f: fn(&WindowStats) -> f64| ph.stats.as_ref().map(f);
    let (rps_o, rps_n) = (stat(po, |s| s.rps), stat(pn, |s| s.rps));
    let (lat_o, lat_n) = (
        stat(po, |s| s.latency_mean_ms),
        stat(pn, |s| s.latency_mean_ms),
    );
    let mb = |ph: &Phase| ph.server_rss_peak_kb.map(|k| k as f64 / 1024.0);
    let f0 = |v: f64| format!("{v:.0}");
    let f2 = |v: f64| format!("{v:.2}");
    let mut row = vec![Entry::text(&p.key), Entry::text(ws_library(n))];
    row.extend(versions(&o.version, &n.version));
    row.push(Entry::number(pn.delay_ms, pn.delay_ms.to_string()));
    row.extend(old_new(rps_o, rps_n, f0));
    row.push(r(rps_o, rps_n));
    row.extend(old_new(lat_o, lat_n, f2));
    row.push(r(lat_o, lat_n));
    row.extend(old_new(mb(po), mb(pn), f0));
    row.extend(old_new(po.server_cores, pn.server_cores, f2));
    row
}

/// A figure old → new to read, then old and new as data.
pub(super) fn old_new(old: Option<f64>, new: Option<f64>, f: impl Fn(f64) -> String) -> [Entry; 3] {
    [
        Entry::text(arrow(old, new, &f)),
        opt_num(old, &f),
        opt_num(new, &f),
    ]
}

/// The ws table's columns (see `ws_row`).
pub(super) fn ws_columns() -> Vec<Column> {
    let dec = |d| Kind::Decimal { decimals: d };
    let mut cols = vec![
        Column::new("Server", "variant", Kind::Text, Show::Both),
        Column::new("Library", "library", Kind::Text, Show::Both),
    ];
    cols.extend(version_columns());
    cols.extend([
        Column::new("Delay (ms)", "delay_ms", Kind::Number, Show::Both),
        Column::new("rps", "rps", Kind::Text, Show::Display),
        Column::new("Old rps", "old_rps", dec(2), Show::Data),
        Column::new("New rps", "new_rps", dec(2), Show::Data),
        Column::new("rps ×", "rps_ratio", Kind::Ratio, Show::Both),
        Column::new("Lat avg (ms)", "latency_avg", Kind::Text, Show::Display),
        Column::new("Old lat avg (ms)", "old_latency_avg_ms", dec(3), Show::Data),
        Column::new("New lat avg (ms)", "new_latency_avg_ms", dec(3), Show::Data),
        Column::new("Lat ×", "latency_avg_ratio", Kind::Ratio, Show::Both),
        Column::new("Server MB", "server_mb", Kind::Text, Show::Display),
        Column::new("Old server MB", "old_server_ram_mb", dec(1), Show::Data),
        Column::new("New server MB", "new_server_ram_mb", dec(1), Show::Data),
        Column::new("Server cores", "server_cores", Kind::Text, Show::Display),
        Column::new("Old server cores", "old_server_cores", dec(3), Show::Data),
        Column::new("New server cores", "new_server_cores", dec(3), Show::Data),
    ]);
    cols
}
