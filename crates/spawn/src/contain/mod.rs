//! Kernel-enforced containment (issue #9): the measured command runs in its
//! own PID namespace (and, when isolated, mount and network namespaces),
//! behind a tiny init of ours.
//!
//! ```text
//! langbench ── agent (`__spawn`, outside) ── init (pid 1 inside) ── command (pid 2)
//! ```
//!
//! - The agent `unshare`s the namespaces and forks init. It relays init's
//!   event lines to langbench (translating the command's pid to the outer
//!   pid namespace), forwards stop requests to init, and is the backstop: if
//!   init does not report by the timeout plus a margin, it SIGKILLs init,
//!   and the kernel then kills every process of the namespace.
//! - init (pid 1 of the namespace) sets up the filesystem view, forks the
//!   command into its own process group, and does what the agent did before:
//!   `wait4` on the command itself (so its rusage — the table's figure — is
//!   exactly what `/usr/bin/time` reports), the timeout, the stop request.
//!   Being pid 1 it is the reaper of every orphan of the namespace; its own
//!   RUSAGE_CHILDREN at the end is the CPU time of the *whole tree* (every
//!   process of the namespace is reaped by it or by one of its descendants,
//!   including the ones the kernel kills when init exits: those are reaped by
//!   init in `zap_pid_ns_processes`, before the agent's `wait4`, so the
//!   agent's rusage of init covers them too). It samples the tree's resident
//!   memory from its own /proc (which lists only the namespace) every 50 ms,
//!   and enforces `--mem-kb` on that sum.
//! - Processes inside cannot signal init (the kernel drops signals to a
//!   namespace's init that it has no handler for: ours are blocked and taken
//!   with `sigtimedwait`, and init only obeys the ones whose `si_pid` is 0,
//!   i.e. that came from outside the namespace), cannot see the agent or
//!   langbench (the namespace's /proc), and die with init: when init exits
//!   the kernel SIGKILLs everything left in the namespace, whatever process
//!   group, session or parent it chose.
//!
//! Hand-written with libc rather than the nix crate: this is the agent's
//! post-fork code (async-signal-safe calls only, nothing allocated between
//! fork and exec), the rest of the agent is already plain libc, and
//! `mount_setattr` (recursive read-only in one call) is not in nix.
//!
//! Here is the agent's side (the namespaces, init forked); `view` builds
//! the filesystem init's command sees, `init` is init's loop and
//! aftermath, `relay` the agent's while init runs.
//!
//! Its face, to the rest of `spawn`: [`agent`] (the agent's side, called by
//! `agent.rs`), `REFUSED` (the error `Containment::refused` recognises) and
//! `view::loopback_up` (for the proxy); the rest is its inside.

mod disk;
mod init;
mod relay;
pub(crate) mod view;

use super::kit::{Args, EVENT_FD, PASS_FD, errno, event_fd, handled_signals, write_line};
use init::{close_from, hide_cmdline, init_main};
use relay::relay_events;
use view::cstr;

/// How the agent's error begins when the kernel refuses the namespaces.
pub(crate) const REFUSED: &str = "cannot create namespaces";

/// The agent's side: unshare, fork init, relay, backstop. Returns the
/// agent's exit code.
pub(crate) fn agent(args: Args) -> i32 {
    // SAFETY: libc calls with valid arguments; init's and the command's
    // sides of fork only use what is allowed there (see `init`).
    unsafe {
        let mut flags = libc::CLONE_NEWPID | libc::CLONE_NEWNS;
        if args.isolate {
            flags |= libc::CLONE_NEWIPC | libc::CLONE_NEWUTS;
            if !args.net {
                flags |= libc::CLONE_NEWNET;
            }
        }
        if args.isolate && !args.here {
            // Nothing langbench's parent left open passes on (fd 3 is the
            // event pipe; a work count's log socket is fd 4).
            close_from(EVENT_FD + 1, args.pass_fd.map(|_| PASS_FD));
        }
        if let Some(ns) = &args.netns {
            // A `prepare` step's namespace, made by langbench, where its
            // registry proxy listens: joined instead of a fresh one.
            let fd = libc::open(cstr(ns).as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
            if fd < 0 || libc::setns(fd, libc::CLONE_NEWNET) != 0 {
                write_line(&format!(
                    "error cannot join the network namespace {}: {}\n",
                    ns.display(),
                    std::io::Error::from_raw_os_error(errno())
                ));
                return 2;
            }
            libc::close(fd);
            flags &= !libc::CLONE_NEWNET;
        }
        let (uid, gid) = (libc::geteuid(), libc::getegid());
        if uid != 0 {
            // Without root, a user namespace (where we are root) grants the
            // right to create the others.
            flags |= libc::CLONE_NEWUSER;
        }
        if libc::unshare(flags) != 0 {
            write_line(&format!(
                "error {REFUSED} (try --no-sandbox): {}\n",
                std::io::Error::from_raw_os_error(errno())
            ));
            return 2;
        }
        if uid != 0 {
            let _ = std::fs::write("/proc/self/setgroups", "deny");
            let _ = std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1"));
            let _ = std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1"));
        }
        // The run's cgroup, opened before the namespaces change the view
        // of /sys; init writes itself into it.
        let cgroup_fd = match &args.cgroup_procs {
            Some(p) => {
                let fd = libc::open(cstr(p).as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                if fd < 0 {
                    write_line(&format!(
                        "error cannot open the run's cgroup {}: {}\n",
                        p.display(),
                        std::io::Error::from_raw_os_error(errno())
                    ));
                    return 2;
                }
                fd
            }
            None => -1,
        };
        let mut relay = [0i32; 2];
        if libc::pipe2(relay.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            write_line(&format!("error pipe2 failed: errno {}\n", errno()));
            return 2;
        }
        let set = handled_signals();
        let init = libc::fork();
        if init < 0 {
            write_line(&format!("error fork failed: errno {}\n", errno()));
            return 2;
        }
        if init == 0 {
            libc::close(relay[0]);
            libc::dup2(relay[1], event_fd());
            libc::close(relay[1]);
            // Dies (and with it the namespace) if the agent dies.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            libc::prctl(libc::PR_SET_DUMPABLE, 0);
            if cgroup_fd >= 0 {
                // "0": the writing process (init); everything it starts
                // is then in the run's cgroup.
                if libc::write(cgroup_fd, b"0\n".as_ptr().cast(), 2) != 2 {
                    write_line(&format!(
                        "error cannot join the run's cgroup: {}\n",
                        std::io::Error::from_raw_os_error(errno())
                    ));
                    libc::_exit(2);
                }
                libc::close(cgroup_fd);
            }
            hide_cmdline();
            libc::_exit(init_main(&args, &set));
        }
        libc::close(relay[1]);
        if cgroup_fd >= 0 {
            libc::close(cgroup_fd);
        }
        let code = relay_events(&args, init, relay[0], &set);
        libc::close(relay[0]);
        code
    }
}
