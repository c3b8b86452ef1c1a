//! Remembered answers found where they are kept (issue #59, row 6): after
//! a run printed the right answer, the places the variant's later runs
//! can read and an earlier one (or its untimed `prepare`) could write are
//! searched for that answer: its declared toolchain caches and its
//! prepared copy. A run's own build directory and HOME are fresh and
//! thrown away; nothing else outlives a run.
//!
//! What is searched for is langbench's own expected output at N
//! ([`crate::verify::expected`]), never the program's stdout: the numbers
//! of each line, in order, as text (separated as a person or a JSON or
//! CSV writer would: spaces, line breaks, `,` `;` `:` `|`, quotes,
//! brackets, an escaped `\n`), and for assoc, whose six numbers are
//! distinctive, also as consecutive little-endian 32- and 64-bit integers
//! and 64-bit floats. A number is matched whole (no digit, letter or `.`
//! on either side: `0 1 1000` is not found in `10 1 10000`). An honest
//! toolchain cache holds compiled code and metadata, not the benchmark's
//! printed answer: the real crystal, go and gcc variants' caches and
//! copies hold none (the report of the change that added this). What an
//! encoded answer (compressed, hashed, shifted) escapes, `check`'s time
//! scaling catches (`src/check.rs`).
//!
//! The places are the sandbox's to write, so they are hostile here: they
//! are walked without following a link (each directory opened with
//! `O_NOFOLLOW | O_DIRECTORY` from its parent's descriptor, from a place
//! opened without a link anywhere in its path), only regular files are
//! read (opened `O_NOFOLLOW | O_NONBLOCK` and checked with `fstat`: a FIFO
//! or a device never blocks or floods the reader), iteratively (no
//! recursion a deep tree could overflow), and everything is bounded by a
//! [`Budget`]: the entries looked at, the depth, the bytes read, one
//! chunk of memory at a time. Self-contained on purpose (rustix calls
//! only), so that its bounds are its own whatever the other walks do.

use std::ffi::OsString;
use std::io::Read;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};

use crate::bench::Bench;

/// How much one search looks at, at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Budget {
    /// Directory entries looked at, over every place.
    pub entries: usize,
    /// Directory levels below a place.
    pub depth: usize,
    /// Bytes read, over every file (smallest files first).
    pub bytes: u64,
}

impl Budget {
    /// After every run: an answer file of a naive cache is among the
    /// first read (smallest first), and 64 MiB of an honest compiler's
    /// cache is read in well under a second from the page cache.
    pub(crate) const RUN: Budget = Budget {
        entries: 20_000,
        depth: 32,
        bytes: 64 << 20,
    };

    /// Once a cell's later run beat its first by more than a toolchain's
    /// cache explains ([`crate::noise::beats_cold`]): the hint that makes
    /// the search go further, once per cell.
    pub(crate) const DEEP: Budget = Budget {
        entries: 200_000,
        depth: 64,
        bytes: 1 << 30,
    };
}

/// What is searched for: one benchmark's answer at one N.
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    regex: regex::bytes::Regex,
}

/// What may separate two numbers of a kept answer: what a person, a JSON,
/// CSV or repr writer puts between them (never a letter, a digit, `.`,
/// `(`, `)`, `=`: `argv[1]) : 10000000` in a program's source is no answer).
const SEP: &str = r#"(?:[ \t\r\n,;:|"'\[\]]|\\[nrt]){1,6}"#;

impl Answer {
    /// `bench`'s answer at `n` (`None` for a benchmark without one).
    pub(crate) fn of(bench: Bench, n: u64) -> Option<Answer> {
        let expected = crate::verify::expected(bench, n)?;
        Answer::from_text(&expected, bench == Bench::Assoc)
    }

    /// The answer printed as `expected`; with `binary`, also its lines'
    /// numbers as binary (see the module's comment).
    fn from_text(expected: &str, binary: bool) -> Option<Answer> {
        let (mut lines, mut forms) = (Vec::new(), Vec::new());
        for line in expected.lines() {
            let numbers: Vec<u64> = line
                .split_whitespace()
                .map(str::parse)
                .collect::<Result<_, _>>()
                .ok()?;
            if numbers.is_empty() {
                continue;
            }
            let text: Vec<String> = numbers.iter().map(u64::to_string).collect();
            lines.push(text.join(SEP));
            if binary {
                forms.extend(binary_forms(&numbers));
            }
        }
        if lines.is_empty() {
            return None;
        }
        // Whole numbers: neither a digit, a letter nor `.` on either side
        // (the regex crate has no look-around: the boundary is matched).
        let edge = "[^0-9A-Za-z_.]";
        forms.insert(
            0,
            format!(r"(?:\A|{edge})(?:{})(?:{edge}|\z)", lines.join("|")),
        );
        let regex = regex::bytes::RegexBuilder::new(&forms.join("|"))
            .unicode(false)
            .build()
            .ok()?;
        Some(Answer { regex })
    }

    /// The end of the first match in `buf` starting at or after `from`
    /// (the bytes before `from` are context: `\A` matches only at 0).
    fn find_in(&self, buf: &[u8], from: usize) -> Option<usize> {
        self.regex.find_at(buf, from).map(|m| m.end())
    }
}

/// `numbers` as consecutive little-endian u32 (when they fit), u64 and
/// f64, each a regex of escaped bytes.
fn binary_forms(numbers: &[u64]) -> Vec<String> {
    let escaped = |bytes: Vec<u8>| bytes.iter().map(|b| format!(r"\x{b:02x}")).collect();
    let mut forms = Vec::new();
    if numbers.iter().all(|&n| u32::try_from(n).is_ok()) {
        forms.push(escaped(
            numbers
                .iter()
                .flat_map(|&n| (n as u32).to_le_bytes())
                .collect(),
        ));
    }
    forms.push(escaped(
        numbers.iter().flat_map(|&n| n.to_le_bytes()).collect(),
    ));
    forms.push(escaped(
        numbers
            .iter()
            .flat_map(|&n| (n as f64).to_le_bytes())
            .collect(),
    ));
    forms
}

/// A place searched: a directory on the host, and how it is named.
#[derive(Debug, Clone)]
pub(crate) struct Place {
    pub host: PathBuf,
    /// How a file in it is shown: its path under the run's HOME (a cache,
    /// `~/.cache/foo`) or nothing (the prepared copy).
    pub shown: Option<PathBuf>,
    /// What it is, for a note: `its declared caches`.
    pub what: &'static str,
}

/// Where an answer was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// The file, as a reader sees it (`~/.cache/ans/3000`,
    /// `answers.json`), inert and bounded: its name is the program's.
    pub file: String,
    /// The place it is in: `its declared caches`, `its prepared copy`.
    pub what: &'static str,
}

impl std::fmt::Display for Found {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` in {}", self.file, self.what)
    }
}

/// What one search did.
#[derive(Debug, Default)]
pub(crate) struct Searched {
    pub found: Option<Found>,
    /// The budget ran out before every file was read.
    pub truncated: bool,
}

/// Characters of a found file's path shown, at most.
const SHOWN_CHARS: usize = 160;
/// Bytes read at a time.
const CHUNK: usize = 1 << 20;
/// Bytes kept from one chunk before the next: more than any match is
/// long (six numbers of 20 digits with their separators, or 24 bytes).
const TAIL: usize = 512;

/// Searches `places` for `answer`, within `budget`.
pub(crate) fn search(places: &[Place], answer: &Answer, budget: Budget) -> Searched {
    let mut out = Searched::default();
    let mut entries = 0;
    let mut bytes = 0;
    for place in places {
        // No place (no prepare ran yet, a cache never made), or a path
        // with a link in it: nothing of the variant's to read there.
        let Ok(root) = open_absolute(&place.host) else {
            continue;
        };
        let walk = walk(root.as_fd(), budget, &mut entries);
        out.truncated |= walk.truncated;
        match read(root.as_fd(), &walk, answer, budget.bytes, &mut bytes) {
            Reading::Found(rel) => {
                let shown = place
                    .shown
                    .as_ref()
                    .map_or(rel.clone(), |s| Path::new("~").join(s).join(&rel));
                out.found = Some(Found {
                    file: langbench_document::inert::clip(
                        &langbench_document::inert::text(&shown.to_string_lossy()),
                        SHOWN_CHARS,
                    ),
                    what: place.what,
                });
                return out;
            }
            Reading::Budget => {
                out.truncated = true;
                return out;
            }
            Reading::Done => {}
        }
    }
    out
}

/// The regular files under a place: their directories (relative) and
/// (size, directory, name) of each.
#[derive(Debug, Default)]
struct Walk {
    dirs: Vec<PathBuf>,
    files: Vec<(u64, usize, OsString)>,
    truncated: bool,
}

/// Walks the tree under `root` breadth first, counting entries against
/// `budget.entries` (`entries` is the count so far, over every place).
fn walk(root: BorrowedFd<'_>, budget: Budget, entries: &mut usize) -> Walk {
    let mut w = Walk {
        dirs: vec![PathBuf::new()],
        ..Walk::default()
    };
    let mut next = 0;
    while next < w.dirs.len() {
        let rel = w.dirs[next].clone();
        let index = next;
        next += 1;
        let Ok(dir) = open_beneath(root, &rel) else {
            continue;
        };
        let Ok(readable) = rustix::fs::openat(
            &dir,
            ".",
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        ) else {
            continue;
        };
        let Ok(list) = rustix::fs::Dir::new(readable) else {
            continue;
        };
        for e in list {
            let Ok(e) = e else { break };
            let name = e.file_name();
            if matches!(name.to_bytes(), b"." | b"..") {
                continue;
            }
            *entries += 1;
            if *entries > budget.entries {
                w.truncated = true;
                return w;
            }
            let Ok(st) = rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) else {
                continue;
            };
            let name = OsString::from(std::ffi::OsStr::from_bytes(name.to_bytes()));
            match FileType::from_raw_mode(st.st_mode) {
                FileType::Directory if rel.components().count() < budget.depth => {
                    w.dirs.push(rel.join(&name));
                }
                FileType::Directory => w.truncated = true,
                FileType::RegularFile => w.files.push((st.st_size as u64, index, name)),
                // Links, FIFOs, sockets, devices: never opened.
                _ => {}
            }
        }
    }
    w
}

/// How reading a place's files ended.
enum Reading {
    /// The answer, in this file (relative to the place).
    Found(PathBuf),
    /// The bytes ran out first.
    Budget,
    Done,
}

/// Reads the files of `walk`, smallest first (by power of two, then
/// directory by directory), until the answer is found or `limit` bytes
/// are read (`read` is the count so far, over every place).
fn read(root: BorrowedFd<'_>, walk: &Walk, answer: &Answer, limit: u64, read: &mut u64) -> Reading {
    let mut order: Vec<&(u64, usize, OsString)> = walk.files.iter().collect();
    order.sort_by_key(|(size, dir, _)| (size.checked_ilog2().unwrap_or(0), *dir, *size));
    let mut open: Option<(usize, OwnedFd)> = None;
    let mut buf = Vec::new();
    for (_, dir, name) in order {
        if open.as_ref().is_none_or(|(d, _)| d != dir) {
            open = open_beneath(root, &walk.dirs[*dir])
                .ok()
                .map(|fd| (*dir, fd));
        }
        let Some((_, dir_fd)) = &open else { continue };
        let Ok(file) = rustix::fs::openat(
            dir_fd,
            name.as_os_str(),
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
            Mode::empty(),
        ) else {
            continue;
        };
        match rustix::fs::fstat(&file) {
            Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::RegularFile => {}
            _ => continue,
        }
        match contains(std::fs::File::from(file), answer, limit, read, &mut buf) {
            Some(true) => return Reading::Found(walk.dirs[*dir].join(name)),
            Some(false) => {}
            None => return Reading::Budget,
        }
    }
    Reading::Done
}

/// Whether `file` holds the answer, read a chunk at a time; `None` when
/// `limit` bytes (counted in `read`) ran out before its end.
fn contains(
    mut file: std::fs::File,
    answer: &Answer,
    limit: u64,
    read: &mut u64,
    buf: &mut Vec<u8>,
) -> Option<bool> {
    buf.clear();
    let mut from = 0;
    loop {
        let left = limit.saturating_sub(*read);
        if left == 0 {
            return None;
        }
        let keep = buf.len();
        let want = (CHUNK as u64).min(left) as usize;
        buf.resize(keep + want, 0);
        let got = match file.read(&mut buf[keep..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                buf.truncate(keep);
                continue;
            }
            Err(_) => return Some(false),
        };
        buf.truncate(keep + got);
        *read += got as u64;
        let eof = got == 0;
        // A match that ends where the bytes read so far end may go on in
        // the next chunk (`1000` of `10000`): judged once that is read.
        if let Some(end) = answer.find_in(buf, from)
            && (eof || end < buf.len())
        {
            return Some(true);
        }
        if eof {
            return Some(false);
        }
        // Keep the tail (a match across the chunks' seam is found in the
        // next buffer); its first byte is context, never searched again.
        let cut = buf.len().saturating_sub(TAIL);
        buf.drain(..cut);
        from = usize::from(cut > 0);
    }
}

/// Opens the absolute, canonical `path` without following a link
/// anywhere in it: an `O_PATH` descriptor.
fn open_absolute(path: &Path) -> std::io::Result<OwnedFd> {
    let rel = path
        .strip_prefix("/")
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    let root = rustix::fs::open(
        "/",
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    open_beneath(root.as_fd(), rel)
}

/// Opens the directory `rel` beneath `dir`, one component at a time,
/// following no link (`..` refused): an `O_PATH` descriptor.
fn open_beneath(dir: BorrowedFd<'_>, rel: &Path) -> std::io::Result<OwnedFd> {
    let mut cur = rustix::io::fcntl_dupfd_cloexec(dir, 0)?;
    for c in rel.components() {
        let Component::Normal(name) = c else {
            if c == Component::CurDir {
                continue;
            }
            return Err(std::io::ErrorKind::InvalidInput.into());
        };
        cur = rustix::fs::openat(
            &cur,
            name,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        if FileType::from_raw_mode(rustix::fs::fstat(&cur)?.st_mode) != FileType::Directory {
            return Err(std::io::ErrorKind::InvalidInput.into());
        }
    }
    Ok(cur)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(text: &str, binary: bool) -> Answer {
        Answer::from_text(text, binary).unwrap()
    }

    fn found_in(a: &Answer, bytes: &[u8]) -> bool {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("f"), bytes).unwrap();
        let place = Place {
            host: d.path().canonicalize().unwrap(),
            shown: None,
            what: "a test",
        };
        search(&[place], a, Budget::RUN).found.is_some()
    }

    /// The answer as it is printed, as JSON, as a Python repr or escaped
    /// is found; the same numbers inside longer ones, reordered, or
    /// around code's punctuation are not.
    #[test]
    fn an_answer_is_found_in_the_forms_a_program_keeps_it_and_nowhere_else() {
        let a = answer("0 1 1000\n", false);
        for kept in [
            &b"0 1 1000\n"[..],
            b"{\"1000\": \"0 1 1000\\n\"}",
            b"[0, 1, 1000]",
            b"(0,1,1000)",
            b"x\x000 1 1000\x00",
            b"0\t1\t1000",
        ] {
            assert!(found_in(&a, kept), "{:?}", String::from_utf8_lossy(kept));
        }
        for honest in [
            &b"10 1 1000"[..],
            b"0 1 10000",
            b"0 1 1000.5",
            b"1 0 1000",
            b"argv[0]; atoi(argv[1]) : 1000",
            b"a0 1 1000",
            b"0 + 1 = 1000",
            b"",
        ] {
            assert!(
                !found_in(&a, honest),
                "{:?}",
                String::from_utf8_lossy(honest)
            );
        }
    }

    /// assoc's lines are also found as binary numbers; each line alone is
    /// enough.
    #[test]
    fn assoc_answers_are_found_as_binary_numbers_too() {
        let a = answer("554 554 251\n5441 4814 1641\n", true);
        assert!(found_in(&a, b"554,554,251"));
        assert!(found_in(&a, b"::5441 4814 1641"));
        let as_u64: Vec<u8> = [554u64, 554, 251]
            .iter()
            .flat_map(|n| n.to_le_bytes())
            .collect();
        assert!(found_in(&a, &as_u64));
        let as_f64: Vec<u8> = [5441.0f64, 4814.0, 1641.0]
            .iter()
            .flat_map(|n| n.to_le_bytes())
            .collect();
        assert!(found_in(&a, &[&b"\x01"[..], &as_f64].concat()));
        let as_u32: Vec<u8> = [554u32, 554, 251]
            .iter()
            .flat_map(|n| n.to_le_bytes())
            .collect();
        assert!(found_in(&a, &as_u32));
        assert!(!found_in(&a, b"554 554 252"));
    }

    /// A match across the seam of two chunks is found; one cut by the
    /// seam into a shorter number is not taken for the answer.
    #[test]
    fn chunks_neither_hide_nor_invent_a_match() {
        let a = answer("0 1 1000\n", false);
        let mut across = vec![b' '; CHUNK - 4];
        across.extend_from_slice(b"0 1 1000 ");
        assert!(found_in(&a, &across));
        let mut cut = vec![b' '; CHUNK - 8];
        cut.extend_from_slice(b"0 1 10000 ");
        assert_eq!(cut[CHUNK - 1], b'0');
        assert!(!found_in(&a, &cut));
        // At the very end of a file.
        let mut end = vec![b'x'; 3 * CHUNK];
        end.extend_from_slice(b"[0, 1, 1000]");
        assert!(found_in(&a, &end));
    }

    /// The places are hostile: a link (to a file holding the answer, or
    /// to a directory) is not followed, a FIFO is not opened (the search
    /// would block), a place that is a link is not walked, and every
    /// bound holds: entries, depth and bytes, each saying it ran out.
    #[test]
    fn a_hostile_place_is_walked_without_links_and_within_its_budget() {
        let a = answer("0 1 1000\n", false);
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("ans"), "0 1 1000\n").unwrap();
        let d = tempfile::tempdir().unwrap();
        let host = d.path().canonicalize().unwrap();
        std::os::unix::fs::symlink(outside.path().join("ans"), host.join("file-link")).unwrap();
        std::os::unix::fs::symlink(outside.path(), host.join("dir-link")).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            host.join("fifo"),
            FileType::Fifo,
            Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        let place = |host: PathBuf| Place {
            host,
            shown: Some(PathBuf::from(".cache/x")),
            what: "its declared caches",
        };
        let s = search(&[place(host.clone())], &a, Budget::RUN);
        assert!(s.found.is_none() && !s.truncated, "{s:?}");
        let linked = tempfile::tempdir().unwrap();
        let link = linked.path().canonicalize().unwrap().join("place");
        std::os::unix::fs::symlink(outside.path(), &link).unwrap();
        assert!(search(&[place(link)], &a, Budget::RUN).found.is_none());

        // Found, and named as the program's HOME shows it, inert.
        let sub = host.join("a\x1b[31m/b");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join("1000"), "0 1 1000\n").unwrap();
        let s = search(&[place(host.clone())], &a, Budget::RUN);
        assert_eq!(
            s.found.map(|f| f.to_string()).as_deref(),
            Some("`~/.cache/x/a/b/1000` in its declared caches")
        );

        // Depth: the file is two levels down.
        let shallow = Budget {
            depth: 1,
            ..Budget::RUN
        };
        let s = search(&[place(host.clone())], &a, shallow);
        assert!(s.found.is_none() && s.truncated, "{s:?}");
        // Entries.
        let few = Budget {
            entries: 3,
            ..Budget::RUN
        };
        let s = search(&[place(host.clone())], &a, few);
        assert!(s.found.is_none() && s.truncated, "{s:?}");
        // Bytes: a large file read first is cut at the budget.
        let big = tempfile::tempdir().unwrap();
        let big_host = big.path().canonicalize().unwrap();
        std::fs::write(big_host.join("big"), vec![b'x'; 3 * CHUNK]).unwrap();
        std::fs::write(big_host.join("z"), vec![b'y'; 4 * CHUNK]).unwrap();
        let small = Budget {
            bytes: 2 * CHUNK as u64,
            ..Budget::RUN
        };
        let s = search(&[place(big_host)], &a, small);
        assert!(s.found.is_none() && s.truncated, "{s:?}");
    }

    /// A deep tree: walked iteratively (no recursion), to the depth
    /// bound, which it says it reached.
    #[test]
    fn a_deep_tree_is_walked_iteratively() {
        let a = answer("0 1 1000\n", false);
        let d = tempfile::tempdir().unwrap();
        let host = d.path().canonicalize().unwrap();
        let top = rustix::fs::open(
            &host,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .unwrap();
        let mut cur = top;
        for _ in 0..200 {
            rustix::fs::mkdirat(&cur, "d", Mode::from_raw_mode(0o755)).unwrap();
            cur = rustix::fs::openat(
                &cur,
                "d",
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .unwrap();
        }
        std::fs::write(host.join(["d"; 200].join("/")).join("ans"), "0 1 1000\n").unwrap();
        let place = Place {
            host,
            shown: None,
            what: "its prepared copy",
        };
        let s = search(std::slice::from_ref(&place), &a, Budget::DEEP);
        assert!(s.found.is_none() && s.truncated, "{s:?}");
        let deeper = Budget {
            depth: 300,
            ..Budget::DEEP
        };
        assert!(search(&[place], &a, deeper).found.is_some());
    }
}
