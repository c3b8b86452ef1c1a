//! What a finished command was: how it ended and the kernel's figures
//! ([`Done`]: what the agent's `done` line carries) and what it wrote
//! ([`Outcome`]). A leaf of `spawn`: the agent's line protocol, the
//! agent's kit and the spawner all build on these types.

use std::time::Duration;

/// Captured output of one stream.
#[derive(Debug, Clone, Default)]
pub struct Captured {
    /// The kept bytes: the head of stdout, the tail of stderr.
    pub bytes: Vec<u8>,
    /// Bytes the command wrote in total.
    pub total: u64,
}

impl Captured {
    pub fn truncated(&self) -> bool {
        self.total > self.bytes.len() as u64
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

/// How the command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", content = "code", rename_all = "lowercase")]
pub enum Exit {
    /// It exited with this status (stored as `{"kind":"exited","code":N}`).
    Exited(i32),
    /// A signal killed it (stored as `{"kind":"signaled","code":SIGNAL}`).
    Signaled(i32),
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Exit::Exited(c) => write!(f, "exit {c}"),
            Exit::Signaled(s) => write!(f, "killed by signal {s} ({})", signal_name(*s)),
        }
    }
}

pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGINT => "SIGINT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGILL => "SIGILL",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGHUP => "SIGHUP",
        _ => "signal",
    }
}

/// A finished command: how it ended and the kernel's figures (the
/// agent's `done` line), and what it wrote.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub done: Done,
    pub stdout: Captured,
    pub stderr: Captured,
    /// What the command's tree wrote to the socket of `Request::log_fd`
    /// (the head, bounded; empty without one).
    pub log: Captured,
}

/// CPU and memory of a whole contained process tree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreeUsage {
    pub user: Duration,
    pub sys: Duration,
    pub max_rss_kb: u64,
    /// The largest peak of any single process of the tree (the command with
    /// the descendants it waited for, or an orphan): above the command's
    /// own, a process nobody waited for held more than the measured one.
    pub max_single_rss_kb: u64,
}

impl Exit {
    /// From a status `wait4` gave; `None` for a status that is neither
    /// (stopped or continued, which `wait4` without `WUNTRACED` or
    /// `WCONTINUED` never returns).
    pub(super) fn from_wait_status(status: i32) -> Option<Exit> {
        if libc::WIFEXITED(status) {
            Some(Exit::Exited(libc::WEXITSTATUS(status)))
        } else if libc::WIFSIGNALED(status) {
            Some(Exit::Signaled(libc::WTERMSIG(status)))
        } else {
            None
        }
    }
}

/// The `done` line: the command's figures as the kernel gave them. The
/// plain agent writes the command's own; a contained run (init) adds the
/// tree and its verdicts, written whenever there is a tree or a verdict.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Done {
    /// `KIND CODE`.
    pub exit: Exit,
    /// `wall_ns`: fork to reap, on the monotonic clock.
    pub wall: Duration,
    /// `utime_us`, `stime_us`: the command's rusage.
    pub user: Duration,
    pub sys: Duration,
    /// `maxrss_kb`: the command's `ru_maxrss`.
    pub max_rss_kb: u64,
    /// `timed_out`, `stopped` (0 or 1).
    pub timed_out: bool,
    pub stopped: bool,
    /// `leftovers`: processes killed after the command ended.
    pub leftovers: u32,
    /// `tree_utime_us`, `tree_stime_us`, `tree_rss_kb`, `tree_single_kb`
    /// (all four, or none).
    pub tree: Option<TreeUsage>,
    /// `oom`, `escaped` (0 or 1; absent: 0).
    pub oom: bool,
    pub escaped: bool,
    /// `forked_after` (absent: 0).
    pub forked_after: u32,
    /// `tasks`, `proc_limit`, `widened`, `disk`, `files` (absent: 0).
    pub bounds: Bounds,
}

impl Done {
    /// A command that ended with `exit` and did nothing else (zero time
    /// and memory, no tree, no verdict): the base the tests' scripted
    /// outcomes fill in with `..Done::exited(exit)` (the app's tests too,
    /// so not behind `cfg(test)`).
    pub fn exited(exit: Exit) -> Done {
        Done {
            exit,
            wall: Duration::ZERO,
            user: Duration::ZERO,
            sys: Duration::ZERO,
            max_rss_kb: 0,
            timed_out: false,
            stopped: false,
            leftovers: 0,
            tree: None,
            oom: false,
            escaped: false,
            forked_after: 0,
            bounds: Bounds::default(),
        }
    }
}

/// What a contained run did against its bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Bounds {
    /// The most processes and threads a sample of the tree saw.
    pub tasks: u64,
    /// It reached the bound on processes and threads (forks failed).
    pub proc_limit: bool,
    /// A task of it could run outside `--cpus` (it widened its affinity).
    pub widened: bool,
    /// It was killed for writing more than the disk bound.
    pub disk: bool,
    /// It was killed for creating more files (inodes) on the host's disk
    /// than their bound.
    pub files: bool,
}

#[cfg(test)]
mod tests {
    use super::Exit;

    #[test]
    fn a_wait_status_is_an_exit_or_a_signal() {
        assert_eq!(Exit::from_wait_status(3 << 8), Some(Exit::Exited(3)));
        assert_eq!(
            Exit::from_wait_status(libc::SIGSEGV),
            Some(Exit::Signaled(libc::SIGSEGV))
        );
        // Stopped by SIGSTOP (0x7f in the low byte).
        assert_eq!(Exit::from_wait_status(0x137f), None);
    }
}
