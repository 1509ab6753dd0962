// strata-cli train / resume / runs as a user drives them: SIGKILL at random moments loses
// nothing, Ctrl-C stops after a checkpoint, runs lists every state, and two data-parallel
// processes train the same model as one process with the combined batch.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>

#include "common/text_file.h"
#include "engine/checkpoint_store.h"
#include "engine/metrics_log.h"
#include "engine/run_folder.h"
#include "support/cli_runner.h"
#include "support/temp_dir.h"
#include "support/training_fixture.h"

extern char** environ;

namespace strata {
namespace {
namespace fs = std::filesystem;
using testing::loggedLosses;

/** A tiny pretrain run long enough to be interrupted (150 steps, ~2 s), one thread so that
 *  every process computes bit for bit alike. */
std::string tinySettings(const fs::path& corpus, int steps = 150) {
  return "--set corpus=" + corpus.string() + " --set steps=" + std::to_string(steps) +
         " --set batch=8 --set seq_len=32 --set lr=0.01 --set warmup=3 --set dim=32"
         " --set layers=2 --set heads=4 --set kv_heads=2 --set mlp=64 --set seed=3"
         " --set log_every=1 --set checkpoint_every=7 --set eval_windows=8 --set threads=1";
}

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

/** Starts strata-cli with `arguments` (split at spaces), output discarded. */
pid_t spawnCli(const std::string& arguments) { return testing::spawnCli(words(arguments)); }

/** Exit code, or 128 + signal; -1 after `seconds` (the process is then killed). */
int waitExit(pid_t pid, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/** What must hold on disk at any moment: every checkpoint verifies, JSON files parse. */
void expectConsistent(const fs::path& run) {
  for (const auto& [step, folder] : engine::CheckpointStore(run / "checkpoints").checkpoints())
    EXPECT_TRUE(engine::CheckpointStore::verify(folder)) << folder;
  for (const char* file : {"run.json", "status.json"})
    if (fs::exists(run / file)) {
      EXPECT_NO_THROW(nlohmann::json::parse(readWholeFile(run / file))) << file;
    }
}

class CliTrain : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = new TempDir;
    testing::writeToyCorpus(*s_dir / "corpus.txt");
    const auto result = testing::runCli("train pretrain --run-dir " + reference().string() + " " +
                                        tinySettings(*s_dir / "corpus.txt"));
    ASSERT_EQ(result.exitCode, 0) << result.out;
  }
  static void TearDownTestSuite() {
    delete s_dir;
    s_dir = nullptr;
  }
  static fs::path corpus() { return *s_dir / "corpus.txt"; }
  static fs::path reference() { return *s_dir / "reference"; }
  static inline TempDir* s_dir = nullptr;
};

TEST_F(CliTrain, KilledAtRandomMomentsAndResumedEqualsTheUninterruptedRun) {
  TempDir dir;
  const fs::path run = dir / "run";
  std::mt19937 rng(2026);
  std::uniform_int_distribution<int> delayMs(0, 400);
  int kills = 0;
  std::string command = "train pretrain --run-dir " + run.string() + " " + tinySettings(corpus());
  const auto lastStep = [&] {
    const auto losses = loggedLosses(run);
    return losses.empty() ? int64_t{0} : losses.rbegin()->first;
  };
  for (int attempt = 0; attempt < 6; ++attempt) {
    const int64_t before = lastStep();
    const pid_t pid = spawnCli(command);
    ASSERT_GT(pid, 0);
    // Let it get past the last step seen (so every round makes progress), then kill it at a
    // random moment: mid-step, mid-log line or mid-checkpoint.
    int code = -2;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (lastStep() <= before && std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    if (code == -2) {
      std::this_thread::sleep_for(std::chrono::milliseconds(delayMs(rng)));
      if (::kill(pid, SIGKILL) == 0) ++kills;
      code = waitExit(pid, 60);
    }
    expectConsistent(run);
    if (code == 0 || engine::readRunStatus(run).state == engine::RunState::Finished) break;
    command = "resume " + run.string();
  }
  EXPECT_GE(kills, 3);
  if (engine::readRunStatus(run).state != engine::RunState::Finished) {
    EXPECT_EQ(engine::readRunStatus(run).state, engine::RunState::Interrupted);
    const auto result = testing::runCli("resume " + run.string());
    ASSERT_EQ(result.exitCode, 0) << result.out;
  }
  EXPECT_EQ(loggedLosses(run), loggedLosses(reference()));
  EXPECT_TRUE(testing::sameWeights(run / "model.safetensors", reference() / "model.safetensors"));
  // Nothing a killed writer left half-done survives: no temporary folders or files.
  for (const fs::path& folder : {run, run / "checkpoints"})
    for (const auto& entry : fs::directory_iterator(folder))
      EXPECT_FALSE(entry.path().filename().string().starts_with(".")) << entry.path();
}

TEST_F(CliTrain, CtrlCStopsAfterACheckpointAndRunsListsEveryState) {
  TempDir dir;
  const pid_t pid = spawnCli("train pretrain --run-dir " + (dir / "stopped").string() + " " +
                             tinySettings(corpus()) + " --set checkpoint_every=0");
  ASSERT_GT(pid, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (loggedLosses(dir / "stopped").size() < 3 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(pid, SIGINT);
  EXPECT_EQ(waitExit(pid, 60), 130);
  const engine::RunStatus stopped = engine::readRunStatus(dir / "stopped");
  EXPECT_EQ(stopped.state, engine::RunState::Stopped);
  const auto checkpoints = engine::CheckpointStore(dir / "stopped" / "checkpoints").checkpoints();
  ASSERT_EQ(checkpoints.size(), 1u);
  EXPECT_EQ(checkpoints[0].first, stopped.step);

  ASSERT_EQ(testing::runCli("train pretrain --run-dir " + (dir / "finished").string() + " " +
                            tinySettings(corpus(), 5))
                .exitCode,
            0);
  const pid_t killed = spawnCli("train pretrain --run-dir " + (dir / "killed").string() + " " +
                                tinySettings(corpus()));
  while (loggedLosses(dir / "killed").size() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(killed, SIGKILL);
  waitExit(killed, 60);

  const auto list = testing::runCli("runs --json --root " + dir.path().string());
  ASSERT_EQ(list.exitCode, 0) << list.out;
  std::map<std::string, std::string> states;
  for (const auto& run : nlohmann::json::parse(list.out))
    states[fs::path(run["folder"].get<std::string>()).filename().string()] = run["state"];
  EXPECT_EQ(states["stopped"], "stopped");
  EXPECT_EQ(states["finished"], "finished");
  EXPECT_EQ(states["killed"], "interrupted");
  const auto table = testing::runCli("runs --root " + dir.path().string());
  EXPECT_NE(table.out.find("interrupted"), std::string::npos) << table.out;
}

TEST_F(CliTrain, TwoDataParallelProcessesMatchOneProcessWithTheCombinedBatch) {
  TempDir dir;
  const std::string settings = tinySettings(corpus(), 10);
  const auto one =
      testing::runCli("train pretrain --run-dir " + (dir / "one").string() + " " + settings);
  ASSERT_EQ(one.exitCode, 0) << one.out;
  const auto two = testing::runCli("train pretrain --nproc 2 --run-dir " + (dir / "two").string() +
                                   " " + settings);
  ASSERT_EQ(two.exitCode, 0) << two.out;
  const auto run = nlohmann::json::parse(readWholeFile(dir / "two" / "run.json"));
  EXPECT_EQ(run["machine"]["processes"], 2);
  // Each rank averages 4 of the 8 rows; the mean of the two means is the 8-row mean, up to
  // float rounding in the order of the sums.
  EXPECT_LT(testing::largestRelativeDifference(dir / "two" / "model.safetensors",
                                               dir / "one" / "model.safetensors"),
            1e-4);
  const auto a = loggedLosses(dir / "one"), b = loggedLosses(dir / "two");
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [step, loss] : a) EXPECT_NEAR(b.at(step), loss, 1e-4) << step;
}

TEST(CliTrainUsage, HelpListsTheSettingsAndMistakesAreNamed) {
  const auto help = testing::runCli("train --help");
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_NE(help.out.find("grad_accum"), std::string::npos);
  EXPECT_NE(help.out.find("seq_len"), std::string::npos);
  const auto unknown = testing::runCli("train bridgee --set steps=1");
  EXPECT_NE(unknown.exitCode, 0);
  EXPECT_NE(unknown.out.find("bridgee"), std::string::npos) << unknown.out;
  const auto missing = testing::runCli("train pretrain --set steps=1 --run-dir /tmp/strata-never");
  EXPECT_NE(missing.exitCode, 0);
  EXPECT_NE(missing.out.find("corpus"), std::string::npos) << missing.out;
  EXPECT_FALSE(fs::exists("/tmp/strata-never/run.json"));
  const auto notRun = testing::runCli("resume /tmp");
  EXPECT_NE(notRun.exitCode, 0);
  EXPECT_NE(notRun.out.find("not a run folder"), std::string::npos) << notRun.out;
}

}  // namespace
}  // namespace strata
