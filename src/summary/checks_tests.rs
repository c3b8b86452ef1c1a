//! Stored reproducibility checks in the summary (issues #59 and #60):
//! which checks set the ranks' precision (verified, on the edition's CPU
//! model, enough rows), which do not (another CPU model, too few rows,
//! forged), and the ranks they give (pairwise, no chain artefact).

use std::sync::Arc;

use super::normalised_tests::{BEFORE, passes, rank, run};
use super::*;
use crate::record::SessionRecord;
use crate::reference::HostSpeed;
use crate::reproduced::verify::ratios_by_passes;
use crate::store::{RunDir, Stored};
use crate::testing;

const EDITION_CPU: &str = "AuthenticAMD family 25 model 17 stepping 1, L3 32768K";
const OTHER_CPU: &str = "GenuineIntel family 6 model 167 stepping 1, L3 491520K";

/// The edition's machine: an AMD EPYC, in boot `boot-a`.
fn edition_machine() -> Machine {
    Machine {
        cpu_model: "AMD EPYC".into(),
        cpu_id: EDITION_CPU.into(),
        boot_id: "boot-a".into(),
        ..testing::machine()
    }
}

/// An edition of `n` variants on assoc, `v0` … `v{n-1}`, each 2 % slower
/// than the one before (a chain), two runs of the same time each (no
/// range: only a precision ties them), all before the first reference
/// pass.
fn edition(n: usize) -> Stored {
    let runs: Vec<RunRecord> = (0..n)
        .flat_map(|i| {
            let wall = 1.02f64.powi(i as i32);
            [
                run(&format!("v{i}"), 1, BEFORE, wall),
                run(&format!("v{i}"), 2, BEFORE, wall),
            ]
        })
        .collect();
    Stored {
        sessions: vec![SessionRecord {
            machine: edition_machine(),
            ..testing::session(testing::SESSION)
        }],
        runs: testing::shared(runs),
        references: passes(),
        ..Default::default()
    }
}

/// Each variant's assoc ratio to the references in `stored`, as
/// `reproduce` computes it (today's normaliser).
fn ratio(stored: &Stored, variant: &str) -> f64 {
    let host = HostSpeed::of(stored, Some(&["c-gcc".to_string()])).unwrap();
    ratios_by_passes(stored, &host, &|_| true)[&format!("{variant} assoc")]
        .unwrap()
        .figure()
}

/// A check's run directory: the variants of `factors` measured again,
/// each `factor` × its edition time, beside one reference pass like the
/// edition's, on `cpu_id` in boot `boot-b`, on 2026-12-05.
fn run_dir(factors: &[(String, f64)], cpu_id: &str) -> Stored {
    let runs: Vec<RunRecord> = factors
        .iter()
        .flat_map(|(v, f)| {
            let i: i32 = v[1..].parse().unwrap();
            let wall = 1.02f64.powi(i) * f;
            [run(v, 1, BEFORE, wall), run(v, 2, BEFORE, wall)]
        })
        .collect();
    let mut machine = edition_machine();
    machine.cpu_id = cpu_id.into();
    machine.boot_id = "boot-b".into();
    Stored {
        sessions: vec![SessionRecord {
            machine,
            started_at: "2026-12-05T08:56:24Z".into(),
            ..testing::session(testing::SESSION)
        }],
        runs: testing::shared(runs),
        references: passes()[..1].to_vec(),
        ..Default::default()
    }
}

/// The JSON `reproduce --store` writes of `runs` against `edition`, saying
/// it ran on `cpu_id` (empty: an older check that says nothing).
fn stored_check(edition: &Stored, runs: &Stored, cpu_id: &str) -> Vec<u8> {
    let mut variants: Vec<String> = runs.runs.iter().map(|r| r.variant.clone()).collect();
    variants.dedup();
    let rows: Vec<serde_json::Value> = variants
        .iter()
        .map(|v| {
            serde_json::json!({
                "variant": format!("{v} assoc"),
                "edition": ratio(edition, v),
                "remeasured": ratio(runs, v),
            })
        })
        .collect();
    serde_json::to_vec(&serde_json::json!({
        "date": "2026-12-05T08:56:24Z",
        "machine": "AMD EPYC",
        "rows": rows,
        "unmatched": [],
        "references": ["c-gcc"],
        "edition_basis": "reference-passes",
        "cpu_id": cpu_id,
        "boot_id": if cpu_id.is_empty() { "" } else { "boot-b" },
        "level": "another-boot",
        "run": "reproduce-x",
        "normaliser": crate::reference::NORMALISER,
    }))
    .unwrap()
}

/// A check and its run directory: per variant its re-measured time the
/// edition's × `factor`, run on `cpu_id`.
fn check(edition: &Stored, factors: &[(String, f64)], cpu_id: &str) -> (Vec<u8>, Option<Stored>) {
    let runs = run_dir(factors, cpu_id);
    (stored_check(edition, &runs, cpu_id), Some(runs))
}

/// Log differences −4 … +4 % around none: a precision of 5.0 % (MAD 2 %,
/// 1.645 × 1.4826 × 2 %).
fn five_percent(n: usize) -> Vec<(String, f64)> {
    let d = [-0.04, -0.03, -0.02, -0.01, 0.0, 0.0, 0.01, 0.02, 0.03, 0.04];
    (0..n)
        .map(|i| (format!("v{i}"), f64::exp(d[i % 10])))
        .collect()
}

/// The edition with its checks, each with its run directory beside it
/// (`None`: not there).
fn with(mut stored: Stored, checks: Vec<(Vec<u8>, Option<Stored>)>) -> Summary {
    for (i, (json, runs)) in checks.into_iter().enumerate() {
        let file = format!("2026-12-05-{i}.json");
        if let Some(runs) = runs {
            stored.reproduction_runs.insert(
                file.clone(),
                RunDir {
                    name: "reproduce-x".into(),
                    named: true,
                    records: Ok(Arc::new(runs)),
                },
            );
        }
        stored.reproductions.push((file, json));
    }
    Summary::from_stored(&stored)
}

fn ranks_of(s: &Summary, n: usize) -> Vec<String> {
    (0..n).map(|i| rank(s, &format!("v{i}"))).collect()
}

fn fact(s: &Summary, key: &str) -> String {
    s.document()
        .meta
        .iter()
        .filter(|(k, _)| k == key)
        .map(|(_, v)| v.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A chain of rows 2 % apart is not split at a group's first row: at a
/// precision of 5 % each row ties with the rows within 5 % of it (two
/// steps either way) and its place is 1 + the rows more than 5 % ahead;
/// neighbours always tie and their places differ by at most one. (The
/// old rule gave =1 =1 =1 =4 =4 =4 =7 ...: the fourth row, 2 % from the
/// third, was told apart from it because it was 6 % from the group's
/// first.)
#[test]
fn a_chain_of_rows_two_percent_apart_is_not_split_at_a_groups_first_row() {
    let s = with(
        edition(10),
        vec![check(&edition(10), &five_percent(10), EDITION_CPU)],
    );
    let p = s.ranking.trusted().expect("10 rows on the edition's CPU");
    assert!((p.of_bench(Bench::Assoc) - 0.04998).abs() < 1e-4, "{p:?}");
    assert_eq!(
        ranks_of(&s, 10),
        ["=1", "=1", "=1", "=2", "=3", "=4", "=5", "=6", "=7", "=8"]
    );
    let ranks = s.ranks();
    for w in ranks.windows(2) {
        let (a, b) = (w[0].unwrap(), w[1].unwrap());
        assert!(a.shared && b.shared && b.place - a.place <= 1, "{ranks:?}");
    }
    let sentence = fact(&s, "Rank precision");
    assert!(
        sentence.contains("the ranks hold at the precision of 1 verified check on this CPU model, AMD EPYC family 25 model 17 (2026-12-05; another boot; 10 rows), per benchmark: assoc ±5.0 % (10 rows; their common shift +0.0 %)"),
        "{sentence}"
    );
    // Without a check, the runs alone: every row its own place.
    let plain = with(edition(10), Vec::new());
    assert_eq!(ranks_of(&plain, 3), ["1", "2", "3"]);
}

/// A check on another CPU model never changes a rank: the same rows, 30 %
/// apart, widen the ranks when measured on the edition's CPU model, and
/// leave them as without a check when measured on another; that one is a
/// Portability table and fact instead.
#[test]
fn a_check_on_another_cpu_model_never_changes_a_rank() {
    let e = edition(10);
    let wide: Vec<(String, f64)> = (0..10)
        .map(|i| (format!("v{i}"), if i % 2 == 0 { 1.3 } else { 0.75 }))
        .collect();
    let plain = ranks_of(&with(edition(10), Vec::new()), 10);
    let other = with(edition(10), vec![check(&e, &wide, OTHER_CPU)]);
    assert_eq!(ranks_of(&other, 10), plain);
    assert_eq!(other.ranking, crate::reproduced::precision::Ranking::None);
    let same = with(edition(10), vec![check(&e, &wide, EDITION_CPU)]);
    assert_ne!(ranks_of(&same, 10), plain);
    // What the other one is, said as such.
    let doc = other.document();
    let table = doc
        .tables
        .iter()
        .find(|t| t.id.starts_with("portability"))
        .expect("a Portability table");
    assert_eq!(
        table.title,
        "Portability: AMD EPYC family 6 model 167, 2026-12-05"
    );
    assert!(
        table.notes[0]
            .text
            .contains("measured on AMD EPYC family 6 model 167"),
        "{:?}",
        table.notes
    );
    // 10 rows, then the geometric mean and the spread.
    assert_eq!(table.rows.len(), 12);
    assert_eq!(table.rows[0][2].text, "+30.0 %");
    let p = fact(&other, "Portability");
    assert!(p.contains("another CPU model than the edition's"), "{p}");
    let sentence = fact(&other, "Rank precision");
    assert!(
        sentence.contains("no verified check on this CPU model")
            && sentence
                .contains("1 check on another CPU model measures portability and sets no rank"),
        "{sentence}"
    );
}

/// A precision from 5 rows is not trusted alone: a check of 5 rows, 30 %
/// apart, changes no rank, and the sentence says why.
#[test]
fn a_precision_from_five_rows_is_not_trusted_alone() {
    let e = edition(10);
    let five: Vec<(String, f64)> = (0..5)
        .map(|i| (format!("v{i}"), if i % 2 == 0 { 1.3 } else { 0.75 }))
        .collect();
    let s = with(edition(10), vec![check(&e, &five, EDITION_CPU)]);
    assert_eq!(
        ranks_of(&s, 10),
        ranks_of(&with(edition(10), Vec::new()), 10)
    );
    let sentence = fact(&s, "Rank precision");
    assert!(
        sentence.contains("re-measured 5 rows, fewer than 6: too few to set a precision alone"),
        "{sentence}"
    );
}

/// A hand-written check (issue #59 row 8: edition ratios that are not
/// the records', one row 40× off, no run directory) does not verify: it
/// changes no rank, the page says it is ignored and why, the terminal
/// says what to do.
#[test]
fn a_forged_check_does_not_verify_and_changes_no_rank() {
    let rows: Vec<serde_json::Value> = (0..10)
        .map(|i| {
            let off = if i == 3 { 40.0 } else { 1.0 };
            serde_json::json!({"variant": format!("v{i} assoc"), "edition": 1.0, "remeasured": off})
        })
        .collect();
    let forged = serde_json::json!({
        "date": "2026-12-05T08:56:24Z", "machine": "AMD EPYC", "rows": rows,
        "cpu_id": EDITION_CPU, "references": ["c-gcc"],
    });
    let s = with(
        edition(10),
        vec![(serde_json::to_vec(&forged).unwrap(), None)],
    );
    assert_eq!(
        ranks_of(&s, 10),
        ranks_of(&with(edition(10), Vec::new()), 10)
    );
    let f = fact(&s, "Reproduced");
    assert!(
        f.contains("reproduced/2026-12-05-0.json is IGNORED")
            && f.contains("it names no run directory")
            && f.contains("its ratios cannot be recomputed, so it sets nothing"),
        "{f}"
    );
    assert!(
        s.advice().iter().any(|a| a.contains("does not verify")),
        "{:?}",
        s.advice()
    );
    assert!(fact(&s, "Rank precision").contains("1 check that does not verify is ignored"));
    // The same rows beside a real run directory: the 40× row is not what
    // the records give, more than any normaliser moves a ratio.
    let e = edition(10);
    let same: Vec<(String, f64)> = (0..10).map(|i| (format!("v{i}"), 1.0)).collect();
    let (_, runs) = check(&e, &same, EDITION_CPU);
    let mut forged = forged.clone();
    forged["run"] = "reproduce-x".into();
    for (i, r) in forged["rows"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        let v = format!("v{i}");
        r["edition"] = ratio(&e, &v).into();
        let off = if i == 3 { 40.0 } else { 1.0 };
        r["remeasured"] = (ratio(runs.as_ref().unwrap(), &v) * off).into();
    }
    let s = with(
        edition(10),
        vec![(serde_json::to_vec(&forged).unwrap(), runs)],
    );
    assert!(!s.checks[0].verified());
    let f = fact(&s, "Reproduced");
    assert!(
        f.contains("its re-measured ratio of v3 assoc is")
            && f.contains("more than a change of normaliser moves a ratio"),
        "{f}"
    );
    assert_eq!(
        ranks_of(&s, 10),
        ranks_of(&with(edition(10), Vec::new()), 10)
    );
    // One edition ratio 1 % off the records' in a check that names
    // today's normaliser is refused the same way.
    let (json, runs) = check(&e, &five_percent(10), EDITION_CPU);
    let mut bytes: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let r = bytes["rows"][4]["edition"].as_f64().unwrap();
    bytes["rows"][4]["edition"] = (r * 1.01).into();
    let s = with(
        edition(10),
        vec![(serde_json::to_vec(&bytes).unwrap(), runs)],
    );
    assert!(!s.checks[0].verified());
    assert!(
        fact(&s, "Reproduced").contains("with the normaliser it names: edited"),
        "{}",
        fact(&s, "Reproduced")
    );
}

/// A check whose records hold one re-measured row 40× off (or at
/// 12,130 %) cannot coarsen the ranks: they are those of the same check
/// without that row's excess, and the row is flagged on its own in the
/// notes.
#[test]
fn one_row_far_off_cannot_coarsen_the_ranks_and_is_flagged_on_its_own() {
    let e = edition(10);
    let honest = with(edition(10), vec![check(&e, &five_percent(10), EDITION_CPU)]);
    for off in [40.0, 122.3] {
        let mut rows = five_percent(10);
        rows[3].1 *= off;
        let s = with(edition(10), vec![check(&e, &rows, EDITION_CPU)]);
        assert!(s.checks[0].verified(), "{:?}", s.checks[0].verdict);
        assert_eq!(ranks_of(&s, 10), ranks_of(&honest, 10), "×{off}");
        let notes = s.notes();
        let note = notes
            .iter()
            .find(|n| n.text.starts_with("did not reproduce"))
            .expect("the row flagged");
        assert!(
            note.key.ends_with("/ assoc") && note.key.contains("V3"),
            "{note:?}"
        );
    }
}

/// A check is its run directory's records: its level comes from the run
/// directory's session (its CPU and boot), not from what the check says;
/// what it says of its machine, its rows and its ratios must be what the
/// records give; a check made with an earlier normaliser is recomputed
/// with today's, within a bound.
#[test]
fn a_check_is_verified_against_its_run_directory() {
    let e = edition(10);
    let same: Vec<(String, f64)> = (0..10).map(|i| (format!("v{i}"), 1.0)).collect();
    let s = with(edition(10), vec![check(&e, &same, EDITION_CPU)]);
    assert!(s.checks[0].verified(), "{:?}", s.checks[0].verdict);
    assert_eq!(s.checks[0].level, crate::reproduced::Level::AnotherBoot);
    assert!(
        fact(&s, "Reproduced").contains(
            "its ratios recomputed from the edition's records and its run directory reproduce-x's"
        ),
        "{}",
        fact(&s, "Reproduced")
    );
    // The runs were measured on another CPU model: a portability check,
    // whatever the check says of itself (here nothing).
    let xeon = run_dir(&same, OTHER_CPU);
    let s = with(
        edition(10),
        vec![(stored_check(&e, &xeon, ""), Some(xeon.clone()))],
    );
    assert!(s.checks[0].measures_portability(), "{:?}", s.checks[0]);
    // A check that says it ran on the edition's CPU while its runs say
    // another is refused.
    let s = with(
        edition(10),
        vec![(stored_check(&e, &xeon, EDITION_CPU), Some(xeon))],
    );
    assert!(
        fact(&s, "Reproduced").contains("it says its CPU was AuthenticAMD"),
        "{}",
        fact(&s, "Reproduced")
    );
    // A check that leaves out a row its run directory measured (its worst,
    // say) is refused: a check cannot choose its rows.
    let (json, runs) = check(&e, &five_percent(10), EDITION_CPU);
    let mut v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    v["rows"].as_array_mut().unwrap().remove(9);
    let s = with(edition(10), vec![(serde_json::to_vec(&v).unwrap(), runs)]);
    assert!(
        fact(&s, "Reproduced").contains("it leaves out v9 assoc"),
        "{}",
        fact(&s, "Reproduced")
    );
    // Made with an earlier normaliser (no `normaliser`; its ratios 10 %
    // off today's): verified, its rows recomputed from the records, and
    // the page says by how much its own figures differed.
    let (json, runs) = check(&e, &five_percent(10), EDITION_CPU);
    let mut v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    v.as_object_mut().unwrap().remove("normaliser");
    for r in v["rows"].as_array_mut().unwrap() {
        let x = r["edition"].as_f64().unwrap();
        r["edition"] = (x * 1.1).into();
    }
    let old = with(edition(10), vec![(serde_json::to_vec(&v).unwrap(), runs)]);
    let now = with(edition(10), vec![check(&e, &five_percent(10), EDITION_CPU)]);
    match &old.checks[0].verdict {
        crate::reproduced::verify::Verdict::Verified {
            renormalised: Some(by),
            ..
        } => assert!((by - 0.1).abs() < 1e-9, "{by}"),
        v => panic!("{v:?}"),
    }
    assert_eq!(old.checks[0].agreement, now.checks[0].agreement);
    assert_eq!(ranks_of(&old, 10), ranks_of(&now, 10));
    assert!(
        fact(&old, "Reproduced").contains("stored with an earlier normaliser"),
        "{}",
        fact(&old, "Reproduced")
    );
}

/// Ties keep their `=` in the data files: the rank column of summary.csv
/// writes `=1`, and the spreadsheet keeps the number with a format that
/// shows it.
#[test]
fn ties_keep_their_equals_sign_in_csv() {
    let s = with(
        edition(10),
        vec![check(&edition(10), &five_percent(10), EDITION_CPU)],
    );
    let bytes = langbench_document::export::csv::table(&s.table()).unwrap();
    let mut reader = ::csv::Reader::from_reader(&bytes[..]);
    let at = reader
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "rank")
        .unwrap();
    let ranks: Vec<String> = reader
        .records()
        .map(|r| r.unwrap()[at].to_string())
        .collect();
    assert_eq!(&ranks[..4], ["=1", "=1", "=1", "=2"]);
}
