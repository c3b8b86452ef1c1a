//! What `run` prints at its end: a table that fits the terminal
//! (`$COLUMNS`) unless `--wide`, the machine's warnings again under it,
//! and a last line naming report.html; and `run --help` by headings.

use std::process::{Command, Stdio};

use crate::util::*;

/// Two variants whose flags and versions are long, as GraalVM's are.
fn fixture() -> Fixture {
    let long = "polyglot --jvm --js --engine.Mode=throughput --experimental-options";
    let entries = [
        Entry::sh("short").program("programs/num-comb/ok.sh"),
        Entry::sh("long")
            .flags(long)
            .version("GraalVM-CE-25.0.1+8.1-runtime-GraalVM-CE-JIT-build-2026-11-30")
            .program("programs/num-comb/ok.sh"),
    ];
    Fixture::new(
        &languages_toml(&entries),
        &[("programs/num-comb/ok.sh", "echo 0 1 $1\n")],
    )
}

/// The run's stdout and stderr in the order written, as a terminal shows
/// them, with `COLUMNS` set (or not).
fn run(f: &Fixture, columns: Option<&str>, extra: &[&str]) -> (bool, String) {
    let log = f.path().join(format!("log-{}", columns.unwrap_or("none")));
    let file = std::fs::File::create(&log).unwrap();
    let mut cmd = Command::new(bin());
    cmd.args(f.run_args(extra))
        .stdout(Stdio::from(file.try_clone().unwrap()))
        .stderr(Stdio::from(file));
    match columns {
        Some(c) => cmd.env("COLUMNS", c),
        None => cmd.env_remove("COLUMNS"),
    };
    let status = cmd.status().unwrap();
    (status.success(), std::fs::read_to_string(&log).unwrap())
}

fn widest(s: &str) -> usize {
    s.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

#[test]
fn the_table_fits_columns_unless_wide() {
    let f = fixture();
    let (ok, wide) = run(&f, Some("100"), &["--wide"]);
    assert!(ok, "{wide}");
    // The table, without the warnings stderr interleaves (a busy machine
    // is warned about in one line: into a pipe a warning is not wrapped,
    // for grep).
    let table = |s: &str| -> String {
        s.lines()
            .skip_while(|l| !l.starts_with("Machine:"))
            .take_while(|l| !l.starts_with("Results:"))
            .filter(|l| !l.starts_with("warning: "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(widest(&table(&wide)) > 100, "{wide}");
    assert!(wide.contains("num-comb RAM (KB)"), "{wide}");
    let (ok, fit) = run(&f, Some("100"), &[]);
    assert!(ok, "{fit}");
    let shown = table(&fit);
    for line in shown.lines() {
        assert!(line.chars().count() <= 100, "{line:?}\n{shown}");
    }
    assert!(shown.contains("Short") && shown.contains("Long"), "{shown}");
    assert!(
        shown.contains('…'),
        "the long version or flags are cut: {shown}"
    );
    // A terminal wide enough, or none (a file): every column.
    let (ok, roomy) = run(&f, Some("400"), &[]);
    assert!(ok && roomy.contains("num-comb RAM (KB)"), "{roomy}");
    let (ok, file) = run(&f, None, &[]);
    assert!(ok && file.contains("num-comb RAM (KB)"), "{file}");
    if std::env::var_os("LANGBENCH_SHOW").is_some() {
        eprintln!("{fit}");
    }
}

/// A busy machine's warning is said again under the table (it scrolled
/// away with the runs), and the last line names report.html.
#[test]
fn the_warning_is_repeated_under_the_table_and_the_last_line_names_the_report() {
    let f = fixture();
    // Something busy beside the run, for the warning.
    let mut busy = Command::new("sh")
        .args(["-c", "while :; do :; done"])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let (ok, out) = run(&f, Some("100"), &[]);
    busy.kill().unwrap();
    busy.wait().unwrap();
    assert!(ok, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    let warning = lines
        .iter()
        .position(|l| l.starts_with("warning: busy processes:"))
        .unwrap_or_else(|| panic!("no busy warning: {out}"));
    let table = lines
        .iter()
        .position(|l| l.starts_with("Edition:"))
        .unwrap_or_else(|| panic!("no table (its Edition: line): {out}"));
    assert!(warning < table, "{out}");
    assert!(
        lines[table..].contains(&lines[warning]),
        "said again under the table: {out}"
    );
    let report = f.path().join("results/report.html");
    assert!(report.is_file());
    assert_eq!(
        lines.last().copied(),
        Some(format!("Results: {} (open {})", f.out(), report.display()).as_str()),
        "{out}"
    );
}

/// A warning longer than the terminal wraps at its width, the rest
/// indented (issue #40: it broke mid-word at 80 columns); into a file or
/// a pipe it stays one line, for grep.
#[test]
fn a_long_warning_wraps_on_a_terminal_and_stays_one_line_in_a_file() {
    let f = fixture();
    let (ok, out) = run(&f, None, &[]);
    assert!(ok, "{out}");
    let runs = f.path().join("results/runs.jsonl");
    let mut records = std::fs::read_to_string(&runs).unwrap();
    records.push_str("{\"schema\":1,\"not\":\"a run record of any shape langbench writes\"}\n");
    std::fs::write(&runs, records).unwrap();
    let report = || {
        let mut cmd = Command::new(bin());
        cmd.args(["report", &f.out(), "--languages", &f.languages()])
            .env_remove("COLUMNS");
        cmd
    };
    let piped = report().output().unwrap();
    assert!(piped.status.success(), "{}", text(&piped));
    let err = String::from_utf8_lossy(&piped.stderr);
    let one = err
        .lines()
        .find(|l| l.starts_with("warning: ") && l.contains("skipped an"))
        .unwrap_or_else(|| panic!("no warning: {err}"));
    assert!(one.chars().count() > 80, "too short to wrap: {one}");

    let (status, raw) = in_pty(report(), 80);
    assert!(status.success(), "{raw}");
    let lines = drawn_lines(&raw);
    let at = lines
        .iter()
        .position(|l| l.starts_with("warning: "))
        .unwrap_or_else(|| panic!("no warning: {lines:?}"));
    let rest = lines[at + 1..]
        .iter()
        .take_while(|l| l.starts_with("  "))
        .count();
    let wrapped = &lines[at..=at + rest];
    assert!(wrapped.len() > 1, "not wrapped: {wrapped:?}");
    for l in wrapped {
        assert!(textwrap::core::display_width(l) <= 80, "{l:?}");
    }
    let words = |s: &str| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(words(&wrapped.join(" ")), words(one), "{wrapped:?}");
}

#[test]
fn run_help_groups_its_options_under_headings() {
    let o = langbench(&["run", "--help"]);
    assert!(o.status.success());
    let help = String::from_utf8_lossy(&o.stdout);
    let at = |s: &str| {
        help.find(s)
            .unwrap_or_else(|| panic!("{s:?} not in:\n{help}"))
    };
    let (cpu, measurement, tables, ws) = (
        at("CPU benchmarks:"),
        at("Measurement:"),
        at("Tables:"),
        at("ws-echo (--bench ws-echo, ws, ws-client):"),
    );
    for (flag, heading, next) in [
        ("--lang <ID>", cpu, measurement),
        ("--shard <SHARD>", cpu, measurement),
        ("--runs <RUNS>", measurement, tables),
        ("--timeout <TIMEOUT>", measurement, tables),
        ("--noise-threshold <", tables, ws),
        ("--connections <", ws, help.len()),
        ("--client-cpus <N>", ws, help.len()),
    ] {
        let f = at(&format!("\n      {flag}"));
        assert!(heading < f && f < next, "{flag} under its heading:\n{help}");
    }
    assert!(at("Containment:") < help.len());
}
