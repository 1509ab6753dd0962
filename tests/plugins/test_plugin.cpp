// Test-only plugins, one shared object per TEST_PLUGIN_MODE (tests/plugins/CMakeLists.txt),
// each broken in one way the loader must survive, plus a well-behaved one with a recipe.

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "plugin/strata_plugin.h"

#define MODE_GOOD 0            // metric "first_mean" (mean of column 0) and recipe "echo"
#define MODE_WRONG_ABI 1       // abi_version + 1
#define MODE_ENTRY_THROWS 2    // strata_plugin_entry throws
#define MODE_ERROR_RETURN 3    // compute returns an error message
#define MODE_COMPUTE_THROWS 4  // compute lets a C++ exception escape (forbidden, still survived)
#define MODE_NO_ENTRY 5        // no strata_plugin_entry symbol
#define MODE_BAD_NAME 6        // a metric name with a space
#define MODE_NO_RUN 7          // a recipe without a run function
#define MODE_ABI_ONE 8         // a good plugin built for ABI 1: recipe "echo_v1", no plan_memory

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

// Recipe "echo": `steps` steps, each reporting loss = 1/step and lr = 0.1 and the progress,
// checking cancelled() before each; its state (the last finished step) is echo_state.txt in the
// run folder, written temp + rename, so a resumed run continues after it. mode=fail returns an
// error at step 2, mode=throw lets an exception escape at step 2, mode=bad_metric reports a
// metric named "step". A non-empty `plan` (bytes) is planned first with plan_memory (ABI 2),
// and a refusal returns at once. On finishing it writes the greeting into echo.txt.
std::string setting(const std::string& settings, const std::string& name) {
  std::istringstream lines(settings);
  for (std::string line; std::getline(lines, line);)
    if (line.compare(0, name.size() + 1, name + "=") == 0) return line.substr(name.size() + 1);
  return {};
}

int echoRun(const char* settings, const char* folder, const StrataRecipeHost* host, char* error,
            size_t size) {
  const std::string mode = setting(settings, "mode");
  const long steps = std::stol(setting(settings, "steps"));
  const std::filesystem::path dir(folder);
#if TEST_PLUGIN_MODE != MODE_ABI_ONE
  if (const std::string plan = setting(settings, "plan"); !plan.empty())
    if (host->plan_memory(host->context, std::stoll(plan), "echo's buffer", "ask echo for less",
                          error, size) != 0)
      return 1;
#endif
  long done = 0;
  if (std::ifstream in(dir / "echo_state.txt"); in) in >> done;
  for (long step = done + 1; step <= steps; ++step) {
    if (host->cancelled(host->context)) return 0;
    if (step == 2 && mode == "fail") {
      std::snprintf(error, size, "deliberate failure at step %ld", step);
      return 7;
    }
    if (step == 2 && mode == "throw") throw std::runtime_error("deliberate exception from echo");
    host->metric(host->context, step, mode == "bad_metric" ? "step" : "loss", 1.0 / double(step));
    host->metric(host->context, step, "lr", 0.1);
    {
      std::ofstream out(dir / "echo_state.tmp");
      out << step;
    }
    std::filesystem::rename(dir / "echo_state.tmp", dir / "echo_state.txt");
    host->progress(host->context, double(step) / double(steps), "echo step");
  }
  std::ofstream(dir / "echo.txt") << setting(settings, "greeting");
  return 0;
}

const StrataOption kSettings[] = {{"greeting", "hello", "what the recipe echoes"},
                                  {"steps", "5", "steps to take"},
                                  {"mode", "ok", "ok, fail, throw or bad_metric"},
                                  {"plan", "", "bytes to plan with plan_memory (empty: none)"}};
const StrataRecipe kRecipes[] = {{TEST_PLUGIN_MODE == MODE_ABI_ONE ? "echo_v1" : "echo",
                                  "a test recipe that counts steps", kSettings, 4, echoRun}};

#if TEST_PLUGIN_MODE == MODE_ERROR_RETURN
const StrataMetric kMetrics[] = {{"fails_always", "returns an error", 1, nullptr, 0, failing}};
const char* kName = "error_return";
#elif TEST_PLUGIN_MODE == MODE_COMPUTE_THROWS
const StrataMetric kMetrics[] = {{"throws_always", "throws", 1, nullptr, 0, throwing}};
const char* kName = "compute_throws";
#elif TEST_PLUGIN_MODE == MODE_BAD_NAME
const StrataMetric kMetrics[] = {{"bad name", "a space in its name", 1, nullptr, 0, firstMean}};
const char* kName = "bad_name";
#elif TEST_PLUGIN_MODE == MODE_ABI_ONE
const StrataMetric kMetrics[] = {{"first_mean_v1", "mean of column 0", 1, nullptr, 0, firstMean}};
const char* kName = "abi_one";
#else
const StrataMetric kMetrics[] = {{"first_mean", "mean of column 0", 1, nullptr, 0, firstMean}};
const char* kName = TEST_PLUGIN_MODE == MODE_GOOD     ? "good"
                    : TEST_PLUGIN_MODE == MODE_NO_RUN ? "no_run"
                                                      : "broken";
#endif

#if TEST_PLUGIN_MODE == MODE_NO_RUN
const StrataRecipe kIdle[] = {{"idle", "declares no run function", nullptr, 0, nullptr}};
const StrataRecipe* const kOffered = kIdle;
#else
const StrataRecipe* const kOffered = kRecipes;
#endif
constexpr bool kHasRecipe = TEST_PLUGIN_MODE == MODE_GOOD || TEST_PLUGIN_MODE == MODE_NO_RUN ||
                            TEST_PLUGIN_MODE == MODE_ABI_ONE;

const StrataPlugin kPlugin = {TEST_PLUGIN_MODE == MODE_WRONG_ABI ? STRATA_PLUGIN_ABI_VERSION + 1u
                              : TEST_PLUGIN_MODE == MODE_ABI_ONE ? 1u
                                                                 : STRATA_PLUGIN_ABI_VERSION,
                              kName,
                              "0",
                              "test plugin",
                              kMetrics,
                              1,
                              kHasRecipe ? kOffered : nullptr,
                              kHasRecipe ? 1 : 0};

}  // namespace

#if TEST_PLUGIN_MODE != MODE_NO_ENTRY
extern "C" STRATA_PLUGIN_EXPORT const StrataPlugin* strata_plugin_entry(void) {
  if (TEST_PLUGIN_MODE == MODE_ENTRY_THROWS) throw std::runtime_error("entry point exploded");
  return &kPlugin;
}
#else
extern "C" STRATA_PLUGIN_EXPORT int not_the_entry(void) { return 0; }
#endif
