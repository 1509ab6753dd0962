"""Layer-permutation tests of a DiHAL study record, written apart from Strata's C++.

Usage: layer_permutation_reference.py STUDY_JSON PREFIX... > lines "key value"

For each bridge series (arms "<tag>-l<layer>", tags given as PREFIX) and each normalisation
table layers_<n> of the record: the seed-mean best val loss per bridged layer, Spearman's rho of
S against -loss (scipy), the partial Spearman rho given depth (the residual form: Pearson
correlation of the ranks of S and of -loss, each regressed on the ranks of depth, which equals the
three-correlation formula), and one- and two-sided permutation p from numpy's own generator.
"""
import json
import sys

import numpy as np
from scipy import stats

PERMUTATIONS = 100_000


def rows_corr(a, b):
    """Pearson correlation of a (n,) with every row of b (m, n)."""
    a = a - a.mean()
    b = b - b.mean(axis=1, keepdims=True)
    return (b @ a) / np.sqrt((a @ a) * np.sum(b * b, axis=1))


def residuals(v, rz):
    """v (rows) minus its least-squares fit on [1, rz]."""
    design = np.column_stack([np.ones_like(rz), rz])
    fit = np.linalg.lstsq(design, np.atleast_2d(v).T, rcond=None)[0]
    return (np.atleast_2d(v).T - design @ fit).T


def main():
    record = json.load(open(sys.argv[1]))
    rng = np.random.default_rng(12345)
    for tag in sys.argv[2:]:
        losses = {}
        for run in record["runs"]:
            arm = run["arm"]
            if not arm.startswith(tag + "-l") or not arm[len(tag) + 2:].isdigit():
                continue
            value = run["metrics"].get("val_loss_best")
            if value is not None:
                losses.setdefault(int(arm[len(tag) + 2:]), []).append(value)
        for name, table in record["tables"].items():
            n = name[len("layers_"):]
            layer_col, s_col = table["columns"].index("layer"), table["columns"].index("S")
            score = {int(row[layer_col]): row[s_col] for row in table["rows"] if row[s_col] is not None}
            layers = sorted(l for l in losses if l in score)
            x = np.array([score[l] for l in layers])
            y = np.array([-np.mean(losses[l]) for l in layers])
            z = np.array(layers, dtype=float)
            rho = float(stats.spearmanr(x, y).statistic)
            rx, ry, rz = (stats.rankdata(v) for v in (x, y, z))
            # The ranks of a reordered y are the reordered ranks of y.
            perm = np.array([ry[rng.permutation(len(ry))] for _ in range(PERMUTATIONS)])
            rx_resid = residuals(rx, rz)[0]
            partial = float(rows_corr(rx_resid, residuals(ry, rz))[0])
            rhos = rows_corr(rx, perm)
            partials = rows_corr(rx_resid, residuals(perm, rz))
            count = lambda hits: float((np.sum(hits) + 1) / (len(hits) + 1))
            eps = 1e-12
            print(f"perm_rho_{tag}_{n} {rho!r}")
            print(f"perm_partial_rho_{tag}_{n} {partial!r}")
            print(f"perm_p_rho_{tag}_{n} {count(rhos >= rho - eps)!r}")
            print(f"perm_p2_rho_{tag}_{n} {count(np.abs(rhos) >= abs(rho) - eps)!r}")
            print(f"perm_p_partial_rho_{tag}_{n} {count(partials >= partial - eps)!r}")
            print(f"perm_p2_partial_rho_{tag}_{n} {count(np.abs(partials) >= abs(partial) - eps)!r}")


if __name__ == "__main__":
    main()
