#!/usr/bin/env bash
# Installs everything Strata needs to build and test on Debian 12 (run as root), then
# configures and builds into build/. Idempotent: packages already present are not touched,
# and a configured build tree is only rebuilt.
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
  libtorch-dev libopenblas0-pthread libblas-dev libgloo-dev
  libeigen3-dev libspectra-dev libhdf5-dev libpcre2-dev libutf8proc-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev
  python3 python3-numpy python3-h5py python3-torch python3-scipy python3-sklearn
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

[[ "${1:-}" == "--deps-only" ]] && exit 0

jobs="$(nproc)"
# ccache keys on paths relative to the checkout, so a fresh clone elsewhere reuses the cache.
export CCACHE_BASEDIR="$here"
if [[ ! -f "$build_dir/build.ninja" ]]; then
  cmake -S "$here" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_GUI="$gui" >/dev/null
fi
cmake --build "$build_dir" -j "$jobs"
