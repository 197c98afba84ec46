//! Per-thread state: the data sets that keep loops serial, and the warnings.

use crate::frontend::testutil::{accesses, ok};
use crate::model::program::Program;

/// The accesses of every stage of the first region to per-thread data sets.
fn serialised(p: &Program) -> Vec<Vec<String>> {
    let r = &p.regions[0];
    r.stages
        .iter()
        .map(|s| {
            accesses(&s.accesses)
                .into_iter()
                .filter(|a| r.thread_state.iter().any(|t| a.contains(t.as_str())))
                .collect()
        })
        .collect()
}

const TWO: &str = "\
HEAD
void f(int n, double *A, double *B) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = FIRST;
  for (i = 0; i < n; i++)
    B[i] = SECOND;
#pragma endscop
}
";

/// [`TWO`] with its declarations and two statements' right-hand sides.
fn two(head: &str, first: &str, second: &str) -> Program {
    ok(&TWO
        .replace("HEAD", head)
        .replace("FIRST", first)
        .replace("SECOND", second))
}

#[test]
fn thread_local_variables_serialise_the_stages_that_use_them() {
    let p = two(
        "static _Thread_local double T[100];\n__thread double g;",
        "T[i] * 2.0",
        "A[i] * g",
    );
    assert_eq!(
        serialised(&p),
        [
            vec!["W ft_thread_local_T[]", "R ft_thread_local_T[]"],
            vec!["W ft_thread_local_g[]", "R ft_thread_local_g[]"],
        ]
    );
    let r = &p.regions[0];
    assert_eq!(r.thread_state, ["ft_thread_local_T", "ft_thread_local_g"]);
    assert!(r.storage["ft_thread_local_g"].is_some());
    assert_eq!(p.warnings.len(), 2, "{:?}", p.warnings);
    let w = &p.warnings[0];
    assert!(
        w.message.starts_with("'T' is thread-local"),
        "{}",
        w.message
    );
    assert!(w
        .message
        .contains("loops of statement 'A[i] = T[i] * 2.0;'"));
    assert_eq!(w.notes[0].message, "'T' is declared thread-local here");
    // One object used by both stages: one data set, one warning.
    let p = two("static __thread double T[100];", "T[i]", "T[i + 1]");
    assert_eq!(
        serialised(&p)[1],
        ["W ft_thread_local_T[]", "R ft_thread_local_T[]"]
    );
    assert_eq!(p.warnings.len(), 1);
    assert!(p.warnings[0]
        .message
        .contains(" and statement 'B[i] = T[i + 1];'"));
    // Plain globals and statics are shared by the threads: nothing.
    let p = two("static double T[100];\ndouble g;", "T[i] * g", "A[i]");
    assert!(p.regions[0].thread_state.is_empty() && p.warnings.is_empty());
}

#[test]
fn a_use_in_a_loop_header_serialises_every_stage() {
    let src = "\
__thread int m;
void f(int n, double *A, double *B) {
  int i;
#pragma scop
  for (i = 0; i < m; i++)
    A[i] = 1.0;
  for (i = 0; i < n; i++)
    B[i] = 2.0;
#pragma endscop
}
";
    let p = ok(src);
    assert!(
        serialised(&p).iter().all(|s| s.len() == 2),
        "{:?}",
        serialised(&p)
    );
}

#[test]
fn errno_setting_calls_serialise_where_the_program_reads_errno() {
    let reads = "#include <errno.h>\n#include <math.h>\nint g(void) { return errno; }";
    let p = two(reads, "sqrt(A[i])", "fabs(B[i]) + floor(A[i])");
    assert_eq!(
        serialised(&p),
        [vec!["W ft_errno[]", "R ft_errno[]"], vec![]]
    );
    let w = &p.warnings[0];
    assert!(
        w.message
            .starts_with("'sqrt' may set errno, which the program reads:"),
        "{}",
        w.message
    );
    assert_eq!(w.notes[0].message, "the program uses errno here");
    // Without a read of errno, no call is serialised.
    let p = two("#include <math.h>", "sqrt(A[i])", "exp(A[i])");
    assert!(p.regions[0].thread_state.is_empty() && p.warnings.is_empty());
    // perror reads errno too.
    let p = two(
        "#include <math.h>\n#include <stdio.h>\nvoid g(void) { perror(\"g\"); }",
        "A[i]",
        "log(B[i])",
    );
    assert_eq!(serialised(&p)[1], ["W ft_errno[]", "R ft_errno[]"]);
    assert!(p.warnings[0].message.contains("reads (through 'perror')"));
}

#[test]
fn chain_nests_count_with_their_loops() {
    let src = "\
#include <errno.h>
#include <math.h>
static __thread double L[64];
int f(int n, double *A, double *B) {
#pragma omplc loopchain schedule()
  {
#pragma omplc for domain(0:n-1) with (i) read A {(i)}, read L {(i)}, write B {(i)}
    for (int i = 0; i < n; i++)
      B[i] = A[i] * L[i];
#pragma omplc for domain(0:n-1) with (i) read B {(i)}, write A {(i)}
    for (int i = 0; i < n; i++)
      A[i] = pow(B[i], 0.5);
  }
  return errno;
}
";
    let p = ok(src);
    assert_eq!(
        serialised(&p),
        [
            vec!["W ft_thread_local_L[]", "R ft_thread_local_L[]"],
            vec!["W ft_errno[]", "R ft_errno[]"],
        ]
    );
}

#[test]
fn the_floating_point_environment_serialises_every_stage() {
    let fenv = "#include <fenv.h>\nint g(void) { return fetestexcept(FE_DIVBYZERO); }";
    let p = two(fenv, "1.0 / A[i]", "B[i] + 1.0");
    assert_eq!(
        serialised(&p),
        [
            vec!["W ft_fenv[]", "R ft_fenv[]"],
            vec!["W ft_fenv[]", "R ft_fenv[]"],
        ]
    );
    let w = &p.warnings[0];
    assert!(
        w.message.starts_with(
            "the program uses the floating-point environment (through 'fetestexcept')"
        ),
        "{}",
        w.message
    );
    assert_eq!(
        w.notes[0].message,
        "the program uses the floating-point environment here"
    );
}
