#pragma once
// What both DiHAL studies (the model pretrained here, and a real pretrained model) do with the
// activation store their bridges read: capture and score it once, score it again under the other
// normalisations (kept in the store beside /geometry: geometry::alternativeGeometryGroup), the
// per-layer numbers S rests on as study.json tables, and the sweep statistics of one seed's
// bridges against one scan of the store, scored as the store was. No torch here.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "geometry/backend.h"
#include "geometry/geometry_report.h"
#include "geometry/proxy_options.h"
#include "geometry/score.h"
#include "geometry/store_scoring.h"
#include "recipes/bridge/bridge_sweep.h"
#include "studies/study_protocol.h"

namespace strata {

class JobContext;
namespace engine {
struct CaptureConfig;
}  // namespace engine

}  // namespace strata

namespace strata::studies {

/** The bridges of the studies on a real pretrained model (dihal-pretrained, its replication,
 *  dihal-generation): 2,000 steps of 16 windows of 32 tokens from a store of 32,768 tokens
 *  (docs/studies/dihal.md, "On a real pretrained model": sized from measured step rates). */
constexpr int64_t kStoreBridgeSteps = 2000;
constexpr int64_t kStoreBridgeSeqLen = 32;
constexpr int64_t kStoreCaptureTokens = 32768;

/** Those bridges' shared settings (the smoke budget: a few steps of a tiny bridge), in the
 *  order every protocol of them has written to protocol.json. */
std::vector<std::string> storeBridgeSettings(const std::string& model,
                                             const std::filesystem::path& store,
                                             const std::string& corpus, bool smoke);

/** Captures, in float32, the store those bridges learn from (each sequence BOS + 4 windows of
 *  `seq_len` of `shared`, so no window crosses a document) and writes the default proxies'
 *  scan, unless `store` already holds one. */
void captureBridgeStore(const std::vector<std::string>& shared, bool smoke,
                        const std::string& device, JobContext& job);

/** Captures `capture` (overwriting) and writes the default proxies' scan into the store. */
void captureAndScoreStore(const engine::CaptureConfig& capture, const std::string& device,
                          JobContext& job);
/** The normalisations a DiHAL store is scored under beside its own scan (trace, /geometry),
 *  each into its alternativeGeometryGroup, so ρ can be reported under every normalisation. */
const std::vector<geometry::Normalisation>& otherNormalisations();
/** Scans `store` under otherNormalisations() (`none` and `standardise`), unless the store
 *  holds them already (a resumed study). */
void scoreOtherNormalisations(const std::filesystem::path& store, const std::string& device,
                              JobContext& job);
/** The store's scan under `mode` (trace: /geometry), with the weights it was scored under;
 *  FormatError naming the store when it has none, or one under another normalisation. */
geometry::GeometryReport storeScan(const std::filesystem::path& store,
                                   geometry::Normalisation mode);
/** S, its interval and l* of a scan over the study's `candidates`, under the weights the scan
 *  was scored with (geometry::scoreSeries): the one scoring every DiHAL number goes through. */
geometry::ScoredLayers scoredOver(const geometry::GeometryReport& report,
                                  const geometry::LayerRange& candidates);
/** Per layer: the proxies with their bootstrap intervals, S over `candidates` with its
 *  interval, and how often each layer is l* over the token resamples. */
StudyTable layerTable(const geometry::GeometryReport& report,
                      const geometry::LayerRange& candidates);

/** "layers_<normalisation>" for the store's own scan and each one scored beside it; empty when
 *  the store has not been scored yet. */
std::map<std::string, StudyTable> dihalLayerTables(const std::filesystem::path& store,
                                                   const geometry::LayerRange& candidates);

/** A finished bridge run's own numbers: val_loss_best, val_loss_final, val_cosine and
 *  val_ce_gap (last evaluation), converge_drop = (val loss at the last evaluation at or before
 *  70 % of the steps − final) / final; the curve val_loss. FormatError when it has no val loss. */
RunMeasurement bridgeRunMeasurement(const std::filesystem::path& run);

/** One trained bridge of a seed: its layer and best validation loss. */
struct BridgeLoss {
  int64_t layer = 0;
  double valLoss = 0;
};

/** The sweep's rows and statistics for one scan of the store and its S (`scores`, as
 *  scoredOver gives it over the study's candidates), then the bridges' layers; FormatError
 *  naming `source` when a bridge's layer has no proxies. */
recipes::BridgeSweepResult sweepOf(const geometry::GeometryReport& report,
                                   const geometry::LayerScores& scores,
                                   const std::vector<BridgeLoss>& bridges,
                                   const std::filesystem::path& source);
/** The layers a sweep picks (over its bridged layers) and what each pick costs. */
struct SweepChoice {
  int64_t lstar = -1;      ///< the bridged layer S ranks first
  int64_t oracle = -1;     ///< the bridged layer of lowest val loss
  int64_t worst = -1;      ///< the bridged layer S ranks last
  double regretLstar = 0;  ///< val loss at lstar − at oracle
  double regretWorst = 0;  ///< val loss at worst − at oracle
};

/** Needs at least one row. */
SweepChoice sweepChoice(const recipes::BridgeSweepResult& sweep);

}  // namespace strata::studies
