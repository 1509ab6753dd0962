#!/usr/bin/env bash
# Re-renders docs/images/workbench.png: a Llama-3.2-1B-shaped folder (real config and
# safetensors header, weights as a sparse zero file) opened in the workbench under Xvfb.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${STRATA_BUILD_DIR:-$here/build}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$here/scripts/make_screenshot_model.py" "$work/Llama-3.2-1B-layout" >/dev/null
xvfb-run -a "$build_dir/app/gui/strata" --screenshot "$here/docs/images/workbench.png" \
  "$work/Llama-3.2-1B-layout"
echo "wrote docs/images/workbench.png"
