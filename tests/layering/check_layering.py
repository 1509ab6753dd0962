#!/usr/bin/env python3
"""Checks every #include of Strata against the layering of docs/architecture.md.

* A core folder includes only the core folders below it (ALLOWED) — engine never includes
  recipes, io never includes engine.
* core/ and app/cli include no Qt; views/ and app/gui include neither torch nor a core header
  that includes torch, directly or through other Strata headers (Qt before torch does not
  compile, and one torch translation unit costs ~30 s).

Usage: check_layering.py SOURCE_DIR. Prints each violation as file:line and exits 1 if any.
"""
import re
import sys
from pathlib import Path

ALLOWED = {
    "common": set(),
    "tokenizer": {"common"},
    "io": {"common", "tokenizer"},
    "model": {"common", "tokenizer", "io"},
    "geometry": {"common", "io"},
    "plugin": {"common", "geometry"},
    "verify": {"common", "tokenizer", "io", "model"},
    "engine": {"common", "tokenizer", "io", "model", "geometry", "plugin"},
    "recipes": {"common", "tokenizer", "io", "model", "geometry", "plugin", "engine"},
    "studies": {"common", "tokenizer", "io", "model", "geometry", "plugin", "engine", "recipes"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
TORCH = re.compile(r"^(torch|ATen|c10)/")
QT = re.compile(r"^(Q[A-Za-z]+|qcustomplot\.h)$|^Qt")
SOURCES = ("*.h", "*.cpp", "*.cu", "*.cuh")


def includes(path):
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        match = INCLUDE.match(line)
        if match:
            yield number, match.group(1) == "<", match.group(2)


def files(root):
    for pattern in SOURCES:
        yield from root.rglob(pattern)


def main(source):
    core = source / "core"
    problems = []

    # Which core headers bring torch in, directly or through other core headers.
    direct, edges = {}, {}
    for header in core.rglob("*.h"):
        name = header.relative_to(core).as_posix()
        found = list(includes(header))
        direct[name] = any(angle and TORCH.match(target) for _, angle, target in found)
        edges[name] = [target for _, angle, target in found if not angle]
    memo = {}

    def pulls_torch(name, seen=()):
        if name not in memo:
            memo[name] = direct.get(name, False) or any(
                pulls_torch(t, seen + (name,)) for t in edges.get(name, []) if t not in seen)
        return memo[name]

    for path in files(core):
        layer = path.relative_to(core).parts[0]
        for number, angle, target in includes(path):
            where = f"{path.relative_to(source)}:{number}"
            if angle and QT.match(target):
                problems.append(f"{where}: core/ includes Qt <{target}>")
            top = target.split("/")[0]
            allowed = ALLOWED.get(layer, set())  # a new folder must be added to ALLOWED first
            if not angle and top in ALLOWED and top != layer and top not in allowed:
                problems.append(f"{where}: core/{layer} includes {target} "
                                f"(it may include {', '.join(sorted(allowed)) or 'nothing of Strata'})")

    for folder in ("views", "app/gui"):
        for path in files(source / folder):
            for number, angle, target in includes(path):
                where = f"{path.relative_to(source)}:{number}"
                if angle and TORCH.match(target):
                    problems.append(f"{where}: {folder} includes <{target}>")
                elif not angle and target in direct and pulls_torch(target):
                    problems.append(f"{where}: {folder} includes {target}, which brings in torch")

    for path in files(source / "app/cli"):
        for number, angle, target in includes(path):
            if angle and QT.match(target):
                problems.append(f"{path.relative_to(source)}:{number}: strata-cli includes Qt <{target}>")

    for problem in problems:
        print(problem)
    print(f"{len(problems)} layering violation(s)" if problems else "layering: every include is allowed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]).resolve()))
