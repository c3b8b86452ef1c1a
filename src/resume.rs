//! `run --resume`: what the results directory already holds of each
//! selected cell, decided from its records alone, before any toolchain is
//! probed. A complete cell is skipped; a cell cut short (Ctrl-C, a crash)
//! keeps its finished runs when they were measured as this session
//! measures (same N, runs, containment, CPUs and machine; after the probe,
//! the same toolchain version and program identity, see [`keeps`]) and
//! runs only what is missing; any other cell runs from its first run, and
//! `run` says why.
//!
//! Only runs this machine recorded count (issue #59, row 4): a run whose
//! seal does not verify with this machine's key ([`crate::seal`]), or
//! that names no identity, makes its cell run again from run 1
//! ([`Untrusted`]), however complete its records say it is. Records are
//! lines anyone can append (a pull request's 1 ms runs were published as
//! measured); a seal is what they cannot make.

use std::collections::{BTreeMap, HashSet};

use crate::bench::{Bench, Size};
use crate::machine::Machine;
use crate::noise::Runs;
use crate::record::{Identity, RunRecord, SessionRecord};
use crate::seal::Key;
use crate::store::Stored;

/// How this session measures, to compare with the session of a cell's
/// stored runs.
#[derive(Debug, Clone)]
pub(crate) struct Now {
    pub size: Size,
    pub runs: Runs,
    /// The spawner's containment, as sessions record it.
    pub containment: String,
    pub cpus: Option<Vec<usize>>,
    pub machine: Machine,
    /// This machine's seal key: the runs it verifies are the only ones
    /// kept (`None`: there is none, and no run is).
    pub key: Option<Key>,
}

/// Runs `--resume` does not trust, by why: it keeps only runs this machine
/// recorded, which it tells by their seal ([`crate::seal`]), and which say
/// what they ran (their identity, compared with the program now).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Untrusted {
    /// Without a seal: added by hand or by a pull request, imported, or
    /// recorded before runs were sealed.
    pub unsealed: usize,
    /// With a seal this machine's key does not verify: changed since, a
    /// seal copied from another record, or sealed by another machine
    /// (a merged shard) or with a key since lost.
    pub foreign: usize,
    /// Sealed, but naming no identity: what ran is unknown.
    pub anonymous: usize,
}

impl Untrusted {
    /// The runs of `cell` that `key` does not vouch for.
    pub(crate) fn of<'r>(cell: impl IntoIterator<Item = &'r RunRecord>, key: Option<&Key>) -> Self {
        let mut u = Untrusted::default();
        for r in cell {
            if r.seal.is_none() {
                u.unsealed += 1;
            } else if !key.is_some_and(|k| k.verifies(r)) {
                u.foreign += 1;
            } else if r.identity.is_none() {
                u.anonymous += 1;
            }
        }
        u
    }

    /// How many runs in all.
    pub(crate) fn runs(&self) -> usize {
        self.unsealed + self.foreign + self.anonymous
    }

    fn add(&mut self, other: Untrusted) {
        self.unsealed += other.unsealed;
        self.foreign += other.foreign;
        self.anonymous += other.anonymous;
    }

    /// Why, in words: `2 without a seal, 1 whose seal this machine's key
    /// does not verify`.
    pub(crate) fn reasons(&self) -> String {
        let mut parts = Vec::new();
        if self.unsealed > 0 {
            parts.push(format!("{} without a seal", self.unsealed));
        }
        if self.foreign > 0 {
            parts.push(format!(
                "{} whose seal this machine's key does not verify",
                self.foreign
            ));
        }
        if self.anonymous > 0 {
            parts.push(format!("{} without an identity", self.anonymous));
        }
        parts.join(", ")
    }

    /// Why a cell with these runs runs again, if it does.
    fn why(&self) -> Option<String> {
        let n = self.runs();
        (n > 0).then(|| {
            format!(
                "{n} of its stored runs {} not recorded by this machine ({})",
                if n == 1 { "was" } else { "were" },
                self.reasons()
            )
        })
    }
}

/// The runs `--resume` does not trust, by cell: the cells it trusts
/// whole are not in it. Each seal is verified once per command (a
/// directory of 6,500 variants holds some 60,000 runs, issue #41).
pub(crate) type Distrust = BTreeMap<(String, Bench), Untrusted>;

fn distrust(cells: &BTreeMap<(String, Bench), Vec<&RunRecord>>, key: Option<&Key>) -> Distrust {
    cells
        .iter()
        .filter_map(|(k, cell)| {
            let u = Untrusted::of(cell.iter().copied(), key);
            (u.runs() > 0).then(|| (k.clone(), u))
        })
        .collect()
}

/// `run --resume`'s line about the runs of the cells `selected` it does
/// not trust, and why (`None`: it trusts every one); `key` is this
/// machine's.
pub(crate) fn untrusted_line(
    distrust: &Distrust,
    key: Option<&Key>,
    selected: impl Fn(&(String, Bench)) -> bool,
) -> Option<String> {
    let mut all = Untrusted::default();
    let mut cells = 0;
    for u in distrust.iter().filter(|(k, _)| selected(k)).map(|(_, u)| u) {
        all.add(*u);
        cells += 1;
    }
    if all.runs() == 0 {
        return None;
    }
    let key = match key {
        Some(k) => format!("its key is {}", k.path().display()),
        None => "this machine has no seal key yet".to_string(),
    };
    Some(format!(
        "--resume: {} stored run{} of {} cell{} were not recorded by this machine ({}; {key}): \
         those cells are measured again (runs added by hand or by a pull request, merged from \
         another machine, imported, or sealed with a key since lost)",
        all.runs(),
        if all.runs() == 1 { "" } else { "s" },
        cells,
        if cells == 1 { "" } else { "s" },
        all.reasons()
    ))
}

/// What the results directory holds of one cell.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Held {
    /// Nothing to keep: runs from its first run.
    Nothing,
    /// Complete: nothing to run.
    Complete,
    /// Finished runs 1..=k measured as this session measures: carried on
    /// after, unless the program changed ([`keeps`]). `session` is the
    /// newest of them (the one new runs continue).
    Partial {
        runs: Vec<RunRecord>,
        session: String,
    },
    /// Runs this session cannot carry on after, and why.
    Rerun(String),
}

/// The stored runs of each cell (newest session, with what it continues),
/// sorted by attempt.
fn cells(stored: &Stored) -> BTreeMap<(String, Bench), Vec<&RunRecord>> {
    let mut cells = stored.newest_cells();
    for runs in cells.values_mut() {
        runs.sort_by_key(|r| r.attempt);
    }
    cells
}

/// Whether a cell's stored runs (sorted by attempt) are all it needs.
fn complete(cell: &[&RunRecord], runs: Runs) -> bool {
    let numbers: Vec<u32> = cell.iter().map(|r| r.attempt).collect();
    let contiguous = numbers.iter().enumerate().all(|(i, k)| *k == i as u32 + 1);
    let count = numbers.len() as u32;
    let settled = cell.iter().any(|r| r.status.settles_cell());
    // Auto cells stop at a settling run; fixed ones record the skipped
    // runs after it.
    let auto_settled = settled && matches!(runs, Runs::Auto { .. });
    count > 0 && contiguous && (runs.enough(count, cell.iter().copied()) || auto_settled)
}

/// The cells `stored` holds complete in runs this machine recorded (their
/// seals verify with `key`): what `--resume` skips (and `--plan` counts as
/// done, through [`complete_trusted`]).
#[cfg(test)]
pub(crate) fn complete_cells(
    stored: &Stored,
    runs: Runs,
    key: Option<&Key>,
) -> HashSet<(String, Bench)> {
    complete_trusted(stored, runs, key).0
}

/// [`complete_cells`], and the runs not trusted ([`Distrust`]).
pub(crate) fn complete_trusted(
    stored: &Stored,
    runs: Runs,
    key: Option<&Key>,
) -> (HashSet<(String, Bench)>, Distrust) {
    let cells = cells(stored);
    let distrust = distrust(&cells, key);
    let complete = cells
        .into_iter()
        .filter(|(k, cell)| complete(cell, runs) && !distrust.contains_key(k))
        .map(|(k, _)| k)
        .collect();
    (complete, distrust)
}

/// Why runs of session `s` cannot be carried on by this session, if so.
fn differs(s: &SessionRecord, now: &Now) -> Option<String> {
    let was = Runs::of(s);
    if was != now.runs {
        let was = match was {
            Runs::Auto { cv, max } => {
                format!("--runs auto --max-runs {max} (CV {:.1}%)", cv * 100.0)
            }
            Runs::Fixed(n) => format!("--runs {n}"),
        };
        return Some(format!("its runs were made with {was}"));
    }
    if s.containment.as_deref() != Some(now.containment.as_str()) {
        return Some(
            "its runs were contained differently (the session records say how)".to_string(),
        );
    }
    if s.cpus != now.cpus {
        return Some(format!(
            "its runs were pinned to other CPUs ({:?})",
            s.cpus.as_deref().unwrap_or_default()
        ));
    }
    if !s.machine.same_as(&now.machine) {
        return Some(format!(
            "its runs were measured on another machine ({})",
            s.machine.describe()
        ));
    }
    None
}

/// `--resume` on a machine other than the one the directory's runs were
/// measured on: why it is refused, if so. Resuming would measure every
/// cell again from run 1 (each cell's [`differs`]) and, until the last,
/// leave a table of two machines; sessions of one cloud machine type can
/// land on another CPU after a reboot (issue #39's sittings: an Intel Xeon,
/// then an AMD EPYC). Sessions without runs and imports do not count.
pub(crate) fn other_machine(stored: &Stored, now: &Machine) -> Option<String> {
    let with_runs: HashSet<&str> = stored.runs.iter().map(|r| r.session.as_str()).collect();
    let s = stored.sessions.iter().find(|s| {
        s.origin == crate::record::Origin::Measured
            && with_runs.contains(s.session.as_str())
            && !s.machine.same_as(now)
    })?;
    Some(format!(
        "its runs were measured on another machine ({}, session {}); this is {}: \
         resuming would measure every cell again and mix two machines in one table",
        s.machine.describe(),
        s.session,
        now.describe()
    ))
}

/// `--resume` of a directory measured on another machine is refused, by
/// the run and by `run --plan` alike (#39's sittings moved between CPUs).
pub(crate) fn refuse_other_machine(
    stored: &Stored,
    now: &Machine,
    dir: &std::path::Path,
) -> anyhow::Result<()> {
    if let Some(why) = other_machine(stored, now) {
        anyhow::bail!(
            "--resume {}: {why}. Nothing was written: resume it on that machine, \
             measure this one into a new directory (--out), or run without --resume \
             to measure every cell again here",
            dir.display()
        );
    }
    Ok(())
}

/// What the results directory holds of each cell it has runs of. Cells it
/// does not name hold nothing.
#[cfg(test)]
pub(crate) fn held(stored: &Stored, now: &Now) -> BTreeMap<(String, Bench), Held> {
    let cells = cells(stored);
    held_of(stored, &cells, &distrust(&cells, now.key.as_ref()), now)
}

/// What the directory holds of each cell, and the cells whose program changed ([`program_changes`])
/// marked to run again: both from one grouping of the records by cell.
/// With the runs it does not trust ([`Distrust`]), whose cells run again.
pub(crate) fn held_now(
    stored: &Stored,
    now: &Now,
    variants: &[&crate::config::Variant],
) -> (BTreeMap<(String, Bench), Held>, Distrust) {
    let cells = cells(stored);
    let distrust = distrust(&cells, now.key.as_ref());
    let mut held = held_of(stored, &cells, &distrust, now);
    for (k, why) in changes(&cells, variants, now.size) {
        held.insert(k, Held::Rerun(why));
    }
    (held, distrust)
}

fn held_of(
    stored: &Stored,
    cells: &BTreeMap<(String, Bench), Vec<&RunRecord>>,
    distrust: &Distrust,
    now: &Now,
) -> BTreeMap<(String, Bench), Held> {
    let sessions: BTreeMap<&str, &SessionRecord> = stored
        .sessions
        .iter()
        .map(|s| (s.session.as_str(), s))
        .collect();
    cells
        .iter()
        .map(|(key, cell)| {
            let untrusted = distrust.get(key).and_then(Untrusted::why);
            let held = if let Some(why) = untrusted {
                Held::Rerun(why)
            } else if complete(cell, now.runs) {
                Held::Complete
            } else if cell.iter().all(|r| r.attempt == 0) {
                // A cell-level record (not installed, prepare failed):
                // nothing was measured.
                Held::Nothing
            } else {
                partial(cell, key.1, &sessions, now)
            };
            (key.clone(), held)
        })
        .collect()
}

fn partial(
    cell: &[&RunRecord],
    bench: Bench,
    sessions: &BTreeMap<&str, &SessionRecord>,
    now: &Now,
) -> Held {
    let contiguous = cell
        .iter()
        .enumerate()
        .all(|(i, r)| r.attempt == i as u32 + 1);
    if !contiguous {
        let numbers: Vec<String> = cell.iter().map(|r| r.attempt.to_string()).collect();
        return Held::Rerun(format!(
            "its stored runs are numbered {}, not 1 to {}",
            numbers.join(", "),
            cell.len()
        ));
    }
    let n = now.size.n(bench);
    if let Some(r) = cell.iter().find(|r| r.n != n) {
        return Held::Rerun(format!("its runs are at N={}, this run's at N={n}", r.n));
    }
    let mut seen = HashSet::new();
    for r in cell {
        if !seen.insert(r.session.as_str()) {
            continue;
        }
        let Some(s) = sessions.get(r.session.as_str()) else {
            return Held::Rerun(format!(
                "its session {} is not in sessions.jsonl",
                r.session
            ));
        };
        if let Some(why) = differs(s, now) {
            return Held::Rerun(why);
        }
    }
    Held::Partial {
        session: cell[cell.len() - 1].session.clone(),
        runs: cell.iter().map(|r| (*r).clone()).collect(),
    }
}

/// The cells of `variants` that `stored` holds with runs of another
/// program, and why: each run's `identity` against the program's source
/// and commands now. A complete cell of the old program would otherwise be
/// skipped by `--resume` and hide the new one (and a cell never mixes runs
/// of two programs). Both are known from the checkout and the languages
/// file alone, so this is decided before any probe; a new toolchain
/// version is seen only where runs are carried on ([`keeps`], after the
/// probe). A cell with a run without an identity is not trusted at all
/// ([`Untrusted`]): it runs again anyway.
pub(crate) fn program_changes(
    stored: &Stored,
    variants: &[&crate::config::Variant],
    size: Size,
) -> BTreeMap<(String, Bench), String> {
    changes(&cells(stored), variants, size)
}

fn changes(
    cells: &BTreeMap<(String, Bench), Vec<&RunRecord>>,
    variants: &[&crate::config::Variant],
    size: Size,
) -> BTreeMap<(String, Bench), String> {
    let mut out = BTreeMap::new();
    // By id, not a scan of the variants per cell (quadratic: 6,500
    // variants × 19,500 cells, issue #41).
    let by_id: std::collections::HashMap<&str, &crate::config::Variant> =
        variants.iter().map(|v| (v.id.as_str(), *v)).collect();
    let mut digests = crate::identity::Digests::default();
    for ((id, bench), cell) in cells {
        let bench = *bench;
        let Some(v) = by_id.get(id.as_str()) else {
            continue;
        };
        let Some(now) = crate::identity::of_with(v, bench, size.n(bench), "", &mut digests) else {
            continue;
        };
        let why = cell
            .iter()
            .filter_map(|r| r.identity.as_ref())
            .find_map(|was| {
                if was.program != now.program {
                    Some(format!(
                        "its program changed since its runs (source sha256 {}… then, {}… now)",
                        short(&was.program),
                        short(&now.program)
                    ))
                } else if was.commands != now.commands {
                    Some("its commands changed since its runs (the languages file's entry)".into())
                } else {
                    None
                }
            });
        if let Some(why) = why {
            out.insert((id.clone(), bench), why);
        }
    }
    out
}

fn short(digest: &str) -> &str {
    digest.get(..12).unwrap_or(digest)
}

/// Whether the kept runs of a partial cell ran what this session runs: the
/// toolchain version it probed and the program's identity (its digest; a
/// run without one, or a program without one now, is unknown, and not
/// kept). `Err`: why not.
pub(crate) fn keeps(
    runs: &[RunRecord],
    version: &str,
    identity: Option<&Identity>,
) -> Result<(), String> {
    for r in runs {
        if !r.version.is_empty() && !version.is_empty() && r.version != version {
            return Err(format!(
                "its toolchain changed since run {} ({} then, {version} now)",
                r.attempt, r.version
            ));
        }
        match (&r.identity, identity) {
            (Some(was), Some(now)) if was.digest != now.digest => {
                return Err(format!(
                    "its program or commands changed since run {} (identity {} then, {} now)",
                    r.attempt, was.digest, now.digest
                ));
            }
            (Some(_), Some(_)) => {}
            _ => {
                return Err(format!(
                    "what run {} ran is not known (no program identity to compare)",
                    r.attempt
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Status;
    use crate::testing;

    fn now() -> Now {
        Now {
            size: Size::Tiny,
            runs: Runs::Fixed(3),
            containment: "full".into(),
            cpus: None,
            machine: testing::machine(),
            key: Some(testing::key()),
        }
    }

    fn session(id: &str) -> SessionRecord {
        SessionRecord {
            containment: Some("full".into()),
            ..testing::session(id)
        }
    }

    /// Run `k` of `variant` as this machine recorded it (sealed).
    fn run(variant: &str, k: u32) -> RunRecord {
        testing::run(variant, Bench::Assoc).nth(k).sealed()
    }

    #[test]
    fn complete_cells_are_skipped_and_cut_ones_keep_their_runs() {
        let stored = Stored {
            sessions: vec![session(testing::SESSION)],
            runs: crate::testing::shared(vec![
                run("done", 1),
                run("done", 2),
                run("done", 3),
                run("cut", 1),
                run("cut", 2),
                testing::run("absent", Bench::Assoc)
                    .nth(0)
                    .status(Status::NotInstalled)
                    .sealed(),
                run("gap", 1),
                run("gap", 3),
            ]),
            ..Default::default()
        };
        let held = held(&stored, &now());
        let of = |v: &str| held[&(v.to_string(), Bench::Assoc)].clone();
        assert_eq!(of("done"), Held::Complete);
        match of("cut") {
            Held::Partial { runs, session } => {
                assert_eq!(runs.iter().map(|r| r.attempt).collect::<Vec<_>>(), [1, 2]);
                assert_eq!(session, testing::SESSION);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(of("absent"), Held::Nothing);
        assert!(matches!(of("gap"), Held::Rerun(w) if w.contains("numbered 1, 3")));
        assert_eq!(
            complete_cells(&stored, Runs::Fixed(3), Some(&testing::key())),
            [("done".to_string(), Bench::Assoc)].into()
        );
    }

    /// An auto cell whose first run was cold holds two warm runs after
    /// three: not complete (auto counts three warm ones).
    #[test]
    fn an_auto_cell_with_a_cold_first_run_needs_three_warm_ones() {
        use crate::record::CacheStart::{Cold, Warm};
        let cell = |caches: &[crate::record::CacheStart]| Stored {
            sessions: vec![session(testing::SESSION)],
            runs: caches
                .iter()
                .enumerate()
                .map(|(i, &c)| {
                    testing::run("go", Bench::Assoc)
                        .nth(i as u32 + 1)
                        .wall(if c == Cold { 7.0 } else { 0.5 })
                        .cache(c)
                        .sealed()
                })
                .map(std::sync::Arc::new)
                .collect(),
            ..Default::default()
        };
        let auto = Runs::Auto { cv: 0.05, max: 10 };
        let key = Some(testing::key());
        let done =
            |c: &[crate::record::CacheStart], runs| complete_cells(&cell(c), runs, key.as_ref());
        assert!(done(&[Cold, Warm, Warm], auto).is_empty());
        assert_eq!(done(&[Cold, Warm, Warm, Warm], auto).len(), 1);
        assert_eq!(done(&[Cold, Warm, Warm], Runs::Fixed(3)).len(), 1);
    }

    #[test]
    fn runs_measured_otherwise_are_rerun_and_say_why() {
        let cut = |s: SessionRecord| Stored {
            sessions: vec![s],
            runs: crate::testing::shared(vec![run("cut", 1), run("cut", 2)]),
            ..Default::default()
        };
        let why = |s: SessionRecord, now: &Now| match &held(&cut(s), now)
            [&("cut".to_string(), Bench::Assoc)]
        {
            Held::Rerun(w) => w.clone(),
            other => panic!("{other:?}"),
        };
        let base = session(testing::SESSION);
        let five = SessionRecord {
            runs: 5,
            ..base.clone()
        };
        let now5 = Now {
            runs: Runs::Fixed(5),
            ..now()
        };
        assert!(matches!(
            held(&cut(five.clone()), &now5)[&("cut".to_string(), Bench::Assoc)],
            Held::Partial { .. }
        ));
        assert!(why(five, &now()).contains("--runs 5"));
        let bare = SessionRecord {
            containment: Some("none (--no-sandbox)".into()),
            ..base.clone()
        };
        assert!(why(bare, &now()).contains("contained differently"));
        let pinned = SessionRecord {
            cpus: Some(vec![1]),
            ..base.clone()
        };
        assert!(why(pinned, &now()).contains("other CPUs"));
        let mut other = base.clone();
        other.machine.cpu_model = "Other CPU".into();
        assert!(why(other, &now()).contains("another machine (Other CPU"));
        // The directory as a whole: refused up front (other_machine).
        let mut there = testing::machine();
        there.cpu_model = "Other CPU".into();
        let stored = Stored {
            sessions: vec![SessionRecord {
                machine: there.clone(),
                ..base.clone()
            }],
            runs: crate::testing::shared(vec![run("cut", 1)]),
            ..Default::default()
        };
        let refused = other_machine(&stored, &testing::machine()).unwrap();
        assert!(refused.contains("another machine (Other CPU"), "{refused}");
        assert!(refused.contains(testing::SESSION), "{refused}");
        assert_eq!(other_machine(&stored, &there), None);
        // A session without runs (stopped before its first) does not count.
        let idle = Stored {
            runs: Vec::new(),
            ..stored
        };
        assert_eq!(other_machine(&idle, &testing::machine()), None);
        let big = Now {
            size: Size::Explicit(5000),
            ..now()
        };
        assert!(why(base, &big).contains("N=1000, this run's at N=5000"));
    }

    /// A cell whose source or commands changed since its runs is named
    /// (complete or not), one run without an identity is unknown, and the
    /// toolchain version is not looked at (no probe yet).
    #[test]
    fn program_changes_compare_source_and_commands_without_a_probe() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("programs/assoc")).unwrap();
        std::fs::write(d.path().join("programs/assoc/a.sh"), "echo\n").unwrap();
        let toml = |run: &str| {
            format!(
                "[variant.a]\nlanguage = \"A\"\nflags = \"sh\"\nrun = \"{run}\"\n\
                 programs = {{ assoc = \"programs/assoc/a.sh\" }}\n"
            )
        };
        let path = d.path().join("languages.toml");
        let langs = |run: &str| crate::config::Languages::parse(&toml(run), &path).unwrap();
        let before = langs("sh {src} {n}");
        let v = &before.variants[0];
        let mut r = run("a", 1);
        r.identity = crate::identity::of(v, Bench::Assoc, r.n, "5.1");
        let stored = Stored {
            runs: crate::testing::shared(vec![
                r.clone(),
                // Without an identity: not compared here (not trusted at
                // all by `held_now`).
                testing::run("a", Bench::Assoc).nth(2).record(),
                r.clone(),
                run("gone", 1),
            ]),
            ..Default::default()
        };
        let size = Size::Explicit(r.n);
        // Same source and commands; another toolchain version is not seen here.
        assert!(program_changes(&stored, &[v], size).is_empty());
        std::fs::write(d.path().join("programs/assoc/a.sh"), "echo # edited\n").unwrap();
        let changed = program_changes(&stored, &[v], size);
        let why = &changed[&("a".to_string(), Bench::Assoc)];
        assert!(
            why.starts_with("its program changed since its runs (source sha256 "),
            "{why}"
        );
        std::fs::write(d.path().join("programs/assoc/a.sh"), "echo\n").unwrap();
        let after = langs("sh -e {src} {n}");
        let changed = program_changes(&stored, &[&after.variants[0]], size);
        assert_eq!(
            changed[&("a".to_string(), Bench::Assoc)],
            "its commands changed since its runs (the languages file's entry)"
        );
    }

    #[test]
    fn a_changed_toolchain_or_program_is_not_kept_nor_an_unknown_one() {
        let id = |d: &str| Identity {
            digest: d.into(),
            program: String::new(),
            commands: Vec::new(),
            toolchain: String::new(),
            langbench: String::new(),
        };
        let mut known = run("a", 1);
        known.identity = Some(id("aaaa"));
        let mut unknown = run("a", 2);
        unknown.identity = None;
        let mut second = run("a", 2);
        second.identity = Some(id("aaaa"));
        assert_eq!(
            keeps(&[known.clone(), second], "1.0", Some(&id("aaaa"))),
            Ok(())
        );
        let both = [known.clone(), unknown.clone()];
        let not_known = keeps(&both, "1.0", Some(&id("aaaa"))).unwrap_err();
        assert!(
            not_known.contains("what run 2 ran is not known"),
            "{not_known}"
        );
        let unknown = std::slice::from_ref(&unknown);
        let known = std::slice::from_ref(&known);
        assert!(keeps(unknown, "1.0", Some(&id("bbbb"))).is_err());
        assert!(keeps(known, "1.0", None).is_err());
        let changed = keeps(known, "1.0", Some(&id("bbbb"))).unwrap_err();
        assert!(changed.contains("aaaa then, bbbb now"), "{changed}");
        let newer = keeps(unknown, "2.0", None).unwrap_err();
        assert!(newer.contains("1.0 then, 2.0 now"), "{newer}");
    }

    /// Issue #59, row 4: runs appended without a seal, with a made-up
    /// identity, with a seal copied from another record or made with
    /// another machine's key are not trusted: their cell runs again from
    /// run 1, however complete, and the line says how many and why. A
    /// sealed run without an identity is not trusted either.
    #[test]
    fn runs_this_machine_did_not_record_are_measured_again() {
        let genuine = run("done", 1);
        let fast = |k: u32| testing::run("new", Bench::Assoc).nth(k).wall(0.001);
        let mut forged = fast(1).record();
        forged.identity = genuine.identity.clone();
        let mut copied = fast(2).record();
        copied.identity = genuine.identity.clone();
        copied.seal = genuine.seal.clone();
        let elsewhere = crate::seal::Key::fixed([9; 32]).sealed(fast(3).sealed());
        let stored = |runs: Vec<RunRecord>| Stored {
            sessions: vec![session(testing::SESSION)],
            runs: crate::testing::shared(runs),
            ..Default::default()
        };
        let cases = [
            (
                "unsealed",
                vec![fast(1).record(), fast(2).record(), fast(3).record()],
            ),
            (
                "forged",
                vec![forged.clone(), fast(2).sealed(), fast(3).sealed()],
            ),
            (
                "copied",
                vec![fast(1).sealed(), copied.clone(), fast(3).sealed()],
            ),
            (
                "elsewhere",
                vec![fast(1).sealed(), fast(2).sealed(), elsewhere.clone()],
            ),
        ];
        for (what, runs) in cases {
            let s = stored(runs);
            let key = Some(testing::key());
            assert!(
                complete_cells(&s, Runs::Fixed(3), key.as_ref()).is_empty(),
                "{what}"
            );
            match &held(&s, &now())[&("new".to_string(), Bench::Assoc)] {
                Held::Rerun(why) => assert!(
                    why.contains("not recorded by this machine"),
                    "{what}: {why}"
                ),
                other => panic!("{what}: {other:?}"),
            }
        }
        // The same runs sealed here: complete.
        let sealed = stored(vec![fast(1).sealed(), fast(2).sealed(), fast(3).sealed()]);
        assert_eq!(
            complete_cells(&sealed, Runs::Fixed(3), Some(&testing::key())).len(),
            1
        );
        // Without a key nothing is trusted.
        assert!(complete_cells(&sealed, Runs::Fixed(3), None).is_empty());
        // Sealed without an identity: not trusted.
        let mut anonymous = fast(1).record();
        anonymous.identity = None;
        let anonymous = testing::key().sealed(anonymous);
        let s = stored(vec![anonymous, fast(2).sealed(), forged, copied, elsewhere]);
        let key = Some(testing::key());
        let line = |s: &Stored, selected: bool| {
            let (_, distrust) = complete_trusted(s, Runs::Fixed(3), key.as_ref());
            untrusted_line(&distrust, key.as_ref(), |_| selected)
        };
        let line_all = line(&s, true).unwrap();
        assert!(
            line_all.starts_with(
                "--resume: 4 stored runs of 1 cell were not recorded by this machine \
                 (1 without a seal, 2 whose seal this machine's key does not verify, \
                 1 without an identity; its key is (fixed))"
            ),
            "{line_all}"
        );
        assert_eq!(line(&sealed, true), None);
        assert_eq!(line(&s, false), None);
    }
}
