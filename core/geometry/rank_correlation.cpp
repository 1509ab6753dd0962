#include "geometry/rank_correlation.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace strata::geometry {
namespace {

double pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const double n = double(a.size());
  const double ma = std::accumulate(a.begin(), a.end(), 0.0) / n;
  const double mb = std::accumulate(b.begin(), b.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  // A constant series has no ranking to agree with: ρ is undefined, as in scipy.
  if (saa == 0 || sbb == 0) return std::nan("");
  return sab / std::sqrt(saa * sbb);
}

void checkPair(std::span<const double> a, std::span<const double> b) {
  if (a.size() != b.size())
    throw std::invalid_argument("Spearman's rho needs series of equal length");
  if (a.size() < 2) throw std::invalid_argument("Spearman's rho needs at least two values");
  for (size_t i = 0; i < a.size(); ++i)
    if (!std::isfinite(a[i]) || !std::isfinite(b[i]))
      throw std::invalid_argument("Spearman's rho needs finite values (entry " + std::to_string(i) +
                                  ")");
}

/** The partial correlation from the three Pearson correlations of ranks; NaN where undefined.
 *  1e-12: rounding can leave |r| a hair below 1 for series ranked identically. */
double partialOf(double xy, double xz, double yz) {
  const double denominator = std::sqrt((1 - xz * xz) * (1 - yz * yz));
  if (!std::isfinite(denominator) || denominator < 1e-12) return std::nan("");
  return (xy - xz * yz) / denominator;
}

/** SplitMix64: a tiny portable generator, enough to shuffle for a permutation test. */
uint64_t nextRandom(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/** Fisher–Yates with index = draw mod (i + 1), so every platform draws the same order. */
void shuffle(std::vector<double>& values, uint64_t& state) {
  for (size_t i = values.size() - 1; i > 0; --i)
    std::swap(values[i], values[nextRandom(state) % (i + 1)]);
}

/** A hair of tolerance so a reordering that reproduces the observed value counts despite
 *  rounding. */
constexpr double kReached = 1e-12;

/** The permutation p: (reorderings reaching the observed value + 1) / (permutations + 1). */
double permutationP(int64_t reached, int64_t permutations) {
  return double(reached + 1) / double(permutations + 1);
}

void checkPermutations(int64_t permutations) {
  if (permutations < 1)
    throw std::invalid_argument("the permutation test needs at least one permutation");
}

}  // namespace

std::vector<double> averageRanks(std::span<const double> values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (size_t start = 0; start < order.size();) {
    size_t end = start + 1;
    while (end < order.size() && values[order[end]] == values[order[start]]) ++end;
    const double shared = 0.5 * double(start + 1 + end);  // mean of ranks start+1 .. end
    for (size_t i = start; i < end; ++i) ranks[order[i]] = shared;
    start = end;
  }
  return ranks;
}

double spearmanRho(std::span<const double> a, std::span<const double> b) {
  checkPair(a, b);
  return pearson(averageRanks(a), averageRanks(b));
}

double partialSpearmanRho(std::span<const double> x, std::span<const double> y,
                          std::span<const double> z) {
  checkPair(x, y);
  checkPair(x, z);
  if (x.size() < 3)
    throw std::invalid_argument("a partial Spearman's rho needs at least three values");
  const auto rx = averageRanks(x), ry = averageRanks(y), rz = averageRanks(z);
  return partialOf(pearson(rx, ry), pearson(rx, rz), pearson(ry, rz));
}

double spearmanPermutationPValue(std::span<const double> a, std::span<const double> b,
                                 int64_t permutations, uint64_t seed) {
  checkPair(a, b);
  checkPermutations(permutations);
  const auto ra = averageRanks(a);
  auto rb = averageRanks(b);
  const double observed = std::abs(pearson(ra, rb));
  if (std::isnan(observed)) return 1.0;
  int64_t atLeast = 0;
  uint64_t state = seed;
  for (int64_t p = 0; p < permutations; ++p) {
    shuffle(rb, state);
    if (std::abs(pearson(ra, rb)) >= observed - kReached) ++atLeast;
  }
  return permutationP(atLeast, permutations);
}

RankPermutationTest rankPermutationTest(std::span<const double> x, std::span<const double> y,
                                        std::span<const double> z, int64_t permutations,
                                        uint64_t seed) {
  checkPair(x, y);
  checkPair(x, z);
  if (x.size() < 3) throw std::invalid_argument("a permutation test needs at least three values");
  checkPermutations(permutations);
  const auto rx = averageRanks(x), rz = averageRanks(z);
  auto ry = averageRanks(y);
  const double xz = pearson(rx, rz);  // fixed: only y moves
  RankPermutationTest t;
  t.permutations = permutations;
  t.rho = pearson(rx, ry);
  t.partialRho = partialOf(t.rho, xz, pearson(ry, rz));
  int64_t greater = 0, twoSided = 0, partialGreater = 0, partialTwoSided = 0;
  uint64_t state = seed;
  for (int64_t p = 0; p < permutations; ++p) {
    shuffle(ry, state);
    const double rho = pearson(rx, ry);
    greater += rho >= t.rho - kReached ? 1 : 0;
    twoSided += std::abs(rho) >= std::abs(t.rho) - kReached ? 1 : 0;
    const double partial = partialOf(rho, xz, pearson(ry, rz));
    if (std::isnan(partial)) continue;
    partialGreater += partial >= t.partialRho - kReached ? 1 : 0;
    partialTwoSided += std::abs(partial) >= std::abs(t.partialRho) - kReached ? 1 : 0;
  }
  if (!std::isnan(t.rho)) {
    t.rhoGreater = permutationP(greater, permutations);
    t.rhoTwoSided = permutationP(twoSided, permutations);
  }
  if (!std::isnan(t.partialRho)) {
    t.partialGreater = permutationP(partialGreater, permutations);
    t.partialTwoSided = permutationP(partialTwoSided, permutations);
  }
  return t;
}

PooledPermutationTest pooledPartialPermutationTest(const std::vector<RankSeries>& strata,
                                                   int64_t permutations, uint64_t seed) {
  if (strata.empty()) throw std::invalid_argument("a pooled test needs at least one stratum");
  checkPermutations(permutations);
  struct Ranked {
    std::vector<double> rx, ry, rz;
    double xz = 0;
    double weight = 0;
  };
  std::vector<Ranked> ranked;
  double total = 0;
  for (const auto& s : strata) {
    checkPair(s.x, s.y);
    checkPair(s.x, s.z);
    if (s.x.size() < 3)
      throw std::invalid_argument("a permutation test needs at least three values per stratum");
    Ranked r{averageRanks(s.x), averageRanks(s.y), averageRanks(s.z), 0, double(s.x.size())};
    r.xz = pearson(r.rx, r.rz);
    total += r.weight;
    ranked.push_back(std::move(r));
  }
  const auto pooled = [&] {
    double sum = 0;
    for (const auto& r : ranked)
      sum += r.weight * partialOf(pearson(r.rx, r.ry), r.xz, pearson(r.ry, r.rz));
    return sum / total;
  };
  PooledPermutationTest t;
  t.permutations = permutations;
  t.statistic = pooled();
  if (std::isnan(t.statistic)) return t;
  int64_t greater = 0;
  uint64_t state = seed;
  for (int64_t p = 0; p < permutations; ++p) {
    for (auto& r : ranked) shuffle(r.ry, state);
    const double value = pooled();
    greater += !std::isnan(value) && value >= t.statistic - kReached ? 1 : 0;
  }
  t.greater = permutationP(greater, permutations);
  return t;
}

}  // namespace strata::geometry
