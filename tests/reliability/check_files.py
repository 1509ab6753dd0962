#!/usr/bin/env python3
"""Checks what tests/reliability/crash-safety.sh finds on disk after a SIGKILL.

  check_files.py store STORE [REFERENCE]   the store is absent, or opens (h5py, SWMR read) and
                                           every layer marked complete is readable and, given a
                                           reference store, equal to it
  check_files.py run RUN                   every checkpoints/step-N verifies against its
                                           manifest (size, SHA-256); run.json, status.json,
                                           latest/best pointers and every metrics.jsonl line
                                           parse
  check_files.py finished RUN REFERENCE    a finished run: the above, no hidden temporaries
                                           left, and losses equal to REFERENCE step for step
Exit status 1 with one line per problem on stderr.
"""
import hashlib
import json
import os
import sys

problems = []


def problem(text):
    problems.append(text)


def check_store(path, reference=None):
    if not os.path.exists(path):
        return
    import h5py
    import numpy as np
    try:
        f = h5py.File(path, "r", swmr=True)
    except OSError:
        try:
            f = h5py.File(path, "r")
        except OSError as error:
            problem("%s exists but does not open: %s" % (path, error))
            return
    with f:
        flags = f["layers_complete"][:]
        ref = h5py.File(reference, "r") if reference else None
        for layer, done in enumerate(flags):
            if not done:
                continue
            values = f["layers/%d" % layer][:]
            if not np.all(np.isfinite(values)):
                problem("%s: completed layer %d holds non-finite values" % (path, layer))
            if ref is not None and not np.array_equal(values, ref["layers/%d" % layer][:]):
                problem("%s: completed layer %d differs from the reference" % (path, layer))
        if ref is not None:
            ref.close()


def parse_json(path):
    try:
        with open(path, "rb") as f:
            return json.loads(f.read())
    except (OSError, ValueError) as error:
        problem("%s does not parse: %s" % (path, error))
        return None


def metrics_losses(run):
    losses = {}
    path = os.path.join(run, "metrics.jsonl")
    if not os.path.exists(path):
        return losses
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    if lines and lines[-1] != b"":
        problem("%s: last line is cut off: %r" % (path, lines[-1][:80]))
    for number, line in enumerate(lines[:-1], 1):
        try:
            record = json.loads(line)
        except ValueError as error:
            problem("%s line %d does not parse: %s" % (path, number, error))
            continue
        if "loss" in record:
            if record["step"] in losses:
                problem("%s: step %d logged twice" % (path, record["step"]))
            losses[record["step"]] = record["loss"]
    return losses


def check_run(run):
    for name in ("run.json", "status.json"):
        path = os.path.join(run, name)
        if os.path.exists(path):
            parse_json(path)
    folder = os.path.join(run, "checkpoints")
    if os.path.isdir(folder):
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if name.startswith("step-"):
                manifest = parse_json(os.path.join(path, "manifest.json"))
                if manifest is None:
                    continue
                for file, entry in manifest["files"].items():
                    try:
                        with open(os.path.join(path, file), "rb") as f:
                            data = f.read()
                    except OSError as error:
                        problem("%s: %s" % (path, error))
                        continue
                    if len(data) != entry["bytes"] or \
                            hashlib.sha256(data).hexdigest() != entry["sha256"]:
                        problem("%s/%s does not match its manifest" % (path, file))
                    if file.endswith(".json"):
                        parse_json(os.path.join(path, file))
            elif name in ("latest", "best"):
                with open(path, "rb") as f:
                    text = f.read().decode("utf-8", "replace").strip()
                if text and not os.path.isdir(os.path.join(folder, text)) and \
                        not text.isdigit() and not text.startswith("step-"):
                    problem("%s names %r" % (path, text))
    metrics_losses(run)


def check_finished(run, reference):
    check_run(run)
    for folder in (run, os.path.join(run, "checkpoints")):
        for name in os.listdir(folder):
            if name.startswith("."):
                problem("%s: temporary %s survived the resume" % (folder, name))
    status = parse_json(os.path.join(run, "status.json")) or {}
    if status.get("state") not in ("finished", "Finished"):
        problem("%s: state is %r, not finished" % (run, status.get("state")))
    got, want = metrics_losses(run), metrics_losses(reference)
    if got != want:
        differing = sorted(s for s in set(got) | set(want) if got.get(s) != want.get(s))
        problem("%s: losses differ from the reference at steps %s" % (run, differing[:10]))


def main():
    kind = sys.argv[1]
    if kind == "store":
        check_store(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    elif kind == "run":
        check_run(sys.argv[2])
    elif kind == "finished":
        check_finished(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
    for text in problems:
        print("PROBLEM: " + text, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
