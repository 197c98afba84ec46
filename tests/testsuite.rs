//! The correctness testsuite: `cargo test --test testsuite`.
//!
//! *Programs* (`testsuite/programs/*.c`) are complete C programs with loop
//! chains or scops that print their arrays. For every program and every option
//! set it lists, the test runs flextile, compiles the original and the
//! generated file with the same gcc command (no fast-math, no FMA contraction),
//! runs both for every argument set it lists and compares stdout byte for
//! byte. The original program is the oracle (see `docs/testing.md`). The generated program runs in every [`RUN_MODES`]
//! entry: 1 and 2 OpenMP threads, and 2 and 3 threads under the
//! `testsuite/omp_reverse_start.c` shim, which runs the threads' shares of
//! each parallel region one by one, last thread first, so that a loop wrongly
//! marked parallel gives different bits on every run, not only when the race
//! happens to bite.
//!
//! *Error cases* (`testsuite/errors/*.c`) must make flextile exit with the
//! expected code and a `file:line:col: error: message` diagnostic with a caret
//! line, and must leave the output path alone.
//!
//! The metadata format is described in `testsuite/README.md`. Every file in
//! those folders must be listed in the macros at the end of this file (a test
//! checks it), so that each file is its own `#[test]`.
//!
//! Work files go to `<target>/testsuite-work/<test>.<pid>/`; a passing test
//! removes its folder, a failing one keeps it and names it in the report (the
//! next run of that test removes it).
//!
//! `FLEXTILE_TESTSUITE_BIN`, when set, replaces the flextile binary; it exists
//! to check the harness itself (a "compiler" that only deletes the region
//! pragmas must pass every program and fail every error case).

use std::collections::BTreeSet;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

/// The gcc command used for the original and the generated program alike.
const CC: &str = "gcc";
const CFLAGS: &[&str] = &[
    "-O2",
    "-std=gnu99",
    "-fopenmp",
    "-ffp-contract=off",
    "-fno-fast-math",
    "-Wno-unknown-pragmas",
];
/// Extra flags of the sanitised build of every generated program: a report
/// of either sanitizer ends the run with a non-zero status. It is built at
/// `-O0` (the last `-O` wins), where every variable lives in memory: a race
/// on a shared scalar that `-O2` keeps in a register shows there.
const SANITIZE_FLAGS: &[&str] = &[
    "-O0",
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer",
    "-g",
];
/// The CUDA output of every program is built as C++ against the CPU
/// emulation of CUDA and run and compared like the C output, and compiled
/// with nvcc (see `common`).
mod common;
use common::{nvcc as nvcc_in, CXX, CXXFLAGS, EMULATE_H, NVCC_FLAGS};
/// Time limit for one run of a test program.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);
/// Time limit for one flextile run (debug build, isl scheduling).
const FLEXTILE_TIMEOUT: Duration = Duration::from_secs(300);
/// Time limit for one gcc run.
const CC_TIMEOUT: Duration = Duration::from_secs(120);
/// How the generated program is run: `(OMP_NUM_THREADS, under the reverse-start shim)`.
const RUN_MODES: &[(u32, bool)] = &[(1, false), (2, false), (2, true), (3, true)];
/// Source of the LD_PRELOAD shim that runs OpenMP threads' shares last thread first.
const SHIM_SRC: &str = "testsuite/omp_reverse_start.c";
/// Content of the pre-existing output file in error tests.
const SENTINEL: &[u8] = b"/* pre-existing output: flextile must not touch this file */\n";

// ---------------------------------------------------------------------------
// Paths

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn flextile_bin() -> PathBuf {
    match std::env::var_os("FLEXTILE_TESTSUITE_BIN") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_BIN_EXE_flextile")),
    }
}

/// `<target>/testsuite-work`, next to the profile folder holding the binary.
fn work_root() -> PathBuf {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_flextile"));
    let target = bin
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| repo_root().join("target"));
    target.join("testsuite-work")
}

/// A fresh, empty work folder for one test: `<work root>/<test>.<pid>`, so that
/// testsuite runs in the same target folder at the same time (several
/// developers, or `make test` beside `cargo test`) do not clear each other's
/// files. Folders a finished run left behind (failed tests) are removed when
/// the same test runs again.
fn fresh_work_dir(test: &str) -> PathBuf {
    let root = work_root();
    let pid = std::process::id();
    if let Ok(entries) = fs::read_dir(&root) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name == test {
                // Left by an older version of this harness.
                let _ = fs::remove_dir_all(e.path());
                continue;
            }
            let Some(other) = name
                .strip_prefix(test)
                .and_then(|r| r.strip_prefix('.'))
                .and_then(|p| p.parse::<u32>().ok())
            else {
                continue;
            };
            if other == pid || !Path::new(&format!("/proc/{other}")).exists() {
                let _ = fs::remove_dir_all(e.path());
            }
        }
    }
    let dir = root.join(format!("{test}.{pid}"));
    if dir.exists() {
        fs::remove_dir_all(&dir).unwrap_or_else(|e| panic!("cannot clear {}: {e}", dir.display()));
    }
    fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

/// Names of the plain files in `dir`, sorted.
fn list_dir(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| {
            e.expect("dir entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

/// The `.c` files of `testsuite/<sub>`, without extension.
fn c_files_in(sub: &str) -> BTreeSet<String> {
    let dir = repo_root().join("testsuite").join(sub);
    fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| {
            let name = e.ok()?.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".c").map(str::to_string)
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Running commands with a time limit

/// What a finished (or killed) command produced.
struct Ran {
    status: Option<ExitStatus>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    timed_out: bool,
}

impl Ran {
    fn ok(&self) -> bool {
        !self.timed_out && self.status.is_some_and(|s| s.success())
    }

    fn code(&self) -> Option<i32> {
        self.status.and_then(|s| s.code())
    }

    fn describe_status(&self) -> String {
        if self.timed_out {
            return "timed out (killed)".to_string();
        }
        match self.status {
            Some(s) => match s.code() {
                Some(c) => format!("exit code {c}"),
                None => format!("killed by a signal ({s})"),
            },
            None => "no status".to_string(),
        }
    }

    fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// Runs `cmd` (stdin closed), killing it after `timeout`.
fn run_with_timeout(cmd: &mut Command, timeout: Duration) -> Result<Ran, String> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
    let mut out = child.stdout.take().expect("piped stdout");
    let mut err = child.stderr.take().expect("piped stderr");
    let out_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = out.read_to_end(&mut buf);
        buf
    });
    let err_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err.read_to_end(&mut buf);
        buf
    });
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(e) => return Err(format!("waiting for {cmd:?}: {e}")),
        }
        if start.elapsed() > timeout {
            timed_out = true;
            let _ = child.kill();
            break child.wait().ok();
        }
        thread::sleep(Duration::from_millis(5));
    };
    let stdout = out_reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    Ok(Ran {
        status,
        stdout,
        stderr,
        timed_out,
    })
}

/// Fails the test at once if gcc is missing: the testsuite cannot judge anything without it.
fn require_gcc() {
    static CHECKED: OnceLock<Result<(), String>> = OnceLock::new();
    let r = CHECKED.get_or_init(|| {
        let ran = run_with_timeout(Command::new(CC).arg("--version"), CC_TIMEOUT)?;
        if ran.ok() {
            Ok(())
        } else {
            Err(format!(
                "`{CC} --version` failed: {}",
                ran.describe_status()
            ))
        }
    });
    if let Err(e) = r {
        panic!("the testsuite needs {CC} with OpenMP support (make deps): {e}");
    }
}

/// Compiles `src` to `exe` with the one gcc command of the testsuite.
fn compile(src: &Path, exe: &Path) -> Result<(), String> {
    compile_with(src, exe, &[])
}

/// Compiles `src` to `exe` with the testsuite's gcc command plus `extra` flags.
fn compile_with(src: &Path, exe: &Path, extra: &[&str]) -> Result<(), String> {
    let mut cmd = Command::new(CC);
    cmd.args(CFLAGS)
        .args(extra)
        .arg("-o")
        .arg(exe)
        .arg(src)
        .arg("-lm");
    let ran = run_with_timeout(&mut cmd, CC_TIMEOUT)?;
    if ran.ok() {
        Ok(())
    } else {
        Err(format!(
            "{CC} {} {} -o {} {} -lm: {}\n{}",
            CFLAGS.join(" "),
            extra.join(" "),
            exe.display(),
            src.display(),
            ran.describe_status(),
            first_lines(&ran.stderr_text(), 40)
        ))
    }
}

/// Builds the generated program `src` once more with AddressSanitizer and
/// UndefinedBehaviorSanitizer (any report aborts the run) and runs it with
/// every argument set and 2 threads: out-of-bounds scratchpad indexing, a
/// buffer overflow or undefined arithmetic in generated code fails the test
/// even when the outputs happen to match. Returns the failures.
fn check_sanitized(
    src: &Path,
    dir: &Path,
    args: &[Vec<String>],
    expected: &[Vec<u8>],
    context: &str,
) -> Vec<String> {
    let exe = dir.join("out-sanitized");
    if let Err(e) = compile_with(src, &exe, SANITIZE_FLAGS) {
        return vec![format!(
            "{context}: the generated C does not compile with sanitizers:\n{e}"
        )];
    }
    let mut failures = Vec::new();
    for (a, want) in args.iter().zip(expected) {
        let what = format!(
            "{context}, args [{}], built with {}",
            show_set(a, "none"),
            SANITIZE_FLAGS.join(" ")
        );
        match run_program_binary(&exe, a, 2, None) {
            Err(e) => failures.push(format!("{what}: {e}")),
            Ok(got) => {
                if let Some(diff) = compare_outputs(want, &got) {
                    failures.push(format!("{what}: {diff}"));
                }
            }
        }
    }
    failures
}

/// Builds the reverse-start shim (see `testsuite/omp_reverse_start.c`) into `dir`.
fn build_shim(dir: &Path) -> Result<PathBuf, String> {
    let so = dir.join("libomp_reverse_start.so");
    let mut cmd = Command::new(CC);
    cmd.args(["-O2", "-shared", "-fPIC", "-fopenmp", "-o"])
        .arg(&so)
        .arg(repo_root().join(SHIM_SRC))
        .arg("-ldl");
    let ran = run_with_timeout(&mut cmd, CC_TIMEOUT)?;
    if ran.ok() {
        Ok(so)
    } else {
        Err(format!(
            "cannot build {SHIM_SRC}: {}\n{}",
            ran.describe_status(),
            first_lines(&ran.stderr_text(), 20)
        ))
    }
}

/// Runs a compiled test program with `args` and `OMP_NUM_THREADS=threads`, under
/// the LD_PRELOAD library `preload` if given; its stdout on success.
fn run_program_binary(
    exe: &Path,
    args: &[String],
    threads: u32,
    preload: Option<&Path>,
) -> Result<Vec<u8>, String> {
    let mut cmd = Command::new(exe);
    cmd.args(args)
        .env("OMP_NUM_THREADS", threads.to_string())
        .current_dir(exe.parent().expect("exe in a folder"));
    if let Some(lib) = preload {
        cmd.env("LD_PRELOAD", lib);
    }
    let ran = run_with_timeout(&mut cmd, RUN_TIMEOUT)?;
    if ran.ok() && preload.is_some() && ran.stderr_text().contains("LD_PRELOAD") {
        return Err(format!(
            "{}: the shim was not preloaded:\n{}",
            exe.display(),
            first_lines(&ran.stderr_text(), 5)
        ));
    }
    if ran.ok() {
        Ok(ran.stdout)
    } else {
        Err(format!(
            "{}: {}\n{}",
            exe.display(),
            ran.describe_status(),
            first_lines(&ran.stderr_text(), 20)
        ))
    }
}

/// Runs flextile on `input` (a path relative to the repository root) with `options`.
fn run_flextile(options: &[String], input: &str, output: &Path) -> Result<Ran, String> {
    let mut cmd = Command::new(flextile_bin());
    cmd.args(options)
        .arg(input)
        .arg("-o")
        .arg(output)
        .current_dir(repo_root());
    run_with_timeout(&mut cmd, FLEXTILE_TIMEOUT)
}

fn first_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut s = lines[..lines.len().min(n)].join("\n");
    if lines.len() > n {
        s.push_str(&format!("\n... ({} more lines)", lines.len() - n));
    }
    s
}

// ---------------------------------------------------------------------------
// Comparing outputs

/// `None` when `expected` and `actual` are byte-identical; otherwise a report
/// naming the first differing line (1-based) and showing both versions of it.
fn compare_outputs(expected: &[u8], actual: &[u8]) -> Option<String> {
    if expected == actual {
        return None;
    }
    let exp: Vec<&[u8]> = expected.split(|&b| b == b'\n').collect();
    let act: Vec<&[u8]> = actual.split(|&b| b == b'\n').collect();
    let show = |l: Option<&&[u8]>| match l {
        Some(l) => {
            let s = String::from_utf8_lossy(l);
            if s.len() > 200 {
                format!(
                    "{:?}...",
                    &s[..s.char_indices().nth(200).map_or(s.len(), |c| c.0)]
                )
            } else {
                format!("{s:?}")
            }
        }
        None => "<end of output>".to_string(),
    };
    let first = (0..exp.len().max(act.len()))
        .find(|&i| exp.get(i) != act.get(i))
        .unwrap_or(0);
    Some(format!(
        "outputs differ at line {} (expected {} bytes / {} lines, got {} bytes / {} lines)\n      expected: {}\n      got:      {}",
        first + 1,
        expected.len(),
        expected.iter().filter(|&&b| b == b'\n').count(),
        actual.len(),
        actual.iter().filter(|&&b| b == b'\n').count(),
        show(exp.get(first)),
        show(act.get(first)),
    ))
}

// ---------------------------------------------------------------------------
// Metadata

/// The `flextile-test:` lines of a file.
#[derive(Debug, Default)]
struct Meta {
    /// Argument sets (`args:`); an empty set runs the program without arguments.
    args: Option<Vec<Vec<String>>>,
    /// flextile option sets (`options:`); an empty set means no options.
    options: Option<Vec<Vec<String>>>,
    /// `expect-exit:`.
    expect_exit: Option<i32>,
    /// `expect-error:`.
    expect_error: Option<ExpectError>,
    /// `expect-stderr:` lines: each needs one of its alternatives in stderr.
    expect_stderr: Vec<Vec<String>>,
    /// Programs: option sets under which overlapped tiling does not apply
    /// (`falls-back:`): compiled and compared like `options:`, with a warning
    /// that contains `fallback-warning:`; with `--fatal-warnings` added,
    /// refused (exit code 1, that text as an error, no output file).
    falls_back: Option<Vec<Vec<String>>>,
    /// Programs: `fallback-warning:`, the text of the falling-back sets' warning.
    fallback_warning: Option<String>,
    /// Programs: `cuda-refused:`, the text of the located error with which
    /// flextile refuses CUDA output for the program's option sets (all of
    /// them, or those of `cuda-refused-options:`); the others' CUDA output
    /// is built and compared (see [`check_cuda_set`]).
    cuda_refused: Option<String>,
    /// Programs: `cuda-refused-options:`, the option sets (of `options:`)
    /// that `cuda-refused:` applies to.
    cuda_refused_options: Option<Vec<Vec<String>>>,
}

/// `expect-error: LOC: SUBSTR`.
#[derive(Debug)]
struct ExpectError {
    /// `(line, col)` alternatives; empty for `none` (no location expected).
    locations: Vec<(u32, u32)>,
    /// Message substrings, any of which must appear (case-insensitive).
    substrings: Vec<String>,
}

/// Splits `s` into words at whitespace; double quotes group words (`--assume "N >= 1"`).
fn split_words(s: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quoted = false;
    for ch in s.chars() {
        match ch {
            '"' => {
                quoted = !quoted;
                in_word = true;
            }
            c if c.is_whitespace() && !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if quoted {
        return Err(format!("unbalanced double quote in {s:?}"));
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

/// Alternatives separated by `|`, trimmed; `default` (alone) stands for the empty set.
fn parse_sets(value: &str) -> Result<Vec<Vec<String>>, String> {
    value
        .split('|')
        .map(|alt| {
            let alt = alt.trim();
            if alt.is_empty() {
                Err(format!("empty alternative in {value:?} (write 'default')"))
            } else if alt == "default" {
                Ok(Vec::new())
            } else {
                split_words(alt)
            }
        })
        .collect()
}

fn parse_alternatives(value: &str) -> Result<Vec<String>, String> {
    let alts: Vec<String> = value.split('|').map(|a| a.trim().to_string()).collect();
    if alts.iter().any(String::is_empty) {
        return Err(format!("empty alternative in {value:?}"));
    }
    Ok(alts)
}

fn parse_expect_error(value: &str) -> Result<ExpectError, String> {
    let (loc, msg) = value.split_once(": ").ok_or_else(|| {
        format!("expect-error needs 'LINE:COL: substring' or 'none: substring', got {value:?}")
    })?;
    let loc = loc.trim();
    let locations = if loc == "none" {
        Vec::new()
    } else {
        loc.split('|')
            .map(|lc| {
                let (l, c) = lc
                    .trim()
                    .split_once(':')
                    .ok_or_else(|| format!("bad location {lc:?} in {value:?}"))?;
                let l: u32 = l.parse().map_err(|_| format!("bad line in {lc:?}"))?;
                let c: u32 = c.parse().map_err(|_| format!("bad column in {lc:?}"))?;
                Ok((l, c))
            })
            .collect::<Result<Vec<_>, String>>()?
    };
    Ok(ExpectError {
        locations,
        substrings: parse_alternatives(msg)?,
    })
}

/// Reads the metadata lines: `flextile-test: KEY: VALUE` after optional `//`, `/*` or `*`.
fn parse_meta(text: &str) -> Result<Meta, String> {
    let mut meta = Meta::default();
    for (n, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let t = t
            .strip_prefix("//")
            .or_else(|| t.strip_prefix("/*"))
            .or_else(|| t.strip_prefix('*'))
            .unwrap_or(t)
            .trim();
        let Some(rest) = t.strip_prefix("flextile-test:") else {
            continue;
        };
        let at = |e: String| format!("line {}: {e}", n + 1);
        let (key, value) = rest.split_once(':').ok_or_else(|| {
            at(format!(
                "expected 'KEY: VALUE' after 'flextile-test:', got {rest:?}"
            ))
        })?;
        let (key, value) = (key.trim(), value.trim());
        let dup = |present: bool| {
            if present {
                Err(at(format!("duplicate key '{key}'")))
            } else {
                Ok(())
            }
        };
        match key {
            "args" => {
                dup(meta.args.is_some())?;
                meta.args = Some(parse_sets(value).map_err(at)?);
            }
            "options" => {
                dup(meta.options.is_some())?;
                meta.options = Some(parse_sets(value).map_err(at)?);
            }
            "expect-exit" => {
                dup(meta.expect_exit.is_some())?;
                meta.expect_exit = Some(
                    value
                        .parse()
                        .map_err(|_| at(format!("bad exit code {value:?}")))?,
                );
            }
            "expect-error" => {
                dup(meta.expect_error.is_some())?;
                meta.expect_error = Some(parse_expect_error(value).map_err(at)?);
            }
            "expect-stderr" => meta
                .expect_stderr
                .push(parse_alternatives(value).map_err(at)?),
            "falls-back" => {
                dup(meta.falls_back.is_some())?;
                meta.falls_back = Some(parse_sets(value).map_err(at)?);
            }
            "fallback-warning" => {
                dup(meta.fallback_warning.is_some())?;
                meta.fallback_warning = Some(value.to_string());
            }
            "cuda-refused" => {
                dup(meta.cuda_refused.is_some())?;
                meta.cuda_refused = Some(value.to_string());
            }
            "cuda-refused-options" => {
                dup(meta.cuda_refused_options.is_some())?;
                meta.cuda_refused_options = Some(parse_sets(value).map_err(at)?);
            }
            _ => return Err(at(format!("unknown key '{key}'"))),
        }
    }
    Ok(meta)
}

fn read_source(sub: &str, name: &str) -> (String, String) {
    let rel = format!("testsuite/{sub}/{name}.c");
    let text = fs::read_to_string(repo_root().join(&rel))
        .unwrap_or_else(|e| panic!("cannot read {rel}: {e}"));
    (rel, text)
}

// ---------------------------------------------------------------------------
// Program tests

/// Everything a program test needs from its metadata.
struct ProgramSpec {
    args: Vec<Vec<String>>,
    options: Vec<Vec<String>>,
    /// Option sets under which overlapped tiling does not apply, and the
    /// text of their warning.
    falls_back: Vec<Vec<String>>,
    fallback_warning: String,
    /// The CUDA refusal's text, and the option sets refused (see [`Meta`]).
    cuda_refused: Option<(String, Vec<Vec<String>>)>,
}

fn program_spec(rel: &str, text: &str) -> ProgramSpec {
    let meta = parse_meta(text).unwrap_or_else(|e| panic!("{rel}: bad metadata: {e}"));
    let (Some(args), Some(options)) = (meta.args.clone(), meta.options.clone()) else {
        panic!("{rel}: a program needs both 'flextile-test: args:' and 'flextile-test: options:' lines");
    };
    assert!(
        meta.expect_exit.is_none() && meta.expect_error.is_none() && meta.expect_stderr.is_empty(),
        "{rel}: expect-* keys belong to error cases (testsuite/errors)"
    );
    assert!(
        meta.falls_back.is_some() == meta.fallback_warning.is_some(),
        "{rel}: 'falls-back:' and 'fallback-warning:' go together"
    );
    ProgramSpec {
        args,
        options,
        falls_back: meta.falls_back.clone().unwrap_or_default(),
        fallback_warning: meta.fallback_warning.clone().unwrap_or_default(),
        cuda_refused: cuda_refusals(rel, &meta, meta.options.as_deref().unwrap_or_default()),
    }
}

/// The CUDA refusal of a program's metadata: its text and the option sets
/// it applies to (every CUDA set without `cuda-refused-options:`).
fn cuda_refusals(
    rel: &str,
    meta: &Meta,
    options: &[Vec<String>],
) -> Option<(String, Vec<Vec<String>>)> {
    let text = meta.cuda_refused.clone();
    assert!(
        text.is_some() || meta.cuda_refused_options.is_none(),
        "{rel}: 'cuda-refused-options:' needs 'cuda-refused:'"
    );
    let sets = match &meta.cuda_refused_options {
        Some(sets) => {
            for s in sets {
                assert!(
                    options.contains(s),
                    "{rel}: cuda-refused-options: [{}] is not one of the options: sets",
                    s.join(" ")
                );
            }
            sets.clone()
        }
        None => options
            .iter()
            .filter(|o| runs_as_cuda(o))
            .cloned()
            .collect(),
    };
    text.map(|t| (t, sets))
}

/// Whether an option set also runs as CUDA: all do but those with options
/// for C output only (`--no-openmp`, `--stack-limit`) or for the CPU's
/// cost model (the GPU cost model reads `--estimate` and `--no-inline`).
fn runs_as_cuda(opts: &[String]) -> bool {
    const C_ONLY: &[&str] = &[
        "--no-openmp",
        "--stack-limit",
        "--cores",
        "--cache-sizes",
        "--cost-weights",
    ];
    !opts.iter().any(|w| C_ONLY.contains(&w.as_str()))
}

/// The option sets of `spec` that also run as CUDA (see [`runs_as_cuda`]),
/// each as run and as the program declares it. Overlapped sets run with
/// the GPU cost model's choice per group (`--gpu-tiling auto`); the first
/// with `--rectangle` also under `--gpu-tiling warp` (one overlapped tile
/// per warp) and `hybrid` (registers as the model sizes them), the first
/// with `--scalene` under `--gpu-tiling block` and `hybrid` with all of a
/// tile in registers that can be (`--reg-fraction 1`), where they do not
/// choose a scheme themselves (without `--fatal-warnings`: a group that
/// does not qualify for registers is a warning).
fn cuda_sets(spec: &ProgramSpec) -> Vec<(Vec<String>, &Vec<String>)> {
    let mut out = Vec::new();
    let mut shapes_done: Vec<&str> = Vec::new();
    for o in spec.options.iter().filter(|o| runs_as_cuda(o)) {
        out.push((o.clone(), o));
        let shape = ["--rectangle", "--scalene"]
            .into_iter()
            .find(|s| o.iter().any(|w| w == s));
        match shape {
            Some(s) if !shapes_done.contains(&s) && !o.iter().any(|w| w == "--gpu-tiling") => {
                shapes_done.push(s);
                let schemes: &[&[&str]] = match s {
                    "--rectangle" => &[&["--gpu-tiling", "warp"], &["--gpu-tiling", "hybrid"]],
                    _ => &[
                        &["--gpu-tiling", "block"],
                        &["--gpu-tiling", "hybrid", "--reg-fraction", "1"],
                    ],
                };
                for scheme in schemes {
                    // A group that does not qualify for registers is a
                    // warning under hybrid: not fatal here.
                    let hybrid = scheme.contains(&"hybrid");
                    let kept = o.iter().filter(|w| !hybrid || *w != "--fatal-warnings");
                    let with = kept.cloned().chain(scheme.iter().map(|w| w.to_string()));
                    out.push((with.collect(), o));
                }
            }
            _ => {}
        }
    }
    out
}

/// The share of the CUDA sets this run checks, `(k, n)`: from
/// `FLEXTILE_TEST_SHARE=k/n` (`make test` takes one share in three, chosen
/// by the commit, so that every set runs over three commits; `make
/// test-all` and a plain `cargo test` run them all).
fn test_share() -> Option<(u64, u64)> {
    let v = std::env::var("FLEXTILE_TEST_SHARE").ok()?;
    let parsed = v
        .split_once('/')
        .and_then(|(k, n)| Some((k.trim().parse::<u64>().ok()?, n.trim().parse::<u64>().ok()?)));
    match parsed {
        Some((k, n)) if n > 0 && k < n => Some((k, n)),
        _ => panic!("FLEXTILE_TEST_SHARE={v}: expected K/N with 0 <= K < N"),
    }
}

/// Whether the CUDA set `opts` of program `rel` is in `share`: a stable
/// hash (FNV-1a) of the program and the set, modulo the share's `n`.
fn in_share(share: Option<(u64, u64)>, rel: &str, opts: &[String]) -> bool {
    let Some((k, n)) = share else {
        return true;
    };
    let key = format!("{rel}\0{}", opts.join(" "));
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h % n == k
}

/// nvcc from `make deps` (or `$NVCC`).
fn nvcc() -> Result<PathBuf, String> {
    nvcc_in(&repo_root())
}

/// Compiles `rel` with `opts` to CUDA in `dir`; builds the output against
/// the emulation and compares its runs with the original's outputs
/// `expected`, then compiles it with nvcc for sm_80 and sm_90. Returns the
/// failures and the number of comparisons run.
fn check_cuda_set(
    rel: &str,
    opts: &[String],
    dir: &Path,
    args: &[Vec<String>],
    expected: &[Vec<u8>],
) -> (Vec<String>, usize) {
    let context = format!("{rel} with options [{}] to CUDA", show_set(opts, "default"));
    fs::create_dir_all(dir).expect("create CUDA options dir");
    let out = dir.join("out.cu");
    let ran = match run_flextile(opts, rel, &out) {
        Ok(r) => r,
        Err(e) => return (vec![format!("{context}: {e}")], 0),
    };
    if !ran.ok() {
        let f = format!(
            "{context}: flextile failed ({}):\n{}",
            ran.describe_status(),
            first_lines(&ran.stderr_text(), 30)
        );
        return (vec![f], 0);
    }
    let mut failures = Vec::new();
    let exe = dir.join("emulated");
    let mut cmd = Command::new(CXX);
    cmd.args(CXXFLAGS)
        .arg("-include")
        .arg(repo_root().join(EMULATE_H))
        .arg(&out)
        .arg("-o")
        .arg(&exe)
        .arg("-lm");
    match run_with_timeout(&mut cmd, CC_TIMEOUT) {
        Ok(r) if r.ok() => {}
        Ok(r) => {
            failures.push(format!(
                "{context}: the CUDA output does not build against the emulation ({}):\n{}",
                r.describe_status(),
                first_lines(&r.stderr_text(), 40)
            ));
        }
        Err(e) => failures.push(format!("{context}: {e}")),
    }
    let mut runs = 0;
    if failures.is_empty() {
        for (a, exp) in args.iter().zip(expected) {
            runs += 1;
            let shown = show_set(a, "no arguments");
            match run_program_binary(&exe, a, 1, None) {
                Ok(actual) => {
                    if let Some(d) = compare_outputs(exp, &actual) {
                        failures.push(format!(
                            "{context}, arguments [{shown}], emulated: output differs from the original:\n{d}"
                        ));
                    }
                }
                Err(e) => failures.push(format!("{context}, arguments [{shown}], emulated: {e}")),
            }
        }
    }
    match nvcc() {
        Err(e) => failures.push(format!("{context}: {e}")),
        Ok(nvcc) => {
            let mut cmd = Command::new(nvcc);
            cmd.args(NVCC_FLAGS)
                .arg(&out)
                .arg("-o")
                .arg(dir.join("out.o"));
            match run_with_timeout(&mut cmd, CC_TIMEOUT) {
                Ok(r) if r.ok() => {}
                Ok(r) => failures.push(format!(
                    "{context}: nvcc {} failed ({}):\n{}",
                    NVCC_FLAGS.join(" "),
                    r.describe_status(),
                    first_lines(&r.stderr_text(), 40)
                )),
                Err(e) => failures.push(format!("{context}: {e}")),
            }
        }
    }
    (failures, runs)
}

/// The option sets of `spec` that ask for overlapped tiling of `shape`
/// (`--rectangle` or `--scalene`), applied or falling back.
fn shape_covered(spec: &ProgramSpec, shape: &str) -> bool {
    spec.options
        .iter()
        .chain(&spec.falls_back)
        .any(|o| o.iter().any(|w| w == shape))
}

/// A refused option set: exit code 1, a compiler-form error that contains
/// the refusal, and no output file (written atomically, never in part).
/// Returns the problem, if any.
fn check_refusal(rel: &str, opts: &[String], refusal: &str, dir: &Path) -> Option<String> {
    let context = format!("{rel} with refused options [{}]", show_set(opts, "default"));
    let out_c = dir.join("out.c");
    let ran = match run_flextile(opts, rel, &out_c) {
        Ok(r) => r,
        Err(e) => return Some(format!("{context}: {e}")),
    };
    let stderr = ran.stderr_text();
    if ran.code() != Some(1) {
        return Some(format!(
            "{context}: expected exit code 1, got {}:\n{}",
            ran.describe_status(),
            first_lines(&stderr, 30)
        ));
    }
    let located = format!("{rel}:");
    let error = stderr
        .lines()
        .any(|l| l.starts_with(&located) && l.contains(": error: ") && l.contains(refusal));
    if !error {
        return Some(format!(
            "{context}: no '{rel}:LINE:COL: error: ...{refusal}...' line in stderr:\n{}",
            first_lines(&stderr, 30)
        ));
    }
    let files = list_dir(dir);
    (!files.is_empty()).then(|| {
        format!("{context}: a refused compilation left files in the output folder: {files:?}")
    })
}

fn show_set(set: &[String], empty: &str) -> String {
    if set.is_empty() {
        empty.to_string()
    } else {
        set.iter()
            .map(|w| {
                if w.contains(char::is_whitespace) {
                    format!("\"{w}\"")
                } else {
                    w.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Runs the original program once per argument set: the expected outputs.
fn reference_outputs(orig_exe: &Path, args: &[Vec<String>]) -> Vec<Vec<u8>> {
    args.iter()
        .map(|a| {
            let out = run_program_binary(orig_exe, a, 1, None).unwrap_or_else(|e| {
                panic!(
                    "the ORIGINAL program fails with args [{}]: {e}",
                    show_set(a, "none")
                )
            });
            assert!(
                !out.is_empty(),
                "the original program prints nothing with args [{}]",
                show_set(a, "none")
            );
            out
        })
        .collect()
}

/// Runs `exe` for every argument set and every run mode (`shim` is the built
/// reverse-start library) and compares with `expected`.
/// Returns the failures (empty when all match) and the number of runs.
fn check_against(
    exe: &Path,
    args: &[Vec<String>],
    expected: &[Vec<u8>],
    shim: &Path,
    context: &str,
) -> (Vec<String>, usize) {
    let mut failures = Vec::new();
    let mut runs = 0;
    for (a, want) in args.iter().zip(expected) {
        for &(threads, reverse) in RUN_MODES {
            runs += 1;
            let what = format!(
                "{context}, args [{}], OMP_NUM_THREADS={threads}{}",
                show_set(a, "none"),
                if reverse {
                    " with threads run in reverse order (omp_reverse_start shim)"
                } else {
                    ""
                }
            );
            let preload = if reverse { Some(shim) } else { None };
            match run_program_binary(exe, a, threads, preload) {
                Err(e) => failures.push(format!("{what}: generated program failed: {e}")),
                Ok(got) => {
                    if let Some(diff) = compare_outputs(want, &got) {
                        failures.push(format!("{what}: {diff}"));
                    }
                }
            }
        }
    }
    (failures, runs)
}

/// Lines (1-based) of `#pragma omplc`, `#pragma scop` or `#pragma endscop` directives:
/// flextile replaces every region, so none may remain in its output.
fn leftover_region_pragmas(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            let t = l.trim_start();
            let Some(rest) = t.strip_prefix('#') else {
                return false;
            };
            let rest = rest.trim_start();
            let Some(rest) = rest.strip_prefix("pragma") else {
                return false;
            };
            let first = rest.split_whitespace().next().unwrap_or("");
            matches!(first, "omplc" | "scop" | "endscop")
        })
        .map(|(n, _)| n + 1)
        .collect()
}

/// A falling-back option set printed a compiler-form warning that contains
/// `text`; returns the problem, if any.
fn check_fallback_warning(rel: &str, opts: &[String], text: &str, stderr: &str) -> Option<String> {
    let located = format!("{rel}:");
    let warned = stderr
        .lines()
        .any(|l| l.starts_with(&located) && l.contains(": warning: ") && l.contains(text));
    (!warned).then(|| {
        format!(
            "{rel} with options [{}] (overlapped tiling does not apply): no '{rel}:LINE:COL: warning: ...{text}...' line in stderr:\n{}",
            show_set(opts, "default"),
            first_lines(stderr, 30)
        )
    })
}

/// Compiles `rel` with the option set `opts` in `dir`, then compiles the
/// output and compares its runs (every argument set and run mode, and under
/// the sanitizers) with the original's outputs `expected`. Returns the
/// failures, the number of comparisons run and flextile's stderr.
fn check_option_set(
    rel: &str,
    opts: &[String],
    dir: &Path,
    args: &[Vec<String>],
    expected: &[Vec<u8>],
    shim: &Path,
) -> (Vec<String>, usize, String) {
    let context = format!("{rel} with options [{}]", show_set(opts, "default"));
    fs::create_dir_all(dir).expect("create options dir");
    let out_c = dir.join("out.c");
    let ran = match run_flextile(opts, rel, &out_c) {
        Ok(r) => r,
        Err(e) => return (vec![format!("{context}: {e}")], 0, String::new()),
    };
    let stderr = ran.stderr_text();
    if !ran.ok() {
        let f = format!(
            "{context}: flextile failed ({}):\n{}",
            ran.describe_status(),
            first_lines(&stderr, 30)
        );
        return (vec![f], 0, stderr);
    }
    let mut failures = Vec::new();
    let files = list_dir(dir);
    if files != ["out.c"] {
        failures.push(format!(
            "{context}: after flextile the output folder holds {files:?}, expected just [\"out.c\"]"
        ));
        if !out_c.exists() {
            return (failures, 0, stderr);
        }
    }
    match fs::read_to_string(&out_c) {
        Ok(generated) => {
            let left = leftover_region_pragmas(&generated);
            if !left.is_empty() {
                failures.push(format!(
                    "{context}: the generated file still holds region pragmas (lines {left:?}): a region was not replaced"
                ));
            }
        }
        Err(e) => {
            failures.push(format!("{context}: cannot read the generated file: {e}"));
            return (failures, 0, stderr);
        }
    }
    let exe = dir.join("out");
    if let Err(e) = compile(&out_c, &exe) {
        failures.push(format!("{context}: the generated C does not compile:\n{e}"));
        return (failures, 0, stderr);
    }
    let (f, runs) = check_against(&exe, args, expected, shim, &context);
    failures.extend(f);
    failures.extend(check_sanitized(&out_c, dir, args, expected, &context));
    (failures, runs, stderr)
}

fn run_program_test(name: &str) {
    require_gcc();
    let (rel, text) = read_source("programs", name);
    let spec = program_spec(&rel, &text);
    let work = fresh_work_dir(&format!("program-{name}"));

    // The oracle: the original program, compiled with the same command.
    let orig_src = work.join("orig.c");
    fs::write(&orig_src, &text).expect("copy original");
    let orig_exe = work.join("orig");
    if let Err(e) = compile(&orig_src, &orig_exe) {
        panic!("{rel}: the ORIGINAL program does not compile:\n{e}");
    }
    let expected = reference_outputs(&orig_exe, &spec.args);
    let shim = build_shim(&work).unwrap_or_else(|e| panic!("{e}"));

    let mut failures = Vec::new();
    let mut runs = 0;
    for (k, opts) in spec.options.iter().enumerate() {
        let dir = work.join(format!("options{k}"));
        let (f, r, _) = check_option_set(&rel, opts, &dir, &spec.args, &expected, &shim);
        failures.extend(f);
        runs += r;
    }
    for (k, opts) in spec.falls_back.iter().enumerate() {
        let dir = work.join(format!("fallback{k}"));
        let (f, r, stderr) = check_option_set(&rel, opts, &dir, &spec.args, &expected, &shim);
        failures.extend(f);
        runs += r;
        failures.extend(check_fallback_warning(
            &rel,
            opts,
            &spec.fallback_warning,
            &stderr,
        ));
        let strict: Vec<String> = opts
            .iter()
            .cloned()
            .chain(["--fatal-warnings".to_string()])
            .collect();
        let dir = work.join(format!("fallback{k}-fatal"));
        fs::create_dir_all(&dir).expect("create fatal-warnings dir");
        failures.extend(check_refusal(&rel, &strict, &spec.fallback_warning, &dir));
    }

    let share = test_share();
    for (k, (opts, declared)) in cuda_sets(&spec).into_iter().enumerate() {
        if !in_share(share, &rel, &opts) {
            continue;
        }
        let opts = &opts;
        let dir = work.join(format!("cuda{k}"));
        match spec
            .cuda_refused
            .as_ref()
            .filter(|(_, sets)| sets.contains(declared))
        {
            Some((refusal, _)) => {
                let asked: Vec<String> = opts
                    .iter()
                    .cloned()
                    .chain(["--target".to_string(), "cuda".to_string()])
                    .collect();
                fs::create_dir_all(&dir).expect("create CUDA refusal dir");
                failures.extend(check_refusal(&rel, &asked, refusal, &dir));
            }
            None => {
                let (f, r) = check_cuda_set(&rel, opts, &dir, &spec.args, &expected);
                failures.extend(f);
                runs += r;
            }
        }
    }

    if !failures.is_empty() {
        panic!(
            "{rel}: {} failure(s) ({runs} comparisons run; work files kept in {}):\n\n{}\n",
            failures.len(),
            work.display(),
            failures.join("\n\n")
        );
    }
    assert!(
        runs > 0,
        "{rel}: no comparison ran (no argument or option sets?)"
    );
    let _ = fs::remove_dir_all(&work);
}

// ---------------------------------------------------------------------------
// Error tests

fn is_caret_line(line: &str) -> bool {
    let t = line.trim_start_matches([' ', '\t']);
    t.starts_with('^') && t.trim_end().chars().all(|c| c == '^' || c == '~')
}

/// Checks flextile's exit code and stderr against the expectations; returns the problems.
fn check_error_output(rel: &str, meta: &Meta, ran: &Ran) -> Vec<String> {
    let mut problems = Vec::new();
    let expect_exit = meta.expect_exit.unwrap_or(1);
    if ran.timed_out || ran.code() != Some(expect_exit) {
        problems.push(format!(
            "expected exit code {expect_exit}, got {}",
            ran.describe_status()
        ));
    }
    let stderr = ran.stderr_text();
    let lower = stderr.to_lowercase();
    let expect = meta.expect_error.as_ref().expect("checked by caller");
    let subs: Vec<String> = expect.substrings.iter().map(|s| s.to_lowercase()).collect();
    let has_sub = |line: &str| {
        let l = line.to_lowercase();
        subs.iter().any(|s| l.contains(s.as_str()))
    };
    if expect.locations.is_empty() {
        if !stderr
            .lines()
            .any(|l| l.to_lowercase().contains("error") && has_sub(l))
        {
            problems.push(format!(
                "expected an error line containing one of {:?}",
                expect.substrings
            ));
        }
    } else {
        let prefixes: Vec<String> = expect
            .locations
            .iter()
            .map(|(l, c)| format!("{rel}:{l}:{c}: error:"))
            .collect();
        if !stderr
            .lines()
            .any(|l| prefixes.iter().any(|p| l.contains(p.as_str())) && has_sub(l))
        {
            let locs: Vec<String> = expect
                .locations
                .iter()
                .map(|(l, c)| format!("{l}:{c}"))
                .collect();
            problems.push(format!(
                "expected a line '{rel}:LINE:COL: error: MESSAGE' with LINE:COL one of [{}] and MESSAGE containing one of {:?} (case-insensitive)",
                locs.join(", "),
                expect.substrings
            ));
        }
        if !stderr.lines().any(is_caret_line) {
            problems.push("expected a caret line (blanks, then '^')".to_string());
        }
    }
    for alts in &meta.expect_stderr {
        if !alts.iter().any(|a| lower.contains(&a.to_lowercase())) {
            problems.push(format!("expected stderr to contain one of {alts:?}"));
        }
    }
    if !problems.is_empty() {
        if stderr.trim().is_empty() {
            problems.push("stderr was empty".to_string());
        } else {
            problems.push(format!("stderr was:\n{}", first_lines(&stderr, 30)));
        }
    }
    problems
}

fn run_error_test(name: &str) {
    let (rel, text) = read_source("errors", name);
    let meta = parse_meta(&text).unwrap_or_else(|e| panic!("{rel}: bad metadata: {e}"));
    assert!(
        meta.expect_error.is_some(),
        "{rel}: an error case needs a 'flextile-test: expect-error:' line"
    );
    assert!(meta.args.is_none(), "{rel}: 'args' belongs to programs");
    let options = match &meta.options {
        None => Vec::new(),
        Some(sets) if sets.len() == 1 => sets[0].clone(),
        Some(_) => panic!("{rel}: an error case takes a single option set"),
    };
    let work = fresh_work_dir(&format!("error-{name}"));
    let mut failures = Vec::new();

    // 1. The output path already holds a file: it must keep its bytes.
    let existing_dir = work.join("existing");
    fs::create_dir_all(&existing_dir).expect("create dir");
    let existing = existing_dir.join("out.c");
    fs::write(&existing, SENTINEL).expect("write sentinel");
    // 2. The output path does not exist: it must not be created.
    let fresh_dir = work.join("fresh");
    fs::create_dir_all(&fresh_dir).expect("create dir");
    let fresh = fresh_dir.join("out.c");

    for (label, dir, out, before) in [
        (
            "existing output file",
            &existing_dir,
            &existing,
            vec!["out.c".to_string()],
        ),
        ("no output file", &fresh_dir, &fresh, Vec::new()),
    ] {
        let ran = match run_flextile(&options, &rel, out) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("[{label}] {e}"));
                continue;
            }
        };
        for p in check_error_output(&rel, &meta, &ran) {
            failures.push(format!("[{label}] {p}"));
        }
        let after = list_dir(dir);
        if after != before {
            failures.push(format!(
                "[{label}] the output folder held {before:?} before flextile and {after:?} after"
            ));
        }
        if !before.is_empty() {
            match fs::read(out) {
                Ok(bytes) if bytes == SENTINEL => {}
                Ok(_) => failures.push(format!("[{label}] the existing output file was modified")),
                Err(e) => failures.push(format!("[{label}] the existing output file is gone: {e}")),
            }
        }
    }

    if !failures.is_empty() {
        let mut command = vec!["flextile".to_string()];
        command.extend(options.iter().cloned());
        command.extend([rel.clone(), "-o".into(), "OUT".into()]);
        panic!(
            "{rel} ({}): {} failure(s) (work files kept in {}):\n\n{}\n",
            show_set(&command, ""),
            failures.len(),
            work.display(),
            failures.join("\n\n")
        );
    }
    let _ = fs::remove_dir_all(&work);
}

// ---------------------------------------------------------------------------
// The harness's own checks

#[test]
fn harness_compare_reports_differences() {
    assert_eq!(compare_outputs(b"a\nb\n", b"a\nb\n"), None);
    let d = compare_outputs(b"a\nb\nc\n", b"a\nx\nc\n").expect("must differ");
    assert!(
        d.contains("line 2") && d.contains("\"b\"") && d.contains("\"x\""),
        "{d}"
    );
    let d = compare_outputs(b"a\nb\n", b"a\n").expect("truncated output must differ");
    assert!(d.contains("line 2"), "{d}");
    let d = compare_outputs(b"a\n", b"a\nb\n").expect("extra output must differ");
    assert!(d.contains("line 2"), "{d}");
    assert!(
        compare_outputs(b"a\n", b"a").is_some(),
        "a missing newline must differ"
    );
    assert!(compare_outputs(b"", b"x").is_some());
    assert!(compare_outputs(b"1.0000000000000002\n", b"1\n").is_some());
}

#[test]
fn harness_metadata_parser() {
    let m = parse_meta(
        "/* x\n * flextile-test: args: 10 2 | 5\n * flextile-test: options: default | --tile --assume \"N >= 1\"\n */\n",
    )
    .unwrap();
    assert_eq!(m.args.unwrap(), vec![vec!["10", "2"], vec!["5"]]);
    assert_eq!(
        m.options.unwrap(),
        vec![
            vec![],
            vec!["--tile".to_string(), "--assume".into(), "N >= 1".into()]
        ]
    );
    let m = parse_meta("// flextile-test: expect-error: 5:31|6:1: domain|iterator\n").unwrap();
    let e = m.expect_error.unwrap();
    assert_eq!(e.locations, vec![(5, 31), (6, 1)]);
    assert_eq!(e.substrings, vec!["domain", "iterator"]);
    let e = parse_meta("// flextile-test: expect-error: none: tile size\n")
        .unwrap()
        .expect_error
        .unwrap();
    assert!(e.locations.is_empty());
    assert!(
        parse_meta("// flextile-test: argz: 1\n").is_err(),
        "typos must be rejected"
    );
    assert!(parse_meta("// flextile-test: args: 1 |  | 2\n").is_err());
    assert!(parse_meta("// flextile-test: args: 1\n// flextile-test: args: 2\n").is_err());
    // A program without metadata fails its test instead of passing vacuously.
    let missing =
        std::panic::catch_unwind(|| program_spec("x.c", "int main(void) { return 0; }\n"));
    assert!(missing.is_err());
}

/// A refusal check fails when flextile compiles the program, or refuses it
/// with another message.
#[test]
fn harness_refusal_checks_exit_and_message() {
    let rel = "testsuite/programs/chain_gs5_wavefront.c";
    let work = fresh_work_dir("harness-refusal");
    let words = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
    let dir = |k: &str| {
        let d = work.join(k);
        fs::create_dir_all(&d).expect("create dir");
        d
    };
    let strict = "--scalene --fatal-warnings";
    let right = check_refusal(rel, &words(strict), "(a recurrence)", &dir("a"));
    assert_eq!(right, None);
    let wrong = check_refusal(rel, &words(strict), "an unrelated reason", &dir("b"));
    assert!(wrong.is_some_and(|e| e.contains("no 'testsuite")));
    // Without --fatal-warnings, the region is compiled (with a warning).
    let compiled = check_refusal(rel, &words("--scalene"), "(a recurrence)", &dir("c"));
    assert!(compiled.is_some_and(|e| e.contains("expected exit code 1")));
    let _ = fs::remove_dir_all(&work);
}

/// A fallback check fails when stderr has no located warning with the text.
#[test]
fn harness_fallback_warning_needs_a_located_warning() {
    let rel = "testsuite/programs/x.c";
    let opts = ["--scalene".to_string()];
    let good = "testsuite/programs/x.c:3:1: warning: a recurrence; the region is compiled without overlapped tiling\n";
    assert_eq!(
        check_fallback_warning(rel, &opts, "a recurrence", good),
        None
    );
    let error = good.replace("warning:", "error:");
    assert!(check_fallback_warning(rel, &opts, "a recurrence", &error).is_some());
    assert!(check_fallback_warning(rel, &opts, "an unrelated reason", good).is_some());
    assert!(check_fallback_warning(rel, &opts, "a recurrence", "").is_some());
}

#[test]
fn harness_leftover_pragmas() {
    let text = "int x;\n  #pragma omplc loopchain schedule()\n# pragma scop\n#pragma omp parallel for\n// #pragma scop\n#pragma endscop\n";
    assert_eq!(leftover_region_pragmas(text), vec![2, 3, 6]);
}

#[test]
fn harness_caret_line() {
    assert!(is_caret_line("      ^~~"));
    assert!(is_caret_line("\t  ^"));
    assert!(!is_caret_line("  x ^"));
    assert!(!is_caret_line(""));
}

/// Stage B of this program holds the coefficient literal the self-tests mutate.
const SELF_TEST_PROGRAM: &str = "pipeline_3stage_1d";
const SELF_TEST_LITERAL: &str = "0.3125";
const SELF_TEST_MUTANT: &str = "0.3126";

/// The comparison catches a one-ulp-scale change in one coefficient of the
/// original program itself (needs gcc only, not flextile).
#[test]
fn harness_detects_mutated_original() {
    require_gcc();
    let (rel, text) = read_source("programs", SELF_TEST_PROGRAM);
    let spec = program_spec(&rel, &text);
    assert_eq!(
        text.matches(SELF_TEST_LITERAL).count(),
        1,
        "{rel} must hold the literal {SELF_TEST_LITERAL} exactly once"
    );
    let work = fresh_work_dir("harness-mutated-original");
    let orig_src = work.join("orig.c");
    fs::write(&orig_src, &text).unwrap();
    compile(&orig_src, &work.join("orig")).unwrap();
    let expected = reference_outputs(&work.join("orig"), &spec.args);
    let mutant_src = work.join("mutant.c");
    fs::write(
        &mutant_src,
        text.replace(SELF_TEST_LITERAL, SELF_TEST_MUTANT),
    )
    .unwrap();
    compile(&mutant_src, &work.join("mutant")).unwrap();
    let shim = build_shim(&work).unwrap();
    let (same, _) = check_against(
        &work.join("orig"),
        &spec.args,
        &expected,
        &shim,
        "unmutated",
    );
    assert!(same.is_empty(), "the original must match itself: {same:?}");
    let (failures, runs) =
        check_against(&work.join("mutant"), &spec.args, &expected, &shim, "mutant");
    assert!(runs > 0);
    assert!(
        failures
            .iter()
            .any(|f| f.contains("outputs differ at line")),
        "the harness did not notice the mutated coefficient"
    );
    let _ = fs::remove_dir_all(&work);
}

/// Generates code for the self-test program, corrupts the stage-B coefficient
/// in the generated C (every occurrence: the body may be printed several times)
/// and checks that the comparison reports it.
#[test]
fn harness_detects_mutated_generated_code() {
    require_gcc();
    let (rel, text) = read_source("programs", SELF_TEST_PROGRAM);
    let spec = program_spec(&rel, &text);
    let work = fresh_work_dir("harness-mutated-generated");
    let orig_src = work.join("orig.c");
    fs::write(&orig_src, &text).unwrap();
    compile(&orig_src, &work.join("orig")).unwrap();
    let expected = reference_outputs(&work.join("orig"), &spec.args);

    let out_c = work.join("out.c");
    let ran = run_flextile(&[], &rel, &out_c).unwrap();
    assert!(
        ran.ok(),
        "flextile failed on {rel} ({}):\n{}",
        ran.describe_status(),
        ran.stderr_text()
    );
    let generated = fs::read_to_string(&out_c).unwrap();
    compile(&out_c, &work.join("out")).unwrap();
    let shim = build_shim(&work).unwrap();
    let (unmutated, _) =
        check_against(&work.join("out"), &spec.args, &expected, &shim, "generated");
    assert!(
        unmutated.is_empty(),
        "inconclusive: the unmutated generated code already differs (see the program test):\n{}",
        unmutated.join("\n")
    );
    let hits = generated.matches(SELF_TEST_LITERAL).count();
    assert!(
        hits >= 1,
        "expected the literal {SELF_TEST_LITERAL} (stage B's coefficient) in the generated code"
    );
    let mutant = work.join("mutant.c");
    fs::write(
        &mutant,
        generated.replace(SELF_TEST_LITERAL, SELF_TEST_MUTANT),
    )
    .unwrap();
    compile(&mutant, &work.join("mutant")).unwrap();
    let (failures, runs) =
        check_against(&work.join("mutant"), &spec.args, &expected, &shim, "mutant");
    assert!(runs > 0);
    assert!(
        failures.iter().any(|f| f.contains("outputs differ at line")),
        "the harness did not notice the corrupted generated code (is the literal only in a comment?)"
    );
    let _ = fs::remove_dir_all(&work);
}

/// A generated program that prints the right outputs but reads past the end of
/// a heap buffer (a scratchpad indexed out of bounds, say) passes the bit-for-bit
/// comparison and must fail the sanitised run; the same program without the
/// stray read must pass it.
#[test]
fn harness_sanitized_run_catches_out_of_bounds() {
    require_gcc();
    let work = fresh_work_dir("harness-sanitized");
    let program = |index: &str| {
        format!(
            "#include <stdio.h>\n#include <stdlib.h>\n\
             int main(void) {{\n  int n = 8;\n  double *a = malloc(n * sizeof *a);\n\
             for (int i = 0; i < n; i++) a[i] = i;\n  volatile double x = a[{index}];\n\
             (void)x;\n  printf(\"%g\\n\", a[n - 1]);\n  free(a);\n  return 0;\n}}\n"
        )
    };
    let args = vec![Vec::new()];
    let expected = vec![b"7\n".to_vec()];
    let good = work.join("good.c");
    fs::write(&good, program("n - 1")).unwrap();
    let clean = check_sanitized(&good, &work, &args, &expected, "in bounds");
    assert!(clean.is_empty(), "a clean program fails: {clean:?}");
    let bad = work.join("bad.c");
    fs::write(&bad, program("n")).unwrap();
    compile(&bad, &work.join("bad")).unwrap();
    let plain = run_program_binary(&work.join("bad"), &[], 1, None).unwrap();
    assert_eq!(
        plain, expected[0],
        "without sanitizers the stray read is silent"
    );
    let caught = check_sanitized(&bad, &work, &args, &expected, "out of bounds");
    assert!(
        caught
            .iter()
            .any(|f| f.contains("heap-buffer-overflow") || f.contains("runtime error: load")),
        "the sanitised run did not report the overflow: {caught:?}"
    );
    let _ = fs::remove_dir_all(&work);
}

/// A prefix sum wrongly marked parallel: plain 2-thread runs may or may not show
/// the race, but under the reverse-start shim every run must differ, and a
/// correct parallel loop must still match.
#[test]
fn harness_reverse_start_exposes_wrong_parallel_loops() {
    require_gcc();
    let work = fresh_work_dir("harness-reverse-start");
    let src = |parallel_scan: bool| {
        format!(
            "#include <stdio.h>\n#include <stdlib.h>\n\
             int main(int argc, char **argv) {{\n\
             int n = argc > 1 ? atoi(argv[1]) : 1000;\n\
             double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);\n\
             for (int i = 0; i < n; i++) a[i] = (i % 7) * 0.25;\n\
             #pragma omp parallel for\n\
             for (int i = 0; i < n; i++) b[i] = a[i] * 3.0;\n\
             {}\n\
             for (int i = 1; i < n; i++) b[i] = b[i] + 0.5 * b[i-1];\n\
             for (int i = 0; i < n; i++) printf(\"%.17g\\n\", b[i]);\n\
             free(a); free(b); return 0; }}\n",
            if parallel_scan {
                "#pragma omp parallel for"
            } else {
                ""
            }
        )
    };
    fs::write(work.join("good.c"), src(false)).unwrap();
    fs::write(work.join("racy.c"), src(true)).unwrap();
    compile(&work.join("good.c"), &work.join("good")).unwrap();
    compile(&work.join("racy.c"), &work.join("racy")).unwrap();
    let shim = build_shim(&work).unwrap();
    let args = vec![vec!["1000".to_string()], vec!["7".to_string()]];
    let expected = reference_outputs(&work.join("good"), &args);
    let (good, _) = check_against(&work.join("good"), &args, &expected, &shim, "good");
    assert!(
        good.is_empty(),
        "a correct program must match in every mode: {good:?}"
    );
    for _ in 0..3 {
        let (racy, _) = check_against(&work.join("racy"), &args, &expected, &shim, "racy");
        let reversed = racy.iter().filter(|f| f.contains("reverse order")).count();
        assert_eq!(
            reversed,
            2 * args.len(),
            "every reverse-start run of the racy program must differ; failures: {racy:#?}"
        );
    }
    let _ = fs::remove_dir_all(&work);
}

// ---------------------------------------------------------------------------
// The files: one #[test] each.

macro_rules! file_tests {
    ($runner:ident, $list:ident, $($name:ident),* $(,)?) => {
        /// The files this module tests, without `.c`.
        pub const $list: &[&str] = &[$(stringify!($name)),*];
        $(
            #[test]
            fn $name() {
                super::$runner(stringify!($name));
            }
        )*
    };
}

mod programs {
    file_tests!(
        run_program_test,
        LISTED,
        alias_facts,
        alias_overlap,
        border_select_counters,
        unsigned_iterators,
        unsigned_condition_kept,
        chain_linearised_constant_width,
        size_t_sum_near_limits,
        chain_1d_fuse_user,
        chain_1d_two_nests,
        chain_antidep_inplace,
        chain_crlf,
        chain_gs5_wavefront,
        chain_mixed_depth,
        chain_parallel_redundant,
        chain_param_offsets,
        chain_rows_parallel,
        chain_rows_supertile,
        chain_scalar_temporaries,
        cleanup_attribute,
        cuda_tile_channels,
        define_in_scop,
        errno_math,
        fenv_flags,
        fig3_pipeline,
        gather_lut,
        gather_clamp_macros,
        chain_macro_operators,
        contract_scope_peeled,
        grid_blur4d,
        helper_name_clash,
        heat1d_scop,
        heat2d_scop,
        inexact_dependences,
        heat3d_scop,
        inline_pointwise,
        intra_tile_fusion,
        int_big_tiles,
        iterator_final_values,
        labels_before_regions,
        jacobi2d_chain,
        jacobi2d_chain_wavefront,
        jacobi2d_scop,
        int_bounds_near_limits,
        long_param,
        macro_body_reads_bound,
        minifluxdiv_autofuse,
        minifluxdiv_chain,
        minifluxdiv_minshift,
        multi_level_tiles,
        overlap_blowup,
        overlap_blowup_2d,
        overlap_blowup_3d,
        overlap_inplace_shadow,
        overlap_inplace_compound,
        overlap_loads_3d,
        overlap_opaque_pointwise,
        overlap_split_singletons,
        pipeline_3stage_1d,
        pointer_rows,
        restrict_struct_members,
        pipeline_3stage_1d_orig,
        pipeline_blur2d,
        pipeline_blur2d_multilevel,
        pipeline_blur2d_supertile_points_wavefront,
        pipeline_blur2d_supertile_wavefront,
        pipeline_sampling2d,
        polybench_const_bounds,
        polybench_const_stencils,
        polybench_countdown,
        polybench_else,
        polybench_macro_bodies,
        polybench_macro_statements,
        polybench_seidel2d,
        pragma_continuation,
        regress_202800063_1,
        long_sequence,
        overlap_groups_load_one_array,
        overlap_groups_load_2d,
        regress_296_1,
        scop_imperfect,
        scop_minmax_guard,
        scop_multistmt_stage,
        scop_local_scalars,
        scop_opaque_conditions,
        scop_reductions,
        size_t_macro_bound,
        scop_one_nest_stage,
        scop_resample,
        seidel2d_scop,
        statement_comments,
        subscript_cast,
        c_division,
        temporaries_contracted,
        temporaries_pipeline,
        temporaries_inferred,
        temporaries_shared,
        thread_local_arrays,
        tile_of_tiles_wavefronts_3d,
        time_blocks_three_arrays,
        time_blocks_short_loop,
        two_chains,
        parts_two_depths,
        cuda_c_declarations,
        cxx_char_literals,
        cxx_math_overloads,
        cxx_sizeof_operands,
    );
}

mod errors {
    file_tests!(
        run_error_test,
        LISTED,
        access_arity,
        chain_body_label,
        chain_macro_access_undeclared,
        chain_macro_operator_undeclared,
        chain_macro_nested_write_undeclared,
        chain_linearised_undeclared,
        chain_runtime_width_product,
        chain_label_straddles,
        clang_syntax_error,
        codegen_budget,
        define_used_before_in_scop,
        domain_arity,
        domain_larger_than_loop,
        domain_nonaffine,
        domain_smaller_than_loop,
        domain_undeclared_parameter,
        for_not_loop,
        iterator_read_outside_loop,
        fuse_count,
        fuse_twice,
        fuse_unbounded_distance,
        illegal_shift,
        illegal_shift_anti,
        missing_endscop,
        overlap_dims_duplicate,
        overlap_dims_no_shape,
        overlap_dims_out_of_range,
        overlap_dims_time_only,
        overlap_dims_two_classic,
        overlap_gemm_row_loop,
        overlap_inplace_prefixed_name,
        overlap_recurrence,
        overlap_scop_imperfect_nest,
        overlap_scop_inplace_time,
        overlap_scop_nest_backward,
        overlap_shadow_too_large,
        overlap_time_subscript,
        overlap_tolerance_negative,
        overlap_two_shapes,
        parallel_illegal,
        parallel_then_serial_tile,
        point_chunk_negative,
        point_chunk_scalene,
        pragma_missing_paren,
        pragma_syntax_in_for,
        pragma_underscore,
        pragma_unknown_access_kind,
        pragma_unknown_schedule_item,
        scop_label_straddles_endscop,
        scop_nonaffine_bound,
        shift_arity,
        shift_too_large,
        tile_size_too_large,
        tile_size_zero,
        underdeclared_access,
        wavefront_illegal,
        temporary_not_written,
        temporary_cleanup,
        temporary_read_after,
        temporary_scop_syntax,
        cuda_knr_float_parameter,
        cuda_tentative_static,
        cuda_unprototyped_call,
        cuda_switch_jump,
        cuda_region_uses_cuda_name,
        cuda_designator_side_effects,
        cuda_const_without_initialiser,
        cuda_complex,
        cuda_tgmath,
        cuda_stdc_version,
        cuda_bool_increment,
        cuda_long_double_kernel,
    );
}

/// Every `.c` file of `testsuite/programs` and `testsuite/errors` has its test, and
/// every listed test has its file.
/// Issue 4's bar: every program is compiled under both trapezoid shapes and
/// compared, with the warning checked where overlapped tiling does not
/// apply (`falls-back:`).
#[test]
fn every_program_is_tested_under_both_shapes() {
    let mut missing = Vec::new();
    for name in programs::LISTED {
        let (rel, text) = read_source("programs", name);
        let spec = program_spec(&rel, &text);
        for shape in ["--rectangle", "--scalene"] {
            if !shape_covered(&spec, shape) {
                missing.push(format!("{rel}: {shape}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "programs with neither 'options:' nor 'falls-back:' for a shape:\n{}",
        missing.join("\n")
    );
}

#[test]
fn harness_shares_partition_the_cuda_sets() {
    let mut per_share = [0usize; 3];
    for name in programs::LISTED {
        let (rel, text) = read_source("programs", name);
        for (opts, _) in cuda_sets(&program_spec(&rel, &text)) {
            let owners: Vec<u64> = (0..3)
                .filter(|k| in_share(Some((*k, 3)), &rel, &opts))
                .collect();
            assert_eq!(
                owners.len(),
                1,
                "{rel} [{}]: shares {owners:?}",
                opts.join(" ")
            );
            per_share[owners[0] as usize] += 1;
            assert!(in_share(None, &rel, &opts));
        }
    }
    assert!(per_share.iter().all(|n| *n > 0), "shares {per_share:?}");
}

#[test]
fn every_file_is_listed() {
    for (sub, listed) in [("programs", programs::LISTED), ("errors", errors::LISTED)] {
        let on_disk = c_files_in(sub);
        let listed: BTreeSet<String> = listed.iter().map(|s| s.to_string()).collect();
        assert!(!on_disk.is_empty(), "testsuite/{sub} holds no .c file");
        let unlisted: Vec<_> = on_disk.difference(&listed).collect();
        let missing: Vec<_> = listed.difference(&on_disk).collect();
        assert!(
            unlisted.is_empty() && missing.is_empty(),
            "testsuite/{sub}: files not listed in tests/testsuite.rs: {unlisted:?}; listed but missing: {missing:?}"
        );
    }
}
