//! `run`'s cells through the spawner: the [`CellExecutor`] of a measuring
//! session. A cell is set up when it is first chosen (what `--resume`
//! keeps of it, its toolchain, caches and `prepare`), each run is measured
//! ([`crate::cell::Cell::measure`]) under the progress line with the time
//! left, and every record is appended to the store as it is made; the
//! derived files are rewritten at most every [`REWRITE_EVERY`] (see
//! [`Rewrite`]).

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use anyhow::Result;

use crate::bench::Bench;
use crate::cell::{Cell, Program};
use crate::config::Variant;
use crate::estimate::{Estimator, Figure};
use crate::mem_probe::{MemProbe, PROBE_MIB};
use crate::progress::{KEEP, Line, Progress, rank};
use crate::record::{RunRecord, Status, VariantInfo};
use crate::resume::{self, Held};
use crate::schedule::{CellExecutor, Ready};
use crate::signals::interrupted;
use crate::store::Store;
use langbench_document::thousands;
use langbench_spawn::Spawner;

use super::options::Options;

/// What the cells after each one are expected to cost, for the time left:
/// sums from each cell to the last, of the cells whose figures are known
/// (fixed for the session) and of the runs of those without (they cost the
/// median, which changes as cells finish).
pub(super) struct Ahead {
    known: Vec<f64>,
    /// Runs, per benchmark (in [`Bench::ALL`] order).
    median_runs: Vec<[f64; 4]>,
}

fn bench_index(b: Bench) -> usize {
    Bench::ALL.iter().position(|x| *x == b).unwrap_or(0)
}

impl Ahead {
    pub(super) fn new(
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

/// How often a session rewrites the derived files while it runs: every
/// record is appended as it is made, but rewriting every derived file of
/// a large directory costs seconds (issue #41), so after each record they
/// are rewritten only when this long has passed since the last rewrite.
pub(super) const REWRITE_EVERY: Duration = Duration::from_secs(5);

/// When the derived files were last rewritten, and whether a record is
/// stored that they do not show yet. Whoever ends the session rewrites
/// them: `run`'s summary on its way out ([`Suite::leave_rewrite`]), else,
/// on an error or a panic, the suite's `Drop`.
pub(super) struct Rewrite {
    at: Instant,
    pending: bool,
}

impl Default for Rewrite {
    fn default() -> Rewrite {
        Rewrite {
            at: Instant::now(),
            pending: false,
        }
    }
}

/// A suite in progress: what every cell shares, and the cells set up.
pub(super) struct Suite<'a> {
    pub(super) spawner: &'a Spawner,
    pub(super) opts: &'a Options,
    pub(super) store: &'a Store,
    pub(super) progress: &'a Progress,
    pub(super) session: &'a str,
    pub(super) variants: &'a [&'a Variant],
    /// Every cell of the suite, in order: (its variant's index, benchmark).
    pub(super) cells: &'a [(usize, Bench)],
    /// The probed variants' toolchains, by index.
    pub(super) info: &'a BTreeMap<usize, &'a VariantInfo>,
    /// `--resume`: what the results directory holds of each cell.
    pub(super) held: BTreeMap<(String, Bench), Held>,
    /// What each cell is expected to cost, updated as cells finish.
    pub(super) estimator: Estimator,
    /// The cells that run: indexes into `cells` (those probed and not
    /// complete), numbered as the schedule numbers them.
    pub(super) todo: Vec<usize>,
    pub(super) ahead: Ahead,
    /// The cells set up, by their number in `todo`.
    pub(super) ready: BTreeMap<usize, Cell<'a>>,
    /// The derived files' last rewrite.
    pub(super) rewrite: Rewrite,
    /// In rounds: the runs each cell of `todo` has (kept ones too), for
    /// the time left; `None` in a row (then [`Ahead`] says it).
    pub(super) made: Option<Vec<u32>>,
    /// The reference set and its probed toolchains (empty: no passes).
    pub(super) references: Vec<(&'a Variant, &'a VariantInfo)>,
    /// The reference cells, set up at the first pass (`None`: it cannot
    /// run; said once).
    pub(super) reference_cells: BTreeMap<(usize, Bench), Option<Cell<'a>>>,
    /// How long the last reference pass took, for the time left.
    pub(super) last_pass_s: Option<f64>,
    /// The runs attempted in this session (the progress counter's, in
    /// rounds).
    pub(super) attempts: u32,
    /// This machine's seal key: every record is stored sealed with it
    /// ([`crate::seal`]; `None`: it has none, and records are stored
    /// unsealed).
    pub(super) key: Option<&'a crate::seal::Key>,
}

/// The cells that run, of `cells`: those of probed variants (`info`)
/// that `--resume` does not hold complete.
pub(super) fn to_run(
    cells: &[(usize, Bench)],
    variants: &[&Variant],
    info: &BTreeMap<usize, &VariantInfo>,
    held: &BTreeMap<(String, Bench), Held>,
) -> Vec<usize> {
    (0..cells.len())
        .filter(|&k| {
            let (i, bench) = cells[k];
            let complete = matches!(
                held.get(&(variants[i].id.clone(), bench)),
                Some(Held::Complete)
            );
            info.contains_key(&i) && !complete
        })
        .collect()
}

/// In rounds, the runs each cell to run has before the session starts
/// (`u32::MAX`: it gets no more): none for a cell whose toolchain is
/// missing (its one record says so) or whose kept runs include one that
/// settles it (its other runs are recorded as skipped), its kept runs for
/// the others. Counting them at their estimates made the first counter
/// and time left of a resumed edition's sitting half as large again as
/// the runs it made (`[2/656]`, ~10h43m, for ~7h).
pub(super) fn made_before(
    todo: &[usize],
    cells: &[(usize, Bench)],
    variants: &[&Variant],
    info: &BTreeMap<usize, &VariantInfo>,
    held: &BTreeMap<(String, Bench), Held>,
) -> Vec<u32> {
    todo.iter()
        .map(|&k| {
            let (i, bench) = cells[k];
            if !info[&i].installed {
                return u32::MAX;
            }
            match held.get(&(variants[i].id.clone(), bench)) {
                Some(Held::Partial { runs, .. })
                    if runs.iter().any(|r| r.status.settles_cell()) =>
                {
                    u32::MAX
                }
                Some(Held::Partial { runs, .. }) => runs.len() as u32,
                _ => 0,
            }
        })
        .collect()
}

impl<'a> Suite<'a> {
    /// Rewrites the derived files (from every stored record).
    fn rewrite(&mut self) -> Result<()> {
        crate::derived::write_files(self.store, self.opts.view.clone())?;
        self.rewrite = Rewrite::default();
        Ok(())
    }

    /// The caller rewrites the derived files from here on (the session
    /// ended without an error): the suite's `Drop` leaves them.
    pub(super) fn leave_rewrite(&mut self) {
        self.rewrite.pending = false;
    }

    /// How many cells run.
    pub(super) fn len(&self) -> usize {
        self.todo.len()
    }

    /// Cell `j` of the schedule: its index among every cell, its variant's
    /// and its benchmark.
    fn cell(&self, j: usize) -> (usize, &'a Variant, Bench) {
        let k = self.todo[j];
        let (i, bench) = self.cells[k];
        (k, self.variants[i], bench)
    }

    /// `[3/40] c-gcc · assoc N=1,000`: the `k`-th cell of the suite (in
    /// rounds, no counter: see [`Suite::label_line`]).
    fn label(&self, j: usize) -> String {
        self.label_line(j, None).text()
    }

    /// The label in parts, for the progress line to fit: the cell (its
    /// variant and benchmark) is never left out. Cell by cell, the counter
    /// is the cell's number among all cells, which is the progress. In
    /// rounds the cells come shuffled, and a cell's number read as
    /// progress (`[240/251]` for the fourth cell measured): there a run's
    /// counter (`counter`, [`Suite::run_counter`]) counts runs, and a
    /// line about the cell itself has none.
    fn label_line(&self, j: usize, counter: Option<String>) -> Line {
        let (k, variant, bench) = self.cell(j);
        let counter = match &self.made {
            None => Some(format!("[{}/{}]", k + 1, self.cells.len())),
            Some(_) => counter,
        };
        let line = match counter {
            Some(c) => Line::new()
                .part("", c, rank::COUNTER)
                .part(" ", variant.id.clone(), KEEP),
            None => Line::new().part("", variant.id.clone(), KEEP),
        };
        line.part(" · ", bench.to_string(), KEEP).part(
            " ",
            format!("N={}", thousands(self.opts.size.n(bench))),
            rank::SIZE,
        )
    }

    /// In rounds, `[4/753]`: this session's runs so far and this one, of
    /// those it is expected to make (its runs so far and every cell's
    /// expected runs it has not made, kept ones counted as made; a cell
    /// settled by a failure expects no more).
    fn run_counter(&self) -> Option<String> {
        let made = self.made.as_ref()?;
        let left: u32 = made
            .iter()
            .enumerate()
            .map(|(i, &m)| self.runs_left(i, m).1)
            .sum();
        let now = self.attempts + 1;
        Some(format!("[{now}/{}]", (self.attempts + left).max(now)))
    }

    /// With `--resume`, the cell's finished runs it keeps (then it
    /// continues their session), or why it runs again from run 1.
    fn kept(&self, cell: &mut Cell, label: &str) -> Vec<RunRecord> {
        let key = (cell.program.variant.id.clone(), cell.program.bench);
        match self.held.get(&key) {
            Some(Held::Partial { runs, session }) if cell.info.installed => {
                match resume::keeps(runs, &cell.info.version, cell.identity().as_ref()) {
                    Ok(()) => {
                        self.progress.say(format!(
                            "{label}: keeps its {} finished run{} (session {session}) and runs the rest",
                            runs.len(),
                            if runs.len() == 1 { "" } else { "s" }
                        ));
                        cell.continues = Some(session.clone());
                        return runs.clone();
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
        Vec::new()
    }

    /// Sets the cell's program up: its caches, then its `prepare`
    /// commands. `None` when it is set up, else the record of a cell that
    /// cannot run (or Ctrl-C).
    fn set_up(&self, cell: &mut Cell, label: &str) -> Option<Ready> {
        let info = cell.info;
        if !info.installed {
            let (missing, hint) = (info.missing.join(", "), &info.install_hint);
            self.progress.say(format!(
                "{label}: not installed (missing {missing}; {hint})"
            ));
            let detail = format!("missing {missing} on PATH; install: {hint}");
            let rec = cell.record(0, Status::NotInstalled, Some(detail));
            return Some(Ready::Cannot(Box::new(rec)));
        }
        let mut prepared = cell
            .program
            .set_caches(&info.version, self.opts.cold_caches);
        if prepared.is_ok() && cell.program.needs_prepare() {
            self.progress.set_message(format!("{label} · prepare"));
            prepared = cell.program.prepare(self.opts.timeout);
            if prepared.is_err() && interrupted() {
                return Some(Ready::Interrupted);
            }
        }
        let e = prepared.err()?;
        self.progress.say(format!("{label}: {e}"));
        let rec = cell.record(0, Status::Failed, Some(e.to_string()));
        Some(Ready::Cannot(Box::new(rec)))
    }

    /// What run `run` of cell `j` is expected to take (the mean of the
    /// cell's finished runs, else its estimate) and what is expected after
    /// it: the cell's remaining runs and every cell after it.
    fn expected(&self, j: usize, run: u32, done: &[RunRecord]) -> (Option<f64>, Option<f64>) {
        let (k, variant, bench) = self.cell(j);
        let walls: Vec<f64> = done
            .iter()
            .filter(|r| r.status.has_figures())
            .map(|r| r.wall_s)
            .collect();
        let e = self.estimator.cell(&variant.id, bench);
        let per_run = if !walls.is_empty() {
            Some(walls.iter().sum::<f64>() / walls.len() as f64)
        } else {
            e.known().then_some(e.per_run_s)
        };
        let more = e.runs.saturating_sub(run) as f64;
        let rest = match &self.made {
            Some(made) => self.rest_in_rounds(made, j),
            None => self
                .ahead
                .after(k, &self.estimator)
                .map(|a| a + per_run.unwrap_or(0.0) * more),
        };
        (per_run, rest.map(|r| r + self.passes_left(r)))
    }

    /// Cell `j`'s estimate and the runs it expects after `made` (none
    /// once `made` is `u32::MAX`: it has every run it gets).
    fn runs_left(&self, j: usize, made: u32) -> (crate::estimate::Estimate, u32) {
        let (_, variant, bench) = self.cell(j);
        let e = self.estimator.cell(&variant.id, bench);
        let left = e.runs.saturating_sub(made);
        (e, left)
    }

    /// In rounds, what every cell's remaining runs are expected to take
    /// after the run of cell `now` about to start: each cell's runs it
    /// does not have yet, at its estimate (the benchmark's median where it
    /// has none). Linear in the cells, once per run.
    fn rest_in_rounds(&self, made: &[u32], now: usize) -> Option<f64> {
        if !self.estimator.knows_anything() {
            return None;
        }
        let mut s = 0.0;
        for (j, &m) in made.iter().enumerate() {
            let (_, _, bench) = self.cell(j);
            let (e, left) = self.runs_left(j, m.saturating_add(u32::from(j == now)));
            if left == 0 {
                continue;
            }
            let per_run = if e.known() {
                e.per_run_s
            } else {
                self.estimator.median(bench).unwrap_or(0.0)
            };
            s += per_run * f64::from(left);
        }
        Some(s)
    }

    /// The reference passes still to come in `rest` seconds of measuring:
    /// one per block and the closing one, at the last pass's cost (or the
    /// references' estimates before the first).
    fn passes_left(&self, rest: f64) -> f64 {
        let Some(rounds) = self
            .opts
            .rounds
            .as_ref()
            .filter(|_| !self.references.is_empty())
        else {
            return 0.0;
        };
        let pass = self.last_pass_s.unwrap_or_else(|| {
            self.reference_cells_todo()
                .map(|(v, b)| {
                    let e = self.estimator.cell(&v.id, b);
                    if e.known() { e.per_run_s } else { 0.0 }
                })
                .sum()
        });
        f64::from(crate::rounds::passes_after(rest, rounds.block_s)) * pass
    }

    /// Every reference × benchmark a pass measures: the session's CPU
    /// benchmarks the reference has a program for.
    fn reference_cells_todo(&self) -> impl Iterator<Item = (&'a Variant, Bench)> + '_ {
        self.references.iter().flat_map(|&(v, _)| {
            self.opts
                .benches
                .iter()
                .filter(move |b| b.is_cpu() && v.programs.contains_key(b))
                .map(move |&b| (v, b))
        })
    }

    /// Reference `r` measuring `bench`, set up at its first pass: `None`
    /// (said once) when it cannot run.
    fn reference_cell(&mut self, r: usize, bench: Bench) -> Option<&Cell<'a>> {
        if !self.reference_cells.contains_key(&(r, bench)) {
            let (variant, info) = self.references[r];
            let mut cell = Cell {
                program: Program {
                    cpus: self.opts.cpus.as_deref(),
                    ..Program::new(self.spawner, variant, bench)
                },
                info,
                size: self.opts.size,
                session: self.session,
                continues: None,
            };
            let label = format!("reference {} · {bench}", variant.id);
            let usable = match self.set_up(&mut cell, &label) {
                None => Some(cell),
                Some(_) => {
                    self.progress.say(format!(
                        "{label}: left out of the reference passes (figures of {bench} are then judged against the other references)"
                    ));
                    None
                }
            };
            self.reference_cells.insert((r, bench), usable);
        }
        self.reference_cells[&(r, bench)].as_ref()
    }
}

impl Suite<'_> {
    /// The memory probe before a run of `bench` (issue #60): before every
    /// run of a memory-heavy benchmark and, with `boundary`, before a
    /// reference pass's first run, in a session that measures one (a
    /// session of small sizes probes nothing). Between runs, never during
    /// one; `None` where none is due or it failed (said).
    fn probe_before(&self, bench: Bench, boundary: bool, what: &str) -> Option<MemProbe> {
        let size = self.opts.size;
        let heavy_session = self
            .opts
            .benches
            .iter()
            .any(|b| b.is_cpu() && b.memory_heavy(size.n(*b)));
        if !heavy_session || !(boundary || bench.memory_heavy(size.n(bench))) {
            return None;
        }
        self.progress
            .set_message(format!("{what} · memory probe ({PROBE_MIB} MiB)"));
        match crate::mem_probe::probe(PROBE_MIB) {
            Ok(p) => Some(p),
            Err(e) => {
                self.progress.say(format!(
                    "{what}: the memory probe failed ({e}); measuring without it"
                ));
                None
            }
        }
    }

    /// In rounds, cell `j` has `runs` runs (`u32::MAX`: no more to come).
    fn made_runs(&mut self, j: usize, runs: u32) {
        if let Some(made) = &mut self.made {
            made[j] = runs;
        }
    }
}

impl CellExecutor for Suite<'_> {
    /// With `--resume`, its finished runs kept or why not; one record when
    /// its toolchain is missing or its caches or `prepare` fail.
    fn ready(&mut self, j: usize) -> Result<Ready> {
        let (_, variant, bench) = self.cell(j);
        let label = self.label(j);
        let (i, _) = self.cells[self.todo[j]];
        let mut cell = Cell {
            program: Program {
                cpus: self.opts.cpus.as_deref(),
                ..Program::new(self.spawner, variant, bench)
            },
            info: self.info[&i],
            size: self.opts.size,
            session: self.session,
            continues: None,
        };
        let kept = self.kept(&mut cell, &label);
        if let Some(not) = self.set_up(&mut cell, &label) {
            self.made_runs(j, u32::MAX);
            return Ok(not);
        }
        self.made_runs(j, kept.len() as u32);
        self.ready.insert(j, cell);
        Ok(Ready::Runs(kept))
    }

    /// One run of the cell, measured and shown; `None` after Ctrl-C (the
    /// run is discarded).
    fn attempt(&mut self, j: usize, run: u32, done: &[RunRecord]) -> Result<Option<RunRecord>> {
        let label = self.label(j);
        self.made_runs(j, run - 1);
        let line =
            self.label_line(j, self.run_counter())
                .part(" · ", self.opts.runs.nth(run), rank::RUN);
        let what = line.text();
        self.attempts += 1;
        let (expected, rest) = self.expected(j, run, done);
        let (_, variant, bench) = self.cell(j);
        let more = self
            .estimator
            .cell(&variant.id, bench)
            .runs
            .saturating_sub(run);
        let probe = self.probe_before(bench, false, &what);
        self.progress
            .start_run(line, self.opts.timeout, expected, rest, more);
        let rec = self.ready[&j].measure(run, self.opts.timeout, Some(done));
        self.progress.end_run();
        let mut rec = rec?;
        if interrupted() {
            self.progress
                .say(format!("{label}: interrupted; run {run} discarded"));
            return Ok(None);
        }
        rec.probe = probe;
        let mut line = format!(
            "{what}: {:>8.3} s {:>12} KB  {}",
            rec.wall_s,
            thousands(rec.max_rss_kb),
            rec.status
        );
        if let Some(d) = &rec.detail {
            line.push_str(&format!(" ({})", d.lines().next().unwrap_or("")));
        }
        if let Some(p) = &rec.probe {
            line.push_str(&format!(" (memory probe before it: {:.2} GB/s)", p.gb_s()));
        }
        self.progress.say(line);
        // A run that settles the cell: its other runs are not measured.
        self.made_runs(
            j,
            if rec.status.settles_cell() {
                u32::MAX
            } else {
                run
            },
        );
        Ok(Some(rec))
    }

    fn not_made(&self, j: usize, run: u32, status: Status, detail: String) -> RunRecord {
        self.ready[&j].record(run, status, Some(detail))
    }

    /// Stores a record, sealed (appended and synced: the truth, at once),
    /// and rewrites the derived files when [`REWRITE_EVERY`] has passed
    /// since they last were.
    fn save(&mut self, rec: RunRecord) -> Result<()> {
        let rec = match self.key {
            Some(k) => k.sealed(rec),
            None => rec,
        };
        self.store.append_run(&rec)?;
        self.rewrite.pending = true;
        if self.rewrite.at.elapsed() >= REWRITE_EVERY {
            self.rewrite()?;
        }
        Ok(())
    }

    /// The cell's figure counts for the time left.
    fn finished(&mut self, j: usize, done: &[RunRecord]) {
        let (_, variant, bench) = self.cell(j);
        if let Some(f) = Figure::of(done) {
            self.estimator.finished(&variant.id, bench, f);
        }
        self.made_runs(j, u32::MAX);
        self.ready.remove(&j);
    }

    /// A reference pass: each reference's program for each of the
    /// session's benchmarks, one run, stored in `references.jsonl` with
    /// the pass's block (never among the cells' runs). With
    /// `--wait-quiet`, first a wait for an otherwise idle host.
    fn reference_pass(&mut self, pass: u32) -> Result<ControlFlow<()>> {
        let Some(rounds) = self.opts.rounds.as_ref() else {
            return Ok(ControlFlow::Continue(()));
        };
        if let Some(limit) = rounds.wait_quiet {
            self.progress
                .set_message(format!("reference pass {pass}: waiting for a quiet host"));
            let (busy, waited) = crate::hygiene::wait_quiet(limit, interrupted);
            if let Some(b) = busy.filter(|&b| b > crate::hygiene::QUIET_SHARE) {
                self.progress.say(format!(
                    "reference pass {pass}: the host stayed busy ({:.0} % of its CPU time) for {:.0} s; measuring anyway",
                    b * 100.0,
                    waited.as_secs_f64()
                ));
            }
        }
        let start = std::time::Instant::now();
        let todo: Vec<(usize, Bench)> = self
            .reference_cells_todo()
            .map(|(v, b)| {
                (
                    self.references
                        .iter()
                        .position(|(r, _)| r.id == v.id)
                        .unwrap_or(0),
                    b,
                )
            })
            .collect();
        let timeout = self.opts.timeout;
        // The block boundary's memory probe, on the pass's first run.
        let mut boundary = true;
        for (r, bench) in todo {
            if interrupted() {
                return Ok(ControlFlow::Break(()));
            }
            let progress = self.progress;
            if self.reference_cell(r, bench).is_none() {
                continue;
            }
            let probe = self.probe_before(bench, boundary, &format!("reference pass {pass}"));
            boundary = false;
            let Some(cell) = self.reference_cell(r, bench) else {
                continue;
            };
            let line = Line::new()
                .part("", format!("reference pass {pass}"), rank::COUNTER)
                .part(" · ", cell.program.variant.id.clone(), KEEP)
                .part(" · ", bench.to_string(), KEEP);
            let what = line.text();
            progress.start_run(line, timeout, None, None, 0);
            let rec = cell.measure(pass + 1, timeout, None);
            progress.end_run();
            let mut rec = rec?;
            if interrupted() {
                return Ok(ControlFlow::Break(()));
            }
            rec.block = Some(pass);
            rec.probe = probe;
            if let Some(k) = self.key {
                rec = k.sealed(rec);
            }
            self.store.append_reference(&rec)?;
            self.progress
                .say(format!("{what}: {:>8.3} s  {}", rec.wall_s, rec.status));
        }
        self.last_pass_s = Some(start.elapsed().as_secs_f64());
        Ok(ControlFlow::Continue(()))
    }
}

/// A session that ends on an error (or a panic) rewrites the derived files
/// here when a stored record is not in them yet; a session that ends
/// normally or after Ctrl-C leaves it to `run`'s summary.
impl Drop for Suite<'_> {
    fn drop(&mut self) {
        if self.rewrite.pending
            && let Err(e) = self.rewrite()
        {
            let line = format!(
                "the derived files of {} were not rewritten ({e:#}): `langbench report {}` rewrites them from the records",
                self.store.dir().display(),
                self.store.dir().display()
            );
            langbench_document::export::terminal::warn(&line);
        }
    }
}
