//! Is the machine quiet enough to measure? What pyperf's `system show`
//! looks at: CPU frequency governor, turbo boost, load average, other busy
//! processes, swap in use, ASLR; and what makes this host noisy however
//! quiet it is (a virtual machine, memory handed back to the host: every
//! [`crate::host`] fact, issue #60). Checked at the start of every
//! session, warned about in the terminal and stored in the session record,
//! so a reader can tell a quiet machine's figures from a busy one's;
//! `langbench system show` prints the same check.
#![warn(missing_docs)]

use std::time::Duration;

use procfs::{Current, CurrentSI};

use serde::{Deserialize, Serialize};

/// How quiet the machine was when a session started, as stored in its
/// record ([`crate::record::SessionRecord::hygiene`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Hygiene {
    /// Distinct `scaling_governor` values of the CPUs (empty: no cpufreq,
    /// e.g. a virtual machine).
    pub governors: Vec<String>,
    /// Turbo/boost enabled (`None`: the kernel does not say).
    pub turbo: Option<bool>,
    /// 1, 5 and 15 minute load averages.
    pub load_avg: [f64; 3],
    /// Other processes that used more than 10% of a CPU over 0.5 s:
    /// "pid name cpu%".
    pub busy: Vec<String>,
    /// Swap in use (`SwapTotal` − `SwapFree`), KB.
    pub swap_used_kb: u64,
    /// `kernel.randomize_va_space` (0 off, 2 full).
    pub aslr: Option<u8>,
    /// What a careful benchmarker would fix first: the machine was not
    /// quiet (governor, turbo, load, busy processes, swap in use).
    pub warnings: Vec<String>,
    /// Every fact of the host with its verdict (`ok`, `may-add-noise`,
    /// `unknown`), as `langbench system show` prints them: the virtual
    /// machine and hypervisor, CPU and microcode, governor, steal, load,
    /// busy processes, memory, swap, transparent huge pages, the virtio
    /// balloon's free page reporting, virtio-mem, DAMON schemes, KSM, vm
    /// settings, ASLR. Absent in sessions recorded before it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub host: Vec<crate::host::Fact>,
}

impl Hygiene {
    /// What may add noise beyond the warnings: the facts a quiet machine
    /// has too (a virtual machine, free page reporting, DAMON pageout),
    /// named for the line a session's start prints.
    pub(crate) fn noise_sources(&self) -> Vec<String> {
        crate::host::noise_sources(&self.host)
    }
}

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
}

/// CPU time (ticks) of every process but this one.
fn cpu_ticks() -> Vec<(i32, String, u64)> {
    let me = std::process::id() as i32;
    let Ok(all) = procfs::process::all_processes() else {
        return Vec::new();
    };
    all.flatten()
        .filter(|p| p.pid != me)
        .filter_map(|p| {
            let s = p.stat().ok()?;
            // Our own agents and measured children are not "other" work.
            (s.ppid != me).then(|| (s.pid, s.comm, s.utime + s.stime))
        })
        .collect()
}

/// Looks at the machine (takes about half a second).
pub(crate) fn check() -> Hygiene {
    check_on(&crate::host::Host::live())
}

/// [`check`] with the host's facts read from `host`.
pub(crate) fn check_on(host: &crate::host::Host) -> Hygiene {
    let mut h = Hygiene::default();
    // Every online CPU, not this thread's affinity (`ws` pins itself first).
    // SAFETY: sysconf reads a constant.
    let cpus = usize::try_from(unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) })
        .unwrap_or(1)
        .max(1);
    h.governors = host.governors();
    h.turbo = host.turbo();
    if let Ok(l) = procfs::LoadAverage::current() {
        h.load_avg = [l.one as f64, l.five as f64, l.fifteen as f64];
    }
    if let Ok(m) = procfs::Meminfo::current() {
        h.swap_used_kb = (m.swap_total.saturating_sub(m.swap_free)) / 1024;
    }
    h.aslr = read("/proc/sys/kernel/randomize_va_space").and_then(|v| v.parse().ok());
    let before = cpu_ticks();
    let steal_before = steal_ticks();
    let window = Duration::from_millis(500);
    std::thread::sleep(window);
    let steal_now = match (steal_before, steal_ticks()) {
        (Some((s0, t0)), Some((s1, t1))) if t1 > t0 => {
            Some(s1.saturating_sub(s0) as f64 / (t1 - t0) as f64)
        }
        _ => None,
    };
    let tps = procfs::ticks_per_second() as f64;
    for (pid, name, t1) in cpu_ticks() {
        if let Some((_, _, t0)) = before.iter().find(|(p, _, _)| *p == pid) {
            let share = t1.saturating_sub(*t0) as f64 / tps / window.as_secs_f64();
            if share > 0.10 {
                h.busy.push(format!("{pid} {name} {:.0}%", share * 100.0));
            }
        }
    }
    if h.governors.iter().any(|g| g != "performance") {
        h.warnings.push(format!(
            "CPU frequency governor {}: the clock speed varies with load (set `performance`)",
            h.governors.join(", ")
        ));
    }
    if h.turbo == Some(true) {
        h.warnings
            .push("turbo boost is on: the clock speed depends on temperature".into());
    }
    if h.load_avg[0] > 0.5 * cpus as f64 {
        h.warnings.push(format!(
            "load average {:.2} on {cpus} CPUs: other work is running",
            h.load_avg[0]
        ));
    }
    if !h.busy.is_empty() {
        h.warnings
            .push(format!("busy processes: {}", h.busy.join(", ")));
    }
    if h.swap_used_kb > 0 {
        h.warnings.push(format!(
            "{} MB of swap in use: a run may page",
            h.swap_used_kb / 1024
        ));
    }
    h.host = host.facts();
    add_window_facts(&mut h.host, &h.busy, steal_now);
    h
}

/// The facts only a look over a window tells, added to the host's: the
/// busy processes (after the load), and the steal over the window (in
/// the steal fact, beside the share since boot).
fn add_window_facts(facts: &mut Vec<crate::host::Fact>, busy: &[String], steal: Option<f64>) {
    use crate::host::{Fact, Verdict};
    if let (Some(s), Some(f)) = (steal, facts.iter_mut().find(|f| f.key == "steal")) {
        f.value = format!("{:.1} % over the last 0.5 s; {}", s * 100.0, f.value);
        if s > 0.05 && f.verdict != Verdict::MayAddNoise {
            f.verdict = Verdict::MayAddNoise;
            f.why = "the hypervisor is giving this guest's CPU time to others now".into();
        }
    }
    let at = facts
        .iter()
        .position(|f| f.key == "load")
        .map_or(facts.len(), |i| i + 1);
    let fact = Fact {
        key: "busy".into(),
        name: "busy processes".into(),
        value: if busy.is_empty() {
            "none over 10 % of a CPU".into()
        } else {
            busy.join(", ")
        },
        verdict: if busy.is_empty() {
            Verdict::Ok
        } else {
            Verdict::MayAddNoise
        },
        why: if busy.is_empty() {
            String::new()
        } else {
            "other processes use the CPUs the runs need".into()
        },
    };
    facts.insert(at, fact);
}

/// The host's busyness around one run (issue #39): the load average at
/// its start and the ticks of `/proc/stat` then, so that the share the
/// hypervisor stole while it ran is known at its end.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LoadWatch {
    load: f64,
    ticks: Option<(u64, u64)>,
}

/// (steal, total) ticks of every CPU, from `/proc/stat`'s `cpu` line.
fn steal_ticks() -> Option<(u64, u64)> {
    let t = Ticks::now()?;
    Some((t.steal, t.total))
}

/// (busy, total) ticks of every CPU: busy is everything but idle and
/// iowait (steal counts as busy: another guest has the CPU).
fn busy_ticks() -> Option<(u64, u64)> {
    let t = Ticks::now()?;
    Some((t.total.saturating_sub(t.idle), t.total))
}

/// Every CPU's ticks so far, from one read of `/proc/stat`.
struct Ticks {
    /// All of them (user, nice, system, idle, iowait, irq, softirq, steal).
    total: u64,
    /// Idle and iowait.
    idle: u64,
    /// Stolen by the hypervisor for other guests.
    steal: u64,
}

impl Ticks {
    fn now() -> Option<Ticks> {
        let t = procfs::KernelStats::current().ok()?.total;
        let steal = t.steal.unwrap_or(0);
        let idle = t.idle + t.iowait.unwrap_or(0);
        let total =
            t.user + t.nice + t.system + idle + t.irq.unwrap_or(0) + t.softirq.unwrap_or(0) + steal;
        Some(Ticks { total, idle, steal })
    }
}

/// The share of every CPU's time that was busy over `window` (0–1), while
/// langbench itself waits: what else runs on the host. `None` where
/// `/proc/stat` cannot be read.
pub(crate) fn busy_share(window: Duration) -> Option<f64> {
    let (b0, t0) = busy_ticks()?;
    std::thread::sleep(window);
    let (b1, t1) = busy_ticks()?;
    (t1 > t0).then(|| b1.saturating_sub(b0) as f64 / (t1 - t0) as f64)
}

/// The host counts as quiet when at most this share of its CPU time is
/// busy over [`QUIET_WINDOW`]: on 2 cores, a tenth is a fifth of one core
/// (a shell, an editor, the kernel's own threads stay well under it; a
/// build or another benchmark does not).
pub(crate) const QUIET_SHARE: f64 = 0.10;
/// How long each look at the host's CPU time lasts.
pub(crate) const QUIET_WINDOW: Duration = Duration::from_secs(5);

/// `--wait-quiet`: waits until the host is quiet (one window of at most
/// [`QUIET_SHARE`] busy), at most `limit`, or until `stop` says so
/// (Ctrl-C). Returns the last busy share seen and how long it waited.
pub(crate) fn wait_quiet(limit: Duration, stop: impl Fn() -> bool) -> (Option<f64>, Duration) {
    let start = std::time::Instant::now();
    let mut last = None;
    while !stop() {
        last = busy_share(QUIET_WINDOW);
        if last.is_none_or(|b| b <= QUIET_SHARE) || start.elapsed() >= limit {
            break;
        }
    }
    (last, start.elapsed())
}

/// How busy the host was around one run (issue #39's quality gates),
/// stored in its record (`RunRecord::host`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HostLoad {
    /// The 1-minute load average when the run started (`/proc/loadavg`).
    pub load: f64,
    /// Of every CPU's time while the run ran, the share the hypervisor
    /// stole for other guests (`steal` of `/proc/stat`), 0–1.
    pub steal: f64,
}

impl LoadWatch {
    /// Starts watching: now's load average and ticks.
    pub(crate) fn start() -> LoadWatch {
        LoadWatch {
            load: procfs::LoadAverage::current().map_or(0.0, |l| l.one as f64),
            ticks: steal_ticks(),
        }
    }

    /// What the run met: the load at its start, the share stolen since.
    pub(crate) fn end(self) -> HostLoad {
        let steal = match (self.ticks, steal_ticks()) {
            (Some((s0, t0)), Some((s1, t1))) if t1 > t0 => {
                s1.saturating_sub(s0) as f64 / (t1 - t0) as f64
            }
            _ => 0.0,
        };
        HostLoad {
            load: (self.load * 100.0).round() / 100.0,
            steal: (steal * 10_000.0).round() / 10_000.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A busy loop's second of CPU is in the ticks: the share stolen is a
    /// fraction, the load a number (both what the host says).
    #[test]
    fn a_run_s_host_load_is_read_from_proc() {
        let w = LoadWatch::start();
        let t = std::time::Instant::now();
        while t.elapsed() < std::time::Duration::from_millis(200) {
            std::hint::black_box(0u64);
        }
        let h = w.end();
        assert!((0.0..=1.0).contains(&h.steal), "{h:?}");
        assert!(h.load >= 0.0, "{h:?}");
        assert!(steal_ticks().is_some_and(|(s, t)| s <= t && t > 0));
    }

    /// A real busy loop in another process (a grandchild), in a group of
    /// its own, at nice -19 where allowed (root), so that it is busy on a
    /// machine loaded by the rest of the test suite too (`nice` runs it at
    /// the usual priority, with a warning, where not).
    fn busy_loop() -> std::process::Child {
        use std::os::unix::process::CommandExt;
        std::process::Command::new("sh")
            .args([
                "-c",
                "nice -n -19 sh -c 'while :; do :; done' 2>/dev/null & wait",
            ])
            .process_group(0)
            .spawn()
            .unwrap()
    }

    /// Kills [`busy_loop`]'s group and reaps it.
    fn stop(child: &mut std::process::Child) {
        // SAFETY: the group of the child we started.
        unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
        child.wait().unwrap();
    }

    #[test]
    fn sees_a_busy_process() {
        // A grandchild: langbench's own children are its measured
        // commands, not "other" work.
        let mut child = busy_loop();
        std::thread::sleep(std::time::Duration::from_millis(300));
        let h = super::check();
        stop(&mut child);
        assert!(h.busy.iter().any(|b| b.contains(" sh ")), "{h:?}");
        assert!(h.warnings.iter().any(|w| w.contains("busy processes")));
        assert!(h.aslr.is_some());
    }

    /// `--wait-quiet`'s measure: one core kept busy by another process is
    /// at least a quarter of a 2-core host's CPU time (half of it, less
    /// the scheduler's share to others), and waiting for a quiet host
    /// gives up at its limit while the loop runs.
    #[test]
    fn busy_share_sees_another_process_and_wait_quiet_gives_up_at_its_limit() {
        let mut child = busy_loop();
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
        let share = busy_share(std::time::Duration::from_millis(500));
        let (last, waited) = wait_quiet(std::time::Duration::ZERO, || false);
        stop(&mut child);
        let share = share.expect("/proc/stat is readable");
        assert!(share >= 0.5 / cpus && share <= 1.0, "{share}");
        assert!(last.is_some_and(|b| b > QUIET_SHARE), "{last:?}");
        assert!(waited >= QUIET_WINDOW, "{waited:?}");
    }
}
