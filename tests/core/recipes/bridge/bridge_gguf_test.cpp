// A recipe's `model` given as a .gguf file: the run reads the folder the file is imported into
// (engine/training_run.cpp), and run.json names that folder, so resuming, the store checks and
// every loader see a normal model folder.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/run_manifest.h"
#include "support/bridge_fixture.h"
#include "support/scoped_environment.h"
#include "support/temp_dir.h"
#include "support/tiny_gguf_model.h"
#include "support/training_fixture.h"

namespace strata::recipes {
namespace {

TEST(BridgeFromGguf, TrainsOnTheImportedFolderAndRecordsIt) {
  TempDir dir;
  testing::ScopedEnvironment environment;
  environment.set("STRATA_DATA_DIR", (dir.path() / "data").string());
  const auto gguf = dir.path() / "tiny.gguf";
  testing::writeTinyLlamaGguf(gguf, 2);
  const auto corpus = dir.path() / "corpus.txt";
  {
    std::ofstream out(corpus);  // the tiny tokenizer knows a, b, c and the space
    for (int i = 0; i < 200; ++i) out << "ab c abc bc a cab " << (i % 2 ? "ba" : "cc") << "\n\n";
  }
  engine::ResolvedConfig config = testing::tinyBridgeConfig(corpus, 1);
  config.set("model", gguf.string());
  config.set("steps", int64_t{4});
  config.set("eval_every", int64_t{0});
  config.set("checkpoint_every", int64_t{4});
  testing::trainRecipe("bridge", config, dir.path() / "run");

  const engine::RunManifest run = engine::readRunManifest(dir.path() / "run");
  const auto recorded = nlohmann::json::parse(run.config()).at("model").get<std::string>();
  EXPECT_TRUE(recorded.starts_with((dir.path() / "data" / "gguf" / "tiny-").string())) << recorded;
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(recorded) / "config.json"));
  EXPECT_EQ(testing::loggedLosses(dir.path() / "run").size(), 4u);
}

}  // namespace
}  // namespace strata::recipes
