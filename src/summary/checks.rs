//! What the CPU summary says of its stored reproducibility checks (issues
//! #59 and #60): one fact per check (what it is: precision at its level,
//! portability, or refused, and why), the one sentence that says which
//! precision sets the ranks and from which checks, the rows a check found
//! irreproducible (a note each), a Portability table per check on another
//! CPU model, and the terminal's advice about a refused one. Every text a
//! check carries (its machine, its rows' names, a refusal quoting them) is
//! made inert: the files come with the directory, from whoever made it.

use super::Summary;
use crate::reproduced::Place;
use crate::reproduced::portability;
use crate::reproduced::precision::{MIN_ROWS, Precision, ROBUST_BELOW, Ranking};
use crate::reproduced::verify::{Check, Verdict};
use langbench_document::inert;
use langbench_document::{Column, Entry, Kind, Mark, Note, Priority, Show, Table};

/// `12.3 %` of a fraction, signed.
fn pct(x: f64) -> String {
    // A shift that rounds to none is +0.0, never −0.0.
    let x = if (x * 1000.0).round() == 0.0 { 0.0 } else { x };
    format!("{:+.1} %", x * 100.0)
}

impl Summary {
    /// The edition's place, as its facts name its CPU.
    fn edition_place(&self) -> Place {
        self.machine
            .as_ref()
            .map(Place::of_machine)
            .unwrap_or_default()
    }

    /// The facts of the checks: one per check, then which precision sets
    /// the ranks (none without a check).
    pub(super) fn check_facts(&self) -> Vec<(String, String)> {
        let mut facts: Vec<(String, String)> = self
            .checks
            .iter()
            .map(|c| {
                let key = if c.measures_portability() {
                    "Portability"
                } else {
                    "Reproduced"
                };
                (key.to_string(), inert::text(&self.check_text(c)))
            })
            .collect();
        if !self.checks.is_empty() {
            facts.push(("Rank precision".into(), self.precision_sentence()));
        }
        facts
    }

    /// One check, in a sentence: its agreement (computed here from its
    /// rows, never the sentence it carries), what it measures, and what
    /// it was verified against; or why it is refused.
    fn check_text(&self, c: &Check) -> String {
        let runs = match &c.verdict {
            Verdict::Refused(why) => {
                return format!(
                    "reproduced/{} is IGNORED: it does not verify against the records it claims: {why}",
                    c.file
                );
            }
            Verdict::Verified { runs, renormalised } => format!(
                "its ratios recomputed from the edition's records and its run directory {runs}'s{}",
                renormalised.map_or(String::new(), |by| format!(
                    " (it was stored with an earlier normaliser: its own figures differ from \
                     today's by up to {:.1} %)",
                    by * 100.0
                ))
            ),
        };
        let by_name = if c.by_name {
            " (the CPU model known by its name only: a side did not record its numbers)"
        } else {
            ""
        };
        if c.measures_portability() {
            let (kept, pairs) = portability::pairs_kept(&c.agreement);
            return format!(
                "{}: measured on {}, another CPU model than the edition's ({}){by_name}: its \
                 differences are how the programs behave on another microarchitecture, not this \
                 machine's noise, so they are shown in their own table (Portability, {}) and \
                 change no rank; {kept} of {pairs} pairs of its rows kept their order; {runs}",
                c.agreement.sentence(),
                c.place.cpu_text(),
                self.edition_place().cpu_text(),
                c.day(),
            );
        }
        format!(
            "{}; a precision check on the edition's CPU model, {} ({}){by_name}; {runs}",
            c.agreement.sentence(),
            c.place.cpu_text(),
            c.level.short()
        )
    }

    /// The one sentence on which precision sets the ranks, and from which
    /// checks (and which checks do not, and why).
    pub(crate) fn precision_sentence(&self) -> String {
        let cpu = self.edition_place().cpu_text();
        let portability = self
            .checks
            .iter()
            .filter(|c| c.measures_portability())
            .count();
        let refused = self.checks.iter().filter(|c| !c.verified()).count();
        let mut others = Vec::new();
        if portability > 0 {
            others.push(format!(
                "{portability} check{} on another CPU model measure{} portability and set{} no rank",
                if portability == 1 { "" } else { "s" },
                if portability == 1 { "s" } else { "" },
                if portability == 1 { "s" } else { "" },
            ));
        }
        if refused > 0 {
            others.push(format!(
                "{refused} check{} that do{} not verify {} ignored",
                if refused == 1 { "" } else { "s" },
                if refused == 1 { "es" } else { "" },
                if refused == 1 { "is" } else { "are" },
            ));
        }
        let others = if others.is_empty() {
            String::new()
        } else {
            format!("; {}", others.join("; "))
        };
        let head = match &self.ranking {
            Ranking::Trusted(p) if self.ranks_normalised() => self.trusted_sentence(p, &cpu),
            Ranking::Trusted(_) => "the ranks are by the seconds (not every complete row has a \
                                    normalised total), which the checks' ratios do not measure: \
                                    they hold at the runs' ranges only"
                .to_string(),
            Ranking::TooFew(level, ix, rows) => format!(
                "the ranks hold at the runs' ranges only: the {} check{} on this CPU model, \
                 {cpu} ({}), re-measured {rows} rows, fewer than {MIN_ROWS}: too few to set a \
                 precision alone",
                ix.len(),
                if ix.len() == 1 { "" } else { "s" },
                level.short()
            ),
            Ranking::None => format!(
                "the ranks hold at the runs' ranges only: no verified check on this CPU model \
                 ({cpu})"
            ),
        };
        inert::text(&format!("{head}{others}"))
    }

    /// The sentence of a trusted precision: its checks, level and rows,
    /// per benchmark the precision, its rows and the common shift, how it
    /// was estimated, the flagged rows.
    fn trusted_sentence(&self, p: &Precision, cpu: &str) -> String {
        let days: Vec<&str> = p.checks.iter().map(|&i| self.checks[i].day()).collect();
        let benches: Vec<String> = self
            .benches
            .iter()
            .map(|(b, _)| match p.benches.get(b) {
                Some(x) => format!(
                    "{b} ±{:.1} % ({} rows{}; their common shift {})",
                    x.precision * 100.0,
                    x.rows,
                    if x.pooled {
                        ", too few alone: the pooled figure"
                    } else {
                        ""
                    },
                    pct(x.shift)
                ),
                None => format!(
                    "{b} ±{:.1} % (not re-measured: the pooled figure)",
                    p.pooled.precision * 100.0
                ),
            })
            .collect();
        let robust = p.benches.values().any(|x| x.robust);
        format!(
            "the ranks hold at the precision of {} verified check{} on this CPU model, {cpu} \
             ({}; {}; {} rows), per benchmark: {}. It is how far 90 % of \
             re-measured rows stay from their benchmark's common shift{}; a row's \
             precision weighs its benchmarks' by their share of its normalised total, \
             and rows tie only where their bands overlap{}",
            p.checks.len(),
            if p.checks.len() == 1 { "" } else { "s" },
            days.join(", "),
            p.level.short(),
            p.rows,
            benches.join(", "),
            if robust {
                format!(
                    ", estimated from their median distance where a benchmark has \
                     fewer than {ROBUST_BELOW} rows (so that no one row sets it)"
                )
            } else {
                String::new()
            },
            match p.flagged.len() {
                0 => String::new(),
                n => format!(
                    "; {n} row{} that did not reproduce {} flagged on {} own (in the \
                     notes) and widen{} no one's precision",
                    if n == 1 { "" } else { "s" },
                    if n == 1 { "is" } else { "are" },
                    if n == 1 { "its" } else { "their" },
                    if n == 1 { "s" } else { "" },
                ),
            }
        )
    }

    /// The checks in a line, for `compare` and `history`: how many
    /// measure the precision (and at which level), how many portability,
    /// how many are refused; `None` without any.
    pub(crate) fn checks_line(&self) -> Option<String> {
        if self.checks.is_empty() {
            return None;
        }
        let said: Vec<String> = self
            .checks
            .iter()
            .map(|c| match &c.verdict {
                Verdict::Refused(_) => format!("{} refused (does not verify)", c.file),
                _ if c.measures_portability() => format!(
                    "{} portability on {} (no rank changed)",
                    c.day(),
                    c.place.cpu_text()
                ),
                _ => format!("{} precision, {}", c.day(), c.level.text()),
            })
            .collect();
        Some(inert::text(&said.join("; ")))
    }

    /// One note per row a check found irreproducible.
    pub(super) fn irreproducible_notes(&self) -> Vec<Note> {
        let Some(p) = self.ranking.trusted().filter(|_| self.ranks_normalised()) else {
            return Vec::new();
        };
        p.flagged
            .iter()
            .map(|f| {
                let label = self
                    .rows
                    .iter()
                    .find(|r| r.variant == f.variant)
                    .map_or_else(|| f.variant.clone(), |r| r.label());
                Note::new(
                    inert::text(&format!("{label} / {}", f.bench)),
                    format!(
                        "did not reproduce: in the check of {} its ratio moved {} beyond {}'s \
                         common shift, where 90 % of rows stay within ±{:.1} %: flagged on its \
                         own, it widens no other row's precision; its rank holds at the others'",
                        f.day,
                        pct(f.moved),
                        f.bench,
                        p.of_bench(f.bench) * 100.0
                    ),
                )
            })
            .collect()
    }

    /// What to do about a check that does not verify (terminal only).
    pub(super) fn refused_advice(&self) -> Vec<String> {
        self.checks
            .iter()
            .filter_map(|c| match &c.verdict {
                Verdict::Refused(why) => Some(inert::text(&format!(
                    "reproduced/{} does not verify ({why}): it is ignored; remove it, or store \
                     a check again with `langbench reproduce --store`",
                    c.file
                ))),
                _ => None,
            })
            .collect()
    }

    /// A table per check on another CPU model: per row its shift in each
    /// benchmark, then per benchmark the geometric mean shift and its
    /// spread.
    pub(super) fn portability_tables(&self) -> Vec<Table> {
        self.checks
            .iter()
            .filter(|c| c.measures_portability())
            .enumerate()
            .map(|(n, c)| self.portability_table(n + 1, c))
            .collect()
    }

    fn portability_table(&self, n: usize, c: &Check) -> Table {
        let shifts = portability::by_bench(&c.agreement);
        let benches: Vec<_> = shifts.iter().map(|s| s.bench).collect();
        // Named as the table names rows (language, then its command
        // flags), each an id column the terminal wraps, never cuts.
        let id = |header: &str, key: &str| Column {
            priority: Priority::Id,
            ..Column::new(header, key, Kind::Text, Show::Both)
        };
        let mut columns = vec![
            id("Language", "language"),
            id("Command Flags", "command_flags"),
        ];
        for b in &benches {
            columns.push(Column::new(
                format!("{b} shift"),
                format!("{}_shift", b.name().replace('-', "_")),
                Kind::Percent,
                Show::Both,
            ));
        }
        let mut rows: Vec<Vec<Entry>> = portability::by_row(&c.agreement)
            .into_iter()
            .map(|(variant, by)| {
                let (language, flags) = self
                    .rows
                    .iter()
                    .find(|r| r.variant == variant)
                    .map_or((variant, String::new()), |r| {
                        (r.language.clone(), r.flags.clone())
                    });
                let mut row = vec![
                    Entry::text(inert::text(&language)),
                    Entry::text(inert::text(&flags)),
                ];
                row.extend(benches.iter().map(|b| match by.get(b) {
                    Some(s) => Entry::number(*s, pct(*s)),
                    None => Entry::empty("-").marked(Mark::Plain, None),
                }));
                row
            })
            .collect();
        let mut mean = vec![Entry::text("geometric mean"), Entry::text("")];
        let mut spread = vec![Entry::text("spread"), Entry::text("sd of the log shifts")];
        for s in &shifts {
            mean.push(Entry::number(s.mean, pct(s.mean)));
            spread.push(Entry::number(
                s.spread,
                format!("±{:.1} %", s.spread * 100.0),
            ));
        }
        rows.push(mean);
        rows.push(spread);
        let (kept, pairs) = portability::pairs_kept(&c.agreement);
        Table {
            id: format!("portability-{n}"),
            // Short enough for an 80-column terminal (a title is not
            // wrapped); the CPU models are in the note.
            title: format!(
                "Portability: {}, {}",
                inert::clip(&inert::text(&c.place.name), 40),
                inert::clip(&inert::text(c.day()), 10)
            ),
            columns,
            rows,
            notes: vec![Note::from(format!(
                "measured on {}, another CPU model than the edition's ({}): each row's ratio to \
                 the references ({}) there over its ratio in \
                 the edition, − 1: how the program moves against the references on another \
                 microarchitecture, not measurement noise; the ranks are not widened by it. Of \
                 the {pairs} pairs of rows re-measured in every benchmark, {kept} kept their \
                 order (by the geometric mean of their ratios)",
                inert::text(&c.place.cpu_text()),
                self.edition_place().cpu_text(),
                self.host
                    .as_ref()
                    .map_or_else(|| "the reference set".into(), |h| h.set.join(", "))
            ))],
            labels: 2,
            ..Default::default()
        }
    }
}
