// The CPU backend against tests/reference/geometry_reference.py, an independent float64
// NumPy/SciPy implementation of the same definitions (full d×d neighbour covariances, np.cov,
// scipy.linalg.eigh, np.linalg.solve). Fixtures are written here; the script writes its proxies.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "geometry/backend.h"
#include "geometry/proxy_options.h"
#include "support/python_finder.h"
#include "support/temp_dir.h"

namespace strata::geometry {
namespace {

void writeNpy(const std::filesystem::path& path, const std::vector<float>& values, int64_t rows,
              int64_t cols) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" +
                       std::to_string(rows) +
                       (cols > 0 ? ", " + std::to_string(cols) : std::string(",")) + "), }";
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const uint16_t length = static_cast<uint16_t>(header.size());
  out.write(reinterpret_cast<const char*>(&length), 2);
  out << header;
  out.write(reinterpret_cast<const char*>(values.data()),
            std::streamsize(values.size() * sizeof(float)));
}

struct Case {
  std::string name;
  int64_t rows, dims;
  double decay;  // λ_j = exp(−decay·j)
  bool weighted;
  ProxyOptions options;
};

std::vector<Case> cases() {
  ProxyOptions isotropic;
  isotropic.normalisation = Normalisation::Trace;  // what this test's expectations assume
  isotropic.anchors = 100;
  isotropic.neighbours = 10;
  isotropic.directions = 300;
  isotropic.spectrumSize = 24;  // all of d: the dense eigensolver
  isotropic.seed = 1;
  ProxyOptions anisotropic;
  anisotropic.normalisation = Normalisation::Trace;  // what this test's expectations assume
  anisotropic.anchors = 200;
  anisotropic.neighbours = 32;
  anisotropic.directions = 500;
  anisotropic.spectrumSize = 8;  // Krylov space 20 < d = 64: Lanczos
  anisotropic.seed = 2;
  ProxyOptions weighted = isotropic;
  weighted.neighbours = 12;
  weighted.spectrumSize = 5;
  weighted.seed = 3;
  return {{"isotropic_600x24", 600, 24, 0.0, false, isotropic},
          {"anisotropic_2000x64", 2000, 64, 0.1, false, anisotropic},
          {"weighted_700x32", 700, 32, 0.05, true, weighted}};
}

double relative(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

class GeometryReference : public ::testing::TestWithParam<Case> {};

TEST_P(GeometryReference, MatchesTheNumPyReference) {
  std::string why;
  const std::string python = testing::findPython(
      {"numpy", "scipy.linalg"},
      "run scripts/setup.sh (Strata's Python environment) or set STRATA_PYTHON", why);
  if (python.empty()) GTEST_SKIP() << "cannot run the NumPy reference: " << why;
  const Case& c = GetParam();

  std::mt19937_64 engine(17 + c.rows);
  std::normal_distribution<double> normal;
  std::vector<float> rows(c.rows * c.dims);
  for (int64_t i = 0; i < c.rows; ++i)
    for (int64_t j = 0; j < c.dims; ++j)
      rows[i * c.dims + j] =
          static_cast<float>(1.5 + normal(engine) * std::exp(-0.5 * c.decay * j));
  std::vector<float> weights;
  if (c.weighted)
    for (int64_t i = 0; i < c.rows; ++i) weights.push_back(float((i * 5 + 1) % 4));  // 0..3

  const TokenSampling sampling = drawTokenSampling(c.rows, weights, c.options, c.options.seed);
  TempDir dir;
  writeNpy(dir / "H.npy", rows, c.rows, c.dims);
  if (c.weighted) writeNpy(dir / "weights.npy", weights, c.rows, 0);
  nlohmann::json fixture;
  fixture["anchors"] = sampling.anchors;
  fixture["pairs"] = nlohmann::json::array();
  for (const auto& [a, b] : sampling.pairs) fixture["pairs"].push_back({a, b});
  fixture["neighbours"] = c.options.neighbours;
  fixture["ridge_factor"] = c.options.ridgeFactor;
  fixture["spectrum_size"] = c.options.spectrumSize;
  // Squared distances in float32 carry a relative error of ~1e-6 here: anchors whose k-th and
  // (k+1)-th neighbours are closer than this may swap them, and are left out by the script.
  fixture["tie_gap"] = 2e-5;
  std::ofstream(dir / "fixture.json") << fixture.dump();

  const std::string command = python +
                              " '" STRATA_SOURCE_DIR "/tests/reference/geometry_reference.py' '" +
                              dir.path().string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const auto want = nlohmann::json::parse(std::ifstream(dir / "reference.json"));
  TokenSampling used = sampling;
  used.anchors = want["anchors"].get<std::vector<int64_t>>();
  ASSERT_GE(used.anchors.size(), sampling.anchors.size() * 9 / 10) << "too many near-ties";

  auto backend = makeCpuBackend();
  const HiddenStates states{rows.data(), c.rows, c.dims};
  const ProxyResult got = backend->computeProxies(states, weights, used, c.options);
  constexpr double kTolerance = 1e-4;
  EXPECT_LT(relative(got.values.curvature, want["curvature"]), kTolerance);
  EXPECT_LT(relative(got.values.monotonicity, want["monotonicity"]), kTolerance);
  EXPECT_LT(relative(got.values.effectiveRank, want["effective_rank"]), kTolerance);
  const auto spectrum = want["spectrum"].get<std::vector<double>>();
  ASSERT_EQ(got.spectrum.size(), spectrum.size());
  for (size_t i = 0; i < spectrum.size(); ++i)
    EXPECT_LT(relative(got.spectrum[i], spectrum[i]), kTolerance) << "eigenvalue " << i;
  const auto local = want["local_lambda_max"].get<std::vector<double>>();
  ASSERT_EQ(got.localLambdaMax.size(), local.size());
  double worst = 0;
  for (size_t i = 0; i < local.size(); ++i)
    worst = std::max(worst, relative(got.localLambdaMax[i], local[i]));
  EXPECT_LT(worst, kTolerance) << "worst local λ_max";

  ProxyOptions minEig = c.options;
  minEig.monotonicity = MonotonicityMode::MinEigenvalue;
  EXPECT_LT(relative(backend->computeProxies(states, weights, used, minEig).values.monotonicity,
                     want["monotonicity_min_eig"]),
            kTolerance);
  std::cout << "  " << c.name << ": m_curv " << got.values.curvature << " m_mono "
            << got.values.monotonicity << " k_eff " << got.values.effectiveRank
            << ", worst local λ error " << worst << "\n";
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GeometryReference, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace strata::geometry
