#include "geometry/store_scoring.h"

#include <utility>

#include "common/job.h"
#include "geometry/term_cancellation.h"
#include "io/activation_store.h"

namespace strata::geometry {

ScoredGeometry scoreReport(GeometryReport report, const ScoreChoice& choice) {
  ScoredGeometry scored;
  scored.report = std::move(report);
  const GeometryReport& r = scored.report;
  scored.series = metricSeries(r);
  for (size_t s = 0; s < scored.series.size(); ++s)
    scored.weights.push_back(weightOf(scored.series, choice.weights, s));
  scored.candidates = choice.candidates.value_or(defaultCandidates(r.numLayers));
  const std::vector<int64_t> layers = r.layerIndices();
  scored.scores = scoreLayers(layers, scored.series, scored.weights, scored.candidates);
  scored.bootstrap = bootstrapScores(layers, scored.series, scored.weights, scored.candidates,
                                     r.options.confidence);
  if (std::string w =
          cancellingTermsWarning(r.options.normalisation, r.options.monotonicity, scored.weights);
      !w.empty())
    scored.scoreWarnings.push_back(std::move(w));
  return scored;
}

ScoredGeometry scoreStore(const StoreScoring& request, JobContext& job) {
  const auto backend = makeGeometryBackend(request.device);
  job.info("scoring on " + backend->description());
  GeometryReport report;
  {  // the reader is closed before /geometry is written into the same file
    const ActivationStore store = ActivationStore::open(request.store);
    report = scanStore(store, *backend, request.options, job, request.layers, request.metrics);
  }
  job.checkCancelled();
  ScoredGeometry scored = scoreReport(std::move(report), request.choice);
  if (request.writeGeometry) {
    job.progress(-1.0, "writing /geometry");
    writeGeometry(request.store, scored);
  }
  return scored;
}

}  // namespace strata::geometry
