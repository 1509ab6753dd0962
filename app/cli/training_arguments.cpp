// Shared plumbing of the training commands (see training_arguments.h).

#include "training_arguments.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <iostream>

#include "common/job.h"
#include "terminal_progress.h"

extern char** environ;

namespace strata::cli {
namespace {

std::string quoted(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_./=:,+@") == std::string::npos)
    return arg;
  std::string out = "'";
  for (const char c : arg) {
    if (c == '\'')
      out.append("'\\''");  // close, escaped quote, reopen
    else
      out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

/** A TCP port nobody listens on right now (the kernel's pick for port 0). */
int freeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw Error("cannot open a socket to find a free port: " + lastSystemError());
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
    port = ntohs(address.sin_port);
  ::close(fd);
  if (port == 0) throw Error("cannot find a free loopback port: " + lastSystemError());
  return port;
}

/** A silent sink for ranks other than 0, which would only repeat rank 0's lines. */
class WarningsOnly final : public ProgressSink {
 public:
  void progress(double, const std::string&) override {}
  void message(MessageLevel level, const std::string& text) override {
    if (level != MessageLevel::Info) std::cerr << text << std::endl;
  }
};

}  // namespace

std::vector<std::string> takeSetOptions(Arguments& args) {
  std::vector<std::string> sets;
  Arguments rest;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--set") {
      if (i + 1 >= args.size()) throw UsageError("--set needs KEY=VALUE");
      sets.push_back(args[++i]);
    } else if (args[i].starts_with("--set=")) {
      sets.push_back(args[i].substr(6));
    } else {
      rest.push_back(args[i]);
    }
  }
  args = rest;
  return sets;
}

CommandLine& addDistributedOptions(CommandLine& cli) {
  return cli.option("nproc", "N", "train with N data-parallel processes on this machine")
      .option("rank", "R", "this process's rank in multi-machine training (0 = the master)")
      .option("world-size", "W", "number of processes in multi-machine training")
      .option("master-addr", "HOST", "address of rank 0 (default 127.0.0.1)")
      .option("master-port", "PORT", "TCP port of rank 0's rendezvous store (default 29500)");
}

engine::DistributedSetup distributedSetupFrom(const CommandLine& cli) {
  engine::DistributedSetup setup;
  if (cli.has("world-size")) setup.worldSize = static_cast<int>(cli.integer("world-size"));
  if (cli.has("rank")) setup.rank = static_cast<int>(cli.integer("rank"));
  if (cli.has("master-addr")) setup.masterAddress = cli.value("master-addr");
  if (cli.has("master-port")) setup.masterPort = static_cast<int>(cli.integer("master-port"));
  if (setup.worldSize < 1) throw UsageError("--world-size must be at least 1");
  if (setup.rank < 0 || setup.rank >= setup.worldSize)
    throw UsageError("--rank must be in 0.." + std::to_string(setup.worldSize - 1));
  return setup;
}

int localProcessCount(const CommandLine& cli) {
  const int64_t n = cli.integer("nproc");
  if (n < 1 || n > 256) throw UsageError("--nproc must be in 1..256");
  if (cli.has("rank") || cli.has("world-size"))
    throw UsageError("--nproc starts every rank itself: leave out --rank and --world-size");
  return static_cast<int>(n);
}

int launchLocalProcesses(const CommandLine& cli, const std::string& command,
                         const Arguments& args) {
  if (!cli.has("nproc")) return -1;
  const int n = localProcessCount(cli);
  const std::string port = std::to_string(freeLoopbackPort());
  std::vector<pid_t> children;
  for (int64_t rank = 0; rank < n; ++rank) {
    std::vector<std::string> argv = {"/proc/self/exe", command};
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i] == "--nproc") {
        ++i;
        continue;
      }
      if (args[i].starts_with("--nproc=")) continue;
      argv.push_back(args[i]);
    }
    for (const std::string& extra :
         {std::string("--rank"), std::to_string(rank), std::string("--world-size"),
          std::to_string(n), std::string("--master-addr"), std::string("127.0.0.1"),
          std::string("--master-port"), port})
      argv.push_back(extra);
    std::vector<char*> raw;
    for (auto& a : argv) raw.push_back(a.data());
    raw.push_back(nullptr);
    pid_t pid = 0;
    if (::posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, raw.data(), environ) != 0)
      throw Error("cannot start training process " + std::to_string(rank) + ": " +
                  lastSystemError());
    children.push_back(pid);
  }
  int worst = 0;
  for (const pid_t pid : children) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (worst == 0) worst = code;
  }
  return worst;
}

int runTrainingJob(const std::function<engine::TrainingSummary(JobContext&)>& train,
                   const engine::DistributedSetup& setup, const std::filesystem::path& runFolder) {
  engine::TrainingSummary summary;
  JobOutcome outcome = JobOutcome::Succeeded;
  if (setup.rank == 0) {
    outcome = runWithTerminalProgress([&](JobContext& job) { summary = train(job); });
  } else {
    WarningsOnly sink;
    InterruptCancels interrupt;
    const JobResult result =
        runJob([&](JobContext& job) { summary = train(job); }, sink, interrupt.token());
    if (result.outcome == JobOutcome::Failed) throw Error(result.error);
    outcome = result.outcome;
  }
  if (setup.rank != 0) return outcome == JobOutcome::Cancelled ? 130 : 0;
  if (outcome == JobOutcome::Cancelled) {
    std::cerr
        << "stopped: the last finished step is checkpointed; continue with `strata-cli resume "
        << runFolder.string() << "`\n";
    return 130;
  }
  if (!summary.finished) {
    std::cout << "Stopped after step " << summary.lastStep << " (checkpointed); continue with "
              << "`strata-cli resume " << runFolder.string() << "`\n";
    return 0;
  }
  std::cout << "Finished " << runFolder.string() << ": " << summary.lastStep << " steps";
  for (const char* name : {"loss", "val_loss"})
    if (summary.lastMetrics.count(name))
      std::cout << ", " << name << " " << summary.lastMetrics.at(name);
  std::cout << "\n";
  return 0;
}

std::string commandLineText(const std::string& command, const Arguments& args) {
  std::string text = "strata-cli " + command;
  for (const std::string& arg : args) text.append(" ").append(quoted(arg));
  return text;
}

}  // namespace strata::cli
