#pragma once
// The CLI's ProgressSink: one self-rewriting progress line on stderr (when it is a terminal;
// otherwise a line every 10%), messages on their own lines. Ctrl-C cancels the job.

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>

#include "common/job.h"

namespace strata::cli {

class TerminalProgress final : public ProgressSink {
 public:
  TerminalProgress();
  ~TerminalProgress() override;
  void progress(double fraction, const std::string& stage) override;
  void message(MessageLevel level, const std::string& text) override;
  /** Ends the progress line (call before printing results). */
  void finish();

 private:
  void clearLine();
  std::mutex m_mutex;
  bool m_terminal = false;
  bool m_lineOpen = false;
  int m_lastDecile = -1;
  std::string m_lastStage;
  std::chrono::steady_clock::time_point m_lastDraw{};
};

/**
 * A cancellation token that SIGINT (Ctrl-C) cancels, for as long as this object lives: the
 * running job then stops at its next check and leaves its files consistent. A second Ctrl-C
 * kills the process as usual.
 */
class InterruptCancels {
 public:
  InterruptCancels();
  ~InterruptCancels();
  const CancellationToken& token() const { return m_token; }

 private:
  CancellationToken m_token;
};

/**
 * Runs `work` with a TerminalProgress and a Ctrl-C token. Returns Succeeded or Cancelled;
 * a failure is rethrown as an Error carrying the job's message.
 */
JobOutcome runWithTerminalProgress(const JobWork& work);

}  // namespace strata::cli
