//! The WebSocket echo benchmark: start each server through the spawner, wait
//! until it listens, drive it with langbench's own load client through the
//! delay phases while sampling its process tree, stop it, and store one
//! record per server.
//!
//! Its face: [`command`] and [`benchmark`] (which the suite and the tests
//! call), `remote`'s `client_command`, `target_command`, `merge_command` and
//! `read_reports` for main.rs, and its re-exports [`Options`],
//! [`client_bound`], [`WsRecord`] and [`WsStatus`]; the rest is its inside.

pub mod remote;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

pub use crate::ws_load::drive::client_bound;
pub use crate::ws_options::Options;
pub use crate::ws_record::{WsRecord, WsStatus};

use anyhow::{Context, Result};

use crate::bench::Bench;
use crate::cell::Program;
use crate::config::{Variant, Vars};
use crate::progress::{message, progress_bar, say};
use crate::record::{Origin, SCHEMA, VariantInfo, now_rfc3339};
use crate::session::{SessionParams, begin_session};
use crate::signals::interrupted;
use crate::step::stderr_tail;
use crate::store::Store;
use crate::ws_load::{client, drive};
use crate::ws_record::{Placement, WS_RECORDS};
use crate::ws_summary;
use langbench_spawn::{Exit, Outcome, Request, Running, Spawner};

/// Raises RLIMIT_NOFILE to its hard limit (inherited by servers started
/// afterwards). Returns the new soft limit.
fn raise_nofile() -> u64 {
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

/// Why a server never listened.
#[derive(Debug, thiserror::Error)]
enum NotListening {
    /// Its agent had ended before the server's network namespace could be
    /// opened: the server ended at once.
    #[error("the server exited before it listened ({0:#})")]
    Gone(anyhow::Error),
    /// The listen probe could not enter the server's network namespace.
    #[error("cannot enter the server's network namespace: {0}")]
    NoNetns(std::io::Error),
    /// It exited before it accepted a connection.
    #[error("the server exited before it listened")]
    Exited,
    /// It accepted no connection within the startup timeout.
    #[error("the server did not listen on {addr} within {:.0} s", .after.as_secs_f64())]
    TimedOut { addr: SocketAddr, after: Duration },
    /// Ctrl-C or SIGTERM while waiting.
    #[error("interrupted before the server listened")]
    Interrupted,
}

impl NotListening {
    /// The record's detail, with how the server ended when stopped.
    fn detail(&self, o: &Outcome) -> String {
        match self {
            NotListening::Gone(e) => format!(
                "the server exited before it listened ({e:#}; {}); {}",
                o.done.exit,
                stderr_tail(o)
            ),
            _ => format!("{self} ({}); {}", o.done.exit, stderr_tail(o)),
        }
    }
}

/// Waits until the server listens on `port`. Returns the load client's
/// target: the port, in the server's own network namespace when it has
/// one.
fn listening(
    server: &mut Running,
    port: u16,
    timeout: Duration,
) -> Result<client::Target, NotListening> {
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let target = client::Target {
        netns: server
            .netns()
            .map_err(NotListening::Gone)?
            .map(std::sync::Arc::new),
        ..client::Target::local(addr)
    };
    wait_listening(server, &target, timeout)?;
    Ok(target)
}

/// Waits until the server accepts a TCP connection on `target`.
fn wait_listening(
    server: &mut Running,
    target: &client::Target,
    timeout: Duration,
) -> Result<(), NotListening> {
    let t = Instant::now();
    let addr = target.addr;
    loop {
        let listens = client::in_netns(target, || {
            TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok()
        })
        .map_err(NotListening::NoNetns)?;
        if listens {
            return Ok(());
        }
        if server.has_exited() {
            return Err(NotListening::Exited);
        }
        if interrupted() {
            return Err(NotListening::Interrupted);
        }
        if t.elapsed() > timeout {
            return Err(NotListening::TimedOut {
                addr,
                after: timeout,
            });
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
fn blank_record(
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

/// Status and detail of a finished record from its phases: errors when an
/// echo was wrong or lost, a handshake failed, or a connection was lost
/// (fewer alive in a phase than opened: a server that closed them, or the
/// client past one of its bounds, even outside the measured windows).
/// `client_samples`: why handshakes failed and connections were lost
/// outside the windows (the client's `handshake_samples` and
/// `lost_samples`).
fn settle(rec: &mut WsRecord, client_samples: &[String]) {
    let errors: u64 = rec
        .phases
        .iter()
        .filter_map(|p| p.stats.as_ref())
        .map(|s| s.error_count())
        .sum();
    let lost = rec
        .phases
        .iter()
        .filter_map(|p| p.stats.as_ref()?.alive)
        .min()
        .map_or(0, |alive| rec.opened.saturating_sub(alive));
    if rec.phases.iter().any(|p| p.status == WsStatus::Crashed) {
        rec.status = WsStatus::Crashed;
    } else if errors > 0 || rec.handshake_failures > 0 || lost > 0 {
        rec.status = WsStatus::Errors;
        let samples: Vec<String> = client_samples
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
        let lost = if lost > 0 {
            format!(", {lost} of {} connections lost", rec.opened)
        } else {
            String::new()
        };
        rec.detail = Some(format!(
            "{errors} echo errors, {} failed handshakes{lost}: {}",
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

    /// One server: set up, start it, wait until it listens, run every
    /// phase, shut it down, classify the record.
    fn server(
        &self,
        v: &Variant,
        info: &VariantInfo,
        pb: &indicatif::ProgressBar,
    ) -> Result<WsRecord> {
        let program = match self.ready(v, info, pb) {
            Ok(p) => p,
            Err(rec) => return Ok(*rec),
        };
        // Removed when dropped: after the server has ended.
        let build = crate::scratch::dir("ws")?;
        let (req, port) = self.request(&program, build.path())?;
        message(pb, &format!("{} · starting on port {port}", v.id));
        let mut server = match self.spawner.start(&req) {
            Ok(s) => s,
            Err(e) => return Ok(self.record(v, info, WsStatus::Failed, Some(format!("{e:#}")))),
        };
        let target = match listening(&mut server, port, self.opts.startup_timeout) {
            Ok(target) => target,
            Err(why) => return self.never_listened(v, info, server, &why),
        };
        let (mut rec, samples) = self.run_phases(v, info, &mut server, &target, pb);
        let end = shut_down(server)?;
        classify(&mut rec, &end, &samples);
        Ok(rec)
    }

    /// The server's program, set up (its `prepare` commands run, with its
    /// caches); the record of a server that cannot run: not installed, or
    /// its caches or `prepare` failed.
    fn ready<'a>(
        &'a self,
        v: &'a Variant,
        info: &VariantInfo,
        pb: &indicatif::ProgressBar,
    ) -> Result<Program<'a>, Box<WsRecord>> {
        if !info.installed {
            return Err(Box::new(self.record(
                v,
                info,
                WsStatus::NotInstalled,
                Some(format!(
                    "missing {}; install: {}",
                    info.missing.join(", "),
                    info.install_hint
                )),
            )));
        }
        let mut program = Program::new(self.spawner, v, Bench::WsEcho);
        if program.needs_prepare() {
            message(pb, &format!("{} · prepare", v.id));
            // The caches serve its `prepare` commands; the server itself
            // starts with a fresh HOME.
            let prepared = program
                .set_caches(&info.version, false)
                .and_then(|()| program.prepare(self.opts.prepare_timeout));
            if let Err(e) = prepared {
                let rec = self.record(v, info, WsStatus::Failed, Some(e.to_string()));
                return Err(Box::new(rec));
            }
        }
        Ok(program)
    }

    /// The server's command on a free port, with `build` as its build
    /// directory. Returns it and the port.
    fn request(&self, program: &Program, build: &Path) -> Result<(Request, u16)> {
        let port = free_port()?;
        let vars = Vars {
            port: Some(port),
            ..program.vars(build).context("no ws-echo program")?
        };
        let v = program.variant;
        let mut req = v.request(v.run.expand(&vars), &v.cwd(&vars));
        req.grace = Duration::from_secs(5);
        // Sandboxed like the CPU runs: a network namespace of its own with
        // only `lo`; the load client creates its sockets in that namespace
        // (see `client::Target::netns`). Without root langbench cannot
        // enter it, so the server keeps the host's network.
        self.spawner
            .isolate(&mut req, build, !langbench_spawn::can_enter_netns());
        // Its prepared copy (npm's node_modules, a built binary), read-only.
        if let (Some(sb), Some(copy)) = (req.sandbox.as_mut(), &program.copy) {
            sb.readable.push(copy.clone());
        }
        if let Some((server_cpus, _)) = &self.split {
            req.cpus = Some(server_cpus.clone());
        }
        Ok((req, port))
    }

    /// The record of a server that never listened (`why`): stopped, with
    /// how it ended.
    fn never_listened(
        &self,
        v: &Variant,
        info: &VariantInfo,
        server: Running,
        why: &NotListening,
    ) -> Result<WsRecord> {
        server.stop();
        let o = server.wait()?;
        let mut rec = self.record(v, info, WsStatus::NeverListened, Some(why.detail(&o)));
        rec.server_exit = Some(o.done.exit);
        Ok(rec)
    }

    /// (server CPUs, client CPUs): the split when pinned; unpinned, the
    /// CPUs the server may use and no client CPUs.
    fn cpus(&self, server: &Running) -> (Vec<usize>, Vec<usize>) {
        let client_cpus = self.split.as_ref().map(|s| s.1.clone()).unwrap_or_default();
        // Pinned: the CPUs the server was started on. Unpinned: the
        // server's own affinity (`pid()` is the server's pid as langbench
        // sees it, also under containment, where init stands in front).
        let server_cpus = match &self.split {
            Some((server_cpus, _)) => server_cpus.clone(),
            None => drive::affinity(server.pid()).unwrap_or_default(),
        };
        (server_cpus, client_cpus)
    }

    /// With the server listening: its idle RSS, the client's connections,
    /// then every phase. Returns the record so far and the client's samples
    /// (failed handshakes, then connections lost outside the windows).
    fn run_phases(
        &self,
        v: &Variant,
        info: &VariantInfo,
        server: &mut Running,
        target: &client::Target,
        pb: &indicatif::ProgressBar,
    ) -> (WsRecord, Vec<String>) {
        let mut rec = self.record(v, info, WsStatus::Ok, None);
        rec.server_rss_idle_kb = Some(crate::ws_sample::sample_tree(server.pid()).rss_kb);
        let (server_cpus, client_cpus) = self.cpus(server);
        message(
            pb,
            &format!("{} · opening {} connections", v.id, self.opts.connections),
        );
        let mut client =
            client::Client::open(target, &drive::client_options(self.opts, &client_cpus));
        rec.opened = client.connected();
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
            &mut Spawned(server),
            server_cpus.len(),
            &|m| message(pb, &format!("{id} · {m}")),
            &|p| say(pb, ws_summary::phase_line(&id, p)),
        );
        rec.phases = results.into_iter().map(|r| r.phase).collect();
        let mut samples = client.handshake_samples();
        samples.extend(client.lost_samples());
        client.stop();
        (rec, samples)
    }
}

/// How a server ended after its phases.
struct Shutdown {
    outcome: Outcome,
    /// It had died before langbench stopped it.
    already_dead: bool,
}

/// Stops the server (SIGTERM, then SIGKILL after the grace period) and
/// waits for it.
fn shut_down(mut server: Running) -> Result<Shutdown> {
    let already_dead = server.has_exited();
    server.stop();
    let outcome = server.wait()?;
    Ok(Shutdown {
        outcome,
        already_dead,
    })
}

/// The server's own figures, then the record's status: from its phases
/// (`settle`), and crashed if the server died by itself.
fn classify(rec: &mut WsRecord, end: &Shutdown, client_samples: &[String]) {
    let o = &end.outcome;
    rec.server_exit = Some(o.done.exit);
    rec.server_max_rss_kb = Some(o.done.max_rss_kb);
    rec.server_user_s = Some(o.done.user.as_secs_f64());
    rec.server_sys_s = Some(o.done.sys.as_secs_f64());
    if !end.already_dead {
        // SIGTERM handled (exit 0) or default action (killed by SIGTERM)
        // is clean; needing SIGKILL is not.
        rec.clean_shutdown = Some(o.done.exit != Exit::Signaled(libc::SIGKILL));
    }
    settle(rec, client_samples);
    if end.already_dead || rec.status == WsStatus::Crashed {
        rec.status = WsStatus::Crashed;
        rec.detail = Some(format!("server died: {}; {}", o.done.exit, stderr_tail(o)));
    }
}

/// Raises RLIMIT_NOFILE for `connections` (and servers started afterwards).
fn ensure_nofile(connections: usize) -> Result<()> {
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
pub fn benchmark(
    spawner: &Spawner,
    variants: &[&Variant],
    opts: &Options,
) -> Result<Vec<WsRecord>> {
    let variants = with_ws_program(variants)?;
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
    let (session, infos) = begin_session(&store, spawner, &variants, &pb, session_params(opts))?;
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
        keep(&store, &pb, &rec)?;
        records.push(rec);
    }
    pb.finish_and_clear();
    Ok(records)
}

/// The variants with a ws-echo program (an error when none has one).
fn with_ws_program<'a>(variants: &[&'a Variant]) -> Result<Vec<&'a Variant>> {
    let variants: Vec<&Variant> = variants
        .iter()
        .copied()
        .filter(|v| v.programs.contains_key(&Bench::WsEcho))
        .collect();
    anyhow::ensure!(
        !variants.is_empty(),
        "no selected variant has a ws-echo program"
    );
    Ok(variants)
}

/// The ws session's record: one run per server, the window as timeout.
fn session_params(opts: &Options) -> SessionParams<'_> {
    SessionParams {
        size: format!("ws-echo c={}", opts.connections),
        runs: crate::noise::Runs::Fixed(1),
        timeout_s: opts.duration.as_secs_f64(),
        command_line: &opts.command_line,
        suffix: "-ws",
        shard: None,
        cpus: None,
        schedule: None,
    }
}

/// Says how a server's run went unless it is ok, appends its record to
/// `ws.jsonl` and rewrites the derived files.
fn keep(store: &Store, pb: &indicatif::ProgressBar, rec: &WsRecord) -> Result<()> {
    if rec.status != WsStatus::Ok {
        say(
            pb,
            format!(
                "{}: {} {}",
                rec.variant,
                rec.status.name(),
                rec.detail.clone().unwrap_or_default()
            ),
        );
    }
    store.append(WS_RECORDS, rec)?;
    crate::derived::write_all(store)?;
    Ok(())
}

/// `langbench ws`: every selected server under the load client ([`benchmark`]),
/// the table on the terminal, and where the results are.
pub fn command(
    spawner: &Spawner,
    variants: &[&Variant],
    opts: &Options,
) -> Result<std::process::ExitCode> {
    crate::signals::install_interrupt_handler();
    let records = benchmark(spawner, variants, opts)?;
    ws_summary::print(&records);
    Ok(crate::derived::finish(&opts.out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ws_record::{Phase, WindowStats};

    fn phase(alive: usize, errors: u64) -> Phase {
        Phase {
            delay_ms: 10.0,
            status: WsStatus::Ok,
            window_s: 1.0,
            stats: Some(WindowStats {
                errors: Some(errors),
                alive: Some(alive),
                ..Default::default()
            }),
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

    /// Connections lost outside the windows (none counted as an echo
    /// error) still make the record `errors`, saying how many and why.
    #[test]
    fn connections_lost_outside_the_windows_are_errors_with_their_reason() {
        let opts = Options::default();
        let mut rec = blank_record("s", &opts, "v", "V", "-", "-");
        rec.opened = 4;
        rec.phases = vec![phase(4, 0), phase(1, 0)];
        let why = "a message of over 64 KiB from the server".to_string();
        settle(&mut rec, std::slice::from_ref(&why));
        assert_eq!(rec.status, WsStatus::Errors);
        let d = rec.detail.unwrap();
        assert!(
            d.contains("3 of 4 connections lost") && d.contains(&why),
            "{d}"
        );
        // All alive, no error: ok, no detail.
        let mut rec = blank_record("s", &opts, "v", "V", "-", "-");
        rec.opened = 4;
        rec.phases = vec![phase(4, 0)];
        settle(&mut rec, &[]);
        assert_eq!((rec.status, rec.detail), (WsStatus::Ok, None));
    }
}
