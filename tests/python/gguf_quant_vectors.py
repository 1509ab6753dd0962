#!/usr/bin/env python3
"""gguf-py as the reference for Strata's GGUF dequantisation (core/io/gguf/gguf_dequantize.h).

For every ggml type Strata dequantises, writes raw block bytes and what
gguf.quants.dequantize(raw, type) gives for them, for the C++ test to match bit for bit:

  OUTPUT_FOLDER/<TYPE>.raw       the blocks, back to back
  OUTPUT_FOLDER/<TYPE>.f32       gguf-py's float32 result, little-endian
  OUTPUT_FOLDER/vectors.json     {"gguf": version, "numpy": version,
                                  "types": {TYPE: {"id": ggml id, "elements": n,
                                                   "quantised_by_gguf": bool}},
                                  "all_types": {TYPE: [id, block size, type size]}}
                                 (all_types: every GGMLQuantizationType, for the traits table)

The bytes come from two sources. Where gguf-py can quantise the type (gguf.quants.quantize:
Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, BF16, F16), it quantises float data of several shapes (normal,
heavy-tailed, tiny, huge, constant and all-zero blocks). For every quantised type, and the only
source for the K-quants (which gguf-py cannot quantise), come random payload bytes with chosen
f16 scales: positive and negative, normal and subnormal, zero, the largest finite half, and
blocks whose payload is all 0x00 or all 0xFF. Scales stay finite: a NaN's payload after a
product depends on operand order, which neither side promises. F16 and BF16 also get every one
of the 65536 bit patterns (NaNs included: the conversion keeps payloads), F32 a spread of
specials. Deterministic (fixed seed).

Usage: gguf_quant_vectors.py OUTPUT_FOLDER
"""

import json
import os
import sys

import numpy as np

import gguf
from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType as T
from gguf.quants import dequantize, quantize

# Keep in step with the `dequantizable` flags of core/io/gguf/gguf_types.cpp (the test checks).
TYPES = ["F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1",
         "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"]
QUANTISED_BY_GGUF = {"F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1"}

# Byte offsets of the f16 scales inside one block (ggml-common.h's block_* structs).
SCALE_OFFSETS = {
    "Q8_0": [0], "Q4_0": [0], "Q4_1": [0, 2], "Q5_0": [0], "Q5_1": [0, 2],
    "Q2_K": [80, 82], "Q3_K": [108], "Q4_K": [0, 2], "Q5_K": [0, 2], "Q6_K": [208],
}

rng = np.random.default_rng(20240917)


def float_rows(block_size):
    """Float data for gguf-py's quantiser: 12 rows of 8 blocks in varied shapes."""
    n = 8 * block_size
    rows = [
        rng.standard_normal(n),
        rng.standard_normal(n) * 1e-3,
        rng.standard_t(2, n) * 5,                  # heavy tails: one large value per block
        rng.uniform(-60000, 60000, n),             # near the largest half
        rng.standard_normal(n) * 1e-6,             # scales in the half's subnormal range
        rng.uniform(0, 1, n),                      # one-signed: the Q*_1 minimum matters
        -rng.uniform(1, 2, n),
        np.full(n, 0.75),                          # constant: d = 0 for the min/max types
        np.zeros(n),
        np.where(rng.uniform(size=n) < 0.9, 0.0, rng.standard_normal(n)),  # sparse
        rng.standard_normal(n) * np.repeat(10.0 ** rng.uniform(-4, 4, 8), block_size),
        np.linspace(-1, 1, n),
    ]
    return np.stack(rows).astype(np.float32)


def scale_halves(count):
    """`count` finite f16 scales as uint16: the edge cases first, then random normal ones."""
    edges = [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x83FF, 0x0400, 0x8400, 0x7BFF, 0xFBFF,
             0x3C00, 0xBC00, 0x3800, 0x2E66, 0x1400, 0x0200, 0x8123]
    randoms = rng.integers(0, 0x7C00, count, dtype=np.uint16) | (
        rng.integers(0, 2, count, dtype=np.uint16) << 15)
    return np.concatenate([np.array(edges, dtype=np.uint16), randoms])[:count]


def random_blocks(name, count):
    """`count` blocks of random payload with chosen scales, and a few all-0x00/all-0xFF ones."""
    type_size = GGML_QUANT_SIZES[T[name]][1]
    blocks = rng.integers(0, 256, (count, type_size), dtype=np.uint8)
    blocks[0:4] = 0x00
    blocks[4:10] = 0xFF
    for offset in SCALE_OFFSETS[name]:
        halves = scale_halves(count)
        if offset != SCALE_OFFSETS[name][0]:
            halves = rng.permutation(halves)  # the min must not always equal the scale
        blocks[:, offset:offset + 2] = halves.view(np.uint8).reshape(count, 2)
    blocks[0, SCALE_OFFSETS[name][0]:SCALE_OFFSETS[name][0] + 2] = 0  # an all-zero block
    return blocks.reshape(-1)


def every_half_pattern():
    return np.arange(65536, dtype=np.uint16).view(np.uint8)


def raw_bytes(name):
    qtype = T[name]
    if name == "F32":
        specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.1754942e-38,
                             3.4028235e38, -3.4028235e38, 1.0, -2.5], dtype=np.float32)
        values = np.concatenate([specials, rng.standard_normal(500).astype(np.float32)])
        return values.view(np.uint8)
    if name in ("F16", "BF16"):
        quantised = quantize(float_rows(32), qtype).view(np.uint8).reshape(-1)
        return np.concatenate([every_half_pattern(), quantised])
    parts = []
    if name in QUANTISED_BY_GGUF:
        parts.append(quantize(float_rows(GGML_QUANT_SIZES[qtype][0]), qtype).reshape(-1))
    parts.append(random_blocks(name, 96))
    return np.concatenate(parts)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    index = {"gguf": _version(), "numpy": np.__version__, "types": {},
             "all_types": {t.name: [int(t), *GGML_QUANT_SIZES[t]] for t in T}}
    for name in TYPES:
        raw = np.ascontiguousarray(raw_bytes(name), dtype=np.uint8)
        expected = np.ascontiguousarray(dequantize(raw, T[name]), dtype=np.float32).reshape(-1)
        block_size, type_size = GGML_QUANT_SIZES[T[name]]
        assert raw.size == expected.size // block_size * type_size, name
        raw.tofile(os.path.join(folder, name + ".raw"))
        expected.astype("<f4").tofile(os.path.join(folder, name + ".f32"))
        index["types"][name] = {"id": int(T[name]), "elements": int(expected.size),
                                "quantised_by_gguf": name in QUANTISED_BY_GGUF}
    with open(os.path.join(folder, "vectors.json"), "w") as f:
        json.dump(index, f, indent=1)


def _version():
    try:
        from importlib.metadata import version
        return version("gguf")
    except Exception:  # noqa: BLE001 - a version is for the log only
        return getattr(gguf, "__version__", "unknown")


if __name__ == "__main__":
    main()
