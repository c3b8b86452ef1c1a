//! The format-neutral model every output goes through: a [`Document`] holds
//! facts about the measurement ([`Document::meta`]), [`Table`]s and
//! [`BarChart`]s. The summary, the runs, the WebSocket table and `compare`
//! each build a `Document`; each format module (terminal, Markdown, CSV,
//! xlsx, SVG, HTML) renders one without knowing where the figures came from.
//!
//! A table's [`Entry`] carries both the text a reader sees (`1.23 (exit
//! 25)`) and the plain value a spreadsheet needs (`1.23`), and a [`Mark`]
//! saying whether it is a plain correct figure; a failed entry has no
//! value, so no format can show it as a number. (An entry, not a "cell":
//! in langbench a cell is one variant × one benchmark, `summary::Cell`.)
//!
//! Its face, to every table's builder and every format: `Document`,
//! `Table` and its [`Column`]s ([`Kind`], [`Show`], [`Priority`]),
//! [`Entry`] (its constructors, [`Value`], [`Mark`], [`Flag`]), `Note`,
//! `BarChart` (`BarRow`, `Bar`, `Unit`), `Measured`
//! (`MeasuredBench`, `SourceFile`), `thousands`, and [`columns`]'s
//! `Columns` and `col`; the rest is its inside.

#![forbid(unsafe_code)]

use compact_str::CompactString;
use serde::Serialize;

pub mod columns;
pub mod export;
pub mod inert;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

/// One document: what was measured, where, and its tables and charts.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Document {
    pub title: String,
    /// Facts shown above the tables: ("Machine", "..."), ("Sizes", "...").
    pub meta: Vec<(String, String)>,
    /// Facts a reader opens when they want them (the session ids): a
    /// collapsed block in HTML, a list in Markdown, the About sheet;
    /// not on the terminal.
    pub details: Vec<(String, String)>,
    pub tables: Vec<Table>,
    pub charts: Vec<BarChart>,
    /// What was measured, per variant: its programs, commands, toolchain,
    /// identity and note (HTML sections linked from the rows, a sheet).
    pub measured: Vec<Measured>,
    /// What the maintainer could do about the notes (`--resume`, a quieter
    /// machine): printed on the terminal only, never in a published file.
    pub advice: Vec<String>,
    /// The time of the newest record the document was made from (RFC 3339,
    /// UTC): the time a file that must carry one carries (the xlsx's
    /// creation time), so the same records give the same bytes.
    pub as_of: Option<String>,
}

/// One variant's "what was measured": shown as a section of the report,
/// linked from its rows by [`Measured::anchor_of`].
#[derive(Debug, Clone, Default, Serialize)]
pub struct Measured {
    pub variant: String,
    /// `Language · flags`, as the row shows it.
    pub label: String,
    pub version: String,
    /// The variant's `note` from the languages file.
    pub note: Option<String>,
    /// One per benchmark it has figures or a program for.
    pub benches: Vec<MeasuredBench>,
    /// Where the commands, sources and note come from (the records, the
    /// languages file, or nowhere), in a sentence.
    pub source_of: String,
}

impl Measured {
    /// The HTML anchor of a variant's section.
    pub fn anchor_of(variant: &str) -> String {
        let safe: String = variant
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!("variant-{safe}")
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct MeasuredBench {
    pub bench: String,
    /// The commands that ran, placeholders expanded.
    pub commands: Vec<String>,
    /// Where `commands` come from ("recorded with the runs", "the languages
    /// file's templates, expanded: not recorded with these runs").
    pub commands_from: String,
    /// The program identity digest of the shown runs, or "unknown".
    pub identity: String,
    /// The toolchain version the runs recorded.
    pub toolchain: String,
    /// CPU seconds (user + sys) and wall seconds of the shown run.
    pub cpu_s: Option<f64>,
    pub wall_s: Option<f64>,
    /// The program's source files (path, text or why it is not shown).
    pub files: Vec<SourceFile>,
    /// Whether the source shown is the one that ran, in a sentence.
    pub verified: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SourceFile {
    /// Relative to the languages file's directory.
    pub path: String,
    /// The text, or why it is not shown (too large, not text, outside the
    /// checkout).
    pub text: Result<String, String>,
}

/// Where a column appears.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Show {
    /// In the human tables (terminal, Markdown, HTML) and the data files
    /// (CSV, xlsx).
    Both,
    /// Only in CSV and xlsx (plain values: status names, ids, raw numbers).
    Data,
    /// Only in the human tables (combined texts such as `1.20 → 0.95`).
    Display,
    /// Secondary: in the data files and on the page behind its "more
    /// columns" switch, not in the terminal or Markdown tables (CPU
    /// seconds, relative figures).
    Extra,
}

/// What a column holds: decides alignment, CSV precision and the
/// spreadsheet's number format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Text,
    /// Seconds; `decimals` digits in CSV.
    Seconds {
        decimals: usize,
    },
    /// Kilobytes, an integer.
    Kb,
    /// Any integer count (N, runs, errors, connections, rank).
    Count,
    /// A dimensionless ratio (new / old, or relative to a variant).
    Ratio,
    /// A fraction shown as a percentage (a coefficient of variation: 0.05
    /// is 5%).
    Percent,
    /// A decimal figure with `decimals` digits (rps, ms, MB, cores).
    Decimal {
        decimals: usize,
    },
    /// A number written in its shortest exact form (a delay of 1000 or 0.5 ms).
    Number,
    /// A place (1 = first), an integer; one shared with another row (a
    /// tie) is written `=3` in every format (issue #60): the entry's text
    /// in CSV, a number shown `=3` by its format in the spreadsheet (so
    /// it still sorts as a number).
    Rank,
}

impl Kind {
    /// Right-aligned in human tables.
    pub fn is_numeric(self) -> bool {
        self != Kind::Text
    }
}

/// How much a human table needs a column, for a renderer that leaves
/// columns out to fit a width (the terminal): the [`Priority::Detail`]
/// ones go first, then [`Priority::Main`] ones if it must; an
/// [`Priority::Id`] column, which tells the rows apart, never goes. (Which
/// formats show a column at all is its [`Show`].)
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Priority {
    /// Names the row (language, command flags; a server, a delay).
    Id,
    /// The figures the table is for (each benchmark's time, the totals,
    /// the rank).
    #[default]
    Main,
    /// Shown where there is room (each benchmark's RAM beside its total).
    Detail,
}

/// One column of a [`Table`]. Table modules declare theirs once, with the
/// value of each row, in a [`columns::Columns`].
#[derive(Debug, Clone, Serialize)]
pub struct Column {
    /// Header in human tables and the spreadsheet.
    pub header: String,
    /// Header in CSV (snake_case, stable: scripts read it).
    pub key: String,
    pub kind: Kind,
    /// Which formats show it.
    pub show: Show,
    /// Whether a narrow human table may leave it out.
    pub priority: Priority,
    /// This column is the sum of these columns (indices into
    /// [`Table::columns`]); the spreadsheet writes it as a formula.
    pub sum_of: Vec<usize>,
}

impl Column {
    pub fn new(header: impl Into<String>, key: impl Into<String>, kind: Kind, show: Show) -> Self {
        Column {
            header: header.into(),
            key: key.into(),
            kind,
            show,
            priority: Priority::default(),
            sum_of: Vec::new(),
        }
    }

    /// In the terminal and Markdown tables (and on the page).
    pub fn in_display(&self) -> bool {
        matches!(self.show, Show::Both | Show::Display)
    }

    /// On the page (the display columns and the secondary ones).
    pub fn in_page(&self) -> bool {
        self.show != Show::Data
    }

    fn in_data(&self) -> bool {
        self.show != Show::Display
    }
}

/// Whether an entry is a plain correct figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mark {
    /// A correct figure, or plain text.
    #[default]
    Plain,
    /// A figure that is not a plain correct one (non-zero exit, wrong
    /// output, timed out, size or machine mismatch in a comparison, a
    /// partial total): show it, and say why.
    Flagged,
    /// No figure: failed, crashed, did not finish, not run, not installed.
    Failed,
}

/// What kind of mark an entry carries, so each looks different (colour,
/// pattern and a word that reads without hovering): the [`Mark`] says how
/// it sorts and whether it is a figure; the flag says why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Flag {
    /// Its runs spread more than the noise threshold.
    Noisy,
    /// Fewer runs than the session asked for (interrupted).
    PartialCell,
    /// Right output with a non-zero exit, or a wrong output.
    Wrong,
    /// Work escaped the process's own figures.
    Escaped,
    /// Killed at the timeout: no time.
    Timeout,
    /// Failed, crashed, out of memory, did not finish: no figure.
    Failed,
    /// A total over fewer than every benchmark: not comparable.
    Partial,
    /// No run of it in this directory (or no program for it).
    NotRun,
    /// Measured on another machine than the rest of the table.
    Machine,
    /// A change beyond the noise (compare).
    Faster,
    Slower,
    /// Not compared: different N, different machines.
    Incomparable,
}

impl Flag {
    /// Its name: the HTML class (`flag-noisy`) and the legend's word.
    pub fn name(self) -> &'static str {
        match self {
            Flag::Noisy => "noisy",
            Flag::PartialCell => "partial-cell",
            Flag::Wrong => "wrong",
            Flag::Escaped => "escaped",
            Flag::Timeout => "timeout",
            Flag::Failed => "failed",
            Flag::Partial => "partial",
            Flag::NotRun => "not-run",
            Flag::Machine => "machine",
            Flag::Faster => "faster",
            Flag::Slower => "slower",
            Flag::Incomparable => "incomparable",
        }
    }

    /// What the flag means, for the legend.
    pub fn meaning(self) -> &'static str {
        match self {
            Flag::Noisy => "noisy: its runs spread more than the threshold",
            Flag::PartialCell => "fewer runs than asked for (interrupted)",
            Flag::Wrong => "non-zero exit or wrong output",
            Flag::Escaped => {
                "work escaped the process's own figures, or was done before it (REMEMBERED)"
            }
            Flag::Timeout => "killed at the timeout: no time",
            Flag::Failed => "failed, crashed or out of memory: no figure",
            Flag::Partial => "partial total: not every benchmark has a figure",
            Flag::NotRun => "not run here (or no program)",
            Flag::Machine => "measured on another machine",
            Flag::Faster => "faster, beyond the noise",
            Flag::Slower => "slower, beyond the noise",
            Flag::Incomparable => "not compared (different N or machine)",
        }
    }
}

/// A note under a table, keyed by what its row shows (`Go · go run /
/// assoc`), so a reader finds the row without an id the table hides.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Note {
    pub key: String,
    pub text: String,
}

impl Note {
    pub fn new(key: impl Into<String>, text: impl Into<String>) -> Note {
        Note {
            key: key.into(),
            text: text.into(),
        }
    }
}

/// A note without a key (its text says what it is about).
impl From<String> for Note {
    fn from(text: String) -> Note {
        Note {
            key: String::new(),
            text,
        }
    }
}

impl From<&str> for Note {
    fn from(text: &str) -> Note {
        Note::from(text.to_string())
    }
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.key.is_empty() {
            f.write_str(&self.text)
        } else {
            write!(f, "{}: {}", self.key, self.text)
        }
    }
}

/// The plain value behind an entry.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(untagged)]
pub enum Value {
    #[default]
    Empty,
    Text(CompactString),
    Number(f64),
    Int(i64),
    Bool(bool),
}

/// One entry of a [`Table`]: a row's value in one column.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Entry {
    /// What a reader sees. Most texts (figures, names, status words) are
    /// short enough to live in the entry itself, not on the heap
    /// (`CompactString`: up to 24 bytes inline): 2 million of them at
    /// 6,500 variants were 89 MB of small allocations (issue #41).
    pub text: CompactString,
    /// What a spreadsheet or script gets.
    pub value: Value,
    pub mark: Mark,
    /// What kind of mark it is (drawn distinctly); `None`: by [`Mark`].
    pub flag: Option<Flag>,
    /// The parts few entries have, boxed: an entry is 72 bytes, not 136,
    /// and a 6,500-variant directory's runs table alone holds 1.3 million
    /// (issue #41).
    #[serde(flatten)]
    more: Option<Box<More>>,
}

/// An [`Entry`]'s rarer parts.
#[derive(Debug, Clone, Default, Serialize)]
struct More {
    /// Why the entry is flagged or failed (a spreadsheet comment, a tooltip).
    note: Option<String>,
    /// The range the figure's runs (or a ratio's confidence interval)
    /// span, drawn as whiskers beside it.
    interval: Option<(f64, f64)>,
    /// A link target on the page (the variant's "what was measured").
    link: Option<String>,
}

impl Entry {
    /// Plain text (a name, a version).
    pub fn text(s: impl Into<CompactString>) -> Entry {
        let s = s.into();
        Entry {
            value: Value::Text(s.clone()),
            text: s,
            ..Default::default()
        }
    }

    /// A number with its display text.
    pub fn number(v: f64, text: impl Into<CompactString>) -> Entry {
        Entry {
            text: text.into(),
            value: Value::Number(v),
            ..Default::default()
        }
    }

    pub fn int(v: i64, text: impl Into<CompactString>) -> Entry {
        Entry {
            text: text.into(),
            value: Value::Int(v),
            ..Default::default()
        }
    }

    #[cfg(test)]
    pub(crate) fn bool(v: bool) -> Entry {
        Entry {
            text: v.to_string().into(),
            value: Value::Bool(v),
            ..Default::default()
        }
    }

    /// No value; shows `text` (often `-` or empty).
    pub fn empty(text: impl Into<CompactString>) -> Entry {
        Entry {
            text: text.into(),
            ..Default::default()
        }
    }

    pub fn marked(mut self, mark: Mark, note: Option<String>) -> Entry {
        self.mark = mark;
        self.set_note(note);
        self
    }

    pub fn flagged(mut self, flag: Flag) -> Entry {
        self.flag = Some(flag);
        self
    }

    pub fn with_interval(mut self, interval: Option<(f64, f64)>) -> Entry {
        self.set_interval(interval);
        self
    }

    pub fn linked(mut self, anchor: impl Into<String>) -> Entry {
        self.more().link = Some(anchor.into());
        self
    }

    /// Why the entry is flagged or failed (a spreadsheet comment, a tooltip).
    pub fn note(&self) -> Option<&str> {
        self.more.as_ref()?.note.as_deref()
    }

    /// The range the figure's runs (or a ratio's confidence interval)
    /// span, drawn as whiskers beside it.
    pub fn interval(&self) -> Option<(f64, f64)> {
        self.more.as_ref()?.interval
    }

    /// A link target on the page (the variant's "what was measured").
    pub fn link(&self) -> Option<&str> {
        self.more.as_ref()?.link.as_deref()
    }

    pub fn set_note(&mut self, note: Option<String>) {
        if note.is_some() || self.more.is_some() {
            self.more().note = note;
        }
    }

    pub fn set_interval(&mut self, interval: Option<(f64, f64)>) {
        if interval.is_some() || self.more.is_some() {
            self.more().interval = interval;
        }
    }

    fn more(&mut self) -> &mut More {
        self.more.get_or_insert_with(Box::default)
    }

    /// The value as a number, if it is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self.value {
            Value::Number(v) => Some(v),
            Value::Int(v) => Some(v as f64),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Table {
    /// Stable name: CSV file stem, spreadsheet sheet name, HTML anchor.
    pub id: String,
    pub title: String,
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Entry>>,
    /// Lines under the table: why each flagged or failed entry is so.
    pub notes: Vec<Note>,
    /// Only in the data files (CSV, xlsx), not in Markdown or HTML (the
    /// every-run table is long and for spreadsheets).
    pub data_only: bool,
    /// How many leading columns name the row (Language, Command Flags):
    /// they stay in view (sticky on the page, frozen in the spreadsheet).
    pub labels: usize,
    /// More rows after `rows`, made a chunk at a time as a renderer reads
    /// them ([`Table::for_each_row`]); only a `data_only` table has them
    /// (the data files are the renderers that read them).
    #[serde(skip)]
    pub streamed: Option<Streamed>,
}

/// Rows made when they are read, in order, a chunk at a time: a table too
/// long to hold whole beside what it is made from (every run of a results
/// directory: 60,000 rows of 23 entries at 6,500 variants, 89 MB, and
/// 600,000 at 65,000, issue #41).
#[derive(Clone)]
pub struct Streamed {
    /// How many rows it makes.
    pub len: usize,
    /// The rows of a range of `0..len`.
    #[allow(clippy::type_complexity)]
    pub rows: std::sync::Arc<dyn Fn(std::ops::Range<usize>) -> Vec<Vec<Entry>> + Send + Sync>,
}

impl std::fmt::Debug for Streamed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Streamed({} rows)", self.len)
    }
}

/// The rows a [`Streamed`] table makes at a time.
const CHUNK: usize = 4096;

impl Table {
    /// Its rows, `rows` and then the streamed ones: `f` gets each one's
    /// index and entries, in order.
    pub fn for_each_row<E>(
        &self,
        mut f: impl FnMut(usize, &[Entry]) -> Result<(), E>,
    ) -> Result<(), E> {
        for (i, row) in self.rows.iter().enumerate() {
            f(i, row)?;
        }
        if let Some(s) = &self.streamed {
            let mut start = 0;
            while start < s.len {
                let end = (start + CHUNK).min(s.len);
                for (i, row) in (start..end).zip((s.rows)(start..end)) {
                    f(self.rows.len() + i, &row)?;
                }
                start = end;
            }
        }
        Ok(())
    }

    /// Every row, streamed ones made now.
    pub fn all_rows(&self) -> Vec<Vec<Entry>> {
        let mut rows = Vec::new();
        self.for_each_row(|_, row| -> Result<(), ()> {
            rows.push(row.to_vec());
            Ok(())
        })
        .expect("pushing cannot fail");
        rows
    }

    /// How many rows it has, streamed ones included.
    pub fn len(&self) -> usize {
        self.rows.len() + self.streamed.as_ref().map_or(0, |s| s.len)
    }

    /// Whether it has no row, streamed or not.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Indices of the columns shown in human tables.
    pub fn display_columns(&self) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|&i| self.columns[i].in_display())
            .collect()
    }

    /// Indices of the columns shown on the page (secondary ones too).
    pub fn page_columns(&self) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|&i| self.columns[i].in_page())
            .collect()
    }

    /// Indices of the columns written to data files.
    pub fn data_columns(&self) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|&i| self.columns[i].in_data())
            .collect()
    }
}

/// A horizontal bar chart: one group of bars per row (a variant, a server),
/// one bar per series (a benchmark, old/new, a phase).
#[derive(Debug, Clone, Default, Serialize)]
pub struct BarChart {
    /// File stem: `charts/<id>.svg`.
    pub id: String,
    pub title: String,
    /// The value axis: "seconds (log scale)".
    pub axis: String,
    /// Log scale (ranges spanning orders of magnitude).
    pub log: bool,
    /// Series names, in bar order within a group.
    pub series: Vec<String>,
    pub rows: Vec<BarRow>,
    /// A line under the chart (what is marked and why).
    pub caption: String,
    /// What the values are, for the axis's tick labels (KB as MB/GB).
    pub unit: Unit,
}

/// The unit of a chart's values.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Unit {
    /// Plain numbers (compact: 2.1k, 3M).
    #[default]
    Plain,
    /// Seconds.
    Seconds,
    /// Kilobytes: shown as KB, MB or GB.
    Kb,
    /// A ratio (× reference).
    Ratio,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct BarRow {
    pub label: String,
    /// One per series.
    pub bars: Vec<Bar>,
}

/// One bar. A failed bar has no value and is drawn as its `label` (e.g.
/// `FAILED`, `not run`), never as zero; a flagged bar is drawn with a mark
/// and its label (e.g. `exit 25`, `partial`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Bar {
    pub value: Option<f64>,
    pub mark: Mark,
    pub label: Option<String>,
    /// The range its runs span (min–max), drawn as a whisker.
    pub range: Option<(f64, f64)>,
}

impl Bar {
    pub fn plain(v: f64) -> Bar {
        Bar {
            value: Some(v),
            ..Default::default()
        }
    }
}

/// 1234567 -> "1,234,567".
/// An instruction count as the work column shows it: three significant
/// digits and a unit (`1.23 G instr`, `456 M instr`, `7.89 k instr`).
pub fn instructions(n: u64) -> String {
    let (v, unit) = match n {
        0..1_000 => return format!("{n} instr"),
        1_000..1_000_000 => (n as f64 / 1e3, "k"),
        1_000_000..1_000_000_000 => (n as f64 / 1e6, "M"),
        1_000_000_000..1_000_000_000_000 => (n as f64 / 1e9, "G"),
        _ => (n as f64 / 1e12, "T"),
    };
    let digits = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.digits$} {unit} instr")
}

pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(12345678), "12,345,678");
    }
}
