//! Toolchains from Maven Central (`install = { maven, bin }`): a real fetch
//! of a tiny artifact with its dependency, its launcher found in the
//! sandbox, a second install that does nothing, a changed table's old
//! directory pruned, and a checksum failure that installs nothing. Each
//! test has its own toolchains directory and its own Maven local
//! repository and `user.home` (MAVEN_OPTS, util::maven_opts), so every jar
//! is really downloaded and checked, and ~/.m2 is neither read nor written.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::util::*;

/// langbench with the test's toolchains directory and local repository.
fn langbench_in(home: &Path, extra_env: &[(&str, String)], args: &[&str]) -> Output {
    let mut c = Command::new(bin());
    c.args(args)
        .env("LANGBENCH_TOOLCHAINS", home.join("toolchains"))
        .env("MAVEN_OPTS", maven_opts(home))
        .env_remove("LANGBENCH_MAVEN_REPOSITORY");
    for (k, v) in extra_env {
        c.env(k, v);
    }
    c.output().expect("langbench runs")
}

/// The toolchains directory's entries (a half-built one would show here).
fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

const JUNIT: &str = r#"
[variant.junit-sh]
language = "Sh"
needs = ["junit", "sh"]
version = "junit"
version_regex = 'JUnit version (\S+)'
run = "sh {src} {n}"
programs = { num-comb = "programs/num-comb/junit.sh" }

[variant.junit-sh.install]
maven = ["junit:junit:4.13.2"]
bin = { junit = "java -cp {home}/lib/* org.junit.runner.JUnitCore" }
setup = ["cp {root}/programs/num-comb/junit.sh {home}/setup-copy.sh"]
"#;

#[test]
fn a_maven_toolchain_installs_with_its_dependencies_runs_in_the_sandbox_and_installs_once() {
    let expected = langbench(&["expected", "num-comb", "--size", "tiny"]);
    assert!(expected.status.success(), "{}", text(&expected));
    let answer = String::from_utf8_lossy(&expected.stdout).trim().to_string();
    // The program runs the launcher by name (from PATH, inside the
    // sandbox) and fails unless it ran.
    let program = format!("junit >/dev/null || exit 3\necho '{answer}'\n");
    let f = Fixture::new(JUNIT, &[("programs/num-comb/junit.sh", &program)]);
    let home = f.path();
    let list = |extra: &[(&str, String)]| {
        let o = langbench_in(
            home,
            extra,
            &["list", "junit-sh", "--json", "--languages", &f.languages()],
        );
        assert!(o.status.success(), "{}", text(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v.as_array().map_or(v.clone(), |a| a[0].clone())
    };

    // A `junit` of another origin on PATH is not this toolchain.
    let fake = home.join("fakebin");
    std::fs::create_dir_all(&fake).unwrap();
    std::fs::write(fake.join("junit"), "#!/bin/sh\necho 'JUnit version 0.1'\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(fake.join("junit"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        fake.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let before = list(&[("PATH", path.clone())]);
    assert_eq!(before["installed"], false, "{before}");

    let o = langbench_in(
        home,
        &[],
        &["toolchains", "install", "--languages", &f.languages()],
    );
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("checksums verified"), "{out}");
    let tc = home.join("toolchains");
    let names = entries(&tc);
    assert_eq!(
        names.len(),
        1,
        "one toolchain directory, nothing half-built: {names:?}"
    );
    assert!(names[0].starts_with("junit-4.13.2-"), "{names:?}");
    let dir: PathBuf = tc.join(&names[0]);
    // The dependency came along, versions stripped; the record is kept.
    for f in [
        "lib/junit.jar",
        "lib/hamcrest-core.jar",
        "bin/junit",
        "pom.xml",
    ] {
        assert!(dir.join(f).is_file(), "{f} missing in {}", dir.display());
    }
    let resolved = std::fs::read_to_string(dir.join("resolved.txt")).unwrap();
    assert!(
        resolved.contains("org.hamcrest:hamcrest-core:jar:1.3"),
        "{resolved}"
    );

    // Installed and versioned through the launcher (the probe runs in the
    // sandbox), even with the other `junit` first on PATH.
    let after = list(&[("PATH", path)]);
    assert_eq!(after["installed"], true, "{after}");
    assert_eq!(after["version"], "4.13.2", "{after}");

    // A real run in the sandbox finds the launcher on its PATH.
    let out_dir = home.join("results");
    let o = langbench_in(
        home,
        &[],
        &[
            "run",
            "--languages",
            &f.languages(),
            "--size",
            "tiny",
            "--runs",
            "1",
            "--out",
            out_dir.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let runs = f.runs();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["status"], "ok", "{:?}\n{}", runs[0], text(&o));

    // A second install changes nothing.
    let jar = dir.join("lib/junit.jar");
    let mtime = std::fs::metadata(&jar).unwrap().modified().unwrap();
    let o = langbench_in(
        home,
        &[],
        &["toolchains", "install", "--languages", &f.languages()],
    );
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("already installed"), "{out}");
    assert!(!out.contains("$ mvn"), "mvn ran again: {out}");
    assert_eq!(std::fs::metadata(&jar).unwrap().modified().unwrap(), mtime);
    assert_eq!(entries(&tc), names);

    // A changed table installs anew beside the old directory, which the
    // install names as unused and `toolchains prune` removes (not before).
    std::fs::write(
        f.languages(),
        JUNIT.replace("{home}/setup-copy.sh", "{home}/setup-copy-2.sh"),
    )
    .unwrap();
    let install = || {
        langbench_in(
            home,
            &[],
            &["toolchains", "install", "--languages", &f.languages()],
        )
    };
    let o = install();
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("note: 1 directory,"), "{out}");
    assert!(out.contains("toolchains prune"), "{out}");
    let both = entries(&tc);
    assert_eq!(both.len(), 2, "{both:?}");
    let new: Vec<&String> = both.iter().filter(|n| **n != names[0]).collect();
    let languages = f.languages();
    let prune = |extra: &[&str]| {
        let mut args = vec!["toolchains", "prune", "--languages", &languages];
        args.extend(extra);
        let o = langbench_in(home, &[], &args);
        assert!(o.status.success(), "{}", text(&o));
        text(&o)
    };
    let out = prune(&["--dry-run"]);
    assert!(
        out.contains(&format!("would remove {}", dir.display())),
        "{out}"
    );
    assert_eq!(entries(&tc), both, "--dry-run removed something");
    let out = prune(&[]);
    assert!(out.contains(&format!("removed {}", dir.display())), "{out}");
    assert_eq!(entries(&tc), vec![new[0].clone()]);
    assert_eq!(list(&[])["installed"], true);
    let out = prune(&[]);
    assert!(out.contains("nothing to prune"), "{out}");
    assert!(!text(&install()).contains("note:"));
}

#[test]
fn a_checksum_mismatch_is_named_and_installs_nothing() {
    let pom = b"<?xml version=\"1.0\"?>\n<project xmlns=\"http://maven.apache.org/POM/4.0.0\"><modelVersion>4.0.0</modelVersion>\
<groupId>langbench.test</groupId><artifactId>tiny</artifactId><version>1.0</version></project>\n"
        .to_vec();
    let pom_sha1 = {
        let o = Command::new("sha1sum")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                c.stdin.take().unwrap().write_all(&pom)?;
                c.wait_with_output()
            })
            .unwrap();
        String::from_utf8_lossy(&o.stdout)[..40].to_string()
    };
    let base = "/langbench/test/tiny/1.0/tiny-1.0";
    let files = vec![
        (format!("{base}.pom"), pom.clone()),
        (format!("{base}.pom.sha1"), pom_sha1.into_bytes()),
        (
            format!("{base}.jar"),
            b"a jar whose checksum is wrong".to_vec(),
        ),
        (
            format!("{base}.jar.sha1"),
            b"0000000000000000000000000000000000000000".to_vec(),
        ),
    ];
    let repo = format!("{}/", serve_http(|_| files).0);
    let toml = r#"
[variant.tiny]
language = "Sh"
needs = ["tiny", "sh"]
run = "sh {src} {n}"
programs = { num-comb = "nc.sh" }

[variant.tiny.install]
maven = ["langbench.test:tiny:1.0"]
bin = { tiny = "java -cp {home}/lib/* Tiny" }
"#;
    let f = Fixture::new(toml, &[("nc.sh", "")]);
    let o = langbench_in(
        f.path(),
        &[("LANGBENCH_MAVEN_REPOSITORY", repo)],
        &["toolchains", "install", "--languages", &f.languages()],
    );
    let out = text(&o);
    assert!(
        out.contains("FAILED  tiny")
            && out.contains(
                "checksum mismatch for langbench.test:tiny:jar:1.0 (Maven's strict checksum policy)"
            )
            && out.contains("expected 0000000000000000000000000000000000000000 but is")
            && out.contains("nothing was installed"),
        "{out}"
    );
    // A failed install is the exit status too, as for any installer.
    assert_eq!(o.status.code(), Some(1), "{out}");
    // Nothing under the toolchain's name, no half-built directory either.
    assert_eq!(entries(&f.path().join("toolchains")), Vec::<String>::new());
    let o = langbench_in(
        f.path(),
        &[],
        &["list", "tiny", "--json", "--languages", &f.languages()],
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let v = v.as_array().map_or(v.clone(), |a| a[0].clone());
    assert_eq!(v["installed"], false, "{v}");
}
