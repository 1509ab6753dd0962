#!/usr/bin/env bash
# Re-renders README's images in docs/images/:
#  * workbench.png: a Llama-3.2-1B-shaped folder (real config and safetensors header, weights as
#    a sparse zero file) opened in the workbench under Xvfb;
#  * the views with real data (layer-geometry.png, layer-detail.png, training.png,
#    chunk-routing.png, alignment.png, and for docs/desktop.md's first ten minutes first-run.png,
#    capture-dialog.png, training-launch.png): copied from what tests/views/screenshot_test renders
#    offscreen into <build>/screenshots from the built-in default model and tiny real runs.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${STRATA_BUILD_DIR:-$here/build}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$here/scripts/make_screenshot_model.py" "$work/Llama-3.2-1B-layout" >/dev/null
xvfb-run -a "$build_dir/app/gui/strata" --screenshot "$here/docs/images/workbench.png" \
  "$work/Llama-3.2-1B-layout"
echo "wrote docs/images/workbench.png"

# The environment ctest gives it: the built-in default model is the byte-level 4-layer Llama of
# resources/models/default (not SmolLM2-135M, which first-run would capture and score for longer
# than QtTest's 5-minute limit per test function).
QT_QPA_PLATFORM=offscreen OMP_NUM_THREADS=2 OMP_WAIT_POLICY=PASSIVE \
  STRATA_DEFAULT_MODEL="$here/resources/models/default" \
  "$build_dir/tests/views/screenshot_test" >/dev/null
for view in layer-geometry layer-detail training chunk-routing alignment first-run \
  capture-dialog training-launch; do
  cp "$build_dir/screenshots/$view.png" "$here/docs/images/$view.png"
  echo "wrote docs/images/$view.png"
done
