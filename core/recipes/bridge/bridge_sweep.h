#pragma once
// The bridgeability sweep (`strata-cli sweep-bridges`, run as a study by
// studies/comparison_studies.h): an equal-budget bridge at every candidate layer, then how well
// the geometry score predicted which layers bridge best (Spearman ρ between S(l) and −val loss,
// with a permutation p-value). Here: what it is asked, its store, each layer's run settings, a
// finished run's row, the statistics and the reports (sweep.json, sweep.csv, sweep.md); the
// study trains the runs. No torch here.

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
  /// The sweep folder: runs/layer-<l>-s<seed>/ (the study's runs), acts.h5, sweep.json/.csv/.md
  std::filesystem::path folder;
  std::filesystem::path store;  ///< an activation store with scores; empty = capture + score
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

/** ConfigError unless the layers are a range of at least two. */
void checkBridgeSweepLayers(const BridgeSweepConfig& config);
/** The store the sweep's layers are scored in: config.store, else DIR/acts.h5. */
std::filesystem::path bridgeSweepStore(const BridgeSweepConfig& config);
/** Captures and scores DIR/acts.h5 when no store was given and it has no scores yet (kept
 *  otherwise), after checking the range against the model's depth (ConfigError); FormatError
 *  naming the store when a layer of the range has no score. */
void prepareBridgeSweepStore(const BridgeSweepConfig& config, JobContext& job);
/** The bridge settings of the run at `layer` beyond the sweep's shared ones (layer 0: the
 *  unconditional embedding-diffusion baseline). */
std::vector<std::string> bridgeSweepLayerSettings(int64_t layer);
/** A finished bridge run's row: its validation numbers (score and proxies not yet filled). */
BridgeSweepRow bridgeSweepRow(int64_t layer, const std::filesystem::path& run);
/** Scores `rows` with the store's weights over the range, adds the statistics (and
 *  `baselines`, outside ρ) and writes sweep.json, sweep.csv and sweep.md into the folder. */
BridgeSweepResult finishBridgeSweep(const BridgeSweepConfig& config,
                                    std::vector<BridgeSweepRow> rows,
                                    std::vector<BridgeSweepRow> baselines);
/** sweep.json, sweep.csv and sweep.md of `result` into `folder`. */
void writeBridgeSweepReport(const BridgeSweepResult& result, const std::filesystem::path& folder);

/** Reads the sweep.json a sweep wrote into `folder` (FormatError/IoError naming the file). */
BridgeSweepResult readBridgeSweep(const std::filesystem::path& folder);

}  // namespace strata::recipes
