//! What langbench keeps per variant between runs and sessions, outside the
//! checkout and the results: the private copies of program directories
//! that `prepare` steps work in (issue #21), and the variants' toolchain
//! caches (issue #22). Everything lives under one directory langbench
//! owns: `$LANGBENCH_STATE`, else `$XDG_CACHE_HOME/langbench`, else
//! `~/.cache/langbench`. A sandboxed command can write only its own
//! variant's part of it, owned by the sandbox's user.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::bench::Bench;
use crate::config::Variant;

/// The directory langbench keeps its per-variant state in.
pub fn root() -> PathBuf {
    if let Some(d) = std::env::var_os("LANGBENCH_STATE").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    cache.join("langbench")
}

/// Where `variant`'s `prepare` steps for `bench` work: a private copy of
/// the program's directory (`{dir}` and `{src}` of its prepare, build and
/// run commands point there). `None` for a variant without `prepare`,
/// whose commands use the checkout's directory, read-only.
pub fn prepared_dir(variant: &Variant, bench: Bench) -> Option<PathBuf> {
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
#[derive(Debug, Clone)]
pub struct Caches {
    /// (host directory, path under HOME).
    pub dirs: Vec<(PathBuf, PathBuf)>,
    /// Where the programs that ran with these caches are remembered (one
    /// empty file per program digest, beside the caches, outside every
    /// sandbox's view): a compiler caches per program, so a program's
    /// first run is cold even where another program filled the caches.
    seen: Option<PathBuf>,
}

impl Caches {
    /// The caches of `variant` at toolchain `version` (none when it
    /// declares none, or with `cold`: every run from empty caches, as
    /// `--cold-caches` asks), created and given to `ids`.
    pub fn of(
        variant: &Variant,
        version: &str,
        cold: bool,
        ids: Option<(u32, u32)>,
    ) -> Result<Caches> {
        if cold || variant.caches.is_empty() {
            return Ok(Caches {
                dirs: Vec::new(),
                seen: None,
            });
        }
        let base = variant_caches(&variant.id).join(version_slug(version));
        let mut dirs = Vec::new();
        for rel in &variant.caches {
            let host = base.join("home").join(rel);
            std::fs::create_dir_all(&host)
                .with_context(|| format!("cannot create the cache {}", host.display()))?;
            if let Some((uid, gid)) = ids {
                std::os::unix::fs::lchown(&host, Some(uid), Some(gid))
                    .with_context(|| format!("cannot chown {}", host.display()))?;
            }
            dirs.push((host, rel.clone()));
        }
        Ok(Caches {
            dirs,
            seen: Some(base.join("programs")),
        })
    }

    /// Whether a run of `program` (its source digest) starting now starts
    /// cold (every cache empty, or this program never ran with them: as a
    /// person's first `crystal run` of a new file compiles it even after
    /// another file warmed the cache) or warm; `None` without caches.
    pub fn start(&self, program: Option<&str>) -> Option<crate::record::CacheStart> {
        if self.dirs.is_empty() {
            return None;
        }
        let new_program = match (&self.seen, program) {
            (Some(seen), Some(p)) => !seen.join(p).exists(),
            _ => false,
        };
        Some(if self.empty() || new_program {
            crate::record::CacheStart::Cold
        } else {
            crate::record::CacheStart::Warm
        })
    }

    /// Every cache directory is empty.
    fn empty(&self) -> bool {
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
    pub fn end(
        &self,
        started: Option<crate::record::CacheStart>,
        program: Option<&str>,
        ok: bool,
    ) -> Option<crate::record::CacheStart> {
        if let (Some(seen), Some(p), true) = (&self.seen, program, ok) {
            let marker = seen.join(p);
            if let Err(e) = std::fs::create_dir_all(seen).and_then(|()| std::fs::write(&marker, ""))
            {
                eprintln!(
                    "warning: cannot remember that this program ran with its caches ({}: {e}); \
                     its next run will be called cold",
                    marker.display()
                );
            }
        }
        let used_none = started == Some(crate::record::CacheStart::Cold)
            && !self.dirs.is_empty()
            && self.empty();
        if used_none { None } else { started }
    }
}

/// Every cache of a variant (all toolchain versions).
pub fn variant_caches(id: &str) -> PathBuf {
    root().join("caches").join(id)
}

/// A version as a directory name: `1.26.8`, `unknown` when there is none.
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
        let mb = du_bytes(t) as f64 / 1e6;
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

/// Bytes under `p` (files, not following symlinks).
fn du_bytes(p: &Path) -> u64 {
    crate::scratch::entries_under(p)
        .iter()
        .map(|e| e.metadata().map_or(0, |m| m.len()))
        .sum()
}

/// The list of files the last sync copied, kept in the copy: what the
/// checkout no longer has is removed from the copy, what the prepare step
/// built is kept.
const MANIFEST: &str = ".langbench-sources";

/// Brings the private copy `dst` up to date with the checkout's program
/// directory `src`: every file (symlinks copied as symlinks, never
/// followed) written where it differs, files the checkout dropped since the
/// last sync removed, what earlier prepare steps built kept; then the whole
/// copy is given to `ids` (the sandbox's user) so the step may write it.
///
/// The copy is the sandbox's to write, so it is hostile here: a directory
/// of it that a step replaced by a symlink (which langbench, root, would
/// follow out of the copy) makes the whole copy start afresh.
pub fn sync_copy(src: &Path, dst: &Path, ids: Option<(u32, u32)>) -> Result<()> {
    let mut files = Vec::new();
    collect(src, Path::new(""), &mut files)
        .with_context(|| format!("cannot read {}", src.display()))?;
    let tampered = std::fs::symlink_metadata(dst).is_ok_and(|m| !m.is_dir())
        || files
            .iter()
            .chain(std::iter::once(&PathBuf::from(MANIFEST)))
            .any(|f| !plain_parents(dst, f));
    if tampered {
        crate::scratch::remove_tree(dst).map_err(anyhow::Error::msg)?;
    }
    std::fs::create_dir_all(dst).with_context(|| format!("cannot create {}", dst.display()))?;
    let old = std::fs::read_to_string(dst.join(MANIFEST)).unwrap_or_default();
    for gone in old
        .lines()
        .map(Path::new)
        .filter(|p| !files.iter().any(|f| f == p))
    {
        if gone
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
            && plain_parents(dst, gone)
        {
            let _ = std::fs::remove_file(dst.join(gone));
        }
    }
    for rel in &files {
        let (from, to) = (src.join(rel), dst.join(rel));
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let meta = std::fs::symlink_metadata(&from)?;
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&from)?;
            if std::fs::read_link(&to).ok().as_ref() != Some(&target) {
                let _ = std::fs::remove_file(&to);
                std::os::unix::fs::symlink(&target, &to)?;
            }
            continue;
        }
        let body = std::fs::read(&from)?;
        if std::fs::symlink_metadata(&to).is_ok_and(|m| m.file_type().is_symlink())
            || std::fs::read(&to).ok().as_ref() != Some(&body)
        {
            let _ = std::fs::remove_file(&to);
            std::fs::write(&to, &body).with_context(|| format!("cannot write {}", to.display()))?;
            std::fs::set_permissions(&to, meta.permissions())?;
        }
    }
    let manifest: String = files.iter().map(|f| format!("{}\n", f.display())).collect();
    std::fs::write(dst.join(MANIFEST), manifest)?;
    if let Some((uid, gid)) = ids {
        crate::scratch::chown_tree(dst, uid, gid)?;
    }
    Ok(())
}

/// Whether every directory between `top` and `top/rel` is a real
/// directory (or missing), not a symlink.
fn plain_parents(top: &Path, rel: &Path) -> bool {
    let mut at = top.to_path_buf();
    let parents: Vec<_> = rel.components().collect();
    for c in &parents[..parents.len().saturating_sub(1)] {
        at.push(c);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if !m.is_dir() => return false,
            Ok(_) => {}
            Err(_) => return true,
        }
    }
    true
}

/// Every file and symlink under `dir` (relative to the top), sorted.
fn collect(top: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(top.join(rel))?.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = rel.join(e.file_name());
        let t = e.file_type()?;
        if t.is_dir() {
            collect(top, &path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
            seen: Some(seen.clone()),
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
    fn a_sync_keeps_what_was_built_drops_what_the_checkout_dropped_and_follows_no_symlink() {
        let t = tempfile::tempdir().unwrap();
        let (src, dst) = (t.path().join("src"), t.path().join("dst"));
        std::fs::create_dir_all(src.join("sub")).unwrap();
        std::fs::write(src.join("a.txt"), "a").unwrap();
        std::fs::write(src.join("sub/b.txt"), "b").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", src.join("link")).unwrap();
        sync_copy(&src, &dst, None).unwrap();
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
        sync_copy(&src, &dst, None).unwrap();
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
        sync_copy(&src, &dst, None).unwrap();
        assert!(!outside.join("c.txt").exists());
        assert_eq!(std::fs::read_to_string(dst.join("sub/c.txt")).unwrap(), "c");
        assert!(!dst.join("built").exists(), "started afresh");
    }
}
