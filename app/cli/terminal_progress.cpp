#include "terminal_progress.h"

#include <unistd.h>

#include <csignal>
#include <cstdio>

#include "common/error.h"

namespace strata::cli {
namespace {

using Clock = std::chrono::steady_clock;

// The token SIGINT cancels. Only its lock-free atomic flag is touched from the handler.
CancellationToken* g_interruptToken = nullptr;

extern "C" void onInterrupt(int) {
  if (g_interruptToken) g_interruptToken->cancel();
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process
}

}  // namespace

TerminalProgress::TerminalProgress() : m_terminal(isatty(STDERR_FILENO) != 0) {}

TerminalProgress::~TerminalProgress() { finish(); }

void TerminalProgress::clearLine() {
  if (m_lineOpen) std::fputs("\r\033[2K", stderr);
  m_lineOpen = false;
}

void TerminalProgress::progress(double fraction, const std::string& stage) {
  std::lock_guard lock(m_mutex);
  if (!m_terminal) {
    // Logs get a line per stage change and per 10%, not a flood.
    const int decile = fraction < 0 ? -1 : static_cast<int>(fraction * 10);
    const std::string stageKind = stage.substr(0, stage.find(' '));
    if (decile == m_lastDecile && stageKind == m_lastStage) return;
    m_lastDecile = decile;
    m_lastStage = stageKind;
    if (fraction < 0)
      std::fprintf(stderr, "%s…\n", stage.c_str());
    else
      std::fprintf(stderr, "%3d%%  %s\n", static_cast<int>(fraction * 100), stage.c_str());
    return;
  }
  const auto now = Clock::now();
  if (fraction < 1.0 && now - m_lastDraw < std::chrono::milliseconds(100)) return;
  m_lastDraw = now;
  constexpr int kWidth = 30;
  std::string bar(kWidth, ' ');
  if (fraction >= 0) {
    const int filled = static_cast<int>(fraction * kWidth);
    for (int i = 0; i < filled && i < kWidth; ++i) bar[i] = '#';
    std::fprintf(stderr, "\r\033[2K[%s] %3d%%  %s", bar.c_str(), static_cast<int>(fraction * 100),
                 stage.c_str());
  } else {
    std::fprintf(stderr, "\r\033[2K[%s] ...   %s", bar.c_str(), stage.c_str());
  }
  std::fflush(stderr);
  m_lineOpen = true;
}

void TerminalProgress::message(MessageLevel level, const std::string& text) {
  std::lock_guard lock(m_mutex);
  clearLine();
  const char* prefix = level == MessageLevel::Warning ? "warning: "
                       : level == MessageLevel::Error ? "error: "
                                                      : "";
  std::fprintf(stderr, "%s%s\n", prefix, text.c_str());
}

void TerminalProgress::finish() {
  std::lock_guard lock(m_mutex);
  if (m_lineOpen) std::fputc('\n', stderr);
  m_lineOpen = false;
}

InterruptCancels::InterruptCancels() {
  g_interruptToken = &m_token;
  std::signal(SIGINT, onInterrupt);
}

InterruptCancels::~InterruptCancels() {
  std::signal(SIGINT, SIG_DFL);
  g_interruptToken = nullptr;
}

JobOutcome runWithTerminalProgress(const JobWork& work) {
  TerminalProgress progress;
  InterruptCancels interrupt;
  const JobResult result = runJob(work, progress, interrupt.token());
  progress.finish();
  if (result.outcome == JobOutcome::Failed) throw Error(result.error);
  return result.outcome;
}

}  // namespace strata::cli
