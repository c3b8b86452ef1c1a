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
pub enum Create {
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
pub fn open_trusted(path: &Path) -> io::Result<OwnedFd> {
    rustix::fs::open(
        path,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| at(path, e.into()))
}

/// Opens the absolute `path` without following a link anywhere in it (a
/// path langbench made canonical, with a part a command could write).
pub fn open_absolute(path: &Path) -> io::Result<OwnedFd> {
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
pub fn dir_beneath(dir: BorrowedFd<'_>, rel: &Path, create: Create) -> io::Result<OwnedFd> {
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
pub fn chown_fd(fd: BorrowedFd<'_>, uid: u32, gid: u32) -> io::Result<()> {
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
pub fn exists_in(dir: BorrowedFd<'_>, name: &str) -> bool {
    rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).is_ok()
}

/// The regular file `name` in `dir`, opened without following a link
/// (an error if it is one, or not a regular file: a FIFO never blocks
/// the reader): its text, if it holds at most `max` bytes (else
/// [`io::ErrorKind::FileTooLarge`], nothing read).
pub fn read_in(dir: BorrowedFd<'_>, name: &str, max: u64) -> io::Result<String> {
    String::from_utf8(read_bytes_in(dir, OsStr::new(name), max)?)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// [`read_in`], as bytes. What a command wrote (a prepared copy's files,
/// a cache's) can be of any size, sparse files of terabytes among them:
/// the size is asked first and at most `max` bytes are ever read, so
/// langbench's memory holds what it expects, never what the file says
/// (issue #59, a 3 GiB sparse file read whole made langbench 6 GB).
pub fn read_bytes_in(dir: BorrowedFd<'_>, name: &OsStr, max: u64) -> io::Result<Vec<u8>> {
    let fd = rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let st = rustix::fs::fstat(&fd)?;
    if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", name.display()),
        ));
    }
    let too_large = |size: u64| {
        io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!(
                "{} holds {size} bytes, more than the {max} langbench reads of it",
                name.display()
            ),
        )
    };
    let size = number(st.st_size);
    if size > max {
        return Err(too_large(size));
    }
    // The file may grow while it is read: never past `max` all the same.
    let mut body = Vec::with_capacity(size as usize);
    std::io::Read::read_to_end(
        &mut std::io::Read::take(std::fs::File::from(fd), max.saturating_add(1)),
        &mut body,
    )?;
    if body.len() as u64 > max {
        return Err(too_large(body.len() as u64));
    }
    Ok(body)
}

/// A stat figure as a `u64` (their types differ between architectures;
/// a negative one is 0).
fn number<T: TryInto<u64>>(n: T) -> u64 {
    n.try_into().unwrap_or(0)
}

/// Levels below its top that a walk of a tree a command could write
/// enters, at most: one descriptor is open per level, so this bounds them
/// (and langbench's memory), and it is far deeper than any toolchain's
/// cache or any program's directory nests (a Maven repository, Go's
/// module cache and npm's nested `node_modules` stay under 40).
pub const MAX_DEPTH: usize = 256;

/// How far a walk of a tree a command could write goes: every walk is
/// iterative (an explicit stack, so depth never exhausts langbench's own
/// stack: issue #59, a copy nested 25,000 deep aborted `run`), and stops
/// at these bounds, saying so ([`Cut`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Levels entered below the top, at most (at most [`MAX_DEPTH`]).
    pub depth: usize,
    /// Entries looked at, at most (a bound on the walk's time).
    pub entries: u64,
}

/// Entries a walk of what a command wrote looks at when no file bound
/// bounds it: ten million (seconds of `statx`).
const MANY: u64 = 10_000_000;

impl Bounds {
    /// At most `entries` entries, [`MAX_DEPTH`] levels.
    pub fn entries(entries: u64) -> Bounds {
        Bounds {
            depth: MAX_DEPTH,
            entries,
        }
    }

    /// The bounds of a walk that counts toward a bound of `files` (0:
    /// none, then [`MANY`]): it stops one past it, which is enough to say
    /// it is past.
    pub fn toward(files: u64) -> Bounds {
        Bounds::entries(if files == 0 {
            MANY
        } else {
            files.saturating_add(1)
        })
    }
}

/// Where a walk stopped before the end of its tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// A directory lies deeper than [`Bounds::depth`]: not entered.
    Deep,
    /// More entries than [`Bounds::entries`]: the rest not looked at.
    Many,
}

impl Cut {
    /// What the tree does past the bound, for a note.
    pub fn says(self, b: Bounds) -> String {
        match self {
            Cut::Deep => format!("nests directories deeper than {} levels", b.depth),
            Cut::Many => format!("holds more than {} files and directories", b.entries),
        }
    }
}

/// Walks the directory `top` (its entries, not itself), depth first,
/// following no link: `visit` gets each entry's directory, name, `lstat`
/// and level (1: in `top`) before a directory is entered. Holds one
/// descriptor per level and nothing per entry. `Ok(Some(cut))`: it
/// stopped at `bounds` (past [`Cut::Deep`] it goes on with the rest, past
/// [`Cut::Many`] it stops). An entry that vanishes or changes under the
/// walk is skipped.
pub fn walk(
    top: BorrowedFd<'_>,
    bounds: Bounds,
    mut visit: impl FnMut(BorrowedFd<'_>, &std::ffi::CStr, &rustix::fs::Stat, usize) -> io::Result<()>,
) -> io::Result<Option<Cut>> {
    let readable = |dir: BorrowedFd<'_>, name: &std::ffi::CStr| {
        rustix::fs::openat(
            dir,
            name,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )
    };
    let depth = bounds.depth.min(MAX_DEPTH);
    let mut stack = vec![rustix::fs::Dir::new(readable(top, c".")?)?];
    let (mut seen, mut cut) = (0u64, None);
    while let Some(dir) = stack.last_mut() {
        let Some(entry) = dir.next() else {
            stack.pop();
            continue;
        };
        let entry = entry?;
        let name = entry.file_name();
        if matches!(name.to_bytes(), b"." | b"..") {
            continue;
        }
        seen += 1;
        if seen > bounds.entries {
            return Ok(Some(Cut::Many));
        }
        let level = stack.len();
        let dir = stack[level - 1].fd()?;
        let st = match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => st,
            Err(rustix::io::Errno::NOENT) => continue,
            Err(e) => return Err(e.into()),
        };
        visit(dir, name, &st, level)?;
        if FileType::from_raw_mode(st.st_mode) != FileType::Directory {
            continue;
        }
        if level >= depth {
            cut = Some(Cut::Deep);
            continue;
        }
        match readable(dir, name) {
            Ok(sub) => stack.push(rustix::fs::Dir::new(sub)?),
            // Removed, or replaced by a link or a file, under the walk.
            Err(rustix::io::Errno::NOENT | rustix::io::Errno::NOTDIR | rustix::io::Errno::LOOP) => {
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(cut)
}

/// What a tree holds, as a bounded [`walk`] counted it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// KB of disk its entries hold (blocks, as `du` counts: directories
    /// too, a file with several names shared among them, a sparse file
    /// what it holds).
    pub kb: u64,
    /// Bytes of its regular files (their sizes).
    pub bytes: u64,
    /// Its entries (files, directories, links, ...): the inodes it holds.
    pub files: u64,
    /// Where the walk stopped before the end: the figures are those up to
    /// there, a floor.
    pub cut: Option<Cut>,
}

/// Both trees' figures (a cut in either is the sum's).
impl std::ops::Add for Usage {
    type Output = Usage;

    fn add(self, o: Usage) -> Usage {
        Usage {
            kb: self.kb + o.kb,
            bytes: self.bytes + o.bytes,
            files: self.files + o.files,
            cut: self.cut.or(o.cut),
        }
    }
}

/// What the directory `top` holds (itself not counted), walked within
/// `bounds`; with `since` (nanoseconds since the epoch, the real-time
/// clock), only the entries changed since then (an inode's change time is
/// the kernel's, which no command can set back: what a command running
/// since then wrote, created or renamed).
pub fn usage(top: BorrowedFd<'_>, bounds: Bounds, since: Option<i128>) -> io::Result<Usage> {
    let mut u = Usage::default();
    // 512-byte blocks, each file's shared among its names.
    let mut blocks = 0u64;
    u.cut = walk(top, bounds, |_, _, st, _| {
        let changed =
            i128::from(st.st_ctime) * 1_000_000_000 + i128::from(number(st.st_ctime_nsec));
        if since.is_some_and(|s| changed < s) {
            return Ok(());
        }
        blocks += number(st.st_blocks) / number(st.st_nlink).max(1);
        u.files += 1;
        if FileType::from_raw_mode(st.st_mode) == FileType::RegularFile {
            u.bytes += number(st.st_size);
        }
        Ok(())
    })?;
    u.kb = blocks / 2;
    Ok(u)
}

/// `chown -R` of the directory `dir` to `uid`:`gid`, beneath it only:
/// every entry given without following it, every subdirectory entered
/// without following a link, within `bounds` (an error past them, naming
/// the bound: what lies past it is not given).
pub fn chown_tree(dir: BorrowedFd<'_>, uid: u32, gid: u32, bounds: Bounds) -> io::Result<()> {
    chown_fd(dir, uid, gid)?;
    let cut = walk(dir, bounds, |parent, name, _, _| {
        chown_at(parent, OsStr::from_bytes(name.to_bytes()), uid, gid)
    })?;
    match cut {
        None => Ok(()),
        Some(cut) => Err(io::Error::other(format!(
            "it {}: not given to the sandbox's user past there",
            cut.says(bounds)
        ))),
    }
}

/// Writes `body` as the file `name` in `dir` (created 0644, or
/// truncated), never through a link.
pub fn write_in(dir: BorrowedFd<'_>, name: &str, body: &[u8]) -> io::Result<()> {
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
pub fn rename_in(dir: BorrowedFd<'_>, from: &str, to: &str) -> io::Result<()> {
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
        assert_eq!(read_in(top.as_fd(), "f", 1).unwrap(), "x");
        let outside = t.path().join("outside");
        std::fs::write(&outside, "kept").unwrap();
        std::os::unix::fs::symlink(&outside, t.path().join("l")).unwrap();
        assert!(write_in(top.as_fd(), "l", b"y").is_err());
        assert!(read_in(top.as_fd(), "l", 100).is_err());
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "kept");
        assert!(exists_in(top.as_fd(), "l") && !exists_in(top.as_fd(), "m"));
    }

    /// A sparse file of 1 TiB (what a command can make in a moment) is
    /// refused by its size, unread; one at the bound is read.
    #[test]
    fn a_file_past_its_bound_is_refused_unread() {
        let t = tempfile::tempdir().unwrap();
        let top = open_trusted(t.path()).unwrap();
        let f = std::fs::File::create(t.path().join("sparse")).unwrap();
        f.set_len(1 << 40).unwrap();
        let e = read_bytes_in(top.as_fd(), OsStr::new("sparse"), 16 << 20).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge, "{e}");
        assert!(e.to_string().contains("1099511627776 bytes"), "{e}");
        std::fs::write(t.path().join("small"), "12345").unwrap();
        assert_eq!(read_in(top.as_fd(), "small", 5).unwrap(), "12345");
        assert!(read_in(top.as_fd(), "small", 4).is_err());
        // A FIFO is not read (it would block).
        rustix::fs::mknodat(
            top.as_fd(),
            "fifo",
            FileType::Fifo,
            Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        assert!(read_in(top.as_fd(), "fifo", 100).is_err());
    }

    /// `depth` directories `d` nested in `top`, each but the last with a
    /// file `f`, made by descriptor (the paths are longer than PATH_MAX).
    fn nest(top: &Path, depth: usize) {
        let mut fd = open_trusted(top).unwrap();
        for _ in 0..depth {
            rustix::fs::mkdirat(&fd, "d", Mode::from_raw_mode(0o755)).unwrap();
            drop(
                rustix::fs::openat(
                    &fd,
                    "f",
                    OFlags::CREATE | OFlags::WRONLY | OFlags::CLOEXEC,
                    Mode::from_raw_mode(0o644),
                )
                .unwrap(),
            );
            fd = step(fd.as_fd(), OsStr::new("d"), Create::No).unwrap();
        }
    }

    /// Issue #59 row 10: a tree 25,000 levels deep (a prepare step's copy)
    /// aborted langbench with a stack overflow in `chown_tree`. Every walk
    /// is iterative now and enters at most MAX_DEPTH levels: the count
    /// says where it stopped, `chown_tree` is an error naming the bound,
    /// neither recurses nor holds more than MAX_DEPTH descriptors. (2,000
    /// levels here, past PATH_MAX: the tempdir's own removal recurses; the
    /// attack test nests 25,000.)
    #[test]
    fn a_tree_deeper_than_the_bound_is_walked_to_the_bound_and_no_further() {
        // SAFETY: geteuid/getegid cannot fail.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let t = tempfile::tempdir().unwrap();
        nest(t.path(), 2_000);
        let top = open_trusted(t.path()).unwrap();
        let u = usage(top.as_fd(), Bounds::toward(0), None).unwrap();
        assert_eq!(u.cut, Some(Cut::Deep));
        // MAX_DEPTH levels of a directory and a file each.
        assert_eq!(u.files, 2 * MAX_DEPTH as u64, "{u:?}");
        let e = chown_tree(top.as_fd(), uid, gid, Bounds::toward(0)).unwrap_err();
        assert!(e.to_string().contains("deeper than 256 levels"), "{e}");
        // Within the bound, every entry is counted and given.
        let t = tempfile::tempdir().unwrap();
        nest(t.path(), 100);
        let top = open_trusted(t.path()).unwrap();
        let u = usage(top.as_fd(), Bounds::toward(0), None).unwrap();
        assert_eq!((u.files, u.cut), (200, None));
        chown_tree(top.as_fd(), uid, gid, Bounds::toward(0)).unwrap();
        // Past the entries' bound, the walk stops.
        let u = usage(top.as_fd(), Bounds::toward(150), None).unwrap();
        assert_eq!((u.files, u.cut), (151, Some(Cut::Many)));
        assert!(chown_tree(top.as_fd(), uid, gid, Bounds::toward(150)).is_err());
    }

    /// What a tree holds: blocks (directories too, a file's shared among
    /// its names), entries, sizes; with `since`, only what changed since.
    #[test]
    fn usage_counts_blocks_inodes_and_what_changed_since() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir(t.path().join("sub")).unwrap();
        std::fs::write(t.path().join("sub/a"), vec![1u8; 100 * 1024]).unwrap();
        std::fs::hard_link(t.path().join("sub/a"), t.path().join("b")).unwrap();
        std::os::unix::fs::symlink("/etc", t.path().join("l")).unwrap();
        for i in 0..50 {
            std::fs::write(t.path().join(format!("e{i}")), "").unwrap();
        }
        let top = open_trusted(t.path()).unwrap();
        let u = usage(top.as_fd(), Bounds::toward(0), None).unwrap();
        assert_eq!(u.files, 54, "{u:?}");
        assert_eq!(u.bytes, 200 * 1024, "both names' sizes");
        // The file's 100 KB once (its two names share it), the directory's
        // block(s) too; never what /etc holds.
        assert!((100..200).contains(&u.kb), "{u:?}");
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as i128;
        std::thread::sleep(std::time::Duration::from_millis(50));
        std::fs::write(t.path().join("new"), "x").unwrap();
        let u = usage(top.as_fd(), Bounds::toward(0), Some(now)).unwrap();
        // The new file only (the top itself is no entry of its own).
        assert_eq!(u.files, 1, "{u:?}");
    }
}
