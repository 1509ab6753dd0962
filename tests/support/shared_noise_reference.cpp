#include "support/shared_noise_reference.h"

#include <ATen/CPUGeneratorImpl.h>

namespace strata::testing {

namespace {

uint64_t splitMix64Finaliser(uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

torch::Tensor referenceWindowUniforms(uint64_t seed, int64_t window, int64_t length) {
  const uint64_t mixed = splitMix64Finaliser(splitMix64Finaliser(seed) ^
                                             splitMix64Finaliser(static_cast<uint64_t>(window)));
  at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(mixed);
  return torch::rand({length}, generator, torch::kFloat);
}

model::DcdmTransformerConfig tinyDenoiserConfig(const std::string& variant, int64_t vocab,
                                                int64_t blockSize) {
  model::DcdmTransformerConfig config;
  config.vocab = vocab;
  config.dim = 16;
  config.layers = 1;
  config.heads = 2;
  config.mlp = 32;
  config.maxPositions = 64;
  config.variant = model::parseDlmVariant(variant);
  config.blockSize = blockSize;
  config.chunks = 4;
  config.subspaceRank = 2;
  return config;
}

}  // namespace strata::testing
