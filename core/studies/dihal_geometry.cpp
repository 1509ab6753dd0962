// The DiHAL studies' activation store and its per-layer numbers (see dihal_geometry.h).

#include "studies/dihal_geometry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/job.h"
#include "common/text_file.h"
#include "engine/capture.h"
#include "engine/device_choice.h"
#include "engine/run_folder.h"
#include "geometry/geometry_report.h"
#include "geometry/metric_series.h"
#include "geometry/score_bootstrap.h"
#include "geometry/store_scoring.h"
#include "io/store/activation_store.h"
#include "io/atomic_file.h"
#include "studies/study_settings.h"

namespace strata::studies {

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

/** The store is scored with `trace` (the default); these two are scored beside it, so ρ can be
 *  reported under every normalisation. */
const std::vector<geometry::Normalisation> kOtherNormalisations = {
    geometry::Normalisation::None, geometry::Normalisation::Standardise};

/** The scoring of `store` on `device` (geometry::scoreStore). */
geometry::StoreScoring scoringOf(const fs::path& store, const std::string& device) {
  geometry::StoreScoring scoring;
  scoring.store = store;
  scoring.device = geometry::parseDeviceChoice(engine::resolveDevice(device, "device"));
  // The protocols score a store's own scan under trace and the others beside it
  // (kOtherNormalisations), whatever the product's default normalisation has become.
  scoring.options.normalisation = geometry::Normalisation::Trace;
  return scoring;
}

Json numberJson(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json tableJson(const StudyTable& t) {
  Json rows = Json::array();
  for (const auto& row : t.rows) {
    Json values = Json::array();
    for (double v : row) values.push_back(numberJson(v));
    rows.push_back(values);
  }
  return {{"description", t.description}, {"columns", t.columns}, {"rows", rows}};
}

StudyTable tableFrom(const Json& j) {
  StudyTable t;
  t.description = j.at("description").get<std::string>();
  t.columns = j.at("columns").get<std::vector<std::string>>();
  for (const auto& row : j.at("rows")) {
    std::vector<double> values;
    for (const auto& v : row) values.push_back(v.is_number() ? v.get<double>() : kNan);
    t.rows.push_back(values);
  }
  return t;
}

}  // namespace

fs::path normalisationsFile(const fs::path& store) {
  return store.parent_path() / "normalisations.json";
}

void captureAndScoreStore(const engine::CaptureConfig& capture, const std::string& device,
                          JobContext& job) {
  job.info("capturing the model's hidden states into " + capture.output.string());
  engine::runCapture(capture, job);
  job.info("scoring the layers of " + capture.output.string());
  geometry::scoreStore(scoringOf(capture.output, device), job);
}

void scoreOtherNormalisations(const fs::path& store, const std::string& device,
                              const geometry::LayerRange& candidates, JobContext& job) {
  Json all = Json::object(), tables = Json::object();
  for (const geometry::Normalisation mode : kOtherNormalisations) {
    const std::string name = geometry::normalisationName(mode);
    job.info("scoring the layers with normalisation " + name);
    geometry::StoreScoring scoring = scoringOf(store, device);
    scoring.options.normalisation = mode;
    scoring.writeGeometry = false;  // /geometry keeps the default (`trace`) scan
    const geometry::GeometryReport report = geometry::scoreStore(scoring, job).report;
    Json layers = Json::array();
    for (const auto& layer : report.layers)
      layers.push_back({{"layer", layer.layer},
                        {"curvature", numberJson(layer.values.curvature)},
                        {"monotonicity", numberJson(layer.values.monotonicity)},
                        {"effective_rank", numberJson(layer.values.effectiveRank)}});
    all[name] = layers;
    tables[name] = tableJson(layerTable(report, candidates));
  }
  all["tables"] = tables;  // not a normalisation's name: readNormalisation never reads it
  io::writeTextAtomically(normalisationsFile(store), all.dump(2) + "\n");
}

std::pair<std::vector<int64_t>, std::vector<geometry::ProxyValues>> readNormalisation(
    const fs::path& file, geometry::Normalisation mode) {
  const Json all = Json::parse(readWholeFile(file), nullptr, false);
  const char* name = geometry::normalisationName(mode);
  if (all.is_discarded() || !all.contains(name))
    throw FormatError(file, std::string("has no layers scored with ") + name);
  // An undefined proxy (e.g. m_curv of layer 0, all neighbourhoods zero-spread) is NaN, which
  // JSON writes as null.
  const auto number = [&](const Json& row, const char* key) {
    const Json& v = row.at(key);
    if (v.is_null()) return kNan;
    if (!v.is_number())
      throw FormatError(file, std::string("has a non-number ") + key, key, "value");
    return v.get<double>();
  };
  std::vector<int64_t> layers;
  std::vector<geometry::ProxyValues> values;
  for (const auto& row : all.at(name)) {
    layers.push_back(row.at("layer").get<int64_t>());
    values.push_back(
        {number(row, "curvature"), number(row, "monotonicity"), number(row, "effective_rank")});
  }
  return {layers, values};
}

StudyTable layerTable(const geometry::GeometryReport& report,
                      const geometry::LayerRange& candidates) {
  const std::vector<int64_t> layers = report.layerIndices();
  const geometry::ScoredLayers scored = geometry::scoreSeries(
      layers, geometry::metricSeries(report), report.options, report.numLayers, {{}, candidates});
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
  const auto report = geometry::readGeometry(store);
  if (!report) return tables;
  tables[std::string("layers_") + geometry::normalisationName(report->options.normalisation)] =
      layerTable(*report, candidates);
  const fs::path others = normalisationsFile(store);
  if (!fs::exists(others)) return tables;
  const Json all = Json::parse(readWholeFile(others), nullptr, false);
  if (all.is_discarded() || !all.contains("tables")) return tables;  // written before tables
  for (const auto& [name, table] : all.at("tables").items())
    tables["layers_" + name] = tableFrom(table);
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

recipes::BridgeSweepResult sweepOf(const std::vector<int64_t>& layers,
                                   const std::vector<geometry::ProxyValues>& values,
                                   const geometry::LayerRange& candidates,
                                   const std::vector<BridgeLoss>& bridges, const fs::path& source) {
  const auto scores = geometry::scoreLayers(layers, geometry::proxySeries(values), {}, candidates);
  recipes::BridgeSweepResult sweep;
  for (const auto& bridge : bridges) {
    recipes::BridgeSweepRow row;
    row.layer = bridge.layer;
    row.valLoss = bridge.valLoss;
    const auto index =
        static_cast<size_t>(std::find(layers.begin(), layers.end(), row.layer) - layers.begin());
    if (index >= layers.size())
      throw FormatError(source, "has no score for layer " + std::to_string(row.layer));
    row.score = scores.score[index];
    row.curvature = values[index].curvature;
    row.monotonicity = values[index].monotonicity;
    row.effectiveRank = values[index].effectiveRank;
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
