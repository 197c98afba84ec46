//! Lowering one region: its model and dependences, the transform passes in
//! order ([`transform`]: fusion, overlapped or classic tiling, storage
//! contraction, parallel loops, the validity check), and code generation
//! under isl's operation budget, retried with simpler schedules past it.

use super::*;

/// A region's generated loops and what was done to them.
pub(super) struct Lowered {
    /// The loops, indented (CUDA: the host code).
    pub(super) code: String,
    /// Definitions at file scope before the region's function (CUDA's kernels).
    pub(super) kernels: String,
    /// CUDA: `code` as the device buffers' setup, the host loops, the
    /// teardown.
    pub(super) parts: Option<[String; 3]>,
    /// What was done, for the region's banner.
    pub(super) summary: Vec<Done>,
    /// The stages run fused, for the macro dataflow graph.
    pub(super) grouping: Grouping,
    /// For which parameter values the loops' integer arithmetic stays in
    /// its C type.
    pub(super) int_bound: int_range::Bound,
}

/// A region's polyhedral model and exact (or, past the budget,
/// memory-based) dependences, in their own isl context: built once where
/// renaming in place and the lowering both need them.
pub(super) struct Built {
    pub(super) model: RegionModel,
    pub(super) deps: Dependences,
    // Declared last, so dropped last: the model and dependences live in it.
    pub(super) ctx: Context,
}

impl Built {
    /// The model of `region` (`modelled`, where it was built already) and
    /// its dependences.
    pub(super) fn new(
        opts: &Options,
        region: &Region,
        names: &Names,
        modelled: Option<Modelled>,
    ) -> Result<Built> {
        let Modelled { model, ctx } = match modelled {
            Some(m) => m,
            None => Modelled::new(opts, region, names)?,
        };
        let started = std::time::Instant::now();
        let deps = deps::compute(&model, dependence_budget(opts, region))?;
        log::debug!("time: dependences {} ms", started.elapsed().as_millis());
        Ok(Built { model, deps, ctx })
    }
}

/// A region's polyhedral model in its own isl context, before its
/// dependences: built once for the alias check and the lowering.
pub(super) struct Modelled {
    pub(super) model: RegionModel,
    // Declared last, so dropped last: the model lives in it.
    pub(super) ctx: Context,
}

impl Modelled {
    pub(super) fn new(opts: &Options, region: &Region, names: &Names) -> Result<Modelled> {
        let started = std::time::Instant::now();
        let ctx = new_context();
        let model = polyhedral::build(&ctx, region, names, opts.assume.as_deref())?;
        log::debug!(
            "time: polyhedral model {} ms",
            started.elapsed().as_millis()
        );
        Ok(Modelled { model, ctx })
    }
}

/// The model, dependence and transformation passes on one region, and its
/// loops printed at `indent`.
///
/// isl's code generator gets a budget of operations
/// (`--max-isl-operations` times the region's statements). When it runs past it, the region is
/// transformed again with a simpler schedule, and a warning says so: the
/// fused point loops of rectangle tiles are generated atomic, then
/// overlapped groups are split in halves (down to two stages); a loop chain
/// that asks for wavefronts gets serial tile loops instead. When nothing
/// simpler is left, the region is refused with a diagnostic.
/// `built`: the region's model and dependences when they were built already;
/// `shadows`: the copies of arrays the region updates in place (CUDA places
/// them on the device); `part`: which part of a region this is, for CUDA's
/// kernel names (see [`CudaRegion::part`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn lower(
    opts: &Options,
    program: &Program,
    region: &Region,
    names: &Names,
    naming: &Naming,
    templates: &Templates,
    helpers: &mut BTreeSet<Helper>,
    warnings: &mut Vec<Diagnostic>,
    indent: &str,
    built: Option<Built>,
    shadows: &[Shadow],
    part: &'static str,
) -> Result<Lowered> {
    let Built { ctx, model, deps } = match built {
        Some(b) => b,
        None => Built::new(opts, region, names, None)?,
    };
    polyhedral::check_declared_domains(&ctx, region)?;
    polyhedral::check_declared_accesses(&ctx, region, names)?;
    if !deps.exact {
        warnings.push(inexact_dependences(region, dependence_budget(opts, region)));
    }
    let budget = isl_budget(opts, region);
    let all = deps.all()?;
    // The CUDA target's device buffers: from the region's accesses, once.
    let device = match opts.target {
        Target::Cuda => Some(DeviceData::plan(
            region,
            &model,
            names,
            &naming.helper,
            shadows,
        )?),
        Target::C => None,
    };
    let (line, _) = program.file.line_col(region.pragma_span.start);
    let cuda = device.as_ref().map(|device| CudaRegion {
        region,
        device,
        place: format!("{}:{line}", program.file.path),
        line,
        part,
        block: opts
            .block_sizes
            .unwrap_or(crate::backend::cuda::DEFAULT_BLOCK),
        tiling: opts
            .gpu_tiling
            .unwrap_or(crate::backend::cuda::GpuTiling::Block),
        choices: Vec::new(),
        gpu: opts.gpu,
    });
    let label = |name: &str| {
        region
            .stages
            .iter()
            .find(|s| s.name == name)
            .map_or_else(|| name.to_string(), |s| s.label.clone())
    };
    let mut simpler = Simpler::default();
    loop {
        let started = std::time::Instant::now();
        let t = transform(opts, program, region, names, &model, &deps, &all, &simpler)?;
        log::debug!("time: transform {} ms", started.elapsed().as_millis());
        if opts.dump_schedule {
            let (line, _) = program.file.line_col(region.pragma_span.start);
            eprintln!(
                "# final schedule of the region at {}:{}\n{}",
                program.file.path,
                line,
                schedule_to_yaml(&t.schedule)?
            );
        }
        if let Some(storage) = &t.storage {
            check_versions_in_scratchpads(region, storage)?;
        }
        let subject = validity::Subject {
            schedule: &t.schedule,
            domain: &model.domain,
            context: &model.context,
            deps: &deps,
            label: &label,
        };
        // Code generation runs in a thread of its own, in an isl context of
        // its own, on the schedule's text (the bodies of overlapped tiles,
        // which flextile generates, taken out: what isl reads back is
        // short), while the validity check runs here on the schedule itself:
        // neither waits for the other.
        let started = std::time::Instant::now();
        let prepared = Prepared::new(&t.schedule, &model.context, names)?;
        let (tree, checked) = std::thread::scope(|scope| {
            let generator = scope.spawn(move || {
                let tree = prepared.loop_tree(budget);
                log::debug!("time: code generation {} ms", started.elapsed().as_millis());
                tree
            });
            let checking = std::time::Instant::now();
            let checked = validity::check(&subject, budget);
            log::debug!("time: validity check {} ms", checking.elapsed().as_millis());
            let tree = generator
                .join()
                .unwrap_or_else(|_| Err(Error::internal("the code generator's thread panicked")));
            (tree, checked)
        });
        let tree = match tree? {
            Ok(tree) => tree,
            // isl cannot read its own text of this schedule back.
            Err(Unreadable) => loop_tree(&t.schedule, &model.context, names, budget)?,
        };
        if let Some(tree) = tree {
            let counter = match naming.wide {
                true => int_range::LONG_LONG,
                false => int_range::INT,
            };
            let params = counters::param_ranges(program, region);
            let int_bound = int_range::parameter_bound(
                &tree,
                &int_range::Ranges {
                    params: &params,
                    counter,
                },
            );
            log::debug!("int range of the generated loops: {int_bound:?}");
            let cuda_t = cuda.as_ref().map(|c| CudaRegion {
                choices: t.gpu.clone(),
                ..c.clone()
            });
            let generated = generate_loops(
                tree,
                &region.stages,
                naming,
                templates,
                indent,
                helpers,
                t.storage.as_ref(),
                cuda_t.as_ref(),
            )?;
            let checked = checked.map_err(|e| match e {
                Error::Internal(m) => {
                    let (line, _) = program.file.line_col(region.pragma_span.start);
                    Error::Internal(format!("{}:{line}: {m}", program.file.path))
                }
                e => e,
            })?;
            let mut summary = t.summary;
            if !deps.exact {
                summary.push(Done::Check(
                    "memory-based dependences (exact analysis past its budget)".to_string(),
                ));
            }
            if checked == validity::Outcome::NotCompleted {
                info!("validity check: ran past the budget of {budget} operations");
                summary.push(Done::Check(
                    "validity check not completed (isl operation budget)".to_string(),
                ));
            }
            if let Some(r) = &t.report {
                print!("{r}");
            }
            if let (true, Some(r)) = (opts.report, &generated.report) {
                print!("{r}");
            }
            warnings.extend(t.warnings);
            return Ok(Lowered {
                code: generated.code,
                kernels: generated.kernels,
                parts: generated.parts,
                summary,
                grouping: t.grouping,
                int_bound,
            });
        }
        info!("codegen: isl ran past its budget of {budget} operations");
        let next = simpler.next(&t);
        let Some((next, what)) = next else {
            return Err(Error::at(
                region.pragma_span,
                format!(
                    "isl's code generator ran past its budget of {budget} operations on this region{}; raise it with --max-isl-operations (0: no limit) or simplify the schedule",
                    simpler.tried()
                ),
            ));
        };
        warnings.push(Diagnostic::warning(
            region.pragma_span,
            format!("isl's code generator ran past its budget of {budget} operations on this region; {what} (--max-isl-operations raises the budget)"),
        ));
        simpler = next;
    }
}

/// Versions of arrays that live only in scratchpads (the inner steps of a
/// time block) must have one in every group that touches them: the steps of
/// a block have to be tiled together.
fn check_versions_in_scratchpads(region: &Region, storage: &StoragePlan) -> Result<()> {
    for s in &region.stages {
        for a in &s.accesses {
            if region.versions.get(&a.data).is_none_or(|v| v.stored) {
                continue;
            }
            let held = storage
                .group_of(&s.name)
                .is_some_and(|(g, _)| storage.tile_buffer(g, &a.data).is_some());
            if !held {
                return Err(Error::at(
                    region.pragma_span,
                    format!(
                        "overlapped tiling of the time loop: the steps of a time block could not be tiled together ({} is not in the group that computes the values it reads; -v says why the group was split); use fewer time steps per block (--tile-sizes) or --tile",
                        s.label
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// A region's schedule after the transformation passes.
pub(super) struct Transformed {
    /// The final schedule tree.
    pub(super) schedule: Schedule,
    /// What was done, for the region's banner.
    pub(super) summary: Vec<Done>,
    /// Tile-local storage (overlapped tiling).
    pub(super) storage: Option<StoragePlan>,
    /// Stages of the largest overlapped group.
    pub(super) largest_group: usize,
    /// Whether some band was skewed into a wavefront.
    pub(super) wavefronts: bool,
    /// The `--report` text (overlapped tiling).
    pub(super) report: Option<String>,
    /// Whether rectangle tiles isolated the guard-free part of their point loops.
    pub(super) isolate_points: bool,
    /// What the user should know about the result (stages overlapped tiling
    /// left in their original loops).
    pub(super) warnings: Vec<Diagnostic>,
    /// The stages run fused, for the macro dataflow graph.
    pub(super) grouping: Grouping,
    /// The CUDA target: the GPU cost model's choice per overlapped group
    /// (the storage plan's order).
    pub(super) gpu: Vec<Option<GpuCosted>>,
}

/// The transformation passes, in order: overlapped tiling, or the loop
/// chain's schedule items (fusion, tiling, wavefronts); command-line tiling;
/// parallel loops.
#[allow(clippy::too_many_arguments)]
fn transform(
    opts: &Options,
    program: &Program,
    region: &Region,
    names: &Names,
    model: &polyhedral::RegionModel,
    deps: &deps::Dependences,
    all: &isl_rs::UnionMap,
    simpler: &Simpler,
) -> Result<Transformed> {
    let mut schedule = model
        .schedule
        .copy()
        .map_err(crate::model::isl_ext::isl_err)?;
    let mut summary = Vec::new();
    let mut storage: Option<StoragePlan> = None;
    let mut largest_group = 0;
    let mut wavefronts = false;
    let mut report_text = None;
    let mut notes = Vec::new();
    let mut never_stored: Vec<String> = Vec::new();
    let mut gpu = Vec::new();
    let mut grouping = Grouping {
        groups: nest_groups(region, &BTreeSet::new()),
        ..Grouping::default()
    };

    if let Some(shape) = opts.overlap {
        if !deps.exact {
            return Err(Error::inapplicable(Diagnostic::error(
                region.pragma_span,
                "overlapped tiling needs the exact (value-based) dependences, and their analysis ran past its budget",
            )));
        }
        // Overlapped tiling decides shifts and tiles itself: it overrides the pragma's schedule.
        let deepest = max_depth(region);
        let mut sizes = opts
            .tile_sizes
            .clone()
            .unwrap_or_else(|| match opts.target {
                Target::C => vec![DEFAULT_TILE_SIZE; deepest],
                Target::Cuda => crate::backend::cuda::default_tile_sizes(deepest),
            });
        notes.extend(ignored_sizes(opts, deepest, region, ""));
        let tile = |sizes: &[i64], grouping: GroupingStrategy| {
            overlapped_tiling(
                region,
                names,
                model,
                deps,
                &OverlapSpec {
                    shape,
                    sizes: sizes.to_vec(),
                    overlap_dims: opts.overlap_dims.clone(),
                    overlap_tolerance: opts.overlap_tolerance,
                    grouping,
                    max_group: simpler.max_group,
                    isolate_points: !simpler.atomic_points,
                    point_chunk: opts.point_chunk,
                    stack_limit: opts.stack_limit,
                    intra_fusion: opts.intra_fusion,
                    multi_level: opts.multi_level,
                    model: opts.model_spec(),
                },
                region.pragma_span,
            )
        };
        let mut strategy = opts.grouping;
        let mut o = tile(&sizes, strategy)?;
        // CUDA's default sizes shrink until every tile's scratchpads fit a
        // thread block's shared memory (sizes the user gave are refused
        // with their bytes when they do not). The GPU cost model's sizes
        // fit by its estimate; where the exact plan does not, the default
        // sizes with greedy grouping take over.
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
                log::info!(
                    "overlapped tiles too large for shared memory: trying tile sizes {sizes:?}"
                );
            } else {
                break;
            }
            o = tile(&sizes, strategy)?;
        }
        // Sizes apply to the innermost loops; the banner shows those used.
        let sizes = &sizes[sizes.len().saturating_sub(deepest)..];
        summary.push(match &opts.overlap_dims {
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
        });
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
        if opts.report || opts.explain {
            let (line, _) = program.file.line_col(region.pragma_span.start);
            let mut text = String::new();
            if opts.explain {
                text.push_str(&explain(
                    &program.file.path,
                    line,
                    &opts.grouping,
                    &o.explained,
                ));
            }
            if opts.report {
                text.push_str(&report(&program.file.path, line, shape, &o.footprints));
            }
            report_text = Some(text);
        }
        for (k, why) in &o.untiled {
            let s = &region.stages[*k];
            notes.push(Diagnostic::warning(
                s.span,
                format!("{} keeps its original loops: {why}", s.label),
            ));
        }
        for (k, why) in &o.hybrid_refused {
            let s = &region.stages[*k];
            notes.push(Diagnostic::warning(
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
        grouping = overlap_grouping(region, &o.storage);
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
        gpu = o.gpu;
        schedule = o.schedule;
        storage = Some(o.storage);
        largest_group = o.largest_group;
    } else if let RegionKind::Chain(chain) = &region.kind {
        // Pragma schedule items, in order; --tile overrides the pragma's tiling.
        // A fused band that nothing tiles afterwards isolates its guard-free core.
        let tiled_later = |k: usize| {
            opts.tile
                || chain.items[k + 1..]
                    .iter()
                    .any(|i| matches!(i, ScheduleItem::Tile(_) | ScheduleItem::Wavefront(_)))
        };
        for (k, item) in chain.items.iter().enumerate() {
            schedule = match item {
                ScheduleItem::Fuse { shifts, span } => {
                    summary.push(Done::Text(match shifts {
                        Some(s) => format!("fused with shifts {s:?}"),
                        None => "fused (shifts computed)".to_string(),
                    }));
                    // All nests run in one fused loop nest: one macro node.
                    grouping.groups = vec![(0..region.stages.len()).collect()];
                    let isolate = !tiled_later(k);
                    fuse::fuse(
                        schedule,
                        region,
                        names,
                        deps,
                        shifts.as_deref(),
                        *span,
                        isolate,
                    )?
                }
                ScheduleItem::Tile(spec) if !opts.tile => {
                    wavefronts |= has_wavefront(&spec.outer) || has_wavefront(&spec.inner);
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
                    summary.push(Done::Text(tiled_summary(region, &spec.sizes, &bands).0));
                    tiled
                }
                ScheduleItem::Tile(_) => {
                    info!("pragma tile item overridden by --tile");
                    schedule
                }
                ScheduleItem::Parallel(_) => {
                    summary.push(Done::Text("outer loops parallel".to_string()));
                    tile::on_outermost_bands(schedule, &mut tile::request_parallel)?
                }
                ScheduleItem::Wavefront(_) if simpler.no_wavefront => schedule,
                ScheduleItem::Wavefront(span) => {
                    summary.push(Done::Text("wavefront".to_string()));
                    wavefronts = true;
                    tile::on_outermost_bands(schedule, &mut |n| {
                        tile::wavefront(n, all, *span, None)
                    })?
                }
            };
        }
        if simpler.no_wavefront {
            summary.push(Done::Text(
                "wavefronts run serially (code generation budget)".to_string(),
            ));
        }
    }
    if opts.tile && storage.is_none() {
        let sizes = opts
            .tile_sizes
            .clone()
            .unwrap_or_else(|| vec![DEFAULT_TILE_SIZE; max_depth(region)]);
        // Which loops run in parallel is left to the parallel pass.
        let spec = TileSpec {
            sizes,
            outer: LoopTreatment::Auto,
            inner: LoopTreatment::Auto,
            span: region.pragma_span,
        };
        let (tiled, bands) =
            tile::tile_innermost_bands(schedule, all, &spec, tile::Strictness::BestEffort)?;
        schedule = tiled;
        // The warnings for sizes not applied are the region's: see
        // `tiling::tiling_warning` (a region lowered in parts has its bands
        // from every part).
        summary.push(Done::Tiled {
            sizes: spec.sizes,
            bands,
        });
    }
    // The banner lists the temporaries never stored before "OpenMP".
    let never_stored_at = summary.len();
    if opts.openmp {
        schedule = parallel::mark_parallel_loops(schedule, all, region.pragma_span)?;
        summary.push(Done::Parallel(match opts.target {
            Target::C => "OpenMP".to_string(),
            Target::Cuda => "CUDA (parallel loops as kernels)".to_string(),
        }));
    }
    // CUDA keeps temporaries whole, in device buffers that are never copied
    // back (`backend::cuda::device`): contracted scopes have no device
    // placement yet.
    if !region.temporaries.is_empty() && opts.target == Target::C {
        // Temporaries that a tile group touches stay as overlapped tiling left them.
        let mut plan = storage.take().unwrap_or_default();
        let in_tiles: Vec<String> = region
            .stages
            .iter()
            .filter(|s| plan.group_of(&s.name).is_some())
            .flat_map(|s| s.accesses.iter().map(|a| a.data.clone()))
            .collect();
        let (contracted, done) =
            contract::contract(region, names, model, deps, schedule, &mut plan, &in_tiles)?;
        schedule = contracted;
        if !done.buffers.is_empty() {
            never_stored.extend(done.buffers.iter().map(|c| c.data.clone()));
            let scoped = plan
                .buffers
                .iter()
                .filter(|b| matches!(b.placement, Placement::Scope { .. }));
            add_unstored(&mut grouping, scoped);
            summary.push(Done::Contracted {
                buffers: done
                    .buffers
                    .iter()
                    .map(|c| format!("{} to {}", c.data, c.shape))
                    .collect(),
                shared: done.shared.clone(),
            });
        }
        if !plan.groups.is_empty() || !plan.buffers.is_empty() {
            storage = Some(plan);
        }
    }
    if !never_stored.is_empty() {
        summary.insert(never_stored_at, Done::NeverStored(never_stored));
    }
    if opts.openmp {
        schedule = simd::mark_simd_loops(schedule, all, &model.domain)?;
    }
    // CUDA: the point loops of tiles that a block's threads share.
    if opts.target == Target::Cuda {
        let copies = |name: &str| {
            storage
                .as_ref()
                .is_some_and(|plan| threads::independent_copy(plan, name))
        };
        schedule = threads::mark_thread_loops(schedule, all, &model.domain, &copies)?;
    }
    Ok(Transformed {
        schedule,
        summary,
        storage,
        largest_group,
        wavefronts,
        report: report_text,
        isolate_points: opts.overlap == Some(Shape::Rectangle)
            && opts.point_chunk == 0
            && !simpler.atomic_points,
        warnings: notes,
        grouping,
        gpu,
    })
}

/// The cost model's tile sizes per group, for the banner: runs of equal
/// sizes once, with their count (`[8, 256] x 3, [32, 256]`); loops one tile
/// spans are `all`.
pub(super) fn model_sizes(groups: &[Vec<i64>]) -> String {
    if groups.is_empty() {
        return "no group tiled (every nest keeps its loops)".to_string();
    }
    let text = |s: &[i64]| {
        let v: Vec<String> = s
            .iter()
            .map(|x| match *x >= crate::transform::overlap::WHOLE {
                true => "all".to_string(),
                false => x.to_string(),
            })
            .collect();
        format!("[{}]", v.join(", "))
    };
    let mut out: Vec<(String, usize)> = Vec::new();
    for g in groups {
        let t = text(g);
        match out.last_mut() {
            Some((last, n)) if *last == t => *n += 1,
            _ => out.push((t, 1)),
        }
    }
    out.into_iter()
        .map(|(t, n)| match n {
            1 => t,
            n => format!("{t} x {n}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The warning for `--tile-sizes` with more sizes than the `depth` loops of
/// the region's deepest nest (`what` says which loops count, if needed): the outer
/// sizes are ignored (sizes apply to the innermost loops).
pub(super) fn ignored_sizes(
    opts: &Options,
    depth: usize,
    region: &Region,
    what: &str,
) -> Option<Diagnostic> {
    let given = opts.tile_sizes.as_ref().filter(|s| s.len() > depth)?;
    Some(Diagnostic::warning(
        region.pragma_span,
        format!(
            "--tile-sizes {given:?}: the sizes {:?} are ignored: the deepest loop nest of the region has {depth} loop(s){what}, and sizes apply to the innermost loops",
            &given[..given.len() - depth]
        ),
    ))
}

/// The depth of the deepest nest of `region` as the options count it (see
/// [`Region::deepest`]; 1 for a region without loops).
pub(super) fn max_depth(region: &Region) -> usize {
    region.deepest().unwrap_or(1)
}
