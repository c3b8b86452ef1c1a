//! `langbench compare OLD NEW`: two results directories (a published
//! edition and this year's run, or any two), variant by variant and
//! benchmark by benchmark: old and new figures, their ratio (new / old), the
//! rank and the version in each. Rows are matched by variant: the id, or a
//! published row's language and flags through `aliases` in the languages
//! file. A different N or a different machine is flagged, never compared
//! silently; `--relative-to` divides each edition's figures by one
//! variant's in that edition, so editions from different machines compare
//! as relative speed.
//!
//! How sure: where both sides of a cell have per-run data (two runs or
//! more each), the change is tested against the noise of those runs (the
//! runs of its spread: a cold first run is left out where the cell has two
//! warm ones, see [`crate::noise::NoiseSample`])
//! ([`significance`]: Welch's t-test on the logarithms of the run times)
//! and called `faster`, `slower` or `not significant`, with the 95%
//! confidence interval of the ratio. A published edition has one figure per
//! cell (the published best of 3) and no runs, and the comparison says so.
//!
//! A comparison directory records what it was built from
//! ([`crate::derived::provenance`]), so `langbench report` can rebuild it
//! when an input changes and `report --check` can tell a stale one.
//!
//! Here is the command; `edition` loads a directory and matches its rows,
//! `table` builds the comparison's document from `cpu` (the CPU table, its
//! chart, the added and dropped variants) and `ws` (the ws-echo table),
//! `significance` tells a change from noise.
//!
//! Its face: [`command`] for main.rs; for `history` and `report`,
//! `edition`'s `Edition` (`load`, `newest`, its `dir` and `summary`), `Keys`
//! and `Options` (also `cli`'s), `basis`'s `Basis` (`of`, `total`,
//! `total_range`, `references`) and `fact`, and `table::compare`; the rest is
//! its inside.

pub(crate) mod basis;
mod cells;
mod cpu;
pub(crate) mod edition;
mod significance;
pub(crate) mod table;
mod ws;

use std::path::Path;

use anyhow::Result;

use crate::config::Languages;
use edition::{Edition, Options};
use table::compare;

/// `langbench compare OLD NEW`: the comparison printed in `format`, and
/// with `out` also written there in every format.
pub fn command(
    languages: impl FnOnce() -> Result<Languages> + Send,
    old: &Path,
    new: &Path,
    opts: &Options,
    format: langbench_document::export::format::Format,
    width: Option<usize>,
    out: Option<&Path>,
) -> Result<std::process::ExitCode> {
    let (langs, editions) = Edition::load_with(languages, &[old, new])?;
    let doc = compare(&langs, &editions[0], &editions[1], opts)?;
    // Left for the process's exit to free: every record and summary of
    // both editions, a tenth of the command's time at scale (issue #41),
    // and the languages file.
    std::mem::forget(editions);
    std::mem::forget(langs);
    print!("{}", format.text(&doc, width)?);
    if let Some(out) = out {
        // Created, and refused if reached through a link or holding one,
        // before anything is written (src/store.rs).
        crate::store::Store::open(out)?;
        let prov = crate::derived::provenance::Provenance::new(
            crate::derived::provenance::Kind::Comparison,
            out,
            &[old, new],
            opts.relative_to.clone(),
        )?;
        crate::derived::write_comparison(out, "compare", &doc, &prov)?;
        eprintln!("Wrote the comparison to {}", out.display());
    }
    Ok(std::process::ExitCode::SUCCESS)
}
