//! `langbench run`: the CPU suite. Every selected variant × benchmark (a
//! cell) gets N runs, each measured through the spawner, verified and
//! stored as it finishes. It reads top down as the plan: `command` (this
//! shard's variants, the CPU suite, then ws-echo) → `benchmark` (`--resume`
//! decides from the records, the session, then each cell) → `Suite::cell`
//! (resume, not installed, prepare) → `Suite::runs` (best of N or `--runs
//! auto`, skip after a failure, Ctrl-C) → `CellCtx::measure` (one run: its
//! steps, the check, the record). `plan_command` is `run --plan`: the same
//! selection and estimates, nothing run.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashSet};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::bench::{Bench, Size};
use crate::config::{Template, Variant, Vars};
use crate::derived::finish;
use crate::document::thousands;
use crate::estimate::{Basis, Estimator, Figure, Figures};
use crate::export;
use crate::noise::Runs;
use crate::progress::{Progress, duration};
use crate::record::{Identity, Origin, RunRecord, SCHEMA, Status, VariantInfo, now_rfc3339};
use crate::resume::{self, Held};
use crate::session::{SessionParams, begin_session};
use crate::shard::{Plan, Shard};
use crate::signals::{install_interrupt_handler, interrupted};
use crate::spawn::{Exit, Limits, Outcome, Spawner, escape};
use crate::state::Caches;
use crate::step::{self, Step, stderr_tail};
use crate::store::{Store, Stored};
use crate::summary::Summary;
use crate::verify;

/// What `langbench run` was asked to do.
#[derive(Debug, Clone)]
pub struct Options {
    pub benches: Vec<Bench>,
    pub size: Size,
    pub runs: Runs,
    pub timeout: Duration,
    pub out: PathBuf,
    pub command_line: Vec<String>,
    /// Skip cells that the results directory already holds complete, and
    /// carry on after the finished runs of cells cut short.
    pub resume: bool,
    /// How the tables are rendered (spread column, noise threshold).
    pub view: crate::summary::View,
    /// `--shard K/N` (recorded in the session).
    pub shard: Option<Shard>,
    /// `--balance-from`: the results directory whose records estimate what
    /// each cell costs (shards, plan, time left).
    pub balance_from: Option<PathBuf>,
    /// Pin every measured process to these CPUs.
    pub cpus: Option<Vec<usize>>,
    /// Every run from empty toolchain caches (`--cold-caches`): builds
    /// from scratch, instead of a person's warm second run.
    pub cold_caches: bool,
    /// The command that continues this run after a Ctrl-C: its own
    /// command line with `--resume` (and `--out`).
    pub resume_command: Vec<String>,
    /// `--wide`: every column of the terminal table, however wide.
    pub wide: bool,
}

/// The default results directory: `results/<year>` for the edition size,
/// `results/<year>-<size>` for any other.
pub fn default_out(size: Size) -> PathBuf {
    let year = chrono::Utc::now().format("%Y").to_string();
    if size == Size::default() {
        PathBuf::from("results").join(year)
    } else {
        PathBuf::from("results").join(format!("{year}-{}", size.label()))
    }
}

/// The records of `dir`, if it holds any (nothing is created).
fn stored_if_any(dir: &Path) -> Result<Option<Stored>> {
    if !dir.join(crate::store::RUNS).is_file() {
        return Ok(None);
    }
    Ok(Some(Store::open(dir)?.load()?))
}

/// The estimates a run believes, with the directories they come from:
/// `balance` for its shards (with `--shard`: `--balance-from`'s records, or
/// else the results directory's own from before its first `--shard K/N`
/// session, so that every machine, and a resumed shard, computes the same
/// shards; without: as `progress`) and `progress` for the plan and the time
/// left (the results directory's records, then `--balance-from`'s).
pub struct Estimates {
    pub balance: Estimator,
    pub balance_sources: Vec<(Basis, String)>,
    pub progress: Estimator,
}

pub fn estimates(opts: &Options) -> Result<Estimates> {
    let here = stored_if_any(&opts.out)?;
    let from = match &opts.balance_from {
        Some(d) => stored_if_any(d)?.map(|s| (d.display().to_string(), s)),
        None => None,
    };
    let new = |layers| Estimator::new(layers, opts.size, opts.runs, opts.timeout.as_secs_f64());
    let out = opts.out.display().to_string();
    let mut layers = Vec::new();
    let mut sources = Vec::new();
    if let Some(h) = &here {
        layers.push((Basis::Here, Figures::of(h)));
        sources.push((Basis::Here, out.clone()));
    }
    if let Some((d, f)) = &from {
        layers.push((Basis::BalanceFrom, Figures::of(f)));
        sources.push((Basis::BalanceFrom, d.clone()));
    }
    let (balance, balance_sources) = match (opts.shard, &from, &here) {
        (Some(_), Some((d, f)), _) => (
            vec![(Basis::BalanceFrom, Figures::of(f))],
            vec![(Basis::BalanceFrom, d.clone())],
        ),
        (Some(s), None, Some(h)) => (
            vec![(Basis::Here, Figures::before_shards(h, s.n))],
            vec![(
                Basis::Here,
                format!(
                    "{out} (its records from before any --shard K/{} session)",
                    s.n
                ),
            )],
        ),
        (Some(_), None, None) => (Vec::new(), Vec::new()),
        (None, ..) => (layers.clone(), sources),
    };
    Ok(Estimates {
        balance: new(balance),
        balance_sources,
        progress: new(layers),
    })
}

/// `run --shard K/N`: this machine's variants of the balanced plan, named
/// on stderr with what the shard is expected to cost (so each machine's
/// log says what it ran), and the variants no shard can even out.
fn this_shard<'a>(
    variants: &[&'a Variant],
    opts: &Options,
    shard: Shard,
    est: &Estimates,
) -> Vec<&'a Variant> {
    let mut plan = Plan::new(
        variants,
        &opts.benches,
        &est.balance,
        Some(shard),
        &HashSet::new(),
    );
    plan.sources = est.balance_sources.clone();
    let mine = shard.select(&plan);
    let by = match plan.sources.first() {
        Some((_, d)) => format!("balanced by the records of {d}"),
        None => "no records to balance by: dealt out by id".to_string(),
    };
    eprintln!(
        "shard {shard}: {} of the {} selected variants, ~{} of ~{} ({by}): {}",
        mine.len(),
        variants.len(),
        duration(plan.loads()[shard.k - 1]),
        duration(plan.total()),
        mine.iter()
            .map(|v| v.id.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    );
    for w in plan.warnings() {
        eprintln!("warning: {w}");
    }
    mine
}

/// `langbench run --plan`: what the run would do (per shard its variants,
/// cells and estimated time, and the total), as text or JSON; runs and
/// probes nothing, writes nothing.
pub fn plan_command(
    variants: &[&Variant],
    opts: &Options,
    json: bool,
) -> Result<std::process::ExitCode> {
    let est = estimates(opts)?;
    let done = match (opts.resume, stored_if_any(&opts.out)?) {
        (true, Some(s)) => {
            let changed = resume::program_changes(&s, variants, opts.size);
            let mut done = resume::complete_cells(&s, opts.runs);
            done.retain(|k| !changed.contains_key(k));
            done
        }
        _ => HashSet::new(),
    };
    let mut plan = Plan::new(variants, &opts.benches, &est.balance, opts.shard, &done);
    plan.sources = est.balance_sources.clone();
    if json {
        println!("{}", serde_json::to_string_pretty(&plan.json())?);
    } else {
        let sizes: Vec<String> = opts
            .benches
            .iter()
            .filter(|b| b.is_cpu())
            .map(|b| format!("{b} N={}", thousands(opts.size.n(*b))))
            .collect();
        println!(
            "Plan (nothing runs): {}; {}; {}, timeout {}; into {}",
            crate::shard::count(variants.len(), "variant"),
            sizes.join(", "),
            opts.runs.describe(),
            duration(opts.timeout.as_secs_f64()),
            opts.out.display()
        );
        print!("{}", plan.text());
    }
    Ok(std::process::ExitCode::SUCCESS)
}

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
    let est = estimates(opts)?;
    let variants = match opts.shard {
        Some(s) => this_shard(variants, opts, s, &est),
        None => variants.to_vec(),
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
        let (summary, warnings) = benchmark(spawner, &cpu_variants, opts, est.progress)?;
        let width = export::terminal::width(opts.wide);
        println!(
            "{}",
            export::terminal::document_fit(&summary.document(), width)
        );
        for w in &warnings {
            eprintln!("warning: {w}");
        }
    }
    if opts.benches.contains(&Bench::WsEcho) && !interrupted() {
        let records = crate::ws::benchmark(spawner, &variants, ws)?;
        crate::ws::summary::print(&records);
    }
    Ok(finish(&opts.out))
}

/// Benchmarks every cell (variant × benchmark): with `--resume` what the
/// records hold first (complete cells are skipped, their variants never
/// probed), then a session, then each cell's runs in order. Every run is
/// appended to the store (and the derived files rewritten) as soon as it
/// finishes. Returns the table and the machine's warnings (to repeat under
/// it).
pub fn benchmark(
    spawner: &Spawner,
    variants: &[&Variant],
    opts: &Options,
    estimator: Estimator,
) -> Result<(Summary, Vec<String>)> {
    let created = !opts.out.exists();
    let store = Store::open(&opts.out)?;
    if created {
        let near = crate::store::similar_results_dir(&opts.out)
            .map(|d| format!("; did you mean {d}?"))
            .unwrap_or_default();
        eprintln!(
            "created {} (a new results directory{near})",
            opts.out.display()
        );
    }
    let _lock = store.lock()?;
    let stale = crate::scratch::clean_stale();
    if stale > 0 {
        eprintln!("removed {stale} build directories a killed langbench left behind");
    }
    check_sizes(&store, opts)?;
    let held = if opts.resume {
        let now = resume::Now {
            size: opts.size,
            runs: opts.runs,
            containment: spawner.containment.describe(),
            cpus: opts.cpus.clone(),
            machine: crate::machine::Machine::detect(),
        };
        let stored = store.load()?;
        let mut held = resume::held(&stored, &now);
        // A cell whose program changed runs again, complete or not.
        for (k, why) in resume::program_changes(&stored, variants, opts.size) {
            held.insert(k, Held::Rerun(why));
        }
        held
    } else {
        BTreeMap::new()
    };
    let cells = cells(variants, opts);
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
        return Ok((summary(&store, opts)?, Vec::new()));
    }
    let progress = Progress::new();
    let probed: Vec<&Variant> = probe.iter().map(|&i| variants[i]).collect();
    let (session, infos) = begin_session(
        &store,
        spawner,
        &probed,
        progress.bar(),
        session_params(opts),
    )?;
    let info: BTreeMap<usize, &VariantInfo> = probe.iter().copied().zip(infos.iter()).collect();
    compute_expected_outputs(opts, &progress)?;
    let ahead = Ahead::new(&cells, variants, &info, &held, &estimator);
    let suite = Suite {
        opts,
        store: &store,
        progress: &progress,
        held,
        estimator: RefCell::new(estimator),
        ahead,
    };
    for (k, &(i, bench)) in cells.iter().enumerate() {
        let Some(info) = info.get(&i) else {
            continue;
        };
        if matches!(
            suite.held.get(&(variants[i].id.clone(), bench)),
            Some(Held::Complete)
        ) {
            continue;
        }
        let ctx = CellCtx {
            spawner,
            variant: variants[i],
            info,
            bench,
            size: opts.size,
            session: &session,
            cpus: opts.cpus.as_deref(),
            caches: None,
            continues: None,
        };
        let label = format!(
            "[{}/{}] {} · {bench} N={}",
            k + 1,
            cells.len(),
            ctx.variant.id,
            thousands(ctx.n())
        );
        if suite.cell(ctx, k, &label)?.is_break() {
            break;
        }
    }
    progress.finish_and_clear();
    let warnings = store
        .load()?
        .sessions
        .iter()
        .find(|s| s.session == session)
        .and_then(|s| s.hygiene.as_ref())
        .map(|h| h.warnings.clone())
        .unwrap_or_default();
    Ok((summary(&store, opts)?, warnings))
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
    }
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
        eprintln!("warning: {w}");
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

/// Refuses to mix sizes in one results directory: a table has one N per
/// benchmark.
fn check_sizes(store: &Store, opts: &Options) -> Result<()> {
    let stored = store.load()?;
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

/// What the cells after each one are expected to cost, for the time left:
/// sums from each cell to the last, of the cells whose figures are known
/// (fixed for the session) and of the runs of those without (they cost the
/// median, which changes as cells finish).
struct Ahead {
    known: Vec<f64>,
    /// Runs, per benchmark (in [`Bench::ALL`] order).
    median_runs: Vec<[f64; 4]>,
}

fn bench_index(b: Bench) -> usize {
    Bench::ALL.iter().position(|x| *x == b).unwrap_or(0)
}

impl Ahead {
    fn new(
        cells: &[(usize, Bench)],
        variants: &[&Variant],
        info: &BTreeMap<usize, &VariantInfo>,
        held: &BTreeMap<(String, Bench), Held>,
        est: &Estimator,
    ) -> Ahead {
        let mut known = vec![0.0; cells.len() + 1];
        let mut median_runs = vec![[0.0; 4]; cells.len() + 1];
        for (j, &(i, b)) in cells.iter().enumerate().rev() {
            known[j] = known[j + 1];
            median_runs[j] = median_runs[j + 1];
            let id = &variants[i].id;
            let kept = match held.get(&(id.clone(), b)) {
                Some(Held::Complete) => continue,
                Some(Held::Partial { runs, .. }) => runs.len() as u32,
                _ => 0,
            };
            if !info.get(&i).is_some_and(|v| v.installed) {
                continue;
            }
            match est.figure(id, b) {
                Some(e) => known[j] += e.per_run_s * e.runs.saturating_sub(kept) as f64,
                None => {
                    median_runs[j][bench_index(b)] += est.fresh_runs().saturating_sub(kept) as f64
                }
            }
        }
        Ahead { known, median_runs }
    }

    /// Seconds expected after cell `k` (`None`: nothing is known).
    fn after(&self, k: usize, est: &Estimator) -> Option<f64> {
        if !est.knows_anything() {
            return None;
        }
        let j = (k + 1).min(self.known.len() - 1);
        let mut s = self.known[j];
        for (bi, b) in Bench::ALL.iter().enumerate() {
            let runs = self.median_runs[j][bi];
            if runs > 0.0 {
                s += runs * est.median(*b)?;
            }
        }
        Some(s)
    }
}

/// A suite in progress: what every cell shares.
struct Suite<'a> {
    opts: &'a Options,
    store: &'a Store,
    progress: &'a Progress,
    /// `--resume`: what the results directory holds of each cell.
    held: BTreeMap<(String, Bench), Held>,
    /// What each cell is expected to cost, updated as cells finish.
    estimator: RefCell<Estimator>,
    ahead: Ahead,
}

impl Suite<'_> {
    /// One cell (the `k`-th): with `--resume`, its finished runs kept or
    /// why not; one record when its toolchain is missing or its `prepare`
    /// fails, else its runs. `Break` after Ctrl-C.
    fn cell(&self, mut ctx: CellCtx, k: usize, label: &str) -> Result<ControlFlow<()>> {
        let mut kept = Vec::new();
        match self.held.get(&(ctx.variant.id.clone(), ctx.bench)) {
            Some(Held::Partial { runs, session }) if ctx.info.installed => {
                match resume::keeps(runs, &ctx.info.version, ctx.identity().as_ref()) {
                    Ok(()) => {
                        self.progress.say(format!(
                            "{label}: keeps its {} finished run{} (session {session}) and runs the rest",
                            runs.len(),
                            if runs.len() == 1 { "" } else { "s" }
                        ));
                        kept = runs.clone();
                        ctx.continues = Some(session.clone());
                    }
                    Err(why) => self
                        .progress
                        .say(format!("{label}: runs again from run 1: {why}")),
                }
            }
            Some(Held::Rerun(why)) => self
                .progress
                .say(format!("{label}: runs again from run 1: {why}")),
            _ => {}
        }
        if !ctx.info.installed {
            let (missing, hint) = (ctx.info.missing.join(", "), &ctx.info.install_hint);
            self.progress.say(format!(
                "{label}: not installed (missing {missing}; {hint})"
            ));
            let detail = format!("missing {missing} on PATH; install: {hint}");
            self.save(ctx.record(0, Status::NotInstalled, Some(detail)))?;
            return Ok(ControlFlow::Continue(()));
        }
        let ids = ctx.spawner.containment.limits.ids;
        match Caches::of(ctx.variant, &ctx.info.version, self.opts.cold_caches, ids) {
            Ok(c) => ctx.caches = Some(c),
            Err(e) => {
                let detail = format!("cannot set up its caches: {e:#}");
                self.progress.say(format!("{label}: {detail}"));
                self.save(ctx.record(0, Status::Failed, Some(detail)))?;
                return Ok(ControlFlow::Continue(()));
            }
        }
        if !ctx.variant.prepare.is_empty() {
            self.progress.set_message(format!("{label} · prepare"));
            let prepared = step::prepare(
                ctx.spawner,
                ctx.variant,
                ctx.bench,
                self.opts.timeout,
                ctx.caches.as_ref(),
            );
            if let Err(e) = prepared {
                if interrupted() {
                    return Ok(ControlFlow::Break(()));
                }
                self.progress.say(format!("{label}: {e}"));
                self.save(ctx.record(0, Status::Failed, Some(e)))?;
                return Ok(ControlFlow::Continue(()));
            }
        }
        self.runs(&ctx, k, label, kept)
    }

    /// A cell's runs after those `kept`: N (best of N in the tables), or
    /// with `--runs auto` until their spread is small. After a run that
    /// settles the cell (it failed), the remaining runs are recorded as
    /// skipped (N runs) or not made (auto). The cell's figure then counts
    /// for the time left. `Break` after Ctrl-C.
    fn runs(
        &self,
        ctx: &CellCtx,
        k: usize,
        label: &str,
        kept: Vec<RunRecord>,
    ) -> Result<ControlFlow<()>> {
        let runs = self.opts.runs;
        let mut settled: Option<Status> = kept.iter().map(|r| r.status).find(|s| s.settles_cell());
        let mut walls: Vec<f64> = kept
            .iter()
            .filter(|r| r.status.has_figures())
            .map(|r| r.wall_s)
            .collect();
        let first = kept.len() as u32 + 1;
        let mut done = kept;
        let mut flow = ControlFlow::Continue(());
        for run in first..=runs.max() {
            if runs.enough(run - 1, &done) {
                break;
            }
            if let Some(earlier) = settled {
                if matches!(runs, Runs::Auto { .. }) {
                    break;
                }
                let detail = format!("an earlier run ended {earlier}");
                let rec = ctx.record(run, Status::Skipped, Some(detail));
                done.push(rec.clone());
                self.save(rec)?;
                continue;
            }
            let Some(rec) = self.run(ctx, k, label, run, &walls)? else {
                flow = ControlFlow::Break(());
                break;
            };
            if rec.status.settles_cell() {
                settled = Some(rec.status);
            }
            if rec.status.has_figures() {
                walls.push(rec.wall_s);
            }
            done.push(rec.clone());
            self.save(rec)?;
        }
        if let Some(f) = Figure::of(&done) {
            self.estimator
                .borrow_mut()
                .finished(&ctx.variant.id, ctx.bench, f);
        }
        Ok(flow)
    }

    /// What run `run` of the `k`-th cell is expected to take (the mean of
    /// the cell's finished runs, else its estimate) and what is expected
    /// after it: the cell's remaining runs and every cell after it.
    fn expected(
        &self,
        ctx: &CellCtx,
        k: usize,
        run: u32,
        walls: &[f64],
    ) -> (Option<f64>, Option<f64>) {
        let est = self.estimator.borrow();
        let e = est.cell(&ctx.variant.id, ctx.bench);
        let per_run = if !walls.is_empty() {
            Some(walls.iter().sum::<f64>() / walls.len() as f64)
        } else {
            e.known().then_some(e.per_run_s)
        };
        let more = e.runs.saturating_sub(run) as f64;
        let rest = self
            .ahead
            .after(k, &est)
            .map(|a| a + per_run.unwrap_or(0.0) * more);
        (per_run, rest)
    }

    /// One run of the cell, measured and shown; `None` after Ctrl-C (the
    /// run is discarded).
    fn run(
        &self,
        ctx: &CellCtx,
        k: usize,
        label: &str,
        run: u32,
        walls: &[f64],
    ) -> Result<Option<RunRecord>> {
        let what = format!("{label} · {}", self.opts.runs.nth(run));
        let (expected, rest) = self.expected(ctx, k, run, walls);
        self.progress
            .start_run(what.clone(), self.opts.timeout, expected, rest);
        let rec = ctx.measure(run, self.opts.timeout);
        self.progress.end_run();
        let rec = rec?;
        if interrupted() {
            self.progress
                .say(format!("{label}: interrupted; run {run} discarded"));
            return Ok(None);
        }
        let mut line = format!(
            "{what}: {:>8.3} s {:>12} KB  {}",
            rec.wall_s,
            thousands(rec.max_rss_kb),
            rec.status
        );
        if let Some(d) = &rec.detail {
            line.push_str(&format!(" ({})", d.lines().next().unwrap_or("")));
        }
        self.progress.say(line);
        Ok(Some(rec))
    }

    /// Stores a record and rewrites the derived files.
    fn save(&self, rec: RunRecord) -> Result<()> {
        self.store.append_run(&rec)?;
        crate::derived::write_all_with(self.store, self.opts.view.clone())?;
        Ok(())
    }
}

/// A cell being measured: variant × benchmark at one size.
struct CellCtx<'a> {
    spawner: &'a Spawner,
    variant: &'a Variant,
    info: &'a VariantInfo,
    bench: Bench,
    size: Size,
    session: &'a str,
    /// `--cpus`: every measured process pinned there.
    cpus: Option<&'a [usize]>,
    /// The variant's toolchain caches (set once the cell runs).
    caches: Option<Caches>,
    /// `--resume` kept this cell's finished runs of that session: the new
    /// runs continue them.
    continues: Option<String>,
}

impl CellCtx<'_> {
    fn n(&self) -> u64 {
        self.size.n(self.bench)
    }

    /// The program identity this session records for the cell's runs (as
    /// [`CellCtx::record`] fills it): what `--resume` compares with the
    /// identity of the runs it would keep.
    fn identity(&self) -> Option<Identity> {
        self.record(0, Status::Ok, None).identity
    }

    fn record(&self, run: u32, status: Status, detail: Option<String>) -> RunRecord {
        RunRecord {
            schema: SCHEMA,
            session: self.session.to_string(),
            finished_at: now_rfc3339(),
            variant: self.variant.id.clone(),
            language: self.variant.language.clone(),
            flags: self.variant.flags.clone(),
            version: self.info.version.clone(),
            bench: self.bench,
            size: self.size.label(),
            n: self.n(),
            attempt: run,
            wall_s: 0.0,
            user_s: 0.0,
            sys_s: 0.0,
            max_rss_kb: 0,
            build_wall_s: None,
            tree_cpu_s: None,
            tree_max_rss_kb: None,
            exit: None,
            status,
            detail,
            origin: Origin::Measured,
            identity: crate::identity::of(self.variant, self.bench, self.n(), &self.info.version),
            cache: None,
            continues: self.continues.clone(),
        }
    }

    /// One timed run: build steps (if any) and the run, each through the
    /// spawner, within one timeout; then the output check.
    fn measure(&self, run: u32, timeout: Duration) -> Result<RunRecord> {
        let build_dir = crate::scratch::dir("build")?;
        let vars = Vars {
            n: Some(self.n()),
            ..step::vars(self.spawner, self.variant, self.bench, build_dir.path())
                .context("no program for this benchmark")?
        };
        let mut rec = self.record(run, Status::Ok, None);
        // The program's source digest, short as the records' digests are.
        let program: Option<String> = rec
            .identity
            .as_ref()
            .map(|i| i.program.chars().take(16).collect());
        rec.cache = self
            .caches
            .as_ref()
            .and_then(|c| c.start(program.as_deref()));
        if self.caches.is_some() && rec.cache.is_none() && !self.variant.caches.is_empty() {
            // --cold-caches: a fresh HOME every run.
            rec.cache = Some(crate::record::CacheStart::Cold);
        }
        let mut totals = Totals::default();
        let ended = self.steps(&vars, build_dir.path(), timeout, &mut totals);
        totals.fill(&mut rec);
        match ended {
            Ended::Ran(o) => self.judge(&mut rec, &o, &totals, timeout),
            Ended::CannotStart { command, error } => {
                rec.status = Status::Failed;
                rec.detail = Some(format!("cannot run `{command}`: {error:#}"));
            }
            Ended::BuildFailed {
                command,
                outcome: o,
            } => {
                rec.status = classify(&o, false);
                let detail = format!("build `{command}`: {}; {}", o.done.exit, stderr_tail(&o));
                rec.detail = Some(if rec.status == Status::Oom {
                    format!("build killed by the memory limit; {detail}")
                } else {
                    detail
                });
            }
        }
        if totals.bounds.disk {
            rec.status = Status::Failed;
            let note = format!(
                "killed for writing more than {} MB to the host's disk (its build directory and caches; --disk-limit)",
                self.spawner.containment.limits.disk_kb / 1024
            );
            rec.detail = Some(match rec.detail.take() {
                Some(d) => format!("{note}; {d}"),
                None => note,
            });
        }
        if let Some(c) = &self.caches {
            rec.cache = c.end(rec.cache, program.as_deref(), rec.status == Status::Ok);
        }
        rec.finished_at = now_rfc3339();
        Ok(rec)
    }

    /// The build steps, then the run, each through the spawner within what
    /// is left of one timeout, their figures added to `totals`. The run
    /// never happens when a step cannot start or a build step fails.
    fn steps(
        &self,
        vars: &Vars,
        build_dir: &Path,
        timeout: Duration,
        totals: &mut Totals,
    ) -> Ended {
        let cwd = self.variant.cwd(vars);
        let copy = crate::state::prepared_dir(self.variant, self.bench);
        let started = Instant::now();
        let mut execute = |t: &Template| {
            Step {
                variant: self.variant,
                timeout: timeout
                    .saturating_sub(started.elapsed())
                    .max(Duration::from_millis(1)),
                argv: t.expand(vars),
                cwd: &cwd,
                cpus: self.cpus,
                scratch: build_dir,
                program_copy: copy.as_deref(),
                prepare: None,
                caches: self.caches.as_ref(),
            }
            .execute(self.spawner)
        };
        run_steps(&self.variant.build, &self.variant.run, &mut execute, totals)
    }

    /// The run's status from its exit and output, the note that says why it
    /// is not ok, and whether its work escaped its own figures.
    fn judge(&self, rec: &mut RunRecord, o: &Outcome, totals: &Totals, timeout: Duration) {
        let expected = verify::expected(self.bench, self.n()).unwrap_or_default();
        let check = verify::check(&expected, &o.stdout.bytes, o.stdout.truncated());
        judge(
            rec,
            o,
            check,
            totals,
            &self.spawner.containment.limits,
            timeout,
        );
    }
}

/// How a cell's commands run: through the spawner in a measuring session
/// (a closure building each [`Step`]), or a script of outcomes in the
/// tests, so that what the suite decides from outcomes (a failed build
/// skips the run, the status, ESCAPED) is tested without processes
/// (hyperfine's `Executor` and `MockExecutor` are the model).
trait Executor {
    /// Runs one of the cell's commands (a build step or the run).
    fn execute(&mut self, command: &Template) -> Result<Outcome>;
}

impl<F: FnMut(&Template) -> Result<Outcome>> Executor for F {
    fn execute(&mut self, command: &Template) -> Result<Outcome> {
        self(command)
    }
}

/// The build steps, then the run, each through `executor`, their figures
/// added to `totals`. The run never happens when a step cannot start or a
/// build step fails.
fn run_steps(
    build: &[Template],
    run: &Template,
    executor: &mut impl Executor,
    totals: &mut Totals,
) -> Ended {
    let cannot_start = |t: &Template, error| Ended::CannotStart {
        command: t.text.clone(),
        error,
    };
    for t in build {
        let o = match executor.execute(t) {
            Ok(o) => o,
            Err(error) => return cannot_start(t, error),
        };
        totals.add_build(&o);
        if o.done.timed_out || o.done.exit != Exit::Exited(0) {
            return Ended::BuildFailed {
                command: t.text.clone(),
                outcome: o,
            };
        }
    }
    match executor.execute(run) {
        Ok(o) => {
            totals.add(&o);
            Ended::Ran(o)
        }
        Err(error) => cannot_start(run, error),
    }
}

/// A run's status and note from its outcome, its output check, its steps'
/// figures and the run's bounds: how it ended, then whether its work
/// escaped its own figures (ESCAPED replaces ok, bad-exit and
/// wrong-output; a crash, timeout or OOM stays what it was, with the note).
fn judge(
    rec: &mut RunRecord,
    o: &Outcome,
    check: Result<(), String>,
    totals: &Totals,
    limits: &Limits,
    timeout: Duration,
) {
    rec.status = classify(o, check.is_ok());
    rec.detail = match rec.status {
        Status::Ok => None,
        Status::WrongOutput => check.err(),
        Status::BadExit => Some(format!(
            "right output but {}; {}",
            o.done.exit,
            stderr_tail(o)
        )),
        Status::Timeout => Some(format!("killed after {:.0} s", timeout.as_secs_f64())),
        Status::Oom => Some(format!(
            "killed by the memory limit at a tree peak of {} KB",
            thousands(totals.tree.map_or(0, |t| t.1))
        )),
        _ => Some(format!(
            "{}; {}{}",
            o.done.exit,
            stderr_tail(o),
            check
                .err()
                .map(|e| format!("; output: {e}"))
                .unwrap_or_default()
        )),
    };
    let (escaped, left) = totals.escape_note(limits);
    if escaped.is_some()
        && matches!(
            rec.status,
            Status::Ok | Status::BadExit | Status::WrongOutput
        )
    {
        rec.status = Status::Escaped;
    }
    for note in [escaped, left].into_iter().flatten() {
        rec.detail = Some(match rec.detail.take() {
            Some(d) => format!("{d}; {note}"),
            None => note,
        });
    }
}

/// How a run's steps ended.
enum Ended {
    /// The run step finished (whatever its exit): its outcome, to check.
    Ran(Outcome),
    /// A step could not start: the run never happened.
    CannotStart {
        command: String,
        error: anyhow::Error,
    },
    /// A build step failed or timed out: the run never happened.
    BuildFailed { command: String, outcome: Outcome },
}

/// A run's status from how it ended and whether its output is right.
fn classify(o: &Outcome, output_ok: bool) -> Status {
    if o.done.oom {
        return Status::Oom;
    }
    if o.done.timed_out {
        return Status::Timeout;
    }
    match o.done.exit {
        Exit::Signaled(_) => Status::Crashed,
        Exit::Exited(0) if output_ok => Status::Ok,
        Exit::Exited(0) => Status::WrongOutput,
        Exit::Exited(_) if output_ok => Status::BadExit,
        Exit::Exited(_) => Status::Failed,
    }
}

/// Measured figures of a run, accumulated over its steps.
#[derive(Default)]
struct Totals {
    wall: Duration,
    user: Duration,
    sys: Duration,
    rss: u64,
    /// The whole trees' CPU, peak memory (summed) and largest single
    /// process peak (contained runs).
    tree: Option<(Duration, u64, u64)>,
    /// Processes left running after a step's command ended.
    leftovers: u32,
    /// A supervisor that lost control.
    escaped: bool,
    /// New processes started by the ones left running, after the step's
    /// command ended (a fork-walker).
    forked_after: u32,
    /// The build steps' wall seconds, summed (none without a build step).
    build_wall: Option<f64>,
    /// The exit of the last step that ran.
    exit: Option<Exit>,
    /// What the steps did against the run's bounds.
    bounds: crate::spawn::Bounds,
}

impl Totals {
    fn add(&mut self, o: &Outcome) {
        self.wall += o.done.wall;
        self.user += o.done.user;
        self.sys += o.done.sys;
        self.rss = self.rss.max(o.done.max_rss_kb);
        if let Some(t) = o.done.tree {
            let (cpu, rss, single) = self.tree.unwrap_or_default();
            self.tree = Some((
                cpu + t.user + t.sys,
                rss.max(t.max_rss_kb),
                single.max(t.max_single_rss_kb),
            ));
        }
        self.leftovers += o.done.leftovers;
        self.escaped |= o.done.escaped;
        self.forked_after += o.done.forked_after;
        self.exit = Some(o.done.exit);
        let b = &mut self.bounds;
        b.tasks = b.tasks.max(o.done.bounds.tasks);
        b.proc_limit |= o.done.bounds.proc_limit;
        b.widened |= o.done.bounds.widened;
        b.disk |= o.done.bounds.disk;
    }

    /// A build step's outcome: its time is also the build's.
    fn add_build(&mut self, o: &Outcome) {
        self.add(o);
        self.build_wall = Some(self.build_wall.unwrap_or(0.0) + o.done.wall.as_secs_f64());
    }

    /// The figures into the run's record.
    fn fill(&self, rec: &mut RunRecord) {
        rec.wall_s = self.wall.as_secs_f64();
        rec.user_s = self.user.as_secs_f64();
        rec.sys_s = self.sys.as_secs_f64();
        rec.max_rss_kb = self.rss;
        rec.tree_cpu_s = self.tree.map(|(cpu, _, _)| cpu.as_secs_f64());
        rec.tree_max_rss_kb = self.tree.map(|(_, rss, _)| rss);
        rec.build_wall_s = self.build_wall;
        rec.exit = self.exit;
    }

    /// Why this run's work escaped the process's own figures, if it did
    /// (issue #9, attacks 3 and 4), and a note on processes left running.
    ///
    /// "The process itself" is what `wait4` reports for the build steps and
    /// the run together: their CPU summed, the larger peak RSS; children a
    /// step waited for (a compiler's cc1 and ld, `go run`'s compile and
    /// binary, `nim r`'s parallel gcc jobs, `crystal run`'s codegen
    /// workers) are in those figures already. The tree is every process of
    /// the steps' namespaces. Flagged (`escaped`) when (the thresholds are
    /// named in [`escape`]):
    /// - the tree used more than 0.5 s and 50 % more CPU than the process
    ///   itself (work done by processes nobody waited for);
    /// - one process nobody waited for held more than 50 MB and twice the
    ///   process's own peak (the tree's *summed* memory is recorded, not
    ///   flagged: a compiler's parallel jobs make it 2–8× the largest one);
    /// - processes it left running kept starting new ones after it exited
    ///   (a fork-walker: `WALK_MIN_NEW` within `WALK_WATCH_MS`); an
    ///   idle daemon left running (Erlang's epmd) is only a note;
    /// - its supervisor lost control;
    /// - it reached the run's bound on processes and threads, or one of
    ///   its tasks could run outside `--cpus` (it left the conditions it
    ///   was measured under).
    fn escape_note(&self, limits: &Limits) -> (Option<String>, Option<String>) {
        let own_cpu = (self.user + self.sys).as_secs_f64();
        let mut why = Vec::new();
        if self.escaped {
            why.push("its supervisor lost control and was killed".to_string());
        }
        if self.bounds.proc_limit {
            why.push(format!(
                "it reached the process limit ({} processes and threads, --max-processes; {} seen at once): forks failed",
                limits.max_procs, self.bounds.tasks
            ));
        }
        if self.bounds.widened {
            why.push(
                "it widened its CPU affinity past --cpus (a task could run on other CPUs)"
                    .to_string(),
            );
        }
        if let Some((cpu, _, single)) = self.tree {
            let cpu = cpu.as_secs_f64();
            if escape::cpu_escaped(cpu, own_cpu) {
                why.push(format!(
                    "processes it did not wait for used CPU: the tree {cpu:.2} s, the process itself {own_cpu:.2} s"
                ));
            }
            if escape::memory_escaped(single, self.rss) {
                why.push(format!(
                    "a process it did not wait for peaked at {} KB, the process itself at {} KB",
                    thousands(single),
                    thousands(self.rss)
                ));
            }
        }
        if escape::fork_walker(self.forked_after) {
            why.push(format!(
                "processes it left running kept starting new ones after it exited \
                 ({} within {} ms: a fork-walker; killed with its namespace)",
                self.forked_after,
                escape::WALK_WATCH_MS
            ));
        }
        let left = (self.leftovers > 0).then(|| {
            format!(
                "{} process(es) still running when it exited (killed with its namespace)",
                self.leftovers
            )
        });
        let escaped = (!why.is_empty()).then(|| {
            let tree = self
                .tree
                .map(|(cpu, rss, _)| {
                    format!(
                        " (tree_cpu_s {:.2}, tree_max_rss_kb {}; the process itself {own_cpu:.2} s, {} KB)",
                        cpu.as_secs_f64(),
                        thousands(rss),
                        thousands(self.rss)
                    )
                })
                .unwrap_or_default();
            format!("{}{tree}", why.join("; "))
        });
        (escaped, left)
    }
}

#[cfg(test)]
mod tests {
    //! What the suite decides from outcomes, on scripted ones: no process
    //! starts here.
    use std::collections::VecDeque;

    use super::*;
    use crate::spawn::{Captured, Done, TreeUsage};
    use crate::testing;

    /// Outcomes in the order the cell's commands ask for them; the
    /// commands it was asked to run, by their text.
    #[derive(Default)]
    struct MockExecutor {
        script: VecDeque<Result<Outcome>>,
        ran: Vec<String>,
    }

    impl MockExecutor {
        fn new(script: impl IntoIterator<Item = Result<Outcome>>) -> Self {
            MockExecutor {
                script: script.into_iter().collect(),
                ran: Vec::new(),
            }
        }
    }

    impl Executor for MockExecutor {
        fn execute(&mut self, command: &Template) -> Result<Outcome> {
            self.ran.push(command.text.clone());
            self.script
                .pop_front()
                .unwrap_or_else(|| panic!("`{}` was not expected to run", command.text))
        }
    }

    fn template(text: &str) -> Template {
        Template::parse(text).unwrap()
    }

    /// An outcome: exit 0, `wall` seconds (all of them user CPU), `rss` KB,
    /// printing `stdout`.
    fn outcome(wall: f64, rss: u64, stdout: &str) -> Outcome {
        Outcome {
            done: Done {
                wall: Duration::from_secs_f64(wall),
                user: Duration::from_secs_f64(wall),
                max_rss_kb: rss,
                ..Done::exited(Exit::Exited(0))
            },
            stdout: Captured {
                bytes: stdout.as_bytes().to_vec(),
                total: stdout.len() as u64,
            },
            stderr: Captured::default(),
        }
    }

    fn with_tree(mut o: Outcome, cpu: f64, single_kb: u64) -> Outcome {
        o.done.tree = Some(TreeUsage {
            user: Duration::from_secs_f64(cpu),
            sys: Duration::ZERO,
            max_rss_kb: single_kb.max(o.done.max_rss_kb),
            max_single_rss_kb: single_kb,
        });
        o
    }

    /// Runs the scripted steps and judges the run as the suite does; the
    /// record, and the commands that ran.
    fn measured(
        build: &[&str],
        script: impl IntoIterator<Item = Result<Outcome>>,
        output_ok: bool,
    ) -> (RunRecord, Vec<String>) {
        let build: Vec<Template> = build.iter().map(|t| template(t)).collect();
        let mut mock = MockExecutor::new(script);
        let mut totals = Totals::default();
        let ended = run_steps(&build, &template("./prog"), &mut mock, &mut totals);
        let mut rec = testing::run("c", Bench::Assoc).record();
        totals.fill(&mut rec);
        match ended {
            Ended::Ran(o) => {
                let check = if output_ok {
                    Ok(())
                } else {
                    Err("wrong".to_string())
                };
                judge(
                    &mut rec,
                    &o,
                    check,
                    &totals,
                    &Limits::default(),
                    Duration::from_secs(60),
                );
            }
            Ended::CannotStart { command, .. } => {
                rec.status = Status::Failed;
                rec.detail = Some(format!("cannot run `{command}`"));
            }
            Ended::BuildFailed { outcome, .. } => rec.status = classify(&outcome, false),
        }
        (rec, mock.ran)
    }

    #[test]
    fn a_failed_build_step_skips_the_run_and_the_steps_add_up() {
        let mut failed = outcome(2.0, 10, "");
        failed.done.exit = Exit::Exited(1);
        let (rec, ran) = measured(&["cc -c a.c", "cc -o prog a.o"], [Ok(failed)], true);
        assert_eq!(ran, ["cc -c a.c"], "the second step and the run never ran");
        assert_eq!(rec.status, Status::Failed);

        let (rec, ran) = measured(
            &["cc -o prog a.c"],
            [Ok(outcome(2.0, 50_000, "")), Ok(outcome(1.5, 20_000, ""))],
            true,
        );
        assert_eq!(ran, ["cc -o prog a.c", "./prog"]);
        assert_eq!(rec.status, Status::Ok);
        assert_eq!(rec.wall_s, 3.5, "the build's time is in the run's");
        assert_eq!(rec.build_wall_s, Some(2.0));
        assert_eq!(rec.max_rss_kb, 50_000, "the larger peak");

        let (rec, ran) = measured(&[], [Err(anyhow::anyhow!("no such file"))], true);
        assert_eq!(ran, ["./prog"]);
        assert_eq!(rec.status, Status::Failed);
        assert_eq!(rec.detail.as_deref(), Some("cannot run `./prog`"));
    }

    #[test]
    fn how_a_run_ended_is_its_status() {
        let ok = || outcome(1.0, 100, "");
        assert_eq!(classify(&ok(), true), Status::Ok);
        assert_eq!(classify(&ok(), false), Status::WrongOutput);
        let mut bad = ok();
        bad.done.exit = Exit::Exited(2);
        assert_eq!(classify(&bad, true), Status::BadExit);
        assert_eq!(classify(&bad, false), Status::Failed);
        let mut crashed = ok();
        crashed.done.exit = Exit::Signaled(11);
        assert_eq!(classify(&crashed, true), Status::Crashed);
        // A timeout or the memory limit is what it is, whatever it printed.
        let mut slow = ok();
        slow.done.timed_out = true;
        assert_eq!(classify(&slow, true), Status::Timeout);
        let mut oom = slow.clone();
        oom.done.oom = true;
        assert_eq!(classify(&oom, true), Status::Oom);
    }

    #[test]
    fn work_outside_its_own_figures_is_escaped() {
        // The process's own CPU is 0.2 s: a tree of 0.6 s is within half a
        // second more, one of 0.8 s is not; 10 s own CPU allow 5 s more.
        let (rec, _) = measured(&[], [Ok(with_tree(outcome(0.2, 1000, ""), 0.6, 0))], true);
        assert_eq!(rec.status, Status::Ok);
        assert_eq!(rec.detail, None);
        let (rec, _) = measured(&[], [Ok(with_tree(outcome(10.0, 1000, ""), 14.0, 0))], true);
        assert_eq!(rec.status, Status::Ok);
        let (rec, _) = measured(&[], [Ok(with_tree(outcome(0.2, 1000, ""), 0.8, 0))], true);
        assert_eq!(rec.status, Status::Escaped);
        let d = rec.detail.unwrap();
        assert!(
            d.starts_with("processes it did not wait for used CPU"),
            "{d}"
        );
        // One helper at 100 MB beside a 1 MB process.
        let (rec, _) = measured(
            &[],
            [Ok(with_tree(outcome(1.0, 1000, ""), 1.0, 100 * 1024))],
            true,
        );
        assert_eq!(rec.status, Status::Escaped);
        // A fork-walker, and a supervisor that lost control.
        let mut walker = outcome(1.0, 1000, "");
        walker.done.forked_after = escape::WALK_MIN_NEW as u32;
        assert_eq!(measured(&[], [Ok(walker)], true).0.status, Status::Escaped);
        let mut lost = outcome(1.0, 1000, "");
        lost.done.escaped = true;
        assert_eq!(measured(&[], [Ok(lost)], true).0.status, Status::Escaped);
        // Wrong output that escaped is escaped; a crash stays a crash,
        // with the note.
        let (rec, _) = measured(&[], [Ok(with_tree(outcome(1.0, 1000, ""), 3.0, 0))], false);
        assert_eq!(rec.status, Status::Escaped);
        let mut crashed = with_tree(outcome(1.0, 1000, ""), 3.0, 0);
        crashed.done.exit = Exit::Signaled(9);
        let (rec, _) = measured(&[], [Ok(crashed)], true);
        assert_eq!(rec.status, Status::Crashed);
        assert!(rec.detail.unwrap().contains("did not wait for used CPU"));
        // A process merely left running is a note, not an escape.
        let mut daemon = outcome(1.0, 1000, "");
        daemon.done.leftovers = 1;
        let (rec, _) = measured(&[], [Ok(daemon)], true);
        assert_eq!(rec.status, Status::Ok);
        assert!(rec.detail.unwrap().contains("still running when it exited"));
    }

    #[test]
    fn the_build_steps_cpu_counts_as_the_process_s_own() {
        // A compiler's waited-for children are in the build step's own
        // figures: 3 s of build and 1 s of run against a 4.2 s tree is
        // not an escape (0.2 s over).
        let (rec, _) = measured(
            &["cc -o prog a.c"],
            [
                Ok(with_tree(outcome(3.0, 1000, ""), 3.1, 0)),
                Ok(with_tree(outcome(1.0, 1000, ""), 1.1, 0)),
            ],
            true,
        );
        assert_eq!(rec.status, Status::Ok, "{:?}", rec.detail);
    }
}
