// What the blocks of every architecture share (see blocks.h).

#include "model/backbone/blocks.h"

#include "common/error.h"
#include "model/backbone/rope.h"

namespace strata::model {

Activation blockActivation(const io::ModelConfig& config, const std::filesystem::path& file) {
  if (const auto activation = activationNamed(config.hiddenAct)) return *activation;
  throw ConfigError(file, config.hiddenActField,
                    "activation '" + config.hiddenAct +
                        "' is not supported (supported: silu, gelu, gelu_new, gelu_pytorch_tanh, "
                        "gelu_fast, relu)");
}

at::Tensor rotaryInverseFrequencies(const io::ModelConfig& config,
                                    const std::filesystem::path& file) {
  if (config.positionEncoding != io::PositionEncoding::Rotary) return {};
  if (config.ropeScaling && !ropeScalingSupported(config.ropeScaling->type))
    throw ConfigError(
        file, "rope_scaling",
        "type '" + config.ropeScaling->type + "' is not supported (supported: linear, llama3)");
  int64_t rotary = config.headDim;
  if (config.architecture == io::Architecture::GptNeoX) {
    // As GPTNeoXAttention: rotary_ndims = int(head_size * rotary_pct).
    rotary = static_cast<int64_t>(static_cast<double>(config.headDim) * config.rotaryFraction);
    if (rotary <= 0 || rotary % 2 != 0)
      throw ConfigError(file, "rotary_pct",
                        "rotates " + std::to_string(rotary) + " of " +
                            std::to_string(config.headDim) +
                            " head dimensions; the count must be even and positive");
  }
  return ropeInverseFrequencies(rotary, config.ropeTheta, config.ropeScaling);
}

SlidingWindow slidingWindowOf(const io::ModelConfig& config, const std::filesystem::path& file) {
  if (config.slidingWindow <= 0) return {};
  if (config.localRopeScaling && !ropeScalingSupported(config.localRopeScaling->type))
    throw ConfigError(file, "rope_parameters.sliding_attention",
                      "type '" + config.localRopeScaling->type +
                          "' is not supported (supported: linear, llama3)");
  return {config.slidingWindow,
          ropeInverseFrequencies(config.headDim, config.localRopeTheta, config.localRopeScaling)};
}

at::Tensor runBlock(const BlockWeights& w, const at::Tensor& hidden, const BlockContext& context,
                    int64_t layer) {
  switch (context.config->architecture) {
    case io::Architecture::Llama:
    case io::Architecture::Qwen2:
    case io::Architecture::Qwen3:
      return llamaBlock(w, hidden, context);
    case io::Architecture::Gpt2:
      return gpt2Block(w, hidden, context);
    case io::Architecture::GptNeoX:
      return neoxBlock(w, hidden, context);
    case io::Architecture::Gemma3:
      return gemma3Block(w, hidden, context, layer);
  }
  throw std::logic_error("runBlock: unknown architecture");
}

}  // namespace strata::model
