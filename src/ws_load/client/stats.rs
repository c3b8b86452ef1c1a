//! A window's figures: the latency and lateness histograms, their portable
//! form for `ws merge`, the window's statistics, and when the client
//! counts as saturated.

use hdrhistogram::Histogram;

use crate::ws_record::{ClientLoad, WindowStats};

/// A thread counts as saturated from this fraction of the window spent
/// running or waiting to run (a thread that always wants the CPU is
/// saturated even when other work takes some of it from it) ...
const SATURATED_BUSY: f64 = 0.90;
/// ... or when its median send is this late (ms; epoll's timeout has 1 ms
/// granularity, so 1–2 ms is normal).
const SATURATED_LATE_MS: f64 = 5.0;

/// One window's result, with the merged histograms (for `ws merge`).
#[derive(Debug, Clone)]
pub struct Window {
    pub stats: WindowStats,
    pub load: ClientLoad,
    pub latency: Histogram<u64>,
    pub late: Histogram<u64>,
    pub client_cpu_s: f64,
}

pub(super) fn histogram() -> Histogram<u64> {
    // 1 µs .. 60 s, 3 significant digits.
    Histogram::new_with_bounds(1, 60_000_000, 3).expect("valid histogram bounds")
}

/// Non-empty buckets of a histogram as (µs, count): a portable form for
/// JSON (merged by recording each value `count` times).
pub(crate) fn buckets(h: &Histogram<u64>) -> Vec<[u64; 2]> {
    h.iter_recorded()
        .map(|v| [v.value_iterated_to(), v.count_at_value()])
        .collect()
}

pub(crate) fn from_buckets(b: &[[u64; 2]]) -> Histogram<u64> {
    let mut h = histogram();
    for &[v, c] in b {
        let _ = h.record_n(v.clamp(1, 60_000_000), c);
    }
    h
}

/// Window statistics of a merged histogram.
pub(crate) fn stats_of(
    h: &Histogram<u64>,
    echoes: u64,
    rps: f64,
    errors: u64,
    samples: Vec<String>,
    alive: usize,
) -> WindowStats {
    let ms = |v: f64| v / 1000.0;
    WindowStats {
        echoes,
        rps,
        latency_mean_ms: if h.is_empty() { 0.0 } else { ms(h.mean()) },
        latency_p50_ms: Some(ms(h.value_at_quantile(0.5) as f64)),
        latency_p99_ms: Some(ms(h.value_at_quantile(0.99) as f64)),
        latency_max_ms: ms(h.max() as f64),
        errors: Some(errors),
        error_samples: samples,
        alive: Some(alive),
    }
}

/// The client's load figures from a (merged) lateness histogram.
/// `busiest` is the busiest thread's CPU fraction of the window, `demand`
/// the largest fraction a thread spent running or runnable (its CPU plus
/// its run-queue wait, `runq_wait`; never below `busiest`, which is all a
/// caller without per-thread waits knows): under contention a thread that
/// always wants the CPU gets less of it, and is saturated all the same.
#[allow(clippy::too_many_arguments)]
pub(crate) fn load_of(
    late: &Histogram<u64>,
    threads: usize,
    busiest: f64,
    demand: f64,
    runq_wait: f64,
    cpu_s: f64,
    echoes: u64,
    per_conn: (u64, u64),
    pings: u64,
) -> ClientLoad {
    // Lateness is recorded +1 µs (a histogram needs values ≥ 1).
    let q = |x: f64| {
        if late.is_empty() {
            0.0
        } else {
            (late.value_at_quantile(x).saturating_sub(1)) as f64 / 1000.0
        }
    };
    let (p50, p99) = (q(0.5), q(0.99));
    ClientLoad {
        threads,
        busiest_thread: busiest,
        send_late_p50_ms: p50,
        send_late_p99_ms: p99,
        cpu_us_per_echo: (echoes > 0).then(|| cpu_s * 1e6 / echoes as f64),
        echoes_per_conn_min: per_conn.0,
        echoes_per_conn_max: per_conn.1,
        pings,
        runq_wait,
        saturated: demand >= SATURATED_BUSY || p50 >= SATURATED_LATE_MS,
    }
}

#[cfg(test)]
mod saturation_tests {
    use super::*;

    /// A client thread that ran 87 % of the window and waited for a CPU
    /// the other 13 % (CI's parallel tests took it) wanted the whole CPU:
    /// saturated, as one that ran 95 % is; one that ran half and waited
    /// a tenth is not.
    #[test]
    fn a_thread_running_or_runnable_all_window_is_saturated() {
        let late = histogram();
        let load = |busiest: f64, waited: f64| {
            load_of(
                &late,
                1,
                busiest,
                busiest + waited,
                waited,
                1.0,
                100,
                (1, 1),
                0,
            )
        };
        assert!(load(0.874, 0.126).saturated);
        assert!(load(0.95, 0.0).saturated);
        assert!(!load(0.5, 0.1).saturated);
        assert_eq!(load(0.874, 0.126).runq_wait, 0.126);
    }
}
