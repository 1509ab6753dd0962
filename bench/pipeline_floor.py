#!/usr/bin/env python3
"""The arithmetic floor of a default `strata-cli score --model` run: every product the run's
definitions need (the forward passes, then for each hidden state Σ, the bootstrap's and the
jackknife's Σ, m_mono's solves and Cholesky factors, m_curv's neighbour search and Grams, the
TwoNN and CKA plugins' Grams), each at the rate this machine's libraries reach on that kind of
product, measured in the same run. Nothing memory-bound is counted (normalisation, Lanczos,
selection, the store), so a run can only be slower than the floor: measured / floor says how
far from the arithmetic limit it runs, and python / floor bounds the ratio to the Python
pipeline that any implementation of these definitions at this precision could reach here
(issue 44, "≥ 3× the Python pipeline at the defaults").

usage: pipeline_floor.py MODEL.gguf --geometry-bench build/bench/strata-geometry-bench
           [--tokens 4096] [--seq-len 128] [--threads 2] [--measured S] [--python S] [--json]

Counts (n rows = tokens·(T−1)/T: position 0 of each sequence is skipped; d the width; M = 1,024
anchors and directions; k = 32; B = 20 resamples; G = 10 jackknife blocks), FLOPs per state:
  Σ of the point              n·d²                   ssyrk (one triangle, 2 per multiply-add)
  Σ of the resamples          B·(1 − 1/e)·n·d²       ssyrk over the rows of positive weight
  the layer Gram + blocks     2·n·d²                 ssyrk (the jackknife's Σ are downdated)
  m_mono's solves             (1 + B + G)·d²·M       sgemm panels
  Cholesky of Σ + εI          (1 + B + G)·d³/3       double (dsyrk/dtrsm)
  m_curv's neighbour search   2·M·n·d                sgemm
  m_curv's neighbour Grams    M·k²·d                 at sgemm's rate
  TwoNN's Gram                n²·d                   sgemm (one triangle)
  CKA's joint Gram            n·(2d)²                ssyrk (every state but the first)
Forward: 2·(weights of the blocks' matrices)·tokens + the causal attention's 2·2·tokens·(T/2)·
(heads·head_dim) a layer, at torch.nn.functional.linear's float32 rate at the MLP's shape.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import time


def gguf_shapes(path):
    """Block count, width, heads × head_dim, and the blocks' matrix weights, from the file."""
    from gguf import GGUFReader  # the reference reader (pip: gguf)

    reader = GGUFReader(path)
    fields = {f.name: f for f in reader.fields.values()}

    def value(name):
        f = fields[name]
        return f.parts[f.data[0]].tolist()[0]

    arch = bytes(fields["general.architecture"].parts[-1]).decode()
    blocks = int(value(f"{arch}.block_count"))
    width = int(value(f"{arch}.embedding_length"))
    heads = int(value(f"{arch}.attention.head_count"))
    key = f"{arch}.attention.key_length"
    head_dim = int(value(key)) if key in fields else width // heads
    ffn = int(value(f"{arch}.feed_forward_length"))
    matrices = sum(int(t.n_elements) for t in reader.tensors
                   if t.name.startswith("blk.") and len(t.shape) == 2)
    return {"arch": arch, "blocks": blocks, "width": width, "ffn": ffn, "heads": heads,
            "head_dim": head_dim, "block_matrix_weights": matrices}


def forward_rate(width, ffn, threads):
    """torch F.linear's float32 GFLOP/s at (512 × width) · (width × ffn), best of ~1 s."""
    import torch

    torch.set_num_threads(threads)
    x, w = torch.randn(512, width), torch.randn(ffn, width)
    for _ in range(3):
        torch.nn.functional.linear(x, w)
    best, start = math.inf, time.perf_counter()
    while time.perf_counter() - start < 1.0:
        t = time.perf_counter()
        torch.nn.functional.linear(x, w)
        best = min(best, time.perf_counter() - t)
    return 2 * 512 * width * ffn / best / 1e9


def double_rate(d):
    """NumPy's float64 a·b GFLOP/s at d × d (two operands: a·aᵀ would run as a syrk), best of
    ~1 s, on the threads main() gave NumPy's BLAS before anything imported it."""
    import numpy as np

    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((d, d)), rng.standard_normal((d, d))
    a @ b
    best, start = math.inf, time.perf_counter()
    while time.perf_counter() - start < 1.0:
        t = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - t)
    return 2 * d ** 3 / best / 1e9


def blas_rates(bench, rows, d, tries=3):
    """The system BLAS's sgemm and ssyrk GFLOP/s from strata-geometry-bench (its GEMM floor),
    the best of `tries` runs: a floor takes the machine at its fastest."""
    sgemm = ssyrk = 0.0
    for _ in range(tries):
        out = subprocess.run([bench, "--random", str(rows), str(d), "--runs", "1", "--spectrum",
                              "1"], check=True, capture_output=True, text=True).stdout
        j = json.loads(out[out.index("{"):out.rindex("}") + 1])
        sgemm, ssyrk = max(sgemm, j["sgemm_gflops"]), max(ssyrk, j["ssyrk_gflops"])
    return sgemm, ssyrk


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model")
    p.add_argument("--geometry-bench", required=True)
    p.add_argument("--tokens", type=int, default=4096)
    p.add_argument("--seq-len", type=int, default=128)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--anchors", type=int, default=1024)
    p.add_argument("--neighbours", type=int, default=32)
    p.add_argument("--bootstrap", type=int, default=20)
    p.add_argument("--jackknife-blocks", type=int, default=10)
    p.add_argument("--no-plugins", action="store_true")
    p.add_argument("--measured", type=float, help="a measured Strata run, seconds")
    p.add_argument("--python", type=float, help="the Python pipeline's time, seconds")
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    # NumPy's BLAS reads its thread count when NumPy is first imported (gguf imports it).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", str(a.threads))

    shape = gguf_shapes(a.model)
    d, states = shape["width"], shape["blocks"] + 1
    n = a.tokens * (a.seq_len - 1) // a.seq_len
    M, k, B, G = a.anchors, a.neighbours, a.bootstrap, a.jackknife_blocks
    evaluations = 1 + B + G
    sgemm, ssyrk = blas_rates(a.geometry_bench, 4096, d)
    dgemm = double_rate(d)
    forward = forward_rate(d, shape["ffn"], a.threads)

    attention = 2 * 2 * a.tokens * (a.seq_len / 2) * shape["heads"] * shape["head_dim"]
    parts = [  # (what, GFLOP over the run, GFLOP/s)
        ("forward passes", (2 * shape["block_matrix_weights"] * a.tokens
                            + shape["blocks"] * attention) / 1e9, forward),
        ("Σ of the point", states * n * d * d / 1e9, ssyrk),
        ("Σ of the resamples", states * B * (1 - math.exp(-1)) * n * d * d / 1e9, ssyrk),
        ("jackknife: layer Gram + blocks", states * (2 * n * d * d if G else 0) / 1e9, ssyrk),
        ("m_mono's solves", states * evaluations * d * d * M / 1e9, sgemm),
        ("Cholesky (double)", states * evaluations * d ** 3 / 3 / 1e9, dgemm),
        ("m_curv's neighbour search", states * 2 * M * n * d / 1e9, sgemm),
        ("m_curv's neighbour Grams", states * M * k * k * d / 1e9, sgemm),
    ]
    if not a.no_plugins:
        parts += [("TwoNN's Gram", states * n * n * d / 1e9, sgemm),
                  ("CKA's joint Gram", (states - 1) * n * (2 * d) ** 2 / 1e9, ssyrk)]
    rows = [{"what": w, "gflop": g, "gflops": r, "seconds": g / r} for w, g, r in parts]
    floor = sum(r["seconds"] for r in rows)
    report = {"model": os.path.basename(a.model), **shape, "rows": n, "states": states,
              "rates_gflops": {"forward_linear_fp32": forward, "sgemm": sgemm, "ssyrk": ssyrk,
                               "double": dgemm},
              "parts": rows, "floor_seconds": floor}
    if a.measured:
        report["measured_seconds"] = a.measured
        report["measured_over_floor"] = a.measured / floor
    if a.python:
        report["python_seconds"] = a.python
        report["python_over_floor"] = a.python / floor
        if a.measured:
            report["python_over_measured"] = a.python / a.measured
    if a.json:
        json.dump(report, sys.stdout, indent=1)
        print()
        return
    print(f"{report['model']}: {states} states of width {d}, {n} rows; rates (GFLOP/s): "
          f"forward {forward:.0f}, sgemm {sgemm:.0f}, ssyrk {ssyrk:.0f}, double {dgemm:.0f}")
    for r in rows:
        print(f"  {r['what']:<32} {r['gflop']:9.1f} GFLOP  {r['seconds']:6.2f} s")
    print(f"  {'floor':<32} {'':>15}  {floor:6.2f} s")
    for key in ("measured_over_floor", "python_over_floor", "python_over_measured"):
        if key in report:
            print(f"  {key.replace('_', ' ')}: {report[key]:.2f}x")


if __name__ == "__main__":
    main()
