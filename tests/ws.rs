//! The WebSocket benchmark against real servers on 127.0.0.1: a correct
//! one, ones that corrupt, retype or drop messages, one that never listens,
//! one that dies at start, one that crashes mid-phase, one that ignores
//! SIGTERM. Each is a real process started through the spawner.

mod common;

use std::time::Duration;

use common::*;
use langbench::config::Languages;
use langbench::spawn::{Exit, Spawner};
use langbench::ws::{self, WsRecord, WsStatus};

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
    let records = ws::run(&Spawner::new(bin()), &variants, &opts).unwrap();
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
    assert_eq!(rows.len(), 3, "{}", text(&o));
    for row in &rows {
        assert_eq!(&row[col("status")], "ok", "{:?}\n{}", row, text(&o));
        assert_eq!(&row[col("alive")], "50");
        assert!(row[col("rps")].parse::<f64>().unwrap() > 100.0);
    }
}
