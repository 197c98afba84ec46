//! The CUDA target's C++ fixes (`frontend::cxx`) on every testsuite program
//! and benchmark: each file, parsed by flextile's front end and edited with
//! the rendered fixes (prefix `ft_`), must compile as C++ with g++, and with
//! nvcc as host code of a `.cu` where nvcc is installed (`make deps`).

use std::path::{Path, PathBuf};
use std::process::Command;

use flextile::frontend::{cxx::CxxFixes, parse_file};

/// g++ in C++ mode, syntax only; `restrict` as the CUDA prelude defines it,
/// CUDA's execution spaces (`__host__ __device__` on the helpers bodies
/// call) as nvcc's host pass sees them.
const GXX: &[&str] = &[
    "-std=gnu++17",
    "-x",
    "c++",
    "-fsyntax-only",
    "-Drestrict=__restrict__",
    "-D__host__=",
    "-D__device__=",
    "-fopenmp",
];

/// nvcc compiling a `.cu`'s host code.
const NVCC_FLAGS: &[&str] = &[
    "-x",
    "cu",
    "-c",
    "-Drestrict=__restrict__",
    "-Xcompiler",
    "-fopenmp",
    "-o",
    "/dev/null",
];

/// Where `make deps` installs nvcc.
const NVCC: &str = ".deps/cuda/nvidia/cu13/bin/nvcc";

fn work_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flextile-cxx-{name}.{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("work dir");
    dir
}

/// Runs `cmd` with `args` on `file`; `Err` holds its messages.
fn compile(cmd: &str, args: &[&str], include: &[String], file: &Path) -> Result<(), String> {
    let o = Command::new(cmd)
        .args(args)
        .args(include)
        .arg(file)
        .output()
        .map_err(|e| format!("cannot run {cmd}: {e}"))?;
    if o.status.success() {
        Ok(())
    } else {
        let err = String::from_utf8_lossy(&o.stderr);
        let first: Vec<&str> = err
            .lines()
            .filter(|l| l.contains("error"))
            .take(8)
            .collect();
        Err(format!("{cmd} {}:\n{}", file.display(), first.join("\n")))
    }
}

/// The corpus: `(file, clang flags, compiler include flags)`.
fn corpus() -> Vec<(PathBuf, Vec<String>)> {
    let mut out = Vec::new();
    for (dir, flags) in [
        ("testsuite/programs", vec![]),
        (
            "benchmarks",
            vec!["-I".to_string(), "benchmarks".to_string()],
        ),
    ] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .expect("corpus folder")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "c"))
            .collect();
        files.sort();
        out.extend(files.into_iter().map(|f| (f, flags.clone())));
    }
    out
}

/// The include flags of the compilers for a file parsed with `flags`
/// (absolute: the edited copy lives elsewhere).
fn includes(flags: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = flags.iter();
    while let Some(f) = it.next() {
        if f == "-I" {
            if let Some(d) = it.next() {
                let abs = std::fs::canonicalize(d).expect("include folder");
                out.push(format!("-I{}", abs.display()));
            }
        }
    }
    out
}

#[test]
fn corpus_compiles_as_cxx_after_the_fixes() {
    let dir = work_dir("corpus");
    let nvcc = Path::new(NVCC).exists().then_some(NVCC);
    if nvcc.is_none() {
        eprintln!("note: {NVCC} not found (make deps installs it): nvcc not checked");
    }
    let corpus = corpus();
    assert!(corpus.len() > 50, "corpus not found: {}", corpus.len());
    let mut jobs = Vec::new();
    let mut failures = Vec::new();
    let mut fixed = 0;
    for (path, flags) in &corpus {
        let program = match parse_file(path, flags) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{}: front end: {e:?}", path.display()));
                continue;
            }
        };
        for d in &program.cxx.problems {
            failures.push(program.file.render(d));
        }
        if !program.cxx.fixes.is_empty() {
            fixed += 1;
        }
        let text = program.cxx.apply(&program.file.text, "ft_");
        let name = path.file_name().expect("file name").to_string_lossy();
        let out = dir.join(name.as_ref());
        std::fs::write(&out, text).expect("write edited copy");
        jobs.push((out, includes(flags)));
    }
    assert!(fixed > 20, "only {fixed} files needed fixes");
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunks: Vec<Vec<(PathBuf, Vec<String>)>> = (0..workers)
        .map(|w| jobs.iter().skip(w).step_by(workers).cloned().collect())
        .collect();
    let results: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                s.spawn(move || {
                    let mut errs = Vec::new();
                    for (file, inc) in chunk {
                        if let Err(e) = compile("g++", GXX, inc, file) {
                            errs.push(e);
                        }
                        if let Some(nvcc) = nvcc {
                            if let Err(e) = compile(nvcc, NVCC_FLAGS, inc, file) {
                                errs.push(e);
                            }
                        }
                    }
                    errs
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("worker"))
            .collect()
    });
    failures.extend(results);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The check above can fail: a VLA parameter and a `malloc` without a cast
/// fail g++ as written, and pass once edited.
#[test]
fn the_check_rejects_unfixed_c() {
    let dir = work_dir("vla");
    let src = "#include <stdlib.h>\n\
               static void kernel(int N, double A[restrict N][N]) { A[0][0] = 1.0; }\n\
               int main(void) {\n\
               \x20 int n = 4;\n\
               \x20 double (*A)[n] = malloc(sizeof(double) * n * n);\n\
               \x20 kernel(n, A);\n\
               \x20 free(A);\n\
               \x20 return 0;\n\
               }\n";
    let orig = dir.join("vla.c");
    std::fs::write(&orig, src).expect("write");
    let program = parse_file(&orig, &[]).expect("parses");
    let fixes: &CxxFixes = &program.cxx;
    assert!(fixes.problems.is_empty(), "{:?}", fixes.problems);
    assert!(
        compile("g++", GXX, &[], &orig).is_err(),
        "g++ accepts C that C++ rejects: the corpus check proves nothing"
    );
    let edited = dir.join("vla-fixed.c");
    std::fs::write(&edited, fixes.apply(&program.file.text, "ft_")).expect("write");
    let ok = compile("g++", GXX, &[], &edited);
    let _ = std::fs::remove_dir_all(&dir);
    ok.expect("the edited file compiles");
}
