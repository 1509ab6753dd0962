// Plugin recipes as training runs (engine/plugin_training.h), driven with the test plugin's
// recipe "echo" (tests/plugins/test_plugin.cpp): loss = 1/step and lr = 0.1 at steps 1..n, its
// progress, its own state file for resume, and modes that fail, throw or log a reserved name.
// Last, the run lifecycle they share with the built-in recipes (engine/run_lifecycle.h): the
// same lock and error, TensorBoard events, the same resume cut.

#include "engine/plugin_training.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/error.h"
#include "common/job.h"
#include "common/memory_budget.h"
#include "common/text_file.h"
#include "engine/metrics_log.h"
#include "engine/run_folder.h"
#include "engine/training_run.h"
#include "io/writer_lock.h"
#include "plugin/plugin_loader.h"
#include "support/python_finder.h"
#include "support/scoped_environment.h"
#include "support/temp_dir.h"
#include "support/training_fixture.h"

namespace strata::engine {

namespace {
namespace fs = std::filesystem;

const plugin::RecipeEntry& testRecipe(const std::string& name) {
  static const plugin::PluginSet set = plugin::loadPlugins({STRATA_TEST_PLUGIN_DIR});
  const plugin::RecipeEntry* recipe = set.findRecipe(name);
  if (!recipe) throw std::runtime_error("no recipe " + name + " in " STRATA_TEST_PLUGIN_DIR);
  return *recipe;
}

const plugin::RecipeEntry& echo() { return testRecipe("echo"); }

/** Records progress and messages; cancels its token once a progress of `cancelAt` arrives. */
class RecordingSink final : public ProgressSink {
 public:
  explicit RecordingSink(CancellationToken token = {}, double cancelAt = 2.0)
      : m_token(std::move(token)), m_cancelAt(cancelAt) {}
  void progress(double fraction, const std::string& stage) override {
    std::lock_guard lock(m_mutex);
    fractions.push_back(fraction);
    stages.push_back(stage);
    if (fraction >= m_cancelAt) m_token.cancel();
  }
  void message(MessageLevel, const std::string& text) override {
    std::lock_guard lock(m_mutex);
    messages.push_back(text);
  }
  std::vector<double> fractions;
  std::vector<std::string> stages;
  std::vector<std::string> messages;

 private:
  std::mutex m_mutex;
  CancellationToken m_token;
  double m_cancelAt;
};

TrainingRequest echoRequest(const fs::path& folder, const std::string& mode = "ok",
                            const std::string& greeting = "hi; there") {
  TrainingRequest request;
  request.recipe = "echo";
  request.config = ResolvedConfig(pluginRecipeSchema(echo()));
  request.config.set("greeting", greeting);
  request.config.set("mode", mode);
  request.runFolder = folder;
  request.command = "test";
  return request;
}

TrainingSummary start(const TrainingRequest& request, ProgressSink& sink,
                      const CancellationToken& token = {}) {
  JobContext job(sink, token);
  return startPluginTraining(echo(), request, job);
}

std::vector<int64_t> steps(const std::vector<MetricsRecord>& records) {
  std::vector<int64_t> out;
  for (const auto& r : records) out.push_back(r.step);
  return out;
}

/** What `body` throws as an Error; fails the test when it throws nothing. */
std::string errorOf(const std::function<void()>& body) {
  try {
    body();
  } catch (const CancelledError&) {
    ADD_FAILURE() << "cancelled instead of failing";
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an Error";
  return {};
}

TEST(PluginTraining, RecordsEveryMetricCallProgressAndRunJson) {
  TempDir dir;
  RecordingSink sink;
  const TrainingSummary summary = start(echoRequest(dir / "run"), sink);
  EXPECT_TRUE(summary.finished);
  EXPECT_EQ(summary.lastStep, 5);
  EXPECT_EQ(summary.totalSteps, 5);  // the recipe's "steps" setting
  EXPECT_DOUBLE_EQ(summary.lastMetrics.at("loss"), 0.2);

  // metrics.jsonl: one line per step with both metrics of that step, as the loop writes them.
  const auto records = readMetricsLog(dir / "run" / "metrics.jsonl");
  ASSERT_EQ(steps(records), (std::vector<int64_t>{1, 2, 3, 4, 5}));
  for (const auto& r : records) {
    ASSERT_EQ(r.values.size(), 2u);
    EXPECT_DOUBLE_EQ(r.value("loss"), 1.0 / double(r.step));
    EXPECT_DOUBLE_EQ(r.value("lr"), 0.1);
    EXPECT_GT(r.wallTime, 1.6e9);
  }
  // Progress: the recipe's fractions in order, after Strata's own start.
  const std::vector<double> expected = {0.2, 0.4, 0.6, 0.8, 1.0};
  ASSERT_GE(sink.fractions.size(), expected.size());
  EXPECT_EQ(std::vector<double>(sink.fractions.end() - 5, sink.fractions.end()), expected);
  EXPECT_EQ(sink.stages.back(), "echo step");

  const auto run = nlohmann::json::parse(readWholeFile(dir / "run" / "run.json"));
  EXPECT_EQ(run["recipe"], "echo");
  EXPECT_EQ(run["plugin"]["name"], "good");
  EXPECT_EQ(run["plugin"]["version"], "0");
  EXPECT_EQ(run["plugin"]["file"], echo().file.string());
  EXPECT_EQ(run["config"]["greeting"], "hi; there");
  EXPECT_EQ(run["config"]["steps"], "5");
  EXPECT_EQ(readRunStatus(dir / "run").state, RunState::Finished);
  EXPECT_EQ(readRunStatus(dir / "run").step, 5);
  EXPECT_EQ(readRunInfo(dir / "run").recipe, "echo");
  // The settings reached run() intact (';' included).
  EXPECT_EQ(readWholeFile(dir / "run" / "echo.txt"), "hi; there");
}

TEST(PluginTraining, CancelStopsTheRunAndResumeContinuesIt) {
  TempDir dir;
  CancellationToken token;
  RecordingSink sink(token, 0.4);  // Stop during step 2: the recipe sees it before step 3
  EXPECT_THROW(start(echoRequest(dir / "run"), sink, token), CancelledError);
  EXPECT_EQ(readRunStatus(dir / "run").state, RunState::Stopped);
  EXPECT_EQ(readRunStatus(dir / "run").step, 2);
  EXPECT_EQ(steps(readMetricsLog(dir / "run" / "metrics.jsonl")), (std::vector<int64_t>{1, 2}));
  EXPECT_FALSE(fs::exists(dir / "run" / "echo.txt"));

  RecordingSink again;
  CancellationToken fresh;
  JobContext job(again, fresh);
  const TrainingSummary summary = resumePluginTraining(echo(), dir / "run", job);
  EXPECT_TRUE(summary.finished);
  EXPECT_EQ(summary.startStep, 2);
  EXPECT_EQ(summary.lastStep, 5);
  EXPECT_EQ(readRunStatus(dir / "run").state, RunState::Finished);
  const auto records = readMetricsLog(dir / "run" / "metrics.jsonl");
  ASSERT_EQ(steps(records), (std::vector<int64_t>{1, 2, 3, 4, 5}));
  for (const auto& r : records) EXPECT_DOUBLE_EQ(r.value("loss"), 1.0 / double(r.step));
  EXPECT_EQ(readWholeFile(dir / "run" / "echo.txt"), "hi; there");  // run.json's settings

  // A finished run is not run again.
  RecordingSink third;
  JobContext job3(third, fresh);
  EXPECT_TRUE(resumePluginTraining(echo(), dir / "run", job3).finished);
  EXPECT_EQ(readMetricsLog(dir / "run" / "metrics.jsonl").size(), 5u);
}

TEST(PluginTraining, ResumeDropsTheStepsTheRecipeRepeats) {
  TempDir dir;
  CancellationToken token;
  RecordingSink sink(token, 0.4);
  EXPECT_THROW(start(echoRequest(dir / "run"), sink, token), CancelledError);
  // As if the process had logged steps 3 and 4 and been killed before its state file said so.
  {
    MetricsLogWriter writer(dir / "run" / "metrics.jsonl");
    writer.append({3, 1.7e9, {{"loss", 99.0}}});
    writer.append({4, 1.7e9, {{"loss", 98.0}}});
  }
  RecordingSink again;
  JobContext job(again, CancellationToken{});
  resumePluginTraining(echo(), dir / "run", job);
  const auto records = readMetricsLog(dir / "run" / "metrics.jsonl");
  ASSERT_EQ(steps(records), (std::vector<int64_t>{1, 2, 3, 4, 5}));
  EXPECT_DOUBLE_EQ(records[2].value("loss"), 1.0 / 3);
  EXPECT_DOUBLE_EQ(records[3].value("loss"), 0.25);
}

TEST(PluginTraining, PauseHoldsTheRecipeInCancelledUntilResumed) {
  TempDir dir;
  TrainingRequest request = echoRequest(dir / "run");
  request.control.pause();
  RecordingSink sink;
  std::thread resumer([&] {
    for (int i = 0; i < 200 && readRunStatus(dir / "run").state != RunState::Paused; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(readRunStatus(dir / "run").state, RunState::Paused);
    EXPECT_TRUE(readMetricsLog(dir / "run" / "metrics.jsonl").empty());  // no step while paused
    request.control.resume();
  });
  EXPECT_TRUE(start(request, sink).finished);
  resumer.join();
  EXPECT_EQ(readMetricsLog(dir / "run" / "metrics.jsonl").size(), 5u);
}

TEST(PluginTraining, ANonZeroReturnFailsTheRunNamingPluginAndRecipe) {
  TempDir dir;
  RecordingSink sink;
  const std::string error = errorOf([&] { start(echoRequest(dir / "run", "fail"), sink); });
  EXPECT_NE(error.find("plugin recipe echo"), std::string::npos) << error;
  EXPECT_NE(error.find("plugin good 0"), std::string::npos) << error;
  EXPECT_NE(error.find(echo().file.string()), std::string::npos) << error;
  EXPECT_NE(error.find("code 7"), std::string::npos) << error;
  EXPECT_NE(error.find("deliberate failure at step 2"), std::string::npos) << error;
  const RunStatus status = readRunStatus(dir / "run");
  EXPECT_EQ(status.state, RunState::Failed);
  EXPECT_EQ(status.error, error);
  EXPECT_EQ(steps(readMetricsLog(dir / "run" / "metrics.jsonl")), (std::vector<int64_t>{1}));
}

TEST(PluginTraining, AnEscapingExceptionFailsTheRunWithoutACrash) {
  TempDir dir;
  RecordingSink sink;
  // Through runJob, as both front ends run it: a Failed result, not an exception.
  const JobResult result = runJob(
      [&](JobContext& job) { startPluginTraining(echo(), echoRequest(dir / "run", "throw"), job); },
      sink, CancellationToken{});
  ASSERT_EQ(result.outcome, JobOutcome::Failed);
  EXPECT_NE(result.error.find("plugin recipe echo"), std::string::npos) << result.error;
  EXPECT_NE(result.error.find("threw"), std::string::npos) << result.error;
  EXPECT_NE(result.error.find("deliberate exception from echo"), std::string::npos) << result.error;
  EXPECT_EQ(readRunStatus(dir / "run").state, RunState::Failed);
}

TEST(PluginTraining, AReservedMetricNameFailsTheRun) {
  TempDir dir;
  RecordingSink sink;
  const std::string error = errorOf([&] { start(echoRequest(dir / "run", "bad_metric"), sink); });
  EXPECT_NE(error.find("\"step\""), std::string::npos) << error;
  EXPECT_NE(error.find("plugin recipe echo"), std::string::npos) << error;
  EXPECT_EQ(readRunStatus(dir / "run").state, RunState::Failed);
  EXPECT_TRUE(readMetricsLog(dir / "run" / "metrics.jsonl").empty());
}

bool anyMessageHas(const RecordingSink& sink, const std::string& part) {
  return std::any_of(sink.messages.begin(), sink.messages.end(),
                     [&](const std::string& m) { return m.find(part) != std::string::npos; });
}

TEST(PluginTraining, ARunItsOwnPlanDoesNotFitIsRefusedForMemoryBeforeItsFirstStepAndResumes) {
  TempDir dir;
  testing::ScopedEnvironment environment;
  environment.set("STRATA_MEMORY_AVAILABLE", "2G");
  TrainingRequest request = echoRequest(dir / "run");
  request.config.set("plan", std::to_string(int64_t{3} << 30));  // 3 GiB of a 2 GiB machine
  RecordingSink sink;
  std::string refusal;
  try {
    start(request, sink);
    ADD_FAILURE() << "the run was not refused";
  } catch (const MemoryError& e) {  // Strata's refusal, not the recipe's failure
    refusal = e.what();
  }
  EXPECT_NE(refusal.find("needs about 3.50 GiB of memory (plugin recipe echo: echo's buffer; "
                         "the process 512 MiB) but only 2.00 GiB is available. ask echo for less"),
            std::string::npos)
      << refusal;
  EXPECT_TRUE(anyMessageHas(sink,
                            "training memory plan: plugin recipe echo: echo's buffer; "
                            "process 512 MiB — needs 3.50 GiB of 2.00 GiB available "
                            "memory: does not fit"));
  // Nothing ran: no step logged, no state written; status.json says why.
  EXPECT_TRUE(readMetricsLog(dir / "run" / "metrics.jsonl").empty());
  EXPECT_FALSE(fs::exists(dir / "run" / "echo_state.txt"));
  EXPECT_EQ(readRunStatus(dir / "run").state, RunState::Failed);
  EXPECT_EQ(readRunStatus(dir / "run").error, refusal);

  // On a machine where it fits (the usable 90 % of 4.00 GiB is 3.60), the same run resumes.
  environment.set("STRATA_MEMORY_AVAILABLE", "4G");
  RecordingSink again;
  JobContext job(again, CancellationToken{});
  const TrainingSummary resumed = resumePluginTraining(echo(), dir / "run", job);
  EXPECT_TRUE(resumed.finished);
  EXPECT_EQ(resumed.lastStep, 5);
  EXPECT_TRUE(anyMessageHas(again, "needs 3.50 GiB of 4.00 GiB available memory: fits"));
  EXPECT_FALSE(anyMessageHas(again, "ABI 1"));
}

TEST(PluginTraining, ARecipeBuiltForTheFirstAbiRunsUnplannedAndTheLogSaysSo) {
  TempDir dir;
  TrainingRequest request = echoRequest(dir / "run");
  request.recipe = "echo_v1";
  request.config = ResolvedConfig(pluginRecipeSchema(testRecipe("echo_v1")));
  request.config.set("plan", "1");  // ignored: an ABI-1 recipe cannot call plan_memory
  RecordingSink sink;
  JobContext job(sink, CancellationToken{});
  const TrainingSummary summary = startPluginTraining(testRecipe("echo_v1"), request, job);
  EXPECT_TRUE(summary.finished);
  EXPECT_FALSE(testRecipe("echo_v1").plansMemory);
  EXPECT_TRUE(echo().plansMemory);
  EXPECT_TRUE(anyMessageHas(sink, "was built for plugin ABI 1, which cannot plan a run's memory"));
  EXPECT_FALSE(anyMessageHas(sink, "training memory plan"));
}

TEST(PluginTraining, PlanningStopsTheRecipeAtItsPlanAndKeepsNothing) {
  addRecipe(pluginCatalogRecipe(echo()));  // planTraining finds recipes in the catalog
  addRecipe(pluginCatalogRecipe(testRecipe("echo_v1")));
  TempDir dir;
  testing::ScopedEnvironment environment;
  environment.set("STRATA_MEMORY_AVAILABLE", "2G");
  TrainingRequest request = echoRequest(dir / "run");
  request.config.set("plan", std::to_string(int64_t{3} << 30));
  RecordingSink sink;
  JobContext job(sink, CancellationToken{});
  const TrainingPlanPreview tooLarge = planTraining(request, job);
  EXPECT_FALSE(tooLarge.fits);
  EXPECT_EQ(tooLarge.plan,
            "training memory plan: plugin recipe echo: echo's buffer; process 512 MiB — needs "
            "3.50 GiB of 2.00 GiB available memory: does not fit");
  EXPECT_NE(tooLarge.refusal.find("ask echo for less"), std::string::npos) << tooLarge.refusal;
  request.config.set("plan", "1000");
  const TrainingPlanPreview small = planTraining(request, job);
  EXPECT_TRUE(small.fits);
  EXPECT_TRUE(small.refusal.empty());
  EXPECT_FALSE(fs::exists(dir / "run")) << "planning created the run folder";

  // A recipe that never plans is stopped at its first cancelled() and said to be unplannable;
  // one built for ABI 1 is not run at all.
  request.config.set("plan", "");
  const std::string unplanned = errorOf([&] { planTraining(request, job); });
  EXPECT_NE(unplanned.find("did not plan its memory before its first step"), std::string::npos)
      << unplanned;
  TrainingRequest old = request;
  old.recipe = "echo_v1";
  old.config = ResolvedConfig(pluginRecipeSchema(testRecipe("echo_v1")));
  const std::string abiOne = errorOf([&] { planTraining(old, job); });
  EXPECT_NE(abiOne.find("built for plugin ABI 1 and cannot plan its memory"), std::string::npos)
      << abiOne;
  EXPECT_FALSE(fs::exists(dir / "run"));
}

TEST(PluginTraining, RefusesAFolderHoldingARunAndSeveralProcesses) {
  TempDir dir;
  RecordingSink sink;
  start(echoRequest(dir / "run"), sink);
  EXPECT_THROW(start(echoRequest(dir / "run"), sink), IoError);
  TrainingRequest parallel = echoRequest(dir / "other");
  parallel.distributed.worldSize = 2;
  EXPECT_THROW(start(parallel, sink), ConfigError);
  TrainingRequest broken = echoRequest(dir / "third", "ok", "two\nlines");
  EXPECT_THROW(start(broken, sink), ConfigError);
  JobContext job(sink, CancellationToken{});
  EXPECT_THROW(resumePluginTraining(echo(), dir / "run", job, {}, {}, {"steps=9"}), ConfigError);
}

/** An echo run (5 steps, loss 1/step) stopped after step 2. */
void stoppedEchoRun(const fs::path& folder) {
  CancellationToken token;
  RecordingSink sink(token, 0.4);
  EXPECT_THROW(start(echoRequest(folder), sink, token), CancelledError);
}

/** The IoError message of `body` with `folder` replaced by "RUN". */
std::string lockErrorOf(const fs::path& folder, const std::function<void()>& body) {
  const io::WriterLock other = io::WriterLock::forExistingFile(RunFolder(folder).lockFile());
  try {
    body();
  } catch (const IoError& e) {
    std::string text = e.what();
    for (size_t at; (at = text.find(folder.string())) != std::string::npos;)
      text.replace(at, folder.string().size(), "RUN");
    return text;
  }
  ADD_FAILURE() << "ran in " << folder << " while another process held its lock";
  return {};
}

TEST(RunLifecycle, AHeldLockRefusesBuiltInAndPluginRunsWithTheSameError) {
  TempDir dir;
  testing::writeToyCorpus(dir / "corpus.txt");
  ResolvedConfig config = testing::tinyPretrainConfig(dir / "corpus.txt");
  config.set("stop_after", int64_t{1});
  testing::trainTiny(config, dir / "built-in");
  stoppedEchoRun(dir / "plugin");

  NullProgressSink sink;
  JobContext job(sink, CancellationToken{});
  const std::string builtIn =
      lockErrorOf(dir / "built-in", [&] { resumeTraining(dir / "built-in", job); });
  const std::string plugin =
      lockErrorOf(dir / "plugin", [&] { resumePluginTraining(echo(), dir / "plugin", job); });
  EXPECT_NE(builtIn.find("another process is training in this run folder"), std::string::npos)
      << builtIn;
  EXPECT_EQ(plugin, builtIn);
  EXPECT_EQ(readRunStatus(dir / "plugin").state, RunState::Stopped);  // untouched
}

/** Every (step, value) of `tag` in the run's TensorBoard events, in file order. */
std::vector<std::pair<int64_t, double>> eventScalars(const std::string& python, const fs::path& run,
                                                     const std::string& tag) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(run))
    if (entry.path().filename().string().starts_with("events.out.tfevents."))
      files.push_back(entry.path());
  EXPECT_EQ(files.size(), 1u) << "one events file per run";
  if (files.empty()) return {};
  const std::string command = python + " " +
                              STRATA_SOURCE_DIR "/tests/reference/tensorboard_reader.py " +
                              files.front().string();
  FILE* pipe = ::popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr);
  if (!pipe) return {};
  std::vector<std::pair<int64_t, double>> scalars;
  char line[4096];
  while (std::fgets(line, sizeof line, pipe)) {
    const auto json = nlohmann::json::parse(line);
    if (json.value("tag", std::string()) == tag)
      scalars.emplace_back(json["step"].get<int64_t>(), json["value"].get<double>());
  }
  EXPECT_EQ(::pclose(pipe), 0);
  return scalars;
}

// A plugin run gains TensorBoard events, and its resume cuts them with metrics.jsonl at the
// step the recipe continues after: no step shows twice.
TEST(RunLifecycle, APluginRunWritesTensorBoardEventsCutOnResume) {
  std::string why;
  const std::string python = testing::findPython({}, "install python3", why);
  if (python.empty()) GTEST_SKIP() << why;
  TempDir dir;
  stoppedEchoRun(dir / "run");
  EXPECT_EQ(eventScalars(python, dir / "run", "loss").size(), 2u);
  {  // As if the process had logged steps 3 and 4 and been killed before its state file said so.
    MetricsLogWriter writer(dir / "run" / "metrics.jsonl");
    writer.append({3, 1.7e9, {{"loss", 99.0}}});
    writer.append({4, 1.7e9, {{"loss", 98.0}}});
  }
  NullProgressSink sink;
  JobContext job(sink, CancellationToken{});
  EXPECT_TRUE(resumePluginTraining(echo(), dir / "run", job).finished);
  const auto loss = eventScalars(python, dir / "run", "loss");
  ASSERT_EQ(loss.size(), 5u);
  for (size_t i = 0; i < loss.size(); ++i) {
    EXPECT_EQ(loss[i].first, int64_t(i + 1));
    EXPECT_FLOAT_EQ(static_cast<float>(loss[i].second), 1.0f / float(i + 1));  // float32 events
  }
  EXPECT_EQ(readMetricsLog(dir / "run" / "metrics.jsonl").size(), 5u);
}

}  // namespace
}  // namespace strata::engine
