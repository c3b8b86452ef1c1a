//! A variant's program for one benchmark, set up to run: its toolchain
//! caches, its `prepare` commands in its private copy, the placeholders
//! of a run; and one attempt at it, judged.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};

use crate::bench::Bench;
use crate::config::{Template, Variant, Vars};
use crate::state::Caches;
use crate::step::{Step, stderr_tail};
use crate::verify;
use langbench_spawn::proxy::Proxy;
use langbench_spawn::{Exit, Spawner};

use super::judge::{self, Verdict};
use super::remembered::{self, Answer, Budget, Place, Searched};
use super::steps::{self, Ended, Totals};

/// A variant's program for one benchmark, as its runs see it.
pub(crate) struct Program<'a> {
    pub spawner: &'a Spawner,
    pub variant: &'a Variant,
    pub bench: Bench,
    /// The variant's persistent toolchain caches (none: every command
    /// starts with a fresh HOME).
    pub caches: Option<Caches>,
    /// The variant's private copy of its program's directory, where its
    /// `prepare` commands ran (none without `prepare`).
    pub copy: Option<PathBuf>,
    /// `--cpus`: its build steps and run are pinned there.
    pub cpus: Option<&'a [usize]>,
}

/// Why a program cannot run: its record's (or problem's) note.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NotReady {
    /// Its toolchain caches could not be created.
    #[error("cannot set up its caches: {0:#}")]
    Caches(anyhow::Error),
    /// One of its `prepare` commands failed, or could not run.
    #[error("{0}")]
    Prepare(String),
    /// Its caches hold more than `--cache-limit` or `--file-limit` (issues
    /// #37, #59): it fails, saying so, until they are cleared.
    #[error("{0}")]
    CachesFull(String),
    /// Its `prepare` steps left its private copy past its bounds (issue
    /// #59): it fails, saying so; the copy is removed.
    #[error("{0}")]
    CopyFull(String),
}

/// One attempt at a program: what its steps added up to, how they ended,
/// and the verdict.
pub(crate) struct Attempt {
    pub totals: Totals,
    pub ended: Ended,
    pub verdict: Verdict,
}

impl<'a> Program<'a> {
    /// `variant`'s program for `bench`, without caches (see
    /// [`Program::set_caches`]), not prepared yet.
    pub(crate) fn new(spawner: &'a Spawner, variant: &'a Variant, bench: Bench) -> Self {
        Program {
            spawner,
            variant,
            bench,
            caches: None,
            copy: crate::state::prepared_dir(variant, bench),
            cpus: None,
        }
    }

    /// Gives it the variant's toolchain caches kept under `key` (the
    /// toolchain version, so that a new version starts cold; `check` keeps
    /// its own), or with `cold` none that persist (`--cold-caches`).
    pub(crate) fn set_caches(&mut self, key: &str, cold: bool) -> Result<(), NotReady> {
        let limits = &self.spawner.containment.limits;
        let caches = Caches::of(self.variant, key, cold, limits.ids)
            .map_err(NotReady::Caches)?
            .limited(limits.cache_kb, limits.files);
        let full = caches.past_limit();
        self.caches = Some(caches);
        full.map_or(Ok(()), |why| Err(NotReady::CachesFull(why)))
    }

    /// Why its caches are past `--cache-limit`, if they are.
    pub(super) fn caches_past_limit(&self) -> Option<String> {
        self.caches.as_ref().and_then(Caches::past_limit)
    }

    /// Whether it has `prepare` commands to run first.
    pub(crate) fn needs_prepare(&self) -> bool {
        !self.variant.prepare.is_empty()
    }

    /// Runs the variant's untimed `prepare` commands for the benchmark, in
    /// its private copy of the program's directory (brought up to date
    /// with the checkout first); the error says which one failed and why.
    pub(crate) fn prepare(&mut self, timeout: Duration) -> Result<(), NotReady> {
        if !self.needs_prepare() {
            return Ok(());
        }
        let ran = self.prepare_steps(timeout).map_err(NotReady::Prepare);
        // What the steps left in the copy is bounded whether they ended
        // well or not: a copy past its bounds is removed either way.
        let limits = &self.spawner.containment.limits;
        if let Some(why) = self
            .copy
            .as_deref()
            .and_then(|c| crate::state::copy_past_limit(c, limits.disk_kb, limits.files))
        {
            return Err(NotReady::CopyFull(why));
        }
        ran?;
        self.caches_past_limit()
            .map_or(Ok(()), |why| Err(NotReady::CachesFull(why)))
    }

    fn prepare_steps(&mut self, timeout: Duration) -> Result<(), String> {
        let (spawner, variant) = (self.spawner, self.variant);
        let dir = crate::scratch::dir("prepare").map_err(|e| format!("{e:#}"))?;
        let copy = self.copy.clone().ok_or("no program")?;
        let checkout = variant
            .programs
            .get(&self.bench)
            .and_then(|p| p.parent())
            .ok_or("no program")?;
        let c = &spawner.containment;
        let sandboxed = c.namespaces && c.isolate;
        let bounds = langbench_spawn::nofollow::Bounds::toward(c.limits.files);
        crate::state::sync_copy(checkout, &copy, c.limits.ids.filter(|_| sandboxed), bounds)
            .map_err(|e| format!("cannot copy {} for prepare: {e:#}", checkout.display()))?;
        // The copy by the path the sandbox binds it at: its parent (the
        // state directory's, which may lie behind a link of the
        // maintainer's and exists only now) canonical, so that `{dir}` in
        // the steps and the runs names the directory the command sees.
        let copy = match (copy.parent().map(Path::canonicalize), copy.file_name()) {
            (Some(Ok(parent)), Some(name)) => parent.join(name),
            _ => copy,
        };
        self.copy = Some(copy.clone());
        // Root's sandboxed prepare steps reach the registries through the
        // proxy only; without root none can be made (the step keeps the
        // host's network, as the session's containment says).
        let proxy = if sandboxed && c.limits.ids.is_some() {
            // Its connections count against the step's process bound.
            Some(Proxy::start(c.limits.max_procs).map_err(|e| format!("prepare: {e}"))?)
        } else {
            None
        };
        let vars = self.vars(dir.path()).ok_or("no program")?;
        for t in &variant.prepare {
            let o = Step {
                variant,
                argv: t.expand(&vars),
                cwd: &variant.cwd(&vars),
                timeout,
                cpus: None,
                scratch: dir.path(),
                program_copy: Some(&copy),
                prepare: Some(proxy.as_ref()),
                caches: self.caches.as_ref(),
                log_fd: None,
            }
            .execute(spawner)
            .map_err(|e| format!("prepare `{}`: {e:#}", t.text))?;
            if o.done.timed_out {
                return Err(format!("prepare `{}` timed out", t.text));
            }
            if o.done.exit != Exit::Exited(0) {
                return Err(format!(
                    "prepare `{}` failed ({}); {}",
                    t.text,
                    o.done.exit,
                    stderr_tail(&o)
                ));
            }
        }
        Ok(())
    }

    /// Searches the places its runs can keep something in for the next
    /// (its caches, written by every run; its prepared copy, by its
    /// `prepare`) for its answer at `n`, within `budget`
    /// ([`super::remembered`]). Call it while none of its commands runs.
    pub(crate) fn remembered(&self, n: u64, budget: Budget) -> Searched {
        let Some(answer) = Answer::of(self.bench, n) else {
            return Searched::default();
        };
        let mut places: Vec<Place> = self
            .caches
            .iter()
            .flat_map(|c| &c.dirs)
            .map(|(host, rel)| Place {
                host: host.clone(),
                shown: Some(rel.clone()),
                what: "its declared caches",
            })
            .collect();
        if let Some(copy) = &self.copy {
            places.push(Place {
                host: copy.clone(),
                shown: None,
                what: "its prepared copy (what `prepare` left)",
            });
        }
        remembered::search(&places, &answer, budget)
    }

    /// The placeholder values for a run with `build` as its build
    /// directory: `{src}` and `{dir}` in the checkout, or in the variant's
    /// private copy for a variant with `prepare`.
    ///
    /// `build` is the run's build directory on the host; a sandboxed
    /// command sees it at one path for every run (`Spawner::build_path`),
    /// which is the `{build}` it is given.
    pub(crate) fn vars(&self, build: &Path) -> Option<Vars> {
        let build = self.spawner.build_path(build);
        self.variant
            .vars_in(self.bench, &build, self.copy.as_deref())
    }

    /// One attempt at size `n` in the build directory `build`: the build
    /// steps (if any) and the run, each through the spawner within what is
    /// left of one `timeout`, then the verdict (its output checked against
    /// langbench's own expected output). `Err` only without a program.
    pub(crate) fn attempt(&self, n: u64, build: &Path, timeout: Duration) -> Result<Attempt> {
        self.attempt_counted(n, build, timeout, None)
    }

    /// [`Program::attempt`], its run under valgrind's cachegrind with the
    /// log on descriptor `count` (see [`crate::cachegrind`]; its build
    /// steps are not counted) when that is given.
    pub(super) fn attempt_counted(
        &self,
        n: u64,
        build: &Path,
        timeout: Duration,
        count: Option<i32>,
    ) -> Result<Attempt> {
        let vars = Vars {
            n: Some(n),
            ..self.vars(build).context("no program for this benchmark")?
        };
        let cwd = self.variant.cwd(&vars);
        // The budget left is the timeout less the steps' own walls, the
        // figures the record sums: a run killed at its timeout then shows
        // at least the timeout, never a hair under it (the spawner's own
        // start-up between steps is not the program's time).
        let mut used = Duration::ZERO;
        let mut execute = |t: &Template| {
            let counted = count.filter(|_| std::ptr::eq(t, &self.variant.run));
            let argv = match counted {
                Some(fd) => crate::cachegrind::argv(fd, t.expand(&vars)),
                None => t.expand(&vars),
            };
            let outcome = Step {
                variant: self.variant,
                timeout: timeout.saturating_sub(used).max(Duration::from_millis(1)),
                argv,
                log_fd: counted,
                cwd: &cwd,
                cpus: self.cpus,
                scratch: build,
                program_copy: self.copy.as_deref(),
                prepare: None,
                caches: self.caches.as_ref(),
            }
            .execute(self.spawner);
            if let Ok(o) = &outcome {
                used += o.done.wall;
            }
            outcome
        };
        let mut totals = Totals::default();
        let v = self.variant;
        let ended = steps::run_steps(&v.build, &v.run, &mut execute, &mut totals);
        let output = |o: &langbench_spawn::Outcome| {
            let expected = verify::expected(self.bench, n).unwrap_or_default();
            verify::check(&expected, &o.stdout.bytes, o.stdout.truncated())
        };
        let limits = &self.spawner.containment.limits;
        let verdict = judge::verdict(&ended, output, &totals, limits, timeout);
        Ok(Attempt {
            totals,
            ended,
            verdict,
        })
    }
}
