//! One command of a variant (a `prepare`, build or run command), started
//! through the spawner in its sandbox with Ctrl-C forwarded; and the part
//! of a failed command's stderr that its note quotes. What commands a run
//! is made of is [`crate::cell`]'s.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;

use crate::config::Variant;
use crate::signals;
use crate::state::Caches;
use langbench_spawn::proxy::Proxy;
use langbench_spawn::{Outcome, Spawner};

/// One command of a variant, ready to start.
pub(crate) struct Step<'a> {
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
    /// A work count: valgrind's log socket at this descriptor
    /// (`spawn::Request::log_fd`).
    pub log_fd: Option<i32>,
}

impl Step<'_> {
    /// Starts the command and waits for it, measured; `Err` only when it
    /// could not start.
    pub(crate) fn execute(self, spawner: &Spawner) -> Result<Outcome> {
        let mut req = self.variant.request(self.argv, self.cwd);
        req.timeout = Some(self.timeout);
        req.cpus = self.cpus.map(<[usize]>::to_vec);
        req.log_fd = self.log_fd;
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

/// The part of a command's stderr worth a table note: the error line and the
/// last lines, without terminal colour codes (deno, cargo and others colour
/// their errors even into a pipe).
pub(crate) fn stderr_tail(o: &Outcome) -> String {
    let text =
        langbench_document::inert::block(&o.stderr.text(), langbench_document::inert::MAX_TEXT);
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
    let text = without_local_paths(
        &text,
        std::env::current_dir().ok().as_deref(),
        std::env::var_os("HOME")
            .map(std::path::PathBuf::from)
            .as_deref(),
    );
    if text.is_empty() {
        "no stderr".into()
    } else {
        format!("stderr: {text}")
    }
}

/// `text` (a note for the records, which are published) without the
/// measuring machine's own paths: the checkout langbench runs in (`cwd`)
/// as a relative path (`/home/ann/langbench/programs/assoc/assoc.js` →
/// `programs/assoc/assoc.js`), and its home as `~`.
fn without_local_paths(text: &str, cwd: Option<&Path>, home: Option<&Path>) -> String {
    let mut out = text.to_string();
    let prefix = |p: &Path| {
        let s = p.display().to_string();
        (s.len() > 1).then(|| format!("{}/", s.trim_end_matches('/')))
    };
    if let Some(c) = cwd.and_then(prefix) {
        out = out.replace(&c, "");
    }
    if let Some(h) = home.and_then(prefix) {
        out = out.replace(&h, "~/");
    }
    out
}

/// What to say when a build step failed where the sandbox would refuse
/// its writes: its stderr names a read-only file system or a refused
/// permission (EROFS, EACCES), or it said nothing at all (a compiler that
/// exits 70 without a word when it cannot write its output beside its
/// source). Program directories are read-only in every run; a build
/// writes in `{build}`.
pub(crate) fn read_only_hint(o: &Outcome) -> Option<&'static str> {
    let text = o.stderr.text().to_ascii_lowercase();
    let refused = [
        "read-only file system",
        "permission denied",
        "erofs",
        "eacces",
    ]
    .iter()
    .any(|w| text.contains(w));
    (refused || text.trim().is_empty()).then_some(
        "program directories are read-only (the checkout's and a prepared copy's alike): \
         a build writes its outputs in {build}, the run's working directory \
         (e.g. `-o {exe}`, `-d {build}`, or a cache option pointing at {build})",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use langbench_spawn::{Captured, Done, Exit};

    fn outcome(stderr: &str) -> Outcome {
        Outcome {
            done: Done::exited(Exit::Exited(1)),
            stdout: Captured::default(),
            stderr: Captured {
                bytes: stderr.as_bytes().to_vec(),
                total: stderr.len() as u64,
            },
            log: Captured::default(),
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
    fn notes_carry_no_path_of_the_measuring_machine() {
        let note =
            "file:///work/main/programs/assoc/assoc.js:3 at /work/main/x.js; /root/.cache/deno/y";
        assert_eq!(
            without_local_paths(
                note,
                Some(Path::new("/work/main")),
                Some(Path::new("/root"))
            ),
            "file://programs/assoc/assoc.js:3 at x.js; ~/.cache/deno/y"
        );
        assert_eq!(
            without_local_paths("/a/b", Some(Path::new("/")), None),
            "/a/b"
        );
    }

    #[test]
    fn a_build_refused_its_write_or_silent_is_told_where_to_build() {
        for stderr in [
            "",
            "\n",
            "cc1: fatal error: cannot open x.o: Read-only file system\n",
            "error: Permission denied (os error 13)\n",
        ] {
            let hint = read_only_hint(&outcome(stderr));
            assert!(
                hint.is_some_and(|h| h.contains("read-only") && h.contains("{build}")),
                "{stderr:?}: {hint:?}"
            );
        }
        assert_eq!(
            read_only_hint(&outcome("x.c:3: error: expected ';'\n")),
            None
        );
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
