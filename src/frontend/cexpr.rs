//! C expressions from clang's AST (loop bounds, conditions, subscripts)
//! converted to model [`Expr`]s.
//!
//! Accepted: integer literals and enumerators, integer variables (iterators
//! and parameters), unary `-`/`+`, `+ - * / %`, casts and parentheses,
//! `min(a, b)`/`max(a, b)` calls, and the conditional operator in its
//! `min`/`max` shapes (`a < b ? a : b`, which is what `MIN`/`MAX` macros
//! expand to). Constant sub-expressions are folded by clang.
//!
//! An object-like macro of the user's (main file, user header or `-D`) that
//! folds to a constant (`#define N 100`, `-DTSTEPS=500`, `#define _PB_N N`)
//! becomes a parameter named after the macro, so that the generated code
//! spells `N` and stays right for other values of it; its value is recorded
//! in [`Unit::macro_params`]. Where such a parameter makes an expression
//! non-affine (`i * N`), its value is used instead and [`Unit::freeze`]
//! records it (the region's banner says so). Macros of system headers
//! (`INT_MAX`) are folded to their values. An object-like macro that does not
//! fold to a constant (`#define FULL (n + 4)`) becomes a parameter named after
//! the macro too; the caller checks (with [`referenced_vars`]) that what it
//! hides is loop-invariant.
//!
//! `/` and `%` become [`Expr::Div`] and [`Expr::Mod`], which keep C's meaning
//! (rounding toward zero) in the model, negative numerators included.

use std::collections::{BTreeMap, BTreeSet};

use crate::diag::Span;
use crate::frontend::ast::{strip, Unit};
use crate::frontend::clang::{Cursor, CursorKind, TypeClass};
use crate::model::expr::Expr;
use crate::model::program::{Constraint, WrapCheck, Wraps};

/// Names of functions (or function-like macros) read as `min`.
const MIN_NAMES: &[&str] = &["min", "MIN", "imin", "Min"];
/// Names of functions (or function-like macros) read as `max`.
const MAX_NAMES: &[&str] = &["max", "MAX", "imax", "Max"];

/// Converts `c` to an [`Expr`], or `None` when it is not of the accepted forms.
/// The result may still be non-affine (`N * M`): check [`Expr::is_affine`].
pub fn to_expr(unit: &Unit<'_>, c: Cursor<'_>) -> Option<Expr> {
    if let Some(p) = macro_param(unit, c) {
        return Some(p);
    }
    let c = strip(c);
    if let Some(p) = macro_param(unit, c) {
        return Some(p);
    }
    let direct = match c.kind() {
        CursorKind::IntegerLiteral | CursorKind::CharacterLiteral => c.eval_int().map(Expr::Int),
        CursorKind::DeclRefExpr => {
            let d = c.referenced()?;
            match d.kind() {
                CursorKind::EnumConstantDecl => d.enum_value().map(Expr::Int),
                CursorKind::VarDecl | CursorKind::ParmDecl
                    if d.type_class() == TypeClass::Integer =>
                {
                    Some(Expr::Var(d.spelling()))
                }
                _ => None,
            }
        }
        CursorKind::UnaryOperator => match unit.unary_op(c) {
            Some((op, true)) if op == "-" || op == "+" => {
                let e = to_expr(unit, *c.children().first()?)?;
                Some(if op == "+" {
                    e
                } else {
                    match e {
                        Expr::Int(v) => Expr::Int(v.checked_neg()?),
                        e => Expr::Neg(Box::new(e)),
                    }
                })
            }
            _ => None,
        },
        CursorKind::BinaryOperator => {
            let kids = c.children();
            match (unit.binary_op(c).as_deref(), kids.as_slice()) {
                (Some(op @ ("+" | "-" | "*" | "/" | "%")), [l, r]) => {
                    let (a, b) = (to_expr(unit, *l)?, to_expr(unit, *r)?);
                    let e = match op {
                        "+" => Expr::sum(a, b),
                        "-" => Expr::difference(a, b),
                        "*" => Expr::product(a, b),
                        "/" => Expr::Div(Box::new(a), Box::new(b)),
                        _ => Expr::Mod(Box::new(a), Box::new(b)),
                    };
                    Some(if e.is_affine() { e } else { freeze(unit, e) })
                }
                _ => None,
            }
        }
        CursorKind::ConditionalOperator => min_max_conditional(unit, c),
        CursorKind::CallExpr => {
            let name = c.spelling();
            let is_min = MIN_NAMES.contains(&name.as_str());
            let is_max = MAX_NAMES.contains(&name.as_str());
            if is_min || is_max {
                let kids = c.children();
                let args: Option<Vec<Expr>> =
                    kids.iter().skip(1).map(|a| to_expr(unit, *a)).collect();
                let args = args?;
                if args.len() < 2 {
                    None
                } else if is_min {
                    Some(Expr::Min(args))
                } else {
                    Some(Expr::Max(args))
                }
            } else {
                None
            }
        }
        _ => None,
    };
    direct.or_else(|| fallback(unit, c))
}

/// The value of a constant expression (a loop step): macro parameters count
/// with their values (recorded as used).
pub fn constant_value(unit: &Unit<'_>, c: Cursor<'_>) -> Option<i64> {
    let e = to_expr(unit, c)?;
    if let Some(k) = e.constant() {
        return Some(k);
    }
    let mut vars = BTreeSet::new();
    e.collect_vars(&mut vars);
    let params = unit.macro_params.borrow();
    let mut fixed = e;
    for v in &vars {
        fixed = fixed.substitute(v, &Expr::Int(*params.get(v)?));
    }
    drop(params);
    let k = fixed.constant()?;
    unit.freeze(vars);
    Some(k)
}

/// A user's object-like macro that folds to a constant, exactly `c`, as a
/// parameter named after it.
fn macro_param(unit: &Unit<'_>, c: Cursor<'_>) -> Option<Expr> {
    let m = unit.macro_exactly(c.span()?)?;
    if m.expansion.function_like || !m.expansion.user_defined || unit.inside_expansion(c) {
        return None;
    }
    if c.type_class() != TypeClass::Integer {
        return None;
    }
    let v = c.eval_int()?;
    let name = m.expansion.name.clone();
    unit.macro_params.borrow_mut().insert(name.clone(), v);
    Some(Expr::Var(name))
}

/// `e` with the macro parameters replaced by their values when that makes
/// it affine (the values used are recorded); `e` otherwise.
pub(crate) fn freeze(unit: &Unit<'_>, e: Expr) -> Expr {
    let mut vars = BTreeSet::new();
    e.collect_vars(&mut vars);
    let params = unit.macro_params.borrow();
    let used: Vec<(String, i64)> = vars
        .into_iter()
        .filter_map(|v| params.get(&v).map(|k| (v, *k)))
        .collect();
    drop(params);
    if used.is_empty() {
        return e;
    }
    let fixed = used
        .iter()
        .fold(e.clone(), |acc, (v, k)| acc.substitute(v, &Expr::Int(*k)));
    if fixed.is_affine() {
        unit.freeze(used.into_iter().map(|(v, _)| v));
        fixed
    } else {
        e
    }
}

/// When the structure cannot be read: a constant clang can fold, or an
/// object-like macro used as a parameter.
fn fallback(unit: &Unit<'_>, c: Cursor<'_>) -> Option<Expr> {
    if let Some(v) = c.eval_int() {
        return Some(Expr::Int(v));
    }
    if c.type_class() != TypeClass::Integer {
        return None;
    }
    let m = unit.macro_exactly(c.span()?)?;
    (!m.expansion.function_like && !unit.inside_expansion(c))
        .then(|| Expr::Var(m.expansion.name.clone()))
}

/// `x < y ? x : y` and its variants (any of `< <= > >=`, either branch order)
/// as `min`/`max`. Inside a macro body the comparison cannot be read; then the
/// macro's name decides (`MIN`, `min`, `MAX`, `max`, ...).
fn min_max_conditional(unit: &Unit<'_>, c: Cursor<'_>) -> Option<Expr> {
    let kids = c.children();
    let [cond, t, f] = kids.as_slice() else {
        return None;
    };
    let cond = strip(*cond);
    if cond.kind() != CursorKind::BinaryOperator {
        return None;
    }
    let ck = cond.children();
    let [x, y] = ck.as_slice() else { return None };
    let (x, y, t, f) = (
        to_expr(unit, *x)?,
        to_expr(unit, *y)?,
        to_expr(unit, *t)?,
        to_expr(unit, *f)?,
    );
    let same = t == x && f == y;
    let swapped = t == y && f == x;
    if !same && !swapped {
        return None;
    }
    let less = match unit.binary_op(cond).as_deref() {
        Some("<" | "<=") => same,
        Some(">" | ">=") => swapped,
        Some(_) => return None,
        None => {
            let m = unit.macro_exactly(c.span()?)?;
            let name = m.expansion.name.to_ascii_lowercase();
            match (name.contains("min"), name.contains("max")) {
                (true, false) => return Some(Expr::Min(vec![t, f])),
                (false, true) => return Some(Expr::Max(vec![t, f])),
                _ => return None,
            }
        }
    };
    Some(if less {
        Expr::Min(vec![x, y])
    } else {
        Expr::Max(vec![x, y])
    })
}

/// The variables (and parameters) an expression reads, macro bodies included.
pub fn referenced_vars(c: Cursor<'_>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    collect_vars(c, &mut out);
    out
}

fn collect_vars(c: Cursor<'_>, out: &mut BTreeSet<String>) {
    if c.kind() == CursorKind::DeclRefExpr {
        if let Some(d) = c.referenced() {
            if matches!(d.kind(), CursorKind::VarDecl | CursorKind::ParmDecl) {
                out.insert(d.spelling());
            }
        }
    }
    for k in c.children() {
        collect_vars(k, out);
    }
}

/// A sub-expression of an expression the model reads whose C value is
/// the model's (a mathematical integer) only while it stays in its type's
/// range: unsigned `+ - *` and unary `-` (they wrap), and conversions to a
/// type that does not hold every value of the operand's.
#[derive(Clone, Debug)]
pub struct WrapNode {
    /// The value, as the model reads it.
    pub expr: Expr,
    /// The range of the C type it is computed in (or converted to).
    pub range: (i128, i128),
    /// Where it is.
    pub span: Span,
    /// What it is, for messages.
    pub what: String,
}

/// Adds `nodes`, evaluated over the iterations of `iters` under `cons`, to
/// the region's checks.
pub fn push_wraps(wraps: &mut Wraps, nodes: Vec<WrapNode>, iters: &[String], cons: &[Constraint]) {
    for n in nodes {
        wraps.checks.push(WrapCheck {
            expr: n.expr,
            lo: n.range.0,
            hi: n.range.1,
            span: n.span,
            what: n.what,
            iterators: iters.to_vec(),
            context: cons.to_vec(),
        });
    }
}

/// The values an integer type of `size` bytes holds (`None` over 8 bytes).
pub fn int_range(signed: bool, size: i64) -> Option<(i128, i128)> {
    let bits = u32::try_from(size.checked_mul(8)?).ok()?;
    if bits == 0 || bits > 64 {
        return None;
    }
    Some(match signed {
        true => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
        false => (0, (1i128 << bits) - 1),
    })
}

/// The integer range of a node's type; `None` for `_Bool` (a conversion to
/// it does not wrap) and non-integer types.
pub fn node_range(c: Cursor<'_>) -> Option<(i128, i128)> {
    if c.ty().canonical().spelling() == "_Bool" {
        return None;
    }
    let (signed, size) = c.int_type()?;
    int_range(signed, size)
}

/// The sub-expressions of `c` whose value may leave their C type's range
/// (see [`WrapNode`]); `ranges` gets the range of every integer variable
/// `c` reads (from its declared type). A constant inside its range is no
/// such node.
pub fn wrap_nodes(
    unit: &Unit<'_>,
    c: Cursor<'_>,
    ranges: &mut BTreeMap<String, (i128, i128)>,
) -> Vec<WrapNode> {
    let mut out = Vec::new();
    let mut stack = vec![c];
    while let Some(n) = stack.pop() {
        let kids = n.children();
        if let Some(node) = wrap_node(unit, n, &kids) {
            out.push(node);
        }
        if n.kind() == CursorKind::DeclRefExpr {
            if let Some(d) = n.referenced() {
                let var = matches!(d.kind(), CursorKind::VarDecl | CursorKind::ParmDecl);
                if let Some(r) = node_range(d).filter(|_| var) {
                    ranges.insert(d.spelling(), r);
                }
            }
        }
        stack.extend(kids);
    }
    out
}

/// `n` as a [`WrapNode`] when it is one.
fn wrap_node(unit: &Unit<'_>, n: Cursor<'_>, kids: &[Cursor<'_>]) -> Option<WrapNode> {
    let range = node_range(n)?;
    let (value, what) = match n.kind() {
        CursorKind::CStyleCastExpr | CursorKind::UnexposedExpr => {
            let exprs: Vec<Cursor<'_>> = kids
                .iter()
                .copied()
                .filter(|k| k.kind().is_expression())
                .collect();
            let [from] = exprs.as_slice() else {
                return None;
            };
            let (flo, fhi) = node_range(*from)?;
            if flo >= range.0 && fhi <= range.1 {
                return None;
            }
            (*from, "converted to")
        }
        CursorKind::BinaryOperator if range.0 == 0 => {
            let op = unit.binary_op(n)?;
            if !matches!(op.as_str(), "+" | "-" | "*") {
                return None;
            }
            (n, "computed in")
        }
        CursorKind::UnaryOperator if range.0 == 0 => match unit.unary_op(n)? {
            (op, true) if op == "-" => (n, "computed in"),
            _ => return None,
        },
        _ => return None,
    };
    let expr = to_expr(unit, value)?;
    if let Some(k) = expr.constant() {
        if range.0 <= i128::from(k) && i128::from(k) <= range.1 {
            return None;
        }
    }
    let span = value.span()?;
    let text = unit
        .slice(span)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let ty = n.ty().canonical().spelling();
    Some(WrapNode {
        expr,
        range,
        span,
        what: format!("'{text}' {what} '{ty}'"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::testutil::{find_all, with_unit};

    /// Converts the value of every `return` of `src`, in order.
    fn returns(src: &str) -> Vec<String> {
        with_unit(src, |u| {
            find_all(u, CursorKind::ReturnStmt)
                .into_iter()
                .map(
                    |r| match r.children().first().and_then(|e| to_expr(u, *e)) {
                        Some(e) => e.to_string(),
                        None => "none".to_string(),
                    },
                )
                .collect()
        })
    }

    #[test]
    fn conversions() {
        let src = "\
#include <limits.h>
#define N 100
#define FULL (n + 4)
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define ODD(a, b) ((a) == (b) ? (a) : (b))
enum { K = 7 };
int min(int a, int b);
int g(int);
int r1(int n, int m) { return -n + 2 * (m - 1); }
int r2(int n) { return (long)n / 4 + n % 3 + N; }
int r3(int n, int m) { return MIN(n, m + 1); }
int r4(int n, int m) { return n >= m ? n : m; }
int r5(int n, int m) { return n < m ? m : n; }
int r6(int n, int m) { return min(n, K); }
int r7(int n) { return FULL - 1; }
int r8(int n, int m) { return MAX(n, m) + ODD(n, m); }
int r9(int n) { return g(n); }
int r10(double x) { return x; }
int r11(int n) { return 'a' + (3 << 2); }
int r12(int n) { return n * N + INT_MAX - 2147483600; }
int r13(int x) { return MAX(N - 2, x - 1); }
";
        // N is a parameter (its value used where `n * N` needs it), INT_MAX
        // (a system header's) its value.
        assert_eq!(
            returns(src),
            [
                "(-(n) + (2 * (m - 1)))",
                "(((n / 4) + (n % 3)) + N)",
                "min(n, (m + 1))",
                "max(n, m)",
                "max(n, m)",
                "min(n, 7)",
                "((n + 4) - 1)",
                "none",
                "none",
                "none",
                "(97 + 12)",
                "(((n * 100) + 2147483647) - 2147483600)",
                // Both copies of a macro argument stand for the macro.
                "max((N - 2), (x - 1))",
            ]
        );
    }

    #[test]
    fn referenced_variables_include_macro_bodies() {
        let src = "#define FULL (n + m)\nint f(int n, int m, int k) { return FULL * k; }\n";
        with_unit(src, |u| {
            let r = find_all(u, CursorKind::ReturnStmt)[0];
            let vars: Vec<String> = referenced_vars(r).into_iter().collect();
            assert_eq!(vars, ["k", "m", "n"]);
        });
    }
}
