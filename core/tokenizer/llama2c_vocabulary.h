#pragma once
// llama2.c's tokenizer.bin as stored, read in one place: the tokenizer (llama2c_tokenizer.cpp)
// encodes with it and the model importer (model/backbone/llama2c_tokenizer_json.h) rewrites it
// as Hugging Face files.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace strata::tokenizer {

/** The contents of a llama2.c tokenizer.bin, as stored. */
struct Llama2cVocabulary {
  int32_t maxTokenLength = 0;
  std::vector<std::string> pieces;  ///< export.py's spelling (" " for "▁", "\n<s>\n", ...)
  std::vector<float> scores;
};

/** Reads tokenizer.bin (int32 max_token_length; per token: float score, int32 length, bytes)
 *  and checks that it holds at least <unk>, <s> and </s>. Throws IoError when unreadable,
 *  FormatError naming the file and the token otherwise. */
Llama2cVocabulary readLlama2cVocabulary(const std::filesystem::path& file);

}  // namespace strata::tokenizer
