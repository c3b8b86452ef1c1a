//! The only way out of a `prepare` step's network namespace: an HTTPS
//! `CONNECT` proxy of langbench's, listening on 127.0.0.1 *inside* a
//! network namespace that has nothing else (only `lo`).
//!
//! A `prepare` step installs dependencies (npm ci, pip, cargo, go, mvn), so
//! it needs the package registries; on the host's network it would also
//! reach every loopback service of the host (databases, Docker's API, CI
//! runners' control ports) and its private network. Here it reaches only
//! what the proxy forwards: `CONNECT host:443` where `host` is a registry
//! the toolchains of `languages.toml` fetch from ([`REGISTRIES`]) or a
//! name the maintainer allows (`LANGBENCH_PREPARE_ALLOW=host,...`: a
//! mirror, another registry), resolved on the host's side. A name leads
//! wherever this machine's resolver says (a mirror or an egress proxy on
//! a private or even a documentation address: the place the maintainer's
//! own `pip install` goes; a contributor chooses no name and no record),
//! but never to this machine itself or its link (loopback, link-local,
//! where clouds keep instance credentials, multicast, the host's own
//! addresses). An address written as the target is refused in every
//! block of IANA's IPv4 and IPv6 Special-Purpose Address Registries
//! ([`SPECIAL_V4`], [`SPECIAL_V6`]: private, shared, documentation,
//! benchmarking, NAT64, 6to4, ...), so a step that names a LAN address
//! reaches no LAN even where the maintainer allowed that address.
//!
//! The package managers find it through the usual `HTTPS_PROXY` variables
//! (npm, pip, cargo, go) and Java's `https.proxyHost` (Maven, through
//! `MAVEN_OPTS`): [`Proxy::env`].
//!
//! How: a thread of langbench `unshare`s a network namespace of its own
//! (a network namespace is per thread), brings up `lo`, listens there and
//! stays, so the agent of the `prepare` step can join that namespace
//! (`--netns`, needs root: `setns` into a namespace of the initial user
//! namespace). One other thread, on the host's network, serves every
//! connection with non-blocking I/O (mio): a hostile step cannot make
//! langbench start a thread per connection. It serves at most
//! `--max-processes` connections at once (and never more than
//! [`MAX_CONNECTIONS`]): a connection counts as a process of the step;
//! past that a connection is answered 503 and closed. A request head has
//! [`HEAD_TIMEOUT`] to arrive whole. Names are resolved by a third thread,
//! one at a time, so a slow resolver never stalls the tunnels.

use std::collections::HashMap;
use std::io::{ErrorKind, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Shutdown, SocketAddr, TcpListener, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mio::net::TcpStream;
use mio::{Events, Interest, Poll, Token, Waker};

/// The package registries the `prepare` steps of `languages.toml` fetch
/// from, by the tool that does (its commands: `npm ci`, `pip install`,
/// `cargo build`, `go build`, `mvn package`): host names, port 443 only.
/// Another registry or a mirror is the maintainer's to allow
/// (`LANGBENCH_PREPARE_ALLOW`).
const REGISTRIES: &[(&str, &[&str])] = &[
    ("npm", &["registry.npmjs.org"]),
    ("pip (PyPI)", &["pypi.org", "files.pythonhosted.org"]),
    (
        "cargo (crates.io)",
        &["index.crates.io", "static.crates.io", "crates.io"],
    ),
    ("go (module proxy)", &["proxy.golang.org", "sum.golang.org"]),
    (
        "mvn (Maven Central)",
        &["repo.maven.apache.org", "repo1.maven.org"],
    ),
];

/// The environment variable naming more hosts the proxy lets through
/// (comma-separated): a registry mirror, another registry. Their
/// addresses are checked as every other's.
const ALLOW_ENV: &str = "LANGBENCH_PREPARE_ALLOW";

/// The most connections served at once, whatever `--max-processes` says:
/// each holds two descriptors, and npm opens at most 16 at a time, cargo
/// and pip fewer.
const MAX_CONNECTIONS: usize = 256;

/// How long a client has to send its whole request head (a `CONNECT` line
/// and its headers, a few hundred bytes) after connecting.
const HEAD_TIMEOUT: Duration = Duration::from_secs(5);

/// How long connecting to one address of a registry may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// IANA's IPv4 Special-Purpose Address Registry
/// (iana.org/assignments/iana-ipv4-special-registry, as updated in 2025):
/// every entry, whatever its "globally reachable" column says (an anycast
/// service block is no registry either). Then the one block of IANA's
/// IPv4 Multicast Address Space Registry.
const SPECIAL_V4: &[(&str, &str)] = &[
    ("0.0.0.0/8", "\"This network\" (RFC 791)"),
    ("0.0.0.0/32", "\"This host on this network\" (RFC 1122)"),
    ("10.0.0.0/8", "Private-Use (RFC 1918)"),
    ("100.64.0.0/10", "Shared Address Space (RFC 6598)"),
    ("127.0.0.0/8", "Loopback (RFC 1122)"),
    ("169.254.0.0/16", "Link Local (RFC 3927)"),
    ("172.16.0.0/12", "Private-Use (RFC 1918)"),
    ("192.0.0.0/24", "IETF Protocol Assignments (RFC 6890)"),
    ("192.0.0.0/29", "IPv4 Service Continuity Prefix (RFC 7335)"),
    ("192.0.0.8/32", "IPv4 dummy address (RFC 7600)"),
    ("192.0.0.9/32", "Port Control Protocol Anycast (RFC 7723)"),
    (
        "192.0.0.10/32",
        "Traversal Using Relays around NAT Anycast (RFC 8155)",
    ),
    (
        "192.0.0.170/32",
        "NAT64/DNS64 Discovery (RFC 8880, RFC 7050)",
    ),
    (
        "192.0.0.171/32",
        "NAT64/DNS64 Discovery (RFC 8880, RFC 7050)",
    ),
    ("192.0.2.0/24", "Documentation (TEST-NET-1) (RFC 5737)"),
    ("192.31.196.0/24", "AS112-v4 (RFC 7535)"),
    ("192.52.193.0/24", "AMT (RFC 7450)"),
    (
        "192.88.99.0/24",
        "Deprecated (6to4 Relay Anycast) (RFC 7526)",
    ),
    ("192.88.99.2/32", "6a44-relay anycast address (RFC 6751)"),
    ("192.168.0.0/16", "Private-Use (RFC 1918)"),
    (
        "192.175.48.0/24",
        "Direct Delegation AS112 Service (RFC 7534)",
    ),
    ("198.18.0.0/15", "Benchmarking (RFC 2544)"),
    ("198.51.100.0/24", "Documentation (TEST-NET-2) (RFC 5737)"),
    ("203.0.113.0/24", "Documentation (TEST-NET-3) (RFC 5737)"),
    ("240.0.0.0/4", "Reserved (RFC 1112)"),
    (
        "255.255.255.255/32",
        "Limited Broadcast (RFC 8190, RFC 919)",
    ),
    // IANA IPv4 Multicast Address Space Registry.
    ("224.0.0.0/4", "Multicast (RFC 5771)"),
];

/// IANA's IPv6 Special-Purpose Address Registry
/// (iana.org/assignments/iana-ipv6-special-registry, as updated in 2025):
/// every entry. Then, from IANA's IPv6 Address Space registry, everything
/// outside 2000::/3, the only block allocated as global unicast (it holds
/// multicast, ff00::/8, and the IPv4-compatible ::/96 too).
const SPECIAL_V6: &[(&str, &str)] = &[
    ("::1/128", "Loopback Address (RFC 4291)"),
    ("::/128", "Unspecified Address (RFC 4291)"),
    ("::ffff:0:0/96", "IPv4-mapped Address (RFC 4291)"),
    ("64:ff9b::/96", "IPv4-IPv6 Translat. (RFC 6052)"),
    ("64:ff9b:1::/48", "IPv4-IPv6 Translat. (RFC 8215)"),
    ("100::/64", "Discard-Only Address Block (RFC 6666)"),
    ("100:0:0:1::/64", "Dummy IPv6 Prefix (RFC 9780)"),
    ("2001::/23", "IETF Protocol Assignments (RFC 2928)"),
    ("2001::/32", "TEREDO (RFC 4380, RFC 8190)"),
    ("2001:1::1/128", "Port Control Protocol Anycast (RFC 7723)"),
    (
        "2001:1::2/128",
        "Traversal Using Relays around NAT Anycast (RFC 8155)",
    ),
    (
        "2001:1::3/128",
        "DNS-SD Service Registration Protocol Anycast (RFC 9665)",
    ),
    ("2001:2::/48", "Benchmarking (RFC 5180)"),
    ("2001:3::/32", "AMT (RFC 7450)"),
    ("2001:4:112::/48", "AS112-v6 (RFC 7535)"),
    ("2001:10::/28", "Deprecated (previously ORCHID) (RFC 4843)"),
    ("2001:20::/28", "ORCHIDv2 (RFC 7343)"),
    (
        "2001:30::/28",
        "Drone Remote ID Protocol Entity Tags (DETs) Prefix (RFC 9374)",
    ),
    ("2001:db8::/32", "Documentation (RFC 3849)"),
    ("2002::/16", "6to4 (RFC 3056)"),
    (
        "2620:4f:8000::/48",
        "Direct Delegation AS112 Service (RFC 7534)",
    ),
    ("3fff::/20", "Documentation (RFC 9637)"),
    ("5f00::/16", "Segment Routing (SRv6) SIDs (RFC 9602)"),
    ("fc00::/7", "Unique-Local (RFC 4193, RFC 8190)"),
    ("fe80::/10", "Link-Local Unicast (RFC 4291)"),
];

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
    waker: Arc<Waker>,
    /// Dropping it lets the namespace's thread end.
    _hold: mpsc::Sender<()>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Proxy {
    /// Starts the proxy in a fresh network namespace, serving at most
    /// `max_connections` connections at once (the step's process bound,
    /// `--max-processes`; never more than [`MAX_CONNECTIONS`]). `Err`
    /// (why) where that cannot be done (not root).
    pub fn start(max_connections: u64) -> Result<Proxy, String> {
        let cap = usize::try_from(max_connections)
            .unwrap_or(MAX_CONNECTIONS)
            .clamp(1, MAX_CONNECTIONS);
        let (ready_tx, ready_rx) = mpsc::channel::<Result<(TcpListener, PathBuf), String>>();
        let (hold_tx, hold_rx) = mpsc::channel::<()>();
        // The namespace lives while this thread does (its path is the
        // thread's), until the proxy is dropped.
        let spawn = |name: &str| std::thread::Builder::new().name(format!("lb-proxy-{name}"));
        let ns = spawn("netns")
            .spawn(move || {
                match listen_in_new_netns() {
                    Ok(l) => {
                        // SAFETY: gettid cannot fail.
                        let tid = unsafe { libc::gettid() };
                        let ns = PathBuf::from(format!(
                            "/proc/{}/task/{tid}/ns/net",
                            std::process::id()
                        ));
                        let _ = ready_tx.send(Ok((l, ns)));
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                }
                let _ = hold_rx.recv();
            })
            .map_err(|e| format!("registry proxy: {e}"))?;
        let (listener, netns) = ready_rx
            .recv()
            .map_err(|_| "the proxy thread ended".to_string())??;
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
        listener
            .set_nonblocking(true)
            .map_err(|e| format!("registry proxy: {e}"))?;
        let poll = Poll::new().map_err(|e| format!("registry proxy: {e}"))?;
        let waker = Arc::new(
            Waker::new(poll.registry(), WAKER).map_err(|e| format!("registry proxy: {e}"))?,
        );
        let stop = Arc::new(AtomicBool::new(false));
        let (ask_tx, ask_rx) = mpsc::channel::<(usize, String)>();
        let (got_tx, got_rx) = mpsc::channel::<(usize, std::io::Result<Vec<SocketAddr>>)>();
        let resolve_waker = waker.clone();
        // Names, resolved one at a time on the host's network.
        let resolver = spawn("dns")
            .spawn(move || {
                for (id, target) in ask_rx {
                    let got = target.to_socket_addrs().map(|a| a.collect());
                    if got_tx.send((id, got)).is_err() {
                        break;
                    }
                    let _ = resolve_waker.wake();
                }
            })
            .map_err(|e| format!("registry proxy: {e}"))?;
        let server = Server {
            poll,
            listener: mio::net::TcpListener::from_std(listener),
            conns: HashMap::new(),
            next: 0,
            cap,
            allow: allowed_names(),
            own: own_addresses(),
            ask: ask_tx,
            got: got_rx,
        };
        let stopping = stop.clone();
        // Serves on the host's network (this thread's namespace).
        let serve = spawn("serve")
            .spawn(move || server.run(&stopping))
            .map_err(|e| format!("registry proxy: {e}"))?;
        Ok(Proxy {
            netns,
            port,
            stop,
            waker,
            _hold: hold_tx,
            threads: vec![serve, resolver, ns],
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
        let _ = self.waker.wake();
        // The server first (it holds the resolver's channel); then the
        // namespace's thread, once `_hold` is dropped below.
        if !self.threads.is_empty() {
            let serve = self.threads.remove(0);
            let _ = serve.join();
        }
        let (hold, _) = mpsc::channel();
        self._hold = hold;
        for t in self.threads.drain(..) {
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

/// The host names let through: the registries', then the maintainer's
/// ([`ALLOW_ENV`]), lowercase.
fn allowed_names() -> Vec<String> {
    REGISTRIES
        .iter()
        .flat_map(|(_, hosts)| hosts.iter().map(|h| h.to_string()))
        .chain(
            std::env::var(ALLOW_ENV)
                .unwrap_or_default()
                .split(',')
                .map(normal_host)
                .filter(|h| !h.is_empty()),
        )
        .collect()
}

/// A host as compared: lowercase, no trailing dot, no IPv6 brackets.
fn normal_host(h: &str) -> String {
    h.trim()
        .trim_matches(['[', ']'])
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

const LISTENER: Token = Token(usize::MAX - 1);
const WAKER: Token = Token(usize::MAX - 2);
/// Bytes buffered each way of a tunnel.
const BUF: usize = 64 << 10;

/// One direction of a tunnel: bytes read from one side, not yet written
/// to the other.
struct Pipe {
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// The reading side closed (EOF), or the pipe was told to end.
    eof: bool,
    /// Its EOF was passed on (`shutdown(Write)` on the writing side).
    shut: bool,
}

impl Pipe {
    fn new() -> Pipe {
        Pipe {
            buf: vec![0; BUF],
            start: 0,
            end: 0,
            eof: false,
            shut: false,
        }
    }

    fn with(bytes: &[u8]) -> Pipe {
        let mut p = Pipe::new();
        let n = bytes.len().min(BUF);
        p.buf[..n].copy_from_slice(&bytes[..n]);
        p.end = n;
        p
    }

    fn empty(&self) -> bool {
        self.start == self.end
    }

    /// Reads from `from` while there is room; writes to `to` while there
    /// is something; `Ok(true)` on progress, `Err` when a side failed.
    fn pump(&mut self, from: &mut TcpStream, to: &mut TcpStream) -> std::io::Result<bool> {
        let mut progress = false;
        if !self.eof && self.end < BUF {
            match from.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    progress = true;
                }
                Ok(n) => {
                    self.end += n;
                    progress = true;
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(e) if e.kind() == ErrorKind::Interrupted => progress = true,
                Err(e) => return Err(e),
            }
        }
        if !self.empty() {
            match to.write(&self.buf[self.start..self.end]) {
                Ok(n) => {
                    self.start += n;
                    if self.empty() {
                        (self.start, self.end) = (0, 0);
                    }
                    progress = true;
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(e) if e.kind() == ErrorKind::Interrupted => progress = true,
                Err(e) => return Err(e),
            }
        }
        if self.eof && self.empty() && !self.shut {
            let _ = to.shutdown(Shutdown::Write);
            self.shut = true;
            progress = true;
        }
        Ok(progress)
    }
}

/// Where a connection is.
enum State {
    /// Reading the request head, until `deadline`.
    Head { buf: Vec<u8>, deadline: Instant },
    /// Its name is being resolved; what came after the head.
    Resolving { target: String, rest: Vec<u8> },
    /// Connecting to `addrs[0]` (the others are tried next).
    Connecting {
        target: String,
        addrs: Vec<SocketAddr>,
        upstream: TcpStream,
        deadline: Instant,
        rest: Vec<u8>,
    },
    /// Copying both ways.
    Tunnel {
        upstream: TcpStream,
        up: Pipe,
        down: Pipe,
    },
    /// Answering (a refusal), then closing.
    Answer { reply: Vec<u8>, sent: usize },
}

struct Conn {
    client: TcpStream,
    state: State,
}

struct Server {
    poll: Poll,
    listener: mio::net::TcpListener,
    conns: HashMap<usize, Conn>,
    next: usize,
    cap: usize,
    allow: Vec<String>,
    own: Vec<IpAddr>,
    ask: mpsc::Sender<(usize, String)>,
    got: mpsc::Receiver<(usize, std::io::Result<Vec<SocketAddr>>)>,
}

fn client_token(id: usize) -> Token {
    Token(id * 2)
}

fn upstream_token(id: usize) -> Token {
    Token(id * 2 + 1)
}

/// An HTTP answer that ends the connection, saying why.
fn answer(status: &str, why: &str) -> State {
    State::Answer {
        reply: format!(
            "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{why}",
            why.len()
        )
        .into_bytes(),
        sent: 0,
    }
}

impl Server {
    fn run(mut self, stop: &AtomicBool) {
        if self
            .poll
            .registry()
            .register(&mut self.listener, LISTENER, Interest::READABLE)
            .is_err()
        {
            return;
        }
        let mut events = Events::with_capacity(256);
        while !stop.load(Ordering::Relaxed) {
            if let Err(e) = self
                .poll
                .poll(&mut events, Some(Duration::from_millis(250)))
                && e.kind() != ErrorKind::Interrupted
            {
                return;
            }
            let mut touched: Vec<usize> = Vec::new();
            for ev in events.iter() {
                match ev.token() {
                    LISTENER => self.accept(),
                    WAKER => {}
                    Token(t) => touched.push(t / 2),
                }
            }
            while let Ok((id, got)) = self.got.try_recv() {
                self.resolved(id, got);
                touched.push(id);
            }
            // Deadlines: a head that is late, a connect that hangs.
            let now = Instant::now();
            for (id, c) in self.conns.iter_mut() {
                match &c.state {
                    State::Head { deadline, .. } if now > *deadline => {
                        c.state = answer("408 Request Timeout", "no complete request head in time");
                        touched.push(*id);
                    }
                    State::Connecting { deadline, .. } if now > *deadline => {
                        touched.push(*id);
                    }
                    _ => {}
                }
            }
            touched.sort_unstable();
            touched.dedup();
            for id in touched {
                self.advance(id);
            }
        }
    }

    fn accept(&mut self) {
        loop {
            let mut client = match self.listener.accept() {
                Ok((c, _)) => c,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                // Out of descriptors and the like: the next event retries.
                Err(_) => return,
            };
            let id = self.next;
            self.next += 1;
            let state = if self.conns.len() >= self.cap {
                answer(
                    "503 Service Unavailable",
                    "too many connections at once (the step's --max-processes)",
                )
            } else {
                State::Head {
                    buf: Vec::with_capacity(1024),
                    deadline: Instant::now() + HEAD_TIMEOUT,
                }
            };
            if self
                .poll
                .registry()
                .register(
                    &mut client,
                    client_token(id),
                    Interest::READABLE | Interest::WRITABLE,
                )
                .is_err()
            {
                continue;
            }
            self.conns.insert(id, Conn { client, state });
            self.advance(id);
        }
    }

    fn resolved(&mut self, id: usize, got: std::io::Result<Vec<SocketAddr>>) {
        let Some(c) = self.conns.get_mut(&id) else {
            return;
        };
        let State::Resolving { target, rest } = &mut c.state else {
            return;
        };
        let (target, rest) = (std::mem::take(target), std::mem::take(rest));
        c.state = match got {
            Err(e) => answer("502 Bad Gateway", &format!("{target}: {e}")),
            Ok(addrs) => match usable(&target, addrs, &self.own, Named::ByName) {
                Err(why) => answer("403 Forbidden", &why),
                Ok(addrs) => connecting(target, addrs, rest),
            },
        };
        let Some(mut c) = self.conns.remove(&id) else {
            return;
        };
        if !self.watch(id, &mut c) {
            c.state = answer("502 Bad Gateway", "cannot watch the connection");
        }
        self.conns.insert(id, c);
    }

    /// Moves connection `id` on as far as it goes now; closes it when done.
    fn advance(&mut self, id: usize) {
        let Some(mut c) = self.conns.remove(&id) else {
            return;
        };
        let keep = self.step(id, &mut c);
        if keep {
            self.conns.insert(id, c);
        } else {
            let _ = self.poll.registry().deregister(&mut c.client);
            if let State::Tunnel { upstream, .. } | State::Connecting { upstream, .. } =
                &mut c.state
            {
                let _ = self.poll.registry().deregister(upstream);
            }
        }
    }

    /// `false`: the connection is finished.
    fn step(&mut self, id: usize, c: &mut Conn) -> bool {
        loop {
            match &mut c.state {
                State::Head { buf, .. } => {
                    let mut chunk = [0u8; 1024];
                    match c.client.read(&mut chunk) {
                        Ok(0) => return false,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        Err(e) if e.kind() == ErrorKind::WouldBlock => return true,
                        Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                        Err(_) => return false,
                    }
                    let head = std::mem::take(buf);
                    match parse_head(&head) {
                        Head::Partial => {
                            if let State::Head { buf, .. } = &mut c.state {
                                *buf = head;
                            }
                        }
                        Head::Refused(why) => c.state = answer("403 Forbidden", &why),
                        Head::Connect(target, used) => {
                            let rest = head[used..].to_vec();
                            c.state = match allowed(&target, &self.allow) {
                                Err(why) => answer("403 Forbidden", &why),
                                Ok(()) => self.start_connect(id, target, rest),
                            };
                            if !self.watch(id, c) {
                                c.state = answer("502 Bad Gateway", "cannot watch the connection");
                            }
                        }
                    }
                }
                State::Resolving { .. } => return true,
                State::Connecting {
                    upstream, deadline, ..
                } => {
                    let connected = match upstream.take_error() {
                        Ok(None) => match upstream.peer_addr() {
                            Ok(_) => Some(Ok(())),
                            Err(e) if e.kind() == ErrorKind::NotConnected => None,
                            Err(e) => Some(Err(e)),
                        },
                        Ok(Some(e)) | Err(e) => Some(Err(e)),
                    };
                    if connected.is_none() && Instant::now() <= *deadline {
                        return true;
                    }
                    let done = State::Answer {
                        reply: Vec::new(),
                        sent: 0,
                    };
                    let State::Connecting {
                        target,
                        mut addrs,
                        mut upstream,
                        rest,
                        ..
                    } = std::mem::replace(&mut c.state, done)
                    else {
                        return false;
                    };
                    if let Some(Ok(())) = connected {
                        c.state = State::Tunnel {
                            upstream,
                            up: Pipe::with(&rest),
                            down: Pipe::with(b"HTTP/1.1 200 Connection established\r\n\r\n"),
                        };
                        continue;
                    }
                    let _ = self.poll.registry().deregister(&mut upstream);
                    drop(upstream);
                    let why = match connected {
                        Some(Err(e)) => e.to_string(),
                        _ => "timed out".to_string(),
                    };
                    addrs.remove(0);
                    c.state = if addrs.is_empty() {
                        answer("502 Bad Gateway", &format!("{target}: {why}"))
                    } else {
                        connecting(target, addrs, rest)
                    };
                    if !self.watch(id, c) {
                        c.state = answer("502 Bad Gateway", "cannot watch the connection");
                    }
                    if matches!(c.state, State::Connecting { .. }) {
                        return true;
                    }
                }
                State::Tunnel { upstream, up, down } => {
                    loop {
                        let a = match up.pump(&mut c.client, upstream) {
                            Ok(p) => p,
                            Err(_) => return false,
                        };
                        let b = match down.pump(upstream, &mut c.client) {
                            Ok(p) => p,
                            Err(_) => return false,
                        };
                        if !a && !b {
                            break;
                        }
                    }
                    return !(up.shut && down.shut);
                }
                State::Answer { reply, sent } => {
                    while *sent < reply.len() {
                        match c.client.write(&reply[*sent..]) {
                            Ok(0) => return false,
                            Ok(n) => *sent += n,
                            Err(e) if e.kind() == ErrorKind::WouldBlock => return true,
                            Err(e) if e.kind() == ErrorKind::Interrupted => {}
                            Err(_) => return false,
                        }
                    }
                    let _ = c.client.shutdown(Shutdown::Write);
                    return false;
                }
            }
        }
    }

    /// Registers a connection's upstream side once it is connecting.
    fn watch(&self, id: usize, c: &mut Conn) -> bool {
        match &mut c.state {
            State::Connecting { upstream, .. } => self
                .poll
                .registry()
                .register(
                    upstream,
                    upstream_token(id),
                    Interest::READABLE | Interest::WRITABLE,
                )
                .is_ok(),
            _ => true,
        }
    }

    /// What a `CONNECT` to `target` (allowed by name) does next: an
    /// address is checked at once, a name goes to the resolver.
    fn start_connect(&mut self, id: usize, target: String, rest: Vec<u8>) -> State {
        let host = host_of(&target);
        if let Ok(ip) = host.parse::<IpAddr>() {
            return match usable(
                &target,
                vec![SocketAddr::new(ip, 443)],
                &self.own,
                Named::Literal,
            ) {
                Err(why) => answer("403 Forbidden", &why),
                Ok(addrs) => connecting(target, addrs, rest),
            };
        }
        if self.ask.send((id, target.clone())).is_err() {
            return answer("502 Bad Gateway", "the resolver stopped");
        }
        State::Resolving { target, rest }
    }
}

/// Starts connecting to the first of `addrs`.
fn connecting(target: String, mut addrs: Vec<SocketAddr>, rest: Vec<u8>) -> State {
    while !addrs.is_empty() {
        match TcpStream::connect(addrs[0]) {
            Ok(upstream) => {
                return State::Connecting {
                    target,
                    addrs,
                    upstream,
                    deadline: Instant::now() + CONNECT_TIMEOUT,
                    rest,
                };
            }
            Err(_) => {
                addrs.remove(0);
            }
        }
    }
    answer("502 Bad Gateway", &format!("{target}: cannot connect"))
}

/// A parsed request head.
enum Head {
    /// More to read.
    Partial,
    /// A `CONNECT` to an allowed `host:443`, and the head's length.
    Connect(String, usize),
    Refused(String),
}

fn parse_head(buf: &[u8]) -> Head {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut req = httparse::Request::new(&mut headers);
    match req.parse(buf) {
        Ok(httparse::Status::Complete(n)) => {
            if req.method != Some("CONNECT") {
                return Head::Refused(
                    "only CONNECT (HTTPS) goes through langbench's registry proxy".into(),
                );
            }
            let target = req.path.unwrap_or_default().to_string();
            match target.rsplit_once(':') {
                Some((_, "443")) => {}
                _ => return Head::Refused(format!("{target}: only port 443 is forwarded")),
            }
            Head::Connect(target, n)
        }
        Ok(httparse::Status::Partial) if buf.len() < 16 << 10 => Head::Partial,
        Ok(httparse::Status::Partial) => Head::Refused("request head too long".into()),
        Err(e) => Head::Refused(format!("bad request: {e}")),
    }
}

/// The host of `host:port` (an IPv6 address without its brackets).
fn host_of(target: &str) -> String {
    normal_host(target.rsplit_once(':').map_or(target, |(h, _)| h))
}

/// Whether the proxy lets `target` (`host:443`) through by name: a
/// registry's host or one the maintainer allowed; why not.
fn allowed(target: &str, allow: &[String]) -> Result<(), String> {
    let host = host_of(target);
    if allow.contains(&host) {
        return Ok(());
    }
    Err(format!(
        "{target}: not a package registry langbench's proxy forwards to ({}; more with {ALLOW_ENV}=host,...)",
        REGISTRIES
            .iter()
            .map(|(tool, hosts)| format!("{tool}: {}", hosts.join(" ")))
            .collect::<Vec<_>>()
            .join("; ")
    ))
}

/// How a `CONNECT`'s target named its host.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Named {
    /// An address written in the request: whoever wrote the step chose
    /// it, so every special-purpose block is refused.
    Literal,
    /// A registry's (or a maintainer-allowed) host name, resolved by this
    /// machine's resolver: where it points is the machine's own choice (a
    /// mirror, an egress proxy: on this project's CI machines every public
    /// name resolves into 203.0.113.0/24, documentation space), the same
    /// address the maintainer's own `pip install` goes to. Only what
    /// reaches this machine itself or its link is refused.
    ByName,
}

/// The blocks no name may lead to: this machine itself (loopback, "this
/// host", its own interfaces' addresses), its link (link-local, where
/// clouds serve instance credentials at 169.254.169.254; multicast;
/// broadcast). A contributor cannot choose what a registry's name
/// resolves to, so these guard only against a resolver that points a
/// registry at the host (a mirror there is the maintainer's to serve on
/// another interface).
fn reaches_this_machine(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(a) if a.is_loopback() => Some("loopback"),
        IpAddr::V4(a) if a.is_unspecified() || a.octets()[0] == 0 => Some("\"this network\""),
        IpAddr::V4(a) if a.is_link_local() => Some("link-local"),
        IpAddr::V4(a) if a.is_multicast() || a.is_broadcast() => Some("multicast or broadcast"),
        IpAddr::V6(a) if a.is_loopback() => Some("loopback"),
        IpAddr::V6(a) if a.is_unspecified() => Some("unspecified"),
        IpAddr::V6(a) if a.is_unicast_link_local() => Some("link-local"),
        IpAddr::V6(a) if a.is_multicast() => Some("multicast"),
        IpAddr::V6(a) => a
            .to_ipv4_mapped()
            .and_then(|v4| reaches_this_machine(IpAddr::V4(v4))),
        IpAddr::V4(_) => None,
    }
}

/// The addresses of `addrs` the proxy may connect to: for a literal
/// address none in a special-purpose block, for a name none that reaches
/// this machine or its link ([`Named`]); never one of the host's own.
/// `Err` names the block when none is left.
fn usable(
    target: &str,
    addrs: Vec<SocketAddr>,
    own: &[IpAddr],
    named: Named,
) -> Result<Vec<SocketAddr>, String> {
    let mut why = None;
    let ok: Vec<SocketAddr> = addrs
        .into_iter()
        .filter(|a| {
            let refused = match named {
                Named::Literal => special_purpose(a.ip()),
                Named::ByName => reaches_this_machine(a.ip()).map(String::from),
            };
            match refused {
                Some(block) => {
                    why = Some(format!("{} is in {block}", a.ip()));
                    false
                }
                None if own.contains(&a.ip()) => {
                    why = Some(format!("{} is this machine's own address", a.ip()));
                    false
                }
                None => true,
            }
        })
        .collect();
    if ok.is_empty() {
        let rule = match named {
            Named::Literal => "forwards a literal address in none of IANA's special-purpose blocks",
            Named::ByName => "forwards a name to no address of this machine or its link",
        };
        return Err(format!(
            "{target}: {}: langbench's registry proxy {rule}",
            why.unwrap_or_else(|| "no address".into())
        ));
    }
    Ok(ok)
}

/// The special-purpose block `ip` lies in (`192.0.2.0/24, Documentation
/// (TEST-NET-1) (RFC 5737)`), if any: [`SPECIAL_V4`], [`SPECIAL_V6`], and
/// IPv6 outside 2000::/3.
fn special_purpose(ip: IpAddr) -> Option<String> {
    // A prefix test on the address's bits: hand-written (a few lines)
    // since no network-prefix crate is in Cargo.lock.
    let within = |net: &str| -> bool {
        let Some((base, len)) = net.split_once('/') else {
            return false;
        };
        let Ok(len) = len.parse::<u32>() else {
            return false;
        };
        match (ip, base.parse::<IpAddr>()) {
            (IpAddr::V4(a), Ok(IpAddr::V4(b))) => {
                let mask = u32::MAX.checked_shl(32 - len).unwrap_or(0);
                u32::from(a) & mask == u32::from(b) & mask
            }
            (IpAddr::V6(a), Ok(IpAddr::V6(b))) => {
                let mask = u128::MAX.checked_shl(128 - len).unwrap_or(0);
                u128::from(a) & mask == u128::from(b) & mask
            }
            _ => false,
        }
    };
    let table = match ip {
        IpAddr::V4(_) => SPECIAL_V4,
        IpAddr::V6(_) => SPECIAL_V6,
    };
    // The most specific block names it.
    if let Some((net, name)) = table
        .iter()
        .filter(|(net, _)| within(net))
        .max_by_key(|(net, _)| {
            net.split_once('/')
                .map_or(0, |(_, l)| l.parse().unwrap_or(0))
        })
    {
        return Some(format!("{net}, {name}"));
    }
    if ip.is_ipv6() && !within("2000::/3") {
        return Some(
            "outside 2000::/3, the only IPv6 block IANA allocates as global unicast (RFC 4291)"
                .into(),
        );
    }
    None
}

/// Whether `ip` is an address the proxy may connect to: in no
/// special-purpose block ([`special_purpose`]).
#[cfg(test)]
fn is_public(ip: IpAddr) -> bool {
    special_purpose(ip).is_none()
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

    /// Every block of the tables, its first and last address, and the
    /// ranges issue #37 found open (documentation, benchmarking, NAT64),
    /// are refused with their registry name; addresses next to them and
    /// the registries' real ones are not.
    #[test]
    fn every_special_purpose_block_is_refused_and_public_addresses_are_not() {
        for (net, name) in SPECIAL_V4.iter().chain(SPECIAL_V6) {
            let (base, len) = net.split_once('/').unwrap();
            let len: u32 = len.parse().unwrap();
            let (first, last) = match base.parse::<IpAddr>().unwrap() {
                IpAddr::V4(b) => {
                    let host = u32::MAX.checked_shr(len).unwrap_or(0);
                    (
                        IpAddr::from(std::net::Ipv4Addr::from(u32::from(b))),
                        IpAddr::from(std::net::Ipv4Addr::from(u32::from(b) | host)),
                    )
                }
                IpAddr::V6(b) => {
                    let host = u128::MAX.checked_shr(len).unwrap_or(0);
                    (
                        IpAddr::from(std::net::Ipv6Addr::from(u128::from(b))),
                        IpAddr::from(std::net::Ipv6Addr::from(u128::from(b) | host)),
                    )
                }
            };
            for ip in [first, last] {
                let why = special_purpose(ip).unwrap_or_else(|| panic!("{ip} ({net}) passes"));
                assert!(!is_public(ip));
                // Named by its own block or a more specific one inside it.
                assert!(
                    why.contains(name) || why.contains('/'),
                    "{ip}: {why} (of {net} {name})"
                );
            }
        }
        for special in [
            "192.0.2.1",
            "198.18.0.1",
            "198.19.255.254",
            "203.0.113.80",
            "198.51.100.7",
            "100.64.0.1",
            "169.254.169.254",
            "64:ff9b::7f00:1",
            "64:ff9b::c000:201",
            "::ffff:127.0.0.1",
            "::127.0.0.1",
            "2002:c000:0201::1",
            "2001:db8::1",
            "fd00::2",
            "ff02::1",
            "224.0.0.251",
        ] {
            assert!(!is_public(special.parse().unwrap()), "{special}");
        }
        assert!(
            special_purpose("198.18.5.5".parse().unwrap())
                .unwrap()
                .contains("Benchmarking")
        );
        assert!(
            special_purpose("64:ff9b::a00:1".parse().unwrap())
                .unwrap()
                .contains("IPv4-IPv6 Translat.")
        );
        for public in [
            "151.101.0.223",
            "104.16.0.1",
            "2a04:4e42::223",
            "192.0.3.1",
            "198.20.0.1",
            "203.0.114.1",
            "2001:4860:4860::8888",
        ] {
            assert!(is_public(public.parse().unwrap()), "{public}");
        }
    }

    #[test]
    fn only_the_registries_and_allowed_hosts_pass_by_name() {
        let allow = vec!["mirror.example".to_string(), "pypi.org".to_string()];
        assert!(allowed("pypi.org:443", &allow).is_ok());
        assert!(allowed("PyPI.org.:443", &allow).is_ok());
        assert!(allowed("mirror.example:443", &allow).is_ok());
        for refused in [
            "evil.example:443",
            "192.0.2.1:443",
            "[::1]:443",
            "pypi.org.evil:443",
        ] {
            let why = allowed(refused, &allow).unwrap_err();
            assert!(why.contains("not a package registry"), "{why}");
        }
        // Every registry of the table is allowed by default.
        let names = allowed_names();
        for (_, hosts) in REGISTRIES {
            for h in *hosts {
                assert!(names.contains(&h.to_string()), "{h}");
            }
        }
    }

    /// The proxy end to end on 127.0.0.1 (the test's own namespace: no
    /// root needed): a slow request head is answered 408 within
    /// [`HEAD_TIMEOUT`], past the connection bound a connection is
    /// answered 503 at once, a literal special-purpose address allowed by
    /// name is refused, and the proxy serves them all from its few
    /// threads.
    #[test]
    fn slow_heads_time_out_connections_are_bounded_and_threads_stay_few() {
        use std::net::TcpStream as Std;
        // SAFETY: geteuid cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: the proxy's namespace needs root");
            return;
        }
        let proxy = Proxy::start(8).unwrap();
        // The listener is in the proxy's namespace: join it from a thread.
        let ns = proxy.netns().to_path_buf();
        // The proxy's threads (named lb-proxy-*) of this test process.
        let threads = || {
            std::fs::read_dir("/proc/self/task")
                .unwrap()
                .flatten()
                .filter(|t| {
                    std::fs::read_to_string(t.path().join("comm"))
                        .is_ok_and(|c| c.starts_with("lb-proxy"))
                })
                .count()
        };
        let port = proxy.port;
        let t = std::thread::spawn(move || {
            let f = std::fs::File::open(&ns).unwrap();
            let fd = std::os::fd::AsRawFd::as_raw_fd(&f);
            // SAFETY: setns of this thread into the proxy's namespace, by a
            // descriptor this thread holds open.
            let joined = unsafe { libc::setns(fd, libc::CLONE_NEWNET) };
            assert_eq!(joined, 0);
            let start = Instant::now();
            let mut held: Vec<Std> = (0..8)
                .map(|_| Std::connect(("127.0.0.1", port)).unwrap())
                .collect();
            // The ninth is over the bound: 503 at once.
            let mut over = Std::connect(("127.0.0.1", port)).unwrap();
            let mut got = String::new();
            over.read_to_string(&mut got).unwrap();
            assert!(got.starts_with("HTTP/1.1 503"), "{got}");
            // The eight held heads: 408 within the head timeout.
            for s in &mut held {
                let mut got = String::new();
                s.read_to_string(&mut got).unwrap();
                assert!(got.starts_with("HTTP/1.1 408"), "{got}");
            }
            let waited = start.elapsed();
            assert!(waited < HEAD_TIMEOUT + Duration::from_secs(2), "{waited:?}");
            // A literal documentation address and a NAT64 one, not
            // registries: refused.
            for target in ["192.0.2.1:443", "[64:ff9b::7f00:1]:443"] {
                let mut s = Std::connect(("127.0.0.1", port)).unwrap();
                write!(s, "CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n").unwrap();
                let mut got = String::new();
                s.read_to_string(&mut got).unwrap();
                assert!(got.starts_with("HTTP/1.1 403"), "{got}");
            }
        });
        // While the heads are held: the proxy's threads, not one per
        // connection.
        std::thread::sleep(Duration::from_millis(500));
        assert_eq!(
            threads(),
            3,
            "the proxy's threads while 9 connections are open"
        );
        t.join().unwrap();
        drop(proxy);
        assert_eq!(threads(), 0, "the proxy's threads outlive it");
    }

    /// A literal address in a special-purpose block is refused, named with
    /// its block; a name may lead anywhere but to this machine or its link
    /// (its resolver's choice, not the step's); an address of the
    /// machine's own never; a public one passes either way.
    #[test]
    fn literals_reach_no_special_address_and_names_not_this_machine() {
        let at = |ip: &str| vec![SocketAddr::new(ip.parse().unwrap(), 443)];
        for (ip, block) in [
            ("192.0.2.1", "TEST-NET-1"),
            ("198.18.0.1", "Benchmarking"),
            ("203.0.113.9", "TEST-NET-3"),
            ("64:ff9b::a00:1", "IPv4-IPv6 Translat."),
            ("10.0.0.1", "Private-Use"),
            ("127.0.0.1", "Loopback"),
        ] {
            let why = usable("[x]:443", at(ip), &[], Named::Literal).unwrap_err();
            assert!(why.contains(block), "{why}");
            if !ip.starts_with("127.") {
                // The same address a registry's name resolves to: the
                // machine's mirror or egress proxy.
                assert_eq!(
                    usable("pypi.org:443", at(ip), &[], Named::ByName).unwrap(),
                    at(ip)
                );
            }
        }
        for (ip, block) in [
            ("127.0.0.1", "loopback"),
            ("127.9.9.9", "loopback"),
            ("0.0.0.0", "this network"),
            ("169.254.169.254", "link-local"),
            ("224.0.0.1", "multicast"),
            ("255.255.255.255", "broadcast"),
            ("::1", "loopback"),
            ("::", "unspecified"),
            ("fe80::1", "link-local"),
            ("ff02::1", "multicast"),
            ("::ffff:127.0.0.1", "loopback"),
            ("::ffff:169.254.169.254", "link-local"),
        ] {
            let why = usable("pypi.org:443", at(ip), &[], Named::ByName).unwrap_err();
            assert!(why.contains(block), "{ip}: {why}");
        }
        let own: IpAddr = "151.101.0.223".parse().unwrap();
        for named in [Named::Literal, Named::ByName] {
            assert!(usable("x:443", at("151.101.0.223"), &[own], named).is_err());
            assert_eq!(
                usable("x:443", at("151.101.0.223"), &[], named)
                    .unwrap()
                    .len(),
                1
            );
        }
        // A literal list with both: only the public address is used.
        let mixed = [at("192.168.1.1"), at("151.101.0.223")].concat();
        assert_eq!(
            usable("x:443", mixed, &[], Named::Literal).unwrap(),
            at("151.101.0.223")
        );
    }
}
