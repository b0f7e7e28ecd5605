#!/usr/bin/env python3
"""causal-learn PC (Fisher-z, stable, same alpha) on the SEM cases and Sachs.

Writes {case_name: {nodes, edges: [{from, to, directed}], time_s, error}}; the Go
driver (enginebench run -pc) scores these graphs with the same functions as ours.
"""
import argparse, json, os, sys, time

import numpy as np
import pandas as pd


def graph_edges(G, names):
    """causal-learn GeneralGraph adjacency matrix -> edge list.
    G.graph[j, i] == 1 and G.graph[i, j] == -1 means i -> j; both -1 undirected;
    both 1 (bidirected, a conflict) is reported undirected."""
    A = G.graph
    out = []
    p = len(names)
    for i in range(p):
        for j in range(i + 1, p):
            a, b = A[i, j], A[j, i]
            if a == 0 and b == 0:
                continue
            if a == -1 and b == 1:
                out.append({"from": names[i], "to": names[j], "directed": True})
            elif a == 1 and b == -1:
                out.append({"from": names[j], "to": names[i], "directed": True})
            else:
                out.append({"from": names[i], "to": names[j], "directed": False})
    return out


def run_pc(X, names, alpha, depth):
    from causallearn.search.ConstraintBased.PC import pc
    t0 = time.perf_counter()
    cg = pc(X, alpha, "fisherz", stable=True, uc_rule=0, uc_priority=2,
            show_progress=False, depth=depth)
    dt = time.perf_counter() - t0
    return {"nodes": names, "edges": graph_edges(cg.G, names), "time_s": dt}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--depth", type=int, default=-1)
    a = ap.parse_args()
    m = json.load(open(os.path.join(a.cases, "manifest.json")))
    alpha = m["alpha"]
    res = {}
    jobs = [(c["name"], os.path.join(a.cases, c["file"]), None) for c in m["sem"]]
    jobs.append(("sachs", m["sachs"]["file"], m["sachs"]["rows"]))
    for name, path, rows in jobs:
        sep = "\t" if path.endswith(".tsv") else ","
        df = pd.read_csv(path, sep=sep, nrows=rows)
        try:
            res[name] = run_pc(df.to_numpy(dtype=float), list(df.columns), alpha, a.depth)
            print(f"pc {name:24s} {len(res[name]['edges'])} edges {res[name]['time_s']:.2f}s", file=sys.stderr)
        except Exception as e:  # report and continue
            res[name] = {"nodes": list(df.columns), "edges": [], "time_s": 0, "error": repr(e)}
            print(f"pc {name}: {e!r}", file=sys.stderr)
    json.dump(res, open(a.out, "w"), indent=1)


if __name__ == "__main__":
    main()
