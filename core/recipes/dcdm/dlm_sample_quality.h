#pragma once
// The sample quality of a trained masked-diffusion LM run (mdlm, bdlm, dcdm), as compare-dlm
// and the DCDM study report it: N samples (temperature 1, seeds 0..N−1, from the BOS prompt,
// min(seq_len − 1, 64) tokens, at the run's sample_steps_per_token — equal denoising steps per
// token in every variant, never sample_steps' per-chunk rule), their word and token diversity
// and, with a judge, their Gen.PPL
// (recipes/sample_quality.h). The samples go to the run's judged_samples.jsonl, so what a
// number was computed from can be read. No torch here.

#include <cstdint>
#include <filesystem>
#include <string>

namespace strata::recipes {

class GenerationJudge;

struct DlmSampleQuality {
  double genPpl;          ///< NaN without a judge or samples
  double wordDiversity;   ///< NaN without samples
  double tokenDiversity;  ///< NaN without samples
};

/** `device`: "cpu", "cuda" or "auto" (engine/device_choice.h). */
DlmSampleQuality judgeDlmSamples(const std::filesystem::path& run, int64_t samples,
                                 const GenerationJudge* judge, const std::string& device);

}  // namespace strata::recipes
