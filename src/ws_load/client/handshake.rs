//! The client side of the WebSocket opening handshake (RFC 6455 §4.1),
//! blocking, before a connection joins its thread's event loop:
//! tungstenite's key helpers and httparse.

use std::io::{Read, Write};
use std::time::Duration;

use anyhow::{Context, Result};

use super::url::Target;

pub(super) fn start_handshake(target: &Target) -> Result<(std::net::TcpStream, String)> {
    let mut s = std::net::TcpStream::connect_timeout(&target.addr, Duration::from_secs(30))
        .context("connect")?;
    s.set_nodelay(true)?;
    s.set_read_timeout(Some(Duration::from_secs(30)))?;
    let key = tungstenite::handshake::client::generate_key();
    let req = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n",
        target.path, target.host
    );
    s.write_all(req.as_bytes()).context("send the request")?;
    Ok((s, tungstenite::handshake::derive_accept_key(key.as_bytes())))
}

pub(super) fn finish_handshake(mut s: &std::net::TcpStream, accept: &str) -> Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(512);
    let mut chunk = [0u8; 1024];
    loop {
        let n = s.read(&mut chunk).context("read the response")?;
        anyhow::ensure!(
            n > 0,
            "the server closed the connection during the handshake"
        );
        buf.extend_from_slice(&chunk[..n]);
        let mut headers = [httparse::EMPTY_HEADER; 32];
        let mut resp = httparse::Response::new(&mut headers);
        match resp.parse(&buf).context("bad HTTP response")? {
            httparse::Status::Partial => {
                anyhow::ensure!(buf.len() < 16 * 1024, "response headers too long");
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
