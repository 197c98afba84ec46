#!/usr/bin/env python3
"""Which innermost stage loops of flextile's outputs gcc vectorises.

For each C file given (default: the overlapped variants that `make bench`
left in bench/work), find the innermost `for` loops whose body holds a
statement flextile generated or copied (a `/* S...` comment: a stage, a load
or a store), compile the file with the benchmark flags and
`-fopt-info-vec-optimized`, and report how many of those loops gcc says it
vectorised, with the line numbers of the others. The loops are found in the
text, so a loop gcc unrolled away, or one it reports at another line, counts
as not vectorised.

Usage: bench/vec_report.py [FILE.c ...]
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CFLAGS = ["-O3", "-march=native", "-fopenmp", "-ffp-contract=off", "-fno-fast-math",
          "-std=gnu99", "-Wno-unknown-pragmas", "-I", os.path.join(ROOT, "benchmarks")]
FOR = re.compile(r"\s*for \(")


def innermost_stage_loops(lines):
    """1-based line numbers of innermost loops around a generated statement."""
    out = []
    for i, line in enumerate(lines):
        if not FOR.match(line):
            continue
        depth, started, body = 0, False, []
        for j in range(i, len(lines)):
            depth += lines[j].count("{") - lines[j].count("}")
            started |= "{" in lines[j]
            if j > i:
                body.append(lines[j])
            if started and depth <= 0:
                break
        if any(FOR.match(b) for b in body):
            continue
        if any("/* S" in b for b in body):
            out.append(i + 1)
    return out


def vectorised(path):
    r = subprocess.run(["gcc"] + CFLAGS + ["-c", path, "-o", os.devnull, "-fopt-info-vec-optimized"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"gcc failed on {path}:\n{r.stderr}")
    pat = re.compile(re.escape(path) + r":(\d+):\d+: optimized: loop vectorized")
    return {int(m.group(1)) for m in pat.finditer(r.stderr)}


def main():
    files = sys.argv[1:] or sorted(glob.glob(os.path.join(ROOT, "bench", "work", "*.ft-rectangle.c"))
                                   + glob.glob(os.path.join(ROOT, "bench", "work", "*.ft-scalene.c")))
    if not files:
        raise SystemExit("no files: run make bench first, or name flextile outputs")
    for path in files:
        with open(path) as f:
            loops = innermost_stage_loops(f.read().split("\n"))
        vec = vectorised(path)
        scalar = [n for n in loops if n not in vec]
        print(f"{os.path.basename(path)}: {len(loops) - len(scalar)}/{len(loops)} innermost stage loops "
              f"vectorised; scalar at lines {scalar}")


if __name__ == "__main__":
    main()
