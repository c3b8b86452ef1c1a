//! `langbench list`: every variant, installed or not, its version and how to
//! install it.

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{ContentArrangement, Table};

use crate::config::Languages;
use crate::spawn::Spawner;
use crate::toolchain;

pub fn table(spawner: &Spawner, langs: &Languages) -> Table {
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
            "Install",
        ]);
    for v in &langs.variants {
        let info = toolchain::inspect(spawner, v);
        let benches: Vec<&str> = v.programs.keys().map(|b| b.name()).collect();
        let installed = if info.installed {
            "yes".to_string()
        } else {
            format!("no (missing {})", info.missing.join(", "))
        };
        let mut install = info.install_hint.clone();
        if !v.install.is_installable() {
            install.push_str(" [no registry here provides it]");
        }
        t.add_row(vec![
            v.id.clone(),
            v.language.clone(),
            v.flags.clone(),
            benches.join(" "),
            installed,
            info.version,
            install,
        ]);
    }
    t
}

/// The variants' notes, one line each, for under the table.
pub fn notes(langs: &Languages) -> String {
    langs
        .variants
        .iter()
        .filter_map(|v| v.note.as_ref().map(|n| format!("- {}: {n}\n", v.id)))
        .collect()
}
