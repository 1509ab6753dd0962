// Every recipe trains and evaluates with generators that claim another device
// (model/random/seeded_generator.h, ForeignDeviceGenerators): a random draw whose generator does
// not come from seededGenerator, or that hands torch a generator without checking it against the
// output's device, fails here on the CPU as it fails on a GPU ("Expected a 'cpu' device type for
// generator but found 'cuda'"). The stand-ins forward to the real generators, so the run logs
// exactly what it logs without them. The bridge's cases also generate text (hybrid generation,
// and the embedding-diffusion baseline at layer 0), which draws with seeded generators too.

#include <gtest/gtest.h>

#include "common/job.h"
#include "model/random/seeded_generator.h"
#include "recipes/bridge/hybrid_generation.h"
#include "support/recipe_cases.h"
#include "support/temp_dir.h"
#include "support/training_fixture.h"

namespace strata::recipes {
namespace {
namespace fs = std::filesystem;

/** Four steps, evaluated and checkpointed after two and four. */
engine::ResolvedConfig shortRun(engine::ResolvedConfig config) {
  config.set("steps", int64_t{4});
  config.set("eval_every", int64_t{2});
  config.set("checkpoint_every", int64_t{2});
  config.set("log_every", int64_t{1});
  return config;
}

HybridComparison generateFrom(const fs::path& run) {
  HybridComparisonConfig generation;
  generation.bridgeRun = run;
  generation.prompts = {"the cat "};
  generation.sampling.maxNewTokens = 2;
  generation.original = false;
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  return compareHybridGeneration(generation, job);
}

class ForeignGeneratorTraining : public ::testing::TestWithParam<testing::RecipeCase> {};

TEST_P(ForeignGeneratorTraining, EveryDrawUsesAGeneratorOfItsOwnDevice) {
  const testing::RecipeCase& c = GetParam();
  TempDir dir;
  const engine::ResolvedConfig config = shortRun(c.config(dir.path()));
  const engine::TrainingSummary plain = testing::trainRecipe(c.recipe, config, dir / "plain");
  ASSERT_TRUE(plain.finished) << c.name;
  {
    const model::ForeignDeviceGenerators foreign;
    engine::TrainingSummary checked;
    ASSERT_NO_THROW(checked = testing::trainRecipe(c.recipe, config, dir / "checked")) << c.name;
    ASSERT_TRUE(checked.finished) << c.name;
    if (c.generates) {
      HybridComparison generated;
      ASSERT_NO_THROW(generated = generateFrom(dir / "checked")) << c.name;
      ASSERT_EQ(generated.prompts.size(), 1u);
      EXPECT_EQ(generated.prompts[0].hybrid.tokens,
                generateFrom(dir / "plain").prompts[0].hybrid.tokens)
          << c.name;
    }
  }
  EXPECT_EQ(testing::loggedLosses(dir / "checked"), testing::loggedLosses(dir / "plain")) << c.name;
  const auto validation = testing::loggedValLosses(dir / "plain");
  EXPECT_EQ(validation.size(), 2u) << c.name;
  EXPECT_EQ(testing::loggedValLosses(dir / "checked"), validation) << c.name;
}

INSTANTIATE_TEST_SUITE_P(Recipes, ForeignGeneratorTraining,
                         ::testing::ValuesIn(testing::everyRecipeCase()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace strata::recipes
