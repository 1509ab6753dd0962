// The CUDA geometry backend against the CPU reference (ggml's test-backend-ops idea): the same
// layer, weights and sampling on both backends, every proxy, the spectrum and each anchor's
// λ_max(C_i) within 1e-4 relative (anchors whose k-th neighbour is decided by float rounding,
// at most 5%, are left out of the per-anchor check). Those comparisons skip, saying why, where
// no CUDA device is usable. The device choice (auto falls back to CPU, cuda names the reason) and
// the per-anchor algorithms the CUDA kernels run (neighbourhood_math.h, executed serially here) are
// checked on every machine.

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common/error.h"
#include "geometry/backend.h"
#include "geometry/cuda/neighbourhood_math.h"

namespace strata::geometry {
namespace {

constexpr double kTolerance = 1e-4;  // relative, CUDA vs CPU

// --- Test layers -----------------------------------------------------------------------------

/**
 * N×d row-major: five clusters with anisotropic spread (column scales falling from 3 to 0.3), a
 * common offset far from the origin (so centring matters), and a random rotation. Σ's condition
 * stays near 10³: the CPU forms Σ in float32, which resolves its smallest eigenvalues to about
 * 1e-7·λ_max, and the spectrum is compared to 1e-4 relative down to the 64th eigenvalue.
 */
std::vector<float> anisotropicLayer(int64_t rows, int64_t cols, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  constexpr int kClusters = 5;
  Eigen::MatrixXf centres = Eigen::MatrixXf::Zero(kClusters, cols);
  for (int c = 0; c < kClusters; ++c)
    for (int64_t j = 0; j < cols; ++j) centres(c, j) = 1.5f * normal(rng);
  Eigen::MatrixXf x(rows, cols);
  for (int64_t i = 0; i < rows; ++i) {
    const int cluster = int(rng() % kClusters);
    for (int64_t j = 0; j < cols; ++j) {
      const float decay = float(j) / float(std::max<int64_t>(cols - 1, 1));
      x(i, j) = 7.5f + centres(cluster, j) + 3.0f * std::pow(0.1f, decay) * normal(rng);
    }
  }
  Eigen::MatrixXf random(cols, cols);
  for (int64_t i = 0; i < random.size(); ++i) random.data()[i] = normal(rng);
  const Eigen::MatrixXf q = Eigen::HouseholderQR<Eigen::MatrixXf>(random).householderQ();
  const Eigen::MatrixXf rotated = x * q;
  std::vector<float> out(size_t(rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) out[size_t(i * cols + j)] = rotated(i, j);
  return out;
}

/** N×d isotropic Gaussian rows: Σ's spectrum is a Marchenko–Pastur bulk, its head a dense
 *  cluster (the slowest case for Lanczos). */
std::vector<float> isotropicLayer(int64_t rows, int64_t cols, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> out(size_t(rows * cols));
  for (float& v : out) v = 2.0f + normal(rng);
  return out;
}

/** A bootstrap resample as multiplicities: N draws with replacement. */
std::vector<float> bootstrapWeights(int64_t rows, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> weights(size_t(rows), 0.0f);
  for (int64_t i = 0; i < rows; ++i) weights[rng() % uint64_t(rows)] += 1.0f;
  return weights;
}

/**
 * Anchors whose k-th and (k+1)-th nearest rows (exact distances, in double) are closer than the
 * float rounding of ‖a‖² + ‖b‖² − 2⟨a, b⟩ can resolve: which of the two becomes the k-th
 * neighbour is decided by rounding there, and two correct backends may pick differently.
 * Centring and scaling do not change the relative gaps, so the raw rows (centred) serve.
 */
std::vector<bool> nearlyTiedAnchors(const std::vector<float>& data, int64_t rows, int64_t cols,
                                    const std::vector<float>& weights,
                                    const TokenSampling& sampling, int64_t k) {
  Eigen::MatrixXd x(rows, cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) x(i, j) = data[size_t(i * cols + j)];
  x = x.rowwise() - x.colwise().mean();
  std::vector<bool> tied;
  for (const int64_t a : sampling.anchors) {
    std::vector<std::pair<double, int64_t>> distances;
    for (int64_t r = 0; r < rows; ++r)
      if (r != a && (weights.empty() || weights[size_t(r)] > 0))
        distances.emplace_back((x.row(a) - x.row(r)).squaredNorm(), r);
    std::partial_sort(distances.begin(), distances.begin() + k + 1, distances.end());
    const double gap = distances[size_t(k)].first - distances[size_t(k - 1)].first;
    const double scale =
        x.row(a).squaredNorm() + x.row(distances[size_t(k - 1)].second).squaredNorm();
    tied.push_back(gap <= 1e-5 * scale);
  }
  return tied;
}

void expectRelativelyNear(double cuda, double cpu, const std::string& what) {
  const double scale = std::max(std::abs(cuda), std::abs(cpu));
  EXPECT_LE(std::abs(cuda - cpu), kTolerance * scale)
      << what << ": CUDA " << cuda << " vs CPU " << cpu;
}

// --- CUDA against CPU --------------------------------------------------------------------------

struct ComparisonCase {
  const char* name;
  int64_t rows, cols;
  int64_t neighbours, anchors, directions;
  bool weighted;
  MonotonicityMode mode;
  Normalisation normalisation = Normalisation::Trace;
  bool isotropic = false;  // isotropicLayer instead of anisotropicLayer
};

void PrintTo(const ComparisonCase& c, std::ostream* os) { *os << c.name; }

class GeometryCudaMatchesCpu : public testing::TestWithParam<ComparisonCase> {};

TEST_P(GeometryCudaMatchesCpu, ProxiesSpectrumAndLocalLambdaMax) {
  std::string why;
  if (!cudaBackendAvailable(&why)) GTEST_SKIP() << why;
  const ComparisonCase& c = GetParam();
  const std::vector<float> data = c.isotropic
                                      ? isotropicLayer(c.rows, c.cols, uint32_t(c.rows))
                                      : anisotropicLayer(c.rows, c.cols, uint32_t(c.rows + c.cols));
  const HiddenStates states{data.data(), c.rows, c.cols};
  const std::vector<float> weights =
      c.weighted ? bootstrapWeights(c.rows, uint32_t(c.neighbours)) : std::vector<float>{};
  ProxyOptions options;
  options.neighbours = c.neighbours;
  options.anchors = c.anchors;
  options.directions = c.directions;
  options.monotonicity = c.mode;
  options.normalisation = c.normalisation;
  options.spectrumSize = 64;
  const TokenSampling sampling = drawTokenSampling(c.rows, weights, options, 17);

  const ProxyResult cpu = makeCpuBackend()->computeProxies(states, weights, sampling, options);
  const ProxyResult cuda =
      makeGeometryBackend(DeviceChoice::Cuda)->computeProxies(states, weights, sampling, options);

  expectRelativelyNear(cuda.values.curvature, cpu.values.curvature, "m_curv");
  expectRelativelyNear(cuda.values.monotonicity, cpu.values.monotonicity, "m_mono");
  expectRelativelyNear(cuda.values.effectiveRank, cpu.values.effectiveRank, "k_eff");
  ASSERT_EQ(cuda.spectrum.size(), cpu.spectrum.size());
  EXPECT_EQ(cuda.spectrum.size(), size_t(std::min<int64_t>(64, c.cols)));
  for (size_t i = 0; i < cpu.spectrum.size(); ++i)
    expectRelativelyNear(cuda.spectrum[i], cpu.spectrum[i], "eigenvalue " + std::to_string(i));
  ASSERT_EQ(cuda.localLambdaMax.size(), sampling.anchors.size());
  ASSERT_EQ(cpu.localLambdaMax.size(), sampling.anchors.size());
  const std::vector<bool> tied =
      nearlyTiedAnchors(data, c.rows, c.cols, weights, sampling, c.neighbours);
  const auto tiedCount = std::count(tied.begin(), tied.end(), true);
  EXPECT_LE(tiedCount * 20, int64_t(tied.size()))
      << "a degenerate test layer: " << tiedCount << " anchors have a near tie at the k-th row";
  for (size_t i = 0; i < cpu.localLambdaMax.size(); ++i)
    if (!tied[i])
      expectRelativelyNear(cuda.localLambdaMax[i], cpu.localLambdaMax[i],
                           "λ_max(C_i) of anchor " + std::to_string(i));
}

INSTANTIATE_TEST_SUITE_P(
    Cuda, GeometryCudaMatchesCpu,
    testing::Values(
        ComparisonCase{"unit_rayleigh", 1500, 48, 16, 128, 256, false, MonotonicityMode::Rayleigh},
        ComparisonCase{"unit_min_eig", 1500, 48, 16, 128, 256, false,
                       MonotonicityMode::MinEigenvalue},
        ComparisonCase{"weighted_rayleigh", 1500, 48, 16, 128, 256, true,
                       MonotonicityMode::Rayleigh},
        ComparisonCase{"weighted_min_eig", 1500, 48, 16, 128, 256, true,
                       MonotonicityMode::MinEigenvalue},
        // The defaults (k = 32, M = 1024) on a wider layer than the spectrum keeps.
        ComparisonCase{"defaults_wide", 2500, 96, 32, 1024, 1024, true, MonotonicityMode::Rayleigh},
        // More rows than one candidate block (kCandidateBlock), odd k (a padded Gram).
        ComparisonCase{"many_blocks_odd_k", 9000, 24, 7, 200, 300, false,
                       MonotonicityMode::Rayleigh},
        ComparisonCase{"many_blocks_weighted", 9000, 24, 9, 200, 300, true,
                       MonotonicityMode::Rayleigh},
        // The largest k the kernels take.
        ComparisonCase{"k64", 1200, 40, 64, 100, 200, false, MonotonicityMode::Rayleigh},
        // The other normalisations (per-dimension scales on the device).
        ComparisonCase{"none_weighted", 1500, 48, 16, 128, 256, true, MonotonicityMode::Rayleigh,
                       Normalisation::None},
        ComparisonCase{"none_min_eig", 1500, 48, 16, 128, 256, false,
                       MonotonicityMode::MinEigenvalue, Normalisation::None},
        ComparisonCase{"standardise_weighted", 1500, 48, 16, 128, 256, true,
                       MonotonicityMode::Rayleigh, Normalisation::Standardise},
        // Wider than the Lanczos basis for 64 values (512), so the spectrum head comes from
        // Lanczos stopping on its residual bound (~224 steps for the decaying spectrum, ~384
        // for the isotropic rows' Marchenko–Pastur head, by the same driver on the host).
        ComparisonCase{"lanczos_head", 4000, 640, 16, 128, 256, false,
                       MonotonicityMode::MinEigenvalue},
        ComparisonCase{"lanczos_isotropic", 3000, 1024, 16, 128, 256, false,
                       MonotonicityMode::Rayleigh, Normalisation::Trace, true}),
    [](const testing::TestParamInfo<ComparisonCase>& info) { return info.param.name; });

TEST(GeometryCuda, RefusesMoreNeighboursThanItsKernelsHold) {
  std::string why;
  if (!cudaBackendAvailable(&why)) GTEST_SKIP() << why;
  const std::vector<float> data = anisotropicLayer(400, 16, 3);
  ProxyOptions options;
  options.neighbours = cuda_detail::kMaxNeighbours + 1;
  options.anchors = 10;
  const TokenSampling sampling = drawTokenSampling(400, {}, options, 1);
  auto backend = makeGeometryBackend(DeviceChoice::Cuda);
  try {
    backend->computeProxies({data.data(), 400, 16}, {}, sampling, options);
    FAIL() << "k = " << options.neighbours << " was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--device cpu"), std::string::npos) << e.what();
  }
}

// --- Device choice -----------------------------------------------------------------------------

TEST(GeometryDeviceChoice, AutoPicksCudaOnlyWhenADeviceIsUsable) {
  std::string why;
  const bool cuda = cudaBackendAvailable(&why);
  const std::string chosen = makeGeometryBackend(DeviceChoice::Auto)->description();
  if (cuda) {
    EXPECT_EQ(chosen, makeGeometryBackend(DeviceChoice::Cuda)->description());
  } else {
    EXPECT_FALSE(why.empty());
    EXPECT_EQ(chosen, makeCpuBackend()->description()) << "no CUDA device (" << why << ")";
  }
}

TEST(GeometryDeviceChoice, CudaWithoutADeviceThrowsNamingTheReason) {
  std::string why;
  if (cudaBackendAvailable(&why))
    GTEST_SKIP() << "a CUDA device is usable here: "
                 << makeGeometryBackend(DeviceChoice::Cuda)->description();
  ASSERT_FALSE(why.empty());
  try {
    makeGeometryBackend(DeviceChoice::Cuda);
    FAIL() << "--device cuda was accepted without a device";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
  }
}

// --- The kernels' per-anchor algorithms, run serially on the host ------------------------------

using cuda_detail::kCandidateBlock;
using cuda_detail::kMaxNeighbours;
using cuda_detail::kNoRow;
using cuda_detail::kSortSize;
using cuda_detail::Team;

TEST(CudaNeighbourhoodMath, BitonicSortOrdersByDistanceThenRow) {
  std::mt19937 rng(5);
  std::vector<float> dist(kSortSize);
  std::vector<int> row(kSortSize);
  for (int i = 0; i < kSortSize; ++i) {
    dist[size_t(i)] = float(rng() % 50);  // many ties
    row[size_t(i)] = int(rng() % 100000);
  }
  std::vector<std::pair<float, int>> expected;
  for (int i = 0; i < kSortSize; ++i) expected.emplace_back(dist[size_t(i)], row[size_t(i)]);
  std::sort(expected.begin(), expected.end());
  cuda_detail::bitonicSort(Team{}, dist.data(), row.data(), kSortSize);
  for (int i = 0; i < kSortSize; ++i) {
    ASSERT_EQ(dist[size_t(i)], expected[size_t(i)].first) << "slot " << i;
    ASSERT_EQ(row[size_t(i)], expected[size_t(i)].second) << "slot " << i;
  }
}

TEST(CudaNeighbourhoodMath, MergeNearestKeepsTheKNearestOverBlocksWithTiesToTheLowerRow) {
  std::mt19937 rng(9);
  const int rows = 3 * kCandidateBlock + 123;
  const int self = 4321;
  std::vector<float> distance(static_cast<size_t>(rows));
  for (float& d : distance) d = float(rng() % 400) * 0.25f;  // many exact ties
  distance[size_t(self)] = -1.0f;                            // nearest of all, yet excluded
  for (const int k : {2, 7, 32, kMaxNeighbours}) {
    std::vector<float> bestDist(size_t(k), INFINITY);
    std::vector<int> bestRow(size_t(k), kNoRow);
    std::vector<float> scratchDist(kSortSize);
    std::vector<int> scratchRow(kSortSize);
    for (int begin = 0; begin < rows; begin += kCandidateBlock) {
      const int count = std::min(kCandidateBlock, rows - begin);
      cuda_detail::mergeNearest(Team{}, scratchDist.data(), scratchRow.data(), k, bestDist.data(),
                                bestRow.data(), count, [&](int c, float& d, int& r) {
                                  if (begin + c == self) return;
                                  d = distance[size_t(begin + c)];
                                  r = begin + c;
                                });
    }
    std::vector<std::pair<float, int>> all;
    for (int r = 0; r < rows; ++r)
      if (r != self) all.emplace_back(distance[size_t(r)], r);
    std::sort(all.begin(), all.end());
    for (int i = 0; i < k; ++i) {
      EXPECT_EQ(bestRow[size_t(i)], all[size_t(i)].second) << "k = " << k << ", slot " << i;
      EXPECT_EQ(bestDist[size_t(i)], all[size_t(i)].first) << "k = " << k << ", slot " << i;
    }
  }
}

TEST(CudaNeighbourhoodMath, CentredGramMatchesTheDirectProduct) {
  std::mt19937 rng(21);
  std::normal_distribution<float> normal;
  for (const int k : {2, 5, 32, kMaxNeighbours - 1}) {
    const int64_t cols = 77;  // not a multiple of the tile width
    std::vector<float> y(size_t(k * cols));
    for (float& v : y) v = 3.0f + normal(rng);
    const int n = cuda_detail::paddedOrder(k);
    std::vector<double> gram(size_t(n * n), -1.0);
    std::vector<float> tile(size_t(k * (cuda_detail::kGramTile + 1)));
    std::vector<double> mean(cuda_detail::kGramTile);
    cuda_detail::centredGram(Team{}, k, cols, tile.data(), mean.data(), gram.data(),
                             [&](int r, long long c) { return y[size_t(r * cols + c)]; });
    Eigen::MatrixXd m(k, cols);
    for (int r = 0; r < k; ++r)
      for (int64_t c = 0; c < cols; ++c) m(r, c) = y[size_t(r * cols + c)];
    m = m.rowwise() - m.colwise().mean();
    const Eigen::MatrixXd expected = m * m.transpose();
    for (int r1 = 0; r1 < n; ++r1)
      for (int r2 = 0; r2 < n; ++r2) {
        const double want = r1 < k && r2 < k ? expected(r1, r2) : 0.0;
        EXPECT_NEAR(gram[size_t(r1 * n + r2)], want, 1e-9 * expected.norm())
            << "k = " << k << ", (" << r1 << ", " << r2 << ")";
      }
  }
}

TEST(CudaNeighbourhoodMath, JacobiFindsTheLargestEigenvalue) {
  std::mt19937 rng(33);
  std::normal_distribution<double> normal;
  for (const int n : {2, 4, 8, 32, 64}) {
    for (const int shape : {0, 1, 2}) {
      // 0: a random PSD Gram; 1: two nearly equal leading eigenvalues; 2: rank one.
      Eigen::MatrixXd b(n, n);
      for (int64_t i = 0; i < b.size(); ++i) b.data()[i] = normal(rng);
      const Eigen::MatrixXd q = Eigen::HouseholderQR<Eigen::MatrixXd>(b).householderQ();
      Eigen::VectorXd lambda(n);
      for (int i = 0; i < n; ++i) lambda(i) = std::abs(normal(rng)) + 0.01;
      if (shape == 1) lambda.head(2) << 10.0, 10.0 * (1 - 1e-9);
      if (shape == 2) {
        lambda.setZero();
        lambda(n / 2) = 3.5;
      }
      const Eigen::MatrixXd a = q * lambda.asDiagonal() * q.transpose();
      std::vector<double> work(size_t(n * n));
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) work[size_t(i * n + j)] = 0.5 * (a(i, j) + a(j, i));
      std::vector<double> cosine(size_t(n / 2)), sine(size_t(n / 2)),
          rowOff(static_cast<size_t>(n));
      const double largest = cuda_detail::jacobiLargestEigenvalue(
          Team{}, work.data(), n, cosine.data(), sine.data(), rowOff.data());
      EXPECT_NEAR(largest, lambda.maxCoeff(), 1e-12 * lambda.maxCoeff())
          << "n = " << n << ", shape " << shape;
    }
  }
  std::vector<double> zero(16, 0.0), cosine(2), sine(2), rowOff(4);
  EXPECT_EQ(cuda_detail::jacobiLargestEigenvalue(Team{}, zero.data(), 4, cosine.data(), sine.data(),
                                                 rowOff.data()),
            0.0);
}

}  // namespace
}  // namespace strata::geometry
