#pragma once
// Running another program (the Python side of `verify`) as a child process: its stdout read line
// by line as it arrives, the tail of its stderr kept for error messages, a wall-clock limit, and
// the caller's job able to cancel it. POSIX only (posix_spawn, poll).

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::verify {

struct ChildProcessOptions {
  /** The child is killed (SIGTERM, then SIGKILL) after this long; the result says so. */
  std::chrono::seconds timeout{600};
  /** Called on the calling thread with each line the child writes to stdout (no newline). */
  std::function<void(const std::string& line)> onStdoutLine{};
  /** Checked ~10 times a second: a cancelled job kills the child and throws CancelledError. */
  const JobContext* job = nullptr;
  /** How many bytes of the end of stderr to keep. */
  std::size_t stderrTailBytes = 16 * 1024;
};

struct ChildProcessResult {
  int exitCode = -1;  ///< the exit status when it exited; -1 when a signal ended it
  int signal = 0;     ///< the signal that ended it, else 0
  bool timedOut = false;
  std::string stderrTail;  ///< the last stderrTailBytes of stderr
};

/**
 * Runs `argv` (argv[0] is the program: a path, or a name looked up in PATH) with stdin from
 * /dev/null, in a process group of its own so that Ctrl-C reaches only Strata (which then
 * cancels it). Blocks until the child ends. Throws IoError naming argv[0] when it cannot be
 * started, CancelledError when the job was cancelled (the child is killed and reaped first).
 */
ChildProcessResult runChildProcess(const std::vector<std::string>& argv,
                                   const ChildProcessOptions& options = {});

}  // namespace strata::verify
