//! `langbench check` and `langbench new` end to end: real processes, a real
//! languages file in a temporary directory, a temporary git repository for
//! `--changed-since`.

use std::path::Path;
use std::process::{Command, Output};

use crate::util::*;

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .env_remove("LANGBENCH_LANGUAGES")
        .output()
        .expect("langbench runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The checkout's awk program `path`, without its comments (the shell
/// quotes it), run by awk with N: a correct program that does the work,
/// as `check` asks (its time must grow with N).
fn awk(path: &str) -> String {
    let source = std::fs::read_to_string(repo().join(path)).unwrap();
    let body: Vec<&str> = source
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect();
    let body = body.join("\n");
    assert!(!body.contains('\''), "{body}");
    format!("exec awk '{body}' \"$1\"\n")
}

/// A correct num-comb in sh (the checkout's awk comb sort).
fn num_comb_ok() -> String {
    awk("programs/num-comb/num_comb.awk")
}

/// A correct str-comb in sh (the checkout's awk comb sort).
fn str_comb_ok() -> String {
    awk("programs/str-comb/str_comb.awk")
}

/// A correct assoc in sh: the checkout's awk program.
fn assoc_ok() -> String {
    awk("programs/assoc/assoc.awk")
}

/// A shell variant with the programs `programs` (of `fixture`'s files),
/// installable and with a version: what `check` passes when they are right.
fn shell(id: &str, programs: &[(&str, &str)]) -> Variant {
    Variant::shell(id)
        .programs(programs)
        .apt(&["dash"])
        .set("version", "sh -c 'echo 1.0'")
}

/// sh-good, whose programs are right, then the `extra` text (tables
/// written as a contributor writes them, right or wrong); its files and
/// `extra_files`.
fn fixture(extra: &str, extra_files: &[(&str, &str)]) -> Fixture {
    let good = shell(
        "sh-good",
        &[
            ("num-comb", "programs/num-comb/good.sh"),
            ("str-comb", "programs/str-comb/good.sh"),
        ],
    );
    let (num, string) = (num_comb_ok(), str_comb_ok());
    let mut files = vec![
        ("programs/num-comb/good.sh", num.as_str()),
        ("programs/str-comb/good.sh", string.as_str()),
    ];
    files.extend_from_slice(extra_files);
    Fixture::new(&format!("{}{extra}", good.toml()), &files)
}

/// `fixture` with these tables after sh-good, a blank line before each.
fn fixture_with(extra: &[Variant], extra_files: &[(&str, &str)]) -> Fixture {
    fixture(&format!("\n{}", short_toml(extra)), extra_files)
}

#[test]
fn passes_on_a_good_entry() {
    let f = fixture("", &[]);
    let o = run_in(f.path(), &["check"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(stdout(&o).contains("ok: sh-good"), "{}", text(&o));
    assert!(
        stdout(&o).contains("check: 0 problem(s); 1 variant(s) right"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_broken_entry_is_named_by_line_and_column() {
    // Text no builder writes: an unterminated string, an unknown key.
    let f = fixture(
        "\n[variant.broken]\nlanguage = \"Shell\"\nrun = \"sh {src} {n}\nflags = \"x\"\n",
        &[],
    );
    let o = run_in(f.path(), &["check"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = stdout(&o);
    let first = out.lines().next().unwrap();
    assert!(
        first.starts_with(&format!("{}:10:20: ", f.languages()))
            || first.starts_with("languages.toml:10:20: "),
        "{}",
        text(&o)
    );
    // An unknown field: line and column of the key, and the variant.
    let f = fixture(
        "\n[variant.typo]\nlanguage = \"Shell\"\nflagz = \"sh\"\next = \"sh\"\n",
        &[],
    );
    let o = run_in(f.path(), &["check"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        stdout(&o).starts_with("languages.toml:10:1: "),
        "{}",
        text(&o)
    );
    assert!(stdout(&o).contains("flagz"), "{}", text(&o));
}

#[test]
fn a_repeated_default_fails_with_the_line_to_delete() {
    let f = fixture("", &[]);
    let toml = std::fs::read_to_string(f.languages()).unwrap().replace(
        "flags = \"sh\"\n",
        "flags = \"sh\"\nrun = \"sh {src} {n}\"\n",
    );
    std::fs::write(f.languages(), toml).unwrap();
    let o = run_in(f.path(), &["check"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        stdout(&o).contains(
            "languages.toml:4:7: sh-good: `run` is the default (`<flags> {src} {n}`); delete line 4"
        ),
        "{}",
        text(&o)
    );
}

#[test]
fn a_missing_program_is_named_by_line() {
    let f = fixture_with(
        &[Variant::shell("sh-missing").programs(&[("num-comb", "programs/num-comb/missing.sh")])],
        &[],
    );
    let o = run_in(f.path(), &["check"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = stdout(&o);
    assert!(out.starts_with("languages.toml:11:"), "{}", text(&o));
    assert!(out.contains("sh-missing"), "{}", text(&o));
    assert!(
        out.contains("\"programs/num-comb/missing.sh\" for num-comb does not exist"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_wrong_output_and_a_wrong_format_fail() {
    let f = fixture_with(
        &[Variant::shell("sh-wrong")
            .programs(&[
                ("num-comb", "programs/num-comb/wrong.sh"),
                ("str-comb", "programs/str-comb/chatty.sh"),
            ])
            .apt(&["dash"])],
        &[
            ("programs/num-comb/wrong.sh", "echo \"1 1 $1\"\n"),
            (
                "programs/str-comb/chatty.sh",
                "echo \"sorted!\"\necho \"0 1 999\"\n",
            ),
        ],
    );
    let o = run_in(f.path(), &["check", "sh-wrong"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = stdout(&o);
    assert!(
        out.contains("programs/num-comb/wrong.sh:1: sh-wrong: num-comb at N=1000: wrong-output (expected \"0 1 1000\\n\", got \"1 1 1000\\n\"); compare with `langbench expected num-comb --size 1000`"),
        "{}",
        text(&o)
    );
    assert!(
        out.contains("programs/str-comb/chatty.sh:1: sh-wrong: str-comb at N=1000: wrong-output, not the spec's format ("),
        "{}",
        text(&o)
    );
    assert!(!out.contains("ok: sh-wrong"), "{}", text(&o));
}

#[test]
fn a_hard_coded_answer_fails_at_the_second_size() {
    let f = fixture_with(
        &[Variant::shell("sh-cheat")
            .programs(&[("num-comb", "programs/num-comb/cheat.sh")])
            .apt(&["dash"])],
        &[("programs/num-comb/cheat.sh", "echo \"0 1 1000\"\n")],
    );
    // The second size is drawn with the seed: 7 draws the same one always.
    let n = langbench::check::sizes(7)[1];
    let o = run_in(f.path(), &["check", "sh-cheat", "--seed", "7"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        stdout(&o).contains(&format!(
            "sh-cheat: num-comb at N={n}: wrong-output, though right at N=1000 ("
        )),
        "{}",
        text(&o)
    );
    assert!(
        stdout(&o).contains("never print a remembered one"),
        "{}",
        text(&o)
    );
}

/// Issue #59, row 6: a program that prints the answer without doing the
/// work (`echo "0 1 $1"`, right at every N) fails by its time: by four
/// times the edition's size it has not grown; the checkout's awk comb sort, which
/// does the work, passes (`passes_on_a_good_entry`).
#[test]
fn a_program_that_does_not_do_the_work_fails_by_its_time() {
    let f = fixture_with(
        &[shell(
            "sh-formula",
            &[("num-comb", "programs/num-comb/formula.sh")],
        )],
        &[("programs/num-comb/formula.sh", "echo \"0 1 $1\"\n")],
    );
    let o = run_in(f.path(), &["check", "sh-formula"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = stdout(&o);
    assert!(
        out.contains("programs/num-comb/formula.sh:1: sh-formula: num-comb: its time does not grow with N: ")
            && out.contains(" s at N=40000000, less than 0.1 s more for 40000× the size: it prints an answer it does not compute; compute the answer from N in every run"),
        "{}",
        text(&o)
    );
    assert!(!out.contains("ok: sh-formula"), "{}", text(&o));
}

#[test]
fn not_installed_is_reported_with_the_hint_not_failed() {
    let f = fixture_with(
        &[Variant::new("absent")
            .set("language", "Absent")
            .set("flags", "absentc-xyz run")
            .set("ext", "sh")
            .raw("install", "{ hint = \"get absentc from absent.example\" }")],
        &[
            ("programs/assoc/assoc.sh", ""),
            ("programs/num-comb/num_comb.sh", ""),
            ("programs/str-comb/str_comb.sh", ""),
        ],
    );
    let o = run_in(f.path(), &["check"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        stdout(&o).contains(
            "not installed: absent (missing absentc-xyz); install: get absentc from absent.example"
        ),
        "{}",
        text(&o)
    );
}

/// A contributor's path: `new` writes an entry and stubs that run and print
/// the right shape; `check` fails on them (stub marker, wrong answers) until
/// the programs are real; then it passes.
#[test]
fn new_then_check_fails_on_the_stub_and_passes_when_implemented() {
    let f = fixture("", &[]);
    let o = run_in(
        f.path(),
        &[
            "new",
            "sh-new",
            "--language",
            "Shell",
            "--ext",
            "sh",
            "--flags",
            "sh",
            "--run",
            "sh {src} {n}",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let toml = std::fs::read_to_string(f.languages()).unwrap();
    assert!(
        toml.ends_with("\n[variant.sh-new]\nlanguage = \"Shell\"\nflags = \"sh\"\next = \"sh\"\n"),
        "{toml}"
    );
    for p in [
        "assoc/assoc.sh",
        "num-comb/num_comb.sh",
        "str-comb/str_comb.sh",
    ] {
        let stub = std::fs::read_to_string(f.path().join("programs").join(p)).unwrap();
        assert!(stub.contains("TODO(langbench): implement"), "{stub}");
    }
    let o = run_in(f.path(), &["check", "sh-new"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = stdout(&o);
    assert!(out.contains("programs/assoc/assoc.sh:1: sh-new: assoc is still the stub `langbench new` wrote; implement assoc"), "{}", text(&o));
    assert!(
        out.contains("languages.toml:8: sh-new: no install instructions"),
        "{}",
        text(&o)
    );
    // The stubs print the right shape: what fails is the answer, not the format.
    assert!(out.contains("sh-new: assoc at N=1000: wrong-output (expected \"554 554 251\\n5441 4814 1641\\n\", got \"0 0 0\\n0 0 0\\n\")"), "{}", text(&o));

    // Implemented, all three for real (assoc by the checkout's own awk
    // program, which needs nothing the sandbox hides: a clone under HOME
    // or /tmp has its langbench binary there, out of the program's
    // sight) and installable:
    std::fs::write(
        f.path().join("programs/num-comb/num_comb.sh"),
        num_comb_ok(),
    )
    .unwrap();
    std::fs::write(
        f.path().join("programs/str-comb/str_comb.sh"),
        str_comb_ok(),
    )
    .unwrap();
    std::fs::write(f.path().join("programs/assoc/assoc.sh"), assoc_ok()).unwrap();
    std::fs::write(
        f.languages(),
        format!("{toml}install = {{ apt = [\"dash\"] }}\nversion = \"sh -c 'echo 1.0'\"\n"),
    )
    .unwrap();
    let o = run_in(f.path(), &["check", "sh-new"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(stdout(&o).contains("ok: sh-new"), "{}", text(&o));
}

/// `new` for a language it has no template for still writes the three
/// program files (the TODO lines alone), so every command keeps loading the
/// languages file and `check` says what to write, instead of every command
/// failing on the missing files.
#[test]
fn new_without_a_template_writes_placeholders_that_check_names() {
    let f = fixture("", &[]);
    let o = run_in(
        f.path(),
        &[
            "new",
            "foo-lang",
            "--language",
            "Foo",
            "--ext",
            "foo",
            "--run",
            "foo {src} {n}",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        stdout(&o).contains("no stub template for .foo")
            && stdout(&o).contains("replace each with the program"),
        "{}",
        text(&o)
    );
    for p in [
        "assoc/assoc.foo",
        "num-comb/num_comb.foo",
        "str-comb/str_comb.foo",
    ] {
        let stub = std::fs::read_to_string(f.path().join("programs").join(p)).unwrap();
        assert!(
            stub.lines().all(|l| l.starts_with("TODO(langbench): ")),
            "{stub}"
        );
    }
    let o = run_in(f.path(), &["list"]);
    assert!(o.status.success(), "{}", text(&o));
    let o = run_in(f.path(), &["check", "foo-lang"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        stdout(&o).contains(
            "programs/assoc/assoc.foo:1: foo-lang: assoc is still the stub `langbench new` wrote"
        ),
        "{}",
        text(&o)
    );
}

fn git(dir: &Path, args: &[&str]) {
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
        .expect("git runs");
    assert!(o.status.success(), "git {args:?}: {}", text(&o));
}

/// A toolchain table a and b share; c and d say the same themselves.
const SHELL_TOOLCHAIN: &str = r#"[toolchain.shell]
language = "Shell"
version = "sh -c 'echo 1.0'"
install = { apt = ["dash"] }
"#;

fn num_comb(id: &str) -> String {
    format!("programs/num-comb/{id}.sh")
}

fn repo_with_three() -> Fixture {
    let on_toolchain = |id: &str| {
        Variant::new(id)
            .set("toolchain", "shell")
            .set("flags", "sh")
            .programs(&[("num-comb", &num_comb(id))])
    };
    let own = |id: &str| shell(id, &[("num-comb", &num_comb(id))]);
    let toml = format!(
        "{SHELL_TOOLCHAIN}\n{}",
        short_toml(&[on_toolchain("a"), on_toolchain("b"), own("c"), own("d")])
    );
    let ok = num_comb_ok();
    let files: Vec<(String, &str)> = ["a", "b", "c", "d"]
        .iter()
        .map(|x| (format!("programs/num-comb/{x}.sh"), ok.as_str()))
        .collect();
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, b)| (p.as_str(), *b)).collect();
    let f = Fixture::new(&toml, &refs);
    git(f.path(), &["init", "-q", "-b", "main"]);
    git(f.path(), &["add", "-A"]);
    git(f.path(), &["commit", "-q", "-m", "base"]);
    f
}

fn changed(f: &Fixture, rev: &str) -> Vec<String> {
    let o = run_in(f.path(), &["check", "--changed-since", rev, "--ids-only"]);
    assert!(o.status.success(), "{}", text(&o));
    stdout(&o).lines().map(String::from).collect()
}

#[test]
fn changed_since_picks_exactly_the_changed_variants() {
    let f = repo_with_three();
    assert!(changed(&f, "HEAD").is_empty());
    // A program file changed (uncommitted), an entry changed (committed on
    // a branch), a new variant (untracked program file).
    std::fs::write(
        f.path().join("programs/num-comb/c.sh"),
        format!("{}# faster\n", num_comb_ok()),
    )
    .unwrap();
    let toml = std::fs::read_to_string(f.languages()).unwrap().replace(
        "[variant.d]\nlanguage = \"Shell\"\nflags = \"sh\"",
        "[variant.d]\nlanguage = \"Shell\"\nflags = \"sh -e\"\nrun = \"sh {src} {n}\"",
    ) + "\n"
        + &shell("e", &[("num-comb", "programs/num-comb/e.sh")]).toml();
    std::fs::write(f.languages(), toml).unwrap();
    std::fs::write(f.path().join("programs/num-comb/e.sh"), num_comb_ok()).unwrap();
    git(f.path(), &["checkout", "-q", "-b", "pr"]);
    git(f.path(), &["add", "languages.toml"]);
    git(f.path(), &["commit", "-q", "-m", "d, e"]);
    assert_eq!(changed(&f, "main"), vec!["c", "d", "e"]);
    // A shared toolchain table changed: every variant that uses it.
    let toml = std::fs::read_to_string(f.languages()).unwrap().replace(
        "install = { apt = [\"dash\"] }\n\n[variant.a]",
        "install = { apt = [\"dash\", \"coreutils\"] }\n\n[variant.a]",
    );
    std::fs::write(f.languages(), toml).unwrap();
    assert_eq!(changed(&f, "main"), vec!["a", "b", "c", "d", "e"]);
    // And check runs exactly those, plus the whole file's parse.
    let o = run_in(f.path(), &["check", "--changed-since", "main"]);
    assert!(o.status.success(), "{}", text(&o));
    for id in ["a", "b", "c", "d", "e"] {
        assert!(stdout(&o).contains(&format!("ok: {id}\n")), "{}", text(&o));
    }
    // Not a revision: a clear error.
    let o = run_in(f.path(), &["check", "--changed-since", "no-such-rev"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("\"no-such-rev\" is not a git revision"),
        "{}",
        text(&o)
    );
}

/// The pull request workflow checks what a reviewer checks: formatting,
/// clippy with every lint denied, and the tests that need no toolchain
/// (.ci/no-toolchains), whose list of tests to skip names tests that
/// exist: a renamed test would otherwise stop being skipped and fail CI,
/// or a stale name hide that nothing needs skipping any more.
#[test]
fn the_pr_workflow_checks_what_a_reviewer_checks() {
    let workflow = std::fs::read_to_string(repo().join(".github/workflows/pr.yml")).unwrap();
    let runs: Vec<&str> = workflow
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- run: "))
        .collect();
    for command in [
        "cargo fmt --check",
        "cargo clippy --all-targets --locked -- -D warnings",
        ".ci/no-toolchains",
    ] {
        assert!(
            runs.contains(&command),
            "pr.yml does not run `{command}`: {runs:?}"
        );
    }
    let script = std::fs::read_to_string(repo().join(".ci/no-toolchains")).unwrap();
    let skips: Vec<&str> = script
        .split("needs_toolchains=(\n")
        .nth(1)
        .and_then(|rest| rest.split("\n)").next())
        .expect("needs_toolchains=( ... ) in .ci/no-toolchains")
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(!skips.is_empty());
    // This binary's own tests, as `cargo test` lists them.
    let o = Command::new(std::env::current_exe().unwrap())
        .arg("--list")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let listed = String::from_utf8(o.stdout).unwrap();
    let tests: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .collect();
    assert!(
        tests.contains(&"check::the_pr_workflow_checks_what_a_reviewer_checks"),
        "{listed}"
    );
    for skip in skips {
        assert!(
            tests.iter().any(|t| t.contains(skip)),
            ".ci/no-toolchains skips {skip}, which names no test"
        );
    }
}

/// The pull request workflow's commands (.ci/pr, which
/// .github/workflows/pr.yml runs) on a temporary repository: the changed
/// variants' toolchains are installed (dry run here), then checked.
#[test]
fn the_pr_workflow_commands_install_and_check_the_changed_variants() {
    let workflow = std::fs::read_to_string(repo().join(".github/workflows/pr.yml")).unwrap();
    assert!(workflow.contains(".ci/pr "), "{workflow}");
    let f = repo_with_three();
    git(f.path(), &["checkout", "-q", "-b", "pr"]);
    std::fs::write(
        f.path().join("programs/num-comb/b.sh"),
        format!("{}# b2\n", num_comb_ok()),
    )
    .unwrap();
    git(f.path(), &["commit", "-qam", "b2"]);
    let o = Command::new(repo().join(".ci/pr"))
        .arg("main")
        .current_dir(f.path())
        .env("LANGBENCH", bin())
        .env("LANGBENCH_INSTALL_ARGS", "--dry-run")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let all = format!("{}{}", stdout(&o), String::from_utf8_lossy(&o.stderr));
    assert!(
        all.contains("toolchains install --lang b --dry-run"),
        "{all}"
    );
    assert!(all.contains("ok: b\n") && !all.contains("ok: a\n"), "{all}");
    // A broken program in the PR fails the job.
    std::fs::write(
        f.path().join("programs/num-comb/b.sh"),
        "echo \"0 1 1000\"\n",
    )
    .unwrap();
    git(f.path(), &["commit", "-qam", "b3"]);
    let o = Command::new(repo().join(".ci/pr"))
        .arg("main")
        .current_dir(f.path())
        .env("LANGBENCH", bin())
        .env("LANGBENCH_INSTALL_ARGS", "--dry-run")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
}

/// `new --help` shows the placeholders the commands must contain: clap
/// turns a help text's `{n}` into a line break unless it is protected, both
/// when the help goes to a pipe (no colour) and to a terminal (colour, here
/// forced and then stripped as a terminal would show it).
#[test]
fn new_help_shows_the_placeholders() {
    for colour in [false, true] {
        let mut cmd = Command::new(bin());
        cmd.args(["new", "--help"]);
        if colour {
            cmd.env("CLICOLOR_FORCE", "1");
        }
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{}", text(&o));
        let shown = String::from_utf8(strip_ansi_escapes::strip(&o.stdout)).unwrap();
        if colour {
            assert_ne!(shown.as_bytes(), o.stdout, "no colour was forced");
        }
        assert!(
            shown.contains(
                "Run command; must pass {n} (e.g. \"{exe} {n}\" or \"python3 {src} {n}\")"
            ),
            "{shown}"
        );
        assert!(
            shown.contains("(e.g. \"gcc -O2 -o {exe} {src}\")"),
            "{shown}"
        );
    }
}

/// A version probe that prints no version (`tclsh --version` prints
/// nothing and exits 0) fails `check` with the working form as the fix,
/// instead of an "unknown" version in every table; the form the docs show,
/// a shell script in a TOML string, reads it.
#[test]
fn an_unreadable_version_fails_with_the_fix() {
    let entry = Variant::shell("tcl-quiet")
        .programs(&[("num-comb", "programs/num-comb/good.sh")])
        .apt(&["dash", "tcl"])
        .list("needs", &["sh", "tclsh"]);
    let f = fixture_with(&[entry.clone().set("version", "tclsh --version")], &[]);
    let o = run_in(f.path(), &["check", "tcl-quiet"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = stdout(&o);
    assert!(
        out.contains("languages.toml:8: tcl-quiet: its version cannot be read (no version in the output of `tclsh --version`: \"\"); set `version` to a command that prints it (a shell script in TOML: version = \"sh -c 'echo puts [info patchlevel] | tclsh'\")"),
        "{}",
        text(&o)
    );
    assert!(!out.contains("ok: tcl-quiet"), "{}", text(&o));

    // The fix, as written in the message and in CONTRIBUTING.md.
    let fixed = entry.set("version", "sh -c 'echo puts [info patchlevel] | tclsh'");
    let f = fixture_with(&[fixed], &[]);
    let o = run_in(f.path(), &["check", "tcl-quiet"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(stdout(&o).contains("ok: tcl-quiet"), "{}", text(&o));
    let o = run_in(f.path(), &["list", "tcl-quiet"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        regex::Regex::new(r"8\.\d+\.\d+")
            .unwrap()
            .is_match(&stdout(&o)),
        "{}",
        text(&o)
    );
}

/// A version probe that fails, and whose pattern catches a word of its
/// error (rustup without a default toolchain: "could not choose a version
/// of rustc to run"), reads no version: `check` says the probe failed and
/// `list` never shows the version "to" (issue #64). The same probe
/// printing a version reads it.
#[test]
fn a_failing_version_probe_is_no_version() {
    let error = "error: rustup could not choose a version of rustc to run";
    let entry = |version: &str| {
        Variant::shell("rust-nodefault")
            .programs(&[("num-comb", "programs/num-comb/good.sh")])
            .apt(&["dash"])
            .list("needs", &["sh"])
            .set("version", version)
            .set("version_regex", r"rustc (\S+)")
    };
    let f = fixture_with(&[entry(&format!("sh -c 'echo {error} >&2; exit 1'"))], &[]);
    let o = run_in(f.path(), &["check", "rust-nodefault"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        stdout(&o).contains(&format!(
            "its version cannot be read (`sh -c 'echo {error} >&2; exit 1'` failed (exit 1) and printed no version: \"{error}\")"
        )),
        "{}",
        text(&o)
    );
    let o = run_in(f.path(), &["list", "rust-nodefault"]);
    let version = stdout(&o)
        .lines()
        .find(|l| l.trim_start().starts_with("version "))
        .map(str::to_owned);
    assert!(
        version
            .as_deref()
            .is_some_and(|l| l.contains("unknown (`sh -c")),
        "{}",
        text(&o)
    );

    let f = fixture_with(&[entry("sh -c 'echo rustc 1.91.0'")], &[]);
    let o = run_in(f.path(), &["list", "rust-nodefault"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(stdout(&o).contains("1.91.0"), "{}", text(&o));
}

/// Issue #40, row 1: `new` on an extension another language uses (`scm`,
/// Guile's) never points the new variant at Guile's programs nor calls
/// them stubs to replace: it writes files of its own beside them
/// (`assoc_<id>.scm`), names them in its `programs`, says whose the others
/// are, and leaves Guile's files as they were.
#[test]
fn new_on_an_extension_another_language_uses_writes_its_own_programs() {
    let guile = Variant::new("guile")
        .set("language", "Scheme (Guile)")
        .set("flags", "sh guile")
        .set("ext", "scm")
        .set("run", "sh {src} {n}")
        .set("version", "sh -c 'echo 1.0'")
        .apt(&["dash"]);
    // Guile's programs work (sh programs under .scm names, so that check
    // can run them here): a `check` of the new variant that ran them would
    // pass on the stubs' first day.
    let (assoc, num, string) = (assoc_ok(), num_comb_ok(), str_comb_ok());
    let theirs_text = |bench: &str| match bench {
        "assoc" => assoc.clone(),
        "num-comb" => num.clone(),
        _ => string.clone(),
    };
    let f = fixture_with(
        &[guile],
        &[
            ("programs/assoc/assoc.scm", assoc.as_str()),
            ("programs/num-comb/num_comb.scm", num.as_str()),
            ("programs/str-comb/str_comb.scm", string.as_str()),
        ],
    );
    let o = run_in(f.path(), &["check", "guile"]);
    assert!(o.status.success(), "{}", text(&o));
    let o = run_in(
        f.path(),
        &[
            "new",
            "my-scheme",
            "--language",
            "Scheme (mine)",
            "--ext",
            "scm",
            "--run",
            "sh {src} {n}",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let out = stdout(&o);
    assert!(
        !out.contains("kept existing") && !out.contains("the files above hold only"),
        "{out}"
    );
    let benches = [
        ("assoc", "assoc"),
        ("num-comb", "num_comb"),
        ("str-comb", "str_comb"),
    ];
    for (bench, stem) in benches {
        let theirs = f.path().join(format!("programs/{bench}/{stem}.scm"));
        assert_eq!(
            std::fs::read_to_string(&theirs).unwrap(),
            theirs_text(bench)
        );
        let own = format!("programs/{bench}/{stem}_my_scheme.scm");
        let stub = std::fs::read_to_string(f.path().join(&own)).unwrap();
        assert!(stub.contains("TODO(langbench): implement"), "{stub}");
        assert!(
            out.contains(&format!("{stem}.scm is guile's program: left as it is"))
                && out.contains(&format!("wrote stub ./{own}")),
            "{out}"
        );
    }
    // The variant runs its own files, never Guile's.
    let o = run_in(f.path(), &["list", "my-scheme"]);
    let shown = stdout(&o);
    assert!(
        shown.contains("assoc       programs/assoc/assoc_my_scheme.scm")
            && shown.contains("num-comb    programs/num-comb/num_comb_my_scheme.scm")
            && shown.contains("str-comb    programs/str-comb/str_comb_my_scheme.scm"),
        "{}",
        text(&o)
    );
    let o = run_in(f.path(), &["list", "guile"]);
    assert!(
        stdout(&o).contains("assoc       programs/assoc/assoc.scm"),
        "{}",
        text(&o)
    );
    // check judges the new variant by its own files: it fails on its
    // stubs although Guile's programs beside them are right, naming only
    // its own files ...
    let o = run_in(f.path(), &["check", "my-scheme"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = stdout(&o);
    for (bench, stem) in benches {
        assert!(
            out.contains(&format!(
                "programs/{bench}/{stem}_my_scheme.scm:1: my-scheme: {bench} is still the stub"
            )),
            "{}",
            text(&o)
        );
        assert!(!out.contains(&format!("{stem}.scm:")), "{}", text(&o));
    }
    // ... and passes once they are implemented, Guile's untouched and
    // still passing.
    for (bench, stem) in benches {
        let own = f
            .path()
            .join(format!("programs/{bench}/{stem}_my_scheme.scm"));
        std::fs::write(own, theirs_text(bench)).unwrap();
    }
    let toml = std::fs::read_to_string(f.languages()).unwrap();
    std::fs::write(
        f.languages(),
        format!("{toml}install = {{ apt = [\"dash\"] }}\nversion = \"sh -c 'echo 1.0'\"\n"),
    )
    .unwrap();
    let o = run_in(f.path(), &["check", "my-scheme"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(stdout(&o).contains("ok: my-scheme"), "{}", text(&o));
    let o = run_in(f.path(), &["check", "guile"]);
    assert!(o.status.success(), "{}", text(&o));
    for (bench, stem) in benches {
        let theirs = f.path().join(format!("programs/{bench}/{stem}.scm"));
        assert_eq!(
            std::fs::read_to_string(&theirs).unwrap(),
            theirs_text(bench)
        );
    }
}

/// Without --flags, `new` reads the Command Flags from the commands (never
/// the bare id, which looks like a command and is not one), says so, and
/// asks for --flags when the commands say nothing.
#[test]
fn new_reads_the_command_flags_from_the_commands() {
    let f = fixture("", &[]);
    let o = run_in(
        f.path(),
        &[
            "new",
            "tcl",
            "--language",
            "Tcl",
            "--ext",
            "tcl",
            "--run",
            "tclsh {src} {n}",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        stdout(&o).contains("Command Flags: \"tclsh\", read from the commands"),
        "{}",
        text(&o)
    );
    let toml = std::fs::read_to_string(f.languages()).unwrap();
    // `run` is then the default (`<flags> {src} {n}`), so it is not written.
    assert!(
        toml.ends_with("\n[variant.tcl]\nlanguage = \"Tcl\"\nflags = \"tclsh\"\next = \"tcl\"\n"),
        "{toml}"
    );
    let o = run_in(f.path(), &["list", "tcl", "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(stdout(&o).contains("\"flags\": \"tclsh\""), "{}", text(&o));

    let o = run_in(
        f.path(),
        &[
            "new",
            "c-gcc",
            "--language",
            "C",
            "--ext",
            "c",
            "--build",
            "gcc -O2 -o {exe} {src}",
            "--run",
            "{exe} {n}",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let toml = std::fs::read_to_string(f.languages()).unwrap();
    assert!(
        toml.contains("[variant.c-gcc]\nlanguage = \"C\"\nflags = \"gcc -O2\"\n"),
        "{toml}"
    );

    // Nothing to read: an error that asks, and nothing written.
    let before = std::fs::read_to_string(f.languages()).unwrap();
    let o = run_in(
        f.path(),
        &[
            "new",
            "mystery",
            "--language",
            "X",
            "--ext",
            "sh",
            "--run",
            "{dir}/run.sh {n}",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("cannot tell the Command Flags (the command the tables show for mystery) from --run \"{dir}/run.sh {n}\": pass --flags"),
        "{}",
        text(&o)
    );
    assert_eq!(std::fs::read_to_string(f.languages()).unwrap(), before);
    assert!(!f.path().join("programs/assoc/assoc.sh").exists());
}

/// hx takes its whole program directory (`{dir}`) and names its own
/// files there; plain is an ordinary variant beside it.
fn dir_variants() -> String {
    short_toml(&[
        Variant::new("hx")
            .set("language", "Shell")
            .set("flags", "sh (hx)")
            .set("run", "sh {dir}/Main.hxs {n}")
            .programs(&[("num-comb", "programs/num-comb/Main.hxs")])
            .list("files", &["programs/*/*.hxs"])
            .set("version", "sh -c 'echo 1.0'")
            .apt(&["dash"]),
        Variant::shell("plain")
            .programs(&[("num-comb", "programs/num-comb/plain.sh")])
            .set("version", "sh -c 'echo 1.0'")
            .apt(&["dash"]),
    ])
}

fn tcl_entry() -> String {
    let tcl = Variant::new("tcl")
        .set("language", "Tcl")
        .set("flags", "tclsh")
        .programs(&[("num-comb", "programs/num-comb/num_comb.tcl")])
        .set("version", "sh -c 'echo puts [info patchlevel] | tclsh'")
        .apt(&["tcl"]);
    format!("\n{}", tcl.toml())
}

/// A Tcl-only pull request touches no other variant: a variant whose
/// commands take the whole program directory (`{dir}`, as haxe and ponyc
/// do) says which files there are its own (`files`), so a new file in that
/// directory is not its change; `.ci/pr` installs and checks tcl alone.
/// Without `files` it would be picked, and `check` says to add them.
#[test]
fn a_tcl_only_change_checks_only_tcl() {
    let ok = num_comb_ok();
    let f = Fixture::new(
        &dir_variants(),
        &[
            ("programs/num-comb/Main.hxs", ok.as_str()),
            ("programs/num-comb/plain.sh", ok.as_str()),
        ],
    );
    git(f.path(), &["init", "-q", "-b", "main"]);
    git(f.path(), &["add", "-A"]);
    git(f.path(), &["commit", "-q", "-m", "base"]);
    git(f.path(), &["checkout", "-q", "-b", "pr"]);
    let toml = std::fs::read_to_string(f.languages()).unwrap() + &tcl_entry();
    std::fs::write(f.languages(), &toml).unwrap();
    // The checkout's Tcl comb sort: a program that does the work.
    std::fs::copy(
        repo().join("programs/num-comb/num_comb.tcl"),
        f.path().join("programs/num-comb/num_comb.tcl"),
    )
    .unwrap();
    git(f.path(), &["add", "-A"]);
    git(f.path(), &["commit", "-q", "-m", "tcl"]);
    assert_eq!(changed(&f, "main"), vec!["tcl"]);
    let o = Command::new(repo().join(".ci/pr"))
        .arg("main")
        .current_dir(f.path())
        .env("LANGBENCH", bin())
        .env("LANGBENCH_INSTALL_ARGS", "--dry-run")
        .output()
        .unwrap();
    let all = format!("{}{}", stdout(&o), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{all}");
    assert!(
        all.contains("+ langbench toolchains install --lang tcl --dry-run\n"),
        "{all}"
    );
    assert!(
        all.contains("ok: tcl\n") && !all.contains("ok: hx") && !all.contains("ok: plain"),
        "{all}"
    );

    // A change to one of hx's own files is its change.
    std::fs::write(
        f.path().join("programs/num-comb/Util.hxs"),
        "# shared helper\n",
    )
    .unwrap();
    assert_eq!(changed(&f, "main"), vec!["hx", "tcl"]);
    std::fs::remove_file(f.path().join("programs/num-comb/Util.hxs")).unwrap();

    // Without `files`, every file of the directory would be hx's: the Tcl
    // change picks it, and check says which files to name.
    std::fs::write(
        f.path().join("languages.toml"),
        toml.replace("files = [\"programs/*/*.hxs\"]\n", ""),
    )
    .unwrap();
    git(f.path(), &["commit", "-qam", "hx without files"]);
    assert_eq!(changed(&f, "main"), vec!["hx", "tcl"]);
    let o = run_in(f.path(), &["check", "--changed-since", "main"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        stdout(&o).contains("languages.toml:1: hx: its commands take {dir}, and programs/num-comb holds other variants' programs too, so every change there would check it again; say which files are its own: files = [\"programs/*/*.hxs\"]"),
        "{}",
        text(&o)
    );
}

/// With --changed-since and nothing changed, check runs no variant (it
/// used to run every installed one, as `select` of no ids is all).
#[test]
fn nothing_changed_checks_the_file_only() {
    let f = repo_with_three();
    let o = run_in(f.path(), &["check", "--changed-since", "HEAD"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(!stdout(&o).contains("ok: "), "{}", text(&o));
    assert!(
        stdout(&o).contains("check: 0 problem(s); 0 variant(s) right"),
        "{}",
        text(&o)
    );
}

/// `fails = "why"`: an engine that cannot run the programs (Duktape, an ES5
/// engine) fails as declared, not as a problem; a variant that `fails`
/// says cannot run but runs right is a problem (the field is stale).
#[test]
fn fails_as_declared_and_a_stale_fails_is_a_problem() {
    let f = fixture_with(
        &[
            shell("sh-es5", &[("num-comb", "programs/num-comb/es5.sh")])
                .set("fails", "the shell rejects the program"),
            shell("sh-stale", &[("num-comb", "programs/num-comb/good.sh")])
                .set("fails", "said once"),
        ],
        &[(
            "programs/num-comb/es5.sh",
            "echo 'SyntaxError: let' >&2; exit 1\n",
        )],
    );
    let o = run_in(f.path(), &["check", "sh-es5"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        stdout(&o).contains("fails as declared: sh-es5: num-comb at N=1000: failed (exit")
            && stdout(&o).contains("SyntaxError: let"),
        "{}",
        text(&o)
    );
    let o = run_in(f.path(), &["check", "sh-stale"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        stdout(&o).contains("sh-stale: every program ran right, but `fails` says it cannot"),
        "{}",
        text(&o)
    );
}

/// A toolchain that caches outside its declared caches starts cold in
/// every run: `check` names where a variant's runs wrote in its HOME
/// outside `caches`, with the line to add; a variant that writes only its
/// declared cache passes, and so does the first once the fix is applied.
#[test]
fn writes_outside_the_declared_caches_are_a_problem_with_the_fix() {
    let state = tempfile::tempdir().unwrap();
    let writes = |dir: &str| {
        format!(
            "mkdir -p \"$HOME/{dir}\" && echo x > \"$HOME/{dir}/x\"\n{}",
            num_comb_ok()
        )
    };
    let toml = "\n[variant.undeclared]\nlanguage = \"Shell\"\nflags = \"sh (undeclared)\"\nrun = \"sh {src} {n}\"\n\
                programs = { num-comb = \"programs/num-comb/undeclared.sh\" }\n\
                install = { apt = [\"dash\"] }\nversion = \"sh -c 'echo 1.0'\"\n\
                \n[variant.declared]\nlanguage = \"Shell\"\nflags = \"sh (declared)\"\nrun = \"sh {src} {n}\"\n\
                programs = { num-comb = \"programs/num-comb/declared.sh\" }\n\
                install = { apt = [\"dash\"] }\nversion = \"sh -c 'echo 1.0'\"\n\
                caches = [\"~/.cache/mine\"]\n";
    let (undeclared, declared) = (writes(".cache/undeclared"), writes(".cache/mine"));
    let f = fixture(
        toml,
        &[
            ("programs/num-comb/undeclared.sh", &undeclared),
            ("programs/num-comb/declared.sh", &declared),
        ],
    );
    let check = || {
        Command::new(bin())
            .args(["check", "undeclared", "declared"])
            .current_dir(f.path())
            .env_remove("LANGBENCH_LANGUAGES")
            .env("LANGBENCH_STATE", state.path())
            .output()
            .unwrap()
    };
    let o = check();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = stdout(&o);
    let line = out
        .lines()
        .find(|l| l.contains(": undeclared: "))
        .unwrap_or_else(|| panic!("{}", text(&o)));
    // The entry's line: [variant.undeclared] is line 8 of the file.
    assert!(line.contains("languages.toml:8: undeclared: "), "{line}");
    assert!(
        line.contains(
            "outside its declared caches, which every run starts without (a cache there is \
             cold in every measured run): ~/.cache/undeclared (1 file); if it is the \
             toolchain's cache, declare it: caches = [\"~/.cache/undeclared\"] in its entry"
        ),
        "{line}"
    );
    assert!(out.contains("ok: declared"), "{}", text(&o));
    assert!(!out.contains(": declared: "), "{}", text(&o));
    // The declared cache is the variant's own, kept under the state
    // directory, in a directory named by a digest of its version (check's
    // own: `check`), which the file beside it names.
    let dirs: Vec<std::path::PathBuf> = std::fs::read_dir(state.path().join("caches/declared"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    assert_eq!(
        std::fs::read_to_string(dirs[0].join("version")).unwrap(),
        "check\n"
    );
    let kept = dirs[0].join("home/.cache/mine/x");
    assert!(kept.is_file(), "{}", kept.display());

    // The fix as check spelled it: now it passes.
    let file = f.path().join("languages.toml");
    let fixed = std::fs::read_to_string(&file).unwrap().replace(
        "programs = { num-comb = \"programs/num-comb/undeclared.sh\" }",
        "programs = { num-comb = \"programs/num-comb/undeclared.sh\" }\n\
         caches = [\"~/.cache/undeclared\"]",
    );
    std::fs::write(&file, fixed).unwrap();
    let o = check();
    assert!(o.status.success(), "{}", text(&o));
    assert!(stdout(&o).contains("ok: undeclared"), "{}", text(&o));
}

/// Issue #40, row 4: a compiler that writes its output beside its source
/// meets a read-only program directory and may say nothing (`exit 70; no
/// stderr`). `check` says the directory is read-only and that a build
/// writes in `{build}`; the command it offers to see the failure in full
/// writes nothing into the checkout (it used to create
/// `results/<year>-1000/` there).
#[test]
fn a_build_writing_beside_its_source_is_told_program_directories_are_read_only() {
    let beside = shell("sh-beside", &[("num-comb", "programs/num-comb/beside.sh")]).set(
        "build",
        "sh -c 'exec 2>/dev/null; touch {src}.o || exit 70'",
    );
    let ok = num_comb_ok();
    let f = fixture_with(&[beside], &[("programs/num-comb/beside.sh", ok.as_str())]);
    let o = run_in(f.path(), &["check", "sh-beside"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = stdout(&o);
    assert!(
        out.contains("exit 70; no stderr; program directories are read-only")
            && out.contains("a build writes its outputs in {build}")
            && out.contains("make the build write nothing beside its source"),
        "{}",
        text(&o)
    );
    assert!(!f.path().join("programs/num-comb/beside.sh.o").exists());
    let hint = regex::Regex::new(r"run it by hand: `langbench (run [^`]*)`")
        .unwrap()
        .captures(&out)
        .unwrap_or_else(|| panic!("{}", text(&o)))[1]
        .to_string();
    let tmp = tempfile::tempdir().unwrap();
    let ran = Command::new("sh")
        .arg("-c")
        .arg(format!("{} {hint}", bin().display()))
        .current_dir(f.path())
        .env("TMPDIR", tmp.path())
        .env_remove("LANGBENCH_LANGUAGES")
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&ran.stdout).contains("program directories are read-only"),
        "{}",
        text(&ran)
    );
    let left: Vec<_> = std::fs::read_dir(f.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        !f.path().join("results").exists(),
        "the hint wrote into the checkout: {left:?}"
    );
}

/// Issue #59, row 8: a change that adds run records or a stored
/// reproducibility check under results/ fails `check`, each file named
/// (a pull request adds programs and entries, never measurements):
/// against `--changed-since`'s revision (what CI passes), uncommitted and
/// untracked files included, and by default against the merge base of
/// HEAD and origin/main. Derived files are not flagged; outside a git
/// checkout a note says what was not compared.
#[test]
fn issue59_row08_check_flags_records_and_stored_checks_a_change_adds() {
    let f = repo_with_three();
    let edition = f.path().join("results/2026");
    std::fs::create_dir_all(edition.join("reproduced")).unwrap();
    std::fs::write(edition.join("runs.jsonl"), "{\"variant\":\"a\"}\n").unwrap();
    std::fs::write(edition.join("summary.csv"), "variant\na\n").unwrap();
    std::fs::write(edition.join("reproduced/old.json"), "{}\n").unwrap();
    git(f.path(), &["add", "-A"]);
    git(f.path(), &["commit", "-q", "-m", "edition"]);
    let o = run_in(f.path(), &["check", "--changed-since", "HEAD"]);
    assert!(o.status.success(), "{}", text(&o));

    git(f.path(), &["checkout", "-q", "-b", "pr"]);
    let runs = edition.join("runs.jsonl");
    let mut records = std::fs::read_to_string(&runs).unwrap();
    records.push_str("{\"variant\":\"new\",\"wall_s\":0.001}\n");
    std::fs::write(&runs, records).unwrap();
    std::fs::write(edition.join("reproduced/x.json"), "{}\n").unwrap();
    std::fs::write(edition.join("summary.csv"), "variant\na\nnew\n").unwrap();
    let flagged = |o: &Output, since: &str| {
        assert_eq!(o.status.code(), Some(1), "{}", text(o));
        let out = stdout(o);
        assert!(
            out.contains(&format!(
                "results/2026/runs.jsonl: -: the change adds 1 line to these records of a \
                 results directory (since {since})"
            )),
            "{out}"
        );
        assert!(
            out.contains(&format!(
                "results/2026/reproduced/x.json: -: the change adds or changes a stored \
                 reproducibility check (since {since})"
            )),
            "{out}"
        );
        assert!(!out.contains("summary.csv"), "{out}");
        assert!(!out.contains("old.json"), "{out}");
        assert!(out.contains("check: 2 problem(s)"), "{out}");
    };
    // Uncommitted and untracked.
    flagged(
        &run_in(f.path(), &["check", "--changed-since", "main"]),
        "main",
    );
    // Committed, as a pull request's CI sees them.
    git(f.path(), &["add", "-A"]);
    git(f.path(), &["commit", "-q", "-m", "pr"]);
    flagged(
        &run_in(f.path(), &["check", "--changed-since", "main"]),
        "main",
    );
    // .ci/pr, as pr.yml runs it.
    let o = Command::new(repo().join(".ci/pr"))
        .arg("main")
        .current_dir(f.path())
        .env("LANGBENCH", bin())
        .env("LANGBENCH_INSTALL_ARGS", "--dry-run")
        .output()
        .unwrap();
    flagged(&o, "main");
    // No base named: the merge base with origin/main, where there is one.
    let o = run_in(f.path(), &["check", "a"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        stdout(&o).contains("note: what the change adds under results/ was not compared: the checkout has no origin/main"),
        "{}",
        text(&o)
    );
    git(
        f.path(),
        &["update-ref", "refs/remotes/origin/main", "main"],
    );
    let o = run_in(f.path(), &["check", "a"]);
    let base = String::from_utf8(
        Command::new("git")
            .args(["rev-parse", "main"])
            .current_dir(f.path())
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    flagged(
        &o,
        &format!(
            "the merge base of HEAD and origin/main, {}",
            &base.trim()[..12]
        ),
    );
    // Outside a git checkout: a note, not a failure.
    let plain = fixture("", &[]);
    let o = run_in(plain.path(), &["check"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(stdout(&o).contains("is not a git checkout"), "{}", text(&o));
}
