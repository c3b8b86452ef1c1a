//! The lints: fields that say what langbench would assume anyway (valid,
//! but noise for a reviewer; `langbench check` reports each).
use std::collections::BTreeMap;
use std::path::Path;

use crate::bench::Bench;

use super::errors::*;
use super::raw::*;
use super::variant::*;

/// A toolchain field that says what the conventions say.
pub(super) fn lint_toolchain(ctx: &mut Ctx, name: &str, t: &RawToolchain) {
    let who = format!("toolchain.{name}");
    if let (Some(v), Some(n)) = (&t.version, &t.needs)
        && n.get_ref()
            .first()
            .map(|p| format!("{p} --version"))
            .as_ref()
            == Some(v.get_ref())
    {
        ctx.delete_line(
            v.span().start,
            &who,
            "version",
            "is the default (`<first need> --version`)",
        );
    }
    if let Some(i) = &t.install
        && i.get_ref().hint.as_deref() == Some(&i.get_ref().derived_hint())
    {
        ctx.lint(
            i.span().start,
            &who,
            "`install.hint` says what the package lists say".into(),
            "delete the hint".into(),
        );
    }
}

/// A `programs` table that is exactly the convention for one extension.
pub(super) fn lint_programs_without_ext(
    ctx: &mut Ctx,
    id: &str,
    at: usize,
    rel: &BTreeMap<Bench, (String, usize)>,
) {
    let Some(ext) = rel
        .values()
        .next()
        .and_then(|(p, _)| Path::new(p).extension())
        .map(|e| e.to_string_lossy().into_owned())
    else {
        return;
    };
    let convention: BTreeMap<Bench, (String, usize)> = conventional_programs(id, &ext)
        .into_iter()
        .map(|(b, p)| (b, (p, 0)))
        .collect();
    let same = convention.len() == rel.len()
        && convention
            .iter()
            .all(|(b, (p, _))| rel.get(b).is_some_and(|(q, _)| p == q));
    if same {
        ctx.lint(
            at,
            id,
            format!("`programs` lists exactly the conventional paths for ext {ext:?}"),
            format!("replace the `programs` table with ext = {ext:?}"),
        );
    }
}
