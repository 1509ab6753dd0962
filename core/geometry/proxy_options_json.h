#pragma once
// ProxyOptions as JSON: the `options` attribute of an activation store's /geometry, and the
// way two scans are told apart (equal JSON = the same settings).

#include <nlohmann/json.hpp>

#include "geometry/proxy_options.h"

namespace strata::geometry {

nlohmann::json optionsToJson(const ProxyOptions& options);

/** Reads what optionsToJson wrote; options added later take the value older stores implied. */
ProxyOptions optionsFromJson(const nlohmann::json& json);

}  // namespace strata::geometry
