//! langbench's own WebSocket load client (tokio + tokio-tungstenite).
//!
//! C connections each loop: binary `hello <n>`, await the echo and check its
//! type and bytes; text `hello <n+1>`, await and check; sleep D. D changes
//! per phase while the connections stay open. Latency is measured from the
//! send to the matching echo on the monotonic clock, into HdrHistograms with
//! microsecond resolution.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use hdrhistogram::Histogram;
use tokio::net::TcpStream;
use tokio::sync::Semaphore;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

const SHARDS: usize = 64;

/// Counters and histograms shared by every connection.
pub struct Shared {
    /// The current per-loop sleep in microseconds.
    delay_us: AtomicU64,
    /// Echoes are counted only while measuring (not during warm-up).
    measuring: AtomicBool,
    stop: AtomicBool,
    /// How long a connection waits for one echo before counting it as lost.
    echo_timeout: Duration,
    echoes: AtomicU64,
    errors: AtomicU64,
    handshake_failures: AtomicU64,
    alive: AtomicUsize,
    /// First few distinct error messages, for the report.
    error_samples: std::sync::Mutex<Vec<String>>,
    shards: Vec<std::sync::Mutex<Histogram<u64>>>,
}

fn histogram() -> Histogram<u64> {
    // 1 µs .. 60 s, 3 significant digits.
    Histogram::new_with_bounds(1, 60_000_000, 3).expect("valid histogram bounds")
}

impl Shared {
    pub fn new(echo_timeout: Duration) -> Arc<Shared> {
        Arc::new(Shared {
            delay_us: AtomicU64::new(1_000_000),
            measuring: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            echo_timeout,
            echoes: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            handshake_failures: AtomicU64::new(0),
            alive: AtomicUsize::new(0),
            error_samples: std::sync::Mutex::new(Vec::new()),
            shards: (0..SHARDS)
                .map(|_| std::sync::Mutex::new(histogram()))
                .collect(),
        })
    }

    fn error(&self, msg: String) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut s) = self.error_samples.lock()
            && s.len() < 5
            && !s.contains(&msg)
        {
            s.push(msg);
        }
    }

    fn record(&self, conn: usize, latency: Duration) {
        if !self.measuring.load(Ordering::Relaxed) {
            return;
        }
        self.echoes.fetch_add(1, Ordering::Relaxed);
        let us = (latency.as_micros() as u64).clamp(1, 60_000_000);
        if let Ok(mut h) = self.shards[conn % SHARDS].lock() {
            let _ = h.record(us);
        }
    }

    pub fn set_delay(&self, d: Duration) {
        self.delay_us.store(d.as_micros() as u64, Ordering::SeqCst);
    }

    /// Starts a measured window: clears counters and histograms.
    pub fn start_window(&self) {
        for s in &self.shards {
            if let Ok(mut h) = s.lock() {
                h.reset();
            }
        }
        self.echoes.store(0, Ordering::SeqCst);
        self.errors.store(0, Ordering::SeqCst);
        if let Ok(mut s) = self.error_samples.lock() {
            s.clear();
        }
        self.measuring.store(true, Ordering::SeqCst);
    }

    /// Ends the window and returns what it saw.
    pub fn end_window(&self, window: Duration) -> WindowStats {
        self.measuring.store(false, Ordering::SeqCst);
        let mut all = histogram();
        for s in &self.shards {
            if let Ok(h) = s.lock() {
                let _ = all.add(&*h);
            }
        }
        let echoes = self.echoes.load(Ordering::SeqCst);
        let ms = |v: f64| v / 1000.0;
        WindowStats {
            echoes,
            rps: echoes as f64 / window.as_secs_f64(),
            latency_mean_ms: if all.is_empty() { 0.0 } else { ms(all.mean()) },
            latency_p50_ms: Some(ms(all.value_at_quantile(0.5) as f64)),
            latency_p99_ms: Some(ms(all.value_at_quantile(0.99) as f64)),
            latency_max_ms: ms(all.max() as f64),
            errors: Some(self.errors.load(Ordering::SeqCst)),
            error_samples: self
                .error_samples
                .lock()
                .map(|s| s.clone())
                .unwrap_or_default(),
            alive: Some(self.alive.load(Ordering::SeqCst)),
        }
    }

    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    pub fn alive(&self) -> usize {
        self.alive.load(Ordering::SeqCst)
    }

    pub fn handshake_failures(&self) -> u64 {
        self.handshake_failures.load(Ordering::SeqCst)
    }
}

/// What one measured window saw.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct WindowStats {
    pub echoes: u64,
    pub rps: f64,
    pub latency_mean_ms: f64,
    /// `None` where a published edition did not give it.
    #[serde(default)]
    pub latency_p50_ms: Option<f64>,
    #[serde(default)]
    pub latency_p99_ms: Option<f64>,
    pub latency_max_ms: f64,
    #[serde(default)]
    pub errors: Option<u64>,
    #[serde(default)]
    pub error_samples: Vec<String>,
    #[serde(default)]
    pub alive: Option<usize>,
}

impl WindowStats {
    /// Errors seen (0 where not published).
    pub fn error_count(&self) -> u64 {
        self.errors.unwrap_or(0)
    }
}

fn config() -> WebSocketConfig {
    // Small buffers: 10,000 connections must not cost the client gigabytes.
    WebSocketConfig::default()
        .read_buffer_size(4096)
        .write_buffer_size(0)
        .max_message_size(Some(1 << 20))
}

/// Opens `connections` connections (at most `max_handshakes` handshakes in
/// flight) and starts their loops. Returns once every connection either is
/// open or has failed its handshake.
pub async fn open(
    addr: SocketAddr,
    connections: usize,
    max_handshakes: usize,
    shared: Arc<Shared>,
) -> Vec<tokio::task::JoinHandle<()>> {
    let gate = Arc::new(Semaphore::new(max_handshakes.max(1)));
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel::<()>(connections.max(1));
    let url = format!("ws://{addr}/ws");
    let mut tasks = Vec::with_capacity(connections);
    for id in 0..connections {
        let shared = shared.clone();
        let gate = gate.clone();
        let ready = ready_tx.clone();
        let url = url.clone();
        tasks.push(tokio::spawn(async move {
            let permit = gate.acquire_owned().await;
            let ws = async {
                let tcp = TcpStream::connect(addr).await?;
                tcp.set_nodelay(true)?;
                let (ws, _) = tokio::time::timeout(
                    Duration::from_secs(30),
                    tokio_tungstenite::client_async_with_config(url.as_str(), tcp, Some(config())),
                )
                .await
                .map_err(|_| std::io::Error::other("handshake timed out"))?
                .map_err(std::io::Error::other)?;
                Ok::<_, std::io::Error>(ws)
            }
            .await;
            drop(permit);
            let ws = match ws {
                Ok(ws) => ws,
                Err(e) => {
                    shared.handshake_failures.fetch_add(1, Ordering::Relaxed);
                    shared.error(format!("handshake: {e}"));
                    let _ = ready.send(()).await;
                    return;
                }
            };
            shared.alive.fetch_add(1, Ordering::SeqCst);
            let _ = ready.send(()).await;
            drop(ready);
            connection(id, ws, &shared).await;
            shared.alive.fetch_sub(1, Ordering::SeqCst);
        }));
    }
    drop(ready_tx);
    for _ in 0..connections {
        if ready_rx.recv().await.is_none() {
            break;
        }
    }
    tasks
}

type Ws = tokio_tungstenite::WebSocketStream<TcpStream>;

/// Why an echo failed; `fatal` when the connection is gone.
struct EchoError {
    message: String,
    fatal: bool,
}

fn fatal(message: String) -> EchoError {
    EchoError {
        message,
        fatal: true,
    }
}

fn wrong(message: &str) -> EchoError {
    EchoError {
        message: message.into(),
        fatal: false,
    }
}

/// Whether `got` is the late echo of an earlier message of this connection
/// (`hello <m>` with m < n): after an echo timed out (counted then), its echo
/// may still arrive and must not be mistaken for the answer to message n.
fn is_stale(got: &Message, n: u64) -> bool {
    let payload: &[u8] = match got {
        Message::Binary(b) => b,
        Message::Text(t) => t.as_bytes(),
        _ => return false,
    };
    std::str::from_utf8(payload)
        .ok()
        .and_then(|s| s.strip_prefix("hello "))
        .and_then(|m| m.parse::<u64>().ok())
        .is_some_and(|m| m < n)
}

/// Sends message number `n` and waits for its echo; checks type and bytes.
async fn echo(ws: &mut Ws, msg: Message, n: u64, timeout: Duration) -> Result<Duration, EchoError> {
    let expected = msg.clone();
    let t0 = Instant::now();
    ws.send(msg)
        .await
        .map_err(|e| fatal(format!("send: {e}")))?;
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let got = tokio::time::timeout_at(deadline, ws.next())
            .await
            .map_err(|_| wrong(&format!("no echo within {:.1} s", timeout.as_secs_f64())))?;
        let got = match got {
            None => return Err(fatal("connection closed".into())),
            Some(Err(e)) => return Err(fatal(format!("read: {e}"))),
            Some(Ok(m)) => m,
        };
        let latency = t0.elapsed();
        if is_stale(&got, n) {
            continue;
        }
        return match (&expected, &got) {
            (_, Message::Ping(_) | Message::Pong(_)) => continue,
            (_, Message::Close(_)) => Err(fatal("server closed the connection".into())),
            (Message::Binary(a), Message::Binary(b)) if a == b => Ok(latency),
            (Message::Text(a), Message::Text(b)) if a == b => Ok(latency),
            (Message::Binary(_), Message::Text(_)) => Err(wrong("binary message echoed as text")),
            (Message::Text(_), Message::Binary(_)) => Err(wrong("text message echoed as binary")),
            _ => Err(wrong("echo differs from what was sent")),
        };
    }
}

async fn connection(id: usize, mut ws: Ws, shared: &Shared) {
    let mut n: u64 = 0;
    // Spread the first sends over the first delay so connections do not
    // move in lockstep.
    let first = shared.delay_us.load(Ordering::Relaxed);
    if first > 0 {
        let offset = (id as u64 * 7919) % first;
        tokio::time::sleep(Duration::from_micros(offset)).await;
    }
    while !shared.stop.load(Ordering::Relaxed) {
        for binary in [true, false] {
            n += 1;
            let payload = format!("hello {n}");
            let msg = if binary {
                Message::Binary(payload.into_bytes().into())
            } else {
                Message::Text(payload.into())
            };
            match echo(&mut ws, msg, n, shared.echo_timeout).await {
                Ok(l) => shared.record(id, l),
                Err(e) => {
                    shared.error(e.message);
                    if e.fatal {
                        return;
                    }
                }
            }
        }
        let d = shared.delay_us.load(Ordering::Relaxed);
        if d > 0 {
            tokio::time::sleep(Duration::from_micros(d)).await;
        }
    }
    let _ = ws.close(None).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn late_echoes_are_recognised_as_stale() {
        assert!(is_stale(&Message::Text("hello 3".into()), 5));
        assert!(is_stale(&Message::Binary(b"hello 4".to_vec().into()), 5));
        assert!(!is_stale(&Message::Text("hello 5".into()), 5));
        assert!(!is_stale(&Message::Binary(b"5 olleh".to_vec().into()), 5));
        assert!(!is_stale(&Message::Text("hello x".into()), 5));
    }
}
