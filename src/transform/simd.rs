//! Marks the innermost loops that carry no dependence `#pragma omp simd`
//! (issue 19, item 5: every stage's innermost point loop must vectorise).
//!
//! Inside an OpenMP parallel loop gcc no longer sees a kernel's `restrict`
//! parameters (the outlined function reads them from a shared struct), and
//! gives up on loops that would need more than ten run-time alias tests
//! ("number of versioning for alias run-time tests exceeds 10":
//! minifluxdiv, pyramid-blend). `#pragma omp simd` tells it the iterations
//! are independent, which the dependences prove here: the last member of a
//! band with no band below it gets the mark when no dependence joins two
//! instances that only that member tells apart.
//!
//! Below an expansion node (overlapped tiles) a statement instance `S[i]`
//! runs as `S[T, i]` in every tile `T` that computes it; the dependences
//! that matter there join instances of one tile, so they are lifted to
//! `S[T, i] -> S'[T, i']`. A band holding a statement that is not one of
//! the region's (the copies of tile storage, whose accesses no dependence
//! describes) is left alone, as is a band whose statements were expanded
//! by different numbers of tile dimensions.
//!
//! Vectorising changes no result: no dependence is carried (so no
//! reduction is reassociated), `-ffp-contract=off` keeps multiplies and
//! adds apart, and without `-ffast-math` glibc declares no vector variants
//! of its math functions, so calls stay scalar.

use crate::diag::Result;
use crate::model::isl_ext::isl_err;
use crate::model::marks::Mark;
use crate::model::relations::map_list;
use crate::transform::band::{
    band_statements, has_band_below, insert_mark, map_children, mark_of, BandDeps,
};
use isl_rs::{DimType, Map, Schedule, ScheduleNode, ScheduleNodeType, UnionMap, UnionSet};
use log::info;
use std::collections::HashMap;

/// Inserts `simd` marks in `schedule` (of a region whose statements are
/// `domain`, with dependences `deps`).
pub fn mark_simd_loops(schedule: Schedule, deps: &UnionMap, domain: &UnionSet) -> Result<Schedule> {
    let ctx = StatementDeps::new(deps, domain)?;
    let root = schedule.get_root().map_err(isl_err)?;
    visit(root, &ctx, false)?.get_schedule().map_err(isl_err)
}

impl StatementDeps {
    /// The dependences `deps` of a region whose statements are `domain`.
    pub(crate) fn new(deps: &UnionMap, domain: &UnionSet) -> Result<StatementDeps> {
        let mut arity: HashMap<String, usize> = HashMap::new();
        let list = domain.get_set_list().map_err(isl_err)?;
        for i in 0..list.size().map_err(isl_err)? {
            let s = list.get_at(i).map_err(isl_err)?;
            let name = s.get_tuple_name().map_err(isl_err)?.to_string();
            arity.insert(name, s.tuple_dim().map_err(isl_err)? as usize);
        }
        let mut by_pair: HashMap<(String, String), Vec<Map>> = HashMap::new();
        for m in map_list(deps)? {
            let from = m.get_tuple_name(DimType::In).map_err(isl_err)?.to_string();
            let to = m.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string();
            by_pair.entry((from, to)).or_default().push(m);
        }
        Ok(StatementDeps { by_pair, arity })
    }

    /// Whether `name` is one of the region's statements (not a copy the
    /// storage plan added).
    pub(crate) fn is_region_statement(&self, name: &str) -> bool {
        self.arity.contains_key(name)
    }
}

/// A region's dependences by statement pair, for the band questions of
/// [`band_deps`].
pub(crate) struct StatementDeps {
    /// The region's dependences by (source, sink) statement.
    by_pair: HashMap<(String, String), Vec<Map>>,
    /// The region's statements and their numbers of loops.
    arity: HashMap<String, usize>,
}

fn visit(node: ScheduleNode, ctx: &StatementDeps, expanded: bool) -> Result<ScheduleNode> {
    match node.get_type().map_err(isl_err)? {
        // A parallel mark stays right above its band: the simd mark of an
        // innermost parallel band goes above the parallel mark.
        ScheduleNodeType::Mark if matches!(mark_of(&node)?, Some(Mark::Parallel { .. })) => {
            let band = node.get_child(0).map_err(isl_err)?;
            match band.get_type().map_err(isl_err)? {
                ScheduleNodeType::Band if !has_band_below(&band)? => {
                    mark_above(node, &band, ctx, expanded)
                }
                _ => visit_children(node, ctx, expanded),
            }
        }
        ScheduleNodeType::Band if !has_band_below(&node)? => {
            let band = node.copy().map_err(isl_err)?;
            mark_above(node, &band, ctx, expanded)
        }
        ScheduleNodeType::Expansion => visit_children(node, ctx, true),
        _ => visit_children(node, ctx, expanded),
    }
}

fn visit_children(node: ScheduleNode, ctx: &StatementDeps, expanded: bool) -> Result<ScheduleNode> {
    map_children(node, |c| visit(c, ctx, expanded))
}

/// Inserts a simd mark above `node` (the innermost band `band`, or its
/// parallel mark) when the band's last member carries no dependence;
/// returns the node now at `node`'s place.
fn mark_above(
    node: ScheduleNode,
    band: &ScheduleNode,
    ctx: &StatementDeps,
    expanded: bool,
) -> Result<ScheduleNode> {
    let n = band.band_n_member().map_err(isl_err)? as usize;
    if n == 0 {
        return Ok(node);
    }
    let Some(deps) = band_deps(band, ctx, expanded)? else {
        return Ok(node);
    };
    if !deps.is_empty().map_err(isl_err)?
        && !BandDeps::new(band, &deps)?.member_is_parallel(n - 1)?
    {
        return Ok(node);
    }
    let depth = band.get_schedule_depth().map_err(isl_err)? as usize + n - 1;
    info!("simd: the loop at depth {depth} carries no dependence");
    insert_mark(node, &Mark::Simd { depth })
}

/// The dependences between the instances reaching `band`, in their own
/// spaces (lifted into the tiles below an expansion); `None` when the band
/// holds a statement that is not the region's, or the statements were
/// expanded unevenly.
pub(crate) fn band_deps(
    band: &ScheduleNode,
    ctx: &StatementDeps,
    expanded: bool,
) -> Result<Option<UnionMap>> {
    let mut tile_dims: Option<usize> = None;
    let mut names: Vec<String> = Vec::new();
    for (name, dims) in band_statements(band)? {
        let Some(&own) = ctx.arity.get(&name) else {
            return Ok(None);
        };
        names.push(name);
        let extra = dims.checked_sub(own);
        match (tile_dims, extra) {
            (_, None) => return Ok(None),
            (None, Some(k)) => tile_dims = Some(k),
            (Some(t), Some(k)) if t != k => return Ok(None),
            _ => {}
        }
    }
    // Outside expansions the instances are the region's own; below one,
    // each carries its tile's coordinates first.
    let k = match (expanded, tile_dims.unwrap_or(0)) {
        (false, 0) => 0,
        (true, k) if k > 0 => k,
        _ => return Ok(None),
    };
    names.sort();
    names.dedup();
    let mut lifted = UnionMap::read_from_str(&band.get_ctx(), "{ }").map_err(isl_err)?;
    let pairs = names
        .iter()
        .flat_map(|a| names.iter().map(move |b| (a.clone(), b.clone())));
    for (from, to) in pairs {
        for m in ctx
            .by_pair
            .get(&(from.clone(), to.clone()))
            .into_iter()
            .flatten()
        {
            let m = m.copy().map_err(isl_err)?;
            if k == 0 {
                lifted = lifted.add_map(m).map_err(isl_err)?;
                continue;
            }
            let mut l = m
                .insert_dims(DimType::In, 0, k as u32)
                .and_then(|l| l.insert_dims(DimType::Out, 0, k as u32))
                .map_err(isl_err)?;
            for j in 0..k as i32 {
                l = l.equate(DimType::In, j, DimType::Out, j).map_err(isl_err)?;
            }
            let l = l
                .set_tuple_name(DimType::In, &from)
                .and_then(|l| l.set_tuple_name(DimType::Out, &to))
                .map_err(isl_err)?;
            lifted = lifted.add_map(l).map_err(isl_err)?;
        }
    }
    Ok(Some(lifted))
}
