// libFuzzer target: the safetensors reader (header validation, offsets, metadata), both from
// bytes in memory and from a file (readSafetensorsHeader, SafetensorsFile::open).

#include <cstddef>
#include <cstdint>
#include <exception>
#include <vector>

#include "fuzz_input_file.h"
#include "io/hf/safetensors_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strata;
  try {
    std::vector<std::byte> bytes(reinterpret_cast<const std::byte*>(data),
                                 reinterpret_cast<const std::byte*>(data) + size);
    const auto file = io::SafetensorsFile::fromBytes(std::move(bytes), "fuzz.safetensors");
    // Touch everything a caller may touch: every tensor's bytes, the lookup, the NaN scan.
    for (const io::TensorEntry& entry : file->tensors()) {
      volatile std::byte sink{};
      for (const std::byte b : file->bytes(entry)) sink = b;
      (void)file->at(entry.name).numel();
    }
    (void)io::findNonFiniteTensors(*file);
  } catch (const std::exception&) {
  }
  const auto path = fuzz::writeInput("model.safetensors", data, size);
  try {
    (void)io::readSafetensorsHeader(path);
  } catch (const std::exception&) {
  }
  try {
    (void)io::SafetensorsFile::open(path);
  } catch (const std::exception&) {
  }
  return 0;
}
