use super::*;
use crate::frontend::testutil::{accesses, find_all, show_pieces, with_unit};
use crate::model::program::Piece;

fn show(t: &BodyTemplate) -> String {
    show_pieces(&t.pieces, true)
}

#[test]
fn templates_rename_only_iterator_tokens() {
    let src = "struct P { int i; };\nvoid f(struct P s, struct P *q, double *A, int i, int j) {\n  { A[i+j] = s.i + q->i /* i */ + sizeof(\"i\") + ij; }\n}\n";
    with_unit(src, |u| {
        let start = src.find("{ A[").unwrap();
        let end = src.find("ij; }").unwrap() + 5;
        let t = template(
            u,
            Span::new(start, end),
            &["i".to_string(), "j".to_string()],
        );
        assert_eq!(
            show(&t),
            "{ A[<0>+<1>] = s.i + q->i /* i */ + sizeof(\"i\") + ij; }"
        );
        assert_eq!(
            t.instantiate(&["(c0)".into(), "(c1)".into()]),
            "{ A[(c0)+(c1)] = s.i + q->i /* i */ + sizeof(\"i\") + ij; }"
        );
        assert!(matches!(t.pieces.first(), Some(Piece::Text(s)) if s == "{ A["));
    });
}

/// Analyses the first compound statement nested in the first `for` body of `src`.
fn analyse_first_body(src: &str, iters: &[&str], mode: Mode) -> (Vec<String>, bool, Vec<String>) {
    with_unit(src, |u| {
        let f = find_all(u, CursorKind::ForStmt)[0];
        let body = u.for_parts(f).unwrap().body;
        let span = body.span().unwrap();
        let iters: Vec<String> = iters.iter().map(|s| s.to_string()).collect();
        let writes = BTreeSet::new();
        let scope = BodyScope {
            mode,
            iterators: &iters,
            local_range: span,
            locals: &[],
            region_writes: &writes,
        };
        let a = analyse(u, body, span, &scope);
        (
            accesses(&a.accesses),
            a.analysable,
            a.errors.into_iter().map(|d| d.message).collect(),
        )
    })
}

#[test]
fn access_analysis() {
    let src = "\
double sqrt(double);
void f(int n, double *A, double B[][10], double *C, double s) {
  double t = 0;
  for (int i = 0; i < n; i++) {
double loc[2];
int k = i + 1;
loc[0] = sqrt(A[i]);
B[i][2 * i + 1] += loc[0] * s;
C[k]++;
t = t + B[i][0];
  }
}
";
    let (acc, ok, errs) = analyse_first_body(src, &["i"], Mode::Omplc);
    assert!(errs.is_empty(), "{errs:?}");
    assert!(!ok, "C[k] uses a local variable as subscript");
    assert_eq!(
        acc,
        [
            "R A[i]",
            "W B[i][((2 * i) + 1)]",
            "R B[i][((2 * i) + 1)]",
            "W C[*]",
            "R C[*]",
            "W t[]",
            "R B[i][0]",
            "R t[]"
        ]
    );
    let (_, ok, _) = analyse_first_body(&src.replace("C[k]++;", ""), &["i"], Mode::Omplc);
    assert!(ok);
}

#[test]
fn opaque_constructs() {
    let src = "\
void g(double *);
struct S { double v; };
void f(int n, double *A, double *p, struct S *q) {
  for (int i = 0; i < n; i++) { BODY; }
}
";
    for (body, what) in [
        ("g(A)", "a call to 'g'"),
        ("*p = A[i]", "a pointer dereference"),
        ("q->v = A[i]", "a member access"),
        ("p = &A[i]", "taking an address"),
        ("A[i] = p[0] + *(A + 1)", "a pointer dereference"),
    ] {
        let src = src.replace("BODY", body);
        let (_, ok, errs) = analyse_first_body(&src, &["i"], Mode::Omplc);
        assert!(!ok, "{body}");
        assert!(errs.is_empty(), "{body}: {errs:?}");
        let (_, _, errs) = analyse_first_body(&src, &["i"], Mode::Scop);
        assert!(errs.iter().any(|e| e.starts_with(what)), "{body}: {errs:?}");
    }
    let src = src.replace("BODY", "if (A[i] < 0) return; A[i] = 1");
    let (_, _, errs) = analyse_first_body(&src, &["i"], Mode::Omplc);
    assert_eq!(
        errs,
        ["'return' leaves the body of a stage; flextile cannot reorder such a body"]
    );
}

#[test]
fn macro_statements_with_iterator_arithmetic() {
    // A whole statement in a macro: its operators cannot be read, so the
    // left operands are guessed writes; an iterator argument counts as
    // assigned only where its parameter sits next to an assignment.
    let src = "\
#define ST(p) B[(p)] = 0.5 * A[(p)-1] + A[(p)+1] * (double)((p) % 3)
#define SET(p) (p) = 0
#define BUMP(p) ++p
void f(int n, double *A, double *B) {
  for (int i = 1; i < n; i++) { BODY; }
}
";
    let (_, ok, errs) = analyse_first_body(&src.replace("BODY", "ST(i)"), &["i"], Mode::Omplc);
    assert!(!ok);
    assert!(errs.is_empty(), "{errs:?}");
    // an argument passed on to another macro: assigned only where that
    // macro may assign it (`AT1(B, (p)) = ...` writes an element of B)
    let nested = "\
#define AT1(a, x) a[x]
#define ID(x) x
#define PUT(a, v) a = v
#define STAGE(p) do { double acc = 0.0; AT1(B, (p)) = acc + A[(p)+1]; } while (0)
#define SETID(p) ID(p) = 1
#define SETPUT(p) PUT(p, 2)
void f(int n, double *A, double *B) {
  for (int i = 1; i < n; i++) { BODY; }
}
";
    let (_, _, errs) = analyse_first_body(&nested.replace("BODY", "STAGE(i)"), &["i"], Mode::Omplc);
    assert!(errs.is_empty(), "{errs:?}");
    for body in ["SETID(i)", "SETPUT(i)"] {
        let (_, _, errs) = analyse_first_body(&nested.replace("BODY", body), &["i"], Mode::Omplc);
        assert_eq!(
            errs,
            ["the loop iterator 'i' is assigned in the body of a stage"],
            "{body}"
        );
    }
    for body in ["SET(i); ST(i)", "BUMP(i); ST(i)"] {
        let (_, _, errs) = analyse_first_body(&src.replace("BODY", body), &["i"], Mode::Omplc);
        assert_eq!(
            errs,
            ["the loop iterator 'i' is assigned in the body of a stage"],
            "{body}"
        );
    }
}

#[test]
fn macro_bodies_are_analysed_through_the_expansion() {
    // Issue 17: macros expanding to arithmetic keep the body analysable;
    // an operator of a macro body that cannot be read is assumed to be
    // an assignment where one may hide (transitively through the macros
    // it names); an access a macro body writes is exact but cannot be
    // redirected (not analysable).
    let src = "\
double sqrt(double);
#define V(x) x
#define ROOT(x) sqrt(x)
#define AVG(a, b) (((a) + (b)) / V(2.0))
#define ASSIGN(a, v) a = v
#define SET(a, v) ASSIGN(a, v)
#define AT(a, i) a[i]
void f(int n, double *A, double *B) {
  for (int i = 1; i < n; i++) { BODY; }
}
";
    let run = |body: &str| analyse_first_body(&src.replace("BODY", body), &["i"], Mode::Omplc);
    let (acc, ok, errs) = run("A[i] = (A[i-1] + A[i+1]) / V(9.0)");
    assert!(errs.is_empty() && ok, "{errs:?}");
    assert_eq!(acc, ["W A[i]", "R A[(i - 1)]", "R A[(i + 1)]"]);
    let (acc, ok, _) = run("V(B[i]) = ROOT(AVG(A[i-1], A[i+1]))");
    assert!(ok);
    assert_eq!(acc, ["W B[i]", "R A[(i - 1)]", "R A[(i + 1)]"]);
    // Its '=' is read through the expansion; the accesses are arguments.
    let (acc, ok, _) = run("SET(B[i], A[i])");
    assert!(ok);
    assert!(acc.contains(&"W B[i]".to_string()), "{acc:?}");
    let (acc, ok, _) = run("AT(B, i) = A[i] + 1");
    assert!(!ok, "AT(B, i) has no text 'B[' to redirect");
    assert_eq!(acc, ["W B[i]", "R A[i]"]);
    let (_, _, errs) = run("SET(B[i], A[i])");
    assert!(errs.is_empty(), "{errs:?}");
    let (_, _, errs) =
        analyse_first_body(&src.replace("BODY", "SET(B[i], A[i])"), &["i"], Mode::Scop);
    // A scop statement too: its assignment is read through the expansion.
    assert!(errs.is_empty(), "{errs:?}");
}

#[test]
fn value_changing_conversions_make_subscripts_non_affine() {
    let src = "\
void f(int n, unsigned u, double *A, double *B) {
  for (int i = 1; i < n; i++) { BODY; }
}
";
    let run = |body: &str| analyse_first_body(&src.replace("BODY", body), &["i"], Mode::Omplc);
    let (acc, ok, _) = run("B[i] = A[(unsigned char)(i - 100)]");
    assert!(!ok);
    assert_eq!(acc, ["W B[i]", "R A[*]"]);
    let (acc, ok, _) = run("B[i] = A[i + u]");
    assert!(!ok);
    assert_eq!(acc, ["W B[i]", "R A[*]"]);
    let (acc, ok, _) = run("B[(long)i] = A[(int)i + (long)1]");
    assert!(ok);
    assert_eq!(acc, ["W B[i]", "R A[(i + 1)]"]);
}

#[test]
fn assigned_variables() {
    let src = "void f(int n, double *A, int m) { int x; for (int i = 0; i < n; i++) { A[i] = 0; m += 1; x = 2; } }\n";
    with_unit(src, |u| {
        let f = find_all(u, CursorKind::ForStmt)[0];
        let mut out = BTreeSet::new();
        assigned_vars(u, f, &mut out);
        let v: Vec<&str> = out.iter().map(String::as_str).collect();
        assert_eq!(v, ["A", "i", "m", "x"]);
    });
}

/// Operators of macro bodies cannot be read (libclang 14): which variables
/// they may assign is decided from where the macro bodies spell them.
#[test]
fn assigned_variables_through_macro_bodies() {
    let assigned = |defs: &str, stmt: &str| -> Vec<String> {
        let src = format!(
            "{defs}\nvoid f(int n, int K, double *A, double *E, int m) {{ double acc; \
             for (int i = 0; i < n; i++) {{ {stmt}; }} }}\n"
        );
        with_unit(&src, |u| {
            let f = find_all(u, CursorKind::ForStmt)[0];
            let mut out = BTreeSet::new();
            assigned_vars(u, f, &mut out);
            out.into_iter().filter(|v| v != "i").collect()
        })
    };
    // read in a macro body that assigns other things: not assigned
    let loop_body = "#define ACC(p) do { acc = 0.0; for (int q = 0; q < K+16; q++) \
                     acc = 0.5 * acc + A[(p) - q]; E[(p)] = acc; } while (0)";
    assert_eq!(assigned(loop_body, "ACC(i)"), ["E", "acc", "q"]);
    // assigned by the body, by a nested macro, through a name, by a parameter
    assert_eq!(assigned("#define SETK K = 3", "SETK"), ["K"]);
    assert_eq!(assigned("#define INCK (K)++", "INCK"), ["K"]);
    assert_eq!(assigned("#define KK K\n#define SET KK = 1", "SET"), ["K"]);
    assert_eq!(assigned("#define S(p) K p 3", "S(=)"), ["K"]);
    assert_eq!(assigned("#define SET(x, v) x = v", "SET(m, K)"), ["m"]);
    assert_eq!(assigned("#define SETA(x) A[K + (x)] = x", "SETA(i)"), ["A"]);
    assert_eq!(
        assigned("#define A2(a, x) a[x]\n#define ST A2(E, K) = 1.0", "ST"),
        ["E"]
    );
}

/// What analysing the body of the innermost (last) `for` of `src` gives:
/// the template with access holes shown, the accesses, the element types,
/// and the template instantiated with the iterators' own names.
struct Holes {
    shown: String,
    accesses: Vec<String>,
    types: Vec<(String, String)>,
    analysable: bool,
    spelled: bool,
    original: String,
    instantiated: String,
    /// Every hole as `@k`, a gather's as `@k{subscripts}`, over `c0`, `c1`, ...
    respelled: String,
    /// Instantiated with `ck` in the analysed accesses' subscripts and
    /// `((int)ck)` elsewhere (`BodyTemplate::instantiate_split`).
    split: String,
}

fn holes_in(src: &str, iters: &[&str], mode: Mode) -> Holes {
    with_unit(src, |u| {
        let f = *find_all(u, CursorKind::ForStmt).last().unwrap();
        let body = u.for_parts(f).unwrap().body;
        let span = u.with_semicolon(body.span().unwrap());
        let iters: Vec<String> = iters.iter().map(|s| s.to_string()).collect();
        let mut writes = BTreeSet::new();
        assigned_vars(u, body, &mut writes);
        let scope = BodyScope {
            mode,
            iterators: &iters,
            local_range: span,
            locals: &[],
            region_writes: &writes,
        };
        let a = analyse(u, body, span, &scope);
        assert!(a.errors.is_empty(), "{:?}", a.errors);
        let t = template_with_accesses(u, span, &iters, &a.holes);
        Holes {
            shown: show(&t),
            accesses: accesses(&a.accesses),
            types: a.types.into_iter().collect(),
            analysable: a.analysable,
            spelled: a.spelled,
            original: u.slice(span).to_string(),
            instantiated: t.instantiate(&iters),
            respelled: t.instantiate_with(
                &(0..iters.len())
                    .map(|k| format!("c{k}"))
                    .collect::<Vec<_>>(),
                &mut |k, subs| {
                    Some(match subs.is_empty() {
                        true => format!("@{k}"),
                        false => format!("@{k}{{{}}}", subs.join(",")),
                    })
                },
            ),
            split: t.instantiate_split(
                &(0..iters.len())
                    .map(|k| format!("((int)c{k})"))
                    .collect::<Vec<_>>(),
                &(0..iters.len())
                    .map(|k| format!("c{k}"))
                    .collect::<Vec<_>>(),
                &mut |_, _| None,
            ),
        }
    })
}

fn types(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, t)| (a.to_string(), t.to_string()))
        .collect()
}

#[test]
fn access_holes_one_dimension_and_compound_assignment() {
    let src = "\
void f(int n, double *A, double *B, float *restrict C, const double *D) {
  double t = 0;
  for (int i = 1; i < n; i++) {
B[i] = A[i-1] + A[ i ] * D[2*i];
B[i] += A[i+1] + t;
C[i]++;
t = C[i];
  }
}
";
    let h = holes_in(src, &["i"], Mode::Omplc);
    assert!(h.analysable);
    assert_eq!(
        h.accesses,
        [
            "W B[i]",
            "R A[(i - 1)]",
            "R A[i]",
            "R D[(2 * i)]",
            "R B[i]",
            "R A[(i + 1)]",
            "W C[i]",
            "R C[i]",
            "W t[]",
            "R t[]"
        ]
    );
    // `B[i] +=` and `C[i]++` name their write (0 and 6); the read of the
    // same element (4 and 7) is the same text. The plain read `C[i]` is 7.
    assert_eq!(
        h.shown,
        "{
«0:B[<0>]» = «1:A[<0>-1]» + «2:A[ <0> ]» * «3:D[2*<0>]»;
«0:B[<0>]» += «5:A[<0>+1]» + t;
«6:C[<0>]»++;
t = «7:C[<0>]»;
  }"
    );
    assert_eq!(h.instantiated, h.original);
    assert_eq!(
        h.types,
        types(&[
            ("A", "double"),
            ("B", "double"),
            ("C", "float"),
            ("D", "double")
        ])
    );
}

#[test]
fn access_holes_two_dimensions() {
    // VLA parameters, VLA pointers, typedefs, qualifiers.
    let src = "\
typedef double real;
void f(int N, int C, double A[N][N], const double B[N][N], float (*P)[C],
   unsigned short (*restrict U)[C], real R[][8], volatile int V[N][N]) {
  for (int i = 0; i < N; i++)
for (int j = 0; j < C; j++)
  A[i][j] = B[j][i] * 2 + P[i][j+1] + U[ i ][j] + R[i][0] + V[N-1-i][j];
}
";
    let h = holes_in(src, &["i", "j"], Mode::Scop);
    assert!(h.analysable);
    assert_eq!(
        h.shown,
        "«0:A[<0>][<1>]» = «1:B[<1>][<0>]» * 2 + «2:P[<0>][<1>+1]» + «3:U[ <0> ][<1>]» \
         + «4:R[<0>][0]» + «5:V[N-1-<0>][<1>]»;"
    );
    assert_eq!(h.instantiated, h.original);
    assert_eq!(
        h.accesses,
        [
            "W A[i][j]",
            "R B[j][i]",
            "R P[i][(j + 1)]",
            "R U[i][j]",
            "R R[i][0]",
            "R V[((N - 1) - i)][j]"
        ]
    );
    assert_eq!(
        h.types,
        types(&[
            ("A", "double"),
            ("B", "double"),
            ("P", "float"),
            ("R", "real"),
            ("U", "unsigned short"),
            ("V", "int")
        ])
    );
}

/// A data-dependent subscript makes a body not analysable, but its access
/// is a hole (a gather) whose subscripts hold holes in turn: a back end
/// that respells every access (CUDA) can print it; its text stays.
#[test]
fn gathers_are_holes_whose_subscripts_hold_holes() {
    let src = "void f(int n, int *img, int *hist, double *A, double *B, double (*M)[8]) {\n  for (int i = 0; i < n; i++) { BODY }\n}\n";
    let body = "hist[img[i]]++; B[i] = A[(unsigned char)(i + 1)] * M[i][img[i] & 7];";
    let h = holes_in(&src.replace("BODY", body), &["i"], Mode::Omplc);
    assert!(!h.analysable && h.spelled);
    assert_eq!(
        h.respelled,
        "{ @1{@0}++; @3 = @4{(unsigned char)(c0 + 1)} * @5{c0,@0 & 7}; }"
    );
    assert_eq!(h.instantiated, h.original);
    assert_eq!(
        h.accesses,
        [
            "R img[i]",
            "W hist[*]",
            "R hist[*]",
            "W B[i]",
            "R A[*]",
            "R M[i][*]"
        ]
    );
    assert_eq!(
        h.types,
        types(&[
            ("A", "double"),
            ("B", "double"),
            ("M", "double"),
            ("hist", "int"),
            ("img", "int")
        ])
    );
    // A subscript that is a variable of the body.
    let h = holes_in(
        &src.replace("BODY", "int k = i; B[k] = A[i];"),
        &["i"],
        Mode::Omplc,
    );
    assert!(!h.analysable && h.spelled);
    assert_eq!(h.respelled, "{ int k = c0; @0{k} = @1; }");
    // A gather inside a macro's body is not spelled.
    let h = holes_in(
        &format!(
            "#define AT(a, k) a[k]\n{}",
            src.replace("BODY", "B[i] = AT(A, img[i]);")
        ),
        &["i"],
        Mode::Omplc,
    );
    assert!(!h.analysable && !h.spelled);
}

#[test]
fn no_access_holes_in_bodies_that_are_not_analysable() {
    let src = "\
double g(double);
void f(int n, int *img, int *hist, double *A, double *B) {
  for (int i = 0; i < n; i++) { BODY }
}
";
    for body in ["B[i] = g(A[i]);", "B[i] = *A;"] {
        let h = holes_in(&src.replace("BODY", body), &["i"], Mode::Omplc);
        assert!(!h.analysable, "{body}");
        assert!(!h.shown.contains('«'), "{body}: {}", h.shown);
        assert!(h.types.is_empty(), "{body}: {:?}", h.types);
        assert_eq!(h.instantiated, h.original);
    }
    // Local arrays and scalars are no holes; the body stays analysable.
    let h = holes_in(
        &src.replace("BODY", "double loc[2]; loc[0] = A[i]; B[i] = loc[0];"),
        &["i"],
        Mode::Omplc,
    );
    assert!(h.analysable);
    assert_eq!(
        h.shown,
        "{ double loc[2]; loc[0] = «0:A[<0>]»; «1:B[<0>]» = loc[0]; }"
    );
    assert_eq!(h.types, types(&[("A", "double"), ("B", "double")]));
}

#[test]
fn nested_holes_are_dropped_and_instantiation_fills_holes() {
    with_unit("void f(double *A, int i) { A[i] = A[i + 1]; }\n", |u| {
        let src = u.text;
        let start = src.find("A[i] =").unwrap();
        let end = src.find("; }").unwrap() + 1;
        let at = |s: &str| {
            let a = src.find(s).unwrap();
            Span::new(a, a + s.len())
        };
        let holes = [
            AccessHole {
                span: at("A[i + 1]"),
                access: 1,
                reads_too: false,
                subscripts: vec![],
            },
            AccessHole {
                span: at("i + 1"),
                access: 7,
                reads_too: false,
                subscripts: vec![],
            },
            AccessHole {
                span: at("A[i]"),
                access: 0,
                reads_too: false,
                subscripts: vec![],
            },
        ];
        let t = template_with_accesses(u, Span::new(start, end), &["i".to_string()], &holes);
        assert_eq!(show(&t), "«0:A[<0>]» = «1:A[<0> + 1]»;");
        assert_eq!(t.instantiate(&["c0".into()]), "A[c0] = A[c0 + 1];");
        let mut f = |k: usize, _: &[String]| (k == 1).then(|| "buf[c0 - lo]".to_string());
        assert_eq!(
            t.instantiate_with(&["c0".into()], &mut f),
            "A[c0] = buf[c0 - lo];"
        );
    });
}

#[test]
fn split_instantiation_spells_subscripts_apart() {
    let src = "\
void f(int n, unsigned U, int *H, double *A, double *B) {
  for (int i = 0; i < n; i++) { BODY }
}
";
    // Analysed subscripts take the second list, every other use the first.
    let h = holes_in(
        &src.replace("BODY", "B[i] = i < U ? A[i - 1] : 0.0;"),
        &["i"],
        Mode::Scop,
    );
    assert!(h.analysable);
    assert_eq!(h.split, "{ B[c0] = ((int)c0) < U ? A[c0 - 1] : 0.0; }");
    // A gather's subscripts are not analysed: the first list there too.
    let h = holes_in(
        &src.replace("BODY", "B[i] = A[H[i] + i];"),
        &["i"],
        Mode::Omplc,
    );
    assert!(!h.analysable && h.spelled);
    assert_eq!(h.split, "{ B[c0] = A[H[((int)c0)] + ((int)c0)]; }");
}

#[test]
fn clamp_macros_in_gather_subscripts_keep_their_text() {
    // A function-like macro in a subscript inside another's argument: the
    // subscript's text is the inner invocation (it was empty).
    let src = "\
#define max(a, b) ((a) > (b) ? (a) : (b))
#define min(a, b) ((a) < (b) ? (a) : (b))
void f(int h, int w, double (*in)[8], double (*out)[8]) {
  for (int j = 0; j < h; j++) for (int i = 0; i < w; i++) { BODY }
}
";
    let h = holes_in(
        &src.replace(
            "BODY",
            "out[j][i] = max(in[j][min(max(i - 1, 0), w - 1)], in[j][i]);",
        ),
        &["j", "i"],
        Mode::Omplc,
    );
    assert!(h.spelled, "{}", h.shown);
    assert_eq!(h.respelled, "{ @0 = max(@1, @2); }", "{:?}", h.accesses);
    assert_eq!(h.instantiated, h.original);
}
