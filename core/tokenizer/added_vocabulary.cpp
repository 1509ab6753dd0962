#include "tokenizer/added_vocabulary.h"

#include <utf8proc.h>

#include <algorithm>

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
  auto& bucket = m_candidates[pass][static_cast<uint8_t>(token.content.front())];
  // Longest first, ties in insertion order: inserted after every candidate at least as long
  // (one binary search, not a sort per token: files with 100,000 added tokens exist).
  const size_t length = token.content.size();
  const auto at = std::upper_bound(
      bucket.begin(), bucket.end(), length,
      [this](size_t size, size_t candidate) { return size > m_tokens[candidate].content.size(); });
  bucket.insert(at, index);
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
      const AddedToken* found = nullptr;
      for (const size_t index : m_candidates[pass][static_cast<uint8_t>(text[pos])]) {
        const AddedToken& token = m_tokens[index];
        if (text.substr(pos).starts_with(token.content)) {
          found = &token;
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
