#include "geometry/store_scoring.h"

#include <utility>

#include "common/job.h"
#include "geometry/scan_memory.h"
#include "geometry/term_cancellation.h"
#include "io/store/activation_store.h"

namespace strata::geometry {

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
    // Planned before the first layer is read: refused with what to change when it cannot fit,
    // and the bootstrap's lanes limited to what does.
    checkScanMemory(scanMemory(store.numTokens(), store.meta().hiddenSize, request.options,
                               !request.metrics.empty(), *backend),
                    *backend, request.store.filename().string(), &job);
    report = scanStore(store, *backend, request.options, job, request.layers, request.metrics);
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
