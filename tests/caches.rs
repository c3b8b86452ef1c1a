//! Issue #22: a variant's toolchain caches behave as a person's do and stay
//! contained. Each test starts from an empty state directory
//! (`LANGBENCH_STATE`): a fresh machine.

use std::path::Path;
use std::process::{Command, Output};

use crate::util::*;

fn run_in(state: &Path, home: Option<&Path>, args: &[String]) -> Output {
    let mut c = Command::new(bin());
    c.args(args).env("LANGBENCH_STATE", state);
    if let Some(h) = home {
        c.env("HOME", h);
    }
    c.output().expect("langbench runs")
}

fn runs_of(out: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(out.join("runs.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// On empty caches, the first contained run of a compile-and-run cell is
/// cold and the next ones are warm, at least 3× faster, as by hand
/// (`go run`, `crystal run --release`, `nim r -d:release`); the records
/// say so.
#[test]
fn the_second_run_of_a_compile_and_run_cell_is_warm() {
    let state = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let wanted = ["go", "crystal-release", "nim-release"];
    let list = langbench(&["list", "--json"]);
    let listed: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    let installed: Vec<&str> = wanted
        .iter()
        .copied()
        .filter(|id| {
            listed
                .as_array()
                .unwrap()
                .iter()
                .any(|v| v["id"] == *id && v["installed"] == true)
        })
        .collect();
    assert!(
        !installed.is_empty(),
        "none of {wanted:?} installed: `langbench toolchains install`"
    );
    let mut args: Vec<String> = [
        "run", "--bench", "num-comb", "--size", "tiny", "--runs", "3",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for id in &installed {
        args.extend(["--lang".to_string(), id.to_string()]);
    }
    args.extend(["--out".to_string(), out.path().display().to_string()]);
    let o = run_in(state.path(), None, &args);
    assert!(o.status.success(), "{}", text(&o));
    let runs = runs_of(out.path());
    for id in &installed {
        let mine: Vec<&serde_json::Value> = runs.iter().filter(|r| r["variant"] == *id).collect();
        assert_eq!(mine.len(), 3, "{id}: {mine:?}");
        for r in &mine {
            assert_eq!(r["status"], "ok", "{id}: {r}");
        }
        let wall = |i: usize| mine[i]["wall_s"].as_f64().unwrap();
        assert_eq!(mine[0]["cache"], "cold", "{id}: {}", mine[0]);
        assert_eq!(mine[1]["cache"], "warm", "{id}: {}", mine[1]);
        assert_eq!(mine[2]["cache"], "warm", "{id}: {}", mine[2]);
        let warm = wall(1).min(wall(2));
        assert!(
            warm * 3.0 <= wall(0),
            "{id}: warm {warm:.2} s is not 3x faster than cold {:.2} s",
            wall(0)
        );
        // The identity of what ran is in every record.
        let digest = mine[0]["identity"]["digest"].as_str().unwrap();
        assert_eq!(digest.len(), 16);
        assert!(mine.iter().all(|r| r["identity"]["digest"] == digest));
    }
}

/// Cold and warm are per program: go's first run of str-comb compiles it
/// although num-comb's runs filled the caches, so it is cold, as a
/// person's first `go run` of a new file is; its second is warm. A run
/// that leaves its variant's empty caches empty used none: neither cold
/// nor warm (bun running a script never writes its install cache), so its
/// cell is not left without a warm run, every run counted as warm-up.
/// Needs bun and go (`langbench toolchains install`).
#[test]
fn cold_is_per_program_and_a_run_that_used_no_cache_is_neither() {
    let state = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let args: Vec<String> = [
        "run", "--lang", "bun", "--lang", "go", "--bench", "num-comb", "--bench", "str-comb",
        "--size", "tiny", "--runs", "2", "--out",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([out.path().display().to_string()])
    .collect();
    let o = run_in(state.path(), None, &args);
    assert!(o.status.success(), "{}", text(&o));
    let runs = runs_of(out.path());
    let of = |id: &str| -> Vec<&serde_json::Value> {
        runs.iter().filter(|r| r["variant"] == id).collect()
    };
    let (bun, go) = (of("bun"), of("go"));
    assert_eq!((bun.len(), go.len()), (4, 4), "{runs:?}");
    for r in bun.iter().chain(&go) {
        assert_eq!(r["status"], "ok", "{r}");
    }
    assert!(bun.iter().all(|r| r.get("cache").is_none()), "{bun:?}");
    for bench in ["num-comb", "str-comb"] {
        let starts: Vec<&str> = go
            .iter()
            .filter(|r| r["bench"] == bench)
            .map(|r| r["cache"].as_str().unwrap_or("none"))
            .collect();
        assert_eq!(starts, ["cold", "warm"], "go {bench}: {go:?}");
    }
    let md = std::fs::read_to_string(out.path().join("summary.md")).unwrap();
    let bun_notes: Vec<&str> = md
        .lines()
        .filter(|l| l.contains("Bun") || l.contains("bun"))
        .filter(|l| l.contains("cold"))
        .collect();
    assert!(bun_notes.is_empty(), "{bun_notes:?}");
}

/// A variant writes only its own caches: another variant sees neither its
/// cache nor langbench's state directory, cannot write them, and nothing
/// lands in the real HOME; `--cold-caches` starts every run empty, and
/// `toolchains clear-caches` empties one variant's.
#[test]
fn caches_are_the_variants_own_and_nothing_reaches_the_real_home() {
    let (_, m) = marker("caches");
    let state = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let writer = format!(
        "import os\np = os.path.expanduser('~/.cache/x')\n\
         os.makedirs(p, exist_ok=True)\nopen(os.path.join(p, 'from-a'), 'w').write('x')\n{RIGHT}\n"
    );
    // b looks for a's file everywhere it could be, and tries to write the
    // state directory and the real home.
    let reader = format!(
        r#"import os
won = []
mine = os.path.expanduser('~/.cache/x')
if os.path.isdir(mine) and os.listdir(mine):
    won.append('its cache holds ' + ' '.join(os.listdir(mine)))
for d, _, files in os.walk({state:?}):
    if 'from-a' in files:
        won.append('saw ' + d)
for target in ({state:?} + '/forged', {home:?} + '/forged'):
    try:
        open(target, 'w').write('x')
        won.append('wrote ' + target)
    except OSError:
        pass
print('; '.join(won) if won else '0 1 1000')
"#,
        state = state.path().display().to_string(),
        home = home.path().display().to_string(),
    );
    let f = python_fixture(&m, &[("a", writer), ("b", reader)]);
    let toml = std::fs::read_to_string(f.path().join("languages.toml")).unwrap();
    let toml = toml.replace("run = ", "caches = [\"~/.cache/x\"]\nrun = ");
    std::fs::write(f.path().join("languages.toml"), toml).unwrap();
    let run = |extra: &[&str]| {
        let mut args: Vec<String> = [
            "run",
            "--languages",
            &f.languages(),
            "--size",
            "tiny",
            "--runs",
            "2",
            "--out",
            &f.out(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        run_in(state.path(), Some(home.path()), &args)
    };
    let o = run(&[]);
    assert!(o.status.success(), "{}", text(&o));
    let runs = runs_of(&f.path().join("results"));
    for r in &runs {
        assert_eq!(r["status"], "ok", "{r}");
    }
    let cache_of = |id: &str, attempt: u64| {
        runs.iter()
            .find(|r| r["variant"] == id && r["run"] == attempt)
            .map(|r| r["cache"].clone())
            .unwrap()
    };
    assert_eq!(cache_of("a", 1), "cold");
    assert_eq!(cache_of("a", 2), "warm");
    // b wrote nothing into its cache: it used none, neither cold nor warm.
    assert_eq!(cache_of("b", 1), serde_json::Value::Null);
    assert_eq!(cache_of("b", 2), serde_json::Value::Null);
    let a_cache = state.path().join("caches/a");
    let found: Vec<_> = walk(&a_cache)
        .into_iter()
        .filter(|p| p.ends_with("from-a"))
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(!state.path().join("forged").exists());
    // Only langbench's own files (its expected outputs) are in the HOME
    // it ran with, nothing of a command's.
    let left: Vec<_> = walk(home.path())
        .into_iter()
        .filter(|p| !p.starts_with(home.path().join(".cache/langbench/expected")))
        .collect();
    assert!(left.is_empty(), "the real HOME got {left:?}");

    // --cold-caches: a fresh HOME every run, and the cache left as it was.
    std::fs::remove_dir_all(f.path().join("results")).unwrap();
    let o = run(&["--cold-caches", "--lang", "a"]);
    assert!(o.status.success(), "{}", text(&o));
    for r in runs_of(&f.path().join("results")) {
        assert_eq!(r["cache"], "cold", "{r}");
    }

    // clear-caches empties a's, leaves b's.
    let o = run_in(
        state.path(),
        Some(home.path()),
        &[
            "toolchains".into(),
            "clear-caches".into(),
            "--lang".into(),
            "a".into(),
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("cleared"), "{}", text(&o));
    assert!(!a_cache.exists());
    assert!(state.path().join("caches/b").exists());
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                todo.push(e.path());
            } else {
                out.push(e.path());
            }
        }
    }
    out
}

/// A cold first run is the caches' warm-up, not noise (real processes):
/// two variants whose first run fills their cache slowly, then run fast,
/// one 5× faster than the other when warm. Best of 3: the figures are
/// the warm runs, not flagged noisy, ranked 1 and 2 (with the cold runs
/// in their ranges they would share =1), and the notes say run 1 was cold
/// and not counted; every run is in runs.csv, the cold one out of the
/// spread. `--runs auto` counts three warm runs, not the cold one.
#[test]
fn a_cold_first_run_is_not_noise_nor_a_shared_rank() {
    let state = tempfile::tempdir().unwrap();
    let program = |warm: &str| {
        format!(
            "c=\"$HOME/.cache/x\"\n\
             if [ -e \"$c/built\" ]; then sleep {warm}; else sleep 3; mkdir -p \"$c\"; touch \"$c/built\"; fi\n\
             echo 0 1 $1\n"
        )
    };
    let toml = languages_toml(&[Entry::sh("fast"), Entry::sh("slow")])
        .replace("run = ", "caches = [\"~/.cache/x\"]\nrun = ");
    let (fast, slow) = (program("0.3"), program("1.5"));
    let f = Fixture::new(
        &toml,
        &[
            ("programs/num-comb/fast.sh", &fast),
            ("programs/num-comb/slow.sh", &slow),
        ],
    );
    let run = |extra: &[&str], out: &str| {
        let out = f.path().join(out);
        let mut args: Vec<String> = [
            "run",
            "--languages",
            &f.languages(),
            "--size",
            "tiny",
            "--noise-threshold",
            "30",
            "--out",
            &out.display().to_string(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        let o = run_in(state.path(), None, &args);
        assert!(o.status.success(), "{}", text(&o));
        out
    };
    let out = run(&["--runs", "3"], "best-of-3");
    let csv = read_csv(&out.join("summary.csv"));
    let row = |v: &str| csv.iter().find(|r| r["variant"] == v).unwrap();
    assert_eq!(row("fast")["rank"], "1", "{csv:?}");
    assert_eq!(row("slow")["rank"], "2", "{csv:?}");
    for v in ["fast", "slow"] {
        let r = row(v);
        assert_eq!(r["num_comb_runs"], "2", "{v}: {r:?}");
        assert_eq!(r["num_comb_cold_excluded"], "1", "{v}: {r:?}");
        let cv: f64 = r["num_comb_cv"].parse().unwrap();
        assert!(cv < 0.3, "{v}: warm runs spread {cv}");
    }
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(!md.contains('±') && !md.contains("noisy:"), "{md}");
    assert!(
        md.contains(
            "Fast · sh fast / num-comb: run 1 started cold (nothing of this program in its \
             toolchain caches yet: empty caches, or its first run with them; 3."
        ),
        "{md}"
    );
    assert!(md.contains("not counted in the spread"), "{md}");
    let runs = read_csv(&out.join("runs.csv"));
    let fast_runs: Vec<(&str, &str)> = runs
        .iter()
        .filter(|r| r["variant"] == "fast")
        .map(|r| (r["cache"].as_str(), r["in_spread"].as_str()))
        .collect();
    assert_eq!(
        fast_runs,
        [("cold", "false"), ("warm", "true"), ("warm", "true")]
    );

    // --runs auto: the caches are warm now; cleared, the first run is
    // cold again and the cell makes 3 warm runs after it.
    let o = run_in(
        state.path(),
        None,
        &["toolchains", "clear-caches"].map(String::from),
    );
    assert!(o.status.success(), "{}", text(&o));
    let out = run(
        &["--runs", "auto", "--max-runs", "6", "--lang", "fast"],
        "auto",
    );
    let caches: Vec<String> = runs_of(&out)
        .iter()
        .map(|r| r["cache"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(caches, ["cold", "warm", "warm", "warm"]);
}
