#pragma once
// Verified on load: Strata's backbone and tokenizer against Hugging Face transformers on the same
// folder (docs/verify.md). transformers runs in a child Python (resources/python/
// verify_transformers.py) on a few fixed prompts; Strata then runs its backbone on the ids HF's
// tokenizer produced, so hidden-state differences are never tokenization differences, and
// compares h_0 … h_L, the final norm and the logits. Torch-free: the GUI shows these structs.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::verify {

/** Largest differences of one tensor over every prompt and position. */
struct TensorDifference {
  double maxAbs = 0.0;  ///< max |Strata − transformers|
  double maxRef = 0.0;  ///< max |transformers| (the scale maxRel divides by)
  double maxRel = 0.0;  ///< maxAbs / maxRef (0 when both are 0)
};

struct LayerDifference {
  int64_t layer = 0;  ///< 0 = the embedding output h_0, l = block l's output h_l (pre-norm h_L)
  TensorDifference difference;
};

/** One prompt as both tokenizers saw it (with the model's special tokens). */
struct PromptTokens {
  std::string text;
  std::vector<int32_t> strataIds;
  std::vector<int32_t> transformersIds;
  bool equal() const { return strataIds == transformersIds; }
};

struct TransformersVerification {
  std::filesystem::path model;
  std::string python;                   ///< the interpreter that ran transformers
  std::string transformersVersion;      ///< e.g. "5.25.0"
  std::string torchVersion;             ///< the Python side's torch
  std::string architecture;             ///< the class transformers loaded, e.g. "LlamaForCausalLM"
  std::vector<LayerDifference> layers;  ///< h_0 … h_L
  TensorDifference finalNorm;           ///< the final norm's output
  TensorDifference logits;
  double top1Agreement = 0.0;  ///< fraction of positions where both logits' argmax agree
  int64_t positions = 0;       ///< positions compared, over every prompt
  bool tokensEqual = false;    ///< Strata's ids == HF's ids on every prompt
  std::vector<PromptTokens> prompts;
  /** What Strata computed in: "float32", or "bfloat16" (--compute-dtype bf16). */
  std::string computeDType = "float32";

  /**
   * A bfloat16 check measures Strata's bf16 against transformers' float32 (the rows above), and
   * beside it transformers' own bf16 (its model cast to bf16) against the same float32. Two
   * correct bf16 implementations round differently, so Strata agrees when it is no further from
   * float32 than transformers' own bf16 is, row by row (times kBFloat16Slack, plus kTolerance),
   * and its top-1 agreement with float32 is at most kBFloat16Top1Slack below transformers' own.
   */
  struct Yardstick {
    std::vector<TensorDifference> layers;  ///< transformers bf16 − float32, h_0 … h_L
    TensorDifference finalNorm;
    TensorDifference logits;
    double top1Agreement = 0.0;  ///< its bf16 argmax == its float32 argmax
  };
  std::optional<Yardstick> yardstick;
  /** The same check in bfloat16, when it was asked for (VerificationConfig::bfloat16). */
  std::shared_ptr<const TransformersVerification> bfloat16;

  /** The row with the largest maxRel among h_0 … h_L, the final norm and the logits. */
  struct Worst {
    std::string name;  ///< "h_3", "final norm", "logits"
    TensorDifference difference;
  };
  Worst worst() const;
  /** The largest maxRel that agrees for `row` ("h_3", "final norm", "logits"): kTolerance in
   *  float32, the yardstick's bound in a bfloat16 check. */
  double toleranceOf(const std::string& row) const;
  /** The lowest top-1 agreement that agrees: every position in float32, the yardstick's less
   *  kBFloat16Top1Slack in a bfloat16 check. */
  double minimumTop1() const;
  /** Every row within toleranceOf, top-1 agreement at least minimumTop1, every prompt
   *  tokenized alike, and the bfloat16 check (when made) agreeing too. */
  bool agrees() const;
  /** One line: "agrees with transformers 5.25.0 (…)" or "DIFFERS from transformers …: …", then
   *  "; in bf16 it …" when the bfloat16 check was made. */
  std::string verdict() const;

  static constexpr double kTolerance = 1e-3;
  static constexpr double kBFloat16Slack = 2.0;
  static constexpr double kBFloat16Top1Slack = 0.05;
};

struct VerificationConfig {
  std::filesystem::path modelFolder;
  /** The Python to run transformers with; empty: choosePython() (python_environment.h). */
  std::string python{};
  /** The prompts; empty: verificationPrompts(). */
  std::vector<std::string> prompts{};
  /** The transformers side is stopped after this long (loading a large model is slow). */
  int64_t timeoutSeconds = 1800;
  /** Also compare both sides in bfloat16 (the path `--compute-dtype auto` takes on CUDA and on
   *  CPUs with native bf16): transformers casts its model, Strata computes in bf16. */
  bool bfloat16 = false;
};

/** The fixed prompts: English prose, digits and punctuation, accented Latin, CJK and an emoji,
 *  and a line of code with indentation. */
const std::vector<std::string>& verificationPrompts();

/**
 * Runs transformers, then Strata, on `config.modelFolder` and compares them. Reports progress and
 * stops at cancellation (CancelledError; the child Python is killed). Throws
 * TransformersUnavailableError when the Python lacks transformers (python_environment.h), and
 * strata::Error naming the folder when transformers or Strata cannot load the model.
 */
TransformersVerification verifyAgainstTransformers(const VerificationConfig& config,
                                                   JobContext& job);

}  // namespace strata::verify
