//! Whether the generated loops' integer arithmetic stays in its C type
//! (issue 54, class 5: with run-time bounds near `INT_MAX`, a tile loop's
//! `c1 += 32` or a bound `N + 1` overflows where the original program's
//! arithmetic does not).
//!
//! Interval arithmetic over the loop tree, the way C evaluates it: every
//! sub-expression of every bound, condition, increment and statement
//! argument (and the intermediate `-n + d - 1` of the floor-division
//! helper) must lie in the counters' type, for parameters in their own
//! types' ranges. A loop's counter ranges from its initial value to the
//! bound its condition sets, plus one increment (the value that ends the
//! loop). Where the parameters' full ranges do not fit, [`parameter_bound`]
//! finds the largest `B` for which every parameter in `[-B, B]` does: the
//! driver runs the loops under a run-time guard on it and the original code
//! otherwise, as for the model's own wrap checks (`model::wrap`; Polly's
//! run-time checks of its assumptions do the same, Grosser et al., "Polly:
//! polyhedral optimization in LLVM", IMPACT 2011).

use crate::backend::tree::{self, BinOp, LoopExpr, Node};
use std::collections::{BTreeMap, BTreeSet};

/// A closed interval of values.
type Interval = (i128, i128);

/// What [`parameter_bound`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The arithmetic fits for every value of the parameters' types.
    Fits,
    /// It fits where every parameter lies in `[-B, B]` (and in its type):
    /// `B` and the parameters the loops read, by their C names.
    Within(i128, BTreeSet<String>),
    /// It cannot be shown to fit even for small parameters (an expression
    /// this check does not read).
    Unknown,
}

impl Bound {
    /// The bound of two pieces of code together.
    pub fn and(self, other: Bound) -> Bound {
        match (self, other) {
            (Bound::Unknown, _) | (_, Bound::Unknown) => Bound::Unknown,
            (Bound::Within(a, mut p), Bound::Within(b, q)) => {
                p.extend(q);
                Bound::Within(a.min(b), p)
            }
            (w @ Bound::Within(..), Bound::Fits) | (Bound::Fits, w @ Bound::Within(..)) => w,
            (Bound::Fits, Bound::Fits) => Bound::Fits,
        }
    }
}

/// The value ranges the check works with.
pub struct Ranges<'a> {
    /// Each parameter's type range, by its C name (`int` where absent).
    pub params: &'a BTreeMap<String, Interval>,
    /// The range of the counters' C type (`int` or `long long`).
    pub counter: Interval,
}

/// `int`'s range.
pub const INT: Interval = (i32::MIN as i128, i32::MAX as i128);
/// `long long`'s range.
pub const LONG_LONG: Interval = (i64::MIN as i128, i64::MAX as i128);

/// The smallest box the search tries: below it, the check gives up.
const SMALLEST: i128 = 1 << 10;

/// Whether `tree`'s arithmetic fits the counters' type for the parameters'
/// whole ranges, or the largest `B` of a box `[-B, B]` where it does.
pub fn parameter_bound(tree: &[Node], ranges: &Ranges) -> Bound {
    let fits = |b: Option<i128>| Eval { ranges, bound: b }.nodes(tree, &mut BTreeMap::new());
    // The names the loops read (isl's other names make the check fail).
    let read = || {
        let (mut counters, mut params) = (BTreeSet::new(), BTreeSet::new());
        tree::visit(tree, &mut |n| {
            for e in tree::own_exprs(n) {
                tree::uses(e, &mut counters, &mut params);
            }
        });
        params
    };
    largest_box(fits, ranges.counter.1 + 1, read)
}

/// As [`parameter_bound`], for one expression evaluated in the counters'
/// type (a run-time guard's: the guard itself must not overflow).
pub fn expr_bound(e: &LoopExpr, ranges: &Ranges) -> Bound {
    let fits = |b: Option<i128>| {
        Eval { ranges, bound: b }
            .expr(e, &BTreeMap::new())
            .is_some()
    };
    let read = || {
        let (mut counters, mut params) = (BTreeSet::new(), BTreeSet::new());
        tree::uses(e, &mut counters, &mut params);
        params
    };
    largest_box(fits, ranges.counter.1 + 1, read)
}

/// `Fits` when `fits(None)`; else the largest `B` below `limit` with
/// `fits(Some(B))`, by bisection (larger boxes give wider intervals), with
/// the parameters `read` gives.
fn largest_box(
    fits: impl Fn(Option<i128>) -> bool,
    limit: i128,
    read: impl FnOnce() -> BTreeSet<String>,
) -> Bound {
    if fits(None) {
        return Bound::Fits;
    }
    if !fits(Some(SMALLEST)) {
        return Bound::Unknown;
    }
    let (mut ok, mut bad) = (SMALLEST, limit);
    while bad - ok > 1 {
        let mid = ok + (bad - ok) / 2;
        match fits(Some(mid)) {
            true => ok = mid,
            false => bad = mid,
        }
    }
    Bound::Within(ok, read())
}

/// One evaluation: the parameters' ranges, each clipped to `[-B, B]` when
/// `bound` is `Some(B)`.
struct Eval<'a, 'r> {
    ranges: &'a Ranges<'r>,
    bound: Option<i128>,
}

impl Eval<'_, '_> {
    /// Whether every node's arithmetic fits; `counters` holds the ranges of
    /// the loops around.
    fn nodes(&self, nodes: &[Node], counters: &mut BTreeMap<u32, Interval>) -> bool {
        nodes.iter().all(|n| self.node(n, counters))
    }

    fn node(&self, n: &Node, counters: &mut BTreeMap<u32, Interval>) -> bool {
        match n {
            Node::For {
                iter,
                init,
                cond,
                inc,
                body,
                ..
            } => {
                let LoopExpr::Counter(c) = iter else {
                    return false;
                };
                let (Some(start), Some(step)) =
                    (self.expr(init, counters), self.expr(inc, counters))
                else {
                    return false;
                };
                // The bound the condition sets on the counter (evaluated
                // with the counter at its start: conditions of isl's loops
                // bound the counter by expressions of the loops around).
                counters.insert(*c, start);
                let Some(last) = self.upper_bound(*c, cond, counters) else {
                    return false;
                };
                if step.0 < 0 {
                    return false;
                }
                // Inside the body, and once more past the end (the value
                // that ends the loop, read by its condition).
                let inside = (start.0, last.max(start.1));
                let past = (start.0, inside.1 + step.1);
                if !self.fits(past) {
                    return false;
                }
                counters.insert(*c, past);
                let cond_ok = self.expr(cond, counters).is_some();
                counters.insert(*c, inside);
                let ok = cond_ok && self.nodes(body, counters);
                counters.remove(c);
                ok
            }
            Node::If { cond, then, els } => {
                self.expr(cond, counters).is_some()
                    && self.nodes(then, counters)
                    && els.as_ref().is_none_or(|e| self.nodes(e, counters))
            }
            Node::Buffers { body, .. } => self.nodes(body, counters),
            Node::Stmt { args, .. } => args.iter().all(|a| self.expr(a, counters).is_some()),
        }
    }

    /// The largest value of counter `c` that `cond` lets the loop run with
    /// (`c <= e`, `c < e`, a conjunction of them, or `e >= c`, `e > c`).
    fn upper_bound(
        &self,
        c: u32,
        cond: &LoopExpr,
        counters: &BTreeMap<u32, Interval>,
    ) -> Option<i128> {
        let LoopExpr::Op(op, a, b) = cond else {
            return None;
        };
        let is_c = |e: &LoopExpr| matches!(e, LoopExpr::Counter(k) if *k == c);
        match op {
            BinOp::And => {
                let l = self.upper_bound(c, a, counters);
                let r = self.upper_bound(c, b, counters);
                match (l, r) {
                    (Some(l), Some(r)) => Some(l.min(r)),
                    (l, r) => l.or(r),
                }
            }
            BinOp::Le if is_c(a) => Some(self.expr(b, counters)?.1),
            BinOp::Lt if is_c(a) => Some(self.expr(b, counters)?.1 - 1),
            BinOp::Ge if is_c(b) => Some(self.expr(a, counters)?.1),
            BinOp::Gt if is_c(b) => Some(self.expr(a, counters)?.1 - 1),
            _ => None,
        }
    }

    fn fits(&self, v: Interval) -> bool {
        self.ranges.counter.0 <= v.0 && v.1 <= self.ranges.counter.1
    }

    /// The range of `e`, if each of its sub-expressions fits.
    fn expr(&self, e: &LoopExpr, counters: &BTreeMap<u32, Interval>) -> Option<Interval> {
        let v = match e {
            LoopExpr::Int(v) => (i128::from(*v), i128::from(*v)),
            LoopExpr::Param(p) => {
                let (lo, hi) = self.ranges.params.get(p).copied().unwrap_or(INT);
                match self.bound {
                    Some(b) => (lo.max(-b), hi.min(b)),
                    None => (lo, hi),
                }
            }
            LoopExpr::Counter(c) => *counters.get(c)?,
            LoopExpr::Name(_) => return None,
            LoopExpr::Neg(a) => {
                let a = self.expr(a, counters)?;
                (-a.1, -a.0)
            }
            LoopExpr::Min(v) | LoopExpr::Max(v) => {
                let all: Option<Vec<Interval>> = v.iter().map(|x| self.expr(x, counters)).collect();
                let all = all?;
                let pick = |f: fn(i128, i128) -> i128| {
                    let first = *all.first()?;
                    Some(
                        all.iter()
                            .skip(1)
                            .fold(first, |m, x| (f(m.0, x.0), f(m.1, x.1))),
                    )
                };
                match e {
                    LoopExpr::Min(_) => pick(i128::min)?,
                    _ => pick(i128::max)?,
                }
            }
            LoopExpr::FloorDiv(a, d) => {
                let (a, d) = (self.expr(a, counters)?, self.expr(d, counters)?);
                if d.0 <= 0 {
                    return None;
                }
                // The helper computes `-n + d - 1` for a negative `n`.
                if a.0 < 0 && !self.fits((0, -a.0 + d.1 - 1)) {
                    return None;
                }
                (
                    a.0.div_euclid(d.0).min(a.0.div_euclid(d.1)),
                    a.1.div_euclid(d.0).max(a.1.div_euclid(d.1)),
                )
            }
            LoopExpr::Select(c, a, b) => {
                self.expr(c, counters)?;
                let (a, b) = (self.expr(a, counters)?, self.expr(b, counters)?);
                (a.0.min(b.0), a.1.max(b.1))
            }
            LoopExpr::Op(op, a, b) => {
                let (a, b) = (self.expr(a, counters)?, self.expr(b, counters)?);
                binary(*op, a, b)?
            }
        };
        self.fits(v).then_some(v)
    }
}

/// The range of `a op b` (comparisons and logic: 0 or 1).
fn binary(op: BinOp, a: Interval, b: Interval) -> Option<Interval> {
    let corners = |f: fn(i128, i128) -> i128| {
        let v = [f(a.0, b.0), f(a.0, b.1), f(a.1, b.0), f(a.1, b.1)];
        (
            v.iter().copied().min().unwrap_or(0),
            v.iter().copied().max().unwrap_or(0),
        )
    };
    Some(match op {
        BinOp::Add => (a.0 + b.0, a.1 + b.1),
        BinOp::Sub => (a.0 - b.1, a.1 - b.0),
        BinOp::Mul => corners(|x, y| x * y),
        BinOp::Div => {
            if b.0 <= 0 && 0 <= b.1 {
                return None;
            }
            corners(|x, y| x / y)
        }
        BinOp::Rem => {
            let m = b.0.abs().max(b.1.abs());
            if m == 0 {
                return None;
            }
            (-(m - 1), m - 1)
        }
        BinOp::And | BinOp::Or | BinOp::Eq | BinOp::Le | BinOp::Lt | BinOp::Ge | BinOp::Gt => {
            (0, 1)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(p: &str) -> Box<LoopExpr> {
        Box::new(LoopExpr::Param(p.into()))
    }

    fn n() -> BTreeSet<String> {
        BTreeSet::from(["N".to_string()])
    }

    fn int(v: i64) -> Box<LoopExpr> {
        Box::new(LoopExpr::Int(v))
    }

    fn op(o: BinOp, a: Box<LoopExpr>, b: Box<LoopExpr>) -> Box<LoopExpr> {
        Box::new(LoopExpr::Op(o, a, b))
    }

    /// `for (c0 = 0; c0 < N; c0 += step) S(c0)`.
    fn tiled(step: i64) -> Vec<Node> {
        vec![Node::For {
            iter: LoopExpr::Counter(0),
            init: LoopExpr::Int(0),
            cond: *op(BinOp::Lt, Box::new(LoopExpr::Counter(0)), param("N")),
            inc: LoopExpr::Int(step),
            body: vec![Node::Stmt {
                stage: "S0".into(),
                args: vec![LoopExpr::Counter(0)],
            }],
            parallel: false,
            simd: false,
            independent: false,
        }]
    }

    #[test]
    fn a_guard_on_two_64_bit_unsigned_parameters_is_bounded() {
        // `n + m <= 4294967295` in `long long`, n and m `size_t`: the sum
        // overflows for n, m near 2^63, fits for both below 2^62.
        let u64 = (0, u64::MAX as i128);
        let params = BTreeMap::from([("n".to_string(), u64), ("m".to_string(), u64)]);
        let r = Ranges {
            params: &params,
            counter: LONG_LONG,
        };
        let e = op(
            BinOp::Le,
            op(BinOp::Add, param("n"), param("m")),
            int(4294967295),
        );
        let both = BTreeSet::from(["m".to_string(), "n".to_string()]);
        assert_eq!(
            expr_bound(&e, &r),
            Bound::Within((i64::MAX as i128) / 2, both)
        );
        // In `int` parameters' ranges it fits as it is.
        let small = BTreeMap::from([("n".to_string(), INT), ("m".to_string(), INT)]);
        let r = Ranges {
            params: &small,
            counter: LONG_LONG,
        };
        assert_eq!(expr_bound(&e, &r), Bound::Fits);
    }

    #[test]
    fn a_unit_step_loop_fits_every_int() {
        let params = BTreeMap::new();
        let r = Ranges {
            params: &params,
            counter: INT,
        };
        assert_eq!(parameter_bound(&tiled(1), &r), Bound::Fits);
    }

    #[test]
    fn a_tile_loop_needs_room_for_its_last_increment() {
        let params = BTreeMap::new();
        let r = Ranges {
            params: &params,
            counter: INT,
        };
        // c0 <= N - 1, then c0 + 32 <= INT_MAX: N <= INT_MAX - 31.
        assert_eq!(
            parameter_bound(&tiled(32), &r),
            Bound::Within(i32::MAX as i128 - 31, n())
        );
        // With long long counters an int N fits.
        let wide = Ranges {
            params: &params,
            counter: LONG_LONG,
        };
        assert_eq!(parameter_bound(&tiled(32), &wide), Bound::Fits);
    }

    #[test]
    fn bounds_and_floor_division_are_checked() {
        let params = BTreeMap::new();
        let r = Ranges {
            params: &params,
            counter: INT,
        };
        // S(N + 1): fits for N <= INT_MAX - 1 (and N >= INT_MIN).
        let plus = vec![Node::Stmt {
            stage: "S0".into(),
            args: vec![*op(BinOp::Add, param("N"), int(1))],
        }];
        assert_eq!(
            parameter_bound(&plus, &r),
            Bound::Within(i32::MAX as i128 - 1, n())
        );
        // S(-N): -INT_MIN overflows.
        let neg = vec![Node::Stmt {
            stage: "S0".into(),
            args: vec![LoopExpr::Neg(param("N"))],
        }];
        assert_eq!(
            parameter_bound(&neg, &r),
            Bound::Within(i32::MAX as i128, n())
        );
        // floord(N, 8): the helper's -N + 7 for N near INT_MIN.
        let floord = vec![Node::Stmt {
            stage: "S0".into(),
            args: vec![LoopExpr::FloorDiv(param("N"), int(8))],
        }];
        assert_eq!(
            parameter_bound(&floord, &r),
            Bound::Within(i32::MAX as i128 - 7, n())
        );
        // An unsigned parameter's range is its own: 0..=UINT_MAX does not fit in int.
        let unsigned = BTreeMap::from([("N".to_string(), (0, u32::MAX as i128))]);
        let u = Ranges {
            params: &unsigned,
            counter: INT,
        };
        assert_eq!(
            parameter_bound(&plus, &u),
            Bound::Within(i32::MAX as i128 - 1, n())
        );
        // A name the check does not know.
        let unknown = vec![Node::Stmt {
            stage: "S0".into(),
            args: vec![LoopExpr::Name("x".into())],
        }];
        assert_eq!(parameter_bound(&unknown, &r), Bound::Unknown);
    }
}
