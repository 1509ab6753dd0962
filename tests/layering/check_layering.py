#!/usr/bin/env python3
"""Checks every #include of Strata against the layering of docs/architecture.md.

* A core folder includes only the core folders below it (ALLOWED) — engine never includes
  recipes, io never includes engine.
* core/ and app/cli include no Qt; views/ and app/gui include neither torch nor a core header
  that includes torch, directly or through other Strata headers (Qt before torch does not
  compile, and one torch translation unit costs ~30 s).
* The workbench's features (app/gui/features/<feature>/) include no other feature's header:
  they reach each other through the Workbench (services.h, WorkbenchEvents). The frame
  (app/gui/*, main.cpp aside) includes no feature at all — MainWindow installs the registered
  ones without naming them — and views/ includes nothing of app/gui.

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


def feature_includes(source):
    """Feature-to-feature, frame-to-feature and views-to-app/gui includes."""
    gui = source / "app/gui"
    features = gui / "features"
    shared = {p.name for folder in (gui, source / "views") for p in folder.glob("*.h")}
    owners = {}  # a header's file name -> the feature folders holding one of that name
    for header in features.rglob("*.h"):
        owners.setdefault(header.name, set()).add(header.relative_to(features).parts[0])

    def features_of(path, target):
        """The feature folders `#include "target"` in `path` may reach."""
        parts = target.split("/")
        if parts[0] == "features" and len(parts) > 2:
            return {parts[1]}
        beside = (path.parent / target).resolve()
        if beside.is_file():
            inside = beside.is_relative_to(features)
            return {beside.relative_to(features).parts[0]} if inside else set()
        if len(parts) == 1 and target not in shared:
            return owners.get(target, set())
        return set()

    problems = []
    for path in files(features):
        mine = path.relative_to(features).parts[0]
        for number, angle, target in includes(path):
            others = sorted(features_of(path, target) - {mine}) if not angle else []
            if others:
                problems.append(f"{path.relative_to(source)}:{number}: the {mine} feature includes "
                                f"{target} of the {', '.join(others)} feature (features reach each "
                                f"other through the Workbench: services.h, WorkbenchEvents)")
    for path in [*gui.glob("*.h"), *gui.glob("*.cpp")]:
        if path.name == "main.cpp":
            continue
        for number, angle, target in includes(path):
            reached = sorted(features_of(path, target)) if not angle else []
            if reached:
                problems.append(f"{path.relative_to(source)}:{number}: the frame includes {target} "
                                f"of the {', '.join(reached)} feature (MainWindow installs the "
                                f"registered features without naming them)")
    gui_headers = {p.name for p in gui.rglob("*.h")}
    for path in files(source / "views"):
        for number, angle, target in includes(path):
            if not angle and (target.split("/")[0] == "features" or target in gui_headers):
                problems.append(f"{path.relative_to(source)}:{number}: views/ includes {target} "
                                f"of app/gui (views sit below the workbench)")
    return problems


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

    problems += feature_includes(source)

    for problem in problems:
        print(problem)
    print(f"{len(problems)} layering violation(s)" if problems else "layering: every include is allowed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]).resolve()))
