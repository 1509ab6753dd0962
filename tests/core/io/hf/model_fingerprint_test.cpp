// A store remembers the model it was captured from by content (modelFingerprint), so a store
// of one checkpoint is never resumed or trained against another of the same shape.

#include "io/hf/model_fingerprint.h"

#include <gtest/gtest.h>

#include <fstream>

#include "common/error.h"
#include "io/store/activation_store.h"
#include "support/model_test_folders.h"
#include "support/temp_dir.h"

namespace strata::io {

namespace {

namespace fs = std::filesystem;

void flipByteAt(const fs::path& file, uint64_t offset) {
  std::fstream io(file, std::ios::binary | std::ios::in | std::ios::out);
  io.seekg(static_cast<std::streamoff>(offset));
  char byte = 0;
  io.read(&byte, 1);
  byte = static_cast<char>(byte ^ 0x5A);
  io.seekp(static_cast<std::streamoff>(offset));
  io.write(&byte, 1);
}

TEST(ModelFingerprint, DependsOnTheWeightsNotOnTheFolder) {
  TempDir dir;
  testing::writeRandomBackbone(dir / "a");
  testing::writeRandomBackbone(dir / "b");  // same seed: same bytes elsewhere
  testing::writeRandomBackbone(dir / "c", {.seed = 8});
  const std::string a = modelFingerprint(dir / "a");
  EXPECT_EQ(a.size(), 64u);
  EXPECT_EQ(a, modelFingerprint(dir / "b"));
  EXPECT_NE(a, modelFingerprint(dir / "c"));

  std::ofstream(dir / "b" / "config.json", std::ios::app) << "\n";  // same model, other bytes
  EXPECT_NE(a, modelFingerprint(dir / "b"));
}

TEST(ModelFingerprint, LargeFilesAreSampledEvenly) {
  TempDir dir;
  // 20,000 × 16 float32 embedding rows: ~1.3 MB, so the 4 KiB blocks are sampled.
  testing::writeRandomBackbone(dir / "m", {.vocab = 20000});
  const fs::path weights = dir / "m" / "model.safetensors";
  const uint64_t size = fs::file_size(weights);
  ASSERT_GT(size, 66u * 4096u);
  const std::string before = modelFingerprint(dir / "m");

  // Block i of 66 starts at (size − 4096)·i/65: a change inside block 40 is seen …
  const uint64_t block40 = (size - 4096) * 40 / 65;
  flipByteAt(weights, block40 + 100);
  const std::string changed = modelFingerprint(dir / "m");
  EXPECT_NE(before, changed);
  flipByteAt(weights, block40 + 100);
  EXPECT_EQ(before, modelFingerprint(dir / "m"));

  // … one between two sampled blocks is the documented blind spot.
  const uint64_t gap = (size - 4096) * 40 / 65 + 4096 + 8;
  ASSERT_LT(gap + 1, (size - 4096) * 41 / 65);
  flipByteAt(weights, gap);
  EXPECT_EQ(before, modelFingerprint(dir / "m"));
}

TEST(ModelFingerprint, AStoreOfAnotherModelIsRefusedNamingBoth) {
  StoreMeta meta;
  meta.modelId = "/models/base";
  meta.architecture = "llama";
  meta.hiddenSize = 16;
  meta.numLayers = 3;
  meta.modelFingerprint = std::string(64, 'a');
  const fs::path store = "/runs/acts.h5", model = "/models/tuned";
  EXPECT_NO_THROW(requireStoreOfModel(store, meta, model, std::string(64, 'a'), 16, 3));
  try {
    requireStoreOfModel(store, meta, model, std::string(64, 'b'), 16, 3);
    FAIL() << "another fingerprint must be refused";
  } catch (const FormatError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("/runs/acts.h5"), std::string::npos) << message;
    EXPECT_NE(message.find("/models/base"), std::string::npos) << message;
    EXPECT_NE(message.find("/models/tuned"), std::string::npos) << message;
    EXPECT_NE(message.find("weights differ"), std::string::npos) << message;
  }
  EXPECT_THROW(requireStoreOfModel(store, meta, model, std::string(64, 'a'), 32, 3), FormatError);
  EXPECT_THROW(requireStoreOfModel(store, meta, model, std::string(64, 'a'), 16, 4), FormatError);
  meta.modelFingerprint.clear();  // a store from before fingerprints: shape only
  EXPECT_NO_THROW(requireStoreOfModel(store, meta, model, std::string(64, 'b'), 16, 3));
}

}  // namespace
}  // namespace strata::io
