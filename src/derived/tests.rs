//! Snapshots of every output format, rendered from one fixed set of
//! records: the derived files `langbench report` writes (terminal text,
//! Markdown, CSV, JSON, HTML, SVG charts, xlsx) for a measured edition, a
//! published one and a ws-echo one, and `langbench compare` of two of
//! them. They lock the outputs byte for byte, so a change that alters one
//! shows as a snapshot diff (`cargo insta review`, or read the `.snap.new`
//! file beside the snapshot). Volatile parts are replaced, never dropped:
//! `generated_at` in results.json and the xlsx creation time.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::bench::Bench::{self, Assoc, NumComb, StrComb};
use crate::compare::edition::{Edition, Options};
use crate::compare::table::compare;
use crate::config::Languages;
use crate::record::CacheStart::{Cold, Warm};
use crate::record::{RunRecord, SessionRecord, Status};
use crate::store::Store;
use crate::summary::View;
use crate::testing::{self, run, session, variant};
use crate::ws_record::{WS_RECORDS, WsRecord, WsStatus};
use langbench_spawn::Exit;

const CPU: [Bench; 3] = [Assoc, NumComb, StrComb];

/// N of each benchmark at the 2021 size.
fn n(b: Bench) -> u64 {
    crate::bench::Size::Ed2021.n(b)
}

/// `runs` runs of one cell with these wall times, in `session`.
fn cell(
    session: &str,
    id: &str,
    names: (&str, &str, &str),
    b: Bench,
    walls: &[f64],
    rss: u64,
) -> Vec<RunRecord> {
    walls
        .iter()
        .enumerate()
        .map(|(i, w)| {
            run(id, b)
                .session(session)
                .names(names.0, names.1, names.2)
                .size("2021", n(b))
                .nth(i as u32 + 1)
                .wall(*w)
                .rss(rss + i as u64 * 8)
                .record()
        })
        .collect()
}

/// A first run that settles its cell (timeout, crash, failure), then the
/// runs it skipped.
fn settled(first: RunRecord, runs: u32) -> Vec<RunRecord> {
    let skipped = |k| RunRecord {
        attempt: k,
        wall_s: 0.0,
        user_s: 0.0,
        max_rss_kb: 0,
        tree_cpu_s: None,
        tree_max_rss_kb: None,
        exit: None,
        status: Status::Skipped,
        detail: Some("skipped: an earlier run settled the cell".into()),
        ..first.clone()
    };
    std::iter::once(first.clone())
        .chain((2..=runs).map(skipped))
        .collect()
}

const S1: &str = "20260301T080000Z-100";
const S2: &str = "20260302T080000Z-200";

/// A measured 2021-size edition: every status a cell can have, a noisy
/// cell, a row cut short, a variant without a program, one not installed,
/// and a cell run again in a later session (the newer runs win).
fn measured() -> (Vec<SessionRecord>, Vec<RunRecord>) {
    let runs = [
        correct(),
        flagged(),
        failed(),
        contained(),
        incomplete(),
        rerun(),
    ]
    .concat();
    (measured_sessions(), runs)
}

const GCC: (&str, &str, &str) = ("C", "gcc -O2", "14.2.0");

/// The session that ran everything, and the later one that ran c-gcc
/// assoc again.
fn measured_sessions() -> Vec<SessionRecord> {
    let all = [Assoc, NumComb, StrComb];
    vec![
        SessionRecord {
            session: S1.into(),
            started_at: "2026-03-01T08:00:00Z".into(),
            command_line: ["langbench", "run"].map(String::from).to_vec(),
            size: "2021".into(),
            variants: ["c-gcc", "python3", "c-tcc", "ruby", "java", "zig", "dart"]
                .iter()
                .map(|id| variant(id, &all))
                .chain([variant("half", &[Assoc])])
                .collect(),
            ..session(S1)
        },
        SessionRecord {
            session: S2.into(),
            started_at: "2026-03-02T08:00:00Z".into(),
            command_line: ["langbench", "run", "--lang", "c-gcc", "--bench", "assoc"]
                .map(String::from)
                .to_vec(),
            size: "2021".into(),
            variants: vec![variant("c-gcc", &all)],
            ..session(S2)
        },
    ]
}

/// Correct cells: c-gcc (its first assoc runs, superseded), python3 with a
/// noisy assoc.
fn correct() -> Vec<RunRecord> {
    let mut runs = Vec::new();
    // c-gcc: assoc first in S1, then again in S2 (faster: S2 is shown).
    runs.extend(cell(S1, "c-gcc", GCC, Assoc, &[3.0, 3.1, 3.05], 401_000));
    runs.extend(cell(S1, "c-gcc", GCC, NumComb, &[0.52, 0.51, 0.53], 1_800));
    runs.extend(cell(S1, "c-gcc", GCC, StrComb, &[1.01, 1.02, 1.0], 2_500));
    let py = ("Python", "python3", "3.13.5");
    runs.extend(cell(S1, "python3", py, Assoc, &[9.1, 9.8, 11.2], 1_500_000));
    runs.extend(cell(S1, "python3", py, NumComb, &[6.0, 6.1, 6.05], 9_800));
    runs.extend(cell(S1, "python3", py, StrComb, &[8.1, 8.0, 8.2], 10_100));
    runs
}

/// Flagged cells with figures: c-tcc exits 25 on assoc, wrong output on
/// num-comb.
fn flagged() -> Vec<RunRecord> {
    let mut runs = Vec::new();
    let tcc = ("C", "tcc -run", "0.9.28rc");
    for (i, w) in [2.5, 2.6, 2.55].into_iter().enumerate() {
        runs.push(
            run("c-tcc", Assoc)
                .session(S1)
                .names(tcc.0, tcc.1, tcc.2)
                .size("2021", n(Assoc))
                .nth(i as u32 + 1)
                .wall(w)
                .rss(390_000)
                .status(Status::BadExit)
                .exit(Some(Exit::Exited(25)))
                .detail("exited 25 after printing the right output")
                .record(),
        );
    }
    for k in 1..=3 {
        runs.push(
            run("c-tcc", NumComb)
                .session(S1)
                .names(tcc.0, tcc.1, tcc.2)
                .size("2021", n(NumComb))
                .nth(k)
                .wall(0.6)
                .rss(1_700)
                .status(Status::WrongOutput)
                .detail("output differs: expected `0 1 10000000`, got `0 1 9999999`")
                .record(),
        );
    }
    runs.extend(cell(S1, "c-tcc", tcc, StrComb, &[1.3, 1.31, 1.32], 2_400));
    runs
}

/// Cells that settle at their first run: ruby times out, crashes, fails.
fn failed() -> Vec<RunRecord> {
    let mut runs = Vec::new();
    let rb = |b: Bench| {
        run("ruby", b)
            .session(S1)
            .names("Ruby", "ruby", "3.3.8")
            .size("2021", n(b))
    };
    runs.extend(settled(
        rb(Assoc)
            .wall(1000.0)
            .rss(2_900_000)
            .status(Status::Timeout)
            .detail("killed after the 1000 s timeout")
            .record(),
        3,
    ));
    runs.extend(settled(
        rb(NumComb)
            .wall(0.2)
            .rss(52_000)
            .status(Status::Crashed)
            .detail("killed by signal 11 (SIGSEGV); stderr: Segmentation fault")
            .record(),
        3,
    ));
    runs.extend(settled(
        rb(StrComb)
            .wall(0.1)
            .rss(20_000)
            .status(Status::Failed)
            .detail("exited 1; stderr: undefined method `comb' for an instance of Integer (NoMethodError)")
            .record(),
        3,
    ));
    runs
}

/// The containment statuses: java killed at the memory limit, its
/// num-comb escaped, its str-comb with build time and tree figures.
fn contained() -> Vec<RunRecord> {
    let mut runs = Vec::new();
    let jv = |b: Bench| {
        run("java", b)
            .session(S1)
            .names("Java", "java", "21.0.5")
            .size("2021", n(b))
    };
    runs.extend(settled(
        jv(Assoc)
            .wall(4.2)
            .rss(2_048_000)
            .tree(4.9, 2_050_000)
            .status(Status::Oom)
            .detail("killed at --memory-limit 2000 MB (tree peak 2,050,000 KB)")
            .record(),
        3,
    ));
    for (i, w) in [1.2, 1.25, 1.22].into_iter().enumerate() {
        runs.push(
            jv(NumComb)
                .nth(i as u32 + 1)
                .wall(w)
                .rss(60_000)
                .tree(9.0, 61_000)
                .status(Status::Escaped)
                .detail("processes it did not wait for used 7.8 s of CPU (its own: 1.2 s)")
                .record(),
        );
    }
    for (i, w) in [2.0, 2.1, 2.05].into_iter().enumerate() {
        runs.push(
            jv(StrComb)
                .nth(i as u32 + 1)
                .wall(w)
                .rss(80_000)
                .tree(2.5, 80_500)
                .build_wall(0.8)
                .record(),
        );
    }
    runs
}

/// Rows without every figure: zig cut short, half without programs, dart
/// not installed.
fn incomplete() -> Vec<RunRecord> {
    let mut runs = Vec::new();
    // zig: cut short after its first benchmark (num-comb, str-comb: not
    // run); its first run started on empty caches (cold: left out of the
    // spread, its note says so).
    let zig = ("Zig", "zig build-exe -O ReleaseFast", "0.14.1");
    let mut z = cell(S1, "zig", zig, Assoc, &[9.4, 1.9, 1.92], 300_000);
    for (r, cache) in z.iter_mut().zip([Cold, Warm, Warm]) {
        r.cache = Some(cache);
    }
    runs.extend(z);
    // half: has an assoc program only (the others: n/a).
    runs.extend(cell(
        S1,
        "half",
        ("Half", "half", "1.0"),
        Assoc,
        &[4.0, 4.1, 4.05],
        1_000,
    ));
    for b in CPU {
        runs.push(
            run("dart", b)
                .session(S1)
                .names("Dart", "dart run", "")
                .size("2021", n(b))
                .nth(0)
                .wall(0.0)
                .rss(0)
                .status(Status::NotInstalled)
                .detail("dart is not on PATH (apt-get install dart)")
                .record(),
        );
    }
    runs
}

/// The newer c-gcc assoc runs (S2): these are shown.
fn rerun() -> Vec<RunRecord> {
    let mut runs = Vec::new();
    // The newer c-gcc assoc runs (S2).
    runs.extend(
        cell(S2, "c-gcc", GCC, Assoc, &[2.1, 2.12, 2.11], 400_000)
            .into_iter()
            .map(|mut r| {
                r.build_wall_s = Some(0.3);
                r.tree_cpu_s = Some(r.wall_s);
                r.tree_max_rss_kb = Some(r.max_rss_kb);
                r
            }),
    );
    runs
}

/// A published 2021 edition as `langbench import` stores it: one record
/// per cell, a did-not-finish cell, a row known by an alias, a variant
/// dropped since.
fn published() -> (Vec<SessionRecord>, Vec<RunRecord>) {
    let id = "published-2021";
    let s = SessionRecord {
        command_line: [
            "langbench",
            "import",
            "edition-2021.csv",
            "--edition",
            "2021",
        ]
        .map(String::from)
        .to_vec(),
        size: "2021".into(),
        timeout_s: 0.0,
        machine: crate::machine::Machine {
            cpu_model: "a 32-core server (model not published)".into(),
            cpus: 32,
            usable_cpus: 32,
            os: "Ubuntu 21.10 (64-bit)".into(),
            ..Default::default()
        },
        origin: crate::record::Origin::Published,
        source: Some("the 2021 edition's CSV, measured by hand with /usr/bin/time".into()),
        ..session(id)
    };
    let p = |vid: &str, names: (&str, &str, &str), b: Bench, wall: f64, rss: u64| {
        run(vid, b)
            .session(id)
            .names(names.0, names.1, names.2)
            .size("2021", n(b))
            .wall(wall)
            .rss(rss)
            .published()
            .record()
    };
    let gcc = ("C", "gcc -O2", "11.2.0");
    let tcc = ("C", "tcc -run", "0.9.27");
    let py = ("Python", "python3", "3.9.7");
    let rb = ("Ruby", "ruby --jit", "3.0.2");
    let js = ("JavaScript", "v8", "9.7");
    let mut runs = vec![
        p("c-gcc", gcc, Assoc, 2.5, 380_000),
        p("c-gcc", gcc, NumComb, 0.6, 1_700),
        p("c-gcc", gcc, StrComb, 1.2, 2_300),
        p("c-tcc", tcc, Assoc, 2.9, 381_000),
        p("c-tcc", tcc, NumComb, 0.7, 1_600),
        p("c-tcc", tcc, StrComb, 1.4, 2_200),
        p("python3", py, Assoc, 10.7, 1_400_000),
        p("python3", py, NumComb, 7.7, 9_000),
        p("python3", py, StrComb, 9.9, 9_500),
        p("ruby-jit", rb, NumComb, 3.3, 40_000),
        p("ruby-jit", rb, StrComb, 12.08, 44_000),
        p("javascript-v8", js, Assoc, 5.5, 900_000),
        p("javascript-v8", js, NumComb, 1.1, 45_000),
        p("javascript-v8", js, StrComb, 2.2, 47_000),
    ];
    let mut dnf = p("ruby-jit", rb, Assoc, 0.0, 3_100_000);
    dnf.status = Status::DidNotFinish;
    dnf.detail = Some("published as 999.99: stopped by hand".into());
    runs.insert(9, dnf);
    (vec![s], runs)
}

const WS_SESSION: &str = "20260303T080000Z-300-ws";

/// A measured ws-echo edition: a clean server, one with lost echoes, one
/// that crashed in its second phase, and one measured twice (the newer
/// record wins).
fn ws_measured() -> (Vec<SessionRecord>, Vec<WsRecord>) {
    let s = SessionRecord {
        command_line: ["langbench", "ws"].map(String::from).to_vec(),
        size: "ws-echo c=10000".into(),
        runs: 1,
        timeout_s: 10.0,
        variants: ["ws-go-nbio", "ws-node", "ws-crash"]
            .iter()
            .map(|id| variant(id, &[Bench::WsEcho]))
            .collect(),
        ..session(WS_SESSION)
    };
    let in_session = |mut r: WsRecord| {
        r.session = WS_SESSION.into();
        r
    };
    let mut old = in_session(testing::ws("ws-node"));
    old.version = "22.0.0".into();
    let nbio = in_session(testing::ws("ws-go-nbio"));
    let mut node = in_session(testing::ws("ws-node"));
    node.language = "JavaScript".into();
    node.library = "ws 8.18.0".into();
    node.version = "22.14.0".into();
    let stats = node.phases[1].stats.as_mut().unwrap();
    stats.errors = Some(12);
    stats.error_samples = vec!["lost echo: no answer within 10 s".into()];
    stats.alive = Some(9990);
    node.phases[1].status = WsStatus::Errors;
    node.status = WsStatus::Errors;
    node.detail = Some("12 echo errors, 0 failed handshakes: lost echo".into());
    let mut crash = in_session(testing::ws("ws-crash"));
    crash.language = "Crash".into();
    crash.library = "-".into();
    crash.phases[1].status = WsStatus::Crashed;
    crash.phases[1].stats = None;
    crash.phases[1].client = None;
    crash.phases[1].detail = Some("the server exited during the phase".into());
    crash.status = WsStatus::Crashed;
    crash.server_exit = Some(Exit::Signaled(libc::SIGSEGV));
    crash.clean_shutdown = None;
    (vec![s], vec![old, nbio, node, crash])
}

/// The published ws-echo edition (2023): the figures its CSV gave.
fn ws_published() -> (Vec<SessionRecord>, Vec<WsRecord>) {
    let id = "published-2023";
    let s = SessionRecord {
        command_line: ["langbench", "import", "ws-echo-2023.csv"]
            .map(String::from)
            .to_vec(),
        size: "ws-echo c=10000".into(),
        runs: 1,
        timeout_s: 0.0,
        machine: crate::machine::Machine {
            cpu_model: "not published".into(),
            ..Default::default()
        },
        origin: crate::record::Origin::Published,
        ..session(id)
    };
    let publish = |variant: &str, library: &str, rps: f64| {
        let mut r = testing::ws(variant);
        r.session = id.into();
        r.library = library.into();
        r.version = "go 1.20.5".into();
        r.origin = crate::record::Origin::Published;
        r.opened = 0;
        r.warmup_s = 0.0;
        r.pinned = false;
        r.placement = None;
        r.server_rss_idle_kb = None;
        r.server_exit = None;
        r.server_max_rss_kb = None;
        r.server_user_s = None;
        r.server_sys_s = None;
        r.clean_shutdown = None;
        for p in &mut r.phases {
            p.client = None;
            p.client_bound = false;
            p.client_cores = None;
            p.server_rss_avg_kb = None;
            p.server_waiting_cores = None;
            let s = p.stats.as_mut().unwrap();
            s.rps = rps * 1000.0 / p.delay_ms;
            s.latency_p50_ms = None;
            s.latency_p99_ms = None;
            s.errors = None;
            s.alive = None;
        }
        r
    };
    (
        vec![s],
        vec![
            publish("ws-go-nbio", "nbio 1.3.16", 19157.16),
            publish("ws-gone", "gone 0.1", 9000.0),
        ],
    )
}

/// A results directory holding these records, as the commands write them.
fn directory(
    root: &Path,
    name: &str,
    sessions: &[SessionRecord],
    runs: &[RunRecord],
    ws: &[WsRecord],
) -> Store {
    let store = Store::open(&root.join(name)).unwrap();
    for s in sessions {
        store.append_session(s).unwrap();
    }
    for r in runs {
        store.append_run(r).unwrap();
    }
    for r in ws {
        store.append(WS_RECORDS, r).unwrap();
    }
    store
}

/// A derived file as text for a snapshot: the xlsx as its XML parts, one
/// tag per line, with the creation time replaced; results.json with its
/// `generated_at` replaced.
fn projection(path: &Path) -> String {
    let name = path.file_name().unwrap().to_string_lossy();
    if name.ends_with(".xlsx") {
        return xlsx_text(&std::fs::read(path).unwrap());
    }
    let text = std::fs::read_to_string(path).unwrap();
    if name.ends_with(".json") {
        let re = regex::Regex::new(r#""generated_at": "[^"]*""#).unwrap();
        // provenance.json names its inputs as given: here, temp paths.
        let tmp = regex::Regex::new(r#""shown": "/[^"]*/([^"/]+)""#).unwrap();
        let text = re.replace(&text, r#""generated_at": "[generated_at]""#);
        return tmp
            .replace_all(&text, r#""shown": "[tmp]/$1""#)
            .into_owned();
    }
    text
}

/// Every part of an xlsx workbook (a zip of XML files) in archive order.
fn xlsx_text(bytes: &[u8]) -> String {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let stamp = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ").unwrap();
    let mut out = String::new();
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).unwrap();
        let name = f.name().unwrap().to_string();
        let mut xml = String::new();
        f.read_to_string(&mut xml).unwrap();
        if name == "docProps/core.xml" {
            xml = stamp.replace_all(&xml, "[created]").into_owned();
        }
        out.push_str(&format!("==> {name}\n"));
        if name == "xl/theme/theme1.xml" {
            // rust_xlsxwriter's fixed Office theme: nothing of ours in it.
            out.push_str(&format!("[{} bytes]\n", xml.len()));
            continue;
        }
        out.push_str(&xml.replace("><", ">\n<"));
        out.push('\n');
    }
    out
}

/// Every file of a directory but the records and the lock, sorted.
fn derived_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if !p.to_string_lossy().ends_with(".jsonl")
                && e.file_name() != crate::store::LOCK
            {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// Snapshots every file under `dir` as `<case>@<relative path>`.
fn snapshot_files(case: &str, dir: &Path) {
    let files = derived_files(dir);
    assert!(!files.is_empty(), "{case}: no derived files");
    for f in files {
        let rel = f
            .strip_prefix(dir)
            .unwrap()
            .to_string_lossy()
            .replace('/', "-");
        insta::assert_snapshot!(format!("{case}@{rel}"), projection(&f));
    }
}

/// `langbench report DIR`: the files, and what it prints.
fn report(case: &str, store: &Store, view: View) {
    let derived = super::write_all_with(store, view).unwrap();
    assert!(derived.warnings.is_empty(), "{:?}", derived.warnings);
    insta::assert_snapshot!(
        format!("{case}@terminal"),
        langbench_document::export::terminal::document(&derived.document)
    );
    snapshot_files(case, store.dir());
}

#[test]
fn measured_edition() {
    let tmp = tempfile::tempdir().unwrap();
    let (sessions, runs) = measured();
    let store = directory(tmp.path(), "2026", &sessions, &runs, &[]);
    report("measured", &store, View::default());
}

#[test]
fn measured_edition_with_spread_column_and_lower_noise_threshold() {
    let tmp = tempfile::tempdir().unwrap();
    let (sessions, runs) = measured();
    let store = directory(tmp.path(), "2026", &sessions, &runs, &[]);
    let view = View {
        show_spread: true,
        noise_cv: 0.01,
        ..Default::default()
    };
    let derived = super::write_all_with(&store, view).unwrap();
    insta::assert_snapshot!(
        "spread@terminal",
        langbench_document::export::terminal::document(&derived.document)
    );
    insta::assert_snapshot!(
        "spread@summary.md",
        projection(&store.dir().join(super::SUMMARY_MD))
    );
}

#[test]
fn published_edition() {
    let tmp = tempfile::tempdir().unwrap();
    let (sessions, runs) = published();
    let store = directory(tmp.path(), "2021", &sessions, &runs, &[]);
    report("published", &store, View::default());
}

#[test]
fn ws_edition() {
    let tmp = tempfile::tempdir().unwrap();
    let (sessions, ws) = ws_measured();
    let store = directory(tmp.path(), "2026-ws", &sessions, &[], &ws);
    report("ws", &store, View::default());
}

#[test]
fn shards_from_two_machines() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut sessions, runs) = measured();
    sessions[1].machine.cpu_model = "Other CPU @ 2.00GHz".into();
    sessions[1].shard = Some("2/2".into());
    sessions[0].shard = Some("1/2".into());
    let store = directory(tmp.path(), "merged", &sessions, &runs, &[]);
    let derived = super::write_all(&store).unwrap();
    insta::assert_snapshot!(
        "two-machines@terminal",
        langbench_document::export::terminal::document(&derived.document)
    );
    insta::assert_snapshot!(
        "two-machines@summary.csv",
        projection(&store.dir().join(super::SUMMARY_CSV))
    );
}

/// The languages file the comparison resolves rows with: the published
/// `ruby --jit` row is today's `ruby` through its alias. (Every program is
/// the one file `p`: a comparison runs nothing.)
const LANGUAGES: &str = r#"
[variant.c-gcc]
language = "C"
flags = "gcc -O2"
programs = { assoc = "p", num-comb = "p", str-comb = "p" }

[variant.c-tcc]
language = "C"
flags = "tcc -run"
programs = { assoc = "p", num-comb = "p", str-comb = "p" }

[variant.python3]
language = "Python"
programs = { assoc = "p", num-comb = "p", str-comb = "p" }

[variant.ruby]
language = "Ruby"
programs = { assoc = "p", num-comb = "p", str-comb = "p" }
aliases = ["ruby --jit"]

[variant.java]
language = "Java"
programs = { assoc = "p", num-comb = "p", str-comb = "p" }
"#;

/// Both editions of the comparison, loaded as `compare` loads them, with
/// the directories named as on the command line.
fn editions(root: &Path) -> (Edition, Edition) {
    let (ps, pr) = published();
    let (pws_s, pws) = ws_published();
    let old_sessions: Vec<_> = ps.into_iter().chain(pws_s).collect();
    directory(root, "2021", &old_sessions, &pr, &pws);
    let (ms, mr) = measured();
    let (mws_s, mws) = ws_measured();
    let new_sessions: Vec<_> = ms.into_iter().chain(mws_s).collect();
    directory(root, "2026", &new_sessions, &mr, &mws);
    let load = |name: &str| {
        let mut e = Edition::load(&root.join(name)).unwrap();
        e.dir = PathBuf::from("results").join(name);
        e
    };
    (load("2021"), load("2026"))
}

fn languages(dir: &Path) -> Languages {
    std::fs::write(dir.join("p"), "").unwrap();
    Languages::parse(LANGUAGES, &dir.join("languages.toml")).unwrap()
}

#[test]
fn comparison() {
    use langbench_document::export::Exporter;
    let tmp = tempfile::tempdir().unwrap();
    let (old, new) = editions(tmp.path());
    let langs = languages(tmp.path());
    let doc = compare(&langs, &old, &new, &Options { relative_to: None }).unwrap();
    insta::assert_snapshot!(
        "compare@terminal",
        langbench_document::export::terminal::document(&doc)
    );
    insta::assert_snapshot!(
        "compare@markdown",
        String::from_utf8(
            langbench_document::export::markdown::Markdown
                .render(&doc)
                .unwrap()
        )
        .unwrap()
    );
    insta::assert_snapshot!(
        "compare@csv",
        String::from_utf8(langbench_document::export::csv::Csv.render(&doc).unwrap()).unwrap()
    );
    let out = tmp.path().join("compare-2021-2026");
    let prov = super::provenance::Provenance::new(
        super::provenance::Kind::Comparison,
        &out,
        &[&tmp.path().join("2021"), &tmp.path().join("2026")],
        None,
    )
    .unwrap();
    super::write_comparison(&out, "compare", &doc, &prov).unwrap();
    snapshot_files("compare", &out);
}

#[test]
fn comparison_relative_to_one_variant() {
    let tmp = tempfile::tempdir().unwrap();
    let (old, new) = editions(tmp.path());
    let langs = languages(tmp.path());
    let opts = Options {
        relative_to: Some("c-gcc".into()),
    };
    let doc = compare(&langs, &old, &new, &opts).unwrap();
    insta::assert_snapshot!(
        "compare-relative@terminal",
        langbench_document::export::terminal::document(&doc)
    );
}

/// Every page says what edition it is, when and where it was measured and
/// by which langbench; the sessions are in a details block, not the
/// heading's list of facts.
#[test]
fn every_page_names_its_edition_dates_machine_and_sessions() {
    let tmp = tempfile::tempdir().unwrap();
    let (sessions, runs) = measured();
    let store = directory(tmp.path(), "2026", &sessions, &runs, &[]);
    super::write_all(&store).unwrap();
    let html = std::fs::read_to_string(store.dir().join("report.html")).unwrap();
    let title = "langbench 2026 edition, 2021 sizes, measured 2026-01-01 to 2026-03-02";
    assert!(html.contains(&format!("<title>{title}</title>")), "{html}");
    assert!(html.contains(&format!("<h1>{title}</h1>")));
    assert!(html.contains("<dt>langbench</dt><dd>0.1.0 (revision not recorded)</dd>"));
    assert!(html.contains("<dt>Machine</dt><dd>Test CPU @ 3.00GHz"));
    let details = &html[html.find("<details class=\"details\">").expect("details")..];
    let details = &details[..details.find("</details>").unwrap()];
    assert!(details.contains(S1) && details.contains(S2), "{details}");
    let header = &html[..html.find("<details").unwrap()];
    assert!(!header.contains(S1), "sessions listed in the heading");

    // ws: the machine, the dates and the session too.
    let (sessions, ws) = ws_measured();
    let store = directory(tmp.path(), "2026-ws", &sessions, &[], &ws);
    super::write_all(&store).unwrap();
    let md = std::fs::read_to_string(store.dir().join(super::WS_MD)).unwrap();
    assert!(
        md.starts_with("# langbench ws-echo 2026 edition, measured 2026-01-01\n"),
        "{md}"
    );
    assert!(md.contains("- Machine: Test CPU @ 3.00GHz"), "{md}");
    assert!(
        md.contains(&format!("  - Session {WS_SESSION}: started")),
        "{md}"
    );
}

/// A kernel build string that changed between boots is the same machine:
/// no DIFFERENT HARDWARE, and the kernels are noted.
#[test]
fn a_new_kernel_build_is_noted_not_counted_as_another_machine() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut sessions, runs) = measured();
    sessions[1].machine.kernel = "6.12.0-fc-v857".into();
    sessions[1].machine.memory_kb -= 300;
    let store = directory(tmp.path(), "2026", &sessions, &runs, &[]);
    let derived = super::write_all(&store).unwrap();
    let s = derived.summary.unwrap();
    assert_eq!(s.machines.len(), 1);
    let text = langbench_document::export::terminal::document(&derived.document);
    assert!(!text.contains("DIFFERENT"), "{text}");
    assert!(
        text.contains(
            "Kernel: the machine ran kernels 6.12.0, 6.12.0-fc-v857: builds of one kernel"
        ),
        "{text}"
    );
}

/// An edition whose first session predates `cpu_id` (shard 1 of the 2026
/// edition) still names its machine with the CPU's identity, from the
/// sessions that recorded it.
#[test]
fn the_machine_is_named_by_a_session_that_recorded_its_cpu_id() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut sessions, runs) = measured();
    sessions[0].machine.cpu_id = String::new();
    sessions[1].machine.cpu_id = "AuthenticAMD family 25 model 17 stepping 1, L3 32768K".into();
    let store = directory(tmp.path(), "2026", &sessions, &runs, &[]);
    let derived = super::write_all(&store).unwrap();
    assert_eq!(derived.summary.unwrap().machines.len(), 1);
    let text = langbench_document::export::terminal::document(&derived.document);
    assert!(!text.contains("DIFFERENT"), "{text}");
    assert!(
        text.contains("[AuthenticAMD family 25 model 17 stepping 1, L3 32768K]"),
        "{text}"
    );
}

/// A variant the languages file still has but the new directory never ran
/// is "not run in 2026", not "dropped"; one it no longer has is dropped.
#[test]
fn comparison_tells_not_run_from_dropped() {
    let tmp = tempfile::tempdir().unwrap();
    let (old, new) = editions(tmp.path());
    std::fs::write(tmp.path().join("p"), "").unwrap();
    let with_v8 = format!(
        "{LANGUAGES}\n[variant.javascript-v8]\nlanguage = \"JavaScript\"\nflags = \"v8\"\n\
         programs = {{ assoc = \"p\", num-comb = \"p\", str-comb = \"p\" }}\n"
    );
    let langs = Languages::parse(&with_v8, &tmp.path().join("languages.toml")).unwrap();
    let doc = compare(&langs, &old, &new, &Options { relative_to: None }).unwrap();
    let changes = doc
        .tables
        .iter()
        .find(|t| t.id == "compare-changes")
        .unwrap();
    let v8 = changes
        .rows
        .iter()
        .find(|r| r[3].text == "javascript-v8")
        .unwrap();
    assert_eq!(v8[0].text, "not run in 2026");
    let doc = compare(
        &languages(tmp.path()),
        &old,
        &new,
        &Options { relative_to: None },
    )
    .unwrap();
    let changes = doc
        .tables
        .iter()
        .find(|t| t.id == "compare-changes")
        .unwrap();
    let v8 = changes
        .rows
        .iter()
        .find(|r| r[3].text == "javascript-v8")
        .unwrap();
    assert_eq!(v8[0].text, "dropped");
}

/// The same records give the same bytes: results.json's `generated_at`
/// and the workbook's creation time are the newest record's time, not the
/// clock's (a `report` with nothing new changed both, issue #41).
#[test]
fn a_report_of_the_same_records_writes_the_same_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let (sessions, mut runs) = measured();
    let newest = "2026-03-05T09:15:00Z";
    runs[1].finished_at = newest.into();
    let store = directory(tmp.path(), "2026", &sessions, &runs, &[]);
    let read = |f: &str| std::fs::read(store.dir().join(f)).unwrap();
    super::write_all_with(&store, View::default()).unwrap();
    let (json, xlsx) = (read("results.json"), read("results.xlsx"));
    // A second apart: the clock's time would differ.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    super::write_all_with(&store, View::default()).unwrap();
    assert!(read("results.json") == json, "results.json changed");
    assert!(read("results.xlsx") == xlsx, "results.xlsx changed");
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(v["generated_at"], newest);
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(xlsx)).unwrap();
    let mut core = String::new();
    zip.by_name("docProps/core.xml")
        .unwrap()
        .read_to_string(&mut core)
        .unwrap();
    assert!(core.contains(newest), "{core}");
}

#[test]
fn a_comparison_and_a_history_of_the_same_editions_write_the_same_workbook() {
    use langbench_document::export::Exporter;
    let tmp = tempfile::tempdir().unwrap();
    let (old, new) = editions(tmp.path());
    let langs = languages(tmp.path());
    let opts = Options { relative_to: None };
    let books = || {
        let cmp = compare(&langs, &old, &new, &opts).unwrap();
        let hist = crate::history::table::document(&langs, &[&old, &new], None).unwrap();
        [cmp, hist].map(|d| langbench_document::export::xlsx::Xlsx.render(&d).unwrap())
    };
    let first = books();
    // A second apart: the clock's time would differ.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    assert!(books() == first, "a workbook changed");
    // Stamped with the newer edition's newest record, not today.
    let newest = new.as_of().unwrap();
    assert!(old.as_of().unwrap() < newest);
    for book in first {
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(book)).unwrap();
        let mut core = String::new();
        zip.by_name("docProps/core.xml")
            .unwrap()
            .read_to_string(&mut core)
            .unwrap();
        assert!(core.contains(&newest[..19]), "{newest}: {core}");
    }
}
