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


II_11_28 = {"name": "II.11.28", "expr": "1+n*alpha/(1-(n*alpha/3))", "vars": ["n", "alpha"],
            "ranges": [[0, 1], [0, 1]]}
II_24_17 = {"name": "II.24.17", "expr": "sqrt(omega^2/c^2-pi^2/d^2)", "vars": ["omega", "c", "d"],
            "ranges": [[4, 6], [1, 2], [2, 4]]}


def verdict(found, case):
    return report.check(found, case, report.fresh_points(case))


I_30_3 = {"name": "I.30.3", "expr": "Int_0*sin(n*theta/2)^2/sin(theta/2)^2", "vars": ["Int_0", "theta", "n"],
          "ranges": [[1, 5], [1, 5], [1, 5]]}


class TestTrigonometricForms(unittest.TestCase):
    """A law written with another trigonometric identity is the law:
    1 - cos(x) = 2*sin(x/2)^2."""

    def test_half_angle_form_is_exact(self):
        v = verdict("Int_0*(1 - cos(n*theta))/(1 - cos(theta))", I_30_3)
        self.assertTrue(v["sympy"])
        self.assertTrue(v["exact"])

    def test_wrong_multiple_is_not(self):
        v = verdict("Int_0*(1 - cos(2*n*theta))/(1 - cos(theta))", I_30_3)
        self.assertFalse(v["exact"])


class TestConstantRecognition(unittest.TestCase):
    """Issue 18: a correct law whose constants round badly is exact; a law
    whose constant is a few per cent off is not."""

    def test_snap_constant(self):
        sp = report.sp
        self.assertEqual(report.snap_constant(-0.333333), sp.Rational(-1, 3))
        self.assertEqual(report.snap_constant(9.8696), sp.pi**2)
        self.assertEqual(report.snap_constant(0.398942), 1 / sp.sqrt(2 * sp.pi))
        self.assertEqual(report.snap_constant(2.5), sp.Rational(5, 2))
        self.assertNotEqual(report.snap_constant(0.34), sp.Rational(1, 3))
        self.assertNotEqual(report.snap_constant(9.5), sp.pi**2)

    def test_issue_example_is_exact(self):
        v = verdict("3/(-0.333333*n*alpha + 1) - 2", II_11_28)
        self.assertFalse(v["sympy"])  # the strict test alone misses it
        self.assertTrue(v["sympy_snapped"])
        self.assertTrue(v["exact"])

    def test_pi_squared_written_out_is_exact(self):
        v = verdict("sqrt(omega^2/c^2 - 9.8696/d^2)", II_24_17)
        self.assertTrue(v["exact"])
        self.assertTrue(v["sympy_snapped"])

    def test_near_misses_still_fail(self):
        for found, case in (("3/(-0.34*n*alpha + 1) - 2", II_11_28),  # 1/3 off by 2 %
                            ("3/(-0.3*n*alpha + 1) - 2", II_11_28),
                            ("sqrt(omega^2/c^2 - 9.5/d^2)", II_24_17),  # pi^2 off by 4 %
                            ("sqrt(omega^2/c^2 - 9.8696/d)", II_24_17)):  # right constant, wrong power
            with self.subTest(found=found):
                v = verdict(found, case)
                self.assertFalse(v["exact"])
                self.assertFalse(v["sympy_snapped"])

    def test_truth_form_with_a_rounded_third_is_exact(self):
        v = verdict("1 + n*alpha/(1 - 0.333333*n*alpha)", II_11_28)
        self.assertTrue(v["exact"])

    def test_strict_verdict_needs_no_recognition(self):
        v = verdict("1 + n*alpha/(1 - n*alpha/3)", II_11_28)
        self.assertTrue(v["sympy"])
        self.assertIsNone(v["sympy_snapped"])
        self.assertTrue(v["exact"])


I_48_2 = {"name": "I.48.2", "expr": "m*c^2/sqrt(1-v^2/c^2)", "vars": ["m", "v", "c"],
          "ranges": [[1, 5], [1, 2], [3, 10]]}
I_37_4 = {"name": "I.37.4", "expr": "I1+I2+2*sqrt(I1*I2)*cos(delta)", "vars": ["I1", "I2", "delta"],
          "ranges": [[1, 5], [1, 5], [1, 5]]}


@unittest.skipUnless(report.HAVE_SCIPY, "the right-form test needs scipy (the bench venv has it)")
class TestRightForm(unittest.TestCase):
    """The truth's structure with its constants free is the right form; a
    different structure, or the truth with a term gone, is not."""

    def test_constants_off_is_right_form_not_exact(self):
        for found, case in (("1.1*m*c^2/sqrt(1 - 0.9*v^2/c^2)", I_48_2),
                            ("1 + 1.1*n*alpha/(1 - 0.3*n*alpha)", II_11_28),
                            ("1.05*I1 + 0.97*I2 + 1.9*sqrt(I1*I2)*cos(1.01*delta)", I_37_4)):
            with self.subTest(found=found):
                v = verdict(found, case)
                self.assertFalse(v["exact"])
                self.assertTrue(v["right_form"])

    def test_other_structures_are_not(self):
        for found, case in (("m*c^2/cos(v/c)", I_48_2),  # fits the data within 0.7 %, another law
                            ("m*c^2 + 0.5*m*v^2", I_48_2),  # the truth's Taylor expansion
                            ("m*c^2", I_48_2),  # the truth with a term gone
                            ("n*alpha", II_11_28),
                            ("I1 + I2 + 2*sqrt(I1*I2)*cos(delta) + 0.01*I1^2", I_37_4)):
            with self.subTest(found=found):
                self.assertFalse(verdict(found, case)["right_form"])

    def test_exact_is_right_form(self):
        v = verdict("m*c^2/sqrt(1 - v^2/c^2)", I_48_2)
        self.assertTrue(v["exact"])
        self.assertTrue(v["right_form"])


if __name__ == "__main__":
    unittest.main()
