#!/usr/bin/env python3
"""Where a benchmark's time goes: the time of each parallel region of a C file.

    bench/region_times.py FILE.c [FILE2.c ...] [--threads N] [--reps K] [--size PRESET]

For each file (a benchmark from benchmarks/ or a flextile output of one),
wraps every top-level `#pragma omp parallel` region (the pragma and the
statement after it) in `omp_get_wtime()` calls, compiles the copy with the
benchmark flags of bench/run.py, runs it, and prints each region's total
time over the process's runs (its warm-up run and every repetition), with
the region's line in FILE and the statements in it (their `/* S3: nest 4
(line 57) */` comments). Given several files, their regions are printed in
columns side by side where they have as many; otherwise one after another.

This is how multiscale-interp's model output was found to lose in its first
group (a gathered masked load, 2.4x the default's two nests) in 2026-11.
Times of one process on a shared machine vary: compare rounds.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as bench  # noqa: E402

PRAGMA = re.compile(r"\s*#pragma omp parallel\b")
STMT = re.compile(r"/\* (S\d+): ")


def instrument(text):
    """The instrumented text and, per region, (line, statements)."""
    lines = text.split("\n")
    out, regions, i = [], [], 0
    while i < len(lines):
        if not PRAGMA.match(lines[i]):
            out.append(lines[i])
            i += 1
            continue
        # The region: the pragma, then lines up to the brace that closes the
        # first one opened after it.
        j, depth, opened = i + 1, 0, False
        while j < len(lines):
            for ch in lines[j]:
                if ch == "{":
                    depth, opened = depth + 1, True
                elif ch == "}":
                    depth -= 1
            j += 1
            if opened and depth == 0:
                break
        block = lines[i:j]
        stmts = sorted({m.group(1) for l in block for m in STMT.finditer(l)},
                       key=lambda s: int(s[1:]))
        k = len(regions)
        regions.append((i + 1, stmts))
        out.append("{ double ft_region_t0 = omp_get_wtime();")
        out.extend(block)
        out.append(f"ft_region_acc[{k}] += omp_get_wtime() - ft_region_t0; }}")
        i = j
    head = [
        "#include <omp.h>",
        "#include <stdio.h>",
        f"static double ft_region_acc[{max(len(regions), 1)}];",
        "__attribute__((destructor)) static void ft_region_dump(void) {",
        f"  for (int k = 0; k < {len(regions)}; k++)",
        '    fprintf(stderr, "region %d %.3f\\n", k, ft_region_acc[k] * 1e3);',
        "}",
    ]
    return "\n".join(head + out), regions


def measure(path, args, work):
    """Per-region times (ms) and the regions of `path`."""
    with open(path) as f:
        text, regions = instrument(f.read())
    base = os.path.join(work, os.path.basename(path)[:-2])
    with open(base + ".c", "w") as f:
        f.write(text)
    cc = subprocess.run(["gcc"] + bench.CFLAGS + ["-o", base, base + ".c", "-lm"],
                        capture_output=True, text=True)
    if cc.returncode != 0:
        sys.exit(f"{path}: the instrumented copy does not compile:\n{cc.stderr}")
    r = subprocess.run([base, "--size", args.size, "--reps", str(args.reps),
                        "--threads", str(args.threads)], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{path}: the run failed:\n{r.stderr}")
    times = [0.0] * len(regions)
    for m in re.finditer(r"^region (\d+) ([0-9.]+)$", r.stderr, re.M):
        times[int(m.group(1))] = float(m.group(2))
    total = re.search(r"time_ms min=([0-9.]+) median=([0-9.]+)", r.stderr)
    return times, regions, total.group(0) if total else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--size", default="bench")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        found = [(f, *measure(f, args, work)) for f in args.files]
    side = len({len(r) for _, _, r, _ in found}) == 1 and len(found) > 1
    groups = [found] if side else [[x] for x in found]
    for g in groups:
        print("  ".join(f"{os.path.basename(f)}: {t}" for f, _, _, t in g))
        for k in range(len(g[0][2])):
            cells = [f"line {r[k][0]:5d} {ts[k]:9.1f} ms" for _, ts, r, _ in g]
            print(f"  {k:3d}  " + "  |  ".join(cells) + "  " + " ".join(g[0][2][k][1]))
        print("  total " + "  |  ".join(f"{sum(ts):9.1f} ms" for _, ts, _, _ in g))


if __name__ == "__main__":
    main()
