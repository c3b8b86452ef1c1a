//! `/proc/PID/stat`, read in one place: the agent's sweep and init's
//! namespace checks (is it a zombie, whose child, which group), init's own
//! command line (`contain::init::hide_cmdline`), `Running::has_exited`, and the
//! ws server's tree sampling (CPU ticks) all read a few fields of it.
//!
//! Parsed by the `procfs` crate (a dependency already, for `hygiene`),
//! which counts the fields from the last ')' as it must: the command name
//! is in parentheses and may itself hold spaces and ')'. A hand-written
//! parser was measured against it for the agent's and init's sake and won
//! nothing: reading the file costs far more than parsing it, and init
//! reading its own stat with the crate before it forks the command did not
//! raise the command's peak RSS (`langbench measure -- true`, interleaved).

use procfs::FromRead;

/// The fields of `/proc/PID/stat` langbench reads (proc(5) numbers the
/// fields from 1: the pid is 1, the command name 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    /// Field 3: `R` running, `S` sleeping, `D` disk sleep, `Z` zombie,
    /// `X` dead, ...
    pub state: char,
    /// Field 4: the parent's pid.
    pub ppid: i32,
    /// Field 5: the process group.
    pub pgrp: i32,
    /// Field 14: CPU time in user mode, in clock ticks.
    pub utime: u64,
    /// Field 15: CPU time in kernel mode, in clock ticks.
    pub stime: u64,
    /// Field 48: where the command-line arguments begin in the process's
    /// memory (`None`: the kernel does not say, before Linux 3.5).
    pub arg_start: Option<usize>,
    /// Field 49: where they end.
    pub arg_end: Option<usize>,
}

impl Stat {
    /// The stat of process `pid` (`None`: gone, or unreadable).
    pub fn of(pid: i32) -> Option<Stat> {
        Stat::read(&format!("/proc/{pid}/stat"))
    }

    /// The calling process's own stat.
    pub(super) fn of_self() -> Option<Stat> {
        Stat::read("/proc/self/stat")
    }

    fn read(path: &str) -> Option<Stat> {
        procfs::process::Stat::from_file(path).ok().map(Stat::from)
    }

    /// Parses the file's contents (`None`: not a stat line).
    #[cfg(test)]
    pub fn parse(text: &[u8]) -> Option<Stat> {
        procfs::process::Stat::from_read(text).ok().map(Stat::from)
    }

    /// Ended but not yet reaped by its parent.
    pub(super) fn is_zombie(&self) -> bool {
        self.state == 'Z'
    }

    /// Still running: neither a zombie nor dead.
    pub(super) fn is_alive(&self) -> bool {
        !matches!(self.state, 'Z' | 'X')
    }
}

impl From<procfs::process::Stat> for Stat {
    fn from(s: procfs::process::Stat) -> Stat {
        Stat {
            state: s.state,
            ppid: s.ppid,
            pgrp: s.pgrp,
            utime: s.utime,
            stime: s.stime,
            arg_start: s.arg_start.and_then(|v| usize::try_from(v).ok()),
            arg_end: s.arg_end.and_then(|v| usize::try_from(v).ok()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stat line as Linux 6.x writes it (52 fields) for a process whose
    /// command name is `comm`.
    fn line(comm: &str) -> String {
        format!(
            "4242 ({comm}) S 17 4240 4240 0 -1 4194560 120 0 0 0 731 29 0 0 20 0 3 0 \
             123456 10485760 1203 18446744073709551615 94000 95000 140720000 0 0 0 0 \
             4096 0 0 0 0 17 1 0 0 0 0 0 96000 96500 97000 140730001 140730042 \
             140730042 140730100 0\n"
        )
    }

    #[test]
    fn reads_the_fields_after_the_command_name() {
        let s = Stat::parse(line("python3").as_bytes()).unwrap();
        assert_eq!(
            s,
            Stat {
                state: 'S',
                ppid: 17,
                pgrp: 4240,
                utime: 731,
                stime: 29,
                arg_start: Some(140730001),
                arg_end: Some(140730042),
            }
        );
        assert!(s.is_alive() && !s.is_zombie());
    }

    #[test]
    fn a_command_name_with_spaces_and_parentheses_is_skipped_whole() {
        // What a process can name itself (PR_SET_NAME, 15 bytes): with the
        // first ')' the state would read as "S", ppid as 1, and so on.
        for comm in ["a b", "x) S 1 1 1", ") R 9 (", "))", "( Z"] {
            let s = Stat::parse(line(comm).as_bytes()).unwrap();
            assert_eq!((s.state, s.ppid, s.pgrp), ('S', 17, 4240), "{comm:?}");
            assert_eq!((s.utime, s.stime), (731, 29), "{comm:?}");
            assert_eq!(s.arg_end, Some(140730042), "{comm:?}");
        }
    }

    #[test]
    fn a_command_name_that_is_not_utf8_is_fine() {
        let mut l = b"4242 (\xff\xfe) Z 17 4240".to_vec();
        l.extend_from_slice(line("x").split_once(" 4240").unwrap().1.as_bytes());
        let s = Stat::parse(&l).unwrap();
        assert!(s.is_zombie() && !s.is_alive());
        assert_eq!((s.ppid, s.utime), (17, 731));
    }

    #[test]
    fn an_old_kernel_without_the_argument_fields_still_parses() {
        let l = line("sh");
        let old: Vec<&str> = l.split_whitespace().take(44).collect();
        let s = Stat::parse(old.join(" ").as_bytes()).unwrap();
        assert_eq!((s.ppid, s.stime), (17, 29));
        assert_eq!((s.arg_start, s.arg_end), (None, None));
    }

    #[test]
    fn a_truncated_or_foreign_line_is_refused() {
        assert_eq!(Stat::parse(b""), None);
        assert_eq!(Stat::parse(b"4242 (sh S 17 4240"), None);
        assert_eq!(Stat::parse(b"4242 (sh) S 17 4240 4240 0"), None);
        assert_eq!(Stat::parse(b"4242 (sh) S x 4240"), None);
    }

    #[test]
    fn this_process_and_a_zombie_child() {
        let me = Stat::of_self().unwrap();
        // SAFETY: getppid/getpgrp cannot fail.
        let (ppid, pgrp) = unsafe { (libc::getppid(), libc::getpgrp()) };
        assert_eq!((me.ppid, me.pgrp), (ppid, pgrp));
        assert!(me.is_alive());
        assert!(me.arg_start.unwrap() < me.arg_end.unwrap());
        assert_eq!(Stat::of(std::process::id() as i32).unwrap().ppid, ppid);

        // A child that has exited stays a zombie until it is waited for.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id() as i32;
        let mut polls = 0;
        while !Stat::of(pid).unwrap().is_zombie() {
            polls += 1;
            assert!(polls < 100_000, "`true` never became a zombie");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(Stat::of(pid).unwrap().ppid, std::process::id() as i32);
        child.wait().unwrap();
    }
}
