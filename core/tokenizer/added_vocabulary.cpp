#include "tokenizer/added_vocabulary.h"

#include <utf8proc.h>

#include <algorithm>
#include <functional>

#include "tokenizer/utf8_text.h"

namespace strata::tokenizer {

namespace {

bool isWordCharacter(int32_t cp) {
  if (cp == '_') return true;
  if (cp < 0) return false;
  // HF: char::is_alphanumeric, i.e. Unicode letters and numbers.
  switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
      return true;
    default:
      return false;
  }
}

// Start of the character that ends just before `end`.
size_t previousCharacter(std::string_view text, size_t end) {
  size_t start = end - 1;
  while (start > 0 && end - start < 4 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80)
    --start;
  return utf8::sequenceLength(text, start) == end - start ? start : end - 1;
}

}  // namespace

bool AddedVocabulary::add(AddedToken token) {
  if (token.content.empty() || token.id < 0 || m_indexById.contains(token.id) ||
      m_indexByContent.contains(token.content))
    return false;
  const size_t index = m_tokens.size();
  m_indexById.emplace(token.id, index);
  m_indexByContent.emplace(token.content, index);
  const int pass = token.normalized ? 1 : 0;
  // The lengths of this pass's tokens that start with this byte, longest first, once each: a
  // position then costs one hash lookup per length, not one comparison per token (files with
  // 100,000 added tokens exist, most of them starting with "<").
  auto& lengths = m_lengths[pass][static_cast<uint8_t>(token.content.front())];
  const size_t length = token.content.size();
  const auto at = std::lower_bound(lengths.begin(), lengths.end(), length, std::greater<>());
  if (at == lengths.end() || *at != length) lengths.insert(at, length);
  m_passUsed[pass] = true;
  m_idLimit = std::max<int64_t>(m_idLimit, int64_t{token.id} + 1);
  m_tokens.push_back(std::move(token));
  return true;
}

const AddedToken* AddedVocabulary::byId(int32_t id) const {
  const auto it = m_indexById.find(id);
  return it == m_indexById.end() ? nullptr : &m_tokens[it->second];
}

const AddedToken* AddedVocabulary::byContent(std::string_view content) const {
  const auto it = m_indexByContent.find(content);
  return it == m_indexByContent.end() ? nullptr : &m_tokens[it->second];
}

void AddedVocabulary::split(std::string_view text, bool normalizedTokens, bool atInputStart,
                            std::vector<InputSegment>& out) const {
  const int pass = normalizedTokens ? 1 : 0;
  size_t segmentStart = 0;  // first byte not yet emitted
  const auto emitText = [&](size_t end) {
    if (end > segmentStart)
      out.push_back({std::string(text.substr(segmentStart, end - segmentStart)), -1,
                     atInputStart && segmentStart == 0});
  };
  if (m_passUsed[pass]) {
    for (size_t pos = 0; pos < text.size(); ++pos) {
      // Longest first. Contents are unique, so at most one token of each length matches here,
      // and a match of the other pass's token rules out every token of this one at that length.
      const AddedToken* found = nullptr;
      for (const size_t length : m_lengths[pass][static_cast<uint8_t>(text[pos])]) {
        if (length > text.size() - pos) continue;
        const auto it = m_indexByContent.find(text.substr(pos, length));
        if (it != m_indexByContent.end() && m_tokens[it->second].normalized == (pass == 1)) {
          found = &m_tokens[it->second];
          break;
        }
      }
      if (found == nullptr) continue;
      size_t begin = pos;
      size_t end = pos + found->content.size();
      if (found->singleWord) {
        const bool wordBefore =
            begin > 0 && isWordCharacter(utf8::decodeAt(text, previousCharacter(text, begin)));
        const bool wordAfter = end < text.size() && isWordCharacter(utf8::decodeAt(text, end));
        if (wordBefore || wordAfter) continue;
      }
      if (found->lstrip)  // never reach back into what an earlier match consumed
        while (begin > segmentStart) {
          const size_t previous = previousCharacter(text, begin);
          if (!utf8::isWhitespace(utf8::decodeAt(text, previous))) break;
          begin = previous;
        }
      if (found->rstrip)
        while (end < text.size()) {
          size_t length = 0;
          if (!utf8::isWhitespace(utf8::decodeAt(text, end, &length))) break;
          end += length;
        }
      emitText(begin);
      out.push_back({std::string(found->content), found->id, atInputStart && begin == 0});
      segmentStart = end;
      pos = end - 1;  // the loop's ++pos resumes right after the match
    }
  }
  emitText(text.size());
}

}  // namespace strata::tokenizer
