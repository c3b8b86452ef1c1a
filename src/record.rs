//! What is stored: one record per session (a `langbench run` invocation) and
//! one per measured run. Records are versioned (`schema`) and only ever
//! appended; everything else (tables, CSV, JSON) is derived from them.

use serde::{Deserialize, Serialize};

use crate::bench::Bench;
use crate::machine::Machine;
use crate::spawn::Exit;

/// Version of the record format. Bump when a field changes meaning; readers
/// refuse records newer than they know and read older ones (see
/// `results/README.md`). 2 added `origin` (published figures) and the
/// `did-not-finish` status; a schema-1 record reads as measured.
pub const SCHEMA: u32 = 2;

/// Where a record's figures come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// Measured by langbench: every run is its own record.
    #[default]
    Measured,
    /// Copied from a published edition by `langbench import`: one record per
    /// cell holding the published best-of-N figure (`wall_s`, `max_rss_kb`);
    /// the individual runs, user and system time were not published
    /// (`user_s` and `sys_s` are 0 and never shown).
    Published,
}

impl Origin {
    pub fn is_measured(&self) -> bool {
        *self == Origin::Measured
    }
}

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
    /// Work escaped the measured process's own accounting: processes still
    /// running when it exited (killed with its namespace), or a process
    /// tree that cost far more CPU or memory than the process itself (see
    /// `tree_cpu_s`, `tree_max_rss_kb`), or a supervisor that lost control.
    /// The figures are the process's own, flagged.
    Escaped,
    /// Non-zero exit (or a failed build / prepare step) without the expected output.
    Failed,
    /// Killed by a signal it did not ask for (segfault, abort, OOM kill).
    Crashed,
    /// Killed by the memory limit (`--memory-limit`): `max_rss_kb` is the
    /// peak it reached.
    Oom,
    /// Killed after the per-run timeout.
    Timeout,
    /// Stopped by hand before it finished (a published edition's `999.99`
    /// sentinel): no time; `max_rss_kb` is the peak it reached, 0 if unknown.
    DidNotFinish,
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
            Status::Escaped => "escaped",
            Status::Oom => "oom",
            Status::Failed => "failed",
            Status::Crashed => "crashed",
            Status::Timeout => "timeout",
            Status::DidNotFinish => "did-not-finish",
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
            Status::Ok | Status::BadExit | Status::WrongOutput | Status::Escaped | Status::Timeout
        )
    }

    /// Whether a run that ends this way settles its cell: a cell shows its
    /// worst status, and a timeout, a crash or a failure without the right
    /// output leaves no figure that more runs could improve (they would
    /// only repeat it, at up to the timeout each). Bad exits and wrong
    /// outputs keep their flagged best-of-N times, so they run on.
    pub fn settles_cell(self) -> bool {
        matches!(
            self,
            Status::Timeout | Status::Crashed | Status::Oom | Status::Failed | Status::DidNotFinish
        )
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
    /// The whole process tree's CPU (user + sys, seconds) and sampled peak
    /// resident memory (KB), build and run: every process of the run's PID
    /// namespace, waited for or not. Absent without containment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree_cpu_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree_max_rss_kb: Option<u64>,
    /// The build step's share of `wall_s` (variants with a `build` step).
    #[serde(default)]
    pub build_wall_s: Option<f64>,
    pub exit: Option<Exit>,
    pub status: Status,
    /// What went wrong, in a sentence (stderr tail, output difference).
    #[serde(default)]
    pub detail: Option<String>,
    /// Measured here, or a published figure (absent: measured).
    #[serde(default, skip_serializing_if = "Origin::is_measured")]
    pub origin: Origin,
}

/// One `langbench run` invocation: when, where, what with.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
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
    /// Measured here, or imported from a published edition (absent: measured).
    #[serde(default, skip_serializing_if = "Origin::is_measured")]
    pub origin: Origin,
    /// For an imported edition: where the figures come from and how they
    /// were measured, as its publisher said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// `--shard K/N` this session ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// `--cpus`: the CPUs every measured process was pinned to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<Vec<usize>>,
    /// `--runs auto`: the coefficient of variation a cell ran until (`runs`
    /// is then the cap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs_auto_cv: Option<f64>,
    /// How quiet the machine was at the start (governor, load, busy
    /// processes, swap, ASLR).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hygiene: Option<crate::hygiene::Hygiene>,
    /// How the commands were contained and the tree measured (namespaces,
    /// sandbox, memory-limit method, or `--no-sandbox`). Absent in sessions
    /// from before containment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub containment: Option<String>,
    /// How the process trees were measured: `cgroup v2` (CPU, memory,
    /// limit and OOM from a cgroup), `cgroup v2 + /proc sampling` (CPU from
    /// a cgroup without a memory controller, memory sampled), `/proc
    /// sampling` (no cgroup: CPU from init's RUSAGE_CHILDREN, memory
    /// sampled), `none` (`--no-sandbox`). Absent in older sessions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree_measure: Option<String>,
}

/// A variant as it was at the time of a session.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
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
    /// The benchmarks it has a program for (absent in older records).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub programs: Vec<Bench>,
}

/// Now, as stored in records.
pub fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
