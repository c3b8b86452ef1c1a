//! The WebSocket benchmark against real servers on 127.0.0.1: a correct
//! one, ones that corrupt, retype or drop messages, one that never listens,
//! one that dies at start, one that crashes mid-phase, one that ignores
//! SIGTERM. Each is a real process started through the spawner.

use std::time::Duration;

use crate::util::*;
use langbench::config::Languages;
use langbench::ws::{self, WsRecord, WsStatus};
use langbench_spawn::{Exit, Spawner};

const FIXTURE: &str = include_str!("fixtures/ws_fixture.py");

fn variant(mode: &str) -> String {
    format!(
        r#"
[[variant]]
id = "fx-{mode}"
language = "Fixture"
library = "stdlib {mode}"
flags = "python3"
version = "python3 --version"
run = "python3 {{src}} {mode} {{port}}"
env = {{ LANGBENCH_TEST_MARKER = "@MARK@" }}
programs = {{ ws-echo = "ws_fixture.py" }}
"#
    )
}

fn run_modes(modes: &[&str], tweak: impl FnOnce(&mut ws::Options)) -> (Vec<WsRecord>, String) {
    let (_, m) = marker("ws");
    let toml: String = modes
        .iter()
        .map(|mo| variant(mo))
        .collect::<String>()
        .replace("@MARK@", &m);
    let f = Fixture::new(&toml, &[("ws_fixture.py", FIXTURE)]);
    let langs = Languages::load(&f.path().join("languages.toml")).unwrap();
    let variants: Vec<_> = langs.variants.iter().collect();
    let mut opts = ws::Options {
        connections: 20,
        delays: vec![Duration::from_millis(10), Duration::from_millis(1)],
        warmup: Duration::from_millis(300),
        duration: Duration::from_millis(1500),
        startup_timeout: Duration::from_secs(3),
        echo_timeout: Duration::from_millis(500),
        out: f.path().join("results"),
        ..Default::default()
    };
    tweak(&mut opts);
    let records = ws::benchmark(&Spawner::new(bin()), &variants, &opts).unwrap();
    // Nothing any server started is still alive.
    let left = processes_with_env(&format!("LANGBENCH_TEST_MARKER={m}"));
    assert!(left.is_empty(), "left behind: {left:?}");
    // The records are stored and tabulated.
    let md = std::fs::read_to_string(f.path().join("results/ws-summary.md")).unwrap();
    (records, md)
}

#[test]
fn a_correct_server_is_measured_and_shut_down_cleanly() {
    let (r, md) = run_modes(&["echo"], |_| {});
    let r = &r[0];
    assert_eq!(r.status, WsStatus::Ok, "{r:?}");
    assert_eq!(r.opened, 20);
    assert_eq!(r.phases.len(), 2);
    for p in &r.phases {
        let s = p.stats.as_ref().unwrap();
        assert_eq!(s.errors, Some(0));
        assert_eq!(s.alive, Some(20));
        assert!(s.rps > 100.0, "{s:?}");
        let (p50, p99) = (s.latency_p50_ms.unwrap(), s.latency_p99_ms.unwrap());
        assert!(p50 <= p99 && p99 <= s.latency_max_ms);
        assert!(p.server_rss_peak_kb.unwrap() > 1000, "{p:?}");
        assert!(
            p.server_cores.unwrap() > 0.0 && p.client_cores.unwrap() > 0.0,
            "{p:?}"
        );
    }
    assert_eq!(r.clean_shutdown, Some(true));
    assert_eq!(r.server_exit, Some(Exit::Exited(0)));
    assert!(r.server_max_rss_kb.unwrap() > 1000);
    assert!(md.contains("Fixture (fx-echo)"), "{md}");
}

#[test]
fn corrupted_retyped_and_dropped_echoes_are_caught() {
    let (rs, md) = run_modes(&["corrupt", "wrongtype", "drop"], |_| {});
    for (r, why) in rs.iter().zip([
        "echo differs from what was sent",
        "text message echoed as binary",
        "no echo within",
    ]) {
        assert_eq!(r.status, WsStatus::Errors, "{r:?}");
        let errors: u64 = r
            .phases
            .iter()
            .map(|p| p.stats.as_ref().unwrap().error_count())
            .sum();
        assert!(errors > 0, "{r:?}");
        assert!(
            r.detail.as_deref().unwrap_or("").contains(why),
            "{why}: {r:?}"
        );
    }
    assert!(md.contains("ERRORS"), "{md}");
}

#[test]
fn a_server_that_never_listens_or_dies_at_start_is_reported_with_its_stderr() {
    let (rs, _) = run_modes(&["never", "die", "echo"], |_| {});
    assert_eq!(rs[0].status, WsStatus::NeverListened);
    let d = rs[0].detail.as_deref().unwrap();
    assert!(
        d.contains("did not listen") && d.contains("waiting forever"),
        "{d}"
    );
    assert_eq!(rs[1].status, WsStatus::NeverListened);
    let d = rs[1].detail.as_deref().unwrap();
    assert!(
        d.contains("exited before it listened") && d.contains("configuration is broken"),
        "{d}"
    );
    assert!(d.contains("exit 3"), "{d}");
    // The next server still runs.
    assert_eq!(rs[2].status, WsStatus::Ok);
}

#[test]
fn a_server_crashing_mid_phase_is_reported_and_the_rest_still_run() {
    let (rs, md) = run_modes(&["crash", "echo"], |o| {
        o.delays = vec![Duration::from_millis(10); 3];
    });
    let r = &rs[0];
    assert_eq!(r.status, WsStatus::Crashed, "{r:?}");
    assert!(
        r.phases.iter().any(|p| p.status == WsStatus::Crashed),
        "{r:?}"
    );
    assert_eq!(r.phases.last().unwrap().status, WsStatus::Skipped);
    assert_eq!(r.server_exit, Some(Exit::Exited(7)));
    assert!(r.detail.as_deref().unwrap().contains("crashing"), "{r:?}");
    assert_eq!(rs[1].status, WsStatus::Ok);
    assert!(md.contains("CRASHED"), "{md}");
}

#[test]
fn a_server_ignoring_sigterm_is_killed_after_the_grace_period() {
    let (rs, _) = run_modes(&["stubborn"], |o| {
        o.delays = vec![Duration::from_millis(10)]
    });
    assert_eq!(rs[0].clean_shutdown, Some(false));
    assert_eq!(rs[0].server_exit, Some(Exit::Signaled(libc::SIGKILL)));
}

/// The repository's own servers, prepared and driven through the CLI the
/// way a maintainer runs them (small load).
#[test]
fn the_repository_servers_echo_correctly() {
    let out = tempfile::tempdir().unwrap();
    let languages = repo().join("languages.toml");
    let o = langbench(&[
        "ws",
        "--languages",
        languages.to_str().unwrap(),
        "--lang",
        "ws-go-nbio",
        "--lang",
        "ws-node-ws",
        "--lang",
        "ws-c-libwebsockets",
        // uWebSockets.js from npm's uwebsockets, and the runtimes that
        // install.dist fetches (issue 23).
        "--lang",
        "ws-node-uws",
        "--lang",
        "ws-bun",
        "--lang",
        "ws-deno",
        "--connections",
        "50",
        "--delays",
        "10",
        "--warmup",
        "0.5",
        "--duration",
        "1.5",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let mut r = csv::Reader::from_path(out.path().join("ws-summary.csv")).unwrap();
    let headers = r.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let rows: Vec<_> = r.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 6, "{}", text(&o));
    for row in &rows {
        assert_eq!(&row[col("status")], "ok", "{:?}\n{}", row, text(&o));
        assert_eq!(&row[col("alive")], "50");
        assert!(row[col("rps")].parse::<f64>().unwrap() > 100.0);
    }
}

/// Under saturation every connection is served in turn: a client forced to
/// saturate (a busy-wait per echo) says so, marks its latencies
/// client-limited, and no connection starves.
#[test]
fn a_saturated_client_is_fair_says_so_and_applies_the_client_bound_rule() {
    let (rs, md) = run_modes(&["echo"], |o| {
        o.connections = 60;
        o.delays = vec![Duration::from_millis(1)];
        o.client_spin = Duration::from_micros(400);
        // A saturated client is late reading too: no echo counts as lost.
        o.echo_timeout = Duration::from_secs(10);
    });
    let r = &rs[0];
    assert_eq!(r.status, WsStatus::Ok, "{r:?}");
    let p = &r.phases[0];
    let load = p.client.as_ref().expect("client load recorded");
    assert!(load.saturated, "{load:?}");
    // Fair: the least-served connection got at least half of the most-served
    // one's echoes (FIFO service: in practice they differ by one or two).
    assert!(load.echoes_per_conn_min > 0, "{load:?}");
    assert!(
        load.echoes_per_conn_min * 2 >= load.echoes_per_conn_max,
        "{load:?}"
    );
    // CLIENT-BOUND exactly when the server still had CPU to spare.
    let placement = r.placement.as_ref().unwrap();
    assert!(!placement.client_cpus.is_empty(), "pinned by default");
    let wanted = p.server_cores.unwrap() + p.server_waiting_cores.unwrap();
    let spare = wanted < 0.9 * placement.server_cpus.len() as f64;
    assert_eq!(p.client_bound, spare, "{p:?} {placement:?}");
    assert!(md.contains("latency client-limited"), "{md}");
}

#[test]
fn the_client_bound_rule() {
    use langbench::ws_record::ClientLoad;
    let saturated = ClientLoad {
        saturated: true,
        ..Default::default()
    };
    let fine = ClientLoad::default();
    // Saturated client, server with CPU to spare: the client was the limit.
    assert!(ws::client_bound(Some(&saturated), Some(0.5), Some(0.0), 1));
    assert!(ws::client_bound(Some(&saturated), Some(1.0), None, 2));
    // Saturated client, server using its CPUs: both at their limit; the
    // server's figure stands (nbio's row in 2026-ws was wrongly flagged).
    assert!(!ws::client_bound(
        Some(&saturated),
        Some(0.95),
        Some(0.0),
        1
    ));
    // A server that wanted CPU but waited for it (other processes on its
    // CPUs) had none to spare either.
    assert!(!ws::client_bound(
        Some(&saturated),
        Some(0.5),
        Some(0.45),
        1
    ));
    // A client with time to spare never is.
    assert!(!ws::client_bound(Some(&fine), Some(0.1), Some(0.0), 1));
    // Server CPU unknown (--target without --server-pid): not claimed.
    assert!(!ws::client_bound(Some(&saturated), None, None, 1));
    assert!(!ws::client_bound(Some(&saturated), Some(0.1), None, 0));
    assert!(!ws::client_bound(None, Some(0.1), Some(0.0), 1));
}

/// A fixture server started by the test itself, not by langbench.
struct Outside {
    child: std::process::Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Outside {
    fn start() -> Outside {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("ws_fixture.py");
        std::fs::write(&src, FIXTURE).unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = std::process::Command::new("python3")
            .arg(&src)
            .arg("echo")
            .arg(port.to_string())
            .spawn()
            .unwrap();
        // Bounded wait for it to listen.
        for _ in 0..200 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        Outside {
            child,
            port,
            _dir: dir,
        }
    }

    fn url(&self) -> String {
        format!("ws://127.0.0.1:{}/ws", self.port)
    }
}

impl Drop for Outside {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn ws_records(dir: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("ws.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

const SMALL: &[&str] = &[
    "--connections",
    "20",
    "--delays",
    "10,1",
    "--warmup",
    "0.3",
    "--duration",
    "1",
];

#[test]
fn target_drives_a_server_langbench_did_not_start() {
    let server = Outside::start();
    let out = tempfile::tempdir().unwrap();
    let pid = server.child.id().to_string();
    let url = server.url();
    let mut args = vec![
        "ws",
        "--target",
        &url,
        "--server-pid",
        &pid,
        "--name",
        "outside",
    ];
    args.extend_from_slice(SMALL);
    args.extend_from_slice(&["--out", out.path().to_str().unwrap()]);
    let o = langbench(&args);
    assert!(o.status.success(), "{}", text(&o));
    let recs = ws_records(out.path());
    let r = &recs[0];
    assert_eq!(r["variant"], "outside");
    assert_eq!(r["status"], "ok", "{r}");
    assert_eq!(r["opened"], 20);
    assert_eq!(r["placement"]["server_started"], false);
    assert_eq!(r["placement"]["server_pid"], server.child.id());
    for p in r["phases"].as_array().unwrap() {
        assert_eq!(p["stats"]["alive"], 20, "{p}");
        assert!(p["stats"]["rps"].as_f64().unwrap() > 0.0, "{p}");
        assert!(p["server_cores"].as_f64().unwrap() > 0.0, "{p}");
        assert!(p["server_rss_peak_kb"].as_u64().unwrap() > 1000, "{p}");
    }
    // The server langbench did not start is still running.
    assert!(std::net::TcpStream::connect(("127.0.0.1", server.port)).is_ok());

    // Without --server-pid: server columns blank, and the table says why.
    let out2 = tempfile::tempdir().unwrap();
    let mut args = vec!["ws", "--target", &url];
    args.extend_from_slice(SMALL);
    args.extend_from_slice(&["--out", out2.path().to_str().unwrap()]);
    let o = langbench(&args);
    assert!(o.status.success(), "{}", text(&o));
    let r = &ws_records(out2.path())[0];
    assert!(r["phases"][0]["server_cores"].is_null(), "{r}");
    let md = std::fs::read_to_string(out2.path().join("ws-summary.md")).unwrap();
    assert!(md.contains("no --server-pid"), "{md}");
}

#[test]
fn two_ws_client_processes_are_merged() {
    let server = Outside::start();
    let out = tempfile::tempdir().unwrap();
    let url = server.url();
    let pid = server.child.id().to_string();
    let start = (std::time::SystemTime::now() + Duration::from_secs(4))
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        .to_string();
    let reports: Vec<std::path::PathBuf> = (0..2)
        .map(|i| out.path().join(format!("client-{i}.json")))
        .collect();
    let children: Vec<_> = reports
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let mut c = std::process::Command::new(bin());
            c.args(["ws-client", "--target", &url, "--start-at", &start])
                .args(SMALL)
                .args(["--out", f.to_str().unwrap()]);
            // One host sees the server (as on a real cluster: at most one).
            if i == 0 {
                c.args(["--server-pid", &pid]);
            }
            c.stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", text(&o));
    }
    let results = out.path().join("results");
    let mut args = vec!["ws", "merge"];
    let names: Vec<String> = reports
        .iter()
        .map(|r| r.to_str().unwrap().to_string())
        .collect();
    args.extend(names.iter().map(|s| s.as_str()));
    args.extend_from_slice(&["--name", "merged", "--out", results.to_str().unwrap()]);
    let o = langbench(&args);
    assert!(o.status.success(), "{}", text(&o));
    let r = &ws_records(&results)[0];
    assert_eq!(r["connections"], 40, "{r}");
    assert_eq!(r["opened"], 40, "{r}");
    assert_eq!(r["placement"]["client_hosts"], 2);
    let parts: Vec<serde_json::Value> = reports
        .iter()
        .map(|f| serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap())
        .collect();
    for (i, p) in r["phases"].as_array().unwrap().iter().enumerate() {
        assert_eq!(p["stats"]["alive"], 40, "{p}");
        let sum: u64 = parts
            .iter()
            .map(|x| x["phases"][i]["phase"]["stats"]["echoes"].as_u64().unwrap())
            .sum();
        assert_eq!(p["stats"]["echoes"].as_u64().unwrap(), sum);
        assert!(p["server_cores"].as_f64().is_some(), "{p}");
    }
    let csv = std::fs::read_to_string(results.join("ws-summary.csv")).unwrap();
    assert!(
        csv.lines()
            .next()
            .unwrap()
            .contains("server_cpu_us_per_echo"),
        "{csv}"
    );
}
