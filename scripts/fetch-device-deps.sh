#!/usr/bin/env bash
# Downloads (never installs) the Debian 12 packages that a headless Strata build needs and that
# the lent GPU machine lacks, for `scripts/device-check.sh --build` (the fallback when the packed
# check cannot run there), into an ignored folder that travels with the device tool's `carry`,
# and unpacks them into a prefix there (scripts/unpack-device-deps.sh):
#   scripts/fetch-device-deps.sh [deps-dir]           (default: device-deps; run from anywhere)
# The GPU machine has python3 + torch, nvcc, CMake and ninja, and none of these: Eigen, Spectra,
# HDF5 (with the libraries its libhdf5 needs: libaec/libsz and libcurl's chain), zlib, libdeflate, PCRE2,
# utf8proc, SentencePiece, nlohmann-json, GoogleTest/GMock, the gloo headers (c10d's Gloo
# group), OpenBLAS (the CPU geometry backend's cblas, with libgfortran) and pkg-config (pkgconf).
# Runtime libraries that the machine already has are not used from here: scripts/device-check.sh
# puts on the loader's path only those whose soname `ldconfig -p` does not list there.
set -euo pipefail
cd "$(dirname "$0")/.."
deps=${1:-device-deps}
packages=(
  libeigen3-dev libspectra-dev nlohmann-json3-dev libgtest-dev libgmock-dev libgloo-dev
  libhdf5-dev libhdf5-103-1 libaec0 libsz2 zlib1g zlib1g-dev libdeflate0 libdeflate-dev
  libcurl4 libnghttp2-14 libidn2-0 librtmp1 libssh2-1 libpsl5 libssl3 libgssapi-krb5-2
  libldap-2.5-0 libzstd1 libbrotli1 libunistring2 libgnutls30 libhogweed6 libnettle8 libgmp10
  libkrb5-3 libk5crypto3 libcom-err2 libkrb5support0 libsasl2-2 libp11-kit0 libtasn1-6
  libkeyutils1 libffi8
  libpcre2-dev libpcre2-8-0 libutf8proc-dev libutf8proc2 libsentencepiece-dev libsentencepiece0
  libopenblas0-pthread libopenblas-pthread-dev libgfortran5 libquadmath0
  pkgconf-bin libpkgconf3
)
mkdir -p "$deps/debs"
rm -f "$deps"/debs/*.deb
# apt-get download writes into the current folder; an empty package list means `apt-get update`.
if ! (cd "$deps/debs" && apt-get download "${packages[@]}"); then
  echo "fetch-device-deps: apt-get download failed; running apt-get update once" >&2
  apt-get update -qq
  (cd "$deps/debs" && apt-get download "${packages[@]}")
fi
bash scripts/unpack-device-deps.sh "$deps"
echo "fetch-device-deps: $(ls "$deps"/debs/*.deb | wc -l) packages, $(du -sh "$deps/debs" | cut -f1) of .deb files" \
     "(what travels: carry \"$deps/debs\"; the prefix is rebuilt from them there)"
