//! One command of a variant: the untimed `prepare` commands of a program and
//! the build and run commands a run measures, each started through the
//! spawner in its sandbox with Ctrl-C forwarded; and the part of a failed
//! command's stderr that its note quotes.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;

use crate::bench::Bench;
use crate::config::{Variant, Vars};
use crate::signals;
use crate::spawn::proxy::Proxy;
use crate::spawn::{Exit, Outcome, Spawner};
use crate::state::Caches;

/// One command of a variant, ready to start.
pub struct Step<'a> {
    pub variant: &'a Variant,
    pub argv: Vec<String>,
    pub cwd: &'a Path,
    pub timeout: Duration,
    /// `--cpus`: the command is pinned there.
    pub cpus: Option<&'a [usize]>,
    /// The scratch directory the command builds in.
    pub scratch: &'a Path,
    /// The variant's private copy of its program's directory (a variant
    /// with `prepare`): writable in its `prepare` steps, read-only in its
    /// builds and runs.
    pub program_copy: Option<&'a Path>,
    /// A `prepare` step: the registry proxy its network goes through
    /// (`None`: the host's network, where no proxy can be made).
    pub prepare: Option<Option<&'a Proxy>>,
    /// The variant's persistent toolchain caches (none: a fresh HOME).
    pub caches: Option<&'a Caches>,
}

impl Step<'_> {
    /// Starts the command and waits for it, measured; `Err` only when it
    /// could not start.
    pub fn execute(self, spawner: &Spawner) -> Result<Outcome> {
        let mut req = self.variant.request(self.argv, self.cwd);
        req.timeout = Some(self.timeout);
        req.cpus = self.cpus.map(<[usize]>::to_vec);
        if let Some(c) = self.caches {
            req.caches = c.dirs.clone();
        }
        // A `prepare` step installs dependencies into its copy of the
        // program's directory (npm ci, pip, go build -o {dir}/bin): it gets
        // that copy writable and the package registries through
        // langbench's proxy; builds and runs get neither.
        let proxy = self.prepare.flatten();
        let host_network = self.prepare.is_some() && proxy.is_none();
        spawner.isolate(&mut req, self.scratch, host_network);
        if let Some(sb) = req.sandbox.as_mut() {
            match (self.program_copy, self.prepare.is_some()) {
                (Some(copy), true) => sb.writable.push(copy.to_path_buf()),
                (Some(copy), false) => sb.readable.push(copy.to_path_buf()),
                (None, _) => {}
            }
            if let Some(p) = proxy {
                sb.netns = Some(p.netns().to_path_buf());
                for (k, v) in p.env() {
                    match req.env.iter_mut().find(|(key, _)| *key == k) {
                        // The entry's own MAVEN_OPTS keep theirs.
                        Some((_, old)) if k == "MAVEN_OPTS" => *old = format!("{v} {old}"),
                        Some(_) => {}
                        None => req.env.push((k, v)),
                    }
                }
            }
        }
        let running = spawner.start(&req)?;
        signals::forward_while(running.agent_pid(), || running.wait())
    }
}

/// The placeholder values for a run of `variant`'s `bench` program with
/// `build` as its build directory: `{src}` and `{dir}` in the checkout, or
/// in the variant's private copy for a variant with `prepare`.
///
/// `build` is the run's build directory on the host; a sandboxed command
/// sees it at one path for every run (`Spawner::build_path`), which is the
/// `{build}` it is given.
pub fn vars(spawner: &Spawner, variant: &Variant, bench: Bench, build: &Path) -> Option<Vars> {
    let copy = crate::state::prepared_dir(variant, bench);
    variant.vars_in(bench, &spawner.build_path(build), copy.as_deref())
}

/// Runs a variant's untimed `prepare` commands for `bench`, in its private
/// copy of the program's directory (brought up to date with the checkout
/// first); `Err` says which one failed and why.
pub fn prepare(
    spawner: &Spawner,
    variant: &Variant,
    bench: Bench,
    timeout: Duration,
    caches: Option<&Caches>,
) -> Result<(), String> {
    if variant.prepare.is_empty() {
        return Ok(());
    }
    let dir = crate::scratch::dir("prepare").map_err(|e| format!("{e:#}"))?;
    let copy = crate::state::prepared_dir(variant, bench).ok_or("no program")?;
    let checkout = variant
        .programs
        .get(&bench)
        .and_then(|p| p.parent())
        .ok_or("no program")?;
    let c = &spawner.containment;
    let sandboxed = c.namespaces && c.isolate;
    crate::state::sync_copy(checkout, &copy, c.limits.ids.filter(|_| sandboxed))
        .map_err(|e| format!("cannot copy {} for prepare: {e:#}", checkout.display()))?;
    // Root's sandboxed prepare steps reach the registries through the
    // proxy only; without root none can be made (the step keeps the
    // host's network, as the session's containment says).
    let proxy = if sandboxed && c.limits.ids.is_some() {
        // Its connections count against the step's process bound.
        Some(Proxy::start(c.limits.max_procs).map_err(|e| format!("prepare: {e}"))?)
    } else {
        None
    };
    let vars = vars(spawner, variant, bench, dir.path()).ok_or("no program")?;
    for t in &variant.prepare {
        let o = Step {
            variant,
            argv: t.expand(&vars),
            cwd: &variant.cwd(&vars),
            timeout,
            cpus: None,
            scratch: dir.path(),
            program_copy: Some(&copy),
            prepare: Some(proxy.as_ref()),
            caches,
        }
        .execute(spawner)
        .map_err(|e| format!("prepare `{}`: {e:#}", t.text))?;
        if o.done.timed_out {
            return Err(format!("prepare `{}` timed out", t.text));
        }
        if o.done.exit != Exit::Exited(0) {
            return Err(format!(
                "prepare `{}` failed ({}); {}",
                t.text,
                o.done.exit,
                stderr_tail(&o)
            ));
        }
    }
    Ok(())
}

/// The part of a command's stderr worth a table note: the error line and the
/// last lines, without terminal colour codes (deno, cargo and others colour
/// their errors even into a pipe).
pub fn stderr_tail(o: &Outcome) -> String {
    let text = crate::inert::block(&o.stderr.text(), crate::inert::MAX_TEXT);
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let tail_from = lines.len().saturating_sub(4);
    // Stack traces put the message above the frames (node, Java): keep the
    // first line that names an error as well as the last lines.
    let headline = lines[..tail_from].iter().find(|l| {
        let l = l.to_ascii_lowercase();
        ["error", "exception", "panic", "fatal"]
            .iter()
            .any(|w| l.contains(w))
    });
    let tail = lines[tail_from..].join("\n");
    let tail: String = {
        let chars: Vec<char> = tail.chars().collect();
        chars[chars.len().saturating_sub(400)..].iter().collect()
    };
    let text = match headline {
        Some(h) => format!("{} … {tail}", h.chars().take(200).collect::<String>()),
        None => tail,
    };
    if text.is_empty() {
        "no stderr".into()
    } else {
        format!("stderr: {text}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spawn::{Captured, Done};

    fn outcome(stderr: &str) -> Outcome {
        Outcome {
            done: Done::exited(Exit::Exited(1)),
            stdout: Captured::default(),
            stderr: Captured {
                bytes: stderr.as_bytes().to_vec(),
                total: stderr.len() as u64,
            },
        }
    }

    #[test]
    fn stderr_tail_keeps_the_error_line_above_a_stack_trace() {
        let trace = "/p/assoc.js:20\n    m.set(k, v);\n      ^\n\nRangeError: Map maximum size exceeded\n    at Map.set (<anonymous>)\n    at a (/p/assoc.js:20:7)\n    at b (node:internal/x:1:1)\n    at c (node:internal/x:2:2)\n    at d (node:internal/x:3:3)\n";
        let t = stderr_tail(&outcome(trace));
        assert!(
            t.starts_with("stderr: RangeError: Map maximum size exceeded … "),
            "{t}"
        );
        assert!(t.ends_with("at d (node:internal/x:3:3)"), "{t}");
        assert_eq!(stderr_tail(&outcome("")), "no stderr");
        assert_eq!(stderr_tail(&outcome("one line\n")), "stderr: one line");
    }

    #[test]
    fn stderr_tail_drops_terminal_colour_codes() {
        let deno = "\x1b[0m\x1b[1m\x1b[31merror\x1b[0m: Uncaught (in promise) RangeError: Map maximum size exceeded\n    at Map.set (<anonymous>)\n";
        assert_eq!(
            stderr_tail(&outcome(deno)),
            "stderr: error: Uncaught (in promise) RangeError: Map maximum size exceeded\n    at Map.set (<anonymous>)"
        );
    }
}
