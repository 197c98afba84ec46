//! Shared-memory copies of what a classic tile reads more than once (the
//! CUDA target's `--tile`, [`Spread::Tiles2`]: PPCG's `gpu_group` and
//! `add_copies`, Verdoolaege et al., TACO 2013, §4.4 and §4.5, for the
//! stencil case).
//!
//! A block runs one tile: two tile loops (steps `T0`, `T1`) around two
//! point loops (`p0`, `p1`, step 1). A two-dimensional array that the
//! tile's statements read at several offsets `A[p0 + a][p1 + b]`, and do
//! not write, is copied at the start of each tile into a `__shared__`
//! buffer holding the box of those reads, `(T0 + a_max - a_min) x (T1 +
//! b_max - b_min)` elements from `(first p0 + a_min, first p1 + b_min)`,
//! by the block's threads together; a barrier follows, and the statements
//! read the buffer. Elements of the box outside the array's device buffer
//! are not loaded (no statement reads them). Copies are taken while they
//! fit [`super::SHARED_BYTES`], in the order of first access.

use super::device::DeviceData;
use crate::backend::c::{c_expr, expr, DataAccess};
use crate::backend::tree::{visit, LoopExpr, Node};
use crate::backend::Naming;
use crate::model::expr::Expr;
use crate::model::mdg::type_bytes;
use crate::model::program::{AccessKind, Stage};
use std::collections::{BTreeMap, BTreeSet};

/// One array's copy in a tile.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedCopy {
    /// The array's device buffer (index in [`DeviceData::arrays`]).
    pub buffer: usize,
    /// The data set.
    pub data: String,
    /// The smallest offset read along each dimension.
    pub low: [i64; 2],
    /// Elements along each dimension.
    pub extent: [i64; 2],
    /// Bytes of the copy.
    pub bytes: u64,
}

/// The copies of one classic-tile kernel, and how its statements read them.
pub struct TileCopies<'a> {
    device: &'a DeviceData,
    naming: &'a Naming,
    /// The copies.
    pub copies: Vec<SharedCopy>,
    /// The point loops' counters as the statements' values spell them.
    points: [String; 2],
    /// The point loops' first iterations (C text, over the tile counters).
    first: [String; 2],
}

/// The parts of a classic tile's kernel: tile steps, point loops' counters
/// and first iterations, and the statements inside.
struct TileShape<'a> {
    steps: [i64; 2],
    counters: [u32; 2],
    first: [&'a LoopExpr; 2],
    body: &'a [Node],
}

fn shape(kernel: &[Node]) -> Option<TileShape<'_>> {
    let [Node::For {
        inc: LoopExpr::Int(t0),
        body,
        ..
    }] = kernel
    else {
        return None;
    };
    let [Node::For {
        inc: LoopExpr::Int(t1),
        body,
        ..
    }] = body.as_slice()
    else {
        return None;
    };
    let [Node::For {
        iter: LoopExpr::Counter(p0),
        init: i0,
        inc: LoopExpr::Int(1),
        body,
        ..
    }] = body.as_slice()
    else {
        return None;
    };
    let [Node::For {
        iter: LoopExpr::Counter(p1),
        init: i1,
        inc: LoopExpr::Int(1),
        body,
        ..
    }] = body.as_slice()
    else {
        return None;
    };
    Some(TileShape {
        steps: [*t0, *t1],
        counters: [*p0, *p1],
        first: [i0, i1],
        body,
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

/// The offsets of a read `index` of a statement whose iterators are
/// `iterators` with values `args`, along the point loops `counters`: each
/// subscript the counter of its dimension's point loop plus a constant.
fn offsets(
    index: &[Expr],
    iterators: &[String],
    args: &[LoopExpr],
    counters: [u32; 2],
) -> Option<[i64; 2]> {
    let [i0, i1] = index else { return None };
    let mut out = [0; 2];
    for (d, e) in [i0, i1].into_iter().enumerate() {
        let (v, c) = var_plus(e)?;
        let k = iterators.iter().position(|i| *i == v)?;
        match args.get(k)? {
            LoopExpr::Counter(p) if *p == counters[d] => out[d] = c,
            _ => return None,
        }
    }
    Some(out)
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
            points: [String::new(), String::new()],
            first: [String::new(), String::new()],
        };
        let Some(tile) = shape(kernel) else {
            return out;
        };
        out.points = tile
            .counters
            .map(|c| expr::operand(&LoopExpr::Counter(c), naming));
        out.first = tile.first.map(|e| expr::text(e, naming));
        // Per data set read in the tile: its offsets, or None when some
        // access to it does not fit (or writes it).
        let mut reads: BTreeMap<String, Option<BTreeSet<[i64; 2]>>> = BTreeMap::new();
        let mut order: Vec<String> = Vec::new();
        let mut fits = true;
        visit(tile.body, &mut |n| {
            let Node::Stmt { stage, args } = n else {
                return;
            };
            let Some(accesses) = stages
                .iter()
                .find(|s| s.name == *stage)
                .and_then(|s| s.spelled().map(|a| (a, &s.iterators)))
            else {
                fits = false;
                return;
            };
            let (accesses, iterators) = accesses;
            for a in accesses {
                if !order.contains(&a.data) {
                    order.push(a.data.clone());
                }
                let entry = reads
                    .entry(a.data.clone())
                    .or_insert_with(|| Some(BTreeSet::new()));
                let off = match a.kind {
                    AccessKind::Read => offsets(&a.index, iterators, args, tile.counters),
                    AccessKind::Write => None,
                };
                match (entry.as_mut(), off) {
                    (Some(set), Some(o)) => {
                        set.insert(o);
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
            if set.len() < 2 || array.rank != 2 || array.gathered {
                continue;
            }
            let (Some(elem), Some(lo0), Some(hi0), Some(lo1), Some(hi1)) = (
                type_bytes(&array.element),
                set.iter().map(|o| o[0]).min(),
                set.iter().map(|o| o[0]).max(),
                set.iter().map(|o| o[1]).min(),
                set.iter().map(|o| o[1]).max(),
            ) else {
                continue;
            };
            let extent = [tile.steps[0] + hi0 - lo0, tile.steps[1] + hi1 - lo1];
            let size = u64::try_from(extent[0].saturating_mul(extent[1]))
                .unwrap_or(u64::MAX)
                .saturating_mul(elem);
            if bytes.saturating_add(size) > super::SHARED_BYTES {
                continue;
            }
            bytes += size;
            out.copies.push(SharedCopy {
                buffer,
                data,
                low: [lo0, lo1],
                extent,
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
        format!("({}) + ({})", self.first[d], c.low[d])
    }

    /// The buffers' `__shared__` declarations, one line each.
    pub fn declarations(&self, indent: &str) -> String {
        self.copies
            .iter()
            .map(|c| {
                let a = &self.device.arrays[c.buffer];
                format!(
                    "{indent}__shared__ {} {}[{}][{}]; /* '{}' of the tile, {} bytes */\n",
                    a.element,
                    self.name(c),
                    c.extent[0],
                    c.extent[1],
                    c.data,
                    c.bytes
                )
            })
            .collect()
    }

    /// The copies' loads by the block's threads, then a barrier: C lines at
    /// `indent` (inside the tile loops, before the point loops).
    pub fn loads(&self, indent: &str) -> String {
        if self.copies.is_empty() {
            return String::new();
        }
        let t = self.naming.counter_type();
        let p = &self.device.prefix;
        let (r, q, f) = (format!("{p}{p}r"), format!("{p}{p}q"), format!("{p}{p}f"));
        let mut out = String::new();
        for c in &self.copies {
            let k = c.buffer;
            let d = self.device;
            out.push_str(&format!(
                "{indent}for ({t} {r} = threadIdx.y; {r} < {}; {r} += blockDim.y)\n\
                 {indent}  for ({t} {q} = threadIdx.x; {q} < {}; {q} += blockDim.x) {{\n\
                 {indent}    const long long {f} = (long long)({} + {r}) * {} + (long long)({} + {q}) - {};\n\
                 {indent}    if ({f} >= 0 && {f} < {})\n\
                 {indent}      {}[{r}][{q}] = {}[{f}];\n\
                 {indent}  }}\n",
                c.extent[0],
                c.extent[1],
                self.origin(c, 0),
                d.stride(k, 0),
                self.origin(c, 1),
                d.first(k),
                d.count(k),
                self.name(c),
                d.pointer(k),
            ));
        }
        out.push_str(&format!("{indent}__syncthreads();\n"));
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
            let [i0, i1] = index else { return None };
            let mut subs = Vec::new();
            for (d, e) in [i0, i1].into_iter().enumerate() {
                let (v, _) = var_plus(e)?;
                let k = iterators.iter().position(|i| *i == v)?;
                if values.get(k)? != &self.points[d] {
                    return None;
                }
                let subst = |w: &str| (w == v).then(|| values[k].clone());
                subs.push(format!("({}) - ({})", c_expr(e, &subst), self.origin(c, d)));
            }
            Some(format!("{}[{}][{}]", self.name(c), subs[0], subs[1]))
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
    fn subscripts_are_a_point_counter_plus_a_constant() {
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
        let at = |a: Expr, b: Expr| offsets(&[a, b], &its, &args, [3, 4]);
        assert_eq!(at(Expr::sum(v("i"), Expr::Int(1)), v("j")), Some([1, 0]));
        assert_eq!(at(v("j"), v("i")), None, "transposed");
        assert_eq!(at(v("t"), v("j")), None, "not a point loop");
    }
}
