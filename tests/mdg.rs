//! `--emit mdg=FILE.dot` and the `--report` cost lines (issue 18, item 6):
//! the macro dataflow graph of MiniFluxDiv before and after its pragma's
//! fusion, with S_R and S_C as counted by hand from the chain, and the
//! errors of a malformed `--emit`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn work_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flextile-mdg-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).expect("work dir");
    d
}

/// flextile on `input` with `args` and `--emit mdg=` a file in a fresh
/// folder for `tag`: the folder, the DOT file's path and the run.
fn emit(tag: &str, input: &str, args: &[&str]) -> (PathBuf, PathBuf, Output) {
    let dir = work_dir(tag);
    let dot_path = dir.join(format!("{tag}.dot"));
    let emit = format!("mdg={}", dot_path.display());
    let mut all = args.to_vec();
    all.extend(["--report", "--emit", &emit]);
    let o = flextile(input, &dir, &all);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (dir, dot_path, o)
}

fn flextile(input: &str, dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flextile"))
        .arg(input)
        .arg("-o")
        .arg(dir.join("out.c"))
        .args(args)
        .output()
        .expect("run flextile")
}

/// The lines of `dot` inside the cluster opened by `subgraph {name} {`,
/// nested clusters included.
fn cluster<'a>(dot: &'a str, name: &str) -> Vec<&'a str> {
    let open = format!("subgraph {name} {{");
    let mut lines = dot.lines().skip_while(|l| l.trim() != open);
    assert!(lines.next().is_some(), "no {name} in:\n{dot}");
    let mut depth = 1;
    let mut out = Vec::new();
    for l in lines {
        depth += l.matches('{').count();
        depth -= l.matches('}').count();
        if depth == 0 {
            return out;
        }
        out.push(l.trim());
    }
    panic!("{name} is not closed:\n{dot}");
}

fn nodes(lines: &[&str]) -> usize {
    lines
        .iter()
        .filter(|l| l.contains(" [shape=") && !l.contains("->"))
        .count()
}

fn edges(lines: &[&str]) -> usize {
    lines.iter().filter(|l| l.contains(" -> ")).count()
}

/// MiniFluxDiv with N = 16 (its pragma fuses all nine nests):
/// sizes OLD 16³ + 3·4·16² = 7168 (a cross: x, y or z in -2..17), CACHEX,
/// CACHEY, CACHEZ 16·16·17 = 4352, NEW 16³ = 4096. Before: OLD is read by
/// 3 nests, NEW by 3, each cache by 2: S_R = 3·7168 + 3·4096 + 6·4352 =
/// 59904; the widest nest reads 2 values (S_C = 2). After: the fused nest
/// reads each value once: S_R = 7168 + 4096 + 3·4352 = 24320, S_C = 5.
#[test]
fn minifluxdiv_before_and_after_fusion() {
    let (dir, dot_path, o) = emit(
        "mfd",
        "benchmarks/minifluxdiv.c",
        &["-I", "benchmarks", "--assume", "N = 16"],
    );
    let dot = fs::read_to_string(&dot_path).expect("dot file written");
    assert!(dot.starts_with("digraph mdg {"), "{dot}");
    assert_eq!(dot.matches('{').count(), dot.matches('}').count(), "{dot}");

    let before = cluster(&dot, "cluster_r0_before");
    // 5 data sets (OLD, NEW, CACHEX, CACHEY, CACHEZ) + 9 nests.
    assert_eq!(nodes(&before), 14, "{before:#?}");
    assert_eq!(before.iter().filter(|l| l.contains("shape=box")).count(), 5);
    // Reads: 3 nests read OLD, 3 read NEW, 6 read a cache; 9 writes, 3 of
    // them by in-place updates of a cache that also read it (counted above).
    assert_eq!(edges(&before), 12 + 9, "{before:#?}");
    assert!(
        before[0].contains("S_R = 59904 elements read, S_C = 2"),
        "{}",
        before[0]
    );
    // Persistent data shaded, temporaries not.
    let shaded = |name: &str| {
        before
            .iter()
            .find(|l| l.contains(&format!("label=\"{name}\\n")))
            .is_some_and(|l| l.contains("style=filled"))
    };
    assert!(shaded("OLD") && shaded("NEW"));
    assert!(!shaded("CACHEX") && !shaded("CACHEY") && !shaded("CACHEZ"));
    assert!(before
        .iter()
        .any(|l| l.contains("OLD\\ninput, 7168 elements")));
    assert!(before
        .iter()
        .any(|l| l.contains("CACHEY\\ntemporary, 4352 elements")));

    let after = cluster(&dot, "cluster_r0_after");
    // One macro node, drawn in its own sub-cluster.
    assert_eq!(nodes(&after), 5 + 1, "{after:#?}");
    assert_eq!(
        after
            .iter()
            .filter(|l| l.starts_with("subgraph cluster_"))
            .count(),
        1
    );
    assert!(
        after[0].contains("S_R = 24320 elements read, S_C = 5"),
        "{}",
        after[0]
    );

    let report = String::from_utf8_lossy(&o.stdout);
    assert!(
        report.contains(
            "minifluxdiv.c:50: macro dataflow graph, 9 stage(s) in 1 macro node(s), 1 fused"
        ),
        "{report}"
    );
    assert!(
        report.contains("S_R (elements read from memory): 59904 before, 24320 after"),
        "{report}"
    );
    assert!(
        report.contains("S_C (streams read at once): 2 before, 5 after"),
        "{report}"
    );
    // The chain's data sets are logical names: no element type, no bytes.
    assert!(
        report.contains("storage (bytes): unknown (element type of 'CACHEX'"),
        "{report}"
    );
    let _ = fs::remove_dir_all(&dir);
}

/// Overlapped tiling keeps the temporaries of `temporaries_pipeline.c` in
/// scratchpads: after, they are neither read from memory nor stored.
#[test]
fn temporaries_in_scratchpads_leave_s_r_and_storage() {
    let (dir, dot_path, o) = emit(
        "temps",
        "testsuite/programs/temporaries_pipeline.c",
        &[
            "--rectangle",
            "--tile-sizes",
            "32,32",
            "--assume",
            "H = 40 and W = 30",
        ],
    );
    let report = String::from_utf8_lossy(&o.stdout);
    // Chain at line 102: IN (40·30 floats) read by 2 nests, BX (40·28) by
    // one, BY (38·28 doubles) by one; after, only IN, once. Storage: IN and
    // OUT (38·28 floats) stay, BX and BY take one tile's scratchpads.
    assert!(
        report.contains(&format!(
            "S_R (elements read from memory): {} before, 1200 after",
            2 * 1200 + 40 * 28 + 38 * 28
        )),
        "{report}"
    );
    assert!(
        report.contains("S_C (streams read at once): 2 before, 1 after"),
        "{report}"
    );
    // All floats; one tile's scratchpads (32 x 32 tiles, clipped to the 28
    // columns of the domain): BX 34 x 28, BY 32 x 28.
    let before_bytes = 4 * (1200 + 40 * 28 + 38 * 28 + 38 * 28);
    let after_bytes = 4 * (1200 + 38 * 28) + 4 * (34 * 28 + 32 * 28);
    assert!(
        report.contains(&format!(
            "storage (bytes): {before_bytes} before, {after_bytes} after"
        )),
        "{report}"
    );
    let dot = fs::read_to_string(&dot_path).expect("dot file written");
    // Two regions, each with its clusters; the temporaries are drawn in the
    // fused node's sub-cluster, their accesses dashed.
    for r in ["cluster_r0", "cluster_r1"] {
        cluster(&dot, &format!("{r}_before"));
        cluster(&dot, &format!("{r}_after"));
    }
    assert!(cluster(&dot, "cluster_r0_after")
        .iter()
        .any(|l| l.contains("[style=dashed]")));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn unknown_emit_kinds_are_refused() {
    let dir = work_dir("bogus");
    for (arg, says) in [
        ("bogus=x", "unknown kind 'bogus' (the kinds are: mdg)"),
        ("mdg", "write KIND=FILE"),
        ("mdg=", "name a file"),
    ] {
        let o = flextile(
            "benchmarks/minifluxdiv.c",
            &dir,
            &["-I", "benchmarks", "--emit", arg],
        );
        assert_eq!(o.status.code(), Some(1), "--emit {arg}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(says), "--emit {arg}: {err}");
        assert!(!dir.join("out.c").exists(), "--emit {arg} wrote the output");
    }
    let _ = fs::remove_dir_all(&dir);
}
