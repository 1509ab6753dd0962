#pragma once
// LibTorch's large CPU buffers kept for reuse while a forward-pass job runs. Every operation of a
// block returns a fresh tensor; glibc's malloc maps any block above its mmap threshold (32 MB at
// most) afresh and unmaps it when freed, so at 2,048 tokens of an 8B model every hidden-size
// buffer (33.5 MB) and every MLP intermediate (117 MB) is faulted in page by page, in every
// block of every batch (an 8B-shaped capture of 4,096 tokens: 10.6 M minor faults, 22.5 s of
// system time; docs/benchmarks.md, "Page faults and the token table"). While a BufferCache
// lives, a freed buffer of at least kMinimumBytes is kept, and the next request of the same size
// takes it back instead.
//
// Process-wide: LibTorch has one CPU allocator. The first BufferCache installs Strata's in its
// place (for good; outside a cache's life it allocates and frees as LibTorch's does). While
// several live (two jobs at once), the kept bytes are bounded by the sum of their limits; the
// buffers kept longest are freed first when a new one would pass it. When the last one ends,
// every kept buffer is freed.
//
// Torch-free header: capture creates one around its forward passes.

#include <cstdint>

namespace strata::model {

/** Counters of the process's reusing allocator, since it was installed. */
struct BufferCacheCounts {
  int64_t reused = 0;      ///< requests served by a kept buffer
  int64_t allocated = 0;   ///< requests of at least kMinimumBytes given fresh memory
  int64_t keptBytes = 0;   ///< bytes kept for reuse now
  int64_t inUseBytes = 0;  ///< bytes of at least kMinimumBytes buffers held by tensors now
};

class BufferCache {
 public:
  /** Buffers smaller than this go to LibTorch's own allocator (glibc reuses them anyway). */
  static constexpr int64_t kMinimumBytes = int64_t{1} << 20;

  /** Keeps freed buffers, at most `limitBytes` of them (added to the limits of the caches
   *  already living), until it is destroyed. */
  explicit BufferCache(int64_t limitBytes);
  ~BufferCache();
  BufferCache(const BufferCache&) = delete;
  BufferCache& operator=(const BufferCache&) = delete;

  static BufferCacheCounts counts();

 private:
  int64_t m_limit;
};

}  // namespace strata::model
