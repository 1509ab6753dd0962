#!/usr/bin/env bash
# Superseded by scripts/device-check.sh (DEVELOPERS.md, "GPU device check"). This is its --build
# mode, which needs no installed packages: it builds against Debian packages unpacked into
# device-deps/ and runs the CUDA tests (geometry, backbones against transformers, every training
# recipe in bf16 with an exact resume) and the GPU benchmarks. Kept so that old notes still work:
#   scripts/gpu-check.sh [build-dir]     (default: build-gpu)
# fetches device-deps/ when it is missing (apt-get download: Debian 12) and runs the check.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -d device-deps/debs ]] || scripts/fetch-device-deps.sh
exec bash scripts/device-check.sh --build --build-dir "${1:-build-gpu}"
