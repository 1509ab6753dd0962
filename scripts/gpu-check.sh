#!/usr/bin/env bash
# The GPU check of the CUDA geometry backend, in one go (about 5–8 minutes on 16 cores):
# prints the GPU, configures with STRATA_CUDA=ON for this GPU's architecture, builds the core
# tests and runs the Geometry* and Cuda* tests — the CUDA-against-CPU comparisons included.
# Fails when those comparisons were skipped, so a broken driver can never pass for a success.
#
# Needs: an NVIDIA driver and GPU, nvcc, and the packages of `scripts/setup.sh --deps-only`
# (Debian 12). Run from anywhere:   scripts/gpu-check.sh [build-dir]     (default: build-gpu)
# Environment: CUDA_ARCHS (default: this GPU's, e.g. 90), JOBS (default: nproc).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "== nvidia-smi"
if ! nvidia-smi; then
  echo "gpu-check: nvidia-smi failed: no usable NVIDIA driver or GPU here" >&2
  exit 2
fi

nvcc=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [[ ! -x $nvcc ]]; then
  echo "gpu-check: nvcc not found (set CUDACXX or put it on PATH)" >&2
  exit 2
fi
echo "== $("$nvcc" --version | tail -n 1)"

archs=${CUDA_ARCHS:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null |
  head -n 1 | tr -d '. ')}
archs=${archs:-"80;90"}
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

echo "== configure ($build, CUDA architectures $archs)"
# CMAKE_CUDA_STANDARD=17: CMake 3.25 would otherwise ask nvcc for C++20 (CXX_STANDARD) and stop.
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DSTRATA_GUI=OFF \
  -DSTRATA_CUDA=ON -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="$archs" \
  -DCMAKE_CUDA_STANDARD=17

echo "== build strata_core_tests"
time cmake --build "$build" -j "${JOBS:-$(nproc)}" --target strata_core_tests

echo "== Geometry* and Cuda* tests"
status=0
"$build/tests/strata_core_tests" --gtest_filter='Geometry*:Cuda*' --gtest_color=no 2>&1 |
  tee "$log" || status=$?

if grep -q '^\[  SKIPPED \] .*GeometryCuda' "$log"; then
  echo "gpu-check: the CUDA comparisons were SKIPPED on a machine with a GPU:" >&2
  grep -m 1 -B 2 '^\[  SKIPPED \] .*GeometryCuda' "$log" >&2
  exit 1
fi
if [[ $status -eq 0 ]]; then echo "gpu-check: passed"; else echo "gpu-check: FAILED" >&2; fi
exit "$status"
