//! Vectorisation of the model's outputs (issue 19, item 5): every innermost
//! stage loop of a pipeline's `--rectangle` output (groups and tile sizes
//! from the cost model, for a fixed machine) must vectorise with gcc and
//! with clang at `-O3` wherever the same statement's loop in the original
//! program does (for `-march=x86-64-v3`, AVX2: a fixed ISA, so that a CI
//! machine with another CPU than `-march=native` names gets the same reports) (`bench/vec_report.py --check`, which reads
//! the compilers' own reports: `-fopt-info-vec`, `-Rpass=loop-vectorize`; a
//! loop turned into memcpy/memset counts as vectorised).
//!
//! The loops that lose it today are listed below with the reason; the test
//! fails on any other loss, and on a listed one that no longer happens (so
//! the list stays true).

use std::path::{Path, PathBuf};
use std::process::Command;

/// (program, compiler, stages whose loops lose the original's vectorisation).
const KNOWN: &[(&str, &str, &[&str])] = &[
    // The border stage of multiscale-interp (a select between the image and
    // zero) lost gcc's vectorisation in tiles until its point loop counted in
    // `long long` (backend/c.rs, `CPrinter::long_counter`): with an `int`
    // counter starting at the tile's origin gcc could not prove that the
    // masked load's subscript does not wrap, and used a gather per element.
    // camera-pipeline's stages scaled by 2 with an offset (Bayer
    // deinterleaving), whose point loops isl generated with stride 2 (`c4 +=
    // 2`) and the index `(c4 - 1) / 2`, vectorise since: the tile-body
    // generator runs their loops over the stage's own iterator.
    // (clang vectorised them under `#pragma omp simd`, and so the tone
    // curve's gather, whose trip count it could not compute under the tile's
    // bounds; inside OpenMP parallel loops gcc gave up on pyramid-blend's
    // S0-S2 and six of minifluxdiv's loops, "number of versioning for alias
    // run-time tests exceeds 10", until they were marked `omp simd`; clang
    // on pyramid-blend's column up-sampling S40 too.)
];

const PROGRAMS: &[&str] = &[
    "unsharp-mask",
    "harris",
    "bilateral-grid",
    "camera-pipeline",
    "multiscale-interp",
    "pyramid-blend",
    "local-laplacian",
    "minifluxdiv",
];

fn work_dir() -> PathBuf {
    let target = Path::new(env!("CARGO_BIN_EXE_flextile"))
        .parent()
        .and_then(|p| p.parent())
        .map(Path::to_path_buf)
        .unwrap_or_else(std::env::temp_dir);
    let dir = target
        .join("vectorise-work")
        .join(std::process::id().to_string());
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("work dir");
    dir
}

/// The stages of `output` whose loops lose the original's vectorisation
/// under compiler `cc`, sorted.
fn losses(program: &str, output: &Path, cc: &str) -> Vec<String> {
    let o = Command::new("python3")
        .args(["bench/vec_report.py", "--check"])
        .arg(format!("benchmarks/{program}.c"))
        .arg(output)
        .env("CC", cc)
        .env("MARCH", "x86-64-v3")
        .output()
        .expect("python3");
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        o.status.code().is_some_and(|c| c <= 1),
        "vec_report failed on {program} ({cc}): {text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut stages: Vec<String> = text
        .lines()
        .filter_map(|l| l.split("the loop of ").nth(1))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect();
    stages.sort();
    stages.dedup();
    stages
}

#[test]
fn model_outputs_keep_the_originals_vectorisation() {
    let dir = work_dir();
    let mut wrong = Vec::new();
    for program in PROGRAMS {
        let out = dir.join(format!("{program}.c"));
        let o = Command::new(env!("CARGO_BIN_EXE_flextile"))
            .arg(format!("benchmarks/{program}.c"))
            .args(["-I", "benchmarks", "-o"])
            .arg(&out)
            .args(["--rectangle", "--cache-sizes", "48K,2M", "--cores", "2"])
            .output()
            .expect("flextile");
        assert!(
            o.status.success(),
            "{program}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        for cc in ["gcc", "clang"] {
            let expected: Vec<&str> = KNOWN
                .iter()
                .find(|(p, c, _)| p == program && *c == cc)
                .map_or(Vec::new(), |(_, _, s)| s.to_vec());
            let got = losses(program, &out, cc);
            if got != expected {
                wrong.push(format!(
                    "{program} ({cc}): loops of {got:?} lose the original's vectorisation, expected {expected:?}"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    let _ = std::fs::remove_dir_all(&dir);
}
