// The study's one progress bar (core/studies/study_progress.h): steps of all runs against the
// study's total, finished runs counted, other stages not moving it, and the ETA text.

#include "studies/study_progress.h"

#include <gtest/gtest.h>

#include <vector>

#include "common/job.h"

namespace strata::studies {
namespace {

class LastReport final : public ProgressSink {
 public:
  void progress(double f, const std::string& s) override {
    fraction = f;
    stage = s;
  }
  void message(MessageLevel, const std::string&) override {}
  double fraction = -1;
  std::string stage;
};

TEST(StudyProgress, CountsStepsOfEveryRunAgainstTheStudysTotal) {
  LastReport outer;
  JobContext job(outer, CancellationToken());
  StudyProgressSink progress(job, 100, 30);  // 30 steps done by earlier sessions: 20 + 10 of
  progress.beginRun("arm-s0", 50, 10);       // a run resumed at step 10 of 50
  JobContext run = progress.context();
  run.progress(0.5, "step 25/50");
  EXPECT_DOUBLE_EQ(outer.fraction, 0.45);
  EXPECT_NE(outer.stage.find("arm-s0 step 25/50"), std::string::npos) << outer.stage;
  EXPECT_NE(outer.stage.find("45/100 steps"), std::string::npos) << outer.stage;
  EXPECT_NE(outer.stage.find("ETA"), std::string::npos) << outer.stage;
  // A run's other stages report their own 0..1: the bar must not jump to the run's end.
  run.progress(1.0, "hashing the corpus");
  EXPECT_DOUBLE_EQ(outer.fraction, 0.45);
  progress.endRun();
  EXPECT_EQ(progress.stepsDone(), 70);
}

TEST(StudyProgress, AResumedStudyCountsItsFinishedRunsOnce) {
  // The runner walks every run of the plan, finished ones too; they were counted at the start.
  LastReport outer;
  JobContext job(outer, CancellationToken());
  StudyProgressSink progress(job, 300, 150);  // run 1 finished (100), run 2 stopped at 50
  progress.beginRun("finished-s0", 100, 100);
  progress.endRun();
  EXPECT_EQ(progress.stepsDone(), 150);
  progress.beginRun("stopped-s0", 100, 50);
  JobContext run = progress.context();
  run.progress(0.6, "step 60/100");
  EXPECT_EQ(progress.stepsDone(), 160);
  EXPECT_NE(outer.stage.find("160/300 steps"), std::string::npos) << outer.stage;
  progress.endRun();
  EXPECT_EQ(progress.stepsDone(), 200);
}

TEST(StudyProgress, DurationsReadAsHoursMinutesSeconds) {
  EXPECT_EQ(formatDuration(3725), "1 h 02 min");
  EXPECT_EQ(formatDuration(250), "4 min 10 s");
  EXPECT_EQ(formatDuration(12), "12 s");
  EXPECT_EQ(formatDuration(-1), "–");
}

}  // namespace
}  // namespace strata::studies
