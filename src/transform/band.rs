//! Schedule-tree helpers shared by the passes: walking the tree, marks, and
//! the dependences a band sees (for permutability and parallelism).

use crate::diag::Result;
use crate::model::isl_ext::isl_err;
use crate::model::marks::Mark;
use crate::model::relations::{map_list, set_list, ByStatement};
use isl_rs::{Id, ScheduleNode, ScheduleNodeType, UnionMap};

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

/// The flextile mark at mark node `node` (`None`: a mark of another tool).
pub fn mark_of(node: &ScheduleNode) -> Result<Option<Mark>> {
    let id = node.mark_get_id().map_err(isl_err)?;
    Ok(Mark::from_id(id.get_name().map_err(isl_err)?))
}

/// Inserts `mark` above `node`; returns the mark node.
pub fn insert_mark(node: ScheduleNode, mark: &Mark) -> Result<ScheduleNode> {
    let id = Id::read_from_str(&node.get_ctx(), &mark.id()).map_err(isl_err)?;
    node.insert_mark(id).map_err(isl_err)
}

/// `node` after `f` has rewritten each of its children in turn (`f` gets a
/// child and returns the node then at its place).
pub fn map_children(
    mut node: ScheduleNode,
    mut f: impl FnMut(ScheduleNode) -> Result<ScheduleNode>,
) -> Result<ScheduleNode> {
    let n = node.n_children().map_err(isl_err)?;
    for i in 0..n {
        node = node.child(i).map_err(isl_err)?;
        node = f(node)?;
        node = node.parent().map_err(isl_err)?;
    }
    Ok(node)
}

/// The statements of the band at `node` (as its partial schedule names
/// them, with their numbers of dimensions there): cheaper than the
/// instances reaching the band when it lies below an expansion.
pub fn band_statements(node: &ScheduleNode) -> Result<Vec<(String, usize)>> {
    let partial = node
        .band_get_partial_schedule_union_map()
        .map_err(isl_err)?;
    let mut out = Vec::new();
    for m in crate::model::relations::map_list(&partial)? {
        out.push((
            m.get_tuple_name(isl_rs::DimType::In)
                .map_err(isl_err)?
                .to_string(),
            m.domain_tuple_dim().map_err(isl_err)? as usize,
        ));
    }
    Ok(out)
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

/// The dependences a band must respect, as pairs of points in the band's
/// coordinates: those between instances that reach the band and share all
/// outer schedule dimensions. Computed once per band; each question below is
/// an emptiness test of these pairs intersected with a relation between
/// source and target points (an integer feasibility problem), not a
/// comparison of distance sets, whose projection (`deltas`) blows up on deep
/// nests with long subscripts.
pub struct BandDeps {
    pairs: UnionMap,
    n: usize,
}

impl BandDeps {
    /// The dependences of `deps` that the band at `node` must respect.
    pub fn new(node: &ScheduleNode, deps: &UnionMap) -> Result<BandDeps> {
        BandDeps::indexed(node, &ByStatement::new(deps)?)
    }

    /// [`BandDeps::new`], with the dependences indexed by their source
    /// statement (`deps`): a pass that visits every band of a region of
    /// 4 000 nests then looks up the band's own statements, where isl's
    /// intersection with the band's domain went through all the
    /// dependences at each band.
    pub fn indexed(node: &ScheduleNode, deps: &ByStatement) -> Result<BandDeps> {
        let dom = node.get_domain().map_err(isl_err)?;
        let prefix = node.get_prefix_schedule_union_map().map_err(isl_err)?;
        let prefix = ByStatement::new(&prefix)?;
        let mut local = Vec::new();
        for set in set_list(&dom)? {
            let name = set.get_tuple_name().map_err(isl_err)?.to_string();
            let from = deps
                .intersect_domain(&name, &set)?
                .intersect_range(dom.copy().map_err(isl_err)?)
                .map_err(isl_err)?;
            local.extend(map_list(&from)?);
        }
        let band = node
            .band_get_partial_schedule_union_map()
            .map_err(isl_err)?;
        let band = ByStatement::new(&band)?;
        let n = node.band_n_member().map_err(isl_err)? as usize;
        let mut pairs = UnionMap::read_from_str(&node.get_ctx(), "{ }").map_err(isl_err)?;
        for m in local {
            if let Some(m) = prefix.same_image(m)? {
                for d in band.apply_both(&m)? {
                    pairs = pairs.add_map(d).map_err(isl_err)?;
                }
            }
        }
        Ok(BandDeps { pairs, n })
    }

    /// True when some dependence pair also satisfies `cond` (over the
    /// source point `x0, ...` and the target point `y0, ...`).
    fn any(&self, cond: &str) -> Result<bool> {
        let rel = vector_pairs(&self.pairs.get_ctx(), self.n, cond)?;
        let hit = self
            .pairs
            .copy()
            .and_then(|p| p.intersect(rel))
            .map_err(isl_err)?;
        Ok(!hit.is_empty().map_err(isl_err)?)
    }

    /// The number of leading members in which every dependence distance is
    /// non-negative (those members can be tiled together).
    pub fn permutable_prefix(&self) -> Result<usize> {
        for k in 0..self.n {
            if self.any(&format!("y{k} < x{k}"))? {
                return Ok(k);
            }
        }
        Ok(self.n)
    }

    /// True when member `m` carries no dependence once the members before it
    /// are fixed: its loop can run in parallel.
    pub fn member_is_parallel(&self, m: usize) -> Result<bool> {
        let mut cond = equal_prefix(m);
        cond.push(format!("(y{m} < x{m} or y{m} > x{m})"));
        Ok(!self.any(&cond.join(" and "))?)
    }
}

/// The number of leading members of the band at `node` in which every
/// dependence distance is non-negative.
pub fn permutable_prefix(node: &ScheduleNode, deps: &UnionMap) -> Result<usize> {
    BandDeps::new(node, deps)?.permutable_prefix()
}

/// True when a mark that `pred` accepts lies at or under `node`.
pub fn mark_below(node: &ScheduleNode, pred: &dyn Fn(&Mark) -> bool) -> Result<bool> {
    if node.get_type().map_err(isl_err)? == ScheduleNodeType::Mark
        && mark_of(node)?.as_ref().is_some_and(pred)
    {
        return Ok(true);
    }
    for k in 0..node.n_children().map_err(isl_err)? {
        if mark_below(&node.get_child(k).map_err(isl_err)?, pred)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `{ [x] -> [y] : cond }` over `n`-dimensional points `x0, ..., y0, ...`.
pub fn vector_pairs(ctx: &isl_rs::Context, n: usize, cond: &str) -> Result<UnionMap> {
    let xs: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
    let ys: Vec<String> = (0..n).map(|i| format!("y{i}")).collect();
    let text = format!(
        "{{ [{}] -> [{}] : {} }}",
        xs.join(", "),
        ys.join(", "),
        cond
    );
    UnionMap::read_from_str(ctx, &text).map_err(isl_err)
}

/// `x = y` in the first `k` dimensions, one constraint each (none when `k` is 0).
pub fn equal_prefix(k: usize) -> Vec<String> {
    (0..k).map(|i| format!("y{i} = x{i}")).collect()
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

/// The part every statement of a band runs in: the intersection of
/// `ranges` (each statement's instances under the band's schedule),
/// coalesced; `None` when there are none or the intersection is empty.
pub fn common_part(ranges: Vec<isl_rs::Set>) -> Result<Option<isl_rs::Set>> {
    let mut core: Option<isl_rs::Set> = None;
    for r in ranges {
        core = Some(match core {
            None => r,
            Some(c) => c.intersect(r).map_err(isl_err)?,
        });
    }
    let Some(core) = core else {
        return Ok(None);
    };
    let core = core.coalesce().map_err(isl_err)?;
    match core.is_empty().map_err(isl_err)? {
        true => Ok(None),
        false => Ok(Some(core)),
    }
}

/// Sets the band at `node`'s `isolate` option to `core` (its first `outer`
/// dimensions the loops of the bands above, the rest the band's own), so
/// isl generates that part without guards, and the band's loops atomic
/// outside it.
pub fn isolate(node: ScheduleNode, core: isl_rs::Set, outer: u32) -> Result<ScheduleNode> {
    let n = node.band_n_member().map_err(isl_err)? as usize;
    // `{ isolate[[outer] -> [band]] }`: the isolate option's space.
    let option = isl_rs::Map::from_range(core)
        .and_then(|m| m.move_dims(isl_rs::DimType::In, 0, isl_rs::DimType::Out, 0, outer))
        .and_then(|m| m.wrap())
        .and_then(|s| s.set_tuple_name("isolate"))
        .and_then(isl_rs::UnionSet::from_set)
        .map_err(isl_err)?;
    // The options first: setting them resets the loop types.
    let node = node.band_set_ast_build_options(option).map_err(isl_err)?;
    atomic_loops(node, n)
}
