//! Fake records for unit tests: one builder for measured runs, and plain
//! constructors for sessions, variants and ws records. Every default is
//! fixed (times, machine, versions), so what a test renders is the same on
//! every machine and every day, and a test writes only what differs.

use serde_json::json;

use crate::bench::Bench;
use crate::machine::Machine;
use crate::record::{Origin, RunRecord, SCHEMA, SessionRecord, Status, VariantInfo};
use crate::ws_record::WsRecord;
use langbench_spawn::Exit;

/// The session every fake record belongs to unless told otherwise.
pub(crate) const SESSION: &str = "s1";
/// The time every fake record was written.
pub(crate) const AT: &str = "2026-01-01T00:00:00Z";

/// A fixed machine (not this one: snapshots must not depend on it).
pub(crate) fn machine() -> Machine {
    Machine {
        cpu_model: "Test CPU @ 3.00GHz".into(),
        cpu_id: String::new(),
        cpus: 4,
        usable_cpus: 4,
        memory_kb: 16 * 1024 * 1024,
        os: "Debian GNU/Linux 13 (trixie)".into(),
        kernel: "6.12.0".into(),
        arch: "x86_64".into(),
        hostname: "bench-1".into(),
        boot_id: String::new(),
        virtualization: String::new(),
    }
}

/// A session record on [`machine`] with nothing else set; override fields
/// with struct update syntax (`SessionRecord { runs: 3, ..session("s2") }`).
pub(crate) fn session(id: &str) -> SessionRecord {
    SessionRecord {
        schema: SCHEMA,
        session: id.into(),
        started_at: AT.into(),
        langbench_version: "0.1.0".into(),
        command_line: vec!["langbench".into(), "run".into()],
        size: "tiny".into(),
        runs: 3,
        timeout_s: 1000.0,
        machine: machine(),
        ..Default::default()
    }
}

/// A variant as a session saw it: installed, with programs for `programs`.
pub(crate) fn variant(id: &str, programs: &[Bench]) -> VariantInfo {
    VariantInfo {
        id: id.into(),
        language: capitalized(id),
        flags: id.into(),
        version: "1.0".into(),
        installed: true,
        programs: programs.to_vec(),
        ..Default::default()
    }
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// Builds a [`RunRecord`]: `run("c", Bench::Assoc).nth(2).wall(1.5).into()`.
/// Defaults: session [`SESSION`], language = the id capitalized, flags = the
/// id, version 1.0, size `tiny` (N = 1,000), run 1, 1 s, 1,000 KB, `ok`.
#[derive(Debug, Clone)]
pub(crate) struct Run(RunRecord);

/// A correct first run of `variant` on `bench` (see [`Run`]).
pub(crate) fn run(variant: &str, bench: Bench) -> Run {
    Run(RunRecord {
        schema: SCHEMA,
        session: SESSION.into(),
        finished_at: AT.into(),
        variant: variant.into(),
        language: capitalized(variant),
        flags: variant.into(),
        version: "1.0".into(),
        bench,
        size: "tiny".into(),
        n: 1000,
        attempt: 1,
        wall_s: 1.0,
        user_s: 1.0,
        sys_s: 0.0,
        max_rss_kb: 1000,
        tree_cpu_s: None,
        tree_max_rss_kb: None,
        build_wall_s: None,
        exit: Some(Exit::Exited(0)),
        status: Status::Ok,
        detail: None,
        origin: Origin::Measured,
        identity: None,
        cache: None,
        continues: None,
        block: None,
        host: None,
        probe: None,
        remembered: None,
        seal: None,
    })
}

impl Run {
    /// The run number within its cell (0: a cell-level record).
    pub(crate) fn nth(mut self, run: u32) -> Self {
        self.0.attempt = run;
        self
    }
    /// Wall time (and user time: a single-threaded program).
    pub(crate) fn wall(mut self, s: f64) -> Self {
        self.0.wall_s = s;
        self.0.user_s = s;
        self
    }
    pub(crate) fn rss(mut self, kb: u64) -> Self {
        self.0.max_rss_kb = kb;
        self
    }
    /// The status, with the exit such a run has (a crash a signal, a
    /// failure exit 1, nothing for a run that never ran) and a detail
    /// for any status but ok.
    pub(crate) fn status(mut self, status: Status) -> Self {
        self.0.status = status;
        self.0.exit = match status {
            Status::Ok | Status::WrongOutput | Status::Escaped => Some(Exit::Exited(0)),
            Status::BadExit | Status::Failed => Some(Exit::Exited(1)),
            Status::Crashed => Some(Exit::Signaled(libc::SIGSEGV)),
            Status::Oom | Status::Timeout => Some(Exit::Signaled(libc::SIGKILL)),
            Status::DidNotFinish | Status::Skipped | Status::NotInstalled => None,
        };
        self.0.detail = (status != Status::Ok).then(|| format!("{status}: why"));
        self
    }
    pub(crate) fn exit(mut self, exit: Option<Exit>) -> Self {
        self.0.exit = exit;
        self
    }
    pub(crate) fn detail(mut self, detail: &str) -> Self {
        self.0.detail = Some(detail.into());
        self
    }
    pub(crate) fn session(mut self, session: &str) -> Self {
        self.0.session = session.into();
        self
    }
    pub(crate) fn names(mut self, language: &str, flags: &str, version: &str) -> Self {
        self.0.language = language.into();
        self.0.flags = flags.into();
        self.0.version = version.into();
        self
    }
    /// The size selection and the N it means for this benchmark.
    pub(crate) fn size(mut self, size: &str, n: u64) -> Self {
        self.0.size = size.into();
        self.0.n = n;
        self
    }
    /// The whole process tree's CPU seconds and peak KB.
    pub(crate) fn tree(mut self, cpu_s: f64, rss_kb: u64) -> Self {
        self.0.tree_cpu_s = Some(cpu_s);
        self.0.tree_max_rss_kb = Some(rss_kb);
        self
    }
    pub(crate) fn build_wall(mut self, s: f64) -> Self {
        self.0.build_wall_s = Some(s);
        self
    }
    /// How its toolchain caches started (`cold`: empty, `warm`: filled by
    /// the variant's earlier runs).
    pub(crate) fn cache(mut self, cache: crate::record::CacheStart) -> Self {
        self.0.cache = Some(cache);
        self
    }
    /// A published edition's figure: no user/sys time, no exit.
    pub(crate) fn published(mut self) -> Self {
        self.0.origin = Origin::Published;
        self.0.user_s = 0.0;
        self.0.exit = None;
        self
    }
    /// The record.
    pub(crate) fn record(self) -> RunRecord {
        self.0
    }
    /// The record as this machine stores what it measured ([`sealed`]).
    pub(crate) fn sealed(self) -> RunRecord {
        sealed(self.0)
    }
}

/// `r` as this machine stores what it measured: with an identity (a fixed
/// one where it has none) and sealed with [`key`], so `--resume` trusts
/// it.
pub(crate) fn sealed(mut r: RunRecord) -> RunRecord {
    r.identity.get_or_insert_with(|| crate::record::Identity {
        digest: "0123456789abcdef".into(),
        program: "0".repeat(64),
        commands: vec!["run: sh a.sh 1000".into()],
        toolchain: "1.0".into(),
        langbench: "0.1.0".into(),
    });
    key().sealed(r)
}

/// The seal key of the unit tests: this machine's, as far as they know.
pub(crate) fn key() -> crate::seal::Key {
    crate::seal::Key::fixed([7; 32])
}

/// A built run as the records share it ([`crate::store::Stored::runs`]).
impl From<Run> for std::sync::Arc<RunRecord> {
    fn from(r: Run) -> std::sync::Arc<RunRecord> {
        std::sync::Arc::new(r.0)
    }
}

/// Runs as the records share them ([`crate::store::Stored::runs`]).
pub(crate) fn shared(runs: impl IntoIterator<Item = RunRecord>) -> Vec<std::sync::Arc<RunRecord>> {
    runs.into_iter().map(std::sync::Arc::new).collect()
}

impl From<Run> for RunRecord {
    fn from(r: Run) -> RunRecord {
        r.0
    }
}

/// A measured ws-echo record of one server: 10,000 connections, two
/// phases (1000 ms, and 100 ms where the client saturated), server on CPU
/// 0 and client on CPU 1. Built from JSON so that fields added later with
/// a default do not need touching here.
pub(crate) fn ws(variant: &str) -> WsRecord {
    let phase = |delay: f64, echoes: u64, late: f64, saturated: bool| {
        json!({
            "delay_ms": delay, "status": "ok", "window_s": 10.0,
            "stats": {
                "echoes": echoes, "rps": echoes as f64 / 10.0, "latency_mean_ms": 0.8,
                "latency_p50_ms": 0.5, "latency_p99_ms": 4.0, "latency_max_ms": 8.5,
                "errors": 0, "error_samples": [], "alive": 10000
            },
            "server_rss_peak_kb": 33000, "server_rss_avg_kb": 32000,
            "server_cores": 0.4, "client_cores": 0.2, "client_bound": saturated,
            "detail": null,
            "client": {
                "threads": 1, "busiest_thread": if saturated { 0.95 } else { 0.2 },
                "send_late_p50_ms": late, "send_late_p99_ms": late * 10.0,
                "cpu_us_per_echo": 10.5, "echoes_per_conn_min": 18,
                "echoes_per_conn_max": 20, "pings": 0, "runq_wait": 0.0,
                "saturated": saturated
            },
            "server_waiting_cores": 0.0
        })
    };
    serde_json::from_value(json!({
        "schema": SCHEMA, "session": format!("{SESSION}-ws"), "finished_at": AT,
        "variant": variant, "language": "Go", "library": "nbio 1.6.8", "version": "1.26.8",
        "connections": 10000, "opened": 10000, "handshake_failures": 0, "warmup_s": 2.0,
        "pinned": true, "status": "ok", "detail": null,
        "phases": [phase(1000.0, 200_000, 0.9, false), phase(100.0, 300_000, 24.0, true)],
        "server_exit": {"kind": "exited", "code": 0}, "server_max_rss_kb": 44548,
        "server_user_s": 6.75, "server_sys_s": 17.5, "clean_shutdown": true,
        "placement": {
            "server_cpus": [0], "client_cpus": [1], "client_threads": 1,
            "client_hosts": 1, "server_started": true, "server_pid": 4242
        },
        "server_rss_idle_kb": 7688
    }))
    .expect("the fake ws record matches WsRecord")
}
