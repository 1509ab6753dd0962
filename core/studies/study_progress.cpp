// The study's progress bar (see study_progress.h).

#include "studies/study_progress.h"

#include <algorithm>
#include <cmath>

#include "common/human_format.h"

namespace strata::studies {

std::string formatDuration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "–";
  const auto s = static_cast<int64_t>(std::llround(seconds));
  const auto two = [](int64_t v) { return (v < 10 ? "0" : "") + std::to_string(v); };
  if (s >= 3600) return std::to_string(s / 3600) + " h " + two(s % 3600 / 60) + " min";
  if (s >= 60) return std::to_string(s / 60) + " min " + two(s % 60) + " s";
  return std::to_string(s) + " s";
}

StudyProgressSink::StudyProgressSink(JobContext& outer, int64_t totalSteps, int64_t stepsDone)
    : m_outer(outer),
      m_total(std::max<int64_t>(totalSteps, 1)),
      m_done(stepsDone),
      m_sessionStart(stepsDone) {}

void StudyProgressSink::beginRun(const std::string& label, int64_t steps, int64_t alreadyDone) {
  m_label = label;
  m_runSteps = steps;
  m_runAlreadyDone = alreadyDone;  // already in m_done: the constructor counted it
  m_inRun = alreadyDone;
}

void StudyProgressSink::endRun() {
  m_done += m_runSteps - m_runAlreadyDone;
  m_inRun = m_runSteps = m_runAlreadyDone = 0;
}

double StudyProgressSink::rate() const {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - m_started).count();
  const int64_t steps = stepsDone() - m_sessionStart;
  return steps > 0 && seconds > 0 ? static_cast<double>(steps) / seconds : 0.0;
}

void StudyProgressSink::progress(double fraction, const std::string& stage) {
  // Only the training loop's "step s/n" reports count steps; a run's other stages (hashing the
  // corpus, tokenising) report their own 0..1 and must not move the study's bar.
  if (fraction >= 0 && stage.rfind("step ", 0) == 0)
    m_inRun = std::clamp<int64_t>(std::llround(fraction * static_cast<double>(m_runSteps)), 0,
                                  m_runSteps);
  const int64_t done = stepsDone();
  const double r = rate();
  const std::string eta =
      r > 0 ? formatDuration(static_cast<double>(m_total - done) / r) : std::string("measuring");
  m_outer.progress(static_cast<double>(done) / static_cast<double>(m_total),
                   m_label + " " + stage + " · " + std::to_string(done) + "/" +
                       std::to_string(m_total) + " steps · " + formatFixed(r, 2) +
                       " steps/s · ETA " + eta);
}

void StudyProgressSink::message(MessageLevel level, const std::string& text) {
  if (level == MessageLevel::Warning)
    m_outer.warning(text);
  else
    m_outer.info(text);
}

}  // namespace strata::studies
