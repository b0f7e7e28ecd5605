"""Calibrate the neural mode's split tolerance (engine/neural/split.go) from `enginebench splits`.

Each record holds one surrogate's split candidates on one Feynman case, with the split error of
each candidate on the surrogate and on the true function. A candidate holds when the truth's
split error is 0 (<= 1e-6). The script prints the surrogate's split error, in units of its own
fit error sqrt(1 - R²), for candidates that hold and for those that do not, then what the neural
mode would claim for a grid of tolerances min(ceiling, max(floor, k * fit error)): the finest
candidate within the tolerance, additive first.

    python test/bench/peers/split_calibration.py splits.json
"""
import itertools
import json
import math
import sys

FLOOR = 0.02


def quantiles(v, qs=(0, 0.1, 0.25, 0.5, 0.75, 0.9, 1)):
    v = sorted(v)
    return ", ".join(f"{v[int(q * (len(v) - 1))]:.2f}" for q in qs)


def choose(record, tol):
    best = None
    for c in record["candidates"] or []:
        if best is not None and len(c["groups"]) <= len(best["groups"]):
            continue
        if c["surrogate_split_error"] <= tol:
            best = c
    return best


def main(path):
    recs = json.load(open(path))
    held, wrong = [], []
    for r in recs:
        fit = math.sqrt(max(0.0, 1 - r["validation_r2"]))
        for c in r["candidates"] or []:
            (held if c["truth_split_error"] <= 1e-6 else wrong).append(c["surrogate_split_error"] / max(fit, 1e-12))
    print(f"surrogate split error / fit error, quantiles 0, .1, .25, .5, .75, .9, 1")
    print(f"  {len(held)} candidates that hold:        {quantiles(held)}")
    print(f"  {len(wrong)} candidates that do not hold: {quantiles(wrong)}")
    print()
    print("| k | ceiling | split claimed, holds | split claimed, wrong | none | wrong claims (truth split error) |")
    print("|---|---|---|---|---|---|")
    for k, ceiling in itertools.product((1.0, 1.5, 2.0), (0.025, 0.035, 0.05, 0.1)):
        ok = bad = none = 0
        names = set()
        for r in recs:
            fit = math.sqrt(max(0.0, 1 - r["validation_r2"]))
            c = choose(r, min(ceiling, max(FLOOR, k * fit)))
            if c is None:
                none += 1
            elif c["truth_split_error"] <= 1e-6:
                ok += 1
            else:
                bad += 1
                names.add(f"{r['name']} ({c['truth_split_error']:.3f})")
        print(f"| {k} | {ceiling} | {ok} | {bad} | {none} | {', '.join(sorted(names))} |")


if __name__ == "__main__":
    main(sys.argv[1])
