#include "support/plugin_test_support.h"

#include <Eigen/Dense>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>

#include "plugin/plugin_metric.h"
#include "support/python_finder.h"

namespace strata::testing {
namespace {

Eigen::MatrixXd randomOrthogonal(int64_t d, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd a(d, d);
  for (int64_t i = 0; i < d; ++i)
    for (int64_t j = 0; j < d; ++j) a(i, j) = normal(engine);
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(a);
  return qr.householderQ();
}

void writeFloats(const std::string& file, const std::vector<float>& v) {
  std::ofstream out(file, std::ios::binary);
  out.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * sizeof(float)));
}

}  // namespace

const plugin::PluginSet& builtPlugins() {
  static const plugin::PluginSet set = plugin::loadPlugins({STRATA_PLUGIN_BUILD_DIR});
  return set;
}

double runBuiltMetric(const std::string& name, const std::vector<float>& x, int64_t n, int64_t d,
                      const std::vector<float>* y, int64_t dy, const std::string& options) {
  const plugin::MetricEntry* entry = builtPlugins().findMetric(name);
  if (!entry)
    throw std::runtime_error("no built plugin metric " + name + " in " STRATA_PLUGIN_BUILD_DIR);
  plugin::PluginMetric metric(*entry, options);
  const geometry::HiddenStates layer{x.data(), n, d};
  const geometry::HiddenStates previous{y ? y->data() : nullptr, n, dy};
  return metric.compute(layer, y ? &previous : nullptr);
}

std::vector<float> uniformCubeInSubspace(int64_t n, int64_t k, int64_t d, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const Eigen::MatrixXd q = randomOrthogonal(d, seed + 1);
  std::vector<float> out(size_t(n * d));
  Eigen::VectorXd p(k);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < k; ++j) p(j) = uniform(engine);
    const Eigen::VectorXd e = q.leftCols(k) * p;
    for (int64_t j = 0; j < d; ++j) out[size_t(i * d + j)] = float(e(j) + 0.25);
  }
  return out;
}

std::vector<float> gaussianMatrix(int64_t n, int64_t d, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal;
  std::vector<float> out(size_t(n * d));
  for (auto& v : out) v = float(normal(engine));
  return out;
}

std::vector<float> rotatedScaled(const std::vector<float>& x, int64_t n, int64_t d, double scale,
                                 uint64_t seed) {
  const Eigen::MatrixXd q = randomOrthogonal(d, seed);
  std::vector<float> out(size_t(n * d));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < d; ++j) {
      double s = 0;
      for (int64_t m = 0; m < d; ++m) s += double(x[size_t(i * d + m)]) * q(m, j);
      out[size_t(i * d + j)] = float(scale * s + 3.0);  // a shift too: CKA centres
    }
  return out;
}

std::string pluginReference(const std::string& folder, const std::vector<float>& x, int64_t n,
                            int64_t d, const std::vector<float>* y, int64_t dy, std::string& why) {
  const std::string python =
      findPython({"numpy", "sklearn.neighbors"},
                 "run scripts/setup.sh (Strata's Python environment) or set STRATA_PYTHON", why);
  if (python.empty()) return {};
  nlohmann::json fixture{{"n", n}, {"d", d}, {"dy", dy}, {"discard", 0.1}};
  std::ofstream(folder + "/fixture.json") << fixture.dump();
  writeFloats(folder + "/X.f32", x);
  if (y) writeFloats(folder + "/Y.f32", *y);
  const std::string command =
      python + " '" STRATA_SOURCE_DIR "/tests/reference/plugin_metrics_reference.py' '" + folder +
      "'";
  if (std::system(command.c_str()) != 0) throw std::runtime_error("reference failed: " + command);
  std::ifstream in(folder + "/reference.json");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace strata::testing
