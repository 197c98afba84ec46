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

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::marker::PhantomData;
use std::os::raw::{c_char, c_int, c_uint, c_ulong, c_void};
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

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
    /// [`Cursor::span`] of each cursor asked, by its raw value: the region
    /// builders ask the spans of a block's statements once per region in
    /// it (issue 54: a function of 800 regions).
    spans: RefCell<HashMap<CursorKey, Option<Span>>>,
    _index: PhantomData<&'i Index>,
}

/// A cursor's raw value (kind, extra data, data pointers): two cursors with
/// the same key are the same node.
pub type CursorKey = (i64, i64, [usize; 3]);

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
                    // (`(DATA_TYPE)_PB_N`): an end there is inside it too;
                    // so is an empty span there, a node all of whose tokens
                    // a macro nested in another's argument supplies
                    // (`min(...)` in `max(A[min(...)], b)`: clang places both
                    // its ends at the nested invocation's start)
                    let ends_at_start = pos == span.end && pos == m.start;
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
    /// `case X:` and the statement it labels.
    CaseStmt,
    /// `default:` and the statement it labels.
    DefaultStmt,
    /// Unexposed statement.
    UnexposedStmt,
    /// Macro definition (preprocessing record).
    MacroDefinition,
    /// Macro invocation (preprocessing record).
    MacroExpansion,
    /// `__attribute__((aligned(N)))` (or `_Alignas`) on a declaration.
    AlignedAttr,
    /// Any other attribute of a declaration (`cleanup(f)`, `used`, ...;
    /// libclang exposes most as one kind).
    Attribute,
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
            CXCursor_CaseStmt => CursorKind::CaseStmt,
            CXCursor_DefaultStmt => CursorKind::DefaultStmt,
            CXCursor_UnexposedStmt => CursorKind::UnexposedStmt,
            CXCursor_MacroDefinition => CursorKind::MacroDefinition,
            CXCursor_MacroExpansion => CursorKind::MacroExpansion,
            CXCursor_AlignedAttr => CursorKind::AlignedAttr,
            // Index.h's CXCursor_FirstAttr .. CXCursor_LastAttr (and the
            // kinds later versions add before the preprocessing ones).
            400..=499 => CursorKind::Attribute,
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
            spans: RefCell::default(),
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

/// The clang version string of the loaded libclang.
pub fn clang_version() -> String {
    // SAFETY: plain query; the string is taken over.
    take_string(unsafe { clang_getClangVersion() })
}

mod cursor;
mod install;
pub use cursor::{Cursor, Storage, Type, TypeKind};
pub use install::resource_dir;

#[cfg(test)]
mod tests;
