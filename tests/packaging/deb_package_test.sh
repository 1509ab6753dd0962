#!/usr/bin/env bash
# Builds the Debian package of a build tree (cpack -G DEB), checks its control data and
# contents, unpacks it into a scratch root and runs the unpacked strata-cli on the unpacked
# default model — the binaries find share/strata relative to themselves, so no install is
# needed. Usage: deb_package_test.sh BUILD_DIR VERSION GUI(ON|OFF). Exit 77 = skipped.
set -euo pipefail
build="$1" version="$2" gui="$3"

for tool in cpack dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not found"; exit 77; }
done
fail() { echo "FAIL: $*" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
start=$SECONDS
if ! (cd "$build" && cpack -G DEB -B "$work/out") >"$work/cpack.log" 2>&1; then
  cat "$work/cpack.log"
  fail "cpack -G DEB failed"
fi
deb="$work/out/strata_${version}_amd64.deb"
[[ -f "$deb" ]] || fail "no $deb (found: $(ls "$work/out"))"
echo "cpack: $(basename "$deb"), $(du -h "$deb" | cut -f1), $((SECONDS - start)) s"

# Control data: dpkg-shlibdeps' dependencies plus the BLAS we ask for.
dpkg-deb -f "$deb" Package Version Architecture Installed-Size Depends
depends="$(dpkg-deb -f "$deb" Depends)"
# LibTorch comes from Strata's Python environment (packaging/CMakeLists.txt), not from a package.
expected=(libc6 "libstdc\\+\\+6" libopenblas0-pthread "libhdf5-[0-9]")
[[ "$gui" == "ON" ]] && expected+=(libqt6widgets6 libqt6gui6 libqt6core6 "libqcustomplot")
for package in "${expected[@]}"; do
  grep -Eq "(^|, )${package}" <<<"$depends" || fail "Depends lacks $package: $depends"
done
[[ "$(dpkg-deb -f "$deb" Architecture)" == amd64 ]] || fail "not amd64"
[[ "$(dpkg-deb -f "$deb" Version)" == "$version" ]] || fail "version is not $version"

root="$work/root"
dpkg-deb -x "$deb" "$root"
usr="$root/usr"
[[ -x "$usr/bin/strata-cli" ]] || fail "no usr/bin/strata-cli"
model="$usr/share/strata/models/default"
for file in config.json model.safetensors tokenizer.json; do
  [[ -f "$model/$file" ]] || fail "default model lacks $file"
done
[[ -f "$usr/share/strata/python/verify_transformers.py" ]] || fail "no share/strata/python/verify_transformers.py (verify)"

# The unpacked binaries run: system libraries only, data found next to them.
out="$("$usr/bin/strata-cli" --version)"
grep -q "$version" <<<"$out" || fail "strata-cli --version printed: $out"
echo "strata-cli --version: $out"
out="$("$usr/bin/strata-cli" inspect "$model")"
echo "$out"
grep -qi "llama" <<<"$out" || fail "inspect did not name the architecture"
grep -Eq "836[,. ]?992|836992" <<<"$out" || fail "inspect did not report 836,992 parameters"

# Plugins: whatever the build installs under lib/strata/plugins is in the package.
if grep -rqs --include=cmake_install.cmake "lib/strata/plugins" "$build/plugins"; then
  [[ -n "$(ls -A "$usr/lib/strata/plugins" 2>/dev/null)" ]] || fail "no plugins in lib/strata/plugins"
  echo "plugins: $(ls "$usr/lib/strata/plugins" | tr '\n' ' ')"
fi

if [[ "$gui" == "ON" ]]; then
  [[ -x "$usr/bin/strata" ]] || fail "no usr/bin/strata"
  desktop="$usr/share/applications/io.github.strata.Strata.desktop"
  metainfo="$usr/share/metainfo/io.github.strata.Strata.metainfo.xml"
  icon="$usr/share/icons/hicolor/scalable/apps/io.github.strata.Strata.svg"
  for file in "$desktop" "$metainfo" "$icon"; do [[ -s "$file" ]] || fail "missing ${file#$root}"; done
  grep -q '^Exec=strata' "$desktop" || fail "desktop file does not run strata"
  grep -q '^Icon=io.github.strata.Strata$' "$desktop" || fail "desktop file names another icon"
  if command -v desktop-file-validate >/dev/null; then
    desktop-file-validate "$desktop" || fail "desktop-file-validate"
  else
    echo "note: desktop-file-validate not installed (desktop-file-utils); checked keys only"
  fi
  if command -v appstreamcli >/dev/null; then
    appstreamcli validate --no-net --pedantic "$metainfo" || fail "appstreamcli validate"
  else
    echo "note: appstreamcli not installed (appstream); metainfo not validated"
  fi
fi
echo "OK in $((SECONDS - start)) s"
