// The sample quality of a masked-diffusion LM run (see dlm_sample_quality.h).

#include "recipes/dcdm/dlm_sample_quality.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "engine/device_choice.h"
#include "io/atomic_file.h"
#include "recipes/dcdm/dcdm_files.h"
#include "recipes/sample_quality.h"

namespace strata::recipes {

using Json = nlohmann::ordered_json;

DlmSampleQuality judgeDlmSamples(const std::filesystem::path& run, int64_t samples,
                                 const GenerationJudge* judge, const std::string& device) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  DlmSampleQuality quality{nan, nan, nan};
  if (samples < 1) return quality;
  LoadedDlm dlm = loadDlmRun(run, engine::computeDevice(device, "device"));
  DlmSamplingConfig config;
  config.newTokens = std::clamp<int64_t>(dlm.config.integer("seq_len") - 1, 1, 64);
  config.temperature = 1.0;
  // Equal denoising steps per token in every variant, whatever the run's sample_steps says:
  // the samples are compared across variants (dlm_sampler.h, DlmStepBudget).
  config.stepsPerToken = dlm.config.real("sample_steps_per_token");
  std::vector<std::string> texts;
  std::vector<std::vector<int32_t>> tokens;
  std::vector<JudgedText> judged;
  std::string lines;
  for (int64_t i = 0; i < samples; ++i) {
    config.seed = static_cast<uint64_t>(i);
    const DlmSample sample =
        sampleWithModel(dlm.model, *dlm.tokenizer, "", config, dlmStepBudgetFrom(dlm.config));
    texts.push_back(sample.text);
    tokens.push_back(sample.tokens);
    judged.push_back({"", sample.text});
    lines += Json({{"seed", i},
                   {"text", sample.text},
                   {"tokens", sample.tokens},
                   {"steps", sample.steps}})
                 .dump(-1, ' ', false, Json::error_handler_t::replace) +
             "\n";
  }
  // What was judged stays inspectable beside the numbers (as compare-align's arms keep theirs).
  io::writeTextAtomically(run / "judged_samples.jsonl", lines);
  quality.wordDiversity = wordDiversity(texts);
  quality.tokenDiversity = tokenDiversity(tokens);
  if (judge) quality.genPpl = judge->judge(judged).genPpl;
  return quality;
}

}  // namespace strata::recipes
