#pragma once
// Splitting text at the matches of a pattern, with the five delimiter behaviours of HF
// tokenizers (tokenizer/normalizer.rs, NormalizedString::split). Regexes run on PCRE2 in UTF +
// UCP mode: pre-tokenizer patterns need \p{L}/\p{N} classes, `(?i:...)` and the `(?!\S)`
// lookahead, which std::regex cannot do. HF itself uses Oniguruma, tiktoken fancy-regex; the
// patterns used by GPT-2, Llama-3 and Qwen behave the same on all three engines.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace strata::tokenizer {

/** What happens to the matched delimiters (HF SplitDelimiterBehavior). */
enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

/** A half-open byte range [begin, end) of some text. */
struct TextSpan {
  size_t begin = 0;
  size_t end = 0;
};

/** A compiled split pattern: a PCRE2 regex or a literal string. Immutable after construction
 *  and safe to use from several threads at once (match data is per call). */
class SplitPattern {
 public:
  /** Compiles `pattern` (UTF, UCP, invalid UTF-8 in the subject tolerated, JIT when
   *  available). Throws std::invalid_argument with PCRE2's message and offset on a bad pattern. */
  static SplitPattern regex(const std::string& pattern);
  /** A pattern that matches `text` literally (HF Split/Replace with {"String": ...}). */
  static SplitPattern literal(std::string text);

  /** Appends the non-overlapping, non-empty matches in `text`, left to right, to `out`. */
  void findAll(std::string_view text, std::vector<TextSpan>& out) const;

  /** `text` with every match replaced by `replacement`. */
  std::string replaceAll(std::string_view text, std::string_view replacement) const;

 private:
  struct Compiled;
  std::shared_ptr<const Compiled> m_regex;  // null for a literal pattern
  std::string m_literal;
};

/** Cuts `text` into pieces at the matches of `pattern`, as HF NormalizedString::split does:
 *  `invert` swaps matches and gaps first; empty pieces are dropped. */
std::vector<TextSpan> splitText(std::string_view text, const SplitPattern& pattern,
                                SplitBehavior behavior, bool invert = false);

}  // namespace strata::tokenizer
