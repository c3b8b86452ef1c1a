//! The table in Markdown, with the machine, the sizes and every failure.

use crate::report::Summary;

fn escape(s: &str) -> String {
    s.replace('|', "\\|")
}

pub fn table(s: &Summary) -> String {
    let header = s.header();
    let mut out = format!("| {} |\n", header.join(" | "));
    out.push('|');
    for i in 0..header.len() {
        out.push_str(if i < 3 { " --- |" } else { " ---: |" });
    }
    out.push('\n');
    for row in &s.rows {
        let cells: Vec<String> = s.row_texts(row).iter().map(|c| escape(c)).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out
}

pub fn summary(s: &Summary) -> String {
    let mut out = String::from("# langbench results\n\n");
    if let Some(m) = &s.machine {
        out.push_str(&format!("- Machine: {}\n", escape(&m.describe())));
    }
    out.push_str(&format!("- Sizes: {}\n", s.sizes_text()));
    out.push_str(
        "- Time: wall seconds of build + run, best of N runs; RAM: peak RSS in KB \
         (`wait4` rusage, as `/usr/bin/time %M`)\n",
    );
    out.push_str(&format!("- Sessions: {}\n\n", s.sessions.join(", ")));
    out.push_str(&table(s));
    let notes = s.notes();
    if !notes.is_empty() {
        out.push_str("\n\\* Cells that are not a plain correct time:\n\n");
        for n in notes {
            out.push_str(&format!("- {}\n", escape(&n)));
        }
    }
    out
}
