//! The run-time alias guard (issue 17, finding 17), end to end: which branch
//! of the guard runs. `testsuite/programs/alias_overlap.c` calls each kernel
//! once with disjoint arrays and once with overlapping ones; here the
//! generated code is instrumented to print a line on standard error each time
//! a region falls back to its original code, and must fall back exactly on
//! the four overlapping calls, printing what the original prints.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const PROGRAM: &str = "testsuite/programs/alias_overlap.c";

/// The comment that opens a guard's fallback branch in the generated code.
const FALLBACK: &str =
    "/* some of these variables overlap: the region's original code, as written */";

fn work_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flextile-alias-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).expect("work dir");
    d
}

/// Builds `src` as the testsuite does (warnings are errors) and runs it
/// with the arguments `20 3 7`: (stdout, stderr).
fn build_and_run(src: &Path) -> (String, String) {
    let exe = src.with_extension("exe");
    let o = Command::new("gcc")
        .args([
            "-O2",
            "-std=gnu99",
            "-fopenmp",
            "-ffp-contract=off",
            "-fno-fast-math",
        ])
        .args(["-Wall", "-Wextra", "-Werror", "-Wno-unknown-pragmas"])
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
        .args(["20", "3", "7"])
        .env("OMP_NUM_THREADS", "2")
        .output()
        .expect("run program");
    assert!(r.status.success(), "{} failed", exe.display());
    (
        String::from_utf8_lossy(&r.stdout).into_owned(),
        String::from_utf8_lossy(&r.stderr).into_owned(),
    )
}

#[test]
fn overlapping_calls_take_the_original_code_and_disjoint_ones_the_transformed() {
    let dir = work_dir("branches");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let original = dir.join("original.c");
    fs::copy(root.join(PROGRAM), &original).expect("copy the program");
    let (expected, _) = build_and_run(&original);
    for options in [&[][..], &["--tile"], &["--rectangle"], &["--scalene"]] {
        let out = dir.join("out.c");
        let o = Command::new(env!("CARGO_BIN_EXE_flextile"))
            .args(options)
            .arg(root.join(PROGRAM))
            .arg("-o")
            .arg(&out)
            .output()
            .expect("run flextile");
        let warnings = String::from_utf8_lossy(&o.stderr);
        assert!(
            o.status.success() && !warnings.contains("left as written"),
            "flextile {options:?}: {warnings}"
        );
        let code = fs::read_to_string(&out).expect("output");
        assert_eq!(
            code.matches(FALLBACK).count(),
            4,
            "{options:?}: four guarded regions"
        );
        let traced = code.replace(
            FALLBACK,
            &format!("{FALLBACK}\n    fprintf(stderr, \"fallback\\n\");"),
        );
        let src = dir.join("traced.c");
        fs::write(&src, traced).expect("write");
        let (stdout, stderr) = build_and_run(&src);
        assert_eq!(
            stdout, expected,
            "{options:?}: output differs from the original's"
        );
        assert_eq!(
            stderr.lines().filter(|l| *l == "fallback").count(),
            4,
            "{options:?}: only the four overlapping calls fall back:\n{stderr}"
        );
    }
    let _ = fs::remove_dir_all(&dir);
}
