//! `langbench measure -- CMD ...`: a better `/usr/bin/time` — the same
//! kernel figures, plus wall time on the monotonic clock, a timeout that
//! kills the whole process group, and JSON for scripts.

use std::time::Duration;

use anyhow::Result;
use serde::Serialize;

use crate::report::thousands;
use crate::spawn::{Exit, Outcome, Request, Spawner};

#[derive(Serialize)]
pub struct Measurement {
    pub command: Vec<String>,
    pub wall_s: f64,
    pub user_s: f64,
    pub sys_s: f64,
    pub max_rss_kb: u64,
    pub exit: Exit,
    pub timed_out: bool,
    pub leftovers: u32,
}

impl Measurement {
    pub fn new(command: Vec<String>, o: &Outcome) -> Self {
        Measurement {
            command,
            wall_s: o.wall.as_secs_f64(),
            user_s: o.user.as_secs_f64(),
            sys_s: o.sys.as_secs_f64(),
            max_rss_kb: o.max_rss_kb,
            exit: o.exit,
            timed_out: o.timed_out,
            leftovers: o.leftovers,
        }
    }

    pub fn text(&self) -> String {
        let mut s = format!(
            "wall {:.3} s  user {:.3} s  sys {:.3} s  max RSS {} KB  {}",
            self.wall_s,
            self.user_s,
            self.sys_s,
            thousands(self.max_rss_kb),
            self.exit
        );
        if self.timed_out {
            s.push_str("  (timed out: process group killed)");
        }
        if self.leftovers > 0 {
            s.push_str(&format!("  ({} leftover processes killed)", self.leftovers));
        }
        s
    }

    /// The exit status langbench itself should return, like `time` does.
    pub fn exit_code(&self) -> i32 {
        match self.exit {
            Exit::Exited(c) => c,
            Exit::Signaled(s) => 128 + s,
        }
    }
}

/// Runs `argv` with its stdout and stderr passed through and returns the
/// measurement.
pub fn measure(
    spawner: &Spawner,
    argv: Vec<String>,
    timeout: Option<Duration>,
) -> Result<Measurement> {
    let mut req = Request::new(argv.clone(), &std::env::current_dir()?);
    req.timeout = timeout;
    req.capture = false;
    let o = spawner.run(&req)?;
    Ok(Measurement::new(argv, &o))
}
