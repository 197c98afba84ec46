#!/usr/bin/env python3
"""Unit tests of the generator (python3 -m unittest tools/difftest/test_gen.py)."""

import hashlib
import os
import re
import sys
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
    """Everything of a program's model but the new spellings."""
    regions = []
    for reg in prog.regions:
        nests = []
        for n in reg.nests:
            d = {k: v for k, v in vars(n).items() if k not in ("itypes", "stmts")}
            d["stmts"] = [strip_stmt(st) for st in n.stmts]
            nests.append(d)
        d = {k: v for k, v in vars(reg).items() if k not in ("nests", "label")}
        regions.append((d, nests))
    p = {k: v for k, v in vars(prog).items() if k not in ("arrays", "regions", "iter_types")}
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
            text = gen.render(gen.generate(seed, unsigned=False, labels=False))
            self.assertEqual(hashlib.sha256(text.encode()).hexdigest()[:16], digest, seed)

    def test_they_keep_every_seed_s_model(self):
        for seed in range(300):
            self.assertEqual(model_of(self.progs[seed]), model_of(gen.generate(seed, unsigned=False, labels=False)), seed)

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


if __name__ == "__main__":
    unittest.main()
