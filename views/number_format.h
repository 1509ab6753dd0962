#pragma once
// How views write large numbers: parameter counts as "1.24 B", sizes as "2.31 GiB".

#include <QString>
#include <cstdint>

namespace strata {

/** Three significant digits with K / M / B / T suffixes: 999, 12.3 K, 1.24 B. */
QString formatCount(int64_t count);
/** Binary units: 512 B, 1.50 KiB, 2.31 GiB. */
QString formatBytes(int64_t bytes);
/** Digits grouped in threes: 1,235,814,400. */
QString formatGrouped(int64_t value);

}  // namespace strata
