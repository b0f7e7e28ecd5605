#!/usr/bin/env python3
"""Symbolic-regression peers on the Feynman cases, at equal wall time.

For every equation and noise level of the manifest, runs
  - pyoperon (SymbolicRegressor, max_time = the time limit, generation and
    evaluation budgets set so high that the time limit decides), and
  - gplearn (SymbolicRegressor with warm_start, one generation per fit call,
    stopping before the next generation would overrun the time limit),
on the same CSV as the engine, and writes a JSON list of
{name, noise, peer, expression, wall_s, error}. Expressions use the data's
column names, infix with ^, so the checker parses them like the engine's.
A peer that cannot be imported is reported once and skipped.

With --match-wall OURS.json each case gets the wall time the engine took on
that same case (equation and noise level) instead of one fixed limit, which
is the fairest reading of "at equal wall time" when the engine stops early.
"""
import argparse, json, os, sys, time

import numpy as np
import pandas as pd

OPERON_SYMBOLS = "add,sub,mul,div,constant,variable,square,sqrt,exp,log,sin,cos"
GPLEARN_FUNCS = ("add", "sub", "mul", "div", "sqrt", "log", "sin", "cos")


def run_operon(X, y, names, limit, seed, threads):
    from pyoperon.sklearn import SymbolicRegressor
    r = SymbolicRegressor(allowed_symbols=OPERON_SYMBOLS, max_time=max(1, int(round(limit))),
                          generations=10**7, max_evaluations=10**12, n_threads=threads,
                          random_state=seed)
    r.fit(X, y)
    return r.get_model_string(r.model_, precision=10, names=names)


def gplearn_infix(program, names):
    """gplearn's prefix program -> infix with the protected operators written out."""
    from gplearn.functions import _Function
    pos = 0

    def rec():
        nonlocal pos
        node = program[pos]
        pos += 1
        if isinstance(node, _Function):
            args = [rec() for _ in range(node.arity)]
            n = node.name
            if n == "add": return f"({args[0]} + {args[1]})"
            if n == "sub": return f"({args[0]} - {args[1]})"
            if n == "mul": return f"({args[0]} * {args[1]})"
            if n == "div": return f"({args[0]} / {args[1]})"  # protected only where |den| < 0.001
            if n == "sqrt": return f"sqrt(abs({args[0]}))"
            if n == "log": return f"log(abs({args[0]}))"
            if n == "neg": return f"(-{args[0]})"
            if n == "inv": return f"(1/{args[0]})"
            return f"{n}({', '.join(args)})"
        if isinstance(node, (int, np.integer)):
            return names[int(node)]
        return f"({float(node)!r})"

    return rec()


def run_gplearn(X, y, names, limit, seed):
    from gplearn.genetic import SymbolicRegressor
    g = SymbolicRegressor(population_size=1000, generations=1, warm_start=True, random_state=seed,
                          function_set=GPLEARN_FUNCS, n_jobs=1, verbose=0)
    start = time.perf_counter()
    gens, last = 0, 0.0
    while True:
        t0 = time.perf_counter()
        gens += 1
        g.set_params(generations=gens)
        g.fit(X, y)
        last = time.perf_counter() - t0
        if time.perf_counter() - start + last > limit:
            break
    return gplearn_infix(g._program.program, names), gens


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--time-limit", type=float, default=20.0, help="seconds per equation and noise level")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2, help="pyoperon threads (the engine may use all cores too)")
    ap.add_argument("--peers", default="pyoperon,gplearn")
    ap.add_argument("--match-wall", metavar="OURS_JSON",
                    help="give each case the engine's wall time on it (enginebench run output)")
    a = ap.parse_args()
    ours_wall = {}
    if a.match_wall:
        for r in json.load(open(a.match_wall)).get("feynman", []):
            ours_wall[(r["name"], r["noise"])] = float(r["wall_s"])
    m = json.load(open(os.path.join(a.cases, "manifest.json")))
    peers = []
    for p in a.peers.split(","):
        try:
            __import__({"pyoperon": "pyoperon.sklearn", "gplearn": "gplearn.genetic"}[p])
            peers.append(p)
        except Exception as e:
            print(f"sr_peers: peer {p} unavailable: {e!r}; continuing without it", file=sys.stderr)
    out = []
    for c in m["feynman"]:
        for noise, rel in sorted(c["files"].items()):
            df = pd.read_csv(os.path.join(a.cases, rel))
            names = [n for n in df.columns if n != "y"]
            X = np.array(df[names].to_numpy(dtype=np.float64), order="C", copy=True)  # pyoperon needs writeable arrays
            y = np.array(df["y"].to_numpy(dtype=np.float64), order="C", copy=True)
            limit = a.time_limit
            if a.match_wall:
                if (c["name"], noise) not in ours_wall:
                    print(f"sr_peers: {c['name']} noise {noise} is not in {a.match_wall}; skipped", file=sys.stderr)
                    continue
                limit = max(1.0, ours_wall[(c["name"], noise)])
            for p in peers:
                rec = {"name": c["name"], "noise": noise, "peer": p, "time_limit_s": limit}
                t0 = time.perf_counter()
                try:
                    if p == "pyoperon":
                        rec["expression"] = run_operon(X, y, names, limit, a.seed, a.threads)
                    else:
                        rec["expression"], rec["generations"] = run_gplearn(X, y, names, limit, a.seed)
                except Exception as e:
                    rec["error"] = repr(e)
                rec["wall_s"] = time.perf_counter() - t0
                print(f"{p:8s} {c['name']:10s} noise {noise:4s} {rec['wall_s']:6.1f}s  "
                      f"{rec.get('expression', rec.get('error'))}", file=sys.stderr)
                out.append(rec)
                json.dump(out, open(a.out, "w"), indent=1)
    json.dump(out, open(a.out, "w"), indent=1)


if __name__ == "__main__":
    main()
