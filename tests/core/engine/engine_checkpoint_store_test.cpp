// The checkpoints/ folder: sealed folders verify, damage is detected, only the last k and the
// best survive, and a crash's temporary folder never counts.

#include <gtest/gtest.h>

#include <fstream>

#include "common/text_file.h"
#include "engine/checkpoint_store.h"
#include "support/temp_dir.h"

namespace strata::engine {

namespace {
namespace fs = std::filesystem;

void writeCheckpoint(const CheckpointStore& store, int64_t step, bool best, int64_t keepLast) {
  const fs::path temp = store.begin(step);
  std::ofstream(temp / "model.pt") << "weights of step " << step;
  std::ofstream(temp / "state.json") << "{\"step\": " << step << "}";
  store.commit(temp, step, {"model.pt", "state.json"}, best, keepLast);
}

std::vector<int64_t> steps(const CheckpointStore& store) {
  std::vector<int64_t> out;
  for (const auto& [step, folder] : store.checkpoints()) out.push_back(step);
  return out;
}

TEST(CheckpointStore, KeepsTheLastKAndTheBest) {
  TempDir dir;
  const CheckpointStore store(dir / "checkpoints");
  writeCheckpoint(store, 10, false, 2);
  writeCheckpoint(store, 20, true, 2);
  writeCheckpoint(store, 30, false, 2);
  writeCheckpoint(store, 40, false, 2);
  writeCheckpoint(store, 50, false, 2);
  EXPECT_EQ(steps(store), (std::vector<int64_t>{50, 40, 20}));
  EXPECT_EQ(store.bestStep(), 20);
  EXPECT_EQ(readWholeFile(dir / "checkpoints" / "latest"), "step-50\n");
  writeCheckpoint(store, 60, true, 2);  // a new best lets the old one go
  EXPECT_EQ(steps(store), (std::vector<int64_t>{60, 50}));
  for (const auto& [step, folder] : store.checkpoints())
    EXPECT_TRUE(CheckpointStore::verify(folder));
}

TEST(CheckpointStore, DamageIsDetected) {
  TempDir dir;
  const CheckpointStore store(dir / "checkpoints");
  writeCheckpoint(store, 10, false, 3);
  const fs::path folder = dir / "checkpoints" / "step-10";
  ASSERT_TRUE(CheckpointStore::verify(folder));
  {  // same size, one byte changed: only the hash can tell
    std::fstream file(folder / "model.pt", std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(0);
    file.put('W');
  }
  EXPECT_FALSE(CheckpointStore::verify(folder));
  std::ofstream(folder / "model.pt", std::ios::app) << "more";
  EXPECT_FALSE(CheckpointStore::verify(folder));
  writeCheckpoint(store, 20, false, 3);
  fs::remove(dir / "checkpoints" / "step-20" / "state.json");
  EXPECT_FALSE(CheckpointStore::verify(dir / "checkpoints" / "step-20"));
  fs::remove(dir / "checkpoints" / "step-20" / "manifest.json");
  EXPECT_FALSE(CheckpointStore::verify(dir / "checkpoints" / "step-20"));
}

TEST(CheckpointStore, ACrashedWriteLeavesOnlyATemporaryFolderThatIsRemoved) {
  TempDir dir;
  const CheckpointStore store(dir / "checkpoints");
  writeCheckpoint(store, 10, false, 3);
  const fs::path temp = store.begin(20);  // the process "dies" before commit
  std::ofstream(temp / "model.pt") << "half";
  EXPECT_EQ(steps(store), (std::vector<int64_t>{10}));
  store.removeStale();
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_EQ(readWholeFile(dir / "checkpoints" / "latest"), "step-10\n");
}

}  // namespace
}  // namespace strata::engine
