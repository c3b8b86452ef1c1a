//! What is stored: one record per session (a `langbench run` invocation) and
//! one per measured run. Records are versioned (`schema`) and only ever
//! appended; everything else (tables, CSV, JSON) is derived from them.
//!
//! These types are the results format's contract (`results/README.md`
//! describes the same fields for readers of the files): every field is
//! documented, and a field's serialized name and meaning never change
//! within a schema version.
#![warn(missing_docs)]

use serde::{Deserialize, Serialize};

use crate::bench::Bench;
use crate::machine::Machine;
use langbench_spawn::Exit;

/// Version of the record format. Bump when a field changes meaning; readers
/// refuse records newer than they know and read older ones (see
/// `results/README.md`). 2 added `origin` (published figures) and the
/// `did-not-finish` status; a schema-1 record reads as measured.
pub(crate) const SCHEMA: u32 = 2;

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
    /// Whether langbench measured it (the default, left out of records).
    pub(crate) fn is_measured(&self) -> bool {
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
    /// `tree_cpu_s`, `tree_max_rss_kb`), or a supervisor that lost control,
    /// or the answer it printed kept where its runs keep things for the
    /// next (`remembered`): the work done before the run, not by it.
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
    /// Not run because an earlier run of the same cell settled it (a
    /// timeout, crash, memory kill or failure).
    Skipped,
    /// The toolchain's executables are not on PATH.
    NotInstalled,
}

impl Status {
    /// Every status, in their order: a cell shows its worst (greatest)
    /// status, skipped runs aside.
    #[cfg(test)]
    pub(crate) const ALL: [Status; 11] = [
        Status::Ok,
        Status::BadExit,
        Status::WrongOutput,
        Status::Escaped,
        Status::Failed,
        Status::Crashed,
        Status::Oom,
        Status::Timeout,
        Status::DidNotFinish,
        Status::Skipped,
        Status::NotInstalled,
    ];

    /// The name stored in records and shown in CSV (`bad-exit`): the serde
    /// name, so the two cannot drift apart.
    pub(crate) fn name(self) -> &'static str {
        serde_variant::to_variant_name(&self).expect("Status is a unit enum")
    }

    /// Whether the run's figures stand for a completed, correct run.
    pub(crate) fn is_ok(self) -> bool {
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
/// A line of `runs.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RunRecord {
    /// The record format version ([`SCHEMA`] when written).
    pub schema: u32,
    /// The id of the session it belongs to ([`SessionRecord::session`]).
    pub session: String,
    /// When the run finished: RFC 3339, UTC.
    pub finished_at: String,
    /// The variant id of `languages.toml`; an imported row that no variant
    /// stands for gets an id made from its name, and two rows of one
    /// variant in one edition get `id@version`.
    pub variant: String,
    /// The language, as shown in the table (for an import: as published).
    pub language: String,
    /// The command flags that tell variants of one language apart.
    pub flags: String,
    /// The toolchain's version at the time (empty if unknown).
    pub version: String,
    /// The benchmark.
    pub bench: Bench,
    /// The size selection it ran under (`tiny`, `2020`, `2021` or N).
    pub size: String,
    /// The N the size means for this benchmark.
    pub n: u64,
    /// 1-based attempt number within the cell; 0 for a cell-level record
    /// (stored as `run`).
    #[serde(rename = "run")]
    pub attempt: u32,
    /// Wall time of build + run, seconds (monotonic clock); 0 when there
    /// is no time.
    pub wall_s: f64,
    /// User CPU seconds from `wait4` rusage (0 in published records).
    pub user_s: f64,
    /// System CPU seconds from `wait4` rusage (0 in published records).
    pub sys_s: f64,
    /// Peak RSS in KB (the larger of the build's and the run's); 0 if
    /// unknown.
    pub max_rss_kb: u64,
    /// The whole process tree's CPU (user + sys, seconds), build and run:
    /// every process of the run's PID namespace, waited for or not.
    /// Absent without containment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree_cpu_s: Option<f64>,
    /// The whole process tree's sampled peak resident memory (KB), build
    /// and run: the largest sum over the namespace's processes, at least
    /// the largest single peak. Absent without containment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree_max_rss_kb: Option<u64>,
    /// The build step's share of `wall_s` (variants with a `build` step).
    #[serde(default)]
    pub build_wall_s: Option<f64>,
    /// How the process ended; `None` when nothing ran or not published.
    pub exit: Option<Exit>,
    /// How the run ended, judged from its exit, output and tree.
    pub status: Status,
    /// What went wrong, in a sentence (stderr tail, output difference).
    #[serde(default)]
    pub detail: Option<String>,
    /// Measured here, or a published figure (absent: measured).
    #[serde(default, skip_serializing_if = "Origin::is_measured")]
    pub origin: Origin,
    /// What ran (program source, resolved commands, toolchain and
    /// langbench versions). Absent in published records and in runs from
    /// before it was recorded: unknown, never guessed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<Identity>,
    /// Whether the run started with the variant's toolchain caches cold
    /// (empty: the compiler rebuilt what it caches) or warm (filled by
    /// an earlier run, as a person's second `go run` is). Absent for a
    /// variant that declares no cache, for a run that left its empty
    /// caches empty (it used none), without containment, and in older
    /// records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheStart>,
    /// `--resume` kept this cell's finished runs from that session (same
    /// size, runs, containment, machine and program) and this run carries
    /// on after them: the cell is this session's runs and that one's
    /// (itself perhaps continuing another). Absent: the cell is this
    /// session's runs alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continues: Option<String>,
    /// The block of its session the run was measured in (issue #39): a
    /// session measuring in rounds measures its reference set at the start
    /// and after every block of about `block_s` seconds, so each run lies
    /// between two reference passes (`references.jsonl`), numbered from 1.
    /// A reference run's block is the pass's (0: the one before block 1;
    /// k: the one after block k). Absent in sessions that measured no
    /// references.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<u32>,
    /// How busy the host was around the run: the load average when it
    /// started and the share of CPU time the hypervisor stole while it
    /// ran. Absent in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<HostLoad>,
    /// The memory probe made just before the run, between runs (issue
    /// #60): fresh anonymous memory touched a page at a time, its time and
    /// faults, which is what a memory-heavy run pays for every page it
    /// touches first. Made before every run of a memory-heavy cell (assoc
    /// at N of a million or more) and at each block boundary (on the
    /// first reference run of each pass). Absent for other runs and in
    /// older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<MemProbe>,
    /// The answer the run printed was found, after it, where the
    /// variant's runs keep things for the next: the file, as the program
    /// sees it, and the place (`` `~/.cache/ans/3000` in its declared
    /// caches ``, `` `answers.json` in its prepared copy ``). Such a run is
    /// `escaped` (the work may have been done before it, by an earlier
    /// run or its untimed `prepare`), and its cell shows `REMEMBERED`.
    /// Absent: nothing found, or not searched (a run that was not right,
    /// older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remembered: Option<String>,
    /// The seal of the machine that measured it (issue #59): HMAC-SHA256
    /// (hex) of the record's JSON without this field, under a key kept in
    /// that machine's langbench state directory (`crate::seal`).
    /// `run --resume` keeps a run only where its seal verifies with this
    /// machine's key; it proves nothing to anyone else. Absent in imported
    /// records and in runs from before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seal: Option<String>,
}

/// How busy the host was around one run: defined beside what measures it
/// (`hygiene`, as the session's `Hygiene` is), so that `hygiene` needs
/// nothing of this file.
pub(crate) use crate::hygiene::HostLoad;

/// The memory probe's figures: defined beside the probe (`mem_probe`),
/// as [`HostLoad`] is beside what measures it.
pub(crate) use crate::mem_probe::MemProbe;

/// The identity of what a run ran, so a reader (and `--resume`, and
/// `compare`) can tell a faster toolchain from a changed program.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, Hash)]
pub struct Identity {
    /// A digest (sha256, hex, first 16 digits) of `program`, `commands` and
    /// `toolchain`: two runs with the same digest ran the same program the
    /// same way on the same toolchain version. langbench's own version is
    /// not in it (a new langbench measures the same program).
    pub digest: String,
    /// sha256 (hex) of the program's source: its file, or for a program
    /// directory every file in it, by relative path, in order.
    pub program: String,
    /// The build commands and the run command, placeholders expanded, with
    /// the run's own scratch directory written `{build}` and paths of the
    /// languages file's directory relative to it.
    pub commands: Vec<String>,
    /// The toolchain version the probe read (as `version`).
    pub toolchain: String,
    /// langbench's version, with its git revision when it was built from a
    /// checkout (`0.1.0 (abc1234)`).
    pub langbench: String,
}

/// How a run's toolchain caches started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CacheStart {
    /// The variant's caches were empty: the first run of a cell after a
    /// clear (or on a fresh machine), or every run under `--cold-caches`.
    Cold,
    /// The caches held what earlier runs of the variant left.
    Warm,
}

/// A new session's id: its start time (UTC, to the second), the pid and a
/// random tag, then `suffix` (`-ws`, `-ws-target`, …). The tag is there
/// because shards started at once in containers all run as pid 1 (issue
/// #42: two shards of one rehearsal both got `…Z-1` and their merge said
/// "in 1 session"). The randomness is std's per-process hasher keys,
/// seeded from the OS: 24 bits need no random-number crate.
pub(crate) fn new_session_id(suffix: &str) -> String {
    format!(
        "{}-{}-{}{suffix}",
        chrono::Utc::now().format("%Y%m%dT%H%M%SZ"),
        std::process::id(),
        random_tag(),
    )
}

/// Six random hex digits (24 bits) from std's per-process hasher keys,
/// seeded from the OS: what tells apart names a pid alone does not
/// (processes of containers all run as pid 1).
pub(crate) fn random_tag() -> String {
    use std::hash::BuildHasher;
    let tag = std::hash::RandomState::new().hash_one(std::time::SystemTime::now()) & 0xff_ffff;
    format!("{tag:06x}")
}

/// One `langbench run`, `ws` or `import` invocation: when, where, what
/// with. A line of `sessions.jsonl`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SessionRecord {
    /// The record format version ([`SCHEMA`] when written).
    pub schema: u32,
    /// The id: start time, pid and a random tag
    /// (`20261130T042441Z-14960-3fa9c2`, [`new_session_id`]; sessions
    /// before December 2026 have no tag), `…-ws` for ws sessions,
    /// `published-YEAR` for an import.
    pub session: String,
    /// When it started: RFC 3339, UTC.
    pub started_at: String,
    /// The langbench version that wrote it.
    pub langbench_version: String,
    /// The exact command (argv).
    pub command_line: Vec<String>,
    /// `tiny`, `2020`, `2021`, N, or `ws-echo c=CONNECTIONS`.
    pub size: String,
    /// Runs per cell (best of N); for an import, the N of the published
    /// best of N.
    pub runs: u32,
    /// The per-run timeout in seconds (ws: the measured window); 0 for an
    /// import.
    pub timeout_s: f64,
    /// The machine it ran on; for an import what the edition said (0 or
    /// empty where it said nothing).
    pub machine: Machine,
    /// Every selected variant as it was at the time.
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
    /// How its cells were ordered and the host followed (issue #39):
    /// measured in rounds (round 1 of every cell, then round 2, ...) in a
    /// shuffled order, with the reference set measured in every block.
    /// Absent: each cell's runs one after another, no references.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<Schedule>,
}

/// How a session measuring in rounds ordered its runs and followed the host.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Schedule {
    /// The seed of each round's shuffled order (round r uses `seed + r`),
    /// so the order can be told again.
    pub seed: u64,
    /// The reference variants measured at every block boundary (their
    /// runs are in `references.jsonl`), in the order they run.
    pub references: Vec<String>,
    /// A block's length in seconds of measuring: after about this long the
    /// reference set is measured again.
    pub block_s: f64,
}

/// A variant as it was at the time of a session.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct VariantInfo {
    /// The variant id of `languages.toml`.
    pub id: String,
    /// Its language.
    pub language: String,
    /// Its command flags.
    pub flags: String,
    /// The toolchain's version (empty if not installed or unknown).
    pub version: String,
    /// Whether every executable and file it needs was there.
    pub installed: bool,
    /// What it needs that was missing.
    #[serde(default)]
    pub missing: Vec<String>,
    /// How to install it (`languages.toml`'s `install`).
    #[serde(default)]
    pub install_hint: String,
    /// The benchmarks it has a program for (absent in older records).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub programs: Vec<Bench>,
    /// KB its toolchain caches (`caches`, for this toolchain version) held
    /// when the session started, as `du` counts; absent where it declares
    /// none, is not installed, and in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caches_kb: Option<u64>,
}

/// One cell's work figure (issue #62): the instructions its run executed,
/// counted by valgrind's cachegrind in the sandbox of a timed run
/// (`langbench work`), or why there is none. A line of `work.jsonl`, a
/// file of its own beside `runs.jsonl` (optional: a results directory
/// without it has no work figures). Instructions, not time: portable
/// across x86-64 machines, blind to caches, memory, branch prediction and
/// SIMD width; never part of the time ranking.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct WorkRecord {
    /// The record format version ([`SCHEMA`] when written).
    pub schema: u32,
    /// When the count finished (RFC 3339, UTC).
    pub finished_at: String,
    pub variant: String,
    pub language: String,
    /// The toolchain's version.
    pub version: String,
    pub bench: Bench,
    /// The size counted at (`Size::label`: a work count's default is
    /// 100000, far below an edition's) and its N.
    pub size: String,
    pub n: u64,
    /// Instructions executed by the run's whole process tree (every
    /// process it execs; its build steps are not counted); none without a
    /// count (`reason`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<u64>,
    /// The processes counted (valgrind instances: one per exec).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub processes: Option<u32>,
    /// Why there is no count ("—" in the tables): valgrind cannot follow
    /// it, it timed out under the counter, forked without exec, its output
    /// was wrong, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The counted run's status (its output checked as a timed run's).
    pub status: Status,
    /// Wall seconds of the counted run (under valgrind: 20-100 times a
    /// timed run's).
    pub wall_s: f64,
    /// The counter and its version (`valgrind-3.19.0 cachegrind
    /// --cache-sim=no --trace-children=yes`): counts differ between
    /// versions.
    pub counter: String,
    /// The CPU model (`/proc/cpuinfo`'s model name).
    pub cpu: String,
    /// The host's CPU features glibc dispatches on (`cachegrind::DISPATCHED`
    /// that `/proc/cpuinfo` lists): counts differ where these do.
    pub cpu_features: Vec<String>,
    /// What the run ran (as a run record's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<Identity>,
}

/// langbench's version as records store it: the crate's version, with the
/// git revision it was built from when built from a checkout
/// (`0.1.0 (1f30ee3a9c2d)`).
pub(crate) fn langbench_version() -> String {
    let version = env!("CARGO_PKG_VERSION");
    match env!("LANGBENCH_GIT_REV") {
        "" => version.to_string(),
        rev => format!("{version} ({rev})"),
    }
}

/// Now, as stored in records.
pub(crate) fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names are the results format's (`results/README.md`), derived
    /// from serde: records, CSV and tables say the same.
    #[test]
    fn status_names_are_the_stored_ones() {
        let names: Vec<&str> = Status::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(
            names,
            [
                "ok",
                "bad-exit",
                "wrong-output",
                "escaped",
                "failed",
                "crashed",
                "oom",
                "timeout",
                "did-not-finish",
                "skipped",
                "not-installed"
            ]
        );
        for s in Status::ALL {
            let json = format!("\"{}\"", s.name());
            assert_eq!(serde_json::to_string(&s).unwrap(), json);
            assert_eq!(serde_json::from_str::<Status>(&json).unwrap(), s);
            assert_eq!(s.to_string(), s.name());
        }
        assert!(Status::ALL.is_sorted(), "ALL is in the order cells rank by");
    }

    /// A run's memory probe (issue #60) round-trips through its JSON
    /// line; a record written before it reads without one, and a record
    /// without one is written without the field.
    #[test]
    fn a_runs_memory_probe_round_trips() {
        let probe = MemProbe {
            mib: 512,
            touch_s: 0.21,
            free_s: 0.03,
            minor_faults: 131_072,
        };
        let rec = RunRecord {
            probe: Some(probe),
            ..crate::testing::run("c", Bench::Assoc).record()
        };
        let line = serde_json::to_string(&rec).unwrap();
        assert!(
            line.contains(r#""probe":{"mib":512,"touch_s":0.21"#),
            "{line}"
        );
        assert_eq!(serde_json::from_str::<RunRecord>(&line).unwrap(), rec);
        let older = serde_json::to_string(&RunRecord { probe: None, ..rec }).unwrap();
        assert!(!older.contains("probe"), "{older}");
        assert_eq!(
            serde_json::from_str::<RunRecord>(&older).unwrap().probe,
            None
        );
    }
}
