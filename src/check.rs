//! `langbench check`: what a contributor runs before a pull request, and
//! what the pull request's CI runs. It validates the whole languages file
//! (syntax, fields, defaults repeated), then runs each selected variant's
//! programs twice at each of two small sizes, the second drawn at random,
//! through the spawner, verifies them, searches what their runs and
//! `prepare` keep for the answers they printed, and judges how their time
//! scales with N: work that does not grow, and a second run that skips
//! the work, fail (issue #59, row 6).
//! Every problem is one line: `file:line: variant: what is wrong; what to do`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use regex::Regex;

use crate::bench::Bench;
use crate::cell::remembered::Budget;
use crate::cell::{Ended, Program, Verdict};
use crate::config::{Languages, Variant};
use crate::record::Status;
use langbench_spawn::Spawner;

/// The marker `langbench new` puts in its program stubs.
pub(crate) const STUB_MARKER: &str = "TODO(langbench)";

/// The size every program runs at first: the tests' tiny size.
pub(crate) const TINY: u64 = 1_000;

/// Where the second size is drawn from, at random for each `check` (issue
/// #37, row 5): a size known in advance (it was 12,345) let an untimed
/// `prepare` write the answers the program then printed without work.
/// Every answer in it differs from the tiny one's (str-comb's too: 9999,
/// not 999); near the tiny size, so `check` stays fast (python3 runs
/// assoc at N = 50,000 in about a second).
pub(crate) const RANDOM_SIZES: std::ops::RangeInclusive<u64> = 10_000..=50_000;

/// The sizes of one `check`: [`TINY`], then one drawn from [`RANDOM_SIZES`]
/// with `seed` (the same seed, the same size: `check --seed` repeats a
/// check).
pub fn sizes(seed: u64) -> [u64; 2] {
    // fastrand's generator (wyrand) is fixed within its major version, as
    // `rounds` relies on too.
    [TINY, fastrand::Rng::with_seed(seed).u64(RANDOM_SIZES)]
}

/// A seed for a `check` given none: from the OS's random source (std's
/// per-process hasher keys, as [`crate::record::random_tag`]), held only
/// in langbench's memory until the check prints it at its end, so no
/// size is known before the check starts, and none can be derived by a
/// sandboxed `prepare` (it was the clock and langbench's pid, which a
/// command that reads the clock, on a host whose pids are few, could
/// guess).
pub(crate) fn random_seed() -> u64 {
    use std::hash::BuildHasher;
    std::hash::RandomState::new().hash_one(std::time::SystemTime::now())
}

/// One problem, on one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    pub file: String,
    pub line: usize,
    /// Column, when it is known (TOML errors and repeated defaults).
    pub column: Option<usize>,
    pub variant: String,
    pub what: String,
    pub todo: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Contributed text (a field quoted, a program's stderr) printed
        // inert (crates/document/src/inert.rs). Line 0: a problem of a whole file (a link
        // under results/).
        let t = langbench_document::inert::text;
        match self.line {
            0 => write!(f, "{}:", t(&self.file))?,
            line => write!(f, "{}:{line}:", t(&self.file))?,
        }
        if let Some(c) = self.column {
            write!(f, "{c}:")?;
        }
        write!(
            f,
            " {}: {}; {}",
            t(&self.variant),
            t(&self.what),
            t(&self.todo)
        )
    }
}

#[derive(Debug, Clone)]
pub struct Options {
    /// Variant ids (empty: every installed one, or the changed ones).
    pub ids: Vec<String>,
    /// Only the variants whose entry or programs changed since this git revision.
    pub changed_since: Option<String>,
    /// Per-run timeout (build + run).
    pub timeout: Duration,
    /// The seed of the second size ([`sizes`]); `None`: from the clock.
    pub seed: Option<u64>,
}

/// What `check` found.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    pub problems: Vec<Problem>,
    /// Variants not installed here: (id, missing, install hint).
    pub not_installed: Vec<(String, Vec<String>, String)>,
    /// Variants whose programs ran and were right at every size.
    pub passed: Vec<String>,
    /// Variants checked without running (e.g. ws-echo servers): (id, why).
    pub not_run: Vec<(String, String)>,
    /// Variants whose `fails = "..."` held: (id, the first failure).
    pub failed_as_declared: Vec<(String, String)>,
    /// What was not checked, and why (printed, not failed).
    pub notes: Vec<String>,
    /// The sizes every program ran at, and the seed the second was drawn
    /// with.
    pub sizes: [u64; 2],
    pub seed: u64,
}

impl Findings {
    pub(crate) fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Parses the file; a parse error is the one problem there is.
pub(crate) fn load(path: &Path) -> Result<Languages, Problem> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| Problem {
        file: shown.clone(),
        line: 1,
        column: None,
        variant: "-".into(),
        what: format!("cannot read the languages file: {e}"),
        todo: "pass --languages PATH".into(),
    })?;
    Languages::parse(&text, path).map_err(|e| Problem {
        file: e.file,
        line: e.line,
        column: Some(e.column),
        variant: variant_of(&e.message),
        what: e.message,
        todo: "fix the entry (CONTRIBUTING.md describes every field)".into(),
    })
}

fn variant_of(message: &str) -> String {
    message
        .strip_prefix("variant \"")
        .and_then(|m| m.split_once('"'))
        .map_or("-".into(), |(id, _)| id.to_string())
}

/// The variant ids `check` looks at.
pub(crate) fn selection(langs: &Languages, opts: &Options) -> Result<Vec<String>> {
    if let Some(rev) = &opts.changed_since {
        let changed = changed_since(langs, rev)?;
        if opts.ids.is_empty() {
            return Ok(changed);
        }
        return Ok(opts
            .ids
            .iter()
            .filter(|i| changed.contains(i))
            .cloned()
            .collect());
    }
    Ok(langs
        .select(&opts.ids)?
        .into_iter()
        .map(|v| v.id.clone())
        .collect())
}

/// Runs the whole check: the file, then the selected variants.
pub(crate) fn check(spawner: &Spawner, langs: &Languages, opts: &Options) -> Result<Findings> {
    let seed = opts.seed.unwrap_or_else(random_seed);
    let mut found = Findings {
        sizes: sizes(seed),
        seed,
        ..Findings::default()
    };
    let file = langs.path.display().to_string();
    for l in &langs.lints {
        found.problems.push(Problem {
            file: file.clone(),
            line: l.line,
            column: Some(l.column),
            variant: l.variant.clone(),
            what: l.message.clone(),
            todo: l.fix.clone(),
        });
    }
    shared_dir_problems(langs, &mut found);
    link_problems(langs, &mut found);
    let ids = selection(langs, opts)?;
    added_measurements(langs, opts, &mut found)?;
    // With --changed-since, no changed variant means none to run (`select`
    // of no ids would be every variant).
    if ids.is_empty() && opts.changed_since.is_some() {
        return Ok(found);
    }
    for v in langs.select(&ids)? {
        check_variant(spawner, langs, v, opts, &mut found);
    }
    Ok(found)
}

/// A variant that takes `{dir}` where other variants' programs live too
/// (`programs/assoc/`) would be picked by `--changed-since` for every
/// change there, so every pull request would install and check it: it has
/// to say which files are its own (`files`).
fn shared_dir_problems(langs: &Languages, found: &mut Findings) {
    for v in langs
        .variants
        .iter()
        .filter(|v| v.uses_dir() && v.files.is_empty())
    {
        let mine: BTreeSet<&PathBuf> = v.programs.values().collect();
        let dirs: BTreeSet<&Path> = v.programs.values().filter_map(|p| p.parent()).collect();
        let shared = dirs.iter().find(|d| {
            langs.variants.iter().any(|w| {
                w.programs
                    .values()
                    .any(|p| !mine.contains(p) && p.parent() == Some(**d))
            })
        });
        let Some(shared) = shared else { continue };
        let mut globs: BTreeSet<String> = BTreeSet::new();
        for (bench, p) in &v.programs {
            let rel = p.strip_prefix(v.root()).unwrap_or(p);
            let parent = rel
                .parent()
                .map(|d| d.display().to_string())
                .unwrap_or_default();
            let parent = if parent == format!("programs/{bench}") {
                "programs/*".to_string()
            } else {
                parent
            };
            let ext = p.extension().map(|e| format!("*.{}", e.to_string_lossy()));
            globs.insert(format!("{parent}/{}", ext.unwrap_or_else(|| "*".into())));
        }
        let globs: Vec<String> = globs.iter().map(|g| format!("{g:?}")).collect();
        found.problems.push(Problem {
            file: langs.path.display().to_string(),
            line: v.line,
            column: None,
            variant: v.id.clone(),
            what: format!(
                "its commands take {{dir}}, and {} holds other variants' programs too, so every change there would check it again",
                shown(langs, v, shared)
            ),
            todo: format!(
                "say which files are its own: files = [{}] (CONTRIBUTING.md: `files`)",
                globs.join(", ")
            ),
        });
    }
}

/// Every symbolic link in the checkout's `results/` (beside the languages
/// file), `results` itself included: langbench refuses a results directory
/// that holds one (src/store.rs: as root, a write through it would land
/// wherever it points), so a pull request that brings one is flagged here,
/// where CI sees it (.ci/pr runs `check`). Links are never followed.
fn link_problems(langs: &Languages, found: &mut Findings) {
    let root = match langs.path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut todo = vec![root.join("results")];
    let mut links = Vec::new();
    while let Some(p) = todo.pop() {
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            links.push(p);
        } else if meta.is_dir()
            && let Ok(entries) = std::fs::read_dir(&p)
        {
            todo.extend(entries.flatten().map(|e| e.path()));
        }
    }
    links.sort();
    for link in links {
        let to = std::fs::read_link(&link)
            .map(|t| format!(" (to {})", t.display()))
            .unwrap_or_default();
        found.problems.push(Problem {
            file: link.display().to_string(),
            line: 0,
            column: None,
            variant: "-".into(),
            what: format!(
                "a symbolic link{to} under results/: langbench refuses a results directory \
                 that holds one (run as root, a write through it would change what it points to)"
            ),
            todo: "remove it (a results directory holds only files and charts/)".into(),
        });
    }
}

/// The files of a results directory that hold records: what only a
/// measurement (or `import`, `merge`) writes.
const RECORD_FILES: [&str; 4] = [
    crate::store::RUNS,
    crate::store::SESSIONS,
    crate::store::REFERENCES,
    crate::ws_record::WS_RECORDS,
];

/// The revision `check` compares the checkout with when `--changed-since`
/// names none: the merge base of `HEAD` and this (a contributor's branch
/// of a clone).
const DEFAULT_BASE: &str = "origin/main";

/// Records and stored checks that the change adds under the checkout's
/// `results/` (issue #59, row 8): lines added to a results directory's
/// record files (`runs.jsonl`, `sessions.jsonl`, `references.jsonl`,
/// `ws.jsonl`) and new or changed `reproduced/*.json` files, each a
/// problem naming the file. A pull request adds programs and
/// `languages.toml` entries, never measurements: runs a pull request
/// appended were published as measured (`--resume` skipped their cell),
/// and a hand-written stored check coarsened the ranks. The change is
/// what differs from `--changed-since`'s revision (CI's base, .ci/pr),
/// else from the merge base of `HEAD` and [`DEFAULT_BASE`]; outside a git
/// checkout, or without that base, a note says it was not compared.
fn added_measurements(langs: &Languages, opts: &Options, found: &mut Findings) -> Result<()> {
    let file = langs
        .path
        .canonicalize()
        .with_context(|| format!("cannot find {}", langs.path.display()))?;
    let dir = file
        .parent()
        .context("the languages file has no directory")?;
    let not_compared = "what the change adds under results/ was not compared";
    let top = match git(dir, &["rev-parse", "--show-toplevel"]) {
        Ok(t) => PathBuf::from(t.trim()),
        Err(_) if opts.changed_since.is_none() => {
            found.notes.push(format!(
                "{not_compared}: {} is not a git checkout (CI compares it with the pull \
                 request's base: --changed-since REV)",
                dir.display()
            ));
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let (base, shown) = match &opts.changed_since {
        Some(rev) => (rev.clone(), rev.clone()),
        None => match git(&top, &["merge-base", "HEAD", DEFAULT_BASE]) {
            Ok(b) => {
                let b = b.trim().to_string();
                let short = b.get(..12).unwrap_or(&b).to_string();
                (
                    b,
                    format!("the merge base of HEAD and {DEFAULT_BASE}, {short}"),
                )
            }
            Err(_) => {
                found.notes.push(format!(
                    "{not_compared}: the checkout has no {DEFAULT_BASE} to compare with \
                     (pass --changed-since REV, the branch your change is based on)"
                ));
                return Ok(());
            }
        },
    };
    let results = dir.join("results");
    let rel = results.strip_prefix(&top).unwrap_or(&results);
    for (path, added) in added_under(&top, &base, rel)? {
        let shown_path = pathdiff::diff_paths(top.join(&path), dir).unwrap_or(path.clone());
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let Some(name) = name else { continue };
        let in_reproduced = path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|d| d == crate::store::REPRODUCED);
        let what = if RECORD_FILES.contains(&name.as_str()) {
            format!(
                "the change adds {} of a results directory (since {shown}): a pull request adds \
                 programs and languages.toml entries, never measurements",
                match added {
                    Some(1) => "1 line to these records".to_string(),
                    Some(n) => format!("{n} lines to these records"),
                    None => "this file of records".to_string(),
                }
            )
        } else if in_reproduced && name.ends_with(".json") {
            format!(
                "the change adds or changes a stored reproducibility check (since {shown}): a \
                 pull request adds programs and languages.toml entries, never measurements"
            )
        } else {
            continue;
        };
        found.problems.push(Problem {
            file: shown_path.display().to_string(),
            line: 0,
            column: None,
            variant: "-".into(),
            what,
            todo: "take it out of the change: a maintainer measures on the reference machine \
                   (`langbench run`, `reproduce --store`; docs/running.md)"
                .into(),
        });
    }
    Ok(())
}

/// The files under `rel` (relative to the checkout `top`) that differ
/// from revision `base` with lines added, and how many (`None`: a binary
/// file), then those git does not track yet (each counted whole), by
/// path relative to `top`.
///
/// git runs as a subprocess, as for `--changed-since`: what a change adds
/// is git's to say (its index, packs and the working tree), and no crate
/// in Cargo.lock reads a repository. It executes nothing of the change:
/// `--numstat` is git's own diff (`--no-ext-diff`, `--no-textconv`: no
/// driver a `.gitattributes` names is run), and what git would run (a
/// `core.fsmonitor` hook, a filter) comes from the machine's git
/// configuration, never from the checkout's files (fsmonitor is turned
/// off all the same).
fn added_under(top: &Path, base: &str, rel: &Path) -> Result<Vec<(PathBuf, Option<u64>)>> {
    let rel = rel.display().to_string();
    let diff = git(
        top,
        &[
            "-c",
            "core.fsmonitor=false",
            "diff",
            "--no-ext-diff",
            "--no-textconv",
            "--no-renames",
            "--numstat",
            "-z",
            base,
            "--",
            &rel,
        ],
    )?;
    let mut out = Vec::new();
    for entry in diff.split('\0').filter(|e| !e.is_empty()) {
        let mut parts = entry.splitn(3, '\t');
        let (Some(added), Some(_), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let added = added.parse::<u64>().ok();
        if added != Some(0) {
            out.push((PathBuf::from(path), added));
        }
    }
    let untracked = git(
        top,
        &[
            "-c",
            "core.fsmonitor=false",
            "ls-files",
            "-z",
            "--others",
            "--exclude-standard",
            "--",
            &rel,
        ],
    )?;
    for path in untracked.split('\0').filter(|p| !p.is_empty()) {
        out.push((PathBuf::from(path), None));
    }
    Ok(out)
}

/// A program path as the user sees it: next to the languages file as given.
fn shown(langs: &Languages, v: &Variant, p: &Path) -> String {
    let rel = p.strip_prefix(v.root()).unwrap_or(p);
    langs
        .path
        .parent()
        .map_or(rel.to_path_buf(), |d| d.join(rel))
        .display()
        .to_string()
}

/// Checks one variant: its entry and stubs, then (when installed) its
/// version and every CPU program at both [`sizes`], and what its runs left
/// in their HOME.
fn check_variant(
    spawner: &Spawner,
    langs: &Languages,
    v: &Variant,
    opts: &Options,
    found: &mut Findings,
) {
    let stubs = entry_problems(langs, v, found);
    let missing = v.missing();
    if !missing.is_empty() {
        found
            .not_installed
            .push((v.id.clone(), missing, v.install.describe()));
        return;
    }
    let before = found.problems.len();
    check_version(spawner, langs, v, found);
    let mut ran = false;
    let mut stray = Stray::default();
    // With `fails = "..."`: the first run that failed as declared.
    let mut declared: Option<String> = None;
    for (&bench, path) in &v.programs {
        if !bench.is_cpu() {
            found.not_run.push((
                v.id.clone(),
                format!(
                    "{bench} servers are not run by check: `langbench ws --lang {} --connections 10 --duration 1`",
                    v.id
                ),
            ));
            continue;
        }
        ran = true;
        let sizes = (found.sizes, found.seed);
        let (file, line, what, todo) =
            match check_program(spawner, v, bench, sizes, opts.timeout, &mut stray) {
                Ok(()) => continue,
                Err(Wrong::Declared(first)) => {
                    declared.get_or_insert(first);
                    continue;
                }
                Err(Wrong::Prepare(e)) => (
                    langs.path.display().to_string(),
                    v.line,
                    e,
                    "fix `prepare` (it runs once, untimed, before the runs)".to_string(),
                ),
                Err(Wrong::Run { what, todo }) => (shown(langs, v, path), 1, what, todo),
            };
        found.problems.push(problem(v, file, line, what, todo));
    }
    if let Some(p) = stray.problem(langs, v) {
        found.problems.push(p);
    }
    let clean = ran && !stubs && found.problems.len() == before;
    match (&v.fails, declared) {
        (Some(_), Some(first)) if clean => found.failed_as_declared.push((v.id.clone(), first)),
        (Some(why), None) if clean => found.problems.push(problem(
            v,
            langs.path.display().to_string(),
            v.line,
            format!("every program ran right, but `fails` says it cannot ({why})"),
            "delete the `fails` line (and what the note says about failing)".into(),
        )),
        (None, _) if clean => found.passed.push(v.id.clone()),
        _ => {}
    }
}

/// A problem of variant `v`.
fn problem(v: &Variant, file: String, line: usize, what: String, todo: String) -> Problem {
    Problem {
        file,
        line,
        column: None,
        variant: v.id.clone(),
        what,
        todo,
    }
}

/// The entry's own problems: no install instructions, programs that are
/// still `langbench new`'s stubs (`true` when one is).
fn entry_problems(langs: &Languages, v: &Variant, found: &mut Findings) -> bool {
    if v.install.describe() == "no install instructions" {
        found.problems.push(problem(
            v,
            langs.path.display().to_string(),
            v.line,
            "no install instructions".into(),
            "add install = { apt = [...] } (or npm, pip) or install = { hint = \"...\" }".into(),
        ));
    }
    let mut stubs = false;
    for (bench, path) in &v.programs {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if let Some(line) = text.lines().position(|l| l.contains(STUB_MARKER)) {
            stubs = true;
            found.problems.push(problem(
                v,
                shown(langs, v, path),
                line + 1,
                format!("{bench} is still the stub `langbench new` wrote"),
                format!(
                    "implement {bench} as the spec says (docs/benchmarks.md, \"{bench}\") and delete the {STUB_MARKER} lines"
                ),
            ));
        }
    }
    stubs
}

/// The version every table shows: a probe that prints none (`tclsh
/// --version` prints nothing) would leave "unknown" in the published row,
/// so it is a problem, with the working form of a probe as the fix.
fn check_version(spawner: &Spawner, langs: &Languages, v: &Variant, found: &mut Findings) {
    if let Err(e) = crate::toolchain::version(spawner, v) {
        found.problems.push(Problem {
            file: langs.path.display().to_string(),
            line: v.line,
            column: None,
            variant: v.id.clone(),
            what: format!("its version cannot be read ({e:#})"),
            todo: "set `version` to a command that prints it (a shell script in TOML: \
                   version = \"sh -c 'echo puts [info patchlevel] | tclsh'\"), and \
                   `version_regex` if other numbers come first (CONTRIBUTING.md: \"The version\")"
                .into(),
        });
    }
}

fn shape(bench: Bench) -> &'static str {
    match bench {
        Bench::Assoc => "two lines `dup1 dup2 dup3` and `total verify count`",
        _ => "one line `bad a[0] a[N-1]`",
    }
}

/// Why a program is not right.
enum Wrong {
    /// Its `prepare` failed.
    Prepare(String),
    /// A run was not `ok`: what was wrong, in `run`'s status words, and
    /// what to do.
    Run { what: String, todo: String },
    /// A run did not finish cleanly, as the variant's `fails` says it
    /// cannot: the first such run.
    Declared(String),
}

/// CPU seconds of work (beyond its time at N = [`TINY`]) `check` looks
/// for in a program's run before it judges whether a second run did the
/// work too (issue #59, row 6): far above what a build's CPU time varies
/// by between runs, so that a quarter of it is no accident of the machine.
pub(crate) const WORK_S: f64 = 0.5;

/// CPU seconds of work a program must show by [`LADDER_TOP`] times the
/// edition's size, at the latest: the fastest honest program does twenty
/// times as much there (c-gcc sorts 10,000,000 floats in 0.45 s of CPU
/// here); one that does not prints an answer it does not compute
/// (`echo 0 1 $1`).
pub(crate) const GROWS_S: f64 = 0.1;

/// How far past the edition's size `check` goes to see a program's work
/// (its sizes stop at [`WORK_S`] of work, so only the fastest programs
/// come near it): c-gcc's num-comb does 0.45 s of work at the edition's
/// 10,000,000 here, under [`WORK_S`], and an answer it kept went unseen
/// there; at four times that size (320 MB of doubles) it does 2 s.
pub(crate) const LADDER_TOP: u64 = 4;

/// Prepares one program (its own caches, apart from the measured runs',
/// keyed by no version) and runs it twice at each of `sizes` (`prepare`
/// never sees them: it runs first, is given no size, and the second size
/// is drawn from a seed no sandboxed command can read), then judges how
/// its time scales ([`scaling`]). After every run that was right, its
/// caches and prepared copy are searched for the answer it printed
/// ([`crate::cell::remembered`]): found, it remembers answers (issue #59,
/// row 6), whether an earlier run kept it there or `prepare` computed it
/// for a size known in advance (N = 1,000 is).
fn check_program(
    spawner: &Spawner,
    v: &Variant,
    bench: Bench,
    (sizes, seed): ([u64; 2], u64),
    timeout: Duration,
    stray: &mut Stray,
) -> Result<(), Wrong> {
    let mut program = Program::new(spawner, v, bench);
    // Without caches when they cannot be made: its runs start from a fresh
    // HOME, which is not a problem of the entry's.
    let _ = program.set_caches("check", false);
    program
        .prepare(timeout)
        .map_err(|e| Wrong::Prepare(e.to_string()))?;
    let mut runs = Runs {
        program: &program,
        timeout,
        stray,
        right_at: None,
    };
    let mut cpu = [[0.0; 2]; 2];
    for (i, n) in sizes.into_iter().enumerate() {
        for c in &mut cpu[i] {
            *c = runs.once(n)?;
        }
    }
    scaling(&mut runs, sizes, cpu, seed)
}

/// One program's runs in `check`: each judged as `run` judges it, then
/// its caches and prepared copy searched.
struct Runs<'p, 's> {
    program: &'p Program<'p>,
    timeout: Duration,
    stray: &'s mut Stray,
    /// The first size it was right at.
    right_at: Option<u64>,
}

impl Runs<'_, '_> {
    /// One run at `n`: its CPU seconds (build steps and run) when it was
    /// right and nothing kept its answer.
    fn once(&mut self, n: u64) -> Result<f64, Wrong> {
        let (v, bench) = (self.program.variant, self.program.bench);
        let ran = run_program(self.program, n, self.timeout, self.stray);
        if ran.verdict.status != Status::Ok {
            return Err(wrong(v, bench, n, self.right_at, &ran.verdict, &ran.stdout));
        }
        self.right_at.get_or_insert(n);
        let searched = self.program.remembered(n, Budget::RUN);
        if let Some(found) = searched.found {
            return Err(Wrong::Run {
                what: format!(
                    "{bench} at N={n}: after a right run, {found} held the answer it printed: \
                     it keeps answers where its runs (or its untimed `prepare`) leave them"
                ),
                todo: remembered_todo(),
            });
        }
        Ok(ran.cpu_s)
    }
}

fn remembered_todo() -> String {
    "compute the answer from N in every run, and keep nothing of an answer in `caches`, \
     `prepare`'s files or anywhere else (CONTRIBUTING.md: \"Remembered answers\")"
        .into()
}

/// How its CPU time scales (issue #59, row 6): from its faster run at
/// N = [`TINY`] (`cpu[0]`, whose start-up and cached build every run
/// shares) to a size where its work is [`WORK_S`] or more: the drawn
/// size (`cpu[1]`), else larger sizes drawn at random (4 to 8 times the
/// last, never announced, at most [`LADDER_TOP`] times the edition's
/// size), each run once until the work is there. A program whose work has not grown by
/// [`GROWS_S`] by then does not do it; at the size reached, a second run
/// must do at least a quarter of the first's work
/// ([`crate::noise::WARM_FACTOR`]), or it remembered what the first
/// computed, wherever it kept it. Only these two runs are compared: by
/// then the caches hold the program's build, so a toolchain's warm cache
/// (crystal's 8× at the edition's sizes) is in both.
fn scaling(
    runs: &mut Runs<'_, '_>,
    sizes: [u64; 2],
    cpu: [[f64; 2]; 2],
    seed: u64,
) -> Result<(), Wrong> {
    let bench = runs.program.bench;
    let base = cpu[0][0].min(cpu[0][1]);
    let edition = crate::bench::Size::Ed2021.n(bench);
    let cap = LADDER_TOP * edition;
    // Its own stream of the seed: `--seed` repeats these sizes too.
    let mut rng = fastrand::Rng::with_seed(seed ^ 0x5ca1_ab1e);
    let (mut n, mut first, mut second) = (sizes[1], cpu[1][0], Some(cpu[1][1]));
    while first - base < WORK_S && n < cap {
        n = rng.u64(n.saturating_mul(4)..=n.saturating_mul(8)).min(cap);
        first = runs.once(n)?;
        second = None;
    }
    let (tiny, work) = (sizes[0], first - base);
    if work < GROWS_S {
        return Err(Wrong::Run {
            what: format!(
                "{bench}: its time does not grow with N: {base:.3} s of CPU at N={tiny}, \
                 {first:.3} s at N={n}, less than {GROWS_S} s more for {:.0}× the size: it \
                 prints an answer it does not compute",
                n as f64 / tiny as f64
            ),
            todo: remembered_todo(),
        });
    }
    if work < WORK_S {
        // Fast even past the edition's size: its runs' difference is too
        // small to judge.
        return Ok(());
    }
    let second = match second {
        Some(s) => s,
        None => runs.once(n)?,
    };
    let again = second - base;
    if again < work / crate::noise::WARM_FACTOR {
        let drawn = if n < cap {
            "drawn at random"
        } else {
            "the largest size check runs"
        };
        return Err(Wrong::Run {
            what: format!(
                "{bench} at N={n} ({drawn}): its second run did {:.3} s of work (CPU beyond \
                 its {base:.3} s at N={tiny}), its first {work:.3} s: more than {}× less, \
                 with its build cached for both: it remembers answers between runs",
                again.max(0.0),
                crate::noise::WARM_FACTOR,
            ),
            todo: remembered_todo(),
        });
    }
    Ok(())
}

/// What is wrong with a run at size `n` (`right_at`: the first size it was
/// right at) whose verdict is not `ok`: its status as `run` records it,
/// the note, and what to do.
fn wrong(
    v: &Variant,
    bench: Bench,
    n: u64,
    right_at: Option<u64>,
    verdict: &Verdict,
    stdout: &str,
) -> Wrong {
    let d = verdict.detail.as_deref().unwrap_or("");
    let said = format!("{bench} at N={n}: {}", verdict.status);
    let (what, todo) = match verdict.status {
        Status::WrongOutput if !spec_format(bench).is_match(stdout) => (
            format!("{said}, not the spec's format ({d})"),
            format!(
                "print exactly {} (plain integers, single spaces, a newline after each line, nothing else)",
                shape(bench)
            ),
        ),
        Status::WrongOutput => match right_at {
            Some(first) => (
                format!("{said}, though right at N={first} ({d})"),
                "compute the answer from N (the first argument); never print a remembered one"
                    .to_string(),
            ),
            None => (
                format!("{said} ({d})"),
                format!("compare with `langbench expected {bench} --size {n}` and the spec"),
            ),
        },
        Status::Escaped => (format!("{said} ({d})"), by_hand(v, bench, n)),
        // It did not finish cleanly: as declared, or a problem.
        _ if v.fails.is_some() => {
            return Wrong::Declared(format!("{said} ({})", d.lines().next().unwrap_or("")));
        }
        _ if d.contains("program directories are read-only") => (
            format!("{said} ({d})"),
            format!(
                "make the build write nothing beside its source: its outputs in {{build}} (CONTRIBUTING.md, \"The languages file\"); then {}",
                by_hand(v, bench, n)
            ),
        ),
        _ => (format!("{said} ({d})"), by_hand(v, bench, n)),
    };
    Wrong::Run { what, todo }
}

/// The command that runs one program as `run` does, to see it fail in
/// full: into a results directory of its own under the system's temporary
/// directory, never the checkout's `results/` (a `run` without `--out`
/// writes `results/<year>-<size>` there).
fn by_hand(v: &Variant, bench: Bench, n: u64) -> String {
    format!(
        "run it by hand: `langbench run --lang {} --bench {bench} --size {n} --runs 1 --out \"$(mktemp -d)\"`",
        shell_words::quote(&v.id)
    )
}

/// The shape of the spec's output for `bench`: plain integers.
fn spec_format(bench: Bench) -> Regex {
    let format = match bench {
        Bench::Assoc => r"\A\d+ \d+ \d+\n\d+ \d+ \d+\n\z",
        _ => r"\A\d+ \d+ \d+\n\z",
    };
    Regex::new(format).expect("valid regex")
}

/// Builds (if the variant has build steps) and runs one program at size `n`
/// in a fresh build directory, through the spawner, as `run` does, and
/// judges it as `run` does; then, when it ran sandboxed, adds what it left
/// in its HOME outside its declared caches to `stray`. Not a measurement
/// for a table: `run` measures; this says whether it is right, and how
/// much CPU it took (to compare with its other runs).
fn run_program(program: &Program, n: u64, timeout: Duration, stray: &mut Stray) -> Ran {
    let failed = |detail: String| Ran {
        verdict: Verdict {
            status: Status::Failed,
            detail: Some(detail),
        },
        stdout: String::new(),
        cpu_s: 0.0,
    };
    let build = match crate::scratch::dir("check") {
        Ok(b) => b,
        Err(e) => return failed(format!("cannot create a build directory: {e:#}")),
    };
    let result = match program.attempt(n, build.path(), timeout) {
        Ok(a) => Ran {
            stdout: match &a.ended {
                Ended::Ran(o) => o.stdout.text(),
                _ => String::new(),
            },
            cpu_s: a.totals.cpu().as_secs_f64(),
            verdict: a.verdict,
        },
        Err(e) => failed(format!("{e:#}")),
    };
    let c = &program.spawner.containment;
    if c.namespaces && c.isolate {
        // Every process of the run died with its PID namespace: nothing
        // writes there any more while it is read.
        stray.add(&langbench_spawn::home_dir_of(build.path()), program.variant);
    }
    result
}

/// One run of `check`'s: its verdict, what it printed, and its CPU
/// seconds (build steps and run).
struct Ran {
    verdict: Verdict,
    stdout: String,
    cpu_s: f64,
}

/// What a variant's runs left in their sandboxed HOME outside its declared
/// `caches` and `home`: each run's HOME is fresh and thrown away, so a
/// toolchain that caches there (a new one's `~/.cache/foo`) starts cold in
/// every run, and its cell measures a cold build each time, not a
/// person's second run. `check` says where, and how to declare it.
///
/// The HOME was written by the contributed program, so it is hostile here:
/// it is read without following a symbolic link (a HOME replaced by one
/// is reported, not walked; links inside are entries, not directories), the
/// walk stops after [`Stray::WALK_LIMIT`] entries, at most
/// [`Stray::SHOWN`] places are named, each cut to a bounded length, and
/// every name is printed inert (control and format characters escaped, so
/// no terminal escape or line break of the program's reaches the output).
#[derive(Debug, Default)]
pub(crate) struct Stray {
    /// Per place under HOME (`.cache/foo`): the files a run left there (the
    /// most of any run), and whether the place is a directory (else a file
    /// of its own, which cannot be a cache).
    places: BTreeMap<PathBuf, (usize, bool)>,
    /// A run replaced its HOME by something that is not a directory.
    replaced: bool,
    /// A run's HOME held more entries than the walk looks at.
    truncated: bool,
}

impl Stray {
    /// Entries of one HOME looked at, at most.
    pub(crate) const WALK_LIMIT: usize = 20_000;
    /// Places named, at most.
    pub(crate) const SHOWN: usize = 5;
    /// Characters of a place's name shown, at most.
    const NAME_CHARS: usize = 80;

    /// Adds what the HOME at `home` (a host directory) holds outside the
    /// declared caches and home directories of `v`.
    pub(crate) fn add(&mut self, home: &Path, v: &Variant) {
        match std::fs::symlink_metadata(home) {
            // No HOME: the command never started.
            Err(_) => return,
            Ok(m) if !m.is_dir() => {
                self.replaced = true;
                return;
            }
            Ok(_) => {}
        }
        let declared: Vec<&PathBuf> = v.caches.iter().chain(&v.home_dirs).collect();
        let mut run: BTreeMap<PathBuf, (usize, bool)> = BTreeMap::new();
        let mut seen = 0;
        let mut todo = vec![PathBuf::new()];
        'walk: while let Some(rel) = todo.pop() {
            let Ok(entries) = std::fs::read_dir(home.join(&rel)) else {
                continue;
            };
            for e in entries.flatten() {
                seen += 1;
                if seen > Self::WALK_LIMIT {
                    self.truncated = true;
                    break 'walk;
                }
                let path = rel.join(e.file_name());
                if declared.iter().any(|d| path.starts_with(d)) {
                    continue;
                }
                // lstat: a symlink is an entry, never followed.
                match e.file_type() {
                    Ok(t) if t.is_dir() => todo.push(path),
                    Ok(_) => {
                        let (p, dir) = place(&path, &declared);
                        run.entry(p).or_insert((0, dir)).0 += 1;
                    }
                    Err(_) => {}
                }
            }
        }
        for (p, (n, dir)) in run {
            let e = self.places.entry(p).or_insert((0, dir));
            e.0 = e.0.max(n);
        }
    }

    /// The problem to report, if the runs left anything.
    pub(crate) fn problem(&self, langs: &Languages, v: &Variant) -> Option<Problem> {
        if self.places.is_empty() && !self.replaced {
            return None;
        }
        let (line, table) = match &v.toolchain {
            Some((name, line)) if !v.own_caches => (*line, format!("[toolchain.{name}]")),
            _ => (v.line, "its entry".to_string()),
        };
        let mut what = Vec::new();
        if self.replaced {
            what.push(
                "a run replaced its HOME by a symbolic link or a file (not followed)".to_string(),
            );
        }
        if !self.places.is_empty() {
            let files: usize = self.places.values().map(|(n, _)| n).sum();
            let mut named: Vec<String> = self
                .places
                .iter()
                .take(Self::SHOWN)
                .map(|(p, (n, _))| {
                    format!(
                        "{} ({n} file{})",
                        inert(p, Self::NAME_CHARS),
                        if *n == 1 { "" } else { "s" }
                    )
                })
                .collect();
            let more = self.places.len().saturating_sub(Self::SHOWN);
            if more > 0 {
                named.push(format!(
                    "and {more} more place{}",
                    if more == 1 { "" } else { "s" }
                ));
            }
            what.push(format!(
                "its runs left {files}{} file{} in the sandbox's HOME outside its declared caches, \
                 which every run starts without (a cache there is cold in every measured run): {}",
                if self.truncated { "+" } else { "" },
                if files == 1 { "" } else { "s" },
                named.join(", ")
            ));
        } else if self.truncated {
            what.push(format!(
                "its HOME held more than {} entries",
                Self::WALK_LIMIT
            ));
        }
        // Only plain directory names become a suggested line of TOML.
        let dirs: Vec<String> = self
            .places
            .iter()
            .filter(|(_, (_, dir))| *dir)
            .map(|(p, _)| format!("~/{}", p.display()))
            .filter(|p| inert(Path::new(p), usize::MAX) == *p && !p.contains(['"', '\\']))
            .take(Self::SHOWN)
            .collect();
        let todo = if !dirs.is_empty() {
            let list: Vec<String> = v
                .caches
                .iter()
                .map(|c| format!("~/{}", c.display()))
                .chain(dirs)
                .map(|c| format!("{c:?}"))
                .collect();
            let (it, is) = if list.len() - v.caches.len() == 1 {
                ("it", "it is")
            } else {
                ("them", "they are")
            };
            format!(
                "if {is} the toolchain's cache, declare {it}: caches = [{}] in {table} \
                 (CONTRIBUTING.md: `caches`); if not, make the program write nothing there",
                list.join(", ")
            )
        } else if self.places.values().any(|(_, dir)| *dir) {
            format!(
                "if a place named is the toolchain's cache, declare it in `caches` in {table} \
                 (CONTRIBUTING.md: `caches`); if not, make the program write nothing there"
            )
        } else {
            "a file directly in HOME cannot be a declared cache (caches are directories): \
             if the toolchain caches there, point it at a directory (`env`); else make the \
             program write nothing there"
                .to_string()
        };
        Some(Problem {
            file: langs.path.display().to_string(),
            line,
            column: None,
            variant: v.id.clone(),
            what: what.join("; "),
            todo,
        })
    }
}

/// The place under HOME a file left at `rel` is shown under: its first
/// directory, or where programs share one (`.cache`, `.config`, `.local`,
/// `.local/share`, `.local/state`) the one below it; deeper while it
/// would hold a declared cache (a place never contains one). `true`: the
/// place is a directory above the file, not the file itself.
fn place(rel: &Path, declared: &[&PathBuf]) -> (PathBuf, bool) {
    let parts: Vec<_> = rel.components().collect();
    let mut n = match parts.first().and_then(|c| c.as_os_str().to_str()) {
        Some(".local")
            if parts
                .get(1)
                .and_then(|c| c.as_os_str().to_str())
                .is_some_and(|s| ["share", "state", "lib"].contains(&s)) =>
        {
            3
        }
        Some(".cache" | ".config" | ".local") => 2,
        _ => 1,
    };
    loop {
        let p: PathBuf = parts.iter().take(n).collect();
        if n >= parts.len() || !declared.iter().any(|d| d.starts_with(&p)) {
            return (p, n < parts.len());
        }
        n += 1;
    }
}

/// `~/` and a path written by hostile code, safe to print: control and
/// format characters (escapes, line breaks, bidirectional overrides)
/// escaped as `\u{..}` (as Rust's `escape_debug` does), invalid UTF-8
/// replaced, at most `max` characters.
fn inert(p: &Path, max: usize) -> String {
    let raw = p.to_string_lossy();
    let raw = raw.strip_prefix("~/").unwrap_or(&raw);
    let mut out = String::from("~/");
    for c in raw.chars() {
        if c.is_control() || !c.escape_debug().eq([c]) && !matches!(c, '"' | '\'' | '\\') {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    if out.chars().count() > max {
        out = out.chars().take(max).collect::<String>() + "…";
    }
    out
}

/// The variants whose entry (or its toolchain table) or own files changed
/// since the git revision `rev`: committed, staged, unstaged or new files.
/// A variant's own files are its programs and what its `files` globs
/// match; without `files`, a variant that uses `{dir}` owns every file of
/// its programs' directories (manifests, lock files). Uses the git CLI, as
/// CI has it.
pub(crate) fn changed_since(langs: &Languages, rev: &str) -> Result<Vec<String>> {
    let file = langs
        .path
        .canonicalize()
        .with_context(|| format!("cannot find {}", langs.path.display()))?;
    let dir = file
        .parent()
        .context("the languages file has no directory")?;
    let top = PathBuf::from(git(dir, &["rev-parse", "--show-toplevel"])?.trim());
    git(
        &top,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .with_context(|| format!("{rev:?} is not a git revision here"))?;
    let mut changed: BTreeSet<PathBuf> = BTreeSet::new();
    for args in [
        vec!["diff", "--name-only", "-z", rev, "--"],
        vec!["ls-files", "-z", "--others", "--exclude-standard"],
    ] {
        for name in git(&top, &args)?.split('\0').filter(|s| !s.is_empty()) {
            changed.insert(top.join(name));
        }
    }
    let rel = file.strip_prefix(&top).unwrap_or(&file);
    let old_text = git(&top, &["show", &format!("{rev}:{}", rel.display())]).unwrap_or_default();
    let (old_entries, old_tools) = entries(&old_text);
    let new_text = std::fs::read_to_string(&file)?;
    let (new_entries, new_tools) = entries(&new_text);
    let mut out = Vec::new();
    for v in &langs.variants {
        let entry_changed = old_entries.get(&v.id) != new_entries.get(&v.id);
        let tool = new_entries
            .get(&v.id)
            .and_then(|e| e.get("toolchain"))
            .and_then(|t| t.as_str());
        let tool_changed = tool.is_some_and(|t| old_tools.get(t) != new_tools.get(t));
        let own_file = |c: &PathBuf| {
            c.strip_prefix(dir).is_ok_and(|rel| {
                v.files
                    .iter()
                    .any(|g| g.matches_path_with(rel, crate::config::FILE_GLOB))
            })
        };
        let files_changed = v.programs.values().any(|p| {
            let p = p.canonicalize().unwrap_or(p.clone());
            changed.contains(&p)
                || (v.uses_dir()
                    && v.files.is_empty()
                    && p.parent()
                        .is_some_and(|d| changed.iter().any(|c| c.starts_with(d))))
        }) || changed.iter().any(own_file);
        if entry_changed || tool_changed || files_changed {
            out.push(v.id.clone());
        }
    }
    Ok(out)
}

/// Each variant's raw entry and each toolchain table of a languages file
/// (either syntax), for comparing two versions of the file; an unparsable
/// or absent old file has none, so every variant counts as changed.
fn entries(text: &str) -> (BTreeMap<String, toml::Value>, BTreeMap<String, toml::Value>) {
    let Ok(table) = text.parse::<toml::Table>() else {
        return Default::default();
    };
    let mut variants = BTreeMap::new();
    match table.get("variant") {
        Some(toml::Value::Table(t)) => {
            for (id, v) in t {
                variants.insert(id.clone(), v.clone());
            }
        }
        Some(toml::Value::Array(a)) => {
            for v in a {
                if let Some(id) = v.get("id").and_then(|i| i.as_str()) {
                    variants.insert(id.to_string(), v.clone());
                }
            }
        }
        _ => {}
    }
    let tools = match table.get("toolchain") {
        Some(toml::Value::Table(t)) => t.clone().into_iter().collect(),
        _ => BTreeMap::new(),
    };
    (variants, tools)
}

fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .context("cannot run git (needed to compare the checkout with its base)")?;
    if !out.status.success() {
        bail!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `langbench check`: every problem, variant not installed, not run and
/// passed, one a line, then the count; exit 1 on any problem. A languages
/// file that does not load is the one problem reported: `opts` is read
/// only once it has. With `ids_only`, the selected ids and nothing run.
pub fn command(
    spawner: &Spawner,
    languages: &Path,
    ids_only: bool,
    opts: impl FnOnce() -> Result<Options>,
) -> Result<ExitCode> {
    let langs = match load(languages) {
        Ok(l) => l,
        Err(p) => {
            println!("{p}");
            println!("check: 1 problem");
            return Ok(ExitCode::from(1));
        }
    };
    let opts = opts()?;
    if ids_only {
        for id in selection(&langs, &opts)? {
            println!("{id}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let found = check(spawner, &langs, &opts)?;
    for p in &found.problems {
        println!("{p}");
    }
    let t = langbench_document::inert::text;
    for (id, missing, hint) in &found.not_installed {
        println!(
            "not installed: {id} (missing {}); install: {}",
            t(&missing.join(", ")),
            t(hint)
        );
    }
    for (id, why) in &found.not_run {
        println!("not run: {id}: {}", t(why));
    }
    for id in &found.passed {
        println!("ok: {id}");
    }
    for (id, first) in &found.failed_as_declared {
        println!("fails as declared: {id}: {}", t(first));
    }
    for n in &found.notes {
        println!("note: {}", t(n));
    }
    let [tiny, drawn] = found.sizes;
    println!(
        "check: {} problem(s); {} variant(s) right at N={tiny} and N={drawn}, twice each \
         (N={drawn} drawn at random with seed {}: `--seed {}` repeats it), {} not installed",
        found.problems.len(),
        found.passed.len(),
        found.seed,
        found.seed,
        found.not_installed.len()
    );
    Ok(if found.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variant(caches: &str) -> (tempfile::TempDir, Languages) {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("programs/num-comb")).unwrap();
        std::fs::write(d.path().join("programs/num-comb/x.sh"), "").unwrap();
        let toml = format!(
            "[toolchain.sh]\nneeds = [\"sh\"]\n{caches}\n\n[variant.x]\nlanguage = \"X\"\n\
             toolchain = \"sh\"\nrun = \"sh {{src}} {{n}}\"\n\
             programs = {{ num-comb = \"programs/num-comb/x.sh\" }}\n"
        );
        let path = d.path().join("languages.toml");
        let l = Languages::parse(&toml, &path).unwrap();
        (d, l)
    }

    fn write(home: &Path, rel: &str) {
        let p = home.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "x").unwrap();
    }

    /// Files outside the declared caches are named by place, with the
    /// fix spelled as TOML at the toolchain table's line; what is inside a
    /// declared cache, or only empty directories (the binds' mount
    /// points), is nothing.
    #[test]
    fn files_outside_the_declared_caches_are_named_with_the_fix() {
        let (_d, l) = variant("caches = [\"~/.cache/go-build\"]");
        let v = &l.variants[0];
        let home = tempfile::tempdir().unwrap();
        write(home.path(), ".cache/go-build/aa/bb");
        std::fs::create_dir_all(home.path().join(".cache/empty")).unwrap();
        let mut clean = Stray::default();
        clean.add(home.path(), v);
        assert!(clean.problem(&l, v).is_none(), "{clean:?}");
        write(home.path(), ".cache/undeclared/x");
        write(home.path(), ".cache/undeclared/sub/y");
        write(home.path(), ".local/share/tool/z");
        write(home.path(), ".history");
        let mut s = Stray::default();
        s.add(home.path(), v);
        s.add(home.path(), v);
        let p = s.problem(&l, v).unwrap();
        assert_eq!(p.line, 1, "the toolchain table's line: {p}");
        assert_eq!(
            p.what,
            "its runs left 4 files in the sandbox's HOME outside its declared caches, which \
             every run starts without (a cache there is cold in every measured run): \
             ~/.cache/undeclared (2 files), ~/.history (1 file), ~/.local/share/tool (1 file)"
        );
        assert!(
            p.todo.starts_with(
                "if they are the toolchain's cache, declare them: caches = [\"~/.cache/go-build\", \
                 \"~/.cache/undeclared\", \"~/.local/share/tool\"] in [toolchain.sh] \
                 (CONTRIBUTING.md: `caches`)"
            ),
            "{p}"
        );
    }

    /// The HOME is the program's: names with escapes and line breaks are
    /// printed inert and never suggested as TOML, a symlink out of it is
    /// not followed, a HOME replaced by a symlink is not walked, and the
    /// walk and the list are bounded.
    #[test]
    fn a_hostile_home_is_read_inert_and_bounded() {
        let (_d, l) = variant("");
        let v = &l.variants[0];
        let home = tempfile::tempdir().unwrap();
        write(home.path(), ".cache/\x1b[31mred\nfake: ok\u{202e}/x");
        let outside = tempfile::tempdir().unwrap();
        write(outside.path(), "secret/a");
        write(outside.path(), "secret/b");
        std::os::unix::fs::symlink(outside.path(), home.path().join("link")).unwrap();
        let mut s = Stray::default();
        s.add(home.path(), v);
        let p = s.problem(&l, v).unwrap();
        let text = p.to_string();
        assert!(!text.chars().any(|c| c.is_control()), "{text:?}");
        assert!(!text.contains('\u{202e}'), "{text:?}");
        assert!(
            text.contains("~/.cache/\\u{1b}[31mred\\nfake: ok\\u{202e} (1 file)"),
            "{text}"
        );
        assert!(
            text.contains("~/link (1 file)"),
            "the link is an entry: {text}"
        );
        assert!(!text.contains("secret"), "{text}");
        assert!(
            !p.todo.contains("31m") && p.todo.starts_with("if a place named"),
            "no TOML of a hostile name: {}",
            p.todo
        );

        // A HOME that is a symlink to elsewhere: reported, not walked.
        let swapped = tempfile::tempdir().unwrap();
        let h = swapped.path().join(".home");
        std::os::unix::fs::symlink(outside.path(), &h).unwrap();
        let mut s = Stray::default();
        s.add(&h, v);
        let p = s.problem(&l, v).unwrap();
        assert!(p.what.contains("replaced its HOME"), "{p}");
        assert!(!p.what.contains("secret"), "{p}");

        // Many places: five named, the rest counted; the walk stops.
        let many = tempfile::tempdir().unwrap();
        for i in 0..8 {
            write(many.path(), &format!("d{i}/f"));
        }
        let mut s = Stray::default();
        s.add(many.path(), v);
        let p = s.problem(&l, v).unwrap();
        assert!(p.what.ends_with("~/d4 (1 file), and 3 more places"), "{p}");
        let wide = tempfile::tempdir().unwrap();
        for i in 0..Stray::WALK_LIMIT + 10 {
            std::fs::write(wide.path().join(format!("f{i}")), "").unwrap();
        }
        let mut s = Stray::default();
        s.add(wide.path(), v);
        assert!(s.truncated);
        let p = s.problem(&l, v).unwrap();
        assert!(p.what.contains("left 20000+ files"), "{}", p.what);
        assert!(p.what.len() < 1000, "{}", p.what.len());
    }

    #[test]
    fn places_group_shared_directories_one_level_down_and_never_hold_a_cache() {
        let declared = [PathBuf::from(".local/share/tool/cache")];
        let d: Vec<&PathBuf> = declared.iter().collect();
        let of = |p: &str| place(Path::new(p), &d);
        assert_eq!(of(".cache/foo/a/b"), (PathBuf::from(".cache/foo"), true));
        assert_eq!(
            of(".local/state/x/y"),
            (PathBuf::from(".local/state/x"), true)
        );
        assert_eq!(of(".npm/_cacache/x"), (PathBuf::from(".npm"), true));
        assert_eq!(of(".cache/file"), (PathBuf::from(".cache/file"), false));
        // Beside a declared cache: the place is below the directory that holds it.
        assert_eq!(
            of(".local/share/tool/other/x"),
            (PathBuf::from(".local/share/tool/other"), true)
        );
    }
}
