//! Reductions: a statement that folds values into one scalar with an
//! associative and commutative operator (`s += a[i]`, `s = s * e`, `m = m >
//! e ? m : e`, the same through a `MAX` macro). The parallel-loop pass may
//! run the loops around such statements in parallel with OpenMP's
//! `reduction` clause, where reassociation gives the same bits: integer
//! types only (Doerfert et al., IMPACT 2015, on reduction dependences in
//! Polly; floating-point sums stay serial here, as bit-exactness demands).
//!
//! Only the statement's form is read here; the caller checks that the
//! statement writes nothing but the scalar.

use super::ast::{strip, Unit};
use super::clang::{Cursor, CursorKind};
use crate::model::program::{Access, AccessKind, Element, Reduction, ReductionOp};

/// The reduction `stmt` (one expression statement) is, if any.
pub fn reduction(unit: &Unit<'_>, stmt: Cursor<'_>) -> Option<Reduction> {
    let c = strip(stmt);
    let kids = c.children();
    let [l, r] = kids.as_slice() else {
        return None;
    };
    let var = scalar(*l)?;
    let (op, value) = match c.kind() {
        CursorKind::CompoundAssignOperator => {
            let op = match unit.binary_op(c)?.as_str() {
                "+=" | "-=" => ReductionOp::Sum,
                "*=" => ReductionOp::Product,
                "&=" => ReductionOp::And,
                "|=" => ReductionOp::Or,
                "^=" => ReductionOp::Xor,
                _ => return None,
            };
            (op, *r)
        }
        CursorKind::BinaryOperator if unit.binary_op(c).as_deref() == Some("=") => {
            folded(unit, var, *r)?
        }
        _ => return None,
    };
    if reads(value, var) {
        return None;
    }
    // The operation's type: the scalar's, and (for a compound assignment)
    // the value's, which C computes in before converting.
    let integer = |t: Option<Element>| {
        matches!(
            t,
            Some(Element::Short | Element::Int | Element::Long | Element::LongLong)
        )
    };
    let exact = integer(var.ty().strict_element()) && integer(value.ty().strict_element());
    Some(Reduction {
        var: var.spelling(),
        op,
        exact,
    })
}

/// True when the only writes of `accesses` are to the scalar `var`.
pub fn writes_only(accesses: &[Access], var: &str) -> bool {
    accesses
        .iter()
        .filter(|a| a.kind == AccessKind::Write)
        .all(|a| a.data == var && a.index.is_empty())
}

/// The variable `c` names, when it is a plain scalar (not a pointer, an
/// array or a struct).
fn scalar<'tu>(c: Cursor<'tu>) -> Option<Cursor<'tu>> {
    let c = strip(c);
    if c.kind() != CursorKind::DeclRefExpr {
        return None;
    }
    let var = c.referenced()?;
    let is_var = matches!(var.kind(), CursorKind::VarDecl | CursorKind::ParmDecl);
    (is_var && var.ty().is_arithmetic()).then_some(var)
}

/// True when `c` is the variable `var`.
fn is_var(c: Cursor<'_>, var: Cursor<'_>) -> bool {
    let c = strip(c);
    c.kind() == CursorKind::DeclRefExpr && c.referenced().is_some_and(|v| v.key() == var.key())
}

/// `var op e`, `e op var` (commutative `op`), `var - e`, or a conditional
/// that picks the least or greatest of `var` and `e`: the operator and `e`.
fn folded<'tu>(
    unit: &Unit<'tu>,
    var: Cursor<'tu>,
    rhs: Cursor<'tu>,
) -> Option<(ReductionOp, Cursor<'tu>)> {
    let rhs = strip(rhs);
    let kids = rhs.children();
    match (rhs.kind(), kids.as_slice()) {
        (CursorKind::BinaryOperator, [a, b]) => {
            let op = match unit.binary_op(rhs)?.as_str() {
                "+" => ReductionOp::Sum,
                "-" if is_var(*a, var) => return Some((ReductionOp::Sum, *b)),
                "*" => ReductionOp::Product,
                "&" => ReductionOp::And,
                "|" => ReductionOp::Or,
                "^" => ReductionOp::Xor,
                _ => return None,
            };
            match (is_var(*a, var), is_var(*b, var)) {
                (true, _) => Some((op, *b)),
                (false, true) => Some((op, *a)),
                _ => None,
            }
        }
        (CursorKind::ConditionalOperator, [cond, first, second]) => {
            let cond = strip(*cond);
            let sides = cond.children();
            let [x, y] = sides.as_slice() else {
                return None;
            };
            let greater = match unit.binary_op(cond)?.as_str() {
                ">" | ">=" => true,
                "<" | "<=" => false,
                _ => return None,
            };
            // `x > y ? x : y` is the greatest; `x > y ? y : x` the least.
            let first_is_x = match (same(unit, *first, *x), same(unit, *second, *y)) {
                (true, true) => true,
                _ if same(unit, *first, *y) && same(unit, *second, *x) => false,
                _ => return None,
            };
            let op = match greater == first_is_x {
                true => ReductionOp::Max,
                false => ReductionOp::Min,
            };
            match (is_var(*x, var), is_var(*y, var)) {
                (true, false) => Some((op, *y)),
                (false, true) => Some((op, *x)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// True when `a` and `b` are the same expression, node by node: variables,
/// integer literals, subscripts and operators (also inside a macro's
/// expansion, where the text cannot tell them apart).
fn same(unit: &Unit<'_>, a: Cursor<'_>, b: Cursor<'_>) -> bool {
    let (a, b) = (strip(a), strip(b));
    if a.kind() != b.kind() {
        return false;
    }
    match a.kind() {
        CursorKind::DeclRefExpr => match (a.referenced(), b.referenced()) {
            (Some(x), Some(y)) => x.key() == y.key(),
            _ => false,
        },
        CursorKind::IntegerLiteral => a.eval_int().is_some() && a.eval_int() == b.eval_int(),
        CursorKind::ArraySubscriptExpr | CursorKind::BinaryOperator => {
            let (ka, kb) = (a.children(), b.children());
            let op = a.kind() == CursorKind::ArraySubscriptExpr
                || unit
                    .binary_op(a)
                    .is_some_and(|o| Some(o) == unit.binary_op(b));
            op && ka.len() == kb.len() && ka.iter().zip(&kb).all(|(x, y)| same(unit, *x, *y))
        }
        _ => false,
    }
}

/// True when `c` reads the variable `var` anywhere.
fn reads(c: Cursor<'_>, var: Cursor<'_>) -> bool {
    let mut todo = vec![c];
    while let Some(n) = todo.pop() {
        if is_var(n, var) {
            return true;
        }
        todo.extend(n.children());
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::testutil;

    /// The reduction of each expression statement of the first function's
    /// body, as `var op exact`, or `-`.
    fn found(src: &str) -> Vec<String> {
        testutil::with_unit(src, |unit| {
            let f = unit.functions[0];
            let body = f
                .children()
                .into_iter()
                .find(|c| c.kind() == CursorKind::CompoundStmt)
                .expect("a body");
            body.children()
                .into_iter()
                .filter(|c| c.kind().is_expression())
                .map(|c| match reduction(unit, c) {
                    Some(r) => format!("{} {:?} {}", r.var, r.op, r.exact),
                    None => "-".to_string(),
                })
                .collect()
        })
    }

    #[test]
    fn the_forms_of_a_reduction() {
        let src = "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n\
            void f(int n, int *a, double *x, long s, int m, double d, unsigned u) {\n\
              s += a[n]; s -= a[n]; s = s + a[n]; s = a[n] + s; s = s - a[n];\n\
              s *= 2; u &= a[0]; u |= a[1]; u ^= a[2];\n\
              m = m > a[n] ? m : a[n]; m = a[n] < m ? m : a[n]; m = m < a[n] ? m : a[n];\n\
              m = MAX(m, a[n]); m = MAX(a[n + 1], m);\n\
              d += x[n]; s += x[n]; d = d * x[n];\n\
              s = a[n] - s; s += s; s = s + s * a[n]; s /= 2; m = m > a[n] ? a[n + 1] : m;\n\
              a[0] += 1; s = a[n];\n\
            }\n";
        assert_eq!(
            found(src),
            [
                "s Sum true",
                "s Sum true",
                "s Sum true",
                "s Sum true",
                "s Sum true",
                "s Product true",
                "u And true",
                "u Or true",
                "u Xor true",
                "m Max true",
                "m Max true",
                "m Min true",
                "m Max true",
                "m Max true",
                // Floating-point: a reduction, but not one that reassociates exactly.
                "d Sum false",
                "s Sum false",
                "d Product false",
                // Not reductions.
                "-",
                "-",
                "-",
                "-",
                "-",
                "-",
                "-",
            ]
        );
    }
}
