#include "chunk_routing_view.h"

#include <qcustomplot.h>

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSlider>
#include <QSplitter>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include "chunk_routing_plots.h"
#include "common/error.h"
#include "display_text.h"
#include "engine/metrics_log.h"
#include "engine/run_manifest.h"
#include "job_controller.h"
#include "job_progress_widget.h"
#include "metrics_follower.h"
#include "model/diffusion/dlm_variant.h"
#include "plot_export.h"
#include "plot_palette.h"
#include "token_strip.h"

namespace strata {
namespace {

/** The run's seq_len as recorded in run.json, or 0 when it is not there. */
int64_t recordedSeqLen(const QString& run) {
  try {
    const std::optional<std::string> value =
        engine::readRunManifest(toFsPath(run)).setting("seq_len");
    return value ? std::stoll(*value) : 0;
  } catch (const std::exception&) {
    return 0;  // an unreadable run.json is reported by the routing itself
  }
}

}  // namespace

ChunkRoutingView::ChunkRoutingView(QString runFolder, MetricsFeeds* feeds, QWidget* parent)
    : QWidget(parent),
      m_run(std::move(runFolder)),
      m_textEdit(new QPlainTextEdit(this)),
      m_status(new QLabel(this)),
      m_lengthNote(new QLabel(this)),
      m_emptyState(new QLabel(this)),
      m_progress(new JobProgressWidget(this)),
      m_slider(new QSlider(Qt::Horizontal, this)),
      m_stepLabel(new QLabel(this)),
      m_strip(new TokenStrip(this)),
      m_typingDelay(new QTimer(this)),
      m_metrics(new MetricsFollower(1000, feeds, this)),
      m_seqLen(recordedSeqLen(m_run)) {
  m_metrics->follow(m_run);
  m_textEdit->setPlaceholderText(tr("Type a sequence to route…"));
  m_textEdit->setMaximumHeight(80);
  auto* pick = new QPushButton(tr("Pick from Corpus…"), this);
  const QString corpus = runCorpus();
  pick->setToolTip(
      corpus.isEmpty()
          ? tr("Take a paragraph of a text file")
          : tr("Take a paragraph of a text file, starting at the run's corpus %1").arg(corpus));
  connect(pick, &QPushButton::clicked, this, &ChunkRoutingView::pickFromCorpus);

  m_slider->setEnabled(false);
  m_slider->setPageStep(1);
  m_slider->setTickPosition(QSlider::TicksBelow);
  auto* top = new QHBoxLayout;
  top->addWidget(m_textEdit, 1);
  auto* side = new QVBoxLayout;
  side->addWidget(pick);
  auto* exportButton = new QToolButton(this);
  exportButton->setText(tr("Export"));
  exportButton->setPopupMode(QToolButton::InstantPopup);
  side->addWidget(exportButton);
  side->addStretch();
  top->addLayout(side);
  auto* steps = new QHBoxLayout;
  steps->addWidget(new QLabel(tr("Checkpoint:"), this));
  steps->addWidget(m_slider, 1);
  steps->addWidget(m_stepLabel);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addLayout(steps);
  auto* statusRow = new QHBoxLayout;
  statusRow->addWidget(m_status, 1);
  statusRow->addWidget(m_progress);
  m_progress->hide();
  layout->addLayout(statusRow);
  m_lengthNote->setWordWrap(true);
  m_lengthNote->setStyleSheet(QStringLiteral("color: #b35900"));  // a warning, not an error
  m_lengthNote->hide();
  layout->addWidget(m_lengthNote);

  const QString seqLen =
      m_seqLen > 0 ? tr("<p>This run trained on sequences of %1 tokens: a longer text is cut to "
                        "its first %1 tokens.</p>")
                         .arg(m_seqLen)
                   : QString();
  m_emptyState->setText(
      tr("<h3>No text routed yet</h3>"
         "<p>Type a sequence in the box above, or press <b>Pick from Corpus…</b> to take a "
         "paragraph of the corpus the run trained on.</p>"
         "<p>Each token is then shown on the colour of the chunk it is routed to (hover a token "
         "for its affinities), with the chunk × position assignment heatmap and the attention "
         "mask training uses for the text.</p>%1")
          .arg(seqLen));
  m_emptyState->setWordWrap(true);
  m_emptyState->setAlignment(Qt::AlignCenter);
  m_emptyState->setForegroundRole(QPalette::PlaceholderText);
  m_emptyState->setMinimumHeight(120);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(m_emptyState);
  splitter->addWidget(m_strip);
  splitter->addWidget(buildPlots());
  splitter->setStretchFactor(2, 3);
  layout->addWidget(splitter, 1);

  auto* menu = new QMenu(exportButton);
  addPlotExportActions(menu->addMenu(tr("Assignment Heatmap")), m_assignmentPlot,
                       QStringLiteral("chunk_assignments"));
  addPlotExportActions(menu->addMenu(tr("Attention Mask")), m_maskPlot,
                       QStringLiteral("chunk_mask"));
  addPlotExportActions(menu->addMenu(tr("Chunk Load")), m_loadPlot, QStringLiteral("chunk_load"));
  menu->addAction(tr("Save Assignments as CSV…"), this, [this] {
    if (!m_report) return;
    askToSave(this, tr("Save Assignments as CSV"), tr("CSV files (*.csv)"),
              QStringLiteral("chunk_routing.csv"), QStringLiteral(".csv"),
              [this](const QString& file) { saveCsv(file); });
  });
  exportButton->setMenu(menu);

  m_typingDelay->setSingleShot(true);
  m_typingDelay->setInterval(300);
  connect(m_typingDelay, &QTimer::timeout, this, &ChunkRoutingView::requestRouting);
  connect(m_textEdit, &QPlainTextEdit::textChanged, m_typingDelay,
          static_cast<void (QTimer::*)()>(&QTimer::start));
  connect(m_slider, &QSlider::valueChanged, this, [this] {
    const int64_t step = selectedStep();
    m_stepLabel->setText(step < 0 ? tr("none") : tr("step %1").arg(step));
    requestRouting();
  });
  connect(m_metrics, &MetricsFollower::due, this, &ChunkRoutingView::poll);
  m_assignmentPlot->installEventFilter(this);
  m_metrics->start();
  poll();
  updateEmptyState();
}

ChunkRoutingView::~ChunkRoutingView() {
  // The view's own job is a child: destroying it joins. A starter's job ends on its own.
  if (m_job && m_startJob) m_job->cancel();
}

QWidget* ChunkRoutingView::buildPlots() {
  auto* plots = new QSplitter(Qt::Vertical, this);
  m_assignmentPlot = makeColorMapPlot(plots, tr("position"), tr("chunk"), m_assignmentMap);
  m_maskPlot = makeColorMapPlot(plots, tr("key: noisy x_t 0…T−1 | clean x_0 T…2T−1"),
                                tr("query (same order)"), m_maskMap);
  m_loadPlot = makeChunkLoadPlot(plots);
  auto* row = new QSplitter(Qt::Horizontal, plots);
  row->addWidget(m_maskPlot);
  row->addWidget(m_loadPlot);
  m_plotRow = row;
  plots->addWidget(m_assignmentPlot);
  plots->addWidget(row);
  return plots;
}

void ChunkRoutingView::updateEmptyState() {
  const bool routed = m_report != nullptr;
  m_emptyState->setVisible(!routed);
  m_strip->setVisible(routed);
  // No heatmap without a text: an empty colour map draws a dark square on made-up axes.
  m_assignmentPlot->setVisible(routed);
  m_maskPlot->setVisible(routed);
  m_loadPlot->setVisible(m_loadPlot->graphCount() > 0);
  m_plotRow->setVisible(routed || m_loadPlot->graphCount() > 0);
  if (!routed) m_lengthNote->hide();
}

QString ChunkRoutingView::assignmentToolTipAt(const QPoint& point) const {
  if (!m_report) return {};
  const int position = assignmentPositionAt(*m_assignmentMap, point);
  return position < 0 ? QString()
                      : TokenStrip::tokenToolTip(*m_report, static_cast<size_t>(position));
}

bool ChunkRoutingView::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_assignmentPlot && event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QString tip = assignmentToolTipAt(help->pos());
    if (tip.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(help->globalPos(), tip, m_assignmentPlot);
    return true;
  }
  return QWidget::eventFilter(watched, event);
}

void ChunkRoutingView::setText(const QString& text) {
  m_textEdit->setPlainText(text);
  m_typingDelay->stop();
  requestRouting();
}

QString ChunkRoutingView::text() const { return m_textEdit->toPlainText(); }

int64_t ChunkRoutingView::selectedStep() const {
  const int index = m_slider->value();
  return index >= 0 && static_cast<size_t>(index) < m_steps.size()
             ? m_steps[static_cast<size_t>(index)]
             : -1;
}

void ChunkRoutingView::requestRouting() {
  if (text().trimmed().isEmpty()) {  // nothing to route: back to saying what to do
    m_pending = false;
    m_report.reset();
    m_status->clear();
    updateEmptyState();
    return;
  }
  if (m_job) {
    m_pending = true;  // only the newest request runs after the current one
    return;
  }
  startRouting();
}

void ChunkRoutingView::startRouting() {
  m_pending = false;
  const std::filesystem::path run = toFsPath(m_run);
  const std::string text = this->text().toStdString();
  const int64_t step = selectedStep();
  auto result = std::make_shared<std::shared_ptr<const recipes::ChunkRoutingReport>>();
  JobWork work = [run, text, step, result](JobContext& job) {
    job.progress(-1.0, "loading the checkpoint and routing");
    *result = std::make_shared<const recipes::ChunkRoutingReport>(
        recipes::routeText(run, text, step >= 0 ? std::optional<int64_t>(step) : std::nullopt,
                           recipes::RoutedLength::TrainedSeqLen));
    job.checkCancelled();  // recipes::routeText cannot stop midway: a cancelled result is dropped
  };
  const bool ownJob = !m_startJob;
  JobController* job = ownJob ? new JobController(tr("Route text"), std::move(work), this)
                              : m_startJob(tr("Route text"), std::move(work));
  m_job = job;
  m_status->setText(tr("Routing…"));
  m_progress->setJob(job);
  m_progress->show();
  connect(
      job, &JobController::finished, this,
      [this, job, ownJob, result](JobOutcome outcome, const QString& error) {
        if (ownJob) job->deleteLater();
        m_job = nullptr;
        m_progress->hide();
        // Cancel pressed after the worker finished still means "not this one".
        if (job->cancelRequested() && outcome != JobOutcome::Failed)
          outcome = JobOutcome::Cancelled;
        if (outcome == JobOutcome::Cancelled) {
          m_status->setText(tr("Routing cancelled"));
          emit routingCancelled();
        } else if (outcome == JobOutcome::Succeeded && *result &&
                   !this->text().trimmed().isEmpty()) {
          showReport(*result);
        } else if (outcome == JobOutcome::Failed) {
          m_status->setText(tr("<span style='color:#b00020'>%1</span>").arg(error.toHtmlEscaped()));
          emit routingFailed(error);
        }
        if (m_pending) startRouting();
      });
  if (ownJob) job->start();
}

void ChunkRoutingView::showReport(std::shared_ptr<const recipes::ChunkRoutingReport> report) {
  m_report = std::move(report);
  m_strip->showReport(*m_report);
  fillAssignmentMap(*m_assignmentMap, *m_report);
  fillMaskMap(*m_maskMap, *m_report);
  m_status->setText(tr("%1 run, K = %2, checkpoint step %3, %4 tokens")
                        .arg(QLatin1String(model::dlmVariantName(m_report->variant)))
                        .arg(m_report->chunks)
                        .arg(m_report->checkpointStep)
                        .arg(m_report->tokenIds.size()));
  const bool cut = m_report->textTokens > static_cast<int64_t>(m_report->tokenIds.size());
  m_lengthNote->setVisible(cut);
  if (cut)
    m_lengthNote->setText(
        tr("The text has %1 tokens, more than the %2 this run trained on: only its first %3 "
           "tokens are routed and shown (later positions were never trained).")
            .arg(m_report->textTokens)
            .arg(m_report->trainedSeqLen)
            .arg(m_report->tokenIds.size()));
  updateEmptyState();
  emit routed();
}

void ChunkRoutingView::poll() {
  const MetricsUpdate update = m_metrics->read();
  if (!update.error.isEmpty()) {
    m_status->setText(update.error);
    return;
  }
  if (update.restarted) m_loadPlot->clearGraphs();
  appendChunkLoad(*m_loadPlot, update.records);
  if (!update.records.empty() || update.restarted) updateEmptyState();  // the load plot shows
  try {
    refreshCheckpoints();
  } catch (const std::exception& error) {
    m_status->setText(QString::fromStdString(error.what()));
  }
}

void ChunkRoutingView::refreshCheckpoints() {
  std::vector<int64_t> steps = recipes::dlmCheckpointSteps(toFsPath(m_run));
  if (steps == m_steps) return;
  const bool atNewest = m_steps.empty() || m_slider->value() == m_slider->maximum();
  const int64_t kept = selectedStep();
  m_steps = std::move(steps);
  int index = static_cast<int>(m_steps.size()) - 1;
  if (!atNewest)
    for (size_t i = 0; i < m_steps.size(); ++i)
      if (m_steps[i] == kept) index = static_cast<int>(i);
  const QSignalBlocker blocker(m_slider);
  m_slider->setRange(0, std::max(static_cast<int>(m_steps.size()) - 1, 0));
  m_slider->setEnabled(m_steps.size() > 1);
  m_slider->setValue(index);
  m_stepLabel->setText(index < 0 ? tr("none") : tr("step %1").arg(selectedStep()));
  if (atNewest && m_report && m_report->checkpointStep != selectedStep()) requestRouting();
}

QString ChunkRoutingView::pickParagraph(const QString& corpusText, int seed) {
  QStringList paragraphs;
  for (const QString& part : corpusText.split(QRegularExpression(QStringLiteral("\\n\\s*\\n"))))
    if (part.simplified().count(QLatin1Char(' ')) >= 3) paragraphs << part.trimmed();
  if (paragraphs.isEmpty()) return corpusText.left(1000);
  return paragraphs[static_cast<qsizetype>(seed) % paragraphs.size()].left(1000);
}

QString ChunkRoutingView::runCorpus() const {
  try {
    const std::optional<std::string> corpus =
        engine::readRunManifest(toFsPath(m_run)).setting("corpus");
    return corpus && !corpus->empty() ? QFileInfo(toQString(*corpus)).absoluteFilePath()
                                      : QString();
  } catch (const std::exception&) {
    return {};
  }
}

void ChunkRoutingView::pickFromCorpus() {
  const QString corpus = runCorpus();
  const QFileInfo info(corpus);
  // The run's corpus (a file selected, a folder opened), else the run's folder.
  const QString start = corpus.isEmpty() ? m_run : info.isDir() ? corpus : info.absolutePath();
  auto* dialog = new QFileDialog(this, tr("Pick a Paragraph from a Corpus"), start,
                                 tr("Text files (*.txt *.jsonl);;All (*)"));
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setFileMode(QFileDialog::ExistingFile);
  if (info.isFile()) dialog->selectFile(info.absoluteFilePath());
  connect(dialog, &QFileDialog::fileSelected, this, &ChunkRoutingView::readParagraphOf);
  dialog->open();
}

void ChunkRoutingView::readParagraphOf(const QString& file) {
  if (file.isEmpty()) return;
  QFile in(file);
  if (!in.open(QIODevice::ReadOnly)) {
    m_status->setText(tr("Cannot read %1: %2").arg(file, in.errorString()));
    return;
  }
  const QString text = QString::fromUtf8(in.read(8 * 1024 * 1024));
  setText(pickParagraph(text, static_cast<int>(QRandomGenerator::global()->bounded(1 << 30))));
}

void ChunkRoutingView::saveCsv(const QString& file) const {
  if (!m_report) throw Error("nothing routed yet");
  recipes::writeChunkRoutingCsv(*m_report, toFsPath(file));
}

}  // namespace strata
