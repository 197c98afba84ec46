//! Shared-memory copies of what a classic tile reads more than once (the
//! CUDA target's `--tile`, [`Spread::Tiles2`]: PPCG's `gpu_group` and
//! `add_copies`, Verdoolaege et al., TACO 2013, §4.4 and §4.5, for arrays
//! read at constant offsets of the tile's loops, as stencils are).
//!
//! A block runs one tile: two tile loops (steps above 1) around the tile's
//! loops. A loop inside whose bounds use only the tile counters and the
//! parameters has a known first iteration in each tile and at most a known
//! number of iterations: constants (`0 <= c <= 2`), or a first iteration of
//! at least `t + a` and a last of at most `t + b` for a tile counter `t`.
//! An array that the tile's statements read, with each subscript either
//! such a loop's counter plus a constant (the same loop in every read) or
//! a constant, at two or more different offsets, and that they do not
//! write, is copied at the start of each tile into a `__shared__` buffer
//! holding the box of those reads: along a loop's dimension its iterations
//! plus the spread of the offsets, along a constant's the spread of the
//! constants (at least one dimension a loop's: an array read at constants
//! only is a table the caches serve). The block's threads load it together; a barrier follows, and
//! the statements read the buffer. Elements of the box outside the array's
//! device buffer are not loaded (no statement reads them). Copies are taken
//! while they fit [`super::SHARED_BYTES`], in the order of first access.

use super::device::DeviceData;
use super::tiles::FLAT_THREAD;
use crate::backend::c::{c_expr, expr, DataAccess};
use crate::backend::templates::SharedDecl;
use crate::backend::tree::{uses, visit, BinOp, LoopExpr, Node};
use crate::backend::Naming;
use crate::model::expr::Expr;
use crate::model::mdg::type_bytes;
use crate::model::program::{AccessKind, Stage};
use std::collections::{BTreeMap, BTreeSet};

/// One dimension of a copy.
#[derive(Clone, Debug, PartialEq)]
pub struct CopyDim {
    /// The loop whose counter subscripts this dimension, or none where the
    /// subscripts are constants.
    pub counter: Option<u32>,
    /// The smallest offset (or constant) read.
    pub low: i64,
    /// Elements along the dimension.
    pub extent: i64,
}

/// One array's copy in a tile.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedCopy {
    /// The array's device buffer (index in [`DeviceData::arrays`]).
    pub buffer: usize,
    /// The data set.
    pub data: String,
    /// Its dimensions, outermost first.
    pub dims: Vec<CopyDim>,
    /// Bytes of the copy.
    pub bytes: u64,
}

/// Where a loop inside a tile runs: its first iteration (C text over the
/// tile counters and the parameters) and at most how many iterations.
#[derive(Clone, Debug, PartialEq)]
struct Range {
    first: String,
    count: i64,
}

/// The copies of one classic-tile kernel, and how its statements read them.
pub struct TileCopies<'a> {
    device: &'a DeviceData,
    naming: &'a Naming,
    /// The copies.
    pub copies: Vec<SharedCopy>,
    /// The tile's loops with a known range, by counter.
    ranges: BTreeMap<u32, Range>,
}

/// The two tile loops' counters of a classic tile's kernel, and the code
/// inside them.
fn shape(kernel: &[Node]) -> Option<([u32; 2], &[Node])> {
    let (t0, body) = tile_loop(kernel)?;
    let (t1, body) = tile_loop(body)?;
    Some(([t0, t1], body))
}

/// `nodes` as one loop with a step above 1: its counter and body.
fn tile_loop(nodes: &[Node]) -> Option<(u32, &[Node])> {
    match nodes {
        [Node::For {
            iter: LoopExpr::Counter(t),
            inc: LoopExpr::Int(step),
            body,
            ..
        }] if *step > 1 => Some((*t, body.as_slice())),
        _ => None,
    }
}

/// `e` as a counter plus a constant.
fn counter_plus(e: &LoopExpr) -> Option<(u32, i64)> {
    match e {
        LoopExpr::Counter(t) => Some((*t, 0)),
        LoopExpr::Op(BinOp::Add, a, b) => match (&**a, &**b) {
            (LoopExpr::Counter(t), LoopExpr::Int(k)) | (LoopExpr::Int(k), LoopExpr::Counter(t)) => {
                Some((*t, *k))
            }
            _ => None,
        },
        LoopExpr::Op(BinOp::Sub, a, b) => match (&**a, &**b) {
            (LoopExpr::Counter(t), LoopExpr::Int(k)) => Some((*t, -*k)),
            _ => None,
        },
        _ => None,
    }
}

/// The range of loop `n` in one tile of the tile loops `tiles`, where its
/// bounds use only their counters and the parameters.
fn range(n: &Node, tiles: [u32; 2], naming: &Naming) -> Option<Range> {
    let Node::For {
        iter,
        init,
        cond: LoopExpr::Op(op, c, bound),
        inc: LoopExpr::Int(1),
        ..
    } = n
    else {
        return None;
    };
    if **c != *iter {
        return None;
    }
    let (mut used, mut names) = (BTreeSet::new(), BTreeSet::new());
    uses(init, &mut used, &mut names);
    uses(bound, &mut used, &mut names);
    if used.iter().any(|u| !tiles.contains(u)) {
        return None;
    }
    let strict = match op {
        BinOp::Le => 0,
        BinOp::Lt => 1,
        _ => return None,
    };
    let count = match (init, &**bound) {
        (LoopExpr::Int(a), LoopExpr::Int(b)) => b - strict - a + 1,
        _ => {
            // The greatest of the lower bounds is at least each of them, the
            // least of the upper bounds at most each of them.
            let terms = |e: &'_ LoopExpr, max: bool| -> Vec<(u32, i64)> {
                match (e, max) {
                    (LoopExpr::Max(v), true) | (LoopExpr::Min(v), false) => {
                        v.iter().filter_map(counter_plus).collect()
                    }
                    _ => counter_plus(e).into_iter().collect(),
                }
            };
            let (lows, highs) = (terms(init, true), terms(bound, false));
            lows.iter()
                .flat_map(|(t, a)| {
                    highs
                        .iter()
                        .filter(move |(u, _)| u == t)
                        .map(move |(_, b)| b - strict - a + 1)
                })
                .min()?
        }
    };
    (count >= 1).then(|| Range {
        first: expr::text(init, naming),
        count,
    })
}

/// `e` as `v + c` (the variable `v` with coefficient 1): `(v, c)`.
fn var_plus(e: &Expr) -> Option<(String, i64)> {
    let mut vars = BTreeSet::new();
    e.collect_vars(&mut vars);
    let vars: Vec<String> = vars.into_iter().collect();
    let [v] = vars.as_slice() else {
        return None;
    };
    let c = e.substitute(v, &Expr::Int(0)).constant()?;
    let one = e.substitute(v, &Expr::Int(1)).constant()?;
    (one == c + 1).then(|| (v.clone(), c))
}

/// How a read subscripts one dimension: a loop's counter plus a constant,
/// or a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Use {
    Loop(u32, i64),
    Const(i64),
}

/// How subscript `e` of a statement whose iterators are `iterators` with
/// values `args` reads, where it is a loop of `ranges` plus a constant or a
/// constant.
fn subscript_use(
    e: &Expr,
    iterators: &[String],
    args: &[LoopExpr],
    ranges: &BTreeMap<u32, Range>,
) -> Option<Use> {
    if let Some(c) = e.constant() {
        return Some(Use::Const(c));
    }
    let (v, c) = var_plus(e)?;
    let k = iterators.iter().position(|i| *i == v)?;
    match args.get(k)? {
        LoopExpr::Counter(p) if ranges.contains_key(p) => Some(Use::Loop(*p, c)),
        _ => None,
    }
}

/// The box along one dimension of the reads `uses` (each a read's use of
/// that dimension): one loop or constants throughout.
fn dimension(uses: &[Use], ranges: &BTreeMap<u32, Range>) -> Option<CopyDim> {
    let first = *uses.first()?;
    let mut offsets = Vec::new();
    for u in uses {
        match (first, *u) {
            (Use::Loop(p, _), Use::Loop(q, c)) if p == q => offsets.push(c),
            (Use::Const(_), Use::Const(c)) => offsets.push(c),
            _ => return None,
        }
    }
    let (low, high) = (*offsets.iter().min()?, *offsets.iter().max()?);
    Some(match first {
        Use::Loop(p, _) => CopyDim {
            counter: Some(p),
            low,
            extent: ranges.get(&p)?.count + high - low,
        },
        Use::Const(_) => CopyDim {
            counter: None,
            low,
            extent: high - low + 1,
        },
    })
}

impl<'a> TileCopies<'a> {
    /// The copies of the classic-tile kernel `kernel` (a
    /// [`super::map::Spread::Tiles2`] kernel's body) whose statements are
    /// `stages`; none where it is not a tile of that shape.
    pub fn plan(
        kernel: &'a [Node],
        stages: &[Stage],
        device: &'a DeviceData,
        naming: &'a Naming,
    ) -> TileCopies<'a> {
        let mut out = TileCopies {
            device,
            naming,
            copies: Vec::new(),
            ranges: BTreeMap::new(),
        };
        let Some((tiles, body)) = shape(kernel) else {
            return out;
        };
        // The loops inside, with their ranges (none for a counter whose
        // loops disagree).
        let mut ranges: BTreeMap<u32, Option<Range>> = BTreeMap::new();
        visit(body, &mut |n| {
            if let Node::For {
                iter: LoopExpr::Counter(p),
                ..
            } = n
            {
                let r = range(n, tiles, naming);
                let entry = ranges.entry(*p).or_insert_with(|| r.clone());
                if *entry != r {
                    *entry = None;
                }
            }
        });
        out.ranges = ranges
            .into_iter()
            .filter_map(|(p, r)| r.map(|r| (p, r)))
            .collect();
        // Per data set read in the tile: each read's uses of its
        // dimensions, or None when some access to it does not fit (or
        // writes it).
        let mut reads: BTreeMap<String, Option<BTreeSet<Vec<Use>>>> = BTreeMap::new();
        let mut order: Vec<String> = Vec::new();
        let mut fits = true;
        let ranges = &out.ranges;
        visit(body, &mut |n| {
            let Node::Stmt { stage, args } = n else {
                return;
            };
            let Some((accesses, iterators)) = stages
                .iter()
                .find(|s| s.name == *stage)
                .and_then(|s| s.spelled().map(|a| (a, &s.iterators)))
            else {
                fits = false;
                return;
            };
            for a in accesses {
                if !order.contains(&a.data) {
                    order.push(a.data.clone());
                }
                let entry = reads
                    .entry(a.data.clone())
                    .or_insert_with(|| Some(BTreeSet::new()));
                let read = match a.kind {
                    AccessKind::Read => a
                        .index
                        .iter()
                        .map(|e| subscript_use(e, iterators, args, ranges))
                        .collect::<Option<Vec<Use>>>(),
                    AccessKind::Write => None,
                };
                match (entry.as_mut(), read) {
                    (Some(set), Some(r)) => {
                        set.insert(r);
                    }
                    _ => *entry = None,
                }
            }
        });
        if !fits {
            return out;
        }
        let mut bytes = 0u64;
        for data in order {
            let Some(Some(set)) = reads.get(&data) else {
                continue;
            };
            let Some(buffer) = device.arrays.iter().position(|a| a.data == data) else {
                continue;
            };
            let array = &device.arrays[buffer];
            if set.len() < 2 || array.rank == 0 || array.gathered {
                continue;
            }
            let set: Vec<&Vec<Use>> = set.iter().collect();
            let dims: Option<Vec<CopyDim>> = (0..array.rank)
                .map(|d| {
                    let at: Option<Vec<Use>> = set.iter().map(|r| r.get(d).copied()).collect();
                    dimension(&at?, ranges)
                })
                .collect();
            let (Some(elem), Some(dims)) = (type_bytes(&array.element), dims) else {
                continue;
            };
            // Reads at constants only (a small table) are left to the
            // caches: a tile reuses nothing of its own there.
            if dims.iter().all(|d| d.counter.is_none()) {
                continue;
            }
            let size = dims
                .iter()
                .try_fold(elem, |b, d| b.checked_mul(u64::try_from(d.extent).ok()?))
                .unwrap_or(u64::MAX);
            if bytes.saturating_add(size) > super::SHARED_BYTES {
                continue;
            }
            bytes += size;
            out.copies.push(SharedCopy {
                buffer,
                data,
                dims,
                bytes: size,
            });
        }
        out
    }

    /// The name of copy `c`'s buffer.
    fn name(&self, c: &SharedCopy) -> String {
        format!("{0}{0}sh{1}", self.device.prefix, c.buffer)
    }

    /// The first element copy `c` holds along dimension `d` (C text).
    fn origin(&self, c: &SharedCopy, d: usize) -> String {
        let dim = &c.dims[d];
        match dim.counter.and_then(|p| self.ranges.get(&p)) {
            Some(r) => format!("({}) + ({})", r.first, dim.low),
            None => dim.low.to_string(),
        }
    }

    /// The buffers' `__shared__` declarations (`cuda/shared.cu.tera`).
    pub fn declarations(&self) -> Vec<SharedDecl> {
        self.copies
            .iter()
            .map(|c| SharedDecl {
                ty: self.device.arrays[c.buffer].element.clone(),
                name: self.name(c),
                dims: c.dims.iter().map(|d| format!("[{}]", d.extent)).collect(),
                what: format!("'{}' of the tile, {} bytes", c.data, c.bytes),
                per_warp: None,
            })
            .collect()
    }

    /// The copies' loads by the block's threads, then a barrier: C lines at
    /// `indent` (inside the tile loops, before the point loops). The
    /// innermost dimension goes along the threads' `x`, the others, as one,
    /// along `y`.
    pub fn loads(&self, indent: &str, barrier: &str) -> String {
        if self.copies.is_empty() {
            return String::new();
        }
        let t = self.naming.counter_type();
        let p = &self.device.prefix;
        let (r, q, f) = (format!("{p}{p}r"), format!("{p}{p}q"), format!("{p}{p}f"));
        let mut out = String::new();
        for c in &self.copies {
            let (k, d) = (c.buffer, self.device);
            let Some((last, outer)) = c.dims.split_last() else {
                continue;
            };
            let n = outer.len();
            // The outer dimensions' indices, from the row number.
            let mut index: Vec<String> = Vec::new();
            let mut below: i64 = 1;
            for e in (0..n).rev() {
                index.push(match (e, below) {
                    (0, 1) => r.clone(),
                    (0, m) => format!("{r} / {m}"),
                    (_, 1) => format!("{r} % {}", outer[e].extent),
                    (_, m) => format!("{r} / {m} % {}", outer[e].extent),
                });
                below = below.saturating_mul(outer[e].extent);
            }
            index.reverse();
            let rows = below;
            let offset: String = (0..n)
                .map(|e| {
                    format!(
                        "(long long)({} + {}) * {} + ",
                        self.origin(c, e),
                        wrap(&index[e]),
                        d.stride(k, e)
                    )
                })
                .collect();
            let target: String = index.iter().map(|i| format!("[{i}]")).collect();
            let (qi, qn, inner) = match n {
                0 => (FLAT_THREAD.0, FLAT_THREAD.1, indent.to_string()),
                _ => ("threadIdx.x", "blockDim.x", format!("{indent}  ")),
            };
            if n > 0 {
                out.push_str(&format!(
                    "{indent}for ({t} {r} = threadIdx.y; {r} < {rows}; {r} += blockDim.y)\n"
                ));
            }
            out.push_str(&format!(
                "{inner}for ({t} {q} = {qi}; {q} < {}; {q} += {qn}) {{\n\
                 {inner}  const long long {f} = {offset}(long long)({} + {q}) - {};\n\
                 {inner}  if ({f} >= 0 && {f} < {})\n\
                 {inner}    {}{target}[{q}] = {}[{f}];\n\
                 {inner}}}\n",
                last.extent,
                self.origin(c, n),
                d.first(k),
                d.count(k),
                self.name(c),
                d.pointer(k),
            ));
        }
        out.push_str(&format!("{indent}{barrier}\n"));
        out
    }

    /// Whether buffer `k`'s element count is a parameter of the kernel.
    pub fn counts(&self) -> BTreeSet<usize> {
        self.copies.iter().map(|c| c.buffer).collect()
    }

    /// Bytes of shared memory the copies take.
    pub fn bytes(&self) -> u64 {
        self.copies.iter().map(|c| c.bytes).sum()
    }
}

/// `i` as an operand of `+`: a bare name, or parenthesised.
fn wrap(i: &str) -> String {
    match i.contains(' ') {
        true => format!("({i})"),
        false => i.to_string(),
    }
}

impl DataAccess for TileCopies<'_> {
    fn element(
        &self,
        data: &str,
        index: &[Expr],
        iterators: &[String],
        values: &[String],
    ) -> String {
        let copy = self.copies.iter().find(|c| c.data == data);
        let fits = |c: &SharedCopy| -> Option<String> {
            if index.len() != c.dims.len() {
                return None;
            }
            let mut subs = String::new();
            for (d, (e, dim)) in index.iter().zip(&c.dims).enumerate() {
                let sub = match dim.counter {
                    Some(p) => {
                        let (v, _) = var_plus(e)?;
                        let k = iterators.iter().position(|i| *i == v)?;
                        let counter = expr::operand(&LoopExpr::Counter(p), self.naming);
                        if *values.get(k)? != counter {
                            return None;
                        }
                        let subst = |w: &str| (w == v).then(|| values[k].clone());
                        format!("({}) - ({})", c_expr(e, &subst), self.origin(c, d))
                    }
                    None => (e.constant()? - dim.low).to_string(),
                };
                subs.push_str(&format!("[{sub}]"));
            }
            Some(format!("{}{subs}", self.name(c)))
        };
        match copy.and_then(fits) {
            Some(s) => s,
            None => self.device.element(data, index, iterators, values),
        }
    }

    fn gather(&self, data: &str, subscripts: &[String]) -> String {
        self.device.gather(data, subscripts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(n: &str) -> Expr {
        Expr::Var(n.into())
    }

    #[test]
    fn subscripts_are_a_loop_counter_plus_a_constant_or_a_constant() {
        assert_eq!(
            var_plus(&Expr::sum(v("i"), Expr::Int(-1))),
            Some(("i".to_string(), -1))
        );
        assert_eq!(var_plus(&v("j")), Some(("j".to_string(), 0)));
        assert_eq!(var_plus(&Expr::product(Expr::Int(2), v("i"))), None);
        assert_eq!(var_plus(&Expr::sum(v("i"), v("j"))), None);
        assert_eq!(var_plus(&Expr::Int(3)), None);
        let its = ["t".to_string(), "i".to_string(), "j".to_string()];
        let args = [
            LoopExpr::Counter(0),
            LoopExpr::Counter(3),
            LoopExpr::Counter(4),
        ];
        let range = |count| Range {
            first: "c1".into(),
            count,
        };
        let ranges = BTreeMap::from([(3, range(32)), (4, range(3))]);
        let at = |e: Expr| subscript_use(&e, &its, &args, &ranges);
        assert_eq!(at(Expr::sum(v("i"), Expr::Int(1))), Some(Use::Loop(3, 1)));
        assert_eq!(at(Expr::Int(2)), Some(Use::Const(2)));
        assert_eq!(at(v("t")), None, "a loop without a known range");
        assert_eq!(at(Expr::product(Expr::Int(2), v("j"))), None);
        // Boxes: one loop throughout, or constants throughout.
        let dim = |u: &[Use]| dimension(u, &ranges);
        assert_eq!(
            dim(&[Use::Loop(3, -1), Use::Loop(3, 2), Use::Loop(3, 0)]),
            Some(CopyDim {
                counter: Some(3),
                low: -1,
                extent: 35
            })
        );
        assert_eq!(
            dim(&[Use::Const(2), Use::Const(0)]),
            Some(CopyDim {
                counter: None,
                low: 0,
                extent: 3
            })
        );
        assert_eq!(dim(&[Use::Loop(3, 0), Use::Loop(4, 0)]), None, "two loops");
        assert_eq!(
            dim(&[Use::Loop(3, 0), Use::Const(0)]),
            None,
            "loop and constant"
        );
    }

    fn op(o: BinOp, a: LoopExpr, b: LoopExpr) -> LoopExpr {
        LoopExpr::Op(o, Box::new(a), Box::new(b))
    }

    fn for_loop(counter: u32, init: LoopExpr, cond: LoopExpr) -> Node {
        Node::For {
            iter: LoopExpr::Counter(counter),
            init,
            cond,
            inc: LoopExpr::Int(1),
            body: Vec::new(),
            parallel: false,
            simd: false,
            independent: true,
        }
    }

    #[test]
    fn a_loop_in_a_tile_runs_a_known_range() {
        let naming = Naming {
            counter: "c".into(),
            helper: "ft_".into(),
            wide: false,
        };
        let c = LoopExpr::Counter;
        let p = || LoopExpr::Param("R".into());
        // max(2, c1) <= c4 <= min(R + 1, c1 + 31): 32 iterations at most.
        let point = for_loop(
            4,
            LoopExpr::Max(vec![LoopExpr::Int(2), c(1)]),
            op(
                BinOp::Le,
                c(4),
                LoopExpr::Min(vec![
                    op(BinOp::Add, p(), LoopExpr::Int(1)),
                    op(BinOp::Add, c(1), LoopExpr::Int(31)),
                ]),
            ),
        );
        let r = range(&point, [1, 2], &naming).expect("a point loop's range");
        assert_eq!(r.count, 32);
        assert_eq!(r.first, "ft_max(2, c1)");
        // 0 <= c3 < 3.
        let channels = for_loop(3, LoopExpr::Int(0), op(BinOp::Lt, c(3), LoopExpr::Int(3)));
        assert_eq!(range(&channels, [1, 2], &naming).map(|r| r.count), Some(3));
        // Bounds on another loop's counter, or on no tile counter.
        let inner = for_loop(
            5,
            c(3),
            op(BinOp::Le, c(5), op(BinOp::Add, c(3), LoopExpr::Int(7))),
        );
        assert_eq!(range(&inner, [1, 2], &naming), None);
        let open = for_loop(5, c(1), op(BinOp::Le, c(5), p()));
        assert_eq!(range(&open, [1, 2], &naming), None);
    }
}
