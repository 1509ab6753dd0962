// LibTorch's large CPU buffers kept for reuse while a BufferCache lives (buffer_cache.h).
//
// Buffers of 48 MB: above glibc's largest mmap threshold (32 MB), so malloc maps every one
// afresh and a buffer that comes back with the values written before it was freed was reused,
// not re-mapped (fresh pages read zero).

#include "model/backbone/buffer_cache.h"

#include <ATen/ATen.h>
#include <c10/core/CPUAllocator.h>
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "model/backbone/backbone.h"
#include "support/model_test_folders.h"
#include "support/temp_dir.h"

namespace strata::model {
namespace {

constexpr int64_t kFloats = 12 << 20;  // 48 MB
constexpr int64_t kBytes = kFloats * 4;

at::Tensor filled(int64_t floats, float value) { return at::full({floats}, value); }

/** Whether `t` (uninitialised memory) holds `value` everywhere: the buffer written before. */
bool holds(const at::Tensor& t, float value) { return at::all(t == value).item<bool>(); }

TEST(BufferCache, AFreedBufferComesBackForTheSameSizeWithWhatItHeld) {
  const BufferCache cache(4 * kBytes);
  const BufferCacheCounts before = BufferCache::counts();
  at::Tensor first = filled(kFloats, 7.0f);
  const void* memory = first.data_ptr();
  first.reset();
  EXPECT_EQ(BufferCache::counts().keptBytes, before.keptBytes + kBytes);

  const at::Tensor second = at::empty({kFloats});
  const BufferCacheCounts after = BufferCache::counts();
  EXPECT_EQ(after.reused, before.reused + 1);
  EXPECT_EQ(after.allocated, before.allocated + 1);  // the first only
  EXPECT_EQ(after.keptBytes, before.keptBytes);
  EXPECT_EQ(second.data_ptr(), memory);
  EXPECT_TRUE(holds(second, 7.0f));
}

TEST(BufferCache, AnotherSizeOrASmallBufferIsNotServedFromIt) {
  const BufferCache cache(4 * kBytes);
  filled(kFloats, 7.0f).reset();
  const BufferCacheCounts before = BufferCache::counts();
  const at::Tensor larger = at::empty({kFloats + 16});
  const at::Tensor small = at::empty({1024});
  const BufferCacheCounts after = BufferCache::counts();
  EXPECT_EQ(after.reused, before.reused);
  EXPECT_EQ(after.allocated, before.allocated + 1);  // the small one is LibTorch's own
  EXPECT_EQ(after.keptBytes, kBytes);
  EXPECT_FALSE(holds(larger.narrow(0, 0, kFloats), 7.0f));
}

TEST(BufferCache, KeepsAtMostItsLimitAndFreesTheBuffersKeptLongestFirst) {
  const BufferCache cache(2 * kBytes);
  at::Tensor a = filled(kFloats, 1.0f), b = filled(kFloats, 2.0f), c = filled(kFloats, 3.0f);
  a.reset();
  b.reset();
  c.reset();  // a, kept longest, goes
  EXPECT_EQ(BufferCache::counts().keptBytes, 2 * kBytes);
  // The last freed comes back first, then the one before; a is gone (fresh memory reads zero).
  const at::Tensor x = at::empty({kFloats}), y = at::empty({kFloats}), z = at::empty({kFloats});
  EXPECT_TRUE(holds(x, 3.0f));
  EXPECT_TRUE(holds(y, 2.0f));
  EXPECT_TRUE(holds(z, 0.0f));
}

TEST(BufferCache, ABufferLargerThanTheLimitIsFreedAndTheKeptOnesStay) {
  const BufferCache cache(kBytes);
  filled(kFloats / 2, 6.0f).reset();  // kept
  // Larger than the whole limit: freed at once. Kept first, it would push the other one out.
  filled(2 * kFloats, 5.0f).reset();
  EXPECT_EQ(BufferCache::counts().keptBytes, kBytes / 2);
  EXPECT_TRUE(holds(at::empty({kFloats / 2}), 6.0f));
  EXPECT_TRUE(holds(at::empty({2 * kFloats}), 0.0f));
}

TEST(BufferCache, EverythingKeptIsFreedWhenTheLastCacheEnds) {
  at::Tensor outlives;
  {
    const BufferCache outer(kBytes);
    {
      const BufferCache inner(kBytes);  // the limits add up while both live
      at::Tensor a = filled(kFloats, 1.0f), b = filled(kFloats, 2.0f);
      a.reset();
      b.reset();
      EXPECT_EQ(BufferCache::counts().keptBytes, 2 * kBytes);
    }
    EXPECT_EQ(BufferCache::counts().keptBytes, kBytes);  // down to the outer's limit
    outlives = filled(kFloats, 3.0f);
    EXPECT_EQ(BufferCache::counts().keptBytes, 0);  // it took the one kept
  }
  const int64_t inUse = BufferCache::counts().inUseBytes;
  outlives.reset();  // freed after every cache ended: not kept
  EXPECT_EQ(BufferCache::counts().keptBytes, 0);
  EXPECT_EQ(BufferCache::counts().inUseBytes, inUse - kBytes);
  EXPECT_TRUE(holds(at::empty({kFloats}), 0.0f));
}

TEST(BufferCache, RawAllocationsOfAnySizeGoBackThroughTheRawDeleter) {
  const BufferCache cache(4 * kBytes);
  c10::Allocator* allocator = c10::GetCPUAllocator();
  ASSERT_NE(allocator->raw_deleter(), nullptr);
  for (const size_t bytes : {size_t{64}, size_t(kBytes)}) {
    void* data = allocator->raw_allocate(bytes);
    static_cast<char*>(data)[bytes - 1] = 1;
    allocator->raw_deallocate(data);
  }
  EXPECT_EQ(BufferCache::counts().keptBytes, kBytes);
}

TEST(BufferCache, ThreadsAllocatingAndFreeingAtOnceLeaveNothingBehind) {
  const int64_t inUse = BufferCache::counts().inUseBytes;
  {
    const BufferCache cache(8 * kBytes);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([t] {
        for (int i = 0; i < 50; ++i) {
          const int64_t floats = (int64_t{1} << 18) * (1 + (i + t) % 5);  // 1 to 5 MB
          const at::Tensor x = filled(floats, float(t));
          EXPECT_TRUE(holds(x, float(t)));
        }
      });
    for (std::thread& thread : threads) thread.join();
    EXPECT_GT(BufferCache::counts().reused, 0);
  }
  EXPECT_EQ(BufferCache::counts().keptBytes, 0);
  EXPECT_EQ(BufferCache::counts().inUseBytes, inUse);
}

TEST(BufferCache, ABackbonesSecondPassTakesEveryLargeBufferFromItWithTheSameBits) {
  TempDir dir;
  testing::writeRandomBackbone(dir / "model");
  const auto backbone = Backbone::load(dir / "model");
  const at::InferenceMode inference;
  // 64 sequences of 256: each layer's states are 1 MiB, the attention scores larger.
  at::manual_seed(3);
  const at::Tensor ids = at::randint(0, testing::kRandomVocab, {64, 256}, at::kLong);
  const std::vector<at::Tensor> expected = backbone->capture(ids).hidden;  // no cache

  const BufferCache cache(int64_t{1} << 30);
  backbone->capture(ids);  // its buffers, all freed, are kept
  const BufferCacheCounts before = BufferCache::counts();
  const std::vector<at::Tensor> again = backbone->capture(ids).hidden;
  const BufferCacheCounts after = BufferCache::counts();
  EXPECT_GT(after.reused, before.reused + testing::kRandomLayers);
  EXPECT_EQ(after.allocated, before.allocated);  // nothing fresh: every size came back
  ASSERT_EQ(again.size(), expected.size());
  for (std::size_t l = 0; l < expected.size(); ++l)
    EXPECT_TRUE(at::equal(again[l], expected[l])) << "layer " << l;
}

}  // namespace
}  // namespace strata::model
