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
//!   tests its benchmark loop on a mock executor);
//! - when the host itself is measured: with [`Blocks`], a reference pass
//!   ([`CellExecutor::reference_pass`]) before the first run, after every
//!   block of measuring and after the last run, each run's record
//!   carrying its block (issue #39).
//!
//! The cells are numbered `0..n`; the executor knows what each one is.

use std::ops::ControlFlow;
use std::time::Instant;

use anyhow::Result;

use crate::noise::Runs;
use crate::record::{RunRecord, Status};
pub(crate) use crate::rounds::{Blocks, Rounds};

/// Sets cells up, makes one run of a cell at a time and keeps the records.
pub(crate) trait CellExecutor {
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
    /// Measures the reference set once: pass `pass` (0 before block 1,
    /// k after block k), its runs kept apart from the cells'; `Break`
    /// when Ctrl-C came. Only asked of a session measured in blocks.
    fn reference_pass(&mut self, pass: u32) -> Result<ControlFlow<()>> {
        let _ = pass;
        Ok(ControlFlow::Continue(()))
    }
}

/// A cell set up ([`CellExecutor::ready`]).
pub(crate) enum Ready {
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
pub(crate) struct Tally {
    started: bool,
    finished: bool,
    done: Vec<RunRecord>,
}

impl Tally {
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
pub(crate) trait Order {
    /// The cell to run next (never a finished one), `None` when every cell
    /// is finished.
    fn next(&mut self, cells: &[Tally]) -> Option<usize>;
}

/// Every run of a cell, then the next cell, in their order.
pub(crate) struct CellByCell;

impl Order for CellByCell {
    fn next(&mut self, cells: &[Tally]) -> Option<usize> {
        cells.iter().position(|c| !c.finished)
    }
}

/// Run 1 of every cell, then run 2 of every cell, ... (a cell's round is
/// its next run's number), each round in its own shuffled order
/// ([`Rounds::order`]): a cell's runs then come from different states of
/// the host, minutes or hours apart, instead of from the same few
/// minutes. A cell `--resume` kept runs of takes its next run in the
/// first round it is chosen, then follows the rounds.
pub(crate) struct InRounds {
    rounds: Rounds,
    round: u32,
    order: Vec<usize>,
    at: usize,
}

impl InRounds {
    pub(crate) fn new(rounds: Rounds) -> InRounds {
        InRounds {
            rounds,
            round: 0,
            order: Vec::new(),
            at: 0,
        }
    }
}

impl Order for InRounds {
    fn next(&mut self, cells: &[Tally]) -> Option<usize> {
        loop {
            while let Some(&k) = self.order.get(self.at) {
                let c = &cells[k];
                // Chosen again until it has this round's run (or has
                // every run it gets): the loop gives it one per choice.
                if c.finished || (c.started && c.done.len() >= self.round as usize) {
                    self.at += 1;
                } else {
                    return Some(k);
                }
            }
            if cells.iter().all(|c| c.finished) {
                return None;
            }
            self.round += 1;
            self.order = self.rounds.order(self.round, cells.len());
            self.at = 0;
        }
    }
}

/// Runs `cells` cells through `exec`, in `order`, each until `runs` says
/// it has enough; every record is saved as it is made. With `blocks`, a
/// reference pass before the first run, whenever a block is full and
/// after the last run, and each run's record carries its block. `Break`
/// after Ctrl-C (no closing pass then).
pub(crate) fn run(
    cells: usize,
    runs: Runs,
    order: &mut impl Order,
    mut blocks: Option<&mut Blocks>,
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
            Next::Attempt(run) => {
                if let Some(b) = blocks.as_deref_mut().filter(|b| b.due())
                    && exec.reference_pass(b.passed())?.is_break()
                {
                    exec.finished(k, &t.done);
                    return Ok(ControlFlow::Break(()));
                }
                let start = Instant::now();
                match exec.attempt(k, run, &t.done)? {
                    Some(mut rec) => {
                        if let Some(b) = blocks.as_deref_mut() {
                            // The attempt's time (its build steps too);
                            // never less than its record's wall time.
                            b.measured(start.elapsed().as_secs_f64().max(rec.wall_s));
                            rec.block = Some(b.current());
                        }
                        t.done.push(rec.clone());
                        exec.save(rec)?;
                    }
                    None => {
                        exec.finished(k, &t.done);
                        return Ok(ControlFlow::Break(()));
                    }
                }
            }
        }
    }
    if let Some(b) = blocks.filter(|b| b.open()) {
        return exec.reference_pass(b.passed());
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
        run(n, runs, &mut CellByCell, None, exec).unwrap()
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

    /// Which cell runs next is the order's alone: in rounds, run 1 of
    /// every cell (each set up at its first run), then run 2, each round
    /// in its seeded order; a cell that settled gets its skipped runs in
    /// the later rounds, and the same seed gives the same session.
    #[test]
    fn in_rounds_every_cell_gets_run_r_before_any_gets_run_r_plus_1() {
        let script = || {
            Scripted::new(vec![
                ok(&[1.0, 1.0, 1.0]),
                cell(&[(Status::Timeout, 0.0)]),
                ok(&[1.0, 1.0, 1.0]),
                ok(&[1.0, 1.0, 1.0]),
            ])
        };
        let mut exec = script();
        let mut order = InRounds::new(Rounds { seed: 7 });
        let flow = run(4, Runs::Fixed(3), &mut order, None, &mut exec).unwrap();
        assert!(flow.is_continue());
        let saved = exec.saved();
        assert_eq!(saved.len(), 12);
        for (i, round) in saved.chunks(4).enumerate() {
            let mut cells: Vec<&str> = round.iter().map(|s| &s[..2]).collect();
            cells.sort();
            assert_eq!(
                cells,
                ["c0", "c1", "c2", "c3"],
                "round {}: {round:?}",
                i + 1
            );
            assert!(round.iter().all(|s| s.contains(&format!("#{} ", i + 1))));
        }
        assert!(saved.iter().any(|s| s == "c1#1 timeout"));
        assert!(saved.iter().any(|s| s == "c1#3 skipped"));
        let orders: Vec<Vec<String>> = saved.chunks(4).map(|r| r.to_vec()).collect();
        let firsts: Vec<&str> = orders.iter().map(|r| &r[0][..2]).collect();
        let mut again = script();
        let _ = run(
            4,
            Runs::Fixed(3),
            &mut InRounds::new(Rounds { seed: 7 }),
            None,
            &mut again,
        )
        .unwrap();
        assert_eq!(again.saved(), saved, "the same seed, the same order");
        // Rounds are shuffled each: over 12 seeds the first cell of round
        // 1 is not always the same.
        let starts: std::collections::BTreeSet<String> = (0..12)
            .map(|seed| {
                let mut e = script();
                let _ = run(
                    4,
                    Runs::Fixed(3),
                    &mut InRounds::new(Rounds { seed }),
                    None,
                    &mut e,
                )
                .unwrap();
                e.saved()[0][..2].to_string()
            })
            .collect();
        assert!(starts.len() > 1, "{starts:?} {firsts:?}");
    }

    /// Blocks: a reference pass before the first run, one whenever a block
    /// is full, one after the last run; every record carries its block.
    /// Ctrl-C: no closing pass.
    #[test]
    fn reference_passes_frame_every_block() {
        struct Passing(Scripted);
        impl CellExecutor for Passing {
            fn ready(&mut self, k: usize) -> Result<Ready> {
                self.0.ready(k)
            }
            fn attempt(
                &mut self,
                k: usize,
                run: u32,
                done: &[RunRecord],
            ) -> Result<Option<RunRecord>> {
                self.0.attempt(k, run, done)
            }
            fn not_made(&self, k: usize, run: u32, status: Status, detail: String) -> RunRecord {
                self.0.not_made(k, run, status, detail)
            }
            fn save(&mut self, rec: RunRecord) -> Result<()> {
                self.0.save(rec)
            }
            fn finished(&mut self, k: usize, done: &[RunRecord]) {
                self.0.finished(k, done)
            }
            fn reference_pass(&mut self, pass: u32) -> Result<ControlFlow<()>> {
                self.0.asked.push(format!("pass {pass}"));
                Ok(ControlFlow::Continue(()))
            }
        }
        // Runs of 1 s in blocks of 1.5 s: a pass after every second run.
        let mut exec = Passing(Scripted::new(vec![ok(&[1.0; 2]), ok(&[1.0; 2])]));
        let mut blocks = Blocks::new(1.5);
        let flow = run(
            2,
            Runs::Fixed(2),
            &mut CellByCell,
            Some(&mut blocks),
            &mut exec,
        )
        .unwrap();
        assert!(flow.is_continue());
        let asked: Vec<&str> = exec.0.asked.iter().map(String::as_str).collect();
        assert_eq!(
            asked,
            [
                "ready 0",
                "pass 0",
                "run 0#1",
                "run 0#2",
                "finished 0 (2 runs)",
                "ready 1",
                "pass 1",
                "run 1#1",
                "run 1#2",
                "finished 1 (2 runs)",
                "pass 2"
            ]
        );
        let blocks_of: Vec<Option<u32>> = exec.0.saved.iter().map(|r| r.block).collect();
        assert_eq!(blocks_of, [Some(1), Some(1), Some(2), Some(2)]);

        // Ctrl-C during a run: no closing pass.
        let mut cut = ok(&[1.0]);
        cut.attempts.push_back(None);
        let mut exec = Passing(Scripted::new(vec![cut]));
        let mut blocks = Blocks::new(1000.0);
        let flow = run(
            1,
            Runs::Fixed(3),
            &mut CellByCell,
            Some(&mut blocks),
            &mut exec,
        )
        .unwrap();
        assert!(flow.is_break());
        assert_eq!(
            exec.0.asked,
            [
                "ready 0",
                "pass 0",
                "run 0#1",
                "run 0#2",
                "finished 0 (1 runs)"
            ]
        );
    }
}
