#!/usr/bin/env python3
"""Independent references for the twonn and cka plugins (tests/core/plugin/*_plugin_test.cpp).

usage: plugin_metrics_reference.py FOLDER
FOLDER holds fixture.json ({"n", "d", "dy", "discard"}) and X.f32 (n×d float32, row-major),
optionally Y.f32 (n×dy). Writes FOLDER/reference.json with
  twonn_fit, twonn_mle   TwoNN (Facco et al. 2017) of X, neighbours from scikit-learn
  cka                    linear CKA of X and Y from the sample-space HSIC form
                         tr(K H L H) / sqrt(tr(K H K H) tr(L H L H)), K = X Xᵀ, L = Y Yᵀ.
"""
import json
import pathlib
import sys

import numpy as np
from sklearn.neighbors import NearestNeighbors


def twonn(x, discard):
    # Coincident points merged first (one copy of each distinct row), as DADApy does.
    x = np.unique(x, axis=0).astype(np.float64)
    nn = NearestNeighbors(n_neighbors=3, algorithm="brute").fit(x)
    dist, _ = nn.kneighbors(x)  # column 0 is the point itself (distance 0)
    r1, r2 = dist[:, 1], dist[:, 2]
    keep = r1 > 0
    mu = r2[keep] / r1[keep]
    n = len(mu)
    mle = n / np.sum(np.log(mu))
    mu = np.sort(mu)
    kept = min(int(np.floor(n * (1 - discard))), n - 1)
    xs = np.log(mu[:kept])
    ys = -np.log(1 - np.arange(1, kept + 1) / n)
    fit = float(np.dot(xs, ys) / np.dot(xs, xs))
    return fit, float(mle)


def cka(x, y):
    x = x.astype(np.float64)
    y = y.astype(np.float64)
    n = x.shape[0]
    h = np.eye(n) - np.ones((n, n)) / n
    k = h @ (x @ x.T) @ h
    l = h @ (y @ y.T) @ h
    return float(np.sum(k * l) / np.sqrt(np.sum(k * k) * np.sum(l * l)))


def main():
    folder = pathlib.Path(sys.argv[1])
    fixture = json.loads((folder / "fixture.json").read_text())
    n, d = fixture["n"], fixture["d"]
    x = np.fromfile(folder / "X.f32", dtype=np.float32).reshape(n, d)
    out = {}
    out["twonn_fit"], out["twonn_mle"] = twonn(x, fixture.get("discard", 0.1))
    if (folder / "Y.f32").exists():
        y = np.fromfile(folder / "Y.f32", dtype=np.float32).reshape(n, fixture["dy"])
        out["cka"] = cka(x, y)
    (folder / "reference.json").write_text(json.dumps(out))


if __name__ == "__main__":
    main()
