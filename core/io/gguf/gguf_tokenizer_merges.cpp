// Merge rules derived from a vocabulary, as transformers does for a GGUF that stores none
// (SentencePiece vocabularies: Llama-2, Mistral, Gemma): tokenization_utils_base.py
// generate_merges. A token that is the concatenation of two other tokens is reachable by a
// merge of those two; the token's score (or, for Gemma, its position) ranks the merge.

#include <algorithm>

#include "io/gguf/gguf_tokenizer_parts.h"
#include "tokenizer/utf8_text.h"

namespace strata::io::gguf_tokenizer {

TokenIds indexTokens(const std::vector<std::string>& tokens) {
  TokenIds ids;
  ids.reserve(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) ids[tokens[i]] = static_cast<int32_t>(i);
  return ids;
}

std::vector<std::pair<std::string, double>> pythonDict(const std::vector<std::string>& keys,
                                                       const std::vector<double>& values) {
  std::vector<std::pair<std::string, double>> items;
  items.reserve(keys.size());
  std::unordered_map<std::string_view, size_t> position;
  position.reserve(keys.size());
  for (size_t i = 0; i < keys.size() && i < values.size(); ++i) {
    const auto [it, inserted] = position.try_emplace(keys[i], items.size());
    if (inserted)
      items.emplace_back(keys[i], values[i]);
    else
      items[it->second].second = values[i];  // a repeated key keeps its place, takes the value
  }
  return items;
}

bool isPythonSpace(int32_t cp) {
  return tokenizer::utf8::isWhitespace(cp) || (cp >= 0x1C && cp <= 0x1F);
}

size_t codePointCount(std::string_view text) {
  size_t count = 0;
  for (size_t pos = 0; pos < text.size(); pos += tokenizer::utf8::sequenceLength(text, pos))
    ++count;
  return count;
}

std::vector<Merge> mergesFromScores(const TokenIds& vocab,
                                    const std::vector<std::pair<std::string, double>>& scored) {
  struct Candidate {
    size_t token;                      // index into `scored`
    uint32_t split;                    // byte offset of the split
    uint32_t leftLength, rightLength;  // in code points (Python's len)
    int32_t leftId, rightId;
  };
  std::vector<Candidate> candidates;
  std::vector<Candidate> local;
  std::vector<size_t> boundaries;
  for (size_t t = 0; t < scored.size(); ++t) {
    const std::string_view token = scored[t].first;
    boundaries.clear();
    for (size_t pos = 0; pos < token.size(); pos += tokenizer::utf8::sequenceLength(token, pos))
      boundaries.push_back(pos);
    const auto length = static_cast<uint32_t>(boundaries.size());
    local.clear();
    thread_local std::string part;
    for (uint32_t i = 1; i < length; ++i) {
      part.assign(token.substr(0, boundaries[i]));
      const auto left = vocab.find(part);
      if (left == vocab.end()) continue;
      part.assign(token.substr(boundaries[i]));
      const auto right = vocab.find(part);
      if (right == vocab.end()) continue;
      local.push_back(
          {t, static_cast<uint32_t>(boundaries[i]), i, length - i, left->second, right->second});
    }
    // The splits of one token by (left id, right id); distinct splits have distinct left parts,
    // so the key is unique and the order total.
    std::sort(local.begin(), local.end(), [](const Candidate& a, const Candidate& b) {
      return a.leftId != b.leftId ? a.leftId < b.leftId : a.rightId < b.rightId;
    });
    candidates.insert(candidates.end(), local.begin(), local.end());
  }
  // Python's sorted(..., reverse=True) is stable: equal keys keep their order.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&scored](const Candidate& a, const Candidate& b) {
                     const double sa = scored[a.token].second, sb = scored[b.token].second;
                     if (sa != sb) return sa > sb;
                     if (a.leftLength != b.leftLength) return a.leftLength > b.leftLength;
                     return a.rightLength > b.rightLength;
                   });
  std::vector<Merge> merges;
  merges.reserve(candidates.size());
  for (const Candidate& c : candidates) {
    const std::string& token = scored[c.token].first;
    merges.emplace_back(token.substr(0, c.split), token.substr(c.split));
  }
  return merges;
}

}  // namespace strata::io::gguf_tokenizer
