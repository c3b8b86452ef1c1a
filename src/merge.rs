//! `langbench merge OUT DIR...`: shard directories (`run --shard K/N` on N
//! machines) into one results directory: every session, run and ws record,
//! then every derived file. A cell (variant × benchmark) held by two
//! directories is refused unless `--prefer DIR` says which wins; different
//! N for one benchmark is refused; different hardware is kept and flagged
//! in the table (its Machine column) and its header.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail, ensure};

use crate::bench::Bench;
use crate::record::{RunRecord, SessionRecord};
use crate::store::{RUNS, Store};
use crate::ws::{WS_RECORDS, WsRecord};

/// What a merge did.
#[derive(Debug)]
pub struct Merged {
    pub sessions: usize,
    pub runs: usize,
    pub ws: usize,
    /// Cells dropped in favour of `--prefer`.
    pub overridden: Vec<String>,
    pub machines: usize,
    pub warnings: Vec<String>,
}

struct Source {
    dir: PathBuf,
    sessions: Vec<SessionRecord>,
    runs: Vec<RunRecord>,
    ws: Vec<WsRecord>,
}

pub fn merge(out: &Path, dirs: &[PathBuf], prefer: Option<&Path>) -> Result<Merged> {
    ensure!(
        !dirs.is_empty(),
        "nothing to merge: name the shard directories"
    );
    if out.join(RUNS).exists() || out.join(WS_RECORDS).exists() {
        bail!(
            "{} already holds records: merge into a new directory (nothing was changed)",
            out.display()
        );
    }
    let mut warnings = Vec::new();
    let mut sources = Vec::new();
    for d in dirs {
        ensure!(d.is_dir(), "{} is not a results directory", d.display());
        let store = Store::open(d)?;
        let stored = store.load()?;
        let (ws, w) = crate::ws::report::load(&store)?;
        warnings.extend(stored.warnings);
        warnings.extend(w);
        sources.push(Source {
            dir: d.clone(),
            sessions: stored.sessions,
            runs: stored.runs,
            ws,
        });
    }
    let preferred = match prefer {
        None => None,
        Some(p) => Some(
            sources
                .iter()
                .position(|s| same_dir(&s.dir, p))
                .with_context(|| {
                    format!(
                        "--prefer {}: not one of the merged directories",
                        p.display()
                    )
                })?,
        ),
    };

    // Which directories hold each cell; one N per benchmark.
    let mut holders: BTreeMap<(String, Bench), BTreeSet<usize>> = BTreeMap::new();
    let mut sizes: BTreeMap<Bench, (u64, usize)> = BTreeMap::new();
    for (i, s) in sources.iter().enumerate() {
        for r in &s.runs {
            holders
                .entry((r.variant.clone(), r.bench))
                .or_default()
                .insert(i);
            match sizes.get(&r.bench) {
                Some((n, j)) if *n != r.n => bail!(
                    "{} ran {} at N={} but {} at N={n}: one table has one size per benchmark",
                    s.dir.display(),
                    r.bench,
                    r.n,
                    sources[*j].dir.display()
                ),
                _ => {
                    sizes.insert(r.bench, (r.n, i));
                }
            }
        }
    }
    let mut ws_holders: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for (i, s) in sources.iter().enumerate() {
        for r in &s.ws {
            ws_holders.entry(r.variant.clone()).or_default().insert(i);
        }
    }
    let mut keep_cell: BTreeMap<(String, Bench), usize> = BTreeMap::new();
    let mut keep_ws: BTreeMap<String, usize> = BTreeMap::new();
    let mut overridden = Vec::new();
    let mut conflicts = Vec::new();
    let mut decide = |name: String, held: &BTreeSet<usize>| -> Option<usize> {
        if held.len() == 1 {
            return held.first().copied();
        }
        match preferred {
            Some(p) if held.contains(&p) => {
                overridden.push(format!(
                    "{name}: kept {}, dropped {}",
                    sources[p].dir.display(),
                    held.iter()
                        .filter(|i| **i != p)
                        .map(|i| sources[*i].dir.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
                Some(p)
            }
            _ => {
                conflicts.push(format!(
                    "{name} is in {}",
                    held.iter()
                        .map(|i| sources[*i].dir.display().to_string())
                        .collect::<Vec<_>>()
                        .join(" and ")
                ));
                None
            }
        }
    };
    for (cell, held) in &holders {
        if let Some(i) = decide(format!("{} / {}", cell.0, cell.1), held) {
            keep_cell.insert(cell.clone(), i);
        }
    }
    for (variant, held) in &ws_holders {
        if let Some(i) = decide(format!("{variant} / ws-echo"), held) {
            keep_ws.insert(variant.clone(), i);
        }
    }
    if !conflicts.is_empty() {
        bail!(
            "{} cells are held by more than one directory (name the one that wins with --prefer DIR; nothing was written):\n  {}",
            conflicts.len(),
            conflicts.join("\n  ")
        );
    }

    // Sessions in time order (the newest session of a cell wins in tables),
    // each once.
    let mut sessions: Vec<SessionRecord> = Vec::new();
    for s in &sources {
        for rec in &s.sessions {
            if !sessions.iter().any(|x| x.session == rec.session) {
                sessions.push(rec.clone());
            }
        }
    }
    sessions.sort_by(|a, b| a.started_at.cmp(&b.started_at));
    let runs: Vec<&RunRecord> = sources
        .iter()
        .enumerate()
        .flat_map(|(i, s)| {
            let keep = &keep_cell;
            s.runs
                .iter()
                .filter(move |r| keep.get(&(r.variant.clone(), r.bench)) == Some(&i))
        })
        .collect();
    let ws: Vec<&WsRecord> = sources
        .iter()
        .enumerate()
        .flat_map(|(i, s)| {
            let keep = &keep_ws;
            s.ws.iter()
                .filter(move |r| keep.get(&r.variant) == Some(&i))
        })
        .collect();

    let store = Store::open(out)?;
    let _lock = store.lock()?;
    for s in &sessions {
        store.append_session(s)?;
    }
    for r in &runs {
        store.append_run(r)?;
    }
    for r in &ws {
        store.append(WS_RECORDS, r)?;
    }
    let derived = crate::export::write_all(&store)?;
    warnings.extend(derived.warnings);
    Ok(Merged {
        sessions: sessions.len(),
        runs: runs.len(),
        ws: ws.len(),
        overridden,
        machines: derived.summary.map_or(0, |s| s.machines.len()),
        warnings,
    })
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// `langbench merge OUT DIR...`: [`merge`], then its warnings and what was
/// preferred (on stderr) and the count.
pub fn command(out: &Path, dirs: &[PathBuf], prefer: Option<&Path>) -> Result<ExitCode> {
    let m = merge(out, dirs, prefer)?;
    for w in &m.warnings {
        eprintln!("warning: {w}");
    }
    for o in &m.overridden {
        eprintln!("preferred {o}");
    }
    if m.machines > 1 {
        eprintln!(
            "warning: the shards ran on {} different machines: the table flags it (Machine column)",
            m.machines
        );
    }
    println!(
        "Merged {} sessions, {} runs and {} ws records into {}",
        m.sessions,
        m.runs,
        m.ws,
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}
