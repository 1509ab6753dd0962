#!/usr/bin/env python3
"""Geometry proxies: Strata's CPU backend against the GEMM floor and against NumPy/SciPy.

Generates float32 hidden states with a decaying spectrum (N×d, default 16384×1024, random
rotation, non-zero mean), runs `strata-geometry-bench` on them (computeProxies, no bootstrap,
M = 1024 anchors and directions, k = 32, 64 eigenvalues; median of --runs) and the vectorised
float32 NumPy/SciPy/scikit-learn implementation `fast()` of tests/reference/geometry_reference.py
on the same data, the same anchors and pairs and the same thread count (NumPy calls the
OpenBLAS bundled with its wheel, Strata Debian's OpenBLAS).

Prints (and with --out writes) JSON with the two ratios the issue asks for:
  over_floor   = Strata seconds / (FLOPs of the required products / sgemm rate of this run)
  numpy_over_strata = NumPy seconds / Strata seconds

usage: ~/.local/share/strata/venv/bin/python bench/geometry_throughput.py BUILD_DIR [--rows N] [--dims d] [--threads T] [--runs R]
                                    [--out results.json]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "..", "tests", "reference")


def hidden_states(rows, dims, seed=1):
    """Gaussian rows with eigenvalues ∝ i^-0.8 in a random basis, offset by a random mean."""
    rng = np.random.default_rng(seed)
    scales = (1.0 / np.arange(1, dims + 1) ** 0.8).astype(np.float32) ** 0.5
    basis, _ = np.linalg.qr(rng.standard_normal((dims, dims), dtype=np.float32))
    X = (rng.standard_normal((rows, dims), dtype=np.float32) * scales) @ basis.T
    X += (3 * rng.standard_normal(dims)).astype(np.float32)
    return np.ascontiguousarray(X, dtype=np.float32)


NUMPY_TIMER = r"""
import json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
import geometry_reference as ref
H = np.load(sys.argv[2])
drawn = json.load(open(sys.argv[3]))
anchors, pairs = np.array(drawn["anchors"]), np.array(drawn["pairs"])
times, result = [], None
for _ in range(int(sys.argv[4])):
    start = time.perf_counter()
    result = ref.fast(H, anchors, pairs, 32, 1e-3, 64)
    times.append(time.perf_counter() - start)
result["seconds_all"] = times
result["seconds"] = float(np.median(times))
print(json.dumps(result))
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("--rows", type=int, default=16384)
    ap.add_argument("--dims", type=int, default=1024)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out")
    args = ap.parse_args()

    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), OPENBLAS_NUM_THREADS=str(args.threads))
    exe = os.path.join(args.build_dir, "bench", "strata-geometry-bench")
    with tempfile.TemporaryDirectory(prefix="strata-geometry-") as work:
        data = os.path.join(work, "H.npy")
        np.save(data, hidden_states(args.rows, args.dims))
        drawn = os.path.join(work, "sampling.json")
        run = subprocess.run([exe, data, "--runs", str(args.runs), "--phases", "--sampling-out", drawn],
                             env=env, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"{exe} failed:\n{run.stderr}")
        strata = json.loads(run.stdout)
        run = subprocess.run([sys.executable, "-c", NUMPY_TIMER, REFERENCE, data, drawn, str(args.runs)],
                             env=env, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"the NumPy reference failed:\n{run.stderr}")
        numpy_side = json.loads(run.stdout)

    result = {
        "rows": args.rows, "dims": args.dims, "threads": args.threads, "runs": args.runs,
        "strata": strata,
        "numpy": {k: numpy_side[k] for k in ("seconds", "seconds_all", "curvature", "monotonicity",
                                              "effective_rank")},
        "over_floor": strata["over_floor"],
        "numpy_over_strata": numpy_side["seconds"] / strata["seconds"],
        "agreement": {k: abs(strata[k] - numpy_side[k]) / abs(numpy_side[k])
                      for k in ("curvature", "monotonicity", "effective_rank")},
    }
    print(json.dumps(result, indent=2))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
