//! The spawner measures like /usr/bin/time, and its figures are the
//! command's own: not inflated by langbench's memory, not kept alive past
//! the run.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::util::*;
use langbench_spawn::{Containment, Exit, Request, Spawner};

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
    let o = s.execute(&req).unwrap();
    assert_eq!(o.done.exit, Exit::Exited(0), "{:?}", o.stderr.text());
    o.done.max_rss_kb
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
    // SAFETY: `status` and `ru` are live locals of the types wait4 writes;
    // the pid is our own unreaped child, so no other code reaps it.
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
    let o = spawner().execute(&req).unwrap();
    assert!(o.done.timed_out);
    assert_eq!(o.done.exit, Exit::Signaled(libc::SIGKILL));
    assert!(o.done.wall >= Duration::from_millis(1500) && t.elapsed() < Duration::from_secs(10));
    assert!(
        o.done.leftovers >= 1,
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
    let o = spawner().execute(&req).unwrap();
    assert_eq!(o.done.exit, Exit::Exited(0));
    assert_eq!(o.stdout.text(), "done\n");
    assert_eq!(o.done.leftovers, 1);
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
    assert!(o.done.stopped && !o.done.timed_out);
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
    let o = spawner().execute(&req).unwrap();
    assert_eq!(o.stdout.total, 50_000_000);
    assert_eq!(o.stdout.bytes.len(), langbench_spawn::STDOUT_KEEP);
    assert!(o.stdout.truncated());
}

#[test]
fn a_missing_executable_is_a_clear_error() {
    let req = Request::new(vec!["no-such-program-xyz".into()], &repo());
    let e = spawner().execute(&req).unwrap_err().to_string();
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

/// `langbench measure --json EXTRA -- ARGS` with `env` added: its JSON.
fn measure_cli(extra: &[&str], args: &[&str], env: &[(String, String)]) -> serde_json::Value {
    let o = Command::new(bin())
        .arg("measure")
        .arg("--json")
        .args(extra)
        .arg("--")
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap();
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)))
}

/// A 129-byte static executable that exits 0 at once (an ELF header, one
/// loadable segment, `exit(0)`): its peak RSS is nothing but what the
/// measuring process's fork leaves in it, the floor of every figure.
fn exit_at_once(dir: &std::path::Path) -> String {
    const BASE: u64 = 0x40_0000;
    let code: [u8; 9] = [0xb8, 60, 0, 0, 0, 0x31, 0xff, 0x0f, 0x05]; // mov eax,60; xor edi,edi; syscall
    let size = (64 + 56 + code.len()) as u64;
    let mut elf = Vec::new();
    elf.extend_from_slice(b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0"); // 64-bit, little-endian
    elf.extend_from_slice(&2u16.to_le_bytes()); // ET_EXEC
    elf.extend_from_slice(&62u16.to_le_bytes()); // x86-64
    elf.extend_from_slice(&1u32.to_le_bytes());
    elf.extend_from_slice(&(BASE + 64 + 56).to_le_bytes()); // entry: the code
    elf.extend_from_slice(&64u64.to_le_bytes()); // program headers right after
    elf.extend_from_slice(&0u64.to_le_bytes());
    elf.extend_from_slice(&0u32.to_le_bytes());
    for v in [64u16, 56, 1, 64, 0, 0] {
        elf.extend_from_slice(&v.to_le_bytes());
    }
    elf.extend_from_slice(&1u32.to_le_bytes()); // PT_LOAD
    elf.extend_from_slice(&5u32.to_le_bytes()); // R+X
    for v in [0, BASE, BASE, size, size, 0x1000] {
        elf.extend_from_slice(&v.to_le_bytes());
    }
    elf.extend_from_slice(&code);
    let path = dir.join("exit-at-once");
    std::fs::write(&path, elf).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    path.display().to_string()
}

/// `langbench measure` forks the command from langbench itself (no agent):
/// its figures must still be /usr/bin/time's, contained or not.
#[test]
fn measure_cli_peak_rss_of_200_mb_agrees_with_gnu_time_within_2_percent() {
    let args = ["python3", "-c", TOUCH_200MB];
    let theirs = median((0..3).map(|_| gnu_time_rss(&args)).collect());
    for extra in [&[][..], &["--no-sandbox"]] {
        let ours = median(
            (0..3)
                .map(|_| {
                    measure_cli(extra, &args, &[])["max_rss_kb"]
                        .as_u64()
                        .unwrap()
                })
                .collect(),
        );
        let diff = (ours as f64 - theirs as f64).abs() / theirs as f64;
        assert!(
            ours > 200 * 1024 && diff < 0.02,
            "measure {extra:?}: {ours} KB vs /usr/bin/time {theirs} KB"
        );
    }
}

/// The floor a fork leaves in the command's peak RSS (the pages the forking
/// process had mapped privately, and the code the child runs until exec):
/// /usr/bin/time's is ~450 KB; `measure`, forking before it reads its
/// command line with clap or touches anything else, ~600-800 KB here (a
/// re-executed PIE agent left ~850-1,000 KB). Forking from a langbench
/// that has grown passes the bound.
#[test]
fn measure_cli_leaves_about_the_floor_gnu_time_leaves() {
    let dir = tempfile::tempdir().unwrap();
    let exe = exit_at_once(dir.path());
    let theirs = median((0..5).map(|_| gnu_time_rss(&[&exe])).collect());
    assert!(theirs < 2048, "/usr/bin/time: {theirs} KB");
    for extra in [&[][..], &["--no-sandbox"]] {
        let ours = median(
            (0..5)
                .map(|_| {
                    measure_cli(extra, &[&exe], &[])["max_rss_kb"]
                        .as_u64()
                        .unwrap()
                })
                .collect(),
        );
        assert!(
            ours < theirs + 512,
            "measure {extra:?}: a program of one page peaked at {ours} KB; /usr/bin/time says {theirs} KB"
        );
    }
}

/// `measure` contains by default: the command is pid 2 of its own PID
/// namespace (pid 1 is langbench's init); `--no-sandbox` does not.
#[test]
fn measure_cli_runs_the_command_in_its_own_pid_namespace_by_default() {
    let pid_of = |extra: &[&str]| {
        let o = Command::new(bin())
            .arg("measure")
            .args(extra)
            .args(["--", "sh", "-c", "echo $$"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    };
    assert_eq!(pid_of(&[]), "2");
    assert_ne!(pid_of(&["--no-sandbox"]), "2");
}

/// Without root `measure` contains the command in a user namespace of its
/// own, or, where the kernel refuses one, runs it uncontained and says why
/// (as every other command does). Run as `nobody` when the suite is root.
#[test]
fn measure_cli_without_root_is_contained_or_says_why_not() {
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("langbench");
    std::fs::copy(bin(), &exe).unwrap();
    let mut cmd = if root {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&exe);
        c
    } else {
        Command::new(&exe)
    };
    let o = cmd
        .args([
            "measure",
            "--json",
            "--",
            "sh",
            "-c",
            "echo $$ >&2; id -u >&2",
        ])
        .current_dir("/")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let mut lines = err.lines();
    let (pid, uid) = (lines.next(), lines.next());
    assert_eq!(pid, Some("2"), "{}", text(&o));
    // The command runs as the caller, not as root of the user namespace.
    let me = if root {
        65534
    } else {
        // SAFETY: geteuid takes no arguments and cannot fail.
        unsafe { libc::geteuid() }
    };
    assert_eq!(uid, Some(me.to_string().as_str()), "{}", text(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["exit"]["code"], 0);
}

/// Where the kernel refuses user namespaces, `measure` without root stops
/// with the refusal and its reason, running nothing, and runs the command
/// (uncontained) only with --no-sandbox. The refusal is real: `nobody`
/// inside a user namespace whose user.max_user_namespaces is 0 (set up by
/// a root-only helper, `REFUSE_USERNS`; skipped without root).
#[test]
fn measure_cli_fails_closed_where_the_kernel_refuses_namespaces() {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: needs root to build a user namespace that refuses nested ones");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("langbench");
    std::fs::copy(bin(), &exe).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let measure = |extra: &[&str]| {
        Command::new("python3")
            .args(["-c", REFUSE_USERNS])
            .arg(&exe)
            .args(extra)
            .args(["measure", "--", "sh", "-c", "echo $$ >&2; echo ran"])
            .current_dir("/")
            .output()
            .unwrap()
    };
    let o = measure(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("the kernel refused langbench's sandbox")
            && err.contains("user.max_user_namespaces = 0")
            && err.contains("--no-sandbox"),
        "{}",
        text(&o)
    );
    assert!(
        !String::from_utf8_lossy(&o.stdout).contains("ran"),
        "{}",
        text(&o)
    );
    let o = measure(&["--no-sandbox"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("ran"),
        "{}",
        text(&o)
    );
    let pid = String::from_utf8_lossy(&o.stderr)
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    assert!(pid.parse::<u32>().is_ok_and(|p| p != 2), "{}", text(&o));
}

/// Whatever the command leaves behind (a daemon that called setsid, a
/// member of its group) is killed and counted, contained or not.
#[test]
fn measure_cli_kills_and_counts_leftovers_in_both_modes() {
    for extra in [&[][..], &["--no-sandbox"]] {
        let (k, v) = marker("measure-leftover");
        let j = measure_cli(
            extra,
            &["sh", "-c", "setsid sleep 300 & sleep 301 &"],
            &[(k.clone(), v.clone())],
        );
        assert_eq!(j["exit"]["code"], 0, "{j}");
        assert_eq!(j["leftovers"], 2, "measure {extra:?}: {j}");
        let left = processes_with_env(&format!("{k}={v}"));
        assert!(left.is_empty(), "measure {extra:?}: left {left:?}");
        // Nothing left: nothing counted.
        let j = measure_cli(extra, &["true"], &[]);
        assert_eq!(j["leftovers"], 0, "measure {extra:?}: {j}");
    }
}

/// The timeout kills the command's whole tree (with --no-sandbox: its
/// group, and the daemon through the subreaper sweep).
#[test]
fn measure_cli_timeout_kills_everything_in_both_modes() {
    for extra in [&["--timeout", "1"][..], &["--timeout", "1", "--no-sandbox"]] {
        let (k, v) = marker("measure-timeout");
        let t = Instant::now();
        let j = measure_cli(
            extra,
            &["sh", "-c", "setsid sleep 300 & sleep 301"],
            &[(k.clone(), v.clone())],
        );
        assert_eq!(j["timed_out"], true, "{j}");
        assert!(t.elapsed() < Duration::from_secs(10));
        assert!(j["leftovers"].as_u64().unwrap() >= 1, "{extra:?}: {j}");
        let left = processes_with_env(&format!("{k}={v}"));
        assert!(left.is_empty(), "measure {extra:?}: left {left:?}");
    }
}

/// The agent without containment (`--no-sandbox` runs) sweeps what a
/// command left behind too, and counts nothing when nothing is left.
#[test]
fn uncontained_agent_kills_and_counts_leftovers() {
    let s = Spawner::new(bin()).with_containment(Containment::none());
    let (k, v) = marker("agent-leftover");
    let mut req = Request::new(
        vec![
            "sh".into(),
            "-c".into(),
            "setsid sleep 300 & sleep 301 & echo done".into(),
        ],
        &repo(),
    );
    req.env = vec![(k.clone(), v.clone())];
    let o = s.execute(&req).unwrap();
    assert_eq!(o.done.exit, Exit::Exited(0));
    assert_eq!(o.done.leftovers, 2, "{o:?}");
    assert!(processes_with_env(&format!("{k}={v}")).is_empty());
    let o = s
        .execute(&Request::new(vec!["true".into()], &repo()))
        .unwrap();
    assert_eq!(o.done.leftovers, 0, "{o:?}");
}
