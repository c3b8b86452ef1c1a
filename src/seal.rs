//! This machine's seal on the run records it writes (issue #59, row 4).
//!
//! `run --resume` skips a cell whose records say it is complete and keeps
//! the finished runs of one cut short. Records are plain lines anyone can
//! append to (a pull request appended 1 ms runs of its new variant to the
//! year's `runs.jsonl`, and `--resume` published 0.001 s); an identity
//! proves nothing either, since anyone can compute or copy one. So every
//! run record `run` stores carries `seal`: an HMAC-SHA256 of the record's
//! canonical content (its JSON without `seal`, as langbench writes it)
//! under a key that only this machine holds, and `--resume` keeps a run
//! only where its seal verifies with that key.
//!
//! The key is 32 random bytes in langbench's state directory
//! ([`crate::state::root`], `seal.key`): created on first use, mode 0600,
//! owned by whoever runs langbench, never in a checkout or a results
//! directory, never published, and masked in every sandbox with the rest
//! of the state directory (`cli`'s `containment.masks`), so no measured
//! command reads it. Runs measured elsewhere (shards merged from other
//! machines or containers), imported editions and runs sealed with a key
//! since lost do not verify: `--resume` measures them again, which is
//! slower and never wrong.

use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use hmac::{KeyInit, Mac};

use crate::record::RunRecord;

/// The key's file in the state directory.
pub(crate) const KEY_FILE: &str = "seal.key";

/// The key's length in bytes (hex in its file).
const KEY_LEN: usize = 32;

/// What every seal covers first: names the format, so that a seal of
/// another purpose made with the same key can never pass for one.
const CONTEXT: &[u8] = b"langbench run record seal 1\n";

type Hmac = hmac::Hmac<sha2::Sha256>;

/// This machine's key (its bytes never printed).
#[derive(Clone)]
pub(crate) struct Key {
    bytes: [u8; KEY_LEN],
    path: PathBuf,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Key({})", self.path.display())
    }
}

impl Key {
    /// This machine's key, created in the state directory on first use.
    pub(crate) fn mine() -> Result<Key> {
        let dir = crate::state::root();
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create the state directory {}", dir.display()))?;
        Key::in_dir(&dir, true).map(|k| k.expect("created"))
    }

    /// This machine's key if it has one; nothing is created (`run --plan`
    /// writes nothing).
    pub(crate) fn existing() -> Result<Option<Key>> {
        Key::in_dir(&crate::state::root(), false)
    }

    /// The key of the state directory `dir`: read, or with `create` made
    /// when there is none. Two langbench processes starting at once make
    /// one key: each writes a complete file under a name of its own and
    /// links it to [`KEY_FILE`] only if that does not exist yet, then
    /// reads whichever is there.
    pub(crate) fn in_dir(dir: &Path, create: bool) -> Result<Option<Key>> {
        let path = dir.join(KEY_FILE);
        match read(&path) {
            Ok(k) => return Ok(Some(k)),
            Err(e) if create && not_found(&e) => {}
            Err(e) if not_found(&e) => return Ok(None),
            Err(e) => return Err(e),
        }
        let mut bytes = [0u8; KEY_LEN];
        getrandom::fill(&mut bytes)
            .map_err(|e| anyhow::anyhow!("no randomness for a seal key: {e}"))?;
        let cannot = || format!("cannot create the seal key {}", path.display());
        // tempfile makes the file 0600, O_EXCL, under a random name.
        let mut tmp = tempfile::Builder::new()
            .prefix(".seal.key.")
            .permissions(std::fs::Permissions::from_mode(0o600))
            .tempfile_in(dir)
            .with_context(cannot)?;
        tmp.write_all(format!("{}\n", hex::encode(bytes)).as_bytes())
            .and_then(|()| tmp.as_file().sync_all())
            .with_context(cannot)?;
        match tmp.persist_noclobber(&path) {
            Ok(_) => {}
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e.error).with_context(cannot),
        }
        read(&path).map(Some)
    }

    /// A key of these bytes, kept nowhere (unit tests).
    #[cfg(test)]
    pub(crate) fn fixed(bytes: [u8; KEY_LEN]) -> Key {
        Key {
            bytes,
            path: PathBuf::from("(fixed)"),
        }
    }

    /// Where the key is kept.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The MAC of `r` as it is stored, `seal` aside.
    fn mac(&self, r: &RunRecord) -> Hmac {
        let mut mac = <Hmac as KeyInit>::new_from_slice(&self.bytes).expect("HMAC takes any key");
        mac.update(CONTEXT);
        // The record as it is written, without its seal: the struct's
        // fields in their declared order, absent optional ones left out,
        // floats as serde_json writes them (which reads them back to the
        // same bits: the `float_roundtrip` feature). A record read back
        // therefore serializes to the bytes that were sealed.
        let unsealed = RunRecord {
            seal: None,
            ..r.clone()
        };
        mac.update(&serde_json::to_vec(&unsealed).unwrap_or_default());
        mac
    }

    /// The seal of `r` (hex).
    pub(crate) fn seal(&self, r: &RunRecord) -> String {
        hex::encode(self.mac(r).finalize().into_bytes())
    }

    /// `r` with its seal set.
    pub(crate) fn sealed(&self, mut r: RunRecord) -> RunRecord {
        r.seal = Some(self.seal(&r));
        r
    }

    /// Whether `r`'s seal is this key's for its content (compared in
    /// constant time).
    pub(crate) fn verifies(&self, r: &RunRecord) -> bool {
        let Some(Ok(seal)) = r.seal.as_deref().map(hex::decode) else {
            return false;
        };
        self.mac(r).verify_slice(&seal).is_ok()
    }
}

fn not_found(e: &anyhow::Error) -> bool {
    e.downcast_ref::<std::io::Error>()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::NotFound)
}

/// Reads the key file: a regular file (never through a link) of the user
/// langbench runs as, that nobody else may read or write, holding 64 hex
/// digits. Anything else is refused, saying what to do.
fn read(path: &Path) -> Result<Key> {
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(path)
        .with_context(|| format!("cannot open the seal key {}", path.display()))?;
    let meta = f.metadata()?;
    let remove =
        "remove it to make a new one (runs sealed with it are then measured again by --resume)";
    if !meta.file_type().is_file() {
        bail!("the seal key {} is not a file: {remove}", path.display());
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me || meta.mode() & 0o077 != 0 {
        bail!(
            "the seal key {} is owned by uid {} with mode {:o}: it must be this user's (uid {me}) \
             and no one else's to read or write (chmod 600), or {remove}",
            path.display(),
            meta.uid(),
            meta.mode() & 0o7777
        );
    }
    let mut text = String::new();
    (&mut f)
        .take(4 * KEY_LEN as u64)
        .read_to_string(&mut text)
        .with_context(|| format!("cannot read the seal key {}", path.display()))?;
    let bytes = hex::decode(text.trim())
        .ok()
        .and_then(|b| <[u8; KEY_LEN]>::try_from(b).ok());
    let Some(bytes) = bytes else {
        bail!(
            "the seal key {} does not hold {} hex digits: {remove}",
            path.display(),
            2 * KEY_LEN
        );
    };
    Ok(Key {
        bytes,
        path: path.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::Bench;

    fn record() -> RunRecord {
        let mut r = crate::testing::run("a", Bench::Assoc)
            .nth(1)
            .wall(0.123_456_789_012_345_67)
            .record();
        r.identity = Some(crate::record::Identity {
            digest: "d".into(),
            program: "p".into(),
            commands: vec!["run: sh a.sh 1000".into()],
            toolchain: "1.0".into(),
            langbench: "0.1.0".into(),
        });
        r
    }

    /// Created once, 0600, read back the same by a second process's
    /// look (and found without being created by `existing`'s).
    #[test]
    fn a_key_is_made_once_private_and_read_back() {
        let d = tempfile::tempdir().unwrap();
        assert!(Key::in_dir(d.path(), false).unwrap().is_none());
        let k = Key::in_dir(d.path(), true).unwrap().unwrap();
        let meta = std::fs::metadata(d.path().join(KEY_FILE)).unwrap();
        assert_eq!(meta.mode() & 0o777, 0o600);
        let again = Key::in_dir(d.path(), true).unwrap().unwrap();
        assert_eq!(k.bytes, again.bytes);
        let found = Key::in_dir(d.path(), false).unwrap().unwrap();
        assert_eq!(k.bytes, found.bytes);
        // Nothing left behind but the key.
        let names: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [KEY_FILE]);
        assert!(!format!("{k:?}").contains(&hex::encode(k.bytes)));
    }

    /// A key others may read, a link, or a file of something else is
    /// refused with what to do.
    #[test]
    fn a_readable_linked_or_malformed_key_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join(KEY_FILE);
        Key::in_dir(d.path(), true).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let e = Key::in_dir(d.path(), true).unwrap_err().to_string();
        assert!(e.contains("chmod 600"), "{e}");
        std::fs::remove_file(&path).unwrap();
        std::fs::write(d.path().join("elsewhere"), "00".repeat(KEY_LEN)).unwrap();
        std::os::unix::fs::symlink(d.path().join("elsewhere"), &path).unwrap();
        assert!(Key::in_dir(d.path(), true).is_err());
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, "not hex").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        let e = Key::in_dir(d.path(), false).unwrap_err().to_string();
        assert!(
            e.contains("64 hex digits") && e.contains("remove it"),
            "{e}"
        );
    }

    /// A sealed record verifies after a trip through its JSON line; no
    /// seal, a changed field, a seal copied from another record, and
    /// another machine's key do not.
    #[test]
    fn a_seal_verifies_its_record_and_nothing_else() {
        let d = tempfile::tempdir().unwrap();
        let k = Key::in_dir(d.path(), true).unwrap().unwrap();
        let sealed = k.sealed(record());
        let line = serde_json::to_string(&sealed).unwrap();
        let back: RunRecord = serde_json::from_str(&line).unwrap();
        assert!(k.verifies(&back));
        assert!(!k.verifies(&record()), "no seal");
        let faster = RunRecord {
            wall_s: 0.001,
            ..back.clone()
        };
        assert!(!k.verifies(&faster), "a changed figure");
        let mut other = record();
        other.attempt = 2;
        other.seal = back.seal.clone();
        assert!(!k.verifies(&other), "a seal copied from another record");
        let mut junk = back.clone();
        junk.seal = Some("zz".into());
        assert!(!k.verifies(&junk));
        let elsewhere = tempfile::tempdir().unwrap();
        let theirs = Key::in_dir(elsewhere.path(), true).unwrap().unwrap();
        assert!(!theirs.verifies(&back), "another machine's key");
    }
}
