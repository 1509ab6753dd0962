#!/usr/bin/env python3
"""Training-step throughput: `strata-cli train` against an equivalent PyTorch eager loop, in one run.

For the recipes bridge, dcdm (variant mdlm) and repr_align, Strata trains N steps and its
metrics.jsonl gives tokens/s per logging interval (the median after the first interval, which
holds the warm-up, is taken). The reference is a plain PyTorch eager loop written here with the
same shapes and the same work per step: the same modules (Llama blocks with GQA and RoPE;
the dcdm transformer's RMSNorm/GELU blocks; the bridge denoiser's adaLN blocks), the same batch
and sequence length, the same loss terms, AdamW with gradient clipping, bf16 autocast on the GPU
(fp32 on the CPU), timed over the steps after three warm-up steps. It is an equivalent in cost,
not a re-implementation of every detail (the data pipeline and schedules are simpler), so the
ratio measures Strata's overhead against what PyTorch does with the same kernels. GPU memory
peaks of both sides come from bench/gpu_memory.py (nvidia-smi, same method for both).

usage: python bench/training_step.py BUILD_DIR [--recipe bridge|dcdm|repr_align ...]
       [--device cpu|cuda] [--size tiny|small|gpu] [--steps N] [--out results.json]
"""
import argparse, json, math, os, shutil, statistics, subprocess, sys, tempfile, time

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_memory import GpuMemoryPeak  # noqa: E402
import capture_throughput  # noqa: E402  (its random Llama checkpoint writer)

SIZES = {
    # source: the frozen model of bridge / repr_align (a random Llama in HF layout)
    "tiny": dict(source=dict(hidden=64, layers=2, heads=4, kv=2, mlp=128, vocab=64), layer=1,
                 seq=32, batch=4, steps=6, log=2,
                 dcdm=dict(dim=64, layers=2, heads=4, mlp=128), bridge=dict(width=64, depth=1, heads=4, mlp_ratio=2)),
    # the CPU at a size where the model's work, not Python's per-operation cost, is most of a step
    "small": dict(source=dict(hidden=256, layers=4, heads=4, kv=2, mlp=704, vocab=512), layer=3,
                  seq=64, batch=8, steps=12, log=3,
                  dcdm=dict(dim=256, layers=4, heads=4, mlp=1024), bridge=dict(width=256, depth=2, heads=4, mlp_ratio=4)),
    "gpu": dict(source=dict(hidden=1024, layers=8, heads=16, kv=8, mlp=2816, vocab=4096), layer=6,
                seq=256, batch=32, steps=40, log=5,
                dcdm=dict(dim=1024, layers=8, heads=16, mlp=4096), bridge=dict(width=1024, depth=4, heads=16, mlp_ratio=4)),
}


# --- The reference modules -------------------------------------------------------------------

class RmsNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.weight, self.eps = nn.Parameter(torch.ones(dim)), eps

    def forward(self, x):
        return self.weight * (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + self.eps)).to(x.dtype)


def rope(x, theta=10000.0):
    T, hd = x.shape[-2], x.shape[-1]
    inv = 1.0 / (theta ** (torch.arange(0, hd, 2, device=x.device).float() / hd))
    f = torch.outer(torch.arange(T, device=x.device).float(), inv)
    cos, sin = torch.cat((f, f), -1).cos().to(x.dtype), torch.cat((f, f), -1).sin().to(x.dtype)
    a, b = x.chunk(2, dim=-1)
    return x * cos + torch.cat((-b, a), -1) * sin


class LlamaBlock(nn.Module):
    def __init__(self, d, heads, kv, mlp):
        super().__init__()
        hd = d // heads
        self.heads, self.kv, self.hd = heads, kv, hd
        self.input_layernorm, self.post_attention_layernorm = RmsNorm(d), RmsNorm(d)
        self.q_proj, self.k_proj = nn.Linear(d, heads * hd, bias=False), nn.Linear(d, kv * hd, bias=False)
        self.v_proj, self.o_proj = nn.Linear(d, kv * hd, bias=False), nn.Linear(heads * hd, d, bias=False)
        self.gate_proj, self.up_proj = nn.Linear(d, mlp, bias=False), nn.Linear(d, mlp, bias=False)
        self.down_proj = nn.Linear(mlp, d, bias=False)

    def forward(self, h, causal):
        B, T, d = h.shape
        x = self.input_layernorm(h)
        q = rope(self.q_proj(x).view(B, T, self.heads, self.hd).transpose(1, 2))
        k = rope(self.k_proj(x).view(B, T, self.kv, self.hd).transpose(1, 2))
        v = self.v_proj(x).view(B, T, self.kv, self.hd).transpose(1, 2)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
        h = h + self.o_proj(a.transpose(1, 2).reshape(B, T, d))
        x = self.post_attention_layernorm(h)
        return h + self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Llama(nn.Module):
    """The random source checkpoint's Llama (tied head), h_0 … h_L returned."""
    def __init__(self, s, extra_tokens=0):
        super().__init__()
        self.embed_tokens = nn.Embedding(s["vocab"] + extra_tokens, s["hidden"])
        self.layers = nn.ModuleList(LlamaBlock(s["hidden"], s["heads"], s["kv"], s["mlp"]) for _ in range(s["layers"]))
        self.norm = RmsNorm(s["hidden"])

    def forward(self, ids, causal=True, upto=None):
        h = self.embed_tokens(ids)
        hidden = [h]
        for layer in self.layers[:upto]:
            h = layer(h, causal)
            hidden.append(h)
        return hidden

    def logits(self, h):
        return self.norm(h) @ self.embed_tokens.weight.T


def load_source(folder, s, device, extra_tokens=0):
    from safetensors.torch import load_file
    model = Llama(s, extra_tokens)
    weights = {k.removeprefix("model."): v.float() for k, v in load_file(os.path.join(folder, "model.safetensors")).items()}
    for key in list(weights):
        for name in ("self_attn.", "mlp."):
            if name in key:
                weights[key.replace(name, "")] = weights.pop(key)
    if extra_tokens:
        e = weights["embed_tokens.weight"]
        weights["embed_tokens.weight"] = torch.cat([e, e.mean(0, keepdim=True).expand(extra_tokens, -1)])
    model.load_state_dict(weights)
    return model.to(device)


class DcdmBlock(nn.Module):
    def __init__(self, d, heads, mlp):
        super().__init__()
        self.heads = heads
        self.attention_norm, self.mlp_norm = RmsNorm(d), RmsNorm(d)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.mlp = nn.Sequential(nn.Linear(d, mlp, bias=False), nn.GELU(), nn.Linear(mlp, d, bias=False))

    def forward(self, x):
        B, T, d = x.shape
        y = self.attention_norm(x)
        q, k, v = (p(y).view(B, T, self.heads, -1).transpose(1, 2) for p in (self.q, self.k, self.v))
        h = x + self.o(F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(B, T, d))
        return h + self.mlp(self.mlp_norm(h))


class DcdmTransformer(nn.Module):
    def __init__(self, vocab, c, positions=4096):
        super().__init__()
        self.embedding, self.positions = nn.Embedding(vocab + 1, c["dim"]), nn.Embedding(positions, c["dim"])
        self.blocks = nn.ModuleList(DcdmBlock(c["dim"], c["heads"], c["mlp"]) for _ in range(c["layers"]))
        self.final_norm, self.head = RmsNorm(c["dim"]), nn.Linear(c["dim"], vocab, bias=False)

    def forward(self, ids):
        h = self.embedding(ids) + self.positions.weight[: ids.shape[1]]
        for b in self.blocks:
            h = b(h)
        return self.head(self.final_norm(h))


class DenoiserBlock(nn.Module):
    def __init__(self, w, heads, ratio):
        super().__init__()
        self.heads = heads
        self.norm = nn.LayerNorm(w, elementwise_affine=False, eps=1e-6)
        self.modulation = nn.Linear(w, 4 * w)
        self.q, self.k, self.v, self.out = (nn.Linear(w, w) for _ in range(4))
        self.mlp = nn.Sequential(nn.Linear(w, ratio * w), nn.GELU(), nn.Linear(ratio * w, w))

    def forward(self, x, time):
        B, T, w = x.shape
        s1, c1, s2, c2 = self.modulation(F.silu(time)).unsqueeze(1).chunk(4, -1)
        y = self.norm(x) * (1 + c1) + s1
        q, k, v = (p(y).view(B, T, self.heads, -1).transpose(1, 2) for p in (self.q, self.k, self.v))
        x = x + self.out(F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, w))
        return x + self.mlp(self.norm(x) * (1 + c2) + s2)


class BridgeDenoiser(nn.Module):
    def __init__(self, d, c, positions=2048):
        super().__init__()
        w = c["width"]
        self.input, self.positions = nn.Linear(2 * d, w), nn.Embedding(positions, w)
        self.time_mlp = nn.Sequential(nn.Linear(w, w), nn.SiLU(), nn.Linear(w, w))
        self.blocks = nn.ModuleList(DenoiserBlock(w, c["heads"], c["mlp_ratio"]) for _ in range(c["depth"]))
        self.final_norm, self.output = nn.LayerNorm(w), nn.Linear(w, d)
        self.width = w

    def forward(self, xt, t, cond):
        half = self.width // 2
        freqs = torch.exp(-math.log(10000.0) * torch.arange(half, device=t.device) / half)
        time = self.time_mlp(torch.cat([(t[:, None] * 1000 * freqs).sin(), (t[:, None] * 1000 * freqs).cos()], -1))
        h = self.input(torch.cat([xt, cond], -1)) + self.positions.weight[: xt.shape[1]]
        for b in self.blocks:
            h = b(h, time)
        return self.output(self.final_norm(h))


# --- The reference steps ---------------------------------------------------------------------

def masked(ids, mask_id, min_time=1e-3):
    t = torch.rand(ids.shape[0], 1, device=ids.device) * (1 - 2 * min_time) + min_time
    noised = torch.rand(ids.shape, device=ids.device) < t
    return torch.where(noised, torch.full_like(ids, mask_id), ids), noised, t


def reference_loop(recipe, size, source_folder, device, steps):
    s, B, T = size["source"], size["batch"], size["seq"]
    bf16 = device == "cuda"
    torch.manual_seed(0)
    if recipe == "dcdm":
        vocab = 258
        model = DcdmTransformer(vocab, size["dcdm"]).to(device)
        params = list(model.parameters())

        def step(ids):
            xt, noised, t = masked(ids, vocab)
            ce = F.cross_entropy(model(xt).float().flatten(0, 1), ids.flatten(), reduction="none").view(B, T)
            return (ce * noised / t).sum() / noised.numel()
    elif recipe == "repr_align":
        vocab = s["vocab"]
        teacher = load_source(source_folder, s, device).requires_grad_(False)
        student = load_source(source_folder, s, device, extra_tokens=1)
        student.embed_tokens.weight.requires_grad_(False)  # freeze_embeddings = true
        params = [p for p in student.parameters() if p.requires_grad]

        def step(ids):
            xt, noised, t = masked(ids, vocab)
            with torch.no_grad():
                target = teacher(ids, causal=True)
            hidden = student(xt, causal=False)
            logits = student.logits(hidden[-1])[:, :-1, :vocab].float()
            ce = F.cross_entropy(logits.flatten(0, 1), ids[:, 1:].flatten(), reduction="none").view(B, T - 1)
            ce = (ce * noised[:, 1:]).sum() / noised[:, 1:].sum().clamp(min=1)
            cos = torch.stack([F.cosine_similarity(a.float(), b.float(), dim=-1).mean()
                               for a, b in zip(hidden[1:], target[1:])]).mean()
            return ce + 10.0 * (1 - cos)
    elif recipe == "bridge":
        vocab = s["vocab"]
        source = load_source(source_folder, s, device).requires_grad_(False)
        model = BridgeDenoiser(s["hidden"], size["bridge"]).to(device)
        params = list(model.parameters())

        def step(ids):
            with torch.no_grad():
                hidden = source(ids, causal=True, upto=size["layer"])
                x0 = hidden[-1].float()
                x0 = (x0 - x0.mean((0, 1))) / (x0.std((0, 1)) + 1e-6)
                c = hidden[0].float()
                c = (c - c.mean((0, 1))) / (c.std((0, 1)) + 1e-6)
            t = torch.rand(B, device=ids.device)
            alpha, sigma = torch.cos(t * math.pi / 2)[:, None, None], torch.sin(t * math.pi / 2)[:, None, None]
            xt = alpha * x0 + sigma * torch.randn_like(x0)
            return F.mse_loss(model(xt, t, c).float(), x0)
    else:
        raise ValueError(recipe)

    optimizer = torch.optim.AdamW(params, lr=1e-4, weight_decay=0.1)
    warmup = 3
    for i in range(warmup + steps):
        if i == warmup:
            if device == "cuda":
                torch.cuda.synchronize()
            started = time.perf_counter()
        ids = torch.randint(0, vocab, (B, T), device=device)
        with torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=bf16):
            loss = step(ids)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
    if device == "cuda":
        torch.cuda.synchronize()
    seconds = time.perf_counter() - started
    return {"steps": steps, "seconds": seconds, "tokens_per_s": B * T * steps / seconds,
            "loss_last": float(loss)}


# --- Strata's side ---------------------------------------------------------------------------

def strata_run(cli, recipe, size, source_folder, corpus, device, steps, run_dir):
    B, T = size["batch"], size["seq"]
    settings = {"corpus": corpus, "steps": steps, "batch": B, "seq_len": T, "log_every": size["log"],
                "eval_every": 0, "checkpoint_every": 0, "eval_windows": 2, "warmup": 2, "seed": 1,
                "device": device, "precision": "bf16" if device == "cuda" else "fp32", "lr": 1e-4}
    if recipe == "dcdm":
        settings.update(variant="mdlm", **size["dcdm"])
    elif recipe == "repr_align":
        settings.update(model=source_folder, sample_steps=1)
    else:
        settings.update(model=source_folder, layer=size["layer"], stats_windows=4, sample_steps=1,
                        **size["bridge"])
    command = [cli, "train", recipe, "--run-dir", run_dir]
    for key, value in settings.items():
        command += ["--set", f"{key}={value}"]
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{run.stdout[-3000:]}{run.stderr[-3000:]}")
    rates = [json.loads(line)["tokens_per_s"] for line in open(os.path.join(run_dir, "metrics.jsonl"))
             if '"tokens_per_s"' in line]
    if len(rates) < 2:
        raise RuntimeError(f"{run_dir}/metrics.jsonl has {len(rates)} tokens_per_s records")
    return {"steps": steps, "intervals": rates, "tokens_per_s": statistics.median(rates[1:])}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("--recipe", nargs="+", default=["bridge", "dcdm", "repr_align"])
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--size", choices=sorted(SIZES), default="tiny")
    ap.add_argument("--steps", type=int, default=None)
    ap.add_argument("--out")
    args = ap.parse_args()
    size = SIZES[args.size]
    steps = args.steps or size["steps"]
    work = tempfile.mkdtemp(prefix="strata-train-bench-")
    source = os.path.join(work, "source")
    capture_throughput.write_checkpoint(source, **size["source"], device=args.device)
    corpus = os.path.join(work, "corpus.txt")
    words = "the layer geometry of hidden states is curved and flat in places we measure it".split()
    with open(corpus, "w") as f:
        for p in range(400):
            f.write(" ".join(words[(p * 7 + i * 3) % len(words)] for i in range(120)) + "\n\n")
    cli = os.path.join(args.build_dir, "app", "cli", "strata-cli")
    results = {"device": args.device, "size": args.size, "batch": size["batch"], "seq_len": size["seq"],
               "torch": torch.__version__, "recipes": {}}
    for recipe in args.recipe:
        entry = {}
        try:
            with GpuMemoryPeak(args.device) as memory:
                entry["strata"] = strata_run(cli, recipe, size, source, corpus, args.device, steps,
                                             os.path.join(work, "run-" + recipe))
            entry["strata"]["gpu_memory_peak_mib"] = memory.peak_mib
            with GpuMemoryPeak(args.device) as memory:
                entry["pytorch"] = reference_loop(recipe, size, source, args.device, steps)
            entry["pytorch"]["gpu_memory_peak_mib"] = memory.peak_mib
            entry["pytorch"]["torch_allocator_peak_mib"] = memory.torch_peak_mib
            entry["ratio_strata_over_pytorch"] = entry["strata"]["tokens_per_s"] / entry["pytorch"]["tokens_per_s"]
        except Exception as e:  # one recipe's failure must not hide the others' figures
            entry["error"] = str(e)[-4000:]
        results["recipes"][recipe] = entry
        print(recipe, json.dumps(entry), flush=True)
    shutil.rmtree(work, ignore_errors=True)
    if args.out:
        json.dump(results, open(args.out, "w"), indent=2)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
