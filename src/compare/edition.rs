//! One results directory as compared ([`Edition`]), and how two editions'
//! rows are matched: by the variant each stands for today ([`Keys::key`]).

use std::path::{Path, PathBuf};

use anyhow::{Result, ensure};

use crate::config::Languages;
use crate::machine::Machine;
use crate::store::Store;
use crate::summary::Summary;
use crate::ws_record::WsRecord;
use crate::ws_summary;

/// One results directory, as compared.
pub(crate) struct Edition {
    pub dir: PathBuf,
    /// Short name in headers: the directory's name (`2021`, `2026`).
    pub label: String,
    pub summary: Option<Summary>,
    pub ws: Vec<WsRecord>,
    /// The machine most of its rows ran on.
    pub machine: Option<Machine>,
    /// The variant ids its sessions selected (to tell "not run here" from
    /// "dropped").
    pub selected: Vec<String>,
    /// A digest of its records (what a comparison is built from).
    pub digest: String,
    /// Its records: every session's runs and reference passes, which a
    /// figure relative to a reference is judged against ([`super::basis`]).
    pub stored: crate::store::Stored,
}

impl Edition {
    /// The time of its newest record ([`crate::store::Stored::as_of`]).
    pub(crate) fn as_of(&self) -> Option<String> {
        self.stored
            .as_of(self.ws.iter().map(|r| r.finished_at.as_str()))
    }

    /// The newest record's time of `editions`: what a comparison or a
    /// history of them stands for, so the same editions give the same
    /// workbook.
    pub(crate) fn newest<'a>(editions: impl IntoIterator<Item = &'a Edition>) -> Option<String> {
        editions.into_iter().filter_map(Edition::as_of).max()
    }

    pub(crate) fn load(dir: &Path) -> Result<Edition> {
        ensure!(
            dir.is_dir(),
            "{} is not a results directory (no such directory)",
            dir.display()
        );
        let store = Store::open(dir)?;
        // The records' digest on a second thread while they are loaded and
        // summarised: it reads them again (issue #41).
        std::thread::scope(|scope| {
            let digest = scope.spawn(|| crate::store::records_digest(dir));
            let edition = Edition::from_store(dir, &store);
            let digest = digest
                .join()
                .map_err(|_| anyhow::anyhow!("digesting {} panicked", dir.display()))?;
            let mut edition = edition?;
            edition.digest = digest?;
            Ok(edition)
        })
    }

    /// Several directories' editions, loaded side by side (one thread
    /// each: a history's newest edition is most of its time, and the
    /// others and the languages file load beside it, issue #41); the first
    /// directory's error in their order, as loading them one by one gave.
    pub(crate) fn load_all(dirs: &[&Path]) -> Result<Vec<Edition>> {
        std::thread::scope(|scope| {
            let loading: Vec<_> = dirs
                .iter()
                .map(|d| scope.spawn(move || Edition::load(d)))
                .collect();
            loading
                .into_iter()
                .map(|l| {
                    l.join()
                        .map_err(|_| anyhow::anyhow!("loading an edition panicked"))?
                })
                .collect()
        })
    }

    /// The languages file (from `languages`) and the editions of `dirs`,
    /// all loaded side by side ([`Edition::load_all`]); the languages
    /// file's error first, as when it was read before them.
    pub(crate) fn load_with(
        languages: impl FnOnce() -> Result<Languages> + Send,
        dirs: &[&Path],
    ) -> Result<(Languages, Vec<Edition>)> {
        std::thread::scope(|scope| {
            let langs = scope.spawn(languages);
            let editions = Edition::load_all(dirs);
            let langs = langs
                .join()
                .map_err(|_| anyhow::anyhow!("reading the languages file panicked"))??;
            Ok((langs, editions?))
        })
    }

    /// [`Edition::load`] but for its digest (left empty).
    fn from_store(dir: &Path, store: &Store) -> Result<Edition> {
        let stored = store.load()?;
        let (ws, _) = ws_summary::load(store)?;
        ensure!(
            !stored.runs.is_empty() || !ws.is_empty(),
            "{} holds no records (runs.jsonl or ws.jsonl)",
            dir.display()
        );
        let ws = ws_summary::latest(&ws).into_iter().cloned().collect();
        let summary = (!stored.runs.is_empty()).then(|| Summary::from_stored(&stored));
        // The machine most of its rows ran on (else its newest session's).
        let machine = summary
            .as_ref()
            .and_then(|s| s.machine.clone())
            .or_else(|| stored.sessions.last().map(|s| s.machine.clone()));
        let mut selected: Vec<String> = stored
            .sessions
            .iter()
            .flat_map(|s| s.variants.iter().map(|v| v.id.clone()))
            .collect();
        selected.sort();
        selected.dedup();
        Ok(Edition {
            dir: dir.to_path_buf(),
            label: dir
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| dir.display().to_string()),
            summary,
            ws,
            machine,
            selected,
            digest: String::new(),
            stored,
        })
    }

    pub(super) fn machine(&self) -> Option<&Machine> {
        self.machine.as_ref()
    }

    /// Whether its figures are a published edition's (no per-run data).
    pub(super) fn published(&self) -> bool {
        self.summary.as_ref().is_some_and(|s| s.published)
    }

    /// `2021 edition (as published)`, `2026 edition`: for the title.
    pub(super) fn heading(&self) -> String {
        match &self.summary {
            Some(s) if s.published => format!("{} edition (as published)", s.edition),
            Some(s) => format!("{} edition", s.edition),
            None => self.label.clone(),
        }
    }

    /// What the directory holds: its edition's title, langbench and
    /// machine.
    pub(super) fn about(&self) -> String {
        let mut parts = Vec::new();
        if let Some(s) = &self.summary {
            parts.push(s.title());
            if !s.langbench.is_empty() {
                parts.push(format!("langbench {}", s.langbench.join(", ")));
            }
        } else if !self.ws.is_empty() {
            parts.push(format!("{} ws-echo servers", self.ws.len()));
        }
        let machines = self.summary.as_ref().map_or(1, |s| s.machines.len());
        match &self.machine {
            Some(m) if machines > 1 => parts.push(format!(
                "DIFFERENT HARDWARE within it: its rows come from {machines} machines, most \
                 from {}; the others are marked in the Machine column",
                m.hardware()
            )),
            Some(m) => parts.push(m.hardware()),
            None => {}
        }
        parts.join("; ")
    }
}

/// The variant a row stands for today ([`Keys::key`]), for many rows: the
/// languages file's ids indexed once, not scanned per row (quadratic at
/// 6,500 variants, issue #41).
pub(crate) struct Keys<'l> {
    resolver: crate::config::Resolver<'l>,
    ids: std::collections::HashSet<&'l str>,
}

impl<'l> Keys<'l> {
    pub(crate) fn new(langs: &'l Languages) -> Keys<'l> {
        Keys {
            resolver: langs.resolver(),
            ids: langs.variants.iter().map(|v| v.id.as_str()).collect(),
        }
    }

    /// The variant a row stands for today: its id (without an `@size`
    /// suffix) where the languages file has it, else the variant its
    /// language and flags resolve to (a published row, through the
    /// aliases), else the id as it is.
    pub(crate) fn key(&self, id: &str, language: &str, flags: &str) -> String {
        let base = id.split('@').next().unwrap_or(id);
        if self.ids.contains(base) {
            return base.to_string();
        }
        self.resolver
            .resolve(language, flags)
            .map(|v| v.id.clone())
            .unwrap_or_else(|| base.to_string())
    }
}

/// A matched pair of rows (CPU rows or ws servers) of one variant.
pub(super) struct Pair<'a, T> {
    pub(super) key: String,
    pub(super) old: &'a T,
    pub(super) new: &'a T,
}

/// Each edition's rows (CPU rows or ws servers), each with the variant it
/// stands for (see [`Keys::key`]).
pub(super) struct Matched<'a, T> {
    pub(super) old: Vec<(String, &'a T)>,
    pub(super) new: Vec<(String, &'a T)>,
}

impl<'a, T> Matched<'a, T> {
    /// The variants both editions have: for each new row, every old row of
    /// its variant.
    pub(super) fn pairs(&self) -> Vec<Pair<'a, T>> {
        let old: std::collections::HashMap<&str, Vec<&'a T>> =
            self.old
                .iter()
                .fold(std::collections::HashMap::new(), |mut m, (k, o)| {
                    m.entry(k.as_str()).or_insert_with(Vec::new).push(*o);
                    m
                });
        let mut pairs = Vec::new();
        for (k, n) in &self.new {
            for o in old.get(k.as_str()).into_iter().flatten() {
                pairs.push(Pair {
                    key: k.clone(),
                    old: *o,
                    new: *n,
                });
            }
        }
        pairs
    }

    /// The new edition's rows of a variant the old one has no row of.
    pub(super) fn added(&self) -> impl Iterator<Item = &(String, &'a T)> {
        only_in(&self.new, &self.old)
    }

    /// The old edition's rows of a variant the new one has no row of.
    pub(super) fn dropped(&self) -> impl Iterator<Item = &(String, &'a T)> {
        only_in(&self.old, &self.new)
    }
}

/// The rows of a variant `other` has no row of.
pub(super) fn only_in<'s, 'a, T>(
    rows: &'s [(String, &'a T)],
    other: &'s [(String, &'a T)],
) -> impl Iterator<Item = &'s (String, &'a T)> {
    let keys: std::collections::HashSet<&str> = other.iter().map(|(k, _)| k.as_str()).collect();
    rows.iter().filter(move |(k, _)| !keys.contains(k.as_str()))
}

/// How the editions are compared.
pub struct Options {
    /// Divide every figure by this variant's in the same edition.
    pub relative_to: Option<String>,
}
