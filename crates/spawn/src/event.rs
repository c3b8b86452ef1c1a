//! What the agent tells langbench: one line per event on its event pipe
//! (fd 3 in the agent), written by the agent and by init (`send`) and read
//! by the spawner (`Spawner::start`, `Running::wait`, `run_here`):
//!
//! - `pid PID` once the command runs (not when langbench does the agent's
//!   work itself, where nobody waits for it);
//! - `error MESSAGE` when it could not run;
//! - `done KIND CODE key=value ...` when it ended: KIND is `exited` or
//!   `signaled`, then its figures (`Done`).
//!
//! Each line is written whole in one `write(2)`, far below PIPE_BUF, so
//! lines from init relayed by the agent never interleave.

use std::fmt;
use std::num::ParseIntError;
use std::str::FromStr;
use std::time::Duration;

use super::outcome::{Bounds, Done, Exit, TreeUsage};

/// One line of the agent's events.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Event {
    /// The command runs, with this pid.
    Pid(i32),
    /// It could not run: why.
    Error(String),
    /// It ended.
    Done(Done),
}

/// A event line that could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BadEvent {
    /// A `pid` line without a pid.
    #[error("bad pid from the spawn agent")]
    Pid(#[source] ParseIntError),
    /// A `done` line that does not parse.
    #[error(transparent)]
    Done(#[from] BadDone),
    /// Not a event line at all (nothing, or something else).
    #[error("not a report line")]
    Other,
}

/// What is wrong with a `done` line.
#[derive(Debug, thiserror::Error)]
pub enum BadDone {
    #[error(transparent)]
    Code(#[from] ParseIntError),
    #[error("unknown exit kind {0}")]
    Kind(String),
    /// A required field is missing or not a number (`line`: after `done `).
    #[error("missing or bad {key}= in {line:?}")]
    Field { key: &'static str, line: String },
}

impl fmt::Display for Event {
    /// The line without its newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::Pid(pid) => write!(f, "pid {pid}"),
            Event::Error(why) => write!(f, "error {why}"),
            Event::Done(done) => write!(f, "done {done}"),
        }
    }
}

impl FromStr for Event {
    type Err = BadEvent;

    /// A line without its newline.
    fn from_str(line: &str) -> Result<Event, BadEvent> {
        if let Some(pid) = line.strip_prefix("pid ") {
            return pid.parse().map(Event::Pid).map_err(BadEvent::Pid);
        }
        if let Some(why) = line.strip_prefix("error ") {
            return Ok(Event::Error(why.to_string()));
        }
        if let Some(done) = line.strip_prefix("done ") {
            return Ok(Event::Done(done.parse()?));
        }
        Err(BadEvent::Other)
    }
}

impl fmt::Display for Done {
    /// The line after `done `.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (kind, code) = match self.exit {
            Exit::Exited(code) => ("exited", code),
            Exit::Signaled(signal) => ("signaled", signal),
        };
        write!(
            f,
            "{kind} {code} wall_ns={} utime_us={} stime_us={} maxrss_kb={} timed_out={} stopped={} leftovers={}",
            self.wall.as_nanos(),
            self.user.as_micros(),
            self.sys.as_micros(),
            self.max_rss_kb,
            self.timed_out as u8,
            self.stopped as u8,
            self.leftovers
        )?;
        if let Some(t) = &self.tree {
            write!(
                f,
                " tree_utime_us={} tree_stime_us={} tree_rss_kb={} tree_single_kb={}",
                t.user.as_micros(),
                t.sys.as_micros(),
                t.max_rss_kb,
                t.max_single_rss_kb
            )?;
        }
        if self.tree.is_some() || self.oom || self.escaped || self.forked_after > 0 {
            write!(
                f,
                " oom={} escaped={} forked_after={}",
                self.oom as u8, self.escaped as u8, self.forked_after
            )?;
        }
        let b = &self.bounds;
        if *b != Bounds::default() {
            write!(
                f,
                " tasks={} proc_limit={} widened={} disk={} files={}",
                b.tasks, b.proc_limit as u8, b.widened as u8, b.disk as u8, b.files as u8
            )?;
        }
        Ok(())
    }
}

impl FromStr for Done {
    type Err = BadDone;

    /// The line after `done `. Fields may come in any order; unknown ones
    /// are ignored.
    fn from_str(rest: &str) -> Result<Done, BadDone> {
        let mut it = rest.split(' ');
        let kind = it.next().unwrap_or_default();
        let code: i32 = it.next().unwrap_or_default().parse()?;
        let exit = match kind {
            "exited" => Exit::Exited(code),
            "signaled" => Exit::Signaled(code),
            other => return Err(BadDone::Kind(other.to_string())),
        };
        let fields: Vec<(&str, &str)> = it.filter_map(|kv| kv.split_once('=')).collect();
        // Only the required fields make errors; the optional ones default.
        let field = |key: &str| -> Option<u64> {
            fields
                .iter()
                .find(|(k, _)| *k == key)
                .and_then(|(_, v)| v.parse().ok())
        };
        let get = |key: &'static str| -> Result<u64, BadDone> {
            field(key).ok_or_else(|| BadDone::Field {
                key,
                line: rest.to_string(),
            })
        };
        let wall = Duration::from_nanos(get("wall_ns")?);
        let user = Duration::from_micros(get("utime_us")?);
        let sys = Duration::from_micros(get("stime_us")?);
        let max_rss_kb = get("maxrss_kb")?;
        let timed_out = get("timed_out")? != 0;
        let stopped = get("stopped")? != 0;
        let leftovers = get("leftovers")? as u32;
        // Contained runs add the tree and the memory-limit verdict.
        let tree = match (
            field("tree_utime_us"),
            field("tree_stime_us"),
            field("tree_rss_kb"),
            field("tree_single_kb"),
        ) {
            (Some(u), Some(s), Some(r), Some(single)) => Some(TreeUsage {
                user: Duration::from_micros(u),
                sys: Duration::from_micros(s),
                max_rss_kb: r,
                max_single_rss_kb: single,
            }),
            _ => None,
        };
        Ok(Done {
            exit,
            wall,
            user,
            sys,
            max_rss_kb,
            timed_out,
            stopped,
            leftovers,
            tree,
            oom: field("oom").unwrap_or(0) != 0,
            escaped: field("escaped").unwrap_or(0) != 0,
            forked_after: field("forked_after").unwrap_or(0) as u32,
            bounds: Bounds {
                tasks: field("tasks").unwrap_or(0),
                proc_limit: field("proc_limit").unwrap_or(0) != 0,
                widened: field("widened").unwrap_or(0) != 0,
                disk: field("disk").unwrap_or(0) != 0,
                files: field("files").unwrap_or(0) != 0,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn done(exit: Exit) -> Done {
        Done {
            wall: Duration::from_nanos(1_500_000_123),
            user: Duration::from_micros(20),
            sys: Duration::from_micros(30),
            max_rss_kb: 1024,
            ..Done::exited(exit)
        }
    }

    fn tree() -> Option<TreeUsage> {
        Some(TreeUsage {
            user: Duration::from_micros(5),
            sys: Duration::from_micros(6),
            max_rss_kb: 7,
            max_single_rss_kb: 8,
        })
    }

    #[test]
    fn every_kind_of_line_reads_back_as_written() {
        let lines = [
            Event::Pid(4242),
            Event::Error("cannot execute ./a.out: No such file or directory (os error 2)".into()),
            Event::Error("cannot create namespaces (try --no-sandbox): x".into()),
            Event::Done(done(Exit::Exited(0))),
            Event::Done(done(Exit::Exited(3))),
            Event::Done(Done {
                timed_out: true,
                leftovers: 2,
                ..done(Exit::Signaled(libc::SIGKILL))
            }),
            Event::Done(Done {
                stopped: true,
                ..done(Exit::Signaled(libc::SIGTERM))
            }),
            Event::Done(Done {
                tree: tree(),
                forked_after: 4,
                ..done(Exit::Exited(0))
            }),
            Event::Done(Done {
                tree: tree(),
                oom: true,
                ..done(Exit::Signaled(libc::SIGKILL))
            }),
            Event::Done(Done {
                tree: tree(),
                escaped: true,
                ..done(Exit::Signaled(libc::SIGKILL))
            }),
            Event::Done(Done {
                tree: tree(),
                bounds: Bounds {
                    tasks: 4000,
                    proc_limit: true,
                    widened: true,
                    disk: true,
                    files: true,
                },
                ..done(Exit::Exited(0))
            }),
            // Verdicts without a tree are still written.
            Event::Done(Done {
                oom: true,
                ..done(Exit::Exited(0))
            }),
        ];
        for r in lines {
            let line = r.to_string();
            assert!(!line.contains('\n'), "{line:?}");
            assert_eq!(line.parse::<Event>().unwrap(), r, "{line:?}");
        }
    }

    #[test]
    fn the_lines_are_the_wire_format() {
        // What the agent, init and the agent's stand-in for a killed init
        // write (contain.rs still writes the last two by hand).
        let plain = Event::Done(Done {
            timed_out: true,
            leftovers: 2,
            ..done(Exit::Signaled(9))
        });
        assert_eq!(
            plain.to_string(),
            "done signaled 9 wall_ns=1500000123 utime_us=20 stime_us=30 maxrss_kb=1024 timed_out=1 stopped=0 leftovers=2"
        );
        let contained = Event::Done(Done {
            tree: tree(),
            forked_after: 3,
            ..done(Exit::Exited(0))
        });
        assert_eq!(
            contained.to_string(),
            "done exited 0 wall_ns=1500000123 utime_us=20 stime_us=30 maxrss_kb=1024 timed_out=0 stopped=0 leftovers=0 tree_utime_us=5 tree_stime_us=6 tree_rss_kb=7 tree_single_kb=8 oom=0 escaped=0 forked_after=3"
        );
        let line = "done signaled 9 wall_ns=77 utime_us=0 stime_us=0 maxrss_kb=0 timed_out=1 stopped=0 leftovers=0 tree_utime_us=1 tree_stime_us=2 tree_rss_kb=3 tree_single_kb=0 oom=0 escaped=1 forked_after=0";
        assert_eq!(line.parse::<Event>().unwrap().to_string(), line);
        assert_eq!(Event::Pid(12).to_string(), "pid 12");
        assert_eq!(Event::Error("no".into()).to_string(), "error no");
    }

    #[test]
    fn a_done_line_reads_into_its_figures() {
        let d = "signaled 9 wall_ns=1500000000 utime_us=20 stime_us=30 maxrss_kb=1024 timed_out=1 stopped=0 leftovers=2"
            .parse::<Done>()
            .unwrap();
        assert_eq!(d.exit, Exit::Signaled(9));
        assert_eq!(d.wall, Duration::from_millis(1500));
        assert_eq!(d.max_rss_kb, 1024);
        assert!(d.timed_out && !d.stopped);
        assert_eq!(d.leftovers, 2);
        assert!(d.tree.is_none() && !d.oom && !d.escaped);

        let d = "exited 0 wall_ns=1 utime_us=2 stime_us=3 maxrss_kb=4 timed_out=0 stopped=0 leftovers=0 tree_utime_us=5 tree_stime_us=6 tree_rss_kb=7 tree_single_kb=8 oom=1 escaped=0"
            .parse::<Done>()
            .unwrap();
        assert_eq!(
            d.tree.map(|t| (t.max_rss_kb, t.max_single_rss_kb)),
            Some((7, 8))
        );
        assert!(d.oom && !d.escaped);
        assert_eq!(d.forked_after, 0);
    }

    #[test]
    fn bad_lines_say_what_is_wrong() {
        let e = "exited 0 wall_ns=1 utime_us=x".parse::<Done>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "missing or bad utime_us= in \"exited 0 wall_ns=1 utime_us=x\""
        );
        let e = "unknown 4991 wall_ns=1".parse::<Done>().unwrap_err();
        assert_eq!(e.to_string(), "unknown exit kind unknown");
        let e = "exited zero".parse::<Done>().unwrap_err();
        assert_eq!(e.to_string(), "invalid digit found in string");

        let e = anyhow::Error::from("pid x".parse::<Event>().unwrap_err());
        assert_eq!(
            format!("{e:#}"),
            "bad pid from the spawn agent: invalid digit found in string"
        );
        for other in ["", "pid", "error", "done", "hello world"] {
            assert!(
                matches!(other.parse::<Event>(), Err(BadEvent::Other)),
                "{other:?}"
            );
        }
        assert!(matches!(
            "done exited".parse::<Event>(),
            Err(BadEvent::Done(BadDone::Code(_)))
        ));
    }
}
