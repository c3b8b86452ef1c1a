//! A stored reproducibility check judged against the records it claims
//! (issue #59, rows 7 and 8): `reproduced/*.json` comes with a results
//! directory, from whoever made it (a pull request can add one), so
//! nothing it says is taken on its word.
//!
//! - Its `edition` ratios must be the edition's, recomputed here from the
//!   edition's records exactly as `reproduce` computed them ([`ratios`]),
//!   within float tolerance ([`TOLERANCE`]): a hand-written check, or one
//!   made from other records, is refused.
//! - Its `remeasured` ratios must be its run directory's (the directory
//!   `reproduce` measured into, found beside the edition by
//!   `store::beside`), recomputed from that directory's records, where it
//!   is there; so must the CPU it names be.
//! - Its level (same boot, another boot, another CPU model) comes from the
//!   records: its run directory's session where there is one, else what
//!   the check recorded (`cpu_id`, `boot_id`; an older check only its
//!   machine's name: the level is then unknown).
//!
//! A check that does not verify is [`Verdict::Refused`] with the reason:
//! it sets no precision and is shown as refused, never silently dropped.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Result, ensure};
use serde::{Deserialize, Serialize};

use super::{Agreement, Level, Place, level};
use crate::bench::Bench;
use crate::machine::Machine;
use crate::record::RunRecord;
use crate::reference::{HostSpeed, Normalised};
use crate::store::{RunDir, Stored};

/// Two ratios are the same within this relative difference: the same
/// records give the same ratios, bit for bit, through JSON and back; the
/// tolerance only forgives a last-digit rounding.
pub(crate) const TOLERANCE: f64 = 1e-9;

/// How the edition's ratios were computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum EditionBasis {
    /// Against its references interpolated to each run's time.
    ReferencePasses,
    /// Against its reference variants' cells as measured (an edition
    /// without `references.jsonl`).
    ReferenceCells,
}

/// The row's key: "variant bench".
pub(crate) fn key(variant: &str, bench: Bench) -> String {
    format!("{variant} {bench}")
}

/// Each cell's ratio to the references interpolated to its runs' times
/// (`None` for a cell that cannot be: no figure, no pass around it).
pub(crate) fn ratios_by_passes(
    stored: &Stored,
    host: &HostSpeed,
    only: &dyn Fn(&str) -> bool,
) -> BTreeMap<String, Option<Normalised>> {
    stored
        .newest_cells()
        .into_iter()
        .filter(|((v, _), _)| only(v))
        .map(|((v, b), runs)| {
            let n = host.level(b).and_then(|level| {
                Normalised::of(host, runs.iter().copied()).map(|n| n.over(level))
            });
            (key(&v, b), n)
        })
        .collect()
}

/// An old edition's ratios: each cell's best over the geometric mean of
/// its reference variants' bests for the benchmark, as measured.
pub(crate) fn ratios_by_cells(
    stored: &Stored,
    references: &[String],
    only: &dyn Fn(&str) -> bool,
) -> Result<BTreeMap<String, Option<Normalised>>> {
    let best = |runs: &[&RunRecord]| {
        runs.iter()
            .filter(|r| r.status.has_figures() && r.wall_s > 0.0)
            .map(|r| r.wall_s)
            .fold(None, |a: Option<f64>, w| Some(a.map_or(w, |a| a.min(w))))
    };
    let cells = stored.newest_cells();
    let mut level: BTreeMap<Bench, f64> = BTreeMap::new();
    for b in Bench::CPU {
        let walls: Vec<f64> = references
            .iter()
            .filter_map(|v| cells.get(&(v.clone(), b)).and_then(|r| best(r)))
            .collect();
        if !walls.is_empty() {
            let g = (walls.iter().map(|w| w.ln()).sum::<f64>() / walls.len() as f64).exp();
            level.insert(b, g);
        }
    }
    ensure!(
        !level.is_empty(),
        "the edition has no reference passes (references.jsonl) and none of its references ({}) has a figure: there is nothing to take its ratios against",
        references.join(", ")
    );
    Ok(cells
        .iter()
        .filter(|((v, _), _)| only(v))
        .map(|((v, b), runs)| {
            let n = match (best(runs), level.get(b)) {
                (Some(w), Some(l)) => Some(Normalised {
                    mean: w / l,
                    lo: w / l,
                    hi: w / l,
                    runs: runs.len(),
                }),
                _ => None,
            };
            (key(v, *b), n)
        })
        .collect())
}

/// The edition's ratios of the variants `only` keeps, on `basis` (its
/// reference passes when it has them, else its reference cells).
pub(crate) fn ratios(
    stored: &Stored,
    basis: EditionBasis,
    references: &[String],
    only: &dyn Fn(&str) -> bool,
) -> Result<BTreeMap<String, Option<Normalised>>> {
    match basis {
        EditionBasis::ReferencePasses => match HostSpeed::of(stored, None) {
            Some(h) => Ok(ratios_by_passes(stored, &h, only)),
            None => anyhow::bail!("it has no reference passes"),
        },
        EditionBasis::ReferenceCells => ratios_by_cells(stored, references, only),
    }
}

/// What a stored check holds, as read back (every field but its rows
/// optional: a hand-written one may leave any out).
#[derive(Debug, Deserialize)]
struct StoredCheck {
    #[serde(default)]
    references: Vec<String>,
    #[serde(default)]
    edition_basis: Option<EditionBasis>,
    #[serde(flatten)]
    agreement: Agreement,
    #[serde(default)]
    run: Option<String>,
    #[serde(default)]
    cpu_id: String,
    #[serde(default)]
    boot_id: String,
}

/// Whether a check holds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    /// Its edition ratios are the records'; `runs`: its re-measured ones
    /// were checked against its run directory (named), or it is not here.
    Verified { runs: Option<String> },
    /// Ignored, and why (said on the page and the terminal).
    Refused(String),
}

/// A stored check, read and judged.
#[derive(Debug, Clone)]
pub(crate) struct Check {
    /// Its file name in `reproduced/`.
    pub file: String,
    /// Its rows, date and machine name (empty when it could not be read).
    pub agreement: Agreement,
    pub verdict: Verdict,
    pub level: Level,
    /// The CPU model known by its name only (no `cpu_id` on a side).
    pub by_name: bool,
    /// Where it ran.
    pub place: Place,
    /// Its run directory's name as it names it (`run`), found or not.
    pub run: Option<String>,
}

impl Check {
    /// Verified: it may count.
    pub(crate) fn verified(&self) -> bool {
        matches!(self.verdict, Verdict::Verified { .. })
    }

    /// Verified and on the edition's CPU model: it measures the
    /// precision.
    pub(crate) fn measures_precision(&self) -> bool {
        self.verified() && self.level.precision() && !self.agreement.rows.is_empty()
    }

    /// Verified and on another CPU model: it measures portability.
    pub(crate) fn measures_portability(&self) -> bool {
        self.verified() && !self.level.precision() && !self.agreement.rows.is_empty()
    }

    /// Its date (the day).
    pub(crate) fn day(&self) -> &str {
        let d = &self.agreement.date;
        d.get(..10).unwrap_or(d)
    }

    /// The check in `bytes` (file `file` of `edition`'s `reproduced/`),
    /// judged against the edition's records and its run directory's;
    /// `main`: the machine most of the edition's rows ran on.
    pub(crate) fn judge(
        file: &str,
        bytes: &[u8],
        edition: &Stored,
        main: Option<&Machine>,
    ) -> Check {
        let refused = |why: String| Check {
            file: file.to_string(),
            agreement: Agreement {
                date: String::new(),
                machine: String::new(),
                rows: Vec::new(),
                unmatched: Vec::new(),
            },
            verdict: Verdict::Refused(why),
            level: Level::AnotherCpuModel,
            by_name: true,
            place: Place::default(),
            run: None,
        };
        let s: StoredCheck = match serde_json::from_slice(bytes) {
            Ok(s) => s,
            Err(e) => return refused(format!("not a reproducibility check ({e})")),
        };
        let run_dir = edition.reproduction_runs.get(file);
        let place = check_place(&s, run_dir);
        let (level, by_name) = level(&place, &Place::of_edition(edition, main));
        let verdict = match verify(&s, edition, run_dir) {
            Ok(runs) => Verdict::Verified { runs },
            Err(why) => Verdict::Refused(why),
        };
        Check {
            file: file.to_string(),
            run: s.run.clone().or_else(|| run_dir.map(|r| r.name.clone())),
            agreement: s.agreement,
            verdict,
            level,
            by_name,
            place,
        }
    }
}

/// Where the check ran: its run directory's newest session's machine
/// where its records are here, else what the check recorded.
fn check_place(s: &StoredCheck, run_dir: Option<&RunDir>) -> Place {
    if let Some(m) = run_dir
        .and_then(|r| r.records.as_ref().ok())
        .and_then(|r| r.sessions.last())
        .map(|s| &s.machine)
    {
        return Place::of_machine(m);
    }
    Place {
        cpu_id: s.cpu_id.clone(),
        name: s.agreement.machine.clone(),
        boots: [s.boot_id.clone()]
            .into_iter()
            .filter(|b| !b.is_empty())
            .collect(),
        all_boots: !s.boot_id.is_empty(),
    }
}

/// Whether two ratios are the same (see [`TOLERANCE`]).
fn same(a: f64, b: f64) -> bool {
    a.is_finite() && b.is_finite() && b > 0.0 && (a / b - 1.0).abs() <= TOLERANCE
}

/// The check against the records: `Ok(Some(dir))` verified against the
/// edition and its run directory, `Ok(None)` against the edition (its run
/// directory is not here), `Err(why)` it does not hold.
fn verify(
    s: &StoredCheck,
    edition: &Stored,
    run_dir: Option<&RunDir>,
) -> Result<Option<String>, String> {
    let rows = &s.agreement.rows;
    if rows.is_empty() {
        return Err("it has no rows".into());
    }
    if let Some(r) = rows.iter().find(|r| {
        !(r.edition.is_finite()
            && r.edition > 0.0
            && r.remeasured.is_finite()
            && r.remeasured > 0.0)
    }) {
        return Err(format!(
            "its row {} is no pair of ratios ({} and {})",
            r.variant, r.edition, r.remeasured
        ));
    }
    let variants: BTreeSet<&str> = rows
        .iter()
        .map(|r| {
            r.variant
                .rsplit_once(' ')
                .map_or(r.variant.as_str(), |(v, _)| v)
        })
        .collect();
    let only = |v: &str| variants.contains(v);
    let basis = s
        .edition_basis
        .unwrap_or(if HostSpeed::of(edition, None).is_some() {
            EditionBasis::ReferencePasses
        } else {
            EditionBasis::ReferenceCells
        });
    let theirs = ratios(edition, basis, &s.references, &only)
        .map_err(|e| format!("the edition's ratios cannot be computed as it says ({e:#})"))?;
    for r in rows {
        match theirs.get(&r.variant).copied().flatten() {
            Some(n) if same(r.edition, n.mean) => {}
            Some(n) => {
                return Err(format!(
                    "its edition ratio of {} is {:.4}, the edition's records give {:.4}: it was \
                     not made from these records (edited, or the records changed since)",
                    r.variant, r.edition, n.mean
                ));
            }
            None => {
                return Err(format!(
                    "the edition's records have no ratio of {}: it was not made from them",
                    r.variant
                ));
            }
        }
    }
    let Some(dir) = run_dir else {
        return Ok(None);
    };
    let runs = dir
        .records
        .as_ref()
        .map_err(|e| format!("its run directory {} cannot be read: {e}", dir.name))?;
    verify_runs(s, runs, &dir.name, &only)?;
    Ok(Some(dir.name.clone()))
}

/// The re-measured ratios and the CPU against the run directory's
/// records.
fn verify_runs(
    s: &StoredCheck,
    runs: &Stored,
    name: &str,
    only: &dyn Fn(&str) -> bool,
) -> Result<(), String> {
    let Some(host) = HostSpeed::of(runs, Some(&s.references)) else {
        return Err(format!(
            "its run directory {name} has no reference pass of its references ({})",
            s.references.join(", ")
        ));
    };
    let theirs = ratios_by_passes(runs, &host, only);
    for r in &s.agreement.rows {
        match theirs.get(&r.variant).copied().flatten() {
            Some(n) if same(r.remeasured, n.mean) => {}
            Some(n) => {
                return Err(format!(
                    "its re-measured ratio of {} is {:.4}, its run directory {name} gives {:.4}",
                    r.variant, r.remeasured, n.mean
                ));
            }
            None => {
                return Err(format!(
                    "its run directory {name} has no ratio of {}",
                    r.variant
                ));
            }
        }
    }
    let recorded = runs.sessions.last().map(|x| x.machine.cpu_id.as_str());
    if !s.cpu_id.is_empty() && recorded.is_some_and(|c| c != s.cpu_id) {
        return Err(format!(
            "it says it ran on {}, its run directory {name}'s session on {}",
            s.cpu_id,
            recorded.unwrap_or_default()
        ));
    }
    Ok(())
}
