//! The langbench command line: the agent's entry and `measure`'s fast path
//! first, then clap ([`langbench::cli`]) and one arm per subcommand that
//! hands it to the module doing its work and printing it.

use std::process::ExitCode;

use anyhow::Result;
use clap::Parser;

use langbench::cli::{Cli, Command, SystemAction, ToolchainsAction, WsAction, WsCommandArgs};
use langbench::{
    check, compare, history, import, list, measure, merge, reproduce, scaffold, suite,
};
use langbench::{toolchain, verify, ws};

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == langbench_spawn::AGENT_ARG) {
        langbench_spawn::agent::main(&args[2..]);
    }
    // `measure` forks its command right here, while langbench is as small
    // as a fresh agent (see `measure::fast_args`); clap reads whatever this
    // does not take (help, errors, --cgroup). A memory limit is a delegated
    // cgroup's to enforce where langbench has one: that is the agent's way.
    if let Some(m) = langbench::measure::fast_args(&args[1..])
        && (m.memory_limit_mb.is_none() || langbench_spawn::cgroup::Base::delegated().is_none())
    {
        return match langbench::measure::measure_here(m) {
            Ok(code) => ExitCode::from(code as u8),
            Err(e) => {
                eprintln!("error: {e:#}");
                ExitCode::from(2)
            }
        };
    }
    // A reader gone (`run | head`): quiet, every guard dropped, exit 141.
    langbench::signals::quiet_on_closed_output();
    let closed = ExitCode::from(141);
    match std::panic::catch_unwind(real_main) {
        Err(_) if langbench::signals::output_closed() => closed,
        Err(panic) => std::panic::resume_unwind(panic),
        Ok(Ok(code)) => code,
        Ok(Err(e)) => {
            // Errors quote what they refused (a record, a field): inert.
            eprintln!(
                "error: {}",
                langbench_document::inert::block(
                    &format!("{e:#}"),
                    langbench_document::inert::MAX_TEXT
                )
            );
            ExitCode::from(2)
        }
    }
}

fn real_main() -> Result<ExitCode> {
    let cli = Cli::parse();
    let spawner = cli.spawner()?;
    match cli.command {
        Command::Run(a) => {
            let langs = a.languages.load()?;
            let variants = a.variants(&langs)?;
            let opts = a.options(&langs)?;
            // Checked now, not when the CPU benchmarks are done.
            let ws_opts = a.ws.options(opts.out.clone())?;
            if a.plan {
                return suite::plan_command(&variants, &opts, a.json);
            }
            suite::command(&spawner, &variants, &opts, &ws_opts)
        }
        Command::Ws(WsCommandArgs {
            action: Some(WsAction::Merge(m)),
            ws: ws_args,
            ..
        }) => {
            let reports = ws::remote::read_reports(&m.reports)?;
            ws::remote::merge_command(&reports, &m.name, &ws_args.options(m.out())?)
        }
        Command::Ws(a) => match &a.target {
            Some(target) => {
                ws::remote::target_command(target, a.server_pid, &a.name, &a.options()?)
            }
            None => {
                let langs = a.languages.load()?;
                ws::command(&spawner, &langs.select(&a.lang)?, &a.options()?)
            }
        },
        Command::WsClient(a) => {
            let opts = a.ws.options(".".into())?;
            let (start, out) = (a.start_at.as_deref(), a.out.as_deref());
            ws::remote::client_command(&a.target, a.server_pid, start, &opts, out, a.quiet)
        }
        Command::Measure(a) => {
            let timeout = a.timeout()?;
            measure::command(&spawner, a.command, timeout, a.json)
        }
        Command::List(a) => {
            let langs = a.languages.load()?;
            let width = a.width();
            list::command(&spawner, &langs, &a.ids, a.long, a.json, a.refresh, width)
        }
        Command::Check(a) => {
            check::command(&spawner, &a.languages.languages, a.ids_only, || a.options())
        }
        Command::New(a) => scaffold::command(&a.languages.languages, &a.options()),
        Command::Toolchains { action } => toolchains(action, &spawner),
        Command::Import(a) => import::command(&a.languages.load()?, &a.options()),
        Command::Compare(a) => {
            langbench::store::results_dir(&a.old, "compare: OLD")?;
            langbench::store::results_dir(&a.new, "compare: NEW")?;
            let (languages, out) = (|| a.languages.load(), a.out.as_deref());
            let width = a.width();
            compare::command(
                languages,
                &a.old,
                &a.new,
                &a.options(),
                a.format,
                width,
                out,
            )
        }
        Command::System { action } => system(action),
        Command::Work(a) => {
            let langs = a.languages.load()?;
            let variants = langs.select(&a.lang)?;
            langbench::work::command(&spawner, &variants, &a.options()?)
        }
        Command::Reproduce(a) => {
            let langs = a.languages.load()?;
            reproduce::command(&spawner, &langs, &a.options()?)
        }
        Command::Merge(a) => {
            for d in &a.dirs {
                langbench::store::results_dir(d, "merge:")?;
            }
            merge::command(&a.out, &a.dirs, a.prefer.as_deref())
        }
        Command::Report(a) => {
            // Comparison and history directories hold provenance.json, not
            // records; --check skips what is no directory (`results/*`).
            let checked = |d: &&std::path::PathBuf| {
                (!a.check || d.is_dir()) && !d.join(langbench::derived::provenance::FILE).is_file()
            };
            let dirs = langbench::store::with_folders(&a.dirs);
            for d in dirs.iter().filter(checked) {
                langbench::store::results_dir(d, "report:")?;
            }
            langbench::report::report_command(&dirs, a.view()?, a.check, a.wide)
        }
        Command::History(a) => {
            let (languages, out) = (|| a.languages.load(), a.out.as_deref());
            let relative_to = a.relative_to.as_deref();
            let width = a.width();
            history::command(languages, &a.dirs, relative_to, a.format, width, out)
        }
        Command::Expected(a) => verify::expected_command(a.bench, a.size),
    }
}

/// `langbench toolchains install`, `prune` and `clear-caches`.
fn toolchains(action: ToolchainsAction, spawner: &langbench_spawn::Spawner) -> Result<ExitCode> {
    match action {
        ToolchainsAction::Install(a) => {
            let langs = a.languages.load()?;
            let variants = langs.select(&a.lang)?;
            Ok(toolchain::install_command(
                &variants,
                &langs.select(&[])?,
                a.dry_run,
                spawner,
            ))
        }
        ToolchainsAction::Prune(a) => {
            toolchain::prune_command(&a.languages.load()?.select(&[])?, a.dry_run)
        }
        ToolchainsAction::ClearCaches(a) => langbench::state::clear_caches(&a.lang, a.dry_run),
    }
}

/// `langbench system show` and `system probe`.
fn system(action: SystemAction) -> Result<ExitCode> {
    match action {
        SystemAction::Show(a) => langbench::system::show_command(a.format),
        SystemAction::Probe(a) => langbench::system::probe_command(&a.options()?),
    }
}
