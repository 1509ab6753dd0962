#include "training_view.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>
#include <cmath>

#include "clean_path.h"
#include "common/error.h"
#include "common/job.h"
#include "display_text.h"
#include "metrics_follower.h"
#include "runs_table.h"
#include "training_plots.h"

namespace strata {
namespace {

QString stateText(engine::RunState state) {
  return QString::fromLatin1(engine::runStateName(state));
}

bool resumable(engine::RunState state) {
  return state == engine::RunState::Stopped || state == engine::RunState::Interrupted ||
         state == engine::RunState::Failed;
}

}  // namespace

TrainingView::TrainingView(const QString& runsRoot, MetricsFeeds* feeds, QWidget* parent)
    : QWidget(parent),
      m_runsRoot(cleanAbsolute(runsRoot)),
      m_rootLabel(new QLabel(this)),
      m_runs(new RunsTable(this)),
      m_header(new QLabel(tr("Select a run, or start one with Start…"), this)),
      m_progress(new QProgressBar(this)),
      m_eta(new QLabel(this)),
      m_start(new QPushButton(tr("Start…"), this)),
      m_pause(new QPushButton(tr("Pause"), this)),
      m_resume(new QPushButton(tr("Resume"), this)),
      m_stop(new QPushButton(tr("Stop"), this)),
      m_plots(new TrainingPlots(this)),
      m_log(new QPlainTextEdit(this)),
      m_listTimer(new QTimer(this)),
      m_metrics(new MetricsFollower(300, feeds, this)),
      m_logFlush(new QTimer(this)) {
  setObjectName(QStringLiteral("TrainingView"));
  m_rootLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_rootLabel->setWordWrap(true);
  auto* changeRoot = new QPushButton(tr("Change…"), this);
  changeRoot->setToolTip(tr("Choose the folder whose runs are listed"));
  connect(changeRoot, &QPushButton::clicked, this, &TrainingView::chooseRunsRoot);
  auto* openRun = new QPushButton(tr("Open Run Folder…"), this);
  openRun->setToolTip(tr("Show a run kept anywhere (its folder holds run.json)"));
  connect(openRun, &QPushButton::clicked, this, &TrainingView::openRunFolder);

  connect(m_runs, &RunsTable::runSelected, this, &TrainingView::showRun);
  connect(m_runs, &RunsTable::refreshed, this, &TrainingView::runsListed);

  m_start->setToolTip(tr("Configure and start a training run (Ctrl+T)"));
  m_pause->setToolTip(
      tr("Pause the run this window trains (it keeps its memory; Resume continues)"));
  m_resume->setToolTip(
      tr("Continue the paused run, or resume the selected stopped run from its newest checkpoint"));
  m_stop->setToolTip(
      tr("Stop the run this window trains: it checkpoints and can be resumed later"));
  connect(m_start, &QPushButton::clicked, this, &TrainingView::startRequested);
  connect(m_pause, &QPushButton::clicked, this, &TrainingView::pauseRequested);
  connect(m_stop, &QPushButton::clicked, this, &TrainingView::stopRequested);
  connect(m_resume, &QPushButton::clicked, this, [this] {
    emit resumeRequested(m_activeState == ActiveState::Paused ? m_activeFolder : m_shown);
  });

  m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_header->setWordWrap(true);
  m_progress->setRange(0, 1);
  m_progress->setValue(0);
  m_progress->setFormat(tr("%v / %m steps"));
  m_log->setReadOnly(true);
  m_log->setMaximumBlockCount(10000);
  m_log->setPlaceholderText(tr("The log of the training this window runs"));

  auto* left = new QWidget(this);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  auto* rootRow = new QHBoxLayout;
  rootRow->addWidget(m_rootLabel, 1);
  rootRow->addWidget(changeRoot);
  leftLayout->addLayout(rootRow);
  leftLayout->addWidget(m_runs, 1);
  leftLayout->addWidget(openRun);

  auto* buttons = new QHBoxLayout;
  for (QPushButton* button : {m_start, m_pause, m_resume, m_stop}) buttons->addWidget(button);
  buttons->addStretch(1);
  auto* progressRow = new QHBoxLayout;
  progressRow->addWidget(m_progress, 1);
  progressRow->addWidget(m_eta);

  auto* right = new QSplitter(Qt::Vertical, this);
  auto* top = new QWidget(right);
  auto* topLayout = new QVBoxLayout(top);
  topLayout->setContentsMargins(0, 0, 0, 0);
  topLayout->addLayout(buttons);
  topLayout->addWidget(m_header);
  topLayout->addLayout(progressRow);
  topLayout->addWidget(m_plots, 1);
  right->addWidget(top);
  right->addWidget(m_log);
  right->setStretchFactor(0, 4);
  right->setStretchFactor(1, 1);

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(left);
  split->addWidget(right);
  split->setStretchFactor(1, 3);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(split);

  m_logFlush->setSingleShot(true);
  m_logFlush->setInterval(150);
  connect(m_logFlush, &QTimer::timeout, this, &TrainingView::flushLog);
  connect(m_listTimer, &QTimer::timeout, this, &TrainingView::refreshRuns);
  connect(m_metrics, &MetricsFollower::due, this, &TrainingView::pollShownRun);
  setRefreshIntervals(1000, 300);
  setRunsRoot(m_runsRoot);
  updateButtons();
}

TrainingView::~TrainingView() = default;

void TrainingView::setRefreshIntervals(int listMs, int tailMs) {
  m_listTimer->setInterval(listMs);
  m_metrics->setInterval(tailMs);
}

void TrainingView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  refreshRuns();
  pollShownRun();
  m_listTimer->start();
  m_metrics->start();
}

void TrainingView::hideEvent(QHideEvent* event) {
  // A tab in the background reads no files; showing it again catches up at once.
  m_listTimer->stop();
  m_metrics->stop();
  QWidget::hideEvent(event);
}

void TrainingView::setRunsRoot(const QString& root) {
  m_runsRoot = cleanAbsolute(root);
  m_rootLabel->setText(tr("Runs in %1").arg(QDir::toNativeSeparators(m_runsRoot)));
  refreshRuns();
}

void TrainingView::addRunFolder(const QString& folder) {
  const QString clean = cleanAbsolute(folder);
  if (!m_extraRuns.contains(clean)) m_extraRuns << clean;
  refreshRuns();
}

void TrainingView::refreshRuns() { m_runs->refresh(m_runsRoot, m_extraRuns); }

void TrainingView::runsListed() {
  if (const engine::RunInfo* info = m_runs->info(m_shown)) m_shownCheckpoint = info->lastCheckpoint;
  m_runs->selectRun(m_shown);  // a run shown before the list had it
  updateButtons();
}

void TrainingView::showRun(const QString& folder) {
  const QString clean = cleanAbsolute(folder);
  if (clean == m_shown && !m_metrics->runFolder().isEmpty()) return;
  m_shown = clean;
  m_metrics->follow(clean);
  m_tailError.clear();
  m_shownStatus = engine::readRunStatus(toFsPath(clean));
  const engine::RunInfo* info = m_runs->info(clean);
  m_shownCheckpoint = info ? info->lastCheckpoint : -1;
  m_plots->setExportName(QFileInfo(clean).fileName());
  m_plots->setMetricsFile(toQString(engine::RunFolder(toFsPath(clean)).metricsFile()));
  m_plots->clear();
  m_rate.clear();
  m_runs->selectRun(clean);
  pollShownRun();
  emit runShown(clean);
}

void TrainingView::pollShownRun() {
  if (m_metrics->runFolder().isEmpty()) return;
  const MetricsUpdate update = m_metrics->read();
  if (update.error.isEmpty()) {
    const int count = static_cast<int>(update.records.size());
    if (update.restarted) {  // truncated by a resume: what was plotted is gone
      m_plots->setRecords(update.records);
      m_rate.clear();
    } else {
      m_plots->appendRecords(update.records);
    }
    for (const engine::MetricsRecord& record : update.records) m_rate.add(record);
    if (count > 0) emit recordsArrived(count);
    m_tailError.clear();
  } else {
    if (update.error != m_tailError)
      appendLog(static_cast<int>(MessageLevel::Warning), update.error);
    m_tailError = update.error;
  }
  m_shownStatus = engine::readRunStatus(toFsPath(m_shown));
  updateProgress();
  updateButtons();
}

void TrainingView::updateProgress() {
  const int64_t step = std::max(m_shownStatus.step, m_plots->lastStep());
  const int64_t total = std::max(m_shownStatus.totalSteps, step);
  m_progress->setRange(0, static_cast<int>(std::max<int64_t>(total, 1)));
  m_progress->setValue(static_cast<int>(step));
  const engine::RunState state = m_shownStatus.state;
  m_header->setText(tr("%1 — %2").arg(QDir::toNativeSeparators(m_shown), stateText(state)) +
                    (m_shownStatus.error.empty()
                         ? QString()
                         : QStringLiteral(": ") + QString::fromStdString(m_shownStatus.error)));
  const double rate = m_rate.stepsPerSecond();
  QString eta;
  if (rate > 0) eta = tr("%1 steps/s").arg(rate, 0, 'g', 3);
  if (state == engine::RunState::Running && rate > 0 && total > step)
    eta += tr(" · ETA %1").arg(durationText(static_cast<double>(total - step) / rate));
  m_eta->setText(eta);
}

void TrainingView::setActiveRun(const QString& folder, ActiveState state) {
  m_activeFolder = folder.isEmpty() ? QString() : cleanAbsolute(folder);
  m_activeState = state;
  updateButtons();
}

void TrainingView::updateButtons() {
  const bool active = m_activeState != ActiveState::None;
  m_start->setEnabled(!active);
  m_pause->setEnabled(m_activeState == ActiveState::Training);
  m_stop->setEnabled(active);
  const bool stoppedShown =
      !m_shown.isEmpty() && resumable(m_shownStatus.state) && m_shownCheckpoint >= 0;
  m_resume->setEnabled(m_activeState == ActiveState::Paused || (!active && stoppedShown));
}

void TrainingView::appendLog(int level, const QString& text) {
  const QString time = QTime::currentTime().toString(QStringLiteral("hh:mm:ss"));
  const auto kind = static_cast<MessageLevel>(level);
  const QString prefix = kind == MessageLevel::Error     ? tr("error: ")
                         : kind == MessageLevel::Warning ? tr("warning: ")
                                                         : QString();
  // Batched: a run logging every step would otherwise lay out and repaint the pane per line.
  m_pendingLog << time + QStringLiteral("  ") + prefix + text;
  if (!m_logFlush->isActive()) m_logFlush->start();
}

void TrainingView::flushLog() {
  if (m_pendingLog.isEmpty()) return;
  m_log->appendPlainText(m_pendingLog.join(QLatin1Char('\n')));
  m_pendingLog.clear();
}

void TrainingView::showJobProgress(double fraction, const QString& stage) {
  if (m_plots->recordCount() == 0 && !stage.isEmpty())
    m_eta->setText(fraction >= 0 ? tr("%1 (%2 %)").arg(stage).arg(std::lround(fraction * 100))
                                 : stage);
}

void TrainingView::openRunFolder() {
  const QString folder = QFileDialog::getExistingDirectory(this, tr("Open Run Folder"), m_runsRoot);
  if (folder.isEmpty()) return;
  if (!engine::isRunFolder(toFsPath(folder))) {
    appendLog(
        static_cast<int>(MessageLevel::Warning),
        tr("%1 is not a run folder (it has no run.json)").arg(QDir::toNativeSeparators(folder)));
    return;
  }
  addRunFolder(folder);
  showRun(folder);
}

void TrainingView::chooseRunsRoot() {
  const QString root = QFileDialog::getExistingDirectory(this, tr("Runs Folder"), m_runsRoot);
  if (root.isEmpty()) return;
  setRunsRoot(root);
  emit runsRootChanged(m_runsRoot);
}

QString TrainingView::durationText(double seconds) {
  const auto s = static_cast<qint64>(std::llround(std::max(0.0, seconds)));
  if (s < 60) return tr("%1 s").arg(s);
  if (s < 3600) return tr("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
  return tr("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
}

}  // namespace strata
