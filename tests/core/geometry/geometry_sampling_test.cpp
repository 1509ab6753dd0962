// Token sampling (anchors and difference pairs), the option checks, and the exact
// nearest-neighbour rules (anchor excluded, zero-weight rows excluded, ties to the lower row).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "common/error.h"
#include "geometry/cpu/nearest_neighbours.h"
#include "geometry/cpu/row_normalisation.h"
#include "geometry/proxy_options.h"

namespace strata::geometry {
namespace {

TEST(GeometrySampling, IsDeterministicForASeedAndDiffersAcrossSeeds) {
  ProxyOptions options;
  const TokenSampling a = drawTokenSampling(5000, {}, options, 7);
  const TokenSampling b = drawTokenSampling(5000, {}, options, 7);
  const TokenSampling c = drawTokenSampling(5000, {}, options, 8);
  EXPECT_EQ(a.anchors, b.anchors);
  EXPECT_EQ(a.pairs, b.pairs);
  EXPECT_NE(a.anchors, c.anchors);
}

TEST(GeometrySampling, GoldenDrawsArePortable) {
  // The generator is SplitMix64 + xoshiro256** with rejection sampling: these values must
  // be the same on every platform and compiler.
  ProxyOptions options;
  options.anchors = 4;
  options.directions = 2;
  const TokenSampling s = drawTokenSampling(1000, {}, options, 0);
  const TokenSampling again = drawTokenSampling(1000, {}, options, 0);
  EXPECT_EQ(s.anchors, again.anchors);
  ASSERT_EQ(s.anchors.size(), 4u);
  ASSERT_EQ(s.pairs.size(), 2u);
  // Computed by an independent Python transcription of the two published generators.
  const std::vector<int64_t> golden = {420, 702, 272, 56};
  EXPECT_EQ(s.anchors, golden);
}

TEST(GeometrySampling, LongShufflesDrawAsTheTranscription) {
  // 20,000 anchors of 4,000,000 and of 5,000,000 rows, checked against the same Python
  // transcription as above: Σ (k+1)·anchor_k mod 2^64.
  ProxyOptions options;
  options.anchors = 20000;
  options.directions = 1;
  for (const auto& [rows, checksum] : {std::pair<int64_t, uint64_t>{4000000, 401932891178747ull},
                                       std::pair<int64_t, uint64_t>{5000000, 505085028857080ull}}) {
    const TokenSampling s = drawTokenSampling(rows, {}, options, 3);
    ASSERT_EQ(s.anchors.size(), 20000u);
    EXPECT_EQ(std::set<int64_t>(s.anchors.begin(), s.anchors.end()).size(), 20000u);
    uint64_t sum = 0;
    for (size_t k = 0; k < s.anchors.size(); ++k) sum += uint64_t(k + 1) * uint64_t(s.anchors[k]);
    EXPECT_EQ(sum, checksum) << rows << " rows";
  }
}

TEST(GeometrySampling, AnchorsAreDistinctRowsAndPairsJoinDistinctRows) {
  ProxyOptions options;
  options.anchors = 300;
  options.directions = 2000;
  const TokenSampling s = drawTokenSampling(400, {}, options, 3);
  ASSERT_EQ(s.anchors.size(), 300u);
  EXPECT_EQ(std::set<int64_t>(s.anchors.begin(), s.anchors.end()).size(), 300u);
  for (int64_t a : s.anchors) EXPECT_TRUE(a >= 0 && a < 400);
  ASSERT_EQ(s.pairs.size(), 2000u);
  for (const auto& [a, b] : s.pairs) {
    EXPECT_NE(a, b);
    EXPECT_TRUE(a >= 0 && a < 400 && b >= 0 && b < 400);
  }
}

TEST(GeometrySampling, MoreAnchorsThanRowsTakesEveryRowOnce) {
  ProxyOptions options;
  options.anchors = 1024;
  const TokenSampling s = drawTokenSampling(50, {}, options, 1);
  std::vector<int64_t> sorted = s.anchors;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> all(50);
  for (int64_t i = 0; i < 50; ++i) all[i] = i;
  EXPECT_EQ(sorted, all);
}

TEST(GeometrySampling, WeightsActAsMultiplicities) {
  // Rows 0..9; weights 0 for even rows, 1 for odd ones except row 9 with weight 41 (W = 45).
  std::vector<float> weights(10, 0.0f);
  for (int64_t i = 1; i < 10; i += 2) weights[i] = 1;
  weights[9] = 41;
  ProxyOptions options;
  options.anchors = 45;  // every slot of the multiset
  options.directions = 5000;
  const TokenSampling s = drawTokenSampling(10, weights, options, 2);
  ASSERT_EQ(s.anchors.size(), 45u);
  EXPECT_EQ(std::count(s.anchors.begin(), s.anchors.end(), 9), 41);
  for (int64_t a : s.anchors) EXPECT_EQ(a % 2, 1) << "a row of weight 0 was drawn";
  int64_t withNine = 0;
  for (const auto& [a, b] : s.pairs) {
    EXPECT_NE(a, b);
    EXPECT_TRUE(a % 2 == 1 && b % 2 == 1);
    withNine += (a == 9 || b == 9) ? 1 : 0;
  }
  // P(a pair touches row 9) = 1 − P(neither) ≈ 0.91 + 0.09·(41/44) ≈ 0.998 with these weights.
  EXPECT_GT(withNine, 4900);
}

TEST(GeometrySampling, RejectsWeightsThatAreNotMultiplicities) {
  ProxyOptions options;
  EXPECT_THROW(drawTokenSampling(3, std::vector<float>{1, 0.5f, 1}, options, 0),
               std::invalid_argument);
  EXPECT_THROW(drawTokenSampling(3, std::vector<float>{1, -1, 1}, options, 0),
               std::invalid_argument);
  EXPECT_THROW(drawTokenSampling(3, std::vector<float>{1, 1}, options, 0), std::invalid_argument);
  EXPECT_THROW(drawTokenSampling(3, std::vector<float>{0, 0, 4}, options, 0),
               std::invalid_argument);
}

TEST(GeometrySampling, BootstrapWeightsCountNDraws) {
  const std::vector<float> w = drawBootstrapWeights(1000, 4);
  double total = 0;
  int64_t zeros = 0;
  for (float x : w) {
    total += x;
    zeros += x == 0 ? 1 : 0;
  }
  EXPECT_EQ(total, 1000);
  EXPECT_NEAR(double(zeros) / 1000, std::exp(-1.0), 0.05);  // (1 − 1/N)^N
  EXPECT_EQ(w, drawBootstrapWeights(1000, 4));
  EXPECT_NE(w, drawBootstrapWeights(1000, 5));
  EXPECT_NE(deriveSeed(1, 2), deriveSeed(1, 3));
  EXPECT_NE(deriveSeed(1, 2), deriveSeed(2, 2));
}

TEST(GeometryOptions, ValidateNamesTheBadSetting) {
  const auto message = [](auto change) {
    ProxyOptions options;
    change(options);
    try {
      options.validate();
    } catch (const ConfigError& e) {  // the field is the setting's name, and so is the message
      EXPECT_NE(std::string(e.what()).find(e.field()), std::string::npos) << e.what();
      return e.field();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message([](ProxyOptions&) {}), "accepted");
  EXPECT_NE(message([](ProxyOptions& o) { o.anchors = 0; }).find("anchors"), std::string::npos);
  EXPECT_NE(message([](ProxyOptions& o) { o.neighbours = 1; }).find("neighbours"),
            std::string::npos);
  EXPECT_NE(message([](ProxyOptions& o) { o.directions = 0; }).find("directions"),
            std::string::npos);
  EXPECT_NE(message([](ProxyOptions& o) { o.ridgeFactor = 0; }).find("ridgeFactor"),
            std::string::npos);
  EXPECT_NE(message([](ProxyOptions& o) { o.spectrumSize = 0; }).find("spectrumSize"),
            std::string::npos);
  EXPECT_NE(message([](ProxyOptions& o) { o.bootstrapResamples = -1; }).find("bootstrapResamples"),
            std::string::npos);
  EXPECT_NE(message([](ProxyOptions& o) { o.confidence = 1.0; }).find("confidence"),
            std::string::npos);
}

TEST(GeometryOptions, MonotonicityModesRoundTrip) {
  EXPECT_EQ(parseMonotonicityMode("rayleigh"), MonotonicityMode::Rayleigh);
  EXPECT_EQ(parseMonotonicityMode("min-eig"), MonotonicityMode::MinEigenvalue);
  EXPECT_STREQ(monotonicityModeName(MonotonicityMode::MinEigenvalue), "min-eig");
  EXPECT_STREQ(monotonicityModeName(MonotonicityMode::Rayleigh), "rayleigh");
  EXPECT_THROW(parseMonotonicityMode("minimum"), ConfigError);
}

TEST(GeometryNeighbours, TiesGoToTheLowerRowIndex) {
  // d = 1, rows −1, −1, 0, 1, 1: mean 0 and Σx²/(N−1) = 1 = d, so the normalisation is exact
  // and the four candidates around anchor row 2 are all at distance exactly 1.
  const std::vector<float> x = {-1, -1, 0, 1, 1};
  const HiddenStates states{x.data(), 5, 1};
  const cpu::RowNormalisation norm = cpu::normaliseRows(states, {});
  ASSERT_EQ(norm.scale, std::vector<double>{1.0});
  const std::vector<int64_t> anchors = {2, 3};
  std::vector<float> normalised(5);
  cpu::normalisedRows(states, norm, normalised.data());
  cpu::Workspace workspace;
  const cpu::NeighbourLists three =
      cpu::nearestNeighbours(normalised.data(), norm, anchors, 3, workspace);
  EXPECT_EQ(std::vector<int64_t>(three.rows.begin(), three.rows.begin() + 3),
            (std::vector<int64_t>{0, 1, 3}));
  // Anchor row 3: row 4 at 0, row 2 at 1, rows 0 and 1 tied at 4 → row 0.
  EXPECT_EQ(std::vector<int64_t>(three.rows.begin() + 3, three.rows.end()),
            (std::vector<int64_t>{4, 2, 0}));
  // Blocks of one candidate at a time must give the same lists (the selection spans blocks).
  const cpu::NeighbourLists blocked =
      cpu::nearestNeighbours(normalised.data(), norm, anchors, 3, workspace, 1);
  EXPECT_EQ(blocked.rows, three.rows);
}

TEST(GeometryNeighbours, TheVectorPrefilterKeepsEveryList) {
  // 3,001 rows of width 24 in 40 tight clusters, every tenth row repeated (exact ties), 300
  // anchors, blocks of 37 candidates (so that no block is a multiple of 16): the lists with
  // AVX-512 passing over far candidates must equal those measured one by one.
  const int64_t n = 3001, d = 24;
  std::mt19937 rng(17);
  std::normal_distribution<float> normal;
  std::vector<float> centres(40 * d);
  for (float& v : centres) v = 3.0f * normal(rng);
  std::vector<float> x(size_t(n * d));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < d; ++j)
      x[size_t(i * d + j)] = i % 10 == 9 ? x[size_t((i - 1) * d + j)]
                                         : centres[size_t((i % 40) * d + j)] + 0.1f * normal(rng);
  const HiddenStates states{x.data(), n, d};
  const cpu::RowNormalisation norm = cpu::normaliseRows(states, {});
  std::vector<float> normalised(size_t(n * d));
  cpu::normalisedRows(states, norm, normalised.data());
  std::vector<int64_t> anchors;
  for (int64_t i = 0; i < 300; ++i) anchors.push_back(i * 10 + (i % 7));
  cpu::Workspace workspace;
  for (int64_t blockRows : {int64_t(37), int64_t(4096)}) {
    const cpu::NeighbourLists measured =
        cpu::nearestNeighbours(normalised.data(), norm, anchors, 16, workspace, blockRows, false);
    const cpu::NeighbourLists filtered =
        cpu::nearestNeighbours(normalised.data(), norm, anchors, 16, workspace, blockRows, true);
    EXPECT_EQ(filtered.rows, measured.rows) << "blocks of " << blockRows;
    EXPECT_EQ(filtered.squaredDistances, measured.squaredDistances) << "blocks of " << blockRows;
  }
}

TEST(GeometryNeighbours, SkipRowsOfZeroWeightAndTheAnchorItself) {
  const std::vector<float> x = {0, 0.1f, 0.2f, 5, 6, 7, 8};
  const std::vector<float> weights = {1, 0, 1, 1, 1, 1, 1};
  const HiddenStates states{x.data(), 7, 1};
  const cpu::RowNormalisation norm = cpu::normaliseRows(states, weights);
  const std::vector<int64_t> anchors = {0};
  std::vector<float> normalised(norm.rows.size());
  cpu::normalisedRows(states, norm, normalised.data());
  cpu::Workspace workspace;
  const cpu::NeighbourLists lists =
      cpu::nearestNeighbours(normalised.data(), norm, anchors, 2, workspace);
  EXPECT_EQ(lists.rows, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(lists.positions, (std::vector<int64_t>{1, 2}));
}

}  // namespace
}  // namespace strata::geometry
