#include "tokenizer/bpe_tokenizer.h"

#include <algorithm>
#include <stdexcept>

namespace strata::tokenizer {

BpeTokenizer::BpeTokenizer(BpeTokenizerParts parts) : m_parts(std::move(parts)) {
  if (!m_parts.model) throw std::invalid_argument("BpeTokenizer needs a model");
  m_special = m_parts.special;
}

std::vector<int32_t> BpeTokenizer::encode(std::string_view text, bool addSpecialTokens) const {
  std::vector<int32_t> ids;
  ids.reserve(text.size() / 3 + 4);
  if (addSpecialTokens)
    ids.insert(ids.end(), m_parts.templatePrefix.begin(), m_parts.templatePrefix.end());
  // HF AddedVocabulary::extract_and_normalize: tokens with normalized = false are found in the
  // raw text, the rest in the normalized text of what lies between them.
  std::vector<InputSegment> segments;
  m_parts.addedTokens.split(text, false, true, segments);
  for (const InputSegment& segment : segments) {
    if (segment.tokenId >= 0) {
      ids.push_back(segment.tokenId);
      continue;
    }
    std::vector<InputSegment> normalized;
    m_parts.addedTokens.split(
        m_parts.normalizer ? m_parts.normalizer->normalize(segment.text) : segment.text, true,
        segment.atInputStart, normalized);
    for (const InputSegment& part : normalized) {
      if (part.tokenId >= 0)
        ids.push_back(part.tokenId);
      else
        encodeText(part, ids);
    }
  }
  if (addSpecialTokens)
    ids.insert(ids.end(), m_parts.templateSuffix.begin(), m_parts.templateSuffix.end());
  return ids;
}

void BpeTokenizer::encodeText(const InputSegment& segment, std::vector<int32_t>& ids) const {
  thread_local std::vector<PreToken> pieces;
  pieces.clear();
  pieces.push_back({segment.text, segment.atInputStart});
  if (m_parts.preTokenizer) m_parts.preTokenizer->apply(pieces);
  for (const PreToken& piece : pieces) m_parts.model->encode(piece.text, ids);
}

std::string BpeTokenizer::decode(std::span<const int32_t> ids, bool skipSpecialTokens) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (const int32_t id : ids) {
    if (skipSpecialTokens && isSpecial(id)) continue;
    tokens.push_back(tokenText(id));
  }
  std::string text;
  if (m_parts.decoder) {
    m_parts.decoder->decodeChain(tokens);
    for (const std::string& t : tokens) text += t;
    return text;
  }
  for (size_t i = 0; i < tokens.size(); ++i) text += (i == 0 ? "" : " ") + tokens[i];
  return text;
}

int64_t BpeTokenizer::vocabSize() const {
  return std::max(m_parts.model->vocabulary().idLimit(), m_parts.addedTokens.idLimit());
}

std::optional<int32_t> findToken(const BpeTokenizerParts& parts, std::string_view token) {
  if (const AddedToken* added = parts.addedTokens.byContent(token)) return added->id;
  return parts.model->vocabulary().find(token);
}

std::optional<int32_t> BpeTokenizer::tokenId(std::string_view token) const {
  return findToken(m_parts, token);
}

std::string BpeTokenizer::tokenText(int32_t id) const {
  if (const AddedToken* added = m_parts.addedTokens.byId(id)) return added->content;
  if (const std::string* text = m_parts.model->vocabulary().text(id)) return *text;
  throw std::out_of_range("token id " + std::to_string(id) + " is not in the vocabulary (size " +
                          std::to_string(vocabSize()) + ")");
}

bool BpeTokenizer::isSpecial(int32_t id) const {
  const AddedToken* added = m_parts.addedTokens.byId(id);
  return added != nullptr && added->special;
}

}  // namespace strata::tokenizer
