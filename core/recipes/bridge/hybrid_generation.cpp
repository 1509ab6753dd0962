// Hybrid generation and its comparison with the original model (see hybrid_generation.h).

#include "recipes/bridge/hybrid_generation.h"

#include <torch/torch.h>

#include <chrono>
#include <optional>

#include "common/error.h"
#include "common/job.h"
#include "engine/device_choice.h"
#include "model/random/seeded_generator.h"
#include "recipes/bridge/bridge_files.h"
#include "recipes/bridge/embedding_diffusion.h"
#include "recipes/sample_quality.h"

namespace strata::recipes {

namespace {

using Clock = std::chrono::steady_clock;

/** One hybrid token: the bridge rebuilds h_{l*} of the whole context but position 0, which the
 *  source model computes (the attention sink; BridgeWindows::exactPositions), and the upper
 *  stack reads it. */
torch::Tensor hybridLogits(LoadedBridge& bridge, const std::vector<int32_t>& ids, uint64_t seed) {
  torch::NoGradGuard noGrad;
  const torch::Tensor input =
      torch::tensor(std::vector<int64_t>(ids.begin(), ids.end()), torch::kInt64).unsqueeze(0);
  const torch::Tensor h0 = bridge.source->condition(input);
  torch::Tensor hidden = bridge.source->target(h0.slice(1, 0, 1));
  if (h0.size(1) > 1) {
    const torch::Tensor cond =
        bridge.statistics.conditionInput(h0.slice(1, 1), bridge.diffusion.conditioned);
    at::Generator generator = model::seededGenerator(seed, h0.device());
    const torch::Tensor x0 = bridgeSample(bridge.denoiser, cond, bridge.source->hiddenSize(),
                                          bridge.diffusion, generator);
    hidden = torch::cat({hidden, bridge.statistics.target.denormalise(x0)}, 1);
  }
  const torch::Tensor logits = bridge.source->upperLogits(hidden);
  return logits[0][-1].to(torch::kCPU, torch::kFloat).contiguous();
}

/** One side's continuations, gathered for the pooled sample-quality numbers. */
struct SideSamples {
  std::vector<std::vector<int32_t>> tokens;
  std::vector<std::string> texts;
  std::vector<JudgedText> judged;
  void add(const std::string& prompt, const Continuation& continuation) {
    tokens.push_back(continuation.tokens);
    texts.push_back(continuation.text);
    judged.push_back({prompt, continuation.text});
  }
};

}  // namespace

HybridComparison compareHybridGeneration(
    const HybridComparisonConfig& config, JobContext& job,
    const std::function<void(size_t, GenerationSide, const std::string&)>& onToken) {
  if (config.prompts.empty()) throw Error("hybrid generation: give at least one prompt");
  LoadedBridge bridge =
      loadBridgeRun(config.bridgeRun, engine::computeDevice(config.device, "device"));
  if (config.sampleSteps > 0) bridge.diffusion.sampleSteps = config.sampleSteps;
  const model::Backbone& model = bridge.source->backbone();
  const tokenizer::Tokenizer& tokenizer = bridge.source->tokenizer();
  const auto eos = tokenizer.eosId();
  const int64_t maxPositions = model.config().maxPositions;
  const std::filesystem::path sourceFolder = bridge.config.text("model");
  job.progress(-1, "loading the judge");
  const GenerationJudge judge(config.judge.empty() ? sourceFolder : config.judge, config.device);

  // The layer-0 baseline has no LM logits of its own: it generates by rounding embeddings.
  std::optional<model::EmbeddingRounding> rounding;
  if (isEmbeddingDiffusion(bridge)) rounding.emplace(model);

  HybridComparison result;
  result.layer = bridge.source->layer();
  result.embeddingDiffusion = rounding.has_value();
  result.sampleSteps = bridge.diffusion.sampleSteps;
  result.judge = judge.folder().string();
  result.selfJudged = config.judge.empty() || config.judge == sourceFolder;
  double secondsOriginal = 0, secondsHybrid = 0;
  int64_t tokensOriginal = 0, tokensHybrid = 0;
  SideSamples originals, hybrids;
  for (size_t p = 0; p < config.prompts.size(); ++p) {
    PromptComparison comparison;
    comparison.prompt = config.prompts[p];
    const std::vector<int32_t> prompt = tokenizer.encode(comparison.prompt, true);
    if (prompt.empty())
      throw Error("hybrid generation: prompt " + std::to_string(p + 1) + " is empty");

    if (config.original) {
      const auto start = Clock::now();
      comparison.original.tokens = generate(model, prompt, config.sampling, [&](int32_t id) {
        job.checkCancelled();
        if (onToken)
          onToken(p, GenerationSide::Original,
                  tokenizer.decode(std::span<const int32_t>(&id, 1), true));
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
      const uint64_t seed = config.sampling.seed + static_cast<uint64_t>(i);
      int32_t id = 0;
      if (rounding) {
        id = embeddingDiffusionToken(bridge, *rounding, context, seed);
      } else {
        const torch::Tensor logits = hybridLogits(bridge, context, seed);
        id = model::chooseToken(
            std::span<const float>(logits.data_ptr<float>(), static_cast<size_t>(logits.numel())),
            config.sampling.temperature, config.sampling.topP, rng);
      }
      context.push_back(id);
      comparison.hybrid.tokens.push_back(id);
      if (onToken)
        onToken(p, GenerationSide::Hybrid,
                tokenizer.decode(std::span<const int32_t>(&id, 1), true));
      if (config.sampling.stopAtEos && eos && id == *eos) break;
    }
    secondsHybrid += std::chrono::duration<double>(Clock::now() - start).count();
    tokensHybrid += static_cast<int64_t>(comparison.hybrid.tokens.size());

    for (Continuation* c : {&comparison.original, &comparison.hybrid}) {
      c->text = tokenizer.decode(c->tokens, true);
      c->genPpl = judge.judge({{comparison.prompt, c->text}}).genPpl;
    }
    if (config.original) originals.add(comparison.prompt, comparison.original);
    hybrids.add(comparison.prompt, comparison.hybrid);
    job.progress(static_cast<double>(p + 1) / static_cast<double>(config.prompts.size()),
                 "generating");
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
  result.originalGenPpl = judge.judge(originals.judged).genPpl;
  result.hybridGenPpl = judge.judge(hybrids.judged).genPpl;
  result.originalDiversity = wordDiversity(originals.texts);
  result.hybridDiversity = wordDiversity(hybrids.texts);
  result.originalTokenDiversity = tokenDiversity(originals.tokens);
  result.hybridTokenDiversity = tokenDiversity(hybrids.tokens);
  return result;
}

}  // namespace strata::recipes
