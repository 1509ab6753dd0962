#pragma once
// What the geometry proxies are computed from and with which settings. The definitions are
// DESIGN.md's "Geometry proxies — the specification"; every default below is the one given
// there, and every alternative is an explicit option.

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace strata::geometry {

/**
 * One layer's hidden states, N rows (tokens) × d columns, row-major float32. A view: the
 * caller owns the data and keeps it alive for the call.
 */
struct HiddenStates {
  const float* data = nullptr;
  int64_t rows = 0;  // N
  int64_t cols = 0;  // d
};

/** m_mono's definition: the mean Rayleigh quotient (default) or `min-eig` = 1/(λ_max(Σ)+ε). */
enum class MonotonicityMode { Rayleigh, MinEigenvalue };

const char* monotonicityModeName(MonotonicityMode mode);  // "rayleigh" / "min-eig"
/** Parses "rayleigh" or "min-eig"; throws ConfigError naming the accepted values. */
MonotonicityMode parseMonotonicityMode(const std::string& text);

/**
 * How the centred rows are scaled before any proxy (DESIGN.md, docs/geometry.md
 * "Normalisation"): `none` keeps the raw scale, `trace` scales so that tr(Σ) = d (the default),
 * `standardise` gives every dimension unit variance (zero-variance dimensions stay 0).
 */
enum class Normalisation { None, Trace, Standardise };

const char* normalisationName(Normalisation mode);  // "none" / "trace" / "standardise"
/** Parses "none", "trace" or "standardise"; throws ConfigError naming them. */
Normalisation parseNormalisation(const std::string& text);

struct ProxyOptions {
  int64_t anchors = 1024;     // M: anchors for m_curv
  int64_t neighbours = 32;    // k: nearest neighbours per anchor (anchor excluded)
  int64_t directions = 1024;  // M: random difference directions u = x_a − x_b for m_mono
  double ridgeFactor = 1e-3;  // ε = ridgeFactor · tr(Σ)/d
  MonotonicityMode monotonicity = MonotonicityMode::Rayleigh;
  // standardise since the pre-registered Gemma-3 replication (docs/geometry.md, "Normalisation");
  // stores scored before say which they used (/geometry@normalisation, absent: trace).
  Normalisation normalisation = Normalisation::Standardise;
  int64_t spectrumSize = 64;        // leading eigenvalues of Σ kept for plots (clipped to d)
  int64_t bootstrapResamples = 20;  // 0: no intervals
  // false: skip m_curv's k-NN search (curvature NaN, localLambdaMax empty). The bootstrap's
  // replicates do: they resample the point estimate's anchors instead. Not a user setting.
  bool curvature = true;
  double confidence = 0.95;  // bootstrap interval
  // G contiguous token blocks for the delete-one-block jackknife that gives BCa its
  // acceleration (docs/geometry.md, "Intervals"); 0: percentile intervals.
  int64_t jackknifeBlocks = 10;
  uint64_t seed = 0;

  /** Throws ConfigError naming the first setting out of range (a user's choice). */
  void validate() const;
};

/**
 * The random draws of one proxy evaluation, explicit so that a reference implementation (and
 * a test) can reproduce them exactly: anchor rows for m_curv and row pairs (a ≠ b) for m_mono.
 */
struct TokenSampling {
  std::vector<int64_t> anchors;
  std::vector<std::pair<int64_t, int64_t>> pairs;
};

/**
 * Draws anchors (without replacement when M ≤ N, else every row) and difference pairs from
 * the rows whose weight is positive (all rows when `rowWeights` is empty). Deterministic for a
 * given seed on every platform (no std:: distributions).
 * Weights must be non-negative integers (multiplicities; std::invalid_argument otherwise) and
 * act as copies: anchors are min(M, W) of the W = Σw slots without replacement, so a row of
 * weight w can be an anchor up to w times; each pair joins two different rows, each drawn in
 * proportion to its weight. docs/geometry.md has the exact procedure.
 */
TokenSampling drawTokenSampling(int64_t rows, std::span<const float> rowWeights,
                                const ProxyOptions& options, uint64_t seed);

/**
 * Row multiplicities of one bootstrap resample: `rows` draws with replacement from `rows` rows
 * (the counts sum to `rows`). Deterministic for a seed on every platform.
 */
std::vector<float> drawBootstrapWeights(int64_t rows, uint64_t seed);

/** An independent seed for stream `stream` of `seed` (SplitMix64 mixing), e.g. one per resample. */
uint64_t deriveSeed(uint64_t seed, uint64_t stream);

}  // namespace strata::geometry
