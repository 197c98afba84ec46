//! Schedule-tree helpers shared by the passes: walking the tree, marks, and
//! the dependence distances a band sees (for permutability and parallelism).

use crate::diag::Result;
use crate::model::isl_ext::isl_err;
use crate::model::relations::{map_list, ByStatement};
use isl_rs::{Id, ScheduleNode, ScheduleNodeType, UnionMap, UnionSet};

/// Mark above a band whose outermost loop runs as `omp parallel for`.
pub const MARK_PARALLEL: &str = "parallel";
/// Mark above a band the user asked to run in parallel (checked by the parallel pass).
pub const MARK_PARALLEL_REQUEST: &str = "parallel_requested";
/// Mark above a band the user asked to run serially.
pub const MARK_SERIAL: &str = "serial";

/// What a visitor wants after handling a band.
pub enum Walk {
    /// Visit the children of the returned node.
    Descend,
    /// Do not visit below the returned node.
    Skip,
}

/// Visits every band and mark node in pre-order. `f` may edit the tree; it
/// returns the node at the same tree position (the top of anything it
/// inserted) and whether to descend below it.
pub fn walk(
    node: ScheduleNode,
    f: &mut dyn FnMut(ScheduleNode) -> Result<(ScheduleNode, Walk)>,
) -> Result<ScheduleNode> {
    let ty = node.get_type().map_err(isl_err)?;
    let (mut node, walk_on) = match ty {
        ScheduleNodeType::Band | ScheduleNodeType::Mark => f(node)?,
        _ => (node, Walk::Descend),
    };
    if let Walk::Descend = walk_on {
        let n = node.n_children().map_err(isl_err)?;
        for i in 0..n {
            node = node.child(i).map_err(isl_err)?;
            node = walk(node, f)?;
            node = node.parent().map_err(isl_err)?;
        }
    }
    Ok(node)
}

/// The name of a mark node's id.
pub fn mark_name(node: &ScheduleNode) -> Result<String> {
    let id = node.mark_get_id().map_err(isl_err)?;
    Ok(id.get_name().map_err(isl_err)?.to_string())
}

/// Inserts a mark named `name` above `node`; returns the mark node.
pub fn insert_mark(node: ScheduleNode, name: &str) -> Result<ScheduleNode> {
    let id = Id::read_from_str(&node.get_ctx(), name).map_err(isl_err)?;
    node.insert_mark(id).map_err(isl_err)
}

/// True when some band lies strictly below `node`.
pub fn has_band_below(node: &ScheduleNode) -> Result<bool> {
    let n = node.n_children().map_err(isl_err)?;
    for i in 0..n {
        let c = node.get_child(i).map_err(isl_err)?;
        if matches!(c.get_type().map_err(isl_err)?, ScheduleNodeType::Band) || has_band_below(&c)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The distance vectors, in the coordinates of the band at `node`, of the
/// dependences between instances that reach the band and share all outer
/// schedule dimensions (the dependences the band itself must respect).
/// Returns the set of distances and the number of band members.
pub fn band_distances(node: &ScheduleNode, deps: &UnionMap) -> Result<(UnionSet, usize)> {
    let dom = node.get_domain().map_err(isl_err)?;
    let prefix = node.get_prefix_schedule_union_map().map_err(isl_err)?;
    let prefix = ByStatement::new(&prefix)?;
    let local = deps
        .copy()
        .map_err(isl_err)?
        .intersect_domain(dom.copy().map_err(isl_err)?)
        .map_err(isl_err)?
        .intersect_range(dom)
        .map_err(isl_err)?;
    let band = node
        .band_get_partial_schedule_union_map()
        .map_err(isl_err)?;
    let band = ByStatement::new(&band)?;
    let n = node.band_n_member().map_err(isl_err)? as usize;
    let mut moved = UnionMap::read_from_str(&node.get_ctx(), "{ }").map_err(isl_err)?;
    for m in map_list(&local)? {
        if let Some(m) = prefix.same_image(m)? {
            for d in band.apply_both(&m)? {
                moved = moved.add_map(d).map_err(isl_err)?;
            }
        }
    }
    let dist = moved.deltas().map_err(isl_err)?;
    Ok((dist, n))
}

/// A set of `n`-dimensional vectors `{ [d0, ..., dn-1] : cond }`.
pub fn vectors(ctx: &isl_rs::Context, n: usize, cond: &str) -> Result<UnionSet> {
    let vars: Vec<String> = (0..n).map(|i| format!("d{i}")).collect();
    let text = format!("{{ [{}] : {} }}", vars.join(", "), cond);
    UnionSet::read_from_str(ctx, &text).map_err(isl_err)
}

/// True when every distance seen by the band at `node` is non-negative in its
/// first `k` members (those members can be tiled together).
pub fn permutable_prefix(node: &ScheduleNode, deps: &UnionMap) -> Result<usize> {
    let (dist, n) = band_distances(node, deps)?;
    let ctx = node.get_ctx();
    let mut k = 0;
    while k < n {
        let cond: Vec<String> = (0..=k).map(|i| format!("d{i} >= 0")).collect();
        let ok = dist
            .is_subset(&vectors(&ctx, n, &cond.join(" and "))?)
            .map_err(isl_err)?;
        if !ok {
            break;
        }
        k += 1;
    }
    Ok(k)
}

/// True when member `m` of the band at `node` carries no dependence once the
/// members before it are fixed: its loop can run in parallel.
pub fn member_is_parallel(node: &ScheduleNode, deps: &UnionMap, m: usize) -> Result<bool> {
    let (dist, n) = band_distances(node, deps)?;
    let ctx = node.get_ctx();
    let mut outer: Vec<String> = (0..m).map(|i| format!("d{i} = 0")).collect();
    outer.push("true".into());
    let carried_here = dist
        .intersect(vectors(&ctx, n, &outer.join(" and "))?)
        .map_err(isl_err)?;
    carried_here
        .is_subset(&vectors(&ctx, n, &format!("d{m} = 0"))?)
        .map_err(isl_err)
}

/// Generates the first `count` loops of the band at `node` atomic (one loop
/// per level, statements guarded inside it, instead of isl's separation into
/// the pieces where different statements run).
pub fn atomic_loops(node: ScheduleNode, count: usize) -> Result<ScheduleNode> {
    let mut node = node;
    for m in 0..count {
        node = node
            .band_member_set_ast_loop_type(m as i32, isl_rs::ASTLoopType::Atomic)
            .map_err(isl_err)?;
    }
    Ok(node)
}
