#include "tokenizer/vocabulary.h"

#include <algorithm>

namespace strata::tokenizer {

const Vocabulary::Slot* Vocabulary::locate(std::string_view token, uint64_t hash) const {
  const size_t mask = m_slots.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& slot = m_slots[i];
    if (slot.id < 0 || (slot.hash == hash && m_texts[slot.id] == token)) return &slot;
  }
}

std::optional<int32_t> Vocabulary::find(std::string_view token) const {
  if (m_slots.empty()) return std::nullopt;
  const Slot* slot = locate(token, std::hash<std::string_view>{}(token));
  return slot->id < 0 ? std::nullopt : std::optional<int32_t>(slot->id);
}

void Vocabulary::rehash(size_t capacity) {
  std::vector<Slot> old = std::move(m_slots);
  m_slots.assign(capacity, Slot{});
  const size_t mask = capacity - 1;
  for (const Slot& s : old) {
    if (s.id < 0) continue;
    size_t i = s.hash & mask;
    while (m_slots[i].id >= 0) i = (i + 1) & mask;
    m_slots[i] = s;
  }
}

void Vocabulary::reserve(size_t count) {
  size_t capacity = 16;
  while (capacity < count * 2) capacity *= 2;
  if (capacity > m_slots.size()) rehash(capacity);
  m_texts.reserve(count);
  m_present.reserve(count);
}

bool Vocabulary::add(std::string token, int32_t id) {
  if (id < 0) return false;
  if (static_cast<size_t>(id) < m_present.size() && m_present[id]) return false;
  if ((m_size + 1) * 2 > m_slots.size()) rehash(std::max<size_t>(16, m_slots.size() * 2));
  const uint64_t hash = std::hash<std::string_view>{}(token);
  Slot* slot = const_cast<Slot*>(locate(token, hash));
  if (slot->id >= 0) return false;
  if (static_cast<size_t>(id) >= m_present.size()) {
    m_texts.resize(static_cast<size_t>(id) + 1);
    m_present.resize(static_cast<size_t>(id) + 1, false);
  }
  m_texts[id] = std::move(token);
  m_present[id] = true;
  *slot = Slot{hash, id};
  ++m_size;
  return true;
}

}  // namespace strata::tokenizer
