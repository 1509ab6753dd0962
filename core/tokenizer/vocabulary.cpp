#include "tokenizer/vocabulary.h"

namespace strata {

bool Vocabulary::add(std::string token, int32_t id) {
  if (id < 0) return false;
  if (static_cast<size_t>(id) < m_present.size() && m_present[id]) return false;
  if (!m_ids.emplace(token, id).second) return false;
  if (static_cast<size_t>(id) >= m_present.size()) {
    m_texts.resize(static_cast<size_t>(id) + 1);
    m_present.resize(static_cast<size_t>(id) + 1, false);
  }
  m_texts[id] = std::move(token);
  m_present[id] = true;
  return true;
}

}  // namespace strata
