//! The agent's side of a contained run while init runs: init's event
//! lines passed on to langbench (the command's pid translated to the outer
//! namespace), stop requests forwarded to init, and the backstop that
//! kills init when it overstays (then the agent sends the `done` line of a
//! run that escaped its supervision).

use std::time::Duration;

use super::super::event::Event;
use super::super::kit::{Args, micros, now_ns, send, write_line};
use super::super::outcome::{Bounds, Done, Exit, TreeUsage};

/// Waits up to `wait_ns` for a stop request (SIGTERM/INT/HUP from
/// langbench) and passes it to init as SIGTERM; then kills init if the
/// backstop has passed (once: `killed` remembers it).
unsafe fn relay_stop(
    set: &libc::sigset_t,
    init: i32,
    wait_ns: u128,
    backstop: Option<u128>,
    killed: &mut bool,
) {
    // SAFETY: sigtimedwait on our own blocked set, kill on our own child.
    unsafe {
        let ts = libc::timespec {
            tv_sec: (wait_ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (wait_ns % 1_000_000_000) as libc::c_long,
        };
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let sig = libc::sigtimedwait(set, &mut info, &ts);
        if sig == libc::SIGTERM || sig == libc::SIGINT || sig == libc::SIGHUP {
            libc::kill(init, libc::SIGTERM);
        }
        if let Some(b) = backstop
            && !*killed
            && now_ns() >= b
        {
            *killed = true;
            libc::kill(init, libc::SIGKILL);
        }
    }
}

/// Copies init's event lines to langbench, turning the command's pid inside
/// the namespace into its pid outside; forwards stop requests; kills init if
/// it overstays. Returns the agent's exit code.
pub(super) unsafe fn relay_events(args: &Args, init: i32, fd: i32, set: &libc::sigset_t) -> i32 {
    // SAFETY: plain syscalls on fds and pids we own.
    unsafe {
        let t0 = now_ns();
        // Init enforces the timeout itself; this is the backstop should it
        // be unable to (e.g. stuck in a mount).
        let backstop = (args.timeout_ms > 0)
            .then(|| t0 + (args.timeout_ms as u128 + args.grace_ms as u128 + 10_000) * 1_000_000);
        let mut line: Vec<u8> = Vec::with_capacity(512);
        let mut buf = [0u8; 512];
        let mut got_done = false;
        let mut killed = false;
        let mut reaped: Option<libc::rusage> = None;
        if args.here {
            loop {
                // langbench itself (`run_here`): nobody needs the pid before
                // the end, so sleep until init is gone (or a stop request, or
                // the backstop), then pass its lines on: one wake-up per run
                // instead of one per line. init's two lines fit in the pipe.
                let now = now_ns();
                let wait = match backstop {
                    Some(b) if !killed => b.saturating_sub(now),
                    _ => 1_000_000_000,
                }
                .clamp(1_000_000, 1_000_000_000);
                relay_stop(set, init, wait, backstop, &mut killed);
                let mut st = 0;
                let mut ru: libc::rusage = std::mem::zeroed();
                if libc::wait4(init, &mut st, libc::WNOHANG, &mut ru) == init {
                    reaped = Some(ru);
                    break;
                }
            }
        }
        loop {
            let mut pfd = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            let r = libc::poll(&mut pfd, 1, 100);
            if r > 0 {
                let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
                if n <= 0 {
                    break;
                }
                for &b in &buf[..n as usize] {
                    line.push(b);
                    if b == b'\n' {
                        let text = String::from_utf8_lossy(&line).into_owned();
                        if text.starts_with("pid ") {
                            let outer = outer_pid(init).unwrap_or(init);
                            write_line(&format!("pid {outer}\n"));
                        } else {
                            got_done |= text.starts_with("done ");
                            write_line(&text);
                        }
                        line.clear();
                    }
                }
            }
            relay_stop(set, init, 0, backstop, &mut killed);
        }
        let ru = reaped.unwrap_or_else(|| {
            let mut status = 0;
            let mut ru: libc::rusage = std::mem::zeroed();
            libc::wait4(init, &mut status, 0, &mut ru);
            ru
        });
        if !got_done {
            // init was killed before it could report: the command escaped
            // its supervision; the namespace is gone with init.
            send(&Event::Done(Done {
                exit: Exit::Signaled(libc::SIGKILL),
                wall: Duration::from_nanos((now_ns() - t0) as u64),
                user: Duration::ZERO,
                sys: Duration::ZERO,
                max_rss_kb: 0,
                timed_out: killed,
                stopped: false,
                leftovers: 0,
                tree: Some(TreeUsage {
                    user: micros(ru.ru_utime),
                    sys: micros(ru.ru_stime),
                    max_rss_kb: ru.ru_maxrss as u64,
                    max_single_rss_kb: 0,
                }),
                oom: false,
                escaped: true,
                forked_after: 0,
                bounds: Bounds::default(),
            }));
        }
        0
    }
}

/// The command's pid in langbench's namespace: init's only child.
fn outer_pid(init: i32) -> Option<i32> {
    let s = std::fs::read_to_string(format!("/proc/{init}/task/{init}/children")).ok()?;
    s.split_whitespace().next()?.parse().ok()
}
