//! Beyond one machine, and every figure with its spread: `run --shard`,
//! `merge`, spread figures, the noisy flag and `--runs auto`.

use std::collections::BTreeSet;
use std::path::Path;

use crate::util::*;

/// (variant, bench, run, status) of every record of a directory.
fn cells(dir: &Path) -> BTreeSet<(String, String, u64, String)> {
    std::fs::read_to_string(dir.join("runs.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["variant"].as_str().unwrap().to_string(),
                v["bench"].as_str().unwrap().to_string(),
                v["run"].as_u64().unwrap(),
                v["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn tiny_run(out: &Path, extra: &[&str]) -> std::process::Output {
    let languages = repo().join("languages.toml");
    let mut args = vec![
        "run",
        "--languages",
        languages.to_str().unwrap(),
        "--size",
        "tiny",
        "--runs",
        "2",
        "--out",
        out.to_str().unwrap(),
    ];
    for id in ["c-gcc", "c-tcc", "python3", "luajit", "perl"] {
        args.extend(["--lang", id]);
    }
    args.extend_from_slice(extra);
    langbench(&args)
}

#[test]
fn three_shards_merged_hold_exactly_the_unsharded_run() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole");
    assert!(tiny_run(&whole, &[]).status.success());
    let mut shards = Vec::new();
    let mut seen = BTreeSet::new();
    for k in 1..=3 {
        let d = tmp.path().join(format!("shard{k}"));
        let o = tiny_run(&d, &["--shard", &format!("{k}/3")]);
        assert!(o.status.success(), "{}", text(&o));
        let variants: BTreeSet<String> = cells(&d).into_iter().map(|c| c.0).collect();
        assert!(seen.is_disjoint(&variants), "a variant in two shards");
        seen.extend(variants);
        let session = std::fs::read_to_string(d.join("sessions.jsonl")).unwrap();
        assert!(
            session.contains(&format!("\"shard\":\"{k}/3\"")),
            "{session}"
        );
        shards.push(d);
    }
    let merged = tmp.path().join("merged");
    let mut args = vec!["merge", merged.to_str().unwrap()];
    args.extend(shards.iter().map(|d| d.to_str().unwrap()));
    let o = langbench(&args);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(cells(&merged), cells(&whole));
    let md = std::fs::read_to_string(merged.join("summary.md")).unwrap();
    assert!(!md.contains("DIFFERENT HARDWARE"), "{md}");

    // The same cells twice: refused unless told which wins.
    let again = tmp.path().join("again");
    let o = langbench(&[
        "merge",
        again.to_str().unwrap(),
        shards[0].to_str().unwrap(),
        whole.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(text(&o).contains("--prefer"), "{}", text(&o));
    assert!(!again.join("runs.jsonl").exists());
    let o = langbench(&[
        "merge",
        again.to_str().unwrap(),
        shards[0].to_str().unwrap(),
        whole.to_str().unwrap(),
        "--prefer",
        whole.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(cells(&again), cells(&whole));

    // A shard from other hardware: merged, and flagged.
    let sessions = shards[1].join("sessions.jsonl");
    let doctored = std::fs::read_to_string(&sessions)
        .unwrap()
        .replace("\"cpus\":", "\"cpus\":64,\"was\":");
    let doctored = doctored.replace(
        "\"cpu_model\":\"",
        "\"cpu_model\":\"Other CPU from another machine \\u0026 ",
    );
    std::fs::write(&sessions, doctored).unwrap();
    let mixed = tmp.path().join("mixed");
    let mut args = vec!["merge", mixed.to_str().unwrap()];
    args.extend(shards.iter().map(|d| d.to_str().unwrap()));
    let o = langbench(&args);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("2 different machines"), "{}", text(&o));
    let md = std::fs::read_to_string(mixed.join("summary.md")).unwrap();
    assert!(md.contains("DIFFERENT HARDWARE"), "{md}");
    assert!(md.contains("| Machine |"), "{md}");
    assert!(md.contains("| #2 |"), "{md}");
}

fn fakes() -> String {
    languages_toml(&[Entry::sh("quiet"), Entry::sh("noisy")])
}

/// A deliberately noisy program (sleeps 0.05 s or 0.4 s, by turns) runs to
/// the cap and is flagged; a quiet one stops after 3 runs. The quiet one
/// sleeps 0.6 s under a 10% threshold, so that a loaded machine's start-up
/// jitter (tens of ms) cannot make it look noisy.
#[test]
fn runs_auto_stops_on_quiet_cells_and_flags_noisy_ones() {
    let f = Fixture::new(
        &fakes(),
        &[
            ("programs/num-comb/quiet.sh", "sleep 0.6\necho 0 1 $1\n"),
            (
                "programs/num-comb/noisy.sh",
                "c=$(cat \"$0.count\" 2>/dev/null || echo 0); echo $((c+1)) > \"$0.count\"\n\
                 if [ $((c % 2)) = 0 ]; then sleep 0.05; else sleep 0.4; fi\necho 0 1 $1\n",
            ),
        ],
    );
    // --no-sandbox: the noisy program keeps a run counter beside itself,
    // which the sandbox (rightly) makes read-only.
    let o = langbench(&[
        "--no-sandbox",
        "run",
        "--languages",
        &f.languages(),
        "--size",
        "tiny",
        "--runs",
        "auto",
        "--max-runs",
        "5",
        "--noise-threshold",
        "10",
        "--spread",
        "--out",
        &f.out(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let runs = f.runs();
    let count = |v: &str| runs.iter().filter(|r| r["variant"] == v).count();
    assert_eq!(count("quiet"), 3, "{runs:?}");
    assert_eq!(count("noisy"), 5, "{runs:?}");
    let md = std::fs::read_to_string(f.path().join("results/summary.md")).unwrap();
    assert!(
        md.contains("noisy / num-comb: noisy: 5 runs spread"),
        "{md}"
    );
    assert!(
        md.contains("Spread (CV)"),
        "--spread shows the column: {md}"
    );
    let noisy_row = md.lines().find(|l| l.starts_with("| Noisy")).unwrap();
    assert!(noisy_row.contains('±'), "{noisy_row}");
    let csv = std::fs::read_to_string(f.path().join("results/summary.csv")).unwrap();
    for col in [
        "num_comb_mean_s",
        "num_comb_median_s",
        "num_comb_stddev_s",
        "num_comb_cv",
        "num_comb_runs",
    ] {
        assert!(csv.lines().next().unwrap().contains(col), "{col}");
    }
    let session = std::fs::read_to_string(f.path().join("results/sessions.jsonl")).unwrap();
    assert!(session.contains("\"runs_auto_cv\":0.1"), "{session}");
    assert!(session.contains("\"hygiene\":"), "{session}");
    // --resume knows an auto cell that stopped early is complete.
    let o = langbench(&[
        "--no-sandbox",
        "run",
        "--languages",
        &f.languages(),
        "--size",
        "tiny",
        "--runs",
        "auto",
        "--max-runs",
        "5",
        "--noise-threshold",
        "10",
        "--resume",
        "--out",
        &f.out(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(f.runs().len(), runs.len(), "nothing ran again");
}

#[test]
fn cpus_pins_every_measured_process() {
    let f = Fixture::new(
        &fakes().replace("quiet.sh", "pin.sh"),
        &[
            ("programs/num-comb/noisy.sh", ""),
            (
                "programs/num-comb/pin.sh",
                // The right answer only when pinned to CPU 0 alone.
                "if grep -q '^Cpus_allowed_list:[[:space:]]*0$' /proc/self/status; \
             then echo 0 1 $1; else echo not pinned; fi\n",
            ),
        ],
    );
    let o = langbench(&[
        "run",
        "--languages",
        &f.languages(),
        "--lang",
        "quiet",
        "--size",
        "tiny",
        "--runs",
        "1",
        "--cpus",
        "0",
        "--out",
        &f.out(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(f.runs()[0]["status"], "ok", "{:?}", f.runs());
    let session = std::fs::read_to_string(f.path().join("results/sessions.jsonl")).unwrap();
    assert!(session.contains("\"cpus\":[0]"), "{session}");
    let o = langbench(&["run", "--cpus", "999", "--out", &f.out()]);
    assert!(!o.status.success());
    assert!(text(&o).contains("CPU 999"), "{}", text(&o));
}

/// The CI and Kubernetes definitions cannot run here; what they run can:
/// their shard count agrees with itself, every shard 1..N is run, and the
/// commands and flags they use exist.
#[test]
fn the_shipped_definitions_shard_and_merge_consistently() {
    let gha = std::fs::read_to_string(repo().join(".github/workflows/edition.yml")).unwrap();
    let n: usize = gha
        .lines()
        .find_map(|l| l.trim().strip_prefix("SHARDS: "))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("SHARDS in edition.yml");
    let matrix = gha
        .lines()
        .find_map(|l| l.trim().strip_prefix("shard: ["))
        .expect("matrix.shard");
    let shards: Vec<usize> = matrix
        .trim_end_matches(']')
        .split(',')
        .map(|s| s.trim().parse().unwrap())
        .collect();
    assert_eq!(shards, (1..=n).collect::<Vec<_>>());
    assert!(gha.contains("--shard \"${{ matrix.shard }}/$SHARDS\""));
    assert!(gha.contains("langbench merge edition shard-*"));

    let k8s = std::fs::read_to_string(repo().join("deploy/kubernetes/edition.yaml")).unwrap();
    let field = |name: &str| -> usize {
        k8s.lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .and_then(|v| {
                v.trim()
                    .trim_matches('"')
                    .split_whitespace()
                    .next()?
                    .trim_matches('"')
                    .parse()
                    .ok()
            })
            .unwrap_or_else(|| panic!("{name} in edition.yaml"))
    };
    assert!(k8s.contains("completionMode: Indexed"));
    assert_eq!(field("completions:"), field("parallelism:"));
    let shards_env = k8s
        .lines()
        .skip_while(|l| !l.contains("name: SHARDS"))
        .nth(1)
        .and_then(|l| l.trim().strip_prefix("value: "))
        .map(|v| v.trim_matches('"').parse::<usize>().unwrap())
        .expect("SHARDS env");
    assert_eq!(field("completions:"), shards_env);
    assert!(k8s.contains("K=$((JOB_COMPLETION_INDEX + 1))"));
    assert!(k8s.contains("langbench run --shard \"$K/$SHARDS\""));

    // Index 0..N-1 → shards 1..N, each valid for langbench.
    for index in 0..shards_env {
        let o = langbench(&[
            "run",
            "--shard",
            &format!("{}/{shards_env}", index + 1),
            "--help",
        ]);
        assert!(o.status.success());
    }
    let help = String::from_utf8(langbench(&["run", "--help"]).stdout).unwrap();
    for flag in ["--shard", "--resume", "--out", "--size"] {
        assert!(help.contains(flag), "{flag}");
    }
    assert!(langbench(&["merge", "--help"]).status.success());
}
