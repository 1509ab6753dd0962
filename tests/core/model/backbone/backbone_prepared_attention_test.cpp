// A PreparedAttention built once per batch gives exactly what runLayers() resolves per call,
// and is refused for a batch of another shape.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "model/backbone/backbone.h"
#include "support/model_test_folders.h"
#include "support/temp_dir.h"

namespace strata::model {

namespace {

class PreparedAttentionTest : public ::testing::TestWithParam<io::Architecture> {};

TEST_P(PreparedAttentionTest, RunsLayersExactlyAsTheOptionsDo) {
  TempDir dir;
  testing::writeRandomBackbone(dir / "model", {.architecture = GetParam()});
  const auto backbone = Backbone::load(dir / "model");
  const at::Tensor ids =
      at::arange(2 * 7, at::kLong).view({2, 7}).mul(5).remainder(testing::kRandomVocab);
  AttentionOptions attention;
  attention.paddingMask = at::ones({2, 7}, at::kLong);
  attention.paddingMask[1].slice(0, 0, 3).zero_();  // left padding in the second sequence
  const PreparedAttention prepared = backbone->prepare(attention, 2, 7);
  at::Tensor perCall = backbone->embed(ids, attention), reused = perCall;
  for (int64_t layer = 0; layer < testing::kRandomLayers; ++layer) {
    perCall = backbone->runLayers(perCall, layer, layer + 1, attention);
    reused = backbone->runLayers(reused, layer, layer + 1, prepared);
    EXPECT_TRUE(at::equal(reused, perCall)) << "layer " << layer + 1;
  }
}

INSTANTIATE_TEST_SUITE_P(Backbone, PreparedAttentionTest,
                         ::testing::Values(io::Architecture::Llama, io::Architecture::Gpt2,
                                           io::Architecture::GptNeoX),
                         [](const ::testing::TestParamInfo<io::Architecture>& info) {
                           return io::architectureClassName(info.param);
                         });

TEST(PreparedAttention, IsRefusedForABatchOfAnotherShape) {
  TempDir dir;
  testing::writeRandomBackbone(dir / "model");
  const auto backbone = Backbone::load(dir / "model");
  const at::Tensor hidden = backbone->embed(at::zeros({2, 5}, at::kLong));
  EXPECT_THROW(backbone->runLayers(hidden, 0, 1, backbone->prepare({}, 2, 6)),
               std::invalid_argument);
}

}  // namespace
}  // namespace strata::model
