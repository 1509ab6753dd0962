// Typed run configurations (see config_schema.h).

#include "engine/config_schema.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.h"
#include "common/text_file.h"

namespace strata::engine {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

const char* typeName(SettingType type) {
  switch (type) {
    case SettingType::Integer:
      return "an integer";
    case SettingType::Real:
      return "a number";
    case SettingType::Boolean:
      return "true or false";
    case SettingType::Text:
      return "text";
    case SettingType::Choice:
      return "one of the choices";
    case SettingType::Path:
      return "a path";
  }
  return "a value";
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

/** The JSON value `json` as a value of `spec`, or ConfigError. */
SettingValue fromJson(const SettingSpec& spec, const Json& json, const fs::path& source) {
  const auto wrongType = [&] {
    return ConfigError(
        source, spec.key,
        "must be " + std::string(typeName(spec.type)) + " (got " + json.dump() + ")");
  };
  switch (spec.type) {
    case SettingType::Integer:
      if (json.is_number_integer()) return json.get<int64_t>();
      if (json.is_number_float()) {
        const double v = json.get<double>();
        if (std::trunc(v) == v && std::abs(v) < 9e15) return static_cast<int64_t>(v);
      }
      throw wrongType();
    case SettingType::Real:
      if (json.is_number()) return json.get<double>();
      throw wrongType();
    case SettingType::Boolean:
      if (json.is_boolean()) return json.get<bool>();
      throw wrongType();
    default:
      if (json.is_string()) return json.get<std::string>();
      throw wrongType();
  }
}

Json toJson(const SettingValue& value) {
  return std::visit([](const auto& v) { return Json(v); }, value);
}

void checkValue(const SettingSpec& spec, const SettingValue& value, const fs::path& source) {
  const auto typeMatches = [&] {
    switch (spec.type) {
      case SettingType::Integer:
        return std::holds_alternative<int64_t>(value);
      case SettingType::Real:
        return std::holds_alternative<double>(value);
      case SettingType::Boolean:
        return std::holds_alternative<bool>(value);
      default:
        return std::holds_alternative<std::string>(value);
    }
  };
  if (!typeMatches())
    throw ConfigError(source, spec.key, "must be " + std::string(typeName(spec.type)));
  if (spec.type == SettingType::Integer || spec.type == SettingType::Real) {
    const double v = spec.type == SettingType::Integer
                         ? static_cast<double>(std::get<int64_t>(value))
                         : std::get<double>(value);
    if (!std::isfinite(v)) throw ConfigError(source, spec.key, "must be finite");
    if (spec.minimum && v < *spec.minimum)
      throw ConfigError(
          source, spec.key,
          "must be at least " + settingText(*spec.minimum) + " (got " + settingText(value) + ")");
    if (spec.maximum && v > *spec.maximum)
      throw ConfigError(
          source, spec.key,
          "must be at most " + settingText(*spec.maximum) + " (got " + settingText(value) + ")");
  }
  if (spec.type == SettingType::Choice) {
    const auto& text = std::get<std::string>(value);
    bool known = false;
    for (const auto& choice : spec.choices) known = known || choice == text;
    if (!known)
      throw ConfigError(source, spec.key,
                        "must be one of " + joined(spec.choices) + " (got \"" + text + "\")");
  }
  if (spec.required && std::holds_alternative<std::string>(value) &&
      std::get<std::string>(value).empty())
    throw ConfigError(source, spec.key, "is required");
}

}  // namespace

SettingSpec makeSetting(std::string key, SettingType type, SettingValue defaultValue,
                        std::string description, std::string group, std::optional<double> minimum,
                        std::optional<double> maximum) {
  SettingSpec spec;
  spec.key = std::move(key);
  spec.type = type;
  spec.defaultValue = std::move(defaultValue);
  spec.description = std::move(description);
  spec.group = std::move(group);
  spec.minimum = minimum;
  spec.maximum = maximum;
  return spec;
}

SettingSpec makeChoice(std::string key, std::string defaultValue, std::vector<std::string> choices,
                       std::string description, std::string group) {
  SettingSpec spec = makeSetting(std::move(key), SettingType::Choice, std::move(defaultValue),
                                 std::move(description), std::move(group));
  spec.choices = std::move(choices);
  return spec;
}

const SettingSpec* ConfigSchema::find(const std::string& key) const {
  for (const auto& spec : settings)
    if (spec.key == key) return &spec;
  return nullptr;
}

ResolvedConfig::ResolvedConfig(const ConfigSchema& schema) {
  for (const auto& spec : schema.settings) m_values[spec.key] = spec.defaultValue;
}

const SettingValue& ResolvedConfig::value(const std::string& key) const {
  const auto it = m_values.find(key);
  if (it == m_values.end()) throw Error("run configuration has no setting \"" + key + "\"");
  return it->second;
}

namespace {
template <typename T>
const T& typed(const ResolvedConfig& config, const std::string& key) {
  const SettingValue& v = config.value(key);
  if (!std::holds_alternative<T>(v))
    throw Error("run configuration setting \"" + key + "\" has another type");
  return std::get<T>(v);
}
}  // namespace

int64_t ResolvedConfig::integer(const std::string& key) const { return typed<int64_t>(*this, key); }
double ResolvedConfig::real(const std::string& key) const { return typed<double>(*this, key); }
bool ResolvedConfig::boolean(const std::string& key) const { return typed<bool>(*this, key); }
const std::string& ResolvedConfig::text(const std::string& key) const {
  return typed<std::string>(*this, key);
}

std::string settingText(const SettingValue& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
  if (const auto* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  // The shortest text that reads back equal: 0.001, 10, 3e-05 (not 0.00100000000000000002).
  char text[64];
  const double v = std::get<double>(value);
  const bool plain = v == 0 || (std::abs(v) >= 1e-5 && std::abs(v) < 1e15);  // 0.0003, not 3e-04
  const auto result = plain ? std::to_chars(text, text + sizeof text, v, std::chars_format::fixed)
                            : std::to_chars(text, text + sizeof text, v);
  return std::string(text, result.ptr);
}

SettingValue parseSetting(const SettingSpec& spec, const std::string& text,
                          const fs::path& source) {
  SettingValue value;
  const auto bad = [&] {
    return ConfigError(source, spec.key,
                       "must be " + std::string(typeName(spec.type)) + " (got \"" + text + "\")");
  };
  try {
    size_t used = 0;
    switch (spec.type) {
      case SettingType::Integer: {
        int64_t whole = std::stoll(text, &used);
        if (used != text.size()) {  // "1e3" and "2.0" are whole numbers too
          const double real = std::stod(text, &used);
          if (used != text.size() || std::trunc(real) != real || std::abs(real) > 9e15) throw bad();
          whole = static_cast<int64_t>(real);
        }
        value = whole;
        break;
      }
      case SettingType::Real:
        value = std::stod(text, &used);
        if (used != text.size()) throw bad();
        break;
      case SettingType::Boolean:
        if (text == "true" || text == "1" || text == "yes" || text == "on")
          value = true;
        else if (text == "false" || text == "0" || text == "no" || text == "off")
          value = false;
        else
          throw bad();
        break;
      default:
        value = text;
    }
  } catch (const std::invalid_argument&) {
    throw bad();
  } catch (const std::out_of_range&) {
    throw bad();
  }
  checkValue(spec, value, source);
  return value;
}

void applyConfigJson(const ConfigSchema& schema, const std::string& text, const fs::path& source,
                     ResolvedConfig& config) {
  Json json;
  try {
    json = Json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw FormatError(source, std::string("is not valid JSON: ") + e.what());
  }
  if (!json.is_object()) throw ConfigError(source, "(top level)", "must be a JSON object");
  for (const auto& [key, item] : json.items()) {
    const SettingSpec* spec = schema.find(key);
    if (!spec)
      throw ConfigError(source, key, "is not a setting of the " + schema.recipe + " recipe");
    SettingValue value = fromJson(*spec, item, source);
    checkValue(*spec, value, source);
    config.set(key, std::move(value));
  }
}

void applyConfigFile(const ConfigSchema& schema, const fs::path& file, ResolvedConfig& config) {
  applyConfigJson(schema, readWholeFile(file), file, config);
}

void applyOverride(const ConfigSchema& schema, const std::string& assignment,
                   ResolvedConfig& config) {
  const fs::path source = "--set " + assignment;
  const size_t equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0)
    throw ConfigError(source, assignment, "must be written key=value");
  const std::string key = assignment.substr(0, equals);
  const SettingSpec* spec = schema.find(key);
  if (!spec) throw ConfigError(source, key, "is not a setting of the " + schema.recipe + " recipe");
  config.set(key, parseSetting(*spec, assignment.substr(equals + 1), source));
}

void validateConfig(const ConfigSchema& schema, const ResolvedConfig& config,
                    const fs::path& source) {
  for (const auto& spec : schema.settings) {
    if (!config.has(spec.key)) throw ConfigError(source, spec.key, "is missing");
    checkValue(spec, config.value(spec.key), source);
  }
  for (const auto& [key, value] : config.values())
    if (!schema.find(key))
      throw ConfigError(source, key, "is not a setting of the " + schema.recipe + " recipe");
}

std::string configToJson(const ConfigSchema& schema, const ResolvedConfig& config, int indent) {
  Json json = Json::object();
  for (const auto& spec : schema.settings)
    if (config.has(spec.key)) json[spec.key] = toJson(config.value(spec.key));
  return json.dump(indent);
}

}  // namespace strata::engine
