//! The progress line of `run`: each run against its timeout, the suite's
//! time left from every remaining cell's estimate (this directory's
//! records, `--balance-from`'s, or the median), updated as cells finish.
//! Where no terminal draws it (here: stderr is a pipe), the line is
//! printed at the start of each run expected to take at least
//! LANGBENCH_PROGRESS_EVERY seconds, and that often while it goes on.

use std::path::Path;

use langbench::progress::duration;

use crate::util::*;

/// quick (0.2 s), slow (2.5 s) and unknown (0.1 s), one num-comb program
/// each.
fn fixture() -> Fixture {
    let entries = [Entry::sh("quick"), Entry::sh("slow"), Entry::sh("unknown")];
    Fixture::new(
        &languages_toml(&entries),
        &[
            ("programs/num-comb/quick.sh", "sleep 0.2\necho 0 1 $1\n"),
            ("programs/num-comb/slow.sh", "sleep 2.5\necho 0 1 $1\n"),
            ("programs/num-comb/unknown.sh", "sleep 0.1\necho 0 1 $1\n"),
        ],
    )
}

/// `dir`'s runs.jsonl as JSON values.
fn records(dir: &Path) -> Vec<serde_json::Value> {
    jsonl(&dir.join("runs.jsonl"))
}

/// A previous edition that says quick takes 1 s a run and slow 4 s (its
/// records rewritten to those walls), and knows nothing of unknown.
fn previous(f: &Fixture) -> std::path::PathBuf {
    let prev = f.path().join("prev");
    let o = langbench(&[
        "run",
        "--languages",
        &f.languages(),
        "--lang",
        "quick",
        "--lang",
        "slow",
        "--size",
        "tiny",
        "--runs",
        "2",
        "--out",
        prev.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let known: Vec<String> = records(&prev)
        .into_iter()
        .map(|mut r| {
            r["wall_s"] = match r["variant"].as_str().unwrap() {
                "quick" => 1.0.into(),
                _ => 4.0.into(),
            };
            r.to_string()
        })
        .collect();
    std::fs::write(prev.join("runs.jsonl"), known.join("\n") + "\n").unwrap();
    prev
}

/// `langbench run` on the fixture at tiny size into results/, then
/// `extra`, with LANGBENCH_PROGRESS_EVERY set.
fn run(f: &Fixture, every: &str, extra: &[&str]) -> std::process::Output {
    let out = f.out();
    let languages = f.languages();
    let mut args = vec![
        "run",
        "--languages",
        &languages,
        "--size",
        "tiny",
        "--out",
        &out,
    ];
    args.extend_from_slice(extra);
    std::process::Command::new(bin())
        .args(args)
        .env("LANGBENCH_PROGRESS_EVERY", every)
        .output()
        .unwrap()
}

/// Either rounding of `secs` (the line is drawn a few µs into the run).
fn left(secs: f64) -> [String; 2] {
    [
        format!("~{} left", duration(secs)),
        format!("~{} left", duration(secs - 0.01)),
    ]
}

#[test]
fn the_line_shows_each_run_against_its_timeout_and_the_time_left() {
    let f = fixture();
    let prev = previous(&f);
    let from = prev.to_str().unwrap();
    let o = run(
        &f,
        "1",
        &[
            "--in-a-row",
            "--runs",
            "2",
            "--timeout",
            "30",
            "--balance-from",
            from,
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let lines: Vec<&str> = err.lines().collect();
    let has = |start: &str, ends: &[String]| {
        lines
            .iter()
            .any(|l| l.starts_with(start) && ends.iter().any(|e| l.ends_with(e.as_str())))
    };
    // At the start: quick's two runs of 1 s, slow's two of 4 s, and
    // unknown's two at the median of 1 and 4.
    assert!(
        has(
            "[1/3] quick · num-comb N=1,000 · run 1/2 · 0.0s of 30s · ",
            &left(15.0)
        ),
        "{err}"
    );
    // quick has finished: its own mean replaces its estimate in the median.
    let runs = records(&f.path().join("results"));
    let walls = |v: &str| -> Vec<f64> {
        runs.iter()
            .filter(|r| r["variant"] == v)
            .map(|r| r["wall_s"].as_f64().unwrap())
            .collect()
    };
    let quick = walls("quick");
    let mean = quick.iter().sum::<f64>() / quick.len() as f64;
    assert!(
        has(
            "[2/3] slow · num-comb N=1,000 · run 1/2 · 0.0s of 30s · ",
            &left(8.0 + 2.0 * (mean + 4.0) / 2.0)
        ),
        "quick's mean {mean}:\n{err}"
    );
    // The second run of slow is expected to take as long as its first.
    let slow = walls("slow");
    assert!(
        has(
            "[2/3] slow · num-comb N=1,000 · run 2/2 · 0.0s of 30s · ",
            &left(slow[0] + 2.0 * (mean + 4.0) / 2.0)
        ),
        "slow's first {}:\n{err}",
        slow[0]
    );
    // While slow runs, the line again, its clock against the timeout.
    let ticking = lines.iter().any(|l| {
        l.strip_prefix("[2/3] slow · num-comb N=1,000 · run 1/2 · ")
            .and_then(|r| r.split_once(" of 30s · ~"))
            .and_then(|(gone, _)| gone.strip_suffix('s')?.parse::<f64>().ok())
            .is_some_and(|gone| gone >= 1.0)
    });
    assert!(ticking, "{err}");
    // Each finished run still has its line.
    assert!(
        err.contains("[1/3] quick · num-comb N=1,000 · run 1/2: "),
        "{err}"
    );
}

#[test]
fn runs_auto_shows_its_bounds_not_a_count() {
    let f = fixture();
    let prev = previous(&f);
    let from = prev.to_str().unwrap();
    let auto = ["--lang", "quick", "--runs", "auto", "--max-runs", "4"];
    let o = run(&f, "0.05", &[&auto[..], &["--balance-from", from]].concat());
    assert!(o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("quick · num-comb N=1,000 · run 1 (3–4) · 0.0s of 16m40s · ~"),
        "{err}"
    );
    assert!(err.contains("run 3 (3–4): "), "{err}");
    assert!(!err.contains("run 1/4"), "{err}");
}

/// On a terminal of 80 columns the progress line is drawn within them (it
/// wrapped: a long id, the elapsed time, the size, the timeout and the time
/// left came to 90 and more), and keeps the cell's id whole.
#[test]
fn the_drawn_line_fits_an_80_column_terminal() {
    let id = "a-rather-long-variant-name";
    let f = Fixture::new(
        &languages_toml(&[Entry::sh(id)]),
        &[(
            "programs/num-comb/a-rather-long-variant-name.sh",
            "sleep 1\necho 0 1 $1\n",
        )],
    );
    let mut cmd = std::process::Command::new(bin());
    cmd.args(f.run_args_with_runs("2", &[]))
        .env_remove("COLUMNS");
    let (status, raw) = in_pty(cmd, 80);
    assert!(status.success(), "{raw}");
    let lines = drawn_lines(&raw);
    // The progress line: the cell, not a finished run's line (its KB).
    let progress: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains(id) && l.contains("num-comb") && !l.contains(" KB "))
        .collect();
    assert!(!progress.is_empty(), "no progress line drawn:\n{raw:?}");
    for l in &progress {
        let w = textwrap::core::display_width(l);
        assert!(w <= 80, "{w} columns: {l:?}");
        assert!(l.contains(&format!("{id} · num-comb")), "{l:?}");
    }
    assert!(
        progress.iter().any(|l| l.contains("run 2/2")),
        "the run is still said where there is room: {progress:?}"
    );
}

/// In rounds the cells come shuffled, so a cell's number is no progress
/// (the first cell measured of an edition read `[240/251]`): each run's
/// counter counts this session's runs, of those it expects, in order; a
/// line about the cell itself has no counter.
#[test]
fn in_rounds_the_counter_counts_runs_in_the_order_they_are_made() {
    let f = fixture();
    let o = run(
        &f,
        "1000",
        &[
            "--lang", "quick", "--lang", "unknown", "--runs", "2", "--seed", "7",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let counters: Vec<&str> = err
        .lines()
        .filter(|l| l.contains(" · run ") && l.ends_with(" ok"))
        .map(|l| l.split_once(' ').unwrap().0)
        .collect();
    assert_eq!(counters, ["[1/4]", "[2/4]", "[3/4]", "[4/4]"], "{err}");
}

/// In rounds, a cell whose toolchain is missing makes no runs: the
/// counter never expects any of it, from the first run on (a resumed
/// edition's first counter read `[2/656]` of ~590 runs, and its time left
/// ~10h43m of ~7h).
#[test]
fn in_rounds_the_counter_expects_no_runs_of_a_missing_toolchain() {
    let mut entries = vec![Entry::sh("quick")];
    let mut files = vec![(
        "programs/num-comb/quick.sh".to_string(),
        "echo 0 1 $1\n".to_string(),
    )];
    for id in ["gone-a", "gone-b", "gone-c", "gone-d"] {
        entries.push(Entry::sh(id).needs(&["langbench-test-no-such-tool"]));
        files.push((format!("programs/num-comb/{id}.sh"), "echo 0 1 $1\n".into()));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let f = Fixture::new(&languages_toml(&entries), &files);
    for seed in ["1", "2", "3"] {
        let out = format!("{}-{seed}", f.out());
        let o = std::process::Command::new(bin())
            .args(["run", "--languages", &f.languages(), "--size", "tiny"])
            .args(["--out", &out, "--runs", "2", "--seed", seed])
            .env("LANGBENCH_PROGRESS_EVERY", "1000")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.matches(": not installed").count(), 4, "{err}");
        let counters: Vec<&str> = err
            .lines()
            .filter(|l| l.contains(" · run ") && l.ends_with(" ok"))
            .map(|l| l.split_once(' ').unwrap().0)
            .collect();
        assert_eq!(counters, ["[1/2]", "[2/2]"], "seed {seed}: {err}");
    }
}
