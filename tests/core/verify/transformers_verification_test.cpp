// verify (core/verify/): Strata against transformers itself on checkpoints transformers wrote.
// A faithful copy agrees; a copy with one damaged block differs from that block's output on.

#include "verify/transformers_verification.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/job.h"
#include "io/hf/safetensors_file.h"
#include "model/backbone/safetensors_torch.h"
#include "support/temp_dir.h"
#include "support/transformers_checkpoint.h"
#include "verify/python_environment.h"
#include "verify/transformers_reference.h"

namespace strata::verify {

namespace {

class StageRecorder final : public ProgressSink {
 public:
  void progress(double fraction, const std::string& stage) override {
    std::lock_guard lock(m_mutex);
    stages.push_back(stage);
    fractions.push_back(fraction);
  }
  void message(MessageLevel, const std::string&) override {}
  std::vector<std::string> stages;
  std::vector<double> fractions;

 private:
  std::mutex m_mutex;
};

/** A scratch folder with a random checkpoint of `arch` saved by transformers. */
class TransformersCheckpoint : public ::testing::Test {
 protected:
  void make(const std::string& arch) {
    std::string why;
    m_python = testing::transformersPython(why);
    ASSERT_FALSE(m_python.empty()) << why;
    const std::string failure = testing::saveRandomCheckpoint(m_python, folder(), arch);
    ASSERT_TRUE(failure.empty()) << failure;
  }
  std::filesystem::path folder() const { return m_dir / "model"; }
  /** A copy whose second block (HF layers[1], output h_2) has one damaged weight. */
  std::filesystem::path damagedCopy() const {
    const std::filesystem::path damaged = m_dir / "damaged";
    std::filesystem::copy(folder(), damaged);
    const auto file = io::SafetensorsFile::open(folder() / "model.safetensors");
    model::NamedTensors tensors;
    for (const io::TensorEntry& entry : file->tensors()) {
      at::Tensor tensor = model::tensorView(file, entry).clone();
      if (entry.name == "model.layers.1.mlp.down_proj.weight") tensor.add_(0.5);
      tensors.emplace_back(entry.name, tensor);
    }
    model::writeSafetensors(damaged / "model.safetensors", tensors);
    return damaged;
  }

  TempDir m_dir;
  std::string m_python;
  StageRecorder m_sink;
  JobContext m_job{m_sink, CancellationToken()};
};

void expectAgreement(const TransformersVerification& result, int64_t layers) {
  EXPECT_TRUE(result.agrees()) << result.verdict();
  EXPECT_TRUE(result.tokensEqual);
  EXPECT_EQ(result.top1Agreement, 1.0);
  EXPECT_GT(result.positions, 20);
  ASSERT_EQ(result.layers.size(), static_cast<std::size_t>(layers + 1));
  for (const LayerDifference& layer : result.layers) {
    EXPECT_LT(layer.difference.maxRel, 1e-5) << "h_" << layer.layer;
    EXPECT_GT(layer.difference.maxRef, 0.0) << "h_" << layer.layer;
  }
  EXPECT_LT(result.finalNorm.maxRel, 1e-5);
  EXPECT_LT(result.logits.maxRel, 1e-5);
  EXPECT_FALSE(result.transformersVersion.empty());
  EXPECT_EQ(result.prompts.size(), verificationPrompts().size());
  EXPECT_EQ(result.verdict().rfind("agrees with transformers ", 0), 0u) << result.verdict();
}

TEST_F(TransformersCheckpoint, RandomLlamaAgreesOnEveryLayer) {
  make("llama");
  const TransformersVerification result =
      verifyAgainstTransformers({.modelFolder = folder(), .python = m_python}, m_job);
  expectAgreement(result, 3);
  EXPECT_EQ(result.architecture, "LlamaForCausalLM");
  // Progress came from both sides.
  const auto saw = [&](const std::string& word) {
    for (const std::string& stage : m_sink.stages)
      if (stage.find(word) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(saw("transformers: prompt")) << "no progress from the Python side";
  EXPECT_TRUE(saw("Strata: prompt"));
}

TEST_F(TransformersCheckpoint, RandomGpt2WithItsVocabAndMergesAgrees) {
  make("gpt2");
  const TransformersVerification result =
      verifyAgainstTransformers({.modelFolder = folder(), .python = m_python}, m_job);
  expectAgreement(result, 2);
  // Byte-level BPE on accents, CJK and an emoji: many more ids than characters.
  EXPECT_GT(result.prompts[2].transformersIds.size(), 30u);
}

TEST_F(TransformersCheckpoint, DamagedBlockDiffersFromItsOutputOn) {
  make("llama");
  // Strata runs the damaged copy, transformers the original.
  const std::filesystem::path damaged = damagedCopy();
  const TransformersReference reference = runTransformersReference(
      folder(), verificationPrompts(), m_python, std::chrono::seconds(600), m_job);
  const TransformersVerification result = compareWithStrata(reference, damaged, m_job);

  EXPECT_FALSE(result.agrees());
  EXPECT_TRUE(result.tokensEqual);
  ASSERT_EQ(result.layers.size(), 4u);
  EXPECT_LT(result.layers[0].difference.maxRel, 1e-5);
  EXPECT_LT(result.layers[1].difference.maxRel, 1e-5);
  EXPECT_GT(result.layers[2].difference.maxRel, 1e-2);
  EXPECT_GT(result.layers[3].difference.maxRel, 1e-3);
  EXPECT_EQ(result.verdict().rfind("DIFFERS from transformers ", 0), 0u) << result.verdict();
  EXPECT_NE(result.verdict().find("worst layer"), std::string::npos) << result.verdict();
}

TEST_F(TransformersCheckpoint, Bf16AgreesAsCloselyAsTransformersOwnBf16) {
  make("llama");
  const TransformersVerification result = verifyAgainstTransformers(
      {.modelFolder = folder(), .python = m_python, .bfloat16 = true}, m_job);
  expectAgreement(result, 3);
  ASSERT_TRUE(result.bfloat16);
  const TransformersVerification& bf16 = *result.bfloat16;
  EXPECT_EQ(bf16.computeDType, "bfloat16");
  ASSERT_TRUE(bf16.yardstick);
  ASSERT_EQ(bf16.yardstick->layers.size(), 4u);
  EXPECT_TRUE(bf16.agrees()) << bf16.verdict();
  // Both sides really ran in bf16: their differences from float32 are bf16-sized, not zero.
  for (std::size_t l = 1; l < bf16.layers.size(); ++l) {
    EXPECT_GT(bf16.layers[l].difference.maxRel, 1e-4) << "Strata h_" << l;
    EXPECT_GT(bf16.yardstick->layers[l].maxRel, 1e-4) << "transformers h_" << l;
  }
  EXPECT_NE(result.verdict().find("; in bf16 it agrees"), std::string::npos) << result.verdict();
}

TEST_F(TransformersCheckpoint, DamagedBlockInBf16GoesBeyondTransformersOwnBf16) {
  make("llama");
  const std::filesystem::path damaged = damagedCopy();
  const TransformersReference reference =
      runTransformersReference(folder(), verificationPrompts(), m_python, std::chrono::seconds(600),
                               m_job, /*bfloat16=*/true);
  ASSERT_EQ(reference.bfloat16Prompts.size(), reference.prompts.size());
  EXPECT_TRUE(compareWithStrata(reference, folder(), m_job, true).agrees());
  const TransformersVerification result = compareWithStrata(reference, damaged, m_job, true);
  EXPECT_FALSE(result.agrees());
  EXPECT_LE(result.layers[1].difference.maxRel, result.toleranceOf("h_1"));
  EXPECT_GT(result.layers[2].difference.maxRel, result.toleranceOf("h_2"));
  EXPECT_NE(result.verdict().find("(limit "), std::string::npos) << result.verdict();
}

TEST_F(TransformersCheckpoint, FolderTransformersCannotLoadIsNamed) {
  make("llama");
  std::filesystem::remove(folder() / "model.safetensors");
  std::ofstream(folder() / "model.safetensors") << "not a safetensors file";
  try {
    verifyAgainstTransformers({.modelFolder = folder(), .python = m_python}, m_job);
    FAIL() << "expected an error";
  } catch (const TransformersUnavailableError& error) {
    FAIL() << "reported as missing transformers: " << error.what();
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("transformers cannot load"), std::string::npos) << message;
    EXPECT_NE(message.find(folder().string()), std::string::npos) << message;
  }
}

TEST(VerifyPython, OneWithoutTransformersIsReportedByName) {
  TempDir dir;
  const std::filesystem::path fake = dir / "python-without-transformers";
  std::ofstream(fake) << "#!/bin/sh\nexit 1\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_exec,
                               std::filesystem::perm_options::add);
  try {
    requireTransformers(fake.string());
    FAIL() << "expected TransformersUnavailableError";
  } catch (const TransformersUnavailableError& error) {
    EXPECT_EQ(std::string(error.what()), "transformers is not installed for " + fake.string() +
                                             ": run scripts/setup.sh or pass --python");
    EXPECT_EQ(error.python(), fake.string());
  }
  EXPECT_THROW(requireTransformers((dir / "no-such-python").string()),
               TransformersUnavailableError);
}

TEST(VerifyPython, ExplicitChoiceWinsOverTheEnvironment) {
  EXPECT_EQ(choosePython("/opt/my/python"), "/opt/my/python");
  EXPECT_FALSE(choosePython().empty());
}

}  // namespace
}  // namespace strata::verify
