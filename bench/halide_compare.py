#!/usr/bin/env python3
"""Halide reference points for the image-pipeline benchmarks: unsharp-mask, harris,
bilateral-grid, camera-pipeline, pyramid-blend, multiscale-interp, local-laplacian.

What it measures: the kernels of benchmarks/<name>.c written again in Halide's Python
API (Halide 21, the `halide` PyPI wheel), stage by stage, with the same input
(Appendix A formulas, the same padded/ghost-zone layout), the same arithmetic in the
same order (float32 stencil weights, additions left to right, C's int promotion,
truncating division and int16/uint8/uint16 stores, no FMA contraction: the target
carries `strict_float`, like gcc's -ffp-contract=off -fno-fast-math), the same
boundary values (a Func is 0 outside the domain its C stage writes wherever C reads
that zero frame) and the same output domain. Where C calls libm: camera-pipeline's
powf(x, 0.5f) is written sqrt (glibc gives the same value on every LUT argument;
Halide's pow_f32 is its own approximation); local-laplacian's 3585-entry remap LUT
(stage 1, expf) is computed with glibc's expf outside Halide and passed in as an
input, since Halide's exp_f32 differs from expf (126 outputs off by 1 at test size
otherwise); every other stage is a Halide Func. Each pipeline is scheduled

  * by the autoschedulers shipped in the wheel (Adams2019, Mullapudi2016, Li2018;
    each gets parallelism = the thread count; Mullapudi2016 also the machine's
    last-level cache size read from sysfs), one row each; one that fails is reported
    as failed;
  * by hand, simply: output row strips in parallel, the innermost (contiguous) loop
    vectorized by the target's natural float32 width (int16 stages twice that).
    unsharp-mask, harris: the first stage (blurx / Ix, Iy) per output row inside the
    strip (line buffers), the rest inlined. bilateral-grid: the grid and its blurs at
    the root (parallel over cell rows), the slice per output row. camera-pipeline: the
    LUT and matrix at the root, the half-resolution stages per strip, the rest
    inlined. pyramid-blend, multiscale-interp, local-laplacian: the coarser pyramid
    levels at the root (rows in parallel), row passes per row of their consumer,
    level 0 per strip (see each *_hand function).

Every schedule is JIT-compiled for the host target (compile time is not timed) and
its output is compared with the C original's output (--dump) at the same size:
the table reports the maximum absolute difference and whether it is bit-identical.
Times: the C original (the naive program, built with bench/run.py's flags, its own
`time_ms median`) and each Halide schedule (wall time of Pipeline.realize into a
preallocated output buffer; Halide allocates its intermediates inside, as part of
the run), HL_NUM_THREADS / OMP_NUM_THREADS = --threads, interleaved over --rounds
rounds of --reps runs each; the table shows the median over all runs.

Run: python3 bench/halide_compare.py [--size bench|test|paper|AxB] [--threads 2]
         [--rounds 3] [--reps 5] [--only unsharp-mask,harris,...] [--no-time]
         [--schedules Adams2019,Mullapudi2016,Li2018,hand] [--fast-float]
     (--only: default all seven; --no-time: the output checks only, no timing runs;
     --fast-float: without strict_float, Halide's default float semantics; not
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
    "bilateral-grid": {"test": (256, 192), "bench": (2560, 1536), "paper": (2560, 1536)},
    "camera-pipeline": {"test": (256, 384), "bench": (1968, 2592), "paper": (1968, 2592)},
    "pyramid-blend": {"test": (256, 256), "bench": (2048, 2048), "paper": (2048, 2048)},
    "multiscale-interp": {"test": (1024, 512), "bench": (2560, 1536), "paper": (2560, 1536)},
    "local-laplacian": {"test": (256, 384), "bench": (2560, 1536), "paper": (2560, 1536)},
}


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", default="bench")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default=",".join(SIZES))
    ap.add_argument("--schedules", default="Adams2019,Mullapudi2016,Li2018,hand")
    ap.add_argument("--no-time", action="store_true",
                    help="output check only: no timing runs (C run once, for --dump)")
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
    funcs = dict(inputs=[img], blurx=blurx, blury=blury, sharpen=sharpen, mask=mask, out=out,
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
    F.update(inputs=[img], y=y, x=x)
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


# ---- shared helpers for the larger pipelines ------------------------------------

def tdiv(a, b):
    """C's integer division (truncating toward zero); Halide's / rounds down."""
    return hl.div_round_to_zero(a, b)


def strips(out, x, rows, par_vars=()):
    """Hand-schedule skeleton: rows of `out` in strips of `rows`, the strips (fused with
    the outer dimensions in par_vars) in parallel.  Returns (strip var, row-in-strip
    var); the caller vectorizes."""
    xo, xi = hl.Var("xo"), hl.Var("xi")
    out.split(x, xo, xi, rows)
    t = xo
    for v in par_vars:
        nt = hl.Var("t" + str(v))
        out.fuse(t, v, nt)
        t = nt
    out.parallel(t)
    return t, xi


def root_rows(f, x, y, vec):
    """compute_root, rows in parallel, the innermost (contiguous) dimension vectorized."""
    f.compute_root().parallel(x).vectorize(y, vec)


# ---- bilateral grid --------------------------------------------------------------
# C: input[x][y] on R x C (R = rows+56, C = cols+56, clamp-to-edge padded 24/32) ->
# Halide inp(y, x); grid[c][i][j][z] -> grid(z, j, i, c); interp[c][x][y] ->
# interp(y, x, c); output out(y-24, x-24) on [0,cols) x [0,rows).

def bilateral_input(rows, cols):
    X, Y = np.meshgrid(np.clip(np.arange(rows + 56) - 24, 0, rows - 1),
                       np.clip(np.arange(cols + 56) - 24, 0, cols - 1), indexing="ij")
    return rows + 56, cols + 56, [np.ascontiguousarray(
        u8(0, X, Y).astype(np.float32) / np.float32(255.0))]


def bilateral_pipeline(R, C):
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    rows, cols = R - 56, C - 56  # grid cells i in [1, (R-1)/8 - 1], j likewise
    y, x, c, z, j, i = (hl.Var(n) for n in ("y", "x", "c", "z", "j", "i"))
    F = {n: hl.Func(n) for n in ("grid", "blurz", "blurx", "blury", "interp", "out")}
    f4, f6, f10, half, eight = hl.f32(4.0), hl.f32(6.0), hl.f32(10.0), hl.f32(0.5), hl.f32(8.0)
    # 1-2: the histogram; per cell (i, j) the 9x9 window in C's order (a outer, b inner:
    # RDom's first dimension is the inner loop), so every bin sums in the same order.
    # clamp(zb, 2, 12) changes no value (v in [0, 1]); it bounds the scatter for Halide.
    g = F["grid"]
    g[z, j, i, c] = hl.f32(0.0)
    r = hl.RDom([hl.Range(0, 9), hl.Range(0, 9)], "r")
    v = inp[8 * j - 4 + r.x, 8 * i - 4 + r.y]
    zb = hl.clamp(2 + hl.i32(v * f10 + half), 2, 12)
    g[zb, j, i, c] = g[zb, j, i, c] + hl.select(c == 0, v, hl.f32(1.0))

    def blur5(h, args):  # h(-2) + 4 h(-1) + 6 h(0) + 4 h(+1) + h(+2), left to right
        return (h(args(-2)) + f4 * h(args(-1)) + f6 * h(args(0)) + f4 * h(args(1))
                + h(args(2)))

    F["blurz"][z, j, i, c] = blur5(lambda a: g[a], lambda d: (z + d, j, i, c))
    F["blurx"][z, j, i, c] = blur5(lambda a: F["blurz"][a], lambda d: (z, j, i + d, c))
    # blury(13) is read (z1 = 13 for v == 1.0, weight 0) and is 0 in C (never written).
    F["blury"][z, j, i, c] = hl.select(
        z <= 12, blur5(lambda a: F["blurx"][a], lambda d: (z, j + d, i, c)), hl.f32(0.0))
    # 6: trilinear slice; coarse cell i = x/8, a = x%8 (x >= 0).
    B = F["blury"]
    vv = inp[y, x]
    zv = vv * f10
    zi = hl.i32(zv)
    zf = zv - hl.f32(zi)
    xf, yf = hl.f32(x % 8) / eight, hl.f32(y % 8) / eight
    ci, cj = x / 8, y / 8
    z0, z1 = hl.clamp(2 + zi, 2, 12), hl.clamp(2 + zi + 1, 3, 13)

    def lerp2(zz):
        p0 = B[zz, cj, ci, c] + xf * (B[zz, cj, ci + 1, c] - B[zz, cj, ci, c])
        p1 = B[zz, cj + 1, ci, c] + xf * (B[zz, cj + 1, ci + 1, c] - B[zz, cj + 1, ci, c])
        return p0 + yf * (p1 - p0)

    l0, l1 = lerp2(z0), lerp2(z1)
    F["interp"][y, x, c] = l0 + zf * (l1 - l0)
    it = F["interp"]
    F["out"][y, x] = hl.select(it[y + 24, x + 24, 1] > hl.f32(0.0),
                               it[y + 24, x + 24, 0] / it[y + 24, x + 24, 1], inp[y + 24, x + 24])
    inp.set_estimates([hl.Range(0, C), hl.Range(0, R)])
    F["out"].set_estimates([hl.Range(0, cols), hl.Range(0, rows)])
    F.update(inputs=[inp], y=y, x=x, c=c, z=z, j=j, i=i)
    return F["out"], F, [cols, rows]


def bilateral_hand(f, vec):
    out, y, x, c, z, j, i = (f[k] for k in ("out", "y", "x", "c", "z", "j", "i"))
    # The grid (1/8 resolution) and its blurs at the root, in parallel over cell rows
    # (the histogram's update too: each (i, j) cell is written by its own iterations
    # only); the slice per output row inside strips of 32 rows.
    f["grid"].compute_root().parallel(i)
    f["grid"].update().parallel(i)
    for n in ("blurz", "blurx", "blury"):
        f[n].compute_root().parallel(i).vectorize(z, 8)
    _, xi = strips(out, x, 32)
    out.vectorize(y, vec)
    f["interp"].compute_at(out, xi).vectorize(y, vec)


# ---- camera pipeline -------------------------------------------------------------
# C: img[x][y] int16 R x C -> Halide img(y, x); every stage f[x][y] -> f(y, x); int16
# arrays are Funcs of type int16 (values computed in int, stored by a cast, as in C);
# process[c][x-12][y-16] -> out(y, x, c) on [0,C-64) x [0,R-48) x [0,3), uint8.

# The C tables: float arrays initialised from double literals (np.float32 of the double
# rounds the same way).  Module-level: hl.Buffer wraps this memory without a copy.
CAM_M3200 = np.array([1.6697, -0.2693, -0.4004, -42.4346, -0.3576, 1.0615, 1.5949, -37.1158,
                      -0.2175, -1.8751, 6.9640, -26.6970], np.float32).reshape(3, 4)
CAM_M7000 = np.array([2.2997, -0.4478, 0.1706, -39.0923, -0.3826, 1.5906, -0.2080, -25.4311,
                      -0.0888, -0.7344, 2.2832, -20.0826], np.float32).reshape(3, 4)


def camera_input(R, C):
    X, Y = np.meshgrid(np.arange(R), np.arange(C), indexing="ij")
    return R, C, [np.ascontiguousarray(((37 * X + 11 * Y + (X * Y) % 29) % 1024).astype(np.int16))]


def camera_pipeline(R, C):
    img = hl.ImageParam(hl.Int(16), 2, "img")
    y, x, c, j, i = (hl.Var(n) for n in ("y", "x", "c", "j", "i"))
    names = ("denoised", "g_gr", "g_gb", "r_r", "b_b", "g_r", "g_b", "r_gr", "r_gb", "r_b",
             "b_r", "b_gr", "b_gb", "redX2", "redX1", "blueX2", "blueX1", "greenX2",
             "greenX1", "red", "blue", "green", "matrix", "corr", "curve", "out")
    F = {n: hl.Func(n) for n in names}
    I = lambda f, yy, xx: hl.i32(F[f][yy, xx])  # noqa: E731  (C's int promotion)
    im = lambda yy, xx: hl.i32(img[yy, xx])  # noqa: E731
    # 1: hot-pixel clamp
    mn = hl.min(hl.min(im(y, x - 2), im(y, x + 2)), hl.min(im(y - 2, x), im(y + 2, x)))
    mx = hl.max(hl.max(im(y, x - 2), im(y, x + 2)), hl.max(im(y - 2, x), im(y + 2, x)))
    F["denoised"][y, x] = hl.i16(hl.max(mn, hl.min(mx, im(y, x))))
    d = F["denoised"]
    # 2-7, 10, 11: deinterleave (deint[k][x][y] = denoised[2x + k/2][2y + k%2]) and copies
    F["g_gr"][y, x] = d[2 * y, 2 * x]
    F["r_r"][y, x] = d[2 * y + 1, 2 * x]
    F["b_b"][y, x] = d[2 * y, 2 * x + 1]
    F["g_gb"][y, x] = d[2 * y + 1, 2 * x + 1]

    def pick(h, hd, v, vd):  # (hd < vd) ? h : v  on int, stored int16
        return hl.i16(hl.select(hd < vd, h, v))

    # 8, 9: green at the red and blue sites
    F["g_r"][y, x] = pick(tdiv(I("g_gr", y + 1, x) + I("g_gr", y, x), 2),
                          hl.abs(I("g_gr", y + 1, x) - I("g_gr", y, x)),
                          tdiv(I("g_gb", y, x - 1) + I("g_gb", y, x), 2),
                          hl.abs(I("g_gb", y, x - 1) - I("g_gb", y, x)))
    F["g_b"][y, x] = pick(tdiv(I("g_gb", y - 1, x) + I("g_gb", y, x), 2),
                          hl.abs(I("g_gb", y - 1, x) - I("g_gb", y, x)),
                          tdiv(I("g_gr", y, x + 1) + I("g_gr", y, x), 2),
                          hl.abs(I("g_gr", y, x + 1) - I("g_gr", y, x)))

    def corr3(gc, g, r, a, b):  # gc - (g(a) + g(b))/2 + (r(a) + r(b))/2
        return (I(gc, y, x) - tdiv(I(g, *a) + I(g, *b), 2) + tdiv(I(r, *a) + I(r, *b), 2))

    # 12-17 (C's [x][y] offsets turned into (y, x))
    F["r_gr"][y, x] = hl.i16(corr3("g_gr", "g_r", "r_r", (y, x), (y - 1, x)))
    F["r_gb"][y, x] = hl.i16(corr3("g_gb", "g_r", "r_r", (y, x), (y, x + 1)))
    F["r_b"][y, x] = pick(corr3("g_b", "g_r", "r_r", (y, x), (y - 1, x + 1)),
                          hl.abs(I("r_r", y, x) - I("r_r", y - 1, x + 1)),
                          corr3("g_b", "g_r", "r_r", (y - 1, x), (y, x + 1)),
                          hl.abs(I("r_r", y - 1, x) - I("r_r", y, x + 1)))
    F["b_r"][y, x] = pick(corr3("g_r", "g_b", "b_b", (y, x), (y + 1, x - 1)),
                          hl.abs(I("b_b", y, x) - I("b_b", y + 1, x - 1)),
                          corr3("g_r", "g_b", "b_b", (y + 1, x), (y, x - 1)),
                          hl.abs(I("b_b", y + 1, x) - I("b_b", y, x - 1)))
    F["b_gr"][y, x] = hl.i16(corr3("g_gr", "g_b", "b_b", (y, x), (y, x - 1)))
    F["b_gb"][y, x] = hl.i16(corr3("g_gb", "g_b", "b_b", (y, x), (y + 1, x)))
    # 18-23: interleave in y (even y = 2*yh: first source), 24-26: in x (even: X1)
    for n, even, odd in (("redX2", "r_b", "r_gb"), ("redX1", "r_gr", "r_r"),
                         ("blueX2", "b_b", "b_gb"), ("blueX1", "b_gr", "b_r"),
                         ("greenX2", "g_b", "g_gb"), ("greenX1", "g_gr", "g_r")):
        F[n][y, x] = hl.select(y % 2 == 0, F[even][y / 2, x], F[odd][y / 2, x])
    for n in ("red", "blue", "green"):
        F[n][y, x] = hl.select(x % 2 == 0, F[n + "X1"][y, x / 2], F[n + "X2"][y, x / 2])
    # 27: colour matrix
    m3200, m7000 = hl.Buffer(CAM_M3200, "matrix_3200"), hl.Buffer(CAM_M7000, "matrix_7000")
    colour_temp = hl.f32(3700.0)  # contrast 50 and gamma 2: see the curve
    alpha = ((hl.f32(1.0) / colour_temp) - c_float("0.0003125")) / c_float("-0.000169642857143")
    F["matrix"][j, i] = hl.i32((m3200[j, i] * alpha + m7000[j, i] * (hl.f32(1.0) - alpha))
                               * hl.f32(256.0))
    M = F["matrix"]
    # 28-30: output channel c uses matrix row 2-c; C's truncating division by 256
    F["corr"][y, x, c] = hl.i16(tdiv(M[3, 2 - c] + M[0, 2 - c] * I("red", y, x)
                                     + M[1, 2 - c] * I("green", y, x)
                                     + M[2, 2 - c] * I("blue", y, x), 256))
    # 31: the tone curve, i in [-32768, 32767].  powf(xf, 1/gamma) with gamma = 2 is
    # powf(xf, 0.5f), which glibc returns equal to sqrtf(xf) on every xf = i/1024 in
    # [0, 1] (checked); Halide's pow_f32 is its own approximation (differs on 376 of
    # those), so sqrt here.  2 - powf(2, contrast/100) = 2 - sqrtf(2) likewise.
    one = hl.f32(1.0)
    xf = hl.f32(i) / hl.f32(1024.0)
    xf = hl.select(one < xf, one, xf)
    xf = hl.select(hl.f32(0.0) > xf, hl.f32(0.0), xf)
    gg = hl.sqrt(xf)
    bb = hl.f32(2.0) - hl.sqrt(hl.f32(2.0))  # contrast / 100 = 0.5
    aa = hl.f32(2.0) - hl.f32(2.0) * bb
    zz = hl.select(gg > hl.f32(0.5),
                   one - ((aa * (one - gg)) * (one - gg) + bb * (one - gg)),
                   (aa * gg) * gg + bb * gg)
    s = zz * hl.f32(256.0)
    s = hl.select(s > hl.f32(0.0), s, hl.f32(0.0))
    s = hl.select(s < hl.f32(255.0), s, hl.f32(255.0))
    F["curve"][i] = hl.u8(s)
    # 32
    F["out"][y, x, c] = F["curve"][hl.i32(F["corr"][y + 16, x + 12, c])]
    img.set_estimates([hl.Range(0, C), hl.Range(0, R)])
    F["out"].set_estimates([hl.Range(0, C - 64), hl.Range(0, R - 48), hl.Range(0, 3)])
    F.update(inputs=[img], y=y, x=x, c=c, i=i)
    return F["out"], F, [C - 64, R - 48, 3]


def camera_hand(f, vec):
    out, y, x, c = f["out"], f["y"], f["x"], f["c"]
    v16 = 2 * vec  # int16 lanes
    # LUT and matrix at the root; strips of 32 output rows in parallel, the channel loop
    # inside; every half-resolution stage and the denoised image computed per strip,
    # the interleaves, red/green/blue and corr inlined.
    f["curve"].compute_root().vectorize(f["i"], vec)
    f["matrix"].compute_root()
    t, xi = strips(out, x, 32)
    out.reorder(y, c, xi, t).vectorize(y, vec)
    f["denoised"].compute_at(out, t).vectorize(y, v16)
    for n in ("g_gr", "g_gb", "r_r", "b_b", "g_r", "g_b", "r_gr", "r_gb", "r_b", "b_r",
              "b_gr", "b_gb"):
        f[n].compute_at(out, t).vectorize(y, v16)


# ---- pyramid blend ---------------------------------------------------------------
# C: img1/img2[c][x][y], mask[x][y] (rows x cols) -> Halide (y, x, c) / (y, x); every
# level array f[c][x][y] -> f(y, x, c); logical padded coordinates as in C; output
# out(y, x, c) = blend(y+31, x+31, c) on [0,cols) x [0,rows) x [0,3).

def pyramid_input(rows, cols):
    X, Y = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    img1 = np.stack([u8(c, X, Y) for c in range(3)]).astype(np.float32) / np.float32(255.0)
    img2 = np.stack([u8(c + 3, X, Y) for c in range(3)]).astype(np.float32) / np.float32(255.0)
    mask = np.where(X >= rows // 2 - 1, np.float32(1.0), np.float32(0.0)).astype(np.float32)
    return rows, cols, [np.ascontiguousarray(a) for a in (img1, img2, mask)]


def pyramid_pipeline(rows, cols):
    img1 = hl.ImageParam(hl.Float(32), 3, "img1")
    img2 = hl.ImageParam(hl.Float(32), 3, "img2")
    mask = hl.ImageParam(hl.Float(32), 2, "mask")
    R3, C3 = (rows + 60) // 8, (cols + 60) // 8
    y, x, c = hl.Var("y"), hl.Var("x"), hl.Var("c")
    f4, f6, w16, w8 = hl.f32(4.0), hl.f32(6.0), hl.f32(0.0625), hl.f32(0.125)
    F = {}

    def func(name, expr_fn, chan=True):
        f = hl.Func(name)
        if chan:
            f[y, x, c] = expr_fn(lambda g, yy, xx: g[yy, xx, c])
        else:
            f[y, x] = expr_fn(lambda g, yy, xx: g[yy, xx])
        F[name] = f
        return f

    def pad(src):
        cy, cx = hl.clamp(y - 31, 0, 8 * C3 - 57), hl.clamp(x - 31, 0, 8 * R3 - 57)
        return lambda at: at(src, cy, cx)

    def down_rows(g):  # (g(2x-2) + 4 g(2x-1) + 6 g(2x) + 4 g(2x+1) + g(2x+2)) / 16
        return lambda at: (at(g, y, 2 * x - 2) + f4 * at(g, y, 2 * x - 1) + f6 * at(g, y, 2 * x)
                           + f4 * at(g, y, 2 * x + 1) + at(g, y, 2 * x + 2)) * w16

    def down_cols(g):
        return lambda at: (at(g, 2 * y - 2, x) + f4 * at(g, 2 * y - 1, x) + f6 * at(g, 2 * y, x)
                           + f4 * at(g, 2 * y + 1, x) + at(g, 2 * y + 2, x)) * w16

    def up_rows(g):  # x = 2xh-1 (odd): (4 g(xh-1) + 4 g(xh))/8; x = 2xh: (g(xh-1) + 6 g(xh) + g(xh+1))/8
        q = x / 2
        return lambda at: hl.select(
            x % 2 == 1, (f4 * at(g, y, q) + f4 * at(g, y, q + 1)) * w8,
            (at(g, y, q - 1) + f6 * at(g, y, q) + at(g, y, q + 1)) * w8)

    def up_cols(g):
        q = y / 2
        return lambda at: hl.select(
            y % 2 == 1, (f4 * at(g, q, x) + f4 * at(g, q + 1, x)) * w8,
            (at(g, q - 1, x) + f6 * at(g, q, x) + at(g, q + 1, x)) * w8)

    # 1-3
    func("pad1", pad(img1))
    func("pad2", pad(img2))
    func("padm", pad(mask), chan=False)
    # 4-21: Gaussian pyramids
    for s, base, chan in (("a", "pad1", True), ("b", "pad2", True), ("m", "padm", False)):
        prev = F[base]
        for lvl in (1, 2, 3):
            dx = func(f"dx{s}{lvl}", down_rows(prev), chan)
            prev = func(f"g{s}{lvl}", down_cols(dx), chan)
    # 22-33: Laplacian pyramids, l = g_l - up_cols(up_rows(g_{l+1}))
    for s, base in (("a", "pad1"), ("b", "pad2")):
        for lvl in (0, 1, 2):
            fine = F[base] if lvl == 0 else F[f"g{s}{lvl}"]
            ux = func(f"ux{s}{lvl}", up_rows(F[f"g{s}{lvl + 1}"]))
            uc = up_cols(ux)
            func(f"l{s}{lvl}", lambda at, fine=fine, uc=uc: at(fine, y, x) - uc(at))
    # 34-37: blend
    for lvl in (0, 1, 2, 3):
        la, lb = (F[f"la{lvl}"], F[f"lb{lvl}"]) if lvl < 3 else (F["ga3"], F["gb3"])
        m = F["padm"] if lvl == 0 else F[f"gm{lvl}"]
        func(f"res{lvl}", lambda at, la=la, lb=lb, m=m:
             at(la, y, x) * m[y, x] + at(lb, y, x) * (hl.f32(1.0) - m[y, x]))
    # 38-43: collapse
    prev = F["res3"]
    for lvl, cx_name, col_name in ((2, "cx2", "col2"), (1, "cx1", "col1"), (0, "bx", "blend")):
        cx = func(cx_name, up_rows(prev))
        uc = up_cols(cx)
        prev = func(col_name, lambda at, r=F[f"res{lvl}"], uc=uc: at(r, y, x) + uc(at))
    out = hl.Func("out")
    out[y, x, c] = F["blend"][y + 31, x + 31, c]
    F["out"] = out
    for p in (img1, img2):
        p.set_estimates([hl.Range(0, cols), hl.Range(0, rows), hl.Range(0, 3)])
    mask.set_estimates([hl.Range(0, cols), hl.Range(0, rows)])
    out.set_estimates([hl.Range(0, cols), hl.Range(0, rows), hl.Range(0, 3)])
    F.update(inputs=[img1, img2, mask], y=y, x=x, c=c)
    return out, F, [cols, rows, 3]


def pyramid_hand(f, vec):
    out, y, x, c = f["out"], f["y"], f["x"], f["c"]
    # Level 0 in strips of 32 output rows (channels fused with the strips, in
    # parallel): the column up-sampler bx of each strip computed per strip, the
    # padding, Laplacian and blend of level 0 inlined.  Every coarser Func (the
    # pyramids' row and column passes, levels 1-3) at the root, rows in parallel,
    # vectorized; the level-0 row pass dx*1 per row of its consumer g*1.
    t, xi = strips(out, x, 32, par_vars=(c,))
    out.vectorize(y, vec)
    f["bx"].compute_at(out, t).vectorize(y, vec)
    for s in ("a", "b", "m"):
        for lvl in (1, 2, 3):
            root_rows(f[f"g{s}{lvl}"], x, y, vec)
            f[f"dx{s}{lvl}"].compute_at(f[f"g{s}{lvl}"], x).vectorize(y, vec)
    for n in ("uxa0", "uxb0"):
        f[n].compute_at(out, t).vectorize(y, vec)
    for n in ("uxa1", "uxb1", "uxa2", "uxb2", "la1", "lb1", "la2", "lb2", "res1", "res2",
              "res3", "cx2", "col2", "cx1", "col1"):
        root_rows(f[n], x, y, vec)


# ---- multiscale interpolation ----------------------------------------------------
# C: img[c][x-1][y-1] (4 x R x C) -> Halide img(y, x, c); level arrays f[c][x][y] ->
# f(y, x, c) in C's logical coordinates (interior [1, R_l] x [1, C_l], a 1-wide frame
# that no stage writes: 0, and some stages read it, so each level Func is 0 outside
# the domain C writes); out(y, x, c) = i0(y+1, x+1, c) / i0(y+1, x+1, 3).

def multiscale_input(R, C):
    X, Y = np.meshgrid(np.arange(R), np.arange(C), indexing="ij")
    ch = []
    for c in range(4):
        v = u8(c, X, Y)
        ch.append((v if c < 3 else 128 + v % 128).astype(np.float32) / np.float32(255.0))
    return R, C, [np.ascontiguousarray(np.stack(ch))]


def multiscale_pipeline(R, C):
    img = hl.ImageParam(hl.Float(32), 3, "img")
    y, x, c = hl.Var("y"), hl.Var("x"), hl.Var("c")
    zero, two, quarter = hl.f32(0.0), hl.f32(2.0), hl.f32(0.25)
    F = {}

    def func(name, expr, nrows, ncols):
        f = hl.Func(name)
        inside = (x >= 1) & (x <= nrows) & (y >= 1) & (y <= ncols)
        f[y, x, c] = hl.select(inside, expr, zero)
        F[name] = f
        return f

    # 1-2: bordered (0 on the ghost ring), d0 = bordered * bordered(3)
    bordered = func("bordered", img[hl.clamp(y - 1, 0, C - 1), hl.clamp(x - 1, 0, R - 1), c],
                    R, C)
    d = hl.Func("d0")
    d[y, x, c] = bordered[y, x, c] * bordered[y, x, 3]
    F["d0"], ds = d, [d]
    # 3-20: dx_l (rows, (a + 2b + c)/4), d_l (columns)
    for lvl in range(1, 10):
        Rl, Cl = R >> lvl, C >> lvl
        dx = func(f"dx{lvl}", (d[y, 2 * x - 2, c] + two * d[y, 2 * x - 1, c] + d[y, 2 * x, c])
                  * quarter, Rl, C >> (lvl - 1))
        d = func(f"d{lvl}", (dx[2 * y - 2, x, c] + two * dx[2 * y - 1, x, c] + dx[2 * y, x, c])
                 * quarter, Rl, Cl)
        ds.append(d)
    # 21-48: i9 = d9; ux_l(x) = (i(xh) + i(xh'))/2 with xh = (x+1)/2, xh' = (x+2)/2
    # (x = 2xh-1: xh twice; x = 2xh: xh, xh+1); uy_l likewise; i_l = d_l + (1 - d_l(3)) uy_l
    it = func("i9", ds[9][y, x, c], R >> 9, C >> 9)
    for lvl in range(8, -1, -1):
        Rl, Cl = R >> lvl, C >> lvl
        ux = func(f"ux{lvl}", (it[y, (x + 1) / 2, c] + it[y, (x + 2) / 2, c]) / two,
                  Rl, C >> (lvl + 1))
        uy = func(f"uy{lvl}", (ux[(y + 1) / 2, x, c] + ux[(y + 2) / 2, x, c]) / two, Rl, Cl)
        dl = ds[lvl]
        it = func(f"i{lvl}", dl[y, x, c] + (hl.f32(1.0) - dl[y, x, 3]) * uy[y, x, c], Rl, Cl)
    out = hl.Func("out")
    out[y, x, c] = it[y + 1, x + 1, c] / it[y + 1, x + 1, 3]
    F["out"] = out
    img.set_estimates([hl.Range(0, C), hl.Range(0, R), hl.Range(0, 4)])
    out.set_estimates([hl.Range(0, C), hl.Range(0, R), hl.Range(0, 3)])
    F.update(inputs=[img], y=y, x=x, c=c)
    return out, F, [C, R, 3]


def multiscale_hand(f, vec):
    out, y, x, c = f["out"], f["y"], f["x"], f["c"]
    # Every level's d_l and i_l at the root (rows in parallel, vectorized; the row pass
    # dx_l per row of d_l, the up-samplers ux_l per row of i_l, uy_l inlined); level 0
    # in strips of 32 output rows: i0 per output row (all 4 channels, the division
    # reads channel 3), d0, bordered and the level-0 up-samplers inlined / per row.
    for lvl in range(1, 10):
        root_rows(f[f"d{lvl}"], x, y, vec)
        f[f"dx{lvl}"].compute_at(f[f"d{lvl}"], x).vectorize(y, vec)
    for lvl in range(1, 10):
        root_rows(f[f"i{lvl}"], x, y, vec)
        if lvl <= 8:
            f[f"ux{lvl}"].compute_at(f[f"i{lvl}"], x).vectorize(y, vec)
    t, xi = strips(out, x, 32)
    out.reorder(y, c, xi, t).vectorize(y, vec)
    f["i0"].compute_at(out, xi).vectorize(y, vec)
    f["ux0"].compute_at(out, xi).vectorize(y, vec)


# ---- local Laplacian -------------------------------------------------------------
# C: img_colour[c][x-2][y-2] (uint16, 3 x R x C) -> Halide img(y, x, c); level arrays
# f[k][x][y] / f[x][y] -> f(y, x, k) / f(y, x) in C's logical coordinates (interior
# [2, R_l+1] x [2, C_l+1], a 2-wide frame: the interior-only stages are 0 outside it,
# as in C, where the frames are read); out(y, x, c) = cast(colour(y+2, x+2, c)).
# Stage 1 (the remap LUT, 3585 entries): see LL_REMAP_NOTE.

LL_REMAP_NOTE = ("remap LUT (stage 1) precomputed with glibc expf and passed in: Halide's "
                 "exp_f32 is its own approximation, not bit-equal to expf")


def ll_remap_table():
    """Stage 1 exactly as C computes it: float32 arithmetic, expf from the C library
    (the same libm, the same ifunc variant, as the C program's call)."""
    import ctypes
    import ctypes.util
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    libm.expf.restype, libm.expf.argtypes = ctypes.c_float, [ctypes.c_float]
    f32 = np.float32
    alpha = f32(1.0) / f32(7.0)
    tab = np.empty(3585, np.float32)
    for r in range(-1792, 1793):
        fx = f32(r) / f32(256.0)
        e = f32(libm.expf(float(((-fx) * fx) / f32(2.0))))
        tab[r + 1792] = (alpha * fx) * e
    return tab


def laplacian_input(R, C):
    X, Y = np.meshgrid(np.arange(R), np.arange(C), indexing="ij")
    img = np.stack([256 * u8(c, X, Y) for c in range(3)]).astype(np.uint16)
    return R, C, [np.ascontiguousarray(img), ll_remap_table()]


def laplacian_pipeline(R, C):
    img = hl.ImageParam(hl.UInt(16), 3, "img_colour")
    remap = hl.ImageParam(hl.Float(32), 1, "remap")  # remap(r) is remap[r + 1792]
    y, x, c, k = hl.Var("y"), hl.Var("x"), hl.Var("c"), hl.Var("k")
    zero, one = hl.f32(0.0), hl.f32(1.0)
    w3, w8, q1, q3 = hl.f32(3.0), hl.f32(0.125), hl.f32(0.25), hl.f32(0.75)
    F = {}
    L = 8  # levels 0..7

    def func(name, expr, nrows=None, ncols=None, chan=k):
        """f(y, x[, chan]) = expr, 0 outside the interior [2, nrows+1] x [2, ncols+1]
        when nrows is given (the stages C writes on the interior only)."""
        f = hl.Func(name)
        if nrows is not None:
            inside = (x >= 2) & (x <= nrows + 1) & (y >= 2) & (y <= ncols + 1)
            expr = hl.select(inside, expr, zero)
        if chan is None:
            f[y, x] = expr
        else:
            f[y, x, chan] = expr
        F[name] = f
        return f

    def down_rows(g, a):  # (g(2x-3) + 3 g(2x-2) + 3 g(2x-1) + g(2x)) / 8
        return (g[(y, 2 * x - 3) + a] + w3 * g[(y, 2 * x - 2) + a] + w3 * g[(y, 2 * x - 1) + a]
                + g[(y, 2 * x) + a]) * w8

    def down_cols(g, a):
        return (g[(2 * y - 3, x) + a] + w3 * g[(2 * y - 2, x) + a] + w3 * g[(2 * y - 1, x) + a]
                + g[(2 * y, x) + a]) * w8

    def up_rows(g, a):  # x = 2xh: .25 g(xh) + .75 g(xh+1); x = 2xh+1: .25 g(xh+2) + .75 g(xh+1)
        h = x / 2
        return hl.select(x % 2 == 0, q1 * g[(y, h) + a] + q3 * g[(y, h + 1) + a],
                         q1 * g[(y, h + 2) + a] + q3 * g[(y, h + 1) + a])

    def up_cols(g, a):
        h = y / 2
        return hl.select(y % 2 == 0, q1 * g[(h, x) + a] + q3 * g[(h + 1, x) + a],
                         q1 * g[(h + 2, x) + a] + q3 * g[(h + 1, x) + a])

    Rl = [R >> lv for lv in range(L)]
    Cl = [C >> lv for lv in range(L)]
    # 2-4
    fl = func("fl", hl.f32(img[hl.clamp(y - 2, 0, C - 1), hl.clamp(x - 2, 0, R - 1), c]),
              chan=c)
    cl = func("cl", fl[y, x, c], R, C, chan=c)
    gray = func("gray", ((c_float("0.299") * cl[y, x, 2] + c_float("0.587") * cl[y, x, 1])
                         + c_float("0.114") * cl[y, x, 0]) / hl.f32(65535.0), chan=None)
    # 5: g0 (full extent), LUT gather
    v = gray[y, x]
    idx = hl.clamp(hl.i32(v * hl.f32(1792.0)), 0, 1792)
    gk = hl.f32(k) * c_float("0.142857142857")
    beta = one
    g = func("g0", ((beta * (v - gk)) + gk) + remap[idx - 256 * k + 1792])
    gs = [g]
    # 6-26: gPyramid
    for lv in range(1, L):
        dx = func(f"dxg{lv}", down_rows(gs[-1], (k,)), Rl[lv], Cl[lv - 1])
        dg = func(f"dg{lv}", down_cols(dx, (k,)), Rl[lv], Cl[lv])
        gs.append(func(f"g{lv}", dg[y, x, k]))
    # 27-47: lPyramid
    lps = []
    for lv in range(L - 1):
        ux = func(f"uxl{lv}", up_rows(gs[lv + 1], (k,)), Rl[lv], Cl[lv + 1])
        uy = func(f"uyl{lv}", up_cols(ux, (k,)), Rl[lv], Cl[lv])
        lps.append(func(f"lp{lv}", gs[lv][y, x, k] - uy[y, x, k], Rl[lv], Cl[lv]))
    lps.append(gs[L - 1])
    # 48-68: inGPyramid (ig0 = gray)
    igs = [gray]
    for lv in range(1, L):
        dx = func(f"dxi{lv}", down_rows(igs[-1], ()), Rl[lv], Cl[lv - 1], chan=None)
        di = func(f"di{lv}", down_cols(dx, ()), Rl[lv], Cl[lv], chan=None)
        igs.append(func(f"ig{lv}", di[y, x], chan=None))
    # 69-76: outLPyramid (full extent)
    ols = []
    for lv in range(L):
        lev = igs[lv][y, x] * hl.f32(7.0)
        li = hl.clamp(hl.i32(lev), 0, 6)
        lf = lev - hl.f32(li)
        ols.append(func(f"ol{lv}", (one - lf) * lps[lv][y, x, li] + lf * lps[lv][y, x, li + 1],
                        chan=None))
    # 77-97: outGPyramid (og7 = ol7)
    og = ols[L - 1]
    for lv in range(L - 2, -1, -1):
        ux = func(f"uxo{lv}", up_rows(og, ()), Rl[lv], Cl[lv + 1], chan=None)
        uy = func(f"uyo{lv}", up_cols(ux, ()), Rl[lv], Cl[lv], chan=None)
        og = func(f"og{lv}", ols[lv][y, x] + uy[y, x], Rl[lv], Cl[lv], chan=None)
    # 98-99
    colour = func("colour", (og[y, x] * ((fl[y, x, c] / hl.f32(65535.0)) + c_float("0.01")))
                  / (gray[y, x] + c_float("0.01")), chan=c)
    t = colour[y + 2, x + 2, c]
    t = hl.select(t > zero, t, zero)
    t = hl.select(t < one, t, one)
    out = func("out", hl.u16(t * hl.f32(65535.0)), chan=c)
    img.set_estimates([hl.Range(0, C), hl.Range(0, R), hl.Range(0, 3)])
    remap.set_estimates([hl.Range(0, 3585)])
    out.set_estimates([hl.Range(0, C), hl.Range(0, R), hl.Range(0, 3)])
    F.update(inputs=[img, remap], y=y, x=x, c=c, k=k)
    return out, F, [C, R, 3]


def laplacian_hand(f, vec):
    out, y, x, c, k = f["out"], f["y"], f["x"], f["c"], f["k"]
    # Every pyramid level at the root (rows in parallel, vectorized; the row passes
    # dx*_l per row of their column pass, the row up-samplers per row of their
    # consumer, the column up-samplers and copies inlined); the output in strips of
    # 32 rows in parallel, og0 / gray per strip (the colour channels reuse them).
    for lv in range(1, 8):
        for d, dx in (("dg", "dxg"), ("di", "dxi")):
            root_rows(f[f"{d}{lv}"], x, y, vec)
            f[f"{dx}{lv}"].compute_at(f[f"{d}{lv}"], x).vectorize(y, vec)
    root_rows(f["gray"], x, y, vec)
    root_rows(f["g0"], x, y, vec)
    for lv in range(7):
        root_rows(f[f"lp{lv}"], x, y, vec)
        f[f"uxl{lv}"].compute_at(f[f"lp{lv}"], x).vectorize(y, vec)
    for lv in range(8):
        root_rows(f[f"ol{lv}"], x, y, vec)
    for lv in range(1, 7):
        root_rows(f[f"og{lv}"], x, y, vec)
        f[f"uxo{lv}"].compute_at(f[f"og{lv}"], x).vectorize(y, vec)
    t, xi = strips(out, x, 32)
    out.reorder(y, c, xi, t).vectorize(y, vec)
    f["og0"].compute_at(out, t).vectorize(y, vec)
    f["uxo0"].compute_at(out, t).vectorize(y, vec)


PIPES = {  # name: (pipeline(R, C), hand schedule, input(rows, cols) -> (R, C, [arrays]))
    "unsharp-mask": (unsharp_pipeline, unsharp_hand,
                     lambda r, c: (r, c, [unsharp_input(r, c)])),
    "harris": (harris_pipeline, harris_hand,
               lambda rows, cols: (rows - 2, cols - 2, [harris_input(rows, cols)])),
    "bilateral-grid": (bilateral_pipeline, bilateral_hand, bilateral_input),
    "camera-pipeline": (camera_pipeline, camera_hand, camera_input),
    "pyramid-blend": (pyramid_pipeline, pyramid_hand, pyramid_input),
    "multiscale-interp": (multiscale_pipeline, multiscale_hand, multiscale_input),
    "local-laplacian": (laplacian_pipeline, laplacian_hand, laplacian_input),
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

NOTES = {"local-laplacian": LL_REMAP_NOTE}  # shown in the pipeline's C row
NP_TYPES = {"float32": np.float32, "uint8": np.uint8, "uint16": np.uint16}


def make_schedule(prog, sched, R, C, target):
    """(Pipeline, its input ImageParams, output sizes and type, note, JIT seconds): the
    schedule applied and JIT-compiled."""
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
    return p, funcs["inputs"], (shape, out.type()), note, time.perf_counter() - t0


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
            R, C, imgs = PIPES[prog][2](rows_, cols_)
            exe = build_c(prog, work)
            dump = os.path.join(work, prog + ".out")
            run_c(exe, 1, dump)
            in_bufs = [hl.Buffer(a) for a in imgs]
            scheds = {}
            for s in ARGS.schedules.split(","):
                try:
                    scheds[s] = make_schedule(prog, s, R, C, target)
                except Exception as e:  # noqa: BLE001  (report and go on)
                    rows.append((prog, s, None, f"failed: {str(e).strip().splitlines()[0][:120]}"))
            results = {}
            for s, (p, params, (shape, otype), note, jit_s) in scheds.items():
                ref = np.fromfile(dump, NP_TYPES[str(otype)])
                out = hl.Buffer(otype, shape)
                for prm, b in zip(params, in_bufs):
                    prm.set(b)
                try:
                    p.realize(out)  # warm-up (and first-run allocations)
                except Exception as e:  # noqa: BLE001  (report and go on)
                    rows.append((prog, s, None,
                                 f"failed at run: {str(e).strip().splitlines()[0][:120]}"))
                    continue
                got = np.array(out, copy=True).reshape(-1)  # numpy order: [c][x][y] like C
                if got.shape != ref.shape:
                    results[s] = (out, f"shape {got.shape} vs C {ref.shape}", [])
                    continue
                diff = float(np.max(np.abs(got.astype(np.float64) - ref.astype(np.float64))))
                bits = f"u{ref.itemsize}"
                same = int(np.count_nonzero(got.view(bits) == ref.view(bits)))
                check = ("bit-identical" if same == ref.size
                         else f"max |diff| {diff:.3g}, {ref.size - same} of {ref.size} differ")
                results[s] = (out, f"{check}; JIT {jit_s:.1f} s" + (f"; {note}" if note else ""), [])
            c_times = []
            scheds = {s: v for s, v in scheds.items() if s in results}
            for _ in range(0 if ARGS.no_time else ARGS.rounds):
                c_times.append(run_c(exe, ARGS.reps))
                for s, (p, params, *_rest) in scheds.items():
                    out, _, ts = results[s]
                    for prm, b in zip(params, in_bufs):
                        prm.set(b)
                    for _ in range(ARGS.reps):
                        t0 = time.perf_counter()
                        p.realize(out)
                        ts.append((time.perf_counter() - t0) * 1e3)
            rows.append((prog, "C naive original (gcc)",
                         statistics.median(c_times) if c_times else None,
                         ("not timed (--no-time)" if ARGS.no_time
                          else f"median of {ARGS.rounds} runs' medians of {ARGS.reps}")
                         + (f"; {NOTES[prog]}" if prog in NOTES else "")))
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
