//! The C spelling of the loop tree's expressions ([`LoopExpr`]): operators
//! with the parentheses C's precedence needs, `min`/`max`/floor division as
//! calls of the helpers in `templates/c/helpers.c.tera`, counters and
//! helpers with the prefixes chosen for the file, and `long long`
//! arithmetic where [`Naming::wide`] says so. CUDA C++ spells them the same.

use crate::backend::tree::{BinOp, LoopExpr};
use crate::backend::Naming;

/// C operator precedence levels (higher binds tighter).
const P_COND: u8 = 3;
const P_OR: u8 = 4;
const P_AND: u8 = 5;
const P_EQ: u8 = 9;
const P_REL: u8 = 10;
const P_ADD: u8 = 12;
const P_MUL: u8 = 13;
const P_UNARY: u8 = 14;
const P_PRIMARY: u8 = 16;

/// The C text of `e` under the file's `naming`.
pub fn text(e: &LoopExpr, naming: &Naming) -> String {
    spell(e, naming).0
}

/// The C text of `e` as an operand of any operator: parenthesised unless it
/// is a literal of no sign, a counter or a name.
pub fn operand(e: &LoopExpr, naming: &Naming) -> String {
    match e {
        LoopExpr::Int(n) if *n >= 0 => n.to_string(),
        LoopExpr::Param(_) if naming.wide => format!("({})", text(e, naming)),
        LoopExpr::Param(_) | LoopExpr::Name(_) | LoopExpr::Counter(_) => text(e, naming),
        _ => format!("({})", text(e, naming)),
    }
}

/// A loop's header, `for (int c1 = init; cond; c1++) {`, under the file's
/// `naming`.
pub fn for_header(
    iter: &LoopExpr,
    init: &LoopExpr,
    cond: &LoopExpr,
    inc: &LoopExpr,
    naming: &Naming,
) -> String {
    for_header_as(naming.counter_type(), iter, init, cond, inc, naming)
}

/// [`for_header`] with a counter of type `ty`.
pub fn for_header_as(
    ty: &str,
    iter: &LoopExpr,
    init: &LoopExpr,
    cond: &LoopExpr,
    inc: &LoopExpr,
    naming: &Naming,
) -> String {
    let iter = text(iter, naming);
    let step = match inc {
        LoopExpr::Int(1) => format!("{iter}++"),
        inc => format!("{iter} += {}", text(inc, naming)),
    };
    format!(
        "for ({ty} {iter} = {}; {}; {step}) {{",
        text(init, naming),
        text(cond, naming)
    )
}

/// The text of `e` and the precedence of its outermost operator.
fn spell(e: &LoopExpr, naming: &Naming) -> (String, u8) {
    match e {
        LoopExpr::Int(n) if *n < 0 => (format!("-{}", -(*n as i128)), P_UNARY),
        LoopExpr::Int(n) => (n.to_string(), P_PRIMARY),
        // With wide counters, `int` parameters are widened before any
        // arithmetic: `N + T - 1` must not overflow in `int`.
        LoopExpr::Param(name) if naming.wide => (format!("(long long){name}"), P_UNARY),
        LoopExpr::Param(name) | LoopExpr::Name(name) => (name.clone(), P_PRIMARY),
        LoopExpr::Counter(n) => (format!("{}{n}", naming.counter), P_PRIMARY),
        LoopExpr::Op(op, a, b) => {
            let (sym, p) = match op {
                BinOp::And => ("&&", P_AND),
                BinOp::Or => ("||", P_OR),
                BinOp::Add => ("+", P_ADD),
                BinOp::Sub => ("-", P_ADD),
                BinOp::Mul => ("*", P_MUL),
                BinOp::Div => ("/", P_MUL),
                BinOp::Rem => ("%", P_MUL),
                BinOp::Eq => ("==", P_EQ),
                BinOp::Le => ("<=", P_REL),
                BinOp::Lt => ("<", P_REL),
                BinOp::Ge => (">=", P_REL),
                BinOp::Gt => (">", P_REL),
            };
            let (a, pa) = spell(a, naming);
            let (b, pb) = spell(b, naming);
            // Left-associative: the right operand needs parentheses at equal precedence.
            (
                format!("{} {sym} {}", paren(a, pa, p), paren(b, pb, p + 1)),
                p,
            )
        }
        LoopExpr::Neg(a) => {
            let (a, pa) = spell(a, naming);
            (format!("-{}", paren(a, pa, P_UNARY)), P_UNARY)
        }
        LoopExpr::Min(v) | LoopExpr::Max(v) => {
            let name = match (matches!(e, LoopExpr::Min(_)), naming.wide) {
                (true, false) => "min",
                (false, false) => "max",
                (true, true) => "min_ll",
                (false, true) => "max_ll",
            };
            let mut args = v.iter().map(|x| spell(x, naming).0);
            let mut acc = args.next().unwrap_or_default();
            for b in args {
                acc = format!("{}{name}({acc}, {b})", naming.helper);
            }
            (acc, P_PRIMARY)
        }
        LoopExpr::FloorDiv(a, d) => {
            let name = if naming.wide { "floord_ll" } else { "floord" };
            let (a, d) = (spell(a, naming).0, spell(d, naming).0);
            (format!("{}{name}({a}, {d})", naming.helper), P_PRIMARY)
        }
        LoopExpr::Select(c, a, b) => {
            let (c, pc) = spell(c, naming);
            let (a, pa) = spell(a, naming);
            let (b, pb) = spell(b, naming);
            (
                format!(
                    "{} ? {} : {}",
                    paren(c, pc, P_COND + 1),
                    paren(a, pa, P_COND + 1),
                    paren(b, pb, P_COND)
                ),
                P_COND,
            )
        }
    }
}

fn paren(s: String, prec: u8, min: u8) -> String {
    if prec < min {
        format!("({s})")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naming(wide: bool) -> Naming {
        Naming {
            counter: "c".into(),
            helper: "ft_".into(),
            wide,
        }
    }

    fn op(o: BinOp, a: LoopExpr, b: LoopExpr) -> LoopExpr {
        LoopExpr::Op(o, Box::new(a), Box::new(b))
    }

    #[test]
    fn parentheses_follow_precedence_and_associativity() {
        let (c0, n) = (LoopExpr::Counter(0), LoopExpr::Param("N".into()));
        let e = op(
            BinOp::Mul,
            op(BinOp::Add, c0.clone(), LoopExpr::Int(1)),
            op(
                BinOp::Sub,
                n.clone(),
                op(BinOp::Sub, c0.clone(), LoopExpr::Int(-2)),
            ),
        );
        assert_eq!(text(&e, &naming(false)), "(c0 + 1) * (N - (c0 - -2))");
        let guard = op(
            BinOp::Or,
            op(
                BinOp::And,
                op(BinOp::Ge, c0.clone(), LoopExpr::Int(0)),
                op(BinOp::Lt, c0.clone(), n.clone()),
            ),
            op(
                BinOp::Eq,
                LoopExpr::Neg(Box::new(op(BinOp::Add, c0.clone(), n.clone()))),
                LoopExpr::Int(3),
            ),
        );
        assert_eq!(
            text(&guard, &naming(false)),
            "c0 >= 0 && c0 < N || -(c0 + N) == 3"
        );
        let sel = LoopExpr::Select(
            Box::new(op(BinOp::Gt, c0.clone(), n.clone())),
            Box::new(LoopExpr::Int(1)),
            Box::new(LoopExpr::Select(
                Box::new(LoopExpr::Name("x".into())),
                Box::new(LoopExpr::Int(2)),
                Box::new(LoopExpr::Int(3)),
            )),
        );
        assert_eq!(text(&sel, &naming(false)), "c0 > N ? 1 : x ? 2 : 3");
    }

    #[test]
    fn helpers_and_width() {
        let e = LoopExpr::Min(vec![
            LoopExpr::FloorDiv(Box::new(LoopExpr::Counter(2)), Box::new(LoopExpr::Int(32))),
            LoopExpr::Param("N".into()),
            LoopExpr::Int(7),
        ]);
        assert_eq!(
            text(&e, &naming(false)),
            "ft_min(ft_min(ft_floord(c2, 32), N), 7)"
        );
        assert_eq!(
            text(&e, &naming(true)),
            "ft_min_ll(ft_min_ll(ft_floord_ll(c2, 32), (long long)N), 7)"
        );
        assert_eq!(
            operand(&LoopExpr::Param("N".into()), &naming(true)),
            "((long long)N)"
        );
        assert_eq!(operand(&LoopExpr::Param("N".into()), &naming(false)), "N");
        assert_eq!(operand(&LoopExpr::Int(-3), &naming(false)), "(-3)");
        assert_eq!(
            operand(&e, &naming(false)),
            "(ft_min(ft_min(ft_floord(c2, 32), N), 7))"
        );
        let sum = op(BinOp::Add, LoopExpr::Param("N".into()), LoopExpr::Int(1));
        assert_eq!(
            text(&LoopExpr::Neg(Box::new(sum)), &naming(true)),
            "-((long long)N + 1)"
        );
    }
}
