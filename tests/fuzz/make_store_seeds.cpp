// Writes the seed corpus of fuzz_activation_store: tiny activation stores made by the real
// writer (float16 and float32, finished and one left with a layer missing).
// Usage: make_store_seeds <output folder>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <vector>

#include "io/store/activation_store.h"

namespace {

void writeStore(const std::filesystem::path& file, strata::io::StoreDType dtype, bool finish) {
  strata::io::StoreMeta meta;
  meta.modelId = "fuzz/tiny";
  meta.architecture = "LlamaForCausalLM";
  meta.hiddenSize = 4;
  meta.numLayers = 2;
  meta.dtype = dtype;
  meta.corpusHash = "sha256:00";
  meta.samplingPolicy = R"({"policy":"uniform"})";
  meta.extra["note"] = "seed";
  strata::io::TokenTable tokens;
  for (int32_t i = 0; i < 3; ++i) {
    tokens.ids.push_back(10 + i);
    tokens.doc.push_back(0);
    tokens.position.push_back(i);
  }
  auto writer = strata::io::ActivationStoreWriter::create(file, meta, tokens, true);
  std::vector<float> rows(3 * 4);
  for (int64_t layer = 0; layer <= meta.numLayers; ++layer) {
    if (!finish && layer == meta.numLayers) break;
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = 0.25f * static_cast<float>(i) - layer;
    writer.writeLayer(layer, rows);
  }
  writer.close();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output folder>\n", argv[0]);
    return 2;
  }
  try {
    const std::filesystem::path out = argv[1];
    std::filesystem::create_directories(out);
    writeStore(out / "float16.h5", strata::io::StoreDType::Float16, true);
    writeStore(out / "float32.h5", strata::io::StoreDType::Float32, true);
    writeStore(out / "float16-partial.h5", strata::io::StoreDType::Float16, false);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
