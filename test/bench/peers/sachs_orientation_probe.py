"""Can observational Sachs data orient the edges PC leaves undirected? A probe, not a method.

For each of the 8 adjacencies PC finds on the 853 observational rows, both directions are
scored by two standard bivariate criteria for nonlinear additive-noise models:
  - ANM/RESIT: Gaussian-process regression of effect on cause, HSIC between the residual and
    the cause (smaller = more plausible direction; Hoyer et al. 2009);
  - CAM: log residual variance of a cubic-spline fit, 5-fold cross-validated (Bühlmann et al.
    2014; with Gaussian noise the direction with the smaller total is preferred).
each on the raw and the log-transformed data. The truth is the consensus network of
../shared/data/README.md. A criterion that works should beat a coin (4 of 8).

With --jci it also tries the interventional route on all 7,466 rows: the nine experimental
conditions (row blocks of 853, 902, 911, 723, 810, 799, 848, 913 and 707, Sachs et al. 2005) as
eight indicator context variables that may cause but not be caused by the proteins (joint causal
inference with causal-learn's PC-stable, Fisher-z on log data, background knowledge).

    python test/bench/peers/sachs_orientation_probe.py [--data ../shared/data/sachs-2005-continuous.tsv] [--jci]
"""
import argparse

import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, WhiteKernel
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import SplineTransformer

CONSENSUS = {("raf", "mek"), ("mek", "erk"), ("erk", "akt"), ("pka", "akt"), ("pka", "erk"), ("pka", "jnk"),
             ("pka", "mek"), ("pka", "p38"), ("pka", "raf"), ("pkc", "jnk"), ("pkc", "mek"), ("pkc", "p38"),
             ("pkc", "pka"), ("pkc", "raf"), ("plc", "pip2"), ("plc", "pip3"), ("pip3", "pip2")}
CONDITION_ROWS = [853, 902, 911, 723, 810, 799, 848, 913, 707]

# PC's adjacencies (test/bench/README.md, Sachs) with the consensus cause.
PAIRS = [("mek", "raf", "raf"), ("pip2", "pip3", "pip3"), ("akt", "erk", "erk"), ("akt", "pka", "pka"),
         ("erk", "pka", "pka"), ("pip3", "plc", "plc"), ("jnk", "pkc", "pkc"), ("p38", "pkc", "pkc")]


def hsic(a, b):
    def gram(v):
        d = v[:, None] - v[None, :]
        s = np.median(np.abs(d))
        return np.exp(-d * d / (2 * s * s))
    n = len(a)
    h = np.eye(n) - 1.0 / n
    return float(np.sum((h @ gram(a) @ h) * (h @ gram(b) @ h)) / n / n)


def anm_score(x, y):
    gp = GaussianProcessRegressor(RBF(1.0) + WhiteKernel(0.1), normalize_y=True)
    idx = np.random.RandomState(0).choice(len(x), min(400, len(x)), replace=False)
    gp.fit(x[idx, None], y[idx])
    return hsic(x, y - gp.predict(x[:, None]))


def cam_score(x, y):
    m = make_pipeline(SplineTransformer(n_knots=8, degree=3), RidgeCV(alphas=np.logspace(-3, 3, 13)))
    return float(np.log(np.var(y - cross_val_predict(m, x[:, None], y, cv=5))))


def jci(path, alpha):
    from causallearn.search.ConstraintBased.PC import pc
    from causallearn.utils.PCUtils.BackgroundKnowledge import BackgroundKnowledge
    d = np.genfromtxt(path, delimiter="\t", names=True)
    names = list(d.dtype.names)
    x = np.log(np.column_stack([np.asarray(d[n], float) for n in names]))
    regime = np.repeat(np.arange(len(CONDITION_ROWS)), CONDITION_ROWS)
    z = np.column_stack([x] + [(regime == k).astype(float) for k in range(1, len(CONDITION_ROWS))])
    labels = names + [f"C{k}" for k in range(1, len(CONDITION_ROWS))]
    p = len(names)
    nodes = pc(z, alpha, "fisherz", stable=True, show_progress=False, node_names=labels).G.get_nodes()
    bk = BackgroundKnowledge()
    for i in range(p):
        for j in range(p, z.shape[1]):
            bk.add_forbidden_by_node(nodes[i], nodes[j])
    g = pc(z, alpha, "fisherz", stable=True, show_progress=False, node_names=labels, background_knowledge=bk).G.graph
    right, picks = 0, []
    for i in range(p):
        for j in range(i + 1, p):
            if g[i, j] == 0 and g[j, i] == 0:
                continue
            a, b = names[i], names[j]
            edge = (a, b) if (g[i, j], g[j, i]) == (-1, 1) else (b, a) if (g[i, j], g[j, i]) == (1, -1) else None
            right += edge in CONSENSUS
            mark = "" if edge in CONSENSUS else "(x)" if edge and edge[::-1] in CONSENSUS else "(not in consensus)"
            picks.append(f"{edge[0]}->{edge[1]}{mark}" if edge else f"{a}--{b}")
    print(f"JCI-PC alpha {alpha:g}: {right}/{len(picks)} edges correctly oriented: {', '.join(picks)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="../shared/data/sachs-2005-continuous.tsv")
    ap.add_argument("--rows", type=int, default=853)
    ap.add_argument("--jci", action="store_true", help="also the nine conditions as context variables (all rows)")
    a = ap.parse_args()
    if a.jci:
        for alpha in (0.05, 0.01, 0.001):
            jci(a.data, alpha)
    d = np.genfromtxt(a.data, delimiter="\t", names=True)[: a.rows]
    cols = {n: np.asarray(d[n], float) for n in d.dtype.names}
    for transform in ("raw", "log"):
        for name, score in (("ANM (GP + HSIC)", anm_score), ("CAM (spline, CV)", cam_score)):
            right = 0
            picks = []
            for u, v, truth in PAIRS:
                x, y = cols[u], cols[v]
                if transform == "log":
                    x, y = np.log(x), np.log(y)
                x, y = (x - x.mean()) / x.std(), (y - y.mean()) / y.std()
                cause = u if score(x, y) < score(y, x) else v
                right += cause == truth
                picks.append(f"{cause}->{v if cause == u else u}{'' if cause == truth else '(x)'}")
            print(f"{transform:3s} {name:17s} {right}/8 correct: {', '.join(picks)}")


if __name__ == "__main__":
    main()
