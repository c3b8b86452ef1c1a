//! The langbench command line. Only wiring: every subcommand's work lives in
//! its module.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use langbench::bench::{Bench, Size};
use langbench::config::Languages;
use langbench::spawn::{Containment, Spawner};
use langbench::{check, list, measure, run, scaffold, toolchain, verify};

#[derive(Parser)]
#[command(
    name = "langbench",
    version,
    about = "Cross-language performance comparison: run, measure, verify, tabulate"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Run commands as before containment: process group + subreaper, no
    /// namespaces, no sandbox, no tree figures (recorded in the session).
    #[arg(long, global = true)]
    no_sandbox: bool,
    /// Kill a run whose process tree's resident memory passes this many MB
    /// (status `oom`): the run cgroup's memory.max with --cgroup and a memory
    /// controller, else sampled every 50 ms from the run's PID namespace.
    #[arg(long, global = true, value_name = "MB")]
    memory_limit: Option<u64>,
    /// A cgroup v2 directory langbench may use: one child cgroup per run
    /// (removed afterwards) measures the tree's CPU and, with the memory
    /// controller, its peak memory, the memory limit and OOM kills.
    /// Without it langbench uses its own cgroup only if that is a
    /// delegated v2 subtree, else /proc sampling (recorded either way).
    #[arg(long, global = true, value_name = "PATH")]
    cgroup: Option<PathBuf>,
}

#[derive(clap::Args)]
struct LanguagesArg {
    /// The languages file; program paths resolve relative to its directory.
    #[arg(long, default_value = "languages.toml", env = "LANGBENCH_LANGUAGES")]
    languages: PathBuf,
}

#[derive(Subcommand)]
enum Command {
    /// Run the benchmarks, verify every output, store and tabulate the results.
    Run {
        #[command(flatten)]
        languages: LanguagesArg,
        /// Variant ids to run (repeatable; default: all).
        #[arg(long = "lang", value_name = "ID")]
        lang: Vec<String>,
        /// Benchmarks to run (repeatable; default: assoc, num-comb, str-comb).
        #[arg(long = "bench", value_name = "NAME")]
        bench: Vec<Bench>,
        /// tiny, 2020 (the 2020 edition's sizes), 2021 (2021+ sizes) or N.
        #[arg(long, default_value = "2021")]
        size: Size,
        /// Runs per cell (the fastest is the cell's figure), or `auto`: at
        /// least 3, then until the runs spread no more than
        /// --noise-threshold, at most --max-runs.
        #[arg(long, default_value = "3", value_parser = parse_runs)]
        runs: RunsArg,
        /// With --runs auto: the most runs a cell gets.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(3..))]
        max_runs: u32,
        /// Run only this shard of the selected variants: K/N (machine K of N).
        #[arg(long)]
        shard: Option<langbench::shard::Shard>,
        /// Pin every measured process to these CPUs (e.g. 1 or 0-1,3).
        #[arg(long, value_parser = parse_cpus)]
        cpus: Option<CpuList>,
        #[command(flatten)]
        view: ViewArgs,
        /// Seconds before a run's process group is killed.
        #[arg(long, default_value_t = 1000.0)]
        timeout: f64,
        /// Results directory (default: results/<year>, or results/<year>-<size>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Skip cells the results directory already holds complete (after a
        /// Ctrl-C, a crash, or to finish an edition over several sittings).
        #[arg(long)]
        resume: bool,
        #[command(flatten)]
        ws: WsArgs,
    },
    /// The WebSocket echo benchmark: each ws-echo server under langbench's load client
    /// (or, with --target, a server started elsewhere).
    #[command(args_conflicts_with_subcommands = true)]
    Ws {
        #[command(subcommand)]
        action: Option<WsAction>,
        /// Drive a server langbench did not start: ws://HOST:PORT/PATH.
        #[arg(long, value_name = "URL")]
        target: Option<String>,
        /// With --target: the server's pid on this machine, for its CPU and
        /// memory (without it the server columns stay blank).
        #[arg(long, value_name = "PID", requires = "target")]
        server_pid: Option<i32>,
        /// With --target: the row's name (default: target).
        #[arg(long, default_value = "target", requires = "target")]
        name: String,
        #[command(flatten)]
        languages: LanguagesArg,
        /// Variant ids (repeatable; default: every variant with a ws-echo program).
        #[arg(long = "lang", value_name = "ID")]
        lang: Vec<String>,
        #[command(flatten)]
        ws: WsArgs,
        /// Results directory (default: results/<year>-ws).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// The load client alone against a server started elsewhere; prints one
    /// JSON report (combine several hosts' reports with `ws merge`).
    WsClient {
        /// The server: ws://HOST:PORT/PATH.
        #[arg(long, value_name = "URL")]
        target: String,
        /// The server's pid, if it runs on this machine (server CPU and memory).
        #[arg(long, value_name = "PID")]
        server_pid: Option<i32>,
        /// When phase 1 begins, the same on every host: RFC 3339, Unix
        /// seconds, or +SECONDS from now. Phase i begins at
        /// start + i·(warmup + duration).
        #[arg(long, value_name = "TIME")]
        start_at: Option<String>,
        #[command(flatten)]
        ws: WsArgs,
        /// Write the report here instead of stdout.
        #[arg(long)]
        out: Option<PathBuf>,
        /// No progress lines on stderr (when logs mix stdout and stderr,
        /// as `kubectl logs` does).
        #[arg(long)]
        quiet: bool,
    },
    /// Measure one command like /usr/bin/time: wall, user, sys, peak RSS, exit.
    Measure {
        /// Seconds before the command's process group is killed.
        #[arg(long)]
        timeout: Option<f64>,
        /// Print the measurement as JSON on stdout (the command's own output
        /// still goes to its stdout/stderr).
        #[arg(long)]
        json: bool,
        /// The command and its arguments (after `--`).
        #[arg(required = true, last = true)]
        command: Vec<String>,
    },
    /// Show every variant: installed or not, and its version (fits 100 columns).
    List {
        #[command(flatten)]
        languages: LanguagesArg,
        /// Show these variants in full (every field, install hint, note).
        ids: Vec<String>,
        /// Also how to install each variant, its benchmarks, and the notes.
        #[arg(long)]
        long: bool,
        /// Print JSON (for scripts).
        #[arg(long, conflicts_with = "long")]
        json: bool,
    },
    /// Check the languages file and run the named variants' programs (default:
    /// every installed one) at two small sizes; exit 1 on any problem.
    Check {
        #[command(flatten)]
        languages: LanguagesArg,
        /// Variant ids (default: all; not-installed ones are reported, not failed).
        ids: Vec<String>,
        /// Only the variants whose entry or program files changed since this
        /// git revision (what a pull request's CI runs).
        #[arg(long, value_name = "REV")]
        changed_since: Option<String>,
        /// Print the selected variant ids, one a line, and stop (for CI).
        #[arg(long)]
        ids_only: bool,
        /// Seconds a build + run may take.
        #[arg(long, default_value_t = 300.0)]
        timeout: f64,
    },
    /// Scaffold a new variant: its languages.toml entry and three program
    /// stubs that print the right shape and say what to implement.
    New {
        #[command(flatten)]
        languages: LanguagesArg,
        /// The variant id (lowercase letters, digits, '-' or '.').
        id: String,
        /// The language, as the tables show it.
        #[arg(long)]
        language: String,
        /// The programs' file extension (programs/<bench>/<stem>.<ext>).
        #[arg(long)]
        ext: String,
        /// The Command Flags column (default: the id).
        #[arg(long)]
        flags: Option<String>,
        /// Build command, timed with the run (e.g. "gcc -O2 -o {exe} {src}").
        #[arg(long)]
        build: Option<String>,
        /// Run command; must pass {n} (e.g. "{exe} {n}" or "python3 {src} {n}").
        #[arg(long)]
        run: String,
    },
    /// Install toolchains from the `install` tables of the languages file.
    Toolchains {
        #[command(subcommand)]
        action: ToolchainsAction,
    },
    /// Convert a published edition's CSV into a results directory (records
    /// marked as published; every derived file written).
    Import {
        #[command(flatten)]
        languages: LanguagesArg,
        /// The edition's CSV (CPU table or ws-echo table).
        file: PathBuf,
        /// The new results directory (must not hold records yet).
        #[arg(long)]
        out: PathBuf,
        /// The edition's year (names the session: published-YEAR).
        #[arg(long)]
        edition: String,
        /// The sizes its CPU benchmarks ran at: 2020 or 2021 (or N).
        #[arg(long)]
        size: Option<Size>,
        /// The machine's CPU, as the edition described it.
        #[arg(long, default_value = "not published")]
        cpu: String,
        /// The machine's CPU count, if published (0: not published).
        #[arg(long, default_value_t = 0)]
        cpus: usize,
        /// The machine's operating system, as the edition described it.
        #[arg(long, default_value = "")]
        os: String,
        /// Runs per published figure (best of N).
        #[arg(long, default_value_t = 3)]
        runs: u32,
        /// ws-echo: connections per server in that edition.
        #[arg(long, default_value_t = 10_000)]
        connections: usize,
        /// How the figures were measured, in a sentence.
        #[arg(
            long,
            default_value = "published edition, measured by hand with /usr/bin/time"
        )]
        source: String,
    },
    /// Compare two results directories (editions): old and new figures per
    /// variant and benchmark, ratio, rank and version; added and dropped.
    Compare {
        #[command(flatten)]
        languages: LanguagesArg,
        /// The older results directory (e.g. results/2021).
        old: PathBuf,
        /// The newer results directory (e.g. results/2026).
        new: PathBuf,
        /// Divide every figure by this variant's in the same edition
        /// (relative speed: for editions measured on different machines).
        #[arg(long, value_name = "VARIANT")]
        relative_to: Option<String>,
        /// What to print: terminal, markdown or csv.
        #[arg(long, default_value = "terminal")]
        format: CompareFormat,
        /// Also write compare.md, compare*.csv, compare.xlsx, compare.html
        /// and charts/ into this directory.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Combine shard directories (`run --shard K/N` on N machines) into one
    /// results directory, with every derived file.
    Merge {
        /// The new results directory.
        out: PathBuf,
        /// The shard directories.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Where two directories hold the same cell, keep this one's.
        #[arg(long)]
        prefer: Option<PathBuf>,
    },
    /// Rewrite every derived file of a results directory (tables, CSV, JSON,
    /// spreadsheet, charts, HTML report) from its stored records; runs nothing.
    Report {
        /// The results directory.
        dir: PathBuf,
        #[command(flatten)]
        view: ViewArgs,
    },
    /// Print the expected output of a benchmark at a size (langbench's own reference).
    Expected {
        bench: Bench,
        #[arg(long, default_value = "2021")]
        size: Size,
    },
}

#[derive(Subcommand)]
enum WsAction {
    /// Combine the JSON reports of several `ws-client` processes (one target,
    /// same phases, same --start-at) into one row of a results directory.
    Merge {
        /// ws-client reports.
        #[arg(required = true)]
        reports: Vec<PathBuf>,
        /// The row's name.
        #[arg(long, default_value = "target")]
        name: String,
        /// Results directory (default: results/<year>-ws).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

/// Options of the WebSocket benchmark (`ws`, and `run --bench ws-echo`).
#[derive(clap::Args)]
struct WsArgs {
    /// Concurrent WebSocket connections.
    #[arg(long, default_value_t = 10_000)]
    connections: usize,
    /// Per-loop sleeps in ms, one phase each.
    #[arg(long, value_delimiter = ',', default_value = "1000,100,10,1")]
    delays: Vec<f64>,
    /// Warm-up seconds before each measured window.
    #[arg(long, default_value_t = 2.0)]
    warmup: f64,
    /// Measured window in seconds, per phase.
    #[arg(long, default_value_t = 10.0)]
    duration: f64,
    /// At most this many handshakes in flight while connecting.
    #[arg(long, default_value_t = 256)]
    max_handshakes: usize,
    /// Seconds to wait for a server to listen.
    #[arg(long, default_value_t = 120.0)]
    startup_timeout: f64,
    /// Client and server on separate CPUs: the default (kept for old
    /// command lines).
    #[arg(long, hide = true, conflicts_with = "share_cpus")]
    pin: bool,
    /// Let client and server share every CPU (default: the client gets its
    /// own CPUs, one thread each, and the server the rest).
    #[arg(long)]
    share_cpus: bool,
    /// CPUs for the client when they are split (default: half, at least
    /// one; the server gets the rest). With --target / ws-client and no
    /// --server-pid: every CPU.
    #[arg(long, value_name = "N")]
    client_cpus: Option<usize>,
    /// Seconds a connection waits for an echo before counting it lost.
    #[arg(long, default_value_t = 10.0)]
    echo_timeout: f64,
}

impl WsArgs {
    fn options(&self, out: PathBuf) -> Result<langbench::ws::Options> {
        anyhow::ensure!(self.connections >= 1, "--connections must be at least 1");
        anyhow::ensure!(!self.delays.is_empty(), "--delays needs at least one delay");
        anyhow::ensure!(
            self.max_handshakes >= 1,
            "--max-handshakes must be at least 1"
        );
        Ok(langbench::ws::Options {
            connections: self.connections,
            delays: self
                .delays
                .iter()
                .map(|d| seconds(d / 1000.0))
                .collect::<Result<_>>()?,
            warmup: seconds(self.warmup)?,
            duration: seconds(self.duration)?,
            max_handshakes: self.max_handshakes,
            startup_timeout: seconds(self.startup_timeout)?,
            pin: !self.share_cpus,
            client_cpus: self.client_cpus,
            echo_timeout: seconds(self.echo_timeout)?,
            out,
            command_line: std::env::args().collect(),
            ..Default::default()
        })
    }
}

fn run_ws(
    spawner: &Spawner,
    variants: &[&langbench::config::Variant],
    ws: &WsArgs,
    out: &std::path::Path,
) -> Result<()> {
    let records = langbench::ws::run(spawner, variants, &ws.options(out.to_path_buf())?)?;
    let shown: Vec<&langbench::ws::WsRecord> = records.iter().collect();
    println!(
        "{}",
        langbench::export::terminal::document(&langbench::ws::report::document(&shown))
    );
    Ok(())
}

/// Says where the results are; 130 after Ctrl-C, like a shell.
fn finish(out: &std::path::Path) -> ExitCode {
    println!("Results: {}", out.display());
    if run::interrupted() {
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    }
}

/// How tables are shown (`run`, `report`).
#[derive(clap::Args)]
struct ViewArgs {
    /// Add a spread column (coefficient of variation per benchmark) to the
    /// terminal and Markdown tables (CSV, JSON and xlsx always carry it).
    #[arg(long)]
    spread: bool,
    /// Flag a cell whose runs' coefficient of variation exceeds this, in %.
    #[arg(long, default_value_t = 5.0)]
    noise_threshold: f64,
}

impl ViewArgs {
    fn view(&self) -> Result<langbench::report::View> {
        anyhow::ensure!(
            self.noise_threshold > 0.0 && self.noise_threshold < 100.0,
            "--noise-threshold is a percentage between 0 and 100, got {}",
            self.noise_threshold
        );
        Ok(langbench::report::View {
            show_spread: self.spread,
            noise_cv: self.noise_threshold / 100.0,
        })
    }
}

#[derive(Clone, Copy)]
enum RunsArg {
    Fixed(u32),
    Auto,
}

fn parse_runs(s: &str) -> Result<RunsArg, String> {
    match s {
        "auto" => Ok(RunsArg::Auto),
        _ => match s.parse::<u32>() {
            Ok(n) if n >= 1 => Ok(RunsArg::Fixed(n)),
            _ => Err(format!(
                "expected a number of runs (1 or more) or `auto`, got {s:?}"
            )),
        },
    }
}

/// A list of CPU numbers (one clap value).
#[derive(Clone)]
struct CpuList(Vec<usize>);

/// `0-1,3` -> [0, 1, 3].
fn parse_cpus(s: &str) -> Result<CpuList, String> {
    let bad = || format!("bad CPU list {s:?}: expected e.g. 1 or 0-1,3");
    let mut cpus = Vec::new();
    for part in s.split(',') {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (
                    a.trim().parse().map_err(|_| bad())?,
                    b.trim().parse().map_err(|_| bad())?,
                );
                if a > b {
                    return Err(bad());
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(part.trim().parse().map_err(|_| bad())?),
        }
    }
    let online = std::thread::available_parallelism().map_or(1, |n| n.get());
    if let Some(c) = cpus.iter().find(|&&c| c >= online) {
        return Err(format!(
            "CPU {c} is not one this process may use (0..{online})"
        ));
    }
    cpus.sort();
    cpus.dedup();
    Ok(CpuList(cpus))
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum CompareFormat {
    Terminal,
    Markdown,
    Csv,
}

#[derive(Subcommand)]
enum ToolchainsAction {
    /// Install every variant's toolchain that a registry here provides
    /// (Debian packages, npm, PyPI, Maven Central); idempotent, safe to re-run.
    Install {
        #[command(flatten)]
        languages: LanguagesArg,
        /// Only these variant ids (repeatable; default: all).
        #[arg(long = "lang", value_name = "ID")]
        lang: Vec<String>,
        /// Print the commands without running them.
        #[arg(long)]
        dry_run: bool,
    },
}

/// A timeout: more than 0 seconds (0 would kill every run at once).
fn timeout_seconds(s: f64) -> Result<Duration> {
    anyhow::ensure!(
        s > 0.0,
        "--timeout must be more than 0 seconds (got {s}); use a large value for no practical limit"
    );
    seconds(s)
}

fn default_ws_out() -> PathBuf {
    PathBuf::from("results").join(format!("{}-ws", chrono::Utc::now().format("%Y")))
}

/// The client's CPUs against a server langbench did not start: every CPU
/// (the server is elsewhere), unless it runs here (--server-pid) or
/// --client-cpus says otherwise; --share-cpus: unpinned.
fn target_cpus(ws: &WsArgs, server_pid: Option<i32>) -> Vec<usize> {
    if ws.share_cpus {
        return Vec::new();
    }
    let all = langbench::ws::drive::own_cpus();
    match (ws.client_cpus, server_pid) {
        (None, None) => all,
        (n, _) => langbench::ws::drive::split_cpus(n).1,
    }
}

fn print_ws(records: &[langbench::ws::WsRecord]) {
    let shown: Vec<&langbench::ws::WsRecord> = records.iter().collect();
    println!(
        "{}",
        langbench::export::terminal::document(&langbench::ws::report::document(&shown))
    );
}

fn seconds(s: f64) -> Result<Duration> {
    Duration::try_from_secs_f64(s)
        .with_context(|| format!("expected a non-negative number of seconds, got {s}"))
}

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args
        .get(1)
        .is_some_and(|a| a == langbench::spawn::AGENT_ARG)
    {
        langbench::spawn::agent::main(&args[2..]);
    }
    // `measure` forks its command right here, while langbench is as small
    // as a fresh agent (see `measure::fast_args`); clap reads whatever this
    // does not take (help, errors, --cgroup). A memory limit is a delegated
    // cgroup's to enforce where langbench has one: that is the agent's way.
    if let Some(m) = langbench::measure::fast_args(&args[1..])
        && (m.memory_limit_mb.is_none() || langbench::spawn::cgroup::Base::delegated().is_none())
    {
        return match langbench::measure::measure_here(m) {
            Ok(code) => ExitCode::from(code as u8),
            Err(e) => {
                eprintln!("langbench: error: {e:#}");
                ExitCode::from(2)
            }
        };
    }
    match real_main() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("langbench: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn real_main() -> Result<ExitCode> {
    let cli = Cli::parse();
    let mut containment = if cli.no_sandbox {
        Containment::none()
    } else {
        Containment::full()
    };
    containment.memory_limit_kb = cli.memory_limit.map(|mb| mb * 1024);
    if cli.no_sandbox && cli.memory_limit.is_some() {
        anyhow::bail!("--memory-limit needs containment (drop --no-sandbox)");
    }
    if cli.no_sandbox && cli.cgroup.is_some() {
        anyhow::bail!("--cgroup needs containment (drop --no-sandbox)");
    }
    containment.cgroup = match &cli.cgroup {
        Some(p) => Some(langbench::spawn::cgroup::Base::given(p)?),
        None if containment.namespaces => langbench::spawn::cgroup::Base::delegated(),
        None => None,
    };
    // No command may see the results directory it is measured into.
    if let Command::Run { out: Some(o), .. } | Command::Ws { out: Some(o), .. } = &cli.command {
        // Not created here (a bad languages file must leave no trace); it
        // exists by the time a command starts.
        containment.hide.extend(std::path::absolute(o).ok());
    }
    containment
        .hide
        .extend(std::path::Path::new("results").canonicalize().ok());
    let exe = std::env::current_exe().context("cannot locate the langbench executable")?;
    containment.fall_back_if_refused(&exe);
    let spawner = Spawner::current()?.with_containment(containment);
    match cli.command {
        Command::Run {
            languages,
            lang,
            bench,
            size,
            runs,
            max_runs,
            shard,
            cpus,
            view,
            timeout,
            out,
            resume,
            ws,
        } => {
            let langs = Languages::load(&languages.languages)?;
            let mut variants = langs.select(&lang)?;
            if let Some(s) = shard {
                variants = s.select(&variants, |v| v.id.as_str());
                eprintln!(
                    "shard {s}: {} of the selected variants: {}",
                    variants.len(),
                    variants
                        .iter()
                        .map(|v| v.id.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                );
            }
            let benches = if bench.is_empty() {
                Bench::CPU.to_vec()
            } else {
                bench
            };
            let out = out.unwrap_or_else(|| run::default_out(size));
            let view = view.view()?;
            let opts = run::Options {
                benches: benches.clone(),
                size,
                runs: match runs {
                    RunsArg::Fixed(n) => run::Runs::Fixed(n),
                    RunsArg::Auto => run::Runs::Auto {
                        cv: view.noise_cv,
                        max: max_runs,
                    },
                },
                timeout: timeout_seconds(timeout)?,
                out: out.clone(),
                command_line: std::env::args().collect(),
                resume,
                view,
                shard: shard.map(|s| s.to_string()),
                cpus: cpus.map(|c| c.0),
            };
            run::install_interrupt_handler();
            let cpu_variants: Vec<_> = variants
                .iter()
                .copied()
                .filter(|v| {
                    benches
                        .iter()
                        .any(|b| b.is_cpu() && v.programs.contains_key(b))
                })
                .collect();
            if !cpu_variants.is_empty() {
                let summary = run::run(&spawner, &cpu_variants, &opts)?;
                println!("{}", summary.terminal_text());
            }
            if benches.contains(&Bench::WsEcho) && !run::interrupted() {
                run_ws(&spawner, &variants, &ws, &out)?;
            }
            Ok(finish(&out))
        }
        Command::Ws {
            action: Some(WsAction::Merge { reports, name, out }),
            ws,
            ..
        } => {
            let out = out.unwrap_or_else(default_ws_out);
            let reports = langbench::ws::remote::read_reports(&reports)?;
            let rec = langbench::ws::remote::merge(&reports, &name, &ws.options(out.clone())?)?;
            langbench::ws::remote::store(&out, &rec)?;
            print_ws(&[rec]);
            Ok(finish(&out))
        }
        Command::Ws {
            target: Some(target),
            server_pid,
            name,
            ws,
            out,
            ..
        } => {
            let out = out.unwrap_or_else(default_ws_out);
            let opts = ws.options(out.clone())?;
            let target = langbench::ws::client::Target::parse(&target)?;
            run::install_interrupt_handler();
            let report = langbench::ws::remote::run_client(
                &target,
                &opts,
                &target_cpus(&ws, server_pid),
                server_pid,
                None,
                &|m| eprintln!("{m}"),
            )?;
            let rec = langbench::ws::remote::merge(&[report], &name, &opts)?;
            langbench::ws::remote::store(&out, &rec)?;
            print_ws(&[rec]);
            Ok(finish(&out))
        }
        Command::WsClient {
            target,
            server_pid,
            start_at,
            ws,
            out,
            quiet,
        } => {
            let opts = ws.options(PathBuf::from("."))?;
            let target = langbench::ws::client::Target::parse(&target)?;
            let start = start_at
                .as_deref()
                .map(langbench::ws::remote::parse_start)
                .transpose()?;
            run::install_interrupt_handler();
            let report = langbench::ws::remote::run_client(
                &target,
                &opts,
                &target_cpus(&ws, server_pid),
                server_pid,
                start,
                &|m| {
                    if !quiet {
                        eprintln!("{m}")
                    }
                },
            )?;
            let json = serde_json::to_string_pretty(&report)?;
            match out {
                Some(f) => std::fs::write(&f, json + "\n")
                    .with_context(|| format!("writing {}", f.display()))?,
                None => println!("{json}"),
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Ws {
            languages,
            lang,
            ws,
            out,
            ..
        } => {
            let langs = Languages::load(&languages.languages)?;
            let variants = langs.select(&lang)?;
            let out = out.unwrap_or_else(|| {
                PathBuf::from("results").join(format!("{}-ws", chrono::Utc::now().format("%Y")))
            });
            run::install_interrupt_handler();
            run_ws(&spawner, &variants, &ws, &out)?;
            Ok(finish(&out))
        }
        Command::Measure {
            timeout,
            json,
            command,
        } => {
            // Only what `measure::fast_args` leaves to clap gets here
            // (--cgroup, or a memory limit with a delegated cgroup):
            // measured through an agent, as `run` does, since clap has
            // grown this process.
            let m = measure::measure(&spawner, command, timeout.map(timeout_seconds).transpose()?)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&m)?);
            } else {
                eprintln!("{}", m.text());
            }
            Ok(ExitCode::from(m.exit_code().clamp(0, 255) as u8))
        }
        Command::List {
            languages,
            ids,
            long,
            json,
        } => {
            let langs = Languages::load(&languages.languages)?;
            let variants = langs.select(&ids)?;
            let rows = list::inspect(&spawner, &variants);
            if json {
                println!("{}", serde_json::to_string_pretty(&list::json(&rows))?);
            } else if !ids.is_empty() {
                for (v, info) in &rows {
                    print!("{}", list::detail(&langs, v, info));
                }
            } else if long {
                println!("{}", list::long(&rows));
                print!("Notes:\n{}", list::notes(&variants));
            } else {
                print!("{}", list::short(&rows));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Check {
            languages,
            ids,
            changed_since,
            ids_only,
            timeout,
        } => {
            let langs = match check::load(&languages.languages) {
                Ok(l) => l,
                Err(p) => {
                    println!("{p}");
                    println!("check: 1 problem");
                    return Ok(ExitCode::from(1));
                }
            };
            let opts = check::Options {
                ids,
                changed_since,
                timeout: seconds(timeout)?,
            };
            if ids_only {
                for id in check::selection(&langs, &opts)? {
                    println!("{id}");
                }
                return Ok(ExitCode::SUCCESS);
            }
            let report = check::check(&spawner, &langs, &opts)?;
            for p in &report.problems {
                println!("{p}");
            }
            for (id, missing, hint) in &report.not_installed {
                println!(
                    "not installed: {id} (missing {}); install: {hint}",
                    missing.join(", ")
                );
            }
            for (id, why) in &report.not_run {
                println!("not run: {id}: {why}");
            }
            for id in &report.passed {
                println!("ok: {id}");
            }
            println!(
                "check: {} problem(s); {} variant(s) right at N={}, {} not installed",
                report.problems.len(),
                report.passed.len(),
                check::SIZES.map(|n| n.to_string()).join(" and N="),
                report.not_installed.len()
            );
            Ok(if report.ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::New {
            languages,
            id,
            language,
            ext,
            flags,
            build,
            run,
        } => {
            let done = scaffold::new(
                &languages.languages,
                &scaffold::Options {
                    id: id.clone(),
                    language,
                    ext: ext.clone(),
                    flags,
                    build,
                    run,
                },
            )?;
            println!(
                "Added to {}:{}",
                languages.languages.display(),
                done.entry.trim_end()
            );
            for p in &done.written {
                println!("wrote stub {}", p.display());
            }
            for p in &done.kept {
                println!("kept existing {}", p.display());
            }
            if done.no_stub_for_ext {
                println!(
                    "no stub template for .{ext} (templates: {}): write the programs above yourself",
                    scaffold::known_exts()
                );
            }
            println!(
                "Next: add install = {{ apt = [...] }} (or npm, pip, hint) to the entry, implement the programs (the TODO(langbench) lines say what), then `langbench check {id}`."
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Toolchains {
            action:
                ToolchainsAction::Install {
                    languages,
                    lang,
                    dry_run,
                },
        } => {
            let langs = Languages::load(&languages.languages)?;
            let variants = langs.select(&lang)?;
            let results = toolchain::install(&variants, dry_run);
            let mut failed = 0;
            for (r, v) in results.iter().zip(&variants) {
                match &r.outcome {
                    Ok(what) => eprintln!("ok      {:<28} {what}", r.id),
                    // Expected: no registry here has it; `list` shows the hint.
                    Err(e) if !v.install.is_installable() => eprintln!("n/a     {:<28} {e}", r.id),
                    Err(e) => {
                        failed += 1;
                        eprintln!("FAILED  {:<28} {e}", r.id)
                    }
                }
            }
            let ok = results.iter().filter(|r| r.outcome.is_ok()).count();
            eprintln!(
                "{ok} of {} variants' toolchains installed, {failed} failed, {} not provided by any registry here; `langbench list` shows what is on PATH",
                results.len(),
                results.len() - ok - failed
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Import {
            languages,
            file,
            out,
            edition,
            size,
            cpu,
            cpus,
            os,
            runs,
            connections,
            source,
        } => {
            let langs = Languages::load(&languages.languages)?;
            let opts = langbench::import::Options {
                file,
                out: out.clone(),
                edition,
                size,
                cpu,
                cpus,
                os,
                runs,
                connections,
                source,
                command_line: std::env::args().collect(),
            };
            let done = langbench::import::import(&langs, &opts)?;
            for w in &done.warnings {
                eprintln!("warning: {w}");
            }
            for (row, id) in &done.matched {
                eprintln!("matched   {row} -> {id}");
            }
            for id in &done.unmatched {
                eprintln!("no variant {id} (kept under this id)");
            }
            println!(
                "Imported {} records into {} ({} rows matched to variants, {} without one)",
                done.records,
                out.display(),
                done.matched.len(),
                done.unmatched.len()
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Compare {
            languages,
            old,
            new,
            relative_to,
            format,
            out,
        } => {
            use langbench::export::Exporter;
            let langs = Languages::load(&languages.languages)?;
            let doc = langbench::compare::compare(
                &langs,
                &langbench::compare::Edition::load(&old)?,
                &langbench::compare::Edition::load(&new)?,
                &langbench::compare::Options { relative_to },
            )?;
            match format {
                CompareFormat::Terminal => {
                    print!("{}", langbench::export::terminal::document(&doc))
                }
                CompareFormat::Markdown => print!(
                    "{}",
                    String::from_utf8_lossy(&langbench::export::markdown::Markdown.render(&doc)?)
                ),
                CompareFormat::Csv => print!(
                    "{}",
                    String::from_utf8_lossy(&langbench::export::csv::Csv.render(&doc)?)
                ),
            }
            if let Some(out) = out {
                langbench::export::write_comparison(&out, &doc)?;
                eprintln!("Wrote the comparison to {}", out.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Merge { out, dirs, prefer } => {
            let m = langbench::merge::merge(&out, &dirs, prefer.as_deref())?;
            for w in &m.warnings {
                eprintln!("warning: {w}");
            }
            for o in &m.overridden {
                eprintln!("preferred {o}");
            }
            if m.machines > 1 {
                eprintln!(
                    "warning: the shards ran on {} different machines: the table flags it (Machine column)",
                    m.machines
                );
            }
            println!(
                "Merged {} sessions, {} runs and {} ws records into {}",
                m.sessions,
                m.runs,
                m.ws,
                out.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Report { dir, view } => {
            let derived = langbench::export::rewrite(&dir, view.view()?)?;
            print!("{}", langbench::export::terminal::document(&derived.report));
            for w in &derived.warnings {
                eprintln!("warning: {w}");
            }
            println!("Rewrote the derived files of {}", dir.display());
            Ok(ExitCode::SUCCESS)
        }
        Command::Expected { bench, size } => {
            let out = verify::expected(bench, size.n(bench))
                .with_context(|| format!("{bench} has no expected output"))?;
            print!("{out}");
            Ok(ExitCode::SUCCESS)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use langbench::measure::{FastArgs, fast_args};

    /// What clap makes of a `measure` command line, in `FastArgs` terms.
    fn clap_reads(line: &[&str]) -> Option<FastArgs> {
        let cli =
            Cli::try_parse_from(std::iter::once("langbench").chain(line.iter().copied())).ok()?;
        let Command::Measure {
            timeout,
            json,
            command,
        } = cli.command
        else {
            return None;
        };
        let timeout = match timeout.map(timeout_seconds) {
            Some(Ok(t)) => Some(t),
            Some(Err(_)) => return None,
            None => None,
        };
        if cli.no_sandbox && cli.memory_limit.is_some() || cli.cgroup.is_some() {
            return None;
        }
        Some(FastArgs {
            json,
            timeout,
            no_sandbox: cli.no_sandbox,
            memory_limit_mb: cli.memory_limit,
            command,
        })
    }

    /// `measure`'s hand-written reader takes every command line clap takes,
    /// reads it alike, and leaves every other one to clap.
    #[test]
    fn the_fast_measure_reader_agrees_with_clap() {
        let lines: &[&[&str]] = &[
            &["measure", "--", "true"],
            &["measure", "--json", "--", "sh", "-c", "exit 3"],
            &["measure", "--timeout", "0.5", "--", "sleep", "30"],
            &["measure", "--timeout=2", "--json", "--", "a", "--json"],
            &["--no-sandbox", "measure", "--", "true"],
            &["measure", "--no-sandbox", "--json", "--", "true"],
            &["--memory-limit", "100", "measure", "--", "x"],
            &["measure", "--memory-limit=100", "--", "x", "--", "y"],
            // Every one of these is clap's to read (and refuse, or help).
            &["measure", "--", "--no-sandbox"],
            &["measure"],
            &["measure", "--"],
            &["measure", "true"],
            &["measure", "--help"],
            &["measure", "-h", "--", "true"],
            &["--json", "measure", "--", "true"],
            &["--timeout", "1", "measure", "--", "true"],
            &["measure", "--timeout", "0", "--", "true"],
            &["measure", "--timeout", "-1", "--", "true"],
            &["measure", "--timeout", "nan", "--", "true"],
            &["measure", "--timeout", "inf", "--", "true"],
            &["measure", "--timeout", "--", "true"],
            &["measure", "--timeout", "1", "--timeout", "2", "--", "true"],
            &["measure", "--json", "--json", "--", "true"],
            &["measure", "--json=true", "--", "true"],
            &["measure", "--memory-limit", "x", "--", "true"],
            &["--cgroup", "/sys/fs/cgroup/x", "measure", "--", "true"],
            &["measure", "--cgroup=/sys/fs/cgroup/x", "--", "true"],
            &[
                "--no-sandbox",
                "--memory-limit",
                "5",
                "measure",
                "--",
                "true",
            ],
            &["measure", "measure", "--", "true"],
            &["run", "--", "true"],
            &["list"],
            &["--version"],
        ];
        for line in lines {
            let args: Vec<std::ffi::OsString> = line.iter().map(|s| s.into()).collect();
            assert_eq!(fast_args(&args), clap_reads(line), "{line:?}");
        }
    }
}
