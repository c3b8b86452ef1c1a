//! What a run will cost and where: the estimates it believes (for the
//! shards, `--plan` and the time left), this machine's shard, and `run
//! --plan`, which runs nothing.

use std::collections::HashSet;
use std::path::Path;

use anyhow::Result;

use crate::config::Variant;
use crate::estimate::{Basis, Estimator, Figures};
use crate::progress::duration;
use crate::resume;
use crate::shard::{Plan, Shard};
use crate::store::{Store, Stored};
use langbench_document::thousands;

use super::options::Options;

/// The records of `dir`, if it holds any (nothing is created).
pub(super) fn stored_if_any(dir: &Path) -> Result<Option<Stored>> {
    if !dir.join(crate::store::RUNS).is_file() {
        return Ok(None);
    }
    Ok(Some(Store::open(dir)?.load()?))
}

/// The estimates a run believes, with the directories they come from:
/// `balance` for its shards (with `--shard`: `--balance-from`'s records, or
/// else the results directory's own from before its first `--shard K/N`
/// session, so that every machine, and a resumed shard, computes the same
/// shards; without: as `progress`) and `progress` for the plan and the time
/// left (the results directory's records, then `--balance-from`'s).
pub struct Estimates {
    pub balance: Estimator,
    pub balance_sources: Vec<(Basis, String)>,
    pub progress: Estimator,
}

pub fn estimates(opts: &Options) -> Result<Estimates> {
    let here = stored_if_any(&opts.out)?;
    let from = match &opts.balance_from {
        Some(d) => stored_if_any(d)?.map(|s| (d.display().to_string(), s)),
        None => None,
    };
    let new = |layers| Estimator::new(layers, opts.size, opts.runs, opts.timeout.as_secs_f64());
    let out = opts.out.display().to_string();
    let mut layers = Vec::new();
    let mut sources = Vec::new();
    if let Some(h) = &here {
        layers.push((Basis::Here, Figures::of(h)));
        sources.push((Basis::Here, out.clone()));
    }
    if let Some((d, f)) = &from {
        layers.push((Basis::BalanceFrom, Figures::of(f)));
        sources.push((Basis::BalanceFrom, d.clone()));
    }
    let (balance, balance_sources) = match (opts.shard, &from, &here) {
        (Some(_), Some((d, f)), _) => (
            vec![(Basis::BalanceFrom, Figures::of(f))],
            vec![(Basis::BalanceFrom, d.clone())],
        ),
        (Some(s), None, Some(h)) => (
            vec![(Basis::Here, Figures::before_shards(h, s.n))],
            vec![(
                Basis::Here,
                format!(
                    "{out} (its records from before any --shard K/{} session)",
                    s.n
                ),
            )],
        ),
        (Some(_), None, None) => (Vec::new(), Vec::new()),
        (None, ..) => (layers.clone(), sources),
    };
    Ok(Estimates {
        balance: new(balance),
        balance_sources,
        progress: new(layers),
    })
}

/// `run --shard K/N`: this machine's variants of the balanced plan, named
/// on stderr with what the shard is expected to cost (so each machine's
/// log says what it ran), and the variants no shard can even out.
pub(super) fn this_shard<'a>(
    variants: &[&'a Variant],
    opts: &Options,
    shard: Shard,
    est: &Estimates,
) -> Vec<&'a Variant> {
    let mut plan = Plan::new(
        variants,
        &opts.benches,
        &est.balance,
        Some(shard),
        &HashSet::new(),
    );
    plan.sources = est.balance_sources.clone();
    let mine = shard.select(&plan);
    let by = match plan.sources.first() {
        Some((_, d)) => format!("balanced by the records of {d}"),
        None => "no records to balance by: dealt out by id".to_string(),
    };
    eprintln!(
        "shard {shard}: {} of the {} selected variants, ~{} of ~{} ({by}): {}",
        mine.len(),
        variants.len(),
        duration(plan.loads()[shard.k - 1]),
        duration(plan.total()),
        mine.iter()
            .map(|v| v.id.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    );
    for w in plan.warnings() {
        langbench_document::export::terminal::warn(&w);
    }
    mine
}

/// `langbench run --plan`: what the run would do (per shard its variants,
/// cells and estimated time, and the total), as text or JSON; runs and
/// probes nothing, writes nothing.
pub fn plan_command(
    variants: &[&Variant],
    opts: &Options,
    json: bool,
) -> Result<std::process::ExitCode> {
    let est = estimates(opts)?;
    let done = match (opts.resume, stored_if_any(&opts.out)?) {
        (true, Some(s)) => {
            // What the records could not give (a skipped or torn line)
            // changes what is done: said, as the run says it.
            for w in &s.warnings {
                langbench_document::export::terminal::warn(w);
            }
            // The run would refuse this directory: so does its plan.
            resume::refuse_other_machine(&s, &crate::machine::Machine::detect(), &opts.out)?;
            // This machine's key, if it has one (a plan makes none): the
            // runs it does not verify are measured again, said as the run
            // says it.
            let key = crate::seal::Key::existing().unwrap_or_else(|e| {
                langbench_document::export::terminal::warn(&format!("{e:#}"));
                None
            });
            let (mut done, distrust) = resume::complete_trusted(&s, opts.runs, key.as_ref());
            let selected: HashSet<&str> = variants.iter().map(|v| v.id.as_str()).collect();
            let line = resume::untrusted_line(&distrust, key.as_ref(), |(id, b)| {
                selected.contains(id.as_str()) && opts.benches.contains(b)
            });
            if let Some(line) = line {
                eprintln!("{line}");
            }
            let changed = resume::program_changes(&s, variants, opts.size);
            done.retain(|k| !changed.contains_key(k));
            done
        }
        _ => HashSet::new(),
    };
    let mut plan = Plan::new(variants, &opts.benches, &est.balance, opts.shard, &done);
    plan.sources = est.balance_sources.clone();
    let refs = references(opts, &est.progress, &plan);
    if json {
        let mut value = plan.json();
        if let (Some(r), Some(obj)) = (&refs, value.as_object_mut()) {
            obj.insert("references".to_string(), r.json());
        }
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        let sizes: Vec<String> = opts
            .benches
            .iter()
            .filter(|b| b.is_cpu())
            .map(|b| format!("{b} N={}", thousands(opts.size.n(*b))))
            .collect();
        println!(
            "Plan (nothing runs): {}; {}; {}, timeout {}; into {}",
            crate::shard::count(variants.len(), "variant"),
            sizes.join(", "),
            opts.runs.describe(),
            duration(opts.timeout.as_secs_f64()),
            opts.out.display()
        );
        print!("{}", plan.text());
        if let Some(r) = &refs {
            print!("{}", r.text());
        }
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// The references' aim: at most this share of a session's time (#39).
pub(super) const REFERENCES_AIM: f64 = 0.12;

/// What the reference passes add to a plan in rounds (issue #39): per
/// shard, the passes its measuring time needs and their cost.
struct ReferenceCost {
    ids: Vec<String>,
    block_s: f64,
    /// One pass: each reference's program for each CPU benchmark, one run.
    per_pass_s: f64,
    /// The reference cells without a figure of their own (costed at their
    /// benchmark's median, or not at all).
    guessed: Vec<String>,
    /// Per shard: (measuring seconds left, passes, their seconds).
    shards: Vec<(f64, u32, f64)>,
}

/// The reference passes of `plan` (`None`: not in rounds, or no
/// references).
fn references(opts: &Options, est: &Estimator, plan: &Plan) -> Option<ReferenceCost> {
    let rounds = opts.rounds.as_ref().filter(|r| !r.references.is_empty())?;
    let mut per_pass_s = 0.0;
    let mut guessed = Vec::new();
    for v in &rounds.references {
        for b in opts
            .benches
            .iter()
            .filter(|b| b.is_cpu() && v.programs.contains_key(b))
        {
            let e = est.cell(&v.id, *b);
            if !matches!(e.basis, Basis::Here | Basis::BalanceFrom) {
                guessed.push(format!("{} {b}", v.id));
            }
            per_pass_s += e.per_run_s;
        }
    }
    let shards = plan
        .shards
        .iter()
        .map(|shard| {
            let left: f64 = shard.iter().map(|p| p.seconds()).sum();
            let passes = crate::rounds::passes(left, rounds.block_s);
            (left, passes, f64::from(passes) * per_pass_s)
        })
        .collect();
    Some(ReferenceCost {
        ids: rounds.references.iter().map(|v| v.id.clone()).collect(),
        block_s: rounds.block_s,
        per_pass_s,
        guessed,
        shards,
    })
}

impl ReferenceCost {
    /// The references' share of a shard's time (measuring and passes).
    fn share(left: f64, refs: f64) -> f64 {
        if left + refs > 0.0 {
            refs / (left + refs)
        } else {
            0.0
        }
    }

    fn text(&self) -> String {
        let mut out = format!(
            "References: {} measured before the first block and after every ~{} block of measuring, ~{} a pass",
            self.ids.join(", "),
            duration(self.block_s),
            if self.per_pass_s > 0.0 {
                duration(self.per_pass_s)
            } else {
                "?".to_string()
            }
        );
        if !self.guessed.is_empty() {
            out.push_str(&format!(
                " ({} without a figure of their own: {})",
                crate::shard::count(self.guessed.len(), "cell"),
                self.guessed.join(", ")
            ));
        }
        out.push('\n');
        let n = self.shards.len();
        for (i, (left, passes, refs)) in self.shards.iter().enumerate() {
            let name = if n == 1 {
                "All".to_string()
            } else {
                format!("Shard {}/{n}", i + 1)
            };
            let share = Self::share(*left, *refs);
            let over = if share > REFERENCES_AIM {
                format!(
                    " (over the aim of {:.0} %: longer blocks, --block-minutes, make it less)",
                    REFERENCES_AIM * 100.0
                )
            } else {
                String::new()
            };
            if self.per_pass_s <= 0.0 {
                out.push_str(&format!(
                    "  {name}: passes not estimated (no reference has a figure)\n"
                ));
                continue;
            }
            out.push_str(&format!(
                "  {name}: {passes} passes, ~{} of ~{} with them: {:.1} % of the time{over}\n",
                duration(*refs),
                duration(left + refs),
                share * 100.0
            ));
        }
        out
    }

    fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "ids": self.ids,
            "block_s": self.block_s,
            "per_pass_s": self.per_pass_s,
            "guessed": self.guessed,
            "aim_share": REFERENCES_AIM,
            "shards": self.shards.iter().enumerate().map(|(i, (left, passes, refs))| serde_json::json!({
                "shard": i + 1,
                "measure_s": left,
                "passes": passes,
                "references_s": refs,
                "total_s": left + refs,
                "share": Self::share(*left, *refs),
            })).collect::<Vec<_>>(),
        })
    }
}
