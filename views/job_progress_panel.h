#pragma once
// JobProgressPanel: one running job shown large, for the window's centre while no tab is open —
// the first job of a session would otherwise run behind "Open a model folder…". It shows the
// job's name (which names its model or file), its stage as the job reports it ("capturing:
// layer 6 of 30"), a bar, the time so far with an estimate of the time left, and Cancel. It
// follows one JobController and forgets it when the job ends or is destroyed; it never owns it.
// GUI thread only.

#include <QPointer>
#include <QWidget>

#include "job_controller.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTimer;

namespace strata {

class JobProgressPanel final : public QWidget {
  Q_OBJECT

 public:
  explicit JobProgressPanel(QWidget* parent = nullptr);

  /** Follows `job` from now on (nullptr: none), starting from its last reported progress. */
  void setJob(JobController* job);
  JobController* job() const { return m_job; }

  QLabel* titleLabel() const { return m_title; }
  QLabel* stageLabel() const { return m_stage; }
  QLabel* timeLabel() const { return m_time; }
  QProgressBar* progressBar() const { return m_bar; }
  QPushButton* cancelButton() const { return m_cancel; }

  /** "0:42 so far · about 1:10 left": the rest estimated at the pace so far, once `fraction`
   *  is known and at least 2 % (before that, "estimating the time left"). */
  static QString timeText(qint64 elapsedMs, double fraction);

 private:
  void showProgress(double fraction, const QString& stage);
  void showTime();

  QPointer<JobController> m_job;
  QLabel* m_title;
  QLabel* m_stage;
  QProgressBar* m_bar;
  QLabel* m_time;
  QPushButton* m_cancel;
  QTimer* m_clock;  ///< the time so far moves between progress reports
  double m_fraction = -1.0;
};

}  // namespace strata
