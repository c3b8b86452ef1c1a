//! The repository's own documentation against the real thing: the
//! benchmark specification's reference outputs against what `langbench
//! expected` prints, and no file sending a reader outside the repository.

use std::collections::BTreeSet;
use std::process::Command;

use crate::util::*;

/// One row of `docs/benchmarks.md`'s reference table.
#[derive(Debug)]
struct Row {
    bench: String,
    size: String,
    n: String,
    lines: Vec<String>,
}

fn reference_rows() -> Vec<Row> {
    let doc = std::fs::read_to_string(repo().join("docs/benchmarks.md")).unwrap();
    let section = doc
        .split("\n## Sizes and reference outputs\n")
        .nth(1)
        .expect("docs/benchmarks.md has a section \"Sizes and reference outputs\"");
    let section = section.split("\n## ").next().unwrap();
    let mut rows = Vec::new();
    for line in section.lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        assert_eq!(cells.len(), 4, "a reference row has four cells: {line}");
        if cells[0] == "benchmark" {
            continue;
        }
        let lines: Vec<String> = cells[3]
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 1)
            .map(|(_, s)| s.to_string())
            .collect();
        assert!(!lines.is_empty(), "no expected output in {line}");
        rows.push(Row {
            bench: cells[0].into(),
            size: cells[1].trim_matches('`').into(),
            n: cells[2].replace(',', ""),
            lines,
        });
    }
    rows
}

/// `langbench expected BENCH --size SIZE`, with its cache of expected
/// outputs in `cache` (None: langbench's default cache).
fn expected(bench: &str, size: &str, cache: Option<&std::path::Path>) -> String {
    let mut cmd = Command::new(bin());
    cmd.args(["expected", bench, "--size", size]);
    if let Some(c) = cache {
        cmd.env("LANGBENCH_CACHE", c);
    }
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    String::from_utf8(o.stdout).unwrap()
}

/// Every reference output of the specification is what langbench's
/// reference implementation prints, by size name and by N, and the table
/// covers every CPU benchmark at every named size and at both of `check`'s
/// sizes. Computed afresh (an empty cache), except assoc at N = 12,000,000:
/// that takes 90 s and 2 GB, so it goes through langbench's own cache,
/// where `run` leaves it too (a missing entry is computed, never guessed).
#[test]
fn the_specifications_reference_outputs_are_langbench_expected() {
    let rows = reference_rows();
    let mut seen = BTreeSet::new();
    let fresh = tempfile::tempdir().unwrap();
    for r in &rows {
        let want: String = r.lines.iter().map(|l| format!("{l}\n")).collect();
        let costly = r.bench == "assoc" && r.n.parse::<u64>().unwrap() > 2_000_000;
        let cache = (!costly).then_some(fresh.path());
        assert_eq!(
            expected(&r.bench, &r.size, cache),
            want,
            "docs/benchmarks.md: {} --size {}",
            r.bench,
            r.size
        );
        assert_eq!(
            expected(&r.bench, &r.n, cache),
            want,
            "docs/benchmarks.md: {} at N = {} (the N column)",
            r.bench,
            r.n
        );
        seen.insert((r.bench.clone(), r.size.clone()));
    }
    for bench in ["assoc", "num-comb", "str-comb"] {
        for size in ["tiny", "2020", "2021", "1000", "12345"] {
            let named = seen.contains(&(bench.to_string(), size.to_string()))
                || (size == "1000" && seen.contains(&(bench.to_string(), "tiny".to_string())));
            assert!(
                named,
                "docs/benchmarks.md has no reference output for {bench} at {size}"
            );
        }
    }
}

/// The repository is complete without the directory it was once developed
/// beside (`shared`, a sibling of the checkout): no file points a reader
/// there (the spec is docs/benchmarks.md, the published editions' CSVs are
/// data/published/). Only the results directories may name it: their
/// records keep the command lines as they ran (the imports read the CSVs
/// from there), and every other file there is derived from the records.
#[test]
fn no_file_refers_outside_the_repository() {
    let o = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(repo())
        .output()
        .expect("git runs");
    assert!(o.status.success(), "{}", text(&o));
    let needles = [format!("../{}/", "shared"), format!("{}/spec/", "shared")];
    let mut found = Vec::new();
    for name in String::from_utf8(o.stdout).unwrap().split('\0') {
        let in_results_dir = name
            .strip_prefix("results/")
            .is_some_and(|rest| rest.contains('/'));
        if name.is_empty() || in_results_dir {
            continue;
        }
        let Ok(body) = std::fs::read(repo().join(name)) else {
            continue; // deleted in the work tree, or not a file
        };
        let body = String::from_utf8_lossy(&body);
        for (i, line) in body.lines().enumerate() {
            if needles.iter().any(|n| line.contains(n.as_str())) {
                found.push(format!("{name}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "files pointing outside the repository (the spec is docs/benchmarks.md, the published CSVs data/published/):\n{}",
        found.join("\n")
    );
}
