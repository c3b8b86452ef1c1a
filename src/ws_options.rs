//! What `langbench ws` (and `run`'s ws-echo, `ws-client`, `ws --target`)
//! was asked: connections, the delay phases, the windows, the placement,
//! where the records go.

use std::time::Duration;

#[derive(Debug, Clone)]
pub struct Options {
    pub connections: usize,
    pub delays: Vec<Duration>,
    pub warmup: Duration,
    pub duration: Duration,
    pub max_handshakes: usize,
    pub startup_timeout: Duration,
    pub prepare_timeout: Duration,
    /// Client on its own CPUs, server on the rest (default; `false`:
    /// both share every CPU).
    pub pin: bool,
    /// CPUs for the client when pinned (default: half, at least one).
    pub client_cpus: Option<usize>,
    /// How long a connection waits for an echo before counting it lost.
    pub echo_timeout: Duration,
    /// Test hook: the client busy-waits this long per echo (saturates it
    /// on purpose); zero otherwise.
    #[doc(hidden)]
    pub client_spin: Duration,
    pub out: std::path::PathBuf,
    pub command_line: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            connections: 10_000,
            delays: [1000, 100, 10, 1]
                .into_iter()
                .map(Duration::from_millis)
                .collect(),
            warmup: Duration::from_secs(2),
            duration: Duration::from_secs(10),
            max_handshakes: 256,
            startup_timeout: Duration::from_secs(120),
            prepare_timeout: Duration::from_secs(1000),
            pin: true,
            client_cpus: None,
            echo_timeout: Duration::from_secs(10),
            client_spin: Duration::ZERO,
            out: std::path::PathBuf::from("results"),
            command_line: Vec::new(),
        }
    }
}
