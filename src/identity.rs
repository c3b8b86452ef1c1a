//! What a run ran (issue #22): a digest of the program's source, the
//! resolved commands and the toolchain version, stored with every run, so
//! that `--resume` never mixes runs of two programs in a cell and `compare`
//! tells a faster toolchain from a rewritten program.

use std::path::Path;

use sha2::{Digest, Sha256};

use crate::bench::Bench;
use crate::config::{Variant, Vars};
use crate::record::Identity;

/// The identity of `variant`'s `bench` program at `n` on toolchain
/// `version`; `None` if it has no program for `bench`.
pub(crate) fn of(variant: &Variant, bench: Bench, n: u64, version: &str) -> Option<Identity> {
    of_with(variant, bench, n, version, &mut Digests::default())
}

/// The program digests one command has computed, by path (a file, or a
/// directory for a variant that [uses its directory](Variant::uses_dir)):
/// variants that share a program read and hash it once. For a command
/// that computes many identities at once (`run --resume`'s check of every
/// cell: 19,500 reads of the same few hundred files at 6,500 variants,
/// issue #41); the files do not change under it.
#[derive(Default)]
pub(crate) struct Digests(std::collections::HashMap<(std::path::PathBuf, bool), String>);

/// [`of`], with the program digests `digests` holds already.
pub(crate) fn of_with(
    variant: &Variant,
    bench: Bench,
    n: u64,
    version: &str,
    digests: &mut Digests,
) -> Option<Identity> {
    let src = variant.programs.get(&bench)?;
    let root = variant.root();
    let rel = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    let dir = src.parent().unwrap_or(root);
    let uses_dir = variant.uses_dir();
    let at = if uses_dir { dir } else { src.as_path() };
    let program = digests
        .0
        .entry((at.to_path_buf(), uses_dir))
        .or_insert_with(|| {
            if uses_dir {
                digest_dir(dir)
            } else {
                digest_file(src)
            }
        })
        .clone();
    // The run's scratch directory is a new one each time: written as its
    // placeholder; paths of the checkout relative to it.
    let vars = Vars {
        src: rel(src),
        dir: rel(dir),
        build: "{build}".into(),
        n: bench.is_cpu().then_some(n),
        port: None,
    };
    let commands: Vec<String> = variant
        .prepare
        .iter()
        .map(|t| ("prepare", t))
        .chain(variant.build.iter().map(|t| ("build", t)))
        .chain([("run", &variant.run)])
        .map(|(what, t)| format!("{what}: {}", shell_words::join(t.expand(&vars))))
        .collect();
    let mut h = Sha256::new();
    h.update(program.as_bytes());
    for c in &commands {
        h.update(b"\n");
        h.update(c.as_bytes());
    }
    h.update(b"\ntoolchain ");
    h.update(version.as_bytes());
    Some(Identity {
        digest: hex::encode(h.finalize())[..16].to_string(),
        program,
        commands,
        toolchain: version.to_string(),
        langbench: crate::record::langbench_version(),
    })
}

/// sha256 of a file's contents (of nothing if it cannot be read).
fn digest_file(path: &Path) -> String {
    let mut h = Sha256::new();
    if hash_file(path, &mut h).is_err() {
        h = Sha256::new();
    }
    hex::encode(h.finalize())
}

/// Feeds the regular file at `path` (opened without blocking, so a FIFO
/// is an error, not a hang) to `h` as it is read: langbench's memory holds
/// a buffer of it, never the file (a program of gigabytes is hashed in
/// constant memory). Returns the bytes fed.
fn hash_file(path: &Path, h: &mut Sha256) -> std::io::Result<u64> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    // By hand: sha2 0.11 (digest 0.11) is no `io::Write`.
    let mut f = f;
    let mut buf = vec![0u8; 64 * 1024];
    let mut fed = 0u64;
    loop {
        match std::io::Read::read(&mut f, &mut buf) {
            Ok(0) => return Ok(fed),
            Ok(n) => {
                h.update(&buf[..n]);
                fed += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// sha256 over every file of a program directory, in order of relative
/// path, each as its path, its length and its contents (symlinks as their
/// target, not followed).
fn digest_dir(dir: &Path) -> String {
    let mut files: Vec<_> = crate::scratch::entries_under(dir)
        .iter()
        .map(|e| e.path())
        .collect();
    files.sort();
    let mut h = Sha256::new();
    for f in files {
        let rel = f.strip_prefix(dir).unwrap_or(&f);
        h.update(rel.display().to_string().as_bytes());
        if let Ok(target) = std::fs::read_link(&f) {
            let body = target.display().to_string().into_bytes();
            h.update(format!("\0{}\0", body.len()).as_bytes());
            h.update(&body);
            continue;
        }
        // The body, hashed as it is read, after its length (as when it
        // was read whole: the same digest); one that cannot be read, or
        // whose size changes meanwhile, is hashed as empty.
        let len = std::fs::metadata(&f).map_or(0, |m| m.len());
        let before = h.clone();
        h.update(format!("\0{len}\0").as_bytes());
        if !matches!(hash_file(&f, &mut h), Ok(n) if n == len) {
            h = before;
            h.update(b"\x000\x00");
        }
    }
    hex::encode(h.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Languages;

    fn variant(dir: &Path, body: &str) -> Languages {
        std::fs::create_dir_all(dir.join("programs/num-comb")).unwrap();
        std::fs::write(dir.join("programs/num-comb/num_comb.py"), body).unwrap();
        let toml = "[variant.py]\nlanguage = \"Python\"\nflags = \"python3\"\n\
                    programs = { num-comb = \"programs/num-comb/num_comb.py\" }\n";
        std::fs::write(dir.join("languages.toml"), toml).unwrap();
        Languages::load(&dir.join("languages.toml")).unwrap()
    }

    /// Hashed as it is read, a directory's digest is the one it had when
    /// each file was read whole (records' identities stay comparable).
    #[test]
    fn a_directory_is_hashed_as_it_is_read_with_the_digest_it_had() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("sub")).unwrap();
        std::fs::write(t.path().join("a.py"), "print(1)\n").unwrap();
        std::fs::write(t.path().join("sub/big"), vec![7u8; 200_000]).unwrap();
        std::fs::write(t.path().join("empty"), "").unwrap();
        std::os::unix::fs::symlink("a.py", t.path().join("link")).unwrap();
        // As it was computed before (every body read whole).
        let mut files: Vec<_> = crate::scratch::entries_under(t.path())
            .iter()
            .map(|e| e.path())
            .collect();
        files.sort();
        let mut h = Sha256::new();
        for f in files {
            let rel = f.strip_prefix(t.path()).unwrap();
            let body = match std::fs::read_link(&f) {
                Ok(target) => target.display().to_string().into_bytes(),
                Err(_) => std::fs::read(&f).unwrap_or_default(),
            };
            h.update(rel.display().to_string().as_bytes());
            h.update(format!("\0{}\0", body.len()).as_bytes());
            h.update(&body);
        }
        assert_eq!(digest_dir(t.path()), hex::encode(h.finalize()));
        let whole = hex::encode(Sha256::digest(
            std::fs::read(t.path().join("sub/big")).unwrap(),
        ));
        assert_eq!(digest_file(&t.path().join("sub/big")), whole);
        // A FIFO is no file: hashed as nothing, never waited on.
        rustix::fs::mknodat(
            rustix::fs::CWD,
            t.path().join("fifo"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        assert_eq!(
            digest_file(&t.path().join("fifo")),
            hex::encode(Sha256::digest(b""))
        );
    }

    #[test]
    fn the_digest_follows_the_program_and_the_toolchain_not_the_checkout() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (la, lb) = (
            variant(a.path(), "print(1)\n"),
            variant(b.path(), "print(1)\n"),
        );
        let id = |l: &Languages, v: &str| of(&l.variants[0], Bench::NumComb, 1000, v).unwrap();
        let (x, y) = (id(&la, "3.11.7"), id(&lb, "3.11.7"));
        // Two checkouts of the same program: the same identity.
        assert_eq!(x.digest, y.digest);
        assert_eq!(
            x.commands,
            vec!["run: python3 programs/num-comb/num_comb.py 1000"]
        );
        assert_ne!(
            id(&la, "3.12.0").digest,
            x.digest,
            "another toolchain version"
        );
        let lc = variant(b.path(), "print(2)\n");
        let z = id(&lc, "3.11.7");
        assert_ne!(z.digest, x.digest, "another program");
        assert_ne!(z.program, x.program);
        assert_eq!(z.commands, x.commands);
    }
}
