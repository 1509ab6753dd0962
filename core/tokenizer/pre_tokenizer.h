#pragma once
// Pre-tokenizers: cut normalized text into the pieces ("words") that the BPE model encodes one
// at a time (HF tokenizers pre_tokenizers/*). Each is immutable and thread-safe.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/split_pattern.h"

namespace strata::tokenizer {

/** A piece of input on its way to the model. */
struct PreToken {
  std::string text;
  /** Begins at byte 0 of the caller's text (HF: offsets_original().0 == 0); the Metaspace
   *  prepend scheme "first" adds its "▁" to this piece only. */
  bool atInputStart = false;
};

/** GPT-2's pre-tokenizer regex (openai/gpt-2 encoder.py; HF ByteLevel with use_regex). */
inline constexpr std::string_view kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

/** Llama-3's pre-tokenizer regex (meta-llama tokenizer.py; also tiktoken's cl100k_base). */
inline constexpr std::string_view kLlama3Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

/** One pre-tokenization step. */
class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  /** Splits (and possibly rewrites) every piece, in place. */
  virtual void apply(std::vector<PreToken>& pieces) const = 0;
};

/** HF Split: cut at the matches of a regex or string with a delimiter behaviour. Also serves
 *  Digits, Whitespace and WhitespaceSplit, which are splits with fixed patterns. */
class SplitPreTokenizer : public PreTokenizer {
 public:
  SplitPreTokenizer(SplitPattern pattern, SplitBehavior behavior, bool invert)
      : m_pattern(std::move(pattern)), m_behavior(behavior), m_invert(invert) {}
  void apply(std::vector<PreToken>& pieces) const override;

 private:
  SplitPattern m_pattern;
  SplitBehavior m_behavior;
  bool m_invert;
};

/** HF ByteLevel: optionally prepend a space (to every piece that does not start with one, as
 *  HF does), optionally split with the GPT-2 regex, then map every byte to its byte-level
 *  character so that the vocabulary can be looked up. */
class ByteLevelPreTokenizer : public PreTokenizer {
 public:
  ByteLevelPreTokenizer(bool addPrefixSpace, bool useRegex);
  void apply(std::vector<PreToken>& pieces) const override;

 private:
  bool m_addPrefixSpace;
  bool m_useRegex;
  SplitPattern m_pattern;
};

/** When Metaspace prepends its replacement character (HF PrependScheme). */
enum class PrependScheme { Always, First, Never };

/** HF Metaspace (SentencePiece style): spaces become "▁", a "▁" is prepended per the scheme,
 *  and with `split` each "▁" starts a new piece. */
class MetaspacePreTokenizer : public PreTokenizer {
 public:
  MetaspacePreTokenizer(std::string replacement, PrependScheme scheme, bool split);
  void apply(std::vector<PreToken>& pieces) const override;

 private:
  std::string m_replacement;
  PrependScheme m_scheme;
  bool m_split;
  SplitPattern m_pattern;
};

/** Applies several pre-tokenizers in order. */
class SequencePreTokenizer : public PreTokenizer {
 public:
  explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> steps)
      : m_steps(std::move(steps)) {}
  void apply(std::vector<PreToken>& pieces) const override;

 private:
  std::vector<std::unique_ptr<PreTokenizer>> m_steps;
};

}  // namespace strata::tokenizer
