// Test-only plugins, one shared object per TEST_PLUGIN_MODE (tests/plugins/CMakeLists.txt),
// each broken in one way the loader must survive, plus a well-behaved one with a recipe.

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "plugin/strata_plugin.h"

#define MODE_GOOD 0           // metric "first_mean" (mean of column 0) and recipe "echo"
#define MODE_WRONG_ABI 1      // abi_version + 1
#define MODE_ENTRY_THROWS 2   // strata_plugin_entry throws
#define MODE_ERROR_RETURN 3   // compute returns an error message
#define MODE_COMPUTE_THROWS 4 // compute lets a C++ exception escape (forbidden, still survived)
#define MODE_NO_ENTRY 5       // no strata_plugin_entry symbol
#define MODE_BAD_NAME 6       // a metric name with a space

namespace {

int firstMean(const StrataMatrix* layer, const StrataMatrix*, const char*, double* value, char*,
              size_t) {
  double s = 0;
  for (int64_t i = 0; i < layer->rows; ++i) s += layer->data[i * layer->cols];
  *value = s / double(layer->rows);
  return 0;
}

int failing(const StrataMatrix*, const StrataMatrix*, const char*, double*, char* error,
            size_t size) {
  std::snprintf(error, size, "deliberate failure from the test plugin");
  return 3;
}

int throwing(const StrataMatrix*, const StrataMatrix*, const char*, double*, char*, size_t) {
  throw std::runtime_error("deliberate exception from the test plugin");
}

const StrataOption kSettings[] = {{"greeting", "hello", "what the recipe echoes"}};
const StrataRecipe kRecipes[] = {{"echo", "a test recipe that does nothing", kSettings, 1, nullptr}};

#if TEST_PLUGIN_MODE == MODE_ERROR_RETURN
const StrataMetric kMetrics[] = {{"fails_always", "returns an error", 1, nullptr, 0, failing}};
const char* kName = "error_return";
#elif TEST_PLUGIN_MODE == MODE_COMPUTE_THROWS
const StrataMetric kMetrics[] = {{"throws_always", "throws", 1, nullptr, 0, throwing}};
const char* kName = "compute_throws";
#elif TEST_PLUGIN_MODE == MODE_BAD_NAME
const StrataMetric kMetrics[] = {{"bad name", "a space in its name", 1, nullptr, 0, firstMean}};
const char* kName = "bad_name";
#else
const StrataMetric kMetrics[] = {{"first_mean", "mean of column 0", 1, nullptr, 0, firstMean}};
const char* kName = TEST_PLUGIN_MODE == MODE_GOOD ? "good" : "broken";
#endif

const StrataPlugin kPlugin = {
    STRATA_PLUGIN_ABI_VERSION + (TEST_PLUGIN_MODE == MODE_WRONG_ABI ? 1u : 0u),
    kName, "0", "test plugin", kMetrics, 1,
    TEST_PLUGIN_MODE == MODE_GOOD ? kRecipes : nullptr, TEST_PLUGIN_MODE == MODE_GOOD ? 1 : 0};

}  // namespace

#if TEST_PLUGIN_MODE != MODE_NO_ENTRY
extern "C" STRATA_PLUGIN_EXPORT const StrataPlugin* strata_plugin_entry(void) {
  if (TEST_PLUGIN_MODE == MODE_ENTRY_THROWS) throw std::runtime_error("entry point exploded");
  return &kPlugin;
}
#else
extern "C" STRATA_PLUGIN_EXPORT int not_the_entry(void) { return 0; }
#endif
