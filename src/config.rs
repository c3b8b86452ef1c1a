//! `languages.toml`: every language variant, how to version, install, build
//! and run it. Adding a language is a TOML entry plus program files; every
//! mistake in the file is reported with the file, the line and what was
//! expected.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use regex::Regex;
use serde::Deserialize;
use toml::Spanned;

use crate::bench::Bench;

/// An error in `languages.toml`, pointing at the line.
#[derive(Debug, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct ConfigError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    variant: Vec<Spanned<RawVariant>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVariant {
    id: Spanned<String>,
    language: String,
    flags: String,
    #[serde(default)]
    needs: Vec<String>,
    version: Option<Spanned<String>>,
    version_regex: Option<Spanned<String>>,
    build: Option<Spanned<OneOrMany>>,
    run: Spanned<String>,
    prepare: Option<Spanned<OneOrMany>>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<Spanned<String>>,
    note: Option<String>,
    library: Option<String>,
    programs: Spanned<BTreeMap<Spanned<String>, Spanned<String>>>,
    #[serde(default)]
    install: Install,
    #[serde(default)]
    aliases: Vec<Alias>,
}

/// Another name under which a published edition listed a variant: its
/// command flags then (`"pypy"`), or a language and flags
/// (`{ language = "Bun", flags = "built-in (Bun.serve)" }`) where the
/// language differs too. `langbench import` and `compare` match editions'
/// rows to variants through them, so renames are data, not code.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(untagged)]
pub enum Alias {
    Flags(String),
    Full { language: String, flags: String },
}

/// How to install a variant's toolchain.
#[derive(Debug, Clone, Default, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Install {
    /// Debian packages.
    #[serde(default)]
    pub apt: Vec<String>,
    /// Global npm packages.
    #[serde(default)]
    pub npm: Vec<String>,
    /// PyPI packages.
    #[serde(default)]
    pub pip: Vec<String>,
    /// One line for humans.
    pub hint: Option<String>,
}

impl Install {
    /// Whether a package registry reachable by `toolchains install` provides it.
    pub fn is_installable(&self) -> bool {
        !(self.apt.is_empty() && self.npm.is_empty() && self.pip.is_empty())
    }

    pub fn describe(&self) -> String {
        if let Some(h) = &self.hint {
            return h.clone();
        }
        let mut parts = Vec::new();
        if !self.apt.is_empty() {
            parts.push(format!("apt-get install {}", self.apt.join(" ")));
        }
        if !self.npm.is_empty() {
            parts.push(format!("npm install -g {}", self.npm.join(" ")));
        }
        if !self.pip.is_empty() {
            parts.push(format!("pip install {}", self.pip.join(" ")));
        }
        if parts.is_empty() {
            "no install instructions".into()
        } else {
            parts.join("; ")
        }
    }
}

/// A command template: words split like a shell would (but never run by
/// one), with `{placeholder}`s substituted inside words.
#[derive(Debug, Clone)]
pub struct Template {
    pub text: String,
    words: Vec<String>,
}

/// Values for the placeholders of a template.
#[derive(Debug, Clone, Default)]
pub struct Vars {
    pub src: String,
    pub dir: String,
    pub build: String,
    pub n: Option<u64>,
    pub port: Option<u16>,
}

impl Vars {
    fn get(&self, name: &str) -> Option<String> {
        match name {
            "src" => Some(self.src.clone()),
            "dir" => Some(self.dir.clone()),
            "build" => Some(self.build.clone()),
            "exe" => Some(format!("{}/prog", self.build)),
            "n" => self.n.map(|n| n.to_string()),
            "port" => self.port.map(|p| p.to_string()),
            _ => None,
        }
    }
}

static PLACEHOLDER: std::sync::LazyLock<Regex> =
    std::sync::LazyLock::new(|| Regex::new(r"\{([A-Za-z_][A-Za-z0-9_]*)\}").expect("valid regex"));

impl Template {
    fn parse(text: &str) -> Result<Self, String> {
        let words = shell_words::split(text).map_err(|e| format!("cannot split {text:?}: {e}"))?;
        if words.is_empty() {
            return Err("empty command".into());
        }
        Ok(Template {
            text: text.to_string(),
            words,
        })
    }

    /// Placeholder names used in the template.
    pub fn placeholders(&self) -> BTreeSet<String> {
        self.words
            .iter()
            .flat_map(|w| PLACEHOLDER.captures_iter(w).map(|c| c[1].to_string()))
            .collect()
    }

    /// The argv with placeholders substituted.
    pub fn expand(&self, vars: &Vars) -> Vec<String> {
        self.words.iter().map(|w| expand_str(w, vars)).collect()
    }

    /// The program (first word) when it is a plain name, not a placeholder.
    fn program(&self) -> Option<&str> {
        let w = self.words.first()?;
        (!w.contains('{')).then_some(w.as_str())
    }
}

fn expand_str(s: &str, vars: &Vars) -> String {
    PLACEHOLDER
        .replace_all(s, |c: &regex::Captures| {
            vars.get(&c[1]).unwrap_or_else(|| c[0].to_string())
        })
        .into_owned()
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
    cwd: Option<String>,
    pub note: Option<String>,
    pub library: Option<String>,
    pub programs: BTreeMap<Bench, PathBuf>,
    pub install: Install,
    /// Names the editions used for this variant (see [`Alias`]).
    pub aliases: Vec<Alias>,
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

    /// A spawn request for `argv` in `cwd` with the variant's environment.
    pub fn request(&self, argv: Vec<String>, cwd: &Path) -> crate::spawn::Request {
        let mut req = crate::spawn::Request::new(argv, cwd);
        req.readable_root = Some(self.root.clone());
        req.env = self
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        req
    }

    /// Entries of `needs` that are not there: executables not on PATH, and
    /// files (entries with a '/', e.g. a header; relative ones resolve
    /// against the languages file's directory) that do not exist.
    pub fn missing(&self) -> Vec<String> {
        self.needs
            .iter()
            .filter(|n| {
                if n.contains('/') {
                    !path_exists(&self.root.join(n))
                } else {
                    which::which(n).is_err()
                }
            })
            .cloned()
            .collect()
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
        let file = path.display().to_string();
        let line_of = |offset: usize| text[..offset.min(text.len())].matches('\n').count() + 1;
        let err = |offset: usize, message: String| ConfigError {
            file: file.clone(),
            line: line_of(offset),
            message,
        };
        let raw: RawFile = toml::from_str(text).map_err(|e| {
            err(
                e.span().map_or(0, |s| s.start),
                e.message().trim().to_string(),
            )
        })?;
        let root = path
            .parent()
            .map(|p| {
                if p.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    p
                }
            })
            .unwrap_or(Path::new("."));
        let root = root.canonicalize().map_err(|e| {
            err(
                0,
                format!("cannot resolve directory {}: {e}", root.display()),
            )
        })?;
        if raw.variant.is_empty() {
            return Err(err(0, "no [[variant]] entries".into()));
        }
        let id_re = Regex::new(r"^[a-z0-9][a-z0-9.\-]*$").expect("valid regex");
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        let mut variants = Vec::new();
        for spanned in raw.variant {
            let entry_start = spanned.span().start;
            let v = spanned.into_inner();
            let id = v.id.get_ref().clone();
            let at = |offset: usize, msg: String| err(offset, format!("variant {id:?}: {msg}"));
            if !id_re.is_match(&id) {
                return Err(at(
                    v.id.span().start,
                    "id must be lowercase letters, digits, '-' or '.'".into(),
                ));
            }
            if let Some(first) = seen.insert(id.clone(), line_of(v.id.span().start)) {
                return Err(at(
                    v.id.span().start,
                    format!("duplicate id (first defined at line {first})"),
                ));
            }
            let template = |s: &Spanned<String>| {
                Template::parse(s.get_ref()).map_err(|m| at(s.span().start, m))
            };
            let templates =
                |s: Option<Spanned<OneOrMany>>| -> Result<Vec<(Template, usize)>, ConfigError> {
                    let Some(s) = s else { return Ok(Vec::new()) };
                    let start = s.span().start;
                    let list = s.into_inner().into_vec();
                    if list.is_empty() {
                        return Err(at(start, "empty command list".into()));
                    }
                    list.iter()
                        .map(|t| {
                            Template::parse(t)
                                .map(|t| (t, start))
                                .map_err(|m| at(start, m))
                        })
                        .collect()
                };
            let run = template(&v.run)?;
            let build = templates(v.build)?;
            let prepare = templates(v.prepare)?;
            let version_span = v.version.as_ref().map_or(entry_start, |s| s.span().start);
            let version = match &v.version {
                Some(s) => template(s)?,
                None => {
                    let prog = v
                        .needs
                        .first()
                        .map(String::as_str)
                        .or(run.program())
                        .ok_or_else(|| at(entry_start, "missing `version` command".into()))?;
                    Template::parse(&format!("{prog} --version")).map_err(|m| at(entry_start, m))?
                }
            };
            let version_regex = match &v.version_regex {
                None => None,
                Some(s) => Some(
                    Regex::new(s.get_ref())
                        .map_err(|e| at(s.span().start, format!("bad version_regex: {e}")))?,
                ),
            };
            if !version.placeholders().is_empty() {
                return Err(at(
                    version_span,
                    "the version command takes no placeholders".into(),
                ));
            }

            let mut programs = BTreeMap::new();
            if v.programs.get_ref().is_empty() {
                return Err(at(v.programs.span().start, "`programs` is empty".into()));
            }
            for (name, file) in v.programs.into_inner() {
                let bench: Bench = name
                    .get_ref()
                    .parse()
                    .map_err(|m: String| at(name.span().start, m))?;
                let full = root.join(file.get_ref());
                if !full.is_file() {
                    return Err(at(
                        file.span().start,
                        format!(
                            "program file {:?} for {bench} does not exist (looked at {})",
                            file.get_ref(),
                            full.display()
                        ),
                    ));
                }
                programs.insert(bench, full);
            }

            // Placeholders must be known to every benchmark the variant runs.
            let mut all: Vec<(&Template, usize, &str)> = vec![(&run, v.run.span().start, "run")];
            all.extend(build.iter().map(|(t, s)| (t, *s, "build")));
            all.extend(prepare.iter().map(|(t, s)| (t, *s, "prepare")));
            let cwd_template = match &v.cwd {
                Some(c) => Some((template(c)?, c.span().start)),
                None => None,
            };
            if let Some((t, s)) = &cwd_template {
                all.push((t, *s, "cwd"));
            }
            for bench in programs.keys() {
                let allowed = bench.placeholders();
                for (t, span, what) in &all {
                    for p in t.placeholders() {
                        let ok = allowed.contains(&p.as_str())
                            && !(*what == "prepare" && ["n", "port"].contains(&p.as_str()));
                        if !ok {
                            return Err(at(
                                *span,
                                format!(
                                    "unknown placeholder {{{p}}} in `{what}` for {bench} (allowed: {})",
                                    allowed
                                        .iter()
                                        .map(|a| format!("{{{a}}}"))
                                        .collect::<Vec<_>>()
                                        .join(" ")
                                ),
                            ));
                        }
                    }
                }
                let required = if bench.is_cpu() { "n" } else { "port" };
                if !run.placeholders().contains(required) {
                    return Err(at(
                        v.run.span().start,
                        format!("`run` must pass {{{required}}} to the {bench} program"),
                    ));
                }
            }

            let mut needs = v.needs.clone();
            if needs.is_empty() {
                for t in build
                    .iter()
                    .map(|(t, _)| t)
                    .chain(prepare.iter().map(|(t, _)| t))
                    .chain([&run])
                {
                    if let Some(p) = t.program()
                        && !needs.iter().any(|n| n == p)
                    {
                        needs.push(p.to_string());
                    }
                }
            }

            variants.push(Variant {
                id,
                language: v.language,
                flags: v.flags,
                needs,
                version,
                version_regex,
                build: build.into_iter().map(|(t, _)| t).collect(),
                run,
                prepare: prepare.into_iter().map(|(t, _)| t).collect(),
                env: v.env,
                cwd: v.cwd.map(|c| c.into_inner()),
                note: v.note,
                library: v.library,
                programs,
                install: v.install,
                aliases: v.aliases,
                line: line_of(entry_start),
                root: root.clone(),
            });
        }
        Ok(Languages {
            path: path.to_path_buf(),
            variants,
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
                    anyhow::anyhow!(
                        "unknown language variant {id:?} in {} (known: {})",
                        self.path.display(),
                        known.join(", ")
                    )
                })
            })
            .collect()
    }
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
}
