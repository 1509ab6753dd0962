#!/usr/bin/env python3
"""The Hugging Face side of `strata-cli verify` (core/verify/, docs/verify.md).

Usage: verify_transformers.py MODEL_DIR PROMPTS_JSON OUTPUT_DIR [--bf16]

Loads MODEL_DIR with transformers (AutoTokenizer, AutoModelForCausalLM; float32, eager
attention, on the CPU), tokenizes every prompt of PROMPTS_JSON (a JSON list of strings) with
special tokens, as `tokenizer(text)` does, runs the model on each prompt alone and writes

  OUTPUT_DIR/reference.safetensors
    p<i>.ids          [T] int64       the ids HF's tokenizer produced for prompt i
    p<i>.hidden.<l>   [T, d] float32  h_0 (embedding output) ... h_L (last block's output,
                                      BEFORE the final norm: taken with a forward hook)
    p<i>.final_norm   [T, d] float32  the final norm's output (HF's hidden_states[L])
    p<i>.logits       [T, vocab] float32
  With --bf16 the model is then cast to bfloat16 and run again on the same ids, writing
    bf16.p<i>.hidden.<l>, bf16.p<i>.final_norm, bf16.p<i>.logits   (as float32)
  OUTPUT_DIR/reference.json
    {"transformers_version", "torch_version", "python", "architecture", "num_layers",
     "prompts", "bfloat16"}

Lines "progress <fraction> <stage>" on stdout report progress; errors go to stderr.
Exit codes: 0 done; 3 torch, transformers or safetensors cannot be imported; 4 transformers
cannot load the model folder; anything else is an unexpected failure.
"""

import json
import os
import sys

# A local folder never needs the Hub; without this transformers may try to reach it.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")

EXIT_MISSING_MODULE = 3
EXIT_LOAD_FAILED = 4


def progress(fraction, stage):
    print(f"progress {fraction:.4f} {stage}", flush=True)


try:
    import torch
    import transformers
    from safetensors.torch import save_file
    from transformers import AutoModelForCausalLM, AutoTokenizer
except ImportError as error:
    print(f"cannot import {error.name or error}: {error}", file=sys.stderr)
    sys.exit(EXIT_MISSING_MODULE)


def decoder_layers(model):
    """The list of decoder blocks (Llama/Qwen `layers`, GPT-2 `h`, NeoX `layers`)."""
    base = model.base_model
    for name in ("layers", "h", "blocks"):
        layers = getattr(base, name, None)
        if isinstance(layers, torch.nn.ModuleList):
            return layers
    raise RuntimeError(f"cannot find the decoder layers of {type(model).__name__}")


def gguf_in_place(model_dir):
    """The GGUF file a Strata model folder reads its weights from in place, or None."""
    record = os.path.join(model_dir, "strata_gguf_source.json")
    if not os.path.isfile(record) or os.path.exists(os.path.join(model_dir, "model.safetensors")):
        return None
    with open(record, encoding="utf-8") as f:
        source = json.load(f)
    return source.get("gguf_file") if source.get("weights") == "in place" else None


def load(model_dir):
    # transformers 5 names the argument `dtype`; 4.x called it `torch_dtype`.
    major = int(transformers.__version__.split(".")[0])
    dtype_argument = "dtype" if major >= 5 else "torch_dtype"
    options = {"attn_implementation": "eager", dtype_argument: torch.float32}
    gguf = gguf_in_place(model_dir)
    if gguf:
        # Strata reads the .gguf in place; transformers reads the same file its own way
        # (config, tokenizer and weights from the GGUF), an independent reference.
        folder, name = os.path.split(gguf)
        tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
        model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, **options)
    else:
        tokenizer = AutoTokenizer.from_pretrained(model_dir)
        model = AutoModelForCausalLM.from_pretrained(model_dir, **options)
    model.eval()
    return tokenizer, model


def main():
    if len(sys.argv) not in (4, 5) or (len(sys.argv) == 5 and sys.argv[4] != "--bf16"):
        print(__doc__, file=sys.stderr)
        return 2
    model_dir, prompts_file, output_dir = sys.argv[1:4]
    bfloat16 = len(sys.argv) == 5
    with open(prompts_file, encoding="utf-8") as f:
        prompts = json.load(f)

    progress(0.05, "loading the model with transformers")
    try:
        tokenizer, model = load(model_dir)
    except Exception as error:  # noqa: BLE001 - any failure to load is reported the same way
        print(f"transformers cannot load {model_dir}: {type(error).__name__}: {error}",
              file=sys.stderr)
        return EXIT_LOAD_FAILED

    layers = decoder_layers(model)
    num_layers = len(layers)
    last_block = {}

    def keep_last_block_output(_module, _inputs, output):
        # Decoder layers return a tensor (transformers 5) or a tuple whose first item it is.
        last_block["h"] = output[0] if isinstance(output, (tuple, list)) else output

    layers[-1].register_forward_hook(keep_last_block_output)

    def run(prefix, ids, start, share):
        """Runs every prompt's ids, writing its tensors under `prefix`."""
        with torch.no_grad():
            for i, input_ids in enumerate(ids):
                progress(start + share * i / len(ids),
                         f"transformers{prefix and ' bf16'}: prompt {i + 1} of {len(ids)}")
                out = model(input_ids=input_ids, output_hidden_states=True, use_cache=False)
                hidden = out.hidden_states
                if len(hidden) != num_layers + 1:
                    raise RuntimeError(
                        f"expected {num_layers + 1} hidden states, got {len(hidden)}")
                for layer in range(num_layers):  # h_0 ... h_{L-1}: HF's raw block outputs
                    tensors[f"{prefix}p{i}.hidden.{layer}"] = hidden[layer][0].float().clone()
                tensors[f"{prefix}p{i}.hidden.{num_layers}"] = last_block["h"][0].float().clone()
                tensors[f"{prefix}p{i}.final_norm"] = hidden[num_layers][0].float().clone()
                tensors[f"{prefix}p{i}.logits"] = out.logits[0].float().clone()

    tensors = {}
    ids = []
    for i, text in enumerate(prompts):
        input_ids = torch.tensor([tokenizer(text, add_special_tokens=True)["input_ids"]],
                                 dtype=torch.long)
        tensors[f"p{i}.ids"] = input_ids[0].clone()
        ids.append(input_ids)
    run("", ids, 0.3, 0.6 if not bfloat16 else 0.3)
    if bfloat16:
        # transformers' own bf16 path: weights cast, RMSNorm statistics in float32 as its
        # modules do; what Strata's --compute-dtype bf16 is compared with.
        model.to(torch.bfloat16)
        run("bf16.", ids, 0.6, 0.3)

    progress(0.95, "writing the reference")
    save_file(tensors, os.path.join(output_dir, "reference.safetensors"))
    info = {
        "transformers_version": transformers.__version__,
        "torch_version": torch.__version__,
        "python": sys.executable,
        "architecture": type(model).__name__,
        "num_layers": num_layers,
        "prompts": len(prompts),
        "bfloat16": bfloat16,
    }
    with open(os.path.join(output_dir, "reference.json"), "w", encoding="utf-8") as f:
        json.dump(info, f, indent=1)
    progress(1.0, "transformers done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
