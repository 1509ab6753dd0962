#pragma once
// Sample quality of generated text, as the text-generation literature measures it, shared by
// every recipe that generates (hybrid DiHAL generation, DCDM/BDLM/MDLM samples, REPR-ALIGN
// students):
//
// * Gen.PPL under a separate judge: exp(Σ CE / Σ tokens) of each continuation given its prompt,
//   scored by an autoregressive judge model that did not generate the text. The text is
//   re-tokenised with the judge's own tokenizer, so any generator can be judged by any judge.
//   The judge's name (its folder) goes into every report beside the number.
// * Diversity (SimCTG, Su et al. 2022; contrastive decoding, Li et al. 2023): per text, split on
//   whitespace into words; for n = 2..4 count that text's unique and total word n-grams; sum the
//   counts over texts; diversity = ∏_{n=2..4} Σ unique_n / Σ total_n. Computed per text, so two
//   identical samples are not penalised against each other (their repetition *within* a text is).
//   SimCTG's own script skips each text's last n-gram (an off-by-one); Strata counts every one.
// * Token-level diversity (the same product over token ids, per text) beside it, because a
//   byte-level model's "words" and a BPE model's words are not comparable across tokenizers.
// No torch here.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace strata {

namespace model {
class Backbone;
}  // namespace model
namespace tokenizer {
class Tokenizer;
}  // namespace tokenizer

}  // namespace strata

namespace strata::recipes {

/** Unique and total n-grams of one sequence (sliding window, every n-gram counted). */
struct NgramCounts {
  int64_t unique = 0;
  int64_t total = 0;
};

/** Whitespace-separated words of `text` (runs of ASCII space, tab, newline, CR, FF, VT). */
std::vector<std::string> whitespaceWords(const std::string& text);

/** ∏_{n=2..4} Σ_texts unique_n / Σ_texts total_n over word n-grams (0 when some n has none). */
double wordDiversity(const std::vector<std::string>& texts);

/** The same per-text product over token ids. */
double tokenDiversity(const std::vector<std::vector<int32_t>>& sequences);

/** One prompt and the text a model continued it with. */
struct JudgedText {
  std::string prompt;
  std::string continuation;
};

struct GenPplResult {
  double genPpl = 0;  ///< exp(Σ CE / Σ judged tokens); 0 when nothing was judged
  double meanCrossEntropy = 0;
  int64_t judgedTokens = 0;  ///< continuation tokens under the judge's tokenizer
  std::string judge;         ///< the judge's model folder, as given
};

/** An autoregressive model (any supported Hugging Face folder) that scores continuations. */
class GenerationJudge {
 public:
  /** Loads the model and its tokenizer from `folder` (Backbone::load, loadTokenizer); the
   *  model on `device` ("cpu", "cuda" or "auto", engine/device_choice.h). */
  explicit GenerationJudge(const std::filesystem::path& folder, const std::string& device = "auto");
  ~GenerationJudge();
  GenerationJudge(const GenerationJudge&) = delete;
  GenerationJudge& operator=(const GenerationJudge&) = delete;

  /** Σ CE (nats) of `continuation` after `prompt` under the judge, and its token count. The
   *  prompt is encoded with the judge's special tokens (BOS where it has one); the continuation
   *  without, and appended. Continuations longer than the judge's context are cut to fit. */
  double crossEntropy(const std::string& prompt, const std::string& continuation,
                      int64_t& tokens) const;

  /** Gen.PPL of all texts pooled (Σ CE / Σ tokens). */
  GenPplResult judge(const std::vector<JudgedText>& texts) const;

  const std::filesystem::path& folder() const { return m_folder; }

 private:
  std::filesystem::path m_folder;
  std::unique_ptr<model::Backbone> m_model;
  std::unique_ptr<tokenizer::Tokenizer> m_tokenizer;
};

/** Σ CE (nats) of token ids `continuation` after `prompt` under `model` (same tokenizer). */
double continuationCrossEntropy(const model::Backbone& model, const std::vector<int32_t>& prompt,
                                const std::vector<int32_t>& continuation);

}  // namespace strata::recipes
