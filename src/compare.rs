//! `langbench compare OLD NEW`: two results directories (a published
//! edition and this year's run, or any two), variant by variant and
//! benchmark by benchmark: old and new figures, their ratio (new / old), the
//! rank and the version in each. Rows are matched by variant: the id, or a
//! published row's language and flags through `aliases` in the languages
//! file. A different N or a different machine is flagged, never compared
//! silently; `--relative-to` divides each edition's figures by one
//! variant's in that edition, so editions from different machines compare
//! as relative speed.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, ensure};

use crate::bench::Bench;
use crate::config::Languages;
use crate::export::{Bar, BarChart, BarRow, Cell, Column, Document, Kind, Mark, Show, Table};
use crate::machine::Machine;
use crate::report::{Row, Summary, thousands};
use crate::store::Store;
use crate::ws::{WsRecord, report as ws_report};

/// One results directory, as compared.
pub struct Edition {
    pub dir: PathBuf,
    /// Short name in headers: the directory's name (`2021`, `2026`).
    pub label: String,
    pub summary: Option<Summary>,
    pub ws: Vec<WsRecord>,
    /// The machine of its newest session.
    pub machine: Option<Machine>,
}

impl Edition {
    pub fn load(dir: &Path) -> Result<Edition> {
        ensure!(dir.is_dir(), "{} is not a results directory", dir.display());
        let store = Store::open(dir)?;
        let stored = store.load()?;
        let (ws, _) = ws_report::load(&store)?;
        ensure!(
            !stored.runs.is_empty() || !ws.is_empty(),
            "{} holds no records (runs.jsonl or ws.jsonl)",
            dir.display()
        );
        let ws = ws_report::latest(&ws).into_iter().cloned().collect();
        Ok(Edition {
            dir: dir.to_path_buf(),
            label: dir
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| dir.display().to_string()),
            summary: (!stored.runs.is_empty()).then(|| Summary::from_stored(&stored)),
            ws,
            machine: stored.sessions.last().map(|s| s.machine.clone()),
        })
    }

    fn machine(&self) -> Option<&Machine> {
        self.machine.as_ref()
    }
}

/// The variant a row stands for today: a published row's id may carry
/// `@version` (two rows of one variant in one edition), and a row whose id
/// is unknown resolves by language and flags through the aliases.
fn key(langs: &Languages, id: &str, language: &str, flags: &str) -> String {
    let base = id.split('@').next().unwrap_or(id);
    if langs.variants.iter().any(|v| v.id == base) {
        return base.to_string();
    }
    langs
        .resolve(language, flags)
        .map(|v| v.id.clone())
        .unwrap_or_else(|| base.to_string())
}

/// A figure of one cell in one edition.
#[derive(Clone, Copy, Default)]
struct Fig {
    time: Option<f64>,
    ram: Option<f64>,
    n: Option<u64>,
    /// A correct, clean figure.
    ok: bool,
}

impl Fig {
    fn cell(s: &Summary, row: &Row, b: Bench) -> Fig {
        match row.cells.get(&b) {
            Some(c) => Fig {
                time: c.wall_s(),
                ram: c
                    .rss_kb()
                    .filter(|_| c.wall_s().is_some())
                    .map(|k| k as f64),
                n: s.benches.iter().find(|(x, _)| *x == b).map(|(_, n)| *n),
                ok: c.status.is_ok(),
            },
            None => Fig::default(),
        }
    }

    fn total(row: &Row) -> Fig {
        let any = row.cells.values().any(|c| c.wall_s().is_some());
        Fig {
            time: any.then(|| row.total_s()),
            ram: any.then(|| row.total_rss_kb() as f64),
            n: None,
            ok: row.complete(),
        }
    }

    /// Divided by the reference variant's figure in the same edition.
    fn relative(self, reference: Option<Fig>) -> Fig {
        let Some(r) = reference else {
            return Fig { ok: false, ..self };
        };
        let div = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if b > 0.0 => Some(a / b),
            _ => None,
        };
        Fig {
            time: div(self.time, r.time),
            ram: div(self.ram, r.ram),
            n: self.n,
            ok: self.ok && r.ok,
        }
    }
}

/// A matched pair of rows.
struct Pair<'a> {
    key: String,
    old: &'a Row,
    new: &'a Row,
}

/// Ranks of the complete rows (1 = fastest total); partial rows have none.
fn ranks(s: &Summary) -> Vec<(String, usize)> {
    s.rows
        .iter()
        .filter(|r| r.complete())
        .enumerate()
        .map(|(i, r)| (r.variant.clone(), i + 1))
        .collect()
}

pub struct Options {
    /// Divide every figure by this variant's in the same edition.
    pub relative_to: Option<String>,
}

/// The comparison as a document: the CPU table, the ws table, added and
/// dropped variants, and old-vs-new charts.
pub fn compare(
    langs: &Languages,
    old: &Edition,
    new: &Edition,
    opts: &Options,
) -> Result<Document> {
    let mut doc = Document {
        title: format!("langbench comparison: {} → {}", old.label, new.label),
        ..Default::default()
    };
    doc.meta.push((
        "Old".into(),
        format!("{} ({})", old.label, old.dir.display()),
    ));
    doc.meta.push((
        "New".into(),
        format!("{} ({})", new.label, new.dir.display()),
    ));
    if let (Some(a), Some(b)) = (old.machine(), new.machine()) {
        if a.same_as(b) {
            doc.meta
                .push(("Machines".into(), format!("the same: {}", a.describe())));
        } else {
            doc.meta.push((
                "Machines".into(),
                format!(
                    "DIFFERENT: old on {}; new on {}. Ratios compare machines as well as \
                     toolchains{}",
                    a.describe(),
                    b.describe(),
                    if opts.relative_to.is_some() {
                        ""
                    } else {
                        "; `--relative-to VARIANT` compares relative speed instead"
                    }
                ),
            ));
        }
    }
    doc.meta.push((
        "Ratio".into(),
        match &opts.relative_to {
            Some(v) => format!(
                "every figure is RELATIVE to {v} in the same edition (its time or RAM = 1.00); \
                 × is new / old of those relative figures"
            ),
            None => "× is new / old: below 1.00 is faster (time) or smaller (RAM)".into(),
        },
    ));
    if let (Some(so), Some(sn)) = (&old.summary, &new.summary) {
        doc.meta.push((
            "Rank".into(),
            format!(
                "position by total time among each edition's complete rows ({} in {}, {} in {}): \
                 added variants move ranks too",
                so.rows.iter().filter(|r| r.complete()).count(),
                old.label,
                sn.rows.iter().filter(|r| r.complete()).count(),
                new.label
            ),
        ));
        let (table, changes, charts) = cpu(langs, old, new, so, sn, opts)?;
        doc.tables.push(table);
        doc.tables.push(changes);
        doc.charts.extend(charts);
    }
    if !old.ws.is_empty() && !new.ws.is_empty() {
        doc.tables.push(ws(langs, old, new));
    }
    ensure!(
        !doc.tables.is_empty(),
        "{} and {} hold no common kind of results (CPU benchmarks or ws-echo)",
        old.dir.display(),
        new.dir.display()
    );
    Ok(doc)
}

/// Seconds and relative times alike: two decimals.
fn fmt_time(v: f64, _relative: bool) -> String {
    format!("{v:.2}")
}

fn fmt_ram(v: f64, relative: bool) -> String {
    if relative {
        format!("{v:.2}")
    } else {
        thousands(v.round() as u64)
    }
}

/// "old → new" for one figure (a missing side says so).
fn arrow(old: Option<f64>, new: Option<f64>, f: impl Fn(f64) -> String) -> String {
    let side = |v: Option<f64>| v.map(&f).unwrap_or_else(|| "-".into());
    format!("{} → {}", side(old), side(new))
}

/// The ratio cell: a number when both sides are comparable, otherwise text
/// saying why not.
fn ratio(old: Fig, new: Fig, pick: impl Fn(&Fig) -> Option<f64>) -> Cell {
    if let (Some(a), Some(b)) = (old.n, new.n)
        && a != b
    {
        return Cell::empty("N≠").marked(
            Mark::Flagged,
            Some(format!(
                "not compared: N differs ({} vs {})",
                thousands(a),
                thousands(b)
            )),
        );
    }
    match (pick(&old), pick(&new)) {
        (Some(a), Some(b)) if a > 0.0 => {
            let r = b / a;
            let cell = Cell::number(r, format!("×{r:.2}"));
            if old.ok && new.ok {
                cell
            } else {
                cell.marked(
                    Mark::Flagged,
                    Some("a side is not a plain correct figure (partial or flagged)".into()),
                )
            }
        }
        _ => Cell::empty("-").marked(Mark::Failed, Some("a side has no figure".into())),
    }
}

fn opt_num(v: Option<f64>, f: impl Fn(f64) -> String) -> Cell {
    match v {
        Some(v) => Cell::number(v, f(v)),
        None => Cell::empty(""),
    }
}

/// The rows with figures, each with the variant it stands for.
fn installed<'a>(langs: &Languages, s: &'a Summary) -> Vec<(String, &'a Row)> {
    s.rows
        .iter()
        .filter(|r| r.installed())
        .map(|r| (key(langs, &r.variant, &r.language, &r.flags), r))
        .collect()
}

/// The `--relative-to` variant's row in one edition.
fn reference<'a>(
    rows: &[(String, &'a Row)],
    label: &str,
    opts: &Options,
) -> Result<Option<&'a Row>> {
    match &opts.relative_to {
        None => Ok(None),
        Some(v) => rows
            .iter()
            .find(|(k, _)| k == v)
            .map(|(_, r)| Some(*r))
            .with_context(|| format!("--relative-to {v}: {label} has no row of {v}")),
    }
}

fn cpu(
    langs: &Languages,
    old: &Edition,
    new: &Edition,
    so: &Summary,
    sn: &Summary,
    opts: &Options,
) -> Result<(Table, Table, Vec<BarChart>)> {
    let rel = opts.relative_to.is_some();
    let (olds, news) = (installed(langs, so), installed(langs, sn));
    let (ref_old, ref_new) = (
        reference(&olds, &old.label, opts)?,
        reference(&news, &new.label, opts)?,
    );
    let mut pairs = Vec::new();
    for (k, n) in &news {
        for (ko, o) in &olds {
            if ko == k {
                pairs.push(Pair {
                    key: k.clone(),
                    old: o,
                    new: n,
                });
            }
        }
    }
    let (rank_old, rank_new) = (ranks(so), ranks(sn));
    let rank_of =
        |ranks: &[(String, usize)], v: &str| ranks.iter().find(|(id, _)| id == v).map(|(_, r)| *r);
    let benches: Vec<Bench> = Bench::CPU
        .into_iter()
        .filter(|b| {
            so.benches.iter().any(|(x, _)| x == b) || sn.benches.iter().any(|(x, _)| x == b)
        })
        .collect();

    let unit = |what: &str| match &opts.relative_to {
        Some(v) => format!("{what} (×{v})"),
        None => what.to_string(),
    };
    let mut cols = vec![
        Column::new("Language", "language", Kind::Text, Show::Both),
        Column::new("Command Flags", "command_flags", Kind::Text, Show::Both),
        Column::new("Variant", "variant", Kind::Text, Show::Data),
        Column::new("Version", "version", Kind::Text, Show::Display),
        Column::new("Old version", "old_version", Kind::Text, Show::Data),
        Column::new("New version", "new_version", Kind::Text, Show::Data),
        Column::new("Rank", "rank", Kind::Text, Show::Display),
        Column::new("Old rank", "old_rank", Kind::Count, Show::Data),
        Column::new("New rank", "new_rank", Kind::Count, Show::Data),
    ];
    let secs = Kind::Seconds { decimals: 3 };
    let ram_kind = if rel { Kind::Ratio } else { Kind::Kb };
    let time_kind = if rel { Kind::Ratio } else { secs };
    for name in benches
        .iter()
        .map(|b| b.name().to_string())
        .chain(["total".to_string()])
    {
        let k = name.replace('-', "_");
        let shown = if name == "total" {
            "Total".to_string()
        } else {
            name.clone()
        };
        cols.extend([
            Column::new(
                unit(&format!("{shown} (s)")),
                format!("{k}_time"),
                Kind::Text,
                Show::Display,
            ),
            Column::new(
                format!("{shown} ×"),
                format!("{k}_time_ratio"),
                Kind::Ratio,
                Show::Both,
            ),
            Column::new(
                unit(&format!("{shown} old (s)")),
                format!("{k}_old_s"),
                time_kind,
                Show::Data,
            ),
            Column::new(
                unit(&format!("{shown} new (s)")),
                format!("{k}_new_s"),
                time_kind,
                Show::Data,
            ),
            Column::new(
                unit(&format!("{shown} old RAM (KB)")),
                format!("{k}_old_rss_kb"),
                ram_kind,
                Show::Data,
            ),
            Column::new(
                unit(&format!("{shown} new RAM (KB)")),
                format!("{k}_new_rss_kb"),
                ram_kind,
                Show::Data,
            ),
            Column::new(
                format!("{shown} RAM ×"),
                format!("{k}_ram_ratio"),
                Kind::Ratio,
                if name == "total" {
                    Show::Both
                } else {
                    Show::Data
                },
            ),
        ]);
        if name != "total" {
            cols.push(Column::new(
                format!("{shown} old N"),
                format!("{k}_old_n"),
                Kind::Count,
                Show::Data,
            ));
            cols.push(Column::new(
                format!("{shown} new N"),
                format!("{k}_new_n"),
                Kind::Count,
                Show::Data,
            ));
        }
    }

    let mut rows = Vec::new();
    let mut notes = Vec::new();
    let mut chart_rows = Vec::new();
    for p in &pairs {
        let (ro, rn) = (
            rank_of(&rank_old, &p.old.variant),
            rank_of(&rank_new, &p.new.variant),
        );
        let rank_text = match (ro, rn) {
            (Some(a), Some(b)) => {
                let moved = a as i64 - b as i64;
                match moved {
                    0 => format!("{a} → {b}"),
                    m if m > 0 => format!("{a} → {b} (↑{m})"),
                    m => format!("{a} → {b} (↓{})", -m),
                }
            }
            (a, b) => format!(
                "{} → {}",
                a.map_or("-".into(), |r| r.to_string()),
                b.map_or("-".into(), |r| r.to_string())
            ),
        };
        let mut row = vec![
            Cell::text(&p.new.language),
            Cell::text(&p.new.flags),
            Cell::text(&p.key),
            Cell::text(format!("{} → {}", p.old.version, p.new.version)),
            Cell::text(&p.old.version),
            Cell::text(&p.new.version),
            Cell::text(rank_text),
            ro.map_or(Cell::empty(""), |r| Cell::int(r as i64, r.to_string())),
            rn.map_or(Cell::empty(""), |r| Cell::int(r as i64, r.to_string())),
        ];
        let mut size_mismatch = false;
        let mut figs = Vec::new();
        for b in &benches {
            let (mut fo, mut fnw) = (Fig::cell(so, p.old, *b), Fig::cell(sn, p.new, *b));
            if let (Some(a), Some(c)) = (fo.n, fnw.n)
                && a != c
            {
                size_mismatch = true;
            }
            if rel {
                fo = fo.relative(ref_old.map(|r| Fig::cell(so, r, *b)));
                fnw = fnw.relative(ref_new.map(|r| Fig::cell(sn, r, *b)));
            }
            figs.push((b.name().to_string(), fo, fnw));
        }
        let (mut to, mut tn) = (Fig::total(p.old), Fig::total(p.new));
        if rel {
            to = to.relative(ref_old.map(Fig::total));
            tn = tn.relative(ref_new.map(Fig::total));
        }
        if size_mismatch {
            // The totals add up benchmarks of different N.
            to.n = Some(0);
            tn.n = Some(1);
        }
        figs.push(("total".into(), to, tn));
        for (name, fo, fnw) in &figs {
            let mut t = ratio(*fo, *fnw, |f| f.time);
            let shown = arrow(fo.time, fnw.time, |v| fmt_time(v, rel));
            let size_note = t.note.clone().filter(|n| n.contains("N differs"));
            if name == "total" && size_mismatch {
                t.note = Some("not compared: a benchmark's N differs between the editions".into());
            }
            if let Some(n) = &t.note
                && t.mark == Mark::Flagged
            {
                // A size mismatch holds for every row: say it once.
                let line = if n.contains("N differs") {
                    format!("{name}: {n}, in every row")
                } else {
                    format!("{} / {name}: {n}", p.key)
                };
                if !notes.contains(&line) {
                    notes.push(line);
                }
            }
            row.push(Cell::text(match &size_note {
                Some(_) => format!("{shown} N≠"),
                None => shown,
            }));
            row.push(t);
            row.push(opt_num(fo.time, |v| fmt_time(v, rel)));
            row.push(opt_num(fnw.time, |v| fmt_time(v, rel)));
            row.push(opt_num(fo.ram, |v| fmt_ram(v, rel)));
            row.push(opt_num(fnw.ram, |v| fmt_ram(v, rel)));
            let r = ratio(*fo, *fnw, |f| f.ram);
            row.push(if name == "total" && size_mismatch {
                Cell::empty("N≠").marked(Mark::Flagged, Some("a benchmark's N differs".into()))
            } else {
                r
            });
            if name != "total" {
                row.push(fo.n.map_or(Cell::empty(""), |n| Cell::int(n as i64, n.to_string())));
                row.push(
                    fnw.n
                        .map_or(Cell::empty(""), |n| Cell::int(n as i64, n.to_string())),
                );
            } else {
                let bar = |f: &Fig| match f.time {
                    Some(v) if f.ok && !size_mismatch => Bar::plain(v),
                    Some(v) => Bar {
                        value: Some(v),
                        mark: Mark::Flagged,
                        label: Some(if size_mismatch {
                            "N differs".into()
                        } else {
                            "partial".into()
                        }),
                    },
                    None => Bar {
                        value: None,
                        mark: Mark::Failed,
                        label: Some("no figure".into()),
                    },
                };
                chart_rows.push(BarRow {
                    label: format!("{} · {}", p.new.language, p.new.flags),
                    bars: vec![bar(fo), bar(fnw)],
                });
            }
        }
        rows.push(row);
    }
    let table = Table {
        id: "compare".into(),
        title: format!("{} → {}", old.label, new.label),
        columns: cols,
        rows,
        notes,
        data_only: false,
    };

    // Added and dropped variants.
    let mut changes = Vec::new();
    for (change, rows, other) in [("added", &news, &olds), ("dropped", &olds, &news)] {
        for (k, r) in rows.iter() {
            if !other.iter().any(|(ko, _)| ko == k) {
                let total = Fig::total(r);
                changes.push(vec![
                    Cell::text(change),
                    Cell::text(&r.language),
                    Cell::text(&r.flags),
                    Cell::text(k),
                    Cell::text(&r.version),
                    match total.time {
                        Some(t) if total.ok => Cell::number(t, format!("{t:.2}")),
                        Some(t) => Cell::number(t, format!("{t:.2} *"))
                            .marked(Mark::Flagged, Some("partial".into())),
                        None => Cell::empty("-"),
                    },
                ]);
            }
        }
    }
    let changes = Table {
        id: "compare-changes".into(),
        title: "Added and dropped variants".into(),
        columns: vec![
            Column::new("Change", "change", Kind::Text, Show::Both),
            Column::new("Language", "language", Kind::Text, Show::Both),
            Column::new("Command Flags", "command_flags", Kind::Text, Show::Both),
            Column::new("Variant", "variant", Kind::Text, Show::Both),
            Column::new("Version", "version", Kind::Text, Show::Both),
            Column::new("Total (s)", "total_s", secs, Show::Both),
        ],
        rows: changes,
        notes: Vec::new(),
        data_only: false,
    };
    let chart = BarChart {
        id: "compare-total-time".into(),
        title: format!(
            "Total time, {} vs {}{}",
            old.label,
            new.label,
            opts.relative_to
                .as_ref()
                .map(|v| format!(" (relative to {v})"))
                .unwrap_or_default()
        ),
        axis: if rel {
            "× reference (log scale)".into()
        } else {
            "seconds (log scale)".into()
        },
        log: true,
        series: vec![old.label.clone(), new.label.clone()],
        rows: chart_rows,
        caption: "Marked bars: a partial total, or totals over a different N (not comparable)."
            .into(),
    };
    Ok((table, changes, vec![chart]))
}

/// ws-echo: per server and delay phase, rps and latency old → new.
fn ws(langs: &Languages, old: &Edition, new: &Edition) -> Table {
    let lib = |r: &WsRecord| crate::import::library_name(&r.library);
    let keyed = |e: &Edition| -> Vec<(String, WsRecord)> {
        e.ws.iter()
            .map(|r| (key(langs, &r.variant, &r.language, &lib(r)), r.clone()))
            .collect()
    };
    let (olds, news) = (keyed(old), keyed(new));
    let mut rows = Vec::new();
    let dec = |d| Kind::Decimal { decimals: d };
    let cols = vec![
        Column::new("Server", "variant", Kind::Text, Show::Both),
        Column::new("Library", "library", Kind::Text, Show::Both),
        Column::new("Version", "version", Kind::Text, Show::Display),
        Column::new("Old version", "old_version", Kind::Text, Show::Data),
        Column::new("New version", "new_version", Kind::Text, Show::Data),
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
    ];
    let mut notes = Vec::new();
    for (k, n) in &news {
        for (_, o) in olds.iter().filter(|(ko, _)| ko == k) {
            if o.connections != n.connections {
                notes.push(format!(
                    "{k}: connections differ ({} vs {}): not the same load",
                    o.connections, n.connections
                ));
            }
            for pn in &n.phases {
                let Some(po) = o.phases.iter().find(|p| p.delay_ms == pn.delay_ms) else {
                    continue;
                };
                let (so, sn) = (po.stats.as_ref(), pn.stats.as_ref());
                let pick =
                    |s: Option<&crate::ws::client::WindowStats>,
                     f: fn(&crate::ws::client::WindowStats) -> f64| s.map(f);
                let r = |a: Option<f64>, b: Option<f64>| match (a, b) {
                    (Some(a), Some(b)) if a > 0.0 => {
                        let c = Cell::number(b / a, format!("×{:.2}", b / a));
                        if o.connections != n.connections {
                            c.marked(Mark::Flagged, Some("connections differ".into()))
                        } else {
                            c
                        }
                    }
                    _ => Cell::empty("-"),
                };
                let (rps_o, rps_n) = (pick(so, |s| s.rps), pick(sn, |s| s.rps));
                let (lat_o, lat_n) = (
                    pick(so, |s| s.latency_mean_ms),
                    pick(sn, |s| s.latency_mean_ms),
                );
                let mb = |p: &crate::ws::Phase| p.server_rss_peak_kb.map(|k| k as f64 / 1024.0);
                let f0 = |v: f64| format!("{v:.0}");
                let f2 = |v: f64| format!("{v:.2}");
                rows.push(vec![
                    Cell::text(k),
                    Cell::text(lib(n)),
                    Cell::text(format!("{} → {}", o.version, n.version)),
                    Cell::text(&o.version),
                    Cell::text(&n.version),
                    Cell::number(pn.delay_ms, pn.delay_ms.to_string()),
                    Cell::text(arrow(rps_o, rps_n, f0)),
                    opt_num(rps_o, f0),
                    opt_num(rps_n, f0),
                    r(rps_o, rps_n),
                    Cell::text(arrow(lat_o, lat_n, f2)),
                    opt_num(lat_o, f2),
                    opt_num(lat_n, f2),
                    r(lat_o, lat_n),
                    Cell::text(arrow(mb(po), mb(pn), f0)),
                    opt_num(mb(po), f0),
                    opt_num(mb(pn), f0),
                    Cell::text(arrow(po.server_cores, pn.server_cores, f2)),
                    opt_num(po.server_cores, f2),
                    opt_num(pn.server_cores, f2),
                ]);
            }
        }
    }
    for (k, _) in news
        .iter()
        .filter(|(k, _)| !olds.iter().any(|(o, _)| o == k))
    {
        notes.push(format!(
            "{k}: added (no server of that name in {})",
            old.label
        ));
    }
    for (k, _) in olds
        .iter()
        .filter(|(k, _)| !news.iter().any(|(n, _)| n == k))
    {
        notes.push(format!(
            "{k}: dropped (no server of that name in {})",
            new.label
        ));
    }
    Table {
        id: "compare-ws".into(),
        title: format!("ws-echo {} → {}", old.label, new.label),
        columns: cols,
        rows,
        notes,
        data_only: false,
    }
}

/// What `compare` prints.
#[derive(Clone, Copy)]
pub enum Format {
    Terminal,
    Markdown,
    Csv,
}

/// `langbench compare OLD NEW`: the comparison printed in `format`, and
/// with `out` also written there in every format.
pub fn command(
    langs: &Languages,
    old: &Path,
    new: &Path,
    opts: &Options,
    format: Format,
    out: Option<&Path>,
) -> Result<std::process::ExitCode> {
    use crate::export::{Exporter, csv::Csv, markdown::Markdown, terminal};
    let doc = compare(langs, &Edition::load(old)?, &Edition::load(new)?, opts)?;
    match format {
        Format::Terminal => print!("{}", terminal::document(&doc)),
        Format::Markdown => print!("{}", String::from_utf8_lossy(&Markdown.render(&doc)?)),
        Format::Csv => print!("{}", String::from_utf8_lossy(&Csv.render(&doc)?)),
    }
    if let Some(out) = out {
        crate::export::write_comparison(out, &doc)?;
        eprintln!("Wrote the comparison to {}", out.display());
    }
    Ok(std::process::ExitCode::SUCCESS)
}
