// The bridge tests' shared configuration (see bridge_fixture.h).

#include "support/bridge_fixture.h"

#include <gtest/gtest.h>

#include "common/job.h"
#include "engine/recipe_catalog.h"
#include "engine/training_run.h"
#include "support/temp_dir.h"
#include "support/training_fixture.h"

namespace strata::testing {

std::filesystem::path defaultModelFolder() { return STRATA_SOURCE_DIR "/resources/models/default"; }

engine::ResolvedConfig tinyBridgeConfig(const std::filesystem::path& corpus, int64_t layer) {
  engine::ResolvedConfig c(engine::recipeSchema("bridge"));
  c.set("model", defaultModelFolder().string());
  c.set("corpus", corpus.string());
  c.set("layer", layer);
  c.set("steps", int64_t{40});
  c.set("batch", int64_t{4});
  c.set("seq_len", int64_t{32});
  c.set("lr", 3e-3);
  c.set("warmup", int64_t{4});
  c.set("width", int64_t{32});
  c.set("depth", int64_t{1});
  c.set("heads", int64_t{2});
  c.set("mlp_ratio", int64_t{2});
  c.set("log_every", int64_t{1});
  c.set("eval_every", int64_t{20});
  c.set("checkpoint_every", int64_t{20});
  c.set("eval_windows", int64_t{4});
  c.set("stats_windows", int64_t{8});
  c.set("sample_steps", int64_t{5});
  c.set("seed", int64_t{5});
  return c;
}

void expectLossFalls(const std::filesystem::path& run) {
  const auto losses = loggedLosses(run);
  ASSERT_EQ(losses.size(), 40u);
  double first = 0, last = 0;
  for (int64_t i = 0; i < 5; ++i) {
    first += losses.at(1 + i) / 5;
    last += losses.at(40 - i) / 5;
  }
  EXPECT_LT(last, 0.8 * first) << first << " → " << last;
}

void expectResumesExactly(engine::ResolvedConfig config, const std::filesystem::path& reference,
                          int64_t stopAfter) {
  TempDir dir;
  config.set("stop_after", stopAfter);
  trainRecipe("bridge", config, dir / "run");
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  engine::resumeTraining(dir / "run", job, {}, {}, {"stop_after=0"});
  EXPECT_EQ(loggedLosses(dir / "run"), loggedLosses(reference));
  EXPECT_EQ(loggedValLosses(dir / "run"), loggedValLosses(reference));
}

}  // namespace strata::testing
