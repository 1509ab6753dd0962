#pragma once
// Numbers as people read them: "1.24 B" parameters, "3.5 GiB" of weights, "1,234,567".

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace strata {

/** 260096 -> "260 K", 1235814400 -> "1.24 B" (3 significant digits; below 1000 as is). */
std::string formatCount(int64_t count);
/** 1536 -> "1.5 KiB"; binary units up to TiB. */
std::string formatBytes(int64_t bytes);
/** 3.14159, 2 -> "3.14" (fixed-point). NaN and infinities print as "nan" / "inf", or as
 *  `ifNotFinite` when one is given (a table's "–"). */
std::string formatFixed(double value, int digits, std::string_view ifNotFinite = {});
/** 1234567 -> "1,234,567". */
std::string formatWithSeparators(int64_t value);
/** {0, 1, 2, 3, 4, 5, 7, 9, 10, 11} -> "0–5, 7, 9–11": layer indices as ranges (sorted, each
 *  once). */
std::string formatLayerRanges(std::vector<int64_t> layers);

}  // namespace strata
