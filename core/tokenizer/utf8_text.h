#pragma once
// Small UTF-8 helpers shared by the tokenizer stages. Tokenizer input is arbitrary bytes:
// every helper here tolerates invalid UTF-8 by treating a stray byte as a one-byte "character",
// which is what byte-level BPE and byte fallback need (both can represent any byte).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace strata::tokenizer::utf8 {

/** Length of the well-formed UTF-8 sequence starting at `pos`, or 1 for an invalid byte. */
inline size_t sequenceLength(std::string_view text, size_t pos) {
  const auto lead = static_cast<unsigned char>(text[pos]);
  size_t length = 1;
  if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
  } else if (lead >= 0xE0) {
    length = lead <= 0xEF ? 3 : 1;
  } else if (lead >= 0xC2) {
    length = 2;
  }
  if (length == 1 || pos + length > text.size()) return 1;
  for (size_t i = 1; i < length; ++i)
    if ((static_cast<unsigned char>(text[pos + i]) & 0xC0) != 0x80) return 1;
  return length;
}

/** Decodes the character at `pos` (see sequenceLength); an invalid byte decodes to -1. */
inline int32_t decodeAt(std::string_view text, size_t pos, size_t* length = nullptr) {
  const size_t n = sequenceLength(text, pos);
  if (length != nullptr) *length = n;
  const auto lead = static_cast<unsigned char>(text[pos]);
  if (n == 1) return lead < 0x80 ? lead : -1;
  int32_t cp = lead & (0xFF >> (n + 1));
  for (size_t i = 1; i < n; ++i)
    cp = (cp << 6) | (static_cast<unsigned char>(text[pos + i]) & 0x3F);
  return cp;
}

/** Appends the UTF-8 encoding of code point `cp` (assumed valid) to `out`. */
inline void append(char32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

/** The UTF-8 encoding of one code point. */
inline std::string encode(char32_t cp) {
  std::string out;
  append(cp, out);
  return out;
}

/** True when `text` is entirely well-formed UTF-8. */
inline bool isValid(std::string_view text) {
  for (size_t pos = 0; pos < text.size();) {
    const size_t n = sequenceLength(text, pos);
    if (n == 1 && static_cast<unsigned char>(text[pos]) >= 0x80) return false;
    pos += n;
  }
  return true;
}

/** Unicode White_Space (Rust's char::is_whitespace, which HF tokenizers uses for strip rules). */
inline bool isWhitespace(int32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000;
}

}  // namespace strata::tokenizer::utf8
