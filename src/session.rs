//! The start of a measuring session (`run`, `ws`): its id, every variant's
//! toolchain and version, how quiet the machine is, and the session record
//! (with the machine) appended to the store before the first run.

use anyhow::{Result, bail};
use indicatif::ProgressBar;

use crate::config::Variant;
use crate::machine::Machine;
use crate::noise::Runs;
use crate::progress::say;
use crate::record::{Origin, SCHEMA, SessionRecord, VariantInfo, now_rfc3339};
use crate::signals::interrupted;
use crate::store::Store;
use crate::toolchain;
use langbench_spawn::Spawner;

/// What a session record says about how it ran.
pub(crate) struct SessionParams<'a> {
    pub size: String,
    pub runs: Runs,
    pub timeout_s: f64,
    pub command_line: &'a [String],
    /// Appended to the session id (e.g. "-ws").
    pub suffix: &'a str,
    pub shard: Option<String>,
    pub cpus: Option<Vec<usize>>,
    /// Rounds and references (issue #39); `None`: cells one after another.
    pub schedule: Option<crate::record::Schedule>,
}

/// Starts a session: checks every variant's toolchain and version and
/// appends the session record (with the machine) to the store.
pub(crate) fn begin_session(
    store: &Store,
    spawner: &Spawner,
    variants: &[&Variant],
    pb: &ProgressBar,
    params: SessionParams,
) -> Result<(String, Vec<VariantInfo>)> {
    let session = crate::record::new_session_id(params.suffix);
    let infos = inspect_toolchains(spawner, variants, pb)?;
    let (runs, runs_auto_cv) = params.runs.stored();
    crate::progress::message(pb, "checking how quiet the machine is");
    let hygiene = crate::hygiene::check();
    for w in &hygiene.warnings {
        say(pb, langbench_document::export::terminal::warning(w));
    }
    let sources = hygiene.noise_sources();
    if !sources.is_empty() {
        let line = format!(
            "this host may add noise however quiet it is (`langbench system show` says why): {}",
            sources.join("; ")
        );
        say(pb, langbench_document::export::terminal::warning(&line));
    }
    store.append_session(&SessionRecord {
        schema: SCHEMA,
        session: session.clone(),
        started_at: now_rfc3339(),
        langbench_version: crate::record::langbench_version(),
        command_line: params.command_line.to_vec(),
        size: params.size,
        runs,
        timeout_s: params.timeout_s,
        machine: Machine::detect(),
        variants: infos.clone(),
        origin: Origin::Measured,
        source: None,
        shard: params.shard,
        cpus: params.cpus,
        runs_auto_cv,
        hygiene: Some(hygiene),
        containment: Some(spawner.containment.describe()),
        tree_measure: Some(spawner.containment.tree_measure().to_string()),
        schedule: params.schedule,
    })?;
    Ok((session, infos))
}

/// Every variant's toolchain: installed or what is missing, and its
/// version (probed a few at a time, see [`toolchain::inspect_all`]).
fn inspect_toolchains(
    spawner: &Spawner,
    variants: &[&Variant],
    pb: &ProgressBar,
) -> Result<Vec<VariantInfo>> {
    crate::progress::message(pb, &format!("versions of {} toolchains", variants.len()));
    let done = |n: usize, of: usize| {
        crate::progress::message(pb, &format!("versions: {n} of {of} toolchains"))
    };
    // Ctrl-C here ends the session before it starts (a probe takes up to
    // its timeout, 85 of them add up).
    match toolchain::inspect_all(spawner, variants, &done) {
        Some(infos) if !interrupted() => Ok(infos),
        _ => bail!("interrupted while checking toolchain versions; nothing was run"),
    }
}
