#include "model/backbone/backbone.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/index_select.h>
#include <ATen/ops/linear.h>
#include <ATen/ops/scalar_tensor.h>
#include <c10/core/InferenceMode.h>

#include <mutex>
#include <optional>

#include "common/error.h"
#include "common/job.h"
#include "model/backbone/attention.h"
#include "model/backbone/block_staging.h"
#include "model/backbone/blocks.h"
#include "model/backbone/rope.h"
#include "model/backbone/weight_loader.h"

namespace strata::model {

struct Backbone::State {
  io::ModelConfig config;
  BackboneOptions options;
  Activation activation = Activation::Silu;
  at::Tensor inverseFrequencies;            // undefined for GPT-2
  SlidingWindow sliding;                    // Gemma-3's sliding layers; window 0 otherwise
  std::optional<WeightLoader> loader;       // streaming: always on the CPU (see load())
  std::unique_ptr<CudaBlockStager> stager;  // streaming to a CUDA device only
  std::vector<BlockWeights> blocks;         // resident mode only
  // Resident: all but the token table and the head, which are read on use (rows(), head());
  // streaming: the final norm only.
  OuterWeights outer;
  mutable std::once_flag headRead;  // resident: the head, converted once on the first logits()
  mutable at::Tensor residentHead;
  // Streaming a GGUF on the CPU: the last block dequantised, kept for the next batch of the same
  // layer (capture runs one layer over every batch: each block is converted once, not once per
  // batch). Safetensors blocks are not kept: they are views of the mapping, free to read again,
  // and dropping them releases the mapping.
  mutable std::mutex lastMutex;
  mutable int64_t lastLayer = -1;
  mutable std::shared_ptr<BlockWeights> lastBlock;

  bool streaming() const { return options.streamLayers; }

  /** Block `layer`'s weights: resident, or streamed in and owned by the result. */
  std::shared_ptr<const BlockWeights> block(int64_t layer) const {
    if (!streaming()) return {std::shared_ptr<void>(), &blocks[static_cast<std::size_t>(layer)]};
    if (stager) return stager->block(layer);
    if (!loader->gguf()) return std::make_shared<const BlockWeights>(loader->block(layer));
    const std::lock_guard<std::mutex> lock(lastMutex);
    if (lastLayer == layer && lastBlock) return lastBlock;
    // The next block is converted into the last one's memory when no pass holds that any more
    // (every block of a model has the same shapes); either way one block is in memory, not two.
    BlockWeights recycled;
    if (lastBlock && lastBlock.use_count() == 1) recycled = std::move(*lastBlock);
    lastBlock.reset();
    lastLayer = -1;
    lastBlock = std::make_shared<BlockWeights>(loader->block(layer, std::move(recycled)));
    lastLayer = layer;
    return lastBlock;
  }

  at::Tensor rows(at::Tensor OuterWeights::*field, const at::Tensor& indices) const {
    if (!(outer.*field).defined())  // only these rows converted (the token table, or streaming)
      return loader->rows(loader->layout().outerName(field), indices).to(options.device);
    const at::Tensor& table = outer.*field;
    const at::Tensor picked = at::index_select(table, 0, indices.reshape({-1}).to(table.device()));
    std::vector<int64_t> shape = indices.sizes().vec();
    shape.push_back(table.size(1));
    return picked.view(shape);
  }

  /** The LM head [vocab, d]: streaming converts it for each call, resident mode once. */
  at::Tensor head() const {
    const auto read = [&] {
      return loader->tensor(loader->layout().outerName(&OuterWeights::head)).to(options.device);
    };
    if (streaming()) return read();
    std::call_once(headRead, [&] { residentHead = read(); });
    return residentHead;
  }

  BlockContext context(const PreparedAttention& attention) const {
    return {&config, activation, attention};
  }

  /** `hidden` in the compute dtype on the device (a no-op when it already is). */
  at::Tensor computable(const at::Tensor& hidden) const {
    return hidden.to(options.device, options.computeDType);
  }
};

namespace {

void checkComputeDType(at::ScalarType dtype) {
  // CPU float16 matrix products are not implemented in LibTorch 1.13.
  if (dtype != at::kFloat && dtype != at::kBFloat16)
    throw ConfigError({}, "computeDType",
                      std::string("must be float32 or bfloat16, got ") + c10::toString(dtype));
}

void checkHidden(const at::Tensor& hidden, int64_t width, const char* what) {
  if (!hidden.defined() || hidden.dim() != 3 || hidden.size(2) != width)
    throw std::invalid_argument(std::string(what) + ": hidden states must be [B, T, " +
                                std::to_string(width) + "]");
}

}  // namespace

Backbone::Backbone(std::unique_ptr<State> state) : m_state(std::move(state)) {}
Backbone::~Backbone() = default;

std::unique_ptr<Backbone> Backbone::load(const std::filesystem::path& folder,
                                         BackboneOptions options) {
  checkComputeDType(options.computeDType);
  auto state = std::make_unique<State>();
  const std::filesystem::path configFile = folder / "config.json";
  state->config = io::readModelConfig(configFile);
  state->options = options;
  state->activation = blockActivation(state->config, configFile);
  state->inverseFrequencies = rotaryInverseFrequencies(state->config, configFile);
  state->sliding = slidingWindowOf(state->config, configFile);
  // Streaming reads every tensor on the CPU (mapped, converted there) and moves what a pass
  // needs to the device: blocks through the stager's pinned, overlapped copies.
  state->loader.emplace(folder, state->config,
                        options.streamLayers ? at::Device(at::kCPU) : options.device,
                        options.computeDType, /*borrowMapped=*/options.streamLayers);
  const WeightLoader& loader = *state->loader;
  if (options.streamLayers) {
    // The final norm is a few kilobytes: keep an owned copy (not a view that would keep its
    // shard mapped); everything large is read on use.
    const auto owned = [&](at::Tensor OuterWeights::*field) {
      const std::string name = loader.layout().outerName(field);
      return name.empty() ? at::Tensor() : loader.tensor(name).clone().to(options.device);
    };
    state->outer.finalNorm = owned(&OuterWeights::finalNorm);
    state->outer.finalNormBias = owned(&OuterWeights::finalNormBias);
    if (options.device.is_cuda())
      state->stager =
          std::make_unique<CudaBlockStager>(loader, options.device, state->config.numLayers);
  } else {
    state->outer = loader.outerWithoutTables();
    state->blocks.reserve(static_cast<std::size_t>(state->config.numLayers));
    for (int64_t layer = 0; layer < state->config.numLayers; ++layer)
      state->blocks.push_back(loader.block(layer));
  }
  if (state->inverseFrequencies.defined())
    state->inverseFrequencies = state->inverseFrequencies.to(options.device);
  if (state->sliding.inverseFrequencies.defined())
    state->sliding.inverseFrequencies = state->sliding.inverseFrequencies.to(options.device);
  return std::unique_ptr<Backbone>(new Backbone(std::move(state)));
}

const io::ModelConfig& Backbone::config() const { return m_state->config; }
const BackboneOptions& Backbone::options() const { return m_state->options; }
int64_t Backbone::numLayers() const { return m_state->config.numLayers; }
const std::vector<std::string>& Backbone::warnings() const { return m_state->loader->warnings(); }

at::Tensor Backbone::embed(const at::Tensor& ids, const AttentionOptions& attention) const {
  const State& s = *m_state;
  if (!ids.defined() || ids.dim() != 2 || at::isFloatingType(ids.scalar_type()))
    throw std::invalid_argument("embed: ids must be an integer tensor [B, T]");
  const at::Tensor tokens = ids.to(at::kLong);
  if (tokens.numel() > 0) {
    const int64_t low = tokens.min().item<int64_t>(), high = tokens.max().item<int64_t>();
    if (low < 0 || high >= s.config.vocabSize)
      throw Error("token id " + std::to_string(low < 0 ? low : high) +
                  " is outside the vocabulary of " + std::to_string(s.config.vocabSize) +
                  " tokens");
  }
  at::Tensor hidden = s.rows(&OuterWeights::tokens, tokens);
  if (s.config.positionEncoding == io::PositionEncoding::LearnedAbsolute) {
    const at::Tensor positions =
        resolvePositions(attention, ids.size(0), ids.size(1), s.options.device);
    if (positions.numel() > 0 && positions.max().item<int64_t>() >= s.config.maxPositions)
      throw Error("position " + std::to_string(positions.max().item<int64_t>()) +
                  " is past n_positions = " + std::to_string(s.config.maxPositions));
    hidden = hidden + s.rows(&OuterWeights::positions, positions);
  }
  if (s.config.embeddingScale != 1.0)  // Gemma3TextScaledWordEmbedding, its rounding included
    hidden =
        hidden * at::scalar_tensor(s.config.embeddingScale, at::kFloat).to(hidden.scalar_type());
  return hidden;
}

at::Tensor Backbone::runLayers(const at::Tensor& hidden, int64_t fromLayer, int64_t toLayer,
                               const AttentionOptions& attention) const {
  return runLayers(hidden, fromLayer, toLayer, prepare(attention, hidden.size(0), hidden.size(1)));
}

PreparedAttention Backbone::prepare(const AttentionOptions& attention, int64_t batch,
                                    int64_t length) const {
  const State& s = *m_state;
  return prepareAttention(attention, batch, length, s.inverseFrequencies, s.options.device,
                          s.options.computeDType, s.sliding);
}

at::Tensor Backbone::runLayers(const at::Tensor& hidden, int64_t fromLayer, int64_t toLayer,
                               const PreparedAttention& attention) const {
  const State& s = *m_state;
  checkHidden(hidden, s.config.hiddenSize, "runLayers");
  if (hidden.size(0) != attention.batch || hidden.size(1) != attention.length)
    throw std::invalid_argument(
        "runLayers: attention prepared for [" + std::to_string(attention.batch) + ", " +
        std::to_string(attention.length) + "], hidden states are [" +
        std::to_string(hidden.size(0)) + ", " + std::to_string(hidden.size(1)) + ", d]");
  if (fromLayer < 0 || fromLayer > toLayer || toLayer > s.config.numLayers)
    throw std::out_of_range("runLayers: layers " + std::to_string(fromLayer) + " to " +
                            std::to_string(toLayer) + " outside 0.." +
                            std::to_string(s.config.numLayers));
  at::Tensor h = s.computable(hidden);
  if (fromLayer == toLayer) return h;
  const BlockContext context = s.context(attention);
  for (int64_t layer = fromLayer; layer < toLayer; ++layer)
    h = runBlock(*s.block(layer), h, context, layer);
  return h;
}

at::Tensor Backbone::finalNorm(const at::Tensor& hidden) const {
  const State& s = *m_state;
  checkHidden(hidden, s.config.hiddenSize, "finalNorm");
  const at::Tensor h = s.computable(hidden);
  return finalNormOf(s.config, h, s.outer.finalNorm, s.outer.finalNormBias);
}

at::Tensor Backbone::logits(const at::Tensor& normed) const {
  const State& s = *m_state;
  checkHidden(normed, s.config.hiddenSize, "logits");
  const at::Tensor h = s.computable(normed);
  const at::Tensor logits = at::linear(h, s.head());
  const double cap = s.config.finalLogitSoftcap;
  if (cap <= 0) return logits;
  return (logits / cap).tanh() * cap;  // Gemma3ForCausalLM.forward's final_logit_softcapping
}

CaptureResult Backbone::capture(const at::Tensor& ids, const CaptureRequest& request) const {
  const State& s = *m_state;
  c10::InferenceMode inference;
  CaptureResult result;
  const int64_t layers = s.config.numLayers;
  const auto deliver = [&](int64_t layer, const at::Tensor& hidden) {
    if (request.keepHidden) result.hidden.push_back(hidden);
    if (request.onLayer) request.onLayer(layer, hidden);
    if (request.job)
      request.job->progress(static_cast<double>(layer) / static_cast<double>(layers),
                            "layer " + std::to_string(layer) + " of " + std::to_string(layers));
  };

  at::Tensor h = embed(ids, request.attention);
  deliver(0, h);
  const BlockContext context = s.context(prepare(request.attention, h.size(0), h.size(1)));
  for (int64_t layer = 0; layer < layers; ++layer) {
    if (request.job) request.job->checkCancelled();
    h = runBlock(*s.block(layer), h, context, layer);
    deliver(layer + 1, h);
  }
  if (request.finalNorm || request.logits) result.finalNorm = finalNorm(h);
  if (request.logits) result.logits = logits(result.finalNorm);
  return result;
}

}  // namespace strata::model
