//! In which order a session measures (issue #39): in **rounds** — round 1
//! of every cell, then round 2, ... — each round in its own shuffled order,
//! so that a cell's runs come from different states of the host rather
//! than from the same few minutes; and in **blocks** of about
//! [`DEFAULT_BLOCK_S`](crate::reference::DEFAULT_BLOCK_S) of measuring,
//! with the reference set measured before the first block and after
//! every block, so that every run lies between two reference passes
//! ([`crate::reference`]).
//!
//! Pure policy: which cell runs next and when a reference pass is due. What
//! a run is and whether a cell has enough of them is the runs loop's
//! ([`crate::noise::Runs`]).

/// The order of each round: the cells shuffled with a seeded generator,
/// round `r` with `seed + r`, so a session's order can be told again from
/// its record (`schedule.seed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rounds {
    pub seed: u64,
}

impl Rounds {
    /// A seed from the clock, for a session that was given none.
    pub(crate) fn fresh_seed() -> u64 {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        // Seconds and nanoseconds mixed: two sessions started within a
        // second of each other still differ.
        now.as_secs().wrapping_mul(1_000_003) ^ u64::from(now.subsec_nanos())
    }

    /// Round `round`'s order of `cells` (indices into it): every index once.
    pub(crate) fn order(&self, round: u32, cells: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..cells).collect();
        // fastrand's generator (wyrand) is fixed within its major version:
        // the same seed gives the same order on every machine.
        fastrand::Rng::with_seed(self.seed.wrapping_add(u64::from(round))).shuffle(&mut order);
        order
    }
}

/// When the next reference pass is due: after `block_s` seconds of
/// measuring since the last one.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Blocks {
    block_s: f64,
    /// Seconds measured since the last pass.
    since: f64,
    /// The current block (1 after the first pass).
    block: u32,
}

impl Blocks {
    /// Blocks of `block_s` seconds; the first pass (block 0) is due at once.
    pub(crate) fn new(block_s: f64) -> Blocks {
        Blocks {
            block_s,
            since: f64::INFINITY,
            block: 0,
        }
    }

    /// The block the next run belongs to.
    pub(crate) fn current(&self) -> u32 {
        self.block
    }

    /// Whether a reference pass is due before the next run.
    pub(crate) fn due(&self) -> bool {
        self.since >= self.block_s
    }

    /// A reference pass was made: the pass's number (its block), and the
    /// next block begins.
    pub(crate) fn passed(&mut self) -> u32 {
        let pass = self.block;
        self.block += 1;
        self.since = 0.0;
        pass
    }

    /// A run of `seconds` was measured in the current block.
    pub(crate) fn measured(&mut self, seconds: f64) {
        if self.since.is_finite() {
            self.since += seconds.max(0.0);
        }
    }

    /// Whether anything was measured since the last pass (a closing pass
    /// is then needed, so that the block's runs lie between two).
    pub(crate) fn open(&self) -> bool {
        self.since.is_finite() && self.since > 0.0
    }
}

/// The reference passes still due in `rest_s` seconds of measuring, in
/// blocks of `block_s`: one after every block that ends within it and the
/// closing one. The time left during a run counts with this (the pass
/// before the first block is behind it then), and so does `run --plan`
/// ([`passes`]), so the two agree.
pub(crate) fn passes_after(rest_s: f64, block_s: f64) -> u32 {
    if rest_s <= 0.0 || block_s <= 0.0 || !rest_s.is_finite() {
        return 0;
    }
    (rest_s / block_s).floor() as u32 + 1
}

/// Every reference pass of a session that measures `measure_s` seconds:
/// the one before the first block and [`passes_after`] (none when there is
/// nothing to measure).
pub(crate) fn passes(measure_s: f64, block_s: f64) -> u32 {
    match passes_after(measure_s, block_s) {
        0 => 0,
        n => n + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An hour in blocks of 15 minutes: a pass first, one after each of the
    /// four blocks, and the closing one after the part-block the floor
    /// leaves (the runs loop closes a block after the run that passes 15
    /// minutes, so an exact multiple still ends with a pass).
    #[test]
    fn passes_count_the_first_one_and_one_per_block() {
        assert_eq!(passes(0.0, 900.0), 0);
        assert_eq!(passes(10.0, 900.0), 2);
        assert_eq!(passes(3000.0, 900.0), 5);
        assert_eq!(passes_after(3000.0, 900.0), 4);
        assert_eq!(passes(3600.0, 900.0), 6);
    }

    /// Each round is a permutation of the cells, rounds differ, and the
    /// same seed gives the same orders (the session's record tells them).
    #[test]
    fn rounds_are_seeded_shuffles() {
        let r = Rounds { seed: 42 };
        let (a, b) = (r.order(1, 20), r.order(2, 20));
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, (0..20).collect::<Vec<_>>());
        assert_ne!(a, b, "each round its own order");
        assert_eq!(a, Rounds { seed: 42 }.order(1, 20));
        assert_ne!(a, Rounds { seed: 43 }.order(1, 20));
    }

    /// A pass at once, then one after every block of measuring, and a
    /// closing one only when runs were measured since the last.
    #[test]
    fn a_pass_is_due_first_and_after_every_block() {
        let mut b = Blocks::new(100.0);
        assert!(b.due() && !b.open());
        assert_eq!(b.passed(), 0);
        assert_eq!(b.current(), 1);
        assert!(!b.due() && !b.open());
        b.measured(60.0);
        assert!(!b.due() && b.open());
        b.measured(50.0);
        assert!(b.due());
        assert_eq!(b.passed(), 1);
        assert_eq!(b.current(), 2);
        assert!(!b.open());
    }
}
