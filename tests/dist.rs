//! Toolchains from one registry archive (`install.dist`): a fake npm
//! registry and a fake PyPI index on 127.0.0.1 (real sockets, real HTTP)
//! serve a runtime tarball and a wheel; `toolchains install` fetches and
//! checks them, the launchers run in the sandbox, a second install fetches
//! nothing, a changed table's old directory is pruned; a wrong checksum, a
//! hostile archive and hostile specs install nothing and run nothing.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::Ordering;

use sha2::Digest;

use crate::util::*;

/// An npm tarball: `package/<path>` for each (path, body, mode); a path
/// is written raw (a hostile `../` included).
fn tgz(files: &[(&str, &[u8], u32)]) -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut b = tar::Builder::new(gz);
    for (path, body, mode) in files {
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Regular);
        h.set_size(body.len() as u64);
        h.set_mode(*mode);
        let name = format!("package/{path}");
        h.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
        h.set_cksum();
        b.append(&h, *body).unwrap();
    }
    b.into_inner().unwrap().finish().unwrap()
}

fn wheel(files: &[(&str, &[u8], u32)]) -> Vec<u8> {
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, body, mode) in files {
        let o = zip::write::SimpleFileOptions::default().unix_permissions(*mode);
        z.start_file(*name, o).unwrap();
        z.write_all(body).unwrap();
    }
    z.finish().unwrap().into_inner()
}

fn sha512_integrity(data: &[u8]) -> String {
    use base64::Engine;
    format!(
        "sha512-{}",
        base64::engine::general_purpose::STANDARD.encode(sha2::Sha512::digest(data))
    )
}

fn sha256_hex(data: &[u8]) -> String {
    sha2::Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The registry's files for the fake runtime (`integrity` of `tarball`
/// unless `claimed` overrides it) and the fake wheel.
fn registry(
    base: &str,
    tarball: &[u8],
    claimed: Option<String>,
    whl: &[u8],
) -> Vec<(String, Vec<u8>)> {
    let integrity = claimed.unwrap_or_else(|| sha512_integrity(tarball));
    let meta = serde_json::json!({
        "name": "fake-rt", "version": "1.0.0",
        "dist": { "tarball": format!("{base}/fake-rt/-/fake-rt-1.0.0.tgz"), "integrity": integrity },
    });
    let index = serde_json::json!({
        "files": [{
            "filename": "fake_tool-2.0-py3-none-any.whl",
            "url": format!("{base}/files/fake_tool-2.0-py3-none-any.whl"),
            "hashes": { "sha256": sha256_hex(whl) },
            "yanked": false,
        }],
    });
    vec![
        ("/npm/fake-rt/1.0.0".into(), meta.to_string().into_bytes()),
        ("/fake-rt/-/fake-rt-1.0.0.tgz".into(), tarball.to_vec()),
        ("/simple/fake-tool/".into(), index.to_string().into_bytes()),
        ("/files/fake_tool-2.0-py3-none-any.whl".into(), whl.to_vec()),
    ]
}

const RUNTIME: &[u8] = b"#!/bin/sh\n# the fake runtime: runs its program with sh\nexec sh \"$@\"\n";

const ENTRY: &str = r#"
[variant.fake]
language = "Sh"
needs = ["rt"]
version = "rt -c 'echo fake-rt 1.0.0'"
run = "rt {src} {n}"
programs = { num-comb = "nc.sh" }

[variant.fake.install.dist]
npm = ["fake-rt@1.0.0"]
pypi = ["fake_tool-2.0-py3-none-any.whl"]
bin = { rt = "{home}/fake-rt/bin/rt", tool = "/bin/sh {home}/fake-tool/tool.sh {root}" }
"#;

/// langbench with the test's toolchains directory and registries.
fn langbench_with(home: &Path, base: &str, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .env("LANGBENCH_TOOLCHAINS", home.join("toolchains"))
        .env("LANGBENCH_NPM_REGISTRY", format!("{base}/npm"))
        .env("LANGBENCH_PYPI_INDEX", format!("{base}/simple"))
        .output()
        .expect("langbench runs")
}

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

#[test]
fn a_dist_toolchain_installs_with_checksums_runs_in_the_sandbox_once_and_is_pruned() {
    let expected = langbench(&["expected", "num-comb", "--size", "tiny"]);
    let answer = String::from_utf8_lossy(&expected.stdout).trim().to_string();
    let tarball = tgz(&[("bin/rt", RUNTIME, 0o755), ("LICENSE", b"MIT", 0o644)]);
    let whl = wheel(&[
        ("tool.sh", b"echo \"tool ran with root $1\"\n", 0o644),
        (
            "fake_tool-2.0.dist-info/METADATA",
            b"Name: fake-tool\n",
            0o644,
        ),
    ]);
    let (base, requests) = serve_http(|b| registry(b, &tarball, None, &whl));
    // The program fails unless both launchers work inside the sandbox.
    let program = format!("tool | grep -q 'tool ran with root /' || exit 3\necho '{answer}'\n");
    let f = Fixture::new(ENTRY, &[("nc.sh", &program)]);
    let home = f.path();
    let languages = f.languages();
    let lb = |args: &[&str]| langbench_with(home, &base, args);
    let list = || {
        let o = lb(&["list", "fake", "--json", "--languages", &languages]);
        assert!(o.status.success(), "{}", text(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v.as_array().map_or(v.clone(), |a| a[0].clone())
    };
    assert_eq!(list()["installed"], false);
    assert_eq!(requests.load(Ordering::SeqCst), 0, "list fetched something");

    // A dry run says what it would do, and that it did nothing (issue
    // #64: it printed `ok` lines and "1 of 1 ... installed").
    let o = lb(&[
        "toolchains",
        "install",
        "--dry-run",
        "--languages",
        &languages,
    ]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("would   fake "), "{out}");
    assert!(!out.contains("ok      fake"), "{out}");
    assert!(
        out.contains(
            "1 of 1 variants' toolchains would be installed (a dry run: nothing was), 0 would fail"
        ),
        "{out}"
    );
    assert!(entries(&home.join("toolchains")).is_empty(), "{out}");

    let o = lb(&["toolchains", "install", "--languages", &languages]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains(
            "dist: npm fake-rt@1.0.0, PyPI fake_tool-2.0-py3-none-any.whl (checksums verified)"
        ),
        "{out}"
    );
    let tc = home.join("toolchains");
    let names = entries(&tc);
    assert_eq!(
        names.len(),
        1,
        "one directory, nothing half-built: {names:?}"
    );
    assert!(names[0].starts_with("fake-rt-1.0.0-"), "{names:?}");
    let dir = tc.join(&names[0]);
    // list --json gives the environment a run gets: the launchers first on
    // PATH (what benches/fidelity.py runs the commands by hand with).
    let path = list()["env"]["PATH"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        path.starts_with(&format!("{}:", dir.join("bin").display())),
        "{path}"
    );
    assert_eq!(
        std::fs::read_link(dir.join("bin/rt")).unwrap(),
        Path::new("../fake-rt/bin/rt"),
        "a one-path launcher is a link (no shell in front of the runtime)"
    );
    let script = std::fs::read_to_string(dir.join("bin/tool")).unwrap();
    assert!(
        script.starts_with("#!/bin/sh\n") && script.contains("exec /bin/sh"),
        "{script}"
    );
    let record = std::fs::read_to_string(dir.join("dist.txt")).unwrap();
    assert!(
        record.contains(&format!("sha512:{}", {
            sha2::Sha512::digest(&tarball)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        })) && record.contains(&format!("sha256:{}", sha256_hex(&whl))),
        "{record}"
    );
    let v = list();
    assert_eq!(v["installed"], true, "{v}");
    assert_eq!(v["version"], "1.0.0", "{v}");

    // A real run: the launchers are found on PATH in the sandbox.
    let o = lb(&[
        "run",
        "--languages",
        &languages,
        "--size",
        "tiny",
        "--runs",
        "1",
        "--out",
        &f.out(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let runs = f.runs();
    assert_eq!(runs[0]["status"], "ok", "{:?}\n{}", runs[0], text(&o));

    // A second install fetches nothing and changes nothing.
    let before = requests.load(Ordering::SeqCst);
    let o = lb(&["toolchains", "install", "--languages", &languages]);
    assert!(
        o.status.success() && text(&o).contains("already installed"),
        "{}",
        text(&o)
    );
    assert_eq!(
        requests.load(Ordering::SeqCst),
        before,
        "a second install fetched"
    );
    assert_eq!(entries(&tc), names);

    // A changed table installs beside the old one; prune removes the old.
    std::fs::write(
        &languages,
        ENTRY.replace("tool = ", "tool2 = \"/bin/true\", tool = "),
    )
    .unwrap();
    let o = lb(&["toolchains", "install", "--languages", &languages]);
    let out = text(&o);
    assert!(
        o.status.success() && out.contains("note: 1 directory,"),
        "{out}"
    );
    assert_eq!(entries(&tc).len(), 2);
    let o = lb(&["toolchains", "prune", "--languages", &languages]);
    let out = text(&o);
    assert!(out.contains(&format!("removed {}", dir.display())), "{out}");
    let left = entries(&tc);
    assert_eq!(left.len(), 1);
    assert_ne!(left, names);
    assert_eq!(
        list()["installed"],
        true,
        "prune removed the toolchain in use"
    );
}

#[test]
fn a_wrong_checksum_or_a_hostile_archive_installs_nothing() {
    let tarball = tgz(&[("bin/rt", RUNTIME, 0o755)]);
    let whl = wheel(&[("tool.sh", b"echo tool\n", 0o644)]);
    let f = Fixture::new(ENTRY, &[("nc.sh", "")]);
    let install = |base: &str| {
        langbench_with(
            f.path(),
            base,
            &["toolchains", "install", "--languages", &f.languages()],
        )
    };
    // The registry claims another file's digest: the download is refused.
    let (base, _) = serve_http(|b| registry(b, &tarball, Some(sha512_integrity(b"other")), &whl));
    let o = install(&base);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("FAILED  fake")
            && out.contains("checksum mismatch for")
            && out.contains("fake-rt-1.0.0.tgz")
            && out.contains("nothing was installed"),
        "{out}"
    );
    assert_eq!(entries(&f.path().join("toolchains")), Vec::<String>::new());

    // A tarball whose member climbs out of the package, with the right
    // digest: refused, and nothing is written outside.
    let outside = f.path().join("toolchains/escaped");
    let hostile = tgz(&[
        ("../../escaped", b"pwned", 0o755),
        ("bin/rt", RUNTIME, 0o755),
    ]);
    let (base, _) = serve_http(|b| registry(b, &hostile, None, &whl));
    let o = install(&base);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("not a plain relative path") && out.contains("refused"),
        "{out}"
    );
    assert!(!outside.exists() && !f.path().join("escaped").exists());
    assert_eq!(entries(&f.path().join("toolchains")), Vec::<String>::new());
}

/// Hostile specs (options, URLs, paths, ranges; a launcher outside the
/// toolchain) are refused when the file is read, with its line, by
/// `check` and by `toolchains install`; no registry is asked and nothing
/// runs on the host (a launcher command is never run by the install).
#[test]
fn hostile_dist_specs_are_refused_with_the_line_and_nothing_runs() {
    let (base, requests) = serve_http(|_| Vec::new());
    let mark = tempfile::tempdir().unwrap();
    let pwned = mark.path().join("pwned");
    let p = pwned.display();
    for (table, want) in [
        (
            format!("npm = [\"-oDPkg::Pre-Invoke::=touch {p}@1.0.0\"]"),
            "not a registry name",
        ),
        (
            "npm = [\"--registry=http://127.0.0.1:1/@1.0.0\"]".into(),
            "not a registry name",
        ),
        (
            "npm = [\"https://evil.example/x.tgz\"]".into(),
            "no exact version",
        ),
        ("npm = [\"file:../x@1.0.0\"]".into(), "not a registry name"),
        ("npm = [\"../../x@1.0.0\"]".into(), "not a registry name"),
        ("npm = [\"fake-rt@^1.0.0\"]".into(), "not an exact version"),
        ("npm = [\"fake-rt@latest\"]".into(), "not an exact version"),
        (
            "pypi = [\"--index-url=http://127.0.0.1:1/x-1-py3-none-any.whl\"]".into(),
            "no URL, path or option",
        ),
        (
            "pypi = [\"../x-1-py3-none-any.whl\"]".into(),
            "no URL, path or option",
        ),
        ("pypi = [\"fake-tool==2.0\"]".into(), "not a .whl file name"),
    ] {
        let toml = format!(
            "[variant.fake]\nlanguage = \"Sh\"\nrun = \"rt {{src}} {{n}}\"\nprograms = {{ num-comb = \"nc.sh\" }}\n\n[variant.fake.install.dist]\n{table}\nbin = {{ rt = \"{{home}}/x/rt\" }}\n"
        );
        let f = Fixture::new(&toml, &[("nc.sh", "")]);
        for args in [
            vec!["check", "--languages", &f.languages()],
            vec!["toolchains", "install", "--languages", &f.languages()],
        ] {
            let o = langbench_with(f.path(), &base, &args);
            let out = text(&o);
            assert!(!o.status.success(), "{table} accepted by {args:?}: {out}");
            assert!(
                out.contains("languages.toml:6:") && out.contains(want),
                "{table}: {out}"
            );
        }
    }
    // A launcher that names a file outside the toolchain, and one whose
    // command would touch the host: the first is refused; the second is
    // written at install but never run there.
    let f = Fixture::new(
        &ENTRY.replace("{home}/fake-rt/bin/rt", "{home}/../../../bin/sh"),
        &[("nc.sh", "")],
    );
    let o = langbench_with(f.path(), &base, &["check", "--languages", &f.languages()]);
    assert!(
        !o.status.success() && text(&o).contains("must name a file inside the toolchain"),
        "{}",
        text(&o)
    );
    assert_eq!(
        requests.load(Ordering::SeqCst),
        0,
        "a hostile spec reached the registry"
    );
    let tarball = tgz(&[("bin/rt", RUNTIME, 0o755)]);
    let whl = wheel(&[("tool.sh", b"echo tool\n", 0o644)]);
    let (base, _) = serve_http(|b| registry(b, &tarball, None, &whl));
    let f = Fixture::new(
        &ENTRY.replace(
            "/bin/sh {home}/fake-tool/tool.sh {root}",
            &format!("/usr/bin/touch {p}"),
        ),
        &[("nc.sh", "")],
    );
    let o = langbench_with(
        f.path(),
        &base,
        &["toolchains", "install", "--languages", &f.languages()],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(!pwned.exists(), "the install ran a launcher on the host");
}
