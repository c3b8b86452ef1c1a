//! The client side of the WebSocket opening handshake (RFC 6455 §4.1),
//! before a connection joins its thread's event loop: tungstenite's key
//! helpers and httparse.
//!
//! Bounded in time as a whole, not per read: a server that drips its
//! response one byte at a time (each read well within any per-read
//! timeout) kept `langbench ws` opening connections for as long as it
//! liked (issue #59, row 5). Every wait (the connect, each read) is cut
//! into slices of [`SLICE`], and between slices the handshake asks
//! `stop` (Ctrl-C, SIGTERM, the client stopping) and its deadline.

use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use super::url::Target;

/// How long one connection's handshake may take as a whole, connect to
/// the end of the response's headers (also bounded by the client's
/// deadline for opening every connection).
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

/// The longest one wait lasts before the handshake looks at its deadline
/// and at `stop` again: what an interrupt waits at most.
const SLICE: Duration = Duration::from_millis(100);

/// Waits (in slices) until `fd` is ready for `events` (libc `POLLIN`,
/// `POLLOUT`), the deadline passes (an error saying what did not come:
/// `what`), or `stop()` says to stop.
fn wait_fd(
    fd: i32,
    events: i16,
    deadline: Instant,
    stop: &dyn Fn() -> bool,
    what: &str,
) -> Result<()> {
    loop {
        if stop() {
            bail!("stopped while waiting for {what}");
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            bail!("no {what} before the handshake's deadline");
        }
        let mut p = libc::pollfd {
            fd,
            events,
            revents: 0,
        };
        let ms = left.min(SLICE).as_millis().max(1) as i32;
        // SAFETY: poll on one pollfd we own, for a descriptor we hold open.
        let n = unsafe { libc::poll(&mut p, 1, ms) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e).context("poll");
        }
        if n > 0 {
            return Ok(());
        }
    }
}

/// Connects (without blocking past the deadline or a stop: mio's
/// non-blocking connect, then a wait for writability) and sends the
/// upgrade request. Returns the socket, non-blocking, and the accept key
/// the response must carry.
pub(super) fn start_handshake(
    target: &Target,
    deadline: Instant,
    stop: &dyn Fn() -> bool,
) -> Result<(std::net::TcpStream, String)> {
    let s = mio::net::TcpStream::connect(target.addr).context("connect")?;
    wait_fd(s.as_raw_fd(), libc::POLLOUT, deadline, stop, "connection").context("connect")?;
    if let Some(e) = s.take_error().context("connect")? {
        return Err(e).context("connect");
    }
    s.peer_addr().context("connect")?;
    let s = std::net::TcpStream::from(std::os::fd::OwnedFd::from(s));
    s.set_nodelay(true)?;
    let key = tungstenite::handshake::client::generate_key();
    let req = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n",
        target.path, target.host
    );
    write_all(&s, req.as_bytes(), deadline, stop).context("send the request")?;
    Ok((s, tungstenite::handshake::derive_accept_key(key.as_bytes())))
}

/// `bytes` written on the non-blocking `s` within the deadline.
fn write_all(
    mut s: &std::net::TcpStream,
    mut bytes: &[u8],
    deadline: Instant,
    stop: &dyn Fn() -> bool,
) -> Result<()> {
    while !bytes.is_empty() {
        match s.write(bytes) {
            Ok(0) => bail!("the server closed the connection"),
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                wait_fd(s.as_raw_fd(), libc::POLLOUT, deadline, stop, "room to send")?
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// The most a response's headers may take (longer: refused).
const MAX_HEADERS: usize = 16 * 1024;

/// Reads the response until its headers are complete (or the deadline, or
/// a stop) and checks it. Returns the bytes that came after the headers
/// (under 1 KiB: each read takes at most that, and the headers are parsed
/// after each).
pub(super) fn finish_handshake(
    mut s: &std::net::TcpStream,
    accept: &str,
    deadline: Instant,
    stop: &dyn Fn() -> bool,
) -> Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(512);
    let mut chunk = [0u8; 1024];
    loop {
        let n = match s.read(&mut chunk) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                wait_fd(s.as_raw_fd(), libc::POLLIN, deadline, stop, "response")?;
                continue;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e).context("read the response"),
        };
        anyhow::ensure!(
            n > 0,
            "the server closed the connection during the handshake"
        );
        buf.extend_from_slice(&chunk[..n]);
        let mut headers = [httparse::EMPTY_HEADER; 32];
        let mut resp = httparse::Response::new(&mut headers);
        match resp.parse(&buf).context("bad HTTP response")? {
            httparse::Status::Partial => {
                anyhow::ensure!(buf.len() < MAX_HEADERS, "response headers too long");
            }
            httparse::Status::Complete(len) => {
                anyhow::ensure!(
                    resp.code == Some(101),
                    "HTTP {} instead of 101 Switching Protocols",
                    resp.code.unwrap_or(0)
                );
                let got = resp
                    .headers
                    .iter()
                    .find(|h| h.name.eq_ignore_ascii_case("sec-websocket-accept"))
                    .map(|h| h.value);
                anyhow::ensure!(
                    got == Some(accept.as_bytes()),
                    "wrong or missing Sec-WebSocket-Accept"
                );
                return Ok(buf[len..].to_vec());
            }
        }
    }
}
