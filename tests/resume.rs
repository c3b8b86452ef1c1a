//! Ctrl-C and `run --resume`: the command that continues is printed; a
//! cell cut short keeps its finished runs (same session parameters and
//! program) and runs only what is missing, or says why it runs again;
//! what is complete is decided from the records, before any probe.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::util::*;

fn lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A one-second program, tagged with `marker` (its processes are found in
/// /proc by it).
fn fixture(marker: &str) -> Fixture {
    let entry = Entry::sh("second").env("LANGBENCH_TEST_MARKER", marker);
    Fixture::new(
        &languages_toml(&[entry]),
        &[("programs/num-comb/second.sh", "sleep 1\necho 0 1 $1\n")],
    )
}

fn args(f: &Fixture, extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = [
        "run",
        "--languages",
        &f.languages(),
        "--size",
        "tiny",
        "--runs",
        "3",
        "--out",
        &f.out(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

/// Ctrl-C during the third run of three: the first two are kept, the
/// command to continue is printed, and `--resume` runs only the third,
/// which continues the first session's runs (one cell of 3 runs in the
/// table). A copy resumed without the sandbox says why it starts over.
#[test]
fn resume_keeps_the_two_finished_runs_of_three_and_runs_the_third() {
    let (key, m) = marker("resume");
    let f = fixture(&m);
    let runs = f.path().join("results/runs.jsonl");
    let child = std::process::Command::new(bin())
        .args(args(&f, &[]))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The third run has started: two records, and the program running.
    let deadline = Instant::now() + Duration::from_secs(60);
    let third_started =
        || lines(&runs).len() == 2 && !processes_with_env(&format!("{key}={m}")).is_empty();
    while !third_started() {
        assert!(Instant::now() < deadline, "the third run never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let again = format!(
        "to continue where it stopped:\n  {} {} --resume\n",
        bin().display(),
        args(&f, &[]).join(" ")
    );
    assert!(err.contains(&again), "{again}\n{err}");
    let first = lines(&runs);
    assert_eq!(first.len(), 2, "{first:?}");
    let session = first[0]["session"].as_str().unwrap().to_string();

    // A copy, resumed without the sandbox: measured otherwise, it starts over.
    let copy = tempfile::tempdir().unwrap();
    for file in ["runs.jsonl", "sessions.jsonl"] {
        std::fs::copy(f.path().join("results").join(file), copy.path().join(file)).unwrap();
    }
    let mut bare = vec!["--no-sandbox".to_string()];
    bare.extend(args(&f, &["--resume"]));
    let at = bare.iter().position(|a| *a == f.out()).unwrap();
    bare[at] = copy.path().display().to_string();
    let o = std::process::Command::new(bin())
        .args(&bare)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains(
            "second · num-comb N=1,000: runs again from run 1: its runs were contained differently"
        ),
        "{}",
        text(&o)
    );
    assert_eq!(lines(&copy.path().join("runs.jsonl")).len(), 5);

    // A copy from another machine: refused before anything is written
    // (resuming would measure every cell again, a table of two machines).
    let moved = tempfile::tempdir().unwrap();
    for file in ["runs.jsonl", "sessions.jsonl"] {
        std::fs::copy(f.path().join("results").join(file), moved.path().join(file)).unwrap();
    }
    let sessions = moved.path().join("sessions.jsonl");
    let doctored = std::fs::read_to_string(&sessions)
        .unwrap()
        .replace("\"cpu_model\":\"", "\"cpu_model\":\"Other CPU ");
    std::fs::write(&sessions, &doctored).unwrap();
    let before = std::fs::read(moved.path().join("runs.jsonl")).unwrap();
    let mut elsewhere = args(&f, &["--resume"]);
    let at = elsewhere.iter().position(|a| *a == f.out()).unwrap();
    elsewhere[at] = moved.path().display().to_string();
    let o = std::process::Command::new(bin())
        .args(&elsewhere)
        .output()
        .unwrap();
    assert!(!o.status.success(), "{}", text(&o));
    let err = text(&o);
    assert!(
        err.contains("its runs were measured on another machine (Other CPU")
            && err.contains(&format!("session {session}"))
            && err.contains("Nothing was written"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(moved.path().join("runs.jsonl")).unwrap(),
        before
    );
    assert_eq!(std::fs::read_to_string(&sessions).unwrap(), doctored);
    // Its plan says so too, instead of planning a run that will not start.
    elsewhere.push("--plan".to_string());
    let o = std::process::Command::new(bin())
        .args(&elsewhere)
        .output()
        .unwrap();
    assert!(!o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("its runs were measured on another machine (Other CPU"),
        "{}",
        text(&o)
    );

    // The command it printed.
    let o = std::process::Command::new(bin())
        .args(args(&f, &["--resume"]))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains(&format!(
            "second · num-comb N=1,000: keeps its 2 finished runs (session {session}) and runs the rest"
        )),
        "{}",
        text(&o)
    );
    let all = lines(&runs);
    assert_eq!(all.len(), 3, "only the third ran: {all:?}");
    assert_eq!(all[2]["run"], 3);
    assert_eq!(all[2]["continues"], session.as_str());
    assert_ne!(all[2]["session"], session.as_str());
    let table = f.runs();
    assert_eq!(table.len(), 3, "the every-run table holds the three");
    let summary = read_csv(&f.path().join("results/summary.csv"));
    assert_eq!(summary[0]["num_comb_runs"], "3", "{summary:?}");
    assert_eq!(summary[0]["num_comb_status"], "ok");

    // Complete now: nothing is probed, no session is started.
    let sessions = lines(&f.path().join("results/sessions.jsonl")).len();
    let o = std::process::Command::new(bin())
        .args(args(&f, &["--resume"]))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("nothing left to run: every selected cell is complete"),
        "{}",
        text(&o)
    );
    assert_eq!(
        lines(&f.path().join("results/sessions.jsonl")).len(),
        sessions
    );
    // And the plan says so.
    let o = std::process::Command::new(bin())
        .args(args(&f, &["--resume", "--plan"]))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let plan = String::from_utf8_lossy(&o.stdout);
    assert!(plan.contains("Plan (nothing runs): 1 variant;"), "{plan}");
    assert!(
        plan.contains("num-comb ") && plan.contains(" done"),
        "{plan}"
    );
    assert!(plan.contains("(~0s left)"), "{plan}");
    // A line the records cannot give (torn, or skipped) changes what is
    // done: the plan says so on stderr, as the run does, and its plan
    // on stdout stays whole.
    let runs = f.path().join("results/runs.jsonl");
    let mut torn = std::fs::read_to_string(&runs).unwrap();
    torn.push_str("{\"variant\": \"torn\n");
    std::fs::write(&runs, torn).unwrap();
    let o = std::process::Command::new(bin())
        .args(args(&f, &["--resume", "--plan"]))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("runs.jsonl:4"), "{err}");
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("Plan (nothing runs): 1 variant;"),
        "{}",
        text(&o)
    );
}

/// `--resume` decides from the records which cells are complete before it
/// probes a toolchain: a variant with nothing left to run is never probed
/// (its probe would hang), only the one with work left.
#[test]
fn resume_probes_only_the_variants_it_will_run() {
    let entries = [
        Entry::sh("done").program("programs/num-comb/ok.sh"),
        Entry::sh("todo").program("programs/num-comb/ok.sh"),
    ];
    let f = Fixture::new(
        &languages_toml(&entries),
        &[("programs/num-comb/ok.sh", "echo 0 1 $1\n")],
    );
    let o = f.run(&["--lang", "done"]);
    assert!(o.status.success(), "{}", text(&o));
    // Now done's probe hangs past the run's time limit.
    let slow = languages_toml(&[
        Entry::sh("done")
            .program("programs/num-comb/ok.sh")
            .version_command("sh -c 'sleep 600'"),
        Entry::sh("todo").program("programs/num-comb/ok.sh"),
    ]);
    std::fs::write(f.path().join("languages.toml"), slow).unwrap();
    let t = Instant::now();
    let o = f.run(&["--resume"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(t.elapsed() < Duration::from_secs(60), "{:?}", t.elapsed());
    assert!(
        text(&o).contains("--resume: 1 of 2 cells already complete"),
        "{}",
        text(&o)
    );
    let sessions = lines(&f.path().join("results/sessions.jsonl"));
    let probed: Vec<&str> = sessions[1]["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_str().unwrap())
        .collect();
    assert_eq!(probed, ["todo"]);
}

/// Program identity end to end (issue #22), with real processes: two
/// cells of three runs; one program is edited (a comment); `--resume`
/// runs exactly that cell again and says why, keeping the other; then
/// `compare` of the directory before the edit with the one after marks
/// the edited cell "program changed" and the other "same".
#[test]
fn an_edited_program_runs_again_on_resume_and_compare_says_so() {
    let state = tempfile::tempdir().unwrap();
    let f = Fixture::new(
        &languages_toml(&[Entry::sh("edited"), Entry::sh("kept")]),
        &[
            ("programs/num-comb/edited.sh", "echo 0 1 $1\n"),
            ("programs/num-comb/kept.sh", "echo 0 1 $1\n"),
        ],
    );
    let run = |extra: &[&str]| {
        let o = std::process::Command::new(bin())
            .args(args(&f, extra))
            .env("LANGBENCH_STATE", state.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        o
    };
    run(&[]);
    let runs = f.path().join("results/runs.jsonl");
    let before = lines(&runs);
    assert_eq!(before.len(), 6, "{before:?}");
    let old = tempfile::tempdir().unwrap();
    for file in ["runs.jsonl", "sessions.jsonl"] {
        std::fs::copy(f.path().join("results").join(file), old.path().join(file)).unwrap();
    }

    // A comment: the same program to a reader, another source to the digest.
    let program = f.path().join("programs/num-comb/edited.sh");
    let mut body = std::fs::read_to_string(&program).unwrap();
    body.push_str("# tidied\n");
    std::fs::write(&program, body).unwrap();
    let o = run(&["--resume"]);
    let said = text(&o);
    assert!(
        said.contains("--resume: 1 of 2 cells already complete"),
        "{said}"
    );
    assert!(
        said.contains(
            "edited · num-comb N=1,000: runs again from run 1: its program changed since \
             its runs (source sha256 "
        ),
        "{said}"
    );
    assert!(!said.contains("kept · num-comb N=1,000:"), "{said}");
    let after = lines(&runs);
    let of = |v: &str| -> Vec<&serde_json::Value> {
        after.iter().filter(|r| r["variant"] == v).collect()
    };
    assert_eq!(of("edited").len(), 6, "3 old runs and 3 new: {after:?}");
    assert_eq!(of("kept").len(), 3, "the kept cell did not run: {after:?}");
    let new_session = &of("edited")[5]["session"];
    assert_ne!(new_session, &of("edited")[0]["session"]);
    assert!(
        of("edited")[3..]
            .iter()
            .all(|r| r["session"] == *new_session)
    );
    assert!(
        of("edited")[3..].iter().all(|r| r["continues"].is_null()),
        "the new runs do not continue the old program's"
    );
    assert_ne!(
        of("edited")[0]["identity"]["program"],
        of("edited")[5]["identity"]["program"]
    );
    // The table shows the new program's runs only.
    let summary = read_csv(&f.path().join("results/summary.csv"));
    let edited = summary.iter().find(|r| r["variant"] == "edited").unwrap();
    assert_eq!(edited["num_comb_runs"], "3", "{edited:?}");

    let cmp = tempfile::tempdir().unwrap();
    let o = std::process::Command::new(bin())
        .args([
            "compare",
            &old.path().display().to_string(),
            &f.out(),
            "--languages",
            &f.languages(),
            "--out",
            &cmp.path().display().to_string(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let rows = read_csv(&cmp.path().join("compare.csv"));
    let program = |v: &str| {
        rows.iter()
            .find(|r| r["variant"] == v)
            .map(|r| r["program"].clone())
            .unwrap_or_else(|| panic!("no {v} in {rows:?}"))
    };
    assert_eq!(program("edited"), "program changed (num-comb)");
    assert_eq!(program("kept"), "same");
}

/// Issue #59, row 4: a pull request appends 1 ms runs of its variants to
/// the results directory, each cell complete in its records: one without
/// an identity or a seal (under a session `sessions.jsonl` does not hold),
/// one with a correct identity and the seal another machine made (the
/// figure changed after), one with a correct identity and a seal copied
/// from a genuine record of this directory. `run --resume` trusts none of
/// them: it says so in one line, measures the three cells again (the
/// honest cell this machine measured stays complete), and the published
/// figures are the re-measured ones, not 0.001 s. The seal key is made
/// 0600 in the state directory, outside the results.
#[test]
fn issue59_row04_runs_appended_by_a_pull_request_are_measured_again() {
    let slow = "sleep 0.3\necho 0 1 $1\n";
    let ids = ["honest", "bare", "forged", "copied"];
    let entries: Vec<Entry> = ids
        .iter()
        .map(|id| Entry::sh(id).program("programs/num-comb/slow.sh"))
        .collect();
    let f = Fixture::new(
        &languages_toml(&entries),
        &[("programs/num-comb/slow.sh", slow)],
    );
    let (here, elsewhere) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let run = |state: &Path, out: &str, extra: &[&str]| {
        let mut args = f.run_args(extra);
        let at = args.iter().position(|a| *a == f.out()).unwrap();
        args[at] = out.to_string();
        let o = std::process::Command::new(bin())
            .args(&args)
            .env("LANGBENCH_STATE", state)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        o
    };
    // This machine measures the honest variant.
    run(here.path(), &f.out(), &["--lang", "honest"]);
    let key = here.path().join("seal.key");
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&key).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
    let runs_path = f.path().join("results/runs.jsonl");
    let honest = lines(&runs_path)[0].clone();
    assert!(
        honest["seal"].as_str().is_some_and(|s| s.len() == 64),
        "{honest}"
    );
    // Another machine measures the others: records with correct
    // identities, sealed with its own key.
    let there = tempfile::tempdir().unwrap();
    let there_out = there.path().join("results").display().to_string();
    run(
        elsewhere.path(),
        &there_out,
        &["--lang", "bare", "--lang", "forged", "--lang", "copied"],
    );
    let theirs = lines(&there.path().join("results/runs.jsonl"));
    let of = |id: &str| theirs.iter().find(|r| r["variant"] == id).unwrap().clone();
    let fast = |mut r: serde_json::Value| {
        r["wall_s"] = 0.001.into();
        r["user_s"] = 0.001.into();
        r["session"] = honest["session"].clone();
        r
    };
    let mut bare = fast(of("bare"));
    let o = bare.as_object_mut().unwrap();
    o.remove("identity");
    o.remove("seal");
    o.insert("session".into(), "20991231T000000Z-1-abcdef".into());
    let forged = fast(of("forged"));
    let mut copied = fast(of("copied"));
    copied["seal"] = honest["seal"].clone();
    let mut text_of = std::fs::read_to_string(&runs_path).unwrap();
    for r in [&bare, &forged, &copied] {
        text_of.push_str(&format!("{r}\n"));
    }
    std::fs::write(&runs_path, text_of).unwrap();

    // Its plan says so, and plans the three cells.
    let o = std::process::Command::new(bin())
        .args(f.run_args(&["--resume", "--plan"]))
        .env("LANGBENCH_STATE", here.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let line = "--resume: 3 stored runs of 3 cells were not recorded by this machine \
                (1 without a seal, 2 whose seal this machine's key does not verify; its key is ";
    assert!(text(&o).contains(line), "{}", text(&o));

    let o = run(here.path(), &f.out(), &["--resume"]);
    let said = text(&o);
    assert!(said.contains(line), "{said}");
    assert!(
        said.contains("--resume: 1 of 4 cells already complete"),
        "{said}"
    );
    for id in ["bare", "forged", "copied"] {
        assert!(
            said.contains(&format!(
                "{id} · num-comb N=1,000: runs again from run 1: 1 of its stored runs was not \
                 recorded by this machine"
            )),
            "{id}: {said}"
        );
    }
    let summary = read_csv(&f.path().join("results/summary.csv"));
    for id in ids {
        let row = summary.iter().find(|r| r["variant"] == id).unwrap();
        let s: f64 = row["num_comb_s"].parse().unwrap();
        assert!(
            s >= 0.3,
            "{id}: the published figure is {s}, not the re-measured one: {row:?}"
        );
    }
    // The new runs are sealed; the complete directory resumes with
    // nothing left, and nothing is said about untrusted runs.
    let all = lines(&runs_path);
    assert_eq!(all.len(), 7, "{all:?}");
    assert!(
        all[4..]
            .iter()
            .all(|r| r["seal"].as_str().is_some_and(|s| s.len() == 64))
    );
    let o = run(here.path(), &f.out(), &["--resume"]);
    assert!(text(&o).contains("nothing left to run"), "{}", text(&o));
    assert!(
        !text(&o).contains("not recorded by this machine"),
        "{}",
        text(&o)
    );
    // The key is never in the results.
    let key_text = std::fs::read_to_string(&key).unwrap();
    for e in std::fs::read_dir(f.path().join("results"))
        .unwrap()
        .flatten()
    {
        if e.path().is_file() {
            let body = String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned();
            assert!(!body.contains(key_text.trim()), "{}", e.path().display());
        }
    }
}
