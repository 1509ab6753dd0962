#!/usr/bin/env python3
"""gguf-py's dequantisation of every tensor of a GGUF file, as SHA-256 digests.

For each tensor: sha256 of the float32 bytes `gguf.quants.dequantize(tensor.data, type)` gives
(row-major, as numpy lays it out), so that Strata's dequantiser can be checked bit for bit on a
whole real model without writing gigabytes of floats.

Usage: gguf_dequantize_digests.py GGUF_FILE OUTPUT.json
"""

import hashlib
import json
import sys

import numpy as np
from gguf import GGUFReader
from gguf.quants import dequantize


def main():
    reader = GGUFReader(sys.argv[1])
    digests = {}
    for tensor in reader.tensors:
        values = np.ascontiguousarray(dequantize(tensor.data, tensor.tensor_type), dtype=np.float32)
        digests[tensor.name] = {"type": tensor.tensor_type.name, "elements": int(values.size),
                                "sha256": hashlib.sha256(values.tobytes()).hexdigest()}
    with open(sys.argv[2], "w") as f:
        json.dump(digests, f)


if __name__ == "__main__":
    main()
