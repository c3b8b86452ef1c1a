//! init, pid 1 of the namespace: starts the command, watches it (the
//! timeout, a stop request and its grace period, the memory, task, CPU and
//! disk bounds on the sampled tree), then counts, kills and reaps what it
//! left behind (a fork-walker among it) and sends the `done` line with the
//! whole tree's figures.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::Duration;

use super::super::escape::{WALK_MIN_NEW, WALK_WATCH_MS};
use super::super::event::Event;
use super::super::kit::{
    Args, PASS_FD, Waited, confirm_exec, errno, event_fd, exec_failed, micros, no_child, now_ns,
    send, write_line,
};
use super::super::outcome::{Bounds, Done, TreeUsage};
use super::super::procstat::Stat;
use super::disk::{DiskWatch, Past};
use super::view::{cstr, set_up_mounts};

/// Interval of the tree's memory sampling (and of the memory limit check).
const SAMPLE_NS: u128 = 50_000_000;

/// pid 1 of the namespace. Never returns normally: its exit code goes to
/// `_exit`, and its exit makes the kernel kill the rest of the namespace.
///
/// Its steps, in this order: the namespace's filesystem; everything the
/// command's side of the fork needs, allocated before it; the command
/// started; watched until it ends; what it left behind counted, killed and
/// reaped; the `done` line. A step that fails has said why.
pub(super) unsafe fn init_main(args: &Args, set: &libc::sigset_t) -> i32 {
    // SAFETY: see `agent`.
    unsafe {
        // Opened before the mounts cover the host's paths.
        let disk = DiskWatch::open(args);
        if !set_up_mounts(args) {
            return 2;
        }
        // Lives until init ends (as the locals it was made of did): init
        // frees none of it while the command runs.
        let exec = Exec::new(args);
        let Some(started) = start_command(args, &exec) else {
            return 2;
        };
        let mut watch = Watch::new(args, &started, disk);
        watch.until_the_command_ends(args, set);
        let after = watch.clear_the_namespace(args);
        if args.here && exec_failed(started.errfd, &args.argv[0]) {
            return 2;
        }
        watch.send_done(args, &after);
        0
    }
}

/// Makes the command an unprivileged process for good: no capabilities
/// (bounding and ambient sets dropped), no new privileges, and, when init
/// runs as the host's root, the sandbox's user and group (`ids`) with no
/// supplementary groups, so that files checked by owner rather than by
/// capability (/proc/sys, /etc/shadow, root's 0600 files, root-only
/// sockets and devices) refuse it. Called in the command's child before
/// exec; async-signal-safe syscalls only. `false`: a step failed (the
/// caller reports errno and does not exec).
unsafe fn drop_privileges(ids: Option<(u32, u32)>) -> bool {
    // SAFETY: prctl/setgroups/setres[ug]id/capset with valid arguments.
    unsafe {
        // The bounding set needs CAP_SETPCAP: before the uid changes.
        for cap in 0..64 {
            libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        if let Some((uid, gid)) = ids
            && (libc::setgroups(0, std::ptr::null()) != 0
                || libc::setresgid(gid, gid, gid) != 0
                || libc::setresuid(uid, uid, uid) != 0)
        {
            return false;
        }
        #[repr(C)]
        struct Header {
            version: u32,
            pid: i32,
        }
        #[repr(C)]
        struct Data {
            effective: u32,
            permitted: u32,
            inheritable: u32,
        }
        let h = Header {
            version: 0x2008_0522, // _LINUX_CAPABILITY_VERSION_3
            pid: 0,
        };
        let d = [
            Data {
                effective: 0,
                permitted: 0,
                inheritable: 0,
            },
            Data {
                effective: 0,
                permitted: 0,
                inheritable: 0,
            },
        ];
        libc::syscall(libc::SYS_capset, &h as *const Header, d.as_ptr());
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
    }
}

/// Closes every descriptor from `from` up, but `keep` (async-signal-safe:
/// `close_range(2)`, Linux 5.9). Descriptors langbench's own parent left
/// open (a CI runner's, a make jobserver's, a directory of the host) never
/// reach the command.
pub(super) fn close_from(from: i32, keep: Option<i32>) {
    // SAFETY: close_range on descriptor numbers; nothing is dereferenced.
    unsafe {
        match keep {
            Some(k) if k >= from => {
                if k > from {
                    libc::syscall(libc::SYS_close_range, from as u32, (k - 1) as u32, 0u32);
                }
                libc::syscall(libc::SYS_close_range, (k + 1) as u32, u32::MAX, 0u32);
            }
            _ => {
                libc::syscall(libc::SYS_close_range, from as u32, u32::MAX, 0u32);
            }
        }
    }
}

/// Closes every descriptor from `from` up but `a` and `b`
/// (async-signal-safe, as [`close_from`]).
fn close_except(from: i32, a: i32, b: i32) {
    let (lo, hi) = (a.min(b), a.max(b));
    if lo < from {
        return close_from(from, Some(hi));
    }
    // SAFETY: close_range on descriptor numbers; nothing is dereferenced.
    unsafe {
        if lo > from {
            libc::syscall(libc::SYS_close_range, from as u32, (lo - 1) as u32, 0u32);
        }
        if hi > lo + 1 {
            libc::syscall(
                libc::SYS_close_range,
                (lo + 1) as u32,
                (hi - 1) as u32,
                0u32,
            );
        }
    }
    close_from(hi + 1, None);
}

/// One look at the namespace (init excluded): what its processes hold
/// resident plus what its private tmpfs hold (files there are memory that
/// is in no process's RSS), how many tasks (processes and threads) it
/// has, and whether one of them may run outside `--cpus`.
#[derive(Debug, Default, Clone, Copy)]
struct Sample {
    memory_kb: u64,
    tasks: u64,
    widened: bool,
}

/// Takes a [`Sample`]. Shared pages count once per process (as in `ps`),
/// so the memory can overstate a tree that shares a lot. `allowed`: the
/// `--cpus` set, whose every task's affinity is checked.
fn sample_tree(args: &Args, allowed: Option<&libc::cpu_set_t>) -> Sample {
    let mut s = Sample {
        memory_kb: tmpfs_used_kb(args),
        ..Sample::default()
    };
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return s;
    };
    // SAFETY: sysconf cannot fail for _SC_PAGESIZE.
    let page_kb = (unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as u64 / 1024).max(1);
    let mut buf = [0u8; 1024];
    for e in dir.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        if pid == 1 {
            continue;
        }
        let Some(stat) = read_small(&format!("/proc/{pid}/stat\0"), &mut buf) else {
            continue;
        };
        // After the command name's closing parenthesis: field 3 (state)
        // on, so num_threads (20) is the 18th and rss (24) the 22nd.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let field = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
        s.tasks += field(17).unwrap_or(1);
        s.memory_kb += field(21).unwrap_or(0) * page_kb;
        if let Some(allowed) = allowed
            && !s.widened
        {
            s.widened = left_cpus(pid, allowed);
        }
    }
    s
}

/// Reads a small /proc file whole into `buf` (no allocation for the
/// read); `path` ends with a NUL.
fn read_small<'a>(path: &str, buf: &'a mut [u8]) -> Option<&'a str> {
    // SAFETY: open/read/close with a NUL-terminated path and our buffer.
    let n = unsafe {
        let fd = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return None;
        }
        let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
        libc::close(fd);
        n
    };
    (n > 0).then(|| std::str::from_utf8(&buf[..n as usize]).unwrap_or(""))
}

/// Whether a task of process `pid` may run on a CPU outside `allowed`
/// (affinity is per thread: every task is asked).
fn left_cpus(pid: i32, allowed: &libc::cpu_set_t) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    for t in tasks.flatten() {
        let Some(tid) = t.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        // SAFETY: sched_getaffinity into a set we own; CPU_ISSET reads sets.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
                continue;
            }
            for cpu in 0..libc::CPU_SETSIZE as usize {
                if libc::CPU_ISSET(cpu, &set) && !libc::CPU_ISSET(cpu, allowed) {
                    return true;
                }
            }
        }
    }
    false
}

/// KB in use on a filesystem (`statvfs`), and KB free; `None` if it
/// cannot be asked.
fn usage_kb(path: &Path) -> Option<(u64, u64)> {
    // SAFETY: statvfs into a struct we own, with a NUL-terminated path.
    unsafe {
        let mut st: libc::statvfs = std::mem::zeroed();
        if libc::statvfs(cstr(path).as_ptr(), &mut st) != 0 {
            return None;
        }
        let kb = |blocks: u64| blocks * st.f_frsize / 1024;
        Some((kb(st.f_blocks - st.f_bfree), kb(st.f_bavail)))
    }
}

/// What the private tmpfs of a sandboxed run hold (KB): /tmp and
/// /dev/shm.
fn tmpfs_used_kb(args: &Args) -> u64 {
    if !args.isolate {
        return 0;
    }
    [Path::new("/tmp"), Path::new("/dev/shm")]
        .into_iter()
        .filter_map(usage_kb)
        .map(|(used, _)| used)
        .sum()
}

/// Processes of the namespace still alive besides init (zombies excluded).
fn alive_in_namespace() -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid != 1)
        .filter(|&pid| Stat::of(pid).is_some_and(|s| s.is_alive()))
        .collect()
}

/// Processes a command left running (`left`, pids) are watched for
/// `WALK_WATCH_MS`: an idle daemon (Erlang's epmd) starts nothing, a
/// fork-walker (fork, parent exits, child forks again: the shape that
/// outran the old sweep) keeps starting new processes. Returns how many new
/// processes appeared (alive at the end, or reaped meanwhile), counting up
/// to `WALK_MIN_NEW` at least.
unsafe fn walkers(left: &[i32]) -> usize {
    let until = now_ns() + WALK_WATCH_MS as u128 * 1_000_000;
    let mut new: Vec<i32> = Vec::new();
    // SAFETY: waitpid/nanosleep with valid arguments.
    unsafe {
        loop {
            loop {
                let mut st = 0;
                let r = libc::waitpid(-1, &mut st, libc::WNOHANG);
                if r <= 0 {
                    break;
                }
                if !left.contains(&r) && !new.contains(&r) {
                    new.push(r);
                }
            }
            if now_ns() >= until || new.len() >= WALK_MIN_NEW {
                break;
            }
            let ts = libc::timespec {
                tv_sec: 0,
                tv_nsec: 2_000_000,
            };
            libc::nanosleep(&ts, std::ptr::null_mut());
        }
    }
    for p in alive_in_namespace() {
        if !left.contains(&p) && !new.contains(&p) {
            new.push(p);
        }
    }
    new.len()
}

/// Overwrites the command line init inherited from the agent (`langbench
/// __spawn ... --hide RESULTS ... -- COMMAND`), which any process of the
/// namespace could read as /proc/1/cmdline, with `langbench-init`. The
/// kernel shows whatever lies between the process's `arg_start` and
/// `arg_end` (from /proc/self/stat), so zeroing it there is enough; unlike
/// `PR_SET_MM_ARG_START` it needs no capability. Init's copy of the memory
/// is its own after the fork (the agent keeps its arguments).
pub(super) fn hide_cmdline() {
    let Some(Stat {
        arg_start: Some(start),
        arg_end: Some(end),
        ..
    }) = Stat::of_self()
    else {
        return;
    };
    if end <= start {
        return;
    }
    let name = b"langbench-init";
    // SAFETY: [arg_start, arg_end) is this process's own argument area on
    // its stack, mapped writable; nothing reads it after the agent parsed
    // its arguments (they were copied into `Args`).
    unsafe {
        let p = start as *mut u8;
        std::ptr::write_bytes(p, 0, end - start);
        std::ptr::copy_nonoverlapping(name.as_ptr(), p, name.len().min(end - start - 1));
        libc::prctl(libc::PR_SET_NAME, c"langbench-init".as_ptr());
    }
}

/// What the command's side of the fork execs with: built before the fork,
/// since that side may not allocate. The fields drop in the order the
/// locals they replace did (`envp` first, `argv` last).
struct Exec<'a> {
    envp: Vec<*const libc::c_char>,
    /// Owns the inherited `KEY=VALUE` strings `envp` points to.
    _inherited: Vec<CString>,
    /// The keys the entry sets (they replace inherited ones).
    _keys: Vec<&'a [u8]>,
    argv: Vec<*const libc::c_char>,
    cpuset: libc::cpu_set_t,
}

impl<'a> Exec<'a> {
    fn new(args: &'a Args) -> Exec<'a> {
        let mut argv: Vec<*const libc::c_char> = args.argv.iter().map(|c| c.as_ptr()).collect();
        argv.push(std::ptr::null());
        // The command's environment: ours, with the entry's on top.
        let keys: Vec<&[u8]> = args
            .setenv
            .iter()
            .filter_map(|kv| kv.as_bytes().split(|&b| b == b'=').next())
            .collect();
        let inherited: Vec<CString> = std::env::vars_os()
            .filter(|(k, _)| !keys.contains(&k.as_bytes()))
            .filter_map(|(k, v)| {
                let mut kv = k.as_bytes().to_vec();
                kv.push(b'=');
                kv.extend_from_slice(v.as_bytes());
                CString::new(kv).ok()
            })
            .collect();
        let mut envp: Vec<*const libc::c_char> = inherited
            .iter()
            .chain(&args.setenv)
            .map(|c| c.as_ptr())
            .collect();
        envp.push(std::ptr::null());
        // SAFETY: an all-zero cpu_set_t is the empty set; CPU_SET on it.
        let cpuset = unsafe {
            let mut cpuset: libc::cpu_set_t = std::mem::zeroed();
            for &c in &args.cpus {
                libc::CPU_SET(c, &mut cpuset);
            }
            cpuset
        };
        Exec {
            envp,
            _inherited: inherited,
            _keys: keys,
            argv,
            cpuset,
        }
    }
}

/// The command, started.
struct Started {
    pid: i32,
    /// Just before the fork (ns, monotonic): its wall time starts here.
    t0: u128,
    /// The read end of the exec-error pipe: still open with `args.here`,
    /// whose exec's outcome is read once the command has ended (see
    /// `confirm_exec`).
    errfd: i32,
}

/// Forks the command and has its exec confirmed (see `confirm_exec`).
/// `None`: it did not start (reported).
unsafe fn start_command(args: &Args, exec: &Exec) -> Option<Started> {
    // SAFETY: pipe2 and fork; the child only runs `exec_command`.
    unsafe {
        let mut errpipe = [0i32; 2];
        if libc::pipe2(errpipe.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            write_line(&format!("error pipe2 failed: errno {}\n", errno()));
            return None;
        }
        let t0 = now_ns();
        let pid = libc::fork();
        if pid < 0 {
            write_line(&format!("error fork failed: errno {}\n", errno()));
            return None;
        }
        if pid == 0 {
            exec_command(args, exec, errpipe);
        }
        if !confirm_exec(pid, errpipe, &args.argv[0], args.here) {
            return None;
        }
        Some(Started {
            pid,
            t0,
            errfd: errpipe[0],
        })
    }
}

/// The command's side of the fork: its own process group, the default
/// signal state, its CPUs, no capabilities in the sandbox, no event fd,
/// then exec; a failure's errno goes into `errpipe`. Async-signal-safe
/// calls only and nothing allocated: everything it needs is in `exec`.
unsafe fn exec_command(args: &Args, exec: &Exec, errpipe: [i32; 2]) -> ! {
    // SAFETY: async-signal-safe syscalls with valid arguments.
    unsafe {
        libc::setpgid(0, 0);
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::prctl(libc::PR_SET_PDEATHSIG, 0);
        if !args.cpus.is_empty()
            && libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &exec.cpuset) != 0
        {
            let e: i32 = errno();
            libc::write(errpipe[1], (&e as *const i32).cast(), 4);
            libc::_exit(127);
        }
        libc::close(event_fd());
        libc::close(errpipe[0]);
        // A work count's log socket, at the number valgrind is told
        // (`--log-fd`), in valgrind's reserved range where its client
        // cannot write, close or dup it (see `cachegrind`).
        let pass = match args.pass_fd {
            Some(n) if n != PASS_FD && n != errpipe[1] => {
                if libc::dup2(PASS_FD, n) != n {
                    let e: i32 = errno();
                    libc::write(errpipe[1], (&e as *const i32).cast(), 4);
                    libc::_exit(127);
                }
                libc::close(PASS_FD);
                n
            }
            _ => -1,
        };
        if args.isolate {
            if pass >= 0 {
                close_except(3, errpipe[1], pass);
            } else {
                close_from(3, Some(errpipe[1]));
            }
            if args.max_procs > 0 {
                let lim = libc::rlimit {
                    rlim_cur: args.max_procs,
                    rlim_max: args.max_procs,
                };
                libc::setrlimit(libc::RLIMIT_NPROC, &lim);
            }
            if !drop_privileges(args.ids) {
                let e: i32 = errno();
                libc::write(errpipe[1], (&e as *const i32).cast(), 4);
                libc::_exit(127);
            }
        }
        libc::execvpe(exec.argv[0], exec.argv.as_ptr(), exec.envp.as_ptr());
        let e: i32 = errno();
        libc::write(errpipe[1], (&e as *const i32).cast(), 4);
        libc::_exit(127);
    }
}

/// init's watch over the running command (the timeout, a stop request and
/// its grace period, the memory limit on the sampled tree) and what it saw:
/// the `done` line's figures.
struct Watch {
    pid: i32,
    t0: u128,
    /// When the timeout passes (none without one).
    deadline: Option<u128>,
    /// After a stop request: when its grace period ends.
    kill_deadline: Option<u128>,
    next_sample: u128,
    /// When the command was reaped (0: not yet), its wait status and rusage.
    t1: u128,
    status: i32,
    rusage: libc::rusage,
    timed_out: bool,
    stopped: bool,
    oom: bool,
    /// The largest sampled sum of the tree's resident memory (KB).
    peak_tree: u64,
    /// Processes besides the command that the timeout killed.
    killed_early: u32,
    /// `--cpus`, whose every task's affinity each sample checks.
    allowed: Option<libc::cpu_set_t>,
    /// The most tasks (processes and threads) a sample saw.
    peak_tasks: u64,
    /// A task could run outside `--cpus`.
    widened: bool,
    /// What the run writes to the host's disk (none without a bound).
    disk: Option<DiskWatch>,
    /// Killed for writing more than `--disk-kb` or creating more than
    /// `--disk-files` there.
    disk_killed: Option<Past>,
}

/// What the namespace held besides the command, once it ended.
struct Aftermath {
    /// Processes still running when the command ended (or at the timeout).
    leftovers: u32,
    /// New processes they started while watched (see `walkers`).
    walked: usize,
    /// init's RUSAGE_CHILDREN: the whole tree's CPU time.
    tree: libc::rusage,
    /// The largest peak of any one process of the tree (KB).
    single: u64,
}

impl Watch {
    fn new(args: &Args, started: &Started, disk: Option<DiskWatch>) -> Watch {
        let t0 = started.t0;
        Watch {
            pid: started.pid,
            t0,
            deadline: (args.timeout_ms > 0).then(|| t0 + args.timeout_ms as u128 * 1_000_000),
            kill_deadline: None,
            // The first sample after 50 ms: one at the fork would only see
            // the command as a copy of init, less than its own peak
            // (`single`).
            next_sample: t0 + SAMPLE_NS,
            t1: 0,
            status: 0,
            // SAFETY: rusage is plain data; all zeros is a valid value.
            rusage: unsafe { std::mem::zeroed() },
            timed_out: false,
            stopped: false,
            oom: false,
            peak_tree: 0,
            killed_early: 0,
            allowed: (!args.cpus.is_empty()).then(|| {
                // SAFETY: an all-zero cpu_set_t is the empty set; CPU_SET
                // with CPUs below CPU_SETSIZE (checked when parsed).
                unsafe {
                    let mut set: libc::cpu_set_t = std::mem::zeroed();
                    for &c in &args.cpus {
                        libc::CPU_SET(c, &mut set);
                    }
                    set
                }
            }),
            peak_tasks: 0,
            widened: false,
            disk,
            disk_killed: None,
        }
    }

    /// Reaps, samples, enforces the deadlines and sleeps until the next of
    /// them (or a signal), until the command has been reaped.
    unsafe fn until_the_command_ends(&mut self, args: &Args, set: &libc::sigset_t) {
        // SAFETY: see the steps.
        unsafe {
            loop {
                self.reap();
                if self.t1 != 0 {
                    break;
                }
                let now = now_ns();
                self.sample(args, now);
                self.enforce_deadlines(now);
                self.sleep(args, set, now);
            }
        }
    }

    /// Reaps everything that died: the command (its rusage is the figure)
    /// and any orphan of the namespace.
    unsafe fn reap(&mut self) {
        // SAFETY: wait4 into values we own.
        unsafe {
            loop {
                let mut st = 0;
                let mut ru: libc::rusage = std::mem::zeroed();
                let r = libc::wait4(-1, &mut st, libc::WNOHANG, &mut ru);
                if r <= 0 {
                    break;
                }
                if r == self.pid {
                    self.t1 = now_ns();
                    self.status = st;
                    self.rusage = ru;
                }
            }
        }
    }

    /// Every `SAMPLE_NS`: the tree's memory (resident and in its tmpfs),
    /// its peak, and the memory limit on it (everything is killed past
    /// it); its tasks; its CPUs; what it wrote to disk, and the bound on
    /// that (everything is killed past it).
    unsafe fn sample(&mut self, args: &Args, now: u128) {
        if now >= self.next_sample {
            self.look(args);
            if args.mem_kb > 0 && self.peak_tree > args.mem_kb && !self.oom {
                self.oom = true;
                // SAFETY: from a namespace's init, -1 is every other
                // process of the namespace.
                unsafe { libc::kill(-1, libc::SIGKILL) };
            }
            if self.disk_killed.is_none()
                && let Some(past) = self.disk.as_mut().and_then(|d| d.check(now))
            {
                self.disk_killed = Some(past);
                // SAFETY: as above.
                unsafe { libc::kill(-1, libc::SIGKILL) };
            }
            self.next_sample = now + SAMPLE_NS;
        }
    }

    /// One [`Sample`] of the tree, folded into the peaks.
    fn look(&mut self, args: &Args) {
        let s = sample_tree(args, self.allowed.as_ref());
        self.peak_tree = self.peak_tree.max(s.memory_kb);
        self.peak_tasks = self.peak_tasks.max(s.tasks);
        self.widened |= s.widened;
    }

    /// Past the timeout, or past a stop request's grace period, everything
    /// is killed.
    unsafe fn enforce_deadlines(&mut self, now: u128) {
        // SAFETY: kill(-1) from a namespace's init; see `alive_in_namespace`.
        unsafe {
            if let Some(d) = self.deadline
                && !self.timed_out
                && now >= d
            {
                self.timed_out = true;
                // What else runs besides the command (counted as for a
                // command that ended), then, from a namespace's init, -1 is
                // every other process of it.
                self.killed_early = (alive_in_namespace().len() as u32).saturating_sub(1);
                libc::kill(-1, libc::SIGKILL);
            }
            if let Some(k) = self.kill_deadline
                && now >= k
            {
                libc::kill(-1, libc::SIGKILL);
                self.kill_deadline = None;
            }
        }
    }

    /// Sleeps until the next sample or deadline, or a signal. A stop
    /// request passes SIGTERM to the command and its group and starts the
    /// grace period.
    unsafe fn sleep(&mut self, args: &Args, set: &libc::sigset_t, now: u128) {
        // SAFETY: sigtimedwait on our own blocked set; kill on our child.
        unsafe {
            let mut wake = self.next_sample;
            for d in [
                self.deadline.filter(|_| !self.timed_out),
                self.kill_deadline,
            ]
            .into_iter()
            .flatten()
            {
                wake = wake.min(d);
            }
            let wait = wake.saturating_sub(now).max(100_000);
            let ts = libc::timespec {
                tv_sec: (wait / 1_000_000_000) as libc::time_t,
                tv_nsec: (wait % 1_000_000_000) as libc::c_long,
            };
            let mut info: libc::siginfo_t = std::mem::zeroed();
            let sig = libc::sigtimedwait(set, &mut info, &ts);
            // Only a stop request from outside the namespace counts
            // (si_pid is 0 for a sender our namespace cannot see).
            if (sig == libc::SIGTERM || sig == libc::SIGINT || sig == libc::SIGHUP)
                && info.si_pid() == 0
                && !self.stopped
            {
                self.stopped = true;
                libc::kill(-self.pid, libc::SIGTERM);
                libc::kill(self.pid, libc::SIGTERM);
                self.kill_deadline = Some(now_ns() + args.grace_ms as u128 * 1_000_000);
            }
        }
    }

    /// The command has ended: whatever still runs in the namespace escaped
    /// it. Count it, kill it, reap it (so its CPU time is in our
    /// RUSAGE_CHILDREN).
    unsafe fn clear_the_namespace(&mut self, args: &Args) -> Aftermath {
        // SAFETY: see the steps.
        unsafe {
            let (leftovers, walked) = self.kill_leftovers(args);
            // What the tmpfs still hold after the command counts too (it
            // is gone only with the namespace): a program that filled its
            // /tmp past the memory limit and exited before a sample saw
            // it went past the limit all the same.
            self.peak_tree = self.peak_tree.max(tmpfs_used_kb(args));
            if args.mem_kb > 0 && self.peak_tree > args.mem_kb {
                self.oom = true;
            }
            let tree = reap_the_tree();
            // A short-lived process may fall between two samples: the tree
            // held at least the largest peak of any one process. That
            // largest peak (of the command with what it waited for, or of
            // an orphan init reaped) is reported too: above the command's
            // own, some process nobody waited for held more memory than the
            // measured one.
            let single = tree.ru_maxrss as u64;
            self.peak_tree = self.peak_tree.max(single);
            Aftermath {
                leftovers,
                walked,
                tree,
                single,
            }
        }
    }

    /// Counts what still runs (and, unless the command was cut short, how
    /// many new processes it starts while watched: a fork-walker), then
    /// kills it all. Returns (leftovers, walked).
    ///
    /// Usually nothing is left: init has no child (every process of the
    /// namespace descends from init, orphans are reparented to it), and
    /// neither the namespace's /proc nor kill(-1) (which walks every
    /// process of the machine) is needed.
    unsafe fn kill_leftovers(&mut self, args: &Args) -> (u32, usize) {
        let mut leftovers = self.killed_early;
        let mut walked = 0;
        if !no_child() {
            self.look(args);
            let left = alive_in_namespace();
            leftovers = leftovers.max(left.len() as u32);
            if !(left.is_empty() || self.timed_out || self.oom || self.stopped) {
                // SAFETY: waitpid/nanosleep only.
                walked = unsafe { walkers(&left) };
            }
            // SAFETY: kill(-1) from a namespace's init.
            unsafe { libc::kill(-1, libc::SIGKILL) };
        }
        (leftovers, walked)
    }

    /// The `done` line: how the command ended, its own figures (`wait4`),
    /// and the tree's.
    fn send_done(&self, args: &Args, after: &Aftermath) {
        let Aftermath {
            leftovers,
            walked,
            tree,
            single,
        } = after;
        let own = Waited {
            status: self.status,
            rusage: self.rusage,
            wall: Duration::from_nanos((self.t1 - self.t0) as u64),
            timed_out: self.timed_out,
            stopped: self.stopped,
        };
        let own = match own.done(*leftovers) {
            Ok(done) => done,
            Err(why) => return send(&Event::Error(why)),
        };
        send(&Event::Done(Done {
            tree: Some(TreeUsage {
                user: micros(tree.ru_utime),
                sys: micros(tree.ru_stime),
                max_rss_kb: self.peak_tree,
                max_single_rss_kb: *single,
            }),
            oom: self.oom,
            forked_after: *walked as u32,
            bounds: Bounds {
                tasks: self.peak_tasks,
                // RLIMIT_NPROC counts every process of the user on the
                // machine, the sample only the namespace's, between
                // samples: near the bound is at it.
                proc_limit: args.max_procs > 0 && self.peak_tasks * 10 >= args.max_procs * 9,
                widened: self.widened,
                disk: self.disk_killed == Some(Past::Kb),
                files: self.disk_killed == Some(Past::Files),
            },
            ..own
        }));
    }
}

/// Reaps every process of the namespace (all killed by now) and returns
/// init's RUSAGE_CHILDREN: the CPU time of the whole tree.
unsafe fn reap_the_tree() -> libc::rusage {
    // SAFETY: waitpid and getrusage into values we own.
    unsafe {
        loop {
            let mut st = 0;
            if libc::waitpid(-1, &mut st, 0) <= 0 {
                break;
            }
        }
        let mut tree: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut tree);
        tree
    }
}
