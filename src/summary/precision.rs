//! The precision paragraph of a table measured with reference passes
//! (issue #39): how far the host drifted over the results directory, the
//! passes the quality gate flags, and how many passes and sessions the
//! figures were judged against. Shown among the facts above the table, so
//! every rendering (summary.md, report.html, the xlsx's About sheet, the
//! terminal) says it; nothing without references.

use std::collections::{BTreeMap, BTreeSet};

use super::{Row, Summary};
use crate::reference::{Disagreement, HostSpeed, MOVED_LIMIT};
use langbench_document::Note;

impl Summary {
    /// The precision fact, or none without reference passes.
    pub(super) fn precision_facts(&self) -> Vec<(String, String)> {
        let mut facts = match &self.host {
            Some(host) => vec![("Precision".into(), precision_text(host))],
            None => Vec::new(),
        };
        facts.extend(self.check_facts());
        facts
    }

    /// The machines whose references disagree with the main machine's
    /// beyond the quality gate's limit (issue #42: shards on several
    /// machines); none on one machine or without references.
    pub(super) fn disagreements(&self) -> Vec<Disagreement> {
        let (Some(host), Some(main)) = (&self.host, self.main_machine) else {
            return Vec::new();
        };
        if self.machines.len() < 2 {
            return Vec::new();
        }
        let of: BTreeMap<&str, usize> = self
            .sessions
            .iter()
            .map(|s| (s.id.as_str(), s.machine))
            .collect();
        host.disagreements(|s| of.get(s).copied(), main, MOVED_LIMIT)
    }

    /// Why `row`'s figures do not compare with the other machines' rows,
    /// if its machine's references disagree (`flagged`: from
    /// [`Summary::disagreements`]).
    pub(super) fn disagreeing(&self, row: &Row, flagged: &[Disagreement]) -> Option<String> {
        let m = row.machine?;
        let d: Vec<&Disagreement> = flagged.iter().filter(|d| d.machine == m).collect();
        let worst = d.first()?;
        Some(format!(
            "measured on machine #{}, whose references disagree with machine #{}'s by ×{:.2} \
             ({}: {}): its normalised figures do not compare with the other machines' rows \
             within ±{:.0}%, so its rank is flagged, not trusted",
            m + 1,
            self.main_machine.map_or(0, |x| x + 1),
            worst.by,
            worst.bench,
            worst
                .ratios
                .iter()
                .map(|(v, r)| format!("{} ×{r:.2}", langbench_document::inert::text(v)))
                .collect::<Vec<_>>()
                .join(", "),
            MOVED_LIMIT * 100.0
        ))
    }

    /// The notes of the machines whose references disagree: one each.
    pub(super) fn disagreement_notes(&self) -> Vec<Note> {
        let flagged = self.disagreements();
        let mut seen = BTreeSet::new();
        let mut notes = Vec::new();
        for d in &flagged {
            if !seen.insert(d.machine) {
                continue;
            }
            let rows = self
                .rows
                .iter()
                .filter(|r| r.machine == Some(d.machine))
                .count();
            notes.push(Note::new(
                format!("machine #{}", d.machine + 1),
                format!(
                    "its references disagree with machine #{}'s beyond the precision (±{:.0}%): \
                     per reference, its time there over machine #{}'s, {}: {}; its {rows} row(s) \
                     are flagged in the Machine and Rank columns",
                    self.main_machine.map_or(0, |x| x + 1),
                    MOVED_LIMIT * 100.0,
                    self.main_machine.map_or(0, |x| x + 1),
                    d.bench,
                    d.ratios
                        .iter()
                        .map(|(v, r)| format!("{} ×{r:.2}", langbench_document::inert::text(v)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        notes
    }

    /// The blocks `row`'s runs were measured in (issue #42), in order.
    pub(super) fn blocks(row: &Row) -> Vec<u32> {
        let b: BTreeSet<u32> = row
            .cells
            .values()
            .flat_map(|c| c.runs.iter().filter_map(|r| r.block))
            .collect();
        b.into_iter().collect()
    }
}

/// The reference passes (distinct session and block, over every
/// benchmark) and the sessions they ran in.
pub(super) fn passes_and_sessions(host: &HostSpeed) -> (usize, usize) {
    let mut passes = BTreeSet::new();
    let mut sessions = BTreeSet::new();
    for (session, _, ps) in host.series() {
        sessions.insert(session);
        for p in ps {
            passes.insert((session, p.block));
        }
    }
    (passes.len(), sessions.len())
}

/// The paragraph: the set, its passes and sessions, its drift per
/// benchmark, the passes flagged by the gate.
fn precision_text(host: &HostSpeed) -> String {
    let (passes, sessions) = passes_and_sessions(host);
    let drift = host
        .drift()
        .into_iter()
        .map(|(b, d)| format!("{b} ×{d:.2}"))
        .collect::<Vec<_>>()
        .join(", ");
    let moved = host.moved(MOVED_LIMIT);
    let flagged = if moved.is_empty() {
        "none".to_string()
    } else {
        moved_by_session(&moved)
    };
    format!(
        "the reference set ({}) ran in {passes} pass{} over {sessions} session{} \
         (sittings), one at a session's start and one after each block of measuring. \
         Over the directory the host drifted, per benchmark the references' slowest pass \
         over their fastest: {drift}; the seconds in the table include this drift, the \
         normalised figures take out its part between sittings (each sitting judged at the \
         median of its passes). Passes that moved more than {:.0}% against both their \
         neighbours (the host changed within a sitting, which its median does not follow), \
         flagged: {}{flagged}",
        host.set.join(", "),
        if passes == 1 { "" } else { "es" },
        if sessions == 1 { "" } else { "s" },
        MOVED_LIMIT * 100.0,
        if moved.is_empty() {
            String::new()
        } else {
            format!("{} — ", moved.len())
        },
    )
}

/// The flagged passes, one clause per session (worst session first): a
/// busy host flags many passes of one sitting, which read as one fact
/// about that sitting, not a list.
fn moved_by_session(moved: &[crate::reference::Moved]) -> String {
    let mut order: Vec<&str> = Vec::new();
    let mut of: BTreeMap<&str, Vec<&crate::reference::Moved>> = BTreeMap::new();
    for m in moved {
        if !order.contains(&m.session.as_str()) {
            order.push(&m.session);
        }
        of.entry(&m.session).or_default().push(m);
    }
    order
        .iter()
        .map(|s| match &of[s][..] {
            [m] => format!(
                "session {} block {} {} (×{:.2} its nearer neighbour's time)",
                m.session, m.block, m.bench, m.by
            ),
            ms => {
                let blocks: BTreeSet<u32> = ms.iter().map(|m| m.block).collect();
                let benches: BTreeSet<&str> = ms.iter().map(|m| m.bench.name()).collect();
                format!(
                    "session {s}, {} passes: block{} {} ({}), up to ×{:.2} the nearer \
                     neighbour's time",
                    ms.len(),
                    if blocks.len() == 1 { "" } else { "s" },
                    blocks
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                    benches.into_iter().collect::<Vec<_>>().join(", "),
                    ms[0].by
                )
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}
