#!/usr/bin/env python3
"""Random loop chains for expression inlining (Jangda & Bondhugula, TOPLAS'20, Algorithm 3).

The main generator (gen.py) writes chains whose nests rarely qualify for
inlining (a user `fuse()` schedule, several writes, braces). These chains
do: each nest assigns one array `Tk[y][x]` once, from the input and the two
arrays before it, point-wise or as a 3x3 stencil, sometimes under `?:`,
through `sqrt(fabs(..))` or stored as `int`; the last array (and at random
one more) is live-out, the others are declared temporary. Each nest's
domain is one point narrower than the one before, so every read is of an
element an earlier nest wrote.

Every other program (odd seeds) is a chain for intra-tile fusion (Jangda & Bondhugula, TOPLAS'20
§5.3) instead: two to four sibling nests over one domain, each a 3x3-stencil
of the input at random points (sometimes under `?:`, through a call, stored
as `int`, or live-out), and a consumer reading every sibling at the same
random points. Siblings that share an input point, with straight-line
bodies and not stored, share a point loop in a tile.

Each program is compiled with `flextile --verify` under `--rectangle` and
`--scalene` (the model's grouping, inlining on; fusion chains also with
hand-given sizes), and `--scalene` with a 2 KiB L1 (`--cache-sizes`), under
which the model sizes most groups for L2 and runs inner tiles for L1 inside
them (multi-level tiling, Jangda & Bondhugula, TOPLAS'20, §5.2), for three argument sets:
flextile builds the input and its output with the testsuite's flags, runs
both and compares their output byte for byte. Exits 1 on any difference, or
when no program got a nest inlined, no chain a point loop fused or no
program inner tiles (the generator would then test nothing).

Usage: tools/difftest/inline_fuzz.py [-n COUNT] [--seed S] [--flextile PATH]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARGS = ["20 30", "9 11", "5 6"]
MULTI_LEVEL = ["--scalene", "--cache-sizes", "2K,256K"]
OPTIONS = [["--rectangle"], ["--scalene"], MULTI_LEVEL]
FUSION_OPTIONS = [["--rectangle", "--tile-sizes", "4,8"], ["--scalene", "--tile-sizes", "3,5"]]


def program(seed):
    """The C program of `seed`."""
    r = random.Random(seed)
    n = r.randint(2, 7)
    types = [r.choice(["float", "float", "double", "int"]) for _ in range(n)]
    arrs = [f"T{k}" for k in range(n)]
    live = {n - 1} | ({r.randrange(n)} if r.random() < 0.3 else set())
    temps = [arrs[k] for k in range(n) if k not in live]
    lines = []
    for k in range(n):
        lo = k + 1
        srcs = ["IN"] + arrs[:k]
        terms = []
        pointwise = r.random() < 0.5
        for _ in range(r.randint(1, 3)):
            s = r.choice(srcs[-2:])
            dy, dx = (0, 0) if pointwise else (r.randint(-1, 1), r.randint(-1, 1))
            idx = f"[y{dy:+d}][x{dx:+d}]".replace("+0", "")
            c = r.choice(["0.5", "0.25f", "3", "1.5f", "0.1"])
            terms.append((s, (dy, dx), f"{c} * {s}{idx}"))
        expr = " + ".join(t[2] for t in terms)
        if r.random() < 0.2:
            expr = f"sqrt(fabs({expr}))"
        if r.random() < 0.15:
            expr = f"({terms[0][2]} > 0.5 ? {expr} : 1.0)"
        reads = {}
        for s, (dy, dx), _ in terms:
            reads.setdefault(s, set()).add(f"(y{dy:+d},x{dx:+d})".replace("+0", ""))
        rd = ", ".join(f"read {s} {{{','.join(sorted(v))}}}" for s, v in reads.items())
        cast = "(int)" if types[k] == "int" else ""
        lines.append(f"#pragma omplc for domain({lo}:H-1-{lo}, {lo}:W-1-{lo}) with (y, x) {rd}, write {arrs[k]} {{(y,x)}}")
        lines.append(f"        for (int y = {lo}; y <= H - 1 - {lo}; y++)")
        lines.append(f"            for (int x = {lo}; x <= W - 1 - {lo}; x++)")
        lines.append(f"                {arrs[k]}[y][x] = {cast}({expr});")
    clause = f" temporary({', '.join(temps)})" if temps else ""
    return c_program(f"seed {seed}", clause, lines, [(types[k], arrs[k]) for k in range(n)],
                     [arrs[k] for k in sorted(live)])


def c_program(title, clause, lines, arrays, printed):
    """A complete C program: `chain()` holds the loop chain `lines` (with
    the pragma's `clause`) over `IN` and `arrays` ((type, name), each H x W,
    zeroed), and main() prints the arrays named in `printed`."""
    params = ", ".join(f"{t} {a}[H][W]" for t, a in arrays)
    body = "\n".join(lines)
    allocs = "\n".join(f"    {t} (*{a})[W] = calloc((size_t)H * W, sizeof({t}));" for t, a in arrays)
    prints = "\n".join(
        f'    for (int i = 0; i < H; i++) for (int j = 0; j < W; j++) printf("{a} %d %d %.17g\\n", i, j, (double){a}[i][j]);'
        for a in printed
    )
    return f"""/* inline_fuzz.py {title} */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
static void chain(int H, int W, float IN[H][W], {params})
{{
#pragma omplc loopchain schedule(){clause}
    {{
{body}
    }}
}}
int main(int argc, char **argv)
{{
    int H = argc > 1 ? atoi(argv[1]) : 20, W = argc > 2 ? atoi(argv[2]) : 30;
    float (*IN)[W] = malloc(sizeof(float) * H * W);
    unsigned s = 12345;
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++) {{
            s = s * 1103515245u + 12345u;
            IN[i][j] = (float)((s >> 8) % 1000) / 999.0f;
        }}
{allocs}
    chain(H, W, IN, {", ".join(a for _, a in arrays)});
{prints}
    return 0;
}}
"""


def fusion_program(seed):
    """The C program of `seed` for intra-tile fusion: siblings and a consumer."""
    r = random.Random(seed)
    m = r.randint(2, 4)
    types = [r.choice(["float", "float", "double", "int"]) for _ in range(m)]
    arrs = [f"S{k}" for k in range(m)]
    live = {r.randrange(m)} if r.random() < 0.25 else set()
    pts = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
    idx = lambda s, dy, dx: f"{s}[y{dy:+d}][x{dx:+d}]".replace("+0", "")
    tup = lambda dy, dx: f"(y{dy:+d},x{dx:+d})".replace("+0", "")
    lines = []
    for k in range(m):
        at = r.sample(pts, r.randint(3, 5))
        expr = " + ".join(f"{r.choice(['0.5', '0.25f', '3', '-1.5f'])} * {idx('IN', dy, dx)}" for dy, dx in at)
        if r.random() < 0.1:
            expr = f"sqrt(fabs({expr}))"
        if r.random() < 0.1:
            expr = f"({idx('IN', *at[0])} > 0.5f ? {expr} : 1.0)"
        cast = "(int)" if types[k] == "int" else ""
        reads = ",".join(tup(dy, dx) for dy, dx in at)
        lines.append(f"#pragma omplc for domain(1:H-2, 1:W-2) with (y, x) read IN {{{reads}}}, write {arrs[k]} {{(y,x)}}")
        lines.append("        for (int y = 1; y <= H - 2; y++)")
        lines.append("            for (int x = 1; x <= W - 2; x++)")
        lines.append(f"                {arrs[k]}[y][x] = {cast}({expr});")
    at = r.sample(pts, r.randint(1, 3))
    terms = " + ".join(f"{idx(s, dy, dx)} * {k + 1}" for k, s in enumerate(arrs) for dy, dx in at)
    reads = ", ".join(f"read {s} {{{','.join(tup(dy, dx) for dy, dx in at)}}}" for s in arrs)
    lines.append(f"#pragma omplc for domain(2:H-3, 2:W-3) with (y, x) {reads}, write OUT {{(y,x)}}")
    lines.append("        for (int y = 2; y <= H - 3; y++)")
    lines.append("            for (int x = 2; x <= W - 3; x++)")
    lines.append(f"                OUT[y][x] = {terms};")
    temps = [arrs[k] for k in range(m) if k not in live]
    clause = f" temporary({', '.join(temps)})" if temps else ""
    arrays = [(types[k], arrs[k]) for k in range(m)] + [("double", "OUT")]
    return c_program(f"seed {seed} (intra-tile fusion)", clause, lines, arrays,
                     ["OUT"] + [arrs[k] for k in sorted(live)])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--flextile", default=os.path.join(ROOT, "target", "release", "flextile"))
    a = ap.parse_args()
    failures, inlined, fused, multi, runs = 0, 0, 0, 0, 0
    with tempfile.TemporaryDirectory() as d:
        for k in range(a.n):
            seed = a.seed * 100000 + k
            src = os.path.join(d, f"p{seed}.c")
            fusion = k % 2 == 1
            with open(src, "w") as f:
                f.write(fusion_program(seed) if fusion else program(seed))
            out = os.path.join(d, f"p{seed}.out.c")
            # Fusion chains are counted with hand-given sizes: the model
            # inlines siblings read at one point before grouping.
            asked = FUSION_OPTIONS[0] if fusion else ["--rectangle"]
            explain = subprocess.run([a.flextile, src, "-o", out, *asked, "--explain"],
                                     capture_output=True, text=True)
            inlined += "expression inlining" in explain.stdout
            fused += "fuses the point loops" in explain.stdout
            explain = subprocess.run([a.flextile, src, "-o", out, *MULTI_LEVEL, "--explain"],
                                     capture_output=True, text=True)
            multi += "inner tiles" in explain.stdout
            for opts in OPTIONS + (FUSION_OPTIONS if fusion else []):
                for args in ARGS:
                    runs += 1
                    r = subprocess.run([a.flextile, src, "-o", out, *opts, "--verify", "--", *args.split()],
                                       capture_output=True, text=True)
                    said = r.stdout + r.stderr
                    if r.returncode != 0 or "verify: identical" not in said:
                        failures += 1
                        last = (said.strip().splitlines() or ["?"])[-1]
                        print(f"seed {seed} {' '.join(opts)} args {args}: {last}")
    print(f"inline_fuzz: {a.n} programs from seed {a.seed}, {inlined} with nests inlined, "
          f"{fused} with point loops fused, {multi} with inner tiles, {runs} runs, "
          f"{failures} differing")
    if failures or not inlined or not fused or not multi:
        sys.exit(1)


if __name__ == "__main__":
    main()
