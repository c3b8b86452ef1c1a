//! Figures judged against the reference passes of their own sitting
//! (issues #39, #42 and #60): `compare` and `history` divide each cell by
//! the median of the reference passes of its runs' sessions, or by the
//! reference variant of its own session; `merge`d shards from several machines say
//! which machine and blocks measured each row, and flag a machine whose
//! references disagree. Every results directory here is synthetic records
//! written to a temporary directory, read by the real binary.

use std::path::Path;

use serde_json::{Value, json};

use crate::util::{langbench, read_csv, text};

/// `at` seconds past 2026-01-01T00:00:00Z, RFC 3339.
fn at(seconds: i64) -> String {
    let t = 1_767_225_600 + seconds;
    chrono::DateTime::from_timestamp(t, 0)
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// A run record of `variant` on num-comb (N 1000).
fn run(session: &str, variant: &str, nth: u32, end: i64, wall: f64, block: Option<u32>) -> Value {
    let mut r = json!({
        "schema": 2, "session": session, "finished_at": at(end),
        "variant": variant, "language": variant, "flags": variant, "version": "1.0",
        "bench": "num-comb", "size": "tiny", "n": 1000, "run": nth,
        "wall_s": wall, "user_s": wall, "sys_s": 0.0, "max_rss_kb": 1000,
        "build_wall_s": null, "exit": {"kind": "exited", "code": 0}, "status": "ok",
        "detail": null,
    });
    if let Some(b) = block {
        r["block"] = json!(b);
    }
    r
}

/// A session record on machine `host`.
fn session(id: &str, host: &str, variants: &[&str]) -> Value {
    json!({
        "schema": 2, "session": id, "started_at": at(0), "langbench_version": "0.1.0",
        "command_line": ["langbench", "run"], "size": "tiny", "runs": 3, "timeout_s": 100.0,
        "machine": {"cpu_model": format!("{host} CPU"), "cpus": 2, "usable_cpus": 2,
            "memory_kb": 1000000, "os": "Debian", "kernel": "6.1", "arch": "x86_64",
            "hostname": host},
        "variants": variants.iter().map(|v| json!({"id": v, "language": v, "flags": v,
            "version": "1.0", "installed": true, "missing": [], "install_hint": "",
            "programs": ["num-comb"]})).collect::<Vec<_>>(),
    })
}

fn write(dir: &Path, name: &str, records: &[Value]) {
    std::fs::create_dir_all(dir).unwrap();
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(dir.join(name), text).unwrap();
}

/// A reference pass of c-gcc and c-tcc at `end` s, the host `slow` times
/// slower than its usual (c-gcc 1 s, c-tcc 2 s).
fn pass(session: &str, block: u32, end: i64, slow: f64) -> [Value; 2] {
    [
        run(session, "c-gcc", 1, end - 3, 1.0 * slow, Some(block)),
        run(session, "c-tcc", 1, end, 2.0 * slow, Some(block)),
    ]
}

/// Three runs of `variant`, `wall` s each, ending at `from`, +100, +200 s.
fn runs(session: &str, variant: &str, from: i64, wall: f64, block: u32) -> Vec<Value> {
    (0..3)
        .map(|i| {
            run(
                session,
                variant,
                i + 1,
                from + 100 * i as i64,
                wall,
                Some(block),
            )
        })
        .collect()
}

/// The old edition: the host at its usual speed throughout; go 2 s, py 10 s.
fn steady(dir: &Path) {
    write(dir, "sessions.jsonl", &[session("a", "vm", &["go", "py"])]);
    let mut r = runs("a", "go", 1100, 2.0, 1);
    r.extend(runs("a", "py", 2100, 10.0, 2));
    write(dir, "runs.jsonl", &r);
    let refs: Vec<Value> = (0..3)
        .flat_map(|b| pass("a", b, 1000 * b as i64 + 10, 1.0))
        .collect();
    write(dir, "references.jsonl", &refs);
}

/// The new edition: the same programs in two sittings, the host 1.4×
/// slower in the one that measured go (its three passes say so), at its
/// usual speed in py's (four passes: the directory's median state).
fn slow_sitting(dir: &Path) {
    write(
        dir,
        "sessions.jsonl",
        &[session("b", "vm", &["go"]), session("b2", "vm", &["py"])],
    );
    let mut r = runs("b", "go", 1100, 2.8, 1);
    r.extend(runs("b2", "py", 11_100, 10.0, 1));
    write(dir, "runs.jsonl", &r);
    let mut refs: Vec<Value> = (0..3)
        .flat_map(|b| pass("b", b, 1000 * b as i64 + 10, 1.4))
        .collect();
    refs.extend((0..4).flat_map(|b| pass("b2", b, 10_000 + 1000 * b as i64 + 10, 1.0)));
    write(dir, "references.jsonl", &refs);
}

/// `compare OLD NEW [args]` written to `out`: the CSV's rows by variant,
/// and the Markdown.
fn compare(
    old: &Path,
    new: &Path,
    out: &Path,
    args: &[&str],
) -> (
    std::collections::HashMap<String, std::collections::HashMap<String, String>>,
    String,
) {
    let mut a = vec![
        "compare",
        old.to_str().unwrap(),
        new.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    a.extend(args);
    let o = langbench(&a);
    assert!(o.status.success(), "{}", text(&o));
    let rows = read_csv(&out.join("compare.csv"))
        .into_iter()
        .map(|r| (r["variant"].clone(), r))
        .collect();
    (
        rows,
        std::fs::read_to_string(out.join("compare.md")).unwrap(),
    )
}

fn ratio(
    rows: &std::collections::HashMap<String, std::collections::HashMap<String, String>>,
    v: &str,
) -> f64 {
    rows[v]["total_time_ratio"].parse().unwrap()
}

/// The machine 1.4× slower in one sitting of the new edition: against
/// the references of that sitting go did not change (×1.00), while its
/// seconds say ×1.40 (what the same directories without references.jsonl
/// show).
#[test]
fn compare_judges_a_cell_against_the_references_of_its_sitting() {
    let tmp = tempfile::tempdir().unwrap();
    let (old, new) = (tmp.path().join("2025"), tmp.path().join("2026"));
    steady(&old);
    slow_sitting(&new);

    let (rows, md) = compare(&old, &new, &tmp.path().join("c1"), &[]);
    assert!((ratio(&rows, "go") - 1.0).abs() < 0.01, "{md}");
    assert!((ratio(&rows, "py") - 1.0).abs() < 0.01, "{md}");
    assert!(
        md.contains("Normalised") && md.contains("normalised against its reference passes"),
        "{md}"
    );

    // Relative to c-tcc, which only the reference passes measured.
    let (rows, md) = compare(
        &old,
        &new,
        &tmp.path().join("c2"),
        &["--relative-to", "c-tcc"],
    );
    assert!((ratio(&rows, "go") - 1.0).abs() < 0.01, "{md}");
    assert!((rows["go"]["total_new_s"].parse::<f64>().unwrap() - 1.0).abs() < 0.01);
    assert!((rows["py"]["total_new_s"].parse::<f64>().unwrap() - 5.0).abs() < 0.01);
    assert!(
        md.contains("c-tcc's reference passes in its sitting"),
        "{md}"
    );

    // Without references.jsonl: the seconds as measured, ×1.40, and no
    // Normalised fact.
    std::fs::remove_file(old.join("references.jsonl")).unwrap();
    std::fs::remove_file(new.join("references.jsonl")).unwrap();
    let (rows, md) = compare(&old, &new, &tmp.path().join("c3"), &[]);
    assert!((ratio(&rows, "go") - 1.4).abs() < 0.01, "{md}");
    assert!(!md.contains("Normalised"), "{md}");
}

/// An edition of go, rs and py (2, 2.5 and 10 s at the host's usual
/// speed) in two sittings: go measured in the first (`{id}1`), whose
/// three passes say the host ran `slow` times slower there, rs and py in
/// the second (`{id}2`, four passes at the usual speed), each at its
/// usual figure times the host's.
fn three_rows(dir: &Path, id: &str, slow: f64) {
    let (first, second) = (format!("{id}1"), format!("{id}2"));
    write(
        dir,
        "sessions.jsonl",
        &[
            session(&first, "vm", &["go"]),
            session(&second, "vm", &["rs", "py"]),
        ],
    );
    let mut r = runs(&first, "go", 1100, 2.0 * slow, 1);
    r.extend(runs(&second, "rs", 11_100, 2.5, 1));
    r.extend(runs(&second, "py", 11_150, 10.0, 1));
    write(dir, "runs.jsonl", &r);
    let mut refs: Vec<Value> = (0..3)
        .flat_map(|b| pass(&first, b, 1000 * b as i64 + 10, slow))
        .collect();
    refs.extend((0..4).flat_map(|b| pass(&second, b, 10_000 + 1000 * b as i64 + 10, 1.0)));
    write(dir, "references.jsonl", &refs);
}

/// go beats rs at the host's usual speed (2 s against 2.5 s) but was
/// measured in the new edition's slow sitting (2.8 s): the comparison ranks
/// it first on the new side, as the new edition's own table does, not
/// second by its seconds (issue #39: compare ranked by seconds while the
/// summary ranked by normalised totals). Without the passes, the seconds
/// rank it second again.
#[test]
fn compare_ranks_a_side_by_its_normalised_totals_as_its_table_does() {
    let tmp = tempfile::tempdir().unwrap();
    let (old, new) = (tmp.path().join("2025"), tmp.path().join("2026"));
    three_rows(&old, "a", 1.0);
    three_rows(&new, "b", 1.4);
    let rank =
        |rows: &std::collections::HashMap<String, std::collections::HashMap<String, String>>,
         v: &str,
         side: &str| rows[v][side].clone();

    let (rows, md) = compare(&old, &new, &tmp.path().join("c1"), &[]);
    for (v, place) in [("go", "1"), ("rs", "2"), ("py", "3")] {
        assert_eq!(rank(&rows, v, "old_rank"), place, "{v}: {md}");
        assert_eq!(rank(&rows, v, "new_rank"), place, "{v}: {md}");
    }
    // The new edition's own table agrees.
    let o = langbench(&["report", new.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let table = read_csv(&new.join("summary.csv"));
    let first = table
        .iter()
        .find(|r| r["rank"] == "1")
        .expect("a row ranked 1");
    assert_eq!(first["language"], "go", "{table:?}");

    std::fs::remove_file(old.join("references.jsonl")).unwrap();
    std::fs::remove_file(new.join("references.jsonl")).unwrap();
    let (rows, md) = compare(&old, &new, &tmp.path().join("c2"), &[]);
    assert_eq!(rank(&rows, "go", "old_rank"), "1", "{md}");
    assert_eq!(rank(&rows, "go", "new_rank"), "2", "{md}");
    assert_eq!(rank(&rows, "rs", "new_rank"), "1", "{md}");
}

/// No reference passes, but the reference variant ran in both sessions
/// of the new edition, the second on a host 1.4× slower: py, measured in
/// the first, is divided by c-tcc of the first (×1.00), not by the
/// newest c-tcc (×0.71, as main did); go, of the second, by the second's.
#[test]
fn compare_and_history_divide_by_the_reference_of_the_same_session() {
    let tmp = tempfile::tempdir().unwrap();
    let (old, new) = (tmp.path().join("2025"), tmp.path().join("2026"));
    write(
        &old,
        "sessions.jsonl",
        &[session("a", "vm", &["go", "py", "c-tcc"])],
    );
    let mut r = runs("a", "go", 1100, 2.0, 1);
    r.extend(runs("a", "py", 2100, 10.0, 1));
    r.extend(runs("a", "c-tcc", 3100, 2.0, 1));
    write(&old, "runs.jsonl", &r);
    write(
        &new,
        "sessions.jsonl",
        &[
            session("b1", "vm", &["py", "c-tcc"]),
            session("b2", "vm", &["go", "c-tcc"]),
        ],
    );
    let mut r = runs("b1", "py", 1100, 10.0, 1);
    r.extend(runs("b1", "c-tcc", 2100, 2.0, 1));
    r.extend(runs("b2", "go", 5100, 2.8, 1));
    r.extend(runs("b2", "c-tcc", 6100, 2.8, 1));
    write(&new, "runs.jsonl", &r);

    let (rows, md) = compare(
        &old,
        &new,
        &tmp.path().join("c"),
        &["--relative-to", "c-tcc"],
    );
    assert!((ratio(&rows, "py") - 1.0).abs() < 0.01, "{md}");
    assert!((ratio(&rows, "go") - 1.0).abs() < 0.01, "{md}");
    assert!(md.contains("in the session that measured it"), "{md}");

    let out = tmp.path().join("h");
    let o = langbench(&[
        "history",
        old.to_str().unwrap(),
        new.to_str().unwrap(),
        "--relative-to",
        "c-tcc",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    for r in read_csv(&out.join("history.csv")) {
        if r["variant"] == "py" || r["variant"] == "go" {
            assert!(
                (r["change_ratio"].parse::<f64>().unwrap() - 1.0).abs() < 0.01,
                "{r:?}"
            );
        }
    }
}

/// A doctored references.jsonl and runs: zero, negative, huge and absurd
/// times, a block out of range, a missing field. Nothing panics; the
/// comparison is still made, and no figure comes out negative or
/// non-finite.
#[test]
fn doctored_references_and_runs_are_no_figure_not_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let (old, new) = (tmp.path().join("2025"), tmp.path().join("2026"));
    steady(&old);
    slow_sitting(&new);
    let mut refs = std::fs::read_to_string(new.join("references.jsonl")).unwrap();
    for (wall, block, end) in [
        (json!(0.0), json!(1), 1010),
        (json!(-5.0), json!(2), 2010),
        (json!(1e308), json!(3), 3010),
        (json!(1e-300), json!(4294967295u32), 4010),
    ] {
        let mut r = run("b", "c-gcc", 1, end, 1.0, Some(0));
        r["wall_s"] = wall;
        r["block"] = block;
        refs.push_str(&format!("{r}\n"));
    }
    let mut bad = run("b", "c-tcc", 1, 10, 1.0, Some(0));
    bad["finished_at"] = json!("not a time");
    refs.push_str(&format!("{bad}\n{{\"schema\": 2, \"wall_s\": NaN}}\n"));
    std::fs::write(new.join("references.jsonl"), refs).unwrap();
    let mut runs = std::fs::read_to_string(new.join("runs.jsonl")).unwrap();
    let mut neg = run("b", "go", 4, 1400, -1.0, Some(2));
    runs.push_str(&format!("{neg}\n"));
    neg["wall_s"] = json!(0.0);
    neg["run"] = json!(5);
    runs.push_str(&format!("{neg}\n"));
    std::fs::write(new.join("runs.jsonl"), runs).unwrap();
    for args in [&[][..], &["--relative-to", "c-tcc"][..]] {
        let out = tmp.path().join(format!("c{}", args.len()));
        let (rows, md) = compare(&old, &new, &out, args);
        for r in rows.values() {
            for (k, v) in r {
                if let Ok(x) = v.parse::<f64>() {
                    assert!(x.is_finite() && x >= 0.0, "{k} = {v}\n{md}");
                }
            }
        }
    }
}

/// A shard on machine `host`: `variants` (each `wall` s), measured in
/// block 1 between two reference passes whose c-gcc and c-tcc take
/// `gcc` and `tcc` s.
fn shard(dir: &Path, id: &str, host: &str, variants: &[(&str, f64)], gcc: f64, tcc: f64) {
    let names: Vec<&str> = variants.iter().map(|(v, _)| *v).collect();
    write(dir, "sessions.jsonl", &[session(id, host, &names)]);
    let mut r = Vec::new();
    for (i, (v, wall)) in variants.iter().enumerate() {
        r.extend(runs(id, v, 1100 + 400 * i as i64, *wall, 1));
    }
    write(dir, "runs.jsonl", &r);
    let refs: Vec<Value> = [(0, 10), (1, 3000)]
        .into_iter()
        .flat_map(|(b, end)| {
            [
                run(id, "c-gcc", 1, end - 3, gcc, Some(b)),
                run(id, "c-tcc", 1, end, tcc, Some(b)),
            ]
        })
        .collect();
    write(dir, "references.jsonl", &refs);
}

/// `merge` of a shard on vm1 and one on vm2 (`gcc`, `tcc`: vm2's
/// reference times; vm1's are 1 and 2 s): the merged summary.md.
fn merged(tmp: &Path, gcc: f64, tcc: f64) -> String {
    let (a, b, out) = (tmp.join("s1"), tmp.join("s2"), tmp.join("merged"));
    shard(&a, "s1", "vm1", &[("go", 2.0), ("rs", 1.0)], 1.0, 2.0);
    // py takes 10 s where the references take 1 and 2: 15 on a machine
    // 1.5× slower.
    shard(&b, "s2", "vm2", &[("py", 15.0)], gcc, tcc);
    let o = langbench(&[
        "merge",
        out.to_str().unwrap(),
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    std::fs::read_to_string(out.join("summary.md")).unwrap()
}

/// Two shards from two machines, vm2 1.5× slower by both its references:
/// the merged table says per row which machine and block measured it,
/// normalises both (py's normalised total is its 10 s in vm1's terms
/// scaled like go's), and flags nothing.
#[test]
fn merged_shards_of_agreeing_machines_say_where_each_row_ran_and_flag_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let md = merged(tmp.path(), 1.5, 3.0);
    assert!(md.contains("#1 vm1 · block 1"), "{md}");
    assert!(md.contains("#2 vm2 · block 1"), "{md}");
    assert!(!md.contains("references disagree"), "{md}");
    let rows = read_csv(&tmp.path().join("merged/summary.csv"));
    let total = |v: &str| -> f64 {
        rows.iter().find(|r| r["variant"] == v).unwrap()["total_normalised_s"]
            .parse()
            .unwrap()
    };
    // Normalised, py is 5× go as on one machine (10 s against 2 s).
    assert!((total("py") / total("go") - 5.0).abs() < 0.01, "{md}");
}

/// The same, but vm2's c-tcc runs as fast as on vm1 while its c-gcc is
/// 1.5× slower: its references disagree, so its row is flagged (a note
/// naming the machine, its rank marked), not silently ranked.
#[test]
fn a_machine_whose_references_disagree_is_flagged_not_silently_ranked() {
    let tmp = tempfile::tempdir().unwrap();
    let md = merged(tmp.path(), 1.5, 2.0);
    assert!(md.contains("references disagree with machine #1's"), "{md}");
    assert!(md.contains("c-gcc ×1.50, c-tcc ×1.00"), "{md}");
    assert!(md.contains("1 row(s)"), "{md}");
}
