#include "model/backbone/generation.h"

#include <ATen/ops/from_blob.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "common/error.h"
#include "model/backbone/backbone.h"

namespace strata::model {

namespace {

void checkConfig(const GenerationConfig& config) {
  if (config.maxNewTokens < 0)
    throw Error("generation: maxNewTokens must be >= 0, got " +
                std::to_string(config.maxNewTokens));
  if (!(config.temperature >= 0) || std::isinf(config.temperature))
    throw Error("generation: temperature must be a finite number >= 0, got " +
                std::to_string(config.temperature));
  if (!(config.topP > 0 && config.topP <= 1))
    throw Error("generation: top-p must be in (0, 1], got " + std::to_string(config.topP));
}

/** Logits of the last position of `context` as a CPU float vector. */
std::vector<float> lastLogits(const Backbone& model, std::vector<int64_t>& context) {
  const at::Tensor ids =
      at::from_blob(context.data(), {1, static_cast<int64_t>(context.size())}, at::kLong)
          .to(model.options().device);
  const at::Tensor hidden = model.runLayers(model.embed(ids), 0, model.numLayers());
  const int64_t last = hidden.size(1) - 1;
  const at::Tensor logits =
      model.logits(model.finalNorm(hidden.slice(1, last, last + 1))).reshape({-1});
  const at::Tensor cpu = logits.to(at::kCPU, at::kFloat).contiguous();
  const float* data = cpu.data_ptr<float>();
  return {data, data + cpu.numel()};
}

}  // namespace

double uniformUnit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

int32_t chooseToken(std::span<const float> logits, double temperature, double topP,
                    std::mt19937_64& rng) {
  if (logits.empty()) throw Error("generation: empty logits");
  if (temperature == 0)
    return static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
  // softmax(logits / T), stabilised by the maximum.
  const double top = *std::max_element(logits.begin(), logits.end());
  std::vector<double> probabilities(logits.size());
  for (size_t i = 0; i < logits.size(); ++i)
    probabilities[i] = std::exp((static_cast<double>(logits[i]) - top) / temperature);
  std::vector<int32_t> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return probabilities[a] > probabilities[b]; });
  const double total = std::accumulate(probabilities.begin(), probabilities.end(), 0.0);
  // Nucleus (Holtzman et al. 2020): the shortest prefix whose mass reaches topP.
  size_t kept = 0;
  double mass = 0;
  while (kept < order.size()) {
    mass += probabilities[order[kept++]];
    if (mass >= topP * total) break;
  }
  const double target = uniformUnit(rng) * mass;
  double cumulative = 0;
  for (size_t i = 0; i < kept; ++i) {
    cumulative += probabilities[order[i]];
    if (target < cumulative) return order[i];
  }
  return order[kept - 1];  // rounding: target can equal the sum
}

std::vector<int32_t> generate(const Backbone& model, std::span<const int32_t> prompt,
                              const GenerationConfig& config,
                              std::function<void(int32_t)> onToken) {
  checkConfig(config);
  const io::ModelConfig& modelConfig = model.config();
  if (prompt.empty()) throw Error("generation: the prompt has no tokens");
  if (static_cast<int64_t>(prompt.size()) > modelConfig.maxPositions)
    throw Error("generation: the prompt has " + std::to_string(prompt.size()) +
                " tokens, more than the model's context of " +
                std::to_string(modelConfig.maxPositions));
  c10::InferenceMode inference;
  std::mt19937_64 rng(config.seed);
  std::vector<int64_t> context(prompt.begin(), prompt.end());
  std::vector<int32_t> generated;
  while (static_cast<int>(generated.size()) < config.maxNewTokens &&
         static_cast<int64_t>(context.size()) < modelConfig.maxPositions) {
    const std::vector<float> logits = lastLogits(model, context);
    const int32_t next = chooseToken(logits, config.temperature, config.topP, rng);
    generated.push_back(next);
    context.push_back(next);
    if (onToken) onToken(next);
    if (config.stopAtEos &&
        std::find(modelConfig.eosTokenIds.begin(), modelConfig.eosTokenIds.end(),
                  static_cast<int64_t>(next)) != modelConfig.eosTokenIds.end())
      break;
  }
  return generated;
}

}  // namespace strata::model
