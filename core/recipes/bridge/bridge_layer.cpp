// l* of a store (see bridge_layer.h).

#include "recipes/bridge/bridge_layer.h"

#include "common/error.h"
#include "geometry/geometry_report.h"
#include "geometry/metric_series.h"
#include "geometry/score.h"

namespace strata::recipes {

int64_t bestLayerOfStore(const std::filesystem::path& store) {
  const auto report = geometry::readGeometry(store);
  if (!report || report->layers.empty())
    throw FormatError(store, "has no layer scores (/geometry): run `strata-cli score --store " +
                                 store.string() + "` first, or give the layer");
  const auto scores = geometry::scoreLayers(report->layerIndices(), geometry::metricSeries(*report),
                                            {}, geometry::defaultCandidates(report->numLayers));
  if (scores.bestIndex < 0) throw FormatError(store, "has no scorable candidate layer");
  return report->layers[static_cast<size_t>(scores.bestIndex)].layer;
}

}  // namespace strata::recipes
