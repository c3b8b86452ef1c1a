//! Samples a server's whole process tree from /proc: RSS summed over the
//! tree, CPU time (utime + stime) summed over the tree, and time its
//! threads spent runnable but waiting for a CPU (schedstat: on a shared
//! machine, CPU the server wanted but others had).

use std::collections::HashMap;

use langbench_spawn::procstat::Stat;

/// One look at the tree.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TreeSample {
    pub rss_kb: u64,
    /// CPU seconds used so far by the processes alive now.
    pub cpu_s: f64,
    /// Seconds its threads spent waiting on a run queue so far.
    pub runq_wait_s: f64,
    pub processes: usize,
}

/// Run-queue wait of one task (ns), from `/proc/.../schedstat`.
fn schedstat_wait_ns(path: &str) -> u64 {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0)
}

/// Run-queue wait of every thread of `pid` (seconds).
fn runq_wait_s(pid: i32) -> f64 {
    let mut ns = 0;
    if let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for t in dir.flatten() {
            ns += schedstat_wait_ns(&format!("{}/schedstat", t.path().display()));
        }
    }
    ns as f64 / 1e9
}

/// Run-queue wait of the calling thread so far.
pub(crate) fn thread_runq_wait() -> std::time::Duration {
    std::time::Duration::from_nanos(schedstat_wait_ns("/proc/thread-self/schedstat"))
}

fn page_kb() -> u64 {
    // SAFETY: sysconf has no preconditions.
    (unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as u64 / 1024).max(1)
}

fn ticks_per_s() -> f64 {
    // SAFETY: sysconf has no preconditions.
    (unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64).max(1.0)
}

fn rss_kb(pid: i32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/statm"))
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * page_kb())
}

/// Samples `root` and all its descendants.
pub(crate) fn sample_tree(root: i32) -> TreeSample {
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    let mut cpu: HashMap<i32, u64> = HashMap::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
                continue;
            };
            if let Some(s) = Stat::of(pid) {
                children.entry(s.ppid).or_default().push(pid);
                cpu.insert(pid, s.utime + s.stime);
            }
        }
    }
    let mut out = TreeSample::default();
    let mut stack = vec![root];
    let mut ticks = 0;
    while let Some(p) = stack.pop() {
        let Some(t) = cpu.get(&p) else { continue };
        ticks += t;
        out.rss_kb += rss_kb(p);
        out.runq_wait_s += runq_wait_s(p);
        out.processes += 1;
        if let Some(c) = children.get(&p) {
            stack.extend(c);
        }
    }
    out.cpu_s = ticks as f64 / ticks_per_s();
    out
}

/// CPU seconds (user + system) this process has used so far.
pub(crate) fn self_cpu_s() -> f64 {
    // SAFETY: getrusage fills the struct we own.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut ru);
        ru
    };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_this_process() {
        let s = sample_tree(std::process::id() as i32);
        assert!(s.processes >= 1);
        assert!(s.rss_kb > 100);
        assert!(self_cpu_s() >= 0.0);
    }
}
