//! A small safe wrapper over libclang (through `clang-sys`): the only file of
//! flextile that calls libclang.
//!
//! * [`Index`] and [`TranslationUnit`] own their libclang objects and free them
//!   on drop. An [`Index`] also holds a process-wide lock, so that libclang is
//!   driven by one thread at a time (tests run in parallel).
//! * [`Cursor`] visits the AST. Its extent is reported as a byte [`Span`] of the
//!   main file, using *file* locations: a node written in a macro argument gets
//!   the argument's bytes, a node of a macro body gets the whole invocation.
//!   (libclang 14's `clang_getSpellingLocation` returns the same as the file
//!   location, so macro bodies cannot be looked into; see `frontend::ast`.)
//!   clang's own extent of a node that ends (or starts) with a token of a
//!   macro argument stops at that argument (`x = SCALAR_VAL(0.0)` ends after
//!   `0.0`); [`Cursor::span`] widens such an end or start to the whole
//!   invocation, from a table of the main file's invocations built once per
//!   translation unit.
//! * [`TranslationUnit::tokens`] tokenizes a byte range of the main file
//!   (raw tokens: not macro-expanded), [`TranslationUnit::diagnostics`]
//!   returns clang's messages, [`TranslationUnit::macro_expansions`] the macro
//!   invocations of the main file and [`TranslationUnit::skipped_ranges`] the
//!   ranges removed by `#if`.
//! * [`resource_dir`] finds clang's resource directory (builtin headers such as
//!   `stddef.h`): Debian's libclang does not find it by itself.

#![allow(non_upper_case_globals)]

use std::cell::OnceCell;
use std::ffi::{CStr, CString};
use std::marker::PhantomData;
use std::os::raw::{c_char, c_int, c_uint, c_ulong, c_void};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};

use clang_sys::*;

use crate::diag::Span;

/// Serialises every use of libclang in the process.
static LIBCLANG_LOCK: Mutex<()> = Mutex::new(());

/// A libclang index (`CXIndex`); holds the process-wide libclang lock while it lives.
pub struct Index {
    raw: CXIndex,
    _guard: MutexGuard<'static, ()>,
}

impl Index {
    /// Creates an index that does not print diagnostics itself.
    pub fn new() -> Result<Index, String> {
        let guard = LIBCLANG_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        // SAFETY: plain constructor; a null result is checked.
        let raw = unsafe { clang_createIndex(0, 0) };
        if raw.is_null() {
            return Err("libclang could not create an index".to_string());
        }
        Ok(Index { raw, _guard: guard })
    }
}

impl Drop for Index {
    fn drop(&mut self) {
        // SAFETY: `raw` came from clang_createIndex and every translation unit
        // borrowing this index has been dropped (lifetimes).
        unsafe { clang_disposeIndex(self.raw) }
    }
}

/// A parsed translation unit; its cursors and tokens borrow it.
pub struct TranslationUnit<'i> {
    raw: CXTranslationUnit,
    file: CXFile,
    /// The main file's macro invocations, built on first use.
    invocations: OnceCell<Invocations>,
    _index: PhantomData<&'i Index>,
}

/// The macro invocations of the main file, by start, with the argument
/// ranges of each, for widening node extents ([`Cursor::span`]).
#[derive(Default)]
struct Invocations {
    /// `(invocation, its arguments)`, sorted by start.
    list: Vec<(Span, Vec<Span>)>,
    /// `max_end[k]`: the largest end among `list[..=k]`.
    max_end: Vec<usize>,
}

impl Invocations {
    /// `span` widened so that neither end lies strictly inside an invocation
    /// unless both lie in the same argument of it: an end inside moves to the
    /// invocation's end, a start inside to its start (repeated, since the
    /// wider span may reach into another invocation).
    fn widen(&self, mut span: Span) -> Span {
        // Each round moves an end outwards to an invocation boundary; the
        // invocations are finitely many, so this ends.
        loop {
            let before = span;
            for pos in [span.start, span.end] {
                let k = self.list.partition_point(|(m, _)| m.start <= pos);
                for j in (0..k).rev() {
                    if self.max_end[j] <= pos {
                        break;
                    }
                    let (m, args) = &self.list[j];
                    // clang cannot find the end of a token that comes from a
                    // macro and ends such a node at the invocation's start
                    // (`(DATA_TYPE)_PB_N`): an end there is inside it too
                    let ends_at_start = pos == span.end && pos == m.start && span.start < pos;
                    if !(ends_at_start || (m.start < pos && pos < m.end)) {
                        continue;
                    }
                    let one_arg = args
                        .iter()
                        .any(|a| a.start <= span.start && span.end <= a.end);
                    if one_arg {
                        continue;
                    }
                    span = Span::new(span.start.min(m.start), span.end.max(m.end));
                }
            }
            if span == before {
                return span;
            }
        }
    }
}

/// The argument ranges of a function-like macro invocation, from its tokens
/// (the name, `(`, arguments split at top-level commas, `)`).
pub(crate) fn invocation_args(tokens: &[Token]) -> Vec<Span> {
    let mut args = Vec::new();
    let mut depth = 0usize;
    let mut start = None;
    for t in tokens.iter().skip(1) {
        if t.kind != TokenKind::Punctuation {
            continue;
        }
        match t.text.as_str() {
            "(" | "[" | "{" => {
                depth += 1;
                if depth == 1 {
                    start = Some(t.span.end);
                }
            }
            ")" | "]" | "}" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    if let Some(s) = start {
                        args.push(Span::new(s, t.span.start));
                    }
                    break;
                }
            }
            "," if depth == 1 => {
                if let Some(s) = start {
                    args.push(Span::new(s, t.span.start));
                }
                start = Some(t.span.end);
            }
            _ => {}
        }
    }
    args
}

/// Why [`TranslationUnit::parse`] produced no translation unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// libclang's error code (`CXError_*`); 4 (`ASTReadError`) is what an
    /// argument clang rejects (`-std=c1492`) gives.
    Code(CXErrorCode),
    /// A name or size libclang cannot be given.
    Other(String),
}

/// Severity of a clang diagnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiagLevel {
    /// Ignored, note or warning.
    Minor,
    /// Error.
    Error,
    /// Fatal error.
    Fatal,
}

/// Where a clang diagnostic points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiagPlace {
    /// A byte range of the main file.
    Main(Span),
    /// A position in another file.
    Other {
        /// Path of the file.
        path: String,
        /// 1-based line.
        line: u32,
        /// 1-based column.
        col: u32,
    },
    /// No position.
    Unknown,
}

/// One diagnostic reported by clang.
#[derive(Clone, Debug)]
pub struct ClangDiagnostic {
    /// How serious it is.
    pub level: DiagLevel,
    /// clang's message.
    pub message: String,
    /// Where it points.
    pub place: DiagPlace,
}

/// Kind of a raw token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// Punctuation (`(`, `+=`, `;`, ...).
    Punctuation,
    /// C keyword.
    Keyword,
    /// Identifier (including macro names).
    Identifier,
    /// Numeric, character or string literal.
    Literal,
    /// Comment.
    Comment,
}

/// A raw token of the main file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// Its kind.
    pub kind: TokenKind,
    /// Its spelling.
    pub text: String,
    /// Its bytes in the main file.
    pub span: Span,
}

/// One macro invocation written in the main file.
#[derive(Clone, Debug)]
pub struct MacroExpansion {
    /// Macro name.
    pub name: String,
    /// The invocation, name and arguments included.
    pub span: Span,
    /// True for function-like macros.
    pub function_like: bool,
    /// Tokens of the macro definition (name, parameters and body), as spellings.
    pub definition: Vec<(TokenKind, String)>,
    /// True when the definition is the user's: in the main file, one of the
    /// user's headers or on the command line (`-D`), not in a system header
    /// (`INT_MAX`) nor built in.
    pub user_defined: bool,
}

/// The canonical type class of an expression or declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeClass {
    /// Any integer type (including `char`, `_Bool` and enums).
    Integer,
    /// `float`, `double`, `long double`.
    Floating,
    /// A pointer.
    Pointer,
    /// An array (constant, variable or incomplete size).
    Array,
    /// Anything else (structs, functions, void, ...).
    Other,
}

/// What [`Cursor::layout`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeLayout {
    /// The type is a pointer.
    pub pointer: bool,
    /// The pointer is `restrict`-qualified (for an array type: the
    /// qualifiers in its first brackets, which only a parameter may have,
    /// say so).
    pub restrict: bool,
    /// Subscripts that index contiguous memory.
    pub levels: usize,
}

/// The cursor kinds flextile looks at; everything else is `Other`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CursorKind {
    /// Function definition or declaration.
    FunctionDecl,
    /// Variable declaration.
    VarDecl,
    /// Function parameter.
    ParmDecl,
    /// Enumerator.
    EnumConstantDecl,
    /// Reference to a type name.
    TypeRef,
    /// Implicit cast and other unexposed expressions.
    UnexposedExpr,
    /// Reference to a variable, function or enumerator.
    DeclRefExpr,
    /// `a.b` or `a->b`.
    MemberRefExpr,
    /// Function call.
    CallExpr,
    /// Integer literal.
    IntegerLiteral,
    /// Floating literal.
    FloatingLiteral,
    /// String literal.
    StringLiteral,
    /// Character literal.
    CharacterLiteral,
    /// `( e )`.
    ParenExpr,
    /// Unary operator (prefix or postfix).
    UnaryOperator,
    /// `a[b]`.
    ArraySubscriptExpr,
    /// Binary operator, assignment included.
    BinaryOperator,
    /// `+=`, `-=`, ...
    CompoundAssignOperator,
    /// `c ? a : b`.
    ConditionalOperator,
    /// `(type) e`.
    CStyleCastExpr,
    /// `sizeof`, `_Alignof`.
    UnaryExpr,
    /// `{ ... }`.
    CompoundStmt,
    /// `if`.
    IfStmt,
    /// `switch`.
    SwitchStmt,
    /// `while`.
    WhileStmt,
    /// `do ... while`.
    DoStmt,
    /// `for`.
    ForStmt,
    /// `goto`.
    GotoStmt,
    /// `continue`.
    ContinueStmt,
    /// `break`.
    BreakStmt,
    /// `return`.
    ReturnStmt,
    /// `;`.
    NullStmt,
    /// Declaration statement.
    DeclStmt,
    /// Label statement.
    LabelStmt,
    /// Unexposed statement.
    UnexposedStmt,
    /// Macro definition (preprocessing record).
    MacroDefinition,
    /// Macro invocation (preprocessing record).
    MacroExpansion,
    /// Any other kind.
    Other,
}

impl CursorKind {
    fn from_raw(k: CXCursorKind) -> CursorKind {
        match k {
            CXCursor_FunctionDecl => CursorKind::FunctionDecl,
            CXCursor_VarDecl => CursorKind::VarDecl,
            CXCursor_ParmDecl => CursorKind::ParmDecl,
            CXCursor_EnumConstantDecl => CursorKind::EnumConstantDecl,
            CXCursor_TypeRef => CursorKind::TypeRef,
            CXCursor_UnexposedExpr => CursorKind::UnexposedExpr,
            CXCursor_DeclRefExpr => CursorKind::DeclRefExpr,
            CXCursor_MemberRefExpr => CursorKind::MemberRefExpr,
            CXCursor_CallExpr => CursorKind::CallExpr,
            CXCursor_IntegerLiteral => CursorKind::IntegerLiteral,
            CXCursor_FloatingLiteral => CursorKind::FloatingLiteral,
            CXCursor_StringLiteral => CursorKind::StringLiteral,
            CXCursor_CharacterLiteral => CursorKind::CharacterLiteral,
            CXCursor_ParenExpr => CursorKind::ParenExpr,
            CXCursor_UnaryOperator => CursorKind::UnaryOperator,
            CXCursor_ArraySubscriptExpr => CursorKind::ArraySubscriptExpr,
            CXCursor_BinaryOperator => CursorKind::BinaryOperator,
            CXCursor_CompoundAssignOperator => CursorKind::CompoundAssignOperator,
            CXCursor_ConditionalOperator => CursorKind::ConditionalOperator,
            CXCursor_CStyleCastExpr => CursorKind::CStyleCastExpr,
            CXCursor_UnaryExpr => CursorKind::UnaryExpr,
            CXCursor_CompoundStmt => CursorKind::CompoundStmt,
            CXCursor_IfStmt => CursorKind::IfStmt,
            CXCursor_SwitchStmt => CursorKind::SwitchStmt,
            CXCursor_WhileStmt => CursorKind::WhileStmt,
            CXCursor_DoStmt => CursorKind::DoStmt,
            CXCursor_ForStmt => CursorKind::ForStmt,
            CXCursor_GotoStmt => CursorKind::GotoStmt,
            CXCursor_ContinueStmt => CursorKind::ContinueStmt,
            CXCursor_BreakStmt => CursorKind::BreakStmt,
            CXCursor_ReturnStmt => CursorKind::ReturnStmt,
            CXCursor_NullStmt => CursorKind::NullStmt,
            CXCursor_DeclStmt => CursorKind::DeclStmt,
            CXCursor_LabelStmt => CursorKind::LabelStmt,
            CXCursor_UnexposedStmt => CursorKind::UnexposedStmt,
            CXCursor_MacroDefinition => CursorKind::MacroDefinition,
            CXCursor_MacroExpansion => CursorKind::MacroExpansion,
            _ => CursorKind::Other,
        }
    }

    /// True for expression kinds (anything that can be an expression statement).
    pub fn is_expression(self) -> bool {
        matches!(
            self,
            CursorKind::UnexposedExpr
                | CursorKind::DeclRefExpr
                | CursorKind::MemberRefExpr
                | CursorKind::CallExpr
                | CursorKind::IntegerLiteral
                | CursorKind::FloatingLiteral
                | CursorKind::StringLiteral
                | CursorKind::CharacterLiteral
                | CursorKind::ParenExpr
                | CursorKind::UnaryOperator
                | CursorKind::ArraySubscriptExpr
                | CursorKind::BinaryOperator
                | CursorKind::CompoundAssignOperator
                | CursorKind::ConditionalOperator
                | CursorKind::CStyleCastExpr
                | CursorKind::UnaryExpr
        )
    }
}

/// Takes ownership of a `CXString` and returns its text.
fn take_string(s: CXString) -> String {
    // SAFETY: `s` is a fresh CXString owned by us; its C string is copied
    // before the string is disposed, and a null pointer is checked.
    unsafe {
        let p = clang_getCString(s);
        let out = if p.is_null() {
            String::new()
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        };
        clang_disposeString(s);
        out
    }
}

impl<'i> TranslationUnit<'i> {
    /// Parses `path` with `args` (plain clang driver arguments) and in-memory
    /// files `virtual_files` (path, bytes), which clang reads instead of
    /// the disk (the main file among them: read once, pipes included).
    /// Returns libclang's error code when it could not produce a translation
    /// unit at all, or a message for names it cannot take.
    pub fn parse(
        index: &'i Index,
        path: &Path,
        args: &[String],
        virtual_files: &[(String, Vec<u8>)],
    ) -> Result<TranslationUnit<'i>, ParseError> {
        let cpath = CString::new(path.to_string_lossy().as_bytes())
            .map_err(|_| ParseError::Other(format!("invalid file name '{}'", path.display())))?;
        let mut cargs = Vec::with_capacity(args.len());
        for a in args {
            cargs.push(
                CString::new(a.as_bytes())
                    .map_err(|_| ParseError::Other(format!("invalid clang argument '{a}'")))?,
            );
        }
        let ptrs: Vec<*const c_char> = cargs.iter().map(|a| a.as_ptr()).collect();
        let mut vnames = Vec::with_capacity(virtual_files.len());
        for (name, contents) in virtual_files {
            let n = CString::new(name.as_bytes())
                .map_err(|_| ParseError::Other(format!("invalid virtual file name '{name}'")))?;
            vnames.push((n, contents));
        }
        let mut unsaved: Vec<CXUnsavedFile> = Vec::with_capacity(vnames.len());
        for (n, contents) in &vnames {
            let length = c_ulong::try_from(contents.len())
                .map_err(|_| ParseError::Other("file too large".to_string()))?;
            unsaved.push(CXUnsavedFile {
                Filename: n.as_ptr(),
                Contents: contents.as_ptr() as *const c_char,
                Length: length,
            });
        }
        let n_unsaved = c_uint::try_from(unsaved.len())
            .map_err(|_| ParseError::Other("too many virtual files".to_string()))?;
        let n_args = c_int::try_from(ptrs.len())
            .map_err(|_| ParseError::Other("too many clang arguments".to_string()))?;
        let mut raw: CXTranslationUnit = std::ptr::null_mut();
        // SAFETY: every pointer passed (arguments, virtual file names and
        // contents, with their lengths) lives until the call returns; the
        // out-pointer is a valid local.
        let code = unsafe {
            clang_parseTranslationUnit2(
                index.raw,
                cpath.as_ptr(),
                ptrs.as_ptr(),
                n_args,
                unsaved.as_mut_ptr(),
                n_unsaved,
                CXTranslationUnit_DetailedPreprocessingRecord,
                &mut raw,
            )
        };
        if code != CXError_Success || raw.is_null() {
            return Err(ParseError::Code(code));
        }
        // SAFETY: `raw` is a valid translation unit; the name is a valid C string.
        let file = unsafe { clang_getFile(raw, cpath.as_ptr()) };
        if file.is_null() {
            // SAFETY: we own `raw`.
            unsafe { clang_disposeTranslationUnit(raw) };
            return Err(ParseError::Other(format!(
                "libclang lost track of '{}'",
                path.display()
            )));
        }
        Ok(TranslationUnit {
            raw,
            file,
            invocations: OnceCell::new(),
            _index: PhantomData,
        })
    }

    /// The translation unit's cursor (its children are the top-level declarations
    /// and, with the preprocessing record, macro definitions and expansions).
    pub fn root(&self) -> Cursor<'_> {
        // SAFETY: `raw` is a valid translation unit.
        let raw = unsafe { clang_getTranslationUnitCursor(self.raw) };
        Cursor { raw, tu: self }
    }

    /// Byte offset of `loc` if its file location is in the main file.
    fn main_offset(&self, loc: CXSourceLocation) -> Option<usize> {
        self.offset_by(loc, clang_getFileLocation)
    }

    /// Byte offset of `loc` in the main file as `locate` (clang's file or
    /// expansion location) places it; `None` elsewhere.
    fn offset_by(
        &self,
        loc: CXSourceLocation,
        locate: unsafe extern "C" fn(
            CXSourceLocation,
            *mut CXFile,
            *mut c_uint,
            *mut c_uint,
            *mut c_uint,
        ),
    ) -> Option<usize> {
        let mut file: CXFile = std::ptr::null_mut();
        let mut offset: c_uint = 0;
        // SAFETY: out-pointers are valid locals; null line/column pointers are allowed.
        unsafe {
            locate(
                loc,
                &mut file,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                &mut offset,
            );
            if file.is_null() || clang_File_isEqual(file, self.file) == 0 {
                return None;
            }
        }
        usize::try_from(offset).ok()
    }

    /// Where a node's boundary lies in the main file's text: its spelling
    /// when that is written at the place the code is (outside macros, or in
    /// an argument of the invocation it comes from); otherwise, for a token
    /// a macro body or another macro's definition supplies (`_PB_N` defined
    /// as `POLYBENCH_LOOP_BOUND(N, n)`, possibly in a header), the start of
    /// the invocation written in the main file, which [`Invocations::widen`]
    /// then covers whole.
    fn node_offset(&self, loc: CXSourceLocation) -> Option<usize> {
        let Some(exp) = self.offset_by(loc, clang_getExpansionLocation) else {
            return self.main_offset(loc);
        };
        match self.main_offset(loc) {
            Some(f) if f == exp => Some(f),
            Some(f) => {
                let inv = self.invocations();
                let k = inv.list.partition_point(|(m, _)| m.start < exp);
                match inv.list.get(k) {
                    Some((m, _)) if m.start == exp && m.start <= f && f <= m.end => Some(f),
                    _ => Some(exp),
                }
            }
            None => Some(exp),
        }
    }

    /// The invocation table ([`Invocations`]), built on first use.
    fn invocations(&self) -> &Invocations {
        self.invocations.get_or_init(|| {
            let mut list: Vec<(Span, Vec<Span>)> = self
                .root()
                .children()
                .into_iter()
                .filter(|c| c.kind() == CursorKind::MacroExpansion)
                .filter_map(|c| c.raw_span())
                .map(|sp| (sp, invocation_args(&self.tokens(sp))))
                .collect();
            list.sort_by_key(|(m, _)| (m.start, m.end));
            let mut max_end = Vec::with_capacity(list.len());
            let mut end = 0;
            for (m, _) in &list {
                end = end.max(m.end);
                max_end.push(end);
            }
            Invocations { list, max_end }
        })
    }

    /// The main-file span of a source range, if both ends are in the main file.
    fn main_span(&self, range: CXSourceRange) -> Option<Span> {
        // SAFETY: range accessors on a value range.
        let (s, e) = unsafe { (clang_getRangeStart(range), clang_getRangeEnd(range)) };
        let start = self.main_offset(s)?;
        let end = self.main_offset(e)?;
        (start <= end).then_some(Span::new(start, end))
    }

    /// The clang diagnostics of the parse, in order.
    pub fn diagnostics(&self) -> Vec<ClangDiagnostic> {
        let mut out = Vec::new();
        // SAFETY: `raw` is valid; each diagnostic is disposed after use.
        let n = unsafe { clang_getNumDiagnostics(self.raw) };
        for i in 0..n {
            // SAFETY: `i` is below the count.
            let d = unsafe { clang_getDiagnostic(self.raw, i) };
            if d.is_null() {
                continue;
            }
            // SAFETY: `d` is a valid diagnostic until disposed below.
            let (sev, message, loc) = unsafe {
                (
                    clang_getDiagnosticSeverity(d),
                    take_string(clang_getDiagnosticSpelling(d)),
                    clang_getDiagnosticLocation(d),
                )
            };
            let level = match sev {
                CXDiagnostic_Error => DiagLevel::Error,
                CXDiagnostic_Fatal => DiagLevel::Fatal,
                _ => DiagLevel::Minor,
            };
            let place = if let Some(off) = self.main_offset(loc) {
                // Prefer the first highlighted range when it starts at the location.
                // SAFETY: `d` is valid; the range index is checked against the count.
                let range = unsafe {
                    if clang_getDiagnosticNumRanges(d) > 0 {
                        self.main_span(clang_getDiagnosticRange(d, 0))
                    } else {
                        None
                    }
                };
                match range {
                    Some(r) if r.start == off && r.end > r.start => DiagPlace::Main(r),
                    _ => DiagPlace::Main(Span::new(off, off)),
                }
            } else {
                let mut file: CXFile = std::ptr::null_mut();
                let (mut line, mut col): (c_uint, c_uint) = (0, 0);
                // SAFETY: out-pointers are valid locals.
                unsafe {
                    clang_getFileLocation(
                        loc,
                        &mut file,
                        &mut line,
                        &mut col,
                        std::ptr::null_mut(),
                    );
                }
                if file.is_null() {
                    DiagPlace::Unknown
                } else {
                    // SAFETY: `file` is a valid file handle of this unit.
                    let path = take_string(unsafe { clang_getFileName(file) });
                    DiagPlace::Other { path, line, col }
                }
            };
            // SAFETY: disposing the diagnostic we obtained.
            unsafe { clang_disposeDiagnostic(d) };
            out.push(ClangDiagnostic {
                level,
                message,
                place,
            });
        }
        out
    }

    /// Raw tokens of the main file whose start lies in `span`.
    pub fn tokens(&self, span: Span) -> Vec<Token> {
        let (Ok(start), Ok(end)) = (c_uint::try_from(span.start), c_uint::try_from(span.end))
        else {
            return Vec::new();
        };
        // SAFETY: locations of the main file; libclang clamps invalid offsets
        // to null locations, which tokenize to nothing.
        let range = unsafe {
            clang_getRange(
                clang_getLocationForOffset(self.raw, self.file, start),
                clang_getLocationForOffset(self.raw, self.file, end),
            )
        };
        self.tokenize(range)
            .into_iter()
            .filter_map(|(kind, text, r)| {
                let sp = self.main_span(r)?;
                (sp.start >= span.start && sp.start < span.end).then_some(Token {
                    kind,
                    text,
                    span: sp,
                })
            })
            .collect()
    }

    /// Tokenizes a source range (of any file).
    fn tokenize(&self, range: CXSourceRange) -> Vec<(TokenKind, String, CXSourceRange)> {
        let mut toks: *mut CXToken = std::ptr::null_mut();
        let mut n: c_uint = 0;
        // SAFETY: out-pointers are valid locals; the tokens are disposed below.
        unsafe { clang_tokenize(self.raw, range, &mut toks, &mut n) };
        if toks.is_null() {
            return Vec::new();
        }
        let len = usize::try_from(n).unwrap_or(0);
        let mut out = Vec::with_capacity(len);
        // SAFETY: libclang returned `n` tokens at `toks`.
        let slice = unsafe { std::slice::from_raw_parts(toks, len) };
        for &t in slice {
            // SAFETY: `t` is a token of this unit.
            let (kind, text, extent) = unsafe {
                (
                    clang_getTokenKind(t),
                    take_string(clang_getTokenSpelling(self.raw, t)),
                    clang_getTokenExtent(self.raw, t),
                )
            };
            let kind = match kind {
                CXToken_Punctuation => TokenKind::Punctuation,
                CXToken_Keyword => TokenKind::Keyword,
                CXToken_Identifier => TokenKind::Identifier,
                CXToken_Literal => TokenKind::Literal,
                _ => TokenKind::Comment,
            };
            out.push((kind, text, extent));
        }
        // SAFETY: disposing exactly what clang_tokenize returned.
        unsafe { clang_disposeTokens(self.raw, toks, n) };
        out
    }

    /// The paths of every file the translation unit includes (directly or
    /// not; the main file excluded), in the order clang reports them.
    pub fn included_files(&self) -> Vec<String> {
        extern "C" fn visit(
            file: CXFile,
            _stack: *mut CXSourceLocation,
            depth: c_uint,
            data: CXClientData,
        ) {
            // SAFETY: `data` is the `&mut Vec<String>` passed below, alive
            // during the visit; `file` is a file of the unit.
            let out = unsafe { &mut *(data as *mut Vec<String>) };
            if depth > 0 && !file.is_null() {
                // SAFETY: valid file handle; the string is taken over.
                out.push(take_string(unsafe { clang_getFileName(file) }));
            }
        }
        let mut out: Vec<String> = Vec::new();
        // SAFETY: the visitor only pushes into `out`, which outlives the call.
        unsafe {
            clang_getInclusions(self.raw, visit, &mut out as *mut Vec<String> as *mut c_void);
        }
        out
    }

    /// Byte ranges of the main file skipped by conditional compilation.
    pub fn skipped_ranges(&self) -> Vec<Span> {
        // SAFETY: `raw` and `file` are valid; the list is disposed below.
        let list = unsafe { clang_getSkippedRanges(self.raw, self.file) };
        if list.is_null() {
            return Vec::new();
        }
        let mut out = Vec::new();
        // SAFETY: `list` is a valid list of `count` ranges until disposed.
        unsafe {
            let count = usize::try_from((*list).count).unwrap_or(0);
            if !(*list).ranges.is_null() {
                for r in std::slice::from_raw_parts((*list).ranges, count) {
                    if let Some(sp) = self.main_span(*r) {
                        out.push(sp);
                    }
                }
            }
            clang_disposeSourceRangeList(list);
        }
        out
    }

    /// The macro invocations written in the main file, in source order.
    pub fn macro_expansions(&self) -> Vec<MacroExpansion> {
        let mut out = Vec::new();
        for c in self.root().children() {
            if c.kind() != CursorKind::MacroExpansion {
                continue;
            }
            let Some(span) = c.raw_span() else { continue };
            let def = c.referenced();
            let function_like = def.map(|d| d.is_macro_function_like()).unwrap_or(false);
            let definition = def.map(|d| d.definition_tokens()).unwrap_or_default();
            let user_defined = def.is_some_and(|d| !d.is_in_system_header());
            out.push(MacroExpansion {
                name: c.spelling(),
                span,
                function_like,
                definition,
                user_defined,
            });
        }
        out.sort_by_key(|m| m.span.start);
        out
    }
}

impl Drop for TranslationUnit<'_> {
    fn drop(&mut self) {
        // SAFETY: `raw` came from clang_parseTranslationUnit2; cursors and
        // tokens borrowing it are gone (lifetimes).
        unsafe { clang_disposeTranslationUnit(self.raw) }
    }
}

/// A node of the AST (or of the preprocessing record).
#[derive(Clone, Copy)]
pub struct Cursor<'tu> {
    raw: CXCursor,
    tu: &'tu TranslationUnit<'tu>,
}

impl std::fmt::Debug for Cursor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Cursor({:?} '{}' {:?})",
            self.kind(),
            self.spelling(),
            self.span()
        )
    }
}

impl PartialEq for Cursor<'_> {
    fn eq(&self, other: &Self) -> bool {
        // SAFETY: both cursors are valid values.
        unsafe { clang_equalCursors(self.raw, other.raw) != 0 }
    }
}

extern "C" fn collect_child(
    child: CXCursor,
    _parent: CXCursor,
    data: CXClientData,
) -> CXChildVisitResult {
    // SAFETY: `data` is the `&mut Vec<CXCursor>` passed by `Cursor::children`,
    // alive for the duration of the visit.
    let v = unsafe { &mut *(data as *mut Vec<CXCursor>) };
    v.push(child);
    CXChildVisit_Continue
}

impl<'tu> Cursor<'tu> {
    /// The kind of node.
    pub fn kind(&self) -> CursorKind {
        // SAFETY: reading the kind of a valid cursor.
        CursorKind::from_raw(unsafe { clang_getCursorKind(self.raw) })
    }

    /// clang's spelling: the name of declarations, references and calls.
    pub fn spelling(&self) -> String {
        // SAFETY: valid cursor; the string is taken over.
        take_string(unsafe { clang_getCursorSpelling(self.raw) })
    }

    /// The node's bytes in the main file (file locations), if it is there,
    /// widened over the macro invocations it starts or ends inside (see the
    /// module comment).
    pub fn span(&self) -> Option<Span> {
        let sp = self.raw_span()?;
        if self.kind() == CursorKind::MacroExpansion {
            return Some(sp);
        }
        Some(self.tu.invocations().widen(sp))
    }

    /// clang's extent of the node in the main file, not widened.
    fn raw_span(&self) -> Option<Span> {
        // SAFETY: valid cursor.
        let range = unsafe { clang_getCursorExtent(self.raw) };
        if self.kind() == CursorKind::MacroExpansion {
            return self.tu.main_span(range);
        }
        // SAFETY: range accessors on a value range.
        let (s, e) = unsafe { (clang_getRangeStart(range), clang_getRangeEnd(range)) };
        let start = self.tu.node_offset(s)?;
        let end = self.tu.node_offset(e)?;
        // A node whose last token a macro definition supplies ends at the
        // invocation's start, before an argument it starts in: the span
        // from there reaches into the invocation, which widening covers.
        Some(Span::new(start.min(end), start.max(end)))
    }

    /// The translation unit's root (its file-scope declarations are its children).
    pub fn translation_root(&self) -> Cursor<'tu> {
        self.tu.root()
    }

    /// The direct children, in order.
    pub fn children(&self) -> Vec<Cursor<'tu>> {
        let mut raw: Vec<CXCursor> = Vec::new();
        // SAFETY: the visitor only pushes into `raw`, which outlives the call.
        unsafe {
            clang_visitChildren(
                self.raw,
                collect_child,
                &mut raw as *mut Vec<CXCursor> as *mut c_void,
            );
        }
        raw.into_iter()
            .map(|raw| Cursor { raw, tu: self.tu })
            .collect()
    }

    /// The declaration (or macro definition) this node refers to.
    pub fn referenced(&self) -> Option<Cursor<'tu>> {
        // SAFETY: valid cursor; a null result is checked.
        let r = unsafe { clang_getCursorReferenced(self.raw) };
        // SAFETY: checking a cursor value.
        if unsafe { clang_Cursor_isNull(r) } != 0 {
            return None;
        }
        Some(Cursor {
            raw: r,
            tu: self.tu,
        })
    }

    /// The initializer of a variable declaration, if it has one.
    pub fn initializer(&self) -> Option<Cursor<'tu>> {
        if self.kind() != CursorKind::VarDecl {
            return None;
        }
        // SAFETY: valid VarDecl cursor; a null result is checked.
        let r = unsafe { clang_Cursor_getVarDeclInitializer(self.raw) };
        // SAFETY: checking a cursor value.
        if unsafe { clang_Cursor_isNull(r) } != 0 {
            return None;
        }
        Some(Cursor {
            raw: r,
            tu: self.tu,
        })
    }

    /// The integer value of a constant expression, when clang can evaluate it.
    pub fn eval_int(&self) -> Option<i64> {
        if !self.kind().is_expression() {
            return None;
        }
        // SAFETY: valid expression cursor; the result is disposed.
        unsafe {
            let r = clang_Cursor_Evaluate(self.raw);
            if r.is_null() {
                return None;
            }
            let v = if clang_EvalResult_getKind(r) == CXEval_Int {
                if clang_EvalResult_isUnsignedInt(r) != 0 {
                    i64::try_from(clang_EvalResult_getAsUnsigned(r)).ok()
                } else {
                    Some(clang_EvalResult_getAsLongLong(r))
                }
            } else {
                None
            };
            clang_EvalResult_dispose(r);
            v
        }
    }

    /// The value of an enumerator.
    pub fn enum_value(&self) -> Option<i64> {
        if self.kind() != CursorKind::EnumConstantDecl {
            return None;
        }
        // SAFETY: valid enumerator cursor.
        Some(unsafe { clang_getEnumConstantDeclValue(self.raw) })
    }

    /// True when the node's type is an integer type whose values need not fit
    /// in an `int` (`unsigned`, `long`, `long long`, `size_t`, `int64_t`...).
    pub fn is_wide_integer(&self) -> bool {
        // SAFETY: valid cursor; types are plain values.
        let kind = unsafe { clang_getCanonicalType(clang_getCursorType(self.raw)).kind };
        matches!(
            kind,
            CXType_UInt
                | CXType_ULong
                | CXType_ULongLong
                | CXType_UInt128
                | CXType_Long
                | CXType_LongLong
                | CXType_Int128
        )
    }

    /// The canonical type class of the node.
    pub fn type_class(&self) -> TypeClass {
        // SAFETY: valid cursor; types are plain values.
        let kind = unsafe { clang_getCanonicalType(clang_getCursorType(self.raw)).kind };
        match kind {
            CXType_Bool | CXType_Char_U | CXType_UChar | CXType_Char16 | CXType_Char32
            | CXType_UShort | CXType_UInt | CXType_ULong | CXType_ULongLong | CXType_UInt128
            | CXType_Char_S | CXType_SChar | CXType_WChar | CXType_Short | CXType_Int
            | CXType_Long | CXType_LongLong | CXType_Int128 | CXType_Enum => TypeClass::Integer,
            CXType_Float | CXType_Double | CXType_LongDouble | CXType_Half | CXType_Float16
            | CXType_Float128 => TypeClass::Floating,
            CXType_Pointer => TypeClass::Pointer,
            CXType_ConstantArray
            | CXType_IncompleteArray
            | CXType_VariableArray
            | CXType_DependentSizedArray => TypeClass::Array,
            _ => TypeClass::Other,
        }
    }

    /// For an integer-typed node: whether its canonical type is signed, and
    /// its size in bytes.
    pub fn int_type(&self) -> Option<(bool, i64)> {
        // SAFETY: valid cursor; types are plain values.
        let ty = unsafe { clang_getCanonicalType(clang_getCursorType(self.raw)) };
        let signed = match ty.kind {
            CXType_Char_S | CXType_SChar | CXType_WChar | CXType_Short | CXType_Int
            | CXType_Long | CXType_LongLong | CXType_Int128 => true,
            CXType_Bool | CXType_Char_U | CXType_UChar | CXType_Char16 | CXType_Char32
            | CXType_UShort | CXType_UInt | CXType_ULong | CXType_ULongLong | CXType_UInt128 => {
                false
            }
            _ => return None,
        };
        // SAFETY: plain query on a type value; negative results are errors.
        let size = unsafe { clang_Type_getSizeOf(ty) };
        (size > 0).then_some((signed, size))
    }

    /// clang's spelling of the node's type (as written, typedef names kept;
    /// an expression's type is that of its value: `double` for `A[i][j]`).
    pub fn type_spelling(&self) -> String {
        // SAFETY: valid cursor; types are plain values; the string is taken over.
        take_string(unsafe { clang_getTypeSpelling(clang_getCursorType(self.raw)) })
    }

    /// The layout of a declaration's canonical type: whether it is a
    /// pointer (and `restrict`-qualified), and how many subscripts index
    /// contiguous memory from it (a pointer or an array, then every array
    /// level below it; 0 for a scalar). `None` for other types (structs,
    /// functions).
    pub fn layout(&self) -> Option<TypeLayout> {
        // SAFETY: valid cursor; types are plain values.
        let written = unsafe { clang_getCursorType(self.raw) };
        // SAFETY: plain query on a type value.
        let mut ty = unsafe { clang_getCanonicalType(written) };
        let is_array = |k| {
            matches!(
                k,
                CXType_ConstantArray
                    | CXType_IncompleteArray
                    | CXType_VariableArray
                    | CXType_DependentSizedArray
            )
        };
        let (pointer, restrict) = match ty.kind {
            CXType_Pointer => {
                // SAFETY: plain queries on type values. A parameter written
                // `double a[restrict N]` has the qualifier on its decayed type
                // only (not on the canonical pointer libclang 14 returns).
                let restrict = unsafe {
                    clang_isRestrictQualifiedType(ty) != 0
                        || clang_isRestrictQualifiedType(written) != 0
                };
                ty = unsafe { clang_getCanonicalType(clang_getPointeeType(ty)) };
                (true, restrict)
            }
            // A parameter declared as an array (`double a[restrict][M]`):
            // libclang 14 reports the array type, whose first brackets hold
            // the qualifiers of the pointer it decays to.
            k if is_array(k) => {
                // SAFETY: plain query on a type value; the string is taken over.
                let spelled = take_string(unsafe { clang_getTypeSpelling(written) });
                let is_restrict = |w: &str| matches!(w, "restrict" | "__restrict" | "__restrict__");
                let quals = spelled
                    .split_once('[')
                    .and_then(|(_, rest)| rest.split_once(']'))
                    .map_or("", |(q, _)| q);
                let spelled_restrict = quals
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .any(is_restrict);
                // clang prints `double [restrict][M]` as `double[][M]`: the
                // tokens after the parameter's name tell.
                let written_restrict = || {
                    let (Some(span), Some(at)) = (self.span(), self.location()) else {
                        return false;
                    };
                    let toks = self.tu.tokens(span);
                    let mut after = toks.iter().skip_while(|t| t.span.start <= at);
                    after.next().is_some_and(|t| t.text == "[")
                        && after
                            .take_while(|t| t.text != "]")
                            .any(|t| is_restrict(&t.text))
                };
                (false, spelled_restrict || written_restrict())
            }
            _ => {
                return (self.type_class() == TypeClass::Integer
                    || self.type_class() == TypeClass::Floating)
                    .then_some(TypeLayout {
                        pointer: false,
                        restrict: false,
                        levels: 0,
                    })
            }
        };
        let mut levels = usize::from(pointer);
        while is_array(ty.kind) {
            levels += 1;
            // SAFETY: plain query on an array type value.
            ty = unsafe { clang_getCanonicalType(clang_getArrayElementType(ty)) };
        }
        Some(TypeLayout {
            pointer,
            restrict,
            levels,
        })
    }

    /// True for a variable with automatic storage: a parameter, or a
    /// variable of a function body declared neither `static` nor `extern`.
    pub fn is_automatic(&self) -> bool {
        match self.kind() {
            CursorKind::ParmDecl => true,
            CursorKind::VarDecl => {
                // SAFETY: valid cursors.
                let (sc, parent) = unsafe {
                    (
                        clang_Cursor_getStorageClass(self.raw),
                        clang_getCursorKind(clang_getCursorSemanticParent(self.raw)),
                    )
                };
                matches!(sc, CX_SC_None | CX_SC_Auto | CX_SC_Register)
                    && parent == CXCursor_FunctionDecl
            }
            _ => false,
        }
    }

    /// The tokens of a macro definition (name, parameters and body), as spellings.
    pub fn definition_tokens(&self) -> Vec<(TokenKind, String)> {
        // SAFETY: extent of a valid cursor.
        let range = unsafe { clang_getCursorExtent(self.raw) };
        self.tu
            .tokenize(range)
            .into_iter()
            .map(|(k, t, _)| (k, t))
            .collect()
    }

    /// True for a function-like macro definition.
    pub fn is_macro_function_like(&self) -> bool {
        // SAFETY: valid cursor.
        unsafe { clang_Cursor_isMacroFunctionLike(self.raw) != 0 }
    }

    /// Main-file offset of the node's location (a declaration's name, a
    /// reference's identifier), if in the main file.
    pub fn location(&self) -> Option<usize> {
        // SAFETY: valid cursor.
        let loc = unsafe { clang_getCursorLocation(self.raw) };
        self.tu.main_offset(loc)
    }

    /// True for a variable of automatic storage of a function: a parameter,
    /// or a variable declared in a function body without `static` or
    /// `extern` (its value dies with the call).
    pub fn is_automatic_variable(&self) -> bool {
        match self.kind() {
            CursorKind::ParmDecl => true,
            CursorKind::VarDecl => {
                // SAFETY: plain queries on a valid cursor.
                let (storage, parent) = unsafe {
                    (
                        clang_Cursor_getStorageClass(self.raw),
                        clang_getCursorKind(clang_getCursorSemanticParent(self.raw)),
                    )
                };
                matches!(storage, CX_SC_None | CX_SC_Auto | CX_SC_Register)
                    && parent == CXCursor_FunctionDecl
            }
            _ => false,
        }
    }

    /// True when the node's location is in a system header (or built in).
    pub fn is_in_system_header(&self) -> bool {
        // SAFETY: valid cursor.
        unsafe { clang_Location_isInSystemHeader(clang_getCursorLocation(self.raw)) != 0 }
    }

    /// True when the node's location is in the main file (not a header).
    pub fn is_in_main_file(&self) -> bool {
        // SAFETY: valid cursor.
        unsafe { clang_Location_isFromMainFile(clang_getCursorLocation(self.raw)) != 0 }
    }
}

/// The clang version string of the loaded libclang.
pub fn clang_version() -> String {
    // SAFETY: plain query; the string is taken over.
    take_string(unsafe { clang_getClangVersion() })
}

/// The major version in a clang version string (`"Debian clang version 14.0.6"` → 14).
fn major_version(version: &str) -> Option<u32> {
    let rest = &version[version.find("version ")? + "version ".len()..];
    rest.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// True when `dir` is a clang resource directory (it has `include/stddef.h`).
fn is_resource_dir(dir: &Path) -> bool {
    dir.join("include").join("stddef.h").is_file()
}

/// Resource directories under `base/<version>` (e.g. `/usr/lib/llvm-14/lib/clang/14.0.6`),
/// newest first.
fn versioned_dirs(base: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(base)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| is_resource_dir(p))
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs.reverse();
    dirs
}

/// Asks a clang executable for its resource directory.
fn ask_clang(exe: &str) -> Option<PathBuf> {
    let out = std::process::Command::new(exe)
        .arg("-print-resource-dir")
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let p = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    is_resource_dir(&p).then_some(p)
}

/// clang's resource directory matching the loaded libclang, found once per
/// process: `/usr/lib/llvm-<major>/lib/clang/*`, then `clang-<major>
/// -print-resource-dir`, then `clang -print-resource-dir`, then any
/// `/usr/lib/llvm-*/lib/clang/*`, `/usr/lib/clang/*` or `/usr/local/lib/clang/*`.
pub fn resource_dir() -> Option<PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let major = major_version(&clang_version());
        if let Some(m) = major {
            if let Some(d) = versioned_dirs(Path::new(&format!("/usr/lib/llvm-{m}/lib/clang")))
                .into_iter()
                .next()
            {
                return Some(d);
            }
            if let Some(d) = ask_clang(&format!("clang-{m}")) {
                return Some(d);
            }
        }
        if let Some(d) = ask_clang("clang") {
            return Some(d);
        }
        let mut bases: Vec<PathBuf> = std::fs::read_dir("/usr/lib")
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .map(|e| e.path())
                    .filter(|p| {
                        p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.starts_with("llvm-"))
                    })
                    .map(|p| p.join("lib").join("clang"))
                    .collect()
            })
            .unwrap_or_default();
        bases.sort();
        bases.reverse();
        bases.push(PathBuf::from("/usr/lib/clang"));
        bases.push(PathBuf::from("/usr/local/lib/clang"));
        bases.iter().flat_map(|b| versioned_dirs(b)).next()
    })
    .clone()
}

#[cfg(test)]
mod tests;
