// The sampler's step budget (recipes/dlm_sampler.h, DlmStepBudget): steps in proportion to each
// chunk's tokens, so that every chunking of the same continuation — mdlm's one chunk, bdlm's
// blocks of 4, 8 or 16, any dcdm partition — takes ⌈rate · N⌉ steps in all.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "recipes/dlm_sampler.h"

namespace strata::recipes {
namespace {

/** Total steps of chunks of the given sizes, decoded in order. */
int64_t totalSteps(const DlmStepBudget& budget, const std::vector<int64_t>& chunks) {
  int64_t tokens = 0, steps = 0;
  for (const int64_t n : chunks) {
    steps += budget.stepsFor(n, tokens, steps);
    tokens += n;
  }
  return steps;
}

TEST(DlmStepBudget, AChunkGetsStepsInProportionToItsTokens) {
  const DlmStepBudget perToken;  // one step per token, the default
  EXPECT_EQ(perToken.stepsFor(16, 0, 0), 16);
  EXPECT_EQ(perToken.stepsFor(1, 16, 16), 1);
  EXPECT_EQ(perToken.stepsFor(8, 17, 17), 8);
  DlmStepBudget half;
  half.stepsPerToken = 0.5;
  // Cumulative ⌈0.5 · tokens⌉: 16 → 8, 17 → 9, 25 → 13.
  EXPECT_EQ(half.stepsFor(16, 0, 0), 8);
  EXPECT_EQ(half.stepsFor(1, 16, 8), 1);
  EXPECT_EQ(half.stepsFor(8, 17, 9), 4);
  EXPECT_EQ(half.stepsFor(1, 1, 1), 1);  // ⌈1⌉ − 1 = 0: a chunk still gets a step of its own
  DlmStepBudget fixed;                   // the old rule: the same steps for any chunk
  fixed.stepsPerChunk = 8;
  EXPECT_EQ(fixed.stepsFor(16, 0, 0), 8);
  EXPECT_EQ(fixed.stepsFor(1, 16, 8), 8);
}

TEST(DlmStepBudget, EveryChunkingOfATextTakesTheSameSteps) {
  const std::vector<std::vector<int64_t>> chunkings = {{64},                         // mdlm
                                                       std::vector<int64_t>(16, 4),  // bdlm-B4
                                                       std::vector<int64_t>(8, 8),   // bdlm-B8
                                                       std::vector<int64_t>(4, 16),  // bdlm-B16
                                                       {16, 1, 8, 3, 20, 16}};  // a dcdm partition
  for (const double rate : {1.0, 0.5, 0.25}) {
    DlmStepBudget budget;
    budget.stepsPerToken = rate;
    for (const auto& chunks : chunkings)
      EXPECT_EQ(totalSteps(budget, chunks), static_cast<int64_t>(std::ceil(rate * 64)))
          << "rate " << rate << ", " << chunks.size() << " chunks";
    // Blocks of 8 after a 1-token prompt end with a 1-token block that finds the budget spent
    // below rate 1: it still takes a step of its own, one more than ⌈rate · 64⌉.
    const std::vector<int64_t> shifted = {7, 8, 8, 8, 8, 8, 8, 8, 1};
    EXPECT_EQ(totalSteps(budget, shifted),
              static_cast<int64_t>(std::ceil(rate * 64)) + (rate < 1 ? 1 : 0))
        << "rate " << rate;
  }
  DlmStepBudget fixed;  // why the rule changed: 8 steps per chunk gives 8 to 128 steps
  fixed.stepsPerChunk = 8;
  EXPECT_EQ(totalSteps(fixed, chunkings[0]), 8);
  EXPECT_EQ(totalSteps(fixed, chunkings[1]), 128);
}

}  // namespace
}  // namespace strata::recipes
