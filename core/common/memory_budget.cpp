#include "common/memory_budget.h"

#include <cctype>
#include <cstdlib>

#include "common/memory_release.h"

namespace strata {

namespace {

// The process before any model: LibTorch's libraries with their CUDA dependencies loaded and
// relocated (`strata-cli --version` alone peaks at 478 MiB, measured 2026-12-07), OpenBLAS's and
// HDF5's buffers, the sampled corpus: 512 MiB. The tokenizer and GGUF metadata grow with the
// vocabulary (2 KiB a token). Checked against the peak resident set of captures of SmolLM2-135M
// and an 8B-shaped GGUF (docs/benchmarks.md, "Large models") and of scoring stores without a
// model (where 400 MiB, the figure before, fell short: "Scoring planned").
constexpr int64_t kProcessCost = int64_t{512} << 20;
constexpr int64_t kCostPerToken = 2048;

int64_t parseBytes(const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    throw ConfigError({}, "STRATA_MEMORY_AVAILABLE", "is not a number of bytes: '" + text + "'");
  }
  const std::string suffix = text.substr(used);
  const char unit = suffix.empty() ? ' ' : static_cast<char>(std::toupper(suffix[0]));
  const double scale = unit == 'K'   ? 1024.0
                       : unit == 'M' ? 1024.0 * 1024
                       : unit == 'G' ? 1024.0 * 1024 * 1024
                       : unit == 'T' ? 1024.0 * 1024 * 1024 * 1024
                                     : 1.0;
  if (value <= 0 || (unit != ' ' && scale == 1.0))
    throw ConfigError({}, "STRATA_MEMORY_AVAILABLE", "is not a number of bytes: '" + text + "'");
  return static_cast<int64_t>(value * scale);
}

}  // namespace

int64_t processCost(int64_t vocabulary, bool cuda) {
  return cuda ? 0 : kProcessCost + kCostPerToken * vocabulary;
}

int64_t memoryAvailableOverride() {
  if (const char* forced = std::getenv("STRATA_MEMORY_AVAILABLE"); forced && *forced)
    return parseBytes(forced);
  return -1;
}

int64_t availableHostMemory() {
  if (const int64_t forced = memoryAvailableOverride(); forced >= 0) return forced;
  const int64_t bytes = memAvailableBytes();
  if (bytes < 0) throw IoError("/proc/meminfo", "has no MemAvailable line");
  return bytes;
}

}  // namespace strata
