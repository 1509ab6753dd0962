// Behaviour of Backbone beyond the numbers (which model_reference_test checks): split passes,
// padding, bidirectional attention, streaming, cancellation, and the errors a broken
// checkpoint raises.

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <malloc.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/job.h"
#include "io/hf/safetensors_file.h"
#include "model/backbone/backbone.h"
#include "support/model_test_folders.h"
#include "support/temp_dir.h"

namespace strata::model {

namespace {

using testing::RandomBackboneSpec;
using testing::writeRandomBackbone;

const io::Architecture kArchitectures[] = {io::Architecture::Llama, io::Architecture::Gpt2,
                                           io::Architecture::GptNeoX};

std::unique_ptr<Backbone> loadRandom(const TempDir& dir, RandomBackboneSpec spec = {},
                                     BackboneOptions options = {}) {
  const auto folder = dir / ("model-" + std::to_string(static_cast<int>(spec.architecture)));
  writeRandomBackbone(folder, spec);
  return Backbone::load(folder, options);
}

at::Tensor someIds(int64_t batch, int64_t length) {
  return at::arange(batch * length, at::kLong)
      .view({batch, length})
      .mul(7)
      .remainder(testing::kRandomVocab);
}

class EveryArchitecture : public ::testing::TestWithParam<io::Architecture> {};

TEST_P(EveryArchitecture, RunLayersComposesAtAnySplit) {
  TempDir dir;
  const auto backbone = loadRandom(dir, {.architecture = GetParam()});
  const at::Tensor ids = someIds(2, 6);
  const at::Tensor h0 = backbone->embed(ids);
  const at::Tensor whole = backbone->runLayers(h0, 0, testing::kRandomLayers);
  for (int64_t split = 0; split <= testing::kRandomLayers; ++split) {
    const at::Tensor lower = backbone->runLayers(h0, 0, split);
    EXPECT_TRUE(at::equal(backbone->runLayers(lower, split, testing::kRandomLayers), whole))
        << "split " << split;
  }
  const CaptureResult captured = backbone->capture(ids);
  EXPECT_TRUE(at::equal(captured.hidden.back(), whole));
  EXPECT_TRUE(at::equal(captured.hidden.front(), h0));
}

TEST_P(EveryArchitecture, PaddingOnEitherSideLeavesRealTokensUnchanged) {
  TempDir dir;
  const auto backbone = loadRandom(dir, {.architecture = GetParam()});
  const at::Tensor shortIds = someIds(1, 4);
  const at::Tensor longIds = someIds(1, 7).add(3).remainder(testing::kRandomVocab);
  const at::Tensor alone = backbone->capture(shortIds).hidden.back()[0];
  const at::Tensor longAlone = backbone->capture(longIds).hidden.back()[0];

  for (const bool left : {true, false}) {
    const at::Tensor pad = at::zeros({1, 3}, at::kLong);
    const at::Tensor padded = left ? at::cat({pad, shortIds}, 1) : at::cat({shortIds, pad}, 1);
    CaptureRequest request;
    request.attention.paddingMask = at::ones({2, 7}, at::kBool);
    request.attention.paddingMask[0].slice(0, left ? 0 : 4, left ? 3 : 7).fill_(false);
    const CaptureResult result = backbone->capture(at::cat({padded, longIds}, 0), request);
    const at::Tensor real = result.hidden.back()[0].slice(0, left ? 3 : 0, left ? 7 : 4);
    EXPECT_TRUE(at::allclose(real, alone, 1e-5, 1e-5)) << (left ? "left" : "right") << " padding";
    EXPECT_TRUE(at::allclose(result.hidden.back()[1], longAlone, 1e-5, 1e-5));
    EXPECT_FALSE(result.hidden.back().isnan().any().item<bool>());
  }
}

TEST_P(EveryArchitecture, BidirectionalAttentionSeesLaterTokens) {
  TempDir dir;
  const auto backbone = loadRandom(dir, {.architecture = GetParam()});
  const at::Tensor ids = someIds(1, 5);
  at::Tensor changed = ids.clone();
  changed[0][4] = (changed[0][4].item<int64_t>() + 1) % testing::kRandomVocab;

  const auto firstToken = [&](const at::Tensor& input, bool causal) {
    CaptureRequest request;
    request.attention.causal = causal;
    return backbone->capture(input, request).hidden.back()[0][0];
  };
  EXPECT_TRUE(at::equal(firstToken(ids, true), firstToken(changed, true)));
  EXPECT_FALSE(at::allclose(firstToken(ids, false), firstToken(changed, false)));
}

TEST_P(EveryArchitecture, StreamingGivesIdenticalStatesFromShards) {
  TempDir dir;
  const auto resident = loadRandom(dir, {.architecture = GetParam(), .dtype = at::kBFloat16});
  writeRandomBackbone(dir / "sharded",
                      {.architecture = GetParam(), .dtype = at::kBFloat16, .maxShardBytes = 2048});
  const auto streamed = Backbone::load(dir / "sharded", {.streamLayers = true});
  CaptureRequest request;
  request.logits = true;
  const CaptureResult a = resident->capture(someIds(2, 6), request);
  const CaptureResult b = streamed->capture(someIds(2, 6), request);
  for (std::size_t layer = 0; layer < a.hidden.size(); ++layer)
    EXPECT_TRUE(at::equal(a.hidden[layer], b.hidden[layer])) << "h_" << layer;
  EXPECT_TRUE(at::allclose(a.logits, b.logits, 1e-6, 1e-6));
}

TEST_P(EveryArchitecture, GradientsFlowToTheInputOfUpperLayers) {
  TempDir dir;
  const auto backbone = loadRandom(dir, {.architecture = GetParam()}, {.streamLayers = true});
  const at::Tensor h1 =
      backbone->runLayers(backbone->embed(someIds(1, 4)), 0, 1).detach().requires_grad_(true);
  const at::Tensor out =
      backbone->logits(backbone->finalNorm(backbone->runLayers(h1, 1, testing::kRandomLayers)));
  out.sum().backward();
  ASSERT_TRUE(h1.grad().defined());
  EXPECT_GT(h1.grad().abs().sum().item<double>(), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Backbone, EveryArchitecture, ::testing::ValuesIn(kArchitectures),
                         [](const ::testing::TestParamInfo<io::Architecture>& info) {
                           return io::architectureClassName(info.param);
                         });

TEST(BackboneCapture, StreamsLayersInOrderWithoutKeepingThem) {
  TempDir dir;
  const auto backbone = loadRandom(dir);
  const CaptureResult kept = backbone->capture(someIds(1, 5));
  std::vector<int64_t> seen;
  CaptureRequest request;
  request.keepHidden = false;
  request.onLayer = [&](int64_t layer, const at::Tensor& hidden) {
    seen.push_back(layer);
    EXPECT_TRUE(at::equal(hidden, kept.hidden[static_cast<std::size_t>(layer)])) << "h_" << layer;
  };
  const CaptureResult streamed = backbone->capture(someIds(1, 5), request);
  EXPECT_TRUE(streamed.hidden.empty());
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 1, 2, 3}));
}

/** Bytes malloc has handed out and not taken back (every arena, mapped chunks included). */
int64_t heapInUse() {
  const struct mallinfo2 info = mallinfo2();
  return int64_t(info.uordblks + info.hblkhd);
}

TEST(BackboneLoad, ReadsTheTokenTableAndTheHeadOnlyWhenUsed) {
  // A vocabulary whose two [vocab, d] matrices are 32 MB each in float32, against blocks of a
  // few kilobytes: loading converts neither, embed() reads the rows it looks up, and the first
  // logits() converts the head once, for good.
  TempDir dir;
  const int64_t vocab = int64_t(1) << 19;
  const int64_t table = vocab * testing::kRandomHidden * int64_t(sizeof(float));
  const auto folder = dir / "wide";
  writeRandomBackbone(folder, {.dtype = at::kBFloat16, .vocab = vocab});
  const auto streamed = Backbone::load(folder, {.streamLayers = true});
  const at::Tensor ids = someIds(2, 6).mul(12345).remainder(vocab);
  const at::Tensor states = streamed->finalNorm(streamed->capture(ids).hidden.back());

  const int64_t before = heapInUse();
  const auto backbone = Backbone::load(folder);
  const int64_t loaded = heapInUse() - before;
  EXPECT_LT(loaded, table / 4) << "loading converted a [vocab, d] matrix";
  EXPECT_TRUE(at::equal(backbone->embed(ids), streamed->embed(ids)));
  EXPECT_LT(heapInUse() - before, table / 4) << "embed() converted the whole table";

  const at::Tensor logits = backbone->logits(states);
  const int64_t withHead = heapInUse() - before;
  EXPECT_GE(withHead, table) << "the head is kept once converted";
  EXPECT_TRUE(at::equal(logits, streamed->logits(states)));
  EXPECT_TRUE(at::equal(backbone->logits(states), logits));
  EXPECT_LT(heapInUse() - before, withHead + table / 4) << "the head was converted again";
}

/** How many mappings of files under `folder` this process holds (Linux /proc/self/maps). */
int mappingsUnder(const std::filesystem::path& folder) {
  std::ifstream maps("/proc/self/maps");
  int count = 0;
  for (std::string line; std::getline(maps, line);)
    if (line.find(folder.string()) != std::string::npos) ++count;
  return count;
}

TEST(BackboneCapture, StreamingHoldsNoWeightsBetweenBlocks) {
  TempDir dir;
  RandomBackboneSpec spec;
  spec.maxShardBytes = 4096;  // several shards per block
  writeRandomBackbone(dir / "sharded", spec);
  BackboneOptions options;
  options.streamLayers = true;
  const auto backbone = Backbone::load(dir / "sharded", options);
  EXPECT_EQ(mappingsUnder(dir / "sharded"), 0);
  CaptureRequest request;
  request.logits = true;
  std::vector<int> mapped;
  request.onLayer = [&](int64_t, const at::Tensor&) {
    mapped.push_back(mappingsUnder(dir / "sharded"));
  };
  const CaptureResult result = backbone->capture(someIds(1, 4), request);
  EXPECT_EQ(mapped, std::vector<int>(testing::kRandomLayers + 1, 0));
  EXPECT_EQ(mappingsUnder(dir / "sharded"), 0);
  // The probe itself sees a mapping when there is one.
  std::filesystem::path first;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "sharded"))
    if (entry.path().extension() == ".safetensors") first = entry.path();
  const auto shard = io::SafetensorsFile::open(first);
  EXPECT_EQ(mappingsUnder(dir / "sharded"), 1);
}

TEST(BackboneCapture, StopsWhenCancelled) {
  TempDir dir;
  const auto backbone = loadRandom(dir);
  NullProgressSink sink;
  CancellationToken token;
  JobContext job(sink, token);
  CaptureRequest request;
  request.job = &job;
  int64_t layers = 0;
  request.onLayer = [&](int64_t, const at::Tensor&) {
    if (++layers == 2) token.cancel();
  };
  EXPECT_THROW(backbone->capture(someIds(1, 3), request), CancelledError);
  EXPECT_EQ(layers, 2);
}

TEST(BackboneCapture, RejectsIdsOutsideTheVocabulary) {
  TempDir dir;
  const auto backbone = loadRandom(dir);
  EXPECT_THROW(backbone->embed(at::full({1, 2}, testing::kRandomVocab, at::kLong)), Error);
}

TEST(BackboneLoad, NamesAMissingTensor) {
  TempDir dir;
  const std::string missing = "model.layers.1.self_attn.k_proj.weight";
  try {
    loadRandom(dir, {.dropTensor = missing});
    FAIL() << "loaded a checkpoint without " << missing;
  } catch (const FormatError& error) {
    EXPECT_EQ(error.item(), missing);
  }
}

TEST(BackboneLoad, NamesATensorOfTheWrongShape) {
  TempDir dir;
  const std::string wrong = "transformer.h.2.mlp.c_fc.weight";
  try {
    loadRandom(dir, {.architecture = io::Architecture::Gpt2, .transposeTensor = wrong});
    FAIL() << "loaded a checkpoint with " << wrong << " transposed";
  } catch (const FormatError& error) {
    EXPECT_EQ(error.item(), wrong);
    EXPECT_NE(std::string(error.what()).find("[64, 16]"), std::string::npos) << error.what();
  }
}

TEST(BackboneLoad, NamesATensorOfAnUnsupportedDtype) {
  TempDir dir;
  try {
    loadRandom(dir, {.dtype = at::kInt});  // integer weights: a quantised or corrupt export
    FAIL() << "loaded a checkpoint of I32 weights";
  } catch (const FormatError& error) {
    EXPECT_FALSE(error.item().empty());
    EXPECT_NE(std::string(error.what()).find("model.safetensors"), std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("must be F32, F16, BF16 or F64"), std::string::npos)
        << error.what();
  }
}

TEST(BackboneLoad, WarnsAboutTensorsNoPassReads) {
  TempDir dir;
  const auto backbone = loadRandom(
      dir, {.architecture = io::Architecture::GptNeoX, .extraTensor = "gpt_neox.mystery"});
  ASSERT_EQ(backbone->warnings().size(), 1u);
  EXPECT_NE(backbone->warnings()[0].find("gpt_neox.mystery"), std::string::npos);
}

TEST(BackboneLoad, RejectsAnUnsupportedActivation) {
  TempDir dir;
  writeRandomBackbone(dir / "m", {.architecture = io::Architecture::GptNeoX});
  std::string config;
  {
    std::ifstream in(dir / "m" / "config.json");
    config.assign(std::istreambuf_iterator<char>(in), {});
  }
  config.replace(config.find("\"gelu\""), 6, "\"quick_gelu\"");
  std::ofstream(dir / "m" / "config.json") << config;
  EXPECT_THROW(Backbone::load(dir / "m"), ConfigError);
}

}  // namespace
}  // namespace strata::model
