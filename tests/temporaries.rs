//! Temporaries never reach memory (issue 18): `testsuite/programs/
//! temporaries_pipeline.c` declares its intermediate images temporary. Built
//! with `-DSENTINEL_CHECK`, it fills them with a sentinel before its regions
//! and reports after them whether they are untouched. Under overlapped
//! tiling the generated code must leave every one untouched and print what
//! the original prints; without a transformation that keeps them in
//! scratchpads (default options) they are written as in the original.
//! Arrays a function owns and reads no more after the region are proved
//! temporary; the negative controls show every other use keeps them live.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const PROGRAM: &str = "testsuite/programs/temporaries_pipeline.c";

fn work_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flextile-temps-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).expect("work dir");
    d
}

/// Builds `src` (with `defines`) as the testsuite does, in `dir`, and runs
/// it on a 47 x 33 image: its standard output.
fn build_and_run(dir: &Path, src: &Path, defines: &[&str]) -> String {
    let exe = dir.join(format!("program{}.exe", defines.len()));
    let o = Command::new("gcc")
        .args(["-O2", "-std=gnu99", "-fopenmp", "-ffp-contract=off"])
        .args([
            "-Wall",
            "-Wextra",
            "-Werror",
            "-Wno-unknown-pragmas",
            "-Wno-unused-variable",
        ])
        .args(defines)
        .arg("-o")
        .arg(&exe)
        .arg(src)
        .arg("-lm")
        .output()
        .expect("run gcc");
    assert!(
        o.status.success(),
        "gcc rejects {}:\n{}",
        src.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    let r = Command::new(&exe)
        .args(["47", "33"])
        .env("OMP_NUM_THREADS", "2")
        .output()
        .expect("run program");
    assert!(r.status.success(), "{} failed", exe.display());
    String::from_utf8_lossy(&r.stdout).into_owned()
}

/// flextile's output for `options`, in `dir`.
fn compile(dir: &Path, options: &[&str]) -> PathBuf {
    compile_program(dir, PROGRAM, options)
}

/// flextile's output for `program` under `options`, in `dir`.
fn compile_program(dir: &Path, program: &str, options: &[&str]) -> PathBuf {
    let out = dir.join("out.c");
    let o = Command::new(env!("CARGO_BIN_EXE_flextile"))
        .arg(program)
        .arg("-o")
        .arg(&out)
        .args(options)
        .output()
        .expect("run flextile");
    assert!(
        o.status.success(),
        "flextile {options:?}:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

/// The sentinel lines of a run, and the rest.
fn split(stdout: &str) -> (Vec<&str>, String) {
    let (sentinel, rest): (Vec<&str>, Vec<&str>) =
        stdout.lines().partition(|l| l.contains(" untouched: "));
    (sentinel, rest.join("\n"))
}

#[test]
fn overlapped_tiles_never_store_temporaries() {
    let dir = work_dir("overlap");
    let run = build_and_run(&dir, Path::new(PROGRAM), &[]);
    let (_, original) = split(&run);
    for options in [
        &["--rectangle"][..],
        &["--scalene", "--tile-sizes", "5,3"],
        &["--rectangle", "--overlap-dims", "1", "--tile-sizes", "4,8"],
    ] {
        let out = compile(&dir, options);
        let run = build_and_run(&dir, &out, &["-DSENTINEL_CHECK"]);
        let (sentinel, rest) = split(&run);
        assert_eq!(
            sentinel,
            ["BX untouched: yes", "BY untouched: yes", "T untouched: yes"],
            "{options:?}"
        );
        assert!(
            rest == original,
            "{options:?}: results differ from the original's"
        );
    }
}

/// Outside overlapped tiles, temporaries live in contracted buffers (a
/// scalar, rolling rows, a row per outer iteration) and their arrays stay
/// untouched; under OpenMP, `BX` (read across rows by a parallel loop) keeps
/// its array.
#[test]
fn contracted_temporaries_are_never_stored() {
    const CONTRACTED: &str = "testsuite/programs/temporaries_contracted.c";
    let dir = work_dir("contracted");
    let run = build_and_run(&dir, Path::new(CONTRACTED), &[]);
    let (_, original) = split(&run);
    let all = [
        "BX untouched: yes",
        "BY untouched: yes",
        "P untouched: yes",
        "T untouched: yes",
        "U untouched: yes",
    ];
    let mut openmp = all;
    openmp[0] = "BX untouched: no";
    for (options, expected, banner) in [
        (
            &["--no-openmp"][..],
            all,
            "BX to 3 x W - 2, BY to scalar, P to scalar",
        ),
        (&[][..], openmp, "BY to scalar, P to scalar"),
        (&["--tile"][..], openmp, "T to W, U to scalar"),
    ] {
        let out = compile_program(&dir, CONTRACTED, options);
        let text = fs::read_to_string(&out).expect("output");
        assert!(
            text.contains(&format!("temporaries contracted: {banner}")),
            "{options:?}: banner"
        );
        // The scop's row buffer: allocated once per region call where its
        // row loop is serial, once per thread where it is parallel (in the
        // team, before the worksharing loop), never once per row.
        let scop = &text[text.find("flextile: scop").expect("scop banner")..];
        let alloc = scop.find("contracted 'T'").expect("T's buffer");
        let first_loop = scop.find("for (").expect("a loop");
        assert!(
            alloc < first_loop,
            "{options:?}: where T's buffer is allocated"
        );
        if !options.contains(&"--no-openmp") {
            let team = scop.find("#pragma omp parallel\n").expect("a team");
            let worksharing = scop.find("#pragma omp for\n").expect("omp for");
            assert!(team < alloc && alloc < worksharing, "{options:?}: team");
        }
        let run = build_and_run(&dir, &out, &["-DSENTINEL_CHECK"]);
        let (sentinel, rest) = split(&run);
        assert_eq!(sentinel, expected, "{options:?}");
        assert!(
            rest == original,
            "{options:?}: results differ from the original's"
        );
    }
    let _ = fs::remove_dir_all(&dir);
}

/// Contracted temporaries never alive at once share one allocation (of
/// one element type only), allocated once per region call where the row
/// loop is serial and once per thread where it is parallel.
#[test]
fn contracted_temporaries_share_allocations() {
    const SHARED: &str = "testsuite/programs/temporaries_shared.c";
    let dir = work_dir("shared");
    let run = build_and_run(&dir, Path::new(SHARED), &[]);
    let (_, original) = split(&run);
    for options in [&["--no-openmp"][..], &[][..]] {
        let out = compile_program(&dir, SHARED, options);
        let text = fs::read_to_string(&out).expect("output");
        assert!(
            text.contains(
                "temporaries contracted: T to W, V to W, G to W; T and V share one allocation"
            ),
            "{options:?}: banner"
        );
        let scop = &text[text.find("flextile: scop").expect("scop banner")..];
        // One allocation for T and V, one for G, both before any loop.
        assert_eq!(scop.matches("__builtin_malloc(").count(), 2, "{options:?}");
        let last_alloc = scop.rfind("__builtin_malloc(").expect("malloc");
        let first_loop = scop.find("for (").expect("a loop");
        assert!(
            last_alloc < first_loop,
            "{options:?}: allocated before the loops"
        );
        assert_eq!(
            scop.contains("#pragma omp parallel\n"),
            !options.contains(&"--no-openmp"),
            "{options:?}: a team allocates per thread"
        );
        let run = build_and_run(&dir, &out, &["-DSENTINEL_CHECK"]);
        let (sentinel, rest) = split(&run);
        assert_eq!(
            sentinel,
            ["T untouched: yes", "V untouched: yes", "G untouched: yes"],
            "{options:?}"
        );
        assert!(
            rest == original,
            "{options:?}: results differ from the original's"
        );
    }
    let _ = fs::remove_dir_all(&dir);
}

/// The check can fail: without overlapped tiling the temporaries are
/// written, as in the original.
#[test]
fn without_overlapped_tiling_temporaries_are_written() {
    let dir = work_dir("plain");
    let out = compile(&dir, &["--tile"]);
    let run = build_and_run(&dir, &out, &["-DSENTINEL_CHECK"]);
    let (sentinel, _) = split(&run);
    assert_eq!(
        sentinel,
        ["BX untouched: no", "BY untouched: no", "T untouched: no"]
    );
    let _ = fs::remove_dir_all(&dir);
}

/// A region in a loop of its function runs again in the next iteration,
/// whose reads may see what this one wrote (here the writes of `T` shrink
/// with `t`): a temporary the region also reads is stored as before.
#[test]
fn a_region_in_a_loop_stores_the_temporaries_it_reads() {
    let dir = work_dir("loop");
    let src = dir.join("in.c");
    fs::write(
        &src,
        "void f(int N, int S, double A[N], double T[N], double B[N])\n{\n  int i;\n  for (int t = 0; t < S; t++) {\n#pragma scop temporary(T)\n    for (i = 0; i < N - t; i++)\n      T[i] = A[i] * 2.0;\n    for (i = 0; i < N; i++)\n      B[i] = T[i] + 1.0;\n#pragma endscop\n  }\n}\n",
    )
    .expect("in.c");
    let out = dir.join("out.c");
    let o = Command::new(env!("CARGO_BIN_EXE_flextile"))
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .arg("--rectangle")
        .output()
        .expect("run flextile");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = fs::read_to_string(&out).expect("output");
    assert!(text.contains("overlapped tiling"), "{text}");
    assert!(!text.contains("temporaries never stored"), "{text}");
    let _ = fs::remove_dir_all(&dir);
}

/// A function whose scop writes `X` (declared by `decl`) and reads it back,
/// with `before` and `after` the scop; `ret` is its return type, and
/// `loop_around` puts the scop in a loop.
fn kernel(ret: &str, decl: &str, before: &str, after: &str, loop_around: bool) -> String {
    let (open, close) = match loop_around {
        true => ("for (int s = 0; s < 2; s++) {", "}"),
        false => ("", ""),
    };
    format!(
        "#include <stdlib.h>\nvoid use(double *);\ndouble *keep;\n#define CLEAR(k) X[k] = 0.0\n\
         {ret} f(int n, const double *in, double *out)\n{{\n  int i;\n  {decl}\n  {before}\n  {open}\n\
         #pragma scop\n  for (i = 0; i < n; i++)\n    X[i] = in[i] * 2.0;\n  \
         for (i = 1; i < n - 1; i++)\n    out[i] = X[i - 1] + X[i + 1];\n#pragma endscop\n  \
         {close}\n  {after}\n}}\n"
    )
}

/// flextile's output banner and `-v` log for `src` under `--rectangle`
/// (and `extra`), compiled in `dir`.
fn banner_and_log(dir: &Path, src: &str, extra: &[&str]) -> (String, String) {
    let input = dir.join("in.c");
    fs::write(&input, src).expect("in.c");
    let out = dir.join("out.c");
    let o = Command::new(env!("CARGO_BIN_EXE_flextile"))
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .args(["--rectangle", "-v"])
        .args(extra)
        .output()
        .expect("run flextile");
    let log = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{log}");
    let text = fs::read_to_string(&out).expect("output");
    let banner: String = text
        .lines()
        .filter(|l| l.contains("flextile: scop"))
        .collect();
    assert!(banner.contains("overlapped tiling"), "{banner}");
    (banner, log)
}

/// Arrays the function owns and reads no more after the region are proved
/// temporary: an automatic array, a VLA, a malloc'ed block.
#[test]
fn owned_arrays_are_proved_temporary() {
    let dir = work_dir("proved");
    let malloc = "double *X = malloc(sizeof(double) * (size_t)n);\n  if (!X) return;";
    for (decl, after) in [
        ("double X[64];", "X[0] = 1.0;"),
        ("double X[n];", ""),
        (malloc, "free(X);"),
    ] {
        let src = kernel("void", decl, "X[0] = 0.0;", after, false);
        let (banner, log) = banner_and_log(&dir, &src, &[]);
        assert!(
            banner.contains("temporaries never stored: X (proved)"),
            "{decl}: {banner}\n{log}"
        );
        let (banner, _) = banner_and_log(&dir, &src, &["--no-infer-temporaries"]);
        assert!(!banner.contains("temporaries never stored"), "{banner}");
    }
    let _ = fs::remove_dir_all(&dir);
}

/// Where a region has proved temporaries, the banner marks each one proved
/// or declared.
#[test]
fn the_banner_tells_proved_from_declared() {
    let dir = work_dir("mixed");
    let src = kernel("void", "double X[64];", "", "", false)
        .replace("double *out)", "double *Y, double *out)")
        .replace("#pragma scop", "#pragma scop temporary(Y)")
        .replace(
            "X[i] = in[i] * 2.0;",
            "{ X[i] = in[i] * 2.0; Y[i] = in[i]; }",
        )
        .replace("X[i - 1] + X[i + 1]", "X[i - 1] + Y[i + 1]");
    let (banner, log) = banner_and_log(&dir, &src, &[]);
    assert!(
        banner.contains("temporaries never stored: Y (declared), X (proved)"),
        "{banner}\n{log}"
    );
    let (banner, _) = banner_and_log(&dir, &src, &["--no-infer-temporaries"]);
    assert!(banner.contains("temporaries never stored: Y,"), "{banner}");
    let _ = fs::remove_dir_all(&dir);
}

/// Negative controls: every other use of the array, or a read of it that
/// may follow the region, keeps it live-out; `-v` says why.
#[test]
fn other_uses_keep_arrays_live_out() {
    let dir = work_dir("live");
    let a = "double X[64];";
    let m = "double *X = malloc(sizeof(double) * (size_t)n);";
    let cases = [
        (kernel("void", a, "", "use(X);", false), "passed to a call"),
        (kernel("double *", m, "", "return X;", false), "returned"),
        (
            kernel("void", a, "", "keep = &X[1];", false),
            "the address of an element is taken",
        ),
        (
            kernel("void", m, "", "keep = X;", false),
            "assigned to another variable",
        ),
        (
            kernel("void", a, "", "out[0] = X[3];", false),
            "read after the region",
        ),
        (
            kernel("void", "static double X[64];", "", "", false),
            "declared static or extern",
        ),
        (
            kernel("void", a, "", "", true),
            "the region runs in a loop and reads it",
        ),
        (
            kernel("void", a, "CLEAR(0);", "", false),
            "named in a macro's body",
        ),
    ];
    for (src, why) in &cases {
        let (banner, log) = banner_and_log(&dir, src, &[]);
        assert!(
            !banner.contains("temporaries never stored"),
            "{src}\n{banner}"
        );
        let line = log
            .lines()
            .find(|l| l.contains("'X' is live-out"))
            .unwrap_or_else(|| panic!("no decision on X:\n{log}"));
        assert!(line.contains(why), "{line:?} lacks {why:?}\n{src}");
    }
    let _ = fs::remove_dir_all(&dir);
}

/// A temporary whose only statement runs no instance (its guard contradicts
/// its loop bounds) keeps its array; it is not an internal error (difftest
/// seed 4100310).
#[test]
fn a_temporary_never_accessed_keeps_its_array() {
    let dir = work_dir("empty");
    let src = dir.join("in.c");
    fs::write(
        &src,
        "void f(int N, double A[N + 8][N + 8])\n{\n  int i, j;\n#pragma scop temporary(A)\n  for (i = 8; i < N; i++)\n    for (j = 8; j <= i - 4; j++)\n      if (i <= j + 1)\n        A[i][j] = 0.5;\n#pragma endscop\n}\n",
    )
    .expect("in.c");
    let o = Command::new(env!("CARGO_BIN_EXE_flextile"))
        .arg(&src)
        .arg("-o")
        .arg(dir.join("out.c"))
        .arg("-v")
        .output()
        .expect("run flextile");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("contract: 'A' keeps its array: the region never accesses it"),
        "{err}"
    );
    let _ = fs::remove_dir_all(&dir);
}
