#!/usr/bin/env python3
"""Hugging Face transformers as the reference for Strata's backbones (core/model/).

For every architecture Strata reads (core/io/hf/hf_config.h) and the variants that matter (GQA,
tied embeddings, llama3 / linear RoPE scaling, q/k/v and MLP biases, Qwen3's q/k norms and
explicit head_dim, GPT-NeoX partial rotary and sequential residual, Gemma-3's sliding-window and
global layers with their own RoPE bases, legacy checkpoint layouts), this builds a tiny random model with transformers' own class (LlamaForCausalLM, ...), saves it
with `save_pretrained` as float32, bfloat16 and sharded float32 (several shards and a
model.safetensors.index.json; some variants float16 too), loads each folder back with
`from_pretrained` upcast to float32 and eager attention, and writes next to it
`expected.safetensors`:
  ids             [B, T] int64
  hidden.<l>      [B, T, d] float32, l = 0..L: the embedding output, then each decoder layer's
                  output BEFORE the final norm (Strata's convention, core/model/backbone/backbone.h)
  final_norm      [B, T, d] the final norm's output (HF's last hidden_states entry)
  logits          [B, T, vocab]
and, at the top, `cases.json`: {"transformers": version, "known": [every case name],
"cases": {name: [storage, ...]} for the cases written}.

Usage: hf_model_reference.py [--device cuda] OUTPUT_FOLDER [CASE ...]   (no CASE: every case)

--device cuda runs transformers on the GPU (the weights saved are the same: each case's seed
makes them on the CPU), for the CUDA comparison (tests/core/model/backbone/cuda_backbone_reference_test.cpp).

transformers computes in float32 from exactly the stored values (a bfloat16 folder is upcast on
load), as Strata does. Random weights are rescaled away from HF's initialisation (norm weights
of 1, zero biases, 0.02-std matrices) so that a wrong norm weight, bias, RoPE or attention
scale shows: matrices have unit-gain rows, norm weights 1 ± 0.1 (Gemma's (1 + w) norms thus
scale by about 2), biases ± 0.1. Embeddings keep a small scale (std 0.02, like trained models),
so the first norm's eps is a visible share of the variance and a wrong eps shows too.
"""

import copy
import json
import math
import os
import sys

import torch
from safetensors import safe_open
from safetensors.torch import save_file

import transformers
from transformers import (Gemma3ForCausalLM, Gemma3TextConfig, GPT2Config, GPT2LMHeadModel,
                          GPTNeoXConfig, GPTNeoXForCausalLM, LlamaConfig, LlamaForCausalLM,
                          Qwen2Config, Qwen2ForCausalLM, Qwen3Config, Qwen3ForCausalLM)
from transformers.pytorch_utils import Conv1D

transformers.logging.set_verbosity_error()  # unexpected-key notices for the legacy buffers
transformers.logging.disable_progress_bar()

# Two sequences; the second repeats a token so that equal inputs meet different positions.
IDS = torch.tensor([[1, 5, 9, 3, 17, 42, 8, 8, 23, 0, 61, 7, 30],
                    [2, 11, 11, 4, 33, 19, 27, 5, 50, 6, 13, 70, 2]], dtype=torch.int64)

STORAGE_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16,
                  "float16": torch.float16, "sharded": torch.float32}
DEFAULT_STORAGES = ["float32", "bfloat16", "sharded"]

# --------------------------------------------------------------------------------------------
# The cases: (name, model class, config, storages, edits applied to each saved folder)


def llama_like(config_class, **overrides):
    settings = dict(vocab_size=96, hidden_size=32, intermediate_size=56, num_hidden_layers=3,
                    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                    rms_norm_eps=1e-5, hidden_act="silu", tie_word_embeddings=False,
                    bos_token_id=1, eos_token_id=2)
    settings.update(overrides)
    return config_class(**settings)


def gpt2_config():
    return GPT2Config(vocab_size=80, n_embd=32, n_layer=3, n_head=4, n_positions=40,
                      layer_norm_epsilon=1e-5, activation_function="gelu_new",
                      bos_token_id=0, eos_token_id=0)


def neox_config(**overrides):
    settings = dict(vocab_size=72, hidden_size=64, intermediate_size=128, num_hidden_layers=3,
                    num_attention_heads=4, max_position_embeddings=32, layer_norm_eps=1e-5,
                    rotary_pct=0.25, rotary_emb_base=10000, hidden_act="gelu",
                    use_parallel_residual=True, tie_word_embeddings=False,
                    bos_token_id=0, eos_token_id=2)
    settings.update(overrides)
    return GPTNeoXConfig(**settings)


def gemma3_config(**overrides):
    # head_dim 16 is not hidden/heads (8), and query_pre_attn_scalar 12 is not head_dim, so
    # neither can be derived; a window of 4 over 13 tokens really cuts the sliding layers.
    settings = dict(vocab_size=96, hidden_size=32, intermediate_size=56, num_hidden_layers=5,
                    num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                    query_pre_attn_scalar=12, sliding_window=4, max_position_embeddings=128,
                    layer_types=["sliding_attention", "sliding_attention", "full_attention",
                                 "sliding_attention", "full_attention"],
                    rms_norm_eps=1e-6, hidden_activation="gelu_pytorch_tanh",
                    tie_word_embeddings=True, bos_token_id=2, eos_token_id=1, pad_token_id=0)
    settings.update(overrides)
    return Gemma3TextConfig(**settings)


def cases():
    llama3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
              "high_freq_factor": 4.0, "original_max_position_embeddings": 64}
    return [
        ("llama_gqa_llama3_tied", LlamaForCausalLM,
         llama_like(LlamaConfig, tie_word_embeddings=True, rope_scaling=llama3,
                    eos_token_id=[2, 3]), DEFAULT_STORAGES, []),
        # Older Llama checkpoints: rope_scaling {"type": "linear"} and rope_theta at the top.
        ("llama_linear_biases_legacy_config", LlamaForCausalLM,
         llama_like(LlamaConfig, num_key_value_heads=4, head_dim=8, rms_norm_eps=1e-6,
                    rope_scaling={"type": "linear", "factor": 2.0}, rope_theta=5000.0,
                    attention_bias=True, mlp_bias=True), DEFAULT_STORAGES, [legacy_llama_config]),
        ("qwen2_bias", Qwen2ForCausalLM,
         llama_like(Qwen2Config, tie_word_embeddings=True, rope_theta=1e6, rms_norm_eps=1e-6),
         DEFAULT_STORAGES, []),
        ("qwen3_qk_norm", Qwen3ForCausalLM,
         llama_like(Qwen3Config, head_dim=16, attention_bias=False, rope_theta=1e6),
         DEFAULT_STORAGES + ["float16"], []),
        # GPT-2 as GPT2LMHeadModel saves it ("transformer." names), plus the causal-mask buffers
        # older checkpoints carry (HF ignores them; so must Strata).
        ("gpt2_prefixed", GPT2LMHeadModel, gpt2_config(), DEFAULT_STORAGES, [add_gpt2_buffers]),
        # The original openai-community/gpt2 layout: bare names ("h.0.attn...") under a
        # GPT2LMHeadModel config.
        ("gpt2_bare", GPT2LMHeadModel, gpt2_config(), DEFAULT_STORAGES + ["float16"],
         [strip_transformer_prefix]),
        # As transformers 5 writes it: rope_parameters {partial_rotary_factor, rope_theta}.
        ("neox_parallel", GPTNeoXForCausalLM, neox_config(), DEFAULT_STORAGES, []),
        # As Pythia's checkpoints are: rotary_pct / rotary_emb_base, and the old buffers.
        ("neox_sequential_legacy", GPTNeoXForCausalLM,
         neox_config(use_parallel_residual=False, rotary_pct=0.5, rotary_emb_base=500),
         DEFAULT_STORAGES, [legacy_neox_config, add_neox_buffers]),
        # Gemma-3 as transformers 5 writes it: layer_types, rope_parameters per layer type
        # (local base 1e4, global 1e6), √d-scaled embeddings, (1 + w) norms around attention
        # and MLP, q/k norms, GQA, query_pre_attn_scalar, tied head.
        ("gemma3_sliding_gqa_tied", Gemma3ForCausalLM, gemma3_config(), DEFAULT_STORAGES, []),
        # As the Gemma-3 checkpoints on the Hub are (transformers 4.5x): rope_theta,
        # rope_local_base_freq, rope_scaling {"rope_type": "linear"} for the global layers only,
        # and no layer_types but sliding_window_pattern; and every optional feature at once:
        # final logit softcapping, q/k/v/o biases, one key/value head, an LM head of its own.
        # attn_logit_softcapping is set too: Gemma3Attention (5.25) keeps it but never passes
        # it to the attention function, so it changes nothing, in transformers or in Strata.
        ("gemma3_softcap_legacy_config", Gemma3ForCausalLM,
         gemma3_config(num_hidden_layers=4, num_key_value_heads=1, sliding_window=3,
                       layer_types=None, sliding_window_pattern=2, attention_bias=True,
                       attn_logit_softcapping=4.0, final_logit_softcapping=5.0,
                       tie_word_embeddings=False,
                       rope_parameters={"full_attention": {"rope_type": "linear", "factor": 8.0,
                                                           "rope_theta": 5e5},
                                        "sliding_attention": {"rope_type": "default",
                                                              "rope_theta": 100.0}}),
         DEFAULT_STORAGES, [legacy_gemma3_config]),
    ]


# --------------------------------------------------------------------------------------------
# Random weights that exercise every parameter (see the module comment)


def randomise(model):
    with torch.no_grad():
        for module_name, module in model.named_modules():
            for name, param in module.named_parameters(recurse=False):
                full = f"{module_name}.{name}"
                if isinstance(module, torch.nn.Embedding):
                    param.normal_(0.0, 0.02)
                elif param.dim() == 1 and ("norm" in full or ".ln_" in full or "ln_f" in full):
                    param.copy_(1.0 + 0.1 * torch.randn_like(param))
                elif param.dim() == 1:
                    param.copy_(0.1 * torch.randn_like(param))
                elif isinstance(module, Conv1D):  # GPT-2 stores [in, out]
                    param.normal_(0.0, 1.0 / math.sqrt(param.shape[0]))
                else:
                    param.normal_(0.0, 1.0 / math.sqrt(param.shape[1]))


# --------------------------------------------------------------------------------------------
# Edits of a saved folder into older layouts that real checkpoints still have


def shard_files(folder):
    return sorted(f for f in os.listdir(folder) if f.endswith(".safetensors"))


def rewrite_tensors(folder, edit):
    """edit(tensors, first_file) -> tensors, for every shard; keeps the index in step."""
    weight_map = {}
    for index, file in enumerate(shard_files(folder)):
        path = os.path.join(folder, file)
        with safe_open(path, "pt") as f:
            tensors = {k: f.get_tensor(k) for k in f.keys()}
        tensors = edit(tensors, index == 0)
        save_file(tensors, path, metadata={"format": "pt"})
        weight_map.update({k: file for k in tensors})
    index_path = os.path.join(folder, "model.safetensors.index.json")
    if os.path.exists(index_path):
        with open(index_path) as f:
            index = json.load(f)
        index["weight_map"] = dict(sorted(weight_map.items()))
        with open(index_path, "w") as f:
            json.dump(index, f, indent=2)


def rewrite_config(folder, edit):
    path = os.path.join(folder, "config.json")
    with open(path) as f:
        config = json.load(f)
    edit(config)
    with open(path, "w") as f:
        json.dump(config, f, indent=2)


def legacy_llama_config(folder, config):
    def edit(c):
        rope = c.pop("rope_parameters")
        c["rope_theta"] = rope.pop("rope_theta")
        rope["type"] = rope.pop("rope_type")
        c["rope_scaling"] = rope
        c["torch_dtype"] = c.pop("dtype")
    rewrite_config(folder, edit)


def legacy_neox_config(folder, config):
    def edit(c):
        rope = c.pop("rope_parameters")
        c["rotary_pct"] = rope["partial_rotary_factor"]
        c["rotary_emb_base"] = rope["rope_theta"]
        c["torch_dtype"] = c.pop("dtype")
    rewrite_config(folder, edit)


def legacy_gemma3_config(folder, config):
    def edit(c):
        rope = c.pop("rope_parameters")
        full, local = rope["full_attention"], rope["sliding_attention"]
        c["rope_theta"] = full.pop("rope_theta")
        c["rope_local_base_freq"] = local["rope_theta"]
        c["rope_scaling"] = full if full["rope_type"] != "default" else None
        layer_types = c.pop("layer_types")
        c.pop("_sliding_window_pattern", None)
        # Older configs give the pattern instead: every n-th layer global.
        pattern = layer_types.index("full_attention") + 1
        if layer_types != ["full_attention" if (i + 1) % pattern == 0 else "sliding_attention"
                           for i in range(len(layer_types))]:
            raise RuntimeError(f"{folder}: layer_types {layer_types} follow no pattern")
        c["sliding_window_pattern"] = pattern
        c["torch_dtype"] = c.pop("dtype")
    rewrite_config(folder, edit)


def strip_transformer_prefix(folder, config):
    rewrite_tensors(folder, lambda tensors, first: {
        k.removeprefix("transformer."): v for k, v in tensors.items()})


def add_gpt2_buffers(folder, config):
    n = config.n_positions

    def edit(tensors, first):
        if first:
            for layer in range(config.n_layer):
                tensors[f"transformer.h.{layer}.attn.bias"] = torch.ones(
                    n, n, dtype=torch.bool).tril()[None, None].contiguous()
                tensors[f"transformer.h.{layer}.attn.masked_bias"] = torch.tensor(-1e4)
        return tensors
    rewrite_tensors(folder, edit)


def add_neox_buffers(folder, config):
    n = config.max_position_embeddings
    rotary = int(config.hidden_size // config.num_attention_heads * 0.5)

    def edit(tensors, first):
        if first:
            for layer in range(config.num_hidden_layers):
                p = f"gpt_neox.layers.{layer}.attention."
                tensors[p + "bias"] = torch.ones(n, n, dtype=torch.bool).tril()[None, None].contiguous()
                tensors[p + "masked_bias"] = torch.tensor(-1e9)
                tensors[p + "rotary_emb.inv_freq"] = 1.0 / (
                    500 ** (torch.arange(0, rotary, 2).float() / rotary))
        return tensors
    rewrite_tensors(folder, edit)


# --------------------------------------------------------------------------------------------
# Saving and running transformers


def save(model, folder, storage):
    stored = copy.deepcopy(model).to(STORAGE_DTYPES[storage])
    if storage == "sharded":
        total = sum(p.numel() * p.element_size() for p in model.parameters())
        stored.save_pretrained(folder, max_shard_size=total // 3)
        if not os.path.exists(os.path.join(folder, "model.safetensors.index.json")):
            raise RuntimeError(f"{folder}: save_pretrained wrote no shard index")
    else:
        stored.save_pretrained(folder)


def decoder_layers(model):
    base = model.base_model
    return base.layers if hasattr(base, "layers") else base.h


def run_transformers(model_class, folder, device):
    """h_0..h_L (L before the final norm), the final norm and the logits, from the folder."""
    model, info = model_class.from_pretrained(folder, dtype=torch.float32,
                                              attn_implementation="eager",
                                              output_loading_info=True)
    model.to(device)
    if info["missing_keys"] or info["mismatched_keys"]:
        raise RuntimeError(f"{folder}: transformers did not load every weight: {info}")
    model.eval()
    layers = decoder_layers(model)
    outputs = [None] * len(layers)
    hooks = [layer.register_forward_hook(
        lambda module, args, out, i=i: outputs.__setitem__(i, out[0] if isinstance(out, tuple) else out))
        for i, layer in enumerate(layers)]
    with torch.no_grad():
        result = model(IDS.to(device), output_hidden_states=True, use_cache=False)
    for hook in hooks:
        hook.remove()
    hf_hidden = result.hidden_states
    # HF's hidden_states: the embeddings, the outputs of layers 0..L-2, then the FINAL NORM's
    # output in place of layer L-1's. Check that convention rather than trust it.
    if len(hf_hidden) != len(layers) + 1:
        raise RuntimeError(f"{folder}: {len(hf_hidden)} hidden states for {len(layers)} layers")
    for i in range(len(layers) - 1):
        if not torch.equal(hf_hidden[i + 1], outputs[i]):
            raise RuntimeError(f"{folder}: hidden_states[{i + 1}] is not layer {i}'s output")
    final_norm = hf_hidden[-1]
    if torch.equal(final_norm, outputs[-1]):
        raise RuntimeError(f"{folder}: the last hidden state is not after the final norm")
    return [h.cpu() for h in [hf_hidden[0]] + outputs], final_norm.cpu(), result.logits.cpu()


def write_case(root, name, model_class, config, storages, edits, device):
    model = model_class(config)
    randomise(model)
    for storage in storages:
        folder = os.path.join(root, name, storage)
        save(model, folder, storage)
        for edit in edits:
            edit(folder, config)
        hidden, final_norm, logits = run_transformers(model_class, folder, device)
        expected = {"ids": IDS}
        for layer, h in enumerate(hidden):
            expected[f"hidden.{layer}"] = h.float().contiguous()
        expected["final_norm"] = final_norm.float().contiguous()
        expected["logits"] = logits.float().contiguous()
        save_file(expected, os.path.join(folder, "expected.safetensors"))


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: hf_model_reference.py [--device cuda] OUTPUT_FOLDER [CASE ...]")
    args = sys.argv[1:]
    device = "cpu"
    if args[0] == "--device":
        device, args = args[1], args[2:]
        if device == "cuda" and not torch.cuda.is_available():
            sys.exit("hf_model_reference.py: --device cuda, but this torch sees no CUDA device")
    root, wanted = args[0], args[1:]
    known = [case[0] for case in cases()]
    unknown = [name for name in wanted if name not in known]
    if unknown:
        sys.exit(f"unknown case(s) {unknown}; known: {known}")
    written = {}
    for seed, (name, model_class, config, storages, edits) in enumerate(cases()):
        if wanted and name not in wanted:
            continue
        torch.manual_seed(1234 + seed)  # one seed per case: a case's weights never depend on others
        write_case(root, name, model_class, config, storages, edits, device)
        written[name] = storages
    with open(os.path.join(root, "cases.json"), "w") as out:
        json.dump({"transformers": transformers.__version__, "device": device, "known": known,
                   "cases": written},
                  out, indent=2)


if __name__ == "__main__":
    main()
