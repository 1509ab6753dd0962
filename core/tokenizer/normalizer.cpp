#include "tokenizer/normalizer.h"

#include <utf8proc.h>

#include <cstdlib>

#include "tokenizer/utf8_text.h"

namespace strata::tokenizer {

namespace {

// Normalizes one well-formed UTF-8 run with utf8proc_map.
void appendNormalized(std::string_view run, UnicodeNormalizer::Form form, std::string& out) {
  int options = UTF8PROC_STABLE;
  switch (form) {
    case UnicodeNormalizer::Form::NFC:
      options |= UTF8PROC_COMPOSE;
      break;
    case UnicodeNormalizer::Form::NFD:
      options |= UTF8PROC_DECOMPOSE;
      break;
    case UnicodeNormalizer::Form::NFKC:
      options |= UTF8PROC_COMPOSE | UTF8PROC_COMPAT;
      break;
    case UnicodeNormalizer::Form::NFKD:
      options |= UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT;
      break;
  }
  utf8proc_uint8_t* mapped = nullptr;
  const utf8proc_ssize_t length = utf8proc_map(
      reinterpret_cast<const utf8proc_uint8_t*>(run.data()),
      static_cast<utf8proc_ssize_t>(run.size()), &mapped, static_cast<utf8proc_option_t>(options));
  if (length < 0) {
    // Only a well-formed run reaches here, so this is memory exhaustion or a code point
    // utf8proc does not know: keep the run unchanged rather than lose text.
    out.append(run);
  } else {
    out.append(reinterpret_cast<const char*>(mapped), static_cast<size_t>(length));
  }
  std::free(mapped);
}

}  // namespace

std::string UnicodeNormalizer::normalize(std::string text) const {
  // Pure ASCII is invariant under every normalization form: skip the copy.
  bool ascii = true;
  for (const char c : text) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
  if (ascii) return text;
  std::string out;
  out.reserve(text.size());
  size_t runStart = 0;
  for (size_t pos = 0; pos < text.size();) {
    const size_t n = utf8::sequenceLength(text, pos);
    if (n == 1 && static_cast<unsigned char>(text[pos]) >= 0x80) {
      appendNormalized(std::string_view(text).substr(runStart, pos - runStart), m_form, out);
      out += text[pos];
      runStart = pos + 1;
    }
    pos += n;
  }
  appendNormalized(std::string_view(text).substr(runStart), m_form, out);
  return out;
}

std::string LowercaseNormalizer::normalize(std::string text) const {
  std::string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    size_t n = 0;
    const int32_t cp = utf8::decodeAt(text, pos, &n);
    if (cp < 0)
      out.append(text, pos, n);
    else
      utf8::append(static_cast<char32_t>(utf8proc_tolower(cp)), out);
    pos += n;
  }
  return out;
}

std::string PrependNormalizer::normalize(std::string text) const {
  return text.empty() ? text : m_prefix + text;
}

std::string ReplaceNormalizer::normalize(std::string text) const {
  return m_pattern.replaceAll(text, m_content);
}

std::string StripNormalizer::normalize(std::string text) const {
  size_t begin = 0;
  size_t end = text.size();
  if (m_left) {
    while (begin < end) {
      size_t n = 0;
      if (!utf8::isWhitespace(utf8::decodeAt(text, begin, &n))) break;
      begin += n;
    }
  }
  if (m_right) {
    // Walk back to the start of the last character and test it.
    while (end > begin) {
      size_t start = end - 1;
      while (start > begin && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
      if (!utf8::isWhitespace(utf8::decodeAt(text, start))) break;
      end = start;
    }
  }
  return text.substr(begin, end - begin);
}

std::string SequenceNormalizer::normalize(std::string text) const {
  for (const auto& step : m_steps) text = step->normalize(std::move(text));
  return text;
}

}  // namespace strata::tokenizer
