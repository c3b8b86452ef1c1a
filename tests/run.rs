//! `langbench run` end to end: real toolchains, real processes.

use std::time::Duration;

use crate::util::*;

/// Every variant of languages.toml that a registry here provides runs and is
/// verified at tiny size (CI installs them all with `toolchains install`).
#[test]
fn every_installable_variant_is_verified_at_tiny_size() {
    let out = tempfile::tempdir().unwrap();
    let languages = repo().join("languages.toml");
    let langs = langbench::config::Languages::load(&languages).unwrap();
    let o = langbench(&[
        "run",
        "--languages",
        languages.to_str().unwrap(),
        "--size",
        "tiny",
        "--runs",
        "1",
        "--timeout",
        "300",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let mut r = csv::Reader::from_path(out.path().join("summary.csv")).unwrap();
    let headers = r.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let mut verified = Vec::new();
    for row in r.records().map(|r| r.unwrap()) {
        let id = row[col("variant")].to_string();
        let v = langs.variants.iter().find(|v| v.id == id).unwrap();
        // A benchmark the variant has no program for (fortran-gfortran's
        // assoc: Fortran has no map) is n/a; every other cell must be ok.
        let mut statuses: Vec<&str> = Vec::new();
        for (h, s) in headers.iter().zip(row.iter()) {
            // row_status is the row's (complete or partial), not a cell's.
            let Some(bench) = h.strip_suffix("_status").filter(|b| *b != "row") else {
                continue;
            };
            let has_program = v
                .programs
                .keys()
                .any(|b| b.name().replace('-', "_") == bench);
            if has_program {
                statuses.push(s);
            } else {
                assert_eq!(s, "n/a", "{id}: {bench} has no program");
            }
        }
        if let Some((_, want)) = HONEST_FAILURES.iter().find(|(f, _)| *f == id) {
            // An engine that cannot run the programs fails with its own
            // error (programs/FAIRNESS.md rule 7), and no other way.
            assert!(
                statuses.iter().all(|s| *s == "failed"),
                "{id}: {statuses:?}"
            );
            let records = std::fs::read_to_string(out.path().join("runs.jsonl")).unwrap();
            for line in records
                .lines()
                .filter(|l| l.contains(&format!("\"variant\":\"{id}\"")))
            {
                let r: serde_json::Value = serde_json::from_str(line).unwrap();
                let detail = r["detail"].as_str().unwrap_or("");
                assert!(detail.contains(want), "{id}: not its own error: {detail}");
            }
            verified.push(id);
        } else if v.install.is_installable() {
            assert!(
                !statuses.is_empty() && statuses.iter().all(|s| *s == "ok"),
                "{id}: {statuses:?}\n{}",
                text(&o)
            );
            verified.push(id);
        } else if !statuses.iter().all(|s| *s == "not-installed") {
            assert!(statuses.iter().all(|s| *s == "ok"), "{id}: {statuses:?}");
        }
    }
    for core in ["c-gcc", "c-tcc", "python3", "pypy3", "node", "java", "go"] {
        assert!(verified.iter().any(|v| v == core), "{core} not verified");
    }
    assert!(
        verified.len() >= 30,
        "only {} variants verified",
        verified.len()
    );
    for f in [
        "summary.md",
        "runs.csv",
        "results.json",
        "runs.jsonl",
        "sessions.jsonl",
    ] {
        assert!(out.path().join(f).is_file(), "{f} missing");
    }
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("results.json")).unwrap()).unwrap();
    assert!(json["sessions"][0]["machine"]["cpu_model"].is_string());
}

/// Installable rows whose every cell fails with the engine's own error
/// (variant, text of that error): Duktape is ES5.1 and rejects the
/// programs' `let`, arrow functions and template literals.
const HONEST_FAILURES: &[(&str, &str)] = &[("duktape", "SyntaxError: parse error")];

/// The chakracore row's note says why it runs with the background JIT
/// thread off: with ChakraCore's default runtime attributes the shipped
/// 2020 library aborts in this glibc as soon as that thread starts work.
/// Checked here, so the note changes when that stops being true.
#[test]
fn chakracore_aborts_with_its_background_jit_and_runs_without_it() {
    let langs = langbench::config::Languages::load(&repo().join("languages.toml")).unwrap();
    let v = langs
        .variants
        .iter()
        .find(|v| v.id == "chakracore")
        .unwrap();
    if !v.missing().is_empty() {
        eprintln!("chakracore not installed: nothing to check");
        return;
    }
    let launcher = v.dist_home.as_ref().unwrap().join("bin/chakracore");
    let program = repo().join("programs/num-comb/num_comb.js");
    let run = |extra: &[&str], n: &str| {
        std::process::Command::new(&launcher)
            .args(extra)
            .arg(&program)
            .arg(n)
            .output()
            .unwrap()
    };
    // Large enough that the background thread gets work before the
    // program ends, even on a busy machine (at N = 1,000 a loaded machine
    // sometimes lets the run finish first).
    let default = run(&[], "100000");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(default.status.signal(), Some(libc::SIGABRT), "{default:?}");
    assert!(
        String::from_utf8_lossy(&default.stderr)
            .contains("The futex facility returned an unexpected error code"),
        "{default:?}"
    );
    let off = run(&["--disable-background-work"], "100000");
    assert!(off.status.success(), "{off:?}");
    assert_eq!(String::from_utf8_lossy(&off.stdout), "0 1 100000\n");
}

/// Six shell variants, each going wrong its own way (`fakes` writes their
/// programs); the hanging one's processes are tagged with `marker`.
fn fake_entries(marker: &str) -> Vec<Entry> {
    vec![
        Entry::sh("wrong"),
        Entry::sh("badexit").language("Tcc-like").version("2.0"),
        Entry::sh("hang")
            .version("3.0")
            .env("LANGBENCH_TEST_MARKER", marker),
        Entry::sh("absent")
            .flags("absentc run")
            .needs(&[])
            .version_command("absentc --version")
            .run("absentc run {src} {n}")
            .program("programs/num-comb/wrong.sh")
            .install("{ apt = [\"absent-lang\"], hint = \"apt-get install absent-lang\" }"),
        Entry::sh("crash").version("4.0"),
        Entry::sh("fails").version("5.0"),
    ]
}

fn fakes(marker: &str) -> Fixture {
    Fixture::new(
        &languages_toml(&fake_entries(marker)),
        &[
            ("programs/num-comb/wrong.sh", "echo 0 1 999\n"),
            ("programs/num-comb/badexit.sh", "echo 0 1 $1\nexit 25\n"),
            // The program leaves a child in its group and a daemon outside it.
            (
                "programs/num-comb/hang.sh",
                "sleep 600 &\nsetsid sleep 601 &\nsleep 602\n",
            ),
            ("programs/num-comb/crash.sh", "kill -SEGV $$\n"),
            // Coloured error output, as deno and cargo print it.
            (
                "programs/num-comb/fails.sh",
                "printf '\\033[1m\\033[31merror\\033[0m: Uncaught RangeError: too big\\n' >&2\nexit 1\n",
            ),
        ],
    )
}

#[test]
fn failures_are_flagged_never_plain_times() {
    let (_, m) = marker("fakes");
    let f = fakes(&m);
    let o = f.run_with_runs("3", &["--timeout", "1.5"]);
    assert!(o.status.success(), "{}", text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);

    let runs = f.runs();
    let status = |id: &str| -> Vec<String> {
        runs.iter()
            .filter(|r| r["variant"] == id)
            .map(|r| r["status"].clone())
            .collect()
    };
    assert_eq!(status("wrong"), ["wrong-output"; 3]);
    assert_eq!(status("badexit"), ["bad-exit"; 3]);
    // A timeout, a crash or a failure settles the cell (it shows its worst
    // run): the other two runs are skipped, not waited for.
    assert_eq!(status("crash"), ["crashed", "skipped", "skipped"]);
    assert_eq!(status("hang"), ["timeout", "skipped", "skipped"]);
    assert_eq!(status("fails"), ["failed", "skipped", "skipped"]);
    assert_eq!(status("absent"), ["not-installed"]);

    // The table shows each failure as such.
    assert!(stdout.contains("WRONG OUTPUT"), "{stdout}");
    assert!(stdout.contains("(exit 25)"), "{stdout}");
    assert!(stdout.contains("TIMEOUT >1.5"), "{stdout}");
    assert!(stdout.contains("CRASHED (SIGSEGV)"), "{stdout}");
    // The error line is kept, without its terminal colour codes.
    assert!(
        stdout.contains("stderr: error: Uncaught RangeError: too big"),
        "{stdout}"
    );
    assert!(!stdout.contains('\x1b'), "{stdout}");
    assert!(stdout.contains("not installed"), "{stdout}");
    assert!(stdout.contains("apt-get install absent-lang"), "{stdout}");
    assert!(
        stdout.contains("expected \"0 1 1000\\n\", got \"0 1 999\\n\""),
        "{stdout}"
    );
    let md = std::fs::read_to_string(f.path().join("results/summary.md")).unwrap();
    assert!(
        md.contains("WRONG OUTPUT") && md.contains("TIMEOUT"),
        "{md}"
    );

    // Nothing the hanging program started is still alive.
    let left = processes_with_env(&format!("LANGBENCH_TEST_MARKER={m}"));
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn a_bad_languages_file_names_the_line() {
    let mut entries = fake_entries("");
    entries[0] = entries[0].clone().run("sh {src} {size}");
    let toml = languages_toml(&entries);
    let f = Fixture::new(
        &toml,
        &[
            ("programs/num-comb/wrong.sh", ""),
            ("programs/num-comb/badexit.sh", ""),
        ],
    );
    let o = f.run(&[]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    // The line of the bad `run`, at its value's first column.
    let line = 1 + toml.lines().position(|l| l.contains("{size}")).unwrap();
    assert!(
        err.contains(&format!(
            "languages.toml:{line}:7: variant \"wrong\": unknown placeholder {{size}}"
        )),
        "{err}"
    );
    // Nothing was written.
    assert!(!f.path().join("results").exists());

    let f = Fixture::new("[[variant]]\nid = \"x\"\nlanguage = 3\n", &[]);
    let o = langbench(&["list", "--languages", &f.languages()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("languages.toml:3:"), "{err}");
}

#[test]
fn interrupting_a_run_keeps_the_finished_runs() {
    let (_, m) = marker("interrupt");
    let f = Fixture::new(
        &languages_toml(&fake_entries(&m)),
        &[
            ("programs/num-comb/wrong.sh", "echo 0 1 1000\n"),
            ("programs/num-comb/badexit.sh", "echo 0 1 $1\n"),
            ("programs/num-comb/hang.sh", "sleep 600 &\nsleep 602\n"),
            ("programs/num-comb/crash.sh", ""),
            ("programs/num-comb/fails.sh", ""),
        ],
    );
    let three = [
        "--in-a-row",
        "--lang",
        "wrong",
        "--lang",
        "badexit",
        "--lang",
        "hang",
    ];
    let mut child = std::process::Command::new(bin())
        .args(f.run_args(&three))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the hanging program runs, then interrupt langbench.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while processes_with_env(&format!("LANGBENCH_TEST_MARKER={m}")).is_empty() {
        assert!(std::time::Instant::now() < deadline, "hang never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let runs = f.runs();
    let done: Vec<_> = runs.iter().map(|r| r["variant"].as_str()).collect();
    assert_eq!(
        done,
        ["wrong", "badexit"],
        "finished runs are kept, the interrupted one is not"
    );
    std::thread::sleep(Duration::from_millis(200));
    let left = processes_with_env(&format!("LANGBENCH_TEST_MARKER={m}"));
    assert!(left.is_empty(), "left behind: {left:?}");

    // --resume runs only what is missing: the interrupted cell.
    let o = f.run(&[&three[..], &["--timeout", "1", "--resume"]].concat());
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("already complete"),
        "{}",
        text(&o)
    );
    let runs: Vec<(String, String)> = f
        .runs()
        .iter()
        .map(|r| (r["variant"].clone(), r["status"].clone()))
        .collect();
    let expect = |v: &str, s: &str| (v.to_string(), s.to_string());
    assert_eq!(
        runs,
        [
            expect("wrong", "ok"),
            expect("badexit", "ok"),
            expect("hang", "timeout")
        ]
    );
}

/// The GraalVM rows (GraalJS, GraalPy) must run with the
/// optimizing Graal compiler inside the sandbox (their rows say "Graal
/// JIT"): without the native library Truffle unpacks at install, it
/// silently falls back to the interpreter and the version probe says
/// `runtime: Interpreted`.
#[test]
fn graalvm_rows_run_jit_compiled_in_the_sandbox() {
    // Probed now, in the sandbox (not the version cache's answer).
    let o = langbench(&["list", "--json", "--refresh"]);
    assert!(o.status.success(), "{}", text(&o));
    let all: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for id in ["graaljs", "graalpy"] {
        let Some(g) = all
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["id"] == id && v["installed"] == true)
        else {
            eprintln!("{id} not installed: nothing to check");
            continue;
        };
        let version = g["version"].as_str().unwrap();
        assert!(
            version.contains("runtime: GraalVM"),
            "{id} runs without its JIT in the sandbox: version {version:?}"
        );
    }
}

/// Issue #39: `run` in rounds with a reference variant in every block of
/// 3 s (`--block-minutes 0.05`) publishes, in summary.md, each cell's
/// figure normalised against the references of its runs' sitting, ranks from
/// those intervals, and the precision fact (the passes, the sessions, the
/// drift per benchmark, the flagged passes).
#[test]
fn a_run_with_references_publishes_normalised_figures_and_its_precision() {
    let mut toml = String::from("[edition]\nreferences = [\"py-ref\"]\n\n");
    let mut files = Vec::new();
    for id in ["py-ref", "py-a", "py-b"] {
        let programs: Vec<String> = [
            ("assoc", "assoc.py"),
            ("num-comb", "num_comb.py"),
            ("str-comb", "str_comb.py"),
        ]
        .iter()
        .map(|(b, f)| {
            let path = format!("programs/{id}/{f}");
            let body = std::fs::read_to_string(repo().join("programs").join(b).join(f)).unwrap();
            files.push((path.clone(), body));
            format!("{b} = \"{path}\"")
        })
        .collect();
        toml.push_str(&format!(
            "[[variant]]\nid = \"{id}\"\nlanguage = \"Python\"\nflags = \"python3 {id}\"\n\
             needs = [\"python3\"]\nversion = \"python3 --version\"\nrun = \"python3 {{src}} {{n}}\"\n\
             programs = {{ {} }}\n\n",
            programs.join(", ")
        ));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let f = Fixture::new(&toml, &files);
    let o = f.run_with_runs(
        "3",
        &[
            "--block-minutes",
            "0.05",
            "--lang",
            "py-a",
            "--lang",
            "py-b",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let references = std::fs::read_to_string(f.path().join("results/references.jsonl")).unwrap();
    assert!(
        references.lines().count() >= 6,
        "two passes of 3 benchmarks: {references}"
    );
    let md = std::fs::read_to_string(f.path().join("results/summary.md")).unwrap();
    assert!(md.contains("Normalised total (s)"), "{md}");
    // Each benchmark's normalised figure is a secondary column: in the
    // CSV (and the page's more columns), not in the Markdown table.
    assert!(!md.contains("assoc normalised (s)"), "{md}");
    let csv = std::fs::read_to_string(f.path().join("results/summary.csv")).unwrap();
    assert!(
        csv.lines().next().unwrap().contains("assoc_normalised_s"),
        "{csv}"
    );
    // Each row's normalised total as `fastest +x%` (its slowest x % above).
    let rows: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("| Python | python3 py-"))
        .collect();
    assert_eq!(rows.len(), 2, "{md}");
    for row in rows {
        assert!(
            row.split('|')
                .any(|c| c.trim().contains(" +") && c.trim().ends_with('%')),
            "{row}"
        );
    }
    assert!(md.contains("Precision"), "{md}");
    assert!(md.contains("the reference set (py-ref) ran in"), "{md}");
    assert!(md.contains("over 1 session (sittings)"), "{md}");
    assert!(
        md.contains("by normalised total among complete rows"),
        "{md}"
    );
    assert!(md.contains("Normalised"), "{md}");
}
