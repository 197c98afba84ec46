#!/usr/bin/env python3
"""make autotune PROG=...: PolyMage's autotuning space for one benchmark, against flextile's model.

Before its model-driven grouping, PolyMage tuned each pipeline by search (the
seed paper, Jangda and Bondhugula, "An effective fusion and tile size model",
§2.4 and §7.4.1): greedy grouping under three overlap tolerances (0.2, 0.4,
0.5) times seven tile sizes in each of the two tiled dimensions, 7^2 x 3 = 147
points, one tile size for every group. The paper's model (dynamic-programming
grouping, a tile size per group) needs no search; §7 compares it with the best
point the autotuner found.

This script searches that grid for one program of benchmarks/ with flextile's
greedy grouping:

    flextile benchmarks/PROG.c --SHAPE --grouping greedy --overlap-tolerance T --tile-sizes O,I

(for a program that bench/run.py tiles in more than two loops, O,I replace its
two innermost sizes there; the outer ones are kept), and measures three
references: the model's choice (`--SHAPE --grouping dp`, no tile sizes), flextile
with no options (the original schedule, parallel loops marked for OpenMP) and
the naive original. Every executable is built with bench/run.py's flags and
run with `--size S --reps K --threads N` (OMP_NUM_THREADS=N); its time is the
program's median kernel time. The naive original is the oracle: a point whose
standard output differs from it is WRONG (a compiler bug) and left out of the
ranking, as is a point whose C fails to compile or whose program fails. A
point flextile refuses (exit status not 0, e.g. a tile size that is not a
multiple of a stage's scale factor) is skipped with flextile's reason; so is
the model while `--grouping dp` does not exist.

Each point is measured once, so the fastest of many noisy points is biased
low; the best point, the model, the default and the naive original are
therefore measured once more, one after the other, and the summary compares
those times.

Writes a markdown report (the points sorted by time, then the summary) to
standard output and to bench/autotune-PROG.md; progress goes to standard
error. Generated C, executables and a small record per point (flextile's
compile time, its error or first warning) are kept in
bench/work/autotune/PROG/; with --reuse, a point whose record was made by the
same flextile binary from the same source is not compiled again.

Usage: bench/autotune.py PROG [--shape rectangle|scalene] [--threads N]
           [--size PRESET] [--reps K] [--tolerances T,...]
           [--sizes-outer O,...] [--sizes-inner I,...] [--quick] [--reuse]

--quick searches 3 x 3 x 3 points: the first, middle and last of each list
(for slow pipelines such as local-laplacian, whose flextile compile takes
about 25 s).
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no bench/__pycache__ in the working tree
import run as benchrun  # noqa: E402


class Variant:
    """One thing to build and time: a grid point or a reference.
    opts is None for the naive original (no flextile run)."""

    def __init__(self, label, key, opts, point=False):
        self.label, self.key, self.opts, self.point = label, key, opts, point
        self.status = "ok"  # ok, skipped, FAILED, WRONG
        self.note = ""
        self.flextile_s = None
        self.exe = None
        self.ms = None
        self.rerun_ms = None


def csv_list(text, kind):
    return [kind(x) for x in text.split(",") if x.strip()]


def variants(prog, args):
    """The references (naive, default, model), then the grid points."""
    shape = "--" + args.shape
    base = benchrun.tiles_for(prog, shape).split(",")[:-2]
    tols, outer, inner = args.tolerances, args.sizes_outer, args.sizes_inner
    if args.quick:
        tols, outer, inner = ([xs[0], xs[len(xs) // 2], xs[-1]] if len(xs) > 3 else xs
                              for xs in (tols, outer, inner))
    out = [Variant("naive original", "naive", None),
           Variant("default (no options)", "default", []),
           Variant(f"model ({shape} --grouping dp)", f"{args.shape}-model", [shape, "--grouping", "dp"])]
    for t in tols:
        for o in outer:
            for i in inner:
                sizes = ",".join(base + [str(o), str(i)])
                out.append(Variant(f"T={t:g}, {sizes}", f"{args.shape}-t{t:g}-{sizes.replace(',', 'x')}",
                                   [shape, "--grouping", "greedy", "--overlap-tolerance", f"{t:g}",
                                    "--tile-sizes", sizes], point=True))
    return out


def stamp(src):
    """What a cached record must match: the flextile binary and the source."""
    ft, s = os.stat(benchrun.FLEXTILE), os.stat(src)
    return [ft.st_mtime_ns, ft.st_size, s.st_mtime_ns, s.st_size]


def build(v, src, workdir, reuse):
    """Generates (flextile) and compiles (gcc) v into workdir, or reuses them."""
    exe = os.path.join(workdir, v.key)
    record_path = exe + ".json"
    if reuse and os.path.exists(record_path):
        with open(record_path) as f:
            record = json.load(f)
        if record["stamp"] == stamp(src) and (record["status"] != "ok" or os.path.exists(exe)):
            v.status, v.note, v.flextile_s = record["status"], record["note"], record["flextile_s"]
            v.exe = exe if v.status == "ok" else None
            return
    csrc = src
    if v.opts is not None:
        csrc = exe + ".c"
        error, (v.flextile_s, _), stderr = benchrun.flextile(src, csrc, v.opts)
        if error is not None:
            v.status, v.note = "skipped", "flextile failed: " + error
        else:
            warnings = [line for line in stderr.splitlines() if "warning:" in line]
            v.note = warnings[0] if warnings else ""
    if v.status == "ok":
        error = benchrun.gcc(csrc, exe)
        if error is not None:
            v.status, v.note = "FAILED", "C compile error: " + error
        else:
            v.exe = exe
    with open(record_path, "w") as f:
        json.dump({"stamp": stamp(src), "status": v.status, "note": v.note, "flextile_s": v.flextile_s}, f)


def time_run(v, args, oracle):
    """Runs v's executable once; returns (stdout, median ms), or None after marking v FAILED or WRONG."""
    try:
        out, _, med, _ = benchrun.measure(v.exe, args.size, args.reps, args.threads)
    except RuntimeError as e:
        v.status, v.note, v.exe = "FAILED", str(e), None
        return None
    if oracle is not None and out != oracle:
        v.status, v.note, v.exe = "WRONG", "output differs from the naive original's", None
        return None
    return out, med


def fmt_ms(ms):
    return f"{ms:.2f}" if ms is not None else ""


def report(prog, args, vs, naive, default, model, best, started, load_before):
    ok = sorted((v for v in vs if v.status == "ok"), key=lambda v: v.ms)
    lines = [f"# Autotuning {prog} (--{args.shape})", "",
             f"Machine: {benchrun.machine()}; {args.threads} thread(s); size `{args.size}`, "
             f"{args.reps} repetition(s), median kernel time; load average (1 min) "
             f"{load_before:.2f} before, {os.getloadavg()[0]:.2f} after; "
             f"search took {time.time() - started:.0f} s.",
             f"Flags: `gcc {' '.join(benchrun.CFLAGS[:-2])}`. Speedup is over the naive original.", "",
             "| rank | point | ms | speedup | flextile (s) | note |",
             "|---:|---|---:|---:|---:|---|"]
    for rank, v in enumerate(ok, 1):
        label = v.label if v.point else f"**{v.label}**"
        lines.append(f"| {rank} | {label} | {v.ms:.2f} | {naive.ms / v.ms:.2f} | "
                     f"{'' if v.flextile_s is None else f'{v.flextile_s:.2f}'} | {v.note} |")
    broken = [v for v in vs if v.status in ("WRONG", "FAILED")]
    if broken:
        lines += ["", f"**{len(broken)} point(s) WRONG or FAILED: compiler bugs, report them:**", ""]
        lines += [f"- {v.status}: {v.label}: {v.note}" for v in broken]
    skipped = [v for v in vs if v.status == "skipped"]
    if skipped:
        lines += ["", f"{len(skipped)} point(s) skipped:", ""]
        lines += [f"- {v.label}: {v.note}" for v in skipped]
    searched = sum(1 for v in vs if v.point)
    lines += ["", "## Summary", "",
              f"{searched} points searched, {sum(1 for v in ok if v.point)} measured. "
              "Times in parentheses: measured again, one after the other, after the search.", ""]
    if best is None:
        lines.append("- best point: none (no point was measured)")
    else:
        lines.append(f"- best point: {best.label}: {best.ms:.2f} ms ({fmt_ms(best.rerun_ms)} ms)")
    if model.status == "ok":
        lines.append(f"- model: {model.ms:.2f} ms ({fmt_ms(model.rerun_ms)} ms)")
        if best is not None and best.rerun_ms and model.rerun_ms:
            r = model.rerun_ms / best.rerun_ms
            if r <= 1.0:
                verdict = f"model is as fast as the best point found or faster ({r:.2f}x its time)"
            elif r < 1.1:
                verdict = f"model within {r:.2f}x of the best point found"
            else:
                verdict = f"model is {r:.2f}x slower than the best point found"
            lines.append(f"- {verdict} (times measured again)")
    else:
        lines.append(f"- model: {model.note}" if model.status == "skipped" else f"- model: {model.status}: {model.note}")
    lines.append(f"- default (no options): {fmt_ms(default.ms)} ms ({fmt_ms(default.rerun_ms)} ms)"
                 + ("" if default.status == "ok" else f" {default.status}: {default.note}"))
    lines.append(f"- naive original: {naive.ms:.2f} ms ({fmt_ms(naive.rerun_ms)} ms)")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("prog", choices=benchrun.PROGRAMS)
    ap.add_argument("--shape", choices=["rectangle", "scalene"], default="rectangle")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--size", default="bench")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--tolerances", default="0.2,0.4,0.5", help="overlap tolerances (the paper's three)")
    ap.add_argument("--sizes-outer", default="8,16,32,64,128,256,512")
    ap.add_argument("--sizes-inner", default="64,128,256,512,1024,2048")
    ap.add_argument("--quick", action="store_true", help="3 values of each list: first, middle, last")
    ap.add_argument("--reuse", action="store_true",
                    help="reuse points built before by the same flextile binary from the same source")
    args = ap.parse_args()
    args.tolerances = csv_list(args.tolerances, float)
    args.sizes_outer = csv_list(args.sizes_outer, int)
    args.sizes_inner = csv_list(args.sizes_inner, int)

    src = os.path.join(benchrun.BENCH_DIR, args.prog + ".c")
    workdir = os.path.join(benchrun.WORK, "autotune", args.prog)
    os.makedirs(workdir, exist_ok=True)
    started, load_before = time.time(), os.getloadavg()[0]
    vs = variants(args.prog, args)
    naive, default, model = vs[:3]

    oracle = None
    for n, v in enumerate(vs, 1):
        build(v, src, workdir, args.reuse)
        if v.status == "ok":
            result = time_run(v, args, oracle)
            if result is not None:
                out, v.ms = result
                if v is naive:
                    oracle = out
        if v is naive and naive.status != "ok":
            sys.exit(f"autotune: the naive original does not build or run: {naive.note}")
        compile_s = "" if v.flextile_s is None else f" flextile {v.flextile_s:.1f} s,"
        result = f"{v.ms:.2f} ms ({naive.ms / v.ms:.2f}x)" if v.status == "ok" else f"{v.status}: {v.note}"
        print(f"[{n}/{len(vs)}] {v.label}:{compile_s} {result}", file=sys.stderr, flush=True)
        if v.status in ("WRONG", "FAILED"):
            print(f"autotune: *** {v.status}: {v.label}: {v.note} (compiler bug?) ***", file=sys.stderr, flush=True)

    points = [v for v in vs if v.point and v.status == "ok"]
    best = min(points, key=lambda v: v.ms) if points else None
    for v in [naive, default, model, best]:
        if v is not None and v.status == "ok":
            result = time_run(v, args, oracle)
            v.rerun_ms = result[1] if result else None

    text = report(args.prog, args, vs, naive, default, model, best, started, load_before)
    path = os.path.join(benchrun.ROOT, "bench", f"autotune-{args.prog}.md")
    with open(path, "w") as f:
        f.write(text)
    sys.stdout.write(text)
    print(f"wrote {os.path.relpath(path, benchrun.ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
