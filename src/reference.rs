//! The host's speed over time, as the reference set shows it (issues #39,
//! #60).
//!
//! A shared machine does not run at one speed: the same C programs, measured
//! after each sitting of one boot, took from 34 to 48 s. A session measuring
//! in rounds therefore measures a small reference set (by default c-gcc and
//! c-tcc, `[edition] references` of languages.toml; every benchmark, one run
//! each) at its start and after every block of about 15 minutes
//! (`references.jsonl`, each run with its `block`).
//!
//! The host's speed in a **sitting** (one session) is, per benchmark, the
//! median of its passes' speeds (each pass: the geometric mean of its
//! references' times over their levels, a reference's level the median of
//! its passes over the directory). A run's **ratio** is its wall time over
//! the references' at that speed, and its **normalised** time that ratio
//! times the references' level: seconds as the host runs at its median
//! state. Per benchmark, because the host slows memory-bound code (assoc)
//! more than compute-bound code.
//!
//! Why the sitting's median and not the passes around each run (what
//! issue #39 first did, interpolating between the pass before a run and
//! the pass after it): a pass is one run of each reference, and from pass
//! to pass the references spread more (c-gcc 1.6–7.7 %, c-tcc 3.6–15.5 %
//! CV) than the cells' own runs do (median 1.6 %), so dividing each run by
//! the passes around it added their noise to every run. Measured on the
//! stored records (`benches/normalisers.py`, docs/measurement.md,
//! "Choosing the normaliser"), the sitting's median did better than single
//! passes and than no normalisation at all; what it does not follow is a
//! change of the host within a sitting (the Precision fact's drift and
//! moved passes still show one).
//!
//! A cell's normalised **figure** is its fastest counted run normalised
//! (the warm ones: [`NoiseSample`]), with the slowest as the other end of
//! its interval. The fastest, as the table's seconds are the best of N:
//! with one speed per sitting, what a run's error is made of is what
//! slowed it (other work, the host's memory): one-sided, so the fastest
//! run is the least disturbed one. The geometric mean of the normalised
//! runs reproduced fewer rows (the same document).

use std::collections::BTreeMap;

use crate::bench::Bench;
use crate::noise::NoiseSample;
use crate::record::RunRecord;
use crate::store::Stored;

/// A block's length when `--block-minutes` is not given: about 15
/// minutes of measuring between two reference passes, so the references
/// (about 100 s a pass at the 2021 sizes) cost about a tenth of the time.
pub(crate) const DEFAULT_BLOCK_S: f64 = 15.0 * 60.0;

/// The quality gate's limit ([`HostSpeed::moved`]): a reference pass
/// whose speed is more than 10 % off both its neighbours' is flagged.
/// Twice the 5 % a cell's runs may spread before the table marks it noisy:
/// a pass is one run of each reference, so it may be off by about that
/// much on its own; more than twice that against both passes around it
/// is the host changing within a block (the sitting's median speed, its
/// runs' measure, did not hold then), not a pass measured noisily. The drift the issue measured between sittings (1.41× over 8,
/// about 5 % from one to the next) stays below it.
pub(crate) const MOVED_LIMIT: f64 = 0.10;

/// When a run ran: the middle of its wall time, in seconds since the
/// epoch (`finished_at` less half its wall time); `None` if its time does
/// not parse. Orders a session's passes.
pub(crate) fn midpoint(r: &RunRecord) -> Option<f64> {
    let end = chrono::DateTime::parse_from_rfc3339(&r.finished_at).ok()?;
    Some(end.timestamp() as f64 - r.wall_s / 2.0)
}

/// One reference pass, for one benchmark: when it ran and how fast the
/// reference set was, relative to its level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Pass {
    /// The pass's block number (0: before block 1; k: after block k).
    pub block: u32,
    /// Its middle, seconds since the epoch.
    pub t: f64,
    /// The geometric mean over the references that ran ok in the pass of
    /// their wall time over their own level: 1.2 is a host 20 % slower
    /// than its median state.
    pub speed: f64,
}

/// The reference passes of every session of a results directory, per
/// benchmark, and the references' levels.
#[derive(Debug, Clone, Default)]
pub(crate) struct HostSpeed {
    /// The references, in the order they are named.
    pub set: Vec<String>,
    /// (session, benchmark) → its passes, in time order.
    passes: BTreeMap<(String, Bench), Vec<Pass>>,
    /// (session, benchmark) → the host's speed in that sitting: the
    /// median of its passes' speeds.
    sittings: BTreeMap<(String, Bench), f64>,
    /// Per benchmark, per reference: the median of its wall times over
    /// every pass.
    levels: BTreeMap<Bench, BTreeMap<String, f64>>,
    /// (session, benchmark, reference) → its wall times over its level,
    /// pass by pass: what [`HostSpeed::disagreements`] sets side by side.
    own: BTreeMap<(String, Bench, String), Vec<f64>>,
}

/// The median of `v` (not empty).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn geomean(v: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0usize);
    for x in v {
        if x > 0.0 && x.is_finite() {
            sum += x.ln();
            n += 1;
        }
    }
    (n > 0).then(|| (sum / n as f64).exp())
}

impl HostSpeed {
    /// The host's speed as `stored`'s reference runs show it, judged by
    /// the references `set` (every reference the records hold when
    /// `None`); `None` when there is no reference run of the set.
    pub(crate) fn of(stored: &Stored, set: Option<&[String]>) -> Option<HostSpeed> {
        let set: Vec<String> = match set {
            Some(s) => s.to_vec(),
            None => {
                let mut seen: Vec<String> = Vec::new();
                for r in &stored.references {
                    if !seen.contains(&r.variant) {
                        seen.push(r.variant.clone());
                    }
                }
                seen
            }
        };
        let ok: Vec<&RunRecord> = stored
            .references
            .iter()
            .filter(|r| r.status.is_ok() && r.wall_s > 0.0 && set.contains(&r.variant))
            .collect();
        if ok.is_empty() {
            return None;
        }
        let mut walls: BTreeMap<Bench, BTreeMap<String, Vec<f64>>> = BTreeMap::new();
        for r in &ok {
            walls
                .entry(r.bench)
                .or_default()
                .entry(r.variant.clone())
                .or_default()
                .push(r.wall_s);
        }
        let levels: BTreeMap<Bench, BTreeMap<String, f64>> = walls
            .into_iter()
            .map(|(b, by)| (b, by.into_iter().map(|(v, w)| (v, median(w))).collect()))
            .collect();
        // One pass: a session's references of one block and benchmark.
        let mut grouped: BTreeMap<(String, Bench, u32), Vec<&RunRecord>> = BTreeMap::new();
        for r in &ok {
            grouped
                .entry((r.session.clone(), r.bench, r.block.unwrap_or(0)))
                .or_default()
                .push(r);
        }
        let mut own: BTreeMap<(String, Bench, String), Vec<f64>> = BTreeMap::new();
        for r in &ok {
            own.entry((r.session.clone(), r.bench, r.variant.clone()))
                .or_default()
                .push(r.wall_s / levels[&r.bench][&r.variant]);
        }
        let mut passes: BTreeMap<(String, Bench), Vec<Pass>> = BTreeMap::new();
        for ((session, bench, block), runs) in grouped {
            let level = &levels[&bench];
            let speed = geomean(runs.iter().map(|r| r.wall_s / level[&r.variant]));
            let ts: Vec<f64> = runs.iter().filter_map(|r| midpoint(r)).collect();
            let t = (!ts.is_empty()).then(|| ts.iter().sum::<f64>() / ts.len() as f64);
            if let (Some(speed), Some(t)) = (speed, t) {
                passes
                    .entry((session, bench))
                    .or_default()
                    .push(Pass { block, t, speed });
            }
        }
        for p in passes.values_mut() {
            p.sort_by(|a, b| a.t.total_cmp(&b.t));
        }
        let sittings = passes
            .iter()
            .map(|(k, p)| (k.clone(), median(p.iter().map(|p| p.speed).collect())))
            .collect();
        Some(HostSpeed {
            set,
            passes,
            sittings,
            levels,
            own,
        })
    }

    /// The reference set's level for `bench`: the geometric mean of its
    /// references' medians, in seconds (what "× ref" divides by).
    pub(crate) fn level(&self, bench: Bench) -> Option<f64> {
        geomean(self.levels.get(&bench)?.values().copied())
    }

    /// The host's speed for `bench` in `session`'s sitting (1.0: its
    /// median state; 1.2: 20 % slower): the median of the session's
    /// passes' speeds; `None` when the session measured no pass of
    /// `bench`.
    pub(crate) fn speed_of(&self, session: &str, bench: Bench) -> Option<f64> {
        self.sittings.get(&(session.to_string(), bench)).copied()
    }

    /// A run's wall time over the reference set's in its sitting (`None`:
    /// its session measured no references of its benchmark).
    pub(crate) fn ratio(&self, r: &RunRecord) -> Option<f64> {
        let speed = self.speed_of(&r.session, r.bench)?;
        Some(r.wall_s / (speed * self.level(r.bench)?))
    }

    /// A run's wall time as the host runs at its median state: its ratio
    /// times the references' level.
    pub(crate) fn normalised(&self, r: &RunRecord) -> Option<f64> {
        Some(self.ratio(r)? * self.level(r.bench)?)
    }

    /// The passes of `session` for `bench`, in time order.
    #[cfg(test)]
    pub(crate) fn passes(&self, session: &str, bench: Bench) -> &[Pass] {
        self.passes
            .get(&(session.to_string(), bench))
            .map_or(&[], Vec::as_slice)
    }

    /// Every (session, benchmark) with passes.
    pub(crate) fn series(&self) -> impl Iterator<Item = (&str, Bench, &[Pass])> {
        self.passes
            .iter()
            .map(|((s, b), p)| (s.as_str(), *b, p.as_slice()))
    }

    /// How far the host's speed moved over the directory: per benchmark,
    /// the slowest pass over the fastest (1.41: the references took 41 %
    /// longer in the slowest pass than in the fastest).
    pub(crate) fn drift(&self) -> BTreeMap<Bench, f64> {
        let mut out: BTreeMap<Bench, (f64, f64)> = BTreeMap::new();
        for ((_, b), passes) in &self.passes {
            for p in passes {
                let e = out.entry(*b).or_insert((p.speed, p.speed));
                e.0 = e.0.min(p.speed);
                e.1 = e.1.max(p.speed);
            }
        }
        out.into_iter().map(|(b, (lo, hi))| (b, hi / lo)).collect()
    }

    /// The quality gate: passes whose speed moved more than `limit` (a
    /// fraction) against both their neighbours in the same session (the
    /// host changed within a block, so the sitting's median speed did not
    /// hold for the runs of the blocks on either side), worst first.
    pub(crate) fn moved(&self, limit: f64) -> Vec<Moved> {
        let mut out = Vec::new();
        for ((session, bench), passes) in &self.passes {
            for (i, p) in passes.iter().enumerate() {
                let neighbours: Vec<f64> = [i.checked_sub(1), Some(i + 1)]
                    .into_iter()
                    .flatten()
                    .filter_map(|j| passes.get(j))
                    .map(|n| p.speed / n.speed)
                    .collect();
                if neighbours.is_empty() {
                    continue;
                }
                let nearest = neighbours
                    .iter()
                    .copied()
                    .min_by(|a, b| (a.ln().abs()).total_cmp(&b.ln().abs()))
                    .unwrap_or(1.0);
                if (nearest.ln()).abs() > (1.0 + limit).ln() {
                    out.push(Moved {
                        session: session.clone(),
                        bench: *bench,
                        block: p.block,
                        by: nearest,
                    });
                }
            }
        }
        out.sort_by(|a, b| b.by.ln().abs().total_cmp(&a.by.ln().abs()));
        out
    }
}

impl HostSpeed {
    /// Machines whose references disagree with the main machine's
    /// (issue #42): per machine (`machine_of` a session; sessions it
    /// does not know are left out) and benchmark, each reference's speed
    /// there (the median of its wall times over its level, over that
    /// machine's passes) over its speed on `main`. Where the references
    /// agree (a machine 1.5× slower runs both 1.5× slower), ratios
    /// normalised against them compare across the machines; where one
    /// reference says 1.5× and another 1.0×, they do not, beyond
    /// `limit` (a fraction). Needs two references or more (one cannot
    /// disagree with itself); worst first.
    pub(crate) fn disagreements(
        &self,
        machine_of: impl Fn(&str) -> Option<usize>,
        main: usize,
        limit: f64,
    ) -> Vec<Disagreement> {
        let mut per: BTreeMap<(usize, Bench), BTreeMap<&str, Vec<f64>>> = BTreeMap::new();
        for ((session, bench, variant), v) in &self.own {
            let Some(m) = machine_of(session) else {
                continue;
            };
            per.entry((m, *bench))
                .or_default()
                .entry(variant.as_str())
                .or_default()
                .extend(v.iter().copied());
        }
        let speed = |m: usize, b: Bench| -> BTreeMap<&str, f64> {
            per.get(&(m, b))
                .map(|by| by.iter().map(|(v, w)| (*v, median(w.clone()))).collect())
                .unwrap_or_default()
        };
        let mut out = Vec::new();
        for &(machine, bench) in per.keys() {
            if machine == main {
                continue;
            }
            let (here, there) = (speed(machine, bench), speed(main, bench));
            let ratios: Vec<(String, f64)> = here
                .iter()
                .filter_map(|(v, s)| {
                    let r = s / there.get(v)?;
                    (r.is_finite() && r > 0.0).then(|| (v.to_string(), r))
                })
                .collect();
            if ratios.len() < 2 {
                continue;
            }
            let (lo, hi) = ratios
                .iter()
                .fold((f64::INFINITY, 0.0f64), |(lo, hi), (_, r)| {
                    (lo.min(*r), hi.max(*r))
                });
            if (hi / lo).ln() > (1.0 + limit).ln() {
                out.push(Disagreement {
                    machine,
                    bench,
                    ratios,
                    by: hi / lo,
                });
            }
        }
        out.sort_by(|a, b| b.by.total_cmp(&a.by));
        out
    }
}

/// A machine whose references disagree about its speed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Disagreement {
    /// The machine (the caller's number for it).
    pub machine: usize,
    pub bench: Bench,
    /// Each reference's time on it over its time on the main machine
    /// (1.5: 50 % slower there).
    pub ratios: Vec<(String, f64)>,
    /// The slowest reference's speed over the fastest's.
    pub by: f64,
}

/// A reference pass that moved against its neighbours.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Moved {
    pub session: String,
    pub bench: Bench,
    pub block: u32,
    /// Its speed over its nearer neighbour's (1.15: 15 % slower).
    pub by: f64,
}

/// The normaliser's name, stored with every reproducibility check
/// (`normaliser`): a run over the median of its session's reference
/// passes per benchmark, a cell the fastest of its counted runs. A check
/// made with another stores another name (or none, before the field), so
/// its stored ratios are known not to be what the records give today
/// (`reproduced::verify`). Change it when the normaliser changes.
pub(crate) const NORMALISER: &str = "sitting-median/fastest";

/// A cell's normalised figure and interval: the fastest and slowest of
/// its counted runs' normalised times (for a row, its cells' added up).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub(crate) struct Normalised {
    pub lo: f64,
    pub hi: f64,
    /// How many runs it is made of.
    pub runs: usize,
}

impl Normalised {
    /// Of a cell's runs with figures (`runs`: of its status): the runs its
    /// spread counts ([`NoiseSample`]), normalised; `None` when one of
    /// them cannot be (no references in its sitting).
    pub(crate) fn of<'a>(
        host: &HostSpeed,
        runs: impl IntoIterator<Item = &'a RunRecord>,
    ) -> Option<Self> {
        Normalised::of_times(&Normalised::runs(host, runs)?)
    }

    /// Of normalised times ([`Normalised::runs`]): their fastest and
    /// slowest.
    pub(crate) fn of_times(v: &[f64]) -> Option<Self> {
        if v.is_empty() {
            return None;
        }
        Some(Normalised {
            lo: v.iter().copied().fold(f64::INFINITY, f64::min),
            hi: v.iter().copied().fold(0.0, f64::max),
            runs: v.len(),
        })
    }

    /// The figure: the fastest normalised run (the module's doc says why
    /// the fastest); for a sum, the sum of its parts' figures.
    pub(crate) fn figure(&self) -> f64 {
        self.lo
    }

    /// The normalised times of the runs [`Normalised::of`] is made of (the
    /// counted ones, [`NoiseSample`]), in their order: what `compare`
    /// tests a change on. `None` when one of them cannot be normalised,
    /// or comes out as no time at all (a stored record is contributed: a
    /// zero or negative wall time gives no figure, never a negative one).
    pub(crate) fn runs<'a>(
        host: &HostSpeed,
        runs: impl IntoIterator<Item = &'a RunRecord>,
    ) -> Option<Vec<f64>> {
        let v: Vec<f64> = NoiseSample::of(runs)
            .counted
            .iter()
            .map(|r| host.normalised(r).filter(|x| x.is_finite() && *x > 0.0))
            .collect::<Option<_>>()?;
        (!v.is_empty()).then_some(v)
    }

    /// The sum of several (a row's cells): fastest and slowest added up.
    pub(crate) fn sum(parts: impl IntoIterator<Item = Normalised>) -> Option<Normalised> {
        let mut it = parts.into_iter().peekable();
        it.peek()?;
        Some(it.fold(
            Normalised {
                lo: 0.0,
                hi: 0.0,
                runs: usize::MAX,
            },
            |a, b| Normalised {
                lo: a.lo + b.lo,
                hi: a.hi + b.hi,
                runs: a.runs.min(b.runs),
            },
        ))
    }

    /// Divided by `by` (a ratio to a level).
    pub(crate) fn over(self, by: f64) -> Normalised {
        Normalised {
            lo: self.lo / by,
            hi: self.hi / by,
            runs: self.runs,
        }
    }

    /// How far the slowest run is above the figure, as a share of it
    /// (+x %).
    pub(crate) fn above(&self) -> f64 {
        if self.lo <= 0.0 {
            return 0.0;
        }
        (self.hi - self.lo) / self.lo
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;

    /// A reference run of `variant` for `bench` in `block`, finishing at
    /// `at` seconds past 2026-01-01T00:00:00Z.
    fn reference(variant: &str, bench: Bench, block: u32, at: i64, wall: f64) -> RunRecord {
        let mut r = testing::run(variant, bench).wall(wall).record();
        r.block = Some(block);
        r.finished_at = finished(at);
        r
    }

    fn finished(at: i64) -> String {
        (chrono::DateTime::parse_from_rfc3339(testing::AT).unwrap() + chrono::Duration::seconds(at))
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    }

    fn run(variant: &str, bench: Bench, at: i64, wall: f64) -> RunRecord {
        let mut r = testing::run(variant, bench).wall(wall).record();
        r.finished_at = finished(at);
        r
    }

    /// A sitting's speed is the median of its passes', per benchmark; a run
    /// anywhere in the sitting is judged against it.
    #[test]
    fn a_run_is_judged_against_its_sittings_median_pass() {
        let stored = Stored {
            references: vec![
                reference("c-gcc", Bench::Assoc, 0, 15, 10.0),
                reference("c-tcc", Bench::Assoc, 0, 20, 20.0),
                reference("c-gcc", Bench::Assoc, 1, 1010, 20.0),
                reference("c-tcc", Bench::Assoc, 1, 1020, 40.0),
                reference("c-gcc", Bench::Assoc, 2, 2010, 20.0),
                reference("c-tcc", Bench::Assoc, 2, 2020, 40.0),
            ],
            ..Default::default()
        };
        let host = HostSpeed::of(&stored, None).unwrap();
        assert_eq!(host.set, ["c-gcc", "c-tcc"]);
        // Levels: the medians, 20 and 40; the set's level their geomean.
        let level = host.level(Bench::Assoc).unwrap();
        assert!((level - (20.0f64 * 40.0).sqrt()).abs() < 1e-9);
        // Pass 0 ran at half the median time (speed 0.5), passes 1 and 2
        // at it: the sitting's speed is their median, 1.
        let passes = host.passes(testing::SESSION, Bench::Assoc);
        assert_eq!(passes.len(), 3);
        assert!((passes[0].speed - 0.5).abs() < 1e-9);
        assert_eq!(host.speed_of(testing::SESSION, Bench::Assoc), Some(1.0));
        // A 30 s run between passes 0 and 1 is 30 s over the level, as is
        // one after the last pass.
        for at in [500, 5000] {
            let r = run("go", Bench::Assoc, at, 30.0);
            assert!((host.ratio(&r).unwrap() - 30.0 / level).abs() < 1e-9);
            assert!((host.normalised(&r).unwrap() - 30.0).abs() < 1e-9);
        }
        // A run of another session, or of a benchmark without passes: no
        // ratio.
        let mut other = run("go", Bench::Assoc, 500, 3.0);
        other.session = "elsewhere".into();
        assert_eq!(host.ratio(&other), None);
        assert_eq!(host.ratio(&run("go", Bench::StrComb, 500, 3.0)), None);
        // The drift: the slowest pass over the fastest.
        assert!((host.drift()[&Bench::Assoc] - 2.0).abs() < 1e-9);
        // The gate: pass 0 moved 2× against its neighbour, pass 1 not
        // against pass 2 (its nearer neighbour).
        let moved = host.moved(0.10);
        assert_eq!(moved.len(), 1, "{moved:?}");
        assert_eq!(moved[0].block, 0);
    }

    /// Issue #60: a pass is one run of each reference. One that ran 15 %
    /// slow in block 2 of five (the host's other work, the references'
    /// own noise) left the runs of blocks 2 and 3, on either side of it,
    /// as they were measured: the sitting's median is the other passes'.
    /// Interpolated between the passes around them (issue #39), the run
    /// just before it came out 13 % fast.
    #[test]
    fn a_pass_that_jumps_15_percent_does_not_move_the_runs_it_brackets() {
        let walls = [10.0, 10.0, 11.5, 10.0, 10.0];
        let references = walls
            .iter()
            .enumerate()
            .map(|(block, &w)| {
                reference(
                    "c-gcc",
                    Bench::Assoc,
                    block as u32,
                    1000 * block as i64 + 10,
                    w,
                )
            })
            .collect();
        let host = HostSpeed::of(
            &Stored {
                references,
                ..Default::default()
            },
            None,
        )
        .unwrap();
        assert!((host.level(Bench::Assoc).unwrap() - 10.0).abs() < 1e-9);
        assert!((host.passes(testing::SESSION, Bench::Assoc)[2].speed - 1.15).abs() < 1e-9);
        let speed = host.speed_of(testing::SESSION, Bench::Assoc).unwrap();
        assert!((speed - 1.0).abs() < 1e-9, "{speed}");
        // Runs of 4 s just before and just after the jumped pass.
        for at in [1995, 2030] {
            let r = run("go", Bench::Assoc, at, 4.0);
            assert!((host.normalised(&r).unwrap() - 4.0).abs() < 1e-9, "{at}");
        }
        // A cell whose three runs bracket it keeps its fastest.
        let runs = [
            run("go", Bench::Assoc, 1500, 4.2),
            run("go", Bench::Assoc, 1995, 4.0),
            run("go", Bench::Assoc, 2500, 4.4),
        ];
        let n = Normalised::of(&host, runs.iter()).unwrap();
        assert!((n.figure() - 4.0).abs() < 1e-9);
        assert!((n.hi - 4.4).abs() < 1e-9);
    }

    /// Sittings at different speeds (a later one 30 % slower by all its
    /// passes) give a program that ran as fast relative to the host the
    /// same figure, and that figure's time is the directory's median state.
    #[test]
    fn sittings_at_different_speeds_give_a_program_the_same_figure() {
        let mut references = Vec::new();
        let mut runs = Vec::new();
        for (session, speed) in [("fast", 1.0), ("slow", 1.3)] {
            for block in 0..3u32 {
                let mut r = reference(
                    "c-gcc",
                    Bench::NumComb,
                    block,
                    100 * block as i64,
                    2.0 * speed,
                );
                r.session = session.into();
                references.push(r);
            }
            let mut r = run("go", Bench::NumComb, 150, 3.0 * speed);
            r.session = session.into();
            runs.push(r);
        }
        let host = HostSpeed::of(
            &Stored {
                references,
                ..Default::default()
            },
            None,
        )
        .unwrap();
        // The level is the median over both sittings' six passes.
        let level = host.level(Bench::NumComb).unwrap();
        assert!((level - 2.0 * 1.15).abs() < 1e-9, "{level}");
        let fast = host.normalised(&runs[0]).unwrap();
        let slow = host.normalised(&runs[1]).unwrap();
        assert!((fast - slow).abs() < 1e-9, "{fast} {slow}");
        assert!((host.ratio(&runs[0]).unwrap() - 1.5).abs() < 1e-9);
        assert!((fast - 1.5 * level).abs() < 1e-9);
    }

    /// A reference missing from a pass (it failed there) leaves the pass
    /// judged by the others, each against its own level.
    #[test]
    fn a_pass_is_judged_by_the_references_that_ran_in_it() {
        let mut failed = reference("c-tcc", Bench::NumComb, 1, 1020, 99.0);
        failed.status = crate::record::Status::Crashed;
        let stored = Stored {
            references: vec![
                reference("c-gcc", Bench::NumComb, 0, 10, 1.0),
                reference("c-tcc", Bench::NumComb, 0, 20, 2.0),
                reference("c-gcc", Bench::NumComb, 1, 1010, 1.5),
                failed,
            ],
            ..Default::default()
        };
        let host = HostSpeed::of(&stored, None).unwrap();
        let p = host.passes(testing::SESSION, Bench::NumComb);
        // c-gcc's level is 1.25 (median of 1 and 1.5), c-tcc's 2.
        assert!((p[0].speed - (0.8f64 * 1.0).sqrt()).abs() < 1e-9);
        assert!((p[1].speed - 1.2).abs() < 1e-9);
        // Judged by c-tcc alone (compare's --relative-to c-tcc).
        let tcc = HostSpeed::of(&stored, Some(&["c-tcc".to_string()])).unwrap();
        assert_eq!(tcc.passes(testing::SESSION, Bench::NumComb).len(), 1);
    }

    /// A cell's figure is its fastest warm run, normalised, its interval
    /// the fastest to the slowest of them; a row's is the sum of its
    /// cells'.
    #[test]
    fn a_cell_is_its_fastest_normalised_warm_run() {
        let stored = Stored {
            references: vec![
                reference("c-gcc", Bench::Assoc, 0, 10, 10.0),
                reference("c-gcc", Bench::Assoc, 1, 10_010, 10.0),
            ],
            ..Default::default()
        };
        let host = HostSpeed::of(&stored, None).unwrap();
        let mut cold = run("go", Bench::Assoc, 100, 4.0);
        cold.cache = Some(crate::record::CacheStart::Cold);
        let warm = |at, wall| {
            let mut r = run("go", Bench::Assoc, at, wall);
            r.cache = Some(crate::record::CacheStart::Warm);
            r
        };
        let runs = [cold, warm(2000, 20.0), warm(4000, 5.0)];
        let n = Normalised::of(&host, runs.iter()).unwrap();
        assert_eq!(n.runs, 2, "the cold run is the caches' warm-up");
        assert_eq!((n.figure(), n.lo, n.hi), (5.0, 5.0, 20.0));
        assert!((n.above() - 3.0).abs() < 1e-9);
        let total = Normalised::sum([n, n.over(2.0)]).unwrap();
        assert!((total.figure() - 7.5).abs() < 1e-9);
        assert!((total.hi - 30.0).abs() < 1e-9);
        assert_eq!(Normalised::of_times(&[]), None);
    }
}
