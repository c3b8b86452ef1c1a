//! What of a real home a sandboxed command may see: an allowlist, never a
//! list of secrets (issue #59 row 1). A home is full of tokens no list of
//! names knows (`~/.cabal/config`'s Hackage password, `~/.pulumi`'s
//! access token, `~/.gem/credentials`, a checkout's `.git/config` under
//! `~/go/src`, `~/.nimble/github_api_token`), so the sandbox shows only:
//!
//! - each PATH entry in a home, the directory itself (`~/.cargo/bin`,
//!   `~/go/bin`, `~/.local/bin`), never its parent: see [`path_entry`];
//! - the parts of a toolchain manager's directory ([`MANAGERS`]) that its
//!   toolchains read, where a PATH entry lies in that directory (a pyenv
//!   shim runs `~/.pyenv/libexec/pyenv`, which runs
//!   `~/.pyenv/versions/X/bin/python`) or where a `home` entry of
//!   `languages.toml` names it (`home = ["~/.rustup"]`: its `toolchains`
//!   and `settings.toml`, bound into the sandbox's HOME).
//!
//! The parts are what the toolchains read, named here by hand from each
//! manager's layout: never the manager's own dot-entries (the `.git` of
//! pyenv's checkout and of its plugins' checkouts), its settings or its
//! tokens. `config` refuses a `home` entry that is not a manager's
//! directory or inside one of its parts ([`refused`]); the sandbox's view
//! (`contain::view`) binds the PATH entries and parts, read-only.

use std::path::{Component, Path, PathBuf};

/// A toolchain manager's directory of a home.
pub struct Manager {
    /// Its directory, relative to the home.
    pub dir: &'static str,
    /// What its toolchains read, relative to `dir`: directories or files;
    /// a `*` component stands for each directory there whose name does not
    /// start with a dot (a plugin's directory, an opam switch).
    pub parts: &'static [&'static str],
    /// `Some(why)` where `dir` holds more than toolchains (a token, a
    /// password, a checkout's `.git`): a `home` entry must then name its
    /// parts, not `dir` itself. `None`: a `home` entry naming `dir` means
    /// its parts.
    pub holds: Option<&'static str>,
}

/// The git checkouts' reason (pyenv, rbenv, nodenv, goenv, asdf and nvm
/// are installed by `git clone`).
const CHECKOUT: &str = "it is a git checkout (its .git/config may hold a token)";

/// The toolchain managers whose toolchains read their directory by path:
/// the allowlist of a home. A directory of a home not here (`~/go`,
/// `~/.pulumi`, `~/.cargo`, `~/.config`, `~/.ssh`, a checkout) is never
/// bound, but for a PATH entry in it: the entry alone.
pub const MANAGERS: &[Manager] = &[
    Manager {
        dir: ".rustup",
        parts: &["toolchains", "settings.toml"],
        holds: None,
    },
    Manager {
        dir: ".elan",
        parts: &["bin", "toolchains", "settings.toml"],
        holds: None,
    },
    Manager {
        dir: ".ghcup",
        parts: &["bin", "ghc", "hls"],
        holds: None,
    },
    Manager {
        dir: ".cabal",
        parts: &["bin", "store"],
        holds: Some("its config holds a Hackage password"),
    },
    Manager {
        dir: ".opam",
        parts: &["*/bin", "*/lib", "*/share", "*/man"],
        holds: None,
    },
    Manager {
        dir: ".sdkman",
        parts: &["candidates"],
        holds: None,
    },
    Manager {
        dir: ".pyenv",
        parts: &[
            "bin",
            "libexec",
            "shims",
            "versions",
            "pyenv.d",
            "version",
            "plugins/*/bin",
            "plugins/*/etc",
            "plugins/*/libexec",
            "plugins/*/shims",
        ],
        holds: Some(CHECKOUT),
    },
    Manager {
        dir: ".rbenv",
        parts: &[
            "bin",
            "libexec",
            "shims",
            "versions",
            "rbenv.d",
            "version",
            "plugins/*/bin",
            "plugins/*/etc",
        ],
        holds: Some(CHECKOUT),
    },
    Manager {
        dir: ".nodenv",
        parts: &[
            "bin",
            "libexec",
            "shims",
            "versions",
            "nodenv.d",
            "version",
            "plugins/*/bin",
            "plugins/*/etc",
        ],
        holds: Some(CHECKOUT),
    },
    Manager {
        dir: ".goenv",
        parts: &[
            "bin",
            "libexec",
            "shims",
            "versions",
            "version",
            "plugins/*/bin",
        ],
        holds: Some(CHECKOUT),
    },
    Manager {
        dir: ".asdf",
        parts: &[
            "bin",
            "lib",
            "libexec",
            "shims",
            "installs",
            "plugins/*/bin",
            "plugins/*/lib",
        ],
        holds: Some(CHECKOUT),
    },
    Manager {
        dir: ".nvm",
        parts: &["versions"],
        holds: Some(CHECKOUT),
    },
    Manager {
        dir: ".juliaup",
        parts: &["bin"],
        holds: None,
    },
    Manager {
        dir: ".julia",
        parts: &["juliaup"],
        holds: Some("it holds packages' checkouts, config/startup.jl and logs"),
    },
    Manager {
        dir: ".volta",
        parts: &["bin", "tools"],
        holds: None,
    },
    Manager {
        dir: ".bun",
        parts: &["bin"],
        holds: None,
    },
    Manager {
        dir: ".deno",
        parts: &["bin"],
        holds: None,
    },
    Manager {
        dir: ".nimble",
        parts: &["bin", "pkgs", "pkgs2"],
        holds: Some("nimble publish keeps a GitHub token in it, github_api_token"),
    },
    Manager {
        dir: ".choosenim",
        parts: &["toolchains", "current"],
        holds: None,
    },
    Manager {
        dir: ".gem",
        parts: &["ruby"],
        holds: Some("its credentials file holds a RubyGems API key"),
    },
    Manager {
        dir: ".dotnet",
        parts: &[
            "dotnet",
            "host",
            "shared",
            "sdk",
            "sdk-manifests",
            "packs",
            "templates",
            "metadata",
            "tools",
        ],
        holds: Some("corefx's X.509 stores in it hold private keys"),
    },
];

/// The manager whose directory is `rel` (relative to a home).
pub fn manager_at(rel: &Path) -> Option<&'static Manager> {
    MANAGERS.iter().find(|m| rel == Path::new(m.dir))
}

/// The manager whose directory `rel` lies in (or is).
fn manager_of(rel: &Path) -> Option<&'static Manager> {
    MANAGERS.iter().find(|m| rel.starts_with(m.dir))
}

/// Whether `rel` (relative to a home) is one of a manager's parts or lies
/// in one: a `*` of a part matches one name that does not start with a
/// dot.
pub fn in_a_part(rel: &Path) -> bool {
    let Some(m) = manager_of(rel) else {
        return false;
    };
    let Ok(inside) = rel.strip_prefix(m.dir) else {
        return false;
    };
    m.parts.iter().any(|part| {
        let mut names = inside.components();
        Path::new(part).components().all(|p| match names.next() {
            Some(Component::Normal(n)) => {
                let n = n.to_string_lossy();
                if p.as_os_str() == "*" {
                    !n.starts_with('.')
                } else {
                    p.as_os_str() == n.as_ref()
                }
            }
            _ => false,
        })
    })
}

/// Why the `home` entry `rel` may not be bound, or `None` where it may: a
/// manager's directory (meaning its parts) unless it holds more than
/// toolchains, or a part or what lies in one. Judged by name alone, the
/// same on every machine.
pub fn refused(rel: &Path) -> Option<String> {
    if rel.as_os_str().is_empty() {
        return Some("is HOME itself, which holds every key and token of its owner".into());
    }
    if in_a_part(rel) {
        return None;
    }
    match manager_at(rel) {
        None => Some("is not on HOME's allowlist".into()),
        Some(m) => m.holds.map(|why| {
            format!(
                "names a directory that holds more than toolchains ({why}): name the parts its \
                 toolchains read instead ({})",
                parts_named(m)
            )
        }),
    }
}

/// A manager's parts as `~/` paths, for a message.
pub fn parts_named(m: &Manager) -> String {
    let names: Vec<String> = m.parts.iter().map(|p| format!("~/{}/{p}", m.dir)).collect();
    names.join(", ")
}

/// At most this many names of one directory are looked at for a `*` of a
/// part (a plugins directory holds a handful).
const MAX_NAMES: usize = 256;

/// The parts of `m` that exist in the home `home`, relative to it, each
/// `*` expanded to the directories there (not a dot-name). The home is
/// the maintainer's, which no command writes: links in it are followed (a
/// manager's part may be a link to where its toolchains are).
pub fn parts_in(home: &Path, m: &Manager) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for part in m.parts {
        let mut found = vec![PathBuf::from(m.dir)];
        for c in Path::new(part).components() {
            let c = c.as_os_str();
            found = if c == "*" {
                found
                    .iter()
                    .flat_map(|d| names_in(&home.join(d)).into_iter().map(|n| d.join(n)))
                    .collect()
            } else {
                found.into_iter().map(|d| d.join(c)).collect()
            };
        }
        out.extend(found.into_iter().filter(|p| home.join(p).exists()));
    }
    out
}

/// The names of the directories in `dir` that do not start with a dot,
/// at most [`MAX_NAMES`].
fn names_in(dir: &Path) -> Vec<std::ffi::OsString> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| !n.to_string_lossy().starts_with('.'))
        .filter(|n| dir.join(n).is_dir())
        .take(MAX_NAMES)
        .collect()
}

/// What of the home `home` the `home` entry `rel` binds, relative to it:
/// a manager's directory means its parts (those that exist); anything
/// else (a part, or what lies in one: [`refused`] lets nothing else
/// through) itself.
pub fn declared(home: &Path, rel: &Path) -> Vec<PathBuf> {
    match manager_at(rel) {
        Some(m) => parts_in(home, m),
        None => vec![rel.to_path_buf()],
    }
}

/// What the PATH entry `rel` of the home `home` (relative to it) makes
/// visible, relative to it:
/// - HOME itself, or a dot-directory right in it (`~/.config`,
///   `~/.pulumi`: settings and tokens, not a bin directory), nothing;
/// - a manager's directory (`~/.dotnet`), its parts;
/// - any other entry, itself (`~/.cargo/bin`, `~/go/bin`, `~/bin`), and
///   where it lies in a manager's directory, that manager's parts too.
pub fn path_entry(home: &Path, rel: &Path) -> Vec<PathBuf> {
    if let Some(m) = manager_at(rel) {
        return parts_in(home, m);
    }
    let mut names = rel.components();
    match (names.next(), names.next()) {
        (None, _) => return Vec::new(),
        (Some(first), None) if first.as_os_str().to_string_lossy().starts_with('.') => {
            return Vec::new();
        }
        _ => {}
    }
    let mut out = vec![rel.to_path_buf()];
    if let Some(m) = manager_of(rel) {
        out.extend(parts_in(home, m));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> PathBuf {
        PathBuf::from(s)
    }

    /// A `home` entry is a manager's directory without secrets, or a part
    /// or what lies in one; a `*` never matches a dot-name; the rest is
    /// refused, whatever this machine holds.
    #[test]
    fn home_entries_are_judged_by_the_allowlist_alone() {
        for ok in [
            ".rustup",
            ".rustup/toolchains",
            ".rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib",
            ".sdkman",
            ".ghcup/bin",
            ".pyenv/versions",
            ".pyenv/versions/3.11.7",
            ".pyenv/plugins/pyenv-virtualenv/bin",
            ".cabal/store",
            ".opam/default/lib",
        ] {
            assert_eq!(refused(&p(ok)), None, "{ok}");
        }
        for (bad, why) in [
            ("", "HOME itself"),
            (".cabal", "Hackage password"),
            (".cabal/config", "allowlist"),
            (".gem", "RubyGems"),
            (".gem/credentials", "allowlist"),
            (".pyenv", ".git/config"),
            (".pyenv/.git", "allowlist"),
            (".pyenv/plugins/.git/bin", "allowlist"),
            (".pyenv/plugins/x/.git", "allowlist"),
            (".rustup/downloads", "allowlist"),
            (".opam/.secret/lib", "allowlist"),
            ("go", "allowlist"),
            ("go/src/x", "allowlist"),
            (".pulumi", "allowlist"),
            (".cargo", "allowlist"),
            (".ssh", "allowlist"),
            (".config", "allowlist"),
        ] {
            let r = refused(&p(bad)).unwrap_or_else(|| panic!("{bad} allowed"));
            assert!(r.contains(why), "{bad}: {r}");
        }
        assert!(
            refused(&p(".cabal")).unwrap().contains("~/.cabal/store"),
            "the parts are named"
        );
    }

    /// A manager's parts are those that exist, `*` expanded to the
    /// directories that are not dot-names; a declared manager means its
    /// parts, a part itself.
    #[test]
    fn parts_are_found_and_dot_names_never_match() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        for d in [
            ".pyenv/.git",
            ".pyenv/versions/3.11.7",
            ".pyenv/shims",
            ".pyenv/plugins/virtualenv/bin",
            ".pyenv/plugins/virtualenv/.git",
            ".pyenv/plugins/.hidden/bin",
            ".pyenv/plugins/doctor",
        ] {
            std::fs::create_dir_all(h.join(d)).unwrap();
        }
        std::fs::write(h.join(".pyenv/version"), "3.11.7\n").unwrap();
        let pyenv = manager_at(&p(".pyenv")).unwrap();
        let mut parts = parts_in(h, pyenv);
        parts.sort();
        assert_eq!(
            parts,
            [
                p(".pyenv/plugins/virtualenv/bin"),
                p(".pyenv/shims"),
                p(".pyenv/version"),
                p(".pyenv/versions"),
            ]
        );
        assert_eq!(declared(h, &p(".pyenv")), parts_in(h, pyenv));
        assert_eq!(declared(h, &p(".pyenv/versions")), [p(".pyenv/versions")]);
    }

    /// docs/containment.md's table of managers is this list: each
    /// manager's row names its parts in order, and whether a `home` entry
    /// may name it whole.
    #[test]
    fn the_documentation_lists_every_manager_and_its_parts() {
        let doc = include_str!("../../../docs/containment.md");
        let rows: Vec<&str> = doc.lines().filter(|l| l.starts_with("| `~/.")).collect();
        assert_eq!(rows.len(), MANAGERS.len(), "{rows:#?}");
        for m in MANAGERS {
            let row = rows
                .iter()
                .find(|r| r.starts_with(&format!("| `~/{}` |", m.dir)))
                .unwrap_or_else(|| panic!("no row for {}", m.dir));
            let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
            let parts: Vec<String> = m.parts.iter().map(|p| format!("`{p}`")).collect();
            assert_eq!(cells[1], parts.join(", "), "{}", m.dir);
            assert_eq!(cells[2].starts_with("yes"), m.holds.is_none(), "{}", m.dir);
        }
    }

    /// A PATH entry gives itself (never its parent), and the parts of the
    /// manager it lies in; HOME and its dot-directories give nothing, a
    /// manager's directory its parts.
    #[test]
    fn a_path_entry_gives_itself_and_its_managers_parts_never_its_parent() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        for d in [
            ".pyenv/shims",
            ".pyenv/libexec",
            ".pyenv/.git",
            ".cabal/bin",
        ] {
            std::fs::create_dir_all(h.join(d)).unwrap();
        }
        let given = |rel: &str| {
            let mut v = path_entry(h, &p(rel));
            v.sort();
            v.dedup();
            v
        };
        assert_eq!(given("go/bin"), [p("go/bin")]);
        assert_eq!(given(".cargo/bin"), [p(".cargo/bin")]);
        assert_eq!(given("bin"), [p("bin")]);
        assert_eq!(given(".cabal/bin"), [p(".cabal/bin")]);
        assert_eq!(
            given(".pyenv/shims"),
            [p(".pyenv/libexec"), p(".pyenv/shims")]
        );
        assert!(given("").is_empty());
        assert!(given(".config").is_empty());
        assert!(given(".pulumi").is_empty());
        assert_eq!(given(".cabal"), [p(".cabal/bin")]);
        assert_eq!(given(".pyenv"), [p(".pyenv/libexec"), p(".pyenv/shims")]);
    }
}
