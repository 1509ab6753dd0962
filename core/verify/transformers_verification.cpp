#include "verify/transformers_verification.h"

#include <cstdio>

#include "common/job.h"
#include "io/gguf_import.h"
#include "io/hf_config.h"
#include "verify/python_environment.h"
#include "verify/transformers_reference.h"

namespace strata::verify {

namespace {

std::string scientific(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1e", value);
  return text;
}

}  // namespace

const std::vector<std::string>& verificationPrompts() {
  static const std::vector<std::string> prompts{
      "The quick brown fox jumps over the lazy dog.",
      "In 1905, Albert Einstein published four papers; E = mc^2 was one result (p. 639).",
      "Größe, café, naïve façade — 東京は日本の首都です。 🙂",
      "def add(a, b):\n    return a + b  # sum\n",
  };
  return prompts;
}

TransformersVerification::Worst TransformersVerification::worst() const {
  Worst worst{"logits", logits};
  const auto consider = [&](const std::string& name, const TensorDifference& difference) {
    if (difference.maxRel > worst.difference.maxRel) worst = {name, difference};
  };
  for (const LayerDifference& layer : layers)
    consider("h_" + std::to_string(layer.layer), layer.difference);
  consider("final norm", finalNorm);
  return worst;
}

bool TransformersVerification::agrees(double tolerance) const {
  return worst().difference.maxRel < tolerance && top1Agreement == 1.0 && tokensEqual;
}

std::string TransformersVerification::verdict() const {
  const Worst w = worst();
  const std::string versus = "transformers " + transformersVersion;
  if (agrees())
    return "agrees with " + versus + " (largest relative difference " +
           scientific(w.difference.maxRel) + " at " + w.name + ", top-1 " +
           std::to_string(positions) + "/" + std::to_string(positions) + ", tokens equal)";
  std::string why;
  const auto add = [&why](const std::string& part) { why += (why.empty() ? "" : "; ") + part; };
  if (w.difference.maxRel >= kTolerance)
    add("worst layer " + w.name + ": max |Δ| " + scientific(w.difference.maxAbs) + ", relative " +
        scientific(w.difference.maxRel));
  if (top1Agreement < 1.0) {
    char share[16];
    std::snprintf(share, sizeof share, "%.1f%%", 100.0 * top1Agreement);
    add(std::string("top-1 agreement ") + share);
  }
  if (!tokensEqual) add("tokenization differs");
  return "DIFFERS from " + versus + ": " + why;
}

TransformersVerification verifyAgainstTransformers(const VerificationConfig& given,
                                                   JobContext& job) {
  // A .gguf model: Strata reads it in place (io/gguf_weights.h), transformers with gguf_file=.
  VerificationConfig config = given;
  config.modelFolder = io::resolveModelFolder(given.modelFolder, &job);
  // Cheap checks first: a folder Strata cannot read fails at once, not after transformers.
  try {
    io::readModelConfig(config.modelFolder / "config.json");
  } catch (const std::exception& error) {
    throw Error("Strata cannot load the model folder '" + config.modelFolder.string() +
                "': " + error.what());
  }
  const std::string python = choosePython(config.python);
  job.progress(-1.0, "looking for transformers (" + python + ")");
  requireTransformers(python, &job);
  const std::vector<std::string>& prompts =
      config.prompts.empty() ? verificationPrompts() : config.prompts;
  const TransformersReference reference = runTransformersReference(
      config.modelFolder, prompts, python, std::chrono::seconds(config.timeoutSeconds), job);
  job.checkCancelled();
  return compareWithStrata(reference, config.modelFolder, job);
}

}  // namespace strata::verify
