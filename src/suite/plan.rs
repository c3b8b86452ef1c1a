//! What a run will cost and where: the estimates it believes (for the
//! shards, `--plan` and the time left), this machine's shard, and `run
//! --plan`, which runs nothing.

use std::collections::HashSet;
use std::path::Path;

use anyhow::Result;

use crate::config::Variant;
use crate::document::thousands;
use crate::estimate::{Basis, Estimator, Figures};
use crate::progress::duration;
use crate::resume;
use crate::shard::{Plan, Shard};
use crate::store::{Store, Stored};

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
        eprintln!("warning: {}", crate::inert::text(&w));
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
            let changed = resume::program_changes(&s, variants, opts.size);
            let mut done = resume::complete_cells(&s, opts.runs);
            done.retain(|k| !changed.contains_key(k));
            done
        }
        _ => HashSet::new(),
    };
    let mut plan = Plan::new(variants, &opts.benches, &est.balance, opts.shard, &done);
    plan.sources = est.balance_sources.clone();
    if json {
        println!("{}", serde_json::to_string_pretty(&plan.json())?);
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
    }
    Ok(std::process::ExitCode::SUCCESS)
}
