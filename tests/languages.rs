//! languages.toml as a reviewer reads it: the short file resolves to exactly
//! the variants of the long one it replaced, and parsing stays linear.

use std::path::Path;
use std::process::Command;

use crate::util::*;
use langbench::config::{Languages, Variant};

/// Every field of a resolved variant that changes what langbench does or
/// shows (everything but the line of the entry).
fn resolved(v: &Variant) -> Vec<(&'static str, String)> {
    vec![
        ("id", v.id.clone()),
        ("language", v.language.clone()),
        ("flags", v.flags.clone()),
        ("needs", format!("{:?}", v.needs)),
        ("version", format!("{:?}", v.version)),
        (
            "version_regex",
            format!("{:?}", v.version_regex.as_ref().map(|r| r.as_str())),
        ),
        ("build", format!("{:?}", v.build)),
        ("run", format!("{:?}", v.run)),
        ("prepare", format!("{:?}", v.prepare)),
        ("env", format!("{:?}", v.env)),
        ("cwd", format!("{:?}", v.cwd_template())),
        ("note", format!("{:?}", v.note)),
        ("library", format!("{:?}", v.library)),
        ("programs", format!("{:?}", v.programs)),
        ("install", format!("{:?}", v.install)),
        ("install.describe", v.install.describe()),
        ("aliases", format!("{:?}", v.aliases)),
        ("missing", format!("{:?}", v.missing())),
        ("root", v.root().display().to_string()),
    ]
}

/// The rewrite of issue #10, proven on the two files as they were that
/// day (both kept as fixtures, read as if they stood in languages.toml's
/// place): every variant resolves the same, in half the lines. The live
/// file moves on (new variants, fixed programs); it must only stay free of
/// repeated defaults.
#[test]
fn the_short_file_resolves_to_the_variants_of_the_long_one() {
    let path = repo().join("languages.toml");
    let fixture =
        |name: &str| std::fs::read_to_string(repo().join("tests/fixtures").join(name)).unwrap();
    let (before_text, after_text) = (
        fixture("languages-before-issue-10.toml"),
        fixture("languages-after-issue-10.toml"),
    );
    let before = Languages::parse(&before_text, &path).unwrap();
    let after = Languages::parse(&after_text, &path).unwrap();
    let ids = |l: &Languages| l.variants.iter().map(|v| v.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&before), ids(&after), "same variants in the same order");
    for (b, a) in before.variants.iter().zip(&after.variants) {
        for ((field, old), (_, new)) in resolved(b).into_iter().zip(resolved(a)) {
            assert_eq!(old, new, "{}: field {field} changed", b.id);
        }
    }
    let lines = |t: &str| t.lines().count();
    assert!(
        lines(&after_text) * 2 <= lines(&before_text),
        "the rewrite has {} lines, the file it replaced {}: it should be at most half",
        lines(&after_text),
        lines(&before_text)
    );
    let live = Languages::load(&path).unwrap();
    assert!(
        live.lints.is_empty(),
        "languages.toml repeats defaults: {:#?}",
        live.lints
    );
}

/// Parsing is linear in the number of variants: the line/column of every
/// entry comes from one index of the file (it used to be recounted from the
/// start for each entry: 8,000 variants took 14 s). Not timed: the test
/// counts, on a file 8,000 variants long, that every entry's line is right,
/// which the old code computed too but quadratically; the timing lives in
/// `benches/parse.rs`.
#[test]
fn eight_thousand_variants_parse_with_the_right_lines() {
    let dir = tempfile::tempdir().unwrap();
    for b in ["assoc", "num-comb", "str-comb"] {
        let p = dir.path().join("programs").join(b);
        std::fs::create_dir_all(&p).unwrap();
        std::fs::write(p.join(format!("{}.sh", b.replace('-', "_"))), "").unwrap();
    }
    let text = langbench::config::synthetic(8_000);
    let l = Languages::parse(&text, &dir.path().join("languages.toml")).unwrap();
    assert_eq!(l.variants.len(), 8_000);
    for (i, v) in l.variants.iter().enumerate() {
        assert_eq!(v.line, 1 + i * 4, "{}", v.id);
        assert_eq!(v.id, format!("v{i}"));
    }
}

/// `list` fits a 100-column terminal; the install hints and notes are
/// behind `--long` and `list ID`; `--json` has the same rows for scripts.
#[test]
fn list_fits_100_columns_and_long_json_and_one_variant_say_the_rest() {
    let languages = repo().join("languages.toml");
    let languages = languages.to_str().unwrap();
    // Not a terminal: the table fits COLUMNS (the fitting rule of every
    // terminal table, tests/tables.rs); a long cell wraps inside its row.
    let o = Command::new(bin())
        .args(["list", "--languages", languages])
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let langs = Languages::load(Path::new(languages)).unwrap();
    let firsts: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for v in &langs.variants {
        assert!(
            firsts.contains(&v.id.as_str()),
            "{} has no row: {out}",
            v.id
        );
    }
    for line in out.lines() {
        assert!(
            line.chars().count() <= 100,
            "{} columns: {line}",
            line.chars().count()
        );
    }
    assert!(out.trim_start().starts_with("id "), "{out}");
    assert!(!out.contains("apt-get install"), "{out}");

    let o = langbench(&["list", "--languages", languages, "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = json.as_array().unwrap();
    assert_eq!(rows.len(), langs.variants.len());
    let gcc = rows.iter().find(|r| r["id"] == "c-gcc").unwrap();
    assert_eq!(gcc["install_hint"], "apt-get install gcc uthash-dev");
    assert!(gcc["installed"].is_boolean() && gcc["version"].is_string());

    let o = langbench(&["list", "--languages", languages, "julia"]);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("install     install Julia from julialang.org"),
        "{out}"
    );
    assert!(out.contains("note        unverified"), "{out}");

    let o = langbench(&["list", "--languages", languages, "--long"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("apt-get install gcc uthash-dev") && out.contains("Notes:"),
        "{out}"
    );
}

/// `Languages::resolver` (the index history and compare use for many
/// published rows, issue #41) answers what `resolve` answers, for every
/// variant's language and flags, every alias, case and padding changes,
/// and a row nothing names.
#[test]
fn the_resolver_index_answers_what_resolve_answers() {
    let langs = Languages::load(&repo().join("languages.toml")).unwrap();
    let index = langs.resolver();
    let mut asked: Vec<(String, String)> = vec![("Nothing".into(), "no such flags".into())];
    for v in &langs.variants {
        asked.push((v.language.clone(), v.flags.clone()));
        asked.push((v.language.to_uppercase(), format!("  {} ", v.flags)));
        for a in &v.aliases {
            asked.push(match a {
                langbench::config::Alias::Flags(f) => (v.language.clone(), f.clone()),
                langbench::config::Alias::Full { language, flags } => {
                    (language.clone(), flags.clone())
                }
            });
        }
    }
    assert!(asked.len() > 2 * langs.variants.len());
    for (l, f) in &asked {
        let want = langs.resolve(l, f).map(|v| &v.id);
        let got = index.resolve(l, f).map(|v| &v.id);
        assert_eq!(got, want, "{l} / {f}");
    }
}
