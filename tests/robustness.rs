//! A results directory survives what happens to it: a second langbench, a
//! record of the wrong shape, a merge conflict, a killed langbench's
//! leftovers, Ctrl-C before the first run, and bad options.

use std::time::{Duration, Instant};

use crate::util::*;

fn fixture() -> Fixture {
    Fixture::new(
        &Entry::sh("ok").language("Shell").toml(),
        &[("programs/num-comb/ok.sh", "echo 0 1 $1\n")],
    )
}

#[test]
fn a_second_langbench_on_a_locked_directory_is_refused_and_changes_nothing() {
    let f = fixture();
    assert!(f.run(&[]).status.success());
    let dir = f.path().join("results");
    let before = std::fs::read(dir.join("runs.jsonl")).unwrap();
    let store = langbench::store::Store::open(&dir).unwrap();
    let lock = store.lock().unwrap();
    let o = f.run(&[]);
    assert!(!o.status.success());
    let t = text(&o);
    assert!(t.contains("is in use by another langbench"), "{t}");
    assert!(t.contains(&format!("pid {}", std::process::id())), "{t}");
    assert_eq!(std::fs::read(dir.join("runs.jsonl")).unwrap(), before);
    let o = langbench(&["report", dir.to_str().unwrap()]);
    assert!(text(&o).contains("in use"), "{}", text(&o));
    drop(lock);
    assert!(f.run(&[]).status.success(), "released with the lock");
}

#[test]
fn records_of_the_wrong_shape_and_conflict_markers_are_skipped_and_reported() {
    let f = fixture();
    assert!(f.run(&[]).status.success());
    let dir = f.path().join("results");
    let runs = dir.join("runs.jsonl");
    let good = std::fs::read_to_string(&runs).unwrap();
    std::fs::write(
        &runs,
        format!("<<<<<<< HEAD\n{good}=======\n{{\"variant\":\"forged\"}}\n>>>>>>> other\n"),
    )
    .unwrap();
    let o = langbench(&["report", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    assert!(
        t.contains("runs.jsonl:1: skipped a git conflict marker"),
        "{t}"
    );
    assert!(
        t.contains("runs.jsonl:3: skipped a git conflict marker"),
        "{t}"
    );
    assert!(
        t.contains("runs.jsonl:4: skipped a record of the wrong shape"),
        "{t}"
    );
    assert!(
        t.contains("runs.jsonl:5: skipped a git conflict marker"),
        "{t}"
    );
    let summary = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    assert_eq!(summary.lines().count(), 2, "{summary}");
    assert!(!summary.contains("forged"));
    // A later run on the directory works and keeps the good record.
    let o = f.run(&["--resume"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("skipped a record of the wrong shape"),
        "{}",
        text(&o)
    );
}

#[test]
fn bad_options_are_refused_before_anything_runs() {
    let f = fixture();
    let o = f.run(&["--timeout", "0"]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("--timeout must be more than 0"),
        "{}",
        text(&o)
    );
    let o = langbench(&["run", "--size", "60000000", "--out", &f.out()]);
    assert!(!o.status.success());
    assert!(text(&o).contains("N from 1 to 50000000"), "{}", text(&o));
    // ws-echo's options too, although the CPU benchmarks would run first.
    let o = f.run(&[
        "--bench",
        "num-comb",
        "--bench",
        "ws-echo",
        "--connections",
        "0",
    ]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("--connections must be at least 1"),
        "{}",
        text(&o)
    );
    assert!(!f.path().join("results/runs.jsonl").exists());
}

#[test]
fn a_killed_langbench_leaves_no_build_directories_behind_for_long() {
    // A pid above the kernel's pid_max can never be alive.
    let stale = std::env::temp_dir().join("langbench-build-99999999-test");
    std::fs::create_dir_all(stale.join("sub")).unwrap();
    let f = fixture();
    let o = f.run(&[]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(!stale.exists(), "the next run removes it");
}

#[test]
fn expected_outputs_are_computed_before_the_first_run_and_cached() {
    let f = fixture();
    let cache = f.path().join("cache");
    let o = std::process::Command::new(bin())
        .env("LANGBENCH_CACHE", &cache)
        .args([
            "run",
            "--languages",
            &f.languages(),
            "--size",
            "1234",
            "--runs",
            "1",
            "--out",
            &f.out(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let cached = cache.join("expected/num-comb-1234.txt");
    assert_eq!(std::fs::read_to_string(cached).unwrap(), "0 1 1234\n");
}

#[test]
fn ctrl_c_during_version_probes_ends_the_session_at_once() {
    // Twenty variants whose version probe takes 2 s each: 40 s of probes.
    let slow: Vec<Entry> = (0..20)
        .map(|i| {
            Entry::sh(&format!("slow{i}"))
                .language("Slow")
                .flags(&format!("slow {i}"))
                .version_command("sh -c 'sleep 2; echo 1.0'")
                .program("programs/num-comb/ok.sh")
        })
        .collect();
    let f = Fixture::new(
        &languages_toml(&slow),
        &[("programs/num-comb/ok.sh", "echo 0 1 $1\n")],
    );
    let mut child = std::process::Command::new(bin())
        .args([
            "run",
            "--languages",
            &f.languages(),
            "--size",
            "tiny",
            "--out",
            &f.out(),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(3));
    let t = Instant::now();
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    // Within the probe that was running, far from the 34 s left of probes.
    assert!(t.elapsed() < Duration::from_secs(15), "{:?}", t.elapsed());
    assert!(!status.success());
    assert!(!f.path().join("results/runs.jsonl").exists());
}

/// A run step that cannot start after a build that succeeded is `failed`,
/// never judged by the build's output (a build that printed the right
/// answer was recorded `ok`).
#[test]
fn a_run_that_cannot_start_is_not_judged_by_its_builds_output() {
    let toml = r#"
[[variant]]
id = "nobin"
language = "Shell"
flags = "sh nobin"
needs = ["sh"]
version = "sh -c 'echo 1.0'"
build = "sh {src} {n}"
run = "/nonexistent/langbench-prog {n}"
programs = { num-comb = "programs/num-comb/ok.sh" }
"#;
    let f = Fixture::new(toml, &[("programs/num-comb/ok.sh", "echo 0 1 $1\n")]);
    let o = f.run(&[]);
    assert!(o.status.success(), "{}", text(&o));
    let runs = std::fs::read_to_string(f.path().join("results/runs.jsonl")).unwrap();
    let r: serde_json::Value = serde_json::from_str(runs.lines().last().unwrap()).unwrap();
    assert_eq!(r["status"], "failed", "{r}");
    assert!(
        r["detail"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/langbench-prog"),
        "{r}"
    );
}

/// Issue #40: `run ... | head` and `list | head`: the reader gone, langbench
/// ends quietly (no panic, no backtrace) with 141, as a command SIGPIPE
/// ended, and the results directory's lock is released (another run
/// takes it at once).
#[test]
fn a_closed_stdout_ends_quietly_and_releases_the_lock() {
    use std::process::{Command, Stdio};
    let f = fixture();
    let closed = |args: &[String]| {
        let mut child = Command::new(bin())
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader exits before langbench prints its first line.
        drop(child.stdout.take());
        child.wait_with_output().unwrap()
    };
    let o = closed(&f.run_args_with_runs("1", &[]));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(141), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{err}"
    );
    // The run itself finished and was stored.
    assert!(f.path().join("results/runs.jsonl").is_file(), "{err}");
    let o = f.run(&["--resume"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        !text(&o).contains("in use by another langbench"),
        "{}",
        text(&o)
    );
    let o = closed(&["list".into(), "--languages".into(), f.languages()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(141), "{err}");
    assert!(err.is_empty(), "{err}");
}

/// Issue #40: `run` without `--out` never adds to the default results
/// directory silently once it holds runs (in a clone, `results/<year>`
/// holds the published edition): it refuses before anything is written,
/// saying what the directory holds and the choices; `--resume` continues
/// it, and an `--out` that names it adds to it, saying so first.
#[test]
fn run_without_out_never_adds_to_a_directory_that_holds_runs() {
    use std::process::Command;
    let f = fixture();
    let default = langbench::suite::default_out(langbench::bench::Size::Tiny);
    let run = |extra: &[&str]| {
        Command::new(bin())
            .args([
                "run",
                "--languages",
                &f.languages(),
                "--size",
                "tiny",
                "--runs",
                "1",
            ])
            .args(extra)
            .current_dir(f.path())
            .output()
            .unwrap()
    };
    let o = run(&[]);
    assert!(o.status.success(), "{}", text(&o));
    let dir = f.path().join(&default);
    let runs = dir.join("runs.jsonl");
    let before = std::fs::read(&runs).unwrap();
    let sessions = std::fs::read(dir.join("sessions.jsonl")).unwrap();
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    for part in [
        &format!(
            "{} already holds 1 run of 1 variant, in 1 session, the newest started ",
            default.display()
        ),
        "--out DIR",
        "--resume",
        &format!("--out {}", default.display()),
        "Nothing was written",
    ] {
        assert!(err.contains(part), "{part:?} in {err}");
    }
    assert_eq!(std::fs::read(&runs).unwrap(), before);
    assert_eq!(std::fs::read(dir.join("sessions.jsonl")).unwrap(), sessions);
    // --resume: nothing left to run, nothing added.
    let o = run(&["--resume"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(std::fs::read(&runs).unwrap(), before);
    // Named, it is added to, and said before the first run.
    let o = run(&["--out", default.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains(&format!(
            "{} already holds 1 run of 1 variant, in 1 session",
            default.display()
        )),
        "{}",
        text(&o)
    );
    assert!(std::fs::read(&runs).unwrap().len() > before.len());
}
