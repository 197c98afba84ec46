//! The transformation passes of one region, in order: overlapped tiling,
//! or the loop chain's schedule items (fusion, tiling, wavefronts);
//! command-line tiling; parallel loops; contraction of temporaries; simd
//! loops; CUDA's thread loops. Each pass edits the schedule tree and adds
//! what it did to the region's banner.

use super::*;
use crate::model::isl_ext::isl_err;
use crate::model::marks::Mark;
use crate::model::program::ChainSchedule;
use crate::transform::band::mark_below;
use crate::transform::missed::{serial_loop_notes, Missed};
use crate::transform::overlap::Overlapped;

/// What the passes of one region read.
pub(super) struct Passes<'a> {
    pub(super) opts: &'a Options,
    pub(super) program: &'a Program,
    pub(super) region: &'a Region,
    pub(super) names: &'a Names,
    pub(super) model: &'a RegionModel,
    pub(super) deps: &'a Dependences,
    /// Every dependence, as one relation.
    pub(super) all: &'a isl_rs::UnionMap,
    /// How much simpler than asked the schedule is made (isl's budget).
    pub(super) simpler: &'a Simpler,
}

/// The transformation passes, in order.
pub(super) fn transform(p: &Passes) -> Result<Transformed> {
    let (opts, region) = (p.opts, p.region);
    let mut t = Transformed {
        schedule: p.model.schedule.copy().map_err(isl_err)?,
        summary: Vec::new(),
        storage: None,
        largest_group: 0,
        wavefronts: false,
        report: None,
        isolate_points: opts.overlap == Some(Shape::Rectangle)
            && opts.point_chunk == 0
            && !p.simpler.atomic_points,
        warnings: Vec::new(),
        grouping: Grouping {
            groups: nest_groups(region, &BTreeSet::new()),
            ..Grouping::default()
        },
        gpu: Vec::new(),
    };
    let mut never_stored: Vec<String> = Vec::new();
    if let Some(shape) = opts.overlap {
        overlap_pass(p, shape, &mut t, &mut never_stored)?;
    } else if let RegionKind::Chain(chain) = &region.kind {
        chain_schedule_pass(p, chain, &mut t)?;
    }
    if opts.tile && t.storage.is_none() {
        classic_tiling_pass(p, &mut t)?;
    }
    // The banner lists the temporaries never stored before "OpenMP".
    let never_stored_at = t.summary.len();
    let mut parallel_at = None;
    if opts.openmp {
        // OpenMP's reduction clause; CUDA kernels have none.
        let groups = reduction_groups(region, opts.target);
        let relaxed = reductions::without_reductions(p.all, &groups, &p.model.domain)?;
        let deps = relaxed.as_ref().unwrap_or(p.all);
        t.schedule = parallel::mark_parallel_loops(t.schedule, deps, region.pragma_span)?;
        t.warnings
            .extend(serial_loop_notes(&t.schedule, &missed(p))?);
        parallel_at = Some(t.summary.len());
    }
    // CUDA keeps temporaries whole, in device buffers that are never copied
    // back (`backend::cuda::device`): contracted scopes have no device
    // placement yet.
    if !region.temporaries.is_empty() && opts.target == Target::C {
        contraction_pass(p, &mut t, &mut never_stored)?;
    }
    if !never_stored.is_empty() {
        t.summary
            .insert(never_stored_at, Done::NeverStored(never_stored));
        // "OpenMP" comes after the temporaries never stored.
        parallel_at = parallel_at.map(|at| at + 1);
    }
    if opts.openmp {
        t.schedule = simd::mark_simd_loops(t.schedule, p.all, &p.model.domain)?;
    }
    if let Some(at) = parallel_at {
        let text = parallel_summary(opts.target, &t.schedule)?;
        t.summary.insert(at, Done::Parallel(text.to_string()));
    }
    // CUDA: the point loops of tiles that a block's threads share.
    if opts.target == Target::Cuda {
        let storage = &t.storage;
        let copies = |name: &str| {
            storage
                .as_ref()
                .is_some_and(|plan| threads::independent_copy(plan, name))
        };
        t.schedule = threads::mark_thread_loops(t.schedule, p.all, &p.model.domain, &copies)?;
    }
    Ok(t)
}

/// What the notes on the loops left serial are made from.
fn missed<'a>(p: &Passes<'a>) -> Missed<'a> {
    Missed {
        ctx: p.model.schedule.get_ctx(),
        region: p.region,
        names: p.names,
        deps: p.deps,
        text: &p.program.file.text,
        every_loop: p.opts.missed,
    }
}

/// What the banner says of the parallel loops: never "OpenMP" where no
/// loop got an OpenMP pragma.
fn parallel_summary(target: Target, schedule: &isl_rs::Schedule) -> Result<&'static str> {
    let root = schedule.get_root().map_err(isl_err)?;
    let parallel = mark_below(&root, &|m| matches!(m, Mark::Parallel { .. }))?;
    let simd = mark_below(&root, &|m| matches!(m, Mark::Simd { .. }))?;
    Ok(match (target, parallel, simd) {
        (Target::C, true, _) => "OpenMP",
        (Target::C, false, true) => "OpenMP simd only (no parallel loop: see the notes)",
        (Target::C, false, false) => "no parallel loop (see the notes)",
        (Target::Cuda, true, _) => "CUDA (parallel loops as kernels)",
        (Target::Cuda, false, _) => "CUDA (no parallel loop: kernels of one thread; see the notes)",
    })
}

/// Overlapped tiling: it decides shifts and tiles itself, and overrides the
/// pragma's schedule.
fn overlap_pass(
    p: &Passes,
    shape: Shape,
    t: &mut Transformed,
    never_stored: &mut Vec<String>,
) -> Result<()> {
    let (opts, region) = (p.opts, p.region);
    if !p.deps.exact {
        return Err(Error::inapplicable(Diagnostic::error(
            region.pragma_span,
            "overlapped tiling needs the exact (value-based) dependences, and their analysis ran past its budget",
        )));
    }
    let deepest = max_depth(region);
    t.warnings.extend(ignored_sizes(opts, deepest, region, ""));
    let (o, sizes, model_fallback) = tile_overlapped(p, shape, deepest)?;
    // Sizes apply to the innermost loops; the banner shows those used.
    let sizes = &sizes[sizes.len().saturating_sub(deepest)..];
    t.summary
        .extend(overlap_summary(p, shape, sizes, model_fallback, &o));
    if opts.report || opts.explain {
        let (line, _) = p.program.file.line_col(region.pragma_span.start);
        let mut text = String::new();
        if opts.explain {
            text.push_str(&explain(
                &p.program.file.path,
                line,
                &opts.grouping,
                &o.explained,
            ));
        }
        if opts.report {
            text.push_str(&report(&p.program.file.path, line, shape, &o.footprints));
        }
        t.report = Some(text);
    }
    for (k, why) in &o.untiled {
        let s = &region.stages[*k];
        t.warnings.push(Diagnostic::warning(
            s.span,
            format!("{} keeps its original loops: {why}", s.label),
        ));
    }
    for (k, why) in &o.hybrid_refused {
        let s = &region.stages[*k];
        t.warnings.push(Diagnostic::warning(
            s.span,
            format!("--gpu-tiling hybrid: the group starting at {} runs one tile per warp with its scratchpads in shared memory only: {why}", s.label),
        ));
    }
    let unstored: BTreeSet<&str> = o
        .storage
        .groups
        .iter()
        .flat_map(|g| g.unstored.iter().map(String::as_str))
        .collect();
    t.grouping = overlap_grouping(region, &o.storage);
    let (kept, stored): (Vec<&Temporary>, Vec<&Temporary>) = region
        .temporaries
        .iter()
        .partition(|t| unstored.contains(t.name.as_str()));
    never_stored.extend(kept.iter().map(|t| t.name.clone()));
    if !stored.is_empty() {
        let names: Vec<&str> = stored.iter().map(|t| t.name.as_str()).collect();
        info!(
            "temporaries stored all the same (read outside their group, or no later than written): {}",
            names.join(", ")
        );
    }
    t.gpu = o.gpu;
    t.schedule = o.schedule;
    t.storage = Some(o.storage);
    t.largest_group = o.largest_group;
    Ok(())
}

/// The overlapped tiles of the region, the tile sizes they were tried with
/// last, and whether the GPU cost model's grouping gave way to greedy
/// grouping. CUDA's default sizes shrink until every tile's scratchpads fit
/// a thread block's shared memory (sizes the user gave are refused with
/// their bytes when they do not). The GPU cost model's sizes fit by its
/// estimate; where the exact plan does not, the default sizes with greedy
/// grouping take over.
fn tile_overlapped(
    p: &Passes,
    shape: Shape,
    deepest: usize,
) -> Result<(Overlapped, Vec<i64>, bool)> {
    let opts = p.opts;
    let mut sizes = opts
        .tile_sizes
        .clone()
        .unwrap_or_else(|| match opts.target {
            Target::C => vec![DEFAULT_TILE_SIZE; deepest],
            Target::Cuda => crate::backend::cuda::default_tile_sizes(deepest),
        });
    let tile = |sizes: &[i64], grouping: GroupingStrategy| {
        overlapped_tiling(
            p.region,
            p.names,
            p.model,
            p.deps,
            &OverlapSpec {
                shape,
                sizes: sizes.to_vec(),
                overlap_dims: opts.overlap_dims.clone(),
                overlap_tolerance: opts.overlap_tolerance,
                grouping,
                max_group: p.simpler.max_group,
                isolate_points: !p.simpler.atomic_points,
                point_chunk: opts.point_chunk,
                stack_limit: opts.stack_limit,
                intra_fusion: opts.intra_fusion,
                multi_level: opts.multi_level,
                model: opts.model_spec(),
            },
            p.region.pragma_span,
        )
    };
    let mut strategy = opts.grouping;
    let mut o = tile(&sizes, strategy)?;
    let mut model_fallback = false;
    while opts.target == Target::Cuda
        && opts.tile_sizes.is_none()
        && !crate::backend::cuda::fits_shared(&o.storage)
    {
        if strategy == GroupingStrategy::Dp {
            log::info!("the GPU cost model's tiles do not fit shared memory: greedy grouping, tile sizes {sizes:?}");
            strategy = GroupingStrategy::Greedy;
            model_fallback = true;
        } else if crate::backend::cuda::shrink_tile_sizes(&mut sizes) {
            log::info!("overlapped tiles too large for shared memory: trying tile sizes {sizes:?}");
        } else {
            break;
        }
        o = tile(&sizes, strategy)?;
    }
    Ok((o, sizes, model_fallback))
}

/// What overlapped tiling did, for the banner.
fn overlap_summary(
    p: &Passes,
    shape: Shape,
    sizes: &[i64],
    model_fallback: bool,
    o: &Overlapped,
) -> Vec<Done> {
    let (opts, simpler) = (p.opts, p.simpler);
    let mut summary = vec![match &opts.overlap_dims {
        None if model_fallback => Done::Overlap {
            head: format!(
                "overlapped tiling ({shape:?} trapezoids) {sizes:?}, grouped greedily (the GPU cost model's tiles did not fit shared memory)"
            ),
            groups: None,
        },
        None if opts.model_chooses_sizes() && opts.target == Target::Cuda => Done::Overlap {
            head: format!(
                "overlapped tiling ({shape:?} trapezoids), groups, tile sizes and GPU mapping from the GPU cost model ({}): ",
                opts.gpu.arch
            ),
            groups: Some(o.group_sizes.clone()),
        },
        None if opts.model_chooses_sizes() => Done::Overlap {
            head: format!(
                "overlapped tiling ({shape:?} trapezoids), groups and tile sizes from the cost model: "
            ),
            groups: Some(o.group_sizes.clone()),
        },
        None => Done::Overlap {
            head: format!("overlapped tiling ({shape:?} trapezoids) {sizes:?}"),
            groups: None,
        },
        Some(d) => Done::Overlap {
            head: format!(
                "partial overlapped tiling ({shape:?} trapezoids) {sizes:?}, loops {d:?} overlapped, the other tiled classically"
            ),
            groups: None,
        },
    }];
    if !o.fused_runs.is_empty() {
        summary.push(Done::IntraFusion {
            stages: o.fused_runs.iter().sum::<usize>(),
            loops: o.fused_runs.len(),
        });
    }
    if o.multi_level > 0 {
        summary.push(Done::MultiLevel {
            groups: o.multi_level,
        });
    }
    if let Some(g) = simpler.max_group {
        summary.push(Done::Text(format!("groups of at most {g} stages")));
    }
    if simpler.atomic_points && shape == Shape::Rectangle {
        summary.push(Done::Text(
            "atomic point loops (code generation budget)".to_string(),
        ));
    }
    summary
}

/// The loop chain's schedule items, in order; `--tile` overrides the
/// pragma's tiling. A fused band that nothing tiles afterwards isolates its
/// guard-free core.
fn chain_schedule_pass(p: &Passes, chain: &ChainSchedule, t: &mut Transformed) -> Result<()> {
    let (opts, region, simpler, all) = (p.opts, p.region, p.simpler, p.all);
    let tiled_later = |k: usize| {
        opts.tile
            || chain.items[k + 1..]
                .iter()
                .any(|i| matches!(i, ScheduleItem::Tile(_) | ScheduleItem::Wavefront(_)))
    };
    for (k, item) in chain.items.iter().enumerate() {
        let schedule = t.schedule.copy().map_err(isl_err)?;
        t.schedule = match item {
            ScheduleItem::Fuse { shifts, span } => {
                t.summary.push(Done::Text(match shifts {
                    Some(s) => format!("fused with shifts {s:?}"),
                    None => "fused (shifts computed)".to_string(),
                }));
                // All nests run in one fused loop nest: one macro node.
                t.grouping.groups = vec![(0..region.stages.len()).collect()];
                let isolate = !tiled_later(k);
                fuse::fuse(
                    schedule,
                    region,
                    p.names,
                    p.deps,
                    shifts.as_deref(),
                    *span,
                    isolate,
                )?
            }
            ScheduleItem::Tile(spec) if !opts.tile => {
                t.wavefronts |= has_wavefront(&spec.outer) || has_wavefront(&spec.inner);
                let spec = if simpler.no_wavefront {
                    without_wavefronts(spec)
                } else {
                    spec.clone()
                };
                let (tiled, bands) = tile::tile_innermost_bands(
                    schedule,
                    all,
                    &spec,
                    tile::Strictness::Pragma(spec.span),
                )?;
                t.summary
                    .push(Done::Text(tiled_summary(region, &spec.sizes, &bands).0));
                tiled
            }
            ScheduleItem::Tile(_) => {
                info!("pragma tile item overridden by --tile");
                schedule
            }
            ScheduleItem::Parallel(_) => {
                t.summary
                    .push(Done::Text("outer loops parallel".to_string()));
                tile::on_outermost_bands(schedule, &mut tile::request_parallel)?
            }
            ScheduleItem::Wavefront(_) if simpler.no_wavefront => schedule,
            ScheduleItem::Wavefront(span) => {
                t.summary.push(Done::Text("wavefront".to_string()));
                t.wavefronts = true;
                tile::on_outermost_bands(schedule, &mut |n| tile::wavefront(n, all, *span, None))?
            }
        };
    }
    if simpler.no_wavefront {
        t.summary.push(Done::Text(
            "wavefronts run serially (code generation budget)".to_string(),
        ));
    }
    Ok(())
}

/// `--tile`: classical tiling of every innermost band over its permutable
/// loops. Which loops run in parallel is left to the parallel pass.
fn classic_tiling_pass(p: &Passes, t: &mut Transformed) -> Result<()> {
    let sizes = p
        .opts
        .tile_sizes
        .clone()
        .unwrap_or_else(|| vec![DEFAULT_TILE_SIZE; max_depth(p.region)]);
    let spec = TileSpec {
        sizes,
        outer: LoopTreatment::Auto,
        inner: LoopTreatment::Auto,
        span: p.region.pragma_span,
    };
    let schedule = t.schedule.copy().map_err(isl_err)?;
    let (tiled, bands) =
        tile::tile_innermost_bands(schedule, p.all, &spec, tile::Strictness::BestEffort)?;
    t.schedule = tiled;
    // The warnings for sizes not applied are the region's: see
    // `tiling::tiling_warning` (a region lowered in parts has its bands
    // from every part).
    t.summary.push(Done::Tiled {
        sizes: spec.sizes,
        bands,
    });
    Ok(())
}

/// Contraction of the temporaries outside tiles into smaller buffers
/// (`transform/contract.rs`). Temporaries that a tile group touches stay as
/// overlapped tiling left them.
fn contraction_pass(p: &Passes, t: &mut Transformed, never_stored: &mut Vec<String>) -> Result<()> {
    let region = p.region;
    let mut plan = t.storage.take().unwrap_or_default();
    let in_tiles: Vec<String> = region
        .stages
        .iter()
        .filter(|s| plan.group_of(&s.name).is_some())
        .flat_map(|s| s.accesses.iter().map(|a| a.data.clone()))
        .collect();
    let schedule = t.schedule.copy().map_err(isl_err)?;
    let (contracted, done) = contract::contract(
        region, p.names, p.model, p.deps, schedule, &mut plan, &in_tiles,
    )?;
    t.schedule = contracted;
    if !done.buffers.is_empty() {
        never_stored.extend(done.buffers.iter().map(|c| c.data.clone()));
        let scoped = plan
            .buffers
            .iter()
            .filter(|b| matches!(b.placement, Placement::Scope { .. }));
        add_unstored(&mut t.grouping, scoped);
        t.summary.push(Done::Contracted {
            buffers: done
                .buffers
                .iter()
                .map(|c| format!("{} to {}", c.data, c.shape))
                .collect(),
            shared: done.shared.clone(),
        });
    }
    if !plan.groups.is_empty() || !plan.buffers.is_empty() {
        t.storage = Some(plan);
    }
    Ok(())
}
