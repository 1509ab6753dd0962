#pragma once
// The text around one stored token, LIT-style: the rows of the same document whose positions lie
// within `radius` of it, in document order. An activation store keeps only sampled positions
// (position 0 of each sequence is skipped by default; unsampled sequences are absent), so the
// context may have holes: each is one kGap entry. Qt-free indexing over the store's /tokens.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace strata::engine {

struct TokenContext {
  static constexpr int64_t kGap = -1;
  /** Store rows in document order; kGap where positions are missing between two rows. */
  std::vector<int64_t> rows;
  /** Index into `rows` of the token asked for. */
  std::size_t selected = 0;
};

/**
 * The context of `row` (0 ≤ row < documents.size() == positions.size()): every row with the same
 * document and |position − position(row)| ≤ radius, sorted by position (one row per position),
 * with kGap between positions that are not consecutive and before the first row when the window
 * starts earlier (but not before position 0; how far a document goes on after its last stored
 * row is not known, so the end has no gap). Empty for a row out of range.
 */
TokenContext tokenContext(const std::vector<int32_t>& documents,
                          const std::vector<int32_t>& positions, int64_t row, int radius = 10);

}  // namespace strata::engine
