//! The GPUs flextile's CUDA output targets, and the occupancy a kernel's
//! launch shape allows on them: the first terms of the GPU cost model of
//! Jangda & Guha, PACT'20, §6 (Algorithm 2, lines 18-24: thread blocks per SM from shared
//! memory, registers and the SM's limits; theoretical occupancy) and of
//! Sioutas et al., TACO'20, §4 (`estimate_occupancy`, after NVIDIA's occupancy calculator).
//!
//! The GPU cost model ([`super::gpu_cost`]) reads it with its estimate of
//! the registers; `--report` with a printed kernel's threads and shared
//! memory per block, whose registers per thread are `ptxas`'s choice: as
//! Sioutas et al., TACO'20 does, the occupancy is computed from the other limits, with
//! the largest register count per thread that keeps it (beyond it,
//! registers become the limit).

/// Threads in a warp.
pub const WARP_SIZE: u32 = 32;

/// Bytes of static shared memory a thread block may declare (every GPU of
/// [`GPUS`]): the overlapped tiles' scratchpads must fit (the storage plan
/// is made with this limit where flextile's C output uses the stack's).
pub const SHARED_BYTES: u64 = 48 * 1024;

/// One GPU architecture's limits (Jangda & Guha, PACT'20, Table 1; NVIDIA's CUDA C
/// Programming Guide, "Compute capabilities", and its occupancy
/// calculator).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gpu {
    /// The architecture, as nvcc names it.
    pub arch: &'static str,
    /// The device it is measured on.
    pub device: &'static str,
    /// Streaming multiprocessors.
    pub sms: u32,
    /// Threads an SM holds at once.
    pub threads_per_sm: u32,
    /// Thread blocks an SM holds at once.
    pub blocks_per_sm: u32,
    /// 32-bit registers per SM.
    pub registers_per_sm: u32,
    /// Registers one thread may use.
    pub registers_per_thread: u32,
    /// Registers are allocated to a warp in units of this many.
    pub register_unit: u32,
    /// Bytes of shared memory per SM (the largest carve-out).
    pub shared_per_sm: u64,
    /// Bytes of shared memory the system reserves per block.
    pub shared_reserved: u64,
    /// Shared memory is allocated in units of this many bytes.
    pub shared_unit: u64,
    /// Global memory bandwidth, bytes per second (the cost model's).
    pub bandwidth: f64,
    /// Boost clock, cycles per second (the cost model's).
    pub clock: f64,
}

/// The GPUs `--gpu` names: the A100's architecture and the H100's.
pub const GPUS: [Gpu; 2] = [
    Gpu {
        arch: "sm_80",
        device: "A100 SXM 80GB",
        sms: 108,
        threads_per_sm: 2048,
        blocks_per_sm: 32,
        registers_per_sm: 65536,
        registers_per_thread: 255,
        register_unit: 256,
        shared_per_sm: 164 * 1024,
        shared_reserved: 1024,
        shared_unit: 128,
        bandwidth: 2.039e12,
        clock: 1.41e9,
    },
    Gpu {
        arch: "sm_90",
        device: "H100 SXM",
        sms: 132,
        threads_per_sm: 2048,
        blocks_per_sm: 32,
        registers_per_sm: 65536,
        registers_per_thread: 255,
        register_unit: 256,
        shared_per_sm: 228 * 1024,
        shared_reserved: 1024,
        shared_unit: 128,
        bandwidth: 3.35e12,
        clock: 1.98e9,
    },
];

/// The GPU flextile sizes for when `--gpu` is not given (the H100's).
pub const DEFAULT_GPU: &Gpu = &GPUS[1];

/// The GPU named `arch` (`sm_80`, `sm_90`).
pub fn gpu(arch: &str) -> Option<&'static Gpu> {
    GPUS.iter().find(|g| g.arch == arch)
}

/// What bounds the blocks an SM holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// The SM's threads (warps).
    Threads,
    /// The SM's count of blocks.
    Blocks,
    /// Shared memory.
    Shared,
}

/// The occupancy a launch shape allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occupancy {
    /// Blocks one SM holds at once.
    pub blocks: u32,
    /// Warps one SM holds at once.
    pub warps: u32,
    /// Warps an SM can hold at most.
    pub max_warps: u32,
    /// What bounds the blocks.
    pub limit: Limit,
    /// The most registers per thread that keep `blocks` (beyond them,
    /// registers bound the blocks instead).
    pub registers: u32,
}

impl Occupancy {
    /// The fraction of the SM's warps that are active.
    pub fn fraction(&self) -> f64 {
        f64::from(self.warps) / f64::from(self.max_warps)
    }
}

impl Gpu {
    /// The GPU in words (`--explain`).
    pub fn describe(&self) -> String {
        format!(
            "{} ({}): {} SMs, {:.0} GB/s, {:.2} GHz",
            self.arch,
            self.device,
            self.sms,
            self.bandwidth / 1e9,
            self.clock / 1e9
        )
    }

    /// Warps a block of `threads` threads takes.
    fn warps(threads: u32) -> u32 {
        threads.div_ceil(WARP_SIZE).max(1)
    }

    /// Blocks of `threads` threads that `registers` per thread let an SM
    /// hold (registers are allocated per warp, in units).
    pub fn blocks_by_registers(&self, threads: u32, registers: u32) -> u32 {
        let per_warp = (registers * WARP_SIZE).div_ceil(self.register_unit) * self.register_unit;
        let warps = self.registers_per_sm / per_warp.max(1);
        warps / Self::warps(threads)
    }

    /// The occupancy of blocks of `threads` threads that take `shared` bytes
    /// of shared memory each; `None` where the block does not fit an SM.
    pub fn occupancy(&self, threads: u32, shared: u64) -> Option<Occupancy> {
        let warps = Self::warps(threads);
        let max_warps = self.threads_per_sm / WARP_SIZE;
        let by_threads = max_warps / warps;
        let per_block = shared.div_ceil(self.shared_unit) * self.shared_unit + self.shared_reserved;
        let by_shared = u32::try_from(self.shared_per_sm / per_block).unwrap_or(u32::MAX);
        let (blocks, limit) = [
            (by_threads, Limit::Threads),
            (self.blocks_per_sm, Limit::Blocks),
            (by_shared, Limit::Shared),
        ]
        .into_iter()
        .min_by_key(|(b, _)| *b)?;
        if blocks == 0 {
            return None;
        }
        let registers = (1..=self.registers_per_thread)
            .rev()
            .find(|r| self.blocks_by_registers(threads, *r) >= blocks)?;
        Some(Occupancy {
            blocks,
            warps: blocks * warps,
            max_warps,
            limit,
            registers,
        })
    }
}

/// `--report`'s words for an occupancy on `gpu`.
pub fn describe(gpu: &Gpu, o: Option<Occupancy>) -> String {
    let Some(o) = o else {
        return format!("occupancy on {}: the block does not fit an SM", gpu.arch);
    };
    let limit = match o.limit {
        Limit::Threads => "threads",
        Limit::Blocks => "blocks per SM",
        Limit::Shared => "shared memory",
    };
    format!(
        "occupancy on {} ({}): {} block(s) per SM, {} of {} warps ({:.0}%), bound by {limit} while a thread takes at most {} registers",
        gpu.arch,
        gpu.device,
        o.blocks,
        o.warps,
        o.max_warps,
        100.0 * o.fraction(),
        o.registers
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn occupancy_follows_the_calculator() {
        let h100 = gpu("sm_90").expect("sm_90");
        // 256 threads, no shared memory: 8 blocks fill the SM's 64 warps;
        // 32 registers per thread keep them (65536 / 2048).
        let o = h100.occupancy(256, 0).expect("fits");
        assert_eq!((o.blocks, o.warps, o.limit), (8, 64, Limit::Threads));
        assert_eq!(o.registers, 32);
        assert_eq!(h100.blocks_by_registers(256, 33), 6);
        // 40 KB of shared memory per block: (40960 + 1024) bytes each, 5 in
        // 228 KiB, 40 warps; 48 registers per thread still hold them.
        let o = h100.occupancy(256, 40 * 1024).expect("fits");
        assert_eq!((o.blocks, o.warps, o.limit), (5, 40, Limit::Shared));
        assert_eq!(o.registers, 48);
        // The A100's smaller carve-out: 4 such blocks.
        let a100 = gpu("sm_80").expect("sm_80");
        assert_eq!(a100.occupancy(256, 40 * 1024).map(|o| o.blocks), Some(4));
        // 32-thread blocks: the SM's 32 blocks bound them, at half the warps.
        let o = h100.occupancy(32, 0).expect("fits");
        assert_eq!((o.blocks, o.warps, o.limit), (32, 32, Limit::Blocks));
        // More shared memory than an SM has.
        assert_eq!(h100.occupancy(256, 300 * 1024), None);
        assert_eq!(gpu("sm_70"), None);
    }
}
