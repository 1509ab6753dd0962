// LibTorch's large CPU buffers kept for reuse while a job runs (see buffer_cache.h).

#include "model/backbone/buffer_cache.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>

#include <algorithm>
#include <iterator>
#include <list>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace strata::model {

namespace {

/**
 * LibTorch's CPU allocator for the process once a BufferCache has existed. Requests below
 * kMinimumBytes go to LibTorch's default allocator unchanged; larger ones get c10::alloc_cpu's
 * memory (the default's own, 64-byte aligned), remembered by address so that their deleter knows
 * their size. The deleter keeps a freed buffer while a cache lives, and frees it otherwise.
 * Never destroyed: tensors may be freed during the process's exit.
 */
class ReusingAllocator final : public c10::Allocator {
 public:
  static ReusingAllocator& instance() {
    static auto* const allocator = new ReusingAllocator();
    return *allocator;
  }

  c10::DataPtr allocate(size_t bytes) override {
    if (static_cast<int64_t>(bytes) < BufferCache::kMinimumBytes)
      return m_fallback->allocate(bytes);
    void* data = takeKept(bytes);
    if (!data) data = allocateFresh(bytes);
    return {data, data, &release, c10::Device(c10::DeviceType::CPU)};
  }

  c10::DeleterFnPtr raw_deleter() const override { return &release; }

  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }

  void open(int64_t limit) {
    std::lock_guard lock(m_mutex);
    m_limit += limit;
  }

  void close(int64_t limit) {
    std::vector<void*> freed;
    {
      std::lock_guard lock(m_mutex);
      m_limit -= limit;  // 0 once the last cache ends: everything kept goes
      evictAbove(m_limit, freed);
    }
    for (void* data : freed) c10::free_cpu(data);
  }

  BufferCacheCounts counts() {
    std::lock_guard lock(m_mutex);
    return m_counts;
  }

 private:
  struct Kept {
    size_t bytes;
    void* data;
  };

  ReusingAllocator() : m_fallback(c10::GetDefaultCPUAllocator()) {}

  /** A kept buffer of exactly `bytes` (the one freed last), or nullptr. */
  void* takeKept(size_t bytes) {
    std::lock_guard lock(m_mutex);
    const auto same = m_keptBySize.find(bytes);
    if (same == m_keptBySize.end()) return nullptr;  // no size is left with an empty list
    const auto kept = same->second.back();
    same->second.pop_back();
    if (same->second.empty()) m_keptBySize.erase(same);
    void* data = kept->data;
    m_kept.erase(kept);
    m_counts.keptBytes -= static_cast<int64_t>(bytes);
    ++m_counts.reused;
    markInUse(data, bytes);
    return data;
  }

  /** Fresh memory; when the system has none, the kept buffers are freed and it is asked again. */
  void* allocateFresh(size_t bytes) {
    void* data = nullptr;
    try {
      data = c10::alloc_cpu(bytes);
    } catch (const c10::Error&) {
      std::vector<void*> freed;
      {
        std::lock_guard lock(m_mutex);
        evictAbove(0, freed);
      }
      if (freed.empty()) throw;
      for (void* kept : freed) c10::free_cpu(kept);
      data = c10::alloc_cpu(bytes);
    }
    std::lock_guard lock(m_mutex);
    ++m_counts.allocated;
    markInUse(data, bytes);
    return data;
  }

  /** Remembers a buffer given out, so that its deleter knows its size. Under the lock. */
  void markInUse(void* data, size_t bytes) {
    m_counts.inUseBytes += static_cast<int64_t>(bytes);
    m_inUse.emplace(data, bytes);
  }

  /** The deleter of every buffer allocate() gave out (and raw_deallocate's). */
  static void release(void* data) {
    ReusingAllocator& self = instance();
    std::vector<void*> freed;
    {
      std::lock_guard lock(self.m_mutex);
      const auto used = self.m_inUse.find(data);
      if (used == self.m_inUse.end()) {
        freed.push_back(data);  // a small one, from the fallback by raw_allocate: its memory too
      } else {
        const size_t bytes = used->second;
        self.m_inUse.erase(used);
        self.m_counts.inUseBytes -= static_cast<int64_t>(bytes);
        // The limit is 0 outside a cache. A buffer larger than it is freed at once: kept, it
        // would first push out every buffer kept before it.
        if (static_cast<int64_t>(bytes) <= self.m_limit) {
          self.m_kept.push_back({bytes, data});
          self.m_keptBySize[bytes].push_back(std::prev(self.m_kept.end()));
          self.m_counts.keptBytes += static_cast<int64_t>(bytes);
          self.evictAbove(self.m_limit, freed);
        } else {
          freed.push_back(data);
        }
      }
    }
    for (void* buffer : freed) c10::free_cpu(buffer);
  }

  /** Takes the buffers kept longest out of the cache until at most `limit` bytes remain; their
   *  memory is freed by the caller, outside the lock. */
  void evictAbove(int64_t limit, std::vector<void*>& freed) {
    while (m_counts.keptBytes > limit && !m_kept.empty()) {
      const Kept oldest = m_kept.front();
      const auto same = m_keptBySize.find(oldest.bytes);
      same->second.erase(same->second.begin());  // the oldest of its size is the first
      if (same->second.empty()) m_keptBySize.erase(same);
      m_kept.pop_front();
      m_counts.keptBytes -= static_cast<int64_t>(oldest.bytes);
      freed.push_back(oldest.data);
    }
  }

  c10::Allocator* const m_fallback;
  std::mutex m_mutex;
  int64_t m_limit = 0;     ///< the sum of the living caches' limits
  std::list<Kept> m_kept;  ///< oldest first
  std::unordered_map<size_t, std::vector<std::list<Kept>::iterator>> m_keptBySize;
  std::unordered_map<void*, size_t> m_inUse;
  BufferCacheCounts m_counts;
};

// Above LibTorch's default allocator (registered at priority 0), whatever the order of
// registration.
constexpr uint8_t kPriority = 1;

}  // namespace

BufferCache::BufferCache(int64_t limitBytes) : m_limit(std::max<int64_t>(limitBytes, 0)) {
  static std::once_flag installed;
  std::call_once(installed, [] { c10::SetCPUAllocator(&ReusingAllocator::instance(), kPriority); });
  ReusingAllocator::instance().open(m_limit);
}

BufferCache::~BufferCache() { ReusingAllocator::instance().close(m_limit); }

BufferCacheCounts BufferCache::counts() { return ReusingAllocator::instance().counts(); }

}  // namespace strata::model
