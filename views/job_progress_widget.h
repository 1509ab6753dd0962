#pragma once
// JobProgressWidget: "stage ▕████░░▏ Cancel  +2 more ▾" for one JobController, sized for a
// status bar; the "more" menu cancels any other running job. A negative fraction puts the bar
// in busy mode. The widget follows the job it is bound to
// and forgets it when the job finishes or is destroyed; it never owns it. GUI thread only.

#include <QList>
#include <QPointer>
#include <QWidget>

#include "job_controller.h"

class QLabel;
class QProgressBar;
class QToolButton;

namespace strata {

class JobProgressWidget final : public QWidget {
  Q_OBJECT

 public:
  explicit JobProgressWidget(QWidget* parent = nullptr);

  /** Shows `job`'s progress from now on (nullptr: none). Cancel then cancels that job. */
  void setJob(JobController* job);
  JobController* job() const { return m_job; }
  /** The other running jobs, offered in the "more" menu (hidden when empty). */
  void setOtherJobs(const QList<JobController*>& jobs);

  QToolButton* moreButton() const { return m_more; }

  QProgressBar* progressBar() const { return m_bar; }
  QToolButton* cancelButton() const { return m_cancel; }
  QString stageText() const;

 private:
  void showProgress(double fraction, const QString& stage);
  void jobFinished();

  QPointer<JobController> m_job;
  QLabel* m_label;
  QProgressBar* m_bar;
  QToolButton* m_cancel;
  QToolButton* m_more;
};

}  // namespace strata
