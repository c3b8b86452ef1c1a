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
    // The other machine's rows say which one (its number and what differs).
    assert!(md.contains("| #2 Other from another machine"), "{md}");

    // Shards started in one second as pid 1 (containers) had one session
    // id before ids got a random tag (issue #42): each shard's id is its
    // own now, and an old pair of twins merged stays two sessions.
    let ids: Vec<String> = shards.iter().map(|d| session_id(d)).collect();
    assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), 3, "{ids:?}");
    for id in &ids {
        let tag = id.rsplit('-').next().unwrap();
        assert!(
            tag.len() == 6 && tag.chars().all(|c| c.is_ascii_hexdigit()),
            "{id}: no random tag"
        );
    }
    for f in ["sessions.jsonl", "runs.jsonl", "references.jsonl"] {
        let p = shards[2].join(f);
        if let Ok(t) = std::fs::read_to_string(&p) {
            std::fs::write(&p, t.replace(&ids[2], &ids[0])).unwrap();
        }
    }
    let twins = tmp.path().join("twins");
    let o = langbench(&[
        "merge",
        twins.to_str().unwrap(),
        shards[0].to_str().unwrap(),
        shards[2].to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let renamed = format!("{}~2", ids[0]);
    assert!(
        text(&o).contains(&format!("merged as {renamed}")),
        "{}",
        text(&o)
    );
    assert!(text(&o).contains("Merged 2 sessions"), "{}", text(&o));
    let md = std::fs::read_to_string(twins.join("summary.md")).unwrap();
    assert!(md.contains("in 2 sessions"), "{md}");
    // The second shard's runs are its own session's.
    let shard3: BTreeSet<String> = cells(&shards[2]).into_iter().map(|c| c.0).collect();
    for l in std::fs::read_to_string(twins.join("runs.jsonl"))
        .unwrap()
        .lines()
    {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let mine = shard3.contains(v["variant"].as_str().unwrap());
        let want = if mine { &renamed } else { &ids[0] };
        assert_eq!(v["session"].as_str().unwrap(), want, "{l}");
    }
}

/// The id of a directory's one session.
fn session_id(dir: &Path) -> String {
    let t = std::fs::read_to_string(dir.join("sessions.jsonl")).unwrap();
    let v: serde_json::Value = serde_json::from_str(t.lines().next().unwrap()).unwrap();
    v["session"].as_str().unwrap().to_string()
}

/// `run --plan --json --shard K/N --balance-from FROM` on the repository's
/// languages file (into a directory that does not exist: nothing is made).
fn plan(shard: &str, from: &Path) -> serde_json::Value {
    let nowhere = tempfile::tempdir().unwrap();
    let out = nowhere.path().join("not-made");
    let o = langbench(&[
        "run",
        "--languages",
        repo().join("languages.toml").to_str().unwrap(),
        "--plan",
        "--json",
        "--shard",
        shard,
        "--balance-from",
        from.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(!out.exists(), "--plan makes nothing");
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)))
}

fn ids(variants: &serde_json::Value) -> Vec<String> {
    variants
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect()
}

/// The 2026 edition over 8 machines, balanced by its own records: the
/// longest shard is within 10% of the best any partition by variant can do
/// (the larger of the fair share and the costliest variant). The costs are
/// this test's own, from results/2026's records: per cell the mean wall of
/// its newest session's runs (capped at the 1000 s timeout) times 3 runs,
/// or one run where a run settled the cell (the rest are skipped); a
/// variant without records costs what the plan says, which must be the
/// median.
#[test]
fn shards_balanced_by_the_previous_edition_are_within_ten_percent_of_the_best() {
    let from = repo().join("results/2026");
    let stored = langbench::store::Store::open(&from)
        .unwrap()
        .load()
        .unwrap();
    let mut cells: std::collections::BTreeMap<(String, String), Vec<(f64, bool)>> =
        Default::default();
    for r in stored.newest_runs() {
        if r.wall_s > 0.0 && (r.status.has_figures() || r.status.settles_cell()) {
            cells
                .entry((r.variant.clone(), r.bench.name().to_string()))
                .or_default()
                .push((r.wall_s, r.status.settles_cell()));
        }
    }
    let cost_of = |variant: &str, bench: &str| -> Option<f64> {
        let runs = cells.get(&(variant.to_string(), bench.to_string()))?;
        let mean = runs.iter().map(|r| r.0).sum::<f64>() / runs.len() as f64;
        let settled = runs.iter().any(|r| r.1);
        Some(mean.min(1000.0) * if settled { 1.0 } else { 3.0 })
    };
    for k in 1..=8 {
        let p = plan(&format!("{k}/8"), &from);
        let mut loads = Vec::new();
        let mut costs = Vec::new();
        let mut measured = 0;
        for shard in p["shards"].as_array().unwrap() {
            let mut load = 0.0;
            for v in shard["variants"].as_array().unwrap() {
                let id = v["id"].as_str().unwrap();
                let mut cost = 0.0;
                for c in v["cells"].as_array().unwrap() {
                    let bench = c["bench"].as_str().unwrap();
                    let planned = c["per_run_s"].as_f64().unwrap() * c["runs"].as_f64().unwrap();
                    match cost_of(id, bench) {
                        Some(mine) => {
                            assert!(
                                (mine - planned).abs() < 1e-6 * mine.max(1.0),
                                "{id} / {bench}: the plan says {planned} s, the records {mine} s"
                            );
                            measured += 1;
                            cost += mine;
                        }
                        None => {
                            assert_eq!(c["basis"], "median", "{id} / {bench}: {c}");
                            cost += planned;
                        }
                    }
                }
                load += cost;
                costs.push(cost);
            }
            loads.push(load);
        }
        assert!(measured >= 150, "only {measured} cells have figures");
        let total: f64 = costs.iter().sum();
        let ideal = total / 8.0;
        let largest = costs.iter().copied().fold(0.0, f64::max);
        let longest = loads.iter().copied().fold(0.0, f64::max);
        let best = ideal.max(largest);
        assert!(
            longest <= 1.1 * best,
            "shard {k}/8: the longest shard {longest:.0} s, the best possible {best:.0} s \
             (fair share {ideal:.0} s, costliest variant {largest:.0} s): {loads:?}"
        );
        assert!((p["longest_s"].as_f64().unwrap() - longest).abs() < 1e-3 * longest);
    }
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
    let auto = ["--no-sandbox", "--max-runs", "5", "--noise-threshold", "10"];
    let o = f.run_with_runs("auto", &[&auto[..], &["--spread"]].concat());
    assert!(o.status.success(), "{}", text(&o));
    let runs = f.runs();
    let count = |v: &str| runs.iter().filter(|r| r["variant"] == v).count();
    assert_eq!(count("quiet"), 3, "{runs:?}");
    assert_eq!(count("noisy"), 5, "{runs:?}");
    let md = std::fs::read_to_string(f.path().join("results/summary.md")).unwrap();
    assert!(
        md.contains("Noisy (1 of 2 cells)") && md.contains("spread more than 10.0%"),
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
    let o = f.run_with_runs("auto", &[&auto[..], &["--resume"]].concat());
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(f.runs().len(), runs.len(), "nothing ran again");
}

#[test]
fn cpus_pins_every_measured_process() {
    let f = Fixture::new(
        &languages_toml(&[
            Entry::sh("quiet").program("programs/num-comb/pin.sh"),
            Entry::sh("noisy"),
        ]),
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
    let o = f.run(&["--lang", "quiet", "--cpus", "0"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(f.runs()[0]["status"], "ok", "{:?}", f.runs());
    let session = std::fs::read_to_string(f.path().join("results/sessions.jsonl")).unwrap();
    assert!(session.contains("\"cpus\":[0]"), "{session}");
    let o = f.run(&["--cpus", "999"]);
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
    assert!(gha.contains("SHARD: ${{ matrix.shard }}"));
    assert!(gha.contains("--shard \"$SHARD/$SHARDS\""));
    assert!(gha.contains("langbench merge edition shard-*"));
    // Balanced by the previous edition, which is in the repository.
    let gha_from = gha
        .lines()
        .find_map(|l| l.trim().strip_prefix("BALANCE_FROM: "))
        .map(|v| v.split_whitespace().next().unwrap().to_string())
        .expect("BALANCE_FROM in edition.yml");
    assert!(gha.contains("--balance-from \"$BALANCE_FROM\""), "{gha}");

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
    assert!(k8s.contains("langbench run --size \"$SIZE\" --shard \"$K/$SHARDS\""));
    // In the pod's command (not the comments).
    let k8s_from = k8s
        .lines()
        .find(|l| l.contains("langbench run --size"))
        .and_then(|l| l.split("--balance-from ").nth(1))
        .and_then(|r| r.split_whitespace().next())
        .expect("--balance-from in edition.yaml")
        .to_string();
    // The pods run in the image's /langbench, where deploy/build-image.sh
    // stages the previous edition's records for the Dockerfile to copy.
    let docker = std::fs::read_to_string(repo().join("deploy/Dockerfile")).unwrap();
    let build = std::fs::read_to_string(repo().join("deploy/build-image.sh")).unwrap();
    let copied = build
        .lines()
        .find(|l| l.starts_with("cp ") && l.contains("runs.jsonl"))
        .expect("deploy/build-image.sh copies a results directory's records");
    assert!(
        copied.contains(&format!(" {k8s_from}/runs.jsonl"))
            && copied.contains(&format!(" {k8s_from}/sessions.jsonl"))
            && copied
                .trim_end()
                .ends_with(&format!("\"$ctx/langbench/{k8s_from}/\"")),
        "{copied}"
    );
    assert!(docker.contains("COPY langbench/ /langbench/"));
    assert!(docker.contains("WORKDIR /langbench"));

    // Index 0..N-1 → shards 1..N: every selected variant with something to
    // run in exactly one of them, each machine computing the same shards
    // from the same records.
    for (n, from) in [(n, &gha_from), (shards_env, &k8s_from)] {
        let plans: Vec<serde_json::Value> = (1..=n)
            .map(|k| plan(&format!("{k}/{n}"), &repo().join(from)))
            .collect();
        let shards_of = |p: &serde_json::Value| -> Vec<Vec<String>> {
            p["shards"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| ids(&s["variants"]))
                .collect()
        };
        let first = shards_of(&plans[0]);
        assert_eq!(first.len(), n);
        for (k, p) in plans.iter().enumerate() {
            assert_eq!(shards_of(p), first, "shard {}/{n} sees other shards", k + 1);
            let this: Vec<usize> = p["shards"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|s| s["this"] == true)
                .map(|s| s["shard"].as_u64().unwrap() as usize)
                .collect();
            assert_eq!(this, [k + 1]);
        }
        let mut all: Vec<String> = first.concat();
        let count = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), count, "a variant in two shards");
        let langs = langbench::config::Languages::load(&repo().join("languages.toml")).unwrap();
        let mut cpu: Vec<String> = langs
            .variants
            .iter()
            .filter(|v| v.programs.keys().any(|b| b.is_cpu()))
            .map(|v| v.id.clone())
            .collect();
        cpu.sort();
        assert_eq!(all, cpu, "every variant with a CPU program in some shard");
    }
    let help = String::from_utf8(langbench(&["run", "--help"]).stdout).unwrap();
    for flag in [
        "--shard",
        "--balance-from",
        "--plan",
        "--resume",
        "--out",
        "--size",
    ] {
        assert!(help.contains(flag), "{flag}");
    }
    assert!(langbench(&["merge", "--help"]).status.success());
}

/// (session, variant, bench, block) of every reference run of a directory.
fn reference_passes(dir: &Path) -> BTreeSet<(String, String, String, u64)> {
    std::fs::read_to_string(dir.join("references.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["session"].as_str().unwrap().to_string(),
                v["variant"].as_str().unwrap().to_string(),
                v["bench"].as_str().unwrap().to_string(),
                v["block"].as_u64().expect("a reference run has its block"),
            )
        })
        .collect()
}

#[test]
fn merged_shards_keep_every_shards_reference_passes() {
    let tmp = tempfile::tempdir().unwrap();
    let mut shards = Vec::new();
    let mut every = BTreeSet::new();
    for k in 1..=2 {
        let d = tmp.path().join(format!("shard{k}"));
        std::fs::create_dir(&d).unwrap();
        let o = tiny_run(
            &d,
            &["--shard", &format!("{k}/2"), "--block-minutes", "0.05"],
        );
        assert!(o.status.success(), "{}", text(&o));
        let passes = reference_passes(&d);
        // A pass before the first block and at least one after.
        let blocks: BTreeSet<u64> = passes.iter().map(|p| p.3).collect();
        assert!(blocks.contains(&0) && blocks.len() >= 2, "{passes:?}");
        assert!(passes.iter().any(|p| p.1 == "c-gcc"), "{passes:?}");
        assert!(passes.iter().any(|p| p.1 == "c-tcc"), "{passes:?}");
        assert!(every.is_disjoint(&passes), "two shards share a session");
        every.extend(passes);
        shards.push(d);
    }
    let merged = tmp.path().join("merged");
    let mut args = vec!["merge", merged.to_str().unwrap()];
    args.extend(shards.iter().map(|d| d.to_str().unwrap()));
    let o = langbench(&args);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("reference runs"), "{}", text(&o));
    // Both shards' passes, each under its own session, none lost, none twice.
    let lines = std::fs::read_to_string(merged.join("references.jsonl"))
        .unwrap()
        .lines()
        .count();
    let shard_lines: usize = shards
        .iter()
        .map(|d| {
            std::fs::read_to_string(d.join("references.jsonl"))
                .unwrap()
                .lines()
                .count()
        })
        .sum();
    assert_eq!(lines, shard_lines);
    assert_eq!(reference_passes(&merged), every);
    let sessions: BTreeSet<String> = every.iter().map(|p| p.0.clone()).collect();
    assert_eq!(sessions.len(), 2);

    // A directory holding only references is not a new directory.
    let o = langbench(&[
        "merge",
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
    ]);
    assert!(!o.status.success());

    // --resume keeps the passes it finds and adds its own session's.
    let before = reference_passes(&shards[0]);
    let o = tiny_run(
        &shards[0],
        &["--shard", "1/2", "--block-minutes", "0.05", "--resume"],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(reference_passes(&shards[0]).is_superset(&before));
}

/// `run --plan` in rounds counts the reference passes: from a directory
/// that ran with references, a pass's cost is known, the passes follow the
/// block length, their share of the time is said, and a second run makes
/// about as many passes as planned.
#[test]
fn the_plan_counts_the_reference_passes_and_their_share() {
    let tmp = tempfile::tempdir().unwrap();
    let first = tmp.path().join("first");
    std::fs::create_dir(&first).unwrap();
    let o = tiny_run(&first, &["--block-minutes", "0.05"]);
    assert!(o.status.success(), "{}", text(&o));
    let second = tmp.path().join("second");
    let planned = |json: bool| {
        let mut args = vec![
            "--plan",
            "--balance-from",
            first.to_str().unwrap(),
            "--block-minutes",
            "0.05",
        ];
        if json {
            args.push("--json");
        }
        tiny_run(&second, &args)
    };
    let o = planned(true);
    assert!(o.status.success(), "{}", text(&o));
    let plan: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let refs = &plan["references"];
    assert_eq!(refs["ids"], serde_json::json!(["c-gcc", "c-tcc"]), "{plan}");
    assert_eq!(refs["block_s"].as_f64().unwrap(), 3.0);
    // Every reference cell costed from the first directory's passes.
    assert_eq!(refs["guessed"], serde_json::json!([]), "{refs}");
    let per_pass = refs["per_pass_s"].as_f64().unwrap();
    assert!(per_pass > 0.0, "{refs}");
    let shard = &refs["shards"][0];
    let measure = shard["measure_s"].as_f64().unwrap();
    let passes = shard["passes"].as_u64().unwrap();
    assert!(measure > 0.0, "{refs}");
    // The first pass, one after each whole block, the closing one.
    assert_eq!(passes, (measure / 3.0).floor() as u64 + 2, "{refs}");
    let refs_s = shard["references_s"].as_f64().unwrap();
    assert!((refs_s - passes as f64 * per_pass).abs() < 1e-9, "{refs}");
    let share = shard["share"].as_f64().unwrap();
    assert!((share - refs_s / (refs_s + measure)).abs() < 1e-9, "{refs}");
    let o = planned(false);
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("References: c-gcc, c-tcc"), "{t}");
    assert!(t.contains(&format!("All: {passes} passes")), "{t}");
    assert!(t.contains("% of the time"), "{t}");
    // Nothing was made by the plan; a run like it makes about as many
    // passes as it said (blocks end after the run that passes 3 s).
    assert!(!second.exists());
    std::fs::create_dir(&second).unwrap();
    let o = tiny_run(&second, &["--block-minutes", "0.05"]);
    assert!(o.status.success(), "{}", text(&o));
    let made: BTreeSet<u64> = reference_passes(&second).iter().map(|p| p.3).collect();
    let made = made.len() as u64;
    assert!(
        made.abs_diff(passes) <= 2,
        "planned {passes}, made {made}: {refs}"
    );

    // Without references, no reference line.
    let o = tiny_run(&second, &["--plan", "--no-references"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(!text(&o).contains("References:"), "{}", text(&o));
}

/// `run --plan` into a new directory with nothing to estimate from says
/// so, and never "~0s" (issue #40): each cell is `?`, the total says it
/// says nothing, and `--balance-from` is named.
#[test]
fn a_plan_with_nothing_to_go_by_says_so_not_zero_seconds() {
    let tmp = tempfile::tempdir().unwrap();
    let o = tiny_run(&tmp.path().join("new"), &["--plan"]);
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    assert!(!t.contains("~0s"), "{t}");
    assert!(
        t.contains("python3") && t.contains("assoc ? (unknown)"),
        "{t}"
    );
    assert!(
        t.contains("no cell has an estimate, so this total says nothing")
            && t.contains("`--balance-from DIR`"),
        "{t}"
    );
    assert!(t.contains("~? a pass"), "{t}");
}
