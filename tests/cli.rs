//! The command line as a user meets it (issue 17, findings 8, 9, 13, 15 and
//! 21): `-MD`/`-MF`, `--verify`, the input read once, outputs that are the
//! input, a symlink, a FIFO or standard output, bytes that are not UTF-8,
//! how diagnostics echo the source, `--assume` and clang flag errors, and
//! `--version`. Every error case checks that an existing output is untouched.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Content of the pre-existing output file in error cases.
const SENTINEL: &[u8] = b"/* pre-existing output: flextile must not touch this file */\n";

/// A small program with one scop, a header and a `main` that prints.
const PROGRAM: &str = r#"#include <stdio.h>
#include "defs.h"
void f(int N, double *A, double *B)
{
#pragma scop
  for (int i = 1; i < N; i++)
    B[i] = A[i-1] + SCALE * A[i];
#pragma endscop
}
int main(int argc, char **argv)
{
  double A[64], B[64];
  for (int i = 0; i < 64; i++) { A[i] = i * 0.5; B[i] = 0; }
  f(64, A, B);
  for (int i = 0; i < 64; i += 9) printf("%d %.17g\n", i, B[i]);
  if (argc > 1) printf("arg %s\n", argv[1]);
  return 0;
}
"#;

/// The same region without includes (for inputs read from a pipe).
const PLAIN: &str = "void f(int N, double *A, double *B)\n{\n#pragma scop\n  for (int i = 1; i < N; i++)\n    B[i] = A[i-1] + A[i];\n#pragma endscop\n}\n";

/// A fresh folder for one test.
fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flextile-cli-{test}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).expect("test folder");
    d
}

/// Writes the program and its headers into `d`; the input's path.
fn program(d: &Path) -> PathBuf {
    fs::write(
        d.join("defs.h"),
        "#include \"inner.h\"\n#define SCALE 2.0\n",
    )
    .expect("defs.h");
    fs::write(d.join("inner.h"), "/* nothing */\n").expect("inner.h");
    let p = d.join("in.c");
    fs::write(&p, PROGRAM).expect("in.c");
    p
}

fn flextile(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flextile"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run flextile")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Runs flextile on `input_bytes` (as `in.c`) with `-o out.c` naming an
/// existing file; expects exit 1 and the output untouched; returns stderr.
fn fails(test: &str, input_bytes: &[u8], extra: &[&str]) -> String {
    let d = dir(test);
    fs::write(d.join("in.c"), input_bytes).expect("in.c");
    fs::write(d.join("out.c"), SENTINEL).expect("out.c");
    let mut args = vec!["in.c", "-o", "out.c"];
    args.extend_from_slice(extra);
    let o = flextile(&d, &args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(fs::read(d.join("out.c")).expect("out.c"), SENTINEL, "{err}");
    assert_eq!(fs::read(d.join("in.c")).expect("in.c"), input_bytes);
    let names: Vec<String> = fs::read_dir(&d)
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "files left: {names:?}");
    let _ = fs::remove_dir_all(&d);
    err
}

#[test]
fn md_writes_a_make_rule_with_every_header() {
    let d = dir("md");
    program(&d);
    let o = flextile(&d, &["in.c", "-o", "out.flex.c", "-MD"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rule = fs::read_to_string(d.join("out.flex.d")).expect("out.flex.d");
    let (head, phony) = rule.split_once("\n\n").expect("phony targets");
    let deps: Vec<&str> = head
        .trim_start_matches("out.flex.c:")
        .split(['\\', '\n', ' '])
        .filter(|w| !w.is_empty())
        .collect();
    assert!(head.starts_with("out.flex.c:"), "{rule}");
    assert_eq!(deps[0], "in.c", "{rule}");
    for h in ["defs.h", "inner.h", "stdio.h"] {
        assert!(deps.iter().any(|d| d.ends_with(h)), "{h} missing: {rule}");
        assert!(
            phony
                .lines()
                .any(|l| l.ends_with(&format!("{h}:")) && !l.contains(' ')),
            "no phony target for {h}: {rule}"
        );
    }
    // -MF names the file; the rule's target is still the output.
    let o = flextile(&d, &["in.c", "-o", "x.c", "-MF", "deps/x.dep"]);
    assert!(!o.status.success(), "a missing folder must fail");
    fs::create_dir(d.join("deps")).expect("deps");
    let o = flextile(&d, &["in.c", "-o", "x.c", "-MF", "deps/x.dep"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rule = fs::read_to_string(d.join("deps/x.dep")).expect("x.dep");
    assert!(
        rule.starts_with("x.c:") && rule.contains("defs.h"),
        "{rule}"
    );
    assert!(!d.join("x.d").exists());
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn md_with_stdout_needs_mf() {
    let d = dir("md_stdout");
    fs::write(d.join("in.c"), PLAIN).expect("in.c");
    let o = flextile(&d, &["in.c", "-o", "-", "-MD"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("-MF"), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    assert_eq!(fs::read_dir(&d).expect("ls").count(), 1);
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn verify_reports_identical_output() {
    let d = dir("verify_same");
    program(&d);
    let o = flextile(&d, &["in.c", "-o", "out.c", "--verify", "--", "hello"]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert!(
        out.contains("identical") && out.contains("'hello'"),
        "{out}"
    );
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn verify_reports_the_first_differing_line() {
    let d = dir("verify_diff");
    program(&d);
    // The executables are named after what they were built from: a program
    // that prints its own name prints differently.
    let src = PROGRAM.replace(
        "  return 0;\n}",
        "  printf(\"%s\\n\", strstr(argv[0], \"original\") ? \"A\" : \"B\");\n  return 0;\n}",
    );
    fs::write(d.join("in.c"), format!("#include <string.h>\n{src}")).expect("in.c");
    let o = flextile(&d, &["in.c", "-o", "out.c", "--verify"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(out.contains("DIFFERENT") && out.contains("line 9"), "{out}");
    assert!(out.contains("'A'") && out.contains("'B'"), "{out}");
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn verify_says_when_the_input_does_not_build() {
    let d = dir("verify_build");
    program(&d);
    let o = flextile(
        &d,
        &[
            "in.c",
            "-o",
            "out.c",
            "--verify",
            "--cflags",
            "-O1 -include no-such.h",
        ],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot build the input"), "{err}");
    let o = flextile(&d, &["in.c", "-o", "out.c", "--", "x"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--verify"), "{}", stderr(&o));
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn output_naming_the_input_is_refused() {
    let d = dir("same_file");
    fs::write(d.join("in.c"), PLAIN).expect("in.c");
    std::os::unix::fs::symlink("in.c", d.join("link.c")).expect("symlink");
    fs::hard_link(d.join("in.c"), d.join("hard.c")).expect("hard link");
    for out in ["in.c", "./in.c", "link.c", "hard.c"] {
        let o = flextile(&d, &["in.c", "-o", out]);
        assert_eq!(o.status.code(), Some(1), "-o {out}");
        assert!(
            stderr(&o).contains("input file is the same as output file"),
            "-o {out}: {}",
            stderr(&o)
        );
        assert_eq!(fs::read_to_string(d.join("in.c")).expect("in.c"), PLAIN);
    }
    let o = flextile(&d, &["link.c", "-o", "in.c"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(fs::read_to_string(d.join("in.c")).expect("in.c"), PLAIN);
    assert!(fs::symlink_metadata(d.join("link.c"))
        .expect("link")
        .file_type()
        .is_symlink());
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn input_from_a_pipe_is_read_once() {
    let d = dir("pipe");
    let mut child = Command::new(env!("CARGO_BIN_EXE_flextile"))
        .current_dir(&d)
        .args(["/dev/stdin", "-o", "out.c"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(PLAIN.as_bytes())
        .expect("write");
    let o = child.wait_with_output().expect("wait");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = fs::read_to_string(d.join("out.c")).expect("out.c");
    assert!(out.contains("Regions rewritten: 1"), "{out}");
    assert!(out.contains("#pragma omp parallel for"), "{out}");
    assert!(out.contains("void f(int N, double *A, double *B)"), "{out}");
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn dash_writes_to_standard_output() {
    let d = dir("stdout");
    fs::write(d.join("in.c"), PLAIN).expect("in.c");
    let o = flextile(&d, &["in.c", "-o", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("/* Generated by flextile"), "{out}");
    assert!(out.contains("#pragma omp parallel for"), "{out}");
    assert!(!d.join("-").exists());
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn output_through_a_symlink_keeps_the_link() {
    let d = dir("symlink_out");
    fs::write(d.join("in.c"), PLAIN).expect("in.c");
    fs::create_dir(d.join("real")).expect("real");
    fs::write(d.join("real/target.c"), "old").expect("target");
    std::os::unix::fs::symlink("real/target.c", d.join("out.c")).expect("symlink");
    let o = flextile(&d, &["in.c", "-o", "out.c"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(fs::symlink_metadata(d.join("out.c"))
        .expect("out.c")
        .file_type()
        .is_symlink());
    let written = fs::read_to_string(d.join("real/target.c")).expect("target");
    assert!(written.contains("#pragma omp parallel for"), "{written}");
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn output_into_a_fifo_keeps_the_fifo() {
    use std::os::unix::fs::FileTypeExt;
    let d = dir("fifo_out");
    fs::write(d.join("in.c"), PLAIN).expect("in.c");
    let fifo = d.join("out.c");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read_to_string(fifo).expect("read fifo"))
    };
    let o = flextile(&d, &["in.c", "-o", "out.c"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = reader.join().expect("reader");
    assert!(text.contains("#pragma omp parallel for"), "{text}");
    assert!(fs::symlink_metadata(&fifo)
        .expect("fifo")
        .file_type()
        .is_fifo());
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn latin1_outside_pragmas_is_kept_byte_for_byte() {
    let d = dir("latin1");
    let src =
        format!("/* caf\u{1} r\u{2}sum\u{1} */\n{PLAIN}int g(void) {{ return 1; }} /* \u{2} */\n")
            .into_bytes()
            .into_iter()
            .map(|b| match b {
                1 => 0xe9,
                2 => 0xff,
                b => b,
            })
            .collect::<Vec<u8>>();
    fs::write(d.join("in.c"), &src).expect("in.c");
    let o = flextile(&d, &["in.c", "-o", "out.c"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = fs::read(d.join("out.c")).expect("out.c");
    let find = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
    assert!(
        find(&out, b"/* caf\xe9 r\xffsum\xe9 */\n"),
        "comment not kept"
    );
    assert!(find(&out, b"/* \xff */\n"), "trailing comment not kept");
    assert!(find(&out, b"#pragma omp parallel for"));
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn latin1_in_a_pragma_is_a_located_error() {
    let src = PLAIN
        .replace("#pragma scop", "#pragma scop /* caf\u{1} */")
        .into_bytes()
        .into_iter()
        .map(|b| if b == 1 { 0xe9 } else { b })
        .collect::<Vec<u8>>();
    let err = fails("latin1_pragma", &src, &[]);
    assert!(err.starts_with("in.c:3:20: error: byte 0xE9"), "{err}");
    assert_eq!(err.matches("error:").count(), 1, "{err}");
}

#[test]
fn bom_does_not_shift_the_caret() {
    let err = fails("bom", b"\xef\xbb\xbfint x = y;\n", &[]);
    assert!(
        err.starts_with("in.c:1:9: error: use of undeclared identifier 'y'"),
        "{err}"
    );
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines[1], "int x = y;", "{err}");
    assert_eq!(lines[2], "        ^", "{err}");
}

#[test]
fn long_lines_are_cut_around_the_caret() {
    let src = format!("int f(void) {{\n  return {}y;\n}}\n", "1 + ".repeat(50_000));
    let err = fails("long_line", src.as_bytes(), &[]);
    assert!(err.len() < 600, "{} bytes of diagnostics", err.len());
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines[0].starts_with("in.c:2:200010: error:"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("...1 + ") && lines[1].ends_with("+ y;"),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2].find('^'), lines[1].find('y'), "{err}");
}

#[test]
fn one_bad_line_gives_one_error() {
    let src = PLAIN.replace("A[i-1] + A[i];", "A[i-1] +* 2 + ;");
    let err = fails("dedup", src.as_bytes(), &[]);
    assert_eq!(err.matches("error:").count(), 1, "{err}");
    assert!(err.starts_with("in.c:5:"), "{err}");
}

#[test]
fn assume_errors_name_what_is_wrong() {
    let err = fails("assume_param", PLAIN.as_bytes(), &["--assume", "M >= 1"]);
    assert!(
        err.contains("'M'") && err.contains("not a parameter"),
        "{err}"
    );
    assert!(err.contains("they are N"), "{err}");
    assert!(!err.contains("Invalid"), "{err}");
    let err = fails(
        "assume_syntax",
        PLAIN.as_bytes(),
        &["--assume", "N >= 1", "--assume", "N <= 5 and"],
    );
    assert!(err.contains("--assume 'N <= 5 and'"), "{err}");
    assert!(
        !err.contains("Invalid") && !err.contains("'N >= 1'"),
        "{err}"
    );
}

#[test]
fn a_bad_clang_flag_is_named() {
    let err = fails("bad_std", PLAIN.as_bytes(), &["-std=c1492"]);
    assert!(err.contains("'-std=c1492'"), "{err}");
    assert!(!err.contains("could not parse"), "{err}");
}

#[test]
fn version_names_commit_isl_and_libclang() {
    let o = flextile(Path::new("."), &["--version"]);
    assert!(o.status.success());
    let v = stdout(&o);
    assert!(
        v.starts_with(&format!("flextile {} (commit ", env!("CARGO_PKG_VERSION"))),
        "{v}"
    );
    assert!(v.contains("\nisl ") && v.contains("\nlibclang "), "{v}");
    assert!(v.contains("clang version"), "{v}");
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output();
    if let Some(h) = head.ok().filter(|h| h.status.success()) {
        let h = String::from_utf8_lossy(&h.stdout).trim().to_string();
        assert!(v.contains(&format!("(commit {h})")), "{v} vs HEAD {h}");
    }
}

/// `--help` says what CUDA output does and how to build it bit for bit.
#[test]
fn help_describes_cuda_output() {
    let o = flextile(Path::new("."), &["--help"]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains("CUDA output"), "{out}");
    assert!(out.contains("--fmad=false"), "{out}");
    assert!(out.contains("--block-sizes"), "{out}");
}

/// An output named `*.cu` is CUDA: the parallel loop is a kernel launched
/// through `FT_LAUNCH` with the block `--block-sizes` asks for, the data go
/// through device buffers, and `--verify` builds it (against the CPU
/// emulation of CUDA where there is no GPU) and compares with the input.
#[test]
fn cuda_output_is_verified_against_the_input() {
    let d = dir("cuda_verify");
    program(&d);
    let o = flextile(
        &d,
        &[
            "in.c",
            "-o",
            "out.cu",
            "--block-sizes",
            "64,2",
            "--verify",
            "--",
            "hello",
        ],
    );
    let out = stdout(&o);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert!(
        out.contains("identical") && out.contains("'hello'"),
        "{out}"
    );
    assert!(
        out.contains("against the CPU emulation of CUDA") || out.contains("run on the GPU"),
        "{out}"
    );
    let cu = fs::read_to_string(d.join("out.cu")).expect("out.cu");
    assert!(cu.contains("__global__ void ft_kernel5_0("), "{cu}");
    assert!(cu.contains("FT_LAUNCH(ft_kernel5_0, "), "{cu}");
    assert!(
        cu.contains("dim3(128, 1)"),
        "a 1-D kernel gets X*Y threads: {cu}"
    );
    assert!(cu.contains("cudaMemcpyDeviceToHost"), "{cu}");
    let _ = fs::remove_dir_all(&d);
}

/// A macro of the command line named like an identifier of CUDA's headers
/// (`-DT=...`, which breaks `nvcc -DT=50`): the CUDA output defines it
/// itself, and `--verify` builds it without the `-D`.
#[test]
fn cuda_output_defines_the_command_line_macros() {
    let d = dir("cuda_defines");
    fs::write(
        d.join("in.c"),
        "#include <stdio.h>\nstatic double x[T][16];\nvoid f(int N)\n{\n#pragma scop\n  \
         for (int t = 1; t < T; t++)\n    for (int i = 0; i < N; i++)\n      \
         x[t][i] = x[t-1][i] + K;\n#pragma endscop\n}\nint main(void)\n{\n  f(16);\n  \
         printf(\"%g\\n\", x[T-1][3]);\n  return 0;\n}\n",
    )
    .expect("in.c");
    let o = flextile(&d, &["-DT=5", "-DK", "in.c", "-o", "out.cu", "--verify"]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert!(out.contains("identical"), "{out}");
    let cu = fs::read_to_string(d.join("out.cu")).expect("out.cu");
    let at = cu
        .find("#ifndef T\n#define T 5\n#endif\n")
        .expect("T defined");
    assert!(cu.contains("#ifndef K\n#define K 1\n#endif\n"), "{cu}");
    assert!(
        at < cu.find("#include <assert.h>").expect("prelude"),
        "{cu}"
    );
    let _ = fs::remove_dir_all(&d);
}

/// CUDA-only options are refused for C output, C-only ones for CUDA, and
/// block sizes past CUDA's limit of 1024 threads are refused.
#[test]
fn target_specific_options_are_checked() {
    let err = fails(
        "cuda_blocks_c",
        PLAIN.as_bytes(),
        &["--block-sizes", "32,8"],
    );
    assert!(err.contains("--block-sizes is for CUDA output"), "{err}");
    let err = fails(
        "cuda_blocks_big",
        PLAIN.as_bytes(),
        &["--target", "cuda", "--block-sizes", "64,64"],
    );
    assert!(err.contains("X*Y at most 1024"), "{err}");
    let err = fails(
        "cuda_no_openmp",
        PLAIN.as_bytes(),
        &["--target", "cuda", "--no-openmp"],
    );
    assert!(err.contains("--no-openmp is for C output"), "{err}");
    let err = fails(
        "cuda_stack",
        PLAIN.as_bytes(),
        &["--target", "cuda", "--rectangle", "--stack-limit", "0"],
    );
    assert!(err.contains("--stack-limit is for C output"), "{err}");
    let err = fails("cuda_warp_c", PLAIN.as_bytes(), &["--gpu-tiling", "warp"]);
    assert!(err.contains("--gpu-tiling is for CUDA output"), "{err}");
    let err = fails(
        "cuda_warp_untiled",
        PLAIN.as_bytes(),
        &["--target", "cuda", "--gpu-tiling", "warp"],
    );
    assert!(err.contains("give one of them"), "{err}");
    let err = fails("cuda_gpu_c", PLAIN.as_bytes(), &["--gpu", "sm_80"]);
    assert!(err.contains("--gpu is for CUDA output"), "{err}");
}

/// Two stages, the first a temporary read at three points by the second.
const WARPED: &str = "#include <stdio.h>\n\nstatic float A[300], T[300], B[300];\n\nstatic void f(int N)\n{\n#pragma omplc loopchain schedule() temporary(T)\n  {\n#pragma omplc for domain(1:N-2) with (i) read A {(i-1),(i+1)}, write T {(i)}\n    for (int i = 1; i <= N - 2; i++)\n      T[i] = A[i-1] * 0.5f + A[i+1];\n#pragma omplc for domain(2:N-3) with (i) read T {(i-1),(i),(i+1)}, write B {(i)}\n    for (int i = 2; i <= N - 3; i++)\n      B[i] = T[i-1] + T[i] * 0.25f + T[i+1];\n  }\n}\n\nint main(void)\n{\n  for (int i = 0; i < 300; i++)\n    A[i] = (float)((i * 37) % 101) / 7.0f;\n  f(300);\n  for (int i = 0; i < 300; i++)\n    printf(\"%d %.9g\\n\", i, B[i]);\n  return 0;\n}\n";

/// `--gpu-tiling warp` (Jangda & Guha, PACT'20, §4): one overlapped tile per warp, the
/// scratchpads one per warp, `__syncwarp` between stages; the output is
/// bit-identical to the original on the emulation, and the same output
/// with its first `__syncwarp` deleted is not (the emulation runs a warp's
/// lanes in an adversarial order between barriers).
#[test]
fn cuda_warp_tiles_synchronise_per_warp() {
    let d = dir("cuda_warp");
    fs::write(d.join("in.c"), WARPED).expect("in.c");
    let sizes = ["--tile-sizes", "64", "--block-sizes", "32,8"];
    let args = [
        "in.c",
        "-o",
        "out.cu",
        "--rectangle",
        "--gpu-tiling",
        "warp",
    ];
    let o = flextile(
        &d,
        &[&args[..], &sizes[..], &["--verify", "--report"]].concat(),
    );
    let out = stdout(&o);
    assert!(
        o.status.success() && out.contains("identical"),
        "{out}{}",
        stderr(&o)
    );
    assert!(
        out.contains("one tile per warp (8 warps per block)"),
        "{out}"
    );
    // 8 warps of 264 bytes of scratchpads: the SM's threads bound it.
    let occupancy = "occupancy on sm_90 (H100 SXM): 8 block(s) per SM, 64 of 64 warps (100%), bound by threads while a thread takes at most 32 registers";
    assert!(out.contains(occupancy), "{out}");
    let cu = fs::read_to_string(d.join("out.cu")).expect("out.cu");
    assert!(
        cu.contains("__syncwarp();") && !cu.contains("__syncthreads();"),
        "{cu}"
    );
    assert!(cu.contains("[8][") && cu.contains("auto &ft_"), "{cu}");
    // The expected output, and the output without the first barrier.
    let gcc = Command::new("gcc")
        .current_dir(&d)
        .args(["-O1", "-o", "orig", "in.c"])
        .status()
        .expect("gcc");
    assert!(gcc.success());
    let expected = Command::new(d.join("orig")).output().expect("orig").stdout;
    let k = cu.find("__syncwarp();").expect("a barrier");
    fs::write(d.join("bad.cu"), format!("{}{}", &cu[..k], &cu[k + 13..])).expect("bad.cu");
    let emulate = std::env::current_dir()
        .expect("cwd")
        .join("testsuite/cuda/emulate.h");
    let built = Command::new("g++")
        .current_dir(&d)
        .args(["-O1", "-std=gnu++17", "-fopenmp", "-x", "c++", "-include"])
        .arg(&emulate)
        .args(["bad.cu", "-o", "bad", "-lm"])
        .output()
        .expect("g++");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let bad = Command::new(d.join("bad")).output().expect("bad");
    assert_ne!(bad.stdout, expected, "a missing __syncwarp went unnoticed");
    let _ = fs::remove_dir_all(&d);
}

/// `--gpu-tiling hybrid` (Jangda & Guha, PACT'20, §5): the right parallelogram tiles of a
/// warp's tile live in registers, read across lanes by shuffles, and the
/// scratchpads shrink to the rest; the output runs bit-identical on the
/// emulation; a group whose tiles are too narrow for a warp of registers
/// gets one tile per warp and a warning naming it; `--reg-fraction` is
/// checked.
#[test]
fn cuda_hybrid_tiles_hold_registers() {
    let d = dir("cuda_hybrid");
    fs::write(d.join("in.c"), WARPED).expect("in.c");
    let base = ["in.c", "-o", "out.cu", "--rectangle", "--tile-sizes", "64"];
    let run = |extra: &[&str]| {
        let o = flextile(&d, &[&base[..], extra, &["--verify", "--report"]].concat());
        let out = stdout(&o);
        assert!(
            o.status.success() && out.contains("identical"),
            "{extra:?}: {out}{}",
            stderr(&o)
        );
        let cu = fs::read_to_string(d.join("out.cu")).expect("out.cu");
        (out, stderr(&o), cu)
    };
    let (_, _, warp) = run(&["--gpu-tiling", "warp", "--block-sizes", "32,4"]);
    // T's region per tile: 66 floats (the tile and two to the left).
    assert!(
        warp.contains("__shared__ float ft_ft_wft_T[4][66]"),
        "{warp}"
    );
    let (out, err, cu) = run(&[
        "--gpu-tiling",
        "hybrid",
        "--reg-fraction",
        "1",
        "--block-sizes",
        "32,4",
    ]);
    assert!(
        out.contains("hybrid: 2 parallelogram tile(s) of 32 per statement in registers"),
        "{out}"
    );
    // Two warps of T in registers: the scratchpad keeps the two left.
    assert!(cu.contains("__shared__ float ft_ft_wft_T[4][2]"), "{cu}");
    assert!(
        cu.contains("float ft_ft_r_T_0 = 0, ft_ft_r_T_1 = 0;"),
        "{cu}"
    );
    assert!(
        cu.contains("= __shfl_sync(0xffffffffu, ft_ft_r_T_0, (ft_ft_lane + 31) % 32);"),
        "{cu}"
    );
    assert!(!err.contains("warning"), "{err}");
    // Half of the tile (the fraction alone implies hybrid tiles).
    let (_, _, half) = run(&["--reg-fraction", "0.5"]);
    assert!(
        half.contains("ft_ft_wft_T[") && half.contains("][34]"),
        "{half}"
    );
    // Tiles of 16 points hold no warp of registers: one tile per warp.
    let o = flextile(
        &d,
        &[
            "in.c",
            "-o",
            "out.cu",
            "--rectangle",
            "--tile-sizes",
            "16",
            "--gpu-tiling",
            "hybrid",
            "--verify",
        ],
    );
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(
        o.status.success() && out.contains("identical"),
        "{out}{err}"
    );
    assert!(
        err.contains("in.c:9:1: warning: --gpu-tiling hybrid: the group starting at nest 1 (line 9) runs one tile per warp"),
        "{err}"
    );
    for (args, why) in [
        (
            &["--gpu-tiling", "warp", "--reg-fraction", "0.5"][..],
            "--reg-fraction sizes the register part of hybrid tiles",
        ),
        (
            &["--gpu-tiling", "hybrid", "--reg-fraction", "0"][..],
            "invalid --reg-fraction 0",
        ),
    ] {
        let err = fails(
            "cuda_hybrid_bad",
            WARPED.as_bytes(),
            &[&["--target", "cuda", "--rectangle"][..], args].concat(),
        );
        assert!(err.contains(why), "{args:?}: {err}");
    }
    let err = fails(
        "cuda_hybrid_c",
        WARPED.as_bytes(),
        &["--rectangle", "--reg-fraction", "0.5"],
    );
    assert!(err.contains("--reg-fraction is for CUDA output"), "{err}");
    let _ = fs::remove_dir_all(&d);
}

/// `--gpu-tiling auto` (the default, Jangda & Guha, PACT'20, §6): the GPU cost model
/// chooses each group's tile sizes, scheme and thread block; the banner
/// says so, `--report` prints its figures with its shared-memory estimate
/// beside the kernel's actual bytes (equal here), the output runs
/// bit-identical, and the options the CPU's model reads are refused.
#[test]
fn cuda_gpu_cost_model_chooses_the_mapping() {
    let d = dir("cuda_auto");
    fs::write(d.join("in.c"), WARPED).expect("in.c");
    for extra in [&[][..], &["--gpu-tiling", "auto", "--gpu", "sm_80"][..]] {
        let args = [
            "in.c",
            "-o",
            "out.cu",
            "--rectangle",
            "--verify",
            "--report",
        ];
        let o = flextile(&d, &[&args[..], extra].concat());
        let out = stdout(&o);
        assert!(
            o.status.success() && out.contains("identical"),
            "{out}{}",
            stderr(&o)
        );
        let arch = extra.last().copied().unwrap_or("sm_90");
        let line = out
            .lines()
            .find(|l| l.contains("GPU cost model:"))
            .unwrap_or_else(|| panic!("no GPU cost model line: {out}"));
        assert!(
            line.contains(&format!(" us on {arch}: one tile per ")),
            "{line}"
        );
        let estimate = line
            .split("estimated shared memory ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .unwrap_or_else(|| panic!("{line}"));
        assert!(
            line.ends_with(&format!("(actual {estimate} bytes)")),
            "{line}"
        );
        let cu = fs::read_to_string(d.join("out.cu")).expect("out.cu");
        assert!(
            cu.contains(&format!("GPU mapping from the GPU cost model ({arch})"))
                && cu.contains("scheme and block from the GPU cost model"),
            "{cu}"
        );
        assert_eq!(cu.contains("--gpu sm_80"), arch == "sm_80", "{cu}");
    }
    let err = fails(
        "cuda_auto_cores",
        WARPED.as_bytes(),
        &["--target", "cuda", "--rectangle", "--cores", "4"],
    );
    assert!(
        err.contains("for CUDA the GPU cost model reads --gpu"),
        "{err}"
    );
    let _ = fs::remove_dir_all(&d);
}

/// A CUDA output's overlapped tiles: one tile per block, the tile's
/// scratchpads in shared memory, a barrier between stages; a tile too
/// large for shared memory is refused with the bytes it needs.
#[test]
fn cuda_overlapped_tiles_live_in_shared_memory() {
    let (out, _) = compiles(
        "cuda_tiles",
        INLINABLE,
        &["--target", "cuda", "--rectangle", "--tile-sizes", "64"],
    );
    assert!(out.contains("__shared__ float ft_"), "{out}");
    assert!(out.contains("__syncthreads();"), "{out}");
    assert!(out.contains("blockIdx.x"), "{out}");
    let err = fails(
        "cuda_tiles_big",
        INLINABLE.as_bytes(),
        &["--target", "cuda", "--rectangle", "--tile-sizes", "100000"],
    );
    assert!(
        err.contains("bytes of static shared memory; give smaller --tile-sizes"),
        "{err}"
    );
}

/// Gathers: a true array read only at data-dependent indices (`TAB`), and a
/// pointer read at them (`a`, its other accesses bounded by `n`).
const GATHERS: &str = "#include <stdio.h>\n#include <stdlib.h>\n\nstatic double TAB[8], G[64];\nstatic int IDX[64];\n\nstatic void lookup(void)\n{\n#pragma scop\n  for (int i = 0; i < 64; i++)\n    G[i] = TAB[IDX[i] & 7] * 2.0;\n#pragma endscop\n}\n\nstatic void gather(int n, double *restrict a, double *restrict b, const int *restrict idx)\n{\n#pragma scop\n  for (int i = 0; i < n; i++)\n    a[i] = a[i] * 2.0;\n  for (int i = 0; i < n; i++)\n    b[i] = a[idx[i]];\n#pragma endscop\n}\n\nint main(int argc, char **argv)\n{\n  int n = 64, far = argc > 1 ? atoi(argv[1]) : 0;\n  double *a = malloc(sizeof(double) * 2 * n), *b = malloc(sizeof(double) * n);\n  int *idx = malloc(sizeof(int) * n);\n  for (int i = 0; i < 2 * n; i++) a[i] = i;\n  for (int i = 0; i < 8; i++) TAB[i] = 0.5 * i;\n  for (int i = 0; i < n; i++) { idx[i] = (i * 7) % n + far; IDX[i] = i * 5; }\n  lookup();\n  gather(n, a, b, idx);\n  for (int i = 0; i < n; i++) printf(\"%g %g\\n\", G[i], b[i]);\n  free(a); free(b); free(idx);\n  return 0;\n}\n";

/// CUDA output of data-dependent subscripts: the true array read only by
/// gathers gets its declared size on the device, the pointer the box of
/// the region's other accesses; every gather is checked against its
/// buffer, and one outside it (valid C here: inside the allocation) stops
/// the program with the region's place rather than read other memory.
#[test]
fn cuda_gathers_are_checked_against_their_buffers() {
    let d = dir("cuda_gathers");
    fs::write(d.join("in.c"), GATHERS).expect("in.c");
    let o = flextile(&d, &["in.c", "-o", "out.cu", "--verify"]);
    let out = stdout(&o);
    assert!(
        o.status.success() && out.contains("identical"),
        "{out}{}",
        stderr(&o)
    );
    let cu = fs::read_to_string(d.join("out.cu")).expect("out.cu");
    assert!(cu.contains("sizeof(TAB) / sizeof(TAB[0])"), "{cu}");
    assert_eq!(cu.matches("ft_gather((long long)").count(), 2, "{cu}");
    let o = flextile(&d, &["in.c", "-o", "out.cu", "--verify", "--", "64"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("DIFFERENT")
            && out.contains("in.c:17: error: a data-dependent subscript reached outside"),
        "{out}"
    );
    let _ = fs::remove_dir_all(&d);
}

/// A chain of three nests: `T` (a temporary) point-wise from `A`, read at
/// three points by `B`, and `C` (live-out) read by `D`.
const INLINABLE: &str = "void f(int N, float A[N], float T[N], float B[N], float C[N], float D[N])\n{\n#pragma omplc loopchain schedule() temporary(T)\n  {\n#pragma omplc for domain(0:N-1) with (i) read A {(i)}, write T {(i)}\n    for (int i = 0; i <= N - 1; i++)\n      T[i] = A[i] * 0.5;\n#pragma omplc for domain(1:N-2) with (i) read T {(i-1),(i),(i+1)}, write B {(i)}\n    for (int i = 1; i <= N - 2; i++)\n      B[i] = T[i-1] + T[i] + T[i+1];\n#pragma omplc for domain(0:N-1) with (i) read A {(i)}, write C {(i)}\n    for (int i = 0; i <= N - 1; i++)\n      C[i] = A[i] + 1;\n#pragma omplc for domain(0:N-1) with (i) read C {(i)}, write D {(i)}\n    for (int i = 0; i <= N - 1; i++)\n      D[i] = C[i] * 2;\n  }\n}\n";

/// The model's grouping inlines the point-wise temporary `T` into its
/// consumer through a cast to its type, keeps the live-out `C`, says so in
/// the banner and `--explain`; `--no-inline` keeps every nest.
#[test]
fn the_model_inlines_point_wise_temporaries() {
    let (out, _) = compiles("inline", INLINABLE, &["--rectangle", "--explain"]);
    assert!(
        out.contains("expression inlining (Jangda & Bondhugula, TOPLAS'20, Algorithm 3)"),
        "{out}"
    );
    assert!(
        out.contains("'T' of nest 1 (line 5) into nest 2 (line 8): point-wise"),
        "{out}"
    );
    assert!(
        out.contains("inlined 'T' (nest 1 (line 5)) into their consumers"),
        "{out}"
    );
    assert!(out.contains("((float)("), "{out}");
    assert!(!out.contains("'C' of"), "{out}");
    let (out, _) = compiles("no_inline", INLINABLE, &["--rectangle", "--no-inline"]);
    assert!(!out.contains("inlined"), "{out}");
    assert!(!out.contains("((float)("), "{out}");
}

/// `X` and `Y` read `A[i-1]` at every point, over one domain, and `O` reads
/// them at the same points; `Z` reads `X`.
const REUSE: &str = "void f(int N, float A[N], float X[N], float Y[N], float Z[N], float O[N])\n{\n#pragma omplc loopchain schedule() temporary(X, Y, Z)\n  {\n#pragma omplc for domain(1:N-2) with (i) read A {(i-1),(i)}, write X {(i)}\n    for (int i = 1; i <= N - 2; i++)\n      X[i] = A[i-1] + A[i];\n#pragma omplc for domain(1:N-2) with (i) read A {(i-1),(i+1)}, write Y {(i)}\n    for (int i = 1; i <= N - 2; i++)\n      Y[i] = A[i-1] - A[i+1];\n#pragma omplc for domain(1:N-2) with (i) read X {(i)}, write Z {(i)}\n    for (int i = 1; i <= N - 2; i++)\n      Z[i] = X[i] * 2;\n#pragma omplc for domain(2:N-3) with (i) read X {(i-1),(i+1)}, read Y {(i-1),(i+1)}, read Z {(i-1),(i+1)}, write O {(i)}\n    for (int i = 2; i <= N - 3; i++)\n      O[i] = X[i-1] * Y[i+1] + X[i+1] * Y[i-1] + Z[i-1] * Z[i+1];\n  }\n}\n";

/// Intra-tile fusion for register reuse (Jangda & Bondhugula, TOPLAS'20, §5.3): `X` and `Y` share
/// one point loop in a tile (scalene tiles and rectangle chunks), `Z`,
/// which reads `X`, keeps its own; the banner and `--explain` say so, and
/// `--no-intra-tile-fusion` keeps every loop apart, as does a `?:` in `Y`.
#[test]
fn tiles_fuse_the_point_loops_of_stages_reading_common_inputs() {
    for shape in ["--rectangle", "--scalene"] {
        let (out, _) = compiles("reuse", REUSE, &[shape, "--tile-sizes", "32", "--explain"]);
        assert!(
            out.contains(
                "fuses the point loops of nest 1 (line 5) + nest 2 (line 8) inside a tile"
            ),
            "{out}"
        );
        assert!(
            out.contains("intra-tile fusion for register reuse (2 stages in 1 point loop(s))"),
            "{out}"
        );
        // X and Y in one loop: Y's statement follows X's with no loop between.
        let body: Vec<&str> = out.lines().map(str::trim).collect();
        let x = body.iter().position(|l| l.starts_with("ft_X[")).expect("X");
        assert!(body[x + 1].starts_with("/* S1:"), "{out}");
        assert!(body[x + 2].starts_with("ft_Y["), "{out}");
        let z = body.iter().position(|l| l.starts_with("ft_Z[")).expect("Z");
        assert!(body[z - 2].starts_with("for ("), "{out}");
        let (out, _) = compiles(
            "no_reuse",
            REUSE,
            &[shape, "--tile-sizes", "32", "--no-intra-tile-fusion"],
        );
        assert!(!out.contains("intra-tile fusion"), "{out}");
        let body: Vec<&str> = out.lines().map(str::trim).collect();
        let y = body.iter().position(|l| l.starts_with("ft_Y[")).expect("Y");
        assert!(body[y - 2].starts_with("for ("), "{out}");
    }
    // A branch in a body keeps its loop apart (the fused loop would not
    // stay straight-line code).
    let select = REUSE.replace("A[i-1] - A[i+1];", "A[i-1] > 0 ? A[i+1] : A[i-1];");
    let (out, _) = compiles(
        "reuse_select",
        &select,
        &["--scalene", "--tile-sizes", "32"],
    );
    assert!(out.contains("? A[c1+1] : A[c1-1]"), "{out}");
    assert!(!out.contains("intra-tile fusion"), "{out}");
    let err = fails("reuse_alone", REUSE.as_bytes(), &["--no-intra-tile-fusion"]);
    assert!(
        err.contains("--no-intra-tile-fusion applies to overlapped tiling"),
        "{err}"
    );
}

/// Three stages reading two rows above and below (`B`, `C` temporaries).
const MULTI: &str = "void f(int H, int W, float IN[H][W], float B[H][W], float C[H][W], float D[H][W])\n{\n#pragma omplc loopchain schedule() temporary(B, C)\n  {\n#pragma omplc for domain(1:H-2, 0:W-1) with (y, x) read IN {(y-1,x),(y,x),(y+1,x)}, write B {(y,x)}\n    for (int y = 1; y <= H - 2; y++)\n      for (int x = 0; x <= W - 1; x++)\n        B[y][x] = IN[y-1][x] + IN[y][x] + IN[y+1][x];\n#pragma omplc for domain(3:H-4, 0:W-1) with (y, x) read B {(y-2,x),(y+2,x)}, write C {(y,x)}\n    for (int y = 3; y <= H - 4; y++)\n      for (int x = 0; x <= W - 1; x++)\n        C[y][x] = B[y-2][x] - B[y+2][x];\n#pragma omplc for domain(5:H-6, 0:W-1) with (y, x) read C {(y-2,x),(y+2,x)}, write D {(y,x)}\n    for (int y = 5; y <= H - 6; y++)\n      for (int x = 0; x <= W - 1; x++)\n        D[y][x] = C[y-2][x] * C[y+2][x];\n  }\n}\n";

/// Multi-level tiling (Jangda & Bondhugula, TOPLAS'20, §5.2): with a small L1, the model sizes the
/// scalene tiles for L2 and runs inner tiles for L1 inside them, each
/// producer's rows ahead of its consumer's by the rows the consumer reads
/// below; `--no-multi-level` and rectangle tiles have none.
#[test]
fn scalene_tiles_sized_for_l2_run_inner_tiles_for_l1() {
    let sizes = ["--cache-sizes", "8K,256K"];
    let (out, _) = compiles(
        "multi",
        MULTI,
        &["--scalene", sizes[0], sizes[1], "--explain"],
    );
    assert!(
        out.contains("inside a tile, inner tiles 2 x all for L1 run one after another"),
        "{out}"
    );
    assert!(
        out.contains("multi-level tiling (inner tiles for L1 in 1 group(s))"),
        "{out}"
    );
    // Inner tile c2 holds rows 2*c2 .. 2*c2+1 of D, 2 more of C, 4 of B.
    let rows = |stmt: &str| -> String {
        let lines: Vec<&str> = out.lines().map(str::trim).collect();
        let at = lines.iter().position(|l| l.contains(stmt)).expect(stmt);
        lines[at - 3].to_string()
    };
    assert!(
        rows("/* S0:").ends_with("85 * c0 + 2 * c2 + 5); c3++) {"),
        "{out}"
    );
    assert!(
        rows("/* S1:").ends_with("85 * c0 + 2 * c2 + 3); c3++) {"),
        "{out}"
    );
    assert!(
        rows("/* S2:").ends_with("85 * c0 + 2 * c2 + 1); c3++) {"),
        "{out}"
    );
    let (out, _) = compiles(
        "multi_off",
        MULTI,
        &["--scalene", sizes[0], sizes[1], "--no-multi-level"],
    );
    assert!(
        !out.contains("multi-level tiling") && !out.contains("2 * c2"),
        "{out}"
    );
    let (out, _) = compiles("multi_rect", MULTI, &["--rectangle", sizes[0], sizes[1]]);
    assert!(!out.contains("multi-level tiling"), "{out}");
    let err = fails(
        "multi_rect_off",
        MULTI.as_bytes(),
        &["--rectangle", "--no-multi-level"],
    );
    assert!(
        err.contains("--no-multi-level applies to --scalene"),
        "{err}"
    );
}

/// `B`'s rows are independent and so are its columns; `C` carries a
/// dependence along its columns (each point reads the one before).
const ROWS: &str = "void f(int N, double A[N][N], double B[N][N], double C[N][N])\n{\n#pragma scop\n  for (int i = 0; i < N; i++)\n    for (int j = 0; j < N; j++)\n      B[i][j] = A[i][j] * 2;\n  for (int i = 0; i < N; i++)\n    for (int j = 1; j < N; j++)\n      C[i][j] = C[i][j-1] + B[i][j];\n#pragma endscop\n}\n";

/// Innermost loops that carry no dependence get `#pragma omp simd` (after
/// `omp parallel for` on the outer loop), in the original loops and in
/// overlapped tiles' point loops; a loop that carries one does not; and
/// without OpenMP there is none.
#[test]
fn innermost_loops_without_carried_dependences_are_simd() {
    let pragma_before = |out: &str, stmt: &str| -> Vec<String> {
        let lines: Vec<&str> = out.lines().map(str::trim).collect();
        let at = lines
            .iter()
            .position(|l| l.starts_with(stmt))
            .unwrap_or_else(|| panic!("{stmt} in {out}"));
        lines[..at]
            .iter()
            .rev()
            .skip_while(|l| !l.starts_with("for ("))
            .take(2)
            .map(|l| l.to_string())
            .collect()
    };
    let (out, _) = compiles("simd", ROWS, &[]);
    assert_eq!(
        pragma_before(&out, "B[c0][c1]")[1],
        "#pragma omp simd",
        "{out}"
    );
    assert_ne!(
        pragma_before(&out, "C[c0][c1]")[1],
        "#pragma omp simd",
        "{out}"
    );
    assert_eq!(out.matches("#pragma omp simd").count(), 1, "{out}");
    let (out, _) = compiles("simd_tiles", REUSE, &["--scalene", "--tile-sizes", "32"]);
    assert!(out.contains("#pragma omp simd"), "{out}");
    for stmt in ["ft_X[", "ft_Z[", "O[c1]"] {
        assert_eq!(pragma_before(&out, stmt)[1], "#pragma omp simd", "{out}");
    }
    let (out, _) = compiles("no_simd", ROWS, &["--no-openmp"]);
    assert!(!out.contains("#pragma omp"), "{out}");
}

/// The 2mm-like scop: the statements outside the `k` loops share `i` and
/// `j`, so only the `k` loops form bands `--tile` can tile.
const TWO_MM: &str = "void f(int NI, int NJ, int NK, double t[NI][NJ], double A[NI][NK], double B[NK][NJ], double D[NI][NJ])\n{\n  int i, j, k;\n#pragma scop\n  for (i = 0; i < NI; i++)\n    for (j = 0; j < NJ; j++) {\n      t[i][j] = 0.0;\n      for (k = 0; k < NK; ++k)\n        t[i][j] += A[i][k] * B[k][j];\n    }\n  for (i = 0; i < NI; i++)\n    for (j = 0; j < NJ; j++) {\n      D[i][j] *= 2.0;\n      for (k = 0; k < NJ; ++k)\n        D[i][j] += t[i][k] * B[k][j];\n    }\n#pragma endscop\n}\n";

/// Runs flextile on `input` with `-o -` and `extra`; expects exit 0 and
/// returns (stdout, stderr).
fn compiles(test: &str, input: &str, extra: &[&str]) -> (String, String) {
    let d = dir(test);
    fs::write(d.join("in.c"), input).expect("in.c");
    let mut args = vec!["in.c", "-o", "-"];
    args.extend_from_slice(extra);
    let o = flextile(&d, &args);
    let _ = fs::remove_dir_all(&d);
    assert!(o.status.success(), "{}", stderr(&o));
    (stdout(&o), stderr(&o))
}

/// Issue 17, finding 6: the banner gives the sizes each band got and the
/// warning the loops actually tiled, not the sizes asked for.
#[test]
fn partial_tiling_is_reported_in_banner_and_warning() {
    let (out, err) = compiles("tile_2mm", TWO_MM, &["--tile", "--tile-sizes", "32,32,32"]);
    assert!(!out.contains("tiled [32, 32, 32]"), "{out}");
    assert!(
        out.contains("tiled [32] on loop(s) 'k'; [32] on loop(s) 'k'"),
        "{out}"
    );
    assert!(
        err.contains(
            "in.c:4:1: warning: --tile-sizes [32, 32, 32]: the sizes [32, 32] are ignored"
        ) && err.contains("tiled: [32] on loop(s) 'k' (statement 't[i][j] += A[i][k]")
            && err.contains("(line 9)"),
        "{err}"
    );
    // Without sizes (one per loop of the deepest nest): the same truth.
    let (out, err) = compiles("tile_2mm_default", TWO_MM, &["--tile"]);
    assert!(!out.contains("tiled [32, 32, 32]"), "{out}");
    assert!(
        err.contains("in.c:4:1: warning: tiling with sizes [32, 32, 32] is applied only in part: [32] on loop(s) 'k'"),
        "{err}"
    );
}

/// Issue 17, finding 16: more tile sizes than loops warn, naming the
/// sizes that are ignored; the banner names the size applied.
#[test]
fn more_tile_sizes_than_loops_warn() {
    let (out, err) = compiles("tile_sizes", PLAIN, &["--tile", "--tile-sizes", "4,8,16"]);
    assert!(out.contains("tiled [16] on loop(s) 'i'"), "{out}");
    assert!(!out.contains("tiled [4, 8, 16]"), "{out}");
    assert!(
        err.contains("in.c:3:1: warning: --tile-sizes [4, 8, 16]: the sizes [4, 8] are ignored"),
        "{err}"
    );
    // As many sizes as loops: nothing is said, the banner is unchanged.
    let (out, err) = compiles("tile_sizes_exact", PLAIN, &["--tile", "--tile-sizes", "16"]);
    assert!(out.contains("tiled [16]"), "{out}");
    assert!(!err.contains("warning"), "{err}");
    // Overlapped tiling, both shapes: the same warning, the banner shows
    // the size used.
    for shape in ["--rectangle", "--scalene"] {
        let (out, err) = compiles("overlap_sizes", PLAIN, &[shape, "--tile-sizes", "4,8,16"]);
        assert!(out.contains("trapezoids) [16]"), "{out}");
        assert!(
            err.contains("in.c:3:1: warning: --tile-sizes [4, 8, 16]: the sizes [4, 8] are ignored: the deepest loop nest of the region has 1 loop(s)"),
            "{err}"
        );
    }
    // A time-iterated scop: the time loop counts (its size is the block depth).
    let heat = "void f(int T, int N, double *A, double *B)\n{\n#pragma scop\n  for (int t = 0; t < T; t++) {\n    for (int i = 1; i < N - 1; i++)\n      B[i] = A[i-1] + A[i+1];\n    for (int i = 1; i < N - 1; i++)\n      A[i] = B[i];\n  }\n#pragma endscop\n}\n";
    let (out, err) = compiles(
        "time_sizes",
        heat,
        &["--rectangle", "--tile-sizes", "2,4,16"],
    );
    assert!(out.contains("time blocks of 4 steps"), "{out}");
    assert!(
        err.contains("in.c:3:1: warning: --tile-sizes [2, 4, 16]: the sizes [2] are ignored: the deepest loop nest of the region has 2 loop(s) (time loop included)"),
        "{err}"
    );
}

/// Issue 17, finding 16: an `--assume` no parameter value satisfies, or
/// under which a statement never runs, says so at the region/statement.
#[test]
fn assume_that_deletes_the_loops_warns() {
    let (out, err) = compiles("assume_false", PLAIN, &["--assume", "false"]);
    assert!(!out.contains("for ("), "{out}");
    assert!(
        err.contains("in.c:3:1: warning: no parameter value satisfies --assume (false): the region's loops never run"),
        "{err}"
    );
    let (_, err) = compiles("assume_empty", PLAIN, &["--assume", "N <= 1"]);
    assert!(
        err.contains("in.c:5:5: warning: under --assume (N <= 1) the iteration domain of statement 'B[i] = A[i-1] + A[i];' (line 5) is empty: its loops never run"),
        "{err}"
    );
    let (_, err) = compiles("assume_fine", PLAIN, &["--assume", "N >= 2"]);
    assert!(!err.contains("warning"), "{err}");
}

/// `--temporary` must name a data set some region writes (issue 18); the
/// output is untouched.
#[test]
fn temporary_naming_no_written_array_is_an_error() {
    let d = dir("temporary_unknown");
    fs::write(d.join("in.c"), PLAIN).expect("in.c");
    fs::write(d.join("out.c"), SENTINEL).expect("out.c");
    let o = flextile(&d, &["in.c", "-o", "out.c", "--temporary", "B,Q"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("--temporary names 'Q', which no region writes"),
        "{}",
        stderr(&o)
    );
    assert_eq!(fs::read(d.join("out.c")).expect("out.c"), SENTINEL);
    let _ = fs::remove_dir_all(&d);
}

/// `--grouping` concerns overlapped tiling only, and
/// `--grouping none` forms no group for `--overlap-tolerance` to bound.
#[test]
fn grouping_options_need_overlapped_tiling() {
    for (args, expected) in [
        (
            &["--grouping", "none"][..],
            "--grouping needs --rectangle or --scalene",
        ),
        (
            &["--tile", "--stack-limit", "0"][..],
            "--stack-limit needs --rectangle or --scalene",
        ),
        (
            &[
                "--rectangle",
                "--grouping",
                "none",
                "--overlap-tolerance",
                "0.2",
            ][..],
            "--grouping none forms none",
        ),
        (
            &[
                "--rectangle",
                "--grouping",
                "dp",
                "--overlap-tolerance",
                "0.2",
            ][..],
            "--grouping dp weighs the overlap in its cost model",
        ),
        (
            &["--rectangle", "--tile-sizes", "8", "--estimate", "N=100"][..],
            "are read by the cost model of --grouping dp",
        ),
        (
            &["--tile", "--cores", "4"][..],
            "are read by the cost model",
        ),
        (
            &["--rectangle", "--tile-sizes", "8", "--no-inline"][..],
            "--no-inline are read by the cost model of --grouping dp",
        ),
        (
            &["--rectangle", "--estimate", "N"][..],
            "cannot read --estimate 'N': it takes NAME=VALUE",
        ),
        (
            &["--rectangle", "--estimate", "N=0"][..],
            "cannot read --estimate 'N=0'",
        ),
        (
            &["--scalene", "--cache-sizes", "48K"][..],
            "cannot read --cache-sizes 48K",
        ),
        (
            &["--scalene", "--cache-sizes", "1G,2M"][..],
            "cannot read --cache-sizes 1G,2M",
        ),
        (&["--rectangle", "--cores", "0"][..], "invalid --cores 0"),
        (
            &["--rectangle", "--cost-weights", "1,2,3"][..],
            "invalid --cost-weights",
        ),
        (
            &["--rectangle", "--cost-weights", "1,2,3,-4"][..],
            "invalid --cost-weights",
        ),
    ] {
        let err = fails("grouping_options", PLAIN.as_bytes(), args);
        assert!(err.contains(expected), "{args:?}: {err}");
    }
}

/// An output of an input that includes no header builds: the in-place copy's
/// size is spelled `__SIZE_TYPE__`, not `size_t` (issue 54, class 7).
#[test]
fn output_without_headers_builds() {
    let d = dir("no-headers");
    let src = "\
void chain(int N, double *A, double *B, double *C)
{
#pragma omplc loopchain schedule(fuse())
    {
#pragma omplc for domain(1:N-2) with (i) read A{(i-1),(i+1)} write B{(i)}
        for (int i = 1; i <= N - 2; i++)
            B[i] = A[i - 1] + A[i + 1];
#pragma omplc for domain(2:N-3) with (i) read A{(i)}, read B{(i-1),(i+1)} write A{(i)}
        for (int i = 2; i <= N - 3; i++)
            A[i] = A[i] + 0.5 * (B[i - 1] + B[i + 1]);
#pragma omplc for domain(3:N-4) with (i) read A{(i-1),(i+1)} write C{(i)}
        for (int i = 3; i <= N - 4; i++)
            C[i] = A[i - 1] - A[i + 1];
    }
}
";
    fs::write(d.join("in.c"), src).expect("in.c");
    let o = flextile(&d, &["--rectangle", "in.c", "-o", "out.c"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = fs::read_to_string(d.join("out.c")).expect("out.c");
    assert!(
        out.contains("__builtin_malloc("),
        "no in-place copy:\n{out}"
    );
    assert!(!out.contains("size_t"), "{out}");
    let cc = Command::new("gcc")
        .current_dir(&d)
        .args([
            "-std=gnu99",
            "-fopenmp",
            "-Werror=implicit-function-declaration",
        ])
        .args(["-c", "out.c", "-o", "out.o"])
        .output()
        .expect("run gcc");
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let _ = fs::remove_dir_all(&d);
}

/// A loop-chain body whose accesses flextile cannot read exactly (an access
/// whose subscript a macro body computes, a call of an unknown function)
/// cannot be checked against its declaration: a warning names the nest and
/// the construct (issue 54, class 3).
#[test]
fn unchecked_chain_body_warns() {
    let d = dir("unchecked_chain_body_warns");
    // The subscript's '+' is in a macro body flextile does not expand ('##').
    let src = "\
#define NEXT(B, i) B[CAT(i, ) + 1]
double h(double);
void f(int N, double *A, double *B)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:N-2) with (i) read B {(i),(i+1)}, write A {(i)}
        for (int i = 0; i <= N - 2; i++)
            A[i] = B[i] + NEXT(B, i);
#pragma omplc for domain(0:N-1) with (i) read A {(i)}, write B {(i)}
        for (int i = 0; i <= N - 1; i++)
            B[i] = h(A[i]);
    }
}
";
    let src = format!("#define CAT(a, b) a##b\n{src}");
    fs::write(d.join("in.c"), src).expect("in.c");
    let o = flextile(&d, &["in.c", "-o", "out.c"]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    for want in [
        "in.c:8:1: warning: the accesses of the body of nest 1 (line 8) cannot be checked",
        "in.c:10:27: note:",
        "in.c:11:1: warning: the accesses of the body of nest 2 (line 11) cannot be checked",
        "a call to 'h'",
    ] {
        assert!(err.contains(want), "no '{want}' in:\n{err}");
    }
    let _ = fs::remove_dir_all(&d);
}
