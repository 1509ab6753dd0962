#pragma once
// The byte-pair merge loop shared by every BPE flavour here: HF tokenizer.json merges (rank =
// line in the merges list), tiktoken (rank of the merged byte string) and llama2.c (best
// score of the merged piece). Each of them reduces to "repeatedly merge the adjacent pair with
// the lowest rank, leftmost first", given a table (left id, right id) → (rank, merged id).

#include <cstdint>
#include <optional>
#include <vector>

namespace strata::tokenizer {

/** One merge rule: the pair's priority (lower merges first) and the id it merges into. */
struct PairMerge {
  int32_t rank = 0;
  int32_t merged = 0;
};

/** An open-addressing hash table (left id, right id) → PairMerge. Immutable once filled;
 *  lookups are lock-free and safe from several threads. */
class PairMergeTable {
 public:
  /** Sizes the table for about `count` pairs (optional; it grows as needed). */
  void reserve(size_t count);
  /** Inserts the rule, replacing an earlier rule for the same pair (HF builds its merge map
   *  the same way, so a repeated merges line takes the later rank). */
  void insertOrAssign(int32_t left, int32_t right, PairMerge merge);
  /** Inserts the rule unless the pair already has one. */
  void insertIfAbsent(int32_t left, int32_t right, PairMerge merge);
  /** The rule for (left, right), or nullptr. */
  const PairMerge* find(int32_t left, int32_t right) const;
  size_t size() const { return m_size; }

 private:
  struct Slot {
    uint64_t key = kEmpty;
    PairMerge merge;
  };
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  Slot* locate(uint64_t key);
  void grow();

  std::vector<Slot> m_slots;
  size_t m_size = 0;
  unsigned m_shift = 64;
};

/** Merges `symbols` in place until no adjacent pair has a rule. Among all candidate pairs the
 *  lowest rank goes first, ties to the leftmost — HF's Word::merge_all, tiktoken's
 *  _byte_pair_merge and llama2.c's encode loop all pick this way. A priority queue keeps it
 *  O(n log n) instead of rescanning the word after every merge. */
void mergePairs(std::vector<int32_t>& symbols, const PairMergeTable& table);

}  // namespace strata::tokenizer
