#include "verify/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"
#include "common/job.h"

extern char** environ;

namespace strata::verify {

namespace {

/** A pipe whose ends close on exec (only the dup2'ed copies reach the child). */
struct Pipe {
  int read = -1;
  int write = -1;
  Pipe() {
    int ends[2];
    if (::pipe2(ends, O_CLOEXEC) != 0) throw IoError("pipe", lastSystemError());
    read = ends[0];
    write = ends[1];
  }
  ~Pipe() {
    closeRead();
    closeWrite();
  }
  void closeRead() {
    if (read >= 0) ::close(read);
    read = -1;
  }
  void closeWrite() {
    if (write >= 0) ::close(write);
    write = -1;
  }
};

/** posix_spawn's file actions and attributes, released on every path. */
struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  SpawnSetup() {
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawnattr_init(&attributes);
  }
  ~SpawnSetup() {
    ::posix_spawn_file_actions_destroy(&actions);
    ::posix_spawnattr_destroy(&attributes);
  }
};

int waitFor(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

/** SIGTERM, a moment to exit, then SIGKILL; reaps the child either way. */
int stop(pid_t pid) {
  ::kill(pid, SIGTERM);
  for (int i = 0; i < 20; ++i) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return status;
    ::usleep(50'000);
  }
  ::kill(pid, SIGKILL);
  return waitFor(pid);
}

}  // namespace

ChildProcessResult runChildProcess(const std::vector<std::string>& argv,
                                   const ChildProcessOptions& options) {
  if (argv.empty()) throw Error("runChildProcess: no program given");
  Pipe out;
  Pipe err;
  SpawnSetup setup;
  ::posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_adddup2(&setup.actions, out.write, STDOUT_FILENO);
  ::posix_spawn_file_actions_adddup2(&setup.actions, err.write, STDERR_FILENO);
  ::posix_spawnattr_setflags(&setup.attributes, POSIX_SPAWN_SETPGROUP);
  ::posix_spawnattr_setpgroup(&setup.attributes, 0);

  std::vector<std::string> arguments = argv;
  std::vector<char*> raw;
  for (std::string& argument : arguments) raw.push_back(argument.data());
  raw.push_back(nullptr);
  pid_t pid = 0;
  const int spawned =
      ::posix_spawnp(&pid, raw[0], &setup.actions, &setup.attributes, raw.data(), environ);
  if (spawned != 0) throw IoError(argv[0], std::string("cannot run: ") + std::strerror(spawned));
  out.closeWrite();
  err.closeWrite();

  ChildProcessResult result;
  std::string pendingLine;
  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  const auto take = [&](int fd, bool isStdout) {
    char buffer[4096];
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) return false;                             // end of file
    if (n < 0) return errno == EINTR || errno == EAGAIN;  // retry, or give up on it
    if (!isStdout) {
      result.stderrTail.append(buffer, static_cast<std::size_t>(n));
      if (result.stderrTail.size() > options.stderrTailBytes)
        result.stderrTail.erase(0, result.stderrTail.size() - options.stderrTailBytes);
      return true;
    }
    pendingLine.append(buffer, static_cast<std::size_t>(n));
    for (std::size_t end; (end = pendingLine.find('\n')) != std::string::npos;) {
      const std::string line = pendingLine.substr(0, end);
      pendingLine.erase(0, end + 1);
      if (options.onStdoutLine) options.onStdoutLine(line);
    }
    return true;
  };

  // Invariant: a descriptor stays in the poll set until its end of file (or a read error).
  bool outOpen = true;
  bool errOpen = true;
  while (outOpen || errOpen) {
    if (options.job && options.job->cancelled()) {
      stop(pid);
      throw CancelledError();
    }
    if (std::chrono::steady_clock::now() > deadline) {
      const int status = stop(pid);
      result.timedOut = true;
      result.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
      return result;
    }
    pollfd fds[2] = {{outOpen ? out.read : -1, POLLIN, 0}, {errOpen ? err.read : -1, POLLIN, 0}};
    const int ready = ::poll(fds, 2, 100);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    if (outOpen && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) outOpen = take(out.read, true);
    if (errOpen && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) errOpen = take(err.read, false);
  }
  if (!pendingLine.empty() && options.onStdoutLine) options.onStdoutLine(pendingLine);

  // Both pipes are closed: the child has exited (or closed them); reap it, still cancellable.
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) break;
    if (options.job && options.job->cancelled()) {
      stop(pid);
      throw CancelledError();
    }
    if (std::chrono::steady_clock::now() > deadline) {
      status = stop(pid);
      result.timedOut = true;
      break;
    }
    ::usleep(20'000);
  }
  if (WIFEXITED(status)) result.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace strata::verify
