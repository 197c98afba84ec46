//! The benchmark programs (`benchmarks/`) at their test size, under every option
//! set flextile supports, compared bit for bit with the originals (stdout holds
//! checksums and FNV-1a hashes of every output array). Every option set must
//! compile: flextile applies it, or, where overlapped tiling does not apply,
//! compiles without it and warns. Their CUDA output (`cuda_*` tests) builds
//! with nvcc and, against the CPU emulation of CUDA, prints the same.

use std::path::{Path, PathBuf};
use std::process::Command;

const CFLAGS: &[&str] = &[
    "-O2",
    "-std=gnu99",
    "-fopenmp",
    "-ffp-contract=off",
    "-fno-fast-math",
    "-Wno-unknown-pragmas",
    "-I",
    "benchmarks",
];

fn work_dir(name: &str) -> PathBuf {
    let target = Path::new(env!("CARGO_BIN_EXE_flextile"))
        .parent()
        .and_then(|p| p.parent())
        .map(Path::to_path_buf)
        .unwrap_or_else(std::env::temp_dir);
    let dir = target
        .join("benchmarks-work")
        .join(format!("{name}.{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("work dir");
    dir
}

fn gcc(src: &Path, exe: &Path) {
    let o = Command::new("gcc")
        .args(CFLAGS)
        .arg("-o")
        .arg(exe)
        .arg(src)
        .arg("-lm")
        .output()
        .expect("gcc");
    assert!(
        o.status.success(),
        "gcc {}: {}",
        src.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

fn run(exe: &Path, threads: u32) -> String {
    let o = Command::new(exe)
        .args(["--size", "test", "--reps", "1"])
        .env("OMP_NUM_THREADS", threads.to_string())
        .output()
        .expect("run");
    assert!(
        o.status.success(),
        "{} failed: {}",
        exe.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// flextile on the benchmark `src` with `opts`, writing `out`.
fn flextile(src: &Path, out: &Path, opts: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_flextile"))
        .arg(src)
        .args(["-I", "benchmarks", "-o"])
        .arg(out)
        .args(opts)
        .output()
        .expect("flextile")
}

/// `dims`: an `--overlap-dims` value that leaves one loop of the program's
/// main nests to classic tiling (partial overlapped tiling), or "" for none.
/// `big`: tile sizes larger than the test-size domain (one partial tile
/// spans it; scratchpads past 4 MiB a tile live on the heap), or "" for none.
fn check(program: &str, tiles: &str, dims: &str, big: &str) {
    let dir = work_dir(program);
    let src = PathBuf::from(format!("benchmarks/{program}.c"));
    let orig = dir.join("orig");
    gcc(&src, &orig);
    let expected = run(&orig, 1);
    assert!(expected.contains("fnv1a64"), "{program}: no output hash");
    let mut sets: Vec<Vec<&str>> = vec![
        vec![],
        vec!["--tile"],
        vec!["--tile", "--tile-sizes", tiles],
        vec!["--rectangle", "--tile-sizes", tiles],
        vec!["--scalene", "--tile-sizes", tiles],
        vec!["--scalene"],
    ];
    for shape in ["--rectangle", "--scalene"] {
        if !dims.is_empty() {
            sets.push(vec![shape, "--overlap-dims", dims, "--tile-sizes", tiles]);
        }
        if !big.is_empty() {
            sets.push(vec![shape, "--tile-sizes", big]);
        }
    }
    let mut failures = Vec::new();
    for (n, opts) in sets.iter().enumerate() {
        let out = dir.join(format!("v{n}.c"));
        let o = flextile(&src, &out, opts);
        assert!(
            o.status.success(),
            "{program} {opts:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let exe = dir.join(format!("v{n}"));
        gcc(&out, &exe);
        for threads in [1, 2] {
            if run(&exe, threads) != expected {
                failures.push(format!("{program} {opts:?} with {threads} thread(s)"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "outputs differ from the original: {failures:#?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

macro_rules! benchmarks {
    ($($test:ident => $program:literal, $tiles:literal, $dims:literal, $big:literal;)*) => {
        $(
            #[test]
            fn $test() {
                check($program, $tiles, $dims, $big);
            }
        )*
    };
}

benchmarks! {
    // program, tiles, --overlap-dims, tiles larger than the test domain
    // (ROWSxCOLS or N at --size test: see each program's `sizes`)
    unsharp_mask => "unsharp-mask", "8,64", "0,1", "160,128";
    harris => "harris", "16,32", "0", "160,128";
    bilateral_grid => "bilateral-grid", "4,8,8", "0,1,2", "40,32,16";
    camera_pipeline => "camera-pipeline", "16,64", "0", "320,400";
    // 1024x512 at test size: larger tiles hold over 4 MiB (on the heap).
    multiscale_interp => "multiscale-interp", "16,64", "0,1", "1100,600";
    pyramid_blend => "pyramid-blend", "16,64", "0,1", "300,300";
    local_laplacian => "local-laplacian", "16,64", "0,1", "300,400";
    minifluxdiv => "minifluxdiv", "4,4,8", "0,1", "20,20,20";
    // Time-iterated stencils: the first size is the time loop's (steps per
    // block under overlapped tiling; classic tiling leaves the time loop
    // untiled); --overlap-dims numbers the time loop 0.
    heat_1d => "heat-1d", "3,8", "", "3,40";
    heat_2d => "heat-2d", "2,8,16", "0,1", "2,40,40";
    heat_3d => "heat-3d", "2,4,4,8", "0,1,2", "2,12,12,12";
    jacobi_2d => "jacobi-2d", "3,8,16", "0,1", "3,40,40";
}

mod common;
use common::{nvcc, CXX, CXXFLAGS, EMULATE_H, NVCC_FLAGS};

/// The first lines of a tool's messages.
fn head(stderr: &[u8]) -> String {
    let msg = String::from_utf8_lossy(stderr);
    msg.lines().take(5).collect::<Vec<_>>().join("\n")
}

/// The benchmark's CUDA output (issue 20) under the default mapping,
/// `--tile`, `--rectangle` and `--scalene` (the GPU cost model's mapping,
/// issue 21), and `--rectangle` with one tile per block, one per warp and
/// hybrid register/shared tiles (`--gpu-tiling block|warp|hybrid`; a group
/// that does not qualify for registers gets a warning naming it and one
/// tile per warp): nvcc compiles it for sm_80 and
/// sm_90, and built as C++ against the CPU emulation of CUDA it prints what
/// the original prints at the test size; or, where `refused` is given, each
/// is refused with a located error saying so.
fn check_cuda(program: &str, refused: Option<&str>) {
    let dir = work_dir(&format!("cuda-{program}"));
    let src = PathBuf::from(format!("benchmarks/{program}.c"));
    let orig = dir.join("orig");
    gcc(&src, &orig);
    let expected = run(&orig, 1);
    let nvcc = nvcc(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap_or_else(|e| panic!("{e}"));
    let mut failures = Vec::new();
    let sets: [&[&str]; 7] = [
        &[],
        &["--tile"],
        &["--rectangle"],
        &["--scalene"],
        &["--rectangle", "--gpu-tiling", "block"],
        &["--rectangle", "--gpu-tiling", "warp"],
        &["--rectangle", "--gpu-tiling", "hybrid"],
    ];
    for (n, opts) in sets.iter().enumerate() {
        let out = dir.join(format!("v{n}.cu"));
        let o = flextile(&src, &out, opts);
        let err = String::from_utf8_lossy(&o.stderr);
        if let Some(why) = refused {
            let located = err.contains(&format!("benchmarks/{program}.c:")) && err.contains(why);
            if o.status.code() != Some(1) || !located {
                failures.push(format!(
                    "{opts:?}: expected a located refusal '{why}': {err}"
                ));
            }
            continue;
        }
        if !o.status.success() {
            failures.push(format!("{opts:?}: flextile failed: {err}"));
            continue;
        }
        let c = Command::new(&nvcc)
            .args(NVCC_FLAGS)
            .args(["-I", "benchmarks", "-o"])
            .arg(dir.join(format!("v{n}.o")))
            .arg(&out)
            .output()
            .expect("nvcc");
        if !c.status.success() {
            failures.push(format!("{opts:?}: nvcc: {}", head(&c.stderr)));
        }
        let exe = dir.join(format!("v{n}"));
        let c = Command::new(CXX)
            .args(CXXFLAGS)
            .args(["-I", "benchmarks", "-include", EMULATE_H, "-o"])
            .arg(&exe)
            .arg(&out)
            .arg("-lm")
            .output()
            .expect("g++");
        if !c.status.success() {
            failures.push(format!("{opts:?}: {CXX}: {}", head(&c.stderr)));
            continue;
        }
        if run(&exe, 2) != expected {
            failures.push(format!(
                "{opts:?}: the emulated CUDA output differs from the original"
            ));
        }
    }
    assert!(failures.is_empty(), "{program}: {failures:#?}");
    let _ = std::fs::remove_dir_all(&dir);
}

macro_rules! cuda_benchmarks {
    ($($test:ident => $program:literal, $refused:expr;)*) => {
        $(
            #[test]
            fn $test() {
                check_cuda($program, $refused);
            }
        )*
    };
}

cuda_benchmarks! {
    cuda_unsharp_mask => "unsharp-mask", None;
    cuda_harris => "harris", None;
    cuda_bilateral_grid => "bilateral-grid", None;
    cuda_camera_pipeline => "camera-pipeline", None;
    cuda_multiscale_interp => "multiscale-interp", None;
    // Its mask is read through a pointer at clamped (min/max) indices only.
    cuda_pyramid_blend => "pyramid-blend", Some("it is accessed at data-dependent indices only");
    cuda_local_laplacian => "local-laplacian", None;
    // Its bodies spell their accesses through macros.
    cuda_minifluxdiv => "minifluxdiv", Some("the CUDA target needs bodies whose accesses flextile analyses");
    cuda_heat_1d => "heat-1d", None;
    cuda_heat_2d => "heat-2d", None;
    cuda_heat_3d => "heat-3d", None;
    cuda_jacobi_2d => "jacobi-2d", None;
}

/// `make bench-gpu`'s driver (bench/gpu.py) on the CPU emulation of CUDA:
/// every CUDA variant of a benchmark builds with the timing seam
/// (bench/cuda_timing.h), prints what the original prints, and reports its
/// kernels' launches; without a GPU and without --emulate it refuses.
#[test]
fn gpu_benchmark_driver_runs_on_the_emulation() {
    let o = Command::new("python3")
        .args([
            "bench/gpu.py",
            "--emulate",
            "--only",
            "heat-1d",
            "--reps",
            "1",
        ])
        .env("FLEXTILE", env!("CARGO_BIN_EXE_flextile"))
        .output()
        .expect("python3");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(out.matches("| identical |").count(), 10, "{out}");
    assert!(
        out.contains("| heat-1d | --rectangle | identical |"),
        "{out}"
    );
    assert!(
        out.contains("| heat-1d | --rectangle --gpu-tiling warp | identical |"),
        "{out}"
    );
    assert!(
        out.contains("| heat-1d | --rectangle --gpu-tiling hybrid | identical |"),
        "{out}"
    );
    let gpu = Command::new("nvidia-smi")
        .arg("-L")
        .output()
        .is_ok_and(|o| o.status.success() && !o.stdout.is_empty());
    if !gpu {
        let o = Command::new("python3")
            .args(["bench/gpu.py", "--only", "heat-1d"])
            .output()
            .expect("python3");
        assert_eq!(o.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&o.stderr).contains("no GPU here"));
    }
}
