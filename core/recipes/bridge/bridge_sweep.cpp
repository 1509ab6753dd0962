// The bridgeability sweep (see bridge_sweep.h).

#include "recipes/bridge/bridge_sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/job.h"
#include "common/text_file.h"
#include "engine/capture.h"
#include "engine/device_choice.h"
#include "engine/run_folder.h"
#include "geometry/backend.h"
#include "geometry/geometry_report.h"
#include "geometry/metric_series.h"
#include "geometry/rank_correlation.h"
#include "geometry/score.h"
#include "geometry/store_scoring.h"
#include "io/atomic_file.h"
#include "io/gguf/gguf_import.h"
#include "io/store/activation_store.h"

namespace strata::recipes {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

/** object[key] as a number, NaN when the key is absent or null (statistics that are undefined,
 *  or reports written before they existed). */
double numberOrNaN(const Json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() || it->is_null() ? std::numeric_limits<double>::quiet_NaN()
                                             : it->get<double>();
}

}  // namespace

BridgeSweepRow bridgeSweepRow(int64_t layer, const fs::path& run) {
  BridgeSweepRow row;
  row.layer = layer;
  row.run = run;
  const engine::RunMetrics metrics = engine::RunFolder(run).metrics();
  row.valLoss = engine::minimumOf(metrics.validationLoss());
  // Each at the last evaluation, as the bridge logs them together with the validation loss.
  row.valCosine = metrics.last("val_cosine");
  row.ceGap = metrics.last("val_ce_gap");
  if (const double rounding = metrics.last("val_rounding_accuracy"); std::isfinite(rounding))
    row.roundingAccuracy = rounding;
  return row;
}

namespace {

/** A statistic as JSON: null when undefined. */
Json statistic(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

/** A statistic for the Markdown report: "n/a" when undefined. */
std::string shown(double v) {
  if (!std::isfinite(v)) return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, "%+.3f", v);
  return text;
}

}  // namespace

void writeBridgeSweepReport(const BridgeSweepResult& r, const fs::path& folder) {
  Json rows = Json::array();
  std::string csv = "layer,score,m_curv,m_mono,k_eff,val_loss,val_cosine,val_ce_gap,run\n";
  for (const auto& row : r.rows) {
    rows.push_back({{"layer", row.layer},
                    {"score", row.score},
                    {"m_curv", statistic(row.curvature)},
                    {"m_mono", statistic(row.monotonicity)},
                    {"k_eff", statistic(row.effectiveRank)},
                    {"val_loss", row.valLoss},
                    {"val_cosine", row.valCosine},
                    {"val_ce_gap", row.ceGap},
                    {"run", row.run.string()}});
    csv += std::to_string(row.layer) + "," + Json(row.score).dump() + "," +
           statistic(row.curvature).dump() + "," + statistic(row.monotonicity).dump() + "," +
           statistic(row.effectiveRank).dump() + "," + Json(row.valLoss).dump() + "," +
           Json(row.valCosine).dump() + "," + Json(row.ceGap).dump() + "," + row.run.string() +
           "\n";
  }
  Json baselines = Json::array();
  for (const auto& row : r.baselines)
    baselines.push_back({{"layer", row.layer},
                         {"kind", "embedding diffusion (unconditional)"},
                         {"val_loss", row.valLoss},
                         {"val_cosine", row.valCosine},
                         {"val_ce_gap", row.ceGap},
                         {"val_rounding_accuracy", row.roundingAccuracy},
                         {"run", row.run.string()}});
  const Json report = {{"store", r.store.string()},
                       {"normalisation", r.normalisation},
                       {"rho", r.rho},
                       {"p_value", r.pValue},
                       {"rho_m_curv", statistic(r.rhoCurvature)},
                       {"rho_m_mono", statistic(r.rhoMonotonicity)},
                       {"rho_neg_k_eff", statistic(r.rhoEffectiveRank)},
                       {"rho_neg_depth", statistic(r.rhoDepth)},
                       {"partial_rho_given_depth", statistic(r.partialRho)},
                       {"best_by_score", r.bestByScore},
                       {"best_by_loss", r.bestByLoss},
                       {"worst_by_score", r.worstByScore},
                       {"layers", rows},
                       {"baselines", baselines}};
  io::writeTextAtomically(folder / "sweep.json", report.dump(2) + "\n");
  io::writeTextAtomically(folder / "sweep.csv", csv);
  io::writeTextAtomically(folder / "sweep.md", sweepStatisticsMarkdown(r));
}

std::string sweepStatisticsMarkdown(const BridgeSweepResult& r) {
  return "# Bridgeability sweep\n\nStore: " + r.store.string() + " (normalisation " +
         r.normalisation + "), " + std::to_string(r.rows.size()) +
         " layers. Spearman ρ against −best val loss:\n\n| predictor | ρ |\n| --- | --- |\n" +
         "| S (score) | " + shown(r.rho) + " |\n| +m_curv | " + shown(r.rhoCurvature) +
         " |\n| +m_mono | " + shown(r.rhoMonotonicity) + " |\n| −k_eff | " +
         shown(r.rhoEffectiveRank) + " |\n| −depth | " + shown(r.rhoDepth) +
         " |\n| S given depth (partial) | " + shown(r.partialRho) + " |\n\n" +
         "Permutation p of ρ(S): " + Json(r.pValue).dump() +
         ". A partial ρ of n/a means S or the loss is ranked exactly like depth.\n";
}

void computeSweepStatistics(BridgeSweepResult& result) {
  std::vector<double> score, negativeLoss, depth, negativeDepth, curvature, monotonicity,
      negativeRank;
  for (const auto& row : result.rows) {
    score.push_back(row.score);
    negativeLoss.push_back(-row.valLoss);
    depth.push_back(double(row.layer));
    negativeDepth.push_back(-double(row.layer));
    curvature.push_back(row.curvature);
    monotonicity.push_back(row.monotonicity);
    negativeRank.push_back(-row.effectiveRank);
  }
  // A proxy undefined on a layer has no ρ (NaN) rather than ending the report.
  const auto rho = [&](const std::vector<double>& predictor) {
    for (double v : predictor)
      if (!std::isfinite(v)) return std::numeric_limits<double>::quiet_NaN();
    return geometry::spearmanRho(predictor, negativeLoss);
  };
  result.rho = geometry::spearmanRho(score, negativeLoss);
  result.rhoCurvature = rho(curvature);
  result.rhoMonotonicity = rho(monotonicity);
  result.rhoEffectiveRank = rho(negativeRank);
  result.rhoDepth = rho(negativeDepth);
  result.partialRho = result.rows.size() >= 3
                          ? geometry::partialSpearmanRho(score, negativeLoss, depth)
                          : std::numeric_limits<double>::quiet_NaN();
}

fs::path bridgeSweepStore(const BridgeSweepConfig& c) {
  return c.store.empty() ? c.folder / "acts.h5" : c.store;
}

void checkBridgeSweepLayers(const BridgeSweepConfig& c) {
  if (c.firstLayer < 0 || c.lastLayer < c.firstLayer)
    throw ConfigError("sweep-bridges", "layers", "must be a range a..b with 0 ≤ a ≤ b");
  if (c.lastLayer - c.firstLayer < 1)
    throw ConfigError("sweep-bridges", "layers", "needs at least two layers to correlate");
}

void prepareBridgeSweepStore(const BridgeSweepConfig& c, JobContext& job) {
  const fs::path store = bridgeSweepStore(c);
  if (c.store.empty() && (!fs::exists(store) || !geometry::readGeometry(store))) {
    // Checked before the capture (minutes for a large model) rather than after it.
    geometry::checkLayerChoice({c.firstLayer, c.lastLayer}, {}, io::modelLayerCount(c.model, &job),
                               c.model);
    engine::CaptureConfig capture;
    capture.modelFolder = c.model;
    capture.corpus = c.corpus;
    capture.output = store;
    capture.overwrite = true;
    capture.sampling.tokenBudget = c.captureTokens;
    capture.device = c.device;
    job.info("capturing " + c.model.string() + " into " + store.string());
    engine::runCapture(capture, job);
    job.info("scoring the layers of " + store.string());
    geometry::StoreScoring scoring;
    scoring.store = store;
    scoring.device = geometry::parseDeviceChoice(engine::resolveDevice(c.device, "device"));
    geometry::scoreStore(scoring, job);
  }
  const auto report = geometry::readGeometry(store);
  if (!report) throw FormatError(store, "has no layer scores: run `strata-cli score` on it first");
  const std::vector<int64_t> layers = report->layerIndices();
  for (int64_t layer = c.firstLayer; layer <= c.lastLayer; ++layer)
    if (std::find(layers.begin(), layers.end(), layer) == layers.end())
      throw FormatError(store, "has no score for layer " + std::to_string(layer));
}

std::vector<std::string> bridgeSweepLayerSettings(int64_t layer) {
  std::vector<std::string> settings = {"layer=" + std::to_string(layer)};
  if (layer == 0) {
    // The baseline is embedding-space diffusion (Diffusion-LM): it generates h_0 from noise
    // without seeing h_0. Conditioned on h_0 it would only learn to copy its condition.
    settings.emplace_back("condition=none");
    settings.emplace_back("process=gaussian");
  }
  return settings;
}

BridgeSweepResult finishBridgeSweep(const BridgeSweepConfig& c, std::vector<BridgeSweepRow> rows,
                                    std::vector<BridgeSweepRow> baselines) {
  BridgeSweepResult result;
  result.store = bridgeSweepStore(c);
  const auto report = geometry::readGeometry(result.store);
  if (!report)
    throw FormatError(result.store, "has no layer scores: run `strata-cli score` on it first");
  const std::vector<int64_t> layers = report->layerIndices();
  // The store's weights (those `score` printed its l* under), over the bridged range.
  const geometry::ScoredLayers scored = geometry::scoreSeries(
      layers, geometry::metricSeries(*report), report->options, report->numLayers,
      {report->scoredWith.weights, geometry::LayerRange{c.firstLayer, c.lastLayer}});
  const geometry::LayerScores& scores = scored.scores;
  for (BridgeSweepRow& row : rows) {
    const auto it = std::find(layers.begin(), layers.end(), row.layer);
    if (it == layers.end())
      throw FormatError(result.store, "has no score for layer " + std::to_string(row.layer));
    const auto index = static_cast<size_t>(it - layers.begin());
    row.score = scores.score[index];
    row.curvature = report->layers[index].values.curvature;
    row.monotonicity = report->layers[index].values.monotonicity;
    row.effectiveRank = report->layers[index].values.effectiveRank;
  }
  if (rows.empty()) throw Error("the sweep in " + c.folder.string() + " has no finished bridge");
  result.rows = std::move(rows);
  result.baselines = std::move(baselines);
  for (BridgeSweepRow& row : result.baselines) row.score = std::numeric_limits<double>::quiet_NaN();
  result.normalisation = geometry::normalisationName(report->options.normalisation);
  computeSweepStatistics(result);
  std::vector<double> score, negativeLoss;
  for (const auto& row : result.rows) {
    score.push_back(row.score);
    negativeLoss.push_back(-row.valLoss);
  }
  result.pValue = geometry::spearmanPermutationPValue(score, negativeLoss, c.permutations, 0);
  result.bestByScore = layers[static_cast<size_t>(scores.bestIndex)];
  result.worstByScore =
      std::min_element(result.rows.begin(), result.rows.end(), [](const auto& a, const auto& b) {
        return a.score < b.score;
      })->layer;
  result.bestByLoss =
      std::max_element(result.rows.begin(), result.rows.end(), [](const auto& a, const auto& b) {
        return a.valLoss > b.valLoss;
      })->layer;
  writeBridgeSweepReport(result, c.folder);
  return result;
}

BridgeSweepResult readBridgeSweep(const fs::path& folder) {
  const fs::path file = folder / "sweep.json";
  BridgeSweepResult result;
  try {
    const Json json = Json::parse(readWholeFile(file));
    result.store = json.at("store").get<std::string>();
    result.rho = json.at("rho").get<double>();
    result.pValue = json.at("p_value").get<double>();
    result.bestByScore = json.at("best_by_score").get<int64_t>();
    result.bestByLoss = json.at("best_by_loss").get<int64_t>();
    result.worstByScore = json.value("worst_by_score", int64_t{-1});
    // Reports written before these statistics existed read them as undefined.
    result.rhoCurvature = numberOrNaN(json, "rho_m_curv");
    result.rhoMonotonicity = numberOrNaN(json, "rho_m_mono");
    result.rhoEffectiveRank = numberOrNaN(json, "rho_neg_k_eff");
    result.rhoDepth = numberOrNaN(json, "rho_neg_depth");
    result.partialRho = numberOrNaN(json, "partial_rho_given_depth");
    result.normalisation = json.value("normalisation", std::string("trace"));
    for (const Json& row : json.value("baselines", Json::array())) {
      BridgeSweepRow r;
      r.layer = row.at("layer").get<int64_t>();
      r.score = std::numeric_limits<double>::quiet_NaN();
      r.valLoss = row.at("val_loss").get<double>();
      r.valCosine = row.at("val_cosine").get<double>();
      r.ceGap = row.at("val_ce_gap").get<double>();
      if (row.contains("val_rounding_accuracy") && row["val_rounding_accuracy"].is_number())
        r.roundingAccuracy = row["val_rounding_accuracy"].get<double>();
      r.run = row.at("run").get<std::string>();
      result.baselines.push_back(r);
    }
    for (const Json& row : json.at("layers")) {
      BridgeSweepRow r;
      r.layer = row.at("layer").get<int64_t>();
      r.score = row.at("score").get<double>();
      r.curvature = numberOrNaN(row, "m_curv");
      r.monotonicity = numberOrNaN(row, "m_mono");
      r.effectiveRank = numberOrNaN(row, "k_eff");
      r.valLoss = row.at("val_loss").get<double>();
      r.valCosine = row.at("val_cosine").get<double>();
      r.ceGap = row.at("val_ce_gap").get<double>();
      r.run = row.at("run").get<std::string>();
      result.rows.push_back(r);
    }
  } catch (const nlohmann::json::exception& e) {
    throw FormatError(file, std::string("is not a sweep report: ") + e.what());
  }
  return result;
}

}  // namespace strata::recipes
