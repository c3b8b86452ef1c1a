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
//! It reports on fd 3, one line per event (see `Event` in `event.rs`):
//! `pid <pid>` once the command runs, then the final `done ...` line.
//!
//! Everything is allocated before `fork`, and nothing big is ever allocated,
//! so the agent's own footprint stays close to that of `/usr/bin/time`.

use std::ffi::OsString;
use std::io::Write;
use std::time::Duration;

use super::event::{BadEvent, Event};
use super::kit::{
    Args, EVENT_FD, Waited, confirm_exec, errno, event_fd, events_to, exec_failed, handled_signals,
    no_child, now_ns, parse, send,
};
use super::outcome::Done;
use super::procstat::Stat;

/// Entry point of `langbench __spawn`. Never returns.
pub fn main(args: &[OsString]) -> ! {
    let args = match parse(args) {
        Ok(a) => a,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "langbench __spawn: {e}");
            send(&Event::Error(e));
            std::process::exit(2);
        }
    };
    std::process::exit(serve(args))
}

/// The agent's work done by the calling process itself: it forks the
/// command (or, contained, unshares and forks init) and returns its final
/// event (`done ...`) or why the command did not run. For `langbench
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
    events_to(fds[1]);
    serve(args);
    events_to(EVENT_FD);
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
        match line.parse::<Event>() {
            Ok(Event::Done(done)) => return Ok(done),
            Ok(Event::Error(e)) => return Err(e),
            Err(BadEvent::Done(e)) => return Err(e.to_string()),
            Ok(Event::Pid(_)) | Err(BadEvent::Pid(_) | BadEvent::Other) => {}
        }
    }
    Err(format!("the command ended without a report: {lines:?}"))
}

/// The agent's work: fork the command (contained: unshare and fork init,
/// `contain::agent`), supervise it, sweep what it left behind, send the `done` line.
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
        send(&match waited.done(leftovers) {
            Ok(done) => Event::Done(done),
            Err(why) => Event::Error(why),
        });
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
            send(&Event::Error(format!("pipe2 failed: errno {}", errno())));
            return None;
        }
        let t0 = now_ns();
        let pid = libc::fork();
        if pid < 0 {
            send(&Event::Error(format!("fork failed: errno {}", errno())));
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
/// state, pinned to `cpus`, no event fd; then exec. If that fails, the
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
        libc::close(event_fd());
        libc::close(errpipe[0]);
        libc::execvp(argv[0], argv.as_ptr());
        let e: i32 = errno();
        libc::write(errpipe[1], (&e as *const i32).cast(), 4);
        libc::_exit(127);
    }
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
