#pragma once
// Normalizers: text → text rewrites applied to each piece of input between added tokens, before
// pre-tokenization (HF tokenizers normalizers/*). Each is immutable and thread-safe.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/split_pattern.h"

namespace strata::tokenizer {

/** One normalization step. */
class Normalizer {
 public:
  virtual ~Normalizer() = default;
  /** The normalized form of `text`. */
  virtual std::string normalize(std::string text) const = 0;
};

/** Unicode normalization forms, computed with utf8proc. Invalid UTF-8 bytes are kept as they
 *  are and only the well-formed runs between them are normalized. */
class UnicodeNormalizer : public Normalizer {
 public:
  enum class Form { NFC, NFD, NFKC, NFKD };
  explicit UnicodeNormalizer(Form form) : m_form(form) {}
  std::string normalize(std::string text) const override;

 private:
  Form m_form;
};

/** Lower-cases each code point (utf8proc simple case mapping; HF uses Rust's full mapping,
 *  which differs only for a handful of characters such as U+0130). */
class LowercaseNormalizer : public Normalizer {
 public:
  std::string normalize(std::string text) const override;
};

/** Prepends a string to non-empty text (Llama-2 style tokenizer.json: Prepend("▁")). */
class PrependNormalizer : public Normalizer {
 public:
  explicit PrependNormalizer(std::string prefix) : m_prefix(std::move(prefix)) {}
  std::string normalize(std::string text) const override;

 private:
  std::string m_prefix;
};

/** Replaces every match of a pattern (Llama-2 style: Replace(" ", "▁")). */
class ReplaceNormalizer : public Normalizer {
 public:
  ReplaceNormalizer(SplitPattern pattern, std::string content)
      : m_pattern(std::move(pattern)), m_content(std::move(content)) {}
  std::string normalize(std::string text) const override;

 private:
  SplitPattern m_pattern;
  std::string m_content;
};

/** Strips whitespace on the left and/or right. */
class StripNormalizer : public Normalizer {
 public:
  StripNormalizer(bool left, bool right) : m_left(left), m_right(right) {}
  std::string normalize(std::string text) const override;

 private:
  bool m_left;
  bool m_right;
};

/** Applies several normalizers in order. */
class SequenceNormalizer : public Normalizer {
 public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> steps)
      : m_steps(std::move(steps)) {}
  std::string normalize(std::string text) const override;

 private:
  std::vector<std::unique_ptr<Normalizer>> m_steps;
};

}  // namespace strata::tokenizer
