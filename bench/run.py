#!/usr/bin/env python3
"""make bench: flextile's outputs against the naive originals, measured in one run.

For every program in benchmarks/ and every variant (the naive original and each
flextile option set), build with the same flags, check that the outputs agree
with the original's, and time the kernel with 1 and 2 threads. Variants are
interleaved round by round so that drift on a shared machine does not bias the
ratios. Writes bench/results.md (human) and bench/results.csv (machine).

Usage: bench/run.py [--rounds N] [--reps K] [--size PRESET] [--only PROG,...]
"""
import argparse
import concurrent.futures
import csv
import datetime
import hashlib
import os
import platform
import re
import statistics
import subprocess
import tempfile
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH_DIR = os.path.join(ROOT, "benchmarks")
WORK = os.path.join(ROOT, "bench", "work")
FLEXTILE = os.path.join(ROOT, "target", "release", "flextile")
CFLAGS = ["-O3", "-march=native", "-fopenmp", "-ffp-contract=off", "-fno-fast-math",
          "-std=gnu99", "-Wno-unknown-pragmas", "-I", BENCH_DIR]

PROGRAMS = ["unsharp-mask", "harris", "bilateral-grid", "camera-pipeline", "multiscale-interp",
            "pyramid-blend", "local-laplacian", "minifluxdiv", "heat-1d", "heat-2d", "heat-3d",
            "jacobi-2d"]

# (name, flextile options); None is the naive original. "{T}" is replaced by
# the program's tile sizes below.
VARIANTS = [
    ("naive", None),
    ("flextile", []),
    ("flextile --tile", ["--tile", "--tile-sizes", "{T}"]),
    ("flextile --rectangle", ["--rectangle", "--tile-sizes", "{T}"]),
    ("flextile --scalene", ["--scalene", "--tile-sizes", "{T}"]),
    # No sizes: the cost model groups the nests and sizes each group's tiles
    # (--grouping dp); time-iterated stencils: the block depth and sizes, or the original loops.
    ("flextile --rectangle, model", ["--rectangle"]),
    ("flextile --scalene, model", ["--scalene"]),
    ("flextile --rectangle, all stored", ["--rectangle", "--tile-sizes", "{T}"]),
    ("flextile --scalene, all stored", ["--scalene", "--tile-sizes", "{T}"]),
    ("flextile --rectangle --overlap-dims", ["--rectangle", "--overlap-dims", "{D}", "--tile-sizes", "{T}"]),
    ("flextile --scalene --overlap-dims", ["--scalene", "--overlap-dims", "{D}", "--tile-sizes", "{T}"]),
]

# Variants built from the program with its temporary(...) clauses removed:
# every intermediate stage stored, as before storage reduction (issue 18).
ALL_STORED = {"flextile --rectangle, all stored", "flextile --scalene, all stored"}
TEMPORARY_CLAUSE = re.compile(r"(#pragma (?:omplc loopchain|scop)\b[^\n]*?)\s*temporary\([^)]*\)")
# The clause alone on a continuation line of its pragma.
TEMPORARY_LINE = re.compile(r"[ \t]*\\\n[ \t]*temporary\([^)]*\)")

# Partial overlapped tiling (--overlap-dims): the loops that overlap, leaving
# the innermost tiled loop of the main nests to classic tiling (line buffers).
# Programs without an entry do not get these variants.
OVERLAP_DIMS = {
    "unsharp-mask": "0,1",
    "harris": "0",
    "camera-pipeline": "0",
    "multiscale-interp": "0,1",
    "pyramid-blend": "0,1",
    "local-laplacian": "0,1",
}

# Tile sizes per program, innermost loops last (flextile aligns them on the
# innermost loops; outer loops without a size are not tiled). Image pipelines
# use the overlapped-tiling paper's sizes where it gives them (Unsharp Mask
# 8x512, Camera Pipeline 64x256), 32x256 otherwise.
TILES = {
    "unsharp-mask": "8,512",
    "harris": "32,256",
    "bilateral-grid": "16,16,16",
    "camera-pipeline": "64,256",
    "multiscale-interp": "32,256",
    "pyramid-blend": "32,256",
    "local-laplacian": "32,256",
    "minifluxdiv": "8,8,64",
    "heat-1d": "4096",
    "heat-2d": "32,256",
    "heat-3d": "8,16,128",
    "jacobi-2d": "32,256",
}

# Overlapped tiling of the time-iterated stencils tiles the time loop too
# (blocks of that many steps, the first size); classic tiling (--tile) keeps
# TILES, which leave the time loop untiled (it is not permutable with space).
OVERLAP_TILES = {
    "heat-1d": "8,4096",
    "heat-2d": "4,32,256",
    "heat-3d": "2,8,16,128",
    "jacobi-2d": "4,32,256",
}
OVERLAP_DIMS.update({"heat-2d": "0,1", "jacobi-2d": "0,1", "heat-3d": "0,1,2"})


def tiles_for(prog, variant):
    """The --tile-sizes of a variant."""
    overlapped = "--rectangle" in variant or "--scalene" in variant
    return OVERLAP_TILES.get(prog, TILES[prog]) if overlapped else TILES[prog]


TIME_RE = re.compile(r"time_ms min=([0-9.]+) median=([0-9.]+)")


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def run_rss(cmd, env=None):
    """Runs cmd; returns (returncode, stdout, stderr, peak resident memory in MiB)
    from the child's own rusage (getrusage of that process alone, via wait4)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, text=True, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return p.returncode, out.read(), err.read(), usage.ru_maxrss / 1024.0


def all_stored_source(prog):
    """The program without its temporary(...) clauses, in WORK; None when it has none."""
    with open(os.path.join(BENCH_DIR, prog + ".c")) as f:
        text = f.read()
    stripped = TEMPORARY_CLAUSE.sub(r"\1", TEMPORARY_LINE.sub("", text))
    if stripped == text:
        return None
    path = os.path.join(WORK, f"{prog}.all-stored.c")
    with open(path, "w") as f:
        f.write(stripped)
    return path


def build(prog, reuse=False):
    """Builds every variant of prog; returns {variant: (binary or None, note, compile_s)}.
    With reuse, flextile's outputs already in WORK are compiled as they are."""
    out, pending = {}, []
    for name, opts in VARIANTS:
        src = os.path.join(BENCH_DIR, prog + ".c")
        tag = name.replace("flextile", "ft").replace(" --", "-").replace(",", "").replace(" ", "-")
        exe = os.path.join(WORK, f"{prog}.{tag}")
        csrc, compile_s = src, None
        if name in ALL_STORED:
            src = all_stored_source(prog)
            if src is None:
                out[name] = (None, "n/a (declares no temporaries)", None)
                continue
        if opts is not None and reuse and os.path.exists(os.path.join(WORK, f"{prog}.{tag}.c")):
            csrc = os.path.join(WORK, f"{prog}.{tag}.c")
        elif opts is not None:
            if "{D}" in opts and prog not in OVERLAP_DIMS:
                out[name] = (None, "n/a (no --overlap-dims value for this program)", None)
                continue
            opts = [o.replace("{T}", tiles_for(prog, name)).replace("{D}", OVERLAP_DIMS.get(prog, "")) for o in opts]
            csrc = os.path.join(WORK, f"{prog}.{tag}.c")
            reason, compile_s, _ = flextile(src, csrc, opts, COMPILE_RUNS)
            if reason is not None:
                out[name] = (None, "not supported: " + reason, None)
                continue
        pending.append((name, csrc, exe, compile_s))
    # gcc runs once every flextile run is done (so that compile times are not
    # measured beside a C compiler), one job per core.
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        reasons = list(pool.map(lambda job: gcc(job[1], job[2]), pending))
    for (name, _, exe, compile_s), reason in zip(pending, reasons):
        if reason is not None:
            out[name] = (None, "C compile error: " + reason, compile_s)
        else:
            out[name] = (exe, "", compile_s)
    return {name: out[name] for name, _ in VARIANTS}


def same_code(built):
    """{variant: an earlier variant whose binary has the same machine code and
    data} (the same .text, .rodata and .data bytes: flextile outputs that differ
    in comments only). Such a variant is one program with the earlier one: it
    is not timed again, its row shows the earlier variant's times."""
    first, same = {}, {}
    for name, (exe, _, _) in built.items():
        if exe is None:
            continue
        # Into a file: objcopy seeks when it writes more than one section.
        with tempfile.NamedTemporaryFile() as sections:
            try:
                r = subprocess.run(["objcopy", "-O", "binary", "-j", ".text", "-j", ".rodata", "-j", ".data",
                                    exe, sections.name], capture_output=True)
            except OSError:  # no binutils: every variant is timed
                return {}
            code = sections.read()
        if r.returncode != 0 or not code:
            continue
        digest = hashlib.sha256(code).hexdigest()
        if digest in first:
            same[name] = first[digest]
        else:
            first[digest] = name
    return same


# A variant whose first round takes more than this many times the naive
# original's time (1 thread) is not measured in later rounds: its one round
# says all the table needs, and rounds of a pathological variant (tens of
# seconds each) would take the time that more rounds of the others need.
SLOW_CAP = 8.0

# How many times each variant is compiled: its compile time is the fastest run
# (flextile is deterministic; the slower runs measure the machine's noise),
# its memory the largest.
COMPILE_RUNS = 3


def flextile(src, csrc, opts, runs=1):
    """Runs flextile on src (with -I benchmarks and opts), writing csrc, `runs`
    times while it succeeds. Returns (the first line of its error, or None;
    (fastest seconds, largest peak MiB); its stderr)."""
    cost = (float("inf"), 0.0)
    for _ in range(runs):
        t0 = time.perf_counter()
        code, _, stderr, mib = run_rss([FLEXTILE, src, "-o", csrc, "-I", BENCH_DIR] + opts)
        cost = (min(cost[0], time.perf_counter() - t0), max(cost[1], mib))
        if code != 0:
            reason = (stderr.strip().splitlines() or ["flextile failed"])[0]
            return re.sub(r"^flextile: error: ", "", reason), cost, stderr
    return None, cost, stderr


def gcc(csrc, exe):
    """Compiles csrc into exe with CFLAGS; returns the first line of gcc's error, or None."""
    r = run(["gcc"] + CFLAGS + ["-o", exe, csrc, "-lm"])
    if r.returncode != 0:
        return (r.stderr.strip().splitlines() or ["?"])[0]
    return None


def measure(exe, size, reps, threads):
    """(stdout, min ms, median ms, peak resident MiB) of one run."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    code, out, err, mib = run_rss([exe, "--size", size, "--reps", str(reps), "--threads", str(threads)], env=env)
    m = TIME_RE.search(err)
    if code != 0 or not m:
        raise RuntimeError(f"{exe} failed: {err.strip()[:200]}")
    return out, float(m.group(1)), float(m.group(2)), mib


# The criteria are read at this thread count (the table's second column).
CRITERION_THREADS = 2
# A close call: the default output or a hand-sized variant within this fraction
# of the model's better variant at CRITERION_THREADS after the rounds. Such a
# program's nearby variants (the model's too) get CLOSE_ROUNDS more rounds there,
# interleaved: on the 2-core VM one binary's 5-round median moves by 10% and
# more between runs, so five rounds cannot order two variants that close.
CLOSE_MARGIN = 0.10
CLOSE_ROUNDS = 10


class Measurements:
    """The timings of one program's variants, round by round."""

    def __init__(self, built, same, args):
        self.built, self.same, self.args = built, same, args
        self.times = {(v, t): [] for v, _ in VARIANTS for t in args.thread_list}
        self.mins = dict.fromkeys(self.times, float("inf"))
        self.rss = dict.fromkeys((v for v, _ in VARIANTS), 0.0)
        self.status = {v: built[v][1] for v, _ in VARIANTS}
        self.reference = None  # the first run's stdout: every other run must print it
        self.capped = set()  # timed in the first round only (SLOW_CAP)
        self.close = []  # timed in the close-call rounds too

    def timed(self, v):
        """Whether v runs in a round (not one program with an earlier variant)."""
        return self.built[v][0] is not None and not self.status[v] and v not in self.capped and v not in self.same

    def round(self, rnd, variants, threads, lead=()):
        """Times the variants in `lead`, then each of `variants` in an order
        rotated by `rnd` (no variant always follows the same one, such as the
        single-threaded original), once at each of `threads`."""
        shift = rnd % len(variants) if variants else 0
        for v in list(lead) + variants[shift:] + variants[:shift]:
            if not self.timed(v):
                continue
            for t in threads:
                out, tmin, tmed, mib = measure(self.built[v][0], self.args.size, self.args.reps, t)
                self.rss[v] = max(self.rss[v], mib)
                if self.reference is None:
                    self.reference = out
                elif out != self.reference:
                    self.status[v] = f"MISMATCH with the original ({t} threads)"
                    break
                self.times[(v, t)].append(tmed)
                self.mins[(v, t)] = min(self.mins[(v, t)], tmin)

    def cap_slow(self, t):
        """After the first round: variants over SLOW_CAP x the naive original's time at t are not timed again."""
        naive = self.times[("naive", t)]
        for v, _ in VARIANTS[1:]:
            if naive and self.timed(v) and self.times[(v, t)] and self.times[(v, t)][0] > SLOW_CAP * naive[0]:
                self.capped.add(v)

    def close_calls(self, t):
        """The variants to time in CLOSE_ROUNDS more rounds at t threads: every
        variant within CLOSE_MARGIN of the model's better variant, when one of
        them is not the model's; none otherwise."""
        med = {v: statistics.median(self.times[(v, t)]) for v, _ in VARIANTS[1:]
               if self.timed(v) and self.times[(v, t)]}
        model = {self.same.get(v, v) for v, _ in VARIANTS if v.endswith(", model")} & set(med)
        if not model:
            return []
        best = min(med[v] for v in model)
        near = [v for v in med if med[v] <= best * (1 + CLOSE_MARGIN)]
        self.close = near if not set(near) <= model else []
        return self.close

    def share_same(self):
        """Gives each variant that is one program with an earlier one (not
        timed) that variant's times, memory and status."""
        for v, first in self.same.items():
            for t in self.args.thread_list:
                self.times[(v, t)], self.mins[(v, t)] = self.times[(first, t)], self.mins[(first, t)]
            self.rss[v], self.status[v] = self.rss[first], self.status[v] or self.status[first]

    def note(self, v):
        """The status of a variant that ran without a mismatch."""
        if v in self.same:
            return f"{self.note(self.same[v])} (the machine code of {self.same[v]}: its times)"
        note = "ok"
        if v in self.capped:
            note += f", 1 round (over {SLOW_CAP:g}x the original's time)"
        if v in self.close:
            note += f", {CLOSE_ROUNDS} more rounds at {CRITERION_THREADS} threads (a close call)"
        return note


def machine():
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    gcc = run(["gcc", "--version"]).stdout.splitlines()[0]
    return f"{model}, {os.cpu_count()} cores, {gcc}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--size", default="bench")
    ap.add_argument("--only", default="")
    ap.add_argument("--threads", default="1,2", help="thread counts, e.g. 1,2,16 (the table shows the first two)")
    ap.add_argument("--variants", default="", help="regex: only the flextile variants it matches (and naive)")
    ap.add_argument("--reuse", action="store_true", help="compile flextile outputs already in bench/work (no flextile run)")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    args.thread_list = threads
    if args.variants:
        keep = re.compile(args.variants)
        VARIANTS[:] = [v for v in VARIANTS if v[1] is None or keep.search(v[0])]
    progs = [p for p in PROGRAMS if not args.only or p in args.only.split(",")]
    args.load_before = os.getloadavg()[0]
    os.makedirs(WORK, exist_ok=True)
    rows = []
    for prog in progs:
        print(f"== {prog}", flush=True)
        built = build(prog, args.reuse)
        same = same_code(built)
        m = Measurements(built, same, args)
        for rnd in range(args.rounds):
            # The naive original first: the reference of SLOW_CAP.
            m.round(rnd, [v for v, _ in VARIANTS[1:]], threads, lead=["naive"])
            if rnd == 0:
                m.cap_slow(threads[0])
        close = m.close_calls(CRITERION_THREADS) if CRITERION_THREADS in threads else []
        for rnd in range(CLOSE_ROUNDS if close else 0):
            m.round(rnd, close, [CRITERION_THREADS])
        m.share_same()
        times, mins, rss, status = m.times, m.mins, m.rss, m.status
        base = statistics.median(times[("naive", threads[0])]) if times[("naive", threads[0])] else None
        for v, _ in VARIANTS:
            row = {"program": prog, "variant": v, "size": args.size, "tiles": ("model" if v.endswith(", model") else tiles_for(prog, v) if "--" in v else "") + (f" dims {OVERLAP_DIMS[prog]}" if "overlap-dims" in v and prog in OVERLAP_DIMS else ""),
                   "status": status[v] or m.note(v),
                   # Not a CSV column: criteria() reads it.
                   "same_as": same.get(v),
                   "compile_s": "" if built[v][2] is None else f"{built[v][2][0]:.3f}",
                   "compile_mib": "" if built[v][2] is None else f"{built[v][2][1]:.0f}",
                   "max_rss_mib": f"{rss[v]:.0f}" if rss[v] else ""}
            for t in threads:
                ts = times[(v, t)]
                med = statistics.median(ts) if ts and not status[v] else None
                row[f"median_ms_{t}t"] = f"{med:.2f}" if med else ""
                row[f"min_ms_{t}t"] = f"{mins[(v, t)]:.2f}" if med else ""
                row[f"speedup_{t}t"] = f"{base / med:.2f}" if med and base else ""
            rows.append(row)
            print(f"   {v:40s} " + " ".join(f"{row[f'median_ms_{t}t']:>10s}" for t in threads) + " "
                  + " ".join(f"{row[f'speedup_{t}t']:>6s}" for t in threads)
                  + f" {(row['max_rss_mib'] + ' MiB') if row['max_rss_mib'] else '':>9s}  {row['status']}",
                  flush=True)
        # Written after every program: an interrupted run keeps what it measured.
        args.load_after = os.getloadavg()[0]
        write_results(rows, args)
    args.load_after = os.getloadavg()[0]
    write_results(rows, args)


def criteria(rows, t):
    """Markdown lines: per program, the model's better variant at t threads
    against the default output and the best hand-sized variant (the issue's
    criteria: a ratio of at most 1.00 meets one)."""
    lines = [f"## The model against the default output and the hand-sized variants ({t} threads)", "",
             "Medians in ms; a ratio of at most 1.00 means the model's variant is at least as fast.", "",
             "| program | model | default | best hand-sized | model / default | model / best hand-sized |",
             "|---|---:|---:|---:|---:|---:|"]
    key = f"median_ms_{t}t"
    by = {}
    for r in rows:
        if r.get(key):
            by.setdefault(r["program"], {})[r["variant"]] = (float(r[key]), r.get("same_as"))
    for prog, v in by.items():
        model = [(ms, name) for name, (ms, _) in v.items() if name.endswith(", model")]
        hand = [(ms, name) for name, (ms, _) in v.items() if "--" in name and not name.endswith(", model")]
        if not model or "flextile" not in v:
            continue
        m, mname = min(model)
        d = v["flextile"][0]
        same = " (same machine code)" if v[mname][1] == "flextile" else ""
        cells = [f"{m:.2f} ({mname.replace('flextile ', '').replace(', model', '')})", f"{d:.2f}"]
        if hand:
            h, hname = min(hand)
            cells += [f"{h:.2f} ({hname.replace('flextile ', '')})", f"{m / d:.2f}{same}", f"{m / h:.2f}"]
        else:
            cells += ["", f"{m / d:.2f}{same}", ""]
        lines.append(f"| {prog} | " + " | ".join(cells) + " |")
    return lines + [""]


def write_results(rows, args):
    threads = args.thread_list
    fields = ["program", "variant", "size", "tiles", "status"]
    for t in threads:
        fields += [f"median_ms_{t}t", f"min_ms_{t}t", f"speedup_{t}t"]
    fields += ["max_rss_mib", "compile_s", "compile_mib"]
    with open(os.path.join(ROOT, "bench", "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    lines = [
        "# flextile benchmark results",
        "",
        f"Measured {now} on {machine()}.",
        f"Flags: `gcc {' '.join(CFLAGS[:-2])}`; size preset `{args.size}` (see benchmarks/README.md);",
        f"{args.rounds} interleaved rounds x {args.reps} repetitions (the variants' order rotated each round);",
        "times are medians of the rounds'",
        f"median kernel times (a variant over {SLOW_CAP:g}x the naive original's time in the first round is measured",
        f"in that round only). Close calls get more rounds: where the default output or a hand-sized variant is",
        f"within {CLOSE_MARGIN:.0%} of the model's better variant at {CRITERION_THREADS} threads, every variant that",
        f"close is timed in {CLOSE_ROUNDS} more interleaved rounds at {CRITERION_THREADS} threads (its status says so).",
        f"Speedup is over the naive original on {threads[0]} thread(s). Outputs of every",
        "variant are compared with the original's (stdout: checksums and FNV-1a hashes of the outputs).",
        f"Load average (1 min) before / after the run: {args.load_before:.2f} / {args.load_after:.2f} on",
        f"{os.cpu_count()} cores: with other work on the machine, multi-thread times (many short parallel",
        "regions with spinning barriers) are not meaningful. The \"all stored\" variants compile the",
        "program with its temporary(...) clauses removed: every intermediate stage is stored.",
        "A status \"(the machine code of V: its times)\" marks a binary whose .text, .rodata and .data are",
        "byte for byte variant V's: one program, timed once, as V.",
        "",
    ] + (criteria(rows, CRITERION_THREADS) if CRITERION_THREADS in threads else []) + [
        "## Every variant",
        "",
        "Max RSS: the peak resident memory of the benchmark process (its own getrusage, larger of",
        f"the runs); flextile (s, MiB): compile time (the fastest of {COMPILE_RUNS} runs) and peak memory of flextile.",
        "",
        "| program | variant | tiles | " + " | ".join(f"{t} thread(s) (ms)" for t in threads) + " | "
        + " | ".join(f"speedup {t}t" for t in threads) + " | max RSS (MiB) | flextile (s) | flextile (MiB) | status |",
        "|---|---|---|" + "---:|" * (2 * len(threads)) + "---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(f"| {r['program']} | {r['variant']} | {r['tiles']} | "
                     + " | ".join(r[f"median_ms_{t}t"] for t in threads) + " | "
                     + " | ".join(r[f"speedup_{t}t"] for t in threads)
                     + f" | {r['max_rss_mib']} | {r['compile_s']} | {r['compile_mib']} | {r['status']} |")
    with open(os.path.join(ROOT, "bench", "results.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote bench/results.md and bench/results.csv")


if __name__ == "__main__":
    sys.exit(main())
