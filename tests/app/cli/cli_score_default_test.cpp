// `strata-cli score --default` (scripts/run-default.sh's headless job): the default model's
// geometry is captured and scored the first time and read from the user's cache afterwards,
// printing the same table both times.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "geometry/geometry_report.h"
#include "support/cli_runner.h"
#include "support/temp_dir.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

/** Points the default corpus and the user's data folder into `dir` while it lives. */
class DefaultEnvironment {
 public:
  explicit DefaultEnvironment(const TempDir& dir) {
    std::ofstream corpus(dir / "corpus.py");
    for (int i = 0; i < 600; ++i)
      corpus << "def handler_" << i << "(event):\n    return event.get('k" << i % 17 << "')\n";
    ::setenv("STRATA_DEFAULT_CORPUS", (dir / "corpus.py").c_str(), 1);
    ::setenv("STRATA_DATA_DIR", (dir / "data").c_str(), 1);
  }
  ~DefaultEnvironment() {
    ::unsetenv("STRATA_DEFAULT_CORPUS");
    ::unsetenv("STRATA_DATA_DIR");
  }
};

const std::string kSmall =
    " --anchors 64 --neighbours 8 --directions 64 --bootstrap 3 --device cpu";

TEST(CliScoreDefault, CapturesOnceThenReadsTheCacheAndPrintsTheSameTable) {
  TempDir dir;
  DefaultEnvironment environment(dir);
  const auto first = testing::runCliSplit("score --default" + kSmall);
  ASSERT_EQ(first.exitCode, 0) << first.out << first.err;
  EXPECT_NE(first.err.find("captured "), std::string::npos) << first.err;
  EXPECT_NE(first.out.find("<- l*"), std::string::npos) << first.out;

  std::vector<fs::path> stores;
  for (const auto& entry : fs::directory_iterator(dir / "data" / "geometry-cache"))
    stores.push_back(entry.path());
  ASSERT_EQ(stores.size(), 1u);
  EXPECT_TRUE(geometry::readGeometry(stores[0]).has_value());

  const auto second = testing::runCliSplit("score --default" + kSmall);
  ASSERT_EQ(second.exitCode, 0) << second.out << second.err;
  EXPECT_NE(second.err.find("cached store " + stores[0].string() + " (scores read from it)"),
            std::string::npos)
      << second.err;
  EXPECT_EQ(second.out, first.out);  // the same table, from the cache

  // Other proxy options: the same store, scored again.
  const auto reseeded = testing::runCliSplit("score --default --seed 3" + kSmall);
  ASSERT_EQ(reseeded.exitCode, 0) << reseeded.err;
  EXPECT_NE(reseeded.err.find("(scored now)"), std::string::npos) << reseeded.err;
  EXPECT_EQ(reseeded.err.find("captured "), std::string::npos) << reseeded.err;
}

TEST(CliScoreDefault, RefusesAStoreOrModelBesideIt) {
  TempDir dir;
  DefaultEnvironment environment(dir);
  for (const char* other :
       {"--store x.h5", "--model m", "--corpus c.txt", "--out o.h5", "--no-write"}) {
    const auto run = testing::runCli(std::string("score --default ") + other);
    EXPECT_EQ(run.exitCode, 2) << other << "\n" << run.out;
    EXPECT_NE(run.out.find("--default"), std::string::npos) << run.out;
  }
  EXPECT_FALSE(fs::exists(dir / "data")) << "a refused command wrote into the cache";
}

TEST(CliScoreDefault, CandidatesBeyondTheDefaultModelAreRefusedBeforeItIsCaptured) {
  TempDir dir;
  DefaultEnvironment environment(dir);
  const auto run = testing::runCliSplit("score --default --candidates 1..100" + kSmall);
  EXPECT_EQ(run.exitCode, 2) << run.err;
  EXPECT_NE(run.err.find("--candidates: "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("candidates 1..100 reach beyond the model: its hidden states are 0.."),
            std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find("captured "), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(dir / "data" / "geometry-cache")) << "it was captured first";
}

TEST(CliScoreDefault, MissingDefaultCorpusIsNamed) {
  TempDir dir;
  DefaultEnvironment environment(dir);
  ::setenv("STRATA_DEFAULT_CORPUS", (dir / "gone.txt").c_str(), 1);
  const auto run = testing::runCli("score --default" + kSmall);
  EXPECT_EQ(run.exitCode, 1) << run.out;
  EXPECT_NE(run.out.find("gone.txt"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace strata
