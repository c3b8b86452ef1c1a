//! The precision paragraph of a table measured with reference passes
//! (issue #39): how far the host drifted over the results directory, the
//! passes the quality gate flags, and how many passes and sessions the
//! figures were judged against. Shown among the facts above the table, so
//! every rendering (summary.md, report.html, the xlsx's About sheet, the
//! terminal) says it; nothing without references.

use std::collections::BTreeSet;

use super::Summary;
use crate::reference::{HostSpeed, MOVED_LIMIT};

impl Summary {
    /// The precision fact, or none without reference passes.
    pub fn precision_facts(&self) -> Vec<(String, String)> {
        let mut facts = match &self.host {
            Some(host) => vec![("Precision".into(), precision_text(host))],
            None => Vec::new(),
        };
        facts.extend(self.reproduced_facts());
        facts
    }

    /// One "Reproduced" fact per stored reproducibility check
    /// (`reproduce --store`): its sentence, computed here from its rows
    /// (never a sentence the file carries), its date and machine made
    /// inert (the file comes with the directory, from whoever made it).
    pub fn reproduced_facts(&self) -> Vec<(String, String)> {
        self.reproduced
            .iter()
            .filter(|a| !a.rows.is_empty())
            .map(|a| ("Reproduced".into(), crate::inert::text(&a.sentence())))
            .collect()
    }
}

/// The reference passes (distinct session and block, over every
/// benchmark) and the sessions they ran in.
pub(crate) fn passes_and_sessions(host: &HostSpeed) -> (usize, usize) {
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
        moved
            .iter()
            .map(|m| {
                format!(
                    "session {} block {} {} (×{:.2} its nearer neighbour's time)",
                    m.session, m.block, m.bench, m.by
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    format!(
        "the reference set ({}) ran in {passes} pass{} over {sessions} session{} \
         (sittings), one at a session's start and one after each block of measuring. \
         Over the directory the host drifted, per benchmark the references' slowest pass \
         over their fastest: {drift}; the seconds in the table include this drift, the \
         normalised figures take it out. Passes that moved more than {:.0}% against both \
         their neighbours (the runs around them are judged against a speed that did not \
         hold), flagged: {}{flagged}",
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
