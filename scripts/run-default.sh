#!/usr/bin/env bash
# Runs Strata's main job on the built-in default: the workbench when a display is available,
# otherwise a headless run: the installation, the default model, and the layer geometry of
# that model over a local corpus (capture + score).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${STRATA_BUILD_DIR:-$here/build}"
default_model="$here/resources/models/default"

if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" && -x "$build_dir/app/gui/strata" ]]; then
  # Lands on the default model's Layer Geometry: computed once, then cached.
  exec "$build_dir/app/gui/strata" --default
fi

echo "No display found: printing a headless summary (set DISPLAY to open the workbench)."
echo
"$build_dir/app/cli/strata-cli" about
if [[ -f "$default_model/config.json" ]]; then
  echo
  "$build_dir/app/cli/strata-cli" inspect "$default_model"
  # The main job, as the workbench shows it: the default model's layer geometry over a Python
  # source file (argparse.py, a corpus every Debian machine has; STRATA_DEFAULT_CORPUS picks
  # another), captured and scored the first time, read from the store cached in the user's
  # data folder (STRATA_DATA_DIR, else ~/.local/share/strata) afterwards.
  echo
  "$build_dir/app/cli/strata-cli" score --default
else
  echo
  echo "The built-in default model is not part of this build yet (resources/models/default)."
fi
