//! Which loop variables are live after a region, and the copy of the loops
//! that gives them their final values.

use crate::frontend::testutil::{errors, ok};

/// The live variables and the copied loops of the file's only region
/// (`None` when nothing is live).
fn finals(src: &str) -> Option<(Vec<String>, String)> {
    let p = ok(src);
    let f = p.regions[0].final_values.clone()?;
    Some((f.variables, f.lines.join("\n")))
}

/// A scop over `i` and `j` in `f`, followed by `after` (with `decl` before
/// the function).
fn scop(decl: &str, after: &str) -> String {
    format!(
        "{decl}\nint f(int n, double *A) {{\n  int i, j;\n#pragma scop\n  for (i = 0; i < n; i++)\n    if (i > 2)\n      for (j = n - 1; j > i; j -= 2)\n        A[i] += A[j];\n#pragma endscop\n{after}\n}}\n"
    )
}

#[test]
fn read_after_the_region() {
    let (vars, code) = finals(&scop("", "  return i * 1000 + j;")).expect("live");
    assert_eq!(vars, ["i", "j"]);
    assert_eq!(
        code,
        "for (i = 0; i < n; i++) {\n  if (i > 2) {\n    for (j = n - 1; j > i; j -= 2) {\n    }\n  }\n}"
    );
    // Only the loops around a live variable are copied.
    let (vars, code) = finals(&scop("", "  return i;")).expect("live");
    assert_eq!(vars, ["i"]);
    assert_eq!(code, "for (i = 0; i < n; i++) {\n}");
    let (vars, code) = finals(&scop("", "  return j;")).expect("live");
    assert_eq!(vars, ["j"]);
    assert!(code.contains("j -= 2"), "{code}");
}

#[test]
fn dead_after_the_region() {
    for after in [
        "  return 0;",
        "  i = 3; j = n; return i + j;",
        "  for (i = 0; i < n; i++) A[i] = 0;\n  for (j = 0; j < n; j++) A[j] = 1;\n  return 0;",
        // Another variable of the same name; a block entered in sequence.
        "  { int i = 4; return i; }",
        "  { A[0] = 1; { j = 0; } i = 2; }\n  return i + j;",
    ] {
        assert_eq!(finals(&scop("", after)), None, "{after}");
    }
    // Loops that declare their variable.
    let src = "int f(int n, double *A) {\n#pragma scop\n  for (int i = 0; i < n; i++) A[i] = 0;\n#pragma endscop\n  return n;\n}\n";
    assert_eq!(finals(src), None);
}

#[test]
fn conservatively_live() {
    for after in [
        // Read before assigned.
        "  i = i + 1; j = 0; return i;",
        "  if (n > 3) i = 0; return i + 0 * j;",
        // A jump may skip the assignment.
        "  while (n > 0) { if (n == 3) break; n--; }\n  i = 0; j = 0; return i + j;",
        // Behind a macro.
        "#define RESULT (i + j)\n  return RESULT;",
        // The address is taken.
        "  int *p = &i; j = 0; *p = 1; return 0;",
    ] {
        assert!(finals(&scop("", after)).is_some(), "{after}");
    }
    // A cleanup function reads it when it leaves its scope.
    let src = scop("void show(int *);", "  return 0;")
        .replace("  int i, j;", "  int i __attribute__((cleanup(show))), j;");
    assert_eq!(finals(&src).expect("cleanup").0, ["i"]);
    let src =
        scop("", "  return 0;").replace("  int i, j;", "  int i __attribute__((aligned(8))), j;");
    assert_eq!(finals(&src), None);
    let goto = "  i = 0; j = 0;\n  goto out;\nout:\n  return i + j;";
    assert!(finals(&scop("", goto)).is_some());
}

#[test]
fn globals_statics_and_enclosing_loops() {
    let src = "int i;\nvoid f(int n, double *A) {\n#pragma scop\n  for (i = 0; i < n; i++) A[i] = 0;\n#pragma endscop\n}\n";
    assert_eq!(finals(src).expect("global").0, ["i"]);
    let src = src.replace(
        "int i;\nvoid f(int n, double *A) {",
        "void f(int n, double *A) {\n  static int i;",
    );
    assert_eq!(finals(&src).expect("static").0, ["i"]);
    // The next iteration of an enclosing loop reads it before the region.
    let src = "int f(int T, int n, double *A) {\n  int i = 0;\n  for (int t = 0; t < T; t++) {\n    A[0] += i;\n#pragma scop\n    for (i = 0; i < n; i++) A[i] += 1;\n#pragma endscop\n  }\n  return 0;\n}\n";
    assert_eq!(finals(src).expect("loop").0, ["i"]);
    let dead = src.replace("A[0] += i;", "A[0] += 1;");
    assert_eq!(finals(&dead), None);
}

#[test]
fn loop_chains() {
    let src = "\
int f(int N, double *A, double *B) {
  int i;
#pragma omplc loopchain schedule(fuse())
  {
#pragma omplc for domain(0:N-1) with (i) read A {(i)} write B {(i)}
    for (i = 0; i < N; i++) B[i] = A[i];
#pragma omplc for domain(0:N-1) with (k) read B {(k)} write A {(k)}
    for (int k = 0; k < N; k++) A[k] = B[k];
  }
  return i;
}
";
    let (vars, code) = finals(src).expect("live");
    assert_eq!(vars, ["i"]);
    assert_eq!(code, "for (i = 0; i < N; i++) {\n}");
    // A header that reads what the chain assigns cannot be copied.
    let bad = src
        .replace("int i;", "int i, m = 0;")
        .replace(
            "for (i = 0; i < N; i++) B[i] = A[i];",
            "for (i = 0; i < N + m; i++) { B[i] = A[i]; m = 0; }",
        )
        .replace("write B {(i)}", "write B {(i)}, write M {(0)}");
    let e = errors(&bad);
    assert!(
        e.iter().any(
            |(m, t)| m.starts_with("the value of 'i' is read after this loop chain")
                && t.starts_with("for (i = 0")
        ),
        "{e:?}"
    );
}

#[test]
fn uses_outside_the_loops_are_errors() {
    let src = "void f(int n, double *A) {\n  int i;\n#pragma scop\n  for (i = 0; i < n; i++) A[i] = 0;\n  A[0] = i;\n#pragma endscop\n}\n";
    let e = errors(src);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].0
            .starts_with("'i' is the variable of a loop of this region and is used here outside"),
        "{e:?}"
    );
    assert_eq!(e[0].1, "i");
}

/// An `else` branch's loops are copied with the branch.
#[test]
fn else_branches_are_copied() {
    let src = "int f(int n, double *A) {\n  int i, j;\n#pragma scop\n  for (i = 0; i < n; i++)\n    if (i < 3)\n      A[i] = 1;\n    else\n      for (j = 0; j < i; j++)\n        A[j + 100] += A[j];\n#pragma endscop\n  return i * 1000 + j;\n}\n";
    let (vars, code) = finals(src).expect("live");
    assert_eq!(vars, ["i", "j"]);
    assert_eq!(
        code,
        "for (i = 0; i < n; i++) {\n  if (i < 3) {\n  } else {\n    for (j = 0; j < i; j++) {\n    }\n  }\n}"
    );
}
