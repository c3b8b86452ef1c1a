//! What is stored: one record per session (a `langbench run` invocation) and
//! one per measured run. Records are versioned (`schema`) and only ever
//! appended; everything else (tables, CSV, JSON) is derived from them.

use serde::{Deserialize, Serialize};

use crate::bench::Bench;
use crate::machine::Machine;
use crate::spawn::Exit;

/// Version of the record format. Bump when a field changes meaning; readers
/// refuse records newer than they know.
pub const SCHEMA: u32 = 1;

/// How a run (or a cell: a variant × benchmark) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Exit 0 and the expected output.
    Ok,
    /// The expected output, but a non-zero exit status.
    BadExit,
    /// Exit 0 but not the expected output.
    WrongOutput,
    /// Non-zero exit (or a failed build / prepare step) without the expected output.
    Failed,
    /// Killed by a signal it did not ask for (segfault, abort, OOM kill).
    Crashed,
    /// Killed after the per-run timeout.
    Timeout,
    /// Not run because an earlier run of the same cell timed out.
    Skipped,
    /// The toolchain's executables are not on PATH.
    NotInstalled,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::BadExit => "bad-exit",
            Status::WrongOutput => "wrong-output",
            Status::Failed => "failed",
            Status::Crashed => "crashed",
            Status::Timeout => "timeout",
            Status::Skipped => "skipped",
            Status::NotInstalled => "not-installed",
        }
    }

    /// Whether the run's figures stand for a completed, correct run.
    pub fn is_ok(self) -> bool {
        self == Status::Ok
    }

    /// Whether the run has measured figures worth showing (flagged or not).
    pub fn has_figures(self) -> bool {
        matches!(
            self,
            Status::Ok | Status::BadExit | Status::WrongOutput | Status::Timeout
        )
    }

    /// Whether a run that ends this way settles its cell: a cell shows its
    /// worst status, and a timeout, a crash or a failure without the right
    /// output leaves no figure that more runs could improve (they would
    /// only repeat it, at up to the timeout each). Bad exits and wrong
    /// outputs keep their flagged best-of-N times, so they run on.
    pub fn settles_cell(self) -> bool {
        matches!(self, Status::Timeout | Status::Crashed | Status::Failed)
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One measured run (or, with `run == 0`, a cell that could not run at all).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RunRecord {
    pub schema: u32,
    pub session: String,
    /// RFC 3339, UTC.
    pub finished_at: String,
    pub variant: String,
    pub language: String,
    pub flags: String,
    pub version: String,
    pub bench: Bench,
    /// The size selection it ran under (`tiny`, `2020`, `2021` or N).
    pub size: String,
    pub n: u64,
    /// 1-based run number within the cell; 0 for a cell-level record.
    pub run: u32,
    /// Wall time of build + run, seconds.
    pub wall_s: f64,
    pub user_s: f64,
    pub sys_s: f64,
    /// Peak RSS in KB (the larger of the build's and the run's).
    pub max_rss_kb: u64,
    /// The build step's share of `wall_s` (variants with a `build` step).
    #[serde(default)]
    pub build_wall_s: Option<f64>,
    pub exit: Option<Exit>,
    pub status: Status,
    /// What went wrong, in a sentence (stderr tail, output difference).
    #[serde(default)]
    pub detail: Option<String>,
}

/// One `langbench run` invocation: when, where, what with.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SessionRecord {
    pub schema: u32,
    pub session: String,
    pub started_at: String,
    pub langbench_version: String,
    pub command_line: Vec<String>,
    pub size: String,
    pub runs: u32,
    pub timeout_s: f64,
    pub machine: Machine,
    pub variants: Vec<VariantInfo>,
}

/// A variant as it was at the time of a session.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct VariantInfo {
    pub id: String,
    pub language: String,
    pub flags: String,
    pub version: String,
    pub installed: bool,
    #[serde(default)]
    pub missing: Vec<String>,
    #[serde(default)]
    pub install_hint: String,
}

/// Now, as stored in records.
pub fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
