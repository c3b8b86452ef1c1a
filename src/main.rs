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
use langbench::{list, measure, run, toolchain, verify};

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
    /// (status `oom`); sampled every 50 ms from the run's PID namespace.
    #[arg(long, global = true, value_name = "MB")]
    memory_limit: Option<u64>,
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
        /// Runs per cell; the fastest is the cell's figure.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
        runs: u32,
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
    /// The WebSocket echo benchmark: each ws-echo server under langbench's load client.
    Ws {
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
    /// Show every variant: installed or not, version, how to install.
    List {
        #[command(flatten)]
        languages: LanguagesArg,
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
    /// Rewrite every derived file of a results directory (tables, CSV, JSON,
    /// spreadsheet, charts, HTML report) from its stored records; runs nothing.
    Report {
        /// The results directory.
        dir: PathBuf,
    },
    /// Print the expected output of a benchmark at a size (langbench's own reference).
    Expected {
        bench: Bench,
        #[arg(long, default_value = "2021")]
        size: Size,
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
    /// Put the server and the client on separate CPUs.
    #[arg(long)]
    pin: bool,
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
            pin: self.pin,
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

#[derive(Clone, Copy, clap::ValueEnum)]
enum CompareFormat {
    Terminal,
    Markdown,
    Csv,
}

#[derive(Subcommand)]
enum ToolchainsAction {
    /// Install every variant's toolchain that a registry here provides
    /// (Debian packages, npm, PyPI); idempotent, safe to re-run.
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
    // No command may see the results directory it is measured into.
    if let Command::Run { out: Some(o), .. } | Command::Ws { out: Some(o), .. } = &cli.command {
        // Not created here (a bad languages file must leave no trace); it
        // exists by the time a command starts.
        containment.hide.extend(std::path::absolute(o).ok());
    }
    containment
        .hide
        .extend(std::path::Path::new("results").canonicalize().ok());
    let spawner = Spawner::current()?.with_containment(containment);
    match cli.command {
        Command::Run {
            languages,
            lang,
            bench,
            size,
            runs,
            timeout,
            out,
            resume,
            ws,
        } => {
            let langs = Languages::load(&languages.languages)?;
            let variants = langs.select(&lang)?;
            let benches = if bench.is_empty() {
                Bench::CPU.to_vec()
            } else {
                bench
            };
            let out = out.unwrap_or_else(|| run::default_out(size));
            let opts = run::Options {
                benches: benches.clone(),
                size,
                runs,
                timeout: seconds(timeout)?,
                out: out.clone(),
                command_line: std::env::args().collect(),
                resume,
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
            languages,
            lang,
            ws,
            out,
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
            let m = measure::measure(&spawner, command, timeout.map(seconds).transpose()?)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&m)?);
            } else {
                eprintln!("{}", m.text());
            }
            Ok(ExitCode::from(m.exit_code().clamp(0, 255) as u8))
        }
        Command::List { languages } => {
            let langs = Languages::load(&languages.languages)?;
            println!("{}", list::table(&spawner, &langs));
            print!("Notes:\n{}", list::notes(&langs));
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
        Command::Report { dir } => {
            let derived = langbench::export::rewrite(&dir)?;
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
