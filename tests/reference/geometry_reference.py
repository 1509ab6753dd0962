#!/usr/bin/env python3
"""Independent reference for Strata's geometry proxies (docs/geometry.md), in plain NumPy/SciPy.

Written from the definitions, the straightforward way, sharing no code with the C++ backend:

* ``exact`` (what the tests use): float64 throughout; Σ by ``np.cov`` (with ``fweights``), the
  spectrum by ``scipy.linalg.eigh``, k nearest neighbours by brute-force distances with a stable
  sort, each C_i as the full d×d ``np.cov`` of the neighbours with ``np.linalg.eigvalsh``, m_mono
  by ``np.linalg.solve``.
* ``fast`` (what bench/geometry_throughput.py times): a vectorised float32 version of the same
  definitions as one would write it for speed: ``Xᵀ X`` by NumPy's BLAS, scikit-learn's brute
  ``NearestNeighbors``, the k×k Gram matrices batched, ``scipy.linalg.eigh`` on a subset of
  eigenvalues, a Cholesky solve for m_mono.

usage:
  geometry_reference.py FIXTURE_DIR        reads FIXTURE_DIR/{H.npy,fixture.json[,weights.npy]}
                                           and writes FIXTURE_DIR/reference.json
fixture.json: {"anchors": [...], "pairs": [[a, b], ...], "neighbours": k, "ridge_factor": r,
               "spectrum_size": s, "tie_gap": g}
Anchors whose k-th and (k+1)-th neighbour distances differ by less than the relative gap g are
left out (float32 and float64 may order such a pair differently); reference.json lists the
anchors used ("anchors") next to the proxies.
"""
import json
import os
import sys

import numpy as np
import scipy.linalg

LAMBDA_FLOOR = 1e-12


def normalise(H, weights):
    """Rows centred on the weighted mean and scaled so that tr(Σ) = d; returns (X, Σ)."""
    d = H.shape[1]
    fw = None if weights is None else weights.astype(np.int64)
    cov_raw = np.cov(H, rowvar=False, fweights=fw)  # ddof = 1 on the multiplicities
    mean = np.average(H, axis=0, weights=weights)
    scale = np.sqrt(d / np.trace(cov_raw))
    return (H - mean) * scale, cov_raw * scale * scale


def exact(H, anchors, pairs, k, ridge, spectrum_size, weights=None, tie_gap=0.0):
    H = H.astype(np.float64)
    n, d = H.shape
    X, sigma = normalise(H, weights)
    eigenvalues = scipy.linalg.eigh(sigma, eigvals_only=True)[::-1]
    lam_max = eigenvalues[0]
    trace = np.trace(sigma)
    eps = ridge * trace / d

    # m_mono, Rayleigh form, and min-eig
    U = np.array([X[a] - X[b] for a, b in pairs])
    U = U[np.einsum("ij,ij->i", U, U) > 0]
    solved = np.linalg.solve(sigma + eps * np.eye(d), U.T).T
    rayleigh = np.einsum("ij,ij->i", U, solved) / np.einsum("ij,ij->i", U, U)

    # m_curv: brute force neighbours among rows of positive weight, the anchor excluded,
    # ties to the lower row index (stable sort over ascending candidate indices).
    candidates = np.arange(n) if weights is None else np.flatnonzero(weights > 0)
    local, gaps, used = [], [], []
    for a in anchors:
        dist = np.sum((X[candidates] - X[a]) ** 2, axis=1)
        dist[candidates == a] = np.inf
        order = np.argsort(dist, kind="stable")
        neighbours = candidates[order[:k]]
        kth, next_ = dist[order[k - 1]], dist[order[k]]
        gap = (next_ - kth) / max(next_, 1e-300) if np.isfinite(next_) else np.inf
        if gap < tie_gap:
            continue
        gaps.append(gap)
        used.append(int(a))
        C = np.cov(X[neighbours], rowvar=False)  # d×d, ddof = 1
        local.append(max(np.linalg.eigvalsh(np.atleast_2d(C))[-1], LAMBDA_FLOOR))
    local = np.array(local)
    return {
        "curvature": float(np.median(1.0 / local)),
        "monotonicity": float(np.mean(rayleigh)),
        "monotonicity_min_eig": float(1.0 / (lam_max + eps)),
        "effective_rank": float(trace / lam_max),
        "spectrum": eigenvalues[: min(spectrum_size, d)].tolist(),
        "local_lambda_max": local.tolist(),
        "trace": float(trace),
        "anchors": used,
        # how far each anchor's k-th neighbour is from the (k+1)-th, relative: a fixture
        # with a near-tie here would make float32 and float64 pick different neighbours
        "min_neighbour_gap": float(np.min(gaps)),
    }


def fast(H, anchors, pairs, k, ridge, spectrum_size):
    """Vectorised float32 version of the same definitions (unit weights)."""
    from sklearn.neighbors import NearestNeighbors

    n, d = H.shape
    mean = H.mean(axis=0, dtype=np.float64).astype(np.float32)
    Xc = H - mean
    sigma_raw = (Xc.T @ Xc) / np.float32(n - 1)
    scale = np.float32(np.sqrt(d / np.trace(sigma_raw, dtype=np.float64)))
    X = Xc * scale
    sigma = sigma_raw.astype(np.float64) * float(scale) ** 2
    nev = min(spectrum_size, d)
    eigenvalues = scipy.linalg.eigh(sigma, eigvals_only=True, subset_by_index=[d - nev, d - 1])[::-1]
    trace = np.trace(sigma)
    lam_max = eigenvalues[0]
    eps = ridge * trace / d

    pairs = np.asarray(pairs)
    U = (X[pairs[:, 0]] - X[pairs[:, 1]]).astype(np.float64)
    norms = np.einsum("ij,ij->i", U, U)
    U, norms = U[norms > 0], norms[norms > 0]
    factor = scipy.linalg.cho_factor(sigma + eps * np.eye(d), lower=True)
    solved = scipy.linalg.cho_solve(factor, U.T).T
    rayleigh = np.einsum("ij,ij->i", U, solved) / norms

    index = NearestNeighbors(n_neighbors=k + 1, algorithm="brute").fit(X)
    _, found = index.kneighbors(X[anchors])
    neighbours = np.array([[j for j in row if j != a][:k] for row, a in zip(found, anchors)])
    Y = X[neighbours]  # M×k×d
    Y = Y - Y.mean(axis=1, keepdims=True)
    gram = np.matmul(Y, Y.transpose(0, 2, 1)).astype(np.float64) / (k - 1)
    local = np.maximum(np.linalg.eigvalsh(gram)[:, -1], LAMBDA_FLOOR)
    return {
        "curvature": float(np.median(1.0 / local)),
        "monotonicity": float(np.mean(rayleigh)),
        "effective_rank": float(trace / lam_max),
        "spectrum": eigenvalues.tolist(),
    }


def main():
    folder = sys.argv[1]
    fixture = json.load(open(os.path.join(folder, "fixture.json")))
    H = np.load(os.path.join(folder, "H.npy"))
    weights_path = os.path.join(folder, "weights.npy")
    weights = np.load(weights_path).astype(np.float64) if os.path.exists(weights_path) else None
    result = exact(H, fixture["anchors"], [tuple(p) for p in fixture["pairs"]],
                   fixture["neighbours"], fixture["ridge_factor"], fixture["spectrum_size"], weights,
                   fixture.get("tie_gap", 0.0))
    with open(os.path.join(folder, "reference.json"), "w") as out:
        json.dump(result, out)


if __name__ == "__main__":
    main()
