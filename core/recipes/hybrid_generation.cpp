// Hybrid generation and its comparison with the original model (see hybrid_generation.h).

#include "recipes/hybrid_generation.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <set>

#include "common/error.h"
#include "engine/job.h"
#include "recipes/bridge_files.h"
#include "recipes/sample_quality.h"

namespace strata {

namespace {

using Clock = std::chrono::steady_clock;

/** One hybrid token: the bridge rebuilds h_{l*} of the whole context, the upper stack reads it. */
torch::Tensor hybridLogits(LoadedBridge& bridge, const std::vector<int32_t>& ids, uint64_t seed) {
  torch::NoGradGuard noGrad;
  const torch::Tensor input =
      torch::tensor(std::vector<int64_t>(ids.begin(), ids.end()), torch::kInt64).unsqueeze(0);
  const torch::Tensor cond = bridge.source->condition(input);
  at::Generator generator = at::detail::createCPUGenerator(seed);
  const torch::Tensor x0 =
      bridgeSample(bridge.denoiser, cond, bridge.source->hiddenSize(), bridge.diffusion, generator);
  const torch::Tensor logits = bridge.source->upperLogits(bridge.statistics.denormalise(x0));
  return logits[0][-1].to(torch::kCPU, torch::kFloat).contiguous();
}

}  // namespace

double distinctN(const std::vector<std::vector<int32_t>>& sequences, int n) {
  std::set<std::vector<int32_t>> distinct;
  int64_t total = 0;
  for (const auto& sequence : sequences)
    for (size_t i = 0; i + static_cast<size_t>(n) <= sequence.size(); ++i) {
      distinct.emplace(sequence.begin() + static_cast<std::ptrdiff_t>(i),
                       sequence.begin() + static_cast<std::ptrdiff_t>(i) + n);
      ++total;
    }
  return total == 0 ? 0.0 : static_cast<double>(distinct.size()) / static_cast<double>(total);
}

double generationDiversity(const std::vector<std::vector<int32_t>>& sequences) {
  double product = 1;
  for (int n = 2; n <= 4; ++n) product *= distinctN(sequences, n);
  return product;
}

HybridComparison compareHybridGeneration(
    const HybridComparisonConfig& config, JobContext& job,
    const std::function<void(size_t, GenerationSide, const std::string&)>& onToken) {
  if (config.prompts.empty()) throw Error("hybrid generation: give at least one prompt");
  LoadedBridge bridge = loadBridgeRun(config.bridgeRun);
  if (config.sampleSteps > 0) bridge.diffusion.sampleSteps = config.sampleSteps;
  const Backbone& model = bridge.source->backbone();
  const Tokenizer& tokenizer = bridge.source->tokenizer();
  const auto eos = tokenizer.eosId();
  const int64_t maxPositions = model.config().maxPositions;

  HybridComparison result;
  result.layer = bridge.source->layer();
  result.sampleSteps = bridge.diffusion.sampleSteps;
  double ceOriginal = 0, ceHybrid = 0, secondsOriginal = 0, secondsHybrid = 0;
  int64_t tokensOriginal = 0, tokensHybrid = 0;
  std::vector<std::vector<int32_t>> originals, hybrids;
  for (size_t p = 0; p < config.prompts.size(); ++p) {
    PromptComparison comparison;
    comparison.prompt = config.prompts[p];
    const std::vector<int32_t> prompt = tokenizer.encode(comparison.prompt, true);
    if (prompt.empty()) throw Error("hybrid generation: prompt " + std::to_string(p + 1) + " is empty");

    if (config.original) {
      const auto start = Clock::now();
      comparison.original.tokens = generate(model, prompt, config.sampling, [&](int32_t id) {
        job.checkCancelled();
        if (onToken) onToken(p, GenerationSide::Original, tokenizer.decode(std::span<const int32_t>(&id, 1), true));
      });
      const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
      secondsOriginal += seconds;
      tokensOriginal += static_cast<int64_t>(comparison.original.tokens.size());
    }

    std::mt19937_64 rng(config.sampling.seed);
    std::vector<int32_t> context = prompt;
    const auto start = Clock::now();
    for (int i = 0; i < config.sampling.maxNewTokens; ++i) {
      if (static_cast<int64_t>(context.size()) >= maxPositions) break;
      job.checkCancelled();
      const torch::Tensor logits = hybridLogits(bridge, context, config.sampling.seed + static_cast<uint64_t>(i));
      const int32_t id = chooseToken(std::span<const float>(logits.data_ptr<float>(), static_cast<size_t>(logits.numel())),
                                     config.sampling.temperature, config.sampling.topP, rng);
      context.push_back(id);
      comparison.hybrid.tokens.push_back(id);
      if (onToken) onToken(p, GenerationSide::Hybrid, tokenizer.decode(std::span<const int32_t>(&id, 1), true));
      if (config.sampling.stopAtEos && eos && id == *eos) break;
    }
    secondsHybrid += std::chrono::duration<double>(Clock::now() - start).count();
    tokensHybrid += static_cast<int64_t>(comparison.hybrid.tokens.size());

    for (Continuation* c : {&comparison.original, &comparison.hybrid}) {
      c->text = tokenizer.decode(c->tokens, true);
      const double ce = continuationCrossEntropy(model, prompt, c->tokens);
      c->genPpl = c->tokens.empty() ? 0 : std::exp(ce / static_cast<double>(c->tokens.size()));
      (c == &comparison.original ? ceOriginal : ceHybrid) += ce;
    }
    originals.push_back(comparison.original.tokens);
    hybrids.push_back(comparison.hybrid.tokens);
    job.progress(static_cast<double>(p + 1) / static_cast<double>(config.prompts.size()), "generating");
    result.prompts.push_back(std::move(comparison));
  }
  const auto perToken = [](double seconds, int64_t tokens) {
    return tokens > 0 ? 1000.0 * seconds / static_cast<double>(tokens) : 0.0;
  };
  result.originalMsPerToken = perToken(secondsOriginal, tokensOriginal);
  result.hybridMsPerToken = perToken(secondsHybrid, tokensHybrid);
  for (auto& c : result.prompts) {
    c.original.secondsPerToken = result.originalMsPerToken / 1000.0;
    c.hybrid.secondsPerToken = result.hybridMsPerToken / 1000.0;
  }
  result.originalGenPpl = tokensOriginal > 0 ? std::exp(ceOriginal / static_cast<double>(tokensOriginal)) : 0;
  result.hybridGenPpl = tokensHybrid > 0 ? std::exp(ceHybrid / static_cast<double>(tokensHybrid)) : 0;
  result.originalDiversity = generationDiversity(originals);
  result.hybridDiversity = generationDiversity(hybrids);
  return result;
}

}  // namespace strata
