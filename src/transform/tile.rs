//! Classical rectangular tiling of bands (`tile(...)` in the loop-chain
//! pragma, or `--tile --tile-sizes`), with the pragma's treatment of the
//! loops over tiles and inside tiles (serial, parallel, wavefront, tiled again).
//!
//! A band is tiled over its longest permutable prefix: the members in which
//! every dependence distance it must respect is non-negative.
//!
//! A point band that is tiled again is tiled in the outer tile's local
//! coordinates, so inner tiles are aligned on the outer tile's origin.
//! The loops of a tiled band are generated *atomic* (one loop per level,
//! statements guarded inside it) except the innermost loop, which isl
//! separates so that it runs without guards: separating every level of a
//! fused chain of nests with different domains splits each tile into many
//! pieces, and costs isl's code generator orders of magnitude more time
//! (minutes on tiles of tiles with wavefronts) for no gain in the inner loop.

use crate::diag::{Error, Result, Span};
use crate::model::isl_ext::{band_tile_local, isl_err};
use crate::model::marks::Mark;
use crate::model::program::{LoopTreatment, TileSpec};
use crate::transform::band::{
    atomic_loops, has_band_below, insert_mark, permutable_prefix, walk, Walk,
};
use isl_rs::{MultiVal, Schedule, ScheduleNode, ScheduleNodeType, UnionMap, UnionPwAff, Val};
use log::info;

/// How strictly a tiling request is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strictness {
    /// From the pragma: a band that cannot be tiled as asked is an error at `Span`.
    Pragma(Span),
    /// From the command line: tile what is legal, and log the rest.
    BestEffort,
}

/// What tiling did to one innermost band (for banners and warnings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TiledBand {
    /// The statements (isl tuple names) the band schedules.
    pub stages: Vec<String>,
    /// The schedule depth of the band's first tiled loop (of its first loop
    /// when none is tiled).
    pub first: usize,
    /// The loops of the band.
    pub loops: usize,
    /// The sizes applied, outermost first (empty: left untiled).
    pub sizes: Vec<i64>,
}

/// Tiles every innermost band (a band with no band below it) of `schedule`
/// as `spec` says; also returns what was done to each band.
pub fn tile_innermost_bands(
    schedule: Schedule,
    deps: &UnionMap,
    spec: &TileSpec,
    strict: Strictness,
) -> Result<(Schedule, Vec<TiledBand>)> {
    let mut done = Vec::new();
    let root = schedule.get_root().map_err(isl_err)?;
    let root = walk(root, &mut |node| {
        if matches!(node.get_type().map_err(isl_err)?, ScheduleNodeType::Band)
            && !has_band_below(&node)?
        {
            let loops = node.band_n_member().map_err(isl_err)? as usize;
            let mut band = TiledBand {
                stages: band_stages(&node)?,
                first: node.get_schedule_depth().map_err(isl_err)? as usize,
                loops,
                sizes: Vec::new(),
            };
            let node = tile_band(node, deps, spec, strict, &mut band)?;
            done.push(band);
            Ok((node, Walk::Skip))
        } else {
            Ok((node, Walk::Descend))
        }
    })?;
    Ok((root.get_schedule().map_err(isl_err)?, done))
}

/// The statements (isl tuple names) scheduled at `node`.
fn band_stages(node: &ScheduleNode) -> Result<Vec<String>> {
    let list = node
        .get_domain()
        .and_then(|d| d.get_set_list())
        .map_err(isl_err)?;
    let mut names = Vec::new();
    for i in 0..list.size().map_err(isl_err)? {
        let set = list.get_at(i).map_err(isl_err)?;
        names.push(set.get_tuple_name().map_err(isl_err)?.to_string());
    }
    names.sort();
    names.dedup();
    Ok(names)
}

/// Applies `f` to the outermost band of every path (used for the pragma's
/// top-level `parallel` and `wavefront` items).
pub fn on_outermost_bands(
    schedule: Schedule,
    f: &mut dyn FnMut(ScheduleNode) -> Result<ScheduleNode>,
) -> Result<Schedule> {
    let root = schedule.get_root().map_err(isl_err)?;
    let root = walk(root, &mut |node| {
        if matches!(node.get_type().map_err(isl_err)?, ScheduleNodeType::Band) {
            Ok((f(node)?, Walk::Skip))
        } else {
            Ok((node, Walk::Descend))
        }
    })?;
    root.get_schedule().map_err(isl_err)
}

/// Tiles the band at `node`; returns the node at the same position (the top
/// of the tile band and any mark above it).
fn tile_band(
    node: ScheduleNode,
    deps: &UnionMap,
    spec: &TileSpec,
    strict: Strictness,
    done: &mut TiledBand,
) -> Result<ScheduleNode> {
    let n = node.band_n_member().map_err(isl_err)? as usize;
    if strict == Strictness::BestEffort && !spec.sizes.is_empty() && spec.sizes.len() != n {
        // Command-line sizes are aligned on the innermost loops: with more
        // sizes than loops the last ones apply; with fewer, the outer loops
        // are not tiled.
        let k = spec.sizes.len();
        if k > n {
            let inner = TileSpec {
                sizes: spec.sizes[k - n..].to_vec(),
                ..spec.clone()
            };
            return tile_band(node, deps, &inner, strict, done);
        }
        let outer = node.band_split((n - k) as i32).map_err(isl_err)?;
        let inner = tile_band(outer.child(0).map_err(isl_err)?, deps, spec, strict, done)?;
        return inner.parent().map_err(isl_err);
    }
    let p = permutable_prefix(&node, deps)?;
    let mut k = spec.sizes.len().min(n);
    if p < k {
        match strict {
            Strictness::Pragma(span) => {
                return Err(Error::at(
                    span,
                    format!(
                        "cannot tile {k} loops: a dependence has a negative distance in loop {} (only the outer {p} loops can be tiled together)",
                        p + 1
                    ),
                ))
            }
            Strictness::BestEffort => {
                info!("tile: only the outer {p} of {k} loops are permutable; tiling those");
                k = p;
            }
        }
    }
    if k == 0 {
        info!("tile: band left untiled (no permutable loop)");
        return Ok(node);
    }
    let mut node = node;
    if k < n {
        node = node.band_split(k as i32).map_err(isl_err)?;
    }
    let ctx = node.get_ctx();
    let mut sizes = MultiVal::zero(node.band_get_space().map_err(isl_err)?).map_err(isl_err)?;
    for (i, s) in spec.sizes.iter().take(k).enumerate() {
        sizes = sizes
            .set_val(i as i32, Val::int_from_si(&ctx, *s).map_err(isl_err)?)
            .map_err(isl_err)?;
    }
    info!("tile: {k} loop(s) with sizes {:?}", &spec.sizes[..k]);
    done.first = node.get_schedule_depth().map_err(isl_err)? as usize;
    done.sizes = spec.sizes[..k].to_vec();
    let node = if matches!(spec.inner, LoopTreatment::Tile(_)) {
        band_tile_local(node, sizes)?
    } else {
        node.band_tile(sizes).map_err(isl_err)?
    };
    // Treatments: the point band first (below the tile band), then the tile
    // band, whose treatment may restructure it (tiled again, skewed).
    let point = node.child(0).map_err(isl_err)?;
    let point = treat(point, deps, &spec.inner, strict, None)?;
    let node = point.parent().map_err(isl_err)?;
    let node = treat(node, deps, &spec.outer, strict, Some(&spec.sizes[..k]))?;
    atomic_but_innermost(node)
}

/// Marks every loop of the bands at and below `node` atomic, except the
/// innermost loop of each innermost band (see the module header).
fn atomic_but_innermost(node: ScheduleNode) -> Result<ScheduleNode> {
    walk(node, &mut |node| {
        if !matches!(node.get_type().map_err(isl_err)?, ScheduleNodeType::Band) {
            return Ok((node, Walk::Descend));
        }
        let n = node.band_n_member().map_err(isl_err)? as usize;
        let atomic = if has_band_below(&node)? { n } else { n - 1 };
        Ok((atomic_loops(node, atomic)?, Walk::Descend))
    })
}

/// Applies one loop treatment to the band at `node`.
fn treat(
    node: ScheduleNode,
    deps: &UnionMap,
    t: &LoopTreatment,
    strict: Strictness,
    tile_sizes: Option<&[i64]>,
) -> Result<ScheduleNode> {
    match t {
        LoopTreatment::Auto => Ok(node),
        LoopTreatment::Serial => insert_mark(node, &Mark::Serial),
        LoopTreatment::Parallel => insert_mark(node, &Mark::ParallelRequested),
        LoopTreatment::Wavefront => {
            let span = match strict {
                Strictness::Pragma(s) => s,
                Strictness::BestEffort => Span::default(),
            };
            wavefront(node, deps, span, tile_sizes)
        }
        LoopTreatment::Tile(spec) => {
            // Tiles of tiles: the banner reports the outer tiling only.
            let mut inner = TiledBand {
                stages: Vec::new(),
                first: 0,
                loops: 0,
                sizes: Vec::new(),
            };
            tile_band(node, deps, spec, strict, &mut inner)
        }
    }
}

/// Skews the band at `node` so that its outer loop runs over wavefronts
/// (`b0 + b1 + ... + bn-1`) and the loops inside a wavefront are parallel.
///
/// The loops of a tile band count in steps of the tile size (`tile_sizes`):
/// their wavefront is the sum of tile *numbers* (`b0/s0 + b1/s1 + ...`), so
/// that consecutive wavefronts are consecutive integers. (The sum of the
/// scaled origins is also legal but sparse, and its strides cost isl's code
/// generator orders of magnitude more time on chains of 3-D nests.)
pub fn wavefront(
    node: ScheduleNode,
    deps: &UnionMap,
    span: Span,
    tile_sizes: Option<&[i64]>,
) -> Result<ScheduleNode> {
    let n = node.band_n_member().map_err(isl_err)? as usize;
    if n < 2 {
        return Err(Error::at(
            span,
            "wavefront needs a band of at least two loops",
        ));
    }
    if permutable_prefix(&node, deps)? < n {
        return Err(Error::at(
            span,
            "cannot run these loops as a wavefront: a dependence has a negative distance",
        ));
    }
    let mupa = node.band_get_partial_schedule().map_err(isl_err)?;
    let ctx = node.get_ctx();
    let member = |i: usize| -> Result<UnionPwAff> {
        let m = mupa.get_at(i as i32).map_err(isl_err)?;
        match tile_sizes.and_then(|s| s.get(i)) {
            Some(&s) if s > 1 => m
                .scale_down_val(Val::int_from_si(&ctx, s).map_err(isl_err)?)
                .map_err(isl_err),
            _ => Ok(m),
        }
    };
    let mut sum = member(0)?;
    for i in 1..n {
        sum = sum.add(member(i)?).map_err(isl_err)?;
    }
    let skewed = mupa.set_at(0, sum).map_err(isl_err)?;
    let node = node.delete().map_err(isl_err)?;
    info!("wavefront: skewed a band of {n} loops");
    node.insert_partial_schedule(skewed).map_err(isl_err)
}

/// Marks the band at `node` as requested parallel by the user.
pub fn request_parallel(node: ScheduleNode) -> Result<ScheduleNode> {
    insert_mark(node, &Mark::ParallelRequested)
}
