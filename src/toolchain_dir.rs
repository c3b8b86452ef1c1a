//! A Maven or dist toolchain's directory, built whole: in a temporary
//! `.partial-NAME-PID` beside its place under the toolchains directory,
//! renamed into place only once complete, so a failed or interrupted
//! install leaves nothing that looks installed (and the next install
//! removes what a dead one left, `scratch::remove_dead_partials`). One
//! helper for both kinds ([`install_whole`]), and the one error type their
//! installs return ([`InstallError`]).

use std::path::{Path, PathBuf};

/// Why a Maven or dist toolchain was not installed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
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

/// Where toolchain `name` of the toolchains directory `root` is built.
pub(crate) fn partial(root: &Path, name: &str) -> PathBuf {
    root.join(format!(".partial-{name}-{}", std::process::id()))
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
    crate::scratch::remove_dead_partials(root, name);
    let partial = partial(root, name);
    let home = root.join(name);
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
}
