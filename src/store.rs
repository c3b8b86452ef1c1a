//! The results directory. `sessions.jsonl` and `runs.jsonl` are the record of
//! truth: append-only, one JSON object per line, synced to disk as each run
//! finishes, so Ctrl-C or a crash loses nothing that finished. The tables,
//! CSV and JSON files beside them are derived and rewritten atomically.
//!
//! A results directory can come from a branch (`results/` of a checkout),
//! and langbench often runs as root: so the store never opens, truncates,
//! writes or renames through a symbolic link. The directory is opened once
//! as a descriptor ([`Store::open`]: a relative path followed through no
//! link at all, an absolute one through none past its parent) and every
//! file is reached relative to it: records and `.lock` opened `O_NOFOLLOW`
//! and only if they are regular files with one name; derived files written
//! to a fresh temporary file (`O_CREAT | O_EXCL | O_NOFOLLOW`) and renamed
//! over their name (`renameat`: a link there is replaced, never followed);
//! `charts/` opened `O_NOFOLLOW` too. And a directory that holds a link
//! anyway (it or a directory in it, such as `charts/`) is refused when it
//! is opened, naming the link, before anything is written.
#![warn(missing_docs)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;
use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};

use crate::record::{RunRecord, SCHEMA, SessionRecord, WorkRecord};

mod beside;
use crate::ws_record::WS_RECORDS;
pub(crate) use beside::bare_name;

/// The session records ([`SessionRecord`], one JSON object per line).
pub(crate) const SESSIONS: &str = "sessions.jsonl";
/// The run records ([`RunRecord`], one JSON object per line).
pub(crate) const RUNS: &str = "runs.jsonl";
/// The reference runs (issue #39): the reference set measured at every
/// block boundary of a session in rounds ([`RunRecord`]s with their
/// `block`). Kept apart from `runs.jsonl`, so that they are never counted
/// as their variant's own runs, by this langbench or an older one.
pub(crate) const REFERENCES: &str = "references.jsonl";
/// The work counts ([`WorkRecord`], one JSON object per line; issue #62):
/// optional, absent in a directory without work figures.
pub(crate) const WORK: &str = "work.jsonl";
/// The directory of stored reproducibility checks (`reproduce --store`).
pub(crate) const REPRODUCED: &str = "reproduced";
/// At most this many reproducibility checks are read.
pub(crate) const MAX_REPRODUCTIONS: usize = 64;

/// Everything stored in one results directory.
#[derive(Debug, Default, Clone)]
pub struct Stored {
    /// `sessions.jsonl`, in file order (the order the sessions started).
    pub sessions: Vec<SessionRecord>,
    /// `runs.jsonl`, in file order.
    /// Shared with the summaries made from them (a cell's runs and its
    /// figure), not copied into them (issue #41).
    pub runs: Vec<Arc<RunRecord>>,
    /// `references.jsonl`, in file order.
    pub references: Vec<RunRecord>,
    /// `work.jsonl`, in file order (empty without it).
    pub work: Vec<WorkRecord>,
    /// Problems that were tolerated (a torn last line after a crash).
    pub warnings: Vec<String>,
    /// The reproducibility checks stored beside the records
    /// (`reproduced/*.json`, written by `reproduce --store`), by file
    /// name, unparsed: the layer above reads them.
    pub reproductions: Vec<(String, Vec<u8>)>,
    /// Each stored check's run directory (the one `reproduce` measured
    /// into), by the check's file name, where one is found beside this
    /// directory ([`beside`]): its records, to verify the check against.
    pub reproduction_runs: BTreeMap<String, RunDir>,
}

/// A stored check's run directory, found beside the edition.
#[derive(Debug, Clone)]
pub struct RunDir {
    /// Its name (a directory in the edition's parent).
    pub name: String,
    /// Named by the check's `run` field; `false`: found as the directory
    /// whose `reproduced.json` is the same file (checks stored before
    /// `run` was).
    pub named: bool,
    /// Its records, or why they could not be read.
    pub records: std::result::Result<Arc<Stored>, String>,
}

impl Stored {
    /// The time of the newest record, with `also` (RFC 3339, UTC; they all
    /// write one format, so the greatest string is the latest): what the
    /// files derived from them stand for, in place of the clock's time, so
    /// the same records write the same bytes (issue #41).
    pub(crate) fn as_of<'a>(&'a self, also: impl IntoIterator<Item = &'a str>) -> Option<String> {
        let sessions = self.sessions.iter().map(|s| s.started_at.as_str());
        let runs = self
            .runs
            .iter()
            .map(|r| &**r)
            .chain(&self.references)
            .map(|r| r.finished_at.as_str());
        sessions.chain(runs).chain(also).max().map(str::to_owned)
    }

    /// [`Stored::newest_runs`] by cell (variant, benchmark), in file order.
    pub(crate) fn newest_cells(&self) -> BTreeMap<(String, crate::bench::Bench), Vec<&RunRecord>> {
        let mut cells: BTreeMap<(String, crate::bench::Bench), Vec<&RunRecord>> = BTreeMap::new();
        for r in self.newest_runs() {
            cells
                .entry((r.variant.clone(), r.bench))
                .or_default()
                .push(r);
        }
        cells
    }

    /// Each cell's runs from the newest session that ran it (a variant ×
    /// benchmark re-run later shows only its later runs), with the runs of
    /// the sessions its runs [`continue`](RunRecord::continues) (a cell
    /// that `--resume` finished), in file order.
    pub fn newest_runs<'s>(&'s self) -> Vec<&'s Arc<RunRecord>> {
        let order: BTreeMap<&str, usize> = self
            .sessions
            .iter()
            .enumerate()
            .map(|(i, s)| (s.session.as_str(), i))
            .collect();
        // Borrowed keys: a cell's key cloned per run was a tenth of a
        // history's time at 65,000 variants (issue #41).
        let cell = |r: &'s Arc<RunRecord>| (r.variant.as_str(), r.bench);
        let newest = Stored::newest_per_cell(
            &self.runs,
            |r| (r.variant.as_str(), r.bench),
            |r| {
                // A session sessions.jsonl does not hold counts as older
                // than every session it does (issue #59): runs appended
                // under a made-up session would otherwise outrank every
                // later measurement of their cell, and a cell `--resume`
                // measured again would still show them.
                let session = r.session.as_str();
                Some((order.get(session).map_or(0, |i| i + 1), session))
            },
        );
        if self.runs.iter().all(|r| r.continues.is_none()) {
            return newest;
        }
        // The sessions each cell's newest session continues, transitively
        // (a cell interrupted and resumed twice), each once.
        let mut links: BTreeMap<((&str, crate::bench::Bench), &str), &str> = BTreeMap::new();
        for r in &self.runs {
            if let Some(c) = &r.continues {
                links.insert((cell(r), r.session.as_str()), c.as_str());
            }
        }
        let mut shown: BTreeMap<(&str, crate::bench::Bench), Vec<&str>> = BTreeMap::new();
        for r in &newest {
            shown
                .entry(cell(r))
                .or_insert_with(|| vec![r.session.as_str()]);
        }
        for (c, sessions) in shown.iter_mut() {
            while let Some(&earlier) = links.get(&(*c, sessions[sessions.len() - 1])) {
                if sessions.contains(&earlier) {
                    break;
                }
                sessions.push(earlier);
            }
        }
        self.runs
            .iter()
            .filter(|r| {
                shown
                    .get(&cell(r))
                    .is_some_and(|s| s.contains(&r.session.as_str()))
            })
            .collect()
    }

    /// The records of the newest session of each cell, in file order.
    ///
    /// `cell` names a record's cell; `session` gives its session and that
    /// session's age: for runs, its place in `sessions.jsonl`, where
    /// sessions are appended as they start (`merge` sorts them by start),
    /// a session that is not there older than every one that is
    /// ([`Stored::newest_runs`]). Among equal ages the later line wins.
    /// `None` makes a record its own session, aged by its line, newer than
    /// every session: the ws records use that, since `ws merge` and `ws
    /// --target` write records of sessions that `sessions.jsonl` does not
    /// hold, and their file order is their age.
    pub(crate) fn newest_per_cell<'a, T, K: Ord>(
        records: &'a [T],
        cell: impl Fn(&'a T) -> K,
        session: impl Fn(&'a T) -> Option<(usize, &'a str)>,
    ) -> Vec<&'a T> {
        /// The session a record belongs to.
        #[derive(Clone, Copy, PartialEq)]
        enum Of<'a> {
            Session(&'a str),
            Line(usize),
        }
        let of = |i: usize, r: &'a T| match session(r) {
            Some((age, id)) => (age, Of::Session(id)),
            None => (usize::MAX, Of::Line(i)),
        };
        let mut newest: BTreeMap<K, (usize, Of)> = BTreeMap::new();
        for (i, r) in records.iter().enumerate() {
            let this = of(i, r);
            let e = newest.entry(cell(r)).or_insert(this);
            if this.0 >= e.0 {
                *e = this;
            }
        }
        records
            .iter()
            .enumerate()
            .filter(|&(i, r)| newest.get(&cell(r)).map(|(_, id)| id) == Some(&of(i, r).1))
            .map(|(_, r)| r)
            .collect()
    }
}

/// A results directory: appends records, reads them back, writes derived
/// files, all relative to the directory's descriptor and through no link
/// (see the module's comment).
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    fd: Arc<OwnedFd>,
}

impl Store {
    /// The results directory `dir`, created if missing; refused when it is
    /// reached through a symbolic link (see [`open_dir`]) or holds one
    /// ([`Store::refuse_links`]).
    pub fn open(dir: &Path) -> Result<Store> {
        let store = Store {
            dir: dir.to_path_buf(),
            fd: Arc::new(open_dir(dir)?),
        };
        store.refuse_links()?;
        Ok(store)
    }

    /// Refuses a directory that holds a symbolic link, in it or in a
    /// directory in it (`charts/`): every name langbench writes there is a
    /// record, `.lock`, a derived file, their temporary files or `charts/`,
    /// and a link in their place would aim the write at a file of the
    /// host. No legitimate results directory holds one; the error names
    /// each.
    fn refuse_links(&self) -> Result<()> {
        let mut links = Vec::new();
        for (name, kind) in entries(self.fd.as_fd(), &self.dir)? {
            match kind {
                FileType::Symlink => links.push(name),
                FileType::Directory => {
                    let sub = rustix::fs::openat(
                        self.fd.as_fd(),
                        name.as_os_str(),
                        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                        Mode::empty(),
                    )
                    .map_err(|e| self.at_error(&name, e))?;
                    for (inner, kind) in entries(sub.as_fd(), &self.dir.join(&name))? {
                        if kind == FileType::Symlink {
                            links.push(name.join(inner));
                        }
                    }
                }
                _ => {}
            }
        }
        if links.is_empty() {
            return Ok(());
        }
        let shown: Vec<String> = links
            .iter()
            .map(|l| {
                let path = self.dir.join(l);
                match std::fs::read_link(&path) {
                    Ok(to) => format!("{} (a link to {})", path.display(), to.display()),
                    Err(_) => format!("{} (a link)", path.display()),
                }
            })
            .collect();
        bail!(
            "{} holds symbolic links where langbench writes: {}; a results directory holds \
             records, derived files and charts/ only, never a link (one there would aim a \
             write at whatever it points to): remove {}; nothing was written",
            self.dir.display(),
            shown.join(", "),
            if links.len() == 1 { "it" } else { "them" }
        )
    }

    /// An error of `openat` on `name` in this directory, said plainly.
    fn at_error(&self, name: &Path, e: Errno) -> anyhow::Error {
        let path = self.dir.join(name);
        if e == Errno::LOOP || is_link(self.fd.as_fd(), name.as_os_str()) {
            return anyhow!(
                "{} is a symbolic link: langbench never writes or reads a results directory's \
                 files through a link; remove it; nothing was written",
                path.display()
            );
        }
        anyhow!(std::io::Error::from(e)).context(format!("cannot open {}", path.display()))
    }

    /// Opens `name` (a record file or `.lock`) in the directory without
    /// following a link, created if `create`; refused unless it is a
    /// regular file with one name (a hard link to a file elsewhere would
    /// be written too). `Ok(None)`: it does not exist.
    fn open_file(&self, name: &str, write: bool) -> Result<Option<File>> {
        let mut flags = OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
        flags |= if write {
            OFlags::RDWR | OFlags::CREATE | OFlags::APPEND
        } else {
            OFlags::RDONLY
        };
        let fd = match rustix::fs::openat(self.fd.as_fd(), name, flags, Mode::from(0o666)) {
            Ok(fd) => fd,
            Err(Errno::NOENT) if !write => return Ok(None),
            Err(e) => return Err(self.at_error(Path::new(name), e)),
        };
        let st = rustix::fs::fstat(&fd)?;
        let path = self.dir.join(name);
        if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
            bail!(
                "{} is not a regular file: langbench reads and writes only its own files in a \
                 results directory; remove it",
                path.display()
            );
        }
        if write && st.st_nlink > 1 {
            bail!(
                "{} has {} names (hard links): writing it would change the other names' file \
                 too; replace it by a copy (cp {} x && mv x {})",
                path.display(),
                st.st_nlink,
                name,
                name
            );
        }
        Ok(Some(File::from(fd)))
    }

    /// Reads the file `name` of the directory, through no link; `None`
    /// when it does not exist.
    pub(crate) fn read_file(&self, name: &str) -> Result<Option<Vec<u8>>> {
        let Some(mut f) = self.open_file(name, false)? else {
            return Ok(None);
        };
        let mut bytes = Vec::new();
        f.read_to_end(&mut bytes)
            .with_context(|| format!("cannot read {}", self.dir.join(name).display()))?;
        Ok(Some(bytes))
    }

    /// Its path.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Appends a session record to `sessions.jsonl` and syncs it.
    pub(crate) fn append_session(&self, s: &SessionRecord) -> Result<()> {
        self.append(SESSIONS, s)
    }

    /// Appends a run record to `runs.jsonl` and syncs it.
    pub(crate) fn append_run(&self, r: &RunRecord) -> Result<()> {
        self.append(RUNS, r)
    }

    /// Appends a work count to `work.jsonl` and syncs it.
    pub(crate) fn append_work(&self, w: &WorkRecord) -> Result<()> {
        self.append(WORK, w)
    }

    /// Appends a reference run to `references.jsonl` and syncs it.
    pub(crate) fn append_reference(&self, r: &RunRecord) -> Result<()> {
        self.append(REFERENCES, r)
    }

    /// Appends one record to the JSON-lines file `name` and syncs it.
    pub(crate) fn append<T: Serialize>(&self, name: &str, value: &T) -> Result<()> {
        let f = self
            .open_file(name, true)?
            .context("a file opened to be created exists")?;
        append_line(f, &self.dir.join(name), value)
    }

    /// Appends records to the JSON-lines file `name`, synced once after the
    /// last (`merge` writes a directory's records at once: a sync per
    /// record cost minutes for a large one, issue #41). Crash-safety as
    /// [`Store::append`]'s: a crash part-way leaves whole records and at
    /// most a torn last line, which reading tolerates and the next append
    /// starts after; no caller says the records are stored before this
    /// returns.
    pub(crate) fn append_all<'v, T: Serialize + 'v>(
        &self,
        name: &str,
        values: impl IntoIterator<Item = &'v T>,
    ) -> Result<()> {
        let f = self
            .open_file(name, true)?
            .context("a file opened to be created exists")?;
        append_lines(f, &self.dir.join(name), values)
    }

    /// Reads the JSON-lines file `name` (tolerating a torn last line).
    pub(crate) fn read<T: DeserializeOwned>(
        &self,
        name: &str,
        warnings: &mut Vec<String>,
    ) -> Result<Vec<T>> {
        self.read_lines(name, warnings)
    }

    fn read_lines<T: DeserializeOwned>(
        &self,
        name: &str,
        warnings: &mut Vec<String>,
    ) -> Result<Vec<T>> {
        let path = self.dir.join(name);
        match self.read_file(name)? {
            None => Ok(Vec::new()),
            Some(bytes) => {
                let text = String::from_utf8(bytes)
                    .map_err(|e| anyhow!("{}: not UTF-8 text ({e})", path.display()))?;
                Ok(parse_lines(&path, &text, warnings, max_line(name)))
            }
        }
    }

    /// Reads the session and run records, tolerating torn and foreign
    /// lines (see [`Stored::warnings`]); refuses records newer than
    /// [`SCHEMA`].
    pub fn load(&self) -> Result<Stored> {
        let mut stored = self.load_records()?;
        stored.reproductions = self.reproductions(&mut stored.warnings)?;
        stored.reproduction_runs = self.reproduction_runs(&stored.reproductions);
        Ok(stored)
    }

    /// [`Store::load`] without the stored checks: the records alone (what
    /// a check's run directory is read for, never its own checks).
    fn load_records(&self) -> Result<Stored> {
        let mut stored = Stored::default();
        stored.sessions = self.read_lines(SESSIONS, &mut stored.warnings)?;
        let mut runs: Vec<RunRecord> = self.read_lines(RUNS, &mut stored.warnings)?;
        stored.references = self.read_lines(REFERENCES, &mut stored.warnings)?;
        for (name, records) in [(RUNS, &mut runs), (REFERENCES, &mut stored.references)] {
            let path = self.dir.join(name);
            records.retain(|r| {
                let time = r.wall_s.is_finite() && r.wall_s >= 0.0;
                if !time {
                    stored.warnings.push(format!(
                        "{}: skipped the record of {} {} run {} (session {}): its wall time {} \
                         is no time",
                        path.display(),
                        langbench_document::inert::text(&r.variant),
                        r.bench.name(),
                        r.attempt,
                        langbench_document::inert::text(&r.session),
                        r.wall_s
                    ));
                }
                time
            });
        }
        stored.work = self.read_lines(WORK, &mut stored.warnings)?;
        if let Some(w) = stored.work.iter().find(|w| w.schema > SCHEMA) {
            bail!(
                "{} holds work records of format {} but this langbench reads up to {SCHEMA}: upgrade langbench",
                self.dir.display(),
                w.schema
            );
        }
        for r in runs.iter().chain(&stored.references) {
            if r.schema > SCHEMA {
                bail!(
                    "{} holds records of format {} but this langbench reads up to {SCHEMA}: upgrade langbench",
                    self.dir.display(),
                    r.schema
                );
            }
        }
        stored.runs = runs.into_iter().map(Arc::new).collect();
        Ok(stored)
    }

    /// The files of `reproduced/` (regular `.json` files, name order), each
    /// read through no link, at most [`MAX_REPRODUCTIONS`] of at most
    /// [`MAX_LINE`] bytes: they come with a results directory, from
    /// whoever made it. Others are skipped with a warning.
    fn reproductions(&self, warnings: &mut Vec<String>) -> Result<Vec<(String, Vec<u8>)>> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let sub = match rustix::fs::openat(self.fd.as_fd(), REPRODUCED, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(Vec::new()),
            Err(e) => return Err(self.at_error(Path::new(REPRODUCED), e)),
        };
        let shown = self.dir.join(REPRODUCED);
        let mut names: Vec<(PathBuf, FileType)> = entries(sub.as_fd(), &shown)?;
        names.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out = Vec::new();
        for (name, kind) in names {
            let path = shown.join(&name);
            let json = name.extension().is_some_and(|e| e == "json");
            if kind != FileType::RegularFile || !json {
                warnings.push(format!(
                    "{}: not a reproducibility check's .json file; skipped",
                    path.display()
                ));
                continue;
            }
            if out.len() == MAX_REPRODUCTIONS {
                warnings.push(format!(
                    "{}: more than {MAX_REPRODUCTIONS} reproducibility checks; the rest skipped",
                    shown.display()
                ));
                break;
            }
            let fd = rustix::fs::openat(
                sub.as_fd(),
                name.as_os_str(),
                OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK,
                Mode::empty(),
            )
            .with_context(|| format!("cannot open {}", path.display()))?;
            let mut bytes = Vec::new();
            File::from(fd)
                .take(MAX_LINE as u64 + 1)
                .read_to_end(&mut bytes)
                .with_context(|| format!("cannot read {}", path.display()))?;
            if bytes.len() > MAX_LINE {
                warnings.push(format!(
                    "{}: over {MAX_LINE} bytes, not a reproducibility check; skipped",
                    path.display()
                ));
                continue;
            }
            out.push((name.to_string_lossy().into_owned(), bytes));
        }
        Ok(out)
    }

    /// Writes a derived file atomically: to a temporary file of its own
    /// (created `O_EXCL | O_NOFOLLOW`, so never an existing file or a
    /// link's target), renamed over `name`. `name` may name a directory of
    /// the results directory (`charts/x.svg`), created if missing and
    /// opened without following a link.
    pub(crate) fn write_derived(&self, name: &str, bytes: &[u8]) -> Result<()> {
        self.write_derived_with(name, &mut |w| w.write_all(bytes))
    }

    /// [`Store::write_derived`] of what `body` writes (buffered), for a
    /// file too large to hold in memory first (results.json: 164 MB at
    /// 6,500 variants, issue #41).
    pub(crate) fn write_derived_with(
        &self,
        name: &str,
        body: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<()> {
        let path = self.dir.join(name);
        let rel = Path::new(name);
        let (Some(file), Some(parent)) = (rel.file_name(), rel.parent()) else {
            bail!("{}: not a file name", path.display());
        };
        let mut sub: Option<OwnedFd> = None;
        let mut at = PathBuf::new();
        for c in parent.components() {
            let Component::Normal(d) = c else {
                bail!(
                    "{}: a derived file lies inside its directory",
                    path.display()
                );
            };
            at.push(d);
            let here = sub.as_ref().map_or(self.fd.as_fd(), |f| f.as_fd());
            sub = Some(subdir(here, d).map_err(|e| self.at_error(&at, e))?);
        }
        let dir = sub.as_ref().map_or(self.fd.as_fd(), |f| f.as_fd());
        let (tmp, mut f) = temporary(dir, file).map_err(|e| {
            anyhow!(std::io::Error::from(e)).context(format!(
                "cannot create a temporary file beside {}",
                path.display()
            ))
        })?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, &mut f);
        let written = body(&mut w).and_then(|_| w.flush()).and_then(|_| {
            rustix::fs::renameat(dir, tmp.as_os_str(), dir, file).map_err(std::io::Error::from)
        });
        if let Err(e) = written {
            let _ = rustix::fs::unlinkat(dir, tmp.as_os_str(), AtFlags::empty());
            return Err(anyhow!(e).context(format!("cannot write {}", path.display())));
        }
        Ok(())
    }
}

/// Opens (creating it if missing) the results directory `dir` as a
/// descriptor. The part of the path the maintainer chose is followed as
/// the system does: an absolute path's parent. Everything else is
/// followed through no symbolic link: the last component of an absolute
/// path, and every component of a relative one (the default
/// `results/2026` lies in the checkout, which a branch shapes, `results`
/// included).
fn open_dir(dir: &Path) -> Result<OwnedFd> {
    let cannot = |e: Errno| {
        anyhow!(std::io::Error::from(e))
            .context(format!("cannot create results directory {}", dir.display()))
    };
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let (mut fd, walk): (OwnedFd, Vec<Component>) = match (dir.parent(), dir.file_name()) {
        (Some(parent), Some(name)) if dir.is_absolute() => {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create results directory {}", dir.display()))?;
            let fd = rustix::fs::openat(rustix::fs::CWD, parent, dir_flags, Mode::empty())
                .map_err(cannot)?;
            (fd, vec![Component::Normal(name)])
        }
        _ if dir.is_absolute() => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create results directory {}", dir.display()))?;
            let fd = rustix::fs::openat(rustix::fs::CWD, dir, dir_flags, Mode::empty())
                .map_err(cannot)?;
            (fd, Vec::new())
        }
        _ => {
            let fd = rustix::fs::openat(rustix::fs::CWD, ".", dir_flags, Mode::empty())
                .map_err(cannot)?;
            (fd, dir.components().collect())
        }
    };
    let mut shown = match dir.parent() {
        Some(p) if dir.is_absolute() => p.to_path_buf(),
        _ => PathBuf::new(),
    };
    for c in walk {
        match c {
            Component::CurDir => continue,
            Component::ParentDir => {
                shown.push("..");
                fd = rustix::fs::openat(&fd, "..", dir_flags, Mode::empty()).map_err(cannot)?;
            }
            Component::Normal(name) => {
                shown.push(name);
                fd = subdir(fd.as_fd(), name).map_err(|e| {
                    if is_link(fd.as_fd(), name) {
                        let to = std::fs::read_link(&shown)
                            .map(|t| format!(" (to {})", t.display()))
                            .unwrap_or_default();
                        anyhow!(
                            "{} is a symbolic link{to}: langbench reaches a results directory \
                             through no link (a branch could aim it anywhere); name the \
                             directory it leads to, or remove the link; nothing was written",
                            shown.display()
                        )
                    } else if e == Errno::NOTDIR || e == Errno::EXIST {
                        anyhow!(
                            "{} is not a directory (a results directory is one)",
                            shown.display()
                        )
                    } else {
                        cannot(e)
                    }
                })?;
            }
            Component::RootDir | Component::Prefix(_) => {}
        }
    }
    Ok(fd)
}

/// The directory `name` of `dir`, created if missing, opened without
/// following a link.
fn subdir(dir: BorrowedFd, name: &OsStr) -> Result<OwnedFd, Errno> {
    match rustix::fs::mkdirat(dir, name, Mode::from(0o777)) {
        Ok(()) | Err(Errno::EXIST) => {}
        Err(e) => return Err(e),
    }
    rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
}

/// Whether `name` in `dir` is a symbolic link.
fn is_link(dir: BorrowedFd, name: &OsStr) -> bool {
    rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
        .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Symlink)
}

/// The entries of the directory `fd` (shown as `shown`), with their type
/// (never following a link to learn it).
fn entries(fd: BorrowedFd, shown: &Path) -> Result<Vec<(PathBuf, FileType)>> {
    let list = rustix::fs::Dir::read_from(fd)
        .with_context(|| format!("cannot read {}", shown.display()))?;
    let mut out = Vec::new();
    for e in list {
        let e = e.with_context(|| format!("cannot read {}", shown.display()))?;
        let name = OsStr::from_bytes(e.file_name().to_bytes());
        if name == "." || name == ".." {
            continue;
        }
        let kind = match e.file_type() {
            FileType::Unknown => rustix::fs::statat(fd, name, AtFlags::SYMLINK_NOFOLLOW)
                .map(|st| FileType::from_raw_mode(st.st_mode))
                .unwrap_or(FileType::Unknown),
            k => k,
        };
        out.push((PathBuf::from(name), kind));
    }
    Ok(out)
}

/// A new temporary file in `dir` for `file`: `.<file>.<pid>-<n>.tmp`,
/// created `O_EXCL | O_NOFOLLOW` (another one's name, or a link planted
/// under it, is never opened: the next `n` is tried). Hand-written
/// rather than `tempfile::Builder`, which creates by path, not relative
/// to a directory's descriptor.
fn temporary(dir: BorrowedFd, file: &OsStr) -> Result<(PathBuf, File), Errno> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mut tries = 0;
    loop {
        let mut name = std::ffi::OsString::from(".");
        name.push(file);
        name.push(format!(
            ".{}-{}.tmp",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        match rustix::fs::openat(
            dir,
            name.as_os_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from(0o666),
        ) {
            Ok(fd) => return Ok((PathBuf::from(name), File::from(fd))),
            Err(Errno::EXIST) if tries < 100 => tries += 1,
            Err(e) => return Err(e),
        }
    }
}

fn append_line<T: Serialize>(f: File, path: &Path, value: &T) -> Result<()> {
    append_lines(f, path, [value])
}

/// Appends `values` to `f`, one JSON line each, then syncs it once.
fn append_lines<'v, T: Serialize + 'v>(
    mut f: File,
    path: &Path,
    values: impl IntoIterator<Item = &'v T>,
) -> Result<()> {
    // A crash mid-write can leave a torn last line without its newline:
    // start on a fresh line so the new records stay readable.
    let len = f.metadata()?.len();
    let mut fresh_line = false;
    if len > 0 {
        let mut last = [0u8; 1];
        f.seek(SeekFrom::Start(len - 1))?;
        f.read_exact(&mut last)?;
        fresh_line = last[0] != b'\n';
    }
    let cannot = || format!("cannot append to {}", path.display());
    let mut w = std::io::BufWriter::new(&f);
    if fresh_line {
        w.write_all(b"\n").with_context(cannot)?;
    }
    for value in values {
        let mut line = serde_json::to_vec(value)?;
        line.push(b'\n');
        w.write_all(&line).with_context(cannot)?;
    }
    w.flush().with_context(cannot)?;
    drop(w);
    f.sync_data().with_context(cannot)
}

/// The longest record line read, in bytes: far past the longest run
/// record langbench writes (a few KB), so only a record made to be huge is
/// skipped before it is parsed. Session records have their own bound
/// ([`MAX_SESSION_LINE`]).
const MAX_LINE: usize = 1 << 20;

/// The longest line of `sessions.jsonl` read, in bytes. A session record
/// lists every variant the session selected (~250 bytes each: 2026's 84
/// variants write 21 KB), so it grows with the languages file: 6,500
/// variants (the scale of issue #41) write 1.5 MB, past [`MAX_LINE`].
/// Skipped, such a session was missing from the records langbench had
/// just written: `--resume` and `run --plan` then took its runs for newer
/// than every session that was read ([`Stored::newest_per_cell`]), cut
/// the runs of a cell measured in rounds at the session they continue,
/// and measured the cell again. 16 MiB holds some 65,000 variants.
const MAX_SESSION_LINE: usize = 1 << 24;

/// The longest line read of the records file `name`.
fn max_line(name: &str) -> usize {
    if name == SESSIONS {
        MAX_SESSION_LINE
    } else {
        MAX_LINE
    }
}

/// Cuts every string of `v` longer than [`langbench_document::inert::MAX_FIELD`]
/// characters to that; how many it cut.
fn bound_strings(v: &mut serde_json::Value) -> usize {
    match v {
        serde_json::Value::String(s)
            if s.chars().count() > langbench_document::inert::MAX_FIELD =>
        {
            *s = langbench_document::inert::clip(s, langbench_document::inert::MAX_FIELD);
            1
        }
        serde_json::Value::Array(a) => a.iter_mut().map(bound_strings).sum(),
        serde_json::Value::Object(o) => o.values_mut().map(bound_strings).sum(),
        _ => 0,
    }
}

/// Whether a JSON line may hold a string longer than `max` characters: a
/// string's characters as written (an escape counts as all it is written
/// with, at least the one it stands for), so "no" is certain and "yes"
/// may be a long escape. Hand-written because serde_json parses a record
/// straight into its type without a hook on its strings; the alternative,
/// every long line parsed into a `Value` first, parsed a 6,500-variant
/// session (1.5 MB, every selected variant listed) twice (issue #41).
fn may_hold_long_string(line: &str, max: usize) -> bool {
    let mut chars = 0usize;
    let mut inside = false;
    let mut escaped = false;
    for &b in line.as_bytes() {
        if !inside {
            if b == b'"' {
                inside = true;
                chars = 0;
            }
            continue;
        }
        if escaped {
            escaped = false;
        } else if b == b'\\' {
            escaped = true;
        } else if b == b'"' {
            inside = false;
            continue;
        }
        // A character starts at every byte but a UTF-8 continuation byte.
        if b & 0xC0 != 0x80 {
            chars += 1;
            if chars > max {
                return true;
            }
        }
    }
    false
}

fn parse_lines<T: DeserializeOwned>(
    path: &Path,
    text: &str,
    warnings: &mut Vec<String>,
    max_line: usize,
) -> Vec<T> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("{}:{}", path.display(), i + 1);
        if ["<<<<<<<", "=======", ">>>>>>>", "|||||||"]
            .iter()
            .any(|m| line.starts_with(m))
        {
            warnings.push(format!(
                "{at}: skipped a git conflict marker: resolve the merge (keep both sides' records)"
            ));
            continue;
        }
        if line.len() > max_line {
            warnings.push(format!(
                "{at}: skipped a record of {} bytes: a record here is at most {max_line} (the \
                 largest langbench writes is far smaller)",
                line.len()
            ));
            continue;
        }
        // A line that may hold a field longer than a field's bound: its
        // text fields are cut to the bound (crates/document/src/inert.rs says why), with a
        // warning. Others (shorter lines, and long ones of short fields
        // such as a session's) parse directly.
        let parsed = if line.len() > langbench_document::inert::MAX_FIELD
            && may_hold_long_string(line, langbench_document::inert::MAX_FIELD)
        {
            serde_json::from_str::<serde_json::Value>(line).and_then(|mut v| {
                let cut = bound_strings(&mut v);
                if cut > 0 {
                    warnings.push(format!(
                        "{at}: {cut} text field{} longer than {} characters cut to that",
                        if cut == 1 { "" } else { "s" },
                        langbench_document::inert::MAX_FIELD
                    ));
                }
                serde_json::from_value(v)
            })
        } else {
            serde_json::from_str(line)
        };
        match parsed {
            Ok(v) => out.push(v),
            // A line without its newline that does not parse is a write
            // that a crash cut short.
            Err(e) if i == lines.len() - 1 || !lines[i + 1..].iter().any(|l| !l.is_empty()) => {
                warnings.push(format!("{at}: skipped an incomplete record ({e})"));
            }
            Err(e) if serde_json::from_str::<serde_json::Value>(line).is_err() => {
                warnings.push(format!("{at}: skipped a torn record ({e})"));
            }
            // Valid JSON of the wrong shape (a hand edit, another tool, a
            // program that wrote into the directory): never counted, never
            // fatal for the records around it.
            Err(e) => warnings.push(format!("{at}: skipped a record of the wrong shape ({e})")),
        }
    }
    out
}

/// An exclusive lock on a results directory for one langbench session
/// (`run`, `ws`, `import`, `report`): a second one is refused, told who
/// holds it, and touches nothing. Released when dropped (or when the
/// process dies: the kernel drops `flock` locks with the file).
#[derive(Debug)]
pub struct Lock {
    _file: std::fs::File,
}

/// The lock file of a results directory (see [`Lock`]).
pub(crate) const LOCK: &str = ".lock";

impl Store {
    /// Takes the directory's lock, or says who holds it.
    pub fn lock(&self) -> Result<Lock> {
        let path = self.dir.join(LOCK);
        let mut file = self
            .open_file(LOCK, true)?
            .context("a file opened to be created exists")?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                bail!(
                    "{} is in use by another langbench ({}): wait for it to finish, or use another --out; nothing was changed",
                    self.dir.display(),
                    holder.trim()
                );
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("cannot lock {}", path.display()));
            }
        }
        // Who holds it, for the message above.
        let who = format!(
            "pid {}, since {}: {}",
            std::process::id(),
            crate::record::now_rfc3339(),
            std::env::args().collect::<Vec<_>>().join(" ")
        );
        file.set_len(0)?;
        file.seek(SeekFrom::Start(0))?;
        file.write_all(who.as_bytes())?;
        Ok(Lock { _file: file })
    }
}

/// sha256 (first 16 hex digits) over the record files of a results
/// directory (`sessions.jsonl`, `runs.jsonl`, `ws.jsonl`,
/// `references.jsonl`, `work.jsonl`: each one's name,
/// length and bytes, in that order, absent ones skipped). Equal digests:
/// the same records.
pub(crate) fn records_digest(dir: &Path) -> Result<String> {
    if !dir.is_dir() {
        bail!("{} does not exist (or is not a directory)", dir.display());
    }
    let store = Store::open(dir)?;
    let mut h = Sha256::new();
    let mut any = false;
    for name in [SESSIONS, RUNS, WS_RECORDS, REFERENCES, WORK] {
        // Streamed through the hash, not read whole: the records of 6,500
        // variants are 58 MB, held beside the loaded records while a
        // report digests them (issue #41). The length comes first in the
        // digest: it is the file's size when opened, and that many bytes
        // are hashed, the file as it was then (records are only appended:
        // a run appending meanwhile adds lines after them); a file that
        // shrank meanwhile is an error.
        let Some(f) = store.open_file(name, false)? else {
            continue;
        };
        any = true;
        let len = f.metadata()?.len();
        h.update(name.as_bytes());
        h.update(len.to_le_bytes());
        let mut f = f.take(len);
        let mut buf = vec![0u8; 1 << 16];
        let mut read = 0u64;
        loop {
            let n = match f.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(e)
                        .with_context(|| format!("cannot read {}", dir.join(name).display()));
                }
            };
            h.update(&buf[..n]);
            read += n as u64;
        }
        if read != len {
            bail!(
                "{} shrank while it was read ({len} bytes, then {read}): something other \
                 than langbench is changing it",
                dir.join(name).display()
            );
        }
    }
    if !any {
        bail!("{} holds no records", dir.display());
    }
    Ok(hex::encode(&h.finalize()[..8]))
}

/// Directories beside `dir` (in its parent) that hold records, as paths
/// written like `dir`.
fn results_dirs_beside(dir: &Path) -> Vec<PathBuf> {
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Ok(entries) = std::fs::read_dir(&parent) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| holds_records(&e.path()))
        .map(|e| match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.join(e.file_name()),
            _ => PathBuf::from(e.file_name()),
        })
        .collect();
    out.sort();
    out
}

/// Whether `dir` holds run or ws records.
pub(crate) fn holds_records(dir: &Path) -> bool {
    [RUNS, WS_RECORDS].iter().any(|f| dir.join(f).is_file())
}

/// A results directory beside `dir` whose name is close to its name.
pub(crate) fn similar_results_dir(dir: &Path) -> Option<String> {
    let name = dir.file_name()?.to_string_lossy().into_owned();
    let beside = results_dirs_beside(dir);
    let names: Vec<String> = beside
        .iter()
        .filter_map(|p| Some(p.file_name()?.to_string_lossy().into_owned()))
        .collect();
    let near = crate::suggest::closest(&name, names.iter().map(String::as_str));
    let first = near.first()?;
    beside
        .iter()
        .find(|p| p.file_name().is_some_and(|f| f.to_string_lossy() == *first))
        .map(|p| p.display().to_string())
}

/// Checks that `dir` (named on the command line as `what`, e.g. `--balance-from`)
/// is a results directory: it exists, is a directory and holds records.
pub fn results_dir(dir: &Path, what: &str) -> Result<()> {
    let shown = dir.display();
    if !dir.exists() {
        let hint = similar_results_dir(dir)
            .map(|d| format!(": did you mean {d}?"))
            .unwrap_or_default();
        bail!("{what} {shown} does not exist{hint}");
    }
    if !dir.is_dir() {
        bail!("{what} {shown} is not a directory (a results directory is one)");
    }
    if !holds_records(dir) {
        bail!(
            "{what} {shown} holds no records ({} or {}): not a results directory",
            RUNS,
            WS_RECORDS
        );
    }
    Ok(())
}

/// The results directories `dirs` name, a folder of them (a directory
/// with no records whose subdirectories hold some, as `results/2026-shards`
/// holds its shards) standing for its subdirectories in name order: so
/// `report --check results/*` checks every directory under results/.
/// Anything else is kept as given, for [`results_dir`] to judge. Links are
/// not followed into a folder (a shard's directory is never a link).
pub fn with_folders(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for d in dirs {
        let inner = if d.is_dir() && !d.is_symlink() && !holds_records(d) {
            subdirectories_with_records(d)
        } else {
            Vec::new()
        };
        if inner.is_empty() {
            out.push(d.clone());
        } else {
            out.extend(inner);
        }
    }
    out
}

fn subdirectories_with_records(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut inner: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .filter(|p| holds_records(p))
        .collect();
    inner.sort();
    inner
}

#[cfg(test)]
mod tests {
    use std::fs::OpenOptions;

    use super::*;
    use crate::bench::Bench;

    fn record(variant: &str, bench: Bench, run: u32, wall: f64) -> RunRecord {
        crate::testing::run(variant, bench)
            .nth(run)
            .wall(wall)
            .record()
    }

    #[test]
    fn newest_session_per_cell_by_session_order_then_line() {
        let run = |variant: &str, session: &str, wall: f64| {
            crate::testing::run(variant, Bench::Assoc)
                .session(session)
                .wall(wall)
                .record()
        };
        let stored = Stored {
            // "late" started after "early", though its runs come first
            // in the file (as after a merge).
            sessions: vec![
                crate::testing::session("early"),
                crate::testing::session("late"),
            ],
            runs: crate::testing::shared(vec![
                run("a", "late", 1.0),
                run("a", "late", 2.0),
                run("a", "early", 3.0),
                run("b", "early", 4.0),
                // Sessions sessions.jsonl does not hold count as older
                // than every session it does (issue #59: made-up ones
                // outranked every later measurement)...
                run("b", "gone-1", 5.0),
                run("b", "gone-2", 6.0),
                run("b", "early", 7.0),
                // ... and among themselves the later line wins.
                run("c", "gone-1", 8.0),
                run("c", "gone-2", 9.0),
            ]),
            ..Default::default()
        };
        let walls = |rs: Vec<&Arc<RunRecord>>| rs.iter().map(|r| r.wall_s).collect::<Vec<_>>();
        assert_eq!(walls(stored.newest_runs()), [1.0, 2.0, 4.0, 7.0, 9.0]);
        // Without sessions, the last line of each cell.
        let last = Stored::newest_per_cell(&stored.runs, |r| r.variant.as_str(), |_| None);
        assert_eq!(walls(last), [3.0, 7.0, 9.0]);
    }

    /// A cell `--resume` finished is its kept runs and the runs after them,
    /// over two resumes; a later plain re-run of the cell replaces them all.
    #[test]
    fn a_continued_cell_holds_the_runs_it_continues() {
        let run = |session: &str, k: u32, continues: Option<&str>| {
            let mut r = crate::testing::run("a", Bench::Assoc)
                .session(session)
                .nth(k)
                .wall(k as f64)
                .record();
            r.continues = continues.map(String::from);
            r
        };
        let mut stored = Stored {
            sessions: ["s1", "s2", "s3", "s4"]
                .map(crate::testing::session)
                .to_vec(),
            runs: crate::testing::shared(vec![
                run("s1", 1, None),
                run("s2", 2, Some("s1")),
                run("s3", 3, Some("s2")),
                // Another cell of s1, not continued: untouched.
                crate::testing::run("b", Bench::Assoc)
                    .session("s1")
                    .record(),
            ]),
            ..Default::default()
        };
        let shown = |s: &Stored| {
            s.newest_runs()
                .iter()
                .map(|r| (r.variant.clone(), r.session.clone(), r.attempt))
                .collect::<Vec<_>>()
        };
        let row = |v: &str, s: &str, k: u32| (v.to_string(), s.to_string(), k);
        assert_eq!(
            shown(&stored),
            [
                row("a", "s1", 1),
                row("a", "s2", 2),
                row("a", "s3", 3),
                row("b", "s1", 1)
            ]
        );
        stored.runs.push(run("s4", 1, None).into());
        assert_eq!(shown(&stored), [row("b", "s1", 1), row("a", "s4", 1)]);
    }

    #[test]
    fn appends_and_survives_a_torn_line() {
        let d = tempfile::tempdir().unwrap();
        let s = Store::open(d.path()).unwrap();
        s.append_run(&record("a", Bench::Assoc, 1, 1.0)).unwrap();
        // Simulate a crash in the middle of writing the second record.
        let mut f = OpenOptions::new()
            .append(true)
            .open(d.path().join(RUNS))
            .unwrap();
        f.write_all(b"{\"schema\":1,\"sess").unwrap();
        let loaded = s.load().unwrap();
        assert_eq!(loaded.runs.len(), 1);
        assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
        // The next append starts on a new line and both good records load.
        s.append_run(&record("a", Bench::Assoc, 2, 2.0)).unwrap();
        let loaded = s.load().unwrap();
        assert_eq!(loaded.runs.len(), 2);
        assert_eq!(loaded.runs[1].attempt, 2);
    }

    /// A session of 6,500 variants (issue #41's scale) writes a 1.5 MB
    /// line: it is read back, and `--resume` counts complete the cells
    /// measured in rounds across such sessions. It used to be skipped as
    /// over the 1 MiB bound of a record, and the cells run again.
    /// The scan that spares a long line of short fields the second parse:
    /// never "no" for a line with a field past the bound (escaped quotes
    /// and multi-byte characters included), "no" for many short fields.
    #[test]
    fn only_a_line_that_may_hold_a_long_field_is_parsed_twice() {
        let max = 8;
        assert!(!may_hold_long_string(r#"{"a":"12345678","b":"x"}"#, max));
        assert!(may_hold_long_string(r#"{"a":"123456789"}"#, max));
        // An escaped quote does not end the string.
        assert!(may_hold_long_string(r#"{"a":"1234\"56789"}"#, max));
        // Characters, not bytes: eight of two bytes each are eight.
        assert!(!may_hold_long_string(r#"{"a":"éééééééé"}"#, max));
        assert!(may_hold_long_string(r#"{"a":"ééééééééé"}"#, max));
        let many = format!("[{}]", vec![r#""abcdefg""#; 10_000].join(","));
        assert!(!may_hold_long_string(&many, max));
        // A long key counts as a field.
        assert!(may_hold_long_string(r#"{"abcdefghij":1}"#, max));
    }

    #[test]
    fn a_session_of_thousands_of_variants_is_read_back_for_resume() {
        let d = tempfile::tempdir().unwrap();
        let s = Store::open(d.path()).unwrap();
        let variants: Vec<_> = (0..6500)
            .map(|i| {
                let mut v = crate::testing::variant(&format!("v{i}"), &[Bench::Assoc]);
                v.install_hint = "apt-get install some-toolchain-package".repeat(4);
                v
            })
            .collect();
        let sessions = ["s1", "s2", "s3"].map(|id| SessionRecord {
            variants: variants.clone(),
            ..crate::testing::session(id)
        });
        for (k, session) in sessions.iter().enumerate() {
            s.append_session(session).unwrap();
            let mut r = crate::testing::run("v0", Bench::Assoc)
                .session(&session.session)
                .nth(k as u32 + 1)
                .record();
            r.continues = (k > 0).then(|| sessions[k - 1].session.clone());
            s.append_run(&crate::testing::sealed(r)).unwrap();
        }
        let line = std::fs::read_to_string(d.path().join(SESSIONS)).unwrap();
        assert!(line.lines().all(|l| l.len() > MAX_LINE));
        let loaded = s.load().unwrap();
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        assert_eq!(loaded.sessions.len(), 3);
        assert_eq!(loaded.sessions[2].variants.len(), 6500);
        let key = crate::testing::key();
        let done = crate::resume::complete_cells(&loaded, crate::noise::Runs::Fixed(3), Some(&key));
        assert!(done.contains(&("v0".to_string(), Bench::Assoc)));
        // Past its own bound a session line is still skipped.
        let mut w = OpenOptions::new()
            .append(true)
            .open(d.path().join(SESSIONS))
            .unwrap();
        w.write_all(&vec![b'x'; MAX_SESSION_LINE + 1]).unwrap();
        w.write_all(b"\n").unwrap();
        let loaded = s.load().unwrap();
        assert_eq!(loaded.sessions.len(), 3);
        assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
    }

    #[test]
    fn refuses_newer_records() {
        let d = tempfile::tempdir().unwrap();
        let s = Store::open(d.path()).unwrap();
        let mut r = record("a", Bench::Assoc, 1, 1.0);
        r.schema = SCHEMA + 1;
        s.append_run(&r).unwrap();
        assert!(
            s.load()
                .unwrap_err()
                .to_string()
                .contains("upgrade langbench")
        );
    }

    #[test]
    fn a_missing_results_directory_does_not_exist_and_a_near_one_is_named() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("2026");
        std::fs::create_dir(&real).unwrap();
        std::fs::write(real.join(RUNS), "").unwrap();
        std::fs::create_dir(d.path().join("empty")).unwrap();
        std::fs::write(d.path().join("file"), "").unwrap();
        let err = |p: &Path| results_dir(p, "compare").unwrap_err().to_string();
        let typo = d.path().join("2062");
        assert_eq!(
            err(&typo),
            format!(
                "compare {} does not exist: did you mean {}?",
                typo.display(),
                real.display()
            )
        );
        let far = d.path().join("nothing-like-it");
        assert_eq!(
            err(&far),
            format!("compare {} does not exist", far.display())
        );
        assert!(err(&d.path().join("empty")).contains("holds no records"));
        assert!(err(&d.path().join("file")).contains("is not a directory"));
        assert!(results_dir(&real, "compare").is_ok());
    }
}

/// The memory probe (issue #60) in the stored records: a run record
/// written before it (a line of results/2026, published without
/// `probe`) loads from runs.jsonl and references.jsonl without one and
/// without a warning, beside a record that carries one.
#[cfg(test)]
mod probe_tests {
    use super::*;
    use crate::bench::Bench;
    use crate::mem_probe::MemProbe;

    const OLDER: &str = r#"{"schema":2,"session":"20261204T164247Z-9273-fc6dc9","finished_at":"2026-12-04T16:44:29Z","variant":"zig","language":"Zig","flags":"zig run -O ReleaseFast","version":"0.17.1","bench":"num-comb","size":"2021","n":10000000,"run":1,"wall_s":19.996674479,"user_s":18.733138,"sys_s":1.159694,"max_rss_kb":362044,"tree_cpu_s":19.892832,"tree_max_rss_kb":362044,"build_wall_s":null,"exit":{"kind":"exited","code":0},"status":"ok","detail":null,"identity":{"digest":"24fdca39b0bf53fe","program":"a1976364972bb8098377225837ef59feb4eb5a9b2e9270bf336f44fb73039328","commands":["run: python3 -m ziglang run -O ReleaseFast programs/num-comb/num_comb.zig -- 10000000"],"toolchain":"0.17.1","langbench":"0.1.0 (7de85360469e)"},"cache":"cold","block":1,"host":{"load":1.08,"steal":0.0}}"#;

    #[test]
    fn an_older_record_without_a_probe_loads_beside_one_with() {
        let d = tempfile::tempdir().unwrap();
        let probe = MemProbe {
            mib: 512,
            touch_s: 0.23,
            free_s: 0.02,
            minor_faults: 131_072,
        };
        let newer = RunRecord {
            probe: Some(probe),
            ..crate::testing::run("c", Bench::Assoc).record()
        };
        let line = serde_json::to_string(&newer).unwrap();
        for name in [RUNS, REFERENCES] {
            std::fs::write(d.path().join(name), format!("{OLDER}\n{line}\n")).unwrap();
        }
        let stored = Store::open(d.path()).unwrap().load().unwrap();
        assert!(stored.warnings.is_empty(), "{:?}", stored.warnings);
        for records in [
            stored
                .runs
                .iter()
                .map(|r| (**r).clone())
                .collect::<Vec<_>>(),
            stored.references.clone(),
        ] {
            assert_eq!(records.len(), 2, "{records:?}");
            let older = records.iter().find(|r| r.variant == "zig").unwrap();
            assert_eq!((older.probe, older.wall_s), (None, 19.996674479));
            let newer = records.iter().find(|r| r.variant == "c").unwrap();
            assert_eq!(newer.probe, Some(probe));
        }
    }
}
