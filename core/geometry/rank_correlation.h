#pragma once
// Rank agreement between a score and a measured series (e.g. a bridge's validation loss).

#include <cstdint>
#include <span>
#include <vector>

namespace strata::geometry {

/** Ranks 1..n, ties getting the average of the ranks they span. */
std::vector<double> averageRanks(std::span<const double> values);

/** Spearman's ρ with ties averaged (Pearson correlation of averageRanks). Needs n ≥ 2 equal
 * lengths. */
double spearmanRho(std::span<const double> a, std::span<const double> b);

/**
 * Partial Spearman ρ of x and y given z: the Pearson correlations of the average ranks,
 * r_xy, r_xz, r_yz, then (r_xy − r_xz·r_yz) / sqrt((1 − r_xz²)(1 − r_yz²)). NaN when it is
 * undefined: a constant series, or z ranked exactly like x or y (|r_xz| = 1 or |r_yz| = 1, e.g.
 * a score monotone in depth, which then carries nothing beyond z). Needs n ≥ 3 equal lengths.
 */
double partialSpearmanRho(std::span<const double> x, std::span<const double> y,
                          std::span<const double> z);

/**
 * Two-sided permutation p-value of ρ: the share of `permutations` random reorderings of b
 * whose |ρ| reaches the observed |ρ| (with the +1 correction, so never 0).
 */
double spearmanPermutationPValue(std::span<const double> a, std::span<const double> b,
                                 int64_t permutations, uint64_t seed);

/** A permutation test of ρ(x, y) and of the partial ρ(x, y | z), with one- and two-sided p. */
struct RankPermutationTest {
  double rho = 0;             ///< the observed Spearman ρ(x, y)
  double rhoGreater = 1;      ///< one-sided p: the share of reorderings with ρ ≥ the observed ρ
  double rhoTwoSided = 1;     ///< the share with |ρ| ≥ the observed |ρ|
  double partialRho = 0;      ///< the observed partial ρ(x, y | z); NaN where undefined
  double partialGreater = 1;  ///< one-sided p of the partial ρ; 1 where it is undefined
  double partialTwoSided = 1;
  int64_t permutations = 0;
};

/**
 * Reorders y at random `permutations` times (x and z stay: the values of y are exchanged
 * between the units, e.g. the layers' losses between the layers) and counts how often each
 * statistic reaches the observed one; p = (count + 1) / (permutations + 1), never 0. A
 * reordering that leaves the partial ρ undefined counts as not reaching it. Shuffles with
 * SplitMix64 from `seed` (index = draw mod (i + 1)), so every platform draws the same; the
 * two-sided p of ρ equals spearmanPermutationPValue's for the same seed. Needs n ≥ 3.
 */
RankPermutationTest rankPermutationTest(std::span<const double> x, std::span<const double> y,
                                        std::span<const double> z, int64_t permutations,
                                        uint64_t seed);

/** One stratum of a pooled test: x, y, z as rankPermutationTest takes them. */
struct RankSeries {
  std::vector<double> x, y, z;
};

/** A pooled partial ρ over strata (e.g. models): T = Σ n_g · partialρ_g / Σ n_g. */
struct PooledPermutationTest {
  double statistic = 0;  ///< T; NaN when a stratum's partial ρ is undefined
  double greater = 1;    ///< one-sided p: the share of reorderings with T ≥ the observed T
  int64_t permutations = 0;
};

/**
 * A stratified permutation test of the pooled partial ρ(x, y | z): each reordering permutes y
 * within every stratum independently (units are exchanged only with units of their own
 * stratum), strata in order, with one SplitMix64 stream from `seed` — with one stratum, the
 * same draws and p as rankPermutationTest's partialGreater. Each stratum needs n ≥ 3.
 */
PooledPermutationTest pooledPartialPermutationTest(const std::vector<RankSeries>& strata,
                                                   int64_t permutations, uint64_t seed);

}  // namespace strata::geometry
