//! Scratch directories (build directories, version probes, ws servers):
//! named after the langbench process that made them, so that the next
//! session removes those a killed langbench left behind (SIGKILL, a second
//! Ctrl-C, a crash skip `TempDir`'s cleanup).

use std::path::Path;

use anyhow::{Context, Result};
use tempfile::TempDir;

const PREFIX: &str = "langbench-";

/// A fresh scratch directory `langbench-<kind>-<pid>-XXXXXX` under the
/// system temp directory, removed when dropped.
pub fn dir(kind: &str) -> Result<TempDir> {
    tempfile::Builder::new()
        .prefix(&format!("{PREFIX}{kind}-{}-", std::process::id()))
        .tempdir()
        .with_context(|| format!("cannot create a {kind} directory"))
}

/// The pid a scratch directory's name carries.
fn owner(name: &str) -> Option<i32> {
    let rest = name.strip_prefix(PREFIX)?;
    let mut parts = rest.split('-');
    let _kind = parts.next()?;
    parts.next()?.parse().ok()
}

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Removes scratch directories in `tmp` whose langbench is gone; returns
/// how many.
pub fn clean_stale_in(tmp: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(pid) = owner(&name)
            && !alive(pid)
            && e.file_type().is_ok_and(|t| t.is_dir())
            && std::fs::remove_dir_all(e.path()).is_ok()
        {
            removed += 1;
        }
    }
    removed
}

/// [`clean_stale_in`] the system temp directory.
pub fn clean_stale() -> usize {
    clean_stale_in(&std::env::temp_dir())
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
}
