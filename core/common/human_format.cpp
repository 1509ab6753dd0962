#include "common/human_format.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace strata {
namespace {

/** value / base^k with k chosen so the mantissa is below `base`, printed with 3 significant digits.
 */
std::string scaled(double value, double base, const std::array<const char*, 5>& units) {
  std::size_t unit = 0;
  // 999.95 K must read "1.00 M": move up a unit when rounding to 3 digits would reach `base`.
  while (std::fabs(value) >= base * (unit == 0 ? 1.0 : 0.9995) && unit + 1 < units.size()) {
    value /= base;
    ++unit;
  }
  char text[32];
  if (unit == 0) {
    std::snprintf(text, sizeof text, "%.0f%s", value, units[0]);
  } else {
    const int decimals = std::fabs(value) >= 100 ? 0 : std::fabs(value) >= 10 ? 1 : 2;
    std::snprintf(text, sizeof text, "%.*f %s", decimals, value, units[unit]);
  }
  return text;
}

}  // namespace

std::string formatCount(int64_t count) {
  return scaled(static_cast<double>(count), 1000.0, {"", "K", "M", "B", "T"});
}

std::string formatFixed(double value, int digits, std::string_view ifNotFinite) {
  if (!std::isfinite(value) && !ifNotFinite.empty()) return std::string(ifNotFinite);
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(digits);
  out << value;
  return out.str();
}

std::string formatBytes(int64_t bytes) {
  if (std::llabs(bytes) < 1024) return std::to_string(bytes) + " B";
  return scaled(static_cast<double>(bytes), 1024.0, {" B", "KiB", "MiB", "GiB", "TiB"});
}

std::string formatWithSeparators(int64_t value) {
  const std::string digits = std::to_string(value < 0 ? -value : value);
  std::string text = value < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) text.push_back(',');
    text.push_back(digits[i]);
  }
  return text;
}

std::string formatLayerRanges(std::vector<int64_t> layers) {
  std::sort(layers.begin(), layers.end());
  layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
  std::string out;
  for (std::size_t i = 0; i < layers.size();) {
    std::size_t j = i;
    while (j + 1 < layers.size() && layers[j + 1] == layers[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(layers[i]) +
           (j > i ? "–" + std::to_string(layers[j]) : "");
    i = j + 1;
  }
  return out;
}

}  // namespace strata
