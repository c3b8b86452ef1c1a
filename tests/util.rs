//! Helpers shared by the integration tests: the built binary, throwaway
//! languages files, and a look at /proc for processes left behind.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_langbench"))
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn langbench(args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .output()
        .expect("langbench runs")
}

pub fn text(o: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A directory with a languages.toml and program files.
pub struct Fixture {
    pub dir: tempfile::TempDir,
}

impl Fixture {
    pub fn new(toml: &str, files: &[(&str, &str)]) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("languages.toml"), toml).unwrap();
        for (name, body) in files {
            let p = dir.path().join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, body).unwrap();
        }
        Fixture { dir }
    }

    pub fn languages(&self) -> String {
        self.dir.path().join("languages.toml").display().to_string()
    }

    pub fn out(&self) -> String {
        self.dir.path().join("results").display().to_string()
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// runs.csv as (header -> value) maps.
    pub fn runs(&self) -> Vec<std::collections::HashMap<String, String>> {
        let mut r = csv::Reader::from_path(self.dir.path().join("results/runs.csv")).unwrap();
        let headers = r.headers().unwrap().clone();
        r.records()
            .map(|rec| {
                let rec = rec.unwrap();
                headers
                    .iter()
                    .zip(rec.iter())
                    .map(|(h, v)| (h.to_string(), v.to_string()))
                    .collect()
            })
            .collect()
    }
}

/// Pids of live processes whose environment holds `marker`.
pub fn processes_with_env(marker: &str) -> Vec<i32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
            continue;
        };
        let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| {
                s.rsplit_once(')')
                    .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
            })
            .unwrap_or(true);
        if !zombie && env.split(|&b| b == 0).any(|kv| kv == marker.as_bytes()) {
            out.push(pid);
        }
    }
    out
}

/// A unique KEY=VALUE to tag the processes of one test.
pub fn marker(name: &str) -> (String, String) {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    (
        "LANGBENCH_TEST_MARKER".to_string(),
        format!("{name}-{}-{nanos}", std::process::id()),
    )
}
