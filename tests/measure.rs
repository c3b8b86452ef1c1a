//! The spawner measures like /usr/bin/time, and its figures are the
//! command's own: not inflated by langbench's memory, not kept alive past
//! the run.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::util::*;
use langbench::spawn::{Containment, Exit, Request, Spawner};

/// Contained and sandboxed, as `langbench run` spawns (issue #9): the
/// figures must stay those of /usr/bin/time.
fn spawner() -> Spawner {
    Spawner::new(bin()).with_containment(Containment::full())
}

fn gnu_time_rss(args: &[&str]) -> u64 {
    let o = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .args(args)
        .output()
        .expect("/usr/bin/time is installed (Debian package `time`)");
    assert!(o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    err.trim().lines().last().unwrap().trim().parse().unwrap()
}

fn measured_rss(args: &[&str]) -> u64 {
    let build = tempfile::tempdir().unwrap();
    let mut req = Request::new(args.iter().map(|s| s.to_string()).collect(), &repo());
    let s = spawner();
    s.isolate(&mut req, build.path(), false);
    let o = s.run(&req).unwrap();
    assert_eq!(o.exit, Exit::Exited(0), "{:?}", o.stderr.text());
    o.max_rss_kb
}

fn median(mut v: Vec<u64>) -> u64 {
    v.sort();
    v[v.len() / 2]
}

const TOUCH_200MB: &str =
    "b = bytearray(200 * 1024 * 1024)\nfor i in range(0, len(b), 4096): b[i] = 1";

#[test]
fn peak_rss_of_200_mb_agrees_with_gnu_time_within_2_percent() {
    let args = ["python3", "-c", TOUCH_200MB];
    let ours = median((0..3).map(|_| measured_rss(&args)).collect());
    let theirs = median((0..3).map(|_| gnu_time_rss(&args)).collect());
    assert!(
        ours > 200 * 1024,
        "the program touches 200 MB, we saw {ours} KB"
    );
    let diff = (ours as f64 - theirs as f64).abs() / theirs as f64;
    assert!(
        diff < 0.02,
        "langbench {ours} KB vs /usr/bin/time {theirs} KB: {:.1}% apart",
        diff * 100.0
    );
}

#[test]
fn true_measures_about_what_gnu_time_says_even_when_the_caller_is_big() {
    let baseline = gnu_time_rss(&["true"]);
    // Hold and touch 400 MB in this process, which plays langbench.
    let mut ballast = vec![0u8; 400 << 20];
    for i in (0..ballast.len()).step_by(4096) {
        ballast[i] = 1;
    }
    let ours = median((0..3).map(|_| measured_rss(&["true"])).collect());
    std::hint::black_box(&ballast);
    assert!(
        ours < baseline * 2 && ours < 4096,
        "`true` measured {ours} KB while the caller holds 400 MB; /usr/bin/time says {baseline} KB"
    );

    // Control: forking `true` straight from this big process does show the
    // inflation the agent exists to avoid, so the check above can fail.
    #[allow(clippy::zombie_processes)] // reaped by the wait4 below
    let child = Command::new("true").spawn().unwrap();
    let mut status = 0;
    // SAFETY: rusage is plain data filled by wait4.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut ru) };
    assert!(
        ru.ru_maxrss > 300 * 1024,
        "direct fork from a 400 MB process reported only {} KB",
        ru.ru_maxrss
    );
    drop(ballast);
}

#[test]
fn timeout_kills_the_whole_group_and_nothing_outlives_the_run() {
    let (k, v) = marker("timeout");
    // A parent that leaves a child in its group, and a grandchild that
    // daemonizes with setsid: all must be gone when the run ends.
    let script = "sleep 300 & setsid sleep 301 & sleep 302";
    let mut req = Request::new(vec!["sh".into(), "-c".into(), script.into()], &repo());
    req.env = vec![(k.clone(), v.clone())];
    req.timeout = Some(Duration::from_millis(1500));
    let t = Instant::now();
    let o = spawner().run(&req).unwrap();
    assert!(o.timed_out);
    assert_eq!(o.exit, Exit::Signaled(libc::SIGKILL));
    assert!(o.wall >= Duration::from_millis(1500) && t.elapsed() < Duration::from_secs(10));
    assert!(
        o.leftovers >= 1,
        "the setsid'd sleeper was not found: {o:?}"
    );
    let left = processes_with_env(&format!("{k}={v}"));
    assert!(left.is_empty(), "processes outlived the run: {left:?}");
}

#[test]
fn leftovers_of_a_finished_command_are_killed() {
    let (k, v) = marker("leftover");
    let mut req = Request::new(
        vec![
            "sh".into(),
            "-c".into(),
            "setsid sleep 300 & echo done".into(),
        ],
        &repo(),
    );
    req.env = vec![(k.clone(), v.clone())];
    let o = spawner().run(&req).unwrap();
    assert_eq!(o.exit, Exit::Exited(0));
    assert_eq!(o.stdout.text(), "done\n");
    assert_eq!(o.leftovers, 1);
    assert!(processes_with_env(&format!("{k}={v}")).is_empty());
}

#[test]
fn stop_sends_sigterm_then_sigkill_after_the_grace_period() {
    let (k, v) = marker("stop");
    let mut req = Request::new(
        vec![
            "sh".into(),
            "-c".into(),
            "trap '' TERM; sleep 300 & wait; wait".into(),
        ],
        &repo(),
    );
    req.env = vec![(k.clone(), v.clone())];
    req.grace = Duration::from_millis(500);
    let running = spawner().start(&req).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    running.stop();
    let o = running.wait().unwrap();
    assert!(o.stopped && !o.timed_out);
    assert!(
        t.elapsed() >= Duration::from_millis(400),
        "grace period not honoured"
    );
    assert!(processes_with_env(&format!("{k}={v}")).is_empty());
}

#[test]
fn flooding_output_is_bounded_and_counted() {
    let req = Request::new(
        vec![
            "sh".into(),
            "-c".into(),
            "head -c 50000000 /dev/zero".into(),
        ],
        &repo(),
    );
    let o = spawner().run(&req).unwrap();
    assert_eq!(o.stdout.total, 50_000_000);
    assert_eq!(o.stdout.bytes.len(), langbench::spawn::STDOUT_KEEP);
    assert!(o.stdout.truncated());
}

#[test]
fn a_missing_executable_is_a_clear_error() {
    let req = Request::new(vec!["no-such-program-xyz".into()], &repo());
    let e = spawner().run(&req).unwrap_err().to_string();
    assert!(e.contains("cannot execute no-such-program-xyz"), "{e}");
}

#[test]
fn measure_cli_prints_json_and_passes_the_exit_status_on() {
    let o = langbench(&["measure", "--json", "--", "sh", "-c", "exit 3"]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["exit"]["kind"], "exited");
    assert_eq!(j["exit"]["code"], 3);
    assert!(j["max_rss_kb"].as_u64().unwrap() > 0);
    let o = langbench(&["measure", "--timeout", "0.5", "--", "sleep", "30"]);
    assert_eq!(o.status.code(), Some(128 + 9), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("timed out"),
        "{}",
        text(&o)
    );
}
