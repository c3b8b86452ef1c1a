//! A variant as validated: its commands, toolchain and programs, and what
//! it needs to run (PATH, environment, the files it reads).
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use regex::Regex;

use crate::bench::Bench;

use super::raw::*;
use super::template::*;

/// Whether `path` exists; a `*` in its last component matches any text
/// (for versioned file names such as `unordered-containers-*.conf`).
fn path_exists(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    match (name, path.parent()) {
        (Some(name), Some(dir)) if name.contains('*') => {
            let pattern = format!(
                "^{}$",
                name.split('*')
                    .map(regex::escape)
                    .collect::<Vec<_>>()
                    .join(".*")
            );
            let Ok(re) = Regex::new(&pattern) else {
                return false;
            };
            std::fs::read_dir(dir).is_ok_and(|entries| {
                entries
                    .flatten()
                    .any(|e| re.is_match(&e.file_name().to_string_lossy()))
            })
        }
        _ => path.exists(),
    }
}

/// The file name stem of `bench`'s programs: `num_comb` for num-comb.
fn stem(bench: Bench) -> String {
    bench.name().replace('-', "_")
}

/// Where a variant's programs are by convention, relative to the languages
/// file: `programs/<bench>/<stem>.<ext>` for the CPU benchmarks, and
/// `programs/ws-echo/<name>/ws_echo.<ext>` for a variant `ws-<name>`.
pub(crate) fn conventional_programs(id: &str, ext: &str) -> Vec<(Bench, String)> {
    match id.strip_prefix("ws-") {
        Some(name) => vec![(
            Bench::WsEcho,
            format!("programs/ws-echo/{name}/{}.{ext}", stem(Bench::WsEcho)),
        )],
        None => Bench::CPU
            .iter()
            .map(|&b| (b, format!("programs/{b}/{}.{ext}", stem(b))))
            .collect(),
    }
}

/// One language variant, validated.
#[derive(Debug, Clone)]
pub struct Variant {
    pub id: String,
    pub language: String,
    pub flags: String,
    pub needs: Vec<String>,
    pub version: Template,
    pub version_regex: Option<Regex>,
    pub build: Vec<Template>,
    pub run: Template,
    pub prepare: Vec<Template>,
    pub env: BTreeMap<String, String>,
    /// Where its toolchain caches, under HOME (`.cache/go-build`): each a
    /// persistent directory of the variant's, so its runs start warm as a
    /// person's second `go run` does (see `state`).
    pub caches: Vec<PathBuf>,
    /// Directories of the real home its toolchain reads through HOME
    /// (`.rustup`), bound read-only into the sandbox's HOME.
    pub home_dirs: Vec<PathBuf>,
    /// Its `caches` are its entry's own (else its toolchain's, or none).
    pub own_caches: bool,
    /// The `[toolchain.NAME]` table it shares, and that table's line.
    pub toolchain: Option<(String, usize)>,
    pub(super) cwd: Option<String>,
    pub note: Option<String>,
    /// `fails = "why"`: the engine cannot run the programs as written (an
    /// ES5 engine and ES2015 programs). Its runs are measured and fail
    /// with the engine's own error as any other; `check` counts that
    /// failure as expected (and a pass as a problem: the field is stale).
    pub fails: Option<String>,
    pub library: Option<String>,
    pub programs: BTreeMap<Bench, PathBuf>,
    pub install: Install,
    /// The directory of its Maven toolchain (`install.maven`), whose `bin/`
    /// comes first on the PATH of its commands.
    pub maven_home: Option<PathBuf>,
    /// The directory of its dist toolchain (`install.dist`), used as a
    /// Maven toolchain's is.
    pub dist_home: Option<PathBuf>,
    /// Names the editions used for this variant (see [`Alias`]).
    pub aliases: Vec<Alias>,
    /// The files its commands read besides its programs (`files`: globs
    /// relative to the languages file), for `check --changed-since`; empty:
    /// its programs, and with `{dir}` every file of their directories.
    pub files: Vec<glob::Pattern>,
    /// Line of the entry in languages.toml.
    pub line: usize,
    /// Directory of the languages file.
    pub(super) root: PathBuf,
}

impl Variant {
    /// The working directory for a run: `cwd` expanded, else the build dir.
    pub(crate) fn cwd(&self, vars: &Vars) -> PathBuf {
        PathBuf::from(match &self.cwd {
            Some(c) => expand_str(c, vars),
            None => vars.build.clone(),
        })
    }

    /// The `cwd` template, if any (`None`: the build directory).
    pub fn cwd_template(&self) -> Option<&str> {
        self.cwd.as_deref()
    }

    /// Directory of the languages file (program paths resolve against it).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A spawn request for `argv` in `cwd` with the variant's environment.
    /// With a Maven toolchain, its `bin/` comes first on PATH (so scripts
    /// find its launchers) and a launcher as the program is started by its
    /// full path (the agent looks programs up on langbench's own PATH).
    pub(crate) fn request(&self, mut argv: Vec<String>, cwd: &Path) -> langbench_spawn::Request {
        let launchers = self.launchers();
        let bin = launchers.map(|(h, _)| h.join("bin"));
        if let (Some((_, names)), Some(bin), Some(program)) = (launchers, &bin, argv.first_mut())
            && names.contains_key(program.as_str())
        {
            *program = bin.join(&*program).display().to_string();
        }
        let mut req = langbench_spawn::Request::new(argv, cwd);
        req.readable = vec![self.root.clone()];
        req.home_dirs = self.home_dirs.clone();
        if let (Some((home, _)), Some(bin)) = (launchers, &bin) {
            req.readable.push(home.clone());
            if !self.env.contains_key("PATH") {
                let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
                let mut dirs = vec![bin.clone()];
                dirs.extend(std::env::split_paths(&path));
                if let Ok(joined) = std::env::join_paths(dirs) {
                    req.env
                        .push(("PATH".into(), joined.to_string_lossy().into_owned()));
                }
            }
        }
        req.env
            .extend(self.env.iter().map(|(k, v)| (k.clone(), v.clone())));
        req
    }

    /// Entries of `needs` that are not there: executables not on PATH, and
    /// files (entries with a '/', e.g. a header; relative ones resolve
    /// against the languages file's directory) that do not exist. A
    /// launcher of the variant's Maven toolchain counts only in that
    /// toolchain (an older one of the same name on PATH is not it).
    pub fn missing(&self) -> Vec<String> {
        self.needs
            .iter()
            .filter(|n| {
                if n.contains('/') {
                    !path_exists(&self.root.join(n))
                } else if let Some((home, bin)) = self.launchers()
                    && bin.contains_key(n.as_str())
                {
                    !crate::maven::is_installed(home, bin)
                } else {
                    which::which(n).is_err()
                }
            })
            .cloned()
            .collect()
    }

    /// Placeholder values for a run of `bench` whose program's directory
    /// is `dir` (a copy of the checkout's) instead of the checkout's own.
    pub(crate) fn vars_in(&self, bench: Bench, build: &Path, dir: Option<&Path>) -> Option<Vars> {
        let mut vars = self.vars(bench, build)?;
        if let (Some(dir), Some(name)) = (dir, self.programs.get(&bench)?.file_name()) {
            vars.src = dir.join(name).display().to_string();
            vars.dir = dir.display().to_string();
        }
        Some(vars)
    }

    /// Its toolchain directory (Maven or dist) and that toolchain's launchers.
    fn launchers(&self) -> Option<(&PathBuf, &BTreeMap<String, String>)> {
        match (&self.maven_home, &self.dist_home, &self.install.dist) {
            (Some(home), _, _) => Some((home, &self.install.bin)),
            (None, Some(home), Some(d)) => Some((home, &d.bin)),
            _ => None,
        }
    }

    /// Placeholder values for a run of `bench`.
    pub(crate) fn vars(&self, bench: Bench, build: &Path) -> Option<Vars> {
        let src = self.programs.get(&bench)?;
        Some(Vars {
            src: src.display().to_string(),
            dir: src
                .parent()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            build: build.display().to_string(),
            n: None,
            port: None,
        })
    }

    /// Whether any command or the working directory uses `{dir}` (then every
    /// file of a program's directory belongs to the variant).
    pub(crate) fn uses_dir(&self) -> bool {
        self.build
            .iter()
            .chain(&self.prepare)
            .chain([&self.run])
            .any(|t| t.placeholders().contains("dir"))
            || self.cwd.as_deref().is_some_and(|c| c.contains("{dir}"))
    }

    /// Picks the version out of the version command's output.
    pub(crate) fn parse_version(&self, output: &str) -> Option<String> {
        static DEFAULT: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
            Regex::new(r"\d+\.\d+(?:[.\-+~][0-9A-Za-z.+~\-]*)?").expect("valid regex")
        });
        match &self.version_regex {
            Some(re) => re
                .captures(output)
                .map(|c| c.get(1).or(c.get(0)).map_or("", |m| m.as_str()).to_string()),
            None => DEFAULT.find(output).map(|m| m.as_str().to_string()),
        }
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
    }
}
