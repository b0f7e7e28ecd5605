#!/usr/bin/env python3
"""Replays the settle rule (engine/symbolic/settle.go) on per-epoch search traces.

The traces in test/bench/results/settle/traces/ were recorded before the rule existed,
with a temporary print after every epoch of the main symbolic search of 60 s benchmark
runs (`enginebench run -time-limit 60s`, seed 1). Each TRACE line holds: seconds since
the search started, generations done, complexity and NMSE of the model selection would
pick from the running front, the front's lowest NMSE, that model's expression, and (in
trace2 only) the neighbour ratio of its residuals. trace1 covers 22 cases at 1 % noise;
trace2 covers 9 noise-free cases the search did not solve quickly and 10 at 1 % noise.
traceN-ours.json is the run's result list; its entries with a wall time are the traced
cases, in the same order.

For each rule variant the script reports in how many cases the model chosen when the
rule would stop is the one chosen when the search ran to its limit, and the mean search
time, per trace and noise level. Cases without a ratio (trace1) are replayed as if their
residuals were white, which is the rule's most eager case.

    python test/bench/peers/settle_traces.py [--dir test/bench/results/settle/traces]
"""
import argparse, gzip, json, os


def load(trace, results):
    cases, cur, last = [], [], -1.0
    with gzip.open(trace, "rt") as f:
        for line in f:
            if not line.startswith("TRACE"):
                continue
            c = line.rstrip("\n").split("\t")
            t = float(c[1])
            if t < last and cur:
                cases.append(cur)
                cur = []
            ratio = float(c[7]) if len(c) > 7 else None
            cur.append((t, int(c[2]) // 10, int(c[3]), float(c[4]), c[6], ratio))
            last = t
    if cur:
        cases.append(cur)
    res = [r for r in json.load(open(results))["feynman"] if r["wall_s"] > 0]
    group = os.path.basename(trace).split(".")[0]
    return [(tr, r, f"{group}, noise {r['noise']}") for tr, r in zip(cases, res)]


def replay(tr, min_epochs, tol, white):
    """Index of the epoch at which the rule stops (the last one if never)."""
    size, loss, since = tr[0][2], tr[0][3], tr[0][1]
    for i, (_, epoch, s, l, _, ratio) in enumerate(tr):
        if s != size or l < loss * (1 - tol):
            size, loss, since = s, l, epoch
        if epoch - since >= max(min_epochs, since) and (ratio is None or ratio >= white):
            return i
    return len(tr) - 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="test/bench/results/settle/traces")
    a = ap.parse_args()
    data = []
    for k in (1, 2):
        data += load(os.path.join(a.dir, f"trace{k}.tsv.gz"), os.path.join(a.dir, f"trace{k}-ours.json"))
    groups = sorted({g for _, _, g in data})
    for rule in [(10, 0.01, 0.8), (10, 0.01, 0.7), (5, 0.01, 0.8), (20, 0.01, 0.8)]:
        print(f"min epochs {rule[0]}, loss tolerance {rule[1]}, ratio >= {rule[2]}:")
        for g in groups:
            cases = [(tr, r) for tr, r, gg in data if gg == g]
            same, stop_t, full_t, changed = 0, 0.0, 0.0, []
            for tr, r in cases:
                i, end = replay(tr, *rule), tr[-1]
                ok = tr[i][2] == end[2] and abs(tr[i][3] - end[3]) <= 0.02 * end[3]
                same += ok
                stop_t += tr[i][0]
                full_t += end[0]
                if not ok:
                    changed.append(f"{r['name']}: {tr[i][4]} instead of {end[4]}")
            print(f"  {g:18s} same choice in {same}/{len(cases)}, mean search {stop_t / len(cases):.1f} s "
                  f"instead of {full_t / len(cases):.1f} s")
            for c in changed:
                print("     ", c)
    print("noise-free cases: highest ratio of a model that was not exact:",
          max((x[5] for tr, r, _ in data if r["noise"] == "0" for x in tr if x[3] > 1e-12), default=None))
    print("noisy cases: ratio of the model chosen at the limit, min and max:",
          min(tr[-1][5] for tr, r, _ in data if r["noise"] != "0" and tr[-1][5] is not None),
          max(tr[-1][5] for tr, r, _ in data if r["noise"] != "0" and tr[-1][5] is not None))

if __name__ == "__main__":
    main()
