#!/usr/bin/env python3
"""Tiny random GGUF models written the way llama.cpp's convert_hf_to_gguf.py writes them, and
Hugging Face transformers' hidden states on them, as the reference for Strata's GGUF import of
the architectures and RoPE variants the real test models do not cover.

Cases (the first argument):

  qwen3          Qwen3: per-head q/k RMSNorms, no q/k/v biases, head_dim 128 from
                 qwen3.attention.key_length (width 64 / 4 heads would give 16), untied output.
                 Reference: transformers loading the GGUF (gguf_file=).
  llama3_rope    Llama with Llama-3.1-style RoPE scaling (factor 8, low 1, high 4, original
                 context 64 so that a 64-token sequence feels it): as convert_hf_to_gguf does, the
                 scaling is written only as rope_freqs.weight (1/factor per frequency), with no
                 rope.scaling.* key. transformers' GGUF loader ignores both, so the reference is
                 transformers loading the GGUF with the config's rope_parameters set to the
                 llama3 scaling; what transformers computes without it is recorded in
                 reference.json ("transformers_gguf_unscaled_difference").
  mistral_style  llama architecture as Mistral files use it: vocabulary 32768, head_dim 32 at
                 width 64 and 4 heads (llama.attention.key_length, rope.dimension_count), no
                 sliding window key, untied output. Reference: transformers loading the GGUF.

Every model has 2 blocks, the MLP (and the large matrices of mistral_style) in Q8_0, the rest
in float32 and one matrix in float16, and a gpt2-style tokenizer (the import writes
tokenizer.json). The reference runs in float32 with eager attention.

Writes OUTPUT/model.gguf and OUTPUT/expected.safetensors:

  ids         [1, T] int64   T = 64 random token ids
  hidden.<l>  [1, T, d]      l = 0..L: the embedding output, then each decoder layer's output
                             BEFORE the final norm (Strata's convention)
  final_norm  [1, T, d]

and OUTPUT/reference.json.

Usage: gguf_tiny_models.py CASE OUTPUT_FOLDER
"""

import importlib.metadata
import json
import math
import os
import sys

os.environ.setdefault("TQDM_DISABLE", "1")  # transformers' per-tensor progress bar

import numpy as np
import torch
from safetensors.torch import save_file

import gguf
import transformers
from transformers import AutoConfig, AutoModelForCausalLM

transformers.logging.set_verbosity_error()
transformers.logging.disable_progress_bar()

TOKENS = 64
LLAMA3_SCALING = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                  "high_freq_factor": 4.0, "original_max_position_embeddings": 64}


def hf_model(case):
    """The model to convert: a transformers model with random weights."""
    common = dict(hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512)
    if case == "qwen3":
        config = transformers.Qwen3Config(vocab_size=96, head_dim=128, rms_norm_eps=1e-6,
                                          rope_parameters={"rope_type": "default",
                                                           "rope_theta": 1e6},
                                          tie_word_embeddings=False, **common)
    elif case == "llama3_rope":
        config = transformers.LlamaConfig(vocab_size=96, rms_norm_eps=1e-5,
                                          rope_parameters={**LLAMA3_SCALING,
                                                           "rope_theta": 10000.0},
                                          tie_word_embeddings=True, **common)
    else:
        config = transformers.LlamaConfig(vocab_size=32768, head_dim=32, rms_norm_eps=1e-5,
                                          rope_parameters={"rope_type": "default",
                                                           "rope_theta": 1e6},
                                          tie_word_embeddings=False, **common)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.copy_(1.0 + 0.1 * torch.randn_like(p))
            else:
                p.copy_(0.15 * torch.randn_like(p))
    return model.eval()


def permute(weights, n_head, n_head_kv):
    """convert_hf_to_gguf's LlamaModel.permute (interleaved rotary pairs within each head)."""
    if n_head_kv is not None and n_head != n_head_kv:
        n_head = n_head_kv
    return (weights.reshape(n_head, 2, weights.shape[0] // n_head // 2, *weights.shape[1:])
            .swapaxes(1, 2).reshape(weights.shape))


def llama3_rope_factors(base, dim, scaling):
    """convert_hf_to_gguf's LlamaModel.generate_extra_tensors: one divisor per frequency."""
    freqs = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    factor = scaling["factor"]
    low, high = scaling["low_freq_factor"], scaling["high_freq_factor"]
    old_context = scaling["original_max_position_embeddings"]
    low_wavelen, high_wavelen = old_context / low, old_context / high
    factors = []
    for freq in freqs:
        wavelen = 2 * math.pi / freq
        if wavelen < high_wavelen:
            factors.append(1)
        elif wavelen > low_wavelen:
            factors.append(factor)
        else:
            smooth = (old_context / wavelen - low) / (high - low)
            factors.append(1 / ((1 - smooth) / factor + smooth))
    return torch.tensor(factors, dtype=torch.float32)


GGUF_NAMES = {
    "input_layernorm.weight": "attn_norm.weight",
    "self_attn.q_proj.weight": "attn_q.weight",
    "self_attn.k_proj.weight": "attn_k.weight",
    "self_attn.v_proj.weight": "attn_v.weight",
    "self_attn.o_proj.weight": "attn_output.weight",
    "self_attn.q_norm.weight": "attn_q_norm.weight",
    "self_attn.k_norm.weight": "attn_k_norm.weight",
    "post_attention_layernorm.weight": "ffn_norm.weight",
    "mlp.gate_proj.weight": "ffn_gate.weight",
    "mlp.up_proj.weight": "ffn_up.weight",
    "mlp.down_proj.weight": "ffn_down.weight",
}


def gguf_name(hf_name):
    if hf_name == "model.embed_tokens.weight":
        return "token_embd.weight"
    if hf_name == "model.norm.weight":
        return "output_norm.weight"
    if hf_name == "lm_head.weight":
        return "output.weight"
    parts = hf_name.split(".")  # model.layers.<n>.<rest>
    return "blk.%s.%s" % (parts[2], GGUF_NAMES[".".join(parts[3:])])


def add_tensor(writer, name, values, large_q8):
    values = np.ascontiguousarray(values.astype(np.float32))
    q8 = ".ffn_" in name or (large_q8 and name in ("token_embd.weight", "output.weight"))
    if q8:
        qtype = gguf.GGMLQuantizationType.Q8_0
        writer.add_tensor(name, gguf.quants.quantize(values, qtype), raw_dtype=qtype)
    elif name.endswith("attn_output.weight"):
        writer.add_tensor(name, values.astype(np.float16))
    else:
        writer.add_tensor(name, values)


def vocabulary(size):
    """A BPE vocabulary of `size` tokens: <|endoftext|>, the letters, then every letter string
    built one letter at a time, each with its merge (the ids are all the test uses)."""
    letters = [chr(ord("a") + i) for i in range(26)]
    tokens, merges, frontier = ["<|endoftext|>"] + letters, [], letters
    while len(tokens) < size:
        longer = []
        for prefix in frontier:
            for letter in letters:
                if len(tokens) < size:
                    tokens.append(prefix + letter)
                    merges.append(prefix + " " + letter)
                    longer.append(prefix + letter)
        frontier = longer
    return tokens, merges


def write_gguf(case, model, path):
    c = model.config
    arch = "qwen3" if case == "qwen3" else "llama"
    writer = gguf.GGUFWriter(path, arch)
    writer.add_name({"qwen3": "tiny qwen3", "llama3_rope": "tiny llama 3.1",
                     "mistral_style": "Mistral-style tiny"}[case])
    writer.add_context_length(c.max_position_embeddings)
    writer.add_embedding_length(c.hidden_size)
    writer.add_block_count(c.num_hidden_layers)
    writer.add_feed_forward_length(c.intermediate_size)
    writer.add_rope_freq_base(c.rope_parameters["rope_theta"])
    writer.add_head_count(c.num_attention_heads)
    writer.add_head_count_kv(c.num_key_value_heads)
    writer.add_layer_norm_rms_eps(c.rms_norm_eps)
    head_dim = c.head_dim
    if case != "llama3_rope":  # TextModel writes key/value length where config.json has head_dim
        writer.add_key_length(head_dim)
        writer.add_value_length(head_dim)
    if arch == "llama":  # LlamaModel.set_gguf_parameters
        writer.add_vocab_size(c.vocab_size)
        writer.add_rope_dimension_count(head_dim)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q8_0)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("default")
    tokens, merges = vocabulary(c.vocab_size)
    writer.add_token_list(tokens)
    writer.add_token_merges(merges)
    writer.add_token_types([3] + [1] * (c.vocab_size - 1))
    writer.add_bos_token_id(0)
    writer.add_eos_token_id(0)

    if case == "llama3_rope":
        writer.add_tensor("rope_freqs.weight",
                          llama3_rope_factors(c.rope_parameters["rope_theta"], head_dim,
                                              LLAMA3_SCALING).numpy())
    for name, tensor in model.state_dict().items():
        if name == "lm_head.weight" and c.tie_word_embeddings:
            continue
        values = tensor.detach().numpy()
        if arch == "llama" and name.endswith("q_proj.weight"):
            values = permute(values, c.num_attention_heads, c.num_attention_heads)
        if arch == "llama" and name.endswith("k_proj.weight"):
            values = permute(values, c.num_attention_heads, c.num_key_value_heads)
        add_tensor(writer, gguf_name(name), values, case == "mistral_style")
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def hidden_states(model, ids):
    """hidden.0 .. hidden.L before the final norm, and the final norm's output."""
    layers = model.model.layers
    outputs = [None] * len(layers)
    hooks = [layer.register_forward_hook(
        lambda module, args, o, i=i: outputs.__setitem__(i, o[0] if isinstance(o, tuple) else o))
        for i, layer in enumerate(layers)]
    with torch.no_grad():
        result = model(ids, output_hidden_states=True, use_cache=False)
    for hook in hooks:
        hook.remove()
    states = {"hidden.0": result.hidden_states[0].contiguous(),
              "final_norm": result.hidden_states[-1].contiguous()}
    for i, h in enumerate(outputs):
        states["hidden.%d" % (i + 1)] = h.contiguous()
    return states


def largest_relative_difference(a, b):
    return max(float((a[k] - b[k]).abs().max() / b[k].abs().max()) for k in b)


def main():
    case, out = sys.argv[1], sys.argv[2]
    if case not in ("qwen3", "llama3_rope", "mistral_style"):
        raise SystemExit("unknown case " + case)
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "model.gguf")
    source = hf_model(case)
    write_gguf(case, source, path)

    load = dict(gguf_file="model.gguf", dtype=torch.float32, attn_implementation="eager")
    loaded = AutoModelForCausalLM.from_pretrained(out, **load).eval()
    report = {"transformers": transformers.__version__, "gguf": importlib.metadata.version("gguf"),
              "class": type(loaded).__name__, "head_dim": loaded.config.head_dim}
    generator = torch.Generator().manual_seed(1)
    ids = torch.randint(0, source.config.vocab_size, (1, TOKENS), generator=generator)
    if case == "llama3_rope":
        unscaled = hidden_states(loaded, ids)
        config = AutoConfig.from_pretrained(out, gguf_file="model.gguf")
        report["transformers_gguf_rope_parameters"] = dict(config.rope_parameters)
        config.rope_parameters = {**LLAMA3_SCALING,
                                  "rope_theta": source.config.rope_parameters["rope_theta"]}
        loaded = AutoModelForCausalLM.from_pretrained(out, config=config, **load).eval()
        expected = hidden_states(loaded, ids)
        report["transformers_gguf_unscaled_difference"] = largest_relative_difference(
            unscaled, expected)
    else:
        expected = hidden_states(loaded, ids)
    # The GGUF holds the source model with its MLP in Q8_0: close to it, not equal.
    report["source_model_difference"] = largest_relative_difference(
        hidden_states(source, ids), expected)
    expected["ids"] = ids.contiguous()
    save_file(expected, os.path.join(out, "expected.safetensors"))
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
