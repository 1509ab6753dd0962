// Reading llama2.c's tokenizer.bin (see llama2c_vocabulary.h).

#include "tokenizer/llama2c_vocabulary.h"

#include <cstring>

#include "common/error.h"
#include "common/text_file.h"

namespace strata::tokenizer {

namespace {

// <unk> = 0, <s> = 1, </s> = 2 (llama2.c's run.c and tokenizer.py).
constexpr size_t kSpecialTokens = 3;

// Reads a little-endian int32 / float32 at `offset`, advancing it; false past the end.
template <typename T>
bool readValue(const std::string& data, size_t& offset, T& value) {
  if (data.size() - offset < sizeof value) return false;
  std::memcpy(&value, data.data() + offset, sizeof value);
  offset += sizeof value;
  return true;
}

}  // namespace

Llama2cVocabulary readLlama2cVocabulary(const std::filesystem::path& file) {
  const std::string data = readWholeFile(file);
  Llama2cVocabulary vocabulary;
  size_t offset = 0;
  if (!readValue(data, offset, vocabulary.maxTokenLength) || vocabulary.maxTokenLength <= 0)
    throw FormatError(file, "expected a positive int32 max_token_length", "header", "field");
  while (offset < data.size()) {
    const std::string where = std::to_string(vocabulary.pieces.size());
    float score = 0;
    int32_t length = 0;
    if (!readValue(data, offset, score) || !readValue(data, offset, length))
      throw FormatError(file, "truncated score or length", where, "token");
    if (length < 0 || static_cast<size_t>(length) > data.size() - offset)
      throw FormatError(
          file, "length " + std::to_string(length) + " is negative or past the end of the file",
          where, "token");
    vocabulary.pieces.emplace_back(data, offset, static_cast<size_t>(length));
    vocabulary.scores.push_back(score);
    offset += static_cast<size_t>(length);
  }
  if (vocabulary.pieces.size() < kSpecialTokens)
    throw FormatError(file, "has " + std::to_string(vocabulary.pieces.size()) +
                                " tokens; llama2.c needs at least <unk>, <s> and </s>");
  return vocabulary;
}

}  // namespace strata::tokenizer
