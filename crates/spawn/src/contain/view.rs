//! The command's view of the filesystem, built by init inside the new
//! mount namespace before the command is forked: everything read-only and
//! `nodev`, a private bounded /tmp and /dev/shm, the writable directories
//! bound back, the real homes covered with only their PATH entries and
//! the toolchains these need bound back (`spawn::home`'s allowlist), a
//! minimal /dev, a /proc of the namespace; and a loopback of
//! its own without the host's network.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::super::kit::{Args, errno, write_line};
use crate::nofollow::{self, Create};

pub(super) fn cstr(p: &Path) -> CString {
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

/// `mount_setattr(2)` on the mount `fd` is open on (its root, opened
/// after the mount was made): no path is resolved again.
fn setattr_fd(fd: std::os::fd::BorrowedFd<'_>, readonly: bool, recursive: bool) -> i32 {
    use std::os::fd::AsRawFd;
    let attr = MountAttr {
        attr_set: if readonly { MOUNT_ATTR_RDONLY } else { 0 },
        attr_clr: if readonly { 0 } else { MOUNT_ATTR_RDONLY },
        propagation: 0,
        userns_fd: 0,
    };
    let mut tries = 0;
    loop {
        // SAFETY: plain syscall with a valid descriptor, an empty path and
        // an attribute struct.
        let r = unsafe {
            libc::syscall(
                libc::SYS_mount_setattr,
                fd.as_raw_fd(),
                c"".as_ptr(),
                libc::AT_EMPTY_PATH | if recursive { AT_RECURSIVE } else { 0 },
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

/// Configuration and credential files a run's earlier steps may have left
/// in the sandbox's HOME (a registry token, a mirror's password): covered
/// by an empty file there. Nothing of the real homes needs it: only what
/// `spawn::home` allows is bound back from them (an allowlist).
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

/// What must stay visible inside a covered home, at its own path
/// (`spawn::home` has the rule): each PATH entry in it, the directory
/// itself and never its parent (`~/.cargo/bin`, not `~/.cargo` with its
/// credentials; `~/go/bin`, not `~/go/src`'s checkouts), and the parts of
/// the toolchain manager's directory it lies in (`~/.pyenv/libexec` and
/// `~/.pyenv/versions` for `~/.pyenv/shims`), never the manager's
/// checkout, settings or tokens. What lies in another kept directory is
/// bound with it.
fn home_keeps(masks: &[PathBuf]) -> Vec<PathBuf> {
    let homes = Path::new("/home").canonicalize().ok();
    let mut keep = Vec::new();
    let path = std::env::var_os("PATH").unwrap_or_default();
    for p in std::env::split_paths(&path) {
        let Ok(p) = p.canonicalize() else { continue };
        if let Some((home, rel)) = home_of(&p, masks, homes.as_deref()) {
            let given = super::super::home::path_entry(&home, rel);
            keep.extend(given.into_iter().map(|r| home.join(r)));
        }
    }
    keep.sort();
    keep.dedup();
    let all = keep.clone();
    keep.retain(|k| !all.iter().any(|o| o != k && k.starts_with(o)));
    keep
}

/// The home the canonical path `p` lies in, and `p` relative to it. A
/// mask is a home (the real HOME, /root), but `/home` holds them: there
/// the home is `/home/NAME`.
fn home_of<'a>(
    p: &'a Path,
    masks: &[PathBuf],
    homes: Option<&Path>,
) -> Option<(PathBuf, &'a Path)> {
    let m = masks.iter().find(|m| p.starts_with(m))?;
    let rel = p.strip_prefix(m).ok()?;
    if Some(m.as_path()) != homes {
        return Some((m.clone(), rel));
    }
    let first = rel.components().next()?.as_os_str();
    Some((m.join(first), rel.strip_prefix(first).ok()?))
}

/// A directory (or a toolchain's file: `~/.rustup/settings.toml`) held by
/// an `O_PATH` fd, to be bound at a path after something covered its own.
struct Held {
    /// Where it is bound (its own path, or a bind's target).
    path: PathBuf,
    /// Where it is on the host (canonical where langbench can tell).
    src: PathBuf,
    fd: i32,
    writable: bool,
    /// A regular file, not a directory: its mount point is a file.
    file: bool,
}

impl Held {
    /// Opens `src`, a directory or a regular file, to be bound at `path`;
    /// `None` if it cannot be opened or is neither. For what no command can
    /// write (toolchains of the real home, the languages file's
    /// directory): links in it are followed.
    fn open(src: &Path, path: &Path, writable: bool) -> Option<Held> {
        use std::os::fd::{FromRawFd, IntoRawFd, OwnedFd};
        // SAFETY: open(2) with a NUL-terminated path.
        let fd = unsafe { libc::open(cstr(src).as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
        if fd < 0 {
            return None;
        }
        // SAFETY: a descriptor just opened, owned here.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let kind = rustix::fs::fstat(&fd)
            .map(|st| rustix::fs::FileType::from_raw_mode(st.st_mode))
            .ok()?;
        let file = match kind {
            rustix::fs::FileType::Directory => false,
            rustix::fs::FileType::RegularFile => true,
            _ => return None,
        };
        Some(Held {
            path: path.to_path_buf(),
            src: src.canonicalize().unwrap_or_else(|_| src.to_path_buf()),
            fd: fd.into_raw_fd(),
            writable,
            file,
        })
    }

    /// Opens `src`, a directory a command could write (a build directory,
    /// HOME, a cache, a prepared copy) or one that lies in such a
    /// directory, to be bound at `path`, by its canonical path without
    /// following a link anywhere in it (issue #37): a link a command left
    /// where a directory was is an error, never bound. With `create`, the
    /// directory itself is made if missing (its parent must exist).
    fn open_nofollow(
        src: &Path,
        path: &Path,
        writable: bool,
        create: Option<Create>,
    ) -> Result<Held, String> {
        use std::os::fd::{AsFd, IntoRawFd};
        let opened = match (create, src.parent(), src.file_name()) {
            (Some(create), Some(parent), Some(name)) => nofollow::open_absolute(parent)
                .and_then(|p| nofollow::dir_beneath(p.as_fd(), Path::new(name), create)),
            _ => nofollow::open_absolute(src),
        };
        let fd = opened.map_err(|e| format!("sandbox: open {}: {e}", src.display()))?;
        Ok(Held {
            path: path.to_path_buf(),
            src: src.to_path_buf(),
            fd: fd.into_raw_fd(),
            writable,
            file: false,
        })
    }

    /// Binds it at `rel` beneath the directory `under` (the run's HOME,
    /// which its earlier steps wrote): every directory on the way created
    /// (owned by `ids`) and opened without following a link, the mount
    /// made on that very directory and its mode set on the mount made, by
    /// descriptor.
    unsafe fn bind_beneath(
        &self,
        under: std::os::fd::BorrowedFd<'_>,
        rel: &Path,
        ids: Option<(u32, u32)>,
    ) -> Result<(), String> {
        use std::os::fd::{AsFd, AsRawFd};
        let create = match ids {
            Some((uid, gid)) => Create::OwnedBy(uid, gid),
            None => Create::Yes,
        };
        let refused = |e: std::io::Error| format!("sandbox: bind {}: {e}", self.path.display());
        let beneath = |create| {
            if self.file {
                file_beneath(under, rel, create)
            } else {
                nofollow::dir_beneath(under, rel, create)
            }
        };
        let target = beneath(create).map_err(refused)?;
        let src = format!("/proc/self/fd/{}", self.fd);
        let dst = PathBuf::from(format!("/proc/self/fd/{}", target.as_raw_fd()));
        // SAFETY: mount(2) with valid arguments.
        unsafe {
            if mount(&src, &dst, "", libc::MS_BIND | libc::MS_REC, "") != 0 {
                return Err(failed("bind", &self.path));
            }
        }
        let mounted = beneath(Create::No).map_err(refused)?;
        if setattr_fd(mounted.as_fd(), !self.writable, !self.writable) != 0 {
            return Err(failed("set the mode of", &self.path));
        }
        Ok(())
    }

    /// Binds it at its path (created if missing, owned by `ids`; a file's
    /// mount point an empty file, in a tmpfs of the sandbox's own).
    unsafe fn bind(&self, ids: Option<(u32, u32)>) -> Result<(), String> {
        match (self.file, self.path.parent()) {
            (true, Some(parent)) => {
                mkdir_owned(parent, ids);
                if !self.path.exists() {
                    let _ = std::fs::File::create(&self.path);
                }
            }
            _ => mkdir_owned(&self.path, ids),
        }
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

/// The mount point of a file at `rel` beneath the directory `under` (the
/// run's HOME, which its earlier steps wrote): its directories created
/// (`create`) and opened without following a link, the file created if
/// missing and opened without following a link (a link planted there is
/// an error), nonblocking (a FIFO planted there cannot hold init; it is
/// refused, as anything but a regular file is).
fn file_beneath(
    under: std::os::fd::BorrowedFd<'_>,
    rel: &Path,
    create: Create,
) -> std::io::Result<std::os::fd::OwnedFd> {
    use rustix::fs::{FileType, Mode, OFlags};
    let (Some(parent), Some(name)) = (rel.parent(), rel.file_name()) else {
        return Err(std::io::Error::from(std::io::ErrorKind::InvalidInput));
    };
    let dir = nofollow::dir_beneath(under, parent, create)?;
    let flags = match create {
        Create::No => OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        _ => {
            OFlags::RDONLY | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC
        }
    };
    let fd = rustix::fs::openat(&dir, name, flags, Mode::from_raw_mode(0o644))?;
    let st = rustix::fs::fstat(&fd)?;
    if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
        return Err(std::io::Error::from(std::io::ErrorKind::InvalidInput));
    }
    Ok(fd)
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
///   their places in HOME, the parts of toolchain managers' directories
///   the variant's `home` entries name read-only there;
/// - the real home directories (the maintainer's, /root, /home) covered
///   by an empty read-only tmpfs with only their PATH entries (each
///   itself, never its parent) and the parts of the toolchain managers'
///   directories these lie in bound back (`spawn::home`: an allowlist);
/// - /run (so /var/run) covered: no host service's unix socket;
/// - the hidden paths (the results directory) covered;
/// - a minimal /dev and a /proc of the namespace with its knobs read-only.
fn build_view(args: &Args) -> Result<(), String> {
    let cwd = match &args.cwd {
        Some(c) => c.clone(),
        None => std::env::current_dir().map_err(|e| format!("sandbox: cwd: {e}"))?,
    };
    let masks = home_masks(args.real_home.as_deref(), &args.masks);
    // What no bind may show (langbench's state, the results), as the host
    // names them before any mount changes the view.
    let canonical = |l: &[PathBuf]| -> Vec<PathBuf> {
        l.iter().filter_map(|p| p.canonicalize().ok()).collect()
    };
    let (protect, hidden) = (canonical(&args.masks), canonical(&args.hide));
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
        let (held, into_home) = hold(args, &masks)?;
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
        bind_home(args, &into_home)?;
        cover_again(&protect, &hidden, &held, &into_home)?;
        for h in held.iter().chain(&into_home) {
            libc::close(h.fd);
        }
        cover_credentials(args);
        if let Some(home) = &args.home {
            passwd_with_home(args, home)?;
        }
        cover_run_and_hidden(args)?;
        fresh_proc()?;
        // Resolve the working directory again through the new mounts (the
        // old handle points into the now covered /tmp).
        if libc::chdir(cstr(&cwd).as_ptr()) != 0 {
            return Err(failed("chdir", &cwd));
        }
    }
    Ok(())
}

/// What is about to be covered but must stay visible, held by fd
/// (parents first), and what is bound into HOME at the end.
fn hold(args: &Args, masks: &[PathBuf]) -> Result<(Vec<Held>, Vec<Held>), String> {
    // What is about to be covered (/tmp, the homes) but must stay
    // visible: held by fd, bound back from there.
    let mut held = Vec::new();
    for w in &args.rw {
        held.push(Held::open_nofollow(w, w, true, None)?);
    }
    for r in args.ro.iter().chain(&home_keeps(masks)) {
        held.extend(Held::open(r, r, false));
    }
    // Caches and the real home's toolchain directories, bound into
    // HOME at the end.
    let mut into_home = Vec::new();
    if let (Some(dir), Some(home)) = (&args.home_dir, &args.home) {
        // The run's HOME first, then what is bound into it. It lies in
        // the build directory, which the run's earlier steps could
        // write: opened without following a link.
        let create = match args.ids {
            Some((uid, gid)) => Create::OwnedBy(uid, gid),
            None => Create::Yes,
        };
        into_home.push(Held::open_nofollow(dir, home, true, Some(create))?);
    }
    for (src, dst) in &args.binds {
        into_home.push(Held::open_nofollow(src, dst, true, None)?);
    }
    for (src, dst) in &args.ro_binds {
        into_home.extend(Held::open(src, dst, false));
    }
    // Parents before what lies in them: a read-only directory bound
    // after a writable one inside it would cover it.
    held.sort_by_key(|h| h.path.components().count());
    Ok((held, into_home))
}

/// HOME (a fresh mount point in the private /tmp), then what goes in it.
///
/// # Safety
/// Changes the mounts of the calling process's namespace.
unsafe fn bind_home(args: &Args, into_home: &[Held]) -> Result<(), String> {
    // SAFETY: bind(2) calls of held fds, as build_view makes them.
    unsafe {
        if let Some(home) = &args.home {
            mkdir_owned(home, args.ids);
            // HOME first (a fresh mount point in the private /tmp), then
            // what goes in it, beneath it without following a link: its
            // content is what the run's earlier steps left.
            let mut home_fd = None;
            for h in into_home {
                match (&home_fd, h.path.strip_prefix(home)) {
                    (Some(under), Ok(rel)) if !rel.as_os_str().is_empty() => {
                        h.bind_beneath(std::os::fd::AsFd::as_fd(under), rel, args.ids)?
                    }
                    _ => h.bind(args.ids)?,
                }
                if h.path == *home {
                    home_fd = Some(
                        nofollow::open_trusted(home)
                            .map_err(|e| format!("sandbox: open HOME: {e}"))?,
                    );
                }
            }
        }
    }
    Ok(())
}

/// /run (so /var/run) covered: no host service's unix socket; the hidden
/// paths (the results directory) covered.
///
/// # Safety
/// Changes the mounts of the calling process's namespace.
unsafe fn cover_run_and_hidden(args: &Args) -> Result<(), String> {
    // SAFETY: mount(2) calls with valid arguments.
    unsafe {
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
            } else if h.is_file() {
                // A file (a worktree's `.git`): empty, as /dev/null reads.
                let _ = mount("/dev/null", h, "", libc::MS_BIND, "");
            }
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
/// the sandbox's HOME by an empty file. HOME is what the run's earlier
/// steps wrote, so a file is covered only where it lies, reached without
/// following a link. (The real homes need no such list: nothing of them
/// is bound back but what `spawn::home` allows.)
unsafe fn cover_credentials(args: &Args) {
    use std::os::fd::{AsFd, AsRawFd};
    let Some(home) = &args.home else { return };
    let Ok(home) = nofollow::open_trusted(home) else {
        return;
    };
    for c in CREDENTIAL_FILES {
        let c = Path::new(c);
        let (Some(dir), Some(name)) = (c.parent(), c.file_name()) else {
            continue;
        };
        let Ok(dir) = nofollow::dir_beneath(home.as_fd(), dir, Create::No) else {
            continue;
        };
        let Ok(file) = rustix::fs::openat(
            &dir,
            name,
            rustix::fs::OFlags::PATH | rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        ) else {
            continue;
        };
        let regular = rustix::fs::fstat(&file).is_ok_and(|st| {
            rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::RegularFile
        });
        if regular {
            let at = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
            // SAFETY: a bind mount of /dev/null on a file held open.
            let _ = unsafe { mount("/dev/null", &at, "", libc::MS_BIND, "") };
        }
    }
}

/// langbench's own state directory (`protect`: every variant's caches and
/// prepared copies) and the hidden paths stay covered wherever a bind
/// shows them (issue #37): a directory bound at its own path that holds
/// one (the languages file's directory, a toolchain's directory of the
/// home) gets it covered again, what the command is given inside it bound
/// back; a directory bound into HOME that holds one (`home =
/// ["~/.rustup"]` with the state directory in it) gets its place there
/// covered.
///
/// `protect` and `hide` are canonical, as they were before any mount.
unsafe fn cover_again(
    protect: &[PathBuf],
    hide: &[PathBuf],
    held: &[Held],
    into_home: &[Held],
) -> Result<(), String> {
    for p in protect {
        if held.iter().any(|h| p.starts_with(&h.src) && *p != h.src) {
            // SAFETY: mounts of a fresh tmpfs and of held directories.
            unsafe { cover(p, "size=4k,mode=0555", true, held)? };
        }
    }
    for p in protect.iter().chain(hide) {
        for h in into_home {
            if let Ok(rest) = p.strip_prefix(&h.src)
                && !rest.as_os_str().is_empty()
            {
                let at = h.path.join(rest);
                if at.is_dir() {
                    // SAFETY: a fresh tmpfs over a directory of a bind.
                    unsafe { cover(&at, "size=4k,mode=0555", true, &[])? };
                }
            }
        }
    }
    Ok(())
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

/// The namespace's filesystem: the sandbox's view (and a loopback of its
/// own without the host's network), or without the sandbox only a /proc of
/// its own. `false`: it could not (reported).
pub(super) unsafe fn set_up_mounts(args: &Args) -> bool {
    // SAFETY: mount(2) in init's own mount namespace.
    unsafe {
        if args.isolate {
            if let Err(e) = build_view(args) {
                write_line(&format!("error {e}\n"));
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
            write_line(&format!("error sandbox: mount /proc: errno {}\n", errno()));
            return false;
        }
        true
    }
}
