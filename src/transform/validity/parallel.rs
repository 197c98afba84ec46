//! Check 4 of the validity check (see `validity.rs`): no dependence is
//! carried by a loop marked `parallel` or `simd`, at its depth, the loops
//! outside it fixed.

use super::{expanded, first_pair, reaching_leaves, R};
use crate::model::isl_ext::isl_err;
use crate::model::relations::{
    apply_both, apply_range, apply_set, flat_range_product, map_list, select_by_name, set_list,
    ByStatement,
};
use crate::transform::band::{equal_prefix, vector_pairs};
use isl_rs::{DimType, ScheduleNode, ScheduleNodeType, UnionMap, UnionSet};
use std::collections::HashSet;

/// Check 4 for the loops at schedule depths `depths` of the band at `band`:
/// `Some(why)` when a dependence of `lifted` is carried by one of them.
pub(super) fn parallel_violation(
    band: &ScheduleNode,
    depths: &[usize],
    lifted: &[(&str, UnionMap)],
    widen: &dyn Fn(&UnionSet) -> R<Option<Lifted>>,
    above: &dyn Fn(&HashSet<String>, &str, &str) -> bool,
    label: &dyn Fn(&str) -> String,
) -> R<Option<String>> {
    let outer = band.get_schedule_depth().map_err(isl_err)? as usize;
    let n = band.band_n_member().map_err(isl_err)? as usize;
    if let Some(depth) = depths.iter().find(|&&d| d < outer || d >= outer + n) {
        return Ok(Some(format!(
            "parallel loops: a parallel mark names depth {depth}, outside its band (depths {outer} to {})",
            outer + n - 1
        )));
    }
    // Executed instance → (outer loops, this band): the band's loops of an
    // instance executed below an expansion are those of the instance it
    // was expanded from.
    let prefix = band.get_prefix_schedule_union_map().map_err(isl_err)?;
    let own = ByStatement::new(
        &band
            .band_get_partial_schedule_union_map()
            .map_err(isl_err)?,
    )?;
    let dom = band.get_domain().map_err(isl_err)?;
    let full = match reaching_leaves(band, dom.copy().map_err(isl_err)?, false, false)? {
        // No expansion below: the executed instances are the original ones.
        Some(here) => (here, flat_range_product(&prefix, &own)?),
        None => {
            let (here, expansion) = match expansion_below(band, &dom)? {
                Some(e) => (expanded(band, dom.copy().map_err(isl_err)?)?, e),
                None => {
                    let e = band.get_subtree_expansion().map_err(isl_err)?;
                    (apply_set(&dom, &ByStatement::new(&e)?)?, e)
                }
            };
            let rev = expansion.reverse().map_err(isl_err)?;
            let both = flat_range_product(&prefix, &own)?;
            (here, apply_range(&rev, &ByStatement::new(&both)?)?)
        }
    };
    // Pairs one tile computes, where the band schedules the tiles, are
    // never carried by it.
    let mut names = HashSet::new();
    for set in set_list(&dom)? {
        names.insert(set.get_tuple_name().map_err(isl_err)?.to_string());
    }
    let mut pairs: Vec<(&str, UnionMap)> = Vec::new();
    for (kind, deps) in widen(&full.0)?.as_deref().unwrap_or(lifted) {
        let kept = select_by_name(deps, |a, b| !above(&names, a, b))?;
        pairs.push((*kind, kept));
    }
    carried_at(band, &full, depths, &pairs, label)
}

/// The expansion from the instances `dom` reaching `node` to those its
/// leaves execute, up to the filters below its expansion nodes: the
/// expansions below `node` and the identity on the statements none
/// expands (isl's subtree expansion, without its restriction of the whole
/// expansion at every filter, quadratic in the children of a sequence;
/// the instances a filter leaves out are not executed, and the check only
/// relates executed ones). `None` where an expansion lies below another.
fn expansion_below(node: &ScheduleNode, dom: &UnionSet) -> R<Option<UnionMap>> {
    let mut found = Vec::new();
    let mut stack = vec![(node.copy().map_err(isl_err)?, false)];
    while let Some((n, inside)) = stack.pop() {
        let here = matches!(n.get_type().map_err(isl_err)?, ScheduleNodeType::Expansion);
        if here {
            if inside {
                return Ok(None);
            }
            found.push(n.expansion_get_expansion().map_err(isl_err)?);
        }
        for i in 0..n.n_children().map_err(isl_err)? {
            stack.push((n.get_child(i).map_err(isl_err)?, inside || here));
        }
    }
    let mut expanded: HashSet<String> = HashSet::new();
    let mut out = UnionMap::read_from_str(&node.get_ctx(), "{ }").map_err(isl_err)?;
    for e in found {
        for m in map_list(&e)? {
            expanded.insert(m.get_tuple_name(DimType::In).map_err(isl_err)?.to_string());
        }
        out = out.union(e).map_err(isl_err)?;
    }
    for set in set_list(dom)? {
        if !expanded.contains(set.get_tuple_name().map_err(isl_err)?) {
            out = out
                .union(UnionMap::from_map(set.identity().map_err(isl_err)?).map_err(isl_err)?)
                .map_err(isl_err)?;
        }
    }
    Ok(Some(out))
}

/// Dependences of each kind between executed instances.
pub(super) type Lifted = Vec<(&'static str, UnionMap)>;

/// Whether a loop at a schedule depth of `depths` carries a dependence of
/// `lifted` among the executed instances `full.0`, whose loops down to
/// those depths and beyond are `full.1`, and the first such loop's message.
/// Several depths are tested at once (pairs of instances in the same
/// iteration of the loops above one of the depths and in different ones of
/// the loop at it: the union of each depth's pairs, empty exactly when each
/// is), and each alone only where that finds pairs, for the message.
fn carried_at(
    band: &ScheduleNode,
    full: &(UnionSet, UnionMap),
    depths: &[usize],
    lifted: &[(&str, UnionMap)],
    label: &dyn Fn(&str) -> String,
) -> R<Option<String>> {
    let (here, loops) = full;
    let Some(&deepest) = depths.iter().max() else {
        return Ok(None);
    };
    let each = |depths: &[usize]| -> R<Option<String>> {
        for depth in depths {
            let one = std::slice::from_ref(depth);
            if let Some(why) = carried_at(band, full, one, lifted, label)? {
                return Ok(Some(why));
            }
        }
        Ok(None)
    };
    // Truncated after the deepest loop tested.
    let len = deepest + 1;
    let list = loops.get_map_list().map_err(isl_err)?;
    let ctx = band.get_ctx();
    let mut upto = UnionMap::read_from_str(&ctx, "{ }").map_err(isl_err)?;
    for i in 0..list.size().map_err(isl_err)? {
        let m = list.get_at(i).map_err(isl_err)?;
        let d = m.range_tuple_dim().map_err(isl_err)? as usize;
        if d < len && depths.len() > 1 {
            // Shorter than the deepest loop: tested at each depth alone.
            return each(depths);
        }
        let m = if d > len {
            m.project_out(DimType::Out, len as u32, (d - len) as u32)
        } else {
            Ok(m)
        }
        .and_then(|m| m.reset_tuple_id(DimType::Out))
        .map_err(isl_err)?;
        upto = upto.add_map(m).map_err(isl_err)?;
    }
    let upto = ByStatement::new(&upto)?;
    // Same iteration of the loops above a depth, another of the loop at it.
    let at = |depth: usize| {
        let mut cond = equal_prefix(depth);
        cond.push(format!("(y{depth} < x{depth} or y{depth} > x{depth})"));
        format!("({})", cond.join(" and "))
    };
    let cond: Vec<String> = depths.iter().map(|d| at(*d)).collect();
    let crossing = vector_pairs(&ctx, len, &cond.join(" or "))?;
    for (kind, deps) in lifted {
        let carried = |m: UnionMap| -> R<bool> {
            let m = m
                .intersect_domain(here.copy().map_err(isl_err)?)
                .and_then(|m| m.intersect_range(here.copy()?))
                .map_err(isl_err)?;
            let pairs = apply_both(&m, &upto)?
                .intersect(crossing.copy().map_err(isl_err)?)
                .map_err(isl_err)?;
            Ok(!pairs.is_empty().map_err(isl_err)?)
        };
        if carried(deps.copy().map_err(isl_err)?)? {
            if let [depth] = depths {
                let pair = first_pair(deps, &carried, label)?;
                return Ok(Some(format!(
                    "parallel loops: the loop at depth {depth} is marked parallel but carries a {kind} dependence{pair}"
                )));
            }
            if let Some(why) = each(depths)? {
                return Ok(Some(why));
            }
            // (Not reached: the union is empty where each depth's is.)
            return Ok(Some(format!(
                "parallel loops: the loops at depths {depths:?} are marked parallel but carry a {kind} dependence"
            )));
        }
    }
    Ok(None)
}
