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
pub fn install_interrupt_handler() {
    // SAFETY: the handler only stores to an atomic.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_signal as *const () as usize;
        sa.sa_flags = libc::SA_RESETHAND;
        libc::sigaction(libc::SIGINT, &sa, std::ptr::null_mut());
        libc::sigaction(libc::SIGTERM, &sa, std::ptr::null_mut());
    }
}

pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Calls `wait` (waiting for a spawned command) while a watcher thread
/// forwards an interrupt to the command's agent as SIGTERM (the agent stops
/// its group); the watcher ends with `wait`.
pub fn forward_while<T>(agent: libc::pid_t, wait: impl FnOnce() -> T) -> T {
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
