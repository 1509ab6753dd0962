#include "engine/step_rate.h"

namespace strata::engine {

void StepRate::add(int64_t step, double wallTime) {
  if (!m_recent.empty() && step < m_recent.back().step) m_recent.clear();  // resumed earlier
  m_recent.push_back({step, wallTime});
  // Keep the oldest record inside the window, and always two records however far apart.
  while (m_recent.size() > 2 && wallTime - m_recent.front().wallTime > m_window)
    m_recent.pop_front();
}

double StepRate::stepsPerSecond() const {
  if (m_recent.size() < 2) return 0;
  const Sample& first = m_recent.front();
  const Sample& last = m_recent.back();
  const double seconds = last.wallTime - first.wallTime;
  const auto steps = static_cast<double>(last.step - first.step);
  return seconds > 0 && steps > 0 ? steps / seconds : 0;
}

}  // namespace strata::engine
