//! Tests of [`super`]: small C files, their fixes rendered with prefix `ft_`.

use super::*;
use crate::frontend::testutil::parse_str;

/// The fixes of `src` (which must parse), and `src` with them applied.
fn fixed(src: &str) -> (CxxFixes, String) {
    let p = parse_str(src).expect("parses");
    let text = p.cxx.apply(&p.file.text, "ft_");
    (p.cxx, text)
}

/// The messages of the problems of `src`.
fn problems(src: &str) -> Vec<String> {
    let p = parse_str(src).expect("parses");
    p.cxx.problems.iter().map(|d| d.message.clone()).collect()
}

#[test]
fn vla_parameters_become_void_pointers() {
    let src = "void kernel(int N, double A[N][N]);\n\
               void kernel(int N, double A[N][N]) { A[0][0] = 1; }\n";
    let (fixes, out) = fixed(src);
    assert!(fixes.problems.is_empty(), "{:?}", fixes.problems);
    assert_eq!(
        out,
        "void kernel(int N, void *ft_p_A);\n\
         void kernel(int N, void *ft_p_A) { double (*A)[N] = (double (*)[N]) ft_p_A; A[0][0] = 1; }\n"
    );
}

#[test]
fn rendered_edits_are_structured_and_sorted() {
    let src = "void f(int n, int m, double A[n][m], double B[m]) { }\n";
    let p = parse_str(src).expect("parses");
    let names: Vec<Option<&str>> = p
        .cxx
        .fixes
        .iter()
        .map(|f| match f {
            CxxFix::VoidParam(v) => v.name.as_deref(),
            _ => None,
        })
        .collect();
    assert_eq!(names, vec![Some("A"), Some("B")]);
    let edits = p.cxx.render("zz_");
    let at = src.find('{').expect("body") + 1;
    // Both declarations come at the body's start, in parameter order, as
    // one insertion.
    assert_eq!(edits.len(), 3);
    assert!(edits.windows(2).all(|w| w[0].0.end <= w[1].0.start));
    assert_eq!(edits[2].0, Span::new(at, at));
    assert_eq!(
        edits[2].1,
        " double (*A)[m] = (double (*)[m]) zz_p_A; double *B = (double *) zz_p_B;"
    );
    assert_eq!(edits[0].1, "void *zz_p_A");
}

#[test]
fn const_restrict_and_pointer_forms() {
    let src = "void f(int H, int W, const float img[H][W], double C[restrict H][W], \
               double (*P)[W], double D[][W], float out[H]) { }\n";
    let (fixes, out) = fixed(src);
    assert!(fixes.problems.is_empty(), "{:?}", fixes.problems);
    assert!(out.contains("const void *ft_p_img"), "{out}");
    assert!(
        out.contains("const float (*img)[W] = (const float (*)[W]) ft_p_img;"),
        "{out}"
    );
    assert!(
        out.contains("double (*restrict C)[W] = (double (*)[W]) ft_p_C;"),
        "{out}"
    );
    assert!(
        out.contains("double (*P)[W] = (double (*)[W]) ft_p_P;"),
        "{out}"
    );
    assert!(
        out.contains("double (*D)[W] = (double (*)[W]) ft_p_D;"),
        "{out}"
    );
    assert!(out.contains("float *out = (float *) ft_p_out;"), "{out}");
}

#[test]
fn constant_parameters_stay_and_bracket_qualifiers_become_pointers() {
    let src = "void f(double A[100][100], double B[restrict 256], double C[static 4][8]) { }\n";
    let (fixes, out) = fixed(src);
    assert!(fixes.problems.is_empty(), "{:?}", fixes.problems);
    assert_eq!(
        out,
        "void f(double A[100][100], double *restrict B, double (*C)[8]) { }\n"
    );
}

#[test]
fn void_pointer_conversions_get_casts() {
    let src = "#include <stdlib.h>\n\
               void use(double *p);\n\
               void *xmalloc(size_t n) { return malloc(n); }\n\
               double *g(int n, void *v) {\n\
               \x20 double *p = malloc(n);\n\
               \x20 double (*A)[n] = xmalloc(8 * n * n);\n\
               \x20 p = v;\n\
               \x20 use(xmalloc(8));\n\
               \x20 p = n ? v : malloc(1);\n\
               \x20 p = NULL;\n\
               \x20 free(p);\n\
               \x20 A[0][0] = 0;\n\
               \x20 return v;\n\
               }\n";
    let (fixes, out) = fixed(src);
    assert!(fixes.problems.is_empty(), "{:?}", fixes.problems);
    assert!(
        out.contains("void *xmalloc(size_t n) { return malloc(n); }"),
        "{out}"
    );
    assert!(out.contains("double *p = (double *)malloc(n);"), "{out}");
    assert!(
        out.contains("double (*A)[n] = (double (*)[n])xmalloc(8 * n * n);"),
        "{out}"
    );
    assert!(out.contains("p = (double *)v;"), "{out}");
    assert!(out.contains("use((double *)xmalloc(8));"), "{out}");
    assert!(out.contains("p = (double *)(n ? v : malloc(1));"), "{out}");
    assert!(out.contains("p = NULL;"), "{out}");
    assert!(out.contains("free(p);"), "{out}");
    assert!(out.contains("return (double *)v;"), "{out}");
}

#[test]
fn conversions_in_macro_arguments_and_bodies() {
    let src = "#include <stdlib.h>\n\
               #define ALLOC(n) malloc(n)\n\
               #define NEW(p, n) ((p) = malloc(n))\n\
               #define ID(x) x\n\
               void f(void) {\n\
               \x20 double *p = ALLOC(8);\n\
               \x20 ID(p = malloc(8));\n\
               \x20 NEW(p, 8);\n\
               \x20 free(p);\n\
               }\n";
    let (fixes, out) = fixed(src);
    assert!(out.contains("double *p = (double *)(ALLOC(8));"), "{out}");
    assert!(out.contains("ID(p = (double *)malloc(8));"), "{out}");
    assert_eq!(fixes.problems.len(), 1, "{:?}", fixes.problems);
    assert!(
        fixes.problems[0]
            .message
            .contains("inside a macro's expansion"),
        "{:?}",
        fixes.problems
    );
}

#[test]
fn cxx_keywords_as_names_are_problems() {
    let src = "struct s { int class; };\n\
               int f(int new) { struct s this; this.class = new; return this.class; }\n\
               #if 0\nint delete;\n#endif\n";
    let msgs = problems(src);
    assert_eq!(msgs.len(), 3, "{msgs:?}");
    assert!(
        msgs[0].starts_with("'class' is a keyword in C++"),
        "{msgs:?}"
    );
    assert!(
        msgs[0].contains("(and 2 more uses in this file)"),
        "{msgs:?}"
    );
    assert!(msgs.iter().any(|m| m.starts_with("'new'")), "{msgs:?}");
    assert!(msgs.iter().any(|m| m.starts_with("'this'")), "{msgs:?}");
}

#[test]
fn keyword_macros_of_headers_are_not_names() {
    let src = "#include <stdbool.h>\n#include <stdalign.h>\n\
               bool f(void) { return alignof(double) == 8 ? true : false; }\n";
    assert!(problems(src).is_empty());
}

#[test]
fn c11_keywords_are_respelled_or_refused() {
    let src = "_Bool b;\nint a = _Alignof(double);\n_Static_assert(1, \"x\");\n\
               _Noreturn void die(void);\n";
    let (fixes, out) = fixed(src);
    assert_eq!(
        out,
        "bool b;\nint a = alignof(double);\nstatic_assert(1, \"x\");\n\
         extern \"C\" _Noreturn void die(void);\n"
    );
    assert_eq!(fixes.problems.len(), 1);
    assert!(fixes.problems[0].message.starts_with("'_Noreturn' is C11"));
}

#[test]
fn programs_without_cxx_issues_have_no_fixes() {
    let src = "void f(int n, double *a, double b[10]) { double t[n]; double (*q)[n] = (double (*)[n]) a; \
               for (int i = 0; i < n; i++) t[i] = a[i] + b[0] + q[0][0]; }\n";
    let (fixes, out) = fixed(src);
    assert!(fixes.is_empty(), "{fixes:?}");
    assert_eq!(out, src);
}

/// Functions statement bodies may call (`min`, `max`, `abs`, ...) run in
/// kernels too: every declaration of one the file defines is for the host
/// and the device; other functions are left alone.
#[test]
fn helpers_bodies_call_are_device_functions_too() {
    let src = "static double lerp(double a, double b);\nstatic int abs(int v);\n\
               static int abs(int v) { return v < 0 ? -v : v; }\n\
               static double lerp(double a, double b) { return a + b; }\n";
    let (fixes, out) = fixed(src);
    assert!(fixes.problems.is_empty(), "{:?}", fixes.problems);
    assert_eq!(
        out,
        "static double lerp(double a, double b);\n__host__ __device__ static int abs(int v);\n\
         __host__ __device__ static int abs(int v) { return v < 0 ? -v : v; }\n\
         static double lerp(double a, double b) { return a + b; }\n"
    );
}

#[test]
fn names_cuda_declares_are_renamed() {
    let src = "/* helpers */\nstatic inline int min(int a, int b) { return a < b ? a : b; }\n\
               int f(int x) { return min(x, 3); }\n";
    let (fixes, out) = fixed(src);
    assert!(fixes.problems.is_empty(), "{:?}", fixes.problems);
    assert_eq!(
        out,
        "/* helpers */\n#define min ft_user_min\n__host__ __device__ static inline int min(int a, int b) { return a < b ? a : b; }\n\
         int f(int x) { return min(x, 3); }\n"
    );
    // A local named so is no clash.
    let (fixes, _) = fixed("int f(int min) { return min; }\n");
    assert!(fixes.is_empty(), "{fixes:?}");
}

#[test]
fn integers_to_enums_get_casts_and_enum_arithmetic_is_refused() {
    let src = "enum color { RED, GREEN };\ntypedef enum { A, B } ab;\n\
               enum color pick(int k) { enum color c = k; c = RED; c = k + 1; return 0; }\n\
               void g(enum color c) { c++; c += 1; }\n";
    let (fixes, out) = fixed(src);
    assert!(out.contains("enum color c = (enum color)k;"), "{out}");
    assert!(out.contains("c = RED;"), "{out}");
    assert!(out.contains("c = (enum color)(k + 1);"), "{out}");
    assert!(out.contains("return (enum color)0;"), "{out}");
    let msgs: Vec<&str> = fixes.problems.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    assert!(
        msgs[0].starts_with("'++' on a variable of type 'enum color'"),
        "{msgs:?}"
    );
    assert!(msgs[1].starts_with("'+=' on a variable"), "{msgs:?}");
}

#[test]
fn compound_literals_whose_address_is_taken_are_problems() {
    let src = "struct p { int x; };\nvoid use(const double *a, struct p *q);\n\
               void f(void) { struct p v = (struct p){1}; use((double[2]){1, 2}, &(struct p){2}); (void)v; }\n";
    let msgs = problems(src);
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    assert!(
        msgs[0].starts_with("this is an array compound literal"),
        "{msgs:?}"
    );
    assert!(
        msgs[1].starts_with("this is the address of a compound literal"),
        "{msgs:?}"
    );
}

#[test]
fn pointer_parameters_to_vlas_keep_their_qualifiers_off_the_cast() {
    let src = "void f(int n, double (*restrict P)[n], double *restrict q[n]) { }\n";
    let (fixes, out) = fixed(src);
    assert!(fixes.problems.is_empty(), "{:?}", fixes.problems);
    assert!(
        out.contains("double (*restrict P)[n] = (double (*)[n]) ft_p_P;"),
        "{out}"
    );
    assert!(
        out.contains("double *restrict *q = (double *restrict *) ft_p_q;"),
        "{out}"
    );
}

/// A prototype of a function the file does not define (a C library's) gets
/// C linkage; one the file defines, and a `static` one, do not.
#[test]
fn undefined_prototypes_get_c_linkage() {
    let src = "extern void omp_set_num_threads(int);\n\
               int helper(int);\n\
               static int local(int);\n\
               int helper(int x) { return x + local(x); }\n\
               static int local(int x) { return x; }\n";
    let (_, out) = fixed(src);
    assert_eq!(
        out,
        "extern \"C\" extern void omp_set_num_threads(int);\n\
         int helper(int);\n\
         static int local(int);\n\
         int helper(int x) { return x + local(x); }\n\
         static int local(int x) { return x; }\n"
    );
}

/// Quoted includes (the user's headers) are included with C linkage,
/// `<...>` ones and those `#if` removes are not.
#[test]
fn user_headers_are_included_with_c_linkage() {
    let src = "#include <stdio.h>\n#include \"stddef.h\"\n#if 0\n#include \"nothing.h\"\n#endif\nint x;\n";
    let (_, out) = fixed(src);
    assert_eq!(
        out,
        "#include <stdio.h>\nextern \"C\" {\n#include \"stddef.h\"\n}\n#if 0\n#include \"nothing.h\"\n#endif\nint x;\n"
    );
}

/// Character literals get their C type (`int`), `sizeof` of an expression
/// its operand's C type; `sizeof` of a type is left.
#[test]
fn char_literals_and_sizeof_keep_their_c_types() {
    let src = "int f(double x, int a, int b) {\n\
               \x20 int k = 'b' + L'c';\n\
               \x20 return sizeof('a') + sizeof x + sizeof(a == b) + sizeof(double) + k;\n\
               }\n";
    let (fixes, out) = fixed(src);
    assert!(fixes.problems.is_empty(), "{:?}", fixes.problems);
    assert!(out.contains("int k = ((int)'b') + ((int)L'c');"), "{out}");
    assert!(
        out.contains("return sizeof(int) + sizeof (double) + sizeof(int) + sizeof(double) + k;"),
        "{out}"
    );
}

/// Arguments of C library calls get the C parameters' types where they
/// differ (C++'s overloads would take theirs); `strchr` gets its C result.
#[test]
fn library_calls_get_their_c_parameter_types() {
    let src = "#include <math.h>\n#include <stdlib.h>\n#include <string.h>\n\
               double g(float x, long l, const char *s) {\n\
               \x20 char *p = strchr(s, 'a');\n\
               \x20 return exp(x) + pow(x, 2) + abs(l) + sqrt(x * 2.0) + fabsf(x) + (p != 0);\n\
               }\n";
    let (fixes, out) = fixed(src);
    assert!(fixes.problems.is_empty(), "{:?}", fixes.problems);
    assert!(
        out.contains("char *p = (char *)(strchr(s, ((int)'a')));"),
        "{out}"
    );
    assert!(
        out.contains(
            "return exp((double)(x)) + pow((double)(x), (double)(2)) + abs((int)(l)) + \
             sqrt(x * 2.0) + fabsf(x) + (p != 0);"
        ),
        "{out}"
    );
}

/// What a macro's body spells cannot be edited: refused; a system macro's
/// calls (`assert`) are the library's, left alone.
#[test]
fn macro_bodies_are_refused_or_left_to_the_library() {
    let src = "#include <assert.h>\n#include <math.h>\n#include <stdio.h>\n\
               #define SEP ','\n\
               #define ROOT(v) sqrt(v)\n\
               #define SHOW(v) printf(#v \" %d\\n\", v)\n\
               #define SIZE(v) sizeof(v)\n\
               double f(float y, int n) {\n\
               \x20 assert(n > 0);\n\
               \x20 SHOW('q');\n\
               \x20 return SEP + ROOT(y) + ROOT(1.0) + SIZE(n);\n\
               }\n";
    let msgs = problems(src);
    assert_eq!(msgs.len(), 4, "{msgs:?}");
    let count = |s: &str| msgs.iter().filter(|m| m.contains(s)).count();
    assert_eq!(count("character literal"), 2, "{msgs:?}");
    assert_eq!(count("call of 'sqrt'"), 1, "{msgs:?}");
    assert_eq!(
        count("'sizeof' of an expression inside a macro"),
        1,
        "{msgs:?}"
    );
}

/// `_Complex`, `I`, `<tgmath.h>`, the language macros and `++` of a
/// `_Bool` are refused, each with a located error naming it.
#[test]
fn constructs_cxx_means_otherwise_are_refused() {
    let src = "#include <complex.h>\n\
               #ifdef __cplusplus\n#endif\n\
               #if 0\n#if __STDC_VERSION__\n#endif\n#endif\n\
               double f(double x) {\n\
               \x20 _Bool b = 0;\n\
               \x20 b++;\n\
               \x20 --b;\n\
               \x20 b += 1;\n\
               \x20 double _Complex z = x * I;\n\
               \x20 return creal(z) + b;\n\
               }\n";
    let msgs = problems(src);
    let count = |s: &str| msgs.iter().filter(|m| m.contains(s)).count();
    assert_eq!(count("this has a '_Complex' type"), 1, "{msgs:?}");
    assert_eq!(count("imaginary unit"), 1, "{msgs:?}");
    // The test that `#if 0` removes does not count.
    assert_eq!(count("'__cplusplus' has another value"), 1, "{msgs:?}");
    assert_eq!(count("__STDC_VERSION__' has"), 0, "{msgs:?}");
    assert_eq!(count("of a '_Bool'"), 2, "{msgs:?}");
    let tg = problems("#include <tgmath.h>\ndouble f(double x) { return sqrt(x); }\n");
    assert!(tg.len() == 1 && tg[0].contains("<tgmath.h>"), "{tg:?}");
}

/// `long double` and variably modified `sizeof` operands are the device's
/// problem only: recorded for regions, refused in functions kernels call.
#[test]
fn host_only_types_are_recorded_for_the_device() {
    let src = "long double g(long double a) { return a * 2; }\n\
               long double max(long double a, long double b) { return a > b ? a : b; }\n\
               unsigned long h(int n, double (*A)[n]) { return sizeof(A[0]); }\n";
    let (fixes, out) = fixed(src);
    assert!(out.contains("return sizeof(A[0]);"), "{out}");
    assert!(
        fixes
            .device_only
            .iter()
            .any(|(_, m)| m.contains("'long double'")),
        "{:?}",
        fixes.device_only
    );
    assert!(
        fixes
            .device_only
            .iter()
            .any(|(_, m)| m.contains("variably modified")),
        "{:?}",
        fixes.device_only
    );
    // `max` is marked for the device: its `long double` is refused.
    assert_eq!(fixes.problems.len(), 1, "{:?}", fixes.problems);
    assert!(fixes.problems[0].message.contains("long double"));
}
