//! Tests of [`super`]: small C files, their fixes rendered with prefix `ft_`.

use super::*;
use crate::frontend::cxx::CxxFixes;
use crate::frontend::testutil::parse_str;

/// The fixes of `src` (which must parse), and `src` with them applied.
fn fixed(src: &str) -> (CxxFixes, String) {
    let p = parse_str(src).expect("parses");
    let text = p.cxx.apply(&p.file.text, "ft_");
    (p.cxx, text)
}

/// `src` with its fixes applied, which must leave no problem.
fn clean(src: &str) -> String {
    let (fixes, out) = fixed(src);
    assert!(fixes.problems.is_empty(), "{:?}", fixes.problems);
    out
}

/// The messages of the problems of `src`.
fn problems(src: &str) -> Vec<String> {
    let p = parse_str(src).expect("parses");
    p.cxx.problems.iter().map(|d| d.message.clone()).collect()
}

/// Asserts that `src` has exactly one problem, containing `what`.
fn refused(src: &str, what: &str) {
    let p = problems(src);
    assert!(
        p.len() == 1 && p[0].contains(what),
        "expected one problem with '{what}': {p:?}"
    );
}

#[test]
fn tentative_definitions_become_extern_declarations() {
    let out = clean(
        "int n;\nstatic double buf[64];\nint a[];\nint n;\nstatic double buf[64];\n\
         int a[10];\nint m = 2;\nint m;\n",
    );
    assert_eq!(
        out,
        "extern int n;\nstatic double buf[64];\nextern int a[];\nint n;\n\
         extern double buf[64];\nint a[10];\nint m = 2;\nextern int m;\n"
    );
}

#[test]
fn tentative_definitions_that_cannot_be_rewritten_are_refused() {
    refused(
        "static int x;\nstatic int x = 5;\n",
        "'static' without an initialiser",
    );
    refused("int n, m;\nint n;\n", "declares other variables too");
}

#[test]
fn const_objects_keep_external_linkage() {
    let out = clean("const int K = 3;\nconst double w[2] = {1, 2};\nstatic const int L = 1;\n");
    assert_eq!(
        out,
        "extern const int K = 3;\nextern const double w[2] = {1, 2};\nstatic const int L = 1;\n"
    );
    refused("const int Z;\n", "no initialiser");
    refused("void f(void) { const int z; (void)z; }\n", "no initialiser");
    // A tentative declaration before the definition is a declaration.
    let out = clean("const int K;\nconst int K = 3;\n");
    assert_eq!(out, "extern const int K;\nextern const int K = 3;\n");
}

#[test]
fn knr_definitions_get_prototypes() {
    let out = clean(
        "int g();\ndouble scale(a, p) int a; double *p; { return a * *p; }\n\
         int g(k) int k; { return k; }\nint h(void) { return g(1); }\n",
    );
    assert_eq!(
        out,
        "int g(int k);\ndouble scale(int a, double *p)\n{ return a * *p; }\n\
         int g(int k)\n{ return k; }\nint h(void) { return g(1); }\n"
    );
    refused(
        "int f(x) float x; { return x; }\n",
        "default argument promotions",
    );
    refused(
        "int f(c) char c; { return c; }\n",
        "default argument promotions",
    );
}

#[test]
fn unprototyped_declarations_get_the_definitions_parameters() {
    let out = clean("int f();\nint main(void) { return f(1, 2.0); }\nint f(int a, double b) { return a + (int)b; }\n");
    assert!(out.starts_with("int f(int a, double b);\n"), "{out}");
    refused(
        "int ext();\nint main(void) { return ext(1); }\n",
        "declared without a prototype",
    );
    // Without arguments, '()' means the same.
    clean("int ext();\nint main(void) { return ext(); }\n");
}

#[test]
fn cuda_names_are_generated_from_the_headers_list() {
    for n in [
        "float4",
        "make_float4",
        "ulonglong2",
        "uchar1",
        "make_double3",
        "dim3",
        "blockIdx",
        "warpSize",
        "min",
    ] {
        assert!(clashes_with_cuda(n), "{n}");
    }
    for n in ["float5", "int0", "integer2", "make_", "blocks", "floats4"] {
        assert!(!clashes_with_cuda(n), "{n}");
    }
}

#[test]
fn cuda_names_are_renamed_and_generated_code_is_guarded() {
    let (fixes, out) = fixed(
        "static int blockDim = 3;\nstruct float4 { float x; };\ntypedef int int2;\n\
         enum { warpSize = 32 };\nint f(void) { return blockDim + warpSize; }\n",
    );
    assert!(fixes.problems.is_empty(), "{:?}", fixes.problems);
    for n in ["blockDim", "float4", "int2", "warpSize"] {
        assert!(
            out.contains(&format!("#define {n} ft_user_{n}\n")),
            "{n}: {out}"
        );
    }
    assert_eq!(fixes.guarded, vec!["blockDim".to_string()]);
    let g = fixes.guard("K();");
    assert_eq!(
        g,
        "\n#pragma push_macro(\"blockDim\")\n#undef blockDim\nK();\n#pragma pop_macro(\"blockDim\")\n"
    );
    assert_eq!(fixes.cuda_uses.len(), 2);
}

#[test]
fn auto_and_register_are_removed() {
    let out = clean("int f(register int k) { auto int y = k; register int z = y; return z; }\n");
    assert_eq!(out, "int f(int k) { int y = k; int z = y; return z; }\n");
}

#[test]
fn strings_that_fill_char_arrays_become_lists() {
    let out = clean(
        "char s[3] = \"abc\";\nunsigned char u[2] = \"\\310a\";\nchar t[4] = \"abc\";\n\
         char q[2] = \"'\\\\\";\n",
    );
    assert_eq!(
        out,
        "char s[3] = {'a', 'b', 'c'};\nunsigned char u[2] = {200, 97};\nchar t[4] = \"abc\";\n\
         char q[2] = {'\\'', '\\\\'};\n"
    );
}

#[test]
fn designators_are_put_in_declaration_order() {
    let out = clean(
        "struct P { int a; double b; int c; };\nstruct P p = { .c = 3, .a = 1, .b = 2.5 };\n\
         struct P q = { .a = 1, .c = 3 };\nstruct P r = { .b = 1.5, 4, .a = 2 };\n",
    );
    assert!(
        out.contains("struct P p = { .a = 1, .b = 2.5, .c = 3 };"),
        "{out}"
    );
    // In order: g++ takes it.
    assert!(out.contains("struct P q = { .a = 1, .c = 3 };"), "{out}");
    assert!(
        out.contains("struct P r = { .a = 2, .b = 1.5, .c = 4 };"),
        "{out}"
    );
    refused(
        "int g(void);\nstruct P { int a; int b; };\nvoid f(void) { struct P p = { .b = g(), .a = 1 }; (void)p; }\n",
        "side effects",
    );
}

#[test]
fn array_and_nested_designators_are_spelled_positionally() {
    let out = clean(
        "int a[6] = { [3] = 1, [1] = 7 };\nint r[8] = { [0 ... 2] = 9, [5] = 1, 4 };\n\
         struct P { int x; int y; };\nstruct Q { struct P p; int d; };\n\
         struct Q q = { .p.y = 4, .d = 2 };\nstruct P ps[3] = { [2].y = 1 };\nint u[] = { [4] = 1 };\n",
    );
    assert!(out.contains("int a[6] = { {}, 7, {}, 1 };"), "{out}");
    assert!(
        out.contains("int r[8] = { 9, 9, 9, {}, {}, 1, 4 };"),
        "{out}"
    );
    assert!(
        out.contains("struct Q q = { .p = { .y = 4 }, .d = 2 };"),
        "{out}"
    );
    assert!(
        out.contains("struct P ps[3] = { {}, {}, { .y = 1 } };"),
        "{out}"
    );
    assert!(out.contains("int u[] = { {}, {}, {}, {}, 1 };"), "{out}");
    refused(
        "enum { K = 2 };\nint a[4] = { [K] = 1 };\n",
        "not an integer literal",
    );
    refused("int a[4] = { [1] = 1, [1] = 2 };\n", "twice");
}

#[test]
fn jumps_past_initialisations_are_refused() {
    refused(
        "int h(int k) { switch (k) { case 0: ; int y = 2; return y; case 1: return 5; } return 0; }\n",
        "jumps past the initialisation of 'y'",
    );
    refused(
        "int h(int k) { if (k) goto out; int y = 2; k += y; out: return k; }\n",
        "jumps past the initialisation of 'y'",
    );
    // Braces, or a declaration without initialiser, are fine.
    clean("int h(int k) { switch (k) { case 0: { int y = 2; return y; } case 1: return 5; } return 0; }\n");
    clean("int h(int k) { if (k) goto out; int y; y = 2; k += y; out: return k; }\n");
    clean("int h(int k) { int y = 2; again: k += y; if (k < 9) goto again; return k; }\n");
    // A label belongs to its function: another function's `goto` is no jump.
    clean(
        "int g(int k) { if (k) goto out; k++; out: return k; }\n\
         int h(int k) { int y = 2; k += y; out: return k; }\n",
    );
}

#[test]
fn other_declarations_cxx_rejects_are_refused() {
    // clang rejects `return;` in a function that returns a value already.
    assert!(parse_str("int f(int k) { if (k) return; return 1; }\n").is_err());
    refused(
        "struct A { struct B { int x; } b; };\nstruct B y;\n",
        "declared inside a struct",
    );
    refused(
        "struct A { enum { RED, BLUE } e; };\nint c = BLUE;\n",
        "declared inside a struct",
    );
    clean("struct A { struct B { int x; } b; };\nint f(struct A *a) { return a->b.x; }\n");
    refused(
        "int f(void *p) { return ((struct R { int x; } *)p)->x; }\n",
        "defined in a cast",
    );
    refused(
        "unsigned long f(void) { return sizeof(struct S { int x; }); }\n",
        "defined in 'sizeof'",
    );
}
