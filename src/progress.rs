//! The progress line of a long command (`run`, `ws`): a spinner with the
//! elapsed time and what is being done, and `say` for the lines printed
//! above it (or to stderr when it is hidden, e.g. not a terminal).
//!
//! `run`'s line ([`Progress`]) also shows, live, how long the current run
//! has gone against the timeout and the time the suite has left (from the
//! estimate of every remaining cell, see [`crate::estimate`]). indicatif
//! draws it only on a terminal; elsewhere (CI logs, a pipe) the same line
//! is printed at the start of a run expected to take at least
//! `LANGBENCH_PROGRESS_EVERY` seconds (default 60) and every that many
//! seconds while it goes on.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressState, ProgressStyle};

/// The spinner of `ws` (and of `run` before its first run).
pub fn progress_bar() -> ProgressBar {
    let pb = ProgressBar::new_spinner();
    pb.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
            .expect("valid template"),
    );
    pb.enable_steady_tick(Duration::from_millis(200));
    pb
}

/// Prints `line` above the progress line.
pub fn say(pb: &ProgressBar, line: String) {
    if pb.is_hidden() {
        eprintln!("{line}");
    } else {
        pb.println(line);
    }
}

/// A duration as people read it: `0.4s`, `12s`, `4m05s`, `1h02m`.
pub fn duration(secs: f64) -> String {
    if !secs.is_finite() || secs < 0.0 {
        return "?".into();
    }
    if secs == 0.0 {
        return "0s".into();
    }
    if secs < 9.95 {
        return format!("{secs:.1}s");
    }
    let s = secs.round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => {
            let m = (s + 30) / 60;
            format!("{}h{:02}m", m / 60, m % 60)
        }
    }
}

/// The run being measured, for the live part of the line.
#[derive(Debug, Clone)]
struct Clock {
    started: Instant,
    timeout: Duration,
    /// Seconds this run is expected to take.
    expected_s: Option<f64>,
}

/// What the line shows.
#[derive(Debug, Clone, Default)]
struct Live {
    /// What is being done: `[3/9] python3 · str-comb N=1,000 · run 2/3`.
    what: String,
    run: Option<Clock>,
    /// Seconds expected after the current run (`None`: nothing is known).
    rest_s: Option<f64>,
}

impl Live {
    /// The line at `now`: what, the run's time against its timeout, and
    /// the time left (the current run's expected rest, never below 0, plus
    /// the rest of the suite).
    fn render(&self, now: Instant) -> String {
        let mut s = self.what.clone();
        let Some(run) = &self.run else {
            return s;
        };
        let gone = now.saturating_duration_since(run.started).as_secs_f64();
        s.push_str(&format!(
            " · {} of {}",
            duration(gone),
            duration(run.timeout.as_secs_f64())
        ));
        if let Some(rest) = self.rest_s {
            let this = run.expected_s.map_or(0.0, |e| (e - gone).max(0.0));
            s.push_str(&format!(" · ~{} left", duration(rest + this)));
        }
        s
    }
}

/// `run`'s progress line.
pub struct Progress {
    pb: ProgressBar,
    live: Arc<Mutex<Live>>,
    /// Where the line is not drawn: the thread that prints it now and then.
    ticker: Option<(Arc<AtomicBool>, std::thread::JoinHandle<()>)>,
    every: Duration,
}

/// `LANGBENCH_PROGRESS_EVERY`: seconds between printed progress lines
/// where none is drawn (default 60).
fn every() -> Duration {
    std::env::var("LANGBENCH_PROGRESS_EVERY")
        .ok()
        .and_then(|s| s.trim().parse::<f64>().ok())
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .filter(|d| !d.is_zero())
        .unwrap_or(Duration::from_secs(60))
}

fn lock(live: &Mutex<Live>) -> std::sync::MutexGuard<'_, Live> {
    live.lock().unwrap_or_else(|e| e.into_inner())
}

impl Progress {
    pub fn new() -> Progress {
        let live = Arc::new(Mutex::new(Live::default()));
        let shown = live.clone();
        let pb = ProgressBar::new_spinner();
        pb.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}{live}")
                .expect("valid template")
                .with_key(
                    "live",
                    move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = w.write_str(&lock(&shown).render(Instant::now()));
                    },
                ),
        );
        pb.enable_steady_tick(Duration::from_millis(200));
        let every = every();
        let ticker = pb.is_hidden().then(|| {
            let stop = Arc::new(AtomicBool::new(false));
            let (live, stop2) = (live.clone(), stop.clone());
            let thread = std::thread::spawn(move || {
                let mut last: Option<Instant> = None;
                while !stop2.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(50));
                    let l = lock(&live);
                    let Some(run) = &l.run else {
                        last = None;
                        continue;
                    };
                    let since = last.map_or(run.started, |t| t.max(run.started));
                    if since.elapsed() >= every {
                        eprintln!("{}", l.render(Instant::now()));
                        last = Some(Instant::now());
                    }
                }
            });
            (stop, thread)
        });
        Progress {
            pb,
            live,
            ticker,
            every,
        }
    }

    /// The bar, for what takes one (the session's start).
    pub fn bar(&self) -> &ProgressBar {
        &self.pb
    }

    /// Something other than a run (probing, expected outputs, prepare).
    pub fn set_message(&self, msg: String) {
        *lock(&self.live) = Live::default();
        self.pb.set_message(msg);
    }

    /// A run starts: `what` it is, its timeout, the seconds it is expected
    /// to take and those expected after it (the rest of the suite).
    pub fn start_run(
        &self,
        what: String,
        timeout: Duration,
        expected_s: Option<f64>,
        rest_s: Option<f64>,
    ) {
        let live = Live {
            what,
            run: Some(Clock {
                started: Instant::now(),
                timeout,
                expected_s,
            }),
            rest_s,
        };
        if self.ticker.is_some() && expected_s.is_some_and(|e| e >= self.every.as_secs_f64()) {
            eprintln!("{}", live.render(Instant::now()));
        }
        *lock(&self.live) = live;
        self.pb.set_message("");
    }

    /// The run ended: the line stops counting it.
    pub fn end_run(&self) {
        lock(&self.live).run = None;
    }

    /// Prints `line` above the progress line.
    pub fn say(&self, line: String) {
        say(&self.pb, line)
    }

    pub fn finish_and_clear(&self) {
        self.pb.finish_and_clear();
    }
}

impl Default for Progress {
    fn default() -> Self {
        Progress::new()
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some((stop, thread)) = self.ticker.take() {
            stop.store(true, Ordering::SeqCst);
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(duration(0.0), "0s");
        assert_eq!(duration(-0.0), "0s");
        assert_eq!(duration(0.42), "0.4s");
        assert_eq!(duration(9.9), "9.9s");
        assert_eq!(duration(12.4), "12s");
        assert_eq!(duration(245.0), "4m05s");
        assert_eq!(duration(3719.0), "1h02m");
        assert_eq!(duration(8.2 * 3600.0), "8h12m");
        assert_eq!(duration(f64::NAN), "?");
    }

    /// The time left is the rest of the suite plus what the current run is
    /// expected to need still, never less than the rest.
    #[test]
    fn the_line_counts_the_run_against_its_timeout_and_the_time_left() {
        let start = Instant::now();
        let live = Live {
            what: "[1/2] a · assoc N=1,000 · run 1/3".into(),
            run: Some(Clock {
                started: start,
                timeout: Duration::from_secs(1000),
                expected_s: Some(30.0),
            }),
            rest_s: Some(100.0),
        };
        assert_eq!(
            live.render(start + Duration::from_secs(12)),
            "[1/2] a · assoc N=1,000 · run 1/3 · 12s of 16m40s · ~1m58s left"
        );
        assert_eq!(
            live.render(start + Duration::from_secs(45)),
            "[1/2] a · assoc N=1,000 · run 1/3 · 45s of 16m40s · ~1m40s left",
            "a run past its estimate leaves the rest"
        );
        let unknown = Live {
            rest_s: None,
            ..live
        };
        assert_eq!(
            unknown.render(start + Duration::from_secs(12)),
            "[1/2] a · assoc N=1,000 · run 1/3 · 12s of 16m40s"
        );
    }
}
