#!/usr/bin/env bash
# The packed GPU device check rehearsed here, on a CPU (DEVELOPERS.md, "GPU device check"; run
# it as `scripts/device-check.sh --rehearse`):
#
#   scripts/device-rehearse.sh [--no-pack] [--no-build]
#
# 1. Packs (scripts/device-pack.sh; --no-build packs what build/ holds; --no-pack keeps the pack
#    in device-pack/).
# 2. Copies the checkout as the device tool does (tracked and untracked files that git does not
#    ignore, plus the carried device-pack/) to <dir>/machine/checkout, and ../shared beside it,
#    and says how much would travel (the device tool carries 64 MiB in all).
# 3. Runs `scripts/device-check.sh --run-packed --on-cpu` there inside a private mount namespace
#    (unshare; root) in which the folders holding the compiled-in paths (the checkout's parent,
#    the Python environment's parent) are empty tmpfs: as on the GPU machine, none of them exists
#    and the run must make them. "This machine's python" is Strata's environment, mounted at
#    <dir>/machine/venv. Every carried library is put on the loader's path
#    (DEVICE_CHECK_EXPOSE=all), as on a machine that had none of them. The CUDA tests skip; their
#    backbone and training comparisons run on the CPU; the benchmarks run at toy sizes.
# The report is <dir>/out/device-check.json and .log, with the pack's and the copy's sizes and
# times in <dir>/out/rehearsal.json. <dir>: DEVICE_REHEARSE_DIR, default /tmp/strata-device-rehearsal.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
sim=${DEVICE_REHEARSE_DIR:-/tmp/strata-device-rehearsal}
pack_args=()
do_pack=1
for arg in "$@"; do
  case $arg in
    --no-pack) do_pack=0 ;;
    --no-build) pack_args+=(--no-build) ;;
    *) echo "device-rehearse: unknown option $arg (--no-pack, --no-build)" >&2; exit 2 ;;
  esac
done
command -v unshare >/dev/null && [[ $(id -u) == 0 ]] ||
  { echo "device-rehearse: needs unshare and root (a private mount namespace hides the compiled-in paths)" >&2; exit 2; }
case $sim in
  /tmp/*) ;;
  *) echo "device-rehearse: DEVICE_REHEARSE_DIR must be under /tmp (it is replaced): $sim" >&2; exit 2 ;;
esac

t0=$(date +%s)
if [[ $do_pack == 1 ]]; then
  bash scripts/device-pack.sh "${pack_args[@]}"
fi
t_pack=$(($(date +%s) - t0))
manifest=$root/device-pack/manifest.json
[[ -f $manifest ]] || { echo "device-rehearse: no $manifest (scripts/device-check.sh --pack)" >&2; exit 2; }
read -r source_dir venv < <(python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))["paths"]
print(p["source"], p["venv"])' "$manifest")
[[ -d $venv/bin ]] || { echo "device-rehearse: no Python environment at $venv (from $manifest)" >&2; exit 2; }

# What the device tool would send: the checkout's files, device-pack/ (carried), ../shared.
t1=$(date +%s)
rm -rf "$sim"
mkdir -p "$sim/machine/checkout" "$sim/out"
git ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d '' f; do [[ -f $f || -L $f ]] && printf '%s\0' "$f"; done |
  tar --null -T - -cf - | tar -xf - -C "$sim/machine/checkout"
cp -r device-pack "$sim/machine/checkout/device-pack"
rm -rf "$sim/machine/checkout/device-pack/out"
cp -r "$(dirname "$source_dir")/shared" "$sim/machine/shared"
travel=$(du -sb "$sim/machine/checkout" | cut -f1)
t_copy=$(($(date +%s) - t1))
echo "device-rehearse: the copy that travels: $((travel >> 20)) MiB (limit 64 MiB) in $sim/machine/checkout"

# The run, where neither the checkout's folder nor the Python environment's exist.
t2=$(date +%s)
status=0
unshare --mount --propagation private env SIM="$sim" VENV="$venv" \
  HIDE_SOURCE="$(dirname "$source_dir")" HIDE_VENV="$(dirname "$venv")" bash -c '
  set -e
  mkdir -p "$SIM/machine/venv"
  mount --bind "$VENV" "$SIM/machine/venv"
  mount -t tmpfs strata-rehearsal "$HIDE_SOURCE"
  mount -t tmpfs strata-rehearsal "$HIDE_VENV"
  echo "device-rehearse: $HIDE_SOURCE and $HIDE_VENV are empty here: $(ls -A "$HIDE_SOURCE" "$HIDE_VENV" | tr "\n" " ")"
  cd "$SIM/machine/checkout"
  OUT=$SIM/out STRATA_PYTHON=$SIM/machine/venv/bin/python DEVICE_CHECK_EXPOSE=all \
    DEVICE_CHECK_UNPACK=$SIM/unpack bash scripts/device-check.sh --run-packed --on-cpu
' || status=$?
t_run=$(($(date +%s) - t2))

python3 - "$sim/out/rehearsal.json" "$root/device-pack/strata-device-pack.tar.xz" "$travel" \
  "$t_pack" "$t_copy" "$t_run" "$status" "$do_pack" <<'EOF'
import json, os, sys
out, archive, travel, t_pack, t_copy, t_run, status, packed = sys.argv[1:9]
summary = {"archive_bytes": os.path.getsize(archive), "travel_bytes": int(travel),
           "pack_seconds": int(t_pack) if packed == "1" else None, "copy_seconds": int(t_copy),
           "run_seconds": int(t_run), "exit": int(status)}
json.dump(summary, open(out, "w"), indent=2)
print("device-rehearse:", json.dumps(summary))
EOF
echo "device-rehearse: $([[ $status == 0 ]] && echo passed || echo FAILED); report in $sim/out/"
exit "$status"
