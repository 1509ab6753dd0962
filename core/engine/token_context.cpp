#include "engine/token_context.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace strata::engine {

TokenContext tokenContext(const std::vector<int32_t>& documents,
                          const std::vector<int32_t>& positions, int64_t row, int radius) {
  TokenContext context;
  const auto count = static_cast<int64_t>(std::min(documents.size(), positions.size()));
  if (row < 0 || row >= count) return context;
  const int32_t document = documents[static_cast<std::size_t>(row)];
  const int32_t centre = positions[static_cast<std::size_t>(row)];
  // A linear pass: stores keep rows in corpus order, but nothing here relies on it.
  std::vector<std::pair<int32_t, int64_t>> near;  // (position, row)
  for (int64_t r = 0; r < count; ++r) {
    const auto i = static_cast<std::size_t>(r);
    if (documents[i] == document && std::abs(positions[i] - centre) <= radius)
      near.emplace_back(positions[i], r);
  }
  std::sort(near.begin(), near.end());
  // One row per position (a position stored twice would repeat its text); `row` itself wins.
  std::vector<std::pair<int32_t, int64_t>> unique;
  for (const auto& entry : near) {
    if (!unique.empty() && unique.back().first == entry.first) {
      if (entry.second == row) unique.back().second = row;
      continue;
    }
    unique.push_back(entry);
  }
  // Document tokens before the first stored one (the window never reaches before position 0).
  if (!unique.empty() && unique.front().first > std::max(centre - radius, 0))
    context.rows.push_back(TokenContext::kGap);
  for (std::size_t i = 0; i < unique.size(); ++i) {
    if (i > 0 && unique[i].first > unique[i - 1].first + 1)
      context.rows.push_back(TokenContext::kGap);
    if (unique[i].second == row) context.selected = context.rows.size();
    context.rows.push_back(unique[i].second);
  }
  return context;
}

}  // namespace strata::engine
