"""Writes the datasets of before.txt / after.txt into the current directory.

    python gen.py && bash run.sh   # run.sh expects the disco binary at $DISCO (default ./disco)

easy: y = x0*x1; hard: y = asin(0.3*sin(x0))*x1/(1 + x2^3), noise-free, which
the search does not find; noise: y ~ N(0, 1) independent of the inputs.
The other columns are U(1, 3) and do not enter y.
"""
import numpy as np

rng = np.random.default_rng(1)
for n in [1000, 10000, 100000]:
    for d in [3, 10]:
        X = rng.uniform(1, 3, (n, d))
        names = [f"x{i}" for i in range(d)]
        for kind in ["easy", "hard", "noise"]:
            if kind == "easy":
                y = X[:, 0] * X[:, 1]
            elif kind == "hard":
                y = np.arcsin(0.3 * np.sin(X[:, 0])) * X[:, 1] / (1 + X[:, 2] ** 3)
            else:
                y = rng.normal(size=n)
            with open(f"{kind}_{n}_{d}.csv", "w") as f:
                f.write(",".join(names + ["y"]) + "\n")
                np.savetxt(f, np.column_stack([X, y]), delimiter=",", fmt="%.10g")
