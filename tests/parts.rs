//! A long region lowered in parts, in parallel (`driver/parts.rs`, issue
//! 19), gives what it gives lowered whole: the same output file and the
//! same warnings, for overlapped and classic tiling. The whole lowering is
//! forced by running flextile on one core (`taskset -c 0`: parts are cut
//! only where there is a second core to lower them), and each case checks
//! that the other run was indeed cut.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs flextile on `input` with `args`, writing `out` (with `-v` when
/// `verbose`), on one core when `one_core`.
fn flextile(input: &Path, out: &Path, args: &[&str], one_core: bool, verbose: bool) -> Output {
    let bin = env!("CARGO_BIN_EXE_flextile");
    let mut cmd = match one_core {
        true => {
            let mut c = Command::new("taskset");
            c.args(["-c", "0", bin]);
            c
        }
        false => Command::new(bin),
    };
    cmd.arg(input).arg("-o").arg(out).args(args);
    if verbose {
        cmd.arg("-v");
    }
    cmd.output().expect("runs flextile (and taskset)")
}

/// The output and standard error of `input` under `args`, lowered in
/// parts and whole, are the same; the first run was cut.
fn same_in_parts(test: &str, input: &Path, args: &[&str]) {
    assert!(
        std::thread::available_parallelism().map_or(1, |n| n.get()) >= 2,
        "this test needs two cores: on one, no region is lowered in parts"
    );
    let dir = std::env::temp_dir().join(format!("flextile-parts-{test}-{}", std::process::id()));
    let (split, whole) = (dir.join("split"), dir.join("whole"));
    for d in [&split, &whole] {
        std::fs::create_dir_all(d).expect("test folder");
    }
    let at = format!("{} {}", input.display(), args.join(" "));
    let cut = flextile(input, &split.join("out.c"), args, false, true);
    let log = String::from_utf8_lossy(&cut.stderr);
    assert!(cut.status.success(), "{at}: {log}");
    assert!(
        log.contains("the region is lowered in 2 parts"),
        "{at}: not lowered in parts:\n{log}"
    );
    let a = flextile(input, &split.join("out.c"), args, false, false);
    let b = flextile(input, &whole.join("out.c"), args, true, false);
    assert!(
        b.status.success(),
        "{at}: {}",
        String::from_utf8_lossy(&b.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&a.stderr),
        String::from_utf8_lossy(&b.stderr),
        "{at}: warnings differ (in parts, whole)"
    );
    let read = |d: &Path| std::fs::read_to_string(d.join("out.c")).expect("output");
    assert!(read(&split) == read(&whole), "{at}: outputs differ");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `testsuite/programs/parts_two_depths.c`: 12 two-dimensional nests, then
/// 12 one-dimensional ones.
fn two_depths() -> PathBuf {
    root().join("testsuite/programs/parts_two_depths.c")
}

#[test]
fn classic_tiling_in_parts_is_tiling_whole() {
    same_in_parts("tile", &two_depths(), &["--tile"]);
}

/// Sizes the one-dimensional nests of the second part cannot all take:
/// one warning for the region, as lowered whole, naming both parts' bands.
#[test]
fn classic_tiling_in_parts_warns_once_for_the_region() {
    let input = two_depths();
    same_in_parts("tile-part", &input, &["--tile", "--tile-sizes", "4,8"]);
    same_in_parts("tile-ignored", &input, &["--tile", "--tile-sizes", "2,4,8"]);
    let out = std::env::temp_dir().join(format!("flextile-parts-warn-{}.c", std::process::id()));
    let o = flextile(
        &input,
        &out,
        &["--tile", "--tile-sizes", "4,8"],
        false,
        false,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("is applied only in part").count(), 1, "{err}");
    // Both parts' nests are named: the first part's tiled, the second's not all.
    assert!(
        err.contains("[4, 8] on loop(s)") && err.contains("[8] on loop(s)"),
        "{err}"
    );
    let _ = std::fs::remove_file(out);
}

#[test]
fn overlapped_tiling_in_parts_is_tiling_whole() {
    let input = two_depths();
    same_in_parts("rect", &input, &["--rectangle", "--tile-sizes", "4,8"]);
    same_in_parts("scal", &input, &["--scalene"]);
}

/// Local Laplacian's 99 stages (two parts), under classic tiling.
#[test]
fn local_laplacian_tiled_in_parts_is_tiled_whole() {
    let input = root().join("benchmarks/local-laplacian.c");
    let include = root().join("benchmarks");
    let include = include.to_str().expect("a UTF-8 path");
    same_in_parts("ll-tile", &input, &["--tile", "-I", include]);
}
