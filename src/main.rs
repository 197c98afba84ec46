//! The `flextile` command line: argument parsing only; the work is in
//! `flextile::driver`.

use clap::{ArgAction, Parser, ValueEnum};
use flextile::backend::cuda::GpuTiling;
use flextile::driver::{self, Options, Target, MAX_SIZE};
use flextile::transform::cost::parse_size;
use flextile::transform::gpu_occupancy as occupancy;
use flextile::transform::overlap::{GroupingStrategy, Machine, Shape, Weights};
use flextile::verify::{self, Outcome, Verify};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// isl allocates and frees small blocks all the time (a fifth of a compilation
/// of local-laplacian was glibc's malloc and free): mimalloc serves every
/// allocation of the process, isl's and libclang's included (its `override`
/// feature replaces `malloc` and `free`), and Rust's through them.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// flextile: a polyhedral source-to-source compiler for annotated C loop
/// chains; it writes OpenMP C or CUDA.
#[derive(Parser, Debug)]
#[command(
    name = "flextile",
    version,
    about,
    long_about = None,
    after_help = "CUDA output (--target cuda, or an output named *.cu): parallel loops become kernels over blocks and threads (--block-sizes), the data live in device buffers; overlapped tiles (--rectangle, --scalene) run one per thread block, their scratchpads in shared memory. Build with nvcc --fmad=false for results bit-identical to the C original; --verify builds and compares it (against a CPU emulation of CUDA where there is no GPU)."
)]
struct Cli {
    /// Input C file (with `#pragma omplc` loop chains or `#pragma scop`
    /// regions); it is read once, so a pipe or /dev/stdin works.
    input: PathBuf,
    /// Output file (`-`: standard output); never the input. An output named
    /// `*.cu` asks for CUDA.
    #[arg(short = 'o', value_name = "OUTPUT")]
    output: PathBuf,
    /// Output language (default: from the output's extension).
    #[arg(long, value_enum)]
    target: Option<TargetArg>,
    /// CUDA: threads per block along x and y (default: the GPU cost
    /// model's per overlapped group, 32,8 for other kernels; a kernel that
    /// spreads one loop gets X*Y threads along x).
    #[arg(long, value_delimiter = ',', value_name = "X,Y")]
    block_sizes: Option<Vec<u32>>,
    /// CUDA, overlapped tiles: who computes a tile, a thread block
    /// (`block`: scratchpads per block, `__syncthreads` between stages), a
    /// warp (`warp`: Jangda & Guha's (PACT'20) overlapped tile per warp, scratchpads per
    /// warp, `__syncwarp` between stages), a warp with the right part of
    /// each stage's tile in registers (`hybrid`: Jangda & Guha, PACT'20, §5, values read
    /// across lanes by shuffles; a group that does not qualify gets `warp`
    /// with a warning), or (`auto`, the default) the cheapest per group by
    /// the GPU cost model (Jangda & Guha, PACT'20, §6).
    #[arg(long, value_enum, value_name = "SCHEME")]
    gpu_tiling: Option<GpuTilingArg>,
    /// CUDA, hybrid tiles: the fraction of a tile along the innermost loop
    /// kept in registers, in whole warps (0 < F <= 1; default: the GPU cost
    /// model's per group). Without --gpu-tiling it implies hybrid.
    #[arg(long, value_name = "F")]
    reg_fraction: Option<f64>,
    /// CUDA: the GPU architecture whose limits (threads, registers and
    /// shared memory per SM, bandwidth, clock) the GPU cost model and
    /// `--report`'s occupancy figures use (default sm_90, the H100's).
    #[arg(long, value_enum, value_name = "ARCH")]
    gpu: Option<GpuArg>,
    /// Write a Make dependency file (the output depends on the input and
    /// every header it includes), named after the output with `.d`, like
    /// gcc (written `-MD`).
    #[arg(long = "MD")]
    md: bool,
    /// Write the dependency file to FILE (implies -MD; written `-MF FILE`).
    #[arg(long = "MF", value_name = "FILE")]
    mf: Option<PathBuf>,
    /// After compiling, build the input and the output with the same
    /// compiler and flags, run both (with the arguments after `--`) and
    /// compare their standard output byte for byte (a C output a second time
    /// with both built at -O0, where races on registers show): exit 1 if
    /// they differ.
    #[arg(long)]
    verify: bool,
    /// --verify: the C compiler (default gcc).
    #[arg(long, value_name = "CC", requires = "verify")]
    cc: Option<String>,
    /// --verify: the compiler's flags (default: the testsuite's, -O2
    /// -std=gnu99 -fopenmp -ffp-contract=off -fno-fast-math); -I, -D and
    /// -std given to flextile are passed on too.
    #[arg(
        long,
        value_name = "FLAGS",
        requires = "verify",
        allow_hyphen_values = true
    )]
    cflags: Option<String>,
    /// --verify: the arguments both programs run with.
    #[arg(last = true, value_name = "ARGS")]
    run_args: Vec<String>,
    /// Mark parallel loops with `#pragma omp parallel for` (default).
    #[arg(long, overrides_with = "no_openmp")]
    openmp: bool,
    /// Generate sequential C only.
    #[arg(long = "no-openmp")]
    no_openmp: bool,
    /// Tile every innermost loop band classically (overrides pragma `tile`).
    #[arg(long)]
    tile: bool,
    /// Overlapped tiling with rectangle trapezoids (shift, tile, expand the left face).
    #[arg(long, conflicts_with_all = ["scalene", "tile"])]
    rectangle: bool,
    /// Overlapped tiling with scalene trapezoids (strip-mine, fuse tile loops, expand both faces).
    #[arg(long, conflicts_with = "tile")]
    scalene: bool,
    /// Tile sizes, outermost loop first (default 32 for every loop).
    #[arg(long, value_delimiter = ',', value_name = "A,B,...")]
    tile_sizes: Option<Vec<i64>>,
    /// Data sets whose values the program does not read after their region
    /// (as the `temporary(...)` clause): overlapped tiles keep them in
    /// scratchpads and never store them.
    #[arg(long, value_delimiter = ',', value_name = "NAME,...")]
    temporary: Vec<String>,
    /// Do not prove temporaries: by default a data set a region writes is
    /// temporary too where its function owns it (a local array, or a local
    /// pointer to memory it mallocs) and no code can read what the region
    /// leaves in it (its other uses are element writes, reads before the
    /// region, free, sizeof, null checks; -v tells why one is not).
    #[arg(long)]
    no_infer_temporaries: bool,
    /// Partial overlapped tiling: the loops (0 = outermost) whose tiles
    /// overlap; the one left out is tiled classically (its tiles run in order).
    #[arg(long, value_delimiter = ',', value_name = "D,...")]
    overlap_dims: Option<Vec<usize>>,
    /// Overlapped tiling: a nest joins a group only while every stage's
    /// overlap per loop (redundant iterations over the tile size) stays
    /// within this fraction (PolyMage's overlap tolerance; default: no limit).
    #[arg(long, value_name = "F")]
    overlap_tolerance: Option<f64>,
    /// Overlapped tiling: how the nests of a region are grouped into
    /// overlapped tiles. dp (default without --tile-sizes,
    /// --overlap-tolerance and --overlap-dims): the dynamic-programming
    /// grouping with the cost and tile-size model (Jangda & Bondhugula, TOPLAS'20), each group
    /// with its own tile sizes unless --tile-sizes gives them, a nest alone
    /// keeping its loops; greedy (default otherwise): in order, a nest joins
    /// the group before it while the group stays overlappable (and within
    /// --overlap-tolerance); none: every nest is tiled alone.
    #[arg(long, value_enum, value_name = "STRATEGY")]
    grouping: Option<GroupingArg>,
    /// --grouping dp: do not inline the nests that compute a temporary
    /// point-wise (or for one consumer reading it at one point) into their
    /// consumers' expressions (Jangda & Bondhugula, TOPLAS'20, §5.1, Algorithm 3; on by default).
    #[arg(long)]
    no_inline: bool,
    /// --rectangle / --scalene: do not fuse, inside a tile, the point loops
    /// of consecutive independent stages that read common inputs at the
    /// same points (Jangda & Bondhugula, TOPLAS'20, §5.3, intra-tile fusion for register reuse; on
    /// by default).
    #[arg(long)]
    no_intra_tile_fusion: bool,
    /// --scalene with the cost model: do not run, inside the tiles it sizes
    /// for L2, inner tiles sized for L1 (Jangda & Bondhugula, TOPLAS'20, §5.2, multi-level tiling,
    /// Algorithm 4; on by default; --rectangle's fused point loops run the
    /// stages row by row already).
    #[arg(long)]
    no_multi_level: bool,
    /// --grouping dp: the L1 and L2 cache sizes the tiles are sized for
    /// (bytes, or with K or M: 48K,2M; default: read from the machine).
    #[arg(long, value_delimiter = ',', value_name = "L1,L2")]
    cache_sizes: Option<Vec<String>>,
    /// --grouping dp: the weights of the cost model, w1 (per byte moved),
    /// w2 (idle cores), w3 (per read computed), w4 (extent spread).
    #[arg(long, value_delimiter = ',', value_name = "W1,W2,W3,W4")]
    cost_weights: Option<Vec<f64>>,
    /// --grouping dp: the cores the tiles run on (default: this machine's).
    #[arg(long, value_name = "N")]
    cores: Option<i64>,
    /// --grouping dp: an estimate of a size parameter, NAME=VALUE
    /// (repeatable); parameters without one are taken to be 2048.
    #[arg(long, value_name = "NAME=VALUE", action = ArgAction::Append)]
    estimate: Vec<String>,
    /// Overlapped tiling: print how each region's nests were grouped, and
    /// why each group ends where it does, on stdout.
    #[arg(long)]
    explain: bool,
    /// Rectangle tiles: strip-mine the innermost fused point loop into
    /// chunks of N points, the stages one after another inside a chunk, so
    /// that the loops vectorise (0: fused point by point, as in the paper's
    /// Fig. 14; default 256).
    #[arg(long, value_name = "N")]
    point_chunk: Option<i64>,
    /// Overlapped tiling: the most bytes of scratchpads a tile keeps on the
    /// stack of its thread; a tile with more allocates them on the heap,
    /// once per thread (lower it where threads have small stacks, e.g.
    /// musl's 128 KiB; 0: always the heap; default 4 MiB).
    #[arg(long, value_name = "BYTES")]
    stack_limit: Option<u64>,
    /// Budget of isl operations (allocations) per statement for generating
    /// a region's code; past it the region's schedule is made simpler, with
    /// a warning, or refused. 0: no limit.
    #[arg(long, value_name = "N", default_value_t = flextile::driver::DEFAULT_MAX_ISL_OPERATIONS)]
    max_isl_operations: u64,
    /// Budget of isl operations per statement for a region's exact
    /// dependence analysis (default: --max-isl-operations); past it the
    /// region is compiled with memory-based dependences, with a warning.
    /// 0: no limit.
    #[arg(long, value_name = "N")]
    max_dependence_operations: Option<u64>,
    /// Print the per-tile footprint of every stage (overlapped tiling) and
    /// each region's macro dataflow graph costs (S_R, S_C, storage bytes),
    /// before and after the transformation.
    #[arg(long)]
    report: bool,
    /// Write an extra file: `mdg=FILE.dot`, the regions' macro dataflow
    /// graphs in Graphviz DOT (and FILE.svg when `dot` is on the PATH).
    #[arg(long, value_name = "KIND=FILE", action = ArgAction::Append)]
    emit: Vec<String>,
    /// Treat warnings as errors (exit code 1, no output): in particular,
    /// refuse a region overlapped tiling does not apply to instead of
    /// compiling it with its original loops.
    #[arg(long)]
    fatal_warnings: bool,
    /// Add a directory to clang's include path.
    #[arg(short = 'I', value_name = "DIR", action = ArgAction::Append)]
    include: Vec<String>,
    /// Define a macro for clang (`NAME` or `NAME=VALUE`).
    #[arg(short = 'D', value_name = "MACRO", action = ArgAction::Append)]
    define: Vec<String>,
    /// C language standard for clang (written `-std=c99`).
    #[arg(long = "std", value_name = "STD")]
    std: Option<String>,
    /// Do not assume C's strict aliasing rules (written
    /// `-fno-strict-aliasing`, passed on to clang and --verify's
    /// compiler): pointers to incompatible types (`float *`, `int *`) may
    /// then overlap in memory.
    #[arg(long = "fno-strict-aliasing", overrides_with = "strict_aliasing")]
    no_strict_aliasing: bool,
    /// Assume C's strict aliasing rules (the default; written
    /// `-fstrict-aliasing`).
    #[arg(long = "fstrict-aliasing", overrides_with = "no_strict_aliasing")]
    strict_aliasing: bool,
    /// Constraints on the parameters, e.g. "N >= 1" (repeatable; combined with and).
    #[arg(long, value_name = "CONSTRAINTS", action = ArgAction::Append)]
    assume: Vec<String>,
    /// Print each region's final schedule tree (YAML) on stderr.
    #[arg(long)]
    dump_schedule: bool,
    /// Output templates: a file under DIR with the path of one of
    /// flextile's templates (`cuda/launch.cu.tera`, as in the repository's
    /// `templates/`) replaces it; the others stay built in.
    #[arg(long, value_name = "DIR")]
    templates: Option<PathBuf>,
    /// Log what the passes do (-v: info, -vv: debug).
    #[arg(short = 'v', action = ArgAction::Count)]
    verbose: u8,
    /// Remarks (`-Rmissed`): a located note for every loop left serial,
    /// those outside a parallel loop included, with the dependence that
    /// keeps it serial (without it: each nest that has no parallel loop).
    #[arg(short = 'R', value_name = "KIND", action = ArgAction::Append)]
    remarks: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum GpuArg {
    #[value(name = "sm_80")]
    Sm80,
    #[value(name = "sm_90")]
    Sm90,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum GpuTilingArg {
    Block,
    Warp,
    Hybrid,
    Auto,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum TargetArg {
    C,
    Cuda,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum GroupingArg {
    Greedy,
    None,
    Dp,
}

/// Minimal stderr logger for the `log` facade.
struct StderrLogger;

impl log::Log for StderrLogger {
    fn enabled(&self, m: &log::Metadata) -> bool {
        m.level() <= log::max_level()
    }
    fn log(&self, r: &log::Record) {
        if self.enabled(r.metadata()) {
            eprintln!(
                "flextile: [{}] {}",
                r.level().as_str().to_lowercase(),
                r.args()
            );
        }
    }
    fn flush(&self) {}
}

static LOGGER: StderrLogger = StderrLogger;

/// The arguments as clap reads them: `-std=c99`, `-MD`, `-MF FILE` and
/// `-fno-strict-aliasing` are spelled like gcc's flags; clap wants
/// `--std=c99`, `--MD`, `--MF FILE`, `--fno-strict-aliasing`.
fn clap_args() -> Vec<std::ffi::OsString> {
    let mut out = Vec::new();
    let mut rest = false;
    for a in std::env::args_os() {
        let a = match a.to_str() {
            _ if rest => a,
            Some("--") => {
                rest = true;
                a
            }
            Some(s)
                if s.starts_with("-std=")
                    || matches!(
                        s,
                        "-MD" | "-MF" | "-fno-strict-aliasing" | "-fstrict-aliasing"
                    ) =>
            {
                format!("-{s}").into()
            }
            Some(s) if s.starts_with("-MF") => format!("--MF={}", &s[3..]).into(),
            _ => a,
        };
        out.push(a);
    }
    out
}

/// `--version`: the commit it was built from and the isl and libclang it uses.
fn version_text() -> String {
    format!(
        "flextile {} (commit {})\nisl {} (built by isl-rs {})\nlibclang {}\n",
        env!("CARGO_PKG_VERSION"),
        env!("FLEXTILE_COMMIT"),
        flextile::model::isl_ext::isl_version().trim(),
        env!("FLEXTILE_ISL_RS"),
        flextile::frontend::clang::clang_version()
    )
}

/// Stack of the thread that compiles (virtual memory: only the pages used
/// are backed). libclang's parser and the recursive walkers need about
/// 300 bytes per level of nested expression; this holds several million
/// levels, (measured below).
const STACK_SIZE: usize = 1 << 30;

fn main() -> ExitCode {
    // libclang parses on a thread of its own with an 8 MiB stack (where a
    // long statement overflowed it) unless this is set before its first
    // call: with it, clang parses on the calling thread, the big one below.
    // Set here, before any thread exists.
    std::env::set_var("LIBCLANG_NOTHREADS", "1");
    let worker = std::thread::Builder::new()
        .name("flextile".to_string())
        .stack_size(STACK_SIZE)
        .spawn(compile_main);
    match worker.map(|w| w.join()) {
        Ok(Ok(code)) => code,
        Ok(Err(_)) => {
            eprintln!("flextile: internal error: the compiler crashed (please report this input)");
            ExitCode::from(2)
        }
        // No thread with that stack (a tight `ulimit -v`): compile here.
        Err(_) => compile_main(),
    }
}

/// `main`'s work, on the thread with the large stack.
fn compile_main() -> ExitCode {
    let args = clap_args();
    let before_rest = args.iter().take_while(|a| *a != "--");
    if before_rest.skip(1).any(|a| a == "--version" || a == "-V") {
        print!("{}", version_text());
        return ExitCode::SUCCESS;
    }
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let _ = log::set_logger(&LOGGER);
    log::set_max_level(match cli.verbose {
        0 => log::LevelFilter::Warn,
        1 => log::LevelFilter::Info,
        _ => log::LevelFilter::Debug,
    });
    let opts = match options(&cli) {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("flextile: error: {msg}");
            return ExitCode::from(1);
        }
    };
    match std::panic::catch_unwind(|| driver::run(&opts)) {
        Ok(Ok(input)) if cli.verify => run_verify(&cli, &opts, &input.bytes),
        Ok(Ok(_)) => ExitCode::SUCCESS,
        Ok(Err(failure)) => {
            eprint!("{}", failure.render());
            ExitCode::from(match failure.error {
                flextile::diag::Error::User(_) | flextile::diag::Error::Inapplicable(_) => 1,
                flextile::diag::Error::Internal(_) => 2,
            })
        }
        Err(_) => {
            eprintln!("flextile: internal error: the compiler crashed (please report this input)");
            ExitCode::from(2)
        }
    }
}

/// Whether the command line asks for CUDA output (`--target cuda`, or an
/// output named `*.cu` without `--target`).
fn cuda_output(cli: &Cli) -> bool {
    match cli.target {
        Some(t) => t == TargetArg::Cuda,
        None => cli.output.extension().is_some_and(|e| e == "cu"),
    }
}

/// `--verify` after a successful compilation: builds and runs the input
/// (`source`: its bytes as flextile read them) and the output, and says
/// whether they print the same.
fn run_verify(cli: &Cli, opts: &Options, source: &[u8]) -> ExitCode {
    let flags = cli.cflags.as_deref().unwrap_or(verify::DEFAULT_CFLAGS);
    let v = Verify {
        cc: cli
            .cc
            .clone()
            .unwrap_or_else(|| verify::DEFAULT_CC.to_string()),
        cflags: flags.split_whitespace().map(str::to_string).collect(),
        clang_flags: opts.clang_args.clone(),
        args: cli.run_args.clone(),
        cuda: None,
    };
    let v = Verify {
        cuda: (opts.target == Target::Cuda).then(|| verify::CudaBuild::detect(&v.cc)),
        ..v
    };
    let with = if v.args.is_empty() {
        "no arguments".to_string()
    } else {
        format!("arguments '{}'", v.args.join(" "))
    };
    match verify::verify(&opts.input, source, &opts.output, &v) {
        Ok(Outcome::Identical(n)) => {
            let cuda = match &v.cuda {
                Some(how) => format!(" (the output {})", how.describe()),
                None => String::new(),
            };
            println!(
                "flextile: verify: identical: the input and '{}' built with {} {}{cuda}, run with {with}, print the same {n} bytes and exit alike",
                opts.output.display(),
                v.cc,
                v.cflags.join(" ")
            );
            ExitCode::SUCCESS
        }
        Ok(Outcome::Different(why)) => {
            println!(
                "flextile: verify: DIFFERENT: the input and '{}' (run with {with}): {why}",
                opts.output.display()
            );
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("flextile: error: --verify: {e}");
            ExitCode::from(1)
        }
    }
}

/// The file of `--emit mdg=FILE`, if asked: each `--emit` is `KIND=FILE`
/// with a known kind, given once, and names neither the input nor the output.
/// The machine the cost model sizes tiles for: this one, or the one
/// `FLEXTILE_MACHINE` describes (`L1,L2,CORES`, e.g. `32K,1M,2`: the tests
/// pin it so that their outputs do not depend on the machine they run on),
/// with `--cache-sizes` and `--cores` in place of either.
fn machine(cli: &Cli) -> Result<Machine, String> {
    let mut m = Machine::detect();
    if let Some(given) = std::env::var_os("FLEXTILE_MACHINE") {
        let given = given.to_string_lossy();
        let parts: Vec<&str> = given.split(',').collect();
        match parts.as_slice() {
            [l1, l2, cores] => {
                match (parse_size(l1), parse_size(l2), cores.trim().parse::<i64>()) {
                    (Some(l1), Some(l2), Ok(c)) if (1..=4096).contains(&c) => {
                        m.l1 = l1;
                        m.l2 = l2;
                        m.cores = c;
                    }
                    _ => return Err(bad_machine_variable(&given)),
                }
            }
            _ => return Err(bad_machine_variable(&given)),
        }
    }
    if let Some(sizes) = &cli.cache_sizes {
        let parsed: Vec<Option<i64>> = sizes.iter().map(|s| parse_size(s)).collect();
        match parsed.as_slice() {
            [Some(l1), Some(l2)] => {
                m.l1 = *l1;
                m.l2 = *l2;
            }
            _ => {
                return Err(format!(
                    "cannot read --cache-sizes {}: it takes the L1 and L2 sizes, in bytes or with K or M (48K,2M)",
                    sizes.join(",")
                ))
            }
        }
    }
    if let Some(c) = cli.cores {
        if !(1..=4096).contains(&c) {
            return Err(format!(
                "invalid --cores {c}: it must be between 1 and 4096"
            ));
        }
        m.cores = c;
    }
    Ok(m)
}

/// The error for a `FLEXTILE_MACHINE` that does not read as `L1,L2,CORES`.
fn bad_machine_variable(given: &str) -> String {
    format!("cannot read the environment variable FLEXTILE_MACHINE={given}: it takes the L1 and L2 sizes and the cores, as in 32K,1M,2")
}

/// `--estimate NAME=VALUE`s by name.
fn estimates(given: &[String]) -> Result<BTreeMap<String, i64>, String> {
    let mut out = BTreeMap::new();
    for e in given {
        let parsed = e.split_once('=').and_then(|(n, v)| {
            let n = n.trim();
            let ident = !n.is_empty()
                && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !n.starts_with(|c: char| c.is_ascii_digit());
            Some((
                n.to_string(),
                v.trim()
                    .parse::<i64>()
                    .ok()
                    .filter(|v| *v >= 1 && *v <= 1 << 30)?,
            ))
            .filter(|_| ident)
        });
        let Some((name, value)) = parsed else {
            return Err(format!(
                "cannot read --estimate '{e}': it takes NAME=VALUE, a parameter name and a positive size up to 2^30"
            ));
        };
        out.insert(name, value);
    }
    Ok(out)
}

fn emit_mdg(emit: &[String], input: &Path, output: &Path) -> Result<Option<PathBuf>, String> {
    let mut mdg = None;
    for e in emit {
        let Some((kind, file)) = e.split_once('=') else {
            return Err(format!(
                "--emit '{e}': write KIND=FILE, e.g. --emit mdg=graph.dot"
            ));
        };
        if kind != "mdg" {
            return Err(format!(
                "--emit '{e}': unknown kind '{kind}' (the kinds are: mdg)"
            ));
        }
        if file.is_empty() || file == "-" {
            return Err(format!("--emit '{e}': name a file (FILE.dot)"));
        }
        if mdg.is_some() {
            return Err("--emit mdg is given twice".into());
        }
        let file = PathBuf::from(file);
        if file == output || file == input {
            return Err(format!(
                "--emit '{e}' names the {} file",
                if file == input { "input" } else { "output" }
            ));
        }
        mdg = Some(file);
    }
    Ok(mdg)
}

/// Checks the arguments clap cannot and builds the driver's options.
fn options(cli: &Cli) -> Result<Options, String> {
    check_overlap_options(cli)?;
    if let Some(r) = cli.remarks.iter().find(|r| *r != "missed") {
        return Err(format!(
            "unknown remark kind '-R{r}': flextile's remarks are -Rmissed (the loops left serial, and why)"
        ));
    }
    let grouping = grouping(cli);
    let weights = weights(cli, grouping)?;
    let machine = machine(cli)?;
    let estimates = estimates(&cli.estimate)?;
    check_tiling_options(cli)?;
    let emit_mdg = emit_mdg(&cli.emit, &cli.input, &cli.output)?;
    let templates = templates_dir(cli)?;
    check_tile_sizes(cli)?;
    let dep_file = dep_file(cli)?;
    let target = target(cli);
    let GpuOptions {
        block_sizes,
        gpu_tiling,
        reg_fraction,
        gpu,
    } = gpu_options(cli, target)?;
    let clang_args = clang_args(cli);
    let assume = assume(cli)?;
    let summary = banner_options();
    Ok(Options {
        input: cli.input.clone(),
        output: cli.output.clone(),
        target,
        block_sizes,
        gpu_tiling,
        reg_fraction,
        gpu,
        openmp: !cli.no_openmp,
        tile: cli.tile,
        tile_sizes: cli.tile_sizes.clone(),
        clang_args,
        temporaries: cli.temporary.clone(),
        infer_temporaries: !cli.no_infer_temporaries,
        assume,
        dump_schedule: cli.dump_schedule,
        overlap: if cli.rectangle {
            Some(Shape::Rectangle)
        } else if cli.scalene {
            Some(Shape::Scalene)
        } else {
            None
        },
        overlap_dims: cli.overlap_dims.clone(),
        overlap_tolerance: cli.overlap_tolerance,
        grouping,
        inline: !cli.no_inline,
        // Fused point loops and L1 tiles inside tiles are for CPU caches; a
        // CUDA tile's stages run one after another over the block's threads.
        intra_fusion: !cli.no_intra_tile_fusion && target == Target::C,
        multi_level: !cli.no_multi_level && target == Target::C,
        machine,
        weights,
        estimates,
        explain: cli.explain,
        missed: cli.explain || cli.remarks.iter().any(|r| r == "missed"),
        point_chunk: cli
            .point_chunk
            .unwrap_or(flextile::driver::DEFAULT_POINT_CHUNK),
        stack_limit: match target {
            Target::Cuda => flextile::backend::cuda::SHARED_BYTES,
            Target::C => cli
                .stack_limit
                .unwrap_or(flextile::driver::DEFAULT_STACK_LIMIT),
        },
        max_isl_operations: cli.max_isl_operations,
        max_dependence_operations: cli
            .max_dependence_operations
            .unwrap_or(cli.max_isl_operations),
        report: cli.report,
        emit_mdg,
        templates,
        fatal_warnings: cli.fatal_warnings,
        summary,
        dep_file,
    })
}

/// Checks the overlapped-tiling options that need another option or
/// exclude one.
fn check_overlap_options(cli: &Cli) -> Result<(), String> {
    if cli.tile_sizes.is_some() && !(cli.tile || cli.rectangle || cli.scalene) {
        return Err("--tile-sizes needs --tile, --rectangle or --scalene".into());
    }
    if cli.overlap_dims.is_some() && !(cli.rectangle || cli.scalene) {
        return Err("--overlap-dims needs --rectangle or --scalene".into());
    }
    if cli.overlap_dims.as_ref().is_some_and(|d| d.is_empty()) {
        return Err("--overlap-dims needs at least one loop".into());
    }
    if let Some(dims) = &cli.overlap_dims {
        if let Some(d) = dims
            .iter()
            .enumerate()
            .find_map(|(i, d)| dims[..i].contains(d).then_some(d))
        {
            return Err(format!(
                "--overlap-dims names loop {d} twice; name each loop once"
            ));
        }
    }
    if cli.overlap_tolerance.is_some() && !(cli.rectangle || cli.scalene) {
        return Err("--overlap-tolerance needs --rectangle or --scalene".into());
    }
    if cli.grouping.is_some() && !(cli.rectangle || cli.scalene) {
        return Err("--grouping needs --rectangle or --scalene".into());
    }
    if matches!(cli.grouping, Some(GroupingArg::None)) && cli.overlap_tolerance.is_some() {
        return Err("--overlap-tolerance bounds the groups of --grouping greedy; --grouping none forms none".into());
    }
    if matches!(cli.grouping, Some(GroupingArg::Dp)) && cli.overlap_tolerance.is_some() {
        return Err("--overlap-tolerance bounds the groups of --grouping greedy; --grouping dp weighs the overlap in its cost model".into());
    }
    Ok(())
}

/// The grouping of overlapped tiles: the user's, or the cost model's
/// unless the user chose greedy's parameters.
fn grouping(cli: &Cli) -> GroupingStrategy {
    // The model groups and sizes overlapped tiles unless the user chose
    // sizes, a tolerance or partial overlap (greedy's parameters).
    match cli.grouping {
        Some(GroupingArg::None) => GroupingStrategy::None,
        Some(GroupingArg::Dp) => GroupingStrategy::Dp,
        Some(GroupingArg::Greedy) => GroupingStrategy::Greedy,
        // For CUDA the GPU cost model (Jangda & Guha, PACT'20, §6) costs the groups.
        None if cli.tile_sizes.is_none()
            && cli.overlap_tolerance.is_none()
            && cli.overlap_dims.is_none() =>
        {
            GroupingStrategy::Dp
        }
        None => GroupingStrategy::Greedy,
    }
}

/// Checks the cost model's options against the grouping and target, and
/// reads its weights.
fn weights(cli: &Cli, grouping: GroupingStrategy) -> Result<Weights, String> {
    let model_options = !cli.estimate.is_empty()
        || cli.no_inline
        || cli.cores.is_some()
        || cli.cache_sizes.is_some()
        || cli.cost_weights.is_some();
    if model_options && !(grouping == GroupingStrategy::Dp && (cli.rectangle || cli.scalene)) {
        return Err("--estimate, --cores, --cache-sizes, --cost-weights and --no-inline are read by the cost model of --grouping dp (the default of --rectangle and --scalene without --tile-sizes, --overlap-tolerance or --overlap-dims)".into());
    }
    if cuda_output(cli)
        && (cli.cores.is_some() || cli.cache_sizes.is_some() || cli.cost_weights.is_some())
    {
        return Err("--cores, --cache-sizes and --cost-weights are read by the CPU's cost model; for CUDA the GPU cost model reads --gpu".into());
    }
    Ok(match cli.cost_weights.as_deref() {
        None => flextile::transform::cost::CALIBRATED,
        Some(&[w1, w2, w3, w4]) if [w1, w2, w3, w4].iter().all(|w| w.is_finite() && *w >= 0.0) => {
            Weights { w1, w2, w3, w4 }
        }
        Some(w) => {
            return Err(format!(
                "invalid --cost-weights {w:?}: it takes four non-negative numbers W1,W2,W3,W4"
            ))
        }
    })
}

/// Checks the tiling options' values and what they apply to.
fn check_tiling_options(cli: &Cli) -> Result<(), String> {
    if let Some(t) = cli.overlap_tolerance {
        if !(t >= 0.0 && t.is_finite()) {
            return Err(format!(
                "invalid overlap tolerance {t}: it must be a non-negative number"
            ));
        }
    }
    if cli.no_intra_tile_fusion && !(cli.rectangle || cli.scalene) {
        return Err(
            "--no-intra-tile-fusion applies to overlapped tiling (--rectangle or --scalene)".into(),
        );
    }
    if cli.no_multi_level && !cli.scalene {
        return Err("--no-multi-level applies to --scalene (rectangle tiles run their stages row by row already)".into());
    }
    if cli.point_chunk.is_some() && !cli.rectangle {
        return Err("--point-chunk needs --rectangle (scalene tiles run their stages one after another already)".into());
    }
    if cli.stack_limit.is_some() && !cli.rectangle && !cli.scalene {
        return Err(
            "--stack-limit needs --rectangle or --scalene (only overlapped tiles have scratchpads)"
                .into(),
        );
    }
    if let Some(c) = cli.point_chunk.filter(|c| *c < 0) {
        return Err(format!(
            "invalid point chunk {c}: it must be a positive number of points, or 0"
        ));
    }
    if let Some(c) = cli.point_chunk.filter(|c| *c > MAX_SIZE) {
        return Err(format!(
            "point chunk {c} is too large: at most {MAX_SIZE} (2^40), so that the generated loop counters cannot overflow"
        ));
    }
    Ok(())
}

/// Checks `--tile-sizes`' values.
fn check_tile_sizes(cli: &Cli) -> Result<(), String> {
    if let Some(sizes) = &cli.tile_sizes {
        if let Some(bad) = sizes.iter().find(|s| **s < 1) {
            return Err(format!(
                "invalid tile size {bad}: tile sizes must be positive"
            ));
        }
        if sizes.is_empty() {
            return Err("--tile-sizes needs at least one tile size".into());
        }
        if let Some(big) = sizes.iter().find(|s| **s > MAX_SIZE) {
            return Err(format!(
                "tile size {big} is too large: at most {MAX_SIZE} (2^40), so that the generated loop counters cannot overflow"
            ));
        }
    }
    Ok(())
}

/// Checks `--verify`'s arguments and names the dependency file of `-MD`/`-MF`.
fn dep_file(cli: &Cli) -> Result<Option<PathBuf>, String> {
    let stdout = cli.output == Path::new("-");
    if cli.verify && stdout {
        return Err("--verify needs an output file to build (not -o -)".into());
    }
    if !cli.run_args.is_empty() && !cli.verify {
        return Err(format!(
            "the arguments after -- ('{}') are for the programs --verify runs; add --verify",
            cli.run_args.join(" ")
        ));
    }
    Ok(match (&cli.mf, cli.md) {
        (Some(f), _) => Some(f.clone()),
        (None, true) if stdout => {
            return Err("-MD with -o - needs -MF FILE to name the dependency file".into())
        }
        (None, true) => Some(flextile::files::default_dependency_file(&cli.output)),
        (None, false) => None,
    })
}

/// `--templates DIR`: a directory whose every `.tera` file has the path of
/// one of flextile's templates (a misspelt one would be ignored).
fn templates_dir(cli: &Cli) -> Result<Option<PathBuf>, String> {
    let Some(dir) = &cli.templates else {
        return Ok(None);
    };
    if !dir.is_dir() {
        return Err(format!("--templates {}: no such directory", dir.display()));
    }
    let known: Vec<&str> = flextile::backend::templates::template_paths().collect();
    for file in tera_files(dir, dir)? {
        if !known.contains(&file.as_str()) {
            return Err(format!(
                "--templates {}: {file} is not one of flextile's templates ({})",
                dir.display(),
                known.join(", ")
            ));
        }
    }
    Ok(Some(dir.clone()))
}

/// The `.tera` files under `at`, by their paths from `root` (`/`-separated).
fn tera_files(root: &Path, at: &Path) -> Result<Vec<String>, String> {
    let entries =
        std::fs::read_dir(at).map_err(|e| format!("--templates {}: {e}", at.display()))?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|e| format!("--templates {}: {e}", at.display()))?
            .path();
        if path.is_dir() {
            files.extend(tera_files(root, &path)?);
        } else if path.extension().is_some_and(|e| e == "tera") {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let parts: Vec<String> = rel
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            files.push(parts.join("/"));
        }
    }
    Ok(files)
}

/// The target: the user's, or the output file's extension.
fn target(cli: &Cli) -> Target {
    match cli.target {
        Some(TargetArg::C) => Target::C,
        Some(TargetArg::Cuda) => Target::Cuda,
        None if cli.output.extension().is_some_and(|e| e == "cu") => Target::Cuda,
        None => Target::C,
    }
}

/// The CUDA back end's options, checked against the target and the tiling.
struct GpuOptions {
    block_sizes: Option<[u32; 2]>,
    gpu_tiling: Option<GpuTiling>,
    reg_fraction: Option<f64>,
    gpu: &'static occupancy::Gpu,
}

/// Checks the options that are for one target only and reads the CUDA ones.
fn gpu_options(cli: &Cli, target: Target) -> Result<GpuOptions, String> {
    if cli.stack_limit.is_some() && target == Target::Cuda {
        return Err(format!(
            "--stack-limit is for C output: a CUDA tile's scratchpads live in the block's shared memory ({} bytes)",
            flextile::backend::cuda::SHARED_BYTES
        ));
    }
    if cli.no_openmp && target == Target::Cuda {
        return Err(
            "--no-openmp is for C output: CUDA output maps the parallel loops onto the GPU".into(),
        );
    }
    let block_sizes = match &cli.block_sizes {
        None => None,
        Some(_) if target != Target::Cuda => {
            return Err("--block-sizes is for CUDA output (--target cuda, or an output named *.cu)".into())
        }
        Some(b) => match b.as_slice() {
            [x, y] if *x >= 1 && *y >= 1 && u64::from(*x) * u64::from(*y) <= 1024 => {
                Some([*x, *y])
            }
            _ => {
                return Err(format!(
                    "invalid --block-sizes {}: two positive sizes X,Y with X*Y at most 1024 (CUDA's limit of threads per block)",
                    b.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(",")
                ))
            }
        },
    };
    let gpu_tiling = match cli.gpu_tiling {
        None => None,
        Some(_) if target != Target::Cuda => {
            return Err("--gpu-tiling is for CUDA output (--target cuda, or an output named *.cu)".into())
        }
        Some(_) if !cli.rectangle && !cli.scalene => {
            return Err("--gpu-tiling chooses how overlapped tiles (--rectangle, --scalene) map onto the GPU; give one of them".into())
        }
        Some(GpuTilingArg::Block) => Some(GpuTiling::Block),
        Some(GpuTilingArg::Warp) => Some(GpuTiling::Warp),
        Some(GpuTilingArg::Hybrid) => Some(GpuTiling::Hybrid),
        Some(GpuTilingArg::Auto) => None,
    };
    let reg_fraction = match cli.reg_fraction {
        None => None,
        Some(_) if target != Target::Cuda => {
            return Err("--reg-fraction is for CUDA output (--target cuda, or an output named *.cu)".into())
        }
        Some(_) if matches!(gpu_tiling, Some(GpuTiling::Block | GpuTiling::Warp)) => {
            return Err("--reg-fraction sizes the register part of hybrid tiles: give it with --gpu-tiling hybrid or auto".into())
        }
        Some(_) if !cli.rectangle && !cli.scalene => {
            return Err("--reg-fraction sizes the register part of overlapped tiles (--rectangle, --scalene); give one of them".into())
        }
        Some(f) if f > 0.0 && f <= 1.0 => Some(f),
        Some(f) => return Err(format!("invalid --reg-fraction {f}: a fraction above 0 and at most 1")),
    };
    // A register fraction alone asks for hybrid tiles.
    let gpu_tiling = match (cli.gpu_tiling, reg_fraction) {
        (None, Some(_)) => Some(GpuTiling::Hybrid),
        _ => gpu_tiling,
    };
    let gpu = match cli.gpu {
        Some(_) if target != Target::Cuda => {
            return Err("--gpu is for CUDA output (--target cuda, or an output named *.cu)".into())
        }
        None => occupancy::DEFAULT_GPU,
        Some(arch) => {
            let name = match arch {
                GpuArg::Sm80 => "sm_80",
                GpuArg::Sm90 => "sm_90",
            };
            occupancy::gpu(name).ok_or_else(|| format!("no limits known for {name}"))?
        }
    };
    Ok(GpuOptions {
        block_sizes,
        gpu_tiling,
        reg_fraction,
        gpu,
    })
}

/// The arguments for libclang: `-I`, `-D`, `-std` and `-fno-strict-aliasing`.
fn clang_args(cli: &Cli) -> Vec<String> {
    let mut clang_args: Vec<String> = cli.include.iter().map(|i| format!("-I{i}")).collect();
    clang_args.extend(cli.define.iter().map(|d| format!("-D{d}")));
    if let Some(std) = &cli.std {
        clang_args.push(format!("-std={std}"));
    }
    if cli.no_strict_aliasing {
        clang_args.push("-fno-strict-aliasing".to_string());
    }
    clang_args
}

/// Checks `--assume`'s constraints and joins them into one.
fn assume(cli: &Cli) -> Result<Option<String>, String> {
    for a in &cli.assume {
        if let Some(why) = flextile::model::polyhedral::assume_syntax_error(a) {
            return Err(format!("cannot read --assume '{a}': {why}"));
        }
    }
    Ok(if cli.assume.is_empty() {
        None
    } else {
        Some(
            cli.assume
                .iter()
                .map(|a| format!("({a})"))
                .collect::<Vec<_>>()
                .join(" and "),
        )
    })
}

/// The options that shape the output, for its banner (not paths or logging).
fn banner_options() -> String {
    let mut summary = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--" => break,
            "-o" | "-MF" | "--cc" | "--cflags" | "--emit" => {
                args.next();
            }
            "--dump-schedule" | "--report" | "--explain" | "--fatal-warnings" | "-v" | "-vv"
            | "-MD" | "--verify" => {}
            _ if a.starts_with("-MF")
                || a.starts_with("-R")
                || a.starts_with("--cc=")
                || a.starts_with("--cflags=")
                || a.starts_with("--emit=") => {}
            "--tile-sizes"
            | "--assume"
            | "--target"
            | "--block-sizes"
            | "--gpu-tiling"
            | "--reg-fraction"
            | "--gpu"
            | "--overlap-dims"
            | "--overlap-tolerance"
            | "--grouping"
            | "--cache-sizes"
            | "--cost-weights"
            | "--cores"
            | "--estimate"
            | "--point-chunk"
            | "--max-isl-operations"
            | "--max-dependence-operations"
            | "--temporary"
            | "-I"
            | "-D" => {
                let value = args.next().unwrap_or_default();
                summary.push(format!("{a} {value}"));
            }
            _ if a.starts_with('-') => summary.push(a),
            _ => {}
        }
    }
    summary.join(" ")
}
