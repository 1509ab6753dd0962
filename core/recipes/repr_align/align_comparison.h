#pragma once
// The alignment comparison (`strata-cli compare-align`, run as a study by
// studies/comparison_studies.h): the same model converted with the same budget five ways —
// plain adaptation (λ = 0) versus alignment (λ = 10), each with everything trainable ("full")
// and with embeddings + LM head + MLPs frozen ("frozen"), and a random-init student of the same
// architecture trained from scratch (λ = 0, full). Here: what it is asked, a finished run's row
// — validation loss along the way, masked-token accuracy, alignment, throughput at equal steps,
// and the quality of N samples from each student (Gen.PPL under the teacher as judge, word and
// token diversity) — and the tables. No torch here.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "recipes/repr_align/align_sample_quality.h"
#include "recipes/study_variant.h"

namespace strata::recipes {

struct AlignComparisonConfig {
  std::filesystem::path model;
  std::filesystem::path corpus;
  std::filesystem::path folder;
  int64_t steps = 200;
  int64_t seeds = 1;  ///< seeds per variant: the settings' seed (0 when none) and the next ones
  std::vector<std::string> settings;  ///< shared repr_align settings, "key=value"
  /// Where the runs train ("device" setting; an explicit device= in settings wins), sample
  /// and are judged: "cpu", "cuda" or "auto" (engine/device_choice.h).
  std::string device = "auto";
  int64_t samples = 8;        ///< continuations per student for the quality columns (0: none)
  int64_t sampleTokens = 32;  ///< tokens per continuation
  std::vector<StudyVariant> variants = defaultVariants();
  static std::vector<StudyVariant> defaultVariants();
};

struct AlignComparisonRow {
  std::string name;
  double lambda = 0;
  bool frozen = false;      ///< embeddings + LM head + MLPs frozen
  bool randomInit = false;  ///< the student started from random weights
  int64_t trainableParameters = 0;
  /** step → validation loss (the run's diffusion term: masked CE under ce_weighting=uniform,
   *  the ELBO under elbo; nats) at every evaluation. */
  std::vector<std::pair<int64_t, double>> valLoss;
  double finalValLoss = 0, bestValLoss = 0;
  double maskedAcc = 0;          ///< at the last evaluation
  std::string lossName;          ///< "masked CE" or "ELBO", after the run's ce_weighting
  double meanCosine = 0;         ///< mean over the L+1 hidden states, last evaluation
  double tokensPerSecond = 0;    ///< mean over logged steps
  StudentSampleQuality quality;  ///< samples = 0 when none were drawn
  std::filesystem::path run;
};

/** A finished repr_align run's row: its settings and logged metrics (no samples drawn). */
AlignComparisonRow alignComparisonRow(const std::string& name, const std::filesystem::path& run);
/** compare.json, compare.csv and compare.md (a Markdown table) into `folder`. */
void writeAlignComparisonReports(const std::vector<AlignComparisonRow>& rows,
                                 const std::filesystem::path& folder);

}  // namespace strata::recipes
