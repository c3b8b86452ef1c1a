//! Kernel-enforced containment (issue #9): the measured command runs in its
//! own PID namespace (and, when isolated, mount and network namespaces),
//! behind a tiny init of ours.
//!
//! ```text
//! langbench ── agent (`__spawn`, outside) ── init (pid 1 inside) ── command (pid 2)
//! ```
//!
//! - The agent `unshare`s the namespaces and forks init. It relays init's
//!   report lines to langbench (translating the command's pid to the outer
//!   pid namespace), forwards stop requests to init, and is the backstop: if
//!   init does not report by the timeout plus a margin, it SIGKILLs init,
//!   and the kernel then kills every process of the namespace.
//! - init (pid 1 of the namespace) sets up the filesystem view, forks the
//!   command into its own process group, and does what the agent did before:
//!   `wait4` on the command itself (so its rusage — the table's figure — is
//!   exactly what `/usr/bin/time` reports), the timeout, the stop request.
//!   Being pid 1 it is the reaper of every orphan of the namespace; its own
//!   RUSAGE_CHILDREN at the end is the CPU time of the *whole tree* (every
//!   process of the namespace is reaped by it or by one of its descendants,
//!   including the ones the kernel kills when init exits: those are reaped by
//!   init in `zap_pid_ns_processes`, before the agent's `wait4`, so the
//!   agent's rusage of init covers them too). It samples the tree's resident
//!   memory from its own /proc (which lists only the namespace) every 50 ms,
//!   and enforces `--mem-kb` on that sum.
//! - Processes inside cannot signal init (the kernel drops signals to a
//!   namespace's init that it has no handler for: ours are blocked and taken
//!   with `sigtimedwait`, and init only obeys the ones whose `si_pid` is 0,
//!   i.e. that came from outside the namespace), cannot see the agent or
//!   langbench (the namespace's /proc), and die with init: when init exits
//!   the kernel SIGKILLs everything left in the namespace, whatever process
//!   group, session or parent it chose.
//!
//! Hand-written with libc rather than the nix crate: this is the agent's
//! post-fork code (async-signal-safe calls only, nothing allocated between
//! fork and exec), the rest of the agent is already plain libc, and
//! `mount_setattr` (recursive read-only in one call) is not in nix.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::agent::{Args, Waited, confirm_exec, errno, exec_failed, micros, now_ns, report, send};
use super::report::{Done, Ended, Report};
use super::{Exit, TreeUsage};

/// Directories under the maintainer's HOME that hold toolchain caches and
/// stores. Each one that exists is mounted, inside the sandbox's HOME, as an
/// overlay: the real directory is the read-only lower layer (so the cache is
/// warm: `go run` does not rebuild its standard library, Maven does not
/// download), and writes land in an upper layer on the run's private /tmp,
/// thrown away when the run ends (so no program can poison the cache for
/// the next variant).
pub const CACHE_DIRS: &[&str] = &[
    ".cache/go-build",
    ".cache/crystal",
    ".cache/nim",
    ".cache/zig",
    ".cache/deno",
    ".cache/pip",
    ".m2",
    ".gradle",
    ".npm",
    ".nimble",
    ".cargo",
    ".rustup",
    ".pyenv",
    ".julia",
    ".dotnet",
    ".ghcup",
    ".cabal",
    ".stack",
    "go",
];

/// How the agent's error begins when the kernel refuses the namespaces.
pub(crate) const REFUSED: &str = "cannot create namespaces";

/// Interval of the tree's memory sampling (and of the memory limit check).
const SAMPLE_NS: u128 = 50_000_000;

fn cstr(p: &Path) -> CString {
    CString::new(p.as_os_str().as_bytes()).unwrap_or_default()
}

unsafe fn mount(src: &str, target: &Path, fstype: &str, flags: libc::c_ulong, data: &str) -> i32 {
    let src = CString::new(src).unwrap_or_default();
    let fstype = CString::new(fstype).unwrap_or_default();
    let data = CString::new(data).unwrap_or_default();
    let target = cstr(target);
    // SAFETY: valid NUL-terminated strings.
    unsafe {
        libc::mount(
            src.as_ptr(),
            target.as_ptr(),
            fstype.as_ptr(),
            flags,
            data.as_ptr().cast(),
        )
    }
}

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}
const MOUNT_ATTR_RDONLY: u64 = 0x1;
const AT_RECURSIVE: libc::c_int = 0x8000;

/// `mount_setattr(2)` (Linux 5.12): set or clear read-only on a mount, or on
/// a whole tree of mounts in one call.
///
/// The kernel refuses read-only (EBUSY) while anything holds write access
/// to one of the mounts, and such a hold is brief (a write or an atime
/// update in progress); on a loaded machine the whole-tree call met one
/// now and then, so EBUSY is retried, for at most ~1 s.
fn set_readonly(path: &Path, readonly: bool, recursive: bool) -> i32 {
    let attr = MountAttr {
        attr_set: if readonly { MOUNT_ATTR_RDONLY } else { 0 },
        attr_clr: if readonly { 0 } else { MOUNT_ATTR_RDONLY },
        propagation: 0,
        userns_fd: 0,
    };
    let p = cstr(path);
    let mut tries = 0;
    loop {
        // SAFETY: plain syscall with a valid path and attribute struct.
        let r = unsafe {
            libc::syscall(
                libc::SYS_mount_setattr,
                libc::AT_FDCWD,
                p.as_ptr(),
                if recursive { AT_RECURSIVE } else { 0 },
                &attr as *const MountAttr,
                std::mem::size_of::<MountAttr>(),
            ) as i32
        };
        if r == 0 || errno() != libc::EBUSY || tries == 1000 {
            return r;
        }
        tries += 1;
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn mkdir_p(p: &Path) {
    let _ = std::fs::create_dir_all(p);
}

/// Credential files that may sit inside a toolchain directory the sandbox
/// keeps visible (a registry token): covered by an empty file, in the real
/// directory and in its cache overlay alike.
const CREDENTIAL_FILES: &[&str] = &[
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".m2/settings-security.xml",
];

/// Home directories the sandbox covers with an empty read-only tmpfs: the
/// real HOME (secrets: ~/.ssh, ~/.npmrc, tokens, shell history) and every
/// user's. What a run needs from them is bound back read-only at its own
/// path (see `build_view`).
fn home_masks(real_home: Option<&Path>) -> Vec<PathBuf> {
    let mut masks: Vec<PathBuf> = Vec::new();
    for m in [
        real_home,
        Some(Path::new("/root")),
        Some(Path::new("/home")),
    ]
    .into_iter()
    .flatten()
    {
        let Ok(m) = m.canonicalize() else { continue };
        if m == Path::new("/") || !m.is_dir() {
            continue;
        }
        masks.push(m);
    }
    // A mask inside another one is covered already.
    let all = masks.clone();
    masks.retain(|m| !all.iter().any(|o| o != m && m.starts_with(o)));
    masks.dedup();
    masks
}

/// What must stay visible inside a covered home, at its own path: the
/// top-level directory of every PATH entry under it (`~/.cargo` for
/// `~/.cargo/bin`, `~/.pyenv` for its shims: toolchains installed in the
/// home keep working) and the toolchain caches of `CACHE_DIRS`.
fn home_keeps(masks: &[PathBuf], real_home: Option<&Path>) -> Vec<PathBuf> {
    let mut keep = Vec::new();
    let path = std::env::var_os("PATH").unwrap_or_default();
    for p in std::env::split_paths(&path) {
        let Ok(p) = p.canonicalize() else { continue };
        for m in masks {
            if let Ok(rest) = p.strip_prefix(m)
                && let Some(first) = rest.components().next()
            {
                keep.push(m.join(first));
            }
        }
    }
    if let Some(real) = real_home.and_then(|r| r.canonicalize().ok()) {
        for dir in CACHE_DIRS {
            let p = real.join(dir);
            if p.is_dir() && masks.iter().any(|m| p.starts_with(m)) {
                keep.push(p);
            }
        }
    }
    keep.sort();
    keep.dedup();
    keep
}

/// A directory held by an `O_PATH` fd, to be bound back at its own path
/// after something covered it.
struct Held {
    path: PathBuf,
    fd: i32,
    writable: bool,
}

/// Covers `target` with a fresh tmpfs (`data`: its options) and binds back
/// every held directory that lies under it, at its own path; `readonly`
/// then makes the tmpfs itself read-only (the bound directories keep their
/// own mode: read-only like their source, or writable).
unsafe fn cover(target: &Path, data: &str, readonly: bool, held: &[Held]) -> Result<(), String> {
    let fail = |what: &str, p: &Path| {
        format!(
            "sandbox: {what} {}: {}",
            p.display(),
            std::io::Error::from_raw_os_error(errno())
        )
    };
    // SAFETY: mount(2) and mount_setattr(2) with valid arguments.
    unsafe {
        let flags = libc::MS_NOSUID | libc::MS_NODEV;
        if mount("tmpfs", target, "tmpfs", flags, data) != 0 {
            return Err(fail("mount tmpfs on", target));
        }
        for h in held.iter().filter(|h| h.path.starts_with(target)) {
            mkdir_p(&h.path);
            let src = format!("/proc/self/fd/{}", h.fd);
            if mount(&src, &h.path, "", libc::MS_BIND | libc::MS_REC, "") != 0 {
                return Err(fail("bind back", &h.path));
            }
            if h.writable && set_readonly(&h.path, false, false) != 0 {
                return Err(fail("make writable", &h.path));
            }
        }
        if readonly && set_readonly(target, true, false) != 0 {
            return Err(fail("make read-only", target));
        }
    }
    Ok(())
}

/// Builds the program's view of the filesystem, inside the new mount
/// namespace (called by init, before the command is forked):
/// everything read-only; a private tmpfs on /tmp and /dev/shm; the
/// writable directories (the build directory) bound read-write at their own
/// paths; HOME with the toolchain caches as throw-away overlays; the real
/// home directories (the maintainer's, /root, /home) covered by an empty
/// read-only tmpfs with only the toolchains in them bound back; the hidden
/// paths (the results directory) covered by an empty read-only tmpfs; and a
/// /proc that shows only the namespace.
fn build_view(args: &Args) -> Result<(), String> {
    let fail = |what: &str, p: &Path| {
        format!(
            "sandbox: {what} {}: {}",
            p.display(),
            std::io::Error::from_raw_os_error(errno())
        )
    };
    let cwd = std::env::current_dir().map_err(|e| format!("sandbox: cwd: {e}"))?;
    let masks = home_masks(args.real_home.as_deref());
    // SAFETY: mount(2) calls with valid arguments.
    unsafe {
        if mount(
            "none",
            Path::new("/"),
            "",
            libc::MS_REC | libc::MS_PRIVATE,
            "",
        ) != 0
        {
            return Err(fail("make private", Path::new("/")));
        }
        // What is about to be covered (/tmp, the homes) but must stay
        // visible: the writable directories, the readable ones, the
        // toolchains in a home. Held by fd, bound back from there.
        let mut held = Vec::new();
        for w in &args.rw {
            let fd = libc::open(
                cstr(w).as_ptr(),
                libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
            );
            if fd < 0 {
                return Err(fail("open writable dir", w));
            }
            held.push(Held {
                path: w.clone(),
                fd,
                writable: true,
            });
        }
        let keeps = home_keeps(&masks, args.real_home.as_deref());
        for r in args.ro.iter().chain(&keeps) {
            let fd = libc::open(
                cstr(r).as_ptr(),
                libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
            );
            if fd >= 0 {
                held.push(Held {
                    path: r.clone(),
                    fd,
                    writable: false,
                });
            }
        }
        if set_readonly(Path::new("/"), true, true) != 0 {
            return Err(fail("make read-only", Path::new("/")));
        }
        cover(Path::new("/tmp"), "mode=1777", false, &held)?;
        if Path::new("/dev/shm").is_dir() {
            cover(Path::new("/dev/shm"), "mode=1777", false, &held)?;
        }
        // The writable directories elsewhere: bound at their own path, then
        // made writable.
        for h in held.iter().filter(|h| {
            h.writable && !h.path.starts_with("/tmp") && !h.path.starts_with("/dev/shm")
        }) {
            let src = format!("/proc/self/fd/{}", h.fd);
            if mount(&src, &h.path, "", libc::MS_BIND, "") != 0 {
                return Err(fail("bind writable dir", &h.path));
            }
            if set_readonly(&h.path, false, false) != 0 {
                return Err(fail("make writable", &h.path));
            }
        }
        // The homes, with what a run needs from them bound back (the cache
        // overlays below then take their lower layers from those binds).
        for m in masks
            .iter()
            .filter(|m| !m.starts_with("/tmp") && !m.starts_with("/dev/shm"))
        {
            cover(m, "size=64k,mode=0755", true, &held)?;
        }
        for h in &held {
            libc::close(h.fd);
        }
        if let (Some(home), Some(real)) = (&args.home, &args.real_home) {
            mkdir_p(home);
            for (i, dir) in CACHE_DIRS.iter().enumerate() {
                let lower = real.join(dir);
                let s = lower.to_string_lossy();
                if !lower.is_dir() || s.contains([',', ':', '\\']) {
                    continue;
                }
                let layer = PathBuf::from(format!("/tmp/.langbench-cache/{i}"));
                let (up, work) = (layer.join("up"), layer.join("work"));
                mkdir_p(&up);
                mkdir_p(&work);
                let target = home.join(dir);
                mkdir_p(&target);
                let opts = format!(
                    "lowerdir={s},upperdir={},workdir={}",
                    up.display(),
                    work.display()
                );
                if mount("overlay", &target, "overlay", 0, &opts) != 0 {
                    return Err(fail("overlay cache", &target));
                }
            }
        }
        let credentials = [args.home.as_deref(), args.real_home.as_deref()];
        for base in credentials.into_iter().flatten() {
            for c in CREDENTIAL_FILES {
                let p = base.join(c);
                if p.is_file() {
                    let _ = mount("/dev/null", &p, "", libc::MS_BIND, "");
                }
            }
        }
        for h in &args.hide {
            if h.is_dir() {
                let _ = mount(
                    "tmpfs",
                    h,
                    "tmpfs",
                    libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV,
                    "size=4k,mode=0555",
                );
            }
        }
        if mount(
            "proc",
            Path::new("/proc"),
            "proc",
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            "",
        ) != 0
        {
            return Err(fail("mount", Path::new("/proc")));
        }
        // Resolve the working directory again through the new mounts (the
        // old handle points into the now read-only /tmp).
        if libc::chdir(cstr(&cwd).as_ptr()) != 0 {
            return Err(fail("chdir", &cwd));
        }
    }
    Ok(())
}

/// Brings the loopback interface of a fresh network namespace up, so that
/// a program may still talk to itself on 127.0.0.1 (nothing else exists).
fn loopback_up() {
    // SAFETY: ioctl on a socket we own, with a zeroed ifreq naming "lo".
    unsafe {
        let s = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if s < 0 {
            return;
        }
        let mut ifr: libc::ifreq = std::mem::zeroed();
        for (d, c) in ifr.ifr_name.iter_mut().zip(b"lo\0") {
            *d = *c as libc::c_char;
        }
        if libc::ioctl(s, libc::SIOCGIFFLAGS, &mut ifr) == 0 {
            ifr.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            libc::ioctl(s, libc::SIOCSIFFLAGS, &ifr);
        }
        libc::close(s);
    }
}

/// Drops every capability for good (bounding set included, no new
/// privileges), so that a command running as root inside the sandbox cannot
/// undo it: no remount, no umount of the hiding tmpfs, no ptrace of init.
/// Called in the command's child before exec; async-signal-safe syscalls.
unsafe fn drop_capabilities() {
    // SAFETY: prctl/capset with valid arguments.
    unsafe {
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
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    }
}

/// Sum of the resident memory (KB) of every process of the namespace but
/// init: what the tree holds right now. Shared pages count once per process
/// (as in `ps`), so this can overstate a tree that shares a lot.
fn tree_rss_kb() -> u64 {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let page_kb = (unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as u64 / 1024).max(1);
    let mut sum = 0;
    let mut buf = [0u8; 128];
    for e in dir.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        if pid == 1 {
            continue;
        }
        let path = format!("/proc/{pid}/statm\0");
        // SAFETY: open/read/close with a NUL-terminated path and our buffer.
        let n = unsafe {
            let fd = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
            if fd < 0 {
                continue;
            }
            let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
            libc::close(fd);
            n
        };
        if n <= 0 {
            continue;
        }
        let text = std::str::from_utf8(&buf[..n as usize]).unwrap_or("");
        if let Some(res) = text
            .split_whitespace()
            .nth(1)
            .and_then(|r| r.parse::<u64>().ok())
        {
            sum += res * page_kb;
        }
    }
    sum
}

/// Processes of the namespace still alive besides init (zombies excluded).
fn alive_in_namespace() -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid != 1)
        .filter(|&pid| super::procstat::Stat::of(pid).is_some_and(|s| s.is_alive()))
        .collect()
}

/// How long init at most watches the processes a command left running
/// before it kills them, and how many new ones they must start meanwhile to
/// be a fork-walker (see `walkers`). The watch ends as soon as that many
/// appeared; an idle daemon costs the whole window (after the command's
/// figures were taken: its wall time is not affected). Long enough for a
/// walker to show itself on a loaded CPU.
pub const WALK_WATCH_MS: u64 = 500;
pub const WALK_MIN_NEW: usize = 3;

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
fn hide_cmdline() {
    let Some(super::procstat::Stat {
        arg_start: Some(start),
        arg_end: Some(end),
        ..
    }) = super::procstat::Stat::of_self()
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

/// The agent's side: unshare, fork init, relay, backstop. Returns the
/// agent's exit code.
pub(crate) fn agent(args: Args) -> i32 {
    // SAFETY: libc calls with valid arguments; init's and the command's
    // sides of fork only use what is allowed there (see `init`).
    unsafe {
        let mut flags = libc::CLONE_NEWPID | libc::CLONE_NEWNS;
        if args.isolate {
            flags |= libc::CLONE_NEWIPC | libc::CLONE_NEWUTS;
            if !args.net {
                flags |= libc::CLONE_NEWNET;
            }
        }
        let (uid, gid) = (libc::geteuid(), libc::getegid());
        if uid != 0 {
            // Without root, a user namespace (where we are root) grants the
            // right to create the others.
            flags |= libc::CLONE_NEWUSER;
        }
        if libc::unshare(flags) != 0 {
            report(&format!(
                "error {REFUSED} (try --no-sandbox): {}\n",
                std::io::Error::from_raw_os_error(errno())
            ));
            return 2;
        }
        if uid != 0 {
            let _ = std::fs::write("/proc/self/setgroups", "deny");
            let _ = std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1"));
            let _ = std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1"));
        }
        // The run's cgroup, opened before the namespaces change the view
        // of /sys; init writes itself into it.
        let cgroup_fd = match &args.cgroup_procs {
            Some(p) => {
                let fd = libc::open(cstr(p).as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                if fd < 0 {
                    report(&format!(
                        "error cannot open the run's cgroup {}: {}\n",
                        p.display(),
                        std::io::Error::from_raw_os_error(errno())
                    ));
                    return 2;
                }
                fd
            }
            None => -1,
        };
        let mut relay = [0i32; 2];
        if libc::pipe2(relay.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            report(&format!("error pipe2 failed: errno {}\n", errno()));
            return 2;
        }
        let set = super::agent::handled_signals();
        let init = libc::fork();
        if init < 0 {
            report(&format!("error fork failed: errno {}\n", errno()));
            return 2;
        }
        if init == 0 {
            libc::close(relay[0]);
            libc::dup2(relay[1], super::agent::report_fd());
            libc::close(relay[1]);
            // Dies (and with it the namespace) if the agent dies.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            libc::prctl(libc::PR_SET_DUMPABLE, 0);
            if cgroup_fd >= 0 {
                // "0": the writing process (init); everything it starts
                // is then in the run's cgroup.
                if libc::write(cgroup_fd, b"0\n".as_ptr().cast(), 2) != 2 {
                    report(&format!(
                        "error cannot join the run's cgroup: {}\n",
                        std::io::Error::from_raw_os_error(errno())
                    ));
                    libc::_exit(2);
                }
                libc::close(cgroup_fd);
            }
            hide_cmdline();
            libc::_exit(init_main(&args, &set));
        }
        libc::close(relay[1]);
        if cgroup_fd >= 0 {
            libc::close(cgroup_fd);
        }
        let code = relay_reports(&args, init, relay[0], &set);
        libc::close(relay[0]);
        code
    }
}

/// Waits up to `wait_ns` for a stop request (SIGTERM/INT/HUP from
/// langbench) and passes it to init as SIGTERM; then kills init if the
/// backstop has passed (once: `killed` remembers it).
unsafe fn relay_stop(
    set: &libc::sigset_t,
    init: i32,
    wait_ns: u128,
    backstop: Option<u128>,
    killed: &mut bool,
) {
    // SAFETY: sigtimedwait on our own blocked set, kill on our own child.
    unsafe {
        let ts = libc::timespec {
            tv_sec: (wait_ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (wait_ns % 1_000_000_000) as libc::c_long,
        };
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let sig = libc::sigtimedwait(set, &mut info, &ts);
        if sig == libc::SIGTERM || sig == libc::SIGINT || sig == libc::SIGHUP {
            libc::kill(init, libc::SIGTERM);
        }
        if let Some(b) = backstop
            && !*killed
            && now_ns() >= b
        {
            *killed = true;
            libc::kill(init, libc::SIGKILL);
        }
    }
}

/// Copies init's report lines to langbench, turning the command's pid inside
/// the namespace into its pid outside; forwards stop requests; kills init if
/// it overstays. Returns the agent's exit code.
unsafe fn relay_reports(args: &Args, init: i32, fd: i32, set: &libc::sigset_t) -> i32 {
    // SAFETY: plain syscalls on fds and pids we own.
    unsafe {
        let t0 = now_ns();
        // Init enforces the timeout itself; this is the backstop should it
        // be unable to (e.g. stuck in a mount).
        let backstop = (args.timeout_ms > 0)
            .then(|| t0 + (args.timeout_ms as u128 + args.grace_ms as u128 + 10_000) * 1_000_000);
        let mut line: Vec<u8> = Vec::with_capacity(512);
        let mut buf = [0u8; 512];
        let mut got_done = false;
        let mut killed = false;
        let mut reaped: Option<libc::rusage> = None;
        if args.here {
            loop {
                // langbench itself (`run_here`): nobody needs the pid before
                // the end, so sleep until init is gone (or a stop request, or
                // the backstop), then pass its lines on: one wake-up per run
                // instead of one per line. init's two lines fit in the pipe.
                let now = now_ns();
                let wait = match backstop {
                    Some(b) if !killed => b.saturating_sub(now),
                    _ => 1_000_000_000,
                }
                .clamp(1_000_000, 1_000_000_000);
                relay_stop(set, init, wait, backstop, &mut killed);
                let mut st = 0;
                let mut ru: libc::rusage = std::mem::zeroed();
                if libc::wait4(init, &mut st, libc::WNOHANG, &mut ru) == init {
                    reaped = Some(ru);
                    break;
                }
            }
        }
        loop {
            let mut pfd = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            let r = libc::poll(&mut pfd, 1, 100);
            if r > 0 {
                let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
                if n <= 0 {
                    break;
                }
                for &b in &buf[..n as usize] {
                    line.push(b);
                    if b == b'\n' {
                        let text = String::from_utf8_lossy(&line).into_owned();
                        if text.starts_with("pid ") {
                            let outer = outer_pid(init).unwrap_or(init);
                            report(&format!("pid {outer}\n"));
                        } else {
                            got_done |= text.starts_with("done ");
                            report(&text);
                        }
                        line.clear();
                    }
                }
            }
            relay_stop(set, init, 0, backstop, &mut killed);
        }
        let ru = reaped.unwrap_or_else(|| {
            let mut status = 0;
            let mut ru: libc::rusage = std::mem::zeroed();
            libc::wait4(init, &mut status, 0, &mut ru);
            ru
        });
        if !got_done {
            // init was killed before it could report: the command escaped
            // its supervision; the namespace is gone with init.
            send(&Report::Done(Done {
                exit: Ended::Exit(Exit::Signaled(libc::SIGKILL)),
                wall: Duration::from_nanos((now_ns() - t0) as u64),
                user: Duration::ZERO,
                sys: Duration::ZERO,
                max_rss_kb: 0,
                timed_out: killed,
                stopped: false,
                leftovers: 0,
                tree: Some(TreeUsage {
                    user: micros(ru.ru_utime),
                    sys: micros(ru.ru_stime),
                    max_rss_kb: ru.ru_maxrss as u64,
                    max_single_rss_kb: 0,
                }),
                oom: false,
                escaped: true,
                forked_after: 0,
            }));
        }
        0
    }
}

/// The command's pid in langbench's namespace: init's only child.
fn outer_pid(init: i32) -> Option<i32> {
    let s = std::fs::read_to_string(format!("/proc/{init}/task/{init}/children")).ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// pid 1 of the namespace. Never returns normally: its exit code goes to
/// `_exit`, and its exit makes the kernel kill the rest of the namespace.
///
/// Its steps, in this order: the namespace's filesystem; everything the
/// command's side of the fork needs, allocated before it; the command
/// started; watched until it ends; what it left behind counted, killed and
/// reaped; the report. A step that fails has reported why.
unsafe fn init_main(args: &Args, set: &libc::sigset_t) -> i32 {
    // SAFETY: see `agent`.
    unsafe {
        if !set_up_mounts(args) {
            return 2;
        }
        // Lives until init ends (as the locals it was made of did): init
        // frees none of it while the command runs.
        let exec = Exec::new(args);
        let Some(started) = start_command(args, &exec) else {
            return 2;
        };
        let mut watch = Watch::new(args, &started);
        watch.until_the_command_ends(args, set);
        let after = watch.clear_the_namespace();
        if args.here && exec_failed(started.errfd, &args.argv[0]) {
            return 2;
        }
        watch.report_done(&after);
        0
    }
}

/// The namespace's filesystem: the sandbox's view (and a loopback of its
/// own without the host's network), or without the sandbox only a /proc of
/// its own. `false`: it could not (reported).
unsafe fn set_up_mounts(args: &Args) -> bool {
    // SAFETY: mount(2) in init's own mount namespace.
    unsafe {
        if args.isolate {
            if let Err(e) = build_view(args) {
                report(&format!("error {e}\n"));
                return false;
            }
            if !args.net {
                loopback_up();
            }
        } else if mount(
            "none",
            Path::new("/"),
            "",
            libc::MS_REC | libc::MS_PRIVATE,
            "",
        ) != 0
            || mount(
                "proc",
                Path::new("/proc"),
                "proc",
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                "",
            ) != 0
        {
            // Only the PID namespace: still a /proc of our own (in our own
            // mount namespace) so that the tree is sampled, and counted, here.
            report(&format!("error sandbox: mount /proc: errno {}\n", errno()));
            return false;
        }
        true
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
            report(&format!("error pipe2 failed: errno {}\n", errno()));
            return None;
        }
        let t0 = now_ns();
        let pid = libc::fork();
        if pid < 0 {
            report(&format!("error fork failed: errno {}\n", errno()));
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
/// signal state, its CPUs, no capabilities in the sandbox, no report fd,
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
        if args.isolate {
            drop_capabilities();
        }
        libc::close(super::agent::report_fd());
        libc::close(errpipe[0]);
        libc::execvpe(exec.argv[0], exec.argv.as_ptr(), exec.envp.as_ptr());
        let e: i32 = errno();
        libc::write(errpipe[1], (&e as *const i32).cast(), 4);
        libc::_exit(127);
    }
}

/// init's watch over the running command (the timeout, a stop request and
/// its grace period, the memory limit on the sampled tree) and what it saw:
/// the report's figures.
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
    fn new(args: &Args, started: &Started) -> Watch {
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

    /// Every `SAMPLE_NS`: the tree's resident memory, its peak, and the
    /// memory limit on it (everything is killed past it).
    unsafe fn sample(&mut self, args: &Args, now: u128) {
        if now >= self.next_sample {
            let rss = tree_rss_kb();
            self.peak_tree = self.peak_tree.max(rss);
            if args.mem_kb > 0 && rss > args.mem_kb && !self.oom {
                self.oom = true;
                // SAFETY: from a namespace's init, -1 is every other
                // process of the namespace.
                unsafe { libc::kill(-1, libc::SIGKILL) };
            }
            self.next_sample = now + SAMPLE_NS;
        }
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
    unsafe fn clear_the_namespace(&mut self) -> Aftermath {
        // SAFETY: see the steps.
        unsafe {
            let (leftovers, walked) = self.kill_leftovers();
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
    unsafe fn kill_leftovers(&mut self) -> (u32, usize) {
        let mut leftovers = self.killed_early;
        let mut walked = 0;
        if !super::agent::no_child() {
            let rss = tree_rss_kb();
            self.peak_tree = self.peak_tree.max(rss);
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
    fn report_done(&self, after: &Aftermath) {
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
        send(&Report::Done(Done {
            tree: Some(TreeUsage {
                user: micros(tree.ru_utime),
                sys: micros(tree.ru_stime),
                max_rss_kb: self.peak_tree,
                max_single_rss_kb: *single,
            }),
            oom: self.oom,
            forked_after: *walked as u32,
            ..own.done(*leftovers)
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
