#include "job_progress_widget.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QToolButton>
#include <algorithm>
#include <cmath>

#include "job_controller.h"

namespace strata {

JobProgressWidget::JobProgressWidget(QWidget* parent)
    : QWidget(parent),
      m_label(new QLabel(this)),
      m_bar(new QProgressBar(this)),
      m_cancel(new QToolButton(this)),
      m_more(new QToolButton(this)) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_label);
  layout->addWidget(m_bar);
  layout->addWidget(m_cancel);
  layout->addWidget(m_more);
  m_bar->setRange(0, 1000);
  m_bar->setTextVisible(false);
  m_bar->setFixedWidth(160);
  m_bar->setMaximumHeight(m_label->sizeHint().height());
  m_cancel->setText(tr("Cancel"));
  m_cancel->setToolTip(tr("Cancel the running job"));
  m_cancel->setAutoRaise(true);
  connect(m_cancel, &QToolButton::clicked, this, [this] {
    if (!m_job) return;
    m_job->cancel();
    m_cancel->setEnabled(false);
    m_label->setText(tr("%1: cancelling…").arg(m_job->name()));
  });
  m_more->setAutoRaise(true);
  m_more->setPopupMode(QToolButton::InstantPopup);
  m_more->setToolTip(tr("Other running jobs"));
  m_more->setMenu(new QMenu(m_more));
  setJob(nullptr);
  setOtherJobs({});
}

void JobProgressWidget::setOtherJobs(const QList<JobController*>& jobs) {
  QMenu* menu = m_more->menu();
  menu->clear();
  for (JobController* job : jobs) {
    QAction* action = menu->addAction(tr("Cancel %1").arg(job->name()));
    action->setEnabled(!job->cancelRequested());
    connect(action, &QAction::triggered, job, [job, action] {
      job->cancel();
      action->setEnabled(false);
    });
  }
  m_more->setText(tr("+%1 more").arg(jobs.size()));
  m_more->setVisible(!jobs.isEmpty());
}

void JobProgressWidget::setJob(JobController* job) {
  if (m_job) disconnect(m_job, nullptr, this, nullptr);
  m_job = job;
  if (!job) {
    m_label->clear();
    m_bar->reset();
    m_cancel->setEnabled(false);
    return;
  }
  connect(job, &JobController::progressChanged, this, &JobProgressWidget::showProgress);
  connect(job, &JobController::finished, this, &JobProgressWidget::jobFinished);
  m_cancel->setEnabled(!job->cancelRequested());
  m_label->setText(job->name());
  m_bar->setRange(0, 0);  // busy until the first report
}

QString JobProgressWidget::stageText() const { return m_label->text(); }

void JobProgressWidget::showProgress(double fraction, const QString& stage) {
  const QString name = m_job ? m_job->name() : QString();
  m_label->setText(stage.isEmpty() ? name : tr("%1: %2").arg(name, stage));
  if (fraction < 0 || !std::isfinite(fraction)) {
    m_bar->setRange(0, 0);
  } else {
    m_bar->setRange(0, 1000);
    m_bar->setValue(static_cast<int>(std::lround(std::min(fraction, 1.0) * 1000)));
  }
}

void JobProgressWidget::jobFinished() { setJob(nullptr); }

}  // namespace strata
