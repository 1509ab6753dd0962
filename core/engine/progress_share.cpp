#include "engine/progress_share.h"

#include <algorithm>

namespace strata::engine {

void ProgressShareSink::progress(double fraction, const std::string& stage) {
  const std::string& shown = m_stage.empty() ? stage : m_stage;
  // "Busy, amount unknown" stays unknown: the outer bar must not jump back to its start.
  if (fraction < 0.0)
    m_outer.progress(-1.0, shown);
  else
    m_outer.progress(m_start + m_share * std::clamp(fraction, 0.0, 1.0), shown);
}

void ProgressShareSink::message(MessageLevel level, const std::string& text) {
  if (level == MessageLevel::Warning)
    m_outer.warning(text);
  else
    m_outer.info(text);
}

}  // namespace strata::engine
