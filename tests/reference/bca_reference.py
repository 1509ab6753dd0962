#!/usr/bin/env python3
"""Independent reference for geometry::bcaInterval (tests/core/geometry/geometry_bca_test.cpp).

usage: bca_reference.py FOLDER
FOLDER holds fixture.json: {"data": [x_1..x_n], "statistic": "mean" | "log_mean_square",
"replicates": [θ*_1..θ*_B], "confidence": c}. The replicates are the C++ test's own bootstrap
resamples of the statistic; scipy.stats' BCa step (_bca_interval, Efron & Tibshirani 1993
§14.3, eq. 14.15) is run on exactly those, with the acceleration from scipy's own
delete-one jackknife of `data`. Writes FOLDER/reference.json with low, high, a_hat and the
jackknife values.
"""
import inspect
import json
import pathlib
import sys

import numpy as np
from scipy.stats._resampling import _bca_interval

STATISTICS = {
    "mean": lambda x, axis=-1: np.mean(x, axis=axis),
    "log_mean_square": lambda x, axis=-1: np.log(np.mean(x * x, axis=axis)),
}


def main():
    folder = pathlib.Path(sys.argv[1])
    fixture = json.loads((folder / "fixture.json").read_text())
    data = np.asarray(fixture["data"], dtype=np.float64)
    statistic = STATISTICS[fixture["statistic"]]
    replicates = np.asarray(fixture["replicates"], dtype=np.float64)
    alpha = (1 - fixture["confidence"]) / 2
    extra = {}
    if "xp" in inspect.signature(_bca_interval).parameters:  # scipy ≥ 1.15: the array namespace
        from scipy._lib._array_api import array_namespace
        extra["xp"] = array_namespace(data)
    alpha_1, alpha_2, a_hat = _bca_interval((data,), statistic, axis=-1, alpha=alpha,
                                            theta_hat_b=replicates, batch=None, **extra)
    # scipy.stats.bootstrap then reads the percentiles of the replicates at α₁, α₂ (linear).
    low = np.percentile(replicates, float(alpha_1) * 100)
    high = np.percentile(replicates, float(alpha_2) * 100)
    jackknife = [float(statistic(np.delete(data, i))) for i in range(len(data))]
    (folder / "reference.json").write_text(json.dumps(
        {"low": float(low), "high": float(high), "a_hat": float(a_hat), "jackknife": jackknife}))


if __name__ == "__main__":
    main()
