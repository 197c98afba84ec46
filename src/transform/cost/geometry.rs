//! A group's geometry, what COST reads (Jangda & Bondhugula, TOPLAS'20, §4): read from the
//! pipeline graph by arithmetic, without building anything. The scale
//! factors that align the group's dependences, each statement's overlap
//! (how far its per-tile region reaches past the tile, left and right,
//! along each loop, accumulated over the flow dependences towards the
//! group's last stages), its extents under the problem-size estimates, and
//! the reuse along each loop (COMPUTETILESIZES sizes the loops in
//! proportion to it).

use crate::model::program::Region;
use crate::transform::align::propagate_scales;
use crate::transform::pipeline::{must_reach_memory, Flow, PipelineGraph};

/// One statement of a group, after alignment and scaling.
#[derive(Clone, Debug)]
pub struct GeoStmt {
    /// Scale factor per loop.
    pub scale: Vec<i64>,
    /// How far its per-tile region reaches before the tile, per loop (scaled).
    pub left: Vec<i64>,
    /// How far it reaches after the tile, per loop (scaled).
    pub right: Vec<i64>,
    /// Its extent per loop under the estimates, scaled (`None`: unbounded).
    pub extent: Vec<Option<i64>>,
    /// Per loop: constants bound it (`extent` holds whatever the parameters).
    pub fixed: Vec<bool>,
    /// Bytes of one element it writes.
    pub bytes: i64,
    /// Its values must reach memory (read after the group, or not a temporary).
    pub live_out: bool,
    /// The data it reads from outside the group.
    pub inputs: Vec<String>,
    /// Its reads per point.
    pub ops: i64,
    /// A later statement of the group reads what it writes (a tile keeps
    /// its region in a scratchpad).
    pub consumed: bool,
}

/// A group's geometry (what COST reads).
#[derive(Clone, Debug)]
pub struct Geometry {
    /// Loops of every statement.
    pub depth: usize,
    /// The group's statements, in order.
    pub stmts: Vec<GeoStmt>,
    /// Reuse score per loop: one plus the reach of the dependences along it.
    pub reuse: Vec<f64>,
}

/// The scales of the statements `stmts` (of `region`) per loop, from the
/// aligned flow dependences `inner` between them (local positions), or why
/// they have none.
fn loop_scales(
    region: &Region,
    stmts: &[usize],
    inner: &[(usize, usize, &Flow)],
    depth: usize,
) -> std::result::Result<Vec<Vec<i64>>, String> {
    let n = stmts.len();
    let mut scale = vec![vec![1; depth]; n];
    for d in 0..depth {
        let mut edges = Vec::new();
        for (a, b, f) in inner {
            let Some(al) = f.align[d] else {
                return Err(format!(
                    "the dependences of {} on {} along loop {d} are neither uniform nor a fixed sampling",
                    region.stages[f.to].label, region.stages[f.from].label
                ));
            };
            edges.push((*a, *b, al.p, al.q));
        }
        let ints = propagate_scales(n, &edges).map_err(|(a, b)| {
            format!(
                "{} and {} need conflicting scalings along loop {d}",
                region.stages[stmts[a]].label, region.stages[stmts[b]].label
            )
        })?;
        for (row, v) in scale.iter_mut().zip(ints) {
            row[d] = v;
        }
    }
    Ok(scale)
}

/// The geometry of the units `group` of `graph`'s region, or why the group
/// cannot be overlapped (its cost is then infinite).
pub fn geometry(
    graph: &PipelineGraph,
    region: &Region,
    group: &[usize],
) -> std::result::Result<Geometry, String> {
    let mut stmts: Vec<usize> = group.iter().flat_map(|u| graph.units[*u].clone()).collect();
    stmts.sort_unstable();
    let mut position = vec![None; graph.stmts.len()];
    for (i, k) in stmts.iter().enumerate() {
        position[*k] = Some(i);
    }
    let local = |k: usize| position[k];
    let depth = graph.stmts[stmts[0]].depth;
    if let Some(k) = stmts.iter().find(|k| graph.stmts[**k].depth != depth) {
        return Err(format!(
            "{} has {} loops, the group {depth}",
            region.stages[*k].label, graph.stmts[*k].depth
        ));
    }
    if depth == 0 {
        return Err("no loops".into());
    }
    let inner: Vec<_> = stmts
        .iter()
        .flat_map(|k| graph.flows_from[*k].iter().map(|i| &graph.flows[*i]))
        .filter_map(|f| Some((local(f.from)?, local(f.to)?, f)))
        .collect();
    let n = stmts.len();
    let scale = loop_scales(region, &stmts, &inner, depth)?;
    for u in group {
        let ks = &graph.units[*u];
        if ks
            .iter()
            .any(|k| scale[local(*k).unwrap_or(0)] != scale[local(ks[0]).unwrap_or(0)])
        {
            return Err(format!(
                "the statements of {} would need different scalings",
                region.stages[ks[0]].label
            ));
        }
    }
    // Overlap, from the last statements back (a value flows forward in
    // textual order; one flowing back closes a recurrence).
    let mut left = vec![vec![0i64; depth]; n];
    let mut right = vec![vec![0i64; depth]; n];
    let mut reuse = vec![1.0; depth];
    for p in (0..n).rev() {
        for (a, c, f) in inner.iter().filter(|(a, _, _)| *a == p) {
            if c <= a {
                return Err(format!(
                    "{} reads what {} computes later",
                    region.stages[f.to].label, region.stages[f.from].label
                ));
            }
            for d in 0..depth {
                let Some(al) = f.align[d] else { continue };
                // Distances in scaled coordinates: scale_c / p * (p*x - q*y).
                let (num, den) = (scale[*c][d], al.p);
                let lo = (num * al.min).div_euclid(den);
                let hi = -(-(num * al.max)).div_euclid(den);
                left[p][d] = left[p][d].max(left[*c][d] + hi);
                right[p][d] = right[p][d].max(right[*c][d] - lo);
                reuse[d] += (hi - lo) as f64;
            }
        }
    }
    // What tile-local storage cannot hold (as `plan_storage` refuses it):
    // data passed inside the group that a statement writes only under a
    // condition, or that an opaque body touches while a writer of it is
    // recomputed.
    for (a, _, f) in &inner {
        for data in &graph.stmts[f.from].writes {
            if let Some(k) = stmts
                .iter()
                .find(|k| graph.stmts[**k].conditional.contains(data))
            {
                return Err(format!(
                    "{} writes '{data}' only under a condition",
                    region.stages[*k].label
                ));
            }
            let recomputed = (0..depth).any(|d| left[*a][d] > 0 || right[*a][d] > 0);
            let touches = |k: &usize| {
                let s = &graph.stmts[*k];
                s.opaque && (s.reads.contains(data) || s.writes.contains(data))
            };
            if let Some(k) = stmts.iter().find(|k| touches(k)).filter(|_| recomputed) {
                return Err(format!(
                    "the body of {} is not analysable, and '{data}' would need tile-local storage",
                    region.stages[*k].label
                ));
            }
        }
    }
    let written_inside: Vec<&String> = stmts.iter().flat_map(|k| &graph.stmts[*k].writes).collect();
    let geo = stmts
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let s = &graph.stmts[*k];
            GeoStmt {
                scale: scale[i].clone(),
                left: left[i].clone(),
                right: right[i].clone(),
                extent: s
                    .extents
                    .iter()
                    .zip(&scale[i])
                    .map(|(e, a)| e.map(|e| e * a))
                    .collect(),
                fixed: s.fixed.clone(),
                bytes: s.bytes,
                live_out: s.writes.iter().any(|d| {
                    !region.temporaries.iter().any(|t| &t.name == d)
                        || must_reach_memory(region, &stmts, d)
                }),
                inputs: s
                    .reads
                    .iter()
                    .filter(|d| !written_inside.contains(d))
                    .cloned()
                    .collect(),
                ops: s.ops,
                consumed: inner.iter().any(|(a, _, _)| *a == i),
            }
        })
        .collect();
    Ok(Geometry {
        depth,
        stmts: geo,
        reuse,
    })
}
