//! What the tests that build flextile's CUDA output share (`testsuite.rs`,
//! `benchmarks.rs`): the C++ build against the CPU emulation of CUDA and
//! the nvcc compile check.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The CUDA output is built as C++ against the CPU emulation of CUDA
/// (`testsuite/cuda/emulate.h`: the threads of a block run in an
/// adversarial order between barriers) with the C's flags at `-O1` (the
/// emulated builds are many; no flag changes a floating-point result).
pub const CXX: &str = "g++";
/// See [`CXX`].
pub const CXXFLAGS: &[&str] = &[
    "-O1",
    "-std=gnu++17",
    "-fopenmp",
    "-ffp-contract=off",
    "-fno-fast-math",
    "-Wno-unknown-pragmas",
    "-x",
    "c++",
];
/// The emulation header, relative to the repository root.
pub const EMULATE_H: &str = "testsuite/cuda/emulate.h";
/// nvcc's flags for the compile check of every CUDA output: both
/// architectures CI knows (the A100's and the H100's), no FMA contraction.
pub const NVCC_FLAGS: &[&str] = &[
    "-c",
    "-gencode",
    "arch=compute_80,code=sm_80",
    "-gencode",
    "arch=compute_90,code=sm_90",
    "--fmad=false",
    "-Xcompiler",
    "-fopenmp",
];

/// nvcc from `make deps` under `root` (or `$NVCC`).
pub fn nvcc(root: &Path) -> Result<PathBuf, String> {
    if let Ok(p) = std::env::var("NVCC") {
        return Ok(PathBuf::from(p));
    }
    let p = root.join(".deps/cuda/nvidia/cu13/bin/nvcc");
    match p.exists() {
        true => Ok(p),
        false => Err(format!("{} is missing: run `make deps`", p.display())),
    }
}
