//! `--report`: the per-tile footprints of overlapped tiling equal the ones the
//! overlapped-tiling paper derives (Fig. 3 pipeline: Fig. 13 and 14; Unsharp
//! Mask at 8x512: Table 7, "our work").

use std::process::Command;

fn report(file: &str, args: &[&str]) -> String {
    // One output file per call: the tests of this file run in parallel.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = std::env::temp_dir().join(format!("flextile-report-{}-{n}.c", std::process::id()));
    let o = Command::new(env!("CARGO_BIN_EXE_flextile"))
        .arg(file)
        .arg("-o")
        .arg(&out)
        .args(args)
        .output()
        .expect("run flextile");
    let _ = std::fs::remove_file(&out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn fig3_rectangle_expands_a_by_6_and_b_by_4_on_the_left() {
    let r = report(
        "testsuite/programs/fig3_pipeline.c",
        &["--rectangle", "--tile-sizes", "32", "--report"],
    );
    assert!(
        r.contains("nest 1 (line 27): per tile 38 (-6/+0) of 32"),
        "{r}"
    );
    assert!(
        r.contains("nest 2 (line 30): per tile 36 (-4/+0) of 32"),
        "{r}"
    );
    assert!(
        r.contains("nest 3 (line 33): per tile 32 (-0/+0) of 32"),
        "{r}"
    );
}

#[test]
fn fig3_scalene_expands_a_by_3_and_b_by_2_on_each_side() {
    let r = report(
        "testsuite/programs/fig3_pipeline.c",
        &["--scalene", "--tile-sizes", "32", "--report"],
    );
    assert!(
        r.contains("nest 1 (line 27): per tile 38 (-3/+3) of 32"),
        "{r}"
    );
    assert!(
        r.contains("nest 2 (line 30): per tile 36 (-2/+2) of 32"),
        "{r}"
    );
}

#[test]
fn unsharp_mask_footprints_match_table_7() {
    let r = report(
        "benchmarks/unsharp-mask.c",
        &[
            "-I",
            "benchmarks",
            "--rectangle",
            "--tile-sizes",
            "8,512",
            "--report",
        ],
    );
    // blurx 3x8x516, blury and sharpen 3x8x512 (no larger than the paper's).
    assert!(
        r.contains("nest 1 (line 30): per tile 3 (-0/+0) x 8 (-0/+0) x 516 (-4/+0)"),
        "{r}"
    );
    assert!(
        r.contains("nest 2 (line 40): per tile 3 (-0/+0) x 8 (-0/+0) x 512 (-0/+0)"),
        "{r}"
    );
    assert!(
        r.contains("nest 3 (line 50): per tile 3 (-0/+0) x 8 (-0/+0) x 512 (-0/+0)"),
        "{r}"
    );
}

/// `--overlap-tolerance` (PolyMage's greedy grouping): at 0.15 of a 32-wide
/// tile, nest 3 would make nest 1 overlap by 6/32 = 0.19, so it starts a new
/// group (tiled alone, with no overlap); nests 1 and 2 stay together, so
/// nest 1 overlaps by 2 only.
#[test]
fn fig3_overlap_tolerance_splits_the_group() {
    let r = report(
        "testsuite/programs/fig3_pipeline.c",
        &[
            "--rectangle",
            "--tile-sizes",
            "32",
            "--overlap-tolerance",
            "0.15",
            "--report",
        ],
    );
    assert!(
        r.contains("nest 1 (line 27): per tile 34 (-2/+0) of 32"),
        "{r}"
    );
    assert!(
        r.contains("nest 2 (line 30): per tile 32 (-0/+0) of 32"),
        "{r}"
    );
    assert!(
        r.contains("nest 3 (line 33): per tile 32 (-0/+0) of 32, redundant 0.0%"),
        "{r}"
    );
}

/// `--explain` says how the nests were grouped and why a group ends: the
/// tolerance case above, and `--grouping none` (every nest alone, no
/// recomputation).
#[test]
fn fig3_explain_says_why_groups_end() {
    let r = report(
        "testsuite/programs/fig3_pipeline.c",
        &[
            "--rectangle",
            "--tile-sizes",
            "32",
            "--overlap-tolerance",
            "0.15",
            "--explain",
        ],
    );
    let expected = [
        "grouping (greedy)",
        "  nest 1 (line 27) .. nest 2 (line 30) (2 nests): tiled 32; tiles recompute at most 5.9% of a stage's work (nest 1 (line 27))",
        "  nest 3 (line 33) starts a new group: nest 1 (line 27) would overlap by 0.19 of a tile along loop 0, over the tolerance 0.15",
        "  nest 3 (line 33): tiled 32; no recomputation",
    ];
    for line in expected {
        assert!(r.contains(line), "{line}\n{r}");
    }
    // Without --report, no footprint table.
    assert!(!r.contains("per tile"), "{r}");
    let r = report(
        "testsuite/programs/fig3_pipeline.c",
        &["--scalene", "--grouping", "none", "--explain", "--report"],
    );
    assert!(r.contains("grouping (none)"), "{r}");
    for nest in ["nest 2 (line 30)", "nest 3 (line 33)"] {
        assert!(
            r.contains(&format!(
                "  {nest} starts a new group: every nest is its own group (--grouping none)"
            )),
            "{r}"
        );
    }
    assert_eq!(r.matches("no recomputation").count(), 3, "{r}");
    assert_eq!(r.matches("redundant 0.0%").count(), 3, "{r}");
}

/// Without --tile-sizes, the cost model groups the nests and sizes the
/// tiles (Jangda & Bondhugula, TOPLAS'20): `--explain` gives the search, the problem size it
/// assumed and each group's cost terms; the machine and the estimates it
/// reads change the sizes.
#[test]
fn dp_explains_its_costs_and_sizes() {
    let r = report(
        "testsuite/programs/fig3_pipeline.c",
        &[
            "--rectangle",
            "--explain",
            "--cache-sizes",
            "48K,2M",
            "--cores",
            "2",
        ],
    );
    for line in [
        "grouping (dp)",
        "  DP grouping (Jangda & Bondhugula, TOPLAS'20, Algorithm 1) over 3 stages: 6 groupings costed",
        "L1 48 KiB, L2 2048 KiB, 2 core(s), innermost tile size 256",
        "  problem size: N taken to be 2048 (no --estimate)",
        "  nest 1 (line 27) .. nest 3 (line 33) (3 nests): tiled 256;",
        "tiles 256 sized for L1; per tile 6144 bytes to and from memory",
    ] {
        assert!(r.contains(line), "{line}\n{r}");
    }
    // A small problem: the tiles stop at its extent, and no estimate is
    // reported as assumed.
    let small = report(
        "testsuite/programs/fig3_pipeline.c",
        &[
            "--scalene",
            "--explain",
            "--estimate",
            "N=100",
            "--cores",
            "2",
        ],
    );
    assert!(small.contains("(3 nests): tiled 99;"), "{small}");
    assert!(!small.contains("problem size"), "{small}");
    // Given sizes are costed as they are.
    let given = report(
        "testsuite/programs/fig3_pipeline.c",
        &[
            "--rectangle",
            "--grouping",
            "dp",
            "--tile-sizes",
            "16",
            "--explain",
        ],
    );
    assert!(given.contains("tile sizes given [16]"), "{given}");
    assert!(
        given.contains("tiles 16 sized for the given sizes"),
        "{given}"
    );
}

/// A group in which no stage reads another's values (camera-pipeline's
/// colour correction: three stages reading the same red, green and blue
/// images) keeps its rows whole, and `--explain` says why; a group of
/// producers and consumers (the demosaic) is costed with rows cut at the
/// innermost tile size and with whole rows, and takes whole rows for their
/// fewer memory streams, naming them.
#[test]
fn dp_explains_whole_rows() {
    let r = report(
        "benchmarks/camera-pipeline.c",
        &[
            "--rectangle",
            "--explain",
            "--cache-sizes",
            "32K,512K",
            "--cores",
            "2",
        ],
    );
    let group = |first: &str| {
        r.lines()
            .find(|l| l.contains(first) && l.contains("nests): tiled"))
            .unwrap_or_else(|| panic!("no group from {first}\n{r}"))
    };
    let correction = group("nest 28 (line 321) .. nest 30 (line 339)");
    assert!(correction.contains("x 4080;"), "{correction}");
    assert!(
        correction.contains("rows whole (no stage of the group reads another's values"),
        "{correction}"
    );
    let demosaic = group("nest 2 (line 107)");
    assert!(demosaic.contains("x 4090;"), "{demosaic}");
    assert!(
        demosaic.contains("rows whole (fewer memory streams"),
        "{demosaic}"
    );
    assert!(demosaic.contains(" streams, "), "{demosaic}");
}

/// The cost model splits a pipeline where a group would recompute too
/// much: with reads made expensive, it keeps every nest in its loops, and
/// the output is the original schedule.
#[test]
fn dp_weighs_recomputation_against_traffic() {
    let cheap = report(
        "testsuite/programs/fig3_pipeline.c",
        &["--rectangle", "--explain", "--cost-weights", "1,1,0.01,0"],
    );
    assert!(cheap.contains("(3 nests): tiled"), "{cheap}");
    let dear = report(
        "testsuite/programs/fig3_pipeline.c",
        &["--rectangle", "--explain", "--cost-weights", "0,1,1000,0"],
    );
    for nest in ["nest 1 (line 27)", "nest 2 (line 30)", "nest 3 (line 33)"] {
        assert!(
            dear.contains(&format!(
                "  {nest}: keeps its original loops: alone, its original loops cost no more than tiles"
            )),
            "{dear}"
        );
    }
}

/// The generated code of the Fig. 3 pipeline under `shape`.
fn generated(args: &[&str], tag: &str) -> String {
    let out = std::env::temp_dir().join(format!("flextile-code-{tag}-{}.c", std::process::id()));
    let o = Command::new(env!("CARGO_BIN_EXE_flextile"))
        .args(["testsuite/programs/fig3_pipeline.c", "-o"])
        .arg(&out)
        .args(args)
        .output()
        .expect("run flextile");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&out).expect("read output");
    let _ = std::fs::remove_file(&out);
    text
}

/// Whether some point loop of `code` computes all three stages (A and B into
/// their scratchpads, C into its array) in its body.
fn some_loop_computes_all_stages(code: &str) -> bool {
    code.split("for (int c1").skip(1).any(|body| {
        body.contains("ft_A[c1 - (32 * c0 - 6)] =")
            && body.contains("ft_B[(c1 - 1) - (32 * c0 - 5)] =")
            && body.contains("C[(c1 - 3)] =")
    })
}

#[test]
fn fig3_rectangle_fuses_the_point_loops_and_scalene_does_not() {
    // Fig. 14: one fused point loop per tile; Fig. 13: one loop per stage.
    assert!(
        some_loop_computes_all_stages(&generated(
            &["--rectangle", "--tile-sizes", "32", "--point-chunk", "0"],
            "rect"
        )),
        "rectangle tile without a fused point loop"
    );
    assert!(
        !some_loop_computes_all_stages(&generated(&["--scalene", "--tile-sizes", "32"], "scal")),
        "scalene tile with a fused point loop"
    );
}

/// Rectangle tiles strip-mine the fused point loop (`--point-chunk`): a
/// chunk loop `c1` over the tile, and inside it each stage's own loop `c2`
/// over its points of the chunk, A before B before C.
#[test]
fn fig3_rectangle_chunks_run_the_stages_one_after_another() {
    let code = generated(
        &["--rectangle", "--tile-sizes", "32", "--point-chunk", "8"],
        "chunk",
    );
    let chunk = code.split("for (int c1 = ").nth(1).expect("a chunk loop");
    assert!(
        chunk.contains("c1 <= ft_min(3, "),
        "chunks of 8 in a tile of 32: {chunk}"
    );
    let a = chunk.find("ft_A[c2 - (32 * c0 - 6)] =");
    let b = chunk.find("ft_B[(c2 - 1) - (32 * c0 - 5)] =");
    let c = chunk.find("C[(c2 - 3)] =");
    assert!(
        matches!((a, b, c), (Some(a), Some(b), Some(c)) if a < b && b < c),
        "{chunk}"
    );
    assert!(chunk.matches("for (int c2 = ").count() >= 3, "{chunk}");
    assert!(chunk.contains("32 * c0 + 8 * c1 + 7"), "{chunk}");
}

/// A tile larger than a loop's extent is reported with the faces moved in
/// (`+2/-3`) and counted in the redundancy only where the box leaves the
/// tile; a loop that is not tiled and has a parametric extent is `all`.
#[test]
fn bilateral_grid_reports_clipped_faces_and_untiled_loops() {
    let r = report(
        "benchmarks/bilateral-grid.c",
        &[
            "-I",
            "benchmarks",
            "--scalene",
            "--tile-sizes",
            "16,16,16",
            "--report",
        ],
    );
    // blurz: 20x20 of 16x16 in (i, j) is 36% recomputation; z spans 2..12.
    assert!(
        r.contains(
            "nest 3 (line 70): per tile 2 (-0/+0) x 20 (-2/+2) x 20 (-2/+2) x 11 (+2/-3) of 2 x 16 x 16 x 16, redundant 36.0%"
        ),
        "{r}"
    );
    // interp: the i loop is not tiled (sizes align on the innermost loops).
    assert!(
        r.contains("nest 6 (line 103): per tile 2 (-0/+0) x all x 8 (-0/-8) x 16 (-0/+0) x 8 (-0/-8) of 2 x all x 16 x 16 x 16, redundant 0.0%"),
        "{r}"
    );
}

/// A multi-statement stage (§3.6, Fig. 15): the statements of one scop nest
/// share their shift and tile, and each gets its own per-tile region from
/// dependence propagation: Ix (read by Iy in the same iteration and by C
/// around it) is expanded by 2 rows and 2 columns, Iy (read by C) by 2 rows
/// and 1 column, and Mag (read by nobody) computes just the tile.
#[test]
fn multi_statement_stage_gets_one_region_per_statement() {
    let r = report(
        "testsuite/programs/scop_multistmt_stage.c",
        &["--rectangle", "--tile-sizes", "4,8", "--report"],
    );
    for line in [
        "statement 'Ix[i][j] = B[i][j + 1] - B[i][...' (line 120): per tile 6 (-2/+0) x 10 (-2/+0) of 4 x 8, redundant 46.7%",
        "statement 'Iy[i][j] = B[i + 1][j] - B[i -...' (line 121): per tile 6 (-2/+0) x 9 (-1/+0) of 4 x 8, redundant 40.7%",
        "statement 'Mag[i][j] = Ix[i][j] * Ix[i][j...' (line 122): per tile 4 (-0/+0) x 8 (-0/+0) of 4 x 8, redundant 0.0%",
    ] {
        assert!(r.contains(line), "missing {line:?} in\n{r}");
    }
}
