#!/usr/bin/env python3
"""Unit tests of the generator (python3 -m unittest tools/difftest/test_gen.py)."""

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402


class Delta(unittest.TestCase):
    def test_offsets(self):
        # B[i] written, B[i-1] read later: distance +1
        self.assertEqual(gen.delta((("it", 0, 1, 0),), (("it", 0, 1, -1),), 1), [1])
        # different constants: never the same element
        self.assertIsNone(gen.delta((("c", 0),), (("c", 1),), 1))
        # a loop that indexes nothing: any distance
        self.assertEqual(gen.delta((("c", 0),), (("c", 0),), 2), ["*", "*"])
        # 2*i-8 against 2*i-7: never the same element
        self.assertIsNone(gen.delta((("it", 0, 2, -8),), (("it", 0, 2, -7),), 1))
        # '*' leaves the other components' distances
        self.assertEqual(gen.delta((("it", 0, 1, 2), ("any",)), (("it", 0, 1, 0), ("it", 1, 1, 0)), 2), [2, "*"])

    def test_lex_positive(self):
        self.assertEqual(gen.lex_positive([(0, 0), (-1, 2), (0, 3)]), {(1, -2), (0, 3)})

    def test_prefix_and_parallel(self):
        reps = {(1, -1), (0, 2)}
        self.assertEqual(gen.prefix_of(reps, 2), 1)
        self.assertFalse(gen.par0(reps))
        self.assertTrue(gen.par0({(0, 1)}))


class Programs(unittest.TestCase):
    def test_deterministic(self):
        for seed in (1, 17, 100042):
            self.assertEqual(gen.render(gen.generate(seed)), gen.render(gen.generate(seed)))

    def test_valid(self):
        for seed in range(300):
            prog = gen.generate(seed)  # raises on an invalid program
            self.assertIsNone(gen.validate(prog))
            self.assertTrue(prog.argsets)

    def test_shrinking_keeps_valid_programs_valid_or_flags_them(self):
        prog = gen.generate(296)
        n = 0
        for cand in gen.shrink_candidates(prog):
            gen.render(cand)  # every candidate renders
            n += 1
        self.assertGreater(n, 10)

    def test_legacy_spellings_are_generated(self):
        # macros in bodies (one ending a statement), macro-valued bounds and
        # loops counting down all occur in the first 300 seeds
        texts = [gen.render(gen.generate(seed)) for seed in range(300)]
        self.assertTrue(any("* SCALAR_VAL(1.0);" in t for t in texts))
        self.assertTrue(any("    AT2(" in t for t in texts))
        self.assertTrue(any("+ MARGIN - 8" in t for t in texts))
        self.assertTrue(any("--)" in t for t in texts))
        self.assertTrue(any("for (t = _PB_T - 1; t >= 0; t--)" in t or "for (t = T - 1; t >= 0; t--)" in t for t in texts))

    def test_schedules_respect_the_model(self):
        # every non-free chain schedule passes the legality re-check
        for seed in range(300):
            for reg in gen.generate(seed).regions:
                if reg.kind == "chain" and not reg.free:
                    self.assertTrue(gen.schedule_legal(reg), seed)


# sha256 (first 16 hex digits) of the programs the generator wrote before
# iterator_types_style and labels_style (commit 68e5afd): with both off,
# generate() must still write them. Seeds with both new spellings, with one,
# and with none when on. Update these when changing the generator on purpose.
PREVIOUS = {
    7: "1bb2963558507e46",
    11: "32aee4e963c39876",
    20: "9318309e56f133fc",
    22: "2c7712a5a4336a72",
    0: "322e9b9016685af9",
    1: "2efe03cf1b25684b",
    5: "5cf6dd506c626a03",
    4: "5a7df513a126f3d3",
    37: "8fbfc58971722310",
    42: "777ab3c01b5cde76",
    2: "84c8ebf57a749ed9",
    3: "55d32c8d55502c91",
    100042: "5c0618685833fb75",
    700023: "32c40fd1418f6418",
}


def strip_wraps(e):
    """An expression without what wrap_terms adds (offsets of `itv` terms and
    the `0.875 * e + 0.125 * itv` wrapper)."""
    k = e[0]
    if k == "itv":
        return e[:3]
    if k == "wsum":
        parts = e[1]
        if len(parts) == 2 and parts[0][0] == 0.875 and parts[1][0] == 0.125 and parts[1][1][0] == "itv" \
                and len(parts[1][1]) == 4:
            return strip_wraps(parts[0][1])
        return ("wsum", [(w, strip_wraps(t)) for w, t in parts])
    if k in ("mul", "fmax", "fmin"):
        return (k, strip_wraps(e[1]), strip_wraps(e[2]))
    if k == "sqrtabs":
        return (k, strip_wraps(e[1]))
    return e


def strip_stmt(st):
    if st[0] == "assign":
        return st[:4] + (strip_wraps(st[4]),)
    if st[0] == "settmp":
        return (st[0], st[1], strip_wraps(st[2]))
    if st[0] == "guarded":
        return (st[0], st[1], strip_stmt(st[2]))
    return st


def model_of(prog):
    """Everything of a program's model but the new spellings (origin_style's:
    the nests' origins, the argument sets' origins and the two argument sets
    it adds)."""
    regions = []
    for reg in prog.regions:
        nests = []
        for n in reg.nests:
            d = {k: v for k, v in vars(n).items() if k not in ("itypes", "stmts", "origin")}
            d["stmts"] = [strip_stmt(st) for st in n.stmts]
            nests.append(d)
        d = {k: v for k, v in vars(reg).items() if k not in ("nests", "label")}
        regions.append((d, nests))
    p = {k: v for k, v in vars(prog).items() if k not in ("arrays", "regions", "iter_types")}
    argsets = prog.argsets[:-2] if gen.has_origin(prog) else prog.argsets
    p["argsets"] = [{k: v for k, v in env.items() if k != gen.ORIGIN} for env in argsets]
    return repr((p, [vars(a) for a in prog.arrays], regions))


def loop_headers(text, iterator_type):
    return [ln for ln in text.splitlines() if ln.strip().startswith(f"for ({iterator_type} ")]


class NewSpellings(unittest.TestCase):
    """Unsigned iterators and labels before regions (issue 54)."""

    @classmethod
    def setUpClass(cls):
        cls.progs = [gen.generate(seed) for seed in range(400)]
        cls.texts = [gen.render(p) for p in cls.progs]

    def test_off_they_reproduce_the_previous_generator(self):
        for seed, digest in PREVIOUS.items():
            text = gen.render(gen.generate(seed, unsigned=False, labels=False, origin=False))
            self.assertEqual(hashlib.sha256(text.encode()).hexdigest()[:16], digest, seed)

    def test_they_keep_every_seed_s_model(self):
        for seed in range(300):
            self.assertEqual(model_of(self.progs[seed]),
                             model_of(gen.generate(seed, unsigned=False, labels=False, origin=False)), seed)

    def test_unsigned_iterators_are_generated(self):
        progs, texts = self.progs, self.texts
        with_unsigned = [k for k, p in enumerate(progs)
                         if any(gen.iter_type(p, r, n, q) != "int" for r in p.regions for n in r.nests for q in range(n.depth))]
        self.assertTrue(0.2 < len(with_unsigned) / len(progs) < 0.55, len(with_unsigned))
        loops = [(p, r, n, q) for p in progs for r in p.regions for n in r.nests for q in range(n.depth)]
        unsigned = [x for x in loops if gen.iter_type(*x) != "int"]
        self.assertTrue(0.05 < len(unsigned) / len(loops) < 0.3, len(unsigned) / len(loops))  # int most of the time
        for t in gen.ITER_TYPES:
            # declared by a chain loop, and at the kernel's scope
            self.assertTrue(any(loop_headers(text, t) for text in texts), t)
            self.assertTrue(any(f"\n    {t} " in text.split("static void kernel", 1)[1] for text in texts), t)
        # in scops, in chains, counting down, in call bodies' parameters, the time loop
        self.assertTrue(any(r.kind == "scop" for _, r, _, _ in unsigned))
        self.assertTrue(any(r.kind == "chain" for _, r, _, _ in unsigned))
        self.assertTrue(any(q in n.down for _, _, n, q in unsigned))
        self.assertTrue(any(n.style == "call" for _, r, n, _ in unsigned if r.kind == "chain"))
        self.assertTrue(any(re.search(r"static void stage\d+\(int N, int M, int K, (unsigned|size_t)", t) for t in texts))
        self.assertTrue(any(p.iter_types.get("t", "int") != "int" and any(r.kind == "scop" and r.time for r in p.regions)
                            for p in progs))
        # iterator values that wrap in unsigned arithmetic
        self.assertTrue(sum(bool(re.search(r" - \d+\) % \d+\)", texts[k])) for k in with_unsigned) > len(with_unsigned) / 3)

    def test_unsigned_loops_terminate_and_stay_in_bounds(self):
        for p in self.progs:
            for reg in p.regions:
                for n in reg.nests:
                    for q in range(n.depth):
                        if gen.iter_type(p, reg, n, q) == "int":
                            continue
                        for env in p.argsets:
                            lo, hi = gen.loop_range(n, q, env)
                            self.assertGreaterEqual(lo, 1 if q in n.down else 0, p.seed)
                            self.assertGreaterEqual(hi, 0, p.seed)
            if p.iter_types.get("t", "int") != "int":
                self.assertFalse(any(r.tdown for r in p.regions if r.kind == "scop" and r.time), p.seed)

    def test_validate_refuses_unsigned_loops_that_would_not_end(self):
        for p in self.progs:
            for reg in p.regions:
                if reg.kind != "scop":
                    continue
                for n in reg.nests:
                    if n.down and n.band is None:
                        q = n.down[0]
                        bad = gen.copy.deepcopy(p)
                        bn = bad.regions[p.regions.index(reg)].nests[reg.nests.index(n)]
                        bad.iter_types[bn.iters[q]] = "size_t"
                        bn.dims[q][1] = -gen.MG  # counts down to 0
                        self.assertIn("counting down to 0", gen.unsigned_problem(bad) or "")
                        return
        self.fail("no scop loop counting down")

    def test_labels_are_generated(self):
        regions = [r for p in self.progs for r in p.regions]
        labelled = [r for r in regions if r.label is not None]
        self.assertTrue(0.08 < len(labelled) / len(regions) < 0.25, len(labelled) / len(regions))
        for kind in gen.LABEL_KINDS:
            self.assertTrue(any(r.label[0] == kind and r.kind == "scop" for r in labelled), kind)
            self.assertTrue(any(r.label[0] == kind and r.kind == "chain" for r in labelled), kind)
        self.assertTrue(any(r.label == ("again", 2) for r in labelled))
        self.assertFalse(any(r.label == ("again", 2) and r.temporaries for r in labelled))
        # the label is right before the pragma: its statement is the region's first
        seen = set()
        for text in self.texts:
            lines = text.splitlines()
            for k, ln in enumerate(lines):
                m = re.fullmatch(r"\s*(case 1|default|enter\d+|again\d+):", ln)
                if m and (m.group(1) != "default" or lines[k - 1].strip() == "case 2:"):
                    self.assertRegex(lines[k + 1].strip(), r"^#pragma (scop|omplc loopchain)")
                    seen.add(re.sub(r"\d+", "", m.group(1)))
        self.assertEqual(seen, {"case ", "default", "enter", "again"})
        self.assertTrue(any("volatile int one = 1;" in t and "switch (one) {" in t for t in self.texts))
        self.assertTrue(any(re.search(r"goto (enter|again)\d+;", t) for t in self.texts))

    def test_shrinking_drops_the_new_spellings(self):
        for p in self.progs:
            if any(r.label for r in p.regions) and p.iter_types:
                cands = list(gen.shrink_candidates(p))
                self.assertTrue(any(not any(r.label for r in c.regions) for c in cands))
                self.assertTrue(any(not c.iter_types for c in cands))
                return
        self.fail("no program with both")


# sha256 (first 16 hex digits) of the programs the generator wrote before
# origin_style (commit d610a22): with it off, generate() must still write
# them. The first seven have loops from the origin on when it is on.
BEFORE_ORIGIN = {
    19: "d30416fe6ebb05fc",
    27: "67f10252d8380f3b",
    153: "8e0282bf703b5efc",
    210: "b243e9d042c0bee3",
    307: "4ac4b1352ec92b84",
    352: "91cf06fae6f77682",
    365: "fe6e87ff4610f140",
    0: "b76f96073daf3ca6",
    1: "e31fbc478cd2e2a0",
    7: "0baa34c46048cd26",
    100042: "c4167282eeeffa9e",
    700023: "d317cc38e67d4c07",
}

# Programs with loops from the origin on whose originals run under UBSan
# (Origins.test_originals_are_free_of_undefined_behaviour): together, scops
# and chains, legacy spellings, the time-stencil flavour, bands, ifs, loops
# counting down and by steps, macro and call bodies, row reductions, up- and
# down-sampling, histograms, several loops and inner loops only, unsigned
# iterators in other loops.
UBSAN_SEEDS = [210, 352, 307, 720, 153]


def sanitized_run(text, argsets):
    """Builds `text` with -fsanitize=undefined -fno-sanitize-recover=all and
    runs it on each argument set: the first failure's (args, stderr), or None."""
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "p.c"), os.path.join(d, "p")
        with open(src, "w") as f:
            f.write(text)
        subprocess.run(["gcc", "-O0", "-std=gnu99", "-fopenmp", "-Wno-unknown-pragmas", "-fsanitize=undefined",
                        "-fno-sanitize-recover=all", "-o", exe, src, "-lm"], check=True, capture_output=True)
        for env in argsets:
            args = gen.args_of(env)
            p = subprocess.run([exe] + args, capture_output=True, text=True, timeout=120,
                               env=dict(os.environ, OMP_NUM_THREADS="1"))
            if p.returncode != 0 or "runtime error" in p.stderr:
                return args, p.stderr[:500]
    return None


class Origins(unittest.TestCase):
    """Index spaces from a run-time origin near INT_MAX or INT_MIN (issue 54, class 5)."""

    @classmethod
    def setUpClass(cls):
        cls.progs = [gen.generate(seed) for seed in range(400)]
        cls.with_origin = [p for p in cls.progs if gen.has_origin(p)]

    def test_off_it_reproduces_the_previous_generator(self):
        for seed, digest in BEFORE_ORIGIN.items():
            text = gen.render(gen.generate(seed, origin=False))
            self.assertEqual(hashlib.sha256(text.encode()).hexdigest()[:16], digest, seed)
            self.assertNotRegex(text, r"\bint o\b")
        for seed in list(BEFORE_ORIGIN)[:7]:
            self.assertTrue(gen.has_origin(gen.generate(seed)), seed)

    def test_rate_and_places(self):
        self.assertTrue(0.09 <= len(self.with_origin) / len(self.progs) <= 0.16, len(self.with_origin))
        nests = [(p, r, n) for p in self.with_origin for r in p.regions for n in r.nests if n.origin]
        self.assertTrue(any(r.kind == "chain" for _, r, _ in nests))
        self.assertTrue(any(r.kind == "scop" for _, r, _ in nests))
        self.assertTrue(any(n.origin == (0,) and n.depth > 1 for _, _, n in nests))
        self.assertTrue(any(len(n.origin) > 1 for _, _, n in nests))
        self.assertTrue(any(0 not in n.origin for _, _, n in nests))
        self.assertTrue(any(n.style == "macro" for _, r, n in nests if r.kind == "chain"))
        self.assertTrue(any(n.style == "call" for _, r, n in nests if r.kind == "chain"))
        for p, r, n in nests:
            # only loops counting with int; a chain's nests alike
            self.assertTrue(all(gen.iter_type(p, r, n, q) == "int" for q in n.origin), p.seed)
            if r.kind == "chain":
                self.assertEqual({tuple(m.origin) for m in r.nests if m.depth == n.depth}, {tuple(n.origin)}, p.seed)

    def test_rendering(self):
        for p in self.with_origin:
            text = gen.render(p)
            kernel = text.split("static void kernel", 1)[1]
            self.assertIn(", int T, int o, ", kernel.split("\n", 1)[0], p.seed)
            self.assertIn("    int o = arg_int(argc, argv, 5, 0, -2147483647 - 1);", text, p.seed)
            self.assertRegex(kernel, r"for \((int )?\w+ = o \+ ")
            self.assertRegex(kernel, r"[\[(,] ?\w+ - o( [+-] \d+)?[\]),]")  # A[i - o + 1], AT2(A, i - o, j)
            for env in p.argsets:
                self.assertEqual(len(gen.args_of(env)), 5)
            for r in p.regions:
                if r.kind == "chain" and any(n.origin for n in r.nests):
                    self.assertRegex(kernel, r"domain\([^)]*o\+\d+:o\+")
                    self.assertRegex(kernel, r"\{\([^)]*\w-o[+-]?\d*[,)]")
        for p in self.progs:
            if not gen.has_origin(p):
                self.assertNotRegex(gen.render(p), r"\bint o\b")
                self.assertTrue(all(len(gen.args_of(env)) == 4 for env in p.argsets))

    def test_argument_sets_reach_the_limits(self):
        exact_max = exact_min = 0
        for p in self.with_origin:
            origins = [env[gen.ORIGIN] for env in p.argsets]
            tops = [env[gen.ORIGIN] + gen.origin_range(p, env)[1] for env in p.argsets]
            self.assertTrue(any(gen.INT_MAX - 100 <= t <= gen.INT_MAX for t in tops), p.seed)
            self.assertTrue(any(o <= gen.INT_MIN + 100 - min(0, gen.origin_range(p, env)[0])
                                for o, env in zip(origins, p.argsets)), p.seed)
            self.assertTrue(any(abs(o) <= 1 << 30 for o in origins), p.seed)  # where the loops are transformed
            exact_max += gen.INT_MAX in tops
            exact_min += gen.INT_MIN in origins
        self.assertGreater(exact_max, len(self.with_origin) / 5)
        self.assertGreater(exact_min, len(self.with_origin) / 5)
        origins = {env[gen.ORIGIN] for p in self.with_origin for env in p.argsets}
        self.assertTrue({0, 5} <= origins)

    def test_validate_refuses_origins_past_the_limits(self):
        for p in self.with_origin:
            bad = gen.copy.deepcopy(p)
            env = max(bad.argsets, key=lambda e: e[gen.ORIGIN] + gen.origin_range(bad, e)[1])
            env[gen.ORIGIN] = gen.INT_MAX - gen.origin_range(bad, env)[1] + 1
            self.assertIn("out of int", gen.validate(bad) or "", p.seed)
            bad = gen.copy.deepcopy(p)
            bad.argsets[0][gen.ORIGIN] = gen.INT_MIN - gen.origin_range(bad, bad.argsets[0])[0] - 1
            self.assertIn("out of int", gen.validate(bad) or "", p.seed)
        for p in self.with_origin:
            for ri, r in enumerate(p.regions):
                for ni, n in enumerate(r.nests):
                    if r.kind == "scop" and n.origin:
                        bad = gen.copy.deepcopy(p)
                        bad.iter_types[n.iters[n.origin[0]]] = "size_t"
                        self.assertIn("unsigned", gen.validate(bad) or "")
                        return
        self.fail("no scop nest from the origin on")

    @unittest.skipUnless(shutil.which("gcc"), "needs gcc")
    def test_originals_are_free_of_undefined_behaviour(self):
        for seed in UBSAN_SEEDS:
            p = gen.generate(seed)
            self.assertTrue(gen.has_origin(p), seed)
            self.assertIsNone(sanitized_run(gen.render(p), p.argsets), seed)
        # the check sees an overflow: loops from INT_MAX on
        p = gen.generate(UBSAN_SEEDS[0])
        env = dict(p.argsets[0])
        env[gen.ORIGIN] = gen.INT_MAX
        failed = sanitized_run(gen.render(p), [env])
        self.assertIsNotNone(failed)
        self.assertIn("signed integer overflow", failed[1])

    def test_shrinking_drops_the_origin(self):
        p = self.with_origin[0]
        cands = list(gen.shrink_candidates(p))
        plain = [c for c in cands if not gen.has_origin(c)]
        self.assertTrue(plain)
        self.assertTrue(all(gen.ORIGIN not in env for env in plain[0].argsets))
        self.assertNotRegex(gen.render(plain[0]), r"\bint o\b")
        self.assertTrue(any(gen.has_origin(c) and c.argsets[-1][gen.ORIGIN] == 0 for c in cands))


if __name__ == "__main__":
    unittest.main()
