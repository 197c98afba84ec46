//! Hybrid register/shared tiles (Jangda & Guha, PACT'20, §5, Algorithm 1):
//! with one overlapped tile per warp, the right part of every statement's
//! per-tile region along the split loop (the innermost) is computed in
//! registers, the rest in the warp's scratchpads as before.
//!
//! The split loop's right `K` parallelogram tiles, each a warp (32 lanes)
//! wide, aligned on the statement's right face, are its register part: lane
//! `l` of the warp computes the points `first + 32 j + l`, `0 <= j < K`
//! (and all the points of the other loops' per-tile regions, which must be
//! constant in size), each into a named register. Since the parts are
//! aligned on the right faces of the overlapped tile (§5: "parallel to the
//! right hyperplane"), after alignment and scaling every read of a held
//! value is at a constant offset from the reader's own register
//! coordinates: along the split loop a lane's own register (Type 1), the
//! scratchpad where the offset reaches left of the producer's register part
//! (Type 2), or a shuffle from a lane of the same or the previous
//! parallelogram tile (Types 3 and 4; Figure 7's three code shapes are one
//! pair of shuffles and a select per read here). The scratchpads shrink to
//! the left part: that is the shared memory hybrid tiling saves. Since the
//! register parts run after the shared-memory part and read its
//! scratchpads, a scratchpad lives to the end of the tile: the buffer
//! sharing that overlays scratchpads of disjoint phases is undone.
//!
//! This pass checks that a group qualifies and writes the plan
//! ([`RegisterTiles`]) into the group's storage plan, shrinking its buffers;
//! the CUDA back end prints the register parts from it. A group that does
//! not qualify keeps its scratchpads (the caller falls back to one tile per
//! warp): every held data set has one writer, which writes and whose
//! readers read it at `iterator + constant` in every loop; the group has no
//! loads, slides or inner tiles; no loop is scaled; the regions are wide
//! enough for `K` warps; every read of held data along the split loop
//! points left (so the shared part never reads a register).

use crate::model::isl_ext::{dim_range, isl_err};
use crate::model::polyhedral::Names;
use crate::model::program::{AccessKind, Region};
use crate::model::storage::{
    Affine, Placement, RegisterPart, RegisterRead, RegisterTiles, StmtRole, StoragePlan, Term,
};
use crate::transform::overlap::{GroupAnalysis, WHOLE};
use crate::transform::storage::map_condition;
use isl_rs::Map;
use std::collections::{BTreeMap, BTreeSet};

/// Lanes of a parallelogram tile: a warp.
pub const LANES: usize = 32;

/// The most registers one statement's register part may take per lane.
pub const MAX_REGISTERS_PER_STAGE: i64 = 64;

/// What the steps of [`plan`] share.
struct Split<'a> {
    region: &'a Region,
    a: &'a GroupAnalysis,
    /// Parallelogram tiles kept in registers.
    tiles: usize,
    /// The split loop (the innermost).
    dim: usize,
    /// Points of the split loop in registers: `tiles` warps.
    span: i64,
}

/// Each statement's register part, per loop: its first point (from the
/// tile's origin) and its width.
struct Extents {
    firsts: Vec<Vec<Affine>>,
    widths: Vec<Vec<i64>>,
}

/// The data held in registers, each data set's writer (stage and write
/// offsets), and the new extent of each shrunk buffer along the split loop.
struct Held {
    held: BTreeSet<String>,
    writer_of: BTreeMap<String, (usize, Vec<i64>)>,
    shrink: Vec<(usize, i64)>,
}

/// Plans `tiles` register-held parallelogram tiles for the group analysed
/// as `a` whose storage plan (its only group) is `plan`: on success the
/// plan holds them and its scratchpads are shrunk (`false`: the group has
/// no scratchpad, nothing to hold); otherwise why the group does not
/// qualify (the plan is unchanged).
pub(crate) fn plan(
    region: &Region,
    names: &Names,
    a: &GroupAnalysis,
    plan: &mut StoragePlan,
    tiles: usize,
) -> std::result::Result<bool, String> {
    let dim = a.depth.checked_sub(1).ok_or("the group has no loops")?;
    let span = (tiles * LANES) as i64;
    let has_buffers = plan
        .buffers
        .iter()
        .any(|b| b.placement == (Placement::Tile { group: 0 }));
    if !has_buffers {
        return Ok(false);
    }
    let c = Split {
        region,
        a,
        tiles,
        dim,
        span,
    };
    check_group(&c, plan)?;
    let extents = register_extents(&c)?;
    let Held {
        held,
        writer_of,
        shrink,
    } = held_data(&c, plan, &extents.firsts)?;
    let group = plan
        .groups
        .first()
        .ok_or("a storage plan without its group")?;
    let parts = register_parts(&c, names, group, &extents, &writer_of)?;
    for (b, extent) in shrink {
        plan.buffers[b].extents[dim] = Affine::constant(extent);
        // The register parts run after the whole shared-memory part and
        // read its scratchpads (Type 2): every scratchpad lives to the end
        // of the tile, so none shares its allocation with another.
        plan.buffers[b].pool = None;
    }
    if let Some(g) = plan.groups.first_mut() {
        g.registers = Some(RegisterTiles {
            tiles,
            lanes: LANES,
            dim,
            held,
            parts,
        });
    }
    Ok(true)
}

/// Why the group analysed as `c.a` with storage plan `plan` does not
/// qualify for register tiles, before its statements are looked at.
fn check_group(c: &Split, plan: &StoragePlan) -> std::result::Result<(), String> {
    let (a, tiles, dim, span) = (c.a, c.tiles, c.dim, c.span);
    if tiles == 0 {
        return Err("no parallelogram tile is kept in registers".into());
    }
    if !a.loads.is_empty() {
        return Err("its tiles load values from before the group into scratchpads (an array updated in place, a time block), which registers do not hold".into());
    }
    if a.classic.is_some() {
        return Err("a loop is tiled classically (--overlap-dims): its scratchpads slide".into());
    }
    if a.inner.is_some() {
        return Err("its tiles hold inner tiles (multi-level tiling)".into());
    }
    let group = plan
        .groups
        .first()
        .ok_or("a storage plan without its group")?;
    if group
        .statements
        .values()
        .any(|r| !matches!(r, StmtRole::Store { .. }))
    {
        return Err("its tiles load or slide scratchpads".into());
    }
    if a.sizes[dim] >= WHOLE || a.sizes[dim] < span {
        return Err(format!(
            "its tile along the innermost loop ({}) is narrower than {tiles} warp(s)",
            size_text(a.sizes[dim])
        ));
    }
    if a.scales.iter().flatten().any(|s| *s != 1) {
        return Err("a stage is scaled to align its dependences".into());
    }
    Ok(())
}

/// Each statement's register part: where it starts and how wide it is,
/// per loop.
fn register_extents(c: &Split) -> std::result::Result<Extents, String> {
    let (region, a, tiles, dim, span) = (c.region, c.a, c.tiles, c.dim, c.span);
    let depth = a.depth;
    let mut firsts = Vec::new();
    let mut widths = Vec::new();
    for (k, stage) in region.stages.iter().enumerate() {
        if stage.analysed().is_none() {
            return Err(format!("{} is not analysable", stage.label));
        }
        let (lo, hi) = offsets(&a.regions[k], &stage.name, &a.sizes)?;
        let mut first = Vec::new();
        let mut width = Vec::new();
        for d in 0..depth {
            let tile = |c: i64| match a.sizes[d] >= WHOLE {
                true => Affine::constant(c),
                false => Affine::constant(c).plus(a.sizes[d], Term::Tile(d)),
            };
            if d == dim {
                if hi[d] - lo[d] + 1 < span {
                    return Err(format!(
                        "{} computes {} points per tile along the innermost loop, fewer than {tiles} warp(s)",
                        stage.label,
                        hi[d] - lo[d] + 1
                    ));
                }
                first.push(tile(hi[d] - span + 1));
                width.push(span);
            } else {
                first.push(tile(lo[d]));
                width.push(hi[d] - lo[d] + 1);
            }
        }
        let registers: i64 = width.iter().product::<i64>() / LANES as i64;
        if registers > MAX_REGISTERS_PER_STAGE {
            return Err(format!(
                "{} would hold {registers} registers per lane (at most {MAX_REGISTERS_PER_STAGE})",
                stage.label
            ));
        }
        firsts.push(first);
        widths.push(width);
    }
    Ok(Extents { firsts, widths })
}

/// The held data: every tile buffer's, each with one writer, and how far
/// each buffer shrinks.
fn held_data(
    c: &Split,
    plan: &StoragePlan,
    firsts: &[Vec<Affine>],
) -> std::result::Result<Held, String> {
    let (region, dim, span) = (c.region, c.dim, c.span);
    let mut held = BTreeSet::new();
    let mut writer_of = BTreeMap::new();
    let mut shrink = Vec::new();
    for (b, buf) in plan.buffers.iter().enumerate() {
        if buf.placement != (Placement::Tile { group: 0 }) {
            continue;
        }
        let [data] = buf.data.as_slice() else {
            return Err(format!("buffer {} holds several data sets", buf.name));
        };
        if buf.index.moduli.iter().any(Option::is_some) {
            return Err(format!("the scratchpad of '{data}' is a rolling window"));
        }
        if crate::model::mdg::type_bytes(&buf.elem_type).is_none_or(|b| b > 8) {
            return Err(format!(
                "'{data}' has elements of type {}, which a shuffle cannot move",
                buf.elem_type
            ));
        }
        let writers: Vec<(usize, usize)> = region
            .stages
            .iter()
            .enumerate()
            .flat_map(|(k, s)| {
                s.analysed()
                    .unwrap_or_default()
                    .iter()
                    .enumerate()
                    .filter(|(_, x)| x.kind == AccessKind::Write && x.data == *data)
                    .map(move |(i, _)| (k, i))
            })
            .collect();
        let [(p, w)] = writers.as_slice() else {
            return Err(format!(
                "'{data}' has {} writes in the group",
                writers.len()
            ));
        };
        let stage = &region.stages[*p];
        let access = &stage.analysed().unwrap_or_default()[*w];
        if access.conditional {
            return Err(format!("{} writes '{data}' under a condition", stage.label));
        }
        let cw = unit_offsets(&access.index, &stage.iterators).ok_or_else(|| {
            format!(
                "{} writes '{data}' other than at its iterators plus constants",
                stage.label
            )
        })?;
        if stage
            .analysed()
            .unwrap_or_default()
            .iter()
            .any(|x| x.kind == AccessKind::Read && x.data == *data)
        {
            return Err(format!("{} reads the '{data}' it writes", stage.label));
        }
        // The buffer's right end along the split loop is the register part's.
        let extent = buf.extents.get(dim).and_then(Affine::constant_value);
        let offset = buf.index.offsets.get(dim);
        let (Some(extent), Some(offset)) = (extent, offset) else {
            return Err(format!("the scratchpad of '{data}' has no constant size"));
        };
        let right = firsts[*p][dim].clone();
        let end = Affine {
            constant: right.constant + span - 1 + cw[dim] - (extent - 1),
            ..right
        };
        if !same(&end, offset) || extent < span {
            return Err(format!(
                "the scratchpad of '{data}' ({extent} elements from {offset:?}) does not end where its register part does ({end:?})"
            ));
        }
        held.insert(data.clone());
        writer_of.insert(data.clone(), (*p, cw));
        // All of it in registers: one element stays, never accessed (no
        // instance of the writer lies left of its register part).
        shrink.push((b, (extent - span).max(1)));
    }
    Ok(Held {
        held,
        writer_of,
        shrink,
    })
}

/// The register parts in order, each statement's followed by its stores,
/// with the reads of held data.
fn register_parts(
    c: &Split,
    names: &Names,
    group: &crate::model::storage::GroupStorage,
    extents: &Extents,
    writer_of: &BTreeMap<String, (usize, Vec<i64>)>,
) -> std::result::Result<Vec<RegisterPart>, String> {
    let (region, a, dim) = (c.region, c.a, c.dim);
    let depth = a.depth;
    let (firsts, widths) = (&extents.firsts, &extents.widths);
    let stores: Vec<(String, usize)> = group.stores().map(|(n, s)| (n.to_string(), s)).collect();
    let mut parts = Vec::new();
    for (k, stage) in region.stages.iter().enumerate() {
        let mut reads = Vec::new();
        let mut writes = None;
        for (i, x) in stage.analysed().unwrap_or_default().iter().enumerate() {
            let Some((p, cw)) = writer_of.get(&x.data) else {
                continue;
            };
            if x.kind == AccessKind::Write {
                writes = Some(x.data.clone());
                continue;
            }
            let cr = unit_offsets(&x.index, &stage.iterators).ok_or_else(|| {
                format!(
                    "{} reads '{}' other than at its iterators plus constants",
                    stage.label, x.data
                )
            })?;
            let mut offset = Vec::new();
            for d in 0..depth {
                let (c, p0) = (&firsts[k][d], &firsts[*p][d]);
                let diff = Affine {
                    constant: p0.constant,
                    ..c.clone()
                };
                if !same(&diff, p0) {
                    return Err(format!(
                        "{} and the writer of '{}' have register parts at different places",
                        stage.label, x.data
                    ));
                }
                offset.push(c.constant - p0.constant + cr[d] - cw[d]);
            }
            if offset[dim] > 0 {
                return Err(format!(
                    "{} reads '{}' right of its register part",
                    stage.label, x.data
                ));
            }
            reads.push(RegisterRead {
                access: i,
                data: x.data.clone(),
                offset,
            });
        }
        let guard = |m: &Map| {
            map_condition(m, names)
                .map_err(|e| e.first_message())?
                .ok_or_else(|| format!("{}'s per-tile region has strides", stage.label))
        };
        parts.push(RegisterPart {
            stmt: stage.name.clone(),
            stage: stage.name.clone(),
            first: firsts[k].clone(),
            widths: widths[k].clone(),
            guard: guard(&a.regions[k])?,
            writes,
            reads,
        });
        for (store, _) in stores.iter().filter(|(_, s)| *s == k) {
            parts.push(RegisterPart {
                stmt: store.clone(),
                stage: stage.name.clone(),
                first: firsts[k].clone(),
                widths: widths[k].clone(),
                guard: guard(&a.own[k])?,
                writes: None,
                reads: Vec::new(),
            });
        }
    }
    Ok(parts)
}

/// The least and greatest offset, per loop, of the iterations of `stage`'s
/// per-tile region `region` (`S[i] -> [T]`) from their tile's origin
/// (`i - size*T`; a loop one tile spans: `i`), over all tiles and
/// parameters.
fn offsets(
    region: &Map,
    stage: &str,
    sizes: &[i64],
) -> std::result::Result<(Vec<i64>, Vec<i64>), String> {
    let n = sizes.len();
    let its: Vec<String> = (0..n).map(|d| format!("i{d}")).collect();
    let ts: Vec<String> = (0..n).map(|d| format!("T{d}")).collect();
    let os: Vec<String> = (0..n)
        .map(|d| match sizes[d] >= WHOLE {
            true => format!("o{d} = i{d}"),
            false => format!("o{d} = i{d} - {}*T{d}", sizes[d]),
        })
        .collect();
    let text = format!(
        "{{ [{stage}[{}] -> [{}]] -> [{}] : {} }}",
        its.join(", "),
        ts.join(", "),
        (0..n)
            .map(|d| format!("o{d}"))
            .collect::<Vec<_>>()
            .join(", "),
        os.join(" and ")
    );
    let fail = |e| isl_err(e).first_message();
    let to = Map::read_from_str(&region.get_ctx(), &text).map_err(fail)?;
    let deltas = region
        .copy()
        .and_then(|m| m.wrap())
        .and_then(|w| w.apply(to))
        .and_then(|d| d.project_out_all_params())
        .map_err(fail)?;
    let (mut lo, mut hi) = (Vec::new(), Vec::new());
    for d in 0..n {
        let Some((min, max)) = dim_range(&deltas, d).map_err(|e| e.first_message())? else {
            return Err(format!(
                "the per-tile region of {stage} is not bounded by constants along loop {d}"
            ));
        };
        lo.push(min);
        hi.push(max);
    }
    Ok((lo, hi))
}

/// `c[d]` when index `d` is `iterators[d] + c[d]` for every dimension (as
/// many as the iterators), else `None`.
fn unit_offsets(index: &[crate::model::expr::Expr], iterators: &[String]) -> Option<Vec<i64>> {
    use crate::model::expr::Expr;
    if index.len() != iterators.len() {
        return None;
    }
    index
        .iter()
        .zip(iterators)
        .map(|(e, it)| {
            if !e.is_affine() {
                return None;
            }
            let at = |v: i64| e.substitute(it, &Expr::Int(v)).constant();
            let (a, b) = (at(0)?, at(1)?);
            (b - a == 1).then_some(a)
        })
        .collect()
}

/// Whether two affine functions are equal (terms in any order).
fn same(a: &Affine, b: &Affine) -> bool {
    let key = |x: &Affine| {
        let mut t: Vec<String> = x
            .terms
            .iter()
            .filter(|(_, k)| *k != 0)
            .map(|(t, k)| format!("{t:?}*{k}"))
            .collect();
        t.sort();
        (x.constant, t)
    };
    key(a) == key(b)
}

/// A tile size as the user writes it.
fn size_text(s: i64) -> String {
    match s >= WHOLE {
        true => "whole".to_string(),
        false => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{same, unit_offsets};
    use crate::model::expr::Expr;
    use crate::model::storage::{Affine, Term};

    #[test]
    fn unit_offsets_accept_iterator_plus_constant_only() {
        let its = vec!["y".to_string(), "x".to_string()];
        let plus = |v: &str, c: i64| Expr::sum(Expr::Var(v.into()), Expr::Int(c));
        assert_eq!(
            unit_offsets(&[Expr::Var("y".into()), plus("x", -1)], &its),
            Some(vec![0, -1])
        );
        // 2*x, x of the wrong dimension, a missing dimension.
        let twice = Expr::product(Expr::Int(2), Expr::Var("x".into()));
        assert_eq!(unit_offsets(&[Expr::Var("y".into()), twice], &its), None);
        assert_eq!(
            unit_offsets(&[Expr::Var("x".into()), Expr::Var("y".into())], &its),
            None
        );
        assert_eq!(unit_offsets(&[Expr::Var("y".into())], &its), None);
    }

    #[test]
    fn affine_equality_ignores_the_order_of_terms() {
        let a = Affine::constant(3)
            .plus(2, Term::Tile(0))
            .plus(1, Term::Param("N".into()));
        let b = Affine::constant(3)
            .plus(1, Term::Param("N".into()))
            .plus(2, Term::Tile(0));
        assert!(same(&a, &b));
        assert!(!same(&a, &Affine::constant(3).plus(2, Term::Tile(0))));
    }
}
