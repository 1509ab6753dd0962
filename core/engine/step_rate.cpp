#include "engine/step_rate.h"

#include "engine/metrics_log.h"

namespace strata::engine {

void StepRate::add(const MetricsRecord& record) {
  if (record.has(kTrainSecondsMetric)) {
    if (!m_trainClock) m_recent.clear();  // wall times and training times do not mix
    m_trainClock = true;
    add(record.step, record.value(kTrainSecondsMetric));
  } else if (!m_trainClock) {
    add(record.step, record.wallTime);
  }
}

void StepRate::add(int64_t step, double seconds) {
  if (!m_recent.empty() && (step < m_recent.back().step || seconds < m_recent.back().seconds))
    m_recent.clear();  // resumed from an earlier step, or the clock started again
  m_recent.push_back({step, seconds});
  // Keep the oldest record inside the window, and always two records however far apart.
  while (m_recent.size() > 2 && seconds - m_recent.front().seconds > m_window) m_recent.pop_front();
}

void StepRate::clear() {
  m_recent.clear();
  m_trainClock = false;
}

double StepRate::stepsPerSecond() const {
  if (m_recent.size() < 2) return 0;
  const Sample& first = m_recent.front();
  const Sample& last = m_recent.back();
  const double seconds = last.seconds - first.seconds;
  const auto steps = static_cast<double>(last.step - first.step);
  return seconds > 0 && steps > 0 ? steps / seconds : 0;
}

}  // namespace strata::engine
