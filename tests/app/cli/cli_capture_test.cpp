// `strata-cli capture` end to end: the real binary writes a store that the reader accepts.

#include <gtest/gtest.h>
#include <hdf5.h>

#include <string>
#include <utility>
#include <vector>

#include "io/store/activation_store.h"
#include "support/cli_runner.h"
#include "support/letter_corpus.h"
#include "support/model_test_folders.h"
#include "support/temp_dir.h"

namespace strata {
namespace {

// A random model and a corpus in `dir`; the capture command of 100 tokens from them, up to
// its --out.
std::string captureCommandIn(const std::filesystem::path& dir) {
  testing::writeRandomBackbone(dir / "model");
  testing::writeLetterTokenizer(dir / "model");
  testing::writeLetterCorpus(dir / "corpus.txt");
  return "capture --model " + (dir / "model").string() + " --corpus " +
         (dir / "corpus.txt").string() + " --tokens 100 --seq-len 16 --out ";
}

TEST(CliCapture, WritesACompleteStoreAndReportsIt) {
  TempDir dir;
  const std::string common = captureCommandIn(dir.path()) + (dir / "acts.h5").string();
  const testing::CommandOutput result = testing::runCli(common);
  ASSERT_EQ(result.exitCode, 0) << result.out;
  EXPECT_NE(result.out.find("Wrote"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("100 tokens"), std::string::npos) << result.out;

  {
    // Closed again before the next runs: an open reader holds HDF5's lock on the file.
    const io::ActivationStore store = io::ActivationStore::open(dir / "acts.h5");
    EXPECT_EQ(store.numTokens(), 100);
    EXPECT_EQ(static_cast<int64_t>(store.completedLayers().size()), testing::kRandomLayers + 1);
    EXPECT_EQ(store.meta().dtype, io::StoreDType::Float16);
  }

  // A second run refuses to overwrite, and names the file.
  const testing::CommandOutput again = testing::runCli(common);
  EXPECT_EQ(again.exitCode, 1) << again.out;
  EXPECT_NE(again.out.find((dir / "acts.h5").string()), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("--overwrite replaces it"), std::string::npos) << again.out;
  EXPECT_EQ(again.out.find("loading the model"), std::string::npos)
      << "refused only after the load";
  // --resume on a complete store has nothing left to do.
  const testing::CommandOutput resumed = testing::runCli(common + " --resume");
  EXPECT_EQ(resumed.exitCode, 0) << resumed.out;
  EXPECT_NE(resumed.out.find("already complete"), std::string::npos) << resumed.out;
}

TEST(CliCapture, BadOptionsAreUsageErrors) {
  EXPECT_EQ(testing::runCli("capture --model m --corpus c --out o --dtype float64").exitCode, 2);
  EXPECT_EQ(testing::runCli("capture --model m --corpus c --out o --tokens ten").exitCode, 2);
  EXPECT_EQ(testing::runCli("capture --model m --corpus c --out o --deflate-level 0").exitCode, 2);
  EXPECT_EQ(testing::runCli("capture --model m --corpus c --out o --deflate-level 10").exitCode, 2);
  EXPECT_EQ(testing::runCli("capture --model m --corpus c --out o --write-threads -1").exitCode, 2);
  // Bounds that need no model, named as typed, before anything is read (the model m and the
  // corpus c do not exist).
  for (const auto& [bad, said] : std::vector<std::pair<std::string, std::string>>{
           {" --tokens 0", "--tokens must be at least 1 (got 0)"},
           {" --seq-len 1", "--seq-len must be at least 2 (got 1)"},
           {" --skip-first 4 --seq-len 4", "--seq-len must be at least 5 (got 4)"},
           {" --skip-first -1", "--skip-first must not be negative"},
           {" --max-documents -2", "--max-documents must not be negative"},
           {" --batch 0", "--batch must be at least 1 (got 0)"}}) {
    const testing::CommandOutput run =
        testing::runCli("capture --model m --corpus c --out o" + bad);
    EXPECT_EQ(run.exitCode, 2) << bad << ": " << run.out;
    EXPECT_NE(run.out.find(said), std::string::npos) << bad << ": " << run.out;
  }
  const testing::CommandOutput score =
      testing::runCli("score --model m --corpus c --tokens 0 --no-plugins");
  EXPECT_EQ(score.exitCode, 2) << score.out;
  EXPECT_NE(score.out.find("--tokens must be at least 1"), std::string::npos) << score.out;
  const testing::CommandOutput help = testing::runCli("capture --help");
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_NE(help.out.find("usage: strata-cli capture"), std::string::npos) << help.out;
}

// The deflate level recorded in a layer's filter pipeline (what h5py reports as
// compression_opts).
unsigned deflateLevelOf(const std::filesystem::path& file, const char* dataset) {
  const hid_t h5 = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t set = H5Dopen2(h5, dataset, H5P_DEFAULT), dcpl = H5Dget_create_plist(set);
  unsigned flags = 0, level = 0;
  size_t count = 1;
  H5Pget_filter_by_id2(dcpl, H5Z_FILTER_DEFLATE, &flags, &count, &level, 0, nullptr, nullptr);
  H5Pclose(dcpl);
  H5Dclose(set);
  H5Fclose(h5);
  return level;
}

TEST(CliCapture, WriteThreadsAndDeflateLevelChangeTheFileNotTheValues) {
  TempDir dir;
  const std::string common = captureCommandIn(dir.path());
  ASSERT_EQ(testing::runCli(common + (dir / "fast.h5").string()).exitCode, 0);
  ASSERT_EQ(
      testing::runCli(common + (dir / "small.h5").string() + " --write-threads 1 --deflate-level 9")
          .exitCode,
      0);
  EXPECT_EQ(deflateLevelOf(dir / "fast.h5", "layers/1"), 1u);
  EXPECT_EQ(deflateLevelOf(dir / "small.h5", "layers/1"), 9u);
  const io::ActivationStore fast = io::ActivationStore::open(dir / "fast.h5");
  const io::ActivationStore small = io::ActivationStore::open(dir / "small.h5");
  for (int64_t layer = 0; layer <= testing::kRandomLayers; ++layer)
    EXPECT_EQ(fast.readLayer(layer), small.readLayer(layer)) << "layer " << layer;
}

TEST(CliCapture, AStoreThatCannotBeCreatedIsRefusedBeforeTheCorpusIsSampled) {
  TempDir dir;
  const std::string command = captureCommandIn(dir.path());
  const std::filesystem::path lost = dir / "missing" / "acts.h5";
  const testing::CommandOutput nowhere = testing::runCli(command + lost.string());
  EXPECT_EQ(nowhere.exitCode, 1) << nowhere.out;
  EXPECT_NE(nowhere.out.find(lost.string() + ": cannot create the store"), std::string::npos)
      << nowhere.out;
  EXPECT_NE(nowhere.out.find("the folder " + (dir / "missing").string() + " does not exist"),
            std::string::npos)
      << nowhere.out;
  EXPECT_EQ(nowhere.out.find("sampling tokens"), std::string::npos) << nowhere.out;
  EXPECT_EQ(nowhere.out.find("loading the model"), std::string::npos) << nowhere.out;
  EXPECT_FALSE(std::filesystem::exists(dir / "missing"));

  std::filesystem::create_directory(dir / "folder.h5");
  const testing::CommandOutput folder = testing::runCli(command + (dir / "folder.h5").string());
  EXPECT_EQ(folder.exitCode, 1) << folder.out;
  EXPECT_NE(folder.out.find("is a folder, not a store file"), std::string::npos) << folder.out;
  EXPECT_EQ(folder.out.find("sampling tokens"), std::string::npos) << folder.out;
  EXPECT_TRUE(std::filesystem::is_empty(dir / "folder.h5"));
}

TEST(CliCapture, AMissingCorpusIsNamedBeforeTheModelIsLoadedOrTheComputeDTypeChosen) {
  TempDir dir;
  captureCommandIn(dir.path());  // the model (and a corpus beside the one asked for)
  const std::string missing = (dir / "corpus.txt").string() + ".gone";
  const testing::CommandOutput run =
      testing::runCliSplit("capture --model " + (dir / "model").string() + " --corpus " + missing +
                           " --tokens 100 --seq-len 16 --out " + (dir / "acts.h5").string());
  EXPECT_EQ(run.exitCode, 1) << run.err;
  EXPECT_NE(run.err.find(missing + ": no such file or folder"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("computing in"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("sampling tokens"), std::string::npos) << run.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "acts.h5"));
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
