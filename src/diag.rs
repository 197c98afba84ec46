//! Diagnostics: source files, spans, and compiler-style error reports.
//!
//! Every user-facing error is a [`Diagnostic`] carrying a location in the input
//! file. [`SourceFile::render`] prints it as `file:line:col: error: message`,
//! followed by the source line and a caret under the offending token, the
//! format C compilers use and editors understand.

use std::fmt;

/// A half-open byte range `[start, end)` into the main source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    /// First byte of the range.
    pub start: usize,
    /// One past the last byte of the range.
    pub end: usize,
}

impl Span {
    /// A span covering `[start, end)`.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest span covering both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// Compilation cannot continue.
    Error,
    /// Compilation continues; the user should look.
    Warning,
    /// Extra information attached to a previous diagnostic.
    Note,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        })
    }
}

/// Where a diagnostic points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A range of the main input file.
    Span(Span),
    /// A position in another file (a header), as reported by clang.
    External {
        /// Path of the file.
        path: String,
        /// 1-based line.
        line: u32,
        /// 1-based column.
        col: u32,
        /// The text of that line, when known.
        source_line: Option<String>,
    },
    /// No location (command-line errors, for instance).
    None,
}

/// One message for the user, with its location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error, warning or note.
    pub severity: Severity,
    /// Where it points.
    pub location: Location,
    /// The message, without location or severity prefix.
    pub message: String,
    /// Notes printed after the main message (for instance: the other nest of a dependence).
    pub notes: Vec<Diagnostic>,
}

impl Diagnostic {
    /// An error at `span` of the main file.
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            location: Location::Span(span),
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// A warning at `span` of the main file.
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(span, message)
        }
    }

    /// An error with no location.
    pub fn error_global(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            location: Location::None,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// The same diagnostic, and its notes, with the main message at `severity`
    /// and `suffix` appended to it.
    pub fn restated(mut self, severity: Severity, suffix: &str) -> Diagnostic {
        self.severity = severity;
        self.message.push_str(suffix);
        self
    }

    /// Attaches a note pointing at `span`.
    pub fn with_note(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.notes.push(Diagnostic {
            severity: Severity::Note,
            location: Location::Span(span),
            message: message.into(),
            notes: Vec::new(),
        });
        self
    }
}

/// Why compilation stopped.
#[derive(Debug)]
pub enum Error {
    /// The input or the options are wrong: exit code 1.
    User(Vec<Diagnostic>),
    /// flextile itself failed (an isl error, a broken invariant): exit code 2.
    Internal(String),
    /// The transformation asked for does not apply to a region, by a
    /// property of the program rather than a mistake in it (overlapped
    /// tiling of a recurrence): the driver compiles the region without it
    /// and warns. Exit code 1 if it reaches the user as an error.
    Inapplicable(Vec<Diagnostic>),
}

impl Error {
    /// A user error with a single diagnostic.
    pub fn user(d: Diagnostic) -> Error {
        Error::User(vec![d])
    }

    /// A user error at `span` with `message`.
    pub fn at(span: Span, message: impl Into<String>) -> Error {
        Error::User(vec![Diagnostic::error(span, message)])
    }

    /// An internal error.
    pub fn internal(message: impl Into<String>) -> Error {
        Error::Internal(message.into())
    }

    /// The transformation asked for does not apply, with a single diagnostic.
    pub fn inapplicable(d: Diagnostic) -> Error {
        Error::Inapplicable(vec![d])
    }

    /// The transformation asked for does not apply, at `span`, because of `message`.
    pub fn inapplicable_at(span: Span, message: impl Into<String>) -> Error {
        Error::inapplicable(Diagnostic::error(span, message))
    }

    /// The first message of the error (its diagnostics' or the internal one).
    pub fn first_message(&self) -> String {
        match self {
            Error::User(d) | Error::Inapplicable(d) => {
                d.first().map(|d| d.message.clone()).unwrap_or_default()
            }
            Error::Internal(m) => m.clone(),
        }
    }
}

impl From<Diagnostic> for Error {
    fn from(d: Diagnostic) -> Error {
        Error::user(d)
    }
}

/// Result type used throughout flextile.
pub type Result<T> = std::result::Result<T, Error>;

/// The main input file: its path, its text, and a line index for locations.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Path as given on the command line (used in diagnostics).
    pub path: String,
    /// Full text of the file.
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    /// Indexes `text`, read from `path`.
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let mut line_starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        SourceFile {
            path: path.into(),
            text,
            line_starts,
        }
    }

    /// 1-based line and column (in bytes) of `offset`.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(l) => l,
            Err(l) => l - 1,
        };
        (line + 1, offset - self.line_starts[line] + 1)
    }

    /// Byte offset of the start of 1-based `line`, if it exists.
    pub fn line_start(&self, line: usize) -> Option<usize> {
        self.line_starts.get(line.checked_sub(1)?).copied()
    }

    /// The text of 1-based `line`, without its newline.
    pub fn line_text(&self, line: usize) -> &str {
        let Some(start) = self.line_start(line) else {
            return "";
        };
        let end = self
            .line_starts
            .get(line)
            .map(|e| e - 1)
            .unwrap_or(self.text.len());
        self.text[start..end.max(start)].trim_end_matches('\r')
    }

    /// The source text under `span`.
    pub fn slice(&self, span: Span) -> &str {
        let end = span.end.min(self.text.len());
        let start = span.start.min(end);
        &self.text[start..end]
    }

    /// Renders `diag` (and its notes) in compiler form.
    pub fn render(&self, diag: &Diagnostic) -> String {
        let mut out = String::new();
        self.render_into(diag, &mut out);
        out
    }

    fn render_into(&self, diag: &Diagnostic, out: &mut String) {
        match &diag.location {
            Location::Span(span) => {
                let (line, col) = self.line_col(span.start);
                let text = self.line_text(line);
                let len = span.end.saturating_sub(span.start);
                out.push_str(&format!(
                    "{}:{}:{}: {}: {}\n",
                    self.path,
                    line,
                    display_col(text, col),
                    diag.severity,
                    diag.message
                ));
                out.push_str(&excerpt(text, col, len));
            }
            Location::External {
                path,
                line,
                col,
                source_line,
            } => {
                out.push_str(&format!(
                    "{}:{}:{}: {}: {}\n",
                    path, line, col, diag.severity, diag.message
                ));
                if let Some(text) = source_line {
                    out.push_str(&excerpt(text, *col as usize, 1));
                }
            }
            Location::None => {
                out.push_str(&format!("flextile: {}: {}\n", diag.severity, diag.message));
            }
        }
        for note in &diag.notes {
            self.render_into(note, out);
        }
    }
}

/// UTF-8's byte-order mark, which editors do not show as a column.
const BOM: &str = "\u{feff}";

/// Characters of the echoed source line shown on each side of the caret
/// when the line is longer than twice this.
const EXCERPT_CONTEXT: usize = 100;

/// The 1-based column, in characters as an editor counts them (a leading
/// byte-order mark not counted), of the 1-based byte column `col` of `text`.
fn display_col(text: &str, col: usize) -> usize {
    let before = &text[..floor_boundary(text, col.saturating_sub(1))];
    before.strip_prefix(BOM).unwrap_or(before).chars().count() + 1
}

/// The largest char boundary of `text` at or below `i`.
fn floor_boundary(text: &str, i: usize) -> usize {
    let mut i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest char boundary of `text` at or above `i`.
fn ceil_boundary(text: &str, i: usize) -> usize {
    let mut i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// The source line `text` and the caret line under the 1-based byte column
/// `col` (`len` bytes underlined); a long line is cut to
/// [`EXCERPT_CONTEXT`] characters on each side of the caret, with `...`
/// where it was cut. Control characters (which stand for bytes that are not
/// UTF-8) are shown as `?`, a byte-order mark not at all.
fn excerpt(text: &str, col: usize, len: usize) -> String {
    let at = floor_boundary(text, col.saturating_sub(1));
    let start = text.strip_prefix(BOM).map_or(0, |_| BOM.len()).min(at);
    let from = text[start..at]
        .char_indices()
        .rev()
        .nth(EXCERPT_CONTEXT - 1)
        .map_or(start, |(i, _)| start + i);
    let to = text[at..]
        .char_indices()
        .nth(EXCERPT_CONTEXT)
        .map_or(text.len(), |(i, _)| at + i);
    let (head, tail) = (from > start, to < text.len());
    let show = |s: &str| -> String {
        s.chars()
            .map(|c| if c.is_control() && c != '\t' { '?' } else { c })
            .collect()
    };
    let mut line = String::new();
    let mut pad = String::new();
    if head {
        line.push_str("...");
        pad.push_str("   ");
    }
    line.push_str(&show(&text[from..to]));
    if tail {
        line.push_str("...");
    }
    pad.extend(
        text[from..at]
            .chars()
            .map(|c| if c == '\t' { '\t' } else { ' ' }),
    );
    let end = ceil_boundary(text, at + len.max(1)).min(to);
    let width = text[at..end.max(at)].chars().count().clamp(1, 80);
    format!("{line}\n{pad}^{}\n", "~".repeat(width - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column() {
        let f = SourceFile::new("a.c", "int x;\n  foo bar\n");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(9), (2, 3));
        assert_eq!(f.line_text(2), "  foo bar");
    }

    #[test]
    fn long_lines_are_cut_around_the_caret() {
        let long = format!("int x = {}y;", "1 + ".repeat(1000));
        let f = SourceFile::new("a.c", format!("{long}\n"));
        let at = long.find('y').unwrap_or(0);
        let r = f.render(&Diagnostic::error(Span::new(at, at + 1), "bad y"));
        let lines: Vec<&str> = r.lines().collect();
        assert_eq!(lines[0], format!("a.c:1:{}: error: bad y", at + 1));
        assert!(
            lines[1].starts_with("...") && lines[1].ends_with("y;"),
            "{}",
            lines[1]
        );
        assert_eq!(lines[1].len(), 3 + EXCERPT_CONTEXT + 2);
        assert_eq!(lines[2].find('^'), lines[1].find('y'));
    }

    #[test]
    fn bom_and_wide_characters_do_not_shift_the_caret() {
        let f = SourceFile::new("a.c", "\u{feff}int \u{e9}x = y;\n");
        let at = f.text.find('y').unwrap_or(0);
        let r = f.render(&Diagnostic::error(Span::new(at, at + 1), "bad y"));
        assert_eq!(r, "a.c:1:10: error: bad y\nint \u{e9}x = y;\n         ^\n");
    }

    #[test]
    fn renders_caret_under_token() {
        let f = SourceFile::new("a.c", "int x;\n  foo bar\n");
        let d = Diagnostic::error(Span::new(13, 16), "bad bar");
        assert_eq!(
            f.render(&d),
            "a.c:2:7: error: bad bar\n  foo bar\n      ^~~\n"
        );
    }
}
