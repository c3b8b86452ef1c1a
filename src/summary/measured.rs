//! What was measured, one click from each row: per variant and benchmark
//! the commands that ran (placeholders expanded), the toolchain version,
//! the program identity digest of the runs, CPU seconds beside wall
//! seconds, the program's source and the variant's `note`.
//!
//! Where each comes from, and what the report says about it:
//! - commands, toolchain and identity: the records (`identity` of the shown
//!   run) when they carry them; otherwise the commands are the languages
//!   file's templates expanded for that program, said to be so, and the
//!   identity is "unknown" (never guessed);
//! - program sources and notes are not stored with the records: they come
//!   from the languages file the report is given (`--languages`). A source
//!   is called the one that ran only when its sha256 equals the runs'
//!   recorded program digest; without a digest it is "the file in the
//!   checkout now, not verified", and when the digests differ the report
//!   says it changed since the runs;
//! - a published edition's rows show none of this: the editions published
//!   figures, not their programs or commands.
//!
//! Contributed content is hostile: a languages file may point a program at
//! any path (`programs = { assoc = "/root/.ssh/id_rsa" }`, `../../x`, or a
//! symlink out of the checkout), and a published report must never carry
//! a file from outside it. A source is read only when it resolves
//! (symlinks followed) to a regular file inside the languages file's
//! directory, of at most [`MAX_SOURCE`] bytes, and is UTF-8 text; anything
//! else is named with the reason it is not shown. The HTML renderer escapes
//! every text (maud), so a source or note cannot inject markup.

use std::path::Path;

use sha2::{Digest, Sha256};

use super::{Row, Summary};
use crate::canon::Canon;
use crate::config::{Languages, Variant, Vars};
use crate::record::Origin;
use langbench_document::{Measured, MeasuredBench, SourceFile};

/// The largest program source the report embeds.
pub(crate) const MAX_SOURCE: u64 = 256 * 1024;

/// The "what was measured" sections of a summary's rows. `langs`: the
/// languages file, or why there is none.
pub(crate) fn sections(s: &Summary, langs: Result<&Languages, &str>) -> Vec<Measured> {
    if s.published {
        return Vec::new();
    }
    // Each row's variant by id, not a scan of the file per row (issue #41).
    let by_id: std::collections::HashMap<&str, &Variant> = langs
        .ok()
        .map(|l| {
            l.variants
                .iter()
                .rev()
                .map(|v| (v.id.as_str(), v))
                .collect()
        })
        .unwrap_or_default();
    let canon = Canon::default();
    s.rows
        .iter()
        .filter(|r| r.started && r.installed())
        .map(|r| {
            let variant = langs
                .ok()
                .and_then(|l| by_id.get(r.variant.as_str()).map(|v| (l, *v)));
            section(r, variant, langs.err(), &canon)
        })
        .collect()
}

fn section(
    row: &Row,
    variant: Option<(&Languages, &Variant)>,
    no_langs: Option<&str>,
    canon: &Canon,
) -> Measured {
    let source_of = match (variant, no_langs) {
        (Some((l, v)), _) => format!(
            "commands and digests from the records where they carry them; sources and the \
             note from the languages file {} (its entry at line {})",
            l.path.file_name().map_or_else(
                || l.path.display().to_string(),
                |f| f.to_string_lossy().into()
            ),
            v.line
        ),
        (None, Some(why)) => format!(
            "the records only: no languages file ({why}), so no sources, notes or templates"
        ),
        (None, None) => {
            "the records only: the languages file has no variant of this id any more".into()
        }
    };
    let variant = variant.map(|(_, v)| v);
    let benches = row
        .cells
        .iter()
        .filter(|(_, c)| c.best.is_some() && c.status != crate::record::Status::NotInstalled)
        .map(|(b, c)| {
            let best = c.best.as_ref().expect("filtered");
            let identity = best.identity.as_ref();
            let published = best.origin == Origin::Published;
            let program = variant.and_then(|v| v.programs.get(b).map(|p| (v, p)));
            let (commands, commands_from) = match (identity, program) {
                (Some(i), _) => (i.commands.clone(), "recorded with the runs".to_string()),
                (None, Some((v, p))) => (
                    expanded(v, p, best.n),
                    "the languages file's templates, expanded (these runs recorded no \
                     commands: the file may have changed since)"
                        .to_string(),
                ),
                (None, None) if published => (
                    Vec::new(),
                    "published figures: the edition published no commands".into(),
                ),
                (None, None) => (Vec::new(), "not recorded".into()),
            };
            let (files, verified) = match program {
                Some((v, p)) => {
                    let (file, unreadable) = read_source(canon, v.root(), p);
                    let verified =
                        verify(v, &file, unreadable, identity.map(|i| i.program.as_str()));
                    (vec![file], verified)
                }
                None => (
                    Vec::new(),
                    "no source: not in the languages file".to_string(),
                ),
            };
            MeasuredBench {
                bench: b.to_string(),
                commands,
                commands_from,
                identity: identity.map_or_else(|| "unknown".to_string(), |i| i.digest.clone()),
                toolchain: identity.map_or_else(|| best.version.clone(), |i| i.toolchain.clone()),
                cpu_s: c.cpu_s(),
                wall_s: c.wall_s(),
                files,
                verified,
            }
        })
        .collect();
    Measured {
        variant: row.variant.clone(),
        label: row.label(),
        version: row.version.clone(),
        note: variant.and_then(|v| v.note.clone()),
        benches,
        source_of,
    }
}

/// A path relative to the languages file's directory when it is inside it.
fn relative(root: &Path, p: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).display().to_string()
}

/// The build and run commands of `bench`, placeholders expanded as a run
/// expands them, with paths relative to the languages file and the run's
/// scratch directory written `{build}` (as `identity.commands` is).
fn expanded(v: &Variant, program: &Path, n: u64) -> Vec<String> {
    let src = relative(v.root(), program);
    let vars = Vars {
        dir: Path::new(&src)
            .parent()
            .map(|d| d.display().to_string())
            .unwrap_or_default(),
        src,
        build: "{build}".into(),
        n: Some(n),
        port: None,
    };
    let mut out: Vec<String> = v
        .env
        .iter()
        .map(|(k, val)| format!("env {k}={}", shell_words::quote(val)))
        .collect();
    for t in v.build.iter().chain([&v.run]) {
        out.push(shell_words::join(t.expand(&vars)));
    }
    out
}

/// Why a source is not shown: it could not be read, or it may not be
/// shown (outside the checkout, too large, not text).
enum Withheld {
    Unreadable(String),
    Refused(String),
}

/// A program source, if it may be shown (see the module's comment), and
/// whether it could be read at all (what [`verify`] says of one that
/// could not). `canon` resolves the many sources' directories once
/// (issue #41).
fn read_source(canon: &Canon, root: &Path, path: &Path) -> (SourceFile, bool) {
    let shown = relative(root, path);
    let unreadable = |e: std::io::Error| Withheld::Unreadable(format!("cannot be read: {e}"));
    let text = (|| {
        let root = canon.dir(root).map_err(|e| {
            Withheld::Unreadable(format!(
                "the languages file's directory cannot be read: {e}"
            ))
        })?;
        let real = canon.real(path).map_err(unreadable)?;
        if !real.starts_with(&root) {
            return Err(Withheld::Refused(
                "not shown: outside the languages file's directory".into(),
            ));
        }
        let meta = std::fs::metadata(&real).map_err(unreadable)?;
        if !meta.is_file() {
            return Err(Withheld::Refused("not shown: not a regular file".into()));
        }
        if meta.len() > MAX_SOURCE {
            return Err(Withheld::Refused(format!(
                "not shown: {} bytes, more than the {MAX_SOURCE} a report embeds",
                meta.len()
            )));
        }
        // No further than the bound, should it have grown since.
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(
            &mut std::io::Read::take(std::fs::File::open(&real).map_err(unreadable)?, MAX_SOURCE),
            &mut bytes,
        )
        .map_err(unreadable)?;
        String::from_utf8(bytes).map_err(|_| Withheld::Refused("not shown: not UTF-8 text".into()))
    })();
    let unread = matches!(text, Err(Withheld::Unreadable(_)));
    let text = text.map_err(|w| match w {
        Withheld::Unreadable(why) | Withheld::Refused(why) => why,
    });
    (SourceFile { path: shown, text }, unread)
}

/// Whether the shown source is the program that ran, in a sentence.
fn verify(v: &Variant, file: &SourceFile, unreadable: bool, ran: Option<&str>) -> String {
    let Some(ran) = ran else {
        return "not verified: these runs recorded no program digest; shown is the file in the \
                checkout now"
            .into();
    };
    if v.uses_dir() {
        return "not verified here: the program is its whole directory (the runs' digest covers \
                every file in it); shown is its main file in the checkout now"
            .into();
    }
    // The digest of the text shown, read once: not of a second read that
    // a file replaced in between would make another file's.
    let text = match &file.text {
        Ok(text) => text,
        Err(_) if unreadable => return "not verified: the file cannot be read".into(),
        Err(_) => return "not verified: the file is not shown".into(),
    };
    let now = hex::encode(Sha256::digest(text.as_bytes()));
    let ran = ran.to_ascii_lowercase();
    // A recorded digest may be a prefix of the full sha256.
    if !ran.is_empty() && (now.starts_with(&ran) || ran.starts_with(&now)) {
        "the program that ran: its sha256 equals the runs' program digest".into()
    } else {
        format!(
            "CHANGED since these runs: the file in the checkout now (sha256 {}) is not the one \
             that ran ({}); the one that ran is not stored",
            &now[..16],
            &ran[..ran.len().min(16)]
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::Bench;
    use crate::record::Identity;
    use crate::store::Stored;
    use crate::testing::run;
    use langbench_document::export::Exporter;

    const HOSTILE: &str = "</code></pre><script>alert('src')</script><img src=x onerror=alert(1)>";

    /// A checkout with a hostile languages file: a program whose text is
    /// markup, a note with markup, a program outside the checkout, and a
    /// symlink out of it.
    fn checkout(dir: &Path) -> Languages {
        let root = dir.join("checkout");
        std::fs::create_dir_all(root.join("programs/num-comb")).unwrap();
        std::fs::write(
            root.join("programs/num-comb/evil.sh"),
            format!("echo 1 # {HOSTILE}\n"),
        )
        .unwrap();
        std::fs::write(dir.join("secret.txt"), "TOP-SECRET-KEY\n").unwrap();
        std::os::unix::fs::symlink(
            dir.join("secret.txt"),
            root.join("programs/num-comb/link.sh"),
        )
        .unwrap();
        std::fs::write(
            root.join("programs/num-comb/big.sh"),
            "x".repeat(300 * 1024),
        )
        .unwrap();
        let toml = format!(
            r#"
[[variant]]
id = "evil"
language = "Evil"
flags = "sh evil"
run = "sh {{src}} {{n}}"
needs = ["sh"]
version = "sh -c 'echo 1.0'"
note = "{HOSTILE}"
programs = {{ num-comb = "programs/num-comb/evil.sh" }}

[[variant]]
id = "outside"
language = "Outside"
flags = "sh outside"
run = "sh {{src}} {{n}}"
needs = ["sh"]
version = "sh -c 'echo 1.0'"
programs = {{ num-comb = "programs/num-comb/big.sh" }}

[[variant]]
id = "link"
language = "Link"
flags = "sh link"
run = "sh {{src}} {{n}}"
needs = ["sh"]
version = "sh -c 'echo 1.0'"
programs = {{ num-comb = "programs/num-comb/big.sh" }}

[[variant]]
id = "big"
language = "Big"
flags = "sh big"
run = "sh {{src}} {{n}}"
needs = ["sh"]
version = "sh -c 'echo 1.0'"
programs = {{ num-comb = "programs/num-comb/big.sh" }}
"#
        );
        let path = root.join("languages.toml");
        std::fs::write(&path, &toml).unwrap();
        let mut langs = Languages::load(&path).unwrap();
        // `Languages::load` refuses programs outside the checkout (the
        // first defence); the report must not embed one either, should a
        // path get there another way (a symlink made after loading).
        let checkout_dir = path.parent().unwrap().to_path_buf();
        for (id, program) in [
            ("outside", "../secret.txt"),
            ("link", "programs/num-comb/link.sh"),
        ] {
            let v = langs.variants.iter_mut().find(|v| v.id == id).unwrap();
            v.programs
                .insert(Bench::NumComb, checkout_dir.join(program));
        }
        langs
    }

    fn summary(ids: &[&str]) -> Summary {
        let runs = ids
            .iter()
            .map(|id| run(id, Bench::NumComb).wall(1.5).record())
            .map(std::sync::Arc::new)
            .collect();
        Summary::from_stored(&Stored {
            runs,
            ..Default::default()
        })
    }

    #[test]
    fn sources_from_outside_the_checkout_are_never_embedded_and_markup_is_escaped() {
        let tmp = tempfile::tempdir().unwrap();
        let langs = checkout(tmp.path());
        let s = summary(&["evil", "outside", "link", "big"]);
        let mut doc = s.document();
        doc.measured = sections(&s, Ok(&langs));
        let html = String::from_utf8(langbench_document::export::html::Html.render(&doc).unwrap())
            .unwrap();
        assert!(
            !html.contains("TOP-SECRET-KEY"),
            "a file outside the checkout leaked"
        );
        assert!(
            !html.contains("<script>alert"),
            "markup from a source or note"
        );
        assert!(!html.contains("<img src=x"), "markup from a source or note");
        assert!(html.contains("&lt;script&gt;alert('src')&lt;/script&gt;"));
        assert_eq!(
            html.matches("<script").count(),
            1,
            "only the page's own script"
        );
        // One click from the row to its section.
        assert!(
            html.contains(r##"<a href="#variant-evil">Evil</a>"##),
            "row link"
        );
        assert!(html.contains(r#"<section class="variant" id="variant-evil">"#));
        let by_id = |id: &str| doc.measured.iter().find(|m| m.variant == id).unwrap();
        let file = |id: &str| by_id(id).benches[0].files[0].clone();
        assert!(file("evil").text.unwrap().contains(HOSTILE));
        assert_eq!(file("evil").path, "programs/num-comb/evil.sh");
        assert!(
            file("outside")
                .text
                .unwrap_err()
                .contains("outside the languages file's directory")
        );
        assert!(
            file("link")
                .text
                .unwrap_err()
                .contains("outside the languages file's directory")
        );
        assert!(file("big").text.unwrap_err().contains("more than the"));
        assert_eq!(by_id("evil").note.as_deref(), Some(HOSTILE));
    }

    /// A recorded digest beside a file that cannot be read (gone since
    /// the runs) says so; beside one that may not be shown (too large),
    /// that it is not shown: told apart by how reading failed, not by the
    /// wording of the error.
    #[test]
    fn a_program_that_cannot_be_read_and_one_withheld_are_told_apart() {
        let tmp = tempfile::tempdir().unwrap();
        let mut langs = checkout(tmp.path());
        let gone = tmp.path().join("checkout/programs/num-comb/gone.sh");
        let v = langs.variants.iter_mut().find(|v| v.id == "evil").unwrap();
        v.programs.insert(Bench::NumComb, gone);
        let verified = |id: &str| {
            let mut r = run(id, Bench::NumComb).wall(1.5).record();
            r.identity = Some(Identity {
                digest: "0123456789abcdef".into(),
                program: "f".repeat(64),
                commands: vec![],
                toolchain: "1.0".into(),
                langbench: "0.1.0".into(),
            });
            let s = Summary::from_stored(&Stored {
                runs: crate::testing::shared(vec![r]),
                ..Default::default()
            });
            sections(&s, Ok(&langs))[0].benches[0].verified.clone()
        };
        assert_eq!(verified("evil"), "not verified: the file cannot be read");
        assert_eq!(verified("big"), "not verified: the file is not shown");
    }

    #[test]
    fn commands_and_identity_come_from_the_records_when_they_carry_them() {
        let tmp = tempfile::tempdir().unwrap();
        let langs = checkout(tmp.path());
        let program = langs.variants[0].programs[&Bench::NumComb].clone();
        let sha = hex::encode(Sha256::digest(std::fs::read(&program).unwrap()));
        let mut with = run("evil", Bench::NumComb).wall(1.5).record();
        with.user_s = 1.25;
        with.sys_s = 0.25;
        with.identity = Some(Identity {
            digest: "0123456789abcdef".into(),
            program: sha.clone(),
            commands: vec!["sh programs/num-comb/evil.sh 1000".into()],
            toolchain: "1.0".into(),
            langbench: "0.1.0 (abc1234)".into(),
        });
        let s = Summary::from_stored(&Stored {
            runs: crate::testing::shared(vec![with.clone()]),
            ..Default::default()
        });
        let m = &sections(&s, Ok(&langs))[0];
        let b = &m.benches[0];
        assert_eq!(b.identity, "0123456789abcdef");
        assert_eq!(b.commands, ["sh programs/num-comb/evil.sh 1000"]);
        assert_eq!(b.commands_from, "recorded with the runs");
        assert_eq!(b.cpu_s, Some(1.5));
        assert_eq!(b.wall_s, Some(1.5));
        assert!(
            b.verified.starts_with("the program that ran"),
            "{}",
            b.verified
        );

        // The program changed since: said so.
        with.identity.as_mut().unwrap().program = "f".repeat(64);
        let s = Summary::from_stored(&Stored {
            runs: crate::testing::shared(vec![with]),
            ..Default::default()
        });
        let b = &sections(&s, Ok(&langs))[0].benches[0];
        assert!(
            b.verified.starts_with("CHANGED since these runs"),
            "{}",
            b.verified
        );

        // No identity recorded: unknown, the templates expanded, not verified.
        let s = summary(&["evil"]);
        let b = &sections(&s, Ok(&langs))[0].benches[0];
        assert_eq!(b.identity, "unknown");
        assert_eq!(b.commands, ["sh programs/num-comb/evil.sh 1000"]);
        assert!(
            b.commands_from
                .starts_with("the languages file's templates")
        );
        assert!(b.verified.starts_with("not verified"), "{}", b.verified);

        // No languages file: the records only.
        let m = &sections(&s, Err("no --languages given"))[0];
        assert!(m.benches[0].files.is_empty() && m.note.is_none());
        assert!(
            m.source_of.contains("no --languages given"),
            "{}",
            m.source_of
        );
    }
}
