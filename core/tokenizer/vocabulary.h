#pragma once
// Token strings ↔ ids for the BPE models. Strings are looked up by string_view without
// allocating (C++20 heterogeneous lookup), which matters in the per-character loop.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace strata {

/** Transparent string hash, so unordered maps keyed by std::string accept string_view. */
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

/** A bidirectional map between token strings and ids. Ids need not be contiguous. */
class Vocabulary {
 public:
  /** Adds `token` with `id`. Returns false (and changes nothing) when the string or the id is
   *  already taken, so that loaders can report the duplicate. */
  bool add(std::string token, int32_t id);
  std::optional<int32_t> find(std::string_view token) const {
    const auto it = m_ids.find(token);
    return it == m_ids.end() ? std::nullopt : std::optional<int32_t>(it->second);
  }
  /** The string of `id`, or nullptr when no token has that id. */
  const std::string* text(int32_t id) const {
    if (id < 0 || static_cast<size_t>(id) >= m_present.size() || !m_present[id]) return nullptr;
    return &m_texts[id];
  }
  /** Number of tokens. */
  size_t size() const { return m_ids.size(); }
  /** One more than the largest id (0 when empty). */
  int64_t idLimit() const { return static_cast<int64_t>(m_present.size()); }
  void reserve(size_t count) {
    m_ids.reserve(count);
    m_texts.reserve(count);
    m_present.reserve(count);
  }

 private:
  std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>> m_ids;
  std::vector<std::string> m_texts;
  std::vector<bool> m_present;
};

}  // namespace strata
