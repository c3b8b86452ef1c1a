//! The summary's Document with reference passes (issue #39): the
//! normalised columns, ranks shared where normalised intervals overlap,
//! and the precision fact, from synthetic stores with `references.jsonl`.

use super::*;
use crate::store::Stored;
use crate::testing;
use langbench_document::Entry;

/// `at` seconds past [`testing::AT`], RFC 3339.
pub(super) fn at(seconds: i64) -> String {
    (chrono::DateTime::parse_from_rfc3339(testing::AT).unwrap()
        + chrono::Duration::seconds(seconds))
    .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// A reference run of c-gcc in `session`'s pass `block`, finishing at
/// `end` s.
pub(super) fn reference(session: &str, bench: Bench, block: u32, end: i64, wall: f64) -> RunRecord {
    let mut r = testing::run("c-gcc", bench)
        .session(session)
        .wall(wall)
        .record();
    r.block = Some(block);
    r.finished_at = at(end);
    r
}

/// The sitting of [`passes`] whose host ran twice as slow.
const SLOW: &str = "slow";

/// Run `nth` of `variant` on assoc, finishing at `end` s: in the slow
/// sitting from [`AFTER`] on.
pub(super) fn run(variant: &str, nth: u32, end: i64, wall: f64) -> RunRecord {
    let session = if end >= AFTER { SLOW } else { testing::SESSION };
    let mut r = testing::run(variant, Bench::Assoc)
        .session(session)
        .nth(nth)
        .wall(wall)
        .record();
    r.block = Some(1);
    r.finished_at = at(end);
    r
}

/// Two sittings' passes of the reference: 10 s in the first (at 100 s),
/// 20 s in the slow one (at 10 000 s); its level, the median, 15 s. A run
/// of the first sitting is judged at speed 10/15, one of the slow one at
/// 20/15: normalised, a run [`BEFORE`] is its wall × 1.5, a run [`AFTER`]
/// its wall × 0.75.
pub(super) fn passes() -> Vec<RunRecord> {
    vec![
        reference(testing::SESSION, Bench::Assoc, 0, 100, 10.0),
        reference(SLOW, Bench::Assoc, 0, 10_000, 20.0),
    ]
}

pub(super) const BEFORE: i64 = 10;
pub(super) const AFTER: i64 = 20_000;

/// The entry of `key` in the table's row of `variant`.
pub(super) fn entry(s: &Summary, variant: &str, key: &str) -> Entry {
    let t = s.table();
    let col = t.columns.iter().position(|c| c.key == key).unwrap();
    let row = s.rows.iter().position(|r| r.variant == variant).unwrap();
    t.rows[row][col].clone()
}

pub(super) fn rank(s: &Summary, variant: &str) -> String {
    entry(s, variant, "rank").text.into()
}

/// a ran 1.0 and 1.05 s while the host was fast, b 2.0 and 2.1 s while
/// it was twice as slow: as seconds b is told apart from a (ranks 1 and
/// 2, today's rule), normalised both are 1.5–1.575 s, so they share rank
/// 1.
#[test]
fn rows_whose_normalised_intervals_overlap_share_a_rank() {
    let mut runs = vec![
        run("a", 1, BEFORE, 1.0),
        run("a", 2, BEFORE, 1.05),
        run("b", 1, AFTER, 2.0),
        run("b", 2, AFTER, 2.1),
    ];
    let without = Summary::from_stored(&Stored {
        runs: crate::testing::shared(runs.clone()),
        ..Default::default()
    });
    assert_eq!(
        (rank(&without, "a"), rank(&without, "b")),
        ("1".into(), "2".into())
    );
    let s = Summary::from_stored(&Stored {
        runs: crate::testing::shared(std::mem::take(&mut runs)),
        references: passes(),
        ..Default::default()
    });
    assert!(s.ranks_normalised());
    assert_eq!((rank(&s, "a"), rank(&s, "b")), ("=1".into(), "=1".into()));
    let n = entry(&s, "b", "total_normalised_s");
    assert_eq!(n.interval(), Some((1.5, 2.1 * 0.75)));
    // The figure is the fastest normalised run.
    assert_eq!(n.as_f64(), Some(1.5));
    assert!(
        entry(&s, "a", "rank")
            .note()
            .unwrap()
            .contains("normalised totals' intervals overlap")
    );
}

/// a ran 1.0 and 1.5 s while the host was slow, b 1.2 and 1.3 s while it
/// was fast.
fn a_slow_host_b_fast() -> Vec<RunRecord> {
    vec![
        run("a", 1, AFTER, 1.0),
        run("a", 2, AFTER, 1.5),
        run("b", 1, BEFORE, 1.2),
        run("b", 2, BEFORE, 1.3),
    ]
}

/// [`a_slow_host_b_fast`]: as seconds they share a rank (b's best is
/// within a's range), normalised a is 0.75–1.125 s and b 1.8–1.95 s:
/// ranks 1 and 2.
#[test]
fn rows_whose_normalised_intervals_do_not_overlap_do_not_share_a_rank() {
    let runs = a_slow_host_b_fast();
    let without = Summary::from_stored(&Stored {
        runs: crate::testing::shared(runs.clone()),
        ..Default::default()
    });
    assert_eq!(
        (rank(&without, "a"), rank(&without, "b")),
        ("=1".into(), "=1".into())
    );
    let s = Summary::from_stored(&Stored {
        runs: crate::testing::shared(runs),
        references: passes(),
        ..Default::default()
    });
    assert_eq!((rank(&s, "a"), rank(&s, "b")), ("1".into(), "2".into()));
    // a: its fastest, 0.75; its slowest 1.125, 50 % above it.
    let a = entry(&s, "a", "assoc_normalised_s");
    assert_eq!(a.text, "0.75 +50%");
    assert_eq!(a.interval(), Some((0.75, 1.125)));
    assert_eq!(entry(&s, "a", "assoc_normalised_lo_s").as_f64(), Some(0.75));
    assert_eq!(
        entry(&s, "a", "total_normalised_hi_s").as_f64(),
        Some(1.125)
    );
    // The seconds stay best of N as measured.
    assert_eq!(entry(&s, "b", "assoc_s").as_f64(), Some(1.2));
}

/// A row ranked by seconds where a complete row has no normalised total
/// (its session measured no reference pass).
#[test]
fn a_row_without_references_around_it_keeps_the_ranks_of_seconds() {
    let mut other = run("b", 1, BEFORE, 1.2);
    other.session = "s2".into();
    let s = Summary::from_stored(&Stored {
        runs: crate::testing::shared(vec![run("a", 1, AFTER, 1.0), other]),
        references: passes(),
        ..Default::default()
    });
    assert!(!s.ranks_normalised());
    assert_eq!((rank(&s, "a"), rank(&s, "b")), ("1".into(), "2".into()));
    assert_eq!(entry(&s, "b", "total_normalised_s").text, "-");
    let note = s
        .notes()
        .into_iter()
        .find(|n| n.key == "Normalised")
        .unwrap();
    assert!(note.text.contains("ranked by its seconds"), "{}", note.text);
}

/// The precision fact, from the records: session s1 measured 5 passes
/// (assoc 10, 10, 13, 10, 10 s; num-comb 1 s each), s2 two (assoc 10 s).
/// assoc's level is the median, 10 s, so its passes ran at speed 1 but
/// s1's block 2 at 1.3: drift ×1.30, and that pass moved 30 % against
/// both neighbours (more than the 10 % limit): flagged. num-comb never
/// moved: ×1.00. 7 passes (session × block), 2 sessions.
#[test]
fn the_precision_fact_states_drift_flagged_passes_sessions_and_passes() {
    let mut references = Vec::new();
    for (block, wall) in [10.0, 10.0, 13.0, 10.0, 10.0].into_iter().enumerate() {
        let end = 100 + 1000 * block as i64;
        references.push(reference("s1", Bench::Assoc, block as u32, end, wall));
        references.push(reference("s1", Bench::NumComb, block as u32, end + 20, 1.0));
    }
    references.push(reference("s2", Bench::Assoc, 0, 50_000, 10.0));
    references.push(reference("s2", Bench::Assoc, 1, 51_000, 10.0));
    let s = Summary::from_stored(&Stored {
        runs: crate::testing::shared(vec![run("a", 1, 500, 1.0)]),
        references,
        ..Default::default()
    });
    let host = s.host.as_ref().unwrap();
    assert_eq!(precision::passes_and_sessions(host), (7, 2));
    let doc = s.document();
    let (_, text) = doc.meta.iter().find(|(k, _)| k == "Precision").unwrap();
    assert!(
        text.contains("(c-gcc) ran in 7 passes over 2 sessions"),
        "{text}"
    );
    assert!(text.contains("assoc ×1.30, num-comb ×1.00"), "{text}");
    assert!(
        text.contains("flagged: 1 — session s1 block 2 assoc (×1.30"),
        "{text}"
    );
    // Without references: no precision fact, no normalised columns.
    let plain = Summary::from_stored(&Stored {
        runs: crate::testing::shared(vec![run("a", 1, 500, 1.0)]),
        ..Default::default()
    });
    assert!(plain.document().meta.iter().all(|(k, _)| k != "Precision"));
    assert!(
        plain
            .table()
            .columns
            .iter()
            .all(|c| !c.key.contains("normalised"))
    );
    assert!(plain.notes().iter().all(|n| n.key != "Normalised"));
}

/// A busy sitting flags many passes: the precision fact says them once
/// per session (its passes, blocks and benchmarks, the worst), not one
/// by one. s1's assoc passes ran 10, 13, 10, 13, 10 s: every pass moved
/// 30 % against its neighbours.
#[test]
fn the_precision_fact_groups_flagged_passes_per_session() {
    let references = [10.0, 13.0, 10.0, 13.0, 10.0]
        .into_iter()
        .enumerate()
        .map(|(block, wall)| {
            reference(
                "s1",
                Bench::Assoc,
                block as u32,
                100 + 1000 * block as i64,
                wall,
            )
        })
        .collect();
    let s = Summary::from_stored(&Stored {
        runs: crate::testing::shared(vec![run("a", 1, 500, 1.0)]),
        references,
        ..Default::default()
    });
    let doc = s.document();
    let (_, text) = doc.meta.iter().find(|(k, _)| k == "Precision").unwrap();
    assert!(
        text.contains("flagged: 5 — session s1, 5 passes: blocks 0, 1, 2, 3, 4 (assoc), up to ×"),
        "{text}"
    );
    assert!(!text.contains("s1 block 2"), "{text}");
}
