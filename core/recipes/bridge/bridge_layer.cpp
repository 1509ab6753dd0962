// l* of a store (see bridge_layer.h).

#include "recipes/bridge/bridge_layer.h"

#include "common/error.h"
#include "geometry/geometry_report.h"
#include "geometry/metric_series.h"
#include "geometry/score.h"
#include "geometry/store_scoring.h"

namespace strata::recipes {

int64_t bestLayerOfStore(const std::filesystem::path& store) {
  const auto report = geometry::readGeometry(store);
  if (!report || report->layers.empty())
    throw FormatError(store, "has no layer scores (/geometry): run `strata-cli score --store " +
                                 store.string() + "` first, or give the layer");
  // Under the weights and candidates the store was scored with: the l* `score` printed.
  const geometry::ScoredGeometry scored = geometry::scoreReport(*report, report->scoredWith);
  if (scored.scores.bestIndex < 0) throw FormatError(store, "has no scorable candidate layer");
  return report->layers[static_cast<size_t>(scored.scores.bestIndex)].layer;
}

}  // namespace strata::recipes
