#!/usr/bin/env python3
"""The activation store's write path on the CPU: Strata's direct chunk writes (chunks shuffled
and deflated on a pool of threads) against HDF5 filtering the chunks itself (Strata's path
before, one thread) and against h5py writing the same values with the same chunk shape and
filters, all in one run.

Each configuration writes a store of L + 1 layers of N x d bfloat16-rounded values (Llama-3.2-1B
shapes by default: 17 layers of 2048; strata-store-write-bench), as float16 with shuffle + deflate.
h5py then writes the values it reads back from Strata's store into a new file, with the same
chunks, shuffle and gzip level, timed the same way (opening, writing every layer, closing), and
its first and last chunk of every layer must inflate to Strata's bytes (the compressed streams
differ: Strata deflates with libdeflate, HDF5 with zlib). Rounds alternate the
configurations so that a busy machine slows each of them alike; the median and the best of the
rounds are reported, with the cores Strata's writing had (its CPU time over its wall time: on a
shared machine, fewer than its threads when other work takes them).

usage: ~/.local/share/strata/venv/bin/python bench/store_write.py BUILD_DIR
       [--tokens N] [--hidden d] [--layers L] [--threads 1 2] [--levels 4 1] [--rounds R]
       [--out results.json]
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time, zlib

import h5py
import numpy as np


def strata_write(bench, out, args, path, threads, level):
    command = [bench, out, "--tokens", str(args.tokens), "--hidden", str(args.hidden),
               "--layers", str(args.layers), "--dtype", "float16", "--path", path,
               "--threads", str(threads), "--deflate-level", str(level)]
    return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)


def h5py_write(store, out, level):
    """h5py writes the layers of `store` (read first, not timed) with the same filters: seconds."""
    with h5py.File(store, "r") as f:
        layers = {name: (f["layers"][name][:], f["layers"][name].chunks) for name in f["layers"]}
    started = time.perf_counter()
    with h5py.File(out, "w") as f:
        for name, (values, chunks) in layers.items():
            f.create_dataset(f"layers/{name}", data=values, chunks=chunks, shuffle=True,
                             compression="gzip", compression_opts=level)
    return time.perf_counter() - started


def same_chunks(store, reference):
    """Whether the first and last chunk of every layer inflate to the same (shuffled) bytes in
    both files. Not the compressed bytes: Strata deflates with libdeflate, h5py's HDF5 with zlib,
    and the two encoders write different streams of the same data."""
    with h5py.File(store, "r") as a, h5py.File(reference, "r") as b:
        for name in a["layers"]:
            x, y = a["layers"][name], b["layers"][name]
            for row in (0, (x.shape[0] - 1) // x.chunks[0] * x.chunks[0]):
                (_, mine), (_, theirs) = (x.id.read_direct_chunk((row, 0)),
                                          y.id.read_direct_chunk((row, 0)))
                if zlib.decompress(mine) != zlib.decompress(theirs):
                    return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("--tokens", type=int, default=4096)
    ap.add_argument("--hidden", type=int, default=2048)
    ap.add_argument("--layers", type=int, default=16)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--levels", type=int, nargs="+", default=[4, 1])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    bench = os.path.join(args.build_dir, "bench", "strata-store-write-bench")
    work = tempfile.mkdtemp(prefix="strata-store-write-")
    store, reference = os.path.join(work, "strata.h5"), os.path.join(work, "h5py.h5")
    configs = [(level, "filters", 1) for level in args.levels]
    configs += [(level, "direct", t) for level in args.levels for t in args.threads]
    seconds = {c: [] for c in configs}
    cores = {c: [] for c in configs}
    h5py_seconds = {level: [] for level in args.levels}
    facts, identical = {}, True
    load_before = os.getloadavg()
    for _ in range(args.rounds):
        for config in configs:
            level, path, threads = config
            result = strata_write(bench, store, args, path, threads, level)
            seconds[config].append(result["seconds"])
            cores[config].append(result["cores_used"])
            facts[level] = {"raw_bytes": result["raw_bytes"], "file_bytes": result["file_bytes"]}
            if path == "filters":  # h5py writes the same values right after, from this store
                h5py_seconds[level].append(h5py_write(store, reference, level))
                identical = identical and same_chunks(store, reference)
    load_after = os.getloadavg()

    raw = args.tokens * args.hidden * (args.layers + 1) * 2
    rows = []
    for level in args.levels:
        base = statistics.median(seconds[(level, "filters", 1)])
        reference_s = statistics.median(h5py_seconds[level])
        entry = {"deflate_level": level, "file_over_raw": facts[level]["file_bytes"] / raw,
                 "h5py_seconds": reference_s, "strata_filters_seconds": base, "direct": {}}
        entry["strata_filters_best_seconds"] = min(seconds[(level, "filters", 1)])
        for t in args.threads:
            s = statistics.median(seconds[(level, "direct", t)])
            entry["direct"][str(t)] = {"seconds": s, "best_seconds": min(seconds[(level, "direct", t)]),
                                       "cores_used": statistics.median(cores[(level, "direct", t)]),
                                       "raw_mb_per_s": raw / s / 1e6,
                                       "tokens_per_s": args.tokens / s,
                                       "speedup_over_filters": base / s,
                                       "speedup_over_h5py": reference_s / s}
        rows.append(entry)
    result = {"tokens": args.tokens, "hidden": args.hidden, "layers": args.layers + 1,
              "dtype": "float16", "raw_mb": raw / 1e6, "rounds": args.rounds,
              "cpus": os.cpu_count(), "load_average_before_after": [load_before[0], load_after[0]],
              "h5py": h5py.version.version, "hdf5_h5py": h5py.version.hdf5_version,
              "chunks_inflate_to_h5pys_bytes": identical, "levels": rows,
              "all_seconds": {f"{p} level {l} threads {t}": v for (l, p, t), v in seconds.items()},
              "all_cores_used": {f"{p} level {l} threads {t}": v for (l, p, t), v in cores.items()}}
    print(json.dumps(result, indent=2))
    if args.out:
        json.dump(result, open(args.out, "w"), indent=2)
    for name in (store, reference):
        os.remove(name)
    os.rmdir(work)
    sys.exit(0 if identical else 1)


if __name__ == "__main__":
    main()
