//! The only way out of a `prepare` step's network namespace: an HTTPS
//! `CONNECT` proxy of langbench's, listening on 127.0.0.1 *inside* a
//! network namespace that has nothing else (only `lo`).
//!
//! A `prepare` step installs dependencies (npm ci, pip, cargo, go, mvn), so
//! it needs the package registries; on the host's network it would also
//! reach every loopback service of the host (databases, Docker's API, CI
//! runners' control ports) and its private network. Here it reaches only
//! what the proxy forwards: `CONNECT host:443` to a public address, the
//! name resolved by the proxy on the host's side. Refused: any other port,
//! any request but `CONNECT`, and names that resolve to loopback,
//! private (RFC 1918, unique local), link-local (cloud metadata), shared
//! (100.64/10), multicast or unspecified addresses, or to an address of the
//! host's own interfaces. `LANGBENCH_PREPARE_ALLOW` (comma-separated host
//! names) lets a registry mirror on a private address through.
//!
//! The package managers find it through the usual `HTTPS_PROXY` variables
//! (npm, pip, cargo, go) and Java's `https.proxyHost` (Maven, through
//! `MAVEN_OPTS`): [`Proxy::env`].
//!
//! How: a thread of langbench `unshare`s a network namespace of its own
//! (a network namespace is per thread), brings up `lo`, listens there and
//! accepts; the agent of the `prepare` step joins that namespace
//! (`--netns`, needs root: `setns` into a namespace of the initial user
//! namespace). Connections are served by threads on the host's network,
//! which the accepting thread hands them to.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// Environment variables naming the CA certificates TLS clients trust
/// (OpenSSL, Node, Python's requests and pip, curl, git, cargo).
const TRUST_ENV: &[&str] = &[
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "REQUESTS_CA_BUNDLE",
    "PIP_CERT",
    "CURL_CA_BUNDLE",
    "GIT_SSL_CAINFO",
    "CARGO_HTTP_CAINFO",
];

/// A running proxy; stopped when dropped.
pub struct Proxy {
    netns: PathBuf,
    port: u16,
    stop: Arc<AtomicBool>,
    accept: Option<std::thread::JoinHandle<()>>,
}

impl Proxy {
    /// Starts the proxy in a fresh network namespace. `Err` (why) where
    /// that cannot be done (not root).
    pub fn start() -> Result<Proxy, String> {
        let (ready_tx, ready_rx) = mpsc::channel::<Result<(u16, PathBuf), String>>();
        let (conn_tx, conn_rx) = mpsc::channel::<TcpStream>();
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let allow = allowed_names();
        // Serves on the host's network (this thread's namespace, and so
        // that of every thread it starts).
        std::thread::spawn(move || {
            for client in conn_rx {
                let allow = allow.clone();
                std::thread::spawn(move || serve(client, &allow));
            }
        });
        let accept = std::thread::spawn(move || {
            let listener = match listen_in_new_netns() {
                Ok(l) => l,
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
            // SAFETY: gettid cannot fail.
            let tid = unsafe { libc::gettid() };
            let ns = PathBuf::from(format!("/proc/{}/task/{tid}/ns/net", std::process::id()));
            let _ = ready_tx.send(Ok((port, ns)));
            let _ = listener.set_nonblocking(true);
            while !stopping.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((s, _)) => {
                        let _ = s.set_nonblocking(false);
                        if conn_tx.send(s).is_err() {
                            break;
                        }
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
        });
        let (port, netns) = ready_rx
            .recv()
            .map_err(|_| "the proxy thread ended".to_string())??;
        Ok(Proxy {
            netns,
            port,
            stop,
            accept: Some(accept),
        })
    }

    /// The network namespace to join (`--netns` of the agent).
    pub fn netns(&self) -> &Path {
        &self.netns
    }

    /// The environment that sends a package manager through the proxy.
    pub fn env(&self) -> Vec<(String, String)> {
        let url = format!("http://127.0.0.1:{}", self.port);
        let mut env: Vec<(String, String)> = [
            "HTTPS_PROXY",
            "https_proxy",
            "HTTP_PROXY",
            "http_proxy",
            "ALL_PROXY",
        ]
        .iter()
        .map(|k| (k.to_string(), url.clone()))
        .collect();
        env.push(("NO_PROXY".into(), String::new()));
        // The machine's TLS trust settings (a registry mirror's or a
        // TLS-inspecting gateway's CA): the sandbox's clean environment
        // would drop them, and npm through a proxy reads only
        // NODE_EXTRA_CA_CERTS, not its cafile.
        for k in TRUST_ENV {
            if let Some(v) = std::env::var_os(k).filter(|v| !v.is_empty()) {
                env.push((k.to_string(), v.to_string_lossy().into_owned()));
            }
        }
        env.push((
            "MAVEN_OPTS".into(),
            format!(
                "-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort={p} -Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort={p}",
                p = self.port
            ),
        ));
        env
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.accept.take() {
            let _ = t.join();
        }
    }
}

/// In the calling thread: a network namespace of its own with `lo` up,
/// and a listener on its 127.0.0.1.
fn listen_in_new_netns() -> Result<TcpListener, String> {
    // SAFETY: unshare of this thread's network namespace only.
    if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
        return Err(format!(
            "cannot create a network namespace for the registry proxy: {}",
            std::io::Error::last_os_error()
        ));
    }
    super::contain::view::loopback_up();
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(|e| format!("registry proxy: {e}"))
}

/// Host names let through to private addresses (a mirror).
fn allowed_names() -> Arc<Vec<String>> {
    Arc::new(
        std::env::var("LANGBENCH_PREPARE_ALLOW")
            .unwrap_or_default()
            .split(',')
            .map(|h| h.trim().to_ascii_lowercase())
            .filter(|h| !h.is_empty())
            .collect(),
    )
}

/// Answers a refused `CONNECT` with 403 and why.
fn refuse(client: &mut TcpStream, why: &str) {
    let _ = write!(
        client,
        "HTTP/1.1 403 Forbidden\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{why}",
        why.len()
    );
}

/// One client: its `CONNECT`, checked, then the tunnel.
fn serve(mut client: TcpStream, allow: &[String]) {
    let _ = client.set_read_timeout(Some(Duration::from_secs(30)));
    let target = match read_connect(&mut client) {
        Ok(t) => t,
        Err(why) => return refuse(&mut client, &why),
    };
    let upstream = match connect(&target, allow) {
        Ok(s) => s,
        Err(why) => return refuse(&mut client, &why),
    };
    if client
        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
        .is_err()
    {
        return;
    }
    let _ = client.set_read_timeout(None);
    tunnel(client, upstream);
}

/// Reads the request head; the `host:port` of a `CONNECT` to port 443.
fn read_connect(client: &mut TcpStream) -> Result<String, String> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    loop {
        let n = client.read(&mut chunk).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("no request".into());
        }
        buf.extend_from_slice(&chunk[..n]);
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut req = httparse::Request::new(&mut headers);
        match req.parse(&buf) {
            Ok(httparse::Status::Complete(_)) => {
                if req.method != Some("CONNECT") {
                    return Err(
                        "only CONNECT (HTTPS) goes through langbench's registry proxy".into(),
                    );
                }
                let target = req.path.unwrap_or_default().to_string();
                let port = target.rsplit_once(':').map(|(_, p)| p);
                if port != Some("443") {
                    return Err(format!("{target}: only port 443 is forwarded"));
                }
                return Ok(target);
            }
            Ok(httparse::Status::Partial) if buf.len() < 16 << 10 => {}
            Ok(httparse::Status::Partial) => return Err("request head too long".into()),
            Err(e) => return Err(format!("bad request: {e}")),
        }
    }
}

/// Connects to `target` (`host:443`) if it resolves to a public address.
fn connect(target: &str, allow: &[String]) -> Result<TcpStream, String> {
    let host = target
        .rsplit_once(':')
        .map(|(h, _)| h.trim_matches(['[', ']']))
        .unwrap_or(target)
        .to_ascii_lowercase();
    let addrs: Vec<SocketAddr> = target
        .to_socket_addrs()
        .map_err(|e| format!("{target}: {e}"))?
        .collect();
    let own = own_addresses();
    let mirror = allow.contains(&host);
    let ok: Vec<SocketAddr> = addrs
        .into_iter()
        .filter(|a| mirror || (is_public(a.ip()) && !own.contains(&a.ip())))
        .collect();
    let first = ok.first().ok_or_else(|| {
        format!(
            "{target}: not a public address (langbench's registry proxy forwards only to those)"
        )
    })?;
    TcpStream::connect_timeout(first, Duration::from_secs(15)).map_err(|e| format!("{target}: {e}"))
}

/// Copies both ways until either side closes.
fn tunnel(client: TcpStream, upstream: TcpStream) {
    let (Ok(mut c2), Ok(mut u2)) = (client.try_clone(), upstream.try_clone()) else {
        return;
    };
    let up = std::thread::spawn(move || {
        let mut client = client;
        let mut upstream = upstream;
        let _ = std::io::copy(&mut client, &mut upstream);
        let _ = upstream.shutdown(Shutdown::Write);
    });
    let _ = std::io::copy(&mut u2, &mut c2);
    let _ = c2.shutdown(Shutdown::Write);
    let _ = up.join();
}

/// Whether `ip` is an address of the public internet (not loopback,
/// private, link-local, shared, multicast, documentation-reserved for
/// local use or unspecified).
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || o[0] == 0
                || (o[0] == 100 && (o[1] & 0xc0) == 64)
                || o[0] >= 240)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let s = v6.segments();
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80)
        }
    }
}

/// The addresses of the host's own interfaces (a service bound to
/// 0.0.0.0 answers on them).
fn own_addresses() -> Vec<IpAddr> {
    let mut out = Vec::new();
    // SAFETY: getifaddrs fills a list we walk and free; sockaddr casts
    // follow each entry's family.
    unsafe {
        let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
        if libc::getifaddrs(&mut list) != 0 {
            return out;
        }
        let mut p = list;
        while !p.is_null() {
            let a = (*p).ifa_addr;
            if !a.is_null() {
                match (*a).sa_family as i32 {
                    libc::AF_INET => {
                        let sin = &*(a as *const libc::sockaddr_in);
                        out.push(IpAddr::from(
                            u32::from_be(sin.sin_addr.s_addr).to_be_bytes(),
                        ));
                    }
                    libc::AF_INET6 => {
                        let sin6 = &*(a as *const libc::sockaddr_in6);
                        out.push(IpAddr::from(sin6.sin6_addr.s6_addr));
                    }
                    _ => {}
                }
            }
            p = (*p).ifa_next;
        }
        libc::freeifaddrs(list);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_addresses_are_public() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "224.0.0.1",
            "::1",
            "fd00::2",
            "fe80::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(!is_public(private.parse().unwrap()), "{private}");
        }
        for public in ["203.0.113.80", "151.101.0.223", "2a04:4e42::223"] {
            assert!(is_public(public.parse().unwrap()), "{public}");
        }
    }
}
