#pragma once
// What every memory plan shares (the capture's and training's in engine/, scoring's in
// geometry/): the error a job that cannot fit is refused with, the share of the available
// memory a plan may use, the process's own cost, and what the machine has now.

#include <cstdint>
#include <string>

#include "common/error.h"

namespace strata {

/** A job would not fit in the memory available: refused before anything was loaded. The
 *  message says what is needed, what is available and what to change. */
class MemoryError : public Error {
 public:
  explicit MemoryError(const std::string& message) : Error(message) {}
};

/** The share of what is available that a plan may use: the rest is left to the system. */
inline constexpr double kUsableShare = 0.9;

/** What a plan may use of `available` bytes (kUsableShare of them). */
inline int64_t usableShareOf(int64_t available) {
  return static_cast<int64_t>(static_cast<double>(available) * kUsableShare);
}

/** The process itself before any model, in the memory a plan counts: LibTorch's and OpenBLAS's
 *  code and arenas, the sampled corpus, the tokenizer's tables (`vocabulary` tokens); nothing
 *  of it lies in a GPU's memory. */
int64_t processCost(int64_t vocabulary, bool cuda);

/**
 * The host memory available for a job now: MemAvailable from /proc/meminfo, or
 * STRATA_MEMORY_AVAILABLE (bytes, or with a K/M/G/T suffix), which overrides it for tests and
 * for users who share a machine. Throws ConfigError for a malformed override, IoError when
 * /proc/meminfo has no MemAvailable.
 */
int64_t availableHostMemory();

/** The STRATA_MEMORY_AVAILABLE override when it is set (also for a GPU's memory), else -1. */
int64_t memoryAvailableOverride();

}  // namespace strata
