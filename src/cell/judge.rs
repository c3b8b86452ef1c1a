//! How a run went, in the status words of the records (`ok`,
//! `wrong-output`, `escaped`, `timeout`, ...) and the note that says why:
//! the one judgment of a run, for `run`'s records and `check`'s problems
//! alike. From how its steps ended, whether its output is right, its
//! figures against its own (ESCAPED) and against the run's bounds.

use std::time::Duration;

use crate::record::{RunRecord, Status};
use crate::step::{read_only_hint, stderr_tail};
use langbench_document::thousands;
use langbench_spawn::{Exit, Limits, Outcome, escape};

use super::steps::{Ended, Totals};

/// A run's status and the note that says why it is not `ok` (or what
/// else it did: processes left running).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Verdict {
    pub status: Status,
    pub detail: Option<String>,
}

impl Verdict {
    /// The status and note into the run's record.
    pub(crate) fn fill(self, rec: &mut RunRecord) {
        rec.status = self.status;
        rec.detail = self.detail;
    }
}

/// The verdict on a run whose steps ended `ended`, with `output` the check
/// of the run's output against the expected one, `totals` its steps'
/// figures, `limits` and `timeout` its bounds. A run that never happened
/// (a step that cannot start, a failed build) is failed, or what killed
/// the build; one that wrote more than its disk bound is failed, with the
/// note first.
pub(crate) fn verdict(
    ended: &Ended,
    output: impl FnOnce(&Outcome) -> Result<(), String>,
    totals: &Totals,
    limits: &Limits,
    timeout: Duration,
) -> Verdict {
    let mut v = match ended {
        Ended::Ran(o) => ran(o, output(o), totals, limits, timeout),
        Ended::CannotStart { command, error } => Verdict {
            status: Status::Failed,
            detail: Some(format!("cannot run `{command}`: {error:#}")),
        },
        Ended::BuildFailed {
            command,
            outcome: o,
        } => {
            let status = classify(o, false);
            let mut detail = format!("build `{command}`: {}; {}", o.done.exit, stderr_tail(o));
            if let Some(hint) = read_only_hint(o).filter(|_| matches!(o.done.exit, Exit::Exited(_)))
            {
                detail = format!("{detail}; {hint}");
            }
            Verdict {
                status,
                detail: Some(if status == Status::Oom {
                    format!("build killed by the memory limit; {detail}")
                } else {
                    detail
                }),
            }
        }
    };
    if totals.bounds.disk || totals.bounds.files {
        v.status = Status::Failed;
        let note = if totals.bounds.files {
            format!(
                "killed for creating more than {} files on the host's disk (its build directory, \
                 caches and prepared copy; --file-limit)",
                thousands(limits.files)
            )
        } else {
            format!(
                "killed for writing more than {} MB to the host's disk (its build directory, \
                 caches and prepared copy; --disk-limit)",
                limits.disk_kb / 1024
            )
        };
        v.detail = Some(match v.detail.take() {
            Some(d) => format!("{note}; {d}"),
            None => note,
        });
    }
    v
}

/// A run's status and note from its outcome, its output check, its steps'
/// figures and the run's bounds: how it ended, then whether its work
/// escaped its own figures (ESCAPED replaces ok, bad-exit and
/// wrong-output; a crash, timeout or OOM stays what it was, with the note).
fn ran(
    o: &Outcome,
    check: Result<(), String>,
    totals: &Totals,
    limits: &Limits,
    timeout: Duration,
) -> Verdict {
    let mut status = classify(o, check.is_ok());
    let mut detail = match status {
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
    let (escaped, left) = escape_notes(totals, limits);
    if escaped.is_some() && matches!(status, Status::Ok | Status::BadExit | Status::WrongOutput) {
        status = Status::Escaped;
    }
    for note in [escaped, left].into_iter().flatten() {
        detail = Some(match detail.take() {
            Some(d) => format!("{d}; {note}"),
            None => note,
        });
    }
    Verdict { status, detail }
}

/// A run's status from how it ended and whether its output is right.
pub(crate) fn classify(o: &Outcome, output_ok: bool) -> Status {
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
fn escape_notes(t: &Totals, limits: &Limits) -> (Option<String>, Option<String>) {
    let own_cpu = (t.user + t.sys).as_secs_f64();
    let mut why = Vec::new();
    if t.escaped {
        why.push("its supervisor lost control and was killed".to_string());
    }
    if t.bounds.proc_limit {
        why.push(format!(
            "it reached the process limit ({} processes and threads, --max-processes; {} seen at once): forks failed",
            limits.max_procs, t.bounds.tasks
        ));
    }
    if t.bounds.widened {
        why.push(
            "it widened its CPU affinity past --cpus (a task could run on other CPUs)".to_string(),
        );
    }
    if let Some((cpu, _, single)) = t.tree {
        let cpu = cpu.as_secs_f64();
        if escape::cpu_escaped(cpu, own_cpu) {
            why.push(format!(
                "processes it did not wait for used CPU: the tree {cpu:.2} s, the process itself {own_cpu:.2} s"
            ));
        }
        if escape::memory_escaped(single, t.rss) {
            why.push(format!(
                "a process it did not wait for peaked at {} KB, the process itself at {} KB",
                thousands(single),
                thousands(t.rss)
            ));
        }
    }
    if escape::fork_walker(t.forked_after) {
        why.push(format!(
            "processes it left running kept starting new ones after it exited \
             ({} within {} ms: a fork-walker; killed with its namespace)",
            t.forked_after,
            escape::WALK_WATCH_MS
        ));
    }
    let left = (t.leftovers > 0).then(|| {
        format!(
            "{} process(es) still running when it exited (killed with its namespace)",
            t.leftovers
        )
    });
    let escaped = (!why.is_empty()).then(|| {
        let tree = t
            .tree
            .map(|(cpu, rss, _)| {
                format!(
                    " (tree_cpu_s {:.2}, tree_max_rss_kb {}; the process itself {own_cpu:.2} s, {} KB)",
                    cpu.as_secs_f64(),
                    thousands(rss),
                    thousands(t.rss)
                )
            })
            .unwrap_or_default();
        format!("{}{tree}", why.join("; "))
    });
    (escaped, left)
}
