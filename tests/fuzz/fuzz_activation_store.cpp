// libFuzzer target: the activation-store reader (HDF5 via libhdf5, which is not instrumented):
// layout validation, the completion flags and reading every completed layer.

#include <cstddef>
#include <cstdint>
#include <exception>

#include "fuzz_input_file.h"
#include "io/store/activation_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = strata::fuzz::writeInput("store.h5", data, size);
  try {
    const strata::io::ActivationStore store = strata::io::ActivationStore::open(path);
    for (const int64_t layer : store.completedLayers()) {
      (void)store.readLayer(layer);
      if (store.numTokens() > 0) (void)store.readRows(layer, 0, 1);
    }
  } catch (const std::exception&) {
  }
  return 0;
}
