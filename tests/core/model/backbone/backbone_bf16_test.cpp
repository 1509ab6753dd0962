// bfloat16 compute: every layer's hidden states track the float32 ones within what bfloat16's
// 8-bit mantissa allows, streamed or resident, and a capture computed in bfloat16 is still
// stored in the store's own dtype.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "common/job.h"
#include "engine/capture.h"
#include "io/store/activation_store.h"
#include "model/backbone/backbone.h"
#include "support/letter_corpus.h"
#include "support/model_test_folders.h"
#include "support/temp_dir.h"

namespace strata::model {

namespace {

// bfloat16 keeps 8 significant bits (relative rounding 2^-9 ≈ 2e-3 per operation); a few
// blocks of products and sums stay well inside 3e-2 of the float32 states.
constexpr double kBFloat16Tolerance = 3e-2;

double relativeError(const at::Tensor& got, const at::Tensor& want) {
  return (got.to(at::kFloat) - want).norm().item<double>() / want.norm().item<double>();
}

at::Tensor someIds() {
  return at::arange(2 * 9, at::kLong).view({2, 9}).mul(7).remainder(testing::kRandomVocab);
}

class BFloat16Compute : public ::testing::TestWithParam<io::Architecture> {};

TEST_P(BFloat16Compute, EveryLayerTracksFloat32ResidentAndStreamed) {
  TempDir dir;
  testing::writeRandomBackbone(dir / "model", {.architecture = GetParam()});
  const auto reference = Backbone::load(dir / "model");
  const auto resident = Backbone::load(dir / "model", {.computeDType = at::kBFloat16});
  const auto streamed =
      Backbone::load(dir / "model", {.streamLayers = true, .computeDType = at::kBFloat16});
  CaptureRequest withLogits;
  withLogits.logits = true;
  const CaptureResult want = reference->capture(someIds(), withLogits);
  const CaptureResult got = resident->capture(someIds(), withLogits);
  const CaptureResult gotStreamed = streamed->capture(someIds());
  for (std::size_t l = 0; l < want.hidden.size(); ++l) {
    EXPECT_EQ(got.hidden[l].scalar_type(), at::kBFloat16);
    EXPECT_LT(relativeError(got.hidden[l], want.hidden[l]), kBFloat16Tolerance) << "layer " << l;
    EXPECT_TRUE(at::equal(gotStreamed.hidden[l], got.hidden[l])) << "layer " << l;
  }
  EXPECT_LT(relativeError(got.logits, want.logits), kBFloat16Tolerance);
}

INSTANTIATE_TEST_SUITE_P(Backbone, BFloat16Compute,
                         ::testing::Values(io::Architecture::Llama, io::Architecture::Gpt2,
                                           io::Architecture::GptNeoX),
                         [](const ::testing::TestParamInfo<io::Architecture>& info) {
                           return io::architectureClassName(info.param);
                         });

TEST(BFloat16Compute, RefusesOtherComputeDTypes) {
  TempDir dir;
  testing::writeRandomBackbone(dir / "model");
  EXPECT_THROW(Backbone::load(dir / "model", {.computeDType = at::kHalf}), ConfigError);
}

TEST(BFloat16Compute, CaptureKeepsTheStorageDTypeAndTracksFloat32) {
  TempDir dir;
  testing::writeRandomBackbone(dir / "model");
  testing::writeLetterTokenizer(dir / "model");
  testing::writeLetterCorpus(dir / "corpus.txt");
  engine::CaptureConfig config;
  config.modelFolder = dir / "model";
  config.corpus = dir / "corpus.txt";
  config.sampling.sequenceLength = 24;
  config.sampling.tokenBudget = 120;
  config.batchSequences = 3;
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  config.output = dir / "fp32.h5";
  config.computeDType = engine::ComputeDType::Float32;
  engine::runCapture(config, job);
  config.output = dir / "bf16.h5";
  config.computeDType = engine::ComputeDType::BFloat16;
  engine::runCapture(config, job);

  const io::ActivationStore float32 = io::ActivationStore::open(dir / "fp32.h5");
  const io::ActivationStore bfloat16 = io::ActivationStore::open(dir / "bf16.h5");
  EXPECT_EQ(bfloat16.meta().dtype, io::StoreDType::Float16);
  for (int64_t l = 0; l <= testing::kRandomLayers; ++l) {
    std::vector<float> want = float32.readLayer(l), got = bfloat16.readLayer(l);
    const auto tensorOf = [](std::vector<float>& values) {
      return at::from_blob(values.data(), {static_cast<int64_t>(values.size())});
    };
    EXPECT_LT(relativeError(tensorOf(got), tensorOf(want)), kBFloat16Tolerance) << "layer " << l;
  }
}

}  // namespace
}  // namespace strata::model
