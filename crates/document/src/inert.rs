//! Contributed text made inert for a terminal and for every published
//! format, and bounded. A `languages.toml` field, a probe's version, a
//! program's stderr or an imported edition's cell can hold terminal
//! escapes (OSC 52 writes the clipboard, OSC 0 the window title, CSI
//! moves the cursor over what was printed), other control characters
//! (BEL, a carriage return that hides the start of a line), or
//! bidirectional overrides that make a line read differently than it is.
//! [`text`] and [`block`] are the one place that removes them: every
//! terminal print of such text (`list`, `check`, the tables, warnings and
//! errors) and every renderer (terminal, Markdown, CSV, xlsx, SVG, HTML)
//! goes through them.
//!
//! They also bound a field's length: [`MAX_FIELD`] where contributed text
//! enters (the languages file, records as they are read, imported
//! editions), [`MAX_TEXT`] where any text is rendered (a composite of
//! fields, such as a session's line, can be longer than one field).

/// The longest a single contributed field may be, in characters: a field
/// of `languages.toml` (longer is an error naming its line), a text field
/// of a record as it is read (longer is cut, with a warning), a cell of an
/// imported edition. The longest such field today is a variant's note
/// (chakracore's, 1,173 characters); a stderr tail in a note stays under
/// 400, a version under 100. 4,096 leaves that note room to grow three
/// times, while one field can no longer fill a page: a 30 MB name once
/// made a 660 MB report.html and 1.8 GB of langbench's memory.
pub const MAX_FIELD: usize = 4096;

/// The longest one line of text is rendered, in characters: four fields'
/// worth, for the texts langbench composes from several (a session's
/// machine, versions and command line; a cell's note that quotes a
/// field). The longest line of any published file today is under 1,000.
pub const MAX_TEXT: usize = 4 * MAX_FIELD;

/// The longest a program's source is shown in report.html, in characters
/// (`summary::measured` bounds it in bytes already; this is the renderer's
/// own bound).
pub const MAX_SOURCE: usize = 1 << 20;

/// `s` on one line, inert: escape sequences (CSI, OSC, DCS, ...) removed
/// whole, every other control character removed (a line break or a tab
/// becomes a space), bidirectional controls removed; cut at
/// [`MAX_TEXT`] characters with `…`.
pub fn text(s: &str) -> String {
    clean(s, false, MAX_TEXT)
}

/// [`text`], keeping line breaks and tabs (a list of commands, a stderr
/// tail, a CSV field, which quotes them; a program's source with `max`
/// [`MAX_SOURCE`]); cut at `max` characters.
pub fn block(s: &str, max: usize) -> String {
    clean(s, true, max)
}

/// `s` cut to at most `max` characters, with `…` in place of the rest.
pub fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some(_) => {
            let end = s
                .char_indices()
                .nth(max.saturating_sub(1))
                .map_or(0, |(i, _)| i);
            format!("{}…", &s[..end])
        }
    }
}

/// Whether `s` would come out of [`text`] unchanged but for its length:
/// nothing to remove.
pub fn is_clean(s: &str) -> bool {
    !s.chars().any(|c| c.is_control() || is_bidi(c))
}

/// The characters that reorder text (Unicode's bidirectional formatting
/// characters, the "Trojan Source" ones): never shown.
fn is_bidi(c: char) -> bool {
    matches!(
        c,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

/// What the escape-sequence parser leaves: printed characters and, as
/// asked, line breaks and tabs.
struct Kept {
    out: String,
    lines: bool,
    left: usize,
    cut: bool,
}

impl Kept {
    fn push(&mut self, c: char) {
        if self.left == 0 {
            self.cut = true;
            return;
        }
        self.left -= 1;
        self.out.push(c);
    }
}

impl vte::Perform for Kept {
    fn print(&mut self, c: char) {
        // The parser hands C1 controls in UTF-8 form (U+0080–U+009F) on
        // as printable characters.
        if !c.is_control() && !is_bidi(c) {
            self.push(c);
        }
    }

    fn execute(&mut self, byte: u8) {
        match byte {
            b'\n' | b'\t' if self.lines => self.push(byte as char),
            b'\n' | b'\t' => self.push(' '),
            // A carriage return, BEL, backspace, ...: nothing.
            _ => {}
        }
    }
}

fn clean(s: &str, lines: bool, max: usize) -> String {
    // Plain text (nearly every field) needs no parser.
    if is_clean(s) {
        return clip(s, max);
    }
    let mut kept = Kept {
        out: String::with_capacity(s.len().min(max * 4)),
        lines,
        left: max,
        cut: false,
    };
    let mut parser = vte::Parser::new();
    parser.advance(&mut kept, s.as_bytes());
    if kept.cut {
        kept.out.pop();
        kept.out.push('…');
    }
    kept.out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_controls_and_overrides_go_and_lines_join() {
        // OSC 52 (clipboard), OSC 0 (title) ended by BEL and by ST, a
        // colour, a cursor move, a C1 CSI, a carriage return, a bidi
        // override, a lone ESC.
        let hostile = "1.0\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;pwned\x1b\\ \x1b[31mred\x1b[0m\x1b[2J\
                       \u{9b}31m x\r\ny\tz \u{202e}evil\u{202c} \x1bend\x08";
        let t = text(hostile);
        assert_eq!(t, "1.0 red31m x y z evil nd");
        assert!(is_clean(&t));
        let b = block("a\tb\nc\x1b[1md\r\n", MAX_TEXT);
        assert_eq!(b, "a\tb\ncd\n");
    }

    #[test]
    fn plain_text_is_unchanged_and_long_text_is_cut() {
        for s in ["", "go run", "Crystal 1.14 · LLVM 18 (« » ≈ →)", "a  b"] {
            assert_eq!(text(s), s);
        }
        let long = "é".repeat(MAX_TEXT + 10);
        let t = text(&long);
        assert_eq!(t.chars().count(), MAX_TEXT);
        assert!(t.ends_with('…'));
        let t = text(&format!("\x1b[1m{long}"));
        assert_eq!(t.chars().count(), MAX_TEXT);
        assert!(t.ends_with('…'));
        assert_eq!(clip("abcdef", 3), "ab…");
        assert_eq!(clip("abc", 3), "abc");
    }
}
