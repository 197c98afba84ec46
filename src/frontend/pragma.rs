//! The pragma language: finding `#pragma` lines in the file's text, lexing
//! them, and parsing `#pragma omplc ...`, `#pragma scop` and `#pragma endscop`.
//!
//! clang drops unknown pragmas from its AST, so pragmas are read from the
//! text. The scanner skips comments and string literals, follows backslash
//! line continuations, and treats comments inside a pragma as white space
//! (a block comment may even span lines, as in C). Every token keeps its byte
//! span, so every error points at the offending token.
//!
//! Grammar (see `shared/spec/omplc-pragmas.md`):
//!
//! ```text
//! chain  := 'loopchain' [ 'schedule' '(' [ item { ',' item } ] ')' ]
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

use crate::diag::{Diagnostic, Span};
use crate::model::expr::Expr;
use crate::model::program::{AccessKind, ChainSchedule, LoopTreatment, ScheduleItem, TileSpec};

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
    /// `#pragma omplc loopchain schedule(...)`.
    Loopchain(ChainSchedule),
    /// `#pragma omplc for domain(...) with (...) read ... write ...`.
    For(NestPragma),
    /// `#pragma scop`.
    Scop,
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

/// If a backslash line continuation starts at `i`, its length.
fn continuation_len(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'\\') {
        return None;
    }
    match (b.get(i + 1), b.get(i + 2)) {
        (Some(b'\n'), _) => Some(2),
        (Some(b'\r'), Some(b'\n')) => Some(3),
        _ => None,
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
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let lit = &text[s..i];
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
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            toks.push(PTok {
                tok: Tok::Ident(text[s..i].to_string()),
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
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut errors = Vec::new();
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
        } else if c == b'#' && at_line_start {
            let (toks, end) = lex_directive(text, i);
            if let Some(p) = pragma_from_tokens(text, &toks, line_start, end, &mut errors) {
                out.push(p);
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
        PragmaKind::Scop
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
    let mut p = Parser {
        toks,
        pos: 0,
        depth: 0,
        end: toks.last().map(|t| t.span).unwrap_or(omplc),
    };
    let kind = match p.peek_ident() {
        Some("loopchain") => {
            p.pos += 1;
            PragmaKind::Loopchain(p.chain()?)
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
    if p.pos < p.toks.len() {
        return Err(Diagnostic::error(
            p.here(),
            format!("unexpected {} at the end of the pragma", p.describe()),
        ));
    }
    Ok(kind)
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

impl Parser<'_> {
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

    // ---- loopchain ----

    fn chain(&mut self) -> Result<ChainSchedule, Diagnostic> {
        let mut sched = ChainSchedule::default();
        match self.peek_ident() {
            None if self.peek().is_none() => return Ok(sched),
            Some("schedule") => {
                self.pos += 1;
            }
            Some(other) => {
                return Err(Diagnostic::error(
                    self.here(),
                    format!(
                    "unknown clause '{other}' in '#pragma omplc loopchain': expected 'schedule'"
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
                    let t = self.tuple(false, "a shift tuple such as '(0,1)'")?;
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
        let t = self.tuple(false, "the tile sizes, such as '(16, 16)'")?;
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
                    self.tuple(true, "an index tuple such as '(i, j-1)'")?
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
    fn tuple(&mut self, any_ok: bool, what: &str) -> Result<TupleSpans, Diagnostic> {
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
                if !e.is_affine() {
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
mod tests {
    use super::*;

    fn v(s: &str) -> Expr {
        Expr::Var(s.into())
    }

    /// Scans `text` and expects exactly one pragma and no error.
    fn one(text: &str) -> PragmaLine {
        let (ps, errs) = scan(text);
        assert!(errs.is_empty(), "unexpected errors: {errs:?}");
        assert_eq!(ps.len(), 1, "{ps:?}");
        ps.into_iter().next().unwrap()
    }

    /// Scans `text` and expects one error: returns its message and the text under its span.
    fn error(text: &str) -> (String, String) {
        let (ps, errs) = scan(text);
        assert!(ps
            .iter()
            .all(|p| !matches!(p.kind, PragmaKind::For(_) | PragmaKind::Loopchain(_))));
        assert_eq!(errs.len(), 1, "{errs:?}");
        let d = &errs[0];
        let crate::diag::Location::Span(sp) = d.location else {
            panic!("no span")
        };
        (d.message.clone(), text[sp.start..sp.end].to_string())
    }

    const SPEC: &str = "\
#pragma omplc loopchain schedule( fuse(), tile( (16), parallel, serial ) )
{
  #pragma omplc for domain(1:N-2) with (i) read A { (i-1), (i), (i+1) }, write B { (i) }
  for (int i = 1; i <= N-2; i += 1) { B[i] = (A[i-1] + A[i] + A[i+1]) * e; }

  #pragma omplc for domain(0:N-1) with (i) read B { (i) }, write C { (i) }
  for (int i = 0; i <= N-1; i += 1) { foo(C, B, i); }
}
";

    #[test]
    fn spec_example() {
        let (ps, errs) = scan(SPEC);
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(ps.len(), 3);
        let PragmaKind::Loopchain(s) = &ps[0].kind else {
            panic!()
        };
        assert_eq!(ps[0].span.start, 0);
        assert_eq!(ps[0].line_end, SPEC.find('\n').unwrap());
        assert_eq!(s.items.len(), 2);
        assert!(matches!(
            s.items[0],
            ScheduleItem::Fuse { shifts: None, .. }
        ));
        let ScheduleItem::Tile(t) = &s.items[1] else {
            panic!()
        };
        assert_eq!(t.sizes, vec![16]);
        assert!(matches!(t.outer, LoopTreatment::Parallel));
        assert!(matches!(t.inner, LoopTreatment::Serial));
        assert_eq!(
            &SPEC[t.span.start..t.span.end],
            "tile( (16), parallel, serial )"
        );

        let PragmaKind::For(n) = &ps[1].kind else {
            panic!()
        };
        assert_eq!(ps[1].indent, "  ");
        assert_eq!(&SPEC[ps[1].span.start..ps[1].span.start + 7], "#pragma");
        assert_eq!(
            n.iterators.iter().map(|x| x.0.as_str()).collect::<Vec<_>>(),
            ["i"]
        );
        assert_eq!(n.ranges[0].lo, Expr::Int(1));
        assert_eq!(n.ranges[0].hi, Expr::difference(v("N"), Expr::Int(2)));
        assert_eq!(n.accesses.len(), 2);
        assert_eq!(n.accesses[0].kind, AccessKind::Read);
        assert_eq!(n.accesses[0].data, "A");
        let t: Vec<&Expr> = n.accesses[0].tuples.iter().map(|t| &t.exprs[0]).collect();
        assert_eq!(
            t,
            [
                &Expr::difference(v("i"), Expr::Int(1)),
                &v("i"),
                &Expr::sum(v("i"), Expr::Int(1))
            ]
        );
        let sp = n.accesses[0].tuples[2].span;
        assert_eq!(&SPEC[sp.start..sp.end], "(i+1)");
        assert_eq!(n.accesses[1].kind, AccessKind::Write);
        assert_eq!(&SPEC[n.with_span.start..n.with_span.end], "with (i)");
        assert_eq!(
            &SPEC[n.domain_span.start..n.domain_span.end],
            "domain(1:N-2)"
        );
        assert!(matches!(ps[2].kind, PragmaKind::For(_)));
    }

    #[test]
    fn continuations_and_comments() {
        let text = "  #  pragma omplc for /* the domain */ domain(0:N-1, \\\n   0:M-1) /* spans\n two lines */ with (i, j) \\\n  read A { (i, j-1) } // the reads\\\n  write B { (i, j) }\nint x;\n";
        let p = one(text);
        let PragmaKind::For(n) = &p.kind else {
            panic!()
        };
        assert_eq!(p.indent, "  ");
        assert_eq!(p.span.start, 2);
        assert_eq!(n.ranges.len(), 2);
        assert_eq!(n.ranges[1].hi, Expr::difference(v("M"), Expr::Int(1)));
        // As in C, a line comment ending in a backslash swallows the next line.
        assert_eq!(n.accesses.len(), 1);
        assert_eq!(n.accesses[0].data, "A");
        assert_eq!(&text[p.line_end..p.line_end + 7], "\nint x;");
    }

    #[test]
    fn skips_comments_and_strings() {
        let text = "/*\n#pragma omplc for oops\n*/\nchar *s = \"\\\n#pragma scop\";\n// #pragma scop\nx = 1; #pragma scop\n#pragma omp parallel\n#pragma scop\n";
        let (ps, errs) = scan(text);
        assert!(errs.is_empty());
        assert_eq!(ps.len(), 1);
        assert!(matches!(ps[0].kind, PragmaKind::Scop));
        assert_eq!(ps[0].span.start, text.rfind("#pragma scop").unwrap());
    }

    #[test]
    fn crlf_lines_end_before_the_carriage_return() {
        let text = "#pragma scop\r\nx = 1;\r\n#pragma endscop\r\n";
        let (ps, errs) = scan(text);
        assert!(errs.is_empty());
        assert_eq!(ps.len(), 2);
        assert_eq!(ps[0].line_end, text.find('\r').unwrap());
        assert!(matches!(ps[1].kind, PragmaKind::Endscop));
        assert_eq!(&text[ps[1].line_start..ps[1].line_end], "#pragma endscop");
    }

    #[test]
    fn nested_tile_and_fuse_shifts() {
        let text = "#pragma omplc loopchain schedule(fuse((0,0),(0,-1),(1, 1)), tile((32,64), wavefront, tile((4,4), parallel, serial)), parallel)\n";
        let p = one(text);
        let PragmaKind::Loopchain(s) = &p.kind else {
            panic!()
        };
        let ScheduleItem::Fuse {
            shifts: Some(sh),
            span,
        } = &s.items[0]
        else {
            panic!()
        };
        assert_eq!(sh, &vec![vec![0, 0], vec![0, -1], vec![1, 1]]);
        assert_eq!(&text[span.start..span.end], "fuse((0,0),(0,-1),(1, 1))");
        let ScheduleItem::Tile(t) = &s.items[1] else {
            panic!()
        };
        assert_eq!(t.sizes, vec![32, 64]);
        assert!(matches!(t.outer, LoopTreatment::Wavefront));
        let LoopTreatment::Tile(inner) = &t.inner else {
            panic!()
        };
        assert_eq!(inner.sizes, vec![4, 4]);
        assert!(matches!(inner.outer, LoopTreatment::Parallel));
        assert!(matches!(inner.inner, LoopTreatment::Serial));
        assert!(matches!(s.items[2], ScheduleItem::Parallel(_)));
    }

    #[test]
    fn any_index_and_lenient_commas() {
        let p = one("#pragma omplc for domain(0:n-1) with (i) read img { (i) } read lut { (*) } write hist { (2*i+1), (*) }\n");
        let PragmaKind::For(n) = &p.kind else {
            panic!()
        };
        assert_eq!(n.accesses.len(), 3);
        assert_eq!(n.accesses[1].tuples[0].exprs, vec![Expr::Any]);
        assert_eq!(
            n.accesses[2].tuples[0].exprs,
            vec![Expr::sum(Expr::product(Expr::Int(2), v("i")), Expr::Int(1))]
        );
        let p = one("#pragma omplc loopchain\n");
        assert!(matches!(&p.kind, PragmaKind::Loopchain(s) if s.items.is_empty()));
    }

    #[test]
    fn errors_point_at_the_token() {
        assert_eq!(
            error("#pragma omplc for domain(0:N) with (i) read A { (i) } writ B { (i) }\n"),
            (
                "unknown clause 'writ' in '#pragma omplc for': expected 'read' or 'write'".into(),
                "writ".into()
            )
        );
        assert_eq!(
            error("#pragma omplc for domain(0:N, 0:M) with (i) read A { (i) }\n"),
            (
                "domain has 2 ranges but 'with' lists 1 iterator".into(),
                "with (i)".into()
            )
        );
        assert_eq!(
            error("#pragma omplc for domain(0:N) with (i, j) read A { (i) }\n"),
            (
                "domain has 1 range but 'with' lists 2 iterators".into(),
                "with (i, j)".into()
            )
        );
        assert_eq!(
            error("#pragma omplc for domain(0 N) with (i) read A { (i) }\n"),
            (
                "expected ':' between the bounds of a range (lower:upper), found 'N'".into(),
                "N".into()
            )
        );
        assert_eq!(
            error("#pragma omplc for domain(0:N) with (i) read A { (i) \n"),
            (
                "expected ',' or '}' in the tuples of 'A', found end of pragma".into(),
                "".into()
            )
        );
        assert_eq!(
            error("#pragma omplc loopchain schedule(fuse(), tyle((4),serial,serial))\n"),
            (
                "unknown schedule item 'tyle': expected 'fuse', 'tile', 'parallel' or 'wavefront'"
                    .into(),
                "tyle".into()
            )
        );
        assert_eq!(
            error("#pragma omplc loopchain schedule(fuse(), tile((4),serial,serial), fuse((0),(1)))\n"),
            (
                "'fuse' may appear only once in a schedule: the nests are fused already".into(),
                "fuse((0),(1))".into()
            )
        );
        assert_eq!(
            error("#pragma omplc loopchain schedule(tile((4, N), serial, serial))\n"),
            (
                "tile sizes must be positive integer constants".into(),
                "N".into()
            )
        );
        assert_eq!(
            error("#pragma omplc loopchain schedule(tile((4), serial, paralel))\n"),
            (
                "unknown loop treatment 'paralel': expected 'serial', 'parallel', 'wavefront' or 'tile'".into(),
                "paralel".into()
            )
        );
        assert_eq!(
            error("#pragma omplc loopchain schedule(fuse((0),(k)))\n"),
            ("fuse shifts must be integer constants".into(), "k".into())
        );
        assert_eq!(
            error("#pragma omplc for domain(0:N) with (i) read A { (i*i) }\n"),
            (
                "non-affine index expression '(i * i)'; write '*' for a data-dependent index"
                    .into(),
                "i*i".into()
            )
        );
        assert_eq!(
            error("#pragma omplc for domain(0:(*)) with (i) read A { (i) }\n"),
            ("expected an expression, found '*'".into(), "*".into())
        );
        assert_eq!(
            error("#pragma omplc loop\n"),
            (
                "unknown omplc directive 'loop': expected 'loopchain' or 'for'".into(),
                "loop".into()
            )
        );
        assert_eq!(
            error("#pragma omplc loopchain schedule(parallel) extra\n"),
            (
                "unexpected 'extra' at the end of the pragma".into(),
                "extra".into()
            )
        );
        assert_eq!(
            error("#pragma omplc for domain(0:N) with (i, i) read A { (i) }\n"),
            ("iterator 'i' is listed twice in 'with'".into(), "i".into())
        );
        let deep = format!(
            "#pragma omplc for domain(0:{}N{}) with (i)\n",
            "(".repeat(5000),
            ")".repeat(5000)
        );
        assert_eq!(error(&deep).0, "pragma nested too deeply");
        assert_eq!(
            error("#pragma omplc for domain(0:99999999999999999999) with (i)\n"),
            (
                "integer literal too large".into(),
                "99999999999999999999".into()
            )
        );
    }
}
