//! One cell's work count (issue #62): its program's build steps (not
//! counted) and its run under valgrind's cachegrind, in the sandbox and
//! within the bounds of a timed run, its output checked as a timed run's,
//! and the count read from valgrind's log ([`crate::cachegrind`]) into a
//! [`WorkRecord`].

use std::time::Duration;

use anyhow::Result;

use crate::record::{SCHEMA, Status, WorkRecord, now_rfc3339};

use super::measure::Cell;
use super::steps::Ended;

/// What every count of a session shares: the counter and the machine's
/// facts that make counts differ.
#[derive(Debug, Clone)]
pub(crate) struct Counter {
    /// `valgrind-3.19.0 cachegrind --cache-sim=no --trace-children=yes`.
    pub name: String,
    /// The CPU model.
    pub cpu: String,
    /// The CPU features glibc dispatches on.
    pub features: Vec<String>,
}

/// How far two counts of one cell may differ (a fraction of the smaller)
/// for the count to stand.
const REPRODUCES: f64 = 0.01;

impl Cell<'_> {
    /// Counts the cell's run twice at its size, each within `timeout` (its
    /// build steps and run together, as a timed run's): a count that does
    /// not reproduce within [`REPRODUCES`] is no count, with both figures
    /// as the reason (issue #62: "—" decided by measurement, not assumed:
    /// a runtime whose threads or timers decide its work).
    pub(crate) fn count(&self, counter: &Counter, timeout: Duration) -> Result<WorkRecord> {
        let first = self.count_once(counter, timeout)?;
        let Some(a) = first.instructions else {
            return Ok(first);
        };
        let mut second = self.count_once(counter, timeout)?;
        second.wall_s += first.wall_s;
        match second.instructions {
            Some(b) if a.abs_diff(b) as f64 > REPRODUCES * a.min(b) as f64 => {
                second.instructions = None;
                second.processes = None;
                second.reason = Some(format!(
                    "not reproducible: two counts differ by {:.1} %, more than {} % ({a} and \
                     {b} instructions)",
                    100.0 * a.abs_diff(b) as f64 / a.min(b) as f64,
                    REPRODUCES * 100.0
                ));
                Ok(second)
            }
            // The same count, or a second attempt that failed (its reason).
            _ => Ok(second),
        }
    }

    /// One count of the cell's run at its size.
    fn count_once(&self, counter: &Counter, timeout: Duration) -> Result<WorkRecord> {
        let build_dir = crate::scratch::dir("work")?;
        let fd = crate::cachegrind::log_fd();
        let attempt =
            self.program
                .attempt_counted(self.n(), build_dir.path(), timeout, Some(fd))?;
        let run = self.record(0, Status::Ok, None);
        let mut w = WorkRecord {
            schema: SCHEMA,
            finished_at: now_rfc3339(),
            variant: run.variant,
            language: run.language,
            version: run.version,
            bench: run.bench,
            size: run.size,
            n: run.n,
            instructions: None,
            processes: None,
            reason: None,
            status: attempt.verdict.status,
            wall_s: 0.0,
            counter: counter.name.clone(),
            cpu: counter.cpu.clone(),
            cpu_features: counter.features.clone(),
            identity: run.identity,
        };
        let counted = match &attempt.ended {
            Ended::Ran(o) => {
                w.wall_s = o.done.wall.as_secs_f64();
                crate::cachegrind::parse(&o.log.bytes, o.log.truncated())
            }
            _ => Err(format!(
                "its run never started: {}",
                attempt.verdict.detail.clone().unwrap_or_default()
            )),
        };
        match (attempt.verdict.status, counted) {
            (Status::Ok, Ok(c)) => {
                w.instructions = Some(c.instructions);
                w.processes = Some(c.processes);
            }
            (Status::Timeout, _) => {
                w.reason = Some(format!(
                    "timed out under the counter after {} s",
                    timeout.as_secs()
                ));
            }
            (Status::Ok, Err(why)) => w.reason = Some(why),
            (status, Err(why)) => {
                let detail = attempt.verdict.detail.unwrap_or_default();
                w.reason = Some(format!("{status} under the counter: {why}; {detail}"));
            }
            (status, Ok(_)) => {
                let detail = attempt.verdict.detail.unwrap_or_default();
                w.reason = Some(format!("{status} under the counter: {detail}"));
            }
        }
        if let Some(r) = &mut w.reason {
            *r = langbench_document::inert::clip(&langbench_document::inert::text(r), 400);
        }
        w.finished_at = now_rfc3339();
        Ok(w)
    }
}
