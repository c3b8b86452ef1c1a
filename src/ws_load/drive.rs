//! Where the client and the server run, and the phases every mode shares
//! (`ws`, `ws --target`, `ws-client`): warm-up, measured window, sampling
//! of the server's process tree, and the client-bound rule.

use std::time::{Duration, Instant, SystemTime};

use hdrhistogram::Histogram;

use super::client::{Client, ClientOptions};
use crate::ws_options::Options;
use crate::ws_record::ClientLoad;
use crate::ws_record::{Phase, WsStatus};
use crate::ws_sample;

/// CPUs this process may use.
pub fn own_cpus() -> Vec<usize> {
    affinity(0).unwrap_or_else(|| {
        (0..std::thread::available_parallelism().map_or(1, |n| n.get())).collect()
    })
}

/// The CPUs `pid` may run on (0: this process).
pub(crate) fn affinity(pid: i32) -> Option<Vec<usize>> {
    // SAFETY: sched_getaffinity fills the set we own.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(pid, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return None;
        }
        Some(
            (0..libc::CPU_SETSIZE as usize)
                .filter(|&c| libc::CPU_ISSET(c, &set))
                .collect(),
        )
    }
}

/// (server CPUs, client CPUs): the client gets `client` CPUs (default
/// half, at least one) at the end, the server the rest. One CPU: shared.
pub(crate) fn split_cpus(client: Option<usize>) -> (Vec<usize>, Vec<usize>) {
    let cpus = own_cpus();
    let n = cpus.len();
    if n < 2 {
        return (cpus.clone(), cpus);
    }
    let k = client.unwrap_or(n / 2).clamp(1, n - 1);
    (cpus[..n - k].to_vec(), cpus[n - k..].to_vec())
}

/// `CLIENT-BOUND`: the client saturated while the server still had CPU to
/// spare: what it used plus what it waited for on a run queue (CPU it
/// wanted but other processes had) stays under 90% of the CPUs it may use.
/// A saturated client against a server that used (or wanted) its CPUs is
/// not client-bound: both were at their limit and the server's figure
/// stands. Unknown server CPU: never client-bound (the phase still says the
/// client saturated).
pub fn client_bound(
    load: Option<&ClientLoad>,
    server_cores: Option<f64>,
    server_waiting_cores: Option<f64>,
    server_cpus: usize,
) -> bool {
    load.is_some_and(|l| l.saturated)
        && server_cpus > 0
        && server_cores.is_some_and(|used| {
            used + server_waiting_cores.unwrap_or(0.0) < 0.9 * server_cpus as f64
        })
}

/// The client's options for `opts` on `cpus` (empty: unpinned, one thread
/// per CPU of this machine).
pub(crate) fn client_options(opts: &Options, cpus: &[usize]) -> ClientOptions {
    ClientOptions {
        connections: opts.connections,
        max_handshakes: opts.max_handshakes,
        echo_timeout: opts.echo_timeout,
        cpus: cpus.to_vec(),
        threads: own_cpus().len(),
        first_delay: opts.delays.first().copied().unwrap_or_default(),
        spin: opts.client_spin,
        open_timeout: opts.startup_timeout,
    }
}

/// The server as the phases see it.
pub(crate) trait Server {
    /// Root of the process tree to sample (`None`: not visible here).
    fn pid(&self) -> Option<i32>;
    fn died(&mut self) -> bool;
}

/// A server given by `--server-pid` (or none).
pub(crate) struct Pid(pub Option<i32>);

impl Server for Pid {
    fn pid(&self) -> Option<i32> {
        self.0
    }
    fn died(&mut self) -> bool {
        self.0
            .is_some_and(|p| !std::path::Path::new(&format!("/proc/{p}")).exists())
    }
}

/// One phase with the histograms behind it (for merging across hosts).
pub(crate) struct PhaseResult {
    pub phase: Phase,
    pub latency: Histogram<u64>,
    pub late: Histogram<u64>,
    pub client_cpu_s: f64,
    pub server_cpu_s: Option<f64>,
}

fn skipped(delay_ms: f64) -> Phase {
    Phase {
        delay_ms,
        status: WsStatus::Skipped,
        window_s: 0.0,
        stats: None,
        server_rss_peak_kb: None,
        server_rss_avg_kb: None,
        server_cores: None,
        client_cores: None,
        client_bound: false,
        detail: None,
        client: None,
        server_waiting_cores: None,
    }
}

fn crashed(delay_ms: f64, why: &str) -> PhaseResult {
    PhaseResult {
        phase: Phase {
            status: WsStatus::Crashed,
            detail: Some(why.into()),
            ..skipped(delay_ms)
        },
        latency: Histogram::new(3).expect("histogram"),
        late: Histogram::new(3).expect("histogram"),
        client_cpu_s: 0.0,
        server_cpu_s: None,
    }
}

/// How a wait ended.
#[derive(PartialEq)]
enum Waited {
    Due,
    Died,
    /// Ctrl-C or SIGTERM.
    Interrupted,
}

/// Sleeps until `until` (wall clock), checking the server and for an
/// interrupt every 50 ms.
fn wait_until(until: SystemTime, server: &mut dyn Server) -> Waited {
    loop {
        if server.died() {
            return Waited::Died;
        }
        if crate::signals::interrupted() {
            return Waited::Interrupted;
        }
        let Ok(left) = until.duration_since(SystemTime::now()) else {
            return Waited::Due;
        };
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
}

/// A phase cut short by Ctrl-C or SIGTERM: skipped, and said so.
fn interrupted(delay_ms: f64) -> PhaseResult {
    PhaseResult {
        phase: Phase {
            detail: Some("interrupted".into()),
            ..skipped(delay_ms)
        },
        ..crashed(delay_ms, "")
    }
}

/// Runs every phase of `opts` with the open `client`. With `start`, phase i
/// begins at `start + i·(warm-up + duration)` on the wall clock, so clients
/// on several hosts measure the same windows.
pub(crate) fn phases(
    client: &mut Client,
    opts: &Options,
    start: Option<SystemTime>,
    server: &mut dyn Server,
    server_cpus: usize,
    status: &dyn Fn(String),
    done: &dyn Fn(&Phase),
) -> Vec<PhaseResult> {
    let mut out: Vec<PhaseResult> = Vec::new();
    let begin = start.unwrap_or_else(SystemTime::now);
    let step = opts.warmup + opts.duration;
    let mut dead = false;
    for (i, delay) in opts.delays.iter().enumerate() {
        let delay_ms = delay.as_secs_f64() * 1000.0;
        if dead || crate::signals::interrupted() {
            out.push(PhaseResult {
                phase: skipped(delay_ms),
                ..crashed(delay_ms, "")
            });
            continue;
        }
        let phase_start = begin + step * i as u32;
        status(format!(
            "phase {}/{} (delay {delay_ms} ms) · warm-up",
            i + 1,
            opts.delays.len()
        ));
        match wait_until(phase_start, server) {
            Waited::Due => {}
            Waited::Interrupted => {
                out.push(interrupted(delay_ms));
                continue;
            }
            Waited::Died => {
                dead = true;
                out.push(crashed(delay_ms, "the server died before the phase"));
                continue;
            }
        }
        client.set_delay(*delay);
        match wait_until(phase_start + opts.warmup, server) {
            Waited::Due => {}
            Waited::Interrupted => {
                out.push(interrupted(delay_ms));
                continue;
            }
            Waited::Died => {
                dead = true;
                out.push(crashed(delay_ms, "the server died during the warm-up"));
                continue;
            }
        }
        status(format!("delay {delay_ms} ms · measuring"));
        let r = window(client, opts, server, server_cpus, delay_ms);
        dead = r.phase.status == WsStatus::Crashed;
        done(&r.phase);
        out.push(r);
    }
    out
}

fn window(
    client: &mut Client,
    opts: &Options,
    server: &mut dyn Server,
    server_cpus: usize,
    delay_ms: f64,
) -> PhaseResult {
    let pid = server.pid();
    let s0 = pid.map(ws_sample::sample_tree);
    let t0 = Instant::now();
    client.start_window();
    let (mut peak, mut sum, mut count) = (s0.map_or(0, |s| s.rss_kb), 0u64, 0u64);
    let mut last = s0;
    while t0.elapsed() < opts.duration {
        std::thread::sleep(
            Duration::from_millis(100).min(opts.duration.saturating_sub(t0.elapsed())),
        );
        if server.died() {
            client.end_window();
            return crashed(delay_ms, "the server died during the measured window");
        }
        if crate::signals::interrupted() {
            client.end_window();
            return interrupted(delay_ms);
        }
        if let Some(p) = pid {
            let s = ws_sample::sample_tree(p);
            peak = peak.max(s.rss_kb);
            sum += s.rss_kb;
            count += 1;
            last = Some(s);
        }
    }
    let w = client.end_window();
    let window = t0.elapsed().as_secs_f64();
    let server_cpu_s = s0.zip(last).map(|(a, b)| (b.cpu_s - a.cpu_s).max(0.0));
    let server_cores = server_cpu_s.map(|c| c / window);
    let server_waiting_cores = s0
        .zip(last)
        .map(|(a, b)| (b.runq_wait_s - a.runq_wait_s).max(0.0) / window);
    let status = if w.stats.error_count() > 0 {
        WsStatus::Errors
    } else {
        WsStatus::Ok
    };
    let phase = Phase {
        delay_ms,
        status,
        window_s: window,
        server_rss_peak_kb: pid.map(|_| peak),
        server_rss_avg_kb: pid.map(|_| sum.checked_div(count).unwrap_or(peak)),
        server_cores,
        client_cores: Some(w.client_cpu_s / window),
        client_bound: client_bound(
            Some(&w.load),
            server_cores,
            server_waiting_cores,
            server_cpus,
        ),
        detail: (!w.stats.error_samples.is_empty()).then(|| w.stats.error_samples.join("; ")),
        stats: Some(w.stats),
        client: Some(w.load),
        server_waiting_cores,
    };
    PhaseResult {
        phase,
        latency: w.latency,
        late: w.late,
        client_cpu_s: w.client_cpu_s,
        server_cpu_s,
    }
}
