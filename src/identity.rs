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
    hex::encode(Sha256::digest(std::fs::read(path).unwrap_or_default()))
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
        let body = match std::fs::read_link(&f) {
            Ok(target) => target.display().to_string().into_bytes(),
            Err(_) => std::fs::read(&f).unwrap_or_default(),
        };
        h.update(rel.display().to_string().as_bytes());
        h.update(format!("\0{}\0", body.len()).as_bytes());
        h.update(&body);
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
