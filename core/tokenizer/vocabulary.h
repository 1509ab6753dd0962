#pragma once
// Token strings ↔ ids for the BPE models. The string → id index is an open-addressing table
// (one flat array of hash + id) rather than a node-based unordered_map: loading Llama-3 does
// about a million lookups and encoding one per symbol, and cache misses dominated both.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::tokenizer {

/** Transparent string hash, so unordered maps keyed by std::string accept string_view. */
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

/** A bidirectional map between token strings and ids. Ids need not be contiguous. Immutable
 *  once filled; lookups are safe from several threads. */
class Vocabulary {
 public:
  /** Adds `token` with `id`. Returns false (and changes nothing) when the string or the id is
   *  already taken, so that loaders can report the duplicate. */
  bool add(std::string token, int32_t id);
  std::optional<int32_t> find(std::string_view token) const;
  /** The string of `id`, or nullptr when no token has that id. */
  const std::string* text(int32_t id) const {
    if (id < 0 || static_cast<size_t>(id) >= m_present.size() || !m_present[id]) return nullptr;
    return &m_texts[id];
  }
  /** Number of tokens. */
  size_t size() const { return m_size; }
  /** One more than the largest id (0 when empty). */
  int64_t idLimit() const { return static_cast<int64_t>(m_present.size()); }
  /** Sizes the tables for `count` tokens (optional). */
  void reserve(size_t count);

 private:
  struct Slot {
    uint64_t hash = 0;
    int32_t id = -1;  // -1: empty
  };
  const Slot* locate(std::string_view token, uint64_t hash) const;
  void rehash(size_t capacity);

  std::vector<Slot> m_slots;
  size_t m_size = 0;
  std::vector<std::string> m_texts;  // by id
  std::vector<bool> m_present;
};

}  // namespace strata::tokenizer
