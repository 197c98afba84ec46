//! Marks the point loops of overlapped tiles that a GPU thread block may
//! share out (the CUDA target; Zhao & Cohen's (TACO'19) GPU mapping, one tile per block).
//!
//! Below an expansion node a statement instance `S[i]` runs as `S[T, i]`
//! in every tile `T` that computes it, and one block runs one tile: the
//! dependences that matter are those between instances of one tile (lifted
//! to `S[T, i] -> S'[T, i']`, as for the SIMD marks, `transform::simd`). A
//! band member that carries none of them once the members before it are
//! fixed gets a `threads` mark: its iterations may run on different threads
//! of the block, and the back end separates what the threads compute by
//! barriers (`backend::cuda::print`).
//!
//! Classic tiles (`--tile`, PPCG's mapping: tile loops to blocks, point
//! loops to threads): a band nested inside a loop marked parallel (the
//! point band below a tile band) gets a `threads` mark when none of its
//! members carries a dependence between its statements' instances.
//!
//! A band of the storage plan's copies only (loads into scratchpads,
//! stores of live-out values; `copies` says which statements are such
//! copies without a modular index) is marked whole: each instance writes
//! its own element. A band that mixes copies and the region's statements,
//! or holds a copy through a modular (sliding) buffer, is left alone; its
//! loops run at block level.

use crate::diag::Result;
use crate::model::isl_ext::isl_err;
use crate::model::marks::Mark;
use crate::model::storage::{StmtRole, StoragePlan};
use crate::transform::band::{band_statements, insert_mark, map_children, mark_of, BandDeps};
use crate::transform::simd::{band_deps, StatementDeps};
use isl_rs::{Schedule, ScheduleNode, ScheduleNodeType, UnionMap, UnionSet};
use log::info;

/// Inserts `threads` marks above the bands inside overlapped tiles of
/// `schedule` (a region whose statements are `domain`, with dependences
/// `deps`); `copies` tells the storage plan's independent copy statements.
pub fn mark_thread_loops(
    schedule: Schedule,
    deps: &UnionMap,
    domain: &UnionSet,
    copies: &dyn Fn(&str) -> bool,
) -> Result<Schedule> {
    let ctx = StatementDeps::new(deps, domain)?;
    let root = schedule.get_root().map_err(isl_err)?;
    visit(root, &ctx, copies, Place::Outside)?
        .get_schedule()
        .map_err(isl_err)
}

/// Where a schedule node is, for [`visit`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Outside any parallel loop or expansion.
    Outside,
    /// Below a band with a parallel member (a classic tile's point band).
    InParallel,
    /// Below an expansion (an overlapped tile's point loops).
    Expanded,
}

fn visit(
    node: ScheduleNode,
    ctx: &StatementDeps,
    copies: &dyn Fn(&str) -> bool,
    place: Place,
) -> Result<ScheduleNode> {
    match node.get_type().map_err(isl_err)? {
        ScheduleNodeType::Expansion => {
            map_children(node, |c| visit(c, ctx, copies, Place::Expanded))
        }
        ScheduleNodeType::Mark
            if place == Place::Outside
                && matches!(mark_of(&node)?, Some(Mark::Parallel { .. })) =>
        {
            // The band below runs in parallel; bands inside it are tiles'
            // point loops (or inner loops) a block's threads may share.
            let band = node.child(0).map_err(isl_err)?;
            let band = map_children(band, |c| visit(c, ctx, copies, Place::InParallel))?;
            band.parent().map_err(isl_err)
        }
        ScheduleNodeType::Band if place != Place::Outside => {
            let band = node.copy().map_err(isl_err)?;
            let node = map_children(node, |c| visit(c, ctx, copies, place))?;
            let expanded = place == Place::Expanded;
            let depths = independent_members(&band, ctx, copies, expanded)?;
            let n = band.band_n_member().map_err(isl_err)? as usize;
            // A point band goes to a block's threads whole or not at all
            // (its tile loops then keep the grid's threads).
            if depths.is_empty() || (!expanded && depths.len() < n) {
                return Ok(node);
            }
            info!("threads: the loops at depths {depths:?} carry no dependence inside a tile");
            insert_mark(node, &Mark::Threads { depths })
        }
        _ => map_children(node, |c| visit(c, ctx, copies, place)),
    }
}

/// The schedule depths of the members of `band` that carry no dependence
/// between one tile's instances (`expanded`: below an expansion, else
/// between the instances of its statements).
fn independent_members(
    band: &ScheduleNode,
    ctx: &StatementDeps,
    copies: &dyn Fn(&str) -> bool,
    expanded: bool,
) -> Result<Vec<usize>> {
    let n = band.band_n_member().map_err(isl_err)? as usize;
    let depth = band.get_schedule_depth().map_err(isl_err)? as usize;
    let statements = band_statements(band)?;
    if n == 0 || statements.is_empty() {
        return Ok(Vec::new());
    }
    if expanded && statements.iter().all(|(s, _)| copies(s)) {
        return Ok((depth..depth + n).collect());
    }
    if statements.iter().any(|(s, _)| !ctx.is_region_statement(s)) {
        return Ok(Vec::new());
    }
    let Some(deps) = band_deps(band, ctx, expanded)? else {
        return Ok(Vec::new());
    };
    if deps.is_empty().map_err(isl_err)? {
        return Ok((depth..depth + n).collect());
    }
    let band_deps = BandDeps::new(band, &deps)?;
    let mut out = Vec::new();
    for m in 0..n {
        if band_deps.member_is_parallel(m)? {
            out.push(depth + m);
        }
    }
    Ok(out)
}

/// Whether statement `name` is a copy of `plan` whose instances each write
/// their own element: a store, or a load into a buffer without a modular
/// index.
pub fn independent_copy(plan: &StoragePlan, name: &str) -> bool {
    let Some((group, storage)) = plan.group_of(name) else {
        return false;
    };
    match storage.statements.get(name) {
        Some(StmtRole::Store { .. }) => true,
        Some(StmtRole::Load(l)) => plan
            .tile_buffer(group, &l.data)
            .is_some_and(|b| b.index.moduli.iter().all(Option::is_none)),
        _ => false,
    }
}
