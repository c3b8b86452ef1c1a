//! The command line: clap's definition of every subcommand and option, and
//! the conversions from them to what the modules take (`suite::Options`,
//! `ws::Options`, the contained [`Spawner`], ...). No command's work is
//! done here: `main` parses, then hands each subcommand to its module's
//! `command` function (or `<name>_command`), which does the work and
//! prints what it did.

// The doc comments on clap's fields are the `--help` text, where
// `results/<year>` is a placeholder, not an HTML tag.
#![allow(rustdoc::invalid_html_tags)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use crate::bench::{Bench, Size};
use crate::config::{Languages, Variant};
use crate::{check, compare, import, scaffold, suite, summary, ws};
use langbench_spawn::{Containment, Spawner};

#[derive(Parser)]
#[command(
    name = "langbench",
    version,
    about = "Cross-language performance comparison: run, measure, verify, tabulate"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Run commands as before containment: process group + subreaper, no
    /// namespaces, no sandbox, no tree figures (recorded in the session).
    #[arg(long, global = true, help_heading = "Containment")]
    pub no_sandbox: bool,
    /// Kill a run whose process tree's resident memory passes this many MB
    /// (status `oom`): the run cgroup's memory.max with --cgroup and a memory
    /// controller, else sampled every 50 ms from the run's PID namespace.
    #[arg(long, global = true, value_name = "MB", help_heading = "Containment")]
    pub memory_limit: Option<u64>,
    /// A cgroup v2 directory langbench may use: one child cgroup per run
    /// (removed afterwards) measures the tree's CPU and, with the memory
    /// controller, its peak memory, the memory limit and OOM kills.
    /// Without it langbench uses its own cgroup only if that is a
    /// delegated v2 subtree, else /proc sampling (recorded either way).
    #[arg(long, global = true, value_name = "PATH", help_heading = "Containment")]
    pub cgroup: Option<PathBuf>,
    /// Kill a sandboxed run that writes more than this many MB to the
    /// host's disk (its build directory, caches and prepared copy: what it
    /// changed there, counted when their filesystem's free space drops by
    /// as much, so other processes' writes never count), status `failed`
    /// with a note; a prepared copy past it fails its cell.
    #[arg(long, global = true, value_name = "MB", default_value_t = 4096)]
    pub disk_limit: u64,
    /// The files (and directories: inodes) a sandboxed run may create on
    /// the host's disk, and a variant's caches or prepared copy may hold:
    /// a run past it is killed, caches or a copy past it fail the run,
    /// saying so; 0: no bound.
    #[arg(long, global = true, value_name = "N", default_value_t = langbench_spawn::DEFAULT_FILES)]
    pub file_limit: u64,
    /// What a variant's toolchain caches (its `caches` directories, kept
    /// between runs) may hold, MB; a run that leaves them past it fails,
    /// saying so (`toolchains clear-caches ID` empties them). Default: the
    /// --disk-limit.
    #[arg(long, global = true, value_name = "MB")]
    pub cache_limit: Option<u64>,
    /// The processes and threads a sandboxed run may have at once
    /// (RLIMIT_NPROC of its user); a run that reaches it is flagged.
    #[arg(long, global = true, value_name = "N", default_value_t = 4096)]
    pub max_processes: u64,
    /// The size of a sandboxed run's private /tmp and of its /dev/shm, MB
    /// each; what they hold counts as the tree's memory (and toward
    /// --memory-limit, which bounds them too when it is smaller).
    #[arg(long, global = true, value_name = "MB", default_value_t = 2048)]
    pub tmpfs_size: u64,
}

impl Cli {
    /// The spawner every command runs through, contained as the global
    /// options say: a given or delegated cgroup, the memory limit, the
    /// results directories and the checkout's git directory hidden from
    /// every command. A command that runs anything fails closed where the
    /// kernel refuses the sandbox (`Containment::require`: the missing
    /// privilege and what to do), unless `--no-sandbox` was given.
    pub fn spawner(&self) -> Result<Spawner> {
        let mut containment = if self.no_sandbox {
            Containment::none()
        } else {
            Containment::full()
        };
        containment.memory_limit_kb = self.memory_limit.map(|mb| mb * 1024);
        let l = &mut containment.limits;
        l.disk_kb = self.disk_limit * 1024;
        l.cache_kb = self.cache_limit.unwrap_or(self.disk_limit) * 1024;
        l.files = self.file_limit;
        l.max_procs = self.max_processes;
        // A tmpfs past the memory limit could only hold what the limit
        // kills anyway (a little more, so the sampler sees it first).
        l.tmpfs_kb = self.tmpfs_size * 1024;
        if let Some(mb) = self.memory_limit {
            l.tmpfs_kb = l.tmpfs_kb.min(mb * 1024 + 64 * 1024);
        }
        if self.no_sandbox && self.memory_limit.is_some() {
            anyhow::bail!("--memory-limit needs containment (drop --no-sandbox)");
        }
        if self.no_sandbox && self.cgroup.is_some() {
            anyhow::bail!("--cgroup needs containment (drop --no-sandbox)");
        }
        containment.cgroup = match &self.cgroup {
            Some(p) => Some(langbench_spawn::cgroup::Base::given(p)?),
            None if containment.namespaces => langbench_spawn::cgroup::Base::delegated(),
            None => None,
        };
        // No command may see the results directory it is measured into.
        if let Command::Run(RunArgs { out: Some(o), .. })
        | Command::Ws(WsCommandArgs { out: Some(o), .. })
        | Command::Work(WorkArgs { out: o, .. }) = &self.command
        {
            // Not created here (a bad languages file must leave no trace); it
            // exists by the time a command starts.
            containment.hide.extend(std::path::absolute(o).ok());
        }
        // The default results directory, existing or not yet (a first
        // run in a fresh checkout creates it before any command starts).
        containment.hide.extend(std::path::absolute("results").ok());
        // The checkout the languages file is in: its git directory holds
        // what no command may read (`actions/checkout` leaves CI's token
        // in .git/config).
        if let Some(file) = self.command.languages_file() {
            containment.hide.extend(git_dirs(file));
        }
        // langbench's state (every variant's caches and prepared copies):
        // a command sees only its own.
        containment.masks.push(crate::state::root());
        if self.command.runs_commands() {
            let exe = std::env::current_exe().context("cannot locate the langbench executable")?;
            containment.require(&exe)?;
        }
        Ok(Spawner::current()?.with_containment(containment))
    }
}

impl Command {
    /// Whether this command runs anything through the spawner (a variant's
    /// commands, its version probe, a Maven setup, a measured command):
    /// those fail closed where the sandbox is refused. The others (merge,
    /// report, compare, `run --plan`, ...) only read and write files, and
    /// work anywhere.
    pub(crate) fn runs_commands(&self) -> bool {
        match self {
            Command::Run(a) => !a.plan,
            Command::Ws(a) => a.action.is_none() && a.target.is_none(),
            Command::Measure(_) | Command::List(_) | Command::Check(_) => true,
            Command::Reproduce(_) | Command::Work(_) => true,
            Command::Toolchains {
                action: ToolchainsAction::Install(a),
            } => !a.dry_run,
            _ => false,
        }
    }

    /// The languages file of a command that runs its variants' commands.
    pub(crate) fn languages_file(&self) -> Option<&Path> {
        let arg = match self {
            Command::Run(a) => &a.languages,
            Command::Ws(a) => &a.languages,
            Command::List(a) => &a.languages,
            Command::Check(a) => &a.languages,
            Command::Reproduce(a) => &a.languages,
            Command::Work(a) => &a.languages,
            Command::Toolchains {
                action: ToolchainsAction::Install(a),
            } => &a.languages,
            _ => return None,
        };
        Some(&arg.languages)
    }
}

/// The git directories of the checkout `languages` lies in, which no
/// sandboxed command may read: the nearest `.git` above the file's
/// directory and, where that is a file (a worktree, a submodule), the
/// directory it names and that one's common directory. None outside a
/// checkout.
fn git_dirs(languages: &Path) -> Vec<PathBuf> {
    let Some(start) = std::path::absolute(languages)
        .ok()
        .and_then(|f| f.parent().map(Path::to_path_buf))
    else {
        return Vec::new();
    };
    let Some(dot_git) = start
        .ancestors()
        .map(|d| d.join(".git"))
        .find(|g| g.symlink_metadata().is_ok())
    else {
        return Vec::new();
    };
    let mut dirs = vec![dot_git.clone()];
    if dot_git.is_file() {
        let named = std::fs::read_to_string(&dot_git).ok().and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("gitdir:").map(|g| g.trim().to_string()))
        });
        if let (Some(named), Some(top)) = (named, dot_git.parent()) {
            let gitdir = top.join(named);
            let gitdir = std::fs::canonicalize(&gitdir).unwrap_or(gitdir);
            if let Ok(common) = std::fs::read_to_string(gitdir.join("commondir")) {
                let common = gitdir.join(common.trim());
                dirs.push(std::fs::canonicalize(&common).unwrap_or(common));
            }
            dirs.push(gitdir);
        }
    }
    dirs
}

#[derive(clap::Args)]
pub struct LanguagesArg {
    /// The languages file; program paths resolve relative to its directory.
    #[arg(long, default_value = "languages.toml", env = "LANGBENCH_LANGUAGES")]
    pub languages: PathBuf,
}

impl LanguagesArg {
    /// The languages file; one that does not exist says how to name
    /// another (outside a checkout, the default is not there).
    pub fn load(&self) -> Result<Languages> {
        let path = &self.languages;
        if !path.exists() {
            let here = std::env::current_dir()
                .map(|d| format!(" in {}", d.display()))
                .unwrap_or_default();
            let from_env = std::env::var_os("LANGBENCH_LANGUAGES").is_some();
            let what = if from_env {
                format!("{} (from LANGBENCH_LANGUAGES)", path.display())
            } else if path.is_relative() {
                format!("{}{here}", path.display())
            } else {
                path.display().to_string()
            };
            anyhow::bail!(
                "the languages file {what} does not exist: run langbench from a langbench \
                 checkout (languages.toml is at its top), or name the file with \
                 --languages FILE or the LANGBENCH_LANGUAGES environment variable"
            );
        }
        Languages::load(path)
    }
}

#[derive(Subcommand)]
pub enum Command {
    /// Run the benchmarks, verify every output, store and tabulate the results.
    Run(RunArgs),
    /// The WebSocket echo benchmark: each ws-echo server under langbench's load client
    /// (or, with --target, a server started elsewhere).
    #[command(args_conflicts_with_subcommands = true)]
    Ws(WsCommandArgs),
    /// The load client alone against a server started elsewhere; prints one
    /// JSON report (combine several hosts' reports with `ws merge`).
    WsClient(WsClientArgs),
    /// Measure one command like /usr/bin/time: wall, user, sys, peak RSS, exit.
    Measure(MeasureArgs),
    /// Show every variant: installed or not, and its version (fits 100 columns).
    List(ListArgs),
    /// Check the languages file and run the named variants' programs (default:
    /// every installed one) at two small sizes; exit 1 on any problem.
    Check(CheckArgs),
    /// Scaffold a new variant: its languages.toml entry and three program
    /// stubs that print the right shape and say what to implement.
    New(NewArgs),
    /// Install toolchains from the `install` tables of the languages file.
    Toolchains {
        #[command(subcommand)]
        action: ToolchainsAction,
    },
    /// Convert a published edition's CSV into a results directory (records
    /// marked as published; every derived file written).
    Import(ImportArgs),
    /// Compare two results directories (editions): old and new figures per
    /// variant and benchmark, ratio, rank and version; added and dropped.
    Compare(CompareArgs),
    /// Each variant's speed edition by edition (e.g. results/2020 results/2021
    /// results/2026 --relative-to c-tcc): one table and chart, other sizes
    /// and machines flagged.
    History(HistoryArgs),
    /// Combine shard directories (`run --shard K/N` on N machines) into one
    /// results directory, with every derived file.
    Merge(MergeArgs),
    /// Re-measure a random sample of an edition's installed variants (in
    /// rounds, with references, at its sizes) and say how well its ratios
    /// reproduce: per row the edition's ratio, the re-measured one, the
    /// difference, and the share within 5 %.
    Reproduce(ReproduceArgs),
    /// Count each cell's instructions once with valgrind's cachegrind, in
    /// the sandbox of a timed run, at a small size (default N = 100000),
    /// into the results directory's work.jsonl: instructions, not time
    /// (portable across x86-64 machines, blind to caches, memory, branch
    /// prediction and SIMD width); a cell without a count gets the reason.
    Work(WorkArgs),
    /// Rewrite every derived file of results directories (tables, CSV, JSON,
    /// spreadsheet, charts, HTML report) from their stored records, and
    /// rebuild the comparisons built from them whose inputs changed; runs
    /// nothing. --check: fail on any derived file that no longer matches.
    Report(ReportArgs),
    /// Print the expected output of a benchmark at a size (langbench's own reference).
    Expected(ExpectedArgs),
    /// What makes this machine noisy (`system show`, read only) and the
    /// memory probe (`system probe`).
    System {
        #[command(subcommand)]
        action: SystemAction,
    },
}

#[derive(Subcommand)]
pub enum SystemAction {
    /// Report what may make measurements on this machine noisy, each with a
    /// verdict (ok, may add noise, unknown) and why: virtual machine and
    /// hypervisor, CPU and microcode, governor, steal, load, memory, swap,
    /// transparent huge pages, free page reporting, DAMON, KSM. Read only:
    /// changes nothing.
    Show(SystemShowArgs),
    /// Touch fresh memory (one byte per page of an anonymous mapping,
    /// then freed) and report its rate: what `run` measures before its
    /// memory-heavy runs.
    Probe(SystemProbeArgs),
}

/// `langbench system show`.
#[derive(clap::Args)]
pub struct SystemShowArgs {
    /// text or json.
    #[arg(long, default_value = "text")]
    pub format: crate::system::Format,
}

/// `langbench system probe`.
#[derive(clap::Args)]
pub struct SystemProbeArgs {
    /// MiB each probe touches.
    #[arg(long, default_value_t = crate::mem_probe::PROBE_MIB)]
    pub mib: u64,
    /// How many probes, one after another.
    #[arg(long, default_value_t = 1)]
    pub count: u32,
    /// Seconds to wait before each probe.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
    pub pause: f64,
    /// Before each probe (after the pause), touch and free this many MiB.
    #[arg(long, value_name = "MIB")]
    pub warm_mib: Option<u64>,
    /// text or json.
    #[arg(long, default_value = "text")]
    pub format: crate::system::Format,
}

impl SystemProbeArgs {
    pub fn options(&self) -> Result<crate::system::ProbeOptions> {
        Ok(crate::system::ProbeOptions {
            mib: self.mib,
            count: self.count,
            pause: seconds(self.pause)?,
            warm_mib: self.warm_mib,
            format: self.format,
        })
    }
}

/// `langbench run`.
#[derive(clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub languages: LanguagesArg,
    /// Variant ids to run (repeatable; default: all).
    #[arg(long = "lang", value_name = "ID", help_heading = CPU)]
    pub lang: Vec<String>,
    /// Benchmarks to run (repeatable; default: assoc, num-comb, str-comb;
    /// ws-echo: the WebSocket servers, after them).
    #[arg(long = "bench", value_name = "NAME", value_parser = parse_bench, help_heading = CPU)]
    pub bench: Vec<Bench>,
    /// tiny, 2020 (the 2020 edition's sizes), 2021 (2021+ sizes) or N.
    #[arg(long, default_value = "2021", help_heading = CPU)]
    pub size: Size,
    /// Results directory (default: results/<year>, or results/<year>-<size>).
    #[arg(long, help_heading = CPU)]
    pub out: Option<PathBuf>,
    /// Skip cells the results directory already holds complete and carry
    /// on after the finished runs of a cell cut short (after a Ctrl-C, a
    /// crash, or to finish an edition over several sittings).
    #[arg(long, help_heading = CPU)]
    pub resume: bool,
    /// Print what would run (per shard its variants, cells and estimated
    /// time, and the total) and stop: nothing runs.
    #[arg(long, help_heading = CPU)]
    pub plan: bool,
    /// With --plan: print it as JSON.
    #[arg(long, requires = "plan", help_heading = CPU)]
    pub json: bool,
    /// Start every run from empty toolchain caches (measure builds from
    /// scratch). By default each variant keeps its caches between runs and
    /// sessions, so its first run may be cold and the next ones warm, as a
    /// person's are (`toolchains clear-caches` empties them).
    #[arg(long, help_heading = MEASUREMENT)]
    pub cold_caches: bool,
    /// Every column of the final table, however wide (default: a compact
    /// table where the full one would not fit the terminal).
    #[arg(long, help_heading = CPU)]
    pub wide: bool,
    /// Run only this shard of the selected variants: K/N (machine K of N),
    /// balanced by the cells' expected time (see --balance-from).
    #[arg(long, help_heading = CPU)]
    pub shard: Option<crate::shard::Shard>,
    /// A results directory (e.g. the previous edition, results/2026) whose
    /// records estimate each cell's time: shards are balanced by it (the
    /// same on every machine), and --plan and the progress line's time
    /// left use it where --out has no figure. Default: --out's records.
    #[arg(long, value_name = "DIR", help_heading = CPU)]
    pub balance_from: Option<PathBuf>,
    /// Runs per cell (the fastest is the cell's figure), or `auto`: at
    /// least 3 (a run on cold toolchain caches followed by warm ones does
    /// not count), then until the runs spread no more than
    /// --noise-threshold, at most --max-runs.
    #[arg(long, default_value = "3", value_parser = parse_runs, help_heading = MEASUREMENT)]
    pub runs: RunsArg,
    /// With --runs auto: the most runs a cell gets.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(i64::from(crate::noise::Runs::AUTO_MIN)..), help_heading = MEASUREMENT)]
    pub max_runs: u32,
    /// Seconds before a run's process group is killed.
    #[arg(long, default_value_t = 1000.0, help_heading = MEASUREMENT)]
    pub timeout: f64,
    /// Each cell's runs one after another, no reference passes (by default
    /// run 1 of every cell, then run 2, ..., each round in a shuffled
    /// order, the reference set measured in every block).
    #[arg(long, conflicts_with_all = ["seed", "references", "no_references", "block_minutes", "wait_quiet"], help_heading = MEASUREMENT)]
    pub in_a_row: bool,
    /// The seed of the rounds' shuffled order (default: from the clock;
    /// recorded in the session either way).
    #[arg(long, help_heading = MEASUREMENT)]
    pub seed: Option<u64>,
    /// The reference set measured in every block (repeatable; default:
    /// `[edition] references` of the languages file, c-gcc and c-tcc).
    #[arg(long = "references", value_name = "ID", conflicts_with = "no_references", help_heading = MEASUREMENT)]
    pub references: Vec<String>,
    /// No reference passes: figures are then judged in seconds only (not
    /// against the host's speed around them).
    #[arg(long, help_heading = MEASUREMENT)]
    pub no_references: bool,
    /// Minutes of measuring between two reference passes.
    #[arg(long, default_value_t = crate::reference::DEFAULT_BLOCK_S / 60.0, help_heading = MEASUREMENT)]
    pub block_minutes: f64,
    /// Before each reference pass, wait up to this many minutes for the
    /// host to be otherwise idle (under 10 % of its CPU time busy over 5
    /// seconds), instead of a shell loop around langbench.
    #[arg(long, value_name = "MINUTES", help_heading = MEASUREMENT)]
    pub wait_quiet: Option<f64>,
    /// Pin every measured process to these CPUs (e.g. 1 or 0-1,3).
    #[arg(long, value_parser = parse_cpus, help_heading = MEASUREMENT)]
    pub cpus: Option<CpuList>,
    #[command(flatten)]
    pub view: ViewArgs,
    #[command(flatten)]
    pub ws: WsArgs,
}

/// `run --help`'s headings.
const CPU: &str = "CPU benchmarks";
const MEASUREMENT: &str = "Measurement";
const TABLES: &str = "Tables";
const WS_ECHO: &str = "ws-echo (--bench ws-echo, ws, ws-client)";

impl RunArgs {
    /// The selected variants (all of them: `--shard` picks this machine's
    /// part when the run starts, by the records).
    pub fn variants<'a>(&self, langs: &'a Languages) -> Result<Vec<&'a Variant>> {
        langs.select(&self.lang)
    }

    /// In rounds (unless `--in-a-row`): the seed, the reference set
    /// (`--references`, else the languages file's; none with
    /// `--no-references`), the block's length.
    fn rounds(&self, langs: &Languages) -> Result<Option<suite::RoundsOptions>> {
        if self.in_a_row {
            return Ok(None);
        }
        anyhow::ensure!(
            self.block_minutes.is_finite() && self.block_minutes > 0.0,
            "--block-minutes takes a number of minutes above 0, got {}",
            self.block_minutes
        );
        let wait_quiet = match self.wait_quiet {
            None => None,
            Some(m) if m.is_finite() && m > 0.0 => Some(Duration::from_secs_f64(m * 60.0)),
            Some(m) => anyhow::bail!("--wait-quiet takes a number of minutes above 0, got {m}"),
        };
        let ids: Vec<String> = if self.no_references {
            Vec::new()
        } else if self.references.is_empty() {
            langs.references.clone()
        } else {
            self.references.clone()
        };
        // `select` of no ids is every variant: no ids, no references.
        let references = if ids.is_empty() {
            Vec::new()
        } else {
            langs.select(&ids)?.into_iter().cloned().collect()
        };
        Ok(Some(suite::RoundsOptions {
            seed: self.seed.unwrap_or_else(crate::rounds::Rounds::fresh_seed),
            references,
            block_s: self.block_minutes * 60.0,
            wait_quiet,
        }))
    }

    /// The CPU benchmarks' options (ws-echo's are [`WsArgs::options`]).
    /// `--balance-from` must be a results directory, `--resume` needs
    /// --out to exist.
    pub fn options(&self, langs: &Languages) -> Result<suite::Options> {
        let benches = if self.bench.is_empty() {
            Bench::CPU.to_vec()
        } else {
            self.bench.clone()
        };
        let mut view = self.view.view()?;
        // The report shows the programs and notes of the file it ran.
        view.languages = Some(self.languages.languages.clone());
        if let Some(d) = &self.balance_from {
            crate::store::results_dir(d, "--balance-from")?;
        }
        let out = self
            .out
            .clone()
            .unwrap_or_else(|| suite::default_out(self.size));
        // Before anything is created: an --out that does not exist, a
        // letter or two from a results directory beside it, is a typo more
        // often than a new edition (the run would start one and say so
        // only after); a numbered sibling (shard2 beside shard1, 2027
        // beside 2026), a suffixed name (2026-rounds-xeon beside
        // 2026-rounds) or a short one is not (suggest::typo_of).
        if let Some(given) = self.out.as_ref().filter(|o| !o.exists() && !self.resume)
            && let Some(near) = crate::store::similar_results_dir(given)
            && crate::suggest::typo_of(
                &given.file_name().unwrap_or_default().to_string_lossy(),
                &Path::new(&near)
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy(),
            )
        {
            anyhow::bail!(
                "--out {}: no such directory, and {near} is a results directory: did you mean {near}? \
                 Nothing was created (to start {} anyway, create it first: mkdir {})",
                given.display(),
                given.display(),
                shell_words::quote(&given.display().to_string())
            );
        }
        // Never added to unasked: the default directory (results/<year>)
        // may hold an edition, in a clone the published one. Like pyperf,
        // which will not write over a results file without --append, `run`
        // adds to it only when --out names it or --resume continues it.
        let cpu = self.bench.is_empty() || self.bench.iter().any(|b| b.is_cpu());
        if self.out.is_none()
            && !self.resume
            && !self.plan
            && cpu
            && let Some(held) = suite::holds(&out)?
        {
            let shown = out.display();
            anyhow::bail!(
                "{shown} already holds {held}, and `run` adds to a results directory only when asked \
                     (its cells would show this session's runs instead). Measure into a directory of its own: \
                     --out DIR (e.g. --out results/local); or finish what it holds: --resume; \
                     or add to it, new runs superseding their cells: --out {shown}. Nothing was written"
            );
        }
        if self.resume && !out.exists() {
            let near = crate::store::similar_results_dir(&out)
                .map(|d| format!(": did you mean {d}?"))
                .unwrap_or_default();
            anyhow::bail!(
                "--resume: the results directory {} does not exist, so there is nothing to resume{near}",
                out.display()
            );
        }
        let command_line: Vec<String> = std::env::args().collect();
        Ok(suite::Options {
            benches,
            size: self.size,
            runs: match self.runs {
                RunsArg::Fixed(n) => crate::noise::Runs::Fixed(n),
                RunsArg::Auto => crate::noise::Runs::Auto {
                    cv: view.noise_cv,
                    max: self.max_runs,
                },
            },
            timeout: timeout_seconds(self.timeout)?,
            resume_command: resume_command(&command_line, self.out.is_none().then_some(&out)),
            out,
            command_line,
            resume: self.resume,
            view,
            shard: self.shard,
            balance_from: self.balance_from.clone(),
            cpus: self.cpus.as_ref().map(|c| c.0.clone()),
            cold_caches: self.cold_caches,
            wide: self.wide,
            rounds: self.rounds(langs)?,
        })
    }
}

/// The command that continues `line` (a `run` command line) where it
/// stopped: the same, with `--resume`, and with `--out` when it used the
/// default (which changes with the year).
fn resume_command(line: &[String], default_out: Option<&PathBuf>) -> Vec<String> {
    let mut cmd = line.to_vec();
    if !cmd.iter().any(|a| a == "--resume") {
        cmd.push("--resume".into());
    }
    if let Some(out) = default_out {
        cmd.extend(["--out".to_string(), out.display().to_string()]);
    }
    cmd
}

/// A benchmark name, with a did-you-mean for a near miss.
fn parse_bench(s: &str) -> Result<Bench, String> {
    s.parse::<Bench>().map_err(|e| {
        match crate::suggest::did_you_mean(s, Bench::ALL.iter().map(|b| b.name())) {
            Some(d) => format!("{e}: {d}"),
            None => e,
        }
    })
}

/// `langbench ws`: the servers of the languages file, or with --target one
/// started elsewhere, or `ws merge`.
#[derive(clap::Args)]
pub struct WsCommandArgs {
    #[command(subcommand)]
    pub action: Option<WsAction>,
    /// Drive a server langbench did not start: ws://HOST:PORT/PATH.
    #[arg(long, value_name = "URL")]
    pub target: Option<String>,
    /// With --target: the server's pid on this machine, for its CPU and
    /// memory (without it the server columns stay blank).
    #[arg(long, value_name = "PID", requires = "target")]
    pub server_pid: Option<i32>,
    /// With --target: the row's name (default: target).
    #[arg(long, default_value = "target", requires = "target")]
    pub name: String,
    #[command(flatten)]
    pub languages: LanguagesArg,
    /// Variant ids (repeatable; default: every variant with a ws-echo program).
    #[arg(long = "lang", value_name = "ID")]
    pub lang: Vec<String>,
    #[command(flatten)]
    pub ws: WsArgs,
    /// Results directory (default: results/<year>-ws).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

impl WsCommandArgs {
    /// The options, with the results directory (default: `results/<year>-ws`).
    pub fn options(&self) -> Result<ws::Options> {
        self.ws
            .options(self.out.clone().unwrap_or_else(default_ws_out))
    }
}

/// `langbench ws-client`.
#[derive(clap::Args)]
pub struct WsClientArgs {
    /// The server: ws://HOST:PORT/PATH.
    #[arg(long, value_name = "URL")]
    pub target: String,
    /// The server's pid, if it runs on this machine (server CPU and memory).
    #[arg(long, value_name = "PID")]
    pub server_pid: Option<i32>,
    /// When phase 1 begins, the same on every host: RFC 3339, Unix
    /// seconds, or +SECONDS from now. Phase i begins at
    /// start + i·(warmup + duration).
    #[arg(long, value_name = "TIME")]
    pub start_at: Option<String>,
    #[command(flatten)]
    pub ws: WsArgs,
    /// Write the report here instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// No progress lines on stderr (when logs mix stdout and stderr,
    /// as `kubectl logs` does).
    #[arg(long)]
    pub quiet: bool,
}

/// `langbench measure`; what `measure::fast_args` reads by hand (a test
/// below checks that both read a command line alike).
#[derive(clap::Args)]
pub struct MeasureArgs {
    /// Seconds before the command's process group is killed.
    #[arg(long)]
    pub timeout: Option<f64>,
    /// Print the measurement as JSON on stdout (the command's own output
    /// still goes to its stdout/stderr).
    #[arg(long)]
    pub json: bool,
    /// The command and its arguments (after `--`).
    #[arg(required = true, last = true)]
    pub command: Vec<String>,
}

impl MeasureArgs {
    pub fn timeout(&self) -> Result<Option<Duration>> {
        self.timeout.map(timeout_seconds).transpose()
    }
}

/// `langbench list`.
#[derive(clap::Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub languages: LanguagesArg,
    /// Show these variants in full (every field, install hint, note).
    pub ids: Vec<String>,
    /// Also how to install each variant, its benchmarks, and the notes.
    #[arg(long)]
    pub long: bool,
    /// Print JSON (for scripts).
    #[arg(long, conflicts_with = "long")]
    pub json: bool,
    /// Probe every version anew (default: a version is cached until a file
    /// its probe or its commands need changes).
    #[arg(long)]
    pub refresh: bool,
    /// Every column of the table, however wide (default: a table that
    /// fits the terminal, `$COLUMNS` where it is set).
    #[arg(long)]
    pub wide: bool,
}

/// `langbench check`.
#[derive(clap::Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub languages: LanguagesArg,
    /// Variant ids (default: all; not-installed ones are reported, not failed).
    pub ids: Vec<String>,
    /// Only the variants whose entry or program files changed since this
    /// git revision (what a pull request's CI runs).
    #[arg(long, value_name = "REV")]
    pub changed_since: Option<String>,
    /// Print the selected variant ids, one a line, and stop (for CI).
    #[arg(long)]
    pub ids_only: bool,
    /// Seconds a build + run may take.
    #[arg(long, default_value_t = 300.0)]
    pub timeout: f64,
    /// The seed of the second size, drawn at random (default: from the
    /// clock); check prints the one it used, so `--seed` repeats a check.
    #[arg(long, value_name = "SEED")]
    pub seed: Option<u64>,
}

impl CheckArgs {
    pub fn options(&self) -> Result<check::Options> {
        Ok(check::Options {
            ids: self.ids.clone(),
            changed_since: self.changed_since.clone(),
            timeout: seconds(self.timeout)?,
            seed: self.seed,
        })
    }
}

/// `langbench new`.
#[derive(clap::Args)]
pub struct NewArgs {
    #[command(flatten)]
    pub languages: LanguagesArg,
    /// The variant id (lowercase letters, digits, '-' or '.').
    pub id: String,
    /// The language, as the tables show it.
    #[arg(long)]
    pub language: String,
    /// The programs' file extension (programs/<bench>/<stem>.<ext>).
    #[arg(long)]
    pub ext: String,
    #[arg(long, help = literal_placeholders(
        "The Command Flags column, what tells variants apart (default: read from \
         the commands, e.g. \"tclsh\" for --run \"tclsh {src} {n}\", \"gcc -O2\" for \
         --build \"gcc -O2 -o {exe} {src}\")"
    ))]
    pub flags: Option<String>,
    // The help of the two commands names placeholders, so it is built by
    // `literal_placeholders` (a doc comment's `{n}` would become a line break).
    #[arg(long, help = literal_placeholders(
        "Build command, timed with the run (e.g. \"gcc -O2 -o {exe} {src}\")"
    ))]
    pub build: Option<String>,
    #[arg(long, help = literal_placeholders(
        "Run command; must pass {n} (e.g. \"{exe} {n}\" or \"python3 {src} {n}\")"
    ))]
    pub run: String,
}

/// A help text whose `{name}` placeholders show as written. clap turns every
/// `{n}` of a help text into a line break (its newline marker, with no
/// escape: clap-rs/clap#5196), which ate the one placeholder `new --run`
/// must contain. Each placeholder is styled as a literal (bold), with a
/// style escape right after its `{`, so clap does not see `{n}`; where
/// colour is off, clap strips the escapes and prints `{n}`.
fn literal_placeholders(text: &str) -> clap::builder::StyledStr {
    use std::fmt::Write as _;
    let bold = clap::builder::styling::Style::new().bold();
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find('{') {
        let Some(len) = rest[start..].find('}') else {
            break;
        };
        let name = &rest[start + 1..start + len];
        let _ = write!(
            out,
            "{}{bold}{{{bold:#}{bold}{name}}}{bold:#}",
            &rest[..start]
        );
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    out.into()
}

impl NewArgs {
    pub fn options(&self) -> scaffold::Options {
        scaffold::Options {
            id: self.id.clone(),
            language: self.language.clone(),
            ext: self.ext.clone(),
            flags: self.flags.clone(),
            build: self.build.clone(),
            run: self.run.clone(),
        }
    }
}

#[derive(Subcommand)]
pub enum ToolchainsAction {
    /// Install every variant's toolchain that a registry here provides
    /// (Debian packages, npm, PyPI, Maven Central); idempotent, safe to re-run.
    Install(InstallArgs),
    /// Remove the Maven toolchains (under the toolchains directory) that no
    /// variant of the languages file uses any more, such as the versions an
    /// upgrade replaced.
    Prune(PruneArgs),
    /// Empty the variants' toolchain caches (kept by langbench between runs
    /// so runs start warm, as a person's do): their next run starts cold.
    ClearCaches(ClearCachesArgs),
}

/// `langbench toolchains clear-caches`.
#[derive(clap::Args)]
pub struct ClearCachesArgs {
    /// Only these variant ids' caches (repeatable; default: every variant's).
    #[arg(long = "lang", value_name = "ID")]
    pub lang: Vec<String>,
    /// Name what would be removed, remove nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// `langbench toolchains prune`.
#[derive(clap::Args)]
pub struct PruneArgs {
    #[command(flatten)]
    pub languages: LanguagesArg,
    /// Name what would be removed, remove nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// `langbench toolchains install`.
#[derive(clap::Args)]
pub struct InstallArgs {
    #[command(flatten)]
    pub languages: LanguagesArg,
    /// Only these variant ids (repeatable; default: all).
    #[arg(long = "lang", value_name = "ID")]
    pub lang: Vec<String>,
    /// Print the commands without running them.
    #[arg(long)]
    pub dry_run: bool,
}

/// `langbench import`.
#[derive(clap::Args)]
pub struct ImportArgs {
    #[command(flatten)]
    pub languages: LanguagesArg,
    /// The edition's CSV (CPU table or ws-echo table).
    pub file: PathBuf,
    /// The new results directory (must not hold records yet).
    #[arg(long)]
    pub out: PathBuf,
    /// The edition's year (names the session: published-YEAR).
    #[arg(long)]
    pub edition: String,
    /// The sizes its CPU benchmarks ran at: 2020 or 2021 (or N).
    #[arg(long)]
    pub size: Option<Size>,
    /// The machine's CPU, as the edition described it.
    #[arg(long, default_value = "not published")]
    pub cpu: String,
    /// The machine's CPU count, if published (0: not published).
    #[arg(long, default_value_t = 0)]
    pub cpus: usize,
    /// The machine's operating system, as the edition described it.
    #[arg(long, default_value = "")]
    pub os: String,
    /// Runs per published figure (best of N).
    #[arg(long, default_value_t = 3)]
    pub runs: u32,
    /// ws-echo: connections per server in that edition.
    #[arg(long, default_value_t = 10_000)]
    pub connections: usize,
    /// How the figures were measured, in a sentence.
    #[arg(
        long,
        default_value = "published edition, measured by hand with /usr/bin/time"
    )]
    pub source: String,
}

impl ImportArgs {
    pub fn options(&self) -> import::Options {
        import::Options {
            file: self.file.clone(),
            out: self.out.clone(),
            edition: self.edition.clone(),
            size: self.size,
            cpu: self.cpu.clone(),
            cpus: self.cpus,
            os: self.os.clone(),
            runs: self.runs,
            connections: self.connections,
            source: self.source.clone(),
            command_line: std::env::args().collect(),
        }
    }
}

/// `langbench compare`.
#[derive(clap::Args)]
pub struct CompareArgs {
    #[command(flatten)]
    pub languages: LanguagesArg,
    /// The older results directory (e.g. results/2021).
    pub old: PathBuf,
    /// The newer results directory (e.g. results/2026).
    pub new: PathBuf,
    /// Divide every figure by this variant's in the same edition
    /// (relative speed: for editions measured on different machines).
    #[arg(long, value_name = "VARIANT")]
    pub relative_to: Option<String>,
    /// What to print: terminal, markdown or csv.
    #[arg(long, default_value = "terminal")]
    pub format: langbench_document::export::format::Format,
    /// Also write compare.md, compare*.csv, compare.xlsx, compare.html
    /// and charts/ into this directory.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Every column of the table, however wide (default: a table that
    /// fits the terminal, `$COLUMNS` where it is set).
    #[arg(long)]
    pub wide: bool,
}

impl CompareArgs {
    pub fn options(&self) -> compare::edition::Options {
        compare::edition::Options {
            relative_to: self.relative_to.clone(),
        }
    }
}

/// `langbench merge`.
#[derive(clap::Args)]
pub struct MergeArgs {
    /// The new results directory.
    pub out: PathBuf,
    /// The shard directories.
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Where two directories hold the same cell, keep this one's.
    #[arg(long)]
    pub prefer: Option<PathBuf>,
}

/// `langbench report`.
#[derive(clap::Args)]
pub struct ReportArgs {
    /// The languages file whose program sources, notes and command
    /// templates report.html shows (the records carry the rest), and whose
    /// aliases a rebuilt comparison resolves rows with.
    #[command(flatten)]
    pub languages: LanguagesArg,
    /// Results directories, or comparison / history directories (rebuilt
    /// from the inputs their provenance.json names).
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Write nothing: exit 1 if any directory's derived files no longer
    /// match its records (a comparison whose inputs changed, a file left
    /// stale); non-directories are skipped (for `results/*` in CI).
    #[arg(long)]
    pub check: bool,
    #[command(flatten)]
    pub view: ViewArgs,
    /// Every column of the table, however wide (default: a compact table
    /// where the full one would not fit the terminal).
    #[arg(long, help_heading = TABLES)]
    pub wide: bool,
}

/// `langbench history`.
#[derive(clap::Args)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub languages: LanguagesArg,
    /// Results directories, oldest edition first.
    #[arg(required = true, num_args = 2.., value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Divide each edition's totals by this variant's in the same edition
    /// (relative speed: for editions measured on different machines).
    #[arg(long, value_name = "VARIANT")]
    pub relative_to: Option<String>,
    /// What to print: terminal, markdown or csv.
    #[arg(long, default_value = "terminal")]
    pub format: langbench_document::export::format::Format,
    /// Also write history.md, history.csv, history.xlsx, history.html,
    /// charts/ and provenance.json into this directory.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Every column of the table, however wide (default: a table that
    /// fits the terminal, `$COLUMNS` where it is set).
    #[arg(long)]
    pub wide: bool,
}

impl ReportArgs {
    pub fn view(&self) -> Result<summary::View> {
        let mut view = self.view.view()?;
        view.languages = Some(self.languages.languages.clone());
        Ok(view)
    }
}

/// `langbench work`.
#[derive(clap::Args)]
pub struct WorkArgs {
    #[command(flatten)]
    pub languages: LanguagesArg,
    /// Variant ids to count (repeatable; default: all).
    #[arg(long = "lang", value_name = "ID")]
    pub lang: Vec<String>,
    /// Benchmarks to count (repeatable; default: assoc, num-comb, str-comb).
    #[arg(long = "bench", value_name = "NAME", value_parser = parse_bench)]
    pub bench: Vec<Bench>,
    /// The size counted at: tiny, 2020, 2021 or N (default 100000).
    #[arg(long, default_value_t = Size::Explicit(crate::work::DEFAULT_N))]
    pub size: Size,
    /// The results directory the work records go to (work.jsonl).
    #[arg(long)]
    pub out: PathBuf,
    /// Seconds each count may take (its build steps and its run under
    /// valgrind together); past it the cell has no count, saying so.
    #[arg(long, default_value_t = 600.0)]
    pub timeout: f64,
}

impl WorkArgs {
    pub fn options(&self) -> Result<crate::work::Options> {
        anyhow::ensure!(
            self.bench.iter().all(|b| Bench::CPU.contains(b)),
            "work counts the CPU benchmarks only ({})",
            Bench::CPU
                .iter()
                .map(|b| b.name())
                .collect::<Vec<_>>()
                .join(", ")
        );
        Ok(crate::work::Options {
            benches: if self.bench.is_empty() {
                Bench::CPU.to_vec()
            } else {
                self.bench.clone()
            },
            size: self.size,
            out: self.out.clone(),
            timeout: timeout_seconds(self.timeout)?,
        })
    }
}

/// `langbench reproduce`.
#[derive(clap::Args)]
pub struct ReproduceArgs {
    #[command(flatten)]
    pub languages: LanguagesArg,
    /// The edition's results directory (e.g. results/2026).
    pub edition: PathBuf,
    /// A new directory for the re-measured runs and reproduced.json.
    #[arg(long)]
    pub out: PathBuf,
    /// Percent of the edition's installed variants to re-measure (at least
    /// 6, or all there are).
    #[arg(long, default_value_t = 10.0)]
    pub sample: f64,
    /// The sample's and the rounds' seed (default: from the clock; printed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Also store the result beside the edition, as
    /// EDITION/reproduced/DATE-MACHINE.json (never without it).
    #[arg(long)]
    pub store: bool,
    /// Runs per cell (rounds).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Seconds before a run's process group is killed.
    #[arg(long, default_value_t = 1000.0)]
    pub timeout: f64,
    /// Minutes of measuring between two reference passes.
    #[arg(long, default_value_t = 15.0)]
    pub block_minutes: f64,
    #[command(flatten)]
    pub view: ViewArgs,
}

impl ReproduceArgs {
    pub fn options(&self) -> Result<crate::reproduce::Options> {
        anyhow::ensure!(
            self.block_minutes.is_finite() && self.block_minutes > 0.0,
            "--block-minutes takes a number of minutes above 0, got {}",
            self.block_minutes
        );
        let mut view = self.view.view()?;
        view.languages = Some(self.languages.languages.clone());
        Ok(crate::reproduce::Options {
            edition: self.edition.clone(),
            out: self.out.clone(),
            sample_pct: self.sample,
            seed: self.seed,
            store: self.store,
            runs: crate::noise::Runs::Fixed(self.runs),
            timeout: timeout_seconds(self.timeout)?,
            block_s: self.block_minutes * 60.0,
            view,
            command_line: std::env::args().collect(),
        })
    }
}

/// `langbench expected`.
#[derive(clap::Args)]
pub struct ExpectedArgs {
    pub bench: Bench,
    #[arg(long, default_value = "2021")]
    pub size: Size,
}

#[derive(Subcommand)]
pub enum WsAction {
    /// Combine the JSON reports of several `ws-client` processes (one target,
    /// same phases, same --start-at) into one row of a results directory.
    Merge(WsMergeArgs),
}

/// `langbench ws merge`.
#[derive(clap::Args)]
pub struct WsMergeArgs {
    /// ws-client reports.
    #[arg(required = true)]
    pub reports: Vec<PathBuf>,
    /// The row's name.
    #[arg(long, default_value = "target")]
    pub name: String,
    /// Results directory (default: results/<year>-ws).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

impl WsMergeArgs {
    pub fn out(&self) -> PathBuf {
        self.out.clone().unwrap_or_else(default_ws_out)
    }
}

/// Options of the WebSocket benchmark (`ws`, and `run --bench ws-echo`).
#[derive(clap::Args)]
pub struct WsArgs {
    /// Concurrent WebSocket connections.
    #[arg(long, default_value_t = 10_000, help_heading = WS_ECHO)]
    connections: usize,
    /// Per-loop sleeps in ms, one phase each.
    #[arg(long, value_delimiter = ',', default_value = "1000,100,10,1", help_heading = WS_ECHO)]
    delays: Vec<f64>,
    /// Warm-up seconds before each measured window.
    #[arg(long, default_value_t = 2.0, help_heading = WS_ECHO)]
    warmup: f64,
    /// Measured window in seconds, per phase.
    #[arg(long, default_value_t = 10.0, help_heading = WS_ECHO)]
    duration: f64,
    /// At most this many handshakes in flight while connecting.
    #[arg(long, default_value_t = 256, help_heading = WS_ECHO)]
    max_handshakes: usize,
    /// Seconds to wait for a server to listen, and then for every
    /// connection to open (a handshake has at most 30 s of it).
    #[arg(long, default_value_t = 120.0, help_heading = WS_ECHO)]
    startup_timeout: f64,
    /// Client and server on separate CPUs: the default (kept for old
    /// command lines).
    #[arg(long, hide = true, conflicts_with = "share_cpus", help_heading = WS_ECHO)]
    pin: bool,
    /// Let client and server share every CPU (default: the client gets its
    /// own CPUs, one thread each, and the server the rest).
    #[arg(long, help_heading = WS_ECHO)]
    share_cpus: bool,
    /// CPUs for the client when they are split (default: half, at least
    /// one; the server gets the rest). With --target / ws-client and no
    /// --server-pid: every CPU.
    #[arg(long, value_name = "N", help_heading = WS_ECHO)]
    client_cpus: Option<usize>,
    /// Seconds a connection waits for an echo before counting it lost.
    #[arg(long, default_value_t = 10.0, help_heading = WS_ECHO)]
    echo_timeout: f64,
}

impl WsArgs {
    /// The options, writing into `out`.
    pub fn options(&self, out: PathBuf) -> Result<ws::Options> {
        anyhow::ensure!(self.connections >= 1, "--connections must be at least 1");
        anyhow::ensure!(!self.delays.is_empty(), "--delays needs at least one delay");
        anyhow::ensure!(
            self.max_handshakes >= 1,
            "--max-handshakes must be at least 1"
        );
        Ok(ws::Options {
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

/// How tables are shown (`run`, `report`).
#[derive(clap::Args)]
pub struct ViewArgs {
    /// Add a spread column (coefficient of variation per benchmark) to the
    /// terminal and Markdown tables (CSV, JSON and xlsx always carry it).
    #[arg(long, help_heading = TABLES)]
    spread: bool,
    /// Flag a cell whose runs' coefficient of variation exceeds this, in %.
    #[arg(long, default_value_t = 5.0, help_heading = TABLES)]
    noise_threshold: f64,
}

impl ViewArgs {
    pub(crate) fn view(&self) -> Result<summary::View> {
        anyhow::ensure!(
            self.noise_threshold > 0.0 && self.noise_threshold < 100.0,
            "--noise-threshold is a percentage between 0 and 100, got {}",
            self.noise_threshold
        );
        Ok(summary::View {
            show_spread: self.spread,
            noise_cv: self.noise_threshold / 100.0,
            languages: None,
        })
    }
}

#[derive(Clone, Copy)]
pub enum RunsArg {
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
pub struct CpuList(pub Vec<usize>);

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

fn seconds(s: f64) -> Result<Duration> {
    Duration::try_from_secs_f64(s)
        .with_context(|| format!("expected a non-negative number of seconds, got {s}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::{FastArgs, fast_args};

    /// What clap makes of a `measure` command line, in `FastArgs` terms.
    fn clap_reads(line: &[&str]) -> Option<FastArgs> {
        let cli =
            Cli::try_parse_from(std::iter::once("langbench").chain(line.iter().copied())).ok()?;
        let Command::Measure(MeasureArgs {
            timeout,
            json,
            command,
        }) = cli.command
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

/// The width a command's terminal tables fit (`None` with `--wide`: every
/// column whole), for the commands with `--wide`.
macro_rules! terminal_width {
    ($($t:ty),*) => {$(
        impl $t {
            /// The terminal width the tables fit: `COLUMNS`, else the
            /// terminal's; none with `--wide`.
            pub fn width(&self) -> Option<usize> {
                langbench_document::export::terminal::width(self.wide)
            }
        }
    )*};
}
terminal_width!(ListArgs, CompareArgs, HistoryArgs);
