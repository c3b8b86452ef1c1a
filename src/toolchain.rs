//! What is installed: executables on PATH, toolchain versions, and the
//! installer driven by the `install` tables of languages.toml.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Result, bail};

use crate::config::Variant;
use crate::record::VariantInfo;
use langbench_spawn::Spawner;

/// How long a version probe may take: a toolchain that prints its version
/// takes well under a second (a JVM a few); one that hangs must not stall
/// `list` or a session (see [`version`] for one that is only slow).
pub(crate) const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// How many probes run at once: they mostly wait (a JVM starting, a probe
/// that hangs), so a few at a time cost little more than one.
pub(crate) const PROBE_THREADS: usize = 4;

/// Installation state and version of one variant.
pub(crate) fn inspect(spawner: &Spawner, v: &Variant) -> VariantInfo {
    let missing = v.missing();
    let version = if missing.is_empty() {
        version(spawner, v).unwrap_or_else(|e| format!("unknown ({e})"))
    } else {
        String::new()
    };
    info(v, missing, version)
}

/// A variant's state as a session records it.
pub(crate) fn info(v: &Variant, missing: Vec<String>, version: String) -> VariantInfo {
    let installed = missing.is_empty();
    VariantInfo {
        id: v.id.clone(),
        language: v.language.clone(),
        flags: v.flags.clone(),
        installed,
        missing,
        install_hint: v.install.describe(),
        programs: v.programs.keys().copied().collect(),
        caches_kb: installed
            .then(|| crate::state::caches_kb(v, &version))
            .flatten(),
        version,
    }
}

/// [`inspect`] of every variant, [`PROBE_THREADS`] at a time (see
/// [`probe_all`]).
pub(crate) fn inspect_all(
    spawner: &Spawner,
    variants: &[&Variant],
    done: &(dyn Fn(usize, usize) + Sync),
) -> Option<Vec<VariantInfo>> {
    probe_all(variants, &|v| inspect(spawner, v), done)
}

/// `probe` of every variant, [`PROBE_THREADS`] at a time, in the
/// variants' order; `done(finished, of)` after each. `None` after Ctrl-C
/// (no new probe starts; a running one is stopped by the spawner).
pub(crate) fn probe_all<T: Send>(
    variants: &[&Variant],
    probe: &(dyn Fn(&Variant) -> T + Sync),
    done: &(dyn Fn(usize, usize) + Sync),
) -> Option<Vec<T>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let slots: Vec<std::sync::Mutex<Option<T>>> = variants
        .iter()
        .map(|_| std::sync::Mutex::new(None))
        .collect();
    let (next, finished) = (AtomicUsize::new(0), AtomicUsize::new(0));
    std::thread::scope(|scope| {
        for _ in 0..PROBE_THREADS.min(variants.len()) {
            scope.spawn(|| {
                while !crate::signals::interrupted() {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(v) = variants.get(i) else {
                        break;
                    };
                    let out = probe(v);
                    *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(out);
                    done(finished.fetch_add(1, Ordering::SeqCst) + 1, variants.len());
                }
            });
        }
    });
    if crate::signals::interrupted() {
        return None;
    }
    slots
        .into_iter()
        .map(|s| s.into_inner().unwrap_or_else(|e| e.into_inner()))
        .collect()
}

/// How long a probe that was still working when [`PROBE_TIMEOUT`] passed
/// (a JVM starting on a loaded machine) gets for one more try.
pub(crate) const BUSY_PROBE_TIMEOUT: Duration = Duration::from_secs(60);

/// The CPU a timed-out probe must have used to count as busy, not hung.
const BUSY_CPU: Duration = Duration::from_secs(1);

/// Runs the variant's version command (through the spawner, in the
/// sandbox of its runs) and picks the version out of its output. A probe
/// gets [`PROBE_TIMEOUT`]; one that was working all along (it used at
/// least a second of CPU: a JVM starting while other work runs) is tried
/// once more with [`BUSY_PROBE_TIMEOUT`], one that was waiting (hung) is
/// not: it says "timed out".
pub(crate) fn version(spawner: &Spawner, v: &Variant) -> Result<String> {
    let probe = |timeout: Duration| -> Result<langbench_spawn::Outcome> {
        let dir = crate::scratch::dir("probe")?;
        let mut req = v.request(v.version.expand(&Default::default()), dir.path());
        req.timeout = Some(timeout);
        // A version probe runs the entry's code: same sandbox as its runs.
        spawner.isolate(&mut req, dir.path(), false);
        spawner.execute(&req)
    };
    let mut timeout = PROBE_TIMEOUT;
    let mut out = probe(timeout)?;
    if out.done.timed_out && busy(&out) && !crate::signals::interrupted() {
        timeout = BUSY_PROBE_TIMEOUT;
        out = probe(timeout)?;
    }
    if out.done.timed_out {
        bail!(
            "timed out: `{}` printed no version within {} s",
            v.version.text,
            timeout.as_secs()
        );
    }
    let text = format!("{}\n{}", out.stdout.text(), out.stderr.text());
    let shown = text.trim().chars().take(120).collect::<String>();
    // A probe that failed reads a version only if it has a digit (every
    // one stored so far does): a word the pattern caught in its error
    // message is none (rustup without a default toolchain: "could not
    // choose a version of rustc to run" gave the version "to", issue #64).
    // A probe that succeeded reads what its pattern says.
    let failed = out.done.exit != langbench_spawn::Exit::Exited(0);
    match v
        .parse_version(&text)
        .filter(|ver| !failed || ver.chars().any(|c| c.is_ascii_digit()))
    {
        Some(ver) => Ok(ver),
        None if failed => bail!(
            "`{}` failed ({}) and printed no version: {shown:?}",
            v.version.text,
            out.done.exit
        ),
        None => bail!(
            "no version in the output of `{}`: {shown:?}",
            v.version.text
        ),
    }
}

/// Whether a timed-out probe was working (its process, or its tree, used
/// [`BUSY_CPU`]), not waiting.
fn busy(o: &langbench_spawn::Outcome) -> bool {
    let own = o.done.user + o.done.sys;
    let tree = o
        .done
        .tree
        .as_ref()
        .map_or(Duration::ZERO, |t| t.user + t.sys);
    own.max(tree) >= BUSY_CPU
}

/// What `toolchains install` did for one variant.
#[derive(Debug)]
pub(crate) struct InstallResult {
    pub id: String,
    pub outcome: Result<String, NotInstalled>,
}

/// Why `toolchains install` did not install a variant's toolchain.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NotInstalled {
    /// No registry here provides it: expected, `list` shows its hint.
    #[error("no registry here provides it: {0}")]
    NotProvided(String),
    /// A package manager failed, or the toolchain is still missing after.
    #[error("{0}")]
    Failed(String),
    /// Its Maven or dist toolchain.
    #[error(transparent)]
    Toolchain(#[from] crate::toolchain_dir::InstallError),
}

impl From<String> for NotInstalled {
    fn from(why: String) -> Self {
        NotInstalled::Failed(why)
    }
}

fn sh(program: &str, args: &[String], dry_run: bool) -> Result<(), String> {
    // SAFETY: geteuid takes no arguments, touches no memory of ours and
    // cannot fail.
    let needs_sudo = program == "apt-get" && unsafe { libc::geteuid() } != 0;
    let mut argv: Vec<String> = Vec::new();
    if needs_sudo {
        argv.push("sudo".into());
    }
    argv.push(program.into());
    argv.extend(args.iter().cloned());
    eprintln!("$ {}", shell_words::join(&argv));
    if dry_run {
        return Ok(());
    }
    let status = std::process::Command::new(&argv[0])
        .args(&argv[1..])
        .env("DEBIAN_FRONTEND", "noninteractive")
        .status()
        .map_err(|e| format!("cannot run {}: {e}", argv[0]))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{}` failed ({status})", shell_words::join(&argv)))
    }
}

fn dpkg_installed(pkg: &str) -> bool {
    std::process::Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", pkg])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("install ok installed"))
        .unwrap_or(false)
}

/// The Debian packages a variant's install needs: its `apt` list, and
/// Maven itself for a Maven toolchain when `mvn` is not on PATH.
fn apt_packages(v: &Variant) -> Vec<String> {
    let mut pkgs = v.install.apt.clone();
    if !v.install.maven.is_empty() && which::which("mvn").is_err() {
        pkgs.push("maven".into());
    }
    pkgs
}

fn apt_install_args(pkgs: &[String]) -> Vec<String> {
    // `--`: whatever the list holds (validated names, see
    // `Install::validate_packages`), apt never reads it as an option.
    let mut args = vec!["install".to_string(), "-y".into(), "--".into()];
    args.extend(pkgs.iter().cloned());
    args
}

/// Installs the toolchains of `variants` from their `install` tables:
/// Debian packages, then global npm packages, then PyPI packages, then
/// Maven Central artifacts (see `maven.rs`; Debian's `maven` is installed
/// first when `mvn` is missing), then registry archives (`dist.rs`). A variant
/// whose `needs` are all present is left alone, so it is safe to re-run and
/// never replaces a toolchain installed another way. One variant's failure
/// does not stop the others.
pub(crate) fn install(
    variants: &[&Variant],
    dry_run: bool,
    spawner: &Spawner,
) -> Vec<InstallResult> {
    let all = variants;
    let (present, variants): (Vec<&Variant>, Vec<&Variant>) =
        variants.iter().partition(|v| v.missing().is_empty());
    let mut results: Vec<InstallResult> = present
        .iter()
        .map(|v| InstallResult {
            id: v.id.clone(),
            outcome: Ok("already installed".into()),
        })
        .collect();
    let mut apt: Vec<String> = variants
        .iter()
        .flat_map(|v| apt_packages(v))
        .filter(|p| !dpkg_installed(p))
        .collect();
    apt.sort();
    apt.dedup();
    if !apt.is_empty() {
        let _ = sh("apt-get", &["update".into(), "-qq".into()], dry_run);
        // One transaction for speed; if it fails, each variant retries its
        // own packages below so one unknown package does not block the rest.
        let _ = sh("apt-get", &apt_install_args(&apt), dry_run);
    }
    let installed = variants
        .iter()
        .map(|v| {
            let mut done = Vec::new();
            let result = (|| -> Result<(), NotInstalled> {
                let missing_apt: Vec<String> = apt_packages(v)
                    .into_iter()
                    .filter(|p| !dry_run && !dpkg_installed(p))
                    .collect();
                if !missing_apt.is_empty() {
                    sh("apt-get", &apt_install_args(&missing_apt), dry_run)?;
                }
                if !v.install.apt.is_empty() {
                    done.push(format!("apt: {}", v.install.apt.join(" ")));
                }
                if !v.install.npm.is_empty() {
                    let mut args = vec!["install".to_string(), "-g".into(), "--".into()];
                    args.extend(v.install.npm.iter().cloned());
                    sh("npm", &args, dry_run)?;
                    done.push(format!("npm: {}", v.install.npm.join(" ")));
                }
                if !v.install.pip.is_empty() {
                    let mut args = vec![
                        "-m".to_string(),
                        "pip".into(),
                        "install".into(),
                        "-q".into(),
                        "--".into(),
                    ];
                    args.extend(v.install.pip.iter().cloned());
                    sh("python3", &args, dry_run)?;
                    done.push(format!("pip: {}", v.install.pip.join(" ")));
                }
                if !v.install.maven.is_empty() {
                    done.push(crate::maven::install(
                        v.install.maven_spec(v.root()),
                        dry_run,
                        spawner,
                    )?);
                }
                if let Some(spec) = v.install.dist_spec(v.root()) {
                    done.push(crate::dist::install(spec, dry_run)?);
                }
                if !v.install.is_installable() {
                    return Err(NotInstalled::NotProvided(v.install.describe()));
                }
                Ok(())
            })();
            InstallResult {
                id: v.id.clone(),
                outcome: result.and_then(|_| match v.missing() {
                    m if m.is_empty() || dry_run => Ok(done.join("; ")),
                    m => Err(NotInstalled::Failed(format!(
                        "installed {} but still missing {}",
                        done.join("; "),
                        m.join(", ")
                    ))),
                }),
            }
        })
        .collect::<Vec<_>>();
    results.extend(installed);
    results.sort_by_key(|r| all.iter().position(|v| v.id == r.id));
    results
}

/// The toolchain directories (Maven and dist: they share the toolchains
/// directory) `all` (every variant of a languages file) uses.
fn maven_in_use(all: &[&Variant]) -> std::collections::BTreeSet<String> {
    all.iter()
        .filter(|v| !v.install.maven.is_empty())
        .map(|v| crate::maven::dir_name(v.install.maven_spec(v.root())))
        .chain(
            all.iter()
                .filter_map(|v| v.install.dist_spec(v.root()).map(crate::dist::dir_name)),
        )
        .collect()
}

/// `N directories, X MB` for the terminal.
fn describe_dirs(dirs: &[(std::path::PathBuf, u64)]) -> String {
    let bytes: u64 = dirs.iter().map(|d| d.1).sum();
    format!(
        "{} director{}, {:.0} MB",
        dirs.len(),
        if dirs.len() == 1 { "y" } else { "ies" },
        bytes as f64 / 1e6
    )
}

/// `langbench toolchains prune`: removes the Maven and dist toolchain
/// directories no variant of the languages file uses (`all`), naming each on stderr;
/// with `dry_run` only names them. Other toolchains (apt, npm, PyPI)
/// belong to their package managers and are left alone.
pub fn prune_command(all: &[&Variant], dry_run: bool) -> anyhow::Result<ExitCode> {
    let unused = crate::maven::unused(&maven_in_use(all));
    let root = crate::maven::toolchains_dir();
    if unused.is_empty() {
        eprintln!(
            "nothing to prune in {}: every toolchain there is used",
            root.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let verb = if dry_run { "would remove" } else { "removed" };
    for (dir, bytes) in &unused {
        if !dry_run {
            std::fs::remove_dir_all(dir)
                .map_err(|e| anyhow::anyhow!("cannot remove {}: {e}", dir.display()))?;
        }
        eprintln!("{verb} {} ({:.0} MB)", dir.display(), *bytes as f64 / 1e6);
    }
    eprintln!(
        "{verb} {} from {}: no variant of the languages file uses them",
        describe_dirs(&unused),
        root.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// `langbench toolchains install`: [`install`], then one line per variant
/// and the tally, on stderr; and a note when the toolchains directory
/// holds Maven toolchains no variant of the languages file (`all`) uses
/// any more (an upgrade leaves the old version behind).
pub fn install_command(
    variants: &[&Variant],
    all: &[&Variant],
    dry_run: bool,
    spawner: &Spawner,
) -> ExitCode {
    let results = install(variants, dry_run, spawner);
    let mut failed = 0;
    for r in &results {
        match &r.outcome {
            // What an install did or why it failed quotes the entry's
            // hint and the tools' output: inert (crates/document/src/inert.rs).
            // A dry run installs nothing: it says what it would run.
            Ok(what) if dry_run => {
                eprintln!(
                    "would   {:<28} {}",
                    r.id,
                    langbench_document::inert::text(what)
                )
            }
            Ok(what) => eprintln!(
                "ok      {:<28} {}",
                r.id,
                langbench_document::inert::text(what)
            ),
            // Expected: no registry here has it; `list` shows the hint.
            Err(e @ NotInstalled::NotProvided(_)) => {
                eprintln!(
                    "n/a     {:<28} {}",
                    r.id,
                    langbench_document::inert::text(&e.to_string())
                )
            }
            Err(e) => {
                failed += 1;
                eprintln!(
                    "FAILED  {:<28} {}",
                    r.id,
                    langbench_document::inert::text(&e.to_string())
                )
            }
        }
    }
    let ok = results.iter().filter(|r| r.outcome.is_ok()).count();
    let (done, did) = if dry_run {
        ("would be installed (a dry run: nothing was)", "would fail")
    } else {
        ("installed", "failed")
    };
    eprintln!(
        "{ok} of {} variants' toolchains {done}, {failed} {did}, {} not provided by any registry here; `langbench list` shows what is on PATH",
        results.len(),
        results.len() - ok - failed
    );
    let unused = crate::maven::unused(&maven_in_use(all));
    if !unused.is_empty() {
        eprintln!(
            "note: {} in {}: toolchains no variant uses any more; `langbench toolchains prune` removes them",
            describe_dirs(&unused),
            crate::maven::toolchains_dir().display()
        );
    }
    // Like any installer: a failure is the exit status too (the rows of
    // what failed say "not installed"; `run` goes on without them).
    if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
