//! What the CPU summary says about its figures: the notes under the table
//! (why a cell is not a plain correct figure, the sessions' machine state)
//! and, for the terminal only, what the maintainer could do about them.

use super::{Cell, Row, Summary};
use crate::bench::Bench;
use crate::record::{RunRecord, Status};
use langbench_document::Note;

impl Summary {
    /// Why a cell is not a plain correct figure (`None` for one that is),
    /// told to a reader (what to do about it is [`Summary::advice`]'s).
    pub(super) fn cell_note(&self, row: &Row, bench: Bench) -> Option<String> {
        let Some(c) = row.cells.get(&bench) else {
            if row.no_program.contains(&bench) {
                return Some(format!("n/a: the variant has no {bench} program"));
            }
            return Some("not run: this results directory holds no run of it".into());
        };
        if c.status.is_ok() {
            let says = self.measured_says(c, true);
            return (!says.is_empty()).then(|| says.join("; "));
        }
        let detail = c
            .best
            .as_ref()
            .and_then(|r| r.detail.clone())
            .unwrap_or_default();
        let ran: Vec<&RunRecord> = c
            .records()
            .filter(|r| r.status != Status::Skipped)
            .collect();
        let failing = ran.iter().filter(|r| !r.status.is_ok()).count();
        let skipped = c.runs.len() - ran.len();
        let of = match (ran.len(), skipped) {
            (n, 0) if n > 1 => format!(" ({failing} of {n} runs)"),
            (_, 0) => String::new(),
            (n, s) => format!(
                " ({failing} of {n} run{}; {s} more skipped after it)",
                if n == 1 { "" } else { "s" }
            ),
        };
        Some(format!(
            "{}{of}: {}",
            c.status,
            // Records stored before stderr notes were cleaned.
            strip_ansi_escapes::strip_str(detail).replace('\n', " ")
        ))
    }

    /// What a measured (correct) cell's note says: a cold figure, fewer
    /// runs than asked, and with `noise` its runs' spread where it is
    /// noisy (the notes under the table tell the noise in one line of its
    /// own: [`Summary::noise_note`]).
    fn measured_says(&self, c: &Cell, noise: bool) -> Vec<String> {
        let mut says = Vec::new();
        if let Some((ran, asked)) = c.partial_runs() {
            says.push(format!(
                "{ran} of {asked} runs: its session stopped before the rest; the figure is \
                 the best of {ran}"
            ));
        } else if let Some(s) = c.noisy(self.noise_cv).filter(|_| noise) {
            says.push(format!(
                "noisy: {} {}runs spread {:.1}% (coefficient of variation; flagged above \
                 {:.1}%): {:.3}–{:.3} s, mean {:.3} s",
                s.runs,
                if c.cold_left_out.is_empty() {
                    ""
                } else {
                    "warm "
                },
                s.cv * 100.0,
                self.noise_cv * 100.0,
                s.min,
                s.max,
                s.mean,
            ));
        }
        if let Some(cold) = c.cold_figure() {
            says.push(cold);
        }
        if let Some(slow) = slow_memory_note(c) {
            says.push(slow);
        }
        says
    }

    /// One line for every noisy cell of the table: how many, how much,
    /// where; the machine's noise when it is most of the table's cells
    /// (it was 95 notes of 118, three screens before the first chart,
    /// and hid a program's own problems among them). Each cell still
    /// shows its spread (`±N%`), and on the page its note as its tooltip
    /// (the terminal and Markdown have none: the note says where).
    fn noise_note(&self) -> Option<Note> {
        let measured: Vec<(Bench, &Cell)> = self
            .rows
            .iter()
            .flat_map(|r| r.cells.iter().map(|(b, c)| (*b, c)))
            .filter(|(_, c)| c.status.is_ok() && c.partial_runs().is_none())
            .collect();
        let mut cvs: Vec<(Bench, f64)> = measured
            .iter()
            .filter_map(|(b, c)| Some((*b, c.noisy(self.noise_cv)?.cv)))
            .collect();
        if cvs.is_empty() {
            return None;
        }
        cvs.sort_by(|a, b| a.1.total_cmp(&b.1));
        let n = cvs.len();
        let median = if n % 2 == 1 {
            cvs[n / 2].1
        } else {
            (cvs[n / 2 - 1].1 + cvs[n / 2].1) / 2.0
        };
        let per_bench: Vec<String> = self
            .benches
            .iter()
            .filter_map(|(b, _)| {
                let k = cvs.iter().filter(|(x, _)| x == b).count();
                (k > 0).then(|| format!("{b} {k}"))
            })
            .collect();
        let whose = if 4 * n > measured.len() {
            "so many at once that it is the machine's noise while they ran more than the \
             programs'"
        } else {
            "the machine's noise or the program's"
        };
        Some(Note::new(
            format!("Noisy ({n} of {} cells)", measured.len()),
            format!(
                "their runs spread more than {:.1}% (coefficient of variation; median {:.1}%, \
                 largest {:.1}%; {}): {whose}. Each shows its spread after its figure \
                 (`±N%`); its runs' range is in the data files and, on the page, in its \
                 tooltip",
                self.noise_cv * 100.0,
                median * 100.0,
                cvs[n - 1].1 * 100.0,
                per_bench.join(", "),
            ),
        ))
    }

    /// Lines explaining every cell that is not a plain, correct time, keyed
    /// by what the row shows; then the machine state of the sessions the
    /// table's runs come from, where their check warned.
    pub(super) fn notes(&self) -> Vec<Note> {
        let mut notes = Vec::new();
        notes.extend(self.normalised_note());
        for row in &self.rows {
            let label = row.label();
            if !row.installed() {
                let detail = row
                    .cells
                    .values()
                    .find_map(|c| c.best.as_ref()?.detail.clone())
                    .unwrap_or_default();
                notes.push(Note::new(label, format!("not installed: {detail}")));
                continue;
            }
            if !row.started {
                notes.push(Note::new(
                    label,
                    "not run: selected, but its session stopped before it started",
                ));
                continue;
            }
            for b in row.missing.iter().chain(&row.no_program) {
                if let Some(n) = self.cell_note(row, *b) {
                    notes.push(Note::new(format!("{label} / {b}"), n));
                }
            }
            // A measured cell's noise is told once for the table
            // (`noise_note`), apart from what is wrong with a program.
            for (b, c) in &row.cells {
                let n = if c.status.is_ok() {
                    let says = self.measured_says(c, false);
                    (!says.is_empty()).then(|| says.join("; "))
                } else {
                    self.cell_note(row, *b)
                };
                if let Some(n) = n {
                    notes.push(Note::new(format!("{label} / {b}"), n));
                }
            }
        }
        notes.extend(self.noise_note());
        notes.extend(self.machine_state_notes());
        notes.extend(self.disagreement_notes());
        notes.extend(self.irreproducible_notes());
        notes
    }

    /// What the normalised columns are and why (with reference passes
    /// only); and why the ranks are the seconds' where a complete row has
    /// no normalised total.
    fn normalised_note(&self) -> Option<Note> {
        self.host.as_ref()?;
        let mut text = String::from(
            "each run is divided by the reference set's time in its sitting (per benchmark, \
             the median of its session's reference passes) and multiplied by the references' \
             median over the directory: seconds as the host runs at its median state. A \
             cell's normalised figure is its fastest counted (warm) run's, with +: how far its \
             slowest is above it (both ends in the data files: `…_normalised_lo_s`, \
             `…_normalised_hi_s`). The sitting's median, not the passes around each run: a \
             pass is one run of each reference, noisier than the cells' own runs, so \
             following it pass by pass added its noise to every run (docs/measurement.md, \
             \"Choosing the normaliser\"). The seconds stay the best of N as measured, as a \
             person timing by hand would keep",
        );
        if !self.ranks_normalised() && self.rows.iter().any(|r| r.complete()) {
            text.push_str(
                "; a complete row has no normalised total (a run of it has no reference pass \
                 in its session), so every row is ranked by its seconds",
            );
        }
        Some(Note::new("Normalised", text))
    }

    /// The sessions' machine-state warnings, under the table whose runs
    /// they concern.
    fn machine_state_notes(&self) -> Vec<Note> {
        self.sessions
            .iter()
            .filter(|s| !s.warnings.is_empty())
            .map(|s| {
                let whom = match s.rows.as_slice() {
                    [one] => one.clone(),
                    rows if rows.len() <= 3 => rows.join(", "),
                    rows => format!("{} rows", rows.len()),
                };
                Note::new(
                    format!("Machine state ({whom})"),
                    format!(
                        "session {} ({} cell{} of this table) started on a machine that was not \
                         quiet: {}",
                        s.id,
                        s.cells,
                        if s.cells == 1 { "" } else { "s" },
                        s.warnings.join("; ")
                    ),
                )
            })
            .collect()
    }

    /// What the maintainer could do about the notes: for the terminal only.
    pub(super) fn advice(&self) -> Vec<String> {
        let mut advice = Vec::new();
        let missing: usize = self
            .rows
            .iter()
            .filter(|r| r.installed())
            .map(|r| {
                if r.started {
                    r.missing.len()
                } else {
                    self.benches.len().max(1)
                }
            })
            .sum();
        let partial = self
            .rows
            .iter()
            .flat_map(|r| r.cells.values())
            .filter(|c| c.partial_runs().is_some())
            .count();
        if missing + partial > 0 {
            advice.push(format!(
                "{missing} cell(s) not run and {partial} with fewer runs than asked: \
                 `langbench run --resume` with the same --out runs what is missing"
            ));
        }
        let noisy = self
            .rows
            .iter()
            .flat_map(|r| r.cells.values())
            .filter(|c| c.status.is_ok() && c.noisy(self.noise_cv).is_some())
            .count();
        if noisy > 0 {
            advice.push(format!(
                "{noisy} noisy cell(s): quiet the machine (the sessions' warnings say what was \
                 running) and re-run them, or use --runs auto"
            ));
        }
        let busy = self
            .sessions
            .iter()
            .filter(|s| !s.warnings.is_empty())
            .count();
        if busy > 0 {
            advice.push(format!(
                "{busy} session(s) started on a busy machine: re-run their rows on a quiet one"
            ));
        }
        let not_installed = self.rows.iter().filter(|r| !r.installed()).count();
        if not_installed > 0 {
            advice.push(format!(
                "{not_installed} variant(s) not installed: `langbench toolchains install`"
            ));
        }
        if self.machines.len() > 1 {
            advice.push(
                "rows come from more than one machine: re-run the other machines' rows on one \
                 for a table that compares fairly"
                    .into(),
            );
        }
        advice.extend(self.refused_advice());
        advice
    }
}

/// The runs of a cell measured after a memory probe far slower than
/// their session's median (issue #60), in a sentence; `None` without.
/// Each run with its own session's median: a cell `--resume` carried on
/// holds the runs of more than one session.
fn slow_memory_note(c: &Cell) -> Option<String> {
    if c.slow_memory.is_empty() {
        return None;
    }
    let runs: Vec<String> = c
        .slow_memory
        .iter()
        .map(|s| {
            format!(
                "run {} (its memory probe {:.2} GB/s against its session's median {:.2} GB/s, \
                 {:.0} % slower)",
                s.run,
                s.gb_s,
                s.median_gb_s,
                s.slower * 100.0,
            )
        })
        .collect();
    Some(format!(
        "memory slow: the host's memory was slow before {} (flagged beyond {:.0} % slower): \
         a memory-heavy run pays that on every page it touches first",
        runs.join(" and "),
        (crate::mem_probe::SLOW - 1.0) * 100.0,
    ))
}
