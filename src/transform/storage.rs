//! Storage for overlapped tiles (Zhao & Cohen §3.7, "reducing the memory
//! footprint"): which data of a group lives in tile-local scratchpads, how big
//! they are and where they start, which elements a tile loads first, and which
//! statements store a stage's own tile part back to the original arrays.
//!
//! A data set gets a scratchpad when a stage whose values other stages of the
//! group consume writes it. Its extent is the fixed box of the per-tile
//! region of the data (the images of the writers' per-tile regions, and the
//! elements loaded), indexed relative to the box's origin, an affine function
//! of the tile coordinates.

use crate::diag::{Diagnostic, Error, Result, Span};
use crate::model::isl_ext::{isl_err, IslText};
use crate::model::polyhedral::{Names, RegionModel};
use crate::model::program::{AccessKind, Region};
use crate::model::relations::ByStatement;
use crate::model::storage::{
    Affine, Alloc, Buffer, Condition, GroupStorage, IndexFn, Load, Placement, Slide, StmtRole,
    StoragePlan, Term,
};
use isl_rs::{Aff, DimType, Map, Set, UnionMap, UnionSet};
use log::info;
use std::collections::BTreeSet;

/// The largest scratchpad (in elements) of a tile (2 MiB of doubles). The
/// greedy grouping with hand-given sizes relies on it as a budget: a group
/// whose scratchpads pass it is not formed (with 2^22 it formed groups of
/// 17 heap buffers on local-laplacian at 32x256, 1.2x slower).
pub(crate) const MAX_SCRATCHPAD_ELEMENTS: i64 = 1 << 18;

/// The default of the most bytes of scratchpads a tile declares on its
/// thread's stack (`--stack-limit`; threads' stacks are commonly 8 MiB, and
/// the program's own frames share them); a tile with more allocates them on
/// the heap, once per thread. Not lower: gcc 12 compiles the same tiles
/// 5-25% slower with their buffers behind pointers (multiscale-interp at
/// 32x256, 1.4 MiB a tile).
pub const DEFAULT_STACK_LIMIT: u64 = 4 << 20;

/// Bytes assumed for an element of a type of unknown size (a typedef, a
/// struct): more than any arithmetic type, so that such buffers leave the
/// stack sooner rather than later.
const UNKNOWN_ELEM_BYTES: u64 = 32;

/// Chooses where each group's tile buffers live: on the stack, or, where a
/// tile's buffers (after sharing) take more than `stack_limit` bytes, on the
/// heap of each thread ([`Alloc::PerThread`]).
pub(crate) fn choose_tile_allocation(plan: &mut StoragePlan, stack_limit: u64) {
    for group in 0..plan.groups.len() {
        let bytes = plan.tile_bytes(group, UNKNOWN_ELEM_BYTES);
        if bytes.is_some_and(|b| b <= stack_limit) {
            continue;
        }
        info!(
            "tile buffers of group {group}: {} bytes per tile, allocated per thread on the heap",
            bytes.map_or("unknown".to_string(), |b| b.to_string())
        );
        for b in plan.buffers.iter_mut() {
            if b.placement == (Placement::Tile { group }) {
                b.alloc = Alloc::PerThread;
            }
        }
    }
}

/// What the storage of one group is planned from.
pub(crate) struct StorageInput<'a> {
    pub region: &'a Region,
    pub names: &'a Names,
    pub model: &'a RegionModel,
    /// The group's multi-statement stages (statement indices).
    pub units: &'a [Vec<usize>],
    /// The stages of the group that read each stage's values.
    pub consumers: &'a [BTreeSet<usize>],
    /// Each stage's per-tile region `{ Sk[i] -> [T] }`.
    pub regions: &'a [Map],
    /// The reads of values from before the chain.
    pub live_in: &'a UnionMap,
    /// The tiled loops.
    pub depth: usize,
    /// The loop tiled classically under partial overlapped tiling and its
    /// tile size; scratchpads then also hold what a tile reads from the tile
    /// before it along that loop, and slide (see [`Slide`]).
    pub classic: Option<(usize, i64)>,
    /// Where refusals are located.
    pub span: Span,
}

/// Chooses the data sets that live in scratchpads and sizes them; returns the
/// storage plan (one group, numbered 0) and the per-tile loads (`[T] -> D[x]`)
/// of data read from before the chain.
pub(crate) fn plan_storage(inp: &StorageInput) -> Result<(StoragePlan, Vec<(String, Map)>)> {
    let region = inp.region;
    let mut scratch = scratch_data(inp)?;
    keep_opaque_in_arrays(inp, &mut scratch)?;
    let mut buffers: Vec<Buffer> = Vec::new();
    let mut storage = GroupStorage {
        tile_dims: inp.depth,
        stages: region.stages.iter().map(|s| s.name.clone()).collect(),
        ..Default::default()
    };
    let mut loads: Vec<(String, Map)> = Vec::new();
    let mut writes = StageWrites {
        by_stage: ByStatement::new(&inp.model.may_writes)?,
        found: (0..region.stages.len()).map(|_| None).collect(),
    };
    for data in &scratch {
        check_unconditional(inp, data)?;
        let elem_type = region.data_types.get(data).cloned().ok_or_else(|| {
            Error::inapplicable_at(
                inp.span,
                format!(
                    "overlapped tiling: the element type of '{data}' is unknown (not a C array?)"
                ),
            )
        })?;
        let Some(written) = written_per_tile(inp, data, &mut writes)? else {
            continue;
        };
        let pad = scratchpad(inp, data, written)?;
        if let (Some(dim), Some((_, step))) = (pad.slide_dim, inp.classic) {
            if pad.sizes[dim] > step {
                let name = group_statement("slide", region, data);
                storage.statements.insert(
                    name,
                    StmtRole::Slide(Slide {
                        data: data.clone(),
                        dim,
                        step,
                    }),
                );
            }
        }
        buffers.push(Buffer {
            name: data.clone(),
            data: vec![data.clone()],
            elem_type,
            index: IndexFn {
                moduli: vec![None; pad.sizes.len()],
                offsets: pad.offsets,
            },
            extents: pad.sizes.into_iter().map(Affine::constant).collect(),
            placement: Placement::Tile { group: 0 },
            alloc: Alloc::Stack,
            pool: None,
        });
        let several = pad.loads.len() > 1;
        for (k, (l, guard)) in pad.loads.into_iter().enumerate() {
            let mut name = group_statement("load", region, data);
            if several {
                name.push_str(&format!("_{k}"));
            }
            storage.statements.insert(
                name.clone(),
                StmtRole::Load(Load {
                    data: data.clone(),
                    source: region
                        .versions
                        .get(data)
                        .map_or_else(|| data.clone(), |v| v.array.clone()),
                    guard,
                }),
            );
            loads.push((name, l));
        }
    }
    add_stores(region, &scratch, &mut storage);
    let plan = StoragePlan {
        groups: vec![storage],
        buffers,
    };
    Ok((plan, loads))
}

/// The name of a statement the storage of a group adds for `data`
/// (`ft_load_S3_A`): named after the group's first stage, since the
/// groups' trees are joined in one schedule and a statement's role is
/// found by its name. Two groups that both loaded 'R' once shared one
/// name, and the second group's loads were printed with the first
/// group's scratchpad offsets: they filled rows that its statements did
/// not read.
fn group_statement(kind: &str, region: &Region, data: &str) -> String {
    let first = region.stages.first().map_or("", |s| s.name.as_str());
    format!(
        "ft_{kind}_{first}_{}",
        crate::model::polyhedral::isl_name(data)
    )
}

/// The data sets that need scratchpads: those produced by stages that other
/// stages of the group consume (their regions overlap), and the versions of
/// an array at the inner steps of a time block.
fn scratch_data(inp: &StorageInput) -> Result<BTreeSet<String>> {
    let region = inp.region;
    let writes = |stage: &crate::model::program::Stage| -> Vec<String> {
        stage
            .accesses
            .iter()
            .filter(|a| a.kind == AccessKind::Write)
            .map(|a| a.data.clone())
            .collect()
    };
    // Values a statement passes only to the statements of its own
    // multi-statement stage (§3.6), computing each iteration in one tile,
    // stay in their array: every tile reads what it wrote itself.
    let mut scratch: BTreeSet<String> = BTreeSet::new();
    for (k, stage) in region.stages.iter().enumerate() {
        let own_unit = inp.units.iter().find(|u| u.contains(&k));
        let internal = own_unit.is_some_and(|u| inp.consumers[k].iter().all(|c| u.contains(c)));
        if inp.consumers[k].is_empty()
            || (internal && inp.regions[k].is_single_valued().map_err(isl_err)?)
        {
            continue;
        }
        scratch.extend(writes(stage));
    }
    // Versions of an array at the inner steps of a time block exist only in
    // scratchpads, whether or not a stage of the group reads what is written.
    for stage in &region.stages {
        for data in writes(stage) {
            if region.versions.get(&data).is_some_and(|v| !v.stored) {
                scratch.insert(data);
            }
        }
    }
    Ok(scratch)
}

/// A body that is not analysable (macros, calls) cannot be redirected to a
/// scratchpad. Its data keeps its original storage when that is race-free:
/// when no writer of it computes an iteration in two tiles (§3.7: the group
/// is then tiled without scratchpads for it); else overlapped tiling is
/// refused.
fn keep_opaque_in_arrays(inp: &StorageInput, scratch: &mut BTreeSet<String>) -> Result<()> {
    let region = inp.region;
    for data in scratch.clone() {
        let Some(opaque) = region
            .stages
            .iter()
            .find(|s| !s.analysable && s.accesses.iter().any(|a| a.data == data))
        else {
            continue;
        };
        if let Some(k) = redundant_writer(region, inp.regions, &data)? {
            return Err(Error::inapplicable(
                Diagnostic::error(
                    inp.span,
                    format!(
                        "overlapped tiling needs tile-local storage for '{data}' (overlapping tiles compute parts of {} twice), but the body of {} is not analysable (macros, calls or pointer arithmetic), so its accesses to '{data}' cannot be redirected to it",
                        region.stages[k].label, opaque.label
                    ),
                )
                .with_note(opaque.span, "this nest"),
            ));
        }
        info!(
            "overlap: '{data}' stays in its array ({} is not analysable; no tile computes what another computes)",
            opaque.label
        );
        scratch.remove(&data);
    }
    Ok(())
}

/// A scratchpad element a body may leave unwritten would hold garbage where
/// the original array keeps its old value: refuses a conditional write of
/// `data`.
fn check_unconditional(inp: &StorageInput, data: &str) -> Result<()> {
    for stage in &inp.region.stages {
        if let Some(a) = stage
            .analysed()
            .unwrap_or_default()
            .iter()
            .find(|a| a.data == data && a.kind == AccessKind::Write && a.conditional)
        {
            return Err(Error::inapplicable(
                Diagnostic::error(
                    inp.span,
                    format!(
                        "overlapped tiling cannot give '{data}' tile-local storage: {} writes it only under a condition",
                        stage.label
                    ),
                )
                .with_note(a.span, "conditional write"),
            ));
        }
    }
    Ok(())
}

/// Each stage's writes over its per-tile region's instances, found once,
/// from its own relations.
struct StageWrites {
    by_stage: ByStatement,
    found: Vec<Option<UnionMap>>,
}

/// The region of `data` a tile writes, `[T] -> D[x]`: the images of the
/// writers' per-tile regions under their writes; `None` where no stage
/// writes it.
fn written_per_tile(
    inp: &StorageInput,
    data: &str,
    writes: &mut StageWrites,
) -> Result<Option<Map>> {
    let (region, regions) = (inp.region, inp.regions);
    let mut per_tile: Option<Map> = None;
    for (k, stage) in region.stages.iter().enumerate() {
        if !stage
            .accesses
            .iter()
            .any(|a| a.data == data && a.kind == AccessKind::Write)
        {
            continue;
        }
        let w = match &writes.found[k] {
            Some(w) => w,
            None => writes.found[k].insert(
                writes.by_stage.intersect_domain(
                    &stage.name,
                    &regions[k]
                        .copy()
                        .and_then(|r| r.domain())
                        .map_err(isl_err)?,
                )?,
            ),
        }
        .copy()
        .map_err(isl_err)?;
        let image = UnionMap::from_map(regions[k].copy().map_err(isl_err)?)
            .and_then(|r| r.reverse())
            .and_then(|r| r.apply_range(w))
            .map_err(isl_err)?;
        let image = image
            .intersect_range(
                UnionSet::read_from_str(
                    &inp.model.schedule.get_ctx(),
                    &format!(
                        "{{ {}[{}] }}",
                        crate::model::polyhedral::isl_name(data),
                        dims_list(stage, data)
                    ),
                )
                .map_err(isl_err)?,
            )
            .and_then(Map::from_union_map)
            .map_err(isl_err)?;
        per_tile = Some(match per_tile {
            None => image,
            Some(p) => p.union(image).map_err(isl_err)?,
        });
    }
    Ok(per_tile)
}

/// The scratchpad of one data set: its box per tile, where it starts, the
/// loop along which it slides, and its loads.
struct Scratchpad {
    sizes: Vec<i64>,
    offsets: Vec<Affine>,
    slide_dim: Option<usize>,
    loads: Vec<(Map, Option<Condition>)>,
}

/// The scratchpad of `data`, whose stages write `written` per tile: the box
/// of what a tile writes, reads from the tile before along the classically
/// tiled loop, and loads (elements of the data set the tile reads but the
/// chain never writes: loaded from the original array when the tile starts).
fn scratchpad(inp: &StorageInput, data: &str, written: Map) -> Result<Scratchpad> {
    let (model, span) = (inp.model, inp.span);
    let mut per_tile = written;
    let data_space = UnionSet::read_from_str(
        &model.schedule.get_ctx(),
        &format!(
            "{{ {}[{}] }}",
            crate::model::polyhedral::isl_name(data),
            dims_of(inp.region, data)
        ),
    )
    .map_err(isl_err)?;
    let exact_load = tile_images(inp.regions, inp.live_in, &data_space)?;
    if inp.classic.is_some() {
        // What the tile's stages read, including the halo computed by the
        // tile before along the classically tiled loop.
        if let Some(m) = tile_images(inp.regions, &model.reads, &data_space)? {
            per_tile = per_tile.union(m).map_err(isl_err)?;
        }
    }
    if let Some(l) = &exact_load {
        info!("overlap: tiles load {} from '{data}'", l.text()?);
        per_tile = per_tile
            .union(l.copy().map_err(isl_err)?)
            .map_err(isl_err)?;
    }
    // Under the parameters' context (`--assume`; macro values where the
    // driver fixed them): a constant size may hold only there.
    let per_tile = per_tile
        .intersect_params(model.context.copy().map_err(isl_err)?)
        .map_err(isl_err)?;
    let bx = per_tile
        .get_range_simple_fixed_box_hull()
        .map_err(isl_err)?;
    if !bx.is_valid().map_err(isl_err)? {
        return Err(Error::at(
            span,
            format!("overlapped tiling: the tile-local copy of '{data}' has no constant size per tile (does every loop it spans have a tile size? see --tile-sizes)"),
        ));
    }
    let off = bx.get_offset().map_err(isl_err)?;
    let size = bx.get_size().map_err(isl_err)?;
    let loads = match exact_load {
        Some(l) => boxed_loads(l, &off, &size, inp.live_in, &data_space, inp.names)?,
        None => Vec::new(),
    };
    let mut pad = Scratchpad {
        sizes: Vec::new(),
        offsets: Vec::new(),
        slide_dim: None,
        loads,
    };
    for d in 0..size.size().map_err(isl_err)? {
        pad.sizes.push(
            size.get_at(d)
                .and_then(|v| v.get_num_si())
                .map_err(isl_err)?,
        );
        let aff = off.get_at(d).map_err(isl_err)?;
        if sliding(inp, data, &aff, pad.slide_dim.is_some())? {
            pad.slide_dim = Some(d as usize);
        }
        pad.offsets.push(aff_to_affine(&aff, inp.names)?);
    }
    check_scratchpad_size(data, &pad.sizes, span)?;
    Ok(pad)
}

/// Whether the scratchpad dimension that starts at `aff` slides along the
/// classically tiled loop (by one tile per tile); an error where it moves
/// otherwise, or where another dimension (`slides_already`) slides.
fn sliding(inp: &StorageInput, data: &str, aff: &Aff, slides_already: bool) -> Result<bool> {
    let Some((c, step)) = inp.classic else {
        return Ok(false);
    };
    let moves = aff
        .get_coefficient_val(DimType::In, c as i32)
        .and_then(|v| v.get_num_si())
        .map_err(isl_err)?;
    if moves != 0 && (moves != step || slides_already) {
        return Err(Error::at(
            inp.span,
            format!(
                "partial overlapped tiling: the tile-local copy of '{data}' does not move by one tile along loop {c} (its index is not that loop's iterator plus a constant)"
            ),
        ));
    }
    Ok(moves != 0)
}

/// Refuses a scratchpad of `data` with `sizes` past [`MAX_SCRATCHPAD_ELEMENTS`].
fn check_scratchpad_size(data: &str, sizes: &[i64], span: Span) -> Result<()> {
    let elements = sizes.iter().try_fold(1i64, |acc, s| acc.checked_mul(*s));
    if sizes.iter().any(|s| *s > MAX_SCRATCHPAD_ELEMENTS) {
        return Err(Error::at(
            span,
            format!(
                "overlapped tiling: the tile-local copy of '{data}' would span the whole range of a loop that has no tile size; give every loop a tile size (--tile-sizes)"
            ),
        ));
    }
    if elements.is_none_or(|e| e > MAX_SCRATCHPAD_ELEMENTS) {
        return Err(Error::at(
            span,
            format!(
                "overlapped tiling: the tile-local copy of '{data}' would hold {} elements per tile; give every loop a tile size (--tile-sizes) small enough for a tile's copy to hold at most 2^18 elements",
                sizes.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(" x ")
            ),
        ));
    }
    Ok(())
}

/// The data whose values never leave the tile (inner versions of a time
/// block, and temporaries: declared, and read by no stage outside the
/// group), and a store statement for each stage that writes other
/// scratchpad data.
fn add_stores(region: &Region, scratch: &BTreeSet<String>, storage: &mut GroupStorage) {
    storage.unstored = scratch
        .iter()
        .filter(|d| {
            region.versions.get(*d).is_some_and(|v| !v.stored)
                || region.temporaries.iter().any(|t| &t.name == *d)
        })
        .cloned()
        .collect();
    for (k, stage) in region.stages.iter().enumerate() {
        if stage.accesses.iter().any(|a| {
            a.kind == AccessKind::Write
                && scratch.contains(&a.data)
                && !storage.unstored.contains(&a.data)
        }) {
            storage.statements.insert(
                format!("{}_store", stage.name),
                StmtRole::Store { stage: k },
            );
        }
    }
}

/// A stage of the group that writes `data` and computes some iteration in
/// two tiles (its per-tile region `{ Sk[i] -> [T] }` is not single-valued),
/// if any.
fn redundant_writer(region: &Region, regions: &[Map], data: &str) -> Result<Option<usize>> {
    for (k, stage) in region.stages.iter().enumerate() {
        let writes = stage
            .accesses
            .iter()
            .any(|a| a.data == data && a.kind == AccessKind::Write);
        if writes && !regions[k].is_single_valued().map_err(isl_err)? {
            return Ok(Some(k));
        }
    }
    Ok(None)
}

/// Per tile, the elements of `data_space` that `accesses` of the stages'
/// per-tile `regions` touch: `[T] -> D[x]` (`None` when there are none).
fn tile_images(regions: &[Map], accesses: &UnionMap, data_space: &UnionSet) -> Result<Option<Map>> {
    let mut out: Option<Map> = None;
    let of_data = accesses
        .copy()
        .and_then(|l| l.intersect_range(data_space.copy()?))
        .map_err(isl_err)?;
    for r in regions {
        let touched = of_data
            .copy()
            .and_then(|l| l.intersect_domain(UnionSet::from_set(r.copy()?.domain()?)?))
            .map_err(isl_err)?;
        if touched.is_empty().map_err(isl_err)? {
            continue;
        }
        let m = UnionMap::from_map(r.copy().map_err(isl_err)?)
            .and_then(|r| r.reverse())
            .and_then(|r| r.apply_range(touched))
            .and_then(Map::from_union_map)
            .map_err(isl_err)?;
        out = Some(match out {
            None => m,
            Some(o) => o.union(m).map_err(isl_err)?,
        });
    }
    Ok(out)
}

/// `o0, o1, ...` with the arity of `data` in the region.
fn dims_of(region: &Region, data: &str) -> String {
    region
        .stages
        .iter()
        .find(|s| s.accesses.iter().any(|a| a.data == data))
        .map(|s| dims_list(s, data))
        .unwrap_or_default()
}

/// `o0, o1, ...` with the arity of `data` in `stage`'s accesses.
fn dims_list(stage: &crate::model::program::Stage, data: &str) -> String {
    let n = stage
        .accesses
        .iter()
        .find(|a| a.data == data)
        .map(|a| a.index.len())
        .unwrap_or(0);
    (0..n)
        .map(|d| format!("o{d}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Most loads one data set gets per tile: one per convex piece of the
/// elements it loads. With more pieces the loads run over their hull, with a
/// guard.
const MAX_LOAD_PIECES: usize = 8;

/// The elements a tile loads, as loop domains isl's code generator handles
/// quickly, each with the guard (if any) that keeps its loads exact.
///
/// The exact set (`exact`: per tile, the elements its stages read from
/// before the chain) is a union of translated strips clipped by the stages'
/// domains and by the first and last tiles; as a loop domain it makes isl's
/// code generator separate dozens of pieces at every level (minutes, GBs on
/// chains of 3-D nests). Instead each load runs over the scratchpad's box
/// (`offset` in the tile, constant `size`), which holds the exact set, cut
/// by one convex piece of the elements of the group's live-in reads
/// (`live_in`'s image: no tile variables, a few disjuncts). Each load is a
/// single convex domain, which keeps isl quick, and runs only where its piece
/// meets the tile: a piece that is a border column costs nothing to the
/// tiles away from it. With more than [`MAX_LOAD_PIECES`] pieces, one load
/// runs over the box cut by their simple hull, with a guard that loads only
/// the pieces' elements. Every element loaded is read by the original
/// program, so in bounds, and written by no stage of the group, so no other
/// tile stores it concurrently. The box is given for every tile (the
/// schedule tree restricts it to the group's tiles). Falls back to the exact
/// set when a guard is needed but cannot be written (strided accesses).
fn boxed_loads(
    exact: Map,
    offset: &isl_rs::MultiAff,
    size: &isl_rs::MultiVal,
    live_in: &UnionMap,
    data_space: &UnionSet,
    names: &Names,
) -> Result<Vec<(Map, Option<Condition>)>> {
    let need = live_in
        .copy()
        .and_then(|l| l.intersect_range(data_space.copy()?))
        .and_then(|l| l.range())
        .and_then(Set::from_union_set)
        .and_then(|s| s.coalesce())
        .map_err(isl_err)?;
    let list = need.get_basic_set_list().map_err(isl_err)?;
    let pieces = list.size().map_err(isl_err)? as usize;
    let mut cuts: Vec<(Set, Option<Condition>)> = Vec::new();
    if pieces == 0 {
        return Ok(vec![(exact, None)]);
    } else if pieces <= MAX_LOAD_PIECES {
        for p in 0..pieces {
            let piece = list
                .get_at(p as i32)
                .and_then(Set::from_basic_set)
                .map_err(isl_err)?;
            cuts.push((piece, None));
        }
    } else {
        match condition(&need, names)? {
            Some(g) => cuts.push((
                need.simple_hull()
                    .and_then(Set::from_basic_set)
                    .map_err(isl_err)?,
                Some(g),
            )),
            None => return Ok(vec![(exact, None)]),
        }
    }
    let n = size.size().map_err(isl_err)?;
    let tuple = exact
        .get_tuple_name(DimType::Out)
        .map_err(isl_err)?
        .to_string();
    let mut cons = Vec::new();
    for d in 0..n {
        let s = size
            .get_at(d)
            .and_then(|v| v.get_num_si())
            .map_err(isl_err)?;
        cons.push(format!("o{d} <= x{d} <= o{d} + {}", s - 1));
    }
    let dims = |v: &str| {
        (0..n)
            .map(|d| format!("{v}{d}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let within = Map::read_from_str(
        &exact.get_ctx(),
        &format!(
            "{{ {tuple}[{}] -> {tuple}[{}] : {} }}",
            dims("o"),
            dims("x"),
            cons.join(" and ")
        ),
    )
    .map_err(isl_err)?;
    let boxed = offset
        .copy()
        .and_then(Map::from_multi_aff)
        .and_then(|m| m.apply_range(within))
        .map_err(isl_err)?;
    let mut out = Vec::new();
    for (cut, guard) in cuts {
        let load = boxed
            .copy()
            .and_then(|m| m.intersect_range(cut))
            .map_err(isl_err)?;
        if !load.is_empty().map_err(isl_err)? {
            out.push((load, guard));
        }
    }
    Ok(out)
}

/// `set` (over a data set's indices and the parameters) as a [`Condition`]
/// over [`Term::Index`] and the parameters; `None` when it has
/// existentially quantified variables (strides).
fn condition(set: &Set, names: &Names) -> Result<Option<Condition>> {
    condition_over(set, names, &|d| Term::Index(d))
}

/// `map` (`S[i] -> [T]`, over a statement's iterators, its tile's
/// coordinates and the parameters) as a [`Condition`] over [`Term::Index`]
/// (the iterators), [`Term::Tile`] and the parameters; `None` when it has
/// existentially quantified variables (strides).
pub(crate) fn map_condition(map: &Map, names: &Names) -> Result<Option<Condition>> {
    let n = map.dim(DimType::In).map_err(isl_err)? as usize;
    let set = map
        .copy()
        .and_then(|m| m.wrap())
        .and_then(|w| w.flatten())
        .map_err(isl_err)?;
    condition_over(&set, names, &|d| match d < n {
        true => Term::Index(d),
        false => Term::Tile(d - n),
    })
}

/// `set` as a [`Condition`], its dimension `d` the term `term(d)`.
fn condition_over(
    set: &Set,
    names: &Names,
    term: &dyn Fn(usize) -> Term,
) -> Result<Option<Condition>> {
    let list = set.get_basic_set_list().map_err(isl_err)?;
    let mut out = Condition::default();
    for b in 0..list.size().map_err(isl_err)? {
        let bset = list.get_at(b).map_err(isl_err)?;
        if bset.dim(DimType::Div).map_err(isl_err)? > 0 {
            return Ok(None);
        }
        let cons = bset.get_constraint_list().map_err(isl_err)?;
        let mut conj = Vec::new();
        for c in 0..cons.size().map_err(isl_err)? {
            let c = cons.get_at(c).map_err(isl_err)?;
            let int = |v: isl_rs::Val| v.get_num_si().map_err(isl_err);
            let mut e = Affine {
                constant: int(c.get_constant_val().map_err(isl_err)?)?,
                terms: Vec::new(),
            };
            for d in 0..bset.dim(DimType::Set).map_err(isl_err)? {
                let k = int(c.get_coefficient_val(DimType::Set, d).map_err(isl_err)?)?;
                e = e.plus(k, term(d as usize));
            }
            for p in 0..bset.dim(DimType::Param).map_err(isl_err)? {
                let k = int(c.get_coefficient_val(DimType::Param, p).map_err(isl_err)?)?;
                let isl = bset
                    .get_dim_name(DimType::Param, p as u32)
                    .map_err(isl_err)?;
                e = plus_param(e, k, isl, names);
            }
            conj.push((e, c.is_equality().map_err(isl_err)?));
        }
        out.disjuncts.push(conj);
    }
    Ok(Some(out))
}

/// An affine function of the tile variables and parameters as an [`Affine`]
/// over [`Term::Tile`] and the parameters.
pub(crate) fn aff_to_affine(aff: &Aff, names: &Names) -> Result<Affine> {
    let den = aff
        .get_denominator_val()
        .and_then(|v| v.get_num_si())
        .map_err(isl_err)?;
    if den != 1 || aff.dim(DimType::Div).map_err(isl_err)? > 0 {
        return Err(Error::internal(format!(
            "scratchpad offset is not integral affine: {den}"
        )));
    }
    let mut e = Affine {
        constant: aff
            .get_constant_val()
            .and_then(|v| v.get_num_si())
            .map_err(isl_err)?,
        terms: Vec::new(),
    };
    for d in 0..aff.dim(DimType::In).map_err(isl_err)? {
        let c = aff
            .get_coefficient_val(DimType::In, d)
            .and_then(|v| v.get_num_si())
            .map_err(isl_err)?;
        e = e.plus(c, Term::Tile(d as usize));
    }
    for p in 0..aff.dim(DimType::Param).map_err(isl_err)? {
        let c = aff
            .get_coefficient_val(DimType::Param, p)
            .and_then(|v| v.get_num_si())
            .map_err(isl_err)?;
        let isl = aff
            .get_dim_name(DimType::Param, p as u32)
            .map_err(isl_err)?;
        e = plus_param(e, c, isl, names);
    }
    Ok(e)
}

/// `e + k * P`, with `P` the C name of the isl parameter `isl` (`e` when `k` is 0).
fn plus_param(e: Affine, k: i64, isl: &str, names: &Names) -> Affine {
    let c_name = names.c_param(isl).unwrap_or(isl).to_string();
    e.plus(k, Term::Param(c_name))
}
