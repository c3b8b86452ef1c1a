//! `langbench new`: the entry and three program stubs of a new variant.
//! Each stub reads N, prints the right shape with zeros, and says what to
//! implement (the `TODO(langbench)` lines), so `langbench check` runs it
//! from the first minute and fails until the program is right.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail, ensure};

use crate::bench::{Bench, Size};
use crate::check::STUB_MARKER;
use crate::config::{Languages, conventional_programs};

pub struct Options {
    pub id: String,
    pub language: String,
    pub ext: String,
    pub flags: Option<String>,
    pub build: Option<String>,
    pub run: String,
}

/// How to write a stub in one language: the comment prefix, the code up to
/// the prints (`{default}` is the size), one print (`{}` is the line), and
/// the code after.
struct Syntax {
    comment: &'static str,
    head: &'static str,
    print: &'static str,
    tail: &'static str,
}

fn syntax(ext: &str) -> Option<Syntax> {
    let s = |comment, head, print, tail| {
        Some(Syntax {
            comment,
            head,
            print,
            tail,
        })
    };
    match ext {
        "py" => s(
            "#",
            "import sys\n\nn = int(sys.argv[1]) if len(sys.argv) > 1 else {default}\n",
            "print(\"{}\")",
            "",
        ),
        "rb" => s("#", "n = (ARGV[0] || {default}).to_i\n", "puts \"{}\"", ""),
        "js" | "mjs" | "ts" => s(
            "//",
            "const n = Number(process.argv[2] ?? {default});\n",
            "console.log(\"{}\");",
            "",
        ),
        "lua" => s(
            "--",
            "local n = tonumber(arg[1]) or {default}\n",
            "print(\"{}\")",
            "",
        ),
        "pl" => s(
            "#",
            "my $n = $ARGV[0] // {default};\n",
            "print \"{}\\n\";",
            "",
        ),
        "php" => s(
            "//",
            "<?php\n$n = (int)($argv[1] ?? {default});\n",
            "echo \"{}\\n\";",
            "",
        ),
        "sh" | "bash" => s("#", "n=${1:-{default}}\n", "echo \"{}\"", ""),
        "awk" => s(
            "#",
            "BEGIN {\n    n = ARGV[1] ? ARGV[1] : {default}\n",
            "    print \"{}\"",
            "}\n",
        ),
        "tcl" => s(
            "#",
            "set n [expr {$argc > 0 ? [lindex $argv 0] : {default}}]\n",
            "puts \"{}\"",
            "",
        ),
        "jl" => s(
            "#",
            "n = length(ARGS) > 0 ? parse(Int, ARGS[1]) : {default}\n",
            "println(\"{}\")",
            "",
        ),
        "r" | "R" => s(
            "#",
            "args <- commandArgs(trailingOnly = TRUE)\nn <- if (length(args) > 0) as.numeric(args[1]) else {default}\n",
            "cat(\"{}\\n\")",
            "",
        ),
        "go" => s(
            "//",
            "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"strconv\"\n)\n\nfunc main() {\n\tn := {default}\n\tif len(os.Args) > 1 {\n\t\tn, _ = strconv.Atoi(os.Args[1])\n\t}\n\t_ = n\n",
            "\tfmt.Println(\"{}\")",
            "}\n",
        ),
        "c" | "cpp" | "cc" => s(
            "//",
            "#include <stdio.h>\n#include <stdlib.h>\n\nint main(int argc, char **argv) {\n    long n = argc > 1 ? atol(argv[1]) : {default};\n    (void)n;\n",
            "    printf(\"{}\\n\");",
            "    return 0;\n}\n",
        ),
        "rs" => s(
            "//",
            "fn main() {\n    let n: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or({default});\n    let _ = n;\n",
            "    println!(\"{}\");",
            "}\n",
        ),
        _ => None,
    }
}

/// A stub for a language `new` has no template for: the TODO lines alone
/// (not a program; `check` reports it as a stub until it is replaced).
const PLACEHOLDER: Syntax = Syntax {
    comment: "",
    head: "",
    print: "",
    tail: "",
};

/// The extensions `new` can write stubs for.
pub(crate) fn known_exts() -> &'static str {
    "py rb js mjs ts lua pl php sh bash awk tcl jl r go c cpp cc rs"
}

fn stub(bench: Bench, language: &str, id: &str, syntax: &Syntax) -> String {
    let default = Size::Ed2021.n(bench);
    let lines: &[&str] = match bench {
        Bench::Assoc => &["dup1 dup2 dup3", "total verify count"],
        _ => &["bad a[0] a[N-1]"],
    };
    let placeholder = syntax.comment.is_empty();
    let c = if placeholder {
        String::new()
    } else {
        format!("{} ", syntax.comment)
    };
    let mut out = String::new();
    if syntax.head.starts_with("<?php") {
        out.push_str("<?php\n");
    }
    let todo = [
        format!("implement {bench} as the spec says (docs/benchmarks.md, section \"{bench}\"),"),
        format!(
            "written the way an everyday {language} programmer would (CONTRIBUTING.md: fairness rules)."
        ),
        format!("Read N from the first argument (default {default}) and print exactly:"),
    ];
    for t in todo {
        let _ = writeln!(out, "{c}{STUB_MARKER}: {t}");
    }
    for l in lines {
        let _ = writeln!(out, "{c}{STUB_MARKER}:     {l}");
    }
    if placeholder {
        let _ = writeln!(
            out,
            "{STUB_MARKER}: langbench has no template for this language: replace this whole file with the program; `langbench check {}` fails until it is right.",
            shell_words::quote(id)
        );
        return out;
    }
    let _ = writeln!(
        out,
        "{c}{STUB_MARKER}: this stub prints the right shape with zeros; `langbench check {}` fails until it is right.",
        shell_words::quote(id)
    );
    out.push_str(
        &syntax
            .head
            .trim_start_matches("<?php\n")
            .replace("{default}", &default.to_string()),
    );
    for l in lines {
        let zeros = vec!["0"; l.split(' ').count()].join(" ");
        out.push_str(&syntax.print.replace("{}", &zeros));
        out.push('\n');
    }
    out.push_str(syntax.tail);
    out
}

/// The Command Flags `new` writes when `--flags` is not given: what the
/// tables show to tell variants apart, read from the commands. Each command
/// gives its program and options without the words that name files or the
/// size (those with a placeholder), and without an option that only
/// introduces an output or search path (`-o {exe}`, `-cp {dir}`);
/// `gcc -O2 -o {exe} {src}` gives `gcc -O2`, `tclsh {src} {n}` gives
/// `tclsh`, `tcc -run {src} {n}` gives `tcc -run`. With a build command and
/// a run command that starts a program of its own, both, joined by ` + `
/// (`javac + java Main`). `None` when nothing is left, or for a shell
/// script (`sh -c '…'`), which says nothing about the toolchain: then the
/// contributor names them.
pub(crate) fn derived_flags(build: Option<&str>, run: &str) -> Option<String> {
    fn of(command: &str) -> Option<String> {
        let words = shell_words::split(command).ok()?;
        let program = words.first()?;
        if program.contains('{') {
            return None;
        }
        let shell = ["sh", "bash", "dash", "zsh"].contains(&program.as_str());
        if shell && words.iter().any(|w| w == "-c") {
            return None;
        }
        let mut kept: Vec<&str> = Vec::new();
        for (i, w) in words.iter().enumerate() {
            if w.contains('{') {
                continue;
            }
            let introduces_a_path = w.starts_with('-')
                && words.get(i + 1).is_some_and(|next| {
                    ["{exe}", "{build}", "{dir}"]
                        .iter()
                        .any(|p| next.starts_with(p))
                });
            if !introduces_a_path {
                kept.push(w);
            }
        }
        Some(kept.join(" "))
    }
    let parts: Vec<String> = build.and_then(of).into_iter().chain(of(run)).collect();
    (!parts.is_empty()).then(|| parts.join(" + "))
}

/// What `new` did: the entry appended, the files written or kept.
pub struct Done {
    pub flags: String,
    pub entry: String,
    pub written: Vec<PathBuf>,
    /// Files named for this id that were there already (the contributor's
    /// own, from an earlier `new`): kept as they are.
    pub kept: Vec<PathBuf>,
    /// Conventional program paths other variants' programs hold: (that
    /// path, the variants using it, the file of its own `new` wrote
    /// instead).
    pub taken: Vec<(PathBuf, Vec<String>, PathBuf)>,
    pub no_stub_for_ext: bool,
}

fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// The program file of `id` for `bench` beside the conventional one
/// (`programs/assoc/assoc.scm` → `programs/assoc/assoc_my_scheme.scm`
/// for `my-scheme`), as the checkout's own alternatives are named
/// (`assoc_mruby.rb`, `assoc_hashmap.hs`).
fn own_program(conventional: &str, id: &str) -> String {
    let path = Path::new(conventional);
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ext = path
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    let file = format!("{stem}_{}{ext}", id.replace(['-', '.'], "_"));
    match path.parent() {
        Some(dir) => dir.join(file).display().to_string(),
        None => file,
    }
}

pub(crate) fn new(languages: &Path, opts: &Options) -> Result<Done> {
    // The id first, by the languages file's own rule, before anything is
    // read or written: an id no later command accepts (`../x;$(id)`)
    // would leave a languages file every command refuses.
    if let Some(why) = crate::config::id_problem(&opts.id) {
        bail!(
            "{}: {why}; nothing was written",
            shell_words::quote(&langbench_document::inert::clip(
                &langbench_document::inert::text(&opts.id),
                crate::config::MAX_ID
            ))
        );
    }
    ensure!(
        !opts.id.starts_with("ws-"),
        "`new` scaffolds CPU benchmark variants; a ws-echo server is added by hand (CONTRIBUTING.md)"
    );
    ensure!(
        !opts.ext.is_empty() && opts.ext.chars().all(|c| c.is_ascii_alphanumeric()),
        "--ext is a file extension without the dot, e.g. py"
    );
    let root = languages
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let (text, users) = existing(languages, opts)?;
    let used_by = |p: &Path| -> Vec<String> {
        p.canonicalize()
            .ok()
            .and_then(|real| users.get(&real).cloned())
            .unwrap_or_default()
    };
    let flags = match &opts.flags {
        Some(f) => f.clone(),
        None => derived_flags(opts.build.as_deref(), &opts.run).with_context(|| {
            format!(
                "cannot tell the Command Flags (the command the tables show for {}) from {}: pass --flags, e.g. --flags \"gcc -O2\"",
                opts.id,
                match &opts.build {
                    Some(b) => format!("--build {b:?} and --run {:?}", opts.run),
                    None => format!("--run {:?}", opts.run),
                }
            )
        })?,
    };
    ensure!(
        !flags.trim().is_empty(),
        "--flags is empty: it is the Command Flags column"
    );
    let syntax = syntax(&opts.ext);
    let mut done = Done {
        flags: flags.clone(),
        entry: String::new(),
        written: Vec::new(),
        kept: Vec::new(),
        taken: Vec::new(),
        no_stub_for_ext: syntax.is_none(),
    };
    let (explicit, to_write) = plan_programs(root, opts, &used_by, &mut done)?;
    let entry = entry_text(opts, &flags, &explicit);
    done.entry = entry.clone();
    write_stubs(opts, syntax.as_ref(), to_write, &mut done)?;
    let mut new_text = text;
    if !new_text.is_empty() && !new_text.ends_with('\n') {
        new_text.push('\n');
    }
    new_text.push_str(&entry);
    std::fs::write(languages, new_text)
        .with_context(|| format!("cannot write {}", languages.display()))?;
    Ok(done)
}

/// The languages file's text (empty if there is none yet) and which
/// variants use each program file (by its real path); an existing
/// variant of the id is refused.
fn existing(languages: &Path, opts: &Options) -> Result<(String, BTreeMap<PathBuf, Vec<String>>)> {
    let mut users: BTreeMap<PathBuf, Vec<String>> = BTreeMap::new();
    let text = if languages.exists() {
        let langs = Languages::load(languages)?;
        if let Some(v) = langs.variants.iter().find(|v| v.id == opts.id) {
            bail!(
                "{}:{}: variant {:?} exists already",
                languages.display(),
                v.line,
                opts.id
            );
        }
        for v in &langs.variants {
            for p in v.programs.values() {
                let real = p.canonicalize().unwrap_or_else(|_| p.clone());
                users.entry(real).or_default().push(v.id.clone());
            }
        }
        std::fs::read_to_string(languages)?
    } else {
        String::new()
    };
    Ok((text, users))
}

/// The programs named in `programs` (id-own files) and the files to write.
type Plan = (Vec<(Bench, String)>, Vec<(Bench, PathBuf)>);

/// Where each program goes, with what is taken and kept recorded in `done`.
fn plan_programs(
    root: &Path,
    opts: &Options,
    used_by: &dyn Fn(&Path) -> Vec<String>,
    done: &mut Done,
) -> Result<Plan> {
    // Where each program goes: the conventional file where there is none
    // yet; else one of its own beside it, named in `programs`. Never a
    // file that is already there (another language's working program,
    // which the stub's "replace this" would have overwritten). Decided
    // for all three before anything is written.
    let mut explicit: Vec<(Bench, String)> = Vec::new();
    let mut to_write: Vec<(Bench, PathBuf)> = Vec::new();
    for (bench, rel) in conventional_programs(&opts.id, &opts.ext) {
        let path = root.join(&rel);
        if !path.exists() && std::fs::symlink_metadata(&path).is_err() {
            to_write.push((bench, path));
            continue;
        }
        let own = own_program(&rel, &opts.id);
        let own_path = root.join(&own);
        let others = used_by(&own_path);
        if !others.is_empty() {
            bail!(
                "{} is {}'s program already: choose another id; nothing was written",
                own_path.display(),
                others.join(", ")
            );
        }
        let mut holders = used_by(&path);
        if holders.is_empty() {
            holders.push("no variant's".into());
        }
        done.taken.push((path, holders, own_path.clone()));
        explicit.push((bench, own));
        if std::fs::symlink_metadata(&own_path).is_ok() {
            done.kept.push(own_path);
        } else {
            to_write.push((bench, own_path));
        }
    }
    Ok((explicit, to_write))
}

/// The `[variant.ID]` entry appended to the languages file: only what
/// differs from the conventions.
fn entry_text(opts: &Options, flags: &str, explicit: &[(Bench, String)]) -> String {
    let mut entry = format!("\n[variant.{}]\n", toml_key(&opts.id));
    let _ = writeln!(entry, "language = {}", toml_str(&opts.language));
    if flags != opts.id {
        let _ = writeln!(entry, "flags = {}", toml_str(flags));
    }
    let _ = writeln!(entry, "ext = {}", toml_str(&opts.ext));
    if !explicit.is_empty() {
        let list: Vec<String> = explicit
            .iter()
            .map(|(b, p)| format!("{b} = {}", toml_str(p)))
            .collect();
        let _ = writeln!(entry, "programs = {{ {} }}", list.join(", "));
    }
    if let Some(b) = &opts.build {
        let _ = writeln!(entry, "build = {}", toml_str(b));
    }
    if opts.run != format!("{flags} {{src}} {{n}}") {
        let _ = writeln!(entry, "run = {}", toml_str(&opts.run));
    }
    entry
}

/// The program stubs, each created new (never over a file).
fn write_stubs(
    opts: &Options,
    syntax: Option<&Syntax>,
    to_write: Vec<(Bench, PathBuf)>,
    done: &mut Done,
) -> Result<()> {
    for (bench, path) in to_write {
        // Without a template for the language, a placeholder that holds
        // only the TODO lines: the entry then loads (every command needs
        // its program files to exist) and `check` says what to write.
        let text = match syntax {
            Some(syntax) => stub(bench, &opts.language, &opts.id, syntax),
            None => stub(bench, &opts.language, &opts.id, &PLACEHOLDER),
        };
        std::fs::create_dir_all(path.parent().context("program path has a directory")?)?;
        // `create_new`: never over a file (or through a link) that
        // appeared since the plan above.
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
            .with_context(|| format!("cannot write {}", path.display()))?;
        done.written.push(path);
    }
    Ok(())
}

fn toml_key(id: &str) -> String {
    if id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        id.to_string()
    } else {
        toml_str(id)
    }
}

/// `langbench new`: [`new`], then what it added, wrote and kept, and what
/// to do next (a command printed shell-quoted, ready to paste).
pub fn command(languages: &Path, opts: &Options) -> Result<ExitCode> {
    let done = new(languages, opts)?;
    let t = langbench_document::inert::text;
    println!(
        "Added to {}:{}",
        t(&languages.display().to_string()),
        done.entry.trim_end()
    );
    if opts.flags.is_none() {
        println!(
            "Command Flags: {:?}, read from the commands (--flags to choose another)",
            done.flags
        );
    }
    for (path, holders, own) in &done.taken {
        println!(
            "{} is {} program: left as it is; this variant's is {} (its entry's `programs` names it). \
             To run the same programs as {} instead, delete the file and the `programs` line.",
            t(&path.display().to_string()),
            if holders.iter().any(|h| h.starts_with("no variant")) {
                "no variant's".to_string()
            } else {
                format!("{}'s", holders.join(", "))
            },
            t(&own.display().to_string()),
            holders.join(", ")
        );
    }
    for p in &done.written {
        println!("wrote stub {}", t(&p.display().to_string()));
    }
    for p in &done.kept {
        println!(
            "kept {} (named for this variant: yours from before)",
            t(&p.display().to_string())
        );
    }
    if done.no_stub_for_ext && !done.written.is_empty() {
        println!(
            "no stub template for .{} (templates: {}): the stubs written above hold only the {} lines; replace each with the program",
            opts.ext,
            known_exts(),
            crate::check::STUB_MARKER
        );
    }
    let mut check = vec!["langbench".to_string(), "check".to_string()];
    if languages != Path::new("languages.toml") {
        check.push("--languages".into());
        check.push(languages.display().to_string());
    }
    check.push(opts.id.clone());
    println!(
        "Next: add install = {{ apt = [...] }} (or npm, pip, hint) to the entry, implement the programs (the TODO(langbench) lines say what), then `{}`.",
        t(&shell_words::join(&check))
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::derived_flags;

    #[test]
    fn flags_are_read_from_the_commands() {
        let d = |b: Option<&str>, r: &str| derived_flags(b, r);
        assert_eq!(d(None, "tclsh {src} {n}").as_deref(), Some("tclsh"));
        assert_eq!(d(None, "tcc -run {src} {n}").as_deref(), Some("tcc -run"));
        assert_eq!(
            d(None, "ruby --jit {src} {n}").as_deref(),
            Some("ruby --jit")
        );
        assert_eq!(
            d(Some("gcc -O2 -o {exe} {src}"), "{exe} {n}").as_deref(),
            Some("gcc -O2")
        );
        assert_eq!(
            d(None, "haxe -cp {dir} --run Main {n}").as_deref(),
            Some("haxe --run Main")
        );
        assert_eq!(
            d(None, "nim r -d:release --nimcache:{build} {src} {n}").as_deref(),
            Some("nim r -d:release")
        );
        assert_eq!(
            d(Some("javac -d {build} {src}"), "java -cp {build} Main {n}").as_deref(),
            Some("javac + java Main")
        );
        // Nothing to read: the contributor names them.
        assert_eq!(d(None, "{exe} {n}"), None);
        assert_eq!(d(None, "sh -c 'tclsh {src} {n}'"), None);
        assert_eq!(d(None, "unbalanced 'quote {src} {n}"), None);
    }
}
