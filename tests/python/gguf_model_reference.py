#!/usr/bin/env python3
"""Hugging Face transformers loading a GGUF file, as the reference for Strata's GGUF import.

transformers reads GGUF itself (`from_pretrained(folder, gguf_file=name)`): it dequantises every
tensor with gguf-py, undoes llama.cpp's conversions and builds the config from the metadata.
This script loads the model that way in float32 with eager attention and writes
OUTPUT/expected.safetensors:

  ids          [1, T] int64   the first T tokens (transformers' tokenizer) of the text given
  hidden.<l>   [1, T, d]      l = 0..L: the embedding output, then each decoder layer's output
                              BEFORE the final norm (Strata's convention)
  final_norm   [1, T, d]
  prompt       [1, P] int64   "The capital of France is", as transformers tokenizes it
  greedy       [1, 32] int64  transformers' greedy continuation of the prompt

and OUTPUT/reference.json: {"transformers": version, "load_seconds": time of from_pretrained}.

Usage: gguf_model_reference.py GGUF_FILE TEXT_FILE OUTPUT_FOLDER [TOKENS]
"""

import json
import os
import sys
import time

import torch
from safetensors.torch import save_file

import transformers
from transformers import AutoModelForCausalLM, AutoTokenizer

transformers.logging.set_verbosity_error()
transformers.logging.disable_progress_bar()


def main():
    gguf_file, text_file, out = sys.argv[1], sys.argv[2], sys.argv[3]
    tokens = int(sys.argv[4]) if len(sys.argv) > 4 else 256
    folder, name = os.path.split(os.path.abspath(gguf_file))
    torch.manual_seed(0)
    start = time.perf_counter()
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32,
                                                 attn_implementation="eager")
    load_seconds = time.perf_counter() - start
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    model.eval()

    with open(text_file, encoding="utf-8") as f:
        text = f.read(200_000)
    ids = tokenizer(text, return_tensors="pt").input_ids[:, :tokens]
    if ids.shape[1] < tokens:
        raise RuntimeError(f"{text_file}: only {ids.shape[1]} tokens")

    layers = model.model.layers
    outputs = [None] * len(layers)
    hooks = [layer.register_forward_hook(
        lambda module, args, o, i=i: outputs.__setitem__(i, o[0] if isinstance(o, tuple) else o))
        for i, layer in enumerate(layers)]
    with torch.no_grad():
        result = model(ids, output_hidden_states=True, use_cache=False)
    for hook in hooks:
        hook.remove()
    expected = {"ids": ids.contiguous(), "hidden.0": result.hidden_states[0].contiguous(),
                "final_norm": result.hidden_states[-1].contiguous()}
    for i, h in enumerate(outputs):
        expected["hidden.%d" % (i + 1)] = h.contiguous()

    prompt = tokenizer("The capital of France is", return_tensors="pt").input_ids
    with torch.no_grad():
        generated = model.generate(prompt, max_new_tokens=32, do_sample=False, num_beams=1,
                                   min_new_tokens=32, eos_token_id=None, pad_token_id=0)
    expected["prompt"] = prompt.contiguous()
    expected["greedy"] = generated[:, prompt.shape[1]:].contiguous()

    os.makedirs(out, exist_ok=True)
    save_file(expected, os.path.join(out, "expected.safetensors"))
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump({"transformers": transformers.__version__, "load_seconds": load_seconds,
                   "greedy_text": tokenizer.decode(expected["greedy"][0])}, f)


if __name__ == "__main__":
    main()
