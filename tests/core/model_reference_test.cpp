// Backbone against an independent reference: tests/python/model_reference.py writes tiny
// random Hugging Face checkpoints of every supported architecture (and variant) together with
// the hidden states a plain-PyTorch rewrite of the HF modelling code produces; every layer,
// the final norm and the logits must match, resident and streamed.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/python_finder.h"
#include "core/temp_dir.h"
#include "io/safetensors_file.h"
#include "io/safetensors_torch.h"
#include "model/backbone.h"
#include "model/trainable_backbone.h"

namespace strata {
namespace {

// Keep in step with cases() in model_reference.py (the suite checks cases.json against it).
const std::vector<std::string> kCases = {
    "llama_gqa_llama3_tied", "llama_untied_bf16", "qwen2_bias",    "qwen3_qk_norm",
    "gpt2_prefixed",         "gpt2_bare_f16",     "neox_parallel", "neox_sequential"};


/** The checkpoints and expectations, made once for the whole suite. */
class ReferenceModels : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    s_dir = std::make_unique<TempDir>();
    std::string why;
    const std::string python = testing::findPython(
        {"torch"},
        "run scripts/setup.sh (Strata's Python environment) or set STRATA_PYTHON", why);
    if (python.empty()) {
      s_failure = "cannot run the reference: " + why;
      return;
    }
    const std::string command = python +
                                " '" STRATA_SOURCE_DIR "/tests/python/model_reference.py' '" +
                                s_dir->path().string() + "'";
    if (std::system(command.c_str()) != 0) {
      s_failure = command + " failed";
      return;
    }
    const auto listed =
        nlohmann::json::parse(std::ifstream(*s_dir / "cases.json")).get<std::vector<std::string>>();
    if (listed != kCases) s_failure = "cases.json does not list the cases this suite expects";
  }
  static void TearDownTestSuite() { s_dir.reset(); }

  void SetUp() override { ASSERT_TRUE(s_failure.empty()) << s_failure; }

  std::filesystem::path folder() const { return *s_dir / GetParam(); }

  /** Expected tensor `name` of this case, owned. */
  at::Tensor expected(const std::string& name) const {
    const auto file = SafetensorsFile::open(folder() / "expected.safetensors");
    return tensorView(file, file->at(name)).clone();
  }

  static std::unique_ptr<TempDir> s_dir;
  static std::string s_failure;
};

std::unique_ptr<TempDir> ReferenceModels::s_dir;
std::string ReferenceModels::s_failure;

/** max |actual − expected| / max(1, max |expected|): a relative error for large activations. */
double scaledError(const at::Tensor& actual, const at::Tensor& expected) {
  const double scale = std::max(1.0, expected.abs().max().item<double>());
  return (actual.cpu() - expected).abs().max().item<double>() / scale;
}

constexpr double kTolerance = 1e-4;

void expectMatches(const Backbone& backbone, const CaptureResult& result,
                   const std::function<at::Tensor(const std::string&)>& expected,
                   const std::string& mode) {
  double worst = 0.0;
  ASSERT_EQ(result.hidden.size(), static_cast<std::size_t>(backbone.numLayers() + 1));
  for (std::size_t layer = 0; layer < result.hidden.size(); ++layer) {
    const at::Tensor want = expected("hidden." + std::to_string(layer));
    ASSERT_EQ(result.hidden[layer].sizes(), want.sizes()) << "layer " << layer;
    const double error = scaledError(result.hidden[layer], want);
    EXPECT_LE(error, kTolerance) << mode << ": hidden state h_" << layer;
    worst = std::max(worst, error);
  }
  const double normError = scaledError(result.finalNorm, expected("final_norm"));
  const double logitError = scaledError(result.logits, expected("logits"));
  EXPECT_LE(normError, kTolerance) << mode << ": final norm";
  EXPECT_LE(logitError, kTolerance) << mode << ": logits";
  std::cout << "  " << mode << " max scaled error: hidden " << worst << ", final norm " << normError
            << ", logits " << logitError << "\n";
}

// One test per checkpoint (not one per mode): under CTest every test is its own process and
// pays for the reference script again.
TEST_P(ReferenceModels, MatchesEveryLayerResidentAndStreamed) {
  const auto resident = Backbone::load(folder());
  const auto streamed = Backbone::load(folder(), {.streamLayers = true});
  EXPECT_TRUE(resident->warnings().empty()) << resident->warnings().front();
  CaptureRequest request;
  request.logits = true;
  const CaptureResult a = resident->capture(expected("ids"), request);
  const CaptureResult b = streamed->capture(expected("ids"), request);
  const auto want = [&](const std::string& name) { return expected(name); };
  expectMatches(*resident, a, want, GetParam() + " resident");
  expectMatches(*streamed, b, want, GetParam() + " streamed");
  ASSERT_EQ(a.hidden.size(), b.hidden.size());
  for (std::size_t layer = 0; layer < a.hidden.size(); ++layer)
    EXPECT_TRUE(at::equal(a.hidden[layer], b.hidden[layer]))
        << "h_" << layer << " differs when streamed";
  EXPECT_TRUE(at::equal(a.finalNorm, b.finalNorm));
}

// The trainable copy (REPR-ALIGN's student) runs the same blocks on parameters: causal, it must
// reproduce the reference's Hugging Face hidden states (the last one after the final norm) and
// logits; bidirectional, it must equal the frozen Backbone's bidirectional pass; and gradients
// must reach every parameter that is not frozen, and only those.
TEST_P(ReferenceModels, TrainableCopyMatchesTheReferenceAndTrainsWhatIsNotFrozen) {
  TrainableBackbone student(folder(), /*maskId=*/-1);
  const at::Tensor ids = expected("ids");
  const TrainableForward causal = student->forward(ids, {});
  const int64_t layers = student->config().numLayers;
  ASSERT_EQ(causal.hidden.size(), static_cast<std::size_t>(layers + 1));
  for (int64_t l = 0; l < layers; ++l)
    EXPECT_LE(scaledError(causal.hidden[l].detach(), expected("hidden." + std::to_string(l))), kTolerance)
        << "h_" << l;
  EXPECT_LE(scaledError(causal.hidden[layers].detach(), expected("final_norm")), kTolerance);
  EXPECT_LE(scaledError(causal.logits.detach(), expected("logits")), kTolerance);

  const auto backbone = Backbone::load(folder());
  CaptureRequest request;
  request.attention.causal = false;
  request.finalNorm = true;
  const CaptureResult frozen = backbone->capture(ids, request);
  AttentionOptions bidirectionalAttention;
  bidirectionalAttention.causal = false;
  const TrainableForward bidirectional = student->forward(ids, bidirectionalAttention);
  EXPECT_LE(scaledError(bidirectional.hidden[1].detach(), frozen.hidden[1]), kTolerance);
  EXPECT_LE(scaledError(bidirectional.hidden[layers].detach(), frozen.finalNorm), kTolerance);
  EXPECT_GT(scaledError(bidirectional.hidden[1].detach(), causal.hidden[1].detach()), 1e-3)
      << "bidirectional attention must change what a token sees";

  // [MASK] was added at id vocab, as the mean embedding; freezing keeps it trainable.
  EXPECT_TRUE(student->addedMaskToken());
  EXPECT_EQ(student->maskId(), student->vocab());
  student->freezeEmbeddings();
  student->freezeMlps();
  at::Tensor masked = ids.clone();
  masked.index_put_({0, 1}, student->maskId());
  const TrainableForward out = student->forward(masked, bidirectionalAttention);
  EXPECT_EQ(out.logits.size(-1), student->vocab());
  out.logits.logsumexp(-1).sum().backward();
  int64_t trained = 0;
  for (const auto& [name, tensor] : student->huggingFaceTensors()) {
    const bool frozenName = name.find("mlp.") != std::string::npos || name.find("embed") != std::string::npos ||
                            name.find("wte") != std::string::npos || name.find("wpe") != std::string::npos ||
                            name.find("lm_head") != std::string::npos;
    (void)tensor;
    if (!frozenName) ++trained;
  }
  const auto [matrices, rest] = student->trainableParameters();
  EXPECT_EQ(static_cast<int64_t>(matrices.size() + rest.size()), trained + 1) << "+1: the [MASK] row";
  for (const auto& group : {matrices, rest})
    for (const at::Tensor& p : group) {
      ASSERT_TRUE(p.grad().defined());
      EXPECT_TRUE(p.grad().isfinite().all().item<bool>());
    }
  for (const auto& p : student->parameters()) {
    if (!p.requires_grad()) {
      EXPECT_FALSE(p.grad().defined());
    }
  }
  // The export carries the [MASK] row: vocab + 1 embedding rows.
  for (const auto& [name, tensor] : student->huggingFaceTensors()) {
    if (name.find("embed_tokens") != std::string::npos || name.find("wte") != std::string::npos ||
        name.find("embed_in") != std::string::npos) {
      EXPECT_EQ(tensor.size(0), student->vocab() + 1) << name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backbone, ReferenceModels, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace strata
