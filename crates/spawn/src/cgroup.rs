//! Measuring and limiting a contained run through a cgroup v2 (issue #9),
//! where langbench is given one: `--cgroup PATH`, or its own cgroup when
//! that is a delegated subtree (systemd's `Delegate=yes`, marked by the
//! `trusted.delegate` / `user.delegate` extended attribute).
//!
//! langbench never writes into a cgroup hierarchy it was not given: it
//! creates one child `langbench-<pid>-<n>` per run inside the given
//! directory, and removes it when the run ends. init (pid 1 of the run's
//! namespace) moves itself into it before it starts the command, so the
//! whole tree, and nothing else, is in it. The cgroup then gives:
//! - the tree's CPU (`cpu.stat`: `user_usec`, `system_usec`; exact, init's
//!   own small share included);
//! - with the memory controller enabled in PATH: the tree's peak memory
//!   (`memory.peak`: everything charged to the tree, page cache and kernel
//!   memory included, so it can exceed the sum of RSS), `--memory-limit` as
//!   `memory.max` (the kernel's OOM killer acts inside the cgroup), and OOM
//!   detection (`oom_kill` in `memory.events`);
//! - `cgroup.kill` as a backstop when the run's cgroup is removed.
//!
//! Without the memory controller (this project's machines: cgroup v1
//! hybrid, the memory controller bound to v1) the memory figures and the
//! limit stay with init's /proc sampling; the session record says which
//! method measured what.
//!
//! cgroup v1 is not used: a v1 memory hierarchy langbench could be given
//! here is the machine's own, where moving a run would take it out of the
//! cgroups whoever runs langbench put it in.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use anyhow::{Context, Result, bail};

const CGROUP2_SUPER_MAGIC: i64 = 0x6367_7270;
const CGROUP_SUPER_MAGIC: i64 = 0x0027_e0eb;

/// A cgroup v2 directory langbench may create run cgroups in.
#[derive(Debug, Clone)]
pub struct Base {
    pub dir: PathBuf,
    /// The memory controller is enabled for its children.
    pub memory: bool,
    /// How it was found: `given` (--cgroup) or `delegated`.
    pub how: &'static str,
    /// Why memory is not measured by the cgroup, when it is not.
    pub memory_note: Option<String>,
}

fn fs_magic(p: &Path) -> Option<i64> {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).ok()?;
    // SAFETY: statfs into a zeroed struct we own, with a valid path.
    unsafe {
        let mut st: libc::statfs = std::mem::zeroed();
        (libc::statfs(c.as_ptr(), &mut st) == 0).then_some(st.f_type as i64)
    }
}

fn writable(p: &Path) -> bool {
    let Ok(c) = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    // SAFETY: access(2) with a valid path.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

fn words(p: &Path) -> Vec<String> {
    std::fs::read_to_string(p)
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// `key value` lines (`cpu.stat`, `memory.events`): the value of `key`.
fn keyed(p: &Path, key: &str) -> Option<u64> {
    std::fs::read_to_string(p).ok()?.lines().find_map(|l| {
        let (k, v) = l.split_once(' ')?;
        (k == key).then(|| v.trim().parse().ok()).flatten()
    })
}

impl Base {
    /// The directory given with `--cgroup`: must be a writable cgroup v2
    /// directory. The memory controller is enabled for its children when
    /// PATH offers it (a write to PATH's own `cgroup.subtree_control`).
    pub fn given(dir: &Path) -> Result<Base> {
        let dir = dir
            .canonicalize()
            .with_context(|| format!("--cgroup {}", dir.display()))?;
        match fs_magic(&dir) {
            Some(CGROUP2_SUPER_MAGIC) => {}
            Some(CGROUP_SUPER_MAGIC) => bail!(
                "--cgroup {}: a cgroup v1 directory; langbench uses cgroup v2 only \
                 (mount one with `mount -t cgroup2 none DIR` and give a directory in it)",
                dir.display()
            ),
            _ => bail!("--cgroup {}: not a cgroup v2 directory", dir.display()),
        }
        if !writable(&dir) || !writable(&dir.join("cgroup.procs")) {
            bail!(
                "--cgroup {}: not writable by this user (delegate it, e.g. chown, or run as its owner)",
                dir.display()
            );
        }
        Ok(Base::with_memory(dir, "given"))
    }

    /// langbench's own cgroup, if it is a delegated v2 subtree: the v2
    /// hierarchy's path of this process (`0::PATH` in /proc/self/cgroup),
    /// not the root, marked delegated (`trusted.delegate` or
    /// `user.delegate` = 1, as systemd marks `Delegate=yes` units) and
    /// writable. Anything else: `None` (use `--cgroup`).
    pub fn delegated() -> Option<Base> {
        let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
        let rel = own.lines().find_map(|l| l.strip_prefix("0::"))?.trim();
        if rel == "/" || rel.is_empty() {
            return None;
        }
        let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
        let mount = mounts.lines().find_map(|l| {
            let (left, right) = l.split_once(" - ")?;
            right
                .starts_with("cgroup2 ")
                .then(|| left.split(' ').nth(4).map(PathBuf::from))
                .flatten()
        })?;
        let dir = mount.join(rel.trim_start_matches('/'));
        if fs_magic(&dir) != Some(CGROUP2_SUPER_MAGIC) || !writable(&dir) {
            return None;
        }
        let marked = ["trusted.delegate", "user.delegate"]
            .iter()
            .any(|a| xattr(&dir, a).is_some_and(|v| v.trim_end_matches('\0') == "1"));
        marked.then(|| Base::with_memory(dir, "delegated"))
    }

    fn with_memory(dir: PathBuf, how: &'static str) -> Base {
        let mut base = Base {
            dir,
            memory: false,
            how,
            memory_note: None,
        };
        let available = words(&base.dir.join("cgroup.controllers"));
        if !available.iter().any(|c| c == "memory") {
            base.memory_note = Some(format!(
                "no memory controller in {} (it offers: {})",
                base.dir.display(),
                if available.is_empty() {
                    "none".to_string()
                } else {
                    available.join(" ")
                }
            ));
            return base;
        }
        let control = base.dir.join("cgroup.subtree_control");
        if !words(&control).iter().any(|c| c == "memory")
            && let Err(e) = std::fs::write(&control, "+memory")
        {
            base.memory_note = Some(format!(
                "cannot enable the memory controller in {}: {e} (a cgroup with processes of its own cannot: give an empty one)",
                control.display()
            ));
            return base;
        }
        base.memory = true;
        base
    }

    /// One line for the session record.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "cgroup v2 {} ({}): one child per run; tree CPU from its cpu.stat",
            self.dir.display(),
            self.how
        );
        match &self.memory_note {
            None => s.push_str(
                ", tree memory from memory.peak, the memory limit as memory.max, OOM kills from memory.events",
            ),
            Some(n) => s.push_str(&format!(
                "; tree memory by /proc sampling ({n})"
            )),
        }
        s
    }

    /// Creates the cgroup of one run; `limit_kb`: its memory.max (only
    /// with the memory controller).
    pub fn child(&self, limit_kb: Option<u64>) -> Result<Run> {
        static SEQ: AtomicU32 = AtomicU32::new(0);
        let path = self.dir.join(format!(
            "langbench-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&path)
            .with_context(|| format!("cannot create the run's cgroup {}", path.display()))?;
        let run = Run {
            path,
            memory: self.memory,
        };
        if let (true, Some(kb)) = (self.memory, limit_kb) {
            std::fs::write(run.path.join("memory.max"), (kb * 1024).to_string())
                .with_context(|| format!("cannot set {}/memory.max", run.path.display()))?;
            // Over the limit means killed, not swapped out.
            let _ = std::fs::write(run.path.join("memory.swap.max"), "0");
        }
        Ok(run)
    }
}

fn xattr(p: &Path, name: &str) -> Option<String> {
    let path = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).ok()?;
    let name = std::ffi::CString::new(name).ok()?;
    let mut buf = [0u8; 64];
    // SAFETY: getxattr into a buffer we own, with valid strings.
    let n = unsafe {
        libc::getxattr(
            path.as_ptr(),
            name.as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        )
    };
    (n >= 0).then(|| String::from_utf8_lossy(&buf[..n as usize]).into_owned())
}

/// The cgroup of one run: removed (its processes killed first) on drop.
#[derive(Debug)]
pub struct Run {
    pub path: PathBuf,
    pub memory: bool,
}

/// What a run's cgroup measured.
#[derive(Debug, Clone, Copy)]
pub(super) struct Usage {
    pub user: Duration,
    pub sys: Duration,
    /// memory.peak in KB (with the memory controller).
    pub peak_kb: Option<u64>,
    /// The kernel's OOM killer killed a process of the tree.
    pub oom_kills: u64,
}

impl Run {
    pub fn procs(&self) -> PathBuf {
        self.path.join("cgroup.procs")
    }

    pub(super) fn usage(&self) -> Usage {
        let stat = self.path.join("cpu.stat");
        Usage {
            user: Duration::from_micros(keyed(&stat, "user_usec").unwrap_or(0)),
            sys: Duration::from_micros(keyed(&stat, "system_usec").unwrap_or(0)),
            peak_kb: self
                .memory
                .then(|| {
                    std::fs::read_to_string(self.path.join("memory.peak"))
                        .ok()?
                        .trim()
                        .parse::<u64>()
                        .ok()
                })
                .flatten()
                .map(|b| b / 1024),
            oom_kills: if self.memory {
                keyed(&self.path.join("memory.events"), "oom_kill").unwrap_or(0)
            } else {
                0
            },
        }
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        // The namespace is gone by now; cgroup.kill catches anything that
        // is not (it cannot be, but the directory must be empty to go).
        let _ = std::fs::write(self.path.join("cgroup.kill"), "1");
        for _ in 0..200 {
            if std::fs::remove_dir(&self.path).is_ok() || !self.path.exists() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        eprintln!(
            "warning: cannot remove the run's cgroup {} (still busy)",
            self.path.display()
        );
    }
}
