//! What a directory's derived files were built from, so they are never
//! stale without anyone knowing: every results directory's derived files,
//! and every comparison (and history) directory, carry `provenance.json`
//! naming their inputs (directories, as paths relative to it) and a digest
//! of each input's records. `langbench report` rebuilds a comparison whose
//! inputs changed; `langbench report --check DIR...` (CI) fails on any
//! directory whose derived files no longer match its records.
//!
//! The check compares digests of the records with the recorded ones, and
//! re-renders the data files (summary.csv, ws-summary.csv, compare.csv,
//! history.csv: no timestamps, no languages-file sources) byte for byte
//! against the committed ones, so a derived file edited by hand, written
//! by an older layout, or left behind by a run, shows too. Not compared:
//! report.html, results.xlsx, results.json (they carry times or the
//! languages file's current sources, which change without the records).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::store::records_digest;

/// The file, in each derived directory.
pub const FILE: &str = "provenance.json";

/// What kind of directory it describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Kind {
    /// A results directory: its own records.
    Results,
    /// `compare OLD NEW --out DIR`.
    Comparison,
    /// `history DIR... --out DIR`.
    History,
}

/// One input: a directory and the digest of its records when it was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Input {
    /// Relative to the directory this provenance is in (`.` for its own
    /// records, `../2026` for a comparison's).
    pub dir: String,
    /// As it was named on the command line (`results/2026`): shown in the
    /// rebuilt report.
    pub shown: String,
    /// [`records_digest`] of it.
    pub digest: String,
}

/// `provenance.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Provenance {
    pub kind: Kind,
    /// The langbench that wrote the derived files.
    pub langbench: String,
    pub inputs: Vec<Input>,
    /// `--relative-to` of a comparison or history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relative_to: Option<String>,
}

impl Provenance {
    pub(crate) fn new(
        kind: Kind,
        out: &Path,
        inputs: &[&Path],
        relative_to: Option<String>,
    ) -> Result<Provenance> {
        let inputs = inputs
            .iter()
            .map(|dir| {
                Ok(Input {
                    dir: relative(out, dir)?,
                    shown: dir.display().to_string(),
                    digest: records_digest(dir)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Provenance {
            kind,
            langbench: env!("CARGO_PKG_VERSION").into(),
            inputs,
            relative_to,
        })
    }

    /// A results directory's own.
    pub(super) fn results(dir: &Path) -> Result<Provenance> {
        Provenance::new(Kind::Results, dir, &[dir], None)
    }

    pub(crate) fn write(&self, dir: &Path) -> Result<()> {
        let mut json = serde_json::to_vec_pretty(self)?;
        json.push(b'\n');
        crate::store::Store::open(dir)?.write_derived(FILE, &json)
    }

    /// The one of `dir`, if it has one.
    pub(crate) fn read(dir: &Path) -> Result<Option<Provenance>> {
        let path = dir.join(FILE);
        if !dir.is_dir() {
            return Ok(None);
        }
        match crate::store::Store::open(dir)?.read_file(FILE)? {
            Some(bytes) => serde_json::from_slice(&bytes)
                .with_context(|| format!("{}: not a provenance file", path.display()))
                .map(Some),
            None => Ok(None),
        }
    }

    /// Where input `i` is, from `dir` (this provenance's directory).
    pub(crate) fn input_dir(&self, dir: &Path, i: usize) -> PathBuf {
        dir.join(&self.inputs[i].dir)
    }

    /// The inputs whose records changed since: (input, why).
    pub(crate) fn changed(&self, dir: &Path) -> Vec<(usize, String)> {
        (0..self.inputs.len())
            .filter_map(|i| {
                let input = &self.inputs[i];
                let path = self.input_dir(dir, i);
                match records_digest(&path) {
                    Ok(d) if d == input.digest => None,
                    Ok(d) => Some((
                        i,
                        format!(
                            "the records of {} changed (digest {} when built, {} now)",
                            input.shown, input.digest, d
                        ),
                    )),
                    Err(e) => Some((i, format!("{}: {e:#}", input.shown))),
                }
            })
            .collect()
    }

    /// Whether input `i` is the directory `other`.
    pub(crate) fn names(&self, dir: &Path, i: usize, other: &Path) -> bool {
        same_dir(&self.input_dir(dir, i), other)
    }
}

/// `target` as a path relative to `base` (both made absolute first).
fn relative(base: &Path, target: &Path) -> Result<String> {
    let abs = |p: &Path| -> Result<PathBuf> {
        let p = if p.is_absolute() {
            p.to_path_buf()
        } else {
            std::env::current_dir()?.join(p)
        };
        // Resolve `..` where the directory exists (the output may not yet).
        Ok(p.canonicalize().unwrap_or(p))
    };
    let (b, t) = (abs(base)?, abs(target)?);
    Ok(pathdiff::diff_paths(&t, &b)
        .map(|p| {
            if p.as_os_str().is_empty() {
                ".".to_string()
            } else {
                p.display().to_string()
            }
        })
        .unwrap_or_else(|| t.display().to_string()))
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{RUNS, SESSIONS};

    #[test]
    fn digests_change_with_the_records_and_paths_are_relative() {
        let tmp = tempfile::tempdir().unwrap();
        let a = tmp.path().join("2026");
        std::fs::create_dir_all(&a).unwrap();
        assert!(records_digest(&a).is_err(), "no records, no digest");
        std::fs::write(a.join(RUNS), "{}\n").unwrap();
        let d1 = records_digest(&a).unwrap();
        assert_eq!(d1.len(), 16);
        std::fs::write(a.join(RUNS), "{}\n{}\n").unwrap();
        assert_ne!(records_digest(&a).unwrap(), d1);
        // The same bytes in another file are other records.
        std::fs::remove_file(a.join(RUNS)).unwrap();
        std::fs::write(a.join(SESSIONS), "{}\n").unwrap();
        assert_ne!(records_digest(&a).unwrap(), d1);

        let out = tmp.path().join("compare");
        let p = Provenance::new(Kind::Comparison, &out, &[&a], None).unwrap();
        assert_eq!(p.inputs[0].dir, "../2026");
        p.write(&out).unwrap();
        assert_eq!(Provenance::read(&out).unwrap().unwrap(), p);
        assert!(p.changed(&out).is_empty());
        assert!(p.names(&out, 0, &a));
        std::fs::write(a.join(SESSIONS), "{}\n{}\n").unwrap();
        let changed = p.changed(&out);
        assert_eq!(changed.len(), 1);
        assert!(changed[0].1.contains("changed"), "{changed:?}");
        assert_eq!(Provenance::results(&a).unwrap().inputs[0].dir, ".");
    }
}
