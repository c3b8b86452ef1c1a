//! The memory probe (issue #60): how fast the host gives this process
//! fresh memory right now. It maps [`PROBE_MIB`] of anonymous memory,
//! writes one byte to each page (every write a minor page fault: the
//! kernel finds a free page, zeroes it and, in a virtual machine whose
//! freed memory went back to its host, the host backs it again) and
//! unmaps it. Its rate is what a memory-heavy run such as assoc pays
//! for every page it touches first: in a guest it varied 2.4–3.4 s for
//! 4 GB on a quiet host and up to 19 s beside other work.
//!
//! `run` probes between runs, never during one: before every run of a
//! memory-heavy cell ([`crate::bench::Bench::memory_heavy`]) and at each
//! block boundary (before the reference pass), each probe stored with the
//! run it preceded (`RunRecord::probe`). A run whose probe was more than
//! [`SLOW`] times its session's median is flagged in its cell's note
//! ([`Medians`]). The cost: one probe of 512 MiB took 0.22–0.25 s on the
//! 2-vCPU guest (1 GiB 0.44–0.71 s beside other builds), about a minute
//! over an edition's ~300 memory-heavy runs and passes.
//!
//! At 512 MiB it stays under what a guest with free page reporting keeps
//! unreported (on that guest, up to 2 GiB freed was not handed back within
//! 10 s): it measures the guest's own page-fault speed (contention, THP,
//! compaction) and does not warm the run after it. A 3 GiB probe would see
//! the host's backing too, and warm the next run (docs/measurement.md,
//! "Spread and noise", has the figures).
#![warn(missing_docs)]

use std::collections::BTreeMap;
use std::time::Instant;

use serde::{Deserialize, Serialize};

/// How much memory a probe touches, MiB: large enough that its time is
/// the page faults' (a few hundred ms), small beside assoc's 1.5–3.5 GB
/// and under what a guest keeps before reporting freed memory to its host
/// (so the probe does not warm the run after it).
pub(crate) const PROBE_MIB: u64 = 512;

/// A run whose probe took more than this many times its session's median
/// (per MiB) is flagged: the host's memory was slow when it ran.
pub(crate) const SLOW: f64 = 1.25;

/// A session's median needs at least this many probes to judge by.
pub(crate) const MIN_PROBES: usize = 3;

/// One probe's figures, stored with the run it preceded
/// (`RunRecord::probe`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MemProbe {
    /// MiB of fresh anonymous memory touched, one byte written per page.
    pub mib: u64,
    /// Seconds the touching took: the page faults.
    pub touch_s: f64,
    /// Seconds the unmapping took (the pages freed, and in a guest with
    /// free page reporting, later reported to the host).
    pub free_s: f64,
    /// The minor page faults of the touching (this thread's rusage).
    pub minor_faults: u64,
}

impl MemProbe {
    /// The touching's rate, GB/s (10^9 bytes).
    pub(crate) fn gb_s(&self) -> f64 {
        (self.mib << 20) as f64 / 1e9 / self.touch_s.max(1e-9)
    }

    /// Seconds per MiB touched: what probes of different sizes compare by.
    fn s_per_mib(&self) -> f64 {
        self.touch_s / self.mib.max(1) as f64
    }
}

/// This thread's minor page faults so far.
fn minor_faults() -> u64 {
    // SAFETY: getrusage fills the struct we own.
    unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_THREAD, &mut u) != 0 {
            return 0;
        }
        u.ru_minflt as u64
    }
}

/// Touches `mib` MiB of fresh anonymous memory, one byte per page, and
/// frees it: the probe. Hand-written on libc's mmap (a dependency already)
/// because a `Vec` would be zeroed by the allocator, or come from memory
/// it kept, and not measure fresh pages.
pub(crate) fn probe(mib: u64) -> std::io::Result<MemProbe> {
    let len = mib
        .checked_mul(1 << 20)
        .and_then(|b| usize::try_from(b).ok())
        .ok_or_else(|| std::io::Error::other(format!("{mib} MiB is more than can be mapped")))?;
    // SAFETY: sysconf reads a constant.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
        .unwrap_or(4096)
        .max(1);
    let faults = minor_faults();
    let start = Instant::now();
    // SAFETY: a new private anonymous mapping of our own; no other code
    // sees it, and it is unmapped below.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(std::io::Error::last_os_error());
    }
    let base = p.cast::<u8>();
    for off in (0..len).step_by(page) {
        // SAFETY: `off < len`, within the mapping; volatile, so that the
        // writes are made.
        unsafe { std::ptr::write_volatile(base.add(off), 1) };
    }
    let touch_s = start.elapsed().as_secs_f64();
    let minor = minor_faults().saturating_sub(faults);
    let freed = Instant::now();
    // SAFETY: the mapping made above, whole, not used after.
    unsafe { libc::munmap(p, len) };
    Ok(MemProbe {
        mib,
        touch_s,
        free_s: freed.elapsed().as_secs_f64(),
        minor_faults: minor,
    })
}

/// A run measured after a probe far off its session's median.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SlowProbe {
    /// Its run number in the cell.
    pub run: u32,
    /// How much slower than the median its probe was (0.4: 40 % slower).
    pub slower: f64,
    /// Its probe's rate, GB/s.
    pub gb_s: f64,
    /// The session's median rate, GB/s.
    pub median_gb_s: f64,
}

/// Each session's median probe (seconds per MiB), of the sessions with at
/// least [`MIN_PROBES`] probes.
#[derive(Debug, Default)]
pub(crate) struct Medians(BTreeMap<String, f64>);

impl Medians {
    /// From every probe of the records: (session, probe).
    pub(crate) fn of<'a>(probes: impl Iterator<Item = (&'a str, &'a MemProbe)>) -> Medians {
        let mut by: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        for (s, p) in probes.filter(|(_, p)| p.touch_s > 0.0 && p.mib > 0) {
            by.entry(s).or_default().push(p.s_per_mib());
        }
        Medians(
            by.into_iter()
                .filter(|(_, v)| v.len() >= MIN_PROBES)
                .map(|(s, mut v)| {
                    v.sort_by(f64::total_cmp);
                    let n = v.len();
                    let m = if n % 2 == 1 {
                        v[n / 2]
                    } else {
                        (v[n / 2 - 1] + v[n / 2]) / 2.0
                    };
                    (s.to_string(), m)
                })
                .collect(),
        )
    }

    /// Run `run` of `session`, measured after `probe`: slow when its probe
    /// took more than [`SLOW`] times the session's median.
    pub(crate) fn judge(&self, session: &str, run: u32, probe: &MemProbe) -> Option<SlowProbe> {
        let median = *self.0.get(session)?;
        let ratio = probe.s_per_mib() / median;
        (probe.mib > 0 && median > 0.0 && ratio > SLOW).then(|| SlowProbe {
            run,
            slower: ratio - 1.0,
            gb_s: probe.gb_s(),
            median_gb_s: (1u64 << 20) as f64 / 1e9 / median,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(touch_s: f64) -> MemProbe {
        MemProbe {
            mib: 512,
            touch_s,
            free_s: 0.01,
            minor_faults: 131_072,
        }
    }

    /// A real probe: every page faulted once (at least most of them: a
    /// huge page counts once for 512), a positive rate, nothing left
    /// mapped (the next probe is as fresh).
    #[test]
    fn a_probe_touches_every_page() {
        let a = probe(64).unwrap();
        assert_eq!(a.mib, 64);
        assert!(a.touch_s > 0.0 && a.gb_s() > 0.0, "{a:?}");
        assert!(a.minor_faults >= 32, "{a:?}");
        assert!(a.minor_faults <= 16_384 + 1_000, "{a:?}");
    }

    /// The session's median, and a probe more than 25 % slower than it
    /// judged slow; a session with too few probes is never judged.
    #[test]
    fn a_probe_far_off_its_sessions_median_is_slow() {
        let probes = [p(0.2), p(0.22), p(0.18), p(0.2), p(0.4)];
        let few = [p(0.2), p(1.0)];
        let m = Medians::of(
            probes
                .iter()
                .map(|x| ("s1", x))
                .chain(few.iter().map(|x| ("s2", x))),
        );
        let slow = m.judge("s1", 3, &p(0.4)).expect("twice the median");
        assert_eq!(slow.run, 3);
        assert!((slow.slower - 1.0).abs() < 1e-9, "{slow:?}");
        assert!(
            (slow.median_gb_s - 0.536870912 / 0.2).abs() < 1e-6,
            "{slow:?}"
        );
        assert!(
            m.judge("s1", 1, &p(0.24)).is_none(),
            "20 % slower is not far off"
        );
        assert!(m.judge("s2", 1, &p(1.0)).is_none(), "two probes: no median");
        assert!(m.judge("other", 1, &p(9.0)).is_none());
    }

    /// The median of an even number of probes is the mean of the middle
    /// two; probes of other sizes compare per MiB; a probe with no time
    /// or no memory counts for nothing; the line is [`SLOW`] times the
    /// median, just under it not flagged, just over it flagged.
    #[test]
    fn the_median_is_per_mib_and_slow_is_beyond_its_line() {
        let half = MemProbe {
            mib: 256,
            touch_s: 0.1,
            ..p(0.0)
        };
        let broken = [p(0.0), p(0.0), MemProbe { mib: 0, ..p(5.0) }];
        let m = Medians::of(
            [p(0.1), p(0.3), half, p(0.25)]
                .iter()
                .chain(&broken)
                .map(|x| ("s", x)),
        );
        // Per MiB: 0.1, 0.2 (the 256 MiB probe), 0.25, 0.3 over 512.
        let median = (0.2 + 0.25) / 2.0;
        assert!(m.judge("s", 1, &p(median * SLOW * 0.99)).is_none());
        let slow = m
            .judge("s", 2, &p(median * SLOW * 1.01))
            .expect("past the line");
        assert!((slow.slower - (SLOW * 1.01 - 1.0)).abs() < 1e-9, "{slow:?}");
        assert!(
            m.judge(
                "s",
                3,
                &MemProbe {
                    mib: 256,
                    ..p(median / 2.0 * 1.3)
                }
            )
            .is_some(),
            "a smaller probe is judged per MiB"
        );
    }

    /// The stored record: field names as results/README.md gives them.
    #[test]
    fn a_probe_round_trips_through_json() {
        let a = p(0.25);
        let json = serde_json::to_value(a).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"mib": 512, "touch_s": 0.25, "free_s": 0.01, "minor_faults": 131072})
        );
        assert_eq!(serde_json::from_value::<MemProbe>(json).unwrap(), a);
    }
}
