#!/usr/bin/env python3
"""Random loop-chain programs for flextile's differential testing.

`generate(seed)` builds a *model* of a complete C program (arrays, regions,
nests, statements, schedules, argument sets), deterministically from the seed;
`render(program)` prints it as C. The runner (`run.py`) compiles the printed
program as is (the oracle) and after flextile, and compares their stdout; its
minimiser edits the model (drops regions, nests and statements, shrinks
offsets, domains and sizes) and re-renders, so every candidate stays a valid
program.

What a program holds:

* input arrays (read-only) and produced arrays: 1-3-D grids of doubles whose
  every dimension is `s*P + 2*MG` long (P = N, M, K; s = 1 or 2, the "scale",
  for up- and down-sampling), integer histograms `int H[16]` and one-cell
  accumulators `double S[1]`. Grid interiors are [MG, MG + s*P - 1]; domains
  are the interior widened or narrowed by a few points, and offsets stay
  within the margin, so every access is in bounds (`validate` checks it per
  argument set anyway);
* one to three regions: `#pragma omplc loopchain` chains (optionally inside
  an ordinary time loop) and `#pragma scop` regions (optionally with the time
  loop inside, min/max bounds, affine `if`s, imperfect nests);
* nests of several kinds: stencils with random offsets (asymmetric, wide,
  zero), pointwise stages, in-place (Gauss-Seidel-like) updates,
  accumulations (`+=`), down-sampling (reads `2*i-8`, `2*i-7`), up-sampling
  (iterates the coarse index, writes `2*i-8` and `2*i-7`), row reductions
  (an inner loop in the body: declared with `*`), reductions into a cell,
  histograms (data-dependent index: declared `{(*)}`), reads of lower-depth
  arrays and of constant rows; bodies as plain C (analysable, checked by
  flextile against the declaration), as macros, or as calls; macro and call
  bodies may name logical data sets and may declare more than they access;
* temporaries (about a third of the programs): arrays a region writes and no
  later region accesses, declared `temporary(...)` and not printed (see
  `temporaries_style`);
* unsigned iterators (`unsigned`, `unsigned int`, `size_t`, `unsigned long`,
  about a sixth of the loops: see `iterator_types_style`) where both bounds
  stay >= 0 (and a loop counting down stops at 1 or above) for every
  argument set, with iterator values that wrap in bodies; labels right
  before some regions' pragmas (`case 1:`, `default:`, goto labels: see
  `labels_style`);
* index spaces near INT_MAX and INT_MIN (about one program in eight: see
  `origin_style`): loops from a run-time origin `o` on,
  `for (i = o + 8; i <= o + N+7; i++)` with subscripts `A[i - o]`, and
  argument sets whose origins put the largest value of the original's
  arithmetic at or just below INT_MAX, or its origin at or just above
  INT_MIN, besides small ones;
* chain schedules chosen so that flextile must accept them: `schedule()`,
  `fuse()`, `fuse(shifts)` with legal shifts, `parallel`, `wavefront`,
  `tile((sizes), outer, inner)` with nested tiles, each only where a
  conservative dependence model (a superset of the real dependences, see
  `Deps`) proves it legal.

Values: inputs are k/2^24 in [-1, 1); stage expressions are weighted sums
with weights summing to at most 1 in absolute value, products, min/max and
sqrt(fabs()) of such, so values stay bounded (no inf/NaN whose bits could
depend on operand order). Floating-point results must be bit-identical
anyway: flextile must not reorder a body's arithmetic nor reductions.

Usage: `gen.py SEED [-o FILE]` prints the program of one seed.
"""

import argparse
import copy
import os
import random
import sys

MG = 8  # margin on each side of every grid dimension
TIME_STENCIL_SHARE = 0.12  # programs of the time-stencil flavor (generate_time_stencil)
NB = 16  # histogram buckets
PARAMS = ("N", "M", "K")
ITER_SETS = [
    ("i", "j", "k"),
    ("x", "y", "z"),
    ("i0", "i1", "i2"),
    ("c0", "c1", "c2"),  # flextile's own counter names: the output must rename
    ("row", "col", "dep"),
    ("ii", "jj", "kk"),
]
# Every construct is generated: the ones behind known open bugs
# (tools/difftest/known/README.md) included, so that runs report them.
HELPER_NAMES = ["ft_min", "ft_max", "ft_floord", "ft_A", "ft_T0"]
# Unsigned iterator types (see iterator_types_style); `int` stays the usual one.
ITER_TYPES = ["unsigned", "unsigned int", "size_t", "unsigned long"]
# The run-time origin of an index space near INT_MAX or INT_MIN (see origin_style).
ORIGIN = "o"
INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
# Labels before a region's pragma (see labels_style).
LABEL_KINDS = ["case", "default", "goto", "again"]
WEIGHTS = [0.5, 0.25, 0.125, 0.375, 0.0625, 0.2, 0.1, 0.3, 0.7, 0.45, 0.05, 1.0 / 3.0]


# ---------------------------------------------------------------------------
# Model


def temporaries_style(prog, r):
    """Temporaries (issue 18), drawn from their own generator `r` like
    legacy_style: in about a third of the programs, some arrays that a region
    writes and no later region accesses are declared temporary (a chain's
    `temporary(...)` clause names their data sets, a scop's `#pragma scop
    temporary(...)` the arrays), and main does not print them. The oracle
    then checks that declaring them changes none of the printed arrays. At
    least one written array stays printed."""
    if r.random() >= 0.35:
        return

    def accessed(reg, kinds):
        names = set()
        for n in reg.nests:
            acc = performed_accesses(n) + (declared_accesses(n) if reg.kind == "chain" else [])
            names |= {a for k, a, _ in acc if k in kinds}
        return names

    written_anywhere = set()
    for reg in prog.regions:
        written_anywhere |= accessed(reg, ("write",))
    for k, reg in enumerate(prog.regions):
        later = set()
        for other in prog.regions[k + 1:]:
            later |= accessed(other, ("read", "write"))
        cands = sorted(accessed(reg, ("write",)) - later)
        reg.temporaries = [a for a in cands if r.random() < 0.6]
    temps = {a for reg in prog.regions for a in reg.temporaries}
    if temps and temps >= written_anywhere:
        keep = sorted(temps)[0]
        for reg in prog.regions:
            reg.temporaries = [a for a in reg.temporaries if a != keep]


class Arr:
    """A data set: `grid` (doubles, margins), `hist` (int[NB]) or `cell` (double[1])."""

    def __init__(self, name, kind, scale=()):
        self.name = name
        self.kind = kind
        self.scale = tuple(scale)
        self.is_input = False

    @property
    def ndim(self):
        return len(self.scale) if self.kind == "grid" else 1

    @property
    def ctype(self):
        return "int" if self.kind == "hist" else "double"

    def extent_exprs(self):
        if self.kind == "hist":
            return [str(NB)]
        if self.kind == "cell":
            return ["1"]
        return [affine_str(s, PARAMS[d], 2 * MG) for d, s in enumerate(self.scale)]

    def extent_vals(self, env):
        if self.kind == "hist":
            return [NB]
        if self.kind == "cell":
            return [1]
        return [s * env[PARAMS[d]] + 2 * MG for d, s in enumerate(self.scale)]


# Index components: ('it', p, s, c) = s*iter_p + c; ('c', v) constant; ('any',)
# data-dependent or "every index" (declared '*').


class Nest:
    """One loop nest: an annotated chain nest or a scop nest.

    dims[p] = [scale, a, b]: loop p runs over [MG + a, scale*P_p + MG - 1 - b].
    stmts: ('assign', arr, comps, op, expr) | ('hist', arr, expr)
           | ('rowred', arr, comps, src, src_comps, q) (src_comps[q] is ('any',))
    extras: declared accesses the body does not perform: (kind, arr, comps).
    """

    def __init__(self, kind, iters, dims):
        self.kind = kind
        self.iters = list(iters)
        self.dims = [list(d) for d in dims]
        self.stmts = []
        self.extras = []
        self.style = "plain"  # plain | macro | call
        self.hdr = 0  # loop header style
        self.band = None  # scop: (c1, c2): loop 1 within [iter0 + c1, iter0 + c2]
        self.cond = None  # scop: (c,): if (iter0 <= iter1 + c)
        self.order = None  # scop: loop order (a permutation of the loops), None = in order
        self.step = 1  # scop: step of the innermost loop
        self.fmt = 0  # pragma formatting (continuations, comments)
        self.down = ()  # scop: loops (positions) written counting down
        self.itypes = None  # chain nests declaring their iterators: a C type per loop (None: int)
        self.origin = ()  # loops (positions) run from the origin ORIGIN on (see origin_style)

    @property
    def depth(self):
        return len(self.iters)


class Region:
    def __init__(self, kind):
        self.kind = kind  # chain | scop
        self.nests = []
        self.items = []  # chain schedule items
        self.time = False
        self.aliases = {}  # array name -> data set name in the pragmas
        self.free = False  # schedule items not proven legal (flextile may reject them)
        self.fmt = 0
        self.tdown = False  # scop: the time loop counts down
        self.temporaries = []  # arrays declared temporary (see temporaries_style)
        self.label = None  # (kind, reps): a label before the region's pragma (see labels_style)


class Program:
    def __init__(self, seed):
        self.seed = seed
        self.arrays = []
        self.regions = []
        self.argsets = []  # dicts N, M, K, T
        self.fn_iters = False  # iterators declared at function scope
        self.flavor = "mixed"  # mixed | pipeline (what overlapped tiling handles)
        self.tile_options = []  # suggested --tile-sizes lists
        self.legacy = False  # PolyBench-style spelling (see legacy_style)
        self.iter_types = {}  # iterators declared at function scope: name -> C type (absent: int)

    @property
    def may_reject(self):
        """True when flextile may legitimately reject the program (a free-form schedule)."""
        return any(r.free for r in self.regions)

    def arr(self, name):
        for a in self.arrays:
            if a.name == name:
                return a
        raise KeyError(name)


# ---------------------------------------------------------------------------
# Small helpers


def affine_str(coef, var, const):
    """`coef*var + const` as C/pragma text."""
    if coef == 0:
        return str(const)
    s = var if coef == 1 else f"{coef}*{var}"
    if const > 0:
        s += f"+{const}"
    elif const < 0:
        s += f"-{-const}"
    return s


def origin_var(it, spaced=True):
    """`it - o`: the value an iterator offset by the origin stands for."""
    return f"{it} - {ORIGIN}" if spaced else f"{it}-{ORIGIN}"


def comp_str(comp, iters, star="*", origin=(), spaced=True):
    """An index component as C or pragma text; loops in `origin` run from
    the origin on, so their iterator stands for `it - o` (`spaced`: C's
    spacing, else the pragmas' compact one)."""
    kind = comp[0]
    if kind == "it":
        _, p, s, c = comp
        if p in origin:
            base = origin_var(iters[p], spaced)
            base = base if s == 1 else f"{s}*({base})"
            if c == 0:
                return base
            sep = " " if spaced else ""
            return f"{base}{sep}{'+' if c > 0 else '-'}{sep}{abs(c)}"
        return affine_str(s, iters[p], c)
    if kind == "c":
        return str(comp[1])
    return star


def fnum(v):
    r = repr(float(v))
    return r


def expr_reads(e, out):
    """Collects ('rd', arr, comps) leaves of an expression."""
    k = e[0]
    if k == "rd":
        out.append((e[1], tuple(e[2])))
    elif k in ("wsum",):
        for _, t in e[1]:
            expr_reads(t, out)
    elif k in ("mul", "fmax", "fmin"):
        expr_reads(e[1], out)
        expr_reads(e[2], out)
    elif k == "sqrtabs":
        expr_reads(e[1], out)


def performed_accesses(nest):
    """(kind, arr, comps) the body performs, in order, without duplicates."""
    acc = []

    def add(kind, arr, comps):
        t = (kind, arr, tuple(comps))
        if t not in acc:
            acc.append(t)

    def stmt(st):
        if st[0] == "settmp":
            reads = []
            expr_reads(st[2], reads)
            for a, c in reads:
                add("read", a, c)
        elif st[0] == "guarded":
            reads = []
            expr_reads(st[1], reads)
            for a, c in reads:
                add("read", a, c)
            stmt(st[2])
        elif st[0] == "assign":
            _, arr, comps, op, ex = st
            reads = []
            expr_reads(ex, reads)
            for a, c in reads:
                add("read", a, c)
            if op == "+=":
                add("read", arr, comps)
            add("write", arr, comps)
        elif st[0] == "hist":
            _, arr, ex = st
            reads = []
            expr_reads(ex, reads)
            for a, c in reads:
                add("read", a, c)
            add("read", arr, (("any",),))
            add("write", arr, (("any",),))
        elif st[0] == "rowred":
            _, arr, comps, src, scomps, q = st
            add("read", src, scomps)
            add("write", arr, comps)

    for st in nest.stmts:
        stmt(st)
    return acc


def declared_accesses(nest):
    acc = performed_accesses(nest)
    for e in nest.extras:
        t = (e[0], e[1], tuple(e[2]))
        if t not in acc:
            acc.append(t)
    return acc


# ---------------------------------------------------------------------------
# Dependences: a superset of the real ones (see the module doc)


def delta(e_comps, l_comps, depth):
    """Distances y - x between an instance x of the earlier access and an
    instance y of the later one touching the same element: None when they
    never do; else a list per loop of an int or '*' (any value)."""
    d = [None] * depth
    star = set()
    for ce, cl in zip(e_comps, l_comps):
        if ce[0] == "any" or cl[0] == "any":
            continue
        if ce[0] == "c" and cl[0] == "c":
            if ce[1] != cl[1]:
                return None
            continue
        if ce[0] == "it" and cl[0] == "it" and ce[1] == cl[1] and ce[2] == cl[2]:
            p, s = ce[1], ce[2]
            diff = ce[3] - cl[3]
            if diff % s != 0:
                return None
            v = diff // s
            if d[p] is not None and d[p] != v:
                return None
            d[p] = v
            continue
        for c in (ce, cl):
            if c[0] == "it":
                star.add(c[1])
    return ["*" if (p in star or d[p] is None) else d[p] for p in range(depth)]


def concretes(vec):
    """Representatives of a distance pattern ('*' = -2..2)."""
    out = [[]]
    for v in vec:
        choices = [-2, -1, 0, 1, 2] if v == "*" else [v]
        out = [o + [c] for o in out for c in choices]
    return [tuple(o) for o in out]


def lex_positive(vecs):
    res = set()
    for v in vecs:
        if all(x == 0 for x in v):
            continue
        for x in v:
            if x != 0:
                res.add(v if x > 0 else tuple(-y for y in v))
                break
    return res


class Deps:
    """Dependence patterns of a chain, from the declared accesses.

    Every real dependence between instances x (earlier) and y (later) has a
    distance y - x matching one of these patterns: they are computed from
    pairs of accesses to the same data set (one a write) alone, ignoring
    domains and intervening writes (isl's exact dataflow finds a subset).
    """

    def __init__(self, region):
        self.region = region
        nests = region.nests
        self.acc = [declared_accesses(n) for n in nests]
        names = region.aliases
        self.self_reps = []
        for k, n in enumerate(nests):
            reps = set()
            a = self.acc[k]
            for i1 in range(len(a)):
                for i2 in range(i1, len(a)):
                    k1, r1, c1 = a[i1]
                    k2, r2, c2 = a[i2]
                    if names.get(r1, r1) != names.get(r2, r2) or (k1 == "read" and k2 == "read"):
                        continue
                    dv = delta(c1, c2, n.depth)
                    if dv is None:
                        continue
                    reps |= lex_positive(concretes(dv))
                    reps |= lex_positive(concretes([(-x if x != "*" else x) for x in dv]))
            self.self_reps.append(reps)
        # cross[(a, b)] = list of distance patterns, a < b
        self.cross = {}
        self.same_depth = len({n.depth for n in nests}) == 1
        for ia in range(len(nests)):
            for ib in range(ia + 1, len(nests)):
                pats = []
                for k1, r1, c1 in self.acc[ia]:
                    for k2, r2, c2 in self.acc[ib]:
                        if names.get(r1, r1) != names.get(r2, r2) or (k1 == "read" and k2 == "read"):
                            continue
                        if not self.same_depth:
                            pats.append(None)
                            continue
                        dv = delta(c1, c2, nests[ia].depth)
                        if dv is not None:
                            pats.append(dv)
                if pats:
                    self.cross[(ia, ib)] = pats

    def fusable(self):
        if not self.same_depth:
            return False
        for pats in self.cross.values():
            for p in pats:
                if p is None or "*" in p:
                    return False
        return True

    def min_shifts(self, rng=None):
        """Smallest non-negative legal shifts (with random slack when rng)."""
        nests = self.region.nests
        depth = nests[0].depth
        s = [[0] * depth for _ in nests]
        for b in range(len(nests)):
            for a in range(b):
                for p in self.cross.get((a, b), []):
                    for d in range(depth):
                        s[b][d] = max(s[b][d], s[a][d] - p[d])
            if rng is not None:
                for d in range(depth):
                    if rng.random() < 0.25:
                        s[b][d] += rng.choice([1, 1, 2, 3])
                if depth >= 2 and rng.random() < 0.2:
                    # legal but not componentwise: one step later in loop 1, earlier in loop 2
                    t = list(s[b])
                    t[0] += 1
                    t[1] -= rng.choice([1, 2, 5])
                    if all(lex_nonneg([p[d] + t[d] - s[a][d] for d in range(depth)])
                           for a in range(b) for p in self.cross.get((a, b), [])):
                        s[b] = t
        return s

    def fused_reps(self, shifts):
        reps = set()
        for r in self.self_reps:
            reps |= r
        for (a, b), pats in self.cross.items():
            for p in pats:
                reps.add(tuple(p[d] + shifts[b][d] - shifts[a][d] for d in range(len(p))))
        return reps


def lex_nonneg(v):
    for x in v:
        if x != 0:
            return x > 0
    return True


def prefix_of(reps, depth):
    k = 0
    while k < depth and all(v[k] >= 0 for v in reps):
        k += 1
    return k


def par0(reps):
    return all(v[0] == 0 for v in reps)


# ---------------------------------------------------------------------------
# Generation


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.prog = Program(seed)
        self.nfn = 0
        self.ntmp = 0
        self.next_name = 0

    def new_name(self, prefix="A"):
        names = "ABCDEFGHJLPQRUVWXY"
        if prefix == "A" and self.rng.random() < 0.04:
            taken = {a.name for a in self.prog.arrays}
            free = [h for h in HELPER_NAMES if h not in taken]
            if free:
                return self.rng.choice(free)
        k = self.next_name
        self.next_name += 1
        base = names[k % len(names)]
        if k >= len(names):
            base += str(k // len(names))
        if prefix != "A":
            base = prefix + str(k)
        return base

    def grid(self, scale, produced=True):
        a = Arr(self.new_name(), "grid", scale)
        a.is_input = not produced
        self.prog.arrays.append(a)
        return a

    def pick_grid(self, scale, avoid=(), allow_new=True):
        """An existing grid of that shape (recent ones likelier), or a new input."""
        cands = [a for a in self.prog.arrays if a.kind == "grid" and a.scale == tuple(scale) and a.name not in avoid]
        r = self.rng
        if cands and (not allow_new or r.random() < 0.85):
            if r.random() < 0.5:
                return cands[-1 - min(len(cands) - 1, int(r.expovariate(1.0)))]
            return r.choice(cands)
        return self.grid(scale, produced=False)

    def offset(self):
        r = self.rng.random()
        if r < 0.4:
            return 0
        if r < 0.7:
            return self.rng.choice([-1, 1])
        if r < 0.9:
            return self.rng.choice([-3, -2, 2, 3])
        return self.rng.choice([-6, -5, -4, 4, 5, 6])

    def weights(self, n):
        r = self.rng
        w = [r.choice(WEIGHTS) * r.choice([1, 1, 1, -1]) for _ in range(n)]
        tot = sum(abs(x) for x in w)
        if tot > 1.0:
            w = [x / tot for x in w]
        return w

    def read_expr(self, terms):
        """A bounded expression of the read terms ('rd' leaves)."""
        r = self.rng
        if len(terms) >= 2 and r.random() < 0.2:
            op = r.choice(["mul", "fmax", "fmin"])
            half = len(terms) // 2
            return (op, self.read_expr(terms[:half]), self.read_expr(terms[half:]))
        parts = list(terms)
        if r.random() < 0.3:
            parts.append(("num", r.choice([0.5, -0.25, 1.0, 0.125])))
        if r.random() < 0.15:
            parts.append(("itv", [r.randint(1, 7) for _ in range(3)], r.randint(3, 9)))
        w = self.weights(len(parts))
        e = ("wsum", list(zip(w, parts)))
        if r.random() < 0.1:
            e = ("sqrtabs", e)
        return e

    def dims_for(self, scale):
        r = self.rng
        dims = []
        for s in scale:
            a = r.choice([0, 0, 0, 1, 2, 3, -1, -2])
            b = r.choice([0, 0, 0, 1, 2, 3, -1, -2])
            if r.random() < 0.05:
                a = -MG + 6  # domain starting near index 0
            dims.append([s, a, b])
        return dims

    def ident(self, depth, offs=None):
        return tuple(("it", p, 1, offs[p] if offs else 0) for p in range(depth))

    def iters(self, depth):
        names = self.rng.choice(ITER_SETS)
        return names[:depth]

    # -- nests of a region ------------------------------------------------

    def nest_same_shape(self, depth, scale, kind, scop, time_feedback=None):
        """Stencil-like nests whose output and inputs share the shape."""
        r = self.rng
        n = Nest(kind, self.iters(depth), self.dims_for(scale))
        if kind == "reduce":
            cell = Arr(self.new_name("S"), "cell")
            self.prog.arrays.append(cell)
            src = self.pick_grid(scale)
            offs = [self.offset() for _ in range(depth)]
            ex = ("wsum", [(0.5, ("rd", cell.name, (("c", 0),))), (0.5, ("rd", src.name, self.ident(depth, offs)))])
            n.stmts.append(("assign", cell.name, (("c", 0),), "=", ex))
            return n
        if kind == "hist":
            h = Arr(self.new_name("H"), "hist")
            self.prog.arrays.append(h)
            src = self.pick_grid(scale)
            offs = [self.offset() for _ in range(depth)]
            n.stmts.append(("hist", h.name, ("rd", src.name, self.ident(depth, offs))))
            if r.random() < 0.3:
                n.style = "macro"
            else:
                n.style = r.choice(["plain", "call"])
            return n
        if time_feedback is not None:
            out = time_feedback
        elif kind == "inplace" or (r.random() < 0.3 and self.prog.flavor != "pipeline"):
            out = self.pick_grid(scale, allow_new=False)
        else:
            out = self.grid(scale)
        nterms = r.randint(1, 4) if kind != "point" else r.randint(1, 3)
        terms = []
        for _ in range(nterms):
            src = out if (kind == "inplace" and r.random() < 0.6) else self.pick_grid(scale, avoid=(out.name,))
            offs = [0] * depth if kind == "point" else [self.offset() for _ in range(depth)]
            terms.append(("rd", src.name, self.ident(depth, offs)))
        if kind == "inplace" and not any(t[1] == out.name for t in terms):
            offs = [self.offset() for _ in range(depth)]
            terms.append(("rd", out.name, self.ident(depth, offs)))
        op = "+=" if kind == "accum" else "="
        wcomps = self.ident(depth)
        if r.random() < 0.2 and kind != "accum":
            wcomps = self.ident(depth, [r.choice([-2, -1, 0, 1, 2, 3]) for _ in range(depth)])
        st = ("assign", out.name, wcomps, op, self.read_expr(terms))
        guard_p = 0.03 if self.prog.flavor == "pipeline" else 0.12
        if not scop and r.random() < guard_p:
            g = self.pick_grid(scale)
            st = ("guarded", ("rd", g.name, self.ident(depth, [self.offset() for _ in range(depth)])), st)
        n.stmts.append(st)
        if kind in ("point", "stencil") and r.random() < 0.15 and not scop:
            # a second output in the same body
            out2 = self.grid(scale)
            src = self.pick_grid(scale, avoid=(out.name, out2.name))
            offs = [self.offset() for _ in range(depth)]
            n.stmts.append(("assign", out2.name, self.ident(depth), "=",
                            self.read_expr([("rd", src.name, self.ident(depth, offs)), ("rd", out.name, self.ident(depth))])))
        return n

    def nest_sampling(self, depth, scale, kind):
        """Down- or up-sampling in one dimension q."""
        r = self.rng
        if kind == "down":
            qs = [d for d in range(depth) if scale[d] == 2]
        else:
            qs = [d for d in range(depth) if scale[d] == 1]
        if not qs:
            return None
        q = r.choice(qs)
        if kind == "down":
            fine = list(scale)
            coarse = list(scale)
            coarse[q] = 1
            src = self.pick_grid(fine)
            out = self.grid(coarse)
            n = Nest(kind, self.iters(depth), self.dims_for(coarse))
            terms = []
            ks = r.choice([[0, 1], [0, 1], [-1, 0, 1, 2], [0]])
            for k in ks:
                comps = list(self.ident(depth))
                comps[q] = ("it", q, 2, -MG + k)
                terms.append(("rd", src.name, tuple(comps)))
            if r.random() < 0.3:
                other = self.pick_grid(coarse, avoid=(out.name,))
                terms.append(("rd", other.name, self.ident(depth, [self.offset() if r.random() < 0.3 else 0 for _ in range(depth)])))
            n.stmts.append(("assign", out.name, self.ident(depth), "=", self.read_expr(terms)))
            return n
        coarse = list(scale)
        fine = list(scale)
        fine[q] = 2
        src = self.pick_grid(coarse)
        out = self.grid(fine)
        n = Nest(kind, self.iters(depth), self.dims_for(coarse))
        for k in (0, 1):
            comps = list(self.ident(depth))
            comps[q] = ("it", q, 2, -MG + k)
            terms = [("rd", src.name, self.ident(depth))]
            o = [0] * depth
            o[q] = k if k else -r.choice([0, 1])
            terms.append(("rd", src.name, self.ident(depth, o)))
            n.stmts.append(("assign", out.name, tuple(comps), "=", self.read_expr(terms)))
        return n

    def nest_rowred(self, depth, scale, scop):
        """depth-1 output from a depth input reduced over its last dimension."""
        if depth < 2:
            return None
        src = self.pick_grid(scale)
        out = self.grid(scale[:-1])
        n = Nest("rowred", self.iters(depth - 1), self.dims_for(scale[:-1]))
        offs = [self.offset() for _ in range(depth - 1)]
        scomps = tuple(list(self.ident(depth - 1, offs)) + [("any",)])
        n.stmts.append(("rowred", out.name, self.ident(depth - 1), src.name, scomps, depth - 1))
        if scop:
            n.style = "plain"
        return n

    def nest_lowdepth_read(self, depth, scale):
        """A depth-d nest reading a (d-1)-D array (broadcast) or a constant row."""
        r = self.rng
        if depth < 2:
            return None
        out = self.grid(scale) if r.random() < 0.7 else self.pick_grid(scale, allow_new=False)
        n = Nest("bcast", self.iters(depth), self.dims_for(scale))
        terms = [("rd", self.pick_grid(scale, avoid=(out.name,)).name, self.ident(depth, [self.offset() for _ in range(depth)]))]
        if r.random() < 0.5:
            low = self.pick_grid(scale[:-1])
            terms.append(("rd", low.name, self.ident(depth - 1, [self.offset() for _ in range(depth - 1)])))
        else:
            src = self.pick_grid(scale, avoid=(out.name,))
            comps = list(self.ident(depth))
            comps[-1] = ("c", MG + r.randint(-2, 2))
            terms.append(("rd", src.name, tuple(comps)))
        n.stmts.append(("assign", out.name, self.ident(depth), "=", self.read_expr(terms)))
        return n

    def gen_nests(self, depth, scale, count, general, scop):
        r = self.rng
        nests = []
        kinds_same = ["stencil"] * 6 + ["point"] * 3 + ["inplace"] * 2 + ["accum"] + ["reduce", "hist"]
        if scop:
            kinds_same = ["stencil"] * 6 + ["point"] * 3 + ["inplace"] * 2 + ["accum", "reduce"]
        pipeline = self.prog.flavor == "pipeline"
        if pipeline:
            kinds_same = ["stencil"] * 3 + ["point"]
        for _ in range(count):
            n = None
            if general and r.random() < 0.35:
                kind = r.choice(["down", "up", "rowred", "bcast"] if not scop else ["down", "up", "rowred"])
                if pipeline:
                    kind = r.choice(["down", "up"])
                if kind in ("down", "up"):
                    n = self.nest_sampling(depth, scale, kind)
                elif kind == "rowred":
                    n = self.nest_rowred(depth, scale, scop)
                else:
                    n = self.nest_lowdepth_read(depth, scale)
            if n is None:
                kind = r.choice(kinds_same)
                if kind in ("reduce", "hist") and r.random() < 0.5:
                    kind = "stencil"
                n = self.nest_same_shape(depth, scale, kind, scop)
            if not scop and not pipeline and n.style == "plain" and n.kind not in ("hist",):
                n.style = r.choice(["plain", "plain", "plain", "macro", "macro", "call"])
            n.hdr = r.randint(0, 3)
            n.fmt = r.randint(0, 5)
            nests.append(n)
        return nests

    # -- regions ----------------------------------------------------------

    def gen_chain(self, depth):
        r = self.rng
        reg = Region("chain")
        reg.fmt = r.randint(0, 4)
        scale = tuple(r.choice([1, 1, 1, 2]) for _ in range(depth))
        general = r.random() < 0.45
        count = r.choice([1, 2, 2, 3, 3, 4, 4, 5, 6])
        if self.prog.flavor == "pipeline":
            general = r.random() < 0.2
            count = r.choice([2, 3, 3, 4, 4, 5, 6, 8])
        reg.nests = self.gen_nests(depth, scale, count, general, scop=False)
        if self.prog.flavor == "pipeline" and r.random() < 0.5 and reg.nests:
            # often one domain (up to the scale) for every nest of the chain
            first = reg.nests[0].dims
            for n in reg.nests[1:]:
                for p, d in enumerate(n.dims):
                    if p < len(first):
                        d[1], d[2] = first[p][1], first[p][2]
        reg.time = r.random() < 0.25 and self.prog.flavor != "pipeline"
        if reg.time and reg.nests:
            # feedback: the last nest writes an array the first one reads
            first_reads = [a for (k, a, c) in performed_accesses(reg.nests[0]) if k == "read"]
            cands = [a for a in first_reads if self.prog.arr(a).kind == "grid" and self.prog.arr(a).scale == scale]
            if cands and depth == reg.nests[0].depth:
                fb = self.nest_same_shape(depth, scale, "stencil", False, time_feedback=self.prog.arr(cands[0]))
                fb.style = r.choice(["plain", "macro"])
                fb.hdr = r.randint(0, 3)
                reg.nests.append(fb)
        # logical data-set names for arrays only macro/call bodies touch
        touched = {}
        for n in reg.nests:
            for _, a, _ in performed_accesses(n):
                touched.setdefault(a, set()).add(n.style)
        for a, styles in touched.items():
            if "plain" not in styles and r.random() < 0.3 and self.prog.flavor != "pipeline":
                reg.aliases[a] = "D_" + a
        # extra declared accesses on opaque bodies
        for n in reg.nests:
            if n.style != "plain" and r.random() < 0.25 and self.prog.flavor != "pipeline":
                acc = performed_accesses(n)
                grids = [(k, a, c) for (k, a, c) in acc if self.prog.arr(a).kind == "grid" and all(x[0] == "it" for x in c)]
                if grids:
                    k, a, c = r.choice(grids)
                    c2 = tuple(("it", x[1], x[2], x[3] + r.choice([-1, 1])) for x in c)
                    n.extras.append(("read", a, c2))
        choose_schedule(reg, r)
        return reg

    def gen_scop(self, depth):
        r = self.rng
        reg = Region("scop")
        scale = tuple(r.choice([1, 1, 1, 2]) for _ in range(depth))
        general = r.random() < 0.4
        count = r.choice([1, 2, 2, 3, 3, 4])
        reg.nests = self.gen_nests(depth, scale, count, general, scop=True)
        for n in reg.nests:
            n.style = "plain"
            if n.depth >= 2 and n.kind != "rowred" and r.random() < 0.2:
                c1 = r.randint(-6, 0)
                n.band = (c1, c1 + r.randint(0, 8))
            if n.depth >= 2 and n.kind != "rowred" and r.random() < 0.15:
                n.cond = (r.randint(-4, 4),)
            if n.depth >= 2 and n.kind != "rowred" and n.band is None and r.random() < 0.2:
                n.order = list(range(n.depth))
                while n.order == sorted(n.order):
                    r.shuffle(n.order)
            if n.kind != "rowred" and r.random() < 0.1:
                n.step = r.choice([2, 3])
            if n.kind in ("stencil", "point") and len(n.stmts) == 1 and n.stmts[0][0] == "assign" and r.random() < 0.2:
                # a scalar temporary carries the value from one statement to the next
                _, arr, comps, op, ex = n.stmts[0]
                self.ntmp += 1
                name = f"tmp{self.ntmp}"
                n.stmts = [("settmp", name, ex), ("assign", arr, comps, op, ("wsum", [(0.5, ("var", name)), (0.25, ("num", 0.5))]))]
        if r.random() < 0.25:
            # a statement outside every loop (a 0-D stage)
            cells = [a for a in self.prog.arrays if a.kind == "cell"]
            if cells:
                cell = r.choice(cells)
            else:
                cell = Arr(self.new_name("S"), "cell")
                self.prog.arrays.append(cell)
            z = Nest("scalar", (), ())
            z.stmts.append(("assign", cell.name, (("c", 0),), "=", ("wsum", [(0.5, ("rd", cell.name, (("c", 0),))), (0.25, ("num", 1.0))])))
            reg.nests.insert(r.randrange(len(reg.nests) + 1), z)
        reg.time = r.random() < 0.6
        return reg

    def generate(self):
        # A separate draw picks the time-stencil flavor, so that the programs
        # of the other seeds stay what they were.
        if random.Random(self.prog.seed * 7919 + 17).random() < TIME_STENCIL_SHARE:
            return self.generate_time_stencil()
        r = self.rng
        p = self.prog
        depth = r.choice([1, 1, 2, 2, 2, 3])
        p.fn_iters = r.random() < 0.3
        nreg = r.choice([1, 1, 1, 2, 2, 3])
        if r.random() < 0.35:
            p.flavor = "pipeline"
            nreg = r.choice([1, 1, 2])
        for _ in range(nreg):
            if r.random() < 0.7 or p.flavor == "pipeline":
                p.regions.append(self.gen_chain(depth))
            else:
                p.regions.append(self.gen_scop(depth))
        p.argsets = self.argsets(depth)
        p.tile_options = self.tile_options(depth)
        fix_bounds(p)
        return p

    def generate_time_stencil(self):
        """A scop with a time loop around 2-3 stencil nests in the form that
        overlapped tiling of a time loop takes: each nest writes its own
        array and reads the others (of the same step when their writer comes
        first, of the step before otherwise) and read-only inputs, at random
        offsets, some writes shifted; longer time loops (blocks and a
        remainder); tile sizes that give the time loop a size."""
        r = self.rng
        p = self.prog
        p.flavor = "stencil"
        depth = r.choice([1, 1, 2, 2, 3])
        p.fn_iters = r.random() < 0.3
        scale = (1,) * depth
        reg = Region("scop")
        reg.time = True
        outs = [self.grid(scale) for _ in range(r.choice([2, 2, 3]))]
        inputs = [self.grid(scale, produced=False) for _ in range(r.choice([0, 1]))]
        iters = self.iters(depth)
        for out in outs:
            n = Nest("stencil", iters, self.dims_for(scale))
            srcs = [a for a in outs + inputs if a is not out]
            terms = []
            for _ in range(r.randint(1, 4)):
                src = r.choice(srcs)
                terms.append(("rd", src.name, self.ident(depth, [self.offset() for _ in range(depth)])))
            wcomps = self.ident(depth)
            if r.random() < 0.2:
                wcomps = self.ident(depth, [r.choice([-2, -1, 0, 1, 2]) for _ in range(depth)])
            n.stmts.append(("assign", out.name, wcomps, "=", self.read_expr(terms)))
            n.hdr = r.randint(0, 3)
            n.fmt = r.randint(0, 5)
            reg.nests.append(n)
        p.regions.append(reg)
        p.argsets = self.argsets(depth)
        for env in p.argsets:
            env["T"] = r.choice([0, 1, 3, 4, 5, 7, 9, 12])
        p.tile_options = [[r.choice([1, 2, 3, 4, 5])] + [r.choice([2, 3, 4, 5, 7, 8, 16]) for _ in range(depth)]
                          for _ in range(3)]
        fix_bounds(p)
        return p

    def argsets(self, depth):
        r = self.rng
        tiny = {1: [1, 2, 3], 2: [1, 2, 3], 3: [1, 2]}[depth]
        mid = {1: (5, 40), 2: (4, 20), 3: (3, 8)}[depth]
        large = {1: (60, 700), 2: (24, 60), 3: (9, 16)}[depth]
        sets = []
        env = {"N": r.choice(tiny), "M": r.choice(tiny), "K": r.choice(tiny), "T": r.choice([0, 1, 1, 2])}
        if r.random() < 0.5:
            env[PARAMS[r.randrange(depth)]] = r.randint(*mid)
        sets.append(env)
        sets.append({"N": r.randint(*mid), "M": r.randint(*mid), "K": r.randint(*mid), "T": r.choice([1, 2, 3])})
        if r.random() < 0.6:
            sets.append({"N": r.randint(*large), "M": r.randint(*mid if depth == 1 else large), "K": r.randint(*mid), "T": r.choice([1, 2])})
        return sets

    def tile_options(self, depth):
        r = self.rng
        opts = []
        for _ in range(3):
            n = r.choice([depth, depth, max(1, depth - 1), depth + 1])
            opts.append([r.choice([1, 2, 3, 4, 5, 7, 8, 16, 32]) for _ in range(n)])
        return opts


# ---------------------------------------------------------------------------
# Schedules


def tile_spec(r, bands, depth_min, allow_nest=True):
    """A tile((sizes), outer, inner) legal for every band in `bands`
    ([(depth, prefix, parallel0)]); None when no loop can be tiled."""
    pmin = min(b[1] for b in bands)
    if pmin == 0:
        return None
    n = r.randint(1, pmin)
    if r.random() < 0.15:
        n = pmin + 1  # more sizes than loops: flextile tiles min(len, depth)
    if any(min(n, depth) > prefix for depth, prefix, _ in bands):
        n = pmin
    k = min(n, depth_min)
    sizes = [r.choice([1, 2, 3, 4, 5, 7, 8, 16]) for _ in range(n)]
    par = all(b[2] for b in bands)

    def treat(level):
        choices = ["serial", "serial"]
        if par:
            choices += ["parallel", "parallel"]
        if k >= 2:
            choices.append("wavefront")
        if level == "inner" and allow_nest and r.random() < 0.2:
            inner = tile_spec(r, [(k, k, par)], k, allow_nest=False)
            if inner is not None:
                return inner
        return r.choice(choices)

    return ("tile", sizes, treat("outer"), treat("inner"))


def free_items(reg, r):
    """A schedule of random items in random order, not checked: flextile may
    reject it (with a diagnostic), and must compile it correctly otherwise."""
    depth = max(n.depth for n in reg.nests)
    items = []
    for _ in range(r.randint(1, 3)):
        x = r.random()
        if x < 0.3:
            if r.random() < 0.5:
                items.append(("fuse", None))
            else:
                items.append(("fuse", [[r.choice([0, 0, 1, 2, -1]) for _ in range(depth)] for _ in reg.nests]))
        elif x < 0.45:
            items.append(("parallel",))
        elif x < 0.6:
            items.append(("wavefront",))
        else:
            treat = ["serial", "parallel", "wavefront"]
            inner = r.choice(treat) if r.random() < 0.8 else ("tile", [r.choice([2, 3, 4]) for _ in range(r.randint(1, depth))], r.choice(treat), r.choice(treat))
            items.append(("tile", [r.choice([1, 2, 4, 5, 8, 16]) for _ in range(r.randint(1, depth + 1))], r.choice(treat), inner))
    return items


def choose_schedule(reg, r):
    if r.random() < 0.08:
        reg.free = True
        reg.items = free_items(reg, r)
        return
    deps = Deps(reg)
    nests = reg.nests
    items = []
    fused = False
    shifts = None
    if deps.fusable() and r.random() < 0.65:
        fused = True
        if r.random() < 0.4:
            shifts = deps.min_shifts(r)
            items.append(("fuse", shifts))
        else:
            shifts = deps.min_shifts(None)
            items.append(("fuse", None))
    if fused and len(nests) > 1:
        reps = deps.fused_reps(shifts)
        d = nests[0].depth
        par = par0(reps)
        if items[0][1] is None:
            # flextile picks its own shifts: parallel only when no dependence crosses dimension 0
            par = par and all(p[0] == 0 for pats in deps.cross.values() for p in pats)
        bands = [(d, prefix_of(reps, d), par)]
    else:
        bands = [(n.depth, prefix_of(deps.self_reps[k], n.depth), par0(deps.self_reps[k])) for k, n in enumerate(nests)]
    x = r.random()
    depth_min = min(b[0] for b in bands)
    if x < 0.45:
        spec = tile_spec(r, bands, depth_min)
        if spec is not None:
            items.append(spec)
            if spec[2] == "parallel" and r.random() < 0.2:
                items.append(("parallel",))
    elif x < 0.6:
        if all(b[2] for b in bands):
            items.append(("parallel",))
    elif x < 0.7:
        if all(b[0] >= 2 and b[1] == b[0] for b in bands):
            items.append(("wavefront",))
    reg.items = items


def schedule_legal(reg):
    """Re-checks a chain's schedule items against the dependence model
    (after minimisation edits)."""
    deps = Deps(reg)
    nests = reg.nests
    if not nests:
        return False
    items = reg.items
    fused = bool(items) and items[0][0] == "fuse"
    if fused:
        if not deps.fusable():
            return False
        shifts = items[0][1]
        if shifts is not None:
            if len(shifts) != len(nests):
                return False
            for (a, b), pats in deps.cross.items():
                for p in pats:
                    if not lex_nonneg([p[d] + shifts[b][d] - shifts[a][d] for d in range(len(p))]):
                        return False
        else:
            shifts = deps.min_shifts(None)
    if fused and len(nests) > 1:
        reps = deps.fused_reps(shifts)
        d = nests[0].depth
        par = par0(reps)
        if items[0][1] is None:
            par = par and all(p[0] == 0 for pats in deps.cross.values() for p in pats)
        bands = [(d, prefix_of(reps, d), par)]
    else:
        bands = [(n.depth, prefix_of(deps.self_reps[k], n.depth), par0(deps.self_reps[k])) for k, n in enumerate(nests)]

    def spec_ok(spec, bands):
        _, sizes, outer, inner = spec
        for depth, prefix, par in bands:
            k = min(len(sizes), depth)
            if k > prefix:
                return False
            for t in (outer, inner):
                if t == "parallel" and not par:
                    return False
                if t == "wavefront" and k < 2:
                    return False
                if isinstance(t, tuple) and not spec_ok(t, [(k, k, par)]):
                    return False
        return True

    for it in items[1 if fused else 0:]:
        if it[0] == "tile" and not spec_ok(it, bands):
            return False
        if it[0] == "parallel" and not all(b[2] for b in bands):
            return False
        if it[0] == "wavefront" and not all(b[0] >= 2 and b[1] == b[0] for b in bands):
            return False
        if it[0] == "fuse":
            return False
    return True


# ---------------------------------------------------------------------------
# Bounds


def loop_range(nest, p, env):
    s, a, b = nest.dims[p]
    return MG + a, s * env[PARAMS[p]] + MG - 1 - b


def access_in_bounds(prog, nest, comps, arrname, env):
    arr = prog.arr(arrname)
    ext = arr.extent_vals(env)
    for d, c in enumerate(comps):
        if c[0] == "it":
            _, p, s, k = c
            lo, hi = loop_range(nest, p, env)
            if s * lo + k < 0 or s * hi + k > ext[d] - 1:
                return False
        elif c[0] == "c":
            if not 0 <= c[1] < ext[d]:
                return False
    return True


def nest_in_bounds(prog, nest, env):
    for p in range(nest.depth):
        lo, hi = loop_range(nest, p, env)
        if lo > hi:
            return True  # empty: nothing runs
    for kind, a, c in declared_accesses(nest):
        if not access_in_bounds(prog, nest, c, a, env):
            return False
    return True


def validate(prog):
    """None when the program is valid, else the reason."""
    for reg in prog.regions:
        if not reg.nests:
            return "empty region"
        for n in reg.nests:
            for env in prog.argsets:
                if not nest_in_bounds(prog, n, env):
                    return f"out of bounds in a {n.kind} nest for {env}"
            for p in range(n.depth):
                if MG + n.dims[p][1] < 0:
                    return "negative lower bound"
        if reg.kind == "chain":
            arity = {}
            for n in reg.nests:
                for _, a, c in declared_accesses(n):
                    name = reg.aliases.get(a, a)
                    if arity.setdefault(name, len(c)) != len(c):
                        return "arity mismatch"
            if not reg.free and not schedule_legal(reg):
                return "schedule not legal under the dependence model"
        if reg.label is not None and reg.label[0] == "again" and reg.label[1] > 1 and reg.temporaries:
            return "a region with temporaries runs twice"
    return unsigned_problem(prog) or origin_problem(prog)


def fix_bounds(prog):
    """Narrows domains until every access is in bounds for every argument set."""
    for reg in prog.regions:
        for n in reg.nests:
            for _ in range(40):
                if all(nest_in_bounds(prog, n, env) for env in prog.argsets):
                    break
                for d in n.dims:
                    d[1] = min(d[1] + 1, MG)
                    d[2] = min(d[2] + 1, MG)


def legacy_style(prog, r):
    """Legacy spellings, drawn from their own generator `r` so that the
    programs of every seed keep their model: PolyBench-style macros in bodies
    (`SCALAR_VAL(x)` literals, a statement that ends in one, `SQRT_FUN`,
    `FMAX_FUN`, array-access macros `AT2(A, i, j)`, so statements start with a
    macro), scop bounds written with object-like macros (`MARGIN`, which a
    `-D` could change, and `_PB_N`-like names of the parameters), and scop
    loops (the time loop too) that count down: `i--`, `--i`, `i -= 1`,
    `i = i - 1`. Counting down changes the order of the original program,
    which stays the oracle; chains are left counting up (their schedules are
    chosen by a model of increasing loops)."""
    prog.legacy = r.random() < 0.35
    for reg in prog.regions:
        if reg.kind != "scop":
            continue
        reg.tdown = r.random() < 0.2
        for n in reg.nests:
            if n.kind == "scalar":
                continue
            n.down = tuple(p for p in range(n.depth)
                           if r.random() < 0.25 and not (n.step > 1 and p == (n.order or list(range(n.depth)))[-1]))


def fn_scope_loops(prog):
    """The loops whose iterator is declared at the kernel's scope, per name:
    (region, nest, position), with position "t" for a scop's time loop and
    "q" for the inner loop of a scop's row reduction (nest None for "t")."""
    uses = {}
    for reg in prog.regions:
        if reg.kind == "scop" and reg.time:
            uses.setdefault("t", []).append((reg, None, "t"))
        for n in reg.nests:
            if reg.kind == "scop" or prog.fn_iters:
                for p, it in enumerate(n.iters):
                    uses.setdefault(it, []).append((reg, n, p))
            if reg.kind == "scop" and n.kind == "rowred":
                uses.setdefault("q", []).append((reg, n, "q"))
    return uses


def iter_type(prog, reg, nest, p):
    """The C type of loop p's iterator: the kernel's declaration of its name
    (scops, and chains when prog.fn_iters), else the loop's own."""
    if reg.kind == "scop" or prog.fn_iters:
        return prog.iter_types.get(nest.iters[p], "int")
    return nest.itypes[p] if nest.itypes else "int"


def unsigned_loop_problem(nest, p, env):
    """Why loop p of `nest` cannot count with an unsigned iterator for `env`
    (None when it can): a negative bound (converted to a huge unsigned one),
    a loop counting down to 0 (`i >= 0` always holds) or a band bound
    `iter0 + c` that is negative (or wraps when iter0 is unsigned)."""
    lo, hi = loop_range(nest, p, env)
    if lo < 0 or hi < 0:
        return "a negative bound"
    if p in nest.down and lo < 1:
        return "a loop counting down to 0"
    if nest.band is not None and p in (0, 1) and nest.depth >= 2:
        lo0, hi0 = loop_range(nest, 0, env)
        if lo0 <= hi0 and min(lo0 + nest.band[0], lo0 + nest.band[1]) < 0:
            return "a negative band bound"
    return None


def unsigned_problem(prog):
    """None when every loop with an unsigned iterator terminates and stays in
    bounds for every argument set, else the reason."""
    checks = []
    for name, uses in sorted(fn_scope_loops(prog).items()):
        if prog.iter_types.get(name, "int") == "int":
            continue
        for reg, n, p in uses:
            if p == "t":
                if reg.tdown:
                    return f"unsigned {name} counts down to 0"
            elif p != "q":
                checks.append((name, n, p))
    if not prog.fn_iters:
        for reg in prog.regions:
            if reg.kind != "chain":
                continue
            for n in reg.nests:
                if n.itypes is None:
                    continue
                if len(n.itypes) != n.depth:
                    return "iterator types do not match the nest"
                checks += [(n.iters[p], n, p) for p, t in enumerate(n.itypes) if t != "int"]
    for name, n, p in checks:
        for env in prog.argsets:
            why = unsigned_loop_problem(n, p, env)
            if why is not None:
                return f"unsigned {name}: {why} for {env}"
    return None


def wrap_terms(nest, r):
    """Iterator values that wrap in unsigned arithmetic: some `itv` terms of
    the nest's statements get an offset (`(3*i + 5*j - 40) % 7`: negative in
    int, 2^32 or 2^64 minus something in unsigned types), and a nest without
    one sometimes gets such a term."""
    found = []

    def walk(e):
        k = e[0]
        if k == "itv":
            found.append(e)
            if len(e) == 3 and r.random() < 0.6:
                return ("itv", e[1], e[2], r.randint(1, 64))
            return e
        if k == "wsum":
            return ("wsum", [(w, walk(t)) for w, t in e[1]])
        if k in ("mul", "fmax", "fmin"):
            return (k, walk(e[1]), walk(e[2]))
        if k == "sqrtabs":
            return (k, walk(e[1]))
        return e

    def stmt(st):
        if st[0] == "assign":
            return st[:4] + (walk(st[4]),)
        if st[0] == "settmp":
            return (st[0], st[1], walk(st[2]))
        if st[0] == "guarded":
            return (st[0], st[1], stmt(st[2]))
        return st

    nest.stmts = [stmt(st) for st in nest.stmts]
    if not found and r.random() < 0.35:
        for k, st in enumerate(nest.stmts):
            if st[0] == "assign":
                term = ("itv", [r.randint(1, 7) for _ in range(3)], r.randint(3, 9), r.randint(1, 64))
                nest.stmts[k] = st[:4] + (("wsum", [(0.875, st[4]), (0.125, term)]),)
                break


def iterator_types_style(prog, r):
    """Unsigned iterators (issue 54), drawn from their own generator `r` like
    legacy_style: in about a third of the programs (two in five draw them,
    some of which have no loop that may take them), some iterator names the
    kernel declares (scop loops, the time loop `t`, a row reduction's `q`,
    chain loops when prog.fn_iters) get one of ITER_TYPES, and so do some
    loops of chain nests that declare their own iterators
    (`for (size_t i = ...)`). Only where every loop of that iterator
    terminates and stays in bounds for every argument set
    (unsigned_problem: both bounds >= 0, a loop counting down stops at 1 or
    above). Nests with an unsigned iterator get iterator values that wrap
    (wrap_terms): the original program, the oracle, computes them in C's
    unsigned arithmetic, and so must flextile's output."""
    if r.random() >= 0.4:
        return
    for name in sorted(fn_scope_loops(prog)):
        if r.random() < 0.5:
            prog.iter_types[name] = r.choice(ITER_TYPES)
            if unsigned_problem(prog) is not None:
                del prog.iter_types[name]
    if not prog.fn_iters:
        for reg in prog.regions:
            if reg.kind != "chain":
                continue
            for n in reg.nests:
                if n.depth and r.random() < 0.5:
                    n.itypes = [r.choice(ITER_TYPES) if r.random() < 0.6 else "int" for _ in range(n.depth)]
                    if all(t == "int" for t in n.itypes) or unsigned_problem(prog) is not None:
                        n.itypes = None
    for reg in prog.regions:
        for n in reg.nests:
            if any(iter_type(prog, reg, n, p) != "int" for p in range(n.depth)):
                wrap_terms(n, r)


def labels_style(prog, r):
    """Labels before regions (issue 54), drawn from their own generator `r`:
    about one region in seven follows a label, written before its pragma (the
    label's statement is the region's first one): `case 1:` of a
    `switch (one)` (`one` a volatile 1), `default:` after `case 2:` of such a
    switch, a goto label jumped to from just before, or a label that a `goto`
    after the region jumps back to once (the region runs twice; a region with
    temporaries, whose values after it are unspecified, does not run twice:
    its goto is never taken)."""
    for reg in prog.regions:
        if r.random() < 0.15:
            kind = r.choice(LABEL_KINDS)
            reps = 1 if reg.temporaries else r.choice([1, 2, 2])
            reg.label = (kind, reps if kind == "again" else 1)


def has_origin(prog):
    """Whether some loop runs from the origin on (the kernel takes `o`)."""
    return any(n.origin for reg in prog.regions for n in reg.nests)


def origin_extremes(prog, reg, nest, env):
    """(lo, hi): bounds on the values, less the origin, of the expressions
    that add the origin in `nest` of `reg` for `env` (None when none does):
    every loop run from the origin on takes its bounds' values, the
    intermediate ones of their text (`o + N+7`: o + N; a scop's legacy
    spelling `o + _PB_N+7 + MARGIN - 8`: o + N+7 + 8), one increment past
    the last value (`i += step` counting up, `lo - 1` counting down, a
    bound `hi + 1`), a band's `i + c` and an `if`'s `j + c` (where both
    loops run from the origin on; else they subtract it: `i - o + c`,
    small). Every other use of the origin subtracts it (`A[i - o]`,
    `3 * (i - o)`, macro and call arguments `i - o`), so the original
    program's arithmetic stays in `int` when `o + lo` and `o + hi` do."""
    if not nest.origin:
        return None
    vals = []
    last = (nest.order or list(range(nest.depth)))[-1] if nest.depth else None
    for p in nest.origin:
        s, a, b = nest.dims[p]
        lo, hi = loop_range(nest, p, env)
        step = nest.step if p == last else 1
        vals += [lo, hi, hi + 1, hi + step]
        if prog.legacy and reg.kind == "scop":
            vals += [MG, hi + MG]  # o + MARGIN, o + _PB_N+7 + MARGIN
        else:
            vals.append(s * env[PARAMS[p]])  # o + N in o + N+7
        if p in nest.down:
            vals.append(lo - 1)
        if p == 1 and nest.depth >= 2:
            lo0, hi0 = loop_range(nest, 0, env)
            if nest.band is not None:
                c1, c2 = nest.band
                vals += [lo0, hi0, lo0 + c1, hi0 + c2]  # o + i + c (i + c when loop 0 too runs from o on)
            if nest.cond is not None and 0 in nest.origin:
                vals += [lo + nest.cond[0], hi + nest.cond[0]]
    return min(vals), max(vals)


def origin_nest_problem(prog, reg, nest):
    """Why `nest` cannot run from the origin on the loops it does (None when
    it can): such loops count with `int` (and so do loops 0 and 1 where a
    band or an `if` relates them: an unsigned one would turn `o + i + c`
    unsigned)."""
    if any(not 0 <= p < nest.depth for p in nest.origin) or list(nest.origin) != sorted(set(nest.origin)):
        return "origin loops do not match the nest"
    related = set(nest.origin)
    if (nest.band is not None or nest.cond is not None) and related & {0, 1}:
        related |= {0, 1}
    for p in sorted(related):
        if iter_type(prog, reg, nest, p) != "int":
            return f"an unsigned iterator {nest.iters[p]} in a nest run from the origin on"
    return None


def origin_problem(prog):
    """None when every argument set keeps the original program's arithmetic
    in `int` (see origin_extremes), else the reason; the nests of a chain
    run from the origin on in the same dimensions (its schedules are chosen
    by distances between them)."""
    if not has_origin(prog):
        return None
    for reg in prog.regions:
        dims = sorted({p for n in reg.nests for p in n.origin})
        for n in reg.nests:
            why = origin_nest_problem(prog, reg, n)
            if why is not None:
                return why
            if reg.kind == "chain" and tuple(n.origin) != tuple(p for p in dims if p < n.depth):
                return "the nests of a chain run from the origin on in different dimensions"
            for env in prog.argsets:
                if ORIGIN not in env:
                    return "an argument set without the origin"
                ext = origin_extremes(prog, reg, n, env)
                if ext is None:
                    continue
                o = env[ORIGIN]
                if not (INT_MIN <= o <= INT_MAX and INT_MIN <= o + ext[0] and o + ext[1] <= INT_MAX):
                    return f"origin {o} takes the arithmetic of a {n.kind} nest out of int for {env}"
    return None


def origin_range(prog, env):
    """The smallest and the largest value, less the origin, over every nest."""
    exts = [origin_extremes(prog, reg, n, env) for reg in prog.regions for n in reg.nests]
    exts = [e for e in exts if e is not None]
    return min(e[0] for e in exts), max(e[1] for e in exts)


def origin_style(prog, r):
    """Index spaces near INT_MAX and INT_MIN (issue 54, class 5), drawn from
    their own generator `r` like legacy_style: in about one program in eight
    some loops run from a run-time origin `o` on (an `int` argument read
    like the sizes, so that no compiler can fold it):
    `for (i = o + 8; i <= o + N+7; i++)` with subscripts `A[i - o + 1]`
    (chains: `domain(o+8:o+N+7)`, declared accesses `(i-o+1)`; macro and
    call bodies get `i - o`), in the first, every or some loops of a nest
    (the same ones for every nest of a chain; in scops, sometimes per nest).
    The original program's values lie near the origin and its arithmetic
    never overflows; tiled loops' arithmetic may (a tile loop's last
    `c += 32`), which flextile must guard. The argument sets keep their
    sizes with small origins (0, 5, -3, sometimes one of about 2^20..2^30,
    where the transformed loops run), and two more copy a size with origins
    at the limits: INT_MAX less the largest value (origin_extremes) less a
    small margin (often 0: some expression of the original is INT_MAX), and
    INT_MIN plus a margin (and the smallest value's distance below 0). Only
    loops that count with `int` (origin_nest_problem)."""
    if r.random() >= 0.16:
        return
    for reg in prog.regions:
        depth = max(n.depth for n in reg.nests)
        if depth == 0 or (len(prog.regions) > 1 and r.random() < 0.3):
            continue

        def pick():
            x = r.random()
            if x < 0.4:
                return (0,)
            if x < 0.75:
                return tuple(range(depth))
            dims = tuple(p for p in range(depth) if r.random() < 0.5)
            return dims or (r.randrange(depth),)

        dims = pick()
        if reg.kind == "chain":
            # the same dimensions for every nest: those where every nest counts with int
            dims = [p for p in dims if all(p >= n.depth or iter_type(prog, reg, n, p) == "int" for n in reg.nests)]
        per_nest = reg.kind == "scop" and r.random() < 0.3
        for n in reg.nests:
            mine = pick() if per_nest else dims
            n.origin = tuple(p for p in mine if p < n.depth and iter_type(prog, reg, n, p) == "int")
            if origin_nest_problem(prog, reg, n) is not None:
                n.origin = ()
    if not has_origin(prog):
        return
    for env in prog.argsets:
        x = r.random()
        if x < 0.75:
            env[ORIGIN] = r.choice([0, 0, 5, 5, -3])
        else:
            env[ORIGIN] = r.choice([1 << 20, -(1 << 20), 123456789, -987654321, (1 << 30) - 4096, -(1 << 30) + 4096])
    margins = [0, 0, 0, 1, 2, 3, 8, 100]
    high = dict(r.choice(prog.argsets[:2]))
    high[ORIGIN] = INT_MAX - origin_range(prog, high)[1] - r.choice(margins)
    low = dict(r.choice(prog.argsets[:2]))
    low[ORIGIN] = INT_MIN + max(0, -origin_range(prog, low)[0]) + r.choice(margins)
    prog.argsets += [high, low]


def generate(seed, unsigned=True, labels=True, origin=True):
    """The program of `seed`; `unsigned`, `labels` and `origin` off leave
    out the spellings of iterator_types_style, labels_style and
    origin_style (the programs the generator wrote before them)."""
    g = Gen(seed)
    prog = g.generate()
    legacy_style(prog, random.Random(seed * 104729 + 3))
    temporaries_style(prog, random.Random(seed * 7919 + 5))
    if unsigned:
        iterator_types_style(prog, random.Random(seed * 15485863 + 7))
    if labels:
        labels_style(prog, random.Random(seed * 15485863 + 11))
    if origin:
        origin_style(prog, random.Random(seed * 15485863 + 13))
    why = validate(prog)
    if why is not None:
        raise RuntimeError(f"seed {seed}: generated an invalid program: {why}")
    return prog


# ---------------------------------------------------------------------------
# Rendering


C_HEADER = r"""#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* Deterministic input: a 64-bit LCG; every value is k / 2^24 in [-1, 1), exact in double. */
static unsigned long long lcg_state = 0x2545F4914F6CDD1DULL;
static double next_value(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 40) / 8388608.0 - 1.0;
}

static void fill(double *x, long n)
{
    for (long k = 0; k < n; k++)
        x[k] = next_value();
}

/* Histogram bucket of a double: bits 44..47 of its representation (never UB). */
static int bucket(double v)
{
    unsigned long long b;
    memcpy(&b, &v, sizeof b);
    return (int)((b >> 44) & 15u);
}

/* Prints every element (%.17g round-trips doubles) up to 4096 elements, else
 * an FNV-1a hash of the bits of each run of 64 elements. */
static void dump(const char *name, const double *x, long total)
{
    if (total <= 4096) {
        for (long k = 0; k < total; k++)
            printf("%s[%ld] = %.17g\n", name, k, x[k]);
        return;
    }
    for (long k = 0; k < total; k += 64) {
        unsigned long long h = 1469598103934665603ULL;
        long end = k + 64 < total ? k + 64 : total;
        for (long m = k; m < end; m++) {
            unsigned char bytes[sizeof(double)];
            memcpy(bytes, &x[m], sizeof bytes);
            for (size_t q = 0; q < sizeof bytes; q++) {
                h ^= bytes[q];
                h *= 1099511628211ULL;
            }
        }
        printf("%s[%ld..%ld] fnv=%016llx\n", name, k, end - 1, h);
    }
}

static void dump_int(const char *name, const int *x, long total)
{
    for (long k = 0; k < total; k++)
        printf("%s[%ld] = %d\n", name, k, x[k]);
}

static int arg_int(int argc, char **argv, int k, int def, int min)
{
    int v = argc > k ? atoi(argv[k]) : def;
    if (v < min) {
        fprintf(stderr, "argument %d must be >= %d\n", k, min);
        exit(1);
    }
    return v;
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}
"""


LEGACY_HEADER = r"""
/* PolyBench-style spellings (gen.py legacy_style). */
#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define SQRT_FUN(x) sqrt(x)
#define FMAX_FUN(a, b) fmax(a, b)
#define AT1(a, x) a[x]
#define AT2(a, x, y) a[x][y]
#define AT3(a, x, y, z) a[x][y][z]
#ifndef MARGIN
#define MARGIN 8
#endif
#define _PB_N N
#define _PB_M M
#define _PB_K K
#define _PB_T T
"""


def lit(v, legacy):
    """A literal, as `SCALAR_VAL(v)` in legacy spelling."""
    return f"SCALAR_VAL({fnum(v)})" if legacy else fnum(v)


def render_expr(e, idx):
    """idx(arr, comps) -> C text of an access; idx.legacy: macro spellings."""
    k = e[0]
    lg = idx.legacy
    if k == "rd":
        return idx(e[1], e[2])
    if k == "num":
        return lit(e[1], lg)
    if k == "var":
        return e[1]
    if k == "itv":
        coefs, mod = e[1], e[2]
        off = f" - {e[3]}" if len(e) > 3 else ""  # wraps in unsigned arithmetic
        return f"(double)(({idx.itsum(coefs)}{off}) % {mod}) * 0.0625"
    if k == "wsum":
        parts = []
        for w, t in e[1]:
            parts.append(f"{lit(w, lg)} * {render_expr(t, idx)}")
        return "(" + " + ".join(parts) + ")"
    if k == "mul":
        return f"({render_expr(e[1], idx)} * {render_expr(e[2], idx)})"
    if k in ("fmax", "fmin"):
        name = "FMAX_FUN" if lg and k == "fmax" else k
        return f"{name}({render_expr(e[1], idx)}, {render_expr(e[2], idx)})"
    if k == "sqrtabs":
        return f"{'SQRT_FUN' if lg else 'sqrt'}(fabs({render_expr(e[1], idx)}))"
    raise ValueError(k)


class Indexer:
    """Array accesses and iterator sums of a body; `origin`: the loops whose
    iterator runs from the origin on (it stands for `it - o`)."""

    def __init__(self, iters, paren=False, legacy=False, origin=()):
        self.iters = [f"({i})" for i in iters] if paren else list(iters)
        self.legacy = legacy
        self.origin = tuple(origin)

    def __call__(self, arr, comps):
        subs = [comp_str(c, self.iters, star='?', origin=self.origin) for c in comps]
        if self.legacy and 1 <= len(subs) <= 3 and "?" not in subs:
            return f"AT{len(subs)}({arr}, {', '.join(subs)})"
        return arr + "".join(f"[{x}]" for x in subs)

    def itsum(self, coefs):
        its = [f"({origin_var(it)})" if p in self.origin else it for p, it in enumerate(self.iters)]
        return " + ".join(f"{c} * {it}" for c, it in zip(coefs, its))


def render_stmts(prog, nest, iters, paren=False, indent="", q_name="q", origin=()):
    """The body statements of a nest, as C lines (legacy programs: macro
    spellings, and assignments that end in a macro invocation; `origin`: the
    loops whose iterators run from the origin on, see Indexer)."""
    ix = Indexer(iters, paren, prog.legacy, origin)
    lines = []
    stmts = list(nest.stmts)
    while stmts:
        st = stmts.pop(0)
        if st[0] == "guarded":
            lines.append(f"{indent}if ({render_expr(st[1], ix)} > 0.0)")
            sub = Nest(nest.kind, nest.iters, nest.dims)
            sub.stmts = [st[2]]
            lines += render_stmts(prog, sub, iters, paren, indent + "    ", q_name, origin)
        elif st[0] == "settmp":
            lines.append(f"{indent}{st[1]} = {render_expr(st[2], ix)};")
        elif st[0] == "assign":
            _, arr, comps, op, ex = st
            tail = " * SCALAR_VAL(1.0)" if prog.legacy else ""
            lines.append(f"{indent}{ix(arr, comps)} {op} {render_expr(ex, ix)}{tail};")
        elif st[0] == "hist":
            _, arr, ex = st
            lines.append(f"{indent}{arr}[bucket({render_expr(ex, ix)})] += 1;")
        elif st[0] == "rowred":
            _, arr, comps, src, scomps, q = st
            ext = prog.arr(src).extent_exprs()[len(scomps) - 1]
            sub = "".join(f"[{comp_str(c, ix.iters, star=q_name, origin=origin)}]" for c in scomps)
            lines.append(f"{indent}{{")
            lines.append(f"{indent}    double acc = 0.0;")
            lines.append(f"{indent}    for (int {q_name} = 0; {q_name} < {ext}; {q_name}++)")
            lines.append(f"{indent}        acc = 0.5 * acc + 0.5 * {src}{sub};")
            lines.append(f"{indent}    {ix(arr, comps)} = acc;")
            lines.append(f"{indent}}}")
    return lines


def arr_param(a):
    ext = a.extent_exprs()
    return f"{a.ctype} {a.name}" + "".join(f"[{e}]" for e in ext)


def domain_bounds(nest, p, legacy=False, pragma=False):
    """Loop p's bounds as C text (`pragma`: as a chain's domain writes them);
    a loop run from the origin on adds it: `o + 8`, `o + N+7`."""
    s, a, b = nest.dims[p]
    if legacy:
        # MARGIN is MG; _PB_N is N
        lo, hi = affine_str(1, "MARGIN", a), affine_str(s, "_PB_" + PARAMS[p], MG - 1 - b) + " + MARGIN - " + str(MG)
    else:
        lo, hi = str(MG + a), affine_str(s, PARAMS[p], MG - 1 - b)
    if p in nest.origin:
        plus = "+" if pragma else " + "
        lo, hi = f"{ORIGIN}{plus}{lo}", f"{ORIGIN}{plus}{hi}"
    return lo, hi


def band_bound(nest, iters, c):
    """`iter0 + c` as a bound of loop 1 (a scop's band), where iter0 and
    loop 1 may each run from the origin on: `i + c` when both or neither do,
    `i - o + c` when only loop 0 does, `o + i + c` when only loop 1 does."""
    o0, o1 = 0 in nest.origin, 1 in nest.origin
    if o0 and not o1:
        return comp_str(("it", 0, 1, c), iters, origin=(0,))
    if o1 and not o0:
        return f"{ORIGIN} + {affine_str(1, iters[0], c)}"
    return affine_str(1, iters[0], c)


def cond_text(nest, iters):
    """A scop's `if (iter0 <= iter1 + c)`, in the loops' index space (an
    iterator run from the origin on stands for `it - o`)."""
    c = nest.cond[0]
    o0, o1 = 0 in nest.origin, 1 in nest.origin
    if o0 == o1:
        return f"{iters[0]} <= {affine_str(1, iters[1], c)}"
    left = origin_var(iters[0]) if o0 else iters[0]
    return f"{left} <= {comp_str(('it', 1, 1, c), iters, origin=(1,) if o1 else ())}"


def loop_header(nest, p, it, fn_iters, lo=None, hi=None, legacy=False, ctype="int"):
    dlo, dhi = domain_bounds(nest, p, legacy)
    lo = lo if lo is not None else dlo
    hi = hi if hi is not None else dhi
    decl = "" if fn_iters else ctype + " "
    style = (nest.hdr + p) % 4
    if p in nest.down:
        if style == 0:
            return f"for ({decl}{it} = {hi}; {it} >= {lo}; {it}--)"
        if style == 1:
            return f"for ({decl}{it} = {hi}; {lo} <= {it}; --{it})"
        if style == 2:
            return f"for ({decl}{it} = {hi}; {it} > {lo} - 1; {it} -= 1)"
        return f"for ({decl}{it} = {hi}; {it} >= {lo}; {it} = {it} - 1)"
    if style == 0:
        return f"for ({decl}{it} = {lo}; {it} <= {hi}; {it}++)"
    if style == 1:
        return f"for ({decl}{it} = {lo}; {it} < {hi} + 1; ++{it})"
    if style == 2:
        return f"for ({decl}{it} = {lo}; {it} <= {hi}; {it} += 1)"
    return f"for ({decl}{it} = {lo}; {hi} >= {it}; {it} = {it} + 1)"


def pragma_nest(reg, nest):
    dom = ", ".join(f"{lo}:{hi}" for lo, hi in (domain_bounds(nest, p, pragma=True) for p in range(nest.depth)))
    groups = []
    for kind, a, c in declared_accesses(nest):
        name = reg.aliases.get(a, a)
        tup = "(" + ",".join(comp_str(x, nest.iters, origin=nest.origin, spaced=False) for x in c) + ")"
        for g in groups:
            if g[0] == kind and g[1] == name:
                g[2].append(tup)
                break
        else:
            groups.append([kind, name, [tup]])
    accs = [f"{k} {n} {{{','.join(t)}}}" for k, n, t in groups]
    with_ = f"with ({', '.join(nest.iters)})"
    f = nest.fmt
    if f == 1:
        return [f"#pragma omplc for domain({dom}) \\", f"    {with_} \\", "    " + ", ".join(accs)]
    if f == 2:
        lines = [f"#pragma omplc for /* nest */ domain({dom}) {with_} \\"]
        for k, acc in enumerate(accs):
            sep = "," if k + 1 < len(accs) else ""
            cont = " \\" if k + 1 < len(accs) else ""
            lines.append(f"    {acc}{sep} /* access {k} */{cont}")
        return lines
    if f == 3:
        return [f"#pragma omplc for domain( {dom.replace(',', ' , ')} ) with( {', '.join(nest.iters)} ) " + " , ".join(accs)]
    return [f"#pragma omplc for domain({dom}) {with_} " + ", ".join(accs)]


def render_tile(spec):
    if not isinstance(spec, tuple):
        return spec
    _, sizes, outer, inner = spec
    return f"tile(({','.join(map(str, sizes))}), {render_tile(outer)}, {render_tile(inner)})"


def render_items(items):
    out = []
    for it in items:
        if it[0] == "fuse":
            if it[1] is None:
                out.append("fuse()")
            else:
                out.append("fuse(" + ",".join("(" + ",".join(map(str, s)) + ")" for s in it[1]) + ")")
        elif it[0] == "tile":
            out.append(render_tile(it))
        else:
            out.append(it[0])
    return out


class Renderer:
    def __init__(self, prog):
        self.prog = prog
        self.macros = []
        self.funcs = []
        self.nfn = 0
        self.all_iters = set()
        self.temps = set()

    def used_arrays(self, nest):
        names = []
        for _, a, _ in performed_accesses(nest):
            if a not in names:
                names.append(a)
        return names

    def body_lines(self, nest, indent, types=None):
        """The innermost body of a chain nest, styled (`types`: the C types
        of its iterators, for a call's parameters)."""
        prog = self.prog
        self.nfn += 1
        # macros and calls get the index values: `it - o` for loops run from the origin on
        args = [origin_var(it) if p in nest.origin else it for p, it in enumerate(nest.iters)]
        if nest.style == "macro":
            params = [f"p{k}_" for k in range(nest.depth)]
            lines = render_stmts(prog, nest, params, paren=True)
            name = f"STAGE{self.nfn}"
            text = f"#define {name}({', '.join(params)}) \\\n    do {{ \\\n"
            text += "".join(f"        {ln} \\\n" for ln in lines)
            text += "    } while (0)\n"
            self.macros.append(text)
            return [f"{indent}{name}({', '.join(args)});"]
        if nest.style == "call":
            arrs = [prog.arr(a) for a in self.used_arrays(nest)]
            name = f"stage{self.nfn}"
            types = types or ["int"] * nest.depth
            params = ["int N", "int M", "int K"] + [f"{t} {it}" for t, it in zip(types, nest.iters)] + [arr_param(a) for a in arrs]
            lines = render_stmts(prog, nest, nest.iters, indent="    ")
            text = f"static void {name}({', '.join(params)})\n{{\n" + "\n".join(lines) + "\n}\n"
            self.funcs.append(text)
            return [f"{indent}{name}(N, M, K, {', '.join(args)}, {', '.join(a.name for a in arrs)});"]
        lines = render_stmts(prog, nest, nest.iters, indent=indent + "    ", origin=nest.origin)
        return [f"{indent}{{"] + lines + [f"{indent}}}"]

    def chain(self, reg, indent):
        out = []
        sched = ", ".join(render_items(reg.items))
        if reg.fmt == 1:
            out.append(f"{indent}#pragma omplc loopchain /* chain */ schedule( {sched} )")
        elif reg.fmt == 2 and sched:
            out.append(f"{indent}#pragma omplc loopchain \\")
            out.append(f"{indent}    schedule({sched})")
        else:
            out.append(f"{indent}#pragma omplc loopchain schedule({sched})")
        if reg.temporaries:
            names = ", ".join(reg.aliases.get(a, a) for a in reg.temporaries)
            out[-1] += f" temporary({names})"
        out.append(f"{indent}{{")
        for n in reg.nests:
            self.all_iters.update(n.iters)
            for ln in pragma_nest(reg, n):
                out.append(ln)
            ind = indent + "    "
            types = [iter_type(self.prog, reg, n, p) for p in range(n.depth)]
            for p, it in enumerate(n.iters):
                out.append(ind + loop_header(n, p, it, self.prog.fn_iters, ctype=types[p]))
                ind += "    "
            out += self.body_lines(n, ind, types)
        out.append(f"{indent}}}")
        return out

    def scop(self, reg, indent):
        temps = f" temporary({', '.join(reg.temporaries)})" if reg.temporaries else ""
        out = [f"#pragma scop{temps}"]
        ind = indent
        lg = self.prog.legacy
        if reg.time and reg.tdown:
            out.append(f"{ind}for (t = {'_PB_T' if lg else 'T'} - 1; t >= 0; t--) {{")
            ind += "    "
        elif reg.time:
            out.append(f"{ind}for (t = 0; t < {'_PB_T' if lg else 'T'}; t++) {{")
            ind += "    "
        for n in reg.nests:
            self.all_iters.update(n.iters)
            its = n.iters
            lind = ind
            if n.kind == "rowred":
                # imperfect nest: initialise, then reduce over the last dimension
                st = n.stmts[0]
                _, arr, comps, src, scomps, q = st
                for p, it in enumerate(its):
                    out.append(lind + loop_header(n, p, it, True, legacy=lg) + " {" * (p == len(its) - 1))
                    lind += "    "
                ix = Indexer(its, origin=n.origin)
                qname = "q"
                self.all_iters.add(qname)
                sdim = len(scomps) - 1
                s = self.prog.arr(src).scale[sdim]
                qlo, qhi = str(MG), affine_str(s, PARAMS[sdim], MG - 1)
                sub = "".join(f"[{comp_str(c, its, star=qname, origin=n.origin)}]" for c in scomps)
                out.append(f"{lind}{ix(arr, comps)} = 0.0;")
                out.append(f"{lind}for ({qname} = {qlo}; {qname} <= {qhi}; {qname}++)")
                out.append(f"{lind}    {ix(arr, comps)} = 0.5 * {ix(arr, comps)} + 0.5 * {src}{sub};")
                out.append(ind + "    " * (len(its) - 1) + "}")
                continue
            for p in (n.order or range(n.depth)):
                it = its[p]
                lo = hi = None
                if p == 1 and n.band is not None:
                    dlo, dhi = domain_bounds(n, 1, lg)
                    c1, c2 = n.band
                    lo = f"MAX({dlo}, {band_bound(n, its, c1)})"
                    hi = f"MIN({dhi}, {band_bound(n, its, c2)})"
                header = loop_header(n, p, it, True, lo, hi, legacy=lg)
                if n.step > 1 and p == (n.order or list(range(n.depth)))[-1]:
                    header = f"for ({it} = {lo or domain_bounds(n, p, lg)[0]}; {it} <= {hi or domain_bounds(n, p, lg)[1]}; {it} += {n.step})"
                out.append(lind + header)
                lind += "    "
            if n.cond is not None:
                out.append(f"{lind}if ({cond_text(n, its)})")
                lind += "    "
            lines = render_stmts(self.prog, n, its, origin=n.origin)
            self.temps.update(st[1] for st in n.stmts if st[0] == "settmp")
            if len(lines) == 1:
                out.append(lind + lines[0])
            else:
                out.append(lind + "{")
                out += [lind + "    " + ln for ln in lines]
                out.append(lind + "}")
        if reg.time:
            out.append(f"{indent}}}")
        out.append("#pragma endscop")
        return out

    def labelled(self, reg, k, indent):
        """The region's lines, after its label (labels_style) if it has one."""
        region = self.chain if reg.kind == "chain" else self.scop
        if reg.label is None:
            return region(reg, indent)
        kind, reps = reg.label
        inner = indent + "    "
        if kind == "case":
            return ([f"{indent}switch (one) {{", f"{indent}case 1:"] + region(reg, inner)
                    + [f"{inner}break;", f"{indent}default:", f"{inner}break;", f"{indent}}}"])
        if kind == "default":
            return ([f"{indent}switch (one) {{", f"{indent}case 0:", f"{inner}break;", f"{indent}case 2:",
                     f"{indent}default:"] + region(reg, inner) + [f"{inner}break;", f"{indent}}}"])
        if kind == "goto":
            return [f"{indent}goto enter{k + 1};", f"enter{k + 1}:"] + region(reg, indent)
        # "again": the label of a backward goto; the region runs `reps` times
        return ([f"{indent}{{", f"{inner}int pass{k + 1} = 0;", f"again{k + 1}:"] + region(reg, inner)
                + [f"{inner}if (++pass{k + 1} < {reps})", f"{inner}    goto again{k + 1};", f"{indent}}}"])

    def program(self):
        prog = self.prog
        body = []
        for k, reg in enumerate(prog.regions):
            if reg.kind == "chain" and reg.time:
                body.append(f"    for (int tt = 0; tt < T; tt++) {{")
                body += self.labelled(reg, k, "        ")
                body.append("    }")
            else:
                body += self.labelled(reg, k, "    ")
        origin = has_origin(prog)
        params = ["int N", "int M", "int K", "int T"] + ([f"int {ORIGIN}"] if origin else []) + [arr_param(a) for a in prog.arrays]
        kernel = [f"static void kernel({', '.join(params)})", "{"]
        scop_iters = any(r.kind == "scop" for r in prog.regions)
        decl = set()
        if prog.fn_iters:
            decl |= self.all_iters
        if scop_iters:
            decl |= self.all_iters | {"t"}
        if decl:
            by_type = {}
            for name in sorted(decl):
                by_type.setdefault(prog.iter_types.get(name, "int"), []).append(name)
            for t in ["int"] + ITER_TYPES:
                if t in by_type:
                    kernel.append(f"    {t} {', '.join(by_type[t])};")
        if self.temps:
            kernel.append(f"    double {', '.join(t + ' = 0.0' for t in sorted(self.temps))};")
        if any(reg.label is not None and reg.label[0] in ("case", "default") for reg in prog.regions):
            kernel.append("    volatile int one = 1; /* switch (one): the compiler cannot fold it */")
        kernel.append("    (void)N; (void)M; (void)K; (void)T;" + (f" (void){ORIGIN};" if origin else ""))
        kernel += body
        kernel.append("}")
        main = ["int main(int argc, char **argv)", "{"]
        main.append("    int N = arg_int(argc, argv, 1, 5, 1);")
        main.append("    int M = arg_int(argc, argv, 2, 5, 1);")
        main.append("    int K = arg_int(argc, argv, 3, 5, 1);")
        main.append("    int T = arg_int(argc, argv, 4, 2, 0);")
        if origin:
            main.append(f"    int {ORIGIN} = arg_int(argc, argv, 5, 0, -2147483647 - 1); /* the origin: any int */")
        for a in prog.arrays:
            ext = a.extent_exprs()
            total = " * ".join(f"(size_t)({e})" for e in ext)
            if a.ndim == 1:
                main.append(f"    {a.ctype} *{a.name} = xmalloc(sizeof({a.ctype}) * {total});")
            else:
                rest = "".join(f"[{e}]" for e in ext[1:])
                main.append(f"    {a.ctype} (*{a.name}){rest} = xmalloc(sizeof({a.ctype}) * {total});")
        for a in prog.arrays:
            ext = a.extent_exprs()
            total = " * ".join(f"(long)({e})" for e in ext)
            if a.kind == "hist":
                main.append(f"    memset({a.name}, 0, sizeof(int) * {NB});")
            else:
                main.append(f"    fill((double *){a.name}, {total});")
        temporaries = {a for reg in prog.regions for a in reg.temporaries}
        sizes = {}
        for a in prog.arrays:
            if a.name in temporaries:
                ext = a.extent_exprs()
                sizes[a.name] = f"sizeof({a.ctype}) * " + " * ".join(f"(size_t)({e})" for e in ext)
        if sizes:
            # Built with -DFT_SENTINEL, the program fills its temporaries with a
            # sentinel byte and reports which ones the kernel left untouched
            # (run.py checks those flextile says it never stores).
            main.append("#ifdef FT_SENTINEL")
            for name, size in sizes.items():
                main.append(f"    memset({name}, 0x5A, {size});")
            main.append("#endif")
        main.append(f"    kernel(N, M, K, T, {ORIGIN + ', ' if origin else ''}{', '.join(a.name for a in prog.arrays)});")
        if sizes:
            main.append("#ifdef FT_SENTINEL")
            for name, size in sizes.items():
                main.append("    {")
                main.append(f"        const unsigned char *p_ = (const unsigned char *){name};")
                main.append("        size_t k_, n_ = 0;")
                main.append(f"        for (k_ = 0; k_ < {size}; k_++)")
                main.append("            n_ += p_[k_] != 0x5A;")
                main.append(f'        printf("SENTINEL {name} untouched: %s\\n", n_ ? "no" : "yes");')
                main.append("    }")
            main.append("#endif")
        for a in prog.arrays:
            if a.name in temporaries:
                continue  # declared temporary: its final values are unspecified
            ext = a.extent_exprs()
            total = " * ".join(f"(long)({e})" for e in ext)
            if a.kind == "hist":
                main.append(f'    dump_int("{a.name}", {a.name}, {NB});')
            else:
                main.append(f'    dump("{a.name}", (const double *){a.name}, {total});')
        for a in prog.arrays:
            main.append(f"    free({a.name});")
        main.append("    return 0;")
        main.append("}")
        # the bodies must be rendered before the macros and functions are known
        parts = [describe(prog), C_HEADER + (LEGACY_HEADER if prog.legacy else "")]
        parts += self.macros
        parts += self.funcs
        parts.append("\n".join(kernel) + "\n")
        parts.append("\n".join(main) + "\n")
        return "\n".join(parts)


def describe(prog, metadata=()):
    lines = [f"/* difftest program, seed {prog.seed} (tools/difftest/gen.py), {prog.flavor} flavor.", " *"]
    for k, reg in enumerate(prog.regions):
        if reg.kind == "chain":
            sched = ", ".join(render_items(reg.items)) or "(original order)"
            free = " (free-form: not checked, may be rejected)" if reg.free else ""
            lines.append(f" * region {k + 1}: loop chain{' in a time loop' if reg.time else ''}, schedule {sched}{free}")
        else:
            lines.append(f" * region {k + 1}: scop{' with a time loop' if reg.time else ''}")
        for n in reg.nests:
            lines.append(f" *   {n.depth}-D {n.kind} nest ({n.style} body)")
    if prog.legacy:
        lines.append(" * PolyBench-style spelling: macros in bodies and scop bounds.")
    down = [k + 1 for k, reg in enumerate(prog.regions) if reg.tdown or any(n.down for n in reg.nests)]
    if down:
        lines.append(f" * Loops counting down in region(s) {', '.join(map(str, down))}.")
    unsigned = sorted({f"{iter_type(prog, reg, n, p)} {n.iters[p]}" for reg in prog.regions for n in reg.nests
                       for p in range(n.depth) if iter_type(prog, reg, n, p) != "int"})
    for name in ("t", "q"):
        if prog.iter_types.get(name, "int") != "int" and name in fn_scope_loops(prog):
            unsigned.append(f"{prog.iter_types[name]} {name}")
    if unsigned:
        lines.append(f" * Unsigned iterators: {', '.join(unsigned)}.")
    for k, reg in enumerate(prog.regions):
        if reg.label is not None:
            what = {"case": "case 1: of a switch", "default": "default: of a switch",
                    "goto": "a goto label", "again": "the label of a backward goto (the region runs "
                    + ("twice)" if reg.label[1] > 1 else "once: the goto is never taken)")}
            lines.append(f" * Region {k + 1} after {what[reg.label[0]]}.")
    offset = [k + 1 for k, reg in enumerate(prog.regions) if any(n.origin for n in reg.nests)]
    if offset:
        lines.append(f" * Index spaces from the run-time origin {ORIGIN} on (near INT_MAX or INT_MIN for some")
        lines.append(f" * argument sets) in region(s) {', '.join(map(str, offset))}.")
    lines.append(" * Arguments: N M K T" + (f" {ORIGIN}." if has_origin(prog) else "."))
    for m in metadata:
        lines.append(f" * {m}")
    lines.append(" */")
    return "\n".join(lines) + "\n"


def render(prog, metadata=()):
    r = Renderer(prog)
    text = r.program()
    if metadata:
        head = describe(prog)
        text = describe(prog, metadata) + text[len(head):]
    return text


def args_of(env):
    return [str(env["N"]), str(env["M"]), str(env["K"]), str(env["T"])] + ([str(env[ORIGIN])] if ORIGIN in env else [])


# ---------------------------------------------------------------------------
# Minimisation: smaller variants of a program (each still valid)


def shrink_candidates(prog):
    """Yields smaller variants of `prog`, roughly biggest cut first."""
    # fewer regions
    for k in range(len(prog.regions)):
        if len(prog.regions) > 1:
            p = copy.deepcopy(prog)
            del p.regions[k]
            yield p
    # fewer nests
    for ri, reg in enumerate(prog.regions):
        for k in range(len(reg.nests)):
            if len(reg.nests) > 1:
                p = copy.deepcopy(prog)
                r = p.regions[ri]
                del r.nests[k]
                if r.items and r.items[0][0] == "fuse" and r.items[0][1] is not None:
                    shifts = list(r.items[0][1])
                    del shifts[k]
                    r.items[0] = ("fuse", shifts)
                yield p
    # no labels, int iterators
    for ri, reg in enumerate(prog.regions):
        if reg.label is not None:
            p = copy.deepcopy(prog)
            p.regions[ri].label = None
            yield p
    if prog.iter_types or any(n.itypes for reg in prog.regions for n in reg.nests):
        p = copy.deepcopy(prog)
        p.iter_types = {}
        for reg in p.regions:
            for n in reg.nests:
                n.itypes = None
        yield p
        for name in sorted(prog.iter_types):
            p = copy.deepcopy(prog)
            del p.iter_types[name]
            yield p
    # no origin (in a region, anywhere), small origins
    if has_origin(prog):
        p = copy.deepcopy(prog)
        for reg in p.regions:
            for n in reg.nests:
                n.origin = ()
        for env in p.argsets:
            env.pop(ORIGIN, None)
        yield p
        offset = [ri for ri, reg in enumerate(prog.regions) if any(n.origin for n in reg.nests)]
        for ri in offset if len(offset) > 1 else ():
            p = copy.deepcopy(prog)
            for n in p.regions[ri].nests:
                n.origin = ()
            yield p
        for k, env in enumerate(prog.argsets):
            if env.get(ORIGIN, 0) != 0:
                p = copy.deepcopy(prog)
                p.argsets[k][ORIGIN] = 0
                yield p
    # fewer argument sets
    for k in range(len(prog.argsets)):
        if len(prog.argsets) > 1:
            p = copy.deepcopy(prog)
            del p.argsets[k]
            yield p
    # simpler schedules
    for ri, reg in enumerate(prog.regions):
        for k in range(len(reg.items)):
            p = copy.deepcopy(prog)
            del p.regions[ri].items[k]
            yield p
        if reg.time:
            p = copy.deepcopy(prog)
            p.regions[ri].time = False
            yield p
    # fewer statements and terms, simpler bodies
    for ri, reg in enumerate(prog.regions):
        for ni, n in enumerate(reg.nests):
            if len(n.stmts) > 1:
                for k in range(len(n.stmts)):
                    p = copy.deepcopy(prog)
                    del p.regions[ri].nests[ni].stmts[k]
                    yield p
            for si, st in enumerate(n.stmts):
                if st[0] == "guarded":
                    p = copy.deepcopy(prog)
                    p.regions[ri].nests[ni].stmts[si] = st[2]
                    yield p
                if st[0] == "assign":
                    for e2 in simpler_exprs(st[4]):
                        p = copy.deepcopy(prog)
                        s = p.regions[ri].nests[ni].stmts[si]
                        p.regions[ri].nests[ni].stmts[si] = (s[0], s[1], s[2], s[3], e2)
                        yield p
            if n.extras:
                p = copy.deepcopy(prog)
                p.regions[ri].nests[ni].extras = []
                yield p
            if n.style != "plain" and reg.kind == "chain":
                p = copy.deepcopy(prog)
                p.regions[ri].nests[ni].style = "plain"
                p.regions[ri].aliases = {}
                yield p
            if n.order is not None or n.step != 1:
                p = copy.deepcopy(prog)
                p.regions[ri].nests[ni].order = None
                p.regions[ri].nests[ni].step = 1
                yield p
            for attr in ("band", "cond"):
                if getattr(n, attr) is not None:
                    p = copy.deepcopy(prog)
                    setattr(p.regions[ri].nests[ni], attr, None)
                    yield p
            if n.fmt or n.hdr:
                p = copy.deepcopy(prog)
                p.regions[ri].nests[ni].fmt = 0
                p.regions[ri].nests[ni].hdr = 0
                yield p
    # smaller sizes
    for k, env in enumerate(prog.argsets):
        for key in ("N", "M", "K", "T"):
            v = env[key]
            lo = 0 if key == "T" else 1
            for nv in sorted({lo, v // 2, v - 1}):
                if lo <= nv < v:
                    p = copy.deepcopy(prog)
                    p.argsets[k][key] = nv
                    yield p
    # smaller offsets, domains and shifts
    for ri, reg in enumerate(prog.regions):
        for ni, n in enumerate(reg.nests):
            for si, st in enumerate(n.stmts):
                for p in shrink_offsets(prog, ri, ni, si):
                    yield p
            for d in range(n.depth):
                for j in (1, 2):
                    if n.dims[d][j] != 0:
                        p = copy.deepcopy(prog)
                        p.regions[ri].nests[ni].dims[d][j] = 0
                        yield p
        if reg.items and reg.items[0][0] == "fuse" and reg.items[0][1] is not None:
            p = copy.deepcopy(prog)
            p.regions[ri].items[0] = ("fuse", None)
            yield p
    # unused arrays
    used = set()
    for reg in prog.regions:
        for n in reg.nests:
            for _, a, _ in declared_accesses(n):
                used.add(a)
    if any(a.name not in used for a in prog.arrays):
        p = copy.deepcopy(prog)
        p.arrays = [a for a in p.arrays if a.name in used]
        yield p


def simpler_exprs(e):
    k = e[0]
    if k == "wsum" and len(e[1]) > 1:
        for i in range(len(e[1])):
            yield ("wsum", e[1][:i] + e[1][i + 1:])
    if k in ("mul", "fmax", "fmin"):
        yield e[1]
        yield e[2]
    if k == "sqrtabs":
        yield e[1]
    if k == "wsum":
        for i, (w, t) in enumerate(e[1]):
            if t[0] not in ("rd", "num"):
                for t2 in simpler_exprs(t):
                    yield ("wsum", e[1][:i] + [(w, t2)] + e[1][i + 1:])


def map_comps(e, f):
    k = e[0]
    if k == "rd":
        return ("rd", e[1], f(e[2]))
    if k == "wsum":
        return ("wsum", [(w, map_comps(t, f)) for w, t in e[1]])
    if k in ("mul", "fmax", "fmin"):
        return (k, map_comps(e[1], f), map_comps(e[2], f))
    if k == "sqrtabs":
        return (k, map_comps(e[1], f))
    return e


def shrink_offsets(prog, ri, ni, si):
    st = prog.regions[ri].nests[ni].stmts[si]
    if st[0] != "assign":
        return
    reads = []
    expr_reads(st[4], reads)
    for a, comps in reads:
        for d, c in enumerate(comps):
            if c[0] == "it" and c[2] == 1 and c[3] != 0:
                nc = ("it", c[1], 1, c[3] // 2 if abs(c[3]) > 1 else 0)

                def f(cs, a=a, comps=comps, d=d, nc=nc):
                    if tuple(cs) != tuple(comps):
                        return cs
                    cs = list(cs)
                    cs[d] = nc
                    return tuple(cs)

                p = copy.deepcopy(prog)
                s = p.regions[ri].nests[ni].stmts[si]
                p.regions[ri].nests[ni].stmts[si] = (s[0], s[1], s[2], s[3], map_comps(s[4], f))
                yield p


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("-o", dest="out")
    a = ap.parse_args()
    prog = generate(a.seed)
    text = render(prog)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    sys.stderr.write("args: " + " | ".join(" ".join(args_of(e)) for e in prog.argsets) + "\n")


if __name__ == "__main__":
    main()
