#pragma once
// How a bridge run's settings become objects, and the files that let a finished bridge be
// loaded again (generation, the bridgeability sweep): bridge_statistics.safetensors in the run
// folder (mean/std of h_{l*}, condition_mean/condition_std of h_0), the denoiser in its
// checkpoints.

#include <c10/core/Device.h>

#include <filesystem>
#include <memory>

#include "engine/config_schema.h"
#include "model/diffusion/bridge_denoiser.h"
#include "recipes/bridge/bridge_diffusion.h"
#include "recipes/bridge/bridge_source.h"

namespace strata::recipes {

/** ConfigError naming the setting for combinations that cannot work (process=bridge needs
 *  prediction=x0 and condition=embeddings). */
BridgeDiffusion bridgeDiffusionFrom(const engine::ResolvedConfig& config);
model::BridgeDenoiserConfig bridgeDenoiserConfigFrom(const engine::ResolvedConfig& config,
                                                     int64_t hiddenSize);
/** `layer`, or l* of `store` when layer is -1 (ConfigError when there is neither). */
int64_t resolveBridgeLayer(const engine::ResolvedConfig& config);
/** ConfigError unless 0 ≤ layer ≤ numLayers, the hidden states of `model`. */
void checkBridgeLayer(int64_t layer, int64_t numLayers, const std::filesystem::path& model);

void writeBridgeStatistics(const std::filesystem::path& runFolder, const BridgeStatistics& stats);
/** FormatError naming the file when a tensor is missing (a run from before the condition was
 *  standardised has no condition_mean: train it again). */
BridgeStatistics readBridgeStatistics(const std::filesystem::path& runFolder,
                                      const at::Device& device);

/** A trained bridge, ready to sample: its source model, statistics and denoiser (weights of
 *  the best checkpoint, else the newest valid one). */
struct LoadedBridge {
  engine::ResolvedConfig config;
  std::unique_ptr<BridgeSource> source;
  BridgeStatistics statistics;
  BridgeDiffusion diffusion;
  model::BridgeDenoiser denoiser{nullptr};
  int64_t checkpointStep = 0;
};
/** Throws IoError/FormatError naming the run folder when it is not a bridge run or has no
 *  valid checkpoint. */
LoadedBridge loadBridgeRun(const std::filesystem::path& runFolder,
                           const at::Device& device = at::kCPU);

}  // namespace strata::recipes
