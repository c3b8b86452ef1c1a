//! Everything in one JSON document: sessions (with machine details and
//! versions), the summary table and every run.

use anyhow::Result;
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
    runs: &'a [RunRecord],
}

pub fn results(stored: &Stored, summary: &Summary) -> Result<Vec<u8>> {
    let doc = Results {
        schema: SCHEMA,
        generated_at: now_rfc3339(),
        sessions: &stored.sessions,
        summary,
        runs: &stored.runs,
    };
    let mut out = serde_json::to_vec_pretty(&doc)?;
    out.push(b'\n');
    Ok(out)
}
