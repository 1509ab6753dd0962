// libFuzzer target: llama2.c model.bin reading (legacy v0, version 1 float32, version 2 Q8_0):
// header validation, the size the header implies, dequantisation. Links LibTorch (the weights
// are at::Tensor), uninstrumented.

#include <cstddef>
#include <cstdint>
#include <exception>

#include "fuzz_input_file.h"
#include "model/backbone/llama2c_checkpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = strata::fuzz::writeInput("model.bin", data, size);
  try {
    (void)strata::model::readLlama2cCheckpoint(path);
  } catch (const std::exception&) {
  }
  return 0;
}
