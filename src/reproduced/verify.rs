//! A stored reproducibility check judged against the records it claims
//! (issue #59, rows 7 and 8): `reproduced/*.json` comes with a results
//! directory, from whoever made it (a pull request can add one), so
//! nothing it says is taken on its word.
//!
//! **The ratios come from the records, never from the file.** A check is
//! its run directory (the directory `reproduce` measured into, found
//! beside the edition by `store::beside`) set against the edition: both
//! sides' ratios are recomputed here, from the edition's records and the
//! run directory's, with today's normaliser ([`ratios`],
//! [`crate::reference::NORMALISER`]). So a normaliser change re-reads
//! every stored check rather than refusing it, and a number edited in the
//! file changes nothing. The file is a claim, refused where it contradicts
//! its records in what no normaliser changes:
//!
//! - its run directory must be there and readable (without it nothing can
//!   be recomputed: a hand-written file with no records sets nothing);
//! - its rows (variant and benchmark) must be cells both sides measured,
//!   and it must leave out none of its run directory's re-measured cells
//!   (a check cannot pick its good rows);
//! - the CPU and boot it names must be its run directory's
//!   session's, and its edition basis (reference passes or cells) the
//!   edition's;
//! - its stored ratios must be the recomputed ones: exactly
//!   ([`TOLERANCE`]) when it names today's normaliser, within
//!   [`RENORMALISED`] when it was made with an earlier one (a normaliser
//!   moves a ratio by the host's speed between passes, not 40×).
//!
//! Its level (same boot, another boot, another CPU model) comes from the
//! run directory's session. A check that does not verify is
//! [`Verdict::Refused`] with the reason: it sets no precision and is shown
//! as refused, never silently dropped.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Result, ensure};
use serde::{Deserialize, Serialize};

use super::{Agreement, Level, Place, level};
use crate::bench::Bench;
use crate::machine::Machine;
use crate::record::RunRecord;
use crate::reference::{HostSpeed, NORMALISER, Normalised};
use crate::store::Stored;

/// Two ratios are the same within this relative difference: the same
/// records give the same ratios, bit for bit, through JSON and back; the
/// tolerance only forgives a last-digit rounding.
pub(crate) const TOLERANCE: f64 = 1e-9;

/// A check made with an earlier normaliser: its stored ratios may differ
/// from today's by at most this factor − 1 either way. Issue #60's change
/// of normaliser (interpolated passes, geometric mean → the sitting's
/// median pass, fastest run) moved results/2026's checks' ratios by at
/// most 13 %; a ratio 40× off is no normaliser's.
pub(crate) const RENORMALISED: f64 = 0.5;

/// How the edition's ratios were computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum EditionBasis {
    /// Against its references in each run's sitting.
    ReferencePasses,
    /// Against its reference variants' cells as measured (an edition
    /// without `references.jsonl`).
    ReferenceCells,
}

/// The row's key: "variant bench".
pub(crate) fn key(variant: &str, bench: Bench) -> String {
    format!("{variant} {bench}")
}

/// Each cell's ratio to the references of its runs' sittings
/// (`None` for a cell that cannot be: no figure, no pass in its sitting).
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
    /// The normaliser its ratios were computed with (absent before
    /// [`NORMALISER`] was stored: an earlier one).
    #[serde(default)]
    normaliser: Option<String>,
}

/// Whether a check holds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    /// Its ratios recomputed from the edition's records and its run
    /// directory's (named); `renormalised`: it was made with an earlier
    /// normaliser, and its stored ratios differ from today's by at most
    /// this much (ratio − 1, either way).
    Verified {
        runs: String,
        renormalised: Option<f64>,
    },
    /// Ignored, and why (said on the page and the terminal).
    Refused(String),
}

/// A stored check, read and judged.
#[derive(Debug, Clone)]
pub(crate) struct Check {
    /// Its file name in `reproduced/`.
    pub file: String,
    /// Its rows as the records give them (both sides recomputed), its
    /// date (its run directory's first session) and machine; empty when
    /// refused.
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
        let mut check = Check {
            file: file.to_string(),
            agreement: Agreement {
                date: String::new(),
                machine: String::new(),
                rows: Vec::new(),
                unmatched: Vec::new(),
            },
            verdict: Verdict::Refused(String::new()),
            level: Level::AnotherCpuModel,
            by_name: true,
            place: Place::default(),
            run: None,
        };
        let s: StoredCheck = match serde_json::from_slice(bytes) {
            Ok(s) => s,
            Err(e) => {
                check.verdict = Verdict::Refused(format!("not a reproducibility check ({e})"));
                return check;
            }
        };
        let run_dir = edition.reproduction_runs.get(file);
        check.run = s.run.clone().or_else(|| run_dir.map(|r| r.name.clone()));
        let runs = match run_dir.map(|d| (d, &d.records)) {
            None => {
                check.verdict = Verdict::Refused(missing_run_dir(&s));
                return check;
            }
            Some((d, Err(e))) => {
                check.verdict = Verdict::Refused(format!(
                    "its run directory {} cannot be read ({e}): its ratios cannot be recomputed",
                    d.name
                ));
                return check;
            }
            Some((d, Ok(runs))) => (d.name.as_str(), runs.as_ref()),
        };
        check.place = runs
            .1
            .sessions
            .first()
            .map(|x| Place::of_machine(&x.machine))
            .unwrap_or_default();
        (check.level, check.by_name) = level(&check.place, &Place::of_edition(edition, main));
        match verify(&s, edition, runs) {
            Ok((agreement, renormalised)) => {
                check.agreement = agreement;
                check.verdict = Verdict::Verified {
                    runs: runs.0.to_string(),
                    renormalised,
                };
            }
            Err(why) => check.verdict = Verdict::Refused(why),
        }
        check
    }
}

/// Why a check without its run directory is refused.
fn missing_run_dir(s: &StoredCheck) -> String {
    let named = match &s.run {
        Some(r) => format!("the run directory it names ({r}) is not beside the edition"),
        None => "it names no run directory (`run`) and no directory beside the edition holds \
                 the same reproduced.json"
            .into(),
    };
    format!(
        "{named}: without its records its ratios cannot be recomputed, so it sets nothing \
         (store the directory `reproduce --out` measured into beside the edition)"
    )
}

/// Whether stored ratio `a` is the records' `b`: exactly with today's
/// normaliser, within [`RENORMALISED`] with an earlier one; how far
/// apart (ratio − 1, either way) either way.
fn agrees(a: f64, b: f64, today: bool) -> (bool, f64) {
    if !(a.is_finite() && a > 0.0 && b.is_finite() && b > 0.0) {
        return (false, f64::INFINITY);
    }
    let by = (a / b).ln().abs().exp() - 1.0;
    let limit = if today { TOLERANCE } else { RENORMALISED };
    (by <= limit, by)
}

/// The check against its records (`runs`: its run directory's name and
/// records): the agreement the records give and, for a check made with
/// an earlier normaliser, how far its stored ratios were from them; or
/// why it does not hold.
fn verify(
    s: &StoredCheck,
    edition: &Stored,
    (name, runs): (&str, &Stored),
) -> Result<(Agreement, Option<f64>), String> {
    let rows = &s.agreement.rows;
    if rows.is_empty() {
        return Err("it has no rows".into());
    }
    verify_machine(s, runs, name)?;
    let basis = if HostSpeed::of(edition, None).is_some() {
        EditionBasis::ReferencePasses
    } else {
        EditionBasis::ReferenceCells
    };
    if let Some(said) = s.edition_basis.filter(|b| *b != basis) {
        return Err(format!(
            "it says the edition's ratios are {said:?}, the edition's records give {basis:?}"
        ));
    }
    let Some(host) = HostSpeed::of(runs, Some(&s.references)) else {
        return Err(format!(
            "its run directory {name} has no reference pass of its references ({})",
            s.references.join(", ")
        ));
    };
    let measured = ratios_by_passes(runs, &host, &|v| !s.references.iter().any(|r| r == v));
    let claimed: BTreeSet<&str> = rows
        .iter()
        .map(|r| r.variant.as_str())
        .chain(s.agreement.unmatched.iter().map(String::as_str))
        .collect();
    if let Some(left) = measured.keys().find(|k| !claimed.contains(k.as_str())) {
        return Err(format!(
            "it leaves out {left}, which its run directory {name} re-measured: a check cannot \
             choose its rows"
        ));
    }
    let variants: BTreeSet<&str> = claimed
        .iter()
        .map(|k| k.rsplit_once(' ').map_or(*k, |(v, _)| v))
        .collect();
    let only = |v: &str| variants.contains(v);
    let editions = ratios(edition, basis, &s.references, &only)
        .map_err(|e| format!("the edition's ratios cannot be computed ({e:#})"))?;
    let remeasured = ratios_by_passes(runs, &host, &only);
    let today = s.normaliser.as_deref() == Some(NORMALISER);
    let mut farthest: f64 = 0.0;
    for r in rows {
        let side = |m: &BTreeMap<String, Option<Normalised>>, what: &str| {
            m.get(&r.variant)
                .copied()
                .flatten()
                .map(|n| n.figure())
                .ok_or_else(|| {
                    format!(
                        "{what} has no ratio of {}: it was not made from them",
                        r.variant
                    )
                })
        };
        let e = side(&editions, "the edition's records")?;
        let m = side(&remeasured, &format!("its run directory {name}"))?;
        for (stored, records, what) in [(r.edition, e, "edition"), (r.remeasured, m, "re-measured")]
        {
            let (ok, by) = agrees(stored, records, today);
            if !ok {
                return Err(format!(
                    "its {what} ratio of {} is {stored:.4}, its records give {records:.4}{}",
                    r.variant,
                    if today {
                        " with the normaliser it names: edited, or made from other records"
                    } else {
                        ": more than a change of normaliser moves a ratio (edited, or made from \
                         other records)"
                    }
                ));
            }
            farthest = farthest.max(by);
        }
    }
    let date = runs
        .sessions
        .first()
        .map_or_else(|| s.agreement.date.clone(), |x| x.started_at.clone());
    let machine = runs
        .sessions
        .first()
        .map_or_else(|| s.agreement.machine.clone(), |x| x.machine.short());
    let claimed_rows: BTreeMap<String, Option<Normalised>> = claimed
        .iter()
        .map(|k| (k.to_string(), remeasured.get(*k).copied().flatten()))
        .collect();
    let edition_rows: BTreeMap<String, Normalised> = editions
        .into_iter()
        .filter_map(|(k, v)| Some((k, v?)))
        .collect();
    let agreement = Agreement::of(date, machine, &edition_rows, &claimed_rows);
    Ok((agreement, (!today).then_some(farthest)))
}

/// The CPU and boot the check names against its run directory's session
/// (not its machine's name: how langbench names a machine changes, what
/// the kernel says of the CPU and the boot does not).
fn verify_machine(s: &StoredCheck, runs: &Stored, name: &str) -> Result<(), String> {
    let Some(m) = runs.sessions.first().map(|x| &x.machine) else {
        return Err(format!("its run directory {name} has no session"));
    };
    for (what, said, recorded) in [
        ("CPU", &s.cpu_id, &m.cpu_id),
        ("boot", &s.boot_id, &m.boot_id),
    ] {
        if !said.is_empty() && said != recorded {
            return Err(format!(
                "it says its {what} was {said}, its run directory {name}'s session recorded {}",
                if recorded.is_empty() {
                    "none"
                } else {
                    recorded
                }
            ));
        }
    }
    Ok(())
}
