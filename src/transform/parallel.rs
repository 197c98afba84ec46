//! Marks the loops OpenMP runs in parallel.
//!
//! On every path from the root, the outermost band member that carries no
//! dependence gets a `parallel` mark (one level of parallelism, no nesting).
//! Bands the user marked `serial` are left serial (their inner bands may
//! still be parallel); bands the user asked to be parallel are checked, and a
//! request the dependences forbid is an error.

use crate::diag::{Error, Result, Span};
use crate::model::isl_ext::isl_err;
use crate::model::marks::Mark;
use crate::model::relations::ByStatement;
use crate::transform::band::{insert_mark, map_children, mark_of, BandDeps};
use isl_rs::{Schedule, ScheduleNode, ScheduleNodeType, UnionMap};
use log::info;

/// Inserts `parallel` marks in `schedule`. `request_span` locates the user's
/// parallel requests for diagnostics.
pub fn mark_parallel_loops(
    schedule: Schedule,
    deps: &UnionMap,
    request_span: Span,
) -> Result<Schedule> {
    let root = schedule.get_root().map_err(isl_err)?;
    let root = visit(root, &ByStatement::new(deps)?, request_span)?;
    root.get_schedule().map_err(isl_err)
}

fn visit(node: ScheduleNode, deps: &ByStatement, span: Span) -> Result<ScheduleNode> {
    match node.get_type().map_err(isl_err)? {
        ScheduleNodeType::Mark => {
            let mark = mark_of(&node)?;
            if mark == Some(Mark::Serial) {
                // Keep the band below serial; look inside it.
                let band = node.child(0).map_err(isl_err)?;
                let band = visit_children(band, deps, span)?;
                return band.parent().map_err(isl_err);
            }
            if mark == Some(Mark::ParallelRequested) {
                let below = node.child(0).map_err(isl_err)?;
                if matches!(below.get_type().map_err(isl_err)?, ScheduleNodeType::Mark)
                    && mark_of(&below)? == Some(Mark::ParallelRequested)
                {
                    // The same request twice: keep one.
                    let node = below.parent().and_then(|n| n.delete()).map_err(isl_err)?;
                    return visit(node, deps, span);
                }
                let band = below;
                if matches!(band.get_type().map_err(isl_err)?, ScheduleNodeType::Mark)
                    && mark_of(&band)? == Some(Mark::Serial)
                {
                    // `parallel` then `tile(..., serial, ...)`: the tile item made the loops
                    // the request was for serial.
                    return Err(Error::at(
                        span,
                        "the schedule asks for parallel outer loops, but a later 'tile' item makes them serial",
                    ));
                }
                if !matches!(band.get_type().map_err(isl_err)?, ScheduleNodeType::Band) {
                    return Err(Error::internal(
                        "parallel request above a node that is not a loop band",
                    ));
                }
                if !BandDeps::indexed(&band, deps)?.member_is_parallel(0)? {
                    return Err(Error::at(
                        span,
                        "the schedule asks for a parallel loop, but a dependence is carried by that loop",
                    ));
                }
                let band = band.parent().map_err(isl_err)?.delete().map_err(isl_err)?;
                info!("parallel: user-requested parallel loop is legal");
                return mark_parallel(band, 1);
            }
            visit_children(node, deps, span)
        }
        ScheduleNodeType::Band => {
            let n = node.band_n_member().map_err(isl_err)? as usize;
            let band_deps = BandDeps::indexed(&node, deps)?;
            for m in 0..n {
                if band_deps.member_is_parallel(m)? {
                    info!("parallel: band member {m} of {n} is parallel");
                    // The members after m that are parallel too: candidates
                    // when isl generates no loop for m (it runs once).
                    let mut run = 1;
                    while m + run < n && band_deps.member_is_parallel(m + run)? {
                        run += 1;
                    }
                    if m == 0 {
                        return mark_parallel(node, run);
                    }
                    let outer = node.band_split(m as i32).map_err(isl_err)?;
                    let inner = outer.child(0).map_err(isl_err)?;
                    let mark = mark_parallel(inner, run)?;
                    return mark.parent().map_err(isl_err);
                }
            }
            visit_children(node, deps, span)
        }
        // Below an expansion node, statement instances carry tile coordinates
        // the dependences do not mention: nothing there may be judged
        // parallel from them (overlapped tiles mark their own tile loops).
        ScheduleNodeType::Expansion => Ok(node),
        _ => visit_children(node, deps, span),
    }
}

/// Marks the outer loop of the band at `node` parallel. The mark names the
/// schedule depths of the first `run` members, which are also the numbers in
/// isl's names of their AST iterators (`c<depth>`): the back end puts the
/// pragma on the outermost of those loops that isl generates (it generates
/// none for a member that runs once), and on no other loop.
fn mark_parallel(node: ScheduleNode, run: usize) -> Result<ScheduleNode> {
    let depth = node.get_schedule_depth().map_err(isl_err)? as usize;
    let depths: Vec<usize> = (depth..depth + run).collect();
    insert_mark(node, &Mark::Parallel { depths })
}

fn visit_children(node: ScheduleNode, deps: &ByStatement, span: Span) -> Result<ScheduleNode> {
    map_children(node, |c| visit(c, deps, span))
}
