#!/usr/bin/env python3
"""Independent reference for Strata's backbones (core/model/).

Writes tiny random Hugging Face checkpoints (config.json + model.safetensors) and, next to each,
`expected.safetensors` with the hidden states the architecture must produce for fixed ids:
  ids             [B, T] int64
  hidden.<l>      [B, T, d] float32 for l = 0..L (embedding output, then each block's output,
                  before the final norm)
  final_norm      [B, T, d]
  logits          [B, T, vocab]
and `cases.json` listing the cases. Usage: model_reference.py OUTPUT_FOLDER

Each architecture is written out again here in plain PyTorch, from the Hugging Face modelling
code (transformers' modeling_llama.py, modeling_qwen2.py, modeling_qwen3.py, modeling_gpt2.py,
modeling_gpt_neox.py), without importing Strata or transformers. Weights are stored as
float32, float16 or bfloat16; the reference computes in float32 from the stored values, as
Strata does.
"""

import json
import math
import os
import struct
import sys

import torch

torch.manual_seed(1234)

# --------------------------------------------------------------------------------------------
# safetensors writing (the `safetensors` package may be absent): u64 header length, JSON header
# padded with spaces to a multiple of 8, then the tensors' bytes back to back.

DTYPE_NAMES = {
    torch.float32: "F32",
    torch.float16: "F16",
    torch.bfloat16: "BF16",
    torch.int64: "I64",
    torch.bool: "BOOL",
    torch.uint8: "U8",
}


def tensor_bytes(tensor):
    flat = tensor.detach().contiguous().reshape(-1)
    if flat.dtype == torch.bool:
        flat = flat.to(torch.uint8)
    return flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b""


def write_safetensors(path, tensors):
    header = {"__metadata__": {"format": "pt"}}
    blobs = []
    offset = 0
    for name, tensor in tensors.items():
        data = tensor_bytes(tensor)
        header[name] = {
            "dtype": DTYPE_NAMES[tensor.dtype],
            "shape": list(tensor.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as out:
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        for blob in blobs:
            out.write(blob)


# --------------------------------------------------------------------------------------------
# Shared pieces, as the HF modelling files define them.


def rms_norm(x, weight, eps):
    # LlamaRMSNorm: variance in float32, normalise, cast back to the input dtype, then weight.
    dtype = x.dtype
    xf = x.to(torch.float32)
    variance = xf.pow(2).mean(-1, keepdim=True)
    xf = xf * torch.rsqrt(variance + eps)
    return weight * xf.to(dtype)


def layer_norm(x, weight, bias, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * weight + bias


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def default_inv_freq(dim, base):
    return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))


def llama3_inv_freq(inv_freq, scaling):
    # transformers' _compute_llama3_parameters
    factor = scaling["factor"]
    low = scaling["low_freq_factor"]
    high = scaling["high_freq_factor"]
    old_context = scaling["original_max_position_embeddings"]
    low_freq_wavelen = old_context / low
    high_freq_wavelen = old_context / high
    wavelen = 2 * math.pi / inv_freq
    scaled = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth = (old_context / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return torch.where(medium, smoothed, scaled)


def rope_inv_freq(dim, base, scaling):
    inv_freq = default_inv_freq(dim, base)
    if scaling is None:
        return inv_freq
    kind = scaling.get("rope_type", scaling.get("type"))
    if kind == "llama3":
        return llama3_inv_freq(inv_freq, scaling)
    if kind == "linear":
        return inv_freq / scaling["factor"]
    raise ValueError(kind)


def rope_cos_sin(inv_freq, positions):
    # LlamaRotaryEmbedding.forward: freqs = positions x inv_freq, emb = cat(freqs, freqs)
    freqs = positions[:, :, None].float() * inv_freq[None, None, :].float()
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos()[:, None], emb.sin()[:, None]  # [B, 1, T, dim]


def apply_rope(x, cos, sin):
    return x * cos + rotate_half(x) * sin


def causal_attention(q, k, v):
    """q [B, H, T, hd], k/v [B, KV, T, hd]; GQA by repeat_kv; eager softmax attention."""
    heads, kv_heads = q.shape[1], k.shape[1]
    if heads != kv_heads:
        rep = heads // kv_heads
        b, _, t, hd = k.shape
        k = k[:, :, None].expand(b, kv_heads, rep, t, hd).reshape(b, heads, t, hd)
        v = v[:, :, None].expand(b, kv_heads, rep, t, hd).reshape(b, heads, t, hd)
    t = q.shape[2]
    scores = q @ k.transpose(2, 3) / math.sqrt(q.shape[-1])
    mask = torch.ones(t, t, dtype=torch.bool).tril()
    scores = scores.masked_fill(~mask, float("-inf"))
    probs = torch.softmax(scores.float(), dim=-1).to(q.dtype)
    out = probs @ v  # [B, H, T, hd]
    return out.transpose(1, 2).reshape(q.shape[0], t, -1)


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.pow(3))))


def gelu_erf(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


ACTIVATIONS = {
    "silu": lambda x: x * torch.sigmoid(x),
    "gelu_new": gelu_tanh,
    "gelu": gelu_erf,
}


def linear(x, weight, bias=None):
    y = x @ weight.t()
    return y if bias is None else y + bias


# --------------------------------------------------------------------------------------------
# Llama, Qwen2, Qwen3 (modeling_llama.py, modeling_qwen2.py, modeling_qwen3.py)


def llama_forward(cfg, w, ids):
    arch = cfg["architectures"][0]
    d = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    kv_heads = cfg.get("num_key_value_heads", heads)
    hd = cfg.get("head_dim") or d // heads
    eps = cfg["rms_norm_eps"]
    act = ACTIVATIONS[cfg.get("hidden_act", "silu")]
    b, t = ids.shape
    positions = torch.arange(t)[None].expand(b, t)
    inv_freq = rope_inv_freq(hd, cfg.get("rope_theta", 10000.0), cfg.get("rope_scaling"))
    cos, sin = rope_cos_sin(inv_freq, positions)

    h = w["model.embed_tokens.weight"][ids]
    hidden = [h]
    for layer in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        x = rms_norm(h, w[p + "input_layernorm.weight"], eps)
        q = linear(x, w[p + "self_attn.q_proj.weight"], w.get(p + "self_attn.q_proj.bias"))
        k = linear(x, w[p + "self_attn.k_proj.weight"], w.get(p + "self_attn.k_proj.bias"))
        v = linear(x, w[p + "self_attn.v_proj.weight"], w.get(p + "self_attn.v_proj.bias"))
        q = q.view(b, t, heads, hd)
        k = k.view(b, t, kv_heads, hd)
        v = v.view(b, t, kv_heads, hd)
        if arch == "Qwen3ForCausalLM":  # Qwen3Attention: q_norm / k_norm over head_dim
            q = rms_norm(q, w[p + "self_attn.q_norm.weight"], eps)
            k = rms_norm(k, w[p + "self_attn.k_norm.weight"], eps)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        attn = causal_attention(q, k, v)
        attn = linear(attn, w[p + "self_attn.o_proj.weight"], w.get(p + "self_attn.o_proj.bias"))
        h = h + attn
        x = rms_norm(h, w[p + "post_attention_layernorm.weight"], eps)
        gate = linear(x, w[p + "mlp.gate_proj.weight"])
        up = linear(x, w[p + "mlp.up_proj.weight"])
        h = h + linear(act(gate) * up, w[p + "mlp.down_proj.weight"])
        hidden.append(h)
    normed = rms_norm(h, w["model.norm.weight"], eps)
    head = w["model.embed_tokens.weight"] if cfg["tie_word_embeddings"] else w["lm_head.weight"]
    return hidden, normed, linear(normed, head)


# --------------------------------------------------------------------------------------------
# GPT-2 (modeling_gpt2.py): Conv1D weights are [in, out]: y = x @ W + b.


def gpt2_forward(cfg, w, ids, prefix):
    d = cfg["n_embd"]
    heads = cfg["n_head"]
    hd = d // heads
    eps = cfg["layer_norm_epsilon"]
    act = ACTIVATIONS[cfg["activation_function"]]
    b, t = ids.shape
    positions = torch.arange(t)[None].expand(b, t)

    def conv1d(x, name):
        return x @ w[name + ".weight"] + w[name + ".bias"]

    h = w[prefix + "wte.weight"][ids] + w[prefix + "wpe.weight"][positions]
    hidden = [h]
    for layer in range(cfg["n_layer"]):
        p = f"{prefix}h.{layer}."
        x = layer_norm(h, w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        q, k, v = conv1d(x, p + "attn.c_attn").split(d, dim=2)
        q, k, v = (z.view(b, t, heads, hd).transpose(1, 2) for z in (q, k, v))
        h = h + conv1d(causal_attention(q, k, v), p + "attn.c_proj")
        x = layer_norm(h, w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
        h = h + conv1d(act(conv1d(x, p + "mlp.c_fc")), p + "mlp.c_proj")
        hidden.append(h)
    normed = layer_norm(h, w[prefix + "ln_f.weight"], w[prefix + "ln_f.bias"], eps)
    return hidden, normed, linear(normed, w[prefix + "wte.weight"])


# --------------------------------------------------------------------------------------------
# GPT-NeoX / Pythia (modeling_gpt_neox.py)


def neox_forward(cfg, w, ids):
    d = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    hd = d // heads
    eps = cfg["layer_norm_eps"]
    act = ACTIVATIONS[cfg["hidden_act"]]
    rot = int(hd * cfg["rotary_pct"])
    b, t = ids.shape
    positions = torch.arange(t)[None].expand(b, t)
    # The rotary embedding's own dimension is rotary_ndims: frequencies use it, not head_size.
    cos, sin = rope_cos_sin(default_inv_freq(rot, cfg["rotary_emb_base"]), positions)

    h = w["gpt_neox.embed_in.weight"][ids]
    hidden = [h]
    for layer in range(cfg["num_hidden_layers"]):
        p = f"gpt_neox.layers.{layer}."
        x = layer_norm(h, w[p + "input_layernorm.weight"], w[p + "input_layernorm.bias"], eps)
        qkv = linear(x, w[p + "attention.query_key_value.weight"],
                     w[p + "attention.query_key_value.bias"])
        qkv = qkv.view(b, t, heads, 3 * hd)  # per head: q | k | v
        q = qkv[..., :hd].permute(0, 2, 1, 3)
        k = qkv[..., hd:2 * hd].permute(0, 2, 1, 3)
        v = qkv[..., 2 * hd:].permute(0, 2, 1, 3)
        q = torch.cat((apply_rope(q[..., :rot], cos, sin), q[..., rot:]), dim=-1)
        k = torch.cat((apply_rope(k[..., :rot], cos, sin), k[..., rot:]), dim=-1)
        attn = linear(causal_attention(q, k, v), w[p + "attention.dense.weight"],
                      w[p + "attention.dense.bias"])

        def mlp(z):
            z = linear(z, w[p + "mlp.dense_h_to_4h.weight"], w[p + "mlp.dense_h_to_4h.bias"])
            return linear(act(z), w[p + "mlp.dense_4h_to_h.weight"], w[p + "mlp.dense_4h_to_h.bias"])

        post = (w[p + "post_attention_layernorm.weight"], w[p + "post_attention_layernorm.bias"])
        if cfg["use_parallel_residual"]:
            h = mlp(layer_norm(h, *post, eps)) + attn + h
        else:
            attn = attn + h
            h = mlp(layer_norm(attn, *post, eps)) + attn
        hidden.append(h)
    normed = layer_norm(h, w["gpt_neox.final_layer_norm.weight"],
                        w["gpt_neox.final_layer_norm.bias"], eps)
    return hidden, normed, linear(normed, w["embed_out.weight"])


# --------------------------------------------------------------------------------------------
# Random checkpoints


def matrix(rows, cols, scale=None):
    return torch.randn(rows, cols) * (scale if scale is not None else 1.0 / math.sqrt(cols))


def norm_weight(n):
    return 1.0 + 0.1 * torch.randn(n)


def bias(n):
    return 0.1 * torch.randn(n)


def llama_weights(cfg):
    d = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    kv_heads = cfg.get("num_key_value_heads", heads)
    hd = cfg.get("head_dim") or d // heads
    ff = cfg["intermediate_size"]
    arch = cfg["architectures"][0]
    w = {"model.embed_tokens.weight": torch.randn(cfg["vocab_size"], d)}
    for layer in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        w[p + "input_layernorm.weight"] = norm_weight(d)
        w[p + "self_attn.q_proj.weight"] = matrix(heads * hd, d)
        w[p + "self_attn.k_proj.weight"] = matrix(kv_heads * hd, d)
        w[p + "self_attn.v_proj.weight"] = matrix(kv_heads * hd, d)
        w[p + "self_attn.o_proj.weight"] = matrix(d, heads * hd)
        if arch == "Qwen2ForCausalLM":
            w[p + "self_attn.q_proj.bias"] = bias(heads * hd)
            w[p + "self_attn.k_proj.bias"] = bias(kv_heads * hd)
            w[p + "self_attn.v_proj.bias"] = bias(kv_heads * hd)
        if arch == "Qwen3ForCausalLM":
            w[p + "self_attn.q_norm.weight"] = norm_weight(hd)
            w[p + "self_attn.k_norm.weight"] = norm_weight(hd)
        w[p + "post_attention_layernorm.weight"] = norm_weight(d)
        w[p + "mlp.gate_proj.weight"] = matrix(ff, d)
        w[p + "mlp.up_proj.weight"] = matrix(ff, d)
        w[p + "mlp.down_proj.weight"] = matrix(d, ff)
    w["model.norm.weight"] = norm_weight(d)
    if not cfg["tie_word_embeddings"]:
        w["lm_head.weight"] = matrix(cfg["vocab_size"], d)
    return w


def gpt2_weights(cfg, prefix, with_buffers):
    d = cfg["n_embd"]
    n_pos = cfg["n_positions"]
    w = {prefix + "wte.weight": 0.5 * torch.randn(cfg["vocab_size"], d),
         prefix + "wpe.weight": 0.5 * torch.randn(n_pos, d)}
    for layer in range(cfg["n_layer"]):
        p = f"{prefix}h.{layer}."
        w[p + "ln_1.weight"], w[p + "ln_1.bias"] = norm_weight(d), bias(d)
        w[p + "attn.c_attn.weight"], w[p + "attn.c_attn.bias"] = matrix(d, 3 * d, d ** -0.5), bias(3 * d)
        w[p + "attn.c_proj.weight"], w[p + "attn.c_proj.bias"] = matrix(d, d, d ** -0.5), bias(d)
        w[p + "ln_2.weight"], w[p + "ln_2.bias"] = norm_weight(d), bias(d)
        w[p + "mlp.c_fc.weight"], w[p + "mlp.c_fc.bias"] = matrix(d, 4 * d, d ** -0.5), bias(4 * d)
        w[p + "mlp.c_proj.weight"], w[p + "mlp.c_proj.bias"] = matrix(4 * d, d, (4 * d) ** -0.5), bias(d)
        if with_buffers:  # what older GPT-2 checkpoints carry: a causal mask and a scalar
            w[p + "attn.bias"] = torch.ones(n_pos, n_pos, dtype=torch.bool).tril()[None, None]
            w[p + "attn.masked_bias"] = torch.tensor(-1e4)
    w[prefix + "ln_f.weight"], w[prefix + "ln_f.bias"] = norm_weight(d), bias(d)
    return w


def neox_weights(cfg, with_buffers):
    d = cfg["hidden_size"]
    ff = cfg["intermediate_size"]
    hd = d // cfg["num_attention_heads"]
    w = {"gpt_neox.embed_in.weight": torch.randn(cfg["vocab_size"], d)}
    for layer in range(cfg["num_hidden_layers"]):
        p = f"gpt_neox.layers.{layer}."
        w[p + "input_layernorm.weight"], w[p + "input_layernorm.bias"] = norm_weight(d), bias(d)
        w[p + "post_attention_layernorm.weight"] = norm_weight(d)
        w[p + "post_attention_layernorm.bias"] = bias(d)
        w[p + "attention.query_key_value.weight"] = matrix(3 * d, d)
        w[p + "attention.query_key_value.bias"] = bias(3 * d)
        w[p + "attention.dense.weight"], w[p + "attention.dense.bias"] = matrix(d, d), bias(d)
        w[p + "mlp.dense_h_to_4h.weight"], w[p + "mlp.dense_h_to_4h.bias"] = matrix(ff, d), bias(ff)
        w[p + "mlp.dense_4h_to_h.weight"], w[p + "mlp.dense_4h_to_h.bias"] = matrix(d, ff), bias(d)
        if with_buffers:
            n_pos = cfg["max_position_embeddings"]
            rot = int(hd * cfg["rotary_pct"])
            w[p + "attention.bias"] = torch.ones(n_pos, n_pos, dtype=torch.bool).tril()[None, None]
            w[p + "attention.masked_bias"] = torch.tensor(-1e9)
            w[p + "attention.rotary_emb.inv_freq"] = default_inv_freq(rot, cfg["rotary_emb_base"])
    w["gpt_neox.final_layer_norm.weight"] = norm_weight(d)
    w["gpt_neox.final_layer_norm.bias"] = bias(d)
    w["embed_out.weight"] = matrix(cfg["vocab_size"], d)
    return w


def llama_config(arch, model_type, **overrides):
    cfg = {
        "architectures": [arch], "model_type": model_type, "vocab_size": 96, "hidden_size": 32,
        "intermediate_size": 56, "num_hidden_layers": 3, "num_attention_heads": 4,
        "num_key_value_heads": 2, "max_position_embeddings": 128, "rms_norm_eps": 1e-6,
        "rope_theta": 10000.0, "hidden_act": "silu", "tie_word_embeddings": False,
        "bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "float32",
    }
    cfg.update(overrides)
    return cfg


def cases():
    """(name, config, weights, storage dtype, forward)"""
    out = []

    cfg = llama_config("LlamaForCausalLM", "llama", tie_word_embeddings=True, rope_scaling={
        "rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
        "original_max_position_embeddings": 64}, eos_token_id=[2, 3])
    out.append(("llama_gqa_llama3_tied", cfg, llama_weights(cfg), torch.float32, llama_forward))

    cfg = llama_config("LlamaForCausalLM", "llama", num_key_value_heads=4, head_dim=8,
                       rope_scaling={"type": "linear", "factor": 2.0}, torch_dtype="bfloat16")
    out.append(("llama_untied_bf16", cfg, llama_weights(cfg), torch.bfloat16, llama_forward))

    cfg = llama_config("Qwen2ForCausalLM", "qwen2", tie_word_embeddings=True, rope_theta=1e6)
    out.append(("qwen2_bias", cfg, llama_weights(cfg), torch.float32, llama_forward))

    cfg = llama_config("Qwen3ForCausalLM", "qwen3", head_dim=16, attention_bias=False,
                       torch_dtype="float16")
    out.append(("qwen3_qk_norm", cfg, llama_weights(cfg), torch.float16, llama_forward))

    gpt2 = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "vocab_size": 80,
            "n_embd": 32, "n_layer": 3, "n_head": 4, "n_positions": 40, "n_ctx": 40,
            "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new",
            "bos_token_id": 0, "eos_token_id": 0}
    out.append(("gpt2_prefixed", gpt2, gpt2_weights(gpt2, "transformer.", True), torch.float32,
                lambda c, w, ids: gpt2_forward(c, w, ids, "transformer.")))
    out.append(("gpt2_bare_f16", gpt2, gpt2_weights(gpt2, "", False), torch.float16,
                lambda c, w, ids: gpt2_forward(c, w, ids, "")))

    neox = {"architectures": ["GPTNeoXForCausalLM"], "model_type": "gpt_neox", "vocab_size": 72,
            "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 3,
            "num_attention_heads": 4, "max_position_embeddings": 32, "layer_norm_eps": 1e-5,
            "rotary_pct": 0.25, "rotary_emb_base": 10000, "hidden_act": "gelu",
            "use_parallel_residual": True, "tie_word_embeddings": False}
    out.append(("neox_parallel", neox, neox_weights(neox, False), torch.float32, neox_forward))
    neox = dict(neox, use_parallel_residual=False, rotary_pct=0.5)
    out.append(("neox_sequential", neox, neox_weights(neox, True), torch.float32, neox_forward))
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: model_reference.py OUTPUT_FOLDER")
    root = sys.argv[1]
    # Two sequences; the second repeats a token so that equal inputs meet different positions.
    ids = torch.tensor([[1, 5, 9, 3, 17, 42, 8, 8, 23, 0, 61, 7, 30],
                        [2, 11, 11, 4, 33, 19, 27, 5, 50, 6, 13, 70, 2]], dtype=torch.int64)
    names = []
    for name, cfg, weights, dtype, forward in cases():
        folder = os.path.join(root, name)
        os.makedirs(folder, exist_ok=True)
        stored = {k: (v.to(dtype) if v.is_floating_point() and v.dim() > 0 else v)
                  for k, v in weights.items()}
        write_safetensors(os.path.join(folder, "model.safetensors"), stored)
        with open(os.path.join(folder, "config.json"), "w") as out:
            json.dump(cfg, out, indent=2)
        # Compute from exactly the stored values, in float32.
        computed = {k: v.float() for k, v in stored.items()}
        with torch.no_grad():
            hidden, normed, logits = forward(cfg, computed, ids)
        expected = {"ids": ids}
        for layer, h in enumerate(hidden):
            expected[f"hidden.{layer}"] = h.float()
        expected["final_norm"] = normed.float()
        expected["logits"] = logits.float()
        write_safetensors(os.path.join(folder, "expected.safetensors"), expected)
        names.append(name)
    with open(os.path.join(root, "cases.json"), "w") as out:
        json.dump(names, out, indent=2)


if __name__ == "__main__":
    main()
