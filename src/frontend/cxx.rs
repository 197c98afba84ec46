//! What the user's C must change to compile as C++, for the CUDA target.
//!
//! A CUDA output (`.cu`) keeps the user's whole file, and nvcc compiles a
//! `.cu` as C++ (its host compiler is g++), which rejects some valid C.
//! This pass finds those constructs in the main file from clang's AST and
//! returns, as structured data ([`CxxFixes`]), the edits that make the text
//! C++ and the constructs it cannot fix:
//!
//! * variably modified parameters (`double A[N][M]`, `double (*A)[N]`): C++
//!   has no VLA types in parameters. The parameter becomes
//!   `void *<prefix>p_A` (`const void *` for const elements) and the body
//!   starts by declaring `A` from it with the parameter's adjusted type
//!   (`double (*A)[M] = (double (*)[M]) <prefix>p_A;`; C++ accepts local
//!   pointers to VLAs as a GNU extension). Callers pass their pointers
//!   unchanged: any object pointer converts to `void *`. Prototypes get the
//!   same parameter;
//! * array parameters with qualifiers or `static` in their first brackets
//!   (`double A[restrict 256]`) are declared as the pointers they are;
//! * implicit conversions of `void *` to other pointers (`p = malloc(n)`,
//!   initialisers, `return`, arguments) and of integers to enums get a cast
//!   to clang's spelling of the destination type;
//! * declarations and names whose meaning differs between C and C++
//!   (tentative definitions, K&R definitions, designated initialisers, ...,
//!   from ISO C++17 Annex C.1), and file-scope names CUDA's headers declare
//!   too (`min`, `dim3`, `float4`, ...): see [`decls`];
//! * C11 keywords g++ lacks get their C++ spelling (`_Bool` -> `bool`);
//! * prototypes of functions the file does not define (a C library's) get
//!   `extern "C"`, and so does every `#include "..."` of the user's own
//!   headers (`extern "C" {` around the line): C++ would mangle the names
//!   and they would not link. (The output's prelude includes the C standard
//!   headers first, so that a user header's includes of them find them
//!   included already.);
//! * C++ keywords used as names, `++` and compound assignments of enum
//!   variables, compound literals whose address is taken (arrays), and what
//!   the fixes cannot reach (a conversion inside a macro's body), are
//!   problems: located diagnostics
//!   that make the CUDA target refuse the file (a C output ignores them).
//!
//! The generated parameter names depend on a prefix the driver picks later,
//! so the fixes are rendered into text replacements by [`CxxFixes::render`].

use std::collections::BTreeMap;

use crate::diag::{Diagnostic, Span};
use crate::frontend::ast::{strip, Unit};
use crate::frontend::body::PURE_FUNCTIONS;
use crate::frontend::clang::{Cursor, CursorKind, TokenKind, Type, TypeKind};

mod decls;
mod meaning;
mod refusals;
pub use crate::model::cxx_fixes::{CxxFix, CxxFixes, PointerDecl, VoidParam};

/// Identifiers of C that g++ (`-std=gnu++17`) reserves as keywords or
/// alternative operator names. `wchar_t`, `char16_t` and `char32_t` are left
/// out: C code names them only as the library's typedefs, which mean the
/// same in C++.
const CXX_KEYWORDS: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "bitand",
    "bitor",
    "bool",
    "catch",
    "class",
    "compl",
    "const_cast",
    "constexpr",
    "decltype",
    "delete",
    "dynamic_cast",
    "explicit",
    "export",
    "false",
    "friend",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "reinterpret_cast",
    "static_assert",
    "static_cast",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typeid",
    "typename",
    "using",
    "virtual",
    "xor",
    "xor_eq",
];

/// C11 keywords g++ does not know in C++, with their C++ spelling where one
/// means the same wherever the C keyword may stand.
const C11_KEYWORDS: &[(&str, Option<&str>)] = &[
    ("_Bool", Some("bool")),
    ("_Alignof", Some("alignof")),
    ("_Alignas", Some("alignas")),
    ("_Static_assert", Some("static_assert")),
    ("_Thread_local", Some("thread_local")),
    ("_Noreturn", None),
    ("_Generic", None),
    ("_Atomic", None),
];

/// Functions CUDA's headers (`crt/math_functions.hpp`, included in every
/// `.cu`) declare at file scope for host code too: a file-scope declaration
/// of the same name and parameters in the user's file is a redefinition.
const CUDA_NAMES: &[&str] = &[
    "min",
    "max",
    "umin",
    "umax",
    "llmin",
    "llmax",
    "ullmin",
    "ullmax",
    "rsqrt",
    "rsqrtf",
    "rcbrt",
    "rcbrtf",
    "sinpi",
    "sinpif",
    "cospi",
    "cospif",
    "sincospi",
    "sincospif",
    "normcdf",
    "normcdff",
    "normcdfinv",
    "normcdfinvf",
    "erfinv",
    "erfinvf",
    "erfcinv",
    "erfcinvf",
    "erfcx",
    "erfcxf",
    "rhypot",
    "rhypotf",
    "rnorm3d",
    "rnorm3df",
    "rnorm4d",
    "rnorm4df",
];

/// The edits of [`meaning`] (character literals, C library calls,
/// `sizeof`), found before the regions are built: for the CUDA target the
/// regions' body templates take them ([`Meaning::rendered`]).
#[derive(Debug, Default)]
pub struct Meaning {
    /// Fixes with the spans their edits touch.
    fixes: Vec<(Vec<Span>, CxxFix)>,
    problems: Vec<Diagnostic>,
    device_only: Vec<(Span, String)>,
}

impl Meaning {
    /// The text replacements of the fixes, as [`CxxFixes::render`] gives
    /// them (sorted, non-overlapping).
    pub fn rendered(&self) -> Vec<(Span, String)> {
        let mut fixes: Vec<&(Vec<Span>, CxxFix)> = self.fixes.iter().collect();
        fixes.sort_by_key(|(s, _)| s.first().map_or(0, |s| s.start));
        CxxFixes {
            fixes: fixes.into_iter().map(|(_, f)| f.clone()).collect(),
            ..Default::default()
        }
        .render("")
    }
}

/// Finds the expressions of the main file of `unit` whose meaning C++
/// changes (see [`meaning`]).
pub fn meaning(unit: &Unit<'_>, root: Cursor<'_>) -> Meaning {
    let mut pass = Pass::new(unit);
    meaning::analyse(&mut pass, root);
    Meaning {
        fixes: pass.fixes,
        problems: pass.problems,
        device_only: pass.device_only,
    }
}

/// Finds what the main file of `unit` must change to compile as C++ (see
/// the module comment), with the edits of [`meaning`] already found.
/// `skipped`: the ranges `#if` removed.
pub fn analyse(unit: &Unit<'_>, root: Cursor<'_>, skipped: &[Span], found: Meaning) -> CxxFixes {
    let mut pass = Pass::new(unit);
    pass.fixes = found.fixes;
    pass.problems = found.problems;
    pass.device_only = found.device_only;
    refusals::analyse(&mut pass, root, skipped);
    // First: its renaming `#define`s come before other insertions at a line's start.
    let (guarded, cuda_uses) = decls::analyse(&mut pass, root, skipped);
    let defined: Vec<String> = unit.functions.iter().map(|f| f.spelling()).collect();
    let mut device_functions = Vec::new();
    for c in root.children() {
        if c.is_in_main_file() && c.kind() != CursorKind::MacroExpansion {
            pass.walk(c, None);
            if c.kind() == CursorKind::FunctionDecl && !defined.contains(&c.spelling()) {
                pass.extern_c(c);
            }
            if matches!(c.kind(), CursorKind::FunctionDecl | CursorKind::VarDecl) {
                let name = c.spelling();
                if c.kind() == CursorKind::FunctionDecl
                    && defined.contains(&name)
                    && PURE_FUNCTIONS.contains(&name.as_str())
                {
                    pass.host_device(c);
                    device_functions.extend(c.span());
                }
            }
        }
    }
    // What the device cannot compute, in functions kernels call.
    for (at, msg) in &pass.device_only {
        if device_functions
            .iter()
            .any(|f| f.start <= at.start && at.end <= f.end)
        {
            pass.problems.push(Diagnostic::error(*at, msg.clone()));
            break;
        }
    }
    pass.keywords(skipped);
    pass.user_includes(skipped);
    let device_only = std::mem::take(&mut pass.device_only);
    CxxFixes {
        guarded,
        cuda_uses,
        device_only,
        ..pass.finish()
    }
}

/// The state of one [`analyse`].
struct Pass<'a, 'tu> {
    unit: &'a Unit<'tu>,
    /// Fixes with the spans their edits touch.
    fixes: Vec<(Vec<Span>, CxxFix)>,
    problems: Vec<Diagnostic>,
    /// Constructs the device cannot run (see [`CxxFixes::device_only`]).
    device_only: Vec<(Span, String)>,
}

/// The one expression below the implicit conversion `c`, if it has one.
fn only_operand<'tu>(c: Cursor<'tu>) -> Option<Cursor<'tu>> {
    let exprs: Vec<Cursor<'tu>> = c
        .children()
        .into_iter()
        .filter(|k| k.kind().is_expression())
        .collect();
    match exprs.as_slice() {
        [from] => Some(*from),
        _ => None,
    }
}

/// What C++ does with the CUDA output, for the diagnostics.
const WHY: &str = "the CUDA output is compiled as C++ (nvcc), which";

impl<'a, 'tu> Pass<'a, 'tu> {
    /// A pass over `unit` that has found nothing yet.
    fn new(unit: &'a Unit<'tu>) -> Self {
        Pass {
            unit,
            fixes: Vec::new(),
            problems: Vec::new(),
            device_only: Vec::new(),
        }
    }

    /// Visits `c` and its descendants (`parent`: the node above it).
    fn walk(&mut self, c: Cursor<'tu>, parent: Option<Cursor<'tu>>) {
        match c.kind() {
            CursorKind::FunctionDecl => self.function(c),
            CursorKind::UnexposedExpr => {
                self.conversion(c, parent);
                self.enum_conversion(c, parent);
            }
            CursorKind::UnaryOperator | CursorKind::CompoundAssignOperator => {
                self.enum_arithmetic(c)
            }
            _ if c.is_compound_literal() => self.compound_literal(c, parent),
            _ => {}
        }
        for k in c.children() {
            self.walk(k, Some(c));
        }
    }

    /// True when `span` is written in the file: it neither starts nor ends
    /// inside a macro invocation it does not cover whole, unless it lies in
    /// one argument of it.
    fn written(&self, span: Span) -> bool {
        self.unit.macros.iter().all(|m| {
            let e = m.expansion.span;
            let overlaps = e.start < span.end && span.start < e.end;
            let covers = span.start <= e.start && e.end <= span.end;
            let in_arg = m
                .args
                .iter()
                .any(|a| a.start <= span.start && span.end <= a.end);
            !overlaps || covers || in_arg
        })
    }

    /// The parameters of a function declaration (definition or prototype)
    /// that C++ rejects.
    fn function(&mut self, f: Cursor<'tu>) {
        let params: Vec<Cursor<'tu>> = f
            .children()
            .into_iter()
            .filter(|k| k.kind() == CursorKind::ParmDecl)
            .collect();
        let mut body = None;
        if f.is_definition() {
            if let Some(b) = f
                .children()
                .into_iter()
                .find(|k| k.kind() == CursorKind::CompoundStmt)
            {
                body = b.span();
            }
        }
        for p in params {
            self.parameter(p, body);
        }
    }

    /// One parameter: variably modified, or an array with qualifiers in its
    /// first brackets.
    fn parameter(&mut self, p: Cursor<'tu>, body: Option<Span>) {
        let ty = p.ty();
        let vm = variably_modified(ty);
        let is_array = matches!(
            ty.kind(),
            TypeKind::ConstantArray | TypeKind::VariableArray | TypeKind::IncompleteArray
        );
        let Some(span) = p.span() else { return };
        let name = Some(p.spelling()).filter(|n| !n.is_empty());
        let quals = if is_array {
            self.bracket_qualifiers(p, span)
        } else {
            None
        };
        if !vm && quals.is_none() {
            return;
        }
        let what = name
            .as_ref()
            .map_or("this parameter".to_string(), |n| format!("parameter '{n}'"));
        let refuse = |pass: &mut Self, why: &str| {
            pass.problems.push(Diagnostic::error(
                span,
                format!(
                    "{what} has a variably modified type ('{}'), which {WHY} rejects in a \
                     parameter, and flextile cannot rewrite it ({why}): declare it as \
                     'void *' and convert it to a pointer to the array in the body",
                    ty.spelling()
                ),
            ));
        };
        if !self.written(span) {
            if vm {
                refuse(self, "it is written in a macro");
            } else {
                self.problems.push(Diagnostic::error(
                    span,
                    format!(
                        "{what} has qualifiers or 'static' in its brackets, which {WHY} \
                         rejects, and it is written in a macro: declare it as a pointer \
                         ('double *restrict A')"
                    ),
                ));
            }
            return;
        }
        let Some(decl) = pointer_decl(ty, quals.as_deref().unwrap_or("")) else {
            refuse(self, "its type is too complex");
            return;
        };
        if !vm {
            self.push(vec![span], CxxFix::PointerParam { span, name, decl });
            return;
        }
        let mut body_at = None;
        if let (Some(b), Some(_)) = (body, &name) {
            if self.unit.text.as_bytes().get(b.start) != Some(&b'{') {
                refuse(self, "the function's body starts in a macro");
                return;
            }
            body_at = Some(b.start + 1);
        }
        let mut spans = vec![span];
        if let Some(at) = body_at {
            spans.push(Span::new(at, at));
        }
        self.push(
            spans,
            CxxFix::VoidParam(VoidParam {
                span,
                name,
                qualifiers: element_qualifiers(ty),
                decl,
                body: body_at,
            }),
        );
    }

    /// For an array parameter, the qualifiers in its first brackets
    /// (`static` dropped), or `None` when it has none (not even `static`).
    fn bracket_qualifiers(&self, p: Cursor<'tu>, span: Span) -> Option<String> {
        let from = p
            .location()
            .filter(|&l| span.start <= l)
            .unwrap_or(span.start);
        let toks = self.unit.tokens_in(Span::new(from, span.end));
        let open = toks.iter().position(|t| t.text == "[")?;
        let mut quals = Vec::new();
        let mut any = false;
        for t in &toks[open + 1..] {
            match t.text.as_str() {
                "]" => break,
                "static" => any = true,
                "const" | "volatile" => {
                    any = true;
                    quals.push(t.text.clone());
                }
                "restrict" | "__restrict" | "__restrict__" => {
                    any = true;
                    quals.push("restrict".to_string());
                }
                _ => {}
            }
        }
        any.then(|| quals.join(" "))
    }

    /// An implicit conversion (clang's unexposed expression) of a `void *`
    /// value to another pointer type.
    fn conversion(&mut self, c: Cursor<'tu>, parent: Option<Cursor<'tu>>) {
        let to = c.ty().canonical();
        let Some(pointee) = to.pointee() else { return };
        if pointee.canonical().kind() == TypeKind::Void {
            return;
        }
        let Some(from) = only_operand(c) else { return };
        let from = &from;
        let is_void_pointer = from
            .ty()
            .canonical()
            .pointee()
            .is_some_and(|t| t.canonical().kind() == TypeKind::Void);
        if !is_void_pointer {
            return;
        }
        let Some(expr) = from.span() else { return };
        if self.unit.slice(expr).trim() == "NULL" {
            // C++'s NULL converts to any pointer.
            return;
        }
        let target = c.ty().spelling();
        let context = parent.and_then(|p| p.span()).unwrap_or(expr);
        if !self.written(context) || (context == expr && !self.unit.is_clean(expr)) {
            self.problems.push(Diagnostic::error(
                expr,
                format!(
                    "this 'void *' value is converted to '{target}' inside a macro's \
                     expansion; {WHY} requires a cast there: add '({target})' in the macro"
                ),
            ));
            return;
        }
        if target.contains("(unnamed") || target.contains("(anonymous") {
            self.problems.push(Diagnostic::error(
                expr,
                format!(
                    "this 'void *' value is converted to a pointer to an unnamed type, which \
                     {WHY} does without a cast; name the type (a tag or a typedef) and cast \
                     the value to a pointer to it"
                ),
            ));
            return;
        }
        self.cast(*from, expr, target);
    }

    /// Casts the expression `from` (its bytes `expr`) to `target`,
    /// parenthesised unless it is a postfix expression written in the file.
    fn cast(&mut self, from: Cursor<'tu>, expr: Span, target: String) {
        let parenthesise = !(self.is_postfix(from) && self.written(expr));
        let mut spans = vec![Span::new(expr.start, expr.start)];
        if parenthesise {
            spans.push(Span::new(expr.end, expr.end));
        }
        self.push(
            spans,
            CxxFix::Cast {
                expr,
                target,
                parenthesise,
            },
        );
    }

    /// An implicit conversion (clang's unexposed expression) of an integer
    /// to an enumeration type, which C++ requires a cast for (an enumerator
    /// of the same enumeration needs none).
    fn enum_conversion(&mut self, c: Cursor<'tu>, parent: Option<Cursor<'tu>>) {
        let to = c.ty().canonical();
        if to.kind() != TypeKind::Enum {
            return;
        }
        let Some(from) = only_operand(c) else { return };
        let from = &from;
        let from_ty = from.ty().canonical();
        if !from_ty.is_integer() || from_ty.spelling() == to.spelling() {
            return;
        }
        let value = strip(*from);
        if value.kind() == CursorKind::DeclRefExpr
            && value.referenced().is_some_and(|d| {
                d.kind() == CursorKind::EnumConstantDecl
                    && d.semantic_parent_type()
                        .is_some_and(|t| t.canonical().spelling() == to.spelling())
            })
        {
            return;
        }
        let Some(expr) = from.span() else { return };
        let target = c.ty().spelling();
        let context = parent.and_then(|p| p.span()).unwrap_or(expr);
        if !self.written(context) || (context == expr && !self.unit.is_clean(expr)) {
            self.problems.push(Diagnostic::error(
                expr,
                format!(
                    "this integer is converted to '{target}' inside a macro's expansion; \
                     {WHY} requires a cast there: add '({target})' in the macro"
                ),
            ));
            return;
        }
        if target.contains("(unnamed") || target.contains("(anonymous") {
            self.problems.push(Diagnostic::error(
                expr,
                format!(
                    "this integer is converted to an unnamed enumeration, which {WHY} does \
                     not do without a cast; name the enumeration and cast the value to it"
                ),
            ));
            return;
        }
        self.cast(*from, expr, target);
    }

    /// `++`, `--` and compound assignments of enumeration variables, which
    /// C++ rejects.
    fn enum_arithmetic(&mut self, c: Cursor<'tu>) {
        let Some(operand) = c.children().into_iter().find(|k| k.kind().is_expression()) else {
            return;
        };
        if operand.ty().canonical().kind() != TypeKind::Enum {
            return;
        }
        let op = if c.kind() == CursorKind::CompoundAssignOperator {
            self.unit
                .binary_op(c)
                .unwrap_or_else(|| "compound assignment".to_string())
        } else {
            match self.unit.unary_op(c) {
                Some((op, _)) if op == "++" || op == "--" => op,
                _ => return,
            }
        };
        let Some(span) = c.span() else { return };
        self.problems.push(Diagnostic::error(
            span,
            format!(
                "'{op}' on a variable of type '{}', which {WHY} rejects for \
                 enumerations; compute in an 'int' and cast the result to the enumeration",
                operand.ty().spelling()
            ),
        ));
    }

    /// A compound literal whose address C++ would take: an array (which
    /// decays to a pointer to its first element), or one under `&`.
    fn compound_literal(&mut self, c: Cursor<'tu>, parent: Option<Cursor<'tu>>) {
        let Some(span) = c.span() else { return };
        let ty = c.ty();
        let is_array = matches!(
            ty.canonical().kind(),
            TypeKind::ConstantArray | TypeKind::VariableArray | TypeKind::IncompleteArray
        );
        let addressed = parent.is_some_and(|p| {
            p.kind() == CursorKind::UnaryOperator
                && self.unit.unary_op(p).is_some_and(|(op, _)| op == "&")
        });
        if !is_array && !addressed {
            return;
        }
        let what = if is_array {
            "an array compound literal, whose address"
        } else {
            "the address of a compound literal, which"
        };
        self.problems.push(Diagnostic::error(
            span,
            format!(
                "this is {what} {WHY} rejects ('taking address of temporary'); \
                 declare a named variable of type '{}' and use it instead",
                ty.spelling()
            ),
        ));
    }

    /// True when `e` is a primary or postfix expression written in the file
    /// (a cast before it applies to all of it).
    fn is_postfix(&self, e: Cursor<'tu>) -> bool {
        let mut e = e;
        // Implicit conversions (lvalue to value) have the same text.
        while e.kind() == CursorKind::UnexposedExpr {
            let kids: Vec<Cursor<'tu>> = e
                .children()
                .into_iter()
                .filter(|k| k.kind().is_expression())
                .collect();
            match kids.as_slice() {
                [only] if only.span() == e.span() => e = *only,
                _ => return false,
            }
        }
        let simple = matches!(
            e.kind(),
            CursorKind::DeclRefExpr
                | CursorKind::CallExpr
                | CursorKind::ParenExpr
                | CursorKind::ArraySubscriptExpr
                | CursorKind::MemberRefExpr
                | CursorKind::StringLiteral
                | CursorKind::IntegerLiteral
                | CursorKind::FloatingLiteral
                | CursorKind::CharacterLiteral
        );
        // A macro invocation at either end may expand to anything.
        simple
            && e.span().is_some_and(|sp| {
                !self.unit.macros.iter().any(|m| {
                    let s = m.expansion.span;
                    let in_arg = m
                        .args
                        .iter()
                        .any(|a| a.start <= sp.start && sp.end <= a.end);
                    !in_arg
                        && (s.start <= sp.start && sp.start < s.end.max(s.start + 1)
                            || s.start < sp.end && sp.end <= s.end)
                })
            })
    }

    /// Diagnostics for C++ keywords used as names, fixes for C11 keywords.
    fn keywords(&mut self, skipped: &[Span]) {
        let unit = self.unit;
        let mut uses: BTreeMap<&str, (Span, usize)> = BTreeMap::new();
        for t in &unit.tokens {
            if skipped
                .iter()
                .any(|s| s.start <= t.span.start && t.span.start < s.end)
            {
                continue;
            }
            match t.kind {
                TokenKind::Identifier => {
                    let Some(k) = CXX_KEYWORDS.iter().find(|k| **k == t.text) else {
                        continue;
                    };
                    let is_macro = unit
                        .macros
                        .iter()
                        .any(|m| m.expansion.span.start == t.span.start);
                    if is_macro || in_directive(unit.text, t.span.start) {
                        continue;
                    }
                    uses.entry(k).or_insert((t.span, 0)).1 += 1;
                }
                TokenKind::Keyword => {
                    let Some((k, rep)) = C11_KEYWORDS.iter().find(|(k, _)| *k == t.text) else {
                        continue;
                    };
                    match rep {
                        Some(r) => self.push(
                            vec![t.span],
                            CxxFix::Keyword {
                                span: t.span,
                                replacement: r,
                            },
                        ),
                        None => self.problems.push(Diagnostic::error(
                            t.span,
                            format!(
                                "'{k}' is C11, which {WHY} does not accept; write the code \
                                 without it"
                            ),
                        )),
                    }
                }
                _ => {}
            }
        }
        for (k, (span, n)) in uses {
            let more = match n {
                1 => String::new(),
                2 => " (and 1 more use in this file)".to_string(),
                _ => format!(" (and {} more uses in this file)", n - 1),
            };
            self.problems.push(Diagnostic::error(
                span,
                format!(
                    "'{k}' is a keyword in C++, and {WHY} rejects it as a name; rename \
                     it{more}"
                ),
            ));
        }
    }

    /// Puts every `#include "..."` line of the main file (outside the
    /// ranges `#if` removed) inside `extern "C" { ... }`
    /// ([`CxxFix::ExternCInclude`]).
    fn user_includes(&mut self, skipped: &[Span]) {
        let text = self.unit.text;
        let mut start = 0;
        for line in text.split_inclusive('\n') {
            let end = start + line.trim_end_matches(['\n', '\r']).len();
            let t = line.trim_start();
            let directive = t.strip_prefix('#').map(str::trim_start);
            let quoted = directive
                .and_then(|d| d.strip_prefix("include"))
                .is_some_and(|r| r.trim_start().starts_with('"'));
            let in_skipped = skipped.iter().any(|s| s.start <= start && start < s.end);
            let continued = line.trim_end().ends_with('\\');
            if quoted && !in_skipped && !continued {
                self.push(
                    vec![Span::new(start, end)],
                    CxxFix::ExternCInclude {
                        line: Span::new(start, end),
                    },
                );
            }
            start += line.len();
        }
    }

    /// Gives the file-scope prototype `decl` of a function the file does
    /// not define C linkage ([`CxxFix::ExternC`]), unless it is `static`.
    /// Marks the declaration `decl` of a function statement bodies may call
    /// as code for both the host and the device ([`CxxFix::HostDevice`]).
    fn host_device(&mut self, decl: Cursor<'tu>) {
        let Some(span) = decl.span() else { return };
        if !self.written(span) {
            return;
        }
        self.push(
            vec![Span::new(span.start, span.start)],
            CxxFix::HostDevice { at: span.start },
        );
    }

    fn extern_c(&mut self, decl: Cursor<'tu>) {
        let Some(span) = decl.span() else { return };
        let name = decl.spelling();
        let text = self.unit.text.get(span.start..span.end).unwrap_or("");
        let head = text.split(name.as_str()).next().unwrap_or("");
        let is_static = head
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == "static");
        if is_static || !self.written(span) {
            return;
        }
        self.push(
            vec![Span::new(span.start, span.start)],
            CxxFix::ExternC { at: span.start },
        );
    }

    /// Renames the file-scope `name`, first declared by `decl`, with a
    /// `#define` before it ([`CxxFix::Rename`]).
    fn rename(&mut self, decl: Cursor<'tu>, name: &str) {
        let Some(span) = decl.span() else { return };
        let text = self.unit.text;
        let before = text.get(..span.start).unwrap_or("");
        let line = before.rfind('\n').map_or(0, |k| k + 1);
        let alone = before[line..].trim().is_empty()
            && !in_directive(text, span.start)
            && (line == 0 || !before[..line - 1].trim_end_matches('\r').ends_with('\\'));
        if alone {
            self.push(
                vec![Span::new(line, line)],
                CxxFix::Rename {
                    at: line,
                    name: name.to_string(),
                },
            );
        } else {
            self.problems.push(Diagnostic::error(
                decl.location()
                    .map_or(span, |l| Span::new(l, l + name.len())),
                format!(
                    "'{name}' is also declared by CUDA's headers, which every CUDA output \
                     includes; rename it"
                ),
            ));
        }
    }

    /// Records a fix whose edits touch `spans`.
    fn push(&mut self, spans: Vec<Span>, fix: CxxFix) {
        self.fixes.push((spans, fix));
    }

    /// The fixes in order; fixes whose edits overlap another's become
    /// problems.
    fn finish(self) -> CxxFixes {
        let Pass {
            mut fixes,
            mut problems,
            ..
        } = self;
        fixes.sort_by_key(|(s, _)| s.first().map_or(0, |s| s.start));
        // A replacement must not overlap another edit (an insertion at
        // either end of it is fine).
        let mut all: Vec<(Span, usize)> = Vec::new();
        for (k, (spans, _)) in fixes.iter().enumerate() {
            all.extend(spans.iter().map(|s| (*s, k)));
        }
        all.sort_by_key(|(s, _)| (s.start, s.end));
        let mut bad = vec![false; fixes.len()];
        for (i, (a, ka)) in all.iter().enumerate() {
            for (b, kb) in &all[i + 1..] {
                if b.start > a.end {
                    break;
                }
                let touch = if b.start == b.end {
                    a.start < b.start && b.start < a.end
                } else {
                    a.start != a.end && b.start < a.end
                };
                if touch && ka != kb {
                    bad[*ka] = true;
                    bad[*kb] = true;
                }
            }
        }
        let mut out = Vec::new();
        for ((spans, fix), bad) in fixes.into_iter().zip(bad) {
            if bad {
                let at = spans.first().copied().unwrap_or(Span::new(0, 0));
                problems.push(Diagnostic::error(
                    at,
                    format!(
                        "{WHY} rejects this C, and flextile's fixes of it overlap; rewrite \
                         it (see the other errors)"
                    ),
                ));
            } else {
                out.push(fix);
            }
        }
        problems.sort_by_key(|d| match d.location {
            crate::diag::Location::Span(s) => s.start,
            _ => 0,
        });
        CxxFixes {
            fixes: out,
            problems,
            ..Default::default()
        }
    }
}

/// True when `at` lies on a preprocessing directive's line (continued lines
/// included).
fn in_directive(text: &str, at: usize) -> bool {
    let Some(text) = text.get(..at) else {
        return false;
    };
    let mut start = text.rfind('\n').map_or(0, |k| k + 1);
    loop {
        if text[start..].trim_start().starts_with('#') {
            return true;
        }
        // The line before continues into this one?
        if start == 0 {
            return false;
        }
        let prev_end = start - 1;
        let prev = text[..prev_end].trim_end_matches('\r');
        if !prev.ends_with('\\') {
            return false;
        }
        start = text[..prev_end].rfind('\n').map_or(0, |k| k + 1);
    }
}

/// True when `ty` involves an array of variable size (through pointers and
/// arrays).
fn variably_modified(ty: Type<'_>) -> bool {
    let t = ty.canonical();
    match t.kind() {
        TypeKind::VariableArray => true,
        TypeKind::ConstantArray | TypeKind::IncompleteArray => {
            t.element().is_some_and(variably_modified)
        }
        TypeKind::Pointer => t.pointee().is_some_and(variably_modified),
        _ => false,
    }
}

/// The qualifiers of what a parameter of type `ty` points to, after its
/// array levels (`const` for `const float img[H][W]`).
fn element_qualifiers(ty: Type<'_>) -> String {
    // clang keeps the qualifiers of `const float [W]` on the array type:
    // every level counts.
    let (mut konst, mut volatile) = (false, false);
    let mut t = match ty.kind() {
        TypeKind::Pointer => ty.pointee(),
        _ => ty.element(),
    };
    while let Some(e) = t {
        let c = e.canonical();
        konst |= e.is_const() || c.is_const();
        volatile |= e.is_volatile() || c.is_volatile();
        t = c.element();
    }
    match (konst, volatile) {
        (true, true) => "const volatile",
        (true, false) => "const",
        (false, true) => "volatile",
        (false, false) => "",
    }
    .to_string()
}

/// The adjusted pointer type of a parameter declared with type `ty`
/// (`quals`: the qualifiers of its first brackets, for an array), split
/// around the name; `None` for spellings this cannot split.
fn pointer_decl(ty: Type<'_>, quals: &str) -> Option<PointerDecl> {
    let q = if quals.is_empty() {
        String::new()
    } else {
        format!("{quals} ")
    };
    match ty.kind() {
        TypeKind::ConstantArray | TypeKind::VariableArray | TypeKind::IncompleteArray => {
            let e = ty.element()?.spelling();
            if e.contains('(') {
                return None;
            }
            match e.find('[') {
                Some(k) => Some(PointerDecl {
                    head: format!("{} (*{q}", e[..k].trim_end()),
                    tail: format!("){}", &e[k..]),
                }),
                None => {
                    let star = if e.ends_with('*') { "*" } else { " *" };
                    Some(PointerDecl {
                        head: format!("{e}{star}{}", q.trim_end()),
                        tail: String::new(),
                    })
                }
            }
        }
        TypeKind::Pointer => {
            let s = ty.spelling();
            let open = s.find("(*")?;
            let mut depth = 0usize;
            let mut close = None;
            for (k, ch) in s[open..].char_indices() {
                match ch {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            close = Some(open + k);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let close = close?;
            if s[open + 1..close].contains('(') || s[..open].contains('(') {
                return None;
            }
            Some(PointerDecl {
                head: s[..close].to_string(),
                tail: s[close..].to_string(),
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests;
