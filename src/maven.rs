//! Toolchains from Maven Central: `install = { maven = [...], bin = {...} }`.
//!
//! `langbench toolchains install` resolves the listed artifacts with their
//! dependencies through Maven itself (`mvn -C`: Maven's strict checksum
//! policy, so a download whose `.sha1` does not match fails the install),
//! copies the jars into a directory of their own under the toolchains
//! directory, and writes one launcher script per `bin` entry there:
//!
//! ```text
//! ~/.local/share/langbench/toolchains/kotlin-compiler-2.4.21-1a2b3c4d/
//!     lib/kotlin-compiler.jar lib/kotlin-stdlib.jar ...   (versions stripped)
//!     bin/kotlinc                                          (the launchers)
//!     pom.xml resolved.txt                                 (asked for, got)
//! ```
//!
//! The directory is named after the first artifact and a hash of the whole
//! `maven` + `bin` table, so it never changes once installed: a second
//! install is a no-op, and an edited entry installs beside the old one. It
//! is built under a temporary name and renamed into place at the end, so a
//! failed or interrupted install leaves nothing that looks installed.
//!
//! A variant with such an install has that `bin/` first on its PATH (and its
//! commands' programs resolved there), in the sandbox too: the toolchains
//! directory is outside `/tmp`, and is kept readable if it is not.
//! Maven resolves dependencies (parents, BOMs, properties, exclusions,
//! nearest-wins) as every JVM build does; re-implementing that here would
//! be a worse copy, so `mvn` is a prerequisite (`toolchains install`
//! installs Debian's `maven` when it is missing).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};

use crate::toolchain_dir::{self, InstallError};

/// Overrides the toolchains directory.
pub(crate) const DIR_ENV: &str = "LANGBENCH_TOOLCHAINS";
/// An extra Maven repository searched before Maven Central (a company
/// mirror; the tests' local repository).
pub(crate) const REPOSITORY_ENV: &str = "LANGBENCH_MAVEN_REPOSITORY";
/// The maven-dependency-plugin that copies the jars (pinned: the same
/// resolution everywhere).
const DEPENDENCY_PLUGIN: &str = "org.apache.maven.plugins:maven-dependency-plugin:3.11.0";

/// Where Maven toolchains live: `$LANGBENCH_TOOLCHAINS`, else
/// `$XDG_DATA_HOME/langbench/toolchains`, else
/// `~/.local/share/langbench/toolchains`.
pub(crate) fn toolchains_dir() -> PathBuf {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(d) = env(DIR_ENV) {
        return d;
    }
    let data = env("XDG_DATA_HOME").unwrap_or_else(|| {
        env("HOME")
            .unwrap_or_else(|| PathBuf::from("/"))
            .join(".local/share")
    });
    data.join("langbench/toolchains")
}

/// One `group:artifact:version[:type]` of an `install.maven` list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Artifact {
    pub group: String,
    pub artifact: String,
    pub version: String,
    /// The packaging type (`pom` for an artifact that is only a list of
    /// dependencies, such as GraalVM's `js-community`); `jar` by default.
    pub kind: Option<String>,
}

impl std::str::FromStr for Artifact {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let parts: Vec<&str> = s.split(':').collect();
        let word = |p: &str| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        };
        if !(3..=4).contains(&parts.len()) || !parts.iter().all(|p| word(p)) {
            return Err(format!(
                "{s:?} is not `group:artifact:version` or `group:artifact:version:type` \
                 (e.g. \"org.clojure:clojure:1.12.6\")"
            ));
        }
        let version = parts[2];
        if ["RELEASE", "LATEST"].contains(&version) || version.ends_with("-SNAPSHOT") {
            return Err(format!(
                "{s:?}: version {version} moves; name a released version so every machine installs the same"
            ));
        }
        Ok(Artifact {
            group: parts[0].into(),
            artifact: parts[1].into(),
            version: version.into(),
            kind: parts.get(3).map(|t| t.to_string()),
        })
    }
}

/// One Maven toolchain: an `install` table's `maven`, `bin` and `setup`,
/// and the directory `{root}` stands for (the languages file's).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spec<'a> {
    pub maven: &'a [String],
    pub bin: &'a BTreeMap<String, String>,
    /// Commands run once at install, after the jars are in place (compile
    /// a host launcher): `{home}` is the directory being built, `{root}`
    /// the languages file's directory.
    pub setup: &'a [String],
    pub root: &'a Path,
}

/// The placeholders of a command's words outside `allowed`, as an error.
fn check_placeholders(what: &str, words: &[String], allowed: &[&str]) -> Result<(), String> {
    for w in words {
        let mut rest = w.as_str();
        while let Some(i) = rest.find('{') {
            let tail = &rest[i..];
            match allowed
                .iter()
                .find(|a| tail.starts_with(&format!("{{{a}}}")))
            {
                Some(a) => rest = &tail[a.len() + 2..],
                None => {
                    let end = tail.find('}').map_or(tail.len(), |e| e + 1);
                    let list: Vec<String> = allowed.iter().map(|a| format!("{{{a}}}")).collect();
                    return Err(format!(
                        "{what}: unknown placeholder {} (allowed: {})",
                        &tail[..end],
                        list.join(" ")
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Replaces `{home}` and `{root}` in a command's words.
fn expand(words: &[String], home: &Path, root: &Path) -> Vec<String> {
    words
        .iter()
        .map(|w| {
            w.replace("{home}", &home.display().to_string())
                .replace("{root}", &root.display().to_string())
        })
        .collect()
}

/// Checks an `install` table's `maven`, `bin` and `setup` (the error says
/// what is wrong; config.rs adds the file and line).
pub(crate) fn validate(spec: Spec) -> Result<(), String> {
    let Spec {
        maven, bin, setup, ..
    } = spec;
    if maven.is_empty() && !setup.is_empty() {
        return Err("`install.setup` without `install.maven`: setup runs after the Maven artifacts are installed".into());
    }
    for (i, command) in setup.iter().enumerate() {
        let words = shell_words::split(command).map_err(|e| {
            format!(
                "`install.setup` command {}: cannot split {command:?}: {e}",
                i + 1
            )
        })?;
        if words.is_empty() {
            return Err(format!("`install.setup` command {} is empty", i + 1));
        }
        check_placeholders("`install.setup`", &words, &["home", "root"])?;
    }
    if maven.is_empty() && !bin.is_empty() {
        return Err("`install.bin` without `install.maven`: the launchers run the Maven artifacts; list them in `maven`".into());
    }
    if !maven.is_empty() && bin.is_empty() {
        return Err("`install.maven` without `install.bin`: name at least one launcher, e.g. bin = { clojure = \"java -cp {home}/lib/* clojure.main\" }".into());
    }
    for a in maven {
        a.parse::<Artifact>()?;
    }
    for (name, command) in bin {
        if name.is_empty()
            || name.starts_with('.')
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        {
            return Err(format!(
                "launcher name {name:?} in `install.bin`: use letters, digits, '.', '_' or '-'"
            ));
        }
        let words = shell_words::split(command)
            .map_err(|e| format!("`install.bin.{name}`: cannot split {command:?}: {e}"))?;
        if words.is_empty() {
            return Err(format!("`install.bin.{name}` is empty"));
        }
        check_placeholders(&format!("`install.bin.{name}`"), &words, &["home"])?;
    }
    Ok(())
}

/// The directory name of a toolchain: the first artifact's name and
/// version, and a hash of the whole table and of the files its setup
/// names through `{root}` (so any change, a host launcher's source
/// included, installs anew).
pub(crate) fn dir_name(spec: Spec) -> String {
    let Spec {
        maven,
        bin,
        setup,
        root,
    } = spec;
    let mut h = Sha1::new();
    for a in maven {
        h.update(a.as_bytes());
        h.update(b"\n");
    }
    for (k, v) in bin {
        h.update(format!("{k}={v}\n").as_bytes());
    }
    for command in setup {
        h.update(format!("setup {command}\n").as_bytes());
        for w in shell_words::split(command).unwrap_or_default() {
            if w.contains("{root}") {
                let path = expand(&[w], Path::new("/"), root).remove(0);
                h.update(std::fs::read(&path).unwrap_or_default());
            }
        }
    }
    let hash = hex::encode(&h.finalize()[..4]);
    match maven.first().and_then(|a| a.parse::<Artifact>().ok()) {
        Some(a) => format!("{}-{}-{hash}", a.artifact, a.version),
        None => hash,
    }
}

/// The installed toolchain's directory (`None`: not a Maven install).
pub(crate) fn home(spec: Spec) -> Option<PathBuf> {
    (!spec.maven.is_empty()).then(|| toolchains_dir().join(dir_name(spec)))
}

/// Whether the toolchain at `home` is complete (every launcher is there;
/// the directory only appears under its name once everything is).
pub(crate) fn is_installed(home: &Path, bin: &BTreeMap<String, String>) -> bool {
    bin.keys().all(|b| home.join("bin").join(b).is_file())
}

/// The POM that asks Maven for the artifacts (kept in the toolchain's
/// directory as the record of what was asked for).
fn pom(artifacts: &[Artifact], repository: Option<&str>) -> String {
    let esc = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let mut deps = String::new();
    for a in artifacts {
        deps.push_str(&format!(
            "    <dependency><groupId>{}</groupId><artifactId>{}</artifactId><version>{}</version>{}</dependency>\n",
            esc(&a.group),
            esc(&a.artifact),
            esc(&a.version),
            a.kind
                .as_deref()
                .map(|t| format!("<type>{}</type>", esc(t)))
                .unwrap_or_default()
        ));
    }
    let repos = repository
        .map(|url| {
            format!(
                "  <repositories>\n    <repository><id>langbench-extra</id><url>{}</url>\
                 <snapshots><enabled>false</enabled></snapshots></repository>\n  </repositories>\n",
                esc(url)
            )
        })
        .unwrap_or_default();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <!-- Written by `langbench toolchains install` from languages.toml. -->\n\
         <project xmlns=\"http://maven.apache.org/POM/4.0.0\">\n  <modelVersion>4.0.0</modelVersion>\n\
         \x20 <groupId>langbench.toolchain</groupId>\n  <artifactId>toolchain</artifactId>\n\
         \x20 <version>0</version>\n  <packaging>pom</packaging>\n{repos}  <dependencies>\n{deps}  </dependencies>\n</project>\n"
    )
}

/// The launcher script for one `bin` entry, `{home}` replaced by the
/// toolchain's final directory.
fn launcher(name: &str, command: &str, home: &Path) -> Result<String, String> {
    let words = shell_words::split(command).map_err(|e| format!("{name}: {e}"))?;
    let home = home.display().to_string();
    let words: Vec<String> = words.iter().map(|w| w.replace("{home}", &home)).collect();
    Ok(format!(
        "#!/bin/sh\n# Written by `langbench toolchains install` (languages.toml: install.bin.{name} = {command:?}).\nexec {} \"$@\"\n",
        shell_words::join(&words)
    ))
}

/// The mvn command line that resolves the POM in `dir` into `dir/lib`.
fn mvn_args(dir: &Path) -> Vec<String> {
    let d = dir.display();
    vec![
        "-B".into(),
        "-q".into(),
        // Maven's strict checksum policy: a mismatch fails the download.
        "-C".into(),
        "-f".into(),
        format!("{d}/pom.xml"),
        format!("{DEPENDENCY_PLUGIN}:list"),
        format!("-DoutputFile={d}/resolved.txt"),
        format!("{DEPENDENCY_PLUGIN}:copy-dependencies"),
        format!("-DoutputDirectory={d}/lib"),
        "-Dmdep.stripVersion=true".into(),
        "-DexcludeTypes=pom".into(),
    ]
}

/// The file names `copy-dependencies` gives the resolved artifacts, from
/// `dependency:list`'s lines (`group:artifact:type[:classifier]:version:scope`);
/// two artifacts with one name (their versions stripped) are an error.
fn check_names(resolved: &str) -> Result<usize, String> {
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    for line in resolved.lines() {
        let coords = line.split_whitespace().next().unwrap_or("");
        let p: Vec<&str> = coords.split(':').collect();
        if !(5..=6).contains(&p.len()) || p[2] == "pom" {
            continue;
        }
        let file = match p.len() {
            6 => format!("{}-{}.{}", p[1], p[3], p[2]),
            _ => format!("{}.{}", p[1], p[2]),
        };
        if let Some(other) = seen.insert(file.clone(), coords.to_string()) {
            return Err(format!(
                "two resolved artifacts would both be lib/{file} ({other} and {coords}); \
                 list one of them explicitly so Maven picks one"
            ));
        }
    }
    Ok(seen.len())
}

/// The useful lines of a failed mvn run: its errors, a checksum failure
/// named as such.
fn mvn_failure(output: &str) -> String {
    let errors: Vec<&str> = output
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("[ERROR]") && l.len() > "[ERROR]".len() + 1)
        .filter(|l| {
            !l.contains("-> [Help")
                && !l.contains("Re-run Maven")
                && !l.contains("For more information")
        })
        .take(6)
        .collect();
    let text = if errors.is_empty() {
        // -q prints only errors; without [ERROR] lines, the last words.
        output
            .trim()
            .lines()
            .rev()
            .take(6)
            .collect::<Vec<_>>()
            .join(" | ")
    } else {
        errors.join(" | ")
    };
    if let Some(line) = output
        .lines()
        .find(|l| l.contains("Checksum validation failed"))
    {
        let at = line.find("Checksum validation failed").unwrap_or(0);
        let what = line
            .split("Could not transfer artifact ")
            .nth(1)
            .and_then(|s| s.split(" from/to").next())
            .unwrap_or("an artifact");
        let detail = line[at..].split(" -> [Help").next().unwrap_or("").trim();
        return format!("checksum mismatch for {what} (Maven's strict checksum policy): {detail}");
    }
    text
}

/// Directories of the toolchains directory that none of `used` (the
/// [`dir_name`]s of a languages file's Maven toolchains) names: toolchains
/// an earlier languages.toml installed (an older version, another table),
/// with their size in bytes. Half-built ones (`.partial-*`) are
/// `toolchain_dir::remove_dead_partials`'s.
pub(crate) fn unused(used: &std::collections::BTreeSet<String>) -> Vec<(PathBuf, u64)> {
    let Ok(entries) = std::fs::read_dir(toolchains_dir()) else {
        return Vec::new();
    };
    let mut out: Vec<(PathBuf, u64)> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            !name.starts_with('.') && !used.contains(&name)
        })
        .map(|e| (e.path(), size_of_tree(&e.path())))
        .collect();
    out.sort();
    out
}

/// Bytes of the regular files under `dir` (symbolic links not followed;
/// a toolchain's setup commands wrote it, so the walk is bounded: what lies
/// past [`langbench_spawn::nofollow::Bounds::toward`] is not counted).
fn size_of_tree(dir: &Path) -> u64 {
    use std::os::fd::AsFd;
    langbench_spawn::nofollow::open_trusted(dir)
        .and_then(|d| {
            langbench_spawn::nofollow::usage(
                d.as_fd(),
                langbench_spawn::nofollow::Bounds::toward(0),
                None,
            )
        })
        .map_or(0, |u| u.bytes)
}

/// Installs one Maven toolchain (a no-op when it is installed). Returns
/// what it did; on error nothing is left under the toolchain's name.
pub(crate) fn install(
    spec: Spec,
    dry_run: bool,
    spawner: &langbench_spawn::Spawner,
) -> Result<String, InstallError> {
    validate(spec).map_err(InstallError::Invalid)?;
    let Spec { maven, bin, .. } = spec;
    let artifacts: Vec<Artifact> = maven
        .iter()
        .map(|a| a.parse())
        .collect::<Result<_, _>>()
        .map_err(InstallError::Invalid)?;
    let root = toolchains_dir();
    let name = dir_name(spec);
    let home = root.join(&name);
    let launchers = bin.keys().cloned().collect::<Vec<_>>().join(" ");
    if is_installed(&home, bin) {
        return Ok(format!(
            "maven: already in {} (bin: {launchers})",
            home.display()
        ));
    }
    let mut argv = vec!["mvn".to_string()];
    argv.extend(mvn_args(&toolchain_dir::partial(&root, &name)));
    eprintln!("$ {}", shell_words::join(&argv));
    if dry_run {
        return Ok(format!("maven: {} -> {}", maven.join(" "), home.display()));
    }
    let count = toolchain_dir::install_whole(
        &root,
        &name,
        |home| is_installed(home, bin),
        |partial| build(&artifacts, spec, partial, &home, &argv, spawner),
    )?;
    Ok(format!(
        "maven: {} ({count} jars, checksums verified) -> {} (bin: {launchers})",
        maven.join(" "),
        home.display()
    ))
}

/// Resolves into `dir`, writes the launchers (for their final `home`) and
/// runs the setup commands there.
fn build(
    artifacts: &[Artifact],
    spec: Spec,
    dir: &Path,
    home: &Path,
    argv: &[String],
    spawner: &langbench_spawn::Spawner,
) -> Result<usize, String> {
    let io = |what: &str, p: &Path, e: std::io::Error| format!("{what} {}: {e}", p.display());
    std::fs::create_dir_all(dir.join("bin")).map_err(|e| io("cannot create", dir, e))?;
    let repository = std::env::var(REPOSITORY_ENV).ok().filter(|r| !r.is_empty());
    let pom_path = dir.join("pom.xml");
    std::fs::write(&pom_path, pom(artifacts, repository.as_deref()))
        .map_err(|e| io("cannot write", &pom_path, e))?;
    let out = std::process::Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                "mvn is not on PATH (apt-get install maven; `toolchains install` does it)".into()
            }
            _ => format!("cannot run mvn: {e}"),
        })?;
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if !out.status.success() {
        return Err(format!(
            "mvn failed ({}): {}",
            out.status,
            mvn_failure(&text)
        ));
    }
    let resolved = std::fs::read_to_string(dir.join("resolved.txt"))
        .map_err(|e| io("mvn wrote no", &dir.join("resolved.txt"), e))?;
    let count = check_names(&resolved)?;
    for (name, command) in spec.bin {
        let path = dir.join("bin").join(name);
        std::fs::write(&path, launcher(name, command, home)?)
            .map_err(|e| io("cannot write", &path, e))?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| io("cannot chmod", &path, e))?;
    }
    setup(spec, dir, spawner)?;
    Ok(count)
}

/// Runs the setup commands in `dir` (the toolchain being built), each in
/// the sandbox like a benchmark's build: only `dir` (and a scratch HOME)
/// writable, the languages file's directory readable, no network, as the
/// sandbox's user; then gives `dir` back to langbench's user, so no later
/// sandboxed run can change the toolchain.
fn setup(spec: Spec, dir: &Path, spawner: &langbench_spawn::Spawner) -> Result<(), String> {
    if spec.setup.is_empty() {
        return Ok(());
    }
    let ids = spawner.containment.limits.ids;
    // The setup commands write the toolchain: what it holds is theirs.
    let bounds = langbench_spawn::nofollow::Bounds::toward(spawner.containment.limits.files);
    if let Some((uid, gid)) = ids {
        crate::scratch::chown_tree(dir, uid, gid, bounds).map_err(|e| format!("{e:#}"))?;
    }
    let ran = (|| {
        for command in spec.setup {
            let words = shell_words::split(command).map_err(|e| e.to_string())?;
            let argv = expand(&words, dir, spec.root);
            eprintln!("$ {}", shell_words::join(&argv));
            let scratch = crate::scratch::dir("setup").map_err(|e| format!("{e:#}"))?;
            let mut req = langbench_spawn::Request::new(argv.clone(), dir);
            req.timeout = Some(std::time::Duration::from_secs(600));
            req.readable = vec![spec.root.to_path_buf()];
            spawner.isolate(&mut req, scratch.path(), false);
            if let Some(sb) = req.sandbox.as_mut() {
                sb.writable.push(dir.to_path_buf());
            }
            let out = spawner
                .execute(&req)
                .map_err(|e| format!("setup `{command}`: cannot run {}: {e:#}", argv[0]))?;
            if out.done.timed_out || out.done.exit != langbench_spawn::Exit::Exited(0) {
                let err = out.stderr.text();
                let tail: Vec<&str> = err.trim().lines().rev().take(4).collect();
                return Err(format!(
                    "setup `{command}` failed ({}{}): {}",
                    out.done.exit,
                    if out.done.timed_out {
                        ", timed out"
                    } else {
                        ""
                    },
                    tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
                ));
            }
        }
        Ok(())
    })();
    if ids.is_some() {
        // SAFETY: geteuid/getegid cannot fail.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        crate::scratch::chown_tree(dir, uid, gid, bounds).map_err(|e| format!("{e:#}"))?;
    }
    ran
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bin(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn artifacts_parse_and_moving_versions_are_refused() {
        let a: Artifact = "org.graalvm.polyglot:js-community:25.0.3:pom"
            .parse()
            .unwrap();
        assert_eq!(a.artifact, "js-community");
        assert_eq!(a.kind.as_deref(), Some("pom"));
        for bad in [
            "org.clojure:clojure",
            "org.clojure:clojure:1.12.6:jar:extra",
            "org.clojure::1.12.6",
            "org clojure:clojure:1.12.6",
        ] {
            let e = bad.parse::<Artifact>().unwrap_err();
            assert!(e.contains("is not `group:artifact:version`"), "{bad}: {e}");
        }
        for moving in ["g:a:RELEASE", "g:a:LATEST", "g:a:1.0-SNAPSHOT"] {
            assert!(moving.parse::<Artifact>().unwrap_err().contains("moves"));
        }
    }

    fn spec<'a>(
        maven: &'a [String],
        bin: &'a BTreeMap<String, String>,
        setup: &'a [String],
    ) -> Spec<'a> {
        Spec {
            maven,
            bin,
            setup,
            root: Path::new("/nonexistent"),
        }
    }

    fn validate(maven: &[String], bin: &BTreeMap<String, String>) -> Result<(), String> {
        super::validate(spec(maven, bin, &[]))
    }

    #[test]
    fn validation_of_setup() {
        let m = vec!["org.clojure:clojure:1.12.6".to_string()];
        let b = bin(&[("c", "java -cp {home}/lib/* clojure.main")]);
        let ok = vec!["javac -d {home}/classes {root}/Host.java".to_string()];
        assert!(super::validate(spec(&m, &b, &ok)).is_ok());
        let bad = vec!["javac {n}".to_string()];
        let e = super::validate(spec(&m, &b, &bad)).unwrap_err();
        assert!(
            e.contains("unknown placeholder {n} (allowed: {home} {root})"),
            "{e}"
        );
        let e = super::validate(spec(&[], &BTreeMap::new(), &ok)).unwrap_err();
        assert!(e.contains("`install.setup` without `install.maven`"), "{e}");
    }

    #[test]
    fn a_file_the_setup_names_is_part_of_the_toolchain() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("Host.java"), "class Host {}").unwrap();
        let m = vec!["org.clojure:clojure:1.12.6".to_string()];
        let b = bin(&[("c", "java -cp {home}/classes Host")]);
        let setup = vec!["javac -d {home}/classes {root}/Host.java".to_string()];
        let s = Spec {
            root: d.path(),
            ..spec(&m, &b, &setup)
        };
        let before = dir_name(s);
        assert_ne!(before, dir_name(spec(&m, &b, &[])));
        std::fs::write(d.path().join("Host.java"), "class Host { }").unwrap();
        assert_ne!(before, dir_name(s), "an edited host installs anew");
    }

    #[test]
    fn validation_of_bin() {
        let m = vec!["org.clojure:clojure:1.12.6".to_string()];
        assert!(
            validate(
                &m,
                &bin(&[("clojure", "java -cp {home}/lib/* clojure.main")])
            )
            .is_ok()
        );
        let e = validate(&m, &bin(&[])).unwrap_err();
        assert!(e.contains("without `install.bin`"), "{e}");
        let e = validate(&[], &bin(&[("x", "java")])).unwrap_err();
        assert!(e.contains("without `install.maven`"), "{e}");
        let e = validate(&m, &bin(&[("a/b", "java")])).unwrap_err();
        assert!(e.contains("launcher name"), "{e}");
        let e = validate(&m, &bin(&[("c", "java -cp {lib}/*")])).unwrap_err();
        assert!(
            e.contains("unknown placeholder {lib} (allowed: {home})"),
            "{e}"
        );
    }

    #[test]
    fn dir_name_changes_with_the_table() {
        let m = vec!["org.clojure:clojure:1.12.6".to_string()];
        let b = bin(&[("clojure", "java -cp {home}/lib/* clojure.main")]);
        let dir_name =
            |m: &[String], b: &BTreeMap<String, String>| super::dir_name(spec(m, b, &[]));
        let n = dir_name(&m, &b);
        assert!(
            n.starts_with("clojure-1.12.6-") && n.len() == "clojure-1.12.6-".len() + 8,
            "{n}"
        );
        assert_eq!(n, dir_name(&m, &b));
        assert_ne!(
            n,
            dir_name(&m, &bin(&[("clj", "java -cp {home}/lib/* clojure.main")]))
        );
    }

    #[test]
    fn launcher_quotes_the_home_and_passes_arguments() {
        let s = launcher(
            "k",
            "java -Xss2m -cp {home}/lib/* Main",
            Path::new("/a b/t"),
        )
        .unwrap();
        assert!(s.starts_with("#!/bin/sh\n"), "{s}");
        assert!(
            s.contains("exec java -Xss2m -cp '/a b/t/lib/*' Main \"$@\"\n"),
            "{s}"
        );
    }

    #[test]
    fn resolved_names_must_not_collide() {
        let ok = "The following files have been resolved:\n   org.a:x:jar:1.0:compile -- module x\n   org.b:y:jar:natives:2.0:runtime\n   org.c:z:pom:1:compile\n";
        assert_eq!(check_names(ok), Ok(2));
        let bad =
            "   org.a:annotations:jar:13.0:runtime\n   org.b:annotations:jar:23.0.0:compile\n";
        let e = check_names(bad).unwrap_err();
        assert!(e.contains("lib/annotations.jar"), "{e}");
    }

    #[test]
    fn checksum_failures_are_named() {
        let out = "[ERROR] Failed to execute goal on project toolchain: Could not resolve dependencies for project langbench.toolchain:toolchain:pom:0: Could not transfer artifact t:tiny:jar:1.0 from/to langbench-extra (http://127.0.0.1:1/): Checksum validation failed, expected 0000 but is 1234 -> [Help 1]";
        let m = mvn_failure(out);
        assert!(m.starts_with("checksum mismatch for t:tiny:jar:1.0"), "{m}");
        assert!(m.ends_with("expected 0000 but is 1234"), "{m}");
    }
}
