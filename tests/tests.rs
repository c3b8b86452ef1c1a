//! The integration tests: one binary (as ripgrep's `tests/tests.rs`), one
//! module per area, helpers in `util`. Each test runs the real langbench
//! binary (or its library) on real toolchains and processes.

mod util;

mod attacks;
mod caches;
mod check;
mod contain;
mod deploy;
mod dist;
mod docs;
mod edition;
mod errors;
mod languages;
mod layers;
mod list;
mod maven;
mod measure;
mod normalised;
mod pages;
mod progress;
mod reproduce;
mod resume;
mod robustness;
mod run;
mod shards;
mod sizes;
mod tables;
mod terminal;
mod ws;
mod ws_attacks;

/// Cargo builds only this file (`autotests = false`): a test file that is
/// not a module here would never run. Every `tests/*.rs` must be one.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let dir = util::repo().join("tests");
    let this = std::fs::read_to_string(dir.join("tests.rs")).unwrap();
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(module) = name.strip_suffix(".rs") else {
            continue;
        };
        if module == "tests" {
            continue;
        }
        assert!(
            this.lines().any(|l| l.trim() == format!("mod {module};")),
            "tests/{name} is not a module of tests/tests.rs: add `mod {module};` there \
             (with autotests = false, Cargo does not build it on its own)"
        );
    }
}
