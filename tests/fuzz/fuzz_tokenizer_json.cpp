// libFuzzer target: the tokenizer.json loader. A tokenizer that loads is also asked to encode
// and decode a fixed text, so that whatever the loader accepted is exercised once.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <vector>

#include "fuzz_input_file.h"
#include "tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = strata::fuzz::writeInput("tokenizer.json", data, size);
  try {
    const auto tokenizer = strata::tokenizer::loadTokenizerJson(path);
    const std::vector<int32_t> ids =
        tokenizer->encode("Hello world! <s> caf\xc3\xa9 \xff 123  \n", true);
    (void)tokenizer->decode(ids);
    (void)tokenizer->decode(ids, true);
    for (const int32_t id : ids) (void)tokenizer->tokenText(id);
  } catch (const std::exception&) {
  }
  return 0;
}
