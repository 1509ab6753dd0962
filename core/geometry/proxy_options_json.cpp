#include "geometry/proxy_options_json.h"

namespace strata::geometry {

nlohmann::json optionsToJson(const ProxyOptions& o) {
  return {{"anchors", o.anchors},
          {"neighbours", o.neighbours},
          {"directions", o.directions},
          {"ridge_factor", o.ridgeFactor},
          {"monotonicity", monotonicityModeName(o.monotonicity)},
          {"normalisation", normalisationName(o.normalisation)},
          {"jackknife_blocks", o.jackknifeBlocks},
          {"spectrum_size", o.spectrumSize},
          {"bootstrap_resamples", o.bootstrapResamples},
          {"confidence", o.confidence},
          {"seed", o.seed}};
}

ProxyOptions optionsFromJson(const nlohmann::json& j) {
  ProxyOptions o;
  o.anchors = j.at("anchors");
  o.neighbours = j.at("neighbours");
  o.directions = j.at("directions");
  o.ridgeFactor = j.at("ridge_factor");
  o.monotonicity = parseMonotonicityMode(j.at("monotonicity"));
  // Stores written before these options existed: `trace` and percentile intervals.
  o.normalisation = parseNormalisation(j.value("normalisation", "trace"));
  o.jackknifeBlocks = j.value("jackknife_blocks", int64_t(0));
  o.spectrumSize = j.at("spectrum_size");
  o.bootstrapResamples = j.at("bootstrap_resamples");
  o.confidence = j.at("confidence");
  o.seed = j.at("seed");
  return o;
}

}  // namespace strata::geometry
