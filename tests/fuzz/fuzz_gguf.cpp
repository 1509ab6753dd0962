// libFuzzer target: the GGUF reader (header, metadata of every type, tensor infos, offsets),
// then everything Strata derives from a GGUF file without writing: every typed metadata read,
// the model plan (config.json and tensor names), the tokenizer files, and the dequantisation of
// every tensor.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <vector>

#include "fuzz_input_file.h"
#include "io/gguf/gguf_dequantize.h"
#include "io/gguf/gguf_file.h"
#include "io/gguf/gguf_model_plan.h"
#include "io/gguf/gguf_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strata;
  const auto path = fuzz::writeInput("model.gguf", data, size);
  try {
    const io::GgufFile gguf(path);
    for (const auto& [key, value] : gguf.metadata()) {
      // Each typed read either returns or throws FormatError; none may crash.
      for (auto read :
           {+[](const io::GgufFile&g, const std::string&k) { (void)g.string(k); },
            +[](const io::GgufFile&g, const std::string&k) { (void)g.integer(k); },
            +[](const io::GgufFile&g, const std::string&k) { (void)g.number(k); },
            +[](const io::GgufFile&g, const std::string&k) { (void)g.stringArray(k); },
            +[](const io::GgufFile&g, const std::string&k) { (void)g.numberArray(k); },
            +[](const io::GgufFile&g, const std::string&k) { (void)g.integerArray(k); }}) {
        try {
          read(gguf, key);
        } catch (const std::exception&) {
        }
      }
    }
    for (const io::GgufTensorInfo& t : gguf.tensors()) {
      if (t.elementCount > (int64_t{1} << 20)) continue;  // keep each run fast
      std::vector<float> out(static_cast<size_t>(t.elementCount));
      try {
        io::dequantizeGgml(t.typeId, gguf.tensorData(t), out, path, t.name, 1);
      } catch (const std::exception&) {
      }
    }
    try {
      (void)io::planGgufModel(gguf);
    } catch (const std::exception&) {
    }
    try {
      (void)io::ggufTokenizerFiles(gguf);
    } catch (const std::exception&) {
    }
  } catch (const std::exception&) {
  }
  return 0;
}
