"""Can observational Sachs data orient the edges PC leaves undirected? A probe, not a method.

For each of the 8 adjacencies PC finds on the 853 observational rows, both directions are
scored by two standard bivariate criteria for nonlinear additive-noise models:
  - ANM/RESIT: Gaussian-process regression of effect on cause, HSIC between the residual and
    the cause (smaller = more plausible direction; Hoyer et al. 2009);
  - CAM: log residual variance of a cubic-spline fit, 5-fold cross-validated (Bühlmann et al.
    2014; with Gaussian noise the direction with the smaller total is preferred).
each on the raw and the log-transformed data. The truth is the consensus network of
../shared/data/README.md. A criterion that works should beat a coin (4 of 8).

With --skew it also scores the pairs by the pairwise likelihood-ratio measures for skewed
linear models (Hyvärinen & Smith 2013: skew, robust skew, tanh), which suit these strongly
right-skewed columns (skewness 2.1–26.8), with the share of 200 bootstrap resamples that agree,
and prints the correlations behind PC's one orientation, the jnk -> pkc <- p38 collider.

With --jci it also tries the interventional route on all 7,466 rows: the nine experimental
conditions (row blocks of 853, 902, 911, 723, 810, 799, 848, 913 and 707, Sachs et al. 2005) as
eight indicator context variables that may cause but not be caused by the proteins (joint causal
inference with causal-learn's PC-stable, Fisher-z on log data, background knowledge).

    python test/bench/peers/sachs_orientation_probe.py [--data ../shared/data/sachs-2005-continuous.tsv] [--skew] [--jci]
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


def skew_measures(x, y):
    """Hyvärinen & Smith (2013) pairwise measures; > 0 says x -> y. Each variable is
    standardised with its skewness made positive."""
    def std(v):
        v = (v - v.mean()) / v.std()
        return v * np.sign(np.mean(v ** 3))
    x, y = std(x), std(y)
    rho = np.mean(x * y)
    g = lambda u: np.log(np.cosh(np.maximum(u, 0)))
    return {"skew": rho * np.mean(x * x * y - x * y * y),
            "rskew": rho * np.mean(g(x) * y - x * g(y)),
            "tanh": rho * np.mean(x * np.tanh(y) - np.tanh(x) * y)}


def skew_probe(cols):
    rng = np.random.default_rng(0)
    for transform in ("raw", "log"):
        f = np.log if transform == "log" else (lambda v: v)
        for measure in ("skew", "rskew", "tanh"):
            right, picks = 0, []
            for u, v, truth in PAIRS:
                x, y = f(cols[u]), f(cols[v])
                m = skew_measures(x, y)[measure]
                boot = [skew_measures(x[i], y[i])[measure] for i in (rng.integers(0, len(x), len(x)) for _ in range(200))]
                cause = u if m > 0 else v
                right += cause == truth
                agree = np.mean(np.sign(boot) == np.sign(m))
                picks.append(f"{cause}->{v if cause == u else u}{'' if cause == truth else '(x)'} [{agree:.2f}]")
            print(f"{transform:3s} {measure:5s} {right}/8 correct: {', '.join(picks)}")
    for transform in ("raw", "log"):
        f = np.log if transform == "log" else (lambda v: v)
        z = np.column_stack([f(cols[n]) for n in ("jnk", "p38", "pkc")])
        c = np.corrcoef(z.T)
        p = np.linalg.inv(c)
        partial = -p[0, 1] / np.sqrt(p[0, 0] * p[1, 1])
        print(f"{transform:3s} r(jnk,p38) {c[0, 1]:+.3f}, r(jnk,pkc) {c[0, 2]:+.3f}, r(p38,pkc) {c[1, 2]:+.3f}, "
              f"r(jnk,p38 | pkc) {partial:+.3f}; pkc -> jnk, pkc -> p38 alone would give r(jnk,p38) = "
              f"{c[0, 2] * c[1, 2]:+.3f}")


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
    ap.add_argument("--skew", action="store_true", help="also the skewness-based pairwise measures and the collider's correlations")
    a = ap.parse_args()
    if a.jci:
        for alpha in (0.05, 0.01, 0.001):
            jci(a.data, alpha)
    d = np.genfromtxt(a.data, delimiter="\t", names=True)[: a.rows]
    cols = {n: np.asarray(d[n], float) for n in d.dtype.names}
    if a.skew:
        skew_probe(cols)
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
