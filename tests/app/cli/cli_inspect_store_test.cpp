// `strata-cli inspect STORE.h5`: the real binary describes an activation store (shape, finished
// layers, sampling) and, once it is scored, the l* its /geometry keeps under the choice that
// scored it; a file that is none of the things inspect reads is named as such.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "io/store/activation_store.h"
#include "support/cli_runner.h"
#include "support/geometry_store_fixture.h"
#include "support/temp_dir.h"

namespace strata {
namespace {

TEST(CliInspectStore, ShowsTheShapeTheFinishedLayersAndTheStoredLStar) {
  TempDir dir;
  const auto store = dir / "acts.h5";
  testing::writeGeometryFixtureStore(store);
  int64_t tokens = 0, hidden = 0, layers = 0;
  std::vector<int64_t> completed;
  {
    const io::ActivationStore opened = io::ActivationStore::open(store);
    tokens = opened.numTokens();
    hidden = opened.meta().hiddenSize;
    layers = opened.meta().numLayers;
    completed = opened.completedLayers();
  }
  const auto before = testing::runCliSplit("inspect " + store.string() + " --json");
  ASSERT_EQ(before.exitCode, 0) << before.err;
  const auto doc = nlohmann::json::parse(before.out);
  EXPECT_EQ(doc["tokens"], tokens);
  EXPECT_EQ(doc["hidden_size"], hidden);
  EXPECT_EQ(doc["num_layers"], layers);
  EXPECT_EQ(doc["completed_layers"].get<std::vector<int64_t>>(), completed);
  EXPECT_EQ(doc["file_bytes"], int64_t(std::filesystem::file_size(store)));
  EXPECT_TRUE(doc["geometry"].is_null());
  const auto table = testing::runCliSplit("inspect " + store.string());
  ASSERT_EQ(table.exitCode, 0) << table.err;
  EXPECT_NE(table.out.find("Geometry      not scored"), std::string::npos) << table.out;

  // Scored under candidates of the user's choice: inspect reports that scan's l*, not the
  // default candidates' one.
  const auto scored =
      testing::runCliSplit("score --store " + store.string() +
                           " --anchors 64 --neighbours 8 --directions 64 --bootstrap 3"
                           " --spectrum 5 --candidates 2..3 --json --device cpu");
  ASSERT_EQ(scored.exitCode, 0) << scored.err;
  const auto score = nlohmann::json::parse(scored.out);
  const auto after = testing::runCliSplit("inspect " + store.string() + " --json");
  ASSERT_EQ(after.exitCode, 0) << after.err;
  const auto geometry = nlohmann::json::parse(after.out)["geometry"];
  ASSERT_FALSE(geometry.is_null()) << after.out;
  EXPECT_EQ(geometry["l_star"], score["l_star"]);
  EXPECT_EQ(geometry["candidates"], nlohmann::json::array({2, 3}));
  EXPECT_EQ(geometry["bootstrap_resamples"], 3);
  EXPECT_EQ(geometry["layers_scored"].size(), score["layers"].size());
  const auto text = testing::runCliSplit("inspect " + store.string());
  EXPECT_NE(text.out.find("l* = " + score["l_star"].dump() + " over candidates 2..3"),
            std::string::npos)
      << text.out;
}

TEST(CliInspectStore, AFileThatIsNoModelStoreOrRunIsNamedAsSuch) {
  TempDir dir;
  std::ofstream(dir / "notes.txt") << "not a model\n";
  const auto notes = testing::runCliSplit("inspect " + (dir / "notes.txt").string());
  EXPECT_EQ(notes.exitCode, 1);
  EXPECT_NE(notes.err.find((dir / "notes.txt").string() +
                           ": is neither a model folder, a .gguf model, an activation store"),
            std::string::npos)
      << notes.err;
  // A damaged store is read as a store, and its reader says what is wrong.
  std::ofstream(dir / "broken.h5") << "half a store";
  const auto broken = testing::runCliSplit("inspect " + (dir / "broken.h5").string());
  EXPECT_EQ(broken.exitCode, 1);
  EXPECT_NE(broken.err.find("not an HDF5 file, so not a Strata activation store"),
            std::string::npos)
      << broken.err;
}

}  // namespace
}  // namespace strata
