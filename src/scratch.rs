//! Scratch directories (build directories, version probes, ws servers):
//! named after the langbench process that made them and `flock`ed by it
//! while it lives, so that the next session removes those a killed
//! langbench left behind (SIGKILL, a second Ctrl-C, a crash skip
//! `TempDir`'s cleanup) and never one still in use.

use std::ffi::{CStr, CString, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

const PREFIX: &str = "langbench-";

/// A scratch directory, removed (whatever a run left in it, however deep)
/// when dropped; what could not be removed is said on stderr.
#[derive(Debug)]
pub(crate) struct Dir {
    path: PathBuf,
    /// The directory itself, open and `flock`ed until it is removed: the
    /// kernel drops the lock when this process dies, however it dies.
    _held: std::fs::File,
}

impl Dir {
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        if let Err(e) = remove_tree(&self.path) {
            eprintln!("warning: {e}");
        }
    }
}

/// A fresh scratch directory `langbench-<kind>-<pid>-XXXXXX` under the
/// system temp directory, removed when dropped.
pub(crate) fn dir(kind: &str) -> Result<Dir> {
    let t = tempfile::Builder::new()
        .prefix(&format!("{PREFIX}{kind}-{}-", std::process::id()))
        .tempdir()
        .with_context(|| format!("cannot create a {kind} directory"))?;
    // Locked before `keep`: on failure `t` still removes the directory.
    let held = std::fs::File::open(t.path())
        .and_then(|f| f.try_lock().map(|()| f).map_err(std::io::Error::from))
        .with_context(|| format!("cannot lock {}", t.path().display()))?;
    Ok(Dir {
        path: t.keep(),
        _held: held,
    })
}

/// Removes `top` and everything under it, holding at most two
/// descriptors whatever the depth, and never following a symlink.
///
/// Hand-written (rather than `std::fs::remove_dir_all` or a crate): those
/// hold a descriptor per level, so a run that nests 30,000 directories
/// made them fail with EMFILE and leave it all behind; and paths that deep
/// are longer than PATH_MAX, so a path-based walk fails too. This one goes
/// down with `openat` and back up with `openat(..)`, as `rm -rf` does, and
/// keeps only the names on the way down. `Err` says what is left.
pub(crate) fn remove_tree(top: &Path) -> Result<(), String> {
    let meta = match std::fs::symlink_metadata(top) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("cannot remove {}: {e}", top.display())),
    };
    if !meta.is_dir() {
        return std::fs::remove_file(top)
            .map_err(|e| format!("cannot remove {}: {e}", top.display()));
    }
    let fail = |what: &str| {
        format!(
            "cannot remove {} ({what}: {}); what is left stays there",
            top.display(),
            std::io::Error::last_os_error()
        )
    };
    let c = CString::new(top.as_os_str().as_bytes()).map_err(|_| fail("NUL in the path"))?;
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    // SAFETY: openat/unlinkat/fdopendir/readdir on descriptors this
    // function owns; each readdir entry is copied before the next call.
    unsafe {
        let mut fd = libc::open(c.as_ptr(), flags);
        if fd < 0 {
            return Err(fail("open"));
        }
        let mut names: Vec<OsString> = Vec::new();
        loop {
            let Some(sub) = empty_but_dirs(fd) else {
                libc::close(fd);
                return Err(fail("read a directory"));
            };
            match sub {
                Some(name) => {
                    let n = CString::new(name.as_bytes()).unwrap_or_default();
                    let child = libc::openat(fd, n.as_ptr(), flags);
                    if child < 0 {
                        libc::close(fd);
                        return Err(fail("open a directory"));
                    }
                    libc::close(fd);
                    fd = child;
                    names.push(name);
                }
                None => {
                    let Some(name) = names.pop() else {
                        libc::close(fd);
                        break;
                    };
                    let parent = libc::openat(fd, c"..".as_ptr(), flags);
                    libc::close(fd);
                    if parent < 0 {
                        return Err(fail("go up"));
                    }
                    fd = parent;
                    let n = CString::new(name.as_bytes()).unwrap_or_default();
                    if libc::unlinkat(fd, n.as_ptr(), libc::AT_REMOVEDIR) != 0 {
                        libc::close(fd);
                        return Err(fail("remove a directory"));
                    }
                }
            }
        }
    }
    std::fs::remove_dir(top).map_err(|e| format!("cannot remove {}: {e}", top.display()))
}

/// Removes every non-directory entry of the directory `fd` and returns the
/// first subdirectory's name (`Some(None)`: none left); `None` on an error.
///
/// # Safety
/// `fd` is an open directory descriptor; it stays open.
unsafe fn empty_but_dirs(fd: i32) -> Option<Option<OsString>> {
    // SAFETY: a dup of fd for fdopendir (closedir closes the dup only).
    unsafe {
        let dup = libc::dup(fd);
        if dup < 0 {
            return None;
        }
        let dir = libc::fdopendir(dup);
        if dir.is_null() {
            libc::close(dup);
            return None;
        }
        let mut first_dir = None;
        loop {
            let e = libc::readdir(dir);
            if e.is_null() {
                break;
            }
            let name = CStr::from_ptr((*e).d_name.as_ptr());
            let bytes = name.to_bytes();
            if bytes == b"." || bytes == b".." {
                continue;
            }
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstatat(fd, name.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) != 0 {
                continue;
            }
            if st.st_mode & libc::S_IFMT == libc::S_IFDIR {
                if first_dir.is_none() {
                    first_dir = Some(OsString::from_vec(bytes.to_vec()));
                }
            } else {
                libc::unlinkat(fd, name.as_ptr(), 0);
            }
        }
        libc::closedir(dir);
        Some(first_dir)
    }
}

/// The pid a scratch directory's name carries.
fn owner(name: &str) -> Option<i32> {
    let rest = name.strip_prefix(PREFIX)?;
    let mut parts = rest.split('-');
    let _kind = parts.next()?;
    parts.next()?.parse().ok()
}

pub(crate) fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Removes scratch directories in `tmp` whose langbench is gone; returns
/// how many.
pub(crate) fn clean_stale_in(tmp: &Path) -> usize {
    remove_dead(tmp, owner)
}

/// Whether some process holds the `flock` of the directory `path` (its
/// scratch directory's [`Dir`]). A pid alone does not say: a langbench in
/// another PID namespace sharing this temp directory (containers on one
/// host's /tmp) has a pid that is not alive here, and its directories were
/// removed under it while it ran.
fn in_use(path: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW)
        .open(path)
        .is_ok_and(|f| matches!(f.try_lock(), Err(std::fs::TryLockError::WouldBlock)))
}

/// Removes the directories in `dir` whose name `owner` reads a pid from,
/// whose process is gone and whose lock no process holds (scratch
/// directories older langbench versions made hold none); returns how
/// many.
pub(crate) fn remove_dead(dir: &Path, owner: impl Fn(&str) -> Option<i32>) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(pid) = owner(&name)
            && !alive(pid)
            && e.file_type().is_ok_and(|t| t.is_dir())
            && !in_use(&e.path())
            && remove_tree(&e.path()).is_ok()
        {
            removed += 1;
        }
    }
    removed
}

/// [`clean_stale_in`] the system temp directory.
pub(crate) fn clean_stale() -> usize {
    clean_stale_in(&std::env::temp_dir())
}

/// Every entry under `top` that is not a directory (files, symbolic
/// links not followed, ...), in no order; unreadable directories are
/// skipped. Iterative, so depth cannot exhaust the stack.
pub(crate) fn entries_under(top: &Path) -> Vec<std::fs::DirEntry> {
    let mut found = Vec::new();
    let mut todo = vec![top.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => todo.push(e.path()),
                Ok(_) => found.push(e),
                Err(_) => {}
            }
        }
    }
    found
}

/// `chown -R` without following symlinks: `dir` itself is opened without
/// following one, everything beneath it reached from its descriptor
/// ([`langbench_spawn::nofollow::chown_tree`]), within `bounds`.
pub(crate) fn chown_tree(
    dir: &Path,
    uid: u32,
    gid: u32,
    bounds: langbench_spawn::nofollow::Bounds,
) -> Result<()> {
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
        anyhow::bail!("cannot chown {}", dir.display());
    };
    langbench_spawn::nofollow::open_trusted(parent)
        .and_then(|p| {
            langbench_spawn::nofollow::dir_beneath(
                std::os::fd::AsFd::as_fd(&p),
                Path::new(name),
                langbench_spawn::nofollow::Create::No,
            )
        })
        .and_then(|d| {
            langbench_spawn::nofollow::chown_tree(std::os::fd::AsFd::as_fd(&d), uid, gid, bounds)
        })
        .with_context(|| format!("cannot chown {}", dir.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_only_the_dirs_of_dead_processes() {
        let tmp = tempfile::tempdir().unwrap();
        // A pid that cannot be alive (above the kernel's pid_max).
        let dead = tmp.path().join("langbench-build-99999999-abc");
        let mine = tmp
            .path()
            .join(format!("langbench-build-{}-abc", std::process::id()));
        let other = tmp.path().join("unrelated-99999999");
        for d in [&dead, &mine, &other] {
            std::fs::create_dir(d).unwrap();
            std::fs::write(d.join("f"), "x").unwrap();
        }
        assert_eq!(clean_stale_in(tmp.path()), 1);
        assert!(!dead.exists());
        assert!(mine.exists() && other.exists());
        assert_eq!(owner("langbench-ws-42-x1"), Some(42));
        assert_eq!(owner("langbench-build-x-1"), None);
    }

    /// A directory whose pid is not alive here but whose lock is held (a
    /// langbench in another PID namespace sharing /tmp) stays; once the
    /// lock is free, it goes.
    #[test]
    fn a_locked_dir_stays_whatever_its_pid() {
        let tmp = tempfile::tempdir().unwrap();
        let other = tmp.path().join("langbench-ws-99999999-abc");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join("f"), "x").unwrap();
        let lock = std::fs::File::open(&other).unwrap();
        lock.try_lock().unwrap();
        assert_eq!(clean_stale_in(tmp.path()), 0);
        assert!(other.join("f").exists());
        drop(lock);
        assert_eq!(clean_stale_in(tmp.path()), 1);
        assert!(!other.exists());

        // A scratch directory holds its own lock until it is dropped.
        let mine = dir("test").unwrap();
        assert!(in_use(mine.path()));
        let path = mine.path().to_path_buf();
        drop(mine);
        assert!(!path.exists());
    }

    #[test]
    fn a_tree_deeper_than_path_max_and_the_fd_limit_is_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path().join("deep");
        std::fs::create_dir(&top).unwrap();
        // 30,000 levels through relative openat/mkdirat: far past
        // PATH_MAX (4096) and a default fd limit (1024).
        // SAFETY: mkdirat/openat on descriptors this test owns.
        unsafe {
            let c = CString::new(top.as_os_str().as_bytes()).unwrap();
            let mut fd = libc::open(c.as_ptr(), libc::O_DIRECTORY | libc::O_RDONLY);
            for i in 0..30_000 {
                assert_eq!(libc::mkdirat(fd, c"d".as_ptr(), 0o755), 0);
                if i % 1000 == 0 {
                    let f = libc::openat(fd, c"f".as_ptr(), libc::O_CREAT | libc::O_WRONLY, 0o644);
                    libc::close(f);
                    libc::symlinkat(c"/etc".as_ptr(), fd, c"l".as_ptr());
                }
                let next = libc::openat(fd, c"d".as_ptr(), libc::O_DIRECTORY | libc::O_RDONLY);
                libc::close(fd);
                fd = next;
            }
            libc::close(fd);
        }
        remove_tree(&top).unwrap();
        assert!(!top.exists());
        assert!(Path::new("/etc/passwd").exists(), "followed no symlink");
    }
}
