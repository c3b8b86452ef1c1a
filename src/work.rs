//! `langbench work` (issue #62): each selected cell's instructions counted
//! twice by valgrind's cachegrind (two counts more than 1 % apart: no
//! count, both figures the reason), in the sandbox of a timed run and within
//! its bounds, at a small size (default N = 100,000: seconds to minutes
//! under the counter), into the results directory's `work.jsonl`. The
//! build steps run first, not counted; a cell without a count gets the
//! reason ("—" in the tables). The figure is instructions, not time: it
//! never enters the time ranking.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::bench::{Bench, Size};
use crate::cell::{Cell, Counter, Program};
use crate::config::Variant;
use crate::record::{Status, WorkRecord, now_rfc3339};
use crate::store::Store;
use langbench_spawn::{Exit, Request, Spawner};

/// A work count's size unless `--size` says otherwise.
pub const DEFAULT_N: u64 = 100_000;

/// What `work` was asked.
pub struct Options {
    pub benches: Vec<Bench>,
    pub size: Size,
    /// The results directory its records go to (`work.jsonl`).
    pub out: PathBuf,
    /// Bounds each count: its build steps and run together.
    pub timeout: Duration,
}

/// The counter as this machine has it: valgrind's version (probed in the
/// sandbox, as the counts run), the CPU model and the features glibc
/// dispatches on.
pub(crate) fn counter(spawner: &Spawner) -> Result<Counter> {
    let dir = tempfile::Builder::new()
        .prefix("langbench-work-")
        .tempdir()
        .context("a directory for valgrind's version")?;
    let mut req = Request::new(vec!["valgrind".into(), "--version".into()], dir.path());
    req.timeout = Some(Duration::from_secs(60));
    spawner.isolate(&mut req, dir.path(), false);
    let o = spawner
        .execute(&req)
        .context("cannot run valgrind (the work count needs it: apt install valgrind)")?;
    let version = o.stdout.text().trim().to_string();
    if o.done.exit != Exit::Exited(0) || !version.starts_with("valgrind-") {
        bail!(
            "valgrind --version in the sandbox ended with {}: {} (the work count needs valgrind: apt install valgrind)",
            o.done.exit,
            langbench_document::inert::text(o.stderr.text().trim())
        );
    }
    Ok(Counter {
        name: format!(
            "{} {}",
            langbench_document::inert::clip(&langbench_document::inert::text(&version), 40),
            crate::cachegrind::TOOL
        ),
        cpu: crate::machine::Machine::detect().cpu_model,
        features: crate::cachegrind::cpu_features(),
    })
}

/// A record of a cell that could not be counted (its toolchain missing,
/// its caches or `prepare` failing).
fn not_counted(
    v: &Variant,
    version: &str,
    bench: Bench,
    size: Size,
    counter: &Counter,
    reason: String,
) -> WorkRecord {
    WorkRecord {
        schema: crate::record::SCHEMA,
        finished_at: now_rfc3339(),
        variant: v.id.clone(),
        language: v.language.clone(),
        version: version.to_string(),
        bench,
        size: size.label(),
        n: size.n(bench),
        instructions: None,
        processes: None,
        reason: Some(langbench_document::inert::clip(
            &langbench_document::inert::text(&reason),
            400,
        )),
        status: Status::Failed,
        wall_s: 0.0,
        counter: counter.name.clone(),
        cpu: counter.cpu.clone(),
        cpu_features: counter.features.clone(),
        identity: None,
    }
}

/// One variant's cells counted, each record stored as it is made.
fn count_variant(
    spawner: &Spawner,
    v: &Variant,
    opts: &Options,
    counter: &Counter,
    store: &Store,
) -> Result<Vec<WorkRecord>> {
    let info = crate::toolchain::inspect(spawner, v);
    let mut out = Vec::new();
    for &bench in opts.benches.iter().filter(|b| v.programs.contains_key(b)) {
        let started = Instant::now();
        let fail = |why: String| not_counted(v, &info.version, bench, opts.size, counter, why);
        let rec = if !info.installed {
            fail(format!("not installed: {}", info.missing.join(", ")))
        } else {
            let mut program = Program::new(spawner, v, bench);
            match program
                .set_caches(&info.version, false)
                .and_then(|()| program.prepare(opts.timeout))
            {
                Err(e) => fail(e.to_string()),
                Ok(()) => Cell {
                    program,
                    info: &info,
                    size: opts.size,
                    session: "work",
                    continues: None,
                }
                .count(counter, opts.timeout)?,
            }
        };
        store.append_work(&rec)?;
        eprintln!(
            "{} {} n={}: {} ({:.1} s)",
            langbench_document::inert::text(&rec.variant),
            bench.name(),
            rec.n,
            shown(&rec),
            started.elapsed().as_secs_f64()
        );
        out.push(rec);
    }
    Ok(out)
}

/// A count as the tables show it: `1.23 G instr`, or `— (reason)`.
pub(crate) fn shown(w: &WorkRecord) -> String {
    match (w.instructions, &w.reason) {
        (Some(n), _) => langbench_document::instructions(n),
        (None, Some(r)) => format!("— ({r})"),
        (None, None) => "—".into(),
    }
}

/// `langbench work`: counts every selected cell, stores each record,
/// prints one line per cell; exit 1 when a cell has no count.
pub fn command(spawner: &Spawner, variants: &[&Variant], opts: &Options) -> Result<ExitCode> {
    if !(spawner.containment.namespaces && spawner.containment.isolate) {
        bail!(
            "work counts run only in the sandbox (a program must not reach valgrind's log): drop --no-sandbox"
        );
    }
    let counter = counter(spawner)?;
    std::fs::create_dir_all(&opts.out)
        .with_context(|| format!("cannot create {}", opts.out.display()))?;
    let store = Store::open(&opts.out)?;
    let _lock = store.lock()?;
    eprintln!(
        "counting with {} on {} ({}) at size {}",
        counter.name,
        langbench_document::inert::text(&counter.cpu),
        counter.features.join(" "),
        opts.size
    );
    let mut missing = 0;
    for v in variants {
        for rec in count_variant(spawner, v, opts, &counter, &store)? {
            missing += usize::from(rec.instructions.is_none());
        }
    }
    eprintln!(
        "work records in {}",
        opts.out.join(crate::store::WORK).display()
    );
    Ok(if missing == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
