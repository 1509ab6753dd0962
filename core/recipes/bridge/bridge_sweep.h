#pragma once
// The bridgeability study: an equal-budget bridge at every candidate layer, then how well the
// geometry score predicted which layers bridge best (Spearman ρ between S(l) and −val loss,
// with a permutation p-value). Each bridge is an ordinary resumable run in the sweep folder,
// so an interrupted sweep continues where it stopped. No torch here.

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::recipes {

struct BridgeSweepConfig {
  std::filesystem::path model;
  std::filesystem::path corpus;
  std::filesystem::path folder;  ///< sweep folder: layer-<l>/ runs, acts.h5, sweep.json/.csv
  std::filesystem::path store;   ///< an activation store with scores; empty = capture + score
  int64_t firstLayer = 1, lastLayer = 1;
  int64_t steps = 300;                ///< the budget of every bridge
  std::vector<std::string> settings;  ///< further bridge settings, "key=value"
  /// Where the runs train ("device" setting; an explicit device= in settings wins), capture
  /// and score: "cpu", "cuda" or "auto" (engine/device_choice.h).
  std::string device = "auto";
  int64_t captureTokens = 8192;  ///< when capturing the store
  int64_t permutations = 10000;
  /** Also train the layer-0 baseline on the same budget, reported beside the range but not in
   *  ρ: embedding-space diffusion (Diffusion-LM style), an unconditional denoiser of h_0 that
   *  never sees the clean h_0 (condition=none), scored by its loss and rounding accuracy. */
  bool layerZeroBaseline = true;
};

struct BridgeSweepRow {
  int64_t layer = 0;
  double score = 0;          ///< S(l), z-scored over the sweep's layers
  double curvature = 0;      ///< m_curv of the layer (the store's)
  double monotonicity = 0;   ///< m_mono
  double effectiveRank = 0;  ///< k_eff
  double valLoss = 0;        ///< best (lowest) validation diffusion loss of the run
  double valCosine = 0;      ///< at the last evaluation
  double ceGap = 0;          ///< CE(upper stack fed ĥ) − CE(fed true h), last evaluation
  /// Layer-0 baseline: fraction of tokens whose nearest embedding row of x̂0 is the true token
  /// (last evaluation); NaN for bridges.
  double roundingAccuracy = std::numeric_limits<double>::quiet_NaN();
  std::filesystem::path run;
};

struct BridgeSweepResult {
  std::vector<BridgeSweepRow> rows;
  double rho = 0;     ///< Spearman ρ(S, −val loss)
  double pValue = 1;  ///< two-sided permutation p-value
  // What S is up against (docs/bridge.md, "Reading a sweep"); NaN where undefined.
  double rhoCurvature = 0;      ///< ρ(+m_curv, −val loss)
  double rhoMonotonicity = 0;   ///< ρ(+m_mono, −val loss)
  double rhoEffectiveRank = 0;  ///< ρ(−k_eff, −val loss)
  double rhoDepth = 0;          ///< ρ(−layer, −val loss): "shallower is better"
  double partialRho = 0;        ///< partial Spearman ρ(S, −val loss | layer); needs ≥ 3 layers
  std::string normalisation;    ///< of the store's geometry
  int64_t bestByScore = -1;     ///< l* over the sweep's layers
  int64_t bestByLoss = -1;      ///< the layer whose bridge reached the lowest val loss
  int64_t worstByScore = -1;    ///< the lowest-scored layer (the other baseline)
  std::vector<BridgeSweepRow> baselines;  ///< layer 0 when asked (score NaN)
  std::filesystem::path store;
};

/** ρ of each proxy alone, of −depth and the partial ρ of S given depth, from `rows`. */
void computeSweepStatistics(BridgeSweepResult& result);

/** The statistics as sweep.md holds them: a Markdown table of every ρ (n/a where undefined). */
std::string sweepStatisticsMarkdown(const BridgeSweepResult& result);

/** Runs (or continues) the sweep; writes sweep.json, sweep.csv and sweep.md into the folder. Throws
 *  CancelledError when cancelled (finished runs are kept; the current one is checkpointed). */
BridgeSweepResult runBridgeSweep(const BridgeSweepConfig& config, JobContext& job);

/** Reads the sweep.json a sweep wrote into `folder` (FormatError/IoError naming the file). */
BridgeSweepResult readBridgeSweep(const std::filesystem::path& folder);

}  // namespace strata::recipes
