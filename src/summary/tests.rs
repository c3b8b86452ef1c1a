//! The CPU summary from fake records: figures, failures, cold runs,
//! noise, ranks, notes and the texts of its table.

use super::*;
use crate::record::SessionRecord;
use crate::store::Stored;
use crate::testing::{self, session, variant};

fn rec(variant: &str, bench: Bench, run: u32, wall: f64, status: Status) -> RunRecord {
    let r = testing::run(variant, bench)
        .nth(run)
        .wall(wall)
        .rss((wall * 1000.0) as u64)
        .status(status);
    match status {
        Status::BadExit => r.exit(Some(Exit::Exited(25))),
        _ => r,
    }
    .record()
}

#[test]
fn best_of_n_and_failures_stay_visible() {
    let stored = Stored {
        runs: crate::testing::shared(vec![
            rec("fast", Bench::Assoc, 1, 2.0, Status::Ok),
            rec("fast", Bench::Assoc, 2, 1.5, Status::Ok),
            rec("fast", Bench::Assoc, 3, 1.7, Status::Ok),
            rec("tcc", Bench::Assoc, 1, 1.0, Status::BadExit),
            rec("slow", Bench::Assoc, 1, 9.0, Status::Timeout),
            rec("slow", Bench::Assoc, 2, 0.0, Status::Skipped),
            rec("seg", Bench::Assoc, 1, 0.1, Status::Crashed),
        ]),
        ..Default::default()
    };
    // Runs of 2.0, 1.5, 1.7 s spread 15%: noisy at the default 5%.
    let noisy = Summary::from_stored(&stored);
    assert_eq!(noisy.row_texts(&noisy.rows[0])[3], "1.50 ±15%");
    let s = Summary::from_stored(&stored).view(&View {
        noise_cv: 0.5,
        ..Default::default()
    });
    let order: Vec<_> = s.rows.iter().map(|r| r.variant.as_str()).collect();
    // A timeout is no time: slow and seg both have no figure.
    assert_eq!(order, ["fast", "tcc", "seg", "slow"]);
    let fast = &s.rows[0];
    assert_eq!(fast.cells[&Bench::Assoc].wall_s(), Some(1.5));
    assert_eq!(fast.cells[&Bench::Assoc].best.as_ref().unwrap().attempt, 2);
    assert_eq!(s.row_texts(fast)[3], "1.50");
    assert_eq!(s.row_texts(&s.rows[1])[3], "1.00 (exit 25)");
    assert_eq!(s.row_texts(&s.rows[1])[5], "partial");
    assert_eq!(s.row_texts(&s.rows[2])[3], "CRASHED (SIGSEGV)");
    assert_eq!(s.row_texts(&s.rows[3])[3], "TIMEOUT >9.00");
    assert_eq!(s.rows[3].cells[&Bench::Assoc].wall_s(), None);
    assert_eq!(s.rows[3].total_s(), None);
    // Only the complete row is ranked.
    assert_eq!(s.row_texts(fast)[7], "1");
    assert_eq!(s.row_texts(&s.rows[1])[7], "");
    assert_eq!(s.notes().len(), 3);
}

/// Issue #59, row 6: later runs far faster than the first are no mark by
/// themselves (crystal's warm build cache made run 3 8× faster than run
/// 1, and the note called a correct program's figure a remembered
/// answer); a run whose answer was found where its runs keep things
/// (`remembered`, an `escaped` run) is: the time says REMEMBERED and the
/// note is its record's.
#[test]
fn only_a_remembered_answer_found_marks_a_cell() {
    use crate::record::CacheStart::Warm;
    let with = |runs: &[(f64, Status, Option<&str>)]| {
        let runs = runs
            .iter()
            .enumerate()
            .map(|(i, &(wall, status, found))| {
                let mut r = rec("crystal", Bench::NumComb, i as u32 + 1, wall, status);
                r.cache = Some(Warm);
                r.remembered = found.map(str::to_string);
                r.detail = found.map(|f| format!("REMEMBERED ANSWER: after run {}, {f}", i + 1));
                r
            })
            .map(std::sync::Arc::new)
            .collect();
        let s = Summary::from_stored(&Stored {
            runs,
            ..Default::default()
        })
        .view(&View {
            noise_cv: 10.0,
            ..Default::default()
        });
        let c = &s.rows[0].cells[&Bench::NumComb];
        (
            c.time_text(),
            s.cell_note(&s.rows[0], Bench::NumComb),
            c.flag(10.0),
        )
    };
    // The published slur: 19.29 s, then 2.55 s (8×), not started cold.
    let (time, note, flag) = with(&[(19.29, Status::Ok, None), (2.55, Status::Ok, None)]);
    assert_eq!(time, "2.55");
    assert!(
        note.as_ref().is_none_or(|n| !n.contains("REMEMBERED")),
        "{note:?}"
    );
    assert_eq!(flag, None);
    // Found after run 1: every run kept it.
    let file = "`~/.cache/ans/3000` in its declared caches held the answer it printed at N=3000";
    let (time, note, flag) = with(&[
        (1.5, Status::Escaped, Some(file)),
        (0.03, Status::Escaped, Some(file)),
    ]);
    assert_eq!(time, "0.03 REMEMBERED");
    let note = note.unwrap();
    assert!(
        note.starts_with(
            "escaped (2 of 2 runs): REMEMBERED ANSWER: after run 2, `~/.cache/ans/3000`"
        ),
        "{note}"
    );
    assert_eq!(flag, Some(Flag::Escaped));
    // An escaped run for another reason stays ESCAPED.
    let (time, _, _) = with(&[(1.0, Status::Escaped, None)]);
    assert_eq!(time, "1.00 ESCAPED");
}

/// A figure that is a cold run says so; a warm one says nothing.
#[test]
fn a_cold_figure_says_so() {
    use crate::record::CacheStart::{Cold, Warm};
    let with = |runs: &[(f64, crate::record::CacheStart)]| {
        let runs = runs
            .iter()
            .enumerate()
            .map(|(i, &(wall, cache))| {
                let mut r = rec("go", Bench::NumComb, i as u32 + 1, wall, Status::Ok);
                r.cache = Some(cache);
                r
            })
            .map(std::sync::Arc::new)
            .collect();
        let s = Summary::from_stored(&Stored {
            runs,
            ..Default::default()
        })
        .view(&View {
            noise_cv: 10.0,
            ..Default::default()
        });
        s.cell_note(&s.rows[0], Bench::NumComb)
    };
    // A person's three runs: the first builds the caches, the next are faster.
    let warm = with(&[(6.1, Cold), (0.06, Warm), (0.07, Warm)]).unwrap();
    assert!(
        warm.starts_with("run 1 started cold (nothing of this program"),
        "{warm}"
    );
    assert_eq!(with(&[(0.07, Warm), (0.06, Warm), (0.07, Warm)]), None);
    let first = with(&[(1.0, Cold), (1.2, Warm), (1.1, Warm)]).unwrap();
    assert!(
        first.contains("the fastest run was the cell's first"),
        "{first}"
    );
    let all = with(&[(6.1, Cold), (6.0, Cold), (6.2, Cold)]).unwrap();
    assert!(all.contains("--cold-caches"), "{all}");
    // Records from before caches were recorded say nothing.
    let mut old = rec("go", Bench::NumComb, 1, 1.0, Status::Ok);
    old.cache = None;
    let s = Summary::from_stored(&Stored {
        runs: crate::testing::shared(vec![old]),
        ..Default::default()
    });
    assert_eq!(s.cell_note(&s.rows[0], Bench::NumComb), None);
}

/// The lead's fresh machine: `--runs 3` of go and crystal-release,
/// run 1 cold. The cold compile is the caches' warm-up, not noise: the
/// spread, the noisy flag, the range and the shared-rank rule are the
/// warm runs'; the figure is still the best of all three.
#[test]
fn a_cold_first_run_is_not_noise() {
    use crate::record::CacheStart::{Cold, Warm};
    let cell = |variant: &str, runs: &[(f64, crate::record::CacheStart)]| {
        runs.iter()
            .enumerate()
            .map(|(i, &(wall, cache))| {
                testing::run(variant, Bench::NumComb)
                    .nth(i as u32 + 1)
                    .wall(wall)
                    .cache(cache)
                    .record()
            })
            .collect::<Vec<_>>()
    };
    let runs = [
        cell("go", &[(7.07, Cold), (0.466, Warm), (0.461, Warm)]),
        cell("crystal", &[(12.5, Cold), (1.79, Warm), (1.54, Warm)]),
    ]
    .concat();
    let stored = Stored {
        runs: crate::testing::shared(runs),
        ..Default::default()
    };
    let s = Summary::from_stored(&stored);
    let (go, crystal) = (&s.rows[0], &s.rows[1]);
    let c = &go.cells[&Bench::NumComb];
    assert_eq!(c.wall_s(), Some(0.461));
    let spread = c.spread.unwrap();
    assert_eq!((spread.runs, spread.min, spread.max), (2, 0.461, 0.466));
    assert!(spread.cv < 0.01, "{spread:?}");
    assert_eq!(
        c.cold_left_out,
        [ColdRun {
            run: 1,
            wall_s: 7.07
        }]
    );
    assert_eq!(c.noisy(s.noise_cv), None);
    assert_eq!(c.flag(s.noise_cv), None);
    assert_eq!(c.interval(), Some((0.461, 0.466)));
    // The figure plain, no ±143%; ranks 1 and 2, not =1 and =1.
    assert_eq!(s.row_texts(go)[3], "0.46");
    let ranks: Vec<String> = s.ranks().iter().map(|r| r.unwrap().text()).collect();
    assert_eq!(ranks, ["1", "2"]);
    let note = s.cell_note(go, Bench::NumComb).unwrap();
    assert_eq!(
        note,
        "run 1 started cold (nothing of this program in its toolchain caches yet: empty \
         caches, or its first run with them; 7.07 s); not counted in the spread; the figure \
         is a warm run, as a person's second"
    );
    // Crystal's two warm runs do spread 11%: that is noise, and says so.
    let c = &crystal.cells[&Bench::NumComb];
    assert_eq!(s.row_texts(crystal)[3], "1.54 ±11%");
    let note = s.cell_note(crystal, Bench::NumComb).unwrap();
    assert!(
        note.starts_with("noisy: 2 warm runs spread 10.6%")
            && note.contains("run 1 started cold (")
            && note.contains("; 12.50 s); not counted in the spread"),
        "{note}"
    );
    assert_eq!(c.interval(), Some((1.54, 1.79)));
    // summary.csv: the spread columns are the warm runs', and say how
    // many cold ones they leave out.
    let table = s.table();
    let col = |key: &str| table.columns.iter().position(|c| c.key == key).unwrap();
    let row = &table.rows[0];
    assert_eq!(row[col("num_comb_runs")].text, "2");
    assert_eq!(row[col("num_comb_cold_excluded")].text, "1");
    assert_eq!(row[col("num_comb_max_s")].text, "0.4660");
    assert_eq!(row[col("max_cv")].text, "0.8%");
    assert!(
        s.meta()
            .iter()
            .any(|(k, v)| k == "Noise" && v.contains("cold"))
    );
    // runs.csv: every run, the cold one with its time, out of the spread.
    let runs = crate::summary::runs::table(&stored, &s);
    let col = |key: &str| runs.columns.iter().position(|c| c.key == key).unwrap();
    let go_runs: Vec<(String, String, String)> = runs
        .all_rows()
        .iter()
        .filter(|r| r[col("variant")].text == "go")
        .map(|r| {
            (
                r[col("wall_s")].text.to_string(),
                r[col("cache")].text.to_string(),
                r[col("in_spread")].text.to_string(),
            )
        })
        .collect();
    let want = [
        ("7.070", "cold", "false"),
        ("0.466", "warm", "true"),
        ("0.461", "warm", "true"),
    ]
    .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()));
    assert_eq!(go_runs, want);
}

/// Every run cold (`--cold-caches`), or too few warm runs to have a
/// spread of their own: every run counts, as before caches were
/// recorded; and a cold figure starts the range.
#[test]
fn without_two_warm_runs_every_run_counts() {
    use crate::record::CacheStart::{Cold, Warm};
    let summary = |runs: &[(f64, crate::record::CacheStart)]| {
        let runs = runs
            .iter()
            .enumerate()
            .map(|(i, &(wall, cache))| {
                testing::run("go", Bench::NumComb)
                    .nth(i as u32 + 1)
                    .wall(wall)
                    .cache(cache)
                    .record()
            })
            .map(std::sync::Arc::new)
            .collect();
        Summary::from_stored(&Stored {
            runs,
            ..Default::default()
        })
    };
    let s = summary(&[(6.1, Cold), (6.0, Cold), (6.9, Cold)]);
    let c = &s.rows[0].cells[&Bench::NumComb];
    assert_eq!(c.spread.unwrap().runs, 3);
    assert!(c.cold_left_out.is_empty());
    assert!(c.noisy(s.noise_cv).is_some(), "6.0–6.9 s spread 7.5%");
    assert_eq!(c.interval(), Some((6.0, 6.9)));
    assert!(!s.meta().iter().any(|(_, v)| v.contains("warm-up")));
    // --runs 2: one cold, one warm; both count (and are noisy).
    let s = summary(&[(7.07, Cold), (0.466, Warm)]);
    let c = &s.rows[0].cells[&Bench::NumComb];
    assert_eq!(c.spread.unwrap().runs, 2);
    assert!(c.noisy(s.noise_cv).is_some());
    let note = s.cell_note(&s.rows[0], Bench::NumComb).unwrap();
    assert!(
        note.contains("counted in the spread (the cell has fewer than two warm runs)"),
        "{note}"
    );
    // The figure a cold run faster than the warm ones: the range starts
    // at the figure and runs to the slowest warm run.
    let s = summary(&[(1.0, Cold), (1.2, Warm), (1.1, Warm)]);
    let c = &s.rows[0].cells[&Bench::NumComb];
    assert_eq!(c.wall_s(), Some(1.0));
    assert_eq!(c.spread.unwrap().runs, 2);
    assert_eq!(c.interval(), Some((1.0, 1.2)));
    let note = s.cell_note(&s.rows[0], Bench::NumComb).unwrap();
    assert!(
        note.ends_with("the spread counts the warm runs only"),
        "{note}"
    );
}

#[test]
fn newest_session_wins_per_cell() {
    let mut old = rec("a", Bench::Assoc, 1, 5.0, Status::Ok);
    old.session = "old".into();
    let mut new = rec("a", Bench::Assoc, 1, 7.0, Status::Ok);
    new.session = "new".into();
    let other = rec("a", Bench::NumComb, 1, 1.0, Status::Ok);
    let stored = Stored {
        sessions: vec![session("s1"), session("old"), session("new")],
        runs: crate::testing::shared(vec![other, new, old]),
        ..Default::default()
    };
    let s = Summary::from_stored(&stored);
    assert_eq!(s.rows[0].cells[&Bench::Assoc].wall_s(), Some(7.0));
    assert_eq!(s.rows[0].sum_s(), 8.0);
}

#[test]
fn a_row_cut_short_is_partial_not_ranked_as_complete() {
    // "cut" was interrupted after assoc: its one fast cell must not put
    // it above a row that ran every benchmark.
    let stored = Stored {
        runs: crate::testing::shared(vec![
            rec("full", Bench::Assoc, 1, 2.0, Status::Ok),
            rec("full", Bench::NumComb, 1, 3.0, Status::Ok),
            rec("cut", Bench::Assoc, 1, 1.0, Status::Ok),
        ]),
        ..Default::default()
    };
    let s = Summary::from_stored(&stored);
    let order: Vec<_> = s.rows.iter().map(|r| r.variant.as_str()).collect();
    assert_eq!(order, ["full", "cut"]);
    let cut = &s.rows[1];
    assert!(!cut.complete());
    assert_eq!(cut.missing, [Bench::NumComb]);
    let texts = s.row_texts(cut);
    assert_eq!(texts[5], "not run");
    assert_eq!(texts[7], "partial");
    assert_eq!(cut.total_s(), None);
    assert!(
        s.notes()[0]
            .to_string()
            .starts_with("Cut · cut / num-comb: not run"),
        "{:?}",
        s.notes()
    );
}

#[test]
fn rows_without_figures_skips_and_missing_programs_say_what_they_are() {
    let session = SessionRecord {
        variants: vec![variant("half", &[Bench::Assoc])],
        ..session("s1")
    };
    let stored = Stored {
        sessions: vec![session],
        runs: crate::testing::shared(vec![
            rec("dead", Bench::Assoc, 1, 0.1, Status::Crashed),
            rec("dead", Bench::Assoc, 2, 0.0, Status::Skipped),
            rec("dead", Bench::Assoc, 3, 0.0, Status::Skipped),
            rec("dead", Bench::NumComb, 1, 0.1, Status::Failed),
            rec("half", Bench::Assoc, 1, 1.0, Status::Ok),
        ]),
        ..Default::default()
    };
    let s = Summary::from_stored(&stored);
    let dead = s.rows.iter().find(|r| r.variant == "dead").unwrap();
    let texts = s.row_texts(dead);
    assert_eq!(
        texts[7], "-",
        "no figure is no total, never -0.00: {texts:?}"
    );
    let notes: Vec<String> = s.notes().iter().map(|n| n.to_string()).collect();
    let notes = notes.join("\n");
    assert!(
        notes.contains("Dead · dead / assoc: crashed (1 of 1 run; 2 more skipped after it)"),
        "{notes}"
    );
    let half = s.rows.iter().find(|r| r.variant == "half").unwrap();
    assert_eq!(half.no_program, [Bench::NumComb]);
    assert!(half.missing.is_empty());
    assert_eq!(s.row_texts(half)[5], "n/a");
    assert!(notes.contains("Half · half / num-comb: n/a: the variant has no num-comb program"));
    assert!(!notes.contains("half / num-comb: not run"), "{notes}");
}

#[test]
fn newlines_and_escape_codes_in_names_stay_out_of_tables() {
    let mut r = rec("evil", Bench::Assoc, 1, 1.0, Status::Ok);
    r.flags = "evil\n| x | y |\x1b[31mred".into();
    r.language = "L\r\nM".into();
    let s = Summary::from_stored(&Stored {
        runs: crate::testing::shared(vec![r]),
        ..Default::default()
    });
    let doc = s.document();
    let md = String::from_utf8(
        langbench_document::export::Exporter::render(
            &langbench_document::export::markdown::Markdown,
            &doc,
        )
        .unwrap(),
    )
    .unwrap();
    let row = md.lines().find(|l| l.contains("evil")).unwrap();
    assert!(!row.contains('\x1b'), "{row}");
    // 8 columns: 9 cell borders; the pipes of the flags are escaped.
    assert_eq!(row.matches(" |").count() + 1, 9, "{row}");
    assert!(row.contains("evil \\| x \\| y \\|red"), "{row}");
    let term = langbench_document::export::terminal::document(&doc);
    assert!(!term.contains('\x1b') && !term.contains("L\r"), "{term}");
}

#[test]
fn rows_within_each_others_noise_share_a_rank() {
    // (total, slowest total): b is within a's runs, c is not; d within
    // c's; e within d's but not c's: e ties with d, and three rows (a, b,
    // c) are certainly faster than it (issue #60: judged pair by pair, a
    // chain neither grows one group nor is cut at a group's first row).
    let r = ranks(&[
        Some((10.0, 10.5)),
        Some((10.3, 10.9)),
        None,
        Some((11.0, 12.0)),
        Some((11.9, 12.5)),
        Some((12.2, 12.3)),
    ]);
    let shown: Vec<String> = r
        .iter()
        .map(|r| r.map_or("-".into(), |r| r.text()))
        .collect();
    assert_eq!(shown, ["=1", "=1", "-", "=3", "=3", "=4"]);
}

/// Ranks without artefacts (issue #60): a chain of rows 2 % apart at a
/// precision of 5 % is never split at a group's first row. Each row ties
/// with the rows within 5 % of it and its place is 1 + the rows more than
/// 5 % ahead: neighbours always tie, places climb one at a time. Rows of
/// one precision tie exactly when closer than it.
#[test]
fn a_chain_two_percent_apart_is_not_split_at_a_groups_first_row() {
    let keys: Vec<Option<RankKey>> = (0..8)
        .map(|i| {
            let f = 1.02f64.powi(i);
            Some(RankKey {
                figure: f,
                lo: f,
                hi: f,
                precision: 0.05,
            })
        })
        .collect();
    let r: Vec<String> = ranks_within(&keys)
        .iter()
        .map(|r| r.unwrap().text())
        .collect();
    assert_eq!(r, ["=1", "=1", "=1", "=2", "=3", "=4", "=5", "=6"]);
    let pair = |a: f64, b: f64| {
        let k = |f: f64| {
            Some(RankKey {
                figure: f,
                lo: f,
                hi: f,
                precision: 0.05,
            })
        };
        ranks_within(&[k(a), k(b)])
            .iter()
            .map(|r| r.unwrap().text())
            .collect::<Vec<_>>()
    };
    assert_eq!(pair(1.0, 1.049), ["=1", "=1"]);
    assert_eq!(pair(1.0, 1.051), ["1", "2"]);
    // Any order in, the same ranks out.
    let mut rev = keys.clone();
    rev.reverse();
    let back: Vec<String> = ranks_within(&rev)
        .iter()
        .rev()
        .map(|r| r.unwrap().text())
        .collect();
    assert_eq!(back, r);
}

#[test]
fn interrupted_cells_and_variants_never_started_say_so() {
    let session = SessionRecord {
        runs: 3,
        variants: vec![
            variant("done", &[Bench::Assoc]),
            variant("cut", &[Bench::Assoc]),
            variant("later", &[Bench::Assoc]),
        ],
        ..session("s1")
    };
    let stored = Stored {
        sessions: vec![session],
        runs: crate::testing::shared(vec![
            rec("done", Bench::Assoc, 1, 1.0, Status::Ok),
            rec("done", Bench::Assoc, 2, 1.0, Status::Ok),
            rec("done", Bench::Assoc, 3, 1.0, Status::Ok),
            rec("cut", Bench::Assoc, 1, 2.0, Status::Ok),
            rec("cut", Bench::Assoc, 2, 2.0, Status::Ok),
        ]),
        ..Default::default()
    };
    let s = Summary::from_stored(&stored);
    let order: Vec<_> = s.rows.iter().map(|r| r.variant.as_str()).collect();
    assert_eq!(order, ["done", "cut", "later"]);
    assert_eq!(s.row_texts(&s.rows[1])[3], "2.00 (2 of 3 runs)");
    let later = s.row_texts(&s.rows[2]);
    assert_eq!(
        (later[3].as_str(), later[5].as_str()),
        ("not run", "not run")
    );
    assert_eq!(s.rows[2].state(), "not run");
    let notes: Vec<String> = s.notes().iter().map(|n| n.to_string()).collect();
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("Cut · cut / assoc: 2 of 3 runs")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("Later · later: not run")),
        "{notes:?}"
    );
    // What to do about it is the terminal's, never a published file's.
    let md = String::from_utf8(
        langbench_document::export::Exporter::render(
            &langbench_document::export::markdown::Markdown,
            &s.document(),
        )
        .unwrap(),
    )
    .unwrap();
    assert!(
        !md.contains("--resume") && !md.contains("quiet the machine"),
        "{md}"
    );
    assert!(
        s.terminal_text()
            .contains("to do: 1 cell(s) not run and 1 with fewer runs")
    );
}

/// The geometric mean of a row's ratios to each benchmark's fastest: the
/// Benchmarks Game's summary, where a long benchmark weighs no more than a
/// short one (issue #40, "the Total column"). Computed here by hand.
#[test]
fn the_geometric_mean_weighs_every_benchmark_the_same() {
    let ok = Status::Ok;
    let stored = Stored {
        runs: crate::testing::shared(vec![
            // a: fastest at assoc (10 s), 4x the fastest at num_comb.
            rec("a", Bench::Assoc, 1, 10.0, ok),
            rec("a", Bench::NumComb, 1, 0.4, ok),
            // b: 2x at assoc (its total is the larger), fastest at num_comb.
            rec("b", Bench::Assoc, 1, 20.0, ok),
            rec("b", Bench::NumComb, 1, 0.1, ok),
            // c: no num_comb time: no mean.
            rec("c", Bench::Assoc, 1, 10.0, ok),
            rec("c", Bench::NumComb, 1, 1.0, Status::Crashed),
        ]),
        ..Default::default()
    };
    let s = Summary::from_stored(&stored);
    let table = s.table();
    let col = |key: &str| table.columns.iter().position(|c| c.key == key).unwrap();
    let mean = |variant: &str| {
        let row = table
            .rows
            .iter()
            .find(|r| r[col("variant")].text == variant)
            .unwrap();
        row[col("geomean_relative")].clone()
    };
    // a: sqrt(1 * 4) = 2; b: sqrt(2 * 1) = 1.41; the totals rank a first.
    assert_eq!(mean("a").text, "×2.00");
    assert_eq!(mean("b").text, "×1.41");
    assert_eq!(mean("c").text, "");
}

/// The notes under the table tell the noise in one line, apart from a
/// program's own problems (issue #40: 95 of 118 notes were one noisy cell
/// each, three screens before the first chart); each noisy cell keeps its
/// spread in its own note (the page's tooltip).
#[test]
fn noisy_cells_are_one_note_apart_from_a_programs_problems() {
    let mut runs = Vec::new();
    for v in ["a", "b", "c"] {
        for (i, w) in [2.0, 1.5, 1.7].into_iter().enumerate() {
            runs.push(rec(v, Bench::Assoc, i as u32 + 1, w, Status::Ok));
        }
    }
    runs.push(rec("d", Bench::Assoc, 1, 1.0, Status::BadExit));
    let s = Summary::from_stored(&Stored {
        runs: crate::testing::shared(runs),
        ..Default::default()
    });
    let notes = s.notes();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[0].key.ends_with(" / assoc"), "{notes:?}");
    assert!(!notes[0].text.contains("noisy"), "{notes:?}");
    assert_eq!(notes[1].key, "Noisy (3 of 3 cells)");
    assert!(
        notes[1].text.contains("assoc 3") && notes[1].text.contains("the machine's noise"),
        "{}",
        notes[1].text
    );
    assert!(notes.iter().all(|n| !n.text.starts_with("noisy:")));
    let a = s.rows.iter().find(|r| r.variant == "a").unwrap();
    assert!(
        s.cell_note(a, Bench::Assoc)
            .unwrap()
            .starts_with("noisy: 3 runs spread")
    );
}

/// A session that only carried cells on after `--resume` (their third
/// runs, continuing the second session, which continued the first) is
/// one of the table's sessions: results/2026 said "6 sessions" where
/// its records hold 7 (issue #60). It is counted, listed, and its
/// machine-state warning is under the table.
#[test]
fn a_session_that_only_continued_cells_is_counted() {
    let cell = |run: u32, s: &str, continues: Option<&str>| RunRecord {
        continues: continues.map(String::from),
        finished_at: format!("2026-01-0{run}T00:00:00Z"),
        ..testing::run("a", Bench::Assoc)
            .nth(run)
            .session(s)
            .wall(1.0 + run as f64 / 10.0)
            .record()
    };
    let loud = SessionRecord {
        hygiene: Some(crate::hygiene::Hygiene {
            warnings: vec!["load average 4.00 on 2 CPUs: other work is running".into()],
            ..Default::default()
        }),
        ..session("s3")
    };
    let stored = Stored {
        sessions: vec![session("s1"), session("s2"), loud],
        runs: testing::shared(vec![
            cell(1, "s1", None),
            cell(2, "s2", Some("s1")),
            cell(3, "s3", Some("s2")),
        ]),
        ..Default::default()
    };
    let s = Summary::from_stored(&stored);
    assert_eq!(s.rows[0].cells[&Bench::Assoc].runs.len(), 3);
    let measured = s
        .meta()
        .into_iter()
        .find(|(k, _)| k == "Measured")
        .unwrap()
        .1;
    assert!(measured.contains("in 3 sessions"), "{measured}");
    let details = s.details();
    assert_eq!(details.len(), 3, "{details:?}");
    assert!(details[2].0.contains("s3") && details[2].1.contains("1 cell"));
    let notes = s.notes();
    assert!(
        notes
            .iter()
            .any(|n| n.text.contains("session s3 (1 cell of this table)")
                && n.text.contains("load average 4.00")),
        "{notes:?}"
    );
}

/// The memory probe (issue #60): a run measured after a probe more than
/// 25 % slower than its session's median (over the probes of its runs and
/// of the reference passes) is flagged in its cell's note; the others,
/// and a session with too few probes, are not.
#[test]
fn a_run_measured_while_the_memory_probe_was_slow_is_flagged() {
    let probe = |touch_s: f64| crate::mem_probe::MemProbe {
        mib: 512,
        touch_s,
        free_s: 0.02,
        minor_faults: 131_072,
    };
    let run = |variant: &str, run: u32, touch_s: f64| RunRecord {
        probe: Some(probe(touch_s)),
        ..rec(
            variant,
            Bench::Assoc,
            run,
            2.0 + run as f64 / 100.0,
            Status::Ok,
        )
    };
    let reference = |block: u32, touch_s: f64| RunRecord {
        probe: Some(probe(touch_s)),
        block: Some(block),
        ..rec("ref", Bench::Assoc, block + 1, 1.0, Status::Ok)
    };
    let stored = Stored {
        sessions: vec![session(testing::SESSION)],
        runs: testing::shared(vec![
            run("a", 1, 0.20),
            run("a", 2, 0.41),
            run("a", 3, 0.21),
            run("b", 1, 0.19),
            run("b", 2, 0.24),
        ]),
        references: vec![reference(0, 0.2), reference(1, 0.22)],
        ..Default::default()
    };
    let s = Summary::from_stored(&stored);
    let row = |v: &str| s.rows.iter().find(|r| r.variant == v).unwrap();
    let a = s.cell_note(row("a"), Bench::Assoc).unwrap_or_default();
    assert!(
        a.contains(
            "memory slow: the host's memory was slow before run 2 (its memory probe 1.31 GB/s \
             against its session's median 2.56 GB/s, 95 % slower) (flagged beyond 25 % slower)"
        ),
        "{a}"
    );
    let b = s.cell_note(row("b"), Bench::Assoc).unwrap_or_default();
    assert!(
        !b.contains("memory slow"),
        "20 % slower is not far off: {b}"
    );
    let json = serde_json::to_value(&row("a").cells[&Bench::Assoc]).unwrap();
    assert_eq!(json["slow_memory"][0]["run"], 2, "{json}");

    // Two probes in a session: no median, nothing flagged.
    let few = Stored {
        sessions: vec![session(testing::SESSION)],
        runs: testing::shared(vec![run("a", 1, 0.2), run("a", 2, 0.8)]),
        ..Default::default()
    };
    let s = Summary::from_stored(&few);
    let note = s.cell_note(&s.rows[0], Bench::Assoc).unwrap_or_default();
    assert!(!note.contains("memory slow"), "{note}");
}
