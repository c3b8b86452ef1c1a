//! The comparison as a document ([`compare`]): its facts (the editions,
//! machines, how ratios and noise are read, what it was built from), the
//! CPU tables and chart (`cpu`) and the ws-echo table (`ws`).

use anyhow::{Result, ensure};

use super::basis::{self, Basis};
use super::cpu::cpu;
use super::edition::{Edition, Options};
use super::ws::ws;
use crate::config::Languages;
use crate::machine::Machine;
use langbench_document::Document;

/// The comparison as a document: the CPU table, the ws table, added and
/// dropped variants, and old-vs-new charts.
pub(crate) fn compare(
    langs: &Languages,
    old: &Edition,
    new: &Edition,
    opts: &Options,
) -> Result<Document> {
    let rel = opts.relative_to.as_deref();
    let bases = [Basis::of(old, rel), Basis::of(new, rel)];
    let mut doc = Document {
        title: format!(
            "langbench comparison: {} → {}",
            old.heading(),
            new.heading()
        ),
        meta: meta(old, new, opts, &bases),
        as_of: Edition::newest([old, new]),
        ..Default::default()
    };
    if let (Some(so), Some(sn)) = (&old.summary, &new.summary) {
        let (table, changes, charts, both) =
            cpu(langs, old, new, so, sn, opts, [&bases[0], &bases[1]])?;
        let normalised: String = [("old", so, &bases[0]), ("new", sn, &bases[1])]
            .into_iter()
            .filter(|(_, _, b)| b.references())
            .map(|(side, s, _)| {
                format!(
                    "; the {side} side, measured with reference passes, is ranked as its own \
                     table ranks it, by normalised total: {}",
                    s.precision_sentence()
                )
            })
            .collect();
        doc.meta.push((
            "Rank".into(),
            format!(
                "position by total time among the {both} variants with a complete row in both \
                 directories (not each edition's own rank: variants one side lacks would move \
                 it): 1 + the rows certainly faster (their bands, the range of their runs, do \
                 not overlap), = where another row's band overlaps{normalised}"
            ),
        ));
        for (side, s) in [("old", so), ("new", sn)] {
            if let Some(line) = s.checks_line() {
                doc.meta.push((format!("Checks ({side})"), line));
            }
        }
        doc.tables.push(table);
        doc.tables.push(changes);
        doc.charts.extend(charts);
    }
    if !old.ws.is_empty() && !new.ws.is_empty() {
        doc.tables.push(ws(langs, old, new));
    }
    ensure!(
        !doc.tables.is_empty(),
        "{} and {} hold no common kind of results (CPU benchmarks or ws-echo)",
        old.dir.display(),
        new.dir.display()
    );
    Ok(doc)
}

/// The facts above the tables: the editions, their machines, how ratios
/// and noise are read, what the comparison was built from.
fn meta(old: &Edition, new: &Edition, opts: &Options, bases: &[Basis; 2]) -> Vec<(String, String)> {
    let mut meta = vec![
        (
            "Old".into(),
            format!("{} ({}): {}", old.label, old.dir.display(), old.about()),
        ),
        (
            "New".into(),
            format!("{} ({}): {}", new.label, new.dir.display(), new.about()),
        ),
    ];
    if let (Some(a), Some(b)) = (old.machine(), new.machine()) {
        meta.push(("Machines".into(), machines_text(a, b, opts)));
    }
    meta.push((
        "Ratio".into(),
        match &opts.relative_to {
            Some(v) => format!(
                "every figure is RELATIVE to {v} in the same edition (its time or RAM = 1.00); \
                 × is new / old of those relative figures"
            ),
            None => "× is new / old of the figures (best of N): below 1.00 is faster (time) or \
                     smaller (RAM)"
                .into(),
        },
    ));
    meta.extend(basis::fact(&[("old", &bases[0]), ("new", &bases[1])]));
    meta.push(("Noise".into(), noise_text(old, new, opts, bases)));
    meta.push((
        "Built from".into(),
        format!(
            "the records of {} (digest {}) and {} (digest {}); `langbench report` rebuilds it \
             when they change, `langbench report --check` tells when it is stale",
            old.dir.display(),
            old.digest,
            new.dir.display(),
            new.digest
        ),
    ));
    meta
}

/// The same machine (perhaps another kernel build), or which two.
fn machines_text(a: &Machine, b: &Machine, opts: &Options) -> String {
    if !a.same_as(b) {
        return format!(
            "DIFFERENT: old on {}; new on {}. Ratios compare machines as well as toolchains{}",
            a.describe(),
            b.describe(),
            if opts.relative_to.is_some() {
                ""
            } else {
                "; `--relative-to VARIANT` compares relative speed instead"
            }
        );
    }
    if a.kernel_differs(b) {
        format!(
            "the same: {} (kernel builds {} and {}: noted, not counted as another machine)",
            a.hardware(),
            a.kernel,
            b.kernel
        )
    } else {
        format!("the same: {}", a.describe())
    }
}

/// How changes are told from noise, and where they cannot be.
pub(super) fn noise_text(
    old: &Edition,
    new: &Edition,
    opts: &Options,
    bases: &[Basis; 2],
) -> String {
    let mut text = "a cell whose sides both have two or more runs is tested: `faster` or \
                    `slower` when the 95% confidence interval of the ratio of its runs' \
                    geometric means excludes 1 (Welch's t-test on log run times), else `not \
                    significant`, written `≈` after the ratio; the page shows the interval \
                    under the ratio"
        .to_string();
    if opts.relative_to.is_some() && bases.iter().all(Basis::references) {
        text.push_str(
            ". With --relative-to, on the ratios of each run to the reference passes of its \
             sitting (their median: its noise is in every ratio of that sitting)",
        );
    } else if opts.relative_to.is_some()
        && bases.iter().any(Basis::references)
        && (old.published() || new.published())
    {
        text.push_str(
            ". With --relative-to, on the ratios of each run to the reference passes of its \
             sitting (their median: its noise is in every ratio of that sitting), against \
             the published figures",
        );
    } else if opts.relative_to.is_some() {
        text.push_str(
            ". With --relative-to no cell is tested (the reference's own noise is in every \
             relative figure)",
        );
    }
    for e in [old, new] {
        if e.published() {
            text.push_str(&format!(
                ". {} is a published edition: one figure per cell (its published best of 3) and \
                 NO PER-RUN DATA: a cell is tested on the other side's runs alone where it has \
                 two or more (Student's t on their log times around the published figure; the \
                 published figure's own noise is unknown and not in the interval), else its \
                 ratio is bare",
                e.label
            ));
        }
    }
    text
}
