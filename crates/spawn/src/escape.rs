//! When a run's work escaped its own figures (status `escaped`): every
//! threshold in one place. The fork-walker's are init's (`contain::init`
//! watches what a command left running that long); the CPU and memory ones
//! hold a contained run's whole tree against the process itself, as the
//! suite classifies a run. The predicates are what the classification
//! asks, so they are tested without processes.

/// How long init at most watches the processes a command left running
/// before it kills them, and how many new ones they must start meanwhile to
/// be a fork-walker (see `contain::init::walkers`). The watch ends as soon
/// as that many appeared; an idle daemon costs the whole window (after the
/// command's figures were taken: its wall time is not affected). Long
/// enough for a walker to show itself on a loaded CPU.
pub const WALK_WATCH_MS: u64 = 500;
pub const WALK_MIN_NEW: usize = 3;

/// The tree used more CPU than the process itself by more than this many
/// seconds, and by more than [`CPU_EXCESS_FRACTION`] of the process's own:
/// work done by processes nobody waited for.
const CPU_EXCESS_MIN_S: f64 = 0.5;
const CPU_EXCESS_FRACTION: f64 = 0.5;

/// One process nobody waited for peaked at more than this many times the
/// process's own peak, and more than [`SINGLE_RSS_EXCESS_KB`] above it.
/// (The tree's summed memory is recorded, not flagged: a compiler's
/// parallel jobs make it 2–8× the largest one.)
const SINGLE_RSS_FACTOR: u64 = 2;
const SINGLE_RSS_EXCESS_KB: u64 = 50 * 1024;

/// Whether the tree's CPU seconds escaped the process's own.
pub fn cpu_escaped(tree_cpu_s: f64, own_cpu_s: f64) -> bool {
    tree_cpu_s - own_cpu_s > CPU_EXCESS_MIN_S.max(CPU_EXCESS_FRACTION * own_cpu_s)
}

/// Whether the largest single process of the tree (KB) escaped the
/// process's own peak.
pub fn memory_escaped(single_kb: u64, own_kb: u64) -> bool {
    single_kb > SINGLE_RSS_FACTOR * own_kb && single_kb - own_kb > SINGLE_RSS_EXCESS_KB
}

/// Whether the processes a command left running started enough new ones
/// after it exited to be a fork-walker.
pub fn fork_walker(forked_after: u32) -> bool {
    forked_after as usize >= WALK_MIN_NEW
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_escapes_past_half_a_second_and_half_its_own() {
        // A short program: the half second is the bound.
        assert!(!cpu_escaped(0.6, 0.2));
        assert!(cpu_escaped(0.71, 0.2));
        // A long one: half of its own CPU is.
        assert!(!cpu_escaped(14.9, 10.0));
        assert!(cpu_escaped(15.1, 10.0));
        // Children it waited for are in its own figure: no excess.
        assert!(!cpu_escaped(3.0, 3.0));
    }

    #[test]
    fn memory_escapes_past_twice_its_own_and_fifty_megabytes() {
        // Twice its own, but only 40 MB more: a small program's helper.
        assert!(!memory_escaped(80 * 1024, 40 * 1024));
        // 60 MB more, but not twice its own.
        assert!(!memory_escaped(160 * 1024, 100 * 1024));
        assert!(memory_escaped(300 * 1024, 100 * 1024));
        assert!(memory_escaped(60 * 1024, 0));
    }

    #[test]
    fn three_new_processes_make_a_fork_walker() {
        assert!(!fork_walker(0));
        assert!(!fork_walker(2));
        assert!(fork_walker(3));
    }
}
