//! `--verify`: builds the input and flextile's output with the same C
//! compiler and flags, runs both with the same arguments and compares their
//! standard output byte for byte. A CUDA output is built with nvcc
//! (`--fmad=false`) and run on the GPU where there is one; elsewhere it is
//! built as C++ against the CPU emulation of CUDA (`testsuite/cuda/emulate.h`,
//! compiled into flextile), whose threads run in an adversarial order
//! between barriers. A C output that matches is built and compared a second
//! time at `-O0` (both programs), where a race on a variable that the
//! optimiser keeps in a register shows.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The C compiler `--verify` uses by default (the testsuite's).
pub const DEFAULT_CC: &str = "gcc";

/// The flags `--verify` uses by default: the testsuite's command (see
/// `testsuite/README.md`).
pub const DEFAULT_CFLAGS: &str =
    "-O2 -std=gnu99 -fopenmp -ffp-contract=off -fno-fast-math -Wno-unknown-pragmas";

/// How to build and run the two programs.
#[derive(Clone, Debug)]
pub struct Verify {
    /// The C compiler.
    pub cc: String,
    /// Its flags, split at blanks (`-lm` is added last).
    pub cflags: Vec<String>,
    /// flextile's own `-I`, `-D` and `-std=` flags, passed on after `cflags`.
    pub clang_flags: Vec<String>,
    /// The arguments both programs run with.
    pub args: Vec<String>,
    /// How the output is built when it is CUDA (`None`: it is C).
    pub cuda: Option<CudaBuild>,
}

/// How `--verify` builds and runs a CUDA output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CudaBuild {
    /// No GPU here: as C++ with the C compiler's C++ sibling (`cxx`),
    /// against the emulation of CUDA.
    Emulated {
        /// The C++ compiler.
        cxx: String,
    },
    /// With nvcc, run on the GPU.
    Device {
        /// The nvcc command.
        nvcc: String,
    },
}

/// The emulation of CUDA on the CPU, written next to an emulated build.
const EMULATE_H: &str = include_str!("../testsuite/cuda/emulate.h");

impl CudaBuild {
    /// nvcc and the GPU when both are here (`$NVCC` or `nvcc` on the PATH,
    /// and `nvidia-smi -L` lists a GPU), else the emulation built with the
    /// C++ compiler that goes with `cc` (`g++` for `gcc`, `clang++` for
    /// `clang`).
    pub fn detect(cc: &str) -> CudaBuild {
        let nvcc = std::env::var("NVCC").unwrap_or_else(|_| "nvcc".to_string());
        let has_nvcc = Command::new(&nvcc)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        let has_gpu = Command::new("nvidia-smi")
            .arg("-L")
            .output()
            .is_ok_and(|o| {
                o.status.success() && String::from_utf8_lossy(&o.stdout).contains("GPU")
            });
        if has_nvcc && has_gpu {
            return CudaBuild::Device { nvcc };
        }
        let cxx = match cc.rsplit_once('/').map_or(cc, |(_, c)| c) {
            c if c.contains("clang") => cc.replacen("clang", "clang++", 1),
            c if c.contains("gcc") => cc.replacen("gcc", "g++", 1),
            _ => "c++".to_string(),
        };
        CudaBuild::Emulated { cxx }
    }

    /// In words, for the verdict.
    pub fn describe(&self) -> String {
        match self {
            CudaBuild::Emulated { cxx } => {
                format!("as C++ with {cxx} against the CPU emulation of CUDA (no GPU here)")
            }
            CudaBuild::Device { nvcc } => format!("with {nvcc} --fmad=false and run on the GPU"),
        }
    }
}

/// What the comparison found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Same standard output and exit status; the number of bytes printed.
    Identical(usize),
    /// They differ: where, in words.
    Different(String),
}

/// Builds `input` (its bytes as read: `source`) and `output`, runs both and
/// compares them. `Err` when something could not be built or run.
pub fn verify(input: &Path, source: &[u8], output: &Path, v: &Verify) -> Result<Outcome, String> {
    let dir = std::env::temp_dir().join(format!("flextile-verify-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create '{}': {e}", dir.display()))?;
    let result = build_and_compare(input, source, output, v, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn build_and_compare(
    input: &Path,
    source: &[u8],
    output: &Path,
    v: &Verify,
    dir: &Path,
) -> Result<Outcome, String> {
    // The input is built from the bytes flextile read (a pipe can be read
    // only once); quoted includes are searched in its folder, for both.
    let src_dir = input
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let original_src = dir.join("original.c");
    std::fs::write(&original_src, source)
        .map_err(|e| format!("cannot write '{}': {e}", original_src.display()))?;
    let original = build(v, &original_src, &src_dir, &dir.join("original"))
        .map_err(|e| format!("cannot build the input '{}': {e}", input.display()))?;
    let generated = match &v.cuda {
        None => build(v, output, &src_dir, &dir.join("flextile")),
        Some(how) => build_cuda(v, how, output, &src_dir, dir),
    }
    .map_err(|e| {
        format!(
            "the input builds but flextile's output '{}' does not (a flextile bug; please report it): {e}",
            output.display()
        )
    })?;
    let a = run(&original, &v.args)?;
    let b = run(&generated, &v.args)?;
    let outcome = compare(&a, &b);
    let unoptimised = Verify {
        cflags: at_o0(&v.cflags),
        ..v.clone()
    };
    if !matches!(outcome, Outcome::Identical(_))
        || v.cuda.is_some()
        || !v.cflags.iter().any(|f| f.starts_with("-O") && f != "-O0")
    {
        return Ok(outcome);
    }
    // Again at -O0: a race on a variable that -O2 keeps in a register shows
    // only where every access goes to memory.
    let original = build(
        &unoptimised,
        &original_src,
        &src_dir,
        &dir.join("original-O0"),
    )
    .map_err(|e| format!("cannot build the input '{}' at -O0: {e}", input.display()))?;
    let generated = build(&unoptimised, output, &src_dir, &dir.join("flextile-O0")).map_err(|e| {
        format!("flextile's output '{}' does not build at -O0 (a flextile bug; please report it): {e}", output.display())
    })?;
    let a = run(&original, &v.args)?;
    let b = run(&generated, &v.args)?;
    Ok(match compare(&a, &b) {
        Outcome::Different(why) => {
            Outcome::Different(format!("at -O0 (identical with the given flags): {why}"))
        }
        same => same,
    })
}

/// `flags` with every optimisation level replaced by `-O0`.
fn at_o0(flags: &[String]) -> Vec<String> {
    let mut out: Vec<String> = flags
        .iter()
        .filter(|f| !f.starts_with("-O"))
        .cloned()
        .collect();
    out.push("-O0".to_string());
    out
}

/// Compiles `src` to `exe`; the compiler's command and messages on failure.
fn build(v: &Verify, src: &Path, include_dir: &PathBuf, exe: &Path) -> Result<PathBuf, String> {
    let mut cmd = Command::new(&v.cc);
    cmd.args(&v.cflags)
        .args(&v.clang_flags)
        .arg("-iquote")
        .arg(include_dir)
        .arg("-o")
        .arg(exe)
        .arg(src)
        .arg("-lm");
    run_build(cmd)?;
    Ok(exe.to_path_buf())
}

/// Builds the CUDA output `src` as `how` says, in `dir`.
fn build_cuda(
    v: &Verify,
    how: &CudaBuild,
    src: &Path,
    include_dir: &Path,
    dir: &Path,
) -> Result<PathBuf, String> {
    let exe = dir.join("flextile");
    // The C standard flag does not apply to C++ (the others do); the code
    // generation flags flextile passes on (`-fno-strict-aliasing`) are the
    // host compiler's.
    let code_flags = v.clang_flags.iter().filter(|f| f.starts_with("-f"));
    let flags = v
        .cflags
        .iter()
        .filter(|f| !f.starts_with("-std="))
        .chain(code_flags);
    let mut cmd = match how {
        CudaBuild::Emulated { cxx } => {
            let header = dir.join("emulate.h");
            std::fs::write(&header, EMULATE_H)
                .map_err(|e| format!("cannot write '{}': {e}", header.display()))?;
            let mut cmd = Command::new(cxx);
            cmd.args(flags)
                .args(["-std=gnu++17", "-x", "c++", "-include"])
                .arg(header)
                .arg("-iquote")
                .arg(include_dir);
            cmd
        }
        CudaBuild::Device { nvcc } => {
            let host: Vec<&str> = flags.map(String::as_str).collect();
            let mut cmd = Command::new(nvcc);
            cmd.args(["-O2", "--fmad=false"]);
            if !host.is_empty() {
                cmd.arg("-Xcompiler").arg(host.join(","));
            }
            cmd.arg("-I").arg(include_dir);
            cmd
        }
    };
    // The output defines the `-D` macros itself, after CUDA's headers,
    // which nvcc includes first and which use names such as `T`.
    cmd.args(
        v.clang_flags
            .iter()
            .filter(|f| !f.starts_with("-D") && !f.starts_with("-f")),
    )
    .arg("-o")
    .arg(&exe)
    .arg(src)
    .arg("-lm");
    run_build(cmd)?;
    Ok(exe)
}

/// Runs the build command `cmd`; on failure, the command and the first
/// lines of its messages.
fn run_build(mut cmd: Command) -> Result<(), String> {
    let line = format!("{cmd:?}").replace('"', "");
    let program = cmd.get_program().to_string_lossy().into_owned();
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run '{program}': {e}"))?;
    if !out.status.success() {
        let msg = String::from_utf8_lossy(&out.stderr);
        let head: Vec<&str> = msg.lines().take(20).collect();
        return Err(format!(
            "{line} failed ({})\n{}",
            out.status,
            head.join("\n")
        ));
    }
    Ok(())
}

/// Runs `exe` with `args`.
fn run(exe: &Path, args: &[String]) -> Result<Output, String> {
    Command::new(exe)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run '{}': {e}", exe.display()))
}

/// Compares the original's run `a` with the output's `b`.
fn compare(a: &Output, b: &Output) -> Outcome {
    if a.stdout == b.stdout && a.status.code() == b.status.code() {
        return Outcome::Identical(a.stdout.len());
    }
    if a.stdout == b.stdout {
        return Outcome::Different(format!(
            "same standard output, but the original exits with {} and the output with {}",
            a.status, b.status
        ));
    }
    let (la, lb): (Vec<&[u8]>, Vec<&[u8]>) = (
        a.stdout.split(|c| *c == b'\n').collect(),
        b.stdout.split(|c| *c == b'\n').collect(),
    );
    let k = la
        .iter()
        .zip(&lb)
        .position(|(x, y)| x != y)
        .unwrap_or(la.len().min(lb.len()));
    let show = |l: &[&[u8]]| match l.get(k) {
        Some(s) => format!("'{}'", String::from_utf8_lossy(s)),
        None => "(no such line)".to_string(),
    };
    let mut msg = format!(
        "standard output differs first at line {}:\n  original: {}\n  flextile: {}",
        k + 1,
        show(&la),
        show(&lb)
    );
    if a.status.code() != b.status.code() {
        // The output stopped (a CUDA error, a gather outside its buffer):
        // what it said.
        msg.push_str(&format!(
            "\n  the original exits with {}, the output with {}",
            a.status, b.status
        ));
        let err = String::from_utf8_lossy(&b.stderr);
        let lines: Vec<&str> = err.lines().collect();
        for l in &lines[lines.len().saturating_sub(3)..] {
            msg.push_str(&format!("\n  output's stderr: {l}"));
        }
    }
    Outcome::Different(msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    fn out(text: &str, code: i32) -> Output {
        Output {
            status: std::process::ExitStatus::from_raw(code << 8),
            stdout: text.as_bytes().to_vec(),
            stderr: Vec::new(),
        }
    }

    #[test]
    fn first_differing_line() {
        assert_eq!(
            compare(&out("a\nb\n", 0), &out("a\nb\n", 0)),
            Outcome::Identical(4)
        );
        let Outcome::Different(d) = compare(&out("a\nb\nc\n", 0), &out("a\nx\nc\n", 0)) else {
            panic!("same");
        };
        assert!(
            d.contains("line 2") && d.contains("'b'") && d.contains("'x'"),
            "{d}"
        );
        assert!(matches!(
            compare(&out("a\n", 0), &out("a\n", 3)),
            Outcome::Different(_)
        ));
    }

    #[test]
    fn an_output_that_stops_shows_its_last_words() {
        let mut stopped = out("", 1);
        stopped.stderr = b"x.c:3: error: boom\n".to_vec();
        let Outcome::Different(d) = compare(&out("a\n", 0), &stopped) else {
            panic!("same");
        };
        assert!(
            d.contains("the output with exit status: 1")
                && d.contains("stderr: x.c:3: error: boom"),
            "{d}"
        );
    }
}
