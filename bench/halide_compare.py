#!/usr/bin/env python3
"""Halide reference points for two image-pipeline benchmarks: unsharp-mask and harris.

What it measures: the kernels of benchmarks/unsharp-mask.c and benchmarks/harris.c
written again in Halide's Python API (Halide 21, the `halide` PyPI wheel), with the
same input (Appendix A formula, the same padded/ghost-zone layout), the same float32
arithmetic in the same order (stencil weights, additions left to right, no FMA
contraction: the target carries `strict_float`, like gcc's -ffp-contract=off
-fno-fast-math), and the same output domain. Each pipeline is scheduled

  * by the autoschedulers shipped in the wheel (Adams2019, Mullapudi2016, Li2018;
    each gets parallelism = the thread count; Mullapudi2016 also the machine's
    last-level cache size read from sysfs), one row each; one that fails is reported
    as failed;
  * by hand: row strips in parallel, the first stage (blurx / Ix, Iy) computed per
    output row inside the strip (line buffers), the other stages inlined, the
    innermost (contiguous) loop vectorized by the target's natural float32 width.

Every schedule is JIT-compiled for the host target (compile time is not timed) and
its output is compared with the C original's output (--dump) at the same size:
the table reports the maximum absolute difference and whether it is bit-identical.
Times: the C original (the naive program, built with bench/run.py's flags, its own
`time_ms median`) and each Halide schedule (wall time of Pipeline.realize into a
preallocated output buffer; Halide allocates its intermediates inside, as part of
the run), HL_NUM_THREADS / OMP_NUM_THREADS = --threads, interleaved over --rounds
rounds of --reps runs each; the table shows the median over all runs.

Run: python3 bench/halide_compare.py [--size bench|test|paper|AxB] [--threads 2]
         [--rounds 3] [--reps 5] [--only unsharp-mask,harris] [--fast-float]
     (--fast-float: without strict_float, Halide's default float semantics; not
     comparable with the C flags, for information only)
Needs the wheel in bench/.halide (git-ignored):
    python3 -m pip install --target bench/.halide halide
"""
import argparse
import fractions
import importlib.metadata
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BENCH_DIR = os.path.join(ROOT, "benchmarks")
HALIDE_DIR = os.path.join(HERE, ".halide")
CFLAGS = ["-O3", "-march=native", "-fopenmp", "-ffp-contract=off", "-fno-fast-math",
          "-std=gnu99", "-Wno-unknown-pragmas", "-I", BENCH_DIR]
TIME_RE = re.compile(r"time_ms min=([0-9.]+) median=([0-9.]+)")

# Size presets of the C programs (their `sizes` structs): rows x cols.
SIZES = {
    "unsharp-mask": {"test": (128, 96), "bench": (2048, 2048), "paper": (2048, 2048)},
    "harris": {"test": (130, 98), "bench": (2832, 4256), "paper": (6400, 6400)},
}


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", default="bench")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="unsharp-mask,harris")
    ap.add_argument("--schedules", default="Adams2019,Mullapudi2016,Li2018,hand")
    ap.add_argument("--fast-float", action="store_true",
                    help="leave out strict_float: Halide's default float semantics (FMA contraction, ...)")
    return ap.parse_args()


ARGS = parse_args()
# Before Halide's runtime starts its thread pool.
os.environ["HL_NUM_THREADS"] = str(ARGS.threads)
sys.path.insert(0, HALIDE_DIR)
import numpy as np  # noqa: E402  (the wheel's dependency, installed next to it)
import halide as hl  # noqa: E402


def c_float(literal):
    """hl.f32 of a C float literal, rounded once from the decimal (as gcc does),
    not through a double."""
    exact = fractions.Fraction(literal)
    f = np.float32(float(exact))
    cands = [np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))]
    best = min(cands, key=lambda c: (abs(fractions.Fraction(float(c)) - exact),
                                     int(np.frombuffer(c.tobytes(), np.uint32)[0]) & 1))
    return hl.f32(float(best))


def u8(c, X, Y):
    """Appendix A input, u8(c,X,Y) = (31X + 17Y + 71c + (X*Y mod 13)) mod 256."""
    return (31 * X + 17 * Y + 71 * c + (X * Y) % 13) % 256


# ---- unsharp mask ------------------------------------------------------------
# C: img[c][x][y] (y contiguous) -> Halide img(y, x, c). Logical coordinates are
# the padded ones; the output is mask(y-2, x-2, c) on [0,C) x [0,R) x [0,3).

def unsharp_input(R, C):
    img = np.zeros((3, R + 4, C + 4), np.float32)
    X, Y = np.meshgrid(np.arange(R), np.arange(C), indexing="ij")
    for c in range(3):
        img[c, 2:R + 2, 2:C + 2] = u8(c, X, Y).astype(np.float32) / np.float32(255.0)
    return img


def unsharp_pipeline(R, C):
    img = hl.ImageParam(hl.Float(32), 3, "img")
    y, x, c = hl.Var("y"), hl.Var("x"), hl.Var("c")
    w0, w1, w2 = c_float("0.0625"), c_float("0.25"), c_float("0.375")
    threshold, weight = c_float("0.001"), c_float("3.0")
    wpos, wneg = hl.f32(1.0) + weight, -weight  # folded to 4.0f and -3.0f, as in C
    blurx, blury, sharpen, mask, out = (hl.Func(n) for n in ("blurx", "blury", "sharpen", "mask", "out"))
    blurx[y, x, c] = (img[y, x - 2, c] * w0 + img[y, x - 1, c] * w1 + img[y, x, c] * w2
                      + img[y, x + 1, c] * w1 + img[y, x + 2, c] * w0)
    blury[y, x, c] = (blurx[y - 2, x, c] * w0 + blurx[y - 1, x, c] * w1 + blurx[y, x, c] * w2
                      + blurx[y + 1, x, c] * w1 + blurx[y + 2, x, c] * w0)
    sharpen[y, x, c] = img[y, x, c] * wpos + blury[y, x, c] * wneg
    mask[y, x, c] = hl.select(hl.abs(img[y, x, c] - blury[y, x, c]) < threshold,
                              img[y, x, c], sharpen[y, x, c])
    out[y, x, c] = mask[y + 2, x + 2, c]
    img.set_estimates([hl.Range(0, C + 4), hl.Range(0, R + 4), hl.Range(0, 3)])
    out.set_estimates([hl.Range(0, C), hl.Range(0, R), hl.Range(0, 3)])
    funcs = dict(img=img, blurx=blurx, blury=blury, sharpen=sharpen, mask=mask, out=out,
                 y=y, x=x, c=c)
    return out, funcs, [C, R, 3]


def unsharp_hand(f, vec):
    out, blurx, y, x, c = f["out"], f["blurx"], f["y"], f["x"], f["c"]
    xo, xi, t = hl.Var("xo"), hl.Var("xi"), hl.Var("t")
    # Strips of 32 rows per (channel, strip) task; one row of blurx (a vertical blur,
    # so no overlap between rows) per output row; blury, sharpen, mask inlined
    # (blury's two uses are one common subexpression).
    out.split(x, xo, xi, 32).fuse(xo, c, t).parallel(t).vectorize(y, vec)
    blurx.compute_at(out, xi).vectorize(y, vec)


# ---- harris ------------------------------------------------------------------
# C: img[x][y] on (R+2) x (C+2) -> Halide img(y, x); output harris(y-2, x-2) on
# [0,C-2) x [0,R-2).

def harris_input(rows, cols):
    X, Y = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    return np.ascontiguousarray(u8(0, X, Y).astype(np.float32) / np.float32(255.0))


def harris_pipeline(R, C):
    img = hl.ImageParam(hl.Float(32), 2, "img")
    y, x = hl.Var("y"), hl.Var("x")
    a, b = c_float("0.0833333333333"), c_float("0.166666666667")
    na, nb = c_float("-0.0833333333333"), c_float("-0.166666666667")
    k = c_float("0.04")
    F = {n: hl.Func(n) for n in ("Iy", "Ix", "Iyy", "Ixy", "Ixx", "Syy", "Sxy", "Sxx",
                                 "trace", "det", "harris", "out")}
    # C's Iy[x][y] / Ix[x][y] term by term, (x,y) -> (y,x).
    F["Iy"][y, x] = (img[y - 1, x - 1] * na + img[y + 1, x - 1] * a
                     + img[y - 1, x] * nb + img[y + 1, x] * b
                     + img[y - 1, x + 1] * na + img[y + 1, x + 1] * a)
    F["Ix"][y, x] = (img[y - 1, x - 1] * na + img[y - 1, x + 1] * a
                     + img[y, x - 1] * nb + img[y, x + 1] * b
                     + img[y + 1, x - 1] * na + img[y + 1, x + 1] * a)
    F["Iyy"][y, x] = F["Iy"][y, x] * F["Iy"][y, x]
    F["Ixy"][y, x] = F["Ix"][y, x] * F["Iy"][y, x]
    F["Ixx"][y, x] = F["Ix"][y, x] * F["Ix"][y, x]

    def box(g):  # C order: [x-1][y-1], [x-1][y], [x-1][y+1], [x][y-1], ... left to right
        e = None
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                t = g[y + dy, x + dx]
                e = t if e is None else e + t
        return e

    F["Syy"][y, x] = box(F["Iyy"])
    F["Sxy"][y, x] = box(F["Ixy"])
    F["Sxx"][y, x] = box(F["Ixx"])
    F["trace"][y, x] = F["Sxx"][y, x] + F["Syy"][y, x]
    F["det"][y, x] = F["Sxx"][y, x] * F["Syy"][y, x] - F["Sxy"][y, x] * F["Sxy"][y, x]
    F["harris"][y, x] = F["det"][y, x] - (k * F["trace"][y, x]) * F["trace"][y, x]
    F["out"][y, x] = F["harris"][y + 2, x + 2]
    img.set_estimates([hl.Range(0, C + 2), hl.Range(0, R + 2)])
    F["out"].set_estimates([hl.Range(0, C - 2), hl.Range(0, R - 2)])
    F.update(img=img, y=y, x=x)
    return F["out"], F, [C - 2, R - 2]


def harris_hand(f, vec):
    out, Ix, Iy, y, x = f["out"], f["Ix"], f["Iy"], f["y"], f["x"]
    xo, xi = hl.Var("xo"), hl.Var("xi")
    # Strips of 32 rows in parallel; Ix and Iy kept as a 3-row sliding window per
    # strip (one new row per output row, computed in one loop); products, box sums,
    # trace, det inlined (the apps/harris schedule of Halide's repository).
    out.split(x, xo, xi, 32).parallel(xo).vectorize(y, vec)
    for g in (Ix, Iy):
        g.store_at(out, xo).compute_at(out, xi).vectorize(y, vec)
    Ix.compute_with(Iy, y)


PIPES = {
    "unsharp-mask": (unsharp_pipeline, unsharp_hand,
                     lambda r, c: (r, c, unsharp_input(r, c))),
    "harris": (harris_pipeline, harris_hand,
               lambda rows, cols: (rows - 2, cols - 2, harris_input(rows, cols))),
}


# ---- machine, C original -----------------------------------------------------

def cache_bytes(level):
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for d in sorted(os.listdir(base)):
            p = os.path.join(base, d)
            with open(os.path.join(p, "level")) as fh:
                if int(fh.read()) != level:
                    continue
            with open(os.path.join(p, "type")) as fh:
                if fh.read().strip() == "Instruction":
                    continue
            with open(os.path.join(p, "size")) as fh:
                s = fh.read().strip()
            mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1], 1)
            return int(s.rstrip("KMG")) * mult
    except OSError:
        pass
    return None


def llc_bytes():
    return cache_bytes(3) or cache_bytes(2) or 16 << 20


def size_arg(prog):
    return "x".join(map(str, SIZES[prog][ARGS.size])) if ARGS.size in SIZES[prog] else ARGS.size


def build_c(prog, workdir):
    exe = os.path.join(workdir, prog)
    subprocess.run(["gcc"] + CFLAGS + ["-o", exe, os.path.join(BENCH_DIR, prog + ".c"), "-lm"],
                   check=True)
    return exe


def run_c(exe, reps, dump=None):
    env = dict(os.environ, OMP_NUM_THREADS=str(ARGS.threads))
    cmd = [exe, "--size", ARGS.size, "--reps", str(reps), "--threads", str(ARGS.threads)]
    if dump:
        cmd += ["--dump", dump]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                       check=True)
    return float(TIME_RE.search(r.stderr).group(2))


# ---- Halide schedules ----------------------------------------------------------

def make_schedule(prog, sched, R, C, target):
    """(Pipeline, its input ImageParam, output sizes, note, JIT seconds): the schedule
    applied and JIT-compiled."""
    pipe_fn, hand_fn, _ = PIPES[prog]
    out, funcs, shape = pipe_fn(R, C)
    p = hl.Pipeline(out)
    note = ""
    if sched == "hand":
        hand_fn(funcs, target.natural_vector_size(hl.Float(32)))
    else:
        params = {"parallelism": str(ARGS.threads)}
        if sched == "Mullapudi2016":
            params["last_level_cache_size"] = str(llc_bytes())
        hl.load_plugin(os.path.join(HALIDE_DIR, "halide", "lib64",
                                    f"libautoschedule_{sched.lower()}.so"))
        p.apply_autoscheduler(target, hl.AutoschedulerParams(sched, params))
        note = ", ".join(f"{k}={v}" for k, v in params.items())
    t0 = time.perf_counter()
    p.compile_jit(target)
    return p, funcs["img"], shape, note, time.perf_counter() - t0


def main():
    target = hl.get_host_target()
    if not ARGS.fast_float:
        target = target.with_feature(hl.TargetFeature.StrictFloat)
    gcc = subprocess.run(["gcc", "--version"], stdout=subprocess.PIPE, text=True).stdout.splitlines()[0]
    print(f"# Halide {importlib.metadata.version('halide')} vs the C originals")
    print(f"target {target}; {ARGS.threads} thread(s); size preset {ARGS.size}; "
          f"{ARGS.rounds} rounds x {ARGS.reps} runs, median; L2 {cache_bytes(2)} B, "
          f"LLC {llc_bytes()} B; C: gcc {' '.join(CFLAGS[:-2])} ({gcc})", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for prog in ARGS.only.split(","):
            rows_, cols_ = SIZES[prog].get(ARGS.size) or tuple(map(int, ARGS.size.split("x")))
            R, C, img = PIPES[prog][2](rows_, cols_)
            exe = build_c(prog, work)
            dump = os.path.join(work, prog + ".out")
            run_c(exe, 1, dump)
            ref = np.fromfile(dump, np.float32)
            in_buf = hl.Buffer(img)
            scheds = {}
            for s in ARGS.schedules.split(","):
                try:
                    scheds[s] = make_schedule(prog, s, R, C, target)
                except Exception as e:  # noqa: BLE001  (report and go on)
                    rows.append((prog, s, None, f"failed: {str(e).strip().splitlines()[0][:120]}"))
            results = {}
            for s, (p, img_param, shape, note, jit_s) in scheds.items():
                out = hl.Buffer(hl.Float(32), shape)
                img_param.set(in_buf)
                p.realize(out)  # warm-up (and first-run allocations)
                got = np.array(out, copy=True).reshape(-1)  # numpy order: [c][x][y] like C
                if got.shape != ref.shape:
                    results[s] = (out, f"shape {got.shape} vs C {ref.shape}", [])
                    continue
                diff = float(np.max(np.abs(got.astype(np.float64) - ref.astype(np.float64))))
                same = int(np.count_nonzero(got.view(np.uint32) == ref.view(np.uint32)))
                check = ("bit-identical" if same == ref.size
                         else f"max |diff| {diff:.3g}, {ref.size - same} of {ref.size} differ")
                results[s] = (out, f"{check}; JIT {jit_s:.1f} s" + (f"; {note}" if note else ""), [])
            c_times = []
            for _ in range(ARGS.rounds):
                c_times.append(run_c(exe, ARGS.reps))
                for s, (p, img_param, *_rest) in scheds.items():
                    out, _, ts = results[s]
                    img_param.set(in_buf)
                    for _ in range(ARGS.reps):
                        t0 = time.perf_counter()
                        p.realize(out)
                        ts.append((time.perf_counter() - t0) * 1e3)
            rows.append((prog, "C naive original (gcc)", statistics.median(c_times),
                         f"median of {ARGS.rounds} runs' medians of {ARGS.reps}"))
            for s in scheds:
                _, check, ts = results[s]
                label = "Halide hand" if s == "hand" else f"Halide auto {s}"
                rows.append((prog, label, statistics.median(ts) if ts else None, check))
            print(f"   {prog} done", file=sys.stderr, flush=True)
    print()
    print(f"| pipeline | schedule | ms, {ARGS.threads} threads | output check vs C / notes |")
    print("|---|---|---:|---|")
    for prog, s, ms, note in rows:
        print(f"| {prog} | {s} | {'' if ms is None else f'{ms:.2f}'} | {note} |")



if __name__ == "__main__":
    main()
