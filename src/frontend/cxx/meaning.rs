//! Expressions C++ gives another meaning, respelled so that the CUDA
//! output means what the C meant (ISO C++17 Annex C.1.1 [diff.lex], C.1.3
//! [diff.expr], C.5 [diff.library]):
//!
//! * a character literal has type `int` in C, `char` in C++ (`sizeof('a')`,
//!   overloads): `'a'` becomes `((int)'a')` (its C type, its spelling kept);
//! * a call of a function a system header declares (the C library) gets
//!   each arithmetic argument whose type differs from the C parameter's cast
//!   to it, `exp((double)(x))`, `abs((int)(l))`: C++'s `<cmath>` and
//!   `<cstdlib>` overloads (`exp(float)`, `abs(long)`) would take the
//!   argument's own type. (An integer passed for an integer parameter of
//!   another type than `int` converts as in C: no C++ overload differs
//!   there, `malloc(n)` is left.) The C library functions C++ overloads on the
//!   constness of a pointer (`strchr`, ...) get their result cast to the C
//!   return type;
//! * `sizeof` of an expression becomes `sizeof` of its C type (the
//!   expression's type may differ in C++: `sizeof(x == y)`, `sizeof('a')`;
//!   and in a kernel it would name host variables): `sizeof(double)`.
//!   Variably modified operands are left as written outside regions
//!   (g++ evaluates them as C does) and refused in a region
//!   ([`super::CxxFixes::device_only`]).
//!
//! What sits in a macro's body cannot be edited in place, and a macro
//! argument that the body stringifies or pastes neither: such a construct
//! is refused with a located error (calls that system macros expand to are
//! the library's, left alone).

use super::{only_operand, variably_modified, CxxFix, Pass, WHY};
use crate::diag::{Diagnostic, Span};
use crate::frontend::ast::strip;
use crate::frontend::clang::{Cursor, CursorKind};

/// C library functions that C++ overloads on the constness of their pointer
/// argument (returning a `const` pointer for a `const` one).
const CONST_OVERLOADED: &[&str] = &[
    "strchr", "strrchr", "strpbrk", "strstr", "wcschr", "wcsrchr", "wcspbrk", "wcsstr", "wmemchr",
];

/// Finds the edits of the module comment in the main file under `root`.
pub(super) fn analyse<'tu>(pass: &mut Pass<'_, 'tu>, root: Cursor<'tu>) {
    for c in root.children() {
        if c.is_in_main_file() && c.kind() != CursorKind::MacroExpansion {
            walk(pass, c);
        }
    }
}

/// Visits `c` and its descendants.
fn walk<'tu>(pass: &mut Pass<'_, 'tu>, c: Cursor<'tu>) {
    match c.kind() {
        CursorKind::CharacterLiteral => char_literal(pass, c),
        CursorKind::CallExpr => call(pass, c),
        CursorKind::UnaryExpr if size_of(pass, c) => return,
        _ => {}
    }
    for k in c.children() {
        walk(pass, k);
    }
}

/// True when a macro argument that holds `span` may be edited: the macro's
/// body neither stringifies nor pastes its parameters.
fn arg_editable(pass: &Pass<'_, '_>, span: Span) -> bool {
    pass.unit.macros.iter().all(|m| {
        let in_arg = m
            .args
            .iter()
            .any(|a| a.start <= span.start && span.end <= a.end);
        !in_arg
            || !m
                .expansion
                .definition
                .iter()
                .any(|(_, t)| t == "#" || t == "##")
    })
}

/// True when `text` is one character literal token (`'a'`, `L'\n'`).
fn is_char_literal(text: &str) -> bool {
    let body = text.trim_start_matches(['L', 'u', 'U', '8']);
    body.len() >= 3 && body.starts_with('\'') && body.ends_with('\'')
}

/// A character literal: `((int)'a')`.
fn char_literal<'tu>(pass: &mut Pass<'_, 'tu>, c: Cursor<'tu>) {
    let Some(span) = c.span() else { return };
    let text = pass.unit.slice(span);
    let ty = c.ty().canonical().spelling();
    if !pass.written(span) || !is_char_literal(text) || !arg_editable(pass, span) {
        pass.problems.push(Diagnostic::error(
            span,
            format!(
                "this character literal comes from a macro's body (or an argument the macro \
                 stringifies or pastes): it has type '{ty}' in C, and {WHY} gives it type \
                 'char' ('sizeof', overloads); write '(({ty})'x')' in the macro"
            ),
        ));
        return;
    }
    pass.push(
        vec![span],
        CxxFix::Text {
            span,
            text: format!("(({ty}){text})"),
        },
    );
}

/// The expression below `c`'s implicit conversions, if `c` is one.
fn unconverted<'tu>(c: Cursor<'tu>) -> Cursor<'tu> {
    let mut e = c;
    while e.kind() == CursorKind::UnexposedExpr {
        match only_operand(e) {
            Some(k) if k.span() == e.span() => e = k,
            _ => break,
        }
    }
    e
}

/// A call of a C library function: its arguments cast to the parameters'
/// types where they differ, its result to the C return type where C++
/// overloads on constness.
fn call<'tu>(pass: &mut Pass<'_, 'tu>, c: Cursor<'tu>) {
    let Some(f) = c.referenced() else { return };
    let name = f.spelling();
    if f.kind() != CursorKind::FunctionDecl
        || !f.is_in_system_header()
        || name.starts_with("__builtin")
    {
        return;
    }
    let fty = f.ty();
    let Some(params) = fty.arg_types() else {
        return;
    };
    let kids: Vec<Cursor<'tu>> = c
        .children()
        .into_iter()
        .filter(|k| k.kind().is_expression())
        .collect();
    let Some((callee, args)) = kids.split_first() else {
        return;
    };
    let mut casts = Vec::new();
    for (a, p) in args.iter().zip(&params) {
        let from = unconverted(*a);
        let (ft, pt) = (from.ty().canonical(), p.canonical());
        // Integer conversions are C's in C++ too, but for `abs` and `div`
        // (parameters of type `int`; C++ adds `long` and `long long` ones).
        let floating = !(ft.is_integer() && pt.is_integer());
        let to_int = pt.spelling() == "int";
        if ft.is_arithmetic()
            && pt.is_arithmetic()
            && ft.spelling() != pt.spelling()
            && (floating || to_int)
        {
            casts.push((from, p.spelling()));
        }
    }
    let wrap = CONST_OVERLOADED.contains(&name.as_str());
    if casts.is_empty() && !wrap {
        return;
    }
    let Some(span) = c.span() else { return };
    // Written in the file: the callee's name is there.
    let at = strip(*callee).location();
    let named = at
        .and_then(|l| pass.unit.token_at_or_after(l))
        .is_some_and(|t| Some(t.span.start) == at && t.text == name);
    if !named {
        let system = pass.unit.macros.iter().any(|m| {
            let e = m.expansion.span;
            !m.expansion.user_defined && e.start <= span.start && span.end <= e.end
        });
        if !system {
            refuse_call(pass, span, &name, casts.first().map(|(_, t)| t.as_str()));
        }
        return;
    }
    for (from, target) in casts {
        let Some(sp) = from
            .span()
            .filter(|s| pass.written(*s) && arg_editable(pass, *s))
        else {
            refuse_call(pass, span, &name, Some(&target));
            return;
        };
        let target = target.trim_start_matches("const ").to_string();
        pass.push(
            vec![Span::new(sp.start, sp.start), Span::new(sp.end, sp.end)],
            CxxFix::Cast {
                expr: sp,
                target,
                parenthesise: true,
            },
        );
    }
    if wrap {
        if let Some(ret) = fty.result().filter(|_| pass.written(span)) {
            pass.push(
                vec![
                    Span::new(span.start, span.start),
                    Span::new(span.end, span.end),
                ],
                CxxFix::Cast {
                    expr: span,
                    target: ret.spelling(),
                    parenthesise: true,
                },
            );
        }
    }
}

/// The error for a call of the C library function `name` whose arguments
/// cannot be cast (it sits in a macro's body).
fn refuse_call(pass: &mut Pass<'_, '_>, span: Span, name: &str, target: Option<&str>) {
    let how = target.map_or(String::new(), |t| format!(" ('({t})')"));
    pass.problems.push(Diagnostic::error(
        span,
        format!(
            "this call of '{name}', in a macro's body, passes an argument of another type than \
             its C parameter's: {WHY} may call another overload of it (<cmath>, <cstdlib>); \
             cast the argument to the parameter's type{how} in the macro"
        ),
    ));
}

/// `sizeof` of an expression: respelled `sizeof(TYPE)`. True when the
/// operand was replaced (its text is gone: nothing below it is edited).
fn size_of<'tu>(pass: &mut Pass<'_, 'tu>, c: Cursor<'tu>) -> bool {
    let Some(span) = c.span() else { return false };
    let first = pass.unit.tokens_in(span).first();
    let starts = first.is_some_and(|t| t.text == "sizeof" && t.span.start == span.start);
    let Some(op) = c.children().into_iter().find(|k| k.kind().is_expression()) else {
        return false;
    };
    let Some(op_span) = op.span() else {
        return false;
    };
    let written = starts && pass.written(span) && pass.written(op_span);
    // From a user's macro whose body may spell `sizeof` (an `alignof`, or
    // a system macro's, is left alone).
    let in_macro = !written
        && pass.unit.macros.iter().any(|m| {
            let e = m.expansion.span;
            m.expansion.user_defined
                && e.start <= span.start
                && span.end <= e.end
                && m.expanded.iter().any(|(_, t)| t == "sizeof")
        });
    if written && !arg_editable(pass, op_span) {
        pass.problems.push(Diagnostic::error(
            span,
            format!(
                "'sizeof' of an expression in the argument of a macro that stringifies or \
                 pastes it: flextile respells it 'sizeof(TYPE)' for C++ ({WHY} may type the \
                 expression differently), which the macro would see: write 'sizeof(TYPE)'"
            ),
        ));
        return true;
    }
    if !written && !in_macro {
        return false;
    }
    let ty = op.ty();
    if variably_modified(ty) {
        pass.device_only.push((
            span,
            format!(
                "'sizeof' of an expression of variably modified type ('{}'), which a kernel \
                 cannot evaluate: compute the size before the region",
                ty.spelling()
            ),
        ));
        return false;
    }
    if in_macro {
        pass.problems.push(Diagnostic::error(
            span,
            format!(
                "'sizeof' of an expression inside a macro's body: {WHY} may give the \
                 expression another type; write 'sizeof({})' in the macro",
                ty.canonical().spelling()
            ),
        ));
        return true;
    }
    let mut spelled = ty.canonical().spelling();
    if spelled.contains("(unnamed") || spelled.contains("(anonymous") {
        spelled = ty.spelling();
    }
    if spelled.contains("(unnamed") || spelled.contains("(anonymous") {
        pass.problems.push(Diagnostic::error(
            op_span,
            format!(
                "'sizeof' of an expression of an unnamed type, which flextile respells as \
                 'sizeof(TYPE)' for C++ ({WHY} may type the expression differently): name \
                 the type (a tag or a typedef)"
            ),
        ));
        return true;
    }
    let spelled = spelled
        .split(' ')
        .map(|w| if w == "_Bool" { "bool" } else { w })
        .collect::<Vec<_>>()
        .join(" ");
    pass.push(
        vec![op_span],
        CxxFix::Text {
            span: op_span,
            text: format!("({spelled})"),
        },
    );
    true
}
