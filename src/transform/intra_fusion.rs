//! Intra-tile loop fusion for register reuse (Jangda & Bondhugula, TOPLAS'20
//! §5.3): inside an overlapped tile, the point loops of stages that read
//! the same input at the same points are fused, so a value loaded for one
//! stage is still in a register when the next one reads it (harris: `Ix`
//! and `Iy` both read six points of `img` around each pixel).
//!
//! The paper fuses two functions of a group when (i) they have common
//! inputs whose references intersect in each iteration and (ii) their loop
//! bounds are equal. Here, over a group's analysis ([`GroupAnalysis`]):
//! - the stages are consecutive in the group and each is a nest of one
//!   statement, at the same step of a time block, whose body is one
//!   assignment with no branch (`?:`) and no call. Fused, the loop body
//!   stays straight-line code the compiler vectorises; camera-pipeline's
//!   demosaicking nests (blocks of locals and `?:` selects) ran 6% slower
//!   fused, and their interleaving nests (two stride-2 stores each) no
//!   faster;
//! - each reads some data set at several points (a stencil): between
//!   point-wise stages a fused loop saves at most one load per point and
//!   adds streams to the loop (harris with hand-given sizes, its products
//!   and its `trace`/`det` fused: 3% slower);
//! - neither is stored to its array inside the tile (a store statement of
//!   its own follows it in the tile);
//! - no dependence joins them: neither writes a data set the other reads
//!   or writes (by name, over every access the pragma declares or the body
//!   performs, so more dependences are assumed, never fewer). Fused point
//!   by point, their order inside an iteration is then free, and no stage
//!   loads what the other stored an iteration before;
//! - in every tile they run over the same points (their per-tile regions,
//!   shifted and scaled as the point loops run them, are equal): the fused
//!   loop needs no guard;
//! - at some point they read a common element of a data set (the paper's
//!   intersecting references).
//!
//! The result is data: runs of stages ([`GroupAnalysis::reuse`]) that
//! `overlap_tree` gives one innermost point loop each (per chunk under
//! rectangle tiles, per tile under scalene ones).

use crate::diag::Result;
use crate::model::isl_ext::isl_err;
use crate::model::polyhedral::RegionModel;
use crate::model::program::{AccessKind, Region, Stage};
use crate::model::relations::ByStatement;
use crate::transform::inline::straight_assignment;
use crate::transform::overlap::GroupAnalysis;
use isl_rs::{DimType, Map};
use std::collections::BTreeSet;

/// The runs of consecutive stages of the analysed group `a` (of `region`,
/// with `model`) whose point loops fuse (see the module documentation),
/// every stage in exactly one run, in order.
pub(crate) fn reuse_runs(
    region: &Region,
    model: &RegionModel,
    a: &GroupAnalysis,
) -> Result<Vec<Vec<usize>>> {
    let n = region.stages.len();
    let storage = a.storage.groups.first();
    let stored: BTreeSet<usize> = storage
        .map(|g| g.stores().map(|(_, k)| k).collect())
        .unwrap_or_default();
    let alone: BTreeSet<usize> = a
        .units
        .iter()
        .filter(|u| u.len() > 1)
        .flatten()
        .copied()
        .collect();
    let fusable = |k: usize| {
        let s = &region.stages[k];
        s.analysable
            && straight_assignment(s)
            && stencil(s)
            && !stored.contains(&k)
            && !alone.contains(&k)
    };
    let reads = ByStatement::new(&model.reads)?;
    // Per stage (computed when needed): its points per tile, `[T] -> [p]`,
    // and what it reads at each point, `[p] -> D[x]`.
    let mut points: Vec<Option<(Map, Vec<Map>)>> = (0..n).map(|_| None).collect();
    let mut runs: Vec<Vec<usize>> = Vec::new();
    for k in 0..n {
        let mut joins = false;
        if let Some(run) = runs.last() {
            let first = run[0];
            // A run's later stages joined it only when fusable.
            if fusable(k)
                && fusable(first)
                && region.stages[first].time_step == region.stages[k].time_step
                && run
                    .iter()
                    .all(|m| independent(&region.stages[*m], &region.stages[k]))
            {
                for j in run.iter().copied().chain([k]) {
                    if points[j].is_none() {
                        points[j] = Some(stage_points(a, &reads, &region.stages[j], j)?);
                    }
                }
                joins = same_points(&points, first, k)? && shares_input(&points, run, k)?;
            }
        }
        match runs.last_mut() {
            Some(run) if joins => run.push(k),
            _ => runs.push(vec![k]),
        }
    }
    Ok(runs)
}

/// Stage `s` reads some data set at more than one point of it per
/// iteration (its accesses name it with different subscripts).
fn stencil(s: &Stage) -> bool {
    let mut seen: BTreeSet<(&str, String)> = BTreeSet::new();
    let reads = s
        .analysed()
        .unwrap_or_default()
        .iter()
        .filter(|x| x.kind == AccessKind::Read);
    for x in reads {
        seen.insert((x.data.as_str(), format!("{:?}", x.index)));
    }
    let mut data: Vec<&str> = seen.iter().map(|(d, _)| *d).collect();
    let all = data.len();
    data.dedup();
    data.len() < all
}

/// No dependence can join `a` and `b`: neither writes a data set the
/// other accesses (declared or performed accesses, by name).
fn independent(a: &Stage, b: &Stage) -> bool {
    let data = |s: &Stage, write_only: bool| -> BTreeSet<String> {
        s.accesses
            .iter()
            .chain(s.observed.iter().flatten())
            .filter(|x| !write_only || x.kind == AccessKind::Write)
            .map(|x| x.data.clone())
            .collect()
    };
    data(a, true).is_disjoint(&data(b, false)) && data(b, true).is_disjoint(&data(a, false))
}

/// Stages `j` and `k` run over the same points in every tile.
fn same_points(points: &[Option<(Map, Vec<Map>)>], j: usize, k: usize) -> Result<bool> {
    match (&points[j], &points[k]) {
        (Some((pj, _)), Some((pk, _))) => pj.is_equal(pk).map_err(isl_err),
        _ => Ok(false),
    }
}

/// Some stage of `run` reads an element that stage `k` reads at the same
/// point.
fn shares_input(points: &[Option<(Map, Vec<Map>)>], run: &[usize], k: usize) -> Result<bool> {
    let Some((_, rk)) = &points[k] else {
        return Ok(false);
    };
    for (_, rm) in run.iter().filter_map(|m| points[*m].as_ref()) {
        for x in rm {
            for y in rk {
                let data = |m: &Map| -> Result<(String, i32)> {
                    Ok((
                        m.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string(),
                        m.range_tuple_dim().map_err(isl_err)?,
                    ))
                };
                let same_data = data(x)? == data(y)?;
                if !same_data {
                    continue;
                }
                let empty = x
                    .copy()
                    .and_then(|x| x.intersect(y.copy()?))
                    .and_then(|c| c.is_empty())
                    .map_err(isl_err)?;
                if !empty {
                    return Ok(true);
                }
            }
        }
    }
    Ok(false)
}

/// Stage `k`'s points per tile (`[T] -> [p]`, `p = scale*i + shift` as the
/// point loops run them) and its reads by point (`[p] -> D[x]`, one
/// relation per data set).
fn stage_points(
    a: &GroupAnalysis,
    reads: &ByStatement,
    s: &Stage,
    k: usize,
) -> Result<(Map, Vec<Map>)> {
    let ctx = a.regions[k].get_ctx();
    let its: Vec<String> = (0..a.depth).map(|d| format!("i{d}")).collect();
    let ps: Vec<String> = (0..a.depth)
        .map(|d| format!("{}*i{d} + {}", a.scales[k][d], a.shifts[k][d]))
        .collect();
    let to_point = Map::read_from_str(
        &ctx,
        &format!(
            "{{ {}[{}] -> [{}] }}",
            s.name,
            its.join(", "),
            ps.join(", ")
        ),
    )
    .map_err(isl_err)?;
    let per_tile = a.regions[k]
        .copy()
        .and_then(|r| r.reverse())
        .and_then(|r| r.apply_range(to_point.copy()?))
        .map_err(isl_err)?;
    let domain = a.regions[k]
        .copy()
        .and_then(|r| r.domain())
        .map_err(isl_err)?;
    let mut by_point = Vec::new();
    let mine = reads.intersect_domain(&s.name, &domain)?;
    for m in crate::model::relations::map_list(&mine)? {
        let m = to_point
            .copy()
            .and_then(|p| p.reverse())
            .and_then(|p| p.apply_range(m))
            .map_err(isl_err)?;
        by_point.push(m);
    }
    Ok((per_tile, by_point))
}
