#!/usr/bin/env python3
"""The training memory plan against the peak it plans for.

Runs short `strata-cli train` runs of every built-in recipe (a few steps, an evaluation and the
final checkpoint) and records, for each, the plan the run printed before it built its models
("training memory plan: … needs X of Y") and the process's peak resident set (GNU time's
%M). The plan is within its goal when the peak lies within ±20 % of it.

usage: bench/training_memory.py CLI MODEL_FOLDER CORPUS [--steps N] [--only NAME ...]
                                [--out results.json]

MODEL_FOLDER: a Hugging Face folder (SmolLM2-135M as `strata-cli import-gguf` writes it) for
repr_align's student and teacher, the bridge's source and pretrain's tokenizer. CORPUS: a text
file in WikiText's layout (`--set split=wikitext`).
"""
import argparse, json, os, re, subprocess, tempfile

UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}


def runs(model, corpus):
    """(name, recipe, settings): shapes that put the weights, the activations, the attention
    scores and a frozen model each in front."""
    data = [f"corpus={corpus}", "split=wikitext", "eval_windows=2"]
    small_lm = ["dim=1024", "layers=8", "heads=16", "mlp=2816", "batch=8", "seq_len=256"]
    dlm = ["dim=512", "layers=6", "heads=8", "mlp=2048", "batch=16", "seq_len=256"]
    return [
        ("repr_align 16x128", "repr_align", data + [f"model={model}"]),
        ("repr_align 4x128", "repr_align", data + [f"model={model}", "batch=4"]),
        ("pretrain 1024x8", "pretrain", data + [f"tokenizer={model}"] + small_lm),
        ("dcdm 512x6", "dcdm", data + dlm),
        ("mdlm 512x6", "dcdm", data + dlm + ["variant=mdlm"]),
        ("bridge 512x4", "bridge", data + [f"model={model}", "layer=12", "width=512", "depth=4",
                                           "batch=16", "seq_len=128", "stats_windows=8"]),
    ]


def bytes_of(text):
    value, unit = text.split()
    return float(value) * UNITS[unit]


def measure(cli, recipe, settings, steps, folder):
    # GNU time's %M: the peak resident set of this run alone (ru_maxrss of RUSAGE_CHILDREN
    # would be the largest of every run so far).
    args = ["/usr/bin/time", "-f", "peak_kib=%M", cli, "train", recipe, "--run-dir", folder,
            "--set", f"steps={steps}", "--set", "log_every=1", "--set", "warmup=1"]
    for s in settings:
        args += ["--set", s]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{recipe} failed: {out.stderr[-2000:]}")
    text = out.stdout + out.stderr
    peak = int(re.findall(r"peak_kib=(\d+)", text)[-1]) * 1024
    plan = re.search(r"training memory plan: (.*) — needs (.+?) of (.+?) available", text)
    if not plan:
        raise SystemExit(f"{recipe}: no plan line in its output")
    return {"plan": plan.group(1), "planned_bytes": bytes_of(plan.group(2)), "peak_bytes": peak}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cli")
    parser.add_argument("model")
    parser.add_argument("corpus")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--out")
    a = parser.parse_args()
    results = []
    for name, recipe, settings in runs(a.model, a.corpus):
        if a.only and name not in a.only:
            continue
        with tempfile.TemporaryDirectory() as folder:
            r = measure(a.cli, recipe, settings, a.steps, os.path.join(folder, "run"))
        r["name"] = name
        r["peak_over_plan"] = r["peak_bytes"] / r["planned_bytes"]
        results.append(r)
        print(f"{name:18} plan {r['planned_bytes'] / 2**30:6.2f} GiB  peak "
              f"{r['peak_bytes'] / 2**30:6.2f} GiB  peak/plan {r['peak_over_plan']:.2f}", flush=True)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
