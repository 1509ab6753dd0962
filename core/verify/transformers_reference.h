#pragma once
// The transformers side of verify: runs resources/python/verify_transformers.py in a child Python
// and reads what it wrote (ids, h_0 … h_L before the final norm, the final norm, logits), and
// compares a Strata backbone with it. Tensors here: include only where torch is welcome.

#include <ATen/core/Tensor.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "verify/transformers_verification.h"

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::verify {

struct TransformersReference {
  std::filesystem::path model;
  std::string python;
  std::string transformersVersion;
  std::string torchVersion;
  std::string architecture;
  struct Prompt {
    std::string text;
    std::vector<int32_t> ids;        ///< HF's tokenizer(text)["input_ids"]
    std::vector<at::Tensor> hidden;  ///< h_0 … h_L, [T, d] float32 on the CPU
    at::Tensor finalNorm;            ///< [T, d]
    at::Tensor logits;               ///< [T, vocab]
  };
  std::vector<Prompt> prompts;
  /** The same prompts with the model cast to bfloat16 (asked with `bfloat16`), else empty;
   *  each Prompt's ids and text are those of `prompts`. */
  std::vector<Prompt> bfloat16Prompts;
};

/**
 * Runs verify_transformers.py with `python` on `model` and `prompts` (progress from `job`,
 * killed on cancellation or after `timeout`). `python` must have passed requireTransformers().
 * Throws TransformersUnavailableError when an import fails after all, strata::Error naming the
 * folder when transformers cannot load it or the script fails (with the end of its stderr).
 */
TransformersReference runTransformersReference(const std::filesystem::path& model,
                                               const std::vector<std::string>& prompts,
                                               const std::string& python,
                                               std::chrono::seconds timeout, JobContext& job,
                                               bool bfloat16 = false);

/**
 * Loads `strataFolder` as capture does (Backbone::load on the CPU, in float32 or with `bfloat16`
 * in bfloat16, and loadTokenizer), runs it on each prompt's HF ids and compares with
 * `reference`'s prompts (its bfloat16Prompts with `bfloat16`). `strataFolder` is normally
 * reference.model; tests pass a damaged copy. Throws strata::Error naming the folder when Strata
 * cannot load or run it, CancelledError between prompts.
 */
TransformersVerification compareWithStrata(const TransformersReference& reference,
                                           const std::filesystem::path& strataFolder,
                                           JobContext& job, bool bfloat16 = false);

}  // namespace strata::verify
