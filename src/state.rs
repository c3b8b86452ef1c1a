//! What langbench keeps per variant between runs and sessions, outside the
//! checkout and the results: the private copies of program directories
//! that `prepare` steps work in (issue #21), and the variants' toolchain
//! caches (issue #22). Everything lives under one directory langbench
//! owns: `$LANGBENCH_STATE`, else `$XDG_CACHE_HOME/langbench`, else
//! `~/.cache/langbench`. A sandboxed command can write only its own
//! variant's part of it, owned by the sandbox's user.

use std::ffi::OsStr;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::bench::Bench;
use crate::config::Variant;
use langbench_spawn::nofollow::{self, Create, Usage};

/// The directory langbench keeps its per-variant state in (made
/// canonical once it exists: the sandbox opens what lies in it by a path
/// that may hold no link).
pub(crate) fn root() -> PathBuf {
    let dir = if let Some(d) = std::env::var_os("LANGBENCH_STATE").filter(|d| !d.is_empty()) {
        PathBuf::from(d)
    } else {
        let cache = std::env::var_os("XDG_CACHE_HOME")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .unwrap_or_else(std::env::temp_dir);
        cache.join("langbench")
    };
    dir.canonicalize().unwrap_or(dir)
}

/// The state directory, created (it is the maintainer's path, links in
/// it followed) and open: what lies in it is reached from here, never
/// through a link ([`langbench_spawn::nofollow`]).
fn open_root() -> Result<(PathBuf, OwnedFd)> {
    let dir = root();
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("cannot create the state directory {}", dir.display()))?;
    let dir = dir.canonicalize()?;
    let fd = nofollow::open_trusted(&dir)?;
    Ok((dir, fd))
}

/// Where `variant`'s `prepare` steps for `bench` work: a private copy of
/// the program's directory (`{dir}` and `{src}` of its prepare, build and
/// run commands point there). `None` for a variant without `prepare`,
/// whose commands use the checkout's directory, read-only.
pub(crate) fn prepared_dir(variant: &Variant, bench: Bench) -> Option<PathBuf> {
    if variant.prepare.is_empty() {
        return None;
    }
    variant.programs.get(&bench)?;
    Some(root().join("prepared").join(&variant.id).join(bench.name()))
}

/// A variant's toolchain caches for one toolchain version: one persistent
/// directory per `caches` entry, bound at that place in the sandbox's HOME
/// for each of its runs (and `prepare` steps), so that the first run may be
/// cold and the next ones are warm, exactly as by hand. Only the variant's
/// own commands see them (the state directory is covered in every
/// sandbox), owned by the sandbox's user.
///
/// They are the sandbox's to write, so everything in them is hostile to
/// langbench: every directory on the way to them is created and opened
/// from the state directory's descriptor without following a link, and
/// given to the sandbox's user through its descriptor; the sandbox opens
/// them by a canonical path in which it follows no link either.
#[derive(Debug, Clone)]
pub(crate) struct Caches {
    /// (host directory, path under HOME).
    pub dirs: Vec<(PathBuf, PathBuf)>,
    /// The directory of these caches (`caches/ID/DIGEST`), open: where
    /// the programs that ran with them are remembered (one empty file per
    /// program digest in `programs/`, beside the caches, outside every
    /// sandbox's view): a compiler caches per program, so a program's
    /// first run is cold even where another program filled the caches.
    base: Option<std::sync::Arc<OwnedFd>>,
    /// What they may hold, KB (`--cache-limit`); 0: no bound.
    pub limit_kb: u64,
    /// Files (and directories) they may hold (`--file-limit`); 0: no
    /// bound.
    pub limit_files: u64,
}

impl Caches {
    /// The caches of `variant` at toolchain `version` (none when it
    /// declares none, or with `cold`: every run from empty caches, as
    /// `--cold-caches` asks), created and given to `ids`.
    pub(crate) fn of(
        variant: &Variant,
        version: &str,
        cold: bool,
        ids: Option<(u32, u32)>,
    ) -> Result<Caches> {
        if cold || variant.caches.is_empty() {
            return Ok(Caches {
                dirs: Vec::new(),
                base: None,
                limit_kb: 0,
                limit_files: 0,
            });
        }
        let (root, root_fd) = open_root()?;
        Caches::in_state(&root, root_fd, &variant.id, &variant.caches, version, ids)
    }

    /// [`Caches::of`] in the state directory `root` (open as `root_fd`).
    fn in_state(
        root: &Path,
        root_fd: OwnedFd,
        id: &str,
        caches: &[PathBuf],
        version: &str,
        ids: Option<(u32, u32)>,
    ) -> Result<Caches> {
        let of_variant = Path::new("caches").join(id);
        let vfd = nofollow::dir_beneath(root_fd.as_fd(), &of_variant, Create::Yes)
            .with_context(|| format!("cannot open the caches of {id}"))?;
        let name = version_dir(version);
        // Caches of an older langbench, named by the version itself, are
        // renamed to their digest and stay warm.
        let old = version_slug(version);
        if !matches!(old.as_str(), "." | "..")
            && nofollow::dir_beneath(vfd.as_fd(), Path::new(&old), Create::No).is_ok()
            && !nofollow::exists_in(vfd.as_fd(), &name)
        {
            let _ = nofollow::rename_in(vfd.as_fd(), &old, &name);
        }
        let base = nofollow::dir_beneath(vfd.as_fd(), Path::new(&name), Create::Yes)
            .with_context(|| format!("cannot open the caches of {id}"))?;
        let said = format!("{version}\n");
        // Read up to the length it should have: longer is another text.
        if nofollow::read_in(base.as_fd(), VERSION_FILE, said.len() as u64)
            .ok()
            .as_deref()
            != Some(said.as_str())
        {
            nofollow::write_in(base.as_fd(), VERSION_FILE, said.as_bytes()).with_context(|| {
                format!(
                    "cannot write {}",
                    root.join(&of_variant)
                        .join(&name)
                        .join(VERSION_FILE)
                        .display()
                )
            })?;
        }
        let mut dirs = Vec::new();
        for rel in caches {
            let host = root.join(&of_variant).join(&name).join("home").join(rel);
            let fd = nofollow::dir_beneath(base.as_fd(), &Path::new("home").join(rel), Create::Yes)
                .with_context(|| format!("cannot create the cache {}", host.display()))?;
            if let Some((uid, gid)) = ids {
                nofollow::chown_fd(fd.as_fd(), uid, gid)
                    .with_context(|| format!("cannot chown {}", host.display()))?;
            }
            dirs.push((host, rel.clone()));
        }
        Ok(Caches {
            dirs,
            base: Some(std::sync::Arc::new(base)),
            limit_kb: 0,
            limit_files: 0,
        })
    }

    /// With at most `kb` KB and `files` files in them (0: no bound).
    pub(crate) fn limited(mut self, kb: u64, files: u64) -> Caches {
        self.limit_kb = kb;
        self.limit_files = files;
        self
    }

    /// What the caches hold: blocks in use as `du` counts them, and files
    /// (inodes: a run that fills them with empty files holds no block but
    /// exhausts the filesystem's inodes, issue #59), counted by a bounded
    /// walk that stops once past the file bound.
    pub(crate) fn usage(&self) -> Usage {
        let bounds = nofollow::Bounds::toward(self.limit_files);
        self.dirs
            .iter()
            .map(|(host, _)| usage_of(host, bounds))
            .fold(Usage::default(), |a, b| a + b)
    }

    /// Why the caches are past their bound (`None`: within it, or none):
    /// what they hold and the bound, for a run's note.
    pub(crate) fn past_limit(&self) -> Option<String> {
        if (self.limit_kb == 0 && self.limit_files == 0) || self.dirs.is_empty() {
            return None;
        }
        let u = self.usage();
        let past = past_bounds(u, self.limit_kb, self.limit_files)?;
        Some(format!(
            "its caches hold {}, past the quota of {past} per variant (--cache-limit, \
             --file-limit); `langbench toolchains clear-caches ID` empties them",
            held(u),
        ))
    }

    /// Whether a run of `program` (its source digest) starting now starts
    /// cold (every cache empty, or this program never ran with them: as a
    /// person's first `crystal run` of a new file compiles it even after
    /// another file warmed the cache) or warm; `None` without caches.
    pub(crate) fn start(&self, program: Option<&str>) -> Option<crate::record::CacheStart> {
        if self.dirs.is_empty() {
            return None;
        }
        let new_program = match (&self.base, program) {
            (Some(base), Some(p)) => {
                nofollow::dir_beneath(base.as_fd(), Path::new(PROGRAMS), Create::No)
                    .map_or(true, |seen| !nofollow::exists_in(seen.as_fd(), p))
            }
            _ => false,
        };
        Some(if self.empty() || new_program {
            crate::record::CacheStart::Cold
        } else {
            crate::record::CacheStart::Warm
        })
    }

    /// Every cache directory is empty.
    pub(crate) fn empty(&self) -> bool {
        self.dirs
            .iter()
            .all(|(host, _)| std::fs::read_dir(host).map_or(true, |mut d| d.next().is_none()))
    }

    /// After a run of `program` that started `started` ([`Caches::start`]):
    /// the state to record, and, for a run that ended `ok`, `program`
    /// remembered so that its next run starts warm. A run whose empty
    /// caches are still empty used none (bun running a script writes
    /// nothing to its install cache): neither cold nor warm, since calling
    /// it cold would leave every run of its cell out of the spread as
    /// warm-up. Remembering is best effort: a marker that cannot be written
    /// (a full disk, a read-only state directory) costs the next run its
    /// "warm" label, never the run just measured, so it is a warning.
    pub(crate) fn end(
        &self,
        started: Option<crate::record::CacheStart>,
        program: Option<&str>,
        ok: bool,
    ) -> Option<crate::record::CacheStart> {
        if let (Some(base), Some(p), true) = (&self.base, program, ok) {
            let remembered = nofollow::dir_beneath(base.as_fd(), Path::new(PROGRAMS), Create::Yes)
                .and_then(|seen| nofollow::write_in(seen.as_fd(), p, b""));
            if let Err(e) = remembered {
                eprintln!(
                    "warning: cannot remember that this program ran with its caches ({e}); \
                     its next run will be called cold"
                );
            }
        }
        let used_none = started == Some(crate::record::CacheStart::Cold)
            && !self.dirs.is_empty()
            && self.empty();
        if used_none { None } else { started }
    }
}

/// KB `variant`'s caches for toolchain `version` hold (0 before its first
/// run); `None` where it declares none.
pub(crate) fn caches_kb(variant: &Variant, version: &str) -> Option<u64> {
    if variant.caches.is_empty() {
        return None;
    }
    let dir = variant_caches(&variant.id)
        .join(version_dir(version))
        .join("home");
    Some(usage_of(&dir, nofollow::Bounds::toward(0)).kb)
}

/// What the directory `p` (langbench's own path, in the state directory,
/// made canonical) holds, counted within `bounds` and never through a
/// link; nothing if it cannot be opened.
fn usage_of(p: &Path, bounds: nofollow::Bounds) -> Usage {
    nofollow::open_absolute(p)
        .and_then(|d| nofollow::usage(d.as_fd(), bounds, None))
        .unwrap_or_default()
}

/// The bounds `u` is past, for a note (`None`: within them): `kb` KB or
/// `files` files (0: no bound), or deeper than a walk enters.
fn past_bounds(u: Usage, kb: u64, files: u64) -> Option<String> {
    let mut past = Vec::new();
    if kb > 0 && u.kb > kb {
        past.push(format!("{} MB", kb / 1024));
    }
    if files > 0 && (u.files > files || u.cut == Some(nofollow::Cut::Many)) {
        past.push(format!("{files} files"));
    }
    if u.cut == Some(nofollow::Cut::Deep) {
        past.push(format!("{} levels of directories", nofollow::MAX_DEPTH));
    }
    (!past.is_empty()).then(|| past.join(" and "))
}

/// What `u` holds, for a note: `1.2 MB in 1,200 files`, and where the
/// walk that counted it stopped.
fn held(u: Usage) -> String {
    let cut = match u.cut {
        Some(nofollow::Cut::Deep) => format!(
            " (nested deeper than {} levels, not counted past there)",
            nofollow::MAX_DEPTH
        ),
        Some(nofollow::Cut::Many) => " (not counted past there)".into(),
        None => String::new(),
    };
    let files = u.files;
    let plus = if u.cut == Some(nofollow::Cut::Many) {
        " or more"
    } else {
        ""
    };
    format!("{} in {files}{plus} files{cut}", mb(u.kb))
}

/// Every cache of a variant (all toolchain versions).
pub(crate) fn variant_caches(id: &str) -> PathBuf {
    root().join("caches").join(id)
}

/// Where the programs that ran with a variant's caches are remembered,
/// in their directory.
const PROGRAMS: &str = "programs";

/// The file that says which toolchain version a cache directory is for.
const VERSION_FILE: &str = "version";

/// The name of the caches' directory of a toolchain version: langbench's
/// own digest of it (16 hex digits of its SHA-256), never the version
/// text, which is a probe's output (a version of `..` named the
/// directory above); the version is written beside them, in `version`.
fn version_dir(version: &str) -> String {
    use sha2::Digest;
    let d = sha2::Sha256::digest(version.as_bytes());
    hex::encode(&d[..8])
}

/// How an older langbench named a version's caches (`1.26.8`,
/// `unknown`): only to find them and rename them to [`version_dir`].
fn version_slug(version: &str) -> String {
    let s: String = version
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-+".contains(c) {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if s.is_empty() { "unknown".into() } else { s }
}

/// `langbench toolchains clear-caches`: removes the caches of `ids` (every
/// variant's when empty), saying what and how much; the next run of each
/// starts cold.
pub fn clear_caches(ids: &[String], dry_run: bool) -> Result<std::process::ExitCode> {
    let dir = root().join("caches");
    let mut targets: Vec<PathBuf> = if ids.is_empty() {
        std::fs::read_dir(&dir)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default()
    } else {
        ids.iter()
            .map(|id| variant_caches(id))
            .filter(|p| p.exists())
            .collect()
    };
    targets.sort();
    if targets.is_empty() {
        eprintln!("no caches to clear in {}", dir.display());
        return Ok(std::process::ExitCode::SUCCESS);
    }
    let verb = if dry_run { "would clear" } else { "cleared" };
    let mut failed = false;
    for t in &targets {
        let mb = usage_of(t, nofollow::Bounds::toward(0)).bytes as f64 / 1e6;
        if !dry_run && let Err(e) = crate::scratch::remove_tree(t) {
            eprintln!("error: {e}");
            failed = true;
            continue;
        }
        eprintln!("{verb} {} ({mb:.0} MB)", t.display());
    }
    Ok(if failed {
        std::process::ExitCode::from(1)
    } else {
        std::process::ExitCode::SUCCESS
    })
}

/// `kb` as `1.2 MB`.
pub(crate) fn mb(kb: u64) -> String {
    format!("{:.1} MB", kb as f64 * 1024.0 / 1e6)
}

/// The list of files the last sync copied, kept in the copy: what the
/// checkout no longer has is removed from the copy, what the prepare step
/// built is kept.
const MANIFEST: &str = ".langbench-sources";

/// Bytes of [`MANIFEST`] langbench reads, at most: a line per file of a
/// program's directory (100,000 files of 40-byte paths; a planted one of
/// 3 GiB was read whole, issue #59); past it the copy starts afresh.
const MAX_MANIFEST: u64 = 4 << 20;

/// Brings the private copy `dst` up to date with the checkout's program
/// directory `src`: every file (symlinks copied as symlinks, never
/// followed) written where it differs, files the checkout dropped since the
/// last sync removed, what earlier prepare steps built kept; then the whole
/// copy is given to `ids` (the sandbox's user) so the step may write it.
///
/// The copy is the sandbox's to write, so it is hostile here: everything
/// in it is reached from the copy's descriptor without following a link
/// (a file is replaced, never written through; its list of files is read
/// and written as a file, never through a link or from a FIFO), and a copy
/// that cannot be brought up to date that way (a directory of it replaced
/// by a symlink, a file by a directory, its list of files past
/// [`MAX_MANIFEST`]) or given to `ids` within `bounds` (a tree nested
/// past [`nofollow::MAX_DEPTH`]) starts afresh. Nothing of it is read
/// whole: a file of the copy is compared with the checkout's only when
/// its size is the same, and read no further than that.
pub(crate) fn sync_copy(
    src: &Path,
    dst: &Path,
    ids: Option<(u32, u32)>,
    bounds: nofollow::Bounds,
) -> Result<()> {
    let mut files = Vec::new();
    collect(src, Path::new(""), &mut files)
        .with_context(|| format!("cannot read {}", src.display()))?;
    let (Some(parent), Some(name)) = (dst.parent(), dst.file_name()) else {
        anyhow::bail!("{} is no place for a copy", dst.display());
    };
    // Its parent is langbench's own (the state directory's `prepared/ID`).
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    let parent = nofollow::open_trusted(parent)?;
    let open = || nofollow::dir_beneath(parent.as_fd(), Path::new(name), Create::Yes);
    let chown = |top: &OwnedFd| match ids {
        Some((uid, gid)) => nofollow::chown_tree(top.as_fd(), uid, gid, bounds),
        None => Ok(()),
    };
    let kept = open().and_then(|top| {
        update_copy(src, &files, top.as_fd())?;
        chown(&top)
    });
    if kept.is_err() {
        crate::scratch::remove_tree(dst).map_err(anyhow::Error::msg)?;
        let top = open().with_context(|| format!("cannot create {}", dst.display()))?;
        update_copy(src, &files, top.as_fd())
            .with_context(|| format!("cannot copy {} to {}", src.display(), dst.display()))?;
        chown(&top).with_context(|| format!("cannot chown {}", dst.display()))?;
    }
    Ok(())
}

/// Why the private copy `dst` is past its bounds after its `prepare`
/// steps ran (`None`: within them): more than `kb` KB or `files` files
/// (0: no bound), directories nested deeper than a walk enters, or its
/// list of files rewritten past [`MAX_MANIFEST`]. Counted by a bounded
/// walk; a copy past them is removed (the next `prepare` starts afresh,
/// and meets the same bound), and the note says so.
pub(crate) fn copy_past_limit(dst: &Path, kb: u64, files: u64) -> Option<String> {
    let top = nofollow::open_absolute(dst).ok()?;
    let big_list = rustix::fs::statat(&top, MANIFEST, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
        .ok()
        .filter(|st| {
            rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::RegularFile
        })
        .map(|st| u64::try_from(st.st_size).unwrap_or(0))
        .filter(|&size| size > MAX_MANIFEST);
    let u = nofollow::usage(top.as_fd(), nofollow::Bounds::toward(files), None).unwrap_or_default();
    drop(top);
    let why = match (big_list, past_bounds(u, kb, files)) {
        (Some(size), _) => format!(
            "its prepare steps rewrote langbench's list of the copy's files ({MANIFEST}, {size} \
             bytes, past the {MAX_MANIFEST} langbench reads)"
        ),
        (None, Some(past)) => format!(
            "its prepare steps left {} in its private copy, past the bound of {past} \
             (--disk-limit, --file-limit)",
            held(u)
        ),
        (None, None) => return None,
    };
    let removed = match crate::scratch::remove_tree(dst) {
        Ok(()) => "removed, the next prepare starts afresh".to_string(),
        Err(e) => e,
    };
    Some(format!("{why}; {removed}"))
}

/// Whatever is at `name` in `dir` (a file, a link, a FIFO) removed; a
/// directory there is an error.
fn clear_in(dir: BorrowedFd<'_>, name: &OsStr) -> std::io::Result<()> {
    match rustix::fs::unlinkat(dir, name, rustix::fs::AtFlags::empty()) {
        Ok(()) | Err(rustix::io::Errno::NOENT) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// [`sync_copy`]'s work in the copy `top`: `Err` where it would have to
/// follow a link (or replace a directory) to go on.
fn update_copy(src: &Path, files: &[PathBuf], top: BorrowedFd<'_>) -> std::io::Result<()> {
    use rustix::fs::{Mode, OFlags};
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    let plain = |p: &Path| {
        p.components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
    };
    let old = match nofollow::read_in(top, MANIFEST, MAX_MANIFEST) {
        Err(e) if e.kind() == std::io::ErrorKind::FileTooLarge => return Err(e),
        old => old.unwrap_or_default(),
    };
    let current: std::collections::HashSet<&Path> = files.iter().map(PathBuf::as_path).collect();
    for gone in old.lines().map(Path::new).filter(|p| !current.contains(p)) {
        if let (true, Some(dir), Some(name)) = (plain(gone), gone.parent(), gone.file_name())
            && let Ok(d) = nofollow::dir_beneath(top, dir, Create::No)
        {
            let _ = clear_in(d.as_fd(), name);
        }
    }
    for rel in files {
        let (Some(dir), Some(name)) = (rel.parent(), rel.file_name()) else {
            continue;
        };
        let d = nofollow::dir_beneath(top, dir, Create::Yes)?;
        let from = src.join(rel);
        let meta = std::fs::symlink_metadata(&from)?;
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&from)?;
            let now = rustix::fs::readlinkat(&d, name, Vec::new()).ok();
            if now.as_ref().map(|t| t.as_bytes()) != Some(target.as_os_str().as_bytes()) {
                clear_in(d.as_fd(), name)?;
                rustix::fs::symlinkat(&target, &d, name)?;
            }
            continue;
        }
        if !meta.is_file() {
            // A FIFO or a socket of the checkout: nothing to copy.
            continue;
        }
        let body = std::fs::read(&from)?;
        // Read no further than the checkout's size: a copy's file of
        // another size (a sparse one of terabytes) differs unread.
        if nofollow::read_bytes_in(d.as_fd(), name, body.len() as u64).is_ok_and(|now| now == body)
        {
            continue;
        }
        clear_in(d.as_fd(), name)?;
        let fd = rustix::fs::openat(
            &d,
            name,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        )?;
        rustix::fs::fchmod(&fd, Mode::from_raw_mode(meta.permissions().mode() & 0o7777))?;
        std::fs::File::from(fd).write_all(&body)?;
    }
    let manifest: String = files.iter().map(|f| format!("{}\n", f.display())).collect();
    clear_in(top, OsStr::new(MANIFEST))?;
    nofollow::write_in(top, MANIFEST, manifest.as_bytes())
}

/// Every file and symlink under `dir` (relative to the top), sorted by
/// path. Iterative: a checkout's depth never reaches langbench's stack.
fn collect(top: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut todo = vec![rel.to_path_buf()];
    while let Some(rel) = todo.pop() {
        for e in std::fs::read_dir(top.join(&rel))?.flatten() {
            let path = rel.join(e.file_name());
            if e.file_type()?.is_dir() {
                todo.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUNDS: nofollow::Bounds = nofollow::Bounds {
        depth: nofollow::MAX_DEPTH,
        entries: 1_000,
    };

    #[test]
    fn a_run_is_kept_when_its_program_cannot_be_remembered() {
        use crate::record::CacheStart;
        let t = tempfile::tempdir().unwrap();
        let cache = t.path().join("home/.cache/go-build");
        std::fs::create_dir_all(&cache).unwrap();
        std::fs::write(cache.join("entry"), "x").unwrap();
        // Where the markers go is a file: no marker can be written there.
        let seen = t.path().join("programs");
        std::fs::write(&seen, "not a directory").unwrap();
        let caches = Caches {
            dirs: vec![(cache, ".cache/go-build".into())],
            base: Some(std::sync::Arc::new(
                nofollow::open_trusted(t.path()).unwrap(),
            )),
            limit_kb: 0,
            limit_files: 0,
        };
        let started = caches.start(Some("0123456789abcdef"));
        assert_eq!(started, Some(CacheStart::Cold));
        // The measured run keeps its state; only the marker is lost.
        assert_eq!(
            caches.end(started, Some("0123456789abcdef"), true),
            Some(CacheStart::Cold)
        );
        assert_eq!(
            caches.start(Some("0123456789abcdef")),
            Some(CacheStart::Cold)
        );
        // Where it can be written, the program's next run is warm.
        std::fs::remove_file(&seen).unwrap();
        caches.end(started, Some("0123456789abcdef"), true);
        assert_eq!(
            caches.start(Some("0123456789abcdef")),
            Some(CacheStart::Warm)
        );
    }

    #[test]
    fn caches_are_named_by_a_digest_and_made_through_no_link() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        let of = |version: &str, caches: &[&str]| {
            let caches: Vec<PathBuf> = caches.iter().map(PathBuf::from).collect();
            let fd = nofollow::open_trusted(&root).unwrap();
            Caches::in_state(&root, fd, "v", &caches, version, None)
        };
        // An older langbench's directory, named by the version: renamed,
        // its contents kept.
        let old = root.join("caches/v/1.2.3/home/.c");
        std::fs::create_dir_all(&old).unwrap();
        std::fs::write(old.join("kept"), "x").unwrap();
        let c = of("1.2.3", &[".c"]).unwrap();
        let dir = root.join("caches/v").join(version_dir("1.2.3"));
        assert_eq!(c.dirs[0].0, dir.join("home/.c"));
        assert!(dir.join("home/.c/kept").exists());
        assert!(!root.join("caches/v/1.2.3").exists());
        assert_eq!(
            std::fs::read_to_string(dir.join("version")).unwrap(),
            "1.2.3\n"
        );
        // `..` names nothing above.
        let up = of("..", &[".c"]).unwrap();
        assert!(up.dirs[0].0.starts_with(root.join("caches/v")));
        assert_eq!(std::fs::read_dir(root.join("caches")).unwrap().count(), 1);
        // A directory on the way to a cache replaced by a link out (as a
        // run could, were one cache inside another): refused, nothing made
        // behind it.
        let outside = t.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::create_dir_all(dir.join("home/.d")).unwrap();
        std::os::unix::fs::symlink(&outside, dir.join("home/.d/x")).unwrap();
        let e = of("1.2.3", &[".d/x/made"]).unwrap_err();
        assert!(format!("{e:#}").contains("symbolic link"), "{e:#}");
        assert!(!outside.join("made").exists());
        // The version file, a link: not written through.
        std::fs::remove_file(dir.join("version")).unwrap();
        std::os::unix::fs::symlink(outside.join("v"), dir.join("version")).unwrap();
        assert!(of("1.2.3", &[".c"]).is_err());
        assert!(!outside.join("v").exists());
    }

    #[test]
    fn a_sync_keeps_what_was_built_drops_what_the_checkout_dropped_and_follows_no_symlink() {
        let t = tempfile::tempdir().unwrap();
        let (src, dst) = (t.path().join("src"), t.path().join("dst"));
        std::fs::create_dir_all(src.join("sub")).unwrap();
        std::fs::write(src.join("a.txt"), "a").unwrap();
        std::fs::write(src.join("sub/b.txt"), "b").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", src.join("link")).unwrap();
        sync_copy(&src, &dst, None, BOUNDS).unwrap();
        assert_eq!(std::fs::read_to_string(dst.join("sub/b.txt")).unwrap(), "b");
        assert_eq!(
            std::fs::read_link(dst.join("link")).unwrap(),
            Path::new("/etc/passwd")
        );
        // A prepare step built something; the checkout dropped b and
        // changed a.
        std::fs::write(dst.join("built"), "x").unwrap();
        std::fs::remove_file(src.join("sub/b.txt")).unwrap();
        std::fs::write(src.join("a.txt"), "a2").unwrap();
        // The copy was tampered with: a.txt is now a symlink out.
        std::fs::remove_file(dst.join("a.txt")).unwrap();
        std::os::unix::fs::symlink("/etc/shadow", dst.join("a.txt")).unwrap();
        sync_copy(&src, &dst, None, BOUNDS).unwrap();
        assert_eq!(std::fs::read_to_string(dst.join("a.txt")).unwrap(), "a2");
        assert!(!dst.join("a.txt").is_symlink());
        assert!(dst.join("built").exists());
        assert!(!dst.join("sub/b.txt").exists());
        // A directory of the copy replaced by a symlink out: the copy
        // starts afresh, nothing is written through it.
        let outside = t.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(src.join("sub/c.txt"), "c").unwrap();
        std::fs::remove_dir_all(dst.join("sub")).unwrap();
        std::os::unix::fs::symlink(&outside, dst.join("sub")).unwrap();
        sync_copy(&src, &dst, None, BOUNDS).unwrap();
        assert!(!outside.join("c.txt").exists());
        assert_eq!(std::fs::read_to_string(dst.join("sub/c.txt")).unwrap(), "c");
        assert!(!dst.join("built").exists(), "started afresh");
    }

    /// Issue #59 rows 3 and 10: what a prepare step planted in its copy
    /// (a sparse list of files and program file of a TiB each, a tree
    /// nested past the walk's bound) is never read whole nor walked past
    /// the bound: the sync replaces the file unread (its size differs),
    /// starts afresh from a list past its bound or a tree it cannot give
    /// to the sandbox's user, and the copy's check says why and removes it.
    #[test]
    fn a_copy_a_prepare_step_planted_in_is_bounded_and_starts_afresh() {
        // SAFETY: geteuid/getegid cannot fail.
        let ids = unsafe { (libc::geteuid(), libc::getegid()) };
        let t = tempfile::tempdir().unwrap();
        let (src, dst) = (t.path().join("src"), t.path().join("dst"));
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("p.py"), "print(1)\n").unwrap();
        sync_copy(&src, &dst, Some(ids), BOUNDS).unwrap();
        assert_eq!(copy_past_limit(&dst, 1 << 20, 1_000), None);
        // A prepare step's work: a sparse program file and list.
        for name in ["p.py", MANIFEST] {
            let f = std::fs::File::create(dst.join(name)).unwrap();
            f.set_len(1 << 40).unwrap();
        }
        let why = copy_past_limit(&dst, 1 << 20, 1_000).unwrap();
        assert!(
            why.contains(MANIFEST)
                && why.contains("1099511627776 bytes")
                && why.contains("removed"),
            "{why}"
        );
        assert!(!dst.exists());
        // Had it stayed (an older langbench), the next sync replaces it.
        sync_copy(&src, &dst, Some(ids), BOUNDS).unwrap();
        std::fs::write(dst.join("built"), "x").unwrap();
        for name in ["p.py", MANIFEST] {
            let f = std::fs::File::create(dst.join(name)).unwrap();
            f.set_len(1 << 40).unwrap();
        }
        sync_copy(&src, &dst, Some(ids), BOUNDS).unwrap();
        assert_eq!(
            std::fs::read_to_string(dst.join("p.py")).unwrap(),
            "print(1)\n"
        );
        assert_eq!(
            std::fs::read_to_string(dst.join(MANIFEST)).unwrap(),
            "p.py\n"
        );
        assert!(!dst.join("built").exists(), "started afresh");
        // Only the program file planted: replaced unread, the rest kept.
        std::fs::write(dst.join("built"), "x").unwrap();
        std::fs::File::create(dst.join("p.py"))
            .unwrap()
            .set_len(1 << 40)
            .unwrap();
        sync_copy(&src, &dst, Some(ids), BOUNDS).unwrap();
        assert_eq!(
            std::fs::read_to_string(dst.join("p.py")).unwrap(),
            "print(1)\n"
        );
        assert!(dst.join("built").exists());
        // Nested past the walk's bound: the check says so, and a copy
        // left so (an older langbench's) starts afresh at the next sync.
        let mut d = dst.clone();
        for _ in 0..nofollow::MAX_DEPTH + 1 {
            d.push("d");
        }
        std::fs::create_dir_all(&d).unwrap();
        let why = copy_past_limit(&dst, 1 << 20, 1_000).unwrap();
        assert!(why.contains("deeper than 256 levels"), "{why}");
        std::fs::create_dir_all(&d).unwrap();
        sync_copy(&src, &dst, Some(ids), BOUNDS).unwrap();
        assert!(!dst.join("d").exists(), "started afresh");
        // Too many files: the check counts them, and says files.
        for i in 0..1_200 {
            std::fs::write(dst.join(format!("e{i}")), "").unwrap();
        }
        let why = copy_past_limit(&dst, 1 << 20, 1_000).unwrap();
        assert!(
            why.contains("1001 or more files") && why.contains("1000 files"),
            "{why}"
        );
    }

    /// Issue #59 row 9: caches full of empty files hold no block, and were
    /// never past `--cache-limit`: they are counted in files too.
    #[test]
    fn caches_past_their_file_bound_are_past_their_limit() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        let fd = nofollow::open_trusted(&root).unwrap();
        let caches = Caches::in_state(&root, fd, "v", &[PathBuf::from(".c")], "1", None)
            .unwrap()
            .limited(1024, 100);
        assert_eq!(caches.past_limit(), None);
        for i in 0..100 {
            std::fs::write(caches.dirs[0].0.join(format!("f{i}")), "").unwrap();
        }
        assert_eq!(caches.past_limit(), None, "at the bound");
        std::fs::write(caches.dirs[0].0.join("one-more"), "").unwrap();
        let why = caches.past_limit().unwrap();
        assert!(
            why.contains("101 files") && why.contains("100 files") && why.contains("--file-limit"),
            "{why}"
        );
        // The blocks' bound as before.
        let caches = caches.limited(1024, 0);
        std::fs::write(caches.dirs[0].0.join("big"), vec![1u8; 2 << 20]).unwrap();
        let why = caches.past_limit().unwrap();
        assert!(
            why.contains("--cache-limit") && why.contains("of 1 MB per"),
            "{why}"
        );
    }
}
