#pragma once
// Reading HF's JSON tokenizer files with errors that name the file and the key path
// ("model.merges[12]"), instead of nlohmann's bare type_error. Internal to core/tokenizer.

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/error.h"

namespace strata::tokenizer {

using Json = nlohmann::json;

/** Parses a JSON file. Throws IoError when it cannot be read, FormatError when it is not JSON. */
Json readJsonFile(const std::filesystem::path& file);

/** Typed access to the fields of one JSON document; every problem becomes a FormatError with
 *  the document's path and the key path given by the caller. */
class JsonFields {
 public:
  explicit JsonFields(std::filesystem::path file) : m_file(std::move(file)) {}
  const std::filesystem::path& file() const { return m_file; }

  /** FormatError(file, problem, keyPath, "key"), for the caller to throw. */
  FormatError error(const std::string& keyPath, const std::string& problem) const;

  /** `object[key]`, which must exist and not be null. */
  const Json& require(const Json& object, const std::string& key, const std::string& path) const;
  /** `object[key]`, or nullptr when absent or null. */
  const Json* find(const Json& object, const std::string& key, const std::string& path) const;

  std::string string(const Json& object, const std::string& key, const std::string& path) const;
  std::optional<std::string> optionalString(const Json& object, const std::string& key,
                                            const std::string& path) const;
  bool flag(const Json& object, const std::string& key, const std::string& path,
            bool fallback) const;
  int64_t integer(const Json& object, const std::string& key, const std::string& path) const;
  /** A value that must be an integer (array elements, map values). */
  int64_t integerValue(const Json& value, const std::string& path) const;
  /** A value that must be a string. */
  std::string stringValue(const Json& value, const std::string& path) const;

  static std::string child(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }
  static std::string element(const std::string& path, size_t index) {
    return path + "[" + std::to_string(index) + "]";
  }

 private:
  std::filesystem::path m_file;
};

}  // namespace strata::tokenizer
