#!/usr/bin/env bash
# Runs Strata's main job on the built-in default: the workbench when a display is available,
# otherwise a headless summary (installation, compute device, and the default model).
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
else
  echo
  echo "The built-in default model is not part of this build yet (resources/models/default)."
fi
