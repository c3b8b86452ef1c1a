//! One measured run of a cell (variant × benchmark at one size, in one
//! session): the program's attempt in a fresh build directory, its figures
//! and verdict in the run's record, and the caches it started on.

use std::time::Duration;

use anyhow::Result;

use crate::bench::Size;
use crate::record::{
    CacheStart, Identity, Origin, RunRecord, SCHEMA, Status, VariantInfo, now_rfc3339,
};

use super::program::Program;

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
            seal: None,
        }
    }

    /// One timed run: the program's attempt (build steps, if any, and the
    /// run within one timeout, then the verdict) in a fresh build
    /// directory, and whether its caches were cold or warm.
    pub(crate) fn measure(&self, run: u32, timeout: Duration) -> Result<RunRecord> {
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
        rec.finished_at = now_rfc3339();
        Ok(rec)
    }
}
