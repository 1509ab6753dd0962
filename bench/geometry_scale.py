#!/usr/bin/env python3
"""Geometry proxies at scale: peak memory of computeProxies on N = 65,536 × d = 4,096.

Writes float32 hidden states (1 GiB: a rank-256 signal plus isotropic noise, non-zero mean),
runs `strata-geometry-bench` once (computeProxies without bootstrap, then the bench's own
sgemm/ssyrk rate check) under /usr/bin/time -v, and compares the peak resident set size with
the O(N·d + d²) bound the backend is designed to (docs/geometry.md, "Cost, memory and threads"):

  bound = 4·N·d                      the input matrix (held by the bench, as a caller would)
        + 4·N·d                      the backend's normalised float32 copy
        + 4·d² + 8·d²                Σ in float32 (ssyrk) and in double (then its Cholesky factor)
        + 4·M·d + 4·M·4096           the normalised anchors, one block of anchor·candidate products
        + 8·d·M                      the directions for the triangular solve
        + 8·d·ncv                    the Lanczos basis (ncv = 129)
        + 4·M·d + 4·M·4096 + 4·d²    the bench's own sgemm/ssyrk check (the backend's buffers
                                     are still held then: they are reused across calls)
        + 256 MiB                    code, libraries, OpenBLAS's per-thread buffers, slack

usage: bench/geometry_scale.py BUILD_DIR [--rows N] [--dims d] [--threads T] [--out results.json]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np


def write_states(path, rows, dims, rank=256, seed=2, chunk=8192):
    rng = np.random.default_rng(seed)
    mixing = (rng.standard_normal((rank, dims), dtype=np.float32) / np.sqrt(rank)).astype(np.float32)
    mean = (2 * rng.standard_normal(dims)).astype(np.float32)
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(rows, dims))
    for begin in range(0, rows, chunk):
        n = min(chunk, rows - begin)
        block = rng.standard_normal((n, rank), dtype=np.float32) @ mixing
        block += 0.3 * rng.standard_normal((n, dims), dtype=np.float32)
        out[begin:begin + n] = block + mean
    out.flush()
    del out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("--rows", type=int, default=65536)
    ap.add_argument("--dims", type=int, default=4096)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out")
    args = ap.parse_args()
    n, d, m = args.rows, args.dims, 1024
    exe = os.path.join(args.build_dir, "bench", "strata-geometry-bench")
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), OPENBLAS_NUM_THREADS=str(args.threads))
    with tempfile.TemporaryDirectory(prefix="strata-geometry-scale-") as work:
        data = os.path.join(work, "H.npy")
        write_states(data, n, d)
        run = subprocess.run(["/usr/bin/time", "-v", exe, data, "--runs", "1"], env=env,
                             capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"{exe} failed:\n{run.stderr}")
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", run.stderr).group(1)) * 1024
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", run.stderr).group(1)
    bench = json.loads(run.stdout)
    terms = {
        "input": 4 * n * d,
        "normalised_copy": 4 * n * d,
        "sigma": 12 * d * d,
        "anchors_and_products": 4 * m * d + 4 * m * 4096,
        "directions": 8 * d * m,
        "lanczos": 8 * d * (2 * 64 + 1),
        "bench_check": 4 * m * d + 4 * m * 4096 + 4 * d * d,
        "slack": 256 << 20,
    }
    bound = sum(terms.values())
    result = {
        "rows": n, "dims": d, "threads": args.threads,
        "peak_rss_bytes": peak,
        "bound_bytes": bound,
        "bound_terms": terms,
        "peak_over_input": peak / terms["input"],
        "peak_minus_input_bytes": peak - terms["input"],
        "peak_over_bound": peak / bound,
        "wall_clock": wall,
        "bench": bench,
    }
    print(json.dumps(result, indent=2))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
