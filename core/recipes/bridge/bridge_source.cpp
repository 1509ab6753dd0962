// The bridge's frozen source and data (see bridge_source.h).

#include "recipes/bridge/bridge_source.h"

#include <algorithm>
#include <string>

#include "common/error.h"
#include "engine/batch_transfer.h"
#include "engine/memory_plan.h"
#include "io/store/activation_store.h"
#include "recipes/bridge/bridge_files.h"

namespace strata::recipes {

namespace fs = std::filesystem;

BridgeSource::BridgeSource(const fs::path& modelFolder, int64_t layer, const torch::Device& device,
                           std::optional<bool> streamLayers)
    : m_layer(layer), m_device(device) {
  model::BackboneOptions options;
  options.device = device;
  // Planned first: a source too large to hold streams its layers, one too large even so is
  // refused with what to change (engine/memory_plan.h). Batches of 16 × 256 tokens.
  options.streamLayers = streamLayers ? *streamLayers
                                      : engine::frozenBackboneStreams(modelFolder, device.is_cuda(),
                                                                      16, 256, /*logits=*/false);
  m_backbone = model::Backbone::load(modelFolder, options);
  m_tokenizer = tokenizer::loadTokenizer(modelFolder);
  checkBridgeLayer(layer, m_backbone->numLayers(), modelFolder);
}

int64_t BridgeSource::hiddenSize() const { return m_backbone->config().hiddenSize; }

torch::Tensor BridgeSource::condition(const torch::Tensor& ids) const {
  torch::NoGradGuard noGrad;
  return m_backbone->embed(engine::toTrainingDevice(ids, m_device)).to(torch::kFloat);
}

torch::Tensor BridgeSource::target(const torch::Tensor& condition) const {
  torch::NoGradGuard noGrad;
  return m_backbone->runLayers(condition, 0, m_layer).to(torch::kFloat);
}

BridgeWindows BridgeSource::windows(const torch::Tensor& ids) const {
  const torch::Tensor h0 = condition(ids);
  return {ids, h0, target(h0), 1};
}

torch::Tensor BridgeSource::upperLogits(const torch::Tensor& hidden) const {
  const torch::Tensor top = m_backbone->runLayers(hidden, m_layer, m_backbone->numLayers());
  return m_backbone->logits(m_backbone->finalNorm(top)).to(torch::kFloat);
}

torch::Tensor statisticsWindows(const std::vector<int32_t>& tokens, int64_t seqLen, uint64_t seed,
                                int64_t first, int64_t rows) {
  return trainingWindows(tokens, seqLen - 1, seed ^ 0x5747A75ULL, 0, first, rows);
}

namespace {

/** Running per-dimension sums of rows [N, d] (float64), turned into mean and std at the end. */
struct Moments {
  explicit Moments(int64_t d)
      : sum(torch::zeros({d}, torch::kDouble)), squares(torch::zeros({d}, torch::kDouble)) {}
  void add(const torch::Tensor& rows) {
    const torch::Tensor x = rows.reshape({-1, sum.size(0)}).to(torch::kCPU, torch::kDouble);
    sum += x.sum(0);
    squares += (x * x).sum(0);
    count += x.size(0);
  }
  HiddenStatistics finish(const torch::Device& device, std::string source) const {
    const torch::Tensor mean = sum / static_cast<double>(count);
    const torch::Tensor variance =
        (squares / static_cast<double>(count) - mean * mean).clamp_min(0);
    // A dimension that never varies would divide by zero: give it unit scale.
    const torch::Tensor deviation = variance.sqrt();
    const torch::Tensor std =
        torch::where(deviation < 1e-6, torch::ones_like(deviation), deviation);
    return {mean.to(torch::kFloat).to(device), std.to(torch::kFloat).to(device), std::move(source)};
  }
  torch::Tensor sum, squares;
  int64_t count = 0;
};

}  // namespace

BridgeStatistics BridgeSource::statistics(const std::optional<fs::path>& store,
                                          const std::vector<int32_t>& tokens, int64_t seqLen,
                                          uint64_t seed, int64_t windows) const {
  const int64_t d = hiddenSize();
  Moments target(d), condition(d);
  std::string source;
  if (store) {
    const io::ActivationStore reader = io::ActivationStore::open(*store);
    if (reader.meta().hiddenSize != d)
      throw FormatError(*store, "holds hidden size " + std::to_string(reader.meta().hiddenSize) +
                                    ", the model has " + std::to_string(d));
    for (const int64_t layer : {m_layer, int64_t{0}}) {
      if (!reader.layerComplete(layer))
        throw FormatError(*store, "has no complete layer " + std::to_string(layer) +
                                      " (the bridge normalises layers 0 and l*)");
      std::vector<float> rows = reader.readLayer(layer);
      (layer == m_layer ? target : condition)
          .add(torch::from_blob(rows.data(), {static_cast<int64_t>(rows.size()) / d, d},
                                torch::kFloat));
    }
    source = "store:" + store->string();
  } else {
    const int64_t batch = 8;
    for (int64_t first = 0; first < windows; first += batch) {
      const BridgeWindows cut = this->windows(
          statisticsWindows(tokens, seqLen, seed, first, std::min(batch, windows - first)));
      // Only the positions the bridge models: position 0 is the attention sink.
      target.add(cut.modelledTarget());
      condition.add(cut.modelledCondition());
    }
    source = "windows:" + std::to_string(windows);
  }
  return {target.finish(m_device, source), condition.finish(m_device, source)};
}

}  // namespace strata::recipes
