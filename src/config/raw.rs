//! `languages.toml` as written: the raw TOML schema serde reads (every
//! field spanned, for errors with file:line), before conventions, defaults
//! and lints make variants of it; and the install tables, stored as read.

use std::collections::BTreeMap;
use std::path::Path;

use regex::Regex;
use serde::Deserialize;
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFile {
    #[serde(default)]
    pub(super) toolchain: BTreeMap<String, Spanned<RawToolchain>>,
    #[serde(default)]
    pub(super) variant: Variants,
    /// `[edition]`: what every edition measured from this file shares.
    #[serde(default)]
    pub(super) edition: Option<Spanned<RawEdition>>,
}

/// `[edition]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawEdition {
    /// The reference set measured in every block of a session in rounds
    /// (issue #39): variant ids.
    pub(super) references: Option<Spanned<Vec<Spanned<String>>>>,
}

/// The variants in file order: `[variant.ID]` tables (the id is the table
/// name), or the older `[[variant]]` array with an `id` field.
#[derive(Default)]
pub(super) struct Variants(pub(super) Vec<(Spanned<String>, RawVariant, usize)>);

impl<'de> Deserialize<'de> for Variants {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Variants;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("[variant.ID] tables")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Variants, A::Error> {
                let mut out = Vec::new();
                while let Some(id) = map.next_key::<Spanned<String>>()? {
                    let v: RawVariant = map.next_value()?;
                    if let Some(field) = &v.id {
                        return Err(serde::de::Error::custom(format!(
                            "variant {:?}: `id = {:?}` in a [variant.ID] table: the table name is the id; delete it",
                            id.get_ref(),
                            field.get_ref()
                        )));
                    }
                    let at = id.span().start;
                    out.push((id, v, at));
                }
                // Tables come out of the TOML parser sorted by name: put
                // them back in file order (the order of `list` and tables).
                out.sort_by_key(|(_, _, at)| *at);
                Ok(Variants(out))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Variants, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = seq.next_element::<Spanned<RawVariant>>()? {
                    let at = v.span().start;
                    let mut v = v.into_inner();
                    let id = v.id.take().ok_or_else(|| {
                        serde::de::Error::custom("a [[variant]] entry without `id`")
                    })?;
                    out.push((id, v, at));
                }
                Ok(Variants(out))
            }
        }
        d.deserialize_any(Visitor)
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    pub(super) fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

/// What several variants share: one toolchain, installed once.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawToolchain {
    pub(super) language: Option<String>,
    pub(super) ext: Option<Spanned<String>>,
    pub(super) needs: Option<Spanned<Vec<String>>>,
    pub(super) version: Option<Spanned<String>>,
    pub(super) version_regex: Option<Spanned<String>>,
    pub(super) install: Option<Spanned<Install>>,
    #[serde(default)]
    pub(super) env: BTreeMap<String, String>,
    pub(super) caches: Option<Spanned<Vec<String>>>,
    pub(super) home: Option<Spanned<Vec<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawVariant {
    pub(super) id: Option<Spanned<String>>,
    pub(super) language: Option<String>,
    pub(super) flags: Option<Spanned<String>>,
    pub(super) toolchain: Option<Spanned<String>>,
    pub(super) ext: Option<Spanned<String>>,
    pub(super) needs: Option<Spanned<Vec<String>>>,
    pub(super) version: Option<Spanned<String>>,
    pub(super) version_regex: Option<Spanned<String>>,
    pub(super) build: Option<Spanned<OneOrMany>>,
    pub(super) run: Option<Spanned<String>>,
    pub(super) prepare: Option<Spanned<OneOrMany>>,
    #[serde(default)]
    pub(super) env: BTreeMap<String, Spanned<String>>,
    pub(super) cwd: Option<Spanned<String>>,
    pub(super) note: Option<String>,
    pub(super) fails: Option<String>,
    pub(super) library: Option<String>,
    pub(super) programs: Option<Spanned<BTreeMap<Spanned<String>, Spanned<String>>>>,
    pub(super) install: Option<Spanned<Install>>,
    #[serde(default)]
    pub(super) aliases: Vec<Alias>,
    pub(super) caches: Option<Spanned<Vec<String>>>,
    pub(super) home: Option<Spanned<Vec<String>>>,
    pub(super) files: Option<Spanned<Vec<Spanned<String>>>>,
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
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
    /// Maven Central artifacts (`group:artifact:version[:type]`), resolved
    /// with their dependencies into a toolchain directory of their own (see
    /// `maven.rs`).
    #[serde(default)]
    pub maven: Vec<String>,
    /// Launchers written into that directory's `bin/` (name → command;
    /// `{home}` is the toolchain's directory), first on the variant's PATH.
    #[serde(default)]
    pub bin: BTreeMap<String, String>,
    /// Commands run once when the Maven toolchain is installed (compile a
    /// host launcher): `{home}` its directory, `{root}` the languages
    /// file's.
    #[serde(default)]
    pub setup: Vec<String>,
    /// A runtime fetched as one registry archive (see `dist.rs`).
    #[serde(default)]
    pub dist: Option<crate::dist::Dist>,
    /// One line for humans (resolved variants always have one: the file's,
    /// or the one derived from the package lists).
    pub hint: Option<String>,
}

impl Install {
    /// Whether a package registry reachable by `toolchains install` provides it.
    pub fn is_installable(&self) -> bool {
        !(self.apt.is_empty()
            && self.npm.is_empty()
            && self.pip.is_empty()
            && self.maven.is_empty()
            && self.dist.is_none())
    }

    /// Its dist toolchain, `{root}` being `root`.
    pub(crate) fn dist_spec<'a>(&'a self, root: &'a Path) -> Option<crate::dist::Spec<'a>> {
        self.dist
            .as_ref()
            .map(|dist| crate::dist::Spec { dist, root })
    }

    /// Checks the Maven and dist parts (one toolchain directory each).
    pub(super) fn validate(&self, root: &Path) -> Result<(), String> {
        self.validate_packages()?;
        crate::maven::validate(self.maven_spec(root))?;
        if let Some(spec) = self.dist_spec(root) {
            if !(self.maven.is_empty() && self.bin.is_empty() && self.setup.is_empty()) {
                return Err("`install.dist` with `install.maven`/`bin`/`setup`: a variant has one toolchain directory; the launchers of a dist go in `install.dist.bin`".into());
            }
            crate::dist::validate(spec)?;
        }
        Ok(())
    }

    /// Every package name is one its registry knows as a name, never
    /// something its installer would take as an option, a URL, a path or a
    /// VCS spec (an apt "package" `-oDPkg::Pre-Invoke::=CMD` runs CMD as
    /// root; npm and pip install from URLs, paths and git). `Err` names the
    /// first one that is not, and what is allowed.
    fn validate_packages(&self) -> Result<(), String> {
        static APT: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
            Regex::new(r"^[a-z0-9][a-z0-9+.\-]*(:[a-z0-9\-]+)?(=[A-Za-z0-9.+~:\-]+)?$")
                .expect("valid regex")
        });
        static NPM: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
            Regex::new(r"^(@[a-z0-9][a-z0-9._~\-]*/)?[a-z0-9][a-z0-9._~\-]*(@[A-Za-z0-9][A-Za-z0-9.+~\-]*)?$")
                .expect("valid regex")
        });
        static PIP: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
            let op = r"(==|>=|<=|~=|!=|<|>)[A-Za-z0-9.*+!\-]+";
            Regex::new(&format!(
                r"^[A-Za-z0-9][A-Za-z0-9._\-]*(\[[A-Za-z0-9._\-]+(,[A-Za-z0-9._\-]+)*\])?({op}(,{op})*)?$"
            ))
            .expect("valid regex")
        });
        static MAVEN: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
            // Only what a coordinate can hold; its shape (and fixed
            // versions) is `maven::validate`'s.
            Regex::new(r"^[A-Za-z0-9_][A-Za-z0-9._:\-]*$").expect("valid regex")
        });
        let lists: [(&str, &[String], &Regex, &str); 4] = [
            (
                "apt",
                &self.apt,
                &APT,
                "a Debian package name (`name`, `name:arch`, `name=version`)",
            ),
            (
                "npm",
                &self.npm,
                &NPM,
                "an npm package name, optionally `@version` (`hermes-engine-cli@0.12.0`, `@scope/name`)",
            ),
            (
                "pip",
                &self.pip,
                &PIP,
                "a PyPI project name with optional extras and version (`nuitka==2.5`, `name[extra]>=1`)",
            ),
            (
                "maven",
                &self.maven,
                &MAVEN,
                "a Maven coordinate (`group:artifact:version[:type]`)",
            ),
        ];
        for (field, list, re, what) in lists {
            for p in list.iter() {
                if !re.is_match(p) {
                    return Err(format!(
                        "`install.{field}` entry {p:?} is not {what}: options, URLs, paths and VCS specs are refused \
                         (`toolchains install` runs as root and hands these to the package manager)"
                    ));
                }
            }
        }
        Ok(())
    }

    /// Its Maven toolchain, `{root}` being `root`.
    pub(crate) fn maven_spec<'a>(&'a self, root: &'a Path) -> crate::maven::Spec<'a> {
        crate::maven::Spec {
            maven: &self.maven,
            bin: &self.bin,
            setup: &self.setup,
            root,
        }
    }

    pub fn describe(&self) -> String {
        self.hint.clone().unwrap_or_else(|| self.derived_hint())
    }

    /// The hint the package lists alone give.
    pub(super) fn derived_hint(&self) -> String {
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
        if !self.maven.is_empty() {
            parts.push(format!(
                "langbench toolchains install (Maven Central: {})",
                self.maven.join(" ")
            ));
        }
        if let Some(d) = &self.dist {
            parts.push(d.describe());
        }
        if parts.is_empty() {
            "no install instructions".into()
        } else {
            parts.join("; ")
        }
    }
}
