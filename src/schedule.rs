//! The runs loop of a measuring session, apart from what a run is. Three
//! decisions, each replaceable on its own:
//!
//! - which cell runs next: an [`Order`] ([`CellByCell`]: every run of a
//!   cell before the next cell);
//! - whether a cell needs another run: [`Runs`] (best of N, `--runs
//!   auto`'s stop rule), and after a run that settled the cell (it failed,
//!   its build failed, it timed out) the rest recorded as skipped (N runs)
//!   or not made (auto);
//! - one attempt of a cell, measured and judged: a [`CellExecutor`] (the
//!   spawner in `run`; a script of outcomes in the tests, as hyperfine
//!   tests its benchmark loop on a mock executor).
//!
//! The cells are numbered `0..n`; the executor knows what each one is.

use std::ops::ControlFlow;

use anyhow::Result;

use crate::noise::Runs;
use crate::record::{RunRecord, Status};

/// Sets cells up, makes one run of a cell at a time and keeps the records.
pub trait CellExecutor {
    /// Gets cell `k` ready for its runs, when it is first chosen: the runs
    /// `--resume` keeps of it, or the one record of a cell that cannot run
    /// (its toolchain missing, its caches or `prepare` failed).
    fn ready(&mut self, k: usize) -> Result<Ready>;
    /// Run `run` of cell `k` (`done`: its runs so far), measured and
    /// judged; `None` when Ctrl-C came (the run is discarded).
    fn attempt(&mut self, k: usize, run: u32, done: &[RunRecord]) -> Result<Option<RunRecord>>;
    /// The record of run `run` of cell `k`, not made: `status`, `detail`.
    fn not_made(&self, k: usize, run: u32, status: Status, detail: String) -> RunRecord;
    /// Keeps a record, as soon as it is made.
    fn save(&mut self, rec: RunRecord) -> Result<()>;
    /// Cell `k` has every run it gets (`done`), or Ctrl-C ended it.
    fn finished(&mut self, k: usize, done: &[RunRecord]);
}

/// A cell set up ([`CellExecutor::ready`]).
pub enum Ready {
    /// It runs, after these runs `--resume` kept (numbered from 1).
    Runs(Vec<RunRecord>),
    /// It cannot run: its one record (boxed: a record is large beside
    /// the other variants).
    Cannot(Box<RunRecord>),
    /// Ctrl-C came while it was set up: the session ends.
    Interrupted,
}

/// Where a cell stands: what an [`Order`] chooses by.
#[derive(Debug, Default)]
pub struct Tally {
    started: bool,
    finished: bool,
    done: Vec<RunRecord>,
}

impl Tally {
    /// It was set up (its first run may still be to come).
    pub fn started(&self) -> bool {
        self.started
    }

    /// It has every run it gets: an order never chooses it again.
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// Its runs so far, kept ones first.
    pub fn runs(&self) -> &[RunRecord] {
        &self.done
    }

    /// What the cell needs next under `runs`.
    fn next(&self, runs: Runs) -> Next {
        let made = self.done.len() as u32;
        if made >= runs.max() || runs.enough(made, &self.done) {
            return Next::Enough;
        }
        match self
            .done
            .iter()
            .map(|r| r.status)
            .find(|s| s.settles_cell())
        {
            Some(_) if matches!(runs, Runs::Auto { .. }) => Next::Enough,
            Some(earlier) => Next::Skip(made + 1, earlier),
            None => Next::Attempt(made + 1),
        }
    }
}

/// What a cell needs next.
#[derive(Debug, PartialEq)]
enum Next {
    /// Run this run.
    Attempt(u32),
    /// Record this run skipped: an earlier run settled the cell with this
    /// status.
    Skip(u32, Status),
    /// Nothing: it has every run it gets.
    Enough,
}

/// Which cell runs next.
pub trait Order {
    /// The cell to run next (never a finished one), `None` when every cell
    /// is finished.
    fn next(&mut self, cells: &[Tally]) -> Option<usize>;
}

/// Every run of a cell, then the next cell, in their order.
pub struct CellByCell;

impl Order for CellByCell {
    fn next(&mut self, cells: &[Tally]) -> Option<usize> {
        cells.iter().position(|c| !c.finished)
    }
}

/// Runs `cells` cells through `exec`, in `order`, each until `runs` says
/// it has enough; every record is saved as it is made. `Break` after
/// Ctrl-C.
pub fn run(
    cells: usize,
    runs: Runs,
    order: &mut impl Order,
    exec: &mut impl CellExecutor,
) -> Result<ControlFlow<()>> {
    let mut tallies: Vec<Tally> = (0..cells).map(|_| Tally::default()).collect();
    while let Some(k) = order.next(&tallies) {
        let t = &mut tallies[k];
        assert!(!t.finished, "the order chose cell {k}, which is finished");
        if !t.started {
            t.started = true;
            match exec.ready(k)? {
                Ready::Runs(kept) => t.done = kept,
                Ready::Cannot(rec) => {
                    t.finished = true;
                    exec.save(*rec)?;
                    continue;
                }
                Ready::Interrupted => return Ok(ControlFlow::Break(())),
            }
        }
        match t.next(runs) {
            Next::Enough => {
                t.finished = true;
                exec.finished(k, &t.done);
            }
            Next::Skip(run, earlier) => {
                let detail = format!("an earlier run ended {earlier}");
                let rec = exec.not_made(k, run, Status::Skipped, detail);
                t.done.push(rec.clone());
                exec.save(rec)?;
            }
            Next::Attempt(run) => match exec.attempt(k, run, &t.done)? {
                Some(rec) => {
                    t.done.push(rec.clone());
                    exec.save(rec)?;
                }
                None => {
                    exec.finished(k, &t.done);
                    return Ok(ControlFlow::Break(()));
                }
            },
        }
    }
    Ok(ControlFlow::Continue(()))
}

#[cfg(test)]
mod tests {
    //! The runs loop on scripted cells: no process starts here.
    use std::collections::VecDeque;

    use super::*;
    use crate::bench::Bench;
    use crate::testing;

    /// One scripted cell: how it is set up, then each attempt's status and
    /// wall time (`None`: Ctrl-C during it).
    struct Script {
        ready: Option<Ready>,
        attempts: VecDeque<Option<(Status, f64)>>,
    }

    fn cell(attempts: &[(Status, f64)]) -> Script {
        Script {
            ready: Some(Ready::Runs(Vec::new())),
            attempts: attempts.iter().map(|&a| Some(a)).collect(),
        }
    }

    fn ok(walls: &[f64]) -> Script {
        cell(&walls.iter().map(|&w| (Status::Ok, w)).collect::<Vec<_>>())
    }

    fn record(k: usize, run: u32, status: Status, wall: f64) -> RunRecord {
        testing::run(&format!("c{k}"), Bench::NumComb)
            .nth(run)
            .wall(wall)
            .status(status)
            .record()
    }

    /// Cells of scripted outcomes; what the loop asked of them, in order,
    /// and the records it saved.
    struct Scripted {
        cells: Vec<Script>,
        asked: Vec<String>,
        saved: Vec<RunRecord>,
    }

    impl Scripted {
        fn new(cells: Vec<Script>) -> Self {
            Scripted {
                cells,
                asked: Vec::new(),
                saved: Vec::new(),
            }
        }

        /// The saved records as `c0#1 ok`, `c0#2 skipped`, ...
        fn saved(&self) -> Vec<String> {
            let s = |r: &RunRecord| format!("{}#{} {}", r.variant, r.attempt, r.status);
            self.saved.iter().map(s).collect()
        }
    }

    impl CellExecutor for Scripted {
        fn ready(&mut self, k: usize) -> Result<Ready> {
            self.asked.push(format!("ready {k}"));
            Ok(self.cells[k].ready.take().expect("set up once"))
        }

        fn attempt(&mut self, k: usize, run: u32, done: &[RunRecord]) -> Result<Option<RunRecord>> {
            self.asked.push(format!("run {k}#{run}"));
            assert_eq!(done.len() as u32 + 1, run, "runs numbered in turn");
            let next = self.cells[k].attempts.pop_front();
            let next = next.unwrap_or_else(|| panic!("cell {k} run {run} was not expected"));
            Ok(next.map(|(status, wall)| record(k, run, status, wall)))
        }

        fn not_made(&self, k: usize, run: u32, status: Status, detail: String) -> RunRecord {
            RunRecord {
                detail: Some(detail),
                ..record(k, run, status, 0.0)
            }
        }

        fn save(&mut self, rec: RunRecord) -> Result<()> {
            self.saved.push(rec);
            Ok(())
        }

        fn finished(&mut self, k: usize, done: &[RunRecord]) {
            self.asked
                .push(format!("finished {k} ({} runs)", done.len()));
        }
    }

    /// Runs every scripted cell, cell by cell; `Break` after Ctrl-C.
    fn run_until(runs: Runs, exec: &mut Scripted) -> ControlFlow<()> {
        let n = exec.cells.len();
        run(n, runs, &mut CellByCell, exec).unwrap()
    }

    fn run_all(runs: Runs, exec: &mut Scripted) {
        assert!(run_until(runs, exec).is_continue());
    }

    #[test]
    fn best_of_n_makes_n_runs_of_each_cell_in_turn() {
        let mut exec = Scripted::new(vec![ok(&[1.0, 1.1, 0.9]), ok(&[2.0, 2.0, 2.0])]);
        run_all(Runs::Fixed(3), &mut exec);
        assert_eq!(
            exec.asked,
            [
                "ready 0",
                "run 0#1",
                "run 0#2",
                "run 0#3",
                "finished 0 (3 runs)",
                "ready 1",
                "run 1#1",
                "run 1#2",
                "run 1#3",
                "finished 1 (3 runs)",
            ]
        );
        assert_eq!(exec.saved().len(), 6);
    }

    /// A failed build (the run never happened: `failed`) or a timeout
    /// settles a cell: best of N records the rest skipped, saying why;
    /// `--runs auto` makes no more.
    #[test]
    fn a_run_that_settles_the_cell_skips_the_rest() {
        for settling in [
            Status::Failed,
            Status::Timeout,
            Status::Crashed,
            Status::Oom,
        ] {
            let mut exec = Scripted::new(vec![cell(&[(Status::Ok, 1.0), (settling, 0.0)])]);
            run_all(Runs::Fixed(4), &mut exec);
            let s = settling.name();
            assert_eq!(
                exec.saved(),
                [
                    "c0#1 ok".into(),
                    format!("c0#2 {s}"),
                    "c0#3 skipped".into(),
                    "c0#4 skipped".into()
                ]
            );
            let note = format!("an earlier run ended {s}");
            assert_eq!(exec.saved[3].detail.as_deref(), Some(note.as_str()));
            assert_eq!(exec.asked.last().unwrap(), "finished 0 (4 runs)");

            let mut exec = Scripted::new(vec![cell(&[(settling, 0.0)]), ok(&[1.0; 3])]);
            run_all(Runs::Auto { cv: 0.05, max: 10 }, &mut exec);
            assert_eq!(
                exec.saved()[..2],
                ["c0#1 ".to_string() + s, "c1#1 ok".into()]
            );
            assert_eq!(exec.saved().len(), 4, "auto: no skipped records");
        }
        // A wrong output or an escape does not settle the cell.
        let mut exec = Scripted::new(vec![cell(&[
            (Status::WrongOutput, 1.0),
            (Status::Escaped, 1.0),
            (Status::Ok, 1.0),
        ])]);
        run_all(Runs::Fixed(3), &mut exec);
        assert_eq!(
            exec.saved(),
            ["c0#1 wrong-output", "c0#2 escaped", "c0#3 ok"]
        );
    }

    /// `--runs auto`: at least 3 runs, then until the spread is within
    /// the bound, at most --max-runs.
    #[test]
    fn auto_runs_until_the_spread_is_small_or_the_cap() {
        let auto = Runs::Auto { cv: 0.05, max: 6 };
        let mut exec = Scripted::new(vec![ok(&[1.0, 1.01, 0.99])]);
        run_all(auto, &mut exec);
        assert_eq!(exec.saved().len(), 3);
        let mut exec = Scripted::new(vec![ok(&[1.0, 1.5, 1.0, 1.0, 1.01, 0.99])]);
        run_all(auto, &mut exec);
        assert_eq!(exec.saved().len(), 6, "the cap");
        // Quiet again after a noisy start: it stops as soon as it is.
        let mut exec = Scripted::new(vec![ok(&[2.0, 1.0, 1.0, 1.0, 1.0, 1.0])]);
        run_all(Runs::Auto { cv: 0.41, max: 6 }, &mut exec);
        assert_eq!(exec.saved().len(), 4);
    }

    /// `--resume`: a cell's kept runs count; its next run is numbered
    /// after them, and a kept run that settled it skips the rest.
    #[test]
    fn a_resumed_cell_continues_after_its_kept_runs() {
        let kept = |statuses: &[Status]| {
            let runs = statuses.iter().enumerate();
            Ready::Runs(
                runs.map(|(i, s)| record(0, i as u32 + 1, *s, 1.0))
                    .collect(),
            )
        };
        let mut exec = Scripted::new(vec![Script {
            ready: Some(kept(&[Status::Ok, Status::Ok])),
            attempts: [Some((Status::Ok, 1.0))].into(),
        }]);
        run_all(Runs::Fixed(3), &mut exec);
        assert_eq!(exec.asked, ["ready 0", "run 0#3", "finished 0 (3 runs)"]);
        assert_eq!(exec.saved(), ["c0#3 ok"], "kept runs are not saved again");

        let mut exec = Scripted::new(vec![Script {
            ready: Some(kept(&[Status::Timeout])),
            attempts: VecDeque::new(),
        }]);
        run_all(Runs::Fixed(3), &mut exec);
        assert_eq!(exec.saved(), ["c0#2 skipped", "c0#3 skipped"]);

        // Auto counts kept runs toward its minimum and its spread.
        let mut exec = Scripted::new(vec![Script {
            ready: Some(kept(&[Status::Ok, Status::Ok])),
            attempts: [Some((Status::Ok, 1.0))].into(),
        }]);
        run_all(Runs::Auto { cv: 0.05, max: 10 }, &mut exec);
        assert_eq!(exec.asked, ["ready 0", "run 0#3", "finished 0 (3 runs)"]);
    }

    /// A cell that cannot run (not installed, its prepare failed) has its
    /// one record, and the next cell runs.
    #[test]
    fn a_cell_that_cannot_run_has_one_record() {
        let not_installed = record(0, 0, Status::NotInstalled, 0.0);
        let cannot = Script {
            ready: Some(Ready::Cannot(Box::new(not_installed))),
            attempts: VecDeque::new(),
        };
        let mut exec = Scripted::new(vec![cannot, ok(&[1.0])]);
        run_all(Runs::Fixed(1), &mut exec);
        assert_eq!(exec.saved(), ["c0#0 not-installed", "c1#1 ok"]);
        assert_eq!(
            exec.asked,
            ["ready 0", "ready 1", "run 1#1", "finished 1 (1 runs)"]
        );
    }

    /// Ctrl-C during a run: the run is discarded, the cell's runs so far
    /// count, no other cell starts. During a cell's `prepare`: nothing more.
    #[test]
    fn ctrl_c_ends_the_loop() {
        let mut cut = ok(&[1.0]);
        cut.attempts.push_back(None);
        let mut exec = Scripted::new(vec![cut, ok(&[1.0; 3])]);
        assert!(run_until(Runs::Fixed(3), &mut exec).is_break());
        assert_eq!(
            exec.asked,
            ["ready 0", "run 0#1", "run 0#2", "finished 0 (1 runs)"]
        );
        assert_eq!(exec.saved(), ["c0#1 ok"]);

        let stopped = Script {
            ready: Some(Ready::Interrupted),
            attempts: VecDeque::new(),
        };
        let mut exec = Scripted::new(vec![stopped, ok(&[1.0; 3])]);
        assert!(run_until(Runs::Fixed(3), &mut exec).is_break());
        assert_eq!(exec.asked, ["ready 0"]);
        assert!(exec.saved.is_empty());
    }

    /// Which cell runs next is the order's alone: one that takes the cells
    /// in rounds (run 1 of every cell, then run 2, ...) gets the same runs
    /// of each cell, interleaved, each cell set up at its first run.
    #[test]
    fn the_order_is_a_policy_of_its_own() {
        struct Rounds;
        impl Order for Rounds {
            fn next(&mut self, cells: &[Tally]) -> Option<usize> {
                let open = cells.iter().enumerate().filter(|(_, c)| !c.finished());
                open.min_by_key(|(_, c)| (c.started(), c.runs().len()))
                    .map(|(k, _)| k)
            }
        }
        let mut exec = Scripted::new(vec![
            ok(&[1.0, 1.0]),
            cell(&[(Status::Timeout, 0.0)]),
            ok(&[1.0, 1.0]),
        ]);
        let flow = run(3, Runs::Fixed(2), &mut Rounds, &mut exec).unwrap();
        assert!(flow.is_continue());
        assert_eq!(
            exec.saved(),
            [
                "c0#1 ok",
                "c1#1 timeout",
                "c2#1 ok",
                "c0#2 ok",
                "c1#2 skipped",
                "c2#2 ok"
            ]
        );
        assert_eq!(
            exec.asked[..4],
            ["ready 0", "run 0#1", "ready 1", "run 1#1"]
        );
    }
}
