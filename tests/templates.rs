//! `--templates DIR`: the output's templates as a user edits them. A copy of
//! the repository's `templates/` gives the built-in output byte for byte;
//! an edited `cuda/launch.cu.tera` (CUDA event timing around every launch),
//! `cuda/barrier.cu.tera` and `c/parallel_for.c.tera` show in the next
//! output, and the timed CUDA output still computes what the original does
//! (built against the CPU emulation of CUDA); a misspelt template file, an
//! unparsable one and a missing directory are errors that leave the output
//! untouched; `-MD` names the user's templates.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Two stages of a blur, overlapped-tiled: kernels with shared scratchpads
/// and barriers.
const BLUR: &str = r#"#include <stdio.h>
#define N 300
static float A[N], B[N], C[N];
void blur(void)
{
#pragma scop
  for (int i = 1; i < N - 1; i++)
    B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0f;
  for (int i = 2; i < N - 2; i++)
    C[i] = (B[i - 1] + B[i] + B[i + 1]) / 3.0f;
#pragma endscop
}
int main(void)
{
  for (int i = 0; i < N; i++)
    A[i] = (float)((i * 37) % 101) / 7.0f;
  blur();
  for (int i = 0; i < N; i += 13)
    printf("%d %.9g\n", i, C[i]);
  return 0;
}
"#;

/// A launch timed with CUDA events, as a user would write it.
const TIMED_LAUNCH: &str = r#"{{ indent }}{
{{ indent }}  cudaEvent_t ft_start, ft_stop;
{{ indent }}  float ft_ms = 0;
{{ indent }}  cudaEventCreate(&ft_start);
{{ indent }}  cudaEventCreate(&ft_stop);
{{ indent }}  cudaEventRecord(ft_start);
{{ indent }}  FT_LAUNCH({{ kernel }}, dim3({{ grid.0 }}, {{ grid.1 }}), dim3({{ block.0 }}, {{ block.1 }}), 0, {{ args | join(sep=", ") }});
{{ indent }}  {{ check }}(cudaGetLastError(), "{{ place }}");
{{ indent }}  cudaEventRecord(ft_stop);
{{ indent }}  cudaEventSynchronize(ft_stop);
{{ indent }}  cudaEventElapsedTime(&ft_ms, ft_start, ft_stop);
{{ indent }}  fprintf(stderr, "timed {{ kernel }}: %.3f ms\n", ft_ms);
{{ indent }}  cudaEventDestroy(ft_start);
{{ indent }}  cudaEventDestroy(ft_stop);
{{ indent }}}
"#;

/// A fresh folder for one test, with the program as `in.c`.
fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flextile-templates-{test}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).expect("test folder");
    fs::write(d.join("in.c"), BLUR).expect("in.c");
    d
}

/// The repository's templates copied to `to`.
fn copy_templates(to: &Path) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
    for sub in ["c", "cuda"] {
        fs::create_dir_all(to.join(sub)).expect("templates folder");
        for entry in fs::read_dir(from.join(sub)).expect("templates/") {
            let path = entry.expect("entry").path();
            let name = path.file_name().expect("a name");
            fs::copy(&path, to.join(sub).join(name)).expect("copy a template");
        }
    }
}

fn flextile(d: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flextile"))
        .current_dir(d)
        .args(args)
        .output()
        .expect("run flextile")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// flextile's output for `args` (it must succeed).
fn output(d: &Path, out: &str, args: &[&str]) -> String {
    let o = flextile(d, &[&["in.c", "-o", out], args].concat());
    assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
    fs::read_to_string(d.join(out)).expect("the output")
}

#[test]
fn a_copy_of_the_templates_gives_the_built_in_output() {
    let d = dir("copy");
    copy_templates(&d.join("mine"));
    for (out, mode) in [
        ("a.cu", "--rectangle"),
        ("a.c", "--rectangle"),
        ("b.c", "--tile"),
    ] {
        let built_in = output(&d, out, &[mode]);
        let copied = output(&d, out, &[mode, "--templates", "mine"]);
        // The banner names the options; the rest is the same text.
        let body = |s: &str| s.split_once("*/").map(|(_, b)| b.to_string());
        assert_eq!(body(&built_in), body(&copied), "{out} {mode}");
    }
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn an_edited_launch_template_times_every_launch() {
    let d = dir("launch");
    let mine = d.join("mine");
    copy_templates(&mine);
    fs::write(mine.join("cuda/launch.cu.tera"), TIMED_LAUNCH).expect("edit");
    let barrier = "{% if warp %}__syncwarp();{% else %}__syncthreads(); /* the block's barrier */{% endif %}\n";
    fs::write(mine.join("cuda/barrier.cu.tera"), barrier).expect("edit");
    let cu = output(&d, "out.cu", &["--rectangle", "--templates", "mine"]);
    let launches = cu.matches("FT_LAUNCH(ft_kernel").count();
    assert!(launches >= 1, "{cu}");
    assert_eq!(
        cu.matches("cudaEventElapsedTime(&ft_ms").count(),
        launches,
        "{cu}"
    );
    assert!(
        cu.contains("__syncthreads(); /* the block's barrier */"),
        "{cu}"
    );
    // Built against the emulation, it prints what the original prints, and
    // a time per launch on stderr.
    let gcc = Command::new("gcc")
        .current_dir(&d)
        .args(["-O1", "-ffp-contract=off", "-o", "orig", "in.c"])
        .status()
        .expect("gcc");
    assert!(gcc.success());
    let expected = Command::new(d.join("orig")).output().expect("orig");
    let built = Command::new(common::CXX)
        .current_dir(&d)
        .args(common::CXXFLAGS)
        .arg("-include")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(common::EMULATE_H))
        .args(["out.cu", "-o", "emulated", "-lm"])
        .output()
        .expect("g++");
    assert!(built.status.success(), "{}", text(&built.stderr));
    let ran = Command::new(d.join("emulated")).output().expect("emulated");
    assert!(ran.status.success(), "{}", text(&ran.stderr));
    assert_eq!(text(&ran.stdout), text(&expected.stdout));
    assert_eq!(
        text(&ran.stderr).matches(" ms\n").count(),
        launches,
        "{}",
        text(&ran.stderr)
    );
    assert!(
        text(&ran.stderr).starts_with("timed ft_kernel"),
        "{}",
        text(&ran.stderr)
    );
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn an_edited_openmp_line_shows_in_the_c_output() {
    let d = dir("omp");
    let mine = d.join("mine");
    fs::create_dir_all(mine.join("c")).expect("folder");
    // Only the one file: the other templates stay built in.
    fs::write(
        mine.join("c/parallel_for.c.tera"),
        "#pragma omp parallel for schedule(static)\n",
    )
    .expect("edit");
    let c = output(&d, "out.c", &["--rectangle", "--templates", "mine"]);
    assert!(
        c.contains("#pragma omp parallel for schedule(static)\n"),
        "{c}"
    );
    assert!(!c.contains("#pragma omp parallel for\n"), "{c}");
    // A Make rule made with -MD names the template the output came from.
    output(&d, "out.c", &["--rectangle", "--templates", "mine", "-MD"]);
    let rule = fs::read_to_string(d.join("out.d")).expect("out.d");
    assert!(rule.contains("mine/c/parallel_for.c.tera"), "{rule}");
    let _ = fs::remove_dir_all(&d);
}

/// `--templates` with `mine` as `setup` leaves it; the error, with the
/// existing output untouched.
fn refused(test: &str, setup: impl Fn(&Path)) -> String {
    let d = dir(test);
    setup(&d.join("mine"));
    let sentinel = "/* the previous output */\n";
    fs::write(d.join("out.c"), sentinel).expect("out.c");
    let o = flextile(
        &d,
        &["in.c", "-o", "out.c", "--rectangle", "--templates", "mine"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert_eq!(
        fs::read_to_string(d.join("out.c")).expect("out.c"),
        sentinel
    );
    let _ = fs::remove_dir_all(&d);
    text(&o.stderr)
}

#[test]
fn a_misspelt_template_is_refused() {
    let err = refused("misspelt", |mine| {
        fs::create_dir_all(mine.join("cuda")).expect("folder");
        fs::write(mine.join("cuda/lanch.cu.tera"), "x\n").expect("write");
    });
    assert!(
        err.contains("cuda/lanch.cu.tera is not one of flextile's templates")
            && err.contains("cuda/launch.cu.tera"),
        "{err}"
    );
}

#[test]
fn an_unparsable_template_is_refused() {
    let err = refused("unparsable", |mine| {
        fs::create_dir_all(mine.join("c")).expect("folder");
        fs::write(mine.join("c/region.c.tera"), "{% if code %}{{ code }}\n").expect("write");
    });
    assert!(
        err.contains("error: --templates mine: template:") && err.contains("c/region.c.tera"),
        "{err}"
    );
}

#[test]
fn a_missing_template_directory_is_refused() {
    let err = refused("missing", |_| {});
    assert!(err.contains("--templates mine: no such directory"), "{err}");
}
