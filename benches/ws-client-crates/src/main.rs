//! ws-client-crates CRATE ADDR CONNECTIONS DELAY_MS SECONDS
//!
//! CRATE: tungstenite | tokio-websockets. Opens CONNECTIONS connections to
//! ws://ADDR/ws, runs the langbench echo loop for SECONDS after a 2 s warm-up,
//! and prints echoes/s, the client's CPU cores and RSS per connection.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};

fn rss_kb() -> u64 {
    let s = std::fs::read_to_string("/proc/self/statm").unwrap();
    s.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 4
}

fn cpu_s() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap();
    let rest = s.rsplit_once(')').unwrap().1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    (f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap()) / 100.0
}

struct Shared {
    counting: AtomicBool,
    echoes: AtomicU64,
    errors: AtomicU64,
}

async fn tungstenite_conn(addr: String, delay: Duration, sh: Arc<Shared>) {
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
    let tcp = tokio::net::TcpStream::connect(&addr).await.unwrap();
    tcp.set_nodelay(true).unwrap();
    let cfg = WebSocketConfig::default().read_buffer_size(4096).write_buffer_size(0);
    let (mut ws, _) =
        tokio_tungstenite::client_async_with_config(format!("ws://{addr}/ws"), tcp, Some(cfg))
            .await
            .unwrap();
    let mut n = 0u64;
    loop {
        for bin in [true, false] {
            n += 1;
            let p = format!("hello {n}");
            let m = if bin { Message::Binary(p.clone().into_bytes().into()) } else { Message::Text(p.clone().into()) };
            ws.send(m).await.unwrap();
            let ok = match ws.next().await {
                Some(Ok(Message::Binary(b))) => bin && b == p.as_bytes(),
                Some(Ok(Message::Text(t))) => !bin && t.as_str() == p,
                _ => false,
            };
            count(&sh, ok);
        }
        tokio::time::sleep(delay).await;
    }
}

async fn tokio_websockets_conn(addr: String, delay: Duration, sh: Arc<Shared>) {
    use tokio_websockets::{ClientBuilder, Message};
    let tcp = tokio::net::TcpStream::connect(&addr).await.unwrap();
    tcp.set_nodelay(true).unwrap();
    let uri: http::Uri = format!("ws://{addr}/ws").parse().unwrap();
    let (mut ws, _) = ClientBuilder::from_uri(uri).connect_on(tcp).await.unwrap();
    let mut n = 0u64;
    loop {
        for bin in [true, false] {
            n += 1;
            let p = format!("hello {n}");
            let m = if bin { Message::binary(p.clone().into_bytes()) } else { Message::text(p.clone()) };
            ws.send(m).await.unwrap();
            let ok = match ws.next().await {
                Some(Ok(m)) => m.is_binary() == bin && &m.as_payload()[..] == p.as_bytes(),
                _ => false,
            };
            count(&sh, ok);
        }
        tokio::time::sleep(delay).await;
    }
}

fn count(sh: &Shared, ok: bool) {
    if sh.counting.load(Ordering::Relaxed) {
        if ok {
            sh.echoes.fetch_add(1, Ordering::Relaxed);
        } else {
            sh.errors.fetch_add(1, Ordering::Relaxed);
        }
    }
}

#[tokio::main]
async fn main() {
    let a: Vec<String> = std::env::args().collect();
    let (krate, addr) = (a[1].clone(), a[2].clone());
    let conns: usize = a[3].parse().unwrap();
    let delay = Duration::from_micros((a[4].parse::<f64>().unwrap() * 1000.0) as u64);
    let secs: f64 = a[5].parse().unwrap();
    let sh = Arc::new(Shared { counting: AtomicBool::new(false), echoes: AtomicU64::new(0), errors: AtomicU64::new(0) });
    let rss0 = rss_kb();
    let gate = Arc::new(tokio::sync::Semaphore::new(256));
    for _ in 0..conns {
        let (addr, sh, gate) = (addr.clone(), sh.clone(), gate.clone());
        let k = krate.clone();
        tokio::spawn(async move {
            let _p = gate.acquire().await;
            tokio::time::sleep(Duration::from_millis(1)).await;
            drop(_p);
            match k.as_str() {
                "tungstenite" => tungstenite_conn(addr, delay, sh).await,
                "tokio-websockets" => tokio_websockets_conn(addr, delay, sh).await,
                other => panic!("unknown crate {other}"),
            }
        });
    }
    tokio::time::sleep(Duration::from_secs(4)).await;
    let (c0, t0) = (cpu_s(), Instant::now());
    sh.counting.store(true, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_secs_f64(secs)).await;
    sh.counting.store(false, Ordering::SeqCst);
    let (c1, w) = (cpu_s(), t0.elapsed().as_secs_f64());
    let rss = rss_kb();
    println!(
        "{krate}: {conns} connections, delay {} ms: {:.0} echoes/s, {} errors, client {:.2} cores, RSS {} KB ({:.1} KB/connection)",
        a[4],
        sh.echoes.load(Ordering::SeqCst) as f64 / w,
        sh.errors.load(Ordering::SeqCst),
        (c1 - c0) / w,
        rss,
        (rss - rss0) as f64 / conns as f64
    );
    std::process::exit(0);
}
