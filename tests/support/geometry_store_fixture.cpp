#include "support/geometry_store_fixture.h"

#include <cmath>
#include <random>

#include "io/store/activation_store.h"

namespace strata::testing {

std::vector<float> geometryFixtureLayer(const GeometryStoreShape& shape, int64_t layer) {
  std::mt19937 rng(uint32_t(1000 + layer));
  std::normal_distribution<float> normal;
  std::vector<float> rows(size_t(shape.tokens * shape.hidden));
  for (int64_t r = 0; r < shape.tokens; ++r)
    for (int64_t c = 0; c < shape.hidden; ++c)
      rows[size_t(r * shape.hidden + c)] =
          normal(rng) * std::exp(-float(c) * (0.1f + 0.15f * float(layer)));
  return rows;
}

void writeGeometryFixtureStore(const std::filesystem::path& file, const GeometryStoreShape& shape) {
  io::StoreMeta meta;
  meta.modelId = "strata/geometry-fixture";
  meta.architecture = "LlamaForCausalLM";
  meta.hiddenSize = shape.hidden;
  meta.numLayers = shape.layers;
  meta.dtype = io::StoreDType::Float32;
  meta.corpusHash = "sha256:fixture";
  meta.samplingPolicy = "{}";
  io::TokenTable tokens;
  for (int64_t i = 0; i < shape.tokens; ++i) {
    tokens.ids.push_back(int32_t(i % 50));
    tokens.doc.push_back(int32_t(i / 40));
    tokens.position.push_back(int32_t(1 + i % 40));
  }
  auto writer = io::ActivationStoreWriter::create(file, meta, tokens);
  for (int64_t l = 0; l <= shape.layers; ++l) writer.writeLayer(l, geometryFixtureLayer(shape, l));
  writer.close();
}

}  // namespace strata::testing
