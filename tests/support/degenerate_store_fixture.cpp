#include "support/degenerate_store_fixture.h"

#include <cmath>
#include <limits>
#include <random>

#include "io/store/activation_store.h"

namespace strata::testing {

std::vector<float> gaussianCloud(uint32_t seed, float decay) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> rows(size_t(kDegenerateTokens * kDegenerateHidden));
  for (int64_t r = 0; r < kDegenerateTokens; ++r)
    for (int64_t c = 0; c < kDegenerateHidden; ++c)
      rows[size_t(r * kDegenerateHidden + c)] = normal(rng) * std::exp(-decay * float(c));
  return rows;
}

std::vector<float> degenerateLayer(int64_t layer) {
  const int64_t d = kDegenerateHidden;
  switch (layer) {
    case 0: {
      std::vector<float> rows = gaussianCloud(7, 0.1f);
      for (int64_t r = 0; r < 150; ++r)  // five points 100 apart, far from the cloud
        for (int64_t c = 0; c < d; ++c)
          rows[size_t(r * d + c)] = c == 0 ? 100.0f * float(1 + r % 5) : 0.0f;
      return rows;
    }
    case 2:
      return std::vector<float>(size_t(kDegenerateTokens * d), 3.0f);
    case 3: {
      std::vector<float> rows = gaussianCloud(11, 0.3f);
      for (float& x : rows) x *= 1e30f;
      return rows;
    }
    case 4: {
      std::vector<float> rows = gaussianCloud(13, 0.2f);
      rows[5] = std::numeric_limits<float>::quiet_NaN();
      rows[size_t(17 * d + 2)] = std::numeric_limits<float>::infinity();
      return rows;
    }
    default:
      return gaussianCloud(uint32_t(100 + layer), 0.1f + 0.15f * float(layer));
  }
}

void writeDegenerateStore(const std::filesystem::path& file) {
  io::StoreMeta meta;
  meta.modelId = "strata/degenerate-fixture";
  meta.architecture = "LlamaForCausalLM";
  meta.hiddenSize = kDegenerateHidden;
  meta.numLayers = kDegenerateLayers;
  meta.dtype = io::StoreDType::Float32;
  meta.corpusHash = "sha256:fixture";
  meta.samplingPolicy = "{}";
  io::TokenTable tokens;
  for (int64_t i = 0; i < kDegenerateTokens; ++i) {
    tokens.ids.push_back(int32_t(i % 50));
    tokens.doc.push_back(int32_t(i / 40));
    tokens.position.push_back(int32_t(1 + i % 40));
  }
  auto writer = io::ActivationStoreWriter::create(file, meta, tokens);
  for (int64_t l = 0; l <= kDegenerateLayers; ++l) writer.writeLayer(l, degenerateLayer(l));
  writer.close();
}

}  // namespace strata::testing
