#!/usr/bin/env python3
"""GPU benchmarks (`make bench-gpu`, issue 20): each benchmark's CUDA variants
on the GPU beside its original C.

For each benchmark and CUDA variant (default, --tile, --rectangle and
--scalene with the GPU cost model's mapping (--gpu-tiling auto), both
with --gpu-tiling block and warp, and hybrid register/shared tiles):
flextile writes the .cu;
nvcc -O3 --fmad=false builds it with bench/cuda_timing.h (every launch timed with CUDA events); the binary runs
at the benchmark size. Its output must be bit-identical to the original C's
(built with the benchmark flags and run on the CPU); the table gives the
end-to-end time the benchmark itself measures (median time_ms: host code,
copies, allocations and kernels) and the kernel time per repetition (the
events' sum over the run divided by the repetitions), with the CPU
original's time at 1 thread and at all the machine's cores beside them.

Writes the table to stdout and, with --out FILE, to FILE with the device's
name (nvidia-smi) and the nvcc version.

Without a GPU (nvidia-smi lists none) it stops with status 1, unless
--emulate: then the CUDA outputs are built as C++ against the CPU emulation
of CUDA (testsuite/cuda/emulate.h) and run at --size test, which checks the
plumbing and the outputs but times nothing worth reading.

Usage: bench/gpu.py [--size PRESET] [--reps K] [--only PROG,...] [--out FILE] [--emulate]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
sys.path.insert(0, str(ROOT / "bench"))
import run as B  # noqa: E402  (the CPU benchmarks' programs and flags)

VARIANTS = [("default", []), ("--tile", ["--tile"]), ("--rectangle", ["--rectangle"]),
            ("--scalene", ["--scalene"]),
            # The cost model's choice (auto) beside one overlapped tile per
            # block and one per warp (Jangda & Guha, PACT'20, §4) everywhere.
            ("--rectangle --gpu-tiling block", ["--rectangle", "--gpu-tiling", "block"]),
            ("--rectangle --gpu-tiling warp", ["--rectangle", "--gpu-tiling", "warp"]),
            ("--scalene --gpu-tiling block", ["--scalene", "--gpu-tiling", "block"]),
            ("--scalene --gpu-tiling warp", ["--scalene", "--gpu-tiling", "warp"]),
            # Hybrid register/shared tiles (Jangda & Guha, PACT'20, §5), registers as the
            # model sizes them and as many as fit.
            ("--rectangle --gpu-tiling hybrid", ["--rectangle", "--gpu-tiling", "hybrid"]),
            ("--scalene --gpu-tiling hybrid --reg-fraction 1",
             ["--scalene", "--gpu-tiling", "hybrid", "--reg-fraction", "1"])]
NVCC_FLAGS = ["-O3", "--fmad=false", "-arch=native", "-Xcompiler", "-fopenmp,-ffp-contract=off"]
CXX_FLAGS = ["-O1", "-std=gnu++17", "-fopenmp", "-ffp-contract=off", "-fno-fast-math", "-x", "c++"]
TIME_RE = re.compile(r"time_ms min=([0-9.]+) median=([0-9.]+)")
KERNEL_RE = re.compile(r"ft_kernels launches=(\d+) kernel_ms=([0-9.]+)")


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def device():
    """The GPU's name, or None."""
    if not shutil.which("nvidia-smi"):
        return None
    r = run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"])
    names = [l.strip() for l in r.stdout.splitlines() if l.strip()]
    return names[0] if r.returncode == 0 and names else None


def result_lines(out):
    """The output's lines (what must be identical; the times go to stderr)."""
    return out.splitlines()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="bench")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--out")
    ap.add_argument("--emulate", action="store_true")
    a = ap.parse_args()
    gpu = device()
    if gpu is None and not a.emulate:
        print("bench/gpu.py: no GPU here (nvidia-smi lists none); --emulate checks the plumbing on the CPU",
              file=sys.stderr)
        return 1
    size = "test" if a.emulate else a.size
    nvcc = os.environ.get("NVCC") or shutil.which("nvcc") or str(ROOT / ".deps/cuda/nvidia/cu13/bin/nvcc")
    flextile = os.environ.get("FLEXTILE", str(ROOT / "target/release/flextile"))
    cores = os.cpu_count() or 1
    progs = [p for p in a.only.split(",") if p] or B.PROGRAMS
    rows = []
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for p in progs:
            src = BENCH / f"{p}.c"
            orig = work / f"{p}-orig"
            r = run(["gcc"] + B.CFLAGS + ["-o", str(orig), str(src), "-lm"])
            if r.returncode:
                print(f"{p}: gcc failed: {r.stderr[:400]}", file=sys.stderr)
                failures += 1
                continue
            cpu = {}
            for threads in sorted({1, cores}):
                env = dict(os.environ, OMP_NUM_THREADS=str(threads))
                r = run([str(orig), "--size", size, "--reps", str(a.reps), "--threads", str(threads)], env=env)
                m = TIME_RE.search(r.stderr)
                cpu[threads] = (float(m.group(2)) if m else None, result_lines(r.stdout))
            expected = cpu[1][1]
            for name, opts in VARIANTS:
                cu = work / f"{p}{opts[0] if opts else ''}.cu"
                exe = work / f"{p}{opts[0] if opts else ''}-gpu"
                r = run([flextile, str(src), "-I", str(BENCH), "-o", str(cu)] + opts)
                if r.returncode:
                    why = next((l.split(": error: ", 1)[-1] for l in r.stderr.splitlines() if ": error: " in l), "refused")
                    rows.append((p, name, f"refused: {why}", "", "", ""))
                    continue
                if a.emulate:
                    build = ["g++"] + CXX_FLAGS + ["-include", str(ROOT / "testsuite/cuda/emulate.h"),
                                                  "-include", str(ROOT / "bench/cuda_timing.h")]
                else:
                    build = [nvcc] + NVCC_FLAGS + ["-include", str(ROOT / "bench/cuda_timing.h")]
                r = run(build + ["-I", str(BENCH), "-o", str(exe), str(cu), "-lm"])
                if r.returncode:
                    rows.append((p, name, "build failed: " + (r.stderr.strip().splitlines() or ["?"])[-1], "", "", ""))
                    failures += 1
                    continue
                r = run([str(exe), "--size", size, "--reps", str(a.reps)])
                m, k = TIME_RE.search(r.stderr), KERNEL_RE.search(r.stderr)
                same = r.returncode == 0 and result_lines(r.stdout) == expected
                if not same:
                    failures += 1
                kernel = f"{float(k.group(2)) / a.reps:.3f}" if k else "?"
                launches = f"{int(k.group(1)) // a.reps}" if k else "?"
                rows.append((p, name, "identical" if same else "DIFFERENT",
                             m.group(2) if m else "?", kernel, launches))
            rows.append((p, "C original", "", " / ".join(
                f"{cpu[t][0]:.3f} ({t} thr)" if cpu[t][0] is not None else "?" for t in sorted(cpu)), "", ""))
            sys.stdout.flush()
    ver = run([nvcc, "--version"]).stdout.strip().splitlines()
    head = [f"Device: {gpu or 'none (CPU emulation of CUDA: times are not GPU times)'}; "
            f"nvcc: {ver[-1] if ver else '?'}; size {size}, {a.reps} repetitions; "
            f"CPU original with {cores} cores.", "",
            "| benchmark | variant | output | end-to-end ms (median) | kernel ms per repetition | launches per repetition |",
            "|---|---|---|---:|---:|---:|"]
    table = "\n".join(head + [f"| {' | '.join(r)} |" for r in rows]) + "\n"
    print(table)
    if a.out:
        Path(a.out).write_text(table)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
