//! The load client's target: `ws://HOST:PORT/PATH` and the network
//! namespace it lives in.

use std::net::{SocketAddr, ToSocketAddrs};

use anyhow::{Context, Result};

/// Where the load goes: `ws://HOST:PORT/PATH`.
#[derive(Debug, Clone)]
pub struct Target {
    pub addr: SocketAddr,
    /// The Host header.
    pub host: String,
    pub path: String,
    /// The network namespace `addr` lives in (a sandboxed server's, which
    /// has only `lo`): every client thread enters it before it creates a
    /// socket, since a socket belongs to the namespace it was created in.
    /// `None`: this process's own network.
    pub netns: Option<std::sync::Arc<std::os::fd::OwnedFd>>,
}

impl Target {
    pub fn local(addr: SocketAddr) -> Target {
        Target {
            addr,
            host: addr.to_string(),
            path: "/ws".into(),
            netns: None,
        }
    }

    /// Parses `ws://HOST:PORT/PATH` (PORT defaults to 80, PATH to `/`).
    pub(crate) fn parse(url: &str) -> Result<Target> {
        let rest = url.strip_prefix("ws://").with_context(|| {
            format!("{url}: expected ws://HOST:PORT/PATH (wss is not supported)")
        })?;
        let (hostport, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        anyhow::ensure!(!hostport.is_empty(), "{url}: no host");
        let with_port = if hostport.ends_with(']') || !hostport.contains(':') {
            format!("{hostport}:80")
        } else {
            hostport.to_string()
        };
        let addr = with_port
            .to_socket_addrs()
            .with_context(|| format!("{url}: cannot resolve {with_port}"))?
            .next()
            .with_context(|| format!("{url}: {with_port} has no address"))?;
        Ok(Target {
            addr,
            host: hostport.to_string(),
            path: path.to_string(),
            netns: None,
        })
    }

    pub(crate) fn url(&self) -> String {
        format!("ws://{}{}", self.host, self.path)
    }
}
