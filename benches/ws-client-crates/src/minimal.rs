//! The reference: the smallest client that does langbench's loop and
//! checks. One thread, raw level-triggered epoll (libc), blocking
//! handshakes, a 64 KiB read buffer, one FIFO of sleepers. It exists to
//! put a number on the floor (kernel loopback TCP + the unavoidable work),
//! side by side with langbench's client in the same run.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

struct Conn {
    s: TcpStream,
    n: u64,
    sent: Instant,
    waiting: bool,
    buf: Vec<u8>,
}

fn hello(n: u64) -> Vec<u8> {
    format!("hello {n}").into_bytes()
}

fn send(c: &mut Conn, now: Instant) {
    c.n += 1;
    let p = hello(c.n);
    let mut f = Vec::with_capacity(6 + p.len());
    f.push(if c.n % 2 == 1 { 0x82 } else { 0x81 });
    f.push(0x80 | p.len() as u8);
    let m = [0x12, 0x34, 0x56, 0x78];
    f.extend_from_slice(&m);
    f.extend(p.iter().enumerate().map(|(i, b)| b ^ m[i & 3]));
    c.s.write_all(&f).expect("write");
    c.sent = now;
    c.waiting = true;
}

fn handshake(addr: &str) -> TcpStream {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_nodelay(true).unwrap();
    write!(
        s,
        "GET /ws HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    .unwrap();
    let mut got = Vec::new();
    let mut b = [0u8; 512];
    while !got.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = s.read(&mut b).expect("read");
        assert!(n > 0, "closed in handshake");
        got.extend_from_slice(&b[..n]);
    }
    assert!(got.starts_with(b"HTTP/1.1 101"), "no 101");
    s.set_nonblocking(true).unwrap();
    s
}

pub struct Outcome {
    pub echoes: u64,
    pub errors: u64,
    pub window_s: f64,
    pub cpu_s: f64,
    pub hist: Histogram<u64>,
}

pub fn run(addr: &str, conns: usize, delay: Duration, warmup: Duration, secs: f64, cpu_s: fn() -> f64, mark_user: fn(bool)) -> Outcome {
    let mut cs: Vec<Conn> = (0..conns)
        .map(|_| Conn { s: handshake(addr), n: 0, sent: Instant::now(), waiting: false, buf: Vec::new() })
        .collect();
    // SAFETY: plain epoll calls on descriptors we own.
    let ep = unsafe { libc::epoll_create1(0) };
    for (i, c) in cs.iter().enumerate() {
        let mut ev = libc::epoll_event { events: libc::EPOLLIN as u32, u64: i as u64 };
        unsafe { libc::epoll_ctl(ep, libc::EPOLL_CTL_ADD, c.s.as_raw_fd(), &mut ev) };
    }
    let start = Instant::now();
    let mut sleepers: VecDeque<(usize, Instant)> =
        (0..conns).map(|i| (i, start - delay + delay.mul_f64(i as f64 / conns as f64))).collect();
    let mut evs = vec![libc::epoll_event { events: 0, u64: 0 }; 1024];
    let mut rb = vec![0u8; 65536];
    let mut hist = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).unwrap();
    let (mut echoes, mut errors) = (0u64, 0u64);
    let (mut measuring, mut t0, mut c0) = (false, start, 0.0);
    loop {
        let now = Instant::now();
        if !measuring && now >= start + warmup {
            measuring = true;
            t0 = now;
            c0 = cpu_s();
            mark_user(true);
            hist.reset();
        }
        if measuring && now.duration_since(t0).as_secs_f64() >= secs {
            mark_user(false);
            return Outcome { echoes, errors, window_s: now.duration_since(t0).as_secs_f64(), cpu_s: cpu_s() - c0, hist };
        }
        let wait = sleepers
            .front()
            .map(|&(_, s)| (s + delay).saturating_duration_since(now))
            .unwrap_or(Duration::from_millis(10))
            .min(Duration::from_millis(10));
        let ms = wait.as_micros().div_ceil(1000) as i32;
        let n = unsafe { libc::epoll_wait(ep, evs.as_mut_ptr(), evs.len() as i32, ms) };
        let now = Instant::now();
        for ev in &evs[..n.max(0) as usize] {
            let i = ev.u64 as usize;
            let c = &mut cs[i];
            let k = match c.s.read(&mut rb) {
                Ok(k) if k > 0 => k,
                _ => continue,
            };
            c.buf.extend_from_slice(&rb[..k]);
            while c.buf.len() >= 2 && c.buf.len() >= 2 + (c.buf[1] & 0x7f) as usize {
                let len = (c.buf[1] & 0x7f) as usize;
                let op = c.buf[0] & 0x0f;
                let ok = c.waiting
                    && op == if c.n % 2 == 1 { 2 } else { 1 }
                    && c.buf[2..2 + len] == hello(c.n)[..];
                c.buf.drain(..2 + len);
                if measuring {
                    if ok {
                        echoes += 1;
                        let _ = hist.record((now.duration_since(c.sent).as_micros() as u64).max(1));
                    } else {
                        errors += 1;
                    }
                }
                c.waiting = false;
                if c.n % 2 == 1 {
                    send(c, now);
                } else {
                    sleepers.push_back((i, now));
                }
            }
        }
        while let Some(&(i, s)) = sleepers.front() {
            if s + delay > now {
                break;
            }
            sleepers.pop_front();
            send(&mut cs[i], now);
        }
    }
}
