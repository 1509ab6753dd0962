#pragma once
// One progress bar over a whole study: each run reports its own 0..1, this sink turns it into
// optimizer steps done out of the study's total (finished runs count in full) and adds the
// measured rate and an ETA to the stage text:
//   "dcdm-K8-h4-s1 (9/25) step 120/1300 · 4 120/33 800 steps · 3.9 steps/s · ETA 2 h 05 min"
// The rate is measured over this session only (steps done since the command started / wall
// time), so a resumed study does not count its earlier sessions as fast. Runs of different
// arms differ in speed, so the ETA is an estimate that settles as arms alternate.

#include <chrono>
#include <cstdint>
#include <string>

#include "common/job.h"

namespace strata::studies {

/** "2 h 05 min", "4 min 10 s", "12 s"; "–" when not finite. */
std::string formatDuration(double seconds);

class StudyProgressSink final : public ProgressSink {
 public:
  /** `stepsDone`: the steps every run of the study had done before this session (finished
   *  runs in full, a stopped run up to its checkpoint). */
  StudyProgressSink(JobContext& outer, int64_t totalSteps, int64_t stepsDone);

  /** The next run: its label, its steps, and how many of them were done before this session
   *  (already counted by the constructor; a finished run walked again adds nothing). */
  void beginRun(const std::string& label, int64_t steps, int64_t alreadyDone);
  /** The current run is finished: its steps count as done. */
  void endRun();

  void progress(double fraction, const std::string& stage) override;
  void message(MessageLevel level, const std::string& text) override;
  /** A context for a run: this sink, the outer job's cancellation. */
  JobContext context() { return JobContext(*this, m_outer.token()); }

  int64_t stepsDone() const { return m_done + m_inRun - m_runAlreadyDone; }
  /** Steps per second this session; 0 before any step. */
  double rate() const;

 private:
  JobContext& m_outer;
  int64_t m_total;
  int64_t m_done;          ///< steps done, the current run's new ones apart
  int64_t m_sessionStart;  ///< steps done when this session began
  int64_t m_runSteps = 0, m_inRun = 0, m_runAlreadyDone = 0;
  std::string m_label;
  std::chrono::steady_clock::time_point m_started = std::chrono::steady_clock::now();
};

}  // namespace strata::studies
