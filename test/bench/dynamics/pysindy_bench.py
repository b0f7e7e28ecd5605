"""pysindy on the dynamics benchmark's CSVs (see test/bench/README.md, "Dynamics").

Usage: python pysindy_bench.py DATA_DIR OUT_JSON

Methods (pysindy 2.1.0, pinned by run.sh):
  pysindy_default: ps.SINDy() with every default (PolynomialLibrary degree 2,
                   STLSQ threshold 0.1, FiniteDifference), all trajectories.
  pysindy_weak:    the default optimizer on ps.WeakPDELibrary(function_library=
                   PolynomialLibrary(degree=2), spatiotemporal_grid=t) with its defaults
                   (K=100 test functions, p=4), all trajectories.
  pysindy_lib3:    ps.SINDy() with the defaults except the library, ours: PolynomialLibrary
                   degree 3 + FourierLibrary(n_frequencies=1) (sin and cos of each state).
Writes {method: {case: {"coefficients": [{term: coef} per state], "seconds": s, "error": msg}}}.
"""
import csv
import json
import sys
import time
import warnings

import numpy as np
import pysindy as ps

warnings.filterwarnings("ignore")


def load(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    header, rows = rows[0], rows[1:]
    states = header[2:]
    trajs = {}
    for r in rows:
        trajs.setdefault(r[1], []).append([float(v) for v in [r[0]] + r[2:]])
    ts, xs = [], []
    for k in sorted(trajs, key=lambda k: int(k)):
        a = np.array(trajs[k])
        ts.append(a[:, 0])
        xs.append(a[:, 1:])
    return states, ts, xs


def term(name):
    # pysindy prints "x y", "x^2 y", "sin(1 x)"; the scorer reads "x*y", "sin(x)"
    return name.replace("sin(1 ", "sin(").replace("cos(1 ", "cos(").replace(" ", "*")


def coefficients(model, states):
    names = model.get_feature_names()
    out = []
    for row in model.coefficients():
        out.append({term(n): float(c) for n, c in zip(names, row) if c != 0})
    return out


def default(states, ts, xs):
    model = ps.SINDy()
    model.fit(xs, t=ts, feature_names=states)
    return coefficients(model, states)


def weak(states, ts, xs):
    # every trajectory of a case shares one time grid (the generator's)
    lib = ps.WeakPDELibrary(function_library=ps.PolynomialLibrary(degree=2), spatiotemporal_grid=ts[0])
    model = ps.SINDy(feature_library=lib)
    model.fit(xs, t=ts, feature_names=states)
    return coefficients(model, states)


def lib3(states, ts, xs):
    lib = ps.PolynomialLibrary(degree=3) + ps.FourierLibrary(n_frequencies=1)
    model = ps.SINDy(feature_library=lib)
    model.fit(xs, t=ts, feature_names=states)
    return coefficients(model, states)


def main():
    data, out = sys.argv[1], sys.argv[2]
    with open(f"{data}/manifest.json") as f:
        manifest = json.load(f)
    methods = (("pysindy_default", default), ("pysindy_weak", weak), ("pysindy_lib3", lib3))
    results = {name: {} for name, _ in methods}
    for c in manifest:
        states, ts, xs = load(f"{data}/{c['file']}")
        for method, fn in methods:
            np.random.seed(0)  # the weak library draws its test-function domains at random
            start = time.time()
            try:
                res = {"coefficients": fn(states, ts, xs)}
            except Exception as e:  # a failure is reported per case, not fatal
                res = {"coefficients": None, "error": f"{type(e).__name__}: {e}"}
            res["seconds"] = time.time() - start
            results[method][c["name"]] = res
            print(f"{method:16s} {c['name']:28s} {res['seconds']:.2f}s {res.get('error', '')}", file=sys.stderr)
    with open(out, "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
