// JobController: the bridge from a core background job to Qt signals on the GUI thread.

#include "job_controller.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "common/error.h"

using namespace std::chrono_literals;
using strata::JobContext;
using strata::JobController;
using strata::JobOutcome;

namespace {

constexpr int kTimeoutMs = 10000;

/** Waits (on the event loop) for `job` to emit finished, and returns its outcome. */
JobOutcome waitForOutcome(QSignalSpy& finished) {
  if (finished.isEmpty() && !finished.wait(kTimeoutMs)) return JobOutcome::Failed;
  return finished.first().at(0).value<JobOutcome>();
}

}  // namespace

class JobControllerTest : public QObject {
  Q_OBJECT

 private slots:
  void deliversProgressAndSucceeds() {
    JobController job("steps", [](JobContext& context) {
      for (int i = 1; i <= 5; ++i) {
        context.progress(i / 5.0, "step " + std::to_string(i));
        std::this_thread::sleep_for(30ms);
      }
    });
    job.setProgressInterval(10ms);
    QSignalSpy progress(&job, &JobController::progressChanged);
    QSignalSpy finished(&job, &JobController::finished);
    job.start();
    QVERIFY(job.running());
    QCOMPARE(waitForOutcome(finished), JobOutcome::Succeeded);
    QCOMPARE(finished.count(), 1);
    QVERIFY(finished.first().at(1).toString().isEmpty());
    QVERIFY(!job.running());
    QVERIFY(progress.count() >= 2);
    QCOMPARE(progress.last().at(0).toDouble(), 1.0);
    QCOMPARE(progress.last().at(1).toString(), QStringLiteral("step 5"));
  }

  void coalescesProgressToTheInterval() {
    // A million reports in ~0.6 s must arrive as a handful of signals, the last state included.
    std::atomic<long> reports{0};
    JobController job("flood", [&reports](JobContext& context) {
      const auto end = std::chrono::steady_clock::now() + 600ms;
      long i = 0;
      while (std::chrono::steady_clock::now() < end) context.progress(0.5, "flooding"), ++i;
      reports = i;
      context.progress(1.0, "final");
    });
    QSignalSpy progress(&job, &JobController::progressChanged);
    QSignalSpy finished(&job, &JobController::finished);
    QElapsedTimer clock;
    clock.start();
    job.start();
    QCOMPARE(waitForOutcome(finished), JobOutcome::Succeeded);
    const qint64 elapsedMs = clock.elapsed();
    QVERIFY(reports > 1000);
    // 100 ms interval: at most one signal per interval, plus the first one and the final flush.
    QVERIFY2(
        progress.count() <= elapsedMs / 100 + 2,
        qPrintable(QStringLiteral("%1 signals in %2 ms").arg(progress.count()).arg(elapsedMs)));
    QVERIFY(progress.count() >= 2);
    QCOMPARE(progress.last().at(0).toDouble(), 1.0);
    QCOMPARE(progress.last().at(1).toString(), QStringLiteral("final"));
  }

  void negativeFractionIsPassedOnAsBusy() {
    JobController job("busy", [](JobContext& context) { context.progress(-1.0, "thinking"); });
    QSignalSpy progress(&job, &JobController::progressChanged);
    QSignalSpy finished(&job, &JobController::finished);
    job.start();
    QCOMPARE(waitForOutcome(finished), JobOutcome::Succeeded);
    QCOMPARE(progress.count(), 1);
    QVERIFY(progress.first().at(0).toDouble() < 0);
  }

  void deliversEveryMessageInOrder() {
    JobController job("chatty", [](JobContext& context) {
      for (int i = 0; i < 50; ++i) context.info("line " + std::to_string(i));
      context.warning("careful");
    });
    QSignalSpy messages(&job, &JobController::messageLogged);
    QSignalSpy finished(&job, &JobController::finished);
    job.start();
    QCOMPARE(waitForOutcome(finished), JobOutcome::Succeeded);
    QCOMPARE(messages.count(), 51);  // messages are never coalesced, and all precede finished()
    QCOMPARE(messages.at(7).at(1).toString(), QStringLiteral("line 7"));
    QCOMPARE(messages.last().at(0).toInt(), static_cast<int>(strata::MessageLevel::Warning));
    QCOMPARE(messages.last().at(1).toString(), QStringLiteral("careful"));
  }

  void reportsFailureWithTheErrorMessage() {
    JobController job("broken", [](JobContext&) {
      throw strata::ConfigError("/models/x/config.json", "architectures", "unsupported 'Foo'");
    });
    QSignalSpy finished(&job, &JobController::finished);
    job.start();
    QCOMPARE(waitForOutcome(finished), JobOutcome::Failed);
    const QString error = finished.first().at(1).toString();
    QVERIFY2(error.contains("config.json") && error.contains("unsupported 'Foo'"),
             qPrintable(error));
  }

  void cancelStopsTheJobWithoutBlocking() {
    std::atomic<bool> sawCancel{false};
    JobController job("endless", [&sawCancel](JobContext& context) {
      const auto deadline = std::chrono::steady_clock::now() + 20s;
      while (std::chrono::steady_clock::now() < deadline) {
        context.progress(-1.0, "waiting");
        if (context.cancelled()) sawCancel = true;
        context.checkCancelled();
        std::this_thread::sleep_for(5ms);
      }
    });
    QSignalSpy progress(&job, &JobController::progressChanged);
    QSignalSpy finished(&job, &JobController::finished);
    job.start();
    QVERIFY(progress.wait(kTimeoutMs));
    QElapsedTimer clock;
    clock.start();
    job.cancel();
    QVERIFY(clock.elapsed() < 50);  // cancel() only raises the flag
    QVERIFY(job.cancelRequested());
    QCOMPARE(waitForOutcome(finished), JobOutcome::Cancelled);
    QVERIFY(sawCancel);
    QVERIFY(finished.first().at(1).toString().isEmpty());
  }

  void destroyingARunningControllerCancelsAndJoins() {
    std::atomic<bool> workEnded{false};
    auto* job = new JobController("doomed", [&workEnded](JobContext& context) {
      // Floods progress and messages so that posted events are pending at destruction.
      const auto deadline = std::chrono::steady_clock::now() + 20s;
      while (std::chrono::steady_clock::now() < deadline && !context.cancelled()) {
        context.progress(0.3, "busy");
        context.info("tick");
      }
      workEnded = true;
      context.checkCancelled();
    });
    int finishedCount = 0;
    int messageCount = 0;
    connect(job, &JobController::finished, this, [&finishedCount] { ++finishedCount; });
    connect(job, &JobController::messageLogged, this, [&messageCount] { ++messageCount; });
    job->start();
    QTRY_VERIFY_WITH_TIMEOUT(messageCount > 0, kTimeoutMs);
    QElapsedTimer clock;
    clock.start();
    delete job;  // must cancel, join, and drop whatever was still queued for it
    QVERIFY(workEnded);
    QVERIFY(clock.elapsed() < 5000);
    const int messagesAtDeath = messageCount;
    QTest::qWait(200);  // run the event loop: nothing may reach the dead controller's slots
    QCOMPARE(finishedCount, 0);
    QCOMPARE(messageCount, messagesAtDeath);
  }

  void destroyingAFinishedControllerBeforeDeliveryIsSafe() {
    int finishedCount = 0;
    auto* job =
        new JobController("quick", [](JobContext& context) { context.progress(1.0, "done"); });
    connect(job, &JobController::finished, this, [&finishedCount] { ++finishedCount; });
    job->start();
    std::this_thread::sleep_for(100ms);  // the worker is done; its finish() event is queued
    delete job;
    QTest::qWait(100);
    QCOMPARE(finishedCount, 0);
  }

  void refusesASecondStart() {
    JobController job("once", [](JobContext&) {});
    QSignalSpy finished(&job, &JobController::finished);
    job.start();
    QVERIFY_THROWS_EXCEPTION(strata::Error, job.start());
    QCOMPARE(waitForOutcome(finished), JobOutcome::Succeeded);
  }
};

QTEST_MAIN(JobControllerTest)
#include "job_controller_test.moc"
