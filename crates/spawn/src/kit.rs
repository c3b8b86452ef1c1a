//! The agent's kit: what the plain agent (`agent.rs`) and the contained
//! one's init (`contain/`) share: the agent's arguments, the event line
//! written to langbench (`send`), the clocks, errno, the exec's
//! confirmation, the signals taken, and whether a child is left. A leaf,
//! so that the agent's chain is one-way: `agent` → `contain` → `kit`.

use std::ffi::{CString, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use super::event::Event;
use super::outcome::{Bounds, Done, Exit};

/// The agent's event fd as langbench sets it up.
pub(crate) const EVENT_FD: i32 = 3;

/// Where langbench gives the agent a socket for the command
/// ([`Args::pass_fd`]; `Request::log_fd`): the agent and init keep it
/// here, the command gets it at the number asked for.
pub(crate) const PASS_FD: i32 = 4;

/// Where `write_line` writes: fd 3 in an agent process, a pipe when the agent's
/// work runs inside langbench itself (`run_here`).
static EVENTS_TO: AtomicI32 = AtomicI32::new(EVENT_FD);

pub(crate) fn event_fd() -> i32 {
    EVENTS_TO.load(Ordering::Relaxed)
}

/// Where `write_line` writes from now on (`run_here`'s pipe, then
/// [`EVENT_FD`] again).
pub(crate) fn events_to(fd: i32) {
    EVENTS_TO.store(fd, Ordering::Relaxed);
}

/// The agent's arguments: what it runs and how it contains it. Written
/// by langbench ([`Args::to_argv`], after `__spawn`) and read by the agent
/// ([`parse`]) here, in one place, so the two sides cannot drift apart
/// (the round trip is tested over every field).
#[derive(Debug, Clone, Default, PartialEq)]
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
    /// Kill the tree when it creates more than this many files (inodes)
    /// in `watch`; 0: no bound.
    pub disk_files: u64,
    /// Persistent writable directories whose filesystem's free space is
    /// watched (`disk_kb`).
    pub watch: Vec<PathBuf>,
    /// Join this network namespace instead of creating one (a `prepare`
    /// step's, where langbench's registry proxy listens).
    pub netns: Option<PathBuf>,
    /// The socket langbench left at [`PASS_FD`] goes to the command at
    /// this descriptor number (the only one above 2 it gets besides the
    /// exec's error pipe): valgrind's `--log-fd` in a work count.
    pub pass_fd: Option<i32>,
}

impl Args {
    /// The command line that [`parse`] reads back as these arguments (the
    /// flags in the order the agent's work needs none of; `here` is never
    /// on a command line).
    pub(crate) fn to_argv(&self) -> Vec<OsString> {
        let mut a: Vec<OsString> = Vec::new();
        let mut arg = |s: &dyn AsRef<std::ffi::OsStr>| a.push(s.as_ref().to_os_string());
        arg(&"--timeout-ms");
        arg(&self.timeout_ms.to_string());
        arg(&"--grace-ms");
        arg(&self.grace_ms.to_string());
        arg(&"--parent");
        arg(&self.parent.to_string());
        if !self.cpus.is_empty() {
            let list: Vec<String> = self.cpus.iter().map(|c| c.to_string()).collect();
            arg(&"--cpus");
            arg(&list.join(","));
        }
        for (flag, on) in [
            ("--contain", self.contain),
            ("--isolate", self.isolate),
            ("--net", self.net),
        ] {
            if on {
                arg(&flag);
            }
        }
        if let Some(procs) = &self.cgroup_procs {
            arg(&"--cgroup-procs");
            arg(procs);
        }
        if let Some((uid, gid)) = self.ids {
            arg(&"--ids");
            arg(&uid.to_string());
            arg(&gid.to_string());
        }
        for (flag, value) in [
            ("--mem-kb", self.mem_kb),
            ("--tmpfs-kb", self.tmpfs_kb),
            ("--max-procs", self.max_procs),
            ("--disk-kb", self.disk_kb),
            ("--disk-files", self.disk_files),
            ("--pass-fd", self.pass_fd.map_or(0, |f| f as u64)),
        ] {
            if value != 0 {
                arg(&flag);
                arg(&value.to_string());
            }
        }
        for (flag, paths) in [
            ("--rw", &self.rw),
            ("--watch", &self.watch),
            ("--ro", &self.ro),
            ("--hide", &self.hide),
            ("--mask", &self.masks),
        ] {
            for p in paths {
                arg(&flag);
                arg(p);
            }
        }
        for (flag, pairs) in [("--bind", &self.binds), ("--ro-bind", &self.ro_binds)] {
            for (src, dst) in pairs {
                arg(&flag);
                arg(src);
                arg(dst);
            }
        }
        for (flag, path) in [
            ("--netns", &self.netns),
            ("--home", &self.home),
            ("--home-dir", &self.home_dir),
            ("--cwd", &self.cwd),
            ("--real-home", &self.real_home),
        ] {
            if let Some(p) = path {
                arg(&flag);
                arg(p);
            }
        }
        for e in &self.setenv {
            arg(&"--setenv");
            arg(&std::ffi::OsStr::from_bytes(e.as_bytes()));
        }
        arg(&"--");
        for s in &self.argv {
            arg(&std::ffi::OsStr::from_bytes(s.as_bytes()));
        }
        a
    }
}

/// The agent's arguments from its command line (after `__spawn`), as
/// [`Args::to_argv`] writes them.
pub(crate) fn parse(args: &[OsString]) -> Result<Args, String> {
    let mut out = Args {
        grace_ms: 2000,
        ..Args::default()
    };
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].to_string_lossy();
        if flag == "--" {
            out.argv = command(&args[i + 1..])?;
            out.contain |= out.isolate;
            return Ok(out);
        }
        i += out.read_flag(&Values {
            flag: &flag,
            rest: &args[i + 1..],
        })?;
    }
    Err("missing -- COMMAND".into())
}

/// The command after `--`: at least its program, no NUL anywhere.
fn command(rest: &[OsString]) -> Result<Vec<CString>, String> {
    let argv = rest
        .iter()
        .map(|s| CString::new(s.as_bytes()).map_err(|_| "NUL in argument".to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    if argv.is_empty() {
        return Err("no command after --".into());
    }
    Ok(argv)
}

/// One flag of the agent's command line and the arguments after it, read
/// as the values the flag takes.
struct Values<'a> {
    flag: &'a str,
    rest: &'a [OsString],
}

impl Values<'_> {
    /// The `j`th value after the flag, a number.
    fn num(&self, j: usize) -> Result<u64, String> {
        self.rest
            .get(j)
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{} needs a number", self.flag))
    }

    /// The `j`th value after the flag, a path.
    fn path(&self, j: usize) -> Result<PathBuf, String> {
        self.rest
            .get(j)
            .map(PathBuf::from)
            .ok_or_else(|| format!("{} needs a path", self.flag))
    }

    /// The value after `--cpus`: a list like 0,1 of CPUs a `cpu_set_t`
    /// holds.
    fn cpus(&self) -> Result<Vec<usize>, String> {
        self.rest
            .first()
            .and_then(|v| v.to_str())
            .map(|v| {
                v.split(',')
                    .map(str::parse)
                    .collect::<Result<Vec<usize>, _>>()
            })
            .and_then(Result::ok)
            .filter(|c| c.iter().all(|&c| c < libc::CPU_SETSIZE as usize))
            .ok_or_else(|| "--cpus needs a list like 0,1 of CPUs below CPU_SETSIZE".to_string())
    }
}

impl Args {
    /// Reads one flag and its values into these arguments: how many
    /// arguments that took, the flag's own included.
    fn read_flag(&mut self, v: &Values) -> Result<usize, String> {
        Ok(match v.flag {
            "--contain" | "--isolate" | "--net" => {
                match v.flag {
                    "--contain" => self.contain = true,
                    "--isolate" => self.isolate = true,
                    _ => self.net = true,
                }
                1
            }
            "--bind" | "--ro-bind" | "--ids" => {
                self.read_pair(v)?;
                3
            }
            _ => {
                self.read_value(v)?;
                2
            }
        })
    }

    /// A flag followed by two values: a bind's source and target, or the
    /// command's user and group.
    fn read_pair(&mut self, v: &Values) -> Result<(), String> {
        if v.flag == "--ids" {
            let (uid, gid) = (v.num(0)?, v.num(1)?);
            self.ids = Some((uid as u32, gid as u32));
            return Ok(());
        }
        let pair = (v.path(0)?, v.path(1)?);
        if v.flag == "--bind" {
            self.binds.push(pair);
        } else {
            self.ro_binds.push(pair);
        }
        Ok(())
    }

    /// A flag followed by one value.
    fn read_value(&mut self, v: &Values) -> Result<(), String> {
        match v.flag {
            "--rw" => self.rw.push(v.path(0)?),
            "--hide" => self.hide.push(v.path(0)?),
            "--mask" => self.masks.push(v.path(0)?),
            "--ro" => self.ro.push(v.path(0)?),
            "--home" => self.home = Some(v.path(0)?),
            "--real-home" => self.real_home = Some(v.path(0)?),
            "--home-dir" => self.home_dir = Some(v.path(0)?),
            "--cwd" => self.cwd = Some(v.path(0)?),
            "--mem-kb" => self.mem_kb = v.num(0)?,
            "--tmpfs-kb" => self.tmpfs_kb = v.num(0)?,
            "--max-procs" => self.max_procs = v.num(0)?,
            "--disk-kb" => self.disk_kb = v.num(0)?,
            "--disk-files" => self.disk_files = v.num(0)?,
            "--pass-fd" => self.pass_fd = Some(v.num(0)? as i32).filter(|f| *f > 2),
            "--watch" => self.watch.push(v.path(0)?),
            "--netns" => self.netns = Some(v.path(0)?),
            "--cgroup-procs" => self.cgroup_procs = Some(v.path(0)?),
            "--setenv" => self.setenv.push(
                v.rest
                    .first()
                    .and_then(|v| CString::new(v.as_bytes()).ok())
                    .ok_or("--setenv needs KEY=VALUE")?,
            ),
            "--timeout-ms" => self.timeout_ms = v.num(0)?,
            "--grace-ms" => self.grace_ms = v.num(0)?,
            "--parent" => self.parent = v.num(0)? as i32,
            "--cpus" => self.cpus = v.cpus()?,
            other => return Err(format!("unknown agent argument {other}")),
        }
        Ok(())
    }
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

pub(crate) fn write_line(line: &str) {
    // fd 3 is set up by langbench; writing the whole line at once keeps
    // lines atomic (they are far below PIPE_BUF).
    // SAFETY: plain write(2) of a valid buffer.
    unsafe { libc::write(event_fd(), line.as_ptr().cast(), line.len()) };
}

/// Writes one event line.
pub(crate) fn send(r: &Event) {
    write_line(&format!("{r}\n"));
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
        send(&Event::Pid(pid));
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
        send(&Event::Error(format!(
            "cannot execute {}: {msg}",
            argv0.to_string_lossy()
        )));
        true
    }
}

pub(crate) fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
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
    /// `done` line; `contain`'s init adds the tree's. `Err` (an `error` line to
    /// send) for a wait status that is neither an exit nor a signal.
    pub(crate) fn done(&self, leftovers: u32) -> Result<Done, String> {
        let exit = Exit::from_wait_status(self.status).ok_or_else(|| {
            format!(
                "wait4 gave the status {:#x}: neither an exit nor a signal",
                self.status
            )
        })?;
        Ok(Done {
            exit,
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
            bounds: Bounds::default(),
        })
    }
}

/// A rusage time.
pub(crate) fn micros(t: libc::timeval) -> Duration {
    Duration::from_micros(t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64)
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

#[cfg(test)]
mod tests {
    use super::{Args, parse};
    use std::ffi::{CString, OsString};
    use std::path::PathBuf;

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

    /// What the agent says of a command line it cannot read: the flag and
    /// what it needed (the parser's words, kept through its split into
    /// one function per kind of flag).
    #[test]
    fn a_bad_agent_command_line_is_an_error_naming_the_flag() {
        let cases: [(&[&str], &str); 10] = [
            (&["--rw"], "--rw needs a path"),
            (
                &["--mem-kb", "lots", "--", "true"],
                "--mem-kb needs a number",
            ),
            (&["--ids", "1"], "--ids needs a number"),
            (&["--bind", "/a"], "--bind needs a path"),
            (&["--ro-bind"], "--ro-bind needs a path"),
            (&["--setenv"], "--setenv needs KEY=VALUE"),
            (
                &["--frobnicate", "1", "--", "true"],
                "unknown agent argument --frobnicate",
            ),
            (&["--timeout-ms", "5", "--"], "no command after --"),
            (&["--timeout-ms", "5"], "missing -- COMMAND"),
            (&[], "missing -- COMMAND"),
        ];
        for (line, error) in cases {
            assert_eq!(parse(&args(line)).err().as_deref(), Some(error), "{line:?}");
        }
        // Defaults, and --isolate implies --contain.
        let a = parse(&args(&["--isolate", "--", "true"])).unwrap();
        assert_eq!((a.grace_ms, a.contain, a.isolate), (2000, true, true));
        // A value that looks like a flag is still the value.
        let a = parse(&args(&["--rw", "--", "--", "x"])).unwrap();
        assert_eq!(a.rw, vec![PathBuf::from("--")]);
        assert_eq!(a.argv, vec![CString::new("x").unwrap()]);
        use std::os::unix::ffi::OsStringExt;
        let nul = vec![OsString::from("--"), OsString::from_vec(b"a\0b".to_vec())];
        assert_eq!(parse(&nul).err().as_deref(), Some("NUL in argument"));
    }

    /// Every field written is read back as it was: the two sides of the
    /// agent's command line are one codec. (A new field is a compile error
    /// here until the test sets it.)
    #[test]
    fn the_agent_reads_back_every_argument_langbench_writes() {
        let p = |s: &str| PathBuf::from(s);
        let c = |s: &str| CString::new(s).unwrap();
        let every = Args {
            cpus: vec![0, 3],
            timeout_ms: 299_999,
            grace_ms: 5000,
            parent: 4242,
            argv: vec![c("sh"), c("-c"), c("echo --rw x -- y"), c("")],
            contain: true,
            isolate: true,
            net: true,
            rw: vec![p("/tmp/build-1"), p("/var/a b")],
            ro: vec![p("/work/x"), p("/tmp/build")],
            hide: vec![p("/results")],
            masks: vec![p("/root/.cache/langbench"), p("/m2")],
            home: Some(p("/tmp/home")),
            real_home: Some(p("/root")),
            home_dir: Some(p("/tmp/build-1/.home")),
            cwd: Some(p("/tmp/build")),
            mem_kb: 1 << 20,
            cgroup_procs: Some(p("/sys/fs/cgroup/lb/run-1/cgroup.procs")),
            setenv: vec![c("GOFLAGS=-mod=mod"), c("EMPTY=")],
            here: false,
            ids: Some((65534, 65533)),
            tmpfs_kb: 2 << 20,
            binds: vec![
                (p("/c/home/.cache/go"), p("/tmp/home/.cache/go")),
                (p("/b"), p("/tmp/build")),
            ],
            ro_binds: vec![(p("/root/.sdkman"), p("/tmp/home/.sdkman"))],
            max_procs: 4096,
            disk_kb: 4 << 20,
            disk_files: 1_000_000,
            watch: vec![p("/tmp/build-1"), p("/c/home/.cache/go")],
            netns: Some(p("/proc/77/ns/net")),
            pass_fd: Some(19_999),
        };
        assert_eq!(parse(&every.to_argv()).unwrap(), every);
        // The fewest: no containment, no bounds, the defaults.
        let least = Args {
            argv: every.argv.clone(),
            ..Args::default()
        };
        assert_eq!(parse(&least.to_argv()).unwrap(), least);
    }
}
