//! `languages.toml`: every language variant, how to version, install, build
//! and run it. Adding a language is a TOML entry plus program files; every
//! mistake in the file is reported with the file, the line, the column and
//! what was expected.
//!
//! The file says only what differs from the conventions below, so a reviewer
//! reads what is particular to each variant:
//! - programs live at `programs/<bench>/<stem>.<ext>` (stem: the benchmark
//!   name with `_` for `-`), or `programs/ws-echo/<name>/ws_echo.<ext>` for a
//!   variant `ws-<name>`; `ext` names them, `programs` lists exceptions;
//! - `[toolchain.NAME]` tables hold what several variants share (`needs`,
//!   `version`, `version_regex`, `install`, `env`), and a variant says
//!   `toolchain = "NAME"`;
//! - `needs` defaults to the programs the commands start, `version` to
//!   `<first need> --version`, the install hint to the package lists, `cwd`
//!   to `{build}` (`{dir}` for ws-echo servers).
//!
//! A field equal to what it would default to is accepted by [`Languages::parse`]
//! and listed in [`Languages::lints`]; `langbench check` fails on it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use regex::Regex;
use toml::Spanned;

use crate::bench::Bench;

mod raw;
mod template;

pub use raw::{Alias, Install};
use raw::{OneOrMany, RawFile, RawToolchain, RawVariant};
use template::expand_str;
pub use template::{Template, Vars};

/// An error in `languages.toml`, pointing at the line and column.
#[derive(Debug, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct ConfigError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// A field that says what langbench would assume anyway: valid, but noise
/// for a reviewer. `langbench check` reports each as a problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lint {
    pub line: usize,
    pub column: usize,
    /// The variant id, or `toolchain.NAME`.
    pub variant: String,
    pub message: String,
    /// What to do about it.
    pub fix: String,
}

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
pub fn stem(bench: Bench) -> String {
    bench.name().replace('-', "_")
}

/// Where a variant's programs are by convention, relative to the languages
/// file: `programs/<bench>/<stem>.<ext>` for the CPU benchmarks, and
/// `programs/ws-echo/<name>/ws_echo.<ext>` for a variant `ws-<name>`.
pub fn conventional_programs(id: &str, ext: &str) -> Vec<(Bench, String)> {
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
    cwd: Option<String>,
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
    root: PathBuf,
}

impl Variant {
    /// The working directory for a run: `cwd` expanded, else the build dir.
    pub fn cwd(&self, vars: &Vars) -> PathBuf {
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
    pub fn request(&self, mut argv: Vec<String>, cwd: &Path) -> crate::spawn::Request {
        let launchers = self.launchers();
        let bin = launchers.map(|(h, _)| h.join("bin"));
        if let (Some((_, names)), Some(bin), Some(program)) = (launchers, &bin, argv.first_mut())
            && names.contains_key(program.as_str())
        {
            *program = bin.join(&*program).display().to_string();
        }
        let mut req = crate::spawn::Request::new(argv, cwd);
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
    pub fn vars_in(&self, bench: Bench, build: &Path, dir: Option<&Path>) -> Option<Vars> {
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
    pub fn vars(&self, bench: Bench, build: &Path) -> Option<Vars> {
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
    pub fn uses_dir(&self) -> bool {
        self.build
            .iter()
            .chain(&self.prepare)
            .chain([&self.run])
            .any(|t| t.placeholders().contains("dir"))
            || self.cwd.as_deref().is_some_and(|c| c.contains("{dir}"))
    }

    /// Picks the version out of the version command's output.
    pub fn parse_version(&self, output: &str) -> Option<String> {
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

/// The parsed file.
#[derive(Debug, Clone)]
pub struct Languages {
    pub path: PathBuf,
    pub variants: Vec<Variant>,
    /// Fields equal to their defaults (see [`Lint`]).
    pub lints: Vec<Lint>,
}

/// Byte offset → line and column, built once per file. (Counting newlines
/// from the start for every position made parsing quadratic: 8,000
/// variants took 14 s.)
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { starts }
    }

    /// 1-based line and column (in characters) of a byte offset.
    fn position(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts[line - 1];
        let column = text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count())
            + 1;
        (line, column)
    }
}

/// The one error-reporting context of a parse: every error and lint names
/// the file, the line and column of a byte offset, and the variant.
struct Ctx<'a> {
    file: String,
    text: &'a str,
    lines: LineIndex,
    root: PathBuf,
    lints: Vec<Lint>,
}

impl Ctx<'_> {
    fn err(&self, offset: usize, variant: Option<&str>, message: impl Into<String>) -> ConfigError {
        let (line, column) = self.lines.position(self.text, offset);
        let message = message.into();
        ConfigError {
            file: self.file.clone(),
            line,
            column,
            message: match variant {
                Some(id) => format!("variant {id:?}: {message}"),
                None => message,
            },
        }
    }

    fn lint(&mut self, offset: usize, variant: &str, message: String, fix: String) {
        let (line, column) = self.lines.position(self.text, offset);
        self.lints.push(Lint {
            line,
            column,
            variant: variant.to_string(),
            message,
            fix,
        });
    }

    /// "delete line N": a field on a line of its own.
    fn delete_line(&mut self, offset: usize, variant: &str, what: &str, why: &str) {
        let (line, _) = self.lines.position(self.text, offset);
        self.lint(
            offset,
            variant,
            format!("`{what}` {why}"),
            format!("delete line {line}"),
        );
    }
}

/// What a variant's toolchain table gives it (empty without one).
#[derive(Default)]
struct Shared<'a> {
    language: Option<&'a str>,
    ext: Option<(&'a str, usize)>,
    needs: Option<&'a Vec<String>>,
    version: Option<&'a str>,
    version_regex: Option<(&'a str, usize)>,
    install: Option<&'a Install>,
    env: Option<&'a BTreeMap<String, String>>,
    caches: Option<&'a Spanned<Vec<String>>>,
    home: Option<&'a Spanned<Vec<String>>>,
    /// The table's name and where it starts.
    table: Option<(&'a str, usize)>,
}

impl<'a> Shared<'a> {
    fn of(name: &'a str, t: &'a Spanned<RawToolchain>) -> Self {
        let at = t.span().start;
        let t = t.get_ref();
        Shared {
            table: Some((name, at)),
            language: t.language.as_deref(),
            ext: t
                .ext
                .as_ref()
                .map(|e| (e.get_ref().as_str(), e.span().start)),
            needs: t.needs.as_ref().map(|s| s.get_ref()),
            version: t.version.as_ref().map(|s| s.get_ref().as_str()),
            version_regex: t
                .version_regex
                .as_ref()
                .map(|s| (s.get_ref().as_str(), s.span().start)),
            install: t.install.as_ref().map(|s| s.get_ref()),
            env: Some(&t.env),
            caches: t.caches.as_ref(),
            home: t.home.as_ref(),
        }
    }
}

impl Languages {
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
        Ok(Self::parse(&text, path)?)
    }

    /// Parses `text` as if read from `path` (programs resolve relative to
    /// the directory holding it).
    pub fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        let mut ctx = Ctx {
            file: path.display().to_string(),
            text,
            lines: LineIndex::new(text),
            root: PathBuf::new(),
            lints: Vec::new(),
        };
        let raw: RawFile = toml::from_str(text).map_err(|e| {
            ctx.err(
                e.span().map_or(0, |s| s.start),
                None,
                e.message().trim().to_string(),
            )
        })?;
        ctx.root = root_of(path).map_err(|m| ctx.err(0, None, m))?;
        if raw.variant.0.is_empty() {
            return Err(ctx.err(0, None, "no [variant.ID] entries"));
        }
        for (name, t) in &raw.toolchain {
            if let Some(i) = &t.get_ref().install {
                i.get_ref().validate(&ctx.root).map_err(|m| {
                    ctx.err(i.span().start, None, format!("toolchain {name:?}: {m}"))
                })?;
            }
        }
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        let mut used = BTreeSet::new();
        let mut variants = Vec::with_capacity(raw.variant.0.len());
        for (id, v, start) in raw.variant.0 {
            check_id(&ctx, &id, &mut seen)?;
            let shared = match &v.toolchain {
                None => Shared::default(),
                Some(name) => {
                    let (key, t) =
                        raw.toolchain.get_key_value(name.get_ref()).ok_or_else(|| {
                            ctx.err(
                                name.span().start,
                                Some(id.get_ref()),
                                format!(
                                    "unknown toolchain {:?} (defined: {})",
                                    name.get_ref(),
                                    raw.toolchain.keys().cloned().collect::<Vec<_>>().join(", ")
                                ),
                            )
                        })?;
                    used.insert(name.get_ref().clone());
                    Shared::of(key, t)
                }
            };
            variants.push(resolve_variant(
                &mut ctx,
                id.into_inner(),
                v,
                start,
                &shared,
            )?);
        }
        for (name, t) in &raw.toolchain {
            lint_toolchain(&mut ctx, name, t.get_ref());
            if !used.contains(name) {
                let at = t.span().start;
                ctx.lint(
                    at,
                    &format!("toolchain.{name}"),
                    "no variant uses this toolchain".into(),
                    format!("delete [toolchain.{name}]"),
                );
            }
        }
        Ok(Languages {
            path: path.to_path_buf(),
            variants,
            lints: ctx.lints,
        })
    }

    /// The variant a published row (language, command flags) stands for:
    /// same language (ignoring case) and flags, or one of its aliases.
    pub fn resolve(&self, language: &str, flags: &str) -> Option<&Variant> {
        let lang = |a: &str| a.eq_ignore_ascii_case(language);
        let flags = flags.trim();
        self.variants
            .iter()
            .find(|v| lang(&v.language) && v.flags == flags)
            .or_else(|| {
                self.variants.iter().find(|v| {
                    v.aliases.iter().any(|a| match a {
                        Alias::Flags(f) => lang(&v.language) && f == flags,
                        Alias::Full {
                            language: l,
                            flags: f,
                        } => lang(l) && f == flags,
                    })
                })
            })
    }

    /// Variants selected by id (all when `ids` is empty). Unknown ids are an
    /// error listing the known ones.
    pub fn select(&self, ids: &[String]) -> anyhow::Result<Vec<&Variant>> {
        if ids.is_empty() {
            return Ok(self.variants.iter().collect());
        }
        ids.iter()
            .map(|id| {
                self.variants.iter().find(|v| &v.id == id).ok_or_else(|| {
                    let known: Vec<_> = self.variants.iter().map(|v| v.id.as_str()).collect();
                    crate::suggest::unknown_variant(id, &self.path, &known)
                })
            })
            .collect()
    }
}

/// A toolchain field that says what the conventions say.
fn lint_toolchain(ctx: &mut Ctx, name: &str, t: &RawToolchain) {
    let who = format!("toolchain.{name}");
    if let (Some(v), Some(n)) = (&t.version, &t.needs)
        && n.get_ref()
            .first()
            .map(|p| format!("{p} --version"))
            .as_ref()
            == Some(v.get_ref())
    {
        ctx.delete_line(
            v.span().start,
            &who,
            "version",
            "is the default (`<first need> --version`)",
        );
    }
    if let Some(i) = &t.install
        && i.get_ref().hint.as_deref() == Some(&i.get_ref().derived_hint())
    {
        ctx.lint(
            i.span().start,
            &who,
            "`install.hint` says what the package lists say".into(),
            "delete the hint".into(),
        );
    }
}

/// The directory program paths resolve against: the languages file's.
fn root_of(path: &Path) -> Result<PathBuf, String> {
    let root = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    root.canonicalize()
        .map_err(|e| format!("cannot resolve directory {}: {e}", root.display()))
}

static ID: std::sync::LazyLock<Regex> =
    std::sync::LazyLock::new(|| Regex::new(r"^[a-z0-9][a-z0-9.\-]*$").expect("valid regex"));

fn check_id(
    ctx: &Ctx,
    id: &Spanned<String>,
    seen: &mut BTreeMap<String, usize>,
) -> Result<(), ConfigError> {
    let at = id.span().start;
    let name = id.get_ref();
    if !ID.is_match(name) {
        return Err(ctx.err(
            at,
            Some(name),
            "id must be lowercase letters, digits, '-' or '.'",
        ));
    }
    let line = ctx.lines.position(ctx.text, at).0;
    if let Some(first) = seen.insert(name.clone(), line) {
        return Err(ctx.err(
            at,
            Some(name),
            format!("duplicate id (first defined at line {first})"),
        ));
    }
    Ok(())
}

fn template(ctx: &Ctx, id: &str, s: &Spanned<String>) -> Result<Template, ConfigError> {
    Template::parse(s.get_ref()).map_err(|m| ctx.err(s.span().start, Some(id), m))
}

/// A command or a list of commands, each with the offset of its field.
fn templates(
    ctx: &Ctx,
    id: &str,
    s: Option<Spanned<OneOrMany>>,
) -> Result<Vec<(Template, usize)>, ConfigError> {
    let Some(s) = s else { return Ok(Vec::new()) };
    let start = s.span().start;
    let list = s.into_inner().into_vec();
    if list.is_empty() {
        return Err(ctx.err(start, Some(id), "empty command list"));
    }
    list.iter()
        .map(|t| {
            Template::parse(t)
                .map(|t| (t, start))
                .map_err(|m| ctx.err(start, Some(id), m))
        })
        .collect()
}

/// The programs: the convention for `ext`, then the explicit exceptions.
fn programs(
    ctx: &mut Ctx,
    id: &str,
    v: &RawVariant,
    shared: &Shared,
    entry: usize,
) -> Result<BTreeMap<Bench, PathBuf>, ConfigError> {
    let mut rel: BTreeMap<Bench, (String, usize)> = BTreeMap::new();
    if let Some(ext) = &v.ext
        && shared.ext.is_some_and(|(e, _)| e == ext.get_ref())
    {
        ctx.delete_line(ext.span().start, id, "ext", "equals the toolchain's");
    }
    let ext = v
        .ext
        .as_ref()
        .map(|e| (e.get_ref().as_str(), e.span().start))
        .or(shared.ext);
    if let Some((ext, at)) = ext {
        for (bench, path) in conventional_programs(id, ext) {
            rel.insert(bench, (path, at));
        }
    }
    if let Some(explicit) = &v.programs {
        if explicit.get_ref().is_empty() {
            return Err(ctx.err(explicit.span().start, Some(id), "`programs` is empty"));
        }
        for (name, file) in explicit.get_ref() {
            let bench: Bench = name
                .get_ref()
                .parse()
                .map_err(|m: String| ctx.err(name.span().start, Some(id), m))?;
            if rel.get(&bench).is_some_and(|(p, _)| p == file.get_ref()) {
                ctx.delete_line(
                    file.span().start,
                    id,
                    &format!("programs.{bench}"),
                    "is where `ext` puts it already",
                );
            }
            rel.insert(bench, (file.get_ref().clone(), file.span().start));
        }
        if ext.is_none() {
            lint_programs_without_ext(ctx, id, explicit.span().start, &rel);
        }
    }
    if rel.is_empty() {
        return Err(ctx.err(
            entry,
            Some(id),
            "no programs: add `ext = \"…\"` (programs/<bench>/<stem>.<ext>) or `programs = { … }`",
        ));
    }
    let mut out = BTreeMap::new();
    for (bench, (file, at)) in rel {
        let full = inside_root(ctx, &file).map_err(|why| {
            ctx.err(
                at,
                Some(id),
                format!(
                    "program file {file:?} for {bench} is outside the languages file's directory \
                     {} ({why}): programs live under it, as relative paths without `..` or a symlink \
                     that leads out (a `prepare` step gets a copy of its program's directory)",
                    ctx.root.display()
                ),
            )
        })?;
        if !full.is_file() {
            return Err(ctx.err(
                at,
                Some(id),
                format!(
                    "program file {file:?} for {bench} does not exist (looked at {}); \
                     create it (`langbench new` writes stubs) or fix the path",
                    full.display()
                ),
            ));
        }
        out.insert(bench, full);
    }
    Ok(out)
}

/// `file` (a program path of the languages file) under the languages
/// file's directory; `Err` says why it is not: an absolute path, a `..`,
/// or a symlink whose target lies outside. A path that does not exist is
/// returned as it is (the caller says so).
fn inside_root(ctx: &Ctx, file: &str) -> Result<PathBuf, &'static str> {
    let path = Path::new(file);
    if path.is_absolute() {
        return Err("an absolute path");
    }
    if path
        .components()
        .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return Err("a `..` in it");
    }
    let full = ctx.root.join(path);
    match full.canonicalize() {
        Ok(real) if !real.starts_with(&ctx.root) => Err("a symlink leads out"),
        _ => Ok(full),
    }
}

/// A `programs` table that is exactly the convention for one extension.
fn lint_programs_without_ext(
    ctx: &mut Ctx,
    id: &str,
    at: usize,
    rel: &BTreeMap<Bench, (String, usize)>,
) {
    let Some(ext) = rel
        .values()
        .next()
        .and_then(|(p, _)| Path::new(p).extension())
        .map(|e| e.to_string_lossy().into_owned())
    else {
        return;
    };
    let convention: BTreeMap<Bench, (String, usize)> = conventional_programs(id, &ext)
        .into_iter()
        .map(|(b, p)| (b, (p, 0)))
        .collect();
    let same = convention.len() == rel.len()
        && convention
            .iter()
            .all(|(b, (p, _))| rel.get(b).is_some_and(|(q, _)| p == q));
    if same {
        ctx.lint(
            at,
            id,
            format!("`programs` lists exactly the conventional paths for ext {ext:?}"),
            format!("replace the `programs` table with ext = {ext:?}"),
        );
    }
}

/// Every placeholder must be known to every benchmark the variant runs, and
/// `run` must pass the size (or the port).
fn check_placeholders(
    ctx: &Ctx,
    id: &str,
    programs: &BTreeMap<Bench, PathBuf>,
    run: (&Template, usize),
    all: &[(&Template, usize, &str)],
) -> Result<(), ConfigError> {
    for bench in programs.keys() {
        let allowed = bench.placeholders();
        for (t, span, what) in all {
            for p in t.placeholders() {
                let ok = allowed.contains(&p.as_str())
                    && !(*what == "prepare" && ["n", "port"].contains(&p.as_str()));
                if !ok {
                    let list: Vec<String> = allowed.iter().map(|a| format!("{{{a}}}")).collect();
                    return Err(ctx.err(
                        *span,
                        Some(id),
                        format!(
                            "unknown placeholder {{{p}}} in `{what}` for {bench} (allowed: {})",
                            list.join(" ")
                        ),
                    ));
                }
            }
        }
        let required = if bench.is_cpu() { "n" } else { "port" };
        if !run.0.placeholders().contains(required) {
            return Err(ctx.err(
                run.1,
                Some(id),
                format!("`run` must pass {{{required}}} to the {bench} program"),
            ));
        }
    }
    Ok(())
}

/// The programs the commands start, in order (the default `needs`).
fn derived_needs<'a>(commands: impl Iterator<Item = &'a Template>) -> Vec<String> {
    let mut needs: Vec<String> = Vec::new();
    for t in commands {
        if let Some(p) = t.program()
            && !needs.iter().any(|n| n == p)
        {
            needs.push(p.to_string());
        }
    }
    needs
}

/// One `[[variant]]`, with its toolchain's values and the conventions filled in.
fn resolve_variant(
    ctx: &mut Ctx,
    id: String,
    v: RawVariant,
    entry: usize,
    shared: &Shared,
) -> Result<Variant, ConfigError> {
    let programs = programs(ctx, &id, &v, shared, entry)?;
    let flags = match &v.flags {
        Some(f) => {
            if *f.get_ref() == id {
                ctx.delete_line(f.span().start, &id, "flags", "is the default (the id)");
            }
            f.get_ref().clone()
        }
        None => id.clone(),
    };
    let (run, run_at) = resolve_run(ctx, &id, &flags, &v, &programs, entry)?;
    let language = resolve_language(ctx, &id, &v, shared, entry)?;
    let RawVariant {
        needs: raw_needs,
        version: raw_version,
        version_regex: raw_regex,
        build,
        prepare,
        env: raw_env,
        cwd: raw_cwd,
        note,
        fails,
        library,
        install: raw_install,
        aliases,
        caches: raw_caches,
        home: raw_home,
        files: raw_files,
        ..
    } = v;
    let own_caches = raw_caches.is_some();
    let caches = home_paths(ctx, &id, "caches", raw_caches.as_ref(), shared.caches)?;
    let home_dirs = home_paths(ctx, &id, "home", raw_home.as_ref(), shared.home)?;
    let files = resolve_files(ctx, &id, raw_files)?;
    let build = templates(ctx, &id, build)?;
    let prepare = templates(ctx, &id, prepare)?;
    let cwd = match &raw_cwd {
        Some(c) => Some((template(ctx, &id, c)?, c.span().start)),
        None => None,
    };
    let mut all: Vec<(&Template, usize, &str)> = vec![(&run, run_at, "run")];
    all.extend(build.iter().map(|(t, s)| (t, *s, "build")));
    all.extend(prepare.iter().map(|(t, s)| (t, *s, "prepare")));
    if let Some((t, s)) = &cwd {
        all.push((t, *s, "cwd"));
    }
    check_placeholders(ctx, &id, &programs, (&run, run_at), &all)?;

    // needs: the variant's, else the toolchain's, else what the commands start.
    let default_needs = match shared.needs {
        Some(n) => n.clone(),
        None => derived_needs(
            build
                .iter()
                .map(|(t, _)| t)
                .chain(prepare.iter().map(|(t, _)| t))
                .chain([&run]),
        ),
    };
    let needs = match raw_needs {
        Some(n) => {
            if *n.get_ref() == default_needs {
                let why = if shared.needs.is_some() {
                    "equals the toolchain's"
                } else {
                    "equals the programs the commands start"
                };
                ctx.delete_line(n.span().start, &id, "needs", why);
            }
            n.into_inner()
        }
        None => default_needs,
    };

    let version = resolve_version(ctx, &id, raw_version, shared, &needs, &run, entry)?;
    let version_regex = resolve_regex(ctx, &id, raw_regex, shared)?;

    let mut env = shared.env.cloned().unwrap_or_default();
    for (k, val) in raw_env {
        if env.get(&k) == Some(val.get_ref()) {
            ctx.delete_line(
                val.span().start,
                &id,
                &format!("env.{k}"),
                "equals the toolchain's",
            );
        }
        env.insert(k, val.into_inner());
    }

    let default_cwd = programs
        .contains_key(&Bench::WsEcho)
        .then(|| "{dir}".to_string());
    let cwd = match raw_cwd {
        Some(c) => {
            let d = default_cwd.as_deref().unwrap_or("{build}");
            if c.get_ref() == d {
                ctx.delete_line(c.span().start, &id, "cwd", "is the default");
            }
            Some(c.into_inner()).filter(|c| c != "{build}")
        }
        None => default_cwd,
    };

    let install = resolve_install(ctx, &id, raw_install, shared)?;
    let maven_home = crate::maven::home(install.maven_spec(&ctx.root));
    let dist_home = install.dist_spec(&ctx.root).map(crate::dist::home);
    Ok(Variant {
        id,
        language,
        flags,
        needs,
        version,
        version_regex,
        build: build.into_iter().map(|(t, _)| t).collect(),
        run,
        prepare: prepare.into_iter().map(|(t, _)| t).collect(),
        env,
        caches,
        home_dirs,
        own_caches,
        toolchain: shared
            .table
            .map(|(name, at)| (name.to_string(), ctx.lines.position(ctx.text, at).0)),
        cwd,
        note,
        fails,
        library,
        programs,
        install,
        maven_home,
        dist_home,
        aliases,
        files,
        line: ctx.lines.position(ctx.text, entry).0,
        root: ctx.root.clone(),
    })
}

/// Directories of a home a sandboxed command may not be given: keys,
/// tokens and every program's settings (`home`), or the real home itself.
const SECRET_HOME_DIRS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".config",
    ".local",
    ".cache",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".m2",
    ".gradle",
    ".cargo",
    ".git-credentials",
    ".password-store",
];

/// `caches` or `home` (`what`): the variant's list, else its toolchain's,
/// as paths relative to HOME. Each entry is `~/` and a relative path
/// without `..`; a `home` entry is none of `SECRET_HOME_DIRS` (nor inside
/// one).
fn home_paths(
    ctx: &mut Ctx,
    id: &str,
    what: &str,
    own: Option<&Spanned<Vec<String>>>,
    shared: Option<&Spanned<Vec<String>>>,
) -> Result<Vec<PathBuf>, ConfigError> {
    if let (Some(o), Some(t)) = (own, shared)
        && o.get_ref() == t.get_ref()
    {
        ctx.delete_line(o.span().start, id, what, "equals the toolchain's");
    }
    let Some(list) = own.or(shared) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for entry in list.get_ref() {
        let bad = |why: &str| {
            ctx.err(
                list.span().start,
                Some(id),
                format!("`{what}` entry {entry:?} {why} (write `~/` and a path under HOME, e.g. \"~/.cache/go-build\")"),
            )
        };
        let Some(rel) = entry.strip_prefix("~/") else {
            return Err(bad("does not start with `~/`"));
        };
        let rel = Path::new(rel);
        if rel.as_os_str().is_empty()
            || !rel
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
        {
            return Err(bad("is not a plain path under HOME (no `..`, `.` or `//`)"));
        }
        if what == "home" && SECRET_HOME_DIRS.iter().any(|s| rel.starts_with(s)) {
            return Err(bad(
                "is a directory of keys, tokens or settings that no sandboxed command may read",
            ));
        }
        out.push(rel.to_path_buf());
    }
    Ok(out)
}

/// `files`: each a glob relative to the languages file's directory, inside
/// it (no `/` first, no `..`), one directory level per `*` (no `**`, so
/// checking it lists a few directories, never the tree), matching at least
/// one file now. Contributed text, so it is only ever matched against path
/// names and listed, never read or run.
fn resolve_files(
    ctx: &Ctx,
    id: &str,
    raw: Option<Spanned<Vec<Spanned<String>>>>,
) -> Result<Vec<glob::Pattern>, ConfigError> {
    let Some(raw) = raw else {
        return Ok(Vec::new());
    };
    if raw.get_ref().is_empty() {
        return Err(ctx.err(
            raw.span().start,
            Some(id),
            "`files` is empty: list the files the commands read (globs such as \"programs/*/*.hx\"), or delete it",
        ));
    }
    let mut out = Vec::new();
    for g in raw.into_inner() {
        let at = g.span().start;
        let text = g.into_inner();
        let bad = |why: &str| ctx.err(at, Some(id), format!("files entry {text:?} {why}"));
        if text.starts_with('/')
            || Path::new(&text)
                .components()
                .any(|c| c == std::path::Component::ParentDir)
        {
            return Err(bad(
                "is outside the repository: give a path relative to the languages file, without `..`",
            ));
        }
        if text.contains("**") {
            return Err(bad(
                "uses `**`: name each directory level (`programs/*/*.hx`)",
            ));
        }
        let pattern = glob::Pattern::new(&text).map_err(|e| bad(&format!("is not a glob: {e}")))?;
        let full = format!(
            "{}/{text}",
            glob::Pattern::escape(&ctx.root.to_string_lossy())
        );
        let matches = glob::glob_with(&full, FILE_GLOB)
            .map_err(|e| bad(&format!("is not a glob: {e}")))?
            .flatten()
            .any(|p| p.is_file());
        if !matches {
            return Err(bad("matches no file"));
        }
        out.push(pattern);
    }
    Ok(out)
}

/// How `files` globs match: `*` and `?` within one path component, and a
/// leading `.` only when written.
pub const FILE_GLOB: glob::MatchOptions = glob::MatchOptions {
    case_sensitive: true,
    require_literal_separator: true,
    require_literal_leading_dot: true,
};

/// `run`: the variant's, else `<flags> {src} {n}` for the CPU benchmarks.
fn resolve_run(
    ctx: &mut Ctx,
    id: &str,
    flags: &str,
    v: &RawVariant,
    programs: &BTreeMap<Bench, PathBuf>,
    entry: usize,
) -> Result<(Template, usize), ConfigError> {
    let default = programs
        .keys()
        .all(|b| b.is_cpu())
        .then(|| format!("{flags} {{src}} {{n}}"));
    match &v.run {
        Some(r) => {
            if default.as_deref() == Some(r.get_ref().as_str()) {
                ctx.delete_line(
                    r.span().start,
                    id,
                    "run",
                    "is the default (`<flags> {src} {n}`)",
                );
            }
            Ok((template(ctx, id, r)?, r.span().start))
        }
        None => {
            let text = default.ok_or_else(|| {
                ctx.err(
                    entry,
                    Some(id),
                    "missing `run` (a ws-echo server has no default)",
                )
            })?;
            let t = Template::parse(&text).map_err(|m| {
                ctx.err(
                    entry,
                    Some(id),
                    format!("the default run `{text}`: {m}; add `run`"),
                )
            })?;
            Ok((t, entry))
        }
    }
}

fn resolve_language(
    ctx: &mut Ctx,
    id: &str,
    v: &RawVariant,
    shared: &Shared,
    entry: usize,
) -> Result<String, ConfigError> {
    match (&v.language, shared.language) {
        (Some(l), Some(t)) if l == t => {
            ctx.lint(
                entry,
                id,
                "`language` equals the toolchain's".into(),
                "delete the `language` line".into(),
            );
            Ok(l.clone())
        }
        (Some(l), _) => Ok(l.clone()),
        (None, Some(t)) => Ok(t.to_string()),
        (None, None) => Err(ctx.err(entry, Some(id), "missing `language`")),
    }
}

/// The version command: the variant's, else the toolchain's, else
/// `<first need> --version`. It takes no placeholders.
fn resolve_version(
    ctx: &mut Ctx,
    id: &str,
    raw: Option<Spanned<String>>,
    shared: &Shared,
    needs: &[String],
    run: &Template,
    entry: usize,
) -> Result<Template, ConfigError> {
    let fallback = needs
        .first()
        .map(String::as_str)
        .or(run.program())
        .map(|p| format!("{p} --version"));
    let default = shared.version.map(str::to_string).or(fallback);
    let (text, at) = match raw {
        Some(s) => {
            if default.as_deref() == Some(s.get_ref().as_str()) {
                let why = if shared.version.is_some() {
                    "equals the toolchain's"
                } else {
                    "is the default (`<first need> --version`)"
                };
                ctx.delete_line(s.span().start, id, "version", why);
            }
            (s.get_ref().clone(), s.span().start)
        }
        None => (
            default.ok_or_else(|| ctx.err(entry, Some(id), "missing `version` command"))?,
            entry,
        ),
    };
    let t = Template::parse(&text).map_err(|m| ctx.err(at, Some(id), m))?;
    if !t.placeholders().is_empty() {
        return Err(ctx.err(at, Some(id), "the version command takes no placeholders"));
    }
    Ok(t)
}

fn resolve_regex(
    ctx: &mut Ctx,
    id: &str,
    raw: Option<Spanned<String>>,
    shared: &Shared,
) -> Result<Option<Regex>, ConfigError> {
    let (text, at) = match raw {
        Some(s) => {
            if shared.version_regex.map(|r| r.0) == Some(s.get_ref().as_str()) {
                ctx.delete_line(
                    s.span().start,
                    id,
                    "version_regex",
                    "equals the toolchain's",
                );
            }
            (s.get_ref().clone(), s.span().start)
        }
        None => match shared.version_regex {
            Some((r, at)) => (r.to_string(), at),
            None => return Ok(None),
        },
    };
    Regex::new(&text)
        .map(Some)
        .map_err(|e| ctx.err(at, Some(id), format!("bad version_regex: {e}")))
}

/// The install table: the variant's, else the toolchain's; the hint is
/// derived from the package lists when the file gives none.
fn resolve_install(
    ctx: &mut Ctx,
    id: &str,
    raw: Option<Spanned<Install>>,
    shared: &Shared,
) -> Result<Install, ConfigError> {
    let mut install = match raw {
        Some(s) => {
            let at = s.span().start;
            s.get_ref()
                .validate(&ctx.root)
                .map_err(|m| ctx.err(at, Some(id), m))?;
            if shared.install == Some(s.get_ref()) {
                ctx.delete_line(at, id, "install", "equals the toolchain's");
            } else if s.get_ref().hint.as_deref() == Some(&s.get_ref().derived_hint()) {
                ctx.lint(
                    at,
                    id,
                    "`install.hint` says what the package lists say".into(),
                    "delete the hint".into(),
                );
            }
            s.into_inner()
        }
        None => shared.install.cloned().unwrap_or_default(),
    };
    install.hint = Some(install.describe());
    Ok(install)
}

/// A languages file of `n` shell variants (`v0`, `v1`, …; four lines each),
/// for the parse benchmark and the complexity test.
pub fn synthetic(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!("[variant.v{i}]\nlanguage = \"Sh\"\next = \"sh\"\nrun = \"sh {{src}} {{n}}\"\n")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir_with(files: &[&str]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for f in files {
            let p = d.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        }
        d
    }

    const GOOD: &str = r#"
[[variant]]
id = "c-gcc"
language = "C"
flags = "gcc -O2"
version = "gcc --version"
build = "gcc -O2 -o {exe} {src}"
run = "{exe} {n}"
programs = { assoc = "programs/assoc/assoc.c" }
install = { apt = ["gcc"] }
"#;

    fn parse(text: &str, d: &tempfile::TempDir) -> Result<Languages, ConfigError> {
        Languages::parse(text, &d.path().join("languages.toml"))
    }

    #[test]
    fn parses_a_good_entry_and_defaults_needs() {
        let d = dir_with(&["programs/assoc/assoc.c"]);
        let l = parse(GOOD, &d).unwrap();
        let v = &l.variants[0];
        assert_eq!(v.needs, vec!["gcc"]);
        assert_eq!(v.line, 2);
        let vars = Vars {
            build: "/b".into(),
            n: Some(7),
            ..v.vars(Bench::Assoc, Path::new("/b")).unwrap()
        };
        assert_eq!(v.run.expand(&vars), vec!["/b/prog", "7"]);
        assert!(v.build[0].expand(&vars)[4].ends_with("programs/assoc/assoc.c"));
    }

    /// A variant knows the toolchain table it shares and where that table
    /// is (`check` spells a fix there), and whether its caches are its own.
    #[test]
    fn a_variant_knows_its_toolchain_table_and_where_its_caches_come_from() {
        let d = dir_with(&["programs/assoc/assoc.c"]);
        let text = format!(
            "[toolchain.gcc]\nneeds = [\"gcc\"]\ncaches = [\"~/.cache/ccache\"]\n\n{}",
            GOOD.replace("install =", "toolchain = \"gcc\"\ninstall =")
        );
        let l = parse(&text, &d).unwrap();
        let v = &l.variants[0];
        assert_eq!(v.toolchain, Some(("gcc".to_string(), 1)));
        assert_eq!(v.caches, [PathBuf::from(".cache/ccache")]);
        assert!(!v.own_caches);
        let own = text.replace("run = ", "caches = [\"~/.cache/mine\"]\nrun = ");
        let l = parse(&own, &d).unwrap();
        assert!(l.variants[0].own_caches);
        assert_eq!(parse(GOOD, &d).unwrap().variants[0].toolchain, None);
    }

    #[test]
    fn unknown_key_names_the_line() {
        let d = dir_with(&["programs/assoc/assoc.c"]);
        let bad = GOOD.replace("flags = ", "flagz = ");
        let e = parse(&bad, &d).unwrap_err();
        assert_eq!(e.line, 5, "{e}");
        assert!(e.to_string().contains("flagz"), "{e}");
    }

    #[test]
    fn duplicate_id_names_both_lines() {
        let d = dir_with(&["programs/assoc/assoc.c"]);
        let e = parse(&format!("{GOOD}{GOOD}"), &d).unwrap_err();
        assert_eq!(e.line, 13, "{e}");
        assert!(
            e.to_string()
                .contains("duplicate id (first defined at line 3)"),
            "{e}"
        );
    }

    #[test]
    fn missing_program_file_is_an_error() {
        let d = dir_with(&[]);
        let e = parse(GOOD, &d).unwrap_err();
        assert_eq!(e.line, 9);
        assert!(e.message.contains("does not exist"), "{e}");
    }

    #[test]
    fn bad_placeholder_and_missing_size() {
        let d = dir_with(&["programs/assoc/assoc.c"]);
        let e = parse(&GOOD.replace("{exe} {n}", "{exe} {size}"), &d).unwrap_err();
        assert_eq!(e.line, 8);
        assert!(e.message.contains("unknown placeholder {size}"), "{e}");
        let e = parse(&GOOD.replace("{exe} {n}", "{exe}"), &d).unwrap_err();
        assert!(e.message.contains("must pass {n}"), "{e}");
    }

    #[test]
    fn unknown_benchmark_and_syntax_errors() {
        let d = dir_with(&["programs/assoc/assoc.c"]);
        let e = parse(&GOOD.replace("{ assoc =", "{ asoc ="), &d).unwrap_err();
        assert_eq!(e.line, 9);
        assert!(e.message.contains("unknown benchmark \"asoc\""), "{e}");
        let e = parse("[[variant]\nid=1", &d).unwrap_err();
        assert_eq!(e.line, 1, "{e}");
    }

    #[test]
    fn needs_check_executables_files_and_globs() {
        let d = dir_with(&["programs/assoc/assoc.c", "lib/foo-1.2.conf"]);
        let text = GOOD.replace(
            "version = \"gcc --version\"",
            "version = \"gcc --version\"\nneeds = [\"sh\", \"lib/foo-*.conf\", \"lib/bar-*.conf\", \"/no/such/file.h\", \"no-such-exe-xyz\"]",
        );
        let l = parse(&text, &d).unwrap();
        assert_eq!(
            l.variants[0].missing(),
            vec!["lib/bar-*.conf", "/no/such/file.h", "no-such-exe-xyz"]
        );
    }

    #[test]
    fn version_parsing() {
        let d = dir_with(&["programs/assoc/assoc.c"]);
        let l = parse(GOOD, &d).unwrap();
        let v = &l.variants[0];
        assert_eq!(
            v.parse_version("gcc (Debian 12.2.0-14+deb12u1) 12.2.0\nCopyright")
                .as_deref(),
            Some("12.2.0-14+deb12u1")
        );
        let l = parse(
            &GOOD.replace(
                "version = \"gcc --version\"",
                "version = \"gcc --version\"\nversion_regex = '\\) (\\S+)'",
            ),
            &d,
        )
        .unwrap();
        assert_eq!(
            l.variants[0]
                .parse_version("gcc (Debian 12.2.0-14) 12.2.0\n")
                .as_deref(),
            Some("12.2.0")
        );
    }

    #[test]
    fn toml_errors_name_line_and_column() {
        let d = dir_with(&["programs/assoc/assoc.c"]);
        let e = parse(
            "[variant.x]\nlanguage = \"C\"\nrun = \"x {src} {n}\nflags = 1\n",
            &d,
        )
        .unwrap_err();
        assert_eq!((e.line, e.column), (3, 19), "{e}");
        assert!(e.to_string().contains("languages.toml:3:19:"), "{e}");
        let bad = GOOD.replace("flags = ", "flagz = ");
        let e = parse(&bad, &d).unwrap_err();
        assert_eq!((e.line, e.column), (5, 1), "{e}");
    }

    const SHORT: &str = r#"
[toolchain.cc]
needs = ["gcc"]
version_regex = '(\d+)'
install = { apt = ["gcc"] }

[variant.c-gcc]
language = "C"
flags = "gcc -O2"
toolchain = "cc"
ext = "c"
build = "gcc -O2 -o {exe} {src}"
run = "{exe} {n}"

[variant.tcc]
language = "C"
ext = "c"
"#;

    fn c_files() -> tempfile::TempDir {
        dir_with(&[
            "programs/assoc/assoc.c",
            "programs/num-comb/num_comb.c",
            "programs/str-comb/str_comb.c",
        ])
    }

    #[test]
    fn conventions_fill_in_programs_needs_version_run_and_hint() {
        let d = c_files();
        let l = parse(SHORT, &d).unwrap();
        assert!(l.lints.is_empty(), "{:?}", l.lints);
        let gcc = &l.variants[0];
        assert_eq!(gcc.programs.len(), 3);
        assert!(gcc.programs[&Bench::NumComb].ends_with("programs/num-comb/num_comb.c"));
        assert_eq!(gcc.needs, vec!["gcc"]);
        assert_eq!(gcc.version.text, "gcc --version");
        assert_eq!(gcc.version_regex.as_ref().unwrap().as_str(), r"(\d+)");
        assert_eq!(gcc.install.describe(), "apt-get install gcc");
        assert_eq!(gcc.line, 7);
        let tcc = &l.variants[1];
        assert_eq!(tcc.flags, "tcc");
        assert_eq!(tcc.run.text, "tcc {src} {n}");
        assert_eq!(tcc.needs, vec!["tcc"]);
        assert_eq!(tcc.install.describe(), "no install instructions");
    }

    #[test]
    fn a_field_equal_to_its_default_is_a_lint_with_the_line_to_delete() {
        let d = c_files();
        let text = SHORT
            .replace("ext = \"c\"\nbuild", "ext = \"c\"\nneeds = [\"gcc\"]\nbuild")
            .replace("language = \"C\"\next = \"c\"\n", "language = \"C\"\nflags = \"tcc\"\next = \"c\"\nrun = \"tcc {src} {n}\"\nversion = \"tcc --version\"\ninstall = { apt = [\"tcc\"], hint = \"apt-get install tcc\" }\nprograms = { assoc = \"programs/assoc/assoc.c\" }\n");
        let l = parse(&text, &d).unwrap();
        let got: Vec<(usize, &str, &str)> = l
            .lints
            .iter()
            .map(|x| (x.line, x.variant.as_str(), x.fix.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (12, "c-gcc", "delete line 12"),
                (23, "tcc", "delete line 23"),
                (18, "tcc", "delete line 18"),
                (20, "tcc", "delete line 20"),
                (21, "tcc", "delete line 21"),
                (22, "tcc", "delete the hint"),
            ],
            "{:#?}",
            l.lints
        );
        assert!(
            l.lints[0]
                .message
                .contains("`needs` equals the toolchain's")
        );
    }

    #[test]
    fn unknown_toolchain_and_unused_toolchain() {
        let d = c_files();
        let e = parse(
            &SHORT.replace("toolchain = \"cc\"", "toolchain = \"gcc\""),
            &d,
        )
        .unwrap_err();
        assert_eq!(e.line, 10);
        assert!(
            e.message
                .contains("unknown toolchain \"gcc\" (defined: cc)"),
            "{e}"
        );
        let l = parse(
            &format!("{SHORT}\n[toolchain.unused]\nneeds = [\"x\"]\n"),
            &d,
        )
        .unwrap();
        assert_eq!(l.lints.len(), 1);
        assert_eq!(l.lints[0].fix, "delete [toolchain.unused]");
    }

    #[test]
    fn files_are_globs_inside_the_repository_that_match_a_file() {
        let d = dir_with(&["programs/assoc/assoc.c", "programs/assoc/util.h"]);
        let with = |files: &str| format!("{GOOD}files = {files}\n");
        let v = parse(&with(r#"["programs/*/*.h"]"#), &d).unwrap();
        let g = &v.variants[0].files;
        assert_eq!(g.len(), 1);
        assert!(g[0].matches_path_with(Path::new("programs/assoc/util.h"), FILE_GLOB));
        assert!(!g[0].matches_path_with(Path::new("programs/assoc/sub/util.h"), FILE_GLOB));
        assert!(!g[0].matches_path_with(Path::new("programs/assoc/assoc.c"), FILE_GLOB));
        for (files, says) in [
            ("[]", "`files` is empty"),
            (r#"["/etc/*"]"#, "\"/etc/*\" is outside the repository"),
            (r#"["../x/*.h"]"#, "\"../x/*.h\" is outside the repository"),
            (r#"["programs/**/*.h"]"#, "uses `**`"),
            (r#"["programs/[a/*.h"]"#, "is not a glob"),
            (
                r#"["programs/*/*.hx"]"#,
                "\"programs/*/*.hx\" matches no file",
            ),
        ] {
            let e = parse(&with(files), &d).unwrap_err();
            assert_eq!(e.line, 11, "{files}: {e}");
            assert!(e.message.contains("variant \"c-gcc\""), "{e}");
            assert!(e.message.contains(says), "{files}: {e}");
        }
    }

    #[test]
    fn id_is_the_table_name() {
        let d = c_files();
        let e = parse(
            &SHORT.replace("[variant.tcc]\n", "[variant.tcc]\nid = \"tcc\"\n"),
            &d,
        )
        .unwrap_err();
        assert!(e.message.contains("the table name is the id"), "{e}");
    }

    #[test]
    fn maven_installs_are_checked_with_the_line() {
        let d = c_files();
        let entry = |install: &str| {
            format!(
                "[variant.tcc]\nlanguage = \"C\"\next = \"c\"\n\n[variant.tcc.install]\n{install}\n"
            )
        };
        let good = entry(
            "maven = [\"org.clojure:clojure:1.12.6\"]\nbin = { tcc = \"java -cp {home}/lib/* clojure.main\" }",
        );
        let l = parse(&good, &d).unwrap();
        let v = &l.variants[0];
        assert!(v.install.is_installable());
        let home = v.maven_home.clone().unwrap();
        assert!(home.ends_with(crate::maven::dir_name(v.install.maven_spec(v.root()))));
        assert!(
            v.install
                .describe()
                .contains("Maven Central: org.clojure:clojure:1.12.6"),
            "{}",
            v.install.describe()
        );
        // The launcher is run by its full path, its bin/ first on PATH.
        let req = v.request(vec!["tcc".into(), "x".into()], Path::new("/"));
        assert_eq!(Path::new(&req.argv[0]), home.join("bin/tcc"));
        let path = req.env.iter().find(|(k, _)| k == "PATH").unwrap();
        assert!(path.1.starts_with(&home.join("bin").display().to_string()));
        assert!(req.readable.contains(&home));
        for (install, want) in [
            (
                "maven = [\"org.clojure:clojure\"]\nbin = { tcc = \"java\" }",
                "is not `group:artifact:version`",
            ),
            (
                "maven = [\"org.clojure:clojure:RELEASE\"]\nbin = { tcc = \"java\" }",
                "moves",
            ),
            (
                "maven = [\"org.clojure:clojure:1.12.6\"]",
                "without `install.bin`",
            ),
            ("bin = { tcc = \"java\" }", "without `install.maven`"),
            (
                "maven = [\"org.clojure:clojure:1.12.6\"]\nbin = { tcc = \"java -cp {lib}\" }",
                "unknown placeholder {lib}",
            ),
        ] {
            let e = parse(&entry(install), &d).unwrap_err();
            assert_eq!(e.line, 5, "{install}: {e}");
            assert!(e.message.contains(want), "{install}: {e}");
            assert!(e.to_string().contains("languages.toml:5:"), "{e}");
        }
        let e = parse(
            &format!("[toolchain.j]\ninstall = {{ bin = {{ x = \"java\" }} }}\n{SHORT}"),
            &d,
        )
        .unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        assert!(
            e.message.contains("toolchain \"j\": `install.bin` without"),
            "{e}"
        );
    }

    /// issue #9: a placeholder inside `sh -c '…'` is substituted quoted, so
    /// a directory with a space, or with `$(…)` in its name, is one literal
    /// word of the script (checked by running the script with a real sh).
    #[test]
    fn placeholders_in_a_shell_script_are_quoted() {
        let d = tempfile::tempdir().unwrap();
        let evil = d.path().join("a b $(touch pwned) `touch pwned2`; x");
        std::fs::create_dir_all(&evil).unwrap();
        std::fs::write(evil.join("p.txt"), "hello\n").unwrap();
        let t = Template::parse("sh -c 'cat {dir}/p.txt && echo {n}'").unwrap();
        let vars = Vars {
            dir: evil.display().to_string(),
            n: Some(5),
            ..Default::default()
        };
        let argv = t.expand(&vars);
        let out = std::process::Command::new(&argv[0])
            .args(&argv[1..])
            .current_dir(d.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "hello\n5\n");
        assert!(!d.path().join("pwned").exists() && !d.path().join("pwned2").exists());
        // Outside a shell script the value stays one argv word, unquoted.
        let plain = Template::parse("cat {dir}/p.txt").unwrap().expand(&vars);
        assert_eq!(plain[1], format!("{}/p.txt", evil.display()));
        // Quotes around a placeholder in a script would quote it twice.
        let e = Template::parse(r#"sh -c 'cat "{dir}/p.txt"'"#).unwrap_err();
        assert!(e.contains("inside quotes"), "{e}");
    }
}
