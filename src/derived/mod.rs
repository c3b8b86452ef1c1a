//! The derived files' pipeline: everything in a results directory besides
//! its records is derived from them and rewritten whole, atomically, after
//! every run (so it is always current) and by `langbench report DIR` (the
//! records alone). Here each table is built ([`crate::summary`],
//! [`crate::ws_summary`]), rendered in every format ([`langbench_document::export`])
//! and written with the directory's `provenance.json`; a comparison (and a
//! history) directory is written the same way (`write_comparison`).
//! `langbench report DIR...` and `report --check` are the command in
//! [`crate::report`], a layer above: it also rebuilds comparisons and
//! histories, whose tables are above this pipeline.
//!
//! Its face: `write_all` (and `write_all_with`, `write_all_from`),
//! `write_files`, `finish` and `Derived` for the commands that store
//! records; `render_all`, `rewrite`, `comparison_files` (its `Files`)
//! and `write_comparison` for `report`, `compare` and `history`; and
//! [`provenance`]'s `Provenance` (`new`, `read`, `input_dir`, `names`,
//! `changed`), `Kind` and `FILE`; the rest is its inside.

pub mod provenance;
#[cfg(test)]
mod tests;

use anyhow::Result;

use crate::record::{Origin, SessionRecord};
use crate::store::Store;
use crate::summary::{Summary, View, json, measured, runs};
use crate::ws_record::{WS_RECORDS, WsRecord};
use crate::ws_summary;
use langbench_document::export::{Exporter, csv, html, markdown, svg, xlsx};
use langbench_document::{Document, Note};

const SUMMARY_MD: &str = "summary.md";
const SUMMARY_CSV: &str = "summary.csv";
const RUNS_CSV: &str = "runs.csv";
const RESULTS_JSON: &str = "results.json";
const WS_MD: &str = "ws-summary.md";
const WS_CSV: &str = "ws-summary.csv";
const WS_JSON: &str = "ws.json";
const CHARTS_DIR: &str = "charts";
const XLSX: &str = "results.xlsx";

/// The whole results directory as one document: the CPU summary with every
/// run, and the ws table, whichever the directory holds.
pub(crate) struct Derived {
    pub summary: Option<Summary>,
    /// The page (report.html) and the spreadsheet (results.xlsx): every
    /// table and chart of the directory in one document.
    pub document: Document,
    pub warnings: Vec<String>,
}

/// Rewrites every derived file of the store from its records.
pub(crate) fn write_all(store: &Store) -> Result<Derived> {
    write_all_with(store, View::default())
}

/// Derived files rendered in memory: (name in the directory, bytes).
pub(crate) type Files = Vec<(String, Vec<u8>)>;

/// [`write_all`] with rendering options (`--spread`, `--noise-threshold`,
/// the languages file), and the directory's `provenance.json`.
pub(crate) fn write_all_with(store: &Store, view: View) -> Result<Derived> {
    write_loaded(store, Loaded::from(store)?, view, Keep::Summary)
}

/// [`write_all_with`] for a caller that needs the files and the page's
/// document but not the [`Summary`] (`report`, the rewrite after each
/// run): it is dropped before the page and the workbook, the largest
/// files, are rendered; it holds a copy of every run (95 MB at 6,500
/// variants, issue #41).
pub(crate) fn write_files(store: &Store, view: View) -> Result<Derived> {
    write_loaded(store, Loaded::from(store)?, view, Keep::Document)
}

/// What [`render_each`] hands back besides the files.
#[derive(Clone, Copy, PartialEq)]
enum Keep {
    Summary,
    Document,
}

/// [`write_all`] from records the caller already holds, the store's own
/// (merge has just written them): read again, they would be parsed twice,
/// which was a third of a merge's time at scale (issue #41).
pub(crate) fn write_all_from(
    store: &Store,
    stored: crate::store::Stored,
    ws: Vec<crate::ws_record::WsRecord>,
) -> Result<Derived> {
    let loaded = Loaded {
        stored,
        ws,
        ws_warnings: Vec::new(),
    };
    write_loaded(store, loaded, View::default(), Keep::Summary)
}

/// The records the derived files are rendered from.
struct Loaded {
    stored: crate::store::Stored,
    ws: Vec<crate::ws_record::WsRecord>,
    ws_warnings: Vec<String>,
}

impl Loaded {
    fn from(store: &Store) -> Result<Loaded> {
        let stored = store.load()?;
        let (ws, ws_warnings) = ws_summary::load(store)?;
        Ok(Loaded {
            stored,
            ws,
            ws_warnings,
        })
    }
}

fn write_loaded(store: &Store, loaded: Loaded, view: View, keep: Keep) -> Result<Derived> {
    // Each file written as soon as it is rendered and then dropped, not
    // all held at once: at 6,500 variants they are 300 MB (issue #41).
    // The store creates charts/ as it writes the first chart, and never
    // through a link (src/store.rs).
    //
    // The records' digest for provenance.json is taken on a second thread
    // while the summary is built: it reads and hashes every record file
    // again (58 MB at 6,500 variants), and at the end it was the last
    // tenth of a second of a report with one core idle (issue #41). It is
    // of the records as they were just loaded, the ones the files are
    // rendered from (the store is locked).
    std::thread::scope(|scope| {
        let provenance = scope.spawn(|| provenance::Provenance::results(store.dir()));
        let derived = render_each(
            store,
            loaded,
            &view,
            false,
            keep,
            &|name, body| match body {
                Body::Bytes(bytes) => store.write_derived(&name, &bytes),
                Body::Stream(write) => store.write_derived_with(&name, write),
            },
        );
        let provenance = provenance
            .join()
            .map_err(|_| anyhow::anyhow!("digesting the records panicked"))?;
        let derived = derived?;
        provenance?.write(store.dir())?;
        Ok(derived)
    })
}

/// Every derived file of the store, rendered from its records without
/// writing; `data_only`: only the deterministic text files that
/// `report --check` compares (no HTML, spreadsheet, JSON or charts).
pub(crate) fn render_all(store: &Store, view: &View, data_only: bool) -> Result<(Files, Derived)> {
    let files = std::sync::Mutex::new(Files::new());
    let derived = render_each(
        store,
        Loaded::from(store)?,
        view,
        data_only,
        Keep::Summary,
        &|name, body| {
            let bytes = match body {
                Body::Bytes(bytes) => bytes,
                Body::Stream(write) => {
                    let mut bytes = Vec::new();
                    write(&mut bytes)?;
                    bytes
                }
            };
            files
                .lock()
                .map_err(|_| anyhow::anyhow!("rendering a derived file panicked"))?
                .push((name, bytes));
            Ok(())
        },
    )?;
    let files = files
        .into_inner()
        .map_err(|_| anyhow::anyhow!("rendering a derived file panicked"))?;
    Ok((files, derived))
}

/// A derived file's contents as [`render_each`] hands them on: rendered,
/// or written to the file as they are serialized (results.json).
enum Body<'b> {
    Bytes(Vec<u8>),
    Stream(&'b mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>),
}

/// [`render_all`], each file handed to `emit` (name in the directory,
/// bytes) as it is rendered; results.json from a second thread while the
/// tables render, the rest in order (`emit` is called from both, hence
/// `Sync`).
fn render_each(
    store: &Store,
    loaded: Loaded,
    view: &View,
    data_only: bool,
    keep: Keep,
    emit: &(dyn Fn(String, Body) -> Result<()> + Sync),
) -> Result<Derived> {
    let Loaded {
        stored,
        ws: ws_records,
        ws_warnings,
    } = loaded;
    let mut warnings = stored.warnings.clone();
    warnings.extend(ws_warnings);
    let as_of = stored.as_of(ws_records.iter().map(|r| r.finished_at.as_str()));
    let mut whole = Document {
        title: "langbench results".into(),
        as_of: as_of.clone(),
        ..Default::default()
    };
    let languages = parse_languages(view, !data_only && !stored.runs.is_empty());
    let mut summary = (!stored.runs.is_empty()).then(|| Summary::from_stored(&stored).view(view));
    // Where in `whole` the runs table is (runs.csv is written from it).
    let mut runs_at = None;
    if let Some(s) = &summary {
        // results.json (182 MB of JSON at 6,500 variants, an eighth of a
        // report's time) is written on a second thread while the tables
        // are built here: both only read the records and the summary
        // (issue #41).
        let (doc, runs) = std::thread::scope(|scope| -> Result<_> {
            let json = (!data_only).then(|| {
                scope.spawn(|| {
                    let mut write = |w: &mut dyn std::io::Write| {
                        json::write_results(&stored, s, as_of.as_deref(), w)
                    };
                    emit(RESULTS_JSON.into(), Body::Stream(&mut write))
                })
            });
            let tables = summary_tables(s, &stored, data_only, languages, &mut warnings, emit);
            if let Some(json) = json {
                json.join()
                    .map_err(|_| anyhow::anyhow!("writing results.json panicked"))??;
            }
            tables
        })?;
        whole.title = doc.title;
        whole.meta.extend(doc.meta);
        whole.details.extend(doc.details);
        whole.tables.extend(doc.tables);
        runs_at = Some(whole.tables.len());
        whole.tables.push(runs);
        whole.charts.extend(doc.charts);
        whole.advice.extend(doc.advice);
        whole.measured.extend(doc.measured);
    }
    if !ws_records.is_empty() {
        let with_summary = summary.is_some();
        add_ws(
            &mut whole,
            &stored.sessions,
            &ws_records,
            with_summary,
            data_only,
            emit,
        )?;
    }
    // What the document does not need is freed before the page and the
    // workbook, the largest files, are rendered (the runs only when the
    // runs table has made its rows, below: it shares them), on a thread
    // of its own: freeing ~1.5 million allocations took a tenth of a
    // second in front of the page (issue #41).
    let summary_dropped = if keep == Keep::Document {
        summary.take()
    } else {
        None
    };
    std::thread::spawn(move || drop((stored, ws_records, summary_dropped)));
    let runs = runs_at.map(|i| &whole.tables[i]);
    if data_only {
        if let Some(runs) = runs {
            emit_csv(RUNS_CSV, runs, emit)?;
        }
    } else {
        render_charts_page_and_book(&whole, runs, store.dir(), emit)?;
    }
    // The runs the runs table makes its rows from, freed now that the
    // files are written (on a thread of their own, as above): the
    // document handed back keeps that table's columns, not its rows.
    let streamed: Vec<_> = whole
        .tables
        .iter_mut()
        .filter_map(|t| t.streamed.take())
        .collect();
    std::thread::spawn(move || drop(streamed));
    Ok(Derived {
        summary,
        document: whole,
        warnings,
    })
}

/// The languages file of `view` (sources and notes for "what was
/// measured"), parsed on a second thread while the summary is built, when
/// `wanted`: 3 MB of TOML at 6,500 variants, a tenth of a report's time on
/// one core while the other was idle (issue #41).
fn parse_languages(view: &View, wanted: bool) -> Option<Parsing> {
    let p = view.languages.clone().filter(|_| wanted)?;
    Some(std::thread::spawn(move || {
        let langs = crate::config::Languages::load(&p);
        (p, langs)
    }))
}

/// The ws-echo table of `ws_records` (with what its `sessions` say of
/// where and when) added to `whole`, its Markdown, CSV and (unless
/// `data_only`) JSON handed to `emit`; `with_summary`: beside the CPU
/// summary's own.
fn add_ws(
    whole: &mut Document,
    sessions: &[SessionRecord],
    ws_records: &[crate::ws_record::WsRecord],
    with_summary: bool,
    data_only: bool,
    emit: &(dyn Fn(String, Body) -> Result<()> + Sync),
) -> Result<()> {
    let latest = ws_summary::latest(ws_records);
    let mut doc = ws_summary::document(&latest);
    let prov = ws_provenance(sessions, &latest);
    doc.title = prov.title;
    doc.meta.splice(0..0, prov.meta);
    doc.details = prov.details;
    if let Some(t) = doc.tables.first_mut() {
        t.notes.extend(prov.notes);
    }
    emit(WS_MD.into(), Body::Bytes(markdown::Markdown.render(&doc)?))?;
    emit(WS_CSV.into(), Body::Bytes(csv::Csv.render(&doc)?))?;
    if !data_only {
        let mut json = serde_json::to_vec_pretty(ws_records)?;
        json.push(b'\n');
        emit(WS_JSON.into(), Body::Bytes(json))?;
    }
    if !with_summary {
        whole.title = doc.title.clone();
    }
    // Prefixed only beside the CPU summary's own facts of the same
    // names ("ws-echo Measured" on a page of ws figures alone said
    // nothing the title does not).
    let prefix = if with_summary { "ws-echo " } else { "" };
    whole.meta.extend(
        doc.meta
            .into_iter()
            .map(|(k, v)| (format!("{prefix}{k}"), v)),
    );
    whole.details.extend(doc.details);
    whole.tables.extend(doc.tables);
    whole.charts.extend(doc.charts);
    Ok(())
}

/// The summary's document (with what was measured, unless `data_only`:
/// the sources and notes from the languages file being parsed on
/// `languages`), its Markdown and CSV files handed to `emit`, and the
/// runs table (whose CSV is written later, [`render_each`]).
fn summary_tables(
    s: &Summary,
    stored: &crate::store::Stored,
    data_only: bool,
    languages: Option<Parsing>,
    warnings: &mut Vec<String>,
    emit: &(dyn Fn(String, Body) -> Result<()> + Sync),
) -> Result<(Document, langbench_document::Table)> {
    let mut doc = s.document();
    if !data_only {
        let langs = match languages {
            Some(parsing) => {
                let (p, langs) = parsing
                    .join()
                    .map_err(|_| anyhow::anyhow!("reading the languages file panicked"))?;
                langs.map_err(|e| {
                    warnings.push(format!(
                        "{} could not be read, so report.html shows no program sources or \
                         notes: {e:#}",
                        p.display()
                    ));
                    format!(
                        "{} could not be read",
                        p.file_name().unwrap_or_default().to_string_lossy()
                    )
                })
            }
            None => Err("none was given to this report".to_string()),
        };
        doc.measured = measured::sections(s, langs.as_ref().map_err(String::as_str));
    }
    emit(
        SUMMARY_MD.into(),
        Body::Bytes(markdown::Markdown.render(&doc)?),
    )?;
    emit(SUMMARY_CSV.into(), Body::Bytes(csv::Csv.render(&doc)?))?;
    Ok((doc, runs::table(stored, s)))
}

/// A languages file being parsed: its path, and it or why it could not be.
type Parsing =
    std::thread::JoinHandle<(std::path::PathBuf, anyhow::Result<crate::config::Languages>)>;

/// `table` as CSV, written as its rows are made, handed to `emit` as
/// `name`.
fn emit_csv(
    name: &str,
    table: &langbench_document::Table,
    emit: &(dyn Fn(String, Body) -> Result<()> + Sync),
) -> Result<()> {
    let mut write = |w: &mut dyn std::io::Write| csv::write_table(table, w);
    emit(name.into(), Body::Stream(&mut write))
}

/// The charts, the page, runs.csv (of `runs`) and the workbook of
/// `whole`, each handed to `emit` as it is rendered. The workbook renders
/// on a second thread while the rest render and are written here: they
/// only read `whole`, and the workbook alone was a fifth of a
/// 6,500-variant report (issue #41); runs.csv comes last here, while the
/// workbook (the longest) is still being made, so that it starts as
/// early as it can. The workbook's table sheets wait in unnamed files in
/// `scratch`, the results directory ([`xlsx::Xlsx::render_spilling`]).
fn render_charts_page_and_book(
    whole: &Document,
    runs: Option<&langbench_document::Table>,
    scratch: &std::path::Path,
    emit: &(dyn Fn(String, Body) -> Result<()> + Sync),
) -> Result<()> {
    std::thread::scope(|scope| -> Result<()> {
        let tables = !whole.tables.is_empty();
        let book = tables.then(|| scope.spawn(|| xlsx::Xlsx.render_spilling(whole, scratch)));
        for (name, bytes) in chart_files(whole) {
            emit(name, Body::Bytes(bytes))?;
        }
        if book.is_some() {
            // Streamed to the file: the page is the largest file (87 MB
            // at 6,500 variants) and was held whole (issue #41).
            let mut page = |w: &mut dyn std::io::Write| html::write_page(whole, w);
            emit(html::FILE.into(), Body::Stream(&mut page))?;
        }
        if let Some(runs) = runs {
            emit_csv(RUNS_CSV, runs, emit)?;
        }
        if let Some(book) = book {
            let book = book
                .join()
                .map_err(|_| anyhow::anyhow!("rendering results.xlsx panicked"))??;
            emit(XLSX.into(), Body::Bytes(book))?;
        }
        Ok(())
    })
}

/// `charts/<id>.svg` of every chart of `doc`.
fn chart_files(doc: &Document) -> Files {
    doc.charts
        .iter()
        .map(|c| {
            (
                format!("{CHARTS_DIR}/{}.svg", c.id),
                svg::render(c).into_bytes(),
            )
        })
        .collect()
}

/// Where the ws-echo figures come from: the edition and dates, the machine
/// (once; every machine when they differ), langbench's version, the
/// sessions (details), and their machine-state warnings (notes of the ws
/// table).
struct WsProvenance {
    title: String,
    meta: Vec<(String, String)>,
    details: Vec<(String, String)>,
    notes: Vec<Note>,
}

fn ws_provenance(sessions: &[SessionRecord], records: &[&WsRecord]) -> WsProvenance {
    let ids: std::collections::BTreeSet<&str> =
        records.iter().map(|r| r.session.as_str()).collect();
    let used: Vec<&SessionRecord> = sessions
        .iter()
        .filter(|s| ids.contains(s.session.as_str()))
        .collect();
    let published = records.iter().any(|r| r.origin == Origin::Published);
    let (dates, year) = ws_dates(&used, records);
    let title = match used.iter().find(|s| s.origin == Origin::Published) {
        Some(s) if published => format!(
            "langbench ws-echo {} edition (as published)",
            s.session.strip_prefix("published-").unwrap_or(&s.session)
        ),
        _ => format!("langbench ws-echo {year} edition, measured {dates}"),
    };
    let mut meta = Vec::new();
    if !published {
        meta.extend(ws_measured(&used, &dates));
    }
    meta.extend(ws_machines(&used));
    WsProvenance {
        title,
        meta,
        details: ws_session_details(&used, records),
        notes: ws_machine_notes(&used, records),
    }
}

/// When the sessions measured: one day (`2023-05-01`) or a span (`… to
/// …`), from the first session's start to the last record; and the year
/// of the last record.
fn ws_dates(used: &[&SessionRecord], records: &[&WsRecord]) -> (String, String) {
    let finished = records.iter().map(|r| r.finished_at.as_str());
    let (from, to) = (
        finished
            .clone()
            .chain(used.iter().map(|s| s.started_at.as_str()))
            .min(),
        finished.max(),
    );
    let day = |t: Option<&str>| t.and_then(|t| t.get(..10)).unwrap_or("").to_string();
    let dates = match (day(from), day(to)) {
        (a, b) if a == b => a,
        (a, b) => format!("{a} to {b}"),
    };
    (dates, day(to).get(..4).unwrap_or("").to_string())
}

/// What a measured (not published) edition says of its sessions: when,
/// how many, which langbench versions.
fn ws_measured(used: &[&SessionRecord], dates: &str) -> [(String, String); 2] {
    let versions: std::collections::BTreeSet<&str> =
        used.iter().map(|s| s.langbench_version.as_str()).collect();
    [
        (
            "Measured".into(),
            format!(
                "{dates} (UTC), in {} session{} (listed below)",
                used.len(),
                if used.len() == 1 { "" } else { "s" }
            ),
        ),
        (
            "langbench".into(),
            format!(
                "{} (revision not recorded)",
                versions.into_iter().collect::<Vec<_>>().join(", ")
            ),
        ),
    ]
}

/// The machine the sessions ran on, or, when they ran on different
/// hardware, each machine and its sessions, loudly.
fn ws_machines(used: &[&SessionRecord]) -> Option<(String, String)> {
    let mut machines: Vec<(&crate::machine::Machine, Vec<&str>)> = Vec::new();
    for s in used {
        match machines.iter_mut().find(|(m, _)| m.same_as(&s.machine)) {
            Some((m, ss)) => {
                *m = m.named_by(&s.machine);
                ss.push(&s.session)
            }
            None => machines.push((&s.machine, vec![&s.session])),
        }
    }
    match machines.as_slice() {
        [] => None,
        [(m, _)] => Some(("Machine".into(), m.hardware())),
        all => Some((
            "Machines".into(),
            format!(
                "DIFFERENT HARDWARE: {}",
                all.iter()
                    .map(|(m, ss)| format!("{} (sessions {})", m.hardware(), ss.join(", ")))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        )),
    }
}

/// The servers (variants) measured in session `id`.
fn ws_servers_of(records: &[&WsRecord], id: &str) -> Vec<String> {
    records
        .iter()
        .filter(|r| r.session == id)
        .map(|r| r.variant.clone())
        .collect()
}

/// One line per session: when, which langbench, which machine, which
/// servers, and its command line.
fn ws_session_details(used: &[&SessionRecord], records: &[&WsRecord]) -> Vec<(String, String)> {
    used.iter()
        .map(|s| {
            (
                format!("Session {}", s.session),
                format!(
                    "started {}, langbench {}, {} (kernel {}): {}; `{}`",
                    s.started_at,
                    s.langbench_version,
                    s.machine.hardware(),
                    s.machine.kernel,
                    ws_servers_of(records, &s.session).join(", "),
                    shell_words::join(&s.command_line)
                ),
            )
        })
        .collect()
}

/// A note for each session that started on a machine that was not quiet.
fn ws_machine_notes(used: &[&SessionRecord], records: &[&WsRecord]) -> Vec<Note> {
    used.iter()
        .filter_map(|s| {
            let w = &s.hygiene.as_ref()?.warnings;
            (!w.is_empty()).then(|| {
                Note::new(
                    format!(
                        "Machine state ({})",
                        ws_servers_of(records, &s.session).join(", ")
                    ),
                    format!(
                        "session {} started on a machine that was not quiet: {}",
                        s.session,
                        w.join("; ")
                    ),
                )
            })
        })
        .collect()
}

/// `langbench report DIR`: rewrites the derived files of an existing results
/// directory that holds records.
pub(crate) fn rewrite(dir: &std::path::Path, view: View) -> Result<Derived> {
    anyhow::ensure!(
        dir.is_dir(),
        "{} is not a results directory (no such directory)",
        dir.display()
    );
    anyhow::ensure!(
        [crate::store::RUNS, WS_RECORDS]
            .iter()
            .any(|f| dir.join(f).is_file()),
        "{} holds no records ({} or {}): nothing to report",
        dir.display(),
        crate::store::RUNS,
        WS_RECORDS
    );
    let store = Store::open(dir)?;
    let _lock = store.lock()?;
    write_files(&store, view)
}

/// The files of a comparison (or history) directory: `<stem>.md`, a CSV
/// per table, `<stem>.xlsx`, `<stem>.html` and the charts; `data_only`: the
/// Markdown and CSV that `report --check` compares.
pub(crate) fn comparison_files(stem: &str, doc: &Document, data_only: bool) -> Result<Files> {
    let mut files: Files = vec![(format!("{stem}.md"), markdown::Markdown.render(doc)?)];
    for t in &doc.tables {
        files.push((format!("{}.csv", t.id), csv::table(t)?));
    }
    if !data_only {
        files.push((format!("{stem}.xlsx"), xlsx::Xlsx.render(doc)?));
        files.push((format!("{stem}.html"), html::Html.render(doc)?));
        files.extend(chart_files(doc));
    }
    Ok(files)
}

/// `compare --out DIR` (and `history --out DIR`): the document in every
/// format, and what it was built from.
pub(crate) fn write_comparison(
    dir: &std::path::Path,
    stem: &str,
    doc: &Document,
    prov: &provenance::Provenance,
) -> Result<()> {
    let store = Store::open(dir)?;
    let files = comparison_files(stem, doc, false)?;
    for (name, bytes) in &files {
        store.write_derived(name, bytes)?;
    }
    prov.write(dir)
}

/// Says where the results are, naming the page to open; 130 after
/// Ctrl-C, like a shell.
pub(crate) fn finish(out: &std::path::Path) -> std::process::ExitCode {
    let page = out.join(html::FILE);
    if page.is_file() {
        println!("Results: {} (open {})", out.display(), page.display());
    } else {
        println!("Results: {}", out.display());
    }
    if crate::signals::interrupted() {
        std::process::ExitCode::from(130)
    } else {
        std::process::ExitCode::SUCCESS
    }
}
