// runChildProcess (core/verify/child_process.h): how verify runs its Python side.

#include "verify/child_process.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "common/error.h"
#include "common/job.h"

namespace strata::verify {

namespace {

TEST(ChildProcess, ReportsStdoutLinesStderrAndExitCode) {
  std::vector<std::string> lines;
  const ChildProcessResult result =
      runChildProcess({"sh", "-c", "echo one; echo problem >&2; printf 'two'; exit 3"},
                      {.onStdoutLine = [&](const std::string& line) { lines.push_back(line); }});
  EXPECT_EQ(result.exitCode, 3);
  EXPECT_FALSE(result.timedOut);
  EXPECT_EQ(result.stderrTail, "problem\n");
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two"}));
}

TEST(ChildProcess, KeepsOnlyTheEndOfALongStderr) {
  const ChildProcessResult result = runChildProcess(
      {"sh", "-c",
       "i=0; while [ $i -lt 2000 ]; do echo line$i >&2; i=$((i+1)); done; echo last >&2"},
      {.stderrTailBytes = 64});
  EXPECT_EQ(result.exitCode, 0);
  EXPECT_EQ(result.stderrTail.size(), 64u);
  EXPECT_TRUE(result.stderrTail.ends_with("last\n")) << result.stderrTail;
}

TEST(ChildProcess, IsKilledAtItsTimeout) {
  const auto start = std::chrono::steady_clock::now();
  const ChildProcessResult result =
      runChildProcess({"sleep", "30"}, {.timeout = std::chrono::seconds(1)});
  EXPECT_TRUE(result.timedOut);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(ChildProcess, CancellingTheJobKillsIt) {
  NullProgressSink sink;
  CancellationToken token;
  JobContext job(sink, token);
  std::thread canceller([token]() mutable {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    token.cancel();
  });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(runChildProcess({"sleep", "30"}, {.job = &job}), CancelledError);
  canceller.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(ChildProcess, AProgramThatDoesNotExistIsAnIoErrorNamingIt) {
  try {
    runChildProcess({"/no/such/program"});
    FAIL() << "expected IoError";
  } catch (const IoError& error) {
    EXPECT_NE(std::string(error.what()).find("/no/such/program"), std::string::npos);
  }
}

}  // namespace
}  // namespace strata::verify
