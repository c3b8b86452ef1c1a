//! ws-client-crates CLIENT ADDR CONNECTIONS DELAY_MS SECONDS
//!
//! CLIENT: langbench | minimal | tungstenite | tokio-websockets. Opens
//! CONNECTIONS connections to ws://ADDR/ws, runs the langbench echo loop
//! for SECONDS after a warm-up, and prints echoes/s, the client's CPU µs per
//! echo (getrusage over the window), latency and RSS per connection; the
//! last line is `RESULT {json}` for the driver. Every client does the same
//! work per echo: build the message, send, check type and bytes, time it
//! on the monotonic clock into an HdrHistogram, sleep.

mod minimal;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};

fn rss_kb() -> u64 {
    let s = std::fs::read_to_string("/proc/self/statm").unwrap();
    s.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 4
}

fn cpu_s() -> f64 {
    // getrusage: µs resolution (/proc's ticks are 10 ms).
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut ru);
        ru
    };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// User-space CPU seconds of this process (getrusage ru_utime): the part
/// of the client's cost that is its own, not the kernel's TCP work.
fn user_s() -> f64 {
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut ru);
        ru
    };
    ru.ru_utime.tv_sec as f64 + ru.ru_utime.tv_usec as f64 / 1e6
}

static USER0: std::sync::Mutex<f64> = std::sync::Mutex::new(0.0);
static USER1: std::sync::Mutex<f64> = std::sync::Mutex::new(0.0);

fn mark_user(start: bool) {
    *(if start { &USER0 } else { &USER1 }).lock().unwrap() = user_s();
}

fn report(client: &str, conns: usize, delay_ms: &str, echoes: u64, errors: u64, window: f64, cpu: f64, p50: f64, p99: f64, rss_per_conn: f64) {
    println!(
        "{client}: {conns} connections, delay {delay_ms} ms: {:.0} echoes/s, {errors} errors, client {:.2} cores, {:.2} µs CPU/echo, p50 {p50:.2} ms, p99 {p99:.2} ms, {rss_per_conn:.1} KB/connection",
        echoes as f64 / window,
        cpu / window,
        cpu * 1e6 / echoes.max(1) as f64,
    );
    let user = *USER1.lock().unwrap() - *USER0.lock().unwrap();
    println!(
        "RESULT {{\"user_us_per_echo\":{},\"client\":\"{client}\",\"connections\":{conns},\"echoes\":{echoes},\"errors\":{errors},\"window_s\":{window},\"cpu_s\":{cpu},\"rps\":{},\"cpu_us_per_echo\":{},\"p50_ms\":{p50},\"p99_ms\":{p99},\"rss_kb_per_conn\":{rss_per_conn}}}",
        user * 1e6 / echoes.max(1) as f64,
        echoes as f64 / window,
        cpu * 1e6 / echoes.max(1) as f64
    );
}

/// langbench's own client, through its library.
fn langbench_client(addr: &str, conns: usize, delay: Duration, secs: f64, delay_ms: &str) {
    use langbench::ws_load::client::{Client, ClientOptions, Target};
    let rss0 = rss_kb();
    let cpus = langbench::ws_load::drive::own_cpus();
    let mut c = Client::open(
        &Target::local(addr.parse().unwrap()),
        &ClientOptions {
            connections: conns,
            max_handshakes: 256,
            echo_timeout: Duration::from_secs(10),
            threads: cpus.len(),
            cpus,
            first_delay: delay,
            spin: Duration::ZERO,
            open_timeout: Duration::from_secs(120),
        },
    );
    c.set_delay(delay);
    std::thread::sleep(Duration::from_secs(2));
    let t0 = Instant::now();
    mark_user(true);
    c.start_window();
    std::thread::sleep(Duration::from_secs_f64(secs));
    let w = c.end_window();
    mark_user(false);
    let window = t0.elapsed().as_secs_f64();
    let rss = rss_kb();
    report(
        "langbench",
        conns,
        delay_ms,
        w.stats.echoes,
        w.stats.error_count(),
        window,
        w.client_cpu_s,
        w.stats.latency_p50_ms.unwrap_or(0.0),
        w.stats.latency_p99_ms.unwrap_or(0.0),
        (rss - rss0) as f64 / conns as f64,
    );
    c.stop();
}

struct Shared {
    counting: AtomicBool,
    echoes: AtomicU64,
    errors: AtomicU64,
    hist: std::sync::Mutex<hdrhistogram::Histogram<u64>>,
}

type Permit = Result<tokio::sync::OwnedSemaphorePermit, tokio::sync::AcquireError>;
type Up = tokio::sync::mpsc::UnboundedSender<()>;

async fn tungstenite_conn(addr: String, delay: Duration, sh: Arc<Shared>, permit: Permit, up: Up) {
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
    let tcp = tokio::net::TcpStream::connect(&addr).await.unwrap();
    tcp.set_nodelay(true).unwrap();
    let cfg = WebSocketConfig::default().read_buffer_size(4096).write_buffer_size(0);
    let (mut ws, _) =
        tokio_tungstenite::client_async_with_config(format!("ws://{addr}/ws"), tcp, Some(cfg))
            .await
            .unwrap();
    drop(permit);
    let _ = up.send(());
    let mut n = 0u64;
    loop {
        for bin in [true, false] {
            n += 1;
            let p = format!("hello {n}");
            let m = if bin { Message::Binary(p.clone().into_bytes().into()) } else { Message::Text(p.clone().into()) };
            let t0 = Instant::now();
            ws.send(m).await.unwrap();
            let ok = match ws.next().await {
                Some(Ok(Message::Binary(b))) => bin && b == p.as_bytes(),
                Some(Ok(Message::Text(t))) => !bin && t.as_str() == p,
                _ => false,
            };
            count(&sh, ok, t0);
        }
        tokio::time::sleep(delay).await;
    }
}

async fn tokio_websockets_conn(addr: String, delay: Duration, sh: Arc<Shared>, permit: Permit, up: Up) {
    use tokio_websockets::{ClientBuilder, Message};
    let tcp = tokio::net::TcpStream::connect(&addr).await.unwrap();
    tcp.set_nodelay(true).unwrap();
    let uri: http::Uri = format!("ws://{addr}/ws").parse().unwrap();
    let (mut ws, _) = ClientBuilder::from_uri(uri).connect_on(tcp).await.unwrap();
    drop(permit);
    let _ = up.send(());
    let mut n = 0u64;
    loop {
        for bin in [true, false] {
            n += 1;
            let p = format!("hello {n}");
            let m = if bin { Message::binary(p.clone().into_bytes()) } else { Message::text(p.clone()) };
            let t0 = Instant::now();
            ws.send(m).await.unwrap();
            let ok = match ws.next().await {
                Some(Ok(m)) => m.is_binary() == bin && &m.as_payload()[..] == p.as_bytes(),
                _ => false,
            };
            count(&sh, ok, t0);
        }
        tokio::time::sleep(delay).await;
    }
}

fn count(sh: &Shared, ok: bool, t0: Instant) {
    if sh.counting.load(Ordering::Relaxed) {
        if ok {
            sh.echoes.fetch_add(1, Ordering::Relaxed);
            let us = (t0.elapsed().as_micros() as u64).max(1);
            let _ = sh.hist.lock().unwrap().record(us);
        } else {
            sh.errors.fetch_add(1, Ordering::Relaxed);
        }
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let (krate, addr) = (a[1].clone(), a[2].clone());
    let conns: usize = a[3].parse().unwrap();
    let delay = Duration::from_micros((a[4].parse::<f64>().unwrap() * 1000.0) as u64);
    let secs: f64 = a[5].parse().unwrap();
    match krate.as_str() {
        "langbench" => langbench_client(&addr, conns, delay, secs, &a[4]),
        "minimal" => {
            let rss0 = rss_kb();
            let o = minimal::run(&addr, conns, delay, Duration::from_secs(2), secs, cpu_s, mark_user);
            let rss = rss_kb();
            let q = |x: f64| o.hist.value_at_quantile(x) as f64 / 1000.0;
            report("minimal", conns, &a[4], o.echoes, o.errors, o.window_s, o.cpu_s, q(0.5), q(0.99), (rss - rss0) as f64 / conns as f64);
        }
        _ => tokio_main(krate, addr, conns, delay, secs, &a[4]),
    }
    std::process::exit(0);
}

fn tokio_main(krate: String, addr: String, conns: usize, delay: Duration, secs: f64, delay_ms: &str) {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async move {
    let sh = Arc::new(Shared {
        counting: AtomicBool::new(false),
        echoes: AtomicU64::new(0),
        errors: AtomicU64::new(0),
        hist: std::sync::Mutex::new(hdrhistogram::Histogram::new_with_bounds(1, 60_000_000, 3).unwrap()),
    });
    let rss0 = rss_kb();
    let gate = Arc::new(tokio::sync::Semaphore::new(256));
    let (up_tx, mut up_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    for _ in 0..conns {
        let (addr, sh, gate, up) = (addr.clone(), sh.clone(), gate.clone(), up_tx.clone());
        let k = krate.clone();
        tokio::spawn(async move {
            // The gate is held through the handshake (it used to be
            // dropped before connecting, so it gated nothing).
            let permit = gate.acquire_owned().await;
            match k.as_str() {
                "tungstenite" => tungstenite_conn(addr, delay, sh, permit, up).await,
                "tokio-websockets" => tokio_websockets_conn(addr, delay, sh, permit, up).await,
                other => panic!("unknown client {other}"),
            }
        });
    }
    // Every connection open, then the same 2 s warm-up as the others.
    for _ in 0..conns {
        up_rx.recv().await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (c0, t0) = (cpu_s(), Instant::now());
    mark_user(true);
    sh.hist.lock().unwrap().reset();
    sh.counting.store(true, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_secs_f64(secs)).await;
    sh.counting.store(false, Ordering::SeqCst);
    let (c1, w) = (cpu_s(), t0.elapsed().as_secs_f64());
    mark_user(false);
    let rss = rss_kb();
    let h = sh.hist.lock().unwrap().clone();
    let q = |x: f64| h.value_at_quantile(x) as f64 / 1000.0;
    report(
        &krate,
        conns,
        delay_ms,
        sh.echoes.load(Ordering::SeqCst),
        sh.errors.load(Ordering::SeqCst),
        w,
        c1 - c0,
        q(0.5),
        q(0.99),
        (rss - rss0) as f64 / conns as f64,
    );
        });
}
