// The TwoNN plugin: metric twonn_id, the intrinsic dimension of a layer's hidden states
// (twonn.h has the definition). Lower = the tokens lie on a lower-dimensional manifold, the same
// direction as k_eff, so it declares "higher is better" = no.

#include <exception>
#include <string>

#include "../common/plugin_options.h"
#include "plugin/strata_plugin.h"
#include "twonn.h"

namespace {

using namespace strata_plugins;

const StrataOption kOptions[] = {
    {"estimator", "fit",
     "fit: least squares through the origin on −log(1−F) vs log μ (Facco et al. 2017); "
     "mle: N / Σ log μ"},
    {"discard", "0.1", "share of the largest μ = r2/r1 the fit leaves out (paper: 0.1)"},
};

int compute(const StrataMatrix* layer, const StrataMatrix*, const char* options, double* value,
            char* error, size_t errorSize) {
  try {
    const auto parsed = parseOptions(options);
    TwoNNEstimator estimator = TwoNNEstimator::Fit;
    if (auto it = parsed.find("estimator"); it != parsed.end()) {
      if (it->second == "mle")
        estimator = TwoNNEstimator::MaximumLikelihood;
      else if (it->second != "fit")
        throw std::invalid_argument("estimator must be fit or mle, got '" + it->second + "'");
    }
    const double discard = numberOption(parsed, "discard", 0.1);
    // Duplicate rows are merged first (twonn.h); too few distinct rows fail naming the count.
    *value = twoNNDimension(twoNNRatios(layer->data, layer->rows, layer->cols).ratios, estimator,
                            discard);
    return 0;
  } catch (const std::exception& e) {
    reportError(error, errorSize, e.what());
  } catch (...) {
    reportError(error, errorSize, "unknown failure");
  }
  return 1;
}

const StrataMetric kMetrics[] = {{
    "twonn_id",
    "TwoNN intrinsic dimension (Facco et al. 2017) of the layer's tokens",
    0,
    kOptions,
    int32_t(sizeof kOptions / sizeof kOptions[0]),
    compute,
}};

const StrataPlugin kPlugin = {STRATA_PLUGIN_ABI_VERSION,
                              "twonn",
                              "1.0",
                              "Intrinsic dimension by the two-nearest-neighbour ratio",
                              kMetrics,
                              1,
                              nullptr,
                              0};

}  // namespace

extern "C" STRATA_PLUGIN_EXPORT const StrataPlugin* strata_plugin_entry(void) { return &kPlugin; }
