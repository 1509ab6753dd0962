#include "number_format.h"

#include <array>
#include <cmath>
#include <cstdlib>

namespace strata {
namespace {

/** `value` with three significant digits (2 decimals below 10, 1 below 100, none above). */
QString threeDigits(double value) {
  const int decimals = value < 9.995 ? 2 : value < 99.95 ? 1 : 0;
  return QString::number(value, 'f', decimals);
}

}  // namespace

QString formatCount(int64_t count) {
  static constexpr std::array<const char*, 5> kSuffixes = {"", "K", "M", "B", "T"};
  double value = static_cast<double>(std::llabs(count));
  std::size_t unit = 0;
  // Move up a unit where rounding to three digits would print "1000".
  while (value >= 999.5 && unit + 1 < kSuffixes.size()) {
    value /= 1000.0;
    ++unit;
  }
  const QString sign = count < 0 ? QStringLiteral("-") : QString();
  if (unit == 0) return sign + QString::number(std::llabs(count));
  return sign + threeDigits(value) + QLatin1Char(' ') + QLatin1String(kSuffixes[unit]);
}

QString formatBytes(int64_t bytes) {
  static constexpr std::array<const char*, 6> kUnits = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double value = static_cast<double>(std::llabs(bytes));
  std::size_t unit = 0;
  while (value >= 1023.5 && unit + 1 < kUnits.size()) {
    value /= 1024.0;
    ++unit;
  }
  const QString sign = bytes < 0 ? QStringLiteral("-") : QString();
  if (unit == 0) return sign + QString::number(std::llabs(bytes)) + QStringLiteral(" B");
  return sign + threeDigits(value) + QLatin1Char(' ') + QLatin1String(kUnits[unit]);
}

QString formatGrouped(int64_t value) {
  QString digits = QString::number(std::llabs(value));
  for (int at = digits.size() - 3; at > 0; at -= 3) digits.insert(at, QLatin1Char(','));
  return value < 0 ? QLatin1Char('-') + digits : digits;
}

}  // namespace strata
