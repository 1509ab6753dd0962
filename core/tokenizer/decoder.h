#pragma once
// Decoders: token strings → text (HF tokenizers decoders/*). Like HF, each step rewrites the
// list of token strings (decode_chain) and the result is their concatenation.
//
// One deliberate difference: HF turns bytes that do not form valid UTF-8 into U+FFFD
// (ByteLevel: from_utf8_lossy; ByteFallback: one U+FFFD per byte). Here the bytes are kept, as
// tiktoken's decode_bytes and llama2.c do, so decoding ids one at a time and concatenating
// gives the same bytes as decoding them together. Valid text decodes identically.

#include <memory>
#include <string>
#include <vector>

#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/split_pattern.h"

namespace strata::tokenizer {

/** One decoding step. */
class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual void decodeChain(std::vector<std::string>& tokens) const = 0;
};

/** Byte-level characters back to bytes; a token holding any other character is kept as is. */
class ByteLevelDecoder : public Decoder {
 public:
  void decodeChain(std::vector<std::string>& tokens) const override;
};

/** "▁" back to spaces; in the first token (unless the scheme is Never) it is dropped, which
 *  removes the space the pre-tokenizer prepended. */
class MetaspaceDecoder : public Decoder {
 public:
  MetaspaceDecoder(std::string replacement, PrependScheme scheme)
      : m_pattern(SplitPattern::literal(std::move(replacement))), m_scheme(scheme) {}
  void decodeChain(std::vector<std::string>& tokens) const override;

 private:
  SplitPattern m_pattern;
  PrependScheme m_scheme;
};

/** Runs of <0xNN> tokens back to their bytes. */
class ByteFallbackDecoder : public Decoder {
 public:
  void decodeChain(std::vector<std::string>& tokens) const override;
};

/** Joins all tokens into one. */
class FuseDecoder : public Decoder {
 public:
  void decodeChain(std::vector<std::string>& tokens) const override;
};

/** Removes up to `start` leading and `stop` trailing copies of `content` from each token
 *  (Llama-2: Strip(" ", 1, 0) drops the space the "▁" prefix became). */
class StripDecoder : public Decoder {
 public:
  StripDecoder(std::string content, size_t start, size_t stop)
      : m_content(std::move(content)), m_start(start), m_stop(stop) {}
  void decodeChain(std::vector<std::string>& tokens) const override;

 private:
  std::string m_content;
  size_t m_start;
  size_t m_stop;
};

/** Replaces every match of a pattern in each token (Llama-2: Replace("▁", " ")). */
class ReplaceDecoder : public Decoder {
 public:
  ReplaceDecoder(SplitPattern pattern, std::string content)
      : m_pattern(std::move(pattern)), m_content(std::move(content)) {}
  void decodeChain(std::vector<std::string>& tokens) const override;

 private:
  SplitPattern m_pattern;
  std::string m_content;
};

/** Applies several decoders in order. */
class SequenceDecoder : public Decoder {
 public:
  explicit SequenceDecoder(std::vector<std::unique_ptr<Decoder>> steps)
      : m_steps(std::move(steps)) {}
  void decodeChain(std::vector<std::string>& tokens) const override;

 private:
  std::vector<std::unique_ptr<Decoder>> m_steps;
};

/** The byte of a "<0xNN>" token, or -1 when `token` is not one. */
int byteFallbackValue(std::string_view token);

}  // namespace strata::tokenizer
