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

use super::kit::{
    Args, REPORT_FD, Waited, confirm_exec, errno, exec_failed, handled_signals, micros, no_child,
    now_ns, report, report_fd, send,
};
use super::outcome::{Bounds, Done, Exit, TreeUsage};
use super::procstat::Stat;

use super::report::Report;

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
const MOUNT_ATTR_NODEV: u64 = 0x4;
const AT_RECURSIVE: libc::c_int = 0x8000;

/// `mount_setattr(2)` (Linux 5.12): set or clear read-only on a mount, or on
/// a whole tree of mounts in one call.
fn set_readonly(path: &Path, readonly: bool, recursive: bool) -> i32 {
    if readonly {
        setattr(path, MOUNT_ATTR_RDONLY, 0, recursive)
    } else {
        setattr(path, 0, MOUNT_ATTR_RDONLY, recursive)
    }
}

/// `mount_setattr(2)`: set the `set` attributes and clear the `clr` ones
/// on a mount (or a whole tree of mounts).
///
/// The kernel refuses read-only (EBUSY) while anything holds write access
/// to one of the mounts, and such a hold is brief (a write or an atime
/// update in progress); on a loaded machine the whole-tree call met one
/// now and then, so EBUSY is retried, for at most ~1 s.
fn setattr(path: &Path, set: u64, clr: u64, recursive: bool) -> i32 {
    let attr = MountAttr {
        attr_set: set,
        attr_clr: clr,
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

/// Creates `p` and every missing parent, each created directory owned by
/// `ids` (the command's user, so that it may write below what init made
/// for it: the parents of its caches in its HOME).
fn mkdir_owned(p: &Path, ids: Option<(u32, u32)>) {
    let mut missing = Vec::new();
    let mut d = Some(p);
    while let Some(dir) = d {
        if dir.exists() {
            break;
        }
        missing.push(dir.to_path_buf());
        d = dir.parent();
    }
    for dir in missing.iter().rev() {
        if std::fs::create_dir(dir).is_ok()
            && let Some((uid, gid)) = ids
        {
            let _ = std::os::unix::fs::chown(dir, Some(uid), Some(gid));
        }
    }
}

fn mkdir_p(p: &Path) {
    mkdir_owned(p, None);
}

/// Configuration and credential files that may sit inside a toolchain
/// directory the sandbox keeps visible (a registry token, a mirror's
/// password): covered by an empty file.
const CREDENTIAL_FILES: &[&str] = &[
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".cargo/config",
    ".cargo/config.toml",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
    ".gradle/gradle.properties",
    ".npmrc",
    ".pypirc",
    ".netrc",
    ".docker/config.json",
];

/// Home directories the sandbox covers with an empty read-only tmpfs: the
/// real HOME (secrets: ~/.ssh, ~/.npmrc, tokens, shell history) and every
/// user's. What a run needs from them is bound back read-only at its own
/// path (see `build_view`).
fn home_masks(real_home: Option<&Path>, more: &[PathBuf]) -> Vec<PathBuf> {
    let mut masks: Vec<PathBuf> = Vec::new();
    for m in [
        real_home,
        Some(Path::new("/root")),
        Some(Path::new("/home")),
    ]
    .into_iter()
    .flatten()
    .chain(more.iter().map(PathBuf::as_path))
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

/// Directories of a home shared by many programs: a PATH entry in one of
/// them (`~/.local/bin`) is bound back alone, never the whole directory
/// (`~/.local/share` holds keyrings and tokens, `~/.config` every
/// program's settings).
const SHARED_HOME_DIRS: &[&str] = &[".local", ".config", ".cache"];

/// What must stay visible inside a covered home, at its own path: for
/// every PATH entry under it, the top-level directory of the entry (`~/.cargo`
/// for `~/.cargo/bin`, `~/.pyenv` for its shims: a toolchain manager's
/// home, which its launchers read by absolute path), or the entry alone
/// inside a shared directory (`~/.local/bin`).
fn home_keeps(masks: &[PathBuf]) -> Vec<PathBuf> {
    let mut keep = Vec::new();
    let path = std::env::var_os("PATH").unwrap_or_default();
    for p in std::env::split_paths(&path) {
        let Ok(p) = p.canonicalize() else { continue };
        for m in masks {
            if let Ok(rest) = p.strip_prefix(m)
                && let Some(first) = rest.components().next()
            {
                let shared = SHARED_HOME_DIRS.iter().any(|s| first.as_os_str() == *s);
                keep.push(if shared { p.clone() } else { m.join(first) });
            }
        }
    }
    keep.sort();
    keep.dedup();
    keep
}

/// A directory held by an `O_PATH` fd, to be bound at a path after
/// something covered its own.
struct Held {
    /// Where it is bound (its own path, or a bind's target).
    path: PathBuf,
    fd: i32,
    writable: bool,
}

impl Held {
    /// Opens `src` to be bound at `path`; `None` if it cannot be opened.
    fn open(src: &Path, path: &Path, writable: bool) -> Option<Held> {
        // SAFETY: open(2) with a NUL-terminated path.
        let fd = unsafe {
            libc::open(
                cstr(src).as_ptr(),
                libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        (fd >= 0).then(|| Held {
            path: path.to_path_buf(),
            fd,
            writable,
        })
    }

    /// Binds it at its path (created if missing, owned by `ids`).
    unsafe fn bind(&self, ids: Option<(u32, u32)>) -> Result<(), String> {
        mkdir_owned(&self.path, ids);
        let src = format!("/proc/self/fd/{}", self.fd);
        // SAFETY: mount(2) and mount_setattr(2) with valid arguments.
        unsafe {
            if mount(&src, &self.path, "", libc::MS_BIND | libc::MS_REC, "") != 0 {
                return Err(failed("bind", &self.path));
            }
        }
        if set_readonly(&self.path, !self.writable, !self.writable) != 0 {
            return Err(failed("set the mode of", &self.path));
        }
        Ok(())
    }
}

/// The error of a failed mount step on `p`, with errno.
fn failed(what: &str, p: &Path) -> String {
    format!(
        "sandbox: {what} {}: {}",
        p.display(),
        std::io::Error::from_raw_os_error(errno())
    )
}

/// The options of a private tmpfs of the sandbox: bounded (`--tmpfs-kb`,
/// what it holds counts as the tree's memory), owned by the command's
/// user.
fn tmpfs_options(args: &Args, mode: &str) -> String {
    let mut o = format!("mode={mode}");
    if args.tmpfs_kb > 0 {
        o.push_str(&format!(",size={}k", args.tmpfs_kb));
    }
    if let Some((uid, gid)) = args.ids {
        o.push_str(&format!(",uid={uid},gid={gid}"));
    }
    o
}

/// Covers `target` with a fresh tmpfs (`data`: its options) and binds back
/// every held directory that lies under it; `readonly` then makes the
/// tmpfs itself read-only (the bound directories keep their own mode).
unsafe fn cover(target: &Path, data: &str, readonly: bool, held: &[Held]) -> Result<(), String> {
    // SAFETY: mount(2) and mount_setattr(2) with valid arguments.
    unsafe {
        let flags = libc::MS_NOSUID | libc::MS_NODEV;
        if mount("tmpfs", target, "tmpfs", flags, data) != 0 {
            return Err(failed("mount tmpfs on", target));
        }
        for h in held.iter().filter(|h| h.path.starts_with(target)) {
            h.bind(None)?;
        }
    }
    if readonly && set_readonly(target, true, false) != 0 {
        return Err(failed("make read-only", target));
    }
    Ok(())
}

/// The device nodes a program may use: a fresh /dev holds only these,
/// bound from the real ones, plus its own /dev/pts and /dev/shm. No
/// other node exists, and mounts elsewhere are `nodev`.
const DEVICES: &[&str] = &["null", "zero", "full", "random", "urandom", "tty"];

/// A minimal /dev: a read-only tmpfs with `DEVICES`, the usual symlinks,
/// a private devpts and a bounded /dev/shm.
unsafe fn minimal_dev(args: &Args) -> Result<(), String> {
    let dev = Path::new("/dev");
    // SAFETY: open/mount/symlink with valid arguments.
    unsafe {
        let held: Vec<(String, i32)> = DEVICES
            .iter()
            .filter_map(|d| {
                let fd = libc::open(cstr(&dev.join(d)).as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
                (fd >= 0).then(|| (d.to_string(), fd))
            })
            .collect();
        if mount(
            "tmpfs",
            dev,
            "tmpfs",
            libc::MS_NOSUID | libc::MS_NOEXEC,
            "mode=0755,size=64k",
        ) != 0
        {
            return Err(failed("mount tmpfs on", dev));
        }
        for (name, fd) in &held {
            let node = dev.join(name);
            let _ = std::fs::File::create(&node);
            let src = format!("/proc/self/fd/{fd}");
            // The node's own mount was made `nodev` with the rest; this
            // bind of it is the one place where a device works.
            if mount(&src, &node, "", libc::MS_BIND, "") != 0
                || setattr(&node, 0, MOUNT_ATTR_NODEV, false) != 0
            {
                return Err(failed("bind", &node));
            }
            libc::close(*fd);
        }
        for (link, to) in [
            ("fd", "/proc/self/fd"),
            ("stdin", "/proc/self/fd/0"),
            ("stdout", "/proc/self/fd/1"),
            ("stderr", "/proc/self/fd/2"),
            ("ptmx", "pts/ptmx"),
        ] {
            let _ = std::os::unix::fs::symlink(to, dev.join(link));
        }
        let pts = dev.join("pts");
        mkdir_p(&pts);
        // A devpts of its own: the host's terminals are not in it.
        let _ = mount(
            "devpts",
            &pts,
            "devpts",
            libc::MS_NOSUID | libc::MS_NOEXEC,
            "newinstance,ptmxmode=0666,mode=0620",
        );
        let shm = dev.join("shm");
        mkdir_p(&shm);
        if mount(
            "tmpfs",
            &shm,
            "tmpfs",
            libc::MS_NOSUID | libc::MS_NODEV,
            &tmpfs_options(args, "1777"),
        ) != 0
        {
            return Err(failed("mount tmpfs on", &shm));
        }
    }
    if set_readonly(dev, true, false) != 0 {
        return Err(failed("make read-only", dev));
    }
    Ok(())
}

/// Parts of a fresh /proc that turn the kernel's knobs: bound read-only
/// over themselves (as container runtimes do), whoever the command is.
const PROC_READONLY: &[&str] = &["sys", "sysrq-trigger", "irq", "bus", "fs"];

/// A /proc of the namespace, its knobs read-only.
unsafe fn fresh_proc() -> Result<(), String> {
    let proc_ = Path::new("/proc");
    // SAFETY: mount(2) with valid arguments.
    unsafe {
        if mount(
            "proc",
            proc_,
            "proc",
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            "",
        ) != 0
        {
            return Err(failed("mount", proc_));
        }
        for p in PROC_READONLY {
            let p = proc_.join(p);
            if !p.exists() {
                continue;
            }
            if mount(
                &p.to_string_lossy(),
                &p,
                "",
                libc::MS_BIND | libc::MS_REC,
                "",
            ) != 0
            {
                return Err(failed("bind", &p));
            }
            if set_readonly(&p, true, true) != 0 {
                return Err(failed("make read-only", &p));
            }
        }
    }
    Ok(())
}

/// Builds the program's view of the filesystem, inside the new mount
/// namespace (called by init, before the command is forked):
/// - everything read-only, and `nodev` wherever it is not /dev;
/// - a private, bounded tmpfs on /tmp and /dev/shm;
/// - the writable directories (the build directory with HOME in it, a
///   `prepare` step's private copy) bound read-write at their own paths, the persistent caches read-write at
///   their places in HOME, the toolchain directories of the real home
///   read-only there;
/// - the real home directories (the maintainer's, /root, /home) covered
///   by an empty read-only tmpfs with only the toolchains in them bound
///   back, their configuration and credential files covered;
/// - /run (so /var/run) covered: no host service's unix socket;
/// - the hidden paths (the results directory) covered;
/// - a minimal /dev and a /proc of the namespace with its knobs read-only.
fn build_view(args: &Args) -> Result<(), String> {
    let cwd = match &args.cwd {
        Some(c) => c.clone(),
        None => std::env::current_dir().map_err(|e| format!("sandbox: cwd: {e}"))?,
    };
    let masks = home_masks(args.real_home.as_deref(), &args.masks);
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
            return Err(failed("make private", Path::new("/")));
        }
        // What is about to be covered (/tmp, the homes) but must stay
        // visible: held by fd, bound back from there.
        let mut held = Vec::new();
        for w in &args.rw {
            held.push(Held::open(w, w, true).ok_or_else(|| failed("open writable dir", w))?);
        }
        for r in args.ro.iter().chain(&home_keeps(&masks)) {
            held.extend(Held::open(r, r, false));
        }
        // Caches and the real home's toolchain directories, bound into
        // HOME at the end.
        let mut into_home = Vec::new();
        if let (Some(dir), Some(home)) = (&args.home_dir, &args.home) {
            // The run's fresh HOME first, then what is bound into it.
            mkdir_owned(dir, args.ids);
            into_home.push(Held::open(dir, home, true).ok_or_else(|| failed("open HOME", dir))?);
        }
        for (src, dst) in &args.binds {
            into_home.push(Held::open(src, dst, true).ok_or_else(|| failed("open cache", src))?);
        }
        for (src, dst) in &args.ro_binds {
            into_home.extend(Held::open(src, dst, false));
        }
        // Parents before what lies in them: a read-only directory bound
        // after a writable one inside it would cover it.
        held.sort_by_key(|h| h.path.components().count());
        if set_readonly(Path::new("/"), true, true) != 0 {
            return Err(failed("make read-only", Path::new("/")));
        }
        set_nodev(Path::new("/"))?;
        cover(
            Path::new("/tmp"),
            &tmpfs_options(args, "1777"),
            false,
            &held,
        )?;
        minimal_dev(args)?;
        // The writable directories elsewhere.
        // (Those under /tmp were bound back with it, those in a home are
        // bound back with it below.)
        for h in held.iter().filter(|h| {
            h.writable
                && !h.path.starts_with("/tmp")
                && !masks.iter().any(|m| h.path.starts_with(m))
        }) {
            h.bind(None)?;
        }
        // The homes, with what a run needs from them bound back.
        for m in masks.iter().filter(|m| !m.starts_with("/tmp")) {
            cover(m, "size=64k,mode=0755", true, &held)?;
        }
        if let Some(home) = &args.home {
            mkdir_owned(home, args.ids);
            for h in &into_home {
                h.bind(args.ids)?;
            }
        }
        for h in held.iter().chain(&into_home) {
            libc::close(h.fd);
        }
        cover_credentials(args, &masks);
        if let Some(home) = &args.home {
            passwd_with_home(args, home)?;
        }
        for run in [Path::new("/run"), Path::new("/var/run")] {
            if run.is_dir() && !run.is_symlink() {
                cover(run, "size=4k,mode=0755", true, &[])?;
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
        fresh_proc()?;
        // Resolve the working directory again through the new mounts (the
        // old handle points into the now covered /tmp).
        if libc::chdir(cstr(&cwd).as_ptr()) != 0 {
            return Err(failed("chdir", &cwd));
        }
    }
    Ok(())
}

/// /etc/passwd as the command sees it: its user's entry gives the
/// sandbox's HOME as its home directory (and exists: a line is added for a
/// user the host's file lacks). Programs that ask the password database
/// rather than $HOME (Java's `user.home`, so Maven and Gradle; ssh) find
/// HOME, not `nobody`'s `/nonexistent` or the maintainer's real home.
unsafe fn passwd_with_home(args: &Args, home: &Path) -> Result<(), String> {
    // SAFETY: geteuid/getegid cannot fail.
    let (uid, gid) = args
        .ids
        .unwrap_or_else(|| unsafe { (libc::geteuid(), libc::getegid()) });
    let host = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let home = home.display().to_string();
    let mut found = false;
    let mut out = String::new();
    for line in host.lines() {
        let mut f: Vec<&str> = line.split(':').collect();
        if f.len() >= 7 && f[2].parse() == Ok(uid) && !found {
            found = true;
            f[5] = &home;
            out.push_str(&f.join(":"));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    if !found {
        out.push_str(&format!(
            "langbench:x:{uid}:{gid}:langbench sandbox:{home}:/bin/sh\n"
        ));
    }
    let file = Path::new("/tmp/.langbench-passwd");
    std::fs::write(file, out).map_err(|e| format!("sandbox: write {}: {e}", file.display()))?;
    let target = Path::new("/etc/passwd");
    // SAFETY: a bind mount of a file we wrote over /etc/passwd.
    unsafe {
        if mount(&file.to_string_lossy(), target, "", libc::MS_BIND, "") != 0 {
            return Err(failed("bind", target));
        }
    }
    let _ = std::fs::remove_file(file);
    if set_readonly(target, true, false) != 0 {
        return Err(failed("make read-only", target));
    }
    Ok(())
}

/// Makes every mount under `path` `nodev` (device nodes on the host's
/// disks, a raw disk among them, stop working); /dev is replaced after.
fn set_nodev(path: &Path) -> Result<(), String> {
    if setattr(path, MOUNT_ATTR_NODEV, 0, true) != 0 {
        return Err(failed("make nodev", path));
    }
    Ok(())
}

/// Covers the configuration and credential files (`CREDENTIAL_FILES`) in
/// the real homes and in the sandbox's HOME by an empty file.
unsafe fn cover_credentials(args: &Args, masks: &[PathBuf]) {
    let bases = masks
        .iter()
        .map(PathBuf::as_path)
        .chain(args.home.as_deref());
    for base in bases {
        for c in CREDENTIAL_FILES {
            let p = base.join(c);
            if p.is_file() {
                // SAFETY: a bind mount of /dev/null with valid paths.
                let _ = unsafe { mount("/dev/null", &p, "", libc::MS_BIND, "") };
            }
        }
    }
}

/// Brings the loopback interface of a fresh network namespace up, so that
/// a program may still talk to itself on 127.0.0.1 (nothing else exists).
pub(crate) fn loopback_up() {
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
pub(crate) fn close_from(from: i32, keep: Option<i32>) {
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
        if args.isolate && !args.here {
            // Nothing langbench's parent left open passes on (fd 3 is the
            // report pipe).
            close_from(REPORT_FD + 1, None);
        }
        if let Some(ns) = &args.netns {
            // A `prepare` step's namespace, made by langbench, where its
            // registry proxy listens: joined instead of a fresh one.
            let fd = libc::open(cstr(ns).as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
            if fd < 0 || libc::setns(fd, libc::CLONE_NEWNET) != 0 {
                report(&format!(
                    "error cannot join the network namespace {}: {}\n",
                    ns.display(),
                    std::io::Error::from_raw_os_error(errno())
                ));
                return 2;
            }
            libc::close(fd);
            flags &= !libc::CLONE_NEWNET;
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
        let set = handled_signals();
        let init = libc::fork();
        if init < 0 {
            report(&format!("error fork failed: errno {}\n", errno()));
            return 2;
        }
        if init == 0 {
            libc::close(relay[0]);
            libc::dup2(relay[1], report_fd());
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
                exit: Exit::Signaled(libc::SIGKILL),
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
                bounds: Bounds::default(),
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
        let after = watch.clear_the_namespace(args);
        if args.here && exec_failed(started.errfd, &args.argv[0]) {
            return 2;
        }
        watch.report_done(args, &after);
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
        libc::close(report_fd());
        libc::close(errpipe[0]);
        if args.isolate {
            close_from(3, Some(errpipe[1]));
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
    /// `--cpus`, whose every task's affinity each sample checks.
    allowed: Option<libc::cpu_set_t>,
    /// The most tasks (processes and threads) a sample saw.
    peak_tasks: u64,
    /// A task could run outside `--cpus`.
    widened: bool,
    /// Free space (KB) of each watched filesystem when the command started.
    disk_start: Vec<(PathBuf, u64)>,
    /// Killed for writing more than `--disk-kb` to them.
    disk_killed: bool,
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
            disk_start: args
                .watch
                .iter()
                .filter_map(|p| Some((p.clone(), usage_kb(p)?.1)))
                .collect(),
            disk_killed: false,
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
            if args.disk_kb > 0 && !self.disk_killed {
                let wrote = self
                    .disk_start
                    .iter()
                    .filter_map(|(p, free)| Some(free.saturating_sub(usage_kb(p)?.1)))
                    .max()
                    .unwrap_or(0);
                if wrote > args.disk_kb {
                    self.disk_killed = true;
                    // SAFETY: as above.
                    unsafe { libc::kill(-1, libc::SIGKILL) };
                }
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
    fn report_done(&self, args: &Args, after: &Aftermath) {
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
            Err(why) => return send(&Report::Error(why)),
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
            bounds: Bounds {
                tasks: self.peak_tasks,
                // RLIMIT_NPROC counts every process of the user on the
                // machine, the sample only the namespace's, between
                // samples: near the bound is at it.
                proc_limit: args.max_procs > 0 && self.peak_tasks * 10 >= args.max_procs * 9,
                widened: self.widened,
                disk: self.disk_killed,
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
