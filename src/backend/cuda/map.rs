//! The CUDA target's mapping of a region's loop tree onto the GPU: which
//! loops stay on the host, which become kernels, and how a kernel's
//! iterations are spread over blocks and threads (PPCG's default mapping,
//! Verdoolaege et al., TACO 2013, §4: the outermost parallel loops to the
//! grid, without its shared-memory tiles yet).
//!
//! - The outermost loop marked parallel becomes a kernel. Its iterations go
//!   to the threads of the grid, in a grid-stride loop, so that any grid
//!   size is correct and the grid is only a matter of speed. When its body
//!   is one loop that carries no dependence either (parallel, or marked for
//!   SIMD: no dependence between its iterations), the two are spread over a
//!   two-dimensional grid, the inner loop over `x` (adjacent threads then
//!   touch adjacent elements).
//! - Classic tiles (`--tile`; PPCG's mapping): when the kernel's loop and
//!   the one inside it are tile loops (steps above 1) and the tile's two
//!   point loops carry no dependence either (`transform::threads` marks
//!   them), the tile loops go to the grid's blocks and the point loops to
//!   each block's threads ([`Spread::Tiles2`]).
//! - A serial loop that holds parallel loops stays on the host and launches
//!   their kernels in each iteration; so does a guard around them.
//! - Code with no parallel loop in it runs in a kernel of one thread (the
//!   data stay on the device; the report says so).
//! - Overlapped tiles (Zhao & Cohen, TACO'19, its GPU mapping): a parallel tile loop
//!   becomes a kernel whose tiles go to the grid's blocks, one tile per
//!   block at a time (the inner tile loop too, along `x`, when it is
//!   parallel); inside a tile, `print` spreads each stage's independent
//!   point loops over the block's threads, with a barrier between stages.

use crate::backend::tree::{any_node, LoopExpr, Node};
use crate::diag::{Diagnostic, Error, Result};
use crate::model::storage::Placement;

/// A node of a region's host code.
#[derive(Clone, Debug, PartialEq)]
pub enum Host {
    /// A serial loop on the host (its fields as in [`Node::For`]).
    For {
        /// The loop's counter.
        iter: LoopExpr,
        /// Initial value.
        init: LoopExpr,
        /// Loop condition.
        cond: LoopExpr,
        /// Increment.
        inc: LoopExpr,
        /// What each iteration runs.
        body: Vec<Host>,
    },
    /// A guard on the host.
    If {
        /// Condition.
        cond: LoopExpr,
        /// Then branch.
        then: Vec<Host>,
        /// Else branch, if any.
        els: Option<Vec<Host>>,
    },
    /// The launch of kernel number `k` of the region.
    Launch(usize),
}

/// How a kernel's work is spread over the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spread {
    /// One thread runs all of it (no parallel loop).
    Single,
    /// The iterations of its loop over the grid's threads along `x`.
    Threads1,
    /// Its loop along `y`, the loop inside it along `x`.
    Threads2,
    /// Its loop serial in each thread, the two independent loops nested in
    /// it along `y` and `x` (the innermost two of three: adjacent threads
    /// touch adjacent elements, as for an image's channels, rows, columns).
    Inner2,
    /// Its (tile) loop over the grid's blocks along `x`; one tile per block.
    Blocks1,
    /// Its tile loop over the blocks along `y`, the tile loop inside it
    /// along `x`.
    Blocks2,
    /// A classic tile's two tile loops (steps above 1) and its two point
    /// loops, all without dependences (PPCG's mapping): the tile loops over
    /// the blocks (`y`, `x`), the point loops over each block's threads.
    Tiles2,
}

/// One kernel: its code and how it is spread.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// How its work is spread over the grid.
    pub spread: Spread,
    /// Its code: for [`Spread::Threads1`] and [`Spread::Threads2`], the one
    /// parallel loop (its `parallel` and `simd` marks cleared below it).
    pub body: Vec<Node>,
}

/// Splits `nodes` (a region's loop tree) into host code and kernels.
pub fn map(nodes: Vec<Node>) -> Result<(Vec<Host>, Vec<Kernel>)> {
    let mut kernels = Vec::new();
    let host = sequence(nodes, &mut kernels)?;
    Ok((host, kernels))
}

/// The host code of a sequence of nodes; consecutive nodes without a
/// parallel loop share one single-thread kernel.
fn sequence(nodes: Vec<Node>, kernels: &mut Vec<Kernel>) -> Result<Vec<Host>> {
    let mut host = Vec::new();
    let mut single: Vec<Node> = Vec::new();
    let flush = |single: &mut Vec<Node>, host: &mut Vec<Host>, kernels: &mut Vec<Kernel>| {
        if !single.is_empty() {
            host.push(Host::Launch(kernels.len()));
            kernels.push(Kernel {
                spread: Spread::Single,
                body: std::mem::take(single).into_iter().map(serial).collect(),
            });
        }
    };
    for n in nodes {
        if !has_parallel(&n) {
            if holds_tiles(&n) {
                // A group whose tile loop has a single iteration (a nest
                // narrower than one tile) keeps no loop to spread over
                // blocks; the driver compiles the region without
                // overlapped tiling and says so.
                return Err(Error::inapplicable(Diagnostic::error_global(
                    "the CUDA target has no mapping for an overlapped group whose tiles leave no parallel loop (a nest narrower than one tile)",
                )));
            }
            single.push(n);
            continue;
        }
        flush(&mut single, &mut host, kernels);
        match n {
            Node::For {
                parallel: true,
                iter,
                init,
                cond,
                inc,
                body,
                ..
            } => {
                let two = matches!(body.as_slice(), [m] if independent_loop(m));
                let three = matches!(
                    body.as_slice(),
                    [Node::For { body: inner, .. }] if two && matches!(inner.as_slice(), [k] if independent_loop(k))
                );
                // A classic tile: two tile loops (steps of a tile's size)
                // around two point loops, all without dependences.
                let tile_step = |inc: &LoopExpr| !matches!(inc, LoopExpr::Int(1));
                let four = three
                    && tile_step(&inc)
                    && matches!(
                        body.as_slice(),
                        [Node::For { body: b2, inc: i2, .. }] if tile_step(i2) && matches!(
                            b2.as_slice(),
                            [Node::For { body: b3, .. }] if matches!(b3.as_slice(), [k] if independent_loop(k))
                        )
                    );
                let tiles = body.iter().any(holds_tiles);
                host.push(Host::Launch(kernels.len()));
                kernels.push(Kernel {
                    spread: match (tiles, two, three) {
                        (false, _, true) if four => Spread::Tiles2,
                        (false, _, true) => Spread::Inner2,
                        (false, false, _) => Spread::Threads1,
                        (false, true, _) => Spread::Threads2,
                        (true, false, _) => Spread::Blocks1,
                        (true, true, _) => Spread::Blocks2,
                    },
                    body: vec![Node::For {
                        iter,
                        init,
                        cond,
                        inc,
                        body: body.into_iter().map(serial).collect(),
                        parallel: true,
                        simd: false,
                        independent: true,
                    }],
                });
            }
            Node::For {
                iter,
                init,
                cond,
                inc,
                body,
                ..
            } => host.push(Host::For {
                iter,
                init,
                cond,
                inc,
                body: sequence(body, kernels)?,
            }),
            Node::If { cond, then, els } => host.push(Host::If {
                cond,
                then: sequence(then, kernels)?,
                els: els.map(|e| sequence(e, kernels)).transpose()?,
            }),
            Node::Buffers { .. } => {
                return Err(Error::internal(
                    "the CUDA target does not place buffer scopes around parallel loops yet",
                ))
            }
            Node::Stmt { .. } => return Err(Error::internal("a statement holds a parallel loop")),
        }
    }
    flush(&mut single, &mut host, kernels);
    Ok(host)
}

/// Whether `n` is or holds an overlapped tile (its buffers' scope).
pub fn holds_tiles(n: &Node) -> bool {
    any_node(n, &|k| {
        matches!(
            k,
            Node::Buffers {
                at: Placement::Tile { .. },
                ..
            }
        )
    })
}

/// Whether `n` is a loop that carries no dependence (marked parallel,
/// SIMD or independent).
fn independent_loop(n: &Node) -> bool {
    matches!(n, Node::For { parallel, simd, independent, .. } if *parallel || *simd || *independent)
}

/// Whether `n` is or holds a loop marked parallel.
fn has_parallel(n: &Node) -> bool {
    any_node(n, &|k| matches!(k, Node::For { parallel: true, .. }))
}

/// `n` with every loop's `parallel` and `simd` marks cleared: inside a
/// kernel OpenMP's pragmas have no place (the `independent` marks stay:
/// they spread a tile's point loops over a block's threads).
fn serial(n: Node) -> Node {
    match n {
        Node::For {
            iter,
            init,
            cond,
            inc,
            body,
            independent,
            ..
        } => Node::For {
            iter,
            init,
            cond,
            inc,
            body: body.into_iter().map(serial).collect(),
            parallel: false,
            simd: false,
            independent,
        },
        Node::If { cond, then, els } => Node::If {
            cond,
            then: then.into_iter().map(serial).collect(),
            els: els.map(|e| e.into_iter().map(serial).collect()),
        },
        Node::Buffers { at, body } => Node::Buffers {
            at,
            body: body.into_iter().map(serial).collect(),
        },
        s @ Node::Stmt { .. } => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stmt() -> Node {
        Node::Stmt {
            stage: "S0".into(),
            args: vec![],
        }
    }

    fn lp(depth: u32, parallel: bool, simd: bool, body: Vec<Node>) -> Node {
        let mut n = crate::backend::tree::test_loop(depth, body);
        if let Node::For {
            parallel: p,
            simd: s,
            ..
        } = &mut n
        {
            (*p, *s) = (parallel, simd);
        }
        n
    }

    #[test]
    fn time_loop_stays_on_the_host_and_launches_its_sweeps() {
        let tree = vec![lp(
            0,
            false,
            false,
            vec![
                lp(1, true, false, vec![lp(2, false, true, vec![stmt()])]),
                lp(1, true, false, vec![stmt(), stmt()]),
            ],
        )];
        let (host, kernels) = map(tree).expect("maps");
        let [Host::For { body, .. }] = host.as_slice() else {
            panic!("{host:?}")
        };
        assert_eq!(body, &[Host::Launch(0), Host::Launch(1)]);
        assert_eq!(kernels[0].spread, Spread::Threads2);
        assert_eq!(kernels[1].spread, Spread::Threads1);
    }

    #[test]
    fn serial_code_shares_one_single_thread_kernel() {
        let tree = vec![
            lp(0, false, false, vec![stmt()]),
            stmt(),
            lp(0, true, false, vec![stmt()]),
            stmt(),
        ];
        let (host, kernels) = map(tree).expect("maps");
        assert_eq!(host, [Host::Launch(0), Host::Launch(1), Host::Launch(2)]);
        let spreads: Vec<Spread> = kernels.iter().map(|k| k.spread).collect();
        assert_eq!(spreads, [Spread::Single, Spread::Threads1, Spread::Single]);
        assert_eq!(kernels[0].body.len(), 2);
    }

    #[test]
    fn loops_inside_a_kernel_lose_their_parallel_marks() {
        let tree = vec![lp(0, true, false, vec![lp(1, true, false, vec![stmt()])])];
        let (_, kernels) = map(tree).expect("maps");
        let [Node::For { body, .. }] = kernels[0].body.as_slice() else {
            panic!()
        };
        assert!(matches!(
            body.as_slice(),
            [Node::For {
                parallel: false,
                ..
            }]
        ));
    }

    /// Three nested loops without dependences (an image's channels, rows,
    /// columns): the inner two go to y and x, the outer one runs in each
    /// thread; when the middle one carries a dependence, only the outer one
    /// is spread.
    #[test]
    fn the_innermost_two_independent_loops_are_spread() {
        let image = vec![lp(
            0,
            true,
            false,
            vec![lp(1, false, false, vec![lp(2, false, true, vec![stmt()])])],
        )];
        let (_, kernels) = map(image).expect("maps");
        assert_eq!(
            kernels[0].spread,
            Spread::Threads1,
            "rows carry a dependence"
        );
        let mut image = lp(
            0,
            true,
            false,
            vec![lp(1, false, false, vec![lp(2, false, true, vec![stmt()])])],
        );
        if let Node::For { body, .. } = &mut image {
            if let Node::For { independent, .. } = &mut body[0] {
                *independent = true;
            }
        }
        let (_, kernels) = map(vec![image]).expect("maps");
        assert_eq!(kernels[0].spread, Spread::Inner2, "channels, rows, columns");
    }

    /// A classic tile: two tile loops (steps of 32) around two point loops,
    /// all independent, go to the blocks and the threads; four independent
    /// loops of step 1 (no tiles) keep the three-loop mapping.
    #[test]
    fn classic_tiles_go_to_blocks_and_their_points_to_threads() {
        let nest = |step: i64| {
            let mut n = lp(
                0,
                true,
                false,
                vec![lp(
                    1,
                    false,
                    false,
                    vec![lp(2, false, false, vec![lp(3, false, true, vec![stmt()])])],
                )],
            );
            let mut k = 0;
            let mut at = &mut n;
            while let Node::For {
                independent,
                inc,
                body,
                ..
            } = at
            {
                *independent = true;
                if k < 2 {
                    *inc = LoopExpr::Int(step);
                }
                k += 1;
                match body.first_mut() {
                    Some(b) => at = b,
                    None => break,
                }
            }
            n
        };
        let (_, kernels) = map(vec![nest(32)]).expect("maps");
        assert_eq!(kernels[0].spread, Spread::Tiles2);
        let (_, kernels) = map(vec![nest(1)]).expect("maps");
        assert_eq!(kernels[0].spread, Spread::Inner2);
    }
}
