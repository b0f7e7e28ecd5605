#!/usr/bin/env python3
"""Unit tests of the engine benchmark's checker (report.py).

Run with the bench venv (numpy, pandas, sympy, scipy; run-engine.sh makes it):

    ~/.cache/disco/benchvenv/bin/python -m unittest discover -s test/bench/peers -p 'test_*.py'
"""
import json, os, subprocess, sys, tempfile, unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


class TestTruthTable(unittest.TestCase):
    """Every truth string of the 100-equation table, evaluated the way the
    checker evaluates expressions, reproduces the Go function that wrote
    the noise-free CSV (1,000 points drawn from the database's ranges)."""

    def test_expr_matches_f_on_the_sampling_ranges(self):
        with tempfile.TemporaryDirectory() as d:
            subprocess.run(["go", "run", "./test/bench/cmd/enginebench", "gen", "-out", d, "-set", "100",
                            "-noise", "0", "-sem-seeds", "0"], cwd=ROOT, check=True, capture_output=True)
            m = json.load(open(os.path.join(d, "manifest.json")))
            self.assertEqual(len(m["feynman"]), 100)
            self.assertEqual(report.table_selfcheck(m, d), [])


if __name__ == "__main__":
    unittest.main()
