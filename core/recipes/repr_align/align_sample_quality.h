#pragma once
// Sample quality of a REPR-ALIGN student (compare-align's generation columns): N continuations
// of held-out prompts drawn with the student's own diffusion sampler (repr_align_files.h), then
// Gen.PPL under a judge (the teacher, i.e. the original autoregressive model) and word / token
// diversity, with the shared definitions of recipes/sample_quality.h. No torch here.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::recipes {

class GenerationJudge;

struct StudentSampling {
  int64_t samples = 8;          ///< continuations, one per prompt
  int64_t promptTokens = 8;     ///< tokens of held-out text each prompt holds
  int64_t newTokens = 32;       ///< tokens each continuation holds
  std::string device = "auto";  ///< where the students sample (engine/device_choice.h)
  double temperature = 1.0;     ///< not greedy: Gen.PPL of argmax text rewards repetition
  uint64_t seed = 0;            ///< sample k uses seed + k
};

struct StudentSampleQuality {
  int64_t samples = 0;
  double genPpl = 0;            ///< exp(Σ CE / Σ tokens) under the judge
  double meanCrossEntropy = 0;  ///< nats per judged token
  int64_t judgedTokens = 0;
  std::string judge;          ///< the judge's model folder
  double wordDiversity = 0;   ///< SimCTG, per text, over whitespace words
  double tokenDiversity = 0;  ///< the same over the student's token ids
};

/** `count` prompts of `promptTokens` tokens, spread evenly over the held-out tail of the run's
 *  corpus (tokenised exactly as the recipe tokenises it), decoded to text. FormatError when the
 *  tail is too short for them. */
std::vector<std::string> heldOutPrompts(const std::filesystem::path& runFolder, int64_t count,
                                        int64_t promptTokens, JobContext& job);

/** Samples the run's student (best or newest checkpoint) once per prompt, judges the texts and
 *  writes them to runFolder/judged_samples.jsonl ({"prompt", "continuation", "tokens"} per
 *  line), so every number can be checked against the texts. */
StudentSampleQuality judgeStudentSamples(const std::filesystem::path& runFolder,
                                         const std::vector<std::string>& prompts,
                                         const StudentSampling& sampling,
                                         const GenerationJudge& judge);

}  // namespace strata::recipes
