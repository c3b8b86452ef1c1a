//! The progress line of a long command (`run`, `ws`): a spinner with the
//! elapsed time and what is being done, and `say` for the lines printed
//! above it (or to stderr when it is hidden, e.g. not a terminal).

use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

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
