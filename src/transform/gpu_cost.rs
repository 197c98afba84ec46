//! The GPU cost of a group of stages (Jangda & Guha, PACT'20, §6,
//! Algorithm 2) and the cheapest of its candidates: who runs an overlapped
//! tile (a thread block, or a warp: §4), the tile sizes and the thread
//! block's shape. The DP grouping (Jangda & Bondhugula, TOPLAS'20, `overlap_groups::dp_groups`)
//! sums it over the groups for the CUDA target as it sums [`super::cost`]
//! for OpenMP, so grouping, tile sizes and block sizes are chosen together
//! (Jangda & Guha, PACT'20, §2.4 and §6).
//!
//! Per candidate, from the group's geometry ([`Geometry`]: after alignment
//! and scaling, each statement's per-tile region and what it reads from
//! outside the group), Algorithm 2's terms:
//! - the thread blocks (tiles, or tiles per warp-count), warps per block and
//!   the shared memory of a block: the per-tile regions of the statements
//!   another statement of the group reads, times the tiles a block holds
//!   (lines 3-12; candidates over 48 KiB are out);
//! - global memory transactions (lines 13-17): per tile, each input's rows
//!   of the widest region that reads it, and each live-out statement's own
//!   rows, in 32-byte sectors plus one per row for a row that does not
//!   start on a sector;
//! - theoretical occupancy from shared memory, threads, the SM's block
//!   limit and registers (lines 18-24, `gpu_occupancy`), and the memory
//!   time against the compute time (lines 25-28);
//! - unallocated shared memory, unused registers, the fraction of
//!   recomputed points and the blocks of the last, partial wave (lines
//!   29-34), reported.
//!
//! The paper adds the terms with weights fitted by cross-validation on its
//! two GPUs (Table 3): a sum of counts and ratios that does not add up over
//! groups as the DP needs. As [`super::cost`] does for the CPU, the terms
//! are combined into an estimate of the group's time instead: per SM, waves
//! of the resident blocks, each wave bound by instruction issue (four warp
//! instructions per cycle) or by its slowest warp's dependent instructions
//! and barriers; memory at the device's bandwidth, scaled down where too few
//! warps are resident to keep enough loads in flight (the paper's achieved
//! occupancy); the larger of the two, plus a kernel launch per group.
//!
//! What the paper measures per stage and flextile estimates instead:
//! registers per thread (nvcc on each stage: here [`registers`], a linear
//! estimate from the group's statements and reads fitted on ptxas's
//! counts) and time per iteration (a micro-benchmark: here
//! [`INSTR_PER_POINT`] plus [`INSTR_PER_READ`] per read). The time
//! constants are not fitted on a GPU (none was lent to this work):
//! `--report` prints the estimates beside each kernel's actual shared
//! memory, `bench/cuda-ptxas.md` holds ptxas's registers beside the
//! estimate, and `bench/cuda_estimates.py` measures both estimates' error
//! on the testsuite.

use crate::transform::cost::{aligned, dim_sizes, scale_lcm, spanning, Geometry, SPAN};
use crate::transform::gpu_occupancy::{Gpu, SHARED_BYTES, WARP_SIZE};
use std::collections::BTreeMap;

/// Who computes an overlapped tile on the GPU (`--gpu-tiling`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuTiling {
    /// A thread block: its scratchpads in the block's shared memory,
    /// `__syncthreads()` between stages (Zhao & Cohen's (TACO'19) GPU mapping).
    Block,
    /// A warp (Jangda & Guha, PACT'20, §4, overlapped tile per warp): each warp of a block
    /// runs its own tiles, its scratchpads its own part of the block's
    /// shared memory, `__syncwarp()` between stages.
    Warp,
    /// A warp, the right parallelogram tiles of its statements' regions
    /// along the innermost loop in registers, read across lanes by shuffles
    /// (Jangda & Guha, PACT'20, §5, hybrid tiling; `transform::hybrid`).
    Hybrid,
}

impl GpuTiling {
    /// The option's value.
    pub fn name(self) -> &'static str {
        match self {
            GpuTiling::Block => "block",
            GpuTiling::Warp => "warp",
            GpuTiling::Hybrid => "hybrid",
        }
    }
}

/// What the GPU cost model reads of the options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuSpec {
    /// The GPU (`--gpu`).
    pub gpu: &'static Gpu,
    /// `--gpu-tiling block|warp`; `None` (`auto`): the cheaper per group.
    pub scheme: Option<GpuTiling>,
    /// `--block-sizes`; `None`: the model's choice per group.
    pub block: Option<[u32; 2]>,
    /// `--reg-fraction`: the part of a hybrid tile along the innermost loop
    /// kept in registers; `None`: the model's choice.
    pub reg_fraction: Option<f64>,
}

/// Instructions a thread spends on a point besides its reads (index
/// arithmetic, the guard, the store).
pub const INSTR_PER_POINT: f64 = 6.0;
/// Instructions per read of a point (address, load, use).
pub const INSTR_PER_READ: f64 = 3.0;
/// Cycles between a warp's dependent instructions when nothing hides them.
const LATENCY_CYCLES: f64 = 6.0;
/// Cycles a `__syncthreads()` stalls a block; a `__syncwarp()`'s.
const BLOCK_BARRIER_CYCLES: f64 = 40.0;
const WARP_BARRIER_CYCLES: f64 = 4.0;
/// Warps an SM needs resident to keep enough loads in flight for the
/// device's bandwidth (Little's law: ~600 ns of latency at 3 TB/s over 132
/// SMs is ~15 KB per SM, 512 bytes per warp).
const MEMORY_WARPS: f64 = 32.0;
/// Seconds a kernel launch costs.
const LAUNCH_SECONDS: f64 = 3e-6;
/// Bytes of a global memory transaction (an L2 sector).
const SECTOR: f64 = 32.0;
/// Estimated registers per thread: a base, per statement of the group, one
/// per [`READS_PER_REG`] reads of its largest statement, and more for a
/// warp's tiles (its warp and lane ids, the warp's scratchpad references).
/// Fitted by least squares on ptxas's counts for the 395 overlapped kernels
/// of the benchmarks' CUDA variants (`bench/cuda_shapes.py`; mean absolute
/// error 6.3 registers, 15%).
pub const REG_BASE: u32 = 28;
/// See [`REG_BASE`].
pub const REG_PER_STAGE: u32 = 3;
/// See [`REG_BASE`].
pub const READS_PER_REG: u32 = 3;
/// See [`REG_BASE`].
pub const REG_WARP: u32 = 8;
/// Hybrid tiles: more for the register parts' lane arithmetic and shuffled
/// values, besides one register per held element of every statement
/// another reads (the mean error over the testsuite's 53 hybrid kernels,
/// `bench/cuda_estimates.py --scheme hybrid`).
pub const REG_HYBRID: u32 = 10;

/// A group's cost with one candidate, and Algorithm 2's terms.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuCosted {
    /// The estimated time of the group, in seconds (lower is better).
    pub cost: f64,
    /// Who runs a tile.
    pub scheme: GpuTiling,
    /// With [`GpuTiling::Hybrid`], the parallelogram tiles (each a warp
    /// wide) of every statement's region held in registers; else 0.
    pub reg_tiles: u32,
    /// Tile size per loop (scaled coordinates; [`SPAN`]: one tile spans it).
    pub sizes: Vec<i64>,
    /// Threads per block (`x`, `y`): with the warp scheme, a warp's lanes
    /// along `x` and its warps stacked along `y`.
    pub block: [u32; 2],
    /// Tiles a block runs at once (warps with the warp scheme, else 1).
    pub tiles_per_block: u32,
    /// Shared memory per block, bytes (the scratchpads): estimated, or from
    /// the group's storage plan where the choice was refined with it.
    pub shared: u64,
    /// Bytes of one tile's scratchpads the cost used.
    pub tile_shared: u64,
    /// The geometry's estimate of a block's shared memory (what `--report`
    /// compares with the kernel's actual bytes).
    pub estimated_shared: u64,
    /// Estimated registers per thread (see [`registers`]).
    pub registers: u32,
    /// What the estimate reads: the group's statements, and the most reads
    /// per point of one of them.
    pub register_terms: (usize, i64),
    /// Blocks an SM holds at once (shared memory, threads, registers).
    pub blocks_per_sm: u32,
    /// Theoretical occupancy: resident warps over the SM's maximum.
    pub occupancy: f64,
    /// Thread blocks of the launch (tiles past the first two tile loops
    /// run in turn in each).
    pub blocks: i64,
    /// Blocks of the last, partial wave over the SMs (0: whole waves).
    pub extra_blocks: i64,
    /// Global memory transactions (32-byte sectors) of the whole group.
    pub transactions: f64,
    /// Seconds the transactions take at the bandwidth the resident warps reach.
    pub memory_time: f64,
    /// Seconds of computation.
    pub compute_time: f64,
    /// Of the points the tiles compute, the fraction recomputed (overlap).
    pub overlap: f64,
    /// Of the lanes' iterations, the fraction that compute a point.
    pub busy_lanes: f64,
    /// Fraction of the SM's shared memory its resident blocks leave unused.
    pub unallocated_shared: f64,
    /// Fraction of the SM's registers its resident warps leave unused.
    pub unused_registers: f64,
}

impl GpuCosted {
    /// The terms in words (`--explain`, `--report`).
    pub fn describe(&self, gpu: &Gpu) -> String {
        format!(
            "{:.1} us on {}: one tile per {}{} ({} tile(s) per block), tiles {}, blocks of {}x{} threads, {} blocks; scratchpads {} bytes per block; estimated {} bytes of shared memory and {} registers per thread ({} statements, {} reads at most), {} block(s) per SM, occupancy {:.0}%; {:.3e} global memory transactions ({:.1} us), computation {:.1} us; {:.1}% of the points recomputed, {:.0}% of the lanes' iterations busy, {} block(s) in the last wave, {:.0}% of shared memory and {:.0}% of registers unused",
            1e6 * self.cost,
            gpu.arch,
            match self.scheme {
                GpuTiling::Hybrid => "warp",
                s => s.name(),
            },
            match self.scheme {
                GpuTiling::Hybrid => format!(
                    " (hybrid: {} parallelogram tile(s) of {WARP_SIZE} per statement in registers)",
                    self.reg_tiles
                ),
                _ => String::new(),
            },
            self.tiles_per_block,
            sizes_text(&self.sizes),
            self.block[0],
            self.block[1],
            self.blocks,
            self.shared,
            self.estimated_shared,
            self.registers,
            self.register_terms.0,
            self.register_terms.1,
            self.blocks_per_sm,
            100.0 * self.occupancy,
            self.transactions,
            1e6 * self.memory_time,
            1e6 * self.compute_time,
            100.0 * self.overlap,
            100.0 * self.busy_lanes,
            self.extra_blocks,
            100.0 * self.unallocated_shared,
            100.0 * self.unused_registers,
        )
    }
}

/// Sizes as the user would write them (`whole` for a spanned loop).
pub fn sizes_text(sizes: &[i64]) -> String {
    let v: Vec<String> = sizes
        .iter()
        .map(|s| match *s >= SPAN {
            true => "whole".to_string(),
            false => s.to_string(),
        })
        .collect();
    format!("[{}]", v.join(", "))
}

/// Estimated registers per thread of a group's kernel (see [`REG_BASE`]).
pub fn registers(geo: &Geometry, scheme: GpuTiling) -> u32 {
    let stages = u32::try_from(geo.stmts.len()).unwrap_or(u32::MAX);
    let reads = geo.stmts.iter().map(|s| s.ops).max().unwrap_or(0);
    let reads = u32::try_from(reads.max(0)).unwrap_or(u32::MAX);
    let warp = match scheme {
        GpuTiling::Block => 0,
        GpuTiling::Warp => REG_WARP,
        GpuTiling::Hybrid => REG_WARP + REG_HYBRID,
    };
    REG_BASE
        .saturating_add(REG_PER_STAGE.saturating_mul(stages))
        .saturating_add(reads / READS_PER_REG)
        .saturating_add(warp)
        .min(255)
}

/// The lanes of a warp along `x` for a block `bx` threads wide (the largest
/// divisor of the warp size up to `bx`), as the printer spreads them.
pub fn warp_x(bx: u32) -> u32 {
    let mut x = bx.clamp(1, WARP_SIZE);
    while !WARP_SIZE.is_multiple_of(x) {
        x -= 1;
    }
    x
}

/// The warps (one tile each) a block of `block` threads holds whose tiles'
/// scratchpads take `bytes` each: as many as its threads make, fewer where
/// their scratchpads would not fit a block's shared memory together
/// (unknown or none: as many as asked).
pub fn warps_per_block(block: [u32; 2], bytes: Option<u64>) -> u32 {
    let wanted = (block[0] * block[1]).div_ceil(WARP_SIZE).max(1);
    let fit = match bytes {
        Some(b) if b > 0 => u32::try_from(SHARED_BYTES / b).unwrap_or(u32::MAX),
        _ => wanted,
    };
    wanted.min(fit).max(1)
}

/// Algorithm 2: the cost of the group `geo` run as `scheme` with tiles of
/// `sizes` (scaled, aligned on the group's loops) and blocks of `block`
/// threads; `None` where the candidate cannot run (its scratchpads exceed
/// a block's shared memory, or the block does not fit an SM). `exact`: a
/// tile's scratchpad bytes in the group's storage plan, where it is built
/// (they replace the estimate).
pub fn cost(
    geo: &Geometry,
    gpu: &Gpu,
    scheme: GpuTiling,
    sizes: &[i64],
    block: [u32; 2],
    exact: Option<u64>,
) -> Option<GpuCosted> {
    let reg_tiles = match scheme {
        GpuTiling::Hybrid => sizes.last().map_or(1, |s| reg_tiles(*s, 0.5)),
        _ => 0,
    };
    costed(geo, gpu, (scheme, reg_tiles), sizes, block, exact)
}

/// The parallelogram tiles of a hybrid tile `size` wide along the innermost
/// loop that `fraction` of it keeps in registers (0: none).
pub fn reg_tiles(size: i64, fraction: f64) -> u32 {
    let warps = size / i64::from(WARP_SIZE);
    let k = (fraction * warps as f64 + 1e-9).floor() as i64;
    u32::try_from(k.clamp(0, warps.max(0))).unwrap_or(0)
}

/// [`cost`] with a hybrid tile's parallelogram tiles in registers given
/// (`scheme.1`, ignored for the other schemes). `exact` is a tile's bytes
/// of scratchpads without registers: the register part's come off.
fn costed(
    geo: &Geometry,
    gpu: &Gpu,
    (scheme, reg_tiles): (GpuTiling, u32),
    sizes: &[i64],
    block: [u32; 2],
    exact: Option<u64>,
) -> Option<GpuCosted> {
    let depth = geo.depth;
    if depth == 0 || sizes.len() != depth {
        return None;
    }
    let sizes = spanning(geo, sizes.to_vec());
    let dims = dim_sizes(geo);
    let reg_tiles = match scheme {
        GpuTiling::Hybrid => reg_tiles,
        _ => 0,
    };
    // Lanes working on one tile, along x and y.
    let (lx, ly) = match scheme {
        GpuTiling::Block => (block[0].max(1), block[1].max(1)),
        GpuTiling::Warp | GpuTiling::Hybrid => {
            let x = warp_x(block[0]);
            (x, WARP_SIZE / x)
        }
    };
    // Hybrid tiles: a warp's lanes along the innermost loop, which no stage
    // scales, at least the register part wide, and something to hold.
    let reg_span = i64::from(reg_tiles) * i64::from(WARP_SIZE);
    if scheme == GpuTiling::Hybrid
        && (reg_tiles == 0
            || lx != WARP_SIZE
            || sizes[depth - 1] >= SPAN
            || sizes[depth - 1] < reg_span
            || !geo.stmts.iter().any(|s| s.consumed)
            || geo.stmts.iter().any(|s| s.scale.iter().any(|a| *a != 1)))
    {
        return None;
    }
    let TileWork {
        held_bytes,
        held_registers,
        shuffles,
        computed,
        own_total,
        shared_tile,
        lane_iters,
        mut warp_instr,
        inputs,
        stores,
    } = tile_work(geo, &sizes, &dims, scheme, (lx, ly), reg_tiles)?;
    // The tile loops: the first two with more than one tile go to the
    // grid (isl generates no loop for one tile), the others run in turn in
    // each block (or warp).
    let counts: Vec<i64> = (0..depth)
        .map(|d| ((dims[d] + sizes[d] - 1) / sizes[d].max(1)).max(1))
        .collect();
    let tiles = counts.iter().fold(1i64, |t, n| t.saturating_mul(*n));
    let grid_tiles = counts
        .iter()
        .filter(|n| **n > 1)
        .take(2)
        .fold(1i64, |t, n| t.saturating_mul(*n));
    let serial = (tiles / grid_tiles.max(1)).max(1) as f64;
    let estimated_tile = (shared_tile - held_bytes).max(0.0).ceil() as u64;
    let shared_tile = exact.map_or(estimated_tile, |b| b.saturating_sub(held_bytes as u64));
    warp_instr += shuffles;
    if shared_tile > SHARED_BYTES {
        return None;
    }
    let (launch, tiles_per_block) = match scheme {
        GpuTiling::Block => (block, 1),
        GpuTiling::Warp | GpuTiling::Hybrid => {
            let count = warps_per_block(block, Some(shared_tile));
            ([lx, ly * count], count)
        }
    };
    let launch_threads = launch[0] * launch[1];
    let warps = launch_threads.div_ceil(WARP_SIZE).max(1);
    let shared = shared_tile * u64::from(tiles_per_block);
    let regs = registers(geo, scheme)
        .saturating_add(u32::try_from(held_registers).unwrap_or(u32::MAX))
        .min(255);
    let occ = gpu.occupancy(launch_threads, shared)?;
    let per_sm = occ
        .blocks
        .min(gpu.blocks_by_registers(launch_threads, regs));
    if per_sm == 0 {
        return None;
    }
    let max_warps = f64::from(gpu.threads_per_sm / WARP_SIZE);
    let resident_warps = f64::from(per_sm * warps);
    let blocks = (grid_tiles + i64::from(tiles_per_block) - 1) / i64::from(tiles_per_block);
    let concurrent = i64::from(per_sm) * i64::from(gpu.sms);
    let waves = (blocks + concurrent - 1) / concurrent.max(1);
    // A wave of one SM: its resident blocks' instructions at four per
    // cycle, or its slowest warp's dependent instructions and barriers.
    let stages = geo.stmts.len() as f64;
    let block_instr = match scheme {
        GpuTiling::Block => warp_instr * f64::from(warps),
        GpuTiling::Warp | GpuTiling::Hybrid => warp_instr * f64::from(tiles_per_block),
    };
    let barriers = match scheme {
        GpuTiling::Block => BLOCK_BARRIER_CYCLES,
        GpuTiling::Warp | GpuTiling::Hybrid => WARP_BARRIER_CYCLES,
    } * stages;
    let issue = serial * f64::from(per_sm) * block_instr / 4.0;
    let latency = serial * (warp_instr * LATENCY_CYCLES + barriers);
    let compute_time = waves as f64 * issue.max(latency) / gpu.clock;
    let sector_count = inputs.values().sum::<f64>() + stores;
    let transactions = sector_count * tiles as f64;
    let bandwidth = gpu.bandwidth * (resident_warps / MEMORY_WARPS).min(1.0);
    let memory_time = transactions * SECTOR / bandwidth;
    let cost = compute_time.max(memory_time) + LAUNCH_SECONDS;
    let registers_used = f64::from(regs) * resident_warps * f64::from(WARP_SIZE);
    Some(GpuCosted {
        cost,
        scheme,
        reg_tiles,
        sizes,
        block: launch,
        tiles_per_block,
        shared,
        tile_shared: shared_tile,
        estimated_shared: estimated_tile * u64::from(tiles_per_block),
        registers: regs,
        register_terms: (
            geo.stmts.len(),
            geo.stmts.iter().map(|s| s.ops).max().unwrap_or(0),
        ),
        blocks_per_sm: per_sm,
        occupancy: resident_warps / max_warps,
        blocks,
        extra_blocks: blocks % concurrent.max(1),
        transactions,
        memory_time,
        compute_time,
        overlap: ((computed - own_total) / computed.max(1.0)).max(0.0),
        busy_lanes: computed / lane_iters.max(1.0),
        unallocated_shared: 1.0
            - (shared + gpu.shared_reserved) as f64 * f64::from(per_sm) / gpu.shared_per_sm as f64,
        unused_registers: 1.0 - registers_used / f64::from(gpu.registers_per_sm),
    })
}

/// What one tile of a group does, summed over its statements, in the
/// order of [`costed`]'s terms.
#[derive(Default)]
struct TileWork<'g> {
    /// Bytes and registers the register part of a hybrid tile holds.
    held_bytes: f64,
    held_registers: i64,
    /// Shuffles the register part's reads cost.
    shuffles: f64,
    /// Points computed, and those of the tile's own.
    computed: f64,
    own_total: f64,
    /// Bytes of scratchpads.
    shared_tile: f64,
    /// Iterations of all lanes, and a warp's instructions.
    lane_iters: f64,
    warp_instr: f64,
    /// Sectors read of each input array, and sectors stored.
    inputs: BTreeMap<&'g str, f64>,
    stores: f64,
}

/// One tile's work at `sizes` (per loop of the loops' extents `dims`) under
/// `scheme`, `lanes` (x, y) working on it and `reg_tiles` parallelogram
/// tiles in registers; `None` when a hybrid tile's register part does not
/// fit.
fn tile_work<'g>(
    geo: &'g Geometry,
    sizes: &[i64],
    dims: &[i64],
    scheme: GpuTiling,
    (lx, ly): (u32, u32),
    reg_tiles: u32,
) -> Option<TileWork<'g>> {
    let depth = geo.depth;
    let reg_span = i64::from(reg_tiles) * i64::from(WARP_SIZE);
    let mut w = TileWork::default();
    for s in &geo.stmts {
        // Points of its per-tile region along each loop, and its own.
        let mut region = Vec::with_capacity(depth);
        let mut own = Vec::with_capacity(depth);
        for (d, size) in sizes.iter().enumerate() {
            let ext = s.extent[d].unwrap_or((*size).min(dims[d]));
            let tile = (*size).min(ext);
            let comp = match tile >= ext {
                true => ext,
                false => (tile + s.left[d] + s.right[d]).min(ext),
            };
            let a = s.scale[d].max(1);
            region.push(((comp + a - 1) / a).max(1));
            own.push(((tile + a - 1) / a).max(1));
        }
        let pts: f64 = region.iter().map(|r| *r as f64).product();
        let own_pts: f64 = own.iter().map(|r| *r as f64).product();
        w.computed += pts;
        w.own_total += own_pts;
        // Its points over the lanes: the innermost loop along x, the next
        // along y, the others in each thread.
        let iters = lanes_iterations(&region, lx, ly);
        w.lane_iters += iters * f64::from(lx * ly);
        w.warp_instr += iters * (INSTR_PER_POINT + INSTR_PER_READ * s.ops as f64);
        if s.consumed {
            w.shared_tile += pts * s.bytes as f64;
        }
        if scheme == GpuTiling::Hybrid {
            // Its register part: `reg_span` points along x by its whole
            // region along the other loops, in registers where others read it.
            let others: i64 = region[..depth - 1].iter().product();
            if region[depth - 1] < reg_span
                || i64::from(reg_tiles) * others > crate::transform::hybrid::MAX_REGISTERS_PER_STAGE
            {
                return None;
            }
            if s.consumed {
                w.held_bytes += (reg_span * others * s.bytes) as f64;
                w.held_registers += i64::from(reg_tiles) * others;
            }
            // A read in the register part: two shuffles and a select.
            w.shuffles += 2.0 * s.ops as f64 * f64::from(reg_tiles) * others as f64;
        }
        let rows = |r: &[i64]| -> f64 { r[..depth - 1].iter().map(|v| *v as f64).product() };
        let sectors =
            |r: &[i64]| -> f64 { (r[depth - 1] as f64 * s.bytes as f64 / SECTOR).ceil() + 1.0 };
        for input in &s.inputs {
            let t = rows(&region) * sectors(&region);
            let e = w.inputs.entry(input.as_str()).or_default();
            *e = e.max(t);
        }
        if s.live_out {
            w.stores += rows(&own) * sectors(&own);
        }
    }
    Some(w)
}

/// Iterations each lane runs for a region of `region` points per loop:
/// the innermost loop over `lx` lanes, the next over `ly`, the others in
/// each lane (a lone loop over all of them).
fn lanes_iterations(region: &[i64], lx: u32, ly: u32) -> f64 {
    let (lx, ly) = (i64::from(lx), i64::from(ly));
    match region {
        [] => 1.0,
        [x] => ((x + lx * ly - 1) / (lx * ly)) as f64,
        [outer @ .., y, x] => {
            let o: f64 = outer.iter().map(|v| *v as f64).product();
            o * ((y + ly - 1) / ly) as f64 * ((x + lx - 1) / lx) as f64
        }
    }
}

/// Candidate tile sizes of one loop: the innermost wide (rows of sectors),
/// the next from one row up, the others few; multiples of the loop's scales.
fn size_candidates(geo: &Geometry, d: usize, lcm: i64, extent: i64) -> Vec<i64> {
    let depth = geo.depth;
    let base: &[i64] = match depth - 1 - d {
        0 if depth == 1 => &[64, 128, 256, 512, 1024],
        0 => &[32, 64, 128],
        1 => &[1, 2, 4, 8, 16, 32],
        _ => &[1, 2, 4],
    };
    let mut v: Vec<i64> = base
        .iter()
        .map(|s| ((s + lcm - 1) / lcm).max(1) * lcm)
        .map(|s| match s >= extent {
            true => SPAN,
            false => s,
        })
        .collect();
    // A short loop bounded by constants (an image's channels) may be one tile.
    if geo.stmts.iter().all(|s| s.fixed[d]) && extent <= 8 {
        v.push(SPAN);
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// Candidate blocks: a warp or more along `x`, 64 to 512 threads.
const BLOCKS: [[u32; 2]; 9] = [
    [32, 2],
    [32, 4],
    [32, 8],
    [32, 16],
    [64, 1],
    [64, 2],
    [64, 4],
    [128, 1],
    [128, 2],
];

/// The cheapest candidate of scheme x tile sizes x block sizes for the
/// group `geo` (those `spec` and `given` sizes fix are not varied); `None`
/// where none can run.
pub fn choose(
    geo: &Geometry,
    spec: &GpuSpec,
    given: Option<&[i64]>,
    exact: Option<u64>,
) -> Option<GpuCosted> {
    let best = choose_among(geo, spec, given, exact);
    match (best, spec.scheme) {
        // No hybrid tile qualifies (too narrow, scaled stages, too many
        // registers): one tile per warp, as hybrid tiling without registers.
        (None, Some(GpuTiling::Hybrid)) => {
            let warp = GpuSpec {
                scheme: Some(GpuTiling::Warp),
                ..*spec
            };
            choose_among(geo, &warp, given, exact)
        }
        (best, _) => best,
    }
}

/// [`choose`] among the schemes `spec` allows.
fn choose_among(
    geo: &Geometry,
    spec: &GpuSpec,
    given: Option<&[i64]>,
    exact: Option<u64>,
) -> Option<GpuCosted> {
    let depth = geo.depth;
    if depth == 0 {
        return None;
    }
    let dims = dim_sizes(geo);
    let lcm = scale_lcm(geo);
    let per_loop: Vec<Vec<i64>> = match given {
        Some(g) => aligned(g, depth).into_iter().map(|s| vec![s]).collect(),
        None => (0..depth)
            .map(|d| size_candidates(geo, d, lcm[d], dims[d]))
            .collect(),
    };
    let schemes: &[GpuTiling] = match &spec.scheme {
        Some(s) => std::slice::from_ref(s),
        None => &[GpuTiling::Block, GpuTiling::Warp, GpuTiling::Hybrid],
    };
    let blocks: Vec<[u32; 2]> = match spec.block {
        Some(b) => vec![b],
        None => BLOCKS.to_vec(),
    };
    let mut best: Option<GpuCosted> = None;
    let mut sizes = vec![0; depth];
    let mut index = vec![0usize; depth];
    loop {
        for (d, i) in index.iter().enumerate() {
            sizes[d] = per_loop[d][*i];
        }
        for scheme in schemes {
            for k in hybrid_tiles(*scheme, sizes[depth - 1], spec.reg_fraction) {
                for block in &blocks {
                    let c = costed(geo, spec.gpu, (*scheme, k), &sizes, *block, exact);
                    if let Some(c) = c {
                        if best.as_ref().is_none_or(|b| c.cost < b.cost) {
                            best = Some(c);
                        }
                    }
                }
            }
        }
        // The next combination of sizes (the innermost loop fastest).
        let mut d = depth;
        loop {
            if d == 0 {
                return best;
            }
            d -= 1;
            index[d] += 1;
            if index[d] < per_loop[d].len() {
                break;
            }
            index[d] = 0;
        }
    }
}

/// Why the group `geo` gets no hybrid tile at tile sizes `sizes` (scaled)
/// with blocks `block` wide along `x` (`None`: the model's blocks), in
/// words; `None` where it has nothing to keep in registers (no statement
/// another of the group reads), which is no refusal.
pub fn hybrid_obstacle(geo: &Geometry, sizes: &[i64], block: Option<u32>) -> Option<String> {
    let depth = geo.depth;
    if depth == 0 || !geo.stmts.iter().any(|s| s.consumed) {
        return None;
    }
    let sizes = spanning(geo, sizes.to_vec());
    let x = sizes[depth - 1];
    let dims = dim_sizes(geo);
    Some(match () {
        _ if geo.stmts.iter().any(|s| s.scale.iter().any(|a| *a != 1)) => {
            "a stage is scaled to align its dependences (a resampling stage), and hybrid tiles need unscaled stages".to_string()
        }
        _ if block.is_some_and(|b| warp_x(b) != WARP_SIZE) => {
            "--block-sizes gives a warp fewer than 32 lanes along x".to_string()
        }
        _ if x >= SPAN || x < i64::from(WARP_SIZE) => format!(
            "its tiles along the innermost loop ({}) are not a warp wide or more",
            match x >= SPAN {
                true => format!("the whole loop of {}", dims[depth - 1]),
                false => x.to_string(),
            }
        ),
        _ => {
            let rows = geo
                .stmts
                .iter()
                .map(|s| {
                    (0..depth - 1)
                        .map(|d| {
                            let ext = s.extent[d].unwrap_or(sizes[d].min(dims[d]));
                            match sizes[d].min(ext) >= ext {
                                true => ext,
                                false => (sizes[d] + s.left[d] + s.right[d]).min(ext),
                            }
                        })
                        .product::<i64>()
                })
                .max()
                .unwrap_or(1);
            let cap = crate::transform::hybrid::MAX_REGISTERS_PER_STAGE;
            match rows > cap {
                true => format!(
                    "a stage's per-tile region has {rows} points along the outer loops, one register each per warp of the register part (at most {cap})"
                ),
                false => "no candidate of it is valid for registers (its regions narrower than a warp along the innermost loop?)".to_string(),
            }
        }
    })
}

/// The register parts a candidate of `scheme` with tiles `size` wide
/// along the innermost loop tries: none but for hybrid tiles; there the
/// `fraction` given, else a quarter to all of the tile (Jangda & Guha, PACT'20, §6 tries
/// fractions 0.0 to 1.0; 0.0 is the warp scheme).
fn hybrid_tiles(scheme: GpuTiling, size: i64, fraction: Option<f64>) -> Vec<u32> {
    if scheme != GpuTiling::Hybrid {
        return vec![0];
    }
    let mut v: Vec<u32> = match fraction {
        Some(f) => vec![reg_tiles(size, f)],
        None => [0.25, 0.5, 0.75, 1.0]
            .iter()
            .map(|f| reg_tiles(size, *f))
            .collect(),
    };
    v.retain(|k| *k > 0);
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::cost::GeoStmt;
    use crate::transform::gpu_occupancy::gpu;

    /// A 2-D stage of floats over 2048 x 2048 reaching `reach` points past
    /// the tile on each side, read by a later stage when `consumed`.
    fn stmt(reach: i64, consumed: bool, ops: i64) -> GeoStmt {
        GeoStmt {
            scale: vec![1, 1],
            left: vec![reach, reach],
            right: vec![reach, reach],
            extent: vec![Some(2048), Some(2048)],
            fixed: vec![false, false],
            bytes: 4,
            live_out: !consumed,
            inputs: match consumed {
                true => vec!["in".to_string()],
                false => vec![],
            },
            ops,
            consumed,
        }
    }

    /// A blur: two stages of three reads, the first recomputed one point
    /// past each side of the tile.
    fn blur() -> Geometry {
        Geometry {
            depth: 2,
            stmts: vec![stmt(1, true, 3), stmt(0, false, 3)],
            reuse: vec![3.0, 3.0],
        }
    }

    #[test]
    fn shared_memory_and_occupancy_follow_the_tile() {
        let h100 = gpu("sm_90").expect("sm_90");
        let c = cost(&blur(), h100, GpuTiling::Block, &[8, 32], [32, 8], None).expect("runs");
        // The first stage's region: 10 x 34 floats in shared memory.
        assert_eq!(c.shared, 10 * 34 * 4);
        assert_eq!((c.tiles_per_block, c.block), (1, [32, 8]));
        assert_eq!(c.blocks, 256 * 64);
        // 8 blocks of 256 threads fill the SM; 32 registers would keep them.
        assert_eq!(c.registers, REG_BASE + 2 * REG_PER_STAGE + 1);
        assert!(c.occupancy <= 1.0 && c.occupancy > 0.5, "{c:?}");
        // Recomputed: 10*34 - 8*32 of the first stage's points.
        let overlap = (10.0 * 34.0 - 256.0) / (10.0 * 34.0 + 256.0);
        assert!((c.overlap - overlap).abs() < 1e-9);
        // One tile per warp: eight warps, each its own scratchpad.
        let w = cost(&blur(), h100, GpuTiling::Warp, &[8, 32], [32, 8], None).expect("runs");
        assert_eq!((w.tiles_per_block, w.block), (8, [32, 8]));
        assert_eq!(w.shared, 8 * 10 * 34 * 4);
        assert_eq!(w.blocks, 256 * 64 / 8);
        // The storage plan's bytes replace the estimate where known.
        let x = cost(
            &blur(),
            h100,
            GpuTiling::Block,
            &[8, 32],
            [32, 8],
            Some(40000),
        );
        let x = x.expect("runs");
        assert_eq!((x.shared, x.estimated_shared), (40000, 10 * 34 * 4));
        assert!(x.occupancy < c.occupancy, "{x:?}");
        assert!(cost(
            &blur(),
            h100,
            GpuTiling::Block,
            &[8, 32],
            [32, 8],
            Some(60000)
        )
        .is_none());
        // Scratchpads past 48 KiB cannot run.
        assert!(cost(&blur(), h100, GpuTiling::Block, &[64, 256], [32, 8], None).is_none());
    }

    #[test]
    fn hybrid_tiles_trade_shared_memory_for_registers() {
        let h100 = gpu("sm_90").expect("sm_90");
        let warp = cost(&blur(), h100, GpuTiling::Warp, &[8, 128], [32, 4], None).expect("runs");
        let hybrid = costed(
            &blur(),
            h100,
            (GpuTiling::Hybrid, 2),
            &[8, 128],
            [32, 4],
            None,
        );
        let hybrid = hybrid.expect("runs");
        // The first stage's region, 10 x 130 floats, less 10 rows of two
        // warps' 64 points in registers.
        assert_eq!(warp.tile_shared, 10 * 130 * 4);
        assert_eq!(hybrid.tile_shared, 10 * (130 - 64) * 4);
        assert_eq!(hybrid.registers, warp.registers + REG_HYBRID + 2 * 10);
        assert_eq!((hybrid.scheme, hybrid.reg_tiles), (GpuTiling::Hybrid, 2));
        // The plan's bytes (without registers) lose the register part too.
        let exact = costed(
            &blur(),
            h100,
            (GpuTiling::Hybrid, 2),
            &[8, 128],
            [32, 4],
            Some(6000),
        );
        assert_eq!(exact.expect("runs").tile_shared, 6000 - 10 * 64 * 4);
        // Lanes not a warp wide along x, a register part wider than the
        // tile, or none: no hybrid tile.
        let no = |k: u32, sizes: &[i64], block: [u32; 2]| {
            costed(&blur(), h100, (GpuTiling::Hybrid, k), sizes, block, None).is_none()
        };
        assert!(no(2, &[8, 128], [16, 8]));
        assert!(no(5, &[8, 128], [32, 4]));
        assert!(no(0, &[8, 128], [32, 4]));
        // 64 registers per statement at most: 4 warps x 20 rows is over.
        assert!(no(4, &[18, 128], [32, 4]));
        assert_eq!(reg_tiles(128, 0.5), 2);
        assert_eq!(reg_tiles(128, 1.0), 4);
        assert_eq!(reg_tiles(32, 0.25), 0);
        assert_eq!(hybrid_tiles(GpuTiling::Hybrid, 128, None), vec![1, 2, 3, 4]);
        assert_eq!(hybrid_tiles(GpuTiling::Hybrid, 64, Some(0.5)), vec![1]);
        assert_eq!(hybrid_tiles(GpuTiling::Warp, 64, None), vec![0]);
        // Forced hybrid where no candidate qualifies: one tile per warp.
        let forced = GpuSpec {
            gpu: h100,
            scheme: Some(GpuTiling::Hybrid),
            block: Some([16, 8]),
            reg_fraction: None,
        };
        let c = choose(&blur(), &forced, Some(&[8, 128]), None).expect("a candidate");
        assert_eq!(c.scheme, GpuTiling::Warp);
    }

    #[test]
    fn narrow_tiles_cost_more_transactions() {
        let h100 = gpu("sm_90").expect("sm_90");
        let wide = cost(&blur(), h100, GpuTiling::Block, &[4, 128], [32, 8], None).expect("runs");
        let narrow = cost(&blur(), h100, GpuTiling::Block, &[64, 8], [32, 8], None).expect("runs");
        assert!(
            narrow.transactions > wide.transactions,
            "{narrow:?} {wide:?}"
        );
    }

    #[test]
    fn the_choice_is_the_cheapest_candidate_and_respects_the_options() {
        let h100 = gpu("sm_90").expect("sm_90");
        let auto = GpuSpec {
            gpu: h100,
            scheme: None,
            block: None,
            reg_fraction: None,
        };
        let best = choose(&blur(), &auto, None, None).expect("a candidate");
        for scheme in [GpuTiling::Block, GpuTiling::Warp] {
            for block in BLOCKS {
                for sizes in [[1, 32], [4, 64], [8, 32], [16, 128]] {
                    if let Some(c) = cost(&blur(), h100, scheme, &sizes, block, None) {
                        assert!(best.cost <= c.cost, "{best:?} costs more than {c:?}");
                    }
                }
            }
        }
        let fixed = GpuSpec {
            gpu: h100,
            scheme: Some(GpuTiling::Warp),
            block: Some([64, 2]),
            reg_fraction: None,
        };
        let c = choose(&blur(), &fixed, Some(&[4, 32]), None).expect("a candidate");
        assert_eq!((c.scheme, c.sizes.clone()), (GpuTiling::Warp, vec![4, 32]));
        // 128 threads are four warps: lanes 32 wide, warps along y.
        assert_eq!(c.block, [32, 4]);
    }

    #[test]
    fn lanes_spread_the_innermost_two_loops() {
        assert_eq!(lanes_iterations(&[10, 34], 32, 8), 2.0 * 2.0);
        assert_eq!(lanes_iterations(&[3, 10, 34], 32, 8), 3.0 * 4.0);
        assert_eq!(lanes_iterations(&[300], 32, 8), 2.0);
        assert_eq!(warp_x(64), 32);
        assert_eq!(warp_x(24), 16);
    }
}
