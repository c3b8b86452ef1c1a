//! What a cell's steps and judgment decide from outcomes, on scripted
//! ones: no process starts here.
use std::collections::VecDeque;

use std::time::Duration;

use anyhow::Result;

use super::judge::{classify, verdict};
use super::steps::{Executor, Totals, run_steps};
use crate::bench::Bench;
use crate::config::Template;
use crate::record::{RunRecord, Status};
use crate::testing;
use langbench_spawn::{Captured, Done, Exit, Limits, Outcome, TreeUsage, escape};

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
        log: Captured::default(),
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

/// Runs the scripted steps and judges the run as `run` and `check` do;
/// the record, and the commands that ran.
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
    let output = |_: &Outcome| {
        if output_ok {
            Ok(())
        } else {
            Err("wrong".to_string())
        }
    };
    let limits = Limits::default();
    verdict(&ended, output, &totals, &limits, Duration::from_secs(60)).fill(&mut rec);
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
    assert_eq!(
        rec.detail.as_deref(),
        Some("cannot run `./prog`: no such file")
    );
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

/// Issue #59, row 6: the hint for a deeper search (and a control run) is
/// the first run of a cell that beats its first by more than a
/// toolchain's cache explains, once per cell; whether the first started
/// on empty caches or not (a remembering program's first run is a cold
/// one in a fresh edition).
#[test]
fn the_deeper_search_is_hinted_once_per_cell() {
    use super::measure::deeper;
    let runs = |walls: &[f64]| -> Vec<RunRecord> {
        walls
            .iter()
            .enumerate()
            .map(|(i, &w)| {
                let mut r = testing::run("x", Bench::Assoc).nth(i as u32 + 1).wall(w);
                if i == 0 {
                    r = r.cache(crate::record::CacheStart::Cold);
                }
                r.record()
            })
            .collect()
    };
    assert!(!deeper(&[], 0.01), "a first run has nothing to beat");
    assert!(deeper(&runs(&[0.45]), 0.016));
    assert!(
        !deeper(&runs(&[0.45, 0.016]), 0.013),
        "the second such run: searched already"
    );
    assert!(!deeper(&runs(&[0.45]), 0.2), "2×: a toolchain's cache");
    assert!(!deeper(&runs(&[0.1]), 0.001), "milliseconds: noise");
    assert!(deeper(&runs(&[11.9]), 1.5), "crystal: hinted, then judged");
}

/// Issue #59, row 6: an answer kept before the cell (by `prepare`, an
/// earlier session, another program of the variant) makes even its first
/// run fast, with nothing faster after it to hint at it: the cell's first
/// measured run gets a control run when its caches or prepared copy held
/// anything, once; a first run on empty caches without `prepare` could
/// read nothing, and needs none.
#[test]
fn a_first_run_on_kept_things_is_controlled_once() {
    use super::measure::unproven;
    let first = testing::run("x", Bench::Assoc).nth(1).wall(0.02).record();
    let warm_up = testing::run("x", Bench::Assoc).nth(0).wall(0.5).record();
    assert!(unproven(&[], true));
    assert!(unproven(&[warm_up], true), "a warm-up run is not measured");
    assert!(!unproven(&[], false), "nothing kept: nothing to read");
    assert!(!unproven(&[first], true), "controlled already");
}
