//! How one edition's figures are taken in a comparison or a history
//! (issue #39): against the reference passes of each run's sitting,
//! against the reference variant of the run's own session, or as measured.
//!
//! A host does not run at one speed: the same C programs took 34 to 48 s
//! in the sittings of one boot. Dividing every cell of an edition by one
//! figure of its reference (the `--relative-to` row, measured in one
//! sitting) flatters or penalises every row measured in another state of
//! the host. So each edition is read on the best basis it has:
//!
//! - **references** (`references.jsonl`): each cell's runs over the
//!   median of the reference passes of each run's sitting, the same
//!   computation the summary's normalised columns are
//!   ([`crate::reference::Normalised`]). Without `--relative-to`, the
//!   figure is the summary's normalised seconds (as the host runs at its
//!   median state); with it, the fastest of the runs' ratios to that
//!   variant's passes alone (`HostSpeed::of` judged by it).
//! - **sessions**: no passes of the reference variant, but it was measured
//!   in more than one session (sitting): a cell measured in a session
//!   where the reference variant ran too is divided by the reference's
//!   figure of that session, the others as before.
//! - **measured**: neither: today's figures (best of N; over the
//!   reference row's figure with `--relative-to`).

use std::collections::BTreeMap;

use super::edition::Edition;
use crate::bench::Bench;
use crate::record::Status;
use crate::reference::{HostSpeed, Normalised};
use crate::summary::{Cell, Row};

/// How one edition's figures are taken.
pub(crate) enum Basis {
    /// As measured: best of N (over the reference row's with
    /// `--relative-to`), as before reference passes.
    Measured,
    /// Against the reference passes of each run's sitting.
    References {
        host: HostSpeed,
        /// `--relative-to`'s variant: figures are ratios to its passes
        /// (else seconds at the host's median state).
        relative: Option<String>,
    },
    /// Against the reference variant's figure of the cell's own session.
    Sessions {
        variant: String,
        /// (session, benchmark) → the reference's best ok run there.
        best: BTreeMap<(String, Bench), f64>,
        sessions: usize,
    },
}

/// A cell's (or a total's) figure on a basis: seconds or × reference, and
/// the runs a change is tested on (none where they are not per run).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Figure {
    pub value: f64,
    pub runs: Vec<f64>,
}

/// A cell measured here with a figure (not a published one: no reference
/// ran around it).
fn measured(c: &Cell) -> bool {
    c.status.is_ok() && c.wall_s().is_some() && !c.published()
}

impl Basis {
    /// The basis `edition` affords, with `relative_to` (see the module).
    pub(crate) fn of(edition: &Edition, relative_to: Option<&str>) -> Basis {
        let Some(s) = &edition.summary else {
            return Basis::Measured;
        };
        if s.published {
            return Basis::Measured;
        }
        let Some(v) = relative_to else {
            return match &s.host {
                Some(host) => Basis::References {
                    host: host.clone(),
                    relative: None,
                },
                None => Basis::Measured,
            };
        };
        if let Some(host) = HostSpeed::of(&edition.stored, Some(&[v.to_string()])) {
            return Basis::References {
                host,
                relative: Some(v.to_string()),
            };
        }
        let mut best: BTreeMap<(String, Bench), f64> = BTreeMap::new();
        for r in &edition.stored.runs {
            if r.variant != v || r.status != Status::Ok || !(r.wall_s > 0.0 && r.wall_s.is_finite())
            {
                continue;
            }
            let e = best.entry((r.session.clone(), r.bench)).or_insert(r.wall_s);
            *e = e.min(r.wall_s);
        }
        let mut sessions: Vec<&str> = best.keys().map(|(s, _)| s.as_str()).collect();
        sessions.dedup();
        if sessions.len() > 1 {
            let sessions = sessions.len();
            Basis::Sessions {
                variant: v.to_string(),
                best,
                sessions,
            }
        } else {
            Basis::Measured
        }
    }

    /// Whether figures come from reference passes (the `--relative-to`
    /// row is then not needed for them).
    pub(crate) fn references(&self) -> bool {
        matches!(self, Basis::References { .. })
    }

    /// `row`'s figure in `b` on this basis; `None` where it is the
    /// measured one (the caller's, as before): a cell not normalised (no
    /// passes around a run of it), or of the reference's own session.
    /// `reference`: the `--relative-to` row.
    pub(crate) fn cell(&self, row: &Row, b: Bench, reference: Option<&Row>) -> Option<Figure> {
        let c = row.cells.get(&b).filter(|c| measured(c))?;
        match self {
            Basis::Measured => None,
            Basis::References { host, relative } => {
                let by = match relative {
                    Some(_) => host.level(b)?,
                    None => 1.0,
                };
                // Each run normalised once: the figure is their fastest.
                let runs = Normalised::runs(host, c.status_runs())?;
                let n = Normalised::of_times(&runs)?;
                Some(Figure {
                    value: n.figure() / by,
                    runs: runs.into_iter().map(|x| x / by).collect(),
                })
            }
            Basis::Sessions { .. } => {
                let (by, _) = self.session_reference(c, b, reference?)?;
                Some(Figure {
                    value: c.wall_s()? / by,
                    runs: Vec::new(),
                })
            }
        }
    }

    /// The reference's figure of `c`'s own session in `b`, and the
    /// reference row's shown one, where they differ in session.
    fn session_reference(&self, c: &Cell, b: Bench, reference: &Row) -> Option<(f64, f64)> {
        let Basis::Sessions { best, .. } = self else {
            return None;
        };
        let shown = reference.cells.get(&b)?;
        let session = &c.best.as_ref()?.session;
        if shown.best.as_ref().is_some_and(|r| &r.session == session) {
            return None;
        }
        Some((*best.get(&(session.clone(), b))?, shown.wall_s()?))
    }

    /// `row`'s total on this basis (a complete row's; `None` where it is
    /// the measured one).
    pub(crate) fn total(&self, row: &Row, reference: Option<&Row>) -> Option<f64> {
        row.total_s()?;
        match self {
            Basis::Measured => None,
            Basis::References { relative: None, .. } => Some(row.normalised_total()?.figure()),
            Basis::References {
                host,
                relative: Some(_),
            } => {
                let (sum, level) = relative_sums(host, row)?;
                Some(sum.figure() / level)
            }
            Basis::Sessions { .. } => {
                // Each cell in the reference's shown state (its seconds ×
                // the shown reference over its own session's), added up,
                // over the shown reference's total.
                let reference = reference?;
                let (mut sum, mut level, mut moved) = (0.0, 0.0, false);
                for (b, c) in &row.cells {
                    let shown = reference.cells.get(b)?.wall_s()?;
                    let wall = c.wall_s()?;
                    match self.session_reference(c, *b, reference) {
                        Some((own, shown)) => {
                            sum += wall * shown / own;
                            moved = true;
                        }
                        None => sum += wall,
                    }
                    level += shown;
                }
                (moved && level > 0.0).then(|| sum / level)
            }
        }
    }

    /// The whiskers of a total on this basis, where it has its own: the
    /// normalised total's fastest and slowest (the sums of its cells'
    /// fastest and slowest normalised runs, the interval ranks are shared
    /// by); relative to `--relative-to`, those sums over the reference's
    /// level added up, as [`Basis::total`] divides the means.
    pub(crate) fn total_range(&self, row: &Row) -> Option<(f64, f64)> {
        match self {
            Basis::References { relative: None, .. } => {
                row.normalised_total().map(|n| (n.lo, n.hi))
            }
            Basis::References {
                host,
                relative: Some(_),
            } => {
                row.total_s()?;
                let (sum, level) = relative_sums(host, row)?;
                Some((sum.lo / level, sum.hi / level))
            }
            _ => None,
        }
    }

    /// How `label`'s figures were taken, in words.
    pub(crate) fn text(&self, label: &str) -> String {
        match self {
            Basis::Measured => format!("{label}: as measured (best of N), no reference passes"),
            Basis::References {
                host,
                relative: None,
            } => format!(
                "{label}: normalised against its reference passes ({}), the median of each \
                 run's sitting's, the fastest of a cell's counted runs (seconds as the host \
                 runs at its median state)",
                host.set.join(", ")
            ),
            Basis::References {
                relative: Some(v), ..
            } => format!(
                "{label}: each run over the median of {v}'s reference passes in its sitting, \
                 the fastest of a cell's counted runs"
            ),
            Basis::Sessions {
                variant, sessions, ..
            } => format!(
                "{label}: no reference passes of {variant}; a cell is divided by {variant}'s \
                 best of N in the session that measured it where {variant} ran there too (it \
                 ran in {sessions} sessions), else by {variant}'s row"
            ),
        }
    }
}

/// A row's normalised cells added up (fastest and slowest) and
/// the references' level added up over the same benchmarks: each sum over
/// the level is the total relative to the reference (the total's figure
/// and its interval). `None` where a cell has no normalised figure or the
/// level is not positive.
fn relative_sums(host: &HostSpeed, row: &Row) -> Option<(Normalised, f64)> {
    let mut cells = Vec::new();
    let mut level = 0.0;
    for (b, c) in &row.cells {
        cells.push(Normalised::of(host, c.status_runs())?);
        level += host.level(*b)?;
    }
    let sum = Normalised::sum(cells)?;
    (level > 0.0).then_some((sum, level))
}

/// The fact line saying how each side was taken, when one is not as
/// measured (a comparison of editions without reference passes stays as
/// it was).
pub(crate) fn fact(sides: &[(&str, &Basis)]) -> Option<(String, String)> {
    if sides.iter().all(|(_, b)| matches!(b, Basis::Measured)) {
        return None;
    }
    let text = sides
        .iter()
        .map(|(label, b)| b.text(label))
        .collect::<Vec<_>>()
        .join("; ");
    Some(("Normalised".into(), text))
}
