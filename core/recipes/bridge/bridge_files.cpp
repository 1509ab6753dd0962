// Bridge settings → objects, and loading a trained bridge (see bridge_files.h).

#include "recipes/bridge/bridge_files.h"

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/text_file.h"
#include "engine/recipe_catalog.h"
#include "engine/run_folder.h"
#include "io/hf/safetensors_file.h"
#include "model/backbone/safetensors_torch.h"
#include "recipes/run_config.h"

namespace strata::recipes {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

BridgeDiffusion bridgeDiffusionFrom(const engine::ResolvedConfig& c) {
  BridgeDiffusion diffusion;
  // The schema allows only valid names.
  diffusion.process =
      c.text("process") == "bridge" ? DiffusionProcess::Bridge : DiffusionProcess::Gaussian;
  diffusion.prediction = *model::parsePrediction(c.text("prediction"));
  diffusion.cosineWeight = c.real("cosine_weight");
  diffusion.sampleSteps = c.integer("sample_steps");
  diffusion.eta = c.real("eta");
  diffusion.bridgeNoise = c.real("bridge_noise");
  diffusion.conditioned = c.text("condition") == "embeddings";
  if (diffusion.process == DiffusionProcess::Bridge) {
    if (diffusion.prediction != model::Prediction::X0)
      throw ConfigError("the bridge run configuration", "prediction",
                        "must be x0 with process=bridge (the bridge's denoiser predicts h_{l*})");
    if (!diffusion.conditioned)
      throw ConfigError("the bridge run configuration", "condition",
                        "must be embeddings with process=bridge (the bridge starts from it)");
  }
  return diffusion;
}

model::BridgeDenoiserConfig bridgeDenoiserConfigFrom(const engine::ResolvedConfig& c,
                                                     int64_t hiddenSize) {
  model::BridgeDenoiserConfig config;
  config.dataDim = hiddenSize;
  config.condDim = hiddenSize;
  config.width = c.integer("width");
  config.depth = c.integer("depth");
  config.heads = c.integer("heads");
  config.mlpRatio = c.integer("mlp_ratio");
  config.conditioning = c.text("conditioning");
  config.maxPositions = std::max<int64_t>(c.integer("seq_len"), 2048);
  if (config.width % config.heads != 0)
    throw ConfigError("the bridge run configuration", "heads", "must divide width");
  if (config.width % 2 != 0)  // the sinusoidal time and position tables pair dimensions
    throw ConfigError("the bridge run configuration", "width", "must be even");
  return config;
}

int64_t resolveBridgeLayer(const engine::ResolvedConfig& c) {
  if (c.integer("layer") >= 0) return c.integer("layer");
  if (c.text("store").empty())
    throw ConfigError("the bridge run configuration", "layer",
                      "is -1 (the best-scored layer) but no store with scores is given: set layer "
                      "or store");
  return bestLayerOfStore(c.text("store"));
}

void checkBridgeLayer(int64_t layer, int64_t numLayers, const fs::path& model) {
  if (layer < 0 || layer > numLayers)
    throw ConfigError("the bridge run configuration", "layer",
                      "must be in 0.." + std::to_string(numLayers) + " for " + model.string() +
                          " (got " + std::to_string(layer) + ")");
}

namespace {

// Tensor names in bridge_statistics.safetensors.
constexpr const char* kTargetMean = "mean";
constexpr const char* kTargetStd = "std";
constexpr const char* kConditionMean = "condition_mean";
constexpr const char* kConditionStd = "condition_std";

}  // namespace

void writeBridgeStatistics(const fs::path& runFolder, const BridgeStatistics& stats) {
  model::writeSafetensors(runFolder / "bridge_statistics.safetensors",
                          {{kTargetMean, stats.target.mean},
                           {kTargetStd, stats.target.std},
                           {kConditionMean, stats.condition.mean},
                           {kConditionStd, stats.condition.std}});
}

BridgeStatistics readBridgeStatistics(const fs::path& runFolder, const torch::Device& device) {
  const fs::path file = runFolder / "bridge_statistics.safetensors";
  const auto reader = io::SafetensorsFile::open(file);
  const auto tensor = [&](const char* name) {
    const io::TensorEntry* entry = reader->find(name);
    if (!entry) throw FormatError(file, "has no tensor", name);
    return model::tensorView(reader, *entry).to(device, torch::kFloat).clone();
  };
  BridgeStatistics stats;
  stats.target = {tensor(kTargetMean), tensor(kTargetStd), file.string()};
  stats.condition = {tensor(kConditionMean), tensor(kConditionStd), file.string()};
  return stats;
}

LoadedBridge loadBridgeRun(const fs::path& runFolder, const torch::Device& device) {
  const engine::RunManifest run = engine::requireRun(runFolder, "bridge");
  LoadedBridge bridge;
  bridge.config = runConfig(run);
  const int64_t layer = run.integerFact("layer");
  bridge.source = std::make_unique<BridgeSource>(bridge.config.text("model"), layer, device);
  bridge.statistics = readBridgeStatistics(runFolder, device);
  bridge.diffusion = bridgeDiffusionFrom(bridge.config);
  bridge.denoiser =
      model::BridgeDenoiser(bridgeDenoiserConfigFrom(bridge.config, bridge.source->hiddenSize()));

  const auto checkpoint = engine::RunFolder(runFolder).checkpoints().bestOrNewestValid();
  if (checkpoint) {
    torch::serialize::InputArchive archive;
    archive.load_from((checkpoint->second / "model.pt").string());
    bridge.denoiser->load(archive);
    bridge.denoiser->to(device);
    bridge.denoiser->eval();
    bridge.checkpointStep = checkpoint->first;
    return bridge;
  }
  throw FormatError(engine::RunFolder(runFolder).checkpointsFolder(),
                    "has no valid checkpoint of the bridge");
}

}  // namespace strata::recipes
