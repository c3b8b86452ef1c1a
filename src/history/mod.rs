//! `langbench history DIR...`: each language variant's speed edition by
//! edition (2020, 2021, 2026, ...), one table and one chart, which none of
//! the comparison sites shows. Rows are matched across directories as
//! `compare` matches them (the variant id, or a published row's language
//! and flags through the languages file's aliases). Editions measured on
//! different machines or at different sizes are flagged, never compared
//! silently; `--relative-to VARIANT` divides each edition's totals by that
//! variant's in the same edition, which is what compares across machines.
//!
//! Here is the command; `table` builds the history's document.
//!
//! Its face: [`command`] for main.rs and `table::document` for `report`
//! (which rebuilds a history directory); the rest is its inside.

pub(crate) mod table;

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::compare::edition::Edition;
use crate::config::Languages;

use table::document;

/// `langbench history DIR...`: the history printed in `format`, and with
/// `out` also written there in every format, with what it was built from.
pub fn command(
    languages: impl FnOnce() -> Result<Languages> + Send,
    dirs: &[PathBuf],
    relative_to: Option<&str>,
    format: langbench_document::export::format::Format,
    width: Option<usize>,
    out: Option<&Path>,
) -> Result<std::process::ExitCode> {
    let dir_refs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
    let (langs, editions) = Edition::load_with(languages, &dir_refs)?;
    let refs: Vec<&Edition> = editions.iter().collect();
    let doc = document(&langs, &refs, relative_to)?;
    // Left for the process's exit to free: every record and summary of
    // every edition, 8 % of the command's time at scale (perf, issue #41),
    // and the languages file.
    std::mem::forget(editions);
    std::mem::forget(langs);
    print!("{}", format.text(&doc, width)?);
    if let Some(out) = out {
        // Created, and refused if reached through a link or holding one,
        // before anything is written (src/store.rs).
        crate::store::Store::open(out)?;
        let inputs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
        let prov = crate::derived::provenance::Provenance::new(
            crate::derived::provenance::Kind::History,
            out,
            &inputs,
            relative_to.map(String::from),
        )?;
        crate::derived::write_comparison(out, "history", &doc, &prov)?;
        eprintln!("Wrote the history to {}", out.display());
    }
    Ok(std::process::ExitCode::SUCCESS)
}
