// `strata-cli capture` end to end: the real binary writes a store that the reader accepts.

#include <gtest/gtest.h>

#include "io/activation_store.h"
#include "support/cli_runner.h"
#include "support/letter_corpus.h"
#include "support/model_test_folders.h"
#include "support/temp_dir.h"

namespace strata {
namespace {

TEST(CliCapture, WritesACompleteStoreAndReportsIt) {
  TempDir dir;
  testing::writeRandomBackbone(dir / "model");
  testing::writeLetterTokenizer(dir / "model");
  testing::writeLetterCorpus(dir / "corpus.txt");
  const std::string common = "capture --model " + (dir / "model").string() + " --corpus " +
                             (dir / "corpus.txt").string() + " --out " +
                             (dir / "acts.h5").string() + " --tokens 100 --seq-len 16";
  const testing::CommandOutput result = testing::runCli(common);
  ASSERT_EQ(result.exitCode, 0) << result.out;
  EXPECT_NE(result.out.find("Wrote"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("100 tokens"), std::string::npos) << result.out;

  {
    // Closed again before the next runs: an open reader holds HDF5's lock on the file.
    const ActivationStore store = ActivationStore::open(dir / "acts.h5");
    EXPECT_EQ(store.numTokens(), 100);
    EXPECT_EQ(static_cast<int64_t>(store.completedLayers().size()), testing::kRandomLayers + 1);
    EXPECT_EQ(store.meta().dtype, StoreDType::Float16);
  }

  // A second run refuses to overwrite, and names the file.
  const testing::CommandOutput again = testing::runCli(common);
  EXPECT_EQ(again.exitCode, 1) << again.out;
  EXPECT_NE(again.out.find((dir / "acts.h5").string()), std::string::npos) << again.out;
  // --resume on a complete store has nothing left to do.
  const testing::CommandOutput resumed = testing::runCli(common + " --resume");
  EXPECT_EQ(resumed.exitCode, 0) << resumed.out;
  EXPECT_NE(resumed.out.find("already complete"), std::string::npos) << resumed.out;
}

TEST(CliCapture, BadOptionsAreUsageErrors) {
  EXPECT_EQ(testing::runCli("capture --model m --corpus c --out o --dtype float64").exitCode, 2);
  EXPECT_EQ(testing::runCli("capture --model m --corpus c --out o --tokens ten").exitCode, 2);
  const testing::CommandOutput help = testing::runCli("capture --help");
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_NE(help.out.find("usage: strata-cli capture"), std::string::npos) << help.out;
}

TEST(CliCapture, MissingModelFolderNamesIt) {
  TempDir dir;
  testing::writeLetterCorpus(dir / "corpus.txt");
  const testing::CommandOutput result =
      testing::runCli("capture --model " + (dir / "nowhere").string() + " --corpus " +
                      (dir / "corpus.txt").string() + " --out " + (dir / "acts.h5").string());
  EXPECT_EQ(result.exitCode, 1) << result.out;
  EXPECT_NE(result.out.find((dir / "nowhere").string()), std::string::npos) << result.out;
  EXPECT_FALSE(std::filesystem::exists(dir / "acts.h5"));
}

}  // namespace
}  // namespace strata
