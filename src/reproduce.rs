//! `langbench reproduce EDITION_DIR --out DIR`: the built-in
//! reproducibility check (issue #39). A seeded random sample of the
//! edition's variants that are installed here (`--sample` percent, at
//! least [`MIN_SAMPLE`]) is measured again by `run`'s own machinery
//! ([`crate::suite::benchmark`]: in rounds, the reference set in every
//! block) at the edition's sizes, into `--out`; then each re-measured
//! cell's ratio to the references is set against the edition's
//! ([`crate::reproduced::Agreement`]). The result is `reproduced.json` in
//! `--out`, and beside the edition (`EDITION/reproduced/DATE-MACHINE.json`)
//! only with `--store`: an edition is never written to unasked.
//!
//! Ratios, both sides: a run's wall time over the references' in its
//! sitting (the median of its session's passes, [`HostSpeed`]), a cell's
//! the fastest of its counted runs'. An edition measured before references
//! were stored has no passes: its ratio is then its cell's best over its
//! own reference variants' cells as measured (one state of the host each),
//! and the output says so.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail, ensure};

use crate::bench::{Bench, Size};
use crate::config::{Languages, Variant};
use crate::reference::{HostSpeed, Normalised};
use crate::reproduced::verify::{EditionBasis, ratios_by_cells, ratios_by_passes};
use crate::reproduced::{Agreement, Level, Place, WITHIN};
use crate::store::{Store, Stored};
use langbench_spawn::Spawner;

/// The fewest variants a check re-measures (or all there are).
pub(crate) const MIN_SAMPLE: usize = 6;

/// What `langbench reproduce` was asked.
#[derive(Debug, Clone)]
pub struct Options {
    pub edition: PathBuf,
    pub out: PathBuf,
    /// Percent of the edition's installed variants re-measured.
    pub sample_pct: f64,
    /// The sample's seed (default: from the clock; printed either way).
    pub seed: Option<u64>,
    /// Also write the result beside the edition.
    pub store: bool,
    pub runs: crate::noise::Runs,
    pub timeout: Duration,
    pub block_s: f64,
    pub view: crate::summary::View,
    pub command_line: Vec<String>,
}

/// What `reproduced.json` holds.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Reproduction {
    pub edition: String,
    pub seed: u64,
    pub sample_pct: f64,
    /// The re-measured variants.
    pub sample: Vec<String>,
    pub references: Vec<String>,
    pub edition_basis: EditionBasis,
    pub within: f64,
    pub agreeing: usize,
    pub sentence: String,
    #[serde(flatten)]
    pub agreement: Agreement,
    /// The directory the sample was measured into (`--out`), by its name:
    /// the check is verified against its records where it is beside the
    /// edition (issue #59).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// The CPU the check ran on ([`crate::machine::Machine::cpu_id`]) and
    /// its boot ([`crate::machine::Machine::boot_id`]), as its session
    /// recorded them.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub cpu_id: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub boot_id: String,
    /// The edition's CPU (the machine most of its rows ran on).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub edition_cpu_id: String,
    /// Its level against the edition (issue #60): `same-boot`,
    /// `another-boot`, `same-cpu-model` (which boot, the records do not
    /// say) or `another-cpu-model` (a portability check).
    pub level: Level,
    /// The normaliser its ratios were computed with
    /// ([`crate::reference::NORMALISER`]): a report recomputes them from
    /// the records with its own, and holds them to this file's exactly
    /// only when the names agree (`reproduced::verify`).
    pub normaliser: &'static str,
}

/// The sample: `pct` % of `ids` (rounded up), at least [`MIN_SAMPLE`] or
/// all of them, shuffled by `seed` (the same seed, the same sample).
pub(crate) fn sample(ids: &[String], pct: f64, seed: u64) -> Vec<String> {
    let want = ((ids.len() as f64 * pct / 100.0).ceil() as usize)
        .max(MIN_SAMPLE)
        .min(ids.len());
    let mut shuffled = ids.to_vec();
    fastrand::Rng::with_seed(seed).shuffle(&mut shuffled);
    shuffled.truncate(want);
    shuffled.sort();
    shuffled
}

/// The size the edition ran at: the named size whose N is the edition's
/// for every benchmark it ran, or its one N.
fn edition_size(stored: &Stored, dir: &Path) -> Result<(Size, Vec<Bench>)> {
    let mut ns: BTreeMap<Bench, u64> = BTreeMap::new();
    for r in &stored.runs {
        if r.bench.is_cpu() {
            ns.insert(r.bench, r.n);
        }
    }
    ensure!(
        !ns.is_empty(),
        "{}: no CPU runs to re-measure (a results directory of `run` or `import` holds them in runs.jsonl)",
        dir.display()
    );
    let benches: Vec<Bench> = ns.keys().copied().collect();
    let mut candidates = vec![Size::Tiny, Size::Ed2020, Size::Ed2021];
    if let Some(n) = ns.values().next() {
        candidates.push(Size::Explicit(*n));
    }
    match candidates
        .into_iter()
        .find(|s| ns.iter().all(|(b, n)| s.n(*b) == *n))
    {
        Some(s) => Ok((s, benches)),
        None => bail!(
            "{}: its benchmarks ran at sizes no one --size gives ({}): re-measure it by hand with run --size N per benchmark",
            dir.display(),
            ns.iter()
                .map(|(b, n)| format!("{b} N={n}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `langbench reproduce`: the sample measured again, its ratios against
/// the edition's, the table and the sentence printed, the result stored.
pub fn command(spawner: &Spawner, langs: &Languages, opts: &Options) -> Result<ExitCode> {
    check_options(opts)?;
    let edition = Store::open(&opts.edition)?.load()?;
    let (size, benches) = edition_size(&edition, &opts.edition)?;
    let ids = cpu_variants(&edition);
    let installed = installed_here(spawner, langs, &ids, &opts.edition)?;
    let seed = opts.seed.unwrap_or_else(crate::rounds::Rounds::fresh_seed);
    let chosen = sample(&installed, opts.sample_pct, seed);
    println!(
        "Re-measuring {} of the {} installed variants of {} (sample {} %, at least {MIN_SAMPLE}; --seed {seed}): {}",
        chosen.len(),
        installed.len(),
        opts.edition.display(),
        opts.sample_pct,
        chosen.join(" ")
    );
    let references = reference_set(langs)?;
    let ref_ids: Vec<String> = references.iter().map(|v| v.id.clone()).collect();
    let variants: Vec<&Variant> = langs
        .variants
        .iter()
        .filter(|v| chosen.contains(&v.id))
        .collect();
    if opts.out.join(crate::store::RUNS).exists() {
        bail!(
            "{} already holds runs: re-measure into a new directory (nothing was changed)",
            opts.out.display()
        );
    }
    let run = run_options(opts, benches, size, seed, references);
    let remeasured = remeasure(spawner, &variants, &run)?;
    let sample = Sample {
        seed,
        chosen,
        ref_ids,
    };
    let (result, date, machine) = compare(&edition, &remeasured, opts, sample)?;
    publish(&result, opts, &date, &machine)?;
    Ok(ExitCode::SUCCESS)
}

/// The options `reproduce` cannot work with, refused before anything is
/// read: a sample that is no percentage, an `--out` that is the edition.
fn check_options(opts: &Options) -> Result<()> {
    crate::store::results_dir(&opts.edition, "reproduce")?;
    ensure!(
        opts.sample_pct.is_finite() && opts.sample_pct > 0.0 && opts.sample_pct <= 100.0,
        "--sample is a percentage above 0 and at most 100, got {}",
        opts.sample_pct
    );
    ensure!(
        !same_dir(&opts.edition, &opts.out),
        "--out {} is the edition itself: the re-measured runs go into a directory of their own",
        opts.out.display()
    );
    Ok(())
}

/// The variants the edition measured on the CPU benchmarks, in the order
/// its runs first name them.
fn cpu_variants(edition: &Stored) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for r in &edition.runs {
        if r.bench.is_cpu() && !ids.contains(&r.variant) {
            ids.push(r.variant.clone());
        }
    }
    ids
}

/// Which of the edition's variants `ids` are installed on this machine
/// (asked of their toolchains); an error when none is.
fn installed_here(
    spawner: &Spawner,
    langs: &Languages,
    ids: &[String],
    edition: &Path,
) -> Result<Vec<String>> {
    let known: Vec<&Variant> = ids
        .iter()
        .filter_map(|id| langs.variants.iter().find(|v| &v.id == id))
        .collect();
    crate::signals::install_interrupt_handler();
    eprintln!(
        "checking which of the edition's {} variants are installed here...",
        ids.len()
    );
    let infos = crate::toolchain::inspect_all(spawner, &known, &|_, _| {})
        .context("interrupted while checking the toolchains")?;
    let installed: Vec<String> = known
        .iter()
        .zip(&infos)
        .filter(|(_, i)| i.installed)
        .map(|(v, _)| v.id.clone())
        .collect();
    if installed.is_empty() {
        bail!(
            "none of the {} variants of {} is installed here (and in {}): install some with `langbench toolchains install`; nothing was measured",
            ids.len(),
            edition.display(),
            langs.path.display()
        );
    }
    Ok(installed)
}

/// The languages file's reference set, which the ratios need.
fn reference_set(langs: &Languages) -> Result<Vec<Variant>> {
    let references: Vec<Variant> = if langs.references.is_empty() {
        Vec::new()
    } else {
        langs
            .select(&langs.references)?
            .into_iter()
            .cloned()
            .collect()
    };
    ensure!(
        !references.is_empty(),
        "{} names no reference set ([edition] references): the ratios need one",
        langs.path.display()
    );
    Ok(references)
}

/// The session that re-measures the sample: the edition's benchmarks and
/// size, in rounds with the reference passes, balanced from the edition.
fn run_options(
    opts: &Options,
    benches: Vec<Bench>,
    size: Size,
    seed: u64,
    references: Vec<Variant>,
) -> crate::suite::Options {
    crate::suite::Options {
        benches,
        size,
        runs: opts.runs,
        timeout: opts.timeout,
        out: opts.out.clone(),
        command_line: opts.command_line.clone(),
        resume: false,
        view: opts.view.clone(),
        shard: None,
        balance_from: Some(opts.edition.clone()),
        cpus: None,
        cold_caches: false,
        resume_command: Vec::new(),
        wide: false,
        rounds: Some(crate::suite::RoundsOptions {
            seed,
            references,
            block_s: opts.block_s,
            wait_quiet: None,
        }),
    }
}

/// Runs the session and reads back what it stored; an error when it was
/// interrupted.
fn remeasure(
    spawner: &Spawner,
    variants: &[&Variant],
    run: &crate::suite::Options,
) -> Result<Stored> {
    let (_, warnings) = crate::suite::benchmark(spawner, variants, run, || {
        Ok(crate::suite::estimates(run)?.progress)
    })?;
    for w in warnings {
        langbench_document::export::terminal::warn(&w);
    }
    if crate::signals::interrupted() {
        bail!(
            "interrupted: the runs so far are in {}; nothing was compared",
            run.out.display()
        );
    }
    Store::open(&run.out)?.load()
}

/// What was drawn: the seed, the variants it chose, the references.
struct Sample {
    seed: u64,
    chosen: Vec<String>,
    ref_ids: Vec<String>,
}

/// The re-measured ratios against the edition's (by its reference passes
/// when it has them, else by its reference cells): the result, with the
/// date and the machine it is stored under.
fn compare(
    edition: &Stored,
    remeasured: &Stored,
    opts: &Options,
    sample: Sample,
) -> Result<(Reproduction, String, String)> {
    let Sample {
        seed,
        chosen,
        ref_ids,
    } = sample;
    let Some(host) = HostSpeed::of(remeasured, Some(&ref_ids)) else {
        bail!(
            "the re-measuring session in {} has no reference pass that ran ok ({}): no ratios to compare",
            opts.out.display(),
            ref_ids.join(", ")
        );
    };
    let in_sample = |v: &str| chosen.iter().any(|c| c == v);
    let check = ratios_by_passes(remeasured, &host, &in_sample);
    let (edition_ratios, basis) = match HostSpeed::of(edition, None) {
        Some(h) => (
            ratios_by_passes(edition, &h, &in_sample),
            EditionBasis::ReferencePasses,
        ),
        None => (
            ratios_by_cells(edition, &ref_ids, &in_sample)?,
            EditionBasis::ReferenceCells,
        ),
    };
    let edition_map: BTreeMap<String, Normalised> = edition_ratios
        .into_iter()
        .filter_map(|(k, v)| Some((k, v?)))
        .collect();
    let machine = remeasured
        .sessions
        .last()
        .map(|s| s.machine.short())
        .unwrap_or_else(|| crate::machine::Machine::detect().short());
    let date = crate::record::now_rfc3339();
    let agreement = Agreement::of(date.clone(), machine.clone(), &edition_map, &check);
    let at = Where::of(edition, remeasured, opts);
    let result = Reproduction {
        edition: opts.edition.display().to_string(),
        seed,
        sample_pct: opts.sample_pct,
        sample: chosen,
        references: ref_ids,
        edition_basis: basis,
        within: WITHIN,
        agreeing: agreement.agreeing(WITHIN),
        sentence: agreement.sentence(),
        agreement,
        run: at.run,
        cpu_id: at.check.cpu_id.clone(),
        boot_id: at.check.boots.iter().next().cloned().unwrap_or_default(),
        edition_cpu_id: at.edition.cpu_id.clone(),
        level: at.level,
        normaliser: crate::reference::NORMALISER,
    };
    Ok((result, date, machine))
}

/// Where the check ran against the edition (issue #60): its level from
/// the records (the re-measuring session's CPU and boot, the edition's
/// main machine and boots), and its run directory's name where `--out`
/// is beside the edition (where a report looks for it).
struct Where {
    check: Place,
    edition: Place,
    level: Level,
    run: Option<String>,
}

impl Where {
    fn of(edition: &Stored, remeasured: &Stored, opts: &Options) -> Where {
        let here = remeasured
            .sessions
            .last()
            .map(|s| s.machine.clone())
            .unwrap_or_else(crate::machine::Machine::detect);
        let main = crate::summary::Summary::from_stored(edition).machine;
        let check = Place::of_machine(&here);
        let edition = Place::of_edition(edition, main.as_ref());
        let (level, _) = crate::reproduced::level(&check, &edition);
        let parent = |p: &Path| {
            p.canonicalize()
                .ok()
                .and_then(|c| c.parent().map(Path::to_path_buf))
        };
        let beside = parent(&opts.out).is_some_and(|p| Some(p) == parent(&opts.edition));
        let run = opts
            .out
            .file_name()
            .and_then(|n| n.to_str())
            .filter(|n| beside && crate::store::bare_name(n))
            .map(str::to_string);
        Where {
            check,
            edition,
            level,
            run,
        }
    }
}

/// The table and the sentence printed, `reproduced.json` written to the
/// re-measured directory and, with `--store`, into the edition's
/// `reproduced/` under the date and machine.
fn publish(result: &Reproduction, opts: &Options, date: &str, machine: &str) -> Result<()> {
    print!("{}", table(result));
    if result.edition_basis == EditionBasis::ReferenceCells {
        println!(
            "The edition has no reference passes (references.jsonl): its ratios are against its own reference cells ({}) as measured, each in one state of the host.",
            result.references.join(", ")
        );
    }
    println!("{}", langbench_document::inert::text(&result.sentence));
    println!("{}", level_line(result));
    if result.run.is_none() {
        println!(
            "--out {} is not beside the edition: a stored check names no run directory, and a report verifies it against the edition's records only",
            opts.out.display()
        );
    }
    let json = serde_json::to_vec_pretty(result)?;
    let out = Store::open(&opts.out)?;
    out.write_derived("reproduced.json", &json)?;
    println!("Written {}", opts.out.join("reproduced.json").display());
    if opts.store {
        let name = format!(
            "{}/{}-{}.json",
            crate::store::REPRODUCED,
            date.get(..10).unwrap_or(date),
            slug(machine)
        );
        Store::open(&opts.edition)?.write_derived(&name, &json)?;
        if result.level.precision() {
            println!(
                "Stored {} as a precision check ({})",
                opts.edition.join(name).display(),
                result.level.text()
            );
        } else {
            println!(
                "Stored {} as a PORTABILITY check: measured on another CPU model than the edition's, it shows how the ratios move there and never changes a rank",
                opts.edition.join(name).display()
            );
        }
    }
    Ok(())
}

/// The check's level in a sentence, with the two CPU models.
fn level_line(r: &Reproduction) -> String {
    let id = |c: &str| crate::reproduced::model_id(c).unwrap_or_else(|| "not recorded".into());
    match r.level {
        Level::AnotherCpuModel => format!(
            "Another CPU model ({}) than the edition's ({}): a portability check, how the ratios move on another microarchitecture; it never changes a rank",
            id(&r.cpu_id),
            id(&r.edition_cpu_id)
        ),
        level => format!(
            "The edition's CPU model ({}): a precision check, {}",
            id(&r.cpu_id),
            level.text()
        ),
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// A machine's name as a file name's part: letters, digits and dashes.
fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_matches('-').to_string();
    if out.is_empty() {
        "machine".to_string()
    } else {
        out
    }
}

/// The per-row table: variant, benchmark, the edition's ratio, the
/// re-measured one, the difference; then the rows that could not be
/// compared.
fn table(r: &Reproduction) -> String {
    let mut out = format!(
        "{:<28} {:<9} {:>12} {:>12} {:>10}\n",
        "variant", "bench", "edition", "re-measured", "difference"
    );
    for row in &r.agreement.rows {
        let (v, b) = row.variant.rsplit_once(' ').unwrap_or((&row.variant, ""));
        let mark = if row.within(WITHIN) { "" } else { "  *" };
        out.push_str(&format!(
            "{:<28} {:<9} {:>12.4} {:>12.4} {:>+9.1} %{mark}\n",
            langbench_document::inert::text(v),
            b,
            row.edition,
            row.remeasured,
            row.difference() * 100.0
        ));
    }
    if !r.agreement.unmatched.is_empty() {
        out.push_str(&format!(
            "not compared (no ratio on one side: failed, not run, or no reference around it): {}\n",
            langbench_document::inert::text(&r.agreement.unmatched.join(", "))
        ));
    }
    out.push_str(&format!(
        "ratios are × the references ({}); * more than {:.0} % apart\n",
        r.references.join(", "),
        WITHIN * 100.0
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 10 % of 20 is 2, raised to 6; 10 % of 100 is 10; never more than
    /// there are; the same seed the same sample.
    #[test]
    fn the_sample_is_a_seeded_tenth_at_least_six() {
        let ids = |n: usize| (0..n).map(|i| format!("v{i:03}")).collect::<Vec<_>>();
        assert_eq!(sample(&ids(20), 10.0, 1).len(), 6);
        assert_eq!(sample(&ids(100), 10.0, 1).len(), 10);
        assert_eq!(sample(&ids(4), 10.0, 1).len(), 4);
        assert_eq!(sample(&ids(100), 10.0, 7), sample(&ids(100), 10.0, 7));
        assert_ne!(sample(&ids(100), 10.0, 7), sample(&ids(100), 10.0, 8));
    }
}
