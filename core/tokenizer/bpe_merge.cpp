#include "tokenizer/bpe_merge.h"

#include <algorithm>
#include <bit>

namespace strata::tokenizer {

namespace {

uint64_t pairKey(int32_t left, int32_t right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}

// Fibonacci hashing: multiply and keep the top bits, which spreads consecutive ids well.
size_t slotOf(uint64_t key, unsigned shift) {
  return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift);
}

}  // namespace

void PairMergeTable::reserve(size_t count) {
  size_t capacity = 16;
  while (capacity < count * 2) capacity *= 2;
  if (capacity <= m_slots.size()) return;
  std::vector<Slot> old = std::move(m_slots);
  m_slots.assign(capacity, Slot{});
  m_shift = 64 - static_cast<unsigned>(std::countr_zero(capacity));
  m_size = 0;
  for (const Slot& s : old)
    if (s.key != kEmpty) {
      *locate(s.key) = s;
      ++m_size;
    }
}

void PairMergeTable::grow() { reserve(std::max<size_t>(m_size + 1, m_slots.size())); }

PairMergeTable::Slot* PairMergeTable::locate(uint64_t key) {
  const size_t mask = m_slots.size() - 1;
  for (size_t i = slotOf(key, m_shift);; i = (i + 1) & mask)
    if (m_slots[i].key == key || m_slots[i].key == kEmpty) return &m_slots[i];
}

void PairMergeTable::insertOrAssign(int32_t left, int32_t right, PairMerge merge) {
  if ((m_size + 1) * 2 > m_slots.size()) grow();
  Slot* slot = locate(pairKey(left, right));
  if (slot->key == kEmpty) ++m_size;
  *slot = Slot{pairKey(left, right), merge};
}

void PairMergeTable::insertIfAbsent(int32_t left, int32_t right, PairMerge merge) {
  if ((m_size + 1) * 2 > m_slots.size()) grow();
  Slot* slot = locate(pairKey(left, right));
  if (slot->key != kEmpty) return;
  ++m_size;
  *slot = Slot{pairKey(left, right), merge};
}

const PairMerge* PairMergeTable::find(int32_t left, int32_t right) const {
  if (m_slots.empty()) return nullptr;
  const uint64_t key = pairKey(left, right);
  const size_t mask = m_slots.size() - 1;
  for (size_t i = slotOf(key, m_shift);; i = (i + 1) & mask) {
    if (m_slots[i].key == key) return &m_slots[i].merge;
    if (m_slots[i].key == kEmpty) return nullptr;
  }
}

void mergePairs(std::vector<int32_t>& symbols, const PairMergeTable& table) {
  const auto n = static_cast<int32_t>(symbols.size());
  if (n < 2) return;
  // A doubly linked list over the symbols; a merged-away symbol is marked dead. Symbol i keeps
  // its original index, so comparing indices compares positions in the word.
  struct Candidate {
    int32_t rank;
    int32_t pos;
    int32_t merged;
    bool operator>(const Candidate& o) const {
      return rank != o.rank ? rank > o.rank : pos > o.pos;
    }
  };
  thread_local std::vector<int32_t> prev, next;
  thread_local std::vector<Candidate> heap;  // a min-heap by (rank, pos), storage reused
  prev.resize(n);
  next.resize(n);
  for (int32_t i = 0; i < n; ++i) {
    prev[i] = i - 1;
    next[i] = i + 1 < n ? i + 1 : -1;
  }
  heap.clear();
  const auto push = [](Candidate c) {
    heap.push_back(c);
    std::push_heap(heap.begin(), heap.end(), std::greater<>{});
  };
  for (int32_t i = 0; i + 1 < n; ++i)
    if (const PairMerge* m = table.find(symbols[i], symbols[i + 1]))
      heap.push_back({m->rank, i, m->merged});
  std::make_heap(heap.begin(), heap.end(), std::greater<>{});

  constexpr int32_t kDead = -1;
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>{});
    const Candidate top = heap.back();
    heap.pop_back();
    const int32_t right = next[top.pos];
    if (symbols[top.pos] == kDead || right < 0) continue;
    // Entries go stale when a neighbour merged first; like HF, accept the entry only if the
    // current pair still merges into the same id.
    const PairMerge* m = table.find(symbols[top.pos], symbols[right]);
    if (m == nullptr || m->merged != top.merged) continue;
    symbols[top.pos] = top.merged;
    symbols[right] = kDead;
    next[top.pos] = next[right];
    if (next[right] >= 0) prev[next[right]] = top.pos;
    if (prev[top.pos] >= 0)
      if (const PairMerge* l = table.find(symbols[prev[top.pos]], top.merged))
        push({l->rank, prev[top.pos], l->merged});
    if (next[top.pos] >= 0)
      if (const PairMerge* r = table.find(top.merged, symbols[next[top.pos]]))
        push({r->rank, top.pos, r->merged});
  }
  std::erase(symbols, kDead);
}

}  // namespace strata::tokenizer
