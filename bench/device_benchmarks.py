#!/usr/bin/env python3
"""The GPU benchmarks of scripts/device-check.sh, each against a reference in the same run, and the
goals they are held to (docs/benchmarks.md, "GPU"):

  proxies   strata-geometry-bench on one 65,536 x 4,096 float32 layer: the CUDA backend against
            the CPU backend on the same machine (goal: >= 20x) and against the cuBLAS GEMM floor
            of the same products (goal: within 2x; within 3x at 16,384 rows), each CUDA run with
            the backend's own stage times (--phases)
  capture   bench/capture_throughput.py: a Llama-3.2-1B-shaped random checkpoint in bf16, strata-cli
            capture against transformers' LlamaModel (SDPA) on the same GPU, same batch, both
            writing the store with deflate 1 (goal: >= 1.0x tokens/s); and Strata end to end
            against transformers' forward passes alone (goal: >= 0.5x: the writing must not
            bound the capture)
  training  bench/training_step.py: bridge, dcdm, repr_align against an equivalent PyTorch eager
            loop (goal: >= 0.9x tokens/s)
and the GPU memory peak of each side. `--size tiny` (the rehearsal on a CPU) runs every part at a
toy size on the CPU, where the goals are not judged. The JSON is rewritten after each part, so a
part that runs out of time keeps the figures of the parts before it.

usage: python bench/device_benchmarks.py BUILD_DIR --size full|tiny --out results.json
       [--parts proxies capture training] [--budget SECONDS]
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))

GOALS = {"proxies_gpu_over_cpu_backend": (">=", 20.0), "proxies_gpu_over_gemm_floor": ("<=", 2.0),
         "proxies_gpu_over_gemm_floor_16384_rows": ("<=", 3.0),
         "capture_strata_over_transformers": (">=", 1.0),
         "capture_strata_over_transformers_forward_only": (">=", 0.5),
         "training_strata_over_pytorch": (">=", 0.9)}


def run_json(command, timeout, out_file=None):
    """Runs a benchmark; its JSON (stdout's last object, or out_file) or {"error": ...}."""
    started = time.time()
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return {"error": f"timed out after {timeout:.0f} s: {' '.join(command)}",
                "output_tail": (e.stdout or b"")[-2000:].decode(errors="replace") if isinstance(e.stdout, bytes) else str(e.stdout)[-2000:]}
    sys.stdout.write(run.stdout[-6000:])
    sys.stderr.write(run.stderr[-6000:])
    if run.returncode != 0:
        return {"error": f"exit {run.returncode}: {' '.join(command)}", "output_tail": (run.stdout + run.stderr)[-3000:]}
    try:
        result = json.load(open(out_file)) if out_file else json.loads(run.stdout[run.stdout.index("{"):])
    except Exception as e:
        return {"error": f"unreadable output ({e})", "output_tail": run.stdout[-3000:]}
    result["wall_seconds"] = round(time.time() - started, 1)
    return result


def judge(name, value):
    op, target = GOALS[name]
    if value is None:
        return {"value": None, "goal": f"{op} {target}", "met": None}
    return {"value": round(value, 3), "goal": f"{op} {target}", "met": value >= target if op == ">=" else value <= target}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("--size", choices=["full", "tiny"], default="full")
    ap.add_argument("--parts", nargs="+", default=["proxies", "capture", "training"])
    ap.add_argument("--budget", type=float, default=float(os.environ.get("DEVICE_BENCH_BUDGET", 600)))
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    import torch
    gpu = torch.cuda.is_available()
    full = args.size == "full"
    device = "cuda" if gpu else "cpu"
    deadline = time.time() + args.budget
    threads = str(os.cpu_count())
    results = {"size": args.size, "device": device,
               "gpu": torch.cuda.get_device_name(0) if gpu else None, "torch": torch.__version__,
               "goals_judged": gpu and full, "parts": {}, "goals": {}}
    if full and not gpu:
        results["note"] = "--size full without a GPU: the GPU parts are skipped"

    def save():
        json.dump(results, open(args.out, "w"), indent=2)

    def remaining(share):
        return max(10.0, (deadline - time.time()) * share)

    work = tempfile.mkdtemp(prefix="strata-device-bench-")
    bench = os.path.join(args.build_dir, "bench", "strata-geometry-bench")
    for part in args.parts:
        print(f"== benchmark {part}", flush=True)
        if part == "proxies":
            rows, dims, runs = (65536, 4096, 3) if full else (4096, 128, 1)
            base = [bench, "--random", str(rows), str(dims)]
            entry = {"rows": rows, "dims": dims}
            if gpu:
                # --phases: one more run that times the backend's stages (not in "seconds").
                entry["cuda"] = run_json(base + ["--device", "cuda", "--runs", str(runs), "--phases"],
                                         remaining(0.3))
                if full:
                    entry["cuda_16384_rows"] = run_json(
                        [bench, "--random", "16384", str(dims), "--device", "cuda", "--runs", str(runs),
                         "--phases"], remaining(0.2))
            entry["cpu"] = run_json(base + ["--device", "cpu", "--runs", "1"], remaining(0.3))
            results["parts"]["proxies"] = entry
            cuda, cpu = entry.get("cuda", {}), entry["cpu"]
            if "seconds" in cuda and "seconds" in cpu:
                results["goals"]["proxies_gpu_over_cpu_backend"] = judge(
                    "proxies_gpu_over_cpu_backend", cpu["seconds"] / cuda["seconds"])
            if "over_floor" in cuda:
                results["goals"]["proxies_gpu_over_gemm_floor"] = judge("proxies_gpu_over_gemm_floor", cuda["over_floor"])
            if "over_floor" in entry.get("cuda_16384_rows", {}):
                results["goals"]["proxies_gpu_over_gemm_floor_16384_rows"] = judge(
                    "proxies_gpu_over_gemm_floor_16384_rows", entry["cuda_16384_rows"]["over_floor"])
        elif part == "capture":
            out = os.path.join(work, "capture.json")
            command = [sys.executable, os.path.join(HERE, "capture_throughput.py"), args.build_dir, "--out", out,
                       "--threads", threads, "--work", os.path.join(work, "capture")]
            if gpu and full:
                command += ["--device", "cuda", "--shape", "llama-3.2-1b", "--compute-dtype", "bf16",
                            "--storage", "float16", "--seq-len", "256", "--batch", "16", "--tokens", "12240"]
            else:
                command += ["--device", device, "--shape", "small", "--seq-len", "64", "--batch", "4", "--tokens", "504"]
            entry = run_json(command, remaining(0.45), out)
            results["parts"]["capture"] = entry
            if "ratio_strata_over_python" in entry:
                results["goals"]["capture_strata_over_transformers"] = judge(
                    "capture_strata_over_transformers", entry["ratio_strata_over_python"])
            if "strata_over_python_forward_only" in entry:
                results["goals"]["capture_strata_over_transformers_forward_only"] = judge(
                    "capture_strata_over_transformers_forward_only",
                    entry["strata_over_python_forward_only"])
        elif part == "training":
            out = os.path.join(work, "training.json")
            command = [sys.executable, os.path.join(HERE, "training_step.py"), args.build_dir, "--out", out,
                       "--device", device, "--size", "gpu" if (gpu and full) else "tiny"]
            entry = run_json(command, remaining(0.95), out)
            results["parts"]["training"] = entry
            ratios = {r: e.get("ratio_strata_over_pytorch") for r, e in entry.get("recipes", {}).items()}
            for recipe, ratio in ratios.items():
                results["goals"][f"training_{recipe}_strata_over_pytorch"] = judge("training_strata_over_pytorch", ratio)
        else:
            sys.exit(f"unknown part {part}")
        save()
    if not results["goals_judged"]:
        for goal in results["goals"].values():
            goal["met"] = None  # toy sizes on a CPU say nothing about the GPU goals
    failed = [k for k, v in results["parts"].items() if "error" in v or any(
        isinstance(x, dict) and "error" in x for x in v.values()) or any(
        "error" in r for r in v.get("recipes", {}).values())]
    results["failed_parts"] = failed
    save()
    shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(results["goals"], indent=2))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
