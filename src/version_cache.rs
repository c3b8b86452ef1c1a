//! `langbench list`'s version cache: the version each variant's probe read,
//! keyed by what the probe runs, so that `list` answers without probing
//! when nothing changed. `run` never uses it (a session records the
//! version it probed itself).
//!
//! The key of a variant is its probe (the command as run, its environment,
//! its version regex, how it is contained), and each executable and file it
//! needs as found now:
//! the path it resolves to on PATH, that file's canonical path, size and
//! modification time (`needs` names what the commands run, so an upgraded
//! compiler changes the key). langbench's own version is in the key too.
//! A toolchain that changes without any of these files changing (a library
//! its probe imports) is seen with `list --refresh`.
//!
//! Stored as JSON (serde) at `$LANGBENCH_VERSION_CACHE`, else
//! `$XDG_CACHE_HOME/langbench/versions.json`, else
//! `~/.cache/langbench/versions.json`, written whole through a temporary
//! file and a rename. A version comes from a contributed program's output:
//! serde escapes whatever it holds, and a cache file that does not parse is
//! ignored (and replaced), never fatal. Only versions are cached; a probe
//! that failed or timed out runs again next time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use crate::config::Variant;

/// The cache format's version: a file of another is ignored.
const FORMAT: u32 = 1;

/// One executable or file a probe depends on, as found now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stamp {
    /// As named (`gcc`, `/usr/include/uthash.h`).
    pub name: String,
    /// What it resolves to (`None`: not found), canonical.
    pub path: Option<PathBuf>,
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i128,
}

impl Stamp {
    fn of(name: &str, found: Option<PathBuf>) -> Stamp {
        let path = found.and_then(|p| p.canonicalize().ok());
        let meta = path.as_ref().and_then(|p| std::fs::metadata(p).ok());
        let mtime_ns = meta
            .as_ref()
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128);
        Stamp {
            name: name.to_string(),
            size: meta.map_or(0, |m| m.len()),
            path,
            mtime_ns,
        }
    }
}

/// What a variant's version depends on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Key {
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
    pub version_regex: Option<String>,
    pub files: Vec<Stamp>,
    /// How probes are contained (a probe in the sandbox can read another
    /// version than one outside: a JIT that needs a writable cache).
    pub containment: String,
    pub langbench: String,
}

impl Key {
    /// The key of `v` now: its probe as it would run (contained as
    /// `containment` says), and the files it and its commands need.
    pub(crate) fn of(v: &Variant, containment: &str) -> Key {
        let req = v.request(v.version.expand(&Default::default()), v.root());
        let mut files = Vec::new();
        let mut stamp = |name: &str| {
            let found = if name.contains('/') {
                let p = v.root().join(name);
                p.exists().then_some(p)
            } else {
                which::which(name).ok()
            };
            files.push(Stamp::of(name, found));
        };
        if let Some(program) = req.argv.first() {
            stamp(program);
        }
        for n in &v.needs {
            stamp(n);
        }
        if let Some(home) = &v.maven_home {
            files.push(Stamp::of(&home.display().to_string(), Some(home.clone())));
        }
        Key {
            argv: req.argv,
            env: req.env,
            version_regex: v.version_regex.as_ref().map(|r| r.as_str().to_string()),
            files,
            containment: containment.to_string(),
            langbench: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    key: Key,
    version: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    format: u32,
    /// By variant id.
    versions: BTreeMap<String, Entry>,
}

/// The versions known, from the cache file.
#[derive(Debug, Default)]
pub(crate) struct Cache {
    path: Option<PathBuf>,
    file: File,
}

/// Where the cache lives (`None`: nowhere to keep it).
pub(crate) fn path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("LANGBENCH_VERSION_CACHE") {
        return Some(PathBuf::from(p));
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("langbench").join("versions.json"))
}

impl Cache {
    /// The cache at [`path`]; empty if there is none or it does not parse.
    pub(crate) fn load() -> Cache {
        Cache::load_from(path())
    }

    /// The cache at `path`, as [`Cache::load`].
    pub(crate) fn load_from(path: Option<PathBuf>) -> Cache {
        let file = path
            .as_deref()
            .and_then(|p| std::fs::read(p).ok())
            .and_then(|b| serde_json::from_slice::<File>(&b).ok())
            .filter(|f| f.format == FORMAT)
            .unwrap_or_default();
        Cache { path, file }
    }

    /// `v`'s version, if the cache has it for `key`.
    pub(crate) fn get(&self, id: &str, key: &Key) -> Option<&str> {
        self.file
            .versions
            .get(id)
            .filter(|e| e.key == *key)
            .map(|e| e.version.as_str())
    }

    /// An empty cache kept at [`path`] (`list --refresh`: every version
    /// probed anew).
    pub(crate) fn empty() -> Cache {
        Cache {
            path: path(),
            file: File::default(),
        }
    }

    pub(crate) fn set(&mut self, id: &str, key: Key, version: String) {
        self.file
            .versions
            .insert(id.to_string(), Entry { key, version });
    }

    /// Writes the cache (a temporary file renamed over it).
    pub(crate) fn save(&mut self) -> anyhow::Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        self.file.format = FORMAT;
        let dir = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        serde_json::to_writer(&mut tmp, &self.file)?;
        tmp.persist(path)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever a probe prints, the cache file stays JSON and gives back
    /// the same text; a file that is not the cache is ignored.
    #[test]
    fn hostile_versions_round_trip_and_a_broken_file_is_ignored() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("v.json");
        let key = Key {
            argv: vec!["x".into()],
            env: Vec::new(),
            version_regex: None,
            files: Vec::new(),
            containment: "full".into(),
            langbench: "0".into(),
        };
        let evil = "1.0\"}},\"versions\":{\"x\":{}}\n\u{0}\u{1b}[31m\\";
        let mut c = Cache {
            path: Some(p.clone()),
            ..Default::default()
        };
        c.set("evil", key.clone(), evil.into());
        c.save().unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        let back: File = serde_json::from_str(&text).unwrap();
        assert_eq!(back.versions["evil"].version, evil);
        assert_eq!(back.versions.len(), 1);
        std::fs::write(&p, "{\"format\": 1, \"versions\": [").unwrap();
        let broken = Cache::load_from(Some(p.clone()));
        assert!(broken.get("evil", &key).is_none());
        assert!(
            Cache::load_from(Some(d.path().join("none")))
                .get("evil", &key)
                .is_none()
        );
        let mut other = key.clone();
        other.langbench = "1".into();
        assert!(c.get("evil", &other).is_none(), "another key misses");
        assert_eq!(c.get("evil", &key), Some(evil));
    }
}
