// The window's jobs give back what they freed: after a job that allocated and released 1.5 GB in
// its thread has ended, the process is back within a bound of where it started. Without
// releasing, glibc keeps the whole freed heap behind one small allocation that outlives the job
// (a result, a log line): 1 GB stays resident (common/memory_release.h).

#include "background_jobs.h"

#include <QSignalSpy>
#include <QTest>
#include <cstring>
#include <memory>
#include <vector>

#include "common/memory_release.h"
#include "job_progress_widget.h"
#include "log_dock.h"

using namespace strata;

class BackgroundJobsTest : public QObject {
  Q_OBJECT

 private slots:
  void aFinishedJobReturnsTheMemoryItFreed() {
    LogDock log;
    JobProgressWidget progress;
    BackgroundJobs jobs(log, progress);
    releaseFreedMemory();
    const int64_t before = residentBytes();
    QVERIFY2(before > 0, "no /proc/self/status here");
    QSignalSpy finished(&jobs, &BackgroundJobs::allFinished);
    int64_t peak = 0;
    std::unique_ptr<char[]> survivor;  // allocated last by the job, kept by the window
    jobs.start("allocate",
               [&peak, &survivor](JobContext&) {
                 // Large blocks first (weights: freeing them raises glibc's mmap threshold), then
                 // blocks of 400 kB (a batch's activations) that now come from the heap, with small
                 // objects between them; all freed but the last small one, which the window keeps.
                 for (int i = 0; i < 8; ++i) {
                   std::unique_ptr<char[]> weights(new char[16 << 20]);
                   std::memset(weights.get(), 1, 16 << 20);
                 }
                 std::vector<std::unique_ptr<char[]>> blocks, small;
                 for (int i = 0; i < 4000; ++i) {
                   small.emplace_back(new char[200]);
                   blocks.emplace_back(new char[400000]);
                   std::memset(blocks.back().get(), 1, 400000);
                 }
                 peak = residentBytes();
                 survivor = std::move(small.back());
               },
               {});
    QVERIFY(finished.wait(120000));
    const int64_t after = residentBytes();
    constexpr int64_t kMiB = 1 << 20;
    QVERIFY2(peak - before > 1000 * kMiB, "the job did not allocate what it should");
    survivor.reset();
    QVERIFY2(after - before < 300 * kMiB,
             qPrintable(QStringLiteral("%1 MiB still resident after the job (peak +%2 MiB)")
                            .arg((after - before) / kMiB)
                            .arg((peak - before) / kMiB)));
  }
};

QTEST_MAIN(BackgroundJobsTest)
#include "background_jobs_test.moc"
