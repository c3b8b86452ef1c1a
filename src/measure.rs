//! `langbench measure -- CMD ...`: a better `/usr/bin/time` — the same
//! kernel figures, plus wall time on the monotonic clock, a timeout that
//! kills the whole process group, and JSON for scripts.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use serde::Serialize;

use langbench_document::thousands;
use langbench_spawn::refusal::Facts;
use langbench_spawn::{Containment, Exit, Outcome, Request, Spawner};

#[derive(Serialize)]
pub(crate) struct Measurement {
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
    pub(crate) fn new(command: Vec<String>, o: &Outcome) -> Self {
        Measurement {
            command,
            wall_s: o.done.wall.as_secs_f64(),
            user_s: o.done.user.as_secs_f64(),
            sys_s: o.done.sys.as_secs_f64(),
            max_rss_kb: o.done.max_rss_kb,
            exit: o.done.exit,
            timed_out: o.done.timed_out,
            leftovers: o.done.leftovers,
        }
    }

    pub(crate) fn text(&self) -> String {
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

    /// Prints the measurement: JSON on stdout, or one line on stderr (the
    /// command's own output has gone to stdout).
    pub(crate) fn print(&self, json: bool) -> Result<()> {
        if json {
            println!("{}", serde_json::to_string_pretty(self)?);
        } else {
            eprintln!("{}", self.text());
        }
        Ok(())
    }

    /// The exit status langbench itself should return, like `time` does.
    pub(crate) fn exit_code(&self) -> i32 {
        match self.exit {
            Exit::Exited(c) => c,
            Exit::Signaled(s) => 128 + s,
        }
    }
}

/// Runs `argv` with its stdout and stderr passed through and returns the
/// measurement.
pub(crate) fn measure(
    spawner: &Spawner,
    argv: Vec<String>,
    timeout: Option<Duration>,
) -> Result<Measurement> {
    let mut req = Request::new(argv.clone(), &std::env::current_dir()?);
    req.timeout = timeout;
    req.capture = false;
    let o = spawner.execute(&req)?;
    Ok(Measurement::new(argv, &o))
}

/// `langbench measure` as clap reads it: only what [`fast_args`] leaves to
/// clap gets here (--cgroup, or a memory limit with a delegated cgroup),
/// measured through an agent, as `run` does, since clap has grown this
/// process. Prints the measurement; the command's exit status is
/// langbench's.
pub fn command(
    spawner: &Spawner,
    argv: Vec<String>,
    timeout: Option<Duration>,
    json: bool,
) -> Result<ExitCode> {
    let m = measure(spawner, argv, timeout)?;
    m.print(json)?;
    Ok(ExitCode::from(m.exit_code().clamp(0, 255) as u8))
}

/// A `langbench measure` command line, read by `fast_args`.
#[derive(Debug, PartialEq)]
pub struct FastArgs {
    pub json: bool,
    pub timeout: Option<Duration>,
    pub no_sandbox: bool,
    pub memory_limit_mb: Option<u64>,
    pub command: Vec<String>,
}

/// Reads a well-formed `langbench [--no-sandbox] [--memory-limit MB]
/// measure [--json] [--timeout S] -- CMD...` (the options in any order,
/// `--opt=value` too) without clap; `None` for anything else (help, a bad
/// value, an unknown option), which clap then reads and reports.
///
/// Hand-written because `measure` forks the command from this process
/// (`run_here`) and a child's peak RSS starts at what its parent holds:
/// clap builds the whole command line's definitions on the heap first
/// (every subcommand's), which would raise the floor of every figure, and
/// costs a good part of the start-up that `measure` should not pay. The
/// options mirror `cli::MeasureArgs` and `cli::Cli`; a test checks
/// that both read the same command lines alike.
pub fn fast_args(args: &[std::ffi::OsString]) -> Option<FastArgs> {
    let mut a = FastArgs {
        json: false,
        timeout: None,
        no_sandbox: false,
        memory_limit_mb: None,
        command: Vec::new(),
    };
    let mut in_measure = false;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let arg = arg.to_str()?;
        if arg == "--" {
            if !in_measure {
                return None;
            }
            a.command = it
                .map(|s| s.to_str().map(str::to_string))
                .collect::<Option<_>>()?;
            // The one combination clap takes that langbench refuses: its
            // error is main's.
            let conflict = a.no_sandbox && a.memory_limit_mb.is_some();
            return (!a.command.is_empty() && !conflict).then_some(a);
        }
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v)),
            _ => (arg, None),
        };
        let mut value = || inline.or_else(|| it.next()?.to_str());
        match name {
            "measure" if !in_measure => in_measure = true,
            "--json" if in_measure && !a.json && inline.is_none() => a.json = true,
            "--no-sandbox" if !a.no_sandbox && inline.is_none() => a.no_sandbox = true,
            "--timeout" if in_measure && a.timeout.is_none() => {
                let s: f64 = value()?.parse().ok()?;
                a.timeout = Some(Duration::try_from_secs_f64(s).ok().filter(|_| s > 0.0)?);
            }
            "--memory-limit" if a.memory_limit_mb.is_none() => {
                a.memory_limit_mb = Some(value()?.parse().ok()?);
            }
            _ => return None,
        }
    }
    None
}

/// `langbench measure` as `main` runs it first thing, with the agent's
/// work done by langbench itself (`spawn::run_here`): prints the
/// measurement and returns langbench's exit status.
pub fn measure_here(a: FastArgs) -> Result<i32> {
    let mut c = if a.no_sandbox {
        Containment::none()
    } else {
        Containment::full()
    };
    c.memory_limit_kb = a.memory_limit_mb.map(|mb| mb * 1024);
    let mut req = Request::new(a.command.clone(), std::path::Path::new("."));
    req.timeout = a.timeout;
    req.capture = false;
    let o = match langbench_spawn::run_here(&c, &req) {
        // Where the kernel refuses the namespaces (or the fresh /proc),
        // nothing ran (they come first): stop with the missing privilege,
        // as every other command does (`Containment::require`), rather
        // than measure uncontained.
        Err(e) if c.namespaces && Containment::refused(&e) => {
            anyhow::bail!("{}", Facts::read().explain(&format!("{e:#}")))
        }
        r => r?,
    };
    let m = Measurement::new(a.command, &o);
    m.print(a.json)?;
    Ok(m.exit_code().clamp(0, 255))
}
