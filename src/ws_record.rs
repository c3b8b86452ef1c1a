//! What `ws.jsonl` stores: one record per server (a `WsRecord`), with one
//! `Phase` per delay. Like `crate::record` for the CPU runs, these types
//! are the results format's contract (`results/README.md` describes the
//! same fields): every field is documented, and a field's serialized name
//! and meaning never change within a schema version.
#![warn(missing_docs)]

use serde::{Deserialize, Serialize};

use crate::record::Origin;
use langbench_spawn::Exit;

/// The file of a results directory that holds these records.
pub const WS_RECORDS: &str = "ws.jsonl";

/// How a server run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WsStatus {
    /// Every phase ran, without an error.
    Ok,
    /// Some echoes were wrong, lost, or connections failed.
    Errors,
    /// The server died while being measured.
    Crashed,
    /// It never accepted connections within the startup timeout.
    NeverListened,
    /// It could not be prepared or started.
    Failed,
    /// The toolchain's executables are not on PATH.
    NotInstalled,
    /// The phase was not run (the server had died, or Ctrl-C).
    Skipped,
}

impl WsStatus {
    /// The name stored in records and shown in tables (`never-listened`):
    /// the serde name, so the two cannot drift apart.
    pub(crate) fn name(self) -> &'static str {
        serde_variant::to_variant_name(&self).expect("WsStatus is a unit enum")
    }
}

/// One delay phase of one server.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Phase {
    /// How long each connection waits after an echo before it sends its
    /// next message, in ms (`--delays`): the load this phase puts on the
    /// server.
    pub delay_ms: f64,
    /// How the phase went: `ok`, `errors`, `crashed` (the server died
    /// before or during it), `skipped` (not run).
    pub status: WsStatus,
    /// Length of the measured window in seconds (0 when it did not run; for
    /// an import, the published elapsed time or 0).
    pub window_s: f64,
    /// What the client saw in the window (`None`: it did not run).
    pub stats: Option<WindowStats>,
    /// Peak RSS of the server's process tree in the window (`None`: not
    /// published, or the phase did not run).
    #[serde(default)]
    pub server_rss_peak_kb: Option<u64>,
    /// Mean RSS of the server's process tree over the window's samples
    /// (every 100 ms), KB (`None`: not published, not visible from here,
    /// or the phase did not run).
    #[serde(default)]
    pub server_rss_avg_kb: Option<u64>,
    /// Server CPU seconds per second of the window.
    #[serde(default)]
    pub server_cores: Option<f64>,
    /// Client CPU seconds per second of the window (`None`: not
    /// published, or the phase did not run).
    #[serde(default)]
    pub client_cores: Option<f64>,
    /// The client's CPUs were saturated: rps is the client's limit, not
    /// necessarily the server's.
    pub client_bound: bool,
    /// The window's error samples, or why the phase crashed.
    pub detail: Option<String>,
    /// How hard the client worked (absent in records before the mio
    /// client): `saturated` marks the latencies as client-limited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientLoad>,
    /// Server threads' run-queue wait per second of the window: CPU the
    /// server wanted but did not get (other processes on its CPUs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_waiting_cores: Option<f64>,
}

/// One server's run through all phases. A line of `ws.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct WsRecord {
    /// The record format version (`crate::record::SCHEMA` when written).
    pub schema: u32,
    /// The id of the session it belongs to (`…-ws`; `…-ws-target` for a
    /// server langbench did not start; `published-EDITION` for an import).
    pub session: String,
    /// When the run ended (when it was recorded, for an import): RFC 3339,
    /// UTC.
    pub finished_at: String,
    /// The variant id of `languages.toml` (the target's name for
    /// `--target`; for an import, an id made from the published row).
    pub variant: String,
    /// The language, as shown in the table (for an import, the published
    /// server name).
    pub language: String,
    /// The WebSocket library (`built-in`: the variant names none; `-`:
    /// unknown, for `--target`).
    pub library: String,
    /// The toolchain's version at the time (`-`: unknown, for `--target`).
    pub version: String,
    /// Connections the client opens (`--connections`; summed over the
    /// client hosts for `--target`).
    pub connections: usize,
    /// Connections whose handshake succeeded.
    pub opened: usize,
    /// Handshakes that failed.
    pub handshake_failures: u64,
    /// Warm-up before each phase's measured window, in seconds (0 for an
    /// import: not published).
    pub warmup_s: f64,
    /// The client ran on CPUs of its own, the server on the rest (false:
    /// `--share-cpus`, or an import).
    pub pinned: bool,
    /// How the run ended: `ok`, `errors`, `crashed`, `never-listened`,
    /// `failed`, `not-installed`.
    pub status: WsStatus,
    /// What went wrong, in a sentence (for `--target`: where the server
    /// ran and which hosts measured it).
    pub detail: Option<String>,
    /// One per delay, in the order they ran.
    pub phases: Vec<Phase>,
    /// The server's own accounting at exit (wait4).
    pub server_exit: Option<Exit>,
    /// The server's peak RSS at exit (`ru_maxrss`), KB (`None`: it did not
    /// run its phases, or langbench did not start it).
    pub server_max_rss_kb: Option<u64>,
    /// The server's user CPU seconds at exit (wait4; `None` as above).
    pub server_user_s: Option<f64>,
    /// The server's system CPU seconds at exit (wait4; `None` as above).
    pub server_sys_s: Option<f64>,
    /// It exited by itself after SIGTERM (rather than needing SIGKILL).
    /// `None`: it had died before it was stopped, never got to its phases,
    /// or langbench did not start it.
    pub clean_shutdown: Option<bool>,
    /// Measured here, or imported from a published edition (absent: measured).
    #[serde(default, skip_serializing_if = "Origin::is_measured")]
    pub origin: Origin,
    /// Where the client and the server ran (absent in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<Placement>,
    /// The server's RSS with no connection open (for KB per connection).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_rss_idle_kb: Option<u64>,
}

/// What one measured window saw.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct WindowStats {
    /// Echoes received in the window (every connection, both messages).
    pub echoes: u64,
    /// Echoes per second of the window.
    pub rps: f64,
    /// Mean latency, send to echo (ms).
    pub latency_mean_ms: f64,
    /// Median latency (ms); `None` where a published edition did not give
    /// it.
    #[serde(default)]
    pub latency_p50_ms: Option<f64>,
    /// 99th percentile of latency (ms); `None` as above.
    #[serde(default)]
    pub latency_p99_ms: Option<f64>,
    /// The slowest echo (ms).
    pub latency_max_ms: f64,
    /// Wrong, lost or late echoes and failed connections (`None`: not
    /// published).
    #[serde(default)]
    pub errors: Option<u64>,
    /// A few of the errors, in words.
    #[serde(default)]
    pub error_samples: Vec<String>,
    /// Connections still open at the window's end (`None`: not published).
    #[serde(default)]
    pub alive: Option<usize>,
}

impl WindowStats {
    /// Errors seen (0 where not published).
    pub fn error_count(&self) -> u64 {
        self.errors.unwrap_or(0)
    }
}

/// How hard the client itself worked in a window: whether its latencies
/// describe the server or the client.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ClientLoad {
    /// Client threads (one per client core).
    pub threads: usize,
    /// The busiest thread's CPU time / window (1.0: never idle).
    pub busiest_thread: f64,
    /// Median of how late sends went out past their due time (ms).
    pub send_late_p50_ms: f64,
    /// 99th percentile of the same (ms).
    pub send_late_p99_ms: f64,
    /// Client CPU µs per echo (all threads).
    pub cpu_us_per_echo: Option<f64>,
    /// Echoes per connection in the window: the fewest (fairness) ...
    pub echoes_per_conn_min: u64,
    /// ... and the most.
    pub echoes_per_conn_max: u64,
    /// Pings answered (servers that check liveness).
    #[serde(default)]
    pub pings: u64,
    /// The most any client thread waited on a run queue / window: CPU it
    /// wanted while other processes had its core (a shared machine).
    #[serde(default)]
    pub runq_wait: f64,
    /// The client could not keep up: its latency figures are client-limited.
    pub saturated: bool,
}

/// Where the client and the server ran: the split is part of the result.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Placement {
    /// CPUs the server could use (its affinity; empty: unknown).
    pub server_cpus: Vec<usize>,
    /// CPUs of the client's threads (one thread per CPU; empty: unpinned,
    /// sharing the server's CPUs).
    pub client_cpus: Vec<usize>,
    /// Client threads (one per client CPU when pinned).
    pub client_threads: usize,
    /// Client processes whose results were merged (1: this machine only).
    pub client_hosts: usize,
    /// langbench started the server (false: `--target`).
    pub server_started: bool,
    /// The server's figures come from /proc of this pid (`None`: a server
    /// elsewhere without `--server-pid`: server columns are blank).
    pub server_pid: Option<i32>,
}

/// A published library name without its version: `nbio 1.3.16` → `nbio`.
pub(crate) fn library_name(library: &str) -> String {
    let words: Vec<&str> = library.split_whitespace().collect();
    match words.split_last() {
        Some((last, rest))
            if !rest.is_empty() && last.starts_with(|c: char| c.is_ascii_digit()) =>
        {
            rest.join(" ")
        }
        _ => library.trim().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_names_are_the_stored_names() {
        let all = [
            (WsStatus::Ok, "ok"),
            (WsStatus::Errors, "errors"),
            (WsStatus::Crashed, "crashed"),
            (WsStatus::NeverListened, "never-listened"),
            (WsStatus::Failed, "failed"),
            (WsStatus::NotInstalled, "not-installed"),
            (WsStatus::Skipped, "skipped"),
        ];
        for (status, name) in all {
            assert_eq!(status.name(), name);
            assert_eq!(
                serde_json::to_string(&status).unwrap(),
                format!("\"{name}\"")
            );
        }
    }
}
