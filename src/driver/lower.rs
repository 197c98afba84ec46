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

/// The program-wide things a lowering reads: shared by the threads that
/// lower a region's parts (unlike [`Shared`], which also collects).
#[derive(Clone, Copy)]
pub(super) struct Given<'a> {
    pub(super) program: &'a Program,
    /// The C names of the region's isl identifiers.
    pub(super) names: &'a Names,
    pub(super) naming: &'a Naming,
    pub(super) templates: &'a Templates,
}

impl<'a> Given<'a> {
    pub(super) fn of(shared: &Shared<'a>) -> Given<'a> {
        Given {
            program: shared.program,
            names: shared.names,
            naming: shared.naming,
            templates: shared.templates,
        }
    }
}

/// Where a lowering's code goes.
pub(super) struct Place<'a> {
    /// The indent of its loops.
    pub(super) indent: String,
    /// The copies of arrays the region updates in place (CUDA places them
    /// on the device).
    pub(super) shadows: &'a [Shadow],
    /// Which part of a region this is, for CUDA's kernel names (see
    /// [`CudaRegion::part`]).
    pub(super) part: &'static str,
}

impl Place<'_> {
    /// A whole region's loops, one level inside its braces.
    pub(super) fn inside(region: &Region) -> Place<'static> {
        Place {
            indent: format!("{}  ", region.indent),
            shadows: &[],
            part: "",
        }
    }
}

/// The model, dependence and transformation passes on one region, and its
/// loops printed at `place`.
///
/// isl's code generator gets a budget of operations
/// (`--max-isl-operations` times the region's statements). When it runs past it, the region is
/// transformed again with a simpler schedule, and a warning says so: the
/// fused point loops of rectangle tiles are generated atomic, then
/// overlapped groups are split in halves (down to two stages); a loop chain
/// that asks for wavefronts gets serial tile loops instead. When nothing
/// simpler is left, the region is refused with a diagnostic.
/// `built`: the region's model and dependences when they were built already.
pub(super) fn lower(
    opts: &Options,
    given: Given,
    region: &Region,
    place: &Place,
    built: Option<Built>,
    helpers: &mut BTreeSet<Helper>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Lowered> {
    let Given { program, names, .. } = given;
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
            &given.naming.helper,
            place.shadows,
        )?),
        Target::C => None,
    };
    let cuda = device
        .as_ref()
        .map(|device| cuda_region(opts, program, region, device, place.part));
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
        let t = transform(&Passes {
            opts,
            program,
            region,
            names,
            model: &model,
            deps: &deps,
            all: &all,
            simpler: &simpler,
        })?;
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
            reductions: &reduction_groups(region, opts.target),
        };
        let (tree, checked) = generate_and_check(&subject, &model, names, budget)?;
        if let Some(tree) = tree {
            let generation = Generation {
                opts,
                given,
                region,
                place,
                cuda: cuda.as_ref(),
                exact: deps.exact,
                budget,
            };
            return generation.finish(t, tree, checked, helpers, warnings);
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

/// The CUDA target's view of a region, before the GPU cost model's choices.
fn cuda_region<'a>(
    opts: &Options,
    program: &Program,
    region: &'a Region,
    device: &'a DeviceData,
    part: &'static str,
) -> CudaRegion<'a> {
    let (line, _) = program.file.line_col(region.pragma_span.start);
    CudaRegion {
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
    }
}

/// The loop tree of the final schedule (`None`: isl's code generator ran
/// past `budget`) and the validity check's outcome.
///
/// Code generation runs in a thread of its own, in an isl context of its
/// own, on the schedule's text (the bodies of overlapped tiles, which
/// flextile generates, taken out: what isl reads back is short), while the
/// validity check runs here on the schedule itself: neither waits for the
/// other.
fn generate_and_check(
    subject: &validity::Subject,
    model: &RegionModel,
    names: &Names,
    budget: u64,
) -> Result<(Option<Vec<Node>>, Result<validity::Outcome>)> {
    let started = std::time::Instant::now();
    let prepared = Prepared::new(subject.schedule, &model.context, names)?;
    let (tree, checked) = std::thread::scope(|scope| {
        let generator = scope.spawn(move || {
            let tree = prepared.loop_tree(budget);
            log::debug!("time: code generation {} ms", started.elapsed().as_millis());
            tree
        });
        let checking = std::time::Instant::now();
        let checked = validity::check(subject, budget);
        log::debug!("time: validity check {} ms", checking.elapsed().as_millis());
        let tree = generator
            .join()
            .unwrap_or_else(|_| Err(Error::internal("the code generator's thread panicked")));
        (tree, checked)
    });
    let tree = match tree? {
        Ok(tree) => tree,
        // isl cannot read its own text of this schedule back.
        Err(Unreadable) => loop_tree(subject.schedule, &model.context, names, budget)?,
    };
    Ok((tree, checked))
}

/// What printing a lowered region's loop tree needs.
struct Generation<'a> {
    opts: &'a Options,
    given: Given<'a>,
    region: &'a Region,
    place: &'a Place<'a>,
    cuda: Option<&'a CudaRegion<'a>>,
    /// Whether the dependences are exact.
    exact: bool,
    /// isl's operation budget.
    budget: u64,
}

impl Generation<'_> {
    /// The region's loops printed from `tree`, with what was done to them;
    /// an error where the validity check found the schedule wrong.
    fn finish(
        &self,
        t: Transformed,
        tree: Vec<Node>,
        checked: Result<validity::Outcome>,
        helpers: &mut BTreeSet<Helper>,
        warnings: &mut Vec<Diagnostic>,
    ) -> Result<Lowered> {
        let Generation {
            opts,
            given,
            region,
            budget,
            ..
        } = *self;
        let program = given.program;
        let counter = match given.naming.wide {
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
        let cuda_t = self.cuda.map(|c| CudaRegion {
            choices: t.gpu.clone(),
            ..c.clone()
        });
        let printing = LoopPrinting {
            stages: &region.stages,
            naming: given.naming,
            templates: given.templates,
            indent: &self.place.indent,
            storage: t.storage.as_ref(),
            cuda: cuda_t.as_ref(),
        };
        let generated = generate_loops(tree, &printing, helpers)?;
        let checked = checked.map_err(|e| match e {
            Error::Internal(m) => {
                let (line, _) = program.file.line_col(region.pragma_span.start);
                Error::Internal(format!("{}:{line}: {m}", program.file.path))
            }
            e => e,
        })?;
        let mut summary = t.summary;
        if !self.exact {
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
        Ok(Lowered {
            code: generated.code,
            kernels: generated.kernels,
            parts: generated.parts,
            summary,
            grouping: t.grouping,
            int_bound,
        })
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
