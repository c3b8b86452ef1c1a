//! The WebSocket echo benchmark: start each server through the spawner, wait
//! until it listens, drive it with langbench's own load client through the
//! delay phases while sampling its process tree, stop it, and store one
//! record per server.

pub mod client;
pub mod drive;
pub mod remote;
pub mod report;
pub mod sample;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

pub use drive::skipped;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::bench::Bench;
use crate::config::{Variant, Vars};
use crate::progress::{progress_bar, say};
use crate::record::{Origin, SCHEMA, VariantInfo, now_rfc3339};
use crate::session::{SessionParams, begin_session};
use crate::signals::interrupted;
use crate::spawn::{Exit, Running, Spawner};
use crate::step::{prepare, stderr_tail};
use crate::store::Store;
use client::{ClientLoad, WindowStats};
pub use drive::{Placement, client_bound};

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
    /// How hard the client worked (absent in records before the mio
    /// client): `saturated` marks the latencies as client-limited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientLoad>,
    /// Server threads' run-queue wait per second of the window: CPU the
    /// server wanted but did not get (other processes on its CPUs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_waiting_cores: Option<f64>,
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
    /// Where the client and the server ran (absent in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<Placement>,
    /// The server's RSS with no connection open (for KB per connection).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_rss_idle_kb: Option<u64>,
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

/// Waits until the server accepts a TCP connection on `addr`.
fn wait_listening(
    server: &mut Running,
    target: &client::Target,
    timeout: Duration,
) -> Result<(), String> {
    let t = Instant::now();
    let addr = target.addr;
    loop {
        let listens = client::in_netns(target, || {
            TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok()
        })
        .map_err(|e| format!("cannot enter the server's network namespace: {e}"))?;
        if listens {
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
    /// (server CPUs, client CPUs) when pinned.
    split: Option<(Vec<usize>, Vec<usize>)>,
}

/// A server langbench started.
struct Spawned<'a>(&'a mut Running);

impl drive::Server for Spawned<'_> {
    fn pid(&self) -> Option<i32> {
        Some(self.0.pid())
    }
    fn died(&mut self) -> bool {
        self.0.has_exited()
    }
}

/// A record with nothing measured yet.
pub fn blank_record(
    session: &str,
    opts: &Options,
    variant: &str,
    language: &str,
    library: &str,
    version: &str,
) -> WsRecord {
    WsRecord {
        schema: SCHEMA,
        session: session.to_string(),
        finished_at: now_rfc3339(),
        variant: variant.into(),
        language: language.into(),
        library: library.into(),
        version: version.into(),
        connections: opts.connections,
        opened: 0,
        handshake_failures: 0,
        warmup_s: opts.warmup.as_secs_f64(),
        pinned: opts.pin,
        status: WsStatus::Ok,
        detail: None,
        phases: Vec::new(),
        server_exit: None,
        server_max_rss_kb: None,
        server_user_s: None,
        server_sys_s: None,
        clean_shutdown: None,
        origin: Origin::Measured,
        placement: None,
        server_rss_idle_kb: None,
    }
}

/// Status and detail of a finished record from its phases.
pub fn settle(rec: &mut WsRecord, handshake_samples: &[String]) {
    let errors: u64 = rec
        .phases
        .iter()
        .filter_map(|p| p.stats.as_ref())
        .map(|s| s.error_count())
        .sum();
    if rec.phases.iter().any(|p| p.status == WsStatus::Crashed) {
        rec.status = WsStatus::Crashed;
    } else if errors > 0 || rec.handshake_failures > 0 {
        rec.status = WsStatus::Errors;
        let samples: Vec<String> = handshake_samples
            .iter()
            .cloned()
            .chain(
                rec.phases
                    .iter()
                    .filter_map(|p| p.stats.as_ref())
                    .flat_map(|s| s.error_samples.iter().cloned()),
            )
            .take(3)
            .collect();
        rec.detail = Some(format!(
            "{errors} echo errors, {} failed handshakes: {}",
            rec.handshake_failures,
            samples.join("; ")
        ));
    }
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
            status,
            detail,
            ..blank_record(
                self.session,
                self.opts,
                &v.id,
                &v.language,
                &v.library.clone().unwrap_or_else(|| "built-in".into()),
                &info.version,
            )
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
        let build = crate::scratch::dir("ws")?;
        let port = free_port()?;
        let vars = Vars {
            port: Some(port),
            ..v.vars(Bench::WsEcho, build.path())
                .context("no ws-echo program")?
        };
        let mut req = v.request(v.run.expand(&vars), &v.cwd(&vars));
        req.grace = Duration::from_secs(5);
        // Sandboxed like the CPU runs: a network namespace of its own with
        // only `lo`; the load client creates its sockets in that namespace
        // (see `client::Target::netns`). Without root langbench cannot
        // enter it, so the server keeps the host's network.
        self.spawner
            .isolate(&mut req, build.path(), !crate::spawn::can_enter_netns());
        if let Some((server_cpus, _)) = &self.split {
            req.cpus = Some(server_cpus.clone());
        }
        pb.set_message(format!("{} · starting on port {port}", v.id));
        let mut server = match self.spawner.start(&req) {
            Ok(s) => s,
            Err(e) => return Ok(self.record(v, info, WsStatus::Failed, Some(format!("{e:#}")))),
        };
        let addr: SocketAddr = ([127, 0, 0, 1], port).into();
        let target = client::Target {
            netns: match server.netns() {
                Ok(ns) => ns.map(std::sync::Arc::new),
                Err(e) => {
                    // Its agent is gone: the server ended at once.
                    server.stop();
                    let o = server.wait()?;
                    let mut rec = self.record(
                        v,
                        info,
                        WsStatus::NeverListened,
                        Some(format!(
                            "the server exited before it listened ({e:#}; {}); {}",
                            o.exit,
                            stderr_tail(&o)
                        )),
                    );
                    rec.server_exit = Some(o.exit);
                    return Ok(rec);
                }
            },
            ..client::Target::local(addr)
        };
        if let Err(e) = wait_listening(&mut server, &target, self.opts.startup_timeout) {
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

        let mut rec = self.record(v, info, WsStatus::Ok, None);
        rec.server_rss_idle_kb = Some(sample::sample_tree(server.pid()).rss_kb);
        let client_cpus = self.split.as_ref().map(|s| s.1.clone()).unwrap_or_default();
        // The CPUs the server was started on: under containment `pid()` is
        // langbench's init in front of the server, which stays on
        // langbench's own CPUs, so its affinity is not the server's.
        let server_cpus = match &self.split {
            Some((server_cpus, _)) => server_cpus.clone(),
            None => drive::affinity(server.pid()).unwrap_or_default(),
        };
        pb.set_message(format!(
            "{} · opening {} connections",
            v.id, self.opts.connections
        ));
        let mut client =
            client::Client::open(&target, &drive::client_options(self.opts, &client_cpus));
        rec.opened = client.alive();
        rec.handshake_failures = client.handshake_failures();
        rec.placement = Some(Placement {
            server_cpus: server_cpus.clone(),
            client_cpus,
            client_threads: client.threads(),
            client_hosts: 1,
            server_started: true,
            server_pid: Some(server.pid()),
        });
        let id = v.id.clone();
        let results = drive::phases(
            &mut client,
            self.opts,
            None,
            &mut Spawned(&mut server),
            server_cpus.len(),
            &|m| pb.set_message(format!("{id} · {m}")),
            &|p| say(pb, report::phase_line(&id, p)),
        );
        rec.phases = results.into_iter().map(|r| r.phase).collect();
        let handshake_samples = client.handshake_samples();
        client.stop();

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
        settle(&mut rec, &handshake_samples);
        if already_dead || rec.status == WsStatus::Crashed {
            rec.status = WsStatus::Crashed;
            rec.detail = Some(format!("server died: {}; {}", o.exit, stderr_tail(&o)));
        }
        Ok(rec)
    }
}

/// Raises RLIMIT_NOFILE for `connections` (and servers started afterwards).
pub fn ensure_nofile(connections: usize) -> Result<()> {
    let nofile = raise_nofile();
    if (nofile as usize) < connections + 100 {
        anyhow::bail!(
            "{connections} connections need more file descriptors than RLIMIT_NOFILE allows ({nofile}); \
             raise the hard limit (ulimit -Hn) or use fewer --connections"
        );
    }
    Ok(())
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
    let _lock = store.lock()?;
    crate::scratch::clean_stale();
    ensure_nofile(opts.connections)?;
    let split = opts.pin.then(|| drive::split_cpus(opts.client_cpus));
    if let Some((_, client_cpus)) = &split {
        // This thread (sampling, progress) stays off the server's CPUs too.
        client::pin_thread(client_cpus);
    }
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
            shard: None,
            cpus: None,
            runs_auto_cv: None,
        },
    )?;
    let ctx = Ctx {
        spawner,
        opts,
        session: &session,
        split,
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
    Ok(records)
}

/// `langbench ws`: every selected server under the load client ([`run`]),
/// the table on the terminal, and where the results are.
pub fn command(
    spawner: &Spawner,
    variants: &[&Variant],
    opts: &Options,
) -> Result<std::process::ExitCode> {
    crate::signals::install_interrupt_handler();
    let records = run(spawner, variants, opts)?;
    report::print(&records);
    Ok(crate::signals::finish(&opts.out))
}
