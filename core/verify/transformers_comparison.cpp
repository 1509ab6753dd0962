// compareWithStrata (transformers_reference.h): Strata's half of verify.

#include <ATen/ATen.h>
#include <c10/util/StringUtil.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "common/error.h"
#include "common/job.h"
#include "model/backbone/backbone.h"
#include "tokenizer/tokenizer.h"
#include "verify/transformers_reference.h"

namespace strata::verify {

namespace {

/** max(a, b) where a NaN counts as infinitely large (std::max would drop it). */
double largest(double a, double b) { return std::isnan(b) ? INFINITY : std::max(a, b); }

/** Running maxima of |Strata − transformers| and |transformers| over prompts. */
void accumulate(TensorDifference& into, const at::Tensor& strata, const at::Tensor& reference,
                const std::string& what) {
  if (strata.sizes() != reference.sizes())
    throw Error("Strata's " + what + " has shape " + c10::str(strata.sizes()) + ", transformers' " +
                c10::str(reference.sizes()));
  into.maxAbs = largest(into.maxAbs, (strata - reference).abs().max().item<double>());
  into.maxRef = largest(into.maxRef, reference.abs().max().item<double>());
}

void finish(TensorDifference& difference) {
  const double rel = difference.maxRef > 0 ? difference.maxAbs / difference.maxRef
                                           : (difference.maxAbs > 0 ? INFINITY : 0.0);
  difference.maxRel = std::isnan(rel) ? INFINITY : rel;  // inf / inf: both sides blew up
}

std::string inFolder(const std::filesystem::path& folder) {
  return "the model folder '" + folder.string() + "'";
}

}  // namespace

TransformersVerification compareWithStrata(const TransformersReference& reference,
                                           const std::filesystem::path& strataFolder,
                                           JobContext& job, bool bfloat16) {
  TransformersVerification result;
  // Strata is always measured against transformers' float32; a bf16 check also measures
  // transformers' own bf16 against it, the yardstick (transformers_verification.h).
  const std::vector<TransformersReference::Prompt>& prompts = reference.prompts;
  if (bfloat16) {
    if (reference.bfloat16Prompts.size() != prompts.size())
      throw Error("the transformers side of verify ran no bfloat16 pass");
    result.computeDType = "bfloat16";
    result.yardstick.emplace();
  }
  result.model = reference.model;
  result.python = reference.python;
  result.transformersVersion = reference.transformersVersion;
  result.torchVersion = reference.torchVersion;
  result.architecture = reference.architecture;

  job.progress(0.7, std::string("loading the model with Strata") + (bfloat16 ? " (bf16)" : ""));
  // The loading path capture uses: weights on the CPU in the compute dtype, the folder's
  // tokenizer.
  std::unique_ptr<model::Backbone> backbone;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  try {
    backbone = model::Backbone::load(strataFolder,
                                     {.computeDType = bfloat16 ? at::kBFloat16 : at::kFloat});
    tokenizer = tokenizer::loadTokenizer(strataFolder);
  } catch (const std::exception& error) {
    throw Error("Strata cannot load " + inFolder(strataFolder) + ": " + error.what());
  }
  const int64_t L = backbone->numLayers();
  for (int64_t l = 0; l <= L; ++l) result.layers.push_back({l, {}});
  if (result.yardstick) result.yardstick->layers.resize(L + 1);
  int64_t yardstickAgreeing = 0;

  at::InferenceMode inference;
  int64_t agreeing = 0;
  result.tokensEqual = true;
  for (std::size_t p = 0; p < prompts.size(); ++p) {
    job.checkCancelled();
    job.progress(0.75 + 0.25 * p / prompts.size(),
                 std::string("Strata") + (bfloat16 ? " bf16" : "") + ": prompt " +
                     std::to_string(p + 1) + " of " + std::to_string(prompts.size()));
    const TransformersReference::Prompt& prompt = prompts[p];
    PromptTokens tokens{prompt.text, tokenizer->encode(prompt.text, true), prompt.ids};
    result.tokensEqual = result.tokensEqual && tokens.equal();
    result.prompts.push_back(std::move(tokens));
    if (static_cast<int64_t>(prompt.hidden.size()) != L + 1)
      throw Error("transformers ran " + std::to_string(prompt.hidden.size() - 1) + " layers of " +
                  inFolder(strataFolder) + ", Strata has " + std::to_string(L));
    if (prompt.ids.empty()) continue;  // nothing to run (a tokenizer that drops the whole text)

    std::vector<int64_t> ids(prompt.ids.begin(), prompt.ids.end());
    const at::Tensor input = at::tensor(ids, at::TensorOptions().dtype(at::kLong)).unsqueeze(0);
    model::CaptureRequest request;
    request.finalNorm = true;
    request.logits = true;
    model::CaptureResult strata;
    try {
      strata = backbone->capture(input, request);
    } catch (const Error& error) {
      throw Error("Strata cannot run " + inFolder(strataFolder) +
                  " on transformers' ids: " + error.what());
    }
    // Invariant: layers[l] holds the maxima over prompts 0..p of h_l.
    for (int64_t l = 0; l <= L; ++l)
      accumulate(result.layers[l].difference, strata.hidden[l][0].to(at::kFloat), prompt.hidden[l],
                 "h_" + std::to_string(l));
    accumulate(result.finalNorm, strata.finalNorm[0].to(at::kFloat), prompt.finalNorm,
               "final norm");
    const at::Tensor logits = strata.logits[0].to(at::kFloat);
    accumulate(result.logits, logits, prompt.logits, "logits");
    agreeing += logits.argmax(-1).eq(prompt.logits.argmax(-1)).sum().item<int64_t>();
    result.positions += logits.size(0);
    if (result.yardstick) {
      const TransformersReference::Prompt& own = reference.bfloat16Prompts[p];
      TransformersVerification::Yardstick& y = *result.yardstick;
      for (int64_t l = 0; l <= L; ++l)
        accumulate(y.layers[l], own.hidden[l], prompt.hidden[l], "bf16 h_" + std::to_string(l));
      accumulate(y.finalNorm, own.finalNorm, prompt.finalNorm, "bf16 final norm");
      accumulate(y.logits, own.logits, prompt.logits, "bf16 logits");
      yardstickAgreeing += own.logits.argmax(-1).eq(prompt.logits.argmax(-1)).sum().item<int64_t>();
    }
  }
  for (LayerDifference& layer : result.layers) finish(layer.difference);
  finish(result.finalNorm);
  finish(result.logits);
  if (result.yardstick) {
    for (TensorDifference& layer : result.yardstick->layers) finish(layer);
    finish(result.yardstick->finalNorm);
    finish(result.yardstick->logits);
    result.yardstick->top1Agreement =
        result.positions > 0 ? static_cast<double>(yardstickAgreeing) / result.positions : 0.0;
  }
  result.top1Agreement =
      result.positions > 0 ? static_cast<double>(agreeing) / result.positions : 0.0;
  job.progress(1.0, "done");
  return result;
}

}  // namespace strata::verify
