//! `langbench reproduce`: a seeded sample of an edition's installed
//! variants re-measured in rounds with references, its ratios set against
//! the edition's, the result stored in --out (and beside the edition only
//! with --store).

use std::path::Path;

use crate::util::*;

/// A languages file of `ids` (and the reference `ref`), each running the
/// repository's Python programs, and `absent`, whose tool is not here.
fn edition_fixture(ids: &[&str]) -> Fixture {
    let programs = |b: &str, f: &str| {
        (
            format!("programs/{f}"),
            std::fs::read_to_string(repo().join("programs").join(b).join(f)).unwrap(),
        )
    };
    let files = [
        programs("assoc", "assoc.py"),
        programs("num-comb", "num_comb.py"),
        programs("str-comb", "str_comb.py"),
    ];
    let mut toml = String::from("[edition]\nreferences = [\"ref\"]\n\n");
    let variant = |id: &str, needs: &str| {
        format!(
            "[[variant]]\nid = \"{id}\"\nlanguage = \"Py {id}\"\nflags = \"python3 {id}\"\nneeds = [\"{needs}\"]\n\
             version = \"python3 --version\"\nrun = \"python3 {{src}} {{n}}\"\n\
             programs = {{ assoc = \"programs/assoc.py\", num-comb = \"programs/num_comb.py\", str-comb = \"programs/str_comb.py\" }}\n\n"
        )
    };
    toml.push_str(&variant("ref", "python3"));
    for id in ids {
        toml.push_str(&variant(id, "python3"));
    }
    toml.push_str(&variant("absent", "no-such-tool-for-langbench"));
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    Fixture::new(&toml, &files)
}

fn reproduce(f: &Fixture, edition: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "reproduce".to_string(),
        "--languages".into(),
        f.languages(),
        edition.display().to_string(),
        "--out".into(),
        out.display().to_string(),
        "--block-minutes".into(),
        "0.05".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    langbench(&args)
}

#[test]
fn reproduce_remeasures_a_seeded_sample_and_compares_its_ratios() {
    let ids = ["pa", "pb", "pc", "pd", "pe", "pf", "pg"];
    let f = edition_fixture(&ids);
    let edition = f.path().join("results");
    std::fs::create_dir(&edition).unwrap();
    let o = f.run_with_runs("3", &["--block-minutes", "0.05"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(edition.join("references.jsonl").is_file());

    let out = f.path().join("check");
    let o = reproduce(&f, &edition, &out, &["--seed", "7"]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    // 10 % of the 8 installed is 1, raised to 6; absent is not installed.
    assert!(
        t.contains("Re-measuring 6 of the 8 installed variants"),
        "{t}"
    );
    assert!(t.contains("--seed 7"), "{t}");
    assert!(!t.contains("absent"), "{t}");
    assert!(t.contains("re-measured rows"), "{t}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("reproduced.json")).unwrap()).unwrap();
    assert_eq!(json["seed"], 7);
    assert_eq!(json["sample"].as_array().unwrap().len(), 6);
    assert_eq!(json["edition_basis"], "reference-passes");
    // Every sampled variant × benchmark compared: 6 × 3 rows, each a ratio
    // on both sides, printed with its difference.
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 18, "{json}");
    for r in rows {
        let (e, m) = (
            r["edition"].as_f64().unwrap(),
            r["remeasured"].as_f64().unwrap(),
        );
        assert!(e > 0.0 && m > 0.0, "{r}");
        let name = r["variant"].as_str().unwrap();
        let (v, b) = name.rsplit_once(' ').unwrap();
        let line = t
            .lines()
            .find(|l| l.starts_with(v) && l.contains(&format!(" {b} ")))
            .unwrap_or_else(|| panic!("no row {name} in {t}"));
        assert!(
            line.contains(&format!("{:+.1} %", (m / e - 1.0) * 100.0)),
            "{line}"
        );
    }
    let sentence = json["sentence"].as_str().unwrap();
    assert!(sentence.contains("of 18 re-measured rows"), "{sentence}");
    // The re-measuring session ran in rounds with its own reference passes.
    assert!(out.join("references.jsonl").is_file());
    // Never written into the edition unasked.
    assert!(!edition.join("reproduced").exists());

    // The same seed, the same sample.
    let again = f.path().join("again");
    let o = reproduce(&f, &edition, &again, &["--seed", "7", "--store"]);
    assert!(o.status.success(), "{}", text(&o));
    let json2: serde_json::Value =
        serde_json::from_slice(&std::fs::read(again.join("reproduced.json")).unwrap()).unwrap();
    assert_eq!(json2["sample"], json["sample"]);
    let stored: Vec<_> = std::fs::read_dir(edition.join("reproduced"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert!(stored[0].ends_with(".json"), "{stored:?}");
    // The edition's tables state the stored check: its sentence, as
    // computed from its rows.
    let report = |dir: &std::path::Path| {
        let o = langbench(&["report", dir.to_str().unwrap()]);
        assert!(o.status.success(), "{}", text(&o));
        std::fs::read_to_string(dir.join("summary.md")).unwrap()
    };
    let md = report(&edition);
    let said = json2["sentence"].as_str().unwrap();
    assert!(
        md.contains("Reproduced") && md.contains(said),
        "{said}\n{md}"
    );
    // A stored check comes with the directory, from whoever made it: its
    // text is printed inert, and its sentence is computed from its rows
    // (one of one within 5 %), never the one it carries.
    let hostile = serde_json::json!({
        "date": "2026-12-04T00:00:00Z",
        "machine": "evil\u{1b}]52;c;cm0gLXJmIH4=\u{7}box",
        "rows": [{"variant": "x num-comb", "edition": 1.0, "remeasured": 1.01}],
        "unmatched": [],
        "sentence": "ratios reproduce within 5 % for 99 of 99 re-measured rows",
    });
    std::fs::write(
        edition.join("reproduced/zz-hostile.json"),
        hostile.to_string(),
    )
    .unwrap();
    let md = report(&edition);
    assert!(!md.contains('\u{1b}') && !md.contains('\u{7}'), "{md}");
    assert!(!md.contains("99 of 99"), "{md}");
    assert!(md.contains("for 1 of 1 re-measured rows"), "{md}");
    std::fs::remove_file(edition.join("reproduced/zz-hostile.json")).unwrap();

    // An old edition, without reference passes: its own reference cells.
    let old = f.path().join("old");
    std::fs::create_dir(&old).unwrap();
    for file in ["sessions.jsonl", "runs.jsonl"] {
        std::fs::copy(edition.join(file), old.join(file)).unwrap();
    }
    let o = reproduce(&f, &old, &f.path().join("third"), &["--seed", "3"]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("has no reference passes"), "{t}");
    assert!(t.contains("re-measured rows"), "{t}");
}

#[test]
fn reproduce_refuses_bad_input_clearly() {
    let f = edition_fixture(&["pa"]);
    // Not a results directory.
    let o = reproduce(&f, f.path(), &f.path().join("x"), &[]);
    assert!(!o.status.success());
    assert!(text(&o).contains("results directory"), "{}", text(&o));
    assert!(!f.path().join("x").exists());
    // An edition of which nothing is installed here.
    let edition = f.path().join("results");
    std::fs::create_dir(&edition).unwrap();
    let o = f.run(&["--lang", "absent", "--no-references"]);
    assert!(o.status.success(), "{}", text(&o));
    let o = reproduce(&f, &edition, &f.path().join("y"), &[]);
    assert!(!o.status.success());
    assert!(text(&o).contains("is installed here"), "{}", text(&o));
    assert!(!f.path().join("y").exists());
    // A sample of 0 %.
    let o = reproduce(&f, &edition, &f.path().join("z"), &["--sample", "0"]);
    assert!(!o.status.success());
    assert!(text(&o).contains("--sample"), "{}", text(&o));
}
