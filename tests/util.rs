//! Helpers shared by the integration tests: the built binary, throwaway
//! languages files and their entries (`Entry`: the long form; `Variant`:
//! the short form contributors write), and a look at /proc for processes
//! left behind.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

pub(crate) fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_langbench"))
}

pub(crate) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub(crate) fn langbench(args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .output()
        .expect("langbench runs")
}

/// MAVEN_OPTS for a test's own Maven: its local repository and its own
/// `user.home` under `dir`, so the real ~/.m2/settings.xml is not read
/// (row 8 of the attack tests plants an unparseable one there while it
/// runs, and a fresh machine has none).
pub(crate) fn maven_opts(dir: &std::path::Path) -> String {
    format!(
        "-Duser.home={} -Dmaven.repo.local={}",
        dir.display(),
        dir.join("m2").display()
    )
}

pub(crate) fn text(o: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// One `[[variant]]` entry of a throwaway languages file. Defaults: a
/// shell program for num-comb, `programs/num-comb/<id>.sh`, run as
/// `sh {src} {n}`, needing `sh`, language = the id capitalized, flags
/// `sh <id>`, version 1.0 (from `sh -c 'echo 1.0'`, no probe of a real
/// toolchain). A test sets only what differs.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    id: String,
    language: String,
    flags: String,
    needs: Vec<String>,
    version: String,
    run: String,
    env: Vec<(String, String)>,
    programs: Vec<(String, String)>,
    install: Option<String>,
    prepare: Option<String>,
}

impl Entry {
    pub(crate) fn sh(id: &str) -> Entry {
        let mut c = id.chars();
        let language = c
            .next()
            .map(|f| f.to_uppercase().chain(c).collect())
            .unwrap_or_default();
        Entry {
            id: id.into(),
            language,
            flags: format!("sh {id}"),
            needs: vec!["sh".into()],
            version: "sh -c 'echo 1.0'".into(),
            run: "sh {src} {n}".into(),
            env: Vec::new(),
            programs: vec![("num-comb".into(), format!("programs/num-comb/{id}.sh"))],
            install: None,
            prepare: None,
        }
    }
    pub(crate) fn language(mut self, language: &str) -> Entry {
        self.language = language.into();
        self
    }
    pub(crate) fn flags(mut self, flags: &str) -> Entry {
        self.flags = flags.into();
        self
    }
    /// What it needs on PATH (empty: derived from the commands).
    pub(crate) fn needs(mut self, needs: &[&str]) -> Entry {
        self.needs = needs.iter().map(|s| s.to_string()).collect();
        self
    }
    /// The version its probe prints.
    pub(crate) fn version(mut self, version: &str) -> Entry {
        self.version = format!("sh -c 'echo {version}'");
        self
    }
    /// The version probe's command.
    pub(crate) fn version_command(mut self, command: &str) -> Entry {
        self.version = command.into();
        self
    }
    pub(crate) fn run(mut self, template: &str) -> Entry {
        self.run = template.into();
        self
    }
    pub(crate) fn env(mut self, key: &str, value: &str) -> Entry {
        self.env.push((key.into(), value.into()));
        self
    }
    /// The num-comb program's path (replacing the default).
    pub(crate) fn program(mut self, path: &str) -> Entry {
        self.programs = vec![("num-comb".into(), path.into())];
        self
    }
    /// The `install` table, as TOML (`{ apt = ["x"] }`).
    pub(crate) fn install(mut self, table: &str) -> Entry {
        self.install = Some(table.into());
        self
    }

    /// An untimed `prepare` command.
    pub(crate) fn prepare(mut self, command: &str) -> Entry {
        self.prepare = Some(command.into());
        self
    }

    /// The entry as TOML (a blank line after it).
    pub(crate) fn toml(&self) -> String {
        let q = |s: &str| toml_quote(s);
        let mut t = format!(
            "[[variant]]\nid = {}\nlanguage = {}\nflags = {}\n",
            q(&self.id),
            q(&self.language),
            q(&self.flags)
        );
        if !self.needs.is_empty() {
            let needs: Vec<String> = self.needs.iter().map(|n| q(n)).collect();
            t.push_str(&format!("needs = [{}]\n", needs.join(", ")));
        }
        t.push_str(&format!(
            "version = {}\nrun = {}\n",
            q(&self.version),
            q(&self.run)
        ));
        if !self.env.is_empty() {
            let env: Vec<String> = self
                .env
                .iter()
                .map(|(k, v)| format!("{k} = {}", q(v)))
                .collect();
            t.push_str(&format!("env = {{ {} }}\n", env.join(", ")));
        }
        let programs: Vec<String> = self
            .programs
            .iter()
            .map(|(b, p)| format!("{b} = {}", q(p)))
            .collect();
        t.push_str(&format!("programs = {{ {} }}\n", programs.join(", ")));
        if let Some(p) = &self.prepare {
            t.push_str(&format!("prepare = {}\n", q(p)));
        }
        if let Some(i) = &self.install {
            t.push_str(&format!("install = {i}\n"));
        }
        t.push('\n');
        t
    }
}

/// A languages file of these entries.
pub(crate) fn languages_toml(entries: &[Entry]) -> String {
    entries.iter().map(Entry::toml).collect()
}

/// One `[variant.ID]` table of a languages file in the short form a
/// contributor writes (only what differs from the conventions; `Entry` is
/// the long `[[variant]]` form with every field), its fields in the order
/// they are set, so a test can name the line a message points at.
#[derive(Debug, Clone)]
pub(crate) struct Variant {
    id: String,
    fields: Vec<(String, String)>,
}

impl Variant {
    /// A table with no field yet.
    pub(crate) fn new(id: &str) -> Variant {
        Variant {
            id: id.into(),
            fields: Vec::new(),
        }
    }

    /// `language = "Shell"`, `flags = "sh"`: its run is the convention's
    /// `sh {src} {n}`.
    pub(crate) fn shell(id: &str) -> Variant {
        Variant::new(id).set("language", "Shell").set("flags", "sh")
    }

    /// A string field.
    pub(crate) fn set(self, key: &str, value: &str) -> Variant {
        self.raw(key, &toml_quote(value))
    }

    /// A field whose value is TOML as written (`install`, `files`).
    pub(crate) fn raw(mut self, key: &str, toml: &str) -> Variant {
        self.fields.push((key.into(), toml.into()));
        self
    }

    /// A list of strings (`needs`).
    pub(crate) fn list(self, key: &str, values: &[&str]) -> Variant {
        let values: Vec<String> = values.iter().map(|v| toml_quote(v)).collect();
        self.raw(key, &format!("[{}]", values.join(", ")))
    }

    /// `programs = { BENCH = "PATH", ... }`.
    pub(crate) fn programs(self, programs: &[(&str, &str)]) -> Variant {
        let programs: Vec<String> = programs
            .iter()
            .map(|(b, p)| format!("{b} = {}", toml_quote(p)))
            .collect();
        self.raw("programs", &format!("{{ {} }}", programs.join(", ")))
    }

    /// `install = { apt = [...] }`.
    pub(crate) fn apt(self, packages: &[&str]) -> Variant {
        let packages: Vec<String> = packages.iter().map(|p| toml_quote(p)).collect();
        self.raw("install", &format!("{{ apt = [{}] }}", packages.join(", ")))
    }

    /// The table as TOML.
    pub(crate) fn toml(&self) -> String {
        let mut t = format!("[variant.{}]\n", self.id);
        for (k, v) in &self.fields {
            t.push_str(&format!("{k} = {v}\n"));
        }
        t
    }
}

/// Tables of the short form, a blank line between two.
pub(crate) fn short_toml(variants: &[Variant]) -> String {
    variants
        .iter()
        .map(Variant::toml)
        .collect::<Vec<_>>()
        .join("\n")
}

/// A TOML basic string.
fn toml_quote(s: &str) -> String {
    toml::Value::String(s.into()).to_string()
}

/// A directory with a languages.toml and program files.
pub(crate) struct Fixture {
    pub dir: tempfile::TempDir,
}

impl Fixture {
    pub(crate) fn new(toml: &str, files: &[(&str, &str)]) -> Fixture {
        Fixture::new_in(&std::env::temp_dir(), toml, files)
    }

    /// A fixture under `parent` (a checkout outside /tmp, which the
    /// sandbox covers), world-readable as a git clone is.
    pub(crate) fn new_in(parent: &Path, toml: &str, files: &[(&str, &str)]) -> Fixture {
        let dir = tempfile::tempdir_in(parent).unwrap();
        std::fs::write(dir.path().join("languages.toml"), toml).unwrap();
        for (name, body) in files {
            let p = dir.path().join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, body).unwrap();
        }
        Fixture { dir }
    }

    pub(crate) fn languages(&self) -> String {
        self.dir.path().join("languages.toml").display().to_string()
    }

    pub(crate) fn out(&self) -> String {
        self.dir.path().join("results").display().to_string()
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The arguments of `langbench run` on this fixture at tiny size, one
    /// run per cell, into `out()`, then `extra`.
    pub(crate) fn run_args(&self, extra: &[&str]) -> Vec<String> {
        self.run_args_with_runs("1", extra)
    }

    /// `run_args` with `runs` runs per cell (`3`, `auto`).
    pub(crate) fn run_args_with_runs(&self, runs: &str, extra: &[&str]) -> Vec<String> {
        let mut args: Vec<String> = [
            "run",
            "--languages",
            &self.languages(),
            "--size",
            "tiny",
            "--runs",
            runs,
            "--out",
            &self.out(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    }

    /// `langbench run` on this fixture (`run_args`).
    pub(crate) fn run(&self, extra: &[&str]) -> Output {
        self.run_with_runs("1", extra)
    }

    /// `langbench run` on this fixture with `runs` runs per cell
    /// (`run_args_with_runs`).
    pub(crate) fn run_with_runs(&self, runs: &str, extra: &[&str]) -> Output {
        Command::new(bin())
            .args(self.run_args_with_runs(runs, extra))
            .output()
            .expect("langbench runs")
    }

    /// runs.csv as (header -> value) maps.
    pub(crate) fn runs(&self) -> Vec<std::collections::HashMap<String, String>> {
        read_csv(&self.dir.path().join("results/runs.csv"))
    }
}

/// A CSV file as (header -> value) maps, one per row.
pub(crate) fn read_csv(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let headers = r.headers().unwrap().clone();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            headers
                .iter()
                .zip(rec.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// Pids of live processes whose environment holds `marker`.
pub(crate) fn processes_with_env(marker: &str) -> Vec<i32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
            continue;
        };
        let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| {
                s.rsplit_once(')')
                    .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
            })
            .unwrap_or(true);
        if !zombie && env.split(|&b| b == 0).any(|kv| kv == marker.as_bytes()) {
            out.push(pid);
        }
    }
    out
}

/// A unique KEY=VALUE to tag the processes of one test.
pub(crate) fn marker(name: &str) -> (String, String) {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    (
        "LANGBENCH_TEST_MARKER".to_string(),
        format!("{name}-{}-{nanos}", std::process::id()),
    )
}

/// The right answer of num-comb at tiny size (N = 1,000), printed from the
/// N it is given: the answer written out in a prepared copy is a
/// remembered answer (issue #59, row 6).
pub(crate) const RIGHT: &str = "print('0 1', *(__import__('sys').argv[1:2] or [1000]))";

/// A languages file with one python3 variant per (hostile) program, at
/// `programs/<id>.py`, each tagged with `marker` in its environment.
pub(crate) fn python_fixture(marker: &str, programs: &[(&str, String)]) -> Fixture {
    let mut toml = String::new();
    let mut files = Vec::new();
    for (id, body) in programs {
        let entry = Entry::sh(id)
            .language(id)
            .flags(&format!("python3 {id}"))
            .needs(&["python3"])
            .version_command("python3 --version")
            .run("python3 {src} {n}")
            .env("LANGBENCH_TEST_MARKER", marker)
            .program(&format!("programs/{id}.py"));
        toml.push_str(&entry.toml());
        files.push((format!("programs/{id}.py"), body.clone()));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    Fixture::new(&toml, &files)
}

/// A JSON-lines file (runs.jsonl, references.jsonl, sessions.jsonl) as
/// JSON values, in file order.
pub(crate) fn jsonl(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

pub(crate) fn records(f: &Fixture) -> HashMap<String, serde_json::Value> {
    std::fs::read_to_string(f.path().join("results/runs.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|r| (r["variant"].as_str().unwrap().to_string(), r))
        .collect()
}

pub(crate) fn assert_nothing_left(marker: &str) {
    // The namespace dies with its init; give the kernel a moment to reap.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left = processes_with_env(&format!("LANGBENCH_TEST_MARKER={marker}"));
        if left.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "left behind: {left:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A static HTTP server on 127.0.0.1 (a real socket, real HTTP/1.1, one
/// connection at a time) for the fake registries of the install tests
/// (Maven repositories, npm, PyPI): `files(base)` are its paths and bodies,
/// `base` being its own URL (`http://127.0.0.1:PORT`, so metadata can
/// point at its archives). A known path is answered 200 (its body to GET
/// only, so HEAD gets the headers), any other 404. Returns `base` and the
/// count of requests it got.
pub(crate) fn serve_http(
    files: impl FnOnce(&str) -> Vec<(String, Vec<u8>)>,
) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{BufRead, BufReader, Write};
    use std::sync::atomic::Ordering;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let files = files(&base);
    let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = count.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            seen.fetch_add(1, Ordering::SeqCst);
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            // Skip the headers.
            let mut h = String::new();
            while reader.read_line(&mut h).is_ok_and(|n| n > 2) {
                h.clear();
            }
            let mut words = line.split_whitespace();
            let (method, path) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
            let mut stream = stream;
            match files.iter().find(|(p, _)| p == path) {
                Some((_, body)) => {
                    let _ = write!(
                        stream,
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    if method == "GET" {
                        let _ = stream.write_all(body);
                    }
                }
                None => {
                    let _ = write!(
                        stream,
                        "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    );
                }
            }
        }
    });
    (base, count)
}

/// A root-only helper (`python3 -c REFUSE_USERNS EXE ARGS...`) that runs
/// EXE as `nobody` inside a user namespace whose user.max_user_namespaces
/// is 0: the kernel then refuses EXE any namespace of its own, as where
/// unprivileged user namespaces are off. Nothing on the host changes.
pub(crate) const REFUSE_USERNS: &str = r#"
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
r, w = os.pipe(); r2, w2 = os.pipe()
pid = os.fork()
if pid == 0:
    if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
        os._exit(90)
    os.write(w, b"x"); os.read(r2, 1)
    open("/proc/sys/user/max_user_namespaces", "w").write("0")
    os.setgroups([]); os.setresgid(65534, 65534, 65534); os.setresuid(65534, 65534, 65534)
    os.execv(sys.argv[1], sys.argv[1:])
os.read(r, 1)
for m in ("uid_map", "gid_map"):
    open(f"/proc/{pid}/{m}", "w").write("0 0 65536")
os.write(w2, b"x")
_, st = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(st))
"#;

/// Runs `cmd` with its stdout and stderr on a pseudo-terminal of `cols`
/// columns (stdin: nothing), as a person's terminal shows it: its exit
/// status and every byte it wrote there, escape codes included.
pub(crate) fn in_pty(mut cmd: Command, cols: u16) -> (std::process::ExitStatus, String) {
    use std::io::Read;
    use std::os::fd::{FromRawFd, OwnedFd};
    let (mut master, mut slave) = (0, 0);
    let size = libc::winsize {
        ws_row: 40,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two descriptors, which are then owned here.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: openpty succeeded: both descriptors are open and owned by
    // nothing else.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut child = cmd
        .stdin(std::process::Stdio::null())
        .stdout(slave.try_clone().unwrap())
        .stderr(slave)
        .env("TERM", "xterm-256color")
        .spawn()
        .unwrap();
    drop(cmd);
    let reader = std::thread::spawn(move || {
        let mut f = std::fs::File::from(master);
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        // EIO once every writer of the terminal has closed it.
        while let Ok(n) = f.read(&mut buf) {
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        out
    });
    let status = child.wait().unwrap();
    let out = reader.join().unwrap();
    (status, String::from_utf8_lossy(&out).into_owned())
}

/// What a terminal shows of `raw` line by line: escape codes removed,
/// each line split where a carriage return redraws it.
pub(crate) fn drawn_lines(raw: &str) -> Vec<String> {
    raw.split(['\n', '\r'])
        .map(|l| String::from_utf8_lossy(&strip_ansi_escapes::strip(l)).into_owned())
        .filter(|l| !l.trim().is_empty())
        .collect()
}
