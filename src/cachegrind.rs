//! The work figure's counter (issue #62): a run's instructions counted by
//! valgrind's cachegrind (`--cache-sim=no`: no hardware counters needed),
//! the command line that counts them, and the count read back from
//! valgrind's log, which langbench alone can write to.
//!
//! How a program is kept from faking its count: valgrind writes its log to
//! a Unix socket langbench reads (`spawn::Request::log_fd`), at a
//! descriptor number at the top of the command's `RLIMIT_NOFILE`, inside
//! the range valgrind reserves for itself: a client's `write`, `close`,
//! `dup2` or `fcntl` on it fails with EBADF, and reopening it through
//! `/proc/PID/fd` fails with ENXIO (a socket, not a pipe or a file).
//! Nothing is read from the program's stdout, stderr or files, and
//! cachegrind's out file goes to /dev/null (its summary is in the log).
//! Every valgrind process of the tree (`--trace-children=yes`) writes its
//! preamble (`Command:`) and its count to the socket: a count without a
//! preamble is a process forked without exec (its count holds its
//! parent's instructions again), a preamble without a count a process that
//! did not end under valgrind; either leaves the cell without a figure.
//! What this does not contain: a program that attacks valgrind's memory
//! in its own process, or debugs another process of its tree (`ptrace`,
//! `process_vm_writev`, `pidfd_getfd`), can change its count; the
//! sandbox gives it no more than that (docs/measurement.md, Work).

use std::collections::BTreeMap;

/// What counts, as records name it (the version is the probe's).
pub(crate) const TOOL: &str = "cachegrind --cache-sim=no --trace-children=yes";

/// The CPU features glibc's string and memory functions dispatch on
/// (`sysdeps/x86/cpu-features.c`, the ifunc selectors): where two
/// machines differ in these, the same program executes different code.
/// Valgrind itself shows its guest at most AVX2 (no AVX-512), which caps
/// what glibc sees under it; the host's are recorded either way.
pub(crate) const DISPATCHED: &[&str] = &[
    "sse2", "ssse3", "sse4_1", "sse4_2", "popcnt", "avx", "avx2", "fma", "bmi1", "bmi2", "erms",
    "fsrm", "movbe", "lzcnt", "abm", "rtm", "avx512f", "avx512bw", "avx512vl", "avx512dq", "evex",
];

/// The descriptor valgrind's log socket gets in the command: the last one
/// its `RLIMIT_NOFILE` allows (valgrind reserves the top of that range
/// for itself and refuses its client any use of it).
pub(crate) fn log_fd() -> i32 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit fills the struct.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0;
    let soft = if ok { lim.rlim_cur } else { 1024 };
    // An unlimited or huge limit: valgrind reserves below what it can
    // use, which a descriptor table of a million entries is.
    soft.clamp(64, 1 << 20) as i32 - 1
}

/// The command line that counts `run` (a variant's run command, expanded)
/// with its log on descriptor `fd`.
pub(crate) fn argv(fd: i32, run: Vec<String>) -> Vec<String> {
    let mut a: Vec<String> = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--branch-sim=no",
        "--cachegrind-out-file=/dev/null",
        "--trace-children=yes",
        "--child-silent-after-fork=no",
        // No gdbserver: its FIFOs in /tmp are a channel into valgrind a
        // program could write to.
        "--vgdb=no",
        // Threads take turns through a futex, not through a pipe of
        // valgrind's that a program could reopen in /proc/PID/fd and
        // write to (which kills valgrind: a count lost).
        "--fair-sched=yes",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.push(format!("--log-fd={fd}"));
    a.extend(run);
    a
}

/// A tree's count, read from valgrind's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Count {
    /// Instructions executed, summed over the tree's processes.
    pub instructions: u64,
    /// The processes counted (each exec under valgrind is one).
    pub processes: u32,
}

/// The count in valgrind's `log` (`truncated`: it passed what langbench
/// keeps), or why there is none: a sentence for the record.
pub(crate) fn parse(log: &[u8], truncated: bool) -> Result<Count, String> {
    if truncated {
        return Err(format!(
            "valgrind's log passed {} bytes (a tree of too many processes)",
            log.len()
        ));
    }
    let text = String::from_utf8_lossy(log);
    // Per pid: a preamble seen and no count yet.
    let mut open: BTreeMap<u32, bool> = BTreeMap::new();
    let mut count = Count {
        instructions: 0,
        processes: 0,
    };
    for line in text.lines() {
        if let Some(why) = failure(line) {
            return Err(why);
        }
        let Some((pid, rest)) = prefixed(line) else {
            continue;
        };
        if rest.starts_with("Command: ") {
            open.insert(pid, true);
        } else if let Some(n) = rest.strip_prefix("I   refs:") {
            let n: u64 = n
                .trim()
                .replace(',', "")
                .parse()
                .map_err(|_| format!("valgrind's count is not a number: {:?}", n.trim()))?;
            if open.insert(pid, false) != Some(true) {
                return Err(
                    "a process forked without exec: cachegrind would count its parent's \
                     instructions again in it"
                        .into(),
                );
            }
            count.instructions += n;
            count.processes += 1;
        }
    }
    if let Some((pid, _)) = open.iter().find(|(_, o)| **o) {
        return Err(format!(
            "process {pid} ended without its count (killed, or it left valgrind)"
        ));
    }
    if count.processes == 0 {
        return Err("valgrind wrote no count".into());
    }
    Ok(count)
}

/// `==PID== rest` (valgrind's own lines; `--PID--` are its warnings).
fn prefixed(line: &str) -> Option<(u32, &str)> {
    let rest = line.strip_prefix("==")?;
    let (pid, rest) = rest.split_once("== ")?;
    Some((pid.parse().ok()?, rest))
}

/// A line that says valgrind could not follow the program.
fn failure(line: &str) -> Option<String> {
    let l = line.to_ascii_lowercase();
    let fatal = [
        "unhandled instruction",
        "unrecognised instruction",
        "valgrind: fatal",
        "out of memory",
        "failed to start tool",
        "valgrind: the 'impossible' happened",
        "cannot continue",
    ]
    .iter()
    .any(|w| l.contains(w));
    fatal.then(|| {
        format!(
            "valgrind cannot follow it: {}",
            langbench_document::inert::clip(&langbench_document::inert::text(line.trim()), 200)
        )
    })
}

/// The host's [`DISPATCHED`] features, from /proc/cpuinfo (empty where it
/// cannot be read).
pub(crate) fn cpu_features() -> Vec<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let flags: Vec<&str> = text
        .lines()
        .find_map(|l| l.strip_prefix("flags").and_then(|r| r.split_once(':')))
        .map(|(_, f)| f.split_whitespace().collect())
        .unwrap_or_default();
    DISPATCHED
        .iter()
        .filter(|d| flags.contains(d))
        .map(|d| d.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = "==7== Cachegrind, a cache and branch-prediction profiler\n\
        ==7== Command: ./a 10\n==7== \n--7-- warning: L3 cache found\n\
        ==9== Command: /bin/sh -c x\n==9== \n==9== I   refs:      235,556\n\
        ==7== \n==7== I   refs:      139,271\n";

    #[test]
    fn a_trees_count_is_the_sum_of_its_processes() {
        assert_eq!(
            parse(TWO.as_bytes(), false),
            Ok(Count {
                instructions: 374_827,
                processes: 2
            })
        );
        // An exec in a process: its preamble again, one count.
        let exec = "==7== Command: sh\n==7== Command: ./a\n==7== I   refs: 10\n";
        assert_eq!(parse(exec.as_bytes(), false).unwrap().instructions, 10);
    }

    #[test]
    fn a_count_it_cannot_trust_is_none_with_the_reason() {
        let forked = format!("{TWO}==11== I   refs:      139,000\n");
        assert!(
            parse(forked.as_bytes(), false)
                .unwrap_err()
                .contains("forked without exec")
        );
        let twice = format!("{TWO}==7== I   refs:      1\n");
        assert!(
            parse(twice.as_bytes(), false)
                .unwrap_err()
                .contains("forked without exec")
        );
        let killed = "==7== Command: ./a\n";
        assert!(
            parse(killed.as_bytes(), false)
                .unwrap_err()
                .contains("without its count")
        );
        assert!(parse(TWO.as_bytes(), true).unwrap_err().contains("passed"));
        assert!(parse(b"", false).unwrap_err().contains("no count"));
        let vex = "==7== Command: ./a\nvex amd64->IR: unhandled instruction bytes: 0x62\n";
        assert!(
            parse(vex.as_bytes(), false)
                .unwrap_err()
                .contains("cannot follow")
        );
    }

    #[test]
    fn the_log_socket_sits_at_the_top_of_the_descriptor_range() {
        let fd = log_fd();
        assert!(fd >= 63, "{fd}");
        let a = argv(fd, vec!["./a".into(), "10".into()]);
        assert_eq!(a.last().map(String::as_str), Some("10"));
        assert!(a.contains(&format!("--log-fd={fd}")));
        assert!(a.contains(&"--cachegrind-out-file=/dev/null".to_string()));
    }
}
