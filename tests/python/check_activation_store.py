#!/usr/bin/env python3
"""Checks that an activation store written by Strata reads correctly with h5py and numpy.

Usage: check_activation_store.py STORE.h5 EXPECTATIONS.json

EXPECTATIONS.json (written by the C++ test TEST(ActivationStore, IsReadableByH5py)):
  {"meta":     {"model_id": "...", "hidden_size": 48, ...},   # attributes of /meta
   "tokens":   {"ids": [...], "doc": [...], "position": [...]},
   "complete": [1, 1, 0, ...],                                 # /layers_complete
   "layers":   {"0": "layer0.f32", ...}}                       # completed layers only
Each layer file holds the N*d float32 little-endian values the writer was given. A float16
store must hold exactly numpy's rounding of them (round to nearest even), a float32 store
exactly the values. Exit status 0 when everything matches, 1 with one line per problem.
"""

import json
import os
import sys

import h5py
import numpy as np


def open_store(path):
    # swmr=True opens stores whose writer is still running or was killed; a plain open
    # refuses those. Fall back for files written without SWMR support.
    try:
        return h5py.File(path, "r", swmr=True)
    except (OSError, ValueError):
        return h5py.File(path, "r")


def check(store_path, expectations_path):
    with open(expectations_path, encoding="utf-8") as f:
        expected = json.load(f)
    base = os.path.dirname(os.path.abspath(expectations_path))
    problems = []

    with open_store(store_path) as f:
        attrs = f["meta"].attrs
        for name, value in expected["meta"].items():
            if name not in attrs:
                problems.append(f"/meta@{name}: missing")
                continue
            got = attrs[name]
            if isinstance(value, str):
                # Strata writes fixed-length UTF-8 strings: h5py hands them out as bytes.
                if not isinstance(got, bytes):
                    problems.append(f"/meta@{name}: expected UTF-8 bytes, got {type(got).__name__}")
                elif got.decode("utf-8") != value:
                    problems.append(f"/meta@{name}: expected {value!r}, got {got!r}")
            elif not isinstance(got, np.integer) or got.dtype != np.int64 or int(got) != value:
                problems.append(f"/meta@{name}: expected int64 {value}, got {got!r}")
        for name in ("strata_version", "created_utc"):
            if not isinstance(attrs.get(name), bytes) or not attrs[name].decode("utf-8"):
                problems.append(f"/meta@{name}: expected a non-empty UTF-8 string")

        n = len(expected["tokens"]["ids"])
        d = int(expected["meta"]["hidden_size"])
        dtype = np.dtype(expected["meta"]["dtype"])
        for column, values in expected["tokens"].items():
            dataset = f["tokens"][column]
            if dataset.dtype != np.int32 or dataset.shape != (n,):
                problems.append(f"/tokens/{column}: expected int32 ({n},), "
                                f"got {dataset.dtype} {dataset.shape}")
            elif not np.array_equal(dataset[:], np.asarray(values, dtype=np.int32)):
                problems.append(f"/tokens/{column}: values differ")

        flags = f["layers_complete"]
        if flags.dtype != np.uint8 or list(flags[:]) != expected["complete"]:
            problems.append(f"/layers_complete: expected uint8 {expected['complete']}, "
                            f"got {flags.dtype} {list(flags[:])}")

        for layer, raw_file in expected["layers"].items():
            name = f"layers/{layer}"
            dataset = f[name]  # the spelling h5py users are promised
            if dataset.dtype != dtype or dataset.shape != (n, d):
                problems.append(f"/{name}: expected {dtype} ({n}, {d}), "
                                f"got {dataset.dtype} {dataset.shape}")
                continue
            if dataset.chunks is None or dataset.compression != "gzip" or not dataset.shuffle:
                problems.append(f"/{name}: expected chunked, shuffled, gzip-compressed storage")
            given = np.fromfile(os.path.join(base, raw_file), dtype="<f4").reshape(n, d)
            want = given.astype(dtype)  # numpy's own float16 rounding: an independent check
            got = dataset[:]
            if not np.array_equal(got, want, equal_nan=True):
                worst = np.unravel_index(np.nanargmax(np.abs(got.astype(np.float64) - want)),
                                         want.shape)
                problems.append(f"/{name}: values differ, e.g. at {worst}: "
                                f"got {got[worst]!r}, expected {want[worst]!r}")
            rows = f[name][3:5]
            if not np.array_equal(rows, want[3:5], equal_nan=True):
                problems.append(f"/{name}: slicing rows 3:5 gives other values")

    for problem in problems:
        print(f"check_activation_store: {store_path}: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(check(sys.argv[1], sys.argv[2]))
