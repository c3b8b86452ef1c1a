//! One fitting rule for every terminal table (`run`, `report`, `compare`,
//! `history`, `list`): within `$COLUMNS` where stdout is no terminal,
//! leaving out the least needed columns first, never cutting the column
//! that tells the rows apart (the command flags: three rows reading
//! `Nim  nim r -…` could not be told apart), and every column uncut with
//! `--wide`. On the published results directories.

use std::path::Path;
use std::process::Command;

use crate::util::*;

/// `langbench args` in the checkout (its languages.toml), stdout, with
/// `COLUMNS` set or not.
fn shown(args: &[&str], columns: Option<&str>) -> String {
    let mut cmd = Command::new(bin());
    cmd.args(args).current_dir(repo());
    match columns {
        Some(c) => cmd.env("COLUMNS", c),
        None => cmd.env_remove("COLUMNS"),
    };
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", text(&o));
    String::from_utf8(o.stdout).unwrap()
}

/// A copy of results/2026 (`report` rewrites a directory's derived
/// files; the checkout's stay as they are).
fn edition_copy(tmp: &Path) -> String {
    let to = tmp.join("2026");
    let o = Command::new("cp")
        .arg("-r")
        .arg(repo().join("results/2026"))
        .arg(&to)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    to.to_str().unwrap().to_string()
}

/// The cells of the column headed `header` in every full (bordered)
/// table of `wide`, trimmed.
fn column(wide: &str, header: &str) -> Vec<String> {
    let mut at = None;
    let mut out = Vec::new();
    for line in wide.lines() {
        let cells: Vec<&str> = line
            .trim_start_matches('│')
            .trim_end_matches('│')
            .split('┆')
            .map(str::trim)
            .collect();
        if !line.starts_with('│') {
            if line.starts_with('└') {
                at = None;
            }
            continue;
        }
        if let Some(i) = cells.iter().position(|c| *c == header) {
            at = Some(i);
            continue;
        }
        if let Some(c) = at.and_then(|i| cells.get(i)).filter(|c| !c.is_empty()) {
            out.push(c.to_string());
        }
    }
    out
}

/// No line of `fit` wider than `w`; every one of `flags` whole: each word
/// shown, no cut form of it (`nim r -…`).
fn fits_and_keeps(fit: &str, w: usize, flags: &[String], what: &str) {
    for line in fit.lines() {
        assert!(
            line.chars().count() <= w,
            "{what} at {w}: {} columns: {line:?}\n{fit}",
            line.chars().count()
        );
    }
    let words: std::collections::HashSet<&str> = fit.split_whitespace().collect();
    for f in flags {
        for word in f.split_whitespace() {
            assert!(
                words.contains(word),
                "{what} at {w}: {word:?} of {f:?} not shown whole\n{fit}"
            );
        }
        // A cell cut short: ` nim r -…` (three characters at least).
        for (i, _) in f.char_indices().skip(3) {
            let cut = format!(" {}…", &f[..i]);
            assert!(
                !fit.contains(&cut),
                "{what} at {w}: {f:?} cut to {cut:?}\n{fit}"
            );
        }
    }
}

#[test]
fn compare_history_and_report_fit_columns_and_keep_the_flags_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let edition = edition_copy(tmp.path());
    let commands: [Vec<&str>; 3] = [
        vec!["compare", "results/2021", "results/2026"],
        vec!["history", "results/2020", "results/2021", "results/2026"],
        vec!["report", &edition],
    ];
    for args in &commands {
        let what = args[0];
        let mut wide_args = args.clone();
        wide_args.push("--wide");
        let wide = shown(&wide_args, Some("80"));
        let flags = column(&wide, "Command Flags");
        assert!(flags.len() >= 13, "{what}: {flags:?}\n{wide}");
        // --wide: every column, every value whole, however wide.
        assert!(
            wide.lines().any(|l| l.chars().count() > 150),
            "{what} --wide is the full table\n{wide}"
        );
        for f in &flags {
            assert!(!f.contains('…'), "{what} --wide: {f:?}");
        }
        for w in [80, 100] {
            let fit = shown(args, Some(&w.to_string()));
            fits_and_keeps(&fit, w, &flags, what);
        }
    }
    // The flags that told Nim's variants apart, and the long PHP line.
    let report = shown(&["report", &edition], Some("80"));
    for f in ["nim r -d:release", "nim r -d:release --mm:arc"] {
        assert!(
            report.lines().any(|l| l.contains(&format!("  {f}  "))),
            "{f:?}\n{report}"
        );
    }
    let wide = shown(&["report", &edition, "--wide"], Some("80"));
    assert!(
        wide.contains(
            "php -d opcache.enable_cli=1 -d opcache.jit=tracing -d opcache.jit_buffer_size=64M"
        ),
        "{wide}"
    );
    // The columns left out are named, and where to see them.
    let compare = shown(&["compare", "results/2021", "results/2026"], Some("80"));
    assert!(compare.contains("not shown at 80 columns: "), "{compare}");
    assert!(compare.contains("--wide shows every column"), "{compare}");
}

/// `list`'s table by the same rule: its flags whole at 80 and 100
/// columns, its versions whole with `--wide`.
#[test]
fn list_fits_columns_and_keeps_the_flags_whole() {
    let long_flags = "polyglot --jvm --js --engine.Mode=throughput --experimental-options";
    let version = "GraalVM-CE-25.0.1+8.1-runtime-GraalVM-CE-JIT-build-2026-11-30";
    let entries = [
        Entry::sh("nim-r").flags("nim r -d:release --mm:arc"),
        Entry::sh("nim-release").flags("nim r -d:release"),
        Entry::sh("graal-js-with-a-long-id")
            .flags(long_flags)
            .version(version),
    ];
    let f = Fixture::new(
        &languages_toml(&entries),
        &[
            ("programs/num-comb/nim-r.sh", "echo 0 1 $1\n"),
            ("programs/num-comb/nim-release.sh", "echo 0 1 $1\n"),
            (
                "programs/num-comb/graal-js-with-a-long-id.sh",
                "echo 0 1 $1\n",
            ),
        ],
    );
    let list = |columns: &str, wide: bool| {
        let languages = f.languages();
        let mut args = vec!["list", "--languages", &languages];
        if wide {
            args.push("--wide");
        }
        let o = Command::new(bin())
            .args(&args)
            .env("COLUMNS", columns)
            .env(
                "LANGBENCH_VERSION_CACHE",
                f.path().join("cache/versions.json"),
            )
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        String::from_utf8(o.stdout).unwrap()
    };
    let flags: Vec<String> = ["nim r -d:release --mm:arc", "nim r -d:release", long_flags]
        .map(String::from)
        .to_vec();
    for w in [80, 100] {
        let fit = list(&w.to_string(), false);
        fits_and_keeps(&fit, w, &flags, "list");
        assert!(fit.contains("graal-js-with-a-long-id"), "{fit}");
    }
    let wide = list("80", true);
    assert!(
        wide.contains(long_flags) && wide.lines().any(|l| l.chars().count() > 100),
        "{wide}"
    );
}
