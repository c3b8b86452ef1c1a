//! What `langbench run` was asked to do, and where its results go by
//! default.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;

use crate::bench::{Bench, Size};
use crate::noise::Runs;
use crate::shard::Shard;

/// What `langbench run` was asked to do.
#[derive(Debug, Clone)]
pub struct Options {
    pub benches: Vec<Bench>,
    pub size: Size,
    pub runs: Runs,
    pub timeout: Duration,
    pub out: PathBuf,
    pub command_line: Vec<String>,
    /// Skip cells that the results directory already holds complete, and
    /// carry on after the finished runs of cells cut short.
    pub resume: bool,
    /// How the tables are rendered (spread column, noise threshold).
    pub view: crate::summary::View,
    /// `--shard K/N` (recorded in the session).
    pub shard: Option<Shard>,
    /// `--balance-from`: the results directory whose records estimate what
    /// each cell costs (shards, plan, time left).
    pub balance_from: Option<PathBuf>,
    /// Pin every measured process to these CPUs.
    pub cpus: Option<Vec<usize>>,
    /// Every run from empty toolchain caches (`--cold-caches`): builds
    /// from scratch, instead of a person's warm second run.
    pub cold_caches: bool,
    /// The command that continues this run after a Ctrl-C: its own
    /// command line with `--resume` (and `--out`).
    pub resume_command: Vec<String>,
    /// `--wide`: every column of the terminal table, however wide.
    pub wide: bool,
    /// In rounds (the default) or, with `--in-a-row`, each cell's runs one
    /// after another (`None`).
    pub rounds: Option<RoundsOptions>,
}

/// How a session in rounds orders its cells and follows the host (issue
/// #39, docs/measurement.md "Rounds and references").
#[derive(Debug, Clone)]
pub struct RoundsOptions {
    /// Round r's order is shuffled with `seed + r` (`--seed`; recorded).
    pub seed: u64,
    /// The reference set measured in every block (`[edition] references`
    /// or `--references`; empty with `--no-references`).
    pub references: Vec<crate::config::Variant>,
    /// Seconds of measuring between two reference passes
    /// (`--block-minutes`).
    pub block_s: f64,
    /// `--wait-quiet`: before each reference pass, wait (at most this
    /// long) for a host that is otherwise idle.
    pub wait_quiet: Option<Duration>,
}

/// The default results directory: `results/<year>` for the edition size,
/// `results/<year>-<size>` for any other.
pub fn default_out(size: Size) -> PathBuf {
    let year = chrono::Utc::now().format("%Y").to_string();
    if size == Size::default() {
        PathBuf::from("results").join(year)
    } else {
        PathBuf::from("results").join(format!("{year}-{}", size.label()))
    }
}

/// What the results directory `dir` holds of CPU runs, in words ("684 runs
/// of 65 variants, in 3 sessions, the newest started 2026-11-30"), or
/// `None` when it holds none: what `run` says before it adds to it.
pub fn holds(dir: &Path) -> Result<Option<String>> {
    if !dir.join(crate::store::RUNS).is_file() {
        return Ok(None);
    }
    let stored = crate::store::Store::open(dir)?.load()?;
    if stored.runs.is_empty() {
        return Ok(None);
    }
    let variants: BTreeSet<&str> = stored.runs.iter().map(|r| r.variant.as_str()).collect();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let mut text = format!(
        "{} of {}",
        plural(stored.runs.len(), "run"),
        plural(variants.len(), "variant")
    );
    if let Some(newest) = stored.sessions.iter().map(|s| s.started_at.as_str()).max() {
        text.push_str(&format!(
            ", in {}, the newest started {}",
            plural(stored.sessions.len(), "session"),
            newest.get(..10).unwrap_or(newest)
        ));
    }
    Ok(Some(text))
}
