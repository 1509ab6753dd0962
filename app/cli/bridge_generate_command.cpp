// `strata-cli generate --bridge RUN`: hybrid generation with a trained DiHAL bridge, side by
// side with the original model: continuations, Gen.PPL under the judge (--judge, else the
// source model, said to be self-judged), SimCTG word and token diversity, latency per token.

#include <cstdio>
#include <fstream>
#include <iostream>

#include "diffusion_generate.h"
#include "recipes/bridge/hybrid_generation.h"
#include "terminal_progress.h"

namespace strata::cli {

std::vector<std::string> promptsFrom(const CommandLine& cli) {
  std::vector<std::string> prompts;
  if (cli.has("prompt")) prompts.push_back(cli.value("prompt"));
  if (cli.has("prompts")) {
    std::ifstream in(cli.value("prompts"));
    if (!in) throw IoError(cli.value("prompts"), "cannot be read");
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) prompts.push_back(line);
  }
  if (prompts.empty())
    throw UsageError("give --prompt TEXT or --prompts FILE (one prompt per line)");
  return prompts;
}

int runBridgeGeneration(const CommandLine& cli, const model::GenerationConfig& sampling,
                        const std::string& device) {
  recipes::HybridComparisonConfig config;
  config.device = device;
  config.bridgeRun = cli.value("bridge");
  config.prompts = promptsFrom(cli);
  config.sampling = sampling;
  if (cli.has("steps")) config.sampleSteps = cli.integer("steps");
  config.original = !cli.isSet("hybrid-only");
  if (cli.has("judge")) config.judge = cli.value("judge");
  recipes::HybridComparison result;
  if (runWithTerminalProgress([&](JobContext& job) {
        result = recipes::compareHybridGeneration(config, job);
      }) == JobOutcome::Cancelled)
    return 130;
  char line[512];
  std::snprintf(line, sizeof line,
                "Bridge at layer %lld, %lld sampler steps; tokens sampled at temperature %g, "
                "top-p %g, seed %llu\n",
                static_cast<long long>(result.layer), static_cast<long long>(result.sampleSteps),
                sampling.temperature, sampling.topP,
                static_cast<unsigned long long>(sampling.seed));
  std::cout << line;
  if (result.embeddingDiffusion)
    std::cout << "This run is unconditional embedding diffusion (the layer-0 baseline): \"hybrid\" "
                 "tokens are its sampled\nembeddings rounded to the nearest embedding row, the "
                 "prompt imposed by replacement (no temperature).\n";
  for (const auto& p : result.prompts) {
    std::cout << "\nprompt:   " << p.prompt << "\n";
    if (config.original) std::cout << "original: " << p.original.text << "\n";
    std::cout << "hybrid:   " << p.hybrid.text << "\n";
  }
  std::cout << "\n                 Gen.PPL  word div.  token div.  ms/token\n";
  if (config.original) {
    std::snprintf(line, sizeof line, "original    %12.3f %10.4f %11.4f %9.2f\n",
                  result.originalGenPpl, result.originalDiversity, result.originalTokenDiversity,
                  result.originalMsPerToken);
    std::cout << line;
  }
  std::snprintf(line, sizeof line, "hybrid      %12.3f %10.4f %11.4f %9.2f\n", result.hybridGenPpl,
                result.hybridDiversity, result.hybridTokenDiversity, result.hybridMsPerToken);
  std::cout << line;
  std::cout
      << "Gen.PPL judged by " << result.judge
      << (result.selfJudged ? " (self-judged: the source model scores text it or its bridge "
                              "wrote, which favours the original; pass --judge DIR)"
                            : "")
      << ". Diversity: SimCTG, per text, product of distinct-2..4 over words and over tokens.\n";
  if (config.original) {
    std::snprintf(line, sizeof line,
                  "The hybrid is %.1f× slower per token than the original model.\n",
                  result.slowdown());
    std::cout << line;
  }
  return 0;
}

}  // namespace strata::cli
