#pragma once
// The masked-diffusion comparison (`strata-cli compare-dlm`, run as a study by
// studies/comparison_studies.h): mdlm, bdlm and dcdm trained with the same budget on the same
// corpus, plus the dcdm ablations — K (chunks) and point (h = 1) versus subspace (h > 1)
// routing. Here: what it is asked, a finished run's row — validation ELBO, perplexity bound,
// masked-token accuracy, chunk balance, throughput and sample quality: N samples per run
// (temperature 1, seeds 0..N−1, from the BOS prompt), their word and token diversity and, with
// a judge, their Gen.PPL under that separate autoregressive model (recipes/sample_quality.h) —
// and the tables. No torch here.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "recipes/study_variant.h"

namespace strata::recipes {

class GenerationJudge;

/** A variant's run folder name (e.g. "dcdm-K8-h4") and its dcdm settings. */
using DlmVariantSpec = StudyVariant;

struct DlmComparisonConfig {
  std::filesystem::path corpus;
  std::filesystem::path folder;
  int64_t steps = 300;
  int64_t seeds = 1;  ///< seeds per variant: the settings' seed (0 when none) and the next ones
  std::vector<std::string> settings;  ///< shared settings, "key=value"
  /// Where the runs train ("device" setting; an explicit device= in settings wins), sample
  /// and are judged: "cpu", "cuda" or "auto" (engine/device_choice.h).
  std::string device = "auto";
  int64_t samples = 8;          ///< samples per run for diversity and Gen.PPL (0 = none)
  std::filesystem::path judge;  ///< a Hugging Face model folder; empty = no Gen.PPL
  std::vector<DlmVariantSpec> variants = defaultVariants();
  static std::vector<DlmVariantSpec> defaultVariants();
};

struct DlmComparisonRow {
  std::string name, variant;
  int64_t chunks = 0, rank = 0, blockSize = 0;
  double valLoss = 0;        ///< best validation ELBO (nats per token, weighted)
  double pplBound = 0;       ///< exp(best val loss)
  double maskedAcc = 0;      ///< at the last evaluation
  double loadEntropy = 0;    ///< normalised; NaN for mdlm / bdlm
  double maxChunkShare = 0;  ///< NaN for mdlm / bdlm
  double tokensPerSecond = 0;
  double genPpl = 0;          ///< Gen.PPL of the samples under the judge; NaN without one
  double wordDiversity = 0;   ///< NaN without samples
  double tokenDiversity = 0;  ///< NaN without samples
  int64_t parameters = 0, routerParameters = 0;
  std::filesystem::path run;
};

/** A finished dcdm run's row: its settings and logged metrics (sample quality left NaN). */
DlmComparisonRow dlmComparisonRow(const std::string& name, const std::filesystem::path& run);
/** Draws `samples` samples of the run, judged when a judge is given, into the row's quality. */
void addSampleQuality(DlmComparisonRow& row, int64_t samples, const GenerationJudge* judge,
                      const std::string& device);
/** compare.json, compare.csv and compare.md (a Markdown table) into `folder`. */
void writeDlmComparisonReports(const std::vector<DlmComparisonRow>& rows,
                               const std::filesystem::path& folder, const std::string& judge);

}  // namespace strata::recipes
