//! The resolvers: a raw variant and the toolchain table it names become a
//! [`Variant`], its conventions and defaults filled in, every reference
//! checked (ids, programs inside the checkout, placeholders, home paths).
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use regex::Regex;
use toml::Spanned;

use crate::bench::Bench;

use super::errors::*;
use super::lints::*;
use super::raw::*;
use super::template::*;
use super::variant::*;

/// What a variant's toolchain table gives it (empty without one).
#[derive(Default)]
pub(super) struct Shared<'a> {
    pub(super) language: Option<&'a str>,
    pub(super) ext: Option<(&'a str, usize)>,
    pub(super) needs: Option<&'a Vec<String>>,
    pub(super) version: Option<&'a str>,
    pub(super) version_regex: Option<(&'a str, usize)>,
    pub(super) install: Option<&'a Install>,
    pub(super) env: Option<&'a BTreeMap<String, String>>,
    pub(super) caches: Option<&'a Spanned<Vec<String>>>,
    pub(super) home: Option<&'a Spanned<Vec<String>>>,
    /// The table's name and where it starts.
    pub(super) table: Option<(&'a str, usize)>,
}

impl<'a> Shared<'a> {
    pub(super) fn of(name: &'a str, t: &'a Spanned<RawToolchain>) -> Self {
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

/// The directory program paths resolve against: the languages file's.
pub(super) fn root_of(path: &Path) -> Result<PathBuf, String> {
    let root = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    root.canonicalize()
        .map_err(|e| format!("cannot resolve directory {}: {e}", root.display()))
}

pub(super) static ID: std::sync::LazyLock<Regex> =
    std::sync::LazyLock::new(|| Regex::new(r"^[a-z0-9][a-z0-9.\-]*$").expect("valid regex"));

/// The longest id: it names directories (caches, prepared copies) and
/// anchors, and is a table's label; the longest today has 25 characters.
pub(crate) const MAX_ID: usize = 64;

/// Why `id` is not a variant id, if it is not one: the one rule for the
/// languages file and for `langbench new`.
pub(crate) fn id_problem(id: &str) -> Option<String> {
    if !ID.is_match(id) {
        return Some(
            "id must be lowercase letters, digits, '-' or '.' (and start with a letter or digit)"
                .into(),
        );
    }
    if id.len() > MAX_ID {
        return Some(format!("id has {} characters: at most {MAX_ID}", id.len()));
    }
    None
}

pub(super) fn check_id(
    ctx: &Ctx,
    id: &Spanned<String>,
    seen: &mut BTreeMap<String, usize>,
) -> Result<(), ConfigError> {
    let at = id.span().start;
    let name = id.get_ref();
    if let Some(why) = id_problem(name) {
        let shown = langbench_document::inert::clip(name, MAX_ID);
        return Err(ctx.err(at, Some(&shown), why));
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

/// Refuses a string (a value or a key) of the file longer than
/// [`langbench_document::inert::MAX_FIELD`] characters, naming its line: every field is
/// published or printed somewhere, and crates/document/src/inert.rs says why the bound. A
/// file that does not parse is left to the parser's own error.
pub(super) fn check_lengths(ctx: &Ctx) -> Result<(), ConfigError> {
    use toml::de::{DeTable, DeValue};
    fn value(ctx: &Ctx, v: &Spanned<DeValue>) -> Result<(), ConfigError> {
        match v.get_ref() {
            DeValue::String(s) => long(ctx, s, v.span().start),
            DeValue::Array(a) => a.iter().try_for_each(|x| value(ctx, x)),
            DeValue::Table(t) => table(ctx, t),
            _ => Ok(()),
        }
    }
    fn table(ctx: &Ctx, t: &DeTable) -> Result<(), ConfigError> {
        for (k, v) in t.iter() {
            long(ctx, k.get_ref(), k.span().start)?;
            value(ctx, v)?;
        }
        Ok(())
    }
    fn long(ctx: &Ctx, s: &str, at: usize) -> Result<(), ConfigError> {
        let n = s.chars().count();
        if n > langbench_document::inert::MAX_FIELD {
            return Err(ctx.err(
                at,
                None,
                format!(
                    "a text of {n} characters: a field of the languages file holds at most {} \
                     (the longest note today has about 1,200)",
                    langbench_document::inert::MAX_FIELD
                ),
            ));
        }
        Ok(())
    }
    match DeTable::parse(ctx.text) {
        Ok(t) => table(ctx, t.get_ref()),
        Err(_) => Ok(()),
    }
}

pub(super) fn template(ctx: &Ctx, id: &str, s: &Spanned<String>) -> Result<Template, ConfigError> {
    Template::parse(s.get_ref()).map_err(|m| ctx.err(s.span().start, Some(id), m))
}

/// A command or a list of commands, each with the offset of its field.
pub(super) fn templates(
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
pub(super) fn programs(
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
pub(super) fn inside_root(ctx: &Ctx, file: &str) -> Result<PathBuf, &'static str> {
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
    match ctx.canon.real(&full) {
        Ok(real) if !real.starts_with(&ctx.root) => Err("a symlink leads out"),
        _ => Ok(full),
    }
}

/// Every placeholder must be known to every benchmark the variant runs, and
/// `run` must pass the size (or the port).
pub(super) fn check_placeholders(
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
                // `prepare` runs untimed, before the runs, and is never
                // given the size (or port) a run is measured at: with it,
                // it could compute the answer the timed run then prints
                // (issue #37, row 5).
                if *what == "prepare" && ["n", "port"].contains(&p.as_str()) {
                    return Err(ctx.err(
                        *span,
                        Some(id),
                        format!(
                            "`prepare` uses {{{p}}}, the size a run is measured at: `prepare` \
                             runs untimed before the runs and is never given it (work that \
                             depends on it belongs in `build` or `run`, which are timed); \
                             expected only {{src}} {{dir}} {{build}} {{exe}} in `prepare`"
                        ),
                    ));
                }
                if !allowed.contains(&p.as_str()) {
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
pub(super) fn derived_needs<'a>(commands: impl Iterator<Item = &'a Template>) -> Vec<String> {
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
pub(super) fn resolve_variant(
    ctx: &mut Ctx,
    id: String,
    v: RawVariant,
    entry: usize,
    shared: &Shared,
) -> Result<Variant, ConfigError> {
    let programs = programs(ctx, &id, &v, shared, entry)?;
    let flags = resolve_flags(ctx, &id, &v);
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
    let caches_at = raw_caches
        .as_ref()
        .or(shared.caches)
        .map(|l| l.span().start);
    let home_at = raw_home.as_ref().or(shared.home).map(|l| l.span().start);
    let caches = home_paths(ctx, &id, "caches", raw_caches.as_ref(), shared.caches)?;
    let home_dirs = home_paths(ctx, &id, "home", raw_home.as_ref(), shared.home)?;
    no_overlap(ctx, &id, (&caches, caches_at), (&home_dirs, home_at))?;
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

    let commands = build
        .iter()
        .map(|(t, _)| t)
        .chain(prepare.iter().map(|(t, _)| t))
        .chain([&run]);
    let needs = resolve_needs(ctx, &id, raw_needs, shared, commands);
    check_home_allowed(ctx, &id, &home_dirs, home_at.unwrap_or(entry))?;

    let version = resolve_version(ctx, &id, raw_version, shared, &needs, &run, entry)?;
    let version_regex = resolve_regex(ctx, &id, raw_regex, shared)?;

    let env = merge_env(ctx, &id, raw_env, shared);
    let cwd = resolve_cwd(ctx, &id, raw_cwd, &programs);

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

/// `flags`: the variant's, else its id (a `flags` equal to the id is linted away).
fn resolve_flags(ctx: &mut Ctx, id: &str, v: &RawVariant) -> String {
    match &v.flags {
        Some(f) => {
            if *f.get_ref() == id {
                ctx.delete_line(f.span().start, id, "flags", "is the default (the id)");
            }
            f.get_ref().clone()
        }
        None => id.to_string(),
    }
}

/// `needs`: the variant's, else the toolchain's, else what the commands start.
fn resolve_needs<'t>(
    ctx: &mut Ctx,
    id: &str,
    raw_needs: Option<Spanned<Vec<String>>>,
    shared: &Shared,
    commands: impl Iterator<Item = &'t Template>,
) -> Vec<String> {
    let default_needs = match shared.needs {
        Some(n) => n.clone(),
        None => derived_needs(commands),
    };
    match raw_needs {
        Some(n) => {
            if *n.get_ref() == default_needs {
                let why = if shared.needs.is_some() {
                    "equals the toolchain's"
                } else {
                    "equals the programs the commands start"
                };
                ctx.delete_line(n.span().start, id, "needs", why);
            }
            n.into_inner()
        }
        None => default_needs,
    }
}

/// Every `home` entry must be on HOME's allowlist (`spawn::home`): a
/// toolchain manager's directory that holds nothing but toolchains
/// (meaning the parts its toolchains read), or one of a manager's parts,
/// or what lies in one. Judged by name alone, the same on every machine:
/// never HOME itself, a directory that holds credentials (`~/.cabal`,
/// `~/.gem`, a checkout such as `~/.pyenv`), or anything else.
fn check_home_allowed(
    ctx: &Ctx,
    id: &str,
    home_dirs: &[PathBuf],
    at: usize,
) -> Result<(), ConfigError> {
    use langbench_spawn::home::MANAGERS;
    for rel in home_dirs {
        let Some(why) = langbench_spawn::home::refused(rel) else {
            continue;
        };
        let dir = |m: &langbench_spawn::home::Manager| format!("~/{}", m.dir);
        let whole: Vec<String> = MANAGERS
            .iter()
            .filter(|m| m.holds.is_none())
            .map(dir)
            .collect();
        let parts: Vec<String> = MANAGERS
            .iter()
            .filter(|m| m.holds.is_some())
            .map(dir)
            .collect();
        return Err(ctx.err(
            at,
            Some(id),
            format!(
                "`home` entry \"~/{}\" {why}. A sandboxed command reads what a `home` entry names, and a home \
                 holds tokens no list of secrets knows, so HOME's allowlist is: a toolchain manager's directory \
                 ({}), meaning the parts its toolchains read, or one of those parts or what lies in one; for {} \
                 only their parts (~/.pyenv/versions, ~/.cabal/store; docs/containment.md lists them all)",
                rel.display(),
                whole.join(", "),
                parts.join(", ")
            ),
        ));
    }
    Ok(())
}

/// `env`: the toolchain's, overridden by the variant's (a repeated value is linted away).
fn merge_env(
    ctx: &mut Ctx,
    id: &str,
    raw_env: BTreeMap<String, Spanned<String>>,
    shared: &Shared,
) -> BTreeMap<String, String> {
    let mut env = shared.env.cloned().unwrap_or_default();
    for (k, val) in raw_env {
        if env.get(&k) == Some(val.get_ref()) {
            ctx.delete_line(
                val.span().start,
                id,
                &format!("env.{k}"),
                "equals the toolchain's",
            );
        }
        env.insert(k, val.into_inner());
    }
    env
}

/// `cwd`: `{dir}` for a WebSocket server, else the build directory (`None`).
fn resolve_cwd(
    ctx: &mut Ctx,
    id: &str,
    raw_cwd: Option<Spanned<String>>,
    programs: &BTreeMap<Bench, PathBuf>,
) -> Option<String> {
    let default_cwd = programs
        .contains_key(&Bench::WsEcho)
        .then(|| "{dir}".to_string());
    match raw_cwd {
        Some(c) => {
            let d = default_cwd.as_deref().unwrap_or("{build}");
            if c.get_ref() == d {
                ctx.delete_line(c.span().start, id, "cwd", "is the default");
            }
            Some(c.into_inner()).filter(|c| c != "{build}")
        }
        None => default_cwd,
    }
}

/// The `caches` and `home` entries of a variant never overlap (one inside
/// the other, or the same): a run could replace a directory of the outer
/// one by a link that the inner one's set-up, as root, would follow. The
/// error is at the list of the second entry of the first pair.
pub(super) fn no_overlap(
    ctx: &Ctx,
    id: &str,
    caches: (&[PathBuf], Option<usize>),
    home: (&[PathBuf], Option<usize>),
) -> Result<(), ConfigError> {
    let all: Vec<(&PathBuf, &str, Option<usize>)> = caches
        .0
        .iter()
        .map(|p| (p, "caches", caches.1))
        .chain(home.0.iter().map(|p| (p, "home", home.1)))
        .collect();
    for (i, (a, what_a, _)) in all.iter().enumerate() {
        for (b, what_b, at) in &all[i + 1..] {
            if a.starts_with(b) || b.starts_with(a) {
                let entries = if what_a == what_b {
                    format!("`{what_a}` entries")
                } else {
                    format!("the `{what_a}` and `{what_b}` entries")
                };
                return Err(ctx.err(
                    at.unwrap_or(0),
                    Some(id),
                    format!(
                        "{entries} \"~/{}\" and \"~/{}\" overlap (one is, or lies inside, the other): a run could \
                         replace a directory of the outer one by a link that setting up the inner one would follow; \
                         give each its own directory",
                        a.display(),
                        b.display()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// `caches` or `home` (`what`): the variant's list, else its toolchain's,
/// as paths relative to HOME. Each entry is `~/` and a relative path
/// without `..`, never HOME itself (`check_home_allowed` judges the
/// `home` entries).
pub(super) fn home_paths(
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
        if rel.as_os_str().is_empty() {
            return Err(bad(
                "is HOME itself, which holds every key and token of its owner",
            ));
        }
        if !rel
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
        {
            return Err(bad("is not a plain path under HOME (no `..`, `.` or `//`)"));
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
pub(super) fn resolve_files(
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
pub(crate) const FILE_GLOB: glob::MatchOptions = glob::MatchOptions {
    case_sensitive: true,
    require_literal_separator: true,
    require_literal_leading_dot: true,
};

/// `run`: the variant's, else `<flags> {src} {n}` for the CPU benchmarks.
pub(super) fn resolve_run(
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

pub(super) fn resolve_language(
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
pub(super) fn resolve_version(
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

pub(super) fn resolve_regex(
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
    if let Some(re) = ctx.regexes.get(&text) {
        return Ok(Some(re.clone()));
    }
    let re =
        Regex::new(&text).map_err(|e| ctx.err(at, Some(id), format!("bad version_regex: {e}")))?;
    ctx.regexes.insert(text, re.clone());
    Ok(Some(re))
}

/// The install table: the variant's, else the toolchain's; the hint is
/// derived from the package lists when the file gives none.
pub(super) fn resolve_install(
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
