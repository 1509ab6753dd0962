// The GGUF import of what the two real test models do not cover, against Hugging Face
// transformers (tests/python/gguf_tiny_models.py): tiny random models written the way llama.cpp's
// convert_hf_to_gguf writes them — Qwen3 (q/k norms, head_dim from key_length), Llama with
// Llama-3.1 RoPE scaling (rope_freqs.weight only; transformers' GGUF loader ignores it, so the
// reference carries the scaling in its config), and a Mistral-style llama file (vocabulary
// 32768, head_dim apart from width / heads). Imported by Strata into a folder and loaded by the
// Backbone, every layer's hidden state on 64 tokens must be within 1e-4 of transformers
// (relative to the layer's largest value), with no unused-tensor warning. Skips, naming what is
// missing, when Strata's Python environment lacks torch, transformers, gguf or accelerate.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "io/gguf/gguf_import.h"
#include "io/hf/safetensors_file.h"
#include "model/backbone/backbone.h"
#include "model/backbone/safetensors_torch.h"
#include "support/python_finder.h"
#include "support/temp_dir.h"

namespace strata::io {

namespace {

namespace fs = std::filesystem;

class TinyGgufModels : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string why;
    m_python = testing::findPython({"torch", "transformers", "gguf", "accelerate"},
                                   "run scripts/setup.sh (Strata's Python environment)", why);
    if (m_python.empty()) GTEST_SKIP() << "no Python with transformers and gguf: " << why;
    // One reference per case, shared by both tests (the script takes a few seconds).
    static TempDir references;
    m_reference = references.path() / GetParam();
    if (fs::exists(m_reference / "expected.safetensors")) return;
    const std::string command = m_python +
                                " '" STRATA_SOURCE_DIR "/tests/python/gguf_tiny_models.py' " +
                                GetParam() + " '" + m_reference.string() + "'";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }

  at::Tensor expected(const std::string& name) const {
    const auto file = SafetensorsFile::open(m_reference / "expected.safetensors");
    return model::tensorView(file, file->at(name)).clone();
  }

  /** Every hidden state and the final norm of `model` on the reference's ids, within 1e-4 of
   *  transformers relative to the layer's largest value. */
  void expectTransformersHiddenStates(const model::Backbone& model) const {
    const at::Tensor ids = expected("ids");
    model::CaptureRequest request;
    request.finalNorm = true;
    const model::CaptureResult result = model.capture(ids, request);
    ASSERT_EQ(result.hidden.size(), static_cast<size_t>(model.numLayers() + 1));
    double worst = 0;
    for (size_t l = 0; l < result.hidden.size(); ++l) {
      const at::Tensor want = expected("hidden." + std::to_string(l));
      ASSERT_EQ(result.hidden[l].sizes(), want.sizes()) << "h_" << l;
      const double error =
          (result.hidden[l] - want).abs().max().item<double>() / want.abs().max().item<double>();
      EXPECT_LE(error, 1e-4) << GetParam() << ": h_" << l;
      worst = std::max(worst, error);
    }
    const at::Tensor norm = expected("final_norm");
    EXPECT_LE(
        (result.finalNorm - norm).abs().max().item<double>() / norm.abs().max().item<double>(),
        1e-4);
    std::cout << "  " << GetParam() << ": " << result.hidden.size()
              << " hidden states, worst relative error " << worst << "\n";
  }

  TempDir m_dir;
  std::string m_python;
  fs::path m_reference;
};

TEST_P(TinyGgufModels, ImportedModelMatchesTransformersOnEveryLayer) {
  // In float32: transformers computes from float32 dequantised weights too.
  GgufImportOptions options;
  options.dtype = DType::F32;
  const GgufImportResult imported =
      importGguf(m_reference / "model.gguf", m_dir.path() / "model", options);
  EXPECT_TRUE(imported.warnings.empty()) << imported.warnings.front();
  const auto model = model::Backbone::load(imported.folder);
  EXPECT_TRUE(model->warnings().empty()) << model->warnings().front();
  expectTransformersHiddenStates(*model);
}

TEST_P(TinyGgufModels, ReadInPlaceMatchesTransformersOnEveryLayer) {
  // The same plan serves the folder that reads the .gguf in place (what a .gguf given as a
  // model becomes).
  ::setenv("STRATA_DATA_DIR", (m_dir.path() / "data").c_str(), 1);
  const fs::path folder = resolveModelFolder(m_reference / "model.gguf");
  ::unsetenv("STRATA_DATA_DIR");
  const auto model = model::Backbone::load(folder);
  EXPECT_TRUE(model->warnings().empty()) << model->warnings().front();
  expectTransformersHiddenStates(*model);
}

INSTANTIATE_TEST_SUITE_P(GgufImport, TinyGgufModels,
                         ::testing::Values("qwen3", "llama3_rope", "mistral_style"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace strata::io
