//! A stored check's run directory, found beside the edition (issue #59,
//! rows 7 and 8: a stored check is verified against the records it
//! claims). `reproduce --out DIR --store` measures into DIR and stores its
//! result both as `DIR/reproduced.json` and as the edition's
//! `reproduced/DATE-MACHINE.json`; the check names DIR in its `run` field.
//! Checks stored before that field name nothing: their run directory is
//! the one beside the edition whose `reproduced.json` is the same file,
//! byte for byte (`reproduce` writes the same bytes to both).
//!
//! Both come with a results directory, from whoever made it, so: `run` is
//! a bare directory name (no `/`, not `.` or `..`), looked up in the
//! edition's own parent (`..` of its descriptor, never a path the file
//! spells); the directories are opened `O_NOFOLLOW`; the search reads at
//! most [`MAX_SIBLINGS`] directories' `reproduced.json`, each of at most
//! [`super::MAX_LINE`] bytes; and a run directory's records are read
//! without its own checks (no chain from one directory to the next). The
//! edition itself is never its own run directory.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustix::fs::{FileType, Mode, OFlags};
use rustix::io::Errno;

use super::{MAX_LINE, RunDir, Store};

/// At most this many directories beside the edition are searched for a
/// check's copy.
const MAX_SIBLINGS: usize = 512;

/// The one field of a stored check this layer reads.
#[derive(serde::Deserialize)]
struct RunField {
    #[serde(default)]
    run: Option<String>,
}

/// Whether `name` is one directory's name: no separator, not `.` or `..`,
/// not empty, not hidden.
pub(crate) fn bare_name(name: &str) -> bool {
    !name.is_empty()
        && !name.contains('/')
        && !name.contains('\0')
        && !name.starts_with('.')
        && name.len() <= 255
}

impl Store {
    /// The run directories of `checks` (file name, bytes) found beside
    /// this directory, by check file name (see the module's comment).
    pub(super) fn reproduction_runs(
        &self,
        checks: &[(String, Vec<u8>)],
    ) -> BTreeMap<String, RunDir> {
        let mut out = BTreeMap::new();
        if checks.is_empty() {
            return out;
        }
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let Ok(parent) = rustix::fs::openat(self.fd.as_fd(), "..", flags, Mode::empty()) else {
            return out;
        };
        let shown = match self.dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => self.dir.join(".."),
        };
        let mut copies: Option<Vec<(String, Vec<u8>)>> = None;
        for (file, bytes) in checks {
            let named = serde_json::from_slice::<RunField>(bytes)
                .ok()
                .and_then(|r| r.run);
            let (name, by_name) = match named {
                Some(n) if bare_name(&n) => (n, true),
                Some(_) => continue,
                None => {
                    let found = copies
                        .get_or_insert_with(|| self.copies_beside(parent.as_fd()))
                        .iter()
                        .find(|(_, b)| b == bytes)
                        .map(|(n, _)| n.clone());
                    match found {
                        Some(n) => (n, false),
                        None => continue,
                    }
                }
            };
            let records = match self.open_beside(parent.as_fd(), &name) {
                Ok(None) => continue,
                Ok(Some(fd)) => Store {
                    dir: shown.join(&name),
                    fd: Arc::new(fd),
                }
                .load_records()
                .map(Arc::new)
                .map_err(|e| format!("{e:#}")),
                Err(e) => Err(e),
            };
            out.insert(
                file.clone(),
                RunDir {
                    name,
                    named: by_name,
                    records,
                },
            );
        }
        out
    }

    /// The directory `name` beside this one, opened through no link;
    /// `Ok(None)` when there is none; an error for this directory itself
    /// or one that cannot be opened.
    fn open_beside(&self, parent: BorrowedFd, name: &str) -> Result<Option<OwnedFd>, String> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = match rustix::fs::openat(parent, name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(None),
            Err(e) => return Err(format!("cannot open it: {e} (a link or not a directory)")),
        };
        let (a, b) = (rustix::fs::fstat(&fd), rustix::fs::fstat(self.fd.as_fd()));
        if let (Ok(a), Ok(b)) = (a, b)
            && (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
        {
            return Err("it is the edition itself".into());
        }
        Ok(Some(fd))
    }

    /// The `reproduced.json` of the directories beside this one (at most
    /// [`MAX_SIBLINGS`] searched, each file at most [`MAX_LINE`] bytes),
    /// by directory name; what cannot be read is passed over (a search,
    /// not a claim).
    fn copies_beside(&self, parent: BorrowedFd) -> Vec<(String, Vec<u8>)> {
        let Ok(mut names) = super::entries(parent, &PathBuf::from("..")) else {
            return Vec::new();
        };
        names.retain(|(_, kind)| *kind == FileType::Directory);
        names.sort_by(|a, b| a.0.cmp(&b.0));
        names
            .into_iter()
            .take(MAX_SIBLINGS)
            .filter_map(|(name, _)| {
                let name = name.to_str()?.to_string();
                let dir = self.open_beside(parent, &name).ok()??;
                Some((name, read_small(dir.as_fd(), Path::new("reproduced.json"))?))
            })
            .collect()
    }
}

/// The regular file `name` of `dir`, read through no link, if it is at
/// most [`MAX_LINE`] bytes.
fn read_small(dir: BorrowedFd, name: &Path) -> Option<Vec<u8>> {
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
    let fd = rustix::fs::openat(dir, name, flags, Mode::empty()).ok()?;
    let st = rustix::fs::fstat(&fd).ok()?;
    if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
        return None;
    }
    let mut bytes = Vec::new();
    File::from(fd)
        .take(MAX_LINE as u64 + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    (bytes.len() <= MAX_LINE).then_some(bytes)
}
