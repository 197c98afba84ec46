//! The benchmark programs (`benchmarks/`) at their test size, under every option
//! set flextile supports, compared bit for bit with the originals (stdout holds
//! checksums and FNV-1a hashes of every output array). Every option set must
//! compile: flextile applies it, or, where overlapped tiling does not apply,
//! compiles without it and warns.

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
        let o = Command::new(env!("CARGO_BIN_EXE_flextile"))
            .arg(&src)
            .args(["-I", "benchmarks", "-o"])
            .arg(&out)
            .args(opts)
            .output()
            .expect("flextile");
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
