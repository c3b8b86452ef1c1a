//! The spawn agent: the tiny process that forks every measured command.
//!
//! langbench re-executes its own binary as `langbench __spawn ...`. That fresh
//! process holds only a few hundred KB, and *it* forks the measured command.
//! On Linux a child's `ru_maxrss` starts at the high-water mark of the address
//! space it was forked from (the kernel folds the old mm's peak in at exec), so
//! forking from langbench itself would add langbench's own RSS to every figure.
//!
//! The agent:
//! - puts the command in its own process group and execs it without a shell;
//! - waits for it with `wait4`, timing wall time on the monotonic clock;
//! - enforces the timeout by killing the whole group;
//! - on SIGTERM/SIGINT/SIGHUP forwards SIGTERM to the group and SIGKILLs it
//!   after the grace period (that is how servers are stopped);
//! - is a child subreaper, and after the command ends kills and reaps every
//!   process it left behind (group members and daemonized orphans alike);
//! - dies with langbench (PR_SET_PDEATHSIG), cleaning up the same way.
//!
//! It reports on fd 3, one line per event (see `Report` in `report.rs`):
//! `pid <pid>` once the command runs, then the final `done ...` line.
//!
//! Everything is allocated before `fork`, and nothing big is ever allocated,
//! so the agent's own footprint stays close to that of `/usr/bin/time`.

use std::ffi::{CString, OsString};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use super::procstat::Stat;
use super::report::{BadReport, Done, Ended, Report};

/// The agent's report fd as langbench sets it up.
pub(crate) const REPORT_FD: i32 = 3;

/// Where `report` writes: fd 3 in an agent process, a pipe when the agent's
/// work runs inside langbench itself (`run_here`).
static REPORT_TO: AtomicI32 = AtomicI32::new(REPORT_FD);

pub(crate) fn report_fd() -> i32 {
    REPORT_TO.load(Ordering::Relaxed)
}

pub(crate) struct Args {
    pub cpus: Vec<usize>,
    pub timeout_ms: u64,
    pub grace_ms: u64,
    pub parent: i32,
    pub argv: Vec<CString>,
    /// Own PID (and mount) namespace behind an init of ours (`contain.rs`).
    pub contain: bool,
    /// Also the filesystem/network sandbox.
    pub isolate: bool,
    /// Keep the host's network (ws servers) instead of a private loopback.
    pub net: bool,
    /// Writable directories inside the sandbox.
    pub rw: Vec<PathBuf>,
    /// Directories that must stay readable although under /tmp.
    pub ro: Vec<PathBuf>,
    /// Directories covered by an empty read-only tmpfs.
    pub hide: Vec<PathBuf>,
    /// Directories covered like the homes: what the command is given
    /// inside them is bound back.
    pub masks: Vec<PathBuf>,
    /// HOME inside the sandbox, and the real one whose caches it overlays.
    pub home: Option<PathBuf>,
    pub real_home: Option<PathBuf>,
    /// The host directory bound at `home` (the run's, in its build
    /// directory).
    pub home_dir: Option<PathBuf>,
    /// The command's working directory, entered once the sandbox's mounts
    /// are made (it may exist only there); `None`: the agent's.
    pub cwd: Option<PathBuf>,
    /// Kill the tree when its sampled resident memory passes this (KB).
    pub mem_kb: u64,
    /// The run cgroup's `cgroup.procs`: init moves itself there first.
    pub cgroup_procs: Option<PathBuf>,
    /// KEY=VALUE set for the command only (contained runs: neither the
    /// agent nor init carry the entry's environment).
    pub setenv: Vec<CString>,
    /// langbench itself does the agent's work (`run_here`): nobody needs
    /// the command's pid before the end, so nobody waits for its exec.
    pub here: bool,
    /// The user and group the command runs as (root's sandboxed runs: an
    /// unprivileged user, never the host's root); `None`: unchanged.
    pub ids: Option<(u32, u32)>,
    /// Size of each private tmpfs (/tmp, /dev/shm), KB; 0: the kernel's
    /// default.
    pub tmpfs_kb: u64,
    /// Persistent writable directories bound into HOME (source, target):
    /// the variant's caches.
    pub binds: Vec<(PathBuf, PathBuf)>,
    /// Read-only directories bound into HOME (source, target): toolchains
    /// of the real home that their launchers find through HOME.
    pub ro_binds: Vec<(PathBuf, PathBuf)>,
    /// The bound on the command's processes and threads (RLIMIT_NPROC);
    /// 0: none.
    pub max_procs: u64,
    /// Kill the tree when the filesystems of `watch` lose more than this
    /// (KB) while it runs; 0: no bound.
    pub disk_kb: u64,
    /// Persistent writable directories whose filesystem's free space is
    /// watched (`disk_kb`).
    pub watch: Vec<PathBuf>,
    /// Join this network namespace instead of creating one (a `prepare`
    /// step's, where langbench's registry proxy listens).
    pub netns: Option<PathBuf>,
}

pub(crate) fn parse(args: &[OsString]) -> Result<Args, String> {
    let mut timeout_ms = 0;
    let mut grace_ms = 2000;
    let mut parent = 0;
    let mut cpus = Vec::new();
    let (mut contain, mut isolate, mut net) = (false, false, false);
    let (mut rw, mut ro, mut hide, mut masks) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut home, mut real_home, mut home_dir, mut cwd) = (None, None, None, None);
    let mut mem_kb = 0;
    let mut cgroup_procs = None;
    let mut setenv = Vec::new();
    let mut ids = None;
    let (mut tmpfs_kb, mut max_procs, mut disk_kb) = (0, 0, 0);
    let (mut binds, mut ro_binds, mut watch) = (Vec::new(), Vec::new(), Vec::new());
    let mut netns = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].to_string_lossy();
        let num = |j: usize| -> Result<u64, String> {
            args.get(j)
                .and_then(|v| v.to_str())
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{a} needs a number"))
        };
        let path = |j: usize| -> Result<PathBuf, String> {
            args.get(j)
                .map(PathBuf::from)
                .ok_or_else(|| format!("{a} needs a path"))
        };
        match a.as_ref() {
            "--bind" | "--ro-bind" => {
                let pair = (path(i + 1)?, path(i + 2)?);
                if a == "--bind" {
                    binds.push(pair);
                } else {
                    ro_binds.push(pair);
                }
                i += 3;
                continue;
            }
            "--ids" => {
                let (uid, gid) = (num(i + 1)?, num(i + 2)?);
                ids = Some((uid as u32, gid as u32));
                i += 3;
                continue;
            }
            "--contain" | "--isolate" | "--net" => {
                match a.as_ref() {
                    "--contain" => contain = true,
                    "--isolate" => isolate = true,
                    _ => net = true,
                }
                i += 1;
                continue;
            }
            "--rw" => rw.push(path(i + 1)?),
            "--hide" => hide.push(path(i + 1)?),
            "--mask" => masks.push(path(i + 1)?),
            "--ro" => ro.push(path(i + 1)?),
            "--home" => home = Some(path(i + 1)?),
            "--real-home" => real_home = Some(path(i + 1)?),
            "--home-dir" => home_dir = Some(path(i + 1)?),
            "--cwd" => cwd = Some(path(i + 1)?),
            "--mem-kb" => mem_kb = num(i + 1)?,
            "--tmpfs-kb" => tmpfs_kb = num(i + 1)?,
            "--max-procs" => max_procs = num(i + 1)?,
            "--disk-kb" => disk_kb = num(i + 1)?,
            "--watch" => watch.push(path(i + 1)?),
            "--netns" => netns = Some(path(i + 1)?),
            "--cgroup-procs" => cgroup_procs = Some(path(i + 1)?),
            "--setenv" => setenv.push(
                args.get(i + 1)
                    .and_then(|v| CString::new(v.as_bytes()).ok())
                    .ok_or("--setenv needs KEY=VALUE")?,
            ),
            "--timeout-ms" => timeout_ms = num(i + 1)?,
            "--grace-ms" => grace_ms = num(i + 1)?,
            "--parent" => parent = num(i + 1)? as i32,
            "--cpus" => {
                cpus = args
                    .get(i + 1)
                    .and_then(|v| v.to_str())
                    .map(|v| {
                        v.split(',')
                            .map(str::parse)
                            .collect::<Result<Vec<usize>, _>>()
                    })
                    .and_then(Result::ok)
                    .filter(|c| c.iter().all(|&c| c < libc::CPU_SETSIZE as usize))
                    .ok_or("--cpus needs a list like 0,1 of CPUs below CPU_SETSIZE")?;
            }
            "--" => {
                let argv = args[i + 1..]
                    .iter()
                    .map(|s| CString::new(s.as_bytes()).map_err(|_| "NUL in argument".to_string()))
                    .collect::<Result<Vec<_>, _>>()?;
                if argv.is_empty() {
                    return Err("no command after --".into());
                }
                return Ok(Args {
                    cpus,
                    timeout_ms,
                    grace_ms,
                    parent,
                    argv,
                    contain: contain || isolate,
                    isolate,
                    net,
                    rw,
                    ro,
                    hide,
                    masks,
                    home,
                    real_home,
                    home_dir,
                    cwd,
                    mem_kb,
                    cgroup_procs,
                    setenv,
                    here: false,
                    ids,
                    tmpfs_kb,
                    binds,
                    ro_binds,
                    max_procs,
                    disk_kb,
                    watch,
                    netns,
                });
            }
            other => return Err(format!("unknown agent argument {other}")),
        }
        i += 2;
    }
    Err("missing -- COMMAND".into())
}

pub(crate) fn now_ns() -> u128 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u128 * 1_000_000_000 + ts.tv_nsec as u128
}

pub(crate) fn report(line: &str) {
    // fd 3 is set up by langbench; writing the whole line at once keeps
    // lines atomic (they are far below PIPE_BUF).
    // SAFETY: plain write(2) of a valid buffer.
    unsafe { libc::write(report_fd(), line.as_ptr().cast(), line.len()) };
}

/// Writes one report line.
pub(crate) fn send(r: &Report) {
    report(&format!("{r}\n"));
}

/// The parent's side of fork + exec, shared by the plain agent and the
/// contained init: puts the command in its own process group, waits for
/// the exec's outcome (the close-on-exec `errpipe` closes on success, or
/// carries the child's errno), and reports `pid N` or why it could not
/// start. `false`: it did not start (already reaped).
///
/// With `late` it neither waits nor reports: `exec_failed` reads the
/// outcome once the command has been reaped. That spares the parent one
/// sleep and wake-up per run, which on a busy CPU is a turn given to
/// every other runnable process (`langbench measure`'s case).
///
/// # Safety
/// `pid` is the child just forked, `errpipe` the pipe it was given.
pub(crate) unsafe fn confirm_exec(
    pid: i32,
    errpipe: [i32; 2],
    argv0: &CString,
    late: bool,
) -> bool {
    // SAFETY: plain syscalls on our own child and pipe.
    unsafe {
        libc::setpgid(pid, pid);
        libc::close(errpipe[1]);
        if late {
            return true;
        }
        if exec_failed(errpipe[0], argv0) {
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0);
            return false;
        }
        send(&Report::Pid(pid));
        true
    }
}

/// Reads the exec's outcome from the read end of `errpipe` (blocking
/// until the exec or the child's end) and closes it; `true` (reported as
/// an error) if the command could not be executed.
///
/// # Safety
/// `errfd` is the read end of the pipe whose write end the child holds.
pub(crate) unsafe fn exec_failed(errfd: i32, argv0: &CString) -> bool {
    // SAFETY: plain syscalls on our own pipe.
    unsafe {
        let mut e: i32 = 0;
        let n = libc::read(errfd, (&mut e as *mut i32).cast(), 4);
        libc::close(errfd);
        if n != 4 {
            return false;
        }
        let msg = std::io::Error::from_raw_os_error(e);
        send(&Report::Error(format!(
            "cannot execute {}: {msg}",
            argv0.to_string_lossy()
        )));
        true
    }
}

pub(crate) fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// Entry point of `langbench __spawn`. Never returns.
pub fn main(args: &[OsString]) -> ! {
    let args = match parse(args) {
        Ok(a) => a,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "langbench __spawn: {e}");
            send(&Report::Error(e));
            std::process::exit(2);
        }
    };
    std::process::exit(serve(args))
}

/// The agent's work done by the calling process itself: it forks the
/// command (or, contained, unshares and forks init) and returns its final
/// report (`done ...`) or why the command did not run. For `langbench
/// measure`, which calls it first thing in `main`, before langbench has
/// touched more memory than the agent would have:
/// the command's peak RSS gets the same floor as from an agent, without
/// the agent's exec.
///
/// Needs a single-threaded caller (fork, unshare) that may become a child
/// subreaper and, contained, enter new namespaces for good. stdin becomes
/// /dev/null, as for an agent.
pub(crate) fn run_here(mut args: Args) -> Result<Done, String> {
    args.parent = 0;
    args.here = true;
    let mut fds = [0i32; 2];
    // SAFETY: plain syscalls on fds we own.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(format!("pipe2 failed: errno {}", errno()));
        }
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        if null >= 0 {
            libc::dup2(null, 0);
            libc::close(null);
        }
    }
    REPORT_TO.store(fds[1], Ordering::Relaxed);
    serve(args);
    REPORT_TO.store(REPORT_FD, Ordering::Relaxed);
    // SAFETY: closing our write end, then reading our pipe to its end.
    let lines = unsafe {
        libc::close(fds[1]);
        let mut out = Vec::new();
        let mut buf = [0u8; 1024];
        loop {
            let n = libc::read(fds[0], buf.as_mut_ptr().cast(), buf.len());
            if n <= 0 {
                break;
            }
            out.extend_from_slice(&buf[..n as usize]);
        }
        libc::close(fds[0]);
        String::from_utf8_lossy(&out).into_owned()
    };
    for line in lines.lines() {
        match line.parse::<Report>() {
            Ok(Report::Done(done)) => return Ok(done),
            Ok(Report::Error(e)) => return Err(e),
            Err(BadReport::Done(e)) => return Err(e.to_string()),
            Ok(Report::Pid(_)) | Err(BadReport::Pid(_) | BadReport::Other) => {}
        }
    }
    Err(format!("the command ended without a report: {lines:?}"))
}

/// The signals the agent (and init) take with `sigtimedwait`.
pub(crate) fn handled_signals() -> libc::sigset_t {
    // SAFETY: sigset manipulation on a value we own.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in [libc::SIGCHLD, libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
            libc::sigaddset(&mut set, s);
        }
        set
    }
}

/// The agent's work: fork the command (contained: unshare and fork init,
/// `contain::agent`), supervise it, sweep what it left behind, report.
/// Returns the agent's exit code.
fn serve(args: Args) -> i32 {
    if !arm(args.parent) {
        // langbench died before we could arm PDEATHSIG.
        return 1;
    }
    let (set, old) = block_signals();
    if args.contain {
        let code = super::contain::agent(args);
        restore_signals(&old);
        return code;
    }
    // SAFETY: single-threaded (an agent, or `run_here`'s caller) with the
    // handled signals blocked, as these require.
    unsafe {
        let Some(cmd) = fork_command(&args, &old) else {
            return 2;
        };
        let waited = supervise(cmd.pid, cmd.t0, &args, &set);
        let leftovers = sweep(cmd.pid);
        restore_signals(&old);
        if args.here && exec_failed(cmd.errfd, &args.argv[0]) {
            return 2;
        }
        send(&Report::Done(waited.done(leftovers)));
    }
    0
}

/// An agent dies with langbench (`parent`); langbench itself (`run_here`,
/// `parent` 0) outlives its own parent, as /usr/bin/time does. Either
/// becomes the reaper of whatever the command orphans. `false`: langbench
/// is gone already.
fn arm(parent: i32) -> bool {
    // SAFETY: prctl and getppid with valid arguments.
    unsafe {
        if parent != 0 {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            if libc::getppid() != parent {
                return false;
            }
        }
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1);
    }
    true
}

/// Blocks the handled signals (they are taken with `sigtimedwait`).
/// Returns them and the mask before.
fn block_signals() -> (libc::sigset_t, libc::sigset_t) {
    let set = handled_signals();
    // SAFETY: sigprocmask with sets we own.
    unsafe {
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigprocmask(libc::SIG_BLOCK, &set, &mut old);
        (set, old)
    }
}

fn restore_signals(old: &libc::sigset_t) {
    // SAFETY: sigprocmask with a set we own.
    unsafe { libc::sigprocmask(libc::SIG_SETMASK, old, std::ptr::null_mut()) };
}

/// The command, started.
struct Forked {
    pid: i32,
    /// When it was forked (monotonic clock, ns).
    t0: u128,
    /// Read end of the exec's error pipe (closed already unless `here`).
    errfd: i32,
}

/// Forks the command into its own process group and execs it, then waits
/// for the exec's outcome (`confirm_exec`). `None` (reported): it did not
/// start.
///
/// # Safety
/// A single-threaded caller with the handled signals blocked; `old` is
/// the mask to restore in the command.
unsafe fn fork_command(args: &Args, old: &libc::sigset_t) -> Option<Forked> {
    // Everything the child needs is allocated before the fork.
    let mut argv_ptrs: Vec<*const libc::c_char> = args.argv.iter().map(|c| c.as_ptr()).collect();
    argv_ptrs.push(std::ptr::null());
    // SAFETY: a zeroed cpu_set_t is the empty set; plain syscalls after.
    unsafe {
        let mut cpuset: libc::cpu_set_t = std::mem::zeroed();
        for &c in &args.cpus {
            libc::CPU_SET(c, &mut cpuset);
        }
        let mut errpipe = [0i32; 2];
        if libc::pipe2(errpipe.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            send(&Report::Error(format!("pipe2 failed: errno {}", errno())));
            return None;
        }
        let t0 = now_ns();
        let pid = libc::fork();
        if pid < 0 {
            send(&Report::Error(format!("fork failed: errno {}", errno())));
            return None;
        }
        if pid == 0 {
            let cpus = (!args.cpus.is_empty()).then_some(&cpuset);
            exec_command(&argv_ptrs, cpus, old, errpipe);
        }
        confirm_exec(pid, errpipe, &args.argv[0], args.here).then_some(Forked {
            pid,
            t0,
            errfd: errpipe[0],
        })
    }
}

/// The command's side of the fork: its own process group, default signal
/// state, pinned to `cpus`, no report fd; then exec. If that fails, the
/// errno goes to the error pipe.
///
/// # Safety
/// Only in the child just forked: async-signal-safe calls, nothing
/// allocated (`argv` is NULL-terminated and was built before the fork).
unsafe fn exec_command(
    argv: &[*const libc::c_char],
    cpus: Option<&libc::cpu_set_t>,
    old: &libc::sigset_t,
    errpipe: [i32; 2],
) -> ! {
    // SAFETY: see above.
    unsafe {
        libc::setpgid(0, 0);
        libc::sigprocmask(libc::SIG_SETMASK, old, std::ptr::null_mut());
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        if let Some(set) = cpus
            && libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) != 0
        {
            let e: i32 = errno();
            libc::write(errpipe[1], (&e as *const i32).cast(), 4);
            libc::_exit(127);
        }
        libc::close(report_fd());
        libc::close(errpipe[0]);
        libc::execvp(argv[0], argv.as_ptr());
        let e: i32 = errno();
        libc::write(errpipe[1], (&e as *const i32).cast(), 4);
        libc::_exit(127);
    }
}

/// What waiting for the command gave (the plain agent's, and init's in
/// `contain`).
pub(crate) struct Waited {
    pub(crate) status: i32,
    pub(crate) rusage: libc::rusage,
    /// Fork to reap.
    pub(crate) wall: Duration,
    pub(crate) timed_out: bool,
    pub(crate) stopped: bool,
}

impl Waited {
    /// The command's own figures (`wait4`): the plain agent's whole
    /// report; `contain`'s init adds the tree's.
    pub(crate) fn done(&self, leftovers: u32) -> Done {
        Done {
            exit: Ended::from_wait_status(self.status),
            wall: self.wall,
            user: micros(self.rusage.ru_utime),
            sys: micros(self.rusage.ru_stime),
            max_rss_kb: self.rusage.ru_maxrss as u64,
            timed_out: self.timed_out,
            stopped: self.stopped,
            leftovers,
            tree: None,
            oom: false,
            escaped: false,
            forked_after: 0,
            bounds: super::report::Bounds::default(),
        }
    }
}

/// A rusage time.
pub(crate) fn micros(t: libc::timeval) -> Duration {
    Duration::from_micros(t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64)
}

/// Waits for the command (`wait4`, for its rusage). At the timeout it
/// kills the command's group; on a stop request (SIGTERM, SIGINT, SIGHUP)
/// it sends the group SIGTERM, then SIGKILL after the grace period.
///
/// # Safety
/// `pid` is our child, forked at `t0`; `set` holds the handled signals,
/// blocked.
unsafe fn supervise(pid: i32, t0: u128, args: &Args, set: &libc::sigset_t) -> Waited {
    let deadline = (args.timeout_ms > 0).then(|| t0 + args.timeout_ms as u128 * 1_000_000);
    let mut kill_deadline: Option<u128> = None;
    let mut timed_out = false;
    let mut stopped = false;
    // SAFETY: wait4 on our child into values we own, kill on its group.
    unsafe {
        let mut rusage: libc::rusage = std::mem::zeroed();
        let mut status = 0;
        loop {
            let r = libc::wait4(pid, &mut status, libc::WNOHANG, &mut rusage);
            if r == pid {
                let wall = Duration::from_nanos((now_ns() - t0) as u64);
                return Waited {
                    status,
                    rusage,
                    wall,
                    timed_out,
                    stopped,
                };
            }
            let now = now_ns();
            if let Some(d) = deadline
                && !timed_out
                && now >= d
            {
                timed_out = true;
                libc::kill(-pid, libc::SIGKILL);
            }
            if let Some(k) = kill_deadline
                && now >= k
            {
                libc::kill(-pid, libc::SIGKILL);
                kill_deadline = None;
            }
            // Sleep until a signal arrives or the nearest deadline passes.
            let mut wake = now + 1_000_000_000;
            for d in [deadline.filter(|_| !timed_out), kill_deadline]
                .into_iter()
                .flatten()
            {
                wake = wake.min(d);
            }
            let sig = wait_signal(set, wake.saturating_sub(now).max(100_000));
            if is_stop_request(sig) && !stopped {
                stopped = true;
                libc::kill(-pid, libc::SIGTERM);
                kill_deadline = Some(now_ns() + args.grace_ms as u128 * 1_000_000);
            }
        }
    }
}

/// Waits up to `wait_ns` for one of the (blocked) signals of `set`: the
/// signal taken, or -1 when none came.
fn wait_signal(set: &libc::sigset_t, wait_ns: u128) -> i32 {
    let ts = libc::timespec {
        tv_sec: (wait_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (wait_ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: sigtimedwait into a siginfo we own.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        libc::sigtimedwait(set, &mut info, &ts)
    }
}

/// How langbench asks the agent to stop the command.
fn is_stop_request(sig: i32) -> bool {
    sig == libc::SIGTERM || sig == libc::SIGINT || sig == libc::SIGHUP
}

/// Kills and reaps everything the command left behind: members of its
/// process group, and (because we are a subreaper) any orphaned descendant,
/// including ones that called setsid() to daemonize. Returns how many
/// processes had to be killed.
fn sweep(pgid: i32) -> u32 {
    if nothing_left(pgid) {
        return 0;
    }
    let me = std::process::id() as i32;
    // Each process counted once: one killed in an earlier round may still
    // be found in the next (SIGKILL is pending until it is scheduled to
    // die, which on a loaded machine can take longer than a round).
    let mut killed = std::collections::HashSet::new();
    for _round in 0..200 {
        let mut found = false;
        for (pid, ppid, pgrp) in processes() {
            if pgrp == pgid || ppid == me {
                found = true;
                // A zombie child of ours is reaped below, not counted.
                if !is_zombie(pid) {
                    killed.insert(pid);
                }
                // SAFETY: signalling a pid we just found.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
        // Reap whatever has died (our own children, and reparented orphans).
        loop {
            let mut st = 0;
            // SAFETY: plain waitpid.
            let r = unsafe { libc::waitpid(-1, &mut st, libc::WNOHANG) };
            if r <= 0 {
                break;
            }
        }
        if !found {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    killed.len() as u32
}

/// Whether the command left nothing behind, known without reading every
/// process's /proc entry (which costs more than running `true` on a busy
/// machine): its process group is empty and we have no child. Every
/// process it left is one or the other: an orphan is reparented to us (a
/// subreaper) before `wait4` returns the command, and every other
/// descendant has a live parent in the group or among our children.
/// `false` when unsure (no /proc/thread-self/children).
fn nothing_left(pgid: i32) -> bool {
    // SAFETY: signal 0 only checks that the group exists.
    let group_gone = unsafe { libc::kill(-pgid, 0) } != 0 && errno() == libc::ESRCH;
    group_gone && no_child()
}

/// Whether the calling thread has no child, alive or zombie: `waitid`
/// fails with ECHILD exactly then (`__WNOTHREAD`: this thread's children
/// only; `WNOWAIT`: a zombie stays to be reaped). One system call, where
/// reading /proc/thread-self/children costs a lookup in init's fresh /proc
/// on every contained run.
pub(crate) fn no_child() -> bool {
    // SAFETY: waitid with a valid siginfo buffer; WNOHANG never blocks.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        libc::waitid(
            libc::P_ALL,
            0,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT | libc::__WNOTHREAD,
        ) != 0
            && errno() == libc::ECHILD
    }
}

fn is_zombie(pid: i32) -> bool {
    Stat::of(pid).is_some_and(|s| s.is_zombie())
}

/// (pid, ppid, pgrp) of every process.
fn processes() -> Vec<(i32, i32, i32)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| Stat::of(pid).map(|s| (pid, s.ppid, s.pgrp)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::parse;
    use std::ffi::OsString;

    fn args(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    #[test]
    fn cpus_past_cpu_setsize_are_an_error_not_a_panic() {
        let ok = parse(&args(&["--cpus", "0,1", "--", "true"])).unwrap();
        assert_eq!(ok.cpus, vec![0, 1]);
        let big = (libc::CPU_SETSIZE as usize).to_string();
        for bad in ["9999", big.as_str(), "0,x", ""] {
            let e = parse(&args(&["--cpus", bad, "--", "true"])).err();
            assert!(
                e.as_deref().is_some_and(|e| e.contains("--cpus needs")),
                "--cpus {bad:?}: {e:?}"
            );
        }
    }
}
