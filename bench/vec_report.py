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

A loop gcc replaced by a library call (memcpy, memset: "split to 0 loops
and 1 library calls") counts as vectorised.

With --check ORIGINAL.c OUTPUT.c: each innermost stage loop of OUTPUT must
be vectorised where the innermost loop of the same statement in ORIGINAL is
(flextile must not lose a vectorisation the original had: a guard, a min or
max, or a strided scratchpad access in the point loop would). The statement
of a loop is read from its comment (`/* S3: nest 4 (line 57) */`, a load or
store of S3 takes S3's line); in ORIGINAL, line 57 is the nest's pragma (its
innermost `for` follows) or the statement (its innermost `for` precedes it).
Prints each loop that loses it and exits 1 if any does.

The compiler is $CC (gcc by default; clang reads its -Rpass remarks), with
-march=$MARCH (default native).

Usage: bench/vec_report.py [FILE.c ...]
       bench/vec_report.py --check ORIGINAL.c OUTPUT.c [-I DIR]
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CFLAGS = ["-O3", "-march=" + os.environ.get("MARCH", "native"), "-fopenmp", "-ffp-contract=off", "-fno-fast-math",
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


def vectorised(path, extra=()):
    """Lines of the loops the compiler ($CC: gcc or clang) vectorised in path,
    or replaced by a library call (gcc: the loop's line; clang reports the
    memcpy/memset at the statement, which counts for its innermost loop)."""
    cc = os.environ.get("CC", "gcc")
    clang = "clang" in os.path.basename(cc)
    report = (["-Rpass=loop-vectorize|loop-idiom"] if clang
              else ["-fopt-info-vec-optimized", "-fopt-info-loop-optimized"])
    r = subprocess.run([cc] + CFLAGS + list(extra) + ["-c", path, "-o", os.devnull] + report,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{cc} failed on {path}:\n{r.stderr}")
    # The file as the compiler names it (clang: relative to the current directory).
    where = r"(?m)^(?:[^:\n]*/)?" + re.escape(os.path.basename(path))
    with open(path) as f:
        lines = f.read().split("\n")
    if not clang:
        pat = re.compile(where + r":(\d+):\d+: optimized: (?:loop vectorized"
                         r"|Loop \d+ distributed: split to 0 loops and \d+ library calls)")
        return loop_lines({int(m.group(1)) for m in pat.finditer(r.stderr)}, lines)
    loops = set()
    for m in re.finditer(where + r":(\d+):\d+: remark: (vectorized loop|Formed a call)",
                         r.stderr):
        n = int(m.group(1))
        if m.group(2).startswith("vectorized"):
            loops.add(n)
            continue
        for j in range(n - 1, -1, -1):
            if FOR.match(lines[j]):
                loops.add(j + 1)
                break
    return loop_lines(loops, lines)


def loop_lines(reported, lines):
    """The `for` lines of the loops reported at lines `reported`: a loop under
    `#pragma omp simd` is reported at its pragma (clang) or at a statement
    of its body (gcc), others at their `for`."""
    out = set()
    for n in reported:
        text = lines[n - 1] if 0 < n <= len(lines) else ""
        if FOR.match(text):
            out.add(n)
        elif text.strip().startswith("#pragma omp simd"):
            out.add(n + 1)
        else:
            for j in range(n - 1, -1, -1):
                if FOR.match(lines[j]):
                    out.add(j + 1)
                    break
    return out


STAGE = re.compile(r"/\* (S\d+)\b")
STAGE_LINE = re.compile(r"/\* (S\d+)\b[^*]*\(line (\d+)\)")


def original_innermost(lines, n):
    """1-based line of the innermost `for` of the statement at line n of an
    original program: after it when n is a pragma, before it otherwise."""
    i = n - 1
    if lines[i].lstrip().startswith("#pragma"):
        while lines[i].rstrip().endswith("\\"):
            i += 1
        last = None
        for j in range(i + 1, len(lines)):
            t = lines[j].strip()
            if FOR.match(lines[j]):
                last = j + 1
            elif t in ("", "{") or t.startswith("//"):
                continue
            else:
                break
        return last
    for j in range(i, -1, -1):
        if FOR.match(lines[j]):
            return j + 1
    return None


def check(original, output, extra):
    """Loops of output that lose a vectorisation of original: (line, stage, original line)."""
    with open(original) as f:
        orig_lines = f.read().split("\n")
    with open(output) as f:
        out_lines = f.read().split("\n")
    orig_vec = vectorised(original, extra)
    out_vec = vectorised(output, extra)
    stage_line = {}
    for line in out_lines:
        for m in STAGE_LINE.finditer(line):
            stage_line.setdefault(m.group(1), int(m.group(2)))
    lost = []
    for n in innermost_stage_loops(out_lines):
        if n in out_vec:
            continue
        body_end = n
        depth, started = 0, False
        for j in range(n - 1, len(out_lines)):
            depth += out_lines[j].count("{") - out_lines[j].count("}")
            started |= "{" in out_lines[j]
            body_end = j
            if started and depth <= 0:
                break
        stages = {m.group(1) for j in range(n - 1, body_end + 1) for m in STAGE.finditer(out_lines[j])}
        for s in sorted(stages):
            at = stage_line.get(s)
            inner = at and original_innermost(orig_lines, at)
            if inner and inner in orig_vec:
                lost.append((n, s, at))
    return lost


def main():
    if sys.argv[1:2] == ["--check"]:
        original, output, extra = sys.argv[2], sys.argv[3], sys.argv[4:]
        lost = check(original, output, extra)
        for n, s, at in lost:
            print(f"{output}:{n}: the loop of {s} is not vectorised; its loop in {original} "
                  f"(line {at}) is")
        print(f"{os.path.basename(output)}: {len(lost)} loop(s) lose the original's vectorisation")
        sys.exit(1 if lost else 0)
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
