//! The CPU cost of a group of stages and its tile sizes (Jangda & Bondhugula,
//! Jangda & Bondhugula, TOPLAS'20, §4, Algorithm 2): COST, COSTFORCACHESIZE and COMPUTETILESIZES.
//!
//! What it reads is a group's geometry (`cost/geometry.rs`: scales,
//! overlaps, extents and reuse, read from the pipeline graph by arithmetic).
//!
//! The cost weighs the four criteria of eq. 2: cache reuse (the bytes a
//! tile loads and stores, live-in and live-out, plus what its scratchpads
//! spill past the cache they were sized for), redundant computation (the
//! points a tile computes, its own and recomputed, each weighted by its
//! statement's reads), load balance over the cores (the idle fraction of
//! the last wave of tasks: the tiles of the outermost tile loop, the
//! parallel one) and the spread of the stages' extents. The
//! paper adds per-tile ratios with weights fitted to its Xeon (Table 2) and
//! sums them over the groups; the units of its terms are not given, and
//! read as bytes, points and fractions they make every grouping of more
//! than one stage lose (its -w2 term even pays for splitting). Here the
//! terms are combined into an estimate of the region's time, so that costs
//! add up over groups: `tiles * (w1*bytes + w3*ops) * (1 + w2*idle/(1 -
//! idle)) * (1 + w4*spread)`, with [`CALIBRATED`] weights (bytes and reads
//! of one tile; with `w2 = 1` the idle factor is the makespan's: the last
//! wave of tasks leaves a fraction `idle` of the cores unused;
//! `--cost-weights` sets them). Where the sizes leave the parallel loop
//! fewer tiles than cores, COSTFORCACHESIZE also costs that loop cut into
//! one tile per core (not in the paper: local-laplacian's 3-D groups had
//! an outer tile loop of 2 tiles, for 16 cores), and where they cut a short
//! constant outermost loop into unequal tiles, that loop in one tile with
//! the next one parallel (not in the paper either: unsharp-mask's 3 channels
//! in tiles of 2 left one of 2 cores idle a quarter of the time). A group in
//! which no statement reads another's values keeps its rows whole instead
//! of cutting them at INNERMOSTTILESIZE ([`innermost_size`]).
//!
//! Not in the paper either: a tile's bytes come in memory streams, one per
//! row segment of each array it loads or stores (at least one per page),
//! and each start costs [`STREAM_START`] bytes (`w1*(bytes + 512*streams)`),
//! the prefetcher's misses before it follows the stream. The paper's
//! INNERMOSTTILESIZE of 256 cuts rows into 1 KiB streams of `float`; COST
//! also costs tiles of whole rows sized for L2, and takes them where they
//! cost less (their overlap along the outer loops against the streams they
//! save): multiscale-interp's down-sampling pairs, the model's tiles
//! of all x 4 x 256 against whole rows, ran 1.2-1.3x slower than the
//! default's loops at one thread.

use crate::transform::align::gcd;
use crate::transform::pipeline::LARGEST_EXTENT;
use std::collections::BTreeMap;

mod geometry;
pub use geometry::{geometry, GeoStmt, Geometry};

/// What the cost model knows of the machine (`--cache-sizes`, `--cores`).
#[derive(Clone, Debug, PartialEq)]
pub struct Machine {
    /// L1 data cache bytes (per core).
    pub l1: i64,
    /// L2 cache bytes (per core).
    pub l2: i64,
    /// Cores the tiles run on.
    pub cores: i64,
    /// The innermost tile size (INNERMOSTTILESIZE: prefetching and
    /// vectorisation want long innermost rows; 256 on the paper's Xeon).
    pub innermost: i64,
}

impl Machine {
    /// This machine: cache sizes from `/sys/devices/system/cpu/cpu0/cache`
    /// (32 KiB and 1 MiB where it cannot be read), the cores this process
    /// may run on.
    pub fn detect() -> Machine {
        let mut l1 = None;
        let mut l2 = None;
        for i in 0..8 {
            let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
            let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).ok();
            let (Some(level), Some(kind), Some(size)) = (read("level"), read("type"), read("size"))
            else {
                continue;
            };
            let bytes = parse_size(size.trim());
            match (level.trim(), kind.trim()) {
                ("1", "Data") | ("1", "Unified") => l1 = l1.or(bytes),
                ("2", _) => l2 = l2.or(bytes),
                _ => {}
            }
        }
        Machine {
            l1: l1.unwrap_or(32 << 10),
            l2: l2.unwrap_or(1 << 20),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get() as i64),
            innermost: 256,
        }
    }

    /// The machine in words, for `--explain`.
    pub fn describe(&self) -> String {
        format!(
            "L1 {} KiB, L2 {} KiB, {} core(s), innermost tile size {}",
            self.l1 >> 10,
            self.l2 >> 10,
            self.cores,
            self.innermost
        )
    }
}

/// `48K`, `2048K`, `1M`, `32768` as bytes.
pub fn parse_size(s: &str) -> Option<i64> {
    let s = s.trim();
    let (num, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => (&s[..i], s[i..].trim()),
        None => (s, ""),
    };
    let n: i64 = num.parse().ok()?;
    let mul = match unit.to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        _ => return None,
    };
    n.checked_mul(mul).filter(|v| *v > 0)
}

/// The weights of the cost (eq. 2, combined as in the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights {
    /// Per byte a tile loads or stores from memory.
    pub w1: f64,
    /// Per unit of idle fraction of the cores in the last wave of tasks (the
    /// outermost tile loop's tiles).
    pub w2: f64,
    /// Per read a tile performs computing its points (own and recomputed).
    pub w3: f64,
    /// Per unit of relative spread of the stages' extents.
    pub w4: f64,
}

/// The default weights, fitted on this project's benchmarks (bench/autotune.py).
pub const CALIBRATED: Weights = Weights {
    w1: 1.0,
    w2: 1.0,
    w3: 1.0,
    w4: 0.5,
};

/// Which cache a group's tiles were sized for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Tiles fit the L1 cache.
    L1,
    /// Tiles fit the L2 cache (their overlap in L1 tiles was more than their work).
    L2,
    /// The sizes were given (`--tile-sizes`).
    Given,
    /// Not tiled: the original loops, the outermost one parallel.
    Naive,
}

/// The cost of a group with its tile sizes, and its terms.
#[derive(Clone, Debug)]
pub struct Costed {
    /// The estimate (lower is better).
    pub cost: f64,
    /// Tile size per loop (scaled coordinates).
    pub sizes: Vec<i64>,
    /// The cache the tiles were sized for.
    pub level: Level,
    /// Bytes a tile loads and stores (live-in, live-out, spills).
    pub bytes: f64,
    /// Reads a tile performs computing its points.
    pub ops: f64,
    /// Of those, the reads of recomputed points.
    pub recomputed_ops: f64,
    /// Points a tile computes, its own and recomputed.
    pub computed: f64,
    /// Of those, the recomputed ones.
    pub overlap: f64,
    /// Tiles.
    pub tiles: i64,
    /// Idle fraction of the cores in the last wave of tasks (the outermost
    /// tile loop's tiles).
    pub idle: f64,
    /// Spread of the stages' extents.
    pub dim_diff: f64,
    /// Tiles sized for L2: the sizes of the tiles for L1 inside them
    /// (multi-level tiling, Algorithm 4), where smaller along some loop.
    pub inner: Option<Vec<i64>>,
    /// Memory streams a tile starts (see [`STREAM_START`]).
    pub streams: f64,
    /// Whether the tiles cut the innermost loop's rows, and why not.
    pub rows: Rows,
}

/// Whether a group's tiles cut the rows of its innermost loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rows {
    /// Cut at INNERMOSTTILESIZE (or the sizes given).
    Cut,
    /// Whole: no statement of the group reads another's values, so cut
    /// rows would buy no reuse ([`innermost_size`]).
    NoReuse,
    /// Whole: tiles of whole rows sized for L2 cost less than cut ones,
    /// their fewer memory streams outweighing their overlap ([`cost`]).
    Streams,
}

/// COST (Algorithm 2): tiles sized for L1, or for L2 when the L1 tiles'
/// overlap exceeds their work, with the L1 sizes as the sizes of inner
/// tiles (MULTILEVELCOST, Algorithm 4); at `given` sizes (innermost last,
/// aligned on the innermost loops) when the user gave them. The cost is the
/// outer tiles' (the inner ones reorder a tile's work, they add none).
/// Where those tiles cut the rows, tiles of whole rows sized for L2 (no
/// inner tiles) are a second candidate: the cheaper one is taken.
pub fn cost(geo: &Geometry, m: &Machine, w: &Weights, given: Option<&[i64]>) -> Costed {
    if let Some(sizes) = given {
        let sizes = aligned(sizes, geo.depth);
        return evaluate(geo, m, w, sizes, m.l2 as f64, Level::Given);
    }
    let innermost = innermost_size(geo, m);
    let mut best = cost_for_cache_size(geo, m, w, innermost, (m.l1, Level::L1));
    if best.overlap > best.computed - best.overlap {
        let l1 = best.sizes.clone();
        best = cost_for_cache_size(geo, m, w, innermost, (m.l2, Level::L2));
        if l1.iter().zip(&best.sizes).any(|(a, b)| a < b) {
            best.inner = Some(l1);
        }
    }
    if innermost > m.innermost {
        best.rows = Rows::NoReuse;
        return best;
    }
    // Rows cut at INNERMOSTTILESIZE against whole rows, tiles sized for L2.
    let row = dim_sizes(geo)[geo.depth - 1];
    if geo.depth >= 2 && row > best.sizes[geo.depth - 1] {
        let mut whole = cost_for_cache_size(geo, m, w, row, (m.l2, Level::L2));
        if whole.cost < best.cost {
            whole.rows = Rows::Streams;
            return whole;
        }
    }
    best
}

/// The cost of leaving a nest alone in its original loops (the naive
/// parallel schedule): the iterations of its outermost loop are the tasks
/// the cores share, each streams its data once (no spill: what a stencil
/// reuses stays in cache between neighbouring rows). Where constants bound
/// the outermost loop to fewer than [`SHORT_LOOP`] iterations and two loops
/// are inside it (the innermost one is vectorised), the tasks are the
/// iterations of the two outer loops (the back end's `collapse(2)`; that the
/// second loop carries no dependence is assumed).
pub fn naive(geo: &Geometry, m: &Machine, w: &Weights) -> Costed {
    let mut sizes = dim_sizes(geo);
    let outer = |d: usize| geo.stmts.iter().map(|s| s.scale[d]).max().unwrap_or(1);
    let short = geo.depth >= 3 && constant_outer(geo).is_some_and(|e| e < SHORT_LOOP);
    match short {
        // One tile spans the short loop; the next one is the parallel one.
        true => sizes[1] = outer(1),
        false => sizes[0] = outer(0),
    }
    evaluate(geo, m, w, sizes, f64::INFINITY, Level::Naive)
}

/// Loops of fewer iterations than this, a constant number, are short: run
/// alone as a parallel loop they leave cores idle (3 colour channels on 2
/// cores: one core computes two channels while the other computes one; on
/// 16 cores, 13 idle). The C back end runs a short parallel loop and the
/// independent loop inside it as one parallel loop (`collapse(2)`,
/// `backend::tree::short_parallel_over_independent`); [`naive`] costs that.
pub const SHORT_LOOP: i64 = 64;

/// A tile size larger than any extent: one tile spans the loop.
pub const SPAN: i64 = i64::MAX / 4;

/// The cost of starting a memory stream, in bytes: the misses a hardware
/// prefetcher takes at full latency before it follows a run of addresses
/// (about eight cache lines). A tile starts one per row segment of each
/// array it loads or stores, and one per [`PAGE`] of a run longer than a
/// page (prefetchers stop at page boundaries). Tiles of 256-element rows
/// start a stream every 1 KiB of `float`; tiles of whole rows, one per
/// page: multiscale-interp's first group (a copy with a ghost ring and a
/// product, 4 channels of 2050 x 3074 `float`) ran 1.2-1.5x faster in tiles
/// of 8 whole rows than in tiles of 4 x 256, and camera-pipeline's colour
/// correction 1.6x faster in whole rows than in 21 x 256 tiles (1 thread).
pub const STREAM_START: f64 = 512.0;

/// Bytes of a memory page (the span of one prefetch stream at most).
pub const PAGE: f64 = 4096.0;

/// The streams a tile starts over a box of `count` elements per loop of
/// `bytes` each, in an array of `extent` elements per loop: one per
/// contiguous run (the innermost loops the box spans whole, and the first
/// it cuts) and at least one per page.
fn stream_starts(count: &[f64], extent: &[f64], bytes: f64) -> f64 {
    let points: f64 = count.iter().product();
    let mut run = 1.0;
    for (c, e) in count.iter().zip(extent).rev() {
        run *= c;
        if c < e {
            break;
        }
    }
    (points / run.max(1.0)).max(points * bytes / PAGE)
}

/// Given sizes aligned on the innermost loops; outer loops without one span
/// their loop ([`SPAN`]).
pub(crate) fn aligned(sizes: &[i64], depth: usize) -> Vec<i64> {
    (0..depth)
        .map(|d| {
            let from_inner = depth - d;
            match from_inner <= sizes.len() {
                true => sizes[sizes.len() - from_inner],
                false => SPAN,
            }
        })
        .collect()
}

/// Bytes of all the group's data: every statement's values over its domain.
fn total_footprint(geo: &Geometry) -> f64 {
    geo.stmts
        .iter()
        .map(|s| {
            let pts: f64 = s
                .extent
                .iter()
                .zip(&s.scale)
                .map(|(e, a)| e.map_or(1.0, |e| (e / a) as f64))
                .product();
            pts * s.bytes as f64
        })
        .sum()
}

/// The bytes a tile may occupy: the cache, or the group's data spread over
/// the cores when that is less.
fn tile_footprint(geo: &Geometry, cache: i64, cores: i64) -> f64 {
    (total_footprint(geo) / cores.max(1) as f64).min(cache as f64)
}

/// COSTFORCACHESIZE: sizes for tiles of a cache of `cache` bytes with
/// innermost rows of `innermost` ([`innermost_size`]), and their cost.
fn cost_for_cache_size(
    geo: &Geometry,
    m: &Machine,
    w: &Weights,
    innermost: i64,
    (cache, level): (i64, Level),
) -> Costed {
    let footprint = tile_footprint(geo, cache, m.cores);
    let sizes = compute_tile_sizes(geo, footprint, innermost);
    // Fewer tasks than cores along the parallel loop: the outermost loop
    // cut into one tile per core is a candidate too; so is a short outermost
    // loop left whole, the next one parallel.
    let candidates = [
        split_for_cores(geo, &sizes, m.cores),
        span_short_outer(geo, &sizes),
    ];
    let mut best = evaluate(geo, m, w, sizes, cache as f64, level);
    for s in candidates.into_iter().flatten() {
        let other = evaluate(geo, m, w, s, cache as f64, level);
        if other.cost < best.cost {
            best = other;
        }
    }
    best
}

/// The innermost tile size of the group: INNERMOSTTILESIZE, or the whole
/// innermost loop where no statement of the group reads another's values
/// and an outer loop holds the parallel tasks (a 1-D group's tiles along
/// its only loop are its tasks). Such a group's tiles keep no values for a
/// consumer, so cutting its rows buys no reuse; its only reuse (inputs
/// several statements read) is within a point or its neighbours whatever
/// the tiles. Cut rows cost: a tile's row segments are separate memory
/// streams, each a fresh start for the hardware prefetcher (camera-pipeline's colour correction, 3 stages
/// over rows of 2592 `int16_t`, alone at one thread: original loops 4.85
/// ms, tiles of 21 x 256 7.46 ms, 21 x 1024 6.60, whole rows 4.65).
fn innermost_size(geo: &Geometry, m: &Machine) -> i64 {
    match geo.depth < 2 || geo.stmts.iter().any(|s| s.consumed) {
        true => m.innermost,
        false => dim_sizes(geo)[geo.depth - 1].max(m.innermost),
    }
}

/// The outermost loop's extent (the largest over the statements) where
/// constants bound it in every statement; `None` where parameters bound it.
fn constant_outer(geo: &Geometry) -> Option<i64> {
    let fixed = geo
        .stmts
        .iter()
        .all(|s| s.fixed[0] && s.extent[0].is_some());
    fixed.then(|| dim_sizes(geo)[0])
}

/// `sizes` with the outermost loop in one tile (its extent) and the next
/// loop's size cut by as much as that grows the tile, where constants bound
/// the outermost loop in every statement and `sizes` cut it into unequal
/// tiles; `None` otherwise. Unequal tiles of a short loop are unequal tasks
/// (unsharp-mask's 3 channels in tiles of 2: one core computes two channels
/// while the other computes one), which the parallel loop after it does not
/// have.
fn span_short_outer(geo: &Geometry, sizes: &[i64]) -> Option<Vec<i64>> {
    let extent = constant_outer(geo)?;
    if geo.depth < 2 || sizes[0] >= extent || extent % sizes[0] == 0 {
        return None;
    }
    let lcm = scale_lcm(geo)[1];
    let next = (sizes[1] as f64 * sizes[0] as f64 / extent as f64) as i64;
    let mut s = sizes.to_vec();
    s[0] = extent;
    s[1] = (next / lcm).max(1) * lcm;
    Some(s)
}

/// The tasks the cores share: the tiles of the outermost tile loop with more
/// than one (the parallel loop: isl generates no loop for a tile loop of
/// one iteration), or 1.
fn tasks(dims: &[i64], sizes: &[i64]) -> i64 {
    dims.iter()
        .zip(sizes)
        .map(|(d, s)| (d + s - 1) / (*s).max(1))
        .find(|t| *t > 1)
        .unwrap_or(1)
}

/// `sizes` with the outermost loop cut into as many tiles as there are
/// cores (rounded down to a multiple of its scales), when `sizes` give the
/// outermost tile loop (the parallel one) fewer tiles than cores; `None`
/// otherwise, or when it cannot be cut finer.
fn split_for_cores(geo: &Geometry, sizes: &[i64], cores: i64) -> Option<Vec<i64>> {
    let (dims, lcm) = (dim_sizes(geo), scale_lcm(geo));
    if tasks(&dims, sizes) >= cores {
        return None;
    }
    let per_core = (dims[0] / cores.max(1) / lcm[0]).max(1) * lcm[0];
    (per_core < sizes[0]).then(|| {
        let mut s = sizes.to_vec();
        s[0] = per_core;
        s
    })
}

/// Largest extent per loop over the statements (scaled).
pub(crate) fn dim_sizes(geo: &Geometry) -> Vec<i64> {
    (0..geo.depth)
        .map(|d| {
            geo.stmts
                .iter()
                .filter_map(|s| s.extent[d])
                .max()
                .unwrap_or(LARGEST_EXTENT)
        })
        .collect()
}

/// Least common multiple of the scales along each loop: tile sizes are
/// multiples of it (a scaled stage's tile covers whole iterations).
pub(crate) fn scale_lcm(geo: &Geometry) -> Vec<i64> {
    (0..geo.depth)
        .map(|d| {
            geo.stmts.iter().fold(1, |l, s| {
                let a = s.scale[d].max(1);
                l / gcd(l, a) * a
            })
        })
        .collect()
}

/// COMPUTETILESIZES: the innermost loop gets `innermost` (or its extent);
/// the others share the rest of a buffer's volume in proportion to their
/// reuse. Sizes are rounded down to multiples of the loop's scales.
pub fn compute_tile_sizes(geo: &Geometry, footprint: f64, innermost: i64) -> Vec<i64> {
    let n = geo.depth;
    let buffers = geo.stmts.len().max(1) as f64;
    let bytes = geo.stmts.iter().map(|s| s.bytes as f64).sum::<f64>() / buffers;
    let tile_vol = footprint / buffers / bytes.max(1.0);
    let dims = dim_sizes(geo);
    let lcm = scale_lcm(geo);
    let round = |v: f64, d: usize| -> i64 {
        let v = v.min(dims[d] as f64).max(1.0) as i64;
        (v / lcm[d]).max(1) * lcm[d]
    };
    let mut sizes = vec![0; n];
    sizes[n - 1] = round(innermost as f64, n - 1);
    if n == 1 {
        return sizes;
    }
    let max_reuse = geo.reuse[..n - 1].iter().cloned().fold(f64::MIN, f64::max);
    let mut tau = tile_vol / sizes[n - 1] as f64;
    for r in &geo.reuse[..n - 1] {
        tau /= r / max_reuse;
    }
    let tau = tau.max(1.0).powf(1.0 / (n - 1) as f64);
    for (d, r) in geo.reuse[..n - 1].iter().enumerate() {
        sizes[d] = round(tau * r / max_reuse, d);
    }
    sizes
}

/// The cost of the group's tiles of `sizes`, sized for a cache of
/// `cache` bytes.
fn evaluate(
    geo: &Geometry,
    m: &Machine,
    w: &Weights,
    sizes: Vec<i64>,
    cache: f64,
    level: Level,
) -> Costed {
    let sizes = spanning(geo, sizes);
    let mut computed = 0.0;
    let mut own_total = 0.0;
    let mut ops = 0.0;
    let mut own_ops = 0.0;
    let mut live_out = 0.0;
    let mut scratch = 0.0;
    let mut inputs: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    let mut streams = 0.0;
    for s in &geo.stmts {
        let (mut comps, mut owns, mut exts) = (vec![], vec![], vec![]);
        for (d, size) in sizes.iter().enumerate() {
            let ext = s.extent[d].unwrap_or(*size);
            let tile = (*size).min(ext);
            let comp = match tile >= ext {
                true => ext,
                false => (tile + s.left[d] + s.right[d]).min(ext),
            };
            let a = s.scale[d] as f64;
            comps.push((comp as f64 / a).max(1.0));
            owns.push((tile as f64 / a).max(1.0));
            exts.push((ext as f64 / a).max(1.0));
        }
        let pts: f64 = comps.iter().product();
        let own: f64 = owns.iter().product();
        let bytes = s.bytes as f64;
        computed += pts;
        own_total += own;
        ops += pts * s.ops as f64;
        own_ops += own * s.ops as f64;
        match s.live_out {
            true => {
                live_out += own * bytes;
                streams += stream_starts(&owns, &exts, bytes);
            }
            false => scratch += pts * bytes,
        }
        // An input is read as the box of its widest reader (its bytes and
        // streams).
        let read = (pts * bytes, stream_starts(&comps, &exts, bytes));
        for d in &s.inputs {
            let e = inputs.entry(d.as_str()).or_default();
            *e = (e.0.max(read.0), e.1.max(read.1));
        }
    }
    let live_in: f64 = inputs.values().map(|e| e.0).sum();
    streams += inputs.values().map(|e| e.1).sum::<f64>();
    // Scratchpads past the cache go to memory and come back.
    let spill = 2.0 * (scratch + live_in - cache).max(0.0);
    let bytes = live_in + live_out + spill;
    let dims = dim_sizes(geo);
    let tiles: i64 = (0..geo.depth)
        .map(|d| (dims[d] + sizes[d] - 1) / sizes[d].max(1))
        .fold(1i64, |t, n| t.saturating_mul(n.max(1)));
    let tasks = tasks(&dims, &sizes);
    let cores = m.cores.max(1);
    let waves = (tasks.max(1) + cores - 1) / cores;
    let idle = (waves * cores - tasks.max(1)) as f64 / (waves * cores) as f64;
    let dim_diff = dim_spread(geo);
    // With a fraction `idle` of the cores idle in the last wave, the tiles
    // take 1 / (1 - idle) times as long as their work spread evenly.
    let cost = tiles as f64
        * (w.w1 * (bytes + STREAM_START * streams) + w.w3 * ops)
        * (1.0 + w.w2 * idle / (1.0 - idle))
        * (1.0 + w.w4 * dim_diff);
    Costed {
        cost,
        sizes,
        level,
        bytes,
        ops,
        recomputed_ops: (ops - own_ops).max(0.0),
        computed,
        overlap: (computed - own_total).max(0.0),
        tiles,
        idle,
        dim_diff,
        inner: None,
        streams,
        rows: Rows::Cut,
    }
}

/// `sizes` with a size that covers a loop constants bound in every
/// statement made one tile spanning that loop (`SPAN`). The tiles of a loop
/// start at 0 (after alignment), not at its lower bound: tiles of a loop's
/// exact extent would cut it in two where it starts past 0 (bilateral-grid's
/// 11 bins from 2 to 12 ran in tiles of 9 and 2).
pub(crate) fn spanning(geo: &Geometry, mut sizes: Vec<i64>) -> Vec<i64> {
    for (d, size) in sizes.iter_mut().enumerate() {
        let covered = geo
            .stmts
            .iter()
            .all(|s| s.fixed[d] && s.extent[d].is_some_and(|e| e <= *size));
        if covered {
            *size = SPAN;
        }
    }
    sizes
}

/// The relative standard deviation of the statements' extents, summed over
/// the loops (0 when every stage spans the same box).
fn dim_spread(geo: &Geometry) -> f64 {
    (0..geo.depth)
        .map(|d| {
            let v: Vec<f64> = geo
                .stmts
                .iter()
                .filter_map(|s| s.extent[d])
                .map(|e| e as f64)
                .collect();
            if v.len() < 2 {
                return 0.0;
            }
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / v.len() as f64;
            match mean > 0.0 {
                true => var.sqrt() / mean,
                false => 0.0,
            }
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stmt(left: i64, right: i64, extent: i64, live_out: bool) -> GeoStmt {
        GeoStmt {
            scale: vec![1, 1],
            left: vec![left, left],
            right: vec![right, right],
            extent: vec![Some(extent), Some(extent)],
            fixed: vec![false, false],
            bytes: 4,
            live_out,
            inputs: vec![],
            ops: 1,
            consumed: !live_out,
        }
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("48K"), Some(48 << 10));
        assert_eq!(parse_size("2048K"), Some(2 << 20));
        assert_eq!(parse_size("1M"), Some(1 << 20));
        assert_eq!(parse_size("32768"), Some(32768));
        assert_eq!(parse_size("1G"), None);
        assert_eq!(parse_size("0"), None);
    }

    #[test]
    fn tile_sizes_fill_the_footprint_with_innermost_rows() {
        // Two float buffers, equal reuse: 64 KiB / 2 / 4 = 8192 points per
        // buffer, 256 innermost, 32 rows.
        let geo = Geometry {
            depth: 2,
            stmts: vec![stmt(1, 1, 4096, false), stmt(0, 0, 4096, true)],
            reuse: vec![3.0, 3.0],
        };
        assert_eq!(compute_tile_sizes(&geo, 65536.0, 256), vec![32, 256]);
        // A small image: the sizes stop at its extents.
        let small = Geometry {
            depth: 2,
            stmts: vec![stmt(0, 0, 100, true)],
            reuse: vec![1.0, 1.0],
        };
        assert_eq!(compute_tile_sizes(&small, 1e9, 256), vec![100, 100]);
    }

    /// 32 KiB L1, 1 MiB L2, `cores` cores, innermost tiles of `innermost`.
    fn machine(cores: i64, innermost: i64) -> Machine {
        Machine {
            l1: 32 << 10,
            l2: 1 << 20,
            cores,
            innermost,
        }
    }

    #[test]
    fn cost_counts_traffic_work_and_idle_cores() {
        let mut producer = stmt(1, 1, 1024, false);
        producer.inputs = vec!["in".into()];
        let geo = Geometry {
            depth: 2,
            stmts: vec![producer, stmt(0, 0, 1024, true)],
            reuse: vec![3.0, 3.0],
        };
        let m = machine(4, 256);
        let c = evaluate(&geo, &m, &CALIBRATED, vec![32, 256], 1e9, Level::Given);
        // The producer computes 34 x 258 points, the consumer 32 x 256.
        assert_eq!(c.computed, (34.0 * 258.0) + 32.0 * 256.0);
        assert_eq!(c.overlap, 34.0 * 258.0 - 32.0 * 256.0);
        assert_eq!(c.tiles, 32 * 4);
        // 128 tiles on 4 cores: the last wave is full.
        assert_eq!(c.idle, 0.0);
        // The input over the producer's box in, the consumer's tile out.
        assert_eq!(c.bytes, 4.0 * (34.0 * 258.0 + 32.0 * 256.0));
        // A stream per row segment: 34 of the input, 32 of the output.
        assert_eq!(c.streams, 34.0 + 32.0);
        assert_eq!(c.cost, 128.0 * (c.bytes + STREAM_START * c.streams + c.ops));
        // Larger tiles recompute less of their work.
        let big = evaluate(&geo, &m, &CALIBRATED, vec![128, 256], 1e9, Level::Given);
        assert!(big.overlap / big.computed < c.overlap / c.computed);
        // 5 tiles on 4 cores: 3 of the 8 slots of two waves idle.
        let five = evaluate(&geo, &m, &CALIBRATED, vec![205, 1024], 1e9, Level::Given);
        assert_eq!(five.tiles, 5);
        assert_eq!(five.idle, 3.0 / 8.0);
        // The outermost tile loop of one tile is not generated: the 5
        // tiles of the next one are the tasks.
        let inner = evaluate(&geo, &m, &CALIBRATED, vec![1024, 205], 1e9, Level::Given);
        assert_eq!(inner.tiles, 5);
        assert_eq!(inner.idle, 3.0 / 8.0);
        // Only the outermost tile loop with several tiles is parallel: 2
        // tiles along it are 2 tasks, whatever the inner loops hold.
        let two = evaluate(&geo, &m, &CALIBRATED, vec![512, 256], 1e9, Level::Given);
        assert_eq!(two.tiles, 8);
        assert_eq!(two.idle, 2.0 / 4.0);
        // A scratchpad past the cache spills.
        let small = evaluate(&geo, &m, &CALIBRATED, vec![32, 256], 1024.0, Level::Given);
        assert!(small.bytes > c.bytes);
    }

    #[test]
    fn a_size_covering_a_constant_loop_spans_it() {
        // 11 bins bounded by constants in both statements: a tile of 11 or
        // more is one tile spanning the loop (its tiles start at 0, not at
        // the loop's lower bound); a parametric loop keeps its size.
        let mut a = stmt(1, 1, 1024, false);
        let mut b = stmt(0, 0, 1024, true);
        for s in [&mut a, &mut b] {
            s.extent[1] = Some(11);
            s.fixed[1] = true;
        }
        let geo = Geometry {
            depth: 2,
            stmts: vec![a, b],
            reuse: vec![3.0, 3.0],
        };
        let m = machine(4, 256);
        let c = evaluate(&geo, &m, &CALIBRATED, vec![1024, 16], 1e9, Level::Given);
        assert_eq!(c.sizes, vec![1024, SPAN]);
        assert_eq!(c.tiles, 1);
        let c = evaluate(&geo, &m, &CALIBRATED, vec![32, 8], 1e9, Level::Given);
        assert_eq!(c.sizes, vec![32, 8]);
        // One statement's loop depends on the parameters: no span.
        let mut geo = geo;
        geo.stmts[0].fixed[1] = false;
        let c = evaluate(&geo, &m, &CALIBRATED, vec![32, 16], 1e9, Level::Given);
        assert_eq!(c.sizes, vec![32, 16]);
    }

    /// An outer loop of 2 tiles on 4 cores: half the machine idle (the
    /// makespan doubles); cut into one tile per core, every core works, and
    /// that costs less.
    #[test]
    fn too_few_tasks_cut_the_parallel_loop() {
        let mut s = stmt(0, 0, 4096, true);
        s.extent = vec![Some(4), Some(4096)];
        let geo = Geometry {
            depth: 2,
            stmts: vec![s],
            reuse: vec![1.0, 1.0],
        };
        let m = machine(4, 4096);
        let halves = evaluate(&geo, &m, &CALIBRATED, vec![2, 4096], 1e9, Level::Given);
        assert_eq!(halves.idle, 0.5);
        assert_eq!(
            halves.cost,
            halves.tiles as f64 * (halves.bytes + STREAM_START * halves.streams + halves.ops) * 2.0
        );
        assert_eq!(split_for_cores(&geo, &[2, 4096], 4), Some(vec![1, 4096]));
        assert_eq!(split_for_cores(&geo, &[1, 4096], 4), None);
        let split = evaluate(&geo, &m, &CALIBRATED, vec![1, 4096], 1e9, Level::Given);
        assert_eq!(split.idle, 0.0);
        assert!(split.cost < halves.cost);
    }

    /// One pointwise statement over 3 channels (a constant loop) of 2048 x
    /// 2048 points.
    fn three_channels() -> Geometry {
        let mut s = stmt(0, 0, 4096, true);
        s.extent = vec![Some(3), Some(2048), Some(2048)];
        s.fixed = vec![true, false, false];
        s.scale = vec![1, 1, 1];
        s.left = vec![0, 0, 0];
        s.right = vec![0, 0, 0];
        Geometry {
            depth: 3,
            stmts: vec![s],
            reuse: vec![1.0, 1.0, 1.0],
        }
    }

    /// The original loops of a nest over 3 channels: the rows of every
    /// channel are the tasks (the back end's `collapse(2)`), not the 3
    /// channels; a 2-D nest's short loop (its inner loop vectorised) and a
    /// loop the parameters bound keep their own iterations as the tasks.
    #[test]
    fn the_original_loops_of_a_short_loop_share_its_rows() {
        let geo = three_channels();
        let m = machine(2, 256);
        let rows = naive(&geo, &m, &CALIBRATED);
        assert_eq!(rows.tiles, 2048);
        assert_eq!(rows.idle, 0.0);
        let mut free = geo.clone();
        free.stmts[0].fixed[0] = false;
        let channels = naive(&free, &m, &CALIBRATED);
        assert_eq!(channels.tiles, 3);
        assert_eq!(channels.idle, 0.25);
        assert!(rows.cost < channels.cost);
        let mut flat = stmt(0, 0, 4096, true);
        flat.extent = vec![Some(3), Some(2048)];
        flat.fixed = vec![true, false];
        let flat = Geometry {
            depth: 2,
            stmts: vec![flat],
            reuse: vec![1.0, 1.0],
        };
        assert_eq!(naive(&flat, &m, &CALIBRATED).tiles, 3);
    }

    /// Three stages sharing their inputs, none reading another's values:
    /// rows whole (4096 points, the tiles' rows under the L1 footprint); a
    /// producer and its consumer: INNERMOSTTILESIZE rows first (whole rows
    /// of 4096 are a second candidate of [`cost`], and cost less); rows
    /// shorter than it: the whole row either way; a 1-D nest: its tiles are
    /// its tasks, cut at INNERMOSTTILESIZE.
    #[test]
    fn rows_stay_whole_where_no_stage_consumes_another() {
        let m = machine(2, 256);
        let sharing = Geometry {
            depth: 2,
            stmts: vec![stmt(0, 0, 4096, true); 3],
            reuse: vec![1.0, 1.0],
        };
        assert_eq!(innermost_size(&sharing, &m), 4096);
        let whole = cost(&sharing, &m, &CALIBRATED, None);
        assert_eq!(whole.sizes[1], 4096);
        assert_eq!(whole.rows, Rows::NoReuse);
        let chain = Geometry {
            depth: 2,
            stmts: vec![stmt(1, 1, 4096, false), stmt(0, 0, 4096, true)],
            reuse: vec![3.0, 3.0],
        };
        assert_eq!(innermost_size(&chain, &m), 256);
        let cut = cost(&chain, &m, &CALIBRATED, None);
        assert_eq!(cut.sizes[1], 4096);
        assert_eq!(cut.rows, Rows::Streams);
        let short = Geometry {
            depth: 2,
            stmts: vec![stmt(0, 0, 100, true)],
            reuse: vec![1.0, 1.0],
        };
        assert_eq!(innermost_size(&short, &m), 256);
        assert_eq!(cost(&short, &m, &CALIBRATED, None).sizes[1], 100);
        let mut line = stmt(0, 0, 4096, true);
        line.extent = vec![Some(4096)];
        let line = Geometry {
            depth: 1,
            stmts: vec![line],
            reuse: vec![1.0],
        };
        assert_eq!(innermost_size(&line, &m), 256);
    }

    /// A stream per row segment a tile loads or stores, at least one per
    /// page: 4 rows of 256 floats are 4 streams; 4 whole rows of 4096 are
    /// one run of 64 KiB, 16 pages.
    #[test]
    fn streams_start_per_row_segment_and_page() {
        let extent = [4096.0, 4096.0];
        assert_eq!(stream_starts(&[4.0, 256.0], &extent, 4.0), 4.0);
        assert_eq!(stream_starts(&[4.0, 4096.0], &extent, 4.0), 16.0);
        assert_eq!(stream_starts(&[4096.0, 4096.0], &extent, 1.0), 4096.0);
        // A box cutting the outer of three loops: one run per outer slice.
        let e3 = [8.0, 64.0, 64.0];
        assert_eq!(stream_starts(&[2.0, 64.0, 64.0], &e3, 4.0), 2.0 * 4.0);
        assert_eq!(stream_starts(&[2.0, 3.0, 64.0], &e3, 4.0), 2.0);
    }

    /// A producer and its consumer over rows of 4096 floats: tiles of whole
    /// rows sized for L2 start fewer streams and recompute less than tiles
    /// of 256-element rows sized for L1, and cost less. Over rows of 65536,
    /// an L2 tile holds 2 whole rows (with the producer's halo, 4): cut rows
    /// recompute less and win.
    #[test]
    fn rows_stay_whole_where_fewer_streams_pay() {
        let m = machine(2, 256);
        let chain = |row: i64| {
            let mut p = stmt(1, 1, 4096, false);
            let mut c = stmt(0, 0, 4096, true);
            p.inputs = vec!["in".into()];
            p.extent[1] = Some(row);
            c.extent[1] = Some(row);
            Geometry {
                depth: 2,
                stmts: vec![p, c],
                reuse: vec![3.0, 3.0],
            }
        };
        let geo = chain(4096);
        let whole = cost(&geo, &m, &CALIBRATED, None);
        assert_eq!(
            (whole.sizes[1], whole.rows, whole.level),
            (4096, Rows::Streams, Level::L2)
        );
        let cut = cost_for_cache_size(&geo, &m, &CALIBRATED, 256, (m.l1, Level::L1));
        assert_eq!(cut.sizes[1], 256);
        assert!(whole.streams / whole.computed < cut.streams / cut.computed);
        assert!(whole.cost < cut.cost);
        let long = cost(&chain(65536), &m, &CALIBRATED, None);
        assert_eq!((long.sizes[1], long.rows), (256, Rows::Cut));
    }

    /// 3 channels in tiles of 2 on 2 cores: one core computes two channels,
    /// the other one (the cost counts the short tile as a whole one). The
    /// channels in one tile, the rows parallel, cost less; tiles of one
    /// channel divide the loop and get no such candidate.
    #[test]
    fn unequal_tiles_of_a_short_loop_span_it() {
        let geo = three_channels();
        let m = machine(2, 256);
        assert_eq!(span_short_outer(&geo, &[2, 4, 256]), Some(vec![3, 2, 256]));
        assert_eq!(span_short_outer(&geo, &[1, 4, 256]), None);
        assert_eq!(span_short_outer(&geo, &[3, 4, 256]), None);
        let pairs = evaluate(&geo, &m, &CALIBRATED, vec![2, 4, 256], 1e9, Level::Given);
        let whole = evaluate(&geo, &m, &CALIBRATED, vec![3, 2, 256], 1e9, Level::Given);
        assert_eq!(whole.sizes[0], SPAN);
        assert!(whole.cost < pairs.cost);
        // A loop the parameters bound is not spanned.
        let mut free = geo.clone();
        free.stmts[0].fixed[0] = false;
        assert_eq!(span_short_outer(&free, &[2, 4, 256]), None);
    }
}
