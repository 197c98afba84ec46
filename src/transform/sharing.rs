//! Buffer sharing by liveness inside overlapped tiles (Davis et al. §4.4:
//! the reverse traversal over a table of spaces, which lets values whose
//! lifetimes do not overlap occupy one space).
//!
//! A tile runs its statements in *phases*: the children of the sequences
//! below its expansion node, down to the first loop (a tile's loads one
//! after another, then, with distributed point loops, each stage's loops).
//! A buffer is live from the first to the last phase that touches it.
//!
//! Two edits of the group's storage plan follow:
//! - **Versions rotate.** The versions of an array at the steps of a time
//!   block (and the array itself) get one buffer with one index function
//!   (the union of their boxes) when each version is written only after the
//!   one before it was last read: the inner steps then use one buffer per
//!   array (heat-1d: two buffers instead of seven). Their loads all copy the
//!   same elements of the same array, which no version's writer writes, so
//!   loading them into the same slots more than once changes nothing.
//! - **Disjoint lifetimes share.** Buffers whose live phases do not overlap
//!   overlay one allocation (a C `union` of their arrays, [`Buffer::pool`]).
//!
//! Groups with fused point loops have one phase for all stages and keep
//! their buffers; groups whose buffers slide (partial overlapped tiling) are
//! left alone.

use crate::diag::{Error, Result};
use crate::model::isl_ext::isl_err;
use crate::model::marks::Mark;
use crate::model::program::Region;
use crate::model::storage::{Affine, Buffer, StmtRole, StoragePlan};
use crate::transform::band::mark_of;
use isl_rs::{Schedule, ScheduleNode, ScheduleNodeType, UnionSet};
use log::info;
use std::collections::BTreeMap;

/// A statement's phase: its positions in the sequences above it.
type Phase = Vec<usize>;

/// Shares the buffers of the one group of `plan` (see the module header)
/// in the tiles of `schedule`.
pub(crate) fn share(schedule: &Schedule, plan: &mut StoragePlan, region: &Region) -> Result<()> {
    let Some(group) = plan.groups.first().cloned() else {
        return Ok(());
    };
    if group.slides().next().is_some() {
        return Ok(());
    }
    let Some(body) = tile_body(schedule.get_root().map_err(isl_err)?)? else {
        return Ok(());
    };
    let mut phases = BTreeMap::new();
    let reaching = body.get_domain().map_err(isl_err)?;
    collect_phases(&body, reaching, Vec::new(), &mut phases)?;
    // Statements touching each data set of the group: (phase, is a load).
    let mut touches: BTreeMap<&str, Vec<(Phase, bool)>> = BTreeMap::new();
    for s in &region.stages {
        let Some(p) = phases.get(&s.name) else {
            continue;
        };
        for a in &s.accesses {
            touches.entry(&a.data).or_default().push((p.clone(), false));
        }
    }
    for (name, role) in &group.statements {
        let Some(p) = phases.get(name) else {
            continue;
        };
        match role {
            StmtRole::Store { stage } => {
                for a in region.stages.get(*stage).map_or(&[][..], |s| &s.accesses) {
                    touches.entry(&a.data).or_default().push((p.clone(), false));
                }
            }
            StmtRole::Load(l) => touches.entry(&l.data).or_default().push((p.clone(), true)),
            StmtRole::Slide(_) => return Ok(()),
        }
    }
    let live = |b: &Buffer, loads: bool| -> Option<(Phase, Phase)> {
        let ps: Vec<&Phase> = b
            .data
            .iter()
            .flat_map(|d| touches.get(d.as_str()).into_iter().flatten())
            .filter(|(_, load)| loads || !*load)
            .map(|(p, _)| p)
            .collect();
        Some(((*ps.iter().min()?).clone(), (*ps.iter().max()?).clone()))
    };
    rotate_versions(plan, region, &|b| live(b, false));
    let mut intervals = Vec::new();
    for (k, b) in plan.buffers.iter().enumerate() {
        if let Some(iv) = live(b, true) {
            intervals.push((iv, k));
        }
    }
    intervals.sort();
    // Greedy interval colouring: a pool takes a buffer whose first phase
    // comes after the pool's last one.
    let mut pools: Vec<(Phase, Vec<usize>)> = Vec::new();
    for ((first, last), k) in intervals {
        match pools.iter_mut().find(|(end, _)| before(end, &first)) {
            Some(pool) => {
                pool.0 = last;
                pool.1.push(k);
            }
            None => pools.push((last, vec![k])),
        }
    }
    for (id, (_, members)) in pools.into_iter().filter(|(_, m)| m.len() > 1).enumerate() {
        let names: Vec<String> = members
            .iter()
            .map(|k| plan.buffers[*k].data.join("/"))
            .collect();
        info!("sharing: {} overlay one allocation", names.join(", "));
        for k in members {
            plan.buffers[k].pool = Some(id);
        }
    }
    Ok(())
}

/// Whether phase `a` ends before phase `b` starts: they differ at a
/// position of one sequence, `a` first (a prefix orders nothing).
fn before(a: &Phase, b: &Phase) -> bool {
    a.iter()
        .zip(b)
        .find(|(x, y)| x != y)
        .is_some_and(|(x, y)| x < y)
}

/// One buffer per array for the versions of an array at the steps of a
/// time block, where each version is written after the one before it was
/// last read (`written`: the phases of a buffer's accesses other than loads).
fn rotate_versions(
    plan: &mut StoragePlan,
    region: &Region,
    written: &dyn Fn(&Buffer) -> Option<(Phase, Phase)>,
) {
    let mut families: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (k, b) in plan.buffers.iter().enumerate() {
        let [d] = b.data.as_slice() else {
            continue;
        };
        let array = match region.versions.get(d) {
            Some(v) if !v.stored => v.array.clone(),
            Some(_) => continue,
            None if region.versions.values().any(|v| &v.array == d) => d.clone(),
            None => continue,
        };
        families.entry(array).or_default().push(k);
    }
    let mut merged: Vec<(Vec<usize>, Buffer)> = Vec::new();
    for (array, members) in families.into_iter().filter(|(_, m)| m.len() > 1) {
        let mut spans: Vec<((Phase, Phase), usize)> = Vec::new();
        for k in &members {
            match written(&plan.buffers[*k]) {
                Some(iv) => spans.push((iv, *k)),
                None => break,
            }
        }
        spans.sort();
        let ordered = spans.len() == members.len()
            && spans.windows(2).all(|w| before(&w[0].0 .1, &w[1].0 .0));
        let loads_from_array = plan
            .groups
            .iter()
            .flat_map(|g| g.statements.values())
            .all(|r| match r {
                StmtRole::Load(l) => {
                    !members
                        .iter()
                        .any(|k| plan.buffers[*k].data.contains(&l.data))
                        || l.source == array
                }
                _ => true,
            });
        let order: Vec<usize> = spans.iter().map(|(_, k)| *k).collect();
        if !ordered || !loads_from_array {
            continue;
        }
        if let Some(b) = union_box(&order.iter().map(|k| &plan.buffers[*k]).collect::<Vec<_>>()) {
            info!(
                "sharing: the versions of '{array}' rotate through one buffer ({})",
                b.data.join(", ")
            );
            merged.push((order, b));
        }
    }
    if merged.is_empty() {
        return;
    }
    let old = std::mem::take(&mut plan.buffers);
    for (k, b) in old.into_iter().enumerate() {
        match merged.iter().find(|(m, _)| m.contains(&k)) {
            // A family's buffer takes the place of its first member.
            Some((m, u)) if m.iter().min() == Some(&k) => plan.buffers.push(u.clone()),
            Some(_) => {}
            None => plan.buffers.push(b),
        }
    }
}

/// One buffer holding every buffer of `members` (same element type, offsets
/// that differ by constants): their union box, their data sets in order.
fn union_box(members: &[&Buffer]) -> Option<Buffer> {
    let first = members.first()?;
    let rank = first.extents.len();
    let mut offsets = Vec::new();
    let mut extents = Vec::new();
    for d in 0..rank {
        let mut lo: Option<i64> = None;
        let mut hi: Option<i64> = None;
        for b in members {
            let o = b.index.offsets.get(d)?;
            let e = b.extents.get(d)?.constant_value()?;
            if b.elem_type != first.elem_type
                || b.index.moduli.get(d).copied().flatten().is_some()
                || o.terms != first.index.offsets.get(d)?.terms
            {
                return None;
            }
            lo = Some(lo.map_or(o.constant, |l| l.min(o.constant)));
            hi = Some(hi.map_or(o.constant + e, |h| h.max(o.constant + e)));
        }
        let (lo, hi) = (lo?, hi?);
        offsets.push(Affine {
            constant: lo,
            terms: first.index.offsets.get(d)?.terms.clone(),
        });
        extents.push(Affine::constant(hi - lo));
    }
    let mut b = (*first).clone();
    b.data = members.iter().flat_map(|m| m.data.clone()).collect();
    b.index.offsets = offsets;
    b.extents = extents;
    Some(b)
}

/// The node below the tile body mark's expansion node.
fn tile_body(node: ScheduleNode) -> Result<Option<ScheduleNode>> {
    if matches!(node.get_type().map_err(isl_err)?, ScheduleNodeType::Mark)
        && matches!(mark_of(&node)?, Some(Mark::TileBody { .. }))
    {
        let mut below = node.child(0).map_err(isl_err)?;
        while !matches!(
            below.get_type().map_err(isl_err)?,
            ScheduleNodeType::Expansion
        ) {
            if below.n_children().map_err(isl_err)? != 1 {
                return Ok(None);
            }
            below = below.child(0).map_err(isl_err)?;
        }
        return Ok(Some(below.child(0).map_err(isl_err)?));
    }
    for i in 0..node.n_children().map_err(isl_err)? {
        if let Some(b) = tile_body(node.get_child(i).map_err(isl_err)?)? {
            return Ok(Some(b));
        }
    }
    Ok(None)
}

/// The phase of every statement below `node`, which the instances
/// `reaching` reach (passed down the tree: isl's domain of each node,
/// computed once per node instead of from the root at every one).
fn collect_phases(
    node: &ScheduleNode,
    reaching: UnionSet,
    prefix: Phase,
    out: &mut BTreeMap<String, Phase>,
) -> Result<()> {
    let below = |i: i32, reaching: &UnionSet| -> Result<(ScheduleNode, UnionSet)> {
        let child = node.get_child(i).map_err(isl_err)?;
        let reaching = reaching.copy().map_err(isl_err)?;
        let reaching = match child.get_type().map_err(isl_err)? {
            ScheduleNodeType::Filter => child
                .filter_get_filter()
                .and_then(|f| reaching.intersect(f)),
            ScheduleNodeType::Expansion => child
                .expansion_get_expansion()
                .and_then(|e| reaching.apply(e)),
            _ => Ok(reaching),
        }
        .map_err(isl_err)?;
        Ok((child, reaching))
    };
    match node.get_type().map_err(isl_err)? {
        ScheduleNodeType::Band | ScheduleNodeType::Leaf => {
            let list = reaching.get_set_list().map_err(isl_err)?;
            for i in 0..list.size().map_err(isl_err)? {
                let set = list.get_at(i).map_err(isl_err)?;
                out.insert(
                    set.get_tuple_name().map_err(isl_err)?.to_string(),
                    prefix.clone(),
                );
            }
        }
        ScheduleNodeType::Sequence => {
            for i in 0..node.n_children().map_err(isl_err)? {
                let mut p = prefix.clone();
                p.push(i as usize);
                let (child, reaching) = below(i, &reaching)?;
                collect_phases(&child, reaching, p, out)?;
            }
        }
        ScheduleNodeType::Error => return Err(Error::internal("sharing: schedule node error")),
        _ => {
            for i in 0..node.n_children().map_err(isl_err)? {
                let (child, reaching) = below(i, &reaching)?;
                collect_phases(&child, reaching, prefix.clone(), out)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::storage::{Alloc, IndexFn, Placement, Term};

    #[test]
    fn phases_order_at_the_first_difference() {
        assert!(before(&vec![1, 4], &vec![2, 0]));
        assert!(before(&vec![14, 2], &vec![14, 3]));
        assert!(!before(&vec![14, 3], &vec![14, 3]));
        assert!(!before(&vec![14], &vec![14, 3]));
        assert!(!before(&vec![2], &vec![1, 9]));
    }

    #[test]
    fn versions_get_their_union_box() {
        let buf = |d: &str, c: i64, e: i64| Buffer {
            name: d.into(),
            data: vec![d.into()],
            elem_type: "double".into(),
            extents: vec![Affine::constant(e)],
            index: IndexFn {
                offsets: vec![Affine::constant(c).plus(16, Term::Tile(0))],
                moduli: vec![None],
            },
            placement: Placement::Tile { group: 0 },
            alloc: Alloc::Stack,
            pool: None,
        };
        let (a, b) = (buf("A0", -6, 28), buf("A1", -4, 24));
        let u = union_box(&[&a, &b]).unwrap();
        assert_eq!(u.data, ["A0", "A1"]);
        assert_eq!(u.index.offsets[0].constant, -6);
        assert_eq!(u.extents[0], Affine::constant(28));
        let mut c = buf("A2", -2, 20);
        c.index.offsets[0] = Affine::constant(0).plus(8, Term::Tile(0));
        assert!(union_box(&[&a, &c]).is_none());
    }
}
