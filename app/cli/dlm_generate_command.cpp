// `strata-cli generate --dlm RUN`: chunk-ordered parallel unmasking with a trained masked
// diffusion LM (mdlm, bdlm or dcdm) or a converted model (repr_align), optionally showing
// which chunk (block) each token fell in and at which step it was revealed, and with --judge
// the continuation's Gen.PPL under a separate autoregressive model and its diversity.

#include <cstdio>
#include <iostream>
#include <memory>

#include "common/error.h"
#include "diffusion_generate.h"
#include "engine/run_folder.h"
#include "recipes/dlm_sampler.h"
#include "recipes/repr_align/repr_align_files.h"
#include "recipes/sample_quality.h"

namespace strata::cli {

int runDlmGeneration(const CommandLine& cli, const model::GenerationConfig& sampling,
                     const std::string& device) {
  recipes::DlmSamplingConfig config;
  config.device = device;
  config.newTokens = sampling.maxNewTokens;
  config.temperature = sampling.temperature;
  config.seed = sampling.seed;
  if (cli.has("steps")) config.stepsPerChunk = cli.integer("steps");
  const std::filesystem::path run = cli.value("dlm");
  if (!engine::isRunFolder(run)) throw IoError(run, "is not a run folder (no run.json)");
  std::unique_ptr<recipes::GenerationJudge>
      judge;  // loaded first: a wrong folder fails before sampling
  if (cli.has("judge"))
    judge = std::make_unique<recipes::GenerationJudge>(cli.value("judge"), device);
  recipes::DlmSample sample;
  if (engine::readRunInfo(run).recipe == "repr_align") {
    recipes::LoadedConversion conversion = recipes::loadConversionRun(run, std::nullopt, device);
    const int64_t block =
        cli.has("block") ? cli.integer("block") : conversion.config.integer("sample_block");
    if (block < 0) throw UsageError("--block must be >= 0");
    sample = recipes::sampleConverted(conversion.model, *conversion.tokenizer, cli.value("prompt"),
                                      config, conversion.config.integer("sample_steps"), block);
  } else {
    sample = recipes::sampleDlm(run, cli.value("prompt"), config);
  }
  std::cout << cli.value("prompt") << sample.text << "\n";
  if (cli.isSet("show-chunks")) {
    std::cout << "position  chunk  step  token\n";
    const size_t promptLength = sample.prompt.size();
    for (size_t i = 0; i < sample.tokens.size(); ++i) {
      char line[96];
      std::snprintf(line, sizeof line, "%8zu %6lld %5lld  %d\n", promptLength + i,
                    static_cast<long long>(sample.chunkIds[promptLength + i]),
                    static_cast<long long>(sample.unmaskedAtStep[i]), sample.tokens[i]);
      std::cout << line;
    }
  }
  if (judge) {
    // A separate judge scores the continuation (re-tokenised with its own tokenizer).
    const recipes::GenPplResult judged = judge->judge({{cli.value("prompt"), sample.text}});
    char quality[160];
    std::snprintf(quality, sizeof quality, "Gen.PPL %.3f over %lld judge tokens; ", judged.genPpl,
                  static_cast<long long>(judged.judgedTokens));
    std::cout << quality << "judge " << judged.judge << "\n";
    std::snprintf(quality, sizeof quality, "diversity: word %.4f, token %.4f\n",
                  recipes::wordDiversity({sample.text}), recipes::tokenDiversity({sample.tokens}));
    std::cout << quality;
  }
  char speed[128];
  std::snprintf(speed, sizeof speed, "%zu tokens in %lld unmasking steps, %.2f s\n",
                sample.tokens.size(), static_cast<long long>(sample.steps), sample.seconds);
  std::cerr << speed;
  return 0;
}

}  // namespace strata::cli
