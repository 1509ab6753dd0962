// Sample quality of a REPR-ALIGN student (see align_sample_quality.h).

#include "recipes/repr_align/align_sample_quality.h"

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/text_file.h"
#include "io/atomic_file.h"
#include "recipes/pretrain/pretrain_data.h"
#include "recipes/repr_align/repr_align_files.h"
#include "recipes/sample_quality.h"

namespace strata::recipes {

namespace fs = std::filesystem;

std::vector<std::string> heldOutPrompts(const fs::path& runFolder, int64_t count,
                                        int64_t promptTokens, JobContext& job) {
  const LoadedConversion run = loadConversionRun(runFolder, std::nullopt, "cpu");  // its text only
  const fs::path corpus = run.config.text("corpus");
  const int64_t seqLen = run.config.integer("seq_len");
  const TokenSplit tokens = readCorpusTokens(run.config, *run.tokenizer, seqLen - 1, job).tokens;
  const auto available = static_cast<int64_t>(tokens.val.size());
  if (count < 1 || promptTokens < 1 || available < count * promptTokens)
    throw FormatError(corpus, "its held-out tail has " + std::to_string(available) +
                                  " tokens: too few for " + std::to_string(count) + " prompts of " +
                                  std::to_string(promptTokens));
  const int64_t stride = available / count;
  std::vector<std::string> prompts;
  for (int64_t k = 0; k < count; ++k) {
    const auto first = tokens.val.begin() + static_cast<std::ptrdiff_t>(k * stride);
    const std::vector<int32_t> ids(first, first + static_cast<std::ptrdiff_t>(promptTokens));
    prompts.push_back(run.tokenizer->decode(ids, true));
  }
  return prompts;
}

StudentSampleQuality judgeStudentSamples(const fs::path& runFolder,
                                         const std::vector<std::string>& prompts,
                                         const StudentSampling& sampling,
                                         const GenerationJudge& judge) {
  LoadedConversion run = loadConversionRun(runFolder, std::nullopt, sampling.device);
  std::vector<JudgedText> texts;
  std::vector<std::string> continuations;
  std::vector<std::vector<int32_t>> tokens;
  std::string lines;
  for (size_t k = 0; k < prompts.size(); ++k) {
    DlmSamplingConfig config;
    config.newTokens = sampling.newTokens;
    config.temperature = sampling.temperature;
    config.seed = sampling.seed + k;
    const DlmSample sample =
        sampleConverted(run.model, *run.tokenizer, prompts[k], config,
                        run.config.integer("sample_steps"), run.config.integer("sample_block"));
    texts.push_back({prompts[k], sample.text});
    continuations.push_back(sample.text);
    tokens.push_back(sample.tokens);
    lines += nlohmann::json(
                 {{"prompt", prompts[k]}, {"continuation", sample.text}, {"tokens", sample.tokens}})
                 .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
             "\n";
  }
  io::writeTextAtomically(runFolder / "judged_samples.jsonl", lines);
  const GenPplResult judged = judge.judge(texts);
  StudentSampleQuality quality;
  quality.samples = static_cast<int64_t>(prompts.size());
  quality.genPpl = judged.genPpl;
  quality.meanCrossEntropy = judged.meanCrossEntropy;
  quality.judgedTokens = judged.judgedTokens;
  quality.judge = judged.judge;
  quality.wordDiversity = wordDiversity(continuations);
  quality.tokenDiversity = tokenDiversity(tokens);
  return quality;
}

}  // namespace strata::recipes
