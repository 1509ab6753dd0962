// libFuzzer target: config.json parsing (every supported architecture, rope_scaling,
// eos lists, head_dim, ...).

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "io/hf/hf_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)strata::io::parseModelConfig(std::string(reinterpret_cast<const char*>(data), size),
                                       "config.json");
  } catch (const std::exception&) {
  }
  return 0;
}
