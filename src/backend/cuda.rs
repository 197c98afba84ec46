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
pub mod registers;
pub mod shared;
pub mod tiles;

use crate::model::storage::StoragePlan;
pub use crate::transform::gpu_cost::GpuTiling;
use crate::transform::gpu_occupancy as occupancy;
pub use crate::transform::gpu_occupancy::{SHARED_BYTES, WARP_SIZE};
use print::KernelReport;

/// Threads per block along `x` and `y` when `--block-sizes` is not given: a
/// warp along `x`, 256 threads in all (a loop spread along `x` alone gets
/// all 256).
pub const DEFAULT_BLOCK: [u32; 2] = [32, 8];

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

/// Whether every overlapped tile's scratchpads in `plan` fit
/// [`SHARED_BYTES`] (a tile whose size is not constant counts as fitting:
/// the printer refuses it with its own message).
pub fn fits_shared(plan: &StoragePlan) -> bool {
    (0..plan.groups.len()).all(|g| {
        plan.tile_bytes(g, u64::MAX / 4)
            .is_none_or(|b| b <= SHARED_BYTES)
    })
}

/// The next smaller default tile sizes: the outermost size above 1 halved
/// (the innermost, a warp's width along `x`, last); `false` when all are 1.
pub fn shrink_tile_sizes(sizes: &mut [i64]) -> bool {
    match sizes.iter_mut().find(|s| **s > 1) {
        Some(s) => {
            *s = (*s / 2).max(1);
            true
        }
        None => false,
    }
}

/// The `--report` lines of the kernels of the region at `place` (`file:line`),
/// with the occupancy their launch shapes allow on `gpu`.
pub fn report(place: &str, reports: &[KernelReport], gpu: &occupancy::Gpu) -> String {
    let mut s = format!("{place}: CUDA, {} kernel(s)\n", reports.len());
    for r in reports {
        let how = match r.spread {
            map::Spread::Single => "one thread",
            map::Spread::Threads1 => "parallel loop over x",
            map::Spread::Threads2 => "loops over y and x",
            map::Spread::Inner2 => "inner two loops over y and x, the outer one per thread",
            map::Spread::Blocks1 => "overlapped tiles over blocks (x), stages over threads",
            map::Spread::Blocks2 => "overlapped tiles over blocks (y, x), stages over threads",
            map::Spread::Tiles2 => "tile loops over blocks (y, x), point loops over threads (y, x)",
        };
        let how = match (r.warps, r.reg_tiles) {
            (Some(w), Some(k)) => format!("{how}, one tile per warp ({w} warps per block), hybrid: {k} parallelogram tile(s) per statement in registers"),
            (Some(w), None) => format!("{how}, one tile per warp ({w} warps per block)"),
            _ => how.to_string(),
        };
        let shared = r
            .shared
            .map_or("unknown".to_string(), |b| format!("{b} bytes"));
        let occupancy = match r.shared {
            Some(b) => occupancy::describe(gpu, gpu.occupancy(r.block[0] * r.block[1], b)),
            None => format!("occupancy on {}: unknown", gpu.arch),
        };
        s.push_str(&format!(
            "  {}: {how}; block {}x{}; grid {} x {}; shared memory {shared} per block; {occupancy}\n",
            r.name, r.block[0], r.block[1], r.grid[0], r.grid[1]
        ));
        if let Some(c) = &r.choice {
            // The model's estimates beside the kernel's actual figures.
            s.push_str(&format!(
                "    GPU cost model: {}; estimated shared memory {} bytes per block (actual {shared})\n",
                c.describe(gpu),
                c.estimated_shared
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::shrink_tile_sizes;

    #[test]
    fn default_sizes_shrink_outermost_first() {
        let mut s = vec![4, 8, 32];
        let mut seen = Vec::new();
        while shrink_tile_sizes(&mut s) {
            seen.push(s.clone());
        }
        assert_eq!(seen[0], vec![2, 8, 32]);
        assert_eq!(seen[1], vec![1, 8, 32]);
        assert_eq!(seen[2], vec![1, 4, 32]);
        assert_eq!(seen.last(), Some(&vec![1, 1, 1]));
    }
}
