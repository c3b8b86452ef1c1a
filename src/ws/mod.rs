//! The WebSocket echo benchmark: start each server through the spawner, wait
//! until it listens, drive it with langbench's own load client through the
//! delay phases while sampling its process tree, stop it, and store one
//! record per server.

pub mod client;
pub mod report;
pub mod sample;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::bench::Bench;
use crate::config::{Variant, Vars};
use crate::record::{Origin, SCHEMA, VariantInfo, now_rfc3339};
use crate::run::{
    SessionParams, begin_session, interrupted, prepare, progress_bar, say, stderr_tail,
};
use crate::spawn::{Exit, Running, Spawner};
use crate::store::Store;
use client::{Shared, WindowStats};

pub const WS_RECORDS: &str = "ws.jsonl";

#[derive(Debug, Clone)]
pub struct Options {
    pub connections: usize,
    pub delays: Vec<Duration>,
    pub warmup: Duration,
    pub duration: Duration,
    pub max_handshakes: usize,
    pub startup_timeout: Duration,
    pub prepare_timeout: Duration,
    pub pin: bool,
    /// How long a connection waits for an echo before counting it lost.
    pub echo_timeout: Duration,
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
            pin: false,
            echo_timeout: Duration::from_secs(10),
            out: std::path::PathBuf::from("results"),
            command_line: Vec::new(),
        }
    }
}

/// How a server run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WsStatus {
    Ok,
    /// Some echoes were wrong, lost, or connections failed.
    Errors,
    /// The server died while being measured.
    Crashed,
    /// It never accepted connections within the startup timeout.
    NeverListened,
    /// It could not be prepared or started.
    Failed,
    NotInstalled,
    /// The phase was not run (the server had died, or Ctrl-C).
    Skipped,
}

impl WsStatus {
    pub fn name(self) -> &'static str {
        match self {
            WsStatus::Ok => "ok",
            WsStatus::Errors => "errors",
            WsStatus::Crashed => "crashed",
            WsStatus::NeverListened => "never-listened",
            WsStatus::Failed => "failed",
            WsStatus::NotInstalled => "not-installed",
            WsStatus::Skipped => "skipped",
        }
    }
}

/// One delay phase of one server.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Phase {
    pub delay_ms: f64,
    pub status: WsStatus,
    pub window_s: f64,
    pub stats: Option<WindowStats>,
    /// Peak RSS of the server's process tree in the window (`None`: not
    /// published, or the phase did not run).
    #[serde(default)]
    pub server_rss_peak_kb: Option<u64>,
    #[serde(default)]
    pub server_rss_avg_kb: Option<u64>,
    /// Server CPU seconds per second of the window.
    #[serde(default)]
    pub server_cores: Option<f64>,
    #[serde(default)]
    pub client_cores: Option<f64>,
    /// The client's CPUs were saturated: rps is the client's limit, not
    /// necessarily the server's.
    pub client_bound: bool,
    pub detail: Option<String>,
}

/// One server's run through all phases.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct WsRecord {
    pub schema: u32,
    pub session: String,
    pub finished_at: String,
    pub variant: String,
    pub language: String,
    pub library: String,
    pub version: String,
    pub connections: usize,
    pub opened: usize,
    pub handshake_failures: u64,
    pub warmup_s: f64,
    pub pinned: bool,
    pub status: WsStatus,
    pub detail: Option<String>,
    pub phases: Vec<Phase>,
    /// The server's own accounting at exit (wait4).
    pub server_exit: Option<Exit>,
    pub server_max_rss_kb: Option<u64>,
    pub server_user_s: Option<f64>,
    pub server_sys_s: Option<f64>,
    /// It exited by itself after SIGTERM (rather than needing SIGKILL).
    pub clean_shutdown: Option<bool>,
    /// Measured here, or imported from a published edition (absent: measured).
    #[serde(default, skip_serializing_if = "Origin::is_measured")]
    pub origin: Origin,
}

/// Raises RLIMIT_NOFILE to its hard limit (inherited by servers started
/// afterwards). Returns the new soft limit.
pub fn raise_nofile() -> u64 {
    // SAFETY: getrlimit/setrlimit on a struct we own.
    unsafe {
        let mut r: libc::rlimit = std::mem::zeroed();
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut r);
        r.rlim_cur = r.rlim_max;
        libc::setrlimit(libc::RLIMIT_NOFILE, &r);
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut r);
        r.rlim_cur
    }
}

fn free_port() -> Result<u16> {
    let l = TcpListener::bind("127.0.0.1:0").context("cannot find a free port on 127.0.0.1")?;
    Ok(l.local_addr()?.port())
}

/// CPU placement for `--pin`: the server gets the first half of the CPUs,
/// the client the rest.
fn split_cpus() -> (Vec<usize>, Vec<usize>) {
    let n = std::thread::available_parallelism().map_or(1, |n| n.get());
    if n < 2 {
        return (vec![0], vec![0]);
    }
    let half = n / 2;
    ((0..half).collect(), (half..n).collect())
}

fn pin_self(cpus: &[usize]) {
    // SAFETY: sched_setaffinity on the calling thread with a set we own.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            libc::CPU_SET(c, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

/// Waits until the server accepts a TCP connection on `addr`.
fn wait_listening(server: &mut Running, addr: SocketAddr, timeout: Duration) -> Result<(), String> {
    let t = Instant::now();
    loop {
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return Ok(());
        }
        if server.has_exited() {
            return Err("the server exited before it listened".into());
        }
        if t.elapsed() > timeout {
            return Err(format!(
                "the server did not listen on {addr} within {:.0} s",
                timeout.as_secs_f64()
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

struct Ctx<'a> {
    spawner: &'a Spawner,
    opts: &'a Options,
    session: &'a str,
    rt: &'a tokio::runtime::Runtime,
    client_cpus: usize,
}

impl Ctx<'_> {
    fn record(
        &self,
        v: &Variant,
        info: &VariantInfo,
        status: WsStatus,
        detail: Option<String>,
    ) -> WsRecord {
        WsRecord {
            schema: SCHEMA,
            session: self.session.to_string(),
            finished_at: now_rfc3339(),
            variant: v.id.clone(),
            language: v.language.clone(),
            library: v.library.clone().unwrap_or_else(|| "built-in".into()),
            version: info.version.clone(),
            connections: self.opts.connections,
            opened: 0,
            handshake_failures: 0,
            warmup_s: self.opts.warmup.as_secs_f64(),
            pinned: self.opts.pin,
            status,
            detail,
            phases: Vec::new(),
            server_exit: None,
            server_max_rss_kb: None,
            server_user_s: None,
            server_sys_s: None,
            clean_shutdown: None,
            origin: Origin::Measured,
        }
    }

    /// One server: start, wait for it, run the phases, stop it.
    fn server(
        &self,
        v: &Variant,
        info: &VariantInfo,
        pb: &indicatif::ProgressBar,
    ) -> Result<WsRecord> {
        if !info.installed {
            return Ok(self.record(
                v,
                info,
                WsStatus::NotInstalled,
                Some(format!(
                    "missing {}; install: {}",
                    info.missing.join(", "),
                    info.install_hint
                )),
            ));
        }
        if !v.prepare.is_empty() {
            pb.set_message(format!("{} · prepare", v.id));
            if let Err(e) = prepare(self.spawner, v, Bench::WsEcho, self.opts.prepare_timeout) {
                return Ok(self.record(v, info, WsStatus::Failed, Some(e)));
            }
        }
        let build = tempfile::Builder::new().prefix("langbench-ws-").tempdir()?;
        let port = free_port()?;
        let vars = Vars {
            port: Some(port),
            ..v.vars(Bench::WsEcho, build.path())
                .context("no ws-echo program")?
        };
        let mut req = v.request(v.run.expand(&vars), &v.cwd(&vars));
        req.grace = Duration::from_secs(5);
        // Sandboxed like the CPU runs, but on the host's network: the load
        // client reaches it on 127.0.0.1.
        self.spawner.isolate(&mut req, build.path(), true);
        if self.opts.pin {
            req.cpus = Some(split_cpus().0);
        }
        pb.set_message(format!("{} · starting on port {port}", v.id));
        let mut server = match self.spawner.start(&req) {
            Ok(s) => s,
            Err(e) => return Ok(self.record(v, info, WsStatus::Failed, Some(format!("{e:#}")))),
        };
        let addr: SocketAddr = ([127, 0, 0, 1], port).into();
        if let Err(e) = wait_listening(&mut server, addr, self.opts.startup_timeout) {
            server.stop();
            let o = server.wait()?;
            let mut rec = self.record(
                v,
                info,
                WsStatus::NeverListened,
                Some(format!("{e} ({}); {}", o.exit, stderr_tail(&o))),
            );
            rec.server_exit = Some(o.exit);
            return Ok(rec);
        }

        let shared = Shared::new(self.opts.echo_timeout);
        shared.set_delay(self.opts.delays.first().copied().unwrap_or_default());
        pb.set_message(format!(
            "{} · opening {} connections",
            v.id, self.opts.connections
        ));
        let tasks = self.rt.block_on(client::open(
            addr,
            self.opts.connections,
            self.opts.max_handshakes,
            shared.clone(),
        ));
        let mut rec = self.record(v, info, WsStatus::Ok, None);
        rec.opened = shared.alive();
        rec.handshake_failures = shared.handshake_failures();

        let mut crashed = false;
        for (i, delay) in self.opts.delays.iter().enumerate() {
            let delay_ms = delay.as_secs_f64() * 1000.0;
            if crashed || interrupted() {
                rec.phases.push(skipped(delay_ms));
                continue;
            }
            pb.set_message(format!(
                "{} · phase {}/{} (delay {delay_ms} ms) · warm-up",
                v.id,
                i + 1,
                self.opts.delays.len()
            ));
            let phase = self.phase(&mut server, &shared, *delay, pb, &v.id);
            crashed = phase.status == WsStatus::Crashed;
            say(pb, report::phase_line(&v.id, &phase));
            rec.phases.push(phase);
        }
        shared.stop();
        // Let connections finish their current loop and close politely.
        self.rt.block_on(async {
            let _ = tokio::time::timeout(Duration::from_secs(5), async {
                for t in &tasks {
                    while !t.is_finished() {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                }
            })
            .await;
            for t in &tasks {
                t.abort();
            }
        });
        drop(tasks);

        let already_dead = server.has_exited();
        server.stop();
        let o = server.wait()?;
        rec.server_exit = Some(o.exit);
        rec.server_max_rss_kb = Some(o.max_rss_kb);
        rec.server_user_s = Some(o.user.as_secs_f64());
        rec.server_sys_s = Some(o.sys.as_secs_f64());
        if !already_dead {
            // SIGTERM handled (exit 0) or default action (killed by SIGTERM)
            // is clean; needing SIGKILL is not.
            rec.clean_shutdown = Some(o.exit != Exit::Signaled(libc::SIGKILL));
        }
        let errors: u64 = rec
            .phases
            .iter()
            .filter_map(|p| p.stats.as_ref())
            .map(|s| s.error_count())
            .sum();
        if crashed || already_dead {
            rec.status = WsStatus::Crashed;
            rec.detail = Some(format!("server died: {}; {}", o.exit, stderr_tail(&o)));
        } else if errors > 0 || rec.handshake_failures > 0 {
            rec.status = WsStatus::Errors;
            let samples: Vec<String> = rec
                .phases
                .iter()
                .filter_map(|p| p.stats.as_ref())
                .flat_map(|s| s.error_samples.iter().cloned())
                .take(3)
                .collect();
            rec.detail = Some(format!(
                "{errors} echo errors, {} failed handshakes: {}",
                rec.handshake_failures,
                samples.join("; ")
            ));
        }
        Ok(rec)
    }

    /// Warm-up, then the measured window, sampling the server every 100 ms.
    fn phase(
        &self,
        server: &mut Running,
        shared: &Arc<Shared>,
        delay: Duration,
        pb: &indicatif::ProgressBar,
        id: &str,
    ) -> Phase {
        let delay_ms = delay.as_secs_f64() * 1000.0;
        shared.set_delay(delay);
        let root = server.pid();
        let died = |server: &mut Running| server.has_exited();
        let warm_end = Instant::now() + self.opts.warmup;
        while Instant::now() < warm_end {
            if died(server) {
                return crashed(delay_ms, "the server died during the warm-up");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        pb.set_message(format!("{id} · delay {delay_ms} ms · measuring"));
        let s0 = sample::sample_tree(root);
        let c0 = sample::self_cpu_s();
        let t0 = Instant::now();
        shared.start_window();
        let (mut peak, mut sum, mut count) = (s0.rss_kb, 0u64, 0u64);
        let mut last = s0;
        while t0.elapsed() < self.opts.duration {
            std::thread::sleep(
                Duration::from_millis(100).min(self.opts.duration.saturating_sub(t0.elapsed())),
            );
            if died(server) {
                shared.end_window(t0.elapsed());
                return crashed(delay_ms, "the server died during the measured window");
            }
            let s = sample::sample_tree(root);
            peak = peak.max(s.rss_kb);
            sum += s.rss_kb;
            count += 1;
            last = s;
        }
        let window = t0.elapsed();
        let stats = shared.end_window(window);
        let c1 = sample::self_cpu_s();
        let server_cores = (last.cpu_s - s0.cpu_s).max(0.0) / window.as_secs_f64();
        let client_cores = (c1 - c0).max(0.0) / window.as_secs_f64();
        let total_cpus = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
        let client_bound = if self.opts.pin {
            client_cores >= 0.9 * self.client_cpus as f64
        } else {
            client_cores + server_cores >= 0.9 * total_cpus && client_cores >= server_cores
        };
        let status = if stats.error_count() > 0 {
            WsStatus::Errors
        } else {
            WsStatus::Ok
        };
        Phase {
            delay_ms,
            status,
            window_s: window.as_secs_f64(),
            server_rss_peak_kb: Some(peak),
            server_rss_avg_kb: Some(sum.checked_div(count).unwrap_or(peak)),
            server_cores: Some(server_cores),
            client_cores: Some(client_cores),
            client_bound,
            detail: (!stats.error_samples.is_empty()).then(|| stats.error_samples.join("; ")),
            stats: Some(stats),
        }
    }
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
    }
}

fn crashed(delay_ms: f64, why: &str) -> Phase {
    Phase {
        status: WsStatus::Crashed,
        detail: Some(why.into()),
        ..skipped(delay_ms)
    }
}

/// Runs the ws-echo benchmark for every variant with a ws-echo program.
/// Each server's record is appended to `ws.jsonl` as soon as it finishes.
pub fn run(spawner: &Spawner, variants: &[&Variant], opts: &Options) -> Result<Vec<WsRecord>> {
    let variants: Vec<&Variant> = variants
        .iter()
        .copied()
        .filter(|v| v.programs.contains_key(&Bench::WsEcho))
        .collect();
    anyhow::ensure!(
        !variants.is_empty(),
        "no selected variant has a ws-echo program"
    );
    let store = Store::open(&opts.out)?;
    let nofile = raise_nofile();
    if (nofile as usize) < opts.connections + 100 {
        anyhow::bail!(
            "{} connections need more file descriptors than RLIMIT_NOFILE allows ({nofile}); \
             raise the hard limit (ulimit -Hn) or use fewer --connections",
            opts.connections
        );
    }
    let (_, client_cpus) = split_cpus();
    if opts.pin {
        pin_self(&client_cpus);
    }
    let workers = if opts.pin {
        client_cpus.len()
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()?;
    let pb = progress_bar();
    let (session, infos) = begin_session(
        &store,
        spawner,
        &variants,
        &pb,
        SessionParams {
            size: format!("ws-echo c={}", opts.connections),
            runs: 1,
            timeout_s: opts.duration.as_secs_f64(),
            command_line: &opts.command_line,
            suffix: "-ws",
        },
    )?;
    let ctx = Ctx {
        spawner,
        opts,
        session: &session,
        rt: &rt,
        client_cpus: if opts.pin { client_cpus.len() } else { workers },
    };
    let mut records = Vec::new();
    for (v, info) in variants.iter().zip(&infos) {
        if interrupted() {
            break;
        }
        let rec = ctx.server(v, info, &pb)?;
        if rec.status != WsStatus::Ok {
            say(
                &pb,
                format!(
                    "{}: {} {}",
                    v.id,
                    rec.status.name(),
                    rec.detail.clone().unwrap_or_default()
                ),
            );
        }
        store.append(WS_RECORDS, &rec)?;
        crate::export::write_all(&store)?;
        records.push(rec);
    }
    pb.finish_and_clear();
    rt.shutdown_timeout(Duration::from_secs(1));
    Ok(records)
}
