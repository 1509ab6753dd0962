// The CKA plugin: metric cka_prev, linear CKA between layer l and layer l−1 over the same tokens
// (linear_cka.h). High = layer l keeps layer l−1's representation (up to rotation and scale);
// it declares "higher is better" = yes. Undefined (NaN) at the first layer of the store.

#include <cmath>
#include <exception>

#include "../common/plugin_options.h"
#include "linear_cka.h"
#include "plugin/strata_plugin.h"

namespace {

using namespace strata_plugins;

int compute(const StrataMatrix* layer, const StrataMatrix* previous, const char* options,
            double* value, char* error, size_t errorSize) {
  try {
    if (!parseOptions(options).empty()) throw std::invalid_argument("cka_prev takes no options");
    if (previous == nullptr) {
      *value = std::nan("");  // no layer l−1: not defined here
      return 0;
    }
    if (previous->rows != layer->rows)
      throw std::invalid_argument("layers l and l−1 have different token counts");
    *value = linearCka(layer->data, layer->rows, layer->cols, previous->data, previous->cols);
    return 0;
  } catch (const std::exception& e) {
    reportError(error, errorSize, e.what());
  } catch (...) {
    reportError(error, errorSize, "unknown failure");
  }
  return 1;
}

const StrataMetric kMetrics[] = {{
    "cka_prev",
    "linear CKA (Kornblith et al. 2019) between layer l and layer l-1 over the same tokens",
    1,
    nullptr,
    0,
    compute,
}};

const StrataPlugin kPlugin = {STRATA_PLUGIN_ABI_VERSION,
                              "cka",
                              "1.0",
                              "Similarity of consecutive layers by linear centred kernel alignment",
                              kMetrics,
                              1,
                              nullptr,
                              0};

}  // namespace

extern "C" STRATA_PLUGIN_EXPORT const StrataPlugin* strata_plugin_entry(void) { return &kPlugin; }
