//! The CUDA target: a region's loop tree mapped onto the GPU
//! ([`map`]: host loops, kernels, their iterations spread over blocks and
//! threads), the region's data placed in device buffers ([`device`]), and
//! both printed ([`print`]): the kernels as file-scope definitions, the
//! host code in place of the region. The user's file around the regions is
//! kept; the front end's C++ fixes (`frontend::cxx`) make it build with
//! nvcc. Launches go through `FT_LAUNCH`, the seam a test harness replaces
//! (`testsuite/cuda/emulate.h` runs kernels on the CPU).

pub mod device;
pub mod map;
pub mod print;

use print::KernelReport;

/// Threads per block along `x` and `y` when `--block-sizes` is not given: a
/// warp along `x`, 256 threads in all (a loop spread along `x` alone gets
/// all 256).
pub const DEFAULT_BLOCK: [u32; 2] = [32, 8];

/// Bytes of static shared memory a thread block may declare: the
/// overlapped tiles' scratchpads must fit (the storage plan is made with
/// this limit where flextile's C output uses the stack's).
pub const SHARED_BYTES: u64 = 48 * 1024;

/// Overlapped tile sizes when `--tile-sizes` is not given, for `depth`
/// loops: 32 along the innermost (a warp's width), 8 along the next, 4
/// along the others, so that a tile's scratchpads fit shared memory
/// ([`SHARED_BYTES`]) for the usual few stages of doubles.
pub fn default_tile_sizes(depth: usize) -> Vec<i64> {
    (0..depth)
        .map(|k| match depth - 1 - k {
            0 => 32,
            1 => 8,
            _ => 4,
        })
        .collect()
}

/// The `--report` lines of the kernels of the region at `place` (`file:line`).
pub fn report(place: &str, reports: &[KernelReport]) -> String {
    let mut s = format!("{place}: CUDA, {} kernel(s)\n", reports.len());
    for r in reports {
        let how = match r.spread {
            map::Spread::Single => "one thread",
            map::Spread::Threads1 => "parallel loop over x",
            map::Spread::Threads2 => "loops over y and x",
            map::Spread::Inner2 => "inner two loops over y and x, the outer one per thread",
            map::Spread::Blocks1 => "overlapped tiles over blocks (x), stages over threads",
            map::Spread::Blocks2 => "overlapped tiles over blocks (y, x), stages over threads",
        };
        let shared = r
            .shared
            .map_or("unknown".to_string(), |b| format!("{b} bytes"));
        s.push_str(&format!(
            "  {}: {how}; block {}x{}; grid {} x {}; shared memory {shared} per block\n",
            r.name, r.block[0], r.block[1], r.grid[0], r.grid[1]
        ));
    }
    s
}
