#pragma once
// Typed run configurations. Every recipe declares its settings as a ConfigSchema (key, type,
// default, range or choices, a one-line description); a ResolvedConfig holds one value for
// every setting, built from the defaults, a JSON config file and `key=value` overrides, and
// validated against the schema. The CLI parses with it, the GUI's launcher dialog builds its
// form from it, run.json stores it. No torch and no Qt here.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace strata::engine {

enum class SettingType { Integer, Real, Boolean, Text, Choice, Path };

/** A setting's value: Integer → int64_t, Real → double, Boolean → bool, the rest → string. */
using SettingValue = std::variant<int64_t, double, bool, std::string>;

struct SettingSpec {
  std::string key;  ///< JSON key and `--set` name, e.g. "grad_clip"
  SettingType type = SettingType::Integer;
  SettingValue defaultValue;      ///< for Path/Text an empty string may mean "required"
  std::string description;        ///< one line: what it does, units (GUI tooltip, CLI help)
  std::string group;              ///< "run", "optimizer", "model", "data", ... (GUI sections)
  std::optional<double> minimum;  ///< inclusive bounds for Integer and Real
  std::optional<double> maximum;
  std::vector<std::string> choices;  ///< the allowed values of a Choice
  bool required = false;             ///< Text/Path: an empty value is an error
};

struct ConfigSchema {
  std::string recipe;
  std::string description;
  std::vector<SettingSpec> settings;
  /** The spec of `key`, or nullptr. */
  const SettingSpec* find(const std::string& key) const;
};

/** A spec in one call (the schemas are long lists of these). */
SettingSpec makeSetting(std::string key, SettingType type, SettingValue defaultValue,
                        std::string description, std::string group,
                        std::optional<double> minimum = {}, std::optional<double> maximum = {});
SettingSpec makeChoice(std::string key, std::string defaultValue, std::vector<std::string> choices,
                       std::string description, std::string group);

/** One value per setting of a schema. */
class ResolvedConfig {
 public:
  ResolvedConfig() = default;
  /** The schema's defaults. */
  explicit ResolvedConfig(const ConfigSchema& schema);

  int64_t integer(const std::string& key) const;
  double real(const std::string& key) const;
  bool boolean(const std::string& key) const;
  /** Text, Choice and Path values. */
  const std::string& text(const std::string& key) const;
  const SettingValue& value(const std::string& key) const;
  void set(const std::string& key, SettingValue value) { m_values[key] = std::move(value); }
  bool has(const std::string& key) const { return m_values.count(key) != 0; }
  const std::map<std::string, SettingValue>& values() const { return m_values; }
  bool operator==(const ResolvedConfig& other) const = default;

 private:
  std::map<std::string, SettingValue> m_values;
};

/** A value as text: integers plainly, reals with up to 17 significant digits, true/false. */
std::string settingText(const SettingValue& value);

/**
 * Parses `text` as a value of `spec` (the GUI's fields and `--set key=value` use it). Throws
 * ConfigError naming `source` and the key when the text is not of the type, out of range or not
 * one of the choices.
 */
SettingValue parseSetting(const SettingSpec& spec, const std::string& text,
                          const std::filesystem::path& source);

/** Overlays the JSON object in `file` on `config`. Unknown keys and wrong types: ConfigError. */
void applyConfigFile(const ConfigSchema& schema, const std::filesystem::path& file,
                     ResolvedConfig& config);
/** Overlays a JSON object given as text (`source` names it in errors). */
void applyConfigJson(const ConfigSchema& schema, const std::string& json,
                     const std::filesystem::path& source, ResolvedConfig& config);
/** Applies one "key=value" override (`--set`). */
void applyOverride(const ConfigSchema& schema, const std::string& assignment,
                   ResolvedConfig& config);

/** Checks every value against its spec (type, range, choices, required). Throws ConfigError. */
void validateConfig(const ConfigSchema& schema, const ResolvedConfig& config,
                    const std::filesystem::path& source);

/** The config as a JSON object, keys in schema order (run.json's "config"). */
std::string configToJson(const ConfigSchema& schema, const ResolvedConfig& config, int indent = 2);

}  // namespace strata::engine
