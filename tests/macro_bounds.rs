//! Macro-valued bounds stay symbolic (issue 17, finding 5): an object-like
//! macro of the user's used in a loop bound (`TSTEPS` from `-DTSTEPS=3`,
//! `#define N 24`, `#define _PB_N N`) is a parameter named after the macro,
//! so the output spells the macro and is right for other `-D` values too.
//! Macros of system headers (`INT_MAX`) are folded to their values; where
//! the model needs a macro's value (`B[i * N + j]`), the banner says so.
//!
//! Needs `gcc` with OpenMP (as the testsuite).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const CFLAGS: &[&str] = &[
    "-O2",
    "-std=gnu99",
    "-fopenmp",
    "-ffp-contract=off",
    "-fno-fast-math",
    "-Wno-unknown-pragmas",
];

/// A PolyBench-style kernel: a time loop bounded by `-DTSTEPS`, space loops
/// by `_PB_N` (a macro of the macro `N`), one of them counting down, and a
/// loop bounded through `INT_MAX`.
const KERNEL: &str = r#"#include <limits.h>
#include <stdio.h>
#ifndef N
#define N 24
#endif
#define _PB_N N
#define _PB_TSTEPS TSTEPS
#define DATA_TYPE double
#define SCALAR_VAL(x) x

static DATA_TYPE A[N][N], C[60];

int main(void)
{
    int t, i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            A[i][j] = ((i * 37 + j * 11) % 17) / 16.0;
    for (i = 0; i < 60; i++)
        C[i] = i * 0.5;
#pragma scop
    for (t = 0; t < _PB_TSTEPS; t++) {
        for (i = 1; i < _PB_N - 1; i++)
            for (j = _PB_N - 2; j >= 1; j--)
                A[i][j] = (A[i-1][j] + A[i][j] + A[i][j+1]) / 3.0;
    }
    for (i = 1; i < INT_MAX - 2147483600; i++)
        C[i] = C[i] + C[i-1] * 0.25;
#pragma endscop
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            printf("A[%d][%d] = %.17g\n", i, j, A[i][j]);
    for (i = 0; i < 60; i++)
        printf("C[%d] = %.17g\n", i, C[i]);
    return 0;
}
"#;

/// A flattened subscript `i * N + j`: affine only with N's value.
const FLAT: &str = r#"#include <stdio.h>
#define N 12
static double B[N * N];
int main(void)
{
    int i, j;
#pragma scop
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            B[i * N + j] = i + 0.5 * j;
#pragma endscop
    printf("%g\n", B[N * N - 1]);
    return 0;
}
"#;

fn work_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "flextile-macro-bounds-{test}-{}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create work dir");
    dir
}

/// Runs flextile on `src` with `args`; returns the output text.
fn flextile(dir: &Path, src: &str, args: &[&str]) -> String {
    let input = dir.join("in.c");
    let output = dir.join("out.c");
    fs::write(&input, src).expect("write input");
    let o = Command::new(env!("CARGO_BIN_EXE_flextile"))
        .args(args)
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .expect("run flextile");
    assert!(
        o.status.success(),
        "flextile {args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    fs::read_to_string(&output).expect("read output")
}

/// Builds `file` with `defines` and runs it (2 threads); returns its stdout.
fn build_and_run(file: &Path, defines: &[&str]) -> String {
    let exe = file.with_extension(format!("{}.bin", defines.join("_").replace('=', "")));
    let o = Command::new("gcc")
        .args(CFLAGS)
        .args(defines)
        .arg("-o")
        .arg(&exe)
        .arg(file)
        .arg("-lm")
        .output()
        .expect("run gcc");
    assert!(
        o.status.success(),
        "gcc {} {defines:?}: {}",
        file.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    let r = Command::new(&exe)
        .env("OMP_NUM_THREADS", "2")
        .output()
        .expect("run program");
    assert!(r.status.success(), "{} failed", exe.display());
    String::from_utf8_lossy(&r.stdout).into_owned()
}

/// The generated region: from the banner to the end.
fn region(out: &str) -> &str {
    let start = out.find("/* flextile: scop").expect("a region banner");
    &out[start..]
}

#[test]
fn macro_bounds_stay_symbolic_and_right_for_other_values() {
    for opts in [&[][..], &["--tile", "--tile-sizes", "2,5,4"][..]] {
        let dir = work_dir(if opts.is_empty() { "plain" } else { "tile" });
        let mut args = vec!["-DTSTEPS=3"];
        args.extend_from_slice(opts);
        let out = flextile(&dir, KERNEL, &args);
        let code = region(&out);
        assert!(
            code.contains("_PB_TSTEPS"),
            "time bound not symbolic:\n{code}"
        );
        assert!(code.contains("_PB_N"), "space bound not symbolic:\n{code}");
        assert!(
            !code.contains("INT_MAX") && (code.contains("46") || code.contains("47")),
            "INT_MAX (a system header's macro) should be folded:\n{code}"
        );
        assert!(!code.contains("built for the macro values"), "{code}");
        let out_file = dir.join("out.c");
        let in_file = dir.join("in.c");
        // Other values than the ones flextile saw: the output must still match.
        for defines in [
            &["-DTSTEPS=3"][..],
            &["-DTSTEPS=5", "-DN=17"][..],
            &["-DTSTEPS=0", "-DN=9"][..],
        ] {
            let want = build_and_run(&in_file, defines);
            let got = build_and_run(&out_file, defines);
            assert!(
                want == got,
                "options {opts:?}, {defines:?}: the output differs from the original (work folder {})",
                dir.display()
            );
        }
        let _ = fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_macro_value_the_model_needs_is_named_in_the_banner() {
    let dir = work_dir("flat");
    let out = flextile(&dir, FLAT, &[]);
    let code = region(&out);
    assert!(
        code.contains("built for the macro values N = 12"),
        "banner should name N's value:\n{code}"
    );
    assert_eq!(
        build_and_run(&dir.join("in.c"), &[]),
        build_and_run(&dir.join("out.c"), &[])
    );
    let _ = fs::remove_dir_all(&dir);
}

/// A heat-3d-like stencil whose sizes are `#define`s: under overlapped
/// tiling with no tile size for the innermost loop, a scratchpad's extent
/// along it is constant only for the macro's value.
const HEAT: &str = r#"#include <stdio.h>
#define N 8
#define TSTEPS 4

static double A[N][N][N], B[N][N][N];

int main(void)
{
    int t, i, j, k;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            for (k = 0; k < N; k++)
                A[i][j][k] = B[i][j][k] = ((i * 5 + j * 3 + k * 7) % 23) / 23.0;
#pragma scop
    for (t = 0; t < TSTEPS; t++) {
        for (i = 1; i < N - 1; i++)
            for (j = 1; j < N - 1; j++)
                for (k = 1; k < N - 1; k++)
                    B[i][j][k] = 0.125 * (A[i+1][j][k] + A[i-1][j][k] + A[i][j+1][k] + A[i][j-1][k] + A[i][j][k+1] + A[i][j][k-1]) + 0.25 * A[i][j][k];
        for (i = 1; i < N - 1; i++)
            for (j = 1; j < N - 1; j++)
                for (k = 1; k < N - 1; k++)
                    A[i][j][k] = 0.125 * (B[i+1][j][k] + B[i-1][j][k] + B[i][j+1][k] + B[i][j-1][k] + B[i][j][k+1] + B[i][j][k-1]) + 0.25 * B[i][j][k];
    }
#pragma endscop
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            for (k = 0; k < N; k++)
                printf("%d %d %d %.17g %.17g\n", i, j, k, A[i][j][k], B[i][j][k]);
    return 0;
}
"#;

#[test]
fn overlapped_tiling_that_needs_macro_values_names_them_in_the_banner() {
    let dir = work_dir("heat");
    let out = flextile(&dir, HEAT, &["--scalene", "--tile-sizes", "3,5"]);
    let code = region(&out);
    assert!(
        code.contains("built for the macro values") && code.contains("N = 8"),
        "banner should name N's value:\n{code}"
    );
    assert_eq!(
        build_and_run(&dir.join("in.c"), &[]),
        build_and_run(&dir.join("out.c"), &[])
    );
    let _ = fs::remove_dir_all(&dir);
}
