"""Summarise the neural mode's structure claims on the Feynman cases.

Reads the JSON of `enginebench run -mode neural`, where each case carries `structure`: the claim
checked against the true function (test/bench/cmd/enginebench/structure.go). A split claim is
right when the truth has it; a claim of "none" is right when the truth has no split into two
groups, and misses structure when it has one.

    python test/bench/peers/structure_report.py ours.json [more.json ...]
"""
import json
import sys


def summarise(path):
    rows = json.load(open(path))["feynman"]
    out = {}
    for noise in sorted({r["noise"] for r in rows}):
        n = held = wrong = none_right = missed = errors = 0
        wrong_cases = []
        for r in rows:
            if r["noise"] != noise:
                continue
            n += 1
            s = r.get("structure")
            if not s:
                errors += 1
                continue
            if s["form"] == "none":
                if s["truth_splits"]:
                    missed += 1
                else:
                    none_right += 1
            elif s["holds"]:
                held += 1
            else:
                wrong += 1
                wrong_cases.append(f"{r['name']}: {r['expression']} (truth split error {s['truth_split_error']:.3g})")
        out[noise] = dict(cases=n, split_holds=held, split_wrong=wrong, none_right=none_right,
                          none_missed=missed, errors=errors, wrong=wrong_cases)
    return out


def main():
    for path in sys.argv[1:]:
        print(path)
        print("| noise | cases | split claimed, holds | split claimed, wrong | none, truth has none | none, truth splits | errors |")
        print("|---|---|---|---|---|---|---|")
        res = summarise(path)
        for noise, s in res.items():
            print(f"| {float(noise):.0%} | {s['cases']} | {s['split_holds']} | **{s['split_wrong']}** | "
                  f"{s['none_right']} | {s['none_missed']} | {s['errors']} |")
        for noise, s in res.items():
            for w in s["wrong"]:
                print(f"- wrong at {float(noise):.0%}: {w}")


if __name__ == "__main__":
    main()
