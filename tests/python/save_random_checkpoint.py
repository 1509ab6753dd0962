#!/usr/bin/env python3
"""A tiny random-init checkpoint written by transformers itself, for verify's tests.

Usage: save_random_checkpoint.py OUTPUT_DIR ARCH TOKENIZER_DIR
  ARCH           llama | gpt2
  TOKENIZER_DIR  llama: a folder with tokenizer.json + tokenizer_config.json (Strata's default
                 model: 256 byte tokens, <|bos|> 256, <|eos|> 257); gpt2: a folder with GPT-2's
                 vocab.json + merges.txt (../shared/data/tokenizers/gpt2)

The model is saved with save_pretrained (safetensors, float32). The Llama tokenizer is saved by
transformers too (tokenizer.json as transformers writes it); GPT-2's vocab.json + merges.txt are
copied, as GPT-2 checkpoints ship them (transformers 5 would save an empty tokenizer.json for a
GPT2TokenizerFast built from files).
"""

import os
import shutil
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
from transformers import (  # noqa: E402
    AutoTokenizer, GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM)


def main():
    output, arch, tokenizer_dir = sys.argv[1:4]
    torch.manual_seed(1234)
    if arch == "llama":
        tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
        config = LlamaConfig(
            vocab_size=258, hidden_size=32, intermediate_size=64, num_hidden_layers=3,
            num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=256,
            rms_norm_eps=1e-5, rope_theta=10000.0, tie_word_embeddings=False,
            bos_token_id=256, eos_token_id=257)
        model = LlamaForCausalLM(config)
    elif arch == "gpt2":
        tokenizer = None
        config = GPT2Config(vocab_size=50257, n_embd=32, n_layer=2, n_head=4, n_positions=256)
        model = GPT2LMHeadModel(config)
    else:
        raise SystemExit(f"unknown architecture {arch}")
    # Random init draws weights with std 0.02: scale them up so that hidden states, not just the
    # residual stream's embedding, carry signal through every block.
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if parameter.dim() == 2:
                parameter.mul_(5.0)
    model.save_pretrained(output, safe_serialization=True)
    if tokenizer is not None:
        tokenizer.save_pretrained(output)
    else:
        for name in ("vocab.json", "merges.txt"):
            shutil.copy(os.path.join(tokenizer_dir, name), os.path.join(output, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
