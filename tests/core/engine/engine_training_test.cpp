// The training loop on the pretrain recipe: gradient accumulation is the larger batch, pausing
// and stopping change nothing, bf16 trains, failures are recorded, the best checkpoint is kept,
// and TensorBoard sees what metrics.jsonl says.

#include <torch/torch.h>
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/job.h"
#include "common/text_file.h"
#include "engine/checkpoint_store.h"
#include "engine/metrics_log.h"
#include "engine/run_folder.h"
#include "io/writer_lock.h"
#include "support/python_finder.h"
#include "support/temp_dir.h"
#include "support/training_fixture.h"

namespace strata::engine {

namespace {
namespace fs = std::filesystem;
using testing::loggedLosses;

/** The uninterrupted reference run the other tests compare with. */
class TrainingLoop : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = new TempDir;
    testing::writeToyCorpus(corpus());
    testing::trainTiny(testing::tinyPretrainConfig(corpus()), reference());
  }
  static void TearDownTestSuite() {
    delete s_dir;
    s_dir = nullptr;
  }
  static fs::path corpus() { return *s_dir / "corpus.txt"; }
  static fs::path reference() { return *s_dir / "reference"; }
  static inline TempDir* s_dir = nullptr;
};

void waitFor(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!condition()) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "timed out";
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

TEST_F(TrainingLoop, GradientAccumulationEqualsTheLargerBatch) {
  TempDir dir;
  ResolvedConfig config = testing::tinyPretrainConfig(corpus());
  config.set("batch", int64_t{4});
  config.set("grad_accum", int64_t{2});
  testing::trainTiny(config, dir / "accumulated");
  // Micro-batches 0 and 1 of 4 rows are rows 0..7 of the 8-row batch: same data, same mean.
  EXPECT_LT(testing::largestRelativeDifference(dir / "accumulated" / "model.safetensors",
                                               reference() / "model.safetensors"),
            1e-4);
  const auto a = loggedLosses(dir / "accumulated"), b = loggedLosses(reference());
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [step, loss] : a) EXPECT_NEAR(loss, b.at(step), 1e-4) << step;
}

TEST_F(TrainingLoop, PausingHoldsTheRunAndChangesNothing) {
  TempDir dir;
  TrainingControl control;
  control.pause();  // paused before the first step
  std::thread worker(
      [&] { testing::trainTiny(testing::tinyPretrainConfig(corpus()), dir / "run", control); });
  waitFor([&] { return readRunStatus(dir / "run").state == RunState::Paused; });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(loggedLosses(dir / "run").empty());
  EXPECT_EQ(readRunStatus(dir / "run").state, RunState::Paused);
  control.resume();
  worker.join();
  EXPECT_EQ(readRunStatus(dir / "run").state, RunState::Finished);
  EXPECT_EQ(loggedLosses(dir / "run"), loggedLosses(reference()));
}

TEST_F(TrainingLoop, CancellingCheckpointsTheLastStepAndResumeContinuesExactly) {
  TempDir dir;
  NullProgressSink sink;
  CancellationToken token;
  JobContext job(sink, token);
  TrainingRequest request;
  request.recipe = "pretrain";
  request.config = testing::tinyPretrainConfig(corpus());
  request.config.set("checkpoint_every", int64_t{0});  // only the stop will checkpoint
  request.runFolder = dir / "run";
  std::thread stopper([&] {
    waitFor([&] { return loggedLosses(dir / "run").size() >= 5; });
    token.cancel();
  });
  EXPECT_THROW(startTraining(request, job), CancelledError);
  stopper.join();
  const RunStatus status = readRunStatus(dir / "run");
  EXPECT_EQ(status.state, RunState::Stopped);
  const auto checkpoints = CheckpointStore(dir / "run" / "checkpoints").checkpoints();
  ASSERT_EQ(checkpoints.size(), 1u);
  EXPECT_EQ(checkpoints[0].first, status.step);
  EXPECT_EQ(loggedLosses(dir / "run").rbegin()->first, status.step);
  testing::resumeTiny(dir / "run");
  EXPECT_EQ(loggedLosses(dir / "run"), loggedLosses(reference()));
  EXPECT_TRUE(
      testing::sameWeights(dir / "run" / "model.safetensors", reference() / "model.safetensors"));
}

/** Runs `act` once, on the worker, when the loop reports `stage` ("step 38/60"); keeps every
 *  stage reported. */
class ActAtStage final : public ProgressSink {
 public:
  ActAtStage(std::string stage, std::function<void()> act)
      : m_stage(std::move(stage)), m_act(std::move(act)) {}
  void progress(double, const std::string& stage) override {
    {
      std::lock_guard lock(m_mutex);
      m_stages.push_back(stage);
    }
    if (stage == m_stage && m_act) std::exchange(m_act, nullptr)();
  }
  void message(MessageLevel, const std::string&) override {}
  bool reported(const std::string& stage) const {
    std::lock_guard lock(m_mutex);
    return std::find(m_stages.begin(), m_stages.end(), stage) != m_stages.end();
  }

 private:
  std::string m_stage;
  std::function<void()> m_act;
  mutable std::mutex m_mutex;
  std::vector<std::string> m_stages;
};

/** 60 steps logged every 20: the interval 21..40 is the one a pause or a stop at 38 splits. */
ResolvedConfig splitIntervalConfig(const fs::path& corpus) {
  ResolvedConfig config = testing::tinyPretrainConfig(corpus);
  config.set("steps", int64_t{60});
  config.set("log_every", int64_t{20});
  config.set("checkpoint_every", int64_t{0});
  return config;
}

/** tokens_per_s of the interval ending at 40, over the mean of the two around it; 1 when its
 *  time is counted right (a 2-core machine under load varies it, not by 3×). */
double splitIntervalThroughputRatio(const fs::path& run) {
  std::map<int64_t, double> tps;
  for (const MetricsRecord& r : readMetricsLog(run / "metrics.jsonl"))
    if (r.has("tokens_per_s")) tps[r.step] = r.value("tokens_per_s");
  EXPECT_TRUE(tps.count(20) && tps.count(40) && tps.count(60));
  return tps[40] / (0.5 * (tps[20] + tps[60]));
}

TEST_F(TrainingLoop, APauseIsNeitherTrainingTimeNorThroughput) {
  TempDir dir;
  TrainingControl control;
  std::thread resumer;
  ActAtStage sink("step 38/60", [&] {
    control.pause();
    resumer = std::thread([&] {
      waitFor([&] { return readRunStatus(dir / "run").state == RunState::Paused; });
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      control.resume();
    });
  });
  JobContext job(sink, CancellationToken());
  TrainingRequest request;
  request.recipe = "pretrain";
  request.config = splitIntervalConfig(corpus());
  request.runFolder = dir / "run";
  request.control = control;
  EXPECT_TRUE(startTraining(request, job).finished);
  resumer.join();
  // The status bar says so while paused.
  EXPECT_TRUE(sink.reported("paused at step 38/60"));
  const std::vector<MetricsRecord> records = readMetricsLog(dir / "run" / "metrics.jsonl");
  std::vector<const MetricsRecord*> logged;
  for (const MetricsRecord& r : records)
    if (r.has("loss")) logged.push_back(&r);
  ASSERT_EQ(logged.size(), 4u);  // steps 1, 20, 40, 60
  for (const MetricsRecord* r : logged) ASSERT_TRUE(r->has("train_seconds")) << r->step;
  const double wall = logged.back()->wallTime - logged.front()->wallTime;
  const double trained =
      logged.back()->value("train_seconds") - logged.front()->value("train_seconds");
  EXPECT_GT(trained, 0);
  EXPECT_GT(wall - trained, 1.4) << "the 1.5 s pause counted as training";
  const double ratio = splitIntervalThroughputRatio(dir / "run");
  EXPECT_LT(ratio, 3) << "the steps before the pause were divided by the time after it";
}

TEST_F(TrainingLoop, TheFirstThroughputAfterAResumeCountsTheStepsBeforeTheStopWithTheirTime) {
  TempDir dir;
  CancellationToken token;
  ActAtStage sink("step 38/60", [&] { token.cancel(); });
  JobContext job(sink, token);
  TrainingRequest request;
  request.recipe = "pretrain";
  request.config = splitIntervalConfig(corpus());
  request.runFolder = dir / "run";
  EXPECT_THROW(startTraining(request, job), CancelledError);
  ASSERT_EQ(readRunStatus(dir / "run").step, 38);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // stopped for a while
  EXPECT_TRUE(testing::resumeTiny(dir / "run").finished);
  const double ratio = splitIntervalThroughputRatio(dir / "run");
  EXPECT_LT(ratio, 3) << "steps 21..38 were counted over the time of 39..40 alone";
  EXPECT_GT(ratio, 0.33);
  // train_seconds goes on from the checkpoint: the stop is not in it.
  std::map<int64_t, const MetricsRecord*> logged;
  const std::vector<MetricsRecord> records = readMetricsLog(dir / "run" / "metrics.jsonl");
  for (const MetricsRecord& r : records)
    if (r.has("loss")) logged[r.step] = &r;
  ASSERT_TRUE(logged.count(20) && logged.count(40));
  ASSERT_TRUE(logged[20]->has("train_seconds") && logged[40]->has("train_seconds"));
  const double trained = logged[40]->value("train_seconds") - logged[20]->value("train_seconds");
  EXPECT_GT(trained, 0);
  EXPECT_GT(logged[40]->wallTime - logged[20]->wallTime - trained, 1.4);
}

TEST_F(TrainingLoop, Bf16AutocastTrainsCloseToFloat32) {
  TempDir dir;
  ResolvedConfig config = testing::tinyPretrainConfig(corpus());
  config.set("precision", std::string("bf16"));
  const TrainingSummary summary = testing::trainTiny(config, dir / "run");
  const auto bf16 = loggedLosses(dir / "run"), fp32 = loggedLosses(reference());
  ASSERT_EQ(bf16.size(), fp32.size());
  int differing = 0;
  for (const auto& [step, loss] : bf16) {
    ASSERT_TRUE(std::isfinite(loss));
    differing += loss != fp32.at(step);
  }
  EXPECT_GT(differing, 0) << "bf16 autocast computed exactly the float32 losses: was it on?";
  EXPECT_NEAR(bf16.rbegin()->second, fp32.rbegin()->second, 0.1 * fp32.rbegin()->second);
  EXPECT_TRUE(summary.finished);
}

TEST_F(TrainingLoop, TheBestCheckpointSurvivesKeepLastAndTensorBoardMatchesTheLog) {
  TempDir dir;
  ResolvedConfig config = testing::tinyPretrainConfig(corpus());
  config.set("eval_every", int64_t{5});
  config.set("keep_last", int64_t{1});
  testing::trainTiny(config, dir / "run");
  const auto val = testing::loggedValLosses(dir / "run");
  ASSERT_EQ(val.size(), 6u);  // steps 5, 10, ..., 30
  int64_t bestStep = val.begin()->first;
  for (const auto& [step, loss] : val)
    if (loss < val.at(bestStep)) bestStep = step;
  const CheckpointStore store(dir / "run" / "checkpoints");
  EXPECT_EQ(store.bestStep(), bestStep);
  std::set<int64_t> kept;
  for (const auto& [step, folder] : store.checkpoints()) kept.insert(step);
  EXPECT_EQ(kept, (std::set<int64_t>{bestStep, 30}));

  std::string why;
  const std::string python = testing::findPython({}, "install python3", why);
  if (python.empty()) GTEST_SKIP() << why;
  fs::path events;
  for (const auto& entry : fs::directory_iterator(dir / "run"))
    if (entry.path().filename().string().starts_with("events.out.tfevents.")) events = entry.path();
  ASSERT_FALSE(events.empty());
  const std::string command =
      python + " " + STRATA_SOURCE_DIR "/tests/reference/tensorboard_reader.py " + events.string();
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::map<int64_t, double> seenLoss;
  char line[4096];
  while (std::fgets(line, sizeof line, pipe)) {
    const auto json = nlohmann::json::parse(line);
    if (json.value("tag", std::string()) == "loss")
      seenLoss[json["step"]] = json["value"].get<double>();
  }
  ASSERT_EQ(::pclose(pipe), 0);
  const auto logged = loggedLosses(dir / "run");
  ASSERT_EQ(seenLoss.size(), logged.size());
  for (const auto& [step, loss] : logged)  // TensorBoard stores float32
    EXPECT_FLOAT_EQ(static_cast<float>(seenLoss.at(step)), static_cast<float>(loss)) << step;
}

TEST_F(TrainingLoop, AFailingRunIsRecordedWithItsError) {
  TempDir dir;
  std::ofstream(dir / "tiny.txt") << "too short";
  EXPECT_THROW(testing::trainTiny(testing::tinyPretrainConfig(dir / "tiny.txt"), dir / "run"),
               FormatError);
  const std::vector<RunInfo> runs = listRuns(dir.path());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status.state, RunState::Failed);
  EXPECT_NE(runs[0].status.error.find("too few"), std::string::npos) << runs[0].status.error;
}

// A disk that fills up while a checkpoint is written: the run fails with the file and the
// reason named, no half-written temporary is left, and the earlier good checkpoint stays.
TEST_F(TrainingLoop, AFullDiskWhileCheckpointingFailsTheRunCleanly) {
  TempDir dir;
  testing::writeToyCorpus(dir / "corpus.txt");
  const fs::path disk = dir / "small-disk";
  fs::create_directories(disk);
  // A 512 KiB file system: room for the run folder and a checkpoint or two, not for all.
  if (::mount("tmpfs", disk.c_str(), "tmpfs", 0, "size=512k") != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs here (needs root): " << std::strerror(errno);
  struct Unmount {
    fs::path at;
    ~Unmount() { ::umount2(at.c_str(), MNT_DETACH); }
  } unmount{disk};
  ResolvedConfig config = testing::tinyPretrainConfig(dir / "corpus.txt");
  config.set("checkpoint_every", int64_t{1});
  config.set("keep_last", int64_t{100});
  try {
    testing::trainTiny(config, disk / "run");
    ADD_FAILURE() << "30 checkpoints fitted into 512 KiB";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("disk full"), std::string::npos) << e.what();
  }
  const RunStatus status = readRunStatus(disk / "run");
  EXPECT_EQ(status.state, RunState::Failed);
  EXPECT_NE(status.error.find("disk full"), std::string::npos) << status.error;
  const auto checkpoints = CheckpointStore(disk / "run" / "checkpoints").checkpoints();
  ASSERT_FALSE(checkpoints.empty()) << "the disk was too small for even one checkpoint";
  for (const auto& [step, folder] : checkpoints)
    EXPECT_TRUE(CheckpointStore::verify(folder)) << folder;
  for (const auto& entry : fs::directory_iterator(disk / "run" / "checkpoints"))
    EXPECT_FALSE(entry.path().filename().string().starts_with(".")) << entry.path();
}

TEST_F(TrainingLoop, ExistingAndLockedRunsAreRefusedAndTrajectorySettingsCannotChange) {
  EXPECT_THROW(testing::trainTiny(testing::tinyPretrainConfig(corpus()), reference()), IoError);
  const std::string metricsBefore = readWholeFile(reference() / "metrics.jsonl");
  EXPECT_TRUE(testing::resumeTiny(reference()).finished);  // nothing to do, nothing touched
  EXPECT_EQ(readWholeFile(reference() / "metrics.jsonl"), metricsBefore);
  EXPECT_EQ(readRunStatus(reference()).state, RunState::Finished);
  TempDir dir;
  ResolvedConfig config = testing::tinyPretrainConfig(corpus());
  config.set("stop_after", int64_t{5});
  testing::trainTiny(config, dir / "run");
  EXPECT_EQ(readRunStatus(dir / "run").state, RunState::Stopped);
  EXPECT_THROW(testing::resumeTiny(dir / "run", {"lr=0.5"}), ConfigError);
  {
    const io::WriterLock other = io::WriterLock::forExistingFile(dir / "run" / "run.lock");
    try {
      testing::resumeTiny(dir / "run");
      ADD_FAILURE() << "resumed a locked run";
    } catch (const IoError& e) {
      EXPECT_NE(std::string(e.what()).find("another process is training"), std::string::npos);
    }
  }
  ResolvedConfig cuda = testing::tinyPretrainConfig(corpus());
  cuda.set("device", std::string("cuda"));
  if (!torch::cuda::is_available()) {
    try {
      testing::trainTiny(cuda, dir / "cuda");
      ADD_FAILURE() << "trained on a CUDA device that does not exist";
    } catch (const ConfigError& e) {  // the shared device resolver's refusal, naming the setting
      EXPECT_NE(std::string(e.what()).find("device cuda: this build of LibTorch sees no CUDA"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace strata::engine
