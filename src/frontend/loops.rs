//! `for` loop headers read as affine constraints: `for (i = lb; i < ub; i++)`
//! (or `int i = lb`, `<=`, `ub > i`, `ub >= i`, `++i`, `i += c`,
//! `i = i + c` with a positive constant `c`; a step `c > 1` adds
//! `(i - lb) mod c = 0`), and loops that count down,
//! `for (i = ub; i >= lb; i--)` (or `>`, `lb <= i`, `--i`, `i -= c`,
//! `i = i - c`). Bounds are affine in the enclosing iterators and in
//! variables the region does not assign, `&&` joins several bounds.
//!
//! Scops read every loop with [`read_header`]; loop chains read the loops of
//! their annotated nests with it, to check the declared domain against them.

use std::collections::{BTreeMap, BTreeSet};

use crate::diag::{Diagnostic, Span};
use crate::frontend::ast::{strip, Unit};
use crate::frontend::cexpr::{constant_value, referenced_vars, to_expr, wrap_nodes, WrapNode};
use crate::frontend::clang::{Cursor, CursorKind};
use crate::model::expr::Expr;
use crate::model::program::{CmpOp, Constraint};

/// A loop's bound or step could not be read.
pub const LOOP_FORM: &str = "unsupported loop form in scop: expected 'for (i = lb; i < ub; i++)' \
     (or '<=', '++i', 'i += c' with a positive constant c) or 'for (i = ub; i >= lb; i--)' \
     (or '>', '--i', 'i -= c')";

/// A `for` header read as constraints on its variable.
#[derive(Clone, Debug)]
pub struct Header<'tu> {
    /// The loop variable.
    pub var: String,
    /// The constraints of the header: the initial value, the condition's
    /// bounds and, for a step other than 1, the stride.
    pub constraints: Vec<Constraint>,
    /// The loop counts down.
    pub down: bool,
    /// From `for` to the closing parenthesis of the header.
    pub span: Span,
    /// The body.
    pub body: Cursor<'tu>,
    /// The canonical C type of the loop variable (`int` when clang gives none).
    pub ty: String,
    /// What of the header may wrap where the header runs (the initial
    /// value and the bounds: over the enclosing loops' iterations).
    pub outer_wraps: Vec<WrapNode>,
    /// What may wrap over the loop's own iterations: the loop variable's
    /// conversions in the condition, and for an unsigned variable its value
    /// one step past the last iteration, which the condition must see.
    pub inner_wraps: Vec<WrapNode>,
    /// The ranges of the integer variables the header reads.
    pub ranges: BTreeMap<String, (i128, i128)>,
}

/// The variable a `for` loop initialises (`int i = ...` or `i = ...`).
/// The `for` keyword at the start of the loop statement spanning `for_span`.
pub fn keyword(for_span: Span) -> Span {
    Span::new(for_span.start, for_span.start + 3)
}

pub fn loop_variable(unit: &Unit<'_>, init: Option<Cursor<'_>>) -> Option<String> {
    let init = init?;
    match init.kind() {
        CursorKind::DeclStmt => {
            let kids = init.children();
            let v = kids.iter().find(|k| k.kind() == CursorKind::VarDecl)?;
            Some(v.spelling())
        }
        _ => {
            let init = strip(init);
            if init.kind() != CursorKind::BinaryOperator
                || unit.binary_op(init).as_deref() != Some("=")
            {
                return None;
            }
            let lhs = strip(*init.children().first()?);
            (lhs.kind() == CursorKind::DeclRefExpr)
                .then(|| lhs.referenced().map(|d| d.spelling()))
                .flatten()
        }
    }
}

/// An affine expression of the enclosing iterators `iters` and of variables
/// that `writes` (the variables the region assigns) does not hold; errors
/// name it `what` ("loop bound", "condition").
pub fn affine(
    unit: &Unit<'_>,
    c: Cursor<'_>,
    iters: &[String],
    writes: &BTreeSet<String>,
    what: &str,
) -> Result<Expr, Diagnostic> {
    let span = c.span().unwrap_or_default();
    let text = unit
        .slice(span)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let e = match to_expr(unit, c) {
        Some(e) if e.is_affine() => e,
        _ => {
            return Err(Diagnostic::error(
                span,
                format!("non-affine {what} '{text}'"),
            ))
        }
    };
    for v in referenced_vars(c) {
        if !iters.contains(&v) && writes.contains(&v) {
            return Err(Diagnostic::error(
                span,
                format!("{what} '{text}' depends on '{v}', which the region assigns"),
            ));
        }
    }
    Ok(e)
}

/// Reads the header of the `for` statement `c`, enclosed by the loops over
/// `iters`, in a region that assigns `writes`.
pub fn read_header<'tu>(
    unit: &Unit<'tu>,
    c: Cursor<'tu>,
    iters: &[String],
    writes: &BTreeSet<String>,
) -> Result<Header<'tu>, Diagnostic> {
    let form = |sp: Option<Span>| Diagnostic::error(sp.unwrap_or_default(), LOOP_FORM);
    let parts = unit.for_parts(c).ok_or_else(|| form(c.span()))?;
    let header = Some(parts.header);
    let var = loop_variable(unit, parts.init)
        .ok_or_else(|| form(parts.init.and_then(|i| i.span()).or(header)))?;
    if iters.contains(&var) {
        return Err(Diagnostic::error(
            parts.header,
            format!("loop variable '{var}' is already the variable of an enclosing loop"),
        ));
    }
    // The initial value.
    let init_value = parts.init.and_then(|i| match i.kind() {
        CursorKind::DeclStmt => {
            let v = i
                .children()
                .into_iter()
                .find(|k| k.kind() == CursorKind::VarDecl)?;
            v.children().into_iter().rfind(|k| k.kind().is_expression())
        }
        _ => strip(i).children().get(1).copied(),
    });
    let init_value = init_value.ok_or_else(|| form(header))?;
    let start = affine(unit, init_value, iters, writes, "loop bound")?;
    let mut ranges = BTreeMap::new();
    let mut outer_wraps = wrap_nodes(unit, init_value, &mut ranges);
    let mut inner_wraps = Vec::new();
    let (ty, var_range) = var_type(parts.init);
    // The step: its sign says whether the loop counts up or down.
    let step = parts
        .inc
        .and_then(|i| step(unit, i, &var))
        .ok_or_else(|| form(parts.inc.and_then(|i| i.span()).or(header)))?;
    let down = step < 0;
    let v = Expr::Var(var.clone());
    // The initial value is the lower bound of an up loop, the upper bound
    // of a down loop.
    let mut constraints = vec![Constraint {
        lhs: v.clone(),
        op: if down { CmpOp::Le } else { CmpOp::Ge },
        rhs: start.clone(),
    }];
    // The other bounds: the condition.
    let cond = parts.cond.ok_or_else(|| form(header))?;
    for part in conjuncts(unit, cond) {
        let part = strip(part);
        let kids = part.children();
        let op = if part.kind() == CursorKind::BinaryOperator {
            unit.binary_op(part)
        } else {
            None
        };
        let (bound, op) = match (op.as_deref(), kids.as_slice(), down) {
            (Some("<"), [l, r], false) if is_var(*l, &var) => (*r, CmpOp::Lt),
            (Some("<="), [l, r], false) if is_var(*l, &var) => (*r, CmpOp::Le),
            (Some(">"), [l, r], false) if is_var(*r, &var) => (*l, CmpOp::Lt),
            (Some(">="), [l, r], false) if is_var(*r, &var) => (*l, CmpOp::Le),
            (Some(">"), [l, r], true) if is_var(*l, &var) => (*r, CmpOp::Gt),
            (Some(">="), [l, r], true) if is_var(*l, &var) => (*r, CmpOp::Ge),
            (Some("<"), [l, r], true) if is_var(*r, &var) => (*l, CmpOp::Gt),
            (Some("<="), [l, r], true) if is_var(*r, &var) => (*l, CmpOp::Ge),
            _ => return Err(form(part.span())),
        };
        if referenced_vars(bound).contains(&var) {
            return Err(form(bound.span()));
        }
        let ub = affine(unit, bound, iters, writes, "loop bound")?;
        outer_wraps.extend(wrap_nodes(unit, bound, &mut ranges));
        for side in kids.iter().filter(|k| k.span() != bound.span()) {
            inner_wraps.extend(wrap_nodes(unit, *side, &mut ranges));
        }
        if let Some(past) = var_range.and_then(|r| past_last(&ub, op, step, r, part.span())) {
            inner_wraps.push(past);
        }
        constraints.push(Constraint {
            lhs: v.clone(),
            op,
            rhs: ub,
        });
    }
    let stride = step.unsigned_abs();
    if stride > 1 {
        let from_start = if down {
            Expr::difference(start, v.clone())
        } else {
            Expr::difference(v.clone(), start)
        };
        constraints.push(Constraint {
            lhs: Expr::Mod(Box::new(from_start), Box::new(Expr::Int(stride as i64))),
            op: CmpOp::Eq,
            rhs: Expr::Int(0),
        });
    }
    Ok(Header {
        var,
        constraints,
        down,
        span: parts.header,
        body: parts.body,
        ty,
        outer_wraps,
        inner_wraps,
        ranges,
    })
}

/// The canonical type of the variable a loop's `init` sets, and its range
/// when it is unsigned (`("int", None)` when clang gives no type).
pub fn var_type(init: Option<Cursor<'_>>) -> (String, Option<(i128, i128)>) {
    let decl = init.and_then(|i| match i.kind() {
        CursorKind::DeclStmt => i
            .children()
            .into_iter()
            .find(|k| k.kind() == CursorKind::VarDecl),
        _ => strip(*strip(i).children().first()?).referenced(),
    });
    let Some(d) = decl else {
        return ("int".to_string(), None);
    };
    let ty = d.ty().canonical().spelling();
    let unsigned = d
        .int_type()
        .filter(|(signed, _)| !signed)
        .and_then(|(s, size)| crate::frontend::cexpr::int_range(s, size));
    (if ty.is_empty() { "int".into() } else { ty }, unsigned)
}

/// For an unsigned loop variable: the value one step past the last
/// iteration (`ub + step - 1` for `i < ub`, `lb - step` for `i >= lb`),
/// which must be in the variable's range for the condition to end the loop.
fn past_last(
    bound: &Expr,
    op: CmpOp,
    step: i64,
    range: (i128, i128),
    span: Option<Span>,
) -> Option<WrapNode> {
    let k = |v: i64| Expr::sum(bound.clone(), Expr::Int(v));
    let expr = match op {
        CmpOp::Lt => k(step - 1),
        CmpOp::Le => k(step),
        CmpOp::Gt => k(step + 1),
        CmpOp::Ge => k(step),
        CmpOp::Eq => return None,
    };
    Some(WrapNode {
        expr,
        range,
        span: span?,
        what: "the loop variable one step past its last value".to_string(),
    })
}

/// True when `c` is a plain use of variable `var`.
fn is_var(c: Cursor<'_>, var: &str) -> bool {
    let c = strip(c);
    c.kind() == CursorKind::DeclRefExpr && c.referenced().is_some_and(|d| d.spelling() == var)
}

/// The step of an increment or decrement of `var`: `i++`, `++i`,
/// `i += c`, `i = i + c`, `i = c + i` (positive), `i--`, `--i`, `i -= c`,
/// `i = i - c` (negative), for a positive constant `c`.
fn step(unit: &Unit<'_>, inc: Cursor<'_>, var: &str) -> Option<i64> {
    let inc = strip(inc);
    let kids = inc.children();
    let positive =
        |c: Cursor<'_>| constant_value(unit, c).filter(|k| *k > 0 && *k < i64::from(i32::MAX));
    match inc.kind() {
        CursorKind::UnaryOperator => {
            let (op, _) = unit.unary_op(inc)?;
            if !is_var(*kids.first()?, var) {
                return None;
            }
            match op.as_str() {
                "++" => Some(1),
                "--" => Some(-1),
                _ => None,
            }
        }
        CursorKind::CompoundAssignOperator => {
            match (unit.binary_op(inc).as_deref(), kids.as_slice()) {
                (Some("+="), [l, r]) if is_var(*l, var) => positive(*r),
                (Some("-="), [l, r]) if is_var(*l, var) => positive(*r).map(|k| -k),
                _ => None,
            }
        }
        CursorKind::BinaryOperator => match (unit.binary_op(inc).as_deref(), kids.as_slice()) {
            (Some("="), [l, r]) if is_var(*l, var) => {
                let r = strip(*r);
                let rk = r.children();
                match (unit.binary_op(r).as_deref(), rk.as_slice()) {
                    (Some("+"), [a, b]) if is_var(*a, var) => positive(*b),
                    (Some("+"), [a, b]) if is_var(*b, var) => positive(*a),
                    (Some("-"), [a, b]) if is_var(*a, var) => positive(*b).map(|k| -k),
                    _ => None,
                }
            }
            _ => None,
        },
        _ => None,
    }
}

/// The `&&`-separated parts of a condition.
pub fn conjuncts<'tu>(unit: &Unit<'tu>, c: Cursor<'tu>) -> Vec<Cursor<'tu>> {
    let s = strip(c);
    if s.kind() == CursorKind::BinaryOperator && unit.binary_op(s).as_deref() == Some("&&") {
        s.children()
            .into_iter()
            .flat_map(|k| conjuncts(unit, k))
            .collect()
    } else {
        vec![s]
    }
}
