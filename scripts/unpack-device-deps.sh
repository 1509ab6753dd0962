#!/usr/bin/env bash
# Unpacks the Debian packages of scripts/fetch-device-deps.sh into a prefix that a headless build
# can use wherever the checkout lands (the lent GPU machine, a clean clone here), never over `/`:
#   scripts/unpack-device-deps.sh [deps-dir]          (default: device-deps)
# Reads <deps-dir>/debs/*.deb, writes <deps-dir>/prefix/usr/... (replaced each time). Then:
# drops documentation, static libraries other than GoogleTest's, and Fortran/C++ HDF5 wrappers;
# turns absolute symbolic links into relative ones; rewrites the pkg-config files used by the
# build so that they name their own folder (${pcfiledir}) instead of /usr; adds the links that
# Debian's `alternatives` would make (libopenblas.so, cblas.h). Uses dpkg-deb where there is one,
# else ar + tar (any machine with binutils).
set -euo pipefail
deps=${1:-device-deps}
[[ -d $deps/debs ]] || { echo "unpack-device-deps: no $deps/debs (run scripts/fetch-device-deps.sh)" >&2; exit 2; }
prefix=$deps/prefix
rm -rf "$prefix"
mkdir -p "$prefix"

unpack_one() {  # <deb> <dir>
  if command -v dpkg-deb >/dev/null; then
    dpkg-deb -x "$1" "$2"
    return
  fi
  local member
  member=$(ar t "$1" | grep '^data\.tar')
  case $member in
    *.xz) ar p "$1" "$member" | tar -xJ -C "$2" ;;
    *.zst) ar p "$1" "$member" | zstd -dc | tar -x -C "$2" ;;
    *.gz) ar p "$1" "$member" | tar -xz -C "$2" ;;
    *) ar p "$1" "$member" | tar -x -C "$2" ;;
  esac
}
count=0
for deb in "$deps"/debs/*.deb; do
  unpack_one "$deb" "$prefix"
  count=$((count + 1))
done

usr=$prefix/usr
lib=$usr/lib/x86_64-linux-gnu
# What the build never reads (the carried .debs stay whole; this only keeps the prefix small).
rm -rf "$usr/share/doc" "$usr/share/man" "$usr/share/lintian" "$usr/src"
find "$prefix" -name '*.a' ! -name 'libgtest*.a' ! -name 'libgmock*.a' -delete
find "$lib" -maxdepth 1 -name 'libhdf5_serial*fortran*' -delete

# Absolute links would point at this machine's /usr: make them relative inside the prefix.
while IFS= read -r link; do
  target=$(readlink "$link")
  ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$prefix$target")" "$link"
done < <(find "$prefix" -type l -lname '/*')
# Links left dangling by what was dropped above (or by alternatives) are removed.
find "$prefix" -type l ! -exec test -e {} \; -delete

# pkg-config files name /usr: name the folder they sit in instead (pkgconf and pkg-config both
# define ${pcfiledir}).
while IFS= read -r pc; do
  up=$(realpath -m --relative-to="$(dirname "$pc")" "$prefix")
  sed -i "s#\(=\|-I\|-L\)/usr\(/\|\$\)#\1\${pcfiledir}/$up/usr\2#g" "$pc"
done < <(find "$prefix" -name '*.pc')

# Debian's alternatives system would link these; dpkg-deb -x runs no maintainer scripts.
blas=$lib/openblas-pthread
[[ -e $blas/libopenblas.so ]] || ln -sfn libopenblas.so.0 "$blas/libopenblas.so"
echo "unpack-device-deps: $count packages into $prefix ($(du -sh "$prefix" | cut -f1))"
