"""Tiny valid GGUF files (llama.cpp's format) for fuzz_gguf's seed corpus, written with struct
alone (no gguf package), so that the seeds can be made wherever python3 runs.

Each model is small but complete: the metadata a real file has (architecture hyper-parameters,
a gpt2 or llama tokenizer) and every tensor, in several ggml types with random payloads.
"""
import os
import random
import struct

ALIGN = 32
# ggml type id: (block size, bytes per block)
TYPES = {"F32": (0, 1, 4), "F16": (1, 1, 2), "Q4_0": (2, 32, 18), "Q4_1": (3, 32, 20),
         "Q5_0": (6, 32, 22), "Q5_1": (7, 32, 24), "Q8_0": (8, 32, 34), "Q2_K": (10, 256, 84),
         "Q3_K": (11, 256, 110), "Q4_K": (12, 256, 144), "Q5_K": (13, 256, 176),
         "Q6_K": (14, 256, 210), "BF16": (30, 1, 2)}

U8, I8, U16, I16, U32, I32, F32, BOOL, STR, ARR, U64, I64, F64 = range(13)
FORMAT = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32: "<f",
          BOOL: "<?", U64: "<Q", I64: "<q", F64: "<d"}


def string(text):
    raw = text.encode("utf-8")
    return struct.pack("<Q", len(raw)) + raw


def value(kind, v):
    if kind == STR:
        return string(v)
    if kind == ARR:
        element, items = v
        return struct.pack("<IQ", element, len(items)) + b"".join(value(element, i) for i in items)
    return struct.pack(FORMAT[kind], v)


def payload(rng, type_name, elements):
    """Random bytes of a tensor, with finite f16 scales where the type has them."""
    _, block, size = TYPES[type_name]
    if type_name == "F32":
        return struct.pack("<%df" % elements, *[rng.uniform(-1, 1) for _ in range(elements)])
    data = bytearray(rng.getrandbits(8) for _ in range(elements // block * size))
    if type_name in ("F16", "BF16"):
        for i in range(0, len(data), 2):
            data[i + 1] &= 0x3F  # keep values finite
    return bytes(data)


def gguf(metadata, tensors, version=3):
    """metadata: [(key, kind, value)]; tensors: [(name, dims innermost first, type, bytes)]."""
    out = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(metadata))
    for key, kind, v in metadata:
        out += string(key) + struct.pack("<I", kind) + value(kind, v)
    offset, blobs = 0, []
    for name, dims, type_name, data in tensors:
        out += string(name) + struct.pack("<I", len(dims)) + struct.pack("<%dQ" % len(dims), *dims)
        out += struct.pack("<IQ", TYPES[type_name][0], offset)
        blobs.append(data + b"\0" * (-len(data) % ALIGN))
        offset += len(blobs[-1])
    out += b"\0" * (-len(out) % ALIGN)
    return out + b"".join(blobs)


def gpt2_tokenizer(vocab):
    tokens = ["<unk>", "<s>", "</s>"] + ["Ġ", "a", "b", "ab", "Ġab"][: vocab - 3]
    return [("tokenizer.ggml.model", STR, "gpt2"), ("tokenizer.ggml.pre", STR, "smollm"),
            ("tokenizer.ggml.tokens", ARR, (STR, tokens)),
            ("tokenizer.ggml.token_type", ARR, (I32, [3, 3, 3] + [1] * (len(tokens) - 3))),
            ("tokenizer.ggml.merges", ARR, (STR, ["a b", "Ġ ab"])),
            ("tokenizer.ggml.bos_token_id", U32, 1), ("tokenizer.ggml.eos_token_id", U32, 2),
            ("tokenizer.ggml.add_bos_token", BOOL, False)]


def llama_tokenizer(vocab):
    tokens = ["<pad>", "<eos>", "<bos>", "<unk>"] + ["▁", "a", "b", "▁ab"][: vocab - 4]
    return [("tokenizer.ggml.model", STR, "llama"), ("tokenizer.ggml.pre", STR, "default"),
            ("tokenizer.ggml.tokens", ARR, (STR, tokens)),
            ("tokenizer.ggml.scores", ARR, (F32, [0.0] * 4 + [-1.0 - i for i in range(len(tokens) - 4)])),
            ("tokenizer.ggml.token_type", ARR, (I32, [3, 3, 3, 2] + [1] * (len(tokens) - 4))),
            ("tokenizer.ggml.bos_token_id", U32, 2), ("tokenizer.ggml.eos_token_id", U32, 1),
            ("tokenizer.ggml.unknown_token_id", U32, 3), ("tokenizer.ggml.add_bos_token", BOOL, True)]


def model(arch, types, seed, width=64, heads=2, kv=1, ffn=64, layers=1, vocab=8,
          head_dim=None, version=3):
    rng = random.Random(seed)
    head_dim = head_dim or width // heads
    meta = [("general.architecture", STR, arch), ("general.name", STR, "tiny " + arch),
            ("general.alignment", U32, ALIGN),
            (arch + ".block_count", U32, layers), (arch + ".context_length", U32, 64),
            (arch + ".embedding_length", U32, width), (arch + ".feed_forward_length", U32, ffn),
            (arch + ".attention.head_count", U32, heads),
            (arch + ".attention.head_count_kv", U32, kv),
            (arch + ".attention.layer_norm_rms_epsilon", F32, 1e-6),
            (arch + ".rope.freq_base", F32, 10000.0)]
    if arch == "gemma3":
        meta += [("gemma3.attention.key_length", U32, head_dim),
                 ("gemma3.attention.value_length", U32, head_dim),
                 ("gemma3.attention.sliding_window", U32, 16)]
    meta += llama_tokenizer(vocab) if arch == "gemma3" else gpt2_tokenizer(vocab)
    q, k = heads * head_dim, kv * head_dim
    shapes = {"attn_q.weight": [width, q], "attn_k.weight": [width, k],
              "attn_v.weight": [width, k], "attn_output.weight": [q, width],
              "ffn_gate.weight": [width, ffn], "ffn_up.weight": [width, ffn],
              "ffn_down.weight": [ffn, width], "attn_norm.weight": [width],
              "ffn_norm.weight": [width]}
    if arch == "qwen2":
        shapes.update({"attn_q.bias": [q], "attn_k.bias": [k], "attn_v.bias": [k]})
    if arch == "gemma3":
        shapes.update({"attn_q_norm.weight": [head_dim], "attn_k_norm.weight": [head_dim],
                       "post_attention_norm.weight": [width], "post_ffw_norm.weight": [width]})
    tensors = [("token_embd.weight", [width, vocab], types[0], None)]
    for layer in range(layers):
        for i, (name, dims) in enumerate(shapes.items()):
            matrix = len(dims) == 2
            tensors.append(("blk.%d.%s" % (layer, name), dims,
                            types[(i + layer) % len(types)] if matrix else "F32", None))
    tensors.append(("output_norm.weight", [width], "F32", None))
    filled = []
    for name, dims, type_name, _ in tensors:
        elements = 1
        for d in dims:
            elements *= d
        filled.append((name, dims, type_name, payload(rng, type_name, elements)))
    return gguf(meta, filled, version)


def every_value_type():
    meta = [("u8", U8, 7), ("i8", I8, -7), ("u16", U16, 65535), ("i16", I16, -300),
            ("u32", U32, 1 << 31), ("i32", I32, -5), ("f32", F32, 0.5), ("bool", BOOL, True),
            ("str", STR, "héllo"), ("u64", U64, 1 << 40), ("i64", I64, -(1 << 40)),
            ("f64", F64, 2.25), ("arr.i32", ARR, (I32, [1, 2, 3])),
            ("arr.str", ARR, (STR, ["a", "", "ü"])), ("arr.nested", ARR, (ARR, [(U8, [1]), (U8, [])])),
            ("general.alignment", U32, 64)]
    return gguf(meta, [("t", [4], "F32", struct.pack("<4f", 1, 2, 3, 4))], version=2)


def write_seeds(folder):
    os.makedirs(folder, exist_ok=True)
    seeds = {
        # K-quants need rows of 256: the one large seed (~200 KB).
        "llama-k-quants.gguf": model("llama", ["Q4_K", "Q6_K", "Q2_K", "Q3_K", "Q5_K"], 2,
                                     width=256, heads=1, ffn=256, vocab=4),
        "llama-q4_1-q8_0.gguf": model("llama", ["Q8_0", "Q4_1"], 1),
        "llama-v2-legacy.gguf": model("llama", ["Q4_0", "Q5_0", "Q5_1", "F16"], 3, version=2),
        "qwen2-bf16.gguf": model("qwen2", ["BF16", "F32"], 4),
        "gemma3.gguf": model("gemma3", ["Q8_0", "Q5_0"], 5, head_dim=32),
        "value-types.gguf": every_value_type(),
    }
    for name, data in seeds.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
