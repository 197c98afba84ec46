//! The CPU emulation of CUDA (`testsuite/cuda/emulate.h`, issue 20 item 5)
//! that runs generated kernels without a GPU: `testsuite/cuda/selftest.cu`,
//! built as C++ against it, must compute what the host computes under every
//! thread order the emulation offers, and must give a wrong answer when one
//! `__syncthreads` or one `__syncwarp` is deleted (the threads between
//! barriers run in an adversarial order, so a missing barrier cannot pass by
//! luck of a sequential one). And nvcc from PyPI (`make deps`, in
//! `.deps/cuda`) builds the same file for `sm_80` and `sm_90`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A scratch directory of this test process, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("flextile-cuda-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

/// Builds the self-test with `defines` in `dir`; returns the binary.
fn build(dir: &Scratch, defines: &[&str]) -> PathBuf {
    let exe = dir.0.join("selftest");
    let cuda = root().join("testsuite/cuda");
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".to_string());
    let out = Command::new(&cxx)
        .args([
            "-std=c++17",
            "-O1",
            "-Wall",
            "-Werror",
            "-x",
            "c++",
            "-include",
        ])
        .arg(cuda.join("emulate.h"))
        .args(defines)
        .arg(cuda.join("selftest.cu"))
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cxx}: {e}"));
    assert!(
        out.status.success(),
        "{cxx} failed on selftest.cu {defines:?}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

fn run(exe: &Path, order: Option<&str>) -> Output {
    let mut cmd = Command::new(exe);
    if let Some(o) = order {
        cmd.env("FT_EMU_ORDER", o);
    }
    cmd.output().expect("run the self-test")
}

fn wrong(out: &Output, kernel: &str) -> usize {
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{kernel}: ")))
        .unwrap_or_else(|| panic!("no '{kernel}:' line in {text:?}"));
    line[kernel.len() + 2..]
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("cannot read {line:?}"))
}

#[test]
fn barriers_and_shuffles_compute_what_the_host_computes() {
    let dir = Scratch::new("ok");
    let exe = build(&dir, &[]);
    for order in [None, Some("forward"), Some("reverse"), Some("seed:7")] {
        let out = run(&exe, order);
        assert!(
            out.status.success(),
            "order {order:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(wrong(&out, "neighbours"), 0);
        assert_eq!(wrong(&out, "warps"), 0);
    }
}

#[test]
fn a_missing_syncthreads_gives_a_wrong_answer() {
    let dir = Scratch::new("nosync");
    let out = run(&build(&dir, &["-DDROP_SYNCTHREADS"]), None);
    assert!(!out.status.success());
    assert!(wrong(&out, "neighbours") > 0);
    assert_eq!(wrong(&out, "warps"), 0);
}

#[test]
fn a_missing_syncwarp_gives_a_wrong_answer() {
    let dir = Scratch::new("nowarp");
    let out = run(&build(&dir, &["-DDROP_SYNCWARP"]), None);
    assert!(!out.status.success());
    assert_eq!(wrong(&out, "neighbours"), 0);
    assert!(wrong(&out, "warps") > 0);
}

#[test]
fn a_barrier_in_divergent_code_stops_the_program() {
    let dir = Scratch::new("divergent");
    let out = run(&build(&dir, &["-DDIVERGENT_BARRIER"]), None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(70), "{err}");
    assert!(
        err.contains("deadlock: the threads of a block wait at different barriers"),
        "{err}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("divergent: returned"));
}

/// nvcc from `make deps` (or `$NVCC`), with the flags it needs: the
/// wheel's `nvcc.profile` looks for the runtime libraries in `lib64`, the
/// wheel puts them in `lib`.
fn nvcc() -> Command {
    if let Ok(p) = std::env::var("NVCC") {
        return Command::new(p);
    }
    let top = root().join(".deps/cuda/nvidia/cu13");
    let p = top.join("bin/nvcc");
    assert!(p.exists(), "{} is missing: run `make deps`", p.display());
    let mut cmd = Command::new(p);
    cmd.arg(format!("-L{}", top.join("lib").display()));
    cmd
}

#[test]
fn nvcc_builds_the_self_test_for_sm_80_and_sm_90() {
    let dir = Scratch::new("nvcc");
    for arch in ["sm_80", "sm_90"] {
        let exe = dir.0.join(format!("selftest-{arch}"));
        let out = nvcc()
            .arg(format!("-arch={arch}"))
            .arg(root().join("testsuite/cuda/selftest.cu"))
            .arg("-o")
            .arg(&exe)
            .output()
            .expect("run nvcc");
        assert!(
            out.status.success(),
            "nvcc -arch={arch} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(exe.exists());
    }
}

/// Hybrid register tiles of stages that alternate stencils along the two
/// loops (`testsuite/cuda/hybrid_mixed_stencils.c`): the register parts run
/// after the tile's shared-memory part and read its scratchpads, so no
/// scratchpad may share its allocation with one written later (a wrong
/// result until 2026-11-29: scalene tiles overlaid A2's scratchpad with
/// A4's). Each option set must plan register parts (the output says so).
#[test]
fn hybrid_register_tiles_of_mixed_stencils() {
    let dir = Scratch::new("hybrid-mixed");
    let src = root().join("testsuite/cuda/hybrid_mixed_stencils.c");
    let orig = dir.0.join("orig");
    let built = Command::new("gcc")
        .args(["-O1", "-std=gnu99", "-fopenmp", "-ffp-contract=off"])
        .args(["-Wno-unknown-pragmas", "-o"])
        .arg(&orig)
        .arg(&src)
        .arg("-lm")
        .output()
        .expect("runs gcc");
    assert!(built.status.success(), "{}", text(&built));
    let sets: [&[&str]; 3] = [
        &["--scalene", "--gpu-tiling", "hybrid", "--reg-fraction", "1"],
        &["--scalene", "--gpu-tiling", "hybrid"],
        &[
            "--rectangle",
            "--gpu-tiling",
            "hybrid",
            "--reg-fraction",
            "1",
        ],
    ];
    for (k, options) in sets.iter().enumerate() {
        let cu = dir.0.join(format!("out{k}.cu"));
        let flextile = Command::new(env!("CARGO_BIN_EXE_flextile"))
            .arg(&src)
            .arg("-o")
            .arg(&cu)
            .args(*options)
            .output()
            .expect("runs flextile");
        assert!(flextile.status.success(), "{}", text(&flextile));
        let code = std::fs::read_to_string(&cu).expect("reads the output");
        assert!(
            code.contains("register part"),
            "{options:?}: no register part planned"
        );
        let emulated = dir.0.join(format!("emulated{k}"));
        let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".to_string());
        let built = Command::new(&cxx)
            .args([
                "-O1",
                "-std=gnu++17",
                "-fopenmp",
                "-ffp-contract=off",
                "-fno-fast-math",
            ])
            .args(["-Wno-unknown-pragmas", "-include"])
            .arg(root().join("testsuite/cuda/emulate.h"))
            .args(["-x", "c++"])
            .arg(&cu)
            .arg("-o")
            .arg(&emulated)
            .arg("-lm")
            .output()
            .expect("runs the C++ compiler");
        assert!(built.status.success(), "{}", text(&built));
        for args in [["17", "45"], ["40", "61"], ["64", "100"]] {
            let want = Command::new(&orig).args(args).output().expect("runs");
            let got = Command::new(&emulated).args(args).output().expect("runs");
            assert!(
                want.stdout == got.stdout,
                "{options:?}, arguments {args:?}: the emulated CUDA output differs from the original's"
            );
        }
    }
}

/// A command's standard error, for a failure's message.
fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}
