//! Variables a loop-chain body writes that its pragma cannot declare: scalars
//! (and pointers, structs) declared outside the body and assigned in it.
//!
//! Shared by all the iterations of a parallel loop, such a variable is a race.
//! A *per-iteration temporary* (an automatic variable whose address is never
//! taken, every reference to which in its function lies in bodies of the
//! chain, each of which writes it whole, unconditionally, before any other
//! use) gets a local copy in each body that uses it. Any other carries a
//! dependence: the stages that mention it get a declared write and read of it
//! (a 0-dimensional data set), which keeps their loops serial, with a warning.

use crate::diag::{Diagnostic, Span};
use crate::frontend::ast::{strip, Unit};
use crate::frontend::clang::{Cursor, CursorKind, TypeClass};

/// A variable declared outside some range and written (or its address
/// taken) inside it.
#[derive(Clone, Copy, Debug)]
pub struct Written<'tu> {
    /// Its declaration.
    pub decl: Cursor<'tu>,
    /// The first write (or `&`) in the range.
    pub at: Span,
}

/// The variable an assignment-like node `c` writes (or whose address it
/// takes), when that is a whole variable or a member of a struct variable.
fn target<'tu>(unit: &Unit<'tu>, c: Cursor<'tu>) -> Option<Cursor<'tu>> {
    let first = c.children().into_iter().next();
    let span = c.span().unwrap_or_default();
    let t = match c.kind() {
        CursorKind::BinaryOperator => match unit.binary_op(c).as_deref() {
            Some("=") => first,
            Some(_) => None,
            None => first.filter(|l| unit.macro_may_assign_to(span, *l)),
        },
        CursorKind::CompoundAssignOperator => first,
        CursorKind::UnaryOperator => match unit.unary_op(c) {
            Some((op, _)) if matches!(op.as_str(), "++" | "--" | "&") => first,
            Some(_) => None,
            None => first.filter(|_| unit.macro_may_touch_memory(span)),
        },
        _ => None,
    }?;
    let mut base = strip(t);
    // `s.x = ...` writes the struct variable `s`; `p->x` writes through `p`.
    while base.kind() == CursorKind::MemberRefExpr {
        let inner = strip(base.children().into_iter().next()?);
        if inner.type_class() == TypeClass::Pointer {
            return None;
        }
        base = inner;
    }
    (base.kind() == CursorKind::DeclRefExpr)
        .then(|| base.referenced())
        .flatten()
        .filter(|d| matches!(d.kind(), CursorKind::VarDecl | CursorKind::ParmDecl))
        .filter(|d| d.type_class() != TypeClass::Array)
}

/// The variables declared outside `local` (and not among `iterators`) that
/// the node `c` writes or takes the address of, each once, in order.
pub fn written_outside<'tu>(
    unit: &Unit<'tu>,
    c: Cursor<'tu>,
    local: Span,
    iterators: &[String],
) -> Vec<Written<'tu>> {
    let mut out: Vec<Written<'tu>> = Vec::new();
    let mut todo = vec![c];
    while let Some(c) = todo.pop() {
        if let Some(d) = target(unit, c) {
            let inside = d
                .location()
                .is_some_and(|p| local.start <= p && p < local.end);
            if !inside && !iterators.contains(&d.spelling()) && !out.iter().any(|w| w.decl == d) {
                out.push(Written {
                    decl: d,
                    at: c.span().unwrap_or_default(),
                });
            }
        }
        let mut kids = c.children();
        kids.reverse();
        todo.extend(kids);
    }
    out.sort_by_key(|w| w.at.start);
    out
}

/// The first use of `decl` under `c` in evaluation order: `Some(true)` for
/// an unconditional plain assignment of the whole variable, `Some(false)`
/// for any other use, `None` when `c` does not mention it. `cond`: `c` runs
/// only on some paths.
pub(crate) fn first_use(
    unit: &Unit<'_>,
    c: Cursor<'_>,
    decl: Cursor<'_>,
    cond: bool,
) -> Option<bool> {
    let kids = c.children();
    let refers = |k: Cursor<'_>| {
        let k = strip(k);
        k.kind() == CursorKind::DeclRefExpr && k.referenced() == Some(decl)
    };
    match c.kind() {
        CursorKind::DeclRefExpr => (c.referenced() == Some(decl)).then_some(false),
        CursorKind::BinaryOperator => match (unit.binary_op(c).as_deref(), kids.as_slice()) {
            (Some("="), [l, r]) => first_use(unit, *r, decl, cond).or_else(|| {
                if refers(*l) {
                    Some(!cond)
                } else {
                    first_use(unit, *l, decl, cond)
                }
            }),
            (Some("&&" | "||"), [l, r]) => {
                first_use(unit, *l, decl, cond).or_else(|| first_use(unit, *r, decl, true))
            }
            _ => kids.iter().find_map(|k| first_use(unit, *k, decl, cond)),
        },
        CursorKind::ConditionalOperator | CursorKind::IfStmt => {
            let mut it = kids.iter();
            let head = it.next().and_then(|k| first_use(unit, *k, decl, cond));
            head.or_else(|| it.find_map(|k| first_use(unit, *k, decl, true)))
        }
        CursorKind::ForStmt
        | CursorKind::WhileStmt
        | CursorKind::DoStmt
        | CursorKind::SwitchStmt => kids.iter().find_map(|k| first_use(unit, *k, decl, true)),
        _ => kids.iter().find_map(|k| first_use(unit, *k, decl, cond)),
    }
}

/// The spans of every reference to `decl` under `c`.
pub fn references_of(c: Cursor<'_>, decl: Cursor<'_>, out: &mut Vec<Span>) {
    if c.kind() == CursorKind::DeclRefExpr && c.referenced() == Some(decl) {
        out.extend(c.span());
    }
    for k in c.children() {
        references_of(k, decl, out);
    }
}

/// The declaration a local copy of `decl` gets (`double r;`), when its type
/// can be spelled before its name.
pub(crate) fn copy_declaration(decl: Cursor<'_>) -> Option<String> {
    let ty = decl.type_spelling();
    let plain = !ty.contains(['(', '[', '{']) && !ty.split_whitespace().any(|w| w == "const");
    (plain && decl.type_class() != TypeClass::Array).then(|| format!("{ty} {};", decl.spelling()))
}

/// What to do with a variable that bodies of a chain write.
pub enum Verdict {
    /// A per-iteration temporary: each body using it declares this copy.
    Private(String),
    /// Carries values between iterations: why.
    Shared(String),
}

/// Decides for `w`, written in some of the chain's `bodies` (their cursors
/// and spans), in the function `function`.
pub fn verdict(
    unit: &Unit<'_>,
    w: &Written<'_>,
    bodies: &[(Cursor<'_>, Span)],
    function: Option<Cursor<'_>>,
) -> Verdict {
    let d = w.decl;
    if !d.is_automatic() {
        return Verdict::Shared("it is not a local variable of the function".into());
    }
    if unit.address_taken(d) {
        return Verdict::Shared("its address is taken".into());
    }
    let Some(copy) = copy_declaration(d) else {
        return Verdict::Shared("flextile cannot declare a copy of its type".into());
    };
    let mut refs = Vec::new();
    if let Some(f) = function {
        references_of(f, d, &mut refs);
    }
    let in_body = |s: &Span| {
        bodies
            .iter()
            .any(|(_, b)| b.start <= s.start && s.end <= b.end)
    };
    if function.is_none() || !refs.iter().all(in_body) {
        return Verdict::Shared("it is used outside the bodies of the chain's nests".into());
    }
    for (b, _) in bodies {
        if first_use(unit, *b, d, false) == Some(false) {
            return Verdict::Shared(
                "some body may read it before writing it (its value would carry from one iteration to the next)".into(),
            );
        }
    }
    Verdict::Private(copy)
}

/// The warning for a variable `w` that keeps the loops of the stage `label`
/// serial, and why.
pub fn serial_warning(unit: &Unit<'_>, label: &str, w: &Written<'_>, why: &str) -> Diagnostic {
    let name = w.decl.spelling();
    let mut d = Diagnostic::warning(
        w.at,
        format!(
            "the body of {label} writes '{name}', which its pragma does not declare and which is \
             not a per-iteration temporary ({why}): flextile treats it as read and written by \
             every iteration, so the loops of {label} stay serial"
        ),
    );
    if let Some(at) = w.decl.location() {
        let end = unit.token_at_or_after(at).map_or(at + 1, |t| t.span.end);
        d = d.with_note(Span::new(at, end), format!("'{name}' is declared here"));
    }
    d
}
