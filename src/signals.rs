//! Ctrl-C and SIGTERM: the first one stops the running command and ends the
//! session cleanly (what finished is kept); a second one kills langbench at
//! once. Long loops ask `interrupted()` between steps, a command being
//! waited for gets the interrupt forwarded (`forward_while`), and a command
//! that was interrupted exits 130 (`derived::finish`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// Set by SIGINT/SIGTERM: stop the current command, keep what finished.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// The first Ctrl-C stops the running command and ends the session cleanly;
/// a second one kills langbench at once (SA_RESETHAND).
pub(crate) fn install_interrupt_handler() {
    // SAFETY: the handler only stores to an atomic.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_signal as *const () as usize;
        sa.sa_flags = libc::SA_RESETHAND;
        libc::sigaction(libc::SIGINT, &sa, std::ptr::null_mut());
        libc::sigaction(libc::SIGTERM, &sa, std::ptr::null_mut());
    }
}

pub(crate) fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Set when a print found its reader gone (`langbench run | head`).
static OUTPUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// A closed stdout or stderr (the reader of a pipe exited: `run | head`)
/// ends langbench quietly, as it ends `cat`: `println!` panics on the
/// broken pipe (Rust ignores SIGPIPE), and this hook recognises that
/// panic, prints nothing and lets it unwind, so every guard on the way is
/// dropped (the results directory's lock, scratch directories, the running
/// command's agent); `main` then exits 141, as a shell reports a command
/// SIGPIPE ended ([`output_closed`]). SIGPIPE itself stays ignored:
/// langbench writes to pipes of its own (its commands' agents), where a
/// reader gone is an error to report, not a reason to die. Any other panic
/// goes to the hook there was.
pub fn quiet_on_closed_output() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        let printing = message.starts_with("failed printing to stdout")
            || message.starts_with("failed printing to stderr");
        if printing && message.contains(&std::io::Error::from_raw_os_error(libc::EPIPE).to_string())
        {
            OUTPUT_CLOSED.store(true, Ordering::SeqCst);
        } else {
            previous(info);
        }
    }));
}

/// Whether a print found its reader gone (see [`quiet_on_closed_output`]).
pub fn output_closed() -> bool {
    OUTPUT_CLOSED.load(Ordering::SeqCst)
}

/// Calls `wait` (waiting for a spawned command) while a watcher thread
/// forwards an interrupt to the command's agent as SIGTERM (the agent stops
/// its group); the watcher ends with `wait`.
pub(crate) fn forward_while<T>(agent: libc::pid_t, wait: impl FnOnce() -> T) -> T {
    // The watcher sleeps on a channel: it looks at the flag every 50 ms
    // (the signal handler can only store to an atomic), and wakes at once
    // when `wait` returns and the sender is dropped. A plain sleep loop
    // kept every run waiting up to 50 ms more for the join (issue #41).
    let (done, finished) = mpsc::channel::<()>();
    let watcher = std::thread::spawn(move || {
        loop {
            if interrupted() {
                // SAFETY: signalling our own agent child, still running.
                unsafe { libc::kill(agent, libc::SIGTERM) };
                break;
            }
            match finished.recv_timeout(Duration::from_millis(50)) {
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                _ => break,
            }
        }
    });
    let out = wait();
    drop(done);
    let _ = watcher.join();
    out
}
