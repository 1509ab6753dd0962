// `strata-cli capture --compute-dtype`: bf16 runs and keeps the storage dtype; anything else
// but fp32 and bf16 is a usage error.

#include <gtest/gtest.h>

#include "io/store/activation_store.h"
#include "support/cli_runner.h"
#include "support/letter_corpus.h"
#include "support/model_test_folders.h"
#include "support/temp_dir.h"

namespace strata {
namespace {

TEST(CliCaptureBFloat16, WritesAFloat16StoreFromBFloat16Passes) {
  TempDir dir;
  testing::writeRandomBackbone(dir / "model");
  testing::writeLetterTokenizer(dir / "model");
  testing::writeLetterCorpus(dir / "corpus.txt");
  const testing::CommandOutput result = testing::runCli(
      "capture --model " + (dir / "model").string() + " --corpus " + (dir / "corpus.txt").string() +
      " --out " + (dir / "acts.h5").string() + " --tokens 60 --seq-len 16 --compute-dtype bf16");
  ASSERT_EQ(result.exitCode, 0) << result.out;
  const io::ActivationStore store = io::ActivationStore::open(dir / "acts.h5");
  EXPECT_EQ(store.numTokens(), 60);
  EXPECT_EQ(store.meta().dtype, io::StoreDType::Float16);
}

TEST(CliCaptureBFloat16, OtherComputeDTypesAreUsageErrors) {
  EXPECT_EQ(testing::runCli("capture --model m --corpus c --out o --compute-dtype fp16").exitCode,
            2);
}

}  // namespace
}  // namespace strata
