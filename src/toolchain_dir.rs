//! A Maven or dist toolchain's directory, built whole: in a temporary
//! `.partial-NAME-PID-TAG` beside its place under the toolchains
//! directory, renamed into place only once complete, so a failed or
//! interrupted install leaves nothing that looks installed (and the next
//! install removes what a dead one left, [`remove_dead_partials`]). One
//! helper for both kinds ([`install_whole`]), and the one error type their
//! installs return ([`InstallError`]).
//!
//! The toolchains directory can be a volume shared by containers (pods of
//! one edition on N machines), whose installs all run as pid 1 and cannot
//! see each other's processes: the random TAG keeps two installs out of
//! one directory, and an install is alive while it holds the `flock` of
//! its `.partial-NAME-PID-TAG.lock` (the kernel drops it when the process
//! dies, whichever namespace looks), not while some process has its pid.

use std::path::{Path, PathBuf};

/// Why a Maven or dist toolchain was not installed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum InstallError {
    /// Its `install` table is not valid (what languages.toml's check says).
    #[error("{0}")]
    Invalid(String),
    /// The toolchains directory cannot be created.
    #[error("cannot create the toolchains directory {}: {source}", .root.display())]
    NoRoot {
        root: PathBuf,
        source: std::io::Error,
    },
    /// Building it failed (a fetch, a checksum, an archive, mvn, a setup
    /// command): nothing was left.
    #[error("{0}; nothing was installed")]
    Build(String),
    /// It was built but cannot be moved into place: nothing was left.
    #[error("cannot move {} to {}: {source}; nothing was installed", .from.display(), .to.display())]
    Move {
        from: PathBuf,
        to: PathBuf,
        source: std::io::Error,
    },
}

/// Where toolchain `name` of the toolchains directory `root` is built by
/// this process (the same path for every call in it).
pub(crate) fn partial(root: &Path, name: &str) -> PathBuf {
    static TAG: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let tag = TAG.get_or_init(crate::record::random_tag);
    root.join(format!(".partial-{name}-{}-{tag}", std::process::id()))
}

/// The lock file of a partial directory: held while its install lives.
fn lock_of(partial: &Path) -> PathBuf {
    let mut name = partial.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// What a `.partial-NAME-…` entry of the toolchains directory is, by the
/// rest of its name: this layout's `PID-TAG` (a directory, or with
/// `.lock` its lock file), or an older langbench's `PID`.
enum Partial {
    Dir,
    Lock,
    Old(i32),
}

fn partial_kind(rest: &str) -> Option<Partial> {
    let (stem, lock) = match rest.strip_suffix(".lock") {
        Some(stem) => (stem, true),
        None => (rest, false),
    };
    if let (false, Ok(pid)) = (lock, stem.parse::<i32>()) {
        return Some(Partial::Old(pid));
    }
    // Exactly PID-TAG: a toolchain whose name extends NAME with `-…`
    // (`x-1` of `x`) has one more part and is not ours.
    let (pid, tag) = stem.split_once('-')?;
    let ours =
        pid.parse::<u32>().is_ok() && tag.len() == 6 && tag.bytes().all(|b| b.is_ascii_hexdigit());
    ours.then_some(if lock { Partial::Lock } else { Partial::Dir })
}

/// Whether the install that holds `lock` is gone: nobody holds its
/// `flock` (a missing lock file: it finished or died before taking it).
fn abandoned(lock: &Path) -> bool {
    match std::fs::File::open(lock) {
        Ok(f) => f.try_lock().is_ok(),
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
    }
}

/// Removes what installs of toolchain `name` under `root` left when they
/// died: their partial directories and lock files. A live install's
/// (another process's, another container's) is left alone.
pub(crate) fn remove_dead_partials(root: &Path, name: &str) {
    let prefix = format!(".partial-{name}-");
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for e in entries.flatten() {
        let file = e.file_name().to_string_lossy().into_owned();
        let Some(kind) = file.strip_prefix(&prefix).and_then(partial_kind) else {
            continue;
        };
        let path = e.path();
        let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
        match kind {
            Partial::Old(pid) if is_dir && !crate::scratch::alive(pid) => {
                let _ = crate::scratch::remove_tree(&path);
            }
            Partial::Dir
                if is_dir
                    && abandoned(&lock_of(&path))
                    && crate::scratch::remove_tree(&path).is_ok() =>
            {
                let _ = std::fs::remove_file(lock_of(&path));
            }
            // A lock without its directory, nobody holding it.
            Partial::Lock if !path.with_extension("").exists() && abandoned(&path) => {
                let _ = std::fs::remove_file(&path);
            }
            _ => {}
        }
    }
}

/// Builds toolchain `name` under `root` whole: `build` fills its
/// [`partial`] directory (removed first, with those of dead installs),
/// which is then renamed to `root/name`; a toolchain another install put
/// there first (`installed` says it is complete) is as good as ours. On
/// error the partial directory is removed: nothing is left under the name.
pub(crate) fn install_whole<T>(
    root: &Path,
    name: &str,
    installed: impl Fn(&Path) -> bool,
    build: impl FnOnce(&Path) -> Result<T, String>,
) -> Result<T, InstallError> {
    std::fs::create_dir_all(root).map_err(|source| InstallError::NoRoot {
        root: root.to_path_buf(),
        source,
    })?;
    remove_dead_partials(root, name);
    let partial = partial(root, name);
    let home = root.join(name);
    // Ours alone while we live: taken before the directory exists.
    let lock_path = lock_of(&partial);
    let lock = std::fs::File::create(&lock_path)
        .and_then(|f| f.try_lock().map(|()| f).map_err(std::io::Error::from))
        .map_err(|e| InstallError::Build(format!("cannot lock {}: {e}", lock_path.display())))?;
    let _ = std::fs::remove_dir_all(&partial);
    let result =
        build(&partial)
            .map_err(InstallError::Build)
            .and_then(|built| match std::fs::rename(&partial, &home) {
                Ok(()) => Ok(built),
                Err(_) if installed(&home) => Ok(built),
                Err(source) => Err(InstallError::Move {
                    from: partial.clone(),
                    to: home.clone(),
                    source,
                }),
            });
    if partial.exists() {
        let _ = std::fs::remove_dir_all(&partial);
    }
    let _ = std::fs::remove_file(&lock_path);
    drop(lock);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A build that fails leaves nothing; one that succeeds is in place
    /// under its name; a place another install filled first is kept.
    #[test]
    fn a_toolchain_is_in_place_whole_or_not_at_all() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path().join("toolchains");
        let complete = |home: &Path| home.join("bin/x").is_file();
        let fill = |dir: &Path| {
            std::fs::create_dir_all(dir.join("bin")).map_err(|e| e.to_string())?;
            std::fs::write(dir.join("bin/x"), "").map_err(|e| e.to_string())
        };
        let e = install_whole(&root, "t-1", complete, |dir| {
            fill(dir)?;
            Err::<(), _>("fetch x: checksum mismatch".to_string())
        })
        .unwrap_err();
        assert!(matches!(e, InstallError::Build(_)));
        assert_eq!(
            e.to_string(),
            "fetch x: checksum mismatch; nothing was installed"
        );
        let left: Vec<_> = std::fs::read_dir(&root).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");

        install_whole(&root, "t-1", complete, fill).unwrap();
        assert!(complete(&root.join("t-1")));
        assert_eq!(std::fs::read_dir(&root).unwrap().count(), 1);
        // Installed meanwhile by another install: ours is not needed.
        install_whole(&root, "t-1", complete, fill).unwrap();
        assert_eq!(std::fs::read_dir(&root).unwrap().count(), 1);

        let file = root.join("not-a-dir");
        std::fs::write(&file, "").unwrap();
        let e = install_whole(&file, "t-2", complete, fill).unwrap_err();
        assert!(
            e.to_string().starts_with(&format!(
                "cannot create the toolchains directory {}: ",
                file.display()
            )),
            "{e}"
        );
    }

    /// Installs that share a toolchains directory from containers (all of
    /// them pid 1, none seeing the others' processes): a live one's
    /// directory is never taken nor removed, a dead one's is; another
    /// toolchain whose name extends this one's is left alone.
    #[test]
    fn another_installs_partial_is_removed_only_once_it_died() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        let ours = partial(root, "t");
        let other_tag = if ours.to_string_lossy().ends_with("-abcdef") {
            "fedcba"
        } else {
            "abcdef"
        };
        // Another container's install, pid 1 like ours might be, alive.
        let theirs = root.join(format!(".partial-t-1-{other_tag}"));
        std::fs::create_dir_all(theirs.join("bin")).unwrap();
        let held = std::fs::File::create(lock_of(&theirs)).unwrap();
        held.lock().unwrap();
        // A dead one's, an older langbench's dead one's, and toolchain
        // t-1's (whose name extends t), dead too.
        let dead = root.join(".partial-t-1-0a0b0c");
        std::fs::create_dir_all(&dead).unwrap();
        std::fs::File::create(lock_of(&dead)).unwrap();
        let old = root.join(".partial-t-999999999");
        std::fs::create_dir_all(&old).unwrap();
        let longer = root.join(".partial-t-1-1-0a0b0c");
        std::fs::create_dir_all(&longer).unwrap();
        let stray_lock = root.join(".partial-t-7-123abc.lock");
        std::fs::write(&stray_lock, "").unwrap();

        let complete = |home: &Path| home.join("bin/x").is_file();
        install_whole(root, "t", complete, |dir| {
            assert!(!dir.starts_with(&theirs) && dir != theirs);
            std::fs::create_dir_all(dir.join("bin")).map_err(|e| e.to_string())?;
            std::fs::write(dir.join("bin/x"), "").map_err(|e| e.to_string())
        })
        .unwrap();
        assert!(complete(&root.join("t")));
        assert!(
            theirs.is_dir() && lock_of(&theirs).is_file(),
            "a live install's directory was removed"
        );
        for gone in [
            &dead,
            &lock_of(&dead),
            &old,
            &stray_lock,
            &ours,
            &lock_of(&ours),
        ] {
            assert!(!gone.exists(), "{} left", gone.display());
        }
        assert!(longer.is_dir(), "another toolchain's partial was removed");

        // Once it died (its lock dropped with it), the next install removes it.
        drop(held);
        remove_dead_partials(root, "t");
        assert!(!theirs.exists() && !lock_of(&theirs).exists());
        assert!(longer.is_dir());
    }
}
