// The background job runner: reports arrive, exceptions become failures, cancellation is
// cooperative and prompt, and destroying a running job never leaves a thread behind.

#include "common/job.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "common/error.h"

namespace strata {
namespace {

using namespace std::chrono_literals;

/** Records what a job reports, from any thread. */
class RecordingSink : public ProgressSink {
 public:
  void progress(double fraction, const std::string& stage) override {
    std::lock_guard lock(m_mutex);
    fractions.push_back(fraction);
    stages.push_back(stage);
  }
  void message(MessageLevel level, const std::string& text) override {
    std::lock_guard lock(m_mutex);
    messages.emplace_back(level, text);
  }
  std::vector<double> fractions;
  std::vector<std::string> stages;
  std::vector<std::pair<MessageLevel, std::string>> messages;

 private:
  std::mutex m_mutex;
};

/** Waits for a BackgroundJob's onFinished callback. */
class FinishLatch {
 public:
  std::function<void(const JobResult&)> callback() {
    return [this](const JobResult& result) {
      std::lock_guard lock(m_mutex);
      m_result = result;
      m_done = true;
      m_condition.notify_all();
    };
  }
  JobResult await() {
    std::unique_lock lock(m_mutex);
    EXPECT_TRUE(m_condition.wait_for(lock, 10s, [&] { return m_done; })) << "job never finished";
    return m_result;
  }

 private:
  std::mutex m_mutex;
  std::condition_variable m_condition;
  bool m_done = false;
  JobResult m_result;
};

TEST(Job, ReportsProgressAndMessagesInOrder) {
  RecordingSink sink;
  const JobResult result = runJob(
      [](JobContext& job) {
        for (int step = 0; step <= 4; ++step) job.progress(step / 4.0, "step");
        job.info("done");
        job.warning("careful");
      },
      sink, CancellationToken());
  EXPECT_EQ(result.outcome, JobOutcome::Succeeded);
  EXPECT_EQ(sink.fractions, (std::vector<double>{0.0, 0.25, 0.5, 0.75, 1.0}));
  ASSERT_EQ(sink.messages.size(), 2u);
  EXPECT_EQ(sink.messages[0].first, MessageLevel::Info);
  EXPECT_EQ(sink.messages[1].first, MessageLevel::Warning);
}

TEST(Job, ExceptionBecomesAFailureWithItsMessage) {
  RecordingSink sink;
  const JobResult result =
      runJob([](JobContext&) { throw FormatError("/m/model.safetensors", "header too large"); },
             sink, CancellationToken());
  EXPECT_EQ(result.outcome, JobOutcome::Failed);
  EXPECT_EQ(result.error, "/m/model.safetensors: header too large");
}

TEST(Job, CancelledJobReportsCancelledNotFailed) {
  RecordingSink sink;
  CancellationToken token;
  token.cancel();
  const JobResult result = runJob([](JobContext& job) { job.checkCancelled(); }, sink, token);
  EXPECT_EQ(result.outcome, JobOutcome::Cancelled);
  EXPECT_TRUE(result.error.empty());
}

TEST(BackgroundJob, RunsOnAnotherThread) {
  RecordingSink sink;
  FinishLatch latch;
  std::thread::id workerId;
  BackgroundJob job(
      "probe", [&](JobContext&) { workerId = std::this_thread::get_id(); }, sink, latch.callback());
  job.start();
  EXPECT_EQ(latch.await().outcome, JobOutcome::Succeeded);
  job.wait();
  EXPECT_NE(workerId, std::this_thread::get_id());
  EXPECT_FALSE(job.running());
}

TEST(BackgroundJob, CancelStopsALoopingJobPromptly) {
  RecordingSink sink;
  FinishLatch latch;
  std::atomic<int> iterations{0};
  BackgroundJob job(
      "loop",
      [&](JobContext& context) {
        for (;;) {
          context.checkCancelled();
          ++iterations;
          std::this_thread::sleep_for(1ms);
        }
      },
      sink, latch.callback());
  job.start();
  while (iterations < 3) std::this_thread::sleep_for(1ms);
  const auto requested = std::chrono::steady_clock::now();
  job.cancel();
  EXPECT_EQ(latch.await().outcome, JobOutcome::Cancelled);
  EXPECT_LT(std::chrono::steady_clock::now() - requested, 1s);
}

TEST(BackgroundJob, DestroyingARunningJobCancelsAndJoins) {
  RecordingSink sink;
  std::atomic<bool> exited{false};
  {
    BackgroundJob job(
        "long",
        [&](JobContext& context) {
          while (!context.cancelled()) std::this_thread::sleep_for(1ms);
          exited = true;
        },
        sink);
    job.start();
  }
  EXPECT_TRUE(exited);
}

TEST(BackgroundJob, CannotBeStartedTwice) {
  RecordingSink sink;
  BackgroundJob job(
      "once", [](JobContext&) {}, sink);
  job.start();
  EXPECT_THROW(job.start(), Error);
}

}  // namespace
}  // namespace strata
