//! The layers of `src/` as ARCHITECTURE.md draws them, checked against the
//! code: no file imports, through a chain, a file that imports it back
//! (no import cycle), and no module imports from a layer above its own.
//!
//! The imports are read as text, as a reviewer reads them: every
//! `crate::…` path (`langbench::…` in `main.rs`), `super::…`, `self::…` and
//! a `mod.rs`'s paths through its own submodules (`view::Mount`), with
//! `use` groups (`crate::{a, b::{c, d}}`) expanded; comments and
//! `#[cfg(test)]` modules are left out (tests may import anything). A path
//! counts as an import of the deepest module file it names; a renamed
//! import (`use crate::x as y`) is read as `x`, later `y::` paths are not
//! followed. Hand-written, std only, rather than a tool to install
//! (`cargo modules`): anyone with the toolchain runs it, and CI with the
//! other tests.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::util;

/// One source file: its module path (`spawn/contain/view.rs` is
/// `["spawn", "contain", "view"]`, `ws/mod.rs` is `["ws"]`), and its text
/// without comments and test modules.
struct File {
    path: String,
    module: Vec<String>,
    is_mod_rs: bool,
    text: String,
}

fn files() -> Vec<File> {
    let src = util::repo().join("src");
    let mut out = Vec::new();
    walk(&src, &src, &mut out);
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<File>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(root, &p, out);
            continue;
        }
        if p.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let rel = p
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let mut module: Vec<String> = rel
            .trim_end_matches(".rs")
            .split('/')
            .map(str::to_owned)
            .collect();
        let last = module.last().unwrap().clone();
        let is_mod_rs = last == "mod";
        if is_mod_rs || last == "lib" || last == "main" {
            module.pop();
        }
        // The test-only modules (`tests.rs`, and `testing.rs`'s fake
        // records, compiled under `#[cfg(test)]` only) may import anything.
        if last == "tests" || rel == "testing.rs" {
            continue;
        }
        let text = code(&std::fs::read_to_string(&p).unwrap());
        out.push(File {
            path: format!("src/{rel}"),
            module,
            is_mod_rs,
            text,
        });
    }
}

/// The file's code without comment lines and without `#[cfg(test)]`
/// modules (rustfmt closes a top-level inline module with a `}` alone at
/// the start of a line).
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|l| l.trim_start().starts_with("mod "))
        {
            let header = lines.next().unwrap();
            if header.trim_end().ends_with('{') {
                for l in lines.by_ref() {
                    if l == "}" {
                        break;
                    }
                }
            }
            continue;
        }
        if line.trim_start().starts_with("//") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths a use-tree starting at `s` names, each as its segments
/// (`a::{b, c::d}` is `[a, b]` and `[a, c, d]`), and how many bytes it
/// took.
fn tree(s: &str) -> (Vec<Vec<String>>, usize) {
    let b = s.as_bytes();
    let mut i = 0;
    let mut prefix = Vec::new();
    loop {
        while i < b.len() && (b[i] as char).is_whitespace() {
            i += 1;
        }
        if i < b.len() && b[i] == b'{' {
            i += 1;
            let mut all = Vec::new();
            loop {
                let (paths, used) = tree(&s[i..]);
                i += used;
                for p in paths {
                    all.push(prefix.iter().cloned().chain(p).collect());
                }
                while i < b.len() && (b[i] as char).is_whitespace() {
                    i += 1;
                }
                match b.get(i) {
                    Some(b',') => i += 1,
                    Some(b'}') => {
                        i += 1;
                        break;
                    }
                    _ => break,
                }
                while i < b.len() && (b[i] as char).is_whitespace() {
                    i += 1;
                }
                if b.get(i) == Some(&b'}') {
                    i += 1;
                    break;
                }
            }
            return (all, i);
        }
        let start = i;
        while i < b.len() && is_ident(b[i] as char) {
            i += 1;
        }
        if i > start {
            let seg = &s[start..i];
            if seg != "self" {
                prefix.push(seg.to_owned());
            }
        } else if b.get(i) == Some(&b'*') {
            i += 1;
        }
        if s[i..].starts_with("::") {
            i += 2;
        } else {
            return (vec![prefix], i);
        }
    }
}

/// Every module path `f` names, with the text that names it.
fn imports(f: &File, children: &BTreeSet<String>) -> Vec<(Vec<String>, String)> {
    let parent: Vec<String> = if f.module.is_empty() {
        Vec::new()
    } else {
        f.module[..f.module.len() - 1].to_vec()
    };
    let crate_name = if f.path == "src/main.rs" {
        "langbench::"
    } else {
        "crate::"
    };
    let mut out = Vec::new();
    let t = &f.text;
    let b = t.as_bytes();
    for (at, _) in t.match_indices("::") {
        // The first segment of a path: a whole word before `::`, not itself
        // after a `::`.
        let mut start = at;
        while start > 0 && is_ident(b[start - 1] as char) {
            start -= 1;
        }
        if start == at || (start >= 2 && &t[start - 2..start] == "::") {
            continue;
        }
        let word = &t[start..at + 2];
        let base: Vec<String> = if word == crate_name {
            Vec::new()
        } else if word == "super::" {
            parent.clone()
        } else if word == "self::" && f.is_mod_rs {
            f.module.clone()
        } else if f.is_mod_rs && children.contains(&word[..word.len() - 2]) {
            // `view::Mount` in `contain/mod.rs`: its own submodule.
            f.module.clone()
        } else {
            continue;
        };
        // A submodule's name is the path's first segment; `crate::`,
        // `super::` and `self::` are not.
        let mut from = if word == "self::" || word == crate_name || word == "super::" {
            at + 2
        } else {
            start
        };
        let mut base = base;
        if word == "super::" {
            while t[from..].starts_with("super::") {
                base.pop();
                from += "super::".len();
            }
        }
        let (paths, used) = tree(&t[from..]);
        let shown = t[start..from + used]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        for p in paths {
            out.push((base.iter().cloned().chain(p).collect(), shown.clone()));
        }
    }
    out
}

/// The file-level import graph: file → file it imports → the first text
/// that imports it.
fn graph() -> (Vec<String>, BTreeMap<String, BTreeMap<String, String>>) {
    let files = files();
    let by_module: BTreeMap<Vec<String>, String> = files
        .iter()
        .map(|f| (f.module.clone(), f.path.clone()))
        .collect();
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for f in &files {
        let children: BTreeSet<String> = f
            .text
            .lines()
            .filter_map(|l| {
                let l = l.trim().strip_prefix("pub ").unwrap_or(l.trim());
                let l = l.strip_prefix("pub(crate) ").unwrap_or(l);
                l.strip_prefix("mod ")?.strip_suffix(';').map(str::to_owned)
            })
            .collect();
        for (path, shown) in imports(f, &children) {
            // The deepest module file the path names.
            let to = (1..=path.len())
                .rev()
                .find_map(|n| by_module.get(&path[..n]));
            if let Some(to) = to
                && *to != f.path
            {
                edges
                    .entry(f.path.clone())
                    .or_default()
                    .entry(to.clone())
                    .or_insert(shown);
            }
        }
    }
    (files.into_iter().map(|f| f.path).collect(), edges)
}

/// One import cycle through `from`, if there is one: the files in order,
/// each with the text that imports the next.
fn cycle_through(
    from: &str,
    edges: &BTreeMap<String, BTreeMap<String, String>>,
) -> Option<Vec<(String, String)>> {
    // Breadth first, so the cycle shown is a shortest one.
    let mut came: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([from.to_owned()]);
    while let Some(at) = queue.pop_front() {
        for to in edges.get(&at).into_iter().flat_map(|m| m.keys()) {
            if to == from {
                let mut chain = vec![at.clone()];
                while let Some(prev) = came.get(chain.last().unwrap()) {
                    chain.push(prev.clone());
                }
                chain.reverse();
                chain.push(from.to_owned());
                return Some(
                    chain
                        .windows(2)
                        .map(|w| (w[0].clone(), edges[&w[0]][&w[1]].clone()))
                        .collect(),
                );
            }
            if to != from && !came.contains_key(to) {
                came.insert(to.clone(), at.clone());
                queue.push_back(to.clone());
            }
        }
    }
    None
}

/// Whether `to` is reached from `from` through imports.
fn reaches(from: &str, to: &str, edges: &BTreeMap<String, BTreeMap<String, String>>) -> bool {
    let mut seen = BTreeSet::from([from.to_owned()]);
    let mut stack = vec![from.to_owned()];
    while let Some(at) = stack.pop() {
        if at == to {
            return true;
        }
        for next in edges.get(&at).into_iter().flat_map(|m| m.keys()) {
            if seen.insert(next.clone()) {
                stack.push(next.clone());
            }
        }
    }
    false
}

#[test]
fn no_file_in_src_imports_itself_through_a_chain() {
    let (files, edges) = graph();
    assert!(
        edges.values().map(BTreeMap::len).sum::<usize>() > 100,
        "the imports of src/ were not read (the reading of `use crate::` broke?)"
    );
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut cycles = Vec::new();
    for f in &files {
        if seen.contains(f) {
            continue;
        }
        if let Some(c) = cycle_through(f, &edges) {
            // Every file tied with this one (each reaches the other) is
            // shown once, with the shortest cycle through the first.
            let tied: Vec<&String> = files
                .iter()
                .filter(|g| reaches(f, g, &edges) && reaches(g, f, &edges))
                .collect();
            seen.extend(tied.iter().map(|g| (*g).clone()));
            cycles.push(
                format!(
                    "{} files tied: {}\n  ",
                    tied.len(),
                    tied.iter()
                        .map(|g| g.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ) + &c
                    .iter()
                    .map(|(f, via)| format!("{f}  ({via})"))
                    .collect::<Vec<_>>()
                    .join("\n  → ")
                    + "\n  → back to the first",
            );
        }
    }
    assert!(
        cycles.is_empty(),
        "import cycles in src/ (each file imports the next, through the text in brackets); \
         move what both need below both:\n  {}",
        cycles.join("\n\n  ")
    );
}

/// ARCHITECTURE.md's layer table: each top-level module (`spawn`, `ws`,
/// `main.rs`) → its layer's number, from the rows under `## Layers`
/// (`| 1. facts | \`bench\`, \`spawn\` | … |`).
fn layers() -> BTreeMap<String, (usize, String)> {
    let doc = std::fs::read_to_string(util::repo().join("ARCHITECTURE.md")).unwrap();
    let section = doc
        .split("\n## Layers\n")
        .nth(1)
        .expect("ARCHITECTURE.md has a `## Layers` section")
        .split("\n## ")
        .next()
        .unwrap();
    let mut out = BTreeMap::new();
    for row in section.lines().filter(|l| l.starts_with('|')) {
        let cols: Vec<&str> = row.split('|').map(str::trim).collect();
        let Some((n, name)) = cols.get(1).and_then(|c| c.split_once(". ")) else {
            continue;
        };
        let Ok(n) = n.parse::<usize>() else {
            continue;
        };
        for m in cols[2].split('`').skip(1).step_by(2) {
            let prev = out.insert(m.to_owned(), (n, name.to_owned()));
            assert!(prev.is_none(), "`{m}` is in two layers of ARCHITECTURE.md");
        }
    }
    out
}

/// The layer of a file: the row naming its module or, failing that, the
/// nearest module above it (`src/compare/cpu.rs` is `compare::cpu` if the
/// table names it, else `compare`; `src/main.rs` is `main.rs`).
fn layer_of<'a>(
    path: &str,
    layers: &'a BTreeMap<String, (usize, String)>,
) -> Option<(&'a str, &'a (usize, String))> {
    let rel = path.strip_prefix("src/").unwrap();
    if rel == "main.rs" {
        return layers
            .get_key_value("main.rs")
            .map(|(k, v)| (k.as_str(), v));
    }
    let mut module: Vec<&str> = rel.trim_end_matches(".rs").split('/').collect();
    if module.last() == Some(&"mod") {
        module.pop();
    }
    (1..=module.len())
        .rev()
        .find_map(|n| layers.get_key_value(&module[..n].join("::")))
        .map(|(k, v)| (k.as_str(), v))
}

#[test]
fn every_module_imports_only_from_its_layer_or_below_as_architecture_md_draws_them() {
    let layers = layers();
    let (files, edges) = graph();
    let mut wrong = Vec::new();
    for f in &files {
        if f == "src/lib.rs" {
            continue;
        }
        let Some((m, (mine, name))) = layer_of(f, &layers) else {
            wrong.push(format!(
                "{f}: its module is in no layer of ARCHITECTURE.md's `## Layers` table"
            ));
            continue;
        };
        for (to, via) in edges.get(f).into_iter().flatten() {
            if let Some((t, (theirs, their_name))) = layer_of(to, &layers)
                && theirs > mine
            {
                wrong.push(format!(
                    "{f} (`{m}`, {mine}. {name}) imports {to} (`{t}`, {theirs}. {their_name}), \
                     a layer above, through `{via}`"
                ));
            }
        }
    }
    for m in layers.keys() {
        assert!(
            files
                .iter()
                .any(|f| layer_of(f, &layers).is_some_and(|(k, _)| k == m)),
            "ARCHITECTURE.md's layer table names `{m}`, which is no module of src/"
        );
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
