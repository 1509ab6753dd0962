#!/usr/bin/env bash
# Packs the GPU device check, built here, so that the lent GPU machine builds nothing
# (DEVELOPERS.md, "GPU device check"; run it as `scripts/device-check.sh --pack`):
#
#   scripts/device-pack.sh [--no-build]
#                                 builds strata-cli, strata-geometry-bench and strata_device_tests
#                                 in build/ and writes device-pack/ (ignored; carry it):
#     device-pack/strata-device-pack.tar.xz   one archive, unpacked there by
#                                             `scripts/device-check.sh --run-packed`:
#         main/                the checkout's files as they are now (tracked and untracked, not
#                              ignored; docs/ aside), with the stripped programs at their
#                              build-folder paths (main/build/app/cli/strata-cli, ...)
#         lib/<soname>         every runtime library the programs load that is neither glibc,
#                              libstdc++/libgcc, the torch wheel's (torch/lib, nvidia/...) nor
#                              CUDA's: Debian's HDF5, OpenBLAS, PCRE2, utf8proc, SentencePiece
#                              and their chain
#         manifest.json        what the run side needs (below)
#     device-pack/manifest.json               the same manifest, readable without unpacking
#
# The manifest names the build commit (and the files that differed from it), the torch version
# the programs were linked against (the run refuses another), the CUDA architectures compiled,
# the paths compiled into the programs that the run recreates as links (the checkout, ../shared,
# the Python environment's site-packages and python), each program's RUNPATH and size, and each
# carried library's soname, origin and Debian package.
#
# --no-build packs the programs as they are in the build folder (while the tree does not build,
# e.g. in the middle of someone's change); the manifest says so, with each program's date.
#
# Environment: DEVICE_PACK_BUILD (build folder, default build; it must be configured, with CUDA,
#   by scripts/setup.sh), DEVICE_PACK_DIR (default device-pack), DEVICE_PACK_XZ (xz options,
#   default "-6 -T2").
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${DEVICE_PACK_BUILD:-build}
dest=${DEVICE_PACK_DIR:-device-pack}
targets=(strata-cli strata-geometry-bench strata_device_tests)
# Relative to the build folder: what the device tests and bench/device_benchmarks.py execute.
programs=(app/cli/strata-cli bench/strata-geometry-bench tests/strata_device_tests)
started=$(date +%s)
build_now=1
for arg in "$@"; do
  case $arg in
    --no-build) build_now=0 ;;
    *) echo "device-pack: unknown option $arg (--no-build)" >&2; exit 2 ;;
  esac
done

die() { echo "device-pack: $*" >&2; exit 2; }

cache=$build/CMakeCache.txt
[[ -f $cache ]] || die "no $cache: configure the build first (scripts/setup.sh)"
cached() { grep -m 1 "^$1:" "$cache" | cut -d= -f2-; }
source_dir=$(cached CMAKE_HOME_DIRECTORY)
build_abs=$(cd "$build" && pwd)
[[ $(realpath "$source_dir") == "$root" ]] || die "$cache belongs to $source_dir, not to this checkout ($root)"
case $build_abs/ in
  "$root"/*) build_rel=${build_abs#"$root"/} ;;
  *) die "$build_abs is outside the checkout: the run side recreates only the checkout's path" ;;
esac
python=$(cached STRATA_PYTHON)
torch_dir=$(cached Torch_DIR)   # <site-packages>/torch/share/cmake/Torch
[[ -x $python && -n $torch_dir ]] || die "$cache names no usable STRATA_PYTHON / Torch_DIR"
site_packages=$(realpath -m "$torch_dir/../../../..")
[[ -d $site_packages/torch/lib ]] || die "no torch/lib under $site_packages (from Torch_DIR in $cache)"
# The CUDA architectures the geometry kernels are compiled for (none: a build without nvcc).
archs=$(grep -o 'code=sm_[0-9]*' "$build/build.ninja" 2>/dev/null | sort -u | cut -d= -f2 | tr '\n' ' ' || true)
[[ -n $archs ]] || die "$build is configured without CUDA (no nvcc): the device check needs the CUDA backend"

# --- Build (serialised with every other build of this checkout) --------------------------------
if [[ $build_now == 1 ]]; then
  echo "== device-pack: building ${targets[*]} in $build"
  flock /tmp/strata-build.lock ninja -C "$build" "${targets[@]}" ||
    die "the build of ${targets[*]} in $build failed (above); --no-build packs what is there"
  echo "== device-pack: built in $(($(date +%s) - started)) s (waiting for the lock included)"
else
  echo "== device-pack: --no-build: packing the programs in $build as they are"
fi

# --- Stage ------------------------------------------------------------------------------------
stage=$(mktemp -d "${TMPDIR:-/tmp}/strata-device-pack.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/main" "$stage/lib"

# The checkout's files, as the device tool copies them (tracked + untracked, not ignored), so
# that the programs read resources/, tests/python/, bench/*.py of the very state they were built
# from. docs/ (screenshots) is never read at run time.
git ls-files -z --cached --others --exclude-standard -- . ':!docs' |
  while IFS= read -r -d '' f; do [[ -f $f || -L $f ]] && printf '%s\0' "$f"; done |
  tar --null -T - -cf - | tar -xf - -C "$stage/main"

# The programs, stripped (symbols only; the RUNPATH and the CUDA kernels stay).
for p in "${programs[@]}"; do
  [[ -x $build/$p ]] || die "$build/$p was not built"
  mkdir -p "$stage/main/$build_rel/$(dirname "$p")"
  strip --strip-unneeded -o "$stage/main/$build_rel/$p" "$build/$p"
done

# Runtime libraries: what the loader resolves here for the unstripped programs, less what the
# GPU machine has by construction (glibc, the compiler's C++ runtime, the torch wheel with its
# nvidia/* libraries, the CUDA toolkit's).
glibc='^(ld-linux.*|linux-vdso|libc|libm|libdl|libpthread|librt|libutil|libresolv|libanl|libmvec|libnsl)\.so'
compiler_runtime='^(libstdc\+\+|libgcc_s)\.so'
cuda='^(libcu|libnv|libnccl)'
declare -A seen=()
libraries_tsv=$stage/libraries.tsv
: >"$libraries_tsv"
for p in "${programs[@]}"; do
  while read -r soname path; do
    [[ -n ${seen[$soname]:-} ]] && continue
    seen[$soname]=1
    [[ $path == not ]] && die "$build/$p: the loader does not find $soname here"
    [[ $soname =~ $glibc || $soname =~ $compiler_runtime || $soname =~ $cuda ]] && continue
    real=$(realpath "$path")
    [[ $real == "$site_packages"/* || $real == /usr/local/cuda* ]] && continue
    cp -L "$path" "$stage/lib/$soname"
    # Debian package (usrmerge: dpkg may know the file under /usr/lib or /lib).
    package=$( { dpkg -S "$real" || dpkg -S "${real#/usr}" || dpkg -S "/usr$real"; } 2>/dev/null | head -n 1 | cut -d: -f1 || true)
    version=$( [[ -n $package ]] && dpkg-query -W -f='${Version}' "$package" 2>/dev/null || true)
    printf '%s\t%s\t%s\t%s\n' "$soname" "$real" "${package:-?}" "${version:-?}" >>"$libraries_tsv"
  done < <(ldd "$build/$p" | awk '$2 == "=>" {print $1, $3}')
done

# --- Manifest ---------------------------------------------------------------------------------
commit=$(git rev-parse HEAD)
changed=$(git status --porcelain --untracked-files=no | awk '{print $2}' | tr '\n' ' ')
runpath=$(readelf -d "$build/${programs[0]}" | sed -n 's/.*RUNPATH.*\[\(.*\)\]/\1/p')
torch_version=$("$python" -c 'import torch; print(torch.__version__)')
torch_cuda=$("$python" -c 'import torch; print(torch.version.cuda)')
"$python" - "$stage" "$root" "$build_rel" "$python" "$site_packages" "$commit" "$changed" "$archs" \
  "$runpath" "$torch_version" "$torch_cuda" "$build_now" "${programs[@]}" <<'EOF'
import json, os, socket, sys, time
(stage, root, build_rel, python, site_packages, commit, changed, archs, runpath, torch_version,
 torch_cuda, built), programs = sys.argv[1:13], sys.argv[13:]
def mtime(p):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(os.path.getmtime(os.path.join(root, build_rel, p))))
libraries = {}
for line in open(os.path.join(stage, "libraries.tsv")):
    soname, origin, package, version = line.rstrip("\n").split("\t")
    libraries[soname] = {"from": origin, "package": package, "version": version,
                         "bytes": os.path.getsize(os.path.join(stage, "lib", soname))}
venv = os.path.dirname(os.path.dirname(python))
manifest = {
    "format": 1,
    "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "host": socket.gethostname(),
    "commit": commit, "changed_files": changed.split(),
    # False: packed with --no-build, the programs may be older than the files beside them.
    "built_now": built == "1",
    "torch": {"version": torch_version, "cuda": torch_cuda},
    "cuda_archs": archs.split(),
    # Paths compiled into the programs (STRATA_SOURCE_DIR, STRATA_CLI_PATH, the shared data
    # folder beside the checkout, STRATA_REFERENCE_PYTHON / STRATA_CONFIGURED_PYTHON, and the
    # RUNPATH into the torch wheel): the run side makes each exist as a link.
    "paths": {"source": root, "build": os.path.join(root, build_rel), "build_rel": build_rel,
              "shared": os.path.join(os.path.dirname(root), "shared"),
              "site_packages": site_packages, "python": python, "venv": venv},
    "runpath": runpath.split(":"),
    "programs": {p: {"bytes": os.path.getsize(os.path.join(stage, "main", build_rel, p)), "built": mtime(p)}
                 for p in programs},
    "libraries": libraries,
}
json.dump(manifest, open(os.path.join(stage, "manifest.json"), "w"), indent=2)
EOF
rm "$libraries_tsv"

# --- Archive ----------------------------------------------------------------------------------
mkdir -p "$dest"
rm -f "$dest/strata-device-pack.tar.xz" "$dest/manifest.json"
echo "== device-pack: compressing ($(du -sh "$stage" | cut -f1) staged)"
t_xz=$(date +%s)
tar -C "$stage" -cf - manifest.json main lib | xz ${DEVICE_PACK_XZ:--6 -T2} >"$dest/strata-device-pack.tar.xz.part"
mv "$dest/strata-device-pack.tar.xz.part" "$dest/strata-device-pack.tar.xz"
cp "$stage/manifest.json" "$dest/manifest.json"
echo "== device-pack: compressed in $(($(date +%s) - t_xz)) s"
size=$(stat -c %s "$dest/strata-device-pack.tar.xz")
limit=$((60 * 1024 * 1024))   # the device tool carries 64 MiB in all, the checkout included
((size < limit)) || die "$dest/strata-device-pack.tar.xz is $((size >> 20)) MiB: too big to carry"
echo "device-pack: $dest/strata-device-pack.tar.xz, $((size / 1024)) KiB" \
     "(${#programs[@]} programs, $(ls "$stage/lib" | wc -l) libraries; commit ${commit:0:10}${changed:+, with local changes};" \
     "torch $torch_version; CUDA archs: $archs) in $(($(date +%s) - started)) s"
echo "device-pack: carry \"$dest\" with the device tool (DEVELOPERS.md, \"GPU device check\")"
