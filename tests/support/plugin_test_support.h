#pragma once
// Plugins for tests: the real ones built into the build tree (STRATA_PLUGIN_BUILD_DIR) and the
// deliberately broken test-only ones (STRATA_TEST_PLUGIN_DIR, tests/plugins), loaded through the
// same loader the applications use; matrices to feed them.

#include <cstdint>
#include <string>
#include <vector>

#include "plugin/plugin_loader.h"

namespace strata::testing {

/** loadPlugins({STRATA_PLUGIN_BUILD_DIR}), once per process. */
const plugin::PluginSet& builtPlugins();

/** Runs the built plugin metric `name` on X (n×d) and optional previous Y (n×dy) via the C ABI. */
double runBuiltMetric(const std::string& name, const std::vector<float>& x, int64_t n, int64_t d,
                      const std::vector<float>* y = nullptr, int64_t dy = 0,
                      const std::string& options = {});

/** n points uniform in [0,1]^k, embedded by a random orthonormal map into R^d (+ offset). */
std::vector<float> uniformCubeInSubspace(int64_t n, int64_t k, int64_t d, uint64_t seed);

/** n×d standard normal entries. */
std::vector<float> gaussianMatrix(int64_t n, int64_t d, uint64_t seed);

/** Y = X·Q·scale (+ shift) with Q a random d×d orthogonal matrix. */
std::vector<float> rotatedScaled(const std::vector<float>& x, int64_t n, int64_t d, double scale,
                                 uint64_t seed);

/** Writes fixture.json, X.f32 (and Y.f32) into `folder`, runs tests/reference/
 *  plugin_metrics_reference.py and returns reference.json's text; empty + `why` when no Python
 *  with numpy and scikit-learn is present. */
std::string pluginReference(const std::string& folder, const std::vector<float>& x, int64_t n,
                            int64_t d, const std::vector<float>* y, int64_t dy, std::string& why);

}  // namespace strata::testing
