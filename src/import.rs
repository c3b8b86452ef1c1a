//! `langbench import`: a published edition's CSV (`data/published/`) becomes
//! a results directory in the record format of measured runs, marked as
//! published (`origin: published`): one record per cell holding the
//! published best-of-N figure, the edition's machine as its publisher
//! described it, and `999.99` read as "did not finish", never as a time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail, ensure};

use crate::bench::{Bench, Size};
use crate::config::Languages;
use crate::machine::Machine;
use crate::record::{Origin, RunRecord, SCHEMA, SessionRecord, Status, now_rfc3339};
use crate::store::Store;
use crate::ws_record::{Phase, WS_RECORDS, WsRecord, WsStatus};
use crate::ws_record::{WindowStats, library_name};

/// The editions' "did not finish" time (seconds).
pub(crate) const SENTINEL_S: f64 = 999.99;
/// The editions' "did not finish" peak RSS (KB).
pub(crate) const SENTINEL_KB: u64 = 9_999_999;

#[derive(Debug, Clone)]
pub struct Options {
    pub file: PathBuf,
    pub out: PathBuf,
    /// The edition's year, named in the session id (`published-2020`).
    pub edition: String,
    /// The sizes the CPU benchmarks ran at (2020 or 2021); not used for ws.
    pub size: Option<Size>,
    /// The machine as the edition described it.
    pub cpu: String,
    pub cpus: usize,
    pub os: String,
    /// Runs per published figure (best of N).
    pub runs: u32,
    /// ws-echo: connections per server.
    pub connections: usize,
    /// Where the figures come from and how they were measured.
    pub source: String,
    pub command_line: Vec<String>,
}

/// What an import produced.
#[derive(Debug)]
pub(crate) struct Imported {
    pub records: usize,
    /// Rows matched to a variant of the languages file (by flags or alias).
    pub matched: Vec<(String, String)>,
    /// Rows with no variant today: kept under an id made from their name.
    pub unmatched: Vec<String>,
    pub warnings: Vec<String>,
}

/// Lowercase letters, digits and `keep`, every other run of characters
/// one `-`: `~/.esvu/bin/v8` → `esvu-bin-v8`.
fn slug(text: &str, keep: &[char]) -> String {
    let mut s = String::new();
    for ch in text.to_lowercase().chars() {
        if ch.is_ascii_alphanumeric() || (keep.contains(&ch) && !s.is_empty()) {
            s.push(ch);
        } else if !s.is_empty() && !s.ends_with('-') {
            s.push('-');
        }
    }
    s.trim_matches(['-', '.']).to_string()
}

/// One parsed CSV: header → column index, rows with their line numbers.
struct Csv {
    path: String,
    header: BTreeMap<String, usize>,
    rows: Vec<(usize, csv::StringRecord)>,
}

impl Csv {
    fn read(path: &Path) -> Result<Csv> {
        let mut r = csv::Reader::from_path(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let header = r
            .headers()
            .with_context(|| format!("{}:1: cannot read the header", path.display()))?
            .iter()
            .enumerate()
            .map(|(i, h)| (h.trim().to_string(), i))
            .collect();
        let mut rows = Vec::new();
        for rec in r.records() {
            let rec = rec.with_context(|| format!("{}: bad CSV", path.display()))?;
            let line = rec.position().map_or(0, |p| p.line() as usize);
            // Every field becomes published text: bounded as contributed
            // text is (crates/document/src/inert.rs says why the bound).
            if let Some((i, f)) = rec
                .iter()
                .enumerate()
                .find(|(_, f)| f.chars().count() > langbench_document::inert::MAX_FIELD)
            {
                bail!(
                    "{}:{line}: field {} holds {} characters; an imported field holds at most {}",
                    path.display(),
                    i + 1,
                    f.chars().count(),
                    langbench_document::inert::MAX_FIELD
                );
            }
            rows.push((line, rec));
        }
        Ok(Csv {
            path: path.display().to_string(),
            header,
            rows,
        })
    }

    fn has(&self, cols: &[&str]) -> bool {
        cols.iter().all(|c| self.header.contains_key(*c))
    }

    fn get<'a>(&self, line: usize, rec: &'a csv::StringRecord, col: &str) -> Result<&'a str> {
        let i = self.header[col];
        rec.get(i)
            .map(str::trim)
            .with_context(|| format!("{}:{line}: no value for column {col:?}", self.path))
    }

    /// A number, or `None` for a blank (not published).
    fn num(&self, line: usize, rec: &csv::StringRecord, col: &str) -> Result<Option<f64>> {
        let v = self.get(line, rec, col)?;
        if v.is_empty() {
            return Ok(None);
        }
        let n: f64 = v.replace(',', "").parse().map_err(|_| {
            anyhow::anyhow!(
                "{}:{line}: column {col:?}: expected a number, found {v:?}",
                self.path
            )
        })?;
        ensure!(
            n.is_finite() && n >= 0.0,
            "{}:{line}: column {col:?}: expected a non-negative number, found {v:?}",
            self.path
        );
        Ok(Some(n))
    }

    fn required(&self, line: usize, rec: &csv::StringRecord, col: &str) -> Result<f64> {
        self.num(line, rec, col)?
            .with_context(|| format!("{}:{line}: column {col:?} is empty", self.path))
    }
}

const CPU_COLUMNS: [&str; 3] = ["language", "command_flags", "version"];
const WS_COLUMNS: [&str; 5] = ["server", "runtime_version", "library", "delay_ms", "rps"];

/// Imports one published edition into an empty results directory.
pub(crate) fn import(langs: &Languages, opts: &Options) -> Result<Imported> {
    let csv = Csv::read(&opts.file)?;
    let store = Store::open(&opts.out)?;
    let _lock = store.lock()?;
    if opts.out.join(crate::store::RUNS).exists() || opts.out.join(WS_RECORDS).exists() {
        bail!(
            "{} already holds records: import into a new directory (nothing was changed)",
            opts.out.display()
        );
    }
    let kind_cpu = csv.has(&CPU_COLUMNS);
    let kind_ws = csv.has(&WS_COLUMNS);
    let (runs, ws) = match (kind_cpu, kind_ws) {
        (true, _) => (cpu_records(langs, &csv, opts)?, Vec::new()),
        (_, true) => (Vec::new(), ws_records(langs, &csv, opts)?),
        _ => bail!(
            "{}:1: not an edition's table: expected the columns {} (CPU benchmarks) or {} (ws-echo)",
            csv.path,
            CPU_COLUMNS.join(","),
            WS_COLUMNS.join(",")
        ),
    };
    let mut out = Imported {
        records: runs.len() + ws.len(),
        matched: Vec::new(),
        unmatched: Vec::new(),
        warnings: Vec::new(),
    };
    let mut seen = std::collections::BTreeSet::new();
    let rows = runs
        .iter()
        .map(|r| (&r.variant, &r.language, &r.flags))
        .chain(ws.iter().map(|r| (&r.variant, &r.language, &r.library)));
    for (variant, language, flags) in rows {
        if !seen.insert(variant.clone()) {
            continue;
        }
        let base = variant.split('@').next().unwrap_or(variant);
        if langs.variants.iter().any(|v| v.id == base) {
            out.matched
                .push((format!("{language} / {flags}"), variant.clone()));
        } else {
            out.unmatched.push(variant.clone());
        }
    }
    out.warnings = check_totals(&csv)?;

    store.append_session(&session(opts, ws.is_empty()))?;
    for r in &runs {
        store.append_run(r)?;
    }
    for r in &ws {
        store.append(WS_RECORDS, r)?;
    }
    crate::derived::write_all(&store)?;
    Ok(out)
}

fn session(opts: &Options, cpu: bool) -> SessionRecord {
    let size = match (cpu, opts.size) {
        (true, Some(s)) => s.label(),
        _ => format!("ws-echo c={}", opts.connections),
    };
    SessionRecord {
        schema: SCHEMA,
        session: session_id(opts),
        started_at: now_rfc3339(),
        langbench_version: crate::record::langbench_version(),
        command_line: opts.command_line.clone(),
        size,
        runs: opts.runs,
        timeout_s: 0.0,
        machine: Machine {
            cpu_model: opts.cpu.clone(),
            cpu_id: String::new(),
            cpus: opts.cpus,
            usable_cpus: opts.cpus,
            memory_kb: 0,
            os: opts.os.clone(),
            kernel: String::new(),
            arch: String::new(),
            hostname: String::new(),
            boot_id: String::new(),
            virtualization: String::new(),
        },
        variants: Vec::new(),
        origin: Origin::Published,
        source: Some(format!(
            "{} ({})",
            opts.source,
            opts.file
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default()
        )),
        ..Default::default()
    }
}

fn session_id(opts: &Options) -> String {
    format!("published-{}", opts.edition)
}

/// Variant ids for rows: the variant they resolve to, or a slug; several
/// rows of one variant (the 2020 edition's two Go versions) get
/// `id@version`.
fn row_ids(langs: &Languages, rows: &[(String, String, String)]) -> Vec<String> {
    let base: Vec<String> = rows
        .iter()
        .map(|(l, f, _)| {
            langs
                .resolve(l, f)
                .map(|v| v.id.clone())
                .unwrap_or_else(|| slug(&format!("{l} {f}"), &[]))
        })
        .collect();
    base.iter()
        .zip(rows)
        .map(|(id, (_, _, version))| {
            if base.iter().filter(|b| *b == id).count() > 1 {
                format!("{id}@{}", slug(version, &['.']))
            } else {
                id.clone()
            }
        })
        .collect()
}

fn cpu_records(langs: &Languages, csv: &Csv, opts: &Options) -> Result<Vec<RunRecord>> {
    let size = opts
        .size
        .context("a CPU edition needs --size (2020 or 2021): the N its benchmarks ran at")?;
    let benches: Vec<Bench> = Bench::CPU
        .into_iter()
        .filter(|b| {
            csv.header
                .contains_key(&format!("{}_s", b.name().replace('-', "_")))
        })
        .collect();
    ensure!(
        !benches.is_empty(),
        "{}:1: no benchmark columns (expected assoc_s, num_comb_s, str_comb_s with their _rss_kb)",
        csv.path
    );
    let mut named = Vec::new();
    for (line, rec) in &csv.rows {
        named.push((
            csv.get(*line, rec, "language")?.to_string(),
            csv.get(*line, rec, "command_flags")?.to_string(),
            csv.get(*line, rec, "version")?.to_string(),
        ));
    }
    let ids = row_ids(langs, &named);
    let mut out = Vec::new();
    let finished_at = now_rfc3339();
    for (((line, rec), (language, flags, version)), id) in csv.rows.iter().zip(&named).zip(&ids) {
        for b in &benches {
            let key = b.name().replace('-', "_");
            let wall = csv.required(*line, rec, &format!("{key}_s"))?;
            let rss = csv.required(*line, rec, &format!("{key}_rss_kb"))? as u64;
            let dnf = (wall - SENTINEL_S).abs() < 0.005;
            out.push(RunRecord {
                schema: SCHEMA,
                session: session_id(opts),
                finished_at: finished_at.clone(),
                variant: id.clone(),
                language: language.clone(),
                flags: flags.clone(),
                version: version.clone(),
                bench: *b,
                size: size.label(),
                n: size.n(*b),
                attempt: 1,
                wall_s: if dnf { 0.0 } else { wall },
                user_s: 0.0,
                sys_s: 0.0,
                max_rss_kb: if rss == SENTINEL_KB { 0 } else { rss },
                build_wall_s: None,
                tree_cpu_s: None,
                tree_max_rss_kb: None,
                exit: None,
                status: if dnf {
                    Status::DidNotFinish
                } else {
                    Status::Ok
                },
                detail: dnf.then(|| {
                    format!(
                        "published as the {SENTINEL_S} s sentinel{} ({}, line {line})",
                        if rss == SENTINEL_KB {
                            ", peak RSS not published"
                        } else {
                            ""
                        },
                        opts.file
                            .file_name()
                            .map(|f| f.to_string_lossy().into_owned())
                            .unwrap_or_default()
                    )
                }),
                origin: Origin::Published,
                identity: None,
                cache: None,
                continues: None,
                block: None,
                host: None,
                probe: None,
                remembered: None,
                seal: None,
            });
        }
    }
    Ok(out)
}

/// The published totals must be the sum of the row (sentinels included, as
/// the editions added them): a row that does not add up was mistyped.
fn check_totals(csv: &Csv) -> Result<Vec<String>> {
    let mut warnings = Vec::new();
    if !csv.has(&["total_s"]) {
        return Ok(warnings);
    }
    for (line, rec) in &csv.rows {
        let Some(total) = csv.num(*line, rec, "total_s")? else {
            continue;
        };
        let mut sum = 0.0;
        for b in Bench::CPU {
            let col = format!("{}_s", b.name().replace('-', "_"));
            if csv.header.contains_key(&col) {
                sum += csv.num(*line, rec, &col)?.unwrap_or(0.0);
            }
        }
        if (sum - total).abs() > 0.015 {
            warnings.push(format!(
                "{}:{line}: total_s is {total} but the row adds up to {sum:.2}",
                csv.path
            ));
        }
    }
    Ok(warnings)
}

fn ws_records(langs: &Languages, csv: &Csv, opts: &Options) -> Result<Vec<WsRecord>> {
    // One record per server (server, runtime, library), phases in file order.
    let mut servers: Vec<((String, String, String), Vec<Phase>)> = Vec::new();
    for (line, rec) in &csv.rows {
        let key = (
            csv.get(*line, rec, "server")?.to_string(),
            csv.get(*line, rec, "runtime_version")?.to_string(),
            csv.get(*line, rec, "library")?.to_string(),
        );
        let num = |c: &str| -> Result<Option<f64>> {
            if csv.header.contains_key(c) {
                csv.num(*line, rec, c)
            } else {
                Ok(None)
            }
        };
        let rps = csv.required(*line, rec, "rps")?;
        let window = num("elapsed_s")?.unwrap_or(0.0);
        let phase = Phase {
            delay_ms: csv.required(*line, rec, "delay_ms")?,
            status: WsStatus::Ok,
            window_s: window,
            stats: Some(WindowStats {
                echoes: (rps * window).round() as u64,
                rps,
                latency_mean_ms: num("latency_avg_ms")?.unwrap_or(f64::NAN),
                latency_p50_ms: None,
                latency_p99_ms: None,
                latency_max_ms: num("latency_max_ms")?.unwrap_or(f64::NAN),
                errors: None,
                error_samples: Vec::new(),
                alive: None,
            }),
            server_rss_peak_kb: num("server_ram_mb")?.map(|mb| (mb * 1024.0).round() as u64),
            server_rss_avg_kb: None,
            server_cores: num("server_cores")?,
            client_cores: None,
            client_bound: false,
            detail: None,
            client: None,
            server_waiting_cores: None,
        };
        if phase
            .stats
            .as_ref()
            .is_some_and(|s| s.latency_mean_ms.is_nan() || s.latency_max_ms.is_nan())
        {
            bail!(
                "{}:{line}: latency_avg_ms and latency_max_ms are required",
                csv.path
            );
        }
        match servers.iter_mut().find(|(k, _)| *k == key) {
            Some((_, phases)) => phases.push(phase),
            None => servers.push((key, vec![phase])),
        }
    }
    let named: Vec<(String, String, String)> = servers
        .iter()
        .map(|((server, version, library), _)| {
            (server.clone(), library_name(library), version.clone())
        })
        .collect();
    let ids = row_ids(langs, &named);
    let finished_at = now_rfc3339();
    Ok(servers
        .into_iter()
        .zip(ids)
        .map(|(((server, version, library), phases), id)| WsRecord {
            schema: SCHEMA,
            session: session_id(opts),
            finished_at: finished_at.clone(),
            variant: id,
            language: server,
            library,
            version,
            connections: opts.connections,
            opened: 0,
            handshake_failures: 0,
            warmup_s: 0.0,
            pinned: false,
            status: WsStatus::Ok,
            detail: None,
            phases,
            server_exit: None,
            server_max_rss_kb: None,
            server_user_s: None,
            server_sys_s: None,
            clean_shutdown: None,
            origin: Origin::Published,
            placement: None,
            server_rss_idle_kb: None,
        })
        .collect())
}

/// `langbench import`: [`import`], then what matched which variant (on
/// stderr) and the count.
pub fn command(langs: &Languages, opts: &Options) -> Result<ExitCode> {
    let done = import(langs, opts)?;
    for w in &done.warnings {
        langbench_document::export::terminal::warn(w);
    }
    for (row, id) in &done.matched {
        eprintln!(
            "matched   {} -> {}",
            langbench_document::inert::text(row),
            langbench_document::inert::text(id)
        );
    }
    for id in &done.unmatched {
        eprintln!(
            "no variant {} (kept under this id)",
            langbench_document::inert::text(id)
        );
    }
    println!(
        "Imported {} records into {} ({} rows matched to variants, {} without one)",
        done.records,
        opts.out.display(),
        done.matched.len(),
        done.unmatched.len()
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_and_library_names() {
        assert_eq!(
            slug("Javascript ~/.esvu/bin/v8", &[]),
            "javascript-esvu-bin-v8"
        );
        assert_eq!(slug("0.2 32091dd gcc-10.2", &['.']), "0.2-32091dd-gcc-10.2");
        assert_eq!(library_name("nbio 1.3.16"), "nbio");
        assert_eq!(library_name("built-in (Bun.serve)"), "built-in (Bun.serve)");
        assert_eq!(library_name("uWebSockets.js"), "uWebSockets.js");
    }
}
