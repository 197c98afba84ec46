//! `--max-isl-operations`: when isl's code generator runs past its budget,
//! flextile makes the region's schedule simpler and warns (the fused
//! point loops of rectangle tiles atomic, then overlapped groups split in
//! halves, then wavefronts run as serial loops), or refuses the region with
//! a diagnostic, and leaves the output alone. The budget bounds what isl
//! generates: the loops over tiles and the tile bodies flextile's own
//! generator does not take (isolated point loops, `--point-chunk 0`).
//! Split groups make more tile loops for isl, not fewer: past the budget
//! with atomic point loops, a region is refused after the other steps.

use std::process::{Command, Output};

const PROGRAM: &str = "testsuite/programs/overlap_blowup_2d.c";

/// The dependence analysis keeps a budget of its own, well above what it
/// takes here: these tests are about the code generator's budget alone
/// (`--max-isl-operations` sets both by default).
fn flextile_with(out: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flextile"))
        .args([PROGRAM, "-o"])
        .arg(out)
        .args(["--max-dependence-operations", "40000"])
        .args(args)
        .output()
        .expect("run flextile")
}

/// Rectangle tiles whose point loops are fused point by point
/// (`--point-chunk 0`): isl's `isolate` option, whose code the first
/// fallback makes atomic, is used only there.
fn flextile(out: &std::path::Path, budget: &str) -> Output {
    flextile_with(
        out,
        &[
            "--rectangle",
            "--point-chunk",
            "0",
            "--max-isl-operations",
            budget,
        ],
    )
}

fn out_path(tag: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("flextile-budget-{tag}-{}.c", std::process::id()))
}

/// Past the budget even with atomic point loops: the groups are halved,
/// then the region is refused.
#[test]
fn past_the_budget_groups_are_halved_then_the_region_is_refused() {
    let out = out_path("halved");
    let o = flextile(&out, "1500");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{PROGRAM}:106:5: error: isl's code generator ran past its budget of 6000 operations on this region even with overlapped groups of at most 2 stages"
        )),
        "{stderr}"
    );
    assert!(stderr.contains('^'), "no caret line: {stderr}");
    assert!(!out.exists(), "the output was written");
}

#[test]
fn past_the_budget_point_loops_become_atomic_first() {
    let out = out_path("atomic");
    let o = flextile(&out, "60000");
    let stderr = String::from_utf8_lossy(&o.stderr);
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    assert!(o.status.success(), "{stderr}");
    assert_eq!(stderr.matches("warning:").count(), 1, "{stderr}");
    assert!(stderr.contains("are now generated atomic"), "{stderr}");
    assert!(text.contains("atomic point loops"), "{text}");
    assert!(!text.contains("groups of at most"), "{text}");
}

/// Strip-mined point loops (the default) have no isolated part: past the
/// budget, the groups are halved first (no step makes point loops atomic).
#[test]
fn past_the_budget_chunked_point_loops_split_groups_first() {
    let out = out_path("chunked");
    let o = flextile_with(&out, &["--rectangle", "--max-isl-operations", "1500"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("even with overlapped groups of at most 2 stages"),
        "{stderr}"
    );
    assert!(!out.exists(), "the output was written");
    // With the budget of the testsuite's option set, isl's part fits.
    let o = flextile_with(&out, &["--rectangle", "--max-isl-operations", "40000"]);
    let _ = std::fs::remove_file(&out);
    assert!(o.status.success());
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn with_the_default_budget_nothing_is_said() {
    let out = out_path("default");
    let o = flextile_with(&out, &["--rectangle"]);
    let _ = std::fs::remove_file(&out);
    assert!(o.status.success());
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Without overlapped tiling, serial wavefronts are the last step.
#[test]
fn with_nothing_simpler_left_the_region_is_refused() {
    let out = out_path("error");
    let o = flextile_with(&out, &["--max-isl-operations", "1000"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{PROGRAM}:106:5: error: isl's code generator ran past its budget of 4000 operations on this region even with its wavefronts run as serial loops"
        )),
        "{stderr}"
    );
    assert!(!out.exists(), "the output was written");
}

/// Regression (tools/difftest, program 202601349 of seed 2026): tiles of
/// tiles with wavefronts over the inner tiles and the points of five fused
/// 3-D nests ran past the default budget (and took minutes) before tiled
/// loops were generated atomic and inner tiles aligned on the outer ones.
#[test]
fn tiles_of_tiles_with_wavefronts_fit_the_default_budget() {
    let out = out_path("tiles-of-tiles");
    let o = Command::new(env!("CARGO_BIN_EXE_flextile"))
        .args(["testsuite/programs/tile_of_tiles_wavefronts_3d.c", "-o"])
        .arg(&out)
        .arg("--no-openmp")
        .output()
        .expect("run flextile");
    let _ = std::fs::remove_file(&out);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    // The only warnings are those for the stage macros and calls whose
    // accesses flextile trusts from their declarations.
    for line in stderr.lines().filter(|l| l.contains("warning:")) {
        assert!(
            line.contains("cannot be checked against its declaration"),
            "{stderr}"
        );
    }
    assert!(!stderr.contains("budget"), "{stderr}");
}
