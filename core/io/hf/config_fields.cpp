// See config_fields.h.

#include "io/hf/config_fields.h"

namespace strata::io {

using nlohmann::json;

std::optional<RopeScaling> ropeScalingFrom(const json& node, const std::filesystem::path& file,
                                           const std::string& key) {
  if (!node.is_object()) throw ConfigError(file, key, "must be an object");
  ConfigFields scaling(node, file);
  RopeScaling result;
  result.type = scaling.stringOr("rope_type", scaling.stringOr("type", "default"));
  if (result.type == "default") return std::nullopt;
  result.factor = scaling.numberOr("factor", 1.0);
  result.lowFreqFactor = scaling.numberOr("low_freq_factor", 1.0);
  result.highFreqFactor = scaling.numberOr("high_freq_factor", 4.0);
  result.originalMaxPositions = scaling.integerOr("original_max_position_embeddings", 8192);
  if (result.factor <= 0) throw ConfigError(file, key + ".factor", "must be positive");
  if (result.type == "llama3" && result.highFreqFactor <= result.lowFreqFactor)
    throw ConfigError(file, key + ".high_freq_factor", "must be greater than low_freq_factor");
  return result;
}

std::optional<RopeScaling> ropeScalingOf(const ConfigFields& fields) {
  // Newer configs moved rope_scaling into rope_parameters (which also carries rope_theta).
  const char* key = fields.has("rope_scaling") ? "rope_scaling" : "rope_parameters";
  if (!fields.has(key)) return std::nullopt;
  return ropeScalingFrom(fields.root()[key], fields.file(), key);
}

}  // namespace strata::io
