//! The one spawner every measured process goes through: CPU benchmark runs,
//! build steps, `langbench measure`, and WebSocket servers alike.
//!
//! langbench never forks a measured command itself. It starts a small agent
//! process (`langbench __spawn`, see `agent.rs`) that forks the command, so
//! that the command's peak RSS from `wait4` is its own and not inflated by
//! langbench's memory. The agent reports the command's pid and, at the end,
//! its rusage on a pipe (fd 3 in the agent).
//!
//! Its face: [`Spawner`] (`new`, `current`, `with_containment`, `isolate`,
//! `execute`, `start` giving a [`Running`]) and its [`Request`],
//! [`Containment`] and [`Limits`]; the outcome ([`Outcome`], [`Exit`],
//! [`Done`], [`Captured`], [`Bounds`], [`TreeUsage`], [`signal_name`]);
//! `run_here`, `home_dir_of`, `can_enter_netns`, [`AGENT_ARG`] with
//! `agent::main`, [`STDOUT_KEEP`], `cgroup::Base`, `escape`, `proxy::Proxy`,
//! `procstat::Stat`, `refusal::Facts`, `home` (what of a real home a
//! sandboxed command may see: the allowlist `config` judges `home`
//! entries by); the rest is its inside.

pub mod agent;
pub mod cgroup;
pub(crate) mod contain;
pub mod escape;
mod event;
pub mod home;
mod kit;
pub mod nofollow;
mod outcome;
pub mod procstat;
pub mod proxy;
pub mod refusal;

use std::ffi::CString;
use std::io::{BufRead, BufReader, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};

use event::{BadEvent, Event};
pub use outcome::{Bounds, Captured, Done, Exit, Outcome, TreeUsage, signal_name};
use procstat::Stat;

/// Hidden first argument that turns the langbench binary into the agent.
pub const AGENT_ARG: &str = "__spawn";

/// How much of a command's stdout is kept for verification. The rest is read
/// and counted but dropped, so a program that floods its output cannot eat
/// langbench's memory.
pub const STDOUT_KEEP: usize = 1 << 20;
/// How much of stderr is kept (the tail, which is where errors are).
const STDERR_KEEP: usize = 64 << 10;
/// How much of a [`Request::log_fd`] socket's stream is kept.
pub const LOG_KEEP: usize = 1 << 20;

/// What to run.
#[derive(Debug, Clone)]
pub struct Request {
    pub argv: Vec<String>,
    pub cwd: PathBuf,
    pub env: Vec<(String, String)>,
    /// Kill the whole process group after this long.
    pub timeout: Option<Duration>,
    /// After a stop request, how long to wait between SIGTERM and SIGKILL.
    pub grace: Duration,
    /// Capture stdout/stderr (bounded) instead of passing them through.
    pub capture: bool,
    /// Pin the command to these CPUs.
    pub cpus: Option<Vec<usize>>,
    /// The filesystem/network sandbox (see `Spawner::isolate`); `None`: the
    /// command sees the machine (still in its own PID namespace when the
    /// spawner contains).
    pub sandbox: Option<Sandbox>,
    /// Kept readable in the sandbox even under /tmp: the languages file's
    /// directory, a Maven toolchain's directory.
    pub readable: Vec<PathBuf>,
    /// Persistent cache directories (host directory, path under HOME),
    /// bound writable into the sandbox's HOME.
    pub caches: Vec<(PathBuf, PathBuf)>,
    /// Directories of the real HOME (relative to it) the command's
    /// toolchain reads through HOME (`.rustup`), bound read-only at the
    /// same place in the sandbox's HOME: a toolchain manager's directory
    /// as the parts its toolchains read (`.rustup/toolchains`,
    /// `.rustup/settings.toml`; see `home`).
    pub home_dirs: Vec<PathBuf>,
    /// A socket langbench reads, given to the command at this descriptor
    /// number and kept open across its exec (the only descriptor above 2
    /// it gets): what its tree writes there comes back in
    /// [`Outcome::log`], its head up to [`LOG_KEEP`]. A work count gives
    /// it to valgrind (`--log-fd`); contained runs only.
    pub log_fd: Option<i32>,
}

/// What a sandboxed command may touch. Everything else is read-only, /tmp
/// and /dev/shm are private, `hide` is invisible, and (without `network`)
/// the network is a private loopback.
#[derive(Debug, Clone, Default)]
pub struct Sandbox {
    /// Writable host directories, at their own paths, owned by the
    /// command's user: the build directory (HOME is in it) and a `prepare`
    /// step's private copy of its program's directory. What is written
    /// there is bounded by [`Limits::disk_kb`].
    pub writable: Vec<PathBuf>,
    /// Persistent writable directories bound into HOME (host directory,
    /// place in the sandbox): the variant's toolchain caches.
    pub caches: Vec<(PathBuf, PathBuf)>,
    /// Read-only directories (and a manager's files, `settings.toml`) of
    /// the real home bound into HOME (host path, place in the sandbox):
    /// toolchains their launchers find through HOME (`~/.rustup`'s parts).
    pub home_dirs: Vec<(PathBuf, PathBuf)>,
    /// A network namespace to join instead of a fresh one (a `prepare`
    /// step's, where langbench's registry proxy listens).
    pub netns: Option<PathBuf>,
    /// Readable even if they lie in the machine's /tmp (the command's
    /// working directory, the languages file's directory).
    pub readable: Vec<PathBuf>,
    /// HOME inside the sandbox: always [`SANDBOX_HOME`], the same path for
    /// every run (a toolchain that records its cache's path, as `nim r`
    /// does, finds it again), the fresh `home_dir` bound there.
    pub home: PathBuf,
    /// The host directory that is the run's HOME (in the build directory,
    /// so the build steps and the run share it).
    pub home_dir: PathBuf,
    /// The run's build directory (host) and where the command sees it
    /// ([`SANDBOX_BUILD`]).
    pub build_at: Option<(PathBuf, PathBuf)>,
    /// Keep the host's network (`prepare` steps: package registries).
    /// `false`: a network namespace of its own with only `lo`
    /// (`Running::netns` to reach it).
    pub network: bool,
}

/// How commands are contained: recorded in every session.
#[derive(Debug, Clone, Default)]
pub struct Containment {
    /// PID + mount namespaces behind langbench's init, tree measured and
    /// killed by the kernel. `false`: `--no-sandbox`, the old process group
    /// + subreaper + sweep.
    pub namespaces: bool,
    /// Filesystem/network isolation of benchmark runs, builds and version
    /// probes.
    pub isolate: bool,
    /// Paths no command may see (the results directory).
    pub hide: Vec<PathBuf>,
    /// Directories covered like the homes, with only what a command is
    /// given bound back (langbench's state: every variant's caches and
    /// prepared copies; a command sees its own).
    pub masks: Vec<PathBuf>,
    /// Kill a tree whose resident memory passes this (KB): the cgroup's
    /// memory.max with a memory controller, else init's sampling.
    pub memory_limit_kb: Option<u64>,
    /// A cgroup v2 directory to measure (and limit) each run's tree in
    /// (`--cgroup`, or langbench's own delegated one).
    pub cgroup: Option<cgroup::Base>,
    /// The bounds of a sandboxed run (see [`Bounds`]'s counterpart,
    /// [`Limits`]).
    pub limits: Limits,
}

/// The resources a sandboxed run may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The user and group sandboxed commands run as when langbench is
    /// root: never the host's root (`None` without root: the user's own,
    /// in a user namespace).
    pub ids: Option<(u32, u32)>,
    /// Size of each private tmpfs (/tmp, /dev/shm), KB; what they hold
    /// counts as the tree's memory.
    pub tmpfs_kb: u64,
    /// Processes and threads (RLIMIT_NPROC, which counts the user's on the
    /// whole machine).
    pub max_procs: u64,
    /// What a run may write to the host directories it can write (its
    /// build directory, its caches, a prepared copy), KB, watched on their
    /// filesystem's free space.
    pub disk_kb: u64,
    /// What a variant's toolchain caches may hold, KB (`--cache-limit`,
    /// by default `--disk-limit`): a run that leaves them past it fails
    /// (see `state::Caches::past_limit`); 0: no bound.
    pub cache_kb: u64,
    /// Files (and directories, links, ...: inodes) a run may create on
    /// the host's disk, and a variant's caches or prepared copy may hold
    /// (`--file-limit`; issue #59: empty files hold no block); 0: no
    /// bound.
    pub files: u64,
}

/// `--file-limit`'s default: a million files, far more than a toolchain's
/// cache holds (Go's build cache, a Maven repository, npm's: thousands to
/// tens of thousands), far fewer than a filesystem's inodes.
pub const DEFAULT_FILES: u64 = 1_000_000;

/// The host directory that is the sandboxed HOME of a run whose build
/// directory is `build` (bound at [`SANDBOX_HOME`]; removed with `build`):
/// what the run left in its HOME, `check` reads there.
pub fn home_dir_of(build: &Path) -> PathBuf {
    build.join(".home")
}

/// Where a sandboxed command's HOME is: one path for every run, in its
/// private /tmp (a fresh directory of the run's is bound there).
const SANDBOX_HOME: &str = "/tmp/home";

/// Where a sandboxed run's build directory (`{build}`, its default working
/// directory) is: one path for every run, as a person's working directory
/// is the same each time they type the command (`nim r` keys its compile
/// cache by it), the run's fresh directory bound there.
const SANDBOX_BUILD: &str = "/tmp/build";

/// The unprivileged user and group root's sandboxed commands run as:
/// `nobody` and `nogroup` on Debian, Ubuntu and Fedora alike.
const SANDBOX_IDS: (u32, u32) = (65534, 65534);

impl Default for Limits {
    fn default() -> Self {
        // SAFETY: geteuid cannot fail.
        let root = unsafe { libc::geteuid() } == 0;
        Limits {
            ids: root.then_some(SANDBOX_IDS),
            tmpfs_kb: 2 << 20,
            max_procs: 4096,
            disk_kb: 4 << 20,
            cache_kb: 4 << 20,
            files: DEFAULT_FILES,
        }
    }
}

impl Containment {
    /// The default: everything on (needs root or unprivileged user
    /// namespaces).
    pub fn full() -> Self {
        Containment {
            namespaces: true,
            isolate: true,
            hide: Vec::new(),
            masks: Vec::new(),
            memory_limit_kb: None,
            cgroup: None,
            limits: Limits::default(),
        }
    }

    pub fn none() -> Self {
        Containment::default()
    }

    /// One line for the session record.
    pub fn describe(&self) -> String {
        if !self.namespaces {
            return "none (--no-sandbox): process group + subreaper + sweep; no tree figures, no memory limit".into();
        }
        let mut s = String::from(
            "PID + mount namespace behind langbench's init (the kernel kills the whole tree); ",
        );
        // SAFETY: geteuid cannot fail.
        let uid = unsafe { libc::geteuid() };
        if uid != 0 {
            s.push_str(&format!(
                "unprivileged (uid {uid}): in a user namespace of its own that maps uid {uid} to itself; "
            ));
        }
        match &self.cgroup {
            Some(cg) => s.push_str(&cg.describe()),
            None => s.push_str(
                "tree CPU from init's RUSAGE_CHILDREN (exact), tree memory by sampling the namespace's /proc \
                 every 50 ms (sum of RSS); no cgroup (none given with --cgroup, and langbench's own is not a delegated cgroup v2)",
            ),
        }
        if self.isolate {
            s.push_str(
                "; sandbox: read-only filesystem, private /tmp and /dev/shm, writable build dir, \
                 HOME in the build dir with toolchain caches as throw-away overlays, real homes covered (toolchains bound back), \
                 results directory hidden, no network (a private network namespace with only lo; \
                 ws servers too, the load client's sockets created in it), clean environment, no capabilities",
            );
            if !can_enter_netns() {
                s.push_str(
                    "; ws servers on the host's network (not root: the load client cannot enter a server's network namespace)",
                );
            }
        }
        if let Some(kb) = self.memory_limit_kb {
            if self.cgroup.as_ref().is_some_and(|c| c.memory) {
                s.push_str(&format!(
                    "; memory limit {kb} KB as the run cgroup's memory.max"
                ));
            } else {
                s.push_str(&format!(
                    "; memory limit {kb} KB on the sampled tree RSS (killed within 50 ms of passing it)"
                ));
            }
        }
        s
    }

    /// Fails closed (issue #37): runs `true` once in the very sandbox the
    /// commands get, root or not, and where the kernel refuses it (the
    /// namespaces, the fresh /proc, a mount) returns the refusal with the
    /// missing privilege and what to do ([`refusal::Facts::explain`]).
    /// Nothing to check with `--no-sandbox`.
    pub fn require(&self, spawner_exe: &Path) -> Result<()> {
        if !self.namespaces {
            return Ok(());
        }
        let probe = Spawner::new(spawner_exe).with_containment(self.clone());
        let build = tempfile::Builder::new()
            .prefix("langbench-probe-")
            .tempdir()
            .context("a directory for the sandbox probe")?;
        let mut req = Request::new(vec!["true".into()], build.path());
        req.timeout = Some(Duration::from_secs(30));
        probe.isolate(&mut req, build.path(), false);
        let refused = match probe.execute(&req) {
            Ok(o) if o.done.exit == Exit::Exited(0) => {
                // Made, but with a loopback that cannot come up (root
                // without CAP_NET_ADMIN): prepare steps and ws servers
                // would fail in it, each with a puzzling error.
                return match refusal::Facts::read().loopback() {
                    Some(why) if self.isolate => bail!("{why}"),
                    _ => Ok(()),
                };
            }
            Ok(o) => format!(
                "`true` in the sandbox ended with {}: {}",
                o.done.exit,
                o.stderr.text().trim()
            ),
            Err(e) => format!("{e:#}"),
        };
        bail!("{}", refusal::Facts::read().explain(&refused))
    }

    /// Whether `e`, from running a command, is the kernel refusing the
    /// namespaces or the fresh /proc (not the command failing).
    pub fn refused(e: &anyhow::Error) -> bool {
        let e = e.to_string();
        e.starts_with(contain::REFUSED) || e.starts_with("sandbox: mount /proc")
    }

    /// The method that measured the trees, for the session record's
    /// `tree_measure`.
    pub fn tree_measure(&self) -> &'static str {
        match (&self.cgroup, self.namespaces) {
            (_, false) => "none",
            (Some(c), true) if c.memory => "cgroup v2",
            (Some(_), true) => "cgroup v2 + /proc sampling",
            (None, true) => "/proc sampling",
        }
    }
}

impl Request {
    pub fn new(argv: Vec<String>, cwd: &Path) -> Self {
        Request {
            argv,
            cwd: cwd.to_path_buf(),
            env: Vec::new(),
            timeout: None,
            grace: Duration::from_secs(2),
            capture: true,
            cpus: None,
            sandbox: None,
            readable: Vec::new(),
            caches: Vec::new(),
            home_dirs: Vec::new(),
            log_fd: None,
        }
    }
}

/// Whether this process may enter another network namespace (`setns`
/// needs CAP_SYS_ADMIN in its own user namespace: root, in practice). The
/// ws load client does, to reach a sandboxed server that has only `lo`.
pub fn can_enter_netns() -> bool {
    const CAP_SYS_ADMIN: u32 = 21;
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("CapEff:"))
                .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        })
        .is_some_and(|caps| caps & (1 << CAP_SYS_ADMIN) != 0)
}

/// Starts agents. `exe` is the langbench binary (the running one, or the one
/// Cargo built for tests).
#[derive(Debug, Clone)]
pub struct Spawner {
    exe: PathBuf,
    pub containment: Containment,
}

impl Spawner {
    /// A spawner without containment (as before issue #9).
    pub fn new(exe: impl Into<PathBuf>) -> Self {
        Spawner {
            exe: exe.into(),
            containment: Containment::none(),
        }
    }

    pub fn with_containment(mut self, c: Containment) -> Self {
        self.containment = c;
        self
    }

    /// Puts `req` in the sandbox (when this spawner isolates): `build` is
    /// its writable directory (HOME goes in it), `network` keeps the host's
    /// network. The environment becomes PATH, HOME, LANG=C.UTF-8,
    /// TMPDIR=/tmp and the entry's own `env` (already in `req.env`).
    pub fn isolate(&self, req: &mut Request, build: &Path, network: bool) {
        if !(self.containment.namespaces && self.containment.isolate) {
            return;
        }
        // langbench's own directory, named canonically: the sandbox opens
        // it and HOME in it by a path in which it follows no link.
        let build = &build.canonicalize().unwrap_or_else(|_| build.to_path_buf());
        if let Some((uid, gid)) = self.containment.limits.ids {
            // The build directory is the command's; langbench (root)
            // removes it afterwards whatever it holds.
            let _ = std::os::unix::fs::chown(build, Some(uid), Some(gid));
        }
        let home = PathBuf::from(SANDBOX_HOME);
        // The `home` entries: a toolchain manager's directory means the
        // parts its toolchains read, never the directory (`home::declared`).
        let real_home = std::env::var_os("HOME").map(PathBuf::from);
        let home_dirs = match &real_home {
            Some(real) => req
                .home_dirs
                .iter()
                .flat_map(|rel| crate::home::declared(real, rel))
                .filter(|rel| real.join(rel).exists())
                .map(|rel| (real.join(&rel), home.join(&rel)))
                .collect(),
            None => Vec::new(),
        };
        req.sandbox = Some(Sandbox {
            writable: vec![build.to_path_buf()],
            caches: req
                .caches
                .iter()
                .map(|(host, rel)| (host.clone(), home.join(rel)))
                .collect(),
            home_dirs,
            netns: None,
            readable: std::iter::once(req.cwd.clone())
                .chain(req.readable.iter().cloned())
                .collect(),
            home,
            home_dir: home_dir_of(build),
            build_at: Some((build.to_path_buf(), PathBuf::from(SANDBOX_BUILD))),
            network,
        });
    }

    /// The `{build}` of a run whose build directory is `build` on the host:
    /// [`SANDBOX_BUILD`] where runs are sandboxed (see [`Self::isolate`]),
    /// else `build` itself.
    pub fn build_path(&self, build: &Path) -> PathBuf {
        if self.containment.namespaces && self.containment.isolate {
            PathBuf::from(SANDBOX_BUILD)
        } else {
            build.to_path_buf()
        }
    }

    /// The spawner of the running langbench binary.
    pub fn current() -> Result<Self> {
        Ok(Spawner::new(
            std::env::current_exe().context("cannot locate the langbench executable")?,
        ))
    }

    /// Starts the command and returns once it is running (or failed to start).
    pub fn start(&self, req: &Request) -> Result<Running> {
        if req.argv.is_empty() {
            bail!("empty command");
        }
        let (events_r, events_w) = pipe().context("pipe for the spawn agent")?;
        let c = &self.containment;
        let run_cgroup = match (&c.cgroup, c.namespaces) {
            (Some(cg), true) => Some(cg.child(c.memory_limit_kb)?),
            _ => None,
        };
        let procs = run_cgroup.as_ref().map(|r| r.procs());
        let mut cmd = Command::new(&self.exe);
        cmd.arg(AGENT_ARG).args(
            agent_args(c, req, std::process::id(), procs.as_deref())
                .map_err(|e| anyhow!("{e}"))?
                .to_argv(),
        );
        agent_env(&mut cmd, c, req);
        cmd.stdin(Stdio::null());
        if req.capture {
            cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        }
        let w = events_w.as_raw_fd();
        let log = match req.log_fd {
            Some(_) if !c.namespaces => bail!("a log socket needs containment (drop --no-sandbox)"),
            Some(_) => Some(log_socket()?),
            None => None,
        };
        let passed = log.as_ref().map_or(-1, |(_, theirs)| theirs.as_raw_fd());
        // SAFETY: only dup2/fcntl between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                if w == 3 {
                    let flags = libc::fcntl(3, libc::F_GETFD);
                    libc::fcntl(3, libc::F_SETFD, flags & !libc::FD_CLOEXEC);
                } else if libc::dup2(w, 3) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The log socket at kit::PASS_FD (it lies above 9, so
                // neither dup2 overwrites the other's source).
                if passed >= 0 && libc::dup2(passed, kit::PASS_FD) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = cmd.spawn().with_context(|| {
            format!(
                "cannot start the spawn agent {} (in {})",
                self.exe.display(),
                req.cwd.display()
            )
        })?;
        drop(events_w);
        let log_thread = log.map(|(ours, theirs)| {
            drop(theirs);
            std::thread::spawn(move || capture_head(std::fs::File::from(ours), LOG_KEEP))
        });
        let out_thread = child
            .stdout
            .take()
            .map(|s| std::thread::spawn(move || capture_head(s, STDOUT_KEEP)));
        let err_thread = child
            .stderr
            .take()
            .map(|s| std::thread::spawn(move || capture_tail(s, STDERR_KEEP)));
        let mut events = BufReader::new(std::fs::File::from(events_r));
        let mut line = String::new();
        events
            .read_line(&mut line)
            .context("reading the spawn agent's report")?;
        let mut running = Running {
            agent: child,
            pid: 0,
            private_net: false,
            cgroup: run_cgroup,
            events,
            out_thread,
            err_thread,
            log_thread,
        };
        match line.trim_end().parse::<Event>() {
            Ok(Event::Pid(pid)) => {
                running.pid = pid;
                running.private_net =
                    c.namespaces && req.sandbox.as_ref().is_some_and(|s| !s.network);
                Ok(running)
            }
            Err(e @ BadEvent::Pid(_)) => Err(e.into()),
            Ok(Event::Error(msg)) => {
                let _ = running.agent.wait();
                Err(anyhow!("{msg}"))
            }
            Ok(Event::Done(_)) | Err(BadEvent::Done(_) | BadEvent::Other) => {
                let status = running.agent.wait();
                let err = running.join_stderr();
                Err(anyhow!(
                    "spawn agent failed ({status:?}): {}",
                    String::from_utf8_lossy(&err.bytes)
                ))
            }
        }
    }

    /// Runs the command to completion.
    pub fn execute(&self, req: &Request) -> Result<Outcome> {
        self.start(req)?.wait()
    }
}

/// The agent's environment and working directory: the documented clean
/// environment in a sandbox (the request's own variables without one),
/// and `/` where the working directory may exist only inside it.
fn agent_env(cmd: &mut Command, c: &Containment, req: &Request) {
    if let (true, Some(sb)) = (c.namespaces, &req.sandbox) {
        // The documented clean environment.
        cmd.env_clear()
            .env(
                "PATH",
                std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
            )
            .env("HOME", &sb.home)
            .env("LANG", "C.UTF-8")
            .env("TMPDIR", "/tmp");
    }
    if !c.namespaces {
        cmd.envs(req.env.iter().map(|(k, v)| (k, v)));
    }
    if let (true, Some(_)) = (c.namespaces, &req.sandbox) {
        // The working directory may exist only inside the sandbox
        // ({build}): init enters it once the mounts are made.
        cmd.current_dir("/");
    } else {
        cmd.current_dir(&req.cwd);
    }
}

/// The agent's arguments for `req`: what it runs and how it contains it.
/// `parent` is langbench's pid (the agent dies with it). `Err`: an
/// argument holds a NUL byte.
fn agent_args(
    c: &Containment,
    req: &Request,
    parent: u32,
    cgroup_procs: Option<&Path>,
) -> Result<kit::Args, String> {
    let cstring = |s: &[u8]| CString::new(s).map_err(|_| "NUL in argument".to_string());
    let mut a = kit::Args {
        cpus: req.cpus.clone().unwrap_or_default(),
        timeout_ms: req.timeout.map_or(0, |t| t.as_millis().max(1) as u64),
        grace_ms: req.grace.as_millis() as u64,
        parent: parent as i32,
        argv: req
            .argv
            .iter()
            .map(|s| cstring(s.as_bytes()))
            .collect::<Result<_, _>>()?,
        contain: c.namespaces,
        pass_fd: req.log_fd.filter(|_| c.namespaces),
        // Only the command gets the entry's environment, not the agent
        // or init.
        setenv: match c.namespaces {
            true => req
                .env
                .iter()
                .map(|(k, v)| cstring(format!("{k}={v}").as_bytes()))
                .collect::<Result<_, _>>()?,
            false => Vec::new(),
        },
        ..kit::Args::default()
    };
    if c.namespaces {
        a.cgroup_procs = cgroup_procs.map(Path::to_path_buf);
        // With a memory controller the cgroup enforces the limit itself.
        let cg_memory = c.cgroup.as_ref().is_some_and(|cg| cg.memory);
        if let (Some(kb), false) = (c.memory_limit_kb, cg_memory) {
            a.mem_kb = kb;
        }
    }
    if let (true, Some(sb)) = (c.namespaces, &req.sandbox) {
        sandbox_args(&mut a, c, req, sb);
    }
    Ok(a)
}

/// The sandbox's part of the agent's arguments.
fn sandbox_args(a: &mut kit::Args, c: &Containment, req: &Request, sb: &Sandbox) {
    a.isolate = true;
    a.net = sb.network;
    let l = &c.limits;
    a.ids = l.ids;
    (a.tmpfs_kb, a.max_procs, a.disk_kb) = (l.tmpfs_kb, l.max_procs, l.disk_kb);
    a.disk_files = l.files;
    a.netns = sb.netns.clone();
    // init opens each writable directory following no link: the path
    // langbench named, its parent made canonical (langbench's own path;
    // the directory itself is the command's, never resolved here).
    a.rw = sb.writable.iter().map(|w| canonical_parent(w)).collect();
    // The writable directories and the caches: their disk is watched.
    a.watch = a.rw.clone();
    for (src, dst) in &sb.caches {
        a.binds.push((src.clone(), dst.clone()));
        a.watch.push(src.clone());
    }
    a.ro_binds = sb.home_dirs.clone();
    a.ro = sb
        .readable
        .iter()
        .filter(|r| !sb.writable.contains(r))
        .cloned()
        .collect();
    a.hide = c.hide.clone();
    a.masks = c.masks.clone();
    a.home = Some(sb.home.clone());
    a.home_dir = Some(sb.home_dir.clone());
    if let Some((host, inside)) = &sb.build_at {
        a.binds.push((host.clone(), inside.clone()));
    }
    a.cwd = Some(req.cwd.clone());
    a.real_home = std::env::var_os("HOME").map(PathBuf::from);
}

/// `p` with its parent made canonical (links in it resolved: langbench's
/// own path), its last component as it is.
fn canonical_parent(p: &Path) -> PathBuf {
    match (p.parent().map(Path::canonicalize), p.file_name()) {
        (Some(Ok(parent)), Some(name)) => parent.join(name),
        _ => p.to_path_buf(),
    }
}

/// Runs `req` to completion from this very process, which does the
/// agent's work itself (`agent::run_here`): no agent to exec, so a
/// measurement costs about what `/usr/bin/time` costs. Only for a caller
/// that is still as small as a fresh agent (the command's peak RSS starts
/// at what the forking process holds), single-threaded, and done after
/// this: `langbench measure`, first thing in `main`. The command runs in
/// the current directory with stdin from /dev/null and langbench's
/// stdout/stderr; `req.cwd`, `req.env`, `req.sandbox` and `req.capture`
/// are not supported here.
pub fn run_here(c: &Containment, req: &Request) -> Result<Outcome> {
    if req.argv.is_empty() {
        bail!("empty command");
    }
    debug_assert!(req.env.is_empty() && req.sandbox.is_none() && !req.capture);
    let args = agent_args(c, req, 0, None).map_err(|e| anyhow!("{e}"))?;
    let done = agent::run_here(args).map_err(|e| anyhow!("{e}"))?;
    Ok(Outcome {
        done,
        stdout: Captured::default(),
        stderr: Captured::default(),
        log: Captured::default(),
    })
}

/// A started command.
pub struct Running {
    agent: Child,
    pid: i32,
    /// The command has a network namespace of its own (a sandbox without
    /// the host's network).
    private_net: bool,
    /// The run's cgroup (removed when this is dropped).
    cgroup: Option<cgroup::Run>,
    /// The agent's event lines (`event.rs`).
    events: BufReader<std::fs::File>,
    out_thread: Option<JoinHandle<Captured>>,
    err_thread: Option<JoinHandle<Captured>>,
    /// The reader of `Request::log_fd`'s socket.
    log_thread: Option<JoinHandle<Captured>>,
}

impl Running {
    /// Pid of the command (also its process group id).
    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// The command's network namespace, when the sandbox gave it its own
    /// (only `lo`): enter it to reach the command on 127.0.0.1. Held open
    /// from the agent, which unshared it for itself (init and the command
    /// inherit it) before it reported the command's pid; an error once the
    /// agent has ended.
    pub fn netns(&self) -> Result<Option<OwnedFd>> {
        if !self.private_net {
            return Ok(None);
        }
        let path = format!("/proc/{}/ns/net", self.agent.id());
        let f = std::fs::File::open(&path).with_context(|| format!("cannot open {path}"))?;
        Ok(Some(OwnedFd::from(f)))
    }

    /// Pid of the agent process (signal it with SIGTERM to stop the command).
    pub fn agent_pid(&self) -> i32 {
        self.agent.id() as i32
    }

    /// Whether the command has finished (the agent reports before exiting).
    pub fn has_exited(&mut self) -> bool {
        // The command's pid stays a zombie child of the agent until it is
        // reaped, and /proc/PID/stat shows it as 'Z' until then.
        Stat::of(self.pid).is_none_or(|s| s.is_zombie())
    }

    /// Asks the agent to stop the command: SIGTERM to its process group,
    /// then SIGKILL after the grace period.
    pub fn stop(&self) {
        // SAFETY: signalling our own child.
        unsafe { libc::kill(self.agent.id() as i32, libc::SIGTERM) };
    }

    fn join_stderr(&mut self) -> Captured {
        self.err_thread
            .take()
            .map(|t| t.join().unwrap_or_default())
            .unwrap_or_default()
    }

    /// Waits for the command to end and returns the kernel's accounting.
    pub fn wait(mut self) -> Result<Outcome> {
        let mut line = String::new();
        self.events
            .read_line(&mut line)
            .context("reading the spawn agent's report")?;
        let status = self.agent.wait().context("waiting for the spawn agent")?;
        let stdout = self
            .out_thread
            .take()
            .map(|t| t.join().unwrap_or_default())
            .unwrap_or_default();
        let stderr = self.join_stderr();
        let line = line.trim_end();
        let done = match line.parse::<Event>() {
            Ok(Event::Done(done)) => done,
            Err(BadEvent::Done(e)) => return Err(e.into()),
            Ok(Event::Pid(_) | Event::Error(_)) | Err(BadEvent::Pid(_) | BadEvent::Other) => {
                bail!(
                    "spawn agent ended without a result ({status}): {line:?} {}",
                    stderr.text()
                )
            }
        };
        let mut done = done;
        if let Some(cg) = &self.cgroup {
            // The cgroup's figures replace init's where it has them: CPU
            // always (exact either way), memory and OOM kills with the
            // memory controller.
            let u = cg.usage();
            if let Some(t) = &mut done.tree {
                t.user = u.user;
                t.sys = u.sys;
                if let Some(peak) = u.peak_kb {
                    t.max_rss_kb = peak.max(t.max_single_rss_kb);
                }
            }
            done.oom |= u.oom_kills > 0;
        }
        let log = self
            .log_thread
            .take()
            .map(|t| t.join().unwrap_or_default())
            .unwrap_or_default();
        Ok(Outcome {
            done,
            stdout,
            stderr,
            log,
        })
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // A Running dropped without wait() (an error path): make sure the
        // command and the agent do not outlive us.
        if self.agent.try_wait().ok().flatten().is_none() {
            self.stop();
            let _ = self.agent.wait();
        }
    }
}

/// A connected pair of Unix stream sockets (ours, the command's), each
/// close-on-exec and numbered above 9. A socket, not a pipe: a process
/// cannot reopen another's socket through `/proc/PID/fd` (ENXIO) as it
/// can a pipe.
fn log_socket() -> Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: socketpair fills two fds that we then own; fcntl dups them.
    unsafe {
        if libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        ) != 0
        {
            return Err(std::io::Error::last_os_error()).context("socketpair for the log");
        }
        let pair = (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1]));
        let high = libc::fcntl(pair.1.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 10);
        if high < 0 {
            return Err(std::io::Error::last_os_error()).context("moving the log socket");
        }
        // The command's end only writes: shut its reading side, so that
        // nothing langbench's end might send reaches the command.
        libc::shutdown(pair.0.as_raw_fd(), libc::SHUT_WR);
        Ok((pair.0, OwnedFd::from_raw_fd(high)))
    }
}

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills two fds that we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: fresh fds from pipe2.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

fn capture_head(mut r: impl Read, keep: usize) -> Captured {
    let mut c = Captured::default();
    let mut buf = [0u8; 64 << 10];
    loop {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = keep.saturating_sub(c.bytes.len());
                c.bytes.extend_from_slice(&buf[..n.min(room)]);
                c.total += n as u64;
            }
        }
    }
    c
}

fn capture_tail(mut r: impl Read, keep: usize) -> Captured {
    let mut c = Captured::default();
    let mut buf = [0u8; 64 << 10];
    loop {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                c.bytes.extend_from_slice(&buf[..n]);
                c.total += n as u64;
                if c.bytes.len() > 2 * keep {
                    let cut = c.bytes.len() - keep;
                    c.bytes.drain(..cut);
                }
            }
        }
    }
    if c.bytes.len() > keep {
        let cut = c.bytes.len() - keep;
        c.bytes.drain(..cut);
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_capture_is_bounded_but_counts_everything() {
        let data = vec![b'x'; 3 * 1024];
        let c = capture_head(&data[..], 1000);
        assert_eq!(c.bytes.len(), 1000);
        assert_eq!(c.total, 3072);
        assert!(c.truncated());
    }

    #[test]
    fn tail_capture_keeps_the_end() {
        let mut data = vec![b'a'; 5000];
        data.extend_from_slice(b"the error");
        let c = capture_tail(&data[..], 100);
        assert_eq!(c.bytes.len(), 100);
        assert!(c.text().ends_with("the error"));
    }
}
