//! The ws-echo comparison: per server both editions have and delay phase,
//! rps, latency, server RAM and cores old → new; added and dropped servers
//! as notes.

use super::cells::{arrow, opt_num, version_columns};
use super::edition::{Edition, Keys, Matched, Pair};
use crate::config::Languages;
use crate::ws_record::{Phase, WindowStats, WsRecord};
use langbench_document::columns::{Columns, col};
use langbench_document::{Entry, Kind, Mark, Note, Table};

/// ws-echo: per server both editions have and delay phase, rps, latency,
/// server RAM and cores old → new; added and dropped servers as notes.
pub(super) fn ws(langs: &Languages, old: &Edition, new: &Edition) -> Table {
    let servers = Matched {
        old: ws_servers(langs, old),
        new: ws_servers(langs, new),
    };
    let pairs = servers.pairs();
    let columns = ws_columns();
    Table {
        id: "compare-ws".into(),
        title: format!("ws-echo {} → {}", old.label, new.label),
        columns: columns.columns(),
        rows: columns.rows(&lines(&pairs)),
        notes: notes(&servers, &pairs, old, new),
        data_only: false,
        labels: 2,
        streamed: None,
    }
}

/// One row: a delay phase both servers of a pair ran.
struct Line<'a> {
    p: &'a Pair<'a, WsRecord>,
    po: &'a Phase,
    pn: &'a Phase,
}

impl Line<'_> {
    fn stat(&self, f: fn(&WindowStats) -> f64) -> [Option<f64>; 2] {
        [self.po, self.pn].map(|ph| ph.stats.as_ref().map(f))
    }

    fn rps(&self) -> [Option<f64>; 2] {
        self.stat(|s| s.rps)
    }

    fn latency(&self) -> [Option<f64>; 2] {
        self.stat(|s| s.latency_mean_ms)
    }

    fn server_mb(&self) -> [Option<f64>; 2] {
        [self.po, self.pn].map(|ph| ph.server_rss_peak_kb.map(|k| k as f64 / 1024.0))
    }

    fn server_cores(&self) -> [Option<f64>; 2] {
        [self.po.server_cores, self.pn.server_cores]
    }

    /// New / old, flagged where the loads differ.
    fn ratio(&self, [a, b]: [Option<f64>; 2]) -> Entry {
        match (a, b) {
            (Some(a), Some(b)) if a > 0.0 => {
                let c = Entry::number(b / a, format!("×{:.2}", b / a));
                if self.p.old.connections != self.p.new.connections {
                    c.marked(Mark::Flagged, Some("connections differ".into()))
                } else {
                    c
                }
            }
            _ => Entry::empty("-"),
        }
    }
}

/// Each pair's phases that both sides ran (by delay).
fn lines<'a>(pairs: &'a [Pair<'a, WsRecord>]) -> Vec<Line<'a>> {
    let mut lines = Vec::new();
    for p in pairs {
        for pn in &p.new.phases {
            if let Some(po) = p.old.phases.iter().find(|x| x.delay_ms == pn.delay_ms) {
                lines.push(Line { p, po, pn });
            }
        }
    }
    lines
}

/// Pairs whose loads differ; servers added and dropped.
fn notes(
    servers: &Matched<WsRecord>,
    pairs: &[Pair<WsRecord>],
    old: &Edition,
    new: &Edition,
) -> Vec<Note> {
    let mut notes = Vec::new();
    for p in pairs {
        let (o, n) = (p.old, p.new);
        if o.connections != n.connections {
            notes.push(format!(
                "{}: connections differ ({} vs {}): not the same load",
                p.key, o.connections, n.connections
            ));
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
    notes.into_iter().map(Note::from).collect()
}

pub(super) fn ws_library(r: &WsRecord) -> String {
    crate::ws_record::library_name(&r.library)
}

/// An edition's ws servers, each with the variant it stands for.
pub(super) fn ws_servers<'a>(langs: &Languages, e: &'a Edition) -> Vec<(String, &'a WsRecord)> {
    let keys = Keys::new(langs);
    e.ws.iter()
        .map(|r| (keys.key(&r.variant, &r.language, &ws_library(r)), r))
        .collect()
}

/// The ws table's columns: the server and phase, then each figure old →
/// new to read, old and new as data, and (rps, latency) their ratio.
fn ws_columns<'a>() -> Columns<'a, Line<'a>> {
    use Kind::{Number, Ratio, Text};
    let dec = |d| Kind::Decimal { decimals: d };
    let f0 = |v: f64| format!("{v:.0}");
    let f2 = |v: f64| format!("{v:.2}");
    let mut c: Columns<Line> = Columns::new();
    c.add(col("Server", "variant", Text).id(), |x| {
        Entry::text(&x.p.key)
    });
    c.add(col("Library", "library", Text), |x| {
        Entry::text(ws_library(x.p.new))
    });
    version_columns(&mut c, |x| [&x.p.old.version, &x.p.new.version]);
    c.add(col("Delay (ms)", "delay_ms", Number).id(), |x| {
        Entry::number(x.pn.delay_ms, x.pn.delay_ms.to_string())
    });
    let rps = [
        ("rps", "rps"),
        ("Old rps", "old_rps"),
        ("New rps", "new_rps"),
    ];
    old_new(&mut c, rps, dec(2), Line::rps, f0);
    c.add(col("rps ×", "rps_ratio", Ratio), |x| x.ratio(x.rps()));
    let lat = [
        ("Lat avg (ms)", "latency_avg"),
        ("Old lat avg (ms)", "old_latency_avg_ms"),
        ("New lat avg (ms)", "new_latency_avg_ms"),
    ];
    old_new(&mut c, lat, dec(3), Line::latency, f2);
    c.add(col("Lat ×", "latency_avg_ratio", Ratio), |x| {
        x.ratio(x.latency())
    });
    let mb = [
        ("Server MB", "server_mb"),
        ("Old server MB", "old_server_ram_mb"),
        ("New server MB", "new_server_ram_mb"),
    ];
    old_new(&mut c, mb, dec(1), Line::server_mb, f0);
    let cores = [
        ("Server cores", "server_cores"),
        ("Old server cores", "old_server_cores"),
        ("New server cores", "new_server_cores"),
    ];
    old_new(&mut c, cores, dec(3), Line::server_cores, f2);
    c
}

/// A figure's three columns (header, key): old → new to read, then old
/// and new (of `kind`) as data.
fn old_new<'a>(
    c: &mut Columns<'a, Line<'a>>,
    [shown, old, new]: [(&str, &str); 3],
    kind: Kind,
    of: fn(&Line<'a>) -> [Option<f64>; 2],
    f: fn(f64) -> String,
) {
    c.add(col(shown.0, shown.1, Kind::Text).display(), move |x| {
        let [o, n] = of(x);
        Entry::text(arrow(o, n, f))
    });
    c.add(col(old.0, old.1, kind).data(), move |x| {
        opt_num(of(x)[0], f)
    });
    c.add(col(new.0, new.1, kind).data(), move |x| {
        opt_num(of(x)[1], f)
    });
}
