//! The compiler driver: the pass list, top to bottom.
//!
//! 1. front end: parse the C file with libclang, find the regions;
//! 2. model: isl domains, accesses and the original schedule tree of each
//!    region; declared accesses checked against analysed bodies;
//! 3. dependences (isl dataflow);
//! 4. transform passes, in order: fusion → tiling → parallel loops → simd
//!    loops (innermost loops that carry no dependence); the
//!    final schedule is checked against the dependences once more
//!    ([`crate::transform::validity`]) and refused if it fails;
//! 5. back end: isl AST → C, regions spliced into the file, file template;
//! 6. the output is written atomically ([`crate::backend::output`]).

use crate::backend::alias::{self, Guard, GuardParts};
use crate::backend::cuda::device::DeviceData;
use crate::backend::cuda::print::CudaRegion;
use crate::backend::int_range;
use crate::backend::mdg_dot;
use crate::backend::output::{counter_prefix, explain, helper_prefix, mdg_report, report, splice};
use crate::backend::tree::{Helper, Node};
use crate::backend::{
    generate_loops, loop_tree, FileParts, LoopPrinting, Naming, OriginalParts, Prepared,
    RegionParts, ShadowParts, Templates, Unreadable,
};
use crate::diag::{Diagnostic, Error, Location, Result, Severity, SourceFile, Span};
use crate::files::{self, Input};
use crate::frontend;
use crate::model::deps::{self, Dependences};
use crate::model::expr::Expr;
use crate::model::isl_ext::{new_context, schedule_to_yaml};
use crate::model::limits;
use crate::model::mdg::{self, Grouping, Mdg};
use crate::model::polyhedral::{self, Names, RegionModel};
use crate::model::program::{
    AccessKind, LoopTreatment, OrigNode, Program, Region, RegionKind, ScheduleItem, Temporary,
    TileSpec,
};
use crate::model::storage::{Placement, StoragePlan};
use crate::model::wrap::{self, Verdict};
use crate::transform::gpu_cost::{GpuCosted, GpuSpec};
use crate::transform::overlap::{
    overlapped_tiling, GroupingStrategy, Machine, ModelSpec, OverlapSpec, Shape, Weights,
};
use crate::transform::shadow::{rename_inplace, shadow_rows, Renamed, Shadow};
use crate::transform::time_blocks::mentions;
use crate::transform::{
    contract, fuse, inline, parallel, reductions, simd, threads, tile, validity,
};
use isl_rs::{Context, Schedule};
use log::info;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use banner::Done;
use budget::{dependence_budget, inexact_dependences, isl_budget, Simpler};
use grouping::{add_unstored, nest_groups, overlap_grouping};
use lower::{ignored_sizes, lower, max_depth, Built, Given, Modelled, Place, Transformed};
use passes::{transform, Passes};
use tiling::{has_wavefront, tiled_summary, tiling_warning, without_wavefronts};

/// The code flextile generates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// OpenMP C.
    C,
    /// CUDA (`backend::cuda`).
    Cuda,
}

/// The region's reductions whose statements a parallel loop may run in
/// any order (`transform::reductions`): none for CUDA, whose kernels have
/// no `reduction` clause.
fn reduction_groups(region: &Region, target: Target) -> Vec<BTreeSet<String>> {
    match target {
        Target::C => reductions::groups(region),
        Target::Cuda => Vec::new(),
    }
}

/// Largest tile size, shift or point chunk flextile accepts (2^40): with
/// `long long` counters, `N + 2 * size` cannot overflow for any `int` or
/// `long` parameter below 2^62.
pub const MAX_SIZE: i64 = 1 << 40;

/// Loop counters are `long long` (not `int`) when a tile size, shift, point
/// chunk or domain constant is above this (2^20): `int` arithmetic on such
/// values and an `int` parameter could overflow.
const WIDE_ABOVE: i64 = 1 << 20;

/// Default tile size for every loop when `--tile` is given without sizes.
pub use crate::transform::overlap::DEFAULT_TILE_SIZE;

/// Time steps per block when overlapped tiling of a time loop is given no
/// tile size for it ([`DEFAULT_TIME_STEPS_3D`] with three space loops or more).
pub const DEFAULT_TIME_STEPS: i64 = 4;

/// Time steps per block, by default, over three space loops or more: the
/// trapezoids (and isl's code generation of a block's fused point loops)
/// grow with the cube of the steps.
pub const DEFAULT_TIME_STEPS_3D: i64 = 2;

/// isl's default operation budget for generating a region's code, per
/// statement of the region (`--max-isl-operations`; isl counts allocations,
/// so this bounds memory too).
pub const DEFAULT_MAX_ISL_OPERATIONS: u64 = 1_000_000;

/// Points per chunk of the innermost fused point loop of rectangle tiles
/// (`--point-chunk`): long enough that the distributed loops of a chunk run
/// as vector loops with little overhead, short enough that what a stage
/// computed for a chunk (2 KiB of doubles) is still in the L1 cache when the
/// next stage reads it. Measured at one thread against 64, 128 and 1024:
/// 256 was as fast or faster on unsharp-mask, harris, camera-pipeline,
/// multiscale-interp, pyramid-blend and heat-2d; only heat-1d (1-D tiles of
/// 4096 points) was faster with 1024.
pub const DEFAULT_POINT_CHUNK: i64 = 256;

pub use crate::transform::storage::DEFAULT_STACK_LIMIT;

/// Everything the command line decides.
#[derive(Clone, Debug)]
pub struct Options {
    /// Input C file.
    pub input: PathBuf,
    /// Output file.
    pub output: PathBuf,
    /// Output language.
    pub target: Target,
    /// CUDA: threads per block along x and y (`--block-sizes`); `None`:
    /// the GPU cost model's per overlapped group, else
    /// [`crate::backend::cuda::DEFAULT_BLOCK`].
    pub block_sizes: Option<[u32; 2]>,
    /// CUDA: who computes an overlapped tile (`--gpu-tiling`); `None`
    /// (`auto`): the GPU cost model's choice per group.
    pub gpu_tiling: Option<crate::backend::cuda::GpuTiling>,
    /// CUDA, hybrid tiles: the fraction of a tile along the innermost loop
    /// in registers (`--reg-fraction`); `None`: the GPU cost model's.
    pub reg_fraction: Option<f64>,
    /// CUDA: the GPU the cost model and `--report` size for (`--gpu`).
    pub gpu: &'static crate::transform::gpu_occupancy::Gpu,
    /// Emit `#pragma omp parallel for` on parallel loops.
    pub openmp: bool,
    /// Tile the innermost bands classically (overrides the pragmas' `tile`).
    pub tile: bool,
    /// Tile sizes, outermost first.
    pub tile_sizes: Option<Vec<i64>>,
    /// Flags passed to clang (`-I`, `-D`, `-std=`).
    pub clang_args: Vec<String>,
    /// Data sets declared temporary on the command line (`--temporary`).
    pub temporaries: Vec<String>,
    /// Prove temporary the data sets the enclosing function owns and does
    /// not read after their region (off: `--no-infer-temporaries`).
    pub infer_temporaries: bool,
    /// Constraints on the parameters, in isl syntax (`N >= 1`).
    pub assume: Option<String>,
    /// Print each region's final schedule tree (YAML) on stderr.
    pub dump_schedule: bool,
    /// Overlapped tiling of every loop chain, with this trapezoid shape.
    pub overlap: Option<Shape>,
    /// `--overlap-dims`: the loops whose tiles overlap (the other is tiled classically).
    pub overlap_dims: Option<Vec<usize>>,
    /// `--overlap-tolerance`: the largest overlap per loop (fraction of the tile) a group may have.
    pub overlap_tolerance: Option<f64>,
    /// `--grouping`: how overlapped tiling groups the nests of a region.
    pub grouping: GroupingStrategy,
    /// Expression inlining before the model's grouping (`--grouping dp`;
    /// off with `--no-inline`).
    pub inline: bool,
    /// Intra-tile fusion of point loops for register reuse under overlapped
    /// tiling (off with `--no-intra-tile-fusion`).
    pub intra_fusion: bool,
    /// Inner tiles for L1 inside scalene tiles the cost model sizes for L2
    /// (off with `--no-multi-level`).
    pub multi_level: bool,
    /// The machine the cost model of `--grouping dp` sizes tiles for.
    pub machine: Machine,
    /// `--cost-weights`: the weights of the cost model.
    pub weights: Weights,
    /// `--estimate`: problem-size estimates by parameter name.
    pub estimates: std::collections::BTreeMap<String, i64>,
    /// `--explain`: print the grouping decisions on stdout.
    pub explain: bool,
    /// `-Rmissed` (or `--explain`): a note for every loop left serial, not
    /// only for the nests without a parallel loop.
    pub missed: bool,
    /// Rectangle tiles: chunk size of the innermost fused point loop (0:
    /// fused point by point).
    pub point_chunk: i64,
    /// Overlapped tiling: the most bytes of scratchpads a tile keeps on its
    /// thread's stack; more go to the heap (`--stack-limit`).
    pub stack_limit: u64,
    /// Print per-stage tile footprints (overlapped tiling) and each
    /// region's macro dataflow graph costs on stdout.
    pub report: bool,
    /// `--emit mdg=FILE`: write the regions' macro dataflow graphs (DOT) to
    /// FILE, and FILE.svg when Graphviz's `dot` is on the PATH.
    pub emit_mdg: Option<PathBuf>,
    /// isl's operation budget for the code generation of a region, per
    /// statement of the region (0: none).
    pub max_isl_operations: u64,
    /// isl's operation budget for the exact dependence analysis of a
    /// region, per statement (0: none); past it the dependences are
    /// memory-based.
    pub max_dependence_operations: u64,
    /// Turn every warning into an error (exit code 1, no output): a region
    /// overlapped tiling does not apply to is refused instead of compiled
    /// with its original loops.
    pub fatal_warnings: bool,
    /// The options as typed, for the output's banner.
    pub summary: String,
    /// `-MD`/`-MF`: where to write the Make dependency file.
    pub dep_file: Option<PathBuf>,
    /// `--templates DIR`: the user's templates, replacing the built-in
    /// ones of the same paths.
    pub templates: Option<PathBuf>,
}

impl Options {
    /// The cost model chooses the groups and sizes of overlapped tiles
    /// (`--grouping dp` without `--tile-sizes`).
    fn model_chooses_sizes(&self) -> bool {
        self.grouping == GroupingStrategy::Dp && self.tile_sizes.is_none()
    }

    /// What the cost model reads of the options.
    fn model_spec(&self) -> ModelSpec {
        ModelSpec {
            machine: self.machine.clone(),
            weights: self.weights,
            estimates: self.estimates.clone(),
            sizes_given: self.tile_sizes.is_some(),
            gpu: (self.target == Target::Cuda).then_some(GpuSpec {
                gpu: self.gpu,
                scheme: self.gpu_tiling,
                block: self.block_sizes,
                reg_fraction: self.reg_fraction,
            }),
        }
    }

    /// The same options without overlapped tiling.
    fn without_overlap(&self) -> Options {
        Options {
            overlap: None,
            overlap_dims: None,
            overlap_tolerance: None,
            ..self.clone()
        }
    }
}

/// A failed compilation: the error and the file its spans point into.
pub struct Failure {
    /// What went wrong.
    pub error: Error,
    /// The input, when it could be read.
    pub file: Option<SourceFile>,
}

impl Failure {
    /// The diagnostics in compiler form.
    pub fn render(&self) -> String {
        match &self.error {
            Error::User(diags) | Error::Inapplicable(diags) => {
                let file = self
                    .file
                    .clone()
                    .unwrap_or_else(|| SourceFile::new("<input>", ""));
                diags.iter().map(|d| file.render(d)).collect()
            }
            Error::Internal(msg) => format!("flextile: internal error: {msg}\n"),
        }
    }
}

/// Compiles `opts.input` (read once) and writes `opts.output`
/// ([`files::write_output`]: atomically, never over the input), then the
/// dependency file if asked. Returns the input as read.
pub fn run(opts: &Options) -> std::result::Result<Input, Failure> {
    let no_file = |error: Error| Failure { error, file: None };
    files::check_output(&opts.input, &opts.output).map_err(no_file)?;
    if let Some(mdg) = &opts.emit_mdg {
        files::check_output(&opts.input, mdg).map_err(no_file)?;
    }
    let input = Input::read(&opts.input).map_err(no_file)?;
    let file = SourceFile::new(opts.input.display().to_string(), input.text.clone());
    let fail = |error: Error| Failure {
        error,
        file: Some(file.clone()),
    };
    let (out, includes) = compile_input(opts, &input).map_err(fail)?;
    for w in &out.warnings {
        eprint!("{}", file.render(w));
    }
    files::write_output(&opts.output, &input.restore(&out.text)).map_err(fail)?;
    if let (Some(path), Some(dot)) = (&opts.emit_mdg, &out.mdg_dot) {
        files::write_output(path, dot.as_bytes()).map_err(fail)?;
        mdg_dot::render_svg(path);
    }
    if let Some(dep) = &opts.dep_file {
        let mut includes = includes;
        let own = crate::backend::templates::user_files(opts.templates.as_deref());
        includes.extend(own.iter().map(|f| f.display().to_string()));
        let rule = files::dependency_rule(&opts.output, &opts.input, &includes);
        files::write_output(dep, rule.as_bytes()).map_err(fail)?;
    }
    Ok(input)
}

/// The output of a compilation that succeeded.
pub struct Compiled {
    /// The generated file.
    pub text: String,
    /// What the user should know about it (for instance a schedule made
    /// simpler than asked).
    pub warnings: Vec<Diagnostic>,
    /// The macro dataflow graphs in DOT, when `--emit mdg=FILE` asks.
    pub mdg_dot: Option<String>,
}

/// Compiles `opts.input` to the output text (its non-UTF-8 bytes as
/// [`Input::text`] holds them).
pub fn compile(opts: &Options) -> Result<Compiled> {
    Ok(compile_input(opts, &Input::read(&opts.input)?)?.0)
}

/// Compiles an input already read; also returns the files it includes.
fn compile_input(opts: &Options, input: &Input) -> Result<(Compiled, Vec<String>)> {
    let started = std::time::Instant::now();
    let parsed = frontend::parse_input(
        input,
        &opts.clang_args,
        &opts.temporaries,
        opts.infer_temporaries,
        opts.target == Target::Cuda,
    )?;
    log::debug!("time: front end {} ms", started.elapsed().as_millis());
    info!("front end: {} region(s)", parsed.program.regions.len());
    Ok((compile_program(opts, &parsed.program)?, parsed.includes))
}

/// Runs every pass after the front end on `program` and returns the output text.
pub fn compile_program(opts: &Options, program: &Program) -> Result<Compiled> {
    let names = polyhedral::collect_names(&program.regions);
    let templates = Templates::load(opts.templates.as_deref())?;
    let naming = Naming {
        counter: counter_prefix(&program.file.text, &program.reserved),
        helper: helper_prefix(&program.file.text, &program.reserved),
        wide: counters::wide_counters(opts, program, &names)?,
    };
    let graphs = RefCell::new(BTreeMap::new());
    let kernels = RefCell::new(BTreeMap::new());
    let shared = Shared {
        program,
        names: &names,
        templates: &templates,
        naming: &naming,
        guard: None,
        graphs: &graphs,
        kernels: &kernels,
    };
    let mut helpers = BTreeSet::new();
    let mut generated = Vec::new();
    let mut warnings = program.warnings.clone();
    for region in &program.regions {
        let code = compile_region(opts, &shared, region, &mut helpers, &mut warnings)?;
        // The region's `#define` and `#undef` lines, kept around its code.
        let (mut before, mut after) = (String::new(), String::new());
        for &(d, is_after) in &program.directives {
            if region.span.start <= d.start && d.end <= region.span.end {
                let line = program.file.text[d.start..d.end].trim_end_matches('\r');
                if is_after {
                    after.push('\n');
                    after.push_str(line);
                } else {
                    before.push_str(line);
                    before.push('\n');
                }
            }
        }
        if !after.is_empty() {
            after.push('\n');
        }
        let finals = final_values_code(region);
        generated.push((region.span, before + &code + &finals + &after));
    }
    // Notes (the loops left serial, and why) are no warnings.
    if opts.fatal_warnings && warnings.iter().any(|w| w.severity != Severity::Note) {
        return Err(Error::User(
            warnings
                .into_iter()
                .filter(|w| w.severity != Severity::Note)
                .map(|w| w.restated(Severity::Error, " [--fatal-warnings]"))
                .collect(),
        ));
    }
    if opts.target == Target::Cuda {
        // The user's file builds as C++ with the front end's fixes (those
        // inside a region are moot: its text is replaced).
        if !program.cxx.problems.is_empty() {
            return Err(Error::User(program.cxx.problems.clone()));
        }
        let inside = |e: Span| {
            program.regions.iter().any(|r| {
                let (a, b) = (r.span.start, r.span.end);
                match e.start == e.end {
                    true => a < e.start && e.start < b,
                    false => e.start < b && a < e.end,
                }
            })
        };
        if let Some((at, name)) = program.cxx.cuda_uses.iter().find(|(s, _)| inside(*s)) {
            return Err(Error::at(
                *at,
                format!(
                    "the region uses '{name}', a name flextile's CUDA code uses for CUDA's own \
                     '{name}' (its kernels and launches would mix the two): rename it"
                ),
            ));
        }
        if let Some((at, msg)) = program.cxx.device_only.iter().find(|(s, _)| inside(*s)) {
            return Err(Error::at(*at, msg.clone()));
        }
        // Generated code sees CUDA's names, not the file's renamed ones.
        for (_, code) in generated.iter_mut() {
            *code = program.cxx.guard(code);
        }
        let fixes = program.cxx.render(&naming.helper);
        generated.extend(fixes.into_iter().filter(|(span, _)| !inside(*span)));
        let kernels = kernel_insertions(program, &kernels.into_inner())?;
        generated.extend(kernels.into_iter().map(|(s, k)| (s, program.cxx.guard(&k))));
        generated.sort_by_key(|(span, _)| (span.start, span.end));
    }
    let body = splice(&program.file.text, &generated);
    let text = templates.file(&FileParts {
        input: &program.file.path,
        options: &opts.summary,
        regions: program.regions.len(),
        helpers: &helpers,
        helper_prefix: &naming.helper,
        body: &body,
        cuda: opts.target == Target::Cuda,
        defines: &command_line_macros(&opts.clang_args),
    })?;
    let mdg_dot = opts.emit_mdg.as_ref().map(|_| {
        let graphs: Vec<(String, Mdg)> = graphs.into_inner().into_values().collect();
        mdg_dot::dot(&program.file.path, &graphs)
    });
    Ok(Compiled {
        text,
        warnings,
        mdg_dot,
    })
}

/// The macros `-DNAME=VALUE` (`-DNAME`: 1) of `clang_args`, for a CUDA
/// output to define itself (a value with a line break is left out).
fn command_line_macros(clang_args: &[String]) -> Vec<(String, String)> {
    clang_args
        .iter()
        .filter_map(|a| a.strip_prefix("-D"))
        .filter(|d| !d.contains('\n') && !d.is_empty())
        .map(|d| match d.split_once('=') {
            Some((n, v)) => (n.to_string(), v.to_string()),
            None => (d.to_string(), "1".to_string()),
        })
        .collect()
}

/// The kernels of each region (by the offset of its pragma), inserted at
/// the start of the definition of the function that holds the region.
fn kernel_insertions(
    program: &Program,
    kernels: &BTreeMap<usize, String>,
) -> Result<Vec<(Span, String)>> {
    let mut at: BTreeMap<usize, String> = BTreeMap::new();
    for region in &program.regions {
        let Some(k) = kernels
            .get(&region.pragma_span.start)
            .filter(|k| !k.is_empty())
        else {
            continue;
        };
        // The region's `#define`s (and `#undef`s) hold for its kernels too.
        let (mut before, mut after) = (String::new(), String::new());
        for &(d, is_after) in &program.directives {
            if region.span.start <= d.start && d.end <= region.span.end {
                let line = program.file.text[d.start..d.end].trim_end_matches('\r');
                match is_after {
                    true => after.push_str(&format!("{line}\n")),
                    false => before.push_str(&format!("{line}\n")),
                }
            }
        }
        let k = &format!("{before}{k}{after}");
        let Some(start) = region.function_start else {
            return Err(Error::at(
                region.pragma_span,
                "the CUDA target defines a region's kernels before the function that holds it, and this region is in no function definition of the file",
            ));
        };
        at.entry(start).or_default().push_str(k);
    }
    Ok(at
        .into_iter()
        .map(|(start, k)| (Span::new(start, start), k))
        .collect())
}

/// The code after a region's generated code that gives the loop variables
/// read after the region their final values ("" when there are none).
fn final_values_code(region: &Region) -> String {
    let Some(f) = &region.final_values else {
        return String::new();
    };
    let names: Vec<String> = f.variables.iter().map(|v| format!("'{v}'")).collect();
    let mut out = format!(
        "\n{}/* flextile: the final values of {}, read after the region: its loops without their statements */",
        region.indent,
        names.join(", ")
    );
    for l in &f.lines {
        out.push('\n');
        out.push_str(&region.indent);
        out.push_str(l);
    }
    out
}

/// What every region of a program is compiled with.
#[derive(Clone, Copy)]
struct Shared<'a> {
    /// The program.
    program: &'a Program,
    /// The C names of the program's isl identifiers.
    names: &'a Names,
    /// The output templates.
    templates: &'a Templates,
    /// Prefixes of generated names.
    naming: &'a Naming,
    /// The region's run-time alias guard, once decided.
    guard: Option<&'a GuardParts>,
    /// The macro dataflow graph of each region compiled so far (by the
    /// offset of its pragma; a later attempt at a region replaces an
    /// earlier one), with the region's name for the DOT file.
    graphs: &'a RefCell<BTreeMap<usize, (String, Mdg)>>,
    /// The CUDA kernels of each region compiled so far (by the offset of
    /// its pragma; a later attempt replaces an earlier one).
    kernels: &'a RefCell<BTreeMap<usize, String>>,
}

/// The region's original code under a banner that says `why` it is left
/// as written (its macro dataflow graph recorded as its nests).
fn left_as_written(opts: &Options, shared: &Shared, region: &Region, why: &str) -> Result<String> {
    let program = shared.program;
    let grouping = Grouping {
        groups: nest_groups(region, &BTreeSet::new()),
        ..Grouping::default()
    };
    record_mdg(opts, shared, region, Some(&grouping), None)?;
    let (line, _) = program.file.line_col(region.pragma_span.start);
    shared.templates.original(&OriginalParts {
        kind: region_kind(region),
        input: &program.file.path,
        line,
        indent: &region.indent,
        why,
        original: &original_code(program, region),
    })
}

/// The region's code as written, without flextile's pragma lines.
fn original_code(program: &Program, region: &Region) -> String {
    let directives: Vec<Span> = program.directives.iter().map(|(d, _)| *d).collect();
    alias::original_code(
        &program.file.text,
        region,
        &directives,
        &program.cxx.region_edits,
    )
}

/// Compiles one region as the options ask. When overlapped tiling does not
/// apply to it ([`Error::Inapplicable`]: a recurrence, no nest it can tile,
/// a time loop it cannot block), the region is compiled again as without
/// `--rectangle`/`--scalene` (original loops, or the loop chain's own
/// schedule; OpenMP still marks the parallel loops), and a warning says
/// why; `--fatal-warnings` refuses it.
fn compile_region(
    opts: &Options,
    shared: &Shared,
    region: &Region,
    helpers: &mut BTreeSet<Helper>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<String> {
    let fixed = macro_params_used(region);
    if opts.overlap.is_none() || fixed.is_empty() {
        return compile_region_once(opts, shared, region, helpers, warnings);
    }
    // Overlapped tiling may need the macros' values (a scratchpad's size
    // along a loop without a tile size): when the symbolic form fails, the
    // region is compiled again with them in the context, and its banner says
    // the output is right only for them. What the failed attempt added is
    // dropped with it.
    let mut tried_helpers = helpers.clone();
    let mut tried_warnings = Vec::new();
    let tried = compile_region_once(
        opts,
        shared,
        region,
        &mut tried_helpers,
        &mut tried_warnings,
    );
    let Err(Error::User(why)) = tried else {
        *helpers = tried_helpers;
        warnings.append(&mut tried_warnings);
        return tried;
    };
    let values: Vec<String> = fixed.iter().map(|(n, v)| format!("{n} = {v}")).collect();
    info!(
        "the region does not compile with its macros as parameters: compiled again for {}",
        values.join(", ")
    );
    let assume = match &opts.assume {
        Some(a) => format!("({a}) and {}", values.join(" and ")),
        None => values.join(" and "),
    };
    let with_values = Options {
        assume: Some(assume),
        ..opts.clone()
    };
    let mut frozen = region.clone();
    for v in values {
        if !frozen.macro_values.contains(&v) {
            frozen.macro_values.push(v);
        }
    }
    let mut again_helpers = helpers.clone();
    let mut again_warnings = Vec::new();
    match compile_region_once(
        &with_values,
        shared,
        &frozen,
        &mut again_helpers,
        &mut again_warnings,
    ) {
        Ok(code) => {
            *helpers = again_helpers;
            warnings.append(&mut again_warnings);
            Ok(code)
        }
        Err(_) => Err(Error::User(why)),
    }
}

/// The macros read as parameters (with their values) that the region's
/// domains and subscripts use.
fn macro_params_used(region: &Region) -> Vec<(String, i64)> {
    let mut vars = BTreeSet::new();
    for s in &region.stages {
        for c in &s.domain {
            c.lhs.collect_vars(&mut vars);
            c.rhs.collect_vars(&mut vars);
        }
        for a in &s.accesses {
            a.index.iter().for_each(|e| e.collect_vars(&mut vars));
        }
    }
    vars.into_iter()
        .filter_map(|v| region.macro_params.get(&v).map(|k| (v, *k)))
        .collect()
}

/// [`compile_region`] with the options and the region as given.
fn compile_region_once(
    opts: &Options,
    shared: &Shared,
    region: &Region,
    helpers: &mut BTreeSet<Helper>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<String> {
    let program = shared.program;
    let assume = opts.assume.as_deref();
    if let Some((span, why)) = limits::beyond(region) {
        warnings.push(Diagnostic::warning(span, why.clone()));
        return left_as_written(opts, shared, region, &why);
    }
    let wraps = match wrap_guard(opts, shared, region, helpers)? {
        Ok(wraps) => wraps,
        Err((w, why)) => {
            warnings.push(w);
            return left_as_written(opts, shared, region, &why);
        }
    };
    let reorders = opts.openmp
        || opts.tile
        || opts.overlap.is_some()
        || matches!(&region.kind, RegionKind::Chain(c) if !c.items.is_empty());
    let original = || original_code(program, region);
    // The whole region's model: built here where the alias check needs it,
    // otherwise by the lowering that needs it (a region lowered in parts
    // never builds it whole).
    let modelled = match alias::needs_model(region, reorders) {
        true => Some(Modelled::new(opts, region, shared.names)?),
        false => None,
    };
    let parts = match guard_parts(shared, region, modelled.as_ref(), reorders, helpers)? {
        Ok(parts) => parts,
        Err((w, why)) => {
            warnings.push(w);
            return left_as_written(opts, shared, region, &why);
        }
    };
    let parts = match wraps {
        Some(WrapTest { term, what }) => Some(alias::with_wraps(parts, term, what, original())),
        None => parts,
    };
    if reorders {
        for a in alias::pointer_rows(region) {
            warnings.push(Diagnostic::warning(
                a.span,
                format!(
                    "'{}' is indexed through rows that are pointers (as in 'double **'): flextile assumes that its rows do not overlap in memory, and does not check it",
                    a.data
                ),
            ));
        }
    }
    let shared = &Shared {
        guard: parts.as_ref(),
        ..*shared
    };
    let fresh;
    let ctx = match &modelled {
        Some(m) => &m.ctx,
        None => {
            fresh = new_context();
            &fresh
        }
    };
    warnings.extend(empty_stage_warnings(ctx, region, shared.names, assume)?);
    // The model serves the first lowering (a second, without overlapped
    // tiling, builds its own).
    let mut modelled = modelled;
    let mut as_asked = |o: &Options, h: &mut BTreeSet<Helper>, w: &mut Vec<Diagnostic>, banner| {
        compile_region_as_asked(o, shared, region, h, w, banner, modelled.take())
    };
    let Some(shape) = opts.overlap else {
        return as_asked(opts, helpers, warnings, &[]);
    };
    // What a failed attempt added is dropped with it.
    let mut tried_helpers = helpers.clone();
    let mut tried_warnings = Vec::new();
    let tried = match down_loop_stage(&region.tree) {
        Some(k) => Err(Error::inapplicable(Diagnostic::error(
            region.stages[k].span,
            format!(
                "overlapped tiling does not support loops that count down, as the one around {}",
                region.stages[k].label
            ),
        ))),
        None => as_asked(opts, &mut tried_helpers, &mut tried_warnings, &[]),
    };
    let Err(Error::Inapplicable(why)) = tried else {
        *helpers = tried_helpers;
        warnings.append(&mut tried_warnings);
        return tried;
    };
    warnings.extend(without_overlap_warnings(opts, program, region, shape, why));
    let banner = ["overlapped tiling does not apply (see the warning)".to_string()];
    as_asked(&opts.without_overlap(), helpers, warnings, &banner)
}

/// A region's compilation goes on with `T`, or leaves the region as
/// written: the warning, and why (for its output).
type OrLeave<T> = std::result::Result<T, (Diagnostic, String)>;

/// The run-time test that a region's unsigned arithmetic does not wrap.
struct WrapTest {
    /// Its C condition.
    term: String,
    /// The expressions it keeps from wrapping.
    what: Vec<String>,
}

/// The region's test that its unsigned arithmetic does not wrap
/// ([`wrap::verdict`]): `None` where it never can, or the warning that
/// leaves the region as written (and why): where it may wrap, or where
/// the test cannot be printed in C.
fn wrap_guard(
    opts: &Options,
    shared: &Shared,
    region: &Region,
    helpers: &mut BTreeSet<Helper>,
) -> Result<OrLeave<Option<WrapTest>>> {
    let wrap_ctx = new_context();
    let verdict = wrap::verdict(&wrap_ctx, region, shared.names, opts.assume.as_deref())?;
    Ok(Ok(match verdict {
        Verdict::Exact => None,
        Verdict::Never(w) => {
            let why = w.message.clone();
            return Ok(Err((w, why)));
        }
        Verdict::Guarded {
            safe,
            known,
            unsigned64,
            what,
        } => {
            let term = alias::wrap_term(
                &known,
                safe,
                &unsigned64,
                &counters::param_ranges(shared.program, region),
                shared.names,
                shared.naming,
                helpers,
            );
            match term {
                Ok(term) => Some(WrapTest { term, what }),
                // A bound past `long long` (isl's constants are unbounded).
                Err(e) => {
                    let why = format!(
                        "the run-time check that {} do not wrap cannot be printed in C ({})",
                        what.join(", "),
                        e.first_message()
                    );
                    let w = Diagnostic::warning(region.pragma_span, why.clone());
                    return Ok(Err((w, why)));
                }
            }
        }
    }))
}

/// The warnings for the region's stages that never run: their iteration
/// domains are empty, or empty under `--assume`.
fn empty_stage_warnings(
    ctx: &Context,
    region: &Region,
    names: &Names,
    assume: Option<&str>,
) -> Result<Vec<Diagnostic>> {
    let (empty, context_empty) = polyhedral::empty_stages(ctx, region, names, assume)?;
    let mut warnings = Vec::new();
    if context_empty {
        warnings.push(Diagnostic::warning(
            region.pragma_span,
            format!(
                "no parameter value satisfies --assume {}: the region's loops never run under this assumption, and their code is deleted",
                assume.unwrap_or_default()
            ),
        ));
    }
    for (k, why) in empty {
        let s = &region.stages[k];
        let message = match why {
            polyhedral::EmptyStage::Bounds => format!(
                "the iteration domain of {} is empty (no value of its iterators satisfies its bounds): it never runs",
                s.label
            ),
            _ if context_empty => continue,
            polyhedral::EmptyStage::Assumed => format!(
                "under --assume {} the iteration domain of {} is empty: its loops never run under this assumption, and their code is deleted",
                assume.unwrap_or_default(),
                s.label
            ),
        };
        warnings.push(Diagnostic::warning(s.span, message));
    }
    Ok(warnings)
}

/// The warnings that say why overlapped tiling (`shape`) does not apply to
/// the region, compiled without it ([`Error::Inapplicable`]'s diagnostics,
/// restated); `--report` says so too.
fn without_overlap_warnings(
    opts: &Options,
    program: &Program,
    region: &Region,
    shape: Shape,
    why: Vec<Diagnostic>,
) -> Vec<Diagnostic> {
    info!("overlapped tiling does not apply to the region: compiled without it");
    let flag = match shape {
        Shape::Rectangle => "--rectangle",
        Shape::Scalene => "--scalene",
    };
    // Under --fatal-warnings nothing is compiled: the warning says what would be.
    let suffix = if opts.fatal_warnings {
        format!("; overlapped tiling does not apply to the region ({flag})")
    } else {
        format!("; the region is compiled without overlapped tiling, as without {flag}")
    };
    let warnings = why.into_iter().map(|mut d| {
        if d.location == Location::None {
            d.location = Location::Span(region.pragma_span);
        }
        d.restated(Severity::Warning, &suffix)
    });
    if opts.report {
        let (line, _) = program.file.line_col(region.pragma_span.start);
        println!(
            "{}:{line}: overlapped tiling does not apply (see the warning)",
            program.file.path
        );
    }
    warnings.collect()
}

/// What the banner says when the model uses macro values (`i * N`): the
/// output is right only for them.
fn macro_values_note(region: &Region) -> Option<String> {
    (!region.macro_values.is_empty()).then(|| {
        format!(
            "built for the macro values {} (the output is right only for these values)",
            region.macro_values.join(", ")
        )
    })
}

/// The first stage inside a loop that counts down, if any.
fn down_loop_stage(nodes: &[OrigNode]) -> Option<usize> {
    nodes.iter().find_map(|n| match n {
        OrigNode::Stage(_) => None,
        OrigNode::Loop {
            down: true, body, ..
        } => {
            let mut ks = Vec::new();
            polyhedral::stages_under(body, &mut ks);
            ks.first().copied()
        }
        OrigNode::Loop { body, .. } => down_loop_stage(body),
    })
}

/// Runs the model, dependence and transformation passes on one region and
/// prints it (a time-iterated scop under overlapped tiling: see
/// [`time_blocked::compile_time_blocked`]). `banner` goes first in the region's summary.
fn compile_region_as_asked(
    opts: &Options,
    shared: &Shared,
    region: &Region,
    helpers: &mut BTreeSet<Helper>,
    warnings: &mut Vec<Diagnostic>,
    banner: &[String],
    modelled: Option<Modelled>,
) -> Result<String> {
    let Shared {
        program,
        names,
        templates,
        naming,
        ..
    } = *shared;
    let time_loop = is_time_loop(region);
    if opts.overlap.is_some() && matches!(region.kind, RegionKind::Scop) && time_loop {
        return time_blocked::compile_time_blocked(opts, shared, region, helpers, warnings);
    }
    // Overlapping tiles must not overwrite what their neighbours still read:
    // arrays updated in place get shadow copies where that is exact.
    let mut shadows = Vec::new();
    let mut built = None;
    let mut inlined = Vec::new();
    let inlined_region;
    let mut region = region;
    let split;
    let renamed = match opts.overlap {
        Some(_) => {
            // Expression inlining (Jangda & Bondhugula, TOPLAS'20, §5.1) before the model groups
            // the nests: the region without the inlined nests is modelled anew.
            let mut modelled = modelled;
            if opts.inline && opts.grouping == GroupingStrategy::Dp {
                let m = match modelled.take() {
                    Some(m) => m,
                    None => Modelled::new(opts, region, names)?,
                };
                match inline::inline(region, &m.model)? {
                    Some((r, done)) => {
                        inlined_region = r;
                        region = &inlined_region;
                        inlined = done;
                    }
                    None => modelled = Some(m),
                }
            }
            // A long region is lowered in parts, in parallel, where that is
            // the same as lowering it whole.
            split = parts::lower_in_parts(opts, shared, region, helpers, warnings);
            if split.is_some() {
                None
            } else {
                let b = Built::new(opts, region, names, modelled)?;
                if opts.explain && !inlined.is_empty() {
                    let (line, _) = program.file.line_col(region.pragma_span.start);
                    print!("{}", inline::explain(&program.file.path, line, &inlined));
                }
                // Without exact dependences overlapped tiling does not apply
                // (the lowering says why): nothing to rename for it.
                let renamed = match b.deps.exact {
                    true => rename_inplace(region, &b.model, &b.deps, &naming.helper)?,
                    false => None,
                };
                match &renamed {
                    Some(r) => shadows = shadow_parts(&b.model, names, &r.shadows, region)?,
                    // The region is lowered as it is: its model serves again.
                    None => built = Some(b),
                }
                renamed
            }
        }
        None => {
            // Classic tiling (`--tile`) tiles each nest on its own: a long
            // region is lowered in parts too (`parts::plan` says when).
            split = parts::lower_in_parts(opts, shared, region, helpers, warnings);
            if split.is_none() {
                built = modelled
                    .map(|m| Built::new(opts, region, names, Some(m)))
                    .transpose()?;
            }
            None
        }
    };
    let lowered = match split {
        Some(lowered) => lowered,
        None => lower(
            opts,
            Given::of(shared),
            renamed.as_ref().map_or(region, |r| &r.region),
            &Place {
                shadows: renamed.as_ref().map_or(&[][..], |r| &r.shadows),
                ..Place::inside(region)
            },
            built,
            helpers,
            warnings,
        )?,
    };
    warnings.extend(tiling_warning(
        opts,
        renamed.as_ref().map_or(region, |r| &r.region),
        &lowered.summary,
    ));
    record_mdg(opts, shared, region, Some(&lowered.grouping), None)?;
    shared
        .kernels
        .borrow_mut()
        .insert(region.pragma_span.start, lowered.kernels);
    let mut schedule = summary(
        banner,
        region,
        &inlined,
        renamed.as_ref(),
        &lowered.summary,
        &shadows,
    );
    let guard = with_int_bound(shared, region, &lowered.int_bound);
    schedule.extend(guard_note(guard.as_ref()));
    let (line, _) = program.file.line_col(region.pragma_span.start);
    // CUDA's shadow copies live on the device only.
    if opts.target == Target::Cuda {
        shadows.clear();
    }
    templates.region(&RegionParts {
        kind: region_kind(region),
        input: &program.file.path,
        line,
        stages: stage_lines(region),
        schedule: schedule.join(", "),
        indent: &region.indent,
        code: lowered.code,
        shadows,
        guard: guard.as_ref(),
    })
}

/// A scop whose loop nests all sit in one outer loop is a time-iterated
/// stencil, unless that loop's iterator subscripts an array the region
/// writes (gemm's `i`: a loop over rows, not over time steps), or the
/// loop holds one nest and its iterator subscripts any array (one nest
/// over an image, with several statements); the top-level nests of any
/// other scop are tiled like a loop chain's.
fn is_time_loop(region: &Region) -> bool {
    match region.tree.as_slice() {
        [OrigNode::Loop { iter, body, .. }] => {
            let subscripts = |writes_only: bool| {
                region.stages.iter().any(|s| {
                    s.accesses
                        .iter()
                        .filter(|a| !writes_only || a.kind == AccessKind::Write)
                        .flat_map(|a| &a.index)
                        .any(|e| mentions(e, iter))
                })
            };
            body.iter().all(|n| matches!(n, OrigNode::Loop { .. }))
                && !subscripts(true)
                && (body.len() > 1 || !subscripts(false))
        }
        _ => false,
    }
}

/// The region's summary for its banner: `banner`, the macro values it is
/// built for, the inlined nests, what was `done` to the (renamed) region, and
/// its arrays written to copies.
fn summary(
    banner: &[String],
    region: &Region,
    inlined: &[inline::Inlined],
    renamed: Option<&Renamed>,
    done: &[Done],
    shadows: &[ShadowParts],
) -> Vec<String> {
    let mut schedule = banner.to_vec();
    schedule.extend(macro_values_note(region));
    if !inlined.is_empty() {
        schedule.push(inline::summary(inlined));
    }
    let lowered_region = renamed.map_or(region, |r| &r.region);
    schedule.extend(done.iter().map(|d| d.render(lowered_region)));
    if !shadows.is_empty() {
        let arrays: Vec<String> = shadows.iter().map(|s| format!("'{}'", s.array)).collect();
        schedule.push(format!(
            "{} written to a copy (updated in place)",
            arrays.join(", ")
        ));
    }
    schedule
}

/// Builds the macro dataflow graph of `region` (as the user wrote it: before
/// shadow copies) when `--emit mdg` or `--report` asks: "after" is
/// `grouping`, or unknown (`note` says why). Prints its costs for
/// `--report` and keeps it for the DOT file.
fn record_mdg(
    opts: &Options,
    shared: &Shared,
    region: &Region,
    grouping: Option<&Grouping>,
    note: Option<String>,
) -> Result<()> {
    if opts.emit_mdg.is_none() && !opts.report {
        return Ok(());
    }
    let ctx = new_context();
    let model = polyhedral::build(&ctx, region, shared.names, opts.assume.as_deref())?;
    let graph = mdg::build(region, &model, shared.names, grouping, note)?;
    let path = &shared.program.file.path;
    let (line, _) = shared.program.file.line_col(region.pragma_span.start);
    if opts.report {
        print!("{}", mdg_report(path, line, &graph));
    }
    let name = format!("{} at {path}:{line}", region_kind(region));
    shared
        .graphs
        .borrow_mut()
        .insert(region.pragma_span.start, (name, graph));
    Ok(())
}

/// "loop chain" or "scop", for banners.
fn region_kind(region: &Region) -> &'static str {
    match region.kind {
        RegionKind::Chain(_) => "loop chain",
        RegionKind::Scop => "scop",
    }
}

/// The shadows' template parts: each sized by the largest first subscript
/// its writer writes (`model` is the region's before renaming).
fn shadow_parts(
    model: &RegionModel,
    names: &Names,
    shadows: &[Shadow],
    region: &Region,
) -> Result<Vec<ShadowParts>> {
    let span = region.pragma_span;
    let mut parts = Vec::new();
    for sh in shadows {
        let rows = shadow_rows(model, names, &sh.array)?.ok_or_else(|| {
            Error::inapplicable_at(
                span,
                format!(
                    "overlapped tiling: cannot bound the first subscript of the writes to '{}', to size its copy",
                    sh.array
                ),
            )
        })?;
        // Macros with constant values count with their values here.
        let valued = region
            .macro_params
            .iter()
            .fold(rows.clone(), |e, (m, v)| e.substitute(m, &Expr::Int(*v)));
        if let Some(r) = valued.constant() {
            let elem = region.data_types.get(&sh.array);
            check_shadow_bytes(r, elem, &sh.array, region.pragma_span)?;
        }
        parts.push(ShadowParts {
            name: sh.name.clone(),
            array: sh.array.clone(),
            rows: format!("{rows} + 1"),
            nested: sh.rank > 1,
        });
    }
    Ok(parts)
}

/// The most bytes a shadow may take: larger copies cannot be allocated.
const MAX_SHADOW_BYTES: u64 = 1 << 40;

/// Refuses the copy of `array` when its `last_row + 1` rows of at least one
/// element (of type `elem`, where known) take more than [`MAX_SHADOW_BYTES`].
fn check_shadow_bytes(last_row: i64, elem: Option<&String>, array: &str, span: Span) -> Result<()> {
    let elem_bytes: u64 = match elem.map(|t| t.split_whitespace().collect::<Vec<_>>().join(" ")) {
        Some(t) if t.contains("long double") => 16,
        Some(t) if t.contains("double") || t.contains("long") => 8,
        Some(t) if t.contains("float") || t.contains("int") => 4,
        Some(t) if t.contains("short") => 2,
        _ => 1,
    };
    let rows = u64::try_from(last_row).ok().and_then(|r| r.checked_add(1));
    match rows.and_then(|r| r.checked_mul(elem_bytes)) {
        Some(b) if b <= MAX_SHADOW_BYTES => Ok(()),
        _ => Err(Error::at(
            span,
            format!(
                "overlapped tiling: the copy of '{array}' for its in-place update would take {} rows of at least {elem_bytes} byte(s), more than 2^40 bytes: it cannot be allocated",
                rows.map_or_else(|| "too many".to_string(), |r| r.to_string())
            ),
        )),
    }
}

/// `S0: label` per stage, for a region's banner.
fn stage_lines(region: &Region) -> Vec<String> {
    region
        .stages
        .iter()
        .map(|s| format!("{}: {}", s.name, s.label))
        .collect()
}

mod banner;
mod budget;
mod counters;
mod grouping;
mod guard;
use guard::{guard_note, guard_parts, with_int_bound};
mod lower;
mod parts;
mod passes;
#[cfg(test)]
mod pipeline_tests;
mod tiling;
mod time_blocked;
