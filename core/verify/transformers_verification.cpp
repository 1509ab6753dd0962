#include "verify/transformers_verification.h"

#include <cstdio>

#include "common/job.h"
#include "io/gguf/gguf_import.h"
#include "io/hf/hf_config.h"
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

namespace {

/** Every compared row with its name: h_0 … h_L, the final norm, the logits. */
template <typename Visit>
void forEachRow(const TransformersVerification& r, Visit visit) {
  for (const LayerDifference& layer : r.layers)
    visit("h_" + std::to_string(layer.layer), layer.difference);
  visit("final norm", r.finalNorm);
  visit("logits", r.logits);
}

}  // namespace

TransformersVerification::Worst TransformersVerification::worst() const {
  Worst worst{"logits", logits};
  forEachRow(*this, [&](const std::string& name, const TensorDifference& difference) {
    if (difference.maxRel > worst.difference.maxRel) worst = {name, difference};
  });
  return worst;
}

double TransformersVerification::toleranceOf(const std::string& row) const {
  if (!yardstick) return kTolerance;
  const TensorDifference* own = nullptr;
  if (row == "final norm") {
    own = &yardstick->finalNorm;
  } else if (row == "logits") {
    own = &yardstick->logits;
  } else {
    for (std::size_t l = 0; l < layers.size() && l < yardstick->layers.size(); ++l)
      if (row == "h_" + std::to_string(layers[l].layer)) own = &yardstick->layers[l];
  }
  return own ? kBFloat16Slack * own->maxRel + kTolerance : kTolerance;
}

double TransformersVerification::minimumTop1() const {
  return yardstick ? yardstick->top1Agreement - kBFloat16Top1Slack : 1.0;
}

namespace {

/** The row furthest beyond its tolerance (as a ratio), when any is. */
std::optional<TransformersVerification::Worst> firstBeyond(const TransformersVerification& r) {
  std::optional<TransformersVerification::Worst> beyond;
  double ratio = 1.0;
  forEachRow(r, [&](const std::string& name, const TensorDifference& difference) {
    const double over = difference.maxRel / r.toleranceOf(name);
    if (over >= ratio) {
      ratio = over;
      beyond = TransformersVerification::Worst{name, difference};
    }
  });
  return beyond;
}

}  // namespace

bool TransformersVerification::agrees() const {
  return !firstBeyond(*this) && top1Agreement >= minimumTop1() && tokensEqual &&
         (!bfloat16 || bfloat16->agrees());
}

std::string TransformersVerification::verdict() const {
  const Worst w = worst();
  const std::string versus = "transformers " + transformersVersion;
  const std::string inBf16 = bfloat16 ? "; in bf16 it " + bfloat16->verdict() : "";
  const auto agreeing = static_cast<int64_t>(top1Agreement * static_cast<double>(positions) + 0.5);
  const std::optional<Worst> beyond = firstBeyond(*this);
  const bool top1Agrees = top1Agreement >= minimumTop1();
  // A bf16 check is measured against transformers' float32, beside transformers' own bf16.
  const std::string against =
      yardstick ? versus + "'s float32 as closely as its own bf16 does" : versus;
  if (!beyond && top1Agrees && tokensEqual)
    return "agrees with " + against + " (largest relative difference " +
           scientific(w.difference.maxRel) + " at " + w.name + ", top-1 " +
           std::to_string(agreeing) + "/" + std::to_string(positions) + ", tokens equal)" + inBf16;
  std::string why;
  const auto add = [&why](const std::string& part) { why += (why.empty() ? "" : "; ") + part; };
  if (beyond)
    add("worst layer " + beyond->name + ": max |Δ| " + scientific(beyond->difference.maxAbs) +
        ", relative " + scientific(beyond->difference.maxRel) + " (limit " +
        scientific(toleranceOf(beyond->name)) + ")");
  if (!top1Agrees) {
    char share[64];
    std::snprintf(share, sizeof share, "%.1f%% (limit %.1f%%)", 100.0 * top1Agreement,
                  100.0 * minimumTop1());
    add(std::string("top-1 agreement ") + share);
  }
  if (!tokensEqual) add("tokenization differs");
  return "DIFFERS from " + against + ": " + why + inBf16;
}

TransformersVerification verifyAgainstTransformers(const VerificationConfig& given,
                                                   JobContext& job) {
  // A .gguf model: Strata reads it in place (io/gguf/gguf_weights.h), transformers with gguf_file=.
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
  const TransformersReference reference =
      runTransformersReference(config.modelFolder, prompts, python,
                               std::chrono::seconds(config.timeoutSeconds), job, config.bfloat16);
  job.checkCancelled();
  TransformersVerification result = compareWithStrata(reference, config.modelFolder, job);
  if (config.bfloat16)
    result.bfloat16 = std::make_shared<const TransformersVerification>(
        compareWithStrata(reference, config.modelFolder, job, true));
  return result;
}

}  // namespace strata::verify
