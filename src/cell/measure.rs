//! One measured run of a cell (variant × benchmark at one size, in one
//! session): the program's attempt in a fresh build directory, its figures
//! and verdict in the run's record, and the caches it started on.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;

use crate::bench::Size;
use crate::record::{
    CacheStart, Identity, Origin, RunRecord, SCHEMA, Status, VariantInfo, now_rfc3339,
};

use super::program::Program;
use super::remembered::Budget;

/// A cell being measured: its program, and what its records say.
pub(crate) struct Cell<'a> {
    pub program: Program<'a>,
    pub info: &'a VariantInfo,
    pub size: Size,
    pub session: &'a str,
    /// `--resume` kept this cell's finished runs of that session: the new
    /// runs continue them.
    pub continues: Option<String>,
}

impl Cell<'_> {
    pub(crate) fn n(&self) -> u64 {
        self.size.n(self.program.bench)
    }

    /// The program identity this session records for the cell's runs (as
    /// [`Cell::record`] fills it): what `--resume` compares with the
    /// identity of the runs it would keep.
    pub(crate) fn identity(&self) -> Option<Identity> {
        self.record(0, Status::Ok, None).identity
    }

    /// A record of run `run` with nothing measured.
    pub(crate) fn record(&self, run: u32, status: Status, detail: Option<String>) -> RunRecord {
        let variant = self.program.variant;
        let bench = self.program.bench;
        RunRecord {
            schema: SCHEMA,
            session: self.session.to_string(),
            finished_at: now_rfc3339(),
            variant: variant.id.clone(),
            language: variant.language.clone(),
            flags: variant.flags.clone(),
            version: self.info.version.clone(),
            bench,
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
            identity: crate::identity::of(variant, bench, self.n(), &self.info.version),
            cache: None,
            continues: self.continues.clone(),
            block: None,
            host: None,
            probe: None,
            remembered: None,
            seal: None,
        }
    }

    /// One timed run: the program's attempt (build steps, if any, and the
    /// run within one timeout, then the verdict) in a fresh build
    /// directory, and whether its caches were cold or warm; then, for a
    /// right answer, where its runs keep things searched for it
    /// ([`Cell::search`]). `earlier`: the cell's runs before this one;
    /// `None` for a reference pass (searched, never given a control run:
    /// one run of a maintainers' reference per pass, whose cost is the
    /// session's).
    pub(crate) fn measure(
        &self,
        run: u32,
        timeout: Duration,
        earlier: Option<&[RunRecord]>,
    ) -> Result<RunRecord> {
        let build_dir = crate::scratch::dir("build")?;
        let mut rec = self.record(run, Status::Ok, None);
        // The program's source digest, short as the records' digests are.
        let program: Option<String> = rec
            .identity
            .as_ref()
            .map(|i| i.program.chars().take(16).collect());
        let caches = self.program.caches.as_ref();
        rec.cache = caches.and_then(|c| c.start(program.as_deref()));
        if caches.is_some() && rec.cache.is_none() && !self.program.variant.caches.is_empty() {
            // --cold-caches: a fresh HOME every run.
            rec.cache = Some(CacheStart::Cold);
        }
        // What a run of the variant or its `prepare` left before this run
        // (issue #59): something this run may read instead of working.
        let kept = self.program.copy.as_deref().is_some_and(Path::exists)
            || caches.is_some_and(|c| !c.empty());
        let host = crate::hygiene::LoadWatch::start();
        let attempt = self.program.attempt(self.n(), build_dir.path(), timeout)?;
        rec.host = Some(host.end());
        attempt.totals.fill(&mut rec);
        attempt.verdict.fill(&mut rec);
        if let Some(why) = self.program.caches_past_limit() {
            rec.status = Status::Failed;
            rec.detail = Some(match rec.detail.take() {
                Some(d) => format!("{why}; {d}"),
                None => why,
            });
        }
        if let Some(c) = caches {
            rec.cache = c.end(rec.cache, program.as_deref(), rec.status == Status::Ok);
        }
        self.search(&mut rec, earlier.map(|e| (e, kept)), timeout);
        rec.finished_at = now_rfc3339();
        Ok(rec)
    }

    /// After a right answer, its caches and prepared copy searched for it
    /// (issue #59, row 6; [`super::remembered`]). Every run gets the
    /// ordinary search; the first run that beats the cell's first by more
    /// than a toolchain's cache explains ([`deeper`]) gets a deeper one
    /// and, if that finds nothing, a control run ([`Cell::control`]).
    /// That ratio alone marks nothing: an honest compiler's warm cache
    /// makes crystal's second run 8× faster. The cell's first run gets a
    /// control run too when something was kept before it
    /// ([`unproven`]). Found, the run is `escaped`, the record says what
    /// was found, and the note what it means. `earlier`: the cell's runs
    /// before this one, and whether its caches or prepared copy held
    /// anything when it started (`None`: a reference pass).
    fn search(
        &self,
        rec: &mut RunRecord,
        earlier: Option<(&[RunRecord], bool)>,
        timeout: Duration,
    ) {
        if !matches!(rec.status, Status::Ok | Status::Escaped) {
            return;
        }
        let hint = earlier.is_some_and(|(e, _)| deeper(e, rec.wall_s));
        let unproven = rec.attempt > 0 && earlier.is_some_and(|(e, kept)| unproven(e, kept));
        let budget = if hint { Budget::DEEP } else { Budget::RUN };
        let n = self.n();
        let found = match self.program.remembered(n, budget).found {
            Some(f) => Some(format!("{f} held the answer it printed at N={n}")),
            None if hint || unproven => self.control(rec, timeout),
            None => None,
        };
        let Some(found) = found else {
            return;
        };
        let note = format!(
            "REMEMBERED ANSWER: after run {}, {found}: the figure may be an answer kept from \
             an earlier run or its untimed `prepare`, not the work. Review the program: it \
             computes the answer from N in every run and keeps no answer in caches or prepared \
             files (CONTRIBUTING.md: \"Remembered answers\")",
            rec.attempt,
        );
        rec.status = Status::Escaped;
        rec.remembered = Some(langbench_document::inert::clip(&found, 400));
        rec.detail = Some(match rec.detail.take() {
            Some(d) => format!("{note}; {d}"),
            None => note,
        });
    }

    /// Whether a run at an N drawn at random just below the cell's
    /// (announced to no one: 1–2 % less), not a measured run, shows that
    /// `rec` did not do the work: it took more CPU than `rec` by more than
    /// a toolchain's cache explains ([`crate::noise::beats_cold`]), or
    /// printed a wrong answer. By then the caches hold the program's build
    /// (an earlier run made it), so an honest program takes about as long
    /// at the control's N as at the cell's; one that kept the cell's
    /// answer, in whatever form no search can read, has none for the
    /// control's and does the work there. What it found, for the note.
    fn control(&self, rec: &RunRecord, timeout: Duration) -> Option<String> {
        let n = self.n();
        if n < 2 {
            return None;
        }
        let m = n - fastrand::u64(n / 100..=n / 50).clamp(1, n - 1);
        let build = crate::scratch::dir("build").ok()?;
        let a = self.program.attempt(m, build.path(), timeout).ok()?;
        let this = rec.tree_cpu_s.unwrap_or(rec.user_s + rec.sys_s);
        let control = a.totals.cpu().as_secs_f64();
        let at = format!("a control run at N={m} (drawn at random, not a measured run)");
        match a.verdict.status {
            Status::Ok if crate::noise::beats_cold(control, this) => Some(format!(
                "{at} took {control:.3} s of CPU and this run {this:.3} s at N={n}, {:.0}× less \
                 with its build cached for both: this run did not do the work",
                control / this.max(1e-6)
            )),
            Status::WrongOutput => Some(format!(
                "{at} printed a wrong answer ({}), though right at N={n}",
                a.verdict.detail.as_deref().unwrap_or("")
            )),
            _ => None,
        }
    }
}

/// Whether a right run is the cell's first measured one while its caches
/// or prepared copy held something (`kept`) when it started: an answer
/// kept there before the cell (by `prepare`, for a size known in advance;
/// by an earlier session at this size; by another program of the
/// variant) makes even the cell's first run fast, and no later run is
/// faster than it to hint at it ([`deeper`]), in whatever form no search
/// reads: a control run answers (issue #59, row 6). Where the caches
/// were empty and there is no `prepare`, the first run could read
/// nothing and did the work; a later run that reads what it kept is
/// hinted by its time. Once per cell, and only for a variant with
/// `caches` or `prepare`: the cost of one unmeasured run.
pub(super) fn unproven(earlier: &[RunRecord], kept: bool) -> bool {
    kept && !earlier
        .iter()
        .any(|r| r.attempt > 0 && r.status.has_figures())
}

/// Whether a run of `wall_s` seconds is the first of its cell to beat the
/// cell's first run (of `earlier`) by more than a toolchain's cache
/// explains ([`crate::noise::beats_cold`]): a hint, worth a deeper search
/// once per cell, never a mark.
pub(super) fn deeper(earlier: &[RunRecord], wall_s: f64) -> bool {
    let measured: Vec<&RunRecord> = earlier
        .iter()
        .filter(|r| r.attempt > 0 && r.status.has_figures())
        .collect();
    let Some(first) = measured.iter().min_by_key(|r| r.attempt) else {
        return false;
    };
    let beats = |w: f64| crate::noise::beats_cold(first.wall_s, w);
    beats(wall_s) && !measured.iter().any(|r| beats(r.wall_s))
}
