//! Overlapped tiling on schedule trees (Zhao & Cohen, §3): rectangle and
//! scalene trapezoid tiles built with expansion nodes.
//!
//! * **Rectangle** (§3.2, Fig. 10/12/14): the stages are shifted so that the
//!   group's dependences are non-negative (the shifts `fuse()` computes),
//!   tiled rectangularly in the shifted space, and the point loops of all
//!   stages are fused inside a tile; only the left face of a producer's tile
//!   is expanded.
//! * **Scalene** (§3.1, Fig. 8/11/13): each stage is strip-mined in its own
//!   coordinates and the tile loops are fused; both faces are expanded and
//!   the point loops of the stages run one after another inside a tile.
//!
//! The per-tile region of every stage comes from dependence propagation
//! (eq. 1, 3), top-down from the group's live-out stages: a producer's region
//! is its own tile part plus everything its consumers' regions read through
//! exact (value-based) flow dependences, clipped to its domain. Each stage
//! then computes the trapezoid of eq. 3 around that exact region: per loop,
//! its own smallest left and right expansion (`overlap/regions.rs`), so two
//! independent producers of one consumer get their own, narrower overlaps,
//! and isl's code generator sees boxes, not unions of translated tiles.
//!
//! Alignment and scaling (§3.7): stages that up- or down-sample (`B[x]`
//! reads `A[2x+k]`) get a scale factor per loop (`align::aligned_scales`) that makes
//! every dependence of the group uniform; tiles, shifts, trapezoids and the
//! fused point loops of rectangle tiles live in those scaled coordinates.
//!
//! Partial-dimension ("hybrid") overlapped tiling (§3.7, Fig. 16;
//! `--overlap-dims`): one tiled loop is left out of the overlap and tiled
//! classically. Its tiles run in order inside each (parallel) overlapped
//! tile; a stage computes only its own part along it, what it reads from the
//! tile before stays in the scratchpads, declared above that loop, which
//! slide down by one tile before the next one starts (line buffers).
//!
//! Removal of control overhead (§3.4, eq. 4–5): instead of picking a
//! representative iteration per tile, the contracted domain of the expansion
//! node is one *tile token* `Sk_t[T]` per stage and tile with a non-empty
//! region. Every tile, partial or full, expands from its token through the
//! same map, so the first (partial) tile and full tiles share one code path.
//!
//! Which nests are tiled together is decided by
//! [`crate::transform::overlap_groups`]; the schedule tree itself is built by
//! [`crate::transform::overlap_tree`]; tile-local storage (§3.7) is planned
//! by [`crate::transform::storage`]. The top-level nests of a scop are tiled
//! like a chain's; time-iterated scops (one outer loop) reach this pass as
//! chains of time steps (see [`crate::transform::time_blocks`]).
//! Multi-statement stages (§3.6, Fig. 15): the statements of one scop nest
//! get one shift and tile, one expansion node maps each statement's token to its own
//! per-tile region, and they share their point loops, where a sequence keeps
//! their order. Restrictions (the options' one, `--overlap-dims` leaving
//! more than one tiled loop, is an error; the program's are an
//! [`Error::Inapplicable`]: the group is split, a stage that cannot be tiled
//! alone keeps its loops, and a region with no stage left to tile is
//! compiled without overlapped tiling): one classically tiled loop under `--overlap-dims`, nests of
//! equal depth, the statements of a nest all in its innermost loop and
//! reading only what the statements before them compute,
//! no output dependences inside the group (accumulations), no in-place update
//! of data read from before the group (a stage tiled alone may update in
//! place element by element), and analysable bodies for every stage
//! whose data lives in scratchpads (a body that is not analysable keeps its
//! data in the original arrays when no tile computes what another computes
//! of it; see [`crate::transform::storage`]).

use crate::diag::{Diagnostic, Error, Result, Span};
use crate::model::deps::Dependences;
use crate::model::isl_ext::{isl_err, IslText};
use crate::model::polyhedral::{isl_name, Names, RegionModel};
use crate::model::program::{Region, Stage};
use crate::transform::align::{aligned_scales, scale_deps, FlowEdge};
pub use crate::transform::cost::{Machine, Weights};
use crate::transform::footprint::footprints;
pub use crate::transform::footprint::Footprint;
use crate::transform::fuse::minimal_shifts;
use crate::transform::gpu_cost::{GpuCosted, GpuSpec};
use crate::transform::multi_level::InnerTiles;
pub use crate::transform::overlap_groups::GroupingStrategy;
use crate::transform::overlap_groups::{flatten, form_groups, restrict, Groups};
use crate::transform::overlap_tree::build_tree;
use isl_rs::{Context, DimType, Map, Schedule, UnionMap, UnionSet};
use log::info;
use std::collections::{BTreeMap, BTreeSet};

use crate::model::marks::Mark;
use crate::model::storage::StoragePlan;
use crate::transform::storage::{plan_storage, StorageInput};

mod gpu;
pub(crate) mod memo;
mod regions;
use gpu::{refined, with_registers};
use memo::AnalysisMemo;
use regions::{box_region, tile_map, StageTiling};

/// The two trapezoid shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Shift, tile, expand the left face; point loops fused.
    Rectangle,
    /// Strip-mine each stage, fuse tile loops, expand both faces; point loops distributed.
    Scalene,
}

/// The result of the pass.
pub struct Overlapped {
    /// The schedule tree with tile band, expansion node and point loops.
    pub schedule: Schedule,
    /// Scratchpads and store statements.
    pub storage: StoragePlan,
    /// Per-stage footprints, in chain order.
    pub footprints: Vec<Footprint>,
    /// Stages of the largest group.
    pub largest_group: usize,
    /// The tile sizes of each tiled group, in order (`WHOLE`: a loop one
    /// tile spans).
    pub group_sizes: Vec<Vec<i64>>,
    /// Stages that keep their original loops (groups of one stage that
    /// cannot be tiled alone), each with the reason.
    pub untiled: Vec<(usize, String)>,
    /// The grouping decisions in words (`--explain`).
    pub explained: Vec<String>,
    /// The runs of stages whose point loops are fused for register reuse
    /// (`intra_fusion.rs`), as their numbers of stages.
    pub fused_runs: Vec<usize>,
    /// The groups with inner tiles for L1 (`multi_level.rs`).
    pub multi_level: usize,
    /// The CUDA target: the GPU cost model's choice for each tiled group,
    /// in the order of the storage plan's groups (`None`: not costed).
    pub gpu: Vec<Option<GpuCosted>>,
    /// With `--gpu-tiling hybrid`, the groups (by their first stage) that
    /// do not qualify for registers and run one tile per warp, with why.
    pub hybrid_refused: Vec<(usize, String)>,
}

/// Builds overlapped tiles of `shape` and `sizes` for the chain `region`:
/// its nests split into groups (`form_groups`, which analyses them), the
/// tree of each tiled group built once (`build_group`), the others left in
/// their loops, the groups one after another.
pub fn overlapped_tiling(
    region: &Region,
    names: &Names,
    model: &RegionModel,
    deps: &Dependences,
    spec: &OverlapSpec,
    span: Span,
) -> Result<Overlapped> {
    // A malformed --overlap-dims is the user's error, not a reason to split.
    let deepest = region.deepest().unwrap_or(0);
    if let Some(d) = spec.overlap_dims.iter().flatten().find(|d| **d >= deepest) {
        return Err(Error::at(
            span,
            format!("--overlap-dims names loop {d}, but the deepest nest has {deepest} loops (numbered from 0, outermost first)"),
        ));
    }
    let started = std::time::Instant::now();
    let Groups {
        units,
        groups,
        untiled,
        explained,
    } = form_groups(region, names, model, deps, spec, span)?;
    log::debug!(
        "time: grouping {} ms ({} groups)",
        started.elapsed().as_millis(),
        groups.len()
    );
    let started = std::time::Instant::now();

    let mut schedule: Option<Schedule> = None;
    let mut storage = StoragePlan::default();
    let mut footprints = Vec::new();
    let mut gpu = Vec::new();
    let mut hybrid_refused = Vec::new();
    for (group, analysed) in &groups {
        let part = match analysed {
            Some(a) => {
                let mark = Mark::TileBody {
                    group: storage.groups.len(),
                };
                let (sched, mut st) = build_group(&a.region, &a.model, &a.analysis, spec, &mark)?;
                info!(
                    "overlap: group of {} stages ({} statements) tiled",
                    group.len(),
                    a.stages.len()
                );
                let choice = refined(a, st.tile_bytes(0, u64::MAX / 4), spec);
                let (choice, refused) = with_registers(a, names, &mut st, choice, spec);
                if let (Some(why), Some(k)) = (refused, a.stages.first()) {
                    hybrid_refused.push((*k, why));
                }
                storage.append(st, &a.stages)?;
                footprints.extend(a.analysis.footprints.iter().cloned());
                gpu.push(choice);
                sched
            }
            None => {
                let (stages, _) = flatten(&units, group);
                restrict(region, model, deps, &stages)?.1.schedule
            }
        };
        schedule = Some(match schedule {
            None => part,
            Some(s) => s.sequence(part).map_err(isl_err)?,
        });
    }
    let schedule = schedule.ok_or_else(|| Error::internal("overlap: empty chain"))?;
    log::debug!(
        "time: building the groups' trees and storage {} ms",
        started.elapsed().as_millis()
    );
    Ok(Overlapped {
        schedule,
        storage,
        footprints,
        gpu,
        hybrid_refused,
        group_sizes: groups
            .iter()
            .filter_map(|(_, a)| a.as_ref().map(|a| a.analysis.sizes.clone()))
            .collect(),
        largest_group: groups
            .iter()
            .map(|(g, _)| g.iter().map(|u| units[*u].len()).sum())
            .max()
            .unwrap_or(0),
        fused_runs: groups
            .iter()
            .flat_map(|(_, a)| a.iter().flat_map(|a| a.analysis.reuse.iter()))
            .map(|run| run.len())
            .filter(|n| *n > 1)
            .collect(),
        multi_level: groups
            .iter()
            .filter(|(_, a)| a.as_ref().is_some_and(|a| a.analysis.inner.is_some()))
            .count(),
        untiled,
        explained,
    })
}

/// One group analysed for overlapped tiling, without building anything:
/// its scale factors and shifts (§3.2, §3.7), each statement's own tile
/// part and per-tile region (eq. 1–3), footprints (what the cost of a
/// grouping reads), and its tile storage (scratchpads and loads, whose
/// sizes decide whether the group can be tiled at all). [`build_group`]
/// turns it into a schedule tree.
pub(crate) struct GroupAnalysis {
    /// The multi-statement stages (positions in the group's statements).
    pub units: Vec<Vec<usize>>,
    /// Tile size per loop, aligned on the innermost loops.
    pub sizes: Vec<i64>,
    /// Loops of every statement.
    pub depth: usize,
    /// The loop tiled classically under `--overlap-dims`, if any.
    pub classic: Option<usize>,
    /// Scale factor per statement and loop.
    pub scales: Vec<Vec<i64>>,
    /// Shift per statement and loop.
    pub shifts: Vec<Vec<i64>>,
    /// Each statement's own part of a tile (`Sk[i] -> [T]`).
    pub own: Vec<Map>,
    /// Each statement's per-tile region (the trapezoid of eq. 3).
    pub regions: Vec<Map>,
    /// Per-statement footprints, for `--report` and the tolerance.
    pub footprints: Vec<Footprint>,
    /// The group's tile buffers and generated statements.
    pub storage: StoragePlan,
    /// Per data set, the elements a tile loads into its buffer.
    pub loads: Vec<(String, Map)>,
    /// Runs of consecutive statements whose point loops are fused inside a
    /// tile for register reuse ([`crate::transform::intra_fusion`]); every
    /// statement alone until the group is chosen.
    pub reuse: Vec<Vec<usize>>,
    /// Scalene tiles sized for L2: the inner tiles sized for L1 that run
    /// inside them ([`crate::transform::multi_level`]); none until the
    /// group is chosen.
    pub inner: Option<InnerTiles>,
}

/// A candidate group of stages, as [`analyse_group`] reads it.
pub(crate) struct Group<'a> {
    /// The group's stages alone, with their model and dependences.
    pub region: &'a Region,
    pub names: &'a Names,
    pub model: &'a RegionModel,
    pub deps: &'a Dependences,
    /// The group's reads of values from before it
    /// ([`crate::model::deps::live_in_reads`]).
    pub live_in: &'a UnionMap,
    /// The multi-statement stages (statements by unit).
    pub units: &'a [Vec<usize>],
    /// Where diagnostics point.
    pub span: Span,
    /// What the analyses of the region's candidates share.
    pub memo: &'a AnalysisMemo,
}

/// Analyses one group (see [`GroupAnalysis`]); an error says why it cannot
/// be tiled (the program's reasons are [`Error::Inapplicable`]).
pub(crate) fn analyse_group(group: &Group<'_>, spec: &OverlapSpec) -> Result<GroupAnalysis> {
    let Group {
        region,
        names,
        model,
        deps,
        live_in,
        units,
        span,
        memo,
    } = *group;
    let shape = spec.shape;
    let n_stages = region.stages.len();
    let depth = region
        .stages
        .first()
        .map(|s| s.iterators.len())
        .unwrap_or(0);
    if let Some(s) = region.stages.iter().find(|s| s.iterators.len() != depth) {
        return Err(Error::inapplicable(
            Diagnostic::error(span, "overlapped tiling needs nests of equal depth").with_note(
                s.span,
                format!("{} has {} loops", s.label, s.iterators.len()),
            ),
        ));
    }
    if depth == 0 {
        return Err(Error::inapplicable_at(
            span,
            "overlapped tiling needs loop nests",
        ));
    }
    let sizes = aligned_sizes(&spec.sizes, depth);
    let classic = classic_dim(spec.overlap_dims.as_deref(), depth, &sizes, span)?;
    let ctx = model.schedule.get_ctx();
    check_race_free(region, model, deps, units, live_in, span)?;

    let stages: Vec<&Stage> = region.stages.iter().collect();
    let stage_names: Vec<&str> = stages.iter().map(|s| s.name.as_str()).collect();
    let edges = memo.flow_edges(&stage_names, depth)?;
    let scales = group_scales(&stages, &edges, units, &sizes, span)?;
    if scales.iter().flatten().any(|a| *a != 1) {
        info!("overlap: stages scaled by {scales:?}");
    }
    let scaled_deps = scale_deps(&deps.all()?, region, &scales)?;
    let shift_deps = || unit_shift_deps(region, units, &scaled_deps, depth);
    let shifts = match (shape, classic) {
        (Shape::Rectangle, _) => minimal_shifts(region, &shift_deps()?, depth, span)?,
        (Shape::Scalene, None) => vec![vec![0; depth]; n_stages],
        (Shape::Scalene, Some(c)) => {
            // Only the classically tiled loop is shifted (its tiles run in order).
            let mut m = minimal_shifts(region, &shift_deps()?, depth, span)?;
            for row in &mut m {
                for (d, v) in row.iter_mut().enumerate() {
                    if d != c {
                        *v = 0;
                    }
                }
            }
            m
        }
    };
    info!("overlap: {shape:?} tiles {sizes:?}, shifts {shifts:?}, classic loop {classic:?}");

    // Dependence propagation, from the last stage (live-out) to the first.
    let consumers = consumer_sets(region, &deps.flow)?;
    let mut own: Vec<Option<Map>> = (0..n_stages).map(|_| None).collect();
    let mut regions: Vec<Option<Map>> = (0..n_stages).map(|_| None).collect();
    let mut propagated = UnionMap::read_from_str(&ctx, "{ }").map_err(isl_err)?;
    for k in (0..n_stages).rev() {
        let stage = &region.stages[k];
        let tiling = StageTiling {
            shift: &shifts[k],
            scale: &scales[k],
            sizes: &sizes,
            classic,
        };
        let own_k = tile_map(model, names, stage, tiling, memo)?;
        let needed = deps
            .flow
            .copy()
            .map_err(isl_err)?
            .intersect_domain(stage_universe(&ctx, region, k)?)
            .map_err(isl_err)?
            .apply_range(propagated.copy().map_err(isl_err)?)
            .map_err(isl_err)?;
        let exact = UnionMap::from_map(own_k.copy().map_err(isl_err)?)
            .and_then(|u| u.union(needed))
            .and_then(|u| u.coalesce())
            .and_then(Map::from_union_map)
            .map_err(isl_err)?;
        let r_k = UnionMap::from_map(box_region(&exact, model, names, stage, tiling, memo)?)
            .map_err(isl_err)?;
        propagated = propagated
            .union(r_k.copy().map_err(isl_err)?)
            .map_err(isl_err)?;
        let r_map = Map::from_union_map(r_k).map_err(isl_err)?;
        info!(
            "overlap: {} computes {} per tile",
            stage.name,
            r_map.text()?
        );
        own[k] = Some(own_k);
        regions[k] = Some(r_map);
    }
    let own: Vec<Map> = own.into_iter().flatten().collect();
    let regions: Vec<Map> = regions.into_iter().flatten().collect();

    let footprints = footprints(region, &regions, &shifts, &scales, &sizes)?;
    let (storage, loads) = plan_storage(&StorageInput {
        region,
        names,
        model,
        units,
        consumers: &consumers,
        regions: &regions,
        live_in,
        depth,
        classic: classic.map(|c| (c, sizes[c])),
        span,
    })?;
    Ok(GroupAnalysis {
        units: units.to_vec(),
        sizes,
        depth,
        classic,
        scales,
        shifts,
        own,
        regions,
        footprints,
        storage,
        loads,
        reuse: (0..n_stages).map(|k| vec![k]).collect(),
        inner: None,
    })
}

/// Alignment and scaling (§3.7): the scale factors of `stages` (a group, in
/// order, all of one depth; `edges` are their flow dependences, `units`
/// their multi-statement stages as indices into `stages`), under which
/// up- and down-sampling stages are tiled in scaled coordinates where every
/// dependence distance is constant; an error where no scaling aligns them,
/// where a scale does not divide its loop's tile size (`sizes`, aligned on
/// the loops), or where the statements of one nest would need different
/// scales. Cheap beside the rest of a group's analysis, which fails wherever
/// this does: the greedy grouping runs it first to find how far a group can
/// reach.
pub(crate) fn group_scales(
    stages: &[&Stage],
    edges: &[FlowEdge],
    units: &[Vec<usize>],
    sizes: &[i64],
    span: Span,
) -> Result<Vec<Vec<i64>>> {
    let depth = sizes.len();
    let scales = aligned_scales(stages, edges, depth)?;
    for (k, sc) in scales.iter().enumerate() {
        if let Some(d) = (0..depth).find(|d| sizes[*d] < WHOLE && sizes[*d] % sc[*d] != 0) {
            return Err(Error::at(
                span,
                format!(
                    "{} is scaled by {} along loop {d} to align its dependences; the tile size {} of that loop must be a multiple of it",
                    stages[k].label, sc[d], sizes[d]
                ),
            ));
        }
    }
    // The statements of a multi-statement stage share its loops: one scale.
    for unit in units {
        if let Some(k) = unit.iter().find(|k| scales[**k] != scales[unit[0]]) {
            return Err(Error::inapplicable_at(
                span,
                format!(
                    "{} and {} share a loop nest but would need different scale factors ({:?}, {:?}) to align their dependences",
                    stages[unit[0]].label, stages[*k].label, scales[unit[0]], scales[*k]
                ),
            ));
        }
    }
    Ok(scales)
}

/// The schedule tree of an analysed group (of `region`, with `model`) and
/// its storage plan, its buffers shared by liveness. `mark` is the mark
/// above the expansion node.
pub(crate) fn build_group(
    region: &Region,
    model: &RegionModel,
    a: &GroupAnalysis,
    spec: &OverlapSpec,
    mark: &Mark,
) -> Result<(Schedule, StoragePlan)> {
    let ctx = model.schedule.get_ctx();
    let schedule = build_tree(&ctx, region, a, spec, mark)?;
    let mut storage = a.storage.clone();
    crate::transform::sharing::share(&schedule, &mut storage, region)?;
    crate::transform::storage::choose_tile_allocation(&mut storage, spec.stack_limit);
    Ok((schedule, storage))
}

/// The tiles of overlapped tiling: shape, sizes and which loops overlap.
#[derive(Clone, Debug)]
pub struct OverlapSpec {
    /// Trapezoid shape.
    pub shape: Shape,
    /// Tile sizes, aligned on the innermost loops.
    pub sizes: Vec<i64>,
    /// `--overlap-dims`: the loops (0 = outermost) whose tiles overlap; the
    /// other one is tiled classically (§3.7, hybrid tiling). `None`: all.
    pub overlap_dims: Option<Vec<usize>>,
    /// `--overlap-tolerance`: a nest joins a group only while every stage's
    /// overlap per loop, as a fraction of the tile size, stays within it
    /// (PolyMage's greedy grouping). `None`: no limit.
    pub overlap_tolerance: Option<f64>,
    /// At most this many stages per group (the driver's fallback when isl's
    /// code generator runs past its budget). `None`: no limit.
    pub max_group: Option<usize>,
    /// How the nests are grouped (`--grouping`).
    pub grouping: GroupingStrategy,
    /// Rectangle tiles: the innermost fused point loop is split where that
    /// is cheap (chains) or isolated and generated without guards (steps of
    /// time blocks) (isl's `isolate` option;
    /// false: atomic point loops, the driver's first fallback when isl runs
    /// past its budget).
    pub isolate_points: bool,
    /// Rectangle tiles: the innermost fused point loop is strip-mined into
    /// chunks of this many points, the statements one after another inside
    /// a chunk (0: fused point by point, as in Fig. 14).
    pub point_chunk: i64,
    /// The most bytes of scratchpads a tile keeps on its thread's stack
    /// (`--stack-limit`).
    pub stack_limit: u64,
    /// Fuse the point loops of stages that read common inputs inside a tile
    /// (Jangda & Bondhugula, TOPLAS'20, §5.3; off with `--no-intra-tile-fusion`).
    pub intra_fusion: bool,
    /// Scalene tiles the cost model sizes for L2 run inner tiles sized for
    /// L1 (Jangda & Bondhugula, TOPLAS'20, §5.2; off with `--no-multi-level`).
    pub multi_level: bool,
    /// What the cost model reads (`--grouping dp`).
    pub model: ModelSpec,
}

/// What the cost model of `--grouping dp` reads besides the program.
#[derive(Clone, Debug)]
pub struct ModelSpec {
    /// The machine (`--cache-sizes`, `--cores`).
    pub machine: Machine,
    /// The cost's weights (`--cost-weights`).
    pub weights: Weights,
    /// Problem-size estimates by C parameter name (`--estimate`).
    pub estimates: BTreeMap<String, i64>,
    /// The user gave the tile sizes (`--tile-sizes`): the model costs
    /// groups at those sizes instead of choosing them.
    pub sizes_given: bool,
    /// The CUDA target: groups are costed by the GPU cost model
    /// ([`crate::transform::gpu_cost`]), which also chooses each group's
    /// scheme and thread block.
    pub gpu: Option<GpuSpec>,
}

impl OverlapSpec {
    /// The same tiles with other sizes (one group's).
    pub(crate) fn with_sizes(&self, sizes: &[i64]) -> OverlapSpec {
        OverlapSpec {
            sizes: sizes.to_vec(),
            ..self.clone()
        }
    }

    /// The same tiles grouped by another strategy.
    pub(crate) fn with_grouping(&self, grouping: GroupingStrategy) -> OverlapSpec {
        OverlapSpec {
            grouping,
            ..self.clone()
        }
    }
}

/// The loop tiled classically under partial overlapped tiling (`None`: every
/// tiled loop overlaps). At most one tiled loop may be left out of
/// `overlap_dims`; loops without a tile size count as neither.
pub(crate) fn classic_dim(
    overlap_dims: Option<&[usize]>,
    depth: usize,
    sizes: &[i64],
    span: Span,
) -> Result<Option<usize>> {
    let Some(dims) = overlap_dims else {
        return Ok(None);
    };
    // Loops numbered past this group's depth belong to deeper nests of the
    // chain (checked in `overlapped_tiling`).
    // Loops without a tile size (one tile spans them) are neither.
    let rest: Vec<usize> = (0..depth)
        .filter(|d| !dims.contains(d) && sizes[*d] < WHOLE)
        .collect();
    match rest.as_slice() {
        [] => Ok(None),
        // The tiles of the classic loop run in order inside each overlapped
        // tile, sharing its sliding scratchpads: there must be an overlapped
        // loop around them.
        [c] if !(0..depth).any(|d| dims.contains(&d)) => Err(Error::at(
            span,
            format!(
                "--overlap-dims leaves no loop of this group to overlap (its one tiled loop, {c}, would be tiled classically); name one of its loops"
            ),
        )),
        [c] => Ok(Some(*c)),
        _ => Err(Error::at(
            span,
            format!(
                "--overlap-dims leaves loops {rest:?} to classic tiling; partial overlapped tiling supports one classically tiled loop"
            ),
        )),
    }
}

/// Tile size of a loop that is not tiled: one tile spans it.
pub(crate) const WHOLE: i64 = 1 << 40;

/// Default tile size for every loop when `--tile` (or overlapped tiling) is
/// given without sizes.
pub const DEFAULT_TILE_SIZE: i64 = 32;

/// Tile sizes for a group of `depth` loops: aligned on the innermost loops
/// (the last `depth` sizes); outer loops without a size are not tiled (one
/// tile spans them).
pub(crate) fn aligned_sizes(sizes: &[i64], depth: usize) -> Vec<i64> {
    let k = sizes.len();
    (0..depth)
        .map(|d| {
            let from_inner = depth - d; // 1 for the innermost loop
            if from_inner <= k {
                sizes[k - from_inner]
            } else if k == 0 {
                DEFAULT_TILE_SIZE
            } else {
                WHOLE
            }
        })
        .collect()
}

/// `{ Sk[i0, ...] }` as a union set.
pub(crate) fn stage_universe(ctx: &Context, region: &Region, k: usize) -> Result<UnionSet> {
    let s = &region.stages[k];
    let its: Vec<String> = (0..s.iterators.len()).map(|d| format!("i{d}")).collect();
    UnionSet::read_from_str(ctx, &format!("{{ {}[{}] }}", s.name, its.join(", "))).map_err(isl_err)
}

/// The dependences that constrain the shifts of a group whose statements
/// form `units`: those between units, and a zero-distance tie both ways
/// between the statements of one unit, which therefore get one shift and
/// keep their original order inside their common point loops (the
/// dependences between them need no shift).
fn unit_shift_deps(
    region: &Region,
    units: &[Vec<usize>],
    deps: &UnionMap,
    depth: usize,
) -> Result<UnionMap> {
    let unit_of = |name: &str| {
        units
            .iter()
            .position(|u| u.iter().any(|k| region.stages[*k].name == name))
    };
    let ctx = deps.get_ctx();
    let mut out = UnionMap::read_from_str(&ctx, "{ }").map_err(isl_err)?;
    let list = deps.get_map_list().map_err(isl_err)?;
    for i in 0..list.size().map_err(isl_err)? {
        let m = list.get_at(i).map_err(isl_err)?;
        let src = m.get_tuple_name(DimType::In).map_err(isl_err)?.to_string();
        let dst = m.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string();
        if src == dst || unit_of(&src) != unit_of(&dst) {
            out = out
                .union(UnionMap::from_map(m).map_err(isl_err)?)
                .map_err(isl_err)?;
        }
    }
    let its: Vec<String> = (0..depth).map(|d| format!("i{d}")).collect();
    let its = its.join(", ");
    for unit in units {
        for k in &unit[1..] {
            let (a, b) = (&region.stages[unit[0]].name, &region.stages[*k].name);
            let tie = UnionMap::read_from_str(
                &ctx,
                &format!("{{ {a}[{its}] -> {b}[{its}]; {b}[{its}] -> {a}[{its}] }}"),
            )
            .map_err(isl_err)?;
            out = out.union(tie).map_err(isl_err)?;
        }
    }
    Ok(out)
}

/// For every stage, the set of stages consuming its values (value-based flow).
fn consumer_sets(region: &Region, flow: &UnionMap) -> Result<Vec<BTreeSet<usize>>> {
    let mut out = vec![BTreeSet::new(); region.stages.len()];
    let index_of = |name: &str| region.stages.iter().position(|s| s.name == name);
    let list = flow.get_map_list().map_err(isl_err)?;
    for i in 0..list.size().map_err(isl_err)? {
        let m = list.get_at(i).map_err(isl_err)?;
        let a = index_of(m.get_tuple_name(DimType::In).map_err(isl_err)?);
        let b = index_of(m.get_tuple_name(DimType::Out).map_err(isl_err)?);
        if let (Some(a), Some(b)) = (a, b) {
            if a != b {
                out[a].insert(b);
            }
        }
    }
    Ok(out)
}

/// Refuses groups whose overlapping tiles would race on the original arrays:
/// accumulations (output dependences), and in-place updates of values that
/// come from before the group (`live_in`: the reads of such values,
/// [`crate::model::deps::live_in_reads`]).
fn check_race_free(
    region: &Region,
    model: &RegionModel,
    deps: &Dependences,
    units: &[Vec<usize>],
    live_in: &UnionMap,
    span: Span,
) -> Result<()> {
    // A stage tiled alone computes just its own part per tile (nothing is
    // expanded): with no dependence between its instances (an update in
    // place, element by element), no two tiles touch the same element.
    if region.stages.len() == 1 && deps.all()?.is_empty().map_err(isl_err)? {
        return Ok(());
    }
    // A stage that reads its own results (a recurrence) would need its whole
    // history inside every tile: its region is not bounded by the tile.
    let pos = |name: &str| region.stages.iter().position(|s| s.name == name);
    let list = deps.flow.get_map_list().map_err(isl_err)?;
    for i in 0..list.size().map_err(isl_err)? {
        let m = list.get_at(i).map_err(isl_err)?;
        let src = m.get_tuple_name(DimType::In).map_err(isl_err)?.to_string();
        let dst = m.get_tuple_name(DimType::Out).map_err(isl_err)?;
        if src == dst {
            let mut d = Diagnostic::error(
                span,
                "overlapped tiling cannot handle a nest that reads values it computes itself (a recurrence): its per-tile region is unbounded",
            );
            if let Some(s) = region.stages.iter().find(|s| s.name == src) {
                d = d.with_note(s.span, format!("{} depends on itself", s.label));
            }
            return Err(Error::inapplicable(d));
        }
        // Inside a multi-statement stage, values flow forward in textual
        // order (a statement reads what the statements before it computed,
        // in this iteration or an earlier one): each statement's region is
        // then propagated from the later ones'. A statement reading what a
        // later one computed in an earlier iteration closes a recurrence.
        if let (Some(a), Some(b)) = (pos(&src), pos(dst)) {
            if b < a && units.iter().any(|u| u.contains(&a) && u.contains(&b)) {
                let (sa, sb) = (&region.stages[a], &region.stages[b]);
                return Err(Error::inapplicable(
                    Diagnostic::error(
                        span,
                        "overlapped tiling needs the statements that share a loop nest to read only what the statements before them compute: a statement that reads what a later one computed in an earlier iteration is not supported",
                    )
                    .with_note(
                        sb.span,
                        format!("{} reads what {} computed in an earlier iteration", sb.label, sa.label),
                    ),
                ));
            }
        }
    }
    if !deps.output.is_empty().map_err(isl_err)? {
        let m = deps
            .output
            .get_map_list()
            .and_then(|l| l.get_at(0))
            .map_err(isl_err)?;
        let name = m.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string();
        let stage = region.stages.iter().find(|s| s.name == name);
        let mut d = Diagnostic::error(
            span,
            "overlapped tiling cannot handle data written several times in the chain (an accumulation or in-place update): overlapping tiles would race on it",
        );
        if let Some(s) = stage {
            d = d.with_note(
                s.span,
                format!("{} writes data that is written before it", s.label),
            );
        }
        return Err(Error::inapplicable(d));
    }
    // Reads whose value may come from before the chain, of data the chain writes.
    let no_source = live_in.copy().map_err(isl_err)?;
    let written = model
        .may_writes
        .copy()
        .and_then(|w| w.range())
        .map_err(isl_err)?;
    let conflict = no_source.intersect_range(written).map_err(isl_err)?;
    if !conflict.is_empty().map_err(isl_err)? {
        let m = conflict
            .get_map_list()
            .and_then(|l| l.get_at(0))
            .map_err(isl_err)?;
        let stage = m.get_tuple_name(DimType::In).map_err(isl_err)?.to_string();
        let data = m.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string();
        // The C name of the data set (isl's may carry a prefix, see `isl_name`).
        let data = region
            .stages
            .iter()
            .flat_map(|s| &s.accesses)
            .find(|a| isl_name(&a.data) == data)
            .map_or(data, |a| a.data.clone());
        let mut d = Diagnostic::error(
            span,
            format!(
                "overlapped tiling cannot handle the in-place update of '{data}': values read from before the chain are overwritten inside it, and overlapping tiles would race"
            ),
        );
        if let Some(s) = region.stages.iter().find(|s| s.name == stage) {
            d = d.with_note(s.span, format!("{} reads '{data}' here", s.label));
        }
        return Err(Error::inapplicable(d));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span() -> Span {
        Span { start: 0, end: 0 }
    }

    #[test]
    fn classic_dim_is_the_one_tiled_loop_left_out() {
        let sizes = [WHOLE, 8, 64];
        assert_eq!(classic_dim(None, 3, &sizes, span()).unwrap(), None);
        // The untiled outer loop counts as neither.
        assert_eq!(classic_dim(Some(&[1]), 3, &sizes, span()).unwrap(), Some(2));
        assert_eq!(
            classic_dim(Some(&[0, 2]), 3, &sizes, span()).unwrap(),
            Some(1)
        );
        assert_eq!(classic_dim(Some(&[1, 2]), 3, &sizes, span()).unwrap(), None);
        // Two tiled loops left out: refused.
        assert!(classic_dim(Some(&[0]), 3, &sizes, span()).is_err());
        // A loop of deeper nests elsewhere: ignored here.
        assert_eq!(
            classic_dim(Some(&[0, 2]), 2, &[8, 8], span()).unwrap(),
            Some(1)
        );
    }

    #[test]
    fn sizes_align_on_innermost_loops() {
        assert_eq!(aligned_sizes(&[8, 64], 3), vec![WHOLE, 8, 64]);
        assert_eq!(aligned_sizes(&[4, 8, 64], 2), vec![8, 64]);
    }
}
