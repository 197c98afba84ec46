//! What the driver tells the macro dataflow graph and the banner about a
//! region's storage: its groups of stages (nests, fused chains, overlapped
//! groups), the data that never leaves their buffers, and the banner's
//! "temporaries never stored" line.

use std::collections::BTreeSet;

use crate::model::mdg::{self, Grouping};
use crate::model::polyhedral;
use crate::model::program::Region;
use crate::model::storage::{Buffer, Placement, StmtRole, StoragePlan};

/// The stages of each top-level loop nest of `region` (the statements of a
/// nest run in its loops together), leaving out `taken`.
pub(super) fn nest_groups(region: &Region, taken: &BTreeSet<usize>) -> Vec<Vec<usize>> {
    region
        .tree
        .iter()
        .filter_map(|n| {
            let mut ks = Vec::new();
            polyhedral::stages_under(std::slice::from_ref(n), &mut ks);
            ks.retain(|k| !taken.contains(k));
            (!ks.is_empty()).then_some(ks)
        })
        .collect()
}

/// The grouping of overlapped tiling: each tiled group, the other stages in
/// their nests; what each group reads from its scratchpads; the data sets
/// that never leave them, and one tile's scratchpad bytes of each (left out
/// where an element type has no known size).
pub(super) fn overlap_grouping(region: &Region, storage: &StoragePlan) -> Grouping {
    let mut groups: Vec<(Vec<usize>, BTreeSet<String>)> = storage
        .groups
        .iter()
        .enumerate()
        .map(|(gi, g)| {
            let stages = (0..region.stages.len())
                .filter(|k| g.stages.contains(&region.stages[*k].name))
                .collect::<Vec<usize>>();
            // Scratchpads no element of which is loaded from memory.
            let loaded: BTreeSet<&str> = g
                .statements
                .values()
                .filter_map(|r| match r {
                    StmtRole::Load(l) => Some(l.data.as_str()),
                    _ => None,
                })
                .collect();
            let scratch = storage
                .buffers_at(Placement::Tile { group: gi })
                .flat_map(|b| b.data.iter())
                .filter(|d| !loaded.contains(d.as_str()))
                .cloned()
                .collect();
            (stages, scratch)
        })
        .filter(|(g, _)| !g.is_empty())
        .collect();
    let taken: BTreeSet<usize> = groups.iter().flat_map(|(g, _)| g).copied().collect();
    groups.extend(
        nest_groups(region, &taken)
            .into_iter()
            .map(|g| (g, BTreeSet::new())),
    );
    groups.sort_by_key(|(g, _)| g.first().copied());
    let (groups, scratch_reads) = groups.into_iter().unzip();
    let mut grouping = Grouping {
        groups,
        scratch_reads,
        ..Grouping::default()
    };
    let held = storage.groups.iter().enumerate().flat_map(|(gi, g)| {
        storage
            .buffers_at(Placement::Tile { group: gi })
            .filter(|b| b.data.iter().any(|d| g.unstored.contains(d)))
    });
    add_unstored(&mut grouping, held);
    grouping
}

/// Records the data sets of `buffers` as never stored, with the bytes of
/// their allocations (left out where unknown: an element type of no known
/// size, or a size that depends on the parameters). An allocation counts
/// once: a buffer holding several data sets (versions rotating through it),
/// or a pool of buffers sharing one allocation (the largest member's
/// bytes), is charged to its first data set, the others count nothing.
pub(super) fn add_unstored<'a>(grouping: &mut Grouping, buffers: impl Iterator<Item = &'a Buffer>) {
    // Allocations: a pool (by placement and number), or one buffer alone.
    type Pool = Option<(Placement, usize)>;
    let mut allocations: Vec<(Pool, Vec<&Buffer>)> = Vec::new();
    for b in buffers {
        let key = b.pool.map(|p| (b.placement, p));
        match allocations
            .iter_mut()
            .find(|(k, _)| key.is_some() && *k == key)
        {
            Some((_, members)) => members.push(b),
            None => allocations.push((key, vec![b])),
        }
    }
    let mut unknown = BTreeSet::new();
    for (_, members) in allocations {
        let bytes: Option<Vec<u64>> = members
            .iter()
            .map(|b| {
                let n = b.elements().and_then(|n| u64::try_from(n).ok())?;
                Some(n * mdg::type_bytes(&b.elem_type)?)
            })
            .collect();
        let data: Vec<&String> = members.iter().flat_map(|b| &b.data).collect();
        for (i, d) in data.iter().enumerate() {
            grouping.unstored.insert((*d).clone());
            match &bytes {
                Some(bytes) => {
                    let charge = match i {
                        0 => bytes.iter().copied().max().unwrap_or(0),
                        _ => 0,
                    };
                    *grouping.scratchpad_bytes.entry((*d).clone()).or_default() += charge;
                }
                None => {
                    unknown.insert((*d).clone());
                }
            }
        }
    }
    for d in unknown {
        grouping.scratchpad_bytes.remove(&d);
    }
}

/// The banner's "temporaries never stored: ..." line for `names`; where
/// flextile proved some, each says whether it was declared.
pub(super) fn never_stored_line(region: &Region, names: &[String]) -> String {
    let proved = |n: &str| region.temporaries.iter().any(|t| t.name == n && t.proved);
    let mark = names.iter().any(|n| proved(n));
    let names: Vec<String> = names
        .iter()
        .map(|n| match (mark, proved(n)) {
            (false, _) => n.clone(),
            (true, true) => format!("{n} (proved)"),
            (true, false) => format!("{n} (declared)"),
        })
        .collect();
    format!("temporaries never stored: {}", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::storage::{Affine, Alloc, IndexFn};

    fn buffer(data: &[&str], elements: i64, pool: Option<usize>) -> Buffer {
        Buffer {
            name: format!("ft_{}", data[0]),
            data: data.iter().map(|d| d.to_string()).collect(),
            elem_type: "double".into(),
            extents: vec![Affine::constant(elements)],
            index: IndexFn {
                offsets: vec![Affine::constant(0)],
                moduli: vec![None],
            },
            placement: Placement::Tile { group: 0 },
            alloc: Alloc::Stack,
            pool,
        }
    }

    /// Rotated versions in one buffer, and a union of two buffers, count
    /// one allocation each.
    #[test]
    fn an_allocation_counts_once() {
        let buffers = [
            buffer(&["B1", "B2"], 10, None),
            buffer(&["X"], 4, Some(0)),
            buffer(&["Y"], 6, Some(0)),
        ];
        let mut g = Grouping::default();
        add_unstored(&mut g, buffers.iter());
        let total: u64 = g.scratchpad_bytes.values().sum();
        assert_eq!(total, 8 * (10 + 6));
        assert_eq!(g.unstored.len(), 4);
        assert_eq!(g.scratchpad_bytes.get("B2"), Some(&0));
    }
}
