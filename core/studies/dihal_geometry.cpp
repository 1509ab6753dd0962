// The DiHAL studies' activation store and its per-layer numbers (see dihal_geometry.h).

#include "studies/dihal_geometry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "common/error.h"
#include "common/job.h"
#include "engine/capture.h"
#include "engine/device_choice.h"
#include "engine/run_folder.h"
#include "geometry/geometry_report.h"
#include "geometry/metric_series.h"
#include "geometry/score_bootstrap.h"
#include "geometry/store_scoring.h"
#include "io/store/activation_store.h"
#include "studies/study_settings.h"

namespace strata::studies {

namespace fs = std::filesystem;

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

/** The scoring of `store` on `device` (geometry::scoreStore). */
geometry::StoreScoring scoringOf(const fs::path& store, const std::string& device) {
  geometry::StoreScoring scoring;
  scoring.store = store;
  scoring.device = geometry::parseDeviceChoice(engine::resolveDevice(device, "device"));
  // The protocols score a store's own scan under trace and the others beside it
  // (otherNormalisations()), whatever the product's default normalisation has become.
  scoring.options.normalisation = geometry::Normalisation::Trace;
  return scoring;
}

/** The store's scan under `mode`: its own (/geometry, trace) or one scored beside it. */
std::optional<geometry::GeometryReport> readScan(const fs::path& store,
                                                 geometry::Normalisation mode) {
  if (mode == geometry::Normalisation::Trace) return geometry::readGeometry(store);
  return geometry::readGeometry(store, geometry::alternativeGeometryGroup(mode));
}

}  // namespace

const std::vector<geometry::Normalisation>& otherNormalisations() {
  static const std::vector<geometry::Normalisation> others = {geometry::Normalisation::None,
                                                              geometry::Normalisation::Standardise};
  return others;
}

void captureAndScoreStore(const engine::CaptureConfig& capture, const std::string& device,
                          JobContext& job) {
  job.info("capturing the model's hidden states into " + capture.output.string());
  engine::runCapture(capture, job);
  job.info("scoring the layers of " + capture.output.string());
  geometry::scoreStore(scoringOf(capture.output, device), job);
}

void scoreOtherNormalisations(const fs::path& store, const std::string& device, JobContext& job) {
  for (const geometry::Normalisation mode : otherNormalisations()) {
    const std::string group = geometry::alternativeGeometryGroup(mode);
    if (geometry::readGeometry(store, group)) continue;  // scored before a resume
    job.info(std::string("scoring the layers with normalisation ") +
             geometry::normalisationName(mode));
    geometry::StoreScoring scoring = scoringOf(store, device);
    scoring.options.normalisation = mode;
    scoring.group = group;  // /geometry keeps the protocol's own (`trace`) scan
    geometry::scoreStore(scoring, job);
  }
}

geometry::GeometryReport storeScan(const fs::path& store, geometry::Normalisation mode) {
  auto report = readScan(store, mode);
  if (!report)
    throw FormatError(
        store, std::string("has no layers scored with ") + geometry::normalisationName(mode));
  if (report->options.normalisation != mode)
    throw FormatError(store, std::string("holds a scan under ") +
                                 geometry::normalisationName(report->options.normalisation) +
                                 " where the study needs " + geometry::normalisationName(mode));
  return *report;
}

geometry::ScoredLayers scoredOver(const geometry::GeometryReport& report,
                                  const geometry::LayerRange& candidates) {
  // The weights the store was scored under (the protocol's defaults), over the study's layers.
  return geometry::scoreSeries(report.layerIndices(), geometry::metricSeries(report),
                               report.options, report.numLayers,
                               {report.scoredWith.weights, candidates});
}

StudyTable layerTable(const geometry::GeometryReport& report,
                      const geometry::LayerRange& candidates) {
  const std::vector<int64_t> layers = report.layerIndices();
  const geometry::ScoredLayers scored = scoredOver(report, candidates);
  const geometry::LayerScores& scores = scored.scores;
  const geometry::ScoreBootstrap& boot = scored.bootstrap;
  StudyTable t;
  t.description = std::string("per layer, normalisation ") +
                  geometry::normalisationName(report.options.normalisation) +
                  ": the proxies with their " + std::to_string(report.options.bootstrapResamples) +
                  "-resample token-bootstrap intervals, S over layers " +
                  std::to_string(candidates.first) + ".." + std::to_string(candidates.last) +
                  " with its interval, and the share of the resamples whose l* is the layer";
  t.columns = {"layer",      "m_curv",      "m_curv_low", "m_curv_high", "m_mono",
               "m_mono_low", "m_mono_high", "k_eff",      "k_eff_low",   "k_eff_high",
               "S",          "S_low",       "S_high",     "lstar_share"};
  const auto at = [](const std::vector<geometry::Interval>& v, size_t i, bool low) {
    return i < v.size() ? (low ? v[i].low : v[i].high) : kNan;
  };
  for (size_t i = 0; i < layers.size(); ++i) {
    const geometry::LayerGeometry& g = report.layers[i];
    const bool candidate = candidates.contains(layers[i]);
    t.rows.push_back(
        {double(layers[i]), g.values.curvature, g.curvature.low, g.curvature.high,
         g.values.monotonicity, g.monotonicity.low, g.monotonicity.high, g.values.effectiveRank,
         g.effectiveRank.low, g.effectiveRank.high, candidate ? scores.score[i] : kNan,
         candidate ? at(boot.score, i, true) : kNan, candidate ? at(boot.score, i, false) : kNan,
         candidate && i < boot.bestFrequency.size() ? boot.bestFrequency[i] : kNan});
  }
  return t;
}

std::map<std::string, StudyTable> dihalLayerTables(const fs::path& store,
                                                   const geometry::LayerRange& candidates) {
  std::map<std::string, StudyTable> tables;
  if (!fs::exists(store)) return tables;
  for (const geometry::Normalisation mode :
       {geometry::Normalisation::Trace, geometry::Normalisation::None,
        geometry::Normalisation::Standardise})
    if (const auto report = readScan(store, mode))
      tables[std::string("layers_") + geometry::normalisationName(mode)] =
          layerTable(*report, candidates);
  return tables;
}

RunMeasurement bridgeRunMeasurement(const fs::path& run) {
  const engine::RunMetrics metrics = engine::RunFolder(run).metrics();
  const engine::LoggedSeries val = metrics.validationLoss();
  RunMeasurement m;
  m.values["val_loss_best"] = engine::minimumOf(val);
  m.values["val_loss_final"] = engine::lastOf(val);
  m.values["val_cosine"] = metrics.last("val_cosine");
  m.values["val_ce_gap"] = metrics.last("val_ce_gap");
  // The evaluation at 70 % of the run (the last one at or before it) against the final one.
  const int64_t lastStep = val.back().first;
  double at70 = val.front().second;
  for (const auto& [step, v] : val)
    if (step * 10 <= lastStep * 7) at70 = v;
  m.values["converge_drop"] =
      (at70 - engine::lastOf(val)) / std::max(1e-12, std::abs(engine::lastOf(val)));
  m.curves["val_loss"] = val;
  return m;
}

recipes::BridgeSweepResult sweepOf(const geometry::GeometryReport& report,
                                   const geometry::LayerScores& scores,
                                   const std::vector<BridgeLoss>& bridges, const fs::path& source) {
  const std::vector<int64_t> layers = report.layerIndices();
  recipes::BridgeSweepResult sweep;
  for (const auto& bridge : bridges) {
    recipes::BridgeSweepRow row;
    row.layer = bridge.layer;
    row.valLoss = bridge.valLoss;
    const auto index =
        static_cast<size_t>(std::find(layers.begin(), layers.end(), row.layer) - layers.begin());
    if (index >= layers.size())
      throw FormatError(source, "has no score for layer " + std::to_string(row.layer));
    const geometry::ProxyValues& values = report.layers[index].values;
    row.score = scores.score[index];
    row.curvature = values.curvature;
    row.monotonicity = values.monotonicity;
    row.effectiveRank = values.effectiveRank;
    sweep.rows.push_back(row);
  }
  if (sweep.rows.size() >= 2) recipes::computeSweepStatistics(sweep);
  return sweep;
}

SweepChoice sweepChoice(const recipes::BridgeSweepResult& sweep) {
  const auto& rows = sweep.rows;
  const auto byLoss = std::min_element(
      rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.valLoss < b.valLoss; });
  const auto byScore = std::max_element(
      rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.score < b.score; });
  const auto worst = std::min_element(
      rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.score < b.score; });
  return {byScore->layer, byLoss->layer, worst->layer, byScore->valLoss - byLoss->valLoss,
          worst->valLoss - byLoss->valLoss};
}

std::vector<std::string> storeBridgeSettings(const std::string& model, const fs::path& store,
                                             const std::string& corpus, bool smoke) {
  const int64_t steps = smoke ? 6 : kStoreBridgeSteps;
  // 5 evaluations: each takes 6–7 s on the shared machine (the upper stack of a 30-layer model)
  const int64_t every = smoke ? 3 : kStoreBridgeSteps / 5;
  std::vector<std::string> settings = {
      "model=" + model, "store=" + store.string(),
      "targets=store",  // bridges learn from the captured store, not the model
      "corpus=" + corpus, "threads=1", "steps=" + std::to_string(steps),
      "warmup=" + std::to_string(smoke ? 1 : kStoreBridgeSteps / 20),
      "eval_every=" + std::to_string(every), "checkpoint_every=" + std::to_string(every),
      "log_every=" + std::to_string(smoke ? 1 : 25),
      "seq_len=" + std::to_string(smoke ? 8 : kStoreBridgeSeqLen),
      "batch=" + std::to_string(smoke ? 2 : 16),
      // a fixed, small validation set: the first windows of the store's held-out tail
      "eval_windows=" + std::to_string(smoke ? 2 : 16)};
  for (const auto& s : smoke ? std::vector<std::string>{"width=16", "depth=1", "heads=2"}
                             : std::vector<std::string>{"width=128", "depth=2", "heads=4"})
    settings.push_back(s);
  return settings;
}

void captureBridgeStore(const std::vector<std::string>& shared, bool smoke,
                        const std::string& device, JobContext& job) {
  const fs::path store = settingIn(shared, "store");
  if (fs::exists(store) && geometry::readGeometry(store)) return;
  engine::CaptureConfig capture;
  capture.modelFolder = settingIn(shared, "model");
  capture.corpus = settingIn(shared, "corpus");
  capture.output = store;
  capture.overwrite = true;
  capture.sampling.tokenBudget = smoke ? 128 : kStoreCaptureTokens;
  capture.sampling.sequenceLength = 4 * std::stoll(settingIn(shared, "seq_len")) + 1;
  capture.device = device;
  // Fixed by the protocols, whatever the capture's default compute dtype becomes.
  capture.computeDType = engine::ComputeDType::Float32;
  captureAndScoreStore(capture, device, job);
}

}  // namespace strata::studies
