#!/usr/bin/env python3
"""What computing the forward passes in bf16 changes in the layer geometry (docs/geometry.md,
"Compute precision").

For each model, `strata-cli score --model` captures the same WikiText-2 tokens twice, with
`--compute-dtype fp32` and `--compute-dtype bf16`, and scores every layer with the same proxy
options and bootstrap. For every layer and proxy (m_curv, m_mono, k_eff) and for S it reports the
relative change, whether the bf16 value lies inside float32's bootstrap interval, and l* with its
bootstrap frequency under both. Whether a proxy moves *systematically* is tested two ways, over
the layers: a sign test of the changes (bf16 above float32 at how many layers), and a binomial
test of how many bf16 values fall outside float32's 95 % interval against the 5 % chance gives.

Usage:
  bench/bf16_geometry.py STRATA_CLI OUT_DIR --model NAME=PATH [--model NAME=PATH ...]
      [--corpus FILE] [--tokens 8192] [--bootstrap 20] [--threads 2]

Writes OUT_DIR/<name>-<dtype>.json (score --json), the stores beside them, and
OUT_DIR/bf16_geometry.json (the comparison); prints a Markdown summary.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import time

PROXIES = ("m_curv", "m_mono", "k_eff", "score")


def binomial_tail(k, n, p):
    """P(X >= k) for X ~ Binomial(n, p)."""
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))


def sign_test(positive, n):
    """Two-sided sign test of `positive` of `n` nonzero changes."""
    if n == 0:
        return 1.0
    k = max(positive, n - positive)
    return min(1.0, 2 * binomial_tail(k, n, 0.5))


def run_score(cli, model, corpus, out_dir, name, dtype, args):
    store = os.path.join(out_dir, f"{name}-{dtype}.h5")
    result = os.path.join(out_dir, f"{name}-{dtype}.json")
    if os.path.exists(result):
        with open(result, encoding="utf-8") as f:
            return json.load(f)
    command = [cli, "score", "--model", model, "--corpus", corpus, "--split", "wikitext",
               "--tokens", str(args.tokens), "--bootstrap", str(args.bootstrap),
               "--compute-dtype", dtype, "--device", "cpu", "--no-plugins", "--out", store,
               "--json"]
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    start = time.monotonic()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    report = json.loads(done.stdout)
    report["seconds"] = time.monotonic() - start
    report["command"] = " ".join(command)
    with open(result, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    return report


def compare(fp32, bf16):
    rows = []
    for a, b in zip(fp32["layers"], bf16["layers"]):
        assert a["layer"] == b["layer"]
        row = {"layer": a["layer"]}
        for proxy in PROXIES:
            x, y = a.get(proxy), b.get(proxy)
            interval = a.get(f"{proxy}_interval")
            if x is None or y is None:
                continue
            row[proxy] = {
                "fp32": x,
                "bf16": y,
                "change": y - x,
                "relative": (y - x) / abs(x) if x else None,
                "inside": bool(interval and interval[0] <= y <= interval[1]),
            }
        row["l_star_frequency"] = {"fp32": a.get("l_star_frequency"),
                                   "bf16": b.get("l_star_frequency")}
        rows.append(row)
    summary = {}
    for proxy in PROXIES:
        cells = [r[proxy] for r in rows if proxy in r]
        nonzero = [c for c in cells if c["change"] != 0]
        outside = sum(not c["inside"] for c in cells)
        relatives = [abs(c["relative"]) for c in cells if c["relative"] is not None]
        summary[proxy] = {
            "layers": len(cells),
            "outside_interval": outside,
            # One-sided: more values outside float32's 95 % interval than chance gives.
            "outside_p": binomial_tail(outside, len(cells), 0.05) if cells else 1.0,
            "bf16_above": sum(c["change"] > 0 for c in nonzero),
            "sign_test_p": sign_test(sum(c["change"] > 0 for c in nonzero), len(nonzero)),
            "max_relative": max(relatives) if relatives else None,
            "median_relative": sorted(relatives)[len(relatives) // 2] if relatives else None,
        }
    return {"layers": rows, "summary": summary,
            "l_star": {"fp32": fp32["l_star"], "bf16": bf16["l_star"]},
            "seconds": {"fp32": fp32["seconds"], "bf16": bf16["seconds"]}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cli")
    parser.add_argument("out_dir")
    parser.add_argument("--model", action="append", required=True, help="NAME=PATH")
    parser.add_argument("--corpus", default=os.path.join(
        os.path.dirname(__file__), "..", "..", "shared", "data", "corpora", "wikitext2-valid.txt"))
    parser.add_argument("--tokens", type=int, default=8192)
    parser.add_argument("--bootstrap", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)

    results = {"tokens": args.tokens, "bootstrap": args.bootstrap, "corpus": args.corpus,
               "models": {}}
    for spec in args.model:
        name, path = spec.split("=", 1)
        fp32 = run_score(args.cli, path, args.corpus, args.out_dir, name, "fp32", args)
        bf16 = run_score(args.cli, path, args.corpus, args.out_dir, name, "bf16", args)
        results["models"][name] = compare(fp32, bf16)
    with open(os.path.join(args.out_dir, "bf16_geometry.json"), "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)

    for name, r in results["models"].items():
        print(f"\n### {name}: l* {r['l_star']['fp32']} (fp32) / {r['l_star']['bf16']} (bf16); "
              f"{r['seconds']['fp32']:.0f} s / {r['seconds']['bf16']:.0f} s\n")
        print("| | layers | outside fp32's 95 % interval | p (vs 5 %) | bf16 above | sign-test p "
              "| median / max relative change |")
        print("|---|---|---|---|---|---|---|")
        for proxy, s in r["summary"].items():
            print(f"| {proxy} | {s['layers']} | {s['outside_interval']} | {s['outside_p']:.3f} "
                  f"| {s['bf16_above']} | {s['sign_test_p']:.3f} "
                  f"| {s['median_relative']:.2%} / {s['max_relative']:.2%} |")
        frequency = [(row["layer"], row["l_star_frequency"]) for row in r["layers"]]
        top = [(layer, f) for layer, f in frequency if (f["fp32"] or 0) > 0 or (f["bf16"] or 0) > 0]
        print("\nl* frequency (fp32 / bf16): " +
              ", ".join(f"{layer}: {f['fp32']} / {f['bf16']}" for layer, f in top))


if __name__ == "__main__":
    main()
