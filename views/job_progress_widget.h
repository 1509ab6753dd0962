#pragma once
// JobProgressWidget: "stage ▕████░░▏ Cancel" for one JobController, sized for a status bar.
// A negative fraction puts the bar in busy mode. The widget follows the job it is bound to
// and forgets it when the job finishes or is destroyed; it never owns it. GUI thread only.

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
};

}  // namespace strata
