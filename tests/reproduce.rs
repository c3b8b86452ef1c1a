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
    // It knows its level from the records (issue #60): this machine, this
    // boot, the edition's CPU model; and names its run directory.
    let t = text(&o);
    assert!(
        t.contains("as a precision check (another sitting in the edition's boot)"),
        "{t}"
    );
    assert_eq!(json2["level"], "same-boot", "{json2}");
    assert_eq!(json2["run"], "again", "{json2}");
    assert_eq!(json2["cpu_id"], json2["edition_cpu_id"], "{json2}");
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
    assert!(
        md.contains(
            "its ratios recomputed from the edition's records and its run directory again's"
        ),
        "{md}"
    );
    assert!(md.contains("Rank precision"), "{md}");
    // A copy of it with one re-measured row 40× off, as a pull request
    // could add it: it does not verify against its run directory, is
    // ignored, and the page says so (issue #59, rows 7 and 8).
    let mut forged = json2.clone();
    let r = forged["rows"][0]["remeasured"].as_f64().unwrap();
    forged["rows"][0]["remeasured"] = (r * 40.0).into();
    let forged_file = edition.join("reproduced/zz-forged.json");
    std::fs::write(&forged_file, forged.to_string()).unwrap();
    let md = report(&edition);
    assert!(
        md.contains("zz-forged.json is IGNORED") && md.contains("its re-measured ratio of"),
        "{md}"
    );
    std::fs::remove_file(&forged_file).unwrap();
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
    // Its row is no cell of the edition: it does not verify.
    assert!(md.contains("zz-hostile.json is IGNORED"), "{md}");
    std::fs::remove_file(edition.join("reproduced/zz-hostile.json")).unwrap();

    // The same edition as if measured on another CPU model: a check here
    // is a portability check, said so when stored, shown as a table of
    // its own and never as a tie (issue #60).
    let foreign = f.path().join("foreign");
    std::fs::create_dir(&foreign).unwrap();
    for file in ["runs.jsonl", "references.jsonl"] {
        std::fs::copy(edition.join(file), foreign.join(file)).unwrap();
    }
    let sessions: String = std::fs::read_to_string(edition.join("sessions.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["machine"]["cpu_id"] = "FakeVendor family 1 model 1 stepping 0".into();
            format!("{v}\n")
        })
        .collect();
    std::fs::write(foreign.join("sessions.jsonl"), sessions).unwrap();
    let plain = report(&foreign);
    let ranks = |dir: &Path| -> Vec<(String, String)> {
        read_csv(&dir.join("summary.csv"))
            .into_iter()
            .map(|r| (r["variant"].clone(), r["rank"].clone()))
            .collect()
    };
    let before = ranks(&foreign);
    let o = reproduce(
        &f,
        &foreign,
        &f.path().join("on-another"),
        &["--seed", "7", "--store"],
    );
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("as a PORTABILITY check"), "{t}");
    let md = report(&foreign);
    assert!(
        md.contains("Portability: ") && md.contains("sets no rank"),
        "{md}"
    );
    assert_eq!(ranks(&foreign), before);
    assert!(!plain.contains("Portability: "), "{plain}");

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

/// Issue #59, rows 7 and 8: a stored check comes with the directory, from
/// whoever made it, so its ratios are recomputed from the records it
/// claims and it cannot be set by one row. A copy of an honest check with
/// one row 40× off is refused against its run directory (the page says
/// IGNORED, no precision comes of it); the same without naming its run
/// directory has no records to recompute from and is refused too; a check
/// that keeps 4 of its run directory's rows (leaving out the rest, as a
/// check choosing its rows would) is refused; the honest one verifies and
/// sets a finite precision. (A row slow in the records themselves is
/// flagged on its own: summary::checks_tests.)
#[test]
fn issue59_rows_7_8_a_forged_check_or_one_slow_row_cannot_coarsen_the_ranks() {
    let f = edition_fixture(&["pa", "pb", "pc", "pd", "pe", "pf", "pg"]);
    let edition = f.path().join("results");
    std::fs::create_dir(&edition).unwrap();
    let o = f.run_with_runs("3", &["--block-minutes", "0.05"]);
    assert!(o.status.success(), "{}", text(&o));
    let o = reproduce(
        &f,
        &edition,
        &f.path().join("honest"),
        &["--seed", "5", "--store"],
    );
    assert!(o.status.success(), "{}", text(&o));
    let dir = edition.join("reproduced");
    let name = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let honest: serde_json::Value = serde_json::from_slice(&std::fs::read(&name).unwrap()).unwrap();
    std::fs::remove_file(&name).unwrap();
    let report = |check: &serde_json::Value| -> (String, Vec<f64>) {
        std::fs::write(dir.join("x.json"), check.to_string()).unwrap();
        let o = langbench(&["report", edition.to_str().unwrap()]);
        assert!(o.status.success(), "{}", text(&o));
        let md = std::fs::read_to_string(edition.join("summary.md")).unwrap();
        let line = md
            .lines()
            .find(|l| l.starts_with("- Rank precision: "))
            .unwrap_or_else(|| panic!("{md}"))
            .to_string();
        // Every "±N %" the sentence states.
        let said = line
            .split('±')
            .skip(1)
            .filter_map(|p| p.split(' ').next()?.parse::<f64>().ok())
            .collect();
        (md, said)
    };
    let off = |k: f64, keep: Option<usize>, run: bool| {
        let mut c = honest.clone();
        let r = c["rows"][0]["remeasured"].as_f64().unwrap();
        c["rows"][0]["remeasured"] = (r * k).into();
        if let Some(n) = keep {
            c["rows"].as_array_mut().unwrap().truncate(n);
        }
        if !run {
            c.as_object_mut().unwrap().remove("run");
        }
        c
    };
    // Row 8 with its run directory named: refused.
    let (md, said) = report(&off(40.0, None, true));
    assert!(
        md.contains("x.json is IGNORED") && md.contains("its re-measured ratio of"),
        "{md}"
    );
    assert!(
        said.is_empty() && md.contains("no verified check on this CPU model"),
        "{md}"
    );
    // Row 8 without it: no records to recompute its ratios from.
    let (md, said) = report(&off(40.0, None, false));
    assert!(
        md.contains("x.json is IGNORED") && md.contains("it names no run directory"),
        "{md}"
    );
    assert!(said.is_empty(), "{said:?}");
    // Row 7's 4 rows, one at 12,130 %: it leaves out its run directory's
    // other rows.
    let (md, said) = report(&off(122.3, Some(4), true));
    assert!(
        md.contains("x.json is IGNORED") && md.contains("it leaves out"),
        "{md}"
    );
    assert!(said.is_empty(), "{said:?}");
    // The honest check: verified, a finite precision.
    let (md, said) = report(&off(1.0, None, true));
    assert!(!md.contains("IGNORED"), "{md}");
    assert!(
        !said.is_empty() && said.iter().all(|p| *p < 1000.0),
        "{said:?}\n{md}"
    );
}
