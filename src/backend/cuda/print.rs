//! Printing a region for the CUDA target: its kernels (file-scope
//! definitions, placed before the function that holds the region) and its
//! host code (device buffers, copies, launches through `FT_LAUNCH`, an error
//! check after every CUDA call naming the region's `file:line`, and the
//! buffers freed), the host code and the kernels' skeletons through the
//! templates `cuda/setup`, `launch`, `teardown`, `kernel`, `shared` and
//! `barrier` (`backend::templates`). Statement bodies and the loops inside a kernel are
//! printed by the C printer, with the user's data spelled as device
//! buffers ([`DeviceData`]).

use super::device::{DeviceData, Extent};
use super::map::{Host, Kernel, Spread};
use super::shared::TileCopies;
use super::tiles::{Tiles, Warps, FLAT_THREAD};
use super::GpuTiling;
use crate::backend::c::{expr, CPrinter, OmpLines};
use crate::backend::templates::{BufferParts, HostBuffers, KernelParts, LaunchParts};
use crate::backend::tree::{own_exprs, tile_groups, uses, visit, Helper, LoopExpr, Node};
use crate::backend::{Naming, Templates};
use crate::diag::{Error, Result};
use crate::model::program::{Region, Stage};
use crate::model::storage::StoragePlan;
use crate::transform::gpu_cost::{sizes_text, GpuCosted};
use std::collections::{BTreeMap, BTreeSet};

/// One indentation level.
pub(super) const INDENT: &str = "  ";

/// Largest number of blocks along `x` and along `y` a launch asks for (the
/// kernels' grid-stride loops cover the rest): CUDA's limit along `y`.
const MAX_BLOCKS: u32 = 65535;

/// What the printer needs to know of the region besides its loop tree.
#[derive(Clone)]
pub struct CudaRegion<'a> {
    /// The region.
    pub region: &'a Region,
    /// Its device buffers.
    pub device: &'a DeviceData,
    /// `file:line` of its pragma, for error messages at run time.
    pub place: String,
    /// The line of its pragma (kernels are named after it).
    pub line: usize,
    /// Which part of the region this is, in its kernels' names
    /// (`ft_kernel{line}{part}_{k}`): empty for the whole region; a time
    /// block's steps and the remaining steps of a time-iterated scop are
    /// lowered apart, as `b` and `r`.
    pub part: &'static str,
    /// Threads per block along `x` and `y` (`--block-sizes`).
    pub block: [u32; 2],
    /// Who computes an overlapped tile (`--gpu-tiling`) where the GPU cost
    /// model made no choice.
    pub tiling: GpuTiling,
    /// The GPU cost model's choice per overlapped group (by the storage
    /// plan's group index; `None`: not costed): its scheme and thread block
    /// replace `tiling` and `block` for the group's kernel.
    pub choices: Vec<Option<GpuCosted>>,
    /// The GPU whose limits the report's figures are for (`--gpu`).
    pub gpu: &'static crate::transform::gpu_occupancy::Gpu,
}

/// What a launch of one kernel looks like, for `--report`.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelReport {
    /// The kernel's name.
    pub name: String,
    /// Threads per block (`x`, `y`).
    pub block: [u32; 2],
    /// Blocks per grid along `x` and `y` (C expressions of the host).
    pub grid: [String; 2],
    /// How its work is spread.
    pub spread: Spread,
    /// Bytes of shared memory per block (the overlapped tiles'
    /// scratchpads); `None` where an element type's size is unknown.
    pub shared: Option<u64>,
    /// With `--gpu-tiling warp`, the warps per block, each running its
    /// own tiles.
    pub warps: Option<u32>,
    /// Hybrid tiles: the parallelogram tiles per statement in registers.
    pub reg_tiles: Option<usize>,
    /// The GPU cost model's choice for its overlapped group, if it made one.
    pub choice: Option<GpuCosted>,
}

/// A region printed for CUDA.
pub struct CudaCode {
    /// What replaces the region (at `indent`): the device buffers' setup,
    /// the host loops and launches, the copies back and freeing.
    pub host: String,
    /// The same in its three parts: the buffers' setup, the host loops and
    /// launches, the teardown (a time-blocked scop sets its buffers up
    /// once around its loop over blocks).
    pub parts: [String; 3],
    /// The kernels' definitions (file scope).
    pub kernels: String,
    /// One report per kernel.
    pub reports: Vec<KernelReport>,
}

/// A region mapped by `map::map`, to print.
pub struct Mapped<'a> {
    /// Its host code and kernels.
    pub host: &'a [Host],
    pub kernels: &'a [Kernel],
    pub stages: &'a [Stage],
    pub storage: Option<&'a StoragePlan>,
    pub naming: &'a Naming,
    pub cuda: &'a CudaRegion<'a>,
    /// Prefix of its kernels' names (then their number).
    pub kernel_prefix: &'a str,
    /// Indentation of its host code.
    pub indent: &'a str,
    pub templates: &'a Templates,
}

/// Prints the host code (at `m.indent`) and kernels of a mapped region.
pub fn print_region(m: &Mapped, helpers: &mut BTreeSet<Helper>) -> Result<CudaCode> {
    let (kernels, naming, cuda, indent) = (m.kernels, m.naming, m.cuda, m.indent);
    let omp = OmpLines::none();
    let c = Printing {
        stages: m.stages,
        storage: m.storage,
        naming,
        cuda,
        printer: CPrinter::new(m.stages, omp, m.storage, naming).with_data(cuda.device),
        templates: m.templates,
        barriers: [m.templates.barrier(false)?, m.templates.barrier(true)?],
    };
    let mut reports = Vec::new();
    let mut defs = String::new();
    let mut launches = Vec::new();
    for (k, kernel) in kernels.iter().enumerate() {
        let printed = print_kernel(&c, k, kernel, m.kernel_prefix)?;
        defs.push_str(&printed.def);
        launches.push(printed.launch);
        reports.push(printed.report);
    }
    crate::backend::tree::helpers(
        &kernels
            .iter()
            .flat_map(|k| k.body.clone())
            .collect::<Vec<_>>(),
        naming.wide,
        helpers,
    );
    let check = format!("{}check", cuda.device.prefix);
    let place = c_string(&cuda.place);
    let (setup, teardown) = buffers(&c, &check, &place, indent, helpers)?;
    let mut loops = String::new();
    let h = HostPrinting {
        launches: &launches,
        naming,
        check: &check,
        place: &place,
        templates: m.templates,
    };
    host_code(&h, m.host, indent, helpers, &mut loops)?;
    Ok(CudaCode {
        host: format!("{setup}{loops}{teardown}"),
        parts: [setup, loops, teardown],
        kernels: defs,
        reports,
    })
}

/// What the kernels of one region are printed with.
struct Printing<'a> {
    stages: &'a [Stage],
    storage: Option<&'a StoragePlan>,
    naming: &'a Naming,
    cuda: &'a CudaRegion<'a>,
    /// The statements' printer over the device buffers.
    printer: CPrinter<'a>,
    templates: &'a Templates,
    /// The barriers of a block's threads and of a warp's.
    barriers: [String; 2],
}

/// One kernel printed: its definition, its launch and its report.
struct PrintedKernel {
    def: String,
    launch: Launch,
    report: KernelReport,
}

/// Prints kernel `k` of a region (named `{kernel_prefix}{k}`).
fn print_kernel(
    c: &Printing,
    k: usize,
    kernel: &Kernel,
    kernel_prefix: &str,
) -> Result<PrintedKernel> {
    let (stages, storage, naming, cuda, printer) =
        (c.stages, c.storage, c.naming, c.cuda, &c.printer);
    let name = format!("{kernel_prefix}{k}");
    // A classic tile's reused inputs in shared memory.
    let copies = match kernel.spread {
        Spread::Tiles2 => TileCopies::plan(&kernel.body, stages, cuda.device, naming),
        _ => TileCopies::plan(&[], stages, cuda.device, naming),
    };
    let params = parameters(kernel, cuda, naming, &copies.counts());
    // The scalars the region writes live in device buffers; the
    // statements' text names them, so each is a reference there.
    let scalars: Vec<[String; 3]> = cuda
        .device
        .arrays
        .iter()
        .enumerate()
        .filter(|(_, a)| a.rank == 0)
        .map(|(k, a)| [a.element.clone(), a.data.clone(), cuda.device.pointer(k)])
        .collect();
    let mut groups = Vec::new();
    tile_groups(&kernel.body, &mut groups);
    // The GPU cost model's scheme and block for an overlapped group's
    // kernel (its first group's), else the options'.
    let choice = match kernel.spread {
        Spread::Blocks1 | Spread::Blocks2 => groups
            .first()
            .and_then(|g| cuda.choices.get(*g))
            .and_then(Option::as_ref),
        _ => None,
    };
    let (tiling, shape) = choice.map_or((cuda.tiling, cuda.block), |c| (c.scheme, c.block));
    let block = match kernel.spread {
        Spread::Single => [1, 1],
        Spread::Threads1 => [shape[0] * shape[1], 1],
        Spread::Threads2 | Spread::Inner2 | Spread::Blocks1 | Spread::Blocks2 | Spread::Tiles2 => {
            shape
        }
    };
    let tile_bytes = groups
        .iter()
        .try_fold(copies.bytes(), |sum, g| Some(sum + printer.tile_bytes(*g)?));
    // Overlapped tiles per warp (Jangda & Guha, PACT'20, §4).
    let warps = match (tiling, kernel.spread) {
        (GpuTiling::Warp | GpuTiling::Hybrid, Spread::Blocks1 | Spread::Blocks2) => {
            Some(Warps::new(shape, tile_bytes, &cuda.device.prefix))
        }
        _ => None,
    };
    let block = warps.as_ref().map_or(block, Warps::block);
    // Hybrid tiles (Jangda & Guha, PACT'20, §5): the storage plan holds their registers.
    let reg_tiles = groups
        .first()
        .and_then(|g| storage?.groups.get(*g)?.registers.as_ref())
        .map(|r| r.tiles)
        .filter(|_| warps.is_some());
    let mut body = String::new();
    kernel_body(c, kernel, &copies, warps.as_ref(), &mut body)?;
    let what = spread_words(kernel.spread, warps.as_ref(), reg_tiles, choice);
    let def = c.templates.kernel(&KernelParts {
        k,
        place: &cuda.place,
        what: &what,
        name: &name,
        params: params.iter().map(|(decl, _)| decl.as_str()).collect(),
        scalars,
        warps: warps.as_ref().map(Warps::ids),
        thread: FLAT_THREAD.0,
        body: &body,
    })?;
    let tiles_per_block = warps.as_ref().map_or(1, |w| w.count);
    let grid = grid(kernel, block, tiles_per_block, naming, &cuda.device.prefix);
    let args: Vec<String> = params.into_iter().map(|(_, a)| a).collect();
    let launch = Launch {
        name: name.clone(),
        grid: grid.clone(),
        block,
        args,
    };
    let shared = tile_bytes.map(|b| b * u64::from(tiles_per_block));
    let report = KernelReport {
        name,
        block,
        grid,
        spread: kernel.spread,
        shared,
        warps: warps.map(|w| w.count),
        reg_tiles,
        choice: choice.cloned(),
    };
    Ok(PrintedKernel {
        def,
        launch,
        report,
    })
}

/// Prints a kernel's body after its set-up into `body`: its loops spread
/// over the grid as `kernel.spread` says.
fn kernel_body(
    c: &Printing,
    kernel: &Kernel,
    copies: &TileCopies,
    warps: Option<&Warps>,
    body: &mut String,
) -> Result<()> {
    let (stages, storage, naming, cuda, printer) =
        (c.stages, c.storage, c.naming, c.cuda, &c.printer);
    match (kernel.spread, kernel.body.as_slice()) {
        (Spread::Inner2, [l @ Node::For { body: inner, .. }]) => {
            let Node::For {
                iter,
                init,
                cond,
                inc,
                ..
            } = l
            else {
                return Err(Error::internal("a kernel loop that is not one"));
            };
            let header = expr::for_header(iter, init, cond, inc, naming);
            body.push_str(&format!("{INDENT}{header}\n"));
            let indent = format!("{INDENT}{INDENT}");
            for m in inner {
                spread_loop(m, Spread::Threads2, printer, naming, &indent, body)?;
            }
            body.push_str(&format!("{INDENT}}}\n"));
        }
        (Spread::Threads1 | Spread::Threads2, [Node::For { .. }]) => spread_loop(
            &kernel.body[0],
            kernel.spread,
            printer,
            naming,
            INDENT,
            body,
        )?,
        (Spread::Tiles2, [Node::For { .. }]) if !copies.copies.is_empty() => {
            let omp = OmpLines::none();
            let tile_printer = CPrinter::new(stages, omp, storage, naming).with_data(copies);
            for d in copies.declarations() {
                body.push_str(&c.templates.shared(INDENT, &d)?);
            }
            let tiles = Tiles {
                printer: &tile_printer,
                naming,
                cuda,
                prologue: copies,
                warps: None,
                templates: c.templates,
                barriers: &c.barriers,
            };
            tiles.blocks(&kernel.body[0], Spread::Blocks2, INDENT, body)?
        }
        (Spread::Blocks1 | Spread::Blocks2 | Spread::Tiles2, [Node::For { .. }]) => {
            let tiles = Tiles {
                printer,
                naming,
                cuda,
                prologue: copies,
                warps: warps.cloned(),
                templates: c.templates,
                barriers: &c.barriers,
            };
            // A classic tile's point loops are its only stage: they go
            // to the block's threads as an overlapped tile's do.
            let spread = match kernel.spread {
                Spread::Tiles2 => Spread::Blocks2,
                s => s,
            };
            tiles.blocks(&kernel.body[0], spread, INDENT, body)?
        }
        _ => printer.print(&kernel.body, INDENT, body)?,
    }
    Ok(())
}

/// How a kernel's work is spread, in words, for its comment.
fn spread_words(
    spread: Spread,
    warps: Option<&Warps>,
    reg_tiles: Option<usize>,
    choice: Option<&GpuCosted>,
) -> String {
    let what = match spread {
        Spread::Single => "one thread (no parallel loop)",
        Spread::Threads1 => "a parallel loop over the grid's threads",
        Spread::Threads2 => "two loops without dependences over the grid's y and x",
        Spread::Inner2 => "the innermost two of three loops without dependences over the grid's y and x, the outer one in each thread",
        Spread::Blocks1 => "overlapped tiles over the grid's blocks, a tile's stages over the block's threads",
        Spread::Blocks2 => "overlapped tiles over the grid's blocks (y and x), a tile's stages over the block's threads",
        Spread::Tiles2 => "a classic tile's tile loops over the grid's blocks (y and x), its point loops over the block's threads (y and x)",
    };
    let what = match warps {
        Some(w) => format!(
            "{what}; one tile per warp ({} warps per block, a tile's stages over its lanes, __syncwarp between them)",
            w.count
        ),
        None => what.to_string(),
    };
    let what = match reg_tiles {
        Some(k) => format!(
            "{what}; hybrid tiles: the right {k} parallelogram tile(s) of {} lanes of every statement in registers, read across lanes by __shfl_sync",
            super::WARP_SIZE
        ),
        None => what,
    };
    let what = match choice {
        Some(c) => format!(
            "{what}; tiles {}, scheme and block from the GPU cost model",
            sizes_text(&c.sizes)
        ),
        None => what,
    };
    what
}

/// The kernel's parameters as (declaration, argument): the host's loop
/// counters it reads, the region's parameters and loop-invariant scalars
/// (variables, not macros; a parameter's type is the scalar's where the
/// bodies use it, else `long long`), and every device buffer with its first element
/// and strides.
fn parameters(
    kernel: &Kernel,
    cuda: &CudaRegion,
    naming: &Naming,
    counts: &BTreeSet<usize>,
) -> Vec<(String, String)> {
    let mut bound = BTreeSet::new();
    let mut used = BTreeSet::new();
    let mut names = BTreeSet::new();
    collect(&kernel.body, &mut bound, &mut used, &mut names);
    let mut out = Vec::new();
    for c in used.difference(&bound) {
        let name = format!("{}{c}", naming.counter);
        out.push((format!("{} {name}", naming.counter_type()), name));
    }
    let region = cuda.region;
    let mut scalars: BTreeMap<&str, &str> = BTreeMap::new();
    for n in &names {
        if !region.macro_params.contains_key(n) {
            scalars.insert(n, "long long");
        }
    }
    // Scalars the region writes live in device buffers; the others are
    // loop-invariant and passed by value.
    for (v, t) in &region.scalars {
        if !cuda.device.arrays.iter().any(|a| &a.data == v) {
            scalars.insert(v, t);
        }
    }
    for (v, t) in scalars {
        out.push((format!("{t} {v}"), v.to_string()));
    }
    let d = cuda.device;
    for (k, a) in d.arrays.iter().enumerate() {
        out.push((
            format!("{} *__restrict__ {}", a.element, d.pointer(k)),
            d.pointer(k),
        ));
        out.push((format!("long long {}", d.first(k)), d.first(k)));
        for s in 0..a.rank.saturating_sub(1) {
            out.push((format!("long long {}", d.stride(k, s)), d.stride(k, s)));
        }
        if a.gathered || counts.contains(&k) {
            out.push((format!("long long {}", d.count(k)), d.count(k)));
        }
    }
    if d.gathers() {
        out.push((format!("unsigned *{}", d.fault()), d.fault()));
    }
    out
}

/// Counters bound by loops of `nodes`, counters used, and parameter names used.
fn collect(
    nodes: &[Node],
    bound: &mut BTreeSet<u32>,
    used: &mut BTreeSet<u32>,
    names: &mut BTreeSet<String>,
) {
    visit(nodes, &mut |n| {
        if let Node::For {
            iter: LoopExpr::Counter(c),
            ..
        } = n
        {
            bound.insert(*c);
        }
        own_exprs(n).into_iter().for_each(|e| uses(e, used, names));
    });
}

/// The kernel's parallel loop as a grid-stride loop over the threads along
/// `x` (and, for [`Spread::Threads2`], the loop inside it along `x`, the
/// outer one along `y`).
fn spread_loop(
    n: &Node,
    spread: Spread,
    printer: &CPrinter,
    naming: &Naming,
    indent: &str,
    out: &mut String,
) -> Result<()> {
    let axis = if spread == Spread::Threads2 { "y" } else { "x" };
    let index = format!("blockIdx.{axis} * blockDim.{axis} + threadIdx.{axis}");
    let count = format!("gridDim.{axis} * blockDim.{axis}");
    strided_loop(
        n,
        (&index, &count),
        naming,
        indent,
        out,
        &mut |body, inner, out| match (spread, body) {
            (Spread::Threads2, [m @ Node::For { .. }]) => {
                spread_loop(m, Spread::Threads1, printer, naming, inner, out)
            }
            _ => printer.print(body, inner, out),
        },
    )
}

/// Prints a loop's body at the indentation it is given.
pub(super) type BodyPrinter<'a> = &'a mut dyn FnMut(&[Node], &str, &mut String) -> Result<()>;

/// Prints loop `n` with its iterations shared out: the one whose number is
/// `index` (a C expression) runs the first, the `index + count`-th, ...;
/// `body` prints the loop's body (at the indentation it is given).
pub(super) fn strided_loop(
    n: &Node,
    (index, count): (&str, &str),
    naming: &Naming,
    indent: &str,
    out: &mut String,
    body: BodyPrinter<'_>,
) -> Result<()> {
    let Node::For {
        iter,
        init,
        cond,
        inc,
        body: nodes,
        ..
    } = n
    else {
        return Err(Error::internal("a shared-out loop that is not a loop"));
    };
    let t = naming.counter_type();
    let times = match inc {
        LoopExpr::Int(1) => String::new(),
        inc => format!(" * {}", expr::operand(inc, naming)),
    };
    let i = expr::text(iter, naming);
    out.push_str(&format!(
        "{indent}for ({t} {i} = {} + ({t})({index}){times}; {}; {i} += ({t})({count}){times}) {{\n",
        expr::operand(init, naming),
        expr::text(cond, naming),
    ));
    body(nodes, &format!("{indent}{INDENT}"), out)?;
    out.push_str(&format!("{indent}}}\n"));
    Ok(())
}

/// Blocks per grid along `x` and `y`: enough for one thread per iteration of
/// the spread loops where the host can count them (their bounds use only
/// the host's counters and the parameters), at most [`MAX_BLOCKS`].
fn grid(
    kernel: &Kernel,
    block: [u32; 2],
    tiles_per_block: u32,
    naming: &Naming,
    prefix: &str,
) -> [String; 2] {
    let blocks = |trip: Option<String>, threads: u32| match trip {
        Some(t) => format!("{prefix}blocks({t}, {threads}, {MAX_BLOCKS})"),
        None => "1".to_string(),
    };
    match (kernel.spread, kernel.body.as_slice()) {
        (Spread::Threads1, [outer]) => [blocks(trip(outer, &[], naming), block[0]), "1".into()],
        (Spread::Blocks1, [outer]) => [
            blocks(trip(outer, &[], naming), tiles_per_block),
            "1".into(),
        ],
        (Spread::Blocks2 | Spread::Tiles2, [outer @ Node::For { iter, body, .. }]) => {
            let inner = match body.as_slice() {
                [m] => trip(m, &[iter], naming),
                _ => None,
            };
            let x = match inner {
                Some(t) => blocks(Some(t), tiles_per_block),
                None => "8".to_string(),
            };
            [x, blocks(trip(outer, &[], naming), 1)]
        }
        (Spread::Inner2, [Node::For { iter: l, body, .. }]) => match body.as_slice() {
            [m @ Node::For {
                iter, body: inner, ..
            }] => {
                let x = match inner.as_slice() {
                    [k] => trip(k, &[l, iter], naming),
                    _ => None,
                };
                let x = x.map_or("8".to_string(), |t| blocks(Some(t), block[0]));
                let y =
                    trip(m, &[l], naming).map_or("8".to_string(), |t| blocks(Some(t), block[1]));
                [x, y]
            }
            _ => ["1".into(), "1".into()],
        },
        (Spread::Threads2, [outer @ Node::For { iter, body, .. }]) => {
            let inner = match body.as_slice() {
                [m] => trip(m, &[iter], naming),
                _ => None,
            };
            // The inner loop's bounds may depend on the outer counter: a few
            // blocks along x then stride over it.
            let x = match inner {
                Some(t) => blocks(Some(t), block[0]),
                None => "8".to_string(),
            };
            [x, blocks(trip(outer, &[], naming), block[1])]
        }
        _ => ["1".into(), "1".into()],
    }
}

/// The number of iterations of loop `n` as a host expression, when its
/// condition is `counter <= e` or `counter < e` and its bounds mention none
/// of the kernel's own counters `inside`.
fn trip(n: &Node, inside: &[&LoopExpr], naming: &Naming) -> Option<String> {
    let Node::For {
        iter,
        init,
        cond,
        inc,
        ..
    } = n
    else {
        return None;
    };
    let LoopExpr::Int(step) = inc else {
        return None;
    };
    let LoopExpr::Op(op, c, e) = cond else {
        return None;
    };
    if **c != *iter {
        return None;
    }
    let (mut used, mut names) = (BTreeSet::new(), BTreeSet::new());
    uses(init, &mut used, &mut names);
    uses(e, &mut used, &mut names);
    if inside
        .iter()
        .any(|o| matches!(o, LoopExpr::Counter(c) if used.contains(c)))
    {
        return None;
    }
    let (e, init) = (expr::operand(e, naming), expr::operand(init, naming));
    let span = match op {
        crate::backend::tree::BinOp::Le => format!("(long long){e} - (long long){init} + 1"),
        crate::backend::tree::BinOp::Lt => format!("(long long){e} - (long long){init}"),
        _ => return None,
    };
    Some(match step {
        1 => format!("({span})"),
        s => format!("(({span}) + {} - 1) / {s}", s),
    })
}

/// One kernel's launch: its name, grid (host expressions), block and
/// arguments.
struct Launch {
    name: String,
    grid: [String; 2],
    block: [u32; 2],
    args: Vec<String>,
}

/// What the host code of a region is printed with.
struct HostPrinting<'a> {
    launches: &'a [Launch],
    naming: &'a Naming,
    /// The file's CUDA error check, and the region's place for it.
    check: &'a str,
    place: &'a str,
    templates: &'a Templates,
}

/// The host code: loops and guards, and the launches.
fn host_code(
    h: &HostPrinting,
    nodes: &[Host],
    indent: &str,
    helpers: &mut BTreeSet<Helper>,
    out: &mut String,
) -> Result<()> {
    let naming = h.naming;
    let inner = format!("{indent}{INDENT}");
    for n in nodes {
        match n {
            Host::For {
                iter,
                init,
                cond,
                inc,
                body,
            } => {
                for e in [iter, init, cond, inc] {
                    e.helpers(naming.wide, helpers);
                }
                let header = expr::for_header(iter, init, cond, inc, naming);
                out.push_str(&format!("{indent}{header}\n"));
                host_code(h, body, &inner, helpers, out)?;
                out.push_str(&format!("{indent}}}\n"));
            }
            Host::If { cond, then, els } => {
                cond.helpers(naming.wide, helpers);
                out.push_str(&format!("{indent}if ({}) {{\n", expr::text(cond, naming)));
                host_code(h, then, &inner, helpers, out)?;
                if let Some(e) = els {
                    out.push_str(&format!("{indent}}} else {{\n"));
                    host_code(h, e, &inner, helpers, out)?;
                }
                out.push_str(&format!("{indent}}}\n"));
            }
            Host::Launch(k) => {
                let Some(launch) = h.launches.get(*k) else {
                    continue;
                };
                out.push_str(&h.templates.launch(&LaunchParts {
                    indent,
                    kernel: &launch.name,
                    grid: &launch.grid,
                    block: launch.block,
                    args: &launch.args,
                    check: h.check,
                    place: h.place,
                })?);
            }
        }
    }
    Ok(())
}

/// The device buffers' setup (sizes, allocation, copies in) and teardown
/// (copies out, freeing), at `indent`.
fn buffers(
    c: &Printing,
    check: &str,
    place: &str,
    indent: &str,
    helpers: &mut BTreeSet<Helper>,
) -> Result<(String, String)> {
    let (d, naming) = (c.cuda.device, c.naming);
    // The flag the kernels set when a data-dependent subscript falls
    // outside its buffer, checked before anything is copied back.
    if d.gathers() {
        helpers.insert(Helper::Gather);
    }
    let mut arrays = Vec::new();
    for (k, a) in d.arrays.iter().enumerate() {
        // Sizes come from the host variable (a shadow's array).
        let data = &a.host;
        let sub = |times: usize| format!("{data}{}", "[0]".repeat(times));
        let strides = (0..a.rank.saturating_sub(1))
            .map(|s| {
                let value = format!(
                    "(long long)(sizeof({}) / sizeof({}))",
                    sub(s + 1),
                    sub(a.rank)
                );
                (d.stride(k, s), value)
            })
            .collect();
        let mut linear = |which: usize| -> String {
            let terms: Vec<String> = a
                .bounds
                .iter()
                .enumerate()
                .map(|(s, b)| {
                    let x = match (b, which) {
                        (Extent::Box(e, _), 0) | (Extent::Box(_, e), _) => {
                            e.helpers(naming.wide, helpers);
                            format!("(long long)({})", expr::text(e, naming))
                        }
                        (Extent::Declared, 0) => "0LL".to_string(),
                        (Extent::Declared, _) => format!(
                            "((long long)(sizeof({}) / sizeof({})) - 1)",
                            sub(s),
                            sub(s + 1)
                        ),
                    };
                    match s + 1 == a.rank {
                        true => x,
                        false => format!("{x} * {}", d.stride(k, s)),
                    }
                })
                .collect();
            match terms.is_empty() {
                true => "0".to_string(),
                false => terms.join(" + "),
            }
        };
        let (low, high) = match a.touched {
            true => (linear(0), linear(1)),
            false => ("0".to_string(), "-1".to_string()),
        };
        arrays.push(BufferParts {
            data: a.data.clone(),
            element: a.element.clone(),
            pointer: d.pointer(k),
            first: d.first(k),
            count: d.count(k),
            base: match a.rank {
                0 => format!("&{data}"),
                _ => data.clone(),
            },
            copy_in: a.copy_in,
            copy_out: a.copy_out,
            strides,
            low,
            high,
        });
    }
    c.templates.buffers(&HostBuffers {
        indent,
        check,
        place,
        prefix: &d.prefix,
        fault: d.gathers().then(|| d.fault()),
        arrays: &arrays,
    })
}

/// `s` as the contents of a C string literal.
fn c_string(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '?' => out.push_str("\\?"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::c_string;

    #[test]
    fn places_are_safe_in_string_literals() {
        assert_eq!(c_string("a\"b\\c.c:3"), "a\\\"b\\\\c.c:3");
        assert_eq!(c_string("x??/y"), "x\\?\\?/y");
    }
}
