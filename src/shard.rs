//! `--shard K/N` and `run --plan`: a deterministic partition of the selected
//! variants over N machines, balanced by their expected cost
//! ([`crate::estimate`]: longest first onto the least-loaded shard). By
//! variant, so a variant's cells (and its warm toolchain caches) stay on one
//! machine; the same on every machine for the same selection and the same
//! records, whatever order the ids were given in.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::bench::Bench;
use crate::config::Variant;
use crate::estimate::{Basis, Estimate, Estimator};
use crate::progress::duration;

/// Shard `k` of `n` (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub k: usize,
    pub n: usize,
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("bad shard {s:?}: expected K/N with 1 <= K <= N, e.g. 2/3");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (k, n): (usize, usize) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

impl Shard {
    /// This shard's variants: the selected ones balanced over the shards by
    /// their expected cost ([`balance`]), in the order they were given.
    pub(crate) fn select<'a>(&self, plan: &Plan<'a>) -> Vec<&'a Variant> {
        plan.shards
            .get(self.k - 1)
            .map(|s| s.iter().map(|p| p.variant).collect())
            .unwrap_or_default()
    }
}

/// `1 variant`, `2 variants`.
pub(crate) fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// Which shard (0-based) each item goes to: longest first onto the
/// least-loaded shard (LPT, as a scheduler would), ties broken by id, then
/// by the shard with fewer items, then the lower shard. The same costs give
/// the same shards on every machine, whatever order the items come in;
/// with no costs known (all 0) it deals the items out by id in turn.
pub(crate) fn balance(items: &[(&str, f64)], n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| {
        items[b]
            .1
            .total_cmp(&items[a].1)
            .then(items[a].0.cmp(items[b].0))
    });
    let (mut load, mut count) = (vec![0.0f64; n], vec![0usize; n]);
    let mut shard = vec![0; items.len()];
    for i in order {
        let s = (0..n)
            .min_by(|&x, &y| {
                load[x]
                    .total_cmp(&load[y])
                    .then(count[x].cmp(&count[y]))
                    .then(x.cmp(&y))
            })
            .unwrap_or(0);
        load[s] += items[i].1;
        count[s] += 1;
        shard[i] = s;
    }
    shard
}

/// One variant in a plan: its selected cells and what each is expected to
/// cost.
#[derive(Debug, Clone)]
pub(crate) struct Planned<'a> {
    pub variant: &'a Variant,
    pub cells: Vec<PlannedCell>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct PlannedCell {
    pub bench: Bench,
    #[serde(flatten)]
    pub estimate: Estimate,
    /// `--resume` finds it complete: nothing to run.
    pub done: bool,
}

impl PlannedCell {
    /// Left to run, and nothing estimates it (its seconds count 0).
    fn unestimated(&self) -> bool {
        !self.done && !self.estimate.known()
    }
}

impl Planned<'_> {
    /// What the variant costs, done cells included: what shards are
    /// balanced by (the same before and after a resume).
    pub(crate) fn cost(&self) -> f64 {
        self.cells.iter().map(|c| c.estimate.seconds()).sum()
    }

    /// What is left to run.
    pub(crate) fn seconds(&self) -> f64 {
        self.cells
            .iter()
            .filter(|c| !c.done)
            .map(|c| c.estimate.seconds())
            .sum()
    }
}

/// What a `run` would do: per shard its variants and their cells, with
/// their expected time. Without `--shard`, one shard of everything.
#[derive(Debug, Clone)]
pub(crate) struct Plan<'a> {
    pub shards: Vec<Vec<Planned<'a>>>,
    /// `--shard K/N`: this machine's shard.
    pub shard: Option<Shard>,
    /// The results directories the figures came from, as believed first.
    pub sources: Vec<(Basis, String)>,
    /// ws-echo is selected: its servers are in the plan, not estimated.
    pub ws_echo: bool,
}

impl<'a> Plan<'a> {
    /// Plans `variants` × `benches` (the CPU ones each has a program for);
    /// `done` holds the cells `--resume` would skip.
    pub(crate) fn new(
        variants: &[&'a Variant],
        benches: &[Bench],
        estimator: &Estimator,
        shard: Option<Shard>,
        done: &HashSet<(String, Bench)>,
    ) -> Plan<'a> {
        let ws_echo = benches.contains(&Bench::WsEcho);
        let planned: Vec<Planned<'a>> = variants
            .iter()
            .filter_map(|v| {
                let mut cells: Vec<PlannedCell> = benches
                    .iter()
                    .filter(|b| b.is_cpu() && v.programs.contains_key(b))
                    .map(|&b| PlannedCell {
                        bench: b,
                        estimate: estimator.cell(&v.id, b),
                        done: done.contains(&(v.id.clone(), b)),
                    })
                    .collect();
                if ws_echo && v.programs.contains_key(&Bench::WsEcho) {
                    cells.push(PlannedCell {
                        bench: Bench::WsEcho,
                        estimate: Estimate {
                            per_run_s: 0.0,
                            runs: 1,
                            basis: Basis::Unknown,
                            scaled: false,
                        },
                        done: false,
                    });
                }
                // A variant with nothing selected runs nowhere.
                (!cells.is_empty()).then_some(Planned { variant: v, cells })
            })
            .collect();
        let n = shard.map_or(1, |s| s.n);
        let costs: Vec<(&str, f64)> = planned
            .iter()
            .map(|p| (p.variant.id.as_str(), p.cost()))
            .collect();
        let to = balance(&costs, n);
        let mut shards: Vec<Vec<Planned<'a>>> = vec![Vec::new(); n];
        for (p, s) in planned.into_iter().zip(to) {
            shards[s].push(p);
        }
        Plan {
            shards,
            shard,
            sources: Vec::new(),
            ws_echo,
        }
    }

    fn all(&self) -> impl Iterator<Item = &Planned<'a>> {
        self.shards.iter().flatten()
    }

    /// Every selected cell's cost.
    pub(crate) fn total(&self) -> f64 {
        self.all().map(Planned::cost).sum()
    }

    /// A shard's fair share: the total over the shards.
    pub(crate) fn ideal(&self) -> f64 {
        self.total() / self.shards.len() as f64
    }

    /// The costliest variant.
    pub(crate) fn largest(&self) -> Option<&Planned<'a>> {
        self.all().max_by(|a, b| {
            a.cost()
                .total_cmp(&b.cost())
                .then(b.variant.id.cmp(&a.variant.id))
        })
    }

    /// Each shard's cost (what it was balanced by).
    pub(crate) fn loads(&self) -> Vec<f64> {
        self.shards
            .iter()
            .map(|s| s.iter().map(Planned::cost).sum())
            .collect()
    }

    /// Variants that cost more alone than a shard's fair share: no
    /// partition by variant can even them out.
    pub(crate) fn warnings(&self) -> Vec<String> {
        if self.shards.len() < 2 {
            return Vec::new();
        }
        let ideal = self.ideal();
        let mut big: Vec<&Planned> = self.all().filter(|p| p.cost() > ideal).collect();
        big.sort_by(|a, b| b.cost().total_cmp(&a.cost()));
        big.iter()
            .map(|p| {
                let benches: Vec<&str> = p.cells.iter().map(|c| c.bench.name()).collect();
                format!(
                    "{} alone is ~{}, more than a shard's fair share (~{}), so its shard takes at \
                     least that long: to spread it, run it outside the shards, one benchmark \
                     per machine ({}), and merge",
                    p.variant.id,
                    duration(p.cost()),
                    duration(ideal),
                    benches
                        .iter()
                        .map(|b| format!("`--lang {} --bench {b}`", p.variant.id))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
            .collect()
    }

    /// The cells left to run that nothing estimates, and all cells left.
    fn unestimated(&self) -> (usize, usize) {
        let left: Vec<&PlannedCell> = self
            .all()
            .flat_map(|p| &p.cells)
            .filter(|c| !c.done)
            .collect();
        let unknown = left.iter().filter(|c| c.unestimated()).count();
        (unknown, left.len())
    }

    /// A sum of estimates as the plan prints it: `?` when no cell left to
    /// run has an estimate (`nothing_known`), which would read as `0s`.
    fn shown(seconds: f64, nothing_known: bool) -> String {
        if nothing_known {
            "?".to_string()
        } else {
            duration(seconds)
        }
    }

    /// What the total leaves out: cells with no figure anywhere count 0 s,
    /// so a plan with nothing to go by would say "~0s" (`--plan` into a new
    /// directory without `--balance-from`).
    fn unknown_text(unknown: usize, left: usize) -> String {
        if unknown == 0 {
            return String::new();
        }
        let what = if unknown == left {
            "no cell has an estimate, so this total says nothing".to_string()
        } else {
            format!(
                "without the {} that have no estimate",
                count(unknown, "cell")
            )
        };
        format!(
            " ({what}: no records of them here; `--balance-from DIR` estimates from a results \
             directory that measured them, e.g. the last edition's)"
        )
    }

    /// How many cells' estimates came from each basis.
    fn bases(&self) -> BTreeMap<Basis, (usize, bool)> {
        let mut n: BTreeMap<Basis, (usize, bool)> = BTreeMap::new();
        for c in self.all().flat_map(|p| &p.cells) {
            let e = n.entry(c.estimate.basis).or_default();
            e.0 += 1;
            e.1 |= c.estimate.scaled;
        }
        n
    }

    /// The plan for the terminal: the sources, each shard's variants with
    /// their cells, the total and the warnings.
    pub(crate) fn text(&self) -> String {
        let (unknown, left) = self.unestimated();
        let nothing_known = left > 0 && unknown == left;
        let mut out = String::new();
        let bases: Vec<String> = self
            .bases()
            .iter()
            .map(|(b, (count, scaled))| {
                let from = self
                    .sources
                    .iter()
                    .find(|(s, _)| s == b)
                    .map_or(b.describe().to_string(), |(_, d)| d.clone());
                let scaled = if *scaled {
                    " (at another N, scaled linearly)"
                } else {
                    ""
                };
                format!("{count} from {from}{scaled}")
            })
            .collect();
        out.push_str(&format!("Estimated cells: {}\n", bases.join(", ")));
        let loads = self.loads();
        for (i, shard) in self.shards.iter().enumerate() {
            let cells: usize = shard.iter().map(|p| p.cells.len()).sum();
            let left: f64 = shard.iter().map(Planned::seconds).sum();
            let name = match self.shard {
                Some(s) if s.k == i + 1 => format!("Shard {}/{} (this one)", i + 1, s.n),
                Some(s) => format!("Shard {}/{}", i + 1, s.n),
                None => "All".to_string(),
            };
            let done = if left < loads[i] {
                format!(" (~{} left)", duration(left))
            } else {
                String::new()
            };
            out.push_str(&format!(
                "{name}: {}, {}, ~{}{done}\n",
                count(shard.len(), "variant"),
                count(cells, "cell"),
                Self::shown(loads[i], nothing_known)
            ));
            for p in shard {
                let cells: Vec<String> = p
                    .cells
                    .iter()
                    .map(|c| {
                        let mark = match (c.done, c.estimate.basis) {
                            (true, _) => " done",
                            (_, Basis::Median) => " (median)",
                            (_, Basis::Unknown) => " (unknown)",
                            _ => "",
                        };
                        format!("{} {}{mark}", c.bench, estimated(c))
                    })
                    .collect();
                let cost = if p.cells.iter().all(PlannedCell::unestimated) {
                    "?".to_string()
                } else {
                    duration(p.cost())
                };
                out.push_str(&format!(
                    "  {:<26} {:>8}  {}\n",
                    p.variant.id,
                    cost,
                    cells.join(", ")
                ));
            }
        }
        let longest = loads.iter().copied().fold(0.0, f64::max);
        out.push_str(&format!(
            "Total: {}, ~{}",
            count(self.all().map(|p| p.cells.len()).sum(), "cell"),
            Self::shown(self.total(), nothing_known)
        ));
        out.push_str(&Self::unknown_text(unknown, left));
        if self.shards.len() > 1 {
            out.push_str(&format!(
                "; a shard's fair share ~{}, the longest shard ~{}",
                duration(self.ideal()),
                duration(longest)
            ));
        }
        out.push('\n');
        if self.ws_echo {
            out.push_str("ws-echo servers run after the CPU benchmarks and are not estimated\n");
        }
        for w in self.warnings() {
            out.push_str(&format!("warning: {w}\n"));
        }
        out
    }

    /// The plan as JSON (`run --plan --json`).
    pub(crate) fn json(&self) -> serde_json::Value {
        let loads = self.loads();
        let shards: Vec<serde_json::Value> = self
            .shards
            .iter()
            .enumerate()
            .map(|(i, s)| {
                serde_json::json!({
                    "shard": i + 1,
                    "this": self.shard.is_some_and(|m| m.k == i + 1),
                    "cost_s": loads[i],
                    "left_s": s.iter().map(Planned::seconds).sum::<f64>(),
                    "variants": s.iter().map(|p| serde_json::json!({
                        "id": p.variant.id,
                        "cost_s": p.cost(),
                        "left_s": p.seconds(),
                        "cells": p.cells,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        serde_json::json!({
            "shards": shards,
            "total_s": self.total(),
            "ideal_s": self.ideal(),
            "longest_s": loads.iter().copied().fold(0.0, f64::max),
            "largest": self.largest().map(|p| serde_json::json!({"id": p.variant.id, "cost_s": p.cost()})),
            "sources": self.sources.iter().map(|(b, d)| serde_json::json!({"basis": b, "dir": d})).collect::<Vec<_>>(),
            "ws_echo_not_estimated": self.ws_echo,
            "warnings": self.warnings(),
        })
    }
}

/// A cell's estimate as the plan prints it: `?` where nothing estimates it
/// (never `0s`, which reads as "nothing to do").
fn estimated(c: &PlannedCell) -> String {
    if c.unestimated() {
        "?".to_string()
    } else {
        duration(c.estimate.seconds())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_numbers_are_checked() {
        assert!("0/3".parse::<Shard>().is_err());
        assert!("4/3".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { k: 2, n: 3 }));
    }

    /// Longest first onto the least-loaded shard: 9, 7 and 6 onto shards
    /// 1, 2, 3; 5 onto 3 (6), 4 onto 2 (7), 3 onto 1 (9); 2 onto 2 (11, as
    /// shard 3: equal loads and counts go to the lower shard).
    #[test]
    fn longest_first_onto_the_least_loaded_shard_whatever_the_order() {
        let items = [
            ("go", 4.0),
            ("c-gcc", 9.0),
            ("python3", 7.0),
            ("java", 6.0),
            ("node", 5.0),
            ("rust", 3.0),
            ("php", 2.0),
        ];
        let to = balance(&items, 3);
        let shard_of = |id: &str| to[items.iter().position(|i| i.0 == id).unwrap()];
        let on = |k: usize| -> Vec<&str> {
            let mut v: Vec<&str> = items
                .iter()
                .filter(|i| shard_of(i.0) == k)
                .map(|i| i.0)
                .collect();
            v.sort();
            v
        };
        assert_eq!(on(0), ["c-gcc", "rust"], "9 + 3");
        assert_eq!(on(1), ["go", "php", "python3"], "7 + 4 + 2");
        assert_eq!(on(2), ["java", "node"], "6 + 5");
        let mut reversed = items.to_vec();
        reversed.reverse();
        let again = balance(&reversed, 3);
        for (id, _) in &items {
            let j = reversed.iter().position(|i| i.0 == *id).unwrap();
            assert_eq!(
                again[j],
                shard_of(id),
                "{id}: the same shard whatever the order"
            );
        }
    }

    /// With nothing known every cost is 0: the items are dealt out by id,
    /// and equal costs go by id.
    #[test]
    fn equal_costs_are_dealt_out_by_id() {
        let items = [("e", 0.0), ("b", 0.0), ("a", 0.0), ("d", 0.0), ("c", 0.0)];
        assert_eq!(balance(&items, 2), [0, 1, 0, 1, 0], "a b c d e in turn");
        assert_eq!(balance(&[("x", 1.0), ("w", 1.0)], 2), [1, 0]);
    }
}
