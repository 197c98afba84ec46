//! Affine expressions as written in pragmas and loop bounds, and their isl
//! spelling.

use std::collections::BTreeSet;
use std::fmt;

/// An expression over integer literals, iterators and symbolic parameters.
///
/// Only affine combinations are accepted by the model; [`Expr::is_affine`]
/// checks that products have a constant side and divisions a constant divisor.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// Integer literal.
    Int(i64),
    /// Iterator or parameter.
    Var(String),
    /// `-e`
    Neg(Box<Expr>),
    /// `a + b`
    Add(Box<Expr>, Box<Expr>),
    /// `a - b`
    Sub(Box<Expr>, Box<Expr>),
    /// `a * b`
    Mul(Box<Expr>, Box<Expr>),
    /// `a / b`, C's division (rounds toward zero) by a positive constant.
    Div(Box<Expr>, Box<Expr>),
    /// `a % b`, remainder of a division by a positive constant.
    Mod(Box<Expr>, Box<Expr>),
    /// `min(a, b, ...)`
    Min(Vec<Expr>),
    /// `max(a, b, ...)`
    Max(Vec<Expr>),
    /// Any index (a data-dependent access, written `*` in an access tuple).
    Any,
}

impl Expr {
    /// `a + b`
    pub fn sum(a: Expr, b: Expr) -> Expr {
        Expr::Add(Box::new(a), Box::new(b))
    }

    /// `a - b`
    pub fn difference(a: Expr, b: Expr) -> Expr {
        Expr::Sub(Box::new(a), Box::new(b))
    }

    /// `a * b`
    pub fn product(a: Expr, b: Expr) -> Expr {
        Expr::Mul(Box::new(a), Box::new(b))
    }

    /// The value of a constant expression (no variables, no `Any`).
    pub fn constant(&self) -> Option<i64> {
        Some(match self {
            Expr::Int(v) => *v,
            Expr::Var(_) | Expr::Any => return None,
            Expr::Neg(a) => a.constant()?.checked_neg()?,
            Expr::Add(a, b) => a.constant()?.checked_add(b.constant()?)?,
            Expr::Sub(a, b) => a.constant()?.checked_sub(b.constant()?)?,
            Expr::Mul(a, b) => a.constant()?.checked_mul(b.constant()?)?,
            Expr::Div(a, b) => {
                let d = b.constant()?;
                if d <= 0 {
                    return None;
                }
                a.constant()?.checked_div(d)?
            }
            Expr::Mod(a, b) => {
                let d = b.constant()?;
                if d <= 0 {
                    return None;
                }
                a.constant()?.checked_rem(d)?
            }
            Expr::Min(v) => v
                .iter()
                .map(|e| e.constant())
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .min()?,
            Expr::Max(v) => v
                .iter()
                .map(|e| e.constant())
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .max()?,
        })
    }

    /// True when the expression is affine (piecewise affine with min/max) in its variables.
    pub fn is_affine(&self) -> bool {
        match self {
            Expr::Int(_) | Expr::Var(_) | Expr::Any => true,
            Expr::Neg(a) => a.is_affine(),
            Expr::Add(a, b) | Expr::Sub(a, b) => a.is_affine() && b.is_affine(),
            Expr::Mul(a, b) => {
                a.is_affine() && b.is_affine() && (a.constant().is_some() || b.constant().is_some())
            }
            Expr::Div(a, b) | Expr::Mod(a, b) => {
                a.is_affine() && matches!(b.constant(), Some(d) if d > 0)
            }
            Expr::Min(v) | Expr::Max(v) => !v.is_empty() && v.iter().all(Expr::is_affine),
        }
    }

    /// The expression with variable `v` replaced by `by`.
    pub fn substitute(&self, v: &str, by: &Expr) -> Expr {
        let go = |a: &Expr| Box::new(a.substitute(v, by));
        match self {
            Expr::Var(x) if x == v => by.clone(),
            Expr::Int(_) | Expr::Var(_) | Expr::Any => self.clone(),
            Expr::Neg(a) => Expr::Neg(go(a)),
            Expr::Add(a, b) => Expr::Add(go(a), go(b)),
            Expr::Sub(a, b) => Expr::Sub(go(a), go(b)),
            Expr::Mul(a, b) => Expr::Mul(go(a), go(b)),
            Expr::Div(a, b) => Expr::Div(go(a), go(b)),
            Expr::Mod(a, b) => Expr::Mod(go(a), go(b)),
            Expr::Min(xs) => Expr::Min(xs.iter().map(|x| x.substitute(v, by)).collect()),
            Expr::Max(xs) => Expr::Max(xs.iter().map(|x| x.substitute(v, by)).collect()),
        }
    }

    /// Whether the expression is plain C arithmetic as its display prints
    /// it: no division (C's `/` and `%` round differently from isl's), no
    /// `min` or `max`.
    pub fn is_plain_c(&self) -> bool {
        match self {
            Expr::Div(..) | Expr::Mod(..) | Expr::Min(_) | Expr::Max(_) => false,
            Expr::Int(_) | Expr::Var(_) | Expr::Any => true,
            Expr::Neg(a) => a.is_plain_c(),
            Expr::Add(a, b) | Expr::Sub(a, b) | Expr::Mul(a, b) => a.is_plain_c() && b.is_plain_c(),
        }
    }

    /// Adds every variable name used by the expression to `out`.
    pub fn collect_vars(&self, out: &mut BTreeSet<String>) {
        match self {
            Expr::Int(_) | Expr::Any => {}
            Expr::Var(v) => {
                out.insert(v.clone());
            }
            Expr::Neg(a) => a.collect_vars(out),
            Expr::Add(a, b)
            | Expr::Sub(a, b)
            | Expr::Mul(a, b)
            | Expr::Div(a, b)
            | Expr::Mod(a, b) => {
                a.collect_vars(out);
                b.collect_vars(out);
            }
            Expr::Min(v) | Expr::Max(v) => v.iter().for_each(|e| e.collect_vars(out)),
        }
    }

    /// True when `Expr::Any` occurs in the expression.
    pub fn has_any(&self) -> bool {
        match self {
            Expr::Any => true,
            Expr::Int(_) | Expr::Var(_) => false,
            Expr::Neg(a) => a.has_any(),
            Expr::Add(a, b)
            | Expr::Sub(a, b)
            | Expr::Mul(a, b)
            | Expr::Div(a, b)
            | Expr::Mod(a, b) => a.has_any() || b.has_any(),
            Expr::Min(v) | Expr::Max(v) => v.iter().any(Expr::has_any),
        }
    }

    /// The expression in isl's syntax, each variable renamed by `name`.
    /// `Expr::Any` must have been removed by the caller.
    pub fn to_isl(&self, name: &dyn Fn(&str) -> String) -> String {
        match self {
            Expr::Int(v) => format!("{v}"),
            Expr::Var(v) => name(v),
            Expr::Any => "0".to_string(),
            Expr::Neg(a) => format!("-({})", a.to_isl(name)),
            Expr::Add(a, b) => format!("({} + {})", a.to_isl(name), b.to_isl(name)),
            Expr::Sub(a, b) => format!("({} - {})", a.to_isl(name), b.to_isl(name)),
            Expr::Mul(a, b) => format!("({} * {})", a.to_isl(name), b.to_isl(name)),
            // C rounds toward zero; isl's `floor` rounds down: the two agree
            // on non-negative numerators, so the negative part is divided as
            // a non-negative number and negated. isl's parser wants a bare
            // integer after `/`.
            Expr::Div(a, b) => c_division(&a.to_isl(name), &isl_divisor(b, name)),
            Expr::Mod(a, b) => {
                let (a, d) = (a.to_isl(name), isl_divisor(b, name));
                format!("(({a}) - {d} * {})", c_division(&a, &d))
            }
            Expr::Min(v) => format!(
                "min({})",
                v.iter()
                    .map(|e| e.to_isl(name))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Expr::Max(v) => format!(
                "max({})",
                v.iter()
                    .map(|e| e.to_isl(name))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// A divisor in isl's syntax: the bare integer when constant.
/// C's `a / d` (toward zero) for a positive `d`, in isl's syntax:
/// `floor(max(a, 0)/d) - floor(max(-a, 0)/d)`.
fn c_division(a: &str, d: &str) -> String {
    format!("(floor(max({a}, 0)/{d}) - floor(max(-({a}), 0)/{d}))")
}

fn isl_divisor(b: &Expr, name: &dyn Fn(&str) -> String) -> String {
    match b.constant() {
        Some(d) => d.to_string(),
        None => format!("({})", b.to_isl(name)),
    }
}

impl fmt::Display for Expr {
    /// C-like spelling, for messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Int(v) => write!(f, "{v}"),
            Expr::Var(v) => write!(f, "{v}"),
            Expr::Any => write!(f, "*"),
            Expr::Neg(a) => write!(f, "-({a})"),
            Expr::Add(a, b) => write!(f, "({a} + {b})"),
            Expr::Sub(a, b) => write!(f, "({a} - {b})"),
            Expr::Mul(a, b) => write!(f, "({a} * {b})"),
            Expr::Div(a, b) => write!(f, "({a} / {b})"),
            Expr::Mod(a, b) => write!(f, "({a} % {b})"),
            Expr::Min(v) | Expr::Max(v) => {
                write!(
                    f,
                    "{}(",
                    if matches!(self, Expr::Min(_)) {
                        "min"
                    } else {
                        "max"
                    }
                )?;
                for (i, e) in v.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{e}")?;
                }
                write!(f, ")")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Expr {
        Expr::Var(s.into())
    }

    #[test]
    fn affinity() {
        assert!(Expr::product(Expr::Int(2), v("i")).is_affine());
        assert!(!Expr::product(v("N"), v("i")).is_affine());
        assert!(!Expr::Div(Box::new(v("i")), Box::new(v("N"))).is_affine());
    }

    #[test]
    fn isl_division_rounds_toward_zero_as_c_does() {
        use isl_rs::{Context, Set};
        let ctx = Context::alloc();
        let i = || Box::new(v("i"));
        let three = || Box::new(Expr::difference(Expr::Int(5), Expr::Int(2)));
        for (e, c) in [
            (Expr::Div(i(), three()), (|x: i64| x / 3) as fn(i64) -> i64),
            (Expr::Mod(i(), three()), |x: i64| x % 3),
        ] {
            let text = e.to_isl(&|s| s.to_string());
            assert!(!text.contains("((5 - 2))"), "{text}");
            for x in -7..=7 {
                // The one value isl finds for `o` is C's.
                let set = format!("{{ [o] : exists i: i = {x} and o = {text} }}");
                let want = format!("{{ [o] : o = {} }}", c(x));
                let got = Set::read_from_str(&ctx, &set).expect("isl parses it");
                let want = Set::read_from_str(&ctx, &want).expect("isl parses it");
                assert!(got.is_equal(&want).expect("isl"), "{x}: {text}");
            }
            assert_eq!(e.substitute("i", &Expr::Int(-7)).constant(), Some(c(-7)));
        }
    }

    #[test]
    fn isl_spelling() {
        let e = Expr::difference(v("N"), Expr::Int(2));
        assert_eq!(e.to_isl(&|s| s.to_string()), "(N - 2)");
        assert_eq!(
            Expr::difference(Expr::Int(7), Expr::Int(2)).constant(),
            Some(5)
        );
    }
}
