#pragma once
// The REPR-ALIGN study (`strata-cli compare-align`): the same model converted with the same
// budget four ways — plain adaptation (λ = 0) versus alignment (λ = 10), each with everything
// trainable ("full") and with embeddings + LM head + MLPs frozen ("frozen") — each an ordinary
// resumable repr_align run in the study folder; then one table of validation loss along the
// way, masked-token accuracy, alignment and throughput at equal steps. No torch here.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "recipes/study_runs.h"

namespace strata {

class JobContext;

struct AlignComparisonConfig {
  std::filesystem::path model;
  std::filesystem::path corpus;
  std::filesystem::path folder;
  int64_t steps = 200;
  std::vector<std::string> settings;  ///< shared repr_align settings, "key=value"
  std::vector<StudyVariant> variants = defaultVariants();
  static std::vector<StudyVariant> defaultVariants();
};

struct AlignComparisonRow {
  std::string name;
  double lambda = 0;
  bool frozen = false;             ///< embeddings + LM head + MLPs frozen
  int64_t trainableParameters = 0;
  /** step → validation loss (masked CE over masked targets, nats) at every evaluation. */
  std::vector<std::pair<int64_t, double>> valLoss;
  double finalValLoss = 0, bestValLoss = 0;
  double maskedAcc = 0;            ///< at the last evaluation
  double meanCosine = 0;           ///< mean over the L+1 hidden states, last evaluation
  double tokensPerSecond = 0;      ///< mean over logged steps
  std::filesystem::path run;
};

/** Trains (or continues) every variant, then writes compare.json, compare.csv and compare.md
 *  into the folder. */
std::vector<AlignComparisonRow> runAlignComparison(const AlignComparisonConfig& config, JobContext& job);

}  // namespace strata
