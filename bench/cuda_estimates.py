#!/usr/bin/env python3
"""The GPU cost model's estimates against ptxas on the testsuite (issue 21).

For each testsuite program's option sets with overlapped tiling (--rectangle,
--scalene) that also run as CUDA: flextile writes the .cu with --report,
which prints, per overlapped kernel, the GPU cost model's estimated
registers per thread and shared memory per block; nvcc compiles it for
sm_90 with -Xptxas -v. Prints the error of both estimates over the kernels
the model costed (and, with --rows, one row per kernel).

nvcc is $NVCC, else .deps/cuda/nvidia/cu13/bin/nvcc (make deps); flextile is
$FLEXTILE, else target/release/flextile.

With --scheme S, every set runs with --gpu-tiling S in addition (hybrid
kernels only are counted with --scheme hybrid).

Usage: bench/cuda_estimates.py [--rows] [--scheme block|warp|hybrid]
"""
import argparse
import os
import re
import shlex
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cuda_shapes import ROOT, model_lines, ptxas, run  # noqa: E402

C_ONLY = {"--no-openmp", "--stack-limit", "--cores", "--cache-sizes", "--cost-weights"}


def option_sets(path):
    """The program's `flextile-test: options:` sets that tile overlapped as CUDA."""
    m = re.search(r"flextile-test: options:(.*)", path.read_text())
    sets = [s.strip() for s in m.group(1).split("|")] if m else []
    for s in sets:
        opts = shlex.split(s)
        if ("--rectangle" in opts or "--scalene" in opts) and not C_ONLY & set(opts):
            yield opts


def summary(what, pairs):
    if not pairs:
        return f"{what}: no kernel"
    absolute = [abs(e - m) for e, m in pairs]
    relative = [a / m for a, (_, m) in zip(absolute, pairs) if m]
    exact = sum(e == m for e, m in pairs)
    return (f"{what} over {len(pairs)} kernels: mean absolute error {sum(absolute) / len(pairs):.1f}, "
            f"mean relative error {100 * sum(relative) / max(len(relative), 1):.0f}%, "
            f"{exact} exact, {sum(e < m for e, m in pairs)} under, {sum(e > m for e, m in pairs)} over")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", action="store_true")
    ap.add_argument("--scheme", choices=["block", "warp", "hybrid"])
    a = ap.parse_args()
    nvcc = os.environ.get("NVCC", str(ROOT / ".deps/cuda/nvidia/cu13/bin/nvcc"))
    # (Absolute: flextile runs in each program's folder.)
    flextile = str(Path(os.environ.get("FLEXTILE", ROOT / "target/release/flextile")).resolve())
    registers, shared, refused = [], [], 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for prog in sorted((ROOT / "testsuite/programs").glob("*.c")):
            for opts in option_sets(prog):
                if a.scheme and "--gpu-tiling" not in opts:
                    opts = opts + ["--gpu-tiling", a.scheme]
                cu = work / "p.cu"
                r = run([flextile, str(prog), "-o", str(cu), "--target", "cuda", "--report"] + opts,
                        cwd=prog.parent)
                if r.returncode:
                    refused += 1
                    continue
                model = {k: (m[1], m[5]) for k, m in model_lines(r.stdout).items()
                         if a.scheme != "hybrid" or m[0] == "hybrid"}
                if not model:
                    continue
                regs, err = ptxas(nvcc, cu, work, prog.parent)
                if err:
                    print(f"{prog.name} {' '.join(opts)}: nvcc failed: {err[0]}", file=sys.stderr)
                    continue
                for k, (est_regs, est_shared) in model.items():
                    if k not in regs:
                        continue
                    registers.append((est_regs, regs[k][0]))
                    shared.append((est_shared, regs[k][1]))
                    if a.rows:
                        print(f"| {prog.name} | {' '.join(opts)} | {k} | {est_regs} | {regs[k][0]} "
                              f"| {est_shared} | {regs[k][1]} |")
                sys.stdout.flush()
    print(summary("registers per thread (estimate vs ptxas)", registers))
    print(summary("shared memory per block, bytes (estimate vs ptxas)", shared))
    print(f"({refused} option sets refused as CUDA, as the testsuite expects of some)")


if __name__ == "__main__":
    main()
