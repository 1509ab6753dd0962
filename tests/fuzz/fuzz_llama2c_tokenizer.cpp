// libFuzzer target: llama2.c tokenizer.bin loading (int32 max_token_length, then per token a
// float score, an int32 length and the bytes), plus one encode/decode of a fixed text.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <vector>

#include "fuzz_input_file.h"
#include "tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = strata::fuzz::writeInput("tokenizer.bin", data, size);
  try {
    const auto tokenizer = strata::tokenizer::loadLlama2cTokenizer(path);
    const std::vector<int32_t> ids = tokenizer->encode("Once upon a time, caf\xc3\xa9 \xff", true);
    (void)tokenizer->decode(ids);
  } catch (const std::exception&) {
  }
  return 0;
}
