#!/usr/bin/env python3
"""Launch shapes and ptxas figures of flextile's CUDA output, without a GPU.

For each benchmark and CUDA variant (default, --tile, --rectangle and
--scalene with the GPU cost model's mapping, --rectangle with
--gpu-tiling block, warp and hybrid, --scalene with hybrid and all of a
tile in registers that can be): flextile writes the .cu (--report); nvcc
compiles it for sm_90
with --fmad=false and -Xptxas -v (registers per thread, static shared
memory per block, per kernel); and the host code is built as C++ against
the CPU emulation of CUDA with a launch seam (FT_LAUNCH) that records each
kernel's grid and block instead of running it, then run at the benchmark's
size, so that the grids are those of that size (a kernel launched with
several grids shows each). Beside ptxas's registers, the occupancy flextile's
--report predicts for sm_90 from the launch shape (threads and shared memory
per block) and the most registers per thread that keep it: where ptxas uses
more, registers bound the kernel below the prediction. For an overlapped
kernel, the GPU cost model's choice as --report prints it (scheme, its
estimated registers and occupancy); the last line gives the error of the
register estimate against ptxas over those kernels. Prints one markdown
table.

nvcc is $NVCC, else .deps/cuda/nvidia/cu13/bin/nvcc (make deps); g++ is $CXX;
flextile is $FLEXTILE, else target/release/flextile.

Usage: bench/cuda_shapes.py [--size PRESET] [--only PROG,...] [--per-kernel N] [--variants REGEX]
  --per-kernel N: a row per kernel for outputs of at most N kernels
  (default 12), one summary row (ranges) for larger ones.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
PROGRAMS = ["unsharp-mask", "harris", "bilateral-grid", "camera-pipeline", "multiscale-interp",
            "pyramid-blend", "local-laplacian", "minifluxdiv", "heat-1d", "heat-2d", "heat-3d",
            "jacobi-2d"]
VARIANTS = [("default", []), ("--tile", ["--tile"]), ("--rectangle", ["--rectangle"]),
            ("--scalene", ["--scalene"]),
            ("--rectangle --gpu-tiling block", ["--rectangle", "--gpu-tiling", "block"]),
            ("--rectangle --gpu-tiling warp", ["--rectangle", "--gpu-tiling", "warp"]),
            ("--rectangle --gpu-tiling hybrid", ["--rectangle", "--gpu-tiling", "hybrid"]),
            ("--scalene --gpu-tiling hybrid --reg-fraction 1",
             ["--scalene", "--gpu-tiling", "hybrid", "--reg-fraction", "1"])]
# flextile's --report: the occupancy a kernel's launch shape allows on sm_90,
# and the most registers per thread that keep it.
OCCUPANCY_RE = re.compile(r"^  (\S+): .*occupancy on sm_90 \([^)]*\): \d+ block\(s\) per SM, "
                          r"\d+ of \d+ warps \((\d+)%\), bound by ([a-z ]+?) while a thread takes "
                          r"at most (\d+) registers")
# --report's GPU cost model line (after its kernel's line).
MODEL_RE = re.compile(r"^    GPU cost model: .* one tile per (block|warp)(?: \(hybrid[^)]*\))? .*estimated (\d+) bytes of shared "
                      r"memory and (\d+) registers per thread \((\d+) statements, (\d+) reads at most\), "
                      r"\d+ block\(s\) per SM, occupancy (\d+)%")

# FT_LAUNCH records the launch (once per kernel, grid and block) and runs nothing.
TRACE_H = r"""
#include "%s"
#undef FT_LAUNCH
#include <set>
#include <string>
static std::set<std::string> ft_shapes_seen;
#define FT_LAUNCH(kernel, grid, block, shared, ...) do { dim3 g_ = grid, b_ = block; \
  std::string k_ = std::string(#kernel) + " " + std::to_string(g_.x) + "x" + std::to_string(g_.y) \
    + " " + std::to_string(b_.x) + "x" + std::to_string(b_.y); \
  if (ft_shapes_seen.insert(k_).second) fprintf(stderr, "FT_SHAPE %%s\n", k_.c_str()); } while (0)
"""


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def ptxas(nvcc, cu, work, include=BENCH):
    """Per kernel name: (registers, shared bytes) from ptxas -v; or an error line."""
    r = run([nvcc, "-c", "-arch=sm_90", "--fmad=false", "-Xptxas", "-v", "-I", str(include),
             str(cu), "-o", str(work / "k.o")])
    if r.returncode:
        return None, r.stderr.strip().splitlines()[-1:] or ["nvcc failed"]
    out, name = {}, None
    for line in r.stderr.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            k = re.search(r"ft_kernel\d+[a-z]*_\d+", m.group(1))
            name = k.group(0) if k else m.group(1)
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and name:
            smem = re.search(r"(\d+) bytes smem", line)
            out[name] = (int(m.group(1)), int(smem.group(1)) if smem else 0)
    return out, None


def shapes(cu, work, size):
    """Per kernel name: the (grid, block) launches at `size`; or an error line."""
    h = work / "shapes.h"
    h.write_text(TRACE_H % (ROOT / "testsuite/cuda/emulate.h"))
    exe = work / "shapes"
    r = run([os.environ.get("CXX", "g++"), "-O1", "-std=gnu++17", "-fopenmp", "-x", "c++",
             "-include", str(h), "-I", str(BENCH), str(cu), "-o", str(exe), "-lm"])
    if r.returncode:
        return None, r.stderr.strip().splitlines()[:1]
    r = run([str(exe), "--size", size, "--reps", "1"], timeout=600)
    out = {}
    for line in r.stderr.splitlines():
        if line.startswith("FT_SHAPE "):
            k, grid, block = line.split()[1:]
            out.setdefault(k, []).append((grid, block))
    return out, None


def model_lines(report):
    """Per overlapped kernel of a --report, the GPU cost model's (scheme,
    estimated registers, occupancy %, statements, reads, estimated shared bytes)."""
    model, last = {}, None
    for line in report.splitlines():
        m, o = MODEL_RE.match(line), OCCUPANCY_RE.match(line)
        if o:
            last = o.group(1)
        elif m and last:
            scheme = "hybrid" if "(hybrid" in line else m.group(1)
            model[last] = (scheme, int(m.group(3)), int(m.group(6)), int(m.group(4)),
                           int(m.group(5)), int(m.group(2)))
    return model


def span(values):
    values = sorted(set(values))
    return str(values[0]) if len(values) == 1 else f"{values[0]}-{values[-1]}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="bench")
    ap.add_argument("--only")
    ap.add_argument("--per-kernel", type=int, default=12)
    ap.add_argument("--variants", help="only the variants whose name matches this regex")
    a = ap.parse_args()
    nvcc = os.environ.get("NVCC", str(ROOT / ".deps/cuda/nvidia/cu13/bin/nvcc"))
    flextile = os.environ.get("FLEXTILE", str(ROOT / "target/release/flextile"))
    progs = a.only.split(",") if a.only else PROGRAMS
    print("| benchmark | variant | kernel | block | grid (x by y) | registers | shared memory (bytes) "
          "| occupancy (sm_90, predicted) | registers it allows | GPU cost model: scheme, registers, occupancy |")
    print("|---|---|---|---|---|---:|---:|---|---:|---|")
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for p in progs:
            for name, opts in VARIANTS:
                if a.variants and not re.search(a.variants, name):
                    continue
                cu = work / f"{p}.cu"
                r = run([str(flextile), str(BENCH / f"{p}.c"), "-I", str(BENCH), "-o", str(cu),
                         "--report"] + opts)
                if r.returncode:
                    err = next((l for l in r.stderr.splitlines() if ": error: " in l), "refused")
                    err = err.split(": error: ", 1)[-1]
                    print(f"| {p} | {name} | refused: {err} | | | | | | | |")
                    continue
                occ = {m.group(1): (int(m.group(2)), m.group(3), int(m.group(4)))
                       for m in map(OCCUPANCY_RE.match, r.stdout.splitlines()) if m}
                model = model_lines(r.stdout)
                regs, e1 = ptxas(nvcc, cu, work)
                grids, e2 = shapes(cu, work, a.size)
                if e1 or e2:
                    print(f"| {p} | {name} | failed: {(e1 or e2)[0]} | | | | | | | |")
                    continue
                kernels = sorted(set(regs) | set(grids), key=lambda k: [(len(x), x) for x in k.split("_")])
                if len(kernels) <= a.per_kernel:
                    for k in kernels:
                        launches = grids.get(k, [])
                        g = ", ".join(sorted({x for x, _ in launches})) or "not launched"
                        b = ", ".join(sorted({y for _, y in launches})) or "-"
                        rr, sm = regs.get(k, ("?", "?"))
                        pct, bound, allow = occ.get(k, ("?", "?", "?"))
                        mo = model.get(k)
                        mc = f"{mo[0]}, {mo[1]}, {mo[2]}%" if mo else ""
                        print(f"| {p} | {name} | {k} | {b} | {g} | {rr} | {sm} | {pct}% ({bound}) | {allow} | {mc} |")
                else:
                    blocks = {y for v in grids.values() for _, y in v}
                    cells = [int(x.split("x")[0]) * int(x.split("x")[1]) for v in grids.values() for x, _ in v]
                    print(f"| {p} | {name} | {len(kernels)} kernels | {', '.join(sorted(blocks))} | "
                          f"{span(cells) if cells else '-'} blocks | {span(r for r, _ in regs.values())} | "
                          f"{span(s for _, s in regs.values())} | "
                          f"{span(o[0] for o in occ.values()) if occ else '?'}% | "
                          f"{span(o[2] for o in occ.values()) if occ else '?'} | "
                          f"{len(model)} costed: {', '.join(sorted({m[0] for m in model.values()}))}"
                          f"{', ' + span(m[1] for m in model.values()) + ' registers' if model else ''} |")
                errors.extend((mo[1], regs[k][0]) for k, mo in model.items() if k in regs)
                if os.environ.get("REG_DATA"):
                    with open(os.environ["REG_DATA"], "a") as f:
                        for k, mo in model.items():
                            if k in regs:
                                f.write(f"{p} {name} {k} {mo[0]} {mo[3]} {mo[4]} {regs[k][0]}\n")
                sys.stdout.flush()
    if errors:
        absolute = [abs(e - m) for e, m in errors]
        print(f"\nRegister estimate of the GPU cost model against ptxas over {len(errors)} overlapped kernels: "
              f"mean absolute error {sum(absolute) / len(absolute):.1f} registers, "
              f"mean relative error {100 * sum(a / m for a, (_, m) in zip(absolute, errors)) / len(errors):.0f}%, "
              f"{sum(e < m for e, m in errors)} under, {sum(e > m for e, m in errors)} over.")


if __name__ == "__main__":
    main()
