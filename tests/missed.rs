//! The notes on loops left serial (issue 56, class 9): for each kind of
//! obstacle, the exact text flextile prints (the loop, the dependence, the
//! two accesses, and what would remove it); `-Rmissed` for the loops
//! outside a parallel one; the banner that says "OpenMP" only where a loop
//! got a pragma; notes are not warnings under `--fatal-warnings`; a file
//! without a region gets a warning.

use std::fs;
use std::path::PathBuf;
use std::process::Command;

/// Compiles `src` (as `in.c`) with `args`; exit status, stderr and output.
fn compile(test: &str, src: &str, args: &[&str]) -> (i32, String, String) {
    let d = std::env::temp_dir().join(format!("flextile-missed-{test}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).expect("test folder");
    fs::write(d.join("in.c"), src).expect("in.c");
    let o = Command::new(env!("CARGO_BIN_EXE_flextile"))
        .current_dir(&d)
        .args(["in.c", "-o", "out.c"])
        .args(args)
        .output()
        .expect("run flextile");
    let out: PathBuf = d.join("out.c");
    let text = fs::read_to_string(out).unwrap_or_default();
    let _ = fs::remove_dir_all(&d);
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        text,
    )
}

/// Asserts that flextile exits 0 and prints exactly `expected` on stderr.
fn notes(test: &str, src: &str, args: &[&str], expected: &str) -> String {
    let (rc, err, out) = compile(test, src, args);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(err, expected, "stderr of {test}:\n{err}");
    out
}

const SHARED_SCALAR: &str = "void f(int n, int m, float A[n][m], float B[n][m], float *out)
{
    float last = 0;
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            last = A[i][j];
            B[i][j] = 2 * last;
        }
#pragma endscop
    *out = last;
}
";

#[test]
fn a_scalar_read_after_the_region_is_named_with_its_use() {
    let out = notes(
        "scalar",
        SHARED_SCALAR,
        &[],
        "in.c:5:5: note: loop 'i' stays serial: it carries a write-after-write dependence on 'last'
    for (int i = 0; i < n; i++)
    ^~~
in.c:7:13: note: the write 'last' in one iteration, and again in a later one
            last = A[i][j];
            ^~~~
in.c:7:13: note: 'last' is not private to an iteration: it is used on line 11 outside the statements that assign it first
            last = A[i][j];
            ^~~~
",
    );
    assert!(out.contains("no parallel loop (see the notes)"), "{out}");
    assert!(!out.contains("#pragma omp parallel"), "{out}");
    assert!(!out.contains("OpenMP"), "{out}");
}

#[test]
fn a_linearised_subscript_is_named_with_the_fix() {
    let src = "void f(int rows, int cols, float *restrict a, float *restrict b)
{
#pragma scop
    for (int i = 1; i < rows - 1; i++)
        for (int j = 0; j < cols; j++)
            b[i*cols + j] = a[(i-1)*cols + j] + a[(i+1)*cols + j];
#pragma endscop
}
";
    notes(
        "linear",
        src,
        &[],
        "in.c:4:5: note: loop 'i' stays serial: it carries a write-after-write dependence on 'b'
    for (int i = 1; i < rows - 1; i++)
    ^~~
in.c:6:13: note: the write 'b[i*cols + j]' in one iteration, and again in a later one
            b[i*cols + j] = a[(i-1)*cols + j] + a[(i+1)*cols + j];
            ^~~~~~~~~~~~~
in.c:6:13: note: this subscript is not affine in the loop variables, so flextile assumes it may touch any element of 'b': a linearised subscript with a run-time width; indexing 'b' as a 2-D array (a pointer to rows, 'float (*b)[W]') makes it affine
            b[i*cols + j] = a[(i-1)*cols + j] + a[(i+1)*cols + j];
            ^~~~~~~~~~~~~
",
    );
}

#[test]
fn a_recurrence_names_both_accesses() {
    let src = "void f(int n, double *restrict A, double *restrict B)
{
#pragma scop
    for (int i = 1; i < n; i++)
        A[i] = A[i - 1] * 0.5 + B[i];
#pragma endscop
}
";
    let expected =
        "in.c:4:5: note: loop 'i' stays serial: it carries a read-after-write dependence on 'A'
    for (int i = 1; i < n; i++)
    ^~~
in.c:5:9: note: the write 'A[i]' in one iteration
        A[i] = A[i - 1] * 0.5 + B[i];
        ^~~~
in.c:5:16: note: the read 'A[i - 1]' in a later iteration
        A[i] = A[i - 1] * 0.5 + B[i];
               ^~~~~~~~
";
    notes("recurrence", src, &[], expected);
    // Notes are not warnings: --fatal-warnings still compiles.
    notes("recurrence-fatal", src, &["--fatal-warnings"], expected);
    // The same under --tile and for CUDA.
    notes("recurrence-tile", src, &["--tile"], expected);
}

#[test]
fn an_accumulation_is_named_as_one() {
    let src = "double f(int n, double *restrict A)
{
    double sum = 0;
#pragma scop
    for (int i = 0; i < n; i++)
        sum += A[i];
#pragma endscop
    return sum;
}
";
    notes(
        "sum",
        src,
        &[],
        "in.c:5:5: note: loop 'i' stays serial: it carries a read-after-write dependence on 'sum'
    for (int i = 0; i < n; i++)
    ^~~
in.c:6:9: note: the write 'sum' in one iteration
        sum += A[i];
        ^~~
in.c:6:9: note: the read 'sum' in a later iteration
        sum += A[i];
        ^~~
in.c:6:9: note: 'sum' is a floating-point sum: running its iterations in parallel would reassociate it and change the result's bits, so they keep their order (integer reductions run in parallel)
        sum += A[i];
        ^~~
",
    );
    // An integer sum reassociates exactly: a parallel loop with OpenMP's
    // reduction clause, and no note.
    let int = src
        .replace(
            "double f(int n, double *restrict A)",
            "long f(int n, int *restrict A)",
        )
        .replace("double sum = 0;", "long sum = 0;");
    let out = notes("int-sum", &int, &[], "");
    assert!(
        out.contains("#pragma omp parallel for reduction(+:sum)\n"),
        "{out}"
    );
    // CUDA kernels have no reduction clause: the loop stays serial there.
    let (rc, err, _) = compile("int-sum-cuda", &int, &["--target", "cuda"]);
    assert_eq!(rc, 0, "{err}");
    assert!(err.contains("note: loop 'i' stays serial"), "{err}");
}

#[test]
fn errno_the_program_reads_is_per_thread_state() {
    let src = "#include <errno.h>
#include <math.h>
int f(int n, double *restrict x, double *restrict y)
{
    errno = 0;
#pragma scop
    for (int i = 0; i < n; i++)
        y[i] = sqrt(x[i]);
#pragma endscop
    return errno;
}
";
    let (rc, err, _) = compile("errno", src, &[]);
    assert_eq!(rc, 0, "{err}");
    let note = "in.c:7:5: note: loop 'i' stays serial: it carries a read-after-write dependence on per-thread state (at 'sqrt(x[i])')
    for (int i = 0; i < n; i++)
    ^~~
in.c:8:16: note: the write 'sqrt(x[i])' in one iteration
        y[i] = sqrt(x[i]);
               ^~~~~~~~~~
in.c:8:16: note: the read 'sqrt(x[i])' in a later iteration
        y[i] = sqrt(x[i]);
               ^~~~~~~~~~
in.c:8:16: note: this touches per-thread state (a thread-local object, errno or the floating-point environment that the program reads): its uses keep their thread and their order
        y[i] = sqrt(x[i]);
               ^~~~~~~~~~
";
    assert!(err.ends_with(note), "{err}");
    assert!(
        err.starts_with("in.c:8:16: warning: 'sqrt' may set errno"),
        "{err}"
    );
}

const TIME_LOOP: &str = "void f(int T, int n, double A[n], double B[n])
{
#pragma scop
    for (int t = 0; t < T; t++) {
        for (int i = 1; i < n - 1; i++)
            B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3;
        for (int i = 1; i < n - 1; i++)
            A[i] = B[i];
    }
#pragma endscop
}
";

#[test]
fn rmissed_names_the_serial_loop_outside_a_parallel_one() {
    // Without -Rmissed, a nest with a parallel loop gets no note.
    let out = notes("time", TIME_LOOP, &[], "");
    assert!(out.contains("#pragma omp parallel for"), "{out}");
    assert!(out.contains("OpenMP"), "{out}");
    let expected = "in.c:4:5: note: loop 't' stays serial (an inner loop runs in parallel): it carries dependences: read-after-write on 'A'; write-after-write on 'B'
    for (int t = 0; t < T; t++) {
    ^~~
in.c:8:13: note: the write 'A[i]' in one iteration
            A[i] = B[i];
            ^~~~
in.c:6:21: note: the read 'A[i - 1]' in a later iteration
            B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3;
                    ^~~~~~~~
in.c:6:13: note: the write 'B[i]' in one iteration, and again in a later one
            B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3;
            ^~~~
";
    notes("time-rmissed", TIME_LOOP, &["-Rmissed"], expected);
    // --explain works in every mode, and implies -Rmissed.
    notes("time-explain", TIME_LOOP, &["--explain"], expected);
    // -Rmissed changes no output.
    let (_, _, plain) = compile("time-plain", TIME_LOOP, &[]);
    let (_, _, remarked) = compile("time-remarked", TIME_LOOP, &["-Rmissed"]);
    assert_eq!(plain, remarked);
}

#[test]
fn an_unknown_remark_is_an_error() {
    let (rc, err, _) = compile("remark", TIME_LOOP, &["-Rpassed"]);
    assert_eq!(rc, 1, "{err}");
    assert!(
        err.contains("unknown remark kind '-Rpassed': flextile's remarks are -Rmissed"),
        "{err}"
    );
}

#[test]
fn a_file_without_a_region_gets_a_warning() {
    let src = "int main(void)\n{\n    return 0;\n}\n";
    let (rc, err, out) = compile("none", src, &[]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(
        err,
        "in.c:1:1: warning: this file has no '#pragma scop' and no '#pragma omplc loopchain' (outside code that '#if' leaves out): flextile transforms nothing, and the output is the input\nint main(void)\n^\n"
    );
    assert!(out.contains("return 0;"), "{out}");
}
