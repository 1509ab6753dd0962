#include "tokenizer/bpe_model.h"

#include <cstdio>
#include <mutex>
#include <stdexcept>

#include "tokenizer/utf8_text.h"

namespace strata::tokenizer {

namespace {

constexpr int32_t kNoToken = -1;
constexpr char32_t kSmallCodepointLimit = 0x800;  // code points with 1- or 2-byte UTF-8

}  // namespace

BpeModel::BpeModel(Vocabulary vocabulary, PairMergeTable merges, BpeOptions options)
    : m_vocabulary(std::move(vocabulary)),
      m_merges(std::move(merges)),
      m_options(std::move(options)) {
  if (m_options.unkToken) {
    m_unkId = m_vocabulary.find(*m_options.unkToken);
    if (!m_unkId)
      throw std::invalid_argument("unknown token '" + *m_options.unkToken +
                                  "' is not in the vocabulary");
  }
  // HF spells byte-fallback tokens with format!("<{b:#04X}>"): "<0x0A>", upper-case digits.
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    m_byteTokens[b] = m_vocabulary.find(name).value_or(kNoToken);
  }
  // Direct table for the common case: byte-level vocabularies use code points below U+0144.
  m_smallCodepoints.assign(kSmallCodepointLimit, kNoToken);
  for (char32_t cp = 0; cp < kSmallCodepointLimit; ++cp)
    m_smallCodepoints[cp] = m_vocabulary.find(utf8::encode(cp)).value_or(kNoToken);
}

void BpeModel::encode(std::string_view piece, std::vector<int32_t>& out) const {
  if (piece.empty()) return;
  if (m_options.ignoreMerges)
    if (const auto id = m_vocabulary.find(piece)) {
      out.push_back(*id);
      return;
    }
  const bool cacheable = piece.size() <= kMaxCachedLength;
  if (cacheable) {
    std::shared_lock lock(m_cacheMutex);
    if (const auto it = m_cache.find(piece); it != m_cache.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  const size_t first = out.size();
  encodeUncached(piece, out);
  if (cacheable) {
    std::unique_lock lock(m_cacheMutex);
    // Like HF's cache, stop inserting when full rather than evict.
    if (m_cache.size() < kCacheCapacity)
      m_cache.try_emplace(std::string(piece), out.begin() + static_cast<ptrdiff_t>(first),
                          out.end());
  }
}

void BpeModel::encodeUncached(std::string_view piece, std::vector<int32_t>& out) const {
  thread_local std::vector<int32_t> symbols;
  symbols.clear();
  initialSymbols(piece, symbols);
  mergePairs(symbols, m_merges);
  out.insert(out.end(), symbols.begin(), symbols.end());
}

int32_t BpeModel::lookUpSymbol(std::string_view piece, size_t pos, size_t length) const {
  const bool first = pos == 0;
  const bool last = pos + length == piece.size();
  const bool affixed = (!first && !m_options.continuingSubwordPrefix.empty()) ||
                       (last && !m_options.endOfWordSuffix.empty());
  if (!affixed) {
    if (length <= 2) {
      const int32_t cp = utf8::decodeAt(piece, pos);
      if (cp >= 0) return m_smallCodepoints[static_cast<size_t>(cp)];
    }
    return m_vocabulary.find(piece.substr(pos, length)).value_or(kNoToken);
  }
  std::string symbol = first ? std::string() : m_options.continuingSubwordPrefix;
  symbol.append(piece.substr(pos, length));
  if (last) symbol += m_options.endOfWordSuffix;
  return m_vocabulary.find(symbol).value_or(kNoToken);
}

void BpeModel::initialSymbols(std::string_view piece, std::vector<int32_t>& symbols) const {
  // Follows HF BPE::merge_word: a pending unknown is held back so that fuse_unk can grow it.
  int32_t pendingUnk = kNoToken;
  for (size_t pos = 0; pos < piece.size();) {
    const size_t length = utf8::sequenceLength(piece, pos);
    const int32_t id = lookUpSymbol(piece, pos, length);
    if (id != kNoToken) {
      if (pendingUnk != kNoToken) symbols.push_back(pendingUnk);
      pendingUnk = kNoToken;
      symbols.push_back(id);
      pos += length;
      continue;
    }
    if (m_options.byteFallback) {
      bool allBytes = true;
      for (size_t i = 0; i < length; ++i)
        allBytes = allBytes && m_byteTokens[static_cast<uint8_t>(piece[pos + i])] != kNoToken;
      if (allBytes) {
        // HF appends the bytes before a still pending unknown; flushing it first keeps order.
        if (pendingUnk != kNoToken) symbols.push_back(pendingUnk);
        pendingUnk = kNoToken;
        for (size_t i = 0; i < length; ++i)
          symbols.push_back(m_byteTokens[static_cast<uint8_t>(piece[pos + i])]);
        pos += length;
        continue;
      }
    }
    if (m_unkId) {
      if (pendingUnk != kNoToken && !m_options.fuseUnk) symbols.push_back(pendingUnk);
      pendingUnk = *m_unkId;
    }
    pos += length;
  }
  if (pendingUnk != kNoToken) symbols.push_back(pendingUnk);
}

std::optional<std::string> addMergeRule(PairMergeTable& table, const Vocabulary& vocabulary,
                                        std::string_view left, std::string_view right, int32_t rank,
                                        std::string_view continuingSubwordPrefix) {
  std::string merged(left);
  merged += right.starts_with(continuingSubwordPrefix)
                ? right.substr(continuingSubwordPrefix.size())
                : right;
  const auto leftId = vocabulary.find(left);
  if (!leftId) return std::string(left);
  const auto rightId = vocabulary.find(right);
  if (!rightId) return std::string(right);
  const auto mergedId = vocabulary.find(merged);
  if (!mergedId) return merged;
  table.insertOrAssign(*leftId, *rightId, {rank, *mergedId});
  return std::nullopt;
}

}  // namespace strata::tokenizer
