//! Integer linear expressions over a tile body's variables, the bounds built
//! from them (`ceil`/`floor` of a quotient by a positive constant), and the
//! proofs that one bound dominates another that keep the generated loops
//! free of redundant `min`/`max` terms. Used by `gen.rs` only.

use crate::backend::tree::{BinOp, LoopExpr};
use crate::diag::{Error, Result};
use std::collections::{BTreeMap, HashMap};

/// A variable of a tile body's constraints and expressions.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Var {
    /// Tile coordinate `d` (the tile loops' values, from isl's call).
    Tile(usize),
    /// The generated loop counter of schedule depth `k` (`c<k>`).
    Counter(u32),
    /// A parameter of the region, by its C name.
    Param(String),
    /// Iterator `d` of a statement (below the tile coordinates); replaced
    /// by its value once a loop fixes it, never printed.
    Iter(usize),
}

/// `constant + Σ coefficient · var`, the zero coefficients left out.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct Lin {
    pub(super) terms: BTreeMap<Var, i64>,
    pub(super) constant: i64,
}

impl Lin {
    /// The constant function `c`.
    pub(super) fn constant(c: i64) -> Lin {
        Lin {
            terms: BTreeMap::new(),
            constant: c,
        }
    }

    /// The variable `v`.
    pub(super) fn var(v: Var) -> Lin {
        Lin::constant(0).plus_var(1, v)
    }

    /// `self + k · v`.
    pub(super) fn plus_var(mut self, k: i64, v: Var) -> Lin {
        let c = self.terms.entry(v.clone()).or_insert(0);
        *c += k;
        if *c == 0 {
            self.terms.remove(&v);
        }
        self
    }

    /// `self + k · other`.
    pub(super) fn plus(&self, k: i64, other: &Lin) -> Lin {
        let mut out = self.clone();
        out.constant += k * other.constant;
        for (v, c) in &other.terms {
            out = out.plus_var(k * c, v.clone());
        }
        out
    }

    /// `k · self`.
    pub(super) fn scaled(&self, k: i64) -> Lin {
        Lin::constant(0).plus(k, self)
    }

    /// The coefficient of `v`.
    pub(super) fn coeff(&self, v: &Var) -> i64 {
        self.terms.get(v).copied().unwrap_or(0)
    }

    /// `self` with `v` replaced by `by`.
    pub(super) fn substitute(&self, v: &Var, by: &Lin) -> Lin {
        let k = self.coeff(v);
        if k == 0 {
            return self.clone();
        }
        let mut rest = self.clone();
        rest.terms.remove(v);
        rest.plus(k, by)
    }

    /// The statement iterators `self` reads.
    pub(super) fn iters(&self) -> Vec<usize> {
        self.terms
            .keys()
            .filter_map(|v| match v {
                Var::Iter(d) => Some(*d),
                _ => None,
            })
            .collect()
    }

    /// The value of a constant function.
    pub(super) fn constant_value(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }
}

/// `ceil(num / den)` (`ceil`) or `floor(num / den)`, `den` positive.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct Frac {
    pub(super) num: Lin,
    pub(super) den: i64,
    pub(super) ceil: bool,
}

/// `floor(a / b)` for `b > 0`.
pub(super) fn floor_div(a: i64, b: i64) -> i64 {
    a.div_euclid(b)
}

/// `ceil(a / b)` for `b > 0`.
fn ceil_div(a: i64, b: i64) -> i64 {
    -floor_div(-a, b)
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Frac {
    /// `ceil(num / den)` or `floor(num / den)`, normalised: the common
    /// factor of the variables' coefficients and `den` divided out (the
    /// constant rounded), so that equal bounds compare equal and a quotient
    /// that is an integer function is a plain [`Lin`] (`den` 1).
    pub(super) fn new(num: Lin, den: i64, ceil: bool) -> Result<Frac> {
        if den <= 0 {
            return Err(Error::internal(
                "tile body: a bound divided by a non-positive number",
            ));
        }
        let g = num.terms.values().fold(den, |g, c| gcd(g, *c));
        let mut num = num;
        let mut den = den;
        if g > 1 {
            for c in num.terms.values_mut() {
                *c /= g;
            }
            num.constant = match ceil {
                true => ceil_div(num.constant, g),
                false => floor_div(num.constant, g),
            };
            den /= g;
        }
        Ok(Frac {
            num,
            den,
            ceil: ceil && den > 1,
        })
    }

    /// The bound as a plain function, when it is one.
    pub(super) fn as_lin(&self) -> Option<&Lin> {
        (self.den == 1).then_some(&self.num)
    }
}

/// Constant bounds of the tile coordinates and parameters (from the tiles'
/// domain and the region's context), and the tiles' constraints between
/// them, for proofs that a bound is redundant.
#[derive(Clone, Debug, Default)]
pub(super) struct Ranges {
    pub(super) lower: HashMap<Var, i64>,
    pub(super) upper: HashMap<Var, i64>,
    /// Constraints `lin >= 0` of several tile coordinates and parameters.
    pub(super) relations: Vec<Lin>,
}

impl Ranges {
    /// Records what the constraint `lin >= 0` (or `== 0`) says of the tile
    /// coordinates and parameters: a single one's constant bound, or a
    /// relation between several.
    pub(super) fn learn(&mut self, lin: &Lin, eq: bool) {
        if lin
            .terms
            .keys()
            .any(|v| matches!(v, Var::Iter(_) | Var::Counter(_)))
        {
            return;
        }
        let [(v, k)] = lin.terms.iter().collect::<Vec<_>>()[..] else {
            if lin.terms.len() > 1 {
                self.relations.push(lin.clone());
                if eq {
                    self.relations.push(lin.scaled(-1));
                }
            }
            return;
        };
        // k·v + c >= 0 (== 0), with k > 0 for an equality.
        let (k, c) = match (*k < 0, eq) {
            (true, true) => (-k, -lin.constant),
            _ => (*k, lin.constant),
        };
        if k > 0 {
            let b = ceil_div(-c, k);
            let e = self.lower.entry(v.clone()).or_insert(b);
            *e = (*e).max(b);
        }
        if k < 0 || eq {
            let b = match eq {
                true => floor_div(-c, k),
                false => floor_div(c, -k),
            };
            let e = self.upper.entry(v.clone()).or_insert(b);
            *e = (*e).min(b);
        }
    }

    /// Whether `lin >= 0` wherever the recorded bounds hold.
    pub(super) fn nonnegative(&self, lin: &Lin) -> bool {
        // `lin` is a relation plus what the constant bounds keep nonnegative.
        self.bounded_nonnegative(lin)
            || self
                .relations
                .iter()
                .any(|r| self.bounded_nonnegative(&lin.plus(-1, r)))
    }

    /// Whether `lin >= 0` wherever the constant bounds hold.
    fn bounded_nonnegative(&self, lin: &Lin) -> bool {
        let mut least = lin.constant;
        for (v, k) in &lin.terms {
            let b = if *k > 0 {
                self.lower.get(v)
            } else {
                self.upper.get(v)
            };
            match b {
                Some(b) => least += k * b,
                None => return false,
            }
        }
        least >= 0
    }

    /// Whether `a <= b` for every value of the variables (same rounding and
    /// divisor, numerators compared).
    pub(super) fn at_most(&self, a: &Frac, b: &Frac) -> bool {
        a == b || (a.den == b.den && a.ceil == b.ceil && self.nonnegative(&b.num.plus(-1, &a.num)))
    }

    /// The terms of `max(terms)` (`max`) or `min(terms)` that no other term
    /// dominates, sorted.
    pub(super) fn simplify(&self, terms: Vec<Frac>, max: bool) -> Vec<Frac> {
        let mut terms = terms;
        terms.sort();
        terms.dedup();
        let keep: Vec<bool> = (0..terms.len())
            .map(|i| {
                !(0..terms.len()).any(|j| {
                    j != i
                        && match max {
                            true => self.at_most(&terms[i], &terms[j]),
                            false => self.at_most(&terms[j], &terms[i]),
                        }
                        // Of two terms that dominate each other, keep the first.
                        && !(j > i
                            && match max {
                                true => self.at_most(&terms[j], &terms[i]),
                                false => self.at_most(&terms[i], &terms[j]),
                            })
                })
            })
            .collect();
        let mut kept: Vec<Frac> = terms
            .into_iter()
            .zip(keep)
            .filter_map(|(t, k)| k.then_some(t))
            .collect();
        // As isl prints them: constants and parameters before the terms of
        // tile coordinates and loop counters (`min(W - 2, 3 * c1 + 2)`).
        kept.sort_by_key(|f| {
            let n = f
                .num
                .terms
                .keys()
                .filter(|v| !matches!(v, Var::Param(_)))
                .count();
            (n, f.clone())
        });
        kept
    }
}

/// Prints variables: the tile coordinates as isl's call gave them.
pub(super) struct Printer<'a> {
    pub(super) tile: &'a dyn Fn(usize) -> Result<LoopExpr>,
}

impl Printer<'_> {
    fn var(&self, v: &Var) -> Result<LoopExpr> {
        match v {
            Var::Tile(d) => (self.tile)(*d),
            Var::Counter(k) => Ok(LoopExpr::Counter(*k)),
            Var::Param(p) => Ok(LoopExpr::Param(p.clone())),
            Var::Iter(_) => Err(Error::internal(
                "tile body: an iterator left in a generated expression",
            )),
        }
    }

    /// `lin` as an expression: loop counters and tile coordinates first,
    /// then parameters, then the constant (`4 * c1 + 3`, `64 * rb + 1`).
    pub(super) fn lin(&self, lin: &Lin) -> Result<LoopExpr> {
        let mut order: Vec<(&Var, &i64)> = lin.terms.iter().collect();
        order.sort_by_key(|(v, _)| matches!(v, Var::Param(_)));
        let mut acc: Option<LoopExpr> = None;
        for (v, k) in order {
            let x = self.var(v)?;
            let mag = |k: i64| match k {
                1 => x.clone(),
                k => LoopExpr::Op(BinOp::Mul, Box::new(LoopExpr::Int(k)), Box::new(x.clone())),
            };
            acc = Some(match acc {
                None if *k == -1 => LoopExpr::Neg(Box::new(x.clone())),
                None => mag(*k),
                Some(a) if *k < 0 => LoopExpr::Op(BinOp::Sub, Box::new(a), Box::new(mag(-k))),
                Some(a) => LoopExpr::Op(BinOp::Add, Box::new(a), Box::new(mag(*k))),
            });
        }
        let c = lin.constant;
        Ok(match acc {
            None => LoopExpr::Int(c),
            Some(a) if c > 0 => LoopExpr::Op(BinOp::Add, Box::new(a), Box::new(LoopExpr::Int(c))),
            Some(a) if c < 0 => LoopExpr::Op(BinOp::Sub, Box::new(a), Box::new(LoopExpr::Int(-c))),
            Some(a) => a,
        })
    }

    /// A bound: `floord(num, den)`, or `floord(num + den - 1, den)` for a ceiling.
    pub(super) fn frac(&self, f: &Frac) -> Result<LoopExpr> {
        if let Some(l) = f.as_lin() {
            return self.lin(l);
        }
        // floor((d·X + Y) / d) = X + floor(Y / d): the terms the divisor
        // divides come out (`-2 * c2 + floord(C + 3, 256)`).
        let (mut whole, mut rest) = (Lin::constant(0), Lin::constant(f.num.constant));
        for (v, k) in &f.num.terms {
            match k % f.den {
                0 => whole = whole.plus_var(k / f.den, v.clone()),
                _ => rest = rest.plus_var(*k, v.clone()),
            }
        }
        if f.ceil {
            rest = rest.plus(1, &Lin::constant(f.den - 1));
        }
        let div = LoopExpr::FloorDiv(Box::new(self.lin(&rest)?), Box::new(LoopExpr::Int(f.den)));
        Ok(match whole.terms.is_empty() {
            true => div,
            false => LoopExpr::Op(BinOp::Add, Box::new(self.lin(&whole)?), Box::new(div)),
        })
    }

    /// `max(terms)` (`max`) or `min(terms)`, one term as itself.
    pub(super) fn extreme(&self, terms: &[Frac], max: bool) -> Result<LoopExpr> {
        let mut xs = terms
            .iter()
            .map(|t| self.frac(t))
            .collect::<Result<Vec<_>>>()?;
        Ok(match (xs.len(), max) {
            (0, _) => return Err(Error::internal("tile body: a loop without a bound")),
            (1, _) => xs.remove(0),
            (_, true) => LoopExpr::Max(xs),
            (_, false) => LoopExpr::Min(xs),
        })
    }

    /// The condition `lin >= 0` (`lin == 0` for an equality), the positive
    /// terms on the left: `2 * c2 + 1 >= cb`, `c2 == 0`, `c1 <= 3`.
    pub(super) fn condition(&self, lin: &Lin, eq: bool) -> Result<LoopExpr> {
        let (mut left, mut right) = (Lin::constant(0), Lin::constant(0));
        for (v, k) in &lin.terms {
            match *k > 0 {
                true => left = left.plus_var(*k, v.clone()),
                false => right = right.plus_var(-k, v.clone()),
            }
        }
        let (op, a, b) = if left.terms.is_empty() {
            // c >= right: right <= c.
            let op = if eq { BinOp::Eq } else { BinOp::Le };
            (op, right, Lin::constant(lin.constant))
        } else {
            let op = if eq { BinOp::Eq } else { BinOp::Ge };
            match lin.constant >= 0 {
                true => left.constant = lin.constant,
                false => right.constant = -lin.constant,
            }
            (op, left, right)
        };
        Ok(LoopExpr::Op(
            op,
            Box::new(self.lin(&a)?),
            Box::new(self.lin(&b)?),
        ))
    }
}
