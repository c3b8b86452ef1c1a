//! WebSocket echo server (langbench ws-echo): tokio + tokio-tungstenite.
//! Usage: ws-echo <port>   (listens on 127.0.0.1 only, any path)

use futures_util::{SinkExt, StreamExt};
use std::net::SocketAddr;
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::signal::unix::{signal, SignalKind};
use tokio_tungstenite::tungstenite::Message;

async fn handle(stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let Ok(mut ws) = tokio_tungstenite::accept_async(stream).await else {
        return;
    };
    while let Some(Ok(msg)) = ws.next().await {
        match msg {
            // same type, same bytes
            Message::Text(_) | Message::Binary(_) => {
                if ws.send(msg).await.is_err() {
                    return;
                }
            }
            // pings are answered by tungstenite itself; close replies too
            Message::Close(_) => return,
            _ => {}
        }
    }
}

fn listen(port: u16) -> std::io::Result<TcpListener> {
    let socket = TcpSocket::new_v4()?;
    socket.set_reuseaddr(true)?;
    socket.bind(SocketAddr::from(([127, 0, 0, 1], port)))?;
    socket.listen(4096)
}

#[tokio::main]
async fn main() {
    let port: u16 = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(8080);
    // TcpListener::bind would use std's backlog of 128: ask for 4096.
    let listener = match listen(port) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("bind 127.0.0.1:{port}: {e}");
            std::process::exit(1);
        }
    };
    eprintln!("rust-tokio-tungstenite ws-echo listening on 127.0.0.1:{port}");

    let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
    let mut int = signal(SignalKind::interrupt()).expect("SIGINT handler");
    loop {
        tokio::select! {
            res = listener.accept() => {
                if let Ok((stream, _)) = res {
                    tokio::spawn(handle(stream));
                }
            }
            _ = term.recv() => break,
            _ = int.recv() => break,
        }
    }
    std::process::exit(0);
}
