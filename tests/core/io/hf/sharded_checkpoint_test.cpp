// A model folder's weights: single file and Hugging Face shards, the index's rules, and
// zero-copy tensor views that outlive the objects they came from.

#include "io/hf/sharded_checkpoint.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "model/backbone/safetensors_torch.h"
#include "support/temp_dir.h"

namespace strata::io {

namespace {

void writeText(const std::filesystem::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}

model::NamedTensors smallModel() {
  return {{"embed.weight", at::arange(40, at::kFloat).reshape({10, 4})},
          {"layers.0.w", at::ones({4, 4}, at::kBFloat16)},
          {"layers.1.w", at::full({4, 4}, 2, at::kHalf)},
          {"layers.1.bias", at::arange(4, at::kLong)},
          {"norm.weight", at::ones({4})}};
}

// An index over two hand-written shards: a.safetensors holds x, b.safetensors holds y.
void writeTwoShards(const TempDir& dir) {
  model::writeSafetensors(dir / "a.safetensors", {{"x", at::ones({2})}});
  model::writeSafetensors(dir / "b.safetensors", {{"y", at::zeros({3})}});
}

void writeIndex(const TempDir& dir, const std::string& weightMap) {
  writeText(dir / "model.safetensors.index.json",
            R"({"metadata": {"total_size": 20}, "weight_map": )" + weightMap + "}");
}

// Asserts a FormatError naming `file` whose message contains `phrase` (and `tensor`, if any).
void expectRejected(const TempDir& dir, const std::filesystem::path& file,
                    const std::string& phrase, const std::string& tensor = {}) {
  try {
    WeightFiles::open(dir.path());
    ADD_FAILURE() << "accepted the folder";
  } catch (const FormatError& e) {
    EXPECT_EQ(e.file(), file) << e.what();
    EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos) << e.what();
    if (!tensor.empty()) {
      EXPECT_EQ(e.item(), tensor) << e.what();
    }
  }
}

TEST(SafetensorsSharded, RoundTripsAModelThroughShards) {
  TempDir dir;
  const model::NamedTensors model = smallModel();
  const auto shards = model::writeShardedSafetensors(dir.path(), model, /*maxShardBytes=*/100);
  ASSERT_EQ(shards.size(), 3u);  // 160 | 32 + 32 + 32 | 16 bytes
  EXPECT_EQ(shards[0].filename(), "model-00001-of-00003.safetensors");

  const WeightFiles weights = WeightFiles::open(dir.path());
  EXPECT_TRUE(weights.sharded());
  EXPECT_EQ(weights.files(), shards);
  EXPECT_TRUE(weights.warnings().empty());
  EXPECT_EQ(weights.totalBytes(), 160u + 32 + 32 + 32 + 16);
  EXPECT_EQ(weights.tensorNames(),
            (std::vector<std::string>{"embed.weight", "layers.0.w", "layers.1.bias", "layers.1.w",
                                      "norm.weight"}));
  // Load shard by shard, as a model loader does.
  for (const auto& path : weights.files()) {
    const auto shard = weights.shard(path);
    for (const auto& [name, original] : model)
      if (weights.shardOf(name) == path) {
        EXPECT_TRUE(at::equal(model::tensorView(shard, weights.entry(name)), original)) << name;
      }
  }
  const auto index = nlohmann::json::parse(std::ifstream(dir / "model.safetensors.index.json"));
  EXPECT_EQ(index["metadata"]["total_size"], weights.totalBytes());
}

TEST(SafetensorsSharded, OpensASingleModelFile) {
  TempDir dir;
  model::writeSafetensors(dir / "model.safetensors", smallModel());
  const WeightFiles weights = WeightFiles::open(dir.path());
  EXPECT_FALSE(weights.sharded());
  EXPECT_EQ(weights.files(), std::vector<std::filesystem::path>{dir / "model.safetensors"});
  EXPECT_EQ(weights.tensorNames().size(), 5u);
  EXPECT_EQ(weights.entry("norm.weight").shape, std::vector<int64_t>{4});
}

TEST(SafetensorsSharded, RejectsShardNamesOutsideTheFolder) {
  for (const std::string name : {"../a.safetensors", "sub/a.safetensors", "/tmp/a.safetensors",
                                 "sub\\\\a.safetensors", ".."}) {
    TempDir dir;
    writeTwoShards(dir);
    writeIndex(dir, R"({"x": "a.safetensors", "y": ")" + name + R"("})");
    expectRejected(dir, dir / "model.safetensors.index.json", "is not a bare file name", "y");
  }
}

TEST(SafetensorsSharded, RejectsAMissingShard) {
  TempDir dir;
  writeTwoShards(dir);
  writeIndex(dir, R"({"x": "a.safetensors", "y": "gone.safetensors"})");
  expectRejected(dir, dir / "model.safetensors.index.json",
                 "shard 'gone.safetensors': listed in weight_map but missing from the folder");
}

TEST(SafetensorsSharded, RejectsATensorMissingFromItsShard) {
  TempDir dir;
  writeTwoShards(dir);
  writeIndex(dir, R"({"x": "a.safetensors", "y": "a.safetensors"})");
  expectRejected(dir, dir / "model.safetensors.index.json",
                 "weight_map puts it in 'a.safetensors', but that shard does not hold it", "y");
}

TEST(SafetensorsSharded, RejectsATensorHeldByTwoShards) {
  TempDir dir;
  model::writeSafetensors(dir / "a.safetensors", {{"x", at::ones({2})}});
  model::writeSafetensors(dir / "b.safetensors", {{"x", at::ones({2})}, {"y", at::zeros({3})}});
  writeIndex(dir, R"({"x": "a.safetensors", "y": "b.safetensors"})");
  expectRejected(dir, dir / "model.safetensors.index.json",
                 "held by two shards, 'a.safetensors' and 'b.safetensors'", "x");
}

TEST(SafetensorsSharded, RejectsATensorListedTwiceInTheWeightMap) {
  TempDir dir;
  writeTwoShards(dir);
  writeIndex(dir, R"({"x": "a.safetensors", "y": "b.safetensors", "x": "b.safetensors"})");
  expectRejected(dir, dir / "model.safetensors.index.json", "listed twice in weight_map", "x");
}

TEST(SafetensorsSharded, WarnsAboutTensorsTheIndexDoesNotList) {
  TempDir dir;
  model::writeSafetensors(dir / "a.safetensors", {{"x", at::ones({2})}});
  model::writeSafetensors(dir / "b.safetensors", {{"y", at::zeros({3})}, {"z", at::zeros({1})}});
  writeIndex(dir, R"({"x": "a.safetensors", "y": "b.safetensors"})");
  const WeightFiles weights = WeightFiles::open(dir.path());
  EXPECT_EQ(weights.tensorNames(), (std::vector<std::string>{"x", "y"}));
  const auto& warnings = weights.warnings();
  EXPECT_TRUE(std::any_of(warnings.begin(), warnings.end(), [](const std::string& line) {
    return line == "b.safetensors holds 1 tensor(s) the index does not list: z";
  })) << testing::PrintToString(warnings);
}

TEST(SafetensorsSharded, NoWeightsIsAFormatErrorNamingTheFolder) {
  TempDir dir;
  writeText(dir / "config.json", "{}");
  expectRejected(dir, dir.path(),
                 "no weights found: looked for model.safetensors and "
                 "model.safetensors.index.json");
}

TEST(SafetensorsSharded, ShardIsMappedOnceWhileHeld) {
  TempDir dir;
  model::writeShardedSafetensors(dir.path(), smallModel(), 100);
  const WeightFiles weights = WeightFiles::open(dir.path());
  const auto first = weights.shard(weights.files()[1]);
  EXPECT_EQ(weights.shard("model-00002-of-00003.safetensors"), first);
  EXPECT_THROW(weights.shard("other.safetensors"), FormatError);
}

TEST(SafetensorsSharded, DetectsAShardChangedOnDisk) {
  TempDir dir;
  model::writeShardedSafetensors(dir.path(), smallModel(), 100);
  const WeightFiles weights = WeightFiles::open(dir.path());
  model::writeSafetensors(weights.files()[2], {{"norm.weight", at::ones({8})}});
  EXPECT_THROW(weights.shard(weights.files()[2]), FormatError);
}

TEST(SafetensorsTorch, TensorViewIsZeroCopyAndOutlivesTheFile) {
  TempDir dir;
  const at::Tensor original = at::arange(64, at::kFloat).reshape({8, 8});
  model::writeSafetensors(dir / "model.safetensors", {{"w", original}});

  at::Tensor view;
  {
    auto weights = std::make_unique<WeightFiles>(WeightFiles::open(dir.path()));
    auto file = weights->shard(weights->shardOf("w"));
    view = model::tensorView(file, weights->entry("w"));
    const auto* begin = file->data().data();
    const auto* data = static_cast<const std::byte*>(view.data_ptr());
    EXPECT_TRUE(data >= begin && data + view.nbytes() <= begin + file->data().size());
    weights.reset();  // the view, not these objects, keeps the mapping alive now
  }
  std::filesystem::remove(dir / "model.safetensors");
  EXPECT_TRUE(at::equal(view, original));
}

TEST(SafetensorsTorch, CopiesTensorsThatAreNotAligned) {
  TempDir dir;
  // Three I8 bytes first put the F32 tensor at an odd offset.
  model::writeSafetensors(dir / "m.safetensors",
                          {{"odd", at::ones({3}, at::kChar)}, {"w", at::arange(4, at::kFloat)}});
  const auto file = SafetensorsFile::open(dir / "m.safetensors");
  const at::Tensor w = model::tensorView(file, file->at("w"));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(w.data_ptr()) % 4, 0u);
  EXPECT_TRUE(at::equal(w, at::arange(4, at::kFloat)));
  const auto* inFile = file->bytes(file->at("w")).data();
  EXPECT_NE(static_cast<const std::byte*>(w.data_ptr()), inFile);
}

}  // namespace
}  // namespace strata::io
