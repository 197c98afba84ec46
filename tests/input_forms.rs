//! Input forms the testsuite's harness cannot express (issue 17): inputs with
//! headers, `-D` options, odd paths or line endings. Each test runs the
//! flextile binary; the ones that check generated code also build it with gcc
//! (as the testsuite does) and compare its output with the original's.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh, empty folder for one test.
fn work_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flextile-forms-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).expect("work dir");
    d
}

fn flextile(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flextile"))
        .args(args)
        .output()
        .expect("run flextile")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Builds `src` with gcc (`flags` added), runs it and returns its stdout.
fn build_and_run(src: &Path, flags: &[&str]) -> String {
    let exe = src.with_extension("exe");
    let o = Command::new("gcc")
        .args(["-O2", "-std=gnu99", "-fopenmp", "-Wno-unknown-pragmas"])
        .args(flags)
        .arg("-o")
        .arg(&exe)
        .arg(src)
        .arg("-lm")
        .output()
        .expect("run gcc");
    assert!(
        o.status.success(),
        "gcc rejects {}:\n{}\n{}",
        src.display(),
        stderr(&o),
        fs::read_to_string(src).unwrap_or_default()
    );
    let r = Command::new(&exe)
        .env("OMP_NUM_THREADS", "2")
        .output()
        .expect("run program");
    assert!(r.status.success(), "{} failed", exe.display());
    String::from_utf8_lossy(&r.stdout).into_owned()
}

/// A loop chain tiled by `--tile` (so the output uses counters `c0`, `c1`
/// and the helper `ft_min`), printing a checksum.
const CHAIN: &str = r#"#include <stdio.h>
#include "names.h"
static void f(int N, double *A, double *B)
{
#pragma omplc loopchain schedule(tile((8), serial, serial))
    {
#pragma omplc for domain(0:N-1) with (i) read A {(i)} write B {(i)}
        for (int i = 0; i <= N - 1; i++)
            B[i] = 2.0 * A[i] + 1.0;
    }
}
int main(void)
{
    double A[100], B[100];
    for (int i = 0; i < 100; i++)
        A[i] = i * 0.5;
    f(37, A, B);
    for (int i = 0; i < 37; i++)
        printf("%d %.17g\n", i, B[i]);
    return 0;
}
"#;

/// Generated names avoid the macros of the user's headers and of `-D`,
/// which the main file's text does not show (issue 17, finding 12): before,
/// `c0` and `ft_min` defined in a header broke the output.
#[test]
fn generated_names_avoid_header_and_command_line_macros() {
    let dir = work_dir("names");
    fs::write(
        dir.join("names.h"),
        "#define c0 user_c0\n#define c1 user_c1\n#define ft_min(a, b) not an expression\n",
    )
    .unwrap();
    let main = dir.join("main.c");
    fs::write(&main, CHAIN).unwrap();
    let inc = dir.to_string_lossy().into_owned();
    let expected = build_and_run(&main, &["-I", &inc]);
    for defs in [&[][..], &["-Dc2=user_c2", "-Dft_max=0"][..]] {
        let out = dir.join("out.c");
        let mut args = vec!["--tile", "-I", &inc];
        args.extend_from_slice(defs);
        let main_s = main.to_string_lossy().into_owned();
        let out_s = out.to_string_lossy().into_owned();
        args.extend_from_slice(&[&main_s, "-o", &out_s]);
        let o = flextile(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = fs::read_to_string(&out).unwrap();
        assert!(!text.contains("int c0 "), "{text}");
        let mut flags = vec!["-I", &inc];
        flags.extend_from_slice(defs);
        assert_eq!(build_and_run(&out, &flags), expected);
    }
    let _ = fs::remove_dir_all(&dir);
}

/// A loop chain in an included header is not transformed (only the main
/// file is rewritten): a located warning says so (issue 17, finding 16).
#[test]
fn region_in_an_included_header_is_reported() {
    let dir = work_dir("header");
    fs::write(
        dir.join("kernel.h"),
        "static void g(int N, double *A)\n{\n  #pragma omplc loopchain schedule()\n  {\n#pragma omplc for domain(0:N-1) with (i) write A {(i)}\n    for (int i = 0; i <= N - 1; i++)\n      A[i] = 1.0;\n  }\n}\n",
    )
    .unwrap();
    let main = dir.join("main.c");
    fs::write(
        &main,
        "#include \"kernel.h\"\nint main(void) { double A[4]; g(4, A); return (int)A[0] - 1; }\n",
    )
    .unwrap();
    let out = dir.join("out.c");
    let o = flextile(&[main.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    let want = format!("{}:3:3: warning: ", dir.join("kernel.h").display());
    assert!(e.contains(&want), "{e}");
    assert!(e.contains("not transformed"), "{e}");
    // With --fatal-warnings, a refusal.
    let o = flextile(&[
        "--fatal-warnings",
        main.to_str().unwrap(),
        "-o",
        dir.join("out2.c").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let _ = fs::remove_dir_all(&dir);
}

/// Lines that end in a carriage return alone: clang reads them, flextile's
/// pragma scanner did not, and the region passed through untransformed
/// with exit 0 (issue 17, finding 16). Now a located error, no output.
#[test]
fn cr_only_line_endings_are_a_located_error() {
    let dir = work_dir("cr");
    let main = dir.join("main.c");
    let src = "void f(int N, double *A)\n{\n#pragma omplc loopchain schedule()\n  {\n#pragma omplc for domain(0:N-1) with (i) write A {(i)}\n    for (int i = 0; i <= N - 1; i++)\n      A[i] = 1.0;\n  }\n}\n";
    fs::write(&main, src.replace('\n', "\r")).unwrap();
    let out = dir.join("out.c");
    let o = flextile(&[main.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let e = stderr(&o);
    let want = format!("{}:1:", main.display());
    assert!(
        e.contains(&want) && e.contains("error: ") && e.contains("carriage return"),
        "{e}"
    );
    assert!(!out.exists());
    let _ = fs::remove_dir_all(&dir);
}

/// Text copied into the `/* ... */` banners (the input path, `-D` values)
/// cannot end them early (issue 17, finding 12).
#[test]
fn banners_escape_comment_ends() {
    let dir = work_dir("banner");
    // The folder's name and the '/' after it make "*/" in the input path.
    let sub = dir.join("in*");
    fs::create_dir_all(&sub).unwrap();
    fs::write(sub.join("names.h"), "#define NOTHING\n").unwrap();
    let main = sub.join("main.c");
    fs::write(&main, CHAIN).unwrap();
    let inc = sub.to_string_lossy().into_owned();
    let expected = build_and_run(&main, &["-I", &inc, "-DEND=\"*/\""]);
    let out = dir.join("out.c");
    let o = flextile(&[
        "--tile",
        "-I",
        &inc,
        "-DEND=\"*/\"",
        "-D",
        "END2=1 */",
        main.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = fs::read_to_string(&out).unwrap();
    let banner_end = text.find("*/").expect("a banner");
    assert!(
        text[..banner_end].contains("in* /main.c"),
        "{}",
        &text[..banner_end]
    );
    assert_eq!(build_and_run(&out, &["-I", &inc, "-DEND=\"*/\""]), expected);
    let _ = fs::remove_dir_all(&dir);
}

/// A syntax error in a chain's only nest pragma is reported first and
/// only (issue 17, finding 15): before, "loop chain without any '#pragma
/// omplc for' nest" came first.
#[test]
fn pragma_syntax_error_is_the_only_error() {
    let dir = work_dir("syntax");
    let out = dir.join("out.c");
    let o = flextile(&[
        "testsuite/errors/pragma_syntax_in_for.c",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    let errors: Vec<&str> = e.lines().filter(|l| l.contains("error:")).collect();
    assert_eq!(errors.len(), 1, "{e}");
    assert!(errors[0].contains("expected ',' or '}'"), "{e}");
    let _ = fs::remove_dir_all(&dir);
}
