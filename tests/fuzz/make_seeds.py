#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (all tiny, valid files) into <out>/<target>/.

fuzz_activation_store's seeds come from make_store_seeds (the real writer), not from here.
Usage: make_seeds.py <output folder>
"""
import json
import os
import struct
import sys

import gguf_seeds


def write(folder, name, data):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))


def safetensors(tensors, metadata=None):
    """tensors: [(name, dtype, shape, bytes)] laid out back to back."""
    header, data = {}, b""
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape, payload in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + len(payload)]}
        data += payload
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def safetensors_seeds(out):
    f32 = lambda *v: struct.pack("<%df" % len(v), *v)
    write(out, "two-f32.safetensors", safetensors(
        [("a", "F32", [2, 2], f32(1, 2, 3, 4)), ("b", "F32", [3], f32(5, 6, 7))], {"format": "pt"}))
    write(out, "mixed.safetensors", safetensors(
        [("scalar", "F64", [], struct.pack("<d", 1.5)), ("h", "F16", [2], b"\x00\x3c\x00\x7c"),
         ("bf", "BF16", [1, 2], b"\x80\x3f\xc0\x7f"), ("i", "I64", [1], struct.pack("<q", -3)),
         ("empty", "U8", [0, 4], b""), ("flag", "BOOL", [2], b"\x01\x00")]))
    write(out, "no-tensors.safetensors", safetensors([], {"format": "pt"}))


def config_seeds(out):
    base = {"vocab_size": 32, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 4,
            "intermediate_size": 32, "max_position_embeddings": 64}
    llama = dict(base, architectures=["LlamaForCausalLM"], model_type="llama",
                 num_key_value_heads=2, rms_norm_eps=1e-5, rope_theta=500000.0, head_dim=4,
                 hidden_act="silu", tie_word_embeddings=True, bos_token_id=1,
                 eos_token_id=[2, 3], torch_dtype="bfloat16",
                 rope_scaling={"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                               "high_freq_factor": 4.0,
                               "original_max_position_embeddings": 8192})
    qwen2 = dict(base, architectures=["Qwen2ForCausalLM"], model_type="qwen2",
                 num_key_value_heads=2, rms_norm_eps=1e-6, rope_theta=1000000.0,
                 hidden_act="silu", tie_word_embeddings=True)
    qwen3 = dict(qwen2, architectures=["Qwen3ForCausalLM"], model_type="qwen3", head_dim=8,
                 rope_parameters={"rope_theta": 1000000.0, "rope_type": "default"})
    gpt2 = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "vocab_size": 32,
            "n_embd": 16, "n_layer": 2, "n_head": 4, "n_positions": 64,
            "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}
    neox = dict(base, architectures=["GPTNeoXForCausalLM"], model_type="gpt_neox",
                layer_norm_eps=1e-5, rotary_pct=0.25, rotary_emb_base=10000,
                use_parallel_residual=True, hidden_act="gelu", tie_word_embeddings=False)
    for name, config in [("llama", llama), ("qwen2", qwen2), ("qwen3", qwen3), ("gpt2", gpt2),
                         ("neox", neox)]:
        write(out, name + ".json", json.dumps(config, indent=1))


def bytes_to_unicode():
    keep = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def tokenizer_seeds(out):
    b2u = bytes_to_unicode()
    vocab = {b2u[b]: b for b in range(256)}
    merges = [("h", "e"), ("l", "l"), ("he", "ll"), ("hell", "o"), ("\u0120", "w"), ("o", "r")]
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    vocab["<|endoftext|>"] = len(vocab)
    added = [{"id": vocab["<|endoftext|>"], "content": "<|endoftext|>", "single_word": False,
              "lstrip": False, "rstrip": False, "normalized": False, "special": True}]
    gpt2 = {"version": "1.0", "added_tokens": added, "normalizer": None,
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False,
                              "trim_offsets": True, "use_regex": True},
            "post_processor": {"type": "ByteLevel", "trim_offsets": False},
            "decoder": {"type": "ByteLevel"},
            "model": {"type": "BPE", "vocab": vocab, "merges": [a + " " + b for a, b in merges]}}
    write(out, "gpt2-style.json", json.dumps(gpt2))
    llama3_regex = ("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?"
                    "[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")
    vocab3 = dict(vocab)
    del vocab3["<|endoftext|>"]
    bot = len(vocab3)
    llama3 = {"added_tokens": [{"id": bot, "content": "<|begin_of_text|>", "special": True,
                                "normalized": False}],
              "normalizer": None,
              "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
                  {"type": "Split", "pattern": {"Regex": llama3_regex}, "behavior": "Isolated",
                   "invert": False},
                  {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                   "use_regex": False}]},
              "post_processor": {"type": "TemplateProcessing",
                                 "single": [{"SpecialToken": {"id": "<|begin_of_text|>",
                                                              "type_id": 0}},
                                            {"Sequence": {"id": "A", "type_id": 0}}],
                                 "special_tokens": {"<|begin_of_text|>": {
                                     "id": "<|begin_of_text|>", "ids": [bot],
                                     "tokens": ["<|begin_of_text|>"]}}},
              "decoder": {"type": "ByteLevel"},
              "model": {"type": "BPE", "ignore_merges": True, "vocab": vocab3,
                        "merges": [[a, b] for a, b in merges]}}
    write(out, "llama3-style.json", json.dumps(llama3))
    qwen = json.loads(json.dumps(llama3))
    qwen["normalizer"] = {"type": "NFC"}
    write(out, "qwen-style.json", json.dumps(qwen))
    sp = {"<unk>": 0, "<s>": 1, "</s>": 2}
    for b in range(256):
        sp["<0x%02X>" % b] = 3 + b
    for piece in ["\u2581", "h", "e", "l", "o", "\u2581h", "\u2581he", "ll", "\u2581hell",
                  "\u2581hello"]:
        sp[piece] = len(sp)
    llama2 = {"added_tokens": [{"id": i, "content": t, "special": True, "normalized": False}
                               for i, t in enumerate(["<unk>", "<s>", "</s>"])],
              "normalizer": {"type": "Sequence", "normalizers": [
                  {"type": "Prepend", "prepend": "\u2581"},
                  {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]},
              "pre_tokenizer": None,
              "decoder": {"type": "Sequence", "decoders": [
                  {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
                  {"type": "ByteFallback"}, {"type": "Fuse"},
                  {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
              "model": {"type": "BPE", "unk_token": "<unk>", "byte_fallback": True,
                        "fuse_unk": True, "vocab": sp,
                        "merges": ["\u2581 h", "\u2581h e", "l l", "\u2581he ll",
                                   "\u2581hell o"]}}
    write(out, "llama2-style.json", json.dumps(llama2))


def encode_seeds(out):
    # Byte 0 picks the tokenizer, byte 1 the options (see fuzz_tokenizer_encode.cpp).
    texts = ["Hello world!", "caf\u00e9 na\u00efve \u65e5\u672c\u8a9e 12345",
             "  spaces\n\nand\ttabs  ", "<|endoftext|>it's<|begin_of_text|> <s>x</s>",
             "emoji \U0001F600 and \u0301 combining"]
    for t in range(3):
        for i, text in enumerate(texts):
            write(out, "t%d-%d" % (t, i), bytes([t, i % 4]) + text.encode("utf-8"))
    write(out, "invalid-utf8", bytes([1, 0]) + b"ab\xff\xc3(\xe2\x82 z")


def llama2c_checkpoint(version, dim=8, hidden=16, layers=1, heads=2, kv=1, vocab=6, seq=4,
                       shared=True, group=8):
    head = dim // heads
    kvdim = kv * head
    shapes_layers = [("wq", dim * dim), ("wk", kvdim * dim), ("wv", kvdim * dim),
                     ("wo", dim * dim), ("w1", hidden * dim), ("w2", dim * hidden),
                     ("w3", hidden * dim)]
    value = [0.0]

    def floats(n):
        out = []
        for _ in range(n):
            value[0] = (value[0] + 0.37) % 2.0 - 1.0
            out.append(value[0])
        return struct.pack("<%df" % n, *out)

    def q80(n):
        groups = n // group
        return bytes((i * 7) % 256 for i in range(n)) + struct.pack("<%df" % groups,
                                                                    *[0.01] * groups)
    if version == 0:
        v = vocab if shared else -vocab
        data = struct.pack("<7i", dim, hidden, layers, heads, kv, v, seq)
        data += floats(vocab * dim) + floats(layers * dim)
        for name, n in shapes_layers[:4]:
            data += floats(layers * n)
        data += floats(layers * dim)
        for name, n in shapes_layers[4:]:
            data += floats(layers * n)
        data += floats(dim) + floats(seq * head // 2) * 2
        if not shared:
            data += floats(vocab * dim)
        return data
    header = struct.pack("<Ii", 0x616B3432, version)
    header += struct.pack("<7i", dim, hidden, layers, heads, kv, vocab, seq)
    header += struct.pack("<B", 1 if shared else 0)
    if version == 2:
        header += struct.pack("<i", group)
    header += b"\0" * (256 - len(header))
    data = header + floats(layers * dim) + floats(layers * dim) + floats(dim)
    if version == 1:
        data += floats(vocab * dim)
        for name, n in shapes_layers:
            data += floats(layers * n)
        if not shared:
            data += floats(vocab * dim)
    else:
        data += q80(vocab * dim)
        for name, n in shapes_layers:
            for _ in range(layers):
                data += q80(n)
        if not shared:
            data += q80(vocab * dim)
    return data


def llama2c_tokenizer(pieces):
    data = struct.pack("<i", max(len(p) for p in pieces))
    for i, piece in enumerate(pieces):
        raw = piece.encode("utf-8")
        data += struct.pack("<fi", -float(i), len(raw)) + raw
    return data


def main():
    out = sys.argv[1]
    safetensors_seeds(os.path.join(out, "fuzz_safetensors"))
    config_seeds(os.path.join(out, "fuzz_hf_config"))
    tokenizer_seeds(os.path.join(out, "fuzz_tokenizer_json"))
    encode_seeds(os.path.join(out, "fuzz_tokenizer_encode"))
    folder = os.path.join(out, "fuzz_llama2c_checkpoint")
    write(folder, "v0-shared.bin", llama2c_checkpoint(0))
    write(folder, "v0-unshared.bin", llama2c_checkpoint(0, shared=False))
    write(folder, "v1.bin", llama2c_checkpoint(1, layers=2))
    write(folder, "v2-q80.bin", llama2c_checkpoint(2, shared=False))
    pieces = ["<unk>", "\n<s>\n", "\n</s>\n"] + ["<0x%02X>" % b for b in range(256)] + \
             [" ", "a", "e", "t", " t", "he", " the", "Once", " upon", " time"]
    write(os.path.join(out, "fuzz_llama2c_tokenizer"), "tokenizer.bin", llama2c_tokenizer(pieces))
    gguf_seeds.write_seeds(os.path.join(out, "fuzz_gguf"))


if __name__ == "__main__":
    main()
