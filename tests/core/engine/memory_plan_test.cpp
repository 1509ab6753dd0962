// The memory plan (core/engine/memory_plan.h) with injected "available memory": a model that
// fits stays resident, one that only fits streamed streams, one that fits in neither way is
// refused with what it needs, what is available and what to change; the sizes against closed
// forms for Llama-3-8B's shapes; STRATA_MEMORY_AVAILABLE overrides what the machine reports.

#include "engine/memory_plan.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "common/error.h"

namespace strata::engine {
namespace {

constexpr int64_t GiB = int64_t{1} << 30;

/** Llama-3-8B: 32 blocks of 218,112,000 parameters, embedding and head of 525,336,576 each. */
MemoryRequest llama3_8b() {
  MemoryRequest r;
  r.config.architecture = io::Architecture::Llama;
  r.config.numLayers = 32;
  r.config.hiddenSize = 4096;
  r.config.intermediateSize = 14336;
  r.config.numHeads = 32;
  r.config.numKeyValueHeads = 8;
  r.config.headDim = 128;
  r.config.vocabSize = 128256;
  r.config.tieWordEmbeddings = false;
  r.parameterCount = int64_t{32} * 218'112'000 + 2 * int64_t{525'336'576} + 4096;
  r.batchSequences = 16;
  r.sequenceLength = 128;
  r.sampleTokens = 4096;
  return r;
}

TEST(MemoryPlan, WeightsAreParametersTimesTheComputeDtypeAndStreamingHoldsABlock) {
  MemoryRequest r = llama3_8b();
  const MemoryPlan f32 = planMemory(r, 64 * GiB);
  // Resident: every weight but the embedding and the head, and one batch's embedding rows
  // (float32); the head as well when logits are asked.
  const int64_t rows = 16 * 128 * 4096 * int64_t{4};
  const int64_t table = 525'336'576;
  EXPECT_EQ(f32.residentWeights, (r.parameterCount - 2 * table) * 4 + rows);
  r.logits = true;
  EXPECT_EQ(planMemory(r, 64 * GiB).residentWeights, (r.parameterCount - table) * 4 + rows);
  r.logits = false;
  // One block, the final norm and one batch's embedding rows (float32).
  EXPECT_EQ(f32.streamedWeights, 218'112'000 * 4 + 4096 * 4 + 16 * 128 * 4096 * 4);
  // On a GPU the next block is staged while one computes: two.
  r.cuda = true;
  EXPECT_EQ(planMemory(r, 64 * GiB).streamedWeights,
            2 * 218'112'000 * 4 + 4096 * 4 + 16 * 128 * 4096 * 4);
  r.cuda = false;
  r.computeBytes = 2;
  const MemoryPlan bf16 = planMemory(r, 64 * GiB);
  EXPECT_EQ(bf16.residentWeights, (r.parameterCount - 2 * table) * 2 + rows);
  EXPECT_LT(bf16.activations, f32.activations);
}

TEST(MemoryPlan, ResidentWhenItFitsStreamedWhenOnlyThatFitsRefusedOtherwise) {
  const MemoryRequest r = llama3_8b();  // 26 GiB resident in float32
  const MemoryPlan roomy = planMemory(r, 64 * GiB);
  EXPECT_TRUE(roomy.fits);
  EXPECT_FALSE(roomy.stream);
  EXPECT_NE(roomy.describe().find(": resident"), std::string::npos) << roomy.describe();

  const MemoryPlan laptop = planMemory(r, 16 * GiB);
  EXPECT_TRUE(laptop.fits);
  EXPECT_TRUE(laptop.stream);
  EXPECT_LT(laptop.needed(), 4 * GiB) << laptop.describe();
  EXPECT_NE(laptop.describe().find("streams its layers"), std::string::npos) << laptop.describe();

  const MemoryPlan tiny = planMemory(r, 1 * GiB);
  EXPECT_FALSE(tiny.fits);
  const std::string why = tiny.refusal();
  EXPECT_NE(why.find("needs about"), std::string::npos) << why;
  EXPECT_NE(why.find("1.00 GiB is available"), std::string::npos) << why;
  for (const char* remedy : {"--tokens", "--batch", "--seq-len", "--compute-dtype bf16"})
    EXPECT_NE(why.find(remedy), std::string::npos) << remedy << " in " << why;

  // --stream-layers streams even where the model would fit resident.
  MemoryRequest asked = r;
  asked.streamRequested = true;
  EXPECT_TRUE(planMemory(asked, 64 * GiB).stream);
}

TEST(MemoryPlan, TheSampleAndTheBatchGrowTheActivations) {
  MemoryRequest r = llama3_8b();
  const int64_t base = planMemory(r, 64 * GiB).activations;
  r.sampleTokens = 1'000'000;  // one layer's states of a million tokens: 4096 × 4 B each, ×5
  const MemoryPlan big = planMemory(r, 16 * GiB);
  EXPECT_GT(big.activations, base + 1'000'000 * int64_t{4096} * 4);
  EXPECT_FALSE(big.fits) << big.describe();
  r.sampleTokens = 64 * 2048;
  r.batchSequences = 64;
  r.sequenceLength = 2048;
  EXPECT_GT(planMemory(r, 64 * GiB).activations, 64 * 32 * int64_t{2048} * 2048 * 4)
      << "the attention scores of a batch";
}

TEST(MemoryPlan, TheBlockBuffersAreOneBatchsPassThroughABlockWithinTheActivations) {
  // The bound on what a capture keeps for reuse (model/backbone/buffer_cache.h). Closed form at
  // 16 × 128 tokens: the MLP's moment, 2,048 × (4 × 14,336 + 8 × 4,096) floats, is wider than
  // the attention's, plus the scores and their softmax, 16 × 32 × 128² floats each.
  const MemoryRequest r = llama3_8b();
  const MemoryPlan plan = planMemory(r, 64 * GiB);
  const int64_t mlp = int64_t{2048} * (4 * 14336 + 8 * 4096) * 4;
  const int64_t scores = int64_t{16} * 32 * 128 * 128 * 4 * 2;
  EXPECT_EQ(plan.blockBuffers, mlp + scores);
  EXPECT_EQ(plan.activations - plan.blockBuffers, int64_t{4096} * 4096 * (3 * 4 + 2 * 4))
      << "the rest is the sample's states and their copies";
}

TEST(MemoryPlan, TheEnvironmentOverridesWhatTheMachineReports) {
  ::setenv("STRATA_MEMORY_AVAILABLE", "3G", 1);
  EXPECT_EQ(availableMemory(false), 3 * GiB);
  ::setenv("STRATA_MEMORY_AVAILABLE", "512M", 1);
  EXPECT_EQ(availableMemory(false), 512 * (int64_t{1} << 20));
  ::setenv("STRATA_MEMORY_AVAILABLE", "lots", 1);
  EXPECT_THROW(availableMemory(false), ConfigError);
  ::unsetenv("STRATA_MEMORY_AVAILABLE");
  const int64_t machine = availableMemory(false);  // /proc/meminfo's MemAvailable
  EXPECT_GT(machine, 64 << 20);
  EXPECT_LT(machine, int64_t{1} << 50);
}

TEST(MemoryPlan, CheckMemoryThrowsTheRefusal) {
  ::setenv("STRATA_MEMORY_AVAILABLE", "100M", 1);
  EXPECT_THROW(checkMemory(llama3_8b(), nullptr), MemoryError);
  ::setenv("STRATA_MEMORY_AVAILABLE", "64G", 1);
  EXPECT_FALSE(checkMemory(llama3_8b(), nullptr).stream);
  ::unsetenv("STRATA_MEMORY_AVAILABLE");
}

}  // namespace
}  // namespace strata::engine

namespace strata::engine {
namespace {

TEST(MemoryPlan, ASinkScoringTheCaptureIsCountedInTheHostsPlanOnly) {
  MemoryRequest r = llama3_8b();
  const MemoryPlan without = planMemory(r, 64 * GiB);
  r.sinkBytes = 3 * GiB;
  const MemoryPlan with = planMemory(r, 64 * GiB);
  EXPECT_EQ(with.needed(), without.needed() + 3 * GiB);
  EXPECT_EQ(with.neededResident(), without.neededResident() + 3 * GiB);
  EXPECT_NE(with.describe().find("; scoring 3.00 GiB"), std::string::npos) << with.describe();
  // Just enough for the capture alone: the sink's bytes make it stream its layers.
  const auto justResident = static_cast<int64_t>(double(without.needed()) / kUsableShare) + 1;
  EXPECT_FALSE(planMemory(r, justResident).fits && !planMemory(r, justResident).stream);
  // A capture on a GPU plans the device's memory: the scan's (host) bytes are not in it.
  r.cuda = true;
  EXPECT_EQ(planMemory(r, 64 * GiB).sink, 0);
}

}  // namespace
}  // namespace strata::engine
