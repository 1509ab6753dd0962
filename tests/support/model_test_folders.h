#pragma once
// Tiny random Hugging Face folders (config.json + safetensors) of each supported architecture,
// written by C++ alone, for Backbone tests that check behaviour rather than numbers (the
// numbers are checked against tests/python/hf_model_reference.py, i.e. transformers itself).

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "io/hf/hf_config.h"

namespace strata::testing {

/** Layers, width and vocabulary of every folder writeRandomBackbone writes. */
constexpr int64_t kRandomLayers = 3;
constexpr int64_t kRandomHidden = 16;
constexpr int64_t kRandomVocab = 40;  ///< the default vocabulary

struct RandomBackboneSpec {
  io::Architecture architecture = io::Architecture::Llama;
  uint64_t seed = 7;
  at::ScalarType dtype = at::kFloat;  ///< storage dtype of the weights
  uint64_t maxShardBytes = 0;         ///< > 0: sharded, with model.safetensors.index.json
  std::string dropTensor = {};        ///< leave this tensor out
  std::string extraTensor = {};       ///< add a small tensor no architecture reads
  std::string transposeTensor = {};   ///< store this matrix transposed (a wrong shape)
  int64_t vocab = kRandomVocab;       ///< vocab_size (258 fits the byte tokenizer)
  std::string nanTensor = {};         ///< this tensor's first value is NaN
};

/** Writes `folder` (created if needed). Llama: GQA 4/2 heads; GPT-2: transformer. prefix;
 *  GPT-NeoX: rotary_pct 0.5, parallel residual. Same seed, same weights. */
void writeRandomBackbone(const std::filesystem::path& folder, const RandomBackboneSpec& spec = {});

}  // namespace strata::testing
