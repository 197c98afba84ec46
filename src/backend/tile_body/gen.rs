//! Generation of one overlapped tile's body from its subtree (read by
//! `tile_body.rs`): a polyhedral scanner for the vocabulary flextile's
//! overlapped trees use, in plain Rust.
//!
//! Every statement's instances in a tile are one polyhedron; each member
//! of a band is, per statement, `a·i + g` or `h + floor((a·i + g)/C)` of one
//! of its iterators `i` (`g`, `h` over the tile coordinates, parameters
//! and iterators fixed further out). A member's loop runs over the union
//! of the statements' values: each statement's range is read off the
//! constraints in which `i` is the only iterator not yet fixed (a superset
//! of the exact projection where other iterators remain: the loops further
//! in enforce the rest). A statement whose range is the loop's needs no
//! guard; the others keep their constraints until they run alone (below a
//! filter or at their leaf), where whatever can then be checked becomes an
//! `if`. Every constraint is thus either a loop bound or a guard before the
//! statement runs, and the loops follow the band's order (atomic loops: one
//! loop per member, the sequence below it inside), so the code runs every
//! instance of the tree exactly once, in its order. What lies outside the
//! vocabulary is refused (an error), and the tile stays with isl.

use super::lin::{Frac, Lin, Printer, Ranges, Var};
use crate::backend::ast::apply_mark;
use crate::backend::tree::{BinOp, LoopExpr, Node};
use crate::diag::{Error, Result};
use crate::model::marks::Mark;
use std::collections::BTreeMap;

/// A constraint on `lin`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Con {
    pub(super) lin: Lin,
    pub(super) rel: Rel,
}

/// How a [`Con`] constrains its function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Rel {
    /// `lin >= 0`.
    Ge,
    /// `lin == 0`.
    Eq,
    /// `lin` is a multiple of the number (a scaled statement in a loop
    /// over every value).
    Multiple(i64),
}

/// A statement below the expansion: its name and its instances in a tile.
#[derive(Clone, Debug)]
pub(super) struct Stmt {
    pub(super) name: String,
    /// Iterators after the tile coordinates.
    pub(super) n_iter: usize,
    /// Over [`Var::Tile`], [`Var::Iter`] and [`Var::Param`].
    pub(super) cons: Vec<Con>,
}

/// One statement's band member: `lin + floor(div.0 / div.1)` (no `div`:
/// `lin`), over the statement's tile coordinates, iterators and parameters.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Member {
    pub(super) lin: Lin,
    pub(super) div: Option<(Lin, i64)>,
}

/// A node of the subtree below the expansion.
#[derive(Clone, Debug)]
pub(super) enum BNode {
    /// Atomic loops, one per member; each member gives the statements' values.
    Band(Vec<BTreeMap<usize, Member>>, Box<BNode>),
    /// Children one after another, each over the statements of its filter.
    Sequence(Vec<(Vec<usize>, BNode)>),
    /// The statements of the filter only.
    Filter(Vec<usize>, Box<BNode>),
    /// A mark over its subtree.
    Mark(Mark, Box<BNode>),
    /// A statement instance.
    Leaf,
}

/// A tile body: where its counters start, its statements and its tree.
#[derive(Clone, Debug)]
pub(super) struct Body {
    /// Schedule depth of the expansion node: the first counter's number.
    pub(super) depth: u32,
    /// Tile coordinates of every statement.
    pub(super) n_tile: usize,
    pub(super) stmts: Vec<Stmt>,
    pub(super) tree: BNode,
    /// Constant bounds of the tile coordinates and parameters.
    pub(super) ranges: Ranges,
}

/// A statement on its way down the tree.
#[derive(Clone, Debug)]
struct Active {
    s: usize,
    /// The value of each iterator a loop has fixed: `num / den`, exact.
    fixed: Vec<Option<(Lin, i64)>>,
    /// The constraints not yet enforced, fixed iterators substituted.
    pending: Vec<Con>,
}

/// What a member is for one statement, its fixed iterators substituted.
#[derive(Clone, Debug)]
enum Kind {
    /// `a·i_d + g`.
    Exact { d: usize, a: i64, g: Lin },
    /// `h + floor((a·i_d + g) / c)`.
    Floor {
        d: usize,
        a: i64,
        g: Lin,
        h: Lin,
        c: i64,
    },
    /// A value fixed already.
    Known(Lin),
}

impl Body {
    /// The tile's code, its coordinates printed by `tile`.
    pub(super) fn generate(&self, tile: &dyn Fn(usize) -> Result<LoopExpr>) -> Result<Vec<Node>> {
        let g = Gen {
            body: self,
            print: Printer { tile },
        };
        let active = self
            .stmts
            .iter()
            .enumerate()
            .map(|(s, st)| Active {
                s,
                fixed: vec![None; st.n_iter],
                pending: st.cons.clone(),
            })
            .collect();
        g.node(&self.tree, active, self.depth)
    }
}

struct Gen<'a> {
    body: &'a Body,
    print: Printer<'a>,
}

/// `body`, inside `if (conds)` when there are conditions.
fn guarded(cond: Option<LoopExpr>, body: Vec<Node>) -> Vec<Node> {
    match cond {
        Some(cond) if !body.is_empty() => vec![Node::If {
            cond,
            then: body,
            els: None,
        }],
        _ => body,
    }
}

impl Gen<'_> {
    fn node(&self, n: &BNode, active: Vec<Active>, depth: u32) -> Result<Vec<Node>> {
        if active.is_empty() {
            return Ok(Vec::new());
        }
        // A statement alone: what it can check now guards its whole subtree.
        let (active, cond) = match active.len() {
            1 => match self.take_ready(active)? {
                Some(x) => x,
                None => return Ok(Vec::new()),
            },
            _ => (active, None),
        };
        let out = match n {
            BNode::Leaf => self.leaf(&active)?,
            BNode::Mark(m, child) => apply_mark(Some(m.clone()), self.node(child, active, depth)?),
            BNode::Filter(keep, child) => self.node(child, only(&active, keep), depth)?,
            BNode::Sequence(children) => {
                let mut out = Vec::new();
                for (keep, child) in children {
                    out.extend(self.node(child, only(&active, keep), depth)?);
                }
                out
            }
            BNode::Band(members, child) => self.band(members, child, active, depth)?,
        };
        Ok(guarded(cond, out))
    }

    /// Splits off the lone statement's constraints that no iterator is left
    /// in, as one condition (none where each is known to hold); `None` when
    /// one is known to fail.
    fn take_ready(&self, active: Vec<Active>) -> Result<Option<(Vec<Active>, Option<LoopExpr>)>> {
        let mut active = active;
        let a = &mut active[0];
        let (ready, rest): (Vec<Con>, Vec<Con>) =
            a.pending.drain(..).partition(|c| c.lin.iters().is_empty());
        a.pending = rest;
        let mut cond: Option<LoopExpr> = None;
        for c in ready {
            if let Some(k) = c.lin.constant_value() {
                let holds = match c.rel {
                    Rel::Ge => k >= 0,
                    Rel::Eq => k == 0,
                    Rel::Multiple(m) => k % m == 0,
                };
                if !holds {
                    return Ok(None);
                }
                continue;
            }
            if c.rel == Rel::Ge && self.body.ranges.nonnegative(&c.lin) {
                continue;
            }
            let e = match c.rel {
                Rel::Multiple(m) => LoopExpr::Op(
                    BinOp::Eq,
                    Box::new(LoopExpr::Op(
                        BinOp::Rem,
                        Box::new(self.print.lin(&c.lin)?),
                        Box::new(LoopExpr::Int(m)),
                    )),
                    Box::new(LoopExpr::Int(0)),
                ),
                rel => self.print.condition(&c.lin, rel == Rel::Eq)?,
            };
            cond = Some(match cond {
                None => e,
                Some(acc) => LoopExpr::Op(BinOp::And, Box::new(acc), Box::new(e)),
            });
        }
        Ok(Some((active, cond)))
    }

    /// The statement instance at a leaf; the pieces of one statement
    /// (disjoint polyhedra of its instances) may share one, each guarded.
    fn leaf(&self, active: &[Active]) -> Result<Vec<Node>> {
        let names: Vec<&str> = active
            .iter()
            .map(|a| self.body.stmts[a.s].name.as_str())
            .collect();
        if names.iter().any(|n| *n != names[0]) {
            return Err(Error::internal("tile body: statements sharing a leaf"));
        }
        let mut out = Vec::new();
        for a in active {
            let Some((a, cond)) = self.take_ready(vec![a.clone()])? else {
                continue;
            };
            let a = &a[0];
            if !a.pending.is_empty() {
                return Err(Error::internal("tile body: a constraint left at a leaf"));
            }
            let mut args = (0..self.body.n_tile)
                .map(|d| (self.print.tile)(d))
                .collect::<Result<Vec<_>>>()?;
            for v in &a.fixed {
                let (num, den) = v
                    .as_ref()
                    .ok_or_else(|| Error::internal("tile body: an iterator no loop fixes"))?;
                let e = self.print.lin(num)?;
                args.push(match den {
                    1 => e,
                    d => LoopExpr::Op(BinOp::Div, Box::new(e), Box::new(LoopExpr::Int(*d))),
                });
            }
            let stmt = Node::Stmt {
                stage: self.body.stmts[a.s].name.clone(),
                args,
            };
            out.extend(guarded(cond, vec![stmt]));
        }
        Ok(out)
    }

    /// The band's members from the first, then its child.
    fn band(
        &self,
        members: &[BTreeMap<usize, Member>],
        child: &BNode,
        active: Vec<Active>,
        depth: u32,
    ) -> Result<Vec<Node>> {
        let Some((member, rest)) = members.split_first() else {
            return self.node(child, active, depth);
        };
        let ranges = &self.body.ranges;
        let alone = active.len() == 1;
        // Each statement's kind of member and range of values (for a
        // scaled member of a lone statement: of its iterator, over which
        // the loop then runs, as isl's stride scaling does).
        let mut plans = Vec::new();
        for a in &active {
            let m = member.get(&a.s).ok_or_else(|| {
                Error::internal("tile body: a band without a member for a statement")
            })?;
            let kind = kind(a, m)?;
            let (lo, hi, used) = match &kind {
                Kind::Known(v) => {
                    let f = Frac::new(v.clone(), 1, false)?;
                    (vec![f.clone()], vec![f], Vec::new())
                }
                Kind::Exact { d, a: k, g } => {
                    let (lo, hi, used) = iter_range(a, *d)?;
                    match (*k, alone) {
                        (1, _) => (shift(lo, g)?, shift(hi, g)?, used),
                        (_, true) => (lo, hi, used),
                        // A scaled statement in a loop over every value.
                        (k, false) => (scale(lo, k, g)?, scale(hi, k, g)?, used),
                    }
                }
                Kind::Floor { d, a: k, g, h, c } => {
                    let (lo, hi, used) = iter_range(a, *d)?;
                    // h + floor((k·i + g) / c) at i's bound n / e, rounding
                    // left to the outer floor: a range that may be one
                    // chunk wider, which the loop over i further in
                    // leaves empty.
                    let chunk = |b: Vec<Frac>| -> Result<Vec<Frac>> {
                        b.into_iter()
                            .map(|f| {
                                let e = f.den;
                                let num = f.num.scaled(*k).plus(e, g).plus(e * c, h);
                                Frac::new(num, e * c, false)
                            })
                            .collect()
                    };
                    (chunk(lo)?, chunk(hi)?, used)
                }
            };
            let lo = ranges.simplify(lo, true);
            let hi = ranges.simplify(hi, false);
            plans.push((kind, lo, hi, used));
        }
        // The loop's range: one every statement's lies in, else the hull.
        let contains = |r: &(Vec<Frac>, Vec<Frac>), s: &(Vec<Frac>, Vec<Frac>)| {
            r.0.iter().all(|t| s.0.iter().any(|u| ranges.at_most(t, u)))
                && r.1.iter().all(|t| s.1.iter().any(|u| ranges.at_most(u, t)))
        };
        let mut distinct: Vec<(Vec<Frac>, Vec<Frac>)> = Vec::new();
        for (_, lo, hi, _) in &plans {
            let r = (lo.clone(), hi.clone());
            if !distinct.contains(&r) {
                distinct.push(r);
            }
        }
        let outer = distinct
            .iter()
            .find(|r| distinct.iter().all(|s| contains(r, s)))
            .cloned();
        let (lo_e, hi_e, exact) = match &outer {
            Some((lo, hi)) => (
                self.print.extreme(lo, true)?,
                self.print.extreme(hi, false)?,
                Some((lo.clone(), hi.clone())),
            ),
            None => {
                let los = distinct
                    .iter()
                    .map(|r| self.print.extreme(&r.0, true))
                    .collect::<Result<Vec<_>>>()?;
                let his = distinct
                    .iter()
                    .map(|r| self.print.extreme(&r.1, false))
                    .collect::<Result<Vec<_>>>()?;
                (LoopExpr::Min(los), LoopExpr::Max(his), None)
            }
        };
        // One value for every statement: no loop.
        let single = match &exact {
            Some((lo, hi)) if lo.len() == 1 && lo == hi => lo[0].as_lin().cloned(),
            _ => None,
        };
        let value = single
            .clone()
            .unwrap_or_else(|| Lin::var(Var::Counter(depth)));
        let mut next = Vec::new();
        for (a, (kind, lo, hi, used)) in active.into_iter().zip(plans) {
            let whole = exact.as_ref() == Some(&(lo, hi));
            next.push(fix(a, kind, &value, whole, alone, &used)?);
        }
        let body = self.band(rest, child, next, depth + 1)?;
        if single.is_some() || body.is_empty() {
            return Ok(body);
        }
        Ok(vec![Node::For {
            iter: LoopExpr::Counter(depth),
            init: lo_e,
            cond: LoopExpr::Op(
                BinOp::Le,
                Box::new(LoopExpr::Counter(depth)),
                Box::new(hi_e),
            ),
            inc: LoopExpr::Int(1),
            body,
            parallel: false,
            simd: false,
            independent: false,
        }])
    }
}

/// The statements of `active` that `keep` lists.
fn only(active: &[Active], keep: &[usize]) -> Vec<Active> {
    active
        .iter()
        .filter(|a| keep.contains(&a.s))
        .cloned()
        .collect()
}

/// The member `m` of statement `a`, its fixed iterators substituted.
fn kind(a: &Active, m: &Member) -> Result<Kind> {
    let unsupported = || Error::internal("tile body: a band member outside the vocabulary");
    let subst = |l: &Lin| -> Result<Lin> {
        let mut l = l.clone();
        for (d, v) in a.fixed.iter().enumerate() {
            match v {
                Some((v, 1)) => l = l.substitute(&Var::Iter(d), v),
                Some(_) if l.coeff(&Var::Iter(d)) != 0 => return Err(unsupported()),
                _ => {}
            }
        }
        Ok(l)
    };
    let lin = subst(&m.lin)?;
    let one_iter = |l: &Lin| -> Result<Option<(usize, i64, Lin)>> {
        match l.iters()[..] {
            [] => Ok(None),
            [d] => {
                let k = l.coeff(&Var::Iter(d));
                if k <= 0 {
                    return Err(unsupported());
                }
                Ok(Some((d, k, l.plus(-k, &Lin::var(Var::Iter(d))))))
            }
            _ => Err(unsupported()),
        }
    };
    match &m.div {
        None => Ok(match one_iter(&lin)? {
            Some((d, k, g)) => Kind::Exact { d, a: k, g },
            None => Kind::Known(lin),
        }),
        Some((num, c)) => {
            if !lin.iters().is_empty() {
                return Err(unsupported());
            }
            let num = subst(num)?;
            match one_iter(&num)? {
                Some((d, k, g)) => Ok(Kind::Floor {
                    d,
                    a: k,
                    g,
                    h: lin,
                    c: *c,
                }),
                None => {
                    let f = Frac::new(num, *c, false)?;
                    let v = f.as_lin().ok_or_else(unsupported)?;
                    Ok(Kind::Known(lin.plus(1, v)))
                }
            }
        }
    }
}

/// The bounds of iterator `d` of `a` from the constraints in which it is
/// the only iterator left: lower (`ceil`) and upper (`floor`) terms, and
/// the positions of those constraints in `a.pending`.
fn iter_range(a: &Active, d: usize) -> Result<(Vec<Frac>, Vec<Frac>, Vec<usize>)> {
    let (mut lo, mut hi, mut used) = (Vec::new(), Vec::new(), Vec::new());
    let v = Var::Iter(d);
    for (i, c) in a.pending.iter().enumerate() {
        let eq = match c.rel {
            Rel::Ge => false,
            Rel::Eq => true,
            Rel::Multiple(_) => continue,
        };
        if c.lin.iters() != [d] {
            continue;
        }
        used.push(i);
        // k·i + rest >= 0 (== 0).
        let (k, lin) = match c.lin.coeff(&v) {
            k if k < 0 && eq => (-k, c.lin.scaled(-1)),
            k => (k, c.lin.clone()),
        };
        let mut rest = lin;
        rest.terms.remove(&v);
        if k > 0 {
            lo.push(Frac::new(rest.scaled(-1), k, true)?);
            if eq {
                hi.push(Frac::new(rest.scaled(-1), k, false)?);
            }
        } else {
            hi.push(Frac::new(rest, -k, false)?);
        }
    }
    if lo.is_empty() || hi.is_empty() {
        return Err(Error::internal("tile body: an unbounded loop"));
    }
    Ok((lo, hi, used))
}

/// `b + g` for each bound `b`.
fn shift(bounds: Vec<Frac>, g: &Lin) -> Result<Vec<Frac>> {
    bounds
        .into_iter()
        .map(|f| Frac::new(f.num.plus(f.den, g), f.den, f.ceil))
        .collect()
}

/// The bounds of `k·i + g` from the bounds `b` of `i` (`ceil` or `floor` of
/// `n / d`): `k·i + g >= ceil((k·n + d·g) / d)` where `d·i >= n`, exactly
/// the constraint `i` has when `k·i + g` is a multiple of `k` plus `g`.
fn scale(bounds: Vec<Frac>, k: i64, g: &Lin) -> Result<Vec<Frac>> {
    bounds
        .into_iter()
        .map(|f| Frac::new(f.num.scaled(k).plus(f.den, g), f.den, f.ceil))
        .collect()
}

/// Statement `a` inside the loop of `kind` at `value`: the iterator the
/// member fixes substituted, the constraints its range came from (`used`)
/// dropped where the loop's range is the statement's (`whole`), a chunk's
/// bounds added for its iterator's loop further in.
fn fix(
    a: Active,
    kind: Kind,
    value: &Lin,
    whole: bool,
    alone: bool,
    used: &[usize],
) -> Result<Active> {
    let mut a = a;
    let drop_used = |a: &mut Active| {
        let mut i = 0;
        a.pending.retain(|_| {
            i += 1;
            !used.contains(&(i - 1))
        });
    };
    // Iterator `d` is `num / den`: the constraints multiplied by `den`.
    let set = |a: &mut Active, d: usize, num: Lin, den: i64| {
        let v = Var::Iter(d);
        for c in a.pending.iter_mut() {
            let k = c.lin.coeff(&v);
            if k != 0 {
                let mut rest = c.lin.clone();
                rest.terms.remove(&v);
                c.lin = rest.scaled(den).plus(k, &num);
            }
        }
        a.fixed[d] = Some((num, den));
    };
    match kind {
        Kind::Exact { d, a: 1, g } => {
            if whole {
                drop_used(&mut a);
            }
            set(&mut a, d, value.plus(-1, &g), 1);
        }
        // A scaled member of a lone statement: the loop runs over the iterator.
        Kind::Exact { d, .. } if alone => {
            drop_used(&mut a);
            set(&mut a, d, value.clone(), 1);
        }
        // A scaled member in a loop over every value: the statement runs
        // where `value - g` is a multiple of its scale.
        Kind::Exact { d, a: k, g } => {
            if whole {
                drop_used(&mut a);
            }
            let num = value.plus(-1, &g);
            a.pending.push(Con {
                lin: num.clone(),
                rel: Rel::Multiple(k),
            });
            set(&mut a, d, num, k);
        }
        Kind::Floor { d, a: k, g, h, c } => {
            // c·(value - h) <= k·i + g <= c·(value - h) + c - 1.
            let at = Lin::var(Var::Iter(d)).scaled(k).plus(1, &g);
            let base = value.plus(-1, &h).scaled(c);
            a.pending.push(Con {
                lin: at.plus(-1, &base),
                rel: Rel::Ge,
            });
            a.pending.push(Con {
                lin: base.plus(1, &Lin::constant(c - 1)).plus(-1, &at),
                rel: Rel::Ge,
            });
        }
        Kind::Known(v) => {
            if !whole {
                a.pending.push(Con {
                    lin: value.plus(-1, &v),
                    rel: Rel::Eq,
                });
            }
        }
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::tile_body::lin::floor_div;

    fn lin(c: i64, terms: &[(Var, i64)]) -> Lin {
        terms
            .iter()
            .fold(Lin::constant(c), |l, (v, k)| l.plus_var(*k, v.clone()))
    }

    #[test]
    fn floor_division_rounds_down() {
        assert_eq!(floor_div(-3, 256), -1);
        assert_eq!(floor_div(3, 256), 0);
        let f = Frac::new(lin(-3, &[(Var::Tile(0), 256)]), 256, false).unwrap();
        assert_eq!(f.as_lin(), Some(&lin(-1, &[(Var::Tile(0), 1)])));
    }

    #[test]
    fn ranges_drop_bounds_the_tiles_imply() {
        let mut r = Ranges::default();
        // T0 >= 0 and T0 <= 1.
        r.learn(&lin(0, &[(Var::Tile(0), 1)]), false);
        r.learn(&lin(1, &[(Var::Tile(0), -1)]), false);
        let t = |c, k| Frac::new(lin(c, &[(Var::Tile(0), k)]), 1, false).unwrap();
        let zero = Frac::new(Lin::constant(0), 1, false).unwrap();
        let seven = Frac::new(Lin::constant(7), 1, false).unwrap();
        // max(0, 4 T0) = 4 T0; min(7, 4 T0 + 3) = 4 T0 + 3.
        assert_eq!(r.simplify(vec![zero, t(0, 4)], true), vec![t(0, 4)]);
        assert_eq!(r.simplify(vec![seven, t(3, 4)], false), vec![t(3, 4)]);
        // Without the upper bound of T0, 7 stays.
        let mut r2 = Ranges::default();
        r2.learn(&lin(0, &[(Var::Tile(0), 1)]), false);
        let seven = Frac::new(Lin::constant(7), 1, false).unwrap();
        assert_eq!(r2.simplify(vec![seven.clone(), t(3, 4)], false).len(), 2);
    }

    /// A relation between a tile coordinate and a parameter (the tiles'
    /// `T1 <= 2 cb`) drops the bound it implies: an inner tile loop of one
    /// iteration, `0 <= c <= min(0, 2 cb - T1)`, has one value.
    #[test]
    fn ranges_drop_bounds_the_tiles_relations_imply() {
        let cb = || Var::Param("cb".into());
        let mut r = Ranges::default();
        r.learn(&lin(0, &[(Var::Tile(1), 1)]), false);
        r.learn(&lin(0, &[(Var::Tile(1), -1), (cb(), 2)]), false);
        let zero = Frac::new(Lin::constant(0), 1, false).unwrap();
        let rest = Frac::new(lin(0, &[(Var::Tile(1), -1), (cb(), 2)]), 1, false).unwrap();
        assert_eq!(
            r.simplify(vec![zero.clone(), rest.clone()], false),
            vec![zero.clone()]
        );
        // One more than the relation allows stays: 2 cb - T1 - 1 may be -1.
        let less = Frac::new(lin(-1, &[(Var::Tile(1), -1), (cb(), 2)]), 1, false).unwrap();
        assert_eq!(r.simplify(vec![zero.clone(), less], false).len(), 2);
        // A relation with a statement's iterator is not the tiles'.
        let mut r2 = Ranges::default();
        r2.learn(&lin(0, &[(Var::Tile(1), -1), (Var::Iter(0), 2)]), false);
        assert!(r2.relations.is_empty());
    }

    /// One statement `S[T0, i0]` with `32 T0 <= i0 <= 32 T0 + 31`,
    /// `0 <= i0 <= 99`, and one band member `i0 + 2`.
    fn one_loop() -> Body {
        let c = |l: Lin| Con {
            lin: l,
            rel: Rel::Ge,
        };
        let i = Var::Iter(0);
        let t = Var::Tile(0);
        let stmts = vec![Stmt {
            name: "S".to_string(),
            n_iter: 1,
            cons: vec![
                c(lin(0, &[(i.clone(), 1), (t.clone(), -32)])),
                c(lin(31, &[(i.clone(), -1), (t.clone(), 32)])),
                c(lin(0, &[(i.clone(), 1)])),
                c(lin(99, &[(i.clone(), -1)])),
            ],
        }];
        let mut ranges = Ranges::default();
        ranges.learn(&lin(0, &[(t.clone(), 1)]), false);
        let member = BTreeMap::from([(
            0,
            Member {
                lin: lin(2, &[(i, 1)]),
                div: None,
            },
        )]);
        Body {
            depth: 1,
            n_tile: 1,
            stmts,
            tree: BNode::Band(vec![member], Box::new(BNode::Leaf)),
            ranges,
        }
    }

    #[test]
    fn a_loop_runs_over_the_members_values() {
        let body = one_loop();
        let tile = |_: usize| Ok(LoopExpr::Counter(0));
        let nodes = body.generate(&tile).unwrap();
        let [Node::For {
            init, cond, body, ..
        }] = &nodes[..]
        else {
            panic!("{nodes:?}")
        };
        // i0 >= 32 c0 (0 <= i0 dropped: c0 >= 0), value i0 + 2.
        let c0 = || Box::new(LoopExpr::Counter(0));
        let thirty_two_c0 = || LoopExpr::Op(BinOp::Mul, Box::new(LoopExpr::Int(32)), c0());
        assert_eq!(
            *init,
            LoopExpr::Op(
                BinOp::Add,
                Box::new(thirty_two_c0()),
                Box::new(LoopExpr::Int(2))
            )
        );
        let LoopExpr::Op(BinOp::Le, _, hi) = cond else {
            panic!("{cond:?}")
        };
        assert!(matches!(**hi, LoopExpr::Min(ref v) if v.len() == 2));
        let [Node::Stmt { stage, args }] = &body[..] else {
            panic!("{body:?}")
        };
        assert_eq!(stage, "S");
        assert_eq!(
            args[1],
            LoopExpr::Op(
                BinOp::Sub,
                Box::new(LoopExpr::Counter(1)),
                Box::new(LoopExpr::Int(2))
            )
        );
    }

    #[test]
    fn a_statement_without_a_member_is_refused() {
        let mut body = one_loop();
        body.tree = BNode::Band(vec![BTreeMap::new()], Box::new(BNode::Leaf));
        assert!(body.generate(&|_| Ok(LoopExpr::Counter(0))).is_err());
    }
}
