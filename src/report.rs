//! `langbench report DIR...`: rewrites each results directory's derived
//! files from its records, rebuilds the comparisons (and histories) built
//! from it whose inputs changed, and rebuilds a comparison directory named
//! directly; with `--check`, writes nothing and fails on every directory
//! whose derived files no longer match its records (see
//! [`crate::derived::provenance`]). The derived files themselves are
//! rendered by [`crate::derived`]; here is the command, which also loads
//! the editions a comparison or history is built from.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use crate::compare::edition::{Edition, Options};
use crate::compare::table::compare;
use crate::config::Languages;
use crate::derived::provenance::{self, Kind, Provenance};
use crate::derived::{Files, comparison_files, render_all, rewrite, write_comparison};
use crate::store::Store;
use crate::summary::View;
use langbench_document::Document;
use langbench_document::export::terminal;
use langbench_document::inert;

/// A comparison or history directory rebuilt from its provenance: the
/// document and the file stem it is written under.
pub(crate) fn rebuild_document(
    dir: &Path,
    prov: &Provenance,
    langs: &Languages,
) -> Result<(&'static str, Document)> {
    let editions = (0..prov.inputs.len())
        .map(|i| {
            let mut e = Edition::load(&prov.input_dir(dir, i))
                .with_context(|| format!("{}: input {}", dir.display(), prov.inputs[i].shown))?;
            // Named as it was on the command line that built it.
            e.dir = PathBuf::from(&prov.inputs[i].shown);
            Ok(e)
        })
        .collect::<Result<Vec<_>>>()?;
    match prov.kind {
        Kind::Comparison => {
            let [old, new] = editions.as_slice() else {
                bail!("{}: a comparison has two inputs", dir.display());
            };
            let opts = Options {
                relative_to: prov.relative_to.clone(),
            };
            Ok(("compare", compare(langs, old, new, &opts)?))
        }
        Kind::History => {
            let refs: Vec<&Edition> = editions.iter().collect();
            let doc = crate::history::table::document(langs, &refs, prov.relative_to.as_deref())?;
            Ok(("history", doc))
        }
        Kind::Results => bail!("{} is a results directory", dir.display()),
    }
}

/// Rebuilds a comparison (or history) directory from its provenance, with
/// the inputs' records as they are now.
pub(crate) fn rebuild(dir: &Path, prov: &Provenance, langs: &Languages) -> Result<()> {
    let (stem, doc) = rebuild_document(dir, prov, langs)?;
    let inputs: Vec<PathBuf> = (0..prov.inputs.len())
        .map(|i| prov.input_dir(dir, i))
        .collect();
    let refs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let mut fresh = Provenance::new(prov.kind, dir, &refs, prov.relative_to.clone())?;
    for (f, old) in fresh.inputs.iter_mut().zip(&prov.inputs) {
        f.shown = old.shown.clone();
    }
    write_comparison(dir, stem, &doc, &fresh)
}

/// The derived directories beside `dir` (in its parent) built from it.
fn dependents(dir: &Path) -> Vec<(PathBuf, Provenance)> {
    let Some(parent) = dir.parent().map(|p| {
        if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        }
    }) else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut out: Vec<(PathBuf, Provenance)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .filter_map(|p| {
            let prov = Provenance::read(&p).ok()??;
            (prov.kind != Kind::Results && (0..prov.inputs.len()).any(|i| prov.names(&p, i, dir)))
                .then_some((p, prov))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn load_languages(view: &View) -> Result<Languages> {
    let path = view
        .languages
        .clone()
        .unwrap_or_else(|| PathBuf::from("languages.toml"));
    Languages::load(&path).with_context(|| {
        format!(
            "a comparison resolves its rows through the languages file's aliases: cannot read {} \
             (give it with --languages or LANGBENCH_LANGUAGES)",
            path.display()
        )
    })
}

/// `langbench report DIR...` (without `--check`).
pub fn report_command(dirs: &[PathBuf], view: View, check: bool, wide: bool) -> Result<ExitCode> {
    if check {
        return check_command(dirs, &view);
    }
    for dir in dirs {
        match Provenance::read(dir)? {
            Some(p) if p.kind != Kind::Results => {
                rebuild(dir, &p, &load_languages(&view)?)?;
                // Provenance and directory names come from a results
                // tree: what is printed of them is inert.
                println!(
                    "{}",
                    inert::text(&format!(
                        "Rebuilt {} from {}",
                        dir.display(),
                        inputs_text(&p)
                    ))
                );
                continue;
            }
            _ => {}
        }
        let derived = rewrite(dir, view.clone())?;
        let width = terminal::width(wide);
        print!("{}", terminal::document_fit(&derived.document, width));
        for a in &derived.document.advice {
            let line = inert::text(&format!("to do: {a}"));
            println!("{}", terminal::wrapped(&line, width, "  "));
        }
        for w in &derived.warnings {
            terminal::warn(w);
        }
        println!("Rewrote the derived files of {}", dir.display());
        for (dep, prov) in dependents(dir) {
            let changed = prov.changed(&dep);
            if changed.is_empty() {
                continue;
            }
            rebuild(&dep, &prov, &load_languages(&view)?)?;
            let line = format!(
                "Rebuilt {} ({})",
                dep.display(),
                changed
                    .iter()
                    .map(|(_, why)| why.as_str())
                    .collect::<Vec<_>>()
                    .join("; ")
            );
            println!("{}", inert::text(&line));
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn inputs_text(p: &Provenance) -> String {
    p.inputs
        .iter()
        .map(|i| i.shown.as_str())
        .collect::<Vec<_>>()
        .join(" and ")
}

/// Why a directory's derived files do not match its records (empty: they
/// do).
pub(crate) fn check(dir: &Path, view: &View) -> Result<Vec<String>> {
    let Some(prov) = Provenance::read(dir)? else {
        if [crate::store::RUNS, crate::ws_record::WS_RECORDS]
            .iter()
            .any(|f| dir.join(f).is_file())
        {
            return Ok(vec![format!(
                "no {}: its derived files were written by an older langbench or by hand",
                provenance::FILE
            )]);
        }
        bail!(
            "{} is neither a results directory (no records) nor a comparison (no {})",
            dir.display(),
            provenance::FILE
        );
    };
    let mut why: Vec<String> = prov.changed(dir).into_iter().map(|(_, w)| w).collect();
    if !why.is_empty() {
        return Ok(why);
    }
    let expected: Files = match prov.kind {
        Kind::Results => render_all(&Store::open(dir)?, view, true)?.0,
        _ => {
            let (stem, doc) = rebuild_document(dir, &prov, &load_languages(view)?)?;
            comparison_files(stem, &doc, true)?
        }
    };
    let store = Store::open(dir)?;
    for (name, bytes) in expected {
        match store.read_file(&name) {
            Ok(Some(have)) if have == bytes => {}
            Ok(Some(_)) => why.push(format!("{name} differs from what its records give now")),
            Ok(None) => why.push(format!("{name} is missing")),
            Err(e) => why.push(format!("{e:#}")),
        }
    }
    Ok(why)
}

/// `langbench report --check DIR...`: exit 1 if any is stale.
fn check_command(dirs: &[PathBuf], view: &View) -> Result<ExitCode> {
    let mut stale = 0;
    for dir in dirs {
        if !dir.is_dir() {
            println!("{}: skipped (not a directory)", dir.display());
            continue;
        }
        let why = check(dir, view).unwrap_or_else(|e| vec![format!("{e:#}")]);
        if why.is_empty() {
            println!("{}: up to date", dir.display());
        } else {
            stale += 1;
            let line = format!(
                "{}: STALE: {}; `langbench report {}` rewrites it",
                dir.display(),
                why.join("; "),
                dir.display()
            );
            println!("{}", inert::text(&line));
        }
    }
    Ok(if stale == 0 {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "{stale} director{} stale",
            if stale == 1 { "y is" } else { "ies are" }
        );
        ExitCode::FAILURE
    })
}
