#pragma once
// Typed access to config.json's fields, for the architecture descriptors (io/arch) and
// hf_config.cpp: every error names the file and the field. Only io's own files include this
// (it brings nlohmann/json).

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "io/hf/hf_config.h"

namespace strata::io {

/** Typed access to config.json fields, naming the file and field in every error. */
class ConfigFields {
 public:
  ConfigFields(const nlohmann::json& root, const std::filesystem::path& file)
      : m_root(root), m_file(file) {}

  bool has(const char* key) const { return m_root.contains(key) && !m_root[key].is_null(); }

  int64_t positiveInt(const char* key) const {
    const int64_t value = integer(key);
    if (value <= 0)
      throw ConfigError(m_file, key, "must be positive, got " + std::to_string(value));
    return value;
  }

  int64_t integer(const char* key) const {
    const nlohmann::json& value = required(key);
    if (!value.is_number_integer())
      throw ConfigError(m_file, key, "must be an integer, got " + std::string(value.type_name()));
    return value.get<int64_t>();
  }

  int64_t integerOr(const char* key, int64_t fallback) const {
    return has(key) ? integer(key) : fallback;
  }

  double numberOr(const char* key, double fallback) const {
    if (!has(key)) return fallback;
    const nlohmann::json& value = m_root[key];
    if (!value.is_number())
      throw ConfigError(m_file, key, "must be a number, got " + std::string(value.type_name()));
    return value.get<double>();
  }

  bool booleanOr(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    const nlohmann::json& value = m_root[key];
    if (!value.is_boolean())
      throw ConfigError(m_file, key,
                        "must be true or false, got " + std::string(value.type_name()));
    return value.get<bool>();
  }

  std::string stringOr(const char* key, std::string fallback) const {
    if (!has(key)) return fallback;
    const nlohmann::json& value = m_root[key];
    if (!value.is_string())
      throw ConfigError(m_file, key, "must be a string, got " + std::string(value.type_name()));
    return value.get<std::string>();
  }

  /** A token id field that may be one integer or a list of integers (eos_token_id). */
  std::vector<int64_t> idList(const char* key) const {
    if (!has(key)) return {};
    const nlohmann::json& value = m_root[key];
    if (value.is_number_integer()) return {value.get<int64_t>()};
    if (value.is_array()) {
      std::vector<int64_t> ids;
      for (const nlohmann::json& id : value) {
        if (!id.is_number_integer()) throw ConfigError(m_file, key, "list must hold integers");
        ids.push_back(id.get<int64_t>());
      }
      return ids;
    }
    throw ConfigError(m_file, key, "must be an integer or a list of integers");
  }

  const nlohmann::json& required(const char* key) const {
    if (!has(key)) throw ConfigError(m_file, key, "is missing");
    return m_root[key];
  }

  const nlohmann::json& root() const { return m_root; }
  const std::filesystem::path& file() const { return m_file; }

 private:
  const nlohmann::json& m_root;
  const std::filesystem::path& m_file;
};

/** A rope_scaling object, or one layer type's entry of rope_parameters (`key` names it);
 *  nullopt for "default". */
std::optional<RopeScaling> ropeScalingFrom(const nlohmann::json& node,
                                           const std::filesystem::path& file,
                                           const std::string& key);
/** rope_scaling, or (newer configs) rope_parameters; nullopt when neither scales. */
std::optional<RopeScaling> ropeScalingOf(const ConfigFields& fields);

}  // namespace strata::io
