// A GGUF file read in place (core/io/gguf/gguf_weights.h): rows of any tensor, read in any pieces,
// against an independent reference — the whole tensor dequantised (gguf_dequantize, itself
// checked against gguf-py) and un-permuted the way transformers' GGUF loader reverses
// llama.cpp's permute (reshape to heads × half × 2, swap, reshape back) — and the refusals: a
// damaged data region named by tensor before anything is computed, a changed source file.

#include "io/gguf/gguf_weights.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>

#include "common/error.h"
#include "io/gguf/gguf_dequantize.h"
#include "io/gguf/gguf_import.h"
#include "io/hf/model_folder.h"
#include "model/backbone/backbone.h"
#include "model/backbone/weight_loader.h"
#include "support/gguf_test_file.h"
#include "support/scoped_environment.h"
#include "support/temp_dir.h"
#include "support/tiny_gguf_model.h"

namespace strata::io {
namespace {

namespace fs = std::filesystem;

/** The whole tensor as transformers would hold it, computed without GgufWeights. */
at::Tensor reference(const GgufFile& file, const GgufTensorInfo& t, GgufTensorFix fix,
                     int64_t heads) {
  std::vector<float> values(t.elementCount);
  dequantizeGgml(t.typeId, file.tensorData(t), values, file.path(), t.name);
  at::Tensor w = at::from_blob(values.data(), t.shape, at::kFloat).clone();
  if (fix == GgufTensorFix::UnpermuteRotaryRows) {
    // transformers' reverse_permute_weights: reshape(n_head, dim // n_head // 2, 2, *rest)
    // .swapaxes(2, 1).reshape(shape).
    const int64_t rows = t.shape[0], cols = t.shape[1];
    w = w.reshape({heads, rows / heads / 2, 2, cols}).transpose(1, 2).reshape({rows, cols});
  }
  if (fix == GgufTensorFix::SubtractOne) w = w - 1.0f;
  return w.reshape(t.shape[0] == t.elementCount ? std::vector<int64_t>{t.elementCount} : t.shape);
}

at::Tensor rowsOf(const GgufWeights& gguf, const GgufWeight& w, int64_t first, int64_t count) {
  at::Tensor out = at::empty({count, w.columns}, at::kFloat);
  gguf.readRows(w, first, count, {out.data_ptr<float>(), static_cast<size_t>(out.numel())});
  return out;
}

class GgufWeightsTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::writeTinyLlamaGguf(m_file, 2); }
  TempDir m_dir;
  fs::path m_file = m_dir / "tiny.gguf";
};

TEST_F(GgufWeightsTest, EveryTensorReadByRowsEqualsTheWholeTensorUndoneAsTransformersDoes) {
  const auto gguf = GgufWeights::open(m_file);
  int permuted = 0;
  for (const GgufWeight& w : gguf->weights()) {
    const at::Tensor want =
        reference(gguf->file(), *w.info, w.plan.fix, w.plan.heads).reshape({w.rows, w.columns});
    // All at once (whole heads: the fast path), then row by row and in odd pieces that cut
    // heads apart (the slow path): the same bits every way.
    EXPECT_TRUE(at::equal(rowsOf(*gguf, w, 0, w.rows), want)) << w.name;
    for (int64_t first = 0; first < w.rows; first += 3) {
      const int64_t count = std::min<int64_t>(3, w.rows - first);
      EXPECT_TRUE(at::equal(rowsOf(*gguf, w, first, count), want.narrow(0, first, count)))
          << w.name << " rows " << first;
    }
    permuted += w.plan.fix == GgufTensorFix::UnpermuteRotaryRows;
  }
  EXPECT_EQ(permuted, 4) << "q and k of both blocks are un-permuted";
  EXPECT_THROW(rowsOf(*gguf, gguf->weights().front(), gguf->weights().front().rows, 1),
               std::out_of_range);
}

TEST_F(GgufWeightsTest, AModelFolderReadsItsWeightsInPlaceAndEqualsAFloat32Import) {
  fs::path folder;
  {
    testing::ScopedEnvironment environment;
    environment.set("STRATA_DATA_DIR", (m_dir / "data").string());
    folder = resolveModelFolder(m_file);
  }
  EXPECT_EQ(ggufWeightSource(folder), fs::absolute(m_file).lexically_normal());
  EXPECT_FALSE(fs::exists(folder / "model.safetensors")) << "no copy of the weights";
  const ModelSummary summary = inspectModelFolder(folder);
  EXPECT_EQ(summary.weightFiles, std::vector<fs::path>{fs::absolute(m_file).lexically_normal()});

  GgufImportOptions f32;
  f32.dtype = DType::F32;
  const GgufImportResult imported = importGguf(m_file, m_dir / "imported", f32);
  EXPECT_EQ(ggufWeightSource(imported.folder), std::nullopt) << "an import has its own weights";

  const at::Tensor ids = at::tensor({0, 1, 2, 3, 4, 5, 6, 7, 1, 2}, at::kLong).view({1, 10});
  for (bool stream : {false, true}) {
    const auto inPlace = model::Backbone::load(folder, {.streamLayers = stream});
    const auto fromImport = model::Backbone::load(imported.folder);
    const model::CaptureResult a = inPlace->capture(ids), b = fromImport->capture(ids);
    ASSERT_EQ(a.hidden.size(), 3u);
    for (size_t l = 0; l < a.hidden.size(); ++l)
      EXPECT_TRUE(at::equal(a.hidden[l], b.hidden[l])) << "h_" << l << " stream " << stream;
    // Again: streamed, block 0 is now converted into block 1's memory.
    EXPECT_TRUE(at::equal(inPlace->capture(ids).hidden.back(), b.hidden.back()));
  }
  // In bfloat16 the weights are converted piece by piece: the same values as converting the
  // float32 weights at once.
  const auto bf16 = model::Backbone::load(folder, {.computeDType = at::kBFloat16});
  const auto bf16Import = model::Backbone::load(imported.folder, {.computeDType = at::kBFloat16});
  const auto a = bf16->capture(ids), b = bf16Import->capture(ids);
  for (size_t l = 0; l < a.hidden.size(); ++l) EXPECT_TRUE(at::equal(a.hidden[l], b.hidden[l]));
}

TEST_F(GgufWeightsTest, AStreamedBlockIsConvertedIntoTheLastOnesMemoryWhenNothingHoldsIt) {
  fs::path folder;
  {
    testing::ScopedEnvironment environment;
    environment.set("STRATA_DATA_DIR", (m_dir / "data").string());
    folder = resolveModelFolder(m_file);
  }
  const model::WeightLoader loader(folder, readModelConfig(folder / "config.json"), at::kCPU,
                                   at::kFloat, /*borrowMapped=*/true);
  const model::BlockWeights fresh = loader.block(1);
  const auto sameValues = [&](const model::BlockWeights& got) {
    for (const model::BlockSlot& slot : loader.layout().blockSlots) {
      const at::Tensor &a = got.*slot.field, &b = fresh.*slot.field;
      ASSERT_EQ(a.defined(), b.defined());
      if (a.defined()) EXPECT_TRUE(at::equal(a, b)) << "a tensor of block 1";
    }
  };

  model::BlockWeights last = loader.block(0);
  const void* memory = last.up.data_ptr();
  const model::BlockWeights next = loader.block(1, std::move(last));
  EXPECT_EQ(next.up.data_ptr(), memory) << "block 1 was not converted into block 0's memory";
  sameValues(next);

  // A tensor someone still holds is left as it is: fresh memory for that one.
  model::BlockWeights held = loader.block(0);
  const at::Tensor kept = held.up;
  const at::Tensor keptValues = kept.clone();
  const model::BlockWeights other = loader.block(1, std::move(held));
  EXPECT_NE(other.up.data_ptr(), kept.data_ptr());
  EXPECT_TRUE(at::equal(kept, keptValues)) << "a held tensor was overwritten";
  sameValues(other);
}

TEST_F(GgufWeightsTest, ADamagedDataRegionIsRefusedNamingTheTensorBeforeAnythingRuns) {
  // Q8_0 block 3 of blk.1.ffn_up.weight gets a NaN scale (0x7E00).
  const auto gguf = GgufWeights::open(m_file);
  const GgufTensorInfo& up = *gguf->file().findTensor("blk.1.ffn_up.weight");
  const uint64_t at = up.offset + 3 * 34;
  {
    std::fstream f(m_file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(at));
    const char nan[2] = {'\x00', '\x7e'};
    f.write(nan, 2);
  }
  const auto damaged = GgufWeights::open(m_file);  // the metadata alone is fine
  try {
    damaged->checkData();
    FAIL() << "a NaN scale was not noticed";
  } catch (const FormatError& error) {
    EXPECT_EQ(error.item(), "blk.1.ffn_up.weight");
    EXPECT_NE(std::string(error.what()).find("block 3"), std::string::npos) << error.what();
  }
  fs::path folder;
  {
    testing::ScopedEnvironment environment;
    environment.set("STRATA_DATA_DIR", (m_dir / "data").string());
    folder = resolveModelFolder(m_file);
  }
  EXPECT_THROW(model::Backbone::load(folder), FormatError);
}

TEST_F(GgufWeightsTest, ATruncatedFileIsRefusedAtOpenNamingTheTensor) {
  const auto size = fs::file_size(m_file);
  fs::resize_file(m_file, size - 100);
  try {
    GgufWeights::open(m_file);
    FAIL() << "a truncated file opened";
  } catch (const FormatError& error) {
    EXPECT_EQ(error.item(), "output_norm.weight") << error.what();
    EXPECT_NE(std::string(error.what()).find("truncated"), std::string::npos) << error.what();
  }
}

TEST_F(GgufWeightsTest, AFolderWhoseFileChangedOrVanishedSaysSo) {
  fs::path folder;
  {
    testing::ScopedEnvironment environment;
    environment.set("STRATA_DATA_DIR", (m_dir / "data").string());
    folder = resolveModelFolder(m_file);
  }
  testing::writeTinyLlamaGguf(m_file, 1);  // rewritten: another size
  EXPECT_THROW(ggufWeightSource(folder), IoError);
  fs::remove(m_file);
  EXPECT_THROW(ggufWeightSource(folder), IoError);
}

}  // namespace
}  // namespace strata::io
