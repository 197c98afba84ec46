//! What keeps two variables apart without a run-time alias guard (issue 56,
//! class 6), each checked on the banner flextile writes: fresh allocations,
//! a parameter the function never assigns against the function's own
//! arrays, incompatible element types under strict aliasing (and
//! `-fno-strict-aliasing`, which turns that off); each fact fails closed
//! where the function could break it. A region whose addresses cannot be
//! bounded gets one warning naming every pair, with a note on each pointer
//! saying how to declare it `restrict`.

use std::fs;
use std::process::Command;

/// Compiles `src` (as `in.c`) with `args`: exit status, stderr, banner.
fn compile(test: &str, src: &str, args: &[&str]) -> (i32, String, String) {
    let d = std::env::temp_dir().join(format!(
        "flextile-alias-facts-{test}-{}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).expect("test folder");
    fs::write(d.join("in.c"), src).expect("in.c");
    let o = Command::new(env!("CARGO_BIN_EXE_flextile"))
        .current_dir(&d)
        .args(["in.c", "-o", "out.c"])
        .args(args)
        .output()
        .expect("run flextile");
    let text = fs::read_to_string(d.join("out.c")).unwrap_or_default();
    let _ = fs::remove_dir_all(&d);
    let banner = text
        .lines()
        .find(|l| l.contains("/* flextile:"))
        .unwrap_or_default()
        .trim()
        .to_string();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        banner,
    )
}

/// The banner of `src` compiled without warnings.
fn banner(test: &str, src: &str, args: &[&str]) -> String {
    let (rc, err, banner) = compile(test, src, args);
    assert_eq!(rc, 0, "{err}");
    assert!(!err.contains("warning"), "{test}: {err}");
    banner
}

/// The pairs an alias guard compares, as the banner lists them (empty: no
/// alias guard).
fn guarded(banner: &str) -> String {
    let Some((_, rest)) = banner
        .split_once("or where ")
        .or_else(|| banner.split_once("alias guard: the original code runs where "))
    else {
        return String::new();
    };
    rest.split(" overlap in memory")
        .next()
        .unwrap_or_default()
        .to_string()
}

const FRESH: &str = "#include <stdlib.h>
void f(int n, float *in)
{
    float *a = malloc(n * sizeof(float));
    float *b = (float *)malloc(n * sizeof(float));
    float *c;
    c = calloc(n, sizeof(float));
#pragma scop
    for (int i = 0; i < n; i++)
        a[i] = in[i] * 2;
    for (int i = 1; i < n - 1; i++)
        b[i] = a[i - 1] + a[i + 1];
    for (int i = 1; i < n - 1; i++)
        c[i] = b[i] * 0.5f;
#pragma endscop
    in[0] = c[1];
    free(a);
    free(b);
    free(c);
}
";

#[test]
fn fresh_allocations_overlap_only_a_pointer_that_may_hold_anything() {
    // 'in' is a parameter never assigned: it cannot point into memory the
    // function allocates.
    let b = banner("fresh", FRESH, &[]);
    assert_eq!(guarded(&b), "", "{b}");
    // A pointer assigned from another pointer may hold anything; so may one
    // whose address escapes, and one that is moved after its allocation.
    for (test, change) in [
        (
            "copied",
            "    float *c;\n    c = calloc(n, sizeof(float));\n    c = a;\n",
        ),
        (
            "escaped",
            "    float *c;\n    c = calloc(n, sizeof(float));\n    g(&c);\n",
        ),
        (
            "moved",
            "    float *c;\n    c = calloc(n, sizeof(float));\n    c += 1;\n",
        ),
    ] {
        let src = FRESH
            .replace("    float *c;\n    c = calloc(n, sizeof(float));\n", change)
            .replace("void f(", "void g(float **);\nvoid f(");
        let b = banner(test, &src, &[]);
        assert!(guarded(&b).contains("'c'"), "{test}: {b}");
    }
    // The parameter, once assigned, may point into the allocations.
    let src = FRESH.replace("#pragma scop", "    in = in + 0;\n#pragma scop");
    let b = banner("param-assigned", &src, &[]);
    assert!(guarded(&b).contains("'in'"), "{b}");
}

#[test]
fn a_parameter_never_assigned_does_not_reach_the_functions_arrays() {
    let src = "void f(float *a, float *out)
{
    float t[1000];
#pragma scop
    for (int i = 0; i < 1000; i++)
        t[i] = a[i] * 2;
    for (int i = 1; i < 999; i++)
        out[i] = t[i - 1] + t[i + 1];
#pragma endscop
}
";
    assert_eq!(guarded(&banner("local", src, &[])), "'a'/'out'");
    // A static array existed before the call: a parameter may point into it.
    let stat = src.replace("    float t[1000];", "    static float t[1000];");
    let b = banner("static", &stat, &[]);
    assert!(guarded(&b).contains("'t'"), "{b}");
    // So may a parameter that the function assigns.
    let moved = src.replace("#pragma scop", "    a++;\n#pragma scop");
    let b = banner("moved", &moved, &[]);
    assert!(
        guarded(&b).contains("'t'/'a'") || guarded(&b).contains("'a'/'t'"),
        "{b}"
    );
}

const TYPES: &str = "void f(int n, float *a, int *k, float *out, char *bytes)
{
#pragma scop
    for (int i = 0; i < n; i++)
        k[i] = (int)a[i];
    for (int i = 0; i < n; i++)
        out[i] = a[i] * 2;
#pragma endscop
}
";

#[test]
fn incompatible_element_types_never_share_memory_under_strict_aliasing() {
    assert_eq!(guarded(&banner("types", TYPES, &[])), "'a'/'out'");
    // unsigned int and int are one type to C's aliasing rules.
    let unsigned = TYPES.replace("float *out", "unsigned *out");
    assert_eq!(guarded(&banner("unsigned", &unsigned, &[])), "'k'/'out'");
    // A character pointer may access any object.
    let chars = TYPES.replace("out[i] = a[i] * 2;", "bytes[i] = (char)a[i];");
    let b = banner("chars", &chars, &[]);
    assert!(guarded(&b).contains("'bytes'"), "{b}");
    // -fno-strict-aliasing: every pair of pointers again.
    let b = banner("no-strict", TYPES, &["-fno-strict-aliasing"]);
    assert_eq!(guarded(&b), "'k'/'a', 'k'/'out', 'a'/'out'", "{b}");
    // The last of the two flags decides.
    let b = banner(
        "strict-again",
        TYPES,
        &["-fno-strict-aliasing", "-fstrict-aliasing"],
    );
    assert_eq!(guarded(&b), "'a'/'out'", "{b}");
}

#[test]
fn an_unbounded_region_names_every_pair_and_how_to_declare_each_pointer() {
    let src = "void f(int n, float *a, float *b, float *c, int *idx)
{
#pragma scop
    for (int i = 0; i < n; i++)
        b[i] = a[idx[i]] + c[i];
#pragma endscop
}
";
    let (rc, err, banner) = compile("unbounded", src, &[]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(
        err,
        "in.c:3:1: warning: the pairs 'a'/'b' and 'b'/'c' may overlap in memory, and the addresses the region touches through 'a' cannot be bounded for a run-time check (its subscripts have no bound in the parameters (a '*' index or a data-dependent subscript)): the region is left as written, without any transformation
#pragma scop
^~~~~~~~~~~~
in.c:1:22: note: declare 'a' as 'float *restrict a' if it never overlaps another array
void f(int n, float *a, float *b, float *c, int *idx)
                     ^
in.c:1:32: note: declare 'b' as 'float *restrict b' if it never overlaps another array
void f(int n, float *a, float *b, float *c, int *idx)
                               ^
in.c:1:42: note: declare 'c' as 'float *restrict c' if it never overlaps another array
void f(int n, float *a, float *b, float *c, int *idx)
                                         ^
"
    );
    assert!(banner.contains("left as written"), "{banner}");
    // Declared restrict as the notes say, the region is transformed.
    let fixed = src.replace(
        "float *a, float *b, float *c",
        "float *restrict a, float *restrict b, float *restrict c",
    );
    let (rc, err, banner) = compile("unbounded-fixed", &fixed, &[]);
    assert_eq!(rc, 0, "{err}");
    assert!(!banner.contains("left as written"), "{banner}");
}
