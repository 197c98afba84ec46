//! C constructs that C++ (the CUDA output's language) or the device gives
//! another meaning and that flextile does not rewrite: each is refused for
//! the CUDA target with a located error naming it (ISO C++17 Annex C.1,
//! C.5):
//!
//! * `_Complex` types and `<complex.h>`'s `I` (C++'s `<complex.h>` is
//!   `std::complex`, a class with other operators) and `#include
//!   <tgmath.h>` (C's type-generic macros; C++'s is `<complex>` and
//!   `<cmath>`);
//! * `__STDC_VERSION__`, `__STDC__` and `__cplusplus`, in preprocessor
//!   conditions or in code: the C and the C++ compilation see other values;
//! * `++` and `--` of a `_Bool` (C++17 removed `bool` increments; C sets it
//!   to 1 where C++ would not compile);
//! * `long double` and `__float128` in code that runs on the device (CUDA
//!   computes them in `double`): recorded in
//!   [`super::CxxFixes::device_only`], refused by the driver inside a region
//!   and here inside functions kernels call.

use super::{Pass, WHY};
use crate::diag::{Diagnostic, Span};
use crate::frontend::clang::{Cursor, CursorKind, TokenKind};

/// Macros whose value differs between the C and the C++ compilation.
const LANGUAGE_MACROS: &[&str] = &["__STDC_VERSION__", "__STDC__", "__cplusplus"];

/// Finds the constructs of the module comment in the main file under
/// `root` (`skipped`: the ranges `#if` removed).
pub(super) fn analyse<'tu>(pass: &mut Pass<'_, 'tu>, root: Cursor<'tu>, skipped: &[Span]) {
    let mut complex = None;
    for c in root.children() {
        if c.is_in_main_file() && c.kind() != CursorKind::MacroExpansion {
            walk(pass, c, &mut complex);
        }
    }
    if let Some(span) = complex {
        pass.problems.push(Diagnostic::error(
            span,
            format!(
                "this has a '_Complex' type: {WHY} has no '_Complex' types (its <complex.h> \
                 declares the class std::complex instead); compute with the real and \
                 imaginary parts as separate values"
            ),
        ));
    }
    let unit = pass.unit;
    if let Some(m) = unit
        .macros
        .iter()
        .find(|m| m.expansion.name == "I" && !m.expansion.user_defined)
    {
        pass.problems.push(Diagnostic::error(
            m.expansion.span,
            format!(
                "'I' is <complex.h>'s imaginary unit: {WHY} has no '_Complex' types; \
                 compute with the real and imaginary parts as separate values"
            ),
        ));
    }
    tgmath(pass, skipped);
    language_macros(pass, skipped);
}

/// Visits `c` and its descendants; `complex`: the first `_Complex` node.
fn walk<'tu>(pass: &mut Pass<'_, 'tu>, c: Cursor<'tu>, complex: &mut Option<Span>) {
    let ty = c.ty();
    if ty.is_complex() && complex.is_none() {
        *complex = c.span();
    }
    if let (Some(name), Some(span)) = (ty.host_only_float(), c.span()) {
        pass.device_only.push((
            span,
            format!(
                "this has type '{}', which CUDA's device code computes as 'double' (it has \
                 no '{name}'): the kernel would print other numbers; use 'double'",
                ty.spelling()
            ),
        ));
    }
    if c.kind() == CursorKind::UnaryOperator {
        bool_increment(pass, c);
    }
    for k in c.children() {
        walk(pass, k, complex);
    }
}

/// `++` or `--` applied to a `_Bool`.
fn bool_increment<'tu>(pass: &mut Pass<'_, 'tu>, c: Cursor<'tu>) {
    let Some(operand) = c.children().into_iter().find(|k| k.kind().is_expression()) else {
        return;
    };
    if !operand.ty().is_bool() {
        return;
    }
    let Some(span) = c.span() else { return };
    let unit = pass.unit;
    let op = match unit.unary_op(c) {
        Some((op, _)) => op,
        None => {
            // In a macro: any `++` or `--` it may hold counts.
            let spelled = unit
                .tokens_in(span)
                .iter()
                .any(|t| t.text == "++" || t.text == "--");
            let expanded = unit.macros.iter().any(|m| {
                let e = m.expansion.span;
                e.start < span.end
                    && span.start < e.end
                    && m.expanded.iter().any(|(_, t)| t == "++" || t == "--")
            });
            if !spelled && !expanded {
                return;
            }
            "++".to_string()
        }
    };
    if op != "++" && op != "--" {
        return;
    }
    pass.problems.push(Diagnostic::error(
        span,
        format!(
            "'{op}' of a '_Bool': {WHY} rejects it (C++17 removed increments of 'bool'); \
             assign the value instead ('b = 1' for '++')"
        ),
    ));
}

/// `#include <tgmath.h>` lines of the main file (outside `skipped`).
fn tgmath(pass: &mut Pass<'_, '_>, skipped: &[Span]) {
    let text = pass.unit.text;
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        let header = t
            .strip_prefix('#')
            .map(str::trim_start)
            .and_then(|d| d.strip_prefix("include"))
            .map(|r| r.trim_start().trim_end());
        let in_skipped = skipped.iter().any(|s| s.start < start && start < s.end);
        if let Some(h) =
            header.filter(|h| h.starts_with("<tgmath.h>") || h.starts_with("\"tgmath.h\""))
        {
            if !in_skipped {
                let at = start + (line.len() - t.len());
                pass.problems.push(Diagnostic::error(
                    Span::new(at, at + t.trim_end().len()),
                    format!(
                        "this includes {}, C's type-generic math: {WHY} replaces it by its own \
                         overloads (<cmath>, <complex>); include <math.h> and call the \
                         function of each type ('sqrtf', 'sqrt')",
                        &h[..10]
                    ),
                ));
            }
        }
        start += line.len();
    }
}

/// Uses of [`LANGUAGE_MACROS`] outside the ranges `#if` removed (a
/// condition's own line counts: its range starts there).
fn language_macros(pass: &mut Pass<'_, '_>, skipped: &[Span]) {
    let unit = pass.unit;
    let text = unit.text;
    let mut found = Vec::new();
    for t in &unit.tokens {
        if t.kind != TokenKind::Identifier || !LANGUAGE_MACROS.contains(&t.text.as_str()) {
            continue;
        }
        let line = text
            .get(..t.span.start)
            .and_then(|b| b.rfind('\n'))
            .map_or(0, |k| k + 1);
        if skipped
            .iter()
            .any(|s| s.start < line && t.span.start < s.end)
        {
            continue;
        }
        found.push(t);
    }
    if let Some(t) = found.first() {
        let more = match found.len() {
            1 => String::new(),
            2 => " (and 1 more use in this file)".to_string(),
            n => format!(" (and {} more uses in this file)", n - 1),
        };
        pass.problems.push(Diagnostic::error(
            t.span,
            format!(
                "'{}' has another value in the CUDA output: {WHY} defines '__cplusplus' \
                 and gives '__STDC_VERSION__' and '__STDC__' other values than C's, so the \
                 output would take another branch; remove the test{more}",
                t.text
            ),
        ));
    }
}
