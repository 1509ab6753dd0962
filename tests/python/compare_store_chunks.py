#!/usr/bin/env python3
"""Checks a Strata store's layers chunk by chunk against h5py writing the same values.

Usage: compare_store_chunks.py STORE.h5 VALUES_DIR [OTHER_STORE.h5 ...]

VALUES_DIR holds layer<l>.f32: the N*d float32 little-endian values the writer was given for
layer l (written by TEST(StoreChunkBytes, H5pyReadsEveryLayerAndItsChunksInflateToH5pysOwn)).
For every such layer:
  * h5py reads /layers/<l> of STORE.h5 as numpy's own rounding of the values to the store's
    dtype (float16: round to nearest even), whole and sliced;
  * h5py writes the same values into a new file with the same chunk shape, shuffle and gzip
    at the store's level, and every chunk of STORE.h5 (h5py's `id.read_direct_chunk`: filter
    mask and stored bytes) must have h5py's filter mask, inflate (zlib) to the bytes h5py's
    chunk at the same offset inflates to, and record the same level in its zlib header (the
    compressors may differ: Strata's is libdeflate, h5py's zlib);
  * each OTHER_STORE.h5 (the same values written another way) must hold such chunks too.
Exit status 0 when everything matches, 1 with one line per problem.
"""

import os
import sys
import tempfile
import zlib

import h5py
import numpy as np


def open_store(path):
    try:
        return h5py.File(path, "r", swmr=True)
    except (OSError, ValueError):
        return h5py.File(path, "r")


def chunk_offsets(dataset):
    rows, cols = dataset.shape
    chunk_rows, chunk_cols = dataset.chunks
    return [(r, c) for r in range(0, rows, chunk_rows) for c in range(0, cols, chunk_cols)]


def compare_chunks(label, got, want, problems):
    for offset in chunk_offsets(want):
        got_mask, got_bytes = got.id.read_direct_chunk(offset)
        want_mask, want_bytes = want.id.read_direct_chunk(offset)
        if got_mask != want_mask:
            problems.append(f"{label}: chunk at {offset}: filter mask {got_mask}, h5py {want_mask}")
        elif zlib.decompress(got_bytes) != zlib.decompress(want_bytes):
            problems.append(f"{label}: chunk at {offset}: {len(got_bytes)} stored bytes do not "
                            f"inflate to what h5py's {len(want_bytes)} inflate to")
        elif got_bytes[1] >> 6 != want_bytes[1] >> 6:
            problems.append(f"{label}: chunk at {offset}: zlib header level {got_bytes[1] >> 6}, "
                            f"h5py's {want_bytes[1] >> 6}")


def check(store_path, values_dir, others):
    problems = []
    scratch = tempfile.mkdtemp(prefix="strata-chunks-")
    with open_store(store_path) as store, h5py.File(os.path.join(scratch, "h5py.h5"), "w") as ref:
        dtype = np.dtype(store["meta"].attrs["dtype"].decode())
        layers = sorted(int(name[5:-4]) for name in os.listdir(values_dir)
                        if name.startswith("layer") and name.endswith(".f32"))
        if not layers:
            problems.append(f"{values_dir}: no layer<l>.f32 files")
        for layer in layers:
            name = f"layers/{layer}"
            dataset = store[name]
            n, d = dataset.shape
            given = np.fromfile(os.path.join(values_dir, f"layer{layer}.f32"), dtype="<f4")
            want = given.reshape(n, d).astype(dtype)
            if dataset.compression != "gzip" or not dataset.shuffle:
                problems.append(f"/{name}: expected shuffle + gzip, got {dataset.compression} "
                                f"(shuffle {dataset.shuffle})")
                continue
            if not np.array_equal(dataset[:], want, equal_nan=True):
                problems.append(f"/{name}: h5py reads other values than the writer was given")
            last = max(0, n - 3)
            if not np.array_equal(dataset[last:], want[last:], equal_nan=True):
                problems.append(f"/{name}: h5py reads other values in the last rows")
            reference = ref.create_dataset(name, data=want, chunks=dataset.chunks, shuffle=True,
                                           compression="gzip",
                                           compression_opts=dataset.compression_opts)
            compare_chunks(f"/{name}", dataset, reference, problems)
            for other_path in others:
                with open_store(other_path) as other:
                    compare_chunks(f"{other_path}:/{name}", other[name], reference, problems)
    for problem in problems:
        print(f"compare_store_chunks: {store_path}: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(check(sys.argv[1], sys.argv[2], sys.argv[3:]))
