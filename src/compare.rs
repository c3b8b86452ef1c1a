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
//! ([`crate::export::provenance`]), so `langbench report` can rebuild it
//! when an input changes and `report --check` can tell a stale one.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, ensure};
use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::bench::Bench;
use crate::config::Languages;
use crate::export::{
    Bar, BarChart, BarRow, Cell, Column, Document, Flag, Kind, Mark, Note, Show, Table, Unit,
};
use crate::machine::Machine;
use crate::record::Status;
use crate::report::{Rank, Row, Summary, ranks, thousands};
use crate::store::Store;
use crate::ws::record::{Phase, WindowStats, WsRecord};
use crate::ws::report as ws_report;

/// One results directory, as compared.
pub struct Edition {
    pub dir: PathBuf,
    /// Short name in headers: the directory's name (`2021`, `2026`).
    pub label: String,
    pub summary: Option<Summary>,
    pub ws: Vec<WsRecord>,
    /// The machine most of its rows ran on.
    pub machine: Option<Machine>,
    /// The variant ids its sessions selected (to tell "not run here" from
    /// "dropped").
    pub selected: Vec<String>,
    /// A digest of its records (what a comparison is built from).
    pub digest: String,
}

impl Edition {
    pub fn load(dir: &Path) -> Result<Edition> {
        ensure!(
            dir.is_dir(),
            "{} is not a results directory (no such directory)",
            dir.display()
        );
        let store = Store::open(dir)?;
        let stored = store.load()?;
        let (ws, _) = ws_report::load(&store)?;
        ensure!(
            !stored.runs.is_empty() || !ws.is_empty(),
            "{} holds no records (runs.jsonl or ws.jsonl)",
            dir.display()
        );
        let ws = ws_report::latest(&ws).into_iter().cloned().collect();
        let summary = (!stored.runs.is_empty()).then(|| Summary::from_stored(&stored));
        // The machine most of its rows ran on (else its newest session's).
        let machine = summary
            .as_ref()
            .and_then(|s| s.machine.clone())
            .or_else(|| stored.sessions.last().map(|s| s.machine.clone()));
        let mut selected: Vec<String> = stored
            .sessions
            .iter()
            .flat_map(|s| s.variants.iter().map(|v| v.id.clone()))
            .collect();
        selected.sort();
        selected.dedup();
        Ok(Edition {
            dir: dir.to_path_buf(),
            label: dir
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| dir.display().to_string()),
            summary,
            ws,
            machine,
            selected,
            digest: crate::export::provenance::records_digest(dir)?,
        })
    }

    fn machine(&self) -> Option<&Machine> {
        self.machine.as_ref()
    }

    /// Whether its figures are a published edition's (no per-run data).
    fn published(&self) -> bool {
        self.summary.as_ref().is_some_and(|s| s.published)
    }

    /// `2021 edition (as published)`, `2026 edition`: for the title.
    fn heading(&self) -> String {
        match &self.summary {
            Some(s) if s.published => format!("{} edition (as published)", s.edition),
            Some(s) => format!("{} edition", s.edition),
            None => self.label.clone(),
        }
    }

    /// What the directory holds: its edition's title, langbench and
    /// machine.
    fn about(&self) -> String {
        let mut parts = Vec::new();
        if let Some(s) = &self.summary {
            parts.push(s.title());
            if !s.langbench.is_empty() {
                parts.push(format!("langbench {}", s.langbench.join(", ")));
            }
        } else if !self.ws.is_empty() {
            parts.push(format!("{} ws-echo servers", self.ws.len()));
        }
        let machines = self.summary.as_ref().map_or(1, |s| s.machines.len());
        match &self.machine {
            Some(m) if machines > 1 => parts.push(format!(
                "DIFFERENT HARDWARE within it: its rows come from {machines} machines, most \
                 from {}; the others are marked in the Machine column",
                m.hardware()
            )),
            Some(m) => parts.push(m.hardware()),
            None => {}
        }
        parts.join("; ")
    }
}

/// The variant a row stands for today: a published row's id may carry
/// `@version` (two rows of one variant in one edition), and a row whose id
/// is unknown resolves by language and flags through the aliases.
pub fn key(langs: &Languages, id: &str, language: &str, flags: &str) -> String {
    let base = id.split('@').next().unwrap_or(id);
    if langs.variants.iter().any(|v| v.id == base) {
        return base.to_string();
    }
    langs
        .resolve(language, flags)
        .map(|v| v.id.clone())
        .unwrap_or_else(|| base.to_string())
}

/// Whether a change of one cell is beyond the noise of its runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change {
    /// New / old of the runs' geometric means.
    pub ratio: f64,
    /// Its 95% confidence interval.
    pub lo: f64,
    pub hi: f64,
    pub verdict: Verdict,
    /// Runs on each side.
    pub runs: (usize, usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Faster,
    Slower,
    NotSignificant,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NotSignificant => "not significant",
        }
    }
}

/// Tests a change of run times against their noise: Welch's t-test on the
/// logarithms of the old and new runs' wall times (run times are
/// multiplicative, so a ratio is a difference of logs, and their spread is
/// closer to symmetric there), two-sided at 95%. The ratio is that of the
/// runs' geometric means, its interval exp(mean difference ± t·se) with
/// Welch–Satterthwaite degrees of freedom; `faster` or `slower` when the
/// interval excludes 1, else `not significant`. `None` unless both sides
/// have at least two runs. With only a handful of runs the interval is
/// wide: that is the honest answer, not a defect. (A bootstrap would need
/// far more runs per cell than an edition has to resample from.)
pub fn significance(old: &[f64], new: &[f64]) -> Option<Change> {
    if old.len() < 2 || new.len() < 2 || old.iter().chain(new).any(|v| v.is_nan() || *v <= 0.0) {
        return None;
    }
    let stats = |v: &[f64]| {
        let logs: Vec<f64> = v.iter().map(|x| x.ln()).collect();
        let n = logs.len() as f64;
        let mean = logs.iter().sum::<f64>() / n;
        let var = logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean, var / n, n)
    };
    let (m_old, q_old, n_old) = stats(old);
    let (m_new, q_new, n_new) = stats(new);
    let d = m_new - m_old;
    let se = (q_old + q_new).sqrt();
    let runs = (old.len(), new.len());
    if se <= f64::EPSILON * d.abs().max(1.0) {
        // No spread at all on either side: the ratio is exact.
        let r = d.exp();
        let verdict = if d.abs() < 1e-12 {
            Verdict::NotSignificant
        } else if d < 0.0 {
            Verdict::Faster
        } else {
            Verdict::Slower
        };
        return Some(Change {
            ratio: r,
            lo: r,
            hi: r,
            verdict,
            runs,
        });
    }
    let df =
        (q_old + q_new).powi(2) / (q_old.powi(2) / (n_old - 1.0) + q_new.powi(2) / (n_new - 1.0));
    let t = StudentsT::new(0.0, 1.0, df).ok()?.inverse_cdf(0.975);
    let (lo, hi) = ((d - t * se).exp(), (d + t * se).exp());
    let verdict = if hi < 1.0 {
        Verdict::Faster
    } else if lo > 1.0 {
        Verdict::Slower
    } else {
        Verdict::NotSignificant
    };
    Some(Change {
        ratio: d.exp(),
        lo,
        hi,
        verdict,
        runs,
    })
}

/// A figure of one cell in one edition.
#[derive(Clone, Default)]
struct Fig {
    time: Option<f64>,
    ram: Option<f64>,
    n: Option<u64>,
    /// A correct, clean figure.
    ok: bool,
    /// The wall times of its correct runs counted in its spread (its warm
    /// runs when it has two; empty for a published cell: no per-run data).
    runs: Vec<f64>,
    /// Its runs' coefficient of variation, when it is noisy.
    noisy: Option<f64>,
    /// Why there is no figure (a partial total), if that is why.
    why: Option<&'static str>,
}

impl Fig {
    fn cell(s: &Summary, row: &Row, b: Bench) -> Fig {
        match row.cells.get(&b) {
            Some(c) => Fig {
                time: c.wall_s(),
                ram: c
                    .rss_kb()
                    .filter(|_| c.wall_s().is_some())
                    .map(|k| k as f64),
                n: s.benches.iter().find(|(x, _)| *x == b).map(|(_, n)| *n),
                ok: c.status.is_ok(),
                runs: if c.published() || !c.status.is_ok() {
                    Vec::new()
                } else {
                    // The runs of its spread: a cold first run measures the
                    // caches' warm-up, not noise.
                    crate::noise::NoiseSample::of(c.runs.iter().filter(|r| r.status == Status::Ok))
                        .walls()
                },
                noisy: c
                    .noisy(s.noise_cv)
                    .filter(|_| c.status.is_ok())
                    .map(|sp| sp.cv),
                why: None,
            },
            None => Fig::default(),
        }
    }

    /// A row's total: only a complete row has one.
    fn total(row: &Row) -> Fig {
        Fig {
            time: row.total_s(),
            ram: row.total_rss_kb().map(|k| k as f64),
            n: None,
            ok: row.complete(),
            why: (!row.complete() && row.has_figures()).then_some("partial"),
            ..Default::default()
        }
    }

    /// Divided by the reference variant's figure in the same edition.
    fn relative(self, reference: Option<Fig>) -> Fig {
        let Some(r) = reference else {
            return Fig {
                ok: false,
                runs: Vec::new(),
                ..self
            };
        };
        let div = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if b > 0.0 => Some(a / b),
            _ => None,
        };
        Fig {
            time: div(self.time, r.time),
            ram: div(self.ram, r.ram),
            n: self.n,
            ok: self.ok && r.ok,
            // The reference's own noise would have to be combined in: no
            // per-run test of relative figures.
            runs: Vec::new(),
            noisy: None,
            why: self.why,
        }
    }
}

/// A matched pair of rows (CPU rows or ws servers) of one variant.
struct Pair<'a, T> {
    key: String,
    old: &'a T,
    new: &'a T,
}

/// Each edition's rows (CPU rows or ws servers), each with the variant it
/// stands for (see `key`).
struct Matched<'a, T> {
    old: Vec<(String, &'a T)>,
    new: Vec<(String, &'a T)>,
}

impl<'a, T> Matched<'a, T> {
    /// The variants both editions have: for each new row, every old row of
    /// its variant.
    fn pairs(&self) -> Vec<Pair<'a, T>> {
        let old: std::collections::HashMap<&str, Vec<&'a T>> =
            self.old
                .iter()
                .fold(std::collections::HashMap::new(), |mut m, (k, o)| {
                    m.entry(k.as_str()).or_insert_with(Vec::new).push(*o);
                    m
                });
        let mut pairs = Vec::new();
        for (k, n) in &self.new {
            for o in old.get(k.as_str()).into_iter().flatten() {
                pairs.push(Pair {
                    key: k.clone(),
                    old: *o,
                    new: *n,
                });
            }
        }
        pairs
    }

    /// The new edition's rows of a variant the old one has no row of.
    fn added(&self) -> impl Iterator<Item = &(String, &'a T)> {
        only_in(&self.new, &self.old)
    }

    /// The old edition's rows of a variant the new one has no row of.
    fn dropped(&self) -> impl Iterator<Item = &(String, &'a T)> {
        only_in(&self.old, &self.new)
    }
}

/// The rows of a variant `other` has no row of.
fn only_in<'s, 'a, T>(
    rows: &'s [(String, &'a T)],
    other: &'s [(String, &'a T)],
) -> impl Iterator<Item = &'s (String, &'a T)> {
    let keys: std::collections::HashSet<&str> = other.iter().map(|(k, _)| k.as_str()).collect();
    rows.iter().filter(move |(k, _)| !keys.contains(k.as_str()))
}

pub struct Options {
    /// Divide every figure by this variant's in the same edition.
    pub relative_to: Option<String>,
}

/// The comparison as a document: the CPU table, the ws table, added and
/// dropped variants, and old-vs-new charts.
pub fn compare(
    langs: &Languages,
    old: &Edition,
    new: &Edition,
    opts: &Options,
) -> Result<Document> {
    let mut doc = Document {
        title: format!(
            "langbench comparison: {} → {}",
            old.heading(),
            new.heading()
        ),
        ..Default::default()
    };
    doc.meta.push((
        "Old".into(),
        format!("{} ({}): {}", old.label, old.dir.display(), old.about()),
    ));
    doc.meta.push((
        "New".into(),
        format!("{} ({}): {}", new.label, new.dir.display(), new.about()),
    ));
    if let (Some(a), Some(b)) = (old.machine(), new.machine()) {
        if a.same_as(b) {
            doc.meta.push((
                "Machines".into(),
                if a.kernel_differs(b) {
                    format!(
                        "the same: {} (kernel builds {} and {}: noted, not counted as \
                         another machine)",
                        a.hardware(),
                        a.kernel,
                        b.kernel
                    )
                } else {
                    format!("the same: {}", a.describe())
                },
            ));
        } else {
            doc.meta.push((
                "Machines".into(),
                format!(
                    "DIFFERENT: old on {}; new on {}. Ratios compare machines as well as \
                     toolchains{}",
                    a.describe(),
                    b.describe(),
                    if opts.relative_to.is_some() {
                        ""
                    } else {
                        "; `--relative-to VARIANT` compares relative speed instead"
                    }
                ),
            ));
        }
    }
    doc.meta.push((
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
    doc.meta.push(("Noise".into(), noise_text(old, new, opts)));
    doc.meta.push((
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
    if let (Some(so), Some(sn)) = (&old.summary, &new.summary) {
        let (table, changes, charts, both) = cpu(langs, old, new, so, sn, opts)?;
        doc.meta.push((
            "Rank".into(),
            format!(
                "position by total time among the {both} variants with a complete row in both \
                 directories (not each edition's own rank: variants one side lacks would move \
                 it); rows whose totals lie within each other's range of runs share a rank (=)"
            ),
        ));
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

/// How changes are told from noise, and where they cannot be.
fn noise_text(old: &Edition, new: &Edition, opts: &Options) -> String {
    let mut text = "a cell whose sides both have two or more runs is tested: `faster` or \
                    `slower` when the 95% confidence interval of the ratio of its runs' \
                    geometric means excludes 1 (Welch's t-test on log run times), else `not \
                    significant`; the interval shows under the ratio"
        .to_string();
    if opts.relative_to.is_some() {
        text.push_str(
            ". With --relative-to no cell is tested (the reference's own noise is in every \
             relative figure)",
        );
    }
    for e in [old, new] {
        if e.published() {
            text.push_str(&format!(
                ". {} is a published edition: one figure per cell (its published best of 3) and \
                 NO PER-RUN DATA, so no change against it can be told from noise: its ratios \
                 are bare",
                e.label
            ));
        }
    }
    text
}

/// Seconds and relative times alike: two decimals.
fn fmt_time(v: f64, _relative: bool) -> String {
    format!("{v:.2}")
}

fn fmt_ram(v: f64, relative: bool) -> String {
    if relative {
        format!("{v:.2}")
    } else {
        thousands(v.round() as u64)
    }
}

/// "old → new" for one figure (a missing side says so).
fn arrow(old: Option<f64>, new: Option<f64>, f: impl Fn(f64) -> String) -> String {
    let side = |v: Option<f64>| v.map(&f).unwrap_or_else(|| "-".into());
    format!("{} → {}", side(old), side(new))
}

/// "old → new" of a cell's times, each with its ± where it is noisy.
fn arrow_noisy(fo: &Fig, fnw: &Fig, rel: bool) -> String {
    let side = |f: &Fig| match (f.time, f.noisy) {
        (Some(v), Some(cv)) => format!("{} ±{:.0}%", fmt_time(v, rel), cv * 100.0),
        (Some(v), None) => fmt_time(v, rel),
        (None, _) => f.why.unwrap_or("-").to_string(),
    };
    format!("{} → {}", side(fo), side(fnw))
}

/// The ratio cell: a number when both sides are comparable, otherwise text
/// saying why not.
fn ratio(old: &Fig, new: &Fig, pick: impl Fn(&Fig) -> Option<f64>) -> Cell {
    if let (Some(a), Some(b)) = (old.n, new.n)
        && a != b
    {
        return Cell::empty("N≠")
            .marked(
                Mark::Flagged,
                Some(format!(
                    "not compared: N differs ({} vs {})",
                    thousands(a),
                    thousands(b)
                )),
            )
            .flagged(Flag::Incomparable);
    }
    match (pick(old), pick(new)) {
        (Some(a), Some(b)) if a > 0.0 => {
            let r = b / a;
            let cell = Cell::number(r, format!("×{r:.2}"));
            if old.ok && new.ok {
                cell
            } else {
                cell.marked(
                    Mark::Flagged,
                    Some("a side is not a plain correct figure (flagged)".into()),
                )
            }
        }
        _ => match (old.why, new.why) {
            // A partial total looks like one, as in the report.
            (Some(w), _) | (_, Some(w)) => Cell::empty("-")
                .marked(Mark::Failed, Some(format!("a side has no total ({w})")))
                .flagged(Flag::Partial),
            _ => Cell::empty("-").marked(Mark::Failed, Some("a side has no figure".into())),
        },
    }
}

fn opt_num(v: Option<f64>, f: impl Fn(f64) -> String) -> Cell {
    match v {
        Some(v) => Cell::number(v, f(v)),
        None => Cell::empty(""),
    }
}

/// The rows with figures, each with the variant it stands for.
fn installed<'a>(langs: &Languages, s: &'a Summary) -> Vec<(String, &'a Row)> {
    s.rows
        .iter()
        .filter(|r| r.installed() && r.started)
        .map(|r| (key(langs, &r.variant, &r.language, &r.flags), r))
        .collect()
}

/// The `--relative-to` variant's row in one edition.
fn reference<'a>(
    rows: &[(String, &'a Row)],
    label: &str,
    opts: &Options,
) -> Result<Option<&'a Row>> {
    match &opts.relative_to {
        None => Ok(None),
        Some(v) => rows
            .iter()
            .find(|(k, _)| k == v)
            .map(|(_, r)| Some(*r))
            .with_context(|| format!("--relative-to {v}: {label} has no row of {v}")),
    }
}

/// The CPU comparison: a row per variant both editions have (old and new
/// figure, ratio, rank and version per benchmark and in total), the table
/// of added and dropped variants, the chart of totals, and how many
/// variants both have complete (the ranks' field).
fn cpu(
    langs: &Languages,
    old: &Edition,
    new: &Edition,
    so: &Summary,
    sn: &Summary,
    opts: &Options,
) -> Result<(Table, Table, Vec<BarChart>, usize)> {
    let rows = Matched {
        old: installed(langs, so),
        new: installed(langs, sn),
    };
    let pairs = rows.pairs();
    let (old_ranks, new_ranks) = common_ranks(&pairs);
    let both = old_ranks.iter().filter(|r| r.is_some()).count();
    let sides = Sides {
        old: Side::new(so, reference(&rows.old, &old.label, opts)?),
        new: Side::new(sn, reference(&rows.new, &new.label, opts)?),
        rel: opts.relative_to.is_some(),
    };
    let machines = so.machines.len() > 1 || sn.machines.len() > 1;
    let mut table = CpuTable::new(benches(so, sn), sides.rel, machines);
    for (i, p) in pairs.iter().enumerate() {
        table.push(&sides, p, (old_ranks[i], new_ranks[i]));
    }
    let (table, chart) = table.finish(old, new, opts);
    Ok((table, changes(langs, &rows, new), vec![chart], both))
}

/// Each pair's rank on each side among the pairs complete on both sides:
/// a rank within what both directories hold, so variants only one side
/// has (or has complete) do not move it.
fn common_ranks(pairs: &[Pair<Row>]) -> (Vec<Option<Rank>>, Vec<Option<Rank>>) {
    let both: Vec<usize> = (0..pairs.len())
        .filter(|&i| pairs[i].old.complete() && pairs[i].new.complete())
        .collect();
    let side = |rows: Vec<&Row>| {
        let mut order = both.clone();
        order.sort_by(|&a, &b| {
            let t = |i: usize| rows[i].total_s().unwrap_or(f64::INFINITY);
            t(a).total_cmp(&t(b))
        });
        let totals: Vec<Option<(f64, f64)>> =
            order.iter().map(|&i| rows[i].total_range()).collect();
        let mut out = vec![None; pairs.len()];
        for (k, r) in ranks(&totals).into_iter().enumerate() {
            out[order[k]] = r;
        }
        out
    };
    (
        side(pairs.iter().map(|p| p.old).collect()),
        side(pairs.iter().map(|p| p.new).collect()),
    )
}

/// The CPU benchmarks either edition ran, in their usual order.
fn benches(so: &Summary, sn: &Summary) -> Vec<Bench> {
    Bench::CPU
        .into_iter()
        .filter(|b| {
            so.benches.iter().any(|(x, _)| x == b) || sn.benches.iter().any(|(x, _)| x == b)
        })
        .collect()
}

/// One edition in the CPU comparison: its table and its `--relative-to`
/// row.
struct Side<'a> {
    summary: &'a Summary,
    reference: Option<&'a Row>,
}

impl<'a> Side<'a> {
    fn new(summary: &'a Summary, reference: Option<&'a Row>) -> Side<'a> {
        Side { summary, reference }
    }

    /// A row's figure in one benchmark; with `rel`, divided by the
    /// reference row's.
    fn cell(&self, row: &Row, b: Bench, rel: bool) -> Fig {
        let f = Fig::cell(self.summary, row, b);
        if rel {
            f.relative(self.reference.map(|r| Fig::cell(self.summary, r, b)))
        } else {
            f
        }
    }

    /// A row's total; with `rel`, divided by the reference row's.
    fn total(&self, row: &Row, rel: bool) -> Fig {
        let f = Fig::total(row);
        if rel {
            f.relative(self.reference.map(Fig::total))
        } else {
            f
        }
    }
}

/// Both editions, and whether figures are relative (`--relative-to`).
struct Sides<'a> {
    old: Side<'a>,
    new: Side<'a>,
    rel: bool,
}

/// A pair's figures, old and new.
struct PairFigs {
    per_bench: Vec<(Bench, Fig, Fig)>,
    total: (Fig, Fig),
    /// A benchmark's N differs between the editions, so the totals add up
    /// different work.
    size_mismatch: bool,
}

impl Sides<'_> {
    fn figures(&self, p: &Pair<Row>, benches: &[Bench]) -> PairFigs {
        let rel = self.rel;
        let per_bench: Vec<(Bench, Fig, Fig)> = benches
            .iter()
            .map(|&b| {
                (
                    b,
                    self.old.cell(p.old, b, rel),
                    self.new.cell(p.new, b, rel),
                )
            })
            .collect();
        let size_mismatch = per_bench
            .iter()
            .any(|(_, o, n)| matches!((o.n, n.n), (Some(a), Some(c)) if a != c));
        let (mut to, mut tn) = (self.old.total(p.old, rel), self.new.total(p.new, rel));
        if size_mismatch {
            // The totals are not comparable: `ratio` says so.
            to.n = Some(0);
            tn.n = Some(1);
        }
        PairFigs {
            per_bench,
            total: (to, tn),
            size_mismatch,
        }
    }
}

/// The CPU table as it is built, one matched pair at a time: its rows, its
/// notes, and the chart's rows.
struct CpuTable {
    benches: Vec<Bench>,
    rel: bool,
    /// A side's rows come from more than one machine: a Machine column
    /// names the other machine where a row ran on it.
    machines: bool,
    rows: Vec<Vec<Cell>>,
    notes: Vec<Note>,
    chart_rows: Vec<BarRow>,
}

impl CpuTable {
    fn new(benches: Vec<Bench>, rel: bool, machines: bool) -> CpuTable {
        CpuTable {
            benches,
            rel,
            machines,
            rows: Vec::new(),
            notes: Vec::new(),
            chart_rows: Vec::new(),
        }
    }

    /// A pair's row (the variant, versions and ranks, then per benchmark and
    /// in total its figures) and the bars of its totals.
    fn push(&mut self, sides: &Sides, p: &Pair<Row>, ranks: (Option<Rank>, Option<Rank>)) {
        let label = p.new.label();
        let mut row = vec![
            Cell::text(&p.new.language),
            Cell::text(&p.new.flags),
            Cell::text(&p.key),
        ];
        row.extend(versions(&p.old.version, &p.new.version));
        let program = program_change(p.old, p.new);
        if !matches!(program.as_str(), "same" | "unknown") {
            self.notes.push(Note::new(
                label.clone(),
                format!(
                    "{program} between the two directories (by the program identity their runs \
                     recorded): a different figure may be a different program, not a faster or \
                     slower toolchain"
                ),
            ));
        }
        row.push(Cell::text(&program));
        if self.machines {
            row.push(machine_cell(
                other_machine(sides.old.summary, p.old),
                other_machine(sides.new.summary, p.new),
            ));
        }
        row.extend(rank_cells(ranks.0, ranks.1));
        let figs = sides.figures(p, &self.benches);
        for (b, fo, fnw) in &figs.per_bench {
            row.extend(self.figure_cells(&label, b.name(), fo, fnw, false));
            row.extend([count(fo.n), count(fnw.n)]);
        }
        let (to, tn) = &figs.total;
        row.extend(self.figure_cells(&label, "total", to, tn, figs.size_mismatch));
        // Whiskers where a side has runs (a published edition has none;
        // relative figures carry the reference's noise too: none).
        let range = |r: &Row| {
            (!self.rel)
                .then(|| r.total_range())
                .flatten()
                .filter(|(lo, hi)| hi > lo)
        };
        self.chart_rows.push(BarRow {
            label: format!("{} · {}", p.new.language, p.new.flags),
            bars: vec![
                total_bar(to, figs.size_mismatch, range(p.old)),
                total_bar(tn, figs.size_mismatch, range(p.new)),
            ],
        });
        self.rows.push(row);
    }

    /// One benchmark's (or the total's) cells in a pair's row: time old →
    /// new and its ratio (with the test against the noise where both sides
    /// have runs), old and new time and RAM, the RAM ratio, and the test's
    /// verdict and interval as data. A flagged time ratio, and a change
    /// beyond the noise, are also notes. `size_mismatch`: a total over
    /// benchmarks of different N, compared in neither time nor RAM.
    fn figure_cells(
        &mut self,
        label: &str,
        name: &str,
        fo: &Fig,
        fnw: &Fig,
        size_mismatch: bool,
    ) -> [Cell; 10] {
        let rel = self.rel;
        let mut t = ratio(fo, fnw, |f| f.time);
        let shown = arrow_noisy(fo, fnw, rel);
        let size_note = t.note.clone().filter(|n| n.contains("N differs"));
        if size_mismatch {
            t.note = Some("not compared: a benchmark's N differs between the editions".into());
            t.flag = Some(Flag::Incomparable);
        }
        let change = (t.as_f64().is_some() && !size_mismatch)
            .then(|| significance(&fo.runs, &fnw.runs))
            .flatten();
        if let Some(c) = change {
            t.text = format!(
                "{} {}",
                t.text,
                match c.verdict {
                    Verdict::NotSignificant => "≈",
                    v => v.name(),
                }
            );
            t.interval = Some((c.lo, c.hi));
            let why = format!(
                "{}: the runs' geometric means ×{:.2}, 95% interval ×{:.2}–{:.2} ({} vs {} runs, \
                 Welch's t on log times)",
                c.verdict.name(),
                c.ratio,
                c.lo,
                c.hi,
                c.runs.0,
                c.runs.1
            );
            match c.verdict {
                Verdict::NotSignificant => {
                    if t.note.is_none() {
                        t.note = Some(why);
                    }
                }
                v => {
                    t.flag = Some(if v == Verdict::Faster {
                        Flag::Faster
                    } else {
                        Flag::Slower
                    });
                    self.notes
                        .push(Note::new(format!("{label} / {name}"), why.clone()));
                    t.note = Some(match t.note.take() {
                        Some(n) => format!("{why}; {n}"),
                        None => why,
                    });
                }
            }
        }
        self.note(label, name, &t);
        let verdict = change.map_or(Cell::empty(""), |c| Cell::text(c.verdict.name()));
        let bound = |v: Option<f64>| opt_num(v, |x| format!("{x:.4}"));
        [
            Cell::text(match &size_note {
                Some(_) => format!("{shown} N≠"),
                None => shown,
            }),
            t,
            opt_num(fo.time, |v| fmt_time(v, rel)),
            opt_num(fnw.time, |v| fmt_time(v, rel)),
            opt_num(fo.ram, |v| fmt_ram(v, rel)),
            opt_num(fnw.ram, |v| fmt_ram(v, rel)),
            if size_mismatch {
                Cell::empty("N≠")
                    .marked(Mark::Flagged, Some("a benchmark's N differs".into()))
                    .flagged(Flag::Incomparable)
            } else {
                ratio(fo, fnw, |f| f.ram)
            },
            verdict,
            bound(change.map(|c| c.lo)),
            bound(change.map(|c| c.hi)),
        ]
    }

    /// A flagged ratio's note, once: a size mismatch holds for every row, so
    /// it is said once for all of them.
    fn note(&mut self, label: &str, name: &str, cell: &Cell) {
        if let Some(n) = &cell.note
            && cell.mark == Mark::Flagged
        {
            let line = if n.contains("N differs") {
                Note::new(name, format!("{n}, in every row"))
            } else {
                Note::new(format!("{label} / {name}"), n.clone())
            };
            if !self.notes.contains(&line) {
                self.notes.push(line);
            }
        }
    }

    /// The table, and the chart of old and new totals.
    fn finish(self, old: &Edition, new: &Edition, opts: &Options) -> (Table, BarChart) {
        let table = Table {
            id: "compare".into(),
            title: format!("{} → {}", old.label, new.label),
            columns: cpu_columns(&self.benches, opts, self.machines),
            rows: self.rows,
            notes: self.notes,
            data_only: false,
            labels: 2,
        };
        let chart = BarChart {
            id: "compare-total-time".into(),
            title: format!(
                "Total time, {} vs {}{}",
                old.label,
                new.label,
                opts.relative_to
                    .as_ref()
                    .map(|v| format!(" (relative to {v})"))
                    .unwrap_or_default()
            ),
            axis: if self.rel {
                "× reference (log scale)".into()
            } else {
                "seconds (log scale)".into()
            },
            log: true,
            series: vec![old.label.clone(), new.label.clone()],
            rows: self.chart_rows,
            caption: "Whiskers: the fastest to the slowest run, summed over the benchmarks (a \
                      published edition has no runs: none). Marked bars: totals over a different \
                      N (not comparable); labelled gaps: a partial row (no total)."
                .into(),
            unit: if self.rel { Unit::Ratio } else { Unit::Seconds },
        };
        (table, chart)
    }
}

/// Whether the two rows ran the same programs, by the identity their runs
/// recorded (issue #22), benchmark by benchmark where both have one:
/// "program changed (assoc)" when a source differs, "command changed
/// (assoc)" when only the resolved commands do (at the same N), "same", or
/// "unknown" where either side recorded none (a published edition): never
/// a guess.
fn program_change(old: &Row, new: &Row) -> String {
    let identity = |r: &Row, b: &Bench| {
        r.cells
            .get(b)
            .and_then(|c| c.best.as_ref())
            .and_then(|b| Some((b.n, b.identity.clone()?)))
    };
    let (mut program, mut command, mut same) = (Vec::new(), Vec::new(), 0);
    for b in new.cells.keys() {
        let (Some((on, o)), Some((nn, n))) = (identity(old, b), identity(new, b)) else {
            continue;
        };
        if o.program != n.program {
            program.push(b.name());
        } else if on == nn && o.commands != n.commands {
            command.push(b.name());
        } else {
            same += 1;
        }
    }
    match (program.is_empty(), command.is_empty()) {
        (false, _) => format!("program changed ({})", program.join(", ")),
        (true, false) => format!("command changed ({})", command.join(", ")),
        _ if same > 0 => "same".into(),
        _ => "unknown".into(),
    }
}

/// Where a row ran when that is not the machine most of its directory's
/// rows ran on: `#1 Intel Xeon`, and that machine's description.
fn other_machine(s: &Summary, row: &Row) -> Option<(String, String)> {
    let m = row.machine?;
    (s.machines.len() > 1 && Some(m) != s.main_machine).then(|| {
        (
            format!("#{} {}", m + 1, s.machines[m].short()),
            s.machines[m].hardware(),
        )
    })
}

/// The Machine cell of a pair: empty when both sides ran on their
/// directory's main machine, else which side ran elsewhere, marked as the
/// report marks it (its figures compare fairly only with rows of that
/// machine).
fn machine_cell(old: Option<(String, String)>, new: Option<(String, String)>) -> Cell {
    let sides: Vec<(&str, (String, String))> = [("old", old), ("new", new)]
        .into_iter()
        .filter_map(|(side, m)| Some((side, m?)))
        .collect();
    if sides.is_empty() {
        return Cell::empty("");
    }
    let text = sides
        .iter()
        .map(|(side, (short, _))| format!("{side}: {short}"))
        .collect::<Vec<_>>()
        .join("; ");
    let why = sides
        .iter()
        .map(|(side, (_, hw))| format!("{side} measured on another machine than most rows: {hw}"))
        .collect::<Vec<_>>()
        .join("; ");
    Cell::text(text)
        .marked(Mark::Flagged, Some(why))
        .flagged(Flag::Machine)
}

/// "old → new" to read, then each version as data.
fn versions(old: &str, new: &str) -> [Cell; 3] {
    [
        Cell::text(format!("{old} → {new}")),
        Cell::text(old),
        Cell::text(new),
    ]
}

/// The columns of `versions`.
fn version_columns() -> [Column; 3] {
    [
        Column::new("Version", "version", Kind::Text, Show::Display),
        Column::new("Old version", "old_version", Kind::Text, Show::Data),
        Column::new("New version", "new_version", Kind::Text, Show::Data),
    ]
}

/// Rank old → new (and how far it moved) to read, then each rank as data.
fn rank_cells(ro: Option<Rank>, rn: Option<Rank>) -> [Cell; 3] {
    let text = match (ro, rn) {
        (Some(a), Some(b)) => {
            let moved = a.place as i64 - b.place as i64;
            match moved {
                0 => format!("{} → {}", a.text(), b.text()),
                m if m > 0 => format!("{} → {} (↑{m})", a.text(), b.text()),
                m => format!("{} → {} (↓{})", a.text(), b.text(), -m),
            }
        }
        (a, b) => format!(
            "{} → {}",
            a.map_or("-".into(), |r| r.text()),
            b.map_or("-".into(), |r| r.text())
        ),
    };
    [
        Cell::text(text),
        count(ro.map(|r| r.place as u64)),
        count(rn.map(|r| r.place as u64)),
    ]
}

/// A rank or an N (empty without one).
fn count(v: Option<u64>) -> Cell {
    v.map_or(Cell::empty(""), |n| Cell::int(n as i64, n.to_string()))
}

/// A total's bar: plain (with the range of its runs as a whisker, where
/// it has one), flagged (a total over a different N), or a labelled gap (a
/// partial row has no total).
fn total_bar(f: &Fig, size_mismatch: bool, range: Option<(f64, f64)>) -> Bar {
    match f.time {
        Some(v) if !size_mismatch => Bar {
            range,
            ..Bar::plain(v)
        },
        Some(v) => Bar {
            value: Some(v),
            mark: Mark::Flagged,
            label: Some("N differs".into()),
            ..Default::default()
        },
        None => Bar {
            value: None,
            mark: Mark::Failed,
            label: Some(f.why.unwrap_or("no figure").into()),
            ..Default::default()
        },
    }
}

/// Seconds in the CPU tables.
const SECS: Kind = Kind::Seconds { decimals: 3 };

/// The CPU table's columns: the variant, versions and ranks, then per
/// benchmark and for the total the figures of `figure_columns` (and each
/// benchmark's N).
fn cpu_columns(benches: &[Bench], opts: &Options, machines: bool) -> Vec<Column> {
    let mut cols = vec![
        Column::new("Language", "language", Kind::Text, Show::Both),
        Column::new("Command Flags", "command_flags", Kind::Text, Show::Both),
        Column::new("Variant", "variant", Kind::Text, Show::Data),
    ];
    cols.extend(version_columns());
    cols.push(Column::new("Program", "program", Kind::Text, Show::Data));
    if machines {
        cols.push(Column::new("Machine", "machine", Kind::Text, Show::Both));
    }
    cols.extend([
        Column::new("Rank", "rank", Kind::Text, Show::Display),
        Column::new("Old rank", "old_rank", Kind::Count, Show::Data),
        Column::new("New rank", "new_rank", Kind::Count, Show::Data),
    ]);
    for b in benches {
        let (shown, k) = (b.name(), b.name().replace('-', "_"));
        cols.extend(figure_columns(shown, &k, opts, Show::Data));
        cols.push(Column::new(
            format!("{shown} old N"),
            format!("{k}_old_n"),
            Kind::Count,
            Show::Data,
        ));
        cols.push(Column::new(
            format!("{shown} new N"),
            format!("{k}_new_n"),
            Kind::Count,
            Show::Data,
        ));
    }
    cols.extend(figure_columns("Total", "total", opts, Show::Both));
    cols
}

/// The columns of one benchmark's (or the total's) `figure_cells`; `ram`:
/// where its RAM ratio shows.
fn figure_columns(shown: &str, k: &str, opts: &Options, ram: Show) -> [Column; 10] {
    let rel = opts.relative_to.is_some();
    let ram_kind = if rel { Kind::Ratio } else { Kind::Kb };
    let time_kind = if rel { Kind::Ratio } else { SECS };
    let unit = |what: String| match &opts.relative_to {
        Some(v) => format!("{what} (×{v})"),
        None => what,
    };
    [
        Column::new(
            unit(format!("{shown} (s)")),
            format!("{k}_time"),
            Kind::Text,
            Show::Display,
        ),
        Column::new(
            format!("{shown} ×"),
            format!("{k}_time_ratio"),
            Kind::Ratio,
            Show::Both,
        ),
        Column::new(
            unit(format!("{shown} old (s)")),
            format!("{k}_old_s"),
            time_kind,
            Show::Data,
        ),
        Column::new(
            unit(format!("{shown} new (s)")),
            format!("{k}_new_s"),
            time_kind,
            Show::Data,
        ),
        Column::new(
            unit(format!("{shown} old RAM (KB)")),
            format!("{k}_old_rss_kb"),
            ram_kind,
            Show::Data,
        ),
        Column::new(
            unit(format!("{shown} new RAM (KB)")),
            format!("{k}_new_rss_kb"),
            ram_kind,
            Show::Data,
        ),
        Column::new(
            format!("{shown} RAM ×"),
            format!("{k}_ram_ratio"),
            Kind::Ratio,
            ram,
        ),
        Column::new(
            format!("{shown} change"),
            format!("{k}_change"),
            Kind::Text,
            Show::Data,
        ),
        Column::new(
            format!("{shown} × low (95%)"),
            format!("{k}_ratio_lo"),
            Kind::Ratio,
            Show::Data,
        ),
        Column::new(
            format!("{shown} × high (95%)"),
            format!("{k}_ratio_hi"),
            Kind::Ratio,
            Show::Data,
        ),
    ]
}

/// The variants only one directory has: added (only in the new one), not
/// run in the new one (it has no row of a variant the languages file
/// still has), dropped (the variant is gone from the languages file), with
/// their total time.
fn changes(langs: &Languages, rows: &Matched<Row>, new: &Edition) -> Table {
    let still = |k: &str| langs.variants.iter().any(|v| v.id == k);
    let not_run = format!("not run in {}", new.label);
    let added = rows.added().map(|r| ("added".to_string(), r));
    let gone = rows.dropped().map(|r| {
        let change = if still(&r.0) {
            not_run.clone()
        } else {
            "dropped".to_string()
        };
        (change, r)
    });
    let changes = added
        .chain(gone)
        .map(|(change, (k, r))| {
            vec![
                Cell::text(change),
                Cell::text(&r.language),
                Cell::text(&r.flags),
                Cell::text(k),
                Cell::text(&r.version),
                match r.total_s() {
                    Some(t) => Cell::number(t, format!("{t:.2}")),
                    None if r.has_figures() => Cell::empty("partial")
                        .marked(Mark::Failed, Some("partial: no total".into()))
                        .flagged(Flag::Partial),
                    None => Cell::empty("-"),
                },
            ]
        })
        .collect();
    let selected_note = (!new.selected.is_empty()).then(|| {
        Note::from(format!(
            "\"not run in {}\": the languages file still has the variant, but {} holds no run \
             of it (its sessions selected {} variants); \"dropped\": the languages file has no \
             such variant any more",
            new.label,
            new.label,
            new.selected.len()
        ))
    });
    Table {
        id: "compare-changes".into(),
        title: "Added, dropped and not run".into(),
        columns: vec![
            Column::new("Change", "change", Kind::Text, Show::Both),
            Column::new("Language", "language", Kind::Text, Show::Both),
            Column::new("Command Flags", "command_flags", Kind::Text, Show::Both),
            Column::new("Variant", "variant", Kind::Text, Show::Both),
            Column::new("Version", "version", Kind::Text, Show::Both),
            Column::new("Total (s)", "total_s", SECS, Show::Both),
        ],
        rows: changes,
        notes: selected_note.into_iter().collect(),
        data_only: false,
        labels: 2,
    }
}

/// ws-echo: per server both editions have and delay phase, rps, latency,
/// server RAM and cores old → new; added and dropped servers as notes.
fn ws(langs: &Languages, old: &Edition, new: &Edition) -> Table {
    let servers = Matched {
        old: ws_servers(langs, old),
        new: ws_servers(langs, new),
    };
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for p in &servers.pairs() {
        let (o, n) = (p.old, p.new);
        if o.connections != n.connections {
            notes.push(format!(
                "{}: connections differ ({} vs {}): not the same load",
                p.key, o.connections, n.connections
            ));
        }
        for pn in &n.phases {
            if let Some(po) = o.phases.iter().find(|x| x.delay_ms == pn.delay_ms) {
                rows.push(ws_row(p, po, pn));
            }
        }
    }
    for (k, _) in servers.added() {
        notes.push(format!(
            "{k}: added (no server of that name in {})",
            old.label
        ));
    }
    for (k, _) in servers.dropped() {
        notes.push(format!(
            "{k}: dropped (no server of that name in {})",
            new.label
        ));
    }
    Table {
        id: "compare-ws".into(),
        title: format!("ws-echo {} → {}", old.label, new.label),
        columns: ws_columns(),
        rows,
        notes: notes.into_iter().map(Note::from).collect(),
        data_only: false,
        labels: 2,
    }
}

fn ws_library(r: &WsRecord) -> String {
    crate::ws::record::library_name(&r.library)
}

/// An edition's ws servers, each with the variant it stands for.
fn ws_servers<'a>(langs: &Languages, e: &'a Edition) -> Vec<(String, &'a WsRecord)> {
    e.ws.iter()
        .map(|r| (key(langs, &r.variant, &r.language, &ws_library(r)), r))
        .collect()
}

/// One delay phase of a pair of servers.
fn ws_row(p: &Pair<WsRecord>, po: &Phase, pn: &Phase) -> Vec<Cell> {
    let (o, n) = (p.old, p.new);
    // Ratios of a different load are flagged.
    let r = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if a > 0.0 => {
            let c = Cell::number(b / a, format!("×{:.2}", b / a));
            if o.connections != n.connections {
                c.marked(Mark::Flagged, Some("connections differ".into()))
            } else {
                c
            }
        }
        _ => Cell::empty("-"),
    };
    let stat = |ph: &Phase, f: fn(&WindowStats) -> f64| ph.stats.as_ref().map(f);
    let (rps_o, rps_n) = (stat(po, |s| s.rps), stat(pn, |s| s.rps));
    let (lat_o, lat_n) = (
        stat(po, |s| s.latency_mean_ms),
        stat(pn, |s| s.latency_mean_ms),
    );
    let mb = |ph: &Phase| ph.server_rss_peak_kb.map(|k| k as f64 / 1024.0);
    let f0 = |v: f64| format!("{v:.0}");
    let f2 = |v: f64| format!("{v:.2}");
    let mut row = vec![Cell::text(&p.key), Cell::text(ws_library(n))];
    row.extend(versions(&o.version, &n.version));
    row.push(Cell::number(pn.delay_ms, pn.delay_ms.to_string()));
    row.extend(old_new(rps_o, rps_n, f0));
    row.push(r(rps_o, rps_n));
    row.extend(old_new(lat_o, lat_n, f2));
    row.push(r(lat_o, lat_n));
    row.extend(old_new(mb(po), mb(pn), f0));
    row.extend(old_new(po.server_cores, pn.server_cores, f2));
    row
}

/// A figure old → new to read, then old and new as data.
fn old_new(old: Option<f64>, new: Option<f64>, f: impl Fn(f64) -> String) -> [Cell; 3] {
    [
        Cell::text(arrow(old, new, &f)),
        opt_num(old, &f),
        opt_num(new, &f),
    ]
}

/// The ws table's columns (see `ws_row`).
fn ws_columns() -> Vec<Column> {
    let dec = |d| Kind::Decimal { decimals: d };
    let mut cols = vec![
        Column::new("Server", "variant", Kind::Text, Show::Both),
        Column::new("Library", "library", Kind::Text, Show::Both),
    ];
    cols.extend(version_columns());
    cols.extend([
        Column::new("Delay (ms)", "delay_ms", Kind::Number, Show::Both),
        Column::new("rps", "rps", Kind::Text, Show::Display),
        Column::new("Old rps", "old_rps", dec(2), Show::Data),
        Column::new("New rps", "new_rps", dec(2), Show::Data),
        Column::new("rps ×", "rps_ratio", Kind::Ratio, Show::Both),
        Column::new("Lat avg (ms)", "latency_avg", Kind::Text, Show::Display),
        Column::new("Old lat avg (ms)", "old_latency_avg_ms", dec(3), Show::Data),
        Column::new("New lat avg (ms)", "new_latency_avg_ms", dec(3), Show::Data),
        Column::new("Lat ×", "latency_avg_ratio", Kind::Ratio, Show::Both),
        Column::new("Server MB", "server_mb", Kind::Text, Show::Display),
        Column::new("Old server MB", "old_server_ram_mb", dec(1), Show::Data),
        Column::new("New server MB", "new_server_ram_mb", dec(1), Show::Data),
        Column::new("Server cores", "server_cores", Kind::Text, Show::Display),
        Column::new("Old server cores", "old_server_cores", dec(3), Show::Data),
        Column::new("New server cores", "new_server_cores", dec(3), Show::Data),
    ]);
    cols
}

/// What `compare` prints.
#[derive(Clone, Copy)]
pub enum Format {
    Terminal,
    Markdown,
    Csv,
}

/// `langbench compare OLD NEW`: the comparison printed in `format`, and
/// with `out` also written there in every format.
pub fn command(
    langs: &Languages,
    old: &Path,
    new: &Path,
    opts: &Options,
    format: Format,
    out: Option<&Path>,
) -> Result<std::process::ExitCode> {
    use crate::export::{Exporter, csv::Csv, markdown::Markdown, terminal};
    let doc = compare(langs, &Edition::load(old)?, &Edition::load(new)?, opts)?;
    match format {
        Format::Terminal => print!("{}", terminal::document(&doc)),
        Format::Markdown => print!("{}", String::from_utf8_lossy(&Markdown.render(&doc)?)),
        Format::Csv => print!("{}", String::from_utf8_lossy(&Csv.render(&doc)?)),
    }
    if let Some(out) = out {
        std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
        let prov = crate::export::provenance::Provenance::new(
            crate::export::provenance::Kind::Comparison,
            out,
            &[old, new],
            opts.relative_to.clone(),
        )?;
        crate::export::write_comparison(out, "compare", &doc, &prov)?;
        eprintln!("Wrote the comparison to {}", out.display());
    }
    Ok(std::process::ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "program changed" where a source differs, "command changed" where
    /// only the commands do, "unknown" without identities (published).
    #[test]
    fn a_rewritten_program_is_told_from_a_new_toolchain() {
        use crate::record::Identity;
        use crate::store::Stored;
        let row = |program: &str, command: &str, version: &str, with: bool| {
            let mut r = crate::testing::run("go", Bench::NumComb).wall(1.0).record();
            r.identity = with.then(|| Identity {
                digest: format!("{program}{command}{version}"),
                program: program.into(),
                commands: vec![command.into()],
                toolchain: version.into(),
                langbench: "0.1.0".into(),
            });
            Summary::from_stored(&Stored {
                runs: vec![r],
                ..Default::default()
            })
            .rows
            .remove(0)
        };
        let base = row("aaaa", "run: go run num_comb.go 10", "go1.24", true);
        let newer_go = row("aaaa", "run: go run num_comb.go 10", "go1.25", true);
        assert_eq!(program_change(&base, &newer_go), "same");
        let edited = row("bbbb", "run: go run num_comb.go 10", "go1.24", true);
        assert_eq!(program_change(&base, &edited), "program changed (num-comb)");
        let flags = row(
            "aaaa",
            "run: go run -gcflags=-B num_comb.go 10",
            "go1.24",
            true,
        );
        assert_eq!(program_change(&base, &flags), "command changed (num-comb)");
        let published = row("", "", "", false);
        assert_eq!(program_change(&published, &base), "unknown");
    }

    /// A cold first run is the caches' warm-up, not noise: the test is
    /// on the warm runs, where the cell has two, else on every run.
    #[test]
    fn the_noise_test_leaves_a_cold_first_run_out() {
        use crate::record::CacheStart::{Cold, Warm};
        use crate::store::Stored;
        let fig = |runs: &[(f64, crate::record::CacheStart)]| {
            let runs = runs
                .iter()
                .enumerate()
                .map(|(i, &(w, c))| {
                    crate::testing::run("go", Bench::NumComb)
                        .nth(i as u32 + 1)
                        .wall(w)
                        .cache(c)
                        .record()
                })
                .collect();
            let s = Summary::from_stored(&Stored {
                runs,
                ..Default::default()
            });
            Fig::cell(&s, &s.rows[0], Bench::NumComb)
        };
        let old = fig(&[(7.07, Cold), (0.466, Warm), (0.461, Warm)]);
        assert_eq!(old.runs, [0.466, 0.461]);
        assert_eq!(old.noisy, None, "0.466 and 0.461 s spread 0.8%");
        let new = fig(&[(7.2, Cold), (0.401, Warm), (0.399, Warm)]);
        let c = significance(&old.runs, &new.runs).unwrap();
        assert_eq!(c.verdict, Verdict::Faster, "{c:?}");
        assert_eq!(c.runs, (2, 2));
        // With the cold runs counted, 14% faster would drown in them.
        assert_eq!(
            significance(&[7.07, 0.466, 0.461], &[7.2, 0.401, 0.399])
                .unwrap()
                .verdict,
            Verdict::NotSignificant
        );
        // Every run cold (--cold-caches): every run counts.
        let cold = fig(&[(7.07, Cold), (7.2, Cold), (7.1, Cold)]);
        assert_eq!(cold.runs, [7.07, 7.2, 7.1]);
        // One warm run: no spread of warm runs; every run counts, as before.
        let two = fig(&[(7.07, Cold), (0.466, Warm)]);
        assert_eq!(two.runs, [7.07, 0.466]);
    }

    #[test]
    fn a_doubled_cell_is_slower_and_the_same_runs_are_not_significant() {
        let old = [1.00, 1.03, 0.98, 1.01, 0.99];
        let doubled: Vec<f64> = old.iter().map(|v| v * 2.0).collect();
        let c = significance(&old, &doubled).unwrap();
        assert_eq!(c.verdict, Verdict::Slower);
        assert!((c.ratio - 2.0).abs() < 1e-9, "{c:?}");
        assert!(c.lo > 1.0 && c.lo < 2.0 && c.hi > 2.0, "{c:?}");
        let halved: Vec<f64> = old.iter().map(|v| v / 2.0).collect();
        assert_eq!(
            significance(&old, &halved).unwrap().verdict,
            Verdict::Faster
        );
        // The same runs: no change at all.
        let same = significance(&old, &old).unwrap();
        assert_eq!(same.verdict, Verdict::NotSignificant);
        assert!((same.ratio - 1.0).abs() < 1e-12 && same.lo < 1.0 && same.hi > 1.0);
        // Other runs of the same program, within their noise.
        let again = [1.01, 0.99, 1.02, 0.97, 1.00];
        assert_eq!(
            significance(&old, &again).unwrap().verdict,
            Verdict::NotSignificant
        );
        // 3% slower with a 1% spread: beyond the noise.
        let slower: Vec<f64> = again.iter().map(|v| v * 1.03).collect();
        let tight = [1.0, 1.01, 0.99, 1.0, 1.005];
        let tight_slower: Vec<f64> = tight.iter().map(|v| v * 1.03 + 0.001).collect();
        assert_eq!(
            significance(&tight, &tight_slower).unwrap().verdict,
            Verdict::Slower
        );
        // 3% with a 2% spread and five runs: not told apart.
        assert_eq!(
            significance(&old, &slower).unwrap().verdict,
            Verdict::NotSignificant
        );
        // No spread at all: the ratio is exact.
        let flat = significance(&[2.0, 2.0], &[3.0, 3.0]).unwrap();
        assert_eq!(flat.verdict, Verdict::Slower);
        assert!((flat.lo - 1.5).abs() < 1e-12 && (flat.hi - 1.5).abs() < 1e-12);
        // One run a side (a published edition): no test.
        assert_eq!(significance(&[1.0], &doubled), None);
        assert_eq!(significance(&old, &[2.0]), None);
        assert_eq!(significance(&[0.0, 1.0], &old), None);
    }
}
