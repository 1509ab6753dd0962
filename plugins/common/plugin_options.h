#pragma once
// Header-only helpers shared by Strata's own plugins (no strata_core here: see
// core/plugin/strata_plugin.h). Parsing of the "name=value; name=value" options text, and the
// error reporting convention of the C ABI.

#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace strata_plugins {

inline std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

/** "a=1; b=2" (';' or newlines between pairs) → {a: 1, b: 2}. Throws std::invalid_argument. */
inline std::map<std::string, std::string> parseOptions(const char* text) {
  std::map<std::string, std::string> out;
  std::string all = text ? text : "";
  for (char& c : all)
    if (c == '\n') c = ';';
  std::stringstream in(all);
  std::string item;
  while (std::getline(in, item, ';')) {
    item = trimmed(item);
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("option '" + item + "' has no value");
    out[trimmed(item.substr(0, eq))] = trimmed(item.substr(eq + 1));
  }
  return out;
}

/** All of `text` as a number (std::stoll for integral T, std::stod otherwise); nullopt when it
 *  is not one, or has anything after the number. */
template <class T>
std::optional<T> wholeNumber(const std::string& text) {
  try {
    size_t used = 0;
    T value;
    if constexpr (std::is_integral_v<T>)
      value = static_cast<T>(std::stoll(text, &used));
    else
      value = static_cast<T>(std::stod(text, &used));
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

/** A number option, or `fallback` when absent. Throws std::invalid_argument naming it. */
inline double numberOption(const std::map<std::string, std::string>& options,
                           const std::string& name, double fallback) {
  const auto it = options.find(name);
  if (it == options.end()) return fallback;
  if (const auto value = wholeNumber<double>(it->second)) return *value;
  throw std::invalid_argument("option " + name + " must be a number, got '" + it->second + "'");
}

/** Writes `message` into the ABI's error buffer (truncated, always terminated). */
inline void reportError(char* error, size_t size, const std::string& message) {
  if (error == nullptr || size == 0) return;
  std::snprintf(error, size, "%s", message.c_str());
}

}  // namespace strata_plugins
