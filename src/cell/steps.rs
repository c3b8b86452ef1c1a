//! A cell's commands in order: its build steps, then its run, each
//! through an [`Executor`] (the spawner, or a script in the tests), their
//! figures added up ([`Totals`]) and how they ended ([`Ended`]). The run
//! never starts when a build step cannot start or fails.

use std::time::Duration;

use anyhow::Result;

use crate::config::Template;
use crate::record::RunRecord;
use langbench_spawn::{Exit, Outcome};

/// How a cell's commands run: through the spawner (a closure building
/// each [`crate::step::Step`], [`super::Program::attempt`]), or a script of
/// outcomes in the tests, so that what is decided from outcomes (a failed
/// build skips the run, the status, ESCAPED) is tested without processes
/// (hyperfine's `Executor` and `MockExecutor` are the model).
pub(super) trait Executor {
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
pub(super) fn run_steps(
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

/// How a run's steps ended.
pub(crate) enum Ended {
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

/// Measured figures of a run, accumulated over its steps.
#[derive(Default)]
pub(crate) struct Totals {
    pub(super) wall: Duration,
    pub(super) user: Duration,
    pub(super) sys: Duration,
    pub(super) rss: u64,
    /// The whole trees' CPU, peak memory (summed) and largest single
    /// process peak (contained runs).
    pub(super) tree: Option<(Duration, u64, u64)>,
    /// Processes left running after a step's command ended.
    pub(super) leftovers: u32,
    /// A supervisor that lost control.
    pub(super) escaped: bool,
    /// New processes started by the ones left running, after the step's
    /// command ended (a fork-walker).
    pub(super) forked_after: u32,
    /// The build steps' wall seconds, summed (none without a build step).
    pub(super) build_wall: Option<f64>,
    /// The exit of the last step that ran.
    pub(super) exit: Option<Exit>,
    /// What the steps did against the run's bounds.
    pub(super) bounds: langbench_spawn::Bounds,
}

impl Totals {
    /// The steps' CPU seconds, summed: their whole process trees' where
    /// they were contained, else what `wait4` counted. Unlike the wall
    /// time, what a loaded machine makes a run wait is not in it.
    pub(crate) fn cpu(&self) -> Duration {
        self.tree.map_or(self.user + self.sys, |(cpu, _, _)| cpu)
    }

    pub(crate) fn add(&mut self, o: &Outcome) {
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
        b.files |= o.done.bounds.files;
    }

    /// A build step's outcome: its time is also the build's.
    fn add_build(&mut self, o: &Outcome) {
        self.add(o);
        self.build_wall = Some(self.build_wall.unwrap_or(0.0) + o.done.wall.as_secs_f64());
    }

    /// The figures into the run's record.
    pub(crate) fn fill(&self, rec: &mut RunRecord) {
        rec.wall_s = self.wall.as_secs_f64();
        rec.user_s = self.user.as_secs_f64();
        rec.sys_s = self.sys.as_secs_f64();
        rec.max_rss_kb = self.rss;
        rec.tree_cpu_s = self.tree.map(|(cpu, _, _)| cpu.as_secs_f64());
        rec.tree_max_rss_kb = self.tree.map(|(_, rss, _)| rss);
        rec.build_wall_s = self.build_wall;
        rec.exit = self.exit;
    }
}
