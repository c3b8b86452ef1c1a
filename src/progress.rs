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
//!
//! Everything shown here passes through [`langbench_document::inert`] on its way:
//! a line above the progress line ([`say`]), the progress line's message
//! ([`message`]) and each part of `run`'s line ([`Line::part`]) can quote
//! a server's close reason, a program's stderr or a field of a results
//! directory, and a terminal would obey the escapes in them (issue #59,
//! row 11). No other module calls indicatif's `set_message` or `println`
//! (tests/ws_attacks.rs checks).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressState, ProgressStyle};

/// The spinner of `ws` (and of `run` before its first run).
pub(crate) fn progress_bar() -> ProgressBar {
    let pb = ProgressBar::new_spinner();
    pb.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
            .expect("valid template"),
    );
    pb.enable_steady_tick(Duration::from_millis(200));
    pb
}

/// Prints `line` above the progress line, inert (its line breaks kept).
pub(crate) fn say(pb: &ProgressBar, line: String) {
    let line = langbench_document::inert::block(&line, langbench_document::inert::MAX_TEXT);
    if pb.is_hidden() {
        eprintln!("{line}");
    } else {
        pb.println(line);
    }
}

/// Shows `msg` as the progress line's message, inert.
pub(crate) fn message(pb: &ProgressBar, msg: &str) {
    pb.set_message(langbench_document::inert::text(msg));
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

/// A line made of parts, each with the order in which a narrow terminal
/// drops it: what `run` is doing (`[3/9] python3 · str-comb N=1,000 ·
/// run 2/3`), and the progress line built around it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Line {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq)]
struct Part {
    /// What comes before it when a part precedes it (` · `, ` `).
    sep: &'static str,
    text: String,
    /// [`KEEP`]: never dropped (the cell's id); else the highest goes
    /// first.
    drop: u8,
}

/// A part no width drops: the cell's id (its variant and benchmark).
pub(crate) const KEEP: u8 = 0;

impl Line {
    pub(crate) fn new() -> Line {
        Line::default()
    }

    /// The line with `text` after it, after `sep` (none at the start);
    /// where the line is too wide, the parts of the highest `drop` go
    /// first ([`KEEP`]: never).
    pub(crate) fn part(mut self, sep: &'static str, text: impl Into<String>, drop: u8) -> Line {
        self.parts.push(Part {
            sep,
            text: langbench_document::inert::text(&text.into()),
            drop,
        });
        self
    }

    /// Every part.
    pub(crate) fn text(&self) -> String {
        self.joined(|_| true)
    }

    fn joined(&self, keep: impl Fn(&Part) -> bool) -> String {
        let mut s = String::new();
        for p in self.parts.iter().filter(|p| keep(p)) {
            if !s.is_empty() {
                // A part that began a line is set apart by a space.
                s.push_str(if p.sep.is_empty() { " " } else { p.sep });
            }
            s.push_str(&p.text);
        }
        s
    }

    /// The line in at most `width` columns: the parts that drop first
    /// left out until it fits. The parts marked [`KEEP`] always stay,
    /// wider than `width` only where they alone are.
    pub(crate) fn fit(&self, width: Option<usize>) -> String {
        let Some(w) = width else {
            return self.text();
        };
        let mut ranks: Vec<u8> = self.parts.iter().map(|p| p.drop).collect();
        ranks.sort_unstable();
        ranks.dedup();
        // Dropping ranks from the top: all, all but the highest, ...
        let mut upto = u8::MAX;
        loop {
            let s = self.joined(|p| p.drop <= upto);
            if textwrap::core::display_width(&s) <= w {
                return s;
            }
            match ranks.iter().rev().find(|&&r| r < upto) {
                Some(&r) if upto != KEEP => upto = r,
                _ => return s,
            }
        }
    }
}

/// The width the progress line keeps within: the terminal's where it is
/// drawn (stderr), `$COLUMNS` where not; `None`: no limit.
fn line_width(drawn: bool) -> Option<usize> {
    let drawn_width = drawn
        .then(|| terminal_size::terminal_size_of(std::io::stderr()).map(|(w, _)| w.0 as usize))
        .flatten();
    drawn_width.or_else(|| {
        std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.trim().parse::<usize>().ok())
            .filter(|c| *c > 0)
    })
}

/// The run being measured, for the live part of the line.
#[derive(Debug, Clone)]
struct Clock {
    started: Instant,
    timeout: Duration,
    /// Seconds this run is expected to take.
    expected_s: Option<f64>,
    /// Runs of the same cell after this one, counted in the rest at this
    /// run's expected time each.
    more: u32,
}

/// What the line shows.
#[derive(Debug, Clone, Default)]
struct Live {
    /// What is being done: `[3/9] python3 · str-comb N=1,000 · run 2/3`.
    what: Line,
    run: Option<Clock>,
    /// Seconds expected after the current run (`None`: nothing is known).
    rest_s: Option<f64>,
}

/// The order parts of the progress line drop in, first to last: the
/// timeout, the size, the position in the suite, the command's own
/// elapsed time, which run of the cell, the run's time, the time left.
pub(crate) mod rank {
    pub(crate) const TIMEOUT: u8 = 9;
    pub(crate) const SIZE: u8 = 8;
    pub(crate) const COUNTER: u8 = 7;
    pub(crate) const ELAPSED: u8 = 6;
    pub(crate) const RUN: u8 = 5;
    pub(crate) const CLOCK: u8 = 4;
    pub(crate) const LEFT: u8 = 3;
}

impl Live {
    /// The line at `now`: what, the run's time against its timeout, and
    /// the time left. A run that takes longer than expected is expected
    /// to end now (its estimate becomes the time it has taken), and so are
    /// its cell's runs still to come, so the time left grows while it
    /// overruns instead of standing still.
    fn line(&self, now: Instant) -> Line {
        let mut s = self.what.clone();
        let Some(run) = &self.run else {
            return s;
        };
        let gone = now.saturating_duration_since(run.started).as_secs_f64();
        s = s.part(" · ", duration(gone), rank::CLOCK).part(
            " ",
            format!("of {}", duration(run.timeout.as_secs_f64())),
            rank::TIMEOUT,
        );
        if let Some(rest) = self.rest_s {
            let (this, over) = match run.expected_s {
                Some(e) => ((e - gone).max(0.0), (gone - e).max(0.0)),
                None => (0.0, 0.0),
            };
            let left = rest + this + over * f64::from(run.more);
            s = s.part(" · ", format!("~{} left", duration(left)), rank::LEFT);
        }
        s
    }

    /// The line as the terminal draws it after the spinner: the command's
    /// own elapsed time first, in `width` columns; with no run and nothing
    /// being done (a message follows), the elapsed time alone.
    fn drawn(&self, elapsed: Duration, now: Instant, width: Option<usize>) -> String {
        let s = elapsed.as_secs();
        let clock = format!("[{:02}:{:02}:{:02}]", s / 3600, s / 60 % 60, s % 60);
        if self.what.parts.is_empty() {
            return format!("{clock} ");
        }
        let mut line = Line::new().part("", clock, rank::ELAPSED);
        line.parts.extend(self.line(now).parts);
        line.fit(width)
    }
}

/// `run`'s progress line.
pub(crate) struct Progress {
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
    pub(crate) fn new() -> Progress {
        let live = Arc::new(Mutex::new(Live::default()));
        let shown = live.clone();
        let pb = ProgressBar::new_spinner();
        pb.set_style(
            // The spinner and a space, then the line fitted to the rest of
            // the terminal's width; a message (no run) after it.
            ProgressStyle::with_template("{spinner} {live}{msg}")
                .expect("valid template")
                .with_key(
                    "live",
                    move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                        let width = line_width(true).map(|w| w.saturating_sub(2));
                        let line = lock(&shown).drawn(state.elapsed(), Instant::now(), width);
                        let _ = w.write_str(&line);
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
                        eprintln!("{}", l.line(Instant::now()).fit(line_width(false)));
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
    pub(crate) fn bar(&self) -> &ProgressBar {
        &self.pb
    }

    /// Something other than a run (probing, expected outputs, prepare).
    pub(crate) fn set_message(&self, msg: String) {
        *lock(&self.live) = Live::default();
        message(&self.pb, &msg);
    }

    /// A run starts: `what` it is, its timeout, the seconds it is expected
    /// to take and those expected after it (the rest of the suite).
    /// `more` is how many runs of the same cell `rest_s` counts after this
    /// one (at `expected_s` each): while this run overruns its estimate,
    /// they are expected to overrun as much.
    pub(crate) fn start_run(
        &self,
        what: Line,
        timeout: Duration,
        expected_s: Option<f64>,
        rest_s: Option<f64>,
        more: u32,
    ) {
        let live = Live {
            what,
            run: Some(Clock {
                started: Instant::now(),
                timeout,
                expected_s,
                more,
            }),
            rest_s,
        };
        if self.ticker.is_some() && expected_s.is_some_and(|e| e >= self.every.as_secs_f64()) {
            eprintln!("{}", live.line(Instant::now()).fit(line_width(false)));
        }
        *lock(&self.live) = live;
        self.pb.set_message("");
    }

    /// The run ended: the line stops counting it.
    pub(crate) fn end_run(&self) {
        lock(&self.live).run = None;
    }

    /// Prints `line` above the progress line.
    pub(crate) fn say(&self, line: String) {
        say(&self.pb, line)
    }

    pub(crate) fn finish_and_clear(&self) {
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

    fn what() -> Line {
        Line::new()
            .part("", "[1/2]", rank::COUNTER)
            .part(" ", "a", KEEP)
            .part(" · ", "assoc", KEEP)
            .part(" ", "N=1,000", rank::SIZE)
            .part(" · ", "run 1/3", rank::RUN)
    }

    fn live(more: u32) -> (Instant, Live) {
        let start = Instant::now();
        let live = Live {
            what: what(),
            run: Some(Clock {
                started: start,
                timeout: Duration::from_secs(1000),
                expected_s: Some(30.0),
                more,
            }),
            rest_s: Some(100.0),
        };
        (start, live)
    }

    fn at(live: &Live, start: Instant, secs: u64) -> String {
        live.line(start + Duration::from_secs(secs)).text()
    }

    /// The time left is the rest of the suite plus what the current run is
    /// expected to need still, never less than the rest.
    #[test]
    fn the_line_counts_the_run_against_its_timeout_and_the_time_left() {
        let (start, live) = live(0);
        assert_eq!(
            at(&live, start, 12),
            "[1/2] a · assoc N=1,000 · run 1/3 · 12s of 16m40s · ~1m58s left"
        );
        assert_eq!(
            at(&live, start, 45),
            "[1/2] a · assoc N=1,000 · run 1/3 · 45s of 16m40s · ~1m40s left",
            "the cell's last run past its estimate leaves the rest"
        );
        let unknown = Live {
            rest_s: None,
            ..live
        };
        assert_eq!(
            at(&unknown, start, 12),
            "[1/2] a · assoc N=1,000 · run 1/3 · 12s of 16m40s"
        );
    }

    /// A run past its estimate is expected to end now, and its cell's two
    /// runs still to come (in the rest at 30 s each) to take as long as it
    /// has: the time left grows as it goes on (a cold `go run` of 39 s
    /// against an estimate of 3 s no longer shows "~2.9s left" throughout).
    #[test]
    fn the_time_left_grows_while_a_run_overruns_its_estimate() {
        let (start, live) = live(2);
        let left = |secs| {
            at(&live, start, secs)
                .rsplit_once(" · ~")
                .map(|(_, l)| l.to_string())
                .unwrap()
        };
        assert_eq!(left(10), "2m00s left");
        assert_eq!(left(30), "1m40s left", "on time: the rest");
        assert_eq!(left(40), "2m00s left", "10 s over, twice more to come");
        assert_eq!(left(90), "3m40s left");
        assert!(at(&live, start, 90).contains("run 1/3 · 1m30s of 16m40s"));
    }

    /// However narrow the terminal, the line keeps the cell (variant and
    /// benchmark) and drops the rest in order: the timeout, the size, the
    /// position, the elapsed time, the run, the clock, the time left.
    #[test]
    fn the_line_fits_the_width_dropping_the_least_important_first() {
        let (start, live) = live(2);
        let now = start + Duration::from_secs(12);
        let elapsed = Duration::from_secs(3723);
        let full = live.drawn(elapsed, now, None);
        assert_eq!(
            full,
            "[01:02:03] [1/2] a · assoc N=1,000 · run 1/3 · 12s of 16m40s · ~1m58s left"
        );
        let at = |w: usize| live.drawn(elapsed, now, Some(w));
        assert_eq!(at(full.chars().count()), full);
        assert_eq!(
            at(70),
            "[01:02:03] [1/2] a · assoc N=1,000 · run 1/3 · 12s · ~1m58s left"
        );
        assert_eq!(
            at(60),
            "[01:02:03] [1/2] a · assoc · run 1/3 · 12s · ~1m58s left"
        );
        assert_eq!(at(50), "[01:02:03] a · assoc · run 1/3 · 12s · ~1m58s left");
        assert_eq!(at(40), "a · assoc · run 1/3 · 12s · ~1m58s left");
        assert_eq!(at(30), "a · assoc · 12s · ~1m58s left");
        assert_eq!(at(24), "a · assoc · ~1m58s left");
        assert_eq!(at(12), "a · assoc");
        assert_eq!(at(3), "a · assoc", "the cell is never cut");
        for w in 9..90 {
            let s = at(w);
            assert!(s.chars().count() <= w, "{w}: {s:?}");
        }
        assert_eq!(
            Live::default().drawn(elapsed, now, Some(5)),
            "[01:02:03] ",
            "a message follows"
        );
    }
}
