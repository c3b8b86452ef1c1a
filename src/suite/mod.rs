//! `langbench run`: the CPU suite. Every selected variant × benchmark (a
//! cell) gets N runs, each measured through the spawner, verified and
//! stored as it finishes. It reads top down as the plan: `command` (this
//! shard's variants, the CPU suite, then ws-echo) → `benchmark` (the
//! session: `--resume` decides from the records, the session record, the
//! expected outputs, then the cells) → [`crate::schedule::run`] (which cell
//! next, best of N or `--runs auto`, skip after a failure, Ctrl-C) through
//! [`cells::Suite`] (a cell set up: resume, not installed, caches,
//! prepare; one run measured under the progress line, and stored) →
//! [`crate::cell`] (one run: its steps, the verdict, the record). [`plan`]
//! holds the estimates and `run --plan`: the same selection, nothing run.
//!
//! Its face: [`command`] and [`plan_command`] for main.rs, [`Options`] and
//! [`RoundsOptions`] (built by `cli` and `reproduce`), [`default_out`] and
//! [`holds`], and `benchmark` and [`estimates`] (its [`Estimates`]) for
//! `reproduce`; the rest is its inside.

mod cells;
mod options;
mod plan;

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};

pub use options::{Options, RoundsOptions, default_out, holds};
pub use plan::{Estimates, estimates, plan_command};

use crate::bench::Bench;
use crate::config::Variant;
use crate::derived::finish;
use crate::estimate::Estimator;
use crate::progress::Progress;
use crate::record::VariantInfo;
use crate::resume::{self, Held};
use crate::schedule::{self, Blocks, CellByCell, InRounds, Rounds};
use crate::session::{SessionParams, begin_session};
use crate::signals::{install_interrupt_handler, interrupted};
use crate::store::Store;
use crate::summary::Summary;
use crate::verify;
use langbench_document::export;
use langbench_document::thousands;
use langbench_spawn::Spawner;

/// `langbench run`: this shard's variants (with `--shard`), the CPU
/// benchmarks of those that have one ([`benchmark`]), their table fitted
/// to the terminal with the machine's warnings under it, then ws-echo if
/// it was selected and no Ctrl-C came, and where the results are. `ws`
/// holds ws-echo's options, checked before anything runs (a bad
/// `--connections` must not wait for the CPU benchmarks to end); only
/// ws-echo reads them.
pub fn command(
    spawner: &Spawner,
    variants: &[&Variant],
    opts: &Options,
    ws: &crate::ws::Options,
) -> Result<std::process::ExitCode> {
    install_interrupt_handler();
    // The estimates read the results directory's records (and
    // --balance-from's): needed first only to deal the shards; else only
    // once `benchmark` finds something to run (a --resume with nothing
    // left reads the records once, issue #41).
    let mut est = match opts.shard {
        Some(_) => Some(estimates(opts)?),
        None => None,
    };
    let variants = match (opts.shard, &est) {
        (Some(s), Some(est)) => plan::this_shard(variants, opts, s, est),
        _ => variants.to_vec(),
    };
    let cpu_variants: Vec<&Variant> = variants
        .iter()
        .copied()
        .filter(|v| {
            opts.benches
                .iter()
                .any(|b| b.is_cpu() && v.programs.contains_key(b))
        })
        .collect();
    if !cpu_variants.is_empty() {
        let estimator = || match est.take() {
            Some(e) => Ok(e.progress),
            None => Ok(estimates(opts)?.progress),
        };
        let (summary, warnings) = benchmark(spawner, &cpu_variants, opts, estimator)?;
        let width = export::terminal::width(opts.wide);
        println!(
            "{}",
            export::terminal::document_fit(&summary.document(), width)
        );
        for w in &warnings {
            export::terminal::warn(w);
        }
    }
    if opts.benches.contains(&Bench::WsEcho) && !interrupted() {
        let records = crate::ws::benchmark(spawner, &variants, ws)?;
        crate::ws_summary::print(&records);
    }
    Ok(finish(&opts.out))
}

/// Benchmarks every cell (variant × benchmark): with `--resume` what the
/// records hold first (complete cells are skipped, their variants never
/// probed), then a session, then each cell's runs in order. Every run is
/// appended to the store (and the derived files rewritten) as soon as it
/// finishes. `estimator` is called once there is something to run.
/// Returns the table and the machine's warnings (to repeat under it).
pub(crate) fn benchmark(
    spawner: &Spawner,
    variants: &[&Variant],
    opts: &Options,
    estimator: impl FnOnce() -> Result<Estimator>,
) -> Result<(Summary, Vec<String>)> {
    let store = open(&opts.out, opts.resume)?;
    let _lock = store.lock()?;
    let stale = crate::scratch::clean_stale();
    if stale > 0 {
        eprintln!("removed {stale} build directories a killed langbench left behind");
    }
    // The records, read once for the checks and `--resume` (a results
    // directory of 6,500 variants holds 40 MB of them).
    let stored = store.load()?;
    check_sizes(&store, &stored, opts)?;
    let key = seal_key();
    let cells = cells(variants, opts);
    let held = if opts.resume {
        let key = key.clone();
        held(&stored, spawner, key, variants, &cells, opts, store.dir())?
    } else {
        BTreeMap::new()
    };
    let Some(probe) = to_probe(&store, variants, &cells, &held) else {
        return Ok((nothing_left(&store, stored, opts)?, Vec::new()));
    };
    drop(stored);
    let estimator = estimator()?;
    let progress = Progress::new();
    let probed: Vec<&Variant> = probe.iter().map(|&i| variants[i]).collect();
    let (session, infos) = begin_session(
        &store,
        spawner,
        &probed,
        progress.bar(),
        session_params(opts),
    )?;
    let reference_variants: Vec<&Variant> = opts
        .rounds
        .iter()
        .flat_map(|r| r.references.iter())
        .collect();
    let reference_infos = reference_infos(spawner, &reference_variants, &probed, &infos)?;
    let info: BTreeMap<usize, &VariantInfo> = probe.iter().copied().zip(infos.iter()).collect();
    compute_expected_outputs(opts, &progress)?;
    let todo = cells::to_run(&cells, variants, &info, &held);
    let made = opts
        .rounds
        .as_ref()
        .map(|_| cells::made_before(&todo, &cells, variants, &info, &held));
    let mut suite = cells::Suite {
        spawner,
        opts,
        store: &store,
        progress: &progress,
        session: &session,
        variants,
        cells: &cells,
        info: &info,
        todo,
        ahead: cells::Ahead::new(&cells, variants, &info, &held, &estimator),
        held,
        estimator,
        ready: BTreeMap::new(),
        rewrite: Default::default(),
        made,
        references: reference_variants
            .iter()
            .copied()
            .zip(reference_infos.iter())
            .collect(),
        reference_cells: BTreeMap::new(),
        last_pass_s: None,
        attempts: 0,
        key: key.as_ref(),
    };
    // After Ctrl-C (`Break`): the table of what was kept, and how to
    // continue (`summary`, which rewrites the derived files; on an error
    // the suite's drop does).
    let n = suite.len();
    let _ = match &opts.rounds {
        None => schedule::run(n, opts.runs, &mut CellByCell, None, &mut suite)?,
        Some(r) => {
            let mut order = InRounds::new(Rounds { seed: r.seed });
            let mut blocks = Blocks::new(r.block_s);
            let blocks = (!r.references.is_empty()).then_some(&mut blocks);
            schedule::run(n, opts.runs, &mut order, blocks, &mut suite)?
        }
    };
    progress.finish_and_clear();
    let warnings = store
        .load()?
        .sessions
        .iter()
        .find(|s| s.session == session)
        .and_then(|s| s.hygiene.as_ref())
        .map(|h| h.warnings.clone())
        .unwrap_or_default();
    suite.leave_rewrite();
    Ok((summary(&store, opts)?, warnings))
}

/// The results directory's store, said so when it is new, and what it
/// holds already when this session adds to it (not resuming): its cells'
/// figures change.
fn open(out: &Path, resume: bool) -> Result<Store> {
    let created = !out.exists();
    if !resume && let Some(held) = holds(out)? {
        eprintln!(
            "{} already holds {held}: this session adds to it, and the cells it runs show its runs instead",
            out.display()
        );
    }
    let store = Store::open(out)?;
    if created {
        let near = crate::store::similar_results_dir(out)
            .map(|d| format!("; did you mean {d}?"))
            .unwrap_or_default();
        eprintln!("created {} (a new results directory{near})", out.display());
    }
    Ok(store)
}

/// This machine's seal key ([`crate::seal`]), made on first use: every
/// record this session stores is sealed with it, and `--resume` keeps
/// only the runs it verifies. Without one (the state directory cannot be
/// written, or holds a key it refuses) the session runs all the same,
/// says so, and seals nothing.
fn seal_key() -> Option<crate::seal::Key> {
    match crate::seal::Key::mine() {
        Ok(k) => Some(k),
        Err(e) => {
            export::terminal::warn(&format!(
                "{e:#}: this session's runs are not sealed, so `--resume` will measure them again"
            ));
            None
        }
    }
}

/// `--resume`: what the records hold of each cell, and the cells whose
/// program changed, to run again complete or not, with a line on the runs
/// of the selected `cells` it does not trust (not sealed with this
/// machine's `key`). A directory measured on another machine is refused
/// before anything is written.
fn held(
    stored: &crate::store::Stored,
    spawner: &Spawner,
    key: Option<crate::seal::Key>,
    variants: &[&Variant],
    cells: &[(usize, Bench)],
    opts: &Options,
    dir: &Path,
) -> Result<BTreeMap<(String, Bench), Held>> {
    let now = resume::Now {
        size: opts.size,
        runs: opts.runs,
        containment: spawner.containment.describe(),
        cpus: opts.cpus.clone(),
        machine: crate::machine::Machine::detect(),
        key,
    };
    resume::refuse_other_machine(stored, &now.machine, dir)?;
    // A cell whose program changed runs again, complete or not; so does
    // one holding runs this machine did not record, said in one line.
    let (held, distrust) = resume::held_now(stored, &now, variants);
    let selected: std::collections::HashSet<(&str, Bench)> = cells
        .iter()
        .map(|&(i, b)| (variants[i].id.as_str(), b))
        .collect();
    let line = resume::untrusted_line(&distrust, now.key.as_ref(), |(id, b)| {
        selected.contains(&(id.as_str(), *b))
    });
    if let Some(line) = line {
        eprintln!("{line}");
    }
    Ok(held)
}

/// The variants to probe (by index): those with a cell `--resume` does not
/// hold complete, the complete ones said; `None` when none is left.
fn to_probe(
    store: &Store,
    variants: &[&Variant],
    cells: &[(usize, Bench)],
    held: &BTreeMap<(String, Bench), Held>,
) -> Option<Vec<usize>> {
    let complete = |&(i, b): &(usize, Bench)| {
        matches!(held.get(&(variants[i].id.clone(), b)), Some(Held::Complete))
    };
    let mut probe: Vec<usize> = cells.iter().filter(|c| !complete(c)).map(|c| c.0).collect();
    probe.dedup();
    let skipped = cells.iter().filter(|c| complete(c)).count();
    let dir = store.dir().display().to_string();
    if skipped > 0 {
        eprintln!(
            "--resume: {skipped} of {} cells already complete in {dir}: skipped",
            cells.len()
        );
    }
    if probe.is_empty() {
        eprintln!("nothing left to run: every selected cell is complete in {dir}");
        return None;
    }
    Some(probe)
}

/// What the session record says about this suite.
fn session_params(opts: &Options) -> SessionParams<'_> {
    SessionParams {
        size: opts.size.label(),
        runs: opts.runs,
        timeout_s: opts.timeout.as_secs_f64(),
        command_line: &opts.command_line,
        suffix: "",
        shard: opts.shard.map(|s| s.to_string()),
        cpus: opts.cpus.clone(),
        schedule: opts.rounds.as_ref().map(|r| crate::record::Schedule {
            seed: r.seed,
            references: r.references.iter().map(|v| v.id.clone()).collect(),
            block_s: r.block_s,
        }),
    }
}

/// The reference variants' toolchains: those the session probed already
/// (a reference that is also measured), the others probed now. A
/// reference not installed is left out of the passes when its first pass
/// comes (said then).
fn reference_infos(
    spawner: &Spawner,
    references: &[&Variant],
    probed: &[&Variant],
    infos: &[VariantInfo],
) -> Result<Vec<VariantInfo>> {
    let others: Vec<&Variant> = references
        .iter()
        .copied()
        .filter(|r| !probed.iter().any(|p| p.id == r.id))
        .collect();
    let mut fresh = if others.is_empty() {
        Vec::new()
    } else {
        crate::toolchain::inspect_all(spawner, &others, &|_, _| {})
            .context("interrupted while checking the reference set's toolchains")?
    }
    .into_iter();
    Ok(references
        .iter()
        .map(|r| match probed.iter().position(|p| p.id == r.id) {
            Some(i) => infos[i].clone(),
            None => fresh.next().unwrap_or_default(),
        })
        .collect())
}

/// Every expected output before the first run: computing one (a minute
/// and 2 GB for assoc at 12,000,000) can then never cost a finished run.
fn compute_expected_outputs(opts: &Options, progress: &Progress) -> Result<()> {
    for b in opts.benches.iter().filter(|b| b.is_cpu()) {
        if interrupted() {
            break;
        }
        progress.set_message(format!(
            "expected output of {b} N={} (cached for later sessions)",
            thousands(opts.size.n(*b))
        ));
        verify::expected(*b, opts.size.n(*b))
            .with_context(|| format!("{b} has no expected output"))?;
    }
    Ok(())
}

/// The cells in the order they run: each variant (by its index in
/// `variants`) with each selected CPU benchmark it has a program for.
fn cells(variants: &[&Variant], opts: &Options) -> Vec<(usize, Bench)> {
    variants
        .iter()
        .enumerate()
        .flat_map(|(i, v)| {
            opts.benches
                .iter()
                .filter(|b| b.is_cpu() && v.programs.contains_key(b))
                .map(move |b| (i, *b))
        })
        .collect()
}

/// The derived files once more after the last run (their warnings shown),
/// and the table of what the directory holds; after Ctrl-C, the command
/// that continues.
fn summary(store: &Store, opts: &Options) -> Result<Summary> {
    let derived = crate::derived::write_all_with(store, opts.view.clone())?;
    for w in &derived.warnings {
        export::terminal::warn(w);
    }
    let summary = derived
        .summary
        .context("the results directory holds no run")?;
    if interrupted() {
        eprintln!(
            "interrupted: finished runs are kept in {} (runs.jsonl); to continue where it stopped:\n  {}",
            store.dir().display(),
            shell_words::join(&opts.resume_command)
        );
    }
    Ok(summary)
}

/// `--resume` with every selected cell complete: nothing was stored, so
/// derived files that match the records (their `provenance.json` names
/// these records and this langbench, as `report --check` does) are left
/// as they are, and only the table is built; otherwise (missing, stale or
/// of another langbench) they are rewritten as after a run. Rewriting
/// them is most of the cost at scale (300 MB at 6,500 variants, issue
/// #41).
fn nothing_left(store: &Store, stored: crate::store::Stored, opts: &Options) -> Result<Summary> {
    let current = crate::derived::provenance::Provenance::read(store.dir())
        .ok()
        .flatten()
        .is_some_and(|p| {
            p.kind == crate::derived::provenance::Kind::Results
                && p.langbench == env!("CARGO_PKG_VERSION")
                && p.changed(store.dir()).is_empty()
        });
    if !current || stored.runs.is_empty() {
        return summary(store, opts);
    }
    for w in &stored.warnings {
        export::terminal::warn(w);
    }
    Ok(Summary::from_stored(&stored).view(&opts.view))
}

/// Refuses to mix sizes in one results directory: a table has one N per
/// benchmark.
fn check_sizes(store: &Store, stored: &crate::store::Stored, opts: &Options) -> Result<()> {
    for b in &opts.benches {
        let n = opts.size.n(*b);
        if let Some(r) = stored.runs.iter().find(|r| r.bench == *b && r.n != n) {
            bail!(
                "{} already holds {b} runs at N={} and this run asks for N={n}: \
                 choose another --out (one table has one size per benchmark)",
                store.dir().display(),
                r.n
            );
        }
    }
    Ok(())
}
