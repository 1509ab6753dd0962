#include "geometry/proxy_options.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "common/error.h"

namespace strata::geometry {

const char* monotonicityModeName(MonotonicityMode mode) {
  switch (mode) {
    case MonotonicityMode::Rayleigh:
      return "rayleigh";
    case MonotonicityMode::MinEigenvalue:
      return "min-eig";
  }
  return "rayleigh";
}

MonotonicityMode parseMonotonicityMode(const std::string& text) {
  if (text == "rayleigh") return MonotonicityMode::Rayleigh;
  if (text == "min-eig") return MonotonicityMode::MinEigenvalue;
  throw ConfigError({}, "monotonicity",
                    "unknown mode '" + text + "' (expected rayleigh or min-eig)");
}

const char* normalisationName(Normalisation mode) {
  switch (mode) {
    case Normalisation::None:
      return "none";
    case Normalisation::Trace:
      return "trace";
    case Normalisation::Standardise:
      return "standardise";
  }
  return "trace";
}

Normalisation parseNormalisation(const std::string& text) {
  if (text == "none") return Normalisation::None;
  if (text == "trace") return Normalisation::Trace;
  if (text == "standardise") return Normalisation::Standardise;
  throw ConfigError({}, "normalisation",
                    "unknown normalisation '" + text + "' (expected none, trace or standardise)");
}

namespace {

[[noreturn]] void reject(const std::string& field, const std::string& rule,
                         const std::string& got) {
  throw ConfigError("geometry options", field, "must be " + rule + " (got " + got + ")");
}

}  // namespace

void ProxyOptions::validate() const {
  if (anchors < 1) reject("anchors", "at least 1", std::to_string(anchors));
  // C_i is a covariance with ddof = 1: it needs two points at least.
  if (neighbours < 2) reject("neighbours", "at least 2", std::to_string(neighbours));
  if (directions < 1) reject("directions", "at least 1", std::to_string(directions));
  if (!std::isfinite(ridgeFactor) || ridgeFactor <= 0)
    reject("ridgeFactor", "finite and positive (Σ + εI must be positive definite)",
           std::to_string(ridgeFactor));
  if (monotonicity != MonotonicityMode::Rayleigh && monotonicity != MonotonicityMode::MinEigenvalue)
    reject("monotonicity", "rayleigh or min-eig", std::to_string(static_cast<int>(monotonicity)));
  if (normalisation != Normalisation::None && normalisation != Normalisation::Trace &&
      normalisation != Normalisation::Standardise)
    reject("normalisation", "none, trace or standardise",
           std::to_string(static_cast<int>(normalisation)));
  if (spectrumSize < 1) reject("spectrumSize", "at least 1", std::to_string(spectrumSize));
  if (bootstrapResamples < 0)
    reject("bootstrapResamples", "0 or more", std::to_string(bootstrapResamples));
  if (jackknifeBlocks != 0 && jackknifeBlocks < 2)
    reject("jackknifeBlocks", "0 (percentile intervals) or at least 2",
           std::to_string(jackknifeBlocks));
  if (!(confidence > 0 && confidence < 1))
    reject("confidence", "strictly between 0 and 1", std::to_string(confidence));
}

// --- Portable random numbers ----------------------------------------------------------------
// SplitMix64 (Steele, Lea & Flood 2014) seeds and derives streams; xoshiro256** (Blackman &
// Vigna 2018) draws. Integers below n by rejection, so every platform and compiler gives the
// same draws for a seed (std:: distributions are implementation-defined).

namespace {

uint64_t splitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class RandomStream {
 public:
  explicit RandomStream(uint64_t seed) {
    uint64_t state = seed;
    for (uint64_t& word : m_state) word = splitMix64(state);
  }

  uint64_t next() {
    const auto rotl = [](uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
    const uint64_t result = rotl(m_state[1] * 5, 7) * 9;
    const uint64_t t = m_state[1] << 17;
    m_state[2] ^= m_state[0];
    m_state[3] ^= m_state[1];
    m_state[1] ^= m_state[2];
    m_state[0] ^= m_state[3];
    m_state[2] ^= t;
    m_state[3] = rotl(m_state[3], 45);
    return result;
  }

  /** Uniform on [0, n), n ≥ 1: the top 2^64 mod n raw values are rejected. */
  uint64_t below(uint64_t n) {
    const uint64_t threshold = (0 - n) % n;
    for (;;) {
      const uint64_t r = next();
      if (r >= threshold) return r % n;
    }
  }

 private:
  uint64_t m_state[4];
};

}  // namespace

uint64_t deriveSeed(uint64_t seed, uint64_t stream) {
  uint64_t state = seed;
  const uint64_t mixed = splitMix64(state);
  state = mixed ^ (stream * 0xd1b54a32d192ed03ULL);
  return splitMix64(state);
}

namespace {

/**
 * The rows of positive weight as a multiset: row i occupies w_i consecutive slots. Unit (or
 * absent) weights make slot == row.
 */
class WeightedSlots {
 public:
  WeightedSlots(int64_t rows, std::span<const float> weights) {
    if (rows < 1) throw std::invalid_argument("token sampling needs at least one row");
    if (!weights.empty() && static_cast<int64_t>(weights.size()) != rows)
      throw std::invalid_argument("token sampling: " + std::to_string(weights.size()) +
                                  " row weights for " + std::to_string(rows) + " rows");
    if (weights.empty()) {
      m_slots = rows;
      m_positiveRows = rows;
      return;
    }
    m_ends.reserve(weights.size());
    int64_t total = 0;
    for (size_t i = 0; i < weights.size(); ++i) {
      const float w = weights[i];
      if (!std::isfinite(w) || w < 0 || w != std::floor(w))
        throw std::invalid_argument("token sampling: row weight " + std::to_string(i) +
                                    " is not a non-negative integer multiplicity (" +
                                    std::to_string(w) + ")");
      total += static_cast<int64_t>(w);
      m_positiveRows += w > 0 ? 1 : 0;
      m_ends.push_back(total);
    }
    m_slots = total;
  }

  int64_t slots() const { return m_slots; }
  int64_t positiveRows() const { return m_positiveRows; }

  int64_t rowOf(int64_t slot) const {
    if (m_ends.empty()) return slot;
    // First row whose cumulative end exceeds the slot.
    int64_t lo = 0, hi = static_cast<int64_t>(m_ends.size()) - 1;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (m_ends[mid] > slot)
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo;
  }

 private:
  std::vector<int64_t> m_ends;  // cumulative weights; empty for unit weights
  int64_t m_slots = 0;
  int64_t m_positiveRows = 0;
};

}  // namespace

TokenSampling drawTokenSampling(int64_t rows, std::span<const float> rowWeights,
                                const ProxyOptions& options, uint64_t seed) {
  const WeightedSlots slots(rows, rowWeights);
  if (slots.positiveRows() < 2)
    throw std::invalid_argument("token sampling needs at least two rows of positive weight (got " +
                                std::to_string(slots.positiveRows()) + ")");
  RandomStream rng(seed);
  TokenSampling sampling;

  // Anchors: min(M, W) slots without replacement (a partial Fisher–Yates shuffle of the W slots,
  // kept sparse: only displaced slots are stored). With unit weights these are distinct rows; in
  // a bootstrap resample (W = N) a row of multiplicity w can be drawn up to w times, exactly as
  // when the estimator runs on the materialised resample.
  const int64_t anchorCount = std::min(options.anchors, slots.slots());
  sampling.anchors.reserve(anchorCount);
  std::unordered_map<int64_t, int64_t> displaced;
  const auto slotAt = [&](int64_t i) {
    const auto found = displaced.find(i);
    return found == displaced.end() ? i : found->second;
  };
  for (int64_t i = 0; i < anchorCount; ++i) {
    const int64_t j = i + static_cast<int64_t>(rng.below(static_cast<uint64_t>(slots.slots() - i)));
    const int64_t chosen = slotAt(j);
    displaced[j] = slotAt(i);
    sampling.anchors.push_back(slots.rowOf(chosen));
  }

  // Pairs: two slots drawn independently (so rows in proportion to weight), the second redrawn
  // until it lies on a different row: u = x_a − x_b between two copies of one row would be 0.
  sampling.pairs.reserve(options.directions);
  for (int64_t p = 0; p < options.directions; ++p) {
    const int64_t a = slots.rowOf(static_cast<int64_t>(rng.below(slots.slots())));
    int64_t b = a;
    while (b == a) b = slots.rowOf(static_cast<int64_t>(rng.below(slots.slots())));
    sampling.pairs.emplace_back(a, b);
  }
  return sampling;
}

std::vector<float> drawBootstrapWeights(int64_t rows, uint64_t seed) {
  if (rows < 1) throw std::invalid_argument("a bootstrap resample needs at least one row");
  RandomStream rng(seed);
  std::vector<float> counts(rows, 0.0f);
  for (int64_t i = 0; i < rows; ++i) counts[rng.below(static_cast<uint64_t>(rows))] += 1.0f;
  return counts;
}

}  // namespace strata::geometry
