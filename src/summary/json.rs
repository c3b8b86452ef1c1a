//! Everything in one JSON document: sessions (with machine details and
//! versions), the summary table and every run.

use serde::Serialize;

use super::Summary;
use crate::record::{RunRecord, SCHEMA, SessionRecord, now_rfc3339};
use crate::store::Stored;

#[derive(Serialize)]
struct Results<'a> {
    schema: u32,
    generated_at: String,
    sessions: &'a [SessionRecord],
    summary: &'a Summary,
    runs: &'a [std::sync::Arc<RunRecord>],
}

/// results.json, written to `w` as it is serialized (never held whole:
/// 164 MB at 6,500 variants, issue #41). Its `generated_at` is `as_of`,
/// the newest record's time (now without one): a `report` of the same
/// records rewrote it with the clock's, a change in every commit.
pub(crate) fn write_results(
    stored: &Stored,
    summary: &Summary,
    as_of: Option<&str>,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let doc = Results {
        schema: SCHEMA,
        generated_at: as_of.map_or_else(now_rfc3339, str::to_owned),
        sessions: &stored.sessions,
        summary,
        runs: &stored.runs,
    };
    serde_json::to_writer_pretty(&mut *w, &doc)?;
    w.write_all(b"\n")
}
