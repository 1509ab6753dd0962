#!/usr/bin/env python3
"""transformers' tokenizer built from a GGUF file, as the reference for Strata's
core/io/gguf/gguf_tokenizer (tests/core/io/gguf/gguf_tokenizer_test.cpp).

For each GGUF, loads AutoTokenizer.from_pretrained(folder, gguf_file=name) -- transformers' own
conversion of the file's tokenizer.ggml.* metadata -- and writes into OUTPUT_FOLDER/<name without
.gguf>/:
  tokenizer.json   the backend tokenizer transformers built (its exact definition)
  reference.json   {"transformers": version, "gguf": path, "class": tokenizer class,
                    "special": {"bos_token": ..., "eos_token", "unk_token", "pad_token",
                                "mask_token", "add_bos_token", "add_eos_token"},
                    "texts": [...], "kinds": ["case" | "line" | "document", ...],
                    "ids": what tokenizer(text) gives (special tokens added as it adds them),
                    "plain_ids": tokenizer(text, add_special_tokens=False),
                    "decoded": tokenizer.decode(ids),
                    "decoded_skipping_special": tokenizer.decode(ids, skip_special_tokens=True)}
The texts: hard cases (whitespace runs, tabs and newlines, digit runs, emoji and other astral
characters, CJK, code, control and special tokens written in the text, leading spaces, the empty
string), then, with --corpus FILE, every line of FILE (without its newline) and every document
(the text from one top-level " = Title = " heading to the next, newlines included).

Usage: gguf_tokenizer_reference.py OUTPUT_FOLDER GGUF... [--corpus FILE]
"""

import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_tokenizer_reference import HARD_CASES  # noqa: E402  (the shared Unicode cases)

# Besides the shared cases: what GGUF vocabularies hold specially. Gemma's file has user-defined
# tokens for runs of newlines and tabs and (respelled) for runs of up to 31 spaces; both files
# mark their chat tokens as control tokens, which must stay whole when written in the text.
GGUF_CASES = [
    " leading space", "  two leading spaces", "\tleading tab", "\nleading newline",
    " " * 31, " " * 32, " " * 70, "x" + " " * 31 + "y", "\n" * 31, "\n" * 40, "\t" * 31,
    "a\n\nb\n\n\nc", "para one.\n\npara two.\n", "\r\n\r\n", " \n \n", "\t \t \n",
    "12345678901234567890123456789012345678901234567890", "3.14 and 2,718,281 and 1e-10",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𓀀𓁐 🀄🃏 \U0001fae0 \U00020000\U0002a6d6", "漢字かなカナ한글 mixed 中文。",
    "for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}\n", "    indented = True\n        deeper()\n",
    "<|im_start|>user\nHello!<|im_end|>\n<|im_start|>assistant\n", "<|endoftext|><|endoftext|>",
    "<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n", "<bos><eos><pad><unk><mask>",
    "<bos>text after bos", "text<eos>", "[multimodal]", "<start_of_image>", "<unused0><unused99>",
    "<0x41> spelt as text", "\u2581 lower one eighth block \u2581\u2581", "Ġ and Ċ as text",
    "<repo_name>strata<file_sep>main.cpp", "<think>reasoning</think>",
]

HEADING = re.compile(r"^ = [^=].* = $")


def corpus_texts(file):
    with open(file, encoding="utf-8") as f:
        content = f.read()
    lines = content.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the file ends the last line; it starts no line
    documents, current = [], []
    for line in lines:
        if HEADING.match(line) and current:
            documents.append("\n".join(current) + "\n")
            current = []
        current.append(line)
    if current:
        documents.append("\n".join(current) + "\n")
    return lines, documents


def reference(gguf, output, texts, kinds):
    import transformers
    from transformers import AutoTokenizer

    gguf = os.path.abspath(gguf)
    tokenizer = AutoTokenizer.from_pretrained(os.path.dirname(gguf), gguf_file=os.path.basename(gguf))
    os.makedirs(output, exist_ok=True)
    tokenizer.backend_tokenizer.save(os.path.join(output, "tokenizer.json"))

    ids = [tokenizer(text)["input_ids"] for text in texts]
    plain = [tokenizer(text, add_special_tokens=False)["input_ids"] for text in texts]
    special = {name: getattr(tokenizer, name, None) for name in
               ("bos_token", "eos_token", "unk_token", "pad_token", "mask_token")}
    special.update(add_bos_token=tokenizer.add_bos_token, add_eos_token=tokenizer.add_eos_token)
    result = {
        "transformers": transformers.__version__,
        "gguf": gguf,
        "class": type(tokenizer).__name__,
        "special": {k: (str(v) if isinstance(v, transformers.AddedToken) else v) for k, v in special.items()},
        "texts": texts,
        "kinds": kinds,
        "ids": ids,
        "plain_ids": plain,
        "decoded": [tokenizer.decode(i) for i in ids],
        "decoded_skipping_special": [tokenizer.decode(i, skip_special_tokens=True) for i in ids],
    }
    with open(os.path.join(output, "reference.json"), "w", encoding="utf-8") as f:
        json.dump(result, f, ensure_ascii=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("output")
    parser.add_argument("gguf", nargs="+")
    parser.add_argument("--corpus")
    args = parser.parse_args()
    texts = list(HARD_CASES) + GGUF_CASES
    kinds = ["case"] * len(texts)
    if args.corpus:
        lines, documents = corpus_texts(args.corpus)
        texts += lines + documents
        kinds += ["line"] * len(lines) + ["document"] * len(documents)
    for gguf in args.gguf:
        name = os.path.basename(gguf)
        reference(gguf, os.path.join(args.output, name[:-5] if name.endswith(".gguf") else name), texts, kinds)


if __name__ == "__main__":
    main()
