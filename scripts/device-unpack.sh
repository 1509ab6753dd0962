#!/usr/bin/env bash
# The packed device check's setup on the GPU machine (scripts/device-check.sh --run-packed runs
# it as its `unpack` phase; DEVELOPERS.md, "GPU device check"):
#
#   scripts/device-unpack.sh ARCHIVE UNPACK_DIR PYTHON STATE_DIR [COMPUTE_CAP]
#
# 1. Refuses when PYTHON's torch is not the version the programs were linked against (the
#    archive's manifest.json, scripts/device-pack.sh): they would load another LibTorch.
# 2. Unpacks ARCHIVE into UNPACK_DIR (replaced).
# 3. Makes the paths compiled into the programs exist, as links (parents created):
#      the checkout it was built in   -> UNPACK_DIR/main (the programs and the files they read)
#      ../shared beside that checkout -> this machine's shared folder (DEVICE_CHECK_SHARED, else
#                                        ../shared or shared/ beside this checkout), and
#                                        UNPACK_DIR/shared too: "<checkout>/../shared" resolves
#                                        through the checkout's link
#      the Python environment's site-packages -> PYTHON's (where torch/lib and nvidia/cu13/lib,
#                                        which the programs' RUNPATH names, are)
#      the environment's bin/python   -> a two-line script that runs PYTHON
#    A path that already leads where it should is left alone; a link this script made before
#    (UNPACK_DIR.links) is replaced; anything else there is an error, never overwritten.
# 4. Puts on the loader's path (UNPACK_DIR/runtime) only the carried libraries whose soname
#    `ldconfig -p` does not list here (DEVICE_CHECK_EXPOSE=all: every one), so that nothing this
#    machine's own Python loads is shadowed by a carried copy; then checks with ldd that every
#    program finds every library (one the torch wheel or CUDA keeps elsewhere here is linked in).
# Writes STATE_DIR/unpacked.env (m_source, m_build, runtime: for device-check.sh) and
# STATE_DIR/unpacked.json (what it found and did: for the report). Exit 0 when ready, 3 when
# refused (torch version), 1 on any other problem, each with a message naming it.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
root=$PWD
archive=$1 unpack=$2 python=$3 state=$4 cap=${5:-}
t0=$(date +%s)
mkdir -p "$state"
notes=$state/unpack-notes.tsv     # kind<TAB>key<TAB>value, gathered into unpacked.json
: >"$notes"
note() { printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >>"$notes"; }

# finish STATUS [MESSAGE]: writes unpacked.json, says why when it failed, exits.
finish() {
  local status=$1
  if [[ $status -ne 0 ]]; then
    echo "device-unpack: $2" >&2
    note error "$([[ $status -eq 3 ]] && echo refused || echo failed)" "$2"
  fi
  "$python" - "$notes" "$state/unpacked.json" "${manifest:-}" "$archive" "$(($(date +%s) - t0))" <<'EOF'
import json, os, sys
notes, out, manifest, archive, seconds = sys.argv[1:6]
report = {"archive": archive, "archive_bytes": os.path.getsize(archive) if os.path.exists(archive) else None,
          "seconds": int(seconds), "links": [], "libraries": {"exposed": [], "found_elsewhere": {}, "resolved": {}},
          "warnings": []}
if manifest and os.path.exists(manifest):
    m = json.load(open(manifest))
    report["manifest"] = {k: m.get(k) for k in ("created", "host", "commit", "changed_files", "built_now",
                                               "torch", "cuda_archs", "programs", "paths")}
    report["libraries"]["carried"] = sorted(m.get("libraries", {}))
for line in open(notes):
    kind, key, value = (line.rstrip("\n").split("\t") + ["", ""])[:3]
    if kind == "link":
        target, action = value.split("|", 1)
        report["links"].append({"path": key, "target": target, "action": action})
    elif kind == "exposed":
        report["libraries"]["exposed"].append(key)
    elif kind == "elsewhere":
        report["libraries"]["found_elsewhere"][key] = value
    elif kind == "resolved":
        report["libraries"]["resolved"][key] = value
    elif kind == "warning":
        report["warnings"].append(value)
    elif kind == "error":
        report[key] = value
    else:
        report[kind] = value
json.dump(report, open(out, "w"), indent=2)
EOF
  exit "$status"
}

# extract ARCHIVE DIR [MEMBER...]: tar with xz, or Python's tarfile where there is no xz.
extract() {
  local archive=$1 dir=$2
  shift 2
  if command -v xz >/dev/null; then
    tar -xJf "$archive" -C "$dir" "$@"
  else
    "$python" - "$archive" "$dir" "$@" <<'EOF'
import sys, tarfile
archive, folder, members = sys.argv[1], sys.argv[2], sys.argv[3:]
with tarfile.open(archive) as tar:
    chosen = [tar.getmember(m) for m in members] or None
    # "tar": keeps modes (the programs' exec bits) and links, as tar(1) does.
    tar.extractall(folder, members=chosen, **({"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}))
EOF
  fi
}

# --- The manifest and the torch version ----------------------------------------------------------
[[ -f $archive ]] || finish 1 "no $archive: pack it where it was built (scripts/device-check.sh --pack) and carry its folder"
manifest=$(dirname "$archive")/manifest.json
if [[ ! -f $manifest ]]; then   # the copy beside the archive is a convenience; the archive has one
  manifest=$state/manifest.json
  extract "$archive" "$state" manifest.json || finish 1 "$archive holds no manifest.json"
fi
# field NAME: one value of the manifest (dotted names for nested ones).
field() {
  "$python" -c 'import json, sys
value = json.load(open(sys.argv[1]))
for key in sys.argv[2].split("."):
    value = value[key]
print(" ".join(value) if isinstance(value, list) else value)' "$manifest" "$1"
}
want_torch=$(field torch.version) || finish 1 "$manifest is unreadable"
machine=$("$python" -c 'import os, torch; print(torch.__version__); print(os.path.dirname(os.path.dirname(os.path.abspath(torch.__file__))))' 2>&1) ||
  finish 1 "$python cannot import torch: $machine"
have_torch=$(sed -n 1p <<<"$machine")
machine_sp=$(sed -n 2p <<<"$machine")
note machine_torch "$have_torch"
note machine_site_packages "$machine_sp"
echo "== pack: commit $(field commit | cut -c1-10), packed $(field created), built_now=$(field built_now), torch $want_torch, CUDA $(field cuda_archs)"
echo "== this machine: $python, torch $have_torch in $machine_sp"
if [[ $have_torch != "$want_torch" ]]; then
  finish 3 "the programs were linked against torch $want_torch ($manifest), but $python has torch $have_torch: refusing (they would load another LibTorch). Pack against $have_torch, or build here: scripts/device-check.sh --build"
fi
if [[ -n $cap && " $(field cuda_archs) " != *" sm_$cap "* ]]; then
  echo "device-unpack: WARNING: this GPU is sm_$cap, the packed kernels are for $(field cuda_archs) only" >&2
  note warning arch "this GPU is sm_$cap; the packed CUDA kernels are for $(field cuda_archs)"
fi

# --- Unpack --------------------------------------------------------------------------------------
case $unpack in
  /*) ;;
  *) finish 1 "the unpack folder must be an absolute path (it becomes the target of links): $unpack" ;;
esac
rm -rf "$unpack"
mkdir -p "$unpack" || finish 1 "cannot create $unpack"
extract "$archive" "$unpack" || finish 1 "cannot unpack $archive into $unpack"
echo "== unpacked $(du -sh "$archive" | cut -f1) into $unpack ($(du -sh "$unpack" | cut -f1)) in $(($(date +%s) - t0)) s"
m_source=$(field paths.source)
m_build=$(field paths.build)
m_shared=$(field paths.shared)
m_site_packages=$(field paths.site_packages)
m_python=$(field paths.python)

# --- The compiled-in paths -----------------------------------------------------------------------
links_made=$unpack.links   # every link made here, across runs: a second run may replace them
touch "$links_made"
# link_path PATH TARGET: makes PATH lead to TARGET.
link_path() {
  local path=$1 target=$2
  if [[ -e $path || -L $path ]]; then
    if [[ $(realpath -m "$path") == "$(realpath -m "$target")" ]]; then
      echo "   $path: already $target"
      note link "$path" "$target|already there"
      return 0
    fi
    if [[ -L $path ]] && grep -qxF "$path" "$links_made"; then
      rm -f "$path"
    else
      finish 1 "$path (compiled into the programs) exists on this machine and is not $target: move it away, or pack from a checkout at another path"
    fi
  fi
  mkdir -p "$(dirname "$path")" || finish 1 "cannot create $(dirname "$path") for the link $path"
  ln -s "$target" "$path" || finish 1 "cannot make the link $path -> $target"
  echo "$path" >>"$links_made"
  echo "   $path -> $target"
  note link "$path" "$target|linked"
}
echo "== the paths compiled into the programs"
if [[ -d $m_source && ! -L $m_source && $(realpath "$m_source") == "$root" ]]; then
  # This checkout is where the programs were built: they go into its build folder (never over
  # a real build), and it serves its own files.
  [[ -f $m_build/CMakeCache.txt ]] &&
    finish 1 "this checkout ($root) is where the programs were built and $m_build holds a build: run its programs directly, not a pack"
  build_rel=$(field paths.build_rel)
  (cd "$unpack/main" && find "$build_rel" -type f -print0 | xargs -0 cp --parents -t "$root") ||
    finish 1 "cannot copy the programs into $m_build"
  echo "   $m_source: this checkout; the programs copied into $m_build"
  note link "$m_source" "$root|this checkout"
else
  link_path "$m_source" "$unpack/main"
fi
shared=${DEVICE_CHECK_SHARED:-}
if [[ -z $shared ]]; then
  for candidate in "$root/../shared" "$root/shared"; do
    if [[ -d $candidate ]]; then shared=$(realpath "$candidate"); break; fi
  done
fi
if [[ -n $shared && -d $shared ]]; then
  ln -s "$shared" "$unpack/shared"   # what "<checkout>/../shared/data" resolves to
  if [[ -e $m_shared && $(realpath "$m_shared") != "$shared" && ! -L $m_shared ]]; then
    # Someone's own folder: left alone (the tests' path goes through $unpack/shared anyway).
    echo "device-unpack: WARNING: $m_shared exists here and is not $shared: left as it is" >&2
    note warning shared "$m_shared exists and is not $shared"
  else
    link_path "$m_shared" "$shared"
  fi
else
  echo "device-unpack: WARNING: no shared data folder beside $root (DEVICE_CHECK_SHARED): tests that read it will say so" >&2
  note warning shared "no shared data folder found"
fi
link_path "$m_site_packages" "$machine_sp"
if [[ -e $m_python || -L $m_python ]] && ! grep -qxF "$m_python" "$links_made"; then
  echo "   $m_python: already there (STRATA_PYTHON=$python is named first anyway)"
  note link "$m_python" "$python|already there"
else
  # A script rather than a link: a link to a virtual environment's python would lose that
  # environment (Python finds pyvenv.cfg beside the path it was started by).
  mkdir -p "$(dirname "$m_python")" && rm -f "$m_python" &&
    printf '#!/bin/bash\nexec %q "$@"\n' "$python" >"$m_python" && chmod +x "$m_python" ||
    finish 1 "cannot write $m_python"
  echo "$m_python" >>"$links_made"
  echo "   $m_python: runs $python"
  note link "$m_python" "$python|script"
fi

# --- Runtime libraries ---------------------------------------------------------------------------
runtime=$unpack/runtime
mkdir -p "$runtime"
system_sonames=$({ ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null | awk 'NR > 1 {print $1}' | sort -u)
[[ -n $system_sonames ]] || echo "device-unpack: WARNING: ldconfig -p lists nothing here: every carried library is exposed" >&2
exposed=()
for so in "$unpack"/lib/*; do
  name=$(basename "$so")
  if [[ ${DEVICE_CHECK_EXPOSE:-} == all ]] || ! grep -qxF "$name" <<<"$system_sonames"; then
    ln -s "../lib/$name" "$runtime/$name"
    exposed+=("$name")
    note exposed "$name"
  fi
done
echo "== carried libraries on the loader's path: ${#exposed[@]} of $(ls "$unpack/lib" | wc -l)" \
     "($([[ ${DEVICE_CHECK_EXPOSE:-} == all ]] && echo "all: DEVICE_CHECK_EXPOSE=all" || echo "those whose soname ldconfig -p lacks")): ${exposed[*]}"
export LD_LIBRARY_PATH=$runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

programs=$("$python" -c 'import json, sys; print(" ".join(json.load(open(sys.argv[1]))["programs"]))' "$manifest")
missing() {  # sonames that some program's loader does not find
  local p
  for p in $programs; do ldd "$m_build/$p" | awk '$2 == "=>" && $3 == "not" {print $1}'; done | sort -u
}
lacking=$(missing)
sites="$machine_sp $("$python" -c 'import site; print(" ".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null)"
for so in $lacking; do
  # The torch wheel's or CUDA's, kept here where the RUNPATH does not look.
  found=$(for site in $sites; do ls "$site"/nvidia/*/lib/"$so" "$site"/torch/lib/"$so"; done 2>/dev/null
          ls /usr/local/cuda*/lib*/"$so" /usr/local/cuda*/targets/*/lib/"$so" 2>/dev/null)
  found=$(head -n 1 <<<"$found")
  if [[ -n $found ]]; then
    ln -sfn "$found" "$runtime/$so"
    echo "   $so: found at $found"
    note elsewhere "$so" "$found"
  fi
done
lacking=$(missing)
[[ -z $lacking ]] || finish 1 "the programs do not find $(echo $lacking) here (ldd $m_build/...)"
for p in $programs; do
  ldd "$m_build/$p" | awk '$2 == "=>" {print $1 "\t" $3}'
done | sort -u | while IFS=$'\t' read -r so path; do note resolved "$so" "$path"; done
echo "== every program finds its libraries:"
for so in libtorch_cuda.so libcublas.so.13 libhdf5_serial.so.103 libblas.so.3 libsentencepiece.so.0; do
  echo "   $so => $(ldd "$m_build/app/cli/strata-cli" | awk -v so="$so" '$1 == so {print $3}')"
done

printf 'm_source=%q\nm_build=%q\nruntime=%q\n' "$m_source" "$m_build" "$runtime" >"$state/unpacked.env"
finish 0
