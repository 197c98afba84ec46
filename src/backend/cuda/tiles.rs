//! A kernel's overlapped tiles at block level (Zhao & Cohen's (TACO'19) GPU mapping):
//! tile loops over the grid's blocks, a tile's scratchpads `__shared__`,
//! its stages' independent loops over the block's threads with a barrier
//! between stages; with `--gpu-tiling warp`, one tile per warp instead
//! (Jangda & Guha, PACT'20, §4: scratchpads per warp, stages over its lanes,
//! `__syncwarp`). A classic tile's point loops (`--tile`) print the same
//! way, after its shared-memory copies.

use super::map::{holds_tiles, Spread};
use super::print::{strided_loop, CudaRegion, INDENT};
use super::shared::TileCopies;
use crate::backend::c::{expr, CPrinter};
use crate::backend::tree::{any_node, LoopExpr, Node};
use crate::backend::{Naming, Templates};
use crate::diag::{Error, Result};
use crate::model::storage::Placement;
use crate::transform::gpu_cost::{warp_x, warps_per_block};

/// Prints the overlapped tiles of a kernel: tile loops over the grid's
/// blocks, each tile's code at block level (see [`Tiles::block_level`]).
pub(super) struct Tiles<'a> {
    pub(super) printer: &'a CPrinter<'a>,
    pub(super) naming: &'a Naming,
    pub(super) cuda: &'a CudaRegion<'a>,
    /// What each tile loads into shared memory first (a classic tile's
    /// copies; none for overlapped tiles, whose loads are statements).
    pub(super) prologue: &'a TileCopies<'a>,
    /// With `--gpu-tiling warp`, the block's warps, each running its own
    /// tiles; otherwise the block runs one tile at a time.
    pub(super) warps: Option<Warps>,
    pub(super) templates: &'a Templates,
    /// The barriers of a block's threads and of a warp's (`cuda/barrier.cu.tera`).
    pub(super) barriers: &'a [String; 2],
}

/// The warps of a block that run one overlapped tile each (Jangda & Guha, PACT'20, §4):
/// a warp's lanes lie `x` wide along a tile's innermost spread loop
/// (`W_x = min(B_x, 32)`, rounded down to a divisor of 32) and `32 / x`
/// along the next; a block holds as many warps as `--block-sizes` asks
/// for, fewer where their scratchpads would not fit shared memory.
#[derive(Clone, Debug)]
pub(super) struct Warps {
    /// Warps per block.
    pub(super) count: u32,
    /// Lanes along `x`.
    x: u32,
    /// The C names of the thread's warp in the block, and lane in the warp.
    warp: String,
    lane: String,
}

impl Warps {
    /// The warps of a block of `block` threads whose tiles' scratchpads take
    /// `bytes` each (unknown: as many as asked; the declarations refuse).
    pub(super) fn new(block: [u32; 2], bytes: Option<u64>, prefix: &str) -> Warps {
        Warps {
            count: warps_per_block(block, bytes),
            x: warp_x(block[0]),
            warp: format!("{prefix}{prefix}warp"),
            lane: format!("{prefix}{prefix}lane"),
        }
    }

    /// The block: `x` lanes wide, the warps stacked along `y`.
    pub(super) fn block(&self) -> [u32; 2] {
        [self.x, super::WARP_SIZE / self.x * self.count]
    }

    /// The C names of the thread's warp and lane, and the warp size, which
    /// the kernel's template declares (from the flat thread index).
    pub(super) fn ids(&self) -> (String, String, u32) {
        (self.warp.clone(), self.lane.clone(), super::WARP_SIZE)
    }
}

/// The threads of a block in one dimension (`y * blockDim.x + x`), and
/// their number.
pub(super) const FLAT_THREAD: (&str, &str) = (
    "threadIdx.y * blockDim.x + threadIdx.x",
    "blockDim.x * blockDim.y",
);

impl Tiles<'_> {
    /// The barrier between a tile's stages: its block's, or its warp's.
    fn barrier(&self) -> &str {
        &self.barriers[usize::from(self.warps.is_some())]
    }

    /// The kernel's tile loop `n` over the blocks along `x` (with
    /// [`Spread::Blocks2`], along `y`, and the tile loop inside it along
    /// `x`); the tiles' code at block level.
    pub(super) fn blocks(
        &self,
        n: &Node,
        spread: Spread,
        indent: &str,
        out: &mut String,
    ) -> Result<()> {
        let axis = if spread == Spread::Blocks2 { "y" } else { "x" };
        let (index, count) = match (&self.warps, axis) {
            (Some(w), "x") => (
                format!("blockIdx.x * {} + {}", w.count, w.warp),
                format!("gridDim.x * {}", w.count),
            ),
            _ => (format!("blockIdx.{axis}"), format!("gridDim.{axis}")),
        };
        let naming = self.naming;
        strided_loop(
            n,
            (&index, &count),
            naming,
            indent,
            out,
            &mut |body, inner, out| match (spread, body) {
                (Spread::Blocks2, [m @ Node::For { .. }]) => {
                    self.blocks(m, Spread::Blocks1, inner, out)
                }
                _ => {
                    out.push_str(&self.prologue.loads(inner, &self.barriers[0]));
                    self.block_level(body, inner, out)
                }
            },
        )
    }

    /// Code every thread of a block runs alike (its loops' bounds and
    /// guards depend on the tile and the parameters only): a tile's
    /// scratchpads declared `__shared__`; a loop that carries no
    /// dependence between the tile's instances spread over the threads (two
    /// such loops nested: over `y` and `x`); a loop that carries one run by
    /// all threads together, its body at block level; code with no
    /// independent loop run by the block's first thread. A barrier follows
    /// each piece of spread or single-thread work, so that whatever a
    /// later piece reads is written.
    fn block_level(&self, nodes: &[Node], indent: &str, out: &mut String) -> Result<()> {
        let inner = format!("{indent}{INDENT}");
        let text = |e: &LoopExpr| expr::text(e, self.naming);
        for n in nodes {
            match n {
                Node::Buffers {
                    at: Placement::Tile { group },
                    body,
                } => {
                    let per_warp = self.warps.as_ref().map(|w| (w.count, w.warp.as_str()));
                    let decls = self.printer.shared_tile_declarations(*group, per_warp);
                    let decls = decls.map_err(|_| self.too_big(*group))?;
                    let decls = decls
                        .iter()
                        .map(|d| self.templates.shared(&inner, d))
                        .collect::<Result<String>>()?;
                    out.push_str(&format!("{indent}{{\n{decls}"));
                    self.block_level(body, &inner, out)?;
                    self.registers(*group, body, &inner, out)?;
                    out.push_str(&format!("{indent}}}\n"));
                }
                Node::Buffers { .. } => {
                    return Err(Error::at(
                        self.cuda.region.pragma_span,
                        "the CUDA target has no device placement for a buffer scope inside an overlapped tile yet",
                    ))
                }
                Node::For {
                    independent: true,
                    ..
                } if !holds_tiles(n) => {
                    self.threads(n, indent, out)?;
                    out.push_str(&format!("{indent}{}\n", self.barrier()));
                }
                Node::For {
                    iter,
                    init,
                    cond,
                    inc,
                    body,
                    ..
                } if holds_tiles(n) || body.iter().any(has_independent) => {
                    let header = expr::for_header(iter, init, cond, inc, self.naming);
                    out.push_str(&format!("{indent}{header}\n"));
                    self.block_level(body, &inner, out)?;
                    out.push_str(&format!("{indent}}}\n"));
                }
                Node::If { cond, then, els } => {
                    out.push_str(&format!("{indent}if ({}) {{\n", text(cond)));
                    self.block_level(then, &inner, out)?;
                    if let Some(e) = els {
                        out.push_str(&format!("{indent}}} else {{\n"));
                        self.block_level(e, &inner, out)?;
                    }
                    out.push_str(&format!("{indent}}}\n"));
                }
                Node::For { .. } | Node::Stmt { .. } => {
                    let first = match &self.warps {
                        Some(w) => format!("{} == 0", w.lane),
                        None => "threadIdx.x == 0 && threadIdx.y == 0".to_string(),
                    };
                    out.push_str(&format!("{indent}if ({first}) {{\n"));
                    self.printer.print(std::slice::from_ref(n), &inner, out)?;
                    out.push_str(&format!("{indent}}}\n{indent}{}\n", self.barrier()));
                }
            }
        }
        Ok(())
    }

    /// A perfect nest of independent loops from `n` down, spread over the
    /// block's threads (a warp's lanes): its innermost two loops along `y`
    /// and `x`, adjacent threads on the innermost, so that they touch
    /// adjacent elements, leaving aside loops of fewer than [`SMALL_TRIP`]
    /// iterations known at compile time (an image's channels) unless only
    /// one loop is left, which then gets the innermost such loop around it
    /// along `y`; a lone loop over all the threads, and a warp whose lanes
    /// lie along `x` alone only the innermost loop. The nest's other loops
    /// run in each thread. No loop of the nest carries a dependence, so no
    /// two of its iterations depend on each other and any spread is correct.
    fn threads(&self, n: &Node, indent: &str, out: &mut String) -> Result<()> {
        let chain = independent_chain(n);
        let small = |l: &Node| const_trip(l).is_some_and(|t| t < SMALL_TRIP);
        let wide: Vec<usize> = (0..chain.len()).filter(|&i| !small(chain[i])).collect();
        // A warp whose lanes lie along x alone spreads one loop.
        let along = match &self.warps {
            Some(w) if w.x == super::WARP_SIZE => 1,
            _ => 2,
        };
        let spread: Vec<usize> = match (wide.as_slice(), along) {
            (w, _) if w.len() >= along => w[w.len() - along..].to_vec(),
            // One wide loop: along y the innermost small loop around it,
            // if any.
            ([k], 2) => match k.checked_sub(1) {
                Some(y) => vec![y, *k],
                None => vec![*k],
            },
            _ => (chain.len().saturating_sub(along)..chain.len()).collect(),
        };
        let axis = |i: &str, n: &str| Some((i.to_string(), n.to_string()));
        let mut axes: Vec<Option<(String, String)>> = vec![None; chain.len()];
        match (spread.as_slice(), &self.warps) {
            ([k], None) => axes[*k] = axis(FLAT_THREAD.0, FLAT_THREAD.1),
            ([y, x], None) => {
                axes[*y] = axis("threadIdx.y", "blockDim.y");
                axes[*x] = axis("threadIdx.x", "blockDim.x");
            }
            ([k], Some(w)) => axes[*k] = axis(&w.lane, &super::WARP_SIZE.to_string()),
            ([y, x], Some(w)) => {
                let rows = (super::WARP_SIZE / w.x).to_string();
                axes[*y] = axis(&format!("{} / {}", w.lane, w.x), &rows);
                axes[*x] = axis(&format!("{} % {}", w.lane, w.x), &w.x.to_string());
            }
            _ => return Err(Error::internal("an independent nest without loops")),
        }
        self.nest(&chain, &axes, indent, out)
    }

    /// Prints the nest `chain` (each loop the whole body of the one before),
    /// the loops with an axis shared out along it, the others whole.
    fn nest(
        &self,
        chain: &[&Node],
        axes: &[Option<(String, String)>],
        indent: &str,
        out: &mut String,
    ) -> Result<()> {
        let (Some((first, rest)), Some((axis, axes))) = (chain.split_first(), axes.split_first())
        else {
            return Err(Error::internal("an empty loop nest"));
        };
        let (naming, printer) = (self.naming, self.printer);
        let mut inside = |body: &[Node], inner: &str, out: &mut String| match rest.is_empty() {
            true => printer.print(body, inner, out),
            false => self.nest(rest, axes, inner, out),
        };
        match axis {
            Some((i, n)) => strided_loop(first, (i, n), naming, indent, out, &mut inside),
            None => {
                let Node::For {
                    iter,
                    init,
                    cond,
                    inc,
                    body,
                    ..
                } = first
                else {
                    return Err(Error::internal("a loop nest holds a non-loop"));
                };
                let header = expr::for_header(iter, init, cond, inc, naming);
                out.push_str(&format!("{indent}{header}\n"));
                inside(body, &format!("{indent}{INDENT}"), out)?;
                out.push_str(&format!("{indent}}}\n"));
                Ok(())
            }
        }
    }

    /// A hybrid tile's register parts (`registers.rs`), after its
    /// shared-memory part `body`, and the warp's barrier before its next
    /// tile overwrites the scratchpads they read.
    fn registers(&self, group: usize, body: &[Node], indent: &str, out: &mut String) -> Result<()> {
        let Some(plan) = self.printer.storage() else {
            return Ok(());
        };
        let Some(regs) = plan.groups.get(group).and_then(|g| g.registers.as_ref()) else {
            return Ok(());
        };
        let Some(w) = self.warps.as_ref().filter(|w| w.x == super::WARP_SIZE) else {
            return Err(Error::internal(
                "hybrid tiles outside a warp whose lanes lie along x",
            ));
        };
        let hybrid = super::registers::Hybrid {
            printer: self.printer,
            plan,
            group,
            regs,
            names: super::registers::Names {
                prefix: &self.cuda.device.prefix,
                lane: &w.lane,
            },
            naming: self.naming,
        };
        super::registers::print(&hybrid, body, indent, out)?;
        out.push_str(&format!("{indent}{}\n", self.barriers[1]));
        Ok(())
    }

    /// The refusal of a group whose scratchpads do not fit a block's
    /// static shared memory.
    fn too_big(&self, group: usize) -> Error {
        let bytes = self
            .printer
            .tile_bytes(group)
            .map_or("an unknown number of".to_string(), |b| b.to_string());
        Error::at(
            self.cuda.region.pragma_span,
            format!(
                "the scratchpads of an overlapped tile take {bytes} bytes, more than a CUDA thread block's {} bytes of static shared memory; give smaller --tile-sizes",
                super::SHARED_BYTES
            ),
        )
    }
}

/// Loops with fewer iterations than this, known at compile time, are not
/// spread over a block's threads when the nest has others.
const SMALL_TRIP: i64 = 8;

/// The loops of the perfect nest of independent loops that starts at `n`.
fn independent_chain(n: &Node) -> Vec<&Node> {
    let mut chain = vec![n];
    let mut at = n;
    while let Node::For { body, .. } = at {
        match body.as_slice() {
            [m @ Node::For {
                independent: true, ..
            }] => {
                chain.push(m);
                at = m;
            }
            _ => break,
        }
    }
    chain
}

/// The iterations of loop `n` when its bounds are constants.
fn const_trip(n: &Node) -> Option<i64> {
    let Node::For {
        iter,
        init: LoopExpr::Int(a),
        cond: LoopExpr::Op(op, c, b),
        inc: LoopExpr::Int(1),
        ..
    } = n
    else {
        return None;
    };
    let LoopExpr::Int(b) = **b else { return None };
    if **c != *iter {
        return None;
    }
    match op {
        crate::backend::tree::BinOp::Le => Some(b - a + 1),
        crate::backend::tree::BinOp::Lt => Some(b - a),
        _ => None,
    }
}

/// Whether `n` is or holds a loop marked independent.
fn has_independent(n: &Node) -> bool {
    any_node(n, &|k| {
        matches!(
            k,
            Node::For {
                independent: true,
                ..
            }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::Warps;

    #[test]
    fn a_block_holds_the_warps_that_fit() {
        // 32x8 threads: 8 warps of 32 lanes along x, stacked along y.
        let w = Warps::new([32, 8], Some(4000), "ft_");
        assert_eq!((w.count, w.x, w.block()), (8, 32, [32, 8]));
        assert_eq!(w.warp, "ft_ft_warp");
        // 12000 bytes of scratchpads per tile: 4 tiles fit 48 KiB.
        assert_eq!(Warps::new([32, 8], Some(12000), "ft_").count, 4);
        // Too large for one: still one (the declarations refuse it).
        assert_eq!(Warps::new([32, 8], Some(60000), "ft_").count, 1);
        // 16 lanes along x, 2 rows of them per warp; 24 along x rounds
        // down to a divisor of 32; a block of 48 threads pads to 2 warps.
        let w = Warps::new([16, 16], None, "ft_");
        assert_eq!((w.count, w.x, w.block()), (8, 16, [16, 16]));
        assert_eq!(Warps::new([24, 4], Some(0), "ft_").x, 16);
        assert_eq!(Warps::new([48, 1], Some(0), "ft_").count, 2);
    }
}
