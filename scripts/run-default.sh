#!/usr/bin/env bash
# Runs Strata's main job on the built-in default: the workbench when a display is available,
# otherwise a headless run: the installation, the default model, and the layer geometry of
# that model over a local corpus (capture + score).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${STRATA_BUILD_DIR:-$here/build}"
default_model="$here/resources/models/default"

args=()
[[ -f "$default_model/config.json" ]] && args+=("$default_model")

if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" && -x "$build_dir/app/gui/strata" ]]; then
  exec "$build_dir/app/gui/strata" "${args[@]}"
fi

echo "No display found: printing a headless summary (set DISPLAY to open the workbench)."
echo
"$build_dir/app/cli/strata-cli" about
if ((${#args[@]})); then
  echo
  "$build_dir/app/cli/strata-cli" inspect "${args[@]}"
  # The main job: capture the default model over a Python source file (a corpus every Debian
  # machine has) and score the geometry of every layer.
  corpus="${STRATA_DEFAULT_CORPUS:-/usr/lib/python3.11/argparse.py}"
  echo
  "$build_dir/app/cli/strata-cli" score --model "$default_model" --corpus "$corpus" \
    --tokens 4096 --seq-len 128 --out "$build_dir/default-acts.h5"
else
  echo
  echo "The built-in default model is not part of this build yet (resources/models/default)."
fi
