//! Issue #9: hostile programs against the containment. Each program here is
//! what a contributor's pull request could hide in a benchmark; each test
//! fails if the kernel-enforced containment stops holding. Real processes,
//! run through `langbench run` / `list` as a maintainer would.

use std::time::{Duration, Instant};

use crate::util::*;

/// Attacks 1–3: leave the process group, kill the supervisor, outrun the
/// sweep. Each is killed at the timeout (or when the command ends) with
/// everything it started, and a fork-walker is never a plain `ok`.
#[test]
fn no_program_outlives_its_run_whatever_group_or_parent_it_picks() {
    let (_, m) = marker("escape");
    let join_supervisor_group = "import os, time\n\
        try:\n    os.setpgid(0, os.getpgid(os.getppid()))\nexcept OSError:\n    pass\n\
        while True:\n    time.sleep(1)\n"
        .to_string();
    // Kill everything it can see but itself (its supervisor included), keep
    // stdout open, and spin.
    let kill_supervisor = "import os, signal, time\n\
        for p in os.listdir('/proc'):\n    \
        if p.isdigit() and int(p) != os.getpid():\n        \
        for s in (signal.SIGKILL, signal.SIGSTOP):\n            \
        try: os.kill(int(p), s)\n            except OSError: pass\n\
        try: os.kill(os.getppid(), signal.SIGKILL)\nexcept OSError: pass\n\
        while True:\n    time.sleep(1)\n"
        .to_string();
    // Fork, parent exits, child forks again: never more than 2 alive. Prints
    // the right answer first, so only containment can tell it apart.
    let fork_walker = format!(
        "import os, sys, time\n{RIGHT}\nsys.stdout.flush()\nos.close(1)\n\
         while True:\n    if os.fork() > 0:\n        os._exit(0)\n    time.sleep(0.001)\n"
    );
    // A daemon (double fork) left idle: legitimate helpers do this (Erlang's
    // epmd); a note, not a flag.
    let daemon = format!(
        "import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        \
         os.close(1)\n        time.sleep(60)\n    os._exit(0)\nos.wait()\n{RIGHT}\n"
    );
    let f = python_fixture(
        &m,
        &[
            ("pgid", join_supervisor_group),
            ("killer", kill_supervisor),
            ("walker", fork_walker),
            ("daemon", daemon),
        ],
    );
    let t = Instant::now();
    let o = f.run(&["--timeout", "2"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(t.elapsed() < Duration::from_secs(60), "{:?}", t.elapsed());
    let recs = records(&f);
    for id in ["pgid", "killer"] {
        assert_eq!(recs[id]["status"], "timeout", "{id}: {}", recs[id]);
        let wall = recs[id]["wall_s"].as_f64().unwrap();
        assert!((2.0..5.0).contains(&wall), "{id}: wall {wall}");
    }
    // The walker is dead with its namespace (the sweep of old missed it in
    // 1 run of 3), and it is flagged, not a plain ok: its note names the
    // tree's figures.
    let walker = &recs["walker"];
    assert_eq!(walker["status"], "escaped", "{walker}");
    let detail = walker["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("fork-walker"), "{walker}");
    assert!(detail.contains("tree_cpu_s"), "{walker}");
    assert!(detail.contains("still running when it exited"), "{walker}");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("ESCAPED"), "{stdout}");
    let daemon = &recs["daemon"];
    assert_eq!(daemon["status"], "ok", "{daemon}");
    assert!(
        daemon["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("1 process(es) still running"),
        "{daemon}"
    );
    assert_nothing_left(&m);
}

/// Attack 4: CPU and memory spent in a child that is never waited for are
/// in the tree's figures, and the run is flagged, not a plain number.
#[test]
fn work_hidden_in_an_unwaited_child_is_counted_and_flagged() {
    let (_, m) = marker("hidden");
    // The child says when it is done through a pipe: the parent never
    // waits for it (no wait4), whatever the machine's load.
    let hidden = format!(
        "import os, time\n\
         r, w = os.pipe()\n\
         if os.fork() == 0:\n    \
         b = b'x' * (500 << 20)\n    \
         t = time.process_time()\n    \
         while time.process_time() - t < 1.0: pass\n    \
         os.write(w, b'.')\n    \
         os._exit(0)\n\
         os.read(r, 1)\n{RIGHT}\n"
    );
    let f = python_fixture(&m, &[("hidden", hidden)]);
    let o = f.run(&["--timeout", "60"]);
    assert!(o.status.success(), "{}", text(&o));
    let r = &records(&f)["hidden"];
    assert_eq!(r["status"], "escaped", "{r}");
    let own_rss = r["max_rss_kb"].as_u64().unwrap();
    let tree_rss = r["tree_max_rss_kb"].as_u64().unwrap();
    let own_cpu = r["user_s"].as_f64().unwrap() + r["sys_s"].as_f64().unwrap();
    let tree_cpu = r["tree_cpu_s"].as_f64().unwrap();
    assert!(own_rss < 100 << 10, "{r}");
    assert!(tree_rss > 450 << 10, "{r}");
    assert!(own_cpu < 0.6 && tree_cpu > 0.9, "{r}");
    let detail = r["detail"].as_str().unwrap();
    assert!(detail.contains("did not wait for used CPU"), "{detail}");
    assert!(detail.contains("tree_max_rss_kb"), "{detail}");
    assert!(detail.contains("did not wait for peaked at"), "{detail}");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("ESCAPED"), "{stdout}");
}

/// Attack 5: the program cannot see langbench's command line or results
/// directory, cannot write outside its build directory (nor poison the
/// toolchain caches), has no network and a clean environment. It prints the
/// right answer only if every attempt failed, and says which one worked
/// otherwise.
#[test]
fn the_sandbox_hides_the_results_and_the_machine() {
    let (_, m) = marker("sandbox");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let home = std::env::var("HOME").unwrap();
    let f = python_fixture(&m, &[("probe", String::new())]);
    let results = f.path().join("results");
    // A secret in the maintainer's real home (removed again at the end).
    struct Remove(std::path::PathBuf);
    impl Drop for Remove {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
    let secret = Remove(std::path::Path::new(&home).join(format!(".langbench-secret-{m}")));
    std::fs::write(&secret.0, "token").unwrap();
    std::fs::create_dir_all(&results).unwrap();
    let probe = format!(
        r#"import os, socket, sys
won = []
for p in os.listdir('/proc'):
    if p.isdigit():
        try:
            cmd = open(f'/proc/{{p}}/cmdline', 'rb').read()
        except OSError:
            continue
        if b'--out' in cmd or b'{results}' in cmd or b'__spawn' in cmd:
            won.append('saw the command line of ' + p)
if os.path.exists('{secret}'):
    won.append('read the real home')
for d in ['{home}', '/root', '/home']:
    try:
        for e in os.listdir(d):
            if e not in ('.cargo', '.rustup', '.pyenv', 'go', '.cache', '.m2', '.gradle', '.npm', '.nimble', '.julia', '.dotnet', '.ghcup', '.cabal', '.stack', '.local', '.bun', '.deno'):
                won.append('listed ' + d + '/' + e)
    except OSError:
        pass
for target in ['{results}/runs.jsonl', '{root}/forged', '/tmp/../{root}/x', '{home}/.cache/go-build/langbench-poison', os.path.expanduser('~/.cache/go-build/langbench-poison')]:
    try:
        with open(target, 'a') as f:
            f.write('{{"forged": true}}\n')
        if not target.startswith(os.path.expanduser('~')):
            won.append('wrote ' + target)
    except OSError:
        pass
if os.path.exists('{results}/sessions.jsonl'):
    won.append('saw the results directory')
try:
    socket.create_connection(('127.0.0.1', {port}), timeout=2)
    won.append('reached the host network')
except OSError:
    pass
if os.environ.get('LANGBENCH_TEST_SECRET'):
    won.append('saw the environment')
if os.environ.get('HOME', '').startswith('{home}'):
    won.append('HOME is the real one')
print('; '.join(won) if won else '0 1 1000')
"#,
        results = results.display(),
        root = f.path().display(),
        home = home,
        secret = secret.0.display(),
    );
    std::fs::write(f.path().join("programs/probe.py"), probe).unwrap();
    let o = std::process::Command::new(bin())
        .args(f.run_args(&["--timeout", "60"]))
        .env("LANGBENCH_TEST_SECRET", "x")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let r = &records(&f)["probe"];
    assert_eq!(r["status"], "ok", "{r}");
    let runs = std::fs::read_to_string(results.join("runs.jsonl")).unwrap();
    assert!(!runs.contains("forged"), "{runs}");
    assert!(!f.path().join("forged").exists());
    // The cache overlay took the write and threw it away.
    assert!(
        !std::path::Path::new(&home)
            .join(".cache/go-build/langbench-poison")
            .exists()
    );
    drop(listener);
    let session = std::fs::read_to_string(results.join("sessions.jsonl")).unwrap();
    assert!(
        session.contains("\"containment\":\"PID + mount namespace"),
        "{session}"
    );
}

/// Attack 5, version probes: `langbench list` runs every entry's `version`
/// command, in the same sandbox: it cannot write anywhere that stays.
#[test]
fn listing_a_hostile_entry_runs_its_probe_in_the_sandbox() {
    let (_, m) = marker("list");
    let f = python_fixture(&m, &[]);
    let pwned = f.path().join("pwned");
    let toml = Entry::sh("probe")
        .version_command(&format!(
            "sh -c 'touch {} || true; echo 1.2'",
            pwned.display()
        ))
        .program("x.sh")
        .toml();
    std::fs::write(f.path().join("languages.toml"), toml).unwrap();
    std::fs::write(f.path().join("x.sh"), "").unwrap();
    let o = langbench(&["list", "--languages", &f.languages()]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("1.2"),
        "{}",
        text(&o)
    );
    assert!(
        !pwned.exists(),
        "the version probe wrote outside its sandbox"
    );
    // Without the sandbox it would have (proves the probe really ran).
    let o = langbench(&["list", "--no-sandbox", "--languages", &f.languages()]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(pwned.exists());
}

/// Attack 6: a program that eats memory is stopped by `--memory-limit`,
/// recorded as `oom` (not `crashed`), and its cell shows the peak it
/// reached; a crash also keeps its peak.
#[test]
fn memory_limit_kills_the_tree_and_the_cell_shows_its_peak() {
    let (_, m) = marker("oom");
    let eater = "import time\nchunks = []\nwhile True:\n    chunks.append(b'x' * (20 << 20))\n    time.sleep(0.01)\n".to_string();
    let crash = "import os, signal\nb = b'x' * (150 << 20)\nos.kill(os.getpid(), signal.SIGSEGV)\n"
        .to_string();
    let f = python_fixture(&m, &[("eater", eater), ("crash", crash)]);
    let o = f.run(&["--timeout", "60", "--memory-limit", "300"]);
    assert!(o.status.success(), "{}", text(&o));
    let recs = records(&f);
    let r = &recs["eater"];
    assert_eq!(r["status"], "oom", "{r}");
    let peak = r["max_rss_kb"].as_u64().unwrap();
    assert!(peak > 250 << 10 && peak < 1 << 20, "{r}");
    assert_eq!(recs["crash"]["status"], "crashed");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("OOM"), "{stdout}");
    // Both cells show the peak they reached, not '-'.
    let mut csv = csv::Reader::from_path(f.path().join("results/summary.csv")).unwrap();
    let col = csv
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "num_comb_rss_kb")
        .unwrap();
    for row in csv.records().map(Result::unwrap) {
        let kb: u64 = row[col].parse().unwrap_or(0);
        assert!(kb > 140 << 10, "{row:?}");
    }
    assert_nothing_left(&m);
}

/// `--no-sandbox` is recorded, and still measures.
#[test]
fn no_sandbox_is_recorded() {
    let (_, m) = marker("nosandbox");
    let f = python_fixture(&m, &[("plain", format!("{RIGHT}\n"))]);
    let o = f.run(&["--no-sandbox"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(records(&f)["plain"]["status"], "ok");
    let session = std::fs::read_to_string(f.path().join("results/sessions.jsonl")).unwrap();
    assert!(
        session.contains("\"containment\":\"none (--no-sandbox)"),
        "{session}"
    );
}

/// ws servers run sandboxed in a network namespace of their own with only
/// `lo`: the server cannot reach a port langbench's side listens on, yet
/// langbench's load client (its sockets created in the server's namespace)
/// measures it. The fixture corrupts every echo if it reached the host.
#[test]
fn a_ws_server_has_only_its_own_loopback_yet_is_measured() {
    let (_, m) = marker("wsnet");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let toml = format!(
        "[[variant]]\nid = \"ws-fx\"\nlanguage = \"Fixture\"\nlibrary = \"stdlib\"\nflags = \"python3\"\n\
         version = \"python3 --version\"\nrun = \"python3 {{src}} reach-host {{port}}\"\n\
         env = {{ LANGBENCH_TEST_MARKER = \"{m}\", LANGBENCH_TEST_HOST_PORT = \"{port}\" }}\n\
         programs = {{ ws-echo = \"ws_fixture.py\" }}\n"
    );
    let f = Fixture::new(
        &toml,
        &[("ws_fixture.py", include_str!("fixtures/ws_fixture.py"))],
    );
    let o = langbench(&[
        "ws",
        "--languages",
        &f.languages(),
        "--connections",
        "20",
        "--delays",
        "1",
        "--warmup",
        "0.3",
        "--duration",
        "1",
        "--startup-timeout",
        "20",
        "--share-cpus",
        "--out",
        &f.out(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let session = std::fs::read_to_string(f.path().join("results/sessions.jsonl")).unwrap();
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        // Without root the client cannot enter the server's namespace: the
        // server keeps the host's network, and the session says so.
        assert!(
            session.contains("ws servers on the host's network (not root"),
            "{session}"
        );
        return;
    }
    let rec: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(f.path().join("results/ws.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(rec["status"], "ok", "{rec}");
    assert_eq!(rec["opened"], 20, "{rec}");
    let stats = &rec["phases"][0]["stats"];
    assert!(stats["echoes"].as_u64().unwrap() > 100, "{rec}");
    // Nothing reached langbench's side.
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "the server reached the host");
    assert!(
        session.contains("ws servers too, the load client's sockets created in it"),
        "{session}"
    );
    assert_nothing_left(&m);
}

/// A writable cgroup v2 directory for one test, removed at the end: a new
/// directory in the machine's cgroup2 mount (never an existing cgroup).
/// `None` (the test says so and passes) where there is none.
struct TestCgroup(std::path::PathBuf);

impl TestCgroup {
    fn new(name: &str) -> Option<TestCgroup> {
        let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
        let mount = mounts.lines().find_map(|l| {
            let (left, right) = l.split_once(" - ")?;
            right
                .starts_with("cgroup2 ")
                .then(|| left.split(' ').nth(4).map(std::path::PathBuf::from))
                .flatten()
        });
        let Some(mount) = mount else {
            eprintln!("no cgroup2 mount: {name} not tested");
            return None;
        };
        let dir = mount.join(format!("langbench-test-{name}-{}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => Some(TestCgroup(dir)),
            Err(e) => {
                eprintln!("cannot create {}: {e}: {name} not tested", dir.display());
                None
            }
        }
    }

    fn children(&self) -> Vec<String> {
        std::fs::read_dir(&self.0)
            .unwrap()
            .flatten()
            .filter(|e| e.file_type().unwrap().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect()
    }
}

impl Drop for TestCgroup {
    fn drop(&mut self) {
        for _ in 0..100 {
            if std::fs::remove_dir(&self.0).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// A program that prints the right answer only from inside a run cgroup
/// under `base`, after 0.7 s of CPU in a child it never waits for.
fn cgroup_probe(base: &std::path::Path) -> String {
    let name = base.file_name().unwrap().to_string_lossy();
    format!(
        "import os, time\n\
         inside = '/{name}/langbench-' in open('/proc/self/cgroup').read()\n\
         r, w = os.pipe()\n\
         if os.fork() == 0:\n    \
         t = time.process_time()\n    \
         while time.process_time() - t < 0.7: pass\n    \
         os.write(w, b'.')\n    \
         os._exit(0)\n\
         os.read(r, 1)\n\
         print('0 1 1000' if inside else 'not in a run cgroup: ' + open('/proc/self/cgroup').read())\n"
    )
}

fn session_of(f: &Fixture) -> serde_json::Value {
    let s = std::fs::read_to_string(f.path().join("results/sessions.jsonl")).unwrap();
    serde_json::from_str(s.lines().last().unwrap()).unwrap()
}

/// `--cgroup PATH` (cgroup v2): each run's tree is in a child cgroup of
/// PATH (the program checks), its CPU comes from there, the child is
/// removed afterwards, and the session records the method. On this
/// project's machines cgroup v2 has no memory controller (it is bound to
/// cgroup v1), so memory stays sampled, and says so.
#[test]
fn a_given_cgroup_measures_each_run_and_is_left_clean() {
    let Some(cg) = TestCgroup::new("given") else {
        return;
    };
    let (_, m) = marker("cgroup");
    let f = python_fixture(&m, &[("probe", cgroup_probe(&cg.0))]);
    let path = cg.0.display().to_string();
    let o = f.run(&["--timeout", "60", "--cgroup", &path]);
    assert!(o.status.success(), "{}", text(&o));
    let r = &records(&f)["probe"];
    assert_eq!(r["status"], "escaped", "{r}");
    assert!(
        !r["detail"]
            .as_str()
            .unwrap()
            .contains("not in a run cgroup"),
        "{r}"
    );
    assert!(r["tree_cpu_s"].as_f64().unwrap() > 0.6, "{r}");
    assert!(cg.children().is_empty(), "{:?}", cg.children());
    let s = session_of(&f);
    let measure = s["tree_measure"].as_str().unwrap();
    assert!(measure.starts_with("cgroup v2"), "{s}");
    let containment = s["containment"].as_str().unwrap();
    assert!(containment.contains(&path), "{containment}");
    if measure == "cgroup v2 + /proc sampling" {
        assert!(
            containment.contains("no memory controller"),
            "{containment}"
        );
    }
    // A cgroup v1 directory or a plain one is refused, naming it.
    let o = f.run(&["--cgroup", "/tmp"]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--cgroup /tmp: not a cgroup v2 directory"),
        "{}",
        text(&o)
    );
    assert_nothing_left(&m);
}

/// Without `--cgroup`, langbench uses its own cgroup only when that is a
/// delegated v2 subtree (marked `trusted.delegate`, as systemd's
/// `Delegate=yes` marks it): started inside an unmarked cgroup it samples
/// /proc, inside a marked one it makes its run cgroups there.
#[test]
fn a_delegated_own_cgroup_is_used_an_undelegated_one_is_not() {
    let Some(cg) = TestCgroup::new("delegated") else {
        return;
    };
    let (_, m) = marker("delegated");
    let f = python_fixture(&m, &[("probe", cgroup_probe(&cg.0))]);
    let start_inside = |f: &Fixture| {
        let script = format!(
            "echo $$ > {}/cgroup.procs && exec \"$0\" \"$@\"",
            cg.0.display()
        );
        std::process::Command::new("sh")
            .args(["-c", &script])
            .arg(bin())
            .args(f.run_args(&["--timeout", "60"]))
            .output()
            .unwrap()
    };
    let o = start_inside(&f);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(session_of(&f)["tree_measure"], "/proc sampling");
    // (Its hidden CPU makes it `escaped`, which outranks the wrong output;
    // the detail has both.)
    let r = &records(&f)["probe"];
    assert!(
        r["detail"]
            .as_str()
            .unwrap()
            .contains("not in a run cgroup"),
        "{r}"
    );

    let c = std::ffi::CString::new(cg.0.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: setxattr with valid strings and a 1-byte value.
    let r = unsafe {
        libc::setxattr(
            c.as_ptr(),
            c"trusted.delegate".as_ptr(),
            b"1".as_ptr().cast(),
            1,
            0,
        )
    };
    assert_eq!(r, 0, "{}", std::io::Error::last_os_error());
    std::fs::remove_file(f.path().join("results/runs.jsonl")).unwrap();
    let o = start_inside(&f);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        session_of(&f)["tree_measure"]
            .as_str()
            .unwrap()
            .starts_with("cgroup v2"),
        "{}",
        session_of(&f)
    );
    let r = &records(&f)["probe"];
    assert_eq!(r["status"], "escaped", "{r}");
    assert!(
        !r["detail"]
            .as_str()
            .unwrap()
            .contains("not in a run cgroup"),
        "{r}"
    );
    assert!(cg.children().is_empty(), "{:?}", cg.children());
    assert_nothing_left(&m);
}

/// Without root: langbench contains its runs in a user namespace of its
/// own (where the kernel allows unprivileged ones, as Debian's does), and
/// says so in the session; where the kernel refuses, it stops with the
/// reason and runs nothing (never uncontained). Run as `nobody` (setpriv)
/// when the suite runs as root.
#[test]
fn without_root_runs_are_contained_in_a_user_namespace_or_refused() {
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let toml = languages_toml(&[
        Entry::sh("sleeper").language("Shell").program("sleeper.sh"),
        Entry::sh("probe").language("Shell").program("probe.sh"),
    ]);
    let f = Fixture::new(&toml, &[("sleeper.sh", "sleep 30 &\nsleep 30\n")]);
    let forged = f.path().join("forged");
    std::fs::write(
        f.path().join("probe.sh"),
        format!(
            "if touch {} 2>/dev/null || grep -q results /proc/1/cmdline; then echo escaped; else echo 0 1 $1; fi\n",
            forged.display()
        ),
    )
    .unwrap();
    let exe = f.path().join("langbench");
    std::fs::copy(bin(), &exe).unwrap();
    let mut cmd = if root {
        use std::os::unix::fs::PermissionsExt;
        // nobody must reach the fixture (tempdir is 0700, root's).
        std::fs::set_permissions(f.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        for e in std::fs::read_dir(f.path()).unwrap().flatten() {
            std::os::unix::fs::chown(e.path(), Some(65534), Some(65534)).unwrap();
        }
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&exe);
        c
    } else {
        std::process::Command::new(&exe)
    };
    let o = cmd
        .args(f.run_args(&["--timeout", "2"]))
        .env("HOME", f.path())
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .output()
        .unwrap();
    if String::from_utf8_lossy(&o.stderr).contains("the kernel refused langbench's sandbox") {
        eprintln!("unprivileged user namespaces refused here: {}", text(&o));
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(!f.path().join("results/runs.jsonl").exists());
        return;
    }
    assert!(o.status.success(), "{}", text(&o));
    let session = session_of(&f);
    let containment = session["containment"].as_str().unwrap();
    let recs = records(&f);
    assert!(containment.contains("unprivileged (uid"), "{containment}");
    assert_eq!(recs["probe"]["status"], "ok", "{}", recs["probe"]);
    assert!(!forged.exists());
    assert_eq!(recs["sleeper"]["status"], "timeout", "{}", recs["sleeper"]);
    let wall = recs["sleeper"]["wall_s"].as_f64().unwrap();
    assert!((1.9..5.0).contains(&wall), "{wall}");
}

/// Fail closed (issue #37): where the kernel refuses the sandbox, every
/// command that would run a variant's code (`run`, `check`, `list`'s
/// probes, `ws`, `measure`, `toolchains install`) stops before running
/// anything, naming the missing privilege and what to do; `--no-sandbox`
/// still runs, recorded as such; commands that run nothing (`run --plan`)
/// work anywhere. Three real refusals, made without touching the host:
/// root without CAP_SYS_ADMIN (setpriv drops it from the bounding set: a
/// container under its runtime's defaults), root without CAP_NET_ADMIN
/// (the sandbox is made, its loopback cannot come up), and `nobody` in a
/// user namespace whose user.max_user_namespaces is 0 (`REFUSE_USERNS`).
#[test]
fn where_the_kernel_refuses_the_sandbox_nothing_runs_unless_no_sandbox() {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: making the kernel refuse needs root here");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let f = Fixture::new(
        &languages_toml(&[Entry::sh("mark").language("Shell")]),
        &[(
            "programs/num-comb/mark.sh",
            "touch \"$(dirname \"$0\")/../../ran\"; echo 0 1 $1\n",
        )],
    );
    // nobody must reach the fixture and write its results.
    std::fs::set_permissions(f.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    for d in ["", "programs", "programs/num-comb"] {
        std::fs::set_permissions(f.path().join(d), std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    let exe = f.path().join("langbench");
    std::fs::copy(bin(), &exe).unwrap();
    let langs = f.languages();
    let out = f.out();
    let ran = f.path().join("ran");
    let commands: Vec<Vec<&str>> = vec![
        vec![
            "run",
            "--languages",
            &langs,
            "--size",
            "tiny",
            "--runs",
            "1",
            "--out",
            &out,
        ],
        vec!["check", "--languages", &langs],
        vec!["list", "--languages", &langs, "--refresh"],
        vec!["ws", "--languages", &langs, "--out", &out],
        vec!["toolchains", "install", "--languages", &langs],
        vec!["measure", "--", "touch", ran.to_str().unwrap()],
    ];
    let ways: [(&str, Vec<String>, &str); 3] = [
        (
            "root without CAP_SYS_ADMIN",
            [
                "setpriv",
                "--inh-caps=-sys_admin",
                "--bounding-set=-sys_admin",
            ]
            .map(String::from)
            .to_vec(),
            "without CAP_SYS_ADMIN",
        ),
        // The sandbox is made, but its loopback cannot come up.
        (
            "root without CAP_NET_ADMIN",
            [
                "setpriv",
                "--inh-caps=-net_admin",
                "--bounding-set=-net_admin",
            ]
            .map(String::from)
            .to_vec(),
            "without CAP_NET_ADMIN",
        ),
        (
            "nobody, user namespaces refused",
            vec!["python3".into(), "-c".into(), REFUSE_USERNS.into()],
            "user.max_user_namespaces = 0",
        ),
    ];
    for (way, prefix, reason) in &ways {
        let lb = |args: &[&str]| {
            std::process::Command::new(&prefix[0])
                .args(&prefix[1..])
                .arg(&exe)
                .args(args)
                .current_dir(f.path())
                .env("HOME", f.path())
                .output()
                .unwrap()
        };
        for args in &commands {
            let o = lb(args);
            if args[0] == "measure" && reason.contains("NET_ADMIN") {
                // measure makes no network namespace: it runs, contained.
                assert!(o.status.success(), "{way}: {args:?}: {}", text(&o));
                std::fs::remove_file(&ran).unwrap();
                continue;
            }
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{way}: {args:?}: {}", text(&o));
            assert!(
                err.contains("the kernel refused langbench's sandbox")
                    && err.contains("nothing was run")
                    && err.contains(reason)
                    && err.contains("--no-sandbox"),
                "{way}: {args:?}: {}",
                text(&o)
            );
            assert!(!ran.exists(), "{way}: {args:?} ran the program");
            assert!(
                !f.path().join("results/runs.jsonl").exists(),
                "{way}: {args:?}"
            );
        }
        // What runs nothing works anywhere.
        let o = lb(&["run", "--languages", &langs, "--plan", "--out", &out]);
        assert!(o.status.success(), "{way}: {}", text(&o));
        // --no-sandbox runs, and the session says so.
        let mut args = commands[0].clone();
        args.insert(0, "--no-sandbox");
        let o = lb(&args);
        assert!(o.status.success(), "{way}: {}", text(&o));
        assert!(ran.exists(), "{way}: {}", text(&o));
        let session = session_of(&f);
        assert!(
            session["containment"]
                .as_str()
                .unwrap()
                .starts_with("none (--no-sandbox)"),
            "{way}: {session}"
        );
        std::fs::remove_file(&ran).unwrap();
        std::fs::remove_dir_all(f.path().join("results")).unwrap();
    }
}
