//! Multi-level tiling (Jangda & Bondhugula, TOPLAS'20, §5.2, Algorithm 4): inside an overlapped
//! tile sized for the L2 cache, parallelogram tiles sized for L1 that run
//! one after another, every stage of the group inside each.
//!
//! An inner tile of stage `k` along loop `d` holds the points whose aligned
//! coordinate `p = scale*i + shift`, moved by the stage's offset `o_k`,
//! falls in one block of `τ_d` counted from the tile's origin:
//! `t_d = floor((p + o_k - size_d*T_d) / τ_d)`. The offsets make every
//! face of an inner tile parallel to the right face of the overlapped tile
//! (the paper's slope): a producer's inner tile reaches as far right as its
//! consumers read, so no inner tile reads from a later one and the inner
//! tiles run in order, left to right, with no cycle between them.
//!
//! The offsets come from the group's dependences (flow, anti and output,
//! between its statements), in aligned coordinates: for a dependence from
//! `j` to `k` whose distance along `d` is at least `δ`, `o_j <= o_k + δ`;
//! the last stages get 0 and each earlier one the largest offset its
//! dependences allow. A dependence of a stage on itself must not go
//! backwards along a tiled loop. The stores of a stage run in its inner
//! tiles, right after it. Loads run before the inner tiles (the tile's
//! prologue), as before.
//!
//! The inner tiles reorder a tile's work and add none; the validity check
//! verifies the final order against every dependence.

use crate::diag::Result;
use crate::model::isl_ext::isl_err;
use crate::model::program::Region;
use crate::model::relations::map_list;
use crate::transform::overlap::{GroupAnalysis, WHOLE};
use isl_rs::{DimType, Map, UnionMap};
use log::info;
use std::collections::HashMap;

/// The inner tiles of one overlapped group.
#[derive(Clone, Debug)]
pub struct InnerTiles {
    /// Per loop, the inner tile size (`WHOLE`: the loop is not cut).
    pub sizes: Vec<i64>,
    /// Per statement of the group (its stages, in order) and loop, the
    /// offset `o_k` of its points.
    pub offsets: Vec<Vec<i64>>,
}

/// The inner tiles of `sizes` (the cost model's L1 sizes) for the analysed
/// group `a` of `region`, whose dependences among its statements are `deps`;
/// `None` where they cut no loop of the tile, where a stage has several
/// statements (their order inside a point is not a shift), or where a
/// dependence is unbounded or goes backwards within a stage.
pub(crate) fn inner_tiles(
    region: &Region,
    a: &GroupAnalysis,
    deps: &UnionMap,
    sizes: &[i64],
) -> Result<Option<InnerTiles>> {
    let n = region.stages.len();
    let depth = a.depth;
    let cut: Vec<bool> = (0..depth)
        .map(|d| {
            sizes[d] < a.sizes[d] && a.sizes[d] < WHOLE && Some(d) != a.classic && sizes[d] > 0
        })
        .collect();
    if !cut.contains(&true) || a.units.iter().any(|u| u.len() > 1) {
        return Ok(None);
    }
    let index: HashMap<&str, usize> = region
        .stages
        .iter()
        .enumerate()
        .map(|(k, s)| (s.name.as_str(), k))
        .collect();
    // The least distance along each loop, per pair of statements.
    let mut least: HashMap<(usize, usize), Vec<i64>> = HashMap::new();
    for m in map_list(deps)? {
        let from = m.get_tuple_name(DimType::In).map_err(isl_err)?;
        let to = m.get_tuple_name(DimType::Out).map_err(isl_err)?;
        let (Some(&j), Some(&k)) = (index.get(from), index.get(to)) else {
            continue;
        };
        let Some(dist) = least_distances(&m, a, j, k, &cut)? else {
            info!("multi-level: a dependence from {from} to {to} is unbounded; no inner tiles");
            return Ok(None);
        };
        let e = least.entry((j, k)).or_insert_with(|| vec![i64::MAX; depth]);
        for d in 0..depth {
            e[d] = e[d].min(dist[d]);
        }
    }
    let Some(offsets) = offsets(&least, n, &cut) else {
        info!("multi-level: a stage depends on itself backwards along a cut loop; no inner tiles");
        return Ok(None);
    };
    let sizes = (0..depth)
        .map(|d| if cut[d] { sizes[d] } else { WHOLE })
        .collect();
    Ok(Some(InnerTiles { sizes, offsets }))
}

/// The offsets of `n` statements along the `cut` loops from the least
/// dependence distances between them (`least[(j, k)]`, per loop): the last
/// ones 0, each earlier one the largest offset (at most 0) that keeps every
/// dependence from it inside or before its consumer's inner tile. `None`
/// when a statement depends on itself backwards along a cut loop.
fn offsets(
    least: &HashMap<(usize, usize), Vec<i64>>,
    n: usize,
    cut: &[bool],
) -> Option<Vec<Vec<i64>>> {
    let mut offsets = vec![vec![0i64; cut.len()]; n];
    for j in (0..n).rev() {
        for d in (0..cut.len()).filter(|d| cut[*d]) {
            if least.get(&(j, j)).is_some_and(|l| l[d] < 0) {
                return None;
            }
            let bound = (j + 1..n)
                .filter_map(|k| {
                    least
                        .get(&(j, k))
                        .map(|l| offsets[k][d].saturating_add(l[d]))
                })
                .min();
            offsets[j][d] = bound.unwrap_or(0).min(0);
        }
    }
    Some(offsets)
}

/// The least distance along each cut loop of the dependences `m` from
/// statement `j` to statement `k` of group `a`, in aligned coordinates
/// (`scale*i + shift`); `None` when one is unbounded below. Loops not cut
/// get 0.
fn least_distances(
    m: &Map,
    a: &GroupAnalysis,
    j: usize,
    k: usize,
    cut: &[bool],
) -> Result<Option<Vec<i64>>> {
    let depth = a.depth;
    let ctx = m.get_ctx();
    let is: Vec<String> = (0..depth).map(|d| format!("i{d}")).collect();
    let os: Vec<String> = (0..depth).map(|d| format!("o{d}")).collect();
    let ds: Vec<String> = (0..depth).map(|d| format!("d{d}")).collect();
    let eqs: Vec<String> = (0..depth)
        .map(|d| {
            format!(
                "d{d} = ({}*o{d} + {}) - ({}*i{d} + {})",
                a.scales[k][d], a.shifts[k][d], a.scales[j][d], a.shifts[j][d]
            )
        })
        .collect();
    let from = m.get_tuple_name(DimType::In).map_err(isl_err)?.to_string();
    let to = m.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string();
    let to_distance = Map::read_from_str(
        &ctx,
        &format!(
            "{{ [{from}[{}] -> {to}[{}]] -> [{}] : {} }}",
            is.join(", "),
            os.join(", "),
            ds.join(", "),
            eqs.join(" and ")
        ),
    )
    .map_err(isl_err)?;
    let dist = m
        .copy()
        .and_then(|m| m.wrap())
        .and_then(|w| w.apply(to_distance))
        .and_then(|s| s.project_out_all_params())
        .map_err(isl_err)?;
    if dist.is_empty().map_err(isl_err)? {
        return Ok(Some(vec![i64::MAX; depth]));
    }
    let mut out = Vec::with_capacity(depth);
    for (d, cut) in cut.iter().enumerate() {
        if !cut {
            out.push(0);
            continue;
        }
        let lo = dist
            .copy()
            .and_then(|s| s.dim_min_val(d as i32))
            .map_err(isl_err)?;
        if !lo.is_int().map_err(isl_err)? {
            return Ok(None);
        }
        out.push(lo.get_num_si().map_err(isl_err)?);
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn producers_reach_as_far_right_as_their_consumers_read() {
        // a -> b -> c and a -> c along loop 1 (loop 0 not cut): b reads a
        // at [-1, +2] (least distance -2), c reads b at [-1, +1] (-1) and a
        // at [0, +1] (-1). c keeps 0, b gets -1, a gets min(-1 - 2, 0 - 1).
        let least: HashMap<(usize, usize), Vec<i64>> = [
            ((0, 1), vec![5, -2]),
            ((1, 2), vec![5, -1]),
            ((0, 2), vec![5, -1]),
        ]
        .into();
        let cut = [false, true];
        assert_eq!(
            offsets(&least, 3, &cut),
            Some(vec![vec![0, -3], vec![0, -1], vec![0, 0]])
        );
        // A consumer only ahead of its producer: no offset past 0.
        let ahead: HashMap<(usize, usize), Vec<i64>> = [((0, 1), vec![0, 3])].into();
        assert_eq!(offsets(&ahead, 2, &cut), Some(vec![vec![0, 0], vec![0, 0]]));
        // A stage reading its own values from its right along a cut loop.
        let back: HashMap<(usize, usize), Vec<i64>> = [((0, 0), vec![0, -1])].into();
        assert_eq!(offsets(&back, 1, &cut), None);
        assert_eq!(offsets(&back, 1, &[true, false]), Some(vec![vec![0, 0]]));
    }
}
