//! Loop-chain fusion with shifts (`schedule(fuse(...))` of the omplc pragma).
//!
//! All nests of a chain are fused into one band: nest `k`'s iteration `i`
//! runs at fused iteration `i + s_k`, and a sequence below the band keeps the
//! nests' textual order inside one fused iteration. With `fuse()` flextile
//! computes the smallest non-negative shifts `s_k` that make every dependence
//! distance non-negative in every dimension (so the fused band is also
//! tileable); with `fuse(t1, ..., tn)` the user's shifts are checked against
//! the dependences and rejected, naming both nests, when they violate one.
//!
//! Where nothing tiles the fused band afterwards, the part of the fused
//! space where every nest runs is isolated (isl's `isolate` option) and
//! generated without guards; the shifted edges around it get one loop per
//! level with the nests guarded inside (atomic). Without it, every fused
//! iteration tests every nest's bounds (minifluxdiv's chain of nine nests:
//! 103 ms against 70 isolated, 1 thread, bench size). isl's work on the
//! edges grows with the nests and their shifts (a chain of 1000 nests, each
//! shifted one further, ran for minutes), so chains of more than
//! [`MAX_ISOLATED_NESTS`] nests keep the plain fused band.

use crate::diag::{Diagnostic, Error, Result, Span};
use crate::model::deps::Dependences;
use crate::model::isl_ext::isl_err;
use crate::model::polyhedral::{isl_name, Names};
use crate::model::program::{OrigNode, Region};
use crate::transform::legality::check_schedule;
use isl_rs::{DimType, Map, MultiUnionPwAff, Schedule, ScheduleNodeType, UnionMap};
use log::info;

/// The most nests whose fused band gets an isolated core.
pub const MAX_ISOLATED_NESTS: usize = 16;

/// Fuses all nests of the chain `region` under `schedule` (its original
/// schedule). `shifts` are the user's, or `None` to compute them. `isolate`:
/// the fused band is final (no tiling follows), so its guard-free core is
/// isolated (for at most [`MAX_ISOLATED_NESTS`] nests).
pub fn fuse(
    schedule: Schedule,
    region: &Region,
    names: &Names,
    deps: &Dependences,
    shifts: Option<&[Vec<i64>]>,
    span: Span,
    isolate: bool,
) -> Result<Schedule> {
    let depth = common_depth(region, span)?;
    let n = region.stages.len();
    if n < 2 {
        info!("fuse: a chain of {n} nest(s) needs no fusion");
        return Ok(schedule);
    }
    let all = deps.all()?;
    let shifts: Vec<Vec<i64>> = match shifts {
        Some(s) => {
            if s.len() != n {
                return Err(Error::at(
                    span,
                    format!(
                        "fuse lists {} shift tuples but the chain has {} nests",
                        s.len(),
                        n
                    ),
                ));
            }
            for (k, t) in s.iter().enumerate() {
                if t.len() != depth {
                    return Err(Error::at(
                        span,
                        format!(
                            "shift tuple {} has {} components but the nests have {} loops",
                            k + 1,
                            t.len(),
                            depth
                        ),
                    ));
                }
            }
            s.to_vec()
        }
        None => minimal_shifts(region, &all, depth, span)?,
    };
    info!("fuse: shifts {shifts:?}");

    let fused = fused_band(region, names, &shifts)?;
    let ctx = schedule.get_ctx();
    let mupa = MultiUnionPwAff::read_from_str(&ctx, &fused).map_err(isl_err)?;
    // Edit: delete each nest's band below the sequence, insert the fused band above it.
    let mut node = schedule
        .get_root()
        .map_err(isl_err)?
        .child(0)
        .map_err(isl_err)?;
    if !matches!(
        node.get_type().map_err(isl_err)?,
        ScheduleNodeType::Sequence
    ) {
        return Err(Error::internal(
            "fuse: chain schedule is not a sequence of nests",
        ));
    }
    for k in 0..n as i32 {
        node = node.child(k).map_err(isl_err)?.child(0).map_err(isl_err)?;
        if matches!(node.get_type().map_err(isl_err)?, ScheduleNodeType::Band) {
            node = node.delete().map_err(isl_err)?;
        }
        node = node.parent().map_err(isl_err)?.parent().map_err(isl_err)?;
    }
    node = node.insert_partial_schedule(mupa).map_err(isl_err)?;
    if isolate && n <= MAX_ISOLATED_NESTS {
        node = isolate_core(node)?;
    }
    let fused_schedule = node.get_schedule().map_err(isl_err)?;

    if let Err(v) = check_schedule(&fused_schedule, deps, region)? {
        return Err(Error::user(
            Diagnostic::error(
                span,
                format!(
                    "fusion with these shifts violates a dependence: {} would {} data before {} {} it",
                    v.sink_label, v.sink_verb, v.source_label, v.source_verb
                ),
            )
            .with_note(v.source_span, format!("{} is here", v.source_label))
            .with_note(v.sink_span, format!("{} is here", v.sink_label)),
        ));
    }
    Ok(fused_schedule)
}

/// The loop depth shared by all nests; an error when they differ.
fn common_depth(region: &Region, span: Span) -> Result<usize> {
    let depths: Vec<usize> = region.stages.iter().map(|s| s.iterators.len()).collect();
    let first = depths.first().copied().unwrap_or(0);
    if let Some(k) = depths.iter().position(|d| *d != first) {
        return Err(Error::user(
            Diagnostic::error(
                span,
                format!(
                    "cannot fuse nests of different depths: {} has {} loops, {} has {}",
                    region.stages[0].label, first, region.stages[k].label, depths[k]
                ),
            )
            .with_note(region.stages[k].span, "this nest"),
        ));
    }
    if region
        .tree
        .iter()
        .any(|n| !matches!(n, OrigNode::Loop { .. }))
    {
        return Err(Error::at(span, "fuse applies to loop chains of loop nests"));
    }
    Ok(first)
}

/// `[P] -> [{ S0[i, j] -> [(i + s)] ; ... }, { ... }]`: the fused band.
fn fused_band(region: &Region, names: &Names, shifts: &[Vec<i64>]) -> Result<String> {
    let depth = region
        .stages
        .first()
        .map(|s| s.iterators.len())
        .unwrap_or(0);
    let mut members = Vec::new();
    for m in 0..depth {
        let parts: Vec<String> = region
            .stages
            .iter()
            .zip(shifts)
            .map(|(stage, shift)| {
                let its: Vec<String> = stage.iterators.iter().map(|i| isl_name(i)).collect();
                format!(
                    "{}[{}] -> [({} + {})]",
                    stage.name,
                    its.join(", "),
                    its[m],
                    shift[m]
                )
            })
            .collect();
        members.push(format!("{{ {} }}", parts.join("; ")));
    }
    Ok(format!("{}[{}]", names.params_prefix(), members.join(", ")))
}

/// The smallest non-negative shifts making every dependence distance
/// non-negative in every dimension: a longest-path problem over the
/// difference constraints `s_b[d] - s_a[d] >= -min(dist_d)`.
pub fn minimal_shifts(
    region: &Region,
    deps: &UnionMap,
    depth: usize,
    span: Span,
) -> Result<Vec<Vec<i64>>> {
    let n = region.stages.len();
    let index_of = |name: &str| region.stages.iter().position(|s| s.name == name);
    let mut need: Vec<(usize, usize, Vec<i64>)> = Vec::new();
    let list = deps.get_map_list().map_err(isl_err)?;
    for i in 0..list.size().map_err(isl_err)? {
        let m: Map = list.get_at(i).map_err(isl_err)?;
        let src = m.get_tuple_name(DimType::In).map_err(isl_err)?.to_string();
        let dst = m.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string();
        let (Some(a), Some(b)) = (index_of(&src), index_of(&dst)) else {
            return Err(Error::internal(format!(
                "dependence between unknown statements {src}, {dst}"
            )));
        };
        if a == b {
            continue;
        }
        // Distances y - x in the nests' own coordinates.
        let dist = m
            .set_tuple_name(DimType::In, "ft_d")
            .and_then(|m| m.set_tuple_name(DimType::Out, "ft_d"))
            .and_then(|m| m.deltas())
            .and_then(|d| d.project_out_all_params())
            .map_err(isl_err)?;
        let mut req = Vec::with_capacity(depth);
        for d in 0..depth {
            let v = dist
                .copy()
                .map_err(isl_err)?
                .dim_min_val(d as i32)
                .map_err(isl_err)?;
            if !v.is_int().map_err(isl_err)? {
                return Err(Error::user(
                    Diagnostic::error(
                        span,
                        format!(
                            "cannot compute fusion shifts: the dependence from {} to {} has no bounded distance in loop {}",
                            region.stages[a].label,
                            region.stages[b].label,
                            d + 1
                        ),
                    )
                    .with_note(region.stages[a].span, "source nest")
                    .with_note(region.stages[b].span, "target nest"),
                ));
            }
            req.push(-v.get_num_si().map_err(isl_err)?);
        }
        need.push((a, b, req));
    }
    let mut s = vec![vec![0i64; depth]; n];
    // Dependences go forward in the chain, so n rounds reach the fixed point.
    for _ in 0..=n {
        let mut changed = false;
        for (a, b, req) in &need {
            for d in 0..depth {
                let lower = s[*a][d] + req[d];
                if s[*b][d] < lower {
                    s[*b][d] = lower;
                    changed = true;
                }
            }
        }
        if !changed {
            return Ok(s);
        }
    }
    Err(Error::at(
        span,
        "cannot compute fusion shifts: the dependences between the nests form a cycle",
    ))
}

/// Sets the fused band `node`'s `isolate` option to the part of the fused
/// space every nest runs in (the intersection of their shifted domains),
/// and its loops atomic outside it. With no such part the band is left as
/// it is.
fn isolate_core(node: isl_rs::ScheduleNode) -> Result<isl_rs::ScheduleNode> {
    let sched = node
        .band_get_partial_schedule_union_map()
        .and_then(|m| m.intersect_domain(node.get_domain()?))
        .map_err(isl_err)?;
    let ranges = crate::model::relations::map_list(&sched)?
        .into_iter()
        .map(|m| m.range().map_err(isl_err))
        .collect::<Result<Vec<_>>>()?;
    match crate::transform::band::common_part(ranges)? {
        Some(core) => crate::transform::band::isolate(node, core, 0),
        None => Ok(node),
    }
}
