// llama2.c's tokenizer.bin and its encode/decode (karpathy/llama2.c run.c), reproduced
// exactly: a " " dummy prefix, one symbol per UTF-8 character (or its bytes as <0xNN> tokens at
// id byte + 3), then repeatedly the adjacent pair whose concatenation is the vocabulary piece
// with the best score, leftmost on ties. run.c rescans the whole list after every merge; the
// same choice is made here with a pair table and a priority queue (bpe_merge.h).

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "common/error.h"
#include "tokenizer/bpe_merge.h"
#include "tokenizer/decoder.h"
#include "tokenizer/llama2c_vocabulary.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8_text.h"
#include "tokenizer/vocabulary.h"

namespace strata::tokenizer {

namespace {

// Fixed by run.c: BOS = 1, EOS = 2, and <0x00>..<0xFF> at ids 3..258.
constexpr int32_t kUnk = 0;
constexpr int32_t kBos = 1;
constexpr int32_t kEos = 2;
constexpr int32_t kByteOffset = 3;

class Llama2cTokenizer : public Tokenizer {
 public:
  Llama2cTokenizer(std::vector<std::string> pieces, const std::vector<float>& scores);

  std::vector<int32_t> encode(std::string_view text, bool addSpecialTokens) const override;
  std::string decode(std::span<const int32_t> ids, bool skipSpecialTokens) const override;
  int64_t vocabSize() const override { return static_cast<int64_t>(m_pieces.size()); }
  std::optional<int32_t> tokenId(std::string_view token) const override;
  std::string tokenText(int32_t id) const override;
  bool isSpecial(int32_t id) const override { return id == kUnk || id == kBos || id == kEos; }
  std::string kind() const override { return "llama2.c tokenizer.bin"; }

 private:
  const std::string& piece(int32_t id) const;

  std::vector<std::string> m_pieces;  // as stored: export.py wrote "▁" as " ", BOS as "\n<s>\n"
  std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>> m_ids;
  PairMergeTable m_merges;
};

Llama2cTokenizer::Llama2cTokenizer(std::vector<std::string> pieces,
                                   const std::vector<float>& scores)
    : m_pieces(std::move(pieces)) {
  m_special.unk = kUnk;
  m_special.bos = kBos;
  m_special.eos = kEos;
  m_ids.reserve(m_pieces.size());
  // run.c finds pieces by bsearch; with duplicate pieces which one it finds is unspecified.
  // Here the first one wins.
  for (size_t i = 0; i < m_pieces.size(); ++i) m_ids.emplace(m_pieces[i], static_cast<int32_t>(i));
  // Scores → dense ranks (best score = 0, equal scores share a rank) so that ties are broken
  // by position, as run.c's strict '>' does.
  std::vector<float> distinct;
  for (const float s : scores)
    if (s > -1e10f) distinct.push_back(s);  // run.c's best_score starts at -1e10
  std::sort(distinct.begin(), distinct.end(), std::greater<>());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  for (size_t i = 0; i < m_pieces.size(); ++i) {
    if (!(scores[i] > -1e10f)) continue;
    const auto rank = static_cast<int32_t>(
        std::lower_bound(distinct.begin(), distinct.end(), scores[i], std::greater<>()) -
        distinct.begin());
    const std::string_view text = m_pieces[i];
    for (size_t cut = 1; cut < text.size(); ++cut) {
      const auto left = m_ids.find(text.substr(0, cut));
      const auto right = m_ids.find(text.substr(cut));
      if (left != m_ids.end() && right != m_ids.end())
        m_merges.insertIfAbsent(left->second, right->second, {rank, m_ids.at(m_pieces[i])});
    }
  }
}

std::vector<int32_t> Llama2cTokenizer::encode(std::string_view text, bool addSpecialTokens) const {
  std::vector<int32_t> ids;
  ids.reserve(text.size() + 2);
  if (addSpecialTokens) ids.push_back(kBos);  // run.c encode(bos=1): BOS takes part in merging
  if (!text.empty())
    if (const auto space = m_ids.find(" "); space != m_ids.end()) ids.push_back(space->second);
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    // Collect a code point's bytes (at most 4), then look it up as one symbol.
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) start = i;
    const bool continuationNext =
        i + 1 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xC0) == 0x80;
    if (continuationNext && i + 1 - start < 4) continue;
    const std::string_view symbol = text.substr(start, i + 1 - start);
    if (const auto it = m_ids.find(symbol); it != m_ids.end()) {
      ids.push_back(it->second);
    } else {
      for (const char byte : symbol) ids.push_back(static_cast<unsigned char>(byte) + kByteOffset);
    }
    start = i + 1;
  }
  mergePairs(ids, m_merges);
  return ids;
}

std::string Llama2cTokenizer::decode(std::span<const int32_t> ids, bool skipSpecialTokens) const {
  std::string text;
  // run.c strips the space of a piece that follows BOS; the start of the output counts as such,
  // as in SentencePiece, so that decode(encode(s)) == s without a BOS.
  bool afterBos = true;
  for (const int32_t id : ids) {
    const bool wasAfterBos = afterBos;
    afterBos = id == kBos;
    if (isSpecial(id)) {
      if (!skipSpecialTokens) text += tokenText(id);
      continue;
    }
    std::string_view p = piece(id);
    if (wasAfterBos && p.starts_with(' ')) p.remove_prefix(1);
    const int byte = byteFallbackValue(p);
    if (byte >= 0)
      text += static_cast<char>(byte);
    else
      text += p;
  }
  return text;
}

const std::string& Llama2cTokenizer::piece(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= m_pieces.size())
    throw std::out_of_range("token id " + std::to_string(id) + " is not in the vocabulary (size " +
                            std::to_string(m_pieces.size()) + ")");
  return m_pieces[id];
}

// The control pieces are shown as SentencePiece names them, without export.py's newlines.
std::string Llama2cTokenizer::tokenText(int32_t id) const {
  if (id == kBos) return "<s>";
  if (id == kEos) return "</s>";
  return piece(id);
}

std::optional<int32_t> Llama2cTokenizer::tokenId(std::string_view token) const {
  if (token == "<s>") return kBos;
  if (token == "</s>") return kEos;
  const auto it = m_ids.find(token);
  return it == m_ids.end() ? std::nullopt : std::optional<int32_t>(it->second);
}

std::string hexByte(int b) {
  const char* digits = "0123456789ABCDEF";
  return {digits[b >> 4], digits[b & 15]};
}

}  // namespace

std::unique_ptr<Tokenizer> loadLlama2cTokenizer(const std::filesystem::path& file) {
  Llama2cVocabulary vocabulary = readLlama2cVocabulary(file);
  std::vector<std::string>& pieces = vocabulary.pieces;
  if (pieces.size() < static_cast<size_t>(kByteOffset + 256))
    throw FormatError(file, "has " + std::to_string(pieces.size()) +
                                " tokens; llama2.c needs <unk>, <s>, </s> and the 256 byte tokens");
  for (int b = 0; b < 256; ++b)
    if (byteFallbackValue(pieces[kByteOffset + b]) != b)
      throw FormatError(file, "expected the byte token <0x" + hexByte(b) + ">",
                        std::to_string(kByteOffset + b), "token");
  return std::make_unique<Llama2cTokenizer>(std::move(pieces), vocabulary.scores);
}

}  // namespace strata::tokenizer
