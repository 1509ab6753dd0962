#include "tokenizer/json_fields.h"

#include <fstream>
#include <sstream>

#include "common/error.h"
#include "common/text_file.h"

namespace strata::tokenizer {

Json readJsonFile(const std::filesystem::path& file) {
  const std::string content = readWholeFile(file);
  try {
    return Json::parse(content);
  } catch (const Json::parse_error& e) {
    throw FormatError(file, std::string("not valid JSON: ") + e.what());
  }
}

FormatError JsonFields::error(const std::string& keyPath, const std::string& problem) const {
  return FormatError(m_file, problem, keyPath, "key");
}

const Json* JsonFields::find(const Json& object, const std::string& key,
                             const std::string& path) const {
  if (!object.is_object()) throw error(path, "expected an object");
  const auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

const Json& JsonFields::require(const Json& object, const std::string& key,
                                const std::string& path) const {
  const Json* value = find(object, key, path);
  if (value == nullptr) throw error(child(path, key), "missing");
  return *value;
}

std::string JsonFields::stringValue(const Json& value, const std::string& path) const {
  if (!value.is_string())
    throw error(path, "expected a string, found " + std::string(value.type_name()));
  return value.get<std::string>();
}

int64_t JsonFields::integerValue(const Json& value, const std::string& path) const {
  if (!value.is_number_integer())
    throw error(path, "expected an integer, found " + std::string(value.type_name()));
  return value.get<int64_t>();
}

std::string JsonFields::string(const Json& object, const std::string& key,
                               const std::string& path) const {
  return stringValue(require(object, key, path), child(path, key));
}

std::optional<std::string> JsonFields::optionalString(const Json& object, const std::string& key,
                                                      const std::string& path) const {
  const Json* value = find(object, key, path);
  if (value == nullptr) return std::nullopt;
  return stringValue(*value, child(path, key));
}

bool JsonFields::flag(const Json& object, const std::string& key, const std::string& path,
                      bool fallback) const {
  const Json* value = find(object, key, path);
  if (value == nullptr) return fallback;
  if (!value->is_boolean())
    throw error(child(path, key),
                "expected true or false, found " + std::string(value->type_name()));
  return value->get<bool>();
}

int64_t JsonFields::integer(const Json& object, const std::string& key,
                            const std::string& path) const {
  return integerValue(require(object, key, path), child(path, key));
}

}  // namespace strata::tokenizer
