//! What `languages.toml`'s reading reports: errors with file:line:column
//! ([`ConfigError`]), lints ([`Lint`]), and the reading's context that
//! places both ([`Ctx`]).
use std::path::PathBuf;

/// An error in `languages.toml`, pointing at the line and column.
#[derive(Debug, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct ConfigError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// A field that says what langbench would assume anyway: valid, but noise
/// for a reviewer. `langbench check` reports each as a problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lint {
    pub line: usize,
    pub column: usize,
    /// The variant id, or `toolchain.NAME`.
    pub variant: String,
    pub message: String,
    /// What to do about it.
    pub fix: String,
}

/// Byte offset → line and column, built once per file. (Counting newlines
/// from the start for every position made parsing quadratic: 8,000
/// variants took 14 s.)
pub(super) struct LineIndex {
    pub(super) starts: Vec<usize>,
}

impl LineIndex {
    pub(super) fn new(text: &str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { starts }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub(super) fn position(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts[line - 1];
        let column = text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count())
            + 1;
        (line, column)
    }
}

/// The one error-reporting context of a parse: every error and lint names
/// the file, the line and column of a byte offset, and the variant.
pub(super) struct Ctx<'a> {
    pub(super) file: String,
    pub(super) text: &'a str,
    pub(super) lines: LineIndex,
    pub(super) root: PathBuf,
    pub(super) lints: Vec<Lint>,
    /// Each `version_regex` compiled once per parse, by its text: most
    /// variants share their toolchain's, and compiling one is ~0.3 ms (a
    /// file of 6,500 variants spent 2 s on it, issue #41).
    pub(super) regexes: std::collections::HashMap<String, regex::Regex>,
    /// Real paths of the program files' directories, each resolved once.
    pub(super) canon: crate::canon::Canon,
}

impl Ctx<'_> {
    pub(super) fn err(
        &self,
        offset: usize,
        variant: Option<&str>,
        message: impl Into<String>,
    ) -> ConfigError {
        let (line, column) = self.lines.position(self.text, offset);
        let message = message.into();
        ConfigError {
            file: self.file.clone(),
            line,
            column,
            message: match variant {
                Some(id) => format!("variant {id:?}: {message}"),
                None => message,
            },
        }
    }

    pub(super) fn lint(&mut self, offset: usize, variant: &str, message: String, fix: String) {
        let (line, column) = self.lines.position(self.text, offset);
        self.lints.push(Lint {
            line,
            column,
            variant: variant.to_string(),
            message,
            fix,
        });
    }

    /// "delete line N": a field on a line of its own.
    pub(super) fn delete_line(&mut self, offset: usize, variant: &str, what: &str, why: &str) {
        let (line, _) = self.lines.position(self.text, offset);
        self.lint(
            offset,
            variant,
            format!("`{what}` {why}"),
            format!("delete line {line}"),
        );
    }
}
