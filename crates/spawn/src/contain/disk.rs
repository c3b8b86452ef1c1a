//! init's watch over what a sandboxed run writes to the host's disk (its
//! build directory, caches and prepared copy): `--disk-kb` and
//! `--disk-files` count what the run itself wrote, never what other
//! processes write beside it (issue #59: comparing the filesystem's free
//! space alone killed an honest run while a build ran next to it).
//!
//! Counting by walking the directories every sample would cost a walk of
//! every cache per 50 ms; so the filesystems' free space (blocks and
//! inodes, one `fstatvfs` each) is the trigger, and the walk the judge:
//! - while the filesystems lost less than the bound since the command
//!   started, the run cannot have written more (what it writes is part of
//!   what they lose), and nothing is walked;
//! - once they lost more, the watched directories are walked (bounded,
//!   from descriptors opened before the sandbox's mounts, following no
//!   link) for what changed since the command started (an inode's change
//!   time is the kernel's: no command sets it back), and the files the
//!   namespace's processes hold open after unlinking them are added: the
//!   run's own writes. Past the bound, the tree is killed; within it, the
//!   rest was another process's, and the next walk waits until the
//!   filesystems lose what the run may still write, and for at least 20
//!   times the last walk's duration (the walk costs at most 5 % of a CPU).
//!
//! A walk cut short (directories nested past what it enters, more entries
//! than it looks at, a process whose descriptors it may not read) cannot
//! tell: the filesystems' loss is taken as the run's, as before. Not counted: what a process of the namespace maps
//! after unlinking it (no descriptor left) while another process writes
//! beside it, and space freed by others while the run writes (both hide
//! from the trigger, not from the caches' bound after the run).

use std::os::fd::{AsFd, OwnedFd};

use super::super::kit::{Args, now_ns};
use crate::nofollow::{self, Bounds, Usage};

/// Which bound a run passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Past {
    /// `--disk-kb`.
    Kb,
    /// `--disk-files`.
    Files,
}

/// The watch: the directories, their filesystems' free space when the
/// command started, and when to look next.
pub(super) struct DiskWatch {
    /// The watched directories, opened before the sandbox's mounts.
    dirs: Vec<OwnedFd>,
    /// One directory per filesystem (an index into `dirs`), and its free
    /// KB and inodes when the command started.
    fs: Vec<(usize, u64, u64)>,
    /// The filesystems' devices (`st_dev`): where an unlinked open file
    /// counts.
    devs: Vec<u64>,
    /// When the command started (real-time clock, ns since the epoch).
    since: i128,
    limit_kb: u64,
    limit_files: u64,
    /// The loss (KB, inodes) past which the next walk is due.
    armed: (u64, u64),
    /// Not before this (monotonic ns).
    next_walk: u128,
    /// The command's user and group when init is root (`--ids`).
    ids: Option<(u32, u32)>,
}

/// `n` or, for a bound of 0, no bound.
fn bound(n: u64) -> u64 {
    if n == 0 { u64::MAX } else { n }
}

/// A figure of `stat`/`statvfs` as a `u64` (their types differ between
/// architectures).
fn number<T: TryInto<u64>>(n: T) -> u64 {
    n.try_into().unwrap_or(0)
}

impl DiskWatch {
    /// The watch of `args.watch` under its bounds, opened now (before the
    /// sandbox's mounts cover the host's paths); `None` without a bound or
    /// a directory to watch.
    pub(super) fn open(args: &Args) -> Option<DiskWatch> {
        if args.disk_kb == 0 && args.disk_files == 0 {
            return None;
        }
        let dirs: Vec<OwnedFd> = args
            .watch
            .iter()
            .filter_map(|p| nofollow::open_absolute(p).ok())
            .collect();
        let mut fs = Vec::new();
        let mut devs = Vec::new();
        for (i, d) in dirs.iter().enumerate() {
            let Ok(st) = rustix::fs::fstat(d) else {
                continue;
            };
            let dev = number(st.st_dev);
            if !devs.contains(&dev) {
                devs.push(dev);
                fs.push((i, 0, 0));
            }
        }
        if fs.is_empty() {
            return None;
        }
        let mut w = DiskWatch {
            dirs,
            fs,
            devs,
            since: 0,
            limit_kb: bound(args.disk_kb),
            limit_files: bound(args.disk_files),
            armed: (bound(args.disk_kb), bound(args.disk_files)),
            next_walk: 0,
            ids: args.ids,
        };
        w.start();
        Some(w)
    }

    /// From now on: the filesystems' free space now, the time now (less
    /// a clock tick, which the kernel's change times may lag by).
    fn start(&mut self) {
        for i in 0..self.fs.len() {
            let (kb, files) = self.free(self.fs[i].0);
            (self.fs[i].1, self.fs[i].2) = (kb, files);
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128);
        self.since = now - 20_000_000;
    }

    /// Free KB and inodes of the filesystem of `dirs[i]` (for whoever is
    /// not root: what the run could take).
    fn free(&self, i: usize) -> (u64, u64) {
        match rustix::fs::fstatvfs(&self.dirs[i]) {
            Ok(st) => (st.f_bavail * st.f_frsize / 1024, st.f_ffree),
            Err(_) => (0, 0),
        }
    }

    /// What the filesystems lost since the command started (KB, inodes).
    fn lost(&self) -> (u64, u64) {
        self.fs
            .iter()
            .fold((0, 0), |(kb, files), &(i, kb0, files0)| {
                let (kb1, files1) = self.free(i);
                (
                    kb + kb0.saturating_sub(kb1),
                    files + files0.saturating_sub(files1),
                )
            })
    }

    /// One look at `now` (monotonic ns): the bound the run passed, if it
    /// did (then the tree is to be killed).
    pub(super) fn check(&mut self, now: u128) -> Option<Past> {
        let (kb, files) = self.lost();
        if (kb <= self.armed.0 && files <= self.armed.1) || now < self.next_walk {
            return None;
        }
        let t = now_ns();
        let own = self.own();
        self.next_walk = now + 20 * now_ns().saturating_sub(t);
        let (own_kb, own_files) = match own.cut {
            // It cannot tell: the loss is the run's.
            Some(_) => (kb, files),
            None => (own.kb, own.files),
        };
        if own_kb > self.limit_kb {
            return Some(Past::Kb);
        }
        if own_files > self.limit_files {
            return Some(Past::Files);
        }
        self.armed = (
            kb.saturating_add(self.limit_kb - own_kb),
            files.saturating_add(self.limit_files - own_files),
        );
        None
    }

    /// What the run wrote: what changed in the watched directories since
    /// it started, and what its processes hold open unlinked there.
    fn own(&self) -> Usage {
        // Old entries are walked too (a cache's): room for the caches'
        // bound twice over before the walk gives up.
        let bounds = Bounds::entries(self.limit_files.saturating_mul(3).saturating_add(10_000));
        let mut u = Usage::default();
        for d in &self.dirs {
            match nofollow::usage(d.as_fd(), bounds, Some(self.since)) {
                Ok(more) => u = u + more,
                Err(_) => u.cut = Some(nofollow::Cut::Many),
            }
        }
        match self.unlinked_kb() {
            Some(kb) => u.kb += kb,
            // Descriptors it could not read: as a walk cut short, it
            // cannot tell (the filesystems' loss is the run's).
            None => u.cut = Some(nofollow::Cut::Many),
        }
        u
    }

    /// KB of the regular files on the watched filesystems that the
    /// namespace's processes hold open after unlinking them (this
    /// namespace's /proc: only its own), looking at 100,000 descriptors at
    /// most; `None` when a process's descriptors could not be read (a
    /// process that made itself undumpable, in a container without
    /// CAP_SYS_PTRACE): it cannot tell.
    ///
    /// Read with the command's filesystem ids (`ids`, when init is root):
    /// /proc shows a process's descriptors to a reader of its own ids
    /// without CAP_SYS_PTRACE, which a container's root usually lacks
    /// (podman's and Kubernetes' default capabilities leave it out), so
    /// that as root the hidden file was not seen there (deploy/rehearse.sh).
    fn unlinked_kb(&self) -> Option<u64> {
        use std::os::unix::fs::MetadataExt;
        let _as = FsIds::of(self.ids);
        let procs = std::fs::read_dir("/proc").ok()?;
        let me = std::process::id().to_string();
        let mut kb = 0;
        let mut seen = 0;
        // A file several processes (or descriptors) hold counts once.
        let mut counted = std::collections::HashSet::new();
        // Gone meanwhile (an exited process, a closed descriptor): nothing
        // to count. Any other error: it cannot tell.
        let gone = |e: &std::io::Error| e.kind() == std::io::ErrorKind::NotFound;
        for p in procs.flatten() {
            let name = p.file_name();
            if !name.as_encoded_bytes().iter().all(u8::is_ascii_digit) || name == *me {
                continue;
            }
            let fds = match std::fs::read_dir(p.path().join("fd")) {
                Ok(fds) => fds,
                Err(e) if gone(&e) => continue,
                Err(_) => return None,
            };
            for fd in fds.flatten() {
                seen += 1;
                if seen > 100_000 {
                    return Some(kb);
                }
                // Follows the descriptor to the open file itself.
                let m = match std::fs::metadata(fd.path()) {
                    Ok(m) => m,
                    Err(e) if gone(&e) => continue,
                    Err(_) => return None,
                };
                if m.is_file()
                    && m.nlink() == 0
                    && self.devs.contains(&m.dev())
                    && counted.insert((m.dev(), m.ino()))
                {
                    kb += m.blocks() / 2;
                }
            }
        }
        Some(kb)
    }
}

/// While alive, init's filesystem uid and gid are the command's (for
/// reading its /proc entries); dropped, they are init's again. Without
/// `ids` (init is not root: the command runs as init's own user), nothing
/// changes.
struct FsIds(Option<(u32, u32)>);

impl FsIds {
    fn of(ids: Option<(u32, u32)>) -> FsIds {
        FsIds(ids.map(|(uid, gid)| {
            // SAFETY: setfsgid/setfsuid change only this (single-threaded)
            // process's filesystem ids; each returns the previous one.
            unsafe { (libc::setfsuid(uid) as u32, libc::setfsgid(gid) as u32) }
        }))
    }
}

impl Drop for FsIds {
    fn drop(&mut self) {
        if let Some((uid, gid)) = self.0 {
            // SAFETY: as above; init's own ids back (allowed: its euid is
            // the fsuid it had).
            unsafe {
                libc::setfsgid(gid);
                libc::setfsuid(uid);
            }
        }
    }
}
