// What the blocks of every architecture share (see blocks.h).

#include "model/backbone/blocks.h"

#include <cstddef>

#include "common/error.h"
#include "io/arch/architecture_list.h"
#include "io/arch/architecture_spec.h"
#include "model/backbone/norms.h"
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
  // As GPTNeoXAttention: rotary_ndims = int(head_size * rotary_pct); 1 (all of it) elsewhere.
  const auto rotary =
      static_cast<int64_t>(static_cast<double>(config.headDim) * config.rotaryFraction);
  if (rotary <= 0 || rotary % 2 != 0)
    throw ConfigError(file, "rotary_pct",
                      "rotates " + std::to_string(rotary) + " of " +
                          std::to_string(config.headDim) +
                          " head dimensions; the count must be even and positive");
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
  using BlockFunction =
      at::Tensor (*)(const BlockWeights&, const at::Tensor&, const BlockContext&, int64_t);
  // Indexed by io::Architecture, which is generated from the same list in the same order.
#define STRATA_BLOCK_OF(name, block) &block,
  static constexpr BlockFunction kBlocks[] = {STRATA_ARCHITECTURES(STRATA_BLOCK_OF)};
#undef STRATA_BLOCK_OF
  return kBlocks[static_cast<std::size_t>(context.config->architecture)](w, hidden, context, layer);
}

at::Tensor finalNormOf(const io::ModelConfig& config, const at::Tensor& hidden,
                       const at::Tensor& weight, const at::Tensor& bias) {
  if (bias.defined()) return layerNorm(hidden, weight, bias, config.normEps);
  if (io::architectureSpec(config.architecture).unitOffsetNorms)
    return gemmaRmsNorm(hidden, weight, config.normEps);
  return rmsNorm(hidden, weight, config.normEps);
}

}  // namespace strata::model
