#include "geometry/store_scoring.h"

#include <algorithm>
#include <string>
#include <utility>

#include "common/error.h"
#include "common/job.h"
#include "geometry/scan_memory.h"
#include "geometry/term_cancellation.h"
#include "io/store/activation_store.h"

namespace strata::geometry {

namespace {

std::string hiddenStatesOf(int64_t numLayers) {
  return "its hidden states are 0.." + std::to_string(numLayers);
}

}  // namespace

void checkLayerChoice(const std::vector<int64_t>& layers, const ScoreChoice& choice,
                      int64_t numLayers, const std::filesystem::path& source) {
  for (int64_t layer : layers)
    if (layer < 0 || layer > numLayers)
      throw ConfigError(
          source, "layers",
          "layer " + std::to_string(layer) + " is not in the model: " + hiddenStatesOf(numLayers));
  if (!choice.candidates) return;
  const LayerRange& c = *choice.candidates;
  const std::string named = std::to_string(c.first) + ".." + std::to_string(c.last);
  if (c.first < 0 || c.last < c.first || c.last > numLayers)
    throw ConfigError(
        source, "candidates",
        "candidates " + named + " reach beyond the model: " + hiddenStatesOf(numLayers));
  if (!layers.empty() &&
      std::none_of(layers.begin(), layers.end(), [&](int64_t l) { return c.contains(l); }))
    throw ConfigError(
        source, "candidates",
        "candidates " + named + " hold none of the layers scored: S and l* would be undefined");
}

ScoredLayers scoreSeries(const std::vector<int64_t>& layers,
                         const std::vector<MetricSeries>& series, const ProxyOptions& options,
                         int64_t numLayers, const ScoreChoice& choice) {
  ScoredLayers scored;
  for (size_t s = 0; s < series.size(); ++s)
    scored.weights.push_back(weightOf(series, choice.weights, s));
  scored.candidates = choice.candidates.value_or(defaultCandidates(numLayers));
  scored.scores = scoreLayers(layers, series, scored.weights, scored.candidates);
  scored.bootstrap =
      bootstrapScores(layers, series, scored.weights, scored.candidates, options.confidence);
  if (std::string w =
          cancellingTermsWarning(options.normalisation, options.monotonicity, scored.weights);
      !w.empty())
    scored.scoreWarnings.push_back(std::move(w));
  return scored;
}

ScoredGeometry scoreReport(GeometryReport report, const ScoreChoice& choice) {
  ScoredGeometry scored;
  scored.series = metricSeries(report);
  static_cast<ScoredLayers&>(scored) =
      scoreSeries(report.layerIndices(), scored.series, report.options, report.numLayers, choice);
  scored.report = std::move(report);
  return scored;
}

ScoredGeometry scoreStore(const StoreScoring& request, JobContext& job) {
  const auto backend = makeGeometryBackend(request.device);
  job.info("scoring on " + backend->description());
  GeometryReport report;
  {  // the reader is closed before /geometry is written into the same file
    const io::ActivationStore store = io::ActivationStore::open(request.store);
    // Refused before the plan is printed: a layer the store does not hold, candidates beyond it.
    const std::vector<int64_t> layers = layersToScan(store, request.layers);
    checkLayerChoice(layers, request.choice, store.meta().numLayers, request.store);
    // Planned before the first layer is read: refused with what to change when it cannot fit,
    // and the bootstrap's lanes limited to what does.
    checkScanMemory(scanMemory(store.numTokens(), store.meta().hiddenSize, request.options,
                               !request.metrics.empty(), *backend),
                    *backend, request.store.filename().string(), &job);
    report = scanStore(store, *backend, request.options, job, layers, request.metrics);
  }
  job.checkCancelled();
  ScoredGeometry scored = scoreReport(std::move(report), request.choice);
  if (request.writeGeometry) {
    job.progress(-1.0, "writing /geometry");
    writeGeometry(request.store, scored, request.group);
  }
  return scored;
}

}  // namespace strata::geometry
