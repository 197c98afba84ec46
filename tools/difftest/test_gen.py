#!/usr/bin/env python3
"""Unit tests of the generator (python3 -m unittest tools/difftest/test_gen.py)."""

import os
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


if __name__ == "__main__":
    unittest.main()
