//! `langbench list`: every variant, installed or not, and its version, in a
//! table that fits the terminal (`--wide`: every column uncut); `--long` adds how to install each and the
//! notes, `list ID` shows one variant in full, `--json` is for scripts.
//! Versions come from the version cache when nothing a probe runs changed,
//! else from probes run a few at a time (`--refresh`: all probed).

use std::process::ExitCode;

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{ContentArrangement, Table};

use crate::config::{Languages, Variant};
use crate::record::VariantInfo;
use crate::toolchain;
use crate::version_cache::{Cache, Key};
use langbench_spawn::Spawner;

/// Each variant with what is installed and its version: from the version
/// cache where what its probe runs has not changed (see
/// [`crate::version_cache`]), else probed, a few at a time; `refresh`
/// probes every one. The versions probed are cached for the next time.
pub(crate) fn inspect<'a>(
    spawner: &Spawner,
    variants: &[&'a Variant],
    refresh: bool,
) -> Vec<(&'a Variant, VariantInfo)> {
    let mut cache = if refresh {
        Cache::empty()
    } else {
        Cache::load()
    };
    let mut versions: Vec<Option<String>> = Vec::new();
    let mut probe: Vec<(usize, Key)> = Vec::new();
    let missing: Vec<Vec<String>> = variants.iter().map(|v| v.missing()).collect();
    let containment = spawner.containment.describe();
    for (i, v) in variants.iter().enumerate() {
        if !missing[i].is_empty() {
            versions.push(Some(String::new()));
            continue;
        }
        let key = Key::of(v, &containment);
        versions.push(cache.get(&v.id, &key).map(String::from));
        if versions[i].is_none() {
            probe.push((i, key));
        }
    }
    if !probe.is_empty() {
        let installed = missing.iter().filter(|m| m.is_empty()).count();
        if probe.len() < installed {
            eprintln!(
                "probing {} of {installed} toolchains' versions (the others' are cached: \
                 nothing their probes run changed; `list --refresh` probes all)",
                probe.len(),
            );
        }
        let to_probe: Vec<&Variant> = probe.iter().map(|(i, _)| variants[*i]).collect();
        let probed =
            toolchain::probe_all(&to_probe, &|v| toolchain::version(spawner, v), &|_, _| {})
                .unwrap_or_default();
        for ((i, key), got) in probe.into_iter().zip(probed) {
            versions[i] = Some(match got {
                Ok(version) => {
                    cache.set(&variants[i].id, key, version.clone());
                    version
                }
                Err(e) => format!("unknown ({e})"),
            });
        }
        if let Err(e) = cache.save() {
            eprintln!("warning: cannot write the version cache: {e:#}");
        }
    }
    variants
        .iter()
        .zip(missing)
        .zip(versions)
        .map(|((v, missing), version)| {
            (*v, toolchain::info(v, missing, version.unwrap_or_default()))
        })
        .collect()
}

/// Contributed text (a language, flags, a probe's version, a note, a
/// hint) as `list` prints it: inert (crates/document/src/inert.rs), one line.
fn shown(s: &str) -> String {
    langbench_document::inert::text(s)
}

/// The default table: id, language, flags, installed, version, fitted to
/// `width` as every terminal table is ([`langbench_document::export::terminal`]: the
/// id and the flags, which tell variants apart, are never cut; `None`:
/// every column uncut), then a line on what else `list` shows.
pub(crate) fn short(rows: &[(&Variant, VariantInfo)], width: Option<usize>) -> String {
    use langbench_document::columns::{Columns, col};
    use langbench_document::{Document, Entry, Kind::Text, Table};
    type Row<'r> = (&'r Variant, VariantInfo);
    let mut c: Columns<Row> = Columns::new();
    c.add(col("id", "id", Text).id(), |(v, _)| Entry::text(&v.id));
    c.add(col("language", "language", Text), |(v, _)| {
        Entry::text(shown(&v.language))
    });
    c.add(col("flags", "flags", Text).id(), |(v, _)| {
        Entry::text(shown(&v.flags))
    });
    c.add(col("installed", "installed", Text), |(_, i)| {
        Entry::text(if i.installed { "yes" } else { "no" })
    });
    c.add(col("version", "version", Text).detail(), |(_, i)| {
        Entry::text(shown(&i.version))
    });
    let doc = Document {
        tables: vec![Table {
            id: "list".into(),
            title: "Variants".into(),
            columns: c.columns(),
            rows: c.rows(rows),
            notes: Vec::new(),
            data_only: false,
            labels: 1,
            streamed: None,
        }],
        ..Default::default()
    };
    let mut out = langbench_document::export::terminal::document_fit(&doc, width);
    let installed = rows.iter().filter(|(_, i)| i.installed).count();
    let line = format!(
        "{installed} of {} installed; how to install the others: `list --long`; one in full: `list ID`",
        rows.len()
    );
    out.push_str(&langbench_document::export::terminal::wrapped(
        &line, width, "  ",
    ));
    out.push('\n');
    out
}

/// The wide table: benchmarks, what is missing, how to install.
pub(crate) fn long(rows: &[(&Variant, VariantInfo)]) -> Table {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header([
            "Id",
            "Language",
            "Command Flags",
            "Benchmarks",
            "Installed",
            "Version",
            "Caches",
            "Install",
        ]);
    for (v, info) in rows {
        let benches: Vec<&str> = v.programs.keys().map(|b| b.name()).collect();
        t.add_row(vec![
            v.id.clone(),
            shown(&v.language),
            shown(&v.flags),
            benches.join(" "),
            installed(info),
            shown(&info.version),
            info.caches_kb
                .map_or_else(|| "-".to_string(), crate::state::mb),
            install(v, info),
        ]);
    }
    t
}

fn installed(info: &VariantInfo) -> String {
    if info.installed {
        "yes".to_string()
    } else {
        format!("no (missing {})", shown(&info.missing.join(", ")))
    }
}

fn install(v: &Variant, info: &VariantInfo) -> String {
    let mut s = shown(&info.install_hint);
    if !v.install.is_installable() {
        s.push_str(" [no registry here provides it]");
    }
    s
}

/// One variant in full, one field a line.
pub(crate) fn detail(langs: &Languages, v: &Variant, info: &VariantInfo) -> String {
    let mut out = format!(
        "{} ({}:{})\n",
        v.id,
        shown(&langs.path.display().to_string()),
        v.line
    );
    let mut field = |k: &str, val: String| {
        if !val.is_empty() {
            out.push_str(&format!("  {k:<11} {}\n", shown(&val)));
        }
    };
    field("language", v.language.clone());
    field("flags", v.flags.clone());
    field("library", v.library.clone().unwrap_or_default());
    field("installed", installed(info));
    field("version", info.version.clone());
    field("install", install(v, info));
    field("needs", v.needs.join(" "));
    field("version-cmd", v.version.text.clone());
    for t in &v.prepare {
        field("prepare", t.text.clone());
    }
    for t in &v.build {
        field("build", t.text.clone());
    }
    field("run", v.run.text.clone());
    for (b, p) in &v.programs {
        let rel = p.strip_prefix(v.root()).unwrap_or(p);
        field(b.name(), rel.display().to_string());
    }
    field("note", v.note.clone().unwrap_or_default());
    out
}

/// The variants as JSON: what `list` and `list --long` show, and the
/// environment a run of each gets.
pub(crate) fn json(rows: &[(&Variant, VariantInfo)]) -> serde_json::Value {
    serde_json::Value::Array(
        rows.iter()
            .map(|(v, i)| {
                serde_json::json!({
                    "id": v.id,
                    "language": v.language,
                    "flags": v.flags,
                    "library": v.library,
                    "installed": i.installed,
                    "missing": i.missing,
                    "version": i.version,
                    "install_hint": i.install_hint,
                    "installable": v.install.is_installable(),
                    "benchmarks": v.programs.keys().map(|b| b.name()).collect::<Vec<_>>(),
                    "note": v.note,
                    "line": v.line,
                    // What a run of it gets in its environment beyond
                    // langbench's own (its toolchain's launchers first on
                    // PATH, its `env`): what a person runs it with by hand
                    // (benches/fidelity.py).
                    "env": v
                        .request(Vec::new(), std::path::Path::new("."))
                        .env
                        .into_iter()
                        .collect::<std::collections::BTreeMap<_, _>>(),
                })
            })
            .collect(),
    )
}

/// The variants' notes, one line each, for under the table.
pub(crate) fn notes(variants: &[&Variant]) -> String {
    variants
        .iter()
        .filter_map(|v| {
            v.note
                .as_ref()
                .map(|n| format!("- {}: {}\n", v.id, shown(n)))
        })
        .collect()
}

/// `langbench list`: the variants named by `ids` (default: all) as JSON,
/// in full when named, as the long table, or as the short one; versions
/// from the cache unless `refresh`.
pub fn command(
    spawner: &Spawner,
    langs: &Languages,
    ids: &[String],
    long: bool,
    json: bool,
    refresh: bool,
    width: Option<usize>,
) -> anyhow::Result<ExitCode> {
    let variants = langs.select(ids)?;
    let rows = inspect(spawner, &variants, refresh);
    if json {
        println!("{}", serde_json::to_string_pretty(&self::json(&rows))?);
    } else if !ids.is_empty() {
        for (v, info) in &rows {
            print!("{}", detail(langs, v, info));
        }
    } else if long {
        println!("{}", self::long(&rows));
        print!("Notes:\n{}", notes(&variants));
    } else {
        print!("{}", short(&rows, width));
    }
    Ok(ExitCode::SUCCESS)
}
