//! Issue #59, rows 2, 5 and 11: langbench's own memory, time and terminal
//! against a hostile WebSocket server. Each server is a real one on
//! 127.0.0.1 that the test starts, met the way `ws --target` meets a server
//! langbench did not start (docs/ws.md): an endless fragmented message, a
//! ping flood that never reads its pongs (langbench's own peak RSS measured
//! by wait4 under both), a handshake dripped a byte a second, and close
//! reasons holding terminal escapes (also from a server `ws` starts).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::util::*;

/// What a hostile server does once a connection is open.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// One text message that never ends: continuation frames of 60,000
    /// bytes, none final.
    Fragments,
    /// Pings of 125 bytes as fast as the socket takes them; it never reads.
    Pings,
    /// The handshake's response, one byte a second.
    Drip,
    /// Echoes for 0.8 s (into the measured window of a 0.5 s warm-up),
    /// then answers a message with a close frame whose reason holds OSC 52,
    /// OSC 0, ESC[2J and a C1 CSI around the canary `canary-bye`.
    CloseOsc,
}

/// The most a flooding server sends in all (its canary budget): more than
/// the peak RSS bound below, so a client that kept it all would fail the
/// bound, and a machine that runs this against a broken client is not
/// flooded beyond it.
const BUDGET: u64 = 320 << 20;

/// langbench's own peak RSS under attack must stay below this (it is
/// about 11 MB at this load).
const RSS_BOUND_KB: u64 = 200 * 1024;

const CLOSE_REASON: &[u8] =
    b"\x1b]52;c;Y2FuYXJ5\x07\x1b]0;canary-title\x07\x1b[2J\xc2\x9b31m canary-bye";

/// A hostile server on 127.0.0.1, stopped when dropped.
struct Hostile {
    port: u16,
    stop: Arc<AtomicBool>,
    /// Connections accepted.
    accepted: Arc<AtomicUsize>,
    /// Bytes its floods sent, all connections together.
    sent: Arc<AtomicU64>,
}

impl Hostile {
    fn start(mode: Mode) -> Hostile {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let accepted = Arc::new(AtomicUsize::new(0));
        let sent = Arc::new(AtomicU64::new(0));
        let (s, a, n) = (stop.clone(), accepted.clone(), sent.clone());
        std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((conn, _)) => {
                        a.fetch_add(1, Ordering::SeqCst);
                        let (s, n) = (s.clone(), n.clone());
                        std::thread::spawn(move || serve(conn, mode, &s, &n));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        Hostile {
            port,
            stop,
            accepted,
            sent,
        }
    }

    fn url(&self) -> String {
        format!("ws://127.0.0.1:{}/ws", self.port)
    }
}

impl Drop for Hostile {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// The upgrade request's key (None: the connection ended first).
fn read_request(conn: &mut TcpStream) -> Option<String> {
    let mut req = Vec::new();
    let mut b = [0u8; 1024];
    while !req.windows(4).any(|w| w == b"\r\n\r\n") && req.len() < 16 * 1024 {
        match conn.read(&mut b) {
            Ok(0) | Err(_) => return None,
            Ok(n) => req.extend_from_slice(&b[..n]),
        }
    }
    String::from_utf8_lossy(&req).lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case("sec-websocket-key")
            .then(|| v.trim().to_string())
    })
}

fn response(key: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Accept: {}\r\n\r\n",
        tungstenite::handshake::derive_accept_key(key.as_bytes())
    )
    .into_bytes()
}

/// Writes `bytes` whole unless the peer is gone or the server stops
/// (a write blocked by a peer that stopped reading looks again each
/// second).
fn send(conn: &mut TcpStream, mut bytes: &[u8], stop: &AtomicBool) -> bool {
    while !bytes.is_empty() {
        if stop.load(Ordering::SeqCst) {
            return false;
        }
        match conn.write(bytes) {
            Ok(0) => return false,
            Ok(n) => bytes = &bytes[n..],
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return false,
        }
    }
    true
}

/// Sends `frame` again and again until the budget is spent, the peer is
/// gone or the server stops.
fn flood(conn: &mut TcpStream, frame: &[u8], stop: &AtomicBool, sent: &AtomicU64) {
    while sent.fetch_add(frame.len() as u64, Ordering::SeqCst) < BUDGET {
        if !send(conn, frame, stop) {
            return;
        }
    }
}

fn serve(mut conn: TcpStream, mode: Mode, stop: &AtomicBool, sent: &AtomicU64) {
    let _ = conn.set_write_timeout(Some(Duration::from_secs(1)));
    let Some(key) = read_request(&mut conn) else {
        return;
    };
    let resp = response(&key);
    if mode == Mode::Drip {
        for b in resp {
            if stop.load(Ordering::SeqCst) || !send(&mut conn, &[b], stop) {
                return;
            }
            std::thread::sleep(Duration::from_secs(1));
        }
        return;
    }
    if !send(&mut conn, &resp, stop) {
        return;
    }
    match mode {
        Mode::Fragments => {
            let start = [&[0x01u8, 126, 0xEA, 0x60][..], &[b'x'; 60_000]].concat();
            let more = [&[0x00u8, 126, 0xEA, 0x60][..], &[b'x'; 60_000]].concat();
            if send(&mut conn, &start, stop) {
                flood(&mut conn, &more, stop, sent);
            }
        }
        Mode::Pings => {
            let ping = [&[0x89u8, 125][..], &[b'p'; 125]].concat();
            flood(&mut conn, &ping.repeat(8192), stop, sent);
        }
        Mode::CloseOsc => {
            let t = Instant::now();
            // The client's frames: masked, short (`hello <n>`).
            let mut head = [0u8; 2];
            while conn.read_exact(&mut head).is_ok() {
                let mut rest = vec![0u8; 4 + (head[1] & 0x7F) as usize];
                if conn.read_exact(&mut rest).is_err() {
                    return;
                }
                if t.elapsed() >= Duration::from_millis(800) {
                    let mut close = vec![0x88, (2 + CLOSE_REASON.len()) as u8, 0x03, 0xF3];
                    close.extend_from_slice(CLOSE_REASON);
                    send(&mut conn, &close, stop);
                    return;
                }
                let (mask, payload) = rest.split_at(4);
                let mut echo = vec![0x80 | (head[0] & 0x0F), payload.len() as u8];
                echo.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i & 3]));
                if !send(&mut conn, &echo, stop) {
                    return;
                }
            }
        }
        Mode::Drip => unreachable!(),
    }
}

/// How a langbench process ended.
struct Ended {
    /// Its exit code (None: killed by a signal).
    code: Option<i32>,
    /// Its own peak RSS, KB: GNU time's %M where `target` ran it under
    /// /usr/bin/time, else wait4's.
    max_rss_kb: u64,
    /// Its stdout and stderr, in order.
    output: String,
}

/// Waits for `child` (its output going to `log`) at most `limit`: how it
/// ended, or a panic naming what it printed if it outlived the limit (it
/// is killed).
fn wait_for(child: std::process::Child, log: &Path, limit: Duration) -> Ended {
    let pid = child.id() as i32;
    let t = Instant::now();
    let mut status = 0;
    // SAFETY: rusage is plain integers; all zeroes is a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: wait4 on our own child, into a status and rusage we own.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut ru) };
        if r == pid {
            break;
        }
        if t.elapsed() > limit {
            // SAFETY: killing and reaping our own child.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                // And its process group, where it leads one (under time).
                libc::kill(-pid, libc::SIGKILL);
                libc::wait4(pid, &mut status, 0, &mut ru);
            }
            panic!(
                "langbench still ran after {limit:?}:\n{}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ended {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        max_rss_kb: ru.ru_maxrss as u64,
        output: std::fs::read_to_string(log).unwrap(),
    }
}

/// `cmd` started with its stdout and stderr into `dir/log`.
fn spawn_logged(mut cmd: Command, dir: &Path) -> (std::process::Child, PathBuf) {
    let log = dir.join("log");
    let file = std::fs::File::create(&log).unwrap();
    let child = cmd
        .stdin(Stdio::null())
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .spawn()
        .unwrap();
    (child, log)
}

/// `langbench ARGS` started with its stdout and stderr into `dir/log`.
fn start(args: &[&str], dir: &Path) -> (std::process::Child, PathBuf) {
    let mut cmd = Command::new(bin());
    cmd.args(args);
    spawn_logged(cmd, dir)
}

/// `langbench ARGS` as [`start`] does, under GNU time writing langbench's
/// peak RSS (KB) to `dir/maxrss`, in a process group of its own.
///
/// Not wait4 on a child of this test binary: a child's maxrss starts at
/// the high-water mark of the memory it was forked with (Linux keeps the
/// old mm's at exec), the test binary's, which other tests running in it
/// raise (CI measured 439,600 KB for both flood tests, against 11–16 MB
/// run alone). time forks from its own small image, so %M is langbench's.
fn start_under_time(args: &[&str], dir: &Path) -> (std::process::Child, PathBuf) {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new("/usr/bin/time");
    cmd.arg("-o")
        .arg(dir.join("maxrss"))
        .args(["-f", "%M"])
        .arg(bin())
        .args(args)
        .process_group(0);
    spawn_logged(cmd, dir)
}

/// `langbench ws --target` against `server` with a small load (4
/// connections unless `extra` says), results into `dir/results`: how it
/// ended.
fn target(server: &Hostile, dir: &Path, extra: &[&str], limit: Duration) -> Ended {
    let url = server.url();
    let out = dir.join("results");
    let mut args = vec![
        "ws",
        "--target",
        &url,
        "--name",
        "hostile",
        "--delays",
        "10",
        "--warmup",
        "0.5",
        "--duration",
        "1",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    if !extra.contains(&"--connections") {
        args.extend_from_slice(&["--connections", "4"]);
    }
    let (child, log) = start_under_time(&args, dir);
    let mut e = wait_for(child, &log, limit);
    let maxrss = std::fs::read_to_string(dir.join("maxrss")).unwrap_or_default();
    // time's file holds a "Command exited with non-zero status" line
    // before %M when langbench failed.
    e.max_rss_kb = maxrss
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .next_back()
        .unwrap_or_else(|| panic!("no peak RSS from /usr/bin/time: {maxrss:?}\n{}", e.output));
    e
}

fn ws_record(dir: &Path) -> serde_json::Value {
    let recs = jsonl(&dir.join("results/ws.jsonl"));
    assert_eq!(recs.len(), 1, "{recs:?}");
    recs[0].clone()
}

/// Under a flood: langbench stays under the RSS bound, ends, and its row
/// says why the connections were closed (`why`); the server could not
/// spend its budget.
fn assert_flood_contained(mode: Mode, why: &str) {
    let server = Hostile::start(mode);
    let dir = tempfile::tempdir().unwrap();
    let e = target(&server, dir.path(), &[], Duration::from_secs(120));
    assert_eq!(e.code, Some(0), "{}", e.output);
    assert!(
        e.max_rss_kb < RSS_BOUND_KB,
        "langbench's own peak RSS {} KB (bound {RSS_BOUND_KB} KB):\n{}",
        e.max_rss_kb,
        e.output
    );
    let r = ws_record(dir.path());
    assert_eq!(r["status"], "errors", "{r}");
    let detail = r["detail"].as_str().unwrap_or_default();
    assert!(detail.contains(why), "{why}: {r}");
    assert!(detail.contains("connections lost"), "{r}");
    let sent = server.sent.load(Ordering::SeqCst);
    assert!(sent < BUDGET, "the client took all {sent} bytes");
    eprintln!(
        "peak RSS {} KB; the server sent {:.1} MB",
        e.max_rss_kb,
        sent as f64 / 1e6
    );
}

/// Row 2: one text message that never ends (continuation frames without a
/// final one) is cut off at the client's message bound, and langbench's
/// own memory stays small (it grew to 1.5 GB).
#[test]
fn issue59_row02_an_endless_fragmented_message_closes_its_connection() {
    assert_flood_contained(Mode::Fragments, "a message of over 64 KiB");
}

/// Row 2: a server that floods pings and never reads the pongs gets its
/// connections closed once their unsent bytes pass the bound, not an
/// unbounded queue.
#[test]
fn issue59_row02_a_server_that_never_reads_its_pongs_is_closed() {
    assert_flood_contained(Mode::Pings, "the server does not read");
}

/// Row 5: a handshake dripped one byte a second ends at the deadline for
/// opening every connection (`--startup-timeout`), not one connection
/// after another: one client thread, one handshake at a time, so the
/// server sees one connection, and the rest fail without a try.
#[test]
fn issue59_row05_a_dripping_handshake_stops_at_the_deadline() {
    let server = Hostile::start(Mode::Drip);
    let dir = tempfile::tempdir().unwrap();
    let extra = [
        "--startup-timeout",
        "3",
        "--max-handshakes",
        "1",
        "--client-cpus",
        "1",
        "--connections",
        "6",
    ];
    // Each handshake would take over 2 minutes; the run ends in seconds.
    let e = target(&server, dir.path(), &extra, Duration::from_secs(60));
    assert_eq!(e.code, Some(0), "{}", e.output);
    let r = ws_record(dir.path());
    assert_eq!(r["opened"], 0, "{r}");
    assert_eq!(r["handshake_failures"], 6, "{r}");
    let detail = r["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("3 s for opening every connection"), "{r}");
    let accepted = server.accepted.load(Ordering::SeqCst);
    assert!(
        accepted <= 2,
        "{accepted} connections opened after the deadline"
    );
}

/// Row 5: SIGTERM while a handshake drips ends `langbench ws --target`
/// promptly (exit 130, the record of what ran kept), not after the
/// handshake's own time.
#[test]
fn issue59_row05_sigterm_ends_ws_while_a_handshake_drips() {
    let server = Hostile::start(Mode::Drip);
    let dir = tempfile::tempdir().unwrap();
    let url = server.url();
    let out = dir.path().join("results");
    let (child, log) = start(
        &[
            "ws",
            "--target",
            &url,
            "--connections",
            "4",
            "--delays",
            "10",
            "--out",
            out.to_str().unwrap(),
        ],
        dir.path(),
    );
    let t = Instant::now();
    while server.accepted.load(Ordering::SeqCst) == 0 {
        assert!(t.elapsed() < Duration::from_secs(30), "no connection came");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let t = Instant::now();
    // A generous bound for a loaded machine: it takes about a second.
    let e = wait_for(child, &log, Duration::from_secs(20));
    eprintln!("ended {:?} after SIGTERM", t.elapsed());
    assert_eq!(e.code, Some(130), "{}", e.output);
}

/// No escape, bell or C1 control in what a command wrote.
fn assert_inert(what: &str, out: &str) {
    assert!(
        !out.contains(['\u{1b}', '\u{7}', '\u{9b}']),
        "{what} wrote an escape: {out:?}"
    );
    assert!(!out.contains("canary-title"), "{what}: {out:?}");
}

/// Row 11: a close reason with OSC 52, OSC 0, ESC[2J and a C1 CSI reaches
/// neither the terminal nor the records raw, from `ws --target` and
/// `ws-client` (its progress and its JSON report on stdout); the text
/// around them still shows.
#[test]
fn issue59_row11_a_close_reason_is_printed_and_stored_inert() {
    let server = Hostile::start(Mode::CloseOsc);
    let dir = tempfile::tempdir().unwrap();
    let e = target(&server, dir.path(), &[], Duration::from_secs(120));
    assert_eq!(e.code, Some(0), "{}", e.output);
    assert_inert("ws --target", &e.output);
    let r = ws_record(dir.path());
    let stored = std::fs::read_to_string(dir.path().join("results/ws.jsonl")).unwrap();
    assert!(stored.contains("canary-bye"), "{r}");
    assert!(
        !stored.contains("\\u001b") && !stored.contains('\u{9b}'),
        "{stored}"
    );

    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    let (child, log) = start(
        &[
            "ws-client",
            "--target",
            &url,
            "--connections",
            "4",
            "--delays",
            "10",
            "--warmup",
            "0.5",
            "--duration",
            "1",
        ],
        dir.path(),
    );
    let e = wait_for(child, &log, Duration::from_secs(120));
    assert_eq!(e.code, Some(0), "{}", e.output);
    assert_inert("ws-client", &e.output);
    assert!(e.output.contains("canary-bye"), "{}", e.output);
    assert!(!e.output.contains("\\u001b"), "{}", e.output);
}

/// Row 11: a server `ws` starts closes its connections with a hostile
/// reason; the line `ws` prints above its progress line on a terminal
/// (a pseudo-terminal here: indicatif draws) shows the reason inert.
#[test]
fn issue59_row11_a_close_reason_shows_inert_above_the_progress_line() {
    let (_, m) = marker("ws59");
    let toml = format!(
        r#"
[[variant]]
id = "fx-closeosc"
language = "Fixture"
library = "stdlib closeosc"
flags = "python3"
version = "python3 --version"
run = "python3 {{src}} closeosc {{port}}"
env = {{ LANGBENCH_TEST_MARKER = "{m}" }}
programs = {{ ws-echo = "ws_fixture.py" }}
"#
    );
    let f = Fixture::new(
        &toml,
        &[("ws_fixture.py", include_str!("fixtures/ws_fixture.py"))],
    );
    let mut cmd = Command::new(bin());
    cmd.args([
        "ws",
        "--languages",
        &f.languages(),
        "--connections",
        "4",
        "--delays",
        "10",
        "--warmup",
        "0.5",
        "--duration",
        "1",
        "--out",
        &f.out(),
    ]);
    let (status, raw) = in_pty(cmd, 200);
    assert!(status.success(), "{raw}");
    // indicatif draws with escapes of its own: none of the server's.
    for canary in [
        "\u{1b}]52",
        "\u{1b}]0;",
        "\u{1b}[2J",
        "\u{9b}",
        "\u{7}",
        "canary-title",
    ] {
        assert!(
            !raw.contains(canary),
            "{canary:?} reached the terminal: {raw:?}"
        );
    }
    let shown = drawn_lines(&raw).join("\n");
    assert!(
        shown.contains("fx-closeosc: errors") && shown.contains("canary-bye"),
        "{shown}"
    );
    assert_nothing_left(&m);
}

/// The source of every `.rs` file under `dir`, without its unit tests.
fn sources(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let s = std::fs::read_to_string(&p).unwrap();
            let code = s.split("#[cfg(test)]").next().unwrap_or("").to_string();
            out.push((p, code));
        }
    }
}

/// The text of the call that starts at `at` (`name(` ... its closing
/// parenthesis), string literals skipped when counting parentheses.
fn call_at(s: &str, at: usize) -> &str {
    let b = s.as_bytes();
    let mut i = at + s[at..].find('(').unwrap();
    let (mut depth, mut in_str) = (0, false);
    while i < b.len() {
        match b[i] {
            b'\\' if in_str => i += 1,
            b'"' => in_str = !in_str,
            b'(' if !in_str => depth += 1,
            b')' if !in_str => {
                depth -= 1;
                if depth == 0 {
                    return &s[at..=i];
                }
            }
            _ => {}
        }
        i += 1;
    }
    &s[at..]
}

/// Where `needle` starts in `s`, as a call or macro name (not the tail of
/// a longer name: `println!` is not found in `eprintln!`).
fn calls<'a>(s: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    s.match_indices(needle).map(|(i, _)| i).filter(move |&i| {
        needle.starts_with('.')
            || !s[..i]
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

fn line_of(s: &str, at: usize) -> usize {
    s[..at].lines().count().max(1)
}

/// Row 11, the class: every line of the progress display passes through
/// src/progress.rs (no other file calls indicatif's `set_message` or
/// `println`; `run`'s `Progress` is called as `progress`), where each
/// call makes its text inert; and every print of
/// the ws commands (src/ws, src/ws_load, src/ws_summary) goes through
/// `inert::` or a terminal renderer (which makes each cell inert).
#[test]
fn issue59_row11_progress_and_ws_prints_pass_through_inert() {
    let src = repo().join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut bad = Vec::new();
    for (p, s) in &files {
        let rel = p.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
        for needle in [".set_message(", ".println("] {
            for at in calls(s, needle) {
                let call = call_at(s, at);
                let inert = if rel == "progress.rs" {
                    // Its function so far, up to and with the call.
                    let fn_start = s[..at].rfind("fn ").unwrap_or(0);
                    let span = &s[fn_start..at + call.len()];
                    span.contains("inert::") || call.contains("(\"\")")
                } else {
                    // `run`'s `Progress`, whose methods call those above.
                    s[..at].trim_end().ends_with("progress")
                };
                if !inert {
                    bad.push(format!("src/{rel}:{}: {call}", line_of(s, at)));
                }
            }
        }
        let ws = ["ws/", "ws_load/", "ws_summary/"]
            .iter()
            .any(|d| rel.starts_with(d));
        if !ws {
            continue;
        }
        for needle in ["println!", "eprintln!", "print!", "eprint!"] {
            for at in calls(s, needle) {
                let call = call_at(s, at);
                if !(call.contains("inert::") || call.contains("terminal::document")) {
                    bad.push(format!("src/{rel}:{}: {call}", line_of(s, at)));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "terminal output not made inert (through src/progress.rs, inert::text or a renderer):\n{}",
        bad.join("\n")
    );
    // The check finds what it looks for.
    let probe = "fn f() { pb.set_message(format!(\"{x}\")); eprintln!(\"{y}\"); }";
    assert_eq!(calls(probe, ".set_message(").count(), 1);
    assert_eq!(calls(probe, "println!").count(), 0);
    assert_eq!(
        call_at(probe, probe.find("eprintln!").unwrap()),
        "eprintln!(\"{y}\")"
    );
}
