//! Real paths of many files in few directories, each directory resolved
//! once (issue #41). `Path::canonicalize` asks the kernel about every
//! component of every path: a languages file of 6,500 variants names
//! 16,500 programs in a dozen directories, and parsing it and embedding
//! their sources in a report made ~250,000 `readlink` calls, six or
//! nine per file. Here a file that is not itself a symbolic link is its
//! directory's real path joined with its name, which is what
//! `canonicalize` returns for it; the directory's real path is asked
//! once. A leaf that is a link, or a path without a plain last name
//! (`..`, `/`), goes to `canonicalize` as before, so a link out of a
//! directory is followed exactly as it was.
//!
//! Hand-written: no well-kept crate caches real paths (`dunce`,
//! `path-clean`, `normpath` each resolve or clean one path at a time).

use std::cell::RefCell;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

/// A memo of directories' real paths, for one pass over a set of files
/// (a parse, a report): a directory renamed during the pass is not seen.
#[derive(Debug, Default)]
pub(crate) struct Canon {
    dirs: RefCell<HashMap<PathBuf, Result<PathBuf, io::ErrorKind>>>,
}

impl Canon {
    /// `path` with every symbolic link resolved, as `path.canonicalize()`
    /// gives it (the same error kind when it does not exist).
    pub(crate) fn real(&self, path: &Path) -> io::Result<PathBuf> {
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            return path.canonicalize();
        };
        let meta = std::fs::symlink_metadata(path)?;
        if meta.file_type().is_symlink() {
            return path.canonicalize();
        }
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        Ok(self.dir(dir)?.join(name))
    }

    /// The real path of directory `dir`, asked of the kernel once.
    pub(crate) fn dir(&self, dir: &Path) -> io::Result<PathBuf> {
        self.dirs
            .borrow_mut()
            .entry(dir.to_path_buf())
            .or_insert_with(|| dir.canonicalize().map_err(|e| e.kind()))
            .clone()
            .map_err(io::Error::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever the path, the memo answers as `canonicalize` does: plain
    /// files, links to files in and out of the directory, links to
    /// directories on the way, `.` and `..` components, relative paths and
    /// missing files; asked twice, the same again.
    #[test]
    fn answers_as_canonicalize_does() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("root");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::create_dir_all(t.path().join("outside")).unwrap();
        std::fs::write(root.join("a/b/plain.txt"), "x").unwrap();
        std::fs::write(t.path().join("outside/secret"), "s").unwrap();
        std::os::unix::fs::symlink(t.path().join("outside/secret"), root.join("a/b/out")).unwrap();
        std::os::unix::fs::symlink("plain.txt", root.join("a/b/in")).unwrap();
        std::os::unix::fs::symlink(t.path().join("outside"), root.join("a/dirlink")).unwrap();
        std::os::unix::fs::symlink("nowhere", root.join("a/b/dangling")).unwrap();
        let canon = Canon::default();
        let paths = [
            root.join("a/b/plain.txt"),
            root.join("a/b/out"),
            root.join("a/b/in"),
            root.join("a/dirlink/secret"),
            root.join("a/b/../b/plain.txt"),
            root.join("a/./b/plain.txt"),
            root.join("a/b/missing"),
            root.join("a/b/dangling"),
            root.join("a/b/.."),
            root.join("a/b"),
            PathBuf::from("/"),
        ];
        for _ in 0..2 {
            for p in &paths {
                let want = p.canonicalize().map_err(|e| e.kind());
                let got = canon.real(p).map_err(|e| e.kind());
                assert_eq!(got, want, "{}", p.display());
            }
        }
        assert_eq!(
            canon.real(&root.join("a/dirlink/secret")).unwrap(),
            t.path().join("outside/secret").canonicalize().unwrap()
        );
        // A relative path, from the current directory.
        let here = std::env::current_dir().unwrap();
        let name = here
            .read_dir()
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .file_name();
        assert_eq!(
            canon.real(Path::new(&name)).unwrap(),
            Path::new(&name).canonicalize().unwrap()
        );
    }
}
