//! Directories opened and created beneath a directory langbench trusts,
//! never through a symbolic link (issue #37): what langbench, often root,
//! touches inside places a sandboxed command could write (a variant's
//! caches and prepared copy in the state directory, a run's build
//! directory and HOME) is reached one component at a time from a
//! directory descriptor, each component opened with `O_NOFOLLOW |
//! O_DIRECTORY` and checked to be a directory, `..` refused. A symlink
//! a command planted anywhere on the way is an error naming it, never a
//! way out; what is created is created where the descriptor is, and
//! given to its owner through the descriptor (`fchownat` with
//! `AT_EMPTY_PATH`), never by path.
//!
//! Walked by hand rather than with one `openat2(RESOLVE_NO_SYMLINKS |
//! RESOLVE_BENEATH)`: the walk creates missing directories as it goes
//! (which `openat2` cannot), and it needs nothing past `openat`, which
//! seccomp profiles that refuse `openat2` (older container runtimes
//! answer ENOSYS) still allow. Through `rustix`, already a dependency of
//! `tempfile` and `procfs`.

use std::ffi::OsStr;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};

/// Where a walk creates the directories it misses, and for whom.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Create {
    /// Nothing is created: a missing directory is an error.
    No,
    /// Missing directories are created (0755), owned by whoever walks.
    Yes,
    /// Missing directories are created and given to this user and group.
    OwnedBy(u32, u32),
}

/// Opens `path` as langbench names it (its state directory, a build
/// directory it made): links in it are the machine's own and followed.
/// An `O_PATH` descriptor, for walking from.
pub(crate) fn open_trusted(path: &Path) -> io::Result<OwnedFd> {
    rustix::fs::open(
        path,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| at(path, e.into()))
}

/// Opens the absolute `path` without following a link anywhere in it (a
/// path langbench made canonical, with a part a command could write).
pub(crate) fn open_absolute(path: &Path) -> io::Result<OwnedFd> {
    let rel = path.strip_prefix("/").map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not an absolute path", path.display()),
        )
    })?;
    let root = open_trusted(Path::new("/"))?;
    dir_beneath(root.as_fd(), rel, Create::No).map_err(|e| at(path, e))
}

/// Opens (and with `create`, makes) the directory `rel` beneath `dir`,
/// one component at a time, following no link: an `O_PATH` descriptor
/// of it. `rel` is relative, without `..` (an error otherwise); empty
/// or `.` is `dir` itself.
pub(crate) fn dir_beneath(dir: BorrowedFd<'_>, rel: &Path, create: Create) -> io::Result<OwnedFd> {
    let mut cur = rustix::io::fcntl_dupfd_cloexec(dir, 0)?;
    let mut walked = std::path::PathBuf::new();
    for c in rel.components() {
        let name = match c {
            Component::Normal(n) => n,
            Component::CurDir => continue,
            _ => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{} leaves the directory it is walked from", rel.display()),
                ));
            }
        };
        walked.push(name);
        cur = step(cur.as_fd(), name, create).map_err(|e| at(&walked, e))?;
    }
    Ok(cur)
}

/// One component: `name` in `dir`, created if asked, opened as a
/// directory without following it.
fn step(dir: BorrowedFd<'_>, name: &OsStr, create: Create) -> io::Result<OwnedFd> {
    if create != Create::No {
        match rustix::fs::mkdirat(dir, name, Mode::from_raw_mode(0o755)) {
            Ok(()) => {
                if let Create::OwnedBy(uid, gid) = create {
                    chown_at(dir, name, uid, gid)?;
                }
            }
            Err(rustix::io::Errno::EXIST) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let fd = rustix::fs::openat(
        dir,
        name,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| match e {
        rustix::io::Errno::NOTDIR | rustix::io::Errno::LOOP => io::Error::new(
            io::ErrorKind::InvalidInput,
            "a symbolic link or not a directory",
        ),
        e => e.into(),
    })?;
    // O_PATH | O_NOFOLLOW opens a symlink itself; O_DIRECTORY refuses it,
    // and this says so whatever the kernel's order of checks.
    if FileType::from_raw_mode(rustix::fs::fstat(&fd)?.st_mode) != FileType::Directory {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a symbolic link or not a directory",
        ));
    }
    Ok(fd)
}

/// Gives `name` in `dir` (not followed if a link) to `uid`:`gid`.
fn chown_at(dir: BorrowedFd<'_>, name: &OsStr, uid: u32, gid: u32) -> io::Result<()> {
    rustix::fs::chownat(
        dir,
        name,
        Some(rustix::fs::Uid::from_raw(uid)),
        Some(rustix::fs::Gid::from_raw(gid)),
        AtFlags::SYMLINK_NOFOLLOW,
    )
    .map_err(Into::into)
}

/// Gives the directory (or file) `fd` is open on to `uid`:`gid`: the
/// very one that was opened, whatever its path has become.
pub(crate) fn chown_fd(fd: BorrowedFd<'_>, uid: u32, gid: u32) -> io::Result<()> {
    rustix::fs::chownat(
        fd,
        "",
        Some(rustix::fs::Uid::from_raw(uid)),
        Some(rustix::fs::Gid::from_raw(gid)),
        AtFlags::EMPTY_PATH,
    )
    .map_err(Into::into)
}

/// Whether `name` exists in `dir` (a link counts, unfollowed).
pub(crate) fn exists_in(dir: BorrowedFd<'_>, name: &str) -> bool {
    rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).is_ok()
}

/// The regular file `name` in `dir`, opened without following a link
/// (an error if it is one, or not a regular file: a FIFO never blocks
/// the reader): its text.
pub(crate) fn read_in(dir: BorrowedFd<'_>, name: &str) -> io::Result<String> {
    String::from_utf8(read_bytes_in(dir, OsStr::new(name))?)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// [`read_in`], as bytes.
pub(crate) fn read_bytes_in(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<Vec<u8>> {
    let fd = rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    if FileType::from_raw_mode(rustix::fs::fstat(&fd)?.st_mode) != FileType::RegularFile {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", name.display()),
        ));
    }
    let mut body = Vec::new();
    std::io::Read::read_to_end(&mut std::fs::File::from(fd), &mut body)?;
    Ok(body)
}

/// `chown -R` of the directory `dir` to `uid`:`gid`, beneath it only:
/// every entry given without following it, every subdirectory entered
/// without following a link.
pub(crate) fn chown_tree(dir: BorrowedFd<'_>, uid: u32, gid: u32) -> io::Result<()> {
    chown_fd(dir, uid, gid)?;
    let readable = rustix::fs::openat(
        dir,
        ".",
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let mut subdirs = Vec::new();
    for e in rustix::fs::Dir::new(readable)? {
        let e = e?;
        let name = e.file_name();
        if matches!(name.to_bytes(), b"." | b"..") {
            continue;
        }
        chown_at(dir, OsStr::from_bytes(name.to_bytes()), uid, gid)?;
        let is_dir = match e.file_type() {
            FileType::Unknown => rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
                .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Directory),
            t => t == FileType::Directory,
        };
        if is_dir {
            subdirs.push(name.to_owned());
        }
    }
    for name in subdirs {
        let sub = step(dir, OsStr::from_bytes(name.to_bytes()), Create::No)?;
        chown_tree(sub.as_fd(), uid, gid)?;
    }
    Ok(())
}

/// Writes `body` as the file `name` in `dir` (created 0644, or
/// truncated), never through a link.
pub(crate) fn write_in(dir: BorrowedFd<'_>, name: &str, body: &[u8]) -> io::Result<()> {
    let fd = rustix::fs::openat(
        dir,
        name,
        OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o644),
    )?;
    if FileType::from_raw_mode(rustix::fs::fstat(&fd)?.st_mode) != FileType::RegularFile {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{name} is not a regular file"),
        ));
    }
    use std::io::Write;
    std::fs::File::from(fd).write_all(body)
}

/// Renames `from` to `to`, both in `dir` (neither followed), unless `to`
/// exists.
pub(crate) fn rename_in(dir: BorrowedFd<'_>, from: &str, to: &str) -> io::Result<()> {
    rustix::fs::renameat_with(dir, from, dir, to, rustix::fs::RenameFlags::NOREPLACE)
        .map_err(Into::into)
}

/// `e`, saying where.
fn at(p: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", p.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_walk_creates_what_is_missing_and_follows_no_link() {
        let t = tempfile::tempdir().unwrap();
        let top = open_trusted(t.path()).unwrap();
        dir_beneath(top.as_fd(), Path::new("a/b/c"), Create::Yes).unwrap();
        assert!(t.path().join("a/b/c").is_dir());
        // A link on the way, to a directory that exists: refused, and
        // nothing is created behind it.
        let outside = t.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, t.path().join("a/link")).unwrap();
        let e = dir_beneath(top.as_fd(), Path::new("a/link/d"), Create::Yes).unwrap_err();
        assert!(e.to_string().contains("a/link"), "{e}");
        assert!(!outside.join("d").exists());
        // As the last component too, and when only opening.
        assert!(dir_beneath(top.as_fd(), Path::new("a/link"), Create::No).is_err());
        assert!(open_absolute(&t.path().join("a/link")).is_err());
        assert!(open_absolute(&t.path().join("a/b")).is_ok());
        // `..` never leaves.
        assert!(dir_beneath(top.as_fd(), Path::new("a/../.."), Create::No).is_err());
        // A missing directory without `create`.
        assert!(dir_beneath(top.as_fd(), Path::new("a/missing"), Create::No).is_err());
    }

    #[test]
    fn files_are_written_and_read_never_through_a_link() {
        let t = tempfile::tempdir().unwrap();
        let top = open_trusted(t.path()).unwrap();
        write_in(top.as_fd(), "f", b"x").unwrap();
        assert_eq!(read_in(top.as_fd(), "f").unwrap(), "x");
        let outside = t.path().join("outside");
        std::fs::write(&outside, "kept").unwrap();
        std::os::unix::fs::symlink(&outside, t.path().join("l")).unwrap();
        assert!(write_in(top.as_fd(), "l", b"y").is_err());
        assert!(read_in(top.as_fd(), "l").is_err());
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "kept");
        assert!(exists_in(top.as_fd(), "l") && !exists_in(top.as_fd(), "m"));
    }
}
