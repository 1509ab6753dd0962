#!/usr/bin/env python3
"""Layer streaming: capture a checkpoint at least twice as large as the memory the run may use.

Writes a random Llama checkpoint (default 12 layers × 2048, MLP 5632, vocabulary 32000, F32:
~2.5 GB), then runs `strata-cli capture --stream-layers` inside a cgroup v1 memory cgroup whose
hard limit (memory.limit_in_bytes) is half the checkpoint size, and records the cgroup's peak
charge (memory.max_usage_in_bytes: anonymous memory and the page cache the run faults in,
mapped weights included) and the process's peak RSS (VmHWM, from /usr/bin/time -v). The
resident mode then runs under the same limit, where it must fail (the kernel OOM-kills it).

The checkpoint's pages are dropped from the page cache before each run: a page is charged to
the cgroup that first faults it in, so pages left cached by the writer would be read free of
charge and the limit would not bind.

Without a writable cgroup v1 memory hierarchy (not root, cgroup v2, a container) the runs are
only measured, not limited, and the result says so ("enforced": false).

usage: bench/streaming_peak_rss.py BUILD_DIR [--tokens N] [--limit-bytes B] [--out results.json]
                                   [--skip-resident]
"""
import argparse, json, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import capture_throughput as bench  # noqa: E402

CGROUP_ROOT = "/sys/fs/cgroup/memory"


class MemoryCgroup:
    """A cgroup v1 memory cgroup with a hard limit, for one benchmark; remove() deletes it."""

    def __init__(self, limit_bytes):
        self.path = os.path.join(CGROUP_ROOT, f"strata-streaming-bench-{os.getpid()}")
        os.mkdir(self.path)
        try:
            self._write("memory.limit_in_bytes", limit_bytes)
            self.limit_bytes = int(self._read("memory.limit_in_bytes"))
        except OSError:
            self.remove()
            raise

    def _write(self, name, value):
        with open(os.path.join(self.path, name), "w") as f:
            f.write(str(value))

    def _read(self, name):
        with open(os.path.join(self.path, name)) as f:
            return f.read()

    def command(self, command):
        """`command` wrapped so that it joins this cgroup before it starts (exec keeps the pid)."""
        return ["sh", "-c", f'echo $$ > {self.path}/cgroup.procs && exec "$@"', "sh"] + command

    def reset_peak(self):
        self._write("memory.max_usage_in_bytes", 0)

    def peak_bytes(self):
        return int(self._read("memory.max_usage_in_bytes"))

    def oom_kills(self):
        match = re.search(r"oom_kill (\d+)", self._read("memory.oom_control"))
        return int(match.group(1)) if match else None

    def remove(self):
        os.rmdir(self.path)  # the cgroup is empty once its processes have exited


def open_cgroup(limit_bytes):
    try:
        return MemoryCgroup(limit_bytes)
    except OSError as error:
        print(f"note: cannot create a memory cgroup under {CGROUP_ROOT} ({error}); the runs are "
              "measured but NOT limited", file=sys.stderr)
        return None


def drop_from_page_cache(path):
    with open(path, "rb") as f:
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)


def run_measured(command, cgroup):
    """(exit status, peak RSS in bytes, output) of `command`, inside `cgroup` when given."""
    if cgroup:
        cgroup.reset_peak()
        command = cgroup.command(command)
    run = subprocess.run(["/usr/bin/time", "-v"] + command, capture_output=True, text=True)
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", run.stderr)
    return run.returncode, int(peak.group(1)) * 1024 if peak else None, run.stdout + run.stderr


def measure(name, command, cgroup, checkpoint, result):
    drop_from_page_cache(checkpoint)
    oom_before = cgroup.oom_kills() if cgroup else None
    status, peak_rss, output = run_measured(command, cgroup)
    result[f"{name}_exit_status"] = status
    result[f"{name}_peak_rss_bytes"] = peak_rss
    if cgroup:
        result[f"{name}_cgroup_peak_bytes"] = cgroup.peak_bytes()
        if oom_before is not None:
            result[f"{name}_oom_killed"] = cgroup.oom_kills() > oom_before
    if status != 0 and not result.get(f"{name}_oom_killed"):
        result[f"{name}_output_tail"] = output[-600:]
    return status


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("--tokens", type=int, default=254)
    ap.add_argument("--limit-bytes", type=int, default=None,
                    help="memory limit of the runs (default: half the checkpoint size)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--skip-resident", action="store_true")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="strata-stream-")
    model = os.path.join(work, "model")
    bench.write_checkpoint(model, hidden=2048, layers=12, heads=16, kv=8, mlp=5632, vocab=32000)
    checkpoint = os.path.join(model, "model.safetensors")
    os.sync()  # written back, so that dropping its cached pages really drops them
    weights_bytes = os.path.getsize(checkpoint)
    limit = args.limit_bytes or weights_bytes // 2
    corpus = os.path.join(work, "corpus.txt")
    with open(corpus, "w") as f:
        for p in range(200):
            f.write("the layer geometry of hidden states is curved and flat in places\n\n")
    cli = os.path.join(args.build_dir, "app", "cli", "strata-cli")
    base = [cli, "capture", "--model", model, "--corpus", corpus, "--tokens", str(args.tokens),
            "--seq-len", "128", "--batch", "2", "--split", "lines"]

    cgroup = open_cgroup(limit)
    result = {"checkpoint_bytes": weights_bytes, "tokens": args.tokens,
              "enforced": cgroup is not None,
              "limit_bytes": cgroup.limit_bytes if cgroup else None}
    try:
        status = measure("streamed", base + ["--stream-layers", "--out",
                                             os.path.join(work, "streamed.h5")],
                         cgroup, checkpoint, result)
        if status != 0:
            print("the streamed capture failed", file=sys.stderr)
        if not args.skip_resident:
            measure("resident", base + ["--out", os.path.join(work, "resident.h5")], cgroup,
                    checkpoint, result)
    finally:
        if cgroup:
            cgroup.remove()
        subprocess.run(["rm", "-rf", work])
    peak = result.get("streamed_peak_rss_bytes")
    if peak:
        result["checkpoint_over_streamed_peak_rss"] = weights_bytes / peak
    if cgroup:
        result["checkpoint_over_limit"] = weights_bytes / cgroup.limit_bytes
    print(json.dumps(result, indent=2))
    if args.out:
        json.dump(result, open(args.out, "w"), indent=2)
    sys.exit(0 if result["streamed_exit_status"] == 0 else 1)


if __name__ == "__main__":
    main()
