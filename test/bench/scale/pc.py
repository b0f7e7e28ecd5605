#!/usr/bin/env python3
"""causal-learn PC on one CSV, as test/bench/peers/pc_causallearn.py runs it
(Fisher-z, stable=True, same alpha, unlimited depth): prints
{nodes, edges: [{from, to, directed}], time_s} as JSON on stdout."""
import argparse, json, os, sys

import pandas as pd

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peers"))
from pc_causallearn import run_pc  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--depth", type=int, default=-1)
    a = ap.parse_args()
    df = pd.read_csv(a.csv)
    json.dump(run_pc(df.to_numpy(dtype=float), list(df.columns), a.alpha, a.depth), sys.stdout)


if __name__ == "__main__":
    main()
