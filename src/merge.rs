//! `langbench merge OUT DIR...`: shard directories (`run --shard K/N` on N
//! machines) into one results directory: every session, run and ws record,
//! then every derived file. A cell (variant × benchmark) held by two
//! directories is refused unless `--prefer DIR` says which wins; every
//! shard's reference passes (`references.jsonl`, issue #39) are kept, each
//! under its own session, so the merged directory judges each run against
//! the references of its own shard's blocks; different
//! N for one benchmark is refused; different hardware is kept and flagged
//! in the table (its Machine column) and its header.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail, ensure};

use crate::bench::Bench;
use crate::derived::Derived;
use crate::record::{RunRecord, SessionRecord};
use crate::store::{REFERENCES, RUNS, Store};
use crate::ws_record::{WS_RECORDS, WsRecord};

/// What a merge did.
#[derive(Debug)]
pub(crate) struct Merged {
    pub sessions: usize,
    pub runs: usize,
    pub ws: usize,
    /// Reference runs (every shard's passes).
    pub references: usize,
    /// Cells dropped in favour of `--prefer`.
    pub overridden: Vec<String>,
    pub machines: usize,
    pub warnings: Vec<String>,
}

struct Source {
    dir: PathBuf,
    sessions: Vec<SessionRecord>,
    runs: Vec<RunRecord>,
    /// The reference passes' runs (`references.jsonl`).
    references: Vec<RunRecord>,
    ws: Vec<WsRecord>,
}

/// Merges the records of `dirs` into `out`, a new directory: each
/// directory read; a cell two of them hold refused, or taken from
/// `--prefer`'s; then the sessions, runs and ws records written, and every
/// derived file. A refusal comes before anything is written.
pub(crate) fn merge(out: &Path, dirs: &[PathBuf], prefer: Option<&Path>) -> Result<Merged> {
    ensure!(
        !dirs.is_empty(),
        "nothing to merge: name the shard directories"
    );
    if [RUNS, WS_RECORDS, REFERENCES]
        .iter()
        .any(|f| out.join(f).exists())
    {
        bail!(
            "{} already holds records: merge into a new directory (nothing was changed)",
            out.display()
        );
    }
    let mut warnings = Vec::new();
    let mut sources = read(dirs, &mut warnings)?;
    rekey(&mut sources, &mut warnings);
    let preferred = preferred(&sources, prefer)?;
    let kept = keep(&sources, &Holders::of(&sources)?, preferred)?;
    let sessions = sessions(&sources);
    let (runs, ws) = (kept.runs(&sources), kept.ws(&sources));
    let references = references(&sources);
    let derived = write(
        out,
        &Records {
            sessions: &sessions,
            runs: &runs,
            references: &references,
            ws: &ws,
        },
    )?;
    warnings.extend(derived.warnings);
    Ok(Merged {
        sessions: sessions.len(),
        runs: runs.len(),
        ws: ws.len(),
        references: references.len(),
        overridden: kept.overridden,
        machines: derived.summary.map_or(0, |s| s.machines.len()),
        warnings,
    })
}

/// Each directory's records, in the order given; their warnings go to
/// `warnings`.
fn read(dirs: &[PathBuf], warnings: &mut Vec<String>) -> Result<Vec<Source>> {
    let mut sources = Vec::new();
    for d in dirs {
        ensure!(d.is_dir(), "{} is not a results directory", d.display());
        let store = Store::open(d)?;
        let stored = store.load()?;
        let (ws, w) = crate::ws_summary::load(&store)?;
        warnings.extend(stored.warnings);
        warnings.extend(w);
        sources.push(Source {
            dir: d.clone(),
            sessions: stored.sessions,
            // Its own records now (renamed below): nothing else holds them.
            runs: stored
                .runs
                .into_iter()
                .map(|r| std::sync::Arc::try_unwrap(r).unwrap_or_else(|r| (*r).clone()))
                .collect(),
            references: stored.references,
            ws,
        });
    }
    Ok(sources)
}

/// Two different sessions under one id are kept apart: shards started in
/// one second as pid 1 in containers had one id before ids got a random
/// tag (issue #42), and merged they read as one session. The later
/// directory's session becomes `ID~K` in its sessions, runs, references
/// and ws records, with a warning. One session that two directories hold
/// (one copied from the other: equal records) stays one.
fn rekey(sources: &mut [Source], warnings: &mut Vec<String>) {
    let mut taken: BTreeMap<String, (usize, SessionRecord)> = BTreeMap::new();
    for i in 0..sources.len() {
        let mut renamed = BTreeMap::new();
        for rec in sources[i].sessions.clone() {
            let other = match taken.get(&rec.session) {
                None => None,
                Some((_, same)) if *same == rec => continue,
                Some((j, _)) => Some(*j),
            };
            let Some(j) = other else {
                taken.insert(rec.session.clone(), (i, rec));
                continue;
            };
            let new = (2..)
                .map(|k| format!("{}~{k}", rec.session))
                .find(|n| {
                    !taken.contains_key(n)
                        && !sources
                            .iter()
                            .any(|s| s.sessions.iter().any(|x| &x.session == n))
                })
                .expect("an unused id");
            warnings.push(format!(
                "{}: session {} is not {}'s session of that id (started {} and {}): merged as {new}",
                sources[i].dir.display(),
                rec.session,
                sources[j].dir.display(),
                rec.started_at,
                taken[&rec.session].1.started_at,
            ));
            renamed.insert(rec.session.clone(), new.clone());
            taken.insert(
                new.clone(),
                (
                    i,
                    SessionRecord {
                        session: new,
                        ..rec
                    },
                ),
            );
        }
        let s = &mut sources[i];
        let rename = |id: &mut String| {
            if let Some(n) = renamed.get(id.as_str()) {
                *id = n.clone();
            }
        };
        s.sessions.iter_mut().for_each(|r| rename(&mut r.session));
        s.runs.iter_mut().for_each(|r| rename(&mut r.session));
        s.references.iter_mut().for_each(|r| rename(&mut r.session));
        s.ws.iter_mut().for_each(|r| rename(&mut r.session));
    }
}

/// Which of the sources `--prefer` names.
fn preferred(sources: &[Source], prefer: Option<&Path>) -> Result<Option<usize>> {
    prefer
        .map(|p| {
            sources
                .iter()
                .position(|s| same_dir(&s.dir, p))
                .with_context(|| {
                    format!(
                        "--prefer {}: not one of the merged directories",
                        p.display()
                    )
                })
        })
        .transpose()
}

/// Which sources hold each cell (variant × benchmark) and each ws server.
struct Holders {
    cells: BTreeMap<(String, Bench), BTreeSet<usize>>,
    ws: BTreeMap<String, BTreeSet<usize>>,
}

impl Holders {
    /// Refuses a benchmark run at two N (one table has one N per
    /// benchmark).
    fn of(sources: &[Source]) -> Result<Holders> {
        let mut cells: BTreeMap<(String, Bench), BTreeSet<usize>> = BTreeMap::new();
        let mut sizes: BTreeMap<Bench, (u64, usize)> = BTreeMap::new();
        for (i, s) in sources.iter().enumerate() {
            for r in &s.runs {
                cells
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
        let mut ws: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
        for (i, s) in sources.iter().enumerate() {
            for r in &s.ws {
                ws.entry(r.variant.clone()).or_default().insert(i);
            }
        }
        Ok(Holders { cells, ws })
    }
}

/// The source each cell and ws server is taken from.
struct Kept {
    cells: BTreeMap<(String, Bench), usize>,
    ws: BTreeMap<String, usize>,
    /// What `--prefer` decided: "CELL: kept DIR, dropped DIRS".
    overridden: Vec<String>,
}

/// Decides, for each cell and ws server, the source it is taken from (see
/// `Choice`); refuses, naming them all, the ones held by several sources
/// and not by the preferred one.
fn keep(sources: &[Source], holders: &Holders, preferred: Option<usize>) -> Result<Kept> {
    let mut choice = Choice {
        sources,
        preferred,
        overridden: Vec::new(),
        conflicts: Vec::new(),
    };
    let mut cells = BTreeMap::new();
    for (cell, held) in &holders.cells {
        if let Some(i) = choice.pick(format!("{} / {}", cell.0, cell.1), held) {
            cells.insert(cell.clone(), i);
        }
    }
    let mut ws = BTreeMap::new();
    for (variant, held) in &holders.ws {
        if let Some(i) = choice.pick(format!("{variant} / ws-echo"), held) {
            ws.insert(variant.clone(), i);
        }
    }
    if !choice.conflicts.is_empty() {
        bail!(
            "{} cells are held by more than one directory (name the one that wins with --prefer DIR; nothing was written):\n  {}",
            choice.conflicts.len(),
            choice.conflicts.join("\n  ")
        );
    }
    Ok(Kept {
        cells,
        ws,
        overridden: choice.overridden,
    })
}

/// Picks the source of a cell: its only holder, or else the preferred one
/// (said in `overridden`); held by several and not by the preferred one, it
/// is a conflict.
struct Choice<'a> {
    sources: &'a [Source],
    preferred: Option<usize>,
    overridden: Vec<String>,
    conflicts: Vec<String>,
}

impl Choice<'_> {
    fn pick(&mut self, name: String, held: &BTreeSet<usize>) -> Option<usize> {
        if held.len() == 1 {
            return held.first().copied();
        }
        match self.preferred {
            Some(p) if held.contains(&p) => {
                self.overridden.push(format!(
                    "{name}: kept {}, dropped {}",
                    self.sources[p].dir.display(),
                    self.dirs(held.iter().filter(|i| **i != p), ", ")
                ));
                Some(p)
            }
            _ => {
                self.conflicts
                    .push(format!("{name} is in {}", self.dirs(held.iter(), " and ")));
                None
            }
        }
    }

    /// The sources' directories, joined by `sep`.
    fn dirs<'i>(&self, which: impl Iterator<Item = &'i usize>, sep: &str) -> String {
        which
            .map(|i| self.sources[*i].dir.display().to_string())
            .collect::<Vec<_>>()
            .join(sep)
    }
}

impl Kept {
    /// The runs of each kept cell, source by source, in their order.
    fn runs<'a>(&self, sources: &'a [Source]) -> Vec<&'a RunRecord> {
        sources
            .iter()
            .enumerate()
            .flat_map(|(i, s)| {
                s.runs
                    .iter()
                    .filter(move |r| self.cells.get(&(r.variant.clone(), r.bench)) == Some(&i))
            })
            .collect()
    }

    /// The records of each kept ws server, source by source, in their order.
    fn ws<'a>(&self, sources: &'a [Source]) -> Vec<&'a WsRecord> {
        sources
            .iter()
            .enumerate()
            .flat_map(|(i, s)| {
                s.ws.iter()
                    .filter(move |r| self.ws.get(&r.variant) == Some(&i))
            })
            .collect()
    }
}

/// Every session once, in time order (the newest session of a cell wins in
/// tables).
fn sessions(sources: &[Source]) -> Vec<SessionRecord> {
    let mut sessions: Vec<SessionRecord> = Vec::new();
    for s in sources {
        for rec in &s.sessions {
            if !sessions.iter().any(|x| x.session == rec.session) {
                sessions.push(rec.clone());
            }
        }
    }
    sessions.sort_by(|a, b| a.started_at.cmp(&b.started_at));
    sessions
}

/// Every reference run of every source, each once (a session that two
/// directories hold, one copied from the other, gives its passes once):
/// the references are the host's speed during each session, not a cell,
/// so `--prefer` drops none of them.
fn references(sources: &[Source]) -> Vec<&RunRecord> {
    let mut seen = BTreeSet::new();
    sources
        .iter()
        .flat_map(|s| &s.references)
        .filter(|r| {
            seen.insert((
                r.session.clone(),
                r.variant.clone(),
                r.bench,
                r.block,
                r.attempt,
                r.finished_at.clone(),
            ))
        })
        .collect()
}

/// What a merge writes.
struct Records<'a> {
    sessions: &'a [SessionRecord],
    runs: &'a [&'a RunRecord],
    references: &'a [&'a RunRecord],
    ws: &'a [&'a WsRecord],
}

/// Appends the records to `out` (under its lock), then writes every file
/// derived from them.
fn write(out: &Path, records: &Records) -> Result<Derived> {
    let store = Store::open(out)?;
    let _lock = store.lock()?;
    // Each file synced once, after its last record (Store::append_all).
    if !records.sessions.is_empty() {
        store.append_all(crate::store::SESSIONS, records.sessions)?;
    }
    if !records.runs.is_empty() {
        store.append_all(RUNS, records.runs.iter().copied())?;
    }
    if !records.references.is_empty() {
        store.append_all(REFERENCES, records.references.iter().copied())?;
    }
    if !records.ws.is_empty() {
        store.append_all(WS_RECORDS, records.ws.iter().copied())?;
    }
    // The records just written, handed on rather than read back: parsing
    // them again was a third of a merge's time at scale (issue #41). With
    // serde_json's float_roundtrip a record parses to the value it was
    // written from, so these render as `report` of the directory would.
    let stored = crate::store::Stored {
        sessions: records.sessions.to_vec(),
        runs: records
            .runs
            .iter()
            .map(|r| std::sync::Arc::new((*r).clone()))
            .collect(),
        references: records.references.iter().map(|r| (*r).clone()).collect(),
        ..Default::default()
    };
    let ws = records.ws.iter().map(|r| (*r).clone()).collect();
    crate::derived::write_all_from(&store, stored, ws)
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
        langbench_document::export::terminal::warn(w);
    }
    for o in &m.overridden {
        // It names records of the merged directories: inert.
        eprintln!("preferred {}", langbench_document::inert::text(o));
    }
    if m.machines > 1 {
        langbench_document::export::terminal::warn(&format!(
            "the shards ran on {} different machines: the table flags it (Machine column)",
            m.machines
        ));
    }
    println!(
        "Merged {} sessions, {} runs, {} reference runs and {} ws records into {}",
        m.sessions,
        m.runs,
        m.references,
        m.ws,
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}
