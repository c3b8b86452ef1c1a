//! langbench's own WebSocket load client: one thread per client core, each
//! a mio event loop over its share of the connections.
//!
//! C connections each loop: binary `hello <n>`, await the echo and check its
//! type and bytes; text `hello <n+1>`, await and check; sleep D. D changes
//! per phase while the connections stay open. Latency is measured from the
//! send to the matching echo on the monotonic clock, into HdrHistograms with
//! microsecond resolution.
//!
//! Why not tokio + tokio-tungstenite (the previous client): a task, a timer
//! and a waker per echo, and a cleared 4 KiB buffer per read cost 6.7–7.5 µs
//! of user-space CPU per echo, and under saturation tokio's scheduling made
//! the percentiles describe the client (p99 1.6–1.9 s where the server's own
//! queueing was 250–300 ms). This client keeps per echo only what the
//! kernel makes necessary (one `write`, a share of one `read` and of one
//! `epoll_wait`), measured by `benches/ws-client-cpu.py`:
//! - no per-echo timers: all sleeps of a phase are equal, so sleeping
//!   connections wait in one FIFO per thread (ordered by when they began to
//!   sleep) and the thread's `epoll_wait` timeout is the front's due time;
//!   echo timeouts are a second FIFO (ordered by send time);
//! - no wake-ups or tasks: readiness comes in batches of up to 1024 events
//!   (mio, edge-triggered; a short read means the socket is drained, so no
//!   extra `read` returning EAGAIN);
//! - one 64 KiB read buffer per thread, never cleared; a connection keeps
//!   bytes only while a frame is incomplete;
//! - frames are built in place in a per-thread buffer (2-byte header, mask,
//!   masked `hello <n>`) and written with one `write`.
//!
//! mio rather than raw epoll: it is the crate tokio itself stands on
//! (well-kept, already in the tree) and costs nothing measurable over
//! `epoll_wait` (see the bench); io_uring would save syscalls but not the
//! kernel's loopback TCP work, which is the floor for every client.
//!
//! WebSocket framing is hand-written (RFC 6455, client side, ~80 lines):
//! a crate's message API allocates per message and hides when it reads,
//! which is exactly the cost this client removes. The handshake uses
//! tungstenite's key helpers and httparse.
//!
//! Fairness: connections are sent to in FIFO order of their due time, and
//! `epoll_wait` reports ready sockets in arrival order, so under saturation
//! every connection falls behind equally (nobody starves; the tests check
//! the spread of echoes per connection). How far behind is measured: each
//! send's lateness past its due time and each thread's CPU time; a thread
//! busy ≥ 90% of the window or sending ≥ 5 ms late at the median is
//! saturated, and the phase says so.
//!
//! Bounds: the server is contributed code and this client is langbench
//! itself (outside every cgroup), so everything it keeps from the network
//! is bounded per connection ([`MAX_MESSAGE`] for a frame or a message
//! reassembled, [`MAX_UNSENT`] for what the server does not read) and per
//! thread ([`MAX_HELD`]), and everything it waits for is bounded in time (a
//! handshake as a whole, opening every connection, and an interrupt seen
//! within a wait's slice): a connection past a bound closes, with its
//! reason counted (issue #59, rows 2 and 5).
//!
//! Its face: [`Client`] (`open`; `alive`, `handshake_failures`,
//! `handshake_samples`, `threads` and `stop` for `ws`; `set_delay`,
//! `start_window` and `end_window`, a [`Window`], for `drive`),
//! [`ClientOptions`], [`Target`] (`parse`), [`pin_thread`], [`in_netns`], and
//! what a remote report carries ([`buckets`], [`from_buckets`], [`stats_of`],
//! [`load_of`]); the rest is its inside.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Result;
use hdrhistogram::Histogram;
use mio::net::TcpStream;
use mio::{Events, Interest, Poll, Token};

mod frame;
mod handshake;
mod stats;
mod url;

use frame::*;
pub use handshake::HANDSHAKE_TIMEOUT;
use handshake::{finish_handshake, start_handshake};
pub use stats::Window;
use stats::histogram;
pub(crate) use stats::{buckets, from_buckets, load_of, stats_of};
pub use url::Target;

/// How the client runs.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    pub connections: usize,
    pub max_handshakes: usize,
    /// How long a connection waits for one echo before counting it lost.
    pub echo_timeout: Duration,
    /// One thread per CPU, pinned to it; empty: `threads` unpinned threads.
    pub cpus: Vec<usize>,
    pub threads: usize,
    /// The first phase's delay (spreads the first sends over it).
    pub first_delay: Duration,
    /// Test hook: busy-wait this long per echo, to saturate the client on
    /// purpose (zero in every real run).
    pub spin: Duration,
    /// How long opening every connection may take (`--startup-timeout`);
    /// each handshake is bounded by this and by [`HANDSHAKE_TIMEOUT`] as
    /// a whole. A connection not open by then counts as a failed
    /// handshake.
    pub open_timeout: Duration,
}

/// One thread's share of a window.
struct ThreadWindow {
    echoes: u64,
    errors: u64,
    samples: Vec<String>,
    latency: Histogram<u64>,
    late: Histogram<u64>,
    window: Duration,
    cpu: Duration,
    per_conn_min: u64,
    per_conn_max: u64,
    pings: u64,
    runq_wait: Duration,
}

/// What the threads and the controlling thread share: a handful of
/// atomics read once per loop, never per echo.
struct Control {
    delay_us: AtomicU64,
    /// Odd: measuring. Each change starts or ends a window.
    epoch: AtomicU64,
    stop: AtomicBool,
    alive: AtomicUsize,
    /// Connections whose handshake completed, never decremented: a
    /// connection a hostile server makes the client close at once (a
    /// message past its bound) was opened all the same and counts as lost.
    connected: AtomicUsize,
    handshake_failures: AtomicU64,
    handshake_samples: Mutex<Vec<String>>,
    /// Why connections were closed outside a measured window (a few):
    /// a window counts its own as errors, these are counted by the
    /// connections no longer alive.
    lost_samples: Mutex<Vec<String>>,
    opened: AtomicUsize,
    windows: Mutex<Vec<ThreadWindow>>,
}

/// The running client.
pub struct Client {
    control: Arc<Control>,
    threads: Vec<std::thread::JoinHandle<()>>,
    window_start: Option<(Instant, f64)>,
}

fn thread_cpu() -> Duration {
    // SAFETY: clock_gettime fills the struct we own.
    let ts = unsafe {
        let mut ts: libc::timespec = std::mem::zeroed();
        libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts);
        ts
    };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Moves the calling thread into the network namespace `ns` (an fd of
/// `/proc/PID/ns/net`): the sockets it creates from now on live there. Only
/// this thread moves (`setns` with `CLONE_NEWNET` is per thread); it needs
/// CAP_SYS_ADMIN (root).
fn enter_netns(ns: &std::os::fd::OwnedFd) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: setns on an fd we own, for the calling thread only.
    if unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Runs `f` on a thread that first enters `target`'s network namespace (if
/// it has one), e.g. to probe whether the server listens.
pub(crate) fn in_netns<T: Send>(
    target: &Target,
    f: impl FnOnce() -> T + Send,
) -> std::io::Result<T> {
    match &target.netns {
        None => Ok(f()),
        Some(ns) => std::thread::scope(|s| {
            s.spawn(|| {
                enter_netns(ns)?;
                Ok(f())
            })
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("probe thread panicked")))
        }),
    }
}

/// Pins the calling thread to `cpus`.
pub(crate) fn pin_thread(cpus: &[usize]) {
    // SAFETY: sched_setaffinity on the calling thread with a set we own.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            libc::CPU_SET(c, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

impl Client {
    /// Opens the connections (each thread its share, at most
    /// `max_handshakes` in flight overall) and starts the loops. Returns
    /// once every connection is open or has failed its handshake (by
    /// `open_timeout` at the latest), or at once on Ctrl-C or SIGTERM
    /// (the client is then stopping: its loops end as they start).
    pub fn open(target: &Target, o: &ClientOptions) -> Client {
        let deadline = Instant::now() + o.open_timeout;
        let control = Arc::new(Control {
            delay_us: AtomicU64::new(o.first_delay.as_micros() as u64),
            epoch: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            alive: AtomicUsize::new(0),
            connected: AtomicUsize::new(0),
            handshake_failures: AtomicU64::new(0),
            handshake_samples: Mutex::new(Vec::new()),
            lost_samples: Mutex::new(Vec::new()),
            opened: AtomicUsize::new(0),
            windows: Mutex::new(Vec::new()),
        });
        let nthreads = if o.cpus.is_empty() {
            o.threads.max(1)
        } else {
            o.cpus.len()
        }
        .min(o.connections.max(1));
        let mut threads = Vec::new();
        for t in 0..nthreads {
            // Connection ids t, t + nthreads, ...: thread t's share.
            let ids: Vec<usize> = (t..o.connections).step_by(nthreads).collect();
            let control = control.clone();
            let target = target.clone();
            let cpu = o.cpus.get(t).copied();
            let per_thread_handshakes = (o.max_handshakes / nthreads).max(1);
            let timeout = o.echo_timeout;
            let first = o.first_delay;
            let total = o.connections;
            let spin = o.spin;
            let open_timeout = o.open_timeout;
            threads.push(
                std::thread::Builder::new()
                    .name(format!("ws-client-{t}"))
                    .spawn(move || {
                        if let Some(c) = cpu {
                            pin_thread(&[c]);
                        }
                        let conns = match target.netns.as_deref().map(enter_netns) {
                            Some(Err(e)) => {
                                for _ in &ids {
                                    handshake_error(
                                        &control,
                                        format!("cannot enter the server's network namespace: {e}"),
                                    );
                                }
                                Vec::new()
                            }
                            _ => handshake_all(
                                &target,
                                &ids,
                                per_thread_handshakes,
                                &control,
                                (deadline, open_timeout),
                            ),
                        };
                        control.opened.fetch_add(ids.len(), Ordering::SeqCst);
                        // Start together: wait until every thread has opened.
                        while control.opened.load(Ordering::SeqCst) < total
                            && !control.stop.load(Ordering::SeqCst)
                        {
                            std::thread::sleep(Duration::from_millis(2));
                        }
                        if let Err(e) = Thread::new(conns, &control, timeout, first, total)
                            .and_then(|mut th| {
                                th.spin = spin;
                                th.run()
                            })
                        {
                            eprintln!(
                                "ws client thread {t}: {}",
                                langbench_document::inert::text(&format!("{e:#}"))
                            );
                        }
                    })
                    .expect("spawn a client thread"),
            );
        }
        while control.opened.load(Ordering::SeqCst) < o.connections {
            // SIGTERM or Ctrl-C while connecting: every thread stops
            // opening (within a wait's slice) and its loop ends.
            if crate::signals::interrupted() {
                control.stop.store(true, Ordering::SeqCst);
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Client {
            control,
            threads,
            window_start: None,
        }
    }

    pub fn set_delay(&self, d: Duration) {
        self.control
            .delay_us
            .store(d.as_micros() as u64, Ordering::SeqCst);
    }

    pub(crate) fn alive(&self) -> usize {
        self.control.alive.load(Ordering::SeqCst)
    }

    /// Connections whose handshake completed, alive now or not.
    pub(crate) fn connected(&self) -> usize {
        self.control.connected.load(Ordering::SeqCst)
    }

    pub(crate) fn handshake_failures(&self) -> u64 {
        self.control.handshake_failures.load(Ordering::SeqCst)
    }

    pub(crate) fn handshake_samples(&self) -> Vec<String> {
        self.control
            .handshake_samples
            .lock()
            .map(|s| s.clone())
            .unwrap_or_default()
    }

    /// Why connections were lost outside the measured windows (a few
    /// reasons: a server closing them during a warm-up, or the client
    /// closing a connection past one of its bounds).
    pub(crate) fn lost_samples(&self) -> Vec<String> {
        self.control
            .lost_samples
            .lock()
            .map(|s| s.clone())
            .unwrap_or_default()
    }

    pub(crate) fn threads(&self) -> usize {
        self.threads.len()
    }

    /// Starts a measured window.
    pub fn start_window(&mut self) {
        if let Ok(mut w) = self.control.windows.lock() {
            w.clear();
        }
        self.window_start = Some((Instant::now(), crate::ws_sample::self_cpu_s()));
        let e = self.control.epoch.load(Ordering::SeqCst);
        if e.is_multiple_of(2) {
            self.control.epoch.store(e + 1, Ordering::SeqCst);
        }
    }

    /// Ends the window and returns what it saw (each thread notices within
    /// 10 ms and hands in its share).
    pub fn end_window(&mut self) -> Window {
        let e = self.control.epoch.load(Ordering::SeqCst);
        if e % 2 == 1 {
            self.control.epoch.store(e + 1, Ordering::SeqCst);
        }
        let c0 = self
            .window_start
            .take()
            .map_or_else(crate::ws_sample::self_cpu_s, |(_, c)| c);
        let wait = Instant::now();
        let parts: Vec<ThreadWindow> = loop {
            let done = self
                .control
                .windows
                .lock()
                .map(|w| w.len() >= self.threads.len())
                .unwrap_or(true);
            let finished = self.threads.iter().all(|t| t.is_finished());
            if done || finished || wait.elapsed() > Duration::from_secs(5) {
                break self
                    .control
                    .windows
                    .lock()
                    .map(|mut w| std::mem::take(&mut *w))
                    .unwrap_or_default();
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        let client_cpu_s = crate::ws_sample::self_cpu_s() - c0;
        let mut latency = histogram();
        let mut late = histogram();
        let (mut echoes, mut errors, mut rps, mut pings) = (0, 0, 0.0, 0);
        let mut samples: Vec<String> = Vec::new();
        let mut busiest: f64 = 0.0;
        let mut waited: f64 = 0.0;
        let mut demand: f64 = 0.0;
        let (mut pmin, mut pmax) = (u64::MAX, 0);
        for p in &parts {
            let _ = latency.add(&p.latency);
            let _ = late.add(&p.late);
            echoes += p.echoes;
            errors += p.errors;
            pings += p.pings;
            let w = p.window.as_secs_f64().max(1e-9);
            rps += p.echoes as f64 / w;
            busiest = busiest.max(p.cpu.as_secs_f64() / w);
            waited = waited.max(p.runq_wait.as_secs_f64() / w);
            demand = demand.max((p.cpu + p.runq_wait).as_secs_f64() / w);
            pmin = pmin.min(p.per_conn_min);
            pmax = pmax.max(p.per_conn_max);
            for s in &p.samples {
                if samples.len() < 5 && !samples.contains(s) {
                    samples.push(s.clone());
                }
            }
        }
        if parts.is_empty() {
            pmin = 0;
        }
        let stats = stats_of(&latency, echoes, rps, errors, samples, self.alive());
        let load = load_of(
            &late,
            parts.len(),
            busiest,
            demand,
            waited,
            client_cpu_s,
            echoes,
            (pmin, pmax),
            pings,
        );
        Window {
            stats,
            load,
            latency,
            late,
            client_cpu_s,
        }
    }

    /// Closes every connection politely and joins the threads.
    pub fn stop(self) {
        self.control.stop.store(true, Ordering::SeqCst);
        for t in self.threads {
            let _ = t.join();
        }
    }
}

fn handshake_error(control: &Control, msg: String) {
    control.handshake_failures.fetch_add(1, Ordering::Relaxed);
    sample(&control.handshake_samples, msg);
}

/// Keeps `msg` among a few distinct samples.
fn sample(samples: &Mutex<Vec<String>>, msg: String) {
    if let Ok(mut s) = samples.lock()
        && s.len() < 3
        && !s.contains(&msg)
    {
        s.push(msg);
    }
}

/// Opens connections `ids` in batches of `batch`: connect and send every
/// request of the batch, then read the answers (on this thread, before its
/// loop starts; each handshake within [`HANDSHAKE_TIMEOUT`] and the
/// `open` deadline, looking at `control.stop` between waits). The
/// connections not begun by the deadline fail without a try. Returns the
/// open ones with any bytes that arrived after the response headers.
fn handshake_all(
    target: &Target,
    ids: &[usize],
    batch: usize,
    control: &Control,
    (deadline, open_timeout): (Instant, Duration),
) -> Vec<(usize, std::net::TcpStream, Vec<u8>)> {
    let stop = || control.stop.load(Ordering::Relaxed);
    let mut open = Vec::with_capacity(ids.len());
    for (k, chunk) in ids.chunks(batch).enumerate() {
        if stop() {
            break;
        }
        if Instant::now() >= deadline {
            let late = format!(
                "not opened: the {:.0} s for opening every connection had passed",
                open_timeout.as_secs_f64()
            );
            for _ in k * batch..ids.len() {
                handshake_error(control, late.clone());
            }
            break;
        }
        // A failure while stopping (Ctrl-C) is no fault of the server's.
        let failed = |e: anyhow::Error, by: Instant| {
            if stop() {
                return;
            }
            let mut msg = format!("handshake: {e:#}");
            if Instant::now() >= by {
                msg += &format!(
                    " ({:.0} s for a handshake, {:.0} s for opening every connection)",
                    HANDSHAKE_TIMEOUT.as_secs_f64(),
                    open_timeout.as_secs_f64()
                );
            }
            handshake_error(control, msg)
        };
        let mut pending = Vec::with_capacity(chunk.len());
        for &id in chunk {
            let by = deadline.min(Instant::now() + HANDSHAKE_TIMEOUT);
            match start_handshake(target, by, &stop) {
                Ok((s, accept)) => pending.push((id, s, accept, by)),
                Err(e) => failed(e, by),
            }
        }
        for (id, s, accept, by) in pending {
            match finish_handshake(&s, &accept, by, &stop) {
                Ok(rest) => {
                    control.alive.fetch_add(1, Ordering::SeqCst);
                    control.connected.fetch_add(1, Ordering::SeqCst);
                    open.push((id, s, rest))
                }
                Err(e) => failed(e, by),
            }
        }
    }
    open
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    Sleeping,
    /// Waiting for the echo of message `n` (odd: binary, even: text).
    Awaiting,
    Dead,
}

struct Conn {
    sock: TcpStream,
    state: State,
    /// The number of the message in flight (or last sent).
    n: u64,
    sent_at: Instant,
    /// Incoming bytes of an incomplete frame (usually empty: no allocation).
    partial: Vec<u8>,
    /// Outgoing bytes the socket did not take (usually empty).
    unsent: Vec<u8>,
    /// A fragmented message being reassembled: (opcode, payload).
    frag: Option<(u8, Vec<u8>)>,
    echoes_in_window: u64,
}

impl Conn {
    /// The bytes its buffers hold (allocated).
    fn held(&self) -> usize {
        self.partial.capacity()
            + self.unsent.capacity()
            + self.frag.as_ref().map_or(0, |(_, m)| m.capacity())
    }
}

const READ_BUF: usize = 64 * 1024;

/// The most a connection keeps unsent, its socket full (the server does
/// not read what the client sends): an honest server leaves one frame and
/// a pong or two. Past it the connection closes with an error: pongs to a
/// server that sent pings and never read grew langbench to 1.5 GB (issue
/// #59, row 2).
const MAX_UNSENT: usize = 64 * 1024;

/// The most one thread's connections hold together (incomplete frames,
/// messages being reassembled, unsent bytes): each connection is bounded
/// (a frame and a message by [`MAX_MESSAGE`], what it sends by
/// [`MAX_UNSENT`]), but 10,000 connections at their bounds would still be
/// gigabytes. Honest servers leave a few hundred bytes per connection
/// (under 4 MB at 10,000); past this the connection that grew closes.
const MAX_HELD: usize = 16 << 20;
struct Local {
    measuring: bool,
    echoes: u64,
    errors: u64,
    samples: Vec<String>,
    latency: Histogram<u64>,
    late: Histogram<u64>,
    t0: Instant,
    cpu0: Duration,
    wait0: Duration,
    pings: u64,
}

impl Local {
    fn error(&mut self, msg: String) {
        if !self.measuring {
            return;
        }
        self.errors += 1;
        if self.samples.len() < 5 && !self.samples.contains(&msg) {
            self.samples.push(msg);
        }
    }
}

struct Thread<'a> {
    poll: Poll,
    conns: Vec<Conn>,
    /// Sleeping connections: (index, when the sleep began), in that order.
    sleepers: VecDeque<(u32, Instant)>,
    /// Echoes in flight: (index, message number, sent at), in send order.
    inflight: VecDeque<(u32, u64, Instant)>,
    control: &'a Control,
    timeout: Duration,
    local: Local,
    rng: u32,
    epoch: u64,
    spin: Duration,
    /// What the connections' buffers hold together ([`Conn::held`]),
    /// against [`MAX_HELD`].
    held: usize,
}

impl<'a> Thread<'a> {
    fn new(
        opened: Vec<(usize, std::net::TcpStream, Vec<u8>)>,
        control: &'a Control,
        timeout: Duration,
        first: Duration,
        total: usize,
    ) -> Result<Thread<'a>> {
        let poll = Poll::new()?;
        let now = Instant::now();
        let held = opened.iter().map(|(_, _, rest)| rest.capacity()).sum();
        let mut conns = Vec::with_capacity(opened.len());
        let mut sleepers = VecDeque::with_capacity(opened.len());
        for (i, (id, s, rest)) in opened.into_iter().enumerate() {
            s.set_nonblocking(true)?;
            let mut sock = TcpStream::from_std(s);
            poll.registry()
                .register(&mut sock, Token(i), Interest::READABLE)?;
            conns.push(Conn {
                sock,
                state: State::Sleeping,
                n: 0,
                sent_at: now,
                partial: rest,
                unsent: Vec::new(),
                frag: None,
                echoes_in_window: 0,
            });
            // Spread the first sends over the first delay, in id order (so
            // the FIFO stays ordered): sleep began (id/total)·D before now.
            let back = first.mul_f64(1.0 - id as f64 / total.max(1) as f64);
            sleepers.push_back((i as u32, now.checked_sub(back).unwrap_or(now)));
        }
        Ok(Thread {
            poll,
            conns,
            sleepers,
            inflight: VecDeque::new(),
            control,
            timeout,
            local: Local {
                measuring: false,
                echoes: 0,
                errors: 0,
                samples: Vec::new(),
                latency: histogram(),
                late: histogram(),
                t0: now,
                cpu0: Duration::ZERO,
                wait0: Duration::ZERO,
                pings: 0,
            },
            rng: 0x9E37_79B9 ^ (std::process::id().wrapping_mul(2_654_435_761)),
            epoch: 0,
            spin: Duration::ZERO,
            held,
        })
    }

    fn mask(&mut self) -> [u8; 4] {
        // xorshift32: masks need not be secret for a benchmark, only vary.
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.rng = x;
        x.to_ne_bytes()
    }

    /// Notices window changes (once per loop, not per echo).
    fn check_epoch(&mut self) {
        let e = self.control.epoch.load(Ordering::Acquire);
        if e == self.epoch {
            return;
        }
        if self.local.measuring {
            self.hand_in();
        }
        self.epoch = e;
        if e % 2 == 1 {
            let l = &mut self.local;
            l.measuring = true;
            l.echoes = 0;
            l.errors = 0;
            l.samples.clear();
            l.latency.reset();
            l.late.reset();
            l.pings = 0;
            l.t0 = Instant::now();
            l.cpu0 = thread_cpu();
            l.wait0 = crate::ws_sample::thread_runq_wait();
            for c in &mut self.conns {
                c.echoes_in_window = 0;
            }
        }
    }

    fn hand_in(&mut self) {
        let l = &mut self.local;
        l.measuring = false;
        let live = self.conns.iter().filter(|c| c.state != State::Dead);
        let (mut lo, mut hi) = (u64::MAX, 0);
        for c in live {
            lo = lo.min(c.echoes_in_window);
            hi = hi.max(c.echoes_in_window);
        }
        let w = ThreadWindow {
            echoes: l.echoes,
            errors: l.errors,
            samples: std::mem::take(&mut l.samples),
            latency: l.latency.clone(),
            late: l.late.clone(),
            window: l.t0.elapsed(),
            cpu: thread_cpu().saturating_sub(l.cpu0),
            per_conn_min: if lo == u64::MAX { 0 } else { lo },
            per_conn_max: hi,
            pings: l.pings,
            runq_wait: crate::ws_sample::thread_runq_wait().saturating_sub(l.wait0),
        };
        if let Ok(mut ws) = self.control.windows.lock() {
            ws.push(w);
        }
    }

    fn run(&mut self) -> Result<()> {
        let mut events = Events::with_capacity(1024);
        let mut buf = vec![0u8; READ_BUF];
        loop {
            self.check_epoch();
            if self.control.stop.load(Ordering::Relaxed) {
                break;
            }
            let delay = Duration::from_micros(self.control.delay_us.load(Ordering::Relaxed));
            let now = Instant::now();
            let wait = match self.sleepers.front() {
                Some(&(_, since)) => (since + delay).saturating_duration_since(now),
                None => Duration::from_millis(10),
            }
            .min(Duration::from_millis(10));
            match self.poll.poll(&mut events, Some(wait)) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
            for ev in events.iter() {
                let i = ev.token().0;
                let before = self.conns[i].held();
                if ev.is_writable() {
                    self.flush(i);
                }
                if ev.is_readable() || ev.is_read_closed() || ev.is_error() {
                    self.readable(i, &mut buf);
                }
                self.account(i, before);
            }
            // Due sleepers, in order; then lost echoes, in order.
            let now = Instant::now();
            while let Some(&(i, since)) = self.sleepers.front() {
                let due = since + delay;
                if due > now {
                    break;
                }
                self.sleepers.pop_front();
                let i = i as usize;
                if self.conns[i].state != State::Sleeping {
                    continue;
                }
                if self.local.measuring {
                    let late = now.saturating_duration_since(due).as_micros() as u64;
                    let _ = self.local.late.record(late.clamp(0, 59_999_999) + 1);
                }
                let before = self.conns[i].held();
                self.send_next(i, now);
                self.account(i, before);
            }
            self.lost_echoes(now);
        }
        self.close_all(&mut events, &mut buf);
        Ok(())
    }

    /// Echoes not back within the timeout count as lost, in send order.
    /// Echoes that came back leave the queue as they reach its front, so
    /// it holds about one entry per connection, not every echo sent
    /// within the timeout.
    fn lost_echoes(&mut self, now: Instant) {
        while let Some(&(i, n, at)) = self.inflight.front() {
            let i = i as usize;
            let c = &self.conns[i];
            let waiting = c.state == State::Awaiting && c.n == n;
            if waiting && now.saturating_duration_since(at) < self.timeout {
                break;
            }
            self.inflight.pop_front();
            if waiting {
                let msg = format!("no echo within {:.1} s", self.timeout.as_secs_f64());
                self.local.error(msg);
                let before = self.conns[i].held();
                self.after_echo(i, now);
                self.account(i, before);
            }
        }
    }

    /// After an operation on connection `i`, which held `before` bytes when
    /// it began: the thread's total follows, and past [`MAX_HELD`] the
    /// connection closes.
    fn account(&mut self, i: usize, before: usize) {
        let after = self.conns[i].held();
        self.held = (self.held + after).saturating_sub(before);
        if self.held > MAX_HELD && self.conns[i].state != State::Dead {
            self.held = self.held.saturating_sub(after);
            self.kill(
                i,
                format!(
                    "the client's buffers on one thread passed {} MiB, the connection closed",
                    MAX_HELD >> 20
                ),
            );
        }
    }

    /// Sends the next message of connection `i` (binary for odd numbers).
    fn send_next(&mut self, i: usize, now: Instant) {
        let mask = self.mask();
        let c = &mut self.conns[i];
        c.n += 1;
        let mut text = [0u8; 32];
        let len = hello(&mut text, c.n);
        let op = if c.n % 2 == 1 { OP_BIN } else { OP_TEXT };
        let mut frame = [0u8; 64];
        let flen = build_frame(&mut frame, op, &text[..len], mask);
        c.state = State::Awaiting;
        c.sent_at = now;
        self.inflight.push_back((i as u32, c.n, now));
        self.write(i, &frame[..flen]);
    }

    /// An echo arrived (or was lost): binary → send the text message; text
    /// → sleep.
    fn after_echo(&mut self, i: usize, now: Instant) {
        if self.conns[i].n % 2 == 1 {
            self.send_next(i, now);
        } else {
            self.conns[i].state = State::Sleeping;
            self.sleepers.push_back((i as u32, now));
        }
    }

    fn write(&mut self, i: usize, bytes: &[u8]) {
        let c = &mut self.conns[i];
        if c.state == State::Dead {
            return;
        }
        if !c.unsent.is_empty() {
            self.defer(i, bytes);
            return;
        }
        match c.sock.write(bytes) {
            Ok(n) if n == bytes.len() => {}
            Ok(n) => self.defer(i, &bytes[n..]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => self.defer(i, bytes),
            Err(e) => self.kill(i, format!("send: {e}")),
        }
    }

    /// Keeps what the socket did not take, up to [`MAX_UNSENT`]; past it
    /// the connection closes.
    fn defer(&mut self, i: usize, rest: &[u8]) {
        if self.conns[i].unsent.len() + rest.len() > MAX_UNSENT {
            self.kill(
                i,
                format!(
                    "the server does not read: over {} KiB unsent, the connection closed",
                    MAX_UNSENT / 1024
                ),
            );
            return;
        }
        let c = &mut self.conns[i];
        let first = c.unsent.is_empty();
        c.unsent.extend_from_slice(rest);
        if first {
            let _ = self.poll.registry().reregister(
                &mut c.sock,
                Token(i),
                Interest::READABLE | Interest::WRITABLE,
            );
        }
    }

    fn flush(&mut self, i: usize) {
        let c = &mut self.conns[i];
        if c.unsent.is_empty() || c.state == State::Dead {
            return;
        }
        match c.sock.write(&c.unsent) {
            Ok(n) => {
                c.unsent.drain(..n);
                if c.unsent.is_empty() {
                    let _ =
                        self.poll
                            .registry()
                            .reregister(&mut c.sock, Token(i), Interest::READABLE);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => self.kill(i, format!("send: {e}")),
        }
    }

    fn kill(&mut self, i: usize, why: String) {
        let c = &mut self.conns[i];
        if c.state == State::Dead {
            return;
        }
        c.state = State::Dead;
        let _ = self.poll.registry().deregister(&mut c.sock);
        let _ = c.sock.shutdown(std::net::Shutdown::Both);
        c.partial = Vec::new();
        c.unsent = Vec::new();
        c.frag = None;
        self.control.alive.fetch_sub(1, Ordering::SeqCst);
        if self.local.measuring {
            self.local.error(why);
        } else if !why.is_empty() {
            sample(&self.control.lost_samples, why);
        }
    }

    /// Reads until the socket is drained (a short read), handling every
    /// complete frame.
    fn readable(&mut self, i: usize, buf: &mut [u8]) {
        loop {
            if self.conns[i].state == State::Dead {
                return;
            }
            let n = match self.conns[i].sock.read(buf) {
                Ok(0) => {
                    self.kill(i, "connection closed".into());
                    return;
                }
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.kill(i, format!("read: {e}"));
                    return;
                }
            };
            let now = Instant::now();
            if self.conns[i].partial.is_empty() {
                let used = self.frames(i, &buf[..n], now);
                if used < n && self.conns[i].state != State::Dead {
                    self.conns[i].partial.extend_from_slice(&buf[used..n]);
                }
            } else {
                let mut p = std::mem::take(&mut self.conns[i].partial);
                p.extend_from_slice(&buf[..n]);
                let used = self.frames(i, &p, now);
                if self.conns[i].state != State::Dead {
                    p.drain(..used);
                    if p.is_empty() && p.capacity() > 4096 {
                        // A large frame came whole: give its room back.
                        p = Vec::new();
                    }
                    self.conns[i].partial = p;
                }
            }
            if n < buf.len() {
                return;
            }
        }
    }

    /// Handles the complete frames at the front of `data`; returns the
    /// bytes used.
    fn frames(&mut self, i: usize, data: &[u8], now: Instant) -> usize {
        let mut at = 0;
        while self.conns[i].state != State::Dead {
            let (fin, op, range, len) = match parse_frame(&data[at..]) {
                Ok(Some(f)) => f,
                Ok(None) => break,
                Err(e) => {
                    self.kill(i, e);
                    break;
                }
            };
            let payload = &data[at + range.start..at + range.end];
            at += len;
            match op {
                OP_PING => {
                    self.local.pings += 1;
                    let mask = self.mask();
                    // A control frame's payload is at most 125 bytes
                    // (parse_frame refuses more).
                    let mut frame = [0u8; 6 + 125];
                    frame[0] = 0x80 | OP_PONG;
                    frame[1] = 0x80 | payload.len() as u8;
                    frame[2..6].copy_from_slice(&mask);
                    for (k, b) in payload.iter().enumerate() {
                        frame[6 + k] = b ^ mask[k & 3];
                    }
                    self.write(i, &frame[..6 + payload.len()]);
                }
                OP_PONG => {}
                OP_CLOSE => {
                    let code =
                        (payload.len() >= 2).then(|| u16::from_be_bytes([payload[0], payload[1]]));
                    // The server's words, made inert where they enter:
                    // they reach the terminal, the records and the
                    // ws-client report (issue #59, row 11).
                    let reason = langbench_document::inert::text(&String::from_utf8_lossy(
                        payload.get(2..).unwrap_or_default(),
                    ));
                    let msg = match code {
                        Some(c) if reason.is_empty() => {
                            format!("server closed the connection ({c})")
                        }
                        Some(c) => format!("server closed the connection ({c} {reason})"),
                        None => "server closed the connection".into(),
                    };
                    self.kill(i, msg);
                }
                OP_TEXT | OP_BIN if fin => self.message(i, op, payload, now),
                OP_TEXT | OP_BIN => self.conns[i].frag = Some((op, payload.to_vec())),
                OP_CONT => match self.conns[i].frag.take() {
                    Some((_, whole)) if whole.len() + payload.len() > MAX_MESSAGE => {
                        self.kill(i, too_long((whole.len() + payload.len()) as u64))
                    }
                    Some((fop, mut whole)) => {
                        whole.extend_from_slice(payload);
                        if fin {
                            self.message(i, fop, &whole, now);
                        } else {
                            self.conns[i].frag = Some((fop, whole));
                        }
                    }
                    None => self.kill(i, "continuation frame without a start".into()),
                },
                other => self.kill(i, format!("unknown opcode {other}")),
            }
        }
        at
    }

    /// A complete data message: check it against the message in flight.
    fn message(&mut self, i: usize, op: u8, payload: &[u8], now: Instant) {
        let c = &self.conns[i];
        if c.state != State::Awaiting {
            // A late echo after a timeout, while sleeping.
            if is_stale(payload, c.n + 1) {
                return;
            }
            self.local.error("echo nobody asked for".into());
            return;
        }
        if is_stale(payload, c.n) {
            return;
        }
        let mut want = [0u8; 32];
        let len = hello(&mut want, c.n);
        let sent_binary = c.n % 2 == 1;
        let latency = now.saturating_duration_since(c.sent_at);
        let err = match (sent_binary, op) {
            (true, OP_TEXT) => Some("binary message echoed as text"),
            (false, OP_BIN) => Some("text message echoed as binary"),
            _ if payload != &want[..len] => Some("echo differs from what was sent"),
            _ => None,
        };
        match err {
            Some(e) => self.local.error(e.into()),
            None => {
                if self.local.measuring {
                    self.local.echoes += 1;
                    self.conns[i].echoes_in_window += 1;
                    let us = (latency.as_micros() as u64).clamp(1, 60_000_000);
                    let _ = self.local.latency.record(us);
                }
            }
        }
        if !self.spin.is_zero() {
            let t = Instant::now();
            while t.elapsed() < self.spin {
                std::hint::spin_loop();
            }
        }
        self.after_echo(i, now);
    }

    /// Sends a close frame on every live connection and waits (≤ 1 s) for
    /// the servers to close their side.
    fn close_all(&mut self, events: &mut Events, buf: &mut [u8]) {
        for i in 0..self.conns.len() {
            if self.conns[i].state != State::Dead {
                let mask = self.mask();
                let mut f = [0u8; 64];
                let n = build_frame(&mut f, OP_CLOSE, &1000u16.to_be_bytes(), mask);
                self.write(i, &f[..n]);
                self.conns[i].state = State::Sleeping;
            }
        }
        self.local.measuring = false;
        let until = Instant::now() + Duration::from_secs(1);
        while self.control.alive.load(Ordering::SeqCst) > 0 && Instant::now() < until {
            if self.conns.iter().all(|c| c.state == State::Dead) {
                break;
            }
            let _ = self.poll.poll(events, Some(Duration::from_millis(20)));
            for ev in events.iter() {
                let i = ev.token().0;
                // Discard everything until the close reply or EOF (a
                // server that keeps sending is cut off at the deadline).
                loop {
                    match self.conns[i].sock.read(buf) {
                        Ok(0) => {
                            self.kill(i, String::new());
                            break;
                        }
                        Ok(_) if Instant::now() < until => continue,
                        Ok(_) => break,
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                        Err(_) => {
                            self.kill(i, String::new());
                            break;
                        }
                    }
                }
            }
        }
        for i in 0..self.conns.len() {
            self.kill(i, String::new());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn late_echoes_are_recognised_as_stale() {
        assert!(is_stale(b"hello 3", 5));
        assert!(is_stale(b"hello 4", 5));
        assert!(!is_stale(b"hello 5", 5));
        assert!(!is_stale(b"5 olleh", 5));
        assert!(!is_stale(b"hello x", 5));
    }

    #[test]
    fn frames_are_built_and_parsed() {
        let mut t = [0u8; 32];
        let n = hello(&mut t, 1234567);
        assert_eq!(&t[..n], b"hello 1234567");
        let mut f = [0u8; 64];
        let len = build_frame(&mut f, OP_BIN, &t[..n], [1, 2, 3, 4]);
        assert_eq!(f[0], 0x82);
        assert_eq!(f[1], 0x80 | 13);
        let unmasked: Vec<u8> = f[6..len]
            .iter()
            .enumerate()
            .map(|(i, b)| b ^ [1, 2, 3, 4][i & 3])
            .collect();
        assert_eq!(unmasked, b"hello 1234567");
        // A server frame: unmasked, 16-bit length.
        let mut s = vec![0x81, 126, 0, 200];
        s.extend(std::iter::repeat_n(b'x', 200));
        let (fin, op, r, l) = parse_frame(&s).unwrap().unwrap();
        assert!(fin && op == OP_TEXT && r == (4..204) && l == 204);
        assert_eq!(parse_frame(&s[..100]).unwrap(), None);
        assert!(parse_frame(&[0x82, 0x81, 0, 0, 0, 0, 0]).is_err());
    }

    /// A frame over the message bound is refused from its header alone
    /// (before its payload is kept), 64-bit lengths included, and so is a
    /// control frame over 125 bytes.
    #[test]
    fn frames_over_the_bounds_are_refused_from_their_header() {
        let mut f = vec![0x82, 127];
        f.extend_from_slice(&(1u64 << 40).to_be_bytes());
        let e = parse_frame(&f).unwrap_err();
        assert!(
            e.contains("over 64 KiB") && e.contains("1099511627776"),
            "{e}"
        );
        let mut f = vec![0x02, 127];
        f.extend_from_slice(&((MAX_MESSAGE + 1) as u64).to_be_bytes());
        assert!(parse_frame(&f).is_err());
        // At the bound: waits for the rest.
        let mut f = vec![0x02, 127];
        f.extend_from_slice(&(MAX_MESSAGE as u64).to_be_bytes());
        assert_eq!(parse_frame(&f).unwrap(), None);
        let mut ping = vec![0x89, 126, 0, 126];
        ping.extend(std::iter::repeat_n(b'p', 126));
        assert!(parse_frame(&ping).unwrap_err().contains("control frame"));
    }

    #[test]
    fn targets_parse() {
        let t = Target::parse("ws://127.0.0.1:9001/echo").unwrap();
        assert_eq!(t.addr.to_string(), "127.0.0.1:9001");
        assert_eq!(t.path, "/echo");
        assert_eq!(Target::parse("ws://[::1]:80").unwrap().path, "/");
        assert!(Target::parse("wss://x:1/").is_err());
    }
}
