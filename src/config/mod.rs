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
//!
//! The parts, each importing only the ones before it (ripgrep's
//! `flags/{defs, lowargs, parse, hiargs}` are the model): `raw` (the TOML
//! schema as serde reads it), `template` (the command template engine),
//! `errors` (errors and lints with file:line, the reading's context),
//! `variant` (a validated variant), `lints`, `resolve` (raw → variant:
//! conventions, defaults, checks); this file reads the file with them.
//!
//! Its face: [`Languages`] (`load`, `parse`, `select`, `resolve`, `resolver`
//! giving a [`Resolver`], and its `variants`, `lints` and `references`),
//! [`Variant`] (its fields, its [`Install`], its methods), [`Alias`],
//! `Template` and `Vars` for `cell`, [`synthetic`] for the benches and
//! tests, and `FILE_GLOB`, `MAX_ID`, `id_problem` and
//! `conventional_programs` for `check` and `scaffold`; the rest is its
//! inside.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

mod errors;
mod lints;
mod raw;
mod resolve;
mod template;
mod variant;

use errors::*;
pub(crate) use errors::{ConfigError, Lint};
use lints::*;
use raw::RawFile;
pub use raw::{Alias, Install};
use resolve::*;
pub(crate) use resolve::{FILE_GLOB, MAX_ID, id_problem};
pub(crate) use template::{Template, Vars};
pub use variant::*;

/// The parsed file.
#[derive(Debug, Clone)]
pub struct Languages {
    pub path: PathBuf,
    pub variants: Vec<Variant>,
    /// Fields equal to their defaults (see [`Lint`]).
    pub lints: Vec<Lint>,
    /// The reference set a session in rounds measures in every block
    /// (`[edition] references`, default [`DEFAULT_REFERENCES`]):
    /// variant ids of this file, each with a program for every CPU
    /// benchmark.
    pub references: Vec<String>,
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
            regexes: Default::default(),
            canon: Default::default(),
        };
        check_lengths(&ctx)?;
        let raw: RawFile = toml::from_str(text).map_err(|e| {
            ctx.err(
                e.span().map_or(0, |s| s.start),
                None,
                nearest_field(e.message().trim()),
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
        let references = references(&ctx, raw.edition.as_ref(), &variants)?;
        Ok(Languages {
            path: path.to_path_buf(),
            variants,
            lints: ctx.lints,
            references,
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

    /// [`Languages::resolve`] for many rows: (language, flags) indexed
    /// once, not scanned per row (history of 65,000 variants spent 43 % of
    /// its time in `resolve`, issue #41). Same answers: a variant's own
    /// language and flags win over any alias, and the first in file order
    /// wins among equals.
    pub fn resolver(&self) -> Resolver<'_> {
        let key = |l: &str, f: &str| (l.to_ascii_lowercase(), f.to_string());
        let mut own = HashMap::new();
        let mut aliased = HashMap::new();
        for v in &self.variants {
            own.entry(key(&v.language, &v.flags)).or_insert(v);
            for a in &v.aliases {
                let k = match a {
                    Alias::Flags(f) => key(&v.language, f),
                    Alias::Full { language, flags } => key(language, flags),
                };
                aliased.entry(k).or_insert(v);
            }
        }
        Resolver { own, aliased }
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

/// A languages file of `n` shell variants (`v0`, `v1`, …; four lines each),
/// for the parse benchmark and the complexity test.
pub fn synthetic(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!("[variant.v{i}]\nlanguage = \"Sh\"\next = \"sh\"\nrun = \"sh {{src}} {{n}}\"\n")
        })
        .collect()
}

/// The reference set when `[edition]` names none: the C programs of the
/// editions, compiled two ways (an optimising compiler and a naive one, so
/// the set follows both memory-bound and compute-bound code).
const DEFAULT_REFERENCES: [&str; 2] = ["c-gcc", "c-tcc"];

/// `[edition] references`: every id a variant of the file with a program
/// for every CPU benchmark (a reference is measured on each), at least one,
/// none twice. Without the table, [`DEFAULT_REFERENCES`] where
/// the file has those variants (a file of other variants has none).
fn references(
    ctx: &Ctx,
    edition: Option<&toml::Spanned<raw::RawEdition>>,
    variants: &[Variant],
) -> Result<Vec<String>, ConfigError> {
    let has_every_program = |v: &Variant| {
        crate::bench::Bench::CPU
            .iter()
            .all(|b| v.programs.contains_key(b))
    };
    let Some(list) = edition.and_then(|e| e.get_ref().references.as_ref()) else {
        return Ok(DEFAULT_REFERENCES
            .iter()
            .filter(|id| {
                variants
                    .iter()
                    .any(|v| v.id == **id && has_every_program(v))
            })
            .map(|id| id.to_string())
            .collect());
    };
    if list.get_ref().is_empty() {
        return Err(ctx.err(
            list.span().start,
            None,
            "[edition] references is empty: name at least one variant (e.g. [\"c-gcc\", \"c-tcc\"])",
        ));
    }
    let mut out: Vec<String> = Vec::new();
    for id in list.get_ref() {
        let at = id.span().start;
        let name = id.get_ref();
        let Some(v) = variants.iter().find(|v| &v.id == name) else {
            let hint = crate::suggest::did_you_mean(name, variants.iter().map(|v| v.id.as_str()))
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            return Err(ctx.err(
                at,
                None,
                format!("[edition] references: no variant {name:?}{hint}"),
            ));
        };
        if !has_every_program(v) {
            return Err(ctx.err(
                at,
                None,
                format!(
                    "[edition] references: {name:?} has no program for every CPU benchmark \
                     (a reference is measured on each)"
                ),
            ));
        }
        if out.contains(name) {
            return Err(ctx.err(
                at,
                None,
                format!("[edition] references: {name:?} is named twice"),
            ));
        }
        out.push(name.clone());
    }
    Ok(out)
}

/// An index of a languages file by (language, flags), for resolving many
/// published rows ([`Languages::resolver`]).
pub struct Resolver<'l> {
    own: HashMap<(String, String), &'l Variant>,
    aliased: HashMap<(String, String), &'l Variant>,
}

impl<'l> Resolver<'l> {
    /// What [`Languages::resolve`] answers.
    pub fn resolve(&self, language: &str, flags: &str) -> Option<&'l Variant> {
        let k = (language.to_ascii_lowercase(), flags.trim().to_string());
        self.own.get(&k).or_else(|| self.aliased.get(&k)).copied()
    }
}

/// serde's "unknown field `flagz`, expected one of `language`, `flags`,
/// ..." with the nearest expected name added (`: did you mean flags?`),
/// as a variant id or a benchmark gets; any other message as it is.
fn nearest_field(message: &str) -> String {
    let near = message
        .strip_prefix("unknown field `")
        .and_then(|rest| rest.split_once('`'))
        .and_then(|(given, rest)| {
            let expected = rest
                .split_once("expected ")?
                .1
                .trim_start_matches("one of ")
                .split(", ")
                .map(|e| e.trim().trim_matches('`'));
            crate::suggest::did_you_mean(given, expected)
        });
    match near {
        Some(d) => format!("{message}: {d}"),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::Bench;

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

    /// The reference set: the default where the file has it, what
    /// `[edition]` names, and an error with the line for a name that is
    /// no variant, a variant without every program, a repeat, an empty
    /// list.
    #[test]
    fn the_reference_set_is_checked_like_every_field() {
        let d = dir_with(&[
            "programs/assoc/assoc.c",
            "programs/num-comb/num_comb.c",
            "programs/str-comb/str_comb.c",
        ]);
        // c-gcc has only assoc: no default reference.
        assert!(parse(GOOD, &d).unwrap().references.is_empty());
        let full = GOOD.replace(
            "programs = { assoc = \"programs/assoc/assoc.c\" }",
            "programs = { assoc = \"programs/assoc/assoc.c\", num-comb = \"programs/num-comb/num_comb.c\", \
             str-comb = \"programs/str-comb/str_comb.c\" }",
        );
        assert_eq!(parse(&full, &d).unwrap().references, ["c-gcc"]);
        let with = |list: &str, body: &str| format!("[edition]\nreferences = {list}\n{body}");
        assert_eq!(
            parse(&with("[\"c-gcc\"]", &full), &d).unwrap().references,
            ["c-gcc"]
        );
        for (list, body, says) in [
            (
                "[\"c-gc\"]",
                &full,
                "no variant \"c-gc\" (did you mean c-gcc?)",
            ),
            (
                "[\"c-gcc\"]",
                &GOOD.to_string(),
                "has no program for every CPU benchmark",
            ),
            ("[\"c-gcc\", \"c-gcc\"]", &full, "named twice"),
            ("[]", &full, "is empty"),
        ] {
            let e = parse(&with(list, body), &d).unwrap_err().to_string();
            assert!(e.contains(says), "{e}");
            assert!(e.contains("languages.toml:2"), "{e}");
        }
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

    /// Issue #37, row 1: one cache inside another (or a `home` entry)
    /// is refused at the line of the list, whichever way round.
    #[test]
    fn overlapping_caches_and_home_entries_are_refused_at_their_line() {
        let d = dir_with(&["programs/assoc/assoc.c"]);
        for (lists, names) in [
            (
                "caches = [\"~/.c/x\", \"~/.c\"]\n",
                "`caches` entries \"~/.c/x\" and \"~/.c\"",
            ),
            (
                "caches = [\"~/.c\", \"~/.c/x/y\"]\n",
                "`caches` entries \"~/.c\" and \"~/.c/x/y\"",
            ),
            (
                "caches = [\"~/.c\", \"~/.c\"]\n",
                "`caches` entries \"~/.c\" and \"~/.c\"",
            ),
            (
                "caches = [\"~/.rustup/x\"]\nhome = [\"~/.rustup\"]\n",
                "the `caches` and `home` entries \"~/.rustup/x\" and \"~/.rustup\"",
            ),
        ] {
            let text = GOOD.replace("run = ", &format!("{lists}run = "));
            let e = parse(&text, &d).unwrap_err();
            let at = text
                .lines()
                .position(|l| l.starts_with(lists.lines().last().unwrap()))
                .unwrap()
                + 1;
            assert_eq!(e.line, at, "{e}");
            assert!(
                e.to_string().contains(names) && e.to_string().contains("overlap"),
                "{e}"
            );
        }
        let apart = GOOD.replace("run = ", "caches = [\"~/.c/x\", \"~/.c/xy\"]\nrun = ");
        assert!(parse(&apart, &d).is_ok());
    }

    /// Issue #37, row 3, and #59, row 1: `home` is an allowlist of
    /// toolchain managers' directories and the parts of them their
    /// toolchains read, judged by name alone (a directory where a PATH
    /// entry lies is no longer enough: `~/go`, `~/.cabal`); anything else,
    /// a directory that holds credentials, and HOME itself are refused at
    /// the line, saying why and naming the list.
    #[test]
    fn home_entries_are_an_allowlist() {
        let d = dir_with(&["programs/assoc/assoc.c"]);
        for ok in [
            "~/.rustup",
            "~/.ghcup/bin",
            "~/.sdkman",
            "~/.pyenv/versions",
            "~/.cabal/store",
        ] {
            let text = GOOD.replace("run = ", &format!("home = [\"{ok}\"]\nrun = "));
            assert!(parse(&text, &d).is_ok(), "{ok}");
        }
        for (bad, why) in [
            ("~/.terraform.d", "is not on HOME's allowlist"),
            ("~/.kaggle", "is not on HOME's allowlist"),
            ("~/src/project", "is not on HOME's allowlist"),
            ("~/go", "is not on HOME's allowlist"),
            ("~/.pulumi", "is not on HOME's allowlist"),
            ("~/.cabal/config", "is not on HOME's allowlist"),
            ("~/.pyenv/.git", "is not on HOME's allowlist"),
            ("~/.cabal", "Hackage password"),
            ("~/.gem", "RubyGems"),
            ("~/.pyenv", "git checkout"),
            ("~/", "HOME itself"),
        ] {
            let text = GOOD.replace("run = ", &format!("home = [\"{bad}\"]\nrun = "));
            let e = parse(&text, &d).unwrap_err();
            let at = text.lines().position(|l| l.starts_with("home = ")).unwrap() + 1;
            assert_eq!(e.line, at, "{e}");
            let msg = e.to_string();
            assert!(msg.contains(bad) && msg.contains(why), "{msg}");
            if bad != "~/" {
                assert!(
                    msg.contains("allowlist") && msg.contains("~/.rustup"),
                    "{msg}"
                );
            }
        }
    }

    #[test]
    fn unknown_key_names_the_line() {
        let d = dir_with(&["programs/assoc/assoc.c"]);
        let bad = GOOD.replace("flags = ", "flagz = ");
        let e = parse(&bad, &d).unwrap_err();
        assert_eq!(e.line, 5, "{e}");
        assert!(e.to_string().contains("flagz"), "{e}");
        assert!(e.to_string().ends_with("did you mean flags?"), "{e}");
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

    /// `prepare` runs untimed: the size is never handed to it, and a file
    /// that tries says so at the line, naming what is expected there.
    #[test]
    fn prepare_is_never_given_the_size() {
        let d = dir_with(&["programs/assoc/assoc.c"]);
        let text = GOOD.replace(
            "run = \"{exe} {n}\"",
            "run = \"{exe} {n}\"\nprepare = \"sh -c 'echo {n} > {dir}/answer'\"",
        );
        let e = parse(&text, &d).unwrap_err();
        assert_eq!(e.line, 9, "{e}");
        assert!(
            e.message
                .contains("`prepare` uses {n}, the size a run is measured at")
                && e.message
                    .contains("expected only {src} {dir} {build} {exe} in `prepare`"),
            "{e}"
        );
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
