//! The pragma language: finding `#pragma` lines in the file's text, lexing
//! them, and parsing `#pragma omplc ...`, `#pragma scop` and `#pragma endscop`.
//!
//! clang drops unknown pragmas from its AST, so pragmas are read from the
//! text. The scanner skips comments and string literals, follows backslash
//! line continuations, and treats comments inside a pragma as white space
//! (a block comment may even span lines, as in C). Every token keeps its byte
//! span, so every error points at the offending token.
//!
//! Grammar (the omplc loop-chain pragmas of Davis, Strout & Olschanowsky,
//! CGO'18, as the README describes them for users; keys in
//! `docs/bibliography.md`):
//!
//! ```text
//! chain  := 'loopchain' [ 'schedule' '(' [ item { ',' item } ] ')' ] [ temps ]
//! scop   := 'scop' [ temps ]
//! temps  := 'temporary' '(' ID { ',' ID } ')'
//! nest   := 'for' 'domain' '(' range { ',' range } ')' 'with' '(' ID { ',' ID } ')'
//!           [ access { [','] access } ]
//! range  := expr ':' expr
//! access := ('read' | 'write') ID '{' tuple { ',' tuple } '}'
//! tuple  := '(' comp { ',' comp } ')'      comp := expr | '*'   ('*': any index)
//! item   := 'fuse' '(' [ tuple { ',' tuple } ] ')' | 'parallel' | 'wavefront' | tile
//! tile   := 'tile' '(' tuple ',' inner ',' inner ')'
//! inner  := 'serial' | 'parallel' | 'wavefront' | tile
//! expr   := integers, identifiers, unary '-', '+', '-', '*', '/', '%', parentheses
//! ```
//!
//! Leniencies (supersets of the original grammar): `schedule(...)` may be
//! omitted (empty schedule), the commas between access clauses are optional,
//! and `/`, `%` by constants are accepted in expressions.

use std::collections::BTreeSet;

use crate::diag::{Diagnostic, Span};
use crate::model::expr::Expr;
use crate::model::program::{
    AccessKind, ChainSchedule, LoopTreatment, ScheduleItem, Temporary, TileSpec,
};

/// A token of a pragma.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// Identifier or keyword.
    Ident(String),
    /// Non-negative integer literal.
    Int(i64),
    /// An integer literal that does not fit in 64 bits.
    BadInt,
    /// One of `( ) { } , : + - * / % #`.
    Punct(char),
    /// Any other character (or a string/char literal, as its quote).
    Other(char),
}

/// A token with its bytes in the file.
#[derive(Clone, Debug, PartialEq)]
pub struct PTok {
    /// The token.
    pub tok: Tok,
    /// Its bytes.
    pub span: Span,
}

/// A `#pragma` line flextile understands.
#[derive(Clone, Debug)]
pub struct PragmaLine {
    /// From the `#` to the end of the pragma's last token.
    pub span: Span,
    /// Offset of the start of the line holding the `#`.
    pub line_start: usize,
    /// Offset of the newline ending the pragma (its last physical line), or
    /// the file length.
    pub line_end: usize,
    /// Leading white space of the pragma's line.
    pub indent: String,
    /// What it says.
    pub kind: PragmaKind,
}

/// The pragmas of flextile's input language.
#[derive(Clone, Debug)]
pub enum PragmaKind {
    /// `#pragma omplc loopchain schedule(...) temporary(...)`.
    Loopchain(ChainSchedule, Vec<Temporary>),
    /// `#pragma omplc for domain(...) with (...) read ... write ...`.
    For(NestPragma),
    /// `#pragma scop temporary(...)`.
    Scop(Vec<Temporary>),
    /// `#pragma endscop`.
    Endscop,
    /// An `omplc` pragma with a syntax error (already reported): `nest` is
    /// true for `#pragma omplc for`, false for `loopchain`, `None` when the
    /// directive itself is unknown. Kept so that no second error follows.
    Malformed {
        /// Which directive it was meant to be.
        nest: Option<bool>,
    },
}

/// The contents of `#pragma omplc for`.
#[derive(Clone, Debug)]
pub struct NestPragma {
    /// The `for` keyword.
    pub for_span: Span,
    /// One inclusive range per iterator.
    pub ranges: Vec<DomainRange>,
    /// The `domain(...)` clause.
    pub domain_span: Span,
    /// Iterator names and their spans, outermost first.
    pub iterators: Vec<(String, Span)>,
    /// The `with (...)` clause.
    pub with_span: Span,
    /// Declared accesses, clause by clause.
    pub accesses: Vec<DeclaredAccess>,
}

/// `lo : hi` of a domain.
#[derive(Clone, Debug)]
pub struct DomainRange {
    /// Inclusive lower bound.
    pub lo: Expr,
    /// Inclusive upper bound.
    pub hi: Expr,
    /// The range's bytes.
    pub span: Span,
}

/// One `read X { ... }` or `write X { ... }` clause.
#[derive(Clone, Debug)]
pub struct DeclaredAccess {
    /// Read or write.
    pub kind: AccessKind,
    /// Data-set name.
    pub data: String,
    /// The name's bytes.
    pub data_span: Span,
    /// The tuples, in order.
    pub tuples: Vec<Tuple>,
}

/// `(e1, ..., en)` of an access clause.
#[derive(Clone, Debug)]
pub struct Tuple {
    /// Components (`Expr::Any` for `*`).
    pub exprs: Vec<Expr>,
    /// The tuple's bytes, parentheses included.
    pub span: Span,
}

/// True for the bytes C counts as horizontal white space.
fn is_hspace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

/// If a backslash line continuation starts at `i`, its length. As gcc and
/// clang do (with a warning), white space between the backslash and the
/// newline is allowed.
fn continuation_len(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'\\') {
        return None;
    }
    let mut j = i + 1;
    while b.get(j).is_some_and(|&c| is_hspace(c)) {
        j += 1;
    }
    (b.get(j) == Some(&b'\n')).then_some(j + 1 - i)
}

/// Skips the continuations at `i`; returns the offset after them.
fn skip_continuations(b: &[u8], mut i: usize) -> usize {
    while let Some(n) = continuation_len(b, i) {
        i += n;
    }
    i
}

/// Reads a word (identifier or number) starting at `i` whose bytes satisfy
/// `part`, joining the pieces of a word split by line continuations
/// (`dom\<newline>ain` is `domain`, as in C). Returns its end and spelling.
fn read_word(text: &str, mut i: usize, part: impl Fn(u8) -> bool) -> (usize, String) {
    let b = text.as_bytes();
    let mut word = String::new();
    loop {
        let s = i;
        while i < b.len() && part(b[i]) {
            i += 1;
        }
        word.push_str(&text[s..i]);
        let next = skip_continuations(b, i);
        if next > i && b.get(next).is_some_and(|&c| part(c)) {
            i = next;
        } else {
            return (i, word);
        }
    }
}

/// Skips a block comment starting at `i` (`/*`); returns the offset after it.
fn skip_block_comment(b: &[u8], i: usize) -> usize {
    let mut j = i + 2;
    while j < b.len() {
        if b[j] == b'*' && b.get(j + 1) == Some(&b'/') {
            return j + 2;
        }
        j += 1;
    }
    b.len()
}

/// Skips a line comment starting at `i` (`//`); returns the offset of the
/// newline that ends it (continuations extend it), or the length.
fn skip_line_comment(b: &[u8], i: usize) -> usize {
    let mut j = i + 2;
    while j < b.len() {
        if let Some(n) = continuation_len(b, j) {
            j += n;
            continue;
        }
        if b[j] == b'\n' {
            return j;
        }
        j += 1;
    }
    b.len()
}

/// Skips a string or character literal starting at `i`; stops at the closing
/// quote or at an unescaped newline. Returns the offset after it.
fn skip_literal(b: &[u8], i: usize) -> usize {
    let quote = b[i];
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'\n' => return j,
            c if c == quote => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

/// Lexes a preprocessing directive starting at `start` (the `#`) up to the
/// newline that ends it. Returns its tokens and the offset of that newline
/// (or the length of the text).
pub fn lex_directive(text: &str, start: usize) -> (Vec<PTok>, usize) {
    let b = text.as_bytes();
    let mut toks = Vec::new();
    let mut i = start;
    while i < b.len() {
        let c = b[i];
        if let Some(n) = continuation_len(b, i) {
            i += n;
        } else if c == b'\n' {
            return (toks, i);
        } else if is_hspace(c) {
            i += 1;
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i = skip_block_comment(b, i);
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            i = skip_line_comment(b, i);
        } else if c.is_ascii_digit() {
            let s = i;
            let (e, lit) = read_word(text, i, |d| d.is_ascii_alphanumeric() || d == b'_');
            i = e;
            let lit = lit.as_str();
            let value = if let Some(hex) = lit.strip_prefix("0x").or_else(|| lit.strip_prefix("0X"))
            {
                i64::from_str_radix(hex, 16).ok()
            } else if lit.bytes().all(|d| d.is_ascii_digit()) {
                lit.parse::<i64>().ok()
            } else {
                None
            };
            let tok = match value {
                Some(v) => Tok::Int(v),
                None if lit.bytes().all(|d| d.is_ascii_digit()) => Tok::BadInt,
                None => Tok::Other(char::from(c)),
            };
            toks.push(PTok {
                tok,
                span: Span::new(s, i),
            });
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            let (e, word) = read_word(text, i, |d| d.is_ascii_alphanumeric() || d == b'_');
            i = e;
            toks.push(PTok {
                tok: Tok::Ident(word),
                span: Span::new(s, i),
            });
        } else if c == b'"' || c == b'\'' {
            let s = i;
            i = skip_literal(b, i);
            toks.push(PTok {
                tok: Tok::Other(char::from(c)),
                span: Span::new(s, i),
            });
        } else if b"(){},:+-*/%#".contains(&c) {
            toks.push(PTok {
                tok: Tok::Punct(char::from(c)),
                span: Span::new(i, i + 1),
            });
            i += 1;
        } else {
            let ch = text.get(i..).and_then(|t| t.chars().next()).unwrap_or('?');
            let n = ch.len_utf8().max(1);
            toks.push(PTok {
                tok: Tok::Other(ch),
                span: Span::new(i, i + n),
            });
            i += n;
        }
    }
    (toks, b.len())
}

/// Finds the pragmas flextile reads (`omplc`, `scop`, `endscop`) in `text`,
/// skipping comments and literals. Malformed `omplc` pragmas are reported in
/// the second result and kept in the first as [`PragmaKind::Malformed`].
pub fn scan(text: &str) -> (Vec<PragmaLine>, Vec<Diagnostic>) {
    let mut macros = Vec::new();
    scan_with_macros(text, &mut macros)
}

/// A `#define` or `#undef` line.
#[derive(Clone, Debug, PartialEq)]
pub struct MacroDirective {
    /// The macro's name.
    pub name: String,
    /// From the start of the `#`'s line to the newline that ends the
    /// directive (its continuation lines included; the newline excluded).
    pub line: Span,
}

/// [`scan`], which also lists the `#define` and `#undef` lines in `macros`.
pub fn scan_with_macros(
    text: &str,
    macros: &mut Vec<MacroDirective>,
) -> (Vec<PragmaLine>, Vec<Diagnostic>) {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut errors = Vec::new();
    if let Some(d) = cr_only_pragma(b) {
        return (out, vec![d]);
    }
    let mut i = 0;
    let mut line_start = 0;
    let mut at_line_start = true;
    while i < b.len() {
        let c = b[i];
        if let Some(n) = continuation_len(b, i) {
            i += n;
        } else if c == b'\n' {
            i += 1;
            line_start = i;
            at_line_start = true;
        } else if is_hspace(c) {
            i += 1;
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i = skip_block_comment(b, i);
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            i = skip_line_comment(b, i);
        } else if c == b'"' || c == b'\'' {
            i = skip_literal(b, i);
            at_line_start = false;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let (e, word) = read_word(text, i, |d| d.is_ascii_alphanumeric() || d == b'_');
            if word == "_Pragma" {
                errors.extend(underscore_pragma(text, Span::new(i, e)));
            }
            i = e;
            at_line_start = false;
        } else if c == b'#' && at_line_start {
            let (toks, end) = lex_directive(text, i);
            // `_Pragma` in a directive (`#define REGION _Pragma("scop")`).
            for t in &toks {
                if t.tok == Tok::Ident("_Pragma".to_string()) {
                    errors.extend(underscore_pragma(text, t.span));
                }
            }
            if let Some(p) = pragma_from_tokens(text, &toks, line_start, end, &mut errors) {
                out.push(p);
            }
            if let [_, PTok {
                tok: Tok::Ident(d), ..
            }, PTok {
                tok: Tok::Ident(name),
                ..
            }, ..] = toks.as_slice()
            {
                if d == "define" || d == "undef" {
                    macros.push(MacroDirective {
                        name: name.clone(),
                        line: Span::new(line_start, end),
                    });
                }
            }
            i = end.max(i + 1);
            at_line_start = false;
        } else {
            i += 1;
            at_line_start = false;
        }
    }
    (out, errors)
}

/// A located error for a `#pragma` on a line that ends in a carriage return
/// alone (old Mac line endings): clang reads such lines, but flextile's
/// scanner would not find the pragma, and the region would pass through
/// untransformed.
fn cr_only_pragma(b: &[u8]) -> Option<Diagnostic> {
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\r' && b.get(i + 1) != Some(&b'\n') {
            let mut j = i + 1;
            while b.get(j).is_some_and(|&c| c == b' ' || c == b'\t') {
                j += 1;
            }
            let hash = j;
            if b.get(j) == Some(&b'#') {
                j += 1;
                while b.get(j).is_some_and(|&c| c == b' ' || c == b'\t') {
                    j += 1;
                }
                if b.get(j..).is_some_and(|r| r.starts_with(b"pragma")) {
                    return Some(Diagnostic::error(
                        Span::new(hash, j + "pragma".len()),
                        "this file ends its lines with a carriage return alone (old Mac line \
                         endings), which flextile does not read: convert it to LF or CRLF line \
                         endings",
                    ));
                }
            }
        }
        i += 1;
    }
    None
}

/// If `_Pragma` at `name` is `_Pragma("omplc ...")`, `_Pragma("scop")` or
/// `_Pragma("endscop")`, an error saying to write it as a `#pragma` line
/// (flextile reads pragmas from the text; it would pass the region through
/// untransformed).
fn underscore_pragma(text: &str, name: Span) -> Option<Diagnostic> {
    let b = text.as_bytes();
    let skip_space = |mut j: usize| loop {
        let k = skip_continuations(b, j);
        if k > j {
            j = k;
        } else if b.get(j).is_some_and(|&c| is_hspace(c) || c == b'\n') {
            j += 1;
        } else {
            return j;
        }
    };
    let open = skip_space(name.end);
    if b.get(open) != Some(&b'(') {
        return None;
    }
    let quote = skip_space(open + 1);
    if b.get(quote) != Some(&b'"') {
        return None;
    }
    let lit_end = skip_literal(b, quote);
    let body = text.get(quote + 1..lit_end.saturating_sub(1).max(quote + 1))?;
    let first: String = body
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if !matches!(first.as_str(), "omplc" | "scop" | "endscop") {
        return None;
    }
    let close = skip_space(lit_end);
    let end = if b.get(close) == Some(&b')') {
        close + 1
    } else {
        lit_end
    };
    let mut shown = body
        .replace("\\\"", "\"")
        .replace("\\\\", "\\")
        .trim()
        .to_string();
    if let Some((k, _)) = shown.char_indices().nth(60) {
        shown.truncate(k);
        shown.push_str(" ...");
    }
    Some(Diagnostic::error(
        Span::new(name.start, end),
        format!(
            "flextile reads its pragmas only as '#pragma' lines: write this as \
             '#pragma {shown}' on a line of its own (as written, the region would not be \
             transformed)"
        ),
    ))
}

/// Builds a [`PragmaLine`] from a directive's tokens, if it is one of ours.
fn pragma_from_tokens(
    text: &str,
    toks: &[PTok],
    line_start: usize,
    end: usize,
    errors: &mut Vec<Diagnostic>,
) -> Option<PragmaLine> {
    let is_ident =
        |k: usize, s: &str| matches!(toks.get(k), Some(PTok { tok: Tok::Ident(x), .. }) if x == s);
    if !is_ident(1, "pragma") {
        return None;
    }
    let first = toks.first()?;
    let last = toks.last()?;
    let span = Span::new(first.span.start, last.span.end);
    let indent: String = text
        .get(line_start..first.span.start)
        .unwrap_or("")
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    // A CRLF file: the line ends before its '\r'.
    let line_end = if end > 0 && text.as_bytes().get(end - 1) == Some(&b'\r') {
        end - 1
    } else {
        end
    };
    let kind = if is_ident(2, "omplc") {
        let omplc = toks.get(2).map(|t| t.span).unwrap_or(span);
        let rest = toks.get(3..).unwrap_or(&[]);
        match parse_omplc(rest, omplc) {
            Ok(k) => k,
            Err(d) => {
                errors.push(d);
                let nest = match rest.first().map(|t| &t.tok) {
                    Some(Tok::Ident(w)) if w == "for" => Some(true),
                    Some(Tok::Ident(w)) if w == "loopchain" => Some(false),
                    _ => None,
                };
                PragmaKind::Malformed { nest }
            }
        }
    } else if is_ident(2, "scop") {
        let scop = toks.get(2).map(|t| t.span).unwrap_or(span);
        match parse_scop(toks.get(3..).unwrap_or(&[]), scop) {
            Ok(t) => PragmaKind::Scop(t),
            Err(d) => {
                errors.push(d);
                PragmaKind::Scop(Vec::new())
            }
        }
    } else if is_ident(2, "endscop") {
        PragmaKind::Endscop
    } else {
        return None;
    };
    Some(PragmaLine {
        span,
        line_start,
        line_end,
        indent,
        kind,
    })
}

/// Parses the tokens after `#pragma omplc` (`omplc` is the span of that word).
pub fn parse_omplc(toks: &[PTok], omplc: Span) -> Result<PragmaKind, Diagnostic> {
    let mut p = Parser::new(toks, omplc);
    let kind = match p.peek_ident() {
        Some("loopchain") => {
            p.pos += 1;
            let schedule = p.chain()?;
            PragmaKind::Loopchain(schedule, p.temporaries()?)
        }
        Some("for") => {
            let for_span = p.bump_span();
            PragmaKind::For(p.nest(for_span)?)
        }
        Some(other) => {
            return Err(Diagnostic::error(
                p.here(),
                format!("unknown omplc directive '{other}': expected 'loopchain' or 'for'"),
            ))
        }
        None => return Err(p.expected("'loopchain' or 'for' after '#pragma omplc'")),
    };
    p.finish()?;
    Ok(kind)
}

/// Parses the tokens after `#pragma scop` (`scop` is the span of that word):
/// nothing, or a `temporary(...)` clause.
fn parse_scop(toks: &[PTok], scop: Span) -> Result<Vec<Temporary>, Diagnostic> {
    let mut p = Parser::new(toks, scop);
    if p.pos < p.toks.len() && p.peek_ident() != Some("temporary") {
        return Err(p.expected("'temporary(...)' or the end of the pragma after '#pragma scop'"));
    }
    let temps = p.temporaries()?;
    p.finish()?;
    Ok(temps)
}

/// Deepest nesting of parentheses, unary signs and tiles in one pragma.
const MAX_DEPTH: usize = 200;

/// Recursive-descent parser over a pragma's tokens.
struct Parser<'a> {
    toks: &'a [PTok],
    pos: usize,
    /// Nesting depth of expressions and tiles (bounded, so that no input
    /// overflows the stack).
    depth: usize,
    /// The last token's span (errors at the end of the pragma point after it).
    end: Span,
}

impl<'a> Parser<'a> {
    /// A parser over `toks`, the tokens after the word at `word`.
    fn new(toks: &'a [PTok], word: Span) -> Parser<'a> {
        Parser {
            toks,
            pos: 0,
            depth: 0,
            end: toks.last().map(|t| t.span).unwrap_or(word),
        }
    }

    /// An error unless every token was consumed.
    fn finish(&self) -> Result<(), Diagnostic> {
        if self.pos < self.toks.len() {
            return Err(Diagnostic::error(
                self.here(),
                format!("unexpected {} at the end of the pragma", self.describe()),
            ));
        }
        Ok(())
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|t| &t.tok)
    }

    fn peek_ident(&self) -> Option<&str> {
        match self.peek() {
            Some(Tok::Ident(s)) => Some(s),
            _ => None,
        }
    }

    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }

    /// The span of the current token, or just past the last one.
    fn here(&self) -> Span {
        match self.toks.get(self.pos) {
            Some(t) => t.span,
            None => Span::new(self.end.end, self.end.end),
        }
    }

    /// Consumes the current token and returns its span.
    fn bump_span(&mut self) -> Span {
        let s = self.here();
        self.pos += 1;
        s
    }

    fn describe(&self) -> String {
        match self.peek() {
            None => "end of pragma".to_string(),
            Some(Tok::Ident(s)) => format!("'{s}'"),
            Some(Tok::Int(v)) => format!("'{v}'"),
            Some(Tok::BadInt) => "an integer literal that is too large".to_string(),
            Some(Tok::Punct(c)) | Some(Tok::Other(c)) => format!("'{c}'"),
        }
    }

    fn expected(&self, what: &str) -> Diagnostic {
        Diagnostic::error(
            self.here(),
            format!("expected {what}, found {}", self.describe()),
        )
    }

    fn expect_punct(&mut self, c: char, context: &str) -> Result<Span, Diagnostic> {
        if self.is_punct(c) {
            Ok(self.bump_span())
        } else {
            Err(self.expected(&format!("'{c}'{context}")))
        }
    }

    fn expect_ident(&mut self, what: &str) -> Result<(String, Span), Diagnostic> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                Ok((s, self.bump_span()))
            }
            _ => Err(self.expected(what)),
        }
    }

    // ---- temporary(...) ----

    /// An optional `temporary(ID, ...)` clause: the names with their spans.
    fn temporaries(&mut self) -> Result<Vec<Temporary>, Diagnostic> {
        if self.peek_ident() != Some("temporary") {
            return Ok(Vec::new());
        }
        self.pos += 1;
        self.expect_punct('(', " after 'temporary'")?;
        let mut temps: Vec<Temporary> = Vec::new();
        loop {
            let (name, span) = self.expect_ident("an array name in 'temporary(...)'")?;
            if temps.iter().any(|t| t.name == name) {
                return Err(Diagnostic::error(
                    span,
                    format!("'{name}' is named twice in 'temporary(...)'"),
                ));
            }
            temps.push(Temporary {
                name,
                span: Some(span),
                proved: false,
            });
            if self.is_punct(',') {
                self.pos += 1;
            } else {
                self.expect_punct(')', " or ',' in 'temporary(...)'")?;
                return Ok(temps);
            }
        }
    }

    // ---- loopchain ----

    fn chain(&mut self) -> Result<ChainSchedule, Diagnostic> {
        let mut sched = ChainSchedule::default();
        match self.peek_ident() {
            None if self.peek().is_none() => return Ok(sched),
            Some("schedule") => {
                self.pos += 1;
            }
            Some("temporary") => return Ok(sched),
            Some(other) => {
                return Err(Diagnostic::error(
                    self.here(),
                    format!(
                    "unknown clause '{other}' in '#pragma omplc loopchain': expected 'schedule' or 'temporary'"
                ),
                ))
            }
            None => return Err(self.expected("'schedule'")),
        }
        self.expect_punct('(', " after 'schedule'")?;
        if self.is_punct(')') {
            self.pos += 1;
            return Ok(sched);
        }
        loop {
            let item = self.item()?;
            if let ScheduleItem::Fuse { span, .. } = &item {
                if sched
                    .items
                    .iter()
                    .any(|i| matches!(i, ScheduleItem::Fuse { .. }))
                {
                    return Err(Diagnostic::error(
                        *span,
                        "'fuse' may appear only once in a schedule: the nests are fused already",
                    ));
                }
            }
            sched.items.push(item);
            if self.is_punct(',') {
                self.pos += 1;
            } else if self.is_punct(')') {
                self.pos += 1;
                return Ok(sched);
            } else {
                return Err(self.expected("',' or ')' in the schedule"));
            }
        }
    }

    fn item(&mut self) -> Result<ScheduleItem, Diagnostic> {
        match self.peek_ident() {
            Some("fuse") => {
                let start = self.bump_span();
                self.expect_punct('(', " after 'fuse'")?;
                if self.is_punct(')') {
                    let end = self.bump_span();
                    return Ok(ScheduleItem::Fuse { shifts: None, span: start.to(end) });
                }
                let mut shifts = Vec::new();
                loop {
                    let t = self.tuple(false, &[], "a shift tuple such as '(0,1)'")?;
                    let mut v = Vec::new();
                    for (e, sp) in t.exprs.iter().zip(&t.spans) {
                        match e.constant() {
                            Some(c) => v.push(c),
                            None => return Err(Diagnostic::error(*sp, "fuse shifts must be integer constants")),
                        }
                    }
                    shifts.push(v);
                    if self.is_punct(',') {
                        self.pos += 1;
                    } else if self.is_punct(')') {
                        let end = self.bump_span();
                        return Ok(ScheduleItem::Fuse { shifts: Some(shifts), span: start.to(end) });
                    } else {
                        return Err(self.expected("',' or ')' after a shift tuple"));
                    }
                }
            }
            Some("parallel") => Ok(ScheduleItem::Parallel(self.bump_span())),
            Some("wavefront") => Ok(ScheduleItem::Wavefront(self.bump_span())),
            Some("tile") => Ok(ScheduleItem::Tile(self.tile()?)),
            Some(other) => Err(Diagnostic::error(
                self.here(),
                format!("unknown schedule item '{other}': expected 'fuse', 'tile', 'parallel' or 'wavefront'"),
            )),
            None => Err(self.expected("a schedule item ('fuse', 'tile', 'parallel' or 'wavefront')")),
        }
    }

    fn tile(&mut self) -> Result<TileSpec, Diagnostic> {
        self.nested(Self::tile_inner)
    }

    fn tile_inner(&mut self) -> Result<TileSpec, Diagnostic> {
        let start = self.bump_span();
        self.expect_punct('(', " after 'tile'")?;
        let t = self.tuple(false, &[], "the tile sizes, such as '(16, 16)'")?;
        let mut sizes = Vec::new();
        for (e, sp) in t.exprs.iter().zip(&t.spans) {
            match e.constant() {
                Some(c) if c > 0 => sizes.push(c),
                _ => {
                    return Err(Diagnostic::error(
                        *sp,
                        "tile sizes must be positive integer constants",
                    ))
                }
            }
        }
        self.expect_punct(',', " after the tile sizes")?;
        let outer = self.treatment()?;
        self.expect_punct(',', " after the treatment of the loops over tiles")?;
        let inner = self.treatment()?;
        let end = self.expect_punct(')', " closing 'tile('")?;
        Ok(TileSpec {
            sizes,
            outer,
            inner,
            span: start.to(end),
        })
    }

    fn treatment(&mut self) -> Result<LoopTreatment, Diagnostic> {
        match self.peek_ident() {
            Some("serial") => {
                self.pos += 1;
                Ok(LoopTreatment::Serial)
            }
            Some("parallel") => {
                self.pos += 1;
                Ok(LoopTreatment::Parallel)
            }
            Some("wavefront") => {
                self.pos += 1;
                Ok(LoopTreatment::Wavefront)
            }
            Some("tile") => Ok(LoopTreatment::Tile(Box::new(self.tile()?))),
            Some(other) => Err(Diagnostic::error(
                self.here(),
                format!("unknown loop treatment '{other}': expected 'serial', 'parallel', 'wavefront' or 'tile'"),
            )),
            None => Err(self.expected("'serial', 'parallel', 'wavefront' or 'tile'")),
        }
    }

    // ---- for ----

    fn nest(&mut self, for_span: Span) -> Result<NestPragma, Diagnostic> {
        match self.peek_ident() {
            Some("domain") => {}
            Some(other) => {
                return Err(Diagnostic::error(
                    self.here(),
                    format!("unknown clause '{other}' in '#pragma omplc for': expected 'domain'"),
                ))
            }
            None => return Err(self.expected("'domain' after '#pragma omplc for'")),
        }
        let dstart = self.bump_span();
        self.expect_punct('(', " after 'domain'")?;
        let mut ranges = Vec::new();
        loop {
            let (lo, lo_span) = self.expr()?;
            self.check_bound(&lo, lo_span)?;
            self.expect_punct(':', " between the bounds of a range (lower:upper)")?;
            let (hi, hi_span) = self.expr()?;
            self.check_bound(&hi, hi_span)?;
            ranges.push(DomainRange {
                lo,
                hi,
                span: lo_span.to(hi_span),
            });
            if self.is_punct(',') {
                self.pos += 1;
            } else if self.is_punct(')') {
                break;
            } else {
                return Err(self.expected("',' or ')' in the domain"));
            }
        }
        let domain_span = dstart.to(self.bump_span());

        match self.peek_ident() {
            Some("with") => {}
            Some(other) => {
                return Err(Diagnostic::error(
                    self.here(),
                    format!("unknown clause '{other}' in '#pragma omplc for': expected 'with'"),
                ))
            }
            None => return Err(self.expected("'with' after the domain")),
        }
        let wstart = self.bump_span();
        self.expect_punct('(', " after 'with'")?;
        let mut iterators: Vec<(String, Span)> = Vec::new();
        loop {
            let (name, sp) = self.expect_ident("an iterator name")?;
            if iterators.iter().any(|(n, _)| *n == name) {
                return Err(Diagnostic::error(
                    sp,
                    format!("iterator '{name}' is listed twice in 'with'"),
                ));
            }
            iterators.push((name, sp));
            if self.is_punct(',') {
                self.pos += 1;
            } else if self.is_punct(')') {
                break;
            } else {
                return Err(self.expected("',' or ')' in the 'with' list"));
            }
        }
        let with_span = wstart.to(self.bump_span());
        if ranges.len() != iterators.len() {
            let r = ranges.len();
            let n = iterators.len();
            return Err(Diagnostic::error(
                with_span,
                format!(
                    "domain has {r} range{} but 'with' lists {n} iterator{}",
                    if r == 1 { "" } else { "s" },
                    if n == 1 { "" } else { "s" }
                ),
            )
            .with_note(domain_span, "domain given here"));
        }

        let names: Vec<String> = iterators.iter().map(|(n, _)| n.clone()).collect();
        let mut accesses = Vec::new();
        while self.peek().is_some() {
            if !accesses.is_empty() && self.is_punct(',') {
                self.pos += 1;
            }
            let kind = match self.peek_ident() {
                Some("read") => AccessKind::Read,
                Some("write") => AccessKind::Write,
                Some(other) => {
                    return Err(Diagnostic::error(
                        self.here(),
                        format!("unknown clause '{other}' in '#pragma omplc for': expected 'read' or 'write'"),
                    ))
                }
                None => return Err(self.expected("'read' or 'write'")),
            };
            let word = if kind == AccessKind::Read {
                "read"
            } else {
                "write"
            };
            self.pos += 1;
            let (data, data_span) =
                self.expect_ident(&format!("a data-set name after '{word}'"))?;
            self.expect_punct('{', &format!(" after '{word} {data}'"))?;
            let mut tuples = Vec::new();
            loop {
                tuples.push(
                    self.tuple(true, &names, "an index tuple such as '(i, j-1)'")?
                        .into(),
                );
                if self.is_punct(',') {
                    self.pos += 1;
                } else if self.is_punct('}') {
                    self.pos += 1;
                    break;
                } else {
                    return Err(self.expected(&format!("',' or '}}' in the tuples of '{data}'")));
                }
            }
            accesses.push(DeclaredAccess {
                kind,
                data,
                data_span,
                tuples,
            });
        }
        Ok(NestPragma {
            for_span,
            ranges,
            domain_span,
            iterators,
            with_span,
            accesses,
        })
    }

    fn check_bound(&self, e: &Expr, span: Span) -> Result<(), Diagnostic> {
        if !e.is_affine() {
            return Err(Diagnostic::error(
                span,
                format!("non-affine domain bound '{e}'"),
            ));
        }
        Ok(())
    }

    /// `'(' comp { ',' comp } ')'`; `*` components only when `any_ok`.
    ///
    /// `iterators` are given for an access tuple: there a product of an
    /// iterator and other names (`i*W`) is kept for the front end, which
    /// knows the values of constant macros (see [`affine_in`]).
    fn tuple(
        &mut self,
        any_ok: bool,
        iterators: &[String],
        what: &str,
    ) -> Result<TupleSpans, Diagnostic> {
        if !self.is_punct('(') {
            return Err(self.expected(what));
        }
        let start = self.bump_span();
        let mut exprs = Vec::new();
        let mut spans = Vec::new();
        loop {
            let star_alone = self.is_punct('*')
                && matches!(
                    self.peek_at(1),
                    Some(Tok::Punct(',')) | Some(Tok::Punct(')'))
                );
            if star_alone {
                let sp = self.bump_span();
                if !any_ok {
                    return Err(Diagnostic::error(
                        sp,
                        "'*' (any index) is only allowed in access tuples",
                    ));
                }
                exprs.push(Expr::Any);
                spans.push(sp);
            } else {
                let (e, sp) = self.expr()?;
                if !affine_in(&e, iterators) {
                    return Err(Diagnostic::error(
                        sp,
                        format!("non-affine index expression '{e}'; write '*' for a data-dependent index"),
                    ));
                }
                exprs.push(e);
                spans.push(sp);
            }
            if self.is_punct(',') {
                self.pos += 1;
            } else if self.is_punct(')') {
                let end = self.bump_span();
                return Ok(TupleSpans {
                    exprs,
                    spans,
                    span: start.to(end),
                });
            } else {
                return Err(self.expected("',' or ')' in the tuple"));
            }
        }
    }

    // ---- expressions ----

    fn expr(&mut self) -> Result<(Expr, Span), Diagnostic> {
        let (mut e, mut sp) = self.term()?;
        loop {
            let op = if self.is_punct('+') {
                '+'
            } else if self.is_punct('-') {
                '-'
            } else {
                return Ok((e, sp));
            };
            self.pos += 1;
            let (r, rs) = self.term()?;
            e = if op == '+' {
                Expr::sum(e, r)
            } else {
                Expr::difference(e, r)
            };
            sp = sp.to(rs);
        }
    }

    fn term(&mut self) -> Result<(Expr, Span), Diagnostic> {
        let (mut e, mut sp) = self.unary()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Punct(c @ ('*' | '/' | '%'))) => *c,
                _ => return Ok((e, sp)),
            };
            self.pos += 1;
            let (r, rs) = self.unary()?;
            e = match op {
                '*' => Expr::product(e, r),
                '/' => Expr::Div(Box::new(e), Box::new(r)),
                _ => Expr::Mod(Box::new(e), Box::new(r)),
            };
            sp = sp.to(rs);
        }
    }

    /// Runs `f` one nesting level deeper, refusing absurd depths.
    fn nested<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, Diagnostic>,
    ) -> Result<T, Diagnostic> {
        if self.depth >= MAX_DEPTH {
            return Err(Diagnostic::error(self.here(), "pragma nested too deeply"));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn unary(&mut self) -> Result<(Expr, Span), Diagnostic> {
        self.nested(Self::unary_inner)
    }

    fn unary_inner(&mut self) -> Result<(Expr, Span), Diagnostic> {
        if self.is_punct('-') {
            let s = self.bump_span();
            let (e, sp) = self.unary()?;
            let e = match e {
                Expr::Int(v) => match v.checked_neg() {
                    Some(n) => Expr::Int(n),
                    None => Expr::Neg(Box::new(Expr::Int(v))),
                },
                other => Expr::Neg(Box::new(other)),
            };
            return Ok((e, s.to(sp)));
        }
        if self.is_punct('+') {
            let s = self.bump_span();
            let (e, sp) = self.unary()?;
            return Ok((e, s.to(sp)));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<(Expr, Span), Diagnostic> {
        match self.peek() {
            Some(Tok::Int(v)) => {
                let v = *v;
                Ok((Expr::Int(v), self.bump_span()))
            }
            Some(Tok::BadInt) => Err(Diagnostic::error(self.here(), "integer literal too large")),
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                Ok((Expr::Var(s), self.bump_span()))
            }
            Some(Tok::Punct('(')) => {
                let start = self.bump_span();
                let (e, _) = self.expr()?;
                let end = self.expect_punct(')', " closing the parenthesis")?;
                Ok((e, start.to(end)))
            }
            _ => Err(self.expected("an expression")),
        }
    }
}

/// A parsed tuple with the span of each component.
/// True when `e` is affine, or (with `iterators`) affine in the iterators
/// once every other name is a constant: `i*W` for a macro `W`. Such an
/// access tuple is affine only if the names are constant macros, which the
/// front end checks ([`crate::frontend::chain`]); `i*i` is never affine.
fn affine_in(e: &Expr, iterators: &[String]) -> bool {
    if e.is_affine() {
        return true;
    }
    if iterators.is_empty() {
        return false;
    }
    let mut vars = BTreeSet::new();
    e.collect_vars(&mut vars);
    vars.iter()
        .filter(|v| !iterators.contains(v))
        .fold(e.clone(), |acc, v| acc.substitute(v, &Expr::Int(2)))
        .is_affine()
}

struct TupleSpans {
    exprs: Vec<Expr>,
    spans: Vec<Span>,
    span: Span,
}

impl From<TupleSpans> for Tuple {
    fn from(t: TupleSpans) -> Tuple {
        Tuple {
            exprs: t.exprs,
            span: t.span,
        }
    }
}

#[cfg(test)]
mod tests;
