#include "job_progress_panel.h"

#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace strata {
namespace {

constexpr double kLeastFractionToEstimate = 0.02;  // earlier, start-up costs skew the pace

QString clockText(qint64 ms) {
  const qint64 seconds = std::max<qint64>(ms, 0) / 1000;
  if (seconds >= 3600)
    return QStringLiteral("%1:%2:%3")
        .arg(seconds / 3600)
        .arg(seconds / 60 % 60, 2, 10, QLatin1Char('0'))
        .arg(seconds % 60, 2, 10, QLatin1Char('0'));
  return QStringLiteral("%1:%2").arg(seconds / 60).arg(seconds % 60, 2, 10, QLatin1Char('0'));
}

}  // namespace

JobProgressPanel::JobProgressPanel(QWidget* parent)
    : QWidget(parent),
      m_title(new QLabel(this)),
      m_stage(new QLabel(this)),
      m_bar(new QProgressBar(this)),
      m_time(new QLabel(this)),
      m_cancel(new QPushButton(tr("Cancel"), this)),
      m_clock(new QTimer(this)) {
  QFont title = m_title->font();
  title.setPointSizeF(title.pointSizeF() * 1.4);
  title.setBold(true);
  m_title->setFont(title);
  for (QLabel* label : {m_title, m_stage, m_time}) {
    label->setAlignment(Qt::AlignCenter);
    label->setWordWrap(true);
  }
  m_time->setForegroundRole(QPalette::PlaceholderText);
  m_bar->setRange(0, 1000);
  m_bar->setTextVisible(false);
  m_bar->setFixedWidth(360);
  m_cancel->setToolTip(tr("Cancel this job"));

  auto* layout = new QVBoxLayout(this);
  layout->addStretch(2);
  layout->addWidget(m_title);
  layout->addWidget(m_stage);
  layout->addSpacing(8);
  layout->addWidget(m_bar, 0, Qt::AlignHCenter);
  layout->addWidget(m_time);
  layout->addSpacing(8);
  layout->addWidget(m_cancel, 0, Qt::AlignHCenter);
  layout->addStretch(3);

  connect(m_cancel, &QPushButton::clicked, this, [this] {
    if (!m_job) return;
    m_job->cancel();
    m_cancel->setEnabled(false);
    m_stage->setText(tr("cancelling…"));
  });
  m_clock->setInterval(1000);
  connect(m_clock, &QTimer::timeout, this, &JobProgressPanel::showTime);
  setJob(nullptr);
}

void JobProgressPanel::setJob(JobController* job) {
  if (m_job) disconnect(m_job, nullptr, this, nullptr);
  m_job = job;
  if (!job) {
    m_clock->stop();
    m_title->clear();
    m_stage->clear();
    m_time->clear();
    m_bar->reset();
    m_cancel->setEnabled(false);
    return;
  }
  connect(job, &JobController::progressChanged, this, &JobProgressPanel::showProgress);
  connect(job, &JobController::finished, this, [this] { setJob(nullptr); });
  m_title->setText(job->name());
  m_cancel->setEnabled(!job->cancelRequested());
  showProgress(job->lastFraction(), job->lastStage());
  m_clock->start();
}

void JobProgressPanel::showProgress(double fraction, const QString& stage) {
  m_fraction = std::isfinite(fraction) ? fraction : -1.0;
  if (!(m_job && m_job->cancelRequested()))
    m_stage->setText(stage.isEmpty() ? tr("starting…") : stage);
  if (m_fraction < 0) {
    m_bar->setRange(0, 0);  // busy: the amount is unknown
  } else {
    m_bar->setRange(0, 1000);
    m_bar->setValue(static_cast<int>(std::lround(std::min(m_fraction, 1.0) * 1000)));
  }
  showTime();
}

void JobProgressPanel::showTime() {
  if (m_job) m_time->setText(timeText(m_job->elapsedMs(), m_fraction));
}

QString JobProgressPanel::timeText(qint64 elapsedMs, double fraction) {
  const QString soFar = tr("%1 so far").arg(clockText(elapsedMs));
  if (!(fraction >= kLeastFractionToEstimate) || fraction > 1.0)
    return tr("%1 · estimating the time left").arg(soFar);
  // The rest at the pace so far: elapsed · (1 − f) / f.
  const auto left =
      static_cast<qint64>(static_cast<double>(elapsedMs) * (1.0 - fraction) / fraction);
  return tr("%1 · about %2 left").arg(soFar, clockText(left));
}

}  // namespace strata
