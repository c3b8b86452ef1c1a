//! No function in `src/` is longer than [`LIMIT`] lines (issue #38): a
//! function that does one thing reads in one screenful or two, and a
//! table builder that grows a column at a time crosses the line here
//! instead of in review.
//!
//! The sources are parsed with `syn` (already in Cargo.lock through the
//! derive macros; `proc-macro2`'s `span-locations` gives line numbers),
//! not matched by hand: raw strings, char literals and lifetimes, and
//! braces inside them, are the parser's problem. The crate is read as the
//! compiler reads it, from `lib.rs` and `main.rs` through every `mod x;`,
//! so a `#[cfg(test)]` module (inline or in its own file) is left out
//! with everything beneath it; so is a `#[cfg(test)]` function or impl.

use std::path::{Path, PathBuf};

use syn::visit::{self, Visit};

use crate::util;

/// The most lines a function in `src/` may take, from its `fn` line to
/// its closing brace.
const LIMIT: usize = 120;

/// One function: where it starts, its name (`Type::method` inside an
/// impl or trait) and its length in lines.
struct Function {
    place: String,
    name: String,
    lines: usize,
}

/// `#[cfg(test)]`, exactly: what the crate compiles for its unit tests only.
fn test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test")
    })
}

/// The name an impl block's functions are listed under: its type's last
/// path segment (`impl Display for Layout` gives `Layout`).
fn type_name(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Path(p) => p
            .path
            .segments
            .last()
            .map_or_else(String::new, |s| s.ident.to_string()),
        _ => "_".to_owned(),
    }
}

/// Collects every function of one file that is not test-only.
struct Sizes<'a> {
    file: &'a str,
    scope: Vec<String>,
    out: &'a mut Vec<Function>,
}

impl Sizes<'_> {
    fn record(&mut self, sig: &syn::Signature, body: &syn::Block) {
        let start = sig.fn_token.span.start().line;
        let end = body.brace_token.span.close().end().line;
        let mut name = self.scope.clone();
        name.push(sig.ident.to_string());
        self.out.push(Function {
            place: format!("{}:{start}", self.file),
            name: name.join("::"),
            lines: end - start + 1,
        });
    }
}

impl<'ast> Visit<'ast> for Sizes<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if !test_only(&m.attrs) {
            visit::visit_item_mod(self, m);
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !test_only(&f.attrs) {
            self.record(&f.sig, &f.block);
            visit::visit_item_fn(self, f);
        }
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if !test_only(&i.attrs) {
            self.scope.push(type_name(&i.self_ty));
            visit::visit_item_impl(self, i);
            self.scope.pop();
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !test_only(&f.attrs) {
            self.record(&f.sig, &f.block);
            visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        if !test_only(&t.attrs) {
            self.scope.push(t.ident.to_string());
            visit::visit_item_trait(self, t);
            self.scope.pop();
        }
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let (false, Some(body)) = (test_only(&f.attrs), &f.default) {
            self.record(&f.sig, body);
            visit::visit_trait_item_fn(self, f);
        }
    }
}

/// Reads `path` (a module whose submodules live in `dir`) and, through its
/// `mod x;` declarations that are not test-only, every file beneath it.
fn read_module(path: &Path, dir: &Path, out: &mut Vec<Function>) {
    let text = std::fs::read_to_string(path).unwrap();
    let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let rel = path.strip_prefix(util::repo()).unwrap();
    let rel = rel.to_string_lossy().replace('\\', "/");
    Sizes {
        file: &rel,
        scope: Vec::new(),
        out,
    }
    .visit_file(&file);
    for item in &file.items {
        let syn::Item::Mod(m) = item else { continue };
        if m.content.is_some() || test_only(&m.attrs) {
            continue;
        }
        let name = m.ident.to_string();
        let flat = dir.join(format!("{name}.rs"));
        let (child, child_dir): (PathBuf, PathBuf) = if flat.is_file() {
            (flat, dir.join(&name))
        } else {
            (dir.join(&name).join("mod.rs"), dir.join(&name))
        };
        read_module(&child, &child_dir, out);
    }
}

/// Every function of the library, the binary and the workspace's crates
/// (crates/*/src/lib.rs), longest first.
fn functions() -> Vec<Function> {
    let repo = util::repo();
    let src = repo.join("src");
    let mut out = Vec::new();
    for root in ["lib.rs", "main.rs"] {
        read_module(&src.join(root), &src, &mut out);
    }
    for c in std::fs::read_dir(repo.join("crates")).unwrap().flatten() {
        let src = c.path().join("src");
        read_module(&src.join("lib.rs"), &src, &mut out);
    }
    out.sort_by(|a, b| b.lines.cmp(&a.lines).then(a.place.cmp(&b.place)));
    out
}

#[test]
fn no_function_in_src_is_longer_than_the_limit() {
    let all = functions();
    // The figures a closing note quotes (`-- --nocapture` shows them).
    println!("{} functions outside tests; the longest:", all.len());
    for f in all.iter().take(5) {
        println!("  {:4} lines  {} {}", f.lines, f.place, f.name);
    }
    let over_100 = all.iter().filter(|f| f.lines > 100).count();
    println!("{over_100} over 100 lines");
    let over: Vec<String> = all
        .iter()
        .filter(|f| f.lines > LIMIT)
        .map(|f| format!("{}:{} is {} lines", f.place, f.name, f.lines))
        .collect();
    assert!(
        over.is_empty(),
        "functions over {LIMIT} lines (split them into functions that each do one thing):\n{}",
        over.join("\n")
    );
}

/// The reader finds what it should: a known function of the crate, and
/// nothing from a test module.
#[test]
fn the_size_reader_sees_the_crate_and_not_its_tests() {
    let all = functions();
    assert!(all.len() > 500, "only {} functions read", all.len());
    assert!(
        all.iter()
            .any(|f| f.name == "main" && f.place.starts_with("src/main.rs:")),
        "main.rs's main not read"
    );
    assert!(
        all.iter()
            .any(|f| f.name == "init_main" && f.place.starts_with("crates/spawn/src/")),
        "crates/spawn's init_main not read"
    );
    assert!(
        !all.iter()
            .any(|f| f.place.contains("/tests.rs:") || f.place.starts_with("src/testing.rs:")),
        "a test-only file was read"
    );
}
