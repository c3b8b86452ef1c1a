//! `langbench run`: the CPU suite. Every selected variant × benchmark (a
//! cell) gets N runs, each measured through the spawner, verified and
//! stored as it finishes. It reads top down as the plan: `command` (the
//! CPU suite, then ws-echo) → `benchmark` (the session, then each cell) →
//! `Suite::cell` (resume, not installed, prepare) → `Suite::runs` (best of
//! N or `--runs auto`, skip after a failure, Ctrl-C) → `CellCtx::measure`
//! (one run: its steps, the check, the record).

use std::collections::{BTreeMap, HashSet};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use indicatif::ProgressBar;

use crate::bench::{Bench, Size};
use crate::config::{Template, Variant, Vars};
use crate::export;
use crate::progress::{progress_bar, say};
use crate::record::{Origin, RunRecord, SCHEMA, Status, VariantInfo, now_rfc3339};
use crate::report::{Summary, thousands};
use crate::session::{SessionParams, begin_session};
use crate::signals::{finish, install_interrupt_handler, interrupted};
use crate::spawn::{Exit, Outcome, Spawner};
use crate::step::{self, Step, stderr_tail};
use crate::store::Store;
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
    /// Skip cells that the results directory already holds complete.
    pub resume: bool,
    /// How the tables are rendered (spread column, noise threshold).
    pub view: crate::report::View,
    /// `--shard K/N`, recorded in the session.
    pub shard: Option<String>,
    /// Pin every measured process to these CPUs.
    pub cpus: Option<Vec<usize>>,
}

/// How many runs a cell gets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Runs {
    /// Exactly N (the editions: 3).
    Fixed(u32),
    /// At least 3, then until the runs' coefficient of variation is at most
    /// `cv` (a fraction), at most `max`.
    Auto { cv: f64, max: u32 },
}

impl Runs {
    /// The most runs a cell can get.
    pub fn max(self) -> u32 {
        match self {
            Runs::Fixed(n) => n,
            Runs::Auto { max, .. } => max,
        }
    }

    /// The fewest runs before `Auto` may stop.
    pub const AUTO_MIN: u32 = 3;

    /// Whether a cell whose runs so far are `walls` (wall seconds of the
    /// runs with figures) has enough.
    pub fn enough(self, done: u32, walls: &[f64]) -> bool {
        match self {
            Runs::Fixed(n) => done >= n,
            Runs::Auto { cv, max } => {
                done >= max
                    || (done >= Self::AUTO_MIN
                        && crate::report::Spread::of(walls).is_some_and(|s| s.cv <= cv))
            }
        }
    }
}

/// Cells (variant, benchmark) whose newest session in `stored` finished:
/// what `--resume` skips. A cell cut short (Ctrl-C, crash) is not complete
/// and runs again from its first run.
fn complete_cells(stored: &crate::store::Stored, runs: Runs) -> HashSet<(String, Bench)> {
    let mut cells: BTreeMap<(&str, Bench), Vec<&RunRecord>> = BTreeMap::new();
    for r in stored.newest_runs() {
        cells
            .entry((r.variant.as_str(), r.bench))
            .or_default()
            .push(r);
    }
    let mut done = HashSet::new();
    for ((variant, bench), mut cell) in cells {
        cell.sort_by_key(|r| r.attempt);
        let numbers: Vec<u32> = cell.iter().map(|r| r.attempt).collect();
        let contiguous = numbers.iter().enumerate().all(|(i, k)| *k == i as u32 + 1);
        let walls: Vec<f64> = cell
            .iter()
            .filter(|r| r.status.has_figures())
            .map(|r| r.wall_s)
            .collect();
        let count = numbers.len() as u32;
        let settled = cell.iter().any(|r| r.status.settles_cell());
        // Auto cells stop at a settling run; fixed ones record the
        // skipped runs after it.
        let auto_settled = settled && matches!(runs, Runs::Auto { .. });
        let complete = count > 0 && contiguous && (runs.enough(count, &walls) || auto_settled);
        if complete {
            done.insert((variant.to_string(), bench));
        }
    }
    done
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

/// `langbench run`: the CPU benchmarks of the variants that have one
/// ([`benchmark`]), then ws-echo if it was selected and no Ctrl-C came, each
/// table on the terminal, and where the results are. `ws` holds ws-echo's
/// options, checked before anything runs (a bad `--connections` must not
/// wait for the CPU benchmarks to end); only ws-echo reads them.
pub fn command(
    spawner: &Spawner,
    variants: &[&Variant],
    opts: &Options,
    ws: &crate::ws::Options,
) -> Result<std::process::ExitCode> {
    install_interrupt_handler();
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
        let summary = benchmark(spawner, &cpu_variants, opts)?;
        println!("{}", summary.terminal_text());
    }
    if opts.benches.contains(&Bench::WsEcho) && !interrupted() {
        let records = crate::ws::benchmark(spawner, variants, ws)?;
        crate::ws::report::print(&records);
    }
    Ok(finish(&opts.out))
}

/// Benchmarks every cell (variant × benchmark): a session, then each cell's
/// runs in order. Every run is appended to the store (and the derived files
/// rewritten) as soon as it finishes.
pub fn benchmark(spawner: &Spawner, variants: &[&Variant], opts: &Options) -> Result<Summary> {
    let store = Store::open(&opts.out)?;
    let _lock = store.lock()?;
    let stale = crate::scratch::clean_stale();
    if stale > 0 {
        eprintln!("removed {stale} build directories a killed langbench left behind");
    }
    check_sizes(&store, opts)?;
    let pb = progress_bar();
    let (session, infos) = begin_session(&store, spawner, variants, &pb, session_params(opts))?;
    compute_expected_outputs(opts, &pb)?;
    let cells = cells(variants, opts);
    let suite = Suite {
        spawner,
        opts,
        store: &store,
        pb: &pb,
        done: if opts.resume {
            complete_cells(&store.load()?, opts.runs)
        } else {
            HashSet::new()
        },
        started: Instant::now(),
    };
    for (k, &(i, bench)) in cells.iter().enumerate() {
        let ctx = CellCtx {
            spawner,
            variant: variants[i],
            info: &infos[i],
            bench,
            size: opts.size,
            session: &session,
            cpus: opts.cpus.as_deref(),
        };
        let label = format!(
            "[{}/{}] {} · {bench} N={}",
            k + 1,
            cells.len(),
            ctx.variant.id,
            thousands(ctx.n())
        );
        if suite.cell(&ctx, &label)?.is_break() {
            break;
        }
    }
    pb.finish_and_clear();
    summary(&store, opts)
}

/// What the session record says about this suite.
fn session_params(opts: &Options) -> SessionParams<'_> {
    SessionParams {
        size: opts.size.label(),
        runs: opts.runs.max(),
        timeout_s: opts.timeout.as_secs_f64(),
        command_line: &opts.command_line,
        suffix: "",
        shard: opts.shard.clone(),
        cpus: opts.cpus.clone(),
        runs_auto_cv: match opts.runs {
            Runs::Auto { cv, .. } => Some(cv),
            Runs::Fixed(_) => None,
        },
    }
}

/// Every expected output before the first run: computing one (a minute
/// and 2 GB for assoc at 12,000,000) can then never cost a finished run.
fn compute_expected_outputs(opts: &Options, pb: &ProgressBar) -> Result<()> {
    for b in opts.benches.iter().filter(|b| b.is_cpu()) {
        if interrupted() {
            break;
        }
        pb.set_message(format!(
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
/// and the table of what the directory holds.
fn summary(store: &Store, opts: &Options) -> Result<Summary> {
    let derived = export::write_all_with(store, opts.view.clone())?;
    for w in &derived.warnings {
        eprintln!("warning: {w}");
    }
    let summary = derived
        .summary
        .context("the results directory holds no run")?;
    if interrupted() {
        eprintln!(
            "interrupted: finished runs are kept in {} (runs.jsonl)",
            store.dir().display()
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

/// A suite in progress: what every cell shares.
struct Suite<'a> {
    spawner: &'a Spawner,
    opts: &'a Options,
    store: &'a Store,
    pb: &'a ProgressBar,
    /// `--resume`: the cells the results directory holds complete.
    done: HashSet<(String, Bench)>,
    started: Instant,
}

impl Suite<'_> {
    /// One cell: skipped when `--resume` finds it complete, one record when
    /// its toolchain is missing or its `prepare` fails, else its runs.
    /// `Break` after Ctrl-C.
    fn cell(&self, ctx: &CellCtx, label: &str) -> Result<ControlFlow<()>> {
        if self.done.contains(&(ctx.variant.id.clone(), ctx.bench)) {
            let dir = self.store.dir().display();
            say(self.pb, format!("{label}: already complete in {dir}"));
            return Ok(ControlFlow::Continue(()));
        }
        if !ctx.info.installed {
            let (missing, hint) = (ctx.info.missing.join(", "), &ctx.info.install_hint);
            say(
                self.pb,
                format!("{label}: not installed (missing {missing}; {hint})"),
            );
            let detail = format!("missing {missing} on PATH; install: {hint}");
            self.save(ctx.record(0, Status::NotInstalled, Some(detail)))?;
            return Ok(ControlFlow::Continue(()));
        }
        if !ctx.variant.prepare.is_empty() {
            self.pb.set_message(format!("{label} · prepare"));
            let prepared = step::prepare(self.spawner, ctx.variant, ctx.bench, self.opts.timeout);
            if let Err(e) = prepared {
                if interrupted() {
                    return Ok(ControlFlow::Break(()));
                }
                say(self.pb, format!("{label}: {e}"));
                self.save(ctx.record(0, Status::Failed, Some(e)))?;
                return Ok(ControlFlow::Continue(()));
            }
        }
        self.runs(ctx, label)
    }

    /// A cell's runs: N (best of N in the tables), or with `--runs auto`
    /// until their spread is small. After a run that settles the cell (it
    /// failed), the remaining runs are recorded as skipped (N runs) or not
    /// made (auto). `Break` after Ctrl-C.
    fn runs(&self, ctx: &CellCtx, label: &str) -> Result<ControlFlow<()>> {
        let runs = self.opts.runs;
        let mut settled: Option<Status> = None;
        let mut walls: Vec<f64> = Vec::new();
        for run in 1..=runs.max() {
            if runs.enough(run - 1, &walls) {
                break;
            }
            if let Some(earlier) = settled {
                if matches!(runs, Runs::Auto { .. }) {
                    break;
                }
                let detail = format!("an earlier run ended {earlier}");
                self.save(ctx.record(run, Status::Skipped, Some(detail)))?;
                continue;
            }
            let Some(rec) = self.run(ctx, label, run)? else {
                return Ok(ControlFlow::Break(()));
            };
            if rec.status.settles_cell() {
                settled = Some(rec.status);
            }
            if rec.status.has_figures() {
                walls.push(rec.wall_s);
            }
            self.save(rec)?;
        }
        Ok(ControlFlow::Continue(()))
    }

    /// One run of the cell, measured and shown; `None` after Ctrl-C (the
    /// run is discarded).
    fn run(&self, ctx: &CellCtx, label: &str, run: u32) -> Result<Option<RunRecord>> {
        let max = self.opts.runs.max();
        self.pb.set_message(format!(
            "{label} · run {run}/{max} · total {:.0?}",
            self.started.elapsed()
        ));
        let rec = ctx.measure(run, self.opts.timeout)?;
        if interrupted() {
            say(
                self.pb,
                format!("{label}: interrupted; run {run} discarded"),
            );
            return Ok(None);
        }
        let mut line = format!(
            "{label} · run {run}/{max}: {:>8.3} s {:>12} KB  {}",
            rec.wall_s,
            thousands(rec.max_rss_kb),
            rec.status
        );
        if let Some(d) = &rec.detail {
            line.push_str(&format!(" ({})", d.lines().next().unwrap_or("")));
        }
        say(self.pb, line);
        Ok(Some(rec))
    }

    /// Stores a record and rewrites the derived files.
    fn save(&self, rec: RunRecord) -> Result<()> {
        self.store.append_run(&rec)?;
        export::write_all_with(self.store, self.opts.view.clone())?;
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
}

impl CellCtx<'_> {
    fn n(&self) -> u64 {
        self.size.n(self.bench)
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
            identity: None,
            cache: None,
        }
    }

    /// One timed run: build steps (if any) and the run, each through the
    /// spawner, within one timeout; then the output check.
    fn measure(&self, run: u32, timeout: Duration) -> Result<RunRecord> {
        let build_dir = crate::scratch::dir("build")?;
        let vars = Vars {
            n: Some(self.n()),
            ..self
                .variant
                .vars(self.bench, build_dir.path())
                .context("no program for this benchmark")?
        };
        let mut rec = self.record(run, Status::Ok, None);
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
                let detail = format!("build `{command}`: {}; {}", o.exit, stderr_tail(&o));
                rec.detail = Some(if rec.status == Status::Oom {
                    format!("build killed by the memory limit; {detail}")
                } else {
                    detail
                });
            }
        }
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
        let started = Instant::now();
        let execute = |t: &Template| {
            Step {
                variant: self.variant,
                timeout: timeout
                    .saturating_sub(started.elapsed())
                    .max(Duration::from_millis(1)),
                argv: t.expand(vars),
                cwd: &cwd,
                cpus: self.cpus,
                scratch: build_dir,
                prepare_dir: None,
            }
            .execute(self.spawner)
        };
        let cannot_start = |t: &Template, error| Ended::CannotStart {
            command: t.text.clone(),
            error,
        };
        for t in &self.variant.build {
            let o = match execute(t) {
                Ok(o) => o,
                Err(error) => return cannot_start(t, error),
            };
            totals.add_build(&o);
            if o.timed_out || o.exit != Exit::Exited(0) {
                return Ended::BuildFailed {
                    command: t.text.clone(),
                    outcome: o,
                };
            }
        }
        match execute(&self.variant.run) {
            Ok(o) => {
                totals.add(&o);
                Ended::Ran(o)
            }
            Err(error) => cannot_start(&self.variant.run, error),
        }
    }

    /// The run's status from its exit and output, the note that says why it
    /// is not ok, and whether its work escaped its own figures.
    fn judge(&self, rec: &mut RunRecord, o: &Outcome, totals: &Totals, timeout: Duration) {
        let expected = verify::expected(self.bench, self.n()).unwrap_or_default();
        let check = verify::check(&expected, &o.stdout.bytes, o.stdout.truncated());
        rec.status = classify(o, check.is_ok());
        rec.detail = match rec.status {
            Status::Ok => None,
            Status::WrongOutput => check.err(),
            Status::BadExit => Some(format!("right output but {}; {}", o.exit, stderr_tail(o))),
            Status::Timeout => Some(format!("killed after {:.0} s", timeout.as_secs_f64())),
            Status::Oom => Some(format!(
                "killed by the memory limit at a tree peak of {} KB",
                thousands(totals.tree.map_or(0, |t| t.1))
            )),
            _ => Some(format!(
                "{}; {}{}",
                o.exit,
                stderr_tail(o),
                check
                    .err()
                    .map(|e| format!("; output: {e}"))
                    .unwrap_or_default()
            )),
        };
        let (escaped, left) = totals.escape_note();
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
    if o.oom {
        return Status::Oom;
    }
    if o.timed_out {
        return Status::Timeout;
    }
    match o.exit {
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
}

impl Totals {
    fn add(&mut self, o: &Outcome) {
        self.wall += o.wall;
        self.user += o.user;
        self.sys += o.sys;
        self.rss = self.rss.max(o.max_rss_kb);
        if let Some(t) = o.tree {
            let (cpu, rss, single) = self.tree.unwrap_or_default();
            self.tree = Some((
                cpu + t.user + t.sys,
                rss.max(t.max_rss_kb),
                single.max(t.max_single_rss_kb),
            ));
        }
        self.leftovers += o.leftovers;
        self.escaped |= o.escaped;
        self.forked_after += o.forked_after;
        self.exit = Some(o.exit);
    }

    /// A build step's outcome: its time is also the build's.
    fn add_build(&mut self, o: &Outcome) {
        self.add(o);
        self.build_wall = Some(self.build_wall.unwrap_or(0.0) + o.wall.as_secs_f64());
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
    /// the steps' namespaces. Flagged (`escaped`) when:
    /// - the tree used more than 0.5 s and 50 % more CPU than the process
    ///   itself (work done by processes nobody waited for);
    /// - one process nobody waited for held more than 50 MB and twice the
    ///   process's own peak (the tree's *summed* memory is recorded, not
    ///   flagged: a compiler's parallel jobs make it 2–8× the largest one);
    /// - processes it left running kept starting new ones after it exited
    ///   (a fork-walker: `WALK_MIN_NEW` within `WALK_WATCH_MS`); an
    ///   idle daemon left running (Erlang's epmd) is only a note;
    /// - its supervisor lost control.
    fn escape_note(&self) -> (Option<String>, Option<String>) {
        let own_cpu = (self.user + self.sys).as_secs_f64();
        let mut why = Vec::new();
        if self.escaped {
            why.push("its supervisor lost control and was killed".to_string());
        }
        if let Some((cpu, _, single)) = self.tree {
            let cpu = cpu.as_secs_f64();
            if cpu - own_cpu > 0.5f64.max(0.5 * own_cpu) {
                why.push(format!(
                    "processes it did not wait for used CPU: the tree {cpu:.2} s, the process itself {own_cpu:.2} s"
                ));
            }
            if single > 2 * self.rss && single - self.rss > 50 * 1024 {
                why.push(format!(
                    "a process it did not wait for peaked at {} KB, the process itself at {} KB",
                    thousands(single),
                    thousands(self.rss)
                ));
            }
        }
        if self.forked_after as usize >= crate::spawn::contain::WALK_MIN_NEW {
            why.push(format!(
                "processes it left running kept starting new ones after it exited \
                 ({} within {} ms: a fork-walker; killed with its namespace)",
                self.forked_after,
                crate::spawn::contain::WALK_WATCH_MS
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
