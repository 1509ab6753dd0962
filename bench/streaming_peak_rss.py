#!/usr/bin/python3
"""Layer streaming: capture a checkpoint much larger than the memory the run is allowed to use.

Writes a random Llama checkpoint (default 12 layers × 2048, MLP 5632, vocabulary 32000, F32:
~2.7 GB), then runs `strata-cli capture --stream-layers` and, for comparison, the resident
mode, each under /usr/bin/time -v, and records the peak resident set size (VmHWM) of each.
With streaming, only one block's weights are resident at a time, so the peak must stay far
below the checkpoint size.

usage: bench/streaming_peak_rss.py BUILD_DIR [--tokens N] [--out results.json] [--skip-resident]
"""
import argparse, json, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import capture_throughput as bench  # noqa: E402


def peak_rss_kib(command):
    run = subprocess.run(["/usr/bin/time", "-v"] + command, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("failed: " + " ".join(command) + "\n" + run.stdout + run.stderr)
    return int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", run.stderr).group(1)), run.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("--tokens", type=int, default=254)
    ap.add_argument("--out", default=None)
    ap.add_argument("--skip-resident", action="store_true")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="strata-stream-")
    model = os.path.join(work, "model")
    bench.write_checkpoint(model, hidden=2048, layers=12, heads=16, kv=8, mlp=5632, vocab=32000)
    weights_bytes = os.path.getsize(os.path.join(model, "model.safetensors"))
    corpus = os.path.join(work, "corpus.txt")
    with open(corpus, "w") as f:
        for p in range(200):
            f.write("the layer geometry of hidden states is curved and flat in places\n\n")
    cli = os.path.join(args.build_dir, "app", "cli", "strata-cli")
    base = [cli, "capture", "--model", model, "--corpus", corpus, "--tokens", str(args.tokens),
            "--seq-len", "128", "--batch", "2", "--split", "lines"]
    result = {"checkpoint_bytes": weights_bytes, "tokens": args.tokens}
    peak, _ = peak_rss_kib(base + ["--stream-layers", "--out", os.path.join(work, "streamed.h5")])
    result["streamed_peak_rss_bytes"] = peak * 1024
    result["checkpoint_over_streamed_peak"] = weights_bytes / (peak * 1024)
    if not args.skip_resident:
        peak, _ = peak_rss_kib(base + ["--out", os.path.join(work, "resident.h5")])
        result["resident_peak_rss_bytes"] = peak * 1024
    print(json.dumps(result, indent=2))
    if args.out:
        json.dump(result, open(args.out, "w"), indent=2)
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
